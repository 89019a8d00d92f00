"""Canned estimators over feature columns learn small synthetic problems; their metric and
prediction keys, variable names and exports are TF's."""

import numpy as np
import pytest

import tideflow as tf

fc = tf.feature_column

BINARY_METRICS = {"accuracy", "accuracy_baseline", "auc", "auc_precision_recall",
                  "average_loss", "label/mean", "loss", "precision", "prediction/mean",
                  "recall", "global_step"}


def make_data(n=400, seed=0):
    rng = np.random.RandomState(seed)
    x1 = rng.randn(n).astype(np.float32)
    x2 = rng.randn(n).astype(np.float32)
    kind = rng.choice(["a", "b", "c"], n)
    return {"x1": x1, "x2": x2, "kind": kind}


def train_fn(features, labels):
    return tf.estimator.inputs.numpy_input_fn(features, labels, batch_size=32,
                                              num_epochs=None, shuffle=True)


def eval_fn(features, labels=None, batch_size=400):
    return tf.estimator.inputs.numpy_input_fn(features, labels, batch_size=batch_size,
                                              shuffle=False)


def columns():
    kind = fc.categorical_column_with_vocabulary_list("kind", ["a", "b", "c"])
    dense = [fc.numeric_column("x1"), fc.numeric_column("x2"), fc.indicator_column(kind)]
    linear = [fc.numeric_column("x1"), fc.numeric_column("x2"), kind]
    return dense, linear


def config():
    return tf.estimator.RunConfig(tf_random_seed=7, save_checkpoints_steps=None,
                                  save_checkpoints_secs=600)


def test_dnn_classifier_binary_metrics_match_predictions(tmp_path):
    data = make_data()
    labels = ((data["x1"] + data["x2"] + (data["kind"] == "a")) > 0.5).astype(np.int64)
    dense, _ = columns()
    est = tf.estimator.DNNClassifier([16, 8], dense, model_dir=str(tmp_path), config=config())
    est.train(train_fn(data, labels), steps=300)
    names = set(est.get_variable_names())
    assert {"dnn/hiddenlayer_0/kernel", "dnn/hiddenlayer_0/bias", "dnn/hiddenlayer_1/kernel",
            "dnn/logits/kernel", "dnn/logits/bias", "global_step"} <= names
    assert "dnn/hiddenlayer_0/kernel/t_0/Adagrad" in names  # TF 1.15's slot name

    results = est.evaluate(eval_fn(data, labels))
    assert set(results) == BINARY_METRICS
    assert results["accuracy"] > 0.9

    preds = list(est.predict(eval_fn(data)))
    assert set(preds[0]) == {"logits", "logistic", "probabilities", "class_ids", "classes",
                             "all_class_ids", "all_classes"}
    logistic = np.array([p["logistic"][0] for p in preds])
    class_ids = np.array([p["class_ids"][0] for p in preds])
    assert preds[0]["classes"][0] == str(class_ids[0]).encode()
    # (softmax of [0, logit] against the sigmoid: TF 1.15's float32 sigmoid is good to ~1e-7)
    np.testing.assert_allclose([p["probabilities"][1] for p in preds], logistic, rtol=1e-5,
                               atol=2e-7)
    np.testing.assert_allclose(results["accuracy"], np.mean(class_ids == labels), rtol=1e-6)
    np.testing.assert_allclose(results["prediction/mean"], logistic.mean(), rtol=1e-4)
    np.testing.assert_allclose(results["label/mean"], labels.mean(), rtol=1e-6)
    np.testing.assert_allclose(results["accuracy_baseline"],
                               max(labels.mean(), 1 - labels.mean()), rtol=1e-6)
    tp = np.sum((class_ids == 1) & (labels == 1))
    np.testing.assert_allclose(results["precision"], tp / np.sum(class_ids == 1), rtol=1e-5)
    np.testing.assert_allclose(results["recall"], tp / np.sum(labels == 1), rtol=1e-5)
    eps = 1e-7
    ce = -(labels * np.log(logistic + eps) + (1 - labels) * np.log(1 - logistic + eps))
    np.testing.assert_allclose(results["average_loss"], ce.mean(), rtol=1e-3, atol=1e-5)
    # the training loss is summed over the batch (TF 1.x's Reduction.SUM): one eval batch
    np.testing.assert_allclose(results["loss"], ce.sum(), rtol=1e-3)


def test_linear_classifier_multiclass_with_label_vocabulary(tmp_path):
    data = make_data(seed=1)
    names = np.array(["neg", "zero", "pos"])
    score = 2 * data["x1"] - data["x2"]
    labels = names[(score > -1).astype(int) + (score > 1)]
    _, linear = columns()
    est = tf.estimator.LinearClassifier(linear, n_classes=3, label_vocabulary=list(names),
                                        model_dir=str(tmp_path), config=config())
    est.train(train_fn(data, labels), steps=300)
    assert {"linear/linear_model/x1/weights", "linear/linear_model/kind/weights",
            "linear/linear_model/bias_weights"} <= set(est.get_variable_names())
    assert est.get_variable_value("linear/linear_model/x1/weights").shape == (1, 3)
    results = est.evaluate(eval_fn(data, labels))
    assert set(results) == {"accuracy", "average_loss", "loss", "global_step"}
    assert results["accuracy"] > 0.85
    preds = list(est.predict(eval_fn(data)))
    classes = np.array([p["classes"][0].decode() for p in preds])
    np.testing.assert_allclose(np.mean(classes == labels), results["accuracy"], rtol=1e-6)
    assert list(preds[0]["all_classes"]) == [b"neg", b"zero", b"pos"]


@pytest.mark.parametrize("kind", ["dnn", "linear"])
def test_regressors_fit_a_linear_function(tmp_path, kind):
    data = make_data(seed=2)
    target = (1.5 * data["x1"] - 0.5 * data["x2"] + 2.0 * (data["kind"] == "b")).astype(
        np.float32)
    dense, linear = columns()
    if kind == "dnn":
        est = tf.estimator.DNNRegressor([16], dense, model_dir=str(tmp_path), config=config(),
                                        optimizer=tf.train.AdamOptimizer(0.02))
    else:
        est = tf.estimator.LinearRegressor(linear, model_dir=str(tmp_path), config=config())
    before = est.evaluate(eval_fn(data, target))["average_loss"]
    est.train(train_fn(data, target), steps=400)
    results = est.evaluate(eval_fn(data, target))
    assert set(results) == {"average_loss", "label/mean", "loss", "prediction/mean",
                            "global_step"}
    assert results["average_loss"] < 0.05 * before, (before, results)
    preds = np.array([p["predictions"][0] for p in est.predict(eval_fn(data))])
    np.testing.assert_allclose(results["average_loss"], np.mean((preds - target) ** 2),
                               rtol=1e-3)


def test_wide_and_deep_classifier_learns(tmp_path):
    data = make_data(seed=3)
    labels = (data["x1"] > 0).astype(np.int64)
    dense, linear = columns()
    est = tf.estimator.DNNLinearCombinedClassifier(
        model_dir=str(tmp_path), linear_feature_columns=linear, dnn_feature_columns=dense,
        dnn_hidden_units=[8], dnn_optimizer=tf.train.AdagradOptimizer(0.1), config=config())
    est.train(train_fn(data, labels), steps=200)
    names = set(est.get_variable_names())
    assert "dnn/logits/kernel" in names and "linear/linear_model/x1/weights" in names
    assert est.get_variable_value("global_step") == 200
    assert est.evaluate(eval_fn(data, labels))["accuracy"] > 0.9


def test_canned_export_has_classification_and_predict_signatures(tmp_path):
    data = make_data(n=64, seed=4)
    labels = (data["x1"] > 0).astype(np.int64)
    dense, _ = columns()
    est = tf.estimator.DNNClassifier([4], dense, model_dir=str(tmp_path / "m"),
                                     config=config())
    est.train(train_fn(data, labels), steps=5)
    spec = fc.make_parse_example_spec(dense)
    export_dir = est.export_saved_model(
        str(tmp_path / "e"), tf.estimator.export.build_parsing_serving_input_receiver_fn(spec))
    expected = next(est.predict(eval_fn({k: v[:1] for k, v in data.items()})))
    ex = tf.train.Example(features=tf.train.Features(feature={
        "x1": tf.train.Feature(float_list=tf.train.FloatList(value=[data["x1"][0]])),
        "x2": tf.train.Feature(float_list=tf.train.FloatList(value=[data["x2"][0]])),
        "kind": tf.train.Feature(bytes_list=tf.train.BytesList(
            value=[data["kind"][0].encode()]))}))
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], export_dir.decode())
        assert {"serving_default", "classification", "regression", "predict"} <= set(
            meta.signature_def)
        sig = meta.signature_def["serving_default"]
        scores = sess.run(sess.graph.get_tensor_by_name(sig.outputs["scores"].name),
                          {sess.graph.get_tensor_by_name(sig.inputs["inputs"].name):
                           [ex.SerializeToString()]})
    np.testing.assert_allclose(scores[0], expected["probabilities"], rtol=1e-5)


def test_canned_argument_errors():
    dense, _ = columns()
    with pytest.raises(ValueError, match="n_classes must be > 2: 1."):  # (TF 1.15's words)
        tf.estimator.DNNClassifier([4], dense, n_classes=1)
    with pytest.raises(ValueError, match="Unsupported optimizer name"):
        est = tf.estimator.LinearRegressor(dense[:2], optimizer="Nope")
        data = make_data(n=8)
        est.train(train_fn(data, data["x1"]), steps=1)
    # TF 1.15 makes it; the input layer rejects no columns when the model is built
    est = tf.estimator.DNNRegressor([4], [])
    with pytest.raises(ValueError, match="feature_columns must not be empty"):
        data = make_data(n=8)
        est.train(train_fn(data, data["x1"]), steps=1)


def test_weight_column_and_training_summaries(tmp_path):
    from tideflow.summary.summary_iterator import summary_iterator

    data = make_data(n=200, seed=5)
    labels = (data["x1"] > 0).astype(np.int64)
    data["w"] = np.where(data["x2"] > 0, 3.0, 1.0).astype(np.float32)
    _, linear = columns()
    est = tf.estimator.LinearClassifier(linear, weight_column="w", model_dir=str(tmp_path),
                                        config=tf.estimator.RunConfig(save_summary_steps=5))
    est.train(train_fn(data, labels), steps=10)
    tags = set()
    for path in tmp_path.glob("events.out.tfevents.*"):
        for ev in summary_iterator(str(path)):
            tags.update(v.tag for v in ev.summary.value)
    assert {"loss", "average_loss"} <= tags
    results = est.evaluate(eval_fn(data, labels, batch_size=200))
    class_ids = np.array([p["class_ids"][0] for p in est.predict(eval_fn(data))])
    w = data["w"]
    np.testing.assert_allclose(results["accuracy"], np.sum(w * (class_ids == labels)) / w.sum(),
                               rtol=1e-5)
    np.testing.assert_allclose(results["label/mean"], np.sum(w * labels) / w.sum(), rtol=1e-5)


def test_public_heads_in_a_custom_model_fn(tmp_path):
    """tf.estimator.RegressionHead / MultiClassHead build the spec of a custom model_fn; the
    loss is averaged over the batch (the v2 heads' default)."""
    data = make_data(n=200, seed=6)
    target = (2.0 * data["x1"] + 1.0).astype(np.float32)
    head = tf.estimator.RegressionHead()

    def model_fn(features, labels, mode):
        # TF 1.15's public heads train with a Keras optimizer (a tf.train one is a
        # ValueError) over the trainable variables given, resource variables
        with tf.variable_scope(tf.get_variable_scope(), use_resource=True):
            logits = tf.layers.dense(tf.stack([features["x1"], features["x2"]], 1), 1)
        optimizer = tf.keras.optimizers.SGD(0.1)
        optimizer.iterations = tf.train.get_or_create_global_step()
        return head.create_estimator_spec(features, mode, logits, labels, optimizer=optimizer,
                                          trainable_variables=tf.trainable_variables())

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path), config=config())
    est.train(train_fn(data, target), steps=200)
    results = est.evaluate(eval_fn(data, target, batch_size=50))
    assert results["average_loss"] < 1e-3
    np.testing.assert_allclose(results["loss"], results["average_loss"], rtol=1e-4)
    kernel = est.get_variable_value("dense/kernel")
    np.testing.assert_allclose(kernel[:, 0], [2.0, 0.0], atol=0.05)

    multi = tf.estimator.DNNEstimator(head=tf.estimator.MultiClassHead(3), hidden_units=[8],
                                      feature_columns=columns()[0],
                                      model_dir=str(tmp_path / "multi"), config=config())
    labels = (data["x1"] > 0).astype(np.int64) + (data["x1"] > 1)
    multi.train(train_fn(data, labels), steps=50)
    assert set(multi.evaluate(eval_fn(data, labels))) == {"accuracy", "average_loss", "loss",
                                                          "global_step"}
    with pytest.raises(ValueError, match="n_classes must be > 2"):
        tf.estimator.MultiClassHead(1)


def test_add_metrics_extends_the_evaluation(tmp_path):
    data = make_data(n=100, seed=7)
    target = (data["x1"] - data["x2"]).astype(np.float32)
    _, linear = columns()
    est = tf.estimator.LinearRegressor(linear[:2], model_dir=str(tmp_path))
    est.train(train_fn(data, target), steps=20)

    def metric_fn(labels, predictions):
        return {"rmse": tf.metrics.root_mean_squared_error(labels,
                                                           predictions["predictions"])}

    extended = tf.estimator.add_metrics(est, metric_fn)
    results = extended.evaluate(eval_fn(data, target, batch_size=100))
    assert set(results) == {"rmse", "average_loss", "label/mean", "prediction/mean", "loss",
                            "global_step"}
    np.testing.assert_allclose(results["rmse"] ** 2, results["average_loss"], rtol=1e-4)
    assert tf.estimator.RunConfig().cluster_spec.as_dict() == {}


def _adam_step(learning_rate):
    def train_op_fn(loss):
        return tf.train.AdamOptimizer(learning_rate).minimize(
            loss, global_step=tf.train.get_global_step())

    return train_op_fn


def test_logit_fn_builders_in_a_custom_model_fn(tmp_path):
    data = make_data(n=200, seed=8)
    labels = (data["x1"] > 0).astype(np.int64)
    dense, linear = columns()
    exp = tf.estimator.experimental

    def model_fn(features, labels, mode, params, config):
        dnn_fn = exp.dnn_logit_fn_builder(1, [4], dense, tf.nn.relu, None)
        lin_fn = exp.linear_logit_fn_builder(1, linear)
        logits = (exp.call_logit_fn(dnn_fn, features, mode, params, config)
                  + exp.call_logit_fn(lin_fn, features, mode, params, config))
        head = tf.estimator.BinaryClassHead()
        # (TF 1.15's public heads take a tf.train optimizer through train_op_fn only)
        return head.create_estimator_spec(features, mode, logits, labels,
                                          train_op_fn=_adam_step(0.05))

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path), config=config())
    est.train(train_fn(data, labels), steps=100)
    names = set(est.get_variable_names())
    # as TF: the DNN logit fn builds under dnn/, the linear one under linear_model/ only
    assert {"dnn/hiddenlayer_0/kernel", "dnn/logits/bias",
            "linear_model/x1/weights"} <= names
    assert est.evaluate(eval_fn(data, labels))["accuracy"] > 0.9


def test_poisson_regression_head_recovers_the_rates(tmp_path):
    rng = np.random.RandomState(0)
    x = rng.rand(400, 2).astype(np.float32)
    counts = rng.poisson(np.exp(1.0 + x[:, 0] - x[:, 1])).astype(np.float32)

    def model_fn(features, labels, mode):
        logits = tf.layers.dense(features["x"], 1)
        head = tf.estimator.PoissonRegressionHead()
        return head.create_estimator_spec(features, mode, logits, labels,
                                          train_op_fn=_adam_step(0.05))

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path), config=config())
    est.train(tf.estimator.inputs.numpy_input_fn({"x": x}, counts, batch_size=40,
                                                 num_epochs=None, shuffle=True), steps=400)
    np.testing.assert_allclose(est.get_variable_value("dense/kernel").ravel(), [1.0, -1.0],
                               atol=0.3)
    np.testing.assert_allclose(est.get_variable_value("dense/bias"), [1.0], atol=0.3)
    pred = next(est.predict(tf.estimator.inputs.numpy_input_fn({"x": x[:1]}, shuffle=False)))
    np.testing.assert_allclose(pred["predictions"], np.exp(pred["logits"]), rtol=1e-5)
    logistic = tf.estimator.LogisticRegressionHead()
    with tf.Graph().as_default():
        spec = logistic.create_estimator_spec({}, "infer", tf.constant([[0.0], [2.0]]))
        got = run_predictions(spec)
    np.testing.assert_allclose(got.ravel(), 1 / (1 + np.exp(-np.array([0.0, 2.0]))),
                               rtol=1e-6)


def run_predictions(spec):
    with tf.Session() as sess:
        return sess.run(spec.predictions["predictions"])
