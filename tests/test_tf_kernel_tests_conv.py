"""Convolution and pooling checked against what TF 1.15's own kernel tests expect of them
(conv ops, transposed and atrous convolutions, pooling, LRN, bias add, patch extraction,
morphology): values, static shapes, gradients and errors, each expected result computed here
with NumPy or by hand."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.python.ops import nn_ops


@pytest.fixture
def sess():
    with tf.Graph().as_default(), tf.Session() as s:
        yield s


# -- transposed convolutions ---------------------------------------------------------------
@pytest.mark.parametrize("shape_dtype", [tf.int32, tf.int64])
def test_conv3d_transpose_takes_an_int32_or_int64_output_shape(sess, shape_dtype):
    x = tf.ones([1, 2, 3, 2, 2])
    f = tf.ones([2, 2, 2, 3, 2])
    out = tf.constant([1, 2, 3, 2, 3], dtype=shape_dtype)
    y = nn_ops.conv3d_transpose(x, f, out, strides=[1, 1, 1, 1, 1], padding="SAME")
    assert y.op.get_attr("Tshape") == shape_dtype
    got = sess.run(y)
    assert got.shape == (1, 2, 3, 2, 3)
    # every output cell sums the input channels (2) over the kernel taps that reach it
    want = sess.run(nn_ops.conv3d_transpose(x, f, [1, 2, 3, 2, 3], [1, 1, 1, 1, 1], "SAME"))
    np.testing.assert_array_equal(got, want)
    assert got[0, 1, 2, 1, 0] == 2.0 * 2 * 2 * 2


def test_kernel_label_map_records_the_label_and_runs_the_one_kernel(sess):
    g = sess.graph
    x = np.arange(2 * 4 * 4 * 3, dtype=np.float32).reshape(2, 4, 4, 3) / 10
    w = np.linspace(-1, 1, 2 * 2 * 3 * 2, dtype=np.float32).reshape(2, 2, 3, 2)
    with g._kernel_label_map({"DepthwiseConv2dNative": "cudnn_grouped_convolution"}):
        labelled = nn_ops.depthwise_conv2d_native(x, w, [1, 1, 1, 1], "VALID")
        other = tf.identity(labelled)
    plain = nn_ops.depthwise_conv2d_native(x, w, [1, 1, 1, 1], "VALID")
    assert labelled.op.get_attr("_kernel") == b"cudnn_grouped_convolution"
    assert "_kernel" not in other.op.node_def.attr
    assert "_kernel" not in plain.op.node_def.attr
    a, b = sess.run([labelled, plain])
    np.testing.assert_array_equal(a, b)
    # the depthwise reference: every input channel convolved with its own 2 filters
    want = np.zeros((2, 3, 3, 3, 2), np.float32)
    for i in range(2):
        for j in range(2):
            want += x[:, i:i + 3, j:j + 3, :, None] * w[i, j]
    np.testing.assert_allclose(a, want.reshape(2, 3, 3, 6), rtol=1e-5, atol=1e-6)


# -- attrs the kernels refuse when a plan binds them (before any input is fed) --------------
@pytest.mark.parametrize("strides", [[2, 1, 1, 1], [1, 1, 1, 2]])
def test_conv2d_batch_or_depth_stride_fails_before_inputs_are_fed(sess, strides):
    y = tf.nn.conv2d(tf.placeholder(tf.float32), tf.placeholder(tf.float32), strides=strides,
                     padding="SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match="strides in the batch and depth"):
        sess.run(y)


def test_conv_backprops_refuse_negative_explicit_padding_before_feeding(sess):
    pads = [[0, 0], [-1, 0], [0, 0], [0, 0]]
    dx = nn_ops.conv2d_backprop_input([4, 9, 9, 3], tf.placeholder(tf.float32, [7, 7, 3, 2]),
                                      tf.placeholder(tf.float32, [4, 2, 3, 2]),
                                      strides=[1, 1, 1, 1], padding=pads)
    dw = nn_ops.conv2d_backprop_filter(tf.placeholder(tf.float32, [4, 9, 9, 3]), [7, 7, 3, 2],
                                       tf.placeholder(tf.float32, [4, 2, 3, 2]),
                                       strides=[1, 1, 1, 1], padding=pads)
    for t in (dx, dw):
        with pytest.raises(tf.errors.InvalidArgumentError, match="nonnegative"):
            sess.run(t)


@pytest.mark.parametrize("pool", ["avg_pool", "max_pool_with_argmax"])
def test_pooling_over_the_batch_fails_before_inputs_are_fed(sess, pool):
    out = getattr(tf.nn, pool)(tf.placeholder(tf.float32), ksize=[1, 1, 1, 1],
                               strides=[3, 1, 1, 1], padding="SAME")
    with pytest.raises(tf.errors.UnimplementedError, match="not yet supported on the batch"):
        sess.run(out)


def test_attr_checks_leave_valid_pools_and_convs_running(sess):
    x = np.arange(2 * 4 * 4 * 4, dtype=np.float32).reshape(2, 4, 4, 4)
    # a window across channels only (depthwise max pooling) is not a batch window
    across = tf.nn.max_pool(x, ksize=[1, 1, 1, 2], strides=[1, 1, 1, 2], padding="VALID")
    np.testing.assert_array_equal(sess.run(across), x.reshape(2, 4, 4, 2, 2).max(-1))
    w = np.ones([1, 1, 4, 1], np.float32)
    y = tf.nn.conv2d(x, w, strides=[1, 2, 2, 1], padding="VALID")
    np.testing.assert_array_equal(sess.run(y), x[:, ::2, ::2, :].sum(-1, keepdims=True))
