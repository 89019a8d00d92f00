"""TF 1.15 parity of the canned Estimators, their heads and their training loops as TF 1.x
programs use them: each expected value below is what the same program printed under TF 1.15."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_mean_of_a_batch_size_skips_its_count_on_the_step_that_runs_out():
    # An eval loop's last step ends in OutOfRangeError; TF 1.15 adds nothing to a mean's
    # count then (its count update waits on the values), even where the batch's shape is
    # also taken by an earlier op (which tideflow's CSE merges with this one): 6.0 in TF.
    x = tf.data.Dataset.from_tensor_slices(np.ones((12, 2), np.float32)).batch(6) \
        .make_one_shot_iterator().get_next()
    other = tf.reduce_sum(tf.shape(x))
    mean, update = tf.metrics.mean(tf.cast(tf.shape(x)[0], tf.float32))
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        step = tf.group(update, other)
        for _ in range(2):
            sess.run(step)
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(step)
        assert sess.run(mean) == 6.0


def _xy_input(x, y, batch):
    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(batch)
    return input_fn


def test_wide_and_deep_without_hidden_units_fails_when_the_model_is_built(tmp_path):
    # TF 1.15 constructs the estimator and raises only in train (its model_fn), in these words
    num = tf.feature_column.numeric_column("x", shape=[2])
    est = tf.estimator.DNNLinearCombinedClassifier(model_dir=str(tmp_path),
                                                   dnn_feature_columns=[num])
    x = np.ones((4, 2), np.float32)
    with pytest.raises(ValueError) as e:
        est.train(_xy_input(x, np.zeros(4, np.int64), 2), steps=1)
    assert str(e.value) == ("dnn_hidden_units must be defined when dnn_feature_columns is "
                            "specified.")


def test_train_and_evaluate_checks_the_eval_spec_first(tmp_path):
    # TF 1.15 with the two specs swapped names the eval spec
    num = tf.feature_column.numeric_column("x", shape=[2])
    est = tf.estimator.LinearRegressor([num], model_dir=str(tmp_path))
    input_fn = _xy_input(np.ones((4, 2), np.float32), np.ones((4, 1), np.float32), 2)
    train_spec = tf.estimator.TrainSpec(input_fn, max_steps=1)
    eval_spec = tf.estimator.EvalSpec(input_fn)
    with pytest.raises(TypeError, match=r"^`eval_spec` must have type `tf.estimator.EvalSpec`. "
                       r"Got: <class '.*TrainSpec'>$"):
        tf.estimator.train_and_evaluate(est, eval_spec, train_spec)


def _tree_data():
    rng = np.random.RandomState(7)
    x = rng.rand(40, 3).astype(np.float32)
    y_class = ((x[:, 0] - 0.5 * x[:, 1] + 0.2 * rng.randn(40)) > 0.2).astype(np.int64)
    y_reg = (x[:, :1] + 0.3 * rng.randn(40, 1)).astype(np.float32)
    features = {"a": x[:, :1], "b": x[:, 1:2], "c": x[:, 2:]}
    num = tf.feature_column.numeric_column
    columns = [tf.feature_column.bucketized_column(num("a"), [0.2, 0.4, 0.6, 0.8]),
               tf.feature_column.bucketized_column(num("b"), [0.3, 0.6]),
               tf.feature_column.bucketized_column(num("c"), [0.25, 0.5, 0.75])]
    return features, y_class.reshape(-1, 1), y_reg, columns


def _grow(kind, tmp_path, n_batches=1, **kwargs):
    """Trains a seeded boosted-trees estimator until it stops; (global step, loss, the first
    six logits or predictions)."""
    features, y_class, y_reg, columns = _tree_data()
    cls = tf.estimator.BoostedTreesClassifier if kind == "C" else tf.estimator.BoostedTreesRegressor
    y = y_class if kind == "C" else y_reg
    est = cls(columns, n_batches, model_dir=str(tmp_path),
              config=tf.estimator.RunConfig(tf_random_seed=1), **kwargs)
    est.train(lambda: tf.data.Dataset.from_tensor_slices((features, y)).batch(40 // n_batches)
              .repeat(), max_steps=100)
    result = est.evaluate(lambda: tf.data.Dataset.from_tensor_slices((features, y)).batch(40))
    key = "logits" if kind == "C" else "predictions"
    out = np.concatenate([p[key] for p in est.predict(
        lambda: tf.data.Dataset.from_tensor_slices(features).batch(40))])
    return result["global_step"], result["loss"], out[:6]


@pytest.mark.parametrize("kind, n_batches, kwargs, step, loss, head", [
    # TF 1.15's numbers for each setting (pre/post pruning, L1 and L2, a min_node_weight no
    # node reaches, center_bias averaged over two batches)
    ("C", 1, {"n_trees": 2, "max_depth": 4, "learning_rate": 0.5, "pruning_mode": "post",
               "tree_complexity": 0.005}, 8, 0.14993441,
     [-2.83418, 0.84389, 2.92939, -1.34391, 1.38818, 2.92939]),
    ("R", 1, {"n_trees": 2, "max_depth": 3, "learning_rate": 0.5, "pruning_mode": "pre",
               "tree_complexity": 0.02, "l2_regularization": 0.5}, 13, 0.2507712,
     [0.0445, 0.25632, 0.25632, 0.25632, 0.0445, 0.25632]),
    ("R", 1, {"n_trees": 2, "max_depth": 2, "learning_rate": 0.5, "min_node_weight": 100.0}, 9,
     0.4629802, [0.0] * 6),
    ("R", 1, {"n_trees": 2, "max_depth": 3, "learning_rate": 0.5, "l1_regularization": 0.3}, 6,
     0.1383684, [0.07914, 0.50134, 0.50134, 0.50134, 0.07914, 0.50134]),
    ("R", 2, {"n_trees": 2, "max_depth": 3, "learning_rate": 0.5, "center_bias": True,
               "l2_regularization": 1.0}, 64, 0.0913579,
     [0.27404, 0.67062, 0.4426, 0.50453, 0.32429, 0.77078]),
])
def test_boosted_trees_grow_as_tf(tmp_path, kind, n_batches, kwargs, step, loss, head):
    got_step, got_loss, got_head = _grow(kind, tmp_path, n_batches, **kwargs)
    assert got_step == step
    np.testing.assert_allclose(got_loss, loss, rtol=1e-5)
    np.testing.assert_allclose(got_head, head, atol=2e-5)


def test_boosted_trees_min_node_weight_bounds_the_node_not_its_children(tmp_path):
    # TF 1.15 splits a node whose hessian reaches min_node_weight even when one side is
    # light (and splits an empty side off a pure node): these are its predictions
    rng = np.random.RandomState(5)
    x = rng.rand(48, 3).astype(np.float32)
    y = (2 * x[:, :1] - x[:, 1:2] + 0.1 * x[:, 2:]).astype(np.float32)
    features = {"a": x[:, :1], "b": x[:, 1:2], "c": x[:, 2:]}
    num = tf.feature_column.numeric_column
    columns = [tf.feature_column.bucketized_column(num("a"), [0.1 * i for i in range(1, 10)]),
               tf.feature_column.bucketized_column(num("b"), [0.3, 0.6]),
               tf.feature_column.bucketized_column(num("c"), [0.5])]
    preds = {}
    for key, kwargs in (("mw", {"min_node_weight": 0.5}),
                        ("deep", {"max_depth": 6, "n_trees": 1})):
        args = {"n_trees": 2, "max_depth": 3, "learning_rate": 0.5}
        args.update(kwargs)
        est = tf.estimator.BoostedTreesRegressor(
            columns, 1, model_dir=str(tmp_path / key),
            config=tf.estimator.RunConfig(tf_random_seed=1), **args)
        est.train(lambda: tf.data.Dataset.from_tensor_slices((features, y)).batch(24)
                  .repeat(), max_steps=60)
        preds[key] = np.concatenate([p["predictions"] for p in est.predict(
            lambda: tf.data.Dataset.from_tensor_slices(features).batch(48))])[:6]
    np.testing.assert_allclose(preds["mw"], [-0.1069, 1.32256, 1.07559, 0.11309, 0.51837,
                                             -0.1069], atol=2e-5)
    np.testing.assert_allclose(preds["deep"], [-0.09892, 1.47204, 1.10978, 0.20437, 0.68663,
                                               0.25362], atol=2e-5)


def test_boosted_trees_checks_growing_parameters_as_tf(tmp_path):
    # TF 1.15 checks these when training builds its graph, in these words
    _, _, _, columns = _tree_data()
    x = {"a": np.ones((2, 1), np.float32), "b": np.ones((2, 1), np.float32),
         "c": np.ones((2, 1), np.float32)}

    def train(**kwargs):
        est = tf.estimator.BoostedTreesRegressor(columns, 1, model_dir=str(tmp_path), **kwargs)
        est.train(lambda: tf.data.Dataset.from_tensor_slices((x, np.ones((2, 1), np.float32)))
                  .batch(2), max_steps=1)

    for kwargs, message in (
            ({"tree_complexity": 0.1}, ("Tree complexity have no effect unless pruning mode "
                                        "is chosen.")),
            ({"pruning_mode": "pre"}, "For pruning, tree_complexity must be positive."),
            ({"pruning_mode": "bad"}, "pruning_mode mode must be one of: none, post, pre"),
            ({"max_depth": 0}, ("Attr 'max_splits' of 'BoostedTreesMakeStatsSummary' Op "
                                "passed 0 less than minimum 1."))):
        with pytest.raises(ValueError) as e:
            train(**kwargs)
        assert str(e.value) == message
    with pytest.raises(ValueError, match=r"^For now pruning is not supported with multi class"):
        tf.estimator.BoostedTreesClassifier(columns, 1, n_classes=3)


def _explained_trees(tmp_path, kind, **kwargs):
    features, y_class, y_reg, columns = _tree_data()
    features["sex"] = np.array(["m", "f", "x", "f"] * 10).reshape(-1, 1)
    columns.insert(2, tf.feature_column.indicator_column(
        tf.feature_column.categorical_column_with_vocabulary_list("sex", ["m", "f", "x"])))
    cls = tf.estimator.BoostedTreesClassifier if kind == "C" else tf.estimator.BoostedTreesRegressor
    est = cls(columns, 1, model_dir=str(tmp_path), config=tf.estimator.RunConfig(tf_random_seed=1),
              center_bias=True, learning_rate=0.5, n_trees=2, **kwargs)
    y = y_class if kind == "C" else y_reg
    est.train(lambda: tf.data.Dataset.from_tensor_slices((features, y)).batch(40).repeat(),
              max_steps=50)
    return est, lambda: tf.data.Dataset.from_tensor_slices(
        {k: v[:3] for k, v in features.items()}).batch(3)


def test_boosted_trees_predict_with_explanations_as_tf(tmp_path):
    # TF 1.15: the bias (the centered root, activated) and each column's directional
    # contribution, the largest in absolute value first; predict_keys keep 'bias' and 'dfc'
    est, input_fn = _explained_trees(tmp_path, "R", max_depth=2, l1_regularization=0.02)
    preds = list(est.experimental_predict_with_explanations(input_fn))
    assert sorted(preds[0]) == ["bias", "dfc", "predictions"]
    expected = [[("a_bucketized", 0.05144181847572327), ("sex", -0.03283815085887909),
                 ("b_bucketized", 0.0), ("c_bucketized", 0.0)],
                [("a_bucketized", 0.46677258610725403), ("sex", 0.05557262897491455),
                 ("b_bucketized", 0.0), ("c_bucketized", 0.0)],
                [("a_bucketized", 0.14470680058002472), ("sex", -0.03283815085887909),
                 ("b_bucketized", 0.0), ("c_bucketized", 0.0)]]
    for pred, want in zip(preds, expected, strict=True):
        assert isinstance(pred["bias"], np.float64)
        np.testing.assert_allclose(pred["bias"], 0.1465425193309784, rtol=1e-6)
        assert [k for k, _ in pred["dfc"].items()] == [k for k, _ in want]
        np.testing.assert_allclose(list(pred["dfc"].values()), [v for _, v in want],
                                   atol=1e-6)
        np.testing.assert_allclose(pred["bias"] + sum(pred["dfc"].values()),
                                   pred["predictions"][0], rtol=1e-5)
    keyed = next(est.experimental_predict_with_explanations(input_fn, predict_keys=["logits"]))
    assert sorted(keyed) == ["bias", "dfc"]
    assert est.experimental_feature_importances() == pytest.approx(
        {"a_bucketized": 0.13063907623291016, "sex": 0.024630497209727764,
         "b_bucketized": 0.0004351454263087362, "c_bucketized": 0.0}, rel=1e-5)
    assert list(est.experimental_feature_importances()) == [
        "a_bucketized", "sex", "b_bucketized", "c_bucketized"]


def test_boosted_trees_classifier_explains_probabilities(tmp_path):
    # TF 1.15: a classifier's contributions and bias are in probabilities (the sigmoid)
    est, input_fn = _explained_trees(tmp_path, "C", max_depth=3)
    pred = next(est.experimental_predict_with_explanations(input_fn))
    np.testing.assert_allclose(pred["bias"], 0.69999999724559, rtol=1e-6)
    assert list(pred["dfc"]) == ["a_bucketized", "b_bucketized", "sex", "c_bucketized"]
    np.testing.assert_allclose(list(pred["dfc"].values()),
                               [-0.3373420788558782, -0.13927405406757554,
                                -0.11072098675127848, 0.011519347833981314], atol=1e-6)


def test_boosted_trees_explanations_need_center_bias_and_importances_a_checkpoint(tmp_path):
    _, _, _, columns = _tree_data()
    est = tf.estimator.BoostedTreesRegressor(columns, 1, model_dir=str(tmp_path))
    with pytest.raises(ValueError, match=r"^center_bias must be enabled during estimator "
                       r"instantiation when using experimental_predict_with_explanations.$"):
        next(est.experimental_predict_with_explanations(lambda: None))
    with pytest.raises(ValueError, match=r"^Couldn't find 'checkpoint' file or checkpoints in "
                       r"given directory "):
        est.experimental_feature_importances()


def _head_model(head, y, optimizer=None):
    """A custom model_fn's Estimator over a public or contrib head, trained 2 steps."""
    x = np.random.RandomState(1).rand(8, 3).astype(np.float32)

    def model_fn(features, labels, mode):
        logits = tf.layers.dense(features["x"], head.logits_dimension, name="lg")
        if optimizer is not None:
            return head.create_estimator_spec(features, mode, logits, labels=labels,
                                              optimizer=optimizer())
        return head.create_estimator_spec(
            features, mode, logits, labels=labels,
            train_op_fn=lambda loss: tf.train.GradientDescentOptimizer(0.1).minimize(
                loss, global_step=tf.train.get_global_step()))

    est = tf.estimator.Estimator(model_fn, config=tf.estimator.RunConfig(tf_random_seed=3))

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y(x))).batch(4)

    est.train(input_fn, steps=2)
    return est.evaluate(input_fn)


def test_public_heads_report_keras_aucs():
    # TF 1.15's tf.estimator heads (its v2 head package) report Keras AUCs (the PR curve
    # interpolated: 0.76895094 here, where tf.metrics.auc gives 0.7638887); contrib's heads
    # keep tf.metrics
    def binary(x):
        return (x[:, :1] > 0.5).astype(np.int64)

    result = _head_model(tf.estimator.BinaryClassHead(thresholds=[0.3]), binary)
    np.testing.assert_allclose(result["auc_precision_recall"], 0.76895094, rtol=1e-5)
    np.testing.assert_allclose(result["auc"], 0.8666667, rtol=1e-5)
    result = _head_model(tf.contrib.estimator.binary_classification_head(), binary,
                         lambda: tf.train.AdamOptimizer(0.1))
    np.testing.assert_allclose(result["auc_precision_recall"], 0.7638887, rtol=1e-5)
    assert isinstance(tf.estimator.MultiLabelHead(3), tf.estimator.MultiLabelHead)


def test_public_multi_head_in_a_custom_model_fn():
    # TF 1.15's tf.estimator.MultiHead over two public heads: each head's metrics under its
    # name (Keras AUCs for the classifier), the losses weighted and added
    x = np.random.RandomState(1).rand(8, 3).astype(np.float32)
    head = tf.estimator.MultiHead([tf.estimator.BinaryClassHead(name="cls"),
                                   tf.estimator.RegressionHead(label_dimension=2, name="reg")],
                                  head_weights=[1.0, 0.5])

    def model_fn(features, labels, mode):
        logits = tf.layers.dense(features["x"], 3, name="lg")
        return head.create_estimator_spec(
            features, mode, logits, labels=labels,
            train_op_fn=lambda loss: tf.train.GradientDescentOptimizer(0.1).minimize(
                loss, global_step=tf.train.get_global_step()))

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(
            ({"x": x}, {"cls": (x[:, :1] > 0.5).astype(np.int64), "reg": x[:, :2] * 2.0})
        ).batch(4)

    est = tf.estimator.Estimator(model_fn, config=tf.estimator.RunConfig(tf_random_seed=3))
    est.train(input_fn, steps=2)
    result = est.evaluate(input_fn)
    np.testing.assert_allclose(result["auc_precision_recall/cls"], 0.2538456, rtol=1e-5)
    np.testing.assert_allclose(result["prediction/mean/reg"], 0.26640108, rtol=1e-5)
    with pytest.raises(ValueError, match=r"^Must specify heads. Given: \[\]$"):
        tf.estimator.MultiHead([])


def test_baseline_and_boosted_trees_estimators_over_a_given_head(tmp_path):
    # TF 1.15's tf.estimator.BaselineEstimator / BoostedTreesEstimator with a contrib head
    rng = np.random.RandomState(7)
    x = rng.rand(40, 3).astype(np.float32)
    y = (x[:, :1] + 0.3 * rng.randn(40, 1)).astype(np.float32)
    features = {"a": x[:, :1], "b": x[:, 1:2], "c": x[:, 2:]}
    _, _, _, columns = _tree_data()
    config = tf.estimator.RunConfig(tf_random_seed=1)
    head = tf.contrib.estimator.regression_head()

    def input_fn(batch):
        return lambda: tf.data.Dataset.from_tensor_slices((features, y)).batch(batch)

    trees = tf.estimator.BoostedTreesEstimator(
        columns, 1, head, model_dir=str(tmp_path / "trees"), n_trees=2, max_depth=2,
        learning_rate=0.5, center_bias=True, config=config)
    trees.train(lambda: input_fn(40)().repeat(), max_steps=50)
    result = trees.evaluate(input_fn(40))
    assert result["global_step"] == 6
    np.testing.assert_allclose(result["loss"], 0.045002006, rtol=1e-5)
    pred = next(trees.experimental_predict_with_explanations(
        lambda: tf.data.Dataset.from_tensor_slices(features).batch(2)))
    np.testing.assert_allclose(pred["bias"], 0.5623598694801331, rtol=1e-6)
    np.testing.assert_allclose(list(pred["dfc"].values()),
                               [-0.40091225504875183, -0.08119450509548187, 0.0], atol=1e-6)
    baseline = tf.estimator.BaselineEstimator(head, model_dir=str(tmp_path / "base"),
                                              optimizer="Adagrad", config=config)
    baseline.train(input_fn(20), steps=2)
    assert tf.train.list_variables(str(tmp_path / "base")) == [
        ("baseline/bias", [1]), ("baseline/bias/Adagrad", [1]), ("global_step", [])]
    result = baseline.evaluate(input_fn(40))
    np.testing.assert_allclose(result["loss"], 0.14539675, rtol=1e-5)
    np.testing.assert_allclose(result["prediction/mean"], 0.39642745, rtol=1e-5)


def test_boosted_trees_constructor_checks_as_tf():
    # TF 1.15 refuses these when the estimator is made, in these words
    bare = tf.feature_column.categorical_column_with_vocabulary_list("k", ["x", "y"])
    with pytest.raises(ValueError, match=r"^CategoricalColumn must be wrapped by "
                       r"IndicatorColumn, got: VocabularyListCategoricalColumn\(key='k'"):
        tf.estimator.BoostedTreesRegressor([bare], 1)
    _, _, _, columns = _tree_data()
    with pytest.raises(ValueError, match=r"^For now pruning is not supported with "
                       r"multi-dimensionregression.$"):
        tf.estimator.BoostedTreesRegressor(columns, 1, label_dimension=2)
    with pytest.raises(ValueError, match=r"^For now only 1 dimension regression is "
                       r"supported.label_dimension given as 2$"):
        tf.estimator.BoostedTreesRegressor(columns, 1, label_dimension=2, pruning_mode=None)


def test_boosted_trees_grow_on_past_n_trees_when_trained_again(tmp_path):
    # TF 1.15's ensemble has no size: a finished model's train call runs one step, which
    # grows the next tree's first layer, and a larger n_trees later finishes that tree
    rng = np.random.RandomState(7)
    x = rng.rand(40, 2).astype(np.float32)
    features = {"a": x[:, :1], "b": x[:, 1:2]}
    num = tf.feature_column.numeric_column
    columns = [tf.feature_column.bucketized_column(num("a"), [0.2, 0.4, 0.6, 0.8]),
               tf.feature_column.bucketized_column(num("b"), [0.3, 0.6])]
    config = tf.estimator.RunConfig(tf_random_seed=1)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices((features, x[:, :1] * 2)).batch(40).repeat()

    def predict(est):
        return np.concatenate([p["predictions"] for p in est.predict(
            lambda: tf.data.Dataset.from_tensor_slices(features).batch(40))])[:4]

    steps = []
    est = tf.estimator.BoostedTreesRegressor(columns, 1, model_dir=str(tmp_path), n_trees=2,
                                             max_depth=2, config=config)
    for n in (3, 100, 5):
        est.train(input_fn, steps=n)
        steps.append(int(tf.train.load_variable(str(tmp_path), "global_step")))
    assert steps == [3, 4, 5]
    np.testing.assert_allclose(predict(est), [0.22022, 0.37644, 0.68331, 0.37644], atol=2e-5)
    more = tf.estimator.BoostedTreesRegressor(columns, 1, model_dir=str(tmp_path), n_trees=3,
                                              max_depth=2, config=config)
    more.train(input_fn, steps=100)
    assert tf.train.load_variable(str(tmp_path), "global_step") == 6
    np.testing.assert_allclose(predict(more), [0.21976, 0.44225, 0.79865, 0.44225], atol=2e-5)
