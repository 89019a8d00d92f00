"""tf.contrib.opt's AdaMax, AddSign, PowerSign (dense and sparse, against NumPy over several
steps), their sign-decay schedules, and MovingAverageOptimizer's swapping saver."""

import math

import numpy as np
import pytest

import tideflow as tf


def _train(opt_fn, sparse, steps=4, seed=0):
    rng = np.random.RandomState(seed)
    init = rng.uniform(-1, 1, (5, 3)).astype(np.float64)
    grads = [rng.uniform(-1, 1, (5, 3)) for _ in range(steps)]
    rows = [np.array([0, 2, 4]), np.array([1, 3]), np.array([4, 0]), np.array([2])]
    with tf.Graph().as_default():
        var = tf.Variable(init)
        gstep = tf.train.get_or_create_global_step()
        g = tf.placeholder(tf.float64, [None, 3])
        idx = tf.placeholder(tf.int64, [None])
        grad = tf.IndexedSlices(g, idx, tf.constant([5, 3], tf.int64)) if sparse else g
        train = opt_fn().apply_gradients([(grad, var)], global_step=gstep)
        out = []
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for i in range(steps):
                if sparse:
                    s.run(train, {g: grads[i][rows[i]], idx: rows[i]})
                else:
                    s.run(train, {g: grads[i]})
                out.append(s.run(var))
    dense = []
    for i in range(steps):
        if sparse:
            d = np.zeros((5, 3))
            d[rows[i]] = grads[i][rows[i]]
            dense.append((d, rows[i]))
        else:
            dense.append((grads[i], np.arange(5)))
    return init, dense, out


def _ref_adamax(init, dense, lr=0.01, b1=0.9, b2=0.999, eps=1e-8):
    var, m, v, out = init.copy(), np.zeros_like(init), np.zeros_like(init), []
    for t, (g, rows) in enumerate(dense, 1):
        m[rows] = b1 * m[rows] + (1 - b1) * g[rows]
        v[rows] = np.maximum(b2 * v[rows], np.abs(g[rows]))
        var[rows] -= lr / (1 - b1 ** t) * m[rows] / (v[rows] + eps)
        out.append(var.copy())
    return out


def _ref_sign(init, dense, scale, lr=0.1, beta=0.9, decay=lambda t: 1.0, sparse=False):
    var, m, out = init.copy(), np.zeros_like(init), []
    for t, (g, rows) in enumerate(dense):
        m = beta * m + (1 - beta) * g  # every row decays (sparse too), as TF's contrib
        agree = decay(t) * np.sign(g) * np.sign(m)
        step = lr * scale(agree) * g
        var[rows] -= step[rows]
        out.append(var.copy())
    return out


@pytest.mark.parametrize("sparse", [False, True])
def test_adamax_matches_numpy(sparse):
    init, dense, got = _train(lambda: tf.contrib.opt.AdaMaxOptimizer(0.01), sparse)
    for a, b in zip(got, _ref_adamax(init, dense)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)  # float32 hyperparameters


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("kind", ["add", "power"])
def test_addsign_powersign_match_numpy(kind, sparse):
    if kind == "add":
        make = lambda: tf.contrib.opt.AddSignOptimizer(0.1, alpha=1.5)
        scale = lambda agree: 1.5 + agree
    else:
        make = lambda: tf.contrib.opt.PowerSignOptimizer(0.1, base=2.0)
        scale = lambda agree: np.exp(math.log(2.0) * agree)
    init, dense, got = _train(make, sparse)
    for a, b in zip(got, _ref_sign(init, dense, scale)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)  # float32 hyperparameters


def test_sign_decay_fn_anneals_the_agreement_term():
    fn = tf.contrib.opt.get_linear_decay_fn(4)
    init, dense, got = _train(
        lambda: tf.contrib.opt.AddSignOptimizer(0.1, sign_decay_fn=fn), False)
    want = _ref_sign(init, dense, lambda agree: 1.0 + agree, decay=lambda t: (4 - t) / 4)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)


def test_sign_decay_schedules():
    step = tf.placeholder(tf.int64, [])
    lin = tf.contrib.opt.get_linear_decay_fn(10)(step)
    cos = tf.contrib.opt.get_cosine_decay_fn(10, num_periods=0.5, zero_after=0.4)(step)
    rst = tf.contrib.opt.get_restart_decay_fn(10, num_periods=2, zero_after=1.5)(step)
    with tf.Session() as s:
        for t in (0, 3, 7, 10, 15):
            tc = min(t, 10)
            got = s.run([lin, cos, rst], {step: t})
            frac = 2 * 0.5 * tc / 10
            want_cos = 0.0 if frac >= 0.8 else 0.5 * (1 + math.cos(math.pi * frac))
            want_rst = 0.0 if 2 * tc / 10 >= 1.5 else \
                0.5 * (1 + math.cos(math.pi * ((2 * tc) % 10) / 10))
            np.testing.assert_allclose(got, [(10 - tc) / 10, want_cos, want_rst], atol=1e-6)
    with pytest.raises(ValueError, match="global_step is required"):
        tf.contrib.opt.get_linear_decay_fn(10)(None)


def test_moving_average_optimizer_swapping_saver_restores_the_averages(tmp_path):
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0], name="w")
        loss = tf.reduce_sum(w * w)
        opt = tf.contrib.opt.MovingAverageOptimizer(tf.train.GradientDescentOptimizer(0.1),
                                                    average_decay=0.5)
        with pytest.raises(RuntimeError, match="before creating the swapping_saver"):
            opt.swapping_saver()
        train = opt.minimize(loss)
        saver = opt.swapping_saver()
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            w_np, avg = np.array([1.0, 2.0]), np.array([1.0, 2.0])
            for _ in range(3):
                s.run(train)
                w_np = w_np - 0.1 * 2 * w_np
                avg = 0.5 * avg + 0.5 * w_np
            np.testing.assert_allclose(s.run(w), w_np, rtol=1e-6)
            path = saver.save(s, str(tmp_path / "model"))
        names = dict(tf.train.list_variables(path))
        assert "w" in names and "w/ExponentialMovingAverage" in names
        np.testing.assert_allclose(tf.train.load_variable(path, "w"), avg, rtol=1e-6)
    with tf.Graph().as_default():
        w = tf.Variable([0.0, 0.0], name="w")
        with tf.Session() as s:
            tf.train.Saver([w]).restore(s, path)
            np.testing.assert_allclose(s.run(w), avg, rtol=1e-6)


def test_contrib_metrics_f1_score_is_the_best_f1_over_the_thresholds():
    rng = np.random.RandomState(3)
    labels = rng.randint(0, 2, 50)
    preds = np.clip(labels * 0.3 + rng.uniform(0, 0.7, 50), 0, 1).astype(np.float32)
    with tf.Graph().as_default():
        lab = tf.placeholder(tf.int64, [None])
        pr = tf.placeholder(tf.float32, [None])
        f1, update = tf.contrib.metrics.f1_score(lab, pr, num_thresholds=50)
        with tf.Session() as s:
            s.run(tf.local_variables_initializer())
            s.run(update, {lab: labels[:20], pr: preds[:20]})
            got_update = s.run(update, {lab: labels[20:], pr: preds[20:]})
            got = s.run(f1)
    eps = 1e-7
    thresholds = [-eps] + [(i + 1) / 49 for i in range(48)] + [1 + eps]
    best = 0.0
    for t in thresholds:
        pos = preds > np.float32(t)
        tp = np.sum(pos & (labels == 1))
        fp = np.sum(pos & (labels == 0))
        fn = np.sum(~pos & (labels == 1))
        p, r = tp / (tp + fp + eps), tp / (tp + fn + eps)
        best = max(best, 2 * p * r / (p + r + eps))
    np.testing.assert_allclose([got, got_update], [best, best], rtol=1e-5)
    assert 0.5 < best < 1.0
