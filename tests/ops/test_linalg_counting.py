"""Errors and edge cases of the linear-algebra extras (triangular solve, qr, eigh, lstsq)
and the counting ops (setdiff1d, unique_with_counts, bincount, histograms, ...)."""

import numpy as np
import pytest

import tideflow as tf


def _run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def test_matrix_transpose_rejects_vectors():
    with tf.Graph().as_default(), pytest.raises(ValueError, match=r"rank >= 2.*\[3\]"):
        tf.matrix_transpose(tf.zeros([3]))


def test_triangular_solve_static_shape_mismatch_names_op_and_shapes():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"MatrixTriangularSolve.*\[3,3\].*\[4,2\]"):
            tf.matrix_triangular_solve(tf.eye(3), tf.zeros([4, 2]))
        with pytest.raises(ValueError, match=r"Dimensions must be equal, but are 2 and 3 for "
                                             r"'MatrixTriangularSolve.*\[2,3\]"):
            tf.matrix_triangular_solve(tf.zeros([2, 3]), tf.zeros([2, 2]))


def test_triangular_solve_runtime_errors():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float64)
        b = tf.placeholder(tf.float64)
        x = tf.matrix_triangular_solve(a, b)
        # TF 1.15's LinearAlgebraOp words
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="^Input matrix and rhs are incompatible."):
            _run(x, {a: np.eye(2), b: np.ones((3, 1))})
        with pytest.raises(tf.errors.InvalidArgumentError, match="not invertible"):
            _run(x, {a: np.zeros((2, 2)), b: np.ones((2, 1))})


def test_triangular_solve_ignores_the_other_triangle():
    with tf.Graph().as_default():
        a = np.array([[2.0, 100.0], [1.0, 4.0]])
        x = _run(tf.matrix_triangular_solve(a, np.array([[2.0], [9.0]])))
        np.testing.assert_allclose(x, [[1.0], [2.0]])


def test_qr_gradient_wide_or_full_is_not_implemented():
    with tf.Graph().as_default():
        a = tf.constant(np.ones((2, 3)))
        q, r = tf.qr(a)
        with pytest.raises(NotImplementedError, match="QrGrad"):
            tf.gradients(tf.reduce_sum(r), a)
        b = tf.constant(np.ones((3, 2)))
        q, r = tf.qr(b, full_matrices=True)
        with pytest.raises(NotImplementedError, match="QrGrad"):
            tf.gradients(tf.reduce_sum(q), b)


def test_qr_static_shapes():
    with tf.Graph().as_default():
        q, r = tf.qr(tf.zeros([5, 4, 3]))
        assert q.get_shape().as_list() == [5, 4, 3] and r.get_shape().as_list() == [5, 3, 3]
        q, r = tf.qr(tf.zeros([4, 3]), full_matrices=True)
        assert q.get_shape().as_list() == [4, 4] and r.get_shape().as_list() == [4, 3]


def test_self_adjoint_eig_reads_lower_triangle_and_rejects_non_square():
    with tf.Graph().as_default():
        a = np.array([[2.0, 50.0], [1.0, 2.0]])
        e = _run(tf.self_adjoint_eigvals(a))
        np.testing.assert_allclose(e, [1.0, 3.0])
        with pytest.raises(ValueError, match=r"Dimensions must be equal, but are 2 and 3 for "
                                             r"'SelfAdjointEigV2.*\[2,3\]"):
            tf.self_adjoint_eig(tf.zeros([2, 3]))
        p = tf.placeholder(tf.float32)
        with pytest.raises(tf.errors.InvalidArgumentError, match="^Input matrix must be square."):
            _run(tf.self_adjoint_eigvals(p), {p: np.zeros((2, 3))})


def test_matrix_solve_ls_matches_numpy_lstsq_and_errors():
    rng = np.random.RandomState(0)
    a, b = rng.randn(6, 3), rng.randn(6, 2)
    with tf.Graph().as_default():
        x = _run(tf.matrix_solve_ls(a, b))
        np.testing.assert_allclose(x, np.linalg.lstsq(a, b, rcond=None)[0], rtol=1e-8)
        # TF 1.15: the composed normal equations' MatMul fails
        with pytest.raises(ValueError, match=r"but are 6 and 5 for 'matrix_solve_ls_1/MatMul_1' "
                           r"\(op: 'MatMul'\) with input shapes: \[6,3\], \[5,2\]"):
            tf.matrix_solve_ls(a, b[:5])



def test_matrix_solve_ls_slow_path_is_minimum_norm_for_rank_deficient_matrices():
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    b = np.arange(8.0).reshape(4, 2)
    with tf.Graph().as_default():
        a_t = tf.constant(a)
        x = tf.matrix_solve_ls(a_t, b, l2_regularizer=3.0, fast=False)
        np.testing.assert_allclose(_run(x), np.linalg.pinv(a) @ b, rtol=1e-9, atol=1e-12)


def test_setdiff1d_and_unique_with_counts_reject_matrices():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"Shape must be rank 1 but is rank 2 for 'ListDiff.*\[2,2\]"):
            tf.setdiff1d(tf.zeros([2, 2]), tf.zeros([3]))
        # TF 1.15's UniqueWithCounts has no rank check while building (idx is shaped like x);
        # its kernel rejects the matrix
        u = tf.unique_with_counts(tf.zeros([2, 2]))
        assert u.idx.shape.as_list() == [2, 2]
        with pytest.raises(tf.errors.InvalidArgumentError, match="unique expects a 1D vector"):
            _run(u.y)
        p = tf.placeholder(tf.int32)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"ListDiff: y.*\[1,2\]"):
            _run(tf.setdiff1d([1, 2], p), {p: [[1, 2]]})


def test_setdiff1d_static_shapes_and_result_names():
    with tf.Graph().as_default():
        out, idx = tf.setdiff1d([1, 2, 3], [2])
        assert out.get_shape().as_list() == [None] and idx.dtype == tf.int32
        r = _run(tf.setdiff1d([5, 5, 6], [6], index_dtype=tf.int64))
        np.testing.assert_array_equal(r.out, [5, 5])
        assert r.idx.dtype == np.int64


def test_bincount_errors_and_static_size():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.int32)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Input arr must be non-negative!"):
            _run(tf.bincount(p), {p: [1, -1]})
        np.testing.assert_array_equal(_run(tf.bincount(p, maxlength=2), {p: [0, 4, 4, 1]}),
                                      [1, 1])


def test_histogram_fixed_width_errors():
    with tf.Graph().as_default():
        r = tf.placeholder(tf.float32)
        h = tf.histogram_fixed_width([1.0, 2.0], r, nbins=4)
        assert h.get_shape().as_list() == [4]
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"value_range\[0\] < "):
            _run(h, {r: [3.0, 1.0]})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"value_range should be a vector of 2 elements, got shape \[3\]"):
            _run(h, {r: [0.0, 1.0, 2.0]})
        n = tf.placeholder(tf.int32)
        with pytest.raises(tf.errors.InvalidArgumentError, match="positive number, but got '0'"):
            _run(tf.histogram_fixed_width([1.0], [0.0, 1.0], nbins=n), {n: 0})
        v = tf.placeholder(tf.float64)
        with pytest.raises(tf.errors.InvalidArgumentError, match="HistogramFixedWidth.*NaN"):
            _run(tf.histogram_fixed_width(v, [0.0, 1.0]), {v: [0.5, np.nan]})


def test_unravel_index_errors():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.int32)
        # TF 1.15's kernel checks no bounds: 6 in [2, 3] is [0, 0] (measured)
        assert _run(tf.unravel_index(p, [2, 3]), {p: [6]}).tolist() == [[0], [0]]
        with pytest.raises(ValueError, match=r"Shape must be rank 1 but is rank 2 for 'UnravelIndex.*\[2,1\]"):
            tf.unravel_index([1], [[2], [3]])
        assert tf.unravel_index([1, 2, 3], [4, 5]).get_shape().as_list() == [2, 3]


def test_confusion_matrix_checks_bounds_and_weights():
    with tf.Graph().as_default():
        lab = tf.placeholder(tf.int32, [2])
        cm = tf.confusion_matrix(lab, [1, 1], num_classes=3)
        with pytest.raises(tf.errors.InvalidArgumentError, match="`labels` out of bound"):
            _run(cm, {lab: [0, 3]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="negative values"):
            _run(tf.confusion_matrix(lab, [1, 1]), {lab: [-1, 1]})
        # (TF 1.15's words: the shapes' check itself)
        with pytest.raises(ValueError, match=r"^Shapes \(2,\) and \(3,\) are incompatible$"):
            tf.confusion_matrix([0, 1], [1, 1], weights=[1.0, 2.0, 3.0])
        # [n, 1] labels are squeezed to match [n] predictions, as TF does
        np.testing.assert_array_equal(_run(tf.confusion_matrix([[1], [0]], [1, 1])),
                                      [[0, 1], [0, 1]])


def test_batch_gather_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="unknown shape"):
            tf.batch_gather(tf.zeros([2, 3]), tf.placeholder(tf.int32))
        with pytest.raises(ValueError, match=r"batch_gather.*\[2,3\].*\[4,1\]"):
            tf.batch_gather(tf.zeros([2, 3]), tf.zeros([4, 1], tf.int32))


def test_math_aliases_are_the_same_functions():
    assert tf.math.bincount is tf.bincount
    assert tf.math.confusion_matrix is tf.confusion_matrix
    assert tf.math.lbeta is tf.lbeta
    assert tf.linalg.eigh is tf.self_adjoint_eig and tf.linalg.lstsq is tf.matrix_solve_ls
    assert tf.linalg.transpose is tf.matrix_transpose


def test_linalg_namespace_extras():
    assert tf.linalg.cholesky_solve is tf.cholesky_solve
    assert tf.linalg.band_part is tf.matrix_band_part
    with tf.Graph().as_default():
        np.testing.assert_array_equal(_run(tf.linalg.eye(2, 3)), np.eye(2, 3))
