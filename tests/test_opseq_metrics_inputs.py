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


def _class_scores():
    return tf.constant([[0.1, 0.5, 0.4], [0.3, 0.3, 0.4]])


def _sparse_labels():
    return tf.SparseTensor([[0, 0], [1, 0], [1, 1]], tf.constant([1, 2, 0], tf.int64), [2, 2])


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
    "mean_iou": (lambda: tf.metrics.mean_iou(tf.constant([0, 1, 2, 1]),
                                             tf.constant([0, 1, 1, 1]), 3), 144,
                 ["mean_iou/Cast_2/x", "mean_iou/confusion_matrix/control_dependency_3",
                  "mean_iou/confusion_matrix/SparseTensorDenseAdd", "mean_iou/DiagPart",
                  "mean_iou/mean_iou", "mean_iou/Select_1/e", "mean_iou/Select_1"]),
    "mean_iou_weighted_rank2": (
        lambda: tf.metrics.mean_iou(tf.constant([[0, 1], [2, 1]]), tf.constant([[0, 1], [1, 1]]),
                                    3, weights=tf.constant([[1., 2.], [0.5, 1.]])), 149, []),
    "precision_unknown_ranks": (
        lambda: tf.metrics.precision(tf.placeholder(tf.bool), tf.placeholder(tf.bool)), 124,
        ["precision/remove_squeezable_dimensions/Rank_1",
         "precision/remove_squeezable_dimensions/Equal/x",
         "precision/remove_squeezable_dimensions/Equal_1"]),
    "auc_weighted_columns": (
        lambda: tf.metrics.auc(tf.constant([[0], [1], [1], [0]]),
                               tf.constant([[0.1], [0.8], [0.6], [0.3]]),
                               weights=tf.constant([1., 2., 1., 1.])), 185, []),
    "auc_float64_pr_majoring": (
        lambda: tf.metrics.auc(_labels(), _scores(), curve="PR", summation_method="majoring",
                               thresholds=[0.25, 0.5, 0.75]), 174, ["auc/Maximum"]),
    "recall_scalar_weight": (
        lambda: tf.metrics.recall(tf.constant([0., 1., 1., 0.]), tf.constant([1., 1., 0., 0.]),
                                  weights=2.0), 66, []),
    "mean_relative_error": (
        lambda: tf.metrics.mean_relative_error(tf.constant([1., 2., 3.]),
                                               tf.constant([1.5, 2., 2.]),
                                               normalizer=tf.constant([1., 2., 0.])), 33,
        ["zeros_like", "div"]),
    "mean_cosine_distance": (
        lambda: tf.metrics.mean_cosine_distance(tf.constant([[1., 0.], [0., 1.]]),
                                                tf.constant([[1., 0.], [1., 0.]]), dim=1), 32,
        []),
    "confusion_matrix": (
        lambda: tf.confusion_matrix(tf.constant([0, 1, 2, 1]), tf.constant([0, 1, 1, 1]),
                                    num_classes=3, dtype=tf.float64), 110,
        ["confusion_matrix/Cast_3", "confusion_matrix/zeros",
         "confusion_matrix/SparseTensorDenseAdd"]),
    "precision_at_k": (
        lambda: tf.metrics.precision_at_k(tf.constant([[1], [2]], tf.int64), _class_scores(), 2),
        38, ["precision_at_2/TopKV2", "precision_at_2/Cast",
             "precision_at_2/true_positive_at_2/true_positives/DenseToDenseSetOperation",
             "precision_at_2/true_positive_at_2/true_positives/SetSize",
             "precision_at_2/true_positive_at_2/range", "precision_at_2/true_positive_at_2/update",
             "precision_at_2/false_positive_at_2/Initializer/zeros", "precision_at_2/Add",
             "precision_at_2", "precision_at_2/update"]),
    "recall_at_k": (
        lambda: tf.metrics.recall_at_k(tf.constant([[1], [2]], tf.int64), _class_scores(), 2), 38,
        ["recall_at_2/false_negative_at_2/false_negatives/DenseToDenseSetOperation"]),
    "precision_at_k_labels_rank1": (
        lambda: tf.metrics.precision_at_k(tf.constant([1, 2], tf.int64), _class_scores(), 2),
        40, ["precision_at_2/expand_labels"]),
    "recall_at_k_weighted_padded": (
        lambda: tf.metrics.recall_at_k(tf.constant([[1, -1], [2, 0]], tf.int64),
                                       _class_scores(), 1, weights=tf.constant([1., 2.])), 169,
        []),
    "recall_at_k_unknown_rank": (
        lambda: tf.metrics.recall_at_k(tf.placeholder(tf.int64), _class_scores(), 2), 52, []),
    "precision_at_top_k": (
        lambda: tf.metrics.precision_at_top_k(tf.constant([[1], [2]], tf.int64),
                                              tf.constant([[1, 2], [0, 1]]), 2), 36, []),
    "recall_at_top_k": (
        lambda: tf.metrics.recall_at_top_k(tf.constant([[1], [2]], tf.int64),
                                           tf.constant([[1, 2], [0, 1]], tf.int64)), 35, []),
    "precision_at_k_class_id": (
        lambda: tf.metrics.precision_at_k(tf.constant([[1], [2]], tf.int64), _class_scores(), 2,
                                          class_id=2), 122,
        ["precision_at_2_class2/true_positive_at_2_class2/true_positives/DynamicStitch",
         "precision_at_2_class2/true_positive_at_2_class2/true_positives/Fill_1",
         ("precision_at_2_class2/true_positive_at_2_class2/true_positives/"
          "SparseToSparseSetOperation")]),
    # (TF 1.15 builds these with a numpy older than its venv's: 'ones' packs the size)
    "mean_per_class_accuracy": (
        lambda: tf.metrics.mean_per_class_accuracy(tf.constant([0, 1, 2, 1]),
                                                   tf.constant([0, 1, 1, 1]), 3), 33,
        ["mean_accuracy/Size", "mean_accuracy/ones/packed", "mean_accuracy/ones",
         "mean_accuracy/ScatterAdd_1", "mean_accuracy/div_no_nan", "mean_accuracy/mean_accuracy",
         "mean_accuracy/update_op"]),
    "mean_per_class_accuracy_weighted": (
        lambda: tf.metrics.mean_per_class_accuracy(
            tf.constant([[0, 1], [2, 1]]), tf.constant([[0, 1], [1, 1]], tf.int64), 3,
            weights=tf.constant([[1., 2.], [0.5, 1.]])), 41,
        ["mean_accuracy/Reshape_2", "mean_accuracy/mul_1"]),
    "average_precision_at_k": (
        lambda: tf.metrics.average_precision_at_k(tf.constant([[1], [2]], tf.int64),
                                                  _class_scores(), 2), 98,
        ["average_precision_at_2/Max", "average_precision_at_2/average_precision/labels_per_k",
         "average_precision_at_2/average_precision/relevant_per_k/SetSize",
         "average_precision_at_2/average_precision/num_relevant",
         "average_precision_at_2/average_precision", "average_precision_at_2/max_1/batch_max",
         "average_precision_at_2/total/update", "average_precision_at_2/mean",
         "average_precision_at_2"]),
    "average_precision_at_k_weighted": (
        lambda: tf.metrics.average_precision_at_k(tf.constant([[1, 0], [2, -1]], tf.int64),
                                                  _class_scores(), 2,
                                                  weights=tf.constant([1., 2.])), 171, []),
    "contrib_streaming_curve_points": (
        lambda: tf.contrib.metrics.streaming_curve_points(_labels(), _scores(), num_thresholds=5),
        72, ["curve_points/stack", "curve_points/Tile_2", "curve_points/div_1",
             "curve_points/stack_1", "curve_points/group_deps"]),
    "contrib_streaming_auc": (lambda: tf.contrib.metrics.streaming_auc(_scores(), _labels()), 174,
                              ["auc/Cast/x", "auc/value"]),
    "precision_at_k_sparse_labels": (
        lambda: tf.metrics.precision_at_k(_sparse_labels(), _class_scores(), 2), 63,
        ["precision_at_2/expand_labels/Equal",
         "precision_at_2/true_positive_at_2/true_positives/DenseToSparseSetOperation"]),
    "recall_at_k_sparse_labels_class_id": (
        lambda: tf.metrics.recall_at_k(_sparse_labels(), _class_scores(), 1, class_id=2), 125,
        []),
    "average_precision_at_k_sparse_labels": (
        lambda: tf.metrics.average_precision_at_k(_sparse_labels(), _class_scores(), 2), 118,
        ["average_precision_at_2/average_precision/labels_per_k/expanded_shape",
         "average_precision_at_2/average_precision/labels_per_k/expand"]),
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


def test_at_k_metrics_keep_values(graph):
    labels = tf.constant([[1, -1], [2, 0]], tf.int64)
    got = [tf.metrics.precision_at_k(labels, _class_scores(), 2)[1],
           tf.metrics.recall_at_k(labels, _class_scores(), 1, weights=tf.constant([1., 2.]))[1],
           tf.metrics.recall_at_top_k(tf.constant([[1], [2]], tf.int64),
                                      tf.constant([[1, 2], [0, 1]], tf.int64))[1],
           tf.metrics.recall_at_k(tf.constant([[1, 0], [2, 2]], tf.int64), _class_scores(), 1,
                                  class_id=2, weights=tf.constant([1., 3.]))[1],
           tf.metrics.precision_at_top_k(tf.constant([[1, 0], [2, 2]], tf.int64),
                                         tf.constant([[1, 2], [0, 2]], tf.int64),
                                         class_id=0)[1],
           tf.metrics.average_precision_at_k(tf.constant([[1, 0], [2, -1]], tf.int64),
                                             _class_scores(), 2,
                                             weights=tf.constant([1., 2.]))[1],
           tf.metrics.precision_at_k(_sparse_labels(), _class_scores(), 2)[1],
           tf.metrics.recall_at_k(_sparse_labels(), _class_scores(), 1, class_id=2)[1],
           tf.metrics.average_precision_at_k(_sparse_labels(), _class_scores(), 2)[1]]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        # TF 1.15's values (-1 pads nothing in a dense set: it is a label never predicted)
        np.testing.assert_allclose(sess.run(got), [0.75, 0.5, 0.5, 1.0, 0.0, 5. / 6., 0.75, 1.0, 1.0])


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


# --------------------------------------------------------------------------- numpy_input_fn


def test_zero_fraction_takes_tf_op_ids(graph):
    # TF 1.15 counts the non-zeros in a Switch/Merge cond: 26 ops in all for a static shape
    x = tf.placeholder(tf.float32, [5, 3])
    frac = tf.nn.zero_fraction(x)
    r = tf.random_normal([3])
    assert frac.name == "zero_fraction/fraction:0"
    assert r.op.inputs[0].op.inputs[0].op.get_attr("seed2") == 30
    with tf.Session() as sess:
        got = sess.run(frac, {x: [[0, 1, 0], [2, 0, 3], [0, 0, 0], [1, 1, 1], [0, 5, 0]]})
    np.testing.assert_allclose(got, 8 / 15, rtol=1e-6)


@pytest.mark.parametrize("num_epochs, seed2", [(None, 22), (1, 22)])
def test_numpy_input_fn_takes_the_feeding_queues_op_ids(graph, num_epochs, seed2):
    # TF 1.15: queue, 3 placeholders, enqueue, 2 closes, size, fill fraction (7), its summary
    # (2) and the dequeue (2) before the first op of the model
    features, _ = tf.estimator.inputs.numpy_input_fn(
        {"x": np.zeros((6, 3), np.float32)}, np.zeros(6, np.float32), batch_size=4,
        num_epochs=num_epochs, shuffle=False)()
    r = tf.random_normal([3])
    assert r.op.inputs[0].op.inputs[0].op.get_attr("seed2") == seed2
    # dequeue_many's batch size is static; dequeue_up_to's is not
    assert features["x"].get_shape().as_list() == [4 if num_epochs is None else None, 3]


_X = np.random.RandomState(0).rand(12, 3).astype(np.float32)
_Y_REG = (_X @ np.array([1., -2., 0.5], np.float32) + 0.3).astype(np.float32)
_Y_CLS = (_Y_REG > _Y_REG.mean()).astype(np.int64)


class _LossHook(tf.train.SessionRunHook):
    """Records the summed training loss of each step."""

    def __init__(self):
        self.losses = []

    def begin(self):
        self._loss = tf.get_collection(tf.GraphKeys.LOSSES)[0]

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(self._loss)

    def after_run(self, run_context, run_values):
        self.losses.append(float(np.sum(run_values.results)))


def _train(est, y, shuffle, num_epochs, batch_size=5):
    hook = _LossHook()
    est.train(tf.estimator.inputs.numpy_input_fn(
        {"x": _X}, y, batch_size=batch_size, num_epochs=num_epochs, shuffle=shuffle),
        steps=4, hooks=[hook])
    evaluation = est.evaluate(tf.estimator.inputs.numpy_input_fn(
        {"x": _X}, y, batch_size=5, num_epochs=1, shuffle=False))
    preds = list(est.predict(tf.estimator.inputs.numpy_input_fn(
        {"x": _X[:3]}, batch_size=5, num_epochs=1, shuffle=False)))
    return hook.losses, evaluation, preds


def _columns():
    return [tf.feature_column.numeric_column("x", shape=[3])]


def _config():
    return tf.estimator.RunConfig(tf_random_seed=7)


def test_dnn_regressor_on_endless_ordered_input_matches_tf(tmp_path):
    est = tf.estimator.DNNRegressor([4], _columns(), model_dir=str(tmp_path), config=_config())
    losses, evaluation, preds = _train(est, _Y_REG, False, None)
    # TF 1.15's numbers for this program
    np.testing.assert_allclose(losses, [0.72297, 2.97917, 2.06816, 1.62288], atol=1e-4)
    np.testing.assert_allclose(
        est.get_variable_value("dnn/hiddenlayer_0/kernel").ravel(),
        [0.35296, -0.5572, 0.65071, 0.69839, 0.93734, -0.44129, 0.26164, -0.48787, -0.01428,
         0.30418, -0.14452, -0.8069], atol=1e-4)
    np.testing.assert_allclose(est.get_variable_value("dnn/hiddenlayer_0/bias"),
                               [-0.05008, 0.07029, -0.04938, 0.01981], atol=1e-4)
    np.testing.assert_allclose(est.get_variable_value("dnn/logits/kernel").ravel(),
                               [-0.34157, 0.32333, -0.06666, 0.08633], atol=1e-4)
    np.testing.assert_allclose(est.get_variable_value("dnn/logits/bias"), [0.03644], atol=1e-4)
    np.testing.assert_allclose([evaluation["average_loss"], evaluation["loss"],
                                evaluation["prediction/mean"]],
                               [0.36048, 1.4419, -0.20881], atol=1e-4)
    np.testing.assert_allclose([p["predictions"][0] for p in preds],
                               [-0.2658, -0.1661, -0.302], atol=1e-4)


def test_dnn_classifier_on_one_ordered_epoch_matches_tf(tmp_path):
    est = tf.estimator.DNNClassifier([4, 3], _columns(), model_dir=str(tmp_path),
                                     config=_config())
    losses, evaluation, preds = _train(est, _Y_CLS, False, 1)
    np.testing.assert_allclose(losses, [3.36044, 3.50307, 1.34746], atol=1e-4)
    np.testing.assert_allclose(
        est.get_variable_value("dnn/hiddenlayer_1/kernel").ravel(),
        [-0.29379, 0.25882, -0.0731, 0.06262, -0.54286, 0.02572, 0.63304, 0.47853, -0.85789,
         -0.28869, 0.589, -0.38656], atol=1e-4)
    np.testing.assert_allclose(est.get_variable_value("dnn/logits/kernel").ravel(),
                               [0.37806, -0.19526, -0.37641], atol=1e-4)
    assert evaluation["global_step"] == 3
    np.testing.assert_allclose([evaluation["accuracy"], evaluation["auc"],
                                evaluation["average_loss"], evaluation["prediction/mean"]],
                               [0.58333, 1.0, 0.67196, 0.4803], atol=1e-4)
    np.testing.assert_allclose([p["logits"][0] for p in preds], [-0.0932, -0.0616, -0.1245],
                               atol=1e-4)


def test_dnn_linear_combined_classifier_matches_tf(tmp_path):
    est = tf.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=_columns(), dnn_feature_columns=_columns(),
        dnn_hidden_units=[4], model_dir=str(tmp_path), config=_config())
    losses, evaluation, _ = _train(est, _Y_CLS, False, None)
    np.testing.assert_allclose(losses, [2.90532, 3.54058, 3.17383, 3.07965], atol=1e-4)
    np.testing.assert_allclose(est.get_variable_value("dnn/logits/kernel").ravel(),
                               [-0.3415, 0.26462, -0.08733, 0.07417], atol=1e-4)
    np.testing.assert_allclose(est.get_variable_value("linear/linear_model/x/weights").ravel(),
                               [-0.00054, -0.00994, 0.00017], atol=1e-4)
    np.testing.assert_allclose([evaluation["auc"], evaluation["auc_precision_recall"]],
                               [0.82857, 0.79603], atol=1e-4)


def test_dnn_regressor_on_one_shuffled_whole_batch_matches_tf(tmp_path):
    # TF's shuffled feeding order is not reproducible; one batch of the whole epoch is
    est = tf.estimator.DNNRegressor([4], _columns(), model_dir=str(tmp_path), config=_config())
    losses, evaluation, _ = _train(est, _Y_REG, True, 1, batch_size=12)
    np.testing.assert_allclose(losses, [4.91931], atol=1e-4)
    np.testing.assert_allclose(est.get_variable_value("dnn/logits/kernel").ravel(),
                               [-0.29051, 0.29223, -0.03686, 0.08454], atol=1e-4)
    np.testing.assert_allclose(evaluation["average_loss"], 0.36675, atol=1e-4)


def test_pandas_input_fn_feeds_a_dnn_regressor_as_tf(tmp_path):
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    df = pd.DataFrame({"a": rng.rand(12).astype(np.float32),
                       "b": rng.rand(12).astype(np.float32)})
    y = pd.Series((df.a - 2 * df.b).astype(np.float32))
    with tf.Graph().as_default() as g:
        tf.set_random_seed(1)
        features, labels = tf.estimator.inputs.pandas_input_fn(
            df, y, batch_size=5, num_epochs=None, shuffle=False)()
        r = tf.random_normal([3])
        # TF 1.15: the feeding queue with an index and three columns, then the random op
        assert r.op.inputs[0].op.inputs[0].op.get_attr("seed2") == 23
        assert labels.get_shape().as_list() == [5]
        del g, features
    columns = [tf.feature_column.numeric_column("a"), tf.feature_column.numeric_column("b")]
    est = tf.estimator.DNNRegressor([3], columns, model_dir=str(tmp_path),
                                    config=tf.estimator.RunConfig(tf_random_seed=5))
    est.train(tf.estimator.inputs.pandas_input_fn(df, y, batch_size=5, num_epochs=None,
                                                  shuffle=False), steps=3)
    np.testing.assert_allclose(est.get_variable_value("dnn/logits/kernel").ravel(),
                               [1.00551, 0.41862, -0.05552], atol=1e-4)
    evaluation = est.evaluate(tf.estimator.inputs.pandas_input_fn(df, y, batch_size=5,
                                                                  num_epochs=1, shuffle=False))
    np.testing.assert_allclose([evaluation["average_loss"], evaluation["prediction/mean"]],
                               [0.6046954, -0.11597221], atol=1e-5)


def test_linear_classifier_on_one_ordered_epoch_matches_tf(tmp_path):
    est = tf.estimator.LinearClassifier(_columns(), model_dir=str(tmp_path), config=_config())
    losses, evaluation, preds = _train(est, _Y_CLS, False, 1)
    np.testing.assert_allclose(losses, [3.46574, 3.85244, 1.33458], atol=1e-4)
    np.testing.assert_allclose(est.get_variable_value("linear/linear_model/x/weights").ravel(),
                               [-0.00121, -0.22723, -0.01826], atol=1e-4)
    np.testing.assert_allclose(est.get_variable_value("linear/linear_model/bias_weights"),
                               [-0.0679], atol=1e-4)
    np.testing.assert_allclose([evaluation["average_loss"], evaluation["prediction/mean"],
                                evaluation["auc"]], [0.65394, 0.44706, 1.0], atol=1e-4)
    np.testing.assert_allclose([p["logits"][0] for p in preds], [-0.2421, -0.1766, -0.2887],
                               atol=1e-4)
