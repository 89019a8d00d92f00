"""A fused softmax cross-entropy whose loss no op reads (a train step fetching only the train
op: the Mean's gradient reads the loss's shape alone) runs its kernel without the loss; the
step's results are the same bits as with the loss computed."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.ops import nn_ops
from tideflow.runtime import graph_passes


def _model(sparse, rng):
    x = tf.placeholder(tf.float32, [None, 6])
    y = tf.placeholder(tf.int64 if sparse else tf.float32, [None] if sparse else [None, 10])
    w = tf.Variable(rng.randn(6, 10).astype(np.float32))
    logits = tf.matmul(x, w)
    if sparse:
        xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
    else:
        xent = tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits)
    loss = tf.reduce_mean(xent)
    train = tf.train.GradientDescentOptimizer(0.7).minimize(loss)
    return x, y, w, xent, loss, train


def _feeds(sparse, rng, rows=9):
    xs = (rng.randn(rows, 6) * 3).astype(np.float32)
    if sparse:
        return xs, rng.randint(0, 10, rows)
    ys = rng.rand(rows, 10).astype(np.float32)
    return xs, ys / ys.sum(axis=1, keepdims=True)


def _trajectory(sparse, monkeypatch, lean, steps=6):
    """The weights after each train step, and how often the loss-free kernel ran."""
    ran = []
    with monkeypatch.context() as m:
        if lean:
            name = ("SparseSoftmaxCrossEntropyWithLogits" if sparse
                    else "SoftmaxCrossEntropyWithLogits")
            kernel = nn_ops.UNREAD_LOSS_KERNELS[name]

            def counted(*args):
                ran.append(1)
                return kernel(*args)

            m.setitem(nn_ops.UNREAD_LOSS_KERNELS, name, counted)
        else:
            m.setattr(graph_passes, "_unread_loss_rewrites", lambda *a: None)
        rng = np.random.RandomState(3)
        with tf.Graph().as_default():
            x, y, w, _, loss, train = _model(sparse, rng)
            feeds = [_feeds(sparse, rng) for _ in range(steps)]
            out = []
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for xs, ys in feeds:
                    sess.run(train, {x: xs, y: ys})
                    out.append(sess.run(w))
                last = sess.run(loss, {x: xs, y: ys})
    return out, len(ran), last


@pytest.mark.parametrize("sparse", [True, False])
def test_train_step_without_the_loss_gives_the_same_bits(sparse, monkeypatch):
    lean, ran, lean_loss = _trajectory(sparse, monkeypatch, lean=True)
    full, _, full_loss = _trajectory(sparse, monkeypatch, lean=False)
    assert ran == 6  # each train step; the plan that fetches the loss computes it
    for a, b in zip(lean, full):
        np.testing.assert_array_equal(a.view(np.int32), b.view(np.int32))
    assert lean_loss.view(np.int32) == full_loss.view(np.int32)


@pytest.mark.parametrize("sparse", [True, False])
def test_a_loss_read_in_the_step_is_computed(sparse):
    rng = np.random.RandomState(5)
    with tf.Graph().as_default():
        x, y, w, xent, loss, train = _model(sparse, rng)
        doubled = xent * 2.0
        zeros = tf.zeros_like(xent)  # (a shape reader: the loss-free kernel serves it)
        xs, ys = _feeds(sparse, rng)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want = sess.run(xent, {x: xs, y: ys})
            _, got_doubled, got_zeros = sess.run([train, doubled, zeros], {x: xs, y: ys})
            np.testing.assert_array_equal(got_doubled, want * 2)
            np.testing.assert_array_equal(got_zeros, np.zeros(9, np.float32))
            # the loss inside the step through a control dependency's reader
            with tf.control_dependencies([tf.identity(loss)]):
                step = tf.no_op()
            sess.run(step, {x: xs, y: ys})
            before = sess.run(w)
            sess.run(train, {x: xs, y: ys})
            assert not np.array_equal(before, sess.run(w))


def test_a_loss_fetched_through_reshapes_is_computed():
    rng = np.random.RandomState(1)
    with tf.Graph().as_default():
        x, y, _, xent, _, train = _model(True, rng)
        through = tf.reshape(tf.identity(tf.expand_dims(xent, 1)), [-1])
        xs, ys = _feeds(True, rng)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want = sess.run(xent, {x: xs, y: ys})
            _, got = sess.run([train, through], {x: xs, y: ys})
            np.testing.assert_array_equal(got, want)
