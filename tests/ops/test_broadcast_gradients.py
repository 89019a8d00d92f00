"""Gradients of broadcasting binary ops reduce back to each input's shape, also when the
static shapes are only partly known (a placeholder's batch dimension)."""

import numpy as np
import pytest

import tideflow as tf

# (static shape of x, static shape of y, actual shape of x, actual shape of y)
CASES = [
    ([None, 1], [8], (5, 1), (8,)),
    ([None, 1], [None, 8], (5, 1), (5, 8)),
    ([None, 8], [8], (5, 8), (8,)),
    ([None, 1, 3], [4, 1], (2, 1, 3), (4, 1)),
    ([None], [None, 1], (6,), (3, 1)),
    ([2, None, 1], [1, 7], (2, 3, 1), (1, 7)),
    ([None, None], [1], (3, 4), (1,)),
]


def _reduce_like(g, shape):
    while g.ndim > len(shape):
        g = g.sum(0)
    for i, d in enumerate(shape):
        if d == 1 and g.shape[i] != 1:
            g = g.sum(i, keepdims=True)
    return g


@pytest.mark.parametrize(("sx", "sy", "ax", "ay"), CASES)
@pytest.mark.parametrize("op", ["add", "mul", "sub"])
def test_binary_gradient_shapes_with_unknown_dims(sx, sy, ax, ay, op):
    rng = np.random.default_rng(0)
    xv, yv = rng.standard_normal(ax), rng.standard_normal(ay)
    wv = rng.standard_normal(np.broadcast_shapes(ax, ay))
    x = tf.placeholder(tf.float64, sx)
    y = tf.placeholder(tf.float64, sy)
    w = tf.placeholder(tf.float64)
    out = {"add": tf.add, "mul": tf.multiply, "sub": tf.subtract}[op](x, y)
    gx, gy = tf.gradients(tf.reduce_sum(out * w), [x, y])
    assert gx.get_shape().is_compatible_with(sx)
    assert gy.get_shape().is_compatible_with(sy)
    assert gx.get_shape().ndims == len(sx) and gy.get_shape().ndims == len(sy)
    with tf.Session() as sess:
        got_x, got_y = sess.run([gx, gy], {x: xv, y: yv, w: wv})
    dx = {"add": wv, "mul": wv * yv, "sub": wv}[op]
    dy = {"add": wv, "mul": wv * xv, "sub": -wv}[op]
    np.testing.assert_allclose(got_x, _reduce_like(dx, ax), rtol=1e-12)
    np.testing.assert_allclose(got_y, _reduce_like(dy, ay), rtol=1e-12)
    tf.reset_default_graph()


def test_layer_norm_gradient_with_unknown_batch():
    # moments' variance [batch, 1] times gamma [8]: the case that once lost the size-1 axis
    x = tf.placeholder(tf.float64, [None, 8])
    ln = tf.contrib.layers.layer_norm(x, begin_norm_axis=-1, begin_params_axis=-1)
    (g,) = tf.gradients(tf.reduce_sum(ln * tf.range(8.0, dtype=tf.float64)), [x])
    xv = np.random.default_rng(1).standard_normal((4, 8))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(g, {x: xv})

    def f(v):
        mu = v.mean(1, keepdims=True)
        return (((v - mu) / np.sqrt(((v - mu) ** 2).mean(1, keepdims=True) + 1e-12))
                * np.arange(8.0)).sum()

    num = np.zeros_like(xv)
    for idx in np.ndindex(xv.shape):
        d = np.zeros_like(xv)
        d[idx] = 1e-6
        num[idx] = (f(xv + d) - f(xv - d)) / 2e-6
    np.testing.assert_allclose(got, num, rtol=1e-5, atol=1e-7)
    tf.reset_default_graph()
