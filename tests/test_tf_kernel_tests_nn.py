"""Neural-network ops checked against what TF 1.15's own kernel tests expect of them (softmax,
activations, pooling, convolution, cross-entropy, normalization, losses): values, static
shapes, gradients and the errors a program sees, each expected result computed here with NumPy
or by hand."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.python.ops import gen_nn_ops


@pytest.fixture
def sess():
    with tf.Graph().as_default(), tf.Session() as s:
        yield s


def _np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# -- softmax -------------------------------------------------------------------------------
def test_softmax_axis_given_as_a_tensor(sess):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7.0
    fed = tf.placeholder_with_default(1, shape=[])
    # a tensor axis, known only when the step runs, and a constant one
    y = tf.nn.softmax(x, axis=fed)
    z = tf.nn.log_softmax(x, axis=tf.constant(-3))
    assert y.get_shape().as_list() == [2, 3, 4]
    assert z.get_shape().as_list() == [2, 3, 4]
    np.testing.assert_allclose(sess.run(y), _np_softmax(x, 1), rtol=1e-6)
    np.testing.assert_allclose(sess.run(y, {fed: -3}), _np_softmax(x, 0), rtol=1e-6)
    # TF 1.15's graph for a fed axis swaps it with the last through Ranges: the last axis
    # itself fails the step there (measured in TF 1.15: "Requires start <= limit when
    # delta > 0: 3/2"), and 100 wraps around to 100 % 3
    with pytest.raises(tf.errors.InvalidArgumentError, match="Requires start <= limit"):
        sess.run(y, {fed: -1})
    np.testing.assert_allclose(sess.run(y, {fed: 100}), _np_softmax(x, 1), rtol=1e-6)
    np.testing.assert_allclose(sess.run(z), np.log(_np_softmax(x, 0)), rtol=1e-5, atol=1e-6)


def test_softmax_fed_axis_out_of_range_fails_when_run(sess):
    axis = tf.placeholder_with_default(100, shape=[])
    y = tf.nn.softmax([1.0, 2.0, 3.0, 4.0], axis=axis)  # built: the axis is not known yet
    with pytest.raises(tf.errors.InvalidArgumentError):
        sess.run(y)
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be in the range"):
        tf.nn.softmax(tf.ones([2, 3]), axis=tf.constant(2))


# -- activations ---------------------------------------------------------------------------
def test_leaky_relu_half_rounds_alpha_and_products_to_half(sess):
    x = np.array([-9, 7, -5, 3, -1, 1, -3, 5, -7, 9], np.float16)
    alpha16 = np.float16(0.2)  # 0.199951171875
    # TF's half kernel: alpha in half, each product rounded to half (round-half-even)
    want = np.where(x > 0, x, (x.astype(np.float32) * np.float32(alpha16)).astype(np.float16))
    assert want[6] == np.float16(-0.599609375)  # -3 * alpha16 lies halfway: rounds to even
    got = sess.run(tf.nn.leaky_relu(x, alpha=0.2))
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, want)
    xt = tf.constant(x)
    dx = sess.run(tf.gradients(tf.nn.leaky_relu(xt, 0.2) * np.float16(3), xt)[0])
    np.testing.assert_array_equal(dx, np.where(x > 0, np.float16(3),
                                               (np.float32(3) * np.float32(alpha16)).astype(
                                                   np.float16)))


# -- pooling -------------------------------------------------------------------------------
def _np_dilated_max_pool(x, window, rate):
    """VALID, stride-1 dilated max pooling of channels-last ``x`` (any spatial rank)."""
    spatial = x.shape[1:-1]
    outs = [n - (w - 1) * r for n, w, r in zip(spatial, window, rate)]
    out = np.full((x.shape[0], *outs, x.shape[-1]), -np.inf)
    for tap in np.ndindex(*window):
        sl = tuple(slice(t * r, t * r + o) for t, r, o in zip(tap, rate, outs))
        out = np.maximum(out, x[(slice(None),) + sl])
    return out


@pytest.mark.parametrize("fmt,shape,window,rate", [
    ("NCHW", (2, 3, 7, 9), (2, 2), (2, 2)),
    ("NCW", (2, 3, 9), (3,), (2,)),
    ("NCDHW", (1, 2, 5, 6, 5), (2, 1, 2), (2, 1, 2)),
])
def test_dilated_pool_channels_first(sess, fmt, shape, window, rate):
    x = np.random.RandomState(0).uniform(-1, 1, shape).astype(np.float32)
    y = tf.nn.pool(x, window, "MAX", "VALID", dilation_rate=rate, data_format=fmt)
    last = np.moveaxis(x, 1, -1)
    want = np.moveaxis(_np_dilated_max_pool(last, window, rate), -1, 1)
    got = sess.run(y)
    assert y.get_shape().as_list() == list(want.shape)
    np.testing.assert_allclose(got, want)
    avg = sess.run(tf.nn.pool(x, window, "AVG", "VALID", dilation_rate=rate, data_format=fmt))
    assert avg.shape == want.shape


def test_depthwise_max_pool_across_channels(sess):
    x = np.random.RandomState(1).permutation(48).astype(np.float32).reshape(1, 2, 4, 6)
    y = tf.nn.max_pool(x, ksize=[1, 1, 1, 3], strides=[1, 1, 1, 3], padding="SAME")
    assert y.get_shape().as_list() == [1, 2, 4, 2]
    np.testing.assert_array_equal(sess.run(y), x.reshape(1, 2, 4, 2, 3).max(-1))
    v2 = gen_nn_ops.max_pool_v2(x, [1, 1, 1, 2], [1, 1, 1, 2], "VALID")
    np.testing.assert_array_equal(sess.run(v2), x.reshape(1, 2, 4, 3, 2).max(-1))


@pytest.mark.parametrize("ksize,strides,message", [
    ([1, 2, 2, 2], [1, 1, 1, 2], "exactly one of pooling across depth or pooling across width"),
    ([1, 1, 1, 2], [1, 1, 1, 1], "depth window to equal the depth stride"),
    ([1, 1, 1, 3], [1, 1, 1, 3], "depth window to evenly divide the input depth"),
])
def test_depthwise_max_pool_refusals(sess, ksize, strides, message):
    t = tf.constant(1.0, shape=[1, 2, 2, 4])
    with pytest.raises(tf.errors.UnimplementedError, match=message):
        sess.run(tf.nn.max_pool(t, ksize=ksize, strides=strides, padding="SAME"))
    with pytest.raises(tf.errors.UnimplementedError, match="Non-spatial pooling"):
        sess.run(tf.nn.avg_pool(t, ksize=[1, 1, 1, 2], strides=[1, 1, 1, 2], padding="SAME"))


def _np_max_pool(x, k, s):
    """VALID max pooling of NHWC ``x`` with square window ``k`` and stride ``s``."""
    n, h, w, c = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    out = np.empty((n, oh, ow, c), x.dtype)
    for i in range(oh):
        for j in range(ow):
            out[:, i, j] = x[:, i * s:i * s + k, j * s:j * s + k].max(axis=(1, 2))
    return out


def test_max_pool_v2_takes_its_window_as_tensors(sess):
    x = np.random.RandomState(2).permutation(2 * 6 * 6 * 3).astype(np.float32).reshape(
        2, 6, 6, 3)
    y = gen_nn_ops.max_pool_v2(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    assert y.op.type == "MaxPoolV2"
    assert y.get_shape().as_list() == [2, 3, 3, 3]
    np.testing.assert_array_equal(sess.run(y), _np_max_pool(x, 2, 2))
    # a fed window: the static shape is unknown, the value follows the feed
    k = tf.placeholder(tf.int32)
    s = tf.placeholder(tf.int32)
    z = gen_nn_ops.max_pool_v2(x, k, s, "VALID")
    assert z.get_shape().ndims is None
    got = sess.run(z, {k: [1, 3, 3, 1], s: [1, 1, 1, 1]})
    np.testing.assert_array_equal(got, _np_max_pool(x, 3, 1))
    with pytest.raises(tf.errors.InvalidArgumentError, match="ksize field must specify 4"):
        sess.run(z, {k: [3, 3], s: [1, 1, 1, 1]})


def test_max_pool_v2_gradients_match_max_pool(sess):
    x = tf.constant(np.random.RandomState(3).permutation(2 * 5 * 6 * 3).astype(np.float64)
                    .reshape(2, 5, 6, 3))
    y1 = tf.nn.max_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    y2 = gen_nn_ops.max_pool_v2(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    w = tf.constant(np.random.RandomState(4).uniform(size=(2, 3, 3, 3)))
    g1 = tf.gradients(tf.reduce_sum(y1 * w), x)[0]
    g2 = tf.gradients(tf.reduce_sum(y2 * w), x)[0]
    assert g2.op.type == "MaxPoolGradV2"
    a, b = sess.run([g1, g2])
    np.testing.assert_array_equal(a, b)
    # second order: the gradient of MaxPoolGradV2 with respect to its grad input
    v = tf.constant(np.random.RandomState(5).uniform(size=(2, 5, 6, 3)))
    h1 = tf.gradients(tf.reduce_sum(g1 * v), w)[0]
    h2 = tf.gradients(tf.reduce_sum(g2 * v), w)[0]
    a, b = sess.run([h1, h2])
    np.testing.assert_array_equal(a, b)
    err = tf.test.compute_gradient_error(x, [2, 5, 6, 3], y2, [2, 3, 3, 3],
                                         x_init_value=sess.run(x), delta=1e-3)
    assert err < 1e-6


@pytest.mark.parametrize("ksize,strides", [((2, 2), (1, 1)), ((3, 3), (1, 1))])
def test_max_pool_grad_nan_reaches_only_its_window_max(sess, ksize, strides):
    # all-NaN input: each window's first element is its max (TF's CPU rule), and a NaN in the
    # incoming gradient lands there alone instead of spreading through 0 * NaN (overlapping
    # windows; windows that tile the input keep their faster path, where it spreads)
    x = np.full((1, 4, 4, 1), np.nan, np.float32)
    outs = [(4 - k) // s + 1 for k, s in zip(ksize, strides)]
    dy = np.arange(1, np.prod(outs) + 1, dtype=np.float32).reshape(1, *outs, 1)
    dy[0, 0, 0, 0] = np.nan
    y = tf.nn.max_pool(x, [1, *ksize, 1], [1, *strides, 1], "VALID")
    g = sess.run(gen_nn_ops.max_pool_grad(x, y, dy, [1, *ksize, 1], [1, *strides, 1], "VALID"))
    want = np.zeros((4, 4), np.float32)
    for i in range(outs[0]):
        for j in range(outs[1]):
            want[i * strides[0], j * strides[1]] += dy[0, i, j, 0]
    np.testing.assert_array_equal(g[0, :, :, 0], want)


# -- convolution ---------------------------------------------------------------------------
def test_conv2d_grouped_shapes_pass_shape_inference_then_cpu_refuses(sess):
    # TF 1.15: an input depth that is a multiple of the filter's is a grouped convolution;
    # the graph builds (output depth from the filter), the CPU kernel refuses to run it
    x = tf.placeholder(tf.float32, [2, 5, 5, 8])
    y = tf.nn.conv2d(x, tf.ones([3, 3, 2, 16]), strides=[1, 1, 1, 1], padding="SAME")
    assert y.get_shape().as_list() == [2, 5, 5, 16]
    with pytest.raises(tf.errors.UnimplementedError, match="grouped convolutions on the CPU"):
        sess.run(y, {x: np.ones([2, 5, 5, 8], np.float32)})
    with pytest.raises(ValueError, match=r"Depth of output \(6\) is not a multiple of the "
                                         r"number of groups \(4\)"):
        tf.nn.conv2d(x, tf.ones([3, 3, 2, 6]), strides=[1, 1, 1, 1], padding="SAME")
    with pytest.raises(ValueError, match="is not a multiple of input depth of filter"):
        tf.nn.conv2d(x, tf.ones([3, 3, 3, 6]), strides=[1, 1, 1, 1], padding="SAME")


@pytest.mark.parametrize("padding,fmt,message", [
    ([[0, 0], [0, -1], [1, 2], [0, 0]], "NHWC", "must be nonnegative"),
    ([[1, 0], [0, 0], [0, 0], [0, 0]], "NHWC", "batch or depth dimensions"),
    ([[0, 0], [0, 1], [0, 0], [0, 0]], "NCHW", "batch or depth dimensions"),
    ([0, 0, 0, 0], "NHWC", "Element with index 0 of padding is not a list/tuple"),
    ("EXPLICIT", "NHWC", "the padding parameter must be a list"),
])
def test_conv2d_explicit_padding_checked_when_built(padding, fmt, message):
    with pytest.raises(ValueError, match=message):
        tf.nn.conv2d(tf.placeholder(tf.float32), tf.placeholder(tf.float32),
                     strides=[1, 1, 1, 1], padding=padding, data_format=fmt)


def test_conv2d_explicit_padding_values_and_gradients(sess):
    rng = np.random.RandomState(6)
    x = rng.uniform(-1, 1, (2, 6, 7, 3))
    w = rng.uniform(-1, 1, (3, 4, 3, 2))
    pads = [[0, 0], [1, 2], [0, 5], [0, 0]]
    y = tf.nn.conv2d(tf.constant(x), tf.constant(w), strides=[1, 1, 2, 1], padding=pads)
    xp = np.pad(x, pads)
    oh, ow = xp.shape[1] - 3 + 1, (xp.shape[2] - 4) // 2 + 1
    want = np.zeros((2, oh, ow, 2))
    for i in range(oh):
        for j in range(ow):
            want[:, i, j] = np.einsum("nhwc,hwco->no", xp[:, i:i + 3, 2 * j:2 * j + 4], w)
    assert y.get_shape().as_list() == list(want.shape)
    np.testing.assert_allclose(sess.run(y), want, rtol=1e-10)
    xt, wt = tf.constant(x), tf.constant(w)
    yt = tf.nn.conv2d(xt, wt, strides=[1, 1, 2, 1], padding=pads)
    for t, v in ((xt, x), (wt, w)):
        err = tf.test.compute_gradient_error(t, list(v.shape), yt, list(want.shape),
                                             x_init_value=v)
        assert err < 1e-8


def test_python_ops_nn_impl_holds_tf_nn_functions():
    from tideflow.python.ops import nn_impl

    assert nn_impl.depthwise_conv2d is tf.nn.depthwise_conv2d
    assert nn_impl.separable_conv2d is tf.nn.separable_conv2d
    assert nn_impl.moments is tf.nn.moments


# -- test harness --------------------------------------------------------------------------
def test_compute_gradient_takes_fortran_ordered_initial_values(sess):
    # TF's kernel tests pass np.asarray(..., order="F"): every perturbation must reach x
    x = tf.placeholder(tf.float64, [2, 5])
    y = tf.nn.softplus(x)
    init = np.asarray([[-0.9, -0.7, -0.5, -0.3, -0.1], [0.1, 0.3, 0.5, 0.7, 0.9]], order="F")
    theo, num = tf.test.compute_gradient(x, [2, 5], y, [2, 5], x_init_value=init)
    want = np.diag((1 / (1 + np.exp(-init))).ravel())  # d softplus = sigmoid
    np.testing.assert_allclose(theo, want, rtol=1e-12)
    np.testing.assert_allclose(num, want, atol=1e-7)


def test_test_util_layout_helpers(sess):
    from tideflow.python.framework import test_util

    assert test_util.NHWCToNCHW([1, 2, 3, 4]) == [1, 4, 2, 3]
    assert test_util.NCHWToNHWC([1, 4, 2, 3]) == [1, 2, 3, 4]
    x = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
    nchw = sess.run(test_util.NHWCToNCHW(tf.constant(x)))
    np.testing.assert_array_equal(nchw, x.transpose(0, 3, 1, 2))
    np.testing.assert_array_equal(sess.run(test_util.NCHWToNHWC(tf.constant(nchw))), x)
    import tideflow.python.ops.nn_grad  # noqa: F401 - TF's tests import it for its side effect


def test_tf2_forms_under_tensorflow_python_ops(sess):
    # TF 1.15's nn_ops/nn_impl hold the TF 2 functions too (softmax_v2, dropout_v2, ...)
    from tideflow.python.ops import nn_impl, nn_ops

    x = np.linspace(0.0, 1.0, 12).reshape(3, 4)
    np.testing.assert_allclose(sess.run(nn_ops.softmax_v2(x, axis=0)), _np_softmax(x, 0))
    np.testing.assert_allclose(sess.run(nn_ops.log_softmax_v2(x, axis=-2)),
                               np.log(_np_softmax(x, 0)))
    norm = np.sqrt((x * x).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(sess.run(nn_impl.l2_normalize_v2(x, 1)), x / norm)
    mean, var = nn_impl.moments_v2(tf.constant(x), [0], keepdims=True)
    np.testing.assert_allclose(sess.run([mean, var]), [x.mean(0, keepdims=True),
                                                       x.var(0, keepdims=True)])
    t = tf.zeros([5])
    assert nn_ops.dropout_v2(t, rate=0) is t
    with pytest.raises(ValueError, match=r"range \[0, 1\), got 1.1"):
        nn_ops.dropout_v2(t, 1.1)
    ones = tf.ones([2, 4, 4, 3])
    y = nn_ops.conv2d_transpose_v2(ones, tf.ones([2, 2, 5, 3]), [2, 8, 8, 5], 2)
    assert y.get_shape().as_list() == [2, 8, 8, 5]
    # stride 2 with a 2x2 window of ones: each output gets exactly one tap, summing 3 channels
    np.testing.assert_array_equal(sess.run(y), np.full([2, 8, 8, 5], 3.0))
    assert nn_impl.nce_loss_v2 is not None and nn_impl.sampled_softmax_loss_v2 is not None
    assert callable(nn_impl._compute_sampled_logits)


def test_sampled_losses_v2_split_sharded_weights_by_div(sess):
    rng = np.random.RandomState(0)
    w = rng.randn(5, 4).astype(np.float32)
    b = rng.randn(5).astype(np.float32)
    h = rng.randn(3, 4).astype(np.float32)
    labels = np.array([[0], [1], [2]])
    sampled = ([1, 0, 2, 3], np.full([3, 1], 0.5, np.float32), np.full([4], 0.5, np.float32))
    # "div" shards of 5 rows in 3 parts: rows [0, 1], [2, 3], [4]
    shards_w = [tf.constant(w[:2]), tf.constant(w[2:4]), tf.constant(w[4:])]
    shards_b = [tf.constant(b[:2]), tf.constant(b[2:4]), tf.constant(b[4:])]
    logits = np.concatenate([np.sum(h * w[labels[:, 0]], 1, keepdims=True) + b[labels],
                             h @ w[[1, 0, 2, 3]].T + b[[1, 0, 2, 3]]], 1) - np.log(0.5)
    targets = np.hstack([np.ones([3, 1]), np.zeros([3, 4])])
    p = 1 / (1 + np.exp(-logits))
    want_nce = np.sum(-targets * np.log(p) - (1 - targets) * np.log(1 - p), 1)
    e = np.exp(logits - logits.max(1, keepdims=True))
    want_ss = -np.log(e[:, 0] / e.sum(1))
    from tideflow.python.ops import nn_impl

    nce = nn_impl.nce_loss_v2(shards_w, shards_b, labels, h, 4, 5, sampled_values=sampled)
    ss = nn_impl.sampled_softmax_loss_v2(shards_w, shards_b, labels, h, 4, 5,
                                         sampled_values=sampled, remove_accidental_hits=False)
    got_nce, got_ss = sess.run([nce, ss])
    np.testing.assert_allclose(got_nce, want_nce, rtol=1e-5)
    np.testing.assert_allclose(got_ss, want_ss, rtol=1e-5)


# -- CTC -----------------------------------------------------------------------------------
def _np_ctc_loss(log_probs, label):
    """-log p(label | x) by the CTC forward recursion over one sequence ([time, classes],
    blank the last class), in plain NumPy."""
    blank = log_probs.shape[1] - 1
    ext = [blank]
    for c in label:
        ext += [c, blank]
    probs = np.exp(log_probs)
    alpha = np.zeros(len(ext))
    alpha[0], alpha[1] = probs[0, blank], probs[0, ext[1]]
    for t in range(1, len(probs)):
        new = np.zeros_like(alpha)
        for s, c in enumerate(ext):
            a = alpha[s] + (alpha[s - 1] if s >= 1 else 0)
            if s >= 2 and c != blank and c != ext[s - 2]:
                a += alpha[s - 2]
            new[s] = a * probs[t, c]
        alpha = new
    return -np.log(alpha[-1] + alpha[-2])


def test_ctc_loss_dense_int64_lengths_and_blank_zero(sess):
    rng = np.random.RandomState(9)
    logits = rng.uniform(-1, 1, (6, 2, 4)).astype(np.float32)  # [time, batch, classes]
    labels = np.array([[1, 2, 0], [3, 3, 1]], np.int64)  # blank is class 0 here
    label_length = np.array([2, 3], np.int64)
    from tideflow.python.ops import ctc_ops

    loss = ctc_ops.ctc_loss_dense(labels, logits, tf.constant(label_length), [6, 6])
    sparse = ctc_ops.dense_labels_to_sparse(tf.constant(labels), tf.constant(label_length))
    loss_v2 = tf.nn.ctc_loss_v2(sparse, logits, None, [6, 6], blank_index=0)
    got, got_v2 = sess.run([loss, loss_v2])
    for b in range(2):
        x = logits[:, b].astype(np.float64)
        logp = x - np.log(np.exp(x).sum(1, keepdims=True))
        # move blank 0 to the end: classes 1..3 become 0..2
        logp = np.concatenate([logp[:, 1:], logp[:, :1]], 1)
        want = _np_ctc_loss(logp, [c - 1 for c in labels[b, :label_length[b]]])
        np.testing.assert_allclose(got[b], want, rtol=1e-5)
        np.testing.assert_allclose(got_v2[b], want, rtol=1e-5)


def test_ctc_loss_second_derivative_is_refused(sess):
    x = tf.constant(np.random.RandomState(1).randn(3, 2, 4).astype(np.float32))
    labels = tf.SparseTensor([[0, 0], [1, 0]], tf.constant([1, 2]), [2, 1])
    loss = tf.nn.ctc_loss(labels, x, [3, 3])
    (g,) = tf.gradients(tf.reduce_sum(loss), x)
    with pytest.raises(LookupError, match="Gradient explicitly disabled"):
        tf.gradients(tf.reduce_sum(g * g), x)
    from tideflow.python.ops import gradients_impl

    with pytest.raises(LookupError, match="second derivative of ctc_loss"):
        gradients_impl._hessian_vector_product(loss, [x], [1.0])


def test_ctc_loss_empty_batch_is_invalid(sess):
    x = tf.constant([], dtype=tf.float32, shape=(1, 0, 2))
    labels = tf.SparseTensor(tf.zeros([0, 2], tf.int64), tf.zeros([0], tf.int32), [5, 5])
    with pytest.raises(tf.errors.InvalidArgumentError, match="batch_size must not be 0"):
        sess.run(tf.nn.ctc_loss(labels, x, tf.zeros([0], tf.int32)))


def test_hessian_vector_product_matches_numpy(sess):
    from tideflow.python.ops import gradients_impl

    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    x = tf.constant([0.5, -1.0], tf.float64)
    y = 0.5 * tf.reduce_sum(x * tf.linalg.matvec(tf.constant(a), x))  # Hessian is a
    (hv,) = gradients_impl._hessian_vector_product(y, [x], [tf.constant([1.0, 2.0], tf.float64)])
    np.testing.assert_allclose(sess.run(hv), a @ np.array([1.0, 2.0]))


# -- losses --------------------------------------------------------------------------------
def test_losses_modules_under_tensorflow_python_paths(sess):
    from tideflow.python.ops.losses import losses_impl, util

    assert util.get_losses is tf.losses.get_losses
    assert losses_impl.Reduction is tf.losses.Reduction
    loss = losses_impl.compute_weighted_loss(tf.constant([1.0, 2.0, 3.0]),
                                             tf.constant([0.0, 1.0, 1.0]))
    assert sess.run(loss) == pytest.approx(2.5)  # SUM_BY_NONZERO_WEIGHTS: (2 + 3) / 2
    assert loss in util.get_losses()


# -- in_top_k, LRN -------------------------------------------------------------------------
def test_in_top_k_rows_with_non_finite_predictions_are_false(sess):
    pred = np.array([[np.nan, 0.3, 0.2, 0.4],  # a NaN anywhere in the row: cannot say
                     [0.1, 0.3, 0.2, 0.4],
                     [-np.inf, 1.0, 0.5, 0.2],  # -inf too, even for the top target
                     [np.inf, 1.0, 0.5, 0.2]], np.float32)
    got = sess.run(tf.nn.in_top_k(pred, [1, 1, 1, 0], 2))
    # row 1: 0.3 has one larger value (0.4), so it is in the top 2
    assert got.tolist() == [False, True, False, False]


def test_lrn_rank_error_names_both_ranks():
    with pytest.raises(ValueError, match="Shape must be rank 4 but is rank 3"):
        tf.nn.lrn(tf.zeros([3, 4, 8]), 2)


# -- names and shape checks TF programs see ------------------------------------------------
def test_sparse_xent_and_zero_fraction_tensor_names():
    with tf.Graph().as_default():
        logits = tf.ones([2, 3])
        a = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1], logits=logits)
        b = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1], logits=logits,
                                                           name="bar")
        assert a.name == "SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits:0"
        assert b.name == "bar/bar:0"
        assert tf.nn.zero_fraction(logits).name == "zero_fraction/fraction:0"


def test_bias_add_channels_first_needs_rank_3():
    with pytest.raises(ValueError, match="Shape must be at least rank 3 but is rank 2"):
        tf.nn.bias_add(tf.ones([2, 3]), [1.0, 2.0, 3.0], data_format="NCHW")
    with tf.Graph().as_default(), tf.Session() as s:
        y = tf.nn.bias_add(tf.ones([2, 3, 4]), [1.0, 2.0, 3.0], data_format="NCHW")
        np.testing.assert_array_equal(s.run(y)[1, :, 2], [2.0, 3.0, 4.0])


@pytest.mark.parametrize("build", [
    lambda: tf.nn.conv2d(tf.ones([1, 8, 8, 1]), tf.ones([2, 2, 1, 1]), [1, 0, 1, 1], "SAME"),
    lambda: tf.nn.max_pool(tf.ones([1, 8, 8, 1]), 2, [1, 1, 0, 1], "VALID"),
    lambda: tf.nn.conv2d(tf.placeholder(tf.float32, [1, None, 8, 1]), tf.ones([2, 2, 1, 1]),
                         [1, 0, 1, 1], "VALID"),
])
def test_zero_stride_is_a_value_error_when_built(build):
    # (was a ZeroDivisionError from the shape function)
    with pytest.raises(ValueError, match="Stride must be > 0, but got 0"):
        build()


def _np_depthwise_valid(x, w, s):
    """VALID depthwise convolution of NHWC ``x`` with stride ``s`` (channel c, multiplier k
    -> output channel c * mult + k)."""
    kh, kw, c, m = w.shape
    oh, ow = (x.shape[1] - kh) // s + 1, (x.shape[2] - kw) // s + 1
    out = np.zeros((x.shape[0], oh, ow, c * m))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * s:i * s + kh, j * s:j * s + kw, :]
            out[:, i, j] = np.einsum("nhwc,hwck->nck", patch, w).reshape(x.shape[0], -1)
    return out


def test_depthwise_conv2d_with_rate_and_stride_as_tf1(sess):
    # TF 1.x accepts rate > 1 with stride > 1: the strided native op runs on each
    # space-to-batch sub-image (rate apart), whose results are interleaved back
    rng = np.random.RandomState(4)
    x = rng.uniform(-1, 1, (2, 9, 10, 3))
    w = rng.uniform(-1, 1, (3, 3, 3, 2))
    rh, rw, s = 2, 1, 2
    eh, ew = (-9) % rh, (-10) % rw
    xp = np.pad(x, [(0, 0), (0, eh), (0, ew), (0, 0)])
    subs = {(a, b): _np_depthwise_valid(xp[:, a::rh, b::rw], w, s)
            for a in range(rh) for b in range(rw)}
    oh, ow = subs[0, 0].shape[1:3]
    full = np.zeros((2, oh * rh, ow * rw, 6))
    for (a, b), v in subs.items():
        full[:, a::rh, b::rw] = v
    want = full[:, :oh * rh - eh, :ow * rw - ew]
    y = tf.nn.depthwise_conv2d(x, w, [1, s, s, 1], "VALID", rate=[rh, rw])
    assert y.get_shape().as_list() == list(want.shape) == [2, 3, 4, 6]
    np.testing.assert_allclose(sess.run(y), want, rtol=1e-10)


# -- data-format maps ----------------------------------------------------------------------
@pytest.mark.parametrize("x,src,dst,want", [
    ([0, 1, 2, 3, -1, -2, -3, -4], "NHWC", "NCHW", [0, 2, 3, 1, 1, 3, 2, 0]),
    ([[1, -3], [1, -1]], "NHWC", "NCHW", [[2, 2], [2, 1]]),
    ([-4, -3, -2, -1, 0, 1, 2, 3], "NHWC", "HWNC", [2, 0, 1, 3, 2, 0, 1, 3]),
    ([1, -4, -3, -2], "NDHWC", "NCDHW", [2, 2, 3, 4]),
])
def test_data_format_dim_map(sess, x, src, dst, want):
    from tideflow.python.ops import nn_ops

    y = nn_ops.data_format_dim_map(tf.constant(x), src_format=src, dst_format=dst)
    assert y.get_shape().as_list() == list(np.shape(x))
    assert sess.run(y).tolist() == want


@pytest.mark.parametrize("x,src,dst,want", [
    ([7, 4, 9, 3], "NHWC", "NCHW", [7, 3, 4, 9]),
    ([4, 9], "NHWC", "NCHW", [4, 9]),  # spatial sizes only
    ([7, 4, 9, 3], "NHWC", "WHCN", [9, 4, 3, 7]),
    ([4, 9], "NHWC", "WHCN", [9, 4]),
    ([7, 4, 9, 3, 5], "NDHWC", "WHDCN", [3, 9, 4, 5, 7]),
    ([[7, 4], [9, 3], [4, 5], [5, 1]], "NHWC", "HWNC", [[9, 3], [4, 5], [7, 4], [5, 1]]),
])
def test_data_format_vec_permute(sess, x, src, dst, want):
    from tideflow.python.ops import gen_nn_ops as gen

    y = gen.data_format_vec_permute(tf.constant(x), src_format=src, dst_format=dst)
    assert sess.run(y).tolist() == want


@pytest.mark.parametrize("src,dst,message", [
    ("12345678", "87654321", "Source format must be of length 4 or 5"),
    ("1233", "4321", "must determine a permutation"),
    ("1234", "5321", "must determine a permutation"),
])
def test_data_format_maps_refuse_formats_that_are_no_permutation(sess, src, dst, message):
    from tideflow.python.ops import nn_ops

    for fn in (nn_ops.data_format_dim_map, nn_ops.data_format_vec_permute):
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            sess.run(fn(tf.constant([0, 1, 2, 3]), src_format=src, dst_format=dst))


def test_fused_batch_norm_rank_errors_name_both_ranks():
    with pytest.raises(ValueError, match="Shape must be rank 4 but is rank 3"):
        tf.nn.fused_batch_norm(tf.ones([3, 4, 5]), tf.ones([5]), tf.ones([5]))
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
        tf.nn.fused_batch_norm(tf.ones([2, 3, 4, 5]), tf.ones([5, 1]), tf.ones([5]))


@pytest.mark.parametrize("build,message", [
    (lambda: tf.nn.softmax(tf.constant(1.0)), "Shape must be at least rank 1 but is rank 0"),
    (lambda: tf.nn.log_softmax(tf.constant(1.0)), "Shape must be at least rank 1 but is rank 0"),
    (lambda: tf.nn.bias_add(tf.ones([2, 3]), tf.ones([1, 3])), "Shape must be rank 1 but is rank 2"),
    (lambda: tf.nn.in_top_k(tf.ones([2, 3, 1]), [0, 1], 1), "Shape must be rank 2 but is rank 3"),
])
def test_shape_errors_in_tf_words(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_batch_norm_with_global_normalization_opens_one_scope(sess):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    m, v = np.array([1.0, 2.0, 3.0], np.float32), np.array([1.0, 4.0, 0.25], np.float32)
    beta, gamma = np.array([0.5, 0.0, -1.0], np.float32), np.array([2.0, 1.0, 3.0], np.float32)
    y = tf.nn.batch_norm_with_global_normalization(x, m, v, beta, gamma, 0.001, True)
    assert y.op.name.startswith("batchnorm/") and not y.op.name.startswith("batchnorm/batchnorm")
    want = (x - m) / np.sqrt(v + 0.001) * gamma + beta
    np.testing.assert_allclose(sess.run(y), want, rtol=1e-5)
