"""Regressions found by running TF 1.x vision and generative-model programs against tideflow
(DCGAN, WGAN-GP, VAE, ResNet, U-Net, MobileNet, style transfer, augmentation, detectors)."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _np_depthwise_same(x, w):
    # x [b, h, w, c], w [kh, kw, c, m], stride 1, 'SAME' -> [b, h, w, c * m]
    kh, kw, c, m = w.shape
    ph, pw = (kh - 1) // 2, (kw - 1) // 2
    xp = np.pad(x, [(0, 0), (ph, kh - 1 - ph), (pw, kw - 1 - pw), (0, 0)])
    b, h, wd, _ = x.shape
    out = np.zeros([b, h, wd, c, m])
    for i in range(kh):
        for j in range(kw):
            out += xp[:, i:i + h, j:j + wd, :, None] * w[i, j]
    return out.reshape(b, h, wd, c * m)


def test_layers_separable_conv2d_creates_depthwise_pointwise_bias_and_convolves():
    # MobileNet/Xception blocks: tf.layers.separable_conv2d was missing from tf.layers
    rng = np.random.RandomState(0)
    x_np = rng.randn(2, 5, 6, 3)
    x = tf.constant(x_np, tf.float64)
    y = tf.layers.separable_conv2d(x, 4, 3, padding="same", depth_multiplier=2,
                                   activation=tf.nn.relu, name="sep")
    names = [(v.op.name, v.shape.as_list()) for v in tf.trainable_variables()]
    assert names == [("sep/depthwise_kernel", [3, 3, 3, 2]), ("sep/pointwise_kernel", [1, 1, 6, 4]),
                     ("sep/bias", [4])]
    assert y.shape.as_list() == [2, 5, 6, 4]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        dw, pw, got = sess.run([tf.trainable_variables()[0], tf.trainable_variables()[1], y])
    want = np.maximum(_np_depthwise_same(x_np, dw) @ pw[0, 0], 0)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_layers_separable_conv1d_strided_shape_and_reuse():
    s = tf.placeholder(tf.float32, [None, 10, 3])
    y = tf.layers.separable_conv1d(s, 4, 3, strides=2, depth_multiplier=3, name="sep1")
    assert y.shape.as_list() == [None, 4, 4]
    y2 = tf.layers.separable_conv1d(s, 4, 3, strides=2, depth_multiplier=3, name="sep1",
                                    reuse=True)
    shapes = [v.shape.as_list() for v in tf.trainable_variables()]
    assert shapes == [[3, 3, 3], [1, 9, 4], [4]]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        a, b = sess.run([y, y2], {s: np.ones([2, 10, 3])})
    assert a.shape == (2, 4, 4)
    np.testing.assert_array_equal(a, b)


def test_layers_conv3d_transpose_and_3d_pooling_shapes_match_their_results():
    v = tf.placeholder(tf.float32, [None, 4, 6, 6, 2])
    outs = [tf.layers.conv3d(v, 4, (2, 3, 3), strides=(1, 2, 2), activation=tf.nn.relu),
            tf.layers.conv3d_transpose(v, 3, 3, strides=2, padding="same"),
            tf.layers.conv3d_transpose(v, 3, (2, 3, 3), strides=(1, 2, 2)),
            tf.layers.max_pooling3d(v, 2, 2),
            tf.layers.average_pooling3d(v, (2, 3, 3), 1, padding="same")]
    static = [t.shape.as_list() for t in outs]
    assert static == [[None, 3, 2, 2, 4], [None, 8, 12, 12, 3], [None, 5, 13, 13, 3],
                      [None, 2, 3, 3, 2], [None, 4, 6, 6, 2]]
    names = [w.op.name for w in tf.global_variables()]
    assert names == ["conv3d/kernel", "conv3d/bias", "conv3d_transpose/kernel",
                     "conv3d_transpose/bias", "conv3d_transpose_1/kernel",
                     "conv3d_transpose_1/bias"]
    assert tf.global_variables()[2].shape.as_list() == [3, 3, 3, 3, 2]
    x = np.random.RandomState(1).randn(2, 4, 6, 6, 2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        vals = sess.run(outs, {v: x})
    for s, val in zip(static, vals):
        assert list(val.shape) == [2] + s[1:]
    np.testing.assert_allclose(vals[3], x.reshape(2, 2, 2, 3, 2, 3, 2, 2).max((2, 4, 6)),
                               rtol=1e-6)
