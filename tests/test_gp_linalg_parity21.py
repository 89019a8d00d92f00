"""Gaussian-process and linear-algebra programs of TF 1.x against TF 1.15: LinearOperator
hints and errors, LinearAlgebraOp run-time words, MatrixSetDiag's shapes and errors."""

import numpy as np
import pytest

import tideflow as tf

la = tf.linalg


def _run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def test_householder_hints_and_errors():
    # TF 1.15: is_positive_definite is set to False, and each hint has its own words
    with tf.Graph().as_default():
        h = la.LinearOperatorHouseholder([1.0, 2.0, 2.0])
        assert (h.is_self_adjoint, h.is_positive_definite, h.is_non_singular) == (
            True, False, None)
        with pytest.raises(ValueError, match="^A Householder operator is always self adjoint.$"):
            la.LinearOperatorHouseholder([1.0, 2.0], is_self_adjoint=False)
        with pytest.raises(ValueError, match="^A Householder operator is always square.$"):
            la.LinearOperatorHouseholder([1.0, 2.0], is_square=False)
        assert la.LinearOperatorHouseholder([1.0, 2.0], is_non_singular=False) is not None
        with pytest.raises(ValueError, match=r"^Argument reflection_axis must have at least 1 "
                           r"dimension.  Found: Tensor\(\"LinearOperatorHouseholder_\d+/"):
            la.LinearOperatorHouseholder(1.0)


def test_operator_argument_dtype_and_vector_dimension_errors():
    with tf.Graph().as_default():
        op = la.LinearOperatorFullMatrix(np.eye(3, dtype=np.float32))
        # TF 1.15's _check_input_dtype words
        with pytest.raises(TypeError, match=r"^Expected argument to have dtype <dtype: "
                           r"'float32'>.  Found: <dtype: 'float64'> in tensor Tensor\(\"ones"):
            op.matmul(tf.ones([3, 2], tf.float64))
        with pytest.raises(TypeError, match="^Expected argument to have dtype"):
            op.add_to_tensor(tf.ones([3, 3], tf.float64))
        # matvec and solvevec check the vector's length statically, as matmul does
        with pytest.raises(ValueError, match="^Dimensions 3 and 4 are not compatible$"):
            op.matvec(tf.ones([4]))
        with pytest.raises(ValueError, match="^Dimensions 3 and 4 are not compatible$"):
            op.solvevec(tf.ones([4]))


def test_identity_and_diag_constructor_words():
    with tf.Graph().as_default():
        for kw, words in [("is_non_singular", "non-singular"), ("is_self_adjoint", "self adjoint"),
                          ("is_positive_definite", "positive-definite"), ("is_square", "square")]:
            with pytest.raises(ValueError, match=f"^An identity operator is always {words}.$"):
                la.LinearOperatorIdentity(3, **{kw: False})
        # the failed constructors above each took a name scope, as in TF
        with pytest.raises(TypeError, match=r"^Argument num_rows must be integer type.  Found: "
                           r"Tensor\(\"LinearOperatorIdentity_4/num_rows:0\""):
            la.LinearOperatorIdentity(2.5)
        with pytest.raises(ValueError, match=r"^Argument batch_shape must be non-negative.  "
                           r"Found:\[-1\]$"):
            la.LinearOperatorIdentity(3, batch_shape=[-1])
        with pytest.raises(ValueError, match=r"^Argument diag must have at least 1 dimension.  "
                           r"Found: Tensor\(\"LinearOperatorDiag/diag:0\", shape=\(\)"):
            la.LinearOperatorDiag(3.0)


def test_operator_list_words_and_inherited_hints():
    with tf.Graph().as_default():
        f32 = la.LinearOperatorFullMatrix(np.eye(3, dtype=np.float32))
        f64 = la.LinearOperatorFullMatrix(np.eye(3))
        with pytest.raises(TypeError, match=r"^Expected all operators to have the same dtype.  "
                           r"Found \('LinearOperatorFullMatrix', tf.float32\)   "
                           r"\('LinearOperatorFullMatrix', tf.float64\)$"):
            la.LinearOperatorComposition([f32, f64])
        with pytest.raises(ValueError, match=r"^Expected a list of >=1 operators. Found: \[\]$"):
            la.LinearOperatorKronecker([])
        with pytest.raises(ValueError, match=r"^Expected a non-empty list of operators. "
                           r"Found: \[\]$"):
            la.LinearOperatorBlockDiag([])
        with pytest.raises(ValueError, match="^Can only represent a block diagonal of square "
                           "matrices.$"):
            la.LinearOperatorBlockDiag([la.LinearOperatorFullMatrix(np.ones((2, 3)))])
        d1 = la.LinearOperatorDiag([1.0, 2.0], is_positive_definite=True)
        d2 = la.LinearOperatorDiag([3.0], is_positive_definite=True)
        bd, kr = la.LinearOperatorBlockDiag([d1, d2]), la.LinearOperatorKronecker([d1, d2])
        # TF 1.15 carries self-adjointness and definiteness through both
        assert (bd.is_self_adjoint, bd.is_positive_definite, bd.is_non_singular) == (
            True, True, True)
        assert (kr.is_self_adjoint, kr.is_positive_definite, kr.is_non_singular) == (
            True, True, True)
        with pytest.raises(ValueError, match="^The direct sum of positive definite operators is "
                           "always positive definite.$"):
            la.LinearOperatorBlockDiag([d1, d2], is_positive_definite=False)
        with pytest.raises(ValueError, match="^The Kronecker product of self-adjoint operators "
                           "is always self-adjoint.$"):
            la.LinearOperatorKronecker([d1, d2], is_self_adjoint=False)
        with pytest.raises(ValueError, match="^The composition of non-singular operators is "
                           "always non-singular.$"):
            la.LinearOperatorComposition([d1, d1], is_non_singular=False)
        # TF 1.15 makes a composition of mismatched factors; its shape is what fails
        bad = la.LinearOperatorComposition([f64, la.LinearOperatorFullMatrix(np.eye(4))])
        with pytest.raises(ValueError, match="^Dimensions 3 and 4 are not compatible$"):
            bad.shape  # noqa: B018


def test_toeplitz_constructor_checks():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="^Expected square matrix, got row and col with "
                           "mismatched dimensions.$"):
            la.LinearOperatorToeplitz(col=[1.0, 2.0], row=[1.0, 2.0, 3.0])
        with pytest.raises(ValueError, match="^Only square Toeplitz operators currently "
                           "supported.$"):
            la.LinearOperatorToeplitz(col=[1.0, 2.0], row=[1.0, 2.0], is_square=False)


@pytest.mark.parametrize("make, feed, words", [
    # TF 1.15's LinearAlgebraOp words, printed by TF for these feeds
    (lambda a, b: tf.matrix_triangular_solve(a, b), [np.ones((2, 3)), np.ones((2, 1))],
     "First input (lhs) must be a square matrix."),
    (lambda a, b: tf.matrix_triangular_solve(a, b), [np.ones(2), np.ones((2, 1))],
     "Input tensor 0 must have rank >= 2, got 1"),
    (lambda a, b: tf.matrix_triangular_solve(a, b), [np.eye(2), np.ones((3, 1))],
     "Input matrix and rhs are incompatible."),
    (lambda a, b: tf.matrix_triangular_solve(a, b), [np.ones((2, 2, 2)), np.ones((3, 2, 1))],
     "All input tensors must have the same outer dimensions."),
    (lambda a, b: tf.matrix_triangular_solve(a, b), [np.eye(2), np.ones(2)],
     "All input tensors must have the same rank."),
    (lambda a, b: tf.matrix_solve(a, b), [np.ones((2, 2, 2)), np.ones((3, 2, 1))],
     "All input tensors must have the same outer dimensions."),
    (lambda a, b: tf.matrix_solve(a, b), [np.eye(2), np.ones((3, 1))],
     "Input matrix and rhs are incompatible."),
    (lambda a, b: tf.cholesky_solve(a, b), [np.eye(2), np.ones((3, 1))],
     "Input matrix and rhs are incompatible."),
    (lambda a, b: tf.self_adjoint_eig(a)[0], [np.ones((2, 3)), 0.0],
     "Input matrix must be square."),
    (lambda a, b: tf.self_adjoint_eigvals(a), [np.ones((2, 3)), 0.0],
     "Input matrix must be square."),
    (lambda a, b: tf.linalg.slogdet(a)[1], [np.ones((2, 3)), 0.0],
     "Input matrix must be square."),
    (lambda a, b: tf.linalg.slogdet(a)[1], [np.ones(3), 0.0],
     "Input tensor 0 must have rank >= 2, got 1"),
    (lambda a, b: tf.linalg.lu(a)[0], [np.ones((2, 3)), 0.0], "Input matrix must be square."),
    (lambda a, b: tf.linalg.lu(a)[0], [np.ones(3), 0.0],
     "Input tensor must have rank >= 2, got 1"),
    (lambda a, b: tf.linalg.sqrtm(a), [np.ones((2, 3)), 0.0], "Input matrix must be square."),
    (lambda a, b: tf.linalg.sqrtm(a), [np.ones(3), 0.0],
     "Input tensor 0 must have rank >= 2, got 1"),
    (lambda a, b: tf.matrix_set_diag(a, b), [np.ones((2, 4)), np.ones(4)],
     ("Either first dimensions of diagonal don't match input.shape[:-2], or diagonal.shape[:-1] "
      "is not equal to the longests diagonal in range [lower_diag_index:upper_diag_index].")),
])
def test_linear_algebra_run_time_errors_read_as_tf(make, feed, words):
    with tf.Graph().as_default():
        a, b = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            _run(make(a, b), {a: feed[0], b: feed[1]})
        assert e.value.message.split("\n")[0] == words


def test_logm_non_square_reads_as_tf():
    with tf.Graph().as_default():
        c = tf.placeholder(tf.complex64)
        with pytest.raises(tf.errors.InvalidArgumentError, match="^Input matrix must be square."):
            _run(tf.linalg.logm(c), {c: np.ones((2, 3))})


def test_matrix_set_diag_static_shapes():
    # TF 1.15's shape function: batch dimensions from the diagonal only where the input's
    # shape is not fully known; a fully known input keeps its shape; a clash fails in Merge
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 3, 3])
        assert tf.matrix_set_diag(x, tf.ones([4, 3])).get_shape().as_list() == [2, 3, 3]
        u = tf.matrix_set_diag(tf.placeholder(tf.float32), tf.placeholder(tf.float32, [4, None]))
        assert u.get_shape().as_list() == [4, None, None]
        with pytest.raises(ValueError, match=r"^Dimension 0 in both shapes must be equal, but are "
                           r"2 and 4. Shapes are \[2,\?,3\] and \[4,\?,\?\]. for 'set_diag"):
            tf.matrix_set_diag(tf.placeholder(tf.float32, [2, None, 3]), tf.ones([4, 3]))


def test_tridiagonal_solve_unknown_rank_words():
    with tf.Graph().as_default(), pytest.raises(
            ValueError, match="^Cannot take the length of shape with unknown rank.$"):
        tf.linalg.tridiagonal_solve(tf.placeholder(tf.float32), tf.placeholder(tf.float32))


def test_matrix_2_norm_static_shape_and_axes_as_tf():
    # TF 1.15 permutes through map_fn'd tensors: rank known, no dimension, and an axis out
    # of range is left to fail in the final Squeeze's shape function
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 4, 3])
        assert tf.norm(x, ord=2, axis=[-2, -1]).get_shape().as_list() == [None]
        assert tf.norm(x, ord=2, axis=[0, 1], keepdims=True).get_shape().as_list() == [None] * 3
        assert tf.norm(tf.ones([4, 3]), ord=2, axis=[0, 1]).get_shape().as_list() == []
        with pytest.raises(ValueError, match=r"^squeeze_dims\[1\] not in \[-3,3\)."):
            tf.norm(x, ord=2, axis=[0, 5])
        v = np.arange(24, dtype=np.float32).reshape(2, 4, 3)
        got = _run(tf.norm(tf.constant(v), ord=2, axis=[-1, -3]))
        np.testing.assert_allclose(got, [np.linalg.norm(v[:, i, :], 2) for i in range(4)],
                                   rtol=1e-6)


def test_matrix_inverse_adjoint_gradient_is_tfs():
    # TF 1.15's MatrixInverse gradient ignores adjoint: -inv(A) @ G @ inv(A) for
    # y = inv(A)^H too (checked against TF 1.15's printed gradient)
    a = np.array([[2.0, 1.0, 0.5], [0.3, 3.0, -1.0], [0.2, 0.1, 1.5]])
    w = np.arange(9.0).reshape(3, 3)
    with tf.Graph().as_default():
        x = tf.constant(a)
        (g,) = tf.gradients(tf.reduce_sum(tf.matrix_inverse(x, adjoint=True) * w), [x])
        inv = np.linalg.inv(a)
        np.testing.assert_allclose(_run(g), -inv @ w @ inv, rtol=1e-10)


def test_operator_algebra_kinds_names_and_hints():
    # TF 1.15's registered adjoint/inverse/cholesky (its outputs printed for these calls)
    with tf.Graph().as_default():
        d = la.LinearOperatorDiag([1.0, 2.0], name="D")
        inv = d.inverse()
        assert type(inv) is la.LinearOperatorDiag and inv.name == "LinearOperatorDiag"
        assert inv.diag.op.name == "D/inverse/Inverse/truediv"
        s = la.LinearOperatorScaledIdentity(2, 3.0, name="S")
        assert type(s.inverse()) is la.LinearOperatorScaledIdentity and s.adjoint() is s
        f = la.LinearOperatorFullMatrix(np.eye(2, dtype=np.float32), name="F")
        assert (f.adjoint().name, f.inverse().name) == ("F_adjoint", "F_inv")
        assert f.inverse().inverse() is f and f.adjoint().adjoint() is f
        assert f.adjoint().is_square is True and f.inverse().is_self_adjoint is None
        bd = la.LinearOperatorBlockDiag([f, d])
        assert type(bd.inverse()) is la.LinearOperatorBlockDiag
        assert bd.inverse().name == "F_inv_ds_LinearOperatorDiag"
        assert bd.adjoint().name == "F_adjoint_ds_D"
        kr = la.LinearOperatorKronecker([la.LinearOperatorFullMatrix(
            np.diag([4.0, 9.0]), is_positive_definite=True, is_self_adjoint=True)] * 2)
        ch = kr.cholesky()
        assert type(ch) is la.LinearOperatorKronecker and ch.is_self_adjoint is False
        assert ch.name == "LinearOperatorLowerTriangular_x_LinearOperatorLowerTriangular"
        np.testing.assert_allclose(_run(ch.to_dense()), np.diag([4.0, 6.0, 6.0, 9.0]))
        # diagonal factors' Cholesky factors are self-adjoint: TF 1.15's hint clash
        dk = la.LinearOperatorKronecker([la.LinearOperatorDiag([4.0, 9.0],
                                                               is_positive_definite=True)] * 2)
        with pytest.raises(ValueError, match="^The Kronecker product of self-adjoint operators"):
            dk.cholesky()
        h = la.LinearOperatorHouseholder([1.0, 2.0])
        assert h.inverse() is h
        i = la.LinearOperatorIdentity(2)
        assert i.inverse() is i and i.cholesky() is not i
        c = la.LinearOperatorCirculant(tf.constant([4.0, 1.0, 0.5, 1.0], tf.complex128),
                                       input_output_dtype=tf.complex128)
        # TF 1.15 leaves input_output_dtype at its default for the 1-D circulant's algebra
        assert type(c.inverse()) is la.LinearOperatorCirculant
        assert c.inverse().dtype == tf.complex64 and c.adjoint().dtype == tf.complex64
        c2 = la.LinearOperatorCirculant2D(tf.constant([[4.0, 1.0], [0.5, 1.0]], tf.complex64))
        assert c2.inverse().name == "LinearOperatorCirculant2D_inv"
        with pytest.raises(ValueError, match="^An operator is self-adjoint if and only if its "
                           "inverse is self-adjoint.$"):
            la.LinearOperatorInversion(d, is_self_adjoint=False)
        with pytest.raises(ValueError, match=r"^operator and supplied hints must have "
                           r"`is_non_singular` equal to `True` or `None`.  Found None, False$"):
            la.LinearOperatorInversion(f, is_non_singular=False)


def test_low_rank_update_circulant_and_scaled_identity_hints():
    with tf.Graph().as_default():
        base = la.LinearOperatorDiag([1.0, 2.0, 3.0], is_positive_definite=True)
        lr = la.LinearOperatorLowRankUpdate(base, np.ones((3, 2), np.float32),
                                            diag_update=[0.5, 2.0], is_diag_update_positive=True)
        # TF 1.15: a positive update of a self-adjoint positive definite base is one too
        assert (lr.is_self_adjoint, lr.is_positive_definite) == (True, True)
        assert type(lr.cholesky()) is la.LinearOperatorLowerTriangular
        assert la.LinearOperatorLowRankUpdate(base, np.ones((3, 1), np.float32)
                                              ).is_diag_update_positive is True
        with pytest.raises(ValueError, match="^Arguments imply this is self-adjoint "
                           "positive-definite operator.$"):
            la.LinearOperatorLowRankUpdate(base, np.ones((3, 1), np.float32),
                                           is_non_singular=False)
        with pytest.raises(ValueError, match="^Default diagonal is the identity"):
            la.LinearOperatorLowRankUpdate(base, np.ones((3, 1), np.float32),
                                           is_diag_update_positive=False)
        real = la.LinearOperatorCirculant([4.0, 1.0, 0.5, 1.0])
        assert real.is_self_adjoint is True and real.spectrum.dtype == tf.float32
        with pytest.raises(ValueError, match="^A real spectrum always corresponds to a "
                           "self-adjoint operator.$"):
            la.LinearOperatorCirculant([4.0, 1.0], is_self_adjoint=False)
        with pytest.raises(ValueError, match="^A real diagonal operator is always self "
                           "adjoint.$"):
            la.LinearOperatorScaledIdentity(2, 3.0, is_self_adjoint=False)


def test_lower_triangular_takes_its_triangle_in_each_method():
    # TF 1.15 names the band part after the method that needs it (printed in assert messages)
    with tf.Graph().as_default():
        t = la.LinearOperatorLowerTriangular([[2.0, 5.0], [1.0, 2.0]])
        assert t.to_dense().op.name == "LinearOperatorLowerTriangular/to_dense/MatrixBandPart"
        assert t.matmul(tf.ones([2, 1])).op.inputs[0].op.name == (
            "LinearOperatorLowerTriangular/matmul/MatrixBandPart")
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"\[x \(LinearOperatorLowerTriangular/assert_self_adjoint/"
                                 r"LinearOperatorLowerTriangular/to_dense/MatrixBandPart:0\)"):
            _run(t.assert_self_adjoint())


def test_dense_defaults_use_cholesky_where_hinted():
    # TF 1.15: a self-adjoint positive definite operator solves and takes log|det| through a
    # Cholesky factor (so a matrix that is not PD fails there), others through LU
    with tf.Graph().as_default():
        k = la.LinearOperatorFullMatrix([[4.0, 2.0], [2.0, 3.0]], is_self_adjoint=True,
                                        is_positive_definite=True, name="K")
        x = k.solve(tf.ones([2, 1]))
        assert x.op.name == ("K/solve/CholeskySolveWithBroadcast/cholesky_solve/"
                             "MatrixTriangularSolve_1")
        ld, det = k.log_abs_determinant(), k.determinant()
        assert (ld.op.name, det.op.name) == ("K/log_abs_det/mul", "K/det/Exp")
        got_x, got_ld, got_det = _run([x, ld, det])
        np.testing.assert_allclose(got_x, [[0.125], [0.25]], rtol=1e-6)
        np.testing.assert_allclose([got_ld, got_det], [np.log(8.0), 8.0], rtol=1e-6)
        plain = la.LinearOperatorFullMatrix([[4.0, 2.0], [2.0, 3.0]])
        assert plain.solve(tf.ones([2, 1])).op.name == (
            "LinearOperatorFullMatrix/solve/MatrixSolveWithBroadcast/MatrixSolve")
        bad = la.LinearOperatorFullMatrix([[1.0, 2.0], [2.0, 1.0]], is_self_adjoint=True,
                                          is_positive_definite=True)
        with pytest.raises(tf.errors.InvalidArgumentError, match="^Cholesky decomposition was "
                           "not successful"):
            _run(bad.solve(tf.ones([2, 1])))


def test_diag_and_identity_products_as_tf():
    with tf.Graph().as_default():
        d = la.LinearOperatorDiag(np.float32([3.0]))
        # TF 1.15 multiplies by 1/d: 5 * (1/3) is 1.6666667 in float32, where 5/3 is 1.6666666
        assert _run(d.solve([[5.0]]))[0, 0] == np.float32(5) * (np.float32(1) / np.float32(3))
        assert _run(d.solvevec([5.0]))[0] == np.float32(1.6666667)
        assert d.matvec([2.0]).op.name == "LinearOperatorDiag/matvec/mul"
        i = la.LinearOperatorIdentity(2)
        x = tf.ones([2, 3])
        assert i.matmul(x) is x and i.solve(x) is x
        ib = la.LinearOperatorIdentity(2, batch_shape=[3])
        y = tf.ones([3, 2, 1])
        assert ib.matmul(y) is y
        assert ib.matmul(x).get_shape().as_list() == [3, 2, 3]


def test_contrib_solvers_conjugate_gradient_cgls_and_lanczos():
    # tf.contrib.solvers of TF 1.15: namedtuple states, vectors in and out, TF's static shapes
    rng = np.random.RandomState(9)
    a = rng.randn(6, 6)
    spd = a @ a.T + 6 * np.eye(6)
    b, r, rhs = rng.randn(6), rng.randn(8, 5), rng.randn(8)
    solvers = tf.contrib.solvers
    with tf.Graph().as_default():
        op = solvers.util.create_operator(tf.constant(spd))
        assert type(op).__name__ == "LinearOperator" and op.shape == [6, 6]
        cg = solvers.linear_equations.conjugate_gradient(op, tf.constant(b), tol=1e-10,
                                                         max_iter=50)
        assert type(cg).__name__ == "CGState"
        assert [t.get_shape().as_list() for t in cg] == [[], [6], [6], [6], []]
        ls = solvers.least_squares.cgls(solvers.util.create_operator(tf.constant(r)),
                                        tf.constant(rhs), tol=1e-10, max_iter=30)
        lz = solvers.lanczos.lanczos_bidiag(solvers.util.create_operator(tf.constant(r)), 4,
                                            starting_vector=tf.ones([8], tf.float64))
        assert type(lz).__name__ == "LanczosBidiagState"
        assert [t.get_shape().as_list() for t in lz] == [[8, None], [5, None], [None], [None]]
        av = solvers.lanczos.bidiag_matmul(lz.u, lz.alpha, lz.beta)
        cg, ls, lz, av = _run([cg, ls, lz, av])
    np.testing.assert_allclose(cg.x, np.linalg.solve(spd, b), rtol=1e-8)
    assert cg.i == 6  # TF 1.15 stops after 6 steps here
    np.testing.assert_allclose(ls.x, np.linalg.lstsq(r, rhs, rcond=None)[0], rtol=1e-7)
    np.testing.assert_allclose(r @ lz.v, av, atol=1e-10)  # A V = U B
    np.testing.assert_allclose(lz.u.T @ lz.u, np.eye(5), atol=1e-10)


def test_operator_batch_broadcast_clash_words():
    # TF 1.15's broadcast_static_shape words, from the solve's batch broadcast and from the
    # identity's own batch
    with tf.Graph().as_default():
        t = la.LinearOperatorLowerTriangular(np.tril(np.ones((4, 1, 3, 3))) + np.eye(3))
        x = tf.ones([5, 2, 3, 2], tf.float64)
        with pytest.raises(ValueError, match=r"^Incompatible shapes for broadcasting: \(4, 1\) "
                           r"and \(5, 2\)$"):
            t.solve(x)
        i = la.LinearOperatorIdentity(3, batch_shape=[2, 1], dtype=tf.float64)
        with pytest.raises(ValueError, match=r"^Incompatible shapes for broadcasting: "
                           r"\(5, 2, 3, 2\) and \(2, 1, 1, 1\)$"):
            i.matmul(x)


def test_complex_diag_log_abs_determinant_has_the_operator_dtype():
    # TF 1.15 casts a complex diagonal operator's log|det| to its dtype
    with tf.Graph().as_default():
        d = la.LinearOperatorDiag(tf.constant([1 + 1j, 2 - 1j, 3], tf.complex64))
        ld = d.log_abs_determinant()
        assert ld.dtype == tf.complex64
        np.testing.assert_allclose(_run(ld), np.log(np.sqrt(2) * np.sqrt(5) * 3), rtol=1e-6)


def test_non_finite_matrices_as_tf():
    # TF 1.15's outputs for these inputs (printed by TF)
    nan_first = [[np.nan, 0.0], [0.0, 1.0]]
    nan_upper = [[1.0, np.nan], [0.0, 1.0]]
    inf_first = [[np.inf, 0.0], [0.0, 1.0]]
    with tf.Graph().as_default():
        f32 = tf.float32
        det_nan, det_inf = tf.matrix_determinant(tf.constant(nan_first, f32)), \
            tf.matrix_determinant(tf.constant(inf_first, f32))
        sl_nan, sl_ninf = tf.linalg.slogdet(tf.constant(nan_first, f32)), \
            tf.linalg.slogdet(tf.constant([[-np.inf, 0.0], [0.0, 1.0]], f32))
        got = _run([det_nan, det_inf, sl_nan, sl_ninf])
        assert got[0] == 0.0 and np.isnan(got[1])
        assert tuple(got[2]) == (0.0, -np.inf) and tuple(got[3]) == (0.0, np.inf)
        for make, words in [(tf.matrix_inverse, "Input is not invertible."),
                            (lambda a: tf.matrix_solve(a, tf.ones([2, 1])),
                             "Input matrix is not invertible."),
                            (lambda a: tf.matrix_triangular_solve(a, tf.ones([2, 1])),
                             "Input matrix is not invertible."),
                            (tf.self_adjoint_eigvals, "Self-adjoint eigen decomposition")]:
            with pytest.raises(tf.errors.InvalidArgumentError, match="^" + words):
                _run(make(tf.constant(nan_first, f32)))
        # a NaN that is not the first pivot passes TF's min-pivot check; the eigensolver
        # reads the lower triangle only
        assert np.isnan(_run(tf.matrix_inverse(tf.constant(nan_upper, f32)))).all()
        np.testing.assert_array_equal(_run(tf.self_adjoint_eigvals(tf.constant(nan_upper, f32))),
                                      [1.0, 1.0])
        # Eigen's SVD does not fail on NaNs where LAPACK's does
        wide = tf.constant(np.tile(nan_first, (1, 9)), f32)
        assert np.isnan(_run(tf.svd(wide, compute_uv=False))).all()


def test_tridiagonal_solve_static_checks_read_as_tf():
    with tf.Graph().as_default():
        d = tf.ones([3, 4])
        for args, kwargs, words in [
                ((d, tf.ones([3, 1])), {}, ("Expected number of left-hand sided and right-hand "
                                           "sides to be equal, got 4 and 3")),
                ((tf.ones([2, 4]), tf.ones([4, 1])), {}, "Expected 3 diagonals got 2"),
                ((tf.ones([4]), tf.ones([4, 1])), {}, ("Expected diagonals to have rank at least "
                                                      "2, got 1")),
                ((d, tf.ones([1, 1, 4, 1])), {}, "Expected the rank of rhs to be 1 or 2, got 4"),
                (([tf.ones([4]), tf.ones([4])], tf.ones([4, 1])),
                 {"diagonals_format": "sequence"}, ("Expected diagonals to be a sequence of "
                                                   "length 3.")),
                ((tf.ones([3, 4]), tf.ones([4, 1])), {"diagonals_format": "matrix"},
                 "Expected last two dimensions of diagonals to be same, got 4 and 3")]:
            with pytest.raises(ValueError, match="^" + words.replace("(", r"\(")):
                tf.linalg.tridiagonal_solve(*args, **kwargs)
        x = tf.linalg.tridiagonal_solve(d, tf.ones([2, 4]), transpose_rhs=True)
        assert x.get_shape().as_list() == [2, 4]
