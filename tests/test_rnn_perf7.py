"""Kernel shortcuts that speed up recurrent-network training steps while giving the same values:
MatMul of a few rows by a wide transposed operand (a gradient's ``g @ W^T``) run with the
operands' roles swapped, checked against NumPy's product bit for bit and for layout."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.kernels import threads


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
@pytest.mark.parametrize("m,k,n", [(32, 512, 192), (32, 256, 128), (8, 64, 256), (1, 300, 40)])
def test_small_times_wide_transposed_matches_numpy(dtype, m, k, n):
    rng = np.random.RandomState(m + k + n)
    x = rng.randn(m, k).astype(dtype)
    w = rng.randn(n, k).astype(dtype)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.randn(m, k).astype(dtype)
    assert threads._swapped(x, w.T, m, n)
    got = threads.matmul(x, w.T)
    want = np.matmul(x, w.T)
    assert got.dtype == want.dtype and got.shape == (m, n)
    assert got.flags.c_contiguous  # downstream reductions see the usual layout
    np.testing.assert_array_equal(got, want)


def test_not_swapped_when_rows_are_many_or_operand_contiguous():
    rng = np.random.RandomState(0)
    x = rng.randn(200, 64).astype(np.float32)
    w = rng.randn(256, 64).astype(np.float32)
    assert not threads._swapped(x, w.T, 200, 256)  # many rows
    assert not threads._swapped(x[:32], np.ascontiguousarray(w.T), 32, 256)  # not transposed
    assert not threads._swapped(x[:32].T.copy().T, w.T, 32, 256)  # left side transposed
    np.testing.assert_array_equal(threads.matmul(x, w.T), x @ w.T)


def test_matmul_op_transpose_b_and_its_gradient():
    rng = np.random.RandomState(1)
    xv = rng.randn(32, 96).astype(np.float32)
    wv = rng.randn(256, 96).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.constant(xv)
        w = tf.Variable(wv)
        y = tf.matmul(x, w, transpose_b=True)
        gx, gw = tf.gradients(tf.reduce_sum(y * y), [x, w])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            yv, gxv, gwv = sess.run([y, gx, gw])
    np.testing.assert_array_equal(yv, xv @ wv.T)
    # d/dx sum((x W^T)^2) = 2 y W; d/dW = 2 y^T x
    np.testing.assert_allclose(gxv, 2 * (xv @ wv.T) @ wv, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(gwv, 2 * (xv @ wv.T).T @ xv, rtol=1e-4, atol=1e-3)
