"""TF 1.x-style programs (written here) exercising behaviour found while running tutorial and
reinforcement-learning programs of the MorvanZhou repositories under tideflow."""

import numpy as np

import tideflow as tf


def test_legacy_sequence_loss_custom_positional_loss_function():
    # A TF 1.0-era loss function whose parameters are named neither labels nor logits is
    # called positionally as (logits, labels); a keyword one is called with keywords.
    calls = []

    def ms_error(y_pre, y_target):
        calls.append("positional")
        return tf.square(tf.subtract(y_pre, y_target))

    def kw_error(labels, logits):
        calls.append("keyword")
        return tf.abs(labels - logits)

    rng = np.random.RandomState(0)
    pred = rng.randn(12).astype(np.float32)
    target = rng.randn(12).astype(np.float32)
    w = np.linspace(0.5, 1.5, 12).astype(np.float32)
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [12])
        t = tf.placeholder(tf.float32, [12])
        args = ([p], [t], [tf.constant(w)])
        sq = tf.contrib.legacy_seq2seq.sequence_loss_by_example(
            *args, average_across_timesteps=True, softmax_loss_function=ms_error)
        ab = tf.contrib.legacy_seq2seq.sequence_loss_by_example(
            *args, average_across_timesteps=False, softmax_loss_function=kw_error)
        with tf.Session() as sess:
            got_sq, got_ab = sess.run([sq, ab], {p: pred, t: target})
    assert calls == ["positional", "keyword"]
    np.testing.assert_allclose(got_sq, (pred - target) ** 2 * w / (w + 1e-12), rtol=1e-5)
    np.testing.assert_allclose(got_ab, np.abs(pred - target) * w, rtol=1e-5)
