"""Patterns from the sweep of a TF 1.x lab-course repository (linear/logistic/softmax
regression, MNIST NN/CNN, char-RNN with ``tf.contrib.seq2seq.sequence_loss``, input queues).

Each test builds the small graph such a program builds and checks names, shapes and values;
values are checked against NumPy or hand-derived numbers.
"""

import numpy as np

import tideflow as tf


def test_no_nan_ops_take_their_scope_name_once():
    # sequence_loss ends in math_ops.div_no_nan inside its own scope: TF names the op
    # 'sequence_loss/div_no_nan', not 'sequence_loss/div_no_nan/sequence_loss/div_no_nan'.
    with tf.Graph().as_default():
        a = tf.constant([1.0, 2.0])
        b = tf.constant([0.0, 4.0])
        d = tf.div_no_nan(a, b)
        q = tf.math.divide_no_nan(a, b, name="q")
        with tf.name_scope("sequence_loss"):
            inner = tf.div_no_nan(a, b)
        m = tf.math.multiply_no_nan(a, b)
        c = tf.math.cumulative_logsumexp(a)
        qd = tf.quantization.quantize_and_dequantize(a, -1.0, 1.0)
        assert d.name == "div_no_nan:0"
        assert q.name == "q:0"
        assert inner.name == "sequence_loss/div_no_nan:0"
        assert m.op.name.count("/") == 0
        assert c.name == "CumulativeLogsumexp:0"
        assert qd.name == "quantize_and_dequantize:0"
        with tf.Session() as sess:
            dv, mv, cv = sess.run([d, m, c])
        np.testing.assert_array_equal(dv, [0.0, 0.5])
        np.testing.assert_array_equal(mv, [0.0, 8.0])
        np.testing.assert_allclose(cv, np.log(np.cumsum(np.exp([1.0, 2.0]))), rtol=1e-6)


def test_sequence_loss_name_and_value():
    logits_np = np.array([[[1.0, 2.0, 0.5], [0.1, -1.0, 2.0]]], np.float32)
    targets_np = np.array([[1, 2]], np.int32)
    with tf.Graph().as_default():
        logits = tf.constant(logits_np)
        targets = tf.constant(targets_np)
        loss = tf.contrib.seq2seq.sequence_loss(
            logits=logits, targets=targets, weights=tf.ones([1, 2]))
        assert loss.name == "sequence_loss/div_no_nan:0"
        assert loss.shape.as_list() == []
        with tf.Session() as sess:
            got = sess.run(loss)
    z = logits_np[0] - logits_np[0].max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    want = -(logp[0, 1] + logp[1, 2]) / 2
    np.testing.assert_allclose(got, want, rtol=1e-6)
