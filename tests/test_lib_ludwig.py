"""Differences found by running Uber's Ludwig 0.2 (declarative models on TF 1.x graph mode)
against tideflow, each reduced to the plain TF 1.x calls the library makes."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ----------------------------------------------------------------------------------------
# a variable scope's regularizer, for variables first made inside a loop body
# ----------------------------------------------------------------------------------------


def _half_sq(w):
    return 0.5 * tf.reduce_sum(tf.square(w))


def test_scope_regularizer_loss_made_in_while_body_is_usable_outside():
    def body(i, acc):
        with tf.variable_scope("blk", regularizer=_half_sq, reuse=tf.AUTO_REUSE):
            w = tf.get_variable("w", [3], initializer=tf.constant_initializer(2.0))
        return i + 1, acc + tf.reduce_sum(w)

    _, acc = tf.while_loop(lambda i, a: i < 4, body, [tf.constant(0), tf.constant(0.0)])
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert [t.name for t in losses] == ["blk/w/Regularizer/mul:0"]
    assert losses[0].op.control_inputs == []
    total = tf.add_n(losses)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run([total, acc]) == pytest.approx([6.0, 24.0])


def test_scope_regularizer_on_dynamic_rnn_multi_cell():
    x = tf.placeholder(tf.float32, [None, 4, 2])
    with tf.variable_scope("enc", regularizer=_half_sq):
        cells = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicRNNCell(3) for _ in range(2)])
        out, _ = tf.nn.dynamic_rnn(cells, x, dtype=tf.float32)
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert len(losses) == 4  # kernel and bias of both cells
    loss = tf.reduce_mean(out) + tf.add_n(losses)
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    weights = tf.trainable_variables()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        ws = sess.run(weights)
        want = sum(0.5 * np.sum(np.square(w)) for w in ws)
        assert sess.run(tf.add_n(losses)) == pytest.approx(want, rel=1e-5)
        sess.run(step, {x: np.ones((2, 4, 2), np.float32)})
