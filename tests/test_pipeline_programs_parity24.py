"""Input pipelines, queues and sequence models written as TF 1.x users write them: the
differences a sweep of small programs found against TF 1.15, each pinned to the numbers and
words TF 1.15 gave (measured with TF 1.15 on CPU)."""

import numpy as np

import tideflow as tf


def test_ctc_loss_all_blank_label_row_scores_as_tf():
    # A label row holding only the blank class (or any class >= num_classes - 1) is an empty
    # target. TF 1.15's beta recursion seeds (U'-2, T-1), which for U' = 1 is (0, T-2): the row
    # scores -log(p_0 .. p_{T-2} * (1 + p_{T-1})) over the blank's probabilities, and the last
    # step's blank gradient is p - p / (1 + p). Measured in TF 1.15.
    logits = tf.constant(np.random.RandomState(5).randn(6, 2, 4).astype(np.float32))
    seq_len = tf.constant([6, 4])
    labels = tf.SparseTensor(indices=[[0, 0], [1, 0]], values=tf.constant([1, 3], tf.int32),
                             dense_shape=[2, 1])
    loss = tf.nn.ctc_loss(labels, logits, seq_len)
    grad = tf.gradients(loss, logits)[0]
    with tf.Session() as s:
        lv, gv = s.run([loss, grad])
    np.testing.assert_allclose(lv, [6.1765842, 5.3378267], rtol=1e-6)
    np.testing.assert_allclose(gv[3, 1], [0.2160, 0.1937, 0.4758, 0.0118], atol=1e-4)
    np.testing.assert_allclose(gv[2, 1], [0.2002, 0.2266, 0.2232, -0.6501], atol=1e-4)
    assert not gv[4:, 1].any()


def test_ctc_loss_empty_targets_merge_repeated_and_mixed_rows():
    # rows: [2] (the blank: an empty target) over 5 steps and over 2; [5] (above the blank:
    # empty) over 2 steps; [0, 2] (ends at the blank) over 3 steps. Measured in TF 1.15.
    logits = tf.constant(np.random.RandomState(5).randn(5, 4, 3).astype(np.float32))
    labels = tf.SparseTensor(indices=[[0, 0], [1, 0], [2, 0], [3, 0], [3, 1]],
                             values=tf.constant([2, 2, 5, 0, 2], tf.int32), dense_shape=[4, 2])
    # (the two-step empty row's 'probability' passes 1: TF's loss is negative there)
    want = {True: [5.8733, -0.164, 0.444, 1.2346], False: [5.8733, -0.164, 0.444, 1.7294]}
    with tf.Session() as s:
        for merge, expect in want.items():
            loss = tf.nn.ctc_loss(labels, logits, tf.constant([5, 2, 2, 3]),
                                  ctc_merge_repeated=merge, ignore_longer_outputs_than_inputs=True)
            lv, gv = s.run([loss, tf.gradients(loss, logits)[0]])
            np.testing.assert_allclose(lv, expect, atol=1e-4)
            np.testing.assert_allclose(gv[1, 2], [0.0882, 0.7618, 0.0196], atol=1e-4)
            np.testing.assert_allclose(gv[0, 2], [0.1863, 0.2559, -0.4422], atol=1e-4)
