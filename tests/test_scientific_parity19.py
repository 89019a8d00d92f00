"""Scientific TF 1.x programs (least squares, ODE solvers, spectral ops, special functions,
linear operators) against TF 1.15: names, static shapes, values and errors are what TF 1.15
printed for the same programs."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_odeint_solution_is_named_as_its_scope():
    # TF 1.15 stacks dopri5's solution with name=scope: the result is `odeint:0`; odeint_fixed
    # stacks inside its method's scope
    y = tf.contrib.integrate.odeint(lambda y, t: -y, tf.constant([1.0], tf.float64),
                                    tf.constant([0.0, 1.0], tf.float64))
    y2 = tf.contrib.integrate.odeint(lambda y, t: -y, tf.constant([1.0]), tf.constant([0.0, 1.0]))
    yf = tf.contrib.integrate.odeint_fixed(lambda y, t: -y, tf.constant([1.0], tf.float64),
                                           tf.constant([0.0, 0.5, 1.0], tf.float64), dt=0.1)
    assert y.name == "odeint:0" and y2.name == "odeint_1:0"
    assert yf.name == "odeint_fixed/rk4/TensorArrayStack/TensorArrayGatherV3:0"
    assert yf.get_shape().as_list() == [3, 1]
    with tf.Session() as s:
        got, gotf = s.run([y, yf])
    np.testing.assert_allclose(got[:, 0], np.exp([0.0, -1.0]), rtol=1e-5)
    # TF 1.15: [[1], [0.6065309344], [0.3678797744]] (rk4, 5 steps per interval)
    np.testing.assert_allclose(gotf[:, 0], [1.0, 0.6065309344, 0.3678797744], rtol=1e-9)


def test_matrix_solve_ls_slow_path_takes_the_ops_name():
    # TF 1.15's fast=False runs one MatrixSolveLs op (no matrix_solve_ls scope), so the result is
    # `MatrixSolveLs:0` (or the name given) and later fast calls keep their scope numbers
    a = tf.constant([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    b = tf.constant([[1.0], [2.0], [3.0]])
    x = tf.matrix_solve_ls(a, b, fast=False)
    x2 = tf.matrix_solve_ls(a, b, fast=False, name="ls")
    x3 = tf.matrix_solve_ls(a, b)
    assert (x.name, x2.name) == ("MatrixSolveLs:0", "ls:0")
    assert x3.name == "matrix_solve_ls/cholesky_solve/MatrixTriangularSolve_1:0"
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(x), [[1.0], [2.0]], rtol=1e-6)  # TF: [[0.9999999], [2]]


def test_fft_of_real_input_raises_tf_words():
    # TF 1.15: the FFT ops' dtype check, and irfft's conversion to complex64
    with pytest.raises(TypeError, match=r"^Value passed to parameter 'input' has DataType "
                       r"float32 not in list of allowed values: complex64, complex128$"):
        tf.fft(tf.constant([1.0, 2.0]))
    with pytest.raises(TypeError, match=r"DataType int32 not in list of allowed values"):
        tf.ifft2d(tf.constant([[1, 2]]))
    with pytest.raises(ValueError, match=r"^Tensor conversion requested dtype complex64 for "
                       r"Tensor with dtype float32"):
        tf.spectral.irfft(tf.constant([1.0, 2.0]))
    assert tf.spectral.irfft([1.0, 2.0]).dtype == tf.float32
    # but a NumPy float array converts (complex64 preferred), as TF 1.15
    assert tf.fft(np.arange(4.0)).dtype == tf.complex64


def test_signal_names_and_argument_errors():
    # TF 1.15: the mel matrix is the op named as its scope; rank and dtype checks are
    # TensorShape's and convert_to_tensor's
    w = tf.signal.linear_to_mel_weight_matrix(20, 129, 8000, 80.0, 3800.0)
    w2 = tf.contrib.signal.linear_to_mel_weight_matrix(num_spectrogram_bins=tf.constant(129))
    assert (w.name, w2.name) == ("linear_to_mel_weight_matrix:0",
                                 "linear_to_mel_weight_matrix_1:0")
    with pytest.raises(ValueError, match=r"^upper_edge_hertz must not be larger than the "
                       r"Nyquist frequency \(sample_rate / 2\). Got: 5000.0 for sample_rate: "
                       r"8000$"):
        tf.signal.linear_to_mel_weight_matrix(20, 129, 8000, 100.0, 5000.0)
    with pytest.raises(ValueError, match=r"^lower_edge_hertz 4000.0 >= upper_edge_hertz 100.0$"):
        tf.signal.linear_to_mel_weight_matrix(20, 129, 8000, 4000, 100)
    with pytest.raises(ValueError, match=r"^`sample_rate` was a non-constant Tensor. Must be "
                       r"a Python float or a constant Tensor.$"):
        tf.signal.linear_to_mel_weight_matrix(sample_rate=tf.placeholder(tf.float32, []))
    with pytest.raises(ValueError, match=r"^Shape \(\) must have rank at least 1$"):
        tf.signal.stft(tf.constant(1.0), 4, 2)
    with pytest.raises(ValueError, match=r"^Shape \(\) must have rank at least 1$"):
        tf.signal.frame(tf.constant(1.0), 4, 2)
    with pytest.raises(ValueError, match=r"^Tensor conversion requested dtype float32 for "
                       r"Tensor with dtype int32"):
        tf.signal.mfccs_from_log_mel_spectrograms(tf.constant([[1, 2]]))


def test_betainc_shape_mismatch_words():
    # TF 1.15's Betainc shape function merges the non-scalar shapes (C++ Merge's message)
    with pytest.raises(ValueError, match=r"^Dimension 1 in both shapes must be equal, but are 3 "
                       r"and 4. Shapes are \[2,3\] and \[2,4\]. for 'Betainc' \(op: 'Betainc'\) "
                       r"with input shapes: \[2,3\], \[2,4\], \[\].$"):
        tf.betainc(tf.ones([2, 3]), tf.ones([2, 4]), 1.0)
    with pytest.raises(ValueError, match=r"^Shapes must be equal rank, but are 1 and 2 for"):
        tf.betainc(tf.ones([2]), tf.ones([2, 1]), 1.0)


def test_tensordot_axes_errors_read_as_tf():
    m, v = tf.ones([4, 4], name="M"), tf.ones([4], name="v")
    with pytest.raises(ValueError, match=r"^'axes' must be an integer or have length 2.$"):
        tf.tensordot(m, v, [[0], [0], [1]])
    with pytest.raises(ValueError, match=r"^'axes' must be at least 0.$"):
        tf.tensordot(m, v, -1)
    with pytest.raises(ValueError, match=r"^'axes' must be at least 0.$"):
        tf.tensordot(tf.placeholder(tf.float32), v, -1)
    with pytest.raises(ValueError, match=r"^'axes' must not be larger than the number of "
                       r"dimensions of tensor Tensor\(\"v:0\", shape=\(4,\), dtype=float32\).$"):
        tf.tensordot(v, m, 2)


def test_linear_operator_method_scopes_and_singularity_checks():
    # TF 1.15 scopes a method as one name "<operator>/<method>", unique as a whole
    la = tf.linalg
    a = la.LinearOperatorFullMatrix([[2.0, 1.0], [1.0, 2.0]])
    b = la.LinearOperatorFullMatrix([[3.0, 1.0], [1.0, 2.0]])
    d = la.LinearOperatorDiag([1.0, 2.0], name="D")
    x = tf.ones([2, 1])
    names = [a.matmul(x).name, a.matmul(x).name, b.matmul(x).name, d.matmul(x).name,
             d.determinant().name, a.trace().name, a.shape_tensor().name]
    assert names == ["LinearOperatorFullMatrix/matmul/MatMul:0",
                     "LinearOperatorFullMatrix/matmul_1/MatMul:0",
                     "LinearOperatorFullMatrix/matmul_2/MatMul:0", "D/matmul/mul:0",
                     "D/det/Prod:0", "LinearOperatorFullMatrix/trace/Sum:0",
                     "LinearOperatorFullMatrix/shape_tensor/Const:0"]
    sing = la.LinearOperatorFullMatrix([[1.0, 2.0], [2.0, 4.0]]).assert_non_singular()
    zero_diag = la.LinearOperatorLowerTriangular([[1.0, 0.0], [1.0, 0.0]]).assert_non_singular()
    not_pd = la.LinearOperatorFullMatrix([[1.0, 2.0], [2.0, 1.0]],
                                         is_self_adjoint=True).assert_positive_definite()
    with pytest.raises(NotImplementedError, match="^assert_positive_definite is not implemented"):
        la.LinearOperatorFullMatrix([[1.0, 2.0], [2.0, 1.0]]).assert_positive_definite()
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Singular matrix up to precision epsilon.*x \(Linear"
                           r"OperatorFullMatrix/assert_non_singular/truediv:0\).*y \(Linear"
                           r"OperatorFullMatrix/assert_non_singular/max_nonsingular_condition"
                           r"_number/truediv:0\) = \] \[83886.0781\]"):
            s.run(sing)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Singular operator:  Diagonal contained zero values.*"
                           r"LinearOperatorLowerTriangular/assert_non_singular/"
                           r"assert_no_entries_with_modulus_zero/Const:0"):
            s.run(zero_diag)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Cholesky decomposition"):
            s.run(not_pd)
        s.run(la.LinearOperatorDiag([1.0, 2.0]).assert_non_singular())


def test_batched_solve_rank_mismatch_names_the_batch_ranks():
    # TF 1.15's MatrixSolve/MatrixTriangularSolve shape functions merge the batch shapes
    a = tf.eye(4, batch_shape=[3])
    for fn in (tf.matrix_solve, tf.matrix_triangular_solve):
        with pytest.raises(ValueError, match=r"^Shapes must be equal rank, but are 1 and 0 for "
                           r"'Matrix\w*Solve' \(op: 'Matrix\w*Solve'\) with input shapes: "
                           r"\[3,4,4\], \[4,2\].$"):
            fn(a, tf.ones([4, 2]))


def test_self_adjoint_eig_vectors_have_tfs_signs():
    # TF 1.15 (Eigen's SelfAdjointEigenSolver) printed these vectors; LAPACK's flip columns
    m4 = np.array([[4.0, 1.0, 2.0, 0.5], [1.0, 3.0, 0.0, 1.0], [2.0, 0.0, 5.0, 1.5],
                   [0.5, 1.0, 1.5, 2.0]])
    m3 = np.array([[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 2.0]], np.float32)
    m2 = np.array([[1.0, 2.0], [2.0, -3.0]], np.float32)
    e4, v4 = tf.self_adjoint_eig(tf.constant(m4))
    _, v3 = tf.self_adjoint_eig(tf.constant(np.stack([m3, 2 * m3])))
    _, v2 = tf.linalg.eigh(tf.constant(m2))
    with tf.Session() as s:
        e4, v4, v3, v2 = s.run([e4, v4, v3, v2])
    np.testing.assert_allclose(e4, [0.77791374, 2.52305533, 3.50636456, 7.19266638], rtol=1e-7)
    np.testing.assert_allclose(v4, [[-0.27102726, -0.72121139, 0.28172928, 0.57186272],
                                    [0.45887724, 0.30870475, 0.80636355, 0.20954923],
                                    [0.39435737, 0.23474821, -0.50436372, 0.73143201],
                                    [-0.74863755, 0.5739763, 0.12658464, 0.30670729]], atol=1e-7)
    want3 = [[-0.50000024, -0.7071067, 0.49999997], [-0.7071068, 0.0000003, -0.7071068],
             [-0.49999973, 0.707107, 0.5000001]]
    np.testing.assert_allclose(v3[0], want3, atol=1e-5)
    np.testing.assert_allclose(v3[1], want3, atol=1e-5)
    np.testing.assert_allclose(v2, [[-0.38268343, 0.9238795], [0.9238795, 0.38268343]],
                               atol=1e-6)


def test_matrix_solve_ls_errors_come_from_the_composed_ops():
    # TF 1.15 checks no shapes itself: the normal equations' ops fail, naming themselves; and
    # complex128 with a regularizer is refused before any op is made
    rng = np.random.RandomState(0)
    a, b = rng.randn(6, 3), rng.randn(6, 2)
    with pytest.raises(ValueError, match=r"^Dimensions must be equal, but are 6 and 5 for "
                       r"'matrix_solve_ls/MatMul_1' \(op: 'MatMul'\) with input shapes: "
                       r"\[6,3\], \[5,2\].$"):
        tf.matrix_solve_ls(a, b[:5])
    with pytest.raises(ValueError, match=r"^Dimensions must be equal, but are 3 and 5 for "
                       r"'matrix_solve_ls_1/cholesky_solve/MatrixTriangularSolve' \(op: "
                       r"'MatrixTriangularSolve'\) with input shapes: \[3,3\], \[5,2\].$"):
        tf.matrix_solve_ls(a.T, b[:5])
    c = tf.ones([2, 2], tf.complex128)
    with pytest.raises(NotImplementedError, match="^matrix_solve_ls is currently disabled for "
                       "complex128 and l2_regularizer != 0 due to poor accuracy.$"):
        tf.matrix_solve_ls(c, tf.ones([2, 1], tf.complex128), l2_regularizer=0.5)
    x = tf.matrix_solve_ls(tf.ones([2, 2], tf.complex64), tf.ones([2, 1], tf.complex64), 0.5)
    assert x.name == "matrix_solve_ls_2/cholesky_solve/MatrixTriangularSolve_1:0"


def test_linear_operator_argument_errors_read_as_tf():
    la = tf.linalg
    with pytest.raises(TypeError, match=r"^Argument matrix must have dtype in \[tf.float16, "
                       r"tf.float32, tf.float64, tf.complex64, tf.complex128\].  Found: "
                       r"<dtype: 'int32'>$"):
        la.LinearOperatorFullMatrix([[1, 2], [3, 4]])
    with pytest.raises(ValueError, match=r"^Argument tril must have at least 2 dimensions.  "
                       r"Found: Tensor\(\"LinearOperatorLowerTriangular/tril:0\""):
        la.LinearOperatorLowerTriangular([1.0, 2.0])
    # TF 1.15 makes the composition and checks its factors when its shape is asked for
    bad = la.LinearOperatorComposition([la.LinearOperatorDiag([1.0, 2.0]),
                                        la.LinearOperatorDiag([1.0, 2.0, 3.0])])
    with pytest.raises(ValueError, match=r"^Dimensions 2 and 3 are not compatible$"):
        bad.shape  # noqa: B018
    with pytest.raises(NotImplementedError, match=r"^Determinant not implemented for an "
                       r"operator that is expected to not be square.$"):
        la.LinearOperatorFullMatrix(tf.ones([2, 3])).determinant()


def test_self_adjoint_eig_complex_vectors_have_tfs_phases():
    # TF 1.15 printed these for a Hermitian complex128 matrix (LAPACK negates columns 1 and 2)
    c = np.array([[2, 1j, 0.5], [-1j, 3, 1 - 1j], [0.5, 1 + 1j, 1]])
    _, v = tf.self_adjoint_eig(tf.constant(c, tf.complex128))
    with tf.Session() as s:
        v = s.run(v)
    want = [[-0.225281, -0.872908, 0.432759],
            [-0.396111 - 0.247397j, 0.155066 - 0.331673j, 0.106577 - 0.797797j],
            [0.321754 + 0.792221j, 0.088303 - 0.310132j, 0.34561 - 0.213154j]]
    np.testing.assert_allclose(v, want, atol=2e-6)


def test_svd_of_small_square_matrices_has_tfs_signs():
    # TF 1.15 (Eigen's Jacobi SVD below 16 columns) printed these; LAPACK negates columns
    m = np.array([[4.0, 1.0, 2.0], [1.0, -3.0, 0.5], [2.0, 0.0, 5.0]])
    s, u, v = tf.svd(tf.constant(m), full_matrices=True)
    with tf.Session() as sess:
        s, u, v = sess.run([s, u, v])
    np.testing.assert_allclose(s, [6.641502, 3.16645, 2.47266], atol=1e-5)
    np.testing.assert_allclose(u, [[0.615972, 0.346477, 0.707483],
                                   [0.139427, -0.931857, 0.334967],
                                   [0.775332, -0.107688, -0.622306]], atol=1e-5)
    np.testing.assert_allclose(v, [[0.625457, 0.075376, 0.776609],
                                   [0.029766, 0.992293, -0.120283],
                                   [0.77969, -0.098348, -0.618394]], atol=1e-5)


def test_svd_of_tall_and_wide_matrices_has_tfs_signs():
    # TF 1.15 printed these (Eigen's pivoted QR, then Jacobi, below 16 columns)
    m = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 4.0], [-2.0, 1.0]])
    s, u, v = tf.svd(tf.constant(m))
    s2, u2, v2 = tf.svd(tf.constant(m.T), full_matrices=True)
    with tf.Session() as sess:
        s, u, v, s2, u2, v2 = sess.run([s, u, v, s2, u2, v2])
    np.testing.assert_allclose(s, [4.70392949, 3.75806431], rtol=1e-8)
    np.testing.assert_allclose(s2, s, rtol=1e-12)
    np.testing.assert_allclose(u, [[0.39501729, 0.33100052], [-0.29121675, 0.75841467],
                                   [0.83019519, 0.2660375], [0.264443, -0.49443897]], atol=1e-8)
    np.testing.assert_allclose(v, [[-0.1259418, 0.99203763], [0.99203763, 0.1259418]],
                               atol=1e-8)
    np.testing.assert_allclose(u2, [[0.1259418, -0.99203763], [-0.99203763, -0.1259418]],
                               atol=1e-8)
    np.testing.assert_allclose(v2, [[-0.39501729, -0.33100052, -0.85496312, -0.05863502],
                                    [0.29121675, -0.75841467, 0.11993648, 0.57062706],
                                    [-0.83019519, -0.2660375, 0.48880931, -0.0326414],
                                    [-0.264443, 0.49443897, -0.12537451, 0.81846273]],
                               atol=1e-8)


def test_linear_operator_cholesky_scope_names_and_error():
    # TF 1.15: built under '<operator>/cholesky', the factors keep their classes' default names
    la = tf.linalg
    f = la.LinearOperatorFullMatrix([[2.0, 1.0], [1.0, 2.0]], is_self_adjoint=True,
                                    is_positive_definite=True)
    d = la.LinearOperatorDiag([1.0, 4.0], is_positive_definite=True)
    c, cd = f.cholesky(), d.cholesky()
    assert (c.name, c.is_self_adjoint, cd.name) == ("LinearOperatorLowerTriangular", False,
                                                   "LinearOperatorDiag")
    assert la.LinearOperatorLowerTriangular([[1.0, 0.0], [1.0, 1.0]])._tril.name.startswith(
        "LinearOperatorLowerTriangular/")
    with pytest.raises(ValueError, match=r"^Cannot take the Cholesky decomposition: Not a "
                       r"positive definite self adjoint matrix.$"):
        la.LinearOperatorFullMatrix([[2.0, 1.0], [1.0, 2.0]]).cholesky()
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(c.to_dense()), [[1.41421356, 0.0],
                                                          [0.70710678, 1.22474487]], rtol=1e-6)
