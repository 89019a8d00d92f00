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
        with pytest.raises(ValueError, match=r"MatrixTriangularSolve.*square.*\[2,3\]"):
            tf.matrix_triangular_solve(tf.zeros([2, 3]), tf.zeros([2, 2]))


def test_triangular_solve_runtime_errors():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float64)
        b = tf.placeholder(tf.float64)
        x = tf.matrix_triangular_solve(a, b)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"MatrixTriangularSolve.*"
                           r"\[2,2\].*\[3,1\]"):
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
        with pytest.raises(ValueError, match=r"SelfAdjointEigV2.*square.*\[2,3\]"):
            tf.self_adjoint_eig(tf.zeros([2, 3]))
        p = tf.placeholder(tf.float32)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"SelfAdjointEigV2.*\[2,3\]"):
            _run(tf.self_adjoint_eigvals(p), {p: np.zeros((2, 3))})


def test_matrix_solve_ls_matches_numpy_lstsq_and_errors():
    rng = np.random.RandomState(0)
    a, b = rng.randn(6, 3), rng.randn(6, 2)
    with tf.Graph().as_default():
        x = _run(tf.matrix_solve_ls(a, b))
        np.testing.assert_allclose(x, np.linalg.lstsq(a, b, rcond=None)[0], rtol=1e-8)
        with pytest.raises(ValueError, match=r"MatrixSolveLs.*\[6,3\].*\[5,2\]"):
            tf.matrix_solve_ls(a, b[:5])
        with pytest.raises(NotImplementedError, match="fast=False"):
            tf.matrix_solve_ls(a, b, fast=False)
