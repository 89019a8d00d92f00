"""Plan code for the training step: a dying gradient lends its buffer to the update,
Identity and NoOp cost no call, and the results stay those of the plain NumPy update."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.runtime import executor


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def _plan(sess):
    plans = [p for p in sess._plans.values() if p.ops]
    assert len(plans) == 1
    return plans[0]


def _model(shape=(200, 100)):
    rng = np.random.RandomState(0)
    w0 = rng.standard_normal(shape).astype(np.float32)
    x0 = rng.standard_normal((8, shape[0])).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, shape[0]])
    w = tf.Variable(w0)
    loss = tf.reduce_sum(tf.square(tf.matmul(x, w)))
    return x, w, loss, w0, x0


def test_sgd_update_uses_the_dying_gradient_and_matches_numpy():
    x, w, loss, w0, x0 = _model()
    (g,) = tf.gradients(loss, [w])
    train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        expect = w0.copy()
        for _ in range(3):
            grad = sess.run(g, {x: x0})  # a separate plan: the gradient is fetched there
            expect -= np.float32(0.01) * grad
            sess.run(train, {x: x0})
        np.testing.assert_array_equal(sess.run(w), expect)
        plan = next(p for p in sess._plans.values()
                    if any(op.type == "ApplyGradientDescent" for op in p.ops))
        assert "__own__(" in plan.source  # the update was compiled with buffer donation


def test_fetched_gradient_is_not_overwritten_by_the_update():
    x, w, loss, w0, x0 = _model()
    (g,) = tf.gradients(loss, [w])
    update = tf.train.GradientDescentOptimizer(0.5).apply_gradients([(g, w)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        expect = sess.run(g, {x: x0})
        got, _ = sess.run([g, update], {x: x0})
        np.testing.assert_array_equal(got, expect)
        np.testing.assert_array_equal(sess.run(w), w0 - np.float32(0.5) * expect)


def test_gradient_seen_by_another_op_is_not_overwritten():
    x, w, loss, w0, x0 = _model()
    (g,) = tf.gradients(loss, [w])
    update = tf.train.GradientDescentOptimizer(0.5).apply_gradients([(g, w)])
    with tf.control_dependencies([update]):
        norm = tf.reduce_sum(g)  # runs after the update: the update must not scale g
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        expect = sess.run(g, {x: x0})
        total, _ = sess.run([norm, update], {x: x0})
        np.testing.assert_allclose(total, expect.sum(), rtol=1e-5)
        np.testing.assert_array_equal(sess.run(w), w0 - np.float32(0.5) * expect)


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_update_with_donated_gradient_matches_numpy(nesterov):
    x, w, loss, w0, x0 = _model()
    (g,) = tf.gradients(loss, [w])
    train = tf.train.MomentumOptimizer(0.01, 0.9, use_nesterov=nesterov).minimize(loss)
    lr, mom = np.float32(0.01), np.float32(0.9)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        var, accum = w0.copy(), np.zeros_like(w0)
        for _ in range(3):
            grad = sess.run(g, {x: x0})
            accum = accum * mom + grad
            if nesterov:
                var -= grad * lr + accum * mom * lr
            else:
                var -= accum * lr
            sess.run(train, {x: x0})
        np.testing.assert_array_equal(sess.run(w), var)
        plan = next(p for p in sess._plans.values()
                    if any(op.type == "ApplyMomentum" for op in p.ops))
        assert "__own__(" in plan.source


def test_sole_owner_refuses_views_constants_and_shared_arrays():
    a = np.ones(10)
    assert executor._sole_owner(np.ones(10))
    assert not executor._sole_owner(a[2:])  # a view
    b = np.ones(10)
    b.flags.writeable = False
    assert not executor._sole_owner(b)
    keep = [a]
    assert not executor._sole_owner(keep[0])  # another reference holds it
    assert not executor._sole_owner(np.float32(1.0))


def test_identity_and_noop_compile_to_no_call():
    a = tf.placeholder(tf.float32, [None])
    b = tf.identity(a * 2.0)
    with tf.control_dependencies([tf.no_op()]):
        c = tf.identity(b) + 1.0
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(c, {a: [1.0, 2.0]}), [3.0, 5.0])
        src = _plan(sess).source
    body = [ln.strip() for ln in src.splitlines()]
    assert "pass" in body  # the NoOp
    # each Identity is a plain assignment of its input's name
    assert sum(1 for ln in body if ln.count("=") == 1 and ln.split(" = ")[1].isidentifier()
               and ln.split(" = ")[1].startswith("v")) == 2
