"""Linear algebra and tf.signal checked against what TF 1.15's own kernel tests expect of them
(matmul, the matrix decompositions and solvers, einsum, linear operators, FFTs and spectral
ops): values, static shapes, gradients, module paths and errors, each expected result computed
here with NumPy or by hand."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture
def sess():
    with tf.Graph().as_default(), tf.Session() as s:
        yield s


# -- module paths TF's tests import ---------------------------------------------------------
def test_linalg_and_signal_module_paths_hold_the_public_functions():
    from tideflow.python.ops.linalg import linalg, linalg_impl
    from tideflow.python.ops.signal import fft_ops, spectral_ops

    from tideflow.python.ops import gen_spectral_ops, linalg_ops, math_ops

    assert linalg.LinearOperatorDiag is tf.linalg.LinearOperatorDiag
    assert linalg_impl.matrix_exponential is tf.linalg.expm
    assert math_ops.matvec is tf.linalg.matvec
    assert fft_ops.rfft is tf.signal.rfft and spectral_ops.stft is tf.signal.stft
    assert callable(gen_spectral_ops.irfft) and callable(linalg_ops.log_matrix_determinant)
    # TF's names: a test picks the square-root input by the function's name
    assert tf.linalg.sqrtm.__name__ == "matrix_square_root"
    assert tf.linalg.expm.__name__ == "matrix_exponential"


def test_gradient_checker_v2_returns_y_by_x_jacobians(sess):
    from tideflow.python.ops import gradient_checker_v2

    x = np.arange(6.0).reshape(2, 3)
    y = np.arange(12.0).reshape(3, 4) / 7
    theo, num = gradient_checker_v2.compute_gradient(lambda a, b: tf.matmul(a, b) * 2.0, [x, y])
    assert [t.shape for t in theo] == [(8, 6), (8, 12)]
    # d(2 x y)[i, k] / dx[i, j] = 2 y[j, k]
    assert theo[0][0, 0] == pytest.approx(2 * y[0, 0])
    assert theo[0][0, 1] == pytest.approx(2 * y[1, 0])
    assert gradient_checker_v2.max_error(theo, num) < 1e-6


# -- MatMul --------------------------------------------------------------------------------
def test_matmul_flops_statistic_counts_two_per_term():
    from tideflow.framework import ops

    with tf.Graph().as_default() as g:
        a = tf.zeros([7, 4])
        b = tf.zeros([6, 5])
        c = tf.matmul(a, tf.zeros([4, 6]))
        d = tf.matmul(a, b[:, :4], transpose_b=True)
        e = tf.matmul(tf.zeros([7, 3]), a, transpose_a=True)
        for t, want in ((c, 2 * 4 * 7 * 6), (d, 2 * 4 * 7 * 6), (e, 2 * 3 * 7 * 4)):
            assert ops.get_stats_for_node_def(g, t.op.node_def, "flops").value == want
        unknown = tf.matmul(tf.placeholder(tf.float32, [None, 4]), tf.zeros([4, 2]))
        assert ops.get_stats_for_node_def(g, unknown.op.node_def, "flops").value is None


# -- triangular solve ------------------------------------------------------------------------
@pytest.mark.parametrize("n", [5, 70])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_triangular_solve_substitutes_row_by_row(sess, n, lower, adjoint):
    rng = np.random.RandomState(3)
    a = rng.uniform(-1, 1, (2, n, n)) + 3 * np.eye(n)
    b = rng.uniform(-1, 1, (2, n, 3))
    out = sess.run(tf.matrix_triangular_solve(a, b, lower=lower, adjoint=adjoint))
    tri = np.tril(a) if lower else np.triu(a)
    tri = np.swapaxes(tri, -1, -2) if adjoint else tri
    np.testing.assert_allclose(out, np.linalg.solve(tri, b), rtol=1e-10, atol=1e-12)
    # forward substitution: changing the last row of the matrix leaves the other rows of the
    # solution bit for bit as they were (no pivoting through the rest of the matrix)
    a2 = a.copy()
    row = n - 1 if lower != adjoint else 0
    if adjoint:
        a2[:, :, row] *= 1.5
    else:
        a2[:, row, :] *= 1.5
    out2 = sess.run(tf.matrix_triangular_solve(a2, b, lower=lower, adjoint=adjoint))
    keep = [i for i in range(n) if i != row]
    assert np.array_equal(out[:, keep], out2[:, keep])


# -- Svd -----------------------------------------------------------------------------------
def test_svd_of_complex_matrices_returns_real_singular_values(sess):
    a = np.array([[1 + 2j, 0.5], [3j, -1 + 1j], [2, 1j]], np.complex64)
    s, u, _ = tf.linalg.svd(a)
    assert s.dtype == tf.float32 and u.dtype == tf.complex64
    assert tf.svd(a, compute_uv=False).dtype == tf.float32
    np.testing.assert_allclose(sess.run(s), np.linalg.svd(a, compute_uv=False), rtol=1e-5)


def test_svd_of_a_vector_is_a_rank_error_at_graph_construction():
    with tf.Graph().as_default(), pytest.raises(ValueError, match="at least rank 2 but is rank 1"):
        tf.linalg.svd(tf.zeros([4]))


@pytest.mark.parametrize("shape,full", [((4, 4), False), ((3, 5), False), ((5, 3), False),
                                        ((2, 4, 3), False), ((3, 4), True), ((4, 3), True)])
def test_svd_gradient_through_u_and_v_matches_finite_differences(sess, shape, full):
    from tideflow.python.ops import gradient_checker_v2

    rng = np.random.RandomState(7)
    a = rng.uniform(-1, 1, shape)
    w_u = rng.uniform(-1, 1, (shape[-2], shape[-2] if full else min(shape[-2:])))
    w_v = rng.uniform(-1, 1, (shape[-1], shape[-1] if full else min(shape[-2:])))

    def loss(x):
        s, u, v = tf.linalg.svd(x, full_matrices=full)
        # squares: invariant under each singular vector's sign
        return (tf.reduce_sum(s * s) + tf.reduce_sum(w_u * u * u)
                + tf.reduce_sum(w_v * v * v))

    theo, num = gradient_checker_v2.compute_gradient(loss, [a], delta=1e-4)
    assert gradient_checker_v2.max_error(theo, num) < 1e-6


def test_assert_all_close_takes_tolerances_per_element():
    case = tf.test.TestCase()
    case.assertAllClose([[1.0, 2.0], [100.0, 200.0]], [[1.05, 2.05], [100.5, 200.5]],
                        rtol=0, atol=np.array([[0.1], [1.0]]))
    with pytest.raises(AssertionError):
        case.assertAllClose([1.0, 100.0], [1.5, 100.5], rtol=0, atol=np.array([0.1, 1.0]))


@pytest.mark.parametrize("fn", [tf.qr, tf.self_adjoint_eig, tf.matrix_triangular_solve])
def test_matrix_ops_rank_errors_use_tf_shape_function_words(fn):
    with tf.Graph().as_default():
        args = (tf.zeros([3]),) if fn is not tf.matrix_triangular_solve else (tf.zeros([3]),
                                                                                tf.zeros([3, 1]))
        with pytest.raises(ValueError, match="Shape must be at least rank 2 but is rank 1"):
            fn(*args)
        if fn is not tf.qr:
            args = ((tf.zeros([2, 3]),) if fn is tf.self_adjoint_eig
                    else (tf.zeros([2, 3]), tf.zeros([3, 1])))
            with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
                fn(*args)


# -- diagonal bands (MatrixDiagV2 / MatrixDiagPartV2 / MatrixSetDiagV2) ----------------------
# TF 1.15 builds them past its forward-compatibility horizon only (its diag_op_test moves it):
# by default k and the band arguments are ignored (tests/test_op_sweep_parity27.py)


@pytest.fixture
def v2_diag():
    with tf.compat.forward_compatibility_horizon(2019, 9, 1):
        yield


def test_diag_part_band_packs_top_diagonal_first_left_aligned(sess, v2_diag):
    x = np.arange(1, 13).reshape(3, 4)
    out = tf.linalg.diag_part(x, k=(-1, 1), padding_value=-1)
    assert out.op.type == "MatrixDiagPartV2" and out.get_shape().as_list() == [3, 3]
    np.testing.assert_array_equal(sess.run(out), [[2, 7, 12], [1, 6, 11], [5, 10, -1]])
    assert tf.linalg.diag_part(x).op.type == "MatrixDiagPart"


def test_diag_band_sizes_the_matrix_from_k_and_the_given_dimension(sess, v2_diag):
    d = np.array([[1, 2], [3, 4]])
    # the smallest square that fits: 3 x 3 (diagonal 2 of it holds one value, the rest unused)
    out = tf.linalg.diag(d, k=(1, 2))
    assert out.get_shape().as_list() == [3, 3]
    np.testing.assert_array_equal(sess.run(out), [[0, 3, 1], [0, 0, 4], [0, 0, 0]])
    wide = tf.linalg.diag([5.0, 6.0], k=1, num_rows=2, padding_value=0.5)
    assert wide.get_shape().as_list() == [2, 3]
    np.testing.assert_array_equal(sess.run(wide), [[0.5, 5, 0.5], [0.5, 0.5, 6]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="not consistent"):
        sess.run(tf.linalg.diag([5.0, 6.0], k=1, num_rows=5, num_cols=5))


def test_set_diag_band_replaces_only_the_band_and_its_gradients(sess, v2_diag):
    x = np.arange(12.0).reshape(3, 4)
    d = np.array([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]])
    out = tf.linalg.set_diag(x, d, k=(-1, 0))
    want = x.copy()
    want[[0, 1, 2], [0, 1, 2]] = [10, 20, 30]
    want[[1, 2], [0, 1]] = [40, 50]
    np.testing.assert_array_equal(sess.run(out), want)
    xt, dt = tf.constant(x), tf.constant(d)
    y = tf.linalg.set_diag(xt, dt, k=(-1, 0))
    gx, gd = sess.run(tf.gradients(tf.reduce_sum(y * np.arange(12.0).reshape(3, 4)), [xt, dt]))
    np.testing.assert_array_equal(gx, np.where(want != x, 0, np.arange(12.0).reshape(3, 4)))
    np.testing.assert_array_equal(gd, [[0, 5, 10], [4, 9, 0]])


def test_diag_ops_run_time_rank_errors_use_tf_words(sess):
    v = tf.placeholder(tf.float32)
    for fn, want in ((lambda: tf.matrix_diag(v), "diagonal must be at least 1-dim"),
                     (lambda: tf.matrix_set_diag(v, [v]), "input must be at least 2-dim"),
                     (lambda: tf.matrix_set_diag([[v]], v), "diagonal must be at least 1-dim")):
        with pytest.raises(tf.errors.InvalidArgumentError, match=want):
            sess.run(fn(), {v: 0.0})


def test_compat_module_path_answers_forward_compatible():
    from tideflow.python.compat import compat

    # TF 1.15.0's horizon is 2019-08-21: only earlier dates are past
    assert compat.forward_compatible(2019, 8, 20)
    assert not compat.forward_compatible(2019, 8, 31)


def test_lu_of_a_singular_matrix_says_not_invertible(sess):
    with pytest.raises(tf.errors.InvalidArgumentError, match="^Input is not invertible."):
        sess.run(tf.linalg.lu(np.zeros([2, 2])))


# -- einsum ----------------------------------------------------------------------------------
def test_einsum_op_writes_a_repeated_output_label_onto_the_diagonal(sess):
    from tideflow.python.ops import gen_linalg_ops

    x = tf.constant(np.arange(6.0).reshape(2, 3))
    y = gen_linalg_ops.einsum([x], "ab->aab")
    assert y.get_shape().as_list() == [2, 2, 3]
    want = np.zeros((2, 2, 3))
    want[[0, 1], [0, 1]] = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(sess.run(y), want)
    # its gradient reads the diagonal back
    (g,) = tf.gradients(tf.reduce_sum(y * np.arange(12.0).reshape(2, 2, 3)), [x])
    np.testing.assert_array_equal(sess.run(g), [[0, 1, 2], [9, 10, 11]])
    with pytest.raises(ValueError, match="Invalid equation: ab->aab"):
        tf.einsum("ab->aab", x)  # tf.einsum itself refuses, in TF 1.15's words


def test_einsum_without_output_ellipsis_sums_the_broadcast_dims(sess):
    # TF 1.15's einsum (TF 2's Einsum op refuses instead): the labels the ellipsis stands for,
    # left out of the output, are summed
    out = tf.einsum("...ij,...jk->ik", tf.constant(np.ones((2, 2, 3))),
                    tf.constant(np.ones((3, 4))))
    np.testing.assert_array_equal(sess.run(out), np.full((2, 4), 6.0))
    with pytest.raises(ValueError, match="Unable to statically infer ellipsis axes"):
        tf.einsum("...ij,...jk->ik", tf.placeholder(tf.float64), tf.constant(np.ones((3, 4))))
    # an ellipsis that covers nothing may be left out of the output
    a = tf.placeholder(tf.float64, [2, 3])
    # (tensors: TF 1.15's einsum reads get_shape() of its inputs, so an array is refused)
    out = tf.einsum("...ij,...jk->ik", a, tf.constant(np.ones((3, 4))))
    np.testing.assert_array_equal(sess.run(out, {a: np.ones((2, 3))}), np.full((2, 4), 3.0))


def test_special_math_ops_path_holds_einsum_lbeta_and_bessel(sess):
    from tideflow.python.ops import special_math_ops

    assert special_math_ops.einsum is tf.einsum
    np.testing.assert_allclose(sess.run(special_math_ops.lbeta(tf.zeros([2, 0]))),
                               [-np.inf, -np.inf])
    # (TF 1.15 gives 1.0000001: Eigen's float i0e, a Chebyshev series, at 0)
    assert sess.run(special_math_ops.bessel_i0(0.0)) == np.float32(1.0000001)


# -- matrix functions, linear operators ------------------------------------------------------
def test_sqrtm_of_a_matrix_without_a_real_root_is_all_nan(sess):
    out = sess.run(tf.linalg.sqrtm(np.stack([-np.eye(2), 4 * np.eye(2)])))
    assert np.isnan(out[0]).all()
    np.testing.assert_allclose(out[1], 2 * np.eye(2))


def test_zeros_operator_is_square_unless_told_otherwise():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"is_square=True, but got num_rows\(3\) != "
                                             r"num_columns\(2\)"):
            tf.linalg.LinearOperatorZeros(3, 2)
        rect = tf.linalg.LinearOperatorZeros(3, 2, is_square=False)
        assert rect.shape.as_list() == [3, 2]
        square = tf.linalg.LinearOperatorZeros(3)
        with pytest.raises(NotImplementedError, match="expected to be singular"):
            square.solvevec(np.ones(3, np.float32))


# -- FFT -------------------------------------------------------------------------------------
def test_rfft_wrapper_pads_short_input_and_the_raw_op_refuses_it(sess):
    from tideflow.python.ops import gen_spectral_ops

    x = np.arange(5.0, dtype=np.float32)
    np.testing.assert_allclose(sess.run(tf.signal.rfft(x, [8])), np.fft.rfft(x, 8), atol=1e-5)
    p = tf.placeholder(tf.float32)
    np.testing.assert_allclose(sess.run(tf.signal.rfft(p, [8]), {p: x}), np.fft.rfft(x, 8),
                               atol=1e-5)
    c = np.fft.rfft(x)[:2].astype(np.complex64)
    np.testing.assert_allclose(sess.run(tf.signal.irfft(c, [6])), np.fft.irfft(c, 6), atol=1e-5)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Input dimension 0 must have length of at least 8 but got: 5"):
        sess.run(gen_spectral_ops.rfft(x, [8]))


def test_fft_shape_errors_use_tf_words():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Shape must be at least rank 2 but is rank 1"):
            tf.signal.fft2d(np.zeros(3, np.complex64))
        with pytest.raises(ValueError, match=r"Shape \(3,\) must have rank at least 2"):
            tf.signal.rfft2d(np.zeros(3, np.float32))
        with pytest.raises(ValueError, match=r"Shape \(1, 1\) must have rank 1"):
            tf.signal.irfft(np.zeros(3, np.complex64), np.zeros((1, 1), np.int32))
        with pytest.raises(ValueError, match="Dimension must be 1 but is 2"):
            tf.signal.rfft(np.zeros(3, np.float32), [2, 2])


def test_real_ffts_of_empty_signals_keep_the_empty_shape(sess):
    assert sess.run(tf.signal.rfft(np.zeros([0], np.float32))).shape == (0,)
    assert sess.run(tf.signal.irfft(np.zeros([2, 0], np.complex64))).shape == (2, 0)
    assert tf.signal.rfft(np.zeros([0], np.float32)).get_shape().as_list() == [0]


# -- signal framing --------------------------------------------------------------------------
def test_frame_and_overlap_and_add_take_signals_of_unknown_rank(sess):
    x = np.arange(2 * 3 * 7.0).reshape(2, 3, 7)
    p = tf.placeholder(tf.float64)
    framed = tf.signal.frame(p, 3, 2, pad_end=True, pad_value=-1.0)
    want = sess.run(tf.signal.frame(x, 3, 2, pad_end=True, pad_value=-1.0))
    np.testing.assert_array_equal(sess.run(framed, {p: x}), want)
    assert want.shape == (2, 3, 4, 3) and want[0, 0, -1].tolist() == [6.0, -1.0, -1.0]
    frames = np.arange(2 * 4 * 3.0).reshape(2, 4, 3)
    out = sess.run(tf.signal.overlap_and_add(p, 2), {p: frames})
    want = np.zeros((2, 9))
    for i in range(4):
        want[:, 2 * i:2 * i + 3] += frames[:, i]
    np.testing.assert_array_equal(out, want)


def test_signal_argument_errors_use_tf_words():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"Shape \(5,\) must have rank at least 2"):
            tf.signal.overlap_and_add(np.zeros(5), 2)
        with pytest.raises(ValueError, match="dtype must be a floating point type. Found"):
            tf.signal.hann_window(4, dtype=tf.int32)


def test_stft_gradient_is_dense_and_inverse_stft_takes_unknown_rank(sess):
    x = tf.constant(np.sin(np.linspace(0, 20, 64)).astype(np.float32))
    (g,) = tf.gradients(tf.reduce_sum(tf.abs(tf.signal.stft(x, 16, 8, 16))), [x])
    assert isinstance(g, tf.Tensor) and g.get_shape().as_list() == [64]
    # the samples past the last whole frame get no gradient
    framed = tf.signal.frame(x, 10, 7)  # 8 frames, the last one samples 49..58
    (g,) = tf.gradients(tf.reduce_sum(framed), [x])
    np.testing.assert_array_equal(sess.run(g)[47:], [1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 0,
                                                    0, 0, 0, 0])
    stft = sess.run(tf.signal.stft(x, 16, 8, 8))
    p = tf.placeholder(tf.complex64)
    known = sess.run(tf.signal.inverse_stft(stft, 16, 8, 8))
    np.testing.assert_allclose(sess.run(tf.signal.inverse_stft(p, 16, 8, 8), {p: stft}), known)


def test_diagonal_operator_algebra_stays_diagonal(sess):
    linalg = tf.linalg
    d1 = linalg.LinearOperatorDiag([2.0, 4.0], is_non_singular=True)
    d2 = linalg.LinearOperatorDiag([1.0, 8.0], is_non_singular=True)
    s3 = linalg.LinearOperatorScaledIdentity(2, 3.0, is_non_singular=True)
    for op, want in ((d1.matmul(d2), [2, 32]), (s3.matmul(d1), [6, 12]),
                     (d1.solve(d2), [0.5, 2]), (d1.solve(s3), [1.5, 0.75]),
                     (d1.inverse(), [0.5, 0.25])):
        assert isinstance(op, linalg.LinearOperatorDiag)
        np.testing.assert_allclose(sess.run(op.diag), want)
    pd = linalg.LinearOperatorDiag([4.0, 9.0], is_positive_definite=True)
    assert isinstance(pd.cholesky(), linalg.LinearOperatorDiag)
    np.testing.assert_allclose(sess.run(pd.cholesky().diag), [2, 3])
    c = linalg.LinearOperatorDiag(np.array([1 + 1j, 2j]))
    np.testing.assert_allclose(sess.run(c.adjoint().diag), [1 - 1j, -2j])
    with pytest.raises(tf.errors.InvalidArgumentError, match="non-zero imaginary.*not self-adj"):
        sess.run(c.assert_self_adjoint())
    with pytest.raises(tf.errors.InvalidArgumentError, match="non-positive real.*not positive"):
        sess.run(linalg.LinearOperatorDiag([1.0, 0.0]).assert_positive_definite())


def test_linalg_functions_dispatch_to_linear_operators(sess):
    linalg = tf.linalg
    m = np.array([[2.0, 0.5], [0.5, 1.0]])
    op = linalg.LinearOperatorFullMatrix(m, is_self_adjoint=True, is_positive_definite=True)
    rhs = np.arange(6.0).reshape(3, 2, 1) - 2.0
    np.testing.assert_allclose(sess.run(tf.matmul(op, rhs)), m @ rhs)
    np.testing.assert_allclose(sess.run(tf.matmul(rhs.transpose(0, 2, 1), op)),
                               rhs.transpose(0, 2, 1) @ m)
    np.testing.assert_allclose(sess.run(linalg.solve(op, rhs)), np.linalg.solve(m, rhs))
    for fn, want in ((linalg.det, np.linalg.det(m)), (linalg.logdet, np.log(np.linalg.det(m))),
                     (linalg.trace, np.trace(m)), (linalg.diag_part, np.diag(m))):
        np.testing.assert_allclose(sess.run(fn(op)), want)
    for fn in (linalg.adjoint, linalg.inv, linalg.cholesky):
        assert isinstance(fn(op), linalg.LinearOperator)


def test_operator_square_hints_and_generic_to_dense(sess):
    linalg = tf.linalg

    class Doubling(linalg.LinearOperator):  # only _shape and _matmul
        def __init__(self, n, **hints):
            super().__init__(tf.float64, **hints)
            self._n = n

        def _shape(self):
            return tf.TensorShape([self._n, self._n])

        def _matmul(self, x, adjoint=False, adjoint_arg=False):
            return 2.0 * x

    np.testing.assert_array_equal(sess.run(Doubling(3).to_dense()), 2 * np.eye(3))
    with pytest.raises(ValueError, match="set is_square hint to False, but the operator was "
                                         "square"):
        _ = Doubling(3, is_square=False).is_square
    a = linalg.LinearOperatorFullMatrix(tf.placeholder(tf.float64), is_square=True,
                                        is_non_singular=False)
    product = a.matmul(a)
    assert product.is_square and product.is_non_singular is False
    wide = linalg.LinearOperatorFullMatrix(np.ones((2, 3)), is_square=False)
    tall = linalg.LinearOperatorFullMatrix(np.ones((3, 2)), is_square=False)
    wider = linalg.LinearOperatorFullMatrix(np.ones((3, 4)), is_square=False)
    assert wide.matmul(tall).is_square and tall.matmul(wide).is_square
    product = wide.matmul(wider)
    assert product.is_square is False and product.is_non_singular is False


def test_identity_operators_check_their_shape_arguments(sess):
    linalg = tf.linalg
    for kwargs, exc, words in (({"num_rows": [2]}, ValueError, "must be a 0-D Tensor"),
                               ({"num_rows": 2.0}, TypeError, "must be integer"),
                               ({"num_rows": -2}, ValueError, "must be non-negative"),
                               ({"num_rows": 2, "batch_shape": 2}, ValueError, "must be a 1-D"),
                               ({"num_rows": 2, "batch_shape": [-1]}, ValueError,
                                "must be non-negative")):
        with pytest.raises(exc, match=words):
            linalg.LinearOperatorIdentity(**kwargs)
    rows = tf.placeholder_with_default(-3, shape=None)
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be non-negative"):
        sess.run(linalg.LinearOperatorIdentity(rows, assert_proper_shapes=True).to_dense())
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        linalg.LinearOperatorIdentity(2).matmul(np.ones((3, 3), np.float32))
    batch = tf.placeholder_with_default(np.array([2, 1], np.int32), shape=None)
    ident = linalg.LinearOperatorIdentity(3, batch_shape=batch, dtype=tf.float64)
    assert sess.run(ident.matmul(np.ones((1, 2, 3, 4)))).shape == (2, 2, 3, 4)
    assert ident.inverse() is ident
    # TF 1.15's Cholesky makes a new identity from the static batch shape, which fails here
    with pytest.raises(ValueError, match="Cannot convert a partially known TensorShape"):
        ident.cholesky()
    scaled = linalg.LinearOperatorScaledIdentity(2, [1.0, 0.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="was singular"):
        sess.run(scaled.assert_non_singular())
    with pytest.raises(tf.errors.InvalidArgumentError, match="not self-adjoint"):
        sess.run(linalg.LinearOperatorScaledIdentity(2, [1 + 1j]).assert_self_adjoint())


def test_matrix_two_norm_of_a_tensor_of_unknown_rank(sess):
    x = np.random.RandomState(4).randn(2, 3, 4)
    p = tf.placeholder(tf.float64)
    for axis, keep in (((-2, -1), False), ((0, 2), True)):
        out = sess.run(tf.norm(p, ord=2, axis=axis, keepdims=keep), {p: x})
        np.testing.assert_allclose(out, np.linalg.norm(x, ord=2, axis=axis, keepdims=keep))


def test_overlap_and_add_of_non_overlapping_frames_is_a_reshape(sess):
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        out = tf.signal.overlap_and_add(tf.ones([3, 5]), 5)
        assert out.name == "overlap_and_add/fast_path:0" and out.op.type == "Reshape"
        np.testing.assert_array_equal(s.run(out), np.ones(15))
        frames = tf.placeholder(tf.float32, [None, 2, 3])
        out = tf.signal.overlap_and_add(frames, 3)
        assert out.get_shape().as_list() == [None, 6]
        x = np.arange(12.0).reshape(2, 2, 3)
        np.testing.assert_array_equal(s.run(out, {frames: x}), x.reshape(2, 6))


def test_mel_weight_matrix_takes_tensor_arguments(sess):
    mel = tf.signal.linear_to_mel_weight_matrix
    want = sess.run(mel(8, 33, 16000.0, 100.0, 6000.0, tf.float64))
    assert want.shape == (33, 8) and (want[0] == 0).all()
    got = sess.run(mel(8, 33, tf.constant(16000.0), 100.0, 6000.0, tf.float64))
    np.testing.assert_array_equal(got, want)
    bins = tf.placeholder(tf.int32, [])
    got = sess.run(mel(8, bins, 16000.0, 100.0, 6000.0, tf.float64), {bins: 33})
    np.testing.assert_allclose(got, want, atol=1e-12)
    assert mel(dtype=tf.bfloat16).dtype == tf.bfloat16
    with pytest.raises(ValueError, match="`sample_rate` was a non-constant Tensor. Must be a"):
        mel(sample_rate=tf.placeholder(tf.float32))
    with pytest.raises(ValueError, match="num_spectrogram_bins must be positive"):
        mel(num_spectrogram_bins=0)


@pytest.mark.parametrize("dct_type,norm", [(1, None), (2, None), (2, "ortho"), (3, "ortho"),
                                           (4, None)])
def test_dct_and_mfccs_of_unknown_inner_size(sess, dct_type, norm):
    x = np.random.RandomState(5).rand(2, 3, 6)
    p = tf.placeholder(tf.float64)
    for n in (None, 4, 8):
        want = sess.run(tf.signal.dct(x, type=dct_type, norm=norm, n=n))
        got = sess.run(tf.signal.dct(p, type=dct_type, norm=norm, n=n), {p: x})
        np.testing.assert_allclose(got, want, atol=1e-12)
    mfcc = tf.signal.mfccs_from_log_mel_spectrograms(p)
    np.testing.assert_allclose(sess.run(mfcc, {p: x}),
                               sess.run(tf.signal.mfccs_from_log_mel_spectrograms(x)))


def test_tridiagonal_solve_right_hand_side_layouts(sess):
    d = np.array([[2.0, 1, 4, 0], [1, 3, 2, 2], [0, 1, -1, 1]])
    dense = np.diag(d[1]) + np.diag(d[0, :-1], 1) + np.diag(d[2, 1:], -1)
    r = np.array([[1.0, 2, 3, 4], [2, 0, 1, 5]])
    x = np.linalg.solve(dense, r.T)
    solve = tf.linalg.tridiagonal_solve
    # [K, M] with transpose_rhs: the solutions come back as [K, M]
    np.testing.assert_allclose(sess.run(solve(d, r, transpose_rhs=True)), x.T)
    # a vector is one right-hand side whatever transpose_rhs says, batched or not
    np.testing.assert_allclose(sess.run(solve(d, r[0], transpose_rhs=True)), x[:, 0])
    np.testing.assert_allclose(sess.run(solve(np.stack([d, d]), r, transpose_rhs=True)), x.T)
    # 'sequence' off-diagonals may hold M - 1 values
    seq = (d[0, :-1], d[1], d[2, 1:])
    np.testing.assert_allclose(sess.run(solve(seq, r.T, diagonals_format="sequence")), x)


def test_lu_of_empty_batches(sess):
    for shape in ([0, 2, 2], [2, 0, 0]):
        lu, perm = sess.run(tf.linalg.lu(np.zeros(shape), output_idx_type=tf.int64))
        assert lu.shape == tuple(shape) and perm.shape == tuple(shape[:-1])
        assert perm.dtype == np.int64
