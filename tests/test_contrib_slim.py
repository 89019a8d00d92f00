"""tf.contrib.slim and the contrib layers, losses, metrics, sequence losses and HParams added
with it: values against NumPy, TF's variable names, and the slim training loop on real files."""

import os

import numpy as np
import pytest

import tideflow as tf

slim = tf.contrib.slim


def _run(fetches, feed=None, init=True):
    with tf.Session() as sess:
        if init:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        return sess.run(fetches, feed)


def _conv_transpose_ref(x, w, stride, padding):
    # scatter each input pixel's contribution: out[i*s + a, j*s + b, o] += x[i, j, c] w[a, b, o, c]
    n, h, wd, _ = x.shape
    kh, kw, co, _ = w.shape
    full = np.zeros((n, (h - 1) * stride + kh, (wd - 1) * stride + kw, co))
    for i in range(h):
        for j in range(wd):
            full[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :] += np.einsum(
                "nc,aboc->nabo", x[:, i, j, :], w)
    if padding == "VALID":
        return full[:, :h * stride + max(kh - stride, 0), :wd * stride + max(kw - stride, 0)]
    out_h, out_w = h * stride, wd * stride
    pad_h = max((h - 1) * stride + kh - out_h, 0)
    pad_w = max((wd - 1) * stride + kw - out_w, 0)
    top, left = pad_h // 2, pad_w // 2
    return full[:, top:top + out_h, left:left + out_w]


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_conv2d_transpose_values_shapes_and_names(padding):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 3)).astype(np.float32)
    w = rng.standard_normal((3, 3, 5, 3)).astype(np.float32)
    inp = tf.placeholder(tf.float32, [None, 3, 4, 3])
    out = slim.conv2d_transpose(inp, 5, [3, 3], stride=2, padding=padding,
                                activation_fn=None, weights_initializer=tf.constant_initializer(w),
                                scope="deconv")
    expect = _conv_transpose_ref(x.astype(np.float64), w.astype(np.float64), 2, padding)
    assert out.get_shape().as_list() == [None, *expect.shape[1:]]
    got = _run(out, {inp: x})
    np.testing.assert_allclose(got, expect, rtol=1e-4, atol=1e-4)
    names = sorted(v.op.name for v in slim.get_model_variables())
    assert names == ["deconv/biases", "deconv/weights"]
    tf.reset_default_graph()


def test_separable_conv2d_matches_depthwise_then_pointwise():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 5, 5, 2))
    dw = rng.standard_normal((3, 3, 2, 2))
    pw = rng.standard_normal((1, 1, 4, 3))
    inp = tf.constant(x)
    out = slim.separable_conv2d(inp, 3, [3, 3], depth_multiplier=2, activation_fn=tf.nn.relu,
                                weights_initializer=tf.constant_initializer(dw),
                                pointwise_initializer=tf.constant_initializer(pw),
                                scope="sep")
    only_dw = slim.separable_conv2d(inp, None, 3, depth_multiplier=2, activation_fn=None,
                                    weights_initializer=tf.constant_initializer(dw),
                                    scope="dw")
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    depth = np.zeros((2, 5, 5, 2, 2))
    for i in range(5):
        for j in range(5):
            depth[:, i, j] = np.einsum("nabc,abcm->ncm", padded[:, i:i + 3, j:j + 3], dw)
    depth = depth.reshape(2, 5, 5, 4)
    expect = np.maximum(depth @ pw[0, 0], 0)
    got, got_dw = _run([out, only_dw])
    np.testing.assert_allclose(got, expect, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(got_dw, depth, rtol=1e-9, atol=1e-9)
    names = sorted(v.op.name for v in tf.global_variables())
    assert names == ["dw/biases", "dw/depthwise_weights", "sep/biases", "sep/depthwise_weights",
                     "sep/pointwise_weights"]
    tf.reset_default_graph()


def test_repeat_and_stack_scopes_and_values():
    x = tf.constant(np.ones((2, 3)), tf.float32)
    with slim.arg_scope([slim.fully_connected], weights_initializer=tf.ones_initializer(),
                        activation_fn=None):
        r = slim.repeat(x, 3, slim.fully_connected, 3, scope="fc")
        s = slim.stack(x, slim.fully_connected, [4, 2], scope="st")
    names = [v.op.name for v in tf.trainable_variables()]
    assert names == ["fc/fc_1/weights", "fc/fc_1/biases", "fc/fc_2/weights", "fc/fc_2/biases",
                     "fc/fc_3/weights", "fc/fc_3/biases", "st/st_1/weights", "st/st_1/biases",
                     "st/st_2/weights", "st/st_2/biases"]
    got_r, got_s = _run([r, s])
    np.testing.assert_allclose(got_r, np.full((2, 3), 27.0))
    np.testing.assert_allclose(got_s, np.full((2, 2), 12.0))
    assert s.get_shape().as_list() == [2, 2]
    with pytest.raises(ValueError, match="stack_args"):
        slim.stack(x, slim.fully_connected, 4)
    tf.reset_default_graph()


def test_unit_norm_softmax_bias_add():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 4, 5))
    t = tf.constant(x)
    un = slim.unit_norm(t, 1)
    sm = slim.softmax(t)
    ba = slim.bias_add(t, initializer=tf.constant_initializer(np.arange(5.0)),
                       activation_fn=tf.nn.relu)
    got_un, got_sm, got_ba = _run([un, sm, ba])
    np.testing.assert_allclose(got_un, x / np.sqrt(1e-7 + (x ** 2).sum(1, keepdims=True)))
    e = np.exp(x - x.max(-1, keepdims=True))
    np.testing.assert_allclose(got_sm, e / e.sum(-1, keepdims=True))
    np.testing.assert_allclose(got_ba, np.maximum(x + np.arange(5.0), 0))
    assert [v.op.name for v in tf.global_variables()] == ["BiasAdd/biases"]
    with pytest.raises(ValueError, match="dim must be positive but smaller"):  # TF 1.15's
        slim.unit_norm(t, 3)
    tf.reset_default_graph()


def test_optimize_loss_sgd_step_clipping_and_summaries():
    w0 = np.array([1.0, -2.0])
    w = tf.Variable(w0, name="w")
    gs = tf.train.get_or_create_global_step()
    loss = tf.reduce_sum(tf.square(w - 3.0))
    train_op = tf.contrib.layers.optimize_loss(loss, gs, learning_rate=0.1, optimizer="SGD",
                                               clip_gradients=5.0)
    summaries = {s.op.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run(train_op)
        w1, step = sess.run([w, gs])
    grad = 2 * (w0 - 3.0)
    norm = np.sqrt((grad ** 2).sum())
    clipped = grad * min(1.0, 5.0 / norm)
    assert before == pytest.approx(((w0 - 3.0) ** 2).sum())
    np.testing.assert_allclose(w1, w0 - 0.1 * clipped)
    assert step == 1
    # TF 1.x's default summaries: loss and global gradient norms (the learning rate only when
    # a decay function makes it a tensor; per-variable gradients only when asked)
    assert summaries == {"OptimizeLoss/loss", "OptimizeLoss/global_norm/gradient_norm",
                         "OptimizeLoss/global_norm/clipped_gradient_norm"}, summaries
    with pytest.raises(ValueError, match="Optimizer name should be one of"):
        tf.contrib.layers.optimize_loss(loss, gs, 0.1, "Nope")
    with pytest.raises(ValueError, match="Summaries should be one of"):
        tf.contrib.layers.optimize_loss(loss, gs, 0.1, "SGD", summaries=["bogus"])
    tf.reset_default_graph()


def test_assign_from_checkpoint_fn_and_values(tmp_path):
    with tf.Graph().as_default():
        tf.Variable([1.0, 2.0], name="a")
        tf.Variable([[3.0]], name="b")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "model.ckpt"))
    with tf.Graph().as_default():
        a = tf.Variable([0.0, 0.0], name="a")
        c = tf.Variable([5.0], name="c")
        with pytest.raises(ValueError):
            slim.assign_from_checkpoint(path, [a, c])
        fn = slim.assign_from_checkpoint_fn(path, [a, c], ignore_missing_vars=True)
        op, feed = slim.assign_from_checkpoint(path, {"b": tf.Variable([[0.0]], name="bb")})
        setter, setter_feed = slim.assign_from_values({"c": [7.0]})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            fn(sess)
            sess.run(op, feed)
            sess.run(setter, setter_feed)
            got_a, got_b, got_c = sess.run([a, "bb:0", c])
        np.testing.assert_allclose(got_a, [1.0, 2.0])
        np.testing.assert_allclose(got_b, [[3.0]])
        np.testing.assert_allclose(got_c, [7.0])


def test_streaming_metrics_take_predictions_first():
    preds = np.array([1, 0, 1, 1, 0])
    labels = np.array([1, 1, 1, 0, 0])
    acc = tf.contrib.metrics.streaming_accuracy(preds, labels)
    prec = slim.metrics.streaming_precision(preds, labels)
    rec = slim.metrics.streaming_recall(preds, labels)
    mse = tf.contrib.metrics.streaming_mean_squared_error(preds.astype(np.float32),
                                                          labels.astype(np.float32))
    values, updates = slim.metrics.aggregate_metric_map({"acc": acc, "prec": prec, "rec": rec,
                                                         "mse": mse})
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run(list(updates.values()))
        got = sess.run(values)
    assert got["acc"] == pytest.approx(3 / 5)
    assert got["prec"] == pytest.approx(2 / 3)
    assert got["rec"] == pytest.approx(2 / 3)
    assert got["mse"] == pytest.approx(2 / 5)
    vals, ups = tf.contrib.metrics.aggregate_metrics(acc, prec)
    assert vals == [acc[0], prec[0]] and ups == [acc[1], prec[1]]
    tf.reset_default_graph()


def _seq_ref(logits, targets, weights, at, ab, st, sb):
    logp = logits - logits.max(-1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(-1, keepdims=True))
    b, t = targets.shape
    ce = -logp[np.arange(b)[:, None], np.arange(t)[None, :], targets] * weights
    if at and ab:
        return ce.sum() / weights.sum()
    if st and sb:
        return ce.sum() / (weights != 0).sum()
    if at:
        return ce.sum(1) / weights.sum(1)
    if ab:
        return ce.sum(0) / weights.sum(0)
    if st:
        return ce.sum(1) / (weights != 0).sum(1)
    if sb:
        return ce.sum(0) / (weights != 0).sum(0)
    return ce


@pytest.mark.parametrize("flags", [(True, True, False, False), (False, False, True, True),
                                   (True, False, False, False), (False, True, False, False),
                                   (False, False, True, False), (False, False, False, True),
                                   (False, False, False, False)])
def test_sequence_loss_reductions(flags):
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((3, 4, 6))
    targets = rng.integers(0, 6, (3, 4))
    weights = rng.uniform(0.5, 1.5, (3, 4))
    weights[0, 3] = 0.0
    at, ab, st, sb = flags
    loss = tf.contrib.seq2seq.sequence_loss(
        tf.constant(logits), tf.constant(targets), tf.constant(weights),
        average_across_timesteps=at, average_across_batch=ab, sum_over_timesteps=st,
        sum_over_batch=sb)
    np.testing.assert_allclose(_run(loss, init=False),
                               _seq_ref(logits, targets, weights, *flags), rtol=1e-10)
    tf.reset_default_graph()


def test_sequence_loss_errors_and_legacy_form():
    with pytest.raises(ValueError, match="Logits must be"):
        tf.contrib.seq2seq.sequence_loss(tf.zeros([2, 3]), tf.zeros([2, 3], tf.int32),
                                         tf.ones([2, 3]))
    with pytest.raises(ValueError, match="cannot be set to True"):
        tf.contrib.seq2seq.sequence_loss(tf.zeros([2, 3, 4]), tf.zeros([2, 3], tf.int32),
                                         tf.ones([2, 3]), sum_over_timesteps=True)
    rng = np.random.default_rng(4)
    logits = rng.standard_normal((2, 3, 5))
    targets = rng.integers(0, 5, (2, 3))
    weights = np.ones((2, 3))
    legacy = tf.contrib.legacy_seq2seq.sequence_loss(
        [tf.constant(logits[:, i]) for i in range(3)],
        [tf.constant(targets[:, i]) for i in range(3)],
        [tf.constant(weights[:, i]) for i in range(3)])
    per_example = _seq_ref(logits, targets, weights, True, False, False, False)
    np.testing.assert_allclose(_run(legacy, init=False), per_example.sum() / 2, rtol=1e-9)
    tf.reset_default_graph()


def test_contrib_losses_argument_order():
    logits = np.array([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3]])
    onehot = np.array([[1.0, 0, 0], [0, 0, 1.0]])
    old = tf.contrib.losses.softmax_cross_entropy(logits, onehot)
    new = tf.losses.softmax_cross_entropy(onehot, logits)
    old_mse = slim.losses.mean_squared_error(np.array([1.0, 2.0]), np.array([0.0, 4.0]))
    got_old, got_new, got_mse = _run([old, new, old_mse], init=False)
    assert got_old == pytest.approx(got_new)
    assert got_mse == pytest.approx((1 + 4) / 2)
    assert len(tf.contrib.losses.get_losses()) == 3
    tf.reset_default_graph()


def test_hparams_parse_types_and_json():
    hp = tf.contrib.training.HParams(learning_rate=0.1, steps=10, name="m", use_bn=False,
                                     layers=[64, 32])
    hp.parse("learning_rate=0.5,steps=20,use_bn=true,layers=[8,4,2],name=other")
    assert hp.learning_rate == 0.5 and hp.steps == 20 and hp.use_bn is True
    assert hp.layers == [8, 4, 2] and hp.name == "other"
    hp.parse("learning_rate=3")
    assert isinstance(hp.learning_rate, float) and hp.learning_rate == 3.0
    with pytest.raises(ValueError, match="int"):
        hp.parse("steps=1.5")
    with pytest.raises(ValueError, match="Unknown hyperparameter"):
        hp.parse("nope=1")
    with pytest.raises(ValueError, match="reserved"):
        hp.add_hparam("values", 1)
    hp.add_hparam("dropout", 0.2)
    hp.set_hparam("dropout", 1)
    assert hp.dropout == 1.0
    clone = tf.contrib.training.HParams(**hp.values())
    clone.parse_json(hp.to_json())
    assert clone.values() == hp.values()
    assert "dropout" in hp and hp.get("missing", 7) == 7


def test_slim_learning_train_writes_checkpoints_and_resumes(tmp_path):
    logdir = str(tmp_path / "train")
    rng = np.random.default_rng(5)
    xs = rng.standard_normal((64, 3)).astype(np.float32)
    ys = xs @ np.array([[1.0], [-2.0], [0.5]], np.float32)

    def build():
        x = tf.constant(xs)
        pred = slim.fully_connected(x, 1, activation_fn=None, scope="lin")
        slim.losses.mean_squared_error(pred, tf.constant(ys))
        total = slim.losses.get_total_loss()
        opt = tf.train.GradientDescentOptimizer(0.1)
        return slim.learning.create_train_op(total, opt)

    with tf.Graph().as_default():
        train_op = build()
        first = slim.learning.train(train_op, logdir, number_of_steps=60,
                                    save_summaries_secs=1000, save_interval_secs=1000)
    assert tf.train.latest_checkpoint(logdir).endswith("model.ckpt-60")
    assert first < 0.05
    with tf.Graph().as_default():
        train_op = build()
        second = slim.learning.train(train_op, logdir, number_of_steps=80,
                                     save_summaries_secs=1000, save_interval_secs=1000)
    assert tf.train.latest_checkpoint(logdir).endswith("model.ckpt-80")
    assert second <= first
    assert any(name.startswith("events.out.tfevents") for name in os.listdir(logdir))


def test_optimize_loss_gradient_multipliers_by_name_and_variable():
    w = tf.Variable([1.0, 2.0], name="w")
    v = tf.Variable([3.0], name="v")
    gs = tf.train.get_or_create_global_step()
    loss = tf.reduce_sum(w * w) + tf.reduce_sum(v * v)
    op = tf.contrib.layers.optimize_loss(loss, gs, 0.1, "SGD", summaries=[],
                                         gradient_multipliers={"w:0": 0.5, v: 2.0})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(op)
        got_w, got_v = sess.run([w, v])
    np.testing.assert_allclose(got_w, [1.0 - 0.1 * 0.5 * 2, 2.0 - 0.1 * 0.5 * 4])
    np.testing.assert_allclose(got_v, [3.0 - 0.1 * 2.0 * 6])
    tf.reset_default_graph()
