"""A convolution's filter gradient takes dy's spectrum from its input gradient of the same step
(a plan rewrite: both run, on the spectral path): values bit-identical to the plain kernels."""
import numpy as np
import pytest

import tideflow as tf
from tideflow.kernels import spectral
from tideflow.ops import conv_ops
from tideflow.runtime import graph_passes


def _counting(monkeypatch):
    given = []
    real = spectral.conv_backprop_filter

    def counted(x, filter_shape, dy, pads, ys=None):
        given.append(ys is not None)
        return real(x, filter_shape, dy, pads, ys)

    monkeypatch.setattr(spectral, "conv_backprop_filter", counted)
    return given


# one lane: the two gradients are independent branches, which a session with more lanes may
# run in parallel (separate plans, nothing shared)
_ONE_LANE = tf.ConfigProto(inter_op_parallelism_threads=1)


def _model(fmt):
    # float32, 5x5 filter, 8 -> 16 channels on 14x14 frames of 32 images: the spectral path
    rng = np.random.RandomState(0)
    shape = [32, 14, 14, 8] if fmt == "NHWC" else [32, 8, 14, 14]
    x = tf.constant(rng.randn(*shape).astype(np.float32))
    w = tf.Variable(rng.randn(5, 5, 8, 16).astype(np.float32) * 0.1)
    x2 = tf.Variable(x)  # the input gradient is computed (a trainable input)
    y = tf.nn.conv2d(x2, w, [1, 1, 1, 1], "SAME", data_format=fmt)
    loss = tf.reduce_sum(tf.square(y)) * 1e-3
    gx, gw = tf.gradients(loss, [x2, w])
    return gx, gw


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_the_filter_gradient_takes_the_kept_spectrum(monkeypatch, fmt):
    given = _counting(monkeypatch)
    with tf.Graph().as_default():
        gx, gw = _model(fmt)
        with tf.Session(config=_ONE_LANE) as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([gx, gw])
            assert given == [True]
            del given[:]
            # the filter gradient alone: no input gradient runs, nothing to take
            alone = sess.run(gw)
            assert given == [False]
        with monkeypatch.context() as m:
            m.setattr(graph_passes, "_conv_spectrum_sharing", lambda *a: None)
            with tf.Session(config=_ONE_LANE) as sess:
                sess.run(tf.global_variables_initializer())
                want = sess.run([gx, gw])
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(alone, want[1])


def test_a_spectrum_of_another_array_is_not_taken():
    rng = np.random.RandomState(1)
    x = rng.randn(32, 14, 14, 8).astype(np.float32)
    w = rng.randn(5, 5, 8, 16).astype(np.float32)
    dy1, dy2 = (rng.randn(32, 14, 14, 16).astype(np.float32) for _ in range(2))
    attrs = {"strides": [1, 1, 1, 1], "padding": "SAME", "data_format": "NHWC",
             "dilations": [1, 1, 1, 1], "explicit_paddings": []}
    sizes_x, sizes_w = np.array(x.shape, np.int32), np.array(w.shape, np.int32)
    plain_bf = conv_ops._backprop_filter_kernel(4)
    bin_k, bf_k = conv_ops.sharing_kernels()
    bin_k(sizes_x, w, dy1, **attrs)
    # another out_backprop (same shape): dy2's own spectrum
    np.testing.assert_array_equal(bf_k(x, sizes_w, dy2, **attrs),
                                  plain_bf(x, sizes_w, dy2, **attrs))
    # taken once: a second filter gradient of dy1 computes its own
    bin_k(sizes_x, w, dy1, **attrs)
    first = bf_k(x, sizes_w, dy1, **attrs)
    np.testing.assert_array_equal(first, plain_bf(x, sizes_w, dy1, **attrs))
    np.testing.assert_array_equal(bf_k(x, sizes_w, dy1, **attrs), first)
