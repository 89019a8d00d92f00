"""Sums over leading axes (Sum over a prefix of the axes, BiasAddGrad in NHWC) run as BLAS
products with a vector of ones: values against float64 NumPy, shapes, dtypes and keepdims."""
import numpy as np
import pytest

import tideflow as tf
from tideflow.kernels import sums


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axes,keepdims", [([0, 1, 2], False), ([0, 1, 2], True), ([0], False),
                                           ([0, 1], True), ([-4, -3], False)])
def test_reduce_sum_over_leading_axes(dtype, axes, keepdims):
    x = np.random.RandomState(1).standard_normal((16, 9, 7, 12)).astype(dtype)
    with tf.Graph().as_default():
        p = tf.placeholder(dtype, x.shape)
        out = tf.reduce_sum(p, axes, keepdims=keepdims)
        with tf.Session() as sess:
            got = sess.run(out, {p: x})
    want = x.astype(np.float64).sum(axis=tuple(axes), keepdims=keepdims)
    assert got.dtype == dtype and got.shape == want.shape == tuple(out.shape.as_list())
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12,
                               atol=1e-4 if dtype == np.float32 else 1e-10)


def test_leading_sum_of_a_read_only_constant_and_special_values():
    x = np.arange(8 * 1024, dtype=np.float32).reshape(8, 1024) / 7.0
    x[3, 5] = np.inf
    x[6, 9] = np.nan
    with tf.Graph().as_default():
        out = tf.reduce_sum(tf.constant(x), 0)  # folded: the kernel sees a read-only array
        with tf.Session() as sess:
            got = sess.run(out)
    want = x.astype(np.float64).sum(axis=0)
    assert np.isposinf(got[5]) and np.isnan(got[9])
    ok = np.isfinite(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=1e-6)


def test_bias_add_grad_nhwc_and_nchw_sum_every_axis_but_the_channels():
    g = np.random.RandomState(2).standard_normal((8, 6, 5, 24)).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, g.shape)
        b = tf.zeros([24])
        y = tf.nn.bias_add(x, b)
        (db,) = tf.gradients(y, [b], grad_ys=tf.constant(g))
        xc = tf.placeholder(tf.float32, (8, 24, 6, 5))
        yc = tf.nn.bias_add(xc, b, data_format="NCHW")
        gc = np.ascontiguousarray(g.transpose(0, 3, 1, 2))
        (dbc,) = tf.gradients(yc, [b], grad_ys=tf.constant(gc))
        with tf.Session() as sess:
            got, got_c = sess.run([db, dbc], {x: g, xc: gc})
    want = g.astype(np.float64).sum(axis=(0, 1, 2))
    assert got.dtype == np.float32 and got.shape == (24,)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_c, want, rtol=1e-5, atol=1e-5)


def test_ones_vectors_are_cached_read_only_and_long_ones_made_per_call():
    short = sums._ones(100, np.dtype(np.float32))
    assert not short.flags.writeable and short.size == 100 and (short == 1).all()
    long = sums._ones(sums._ONES_KEPT + 1, np.dtype(np.float32))
    assert long.size == sums._ONES_KEPT + 1
    assert sums._ONES[np.dtype(np.float32)].size <= sums._ONES_KEPT
