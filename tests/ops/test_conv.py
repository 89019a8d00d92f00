"""Convolution and pooling: output sizes, layouts, dilation, wrappers, errors, and the backprop
kernels against central finite differences of the forward kernels (float64, no tf.gradients)."""

import numpy as np
import pytest

import tideflow as tf
from tests.ops.table_conv import (
    geometry,
    ref_argmax,
    ref_avg_pool,
    ref_conv,
    ref_conv_backprop_input,
    ref_depthwise,
    ref_max_pool,
    ref_max_pool_grad,
)
from tideflow.framework import errors
from tideflow.framework import ops as tf_ops
from tideflow.kernels import conv as kconv
from tideflow.ops import conv_ops, pooling_ops
from tideflow.ops.gradients import gradients

nn_conv = conv_ops
nn_pool = pooling_ops


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _rand(*shape, seed=0):
    return np.random.RandomState(seed).uniform(-1, 1, size=shape)


# ------------------------------------------------------------------------------------------
# output sizes
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [5, 6, 7, 8])
@pytest.mark.parametrize("stride", [1, 2, 3])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_output_sizes(size, stride, padding, k):
    x = _rand(2, size, size + 1, 3)
    w = _rand(k, k, 3, 4, seed=1)
    y = nn_conv.conv2d(x, w, [1, stride, stride, 1], padding)
    p = nn_pool.max_pool(x, [1, k, k, 1], [1, stride, stride, 1], padding)
    a = nn_pool.avg_pool(x, [1, k, k, 1], [1, stride, stride, 1], padding)
    want_h = -(-size // stride) if padding == "SAME" else (size - k) // stride + 1
    want_w = -(-(size + 1) // stride) if padding == "SAME" else (size + 1 - k) // stride + 1
    assert y.get_shape().as_list() == [2, want_h, want_w, 4]
    assert p.get_shape().as_list() == [2, want_h, want_w, 3]
    yv, pv, av = _run([y, p, a])
    assert yv.shape == (2, want_h, want_w, 4)
    np.testing.assert_allclose(yv, ref_conv(x, w, (stride, stride), padding), atol=1e-12)
    np.testing.assert_allclose(pv, ref_max_pool(x, (k, k), (stride, stride), padding))
    np.testing.assert_allclose(av, ref_avg_pool(x, (k, k), (stride, stride), padding),
                               atol=1e-12)


def test_same_padding_puts_the_extra_pad_after():
    # in=4, k=4, stride 1: total pad 3 -> 1 before, 2 after
    assert kconv.output_size(4, 4, 1, 1, "SAME") == (4, 1, 2)
    assert kconv.output_size(7, 3, 2, 1, "SAME") == (4, 1, 1)
    assert kconv.output_size(8, 3, 2, 1, "SAME") == (4, 0, 1)
    assert kconv.output_size(9, 3, 1, 2, "VALID") == (5, 0, 0)


def test_unknown_dims_give_partial_shapes():
    x = tf.placeholder(tf.float32, [None, None, 9, 3])
    y = nn_conv.conv2d(x, tf.zeros([3, 3, 3, 5]), [1, 2, 2, 1], "SAME")
    assert y.get_shape().as_list() == [None, None, 5, 5]
    z = nn_pool.max_pool(tf.placeholder(tf.float32), [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    assert z.get_shape().ndims == 4


# ------------------------------------------------------------------------------------------
# layouts, dilation, dtypes
# ------------------------------------------------------------------------------------------


def _to_nchw(a):
    return np.ascontiguousarray(np.transpose(a, (0, 3, 1, 2)))


def test_nchw_equals_nhwc_transposed():
    x = _rand(2, 7, 6, 3)
    w = _rand(3, 3, 3, 4, seed=1)
    dw = _rand(3, 3, 3, 2, seed=2)
    attrs = {"strides": [1, 2, 1, 1], "padding": "SAME"}
    c_attrs = {"strides": [1, 1, 2, 1], "padding": "SAME", "data_format": "NCHW"}
    y = nn_conv.conv2d(x, w, **attrs)
    yc = nn_conv.conv2d(_to_nchw(x), w, **c_attrs)
    d = nn_conv.depthwise_conv2d_native(x, dw, **attrs)
    dc = nn_conv.depthwise_conv2d_native(_to_nchw(x), dw, **c_attrs)
    m = nn_pool.max_pool(x, [1, 3, 2, 1], **attrs)
    mc = nn_pool.max_pool(_to_nchw(x), [1, 1, 3, 2], **c_attrs)
    a = nn_pool.avg_pool(x, [1, 3, 2, 1], **attrs)
    ac = nn_pool.avg_pool(_to_nchw(x), [1, 1, 3, 2], **c_attrs)
    dy = _rand(2, 4, 6, 4, seed=3)
    bi = nn_conv.conv2d_backprop_input([2, 7, 6, 3], w, dy, **attrs)
    bic = nn_conv.conv2d_backprop_input([2, 3, 7, 6], w, _to_nchw(dy), **c_attrs)
    bf = nn_conv.conv2d_backprop_filter(x, [3, 3, 3, 4], dy, **attrs)
    bfc = nn_conv.conv2d_backprop_filter(_to_nchw(x), [3, 3, 3, 4], _to_nchw(dy), **c_attrs)
    assert yc.get_shape().as_list() == [2, 4, 4, 6]
    got = _run([y, yc, d, dc, m, mc, a, ac, bi, bic, bf, bfc])
    for nhwc, nchw in zip(got[0:10:2], got[1:10:2]):
        np.testing.assert_allclose(_to_nchw(nhwc), nchw, atol=1e-12)
    np.testing.assert_allclose(got[10], got[11], atol=1e-12)


def test_dilation():
    x = _rand(2, 9, 8, 2)
    w = _rand(3, 2, 2, 3, seed=1)
    for padding in ("SAME", "VALID"):
        y = nn_conv.conv2d(x, w, [1, 1, 1, 1], padding, dilations=[1, 2, 3, 1])
        np.testing.assert_allclose(_run(y), ref_conv(x, w, (1, 1), padding, (2, 3)), atol=1e-12)
        a = nn_conv.atrous_conv2d(x, w, 2, padding)
        np.testing.assert_allclose(_run(a), ref_conv(x, w, (1, 1), padding, (2, 2)), atol=1e-12)
    # the kernel also handles strides and dilations together (TF's op does on some devices)
    got = kconv.conv(x, w, (2, 2), (2, 2), "SAME")
    np.testing.assert_allclose(got, ref_conv(x, w, (2, 2), "SAME", (2, 2)), atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float16, tf.bfloat16.as_numpy_dtype, np.float32])
def test_narrow_floats_keep_their_dtype(dtype):
    x = (np.round(_rand(2, 6, 6, 3) * 8) / 8).astype(dtype)
    w = (np.round(_rand(3, 3, 3, 2, seed=1) * 8) / 8).astype(dtype)
    out = kconv.conv(x, w, (1, 1), (1, 1), "SAME")
    assert out.dtype == dtype
    np.testing.assert_allclose(out.astype(np.float64), ref_conv(x, w, (1, 1), "SAME"),
                               rtol=2e-2, atol=2e-2)
    assert kconv.max_pool(x, (2, 2), (2, 2), "SAME").dtype == dtype
    assert kconv.avg_pool(x, (2, 2), (2, 2), "SAME").dtype == dtype


def test_inputs_are_not_mutated():
    x = _rand(2, 6, 6, 3)
    w = _rand(3, 3, 3, 2, seed=1)
    dy = _rand(2, 6, 6, 2, seed=2)
    copies = [a.copy() for a in (x, w, dy)]
    kconv.conv(x, w, (1, 1), (1, 1), "SAME")
    kconv.conv_backprop_input(x.shape, w, dy, (1, 1), (1, 1), "SAME")
    kconv.conv_backprop_filter(x, w.shape, dy, (1, 1), (1, 1), "SAME")
    kconv.max_pool_grad(x, dy[..., :1].repeat(3, -1), (3, 3), (1, 1), "SAME")
    for a, c in zip((x, w, dy), copies):
        np.testing.assert_array_equal(a, c)


def test_explicit_padding_gradients(monkeypatch):
    monkeypatch.setattr(kconv, "TRANSPOSED_MIN_CHANNELS", 1)
    x, w = _rand(1, 4, 5, 2), _rand(2, 3, 2, 2, seed=1)
    for pads in (((0, 1), (2, 0)), ((3, 0), (0, 4))):  # the second pads past the filter
        y = kconv.conv(x, w, (1, 1), (1, 1), "EXPLICIT", pads)
        dy = _rand(*y.shape, seed=2)
        dx = kconv.conv_backprop_input(x.shape, w, dy, (1, 1), (1, 1), "EXPLICIT", pads)
        num = _numeric_grad(lambda a, p=pads: kconv.conv(a, w, (1, 1), (1, 1), "EXPLICIT", p),
                            x, dy)
        np.testing.assert_allclose(dx, num, rtol=1e-6, atol=1e-7)


def test_big_batch_spans_several_chunks(monkeypatch):
    monkeypatch.setattr(kconv, "CHUNK_BYTES", 40_000)
    x = _rand(9, 8, 8, 3)
    w = _rand(3, 3, 3, 4, seed=1)
    dy = _rand(9, 8, 8, 4, seed=2)
    np.testing.assert_allclose(kconv.conv(x, w, (1, 1), (1, 1), "SAME"),
                               ref_conv(x, w, (1, 1), "SAME"), atol=1e-12)
    full = kconv.conv_backprop_filter(x, w.shape, dy, (1, 1), (1, 1), "SAME")
    monkeypatch.setattr(kconv, "CHUNK_BYTES", 1 << 30)
    np.testing.assert_allclose(full, kconv.conv_backprop_filter(x, w.shape, dy, (1, 1), (1, 1),
                                                                "SAME"), atol=1e-12)


# ------------------------------------------------------------------------------------------
# backprop kernels against central differences of the forward kernels
# ------------------------------------------------------------------------------------------


def _numeric_grad(f, x, dy, delta=1e-6):
    """d sum(f(x) * dy) / dx by central differences."""
    g = np.zeros_like(x)
    flat, gflat = x.reshape(-1), g.reshape(-1)
    for i in range(flat.size):
        orig = flat[i]
        flat[i] = orig + delta
        fp = np.sum(f(x) * dy)
        flat[i] = orig - delta
        fm = np.sum(f(x) * dy)
        flat[i] = orig
        gflat[i] = (fp - fm) / (2 * delta)
    return g


_CONV_CONFIGS = [
    ((2, 5, 6, 3), (3, 2, 3, 2), (1, 1), (1, 1), "SAME"),
    ((2, 7, 6, 2), (3, 3, 2, 3), (2, 3), (1, 1), "VALID"),
    ((1, 6, 6, 2), (2, 2, 2, 2), (2, 2), (1, 1), "SAME"),
    ((1, 7, 7, 2), (3, 2, 2, 2), (1, 1), (2, 3), "SAME"),
    ((1, 4, 5, 6, 2), (2, 3, 2, 2, 3), (1, 2, 1), (1, 1, 1), "SAME"),
    ((2, 6, 5, 1), (3, 2, 1, 3), (1, 2), (1, 1), "SAME"),  # one channel: tap-major im2col
    ((2, 7, 6, 1), (2, 3, 1, 2), (1, 1), (2, 1), "VALID"),
]


@pytest.mark.parametrize("cfg", _CONV_CONFIGS, ids=lambda c: f"{c[0]}-{c[4]}-s{c[2]}-d{c[3]}")
@pytest.mark.parametrize("min_channels", [1, 1000], ids=["transposed_conv", "col2im"])
def test_conv_backprops_match_finite_differences(cfg, min_channels, monkeypatch):
    monkeypatch.setattr(kconv, "TRANSPOSED_MIN_CHANNELS", min_channels)
    xs, ws, st, dil, padding = cfg
    x, w = _rand(*xs), _rand(*ws, seed=1)
    y = kconv.conv(x, w, st, dil, padding)
    dy = _rand(*y.shape, seed=2)
    dx = kconv.conv_backprop_input(x.shape, w, dy, st, dil, padding)
    dw = kconv.conv_backprop_filter(x, w.shape, dy, st, dil, padding)
    num_dx = _numeric_grad(lambda a: kconv.conv(a, w, st, dil, padding), x, dy)
    num_dw = _numeric_grad(lambda b: kconv.conv(x, b, st, dil, padding), w, dy)
    np.testing.assert_allclose(dx, num_dx, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(dw, num_dw, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("st,dil,padding", [((1, 1), (1, 1), "SAME"), ((2, 1), (1, 1), "VALID"),
                                            ((1, 1), (2, 2), "SAME")])
def test_depthwise_backprops_match_finite_differences(st, dil, padding):
    x, w = _rand(2, 5, 6, 3), _rand(3, 3, 3, 2, seed=1)
    y = kconv.depthwise(x, w, st, dil, padding)
    np.testing.assert_allclose(y, ref_depthwise(x, w, st, padding, dil), atol=1e-12)
    dy = _rand(*y.shape, seed=2)
    dx = kconv.depthwise_backprop_input(x.shape, w, dy, st, dil, padding)
    dw = kconv.depthwise_backprop_filter(x, w.shape, dy, st, dil, padding)
    num_dx = _numeric_grad(lambda a: kconv.depthwise(a, w, st, dil, padding), x, dy)
    num_dw = _numeric_grad(lambda b: kconv.depthwise(x, b, st, dil, padding), w, dy)
    np.testing.assert_allclose(dx, num_dx, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(dw, num_dw, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("shape,ksize,st,padding", [
    ((2, 5, 6, 3), (2, 2), (2, 2), "VALID"),
    ((2, 5, 6, 3), (3, 3), (2, 2), "SAME"),
    ((1, 6, 5, 2), (3, 2), (1, 3), "SAME"),
    ((1, 3, 4, 5, 2), (2, 2, 3), (2, 1, 2), "SAME"),
])
def test_pool_grads_match_finite_differences(shape, ksize, st, padding):
    n = int(np.prod(shape))
    x = (np.random.RandomState(3).permutation(n) / n).reshape(shape)  # no ties
    y = kconv.max_pool(x, ksize, st, padding)
    dy = _rand(*y.shape, seed=2)
    dx = kconv.max_pool_grad(x, dy, ksize, st, padding)
    num = _numeric_grad(lambda a: kconv.max_pool(a, ksize, st, padding), x, dy)
    np.testing.assert_allclose(dx, num, rtol=1e-6, atol=1e-7)
    da = kconv.avg_pool_grad(x.shape, dy, ksize, st, padding)
    num = _numeric_grad(lambda a: kconv.avg_pool(a, ksize, st, padding), x, dy)
    np.testing.assert_allclose(da, num, rtol=1e-6, atol=1e-7)
    # MaxPoolGradGrad is the directional derivative of max_pool_grad in its grad input
    g = _rand(*shape, seed=4)
    gg = kconv.max_pool_grad_grad(x, g, ksize, st, padding)
    np.testing.assert_allclose(np.sum(gg * dy), np.sum(g * dx), rtol=1e-10)


def test_max_pool_grad_ties_go_to_the_first_element():
    x = np.zeros((1, 2, 2, 1))
    dy = np.ones((1, 1, 1, 1))
    dx = kconv.max_pool_grad(x, dy, (2, 2), (2, 2), "VALID")
    np.testing.assert_array_equal(dx[0, ..., 0], [[1, 0], [0, 0]])
    x = np.array([[1.0, 3.0], [3.0, 0.0]]).reshape(1, 2, 2, 1)
    dx = kconv.max_pool_grad(x, dy, (2, 2), (2, 2), "VALID")
    np.testing.assert_array_equal(dx[0, ..., 0], [[0, 1], [0, 0]])
    _, argmax = _run(nn_pool.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"))
    assert argmax.dtype == np.int64 and argmax.ravel().tolist() == [1]


def test_max_pool_pads_with_minus_infinity_and_avg_pool_counts_real_elements():
    x = -np.ones((1, 3, 3, 1))
    m = kconv.max_pool(x, (2, 2), (2, 2), "SAME")
    np.testing.assert_array_equal(m, -np.ones((1, 2, 2, 1)))
    x = np.arange(9.0).reshape(1, 3, 3, 1)
    a = kconv.avg_pool(x, (2, 2), (2, 2), "SAME")
    np.testing.assert_allclose(a[0, ..., 0], [[2.0, 3.5], [6.5, 8.0]])


def test_max_pool_with_argmax_index():
    x = np.random.RandomState(0).permutation(2 * 5 * 6 * 3).reshape(2, 5, 6, 3).astype(
        np.float32)
    for incl in (False, True):
        out, idx = nn_pool.max_pool_with_argmax(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME",
                                                include_batch_in_index=incl)
        assert idx.dtype == tf.int64
        o, i = _run([out, idx])
        np.testing.assert_array_equal(i, ref_argmax(x, (3, 3), (2, 2), "SAME", incl))
        flat = x.reshape(-1) if incl else x.reshape(2, -1)
        picked = flat[i] if incl else np.take_along_axis(flat, i.reshape(2, -1), 1).reshape(
            i.shape)
        np.testing.assert_array_equal(picked, o)
    _, i32 = nn_pool.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID",
                                          Targmax=tf.int32)
    assert i32.dtype == tf.int32
    # TF 1.15 builds it, but its CPU kernel takes int64 indices only
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="No OpKernel was registered to support Op 'MaxPoolWithArgmax'"):
        _run(i32)


# ------------------------------------------------------------------------------------------
# wrappers
# ------------------------------------------------------------------------------------------


def test_conv2d_transpose_is_the_gradient_of_conv2d():
    x = tf.constant(_rand(2, 7, 6, 3))
    w = tf.constant(_rand(3, 3, 3, 4, seed=1))
    for strides, padding in (([1, 2, 2, 1], "SAME"), ([1, 1, 2, 1], "VALID")):
        y = nn_conv.conv2d(x, w, strides, padding)
        dy = tf.constant(_rand(*y.get_shape().as_list(), seed=2))
        gx, gw = gradients(tf.reduce_sum(y * dy), [x, w])
        t = nn_conv.conv2d_transpose(dy, w, [2, 7, 6, 3], strides, padding)
        assert t.get_shape().as_list() == [2, 7, 6, 3]
        bf = nn_conv.conv2d_backprop_filter(x, [3, 3, 3, 4], dy, strides, padding)
        gxv, tv, gwv, bfv = _run([gx, t, gw, bf])
        np.testing.assert_allclose(gxv, tv, atol=1e-12)
        np.testing.assert_allclose(gwv, bfv, atol=1e-12)


def test_conv1d_and_convolution():
    x = _rand(2, 9, 3)
    w = _rand(3, 3, 4, seed=1)
    y = nn_conv.conv1d(x, w, 2, "SAME")
    assert y.get_shape().as_list() == [2, 5, 4]
    want = ref_conv(x[:, None], w[None], (1, 2), "SAME")[:, 0]
    np.testing.assert_allclose(_run(y), want, atol=1e-12)
    yc = nn_conv.conv1d(np.transpose(x, (0, 2, 1)), w, 2, "SAME", data_format="NCW")
    np.testing.assert_allclose(_run(yc), np.transpose(want, (0, 2, 1)), atol=1e-12)
    c1 = nn_conv.convolution(x, w, "VALID", dilation_rate=[2])
    np.testing.assert_allclose(_run(c1), ref_conv(x[:, None], w[None], (1, 1), "VALID",
                                                  (1, 2))[:, 0], atol=1e-12)
    x2, w2 = _rand(2, 6, 7, 3), _rand(2, 3, 3, 2, seed=2)
    c2 = nn_conv.convolution(x2, w2, "SAME", strides=[2, 1])
    np.testing.assert_allclose(_run(c2), ref_conv(x2, w2, (2, 1), "SAME"), atol=1e-12)
    x3, w3 = _rand(1, 4, 5, 3, 2), _rand(2, 2, 2, 2, 3, seed=3)
    c3 = nn_conv.convolution(x3, w3, "VALID")
    np.testing.assert_allclose(_run(c3), ref_conv(x3, w3, (1, 1, 1), "VALID"), atol=1e-12)
    with pytest.raises(ValueError, match="strides > 1 not supported in conjunction"):
        nn_conv.convolution(x2, w2, "SAME", strides=[2, 2], dilation_rate=[2, 2])


def test_depthwise_and_separable():
    x = _rand(2, 6, 6, 3)
    dw = _rand(3, 3, 3, 2, seed=1)
    pw = _rand(1, 1, 6, 5, seed=2)
    d = nn_conv.depthwise_conv2d(x, dw, [1, 1, 1, 1], "SAME", rate=[2, 2])
    np.testing.assert_allclose(_run(d), ref_depthwise(x, dw, (1, 1), "SAME", (2, 2)),
                               atol=1e-12)
    s = nn_conv.separable_conv2d(x, dw, pw, [1, 2, 2, 1], "VALID")
    want = ref_conv(ref_depthwise(x, dw, (2, 2), "VALID"), pw, (1, 1), "VALID")
    assert s.get_shape().as_list() == [2, 2, 2, 5]
    np.testing.assert_allclose(_run(s), want, atol=1e-12)
    with pytest.raises(ValueError):
        nn_conv.separable_conv2d(x, dw, _rand(2, 1, 6, 5), [1, 1, 1, 1], "VALID")


def test_pool_wrappers():
    x = _rand(2, 7, 3)
    m = nn_pool.max_pool1d(x, 3, 2, "SAME")
    want = ref_max_pool(x[:, None], (1, 3), (1, 2), "SAME")[:, 0]
    np.testing.assert_allclose(_run(m), want)
    p = nn_pool.pool(_rand(2, 5, 5, 2), [2, 2], "AVG", "VALID", strides=[2, 2])
    np.testing.assert_allclose(_run(p), ref_avg_pool(_rand(2, 5, 5, 2), (2, 2), (2, 2), "VALID"),
                               atol=1e-12)
    x3 = _rand(1, 4, 5, 6, 2)
    a3 = nn_pool.avg_pool3d(x3, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "SAME")
    np.testing.assert_allclose(_run(a3), ref_avg_pool(x3, (2, 2, 2), (2, 2, 2), "SAME"),
                               atol=1e-12)
    mp2 = nn_pool.max_pool2d(_rand(1, 4, 4, 1), 2, 2, "VALID")
    assert mp2.get_shape().as_list() == [1, 2, 2, 1]
    with pytest.raises(ValueError, match="^1-D MIN pooling is not supported.$"):  # (TF 1.15's)
        nn_pool.pool(x, [2], "MIN", "SAME")


# ------------------------------------------------------------------------------------------
# errors
# ------------------------------------------------------------------------------------------


def test_construction_errors():
    x = tf.placeholder(tf.float32, [2, 5, 5, 3])
    # TF 2.21's words for this case: "Depth of input (3) is not a multiple of input depth of
    # filter (2)".
    with pytest.raises(ValueError, match=r"Depth of input \(3\) is not a multiple of input "
                                         r"depth of filter \(2\) for "
                                         r".*\[2,5,5,3\], \[3,3,2,4\]"):
        nn_conv.conv2d(x, tf.zeros([3, 3, 2, 4]), [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="Shape must be rank 4 but is rank 3"):
        nn_conv.conv2d(tf.zeros([5, 5, 3]), tf.zeros([3, 3, 3, 4]), [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="Negative dimension size caused by subtracting 6"):
        nn_conv.conv2d(x, tf.zeros([6, 1, 3, 4]), [1, 1, 1, 1], "VALID")
    with pytest.raises(ValueError, match="stride attribute to contain 4 values, but got: 3"):
        tf_ops.apply_op("Conv2D", [x, tf.zeros([3, 3, 3, 4])],
                        {"strides": [1, 1, 1], "padding": "SAME"})
    with pytest.raises(ValueError, match="strides should be of length 1, 2 or 4 but was 3"):
        nn_conv.conv2d(x, tf.zeros([3, 3, 3, 4]), [1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="Negative dimension size"):
        nn_pool.max_pool(x, [1, 6, 6, 1], [1, 1, 1, 1], "VALID")
    # TF 1.15's conv2d_transpose (v2's) checks no channels when built: its kernel does
    assert nn_conv.conv2d_transpose(x, tf.zeros([3, 3, 2, 4]), [2, 5, 5, 2],
                                    [1, 1, 1, 1]).get_shape().as_list() == [2, 5, 5, 2]
    with pytest.raises(ValueError, match="not in"):
        nn_conv.conv2d(x, tf.zeros([3, 3, 3, 4]), [1, 1, 1, 1], "same")
    with pytest.raises(TypeError):
        nn_conv.conv2d(tf.zeros([1, 3, 3, 1], tf.int64), tf.zeros([1, 1, 1, 1], tf.int64),
                       [1, 1, 1, 1], "SAME")


def test_run_time_errors():
    x = tf.placeholder(tf.float32)
    w = tf.placeholder(tf.float32)
    y = nn_conv.conv2d(x, w, [1, 1, 1, 1], "SAME")
    with pytest.raises(errors.InvalidArgumentError, match="^input depth must be evenly divisible by filter depth: 3 vs 2"):
        _run(y, {x: np.zeros((1, 4, 4, 3)), w: np.zeros((3, 3, 2, 1))})
    with pytest.raises(errors.InvalidArgumentError, match="must be 4-dimensional"):
        _run(y, {x: np.zeros((4, 4, 3)), w: np.zeros((3, 3, 3, 1))})
    bad = nn_conv.conv2d(tf.zeros([2, 4, 4, 3]), tf.zeros([1, 1, 3, 1]), [2, 1, 1, 1], "SAME")
    with pytest.raises(errors.InvalidArgumentError, match="strides in the batch and depth"):
        _run(bad)
    bad = nn_pool.max_pool(tf.zeros([2, 4, 4, 3]), [1, 1, 1, 2], [1, 1, 1, 2], "SAME")
    with pytest.raises(errors.UnimplementedError):
        _run(bad)
    sizes = tf.placeholder(tf.int32)
    bi = nn_conv.conv2d_backprop_input(sizes, tf.zeros([3, 3, 3, 2]), tf.zeros([1, 4, 4, 2]),
                                       [1, 1, 1, 1], "VALID")
    with pytest.raises(errors.InvalidArgumentError, match="Size of out_backprop doesn't match"):
        _run(bi, {sizes: [1, 5, 5, 3]})


def test_geometry_helpers_agree_with_the_table_reference():
    for n in range(1, 10):
        for k in range(1, 4):
            for s in range(1, 4):
                for d in (1, 2):
                    for p in ("SAME", "VALID"):
                        if p == "VALID" and n < (k - 1) * d + 1:
                            continue
                        o, before, _ = kconv.output_size(n, k, s, d, p)
                        assert (o, before) == geometry(n, k, s, d, p)


# ------------------------------------------------------------------------------------------
# fast paths agree with the general kernels
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape,ksize,padding,tiled", [
    ((3, 8, 6, 4), (2, 2), "SAME", True),
    ((3, 7, 6, 4), (2, 2), "VALID", True),  # the last row is in no window: zero gradient
    ((3, 9, 9, 3), (3, 3), "VALID", True),
    ((3, 4, 6, 8, 2), (2, 3, 2), "SAME", True),
    ((3, 6, 3), (3,), "SAME", True),
    ((2, 7, 6, 4), (2, 2), "SAME", False),  # odd height: SAME pads, the general path runs
    ((2, 8, 8, 3), (3, 3), "SAME", False),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_max_pool_grad_on_tiling_windows_matches_the_general_path(shape, ksize, padding, tiled,
                                                                  dtype, monkeypatch):
    rng = np.random.RandomState(5)
    x = rng.randint(-2, 3, shape).astype(dtype)  # many ties
    x.ravel()[rng.rand(x.size) < 0.1] = np.nan
    dy = rng.standard_normal(kconv.max_pool(x, ksize, ksize, padding).shape).astype(dtype)
    calls = []
    fast_fn = kconv._max_pool_grad_tiled
    monkeypatch.setattr(kconv, "_max_pool_grad_tiled",
                        lambda *a: calls.append(1) or fast_fn(*a))
    fast = kconv.max_pool_grad(x, dy, ksize, ksize, padding)
    assert bool(calls) == tiled
    # in blocks of two images (the batch of three leaves a block of one)
    monkeypatch.setattr(kconv, "POOL_BLOCK_BYTES", 2 * x[0].nbytes)
    np.testing.assert_array_equal(kconv.max_pool_grad(x, dy, ksize, ksize, padding), fast)
    clean = np.nan_to_num(x, nan=-3)
    np.testing.assert_allclose(kconv.max_pool_grad(clean, dy, ksize, ksize, padding),
                               ref_max_pool_grad(clean, dy, ksize, ksize, padding), rtol=1e-6)
    monkeypatch.setattr(kconv, "_tiles", lambda *a: None)
    general = kconv.max_pool_grad(x, dy, ksize, ksize, padding)
    assert fast.dtype == general.dtype == dtype
    np.testing.assert_array_equal(fast, general)  # NaNs and ties included


@pytest.mark.parametrize("xs,ws,st,dil,padding,grouped", [
    ((2, 6, 8, 8), (3, 5, 8, 4), (1, 1), (1, 1), "SAME", True),
    ((2, 5, 9, 8), (2, 4, 8, 3), (2, 1), (1, 1), "VALID", True),  # out width 6
    ((1, 4, 3, 4, 8), (2, 2, 4, 8, 2), (1, 2, 1), (1, 1, 1), "SAME", True),  # Conv3D
    ((2, 6, 8, 8), (3, 5, 8, 4), (1, 1), (1, 1), "VALID", True),  # out width 4
    ((2, 6, 9, 8), (3, 5, 8, 4), (1, 1), (1, 1), "VALID", False),  # odd out width 5
    ((2, 6, 9, 8), (3, 5, 8, 4), (1, 1), (1, 1), "SAME", False),  # odd out width 9
    ((2, 6, 8, 8), (3, 5, 8, 4), (1, 2), (1, 1), "SAME", False),  # strided width
    ((2, 6, 8, 8), (3, 5, 8, 4), (1, 1), (1, 2), "SAME", False),  # dilated width
    ((2, 6, 8, 8), (3, 3, 8, 4), (1, 1), (1, 1), "SAME", False),  # narrow filter
    ((2, 6, 8, 4), (3, 5, 4, 4), (1, 1), (1, 1), "SAME", False),  # few input channels
    ((2, 6, 8, 8), (3, 5, 8, 40), (1, 1), (1, 1), "SAME", False),  # wide output
])
def test_width_grouped_conv_matches_the_reference(xs, ws, st, dil, padding, grouped,
                                                   monkeypatch):
    calls = []
    grouped_fn = kconv._grouped_patches
    monkeypatch.setattr(kconv, "_grouped_patches",
                        lambda *a: calls.append(1) or grouped_fn(*a))
    x, w = _rand(*xs), _rand(*ws, seed=1)
    y = kconv.conv(x, w, st, dil, padding)
    assert bool(calls) == grouped
    np.testing.assert_allclose(y, ref_conv(x, w, st, padding, dil), rtol=1e-12, atol=1e-12)
    assert y.dtype == np.float64 and y.flags.c_contiguous
    y32 = kconv.conv(x.astype(np.float32), w.astype(np.float32), st, dil, padding)
    np.testing.assert_allclose(y32, y, rtol=1e-5, atol=1e-5)


def test_input_gradient_of_a_thin_convolution_is_width_grouped(monkeypatch):
    # conv2 of the MNIST CNN in small: 32 -> 64 channels, 5x5 SAME; its input gradient is a
    # convolution with 32 outputs, computed two columns per matmul row
    calls = []
    grouped_fn = kconv._grouped_patches
    monkeypatch.setattr(kconv, "_grouped_patches",
                        lambda *a: calls.append(1) or grouped_fn(*a))
    w = _rand(5, 5, 32, 64, seed=1)
    dy = _rand(2, 6, 6, 64, seed=2)
    dx = kconv.conv_backprop_input((2, 6, 6, 32), w, dy, (1, 1), (1, 1), "SAME")
    assert calls
    np.testing.assert_allclose(dx, ref_conv_backprop_input((2, 6, 6, 32), w, dy, (1, 1),
                                                           "SAME"), rtol=1e-12, atol=1e-11)
