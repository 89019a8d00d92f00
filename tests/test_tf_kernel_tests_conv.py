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
