"""tf.metrics and the estimator's numpy/pandas input functions build TF 1.15's op sequence.

TF 1.15 seeds a random op without an op seed from the number of ops made before it, so every
metric must leave the graph with TF's op count (names too, where the ops are the same) for the
random ops after it to draw TF's numbers. The expected seeds, names and values below are what
real TF 1.15 printed for the same programs.
"""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def graph():
    with tf.Graph().as_default() as g:
        tf.set_random_seed(1)
        yield g


def _labels():
    return tf.constant([0, 1, 1, 0])


def _scores():
    return tf.constant([0.1, 0.8, 0.6, 0.3])


def _bools():
    return tf.constant([False, True, True, False]), tf.constant([False, True, False, True])


# (metric call, TF 1.15's seed2 of a random_normal made right after it, names TF makes)
_CASES = {
    "auc": (lambda: tf.metrics.auc(_labels(), _scores()), 174,
            ["auc/Cast/x", "auc/Cast_1/x", "auc/Cast_2", "auc/stack", "auc/Tile_2",
             "auc/LogicalNot_1", "auc/add_4", "auc/div_1", "auc/truediv", "auc/value",
             "auc/update_op"]),
    "auc_pr_careful": (
        lambda: tf.metrics.auc(_labels(), _scores(), curve="PR",
                               summation_method="careful_interpolation"), 272,
        ["auc/prec_slope", "auc/recall_relative_ratio", "auc/pr_auc_increment",
         "auc/interpolate_pr_auc", "auc/interpolate_pr_auc_1"]),
    "auc_weighted_minoring": (
        lambda: tf.metrics.auc(_labels(), _scores(), weights=tf.constant([1., 2., 1., 1.]),
                               summation_method="minoring"), 179,
        ["auc/Reshape_2", "auc/Tile_3", "auc/mul", "auc/Minimum", "auc/value"]),
    "auc_placeholders": (
        lambda: tf.metrics.auc(tf.placeholder(tf.float32, [None, 1]),
                               tf.placeholder(tf.float32, [None, 1])), 180, ["auc/value"]),
    "precision": (lambda: tf.metrics.precision(*_bools()), 49,
                  ["precision/true_positives/Equal/y", "precision/true_positives/Equal_1",
                   "precision/true_positives/assert_type/statically_determined_correct_type",
                   "precision/true_positives/Identity", "precision/Greater",
                   "precision/value/e", "precision/value", "precision/update_op"]),
    "recall_weighted": (
        lambda: tf.metrics.recall(*_bools(), weights=tf.constant([1., 2., 1., 1.])), 64,
        ["recall/true_positives/Rank", "recall/true_positives/assert_rank_in/rank",
         "recall/true_positives/assert_rank_in/Shape",
         "recall/true_positives/assert_rank_in/static_checks_determined_all_ok",
         "recall/true_positives/Mul", "recall/div_1", "recall/update_op"]),
    "precision_at_thresholds": (
        lambda: tf.metrics.precision_at_thresholds(_labels(), _scores(), [0.5, 0.7]), 97,
        ["precision_at_thresholds/add/x", "precision_at_thresholds/precision_value",
         "precision_at_thresholds/precision_update_op"]),
    "recall_at_thresholds": (
        lambda: tf.metrics.recall_at_thresholds(_labels(), _scores(), [0.5, 0.7]), 97,
        ["recall_at_thresholds/recall_value"]),
    "false_negatives": (lambda: tf.metrics.false_negatives(*_bools()), 20,
                        ["false_negatives/Equal_1/y", "false_negatives/LogicalAnd"]),
    "false_positives": (lambda: tf.metrics.false_positives(*_bools()), 20, []),
    "true_positives": (lambda: tf.metrics.true_positives(*_bools()), 20, []),
    "true_negatives": (lambda: tf.metrics.true_negatives(*_bools()), 20, []),
    "false_negatives_at_thresholds": (
        lambda: tf.metrics.false_negatives_at_thresholds(_labels(), _scores(), [0.5]), 81,
        ["false_negatives/false_negatives", "false_negatives/Identity"]),
    "false_positives_at_thresholds": (
        lambda: tf.metrics.false_positives_at_thresholds(_labels(), _scores(), [0.5]), 81, []),
    "true_positives_at_thresholds": (
        lambda: tf.metrics.true_positives_at_thresholds(_labels(), _scores(), [0.5]), 80, []),
    "true_negatives_at_thresholds": (
        lambda: tf.metrics.true_negatives_at_thresholds(_labels(), _scores(), [0.5]), 82, []),
    "sensitivity_at_specificity": (
        lambda: tf.metrics.sensitivity_at_specificity(_labels(), _scores(), 0.5), 172,
        ["sensitivity_at_specificity/ArgMin_1", "sensitivity_at_specificity/strided_slice_5",
         "sensitivity_at_specificity/update_op"]),
    "specificity_at_sensitivity": (
        lambda: tf.metrics.specificity_at_sensitivity(_labels(), _scores(), 0.5), 190,
        ["specificity_at_sensitivity/update_op"]),
    "mean_absolute_error": (
        lambda: tf.metrics.mean_absolute_error(tf.constant([1., 2., 3.]),
                                               tf.constant([1.5, 2., 2.])), 27, ["sub", "Abs"]),
    "mean_squared_error_weighted": (
        lambda: tf.metrics.mean_squared_error(tf.constant([1., 2., 3.]),
                                              tf.constant([1.5, 2., 2.]),
                                              weights=tf.constant([1., 2., 1.])), 28, []),
    "accuracy": (lambda: tf.metrics.accuracy(_labels(), tf.constant([0, 1, 0, 0])), 27, []),
    "mean_weighted": (lambda: tf.metrics.mean(tf.constant([1., 2., 3.]),
                                              weights=tf.constant([1., 0., 2.])), 26, []),
    "percentage_below": (lambda: tf.metrics.percentage_below(tf.constant([1., 2., 3.]), 2.5),
                         27, []),
}


def _random_after(g, make):
    make()
    ops_before = {op.name for op in g.get_operations()}
    r = tf.random_normal([3])
    return r, ops_before


@pytest.mark.parametrize("case", sorted(_CASES))
def test_metric_leaves_tf_op_count_and_names(graph, case):
    make, seed2, names = _CASES[case]
    _, names_made = _random_after(graph, make)
    rng = graph.get_operation_by_name("random_normal/RandomStandardNormal")
    assert rng.get_attr("seed2") == seed2
    for name in names:
        assert name in names_made, name


def test_auc_then_seeded_random_draws_tf_numbers(graph):
    _, update = tf.metrics.auc(_labels(), _scores())
    r = tf.random_normal([3])
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        np.testing.assert_allclose(sess.run(update), 1.0, atol=1e-5)
        np.testing.assert_allclose(sess.run(r), [0.89020, -0.42083, -1.41088], atol=1e-4)


def test_specificity_at_sensitivity_grid_ends_below_one(graph):
    # TF 1.15's last threshold for this metric is 1 - 1e-7: a score of exactly 1 is above it
    _, update = tf.metrics.specificity_at_sensitivity(
        tf.constant([1, 0, 0]), tf.constant([1.0, 1.0, 0.2]), 0.0, num_thresholds=3)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        np.testing.assert_allclose(sess.run(update), 0.5, atol=1e-6)


def test_count_metrics_keep_values(graph):
    labels, preds = _bools()
    w = tf.constant([1., 2., 1., 1.])
    got = [tf.metrics.true_positives(labels, preds, w)[1],
           tf.metrics.false_positives(labels, preds, w)[1],
           tf.metrics.true_negatives(labels, preds)[1],
           tf.metrics.false_negatives(labels, preds)[1],
           tf.metrics.precision(labels, preds)[1],
           tf.metrics.recall(labels, preds, weights=w)[1]]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        np.testing.assert_allclose(sess.run(got), [2., 1., 1., 1., 0.5, 2. / 3.], rtol=1e-6)
