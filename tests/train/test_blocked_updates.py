"""Dense optimizer updates of large variables run in cache-sized blocks (and over the intra-op
threads): the result must be exactly the whole-array update, checked against NumPy."""
import numpy as np
import pytest

import tideflow as tf

N = 3 * (1 << 16) + 1234  # several blocks and a ragged last one


def _run(make_opt, steps=3, conv=False):
    rng = np.random.RandomState(0)
    w0 = rng.standard_normal(N).astype(np.float32)
    grads = [rng.standard_normal(N).astype(np.float32) for _ in range(steps)]
    with tf.Graph().as_default():
        w = tf.Variable(w0)
        g = tf.placeholder(tf.float32, [N])
        loss = tf.reduce_sum(w * g)
        if conv:  # a convolution in the plan turns the intra-op pool on
            img = tf.constant(np.ones((1, 8, 8, 1), np.float32))
            loss += tf.reduce_sum(tf.nn.conv2d(img, tf.ones([3, 3, 1, 1]), [1] * 4, "SAME"))
        train = make_opt().minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for gv in grads:
                sess.run(train, {g: gv})
            return w0, grads, sess.run(w)


@pytest.mark.parametrize("conv", [False, True])
def test_momentum_blocks_equal_numpy(conv):
    w, grads, got = _run(lambda: tf.train.MomentumOptimizer(0.1, 0.9), conv=conv)
    acc = np.zeros_like(w)
    for g in grads:
        acc = acc * np.float32(0.9) + g
        w = w - acc * np.float32(0.1)
    np.testing.assert_array_equal(got, w)


@pytest.mark.parametrize("conv", [False, True])
def test_sgd_blocks_equal_numpy(conv):
    w, grads, got = _run(lambda: tf.train.GradientDescentOptimizer(0.05), conv=conv)
    for g in grads:
        w = w - g * np.float32(0.05)
    np.testing.assert_array_equal(got, w)


def test_adam_blocks_match_numpy():
    w, grads, got = _run(lambda: tf.train.AdamOptimizer(0.01))
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t, g in enumerate(grads, 1):
        alpha = 0.01 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        m = m + (g - m) * (1 - 0.9)
        v = v + (g * g - v) * (1 - 0.999)
        w = w - m * alpha / (np.sqrt(v) + 1e-8)
    np.testing.assert_allclose(got, w, rtol=2e-6, atol=1e-6)
