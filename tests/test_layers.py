"""tf.layers: variable names and shapes, reuse, outputs against NumPy with the variables fetched,
dropout and batch normalization under a Python or a tensor `training`, regularization losses,
and a small training step."""

import numpy as np
import pytest

import tideflow as tf
from tideflow import layers, losses, nn
from tideflow.contrib import layers as contrib_layers


@pytest.fixture(autouse=True)
def graph():
    with tf.Graph().as_default() as g:
        yield g


def session():
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    return sess


def names(variables):
    return [v.name for v in variables]


# ---- NumPy references ---------------------------------------------------------------------


def _pads(n, k, s, padding):
    if padding == "valid":
        return (n - k) // s + 1, 0
    out = -(-n // s)
    return out, max((out - 1) * s + k - n, 0) // 2


def np_conv2d(x, w, strides=(1, 1), padding="valid"):
    b, h, wd, _ = x.shape
    kh, kw, _, f = w.shape
    oh, ph = _pads(h, kh, strides[0], padding)
    ow, pw = _pads(wd, kw, strides[1], padding)
    xp = np.zeros((b, h + 2 * kh, wd + 2 * kw, x.shape[3]))
    xp[:, ph:ph + h, pw:pw + wd] = x
    out = np.zeros((b, oh, ow, f))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, i * strides[0]:i * strides[0] + kh, j * strides[1]:j * strides[1] + kw]
            out[:, i, j] = np.tensordot(patch, w, axes=([1, 2, 3], [0, 1, 2]))
    return out


def np_pool2d(x, k, s, fn, padding="valid"):
    b, h, w, c = x.shape
    oh, ph = _pads(h, k[0], s[0], padding)
    ow, pw = _pads(w, k[1], s[1], padding)
    out = np.zeros((b, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * s[0] - ph, j * s[1] - pw
            win = x[:, max(r0, 0):r0 + k[0], max(c0, 0):c0 + k[1]]
            out[:, i, j] = fn(win, axis=(1, 2))
    return out


def np_conv2d_transpose(x, w, s, padding):
    # kernel [kh, kw, out_channels, in_channels]
    b, h, wd, _ = x.shape
    kh, kw, f, _ = w.shape
    full = np.zeros((b, (h - 1) * s + kh, (wd - 1) * s + kw, f))
    for i in range(h):
        for j in range(wd):
            full[:, i * s:i * s + kh, j * s:j * s + kw] += np.einsum("bc,xyfc->bxyf", x[:, i, j], w)
    if padding == "valid":
        oh, ow = h * s + max(kh - s, 0), wd * s + max(kw - s, 0)
        return full[:, :oh, :ow]
    oh, ow = h * s, wd * s
    th, tw = max((h - 1) * s + kh - oh, 0), max((wd - 1) * s + kw - ow, 0)
    return full[:, th // 2:th // 2 + oh, tw // 2:tw // 2 + ow]


# ---- dense ----------------------------------------------------------------------------------


def test_dense_variables_names_and_values():
    x = tf.placeholder(tf.float32, [None, 3])
    y = layers.dense(x, 4, activation=nn.relu)
    z = layers.dense(y, 2, use_bias=False)
    assert y.get_shape().as_list() == [None, 4] and y.op.name == "dense/Relu"
    assert names(tf.trainable_variables()) == ["dense/kernel:0", "dense/bias:0",
                                               "dense_1/kernel:0"]
    assert tf.trainable_variables()[0].get_shape().as_list() == [3, 4]
    xv = np.random.default_rng(1).normal(size=(5, 3))
    with session() as sess:
        k0, b0, k1, yv, zv = sess.run(tf.trainable_variables() + [y, z], {x: xv})
    limit = np.sqrt(6.0 / 7)  # glorot uniform
    assert np.abs(k0).max() <= limit and np.all(b0 == 0)
    np.testing.assert_allclose(yv, np.maximum(xv @ k0 + b0, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(zv, yv @ k1, rtol=1e-5, atol=1e-6)


def test_dense_rank3_and_initializers():
    x = tf.placeholder(tf.float32, [2, None, 3])
    y = layers.dense(x, 5, kernel_initializer=tf.ones_initializer(),
                     bias_initializer=tf.constant_initializer(0.5), name="proj")
    assert y.get_shape().as_list() == [2, None, 5]
    xv = np.arange(24.0).reshape(2, 4, 3)
    with session() as sess:
        np.testing.assert_allclose(sess.run(y, {x: xv}), np.repeat(xv.sum(-1, keepdims=True),
                                                                   5, -1) + 0.5)
    with pytest.raises(ValueError, match="last dimension"):
        layers.dense(tf.placeholder(tf.float32, [2, None]), 3)


def test_dense_float64_makes_float64_variables():
    y = layers.dense(tf.constant(np.ones((2, 3))), 2)
    assert y.dtype == tf.float64
    assert tf.global_variables()[0].dtype.base_dtype == tf.float64


def test_functional_reuse():
    x = tf.placeholder(tf.float32, [None, 3])
    a = layers.dense(x, 4, name="fc")
    b = layers.dense(x, 4, name="fc", reuse=True)
    assert names(tf.global_variables()) == ["fc/kernel:0", "fc/bias:0"]
    with pytest.raises(ValueError, match="already exists"):
        layers.dense(x, 4, name="fc")
    c = layers.dense(x, 4, name="fc", reuse=tf.AUTO_REUSE)
    with tf.variable_scope("model"):
        layers.dense(x, 4, name="fc")
    with tf.variable_scope("model", reuse=True):
        d = layers.dense(x, 4, name="fc")
    assert names(tf.global_variables()) == ["fc/kernel:0", "fc/bias:0", "model/fc/kernel:0",
                                            "model/fc/bias:0"]
    with pytest.raises(ValueError, match="does not exist"):
        layers.dense(x, 4, name="other", reuse=True)
    xv = np.ones((1, 3))
    with session() as sess:
        av, bv, cv = sess.run([a, b, c], {x: xv})
        sess.run(d, {x: xv})
    np.testing.assert_allclose(av, bv)
    np.testing.assert_allclose(av, cv)


def test_layer_objects():
    x = tf.placeholder(tf.float32, [None, 3])
    layer = layers.Dense(4, name="shared")
    assert layer.variables == [] and not layer.built
    y1, y2 = layer(x), layer.apply(x)
    assert y1.op.name == "shared/BiasAdd" and y2.op.name == "shared/BiasAdd_1"
    assert layer.built and layer.kernel is layer.variables[0] and layer.bias is layer.variables[1]
    assert names(layer.trainable_variables) == ["shared/kernel:0", "shared/bias:0"]
    assert layer.non_trainable_variables == [] and layer.count_params() == 16
    assert len(tf.global_variables()) == 2
    # unnamed layer objects take unique variable scopes; layer names count from 1
    l1, l2 = layers.Dense(2), layers.Dense(2)
    l1(x)
    l2(x)
    assert l1.scope_name == "dense" and l2.scope_name == "dense_1"
    assert l1.name == "dense_1" and l2.name == "dense_2"
    frozen = layers.Dense(2, trainable=False, name="frozen")
    frozen(x)
    assert frozen.trainable_variables == [] and len(frozen.non_trainable_variables) == 2
    assert "frozen/kernel:0" not in names(tf.trainable_variables())
    with pytest.raises(ValueError, match="not the same"), tf.Graph().as_default():
        layer(tf.placeholder(tf.float32, [None, 3]))


def test_input_spec_checks():
    with pytest.raises(ValueError, match="min_ndim=2"):
        layers.dense(tf.constant([1.0, 2.0]), 3)
    d = layers.Dense(2)
    d(tf.zeros([1, 3]))
    with pytest.raises(ValueError, match="axis -1"):
        d(tf.zeros([1, 4]))
    with pytest.raises(ValueError, match="ndim=4"):
        layers.conv2d(tf.zeros([2, 3, 3]), 2, 1)


# ---- convolution and pooling ------------------------------------------------------------------


@pytest.mark.parametrize("padding,strides", [("valid", (1, 1)), ("same", (2, 2)),
                                             ("same", (1, 1)), ("valid", (2, 1))])
def test_conv2d(padding, strides):
    x = tf.placeholder(tf.float32, [None, 7, 6, 3])
    y = layers.conv2d(x, 4, (3, 2), strides=strides, padding=padding, activation=nn.relu,
                      bias_initializer=tf.constant_initializer(0.1))
    kernel, bias = tf.trainable_variables()
    assert names([kernel, bias]) == ["conv2d/kernel:0", "conv2d/bias:0"]
    assert kernel.get_shape().as_list() == [3, 2, 3, 4]
    xv = np.random.default_rng(2).normal(size=(2, 7, 6, 3))
    with session() as sess:
        yv, kv = sess.run([y, kernel], {x: xv})
    expected = np.maximum(np_conv2d(xv, kv, strides, padding) + 0.1, 0)
    assert y.get_shape().as_list() == [None, *expected.shape[1:]]
    np.testing.assert_allclose(yv, expected, rtol=1e-4, atol=1e-5)


def test_conv1d_and_pooling1d():
    x = tf.placeholder(tf.float32, [2, 9, 3])
    y = layers.conv1d(x, 5, 3, strides=2, padding="same")
    kernel = tf.trainable_variables()[0]
    assert kernel.get_shape().as_list() == [3, 3, 5]
    p = layers.max_pooling1d(y, 2, 2)
    a = layers.average_pooling1d(y, 3, 1, padding="same")
    xv = np.random.default_rng(3).normal(size=(2, 9, 3))
    with session() as sess:
        yv, pv, av, kv = sess.run([y, p, a, kernel], {x: xv})
    expected = np_conv2d(xv[:, None], kv[None], (1, 2), "same")[:, 0]
    np.testing.assert_allclose(yv, expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(pv, np_pool2d(yv[:, :, None], (2, 1), (2, 1), np.max)[:, :, 0],
                               rtol=1e-6)
    np.testing.assert_allclose(
        av, np_pool2d(yv[:, :, None], (3, 1), (1, 1), np.mean, "same")[:, :, 0], rtol=1e-5)
    assert p.get_shape().as_list() == [2, 2, 5] and a.get_shape().as_list() == [2, 5, 5]


@pytest.mark.parametrize("padding", ["valid", "same"])
def test_pooling2d(padding):
    x = tf.placeholder(tf.float32, [None, 5, 6, 2])
    m = layers.max_pooling2d(x, 2, 2, padding=padding)
    a = layers.average_pooling2d(x, (3, 2), (2, 1), padding=padding)
    assert m.op.name == "max_pooling2d/MaxPool" and a.op.name == "average_pooling2d/AvgPool"
    pool = layers.MaxPooling2D((2, 2), 1)
    pool(x)
    assert pool.variables == []
    xv = np.random.default_rng(4).normal(size=(2, 5, 6, 2))
    with tf.Session() as sess:
        mv, av = sess.run([m, a], {x: xv})
    np.testing.assert_allclose(mv, np_pool2d(xv, (2, 2), (2, 2), np.max, padding))
    np.testing.assert_allclose(av, np_pool2d(xv, (3, 2), (2, 1), np.mean, padding), rtol=1e-5)
    assert m.get_shape().as_list()[1:] == list(mv.shape[1:])


@pytest.mark.parametrize("padding", ["valid", "same"])
def test_conv2d_transpose(padding):
    x = tf.placeholder(tf.float32, [None, 3, 4, 2])
    y = layers.conv2d_transpose(x, 3, 3, strides=2, padding=padding)
    kernel = tf.trainable_variables()[0]
    assert kernel.get_shape().as_list() == [3, 3, 3, 2]
    xv = np.random.default_rng(5).normal(size=(2, 3, 4, 2))
    with session() as sess:
        yv, kv = sess.run([y, kernel], {x: xv})
    expected = np_conv2d_transpose(xv, kv, 2, padding)
    assert y.get_shape().as_list() == [None, *expected.shape[1:]]
    np.testing.assert_allclose(yv, expected, rtol=1e-4, atol=1e-5)


def test_flatten():
    x = tf.placeholder(tf.float32, [None, 2, 3, 4])
    f = layers.flatten(x)
    assert f.get_shape().as_list() == [None, 24] and f.op.name.startswith("flatten/")
    g = layers.Flatten(data_format="channels_first")(x)
    xv = np.arange(48.0).reshape(2, 2, 3, 4)
    with tf.Session() as sess:
        fv, gv = sess.run([f, g], {x: xv})
    np.testing.assert_array_equal(fv, xv.reshape(2, -1))
    np.testing.assert_array_equal(gv, xv.transpose(0, 2, 3, 1).reshape(2, -1))


# ---- dropout ---------------------------------------------------------------------------------


def test_dropout_training_flag():
    x = tf.ones([200, 50])
    assert layers.dropout(x, 0.5).op.type == "Identity"
    kept = layers.dropout(x, 0.3, training=False)
    dropped = layers.dropout(x, 0.3, training=True, seed=1)
    flag = tf.placeholder(tf.bool, [])
    switched = layers.dropout(x, 0.3, training=flag)
    default = layers.dropout(x, 0.3, training=tf.placeholder_with_default(False, []))
    with tf.Session() as sess:
        kv, dv, on, off, dfl = sess.run([kept, dropped, switched, switched, default],
                                        {flag: True})
        off = sess.run(switched, {flag: False})
    np.testing.assert_array_equal(kv, 1.0)
    np.testing.assert_array_equal(off, 1.0)
    np.testing.assert_array_equal(dfl, 1.0)
    for v in (dv, on):
        assert np.all((v == 0) | np.isclose(v, 1 / 0.7))
        assert 0.25 < (v == 0).mean() < 0.35


def test_dropout_noise_shape():
    x = tf.ones([100, 8])
    y = layers.Dropout(0.5, noise_shape=[None, 1], seed=3)(x, training=True)
    with tf.Session() as sess:
        yv = sess.run(y)
    assert np.all(yv == yv[:, :1])


# ---- batch normalization -----------------------------------------------------------------------


@pytest.mark.parametrize("shape,axis", [((8, 3), -1), ((4, 3, 3, 2), -1), ((4, 2, 3, 3), 1),
                                        ((4, 3, 5), 1)])
def test_batch_normalization_training_and_inference(shape, axis):
    x = tf.placeholder(tf.float32, shape)
    train_out = layers.batch_normalization(x, axis=axis, momentum=0.9, training=True,
                                           name="bn")
    infer_out = layers.batch_normalization(x, axis=axis, training=False, name="bn", reuse=True)
    assert names(tf.global_variables()) == ["bn/gamma:0", "bn/beta:0", "bn/moving_mean:0",
                                            "bn/moving_variance:0"]
    assert names(tf.trainable_variables()) == ["bn/gamma:0", "bn/beta:0"]
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert len(updates) == 2
    axis = axis % len(shape)
    red = tuple(i for i in range(len(shape)) if i != axis)
    bshape = [1] * len(shape)
    bshape[axis] = shape[axis]
    xv = np.random.default_rng(6).normal(2.0, 3.0, size=shape)
    fused = len(shape) == 4
    n = xv.size / shape[axis]
    with session() as sess:
        out = sess.run(train_out, {x: xv})
        mean, var = xv.mean(red), xv.var(red)
        np.testing.assert_allclose(
            out, (xv - mean.reshape(bshape)) / np.sqrt(var.reshape(bshape) + 1e-3), rtol=1e-4,
            atol=1e-4)
        sess.run(updates, {x: xv})
        mm, mv = sess.run(tf.global_variables()[2:])
        # the fused kernel's moving variance follows the unbiased batch variance, as in TF
        batch_var = var * n / (n - 1) if fused else var
        np.testing.assert_allclose(mm, 0.1 * mean, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(mv, 0.9 + 0.1 * batch_var, rtol=1e-4)
        np.testing.assert_allclose(
            sess.run(infer_out, {x: xv}),
            (xv - mm.reshape(bshape)) / np.sqrt(mv.reshape(bshape) + 1e-3), rtol=1e-4,
            atol=1e-4)


def test_batch_normalization_training_placeholder():
    x = tf.placeholder(tf.float32, [6, 2])
    training = tf.placeholder(tf.bool, [])
    bn = layers.BatchNormalization(momentum=0.5, center=False, scale=False)
    y = bn(x, training=training)
    assert names(bn.variables) == ["batch_normalization/moving_mean:0",
                                   "batch_normalization/moving_variance:0"]
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert bn.updates == update_ops and len(update_ops) == 2
    xv = np.random.default_rng(7).normal(1.0, 2.0, size=(6, 2))
    with session() as sess:
        with tf.control_dependencies(update_ops):
            step = tf.identity(y)
        out = sess.run(step, {x: xv, training: False})
        np.testing.assert_allclose(out, xv / np.sqrt(1 + 1e-3), rtol=1e-5)
        mm, mv = sess.run(bn.variables)
        np.testing.assert_array_equal(mm, 0.0)
        np.testing.assert_array_equal(mv, 1.0)
        out = sess.run(step, {x: xv, training: True})
        np.testing.assert_allclose(out, (xv - xv.mean(0)) / np.sqrt(xv.var(0) + 1e-3),
                                   rtol=1e-4, atol=1e-5)
        mm, mv = sess.run(bn.variables)
        np.testing.assert_allclose(mm, 0.5 * xv.mean(0), rtol=1e-5)
        np.testing.assert_allclose(mv, 0.5 + 0.5 * xv.var(0), rtol=1e-5)


def test_batch_normalization_without_training_adds_no_updates():
    layers.batch_normalization(tf.ones([2, 3]))
    assert tf.get_collection(tf.GraphKeys.UPDATE_OPS) == []


# ---- regularization ---------------------------------------------------------------------------


def test_regularizers_and_total_loss():
    x = tf.placeholder(tf.float32, [None, 3])
    y = layers.dense(x, 2, kernel_regularizer=contrib_layers.l2_regularizer(0.1),
                     bias_regularizer=contrib_layers.l1_regularizer(0.2),
                     activity_regularizer=contrib_layers.l1_regularizer(0.01), name="reg")
    layers.dense(x, 2, kernel_regularizer=contrib_layers.l2_regularizer(0.1), name="reg",
                 reuse=True)
    reg = losses.get_regularization_losses()
    assert names(reg) == ["reg/kernel/Regularizer/l2_regularizer:0",
                          "reg/bias/Regularizer/l1_regularizer:0",
                          "reg/ActivityRegularizer/truediv:0"]
    with tf.variable_scope("scoped", regularizer=contrib_layers.l2_regularizer(1.0)):
        w = tf.get_variable("w", [2])
    data_loss = losses.mean_squared_error(tf.zeros_like(y), y)
    total = losses.get_total_loss()
    xv = np.ones((4, 3))
    with session() as sess:
        kernel, bias, yv, wv, dv, tv, rv = sess.run(
            [*tf.trainable_variables()[:2], y, w, data_loss, total,
             losses.get_regularization_loss()], {x: xv})
    expected_reg = (0.1 * (kernel ** 2).sum() / 2 + 0.2 * np.abs(bias).sum()
                    + 0.01 * np.abs(yv).sum() / 4 + (wv ** 2).sum() / 2)
    assert rv == pytest.approx(expected_reg, rel=1e-5)
    assert tv == pytest.approx(dv + expected_reg, rel=1e-5)


# ---- training -----------------------------------------------------------------------------------


def test_training_step_decreases_loss():
    from tideflow.ops.gradients import gradients

    rng = np.random.default_rng(8)
    xv = rng.normal(size=(32, 4)).astype(np.float32)
    yv = xv @ rng.normal(size=(4, 1)).astype(np.float32) + 0.5
    x = tf.placeholder(tf.float32, [None, 4])
    target = tf.placeholder(tf.float32, [None, 1])
    hidden = layers.dense(x, 8, activation=nn.relu)
    pred = layers.dense(hidden, 1)
    loss = losses.mean_squared_error(target, pred)
    params = tf.trainable_variables()
    grads = gradients(loss, params)
    assert all(g is not None for g in grads)
    step = tf.group(*[tf.assign_sub(v, 0.05 * g) for v, g in zip(params, grads)])
    feed = {x: xv, target: yv}
    with session() as sess:
        first = sess.run(loss, feed)
        for _ in range(50):
            sess.run(step, feed)
        last = sess.run(loss, feed)
    assert last < 0.5 * first
