"""Parity of tabular and recommender TF 1.x programs (feature columns, canned estimators and
their heads, tf.losses) with TF 1.15: graph names, collections and summaries it leaves."""

import numpy as np
import pytest

import tideflow as tf

fc = tf.feature_column


def _model_fn_graph(est, mode, labels, features=None):
    """Runs ``est``'s model_fn in a fresh graph (on ``features()``, or one feature x1);
    returns (graph, spec)."""
    g = tf.Graph()
    with g.as_default():
        feats = features() if features else {"x1": tf.constant([[1.0], [2.0]])}
        tf.train.create_global_step()
        spec = est.model_fn(feats, labels(), mode, est.config)
    return g, spec


def test_canned_heads_put_their_losses_in_the_losses_collection(tmp_path):
    # TF 1.15: the head's tf.losses calls leave the unreduced loss (softmax, MSE) and the
    # weighted sum in GraphKeys.LOSSES; the sigmoid head only the weighted sum
    cols = [fc.numeric_column("x1")]
    cases = [
        (tf.estimator.DNNClassifier([3], cols, n_classes=3, model_dir=str(tmp_path / "m")),
         lambda: tf.constant([[0], [2]], tf.int64),
         ["dnn/head/sparse_softmax_cross_entropy_loss/Mul:0", "dnn/head/weighted_loss/Sum:0"]),
        (tf.estimator.DNNClassifier([3], cols, model_dir=str(tmp_path / "b")),
         lambda: tf.constant([[0], [1]], tf.int64), ["dnn/head/weighted_loss/Sum:0"]),
        (tf.estimator.DNNRegressor([3], cols, model_dir=str(tmp_path / "r")),
         lambda: tf.constant([[0.5], [1.5]]),
         ["dnn/head/mean_squared_error/Mul:0", "dnn/head/weighted_loss/Sum:0"]),
    ]
    for est, labels, want in cases:
        for mode in ("train", "eval"):
            g, _ = _model_fn_graph(est, mode, labels)
            assert [t.name for t in g.get_collection("losses")] == want
            names = [op.name for op in g.get_operations()]
            # no Cast of the label ids (TF's metrics cast the class ids to the labels)
            assert "dnn/head/Cast" not in names


def test_canned_head_metrics_are_outside_the_head_scope(tmp_path):
    # TF 1.15 makes the eval metrics after the head's name scope closes: "dnn/metrics/..."
    # for the classifiers, and the regression head's two unnamed means "dnn/mean",
    # "dnn/mean_1"
    cols = [fc.numeric_column("x1")]
    est = tf.estimator.DNNClassifier([3], cols, n_classes=3, model_dir=str(tmp_path / "m"))
    g, spec = _model_fn_graph(est, "eval", lambda: tf.constant([[0], [2]], tf.int64))
    assert [v.name for v in g.get_collection("local_variables")] == [
        "dnn/metrics/average_loss/total:0", "dnn/metrics/average_loss/count:0",
        "dnn/metrics/accuracy/total:0", "dnn/metrics/accuracy/count:0"]
    est = tf.estimator.DNNRegressor([3], cols, model_dir=str(tmp_path / "r"))
    g, spec = _model_fn_graph(est, "eval", lambda: tf.constant([[0.5], [1.5]]))
    assert [v.name for v in g.get_collection("local_variables")] == [
        "dnn/mean/total:0", "dnn/mean/count:0", "dnn/prediction/mean/total:0",
        "dnn/prediction/mean/count:0", "dnn/mean_1/total:0", "dnn/mean_1/count:0"]
    assert sorted(spec.eval_metric_ops) == ["average_loss", "label/mean", "prediction/mean"]


def test_head_without_sum_reduction_has_no_average_loss_summary(tmp_path):
    # TF 1.15 summarizes average_loss only for Reduction.SUM
    est = tf.estimator.DNNRegressor([3], [fc.numeric_column("x1")], model_dir=str(tmp_path),
                                    loss_reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE)
    g, _ = _model_fn_graph(est, "train", lambda: tf.constant([[0.5], [1.5]]))
    assert [t.name for t in g.get_collection("summaries")][-1:] == ["loss:0"]


def test_sparse_softmax_loss_squeezes_under_remove_squeezable_dimensions():
    # TF 1.15: the labels' trailing 1 goes in
    # sparse_softmax_cross_entropy_loss/remove_squeezable_dimensions/Squeeze
    with tf.Graph().as_default() as g:
        tf.losses.sparse_softmax_cross_entropy(tf.constant([[1], [2]], tf.int64),
                                               tf.constant([[1., 2., .5], [.1, -1., 2.]]))
        names = [op.name for op in g.get_operations()]
    assert "sparse_softmax_cross_entropy_loss/remove_squeezable_dimensions/Squeeze" in names
    assert "sparse_softmax_cross_entropy_loss/Squeeze" not in names


def test_linear_classifier_builds_keras_linear_model(tmp_path):
    # TF 1.15's canned linear model is its Keras LinearModel: every weight made first (by
    # column name, then the bias), ops under linear/linear_model/linear_model/linear_model,
    # no MODEL_VARIABLES; the bias summary slices the bias part itself
    cols = [fc.numeric_column("x1"), fc.categorical_column_with_identity("cat", 4)]
    est = tf.estimator.LinearClassifier(cols, model_dir=str(tmp_path))
    g, spec = _model_fn_graph(est, "train", lambda: tf.constant([[0], [1]], tf.int64),
                              features=lambda: {"x1": tf.constant([[1.0], [2.0]]),
                                                "cat": tf.constant([[1], [3]], tf.int64)})
    assert spec.predictions["logits"].name == (
        "linear/linear_model/linear_model/linear_model/weighted_sum:0")
    assert "model_variables" not in g.get_all_collection_keys()
    names = [op.name for op in g.get_operations()]
    var_ops = ["linear/linear_model/cat/weights/part_0", "linear/linear_model/x1/weights/part_0",
               "linear/linear_model/bias_weights/part_0"]
    idx = [names.index(n) for n in var_ops]
    assert idx == sorted(idx)
    assert idx[-1] < names.index(
        "linear/linear_model/linear_model/linear_model/cat/to_sparse_input/NotEqual")
    assert "linear/strided_slice" in names and "linear/Reshape" not in names
    assert "linear/zero_fraction/zero_fraction_or_nan" in names
    with tf.Session(graph=g) as sess:
        sess.run(tf.global_variables_initializer())
        # all the weights are zeros: TF 1.15's summary reads 1.0
        zf = g.get_tensor_by_name("linear/zero_fraction/zero_fraction_or_nan:0")
        assert sess.run(zf) == 1.0


def test_feature_column_linear_model_leaves_update_ops_key():
    # TF 1.15's linear_model calls a tf.layers bias layer, which makes the (empty)
    # UPDATE_OPS collection
    with tf.Graph().as_default() as g:
        fc.linear_model({"x": tf.constant([[1.0], [2.0]])}, [fc.numeric_column("x")])
        assert "update_ops" in g.get_all_collection_keys()
        assert g.get_collection("update_ops") == []


def test_at_top_k_metrics_take_k_for_the_name_only():
    # TF 1.15: k of precision/recall_at_top_k only names the metric; all of predictions_idx
    # counts (TF 1.15 prints recall_at_2:0 precision_at_1:0 [1.0, 0.6666666666666666])
    with tf.Graph().as_default():
        labels = tf.constant([[0, 3], [1, 2]], tf.int64)
        idx = tf.constant([[3, 1, 0], [4, 2, 1]], tf.int64)
        r, r_up = tf.metrics.recall_at_top_k(labels, idx, k=2)
        p, p_up = tf.metrics.precision_at_top_k(labels, idx, k=1)
        assert (r.name, p.name) == ("recall_at_2:0", "precision_at_1:0")
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            assert sess.run([r_up, p_up]) == [1.0, 2.0 / 3.0]


def test_sparse_combiner_is_checked_only_by_a_categorical_lookup(tmp_path):
    # TF 1.15 accepts any sparse_combiner when no categorical column needs it (a linear
    # estimator on numeric columns trains); a categorical one fails in its lookup with
    # "combiner must be one of 'mean', 'sqrtn' or 'sum'"
    est = tf.estimator.LinearRegressor([fc.numeric_column("b")], sparse_combiner="max",
                                       model_dir=str(tmp_path))
    est.train(tf.estimator.inputs.numpy_input_fn(
        {"b": np.ones(4, np.float32)}, np.ones(4, np.float32), batch_size=2, shuffle=False),
        steps=1)
    with tf.Graph().as_default():
        feats = {"a": tf.constant([[1]], tf.int64), "b": tf.constant([[1.0]])}
        fc.linear_model(feats, [fc.numeric_column("b")], sparse_combiner="max")
        # (TF's autograph wraps the message "in converted code:", ours is the bare one)
        with pytest.raises(ValueError, match="combiner must be one of 'mean', 'sqrtn' or "):
            fc.linear_model(feats, [fc.categorical_column_with_identity("a", 3)],
                            sparse_combiner="max")


def test_binary_head_thresholds_metrics():
    # TF 1.15's contrib binary_classification_head(thresholds=...) adds accuracy, precision
    # and recall at each threshold, each named by its key; accuracy_baseline is
    # max(mean, 1 - mean). TF 1.15's values below (precision's epsilon included)
    with tf.Graph().as_default():
        head = tf.contrib.estimator.binary_classification_head(thresholds=[0.3, 0.6])
        spec = head.create_estimator_spec({}, "eval", tf.constant([[-1.0], [0.2], [1.5], [-0.1]]),
                                          tf.constant([[0], [1], [1], [1]]))
        m = spec.eval_metric_ops
        assert m["accuracy/positive_threshold_0.3"][0].name == (
            "metrics/accuracy/positive_threshold_0.3/value:0")
        assert m["precision/positive_threshold_0.6"][0].name == (
            "metrics/precision/positive_threshold_0.6/Squeeze:0")
        assert m["accuracy_baseline"][0].name == "metrics/accuracy_baseline/value:0"
        assert [v.name for v in tf.local_variables()][-2:] == [
            "metrics/recall/positive_threshold_0.6/true_positives:0",
            "metrics/recall/positive_threshold_0.6/false_negatives:0"]
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            sess.run({k: v[1] for k, v in m.items()})
            got = sess.run({k: v[0] for k, v in m.items()})
    want = {"accuracy/positive_threshold_0.3": 1.0, "accuracy/positive_threshold_0.6": 0.5,
            "accuracy_baseline": 0.75, "precision/positive_threshold_0.3": 1.0,
            "precision/positive_threshold_0.6": 0.9999998807907104,
            "recall/positive_threshold_0.3": 1.0,
            "recall/positive_threshold_0.6": 0.3333333432674408}
    for key, value in want.items():
        assert float(got[key]) == value, key
    with pytest.raises(ValueError, match=r"^thresholds not in \(0, 1\): \(\(0.5, 1.0\),\)\.$"):
        tf.contrib.estimator.binary_classification_head(thresholds=[0.5, 1.0])


def test_contrib_multi_label_head():
    # TF 1.15's tf.contrib.estimator.multi_label_head: sigmoid cross-entropy per class (mean
    # per example), sparse string labels through the vocabulary, per-class metrics keyed by
    # class name; TF 1.15's values below
    with tf.Graph().as_default():
        head = tf.contrib.estimator.multi_label_head(
            3, label_vocabulary=["a", "b", "c"], classes_for_class_based_metrics=["b"],
            weight_column="w")
        logits = tf.constant([[-1.0, 0.5, 2.0], [0.2, -0.3, 1.0], [1.5, 0.1, -2.0]])
        labels = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0]], ["b", "c", "a", "c"], [3, 2])
        spec = head.create_estimator_spec({"w": tf.constant([[1.0], [2.0], [0.5]])}, "eval",
                                          logits, labels)
        assert spec.predictions["probabilities"].name == "head/predictions/probabilities:0"
        assert [t.name for t in tf.get_collection("losses")] == [
            "head/sigmoid_cross_entropy_loss/Mul:0", "head/weighted_loss/value:0"]
        m = spec.eval_metric_ops
        assert m["auc/b"][0].name == "metrics/auc/b/value:0"
        assert m["probability_mean/b"][0].name == "metrics/probability_mean/b/value:0"
        with tf.Session() as sess:
            sess.run([tf.local_variables_initializer(), tf.tables_initializer()])
            sess.run({k: v[1] for k, v in m.items()})
            got = sess.run({k: v[0] for k, v in m.items()})
    want = {"auc": 0.611111, "auc/b": 1.0, "auc_precision_recall": 0.5849,
            "auc_precision_recall/b": 0.999999, "average_loss": 0.77449,
            "probability_mean/b": 0.496018}
    assert sorted(got) == sorted(want)
    for key, value in want.items():
        assert round(float(got[key]), 6) == value, key
    with pytest.raises(ValueError, match=r"^All classes_for_class_based_metrics must be in "
                                         r"range \[0, 2\]. Given: 3$"):
        tf.contrib.estimator.multi_label_head(3, classes_for_class_based_metrics=[3])


def test_named_head_suffixes_metric_keys_and_summary_tags():
    # TF 1.15: a head named "ctr" reports "auc/ctr", ... and summarizes "loss/ctr"
    head = tf.contrib.estimator.binary_classification_head(name="ctr")
    for mode, want in (("train", ["loss/ctr:0"]), ("eval", [])):
        with tf.Graph().as_default():
            tf.train.create_global_step()
            spec = head.create_estimator_spec({}, mode, tf.constant([[0.3], [-0.5]]),
                                              tf.constant([[0], [1]]),
                                              train_op_fn=lambda loss: tf.no_op())
            assert [t.name for t in tf.get_collection("summaries")] == want
    assert sorted(spec.eval_metric_ops) == [
        "accuracy/ctr", "accuracy_baseline/ctr", "auc/ctr", "auc_precision_recall/ctr",
        "average_loss/ctr", "label/mean/ctr", "precision/ctr", "prediction/mean/ctr",
        "recall/ctr"]


def test_contrib_multi_head():
    # TF 1.15's tf.contrib.estimator.multi_head: the logits split among named heads, each
    # head's metrics plus a mean of its loss ("loss/<name>") under merge_eval, the losses
    # merged with head_weights; TF 1.15 gives loss 0.7012471 and these values
    ce = tf.contrib.estimator
    head = ce.multi_head([ce.binary_classification_head(name="ctr"),
                          ce.regression_head(name="price")], head_weights=[1.0, 0.5])
    assert (head.name, head.logits_dimension) == ("ctr_price", 2)
    with tf.Graph().as_default():
        tf.train.create_global_step()
        spec = head.create_estimator_spec(
            {}, "eval", tf.constant([[0.3, 1.0], [-0.2, 0.5]]),
            {"ctr": tf.constant([[1], [0]]), "price": tf.constant([[1.5], [0.0]])})
        assert spec.loss.name == "merge_eval/merge_losses/AddN:0"
        assert spec.eval_metric_ops["loss/ctr"][0].name == "merge_eval/loss/ctr/value:0"
        assert sorted(spec.eval_metric_ops) == [
            "accuracy/ctr", "accuracy_baseline/ctr", "auc/ctr", "auc_precision_recall/ctr",
            "average_loss/ctr", "average_loss/price", "label/mean/ctr", "label/mean/price",
            "loss/ctr", "loss/price", "precision/ctr", "prediction/mean/ctr",
            "prediction/mean/price", "recall/ctr"]
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            sess.run({k: v[1] for k, v in spec.eval_metric_ops.items()})
            assert abs(sess.run(spec.loss) - 0.7012471) < 1e-6
            got = sess.run({k: spec.eval_metric_ops[k][0] for k in ("loss/ctr", "loss/price")})
    assert abs(got["loss/ctr"] - 0.5762470960617065) < 1e-6 and got["loss/price"] == 0.25
    with pytest.raises(ValueError, match="^All given heads must have name specified"):
        ce.multi_head([ce.regression_head()])


def test_canned_estimators_check_their_columns_when_the_model_is_built(tmp_path):
    # TF 1.15 makes a LinearClassifier or DNNClassifier without columns; training fails in
    # the model with "feature_columns must not be empty."
    inputs = tf.estimator.inputs.numpy_input_fn({"a": np.zeros(4, np.float32)},
                                                np.zeros(4, np.int64), batch_size=2,
                                                shuffle=False)
    tf.estimator.LinearRegressor(None)
    for est in [tf.estimator.LinearClassifier([], model_dir=str(tmp_path / "l")),
                tf.estimator.DNNClassifier([3], [], model_dir=str(tmp_path / "d"))]:
        with pytest.raises(ValueError, match=r"^feature_columns must not be empty\.$"):
            est.train(inputs, steps=1)


def test_canned_linear_model_makes_embedding_tables_first(tmp_path):
    # TF 1.15's Keras LinearModel makes an embedding column's table when it builds, before
    # that column's weights, under the column's name; seeded, it trains to TF's numbers
    fc_cat = fc.categorical_column_with_identity("cat", 5)
    cols = [fc.embedding_column(fc_cat, 2), fc.bucketized_column(fc.numeric_column("x"), [0.0])]
    est = tf.estimator.LinearRegressor(cols, model_dir=str(tmp_path))
    with tf.Graph().as_default():
        tf.set_random_seed(2)
        feats = {"cat": tf.constant([[1], [4]], tf.int64), "x": tf.constant([[-1.0], [2.0]])}
        tf.train.create_global_step()
        spec = est.model_fn(feats, tf.constant([[1.0], [2.0]]), "train", est.config)
        assert [v.name for v in tf.global_variables()][1:5] == [
            "linear/linear_model/cat_embedding/embedding_weights/part_0:0",
            "linear/linear_model/cat_embedding/weights/part_0:0",
            "linear/linear_model/x_bucketized/weights/part_0:0",
            "linear/linear_model/bias_weights/part_0:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([spec.loss, spec.train_op])[0] for _ in range(2)]
            preds = sess.run(spec.predictions["predictions"]).ravel()
    # TF 1.15's losses and predictions after two Ftrl steps
    np.testing.assert_allclose(losses, [5.0, 2.9261634], rtol=1e-6)
    np.testing.assert_allclose(preds, [0.6659241914749146, 0.7133802175521851], rtol=1e-6)


def test_at_k_metrics_take_int64_labels_only():
    # TF 1.15 casts no labels: int32 ones fail in the set operation or in average
    # precision's GreaterEqual, when the metric is made
    scores = [[0.1, 0.9], [0.8, 0.2]]
    with tf.Graph().as_default():
        labels = tf.constant([[1], [0]])
        for metric in (tf.metrics.precision_at_k, tf.metrics.recall_at_k):
            with pytest.raises(TypeError, match=r"^Types don't match, <dtype: 'int64'> vs "
                                                r"<dtype: 'int32'>\.$"):
                metric(labels, tf.constant(scores), 1)
        with pytest.raises(TypeError, match="^Input 'y' of 'GreaterEqual' Op has type int64 "
                                            "that does not match type int32 of argument 'x'"):
            tf.metrics.average_precision_at_k(labels, tf.constant(scores), 1)
        with pytest.raises(ValueError, match=r"^`specificity` must be in the range \[0, 1\]\.$"):
            tf.metrics.sensitivity_at_specificity(tf.constant([0, 1]), tf.constant([.2, .7]),
                                                  -0.5)


def test_head_train_op_runs_the_update_ops():
    # TF 1.15's heads group the train op with GraphKeys.UPDATE_OPS (head/group_deps), so a
    # custom model_fn's batch norm moves its averages: TF gives [0.045 0.055 0.065]
    head = tf.contrib.estimator.regression_head()
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        tf.train.create_global_step()
        x = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
        logits = tf.layers.dense(tf.layers.batch_normalization(x, training=True), 1)
        spec = head.create_estimator_spec({}, "train", logits,
                                          tf.constant([[1.0], [2.0], [3.0], [4.0]]),
                                          optimizer=tf.train.GradientDescentOptimizer(0.1))
        assert spec.train_op.name == "head/group_deps"
        moving_mean = next(v for v in tf.global_variables() if "moving_mean" in v.name)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(spec.train_op)
            np.testing.assert_allclose(sess.run(moving_mean), [0.045, 0.055, 0.065], rtol=1e-6)


def test_head_regularization_losses():
    # TF 1.15: the regularization losses are added first (head/AddN), then to the training
    # loss (head/AddN_1); training summarizes "regularization_loss" and evaluation reports
    # its mean (0.75 here) under the head's metrics scope
    head = tf.contrib.estimator.multi_class_head(3)
    for mode in ("train", "eval"):
        with tf.Graph().as_default():
            tf.train.create_global_step()
            spec = head.create_estimator_spec(
                {}, mode, tf.constant([[0.5, -0.2, 0.1], [0.3, 0.1, 0.9]]),
                tf.constant([[1], [0]]), train_op_fn=lambda loss: tf.no_op(),
                regularization_losses=[tf.constant(0.25), tf.constant(0.5)])
            assert spec.loss.name == "head/AddN_1:0"
            if mode == "train":
                assert [t.name for t in tf.get_collection("summaries")] == [
                    "loss:0", "regularization_loss:0"]
                continue
            value, update = spec.eval_metric_ops["regularization_loss"]
            assert [v.name for v in tf.local_variables()][-2:] == [
                "metrics/regularization_loss/total:0", "metrics/regularization_loss/count:0"]
            with tf.Session() as sess:
                sess.run(tf.local_variables_initializer())
                sess.run(update)
                assert sess.run(value) == 0.75


def test_wide_and_deep_summarizes_its_linear_logits(tmp_path):
    # TF 1.15's DNNLinearCombined model adds the linear logits' fraction of zeros and
    # histogram (tags linear/linear/...), after the linear model's own summaries
    est = tf.estimator.DNNLinearCombinedClassifier(
        str(tmp_path), linear_feature_columns=[fc.numeric_column("x1")],
        dnn_feature_columns=[fc.numeric_column("x1")], dnn_hidden_units=[2])
    g, _ = _model_fn_graph(est, "train", lambda: tf.constant([[0], [1]], tf.int64))
    names = [t.name for t in g.get_collection("summaries")]
    i = names.index("linear/fraction_of_zero_weights:0")
    assert names[i + 1:i + 3] == ["linear/linear/fraction_of_zero_values:0",
                                  "linear/linear/activation:0"]
