"""The plan's log-softmax rewrite (TF's arithmetic optimizer): Log(Softmax(x)) runs as
LogSoftmax(x) when the Log is the Softmax's only consumer in the step, so a hand-written
cross-entropy evaluated alone stays finite where the softmax underflows; with the gradients
(or the softmax itself) in the same step the plain ops run, as in TF."""
import numpy as np
import pytest

import tideflow as tf

XV = np.array([[1.0, 2.0, 3.0], [3.0, 0.0, 0.0]], np.float32)
YV = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], np.float32)
# logits 100*x: row 0 takes class 0 (100 below the max 300), row 1 class 1 (300 below)
WANT = (200.0 + 300.0) / 2


@pytest.fixture
def model():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.placeholder(tf.float32, [None, 3])
        w = tf.Variable(np.eye(3, dtype=np.float32))
        h = tf.nn.softmax(tf.matmul(x, w) * 100.0)
        log_h = tf.log(h)
        cost = tf.reduce_mean(-tf.reduce_sum(y * log_h, axis=1))
        yield g, x, y, w, h, log_h, cost


def _run(sess, fetches, x, y):
    return sess.run(fetches, {x: XV, y: YV})


def test_cost_alone_is_finite_and_exact(model):
    g, x, y, w, _h, log_h, cost = model
    with tf.Session(graph=g) as sess:
        sess.run(tf.variables_initializer([w]))
        np.testing.assert_allclose(_run(sess, cost, x, y), WANT, rtol=1e-6)
        lv = _run(sess, log_h, x, y)  # the Log fetched itself: still the log-softmax
        np.testing.assert_allclose(lv, [[-200.0, -100.0, 0.0], [0.0, -300.0, -300.0]],
                                   rtol=1e-6)
    assert [op.type for op in g.get_operations()].count("LogSoftmax") == 0  # graph untouched


def test_softmax_fetched_or_read_by_gradients_keeps_the_plain_ops(model):
    g, x, y, w, h, _log_h, cost = model
    with g.as_default():
        train = tf.train.GradientDescentOptimizer(0.1).minimize(cost)
    with tf.Session(graph=g) as sess:
        sess.run(tf.variables_initializer([w]))
        c, hv = _run(sess, [cost, h], x, y)
        assert np.isnan(c) and hv[0, 0] == 0.0  # exp(-200) underflows: log(0) * 0
        c, _ = _run(sess, [cost, train], x, y)
        assert np.isnan(c)


def test_merged_duplicate_logs_are_rewritten_and_constants_fold_plainly():
    # the two Logs of one Softmax merge (CSE) into one consumer first, as TF's optimizer
    # order does; an all-constant softmax folds with the plain kernels (log(0) = -inf)
    with tf.Graph().as_default():
        z = tf.placeholder(tf.float32, [1, 2])
        sm = tf.nn.softmax(z * 1.0)
        twice = tf.log(sm) + tf.log(sm)
        shared = tf.nn.softmax(z * 2.0)
        two_consumers = tf.log(shared) + tf.sqrt(shared)
        folded = tf.log(tf.nn.softmax(tf.constant([[0.0, 200.0]]) * 3.0))
        with tf.Session() as sess:
            tv, cv, fv = sess.run([twice, two_consumers, folded], {z: [[0.0, 200.0]]})
    np.testing.assert_allclose(tv, [[-400.0, 0.0]])
    assert np.isneginf(cv[0, 0]) and np.isneginf(fv[0, 0])


def test_rewrite_inside_a_cond_branch():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.bool, [])
        z = tf.placeholder(tf.float32, [2])
        out = tf.cond(p, lambda: tf.reduce_sum(tf.log(tf.nn.softmax(z * 100.0))),
                      lambda: tf.constant(0.0))
        with tf.Session() as sess:
            v = sess.run(out, {p: True, z: [0.0, 3.0]})
    np.testing.assert_allclose(v, -300.0, rtol=1e-6)
