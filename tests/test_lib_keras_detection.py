"""What running the detection libraries keras-retinanet (0.5.1) and Mask R-CNN (mrcnn 0.2) on
standalone Keras 2.2.4 needed, pinned with the plain TF 1.x calls they make."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ------------------------------------------------------------------------------------------
# sparse softmax cross entropy: partially known shapes are left to run time
# ------------------------------------------------------------------------------------------

def test_sparse_xent_partially_known_label_shape_builds():
    # a Lambda layer infers its output shape from placeholders of the declared shapes, which may
    # disagree with the logits' where a dimension is unknown: TF checks only fully known shapes
    labels = tf.placeholder(tf.int64, (None, 1))
    logits = tf.placeholder(tf.float32, (None, 5, 3))
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    assert loss.shape.as_list() == [None, 1]
    assert loss.dtype == tf.float32


def test_sparse_xent_partially_known_runs_when_the_rows_agree():
    labels = tf.placeholder(tf.int32, (None, 4))
    logits = tf.placeholder(tf.float32, (2, None, 3))
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    assert loss.shape.as_list() == [None, 4]
    lg = np.arange(24, dtype=np.float32).reshape(2, 4, 3) / 7.0
    lb = np.array([[0, 1, 2, 0], [2, 2, 1, 0]])
    with tf.Session() as sess:
        out = sess.run(loss, {labels: lb, logits: lg})
    shifted = lg - lg.max(-1, keepdims=True)
    ref = np.log(np.exp(shifted).sum(-1)) - np.take_along_axis(shifted, lb[..., None], -1)[..., 0]
    np.testing.assert_allclose(out, ref, rtol=1e-5)


def test_sparse_xent_row_count_mismatch_fails_at_run_time():
    labels = tf.placeholder(tf.int64, (None, 1))
    logits = tf.placeholder(tf.float32, (None, 5, 3))
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError):
        sess.run(loss, {labels: np.zeros((2, 1)), logits: np.zeros((2, 5, 3))})


def test_sparse_xent_fully_known_mismatch_still_raises():
    with pytest.raises(ValueError, match="Shape mismatch"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.zeros((2, 1), tf.int64),
                                                       logits=tf.zeros((2, 5, 3)))
    with pytest.raises(ValueError, match="Rank mismatch"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.placeholder(tf.int64, (None,)),
                                                       logits=tf.placeholder(tf.float32,
                                                                             (None, 5, 3)))


# ------------------------------------------------------------------------------------------
# plan building: the lanes pre-check on big graphs (Mask R-CNN's training step, ~13k ops)
# ------------------------------------------------------------------------------------------

def test_expensive_independent_chain_fork_and_control_edges():
    from tideflow.runtime import cost_model

    a = tf.placeholder(tf.float32, (200, 200))
    m1 = tf.matmul(a, a)
    m2 = tf.matmul(m1, a)
    m3 = tf.matmul(tf.nn.relu(m2), a)  # a chain through a cheap op: always ordered
    g = tf.get_default_graph()
    assert not cost_model.expensive_independent(g.get_operations())
    m4 = tf.matmul(m1, m1)  # after m1, beside m2 and m3
    assert cost_model.expensive_independent(g.get_operations())
    with tf.control_dependencies([m3]):
        m5 = tf.matmul(m2, a)
    ops = [op for op in g.get_operations() if op is not m4.op]
    assert m5.op in ops
    assert not cost_model.expensive_independent(ops)
    assert not cost_model.expensive_independent([m1.op])
