"""TF 1.15 parity of tf.estimator and feature columns as TF 1.x programs use them: each
expected value below is what the same program printed under real TF 1.15."""

import contextlib
import json
import logging
import os

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_run_config_attributes_in_tf_order(monkeypatch):
    tail = ["_cluster_spec", "_task_type", "_task_id"]
    monkeypatch.delenv("TF_CONFIG", raising=False)
    keys = list(vars(tf.estimator.RunConfig()))
    assert keys[keys.index("_cluster_spec"):] == tail + [
        "_global_id_in_cluster", "_master", "_evaluation_master", "_is_chief",
        "_num_ps_replicas", "_num_worker_replicas"]
    assert list(vars(tf.estimator.RunConfig().replace(tf_random_seed=4))) == keys
    cluster = {"chief": ["a:1"], "worker": ["b:1", "c:1"], "ps": ["d:1"]}
    for task in ({"type": "worker", "index": 1}, {"type": "evaluator", "index": 0}):
        monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": cluster, "task": task}))
        keys = list(vars(tf.estimator.RunConfig()))
        assert keys[keys.index("_cluster_spec"):] == tail + [
            "_evaluation_master", "_master", "_num_ps_replicas", "_num_worker_replicas",
            "_global_id_in_cluster", "_is_chief"]
    monkeypatch.setenv("TF_CONFIG", json.dumps({
        "cluster": {"master": ["a:1"], "worker": ["b:1"]}, "task": {"type": "master",
                                                                    "index": 0}}))
    keys = list(vars(tf.estimator.RunConfig()))
    assert keys[keys.index("_cluster_spec"):] == tail + [
        "_global_id_in_cluster", "_master", "_evaluation_master", "_num_ps_replicas",
        "_num_worker_replicas", "_is_chief"]


@contextlib.contextmanager
def _tf_log_messages():
    """The messages the "tensorflow" logger emits at INFO and above inside the block."""
    seen = []

    class _Keep(logging.Handler):
        def emit(self, record):
            seen.append(record.getMessage())

    h = _Keep()
    logger = logging.getLogger("tensorflow")
    logger.addHandler(h)
    old = logger.level
    logger.setLevel(logging.INFO)
    try:
        yield seen
    finally:
        logger.removeHandler(h)
        logger.setLevel(old)


def _model_fn(features, labels, mode):
    w = tf.get_variable("w", [2, 3], initializer=tf.zeros_initializer())
    logits = tf.matmul(features["x"], w)
    pred = tf.argmax(logits, 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"cls": pred, "logits": logits})
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      eval_metric_ops={"acc": tf.metrics.accuracy(labels, pred)})


def test_evaluate_logs_the_checkpoint_path_summary_and_predict_keys_error(tmp_path):
    x = np.array([[1., 0.], [0., 1.], [1., 1.]], np.float32)
    y = np.array([0, 1, 2], np.int64)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(3)

    est = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path))
    est.train(lambda: input_fn().repeat(), steps=2)
    with _tf_log_messages() as seen:
        est.evaluate(input_fn)
    ckpt = os.path.join(str(tmp_path), "model.ckpt-2")
    assert f"Saving 'checkpoint_path' summary for global step 2: {ckpt}" in seen
    i = seen.index(f"Saving 'checkpoint_path' summary for global step 2: {ckpt}")
    assert seen[i - 1].startswith("Saving dict for global step 2: acc = ")
    with pytest.raises(ValueError, match=r"^Expected to run at least one output from "
                       r"dict_keys\(\['cls', 'logits'\]\), provided \['nope'\]\.$"):
        list(est.predict(input_fn, predict_keys=["nope"]))


def test_bucketized_column_keeps_the_boundaries_as_given():
    fc = tf.feature_column
    b = fc.bucketized_column(fc.numeric_column("age"), [18, 30, 50])
    assert b.boundaries == (18, 30, 50)
    assert repr(b) == (
        "BucketizedColumn(source_column=NumericColumn(key='age', shape=(1,), "
        "default_value=None, dtype=tf.float32, normalizer_fn=None), boundaries=(18, 30, 50))")
    out = fc.input_layer({"age": tf.constant([[10.], [30.], [60.]])}, [b])
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(out), [[1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])


def test_key_value_initializer_imports_and_vocabulary_lookups_select_v2():
    fc = tf.feature_column
    col = fc.categorical_column_with_vocabulary_list("c", ["a", "b", "c"], num_oov_buckets=1)
    out = fc.input_layer({"c": tf.constant([["a"], ["z"], ["c"]])}, [fc.indicator_column(col)])
    names = [(o.name, o.type) for o in tf.get_default_graph().get_operations()]
    assert ("input_layer/c_indicator/c_lookup/hash_table/table_init/LookupTableImportV2",
            "LookupTableImportV2") in names
    assert ("input_layer/c_indicator/hash_table_Lookup/SelectV2", "SelectV2") in names
    with tf.Session() as s:
        s.run(tf.tables_initializer())
        np.testing.assert_array_equal(
            s.run(out), [[1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]])


def test_static_vocabulary_table_op_names():
    t = tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(
        ["a", "b"], [0, 1], value_dtype=tf.int64), 2, name="voc")
    r = t.lookup(tf.constant(["a", "q"]))
    assert [(o.name, o.type) for o in tf.get_default_graph().get_operations()] == [
        ("keys", "Const"), ("values", "Const"), ("Const", "Const"),
        ("hash_table", "HashTableV2"),
        ("key_value_init/LookupTableImportV2", "LookupTableImportV2"), ("Const_1", "Const"),
        ("voc_Lookup/hash_bucket", "StringToHashBucketFast"),
        ("voc_Lookup/hash_table_Lookup/LookupTableFindV2", "LookupTableFindV2"),
        ("voc_Lookup/hash_table_Size/LookupTableSizeV2", "LookupTableSizeV2"),
        ("voc_Lookup/Add", "Add"), ("voc_Lookup/NotEqual", "NotEqual"),
        ("voc_Lookup/SelectV2", "SelectV2")]
    with tf.Session() as s:
        s.run(tf.tables_initializer())
        assert s.run(r).tolist() == [0, 3]


def test_table_initialized_again_compares_only_the_entry_count():
    k = tf.placeholder(tf.string, [None])
    v = tf.placeholder(tf.int64, [None])
    t = tf.contrib.lookup.HashTable(tf.contrib.lookup.KeyValueTensorInitializer(k, v), -1)
    found = t.lookup(tf.constant(["a", "b", "c"]))
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Expected shape \[1\] for value, got \[2\]"):
            s.run(t.init, {k: ["a"], v: [1, 2]})
        s.run(t.init, {k: ["a", "b"], v: [1, 2]})
        s.run(t.init, {k: ["a", "c"], v: [1, 3]})
        assert s.run(found).tolist() == [1, 2, -1]
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match="Table was already initialized with different data"):
            s.run(t.init, {k: ["q"], v: [1]})


def _numpy_input(x, y, epochs=None):
    return tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=4, num_epochs=epochs,
                                              shuffle=False)


def test_canned_slot_names_and_checkpoint_shards(tmp_path):
    x = np.array([[0.1, 0.2], [0.5, -0.3], [-1., 2.], [0.3, 0.3]], np.float32)
    y = np.array([0, 1, 1, 0], np.int32)
    cols = [tf.feature_column.numeric_column("x", shape=(2,))]
    lin = tf.estimator.LinearClassifier(cols, model_dir=str(tmp_path / "l"))
    lin.train(_numpy_input(x, y), steps=2)
    # TF 1.15 builds the optimizer inside the "linear" variable scope: the slot of the part
    # "linear/linear_model/x/weights/part_0" is saved as ".../weights/part_0/Ftrl"
    assert lin.get_variable_names() == [
        "global_step", "linear/linear_model/bias_weights",
        "linear/linear_model/bias_weights/part_0/Ftrl",
        "linear/linear_model/bias_weights/part_0/Ftrl_1", "linear/linear_model/x/weights",
        "linear/linear_model/x/weights/part_0/Ftrl", "linear/linear_model/x/weights/part_0/Ftrl_1"]
    # the ref global_step and the resource weights are saved in two shards, as TF 1.15
    assert sorted(f for f in os.listdir(str(tmp_path / "l")) if f.startswith("model.ckpt-2")) == [
        "model.ckpt-2.data-00000-of-00002", "model.ckpt-2.data-00001-of-00002",
        "model.ckpt-2.index", "model.ckpt-2.meta"]
    dnn = tf.estimator.DNNClassifier([3], cols, model_dir=str(tmp_path / "d"))
    dnn.train(_numpy_input(x, y), steps=1)
    # ... and the DNN's inside "dnn": TF's slot name keeps what is left after cutting the
    # primary's name length from "dnn/<primary>/Adagrad"
    assert [n for n in dnn.get_variable_names() if "Adagrad" in n] == [
        "dnn/hiddenlayer_0/bias/t_0/Adagrad", "dnn/hiddenlayer_0/kernel/t_0/Adagrad",
        "dnn/logits/bias/t_0/Adagrad", "dnn/logits/kernel/t_0/Adagrad"]
    assert dnn.evaluate(_numpy_input(x, y, 1))["global_step"] == 1


def test_sharded_saver_puts_partitioned_resource_variables_in_the_cpu_shard(tmp_path):
    # TF 1.15 saves the parts of a partitioned resource variable from copies on the task's CPU
    # (a shard of their own) and whole variables, ref or resource, on their own device
    tf.get_variable("a", [2])
    tf.get_variable("b", [2], use_resource=True)
    saver = tf.train.Saver(sharded=True)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        saver.save(s, str(tmp_path / "m"))
    assert sorted(os.listdir(str(tmp_path))) == [
        "checkpoint", "m.data-00000-of-00001", "m.index", "m.meta"]
    assert tf.train.list_variables(str(tmp_path / "m")) == [("a", [2]), ("b", [2])]
    p = tf.get_variable("p", [4, 2], use_resource=True, partitioner=tf.fixed_size_partitioner(2))
    assert all(v.dtype == tf.float32 for v in p)  # resource parts, not float32_ref
    saver = tf.train.Saver(sharded=True)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        saver.save(s, str(tmp_path / "n"))
    assert sorted(f for f in os.listdir(str(tmp_path)) if f.startswith("n.data")) == [
        "n.data-00000-of-00002", "n.data-00001-of-00002"]
    assert tf.train.list_variables(str(tmp_path / "n")) == [("a", [2]), ("b", [2]), ("p", [4, 2])]


def test_parse_example_orders_sparse_then_dense_results():
    d = tf.parse_example(tf.placeholder(tf.string, [None]), {
        "x": tf.FixedLenFeature([2], tf.float32), "sf": tf.SparseFeature("ix", "vv", tf.float32, 4),
        "b": tf.VarLenFeature(tf.string), "vv": tf.VarLenFeature(tf.float32),
        "a": tf.SparseFeature("i2", "v2", tf.float32, 4)})
    assert list(d) == ["b", "vv", "x", "a", "sf"]
    d = tf.parse_single_example(tf.placeholder(tf.string, []), {
        "x": tf.FixedLenFeature([2], tf.float32), "c": tf.VarLenFeature(tf.string),
        "a": tf.FixedLenFeature([1], tf.int64)})
    assert list(d) == ["c", "a", "x"]


def test_sparse_tensor_repr_is_objects():
    sp = tf.SparseTensor([[0, 0]], [1.0], [2, 2])
    assert repr(sp).startswith("<") and repr(sp).endswith(">") and " object at 0x" in repr(sp)
    assert str([sp]) == f"[{sp!r}]"
    assert str(sp).startswith('SparseTensor(indices=Tensor("SparseTensor/indices:0"')


def test_regressor_exports_regression_signatures_for_any_label_dimension(tmp_path):
    x = np.array([[0.1, 0.2], [0.5, -0.3]], np.float32)
    y = np.array([[0, 1], [1, 1]], np.float32)
    cols = [tf.feature_column.numeric_column("x", shape=(2,))]
    est = tf.estimator.LinearRegressor(cols, label_dimension=2, model_dir=str(tmp_path))
    est.train(tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=2, num_epochs=None,
                                                 shuffle=False), steps=1)
    with _tf_log_messages() as seen:
        exp = est.export_saved_model(
            str(tmp_path / "export"), tf.estimator.export.build_parsing_serving_input_receiver_fn(
                tf.feature_column.make_parse_example_spec(cols)))
    assert isinstance(exp, bytes)
    # TF 1.15's builder logs, and its temporary directory named from the bytes basename
    stamp = os.path.basename(exp).decode()
    assert seen[-3:] == [
        "Assets added to graph.", "No assets to write.",
        f"SavedModel written to: {tmp_path}/export/temp-b'{stamp}'/saved_model.pb"]
    with tf.Session(graph=tf.Graph()) as s:
        mg = tf.saved_model.loader.load(s, ["serve"], exp.decode())
        assert sorted(mg.signature_def) == ["predict", "regression", "serving_default"]
        assert mg.signature_def["serving_default"].method_name == "tensorflow/serving/regress"


class _Logs(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())

    def __enter__(self):
        logger = logging.getLogger("tensorflow")
        self._old = logger.level
        logger.addHandler(self)
        logger.setLevel(logging.INFO)
        return self

    def __exit__(self, *exc):
        logger = logging.getLogger("tensorflow")
        logger.removeHandler(self)
        logger.setLevel(self._old)


def test_train_and_evaluate_runs_tf_115s_local_loop(tmp_path):
    x = np.random.RandomState(0).randn(16, 2).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32)
    cols = [tf.feature_column.numeric_column("x", shape=(2,))]
    est = tf.estimator.LinearClassifier(cols, model_dir=str(tmp_path), config=tf.estimator.RunConfig(
        save_checkpoints_steps=3))
    train = tf.estimator.TrainSpec(tf.estimator.inputs.numpy_input_fn(
        {"x": x}, y, batch_size=4, num_epochs=None, shuffle=False), max_steps=7)
    assert "input_fn=<function numpy_input_fn.<locals>.input_fn at 0x" in repr(train)
    # throttle_secs=0 is allowed (every checkpoint but the first is evaluated)
    evals = tf.estimator.EvalSpec(tf.estimator.inputs.numpy_input_fn(
        {"x": x}, y, batch_size=8, shuffle=False), throttle_secs=0)
    with _Logs() as logs:
        metrics, exports = tf.estimator.train_and_evaluate(est, train, evals)
    assert logs.lines[:3] == [
        "Not using Distribute Coordinator.",
        "Running training and evaluation locally (non-distributed).",
        ("Start train and evaluate loop. The evaluate will happen after every checkpoint. "
         "Checkpoint frequency is determined based on RunConfig arguments: "
         "save_checkpoints_steps 3 or save_checkpoints_secs None.")]
    steps = [line.split()[-1] for line in logs.lines
             if line.startswith("Saving 'checkpoint_path' summary")]
    assert [s.rsplit("-", 1)[1] for s in steps] == ["3", "6", "7"]
    assert metrics["global_step"] == 7 and exports == []


def test_warm_start_settings_and_logs(tmp_path):
    ws = tf.estimator.WarmStartSettings(str(tmp_path), vars_to_warm_start=".*bias.*")
    assert repr(ws) == (f"WarmStartSettings(ckpt_to_initialize_from='{tmp_path}', "
                        "vars_to_warm_start='.*bias.*', var_name_to_vocab_info={}, "
                        "var_name_to_prev_var_name={})")
    with pytest.raises(ValueError, match="`ckpt_to_initialize_from` MUST be set"):
        tf.estimator.WarmStartSettings("")
    with tf.Session() as s:
        tf.get_variable("a", [2], initializer=tf.constant_initializer(3.0))
        tf.get_variable("a_bias", [1], initializer=tf.constant_initializer(4.0))
        s.run(tf.global_variables_initializer())
        tf.train.Saver().save(s, str(tmp_path / "m"))
    with tf.Graph().as_default():
        a = tf.get_variable("a", [2])
        b = tf.get_variable("a_bias", [1])
        with _Logs() as logs:
            tf.train.warm_start(str(tmp_path), vars_to_warm_start=".*bias.*")
        assert logs.lines == [f"Warm-starting from: {tmp_path}",
                              "Warm-starting variables only in TRAINABLE_VARIABLES.",
                              "Warm-started 1 variables."]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert s.run(b).tolist() == [4.0] and s.run(a).tolist() != [3.0, 3.0]


def test_estimator_config_logs_first_and_evaluate_dict_in_name_order(tmp_path):
    with _Logs() as logs, pytest.raises(ValueError, match="has following not expected args"):
        tf.estimator.Estimator(lambda features, labels, mode, foo: None, model_dir=str(tmp_path))
    assert logs.lines[0] == "Using default config."
    assert logs.lines[1].startswith(f"Using config: {{'_model_dir': '{tmp_path}'")
    cfg = tf.estimator.RunConfig()
    assert repr(cfg).startswith("<") and " object at 0x" in repr(cfg)
    with pytest.raises(ValueError, match=r"^Replacing foo is not supported\. Allowed properties "
                       r"are \['model_dir', 'tf_random_seed', 'save_summary_steps', "):
        cfg.replace(foo=1)

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [2, 1], initializer=tf.ones_initializer())
        out = tf.matmul(features["x"], w)
        loss = tf.reduce_mean(tf.square(out - labels))
        with tf.control_dependencies([loss]):
            op = tf.assign_add(tf.train.get_global_step(), 1)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=op, eval_metric_ops={
            "zz": tf.metrics.mean(out), "a": tf.metrics.mean(labels)})

    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    y = np.array([[0.], [1.], [0.], [1.]], np.float32)
    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    est.train(tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=2, num_epochs=1,
                                                 shuffle=False))
    ev = est.evaluate(tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=4,
                                                         shuffle=False))
    assert list(ev) == ["a", "loss", "zz", "global_step"]
    assert ev["global_step"] == 2 and ev["zz"] == 7.0


def test_feature_column_messages_as_tf_115():
    fc = tf.feature_column
    with pytest.raises(TypeError, match=r"^default_value must be compatible with dtype\. "
                       r"default_value: x, dtype: <dtype: 'float32'>, key: a$"):
        fc.numeric_column("a", default_value="x")
    with pytest.raises(ValueError, match=r"^column_name: h dtype must be string or integer\. "
                       r"dtype: <dtype: 'float32'>\.$"):
        fc.categorical_column_with_hash_bucket("h", 3, dtype=tf.float32)
    with pytest.raises(ValueError, match="except HashedCategoricalColumn. Given: NumericColumn"):
        fc.crossed_column(["a", fc.numeric_column("n")], 4)
    with pytest.raises(ValueError, match="with buckets: 3 does  not match column: "):
        fc.shared_embedding_columns([fc.categorical_column_with_identity("i", 3),
                                     fc.categorical_column_with_identity("j", 4)], 2)
    # TF 1.15 makes an indicator column of anything; using it fails
    col = fc.indicator_column("x")
    assert repr(col) == "IndicatorColumn(categorical_column='x')"
    with pytest.raises(AttributeError):
        fc.input_layer({"x": tf.constant([[1]])}, [col])


def test_dnn_batch_norm_gamma_beta_partitioned_as_tf_seeds_follow():
    # TF 1.15's BatchNormalization turns the scope's partitioner off only for its moving
    # statistics: gamma and beta are "<name>/part_0" parts, read through "beta" and "gamma"
    # Identities, so the logits' seeded initial values are TF's
    fc = tf.feature_column
    x = np.random.RandomState(3).randn(8, 3).astype(np.float32)
    y = (x[:, 0] > 0.3).astype(np.int64).reshape(8, 1)
    est = tf.estimator.DNNClassifier([4], [fc.numeric_column("x", shape=(3,))], batch_norm=True,
                                     model_dir="/tmp/_unused_h202_bn")
    tf.set_random_seed(42)
    tf.train.create_global_step()
    spec = est.model_fn({"x": tf.constant(x)}, tf.constant(y), "train", est.config)
    names = [v.name for v in tf.trainable_variables()]
    assert names == [
        "dnn/hiddenlayer_0/kernel/part_0:0", "dnn/hiddenlayer_0/bias/part_0:0",
        "dnn/hiddenlayer_0/batchnorm_0/gamma/part_0:0",
        "dnn/hiddenlayer_0/batchnorm_0/beta/part_0:0", "dnn/logits/kernel/part_0:0",
        "dnn/logits/bias/part_0:0"]
    moving = [v.name for v in tf.global_variables() if "moving" in v.name]
    assert moving == ["dnn/hiddenlayer_0/batchnorm_0/moving_mean:0",
                      "dnn/hiddenlayer_0/batchnorm_0/moving_variance:0"]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        logits_kernel = tf.trainable_variables()[4]
        np.testing.assert_allclose(s.run(logits_kernel).ravel(),
                                   [0.6756, 0.9381, 0.1253, 0.6118], atol=1e-4)
        np.testing.assert_allclose(s.run(spec.loss), 3.90027, rtol=1e-5)


def test_receiver_and_numpy_input_messages_as_tf_115():
    s = tf.placeholder(tf.string, [None])
    with pytest.raises(ValueError, match=r"^feature a must be a Tensor or SparseTensor\.$"):
        tf.estimator.export.ServingInputReceiver({"a": 3}, s)
    with pytest.raises(ValueError, match=r"^feature must be a Tensor or SparseTensor\.$"):
        tf.estimator.export.TensorServingInputReceiver(3, s)
    with pytest.raises(ValueError, match=r"Shapes in x: \{'a': \(3,\)\}\nShapes in y: \(4,\)\n$"):
        tf.estimator.inputs.numpy_input_fn({"a": np.zeros(3)}, np.zeros(4), shuffle=False)()
