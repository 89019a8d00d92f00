"""Regressions found by running tensorflow/models official/ and samples/ Estimator programs
(MNIST, ResNet/CIFAR-10, wide & deep census, boosted trees, iris get_started) against
tideflow."""


import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_python_util_nest_and_compat_import_like_tensorflow_python_util():
    # official/utils/misc/model_helpers.py: ``from tensorflow.python.util import nest``
    import tideflow.python.util.nest as nest_mod

    from tideflow.python.util import compat, nest

    assert nest_mod is nest
    shapes = {"a": tf.TensorShape([2]), "b": (tf.TensorShape([1, 3]),)}
    consts = nest.map_structure(lambda s: tf.constant(1.5, tf.float32, s), shapes)
    assert consts["a"].shape.as_list() == [2]
    assert consts["b"][0].shape.as_list() == [1, 3]
    assert compat.as_text(b"x") == "x" and compat.as_bytes("x") == b"x"


class _FetchByName(tf.train.SessionRunHook):
    """Fetches graph tensors by name at every step, as LoggingTensorHook does."""

    def __init__(self, names):
        self.names, self.values = names, []

    def before_run(self, run_context):
        graph = run_context.session.graph
        return tf.train.SessionRunArgs({k: graph.get_tensor_by_name(v + ":0")
                                        for k, v in self.names.items()})

    def after_run(self, run_context, run_values):
        self.values.append(run_values.results)


@pytest.mark.parametrize("model", ["linear", "dnn", "combined"])
def test_canned_head_loss_tensors_have_tf_names(tmp_path, model):
    # official/wide_deep/census_main.py logs '{linear/|dnn/|}head/truediv' (the mean loss) and
    # '{...}head/weighted_loss/Sum' (the summed training loss) with a LoggingTensorHook
    x = np.linspace(-1.0, 1.0, 8).astype(np.float32)
    y = (x > 0).astype(np.int64)
    w = np.array([1, 2, 3, 4, 1, 2, 3, 4], np.float32)
    cols = [tf.feature_column.numeric_column("x")]

    def input_fn():
        return tf.data.Dataset.from_tensors(({"x": x, "w": w}, y)).repeat()

    if model == "linear":
        est = tf.estimator.LinearClassifier(cols, model_dir=str(tmp_path), weight_column="w")
        prefix = "linear/"
    elif model == "dnn":
        est = tf.estimator.DNNClassifier([3], cols, model_dir=str(tmp_path), weight_column="w")
        prefix = "dnn/"
    else:
        est = tf.estimator.DNNLinearCombinedClassifier(
            str(tmp_path), linear_feature_columns=cols, dnn_feature_columns=cols,
            dnn_hidden_units=[3], weight_column="w")
        prefix = ""
    hook = _FetchByName({"average_loss": prefix + "head/truediv",
                         "loss": prefix + "head/weighted_loss/Sum"})
    est.train(input_fn, steps=2, hooks=[hook])
    assert len(hook.values) == 2
    # TF 1.x: the mean is the summed weighted loss over the summed weights
    for v in hook.values:
        np.testing.assert_allclose(v["average_loss"], v["loss"] / w.sum(), rtol=1e-6)
    if model == "linear":  # zero-initialised: every example's loss is log(2) at step 1
        np.testing.assert_allclose(hook.values[0]["loss"], np.log(2.0) * w.sum(), rtol=1e-5)
    names = {n for n, _ in tf.train.list_variables(str(tmp_path))}
    assert not any(n.startswith(("linear/linear/", "dnn/dnn/")) for n in names), names


class _Column:
    """Array-like as a pandas Series: readable by NumPy through ``__array__`` only."""

    def __init__(self, values):
        self._values = np.asarray(values)

    def __array__(self, dtype=None, copy=None):
        return self._values if dtype is None else self._values.astype(dtype)

    def __len__(self):
        return len(self._values)


def test_array_like_objects_convert_to_tensors_and_slice_in_datasets():
    # samples/core/get_started/iris_data.py: from_tensor_slices((dict(train_x), train_y))
    # with pandas columns (objects NumPy reads through __array__)
    feats = {"a": _Column([1.5, 2.5, 3.5]), "b": _Column([4, 5, 6])}
    labels = _Column(np.array([0, 1, 2], np.int64))
    t = tf.convert_to_tensor(_Column([1.0, 2.0]))
    assert t.dtype == tf.float64 and t.shape.as_list() == [2]
    f32 = tf.convert_to_tensor(_Column([1.0, 2.0]), dtype=tf.float32)
    assert f32.dtype == tf.float32
    ds = tf.data.Dataset.from_tensor_slices((feats, labels)).batch(2)
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        first, y = sess.run(nxt)
    np.testing.assert_array_equal(first["a"], [1.5, 2.5])
    np.testing.assert_array_equal(first["b"], [4, 5])
    np.testing.assert_array_equal(y, [0, 1])
    with pytest.raises(TypeError, match="Failed to convert object of type"):
        tf.convert_to_tensor(object())
    with pytest.raises(TypeError, match="Failed to convert object of type"):
        tf.convert_to_tensor({"a": 1})


def test_boosted_trees_train_in_memory_grows_all_trees_from_one_element_dataset(tmp_path):
    # official/boosted_trees/train_higgs.py: the whole data set is one Dataset.from_tensors
    # element, trained by tf.contrib.estimator.boosted_trees_classifier_train_in_memory
    rng = np.random.RandomState(0)
    x = rng.randn(200, 2).astype(np.float32)
    y = (x[:, :1] > 0.2).astype(np.float32)
    cols = [tf.feature_column.bucketized_column(
        tf.feature_column.numeric_column(f"f{i}"),
        boundaries=np.unique(np.percentile(x[:, i], range(0, 100, 5))).tolist())
        for i in range(2)]

    def train_input_fn():
        feats = {f"f{i}": tf.constant(x[:, i:i + 1]) for i in range(2)}
        return tf.data.Dataset.zip((tf.data.Dataset.from_tensors(feats),
                                    tf.data.Dataset.from_tensors(y)))

    est = tf.contrib.estimator.boosted_trees_classifier_train_in_memory(
        train_input_fn, cols, model_dir=str(tmp_path), n_trees=3, max_depth=2,
        learning_rate=0.5)
    assert isinstance(est, tf.estimator.BoostedTreesClassifier)
    # one step per layer: n_trees * max_depth
    assert est.get_variable_value("global_step") == 6

    def eval_input_fn():
        return tf.data.Dataset.from_tensor_slices(
            ({"f0": x[:, :1], "f1": x[:, 1:]}, y)).batch(50)

    results = est.evaluate(eval_input_fn)
    assert results["accuracy"] > 0.95, results
    reg = tf.contrib.estimator.boosted_trees_regressor_train_in_memory(
        train_input_fn, cols, model_dir=str(tmp_path / "reg"), n_trees=2, max_depth=2)
    assert reg.get_variable_value("global_step") == 4


def test_dataset_built_in_one_graph_iterates_in_another(tmp_path):
    # samples/core/get_started/savedmodel_estimator.py: the Dataset (with a map function) is
    # made at top level, and only ds.make_one_shot_iterator() runs in the Estimator's graph
    path = tmp_path / "rows.csv"
    path.write_text("a,b\n1.5,0\n2.5,1\n-3.0,1\n")

    def parse(line):
        a, b = tf.decode_csv(line, [[0.0], [0]])
        # a cond inside the map: its branch functions must follow the map function
        return {"a": tf.cond(a > 0, lambda: a * 2.0, lambda: -a)}, b

    ds = tf.data.TextLineDataset(str(path)).skip(1).map(parse).repeat(2).batch(2)
    with tf.Graph().as_default():
        feats, label = ds.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            got = [sess.run([feats["a"], label]) for _ in range(3)]
    np.testing.assert_allclose(np.concatenate([g[0] for g in got]),
                               [3.0, 5.0, 3.0, 3.0, 5.0, 3.0])
    np.testing.assert_array_equal(np.concatenate([g[1] for g in got]), [0, 1, 1, 0, 1, 1])


def test_export_logs_tf_signature_report(tmp_path, caplog):
    # TF 1.x export report: "Signatures INCLUDED in export for Regress: ..." (INFO) and the
    # excluded ones with their reason (INFO), a warning only when no default signature is left
    x = np.linspace(0.0, 1.0, 8).astype(np.float32)
    est = tf.estimator.LinearRegressor([tf.feature_column.numeric_column("x")],
                                       model_dir=str(tmp_path / "m"))
    est.train(lambda: tf.data.Dataset.from_tensors(({"x": x}, 2.0 * x)), steps=1)

    def float_receiver():
        ph = tf.placeholder(tf.float32, [None], name="x")
        return tf.estimator.export.ServingInputReceiver({"x": ph}, {"x": ph})

    with caplog.at_level("INFO", logger="tensorflow"):
        path = est.export_savedmodel(str(tmp_path / "export"), float_receiver)
    text = caplog.text
    assert "Signatures INCLUDED in export for Predict: ['predict']" in text, text
    assert "Signatures INCLUDED in export for Regress: None" in text, text
    assert "'serving_default' : Regression input must be a single string Tensor" in text, text
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warnings == ["Export includes no default signature!"], warnings
    # written into a temp-b'<timestamp>' folder (TF 1.15 formats the bytes name), then
    # renamed to the returned path (as TF)
    stamp = path.decode().rsplit("/", 1)[-1]
    assert f"temp-b'{stamp}'/saved_model.pb" in text.split("SavedModel written to: ")[1], text
    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], path)
    assert sorted(meta.signature_def) == ["predict"]


def test_contrib_estimator_heads_forward_features_and_one_tower_replication(tmp_path):
    # TF 1.x programs: DNNEstimator(head=tf.contrib.estimator.regression_head(...)),
    # forward_features(est, 'id') to carry keys into predictions, clip_gradients_by_norm,
    # and official/mnist --multi_gpu's replicate_model_fn + TowerOptimizer on one device
    ce = tf.contrib.estimator
    x = np.linspace(-1.0, 1.0, 16).astype(np.float32)
    ids = np.arange(16, dtype=np.int64)
    y = (3.0 * x + 1.0).astype(np.float32)
    cols = [tf.feature_column.numeric_column("x")]

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x, "id": ids}, y)).batch(16)

    head = ce.regression_head(weight_column=None, label_dimension=1)
    opt = ce.clip_gradients_by_norm(tf.train.GradientDescentOptimizer(0.5), clip_norm=1e-3)
    est = ce.LinearEstimator(head, cols, model_dir=str(tmp_path / "lin"), optimizer=opt)
    est.train(input_fn, steps=1)
    # one step of gradient descent, the gradient clipped to norm 1e-3: the weights moved by
    # exactly lr * 1e-3 in total
    moved = np.hypot(est.get_variable_value("linear/linear_model/x/weights")[0, 0],
                     est.get_variable_value("linear/linear_model/bias_weights")[0])
    np.testing.assert_allclose(moved, 0.5 * 1e-3, rtol=1e-4)
    fwd = ce.forward_features(est, "id")
    preds = list(fwd.predict(input_fn))
    assert [p["id"] for p in preds] == list(range(16))
    assert set(preds[0]) == {"predictions", "id"}
    # TF 1.15's words
    with pytest.raises(ValueError, match='Key "nope" is not in features dict'):
        list(ce.forward_features(est, "nope").predict(input_fn))

    def model_fn(features, labels, mode):
        pred = tf.layers.dense(tf.reshape(features["x"], [-1, 1]), 1)[:, 0]
        loss = tf.losses.mean_squared_error(labels, pred)
        tower_opt = ce.TowerOptimizer(tf.train.GradientDescentOptimizer(0.1))
        train_op = tower_opt.minimize(loss, tf.train.get_or_create_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    rep = tf.estimator.Estimator(ce.replicate_model_fn(model_fn, tf.losses.Reduction.MEAN),
                                 model_dir=str(tmp_path / "rep"),
                                 config=tf.estimator.RunConfig(tf_random_seed=0))
    rep.train(lambda: input_fn().repeat(), steps=100)
    assert rep.evaluate(input_fn, steps=1)["loss"] < 0.05
    with pytest.raises(NotImplementedError, match="one tower"):
        ce.replicate_model_fn(model_fn, devices=["/gpu:0", "/gpu:1"])
    h = ce.multi_class_head(3)
    assert h.logits_dimension == 3
    assert ce.binary_classification_head().logits_dimension == 1


def test_loss_reduction_checked_when_made_v1_canned_and_keras_values_in_public_heads(tmp_path):
    # official/wide_deep/census_main.py (2019) passes tf.keras.losses.Reduction.SUM to the
    # canned estimators: TF 1.x's v1 LinearClassifier rejects it when constructed, while the
    # public (v2) heads take the Keras values
    cols = [tf.feature_column.numeric_column("x")]
    with pytest.raises(ValueError, match="Invalid loss_reduction: sum"):
        tf.estimator.LinearClassifier(cols, loss_reduction=tf.keras.losses.Reduction.SUM)
    with pytest.raises(ValueError, match="Invalid loss_reduction: none"):
        tf.estimator.DNNRegressor([2], cols, loss_reduction=tf.losses.Reduction.NONE)
    with pytest.raises(ValueError, match="Invalid loss_reduction: auto"):
        tf.estimator.RegressionHead(loss_reduction=tf.keras.losses.Reduction.AUTO)
    x = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    y = np.array([1.0, 1.0, 1.0, 1.0], np.float32)

    def input_fn():
        return tf.data.Dataset.from_tensors(({"x": x}, y))

    results = {}
    for key in ("sum", "sum_over_batch_size"):
        head = tf.estimator.RegressionHead(loss_reduction=key)
        # a zero learning rate keeps the zero weights: the losses differ only by reduction
        est = tf.estimator.LinearEstimator(head, cols, model_dir=str(tmp_path / key),
                                           optimizer=tf.train.GradientDescentOptimizer(0.0))
        est.train(input_fn, steps=1)
        results[key] = est.evaluate(input_fn, steps=1)
    # zero weights: every squared error is 1
    np.testing.assert_allclose(results["sum"]["loss"], 4.0, rtol=1e-6)
    np.testing.assert_allclose(results["sum_over_batch_size"]["loss"], 1.0, rtol=1e-6)


def test_keras_model_to_estimator_trains_under_mirrored_strategy(tmp_path):
    # samples/core/tutorials/estimators/keras_estimator: model_to_estimator(model,
    # config=RunConfig(train_distribute=tf.contrib.distribute.MirroredStrategy())); its train
    # op adds 1 to the global step in the replica (TF makes the step ONLY_FIRST_REPLICA)
    rng = np.random.RandomState(0)
    x = rng.rand(64, 4).astype(np.float32)
    y = tf.keras.utils.to_categorical((x[:, 0] > 0.5).astype(int), 2).astype(np.float32)
    inputs = tf.keras.Input(shape=(4,))
    init = tf.keras.initializers.glorot_uniform  # seeded: the same start every run
    out = tf.keras.layers.Dense(2, activation=tf.nn.softmax, kernel_initializer=init(seed=2))(
        tf.keras.layers.Dense(8, activation=tf.nn.relu, kernel_initializer=init(seed=1))(inputs))
    model = tf.keras.Model(inputs=inputs, outputs=out)
    model.compile(loss="categorical_crossentropy",
                  optimizer=tf.train.GradientDescentOptimizer(0.5), metrics=["accuracy"])
    config = tf.estimator.RunConfig(train_distribute=tf.contrib.distribute.MirroredStrategy())
    est = tf.keras.estimator.model_to_estimator(model, config=config,
                                                model_dir=str(tmp_path))

    def input_fn():
        return tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(16)

    est.train(input_fn, steps=40)
    assert est.get_variable_value("global_step") == 40
    result = est.evaluate(lambda: tf.data.Dataset.from_tensor_slices((x, y)).batch(64),
                          steps=1)
    assert result["acc"] > 0.8, result


def test_global_step_counts_once_per_step_in_a_replica():
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    with strategy.scope():
        step = tf.train.get_or_create_global_step()

        def replica_fn():
            return tf.assign_add(step, 1)

        inc = strategy.extended.call_for_each_replica(replica_fn)
    assert isinstance(inc, tf.Tensor)  # the replica's own part, not a distributed value
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(inc)
        assert sess.run(step) == 3


def test_sequential_takes_the_same_layer_object_twice():
    # official/r1/mnist/mnist.py: one MaxPooling2D instance after each Conv2D
    pool = tf.keras.layers.MaxPooling2D((2, 2), (2, 2), padding="same")
    model = tf.keras.Sequential([
        tf.keras.layers.Reshape((4, 4, 1), input_shape=(16,)),
        tf.keras.layers.Conv2D(2, 1, padding="same"), pool,
        tf.keras.layers.Conv2D(3, 1, padding="same"), pool,
        tf.keras.layers.Flatten()])
    assert model.output_shape == (None, 3)
    x = np.arange(32, dtype=np.float32).reshape(2, 16)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(model(tf.constant(x))).shape == (2, 3)
    with pytest.raises(ValueError, match="should have unique names"):
        tf.keras.Sequential([tf.keras.layers.Dense(2, name="d", input_shape=(3,)),
                             tf.keras.layers.Dense(2, name="d")])


def test_dnn_linear_combined_estimator_with_a_head(tmp_path):
    # tf.estimator / tf.contrib.estimator DNNLinearCombinedEstimator(head, ...): both parts
    # trained, variables under linear/ and dnn/
    assert tf.contrib.estimator.DNNLinearCombinedEstimator is \
        tf.estimator.DNNLinearCombinedEstimator
    x = np.linspace(-1.0, 1.0, 32).astype(np.float32)
    y = (2.0 * x - 0.5).astype(np.float32)
    cols = [tf.feature_column.numeric_column("x")]
    est = tf.estimator.DNNLinearCombinedEstimator(
        tf.contrib.estimator.regression_head(), model_dir=str(tmp_path),
        linear_feature_columns=cols, linear_optimizer=tf.train.GradientDescentOptimizer(0.2),
        dnn_feature_columns=cols, dnn_hidden_units=[4],
        dnn_optimizer=tf.train.GradientDescentOptimizer(0.05),
        config=tf.estimator.RunConfig(tf_random_seed=3))  # a fixed start: the loss bound holds

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(32)

    est.train(input_fn, steps=150)
    names = est.get_variable_names()
    assert "linear/linear_model/x/weights" in names and "dnn/logits/kernel" in names
    assert est.evaluate(input_fn, steps=1)["average_loss"] < 0.01


def test_estimator_logs_its_config_as_tf_does(tmp_path, caplog):
    # TF 1.x: "Using default config." then "Using config: {'_model_dir': ..., ...}"
    with caplog.at_level("INFO", logger="tensorflow"):
        tf.estimator.Estimator(lambda features, labels, mode: None,
                               model_dir=str(tmp_path))
    msgs = [r.getMessage() for r in caplog.records]
    assert msgs[0] == "Using default config.", msgs
    assert msgs[1].startswith(f"Using config: {{'_model_dir': '{tmp_path}', "
                              "'_tf_random_seed': None, '_save_summary_steps': 100"), msgs
    assert "'_num_worker_replicas': 1" in msgs[1]


def test_boosted_trees_feature_importances_rank_the_informative_column(tmp_path):
    # BoostedTrees tutorials: est.experimental_feature_importances(normalize=True)
    rng = np.random.RandomState(1)
    n = 200
    x = {"signal": rng.randn(n).astype(np.float32), "noise": rng.randn(n).astype(np.float32),
         "kind": rng.choice(["a", "b", "c"], n)}
    y = (x["signal"] > 0.3).astype(np.int64)
    cols = [tf.feature_column.bucketized_column(tf.feature_column.numeric_column(k),
                                                [-1.0, -0.3, 0.0, 0.3, 1.0])
            for k in ("signal", "noise")]
    cols.append(tf.feature_column.indicator_column(
        tf.feature_column.categorical_column_with_vocabulary_list("kind", ["a", "b", "c"])))
    est = tf.estimator.BoostedTreesClassifier(cols, n_batches_per_layer=1,
                                              model_dir=str(tmp_path), n_trees=2, max_depth=2)
    est.train(lambda: tf.data.Dataset.from_tensors((x, y)).repeat(), steps=4)
    raw = est.experimental_feature_importances()
    imp = est.experimental_feature_importances(normalize=True)
    assert next(iter(imp)) == "signal_bucketized", imp
    assert set(imp) == {"signal_bucketized", "noise_bucketized", "kind"}
    np.testing.assert_allclose(sum(imp.values()), 1.0, rtol=1e-6)
    # the raw importances are the split gains, the normalized ones their shares
    total = sum(raw.values())
    for k in imp:
        np.testing.assert_allclose(imp[k], raw[k] / total, rtol=1e-6)
    assert list(imp.values()) == sorted(imp.values(), reverse=True)


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_boosted_trees_center_bias_starts_from_the_prior(tmp_path, kind):
    # center_bias=True (BoostedTrees tutorials): Newton steps on the first tree's root until
    # an update is under 0.01, then the trees grow from that bias
    rng = np.random.RandomState(2)
    x = rng.randn(200).astype(np.float32)
    col = [tf.feature_column.bucketized_column(tf.feature_column.numeric_column("x"),
                                               [-0.5, 0.0, 0.5])]
    if kind == "classifier":
        y = (rng.rand(200) < 0.8).astype(np.int64)  # no signal in x
        est = tf.estimator.BoostedTreesClassifier(col, 1, model_dir=str(tmp_path), n_trees=1,
                                                  max_depth=1, center_bias=True,
                                                  min_node_weight=1e9)  # no split
        prior = np.log(y.mean() / (1 - y.mean()))
    else:
        y = (3.0 + 0.1 * rng.randn(200)).astype(np.float32)
        est = tf.estimator.BoostedTreesRegressor(col, 1, model_dir=str(tmp_path), n_trees=1,
                                                 max_depth=1, center_bias=True,
                                                 min_node_weight=1e9)
        prior = y.mean()
    est.train(lambda: tf.data.Dataset.from_tensors(({"x": x}, y)).repeat(), steps=50)
    bias = est.get_variable_value("boosted_trees/node_value")[0, 0]
    np.testing.assert_allclose(bias, prior, atol=0.01)
    steps = est.get_variable_value("global_step")
    # centering steps (the last one's update under 0.01), then one step per layer
    assert 2 <= steps - 1 <= 6, steps
