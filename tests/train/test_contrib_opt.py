"""tf.contrib.opt optimizers against NumPy re-implementations, dense and sparse."""

import numpy as np
import pytest

import tideflow as tf

opt = tf.contrib.opt
LR, B1, B2, EPS = 0.1, 0.9, 0.999, 1e-8


def _f32(x):
    return float(np.float32(x))


def _adam_ref(var, grads, nesterov=False, decay=0.0):
    # hyperparameters are float32 tensors cast to the variable's dtype, as in TF
    # the weight decay multiplies as the Python number it was given (TF 1.15: a float64
    # constant for float64 variables), the rest as float32 constants cast to float64
    lr_, b1, b2, eps = _f32(LR), _f32(B1), _f32(B2), _f32(EPS)
    m = np.zeros_like(var)
    v = np.zeros_like(var)
    out = var.copy()
    # the beta powers are float32 variables (made from Python floats), as in TF
    b1p, b2p = np.float32(B1), np.float32(B2)
    for g in grads:
        out = out - decay * out
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        lr = lr_ * np.sqrt(1 - np.float64(b2p)) / (1 - np.float64(b1p))
        b1p, b2p = b1p * np.float32(B1), b2p * np.float32(B2)
        step = (b1 * m + (1 - b1) * g) if nesterov else m
        out = out - lr * step / (np.sqrt(v) + eps)
    return out


def _run_steps(make_opt, x0, target, steps=3, sparse=False):
    x = tf.Variable(x0)
    if sparse:
        rows = tf.gather(x, [0, 2])
        loss = tf.reduce_sum(tf.square(rows - target[[0, 2]]))
    else:
        loss = tf.reduce_sum(tf.square(x - target))
    train = make_opt().minimize(loss)
    grads = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(steps):
            value = sess.run(x)
            g = 2 * (value - target)
            if sparse:
                g[[1, 3]] = 0.0
            grads.append(g)
            sess.run(train)
        final = sess.run(x)
    tf.reset_default_graph()
    return final, grads


X0 = np.array([[1.0, -1.0], [0.5, 2.0], [-2.0, 0.0], [3.0, 1.0]])
TARGET = np.array([[0.0, 1.0], [1.0, 1.0], [-1.0, 2.0], [2.0, 0.0]])


def test_lazy_adam_dense_is_adam_and_sparse_touches_only_rows():
    got, grads = _run_steps(lambda: opt.LazyAdamOptimizer(LR), X0, TARGET)
    np.testing.assert_allclose(got, _adam_ref(X0, grads), rtol=1e-12)
    got, grads = _run_steps(lambda: opt.LazyAdamOptimizer(LR), X0, TARGET, sparse=True)
    rows = [0, 2]
    np.testing.assert_allclose(got[rows], _adam_ref(X0[rows], [g[rows] for g in grads]),
                               rtol=1e-12)
    np.testing.assert_array_equal(got[[1, 3]], X0[[1, 3]])


def test_nadam_dense_and_sparse():
    got, grads = _run_steps(lambda: opt.NadamOptimizer(LR), X0, TARGET)
    np.testing.assert_allclose(got, _adam_ref(X0, grads, nesterov=True), rtol=1e-12)
    got, grads = _run_steps(lambda: opt.NadamOptimizer(LR), X0, TARGET, sparse=True)
    # non-lazy: every row's moments decay; untouched rows have zero gradient
    np.testing.assert_allclose(got, _adam_ref(X0, grads, nesterov=True), rtol=1e-12)


def test_adamw_and_momentumw_decay_before_the_update():
    got, grads = _run_steps(lambda: opt.AdamWOptimizer(0.01, learning_rate=LR), X0, TARGET)
    np.testing.assert_allclose(got, _adam_ref(X0, grads, decay=0.01), rtol=1e-12)
    got, grads = _run_steps(lambda: opt.MomentumWOptimizer(0.05, 0.1, 0.9), X0, TARGET)
    ref, acc = X0.copy(), np.zeros_like(X0)
    for g in grads:
        ref = ref - 0.05 * ref
        acc = _f32(0.9) * acc + g
        ref = ref - _f32(0.1) * acc
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    got, grads = _run_steps(lambda: opt.AdamWOptimizer(0.01, learning_rate=LR), X0, TARGET,
                            sparse=True)
    rows = [0, 2]
    # Adam (not lazy) on every row, the decay on the gradient's rows only
    ref = _adam_ref(X0, grads)
    ref_rows = _adam_ref(X0[rows], [g[rows] for g in grads], decay=0.01)
    np.testing.assert_allclose(got[rows], ref_rows, rtol=1e-12)
    np.testing.assert_allclose(got[[1, 3]], ref[[1, 3]], rtol=1e-12)


def test_decay_var_list_and_extend():
    a = tf.Variable([1.0, 2.0])
    b = tf.Variable([3.0])
    loss = tf.reduce_sum(a * 0.0) + tf.reduce_sum(b * 0.0)
    cls = opt.extend_with_decoupled_weight_decay(tf.train.GradientDescentOptimizer)
    train = cls(0.5, learning_rate=0.1).minimize(loss, decay_var_list=[a])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        got_a, got_b = sess.run([a, b])
    np.testing.assert_allclose(got_a, [0.5, 1.0])
    # TF 1.15 decays b too: minimize's apply_gradients call resets the list to "all"
    # (TF 1.15 printed [1.5])
    np.testing.assert_allclose(got_b, [1.5])
    tf.reset_default_graph()


def test_scipy_optimizer_interface_with_bounds():
    pytest.importorskip("scipy")
    x = tf.Variable([5.0, -3.0], dtype=tf.float64)
    loss = tf.reduce_sum(tf.square(x - [1.0, 2.0]))
    seen = []
    iface = opt.ScipyOptimizerInterface(loss, var_to_bounds={x: ([-10.0, -10.0], [10.0, 1.5])},
                                        options={"maxiter": 100})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        iface.minimize(sess, fetches=[loss], loss_callback=seen.append)
        got = sess.run(x)
    np.testing.assert_allclose(got, [1.0, 1.5], atol=1e-6)
    assert seen and seen[-1] == pytest.approx(0.25, abs=1e-6)
    tf.reset_default_graph()
