"""tf.contrib.learn's heads, head-taking estimators, LogisticRegressor, SVM and the SDCA
optimizer (tf.contrib.linear_optimizer, tf.train.sdca_optimizer), graph actions and the
smaller TF 1.15 names; the expected numbers and names were measured in TF 1.15."""

import tempfile

import numpy as np
import pytest

import tideflow as tf

L = tf.contrib.learn


def _run_head(head, logits, labels, w=None):
    with tf.Graph().as_default():
        feats = {"x": tf.constant([[1.], [2.], [3.], [4.]])}
        if w is not None:
            feats["w"] = tf.constant(w, tf.float32)
        ops = head.create_model_fn_ops(feats, L.ModeKeys.EVAL, labels=tf.constant(labels),
                                       train_op_fn=L.no_op_train_fn,
                                       logits=tf.constant(logits, tf.float32))
        with tf.Session() as s:
            s.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            s.run([v[1] for v in ops.eval_metric_ops.values()])
            metrics = s.run({k: v[0] for k, v in ops.eval_metric_ops.items()})
            return float(s.run(ops.loss)), s.run(ops.predictions), metrics


# (head, logits, labels, weights, loss, {prediction key: values}, {metric: value}): TF 1.15
_HEADS = [
    (lambda: L.regression_head(), [[0.5], [1.5], [2.], [3.5]], [[1.], [1.], [2.], [3.]], None,
     0.1875, {"scores": [0.5, 1.5, 2.0, 3.5]}, {"loss": 0.1875}),
    (lambda: L.regression_head(weight_column_name="w"), [[0.5], [1.5], [2.], [3.5]],
     [[1.], [1.], [2.], [3.]], [[1.], [2.], [0.5], [1.]], 0.25, {}, {"loss": 0.22222}),
    (lambda: L.poisson_regression_head(), [[0.5], [1.5], [0.2], [0.1]],
     [[1.], [3.], [2.], [0.]], None, 1.368217945098877,
     {"scores": [1.64872, 4.48169, 1.2214, 1.10517]}, {"loss": 1.36822}),
    (lambda: L.multi_class_head(2, thresholds=[0.3, 0.5]), [[0.5], [-1.5], [2.], [-0.1]],
     [[1], [0], [0], [1]], None, 0.8867037296295166,
     {"classes": [1, 0, 1, 0], "logistic": [[0.62246], [0.18243], [0.8808], [0.47502]],
      "probabilities": [[0.37754, 0.62246], [0.81757, 0.18243], [0.1192, 0.8808],
                        [0.52498, 0.47502]]},
     {"accuracy": 0.5, "accuracy/baseline_label_mean": 0.5,
      "accuracy/threshold_0.300000_mean": 0.75, "accuracy/threshold_0.500000_mean": 0.5,
      "auc": 0.5, "auc_precision_recall": 0.41667, "labels/actual_label_mean": 0.5,
      "labels/prediction_mean": 0.54018, "loss": 0.8867,
      "precision/positive_threshold_0.300000_mean": 0.66667,
      "precision/positive_threshold_0.500000_mean": 0.5,
      "recall/positive_threshold_0.300000_mean": 1.0,
      "recall/positive_threshold_0.500000_mean": 0.5}),
    (lambda: L.multi_class_head(3, metric_class_ids=[1]),
     [[0.5, 1., 0.], [-1.5, 2., 0.3], [2., 0., 1.], [0., 0.1, 0.2]], [[0], [1], [2], [2]],
     None, 0.9457042813301086, {"classes": [1, 1, 0, 2]},
     {"accuracy": 0.5, "labels/actual_label_mean/class1": 0.25,
      "labels/logits_mean/class1": 0.775, "labels/prediction_mean/class1": 0.5,
      "labels/probability_mean/class1": 0.4383, "loss": 0.9457}),
    (lambda: L.binary_svm_head(), [[0.5], [-1.5], [2.], [-0.1]], [[1], [0], [0], [1]], None,
     1.149999976158142, {"classes": [1, 0, 1, 0]}, {"accuracy": 0.5, "loss": 1.15}),
    (lambda: L.multi_label_head(3, metric_class_ids=[0]),
     [[0.5, 1., -1.], [-1.5, 2., 0.3], [2., -3., 1.], [0., 0.1, -0.2]],
     [[1, 0, 0], [0, 1, 1], [1, 0, 1], [0, 0, 1]], None, 0.47564640641212463,
     {"classes": [[1, 1, 0], [0, 1, 1], [1, 0, 1], [0, 1, 0]]},
     {"accuracy": 0.75, "auc": 0.84722, "auc/class0": 1.0, "auc_precision_recall": 0.85208,
      "auc_precision_recall/class0": 1.0, "labels/actual_label_mean/class0": 0.5,
      "labels/logits_mean/class0": 0.25, "labels/prediction_mean/class0": 0.5,
      "labels/probability_mean/class0": 0.54642, "loss": 0.47565}),
]


@pytest.mark.parametrize("case", _HEADS, ids=["reg", "reg_w", "poisson", "binary", "multi",
                                              "svm", "multi_label"])
def test_head_loss_predictions_and_metrics_match_tf(case):
    make, logits, labels, w, loss, preds, metrics = case
    got_loss, got_preds, got_metrics = _run_head(make(), logits, labels, w)
    np.testing.assert_allclose(got_loss, loss, rtol=1e-6)
    for key, value in preds.items():
        np.testing.assert_allclose(np.asarray(got_preds[key], np.float64), value, atol=1e-5)
    assert sorted(got_metrics) == sorted(metrics)
    for key, value in metrics.items():
        np.testing.assert_allclose(got_metrics[key], value, atol=1e-4, err_msg=key)


def test_multi_head_and_logits_input():
    mh = L.multi_head([L.regression_head(head_name="r", label_name="r"),
                       L.multi_class_head(3, head_name="c", label_name="c")],
                      loss_weights=[1., 2.])
    assert mh.logits_dimension == 4
    with tf.Graph().as_default():
        feats = {"x": tf.constant([[1.], [2.]])}
        ops = mh.create_model_fn_ops(
            feats, L.ModeKeys.EVAL,
            labels={"r": tf.constant([[1.], [2.]]), "c": tf.constant([[0], [2]])},
            logits=tf.constant([[0.5, 1., 0., 2.], [1., 0., 0., 1.]]))
        assert sorted(ops.predictions) == [("c", "classes"), ("c", "logits"),
                                           ("c", "probabilities"), ("r", "scores")]
        assert sorted(ops.eval_metric_ops) == ["accuracy/c", "loss/c", "loss/r"]
        with tf.Session() as s:
            s.run(tf.local_variables_initializer())
            np.testing.assert_allclose(s.run(ops.loss), 2.5840506553649902, rtol=1e-6)
        ops = L.regression_head().create_model_fn_ops(
            feats, L.ModeKeys.INFER, logits_input=tf.constant([[1., 2.], [3., 4.]]))
        assert [(v.name, v.shape.as_list()) for v in tf.global_variables()] == [
            ("regression_head/logits/weights:0", [2, 1]),
            ("regression_head/logits/biases:0", [1])]
        assert ops.predictions["scores"].name == "regression_head/predictions/Identity:0"


def test_head_factory_errors():
    with pytest.raises(ValueError, match=r"n_classes must be > 1 for classification: 1\."):
        L.multi_class_head(1)
    with pytest.raises(ValueError, match="metric_class_ids invalid for n_classes==2"):
        L.multi_class_head(2, metric_class_ids=[0])
    with pytest.raises(ValueError, match="Length of label_keys must equal n_classes"):
        L.multi_class_head(3, label_keys=["a"])


_RNG = np.random.RandomState(0)
_X = _RNG.randn(40, 2).astype(np.float32)
_Y = (_X[:, 0] + 0.5 * _X[:, 1] > 0).astype(np.int64)
_R = (_X[:, 0] * 2 - _X[:, 1] + 0.3).astype(np.float32)


def _inp(y):
    def f():
        return {"x": tf.constant(_X)}, tf.constant(y.reshape(-1, 1))
    return f


def _col():
    return tf.contrib.layers.real_valued_column("x", dimension=2)


def _model_names(est):
    return sorted(n for n in est.get_variable_names()
                  if not n.endswith(("Adagrad", "Ftrl", "Ftrl_1")))


def test_dnn_estimator_structure_matches_tf():
    est = L.DNNEstimator(L.regression_head(), [4], [_col()], model_dir=tempfile.mkdtemp(),
                         config=L.RunConfig(tf_random_seed=1))
    first = est.fit(input_fn=_inp(_R), steps=1).evaluate(input_fn=_inp(_R), steps=1)["loss"]
    # TF 1.15 with the same seed: the first layer after one step, the loss after 20
    np.testing.assert_allclose(est.get_variable_value("dnn/hiddenlayer_0/weights"),
                               [[-0.3305, -0.4496, 0.842, 0.28],
                                [-0.8278, -0.5392, 0.9147, -0.4536]], atol=1e-4)
    est.fit(input_fn=_inp(_R), steps=19)
    np.testing.assert_allclose(est.evaluate(input_fn=_inp(_R), steps=1)["loss"], 1.78078,
                               atol=2e-5)
    # TF 1.15: the network's weights, the head's learning rate under the dnn scope
    assert _model_names(est) == [
        "dnn/hiddenlayer_0/biases", "dnn/hiddenlayer_0/weights", "dnn/logits/biases",
        "dnn/logits/weights", "dnn/regression_head/dnn/learning_rate", "global_step"]
    assert est.get_variable_value("dnn/hiddenlayer_0/weights").shape == (2, 4)
    ev = est.evaluate(input_fn=_inp(_R), steps=1)
    assert sorted(ev) == ["global_step", "loss"]
    assert ev["loss"] < first
    assert sorted(next(est.predict(input_fn=_inp(_R)))) == ["scores"]


def test_linear_estimator_binary_values_match_tf():
    est = L.LinearEstimator([_col()], L.multi_class_head(2), model_dir=tempfile.mkdtemp(),
                            optimizer=tf.train.GradientDescentOptimizer(0.1))
    est.fit(input_fn=_inp(_Y), steps=20)
    assert _model_names(est) == ["global_step", "linear/bias_weight", "linear/x/weight"]
    ev = est.evaluate(input_fn=_inp(_Y), steps=1)
    expected = {  # TF 1.15
        "accuracy": 0.925, "accuracy/baseline_label_mean": 0.475,
        "accuracy/threshold_0.500000_mean": 0.925, "auc": 0.995,
        "auc_precision_recall": 0.9949, "global_step": 20.0, "labels/actual_label_mean": 0.475,
        "labels/prediction_mean": 0.4876, "loss": 0.4579,
        "precision/positive_threshold_0.500000_mean": 0.9,
        "recall/positive_threshold_0.500000_mean": 0.9474}
    assert sorted(ev) == sorted(expected)
    for key, value in expected.items():
        np.testing.assert_allclose(ev[key], value, atol=2e-4, err_msg=key)
    assert sorted(next(est.predict(input_fn=_inp(_Y)))) == ["classes", "logistic", "logits",
                                                             "probabilities"]


def test_linear_and_combined_estimators_structure():
    y3 = (_Y + (_X[:, 1] > 1)).astype(np.int64)
    lin = L.LinearEstimator([_col()], L.multi_class_head(3), model_dir=tempfile.mkdtemp())
    lin.fit(input_fn=_inp(y3), steps=5)
    # TF 1.15's names, its FTRL slots' too
    assert sorted(lin.get_variable_names()) == [
        "global_step", "linear/bias_weight", "linear/bias_weight/near/bias_weight/part_0/Ftrl",
        "linear/bias_weight/near/bias_weight/part_0/Ftrl_1", "linear/x/weight",
        "linear/x/weight//linear/x/weight/part_0/Ftrl",
        "linear/x/weight//linear/x/weight/part_0/Ftrl_1"]
    assert lin.get_variable_value("linear/x/weight").shape == (2, 3)
    ev = lin.evaluate(input_fn=_inp(y3), steps=1)
    assert sorted(ev) == ["accuracy", "global_step", "loss"]
    np.testing.assert_allclose(ev["loss"], 0.67528, atol=2e-5)  # TF 1.15
    dlc = L.DNNLinearCombinedEstimator(L.regression_head(), linear_feature_columns=[_col()],
                                       dnn_feature_columns=[_col()], dnn_hidden_units=[3],
                                       model_dir=tempfile.mkdtemp(),
                                       config=L.RunConfig(tf_random_seed=1))
    dlc.fit(input_fn=_inp(_R), steps=3)
    np.testing.assert_allclose(dlc.evaluate(input_fn=_inp(_R), steps=1)["loss"], 6.20592,
                               atol=2e-5)  # TF 1.15, same seed
    names = _model_names(dlc)
    assert names == [
        "dnn/hiddenlayer_0/biases", "dnn/hiddenlayer_0/weights", "dnn/logits/biases",
        "dnn/logits/weights", "global_step", "linear/bias_weight", "linear/x/weight",
        "regression_head/dnn/learning_rate", "regression_head/linear/learning_rate"]
    # both parts step the global step (TF 1.15's default, fix_global_step_increment_bug off):
    # steps=3 ends at 4 in TF 1.15, at 3 with the fix
    assert dlc.get_variable_value("global_step") == 4
    fixed = L.DNNLinearCombinedEstimator(L.regression_head(), linear_feature_columns=[_col()],
                                         dnn_feature_columns=[_col()], dnn_hidden_units=[3],
                                         model_dir=tempfile.mkdtemp(),
                                         fix_global_step_increment_bug=True)
    assert fixed.fit(input_fn=_inp(_R), steps=3).get_variable_value("global_step") == 3


def test_logistic_regressor_metrics_match_tf():
    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
        logits = tf.matmul(features["x"], w) + b
        loss = tf.losses.sigmoid_cross_entropy(tf.cast(labels, tf.float32), logits)
        train = tf.train.GradientDescentOptimizer(0.5).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.sigmoid(logits), loss, train

    lr = L.LogisticRegressor(model_fn, thresholds=[0.3, 0.5], model_dir=tempfile.mkdtemp())
    lr.fit(input_fn=_inp(_Y), steps=5)
    ev = lr.evaluate(input_fn=_inp(_Y), steps=1)
    expected = {  # TF 1.15
        "accuracy/baseline_label_mean": 0.475, "accuracy/threshold_0.300000_mean": 0.7,
        "accuracy/threshold_0.500000_mean": 0.925, "auc": 0.99499, "global_step": 5.0,
        "labels/actual_label_mean": 0.475, "labels/prediction_mean": 0.48521,
        "loss": 0.41976, "precision/positive_threshold_0.300000_mean": 0.6129,
        "precision/positive_threshold_0.500000_mean": 0.9,
        "recall/positive_threshold_0.300000_mean": 1.0,
        "recall/positive_threshold_0.500000_mean": 0.94737}
    assert sorted(ev) == sorted(expected)
    for key, value in expected.items():
        np.testing.assert_allclose(ev[key], value, atol=1e-4, err_msg=key)


# --- SDCA -------------------------------------------------------------------------------


def _sdca(loss_type, x, y, steps, l1=0.0, l2=1.0, adaptive=False, w=None, sparse=None):
    lo = tf.contrib.linear_optimizer
    with tf.Graph().as_default():
        n = len(y)
        dw = tf.Variable(tf.zeros([x.shape[1]]), name="dw")
        sws, sfcs = [], []
        if sparse is not None:
            ex, feat, vals, vocab = sparse
            sws.append(tf.Variable(tf.zeros([vocab]), name="sw"))
            sfcs.append(lo.SparseFeatureColumn(tf.constant(ex, tf.int64),
                                               tf.constant(feat, tf.int64),
                                               tf.constant(vals, tf.float32)))
        examples = {"sparse_features": sfcs, "dense_features": [tf.constant(x, tf.float32)],
                    "example_labels": tf.constant(y, tf.float32),
                    "example_weights": tf.constant(np.ones(n) if w is None else w,
                                                   tf.float32),
                    "example_ids": tf.constant([str(i) for i in range(n)])}
        model = lo.SdcaModel(examples, {"sparse_features_weights": sws,
                                        "dense_features_weights": [dw]},
                             {"symmetric_l1_regularization": l1,
                              "symmetric_l2_regularization": l2, "loss_type": loss_type,
                              "adaptive": adaptive})
        train = model.update_weights(model.minimize())
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for _ in range(steps):
                s.run(train)
            out = [s.run(dw)] + [s.run(v) for v in sws]
            return out + [s.run(model.regularized_loss(examples)),
                          s.run(model.predictions(examples))]


# one example: a step maximizes its dual exactly, so TF 1.15's weights are reproducible
_ONE = [("logistic_loss", 1., [0.2300745, -0.4601489, 0.1150372], 0.4004139, [0.7699255]),
        ("squared_loss", 2.5, [0.4, -0.8, 0.2], 0.5000001, [2.0999999]),
        ("hinge_loss", 0., [-0.1904762, 0.3809524, -0.0952381], 0.0952381, [-1.0]),
        ("smooth_hinge_loss", 1., [0.16, -0.32, 0.08], 0.2272, [0.84]),
        ("poisson_loss", 3., [0.1963651, -0.3927302, 0.0981826], -0.1878973, [2.8036351])]


@pytest.mark.parametrize("case", _ONE, ids=[c[0] for c in _ONE])
def test_sdca_one_example_step_matches_tf(case):
    loss_type, label, weights, reg_loss, preds = case
    dw, loss, p = _sdca(loss_type, np.array([[1.0, -2.0, 0.5]]), np.array([label]), 1)
    np.testing.assert_allclose(dw, weights, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(loss, reg_loss, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(p, preds, rtol=1e-5)


_XS = np.array([[1., 0.5], [-1., 2.], [0.3, -0.7], [2., 1.], [-0.5, -1.5]])
_YB = np.array([1., 0., 1., 1., 0.])
_YR = np.array([1.5, -2., 0.7, 3., -1.])


# TF 1.15 after 300 passes (its example order is random and its kernel threaded; both reach
# the regularized optimum, which is what is compared)
@pytest.mark.parametrize("case", [
    ("logistic_loss", _YB, 0.0, 1.0, True, [1.04961, -0.00686], 0.45591),
    ("hinge_loss", _YB, 0.0, 1.0, False, [1.16, 0.08], 0.3368),
    ("smooth_hinge_loss", _YB, 0.0, 2.0, True, [0.64313, -0.00919], 0.5213),
    ("squared_loss", _YR, 0.5, 1.0, False, [1.32474, -0.0131], 0.38932),
    ("logistic_loss", _YB, 0.2, 1.0, False, [0.94405, 0.0], 0.49577),
], ids=["logistic", "hinge", "smooth_hinge_l2", "squared_l1", "logistic_l1"])
def test_sdca_converges_to_tf_weights(case):
    loss_type, y, l1, l2, adaptive, weights, reg_loss = case
    dw, loss, _ = _sdca(loss_type, _XS, y, 300, l1=l1, l2=l2, adaptive=adaptive)
    np.testing.assert_allclose(dw, weights, atol=2e-5)
    np.testing.assert_allclose(loss, reg_loss, atol=2e-5)


def test_sdca_sparse_and_weighted_examples_match_tf():
    dw, sw, loss, p = _sdca("squared_loss", _XS, _YR, 300, w=np.array([1., 2., 1., .5, 1.]),
                            sparse=([0, 1, 1, 3, 4], [0, 2, 1, 2, 0], [1., 2., .5, 1., -1.], 3))
    np.testing.assert_allclose(dw, [1.25739, -0.06018], atol=2e-5)
    np.testing.assert_allclose(sw, [0.24476, -0.14427, -0.20292], atol=2e-5)
    np.testing.assert_allclose(loss, 0.19588, atol=2e-5)
    np.testing.assert_allclose(p, [1.47206, -1.85573, 0.41935, 2.25169, -0.78318], atol=5e-5)


def test_sdca_raw_op_and_errors():
    with tf.Graph().as_default(), tf.Session() as s:
        state, sparse, dense = tf.train.sdca_optimizer(
            [], [], [], [tf.constant([[1.0, -2.0, 0.5]])], [1.0], [2.5], [], [],
            [tf.zeros([3])], tf.zeros([1, 4]), loss_type="squared_loss", l1=0.0, l2=1.0,
            num_loss_partitions=1, num_inner_iterations=1)
        assert state.op.type == "SdcaOptimizer" and sparse == []
        st, d = s.run([state, dense[0]])
        # the dual moves to (y - wx) / (1 + |x|^2 / l2) = 2.5 / 6.25; the deltas are dual * x
        np.testing.assert_allclose(st, [[0.4, 0.0 + 3.125, 0.0, 1.0]], rtol=1e-6)
        np.testing.assert_allclose(d, [0.4, -0.8, 0.2], rtol=1e-6)
        bad, _, _ = tf.train.sdca_optimizer(
            [], [], [], [tf.constant([[1.0]])], [1.0], [2.0], [], [], [tf.zeros([1])],
            tf.zeros([1, 4]), loss_type="logistic_loss", l1=0.0, l2=1.0,
            num_loss_partitions=1, num_inner_iterations=1)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Only labels of 0.0 or 1.0 are supported right now. Found "
                                 "example with label: 2"):
            s.run(bad)
    with pytest.raises(ValueError, match="Unsupported loss_type"):
        tf.contrib.linear_optimizer.SdcaModel({"x": 1}, {"y": 1}, {"loss_type": "nope"})
    # TF's implementation module paths
    from tideflow.contrib.linear_optimizer.python.ops.sdca_ops import SdcaModel
    from tideflow.contrib.linear_optimizer.python.sdca_optimizer import SDCAOptimizer

    assert SdcaModel is tf.contrib.linear_optimizer.SdcaModel
    assert SDCAOptimizer is tf.contrib.linear_optimizer.SDCAOptimizer


def _svm_input():
    x = np.array([[1., 0.5], [-1., 2.], [0.3, -0.7], [2., 1.], [-0.5, -1.5]], np.float32)
    return ({"example_id": tf.constant([str(i) for i in range(5)]), "x": tf.constant(x),
             "c": tf.SparseTensor([[0, 0], [1, 0], [3, 0], [4, 0]], ["a", "b", "a", "c"],
                                  [5, 1])},
            tf.constant([[1], [0], [1], [1], [0]]))


def test_svm_and_sdca_linear_classifier_match_tf():
    x = tf.contrib.layers.real_valued_column("x", dimension=2)
    c = tf.contrib.layers.sparse_column_with_keys("c", ["a", "b", "c"])
    svm = L.SVM("example_id", [x, c], l2_regularization=1.0, model_dir=tempfile.mkdtemp())
    svm.fit(input_fn=_svm_input, steps=100)
    # TF 1.15
    np.testing.assert_allclose(svm.get_variable_value("linear/bias_weight"), [0.1146],
                               atol=1e-4)
    np.testing.assert_allclose(svm.get_variable_value("linear/c/weights").ravel(),
                               [0.0217, -0.1979, -0.7092], atol=1e-4)
    np.testing.assert_allclose(svm.get_variable_value("linear/x/weight").ravel(),
                               [0.8743, -0.0212], atol=1e-4)
    assert sorted(n for n in svm.get_variable_names() if "Hash" not in n) == [
        "binary_svm_head/train_op/linear/bias_weight_unshrinked/SDCAOptimizer",
        "binary_svm_head/train_op/linear/c/weights_unshrinked/SDCAOptimizer",
        "binary_svm_head/train_op/linear/x/weight_unshrinked/SDCAOptimizer",
        "global_step", "linear/bias_weight", "linear/c/weights", "linear/x/weight"]
    ev = svm.evaluate(input_fn=_svm_input, steps=1)
    assert sorted(ev) == ["accuracy", "global_step", "loss"]
    np.testing.assert_allclose([ev["accuracy"], ev["loss"]], [1.0, 0.1217], atol=1e-4)
    assert list(svm.predict_classes(input_fn=_svm_input)) == [1, 0, 1, 1, 0]
    with pytest.raises(ValueError, match=r"Expected to run at least one output from"):
        list(svm.predict_proba(input_fn=_svm_input))
    lc = L.LinearClassifier([x, c], optimizer=tf.contrib.linear_optimizer.SDCAOptimizer(
        "example_id", symmetric_l2_regularization=1.0), model_dir=tempfile.mkdtemp())
    lc.fit(input_fn=_svm_input, steps=50)
    sdca = tf.contrib.linear_optimizer.SDCAOptimizer("example_id")
    with pytest.raises(AssertionError, match="SDCA only applies to binary classification"):
        L.LinearClassifier([x], n_classes=3, optimizer=sdca)
    with pytest.raises(ValueError, match="enable_centered_bias is not supported with SDCA"):
        L.LinearClassifier([x], optimizer=sdca, enable_centered_bias=True)
    with pytest.raises(ValueError, match="LinearEstimator does not support SDCA optimizer"):
        L.LinearEstimator([x], L.regression_head(), optimizer=sdca)
    np.testing.assert_allclose(lc.get_variable_value("linear/c/weights").ravel(),
                               [0.3048, -0.2415, -0.3458], atol=1e-4)
    np.testing.assert_allclose(lc.get_variable_value("linear/x/weight").ravel(),
                               [0.9338, -0.0412], atol=1e-4)
    np.testing.assert_allclose(lc.get_variable_value("linear/bias_weight"), [0.1134],
                               atol=1e-4)


# --- the smaller names --------------------------------------------------------------------


def test_graph_actions_run_n_feeds_infer():
    with tf.Graph().as_default():
        v = tf.Variable(3.0, name="v")
        out = {"a": v * 2, "b": tf.constant([1, 2])}
        got = L.run_n(out, n=2)
        assert len(got) == 2 and got[0]["a"] == 6.0 and got[1]["b"].tolist() == [1, 2]
        c = tf.constant([1., 2.])
        ph = tf.placeholder(tf.float32, [])
        feeds = L.run_feeds({"c": c * ph}, [{ph: 1.}, {ph: 3.}])
        assert [f["c"].tolist() for f in feeds] == [[1., 2.], [3., 6.]]
        assert L.infer(None, {"c": c})["c"].tolist() == [1., 2.]
        with pytest.raises(ValueError, match="output_dict is invalid"):
            L.run_n({})


def test_graph_actions_train_and_evaluate(tmp_path):
    with tf.Graph().as_default() as g:
        gs = tf.train.get_or_create_global_step()
        w = tf.Variable(0.0, name="w")
        loss = tf.square(w - 3.0)
        train = tf.train.GradientDescentOptimizer(0.25).minimize(loss, global_step=gs)
        mean, update = tf.metrics.mean(w)
        last = L.train(g, str(tmp_path), train, loss, steps=4)
        assert last == pytest.approx(0.140625)  # (3 * 0.5**3)**2, before the 4th update
        results, step = L.evaluate(g, str(tmp_path / "eval"), str(tmp_path), {"w": mean},
                                   update_op=update, max_steps=2)
        assert step == 4 and results["w"] == pytest.approx(3 - 3 * 0.5 ** 4)


def test_small_names_match_tf():
    assert (L.TaskType.MASTER, L.TaskType.PS, L.TaskType.WORKER) == ("master", "ps", "worker")
    assert issubclass(L.Estimator, L.BaseEstimator)
    assert issubclass(L.DNNClassifier, L.Evaluable) and issubclass(L.Estimator, L.Trainable)
    assert not issubclass(L.SKCompat, L.Evaluable)
    es = L.make_export_strategy(lambda: None)
    assert type(es).__name__ == "ExportStrategy" and es.name == "Servo"
    assert es._fields == ("name", "export_fn", "strip_default_attrs")
    assert L.ExportStrategy("n", lambda e, d: d).export(None, "p") == "p"
    assert L.InputFnOps is L.utils.InputFnOps
    for name in ("CheckpointSaver", "ExportMonitor", "GraphDump"):
        assert issubclass(getattr(L.monitors, name), L.monitors.BaseMonitor)
    assert L.monitors.GraphDump().data == {}
    with pytest.raises(ValueError, match="Either save_steps or save_secs"):
        L.monitors.CheckpointSaver("/tmp/x")
    with pytest.raises(AttributeError, match="next_trial"):
        L.learn_runner.tune(lambda c, h: None, object())
    assert L.io.read_keyed_batch_features_shared_queue is \
        L.read_keyed_batch_features_shared_queue
    # dir() lists the names TF 1.15's module has, also those bound on first use
    assert {"SVM", "DynamicRnnEstimator", "regression_head", "graph_actions",
            "evaluate"} <= set(dir(L))
    assert {"load_iris", "load_boston", "load_dataset"} <= set(dir(L.datasets))
    assert L.utils.make_export_strategy is L.make_export_strategy
    # TF's implementation module paths programs import from
    from tideflow.contrib.learn.python.learn import graph_actions
    from tideflow.contrib.learn.python.learn.estimators import head as head_lib
    from tideflow.contrib.learn.python.learn.estimators import metric_key, svm

    assert head_lib.multi_class_head is L.multi_class_head and svm.SVM is L.SVM
    assert metric_key.MetricKey.AUC_PR == "auc_precision_recall"
    assert graph_actions.run_feeds is L.run_feeds


def test_pandas_and_dask_extractors():
    try:
        import pandas
    except ImportError:  # TF 1.15 without pandas fails the same way
        with pytest.raises(NameError, match="name 'pd' is not defined"):
            L.extract_pandas_data(np.ones((2, 2)))
        assert L.io.HAS_PANDAS is False
    else:
        df = pandas.DataFrame({"a": [1, 2], "b": [0.5, 1.5]})
        assert L.extract_pandas_data(df).tolist() == [[1.0, 0.5], [2.0, 1.5]]
        assert L.extract_pandas_labels(np.ones(2)).tolist() == [1.0, 1.0]
    try:
        import dask  # noqa: F401
    except ImportError:
        with pytest.raises(NameError, match="name 'allowed_classes' is not defined"):
            L.extract_dask_data([1, 2])
        with pytest.raises(NameError, match="name 'dd' is not defined"):
            L.extract_dask_labels([1, 2])


def test_core_linear_estimators_with_linear_sdca_match_tf():
    x = tf.feature_column.numeric_column("x", shape=(2,))
    c = tf.feature_column.categorical_column_with_vocabulary_list("c", ["a", "b", "c"])

    def inp(y):
        def f():
            features, _ = _svm_input()
            return features, tf.constant(y)
        return f

    opt = tf.estimator.experimental.LinearSDCA("example_id", symmetric_l2_regularization=1.0)
    lc = tf.estimator.LinearClassifier([x, c], optimizer=opt, model_dir=tempfile.mkdtemp())
    lc.train(inp([[1], [0], [1], [1], [0]]), steps=60)
    # TF 1.15 (converged): the model's weights and their unshrunk copies
    np.testing.assert_allclose(lc.get_variable_value("linear/linear_model/c/weights").ravel(),
                               [0.3048, -0.2415, -0.3458], atol=1e-4)
    np.testing.assert_allclose(
        lc.get_variable_value("linear/linear/linear_model/x/weights/part_0_unshrunk").ravel(),
        [0.9338, -0.0412], atol=1e-4)
    assert sorted(lc.evaluate(inp([[1], [0], [1], [1], [0]]), steps=1)) == [
        "accuracy", "accuracy_baseline", "auc", "auc_precision_recall", "average_loss",
        "global_step", "label/mean", "loss", "precision", "prediction/mean", "recall"]
    lr = tf.estimator.LinearRegressor([x, c], optimizer=tf.estimator.experimental.LinearSDCA(
        "example_id", symmetric_l2_regularization=2.0, symmetric_l1_regularization=0.1),
        model_dir=tempfile.mkdtemp())
    lr.train(inp([[1.5], [-2.], [0.7], [3.], [-1.]]), steps=60)
    # L1 shrinks the bias to 0 here; the unshrunk weights keep it
    np.testing.assert_allclose(lr.get_variable_value("linear/linear_model/bias_weights"), [0.0])
    np.testing.assert_allclose(
        lr.get_variable_value("linear/linear/linear_model/bias_weights/part_0_unshrunk"),
        [0.0492], atol=1e-4)
    np.testing.assert_allclose(lr.get_variable_value("linear/linear_model/x/weights").ravel(),
                               [1.0649, -0.0445], atol=1e-4)


def test_dynamic_rnn_estimator_structure_matches_tf():
    from tideflow.contrib.learn.python.learn.estimators import dynamic_rnn_estimator as dre
    from tideflow.contrib.learn.python.learn.estimators import rnn_common

    assert rnn_common.PredictionType is dre.PredictionType
    assert L.DynamicRnnEstimator is dre.DynamicRnnEstimator
    rng = np.random.RandomState(0)
    x = rng.randn(8, 5, 2).astype(np.float32)
    ctx = rng.randn(8, 3).astype(np.float32)
    lens = np.array([5, 3, 4, 5, 2, 5, 1, 4], np.int32)
    yc = (x[np.arange(8), lens - 1, 0] > 0).astype(np.int64)
    yr = x.sum(axis=2).astype(np.float32)

    def inp(y):
        def f():
            return {"x": tf.constant(x), "c": tf.constant(ctx),
                    "sequence_length": tf.constant(lens)}, tf.constant(y)
        return f

    seq = [tf.contrib.layers.real_valued_column("x", dimension=2)]
    context = [tf.contrib.layers.real_valued_column("c", dimension=3)]
    # TF 1.15's variables, eval keys, prediction keys/shapes and losses for each kind
    cases = [
        (L.ProblemType.CLASSIFICATION, dre.PredictionType.SINGLE_VALUE, yc,
         {"num_classes": 2, "num_units": 4, "predict_probabilities": True},
         [("OptimizeLoss/learning_rate", ()), ("fully_connected/biases", (1,)),
          ("fully_connected/weights", (4, 1)), ("global_step", ()),
          ("rnn/basic_rnn_cell/bias", (4,)), ("rnn/basic_rnn_cell/kernel", (6, 4))],
         ["accuracy", "global_step", "loss"],
         [("classes", ()), ("probabilities", (2,)), ("rnn_cell_state_0", (4,))],
         (0.4442, 0.2311)),
        (L.ProblemType.LINEAR_REGRESSION, dre.PredictionType.MULTIPLE_VALUE, yr,
         {"num_units": [4, 3], "cell_type": "lstm", "context_feature_columns": context},
         [("OptimizeLoss/learning_rate", ()), ("fully_connected/biases", (1,)),
          ("fully_connected/weights", (3, 1)), ("global_step", ()),
          ("rnn/multi_rnn_cell/cell_0/lstm_cell/bias", (16,)),
          ("rnn/multi_rnn_cell/cell_0/lstm_cell/kernel", (9, 16)),
          ("rnn/multi_rnn_cell/cell_1/lstm_cell/bias", (12,)),
          ("rnn/multi_rnn_cell/cell_1/lstm_cell/kernel", (7, 12))],
         ["global_step", "loss"],
         [("rnn_cell_state_0", (4,)), ("rnn_cell_state_1", (4,)), ("rnn_cell_state_2", (3,)),
          ("rnn_cell_state_3", (3,)), ("scores", (5,))],
         (1.8466, 1.7089)),
    ]
    for problem, prediction, y, kwargs, names, keys, preds, losses in cases:
        est = dre.DynamicRnnEstimator(problem, prediction, seq, model_dir=tempfile.mkdtemp(),
                                      config=L.RunConfig(tf_random_seed=3), **kwargs)
        first = est.fit(input_fn=inp(y), steps=1).evaluate(input_fn=inp(y), steps=1)
        est.fit(input_fn=inp(y), steps=30)
        ev = est.evaluate(input_fn=inp(y), steps=1)
        assert [(n, est.get_variable_value(n).shape) for n in est.get_variable_names()] == names
        assert sorted(ev) == keys
        # the seeded weights are TF's: so are the losses after 1 and 31 steps
        np.testing.assert_allclose([first["loss"], ev["loss"]], losses, atol=1e-4)
        p = next(est.predict(input_fn=inp(y)))
        assert sorted((k, np.shape(v)) for k, v in p.items()) == preds
    with pytest.raises(ValueError, match="num_classes must be specified"):
        dre.DynamicRnnEstimator(L.ProblemType.CLASSIFICATION, dre.PredictionType.SINGLE_VALUE,
                                seq)


def test_checkpoint_saver_and_graph_dump_monitors(tmp_path):
    import os

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(features["x"] * w - labels))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.train.get_global_step())
        return w * features["x"], loss, train

    def inp():
        return {"x": tf.constant([1., 2.])}, tf.constant([2., 4.])

    est = L.Estimator(model_fn, model_dir=str(tmp_path))
    dump = L.monitors.GraphDump()
    saver = L.monitors.CheckpointSaver(str(tmp_path / "cs"), save_steps=2)
    est.fit(input_fn=inp, steps=5, monitors=[dump, saver])
    # saved after the first step, then every 2 steps (the end's step 5 already saved)
    assert sorted(f for f in os.listdir(tmp_path / "cs") if f.endswith(".index")) == [
        "model.ckpt-1.index", "model.ckpt-3.index", "model.ckpt-5.index"]
    assert sorted(dump.data) == [1, 2, 3, 4, 5]
    # the fetched tensors key the dump (as TF's adapter hands them back)
    assert any(getattr(k, "name", None) == "Mean:0" for k in dump.data[1])


def test_centered_bias_lives_in_the_model_scope():
    x = np.random.RandomState(0).randn(20, 2).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64)

    def inp():
        return ({"x": tf.constant(x), "w": tf.constant(np.linspace(.5, 1.5, 20), tf.float32)},
                tf.constant(y.reshape(-1, 1)))

    est = L.LinearEstimator([_col()], L.multi_class_head(2, weight_column_name="w",
                                                         enable_centered_bias=True),
                            model_dir=tempfile.mkdtemp(),
                            optimizer=tf.train.GradientDescentOptimizer(0.2))
    est.fit(input_fn=inp, steps=10)
    # TF 1.15's names and the centered bias's value (its own Adagrad step on the mean loss)
    assert sorted(est.get_variable_names()) == [
        "global_step", "linear/bias_weight", "linear/binary_logistic_head/centered_bias_weight",
        "linear/binary_logistic_head/linear/binary_logistic_head/centered_bias_weight/Adagrad",
        "linear/x/weight"]
    np.testing.assert_allclose(
        est.get_variable_value("linear/binary_logistic_head/centered_bias_weight"), [0.3252],
        atol=1e-4)
    # TF 1.15 reports loss 0.4081 (its main step may read the centered bias after that bias's
    # own update in the same step; here every read sees the value before the step's updates)
    np.testing.assert_allclose(est.evaluate(input_fn=inp, steps=1)["loss"], 0.4081, atol=5e-4)


# examples on disjoint features: their updates commute, so TF 1.15's shuffled, threaded pass
# gives these weights after each of 3 steps exactly (l1 0.1, l2 1.5, weights 0.5..2), then
# its approximate duality gap and unregularized loss
_DISJOINT = {
    ("logistic_loss", 1): ([[0.087203, 0.402238, 0.241072], [0.092313, 0.429351, 0.246178],
                            [0.092313, 0.429351, 0.246178]], 0.0, 0.542027),
    ("logistic_loss", 2): ([[0.076329, 0.273526, 0.219324], [0.091173, 0.384518, 0.244266],
                            [0.092232, 0.416342, 0.246042]], 0.01323, 0.544654),
    ("hinge_loss", 2): ([[0.266667, 0.183333, 0.6], [0.266667, 0.341667, 0.6],
                         [0.266667, 0.420833, 0.6]], 0.10595, 0.523889),
    ("squared_loss", 2): ([[0.233333, -0.368116, -0.333333], [0.306667, -0.586137, -0.426667],
                           [0.321333, -0.680929, -0.445333]], 0.09428, 0.32162),
    ("smooth_hinge_loss", 2): ([[-0.133333, -0.150725, 0.333333],
                                [-0.186667, -0.274228, 0.426667],
                                [-0.197333, -0.327925, 0.445333]], 0.03424, 0.636316),
    ("poisson_loss", 1): ([[0.175381, 0.485604, 1.67448], [0.194926, 0.521114, 1.703876],
                           [0.194926, 0.521114, 1.703876]], 0.0, -0.793997),
    ("poisson_loss", 2): ([[0.117869, 0.307082, 1.108198], [0.177481, 0.447533, 1.518266],
                           [0.191012, 0.495474, 1.646888]], 0.22024, -0.746538),
}
_LABELS = {"logistic_loss": [1., 0., 1.], "hinge_loss": [1., 0., 1.],
           "squared_loss": [1.5, 2., -1.], "smooth_hinge_loss": [0., 1., 1.],
           "poisson_loss": [2., 0., 5.]}


@pytest.mark.parametrize("key", sorted(_DISJOINT), ids=lambda k: f"{k[0]}-{k[1]}")
def test_sdca_steps_match_tf_when_order_cannot_matter(key):
    loss_type, partitions = key
    steps, gap, unreg = _DISJOINT[key]
    lo = tf.contrib.linear_optimizer
    x = np.array([[1., 0., 0.], [0., -2., 0.], [0., 0., 0.5]])
    with tf.Graph().as_default():
        w = tf.Variable(tf.zeros([3]))
        examples = {"sparse_features": [], "dense_features": [tf.constant(x, tf.float32)],
                    "example_labels": tf.constant(_LABELS[loss_type], tf.float32),
                    "example_weights": tf.constant(np.linspace(0.5, 2, 3), tf.float32),
                    "example_ids": tf.constant(["a0", "a1", "a2"])}
        model = lo.SdcaModel(examples, {"sparse_features_weights": [],
                                        "dense_features_weights": [w]},
                             {"symmetric_l1_regularization": 0.1,
                              "symmetric_l2_regularization": 1.5, "loss_type": loss_type,
                              "num_loss_partitions": partitions, "adaptive": False})
        train = model.update_weights(model.minimize())
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for expected in steps:
                s.run(train)
                np.testing.assert_allclose(s.run(w), expected, atol=2e-6)
            np.testing.assert_allclose(s.run(model.approximate_duality_gap()), gap, atol=2e-5)
            np.testing.assert_allclose(s.run(model.unregularized_loss(examples)), unreg,
                                       atol=2e-6)


def test_experiment_runs_its_export_strategies(tmp_path):
    import os

    def inp():
        return {"x": tf.constant(_X[:20])}, tf.constant(_Y[:20].reshape(-1, 1))

    est = L.LinearEstimator([_col()], L.multi_class_head(2), model_dir=str(tmp_path))
    spec = tf.contrib.layers.create_feature_spec_for_parsing([_col()])
    strategy = L.make_export_strategy(L.build_parsing_serving_input_fn(spec),
                                      exports_to_keep=2)
    ex = L.Experiment(est, inp, inp, train_steps=5, eval_steps=1, export_strategies=strategy,
                      min_eval_frequency=0)
    result, exports = ex.train_and_evaluate()
    # TF 1.15: one export, a SavedModel under <model_dir>/export/Servo/<timestamp>
    assert result["global_step"] == 5 and len(exports) == 1
    path = exports[0].decode() if isinstance(exports[0], bytes) else exports[0]
    assert os.path.relpath(os.path.dirname(path), str(tmp_path)) == os.path.join("export",
                                                                                "Servo")
    assert sorted(os.listdir(path)) == ["saved_model.pb", "variables"]
    assert ex.reset_export_strategies() == (strategy,)
    with pytest.raises(ValueError, match="`export_strategies` must be an ExportStrategy, an "
                                         "iterable of ExportStrategy, or `None`, found 1."):
        L.Experiment(est, inp, inp, export_strategies=[1])


def test_dnn_estimator_over_a_multi_head():
    def inp():
        return ({"x": tf.constant(_X[:20])},
                {"r": tf.constant(_X[:20, :1] * 2),
                 "c": tf.constant((_X[:20, 1:] > 0).astype(np.int64))})

    head = L.multi_head([L.regression_head(label_name="r", head_name="r"),
                         L.multi_class_head(2, label_name="c", head_name="c")], [1., .5])
    est = L.DNNEstimator(head, [4], [_col()], model_dir=tempfile.mkdtemp(),
                         config=L.RunConfig(tf_random_seed=1))
    est.fit(input_fn=inp, steps=5)
    # TF 1.15's keys: each head's metrics suffixed by its name, predictions keyed by pairs
    assert sorted(est.evaluate(input_fn=inp, steps=1)) == [
        "accuracy/baseline_label_mean/c", "accuracy/c", "accuracy/threshold_0.500000_mean/c",
        "auc/c", "auc_precision_recall/c", "global_step", "labels/actual_label_mean/c",
        "labels/prediction_mean/c", "loss", "loss/c", "loss/r",
        "precision/positive_threshold_0.500000_mean/c",
        "recall/positive_threshold_0.500000_mean/c"]
    assert sorted(next(est.predict(input_fn=inp))) == [
        ("c", "classes"), ("c", "logistic"), ("c", "logits"), ("c", "probabilities"),
        ("r", "scores")]
    assert "dnn/dnn/learning_rate" in est.get_variable_names()


def test_svm_with_weights_buckets_and_l1_matches_tf():
    rng = np.random.RandomState(1)
    x = rng.randn(12, 3).astype(np.float32)
    y = (x[:, 0] - x[:, 2] > 0).astype(np.int64).reshape(-1, 1)

    def input_fn():
        return ({"example_id": tf.constant([str(i) for i in range(12)]), "x": tf.constant(x),
                 "w": tf.constant(np.linspace(0.5, 2.0, 12), tf.float32),
                 "b": tf.constant(x[:, 1:2])}, tf.constant(y))

    cols = [tf.contrib.layers.real_valued_column("x", dimension=3),
            tf.contrib.layers.bucketized_column(tf.contrib.layers.real_valued_column("b"),
                                                [-0.5, 0.0, 0.5])]
    svm = L.SVM("example_id", cols, weight_column_name="w", l1_regularization=0.2,
                l2_regularization=2.0, model_dir=tempfile.mkdtemp())
    svm.fit(input_fn=input_fn, steps=150)
    # TF 1.15 (converged; L1 zeroes the bias and one bucket)
    np.testing.assert_allclose(svm.get_variable_value("linear/b_bucketized/weights").ravel(),
                               [0.1228, -0.4269, 0.0, 0.2993], atol=1e-4)
    np.testing.assert_allclose(svm.get_variable_value("linear/bias_weight"), [0.0])
    np.testing.assert_allclose(svm.get_variable_value("linear/x/weight").ravel(),
                               [1.119, 0.2723, -0.4495], atol=1e-4)
    ev = svm.evaluate(input_fn=input_fn, steps=1)
    np.testing.assert_allclose([ev["accuracy"], ev["loss"]], [1.0, 0.0268], atol=1e-4)


def test_contrib_crossed_column_hashes_as_tf():
    layers = tf.contrib.layers

    def feats():
        return {"a": tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0]], ["x", "y", "z", "x"],
                                     [3, 2]),
                "i": tf.SparseTensor([[0, 0], [1, 0], [2, 0], [2, 1]],
                                     tf.constant([3, -5, 7, 1], tf.int64), [3, 2]),
                "n": tf.constant([[25.], [41.], [70.]]),
                "m": tf.constant([[0.1, 0.9], [0.5, 0.2], [0.7, 0.7]])}

    a = layers.sparse_column_with_keys("a", ["x", "y", "z"])
    i = layers.sparse_column_with_integerized_feature("i", 10)
    nb = layers.bucketized_column(layers.real_valued_column("n"), [30, 40, 50, 60])
    mb = layers.bucketized_column(layers.real_valued_column("m", dimension=2), [0.3, 0.6])
    # TF 1.15: the crosses of the raw values (bucket ids for bucketized columns), the columns
    # in name order, hashed by SparseFeatureCross (V2 with a hash key)
    cases = [([a, nb], None, "a_X_n_bucketized", [17, 11, 17, 13]),
             ([a, nb], 123, "a_X_n_bucketized", [5, 33, 13, 11]),
             ([mb, a], None, "a_X_m_bucketized", [17, 12, 11, 8, 4, 18, 15, 12]),
             ([i, a], None, "a_X_i", [14, 10, 10, 10, 16]),
             ([layers.crossed_column([a, i], 50), nb], None, "a_X_i_X_n_bucketized",
              [15, 32, 34, 26, 11])]
    for cols, key, name, values in cases:
        cross = layers.crossed_column(cols, hash_bucket_size=37, hash_key=key)
        assert cross.name == name
        with tf.Graph().as_default():
            (out,) = layers.transform_features(feats(), [cross]).values()
            with tf.Session() as s:
                s.run(tf.tables_initializer())
                assert s.run(out).values.tolist() == values
    with pytest.raises(TypeError, match="columns must be a set of _SparseColumn"):
        layers.crossed_column([a, layers.real_valued_column("n")], 10)


def test_contrib_linear_classifier_over_sparse_and_crossed_columns_matches_tf():
    def input_fn():
        return ({"a": tf.SparseTensor([[i, 0] for i in range(6)],
                                      ["x", "y", "x", "z", "y", "x"], [6, 1]),
                 "b": tf.SparseTensor([[i, 0] for i in range(6)],
                                      ["p", "p", "q", "q", "p", "q"], [6, 1]),
                 "n": tf.constant([[0.5], [1.5], [-1.], [2.], [0.], [1.]])},
                tf.constant([[1], [0], [1], [0], [0], [1]]))

    layers = tf.contrib.layers
    a = layers.sparse_column_with_keys("a", ["x", "y", "z"])
    b = layers.sparse_column_with_hash_bucket("b", 10)
    cols = [a, b, layers.crossed_column([a, b], hash_bucket_size=20),
            layers.real_valued_column("n")]
    m = L.LinearClassifier(cols, model_dir=tempfile.mkdtemp())
    m.fit(input_fn=input_fn, steps=60)
    # TF 1.15: sparse columns' weights are "weights" (their FTRL slots named after them), the
    # cross's buckets TF's
    names = m.get_variable_names()
    assert {"linear/a/weights", "linear/a_X_b/weights", "linear/b/weights",
            "linear/n/weight", "linear/a/weights/ead/linear/a/weights/part_0/Ftrl",
            "linear/a_X_b/weights/linear/a_X_b/weights/part_0/Ftrl_1"} <= set(names)
    cross = m.get_variable_value("linear/a_X_b/weights").ravel()
    np.testing.assert_allclose(cross[np.nonzero(np.round(cross, 4))],
                               [-1.2725, 0.9645, -0.7403, 1.2004], atol=1e-4)
    np.testing.assert_allclose(m.get_variable_value("linear/a/weights").ravel(),
                               [1.47, -1.2725, -0.7403], atol=1e-4)
    np.testing.assert_allclose(m.evaluate(input_fn=input_fn, steps=1)["loss"], 0.0686,
                               atol=1e-4)
