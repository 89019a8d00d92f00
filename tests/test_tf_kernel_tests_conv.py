"""Convolution and pooling checked against what TF 1.15's own kernel tests expect of them
(conv ops, transposed and atrous convolutions, pooling, LRN, bias add, patch extraction,
morphology): values, static shapes, gradients and errors, each expected result computed here
with NumPy or by hand."""

import itertools

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


# -- patch extraction gradients --------------------------------------------------------------
def _np_patches_grad(x_shape, dy, k, s, r, padding):
    """Scatter-adds every patch element of ``dy`` back onto the pixel it was read from."""
    b, h, w, c = x_shape
    eff = [(k[i] - 1) * r[i] + 1 for i in range(2)]
    if padding == "VALID":
        outs, before = [(n - e) // st + 1 for n, e, st in zip((h, w), eff, s)], [0, 0]
    else:
        outs = [-(-n // st) for n, st in zip((h, w), s)]
        before = [max((o - 1) * st + e - n, 0) // 2
                  for o, st, e, n in zip(outs, s, eff, (h, w))]
    dx = np.zeros(x_shape, np.float64)
    d = dy.reshape(b, outs[0], outs[1], k[0], k[1], c)
    for i in range(outs[0]):
        for j in range(outs[1]):
            for a in range(k[0]):
                for e in range(k[1]):
                    row, col = i * s[0] - before[0] + a * r[0], j * s[1] - before[1] + e * r[1]
                    if 0 <= row < h and 0 <= col < w:
                        dx[:, row, col, :] += d[:, i, j, a, e, :]
    return dx


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize("static", [True, False])
def test_extract_image_patches_gradient_with_unknown_spatial_shape(sess, padding, static):
    shape = [2, 7, 6, 3]
    x = tf.placeholder(tf.float64, shape if static else [None, None, None, 3])
    y = tf.extract_image_patches(x, [1, 3, 2, 1], [1, 2, 1, 1], [1, 1, 2, 1], padding)
    rng = np.random.RandomState(3)
    xv = rng.rand(*shape)
    out = sess.run(y, {x: xv})
    dy = rng.rand(*out.shape)
    (dx,) = tf.gradients(y, x, grad_ys=tf.constant(dy))
    got = sess.run(dx, {x: xv})
    want = _np_patches_grad(shape, dy, (3, 2), (2, 1), (1, 2), padding)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    if static:
        assert dx.get_shape().as_list() == shape
        err = tf.test.compute_gradient_error(x, shape, y, list(out.shape), x_init_value=xv)
        assert err < 1e-8


def test_extract_image_patches_gradient_of_a_large_image_builds_quickly():
    import time

    with tf.Graph().as_default():
        images = tf.get_variable("images", (4, 1024, 1024, 1))
        patches = tf.extract_image_patches(images, [1, 5, 5, 1], [1, 1, 1, 1], [1, 1, 1, 1],
                                           "SAME")
        start = time.perf_counter()
        (g,) = tf.gradients(patches, images)
        # no per-patch index is built in Python: the graph is a handful of small ops
        assert time.perf_counter() - start < 0.5
        assert g.get_shape().as_list() == [4, 1024, 1024, 1]
        assert len(g.graph.get_operations()) < 80


def test_extract_volume_patches_gradient_with_unknown_shape(sess):
    x = tf.placeholder(tf.float64, [None] * 5)
    y = tf.extract_volume_patches(x, [1, 2, 2, 1, 1], [1, 1, 2, 1, 1], "SAME")
    xv = np.random.RandomState(5).rand(1, 3, 4, 2, 2)
    dy = np.ones(sess.run(y, {x: xv}).shape)
    got = sess.run(tf.gradients(y, x, grad_ys=dy)[0], {x: xv})
    # with a unit upstream gradient each voxel collects one per patch that reads it:
    # planes 2-window stride 1 over 3 (SAME: windows 0-1, 1-2, 2-pad), rows 2-window stride 2
    planes = np.array([1, 2, 2])
    np.testing.assert_array_equal(got, np.broadcast_to(planes[None, :, None, None, None],
                                                       xv.shape))


# -- tf.layers -------------------------------------------------------------------------------
def test_pooling_layer_takes_a_pool_size_of_known_dimensions(sess):
    images = tf.placeholder(tf.float32, [2, 5, 7, 3])
    layer = tf.layers.MaxPooling2D(images.get_shape()[1:3], strides=2, padding="same")
    out = layer.apply(images)
    assert layer.pool_size == (5, 7)
    assert out.get_shape().as_list() == [2, 3, 4, 3]
    x = np.random.RandomState(0).rand(2, 5, 7, 3).astype(np.float32)
    got = sess.run(out, {images: x})
    # SAME, window 5x7 stride 2: output (0, 0) sees rows 0-2 and cols 0-3 (padding 2/3 before)
    np.testing.assert_array_equal(got[:, 0, 0], x[:, :3, :4].max(axis=(1, 2)))
    with pytest.raises(ValueError, match="pool_size"):
        tf.layers.MaxPooling2D(tf.TensorShape([None, 3]), strides=2)


# -- windows outside rows/cols: built, refused when the kernel is bound ----------------------
@pytest.mark.parametrize("build, cls, message", [
    (lambda x: tf.extract_image_patches(x, [2, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
     tf.errors.UnimplementedError, "Only support ksizes across space."),
    (lambda x: tf.extract_image_patches(x, [1, 1, 1, 1], [1, 1, 1, 3], [1, 1, 1, 1], "SAME"),
     tf.errors.UnimplementedError, "Only support strides across space."),
    (lambda x: tf.extract_image_patches(x, [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 2], "SAME"),
     tf.errors.UnimplementedError, "Only support rates across space."),
    (lambda x: tf.extract_image_patches(x, [1, 0, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
     tf.errors.OutOfRangeError, "ksizes is out of range."),
    (lambda x: tf.nn.dilation2d(x, tf.zeros([2, 2, 3]), [3, 1, 1, 1], [1, 1, 1, 1], "SAME"),
     tf.errors.UnimplementedError, "Stride is only supported across spatial dimensions."),
    (lambda x: tf.nn.erosion2d(x, tf.zeros([2, 2, 3]), [1, 1, 1, 1], [1, 1, 1, 2], "SAME"),
     tf.errors.UnimplementedError, "Rate is only supported across spatial dimensions."),
])
def test_non_spatial_windows_fail_when_first_run(sess, build, cls, message):
    x = tf.placeholder(tf.float32, [2, 5, 6, 3])
    y = build(x)  # TF's shape functions accept these; its kernels refuse them
    with pytest.raises(cls, match=message):
        sess.run(y)  # before the placeholder's missing feed is noticed


def test_extract_volume_patches_refuses_a_depth_window(sess):
    x = tf.placeholder(tf.float32, [1, 3, 4, 4, 2])
    y = tf.extract_volume_patches(x, [1, 1, 2, 2, 2], [1, 1, 1, 1, 1], "VALID")
    assert y.get_shape().as_list() == [1, 3, 3, 3, 8]  # 1x2x2 windows of 2 channels
    with pytest.raises(tf.errors.UnimplementedError, match="Only support ksizes across space"):
        sess.run(y, {x: np.zeros([1, 3, 4, 4, 2])})
    with pytest.raises(ValueError, match="Stride must be > 0"):
        tf.extract_volume_patches(x, [1, 1, 1, 1, 1], [1, 0, 1, 1, 1], "VALID")


# -- fractional pooling, TF 2 forms in tensorflow.python.ops.nn_ops ----------------------------
@pytest.mark.parametrize("name, reduce", [("fractional_max_pool_v2", np.max),
                                          ("fractional_avg_pool_v2", np.mean)])
def test_fractional_pool_v2_seed_fixes_the_regions(sess, name, reduce):
    fn = getattr(nn_ops, name)
    x = np.random.RandomState(2).rand(2, 9, 11, 3)
    seeded = fn(x, [1.0, 1.5, 1.6, 1.0], pseudo_random=True, overlapping=False, seed=42)
    assert seeded.output.op.get_attr("deterministic")
    out, rows, cols = sess.run(seeded)
    again = sess.run(seeded)
    np.testing.assert_array_equal(out, again.output)  # same regions on every run
    assert rows[0] == 0 and rows[-1] == 9 and cols[0] == 0 and cols[-1] == 11
    want = np.stack([np.stack([reduce(x[:, r0:r1, c0:c1], axis=(1, 2))
                               for c0, c1 in itertools.pairwise(cols)], axis=1)
                     for r0, r1 in itertools.pairwise(rows)], axis=1)
    np.testing.assert_allclose(out, want, rtol=1e-12)
    unseeded = fn(x, [1.0, 1.5, 1.6, 1.0])
    assert not unseeded.output.op.get_attr("deterministic")
    assert unseeded.output.op.get_attr("seed") == 0


# -- the test utilities TF 1.15's conv/pool tests import --------------------------------------
def test_conv_test_utilities_exist(sess):
    from tideflow.python.util.compat import collections_abc

    from tideflow.python.framework import test_util

    assert collections_abc.Iterable is __import__("collections.abc").abc.Iterable
    assert test_util.IsMklEnabled() is False
    assert test_util.no_xla_auto_jit("reason")(len)([1, 2]) == 2
    x = np.arange(2 * 3 * 2 * 8, dtype=np.float32).reshape(2, 3, 2, 8)
    vect = test_util.NHWCToNCHW_VECT_C(tf.constant(x))
    back = test_util.NCHW_VECT_CToNHWC(vect)
    v, b = sess.run([vect, back])
    assert v.shape == (2, 2, 3, 2, 4)
    np.testing.assert_array_equal(v[1, 1, 2, 0], x[1, 2, 0, 4:])  # channel group 1 of 2
    np.testing.assert_array_equal(b, x)
    assert test_util.NHWCToNCHW_VECT_C([2, 3, 2, 8]) == [2, 2, 3, 2, 4]
    assert test_util.NCHW_VECT_CToNHWC([2, 2, 3, 2, 4]) == [2, 3, 2, 8]
    with pytest.raises(ValueError, match="divisible by 4"):
        test_util.NHWCToNCHW_VECT_C([2, 3, 2, 6])
    np.testing.assert_array_equal(tf.test.TestCase()._GetNdArray([1, 2]), np.array([1, 2]))


def test_lrn_refuses_a_negative_depth_radius_when_first_run(sess):
    x = tf.placeholder(tf.float32, [1, 2, 2, 3])
    y = tf.nn.lrn(x, depth_radius=-1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="depth_radius = -1"):
        sess.run(y)
    v = np.arange(12, dtype=np.float32).reshape(1, 2, 2, 3)
    # radius 0: each value over (bias + alpha * its own square) ** beta
    got = sess.run(tf.nn.lrn(x, depth_radius=0, bias=1.0, alpha=0.5, beta=0.5), {x: v})
    np.testing.assert_allclose(got, v / np.sqrt(1.0 + 0.5 * v * v), rtol=1e-6)
