"""tf.metrics with weights and labels whose shapes are known only when the step runs: TF 1.x's
squeezing of a trailing unit dimension then, the weights-broadcast check (ValueError from static
shapes, InvalidArgumentError from an Assert otherwise, with TF's message), and mean_iou's class
bounds."""

import numpy as np
import pytest

import tideflow as tf

PREFIX = "weights can not be broadcast to values"


def _run(metric_fn, feeds=None, steps=1):
    with tf.Session() as sess:
        value, update = metric_fn
        sess.run(tf.local_variables_initializer())
        for _ in range(steps):
            sess.run(update, feeds)
        return sess.run(value, feeds)


def test_dynamically_shaped_weights_are_squeezed_to_the_predictions():
    # labels [3, 1], predictions [3], weights fed as [3, 1] through a placeholder of unknown
    # shape: the weights lose their unit dimension, so the heavy first (correct) row dominates
    predictions = tf.constant([1, 1, 1])
    labels = tf.expand_dims(tf.constant([1, 0, 0]), 1)
    w = tf.placeholder(tf.int32, name="weights")
    acc = _run(tf.metrics.accuracy(labels, predictions, w), {w: [[100], [1], [1]]})
    np.testing.assert_allclose(acc, 100 / 102, rtol=1e-6)


@pytest.mark.parametrize("wshape", [None, [None], [None, 1]])
@pytest.mark.parametrize("lshape", [None, [None], [None, 1]])
def test_unknown_ranks_give_numpy_accuracy(lshape, wshape):
    rng = np.random.RandomState(3)
    lab, pred = rng.randint(0, 3, 8), rng.randint(0, 3, 8)
    w = rng.rand(8).astype(np.float32)
    feed_l = lab[:, None] if lshape == [None, 1] else lab
    feed_w = w[:, None] if wshape == [None, 1] else w
    lp = tf.placeholder(tf.int64, lshape)
    pp = tf.placeholder(tf.int64, None)
    wp = tf.placeholder(tf.float32, wshape)
    acc = _run(tf.metrics.accuracy(lp, pp, wp), {lp: feed_l, pp: pred, wp: feed_w})
    np.testing.assert_allclose(acc, np.sum(w * (lab == pred)) / np.sum(w), rtol=1e-5)


def test_invalid_weights_static_and_dynamic():
    values = np.arange(24, dtype=np.float64).reshape(3, 2, 4, 1)
    for bad in [(1,), (3, 2), (4, 2, 4, 1), (3, 3, 4, 1), (3, 2, 4, 2)]:
        with pytest.raises(ValueError, match=PREFIX):
            tf.metrics.mean(values, np.ones(bad) if len(bad) == 4 else bad)
        tf.reset_default_graph()
        ph = tf.placeholder(tf.float32)
        weights = np.ones(bad, np.float32) if len(bad) == 4 else np.array(bad, np.float32)
        with pytest.raises(tf.errors.InvalidArgumentError, match=PREFIX):
            _run(tf.metrics.mean(ph, weights), {ph: values})
        tf.reset_default_graph()


def test_valid_weights_through_unknown_shapes_match_numpy():
    values = np.arange(24, dtype=np.float32).reshape(3, 2, 4, 1)
    w = np.random.RandomState(0).rand(3, 1, 4, 1).astype(np.float32)
    ph = tf.placeholder(tf.float32)
    got = _run(tf.metrics.mean(ph, w), {ph: values})
    want = np.sum(values * w) / np.sum(np.broadcast_to(w, values.shape))
    np.testing.assert_allclose(got, want, rtol=1e-5)


@pytest.mark.parametrize("labels, predictions, what, static", [
    ([0, 1, 5], [0, 1, 1], "`labels` out of bound", False),
    ([0, 1, 2], [0, 1, 3], "`predictions` out of bound", False),
    ([0, -1, 2], [0, 1, 1], "`labels` contains negative values", True),
])
def test_mean_iou_checks_class_bounds(labels, predictions, what, static):
    # TF 1.15: constant labels fail as the graph is built where its static assert sees them
    # (the negative check); the bound checks read them through an Identity: at run time
    if static:
        with pytest.raises(tf.errors.InvalidArgumentError, match=what):
            tf.metrics.mean_iou(tf.constant(labels), tf.constant(predictions), num_classes=3)
    else:
        _, update = tf.metrics.mean_iou(tf.constant(labels), tf.constant(predictions),
                                        num_classes=3)
        with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError, match=what):
            s.run(tf.local_variables_initializer())
            s.run(update)
    lp, pp = tf.placeholder(tf.int32, [None]), tf.placeholder(tf.int32, [None])
    metric = tf.metrics.mean_iou(lp, pp, num_classes=3)
    with pytest.raises(tf.errors.InvalidArgumentError, match=what):
        _run(metric, {lp: labels, pp: predictions})


def test_mean_iou_in_bounds_matches_numpy():
    lab = np.array([0, 1, 2, 2, 1, 0])
    pred = np.array([0, 2, 2, 1, 1, 0])
    got = _run(tf.metrics.mean_iou(tf.constant(lab), tf.constant(pred), num_classes=3))
    cm = np.zeros((3, 3))
    np.add.at(cm, (lab, pred), 1)
    iou = np.diag(cm) / (cm.sum(0) + cm.sum(1) - np.diag(cm))
    np.testing.assert_allclose(got, iou.mean(), rtol=1e-6)
