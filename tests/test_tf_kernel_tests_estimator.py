"""Estimator behaviours found by running TF 1.15's estimator tests against tideflow: Keras
metric objects in ``EstimatorSpec.eval_metric_ops`` (validated, then run by ``evaluate``),
nested metric values and their graph check, ``numpy_input_fn`` with zero epochs and with an
empty array, the default serving signature added next to a single named export output, and
RunConfig as TF 1.15 checks and derives it (setting checks in the constructor and ``replace``,
TF_CONFIG's cluster checks in TF's order, a one-node cluster run locally, global ids, the default
session config of each role, ``service`` and ``model_dir`` from TF_CONFIG)."""

import json
import tempfile

import numpy as np
import pytest

import tideflow as tf
from tideflow.estimator.inputs import numpy_input_fn

ModeKeys = tf.estimator.ModeKeys


def _spec(**kw):
    return tf.estimator.EstimatorSpec(**kw)


def test_keras_metric_object_is_accepted_and_its_variables_collected():
    with tf.Graph().as_default():
        loss = tf.constant(1.0)
        m = tf.keras.metrics.Mean()
        m.update_state(tf.constant([2.0, 4.0]))
        assert len(m.updates) == 1
        spec = _spec(mode=ModeKeys.EVAL, loss=loss,
                     eval_metric_ops={"loss2": (tf.no_op(), loss), "mean": m})
        # as TF 1.15: the spec holds the metric's (result, first update) tuple
        value, update = spec.eval_metric_ops["mean"]
        assert isinstance(value, tf.Tensor) and update is m.updates[0]
        local = tf.get_collection(tf.GraphKeys.LOCAL_VARIABLES)
        metric_vars = tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)
        for v in m.variables:
            assert v in local and v in metric_vars


def test_keras_metric_object_without_update_is_rejected():
    with tf.Graph().as_default():
        m = tf.keras.metrics.Mean(name="my_mean")
        with pytest.raises(ValueError, match=r'Please call update_state\(...\) on the "my_mean"'):
            _spec(mode=ModeKeys.EVAL, loss=tf.constant(1.0), eval_metric_ops={"m": m})


def test_keras_metric_object_from_another_graph_is_rejected():
    with tf.Graph().as_default():
        m = tf.keras.metrics.Mean()
        m.update_state(tf.constant(1.0))
    with tf.Graph().as_default(), pytest.raises(ValueError, match="default graph"):
        _spec(mode=ModeKeys.EVAL, loss=tf.constant(1.0), eval_metric_ops={"m": m})


def test_subclass_update_calling_super_records_one_update():
    with tf.Graph().as_default():
        m = tf.keras.metrics.MeanSquaredError()
        m.update_state(tf.constant([1.0, 2.0]), tf.constant([1.0, 4.0]))
        assert len(m.updates) == 1


def test_nested_metric_value_and_graph_check():
    with tf.Graph().as_default():
        loss = tf.constant(1.0)
        value = (loss, loss, (tf.constant(2), loss))
        spec = _spec(mode=ModeKeys.EVAL, loss=loss, eval_metric_ops={"m": (value, tf.no_op())})
        assert spec.eval_metric_ops["m"][0] is value
    with tf.Graph().as_default():
        pair = tf.metrics.mean(tf.constant(1.0))
    with tf.Graph().as_default(), pytest.raises(ValueError, match="default graph"):
        _spec(mode=ModeKeys.EVAL, loss=tf.constant(1.0), eval_metric_ops={"m": pair})


def test_single_named_export_output_is_also_the_default_signature():
    with tf.Graph().as_default():
        out = tf.estimator.export.RegressionOutput(value=tf.constant([1.0]))
        spec = _spec(mode=ModeKeys.PREDICT, predictions={"p": tf.constant(1.0)},
                     export_outputs={"head-1": out})
        assert spec.export_outputs == {"head-1": out, "serving_default": out}


def test_estimator_evaluate_runs_keras_metric_objects():
    x = np.array([1.0, 2.0, 3.0, 5.0], np.float32)

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [], initializer=tf.constant_initializer(2.0))
        pred = features["x"] * w
        loss = tf.reduce_mean(tf.square(pred - labels))
        if mode == ModeKeys.TRAIN:
            step = tf.train.get_or_create_global_step()
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=tf.assign_add(step, 1))
        mean_obj = tf.keras.metrics.Mean()
        mean_obj.update_state(pred)
        mse_obj = tf.keras.metrics.MeanSquaredError()
        mse_obj.update_state(labels, pred)
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={
            "mean_pred": mean_obj, "mse": mse_obj, "tuple_mean": tf.metrics.mean(pred)})

    est = tf.estimator.Estimator(model_fn, model_dir=tempfile.mkdtemp())
    y = np.zeros(4, np.float32)
    fn = numpy_input_fn({"x": x}, y, batch_size=2, shuffle=False)
    est.train(fn, steps=1)
    result = est.evaluate(fn)
    pred = 2.0 * x
    np.testing.assert_allclose(result["mean_pred"], pred.mean(), rtol=1e-6)
    np.testing.assert_allclose(result["tuple_mean"], pred.mean(), rtol=1e-6)
    np.testing.assert_allclose(result["mse"], np.mean(pred ** 2), rtol=1e-6)


def test_numpy_input_fn_zero_epochs_is_empty():
    with tf.Graph().as_default():
        features, target = numpy_input_fn({"a": np.arange(4.0)}, np.arange(4), batch_size=2,
                                          shuffle=False, num_epochs=0)()
        with tf.train.MonitoredSession() as sess, pytest.raises(tf.errors.OutOfRangeError):
            sess.run([features, target])


def test_numpy_input_fn_negative_epochs_rejected():
    with pytest.raises(ValueError, match="num_epochs"):
        numpy_input_fn({"a": np.arange(4.0)}, shuffle=False, num_epochs=-1)


def test_numpy_input_fn_empty_array_rejected():
    with tf.Graph().as_default(), pytest.raises(ValueError, match="x cannot be an empty array"):
        numpy_input_fn(np.array([[], []]), np.arange(4), shuffle=False)()


# -- RunConfig ---------------------------------------------------------------------------------

RunConfig = tf.estimator.RunConfig


def _with_tf_config(monkeypatch, tf_config, **kw):
    monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
    return RunConfig(**kw)


@pytest.mark.parametrize("kw, message", [
    ({"model_dir": ""}, "model_dir should be non-empty"),
    ({"save_summary_steps": -1}, "save_summary_steps should be >= 0"),
    ({"save_checkpoints_steps": -1}, "save_checkpoints_steps should be >= 0"),
    ({"session_config": {}}, "session_config must be instance of ConfigProto"),
    ({"keep_checkpoint_max": -1}, "keep_checkpoint_max should be >= 0"),
    ({"keep_checkpoint_every_n_hours": 0}, "keep_checkpoint_every_n_hours should be > 0"),
    ({"session_creation_timeout_secs": 0}, "session_creation_timeout_secs should be > 0"),
    ({"tf_random_seed": 1.5}, "tf_random_seed must be integer"),
    ({"device_fn": lambda x, y: 0}, 'device_fn must be callable with exactly one argument "op"'),
    ({"experimental_max_worker_delay_secs": "5"},
     "experimental_max_worker_delay_secs must be an integer"),
    ({"save_checkpoints_steps": 3, "save_checkpoints_secs": 4}, "cannot be both set"),
])
def test_run_config_checks_settings_in_constructor_and_replace(kw, message):
    with pytest.raises(ValueError, match=message):
        RunConfig(**kw)
    with pytest.raises(ValueError, match=message):
        RunConfig().replace(**kw)


def test_run_config_accepts_valid_settings():
    fn = lambda op: "/cpu:0"
    c = RunConfig(tf_random_seed=3, device_fn=fn, experimental_max_worker_delay_secs=10,
                  session_config=tf.ConfigProto(allow_soft_placement=True))
    assert (c.tf_random_seed, c.device_fn, c.experimental_max_worker_delay_secs) == (3, fn, 10)
    c = c.replace(save_checkpoints_steps=None, save_checkpoints_secs=None)
    assert c.save_checkpoints_steps is None and c.save_checkpoints_secs is None


def test_run_config_cluster_checks_in_tf_order(monkeypatch):
    cl = {"chief": ["c:0", "c:1"], "worker": ["w:0"]}
    with pytest.raises(ValueError, match='only one "chief" node'):
        _with_tf_config(monkeypatch, {"cluster": cl})  # before the missing task
    with pytest.raises(ValueError, match='task type must be set'):
        _with_tf_config(monkeypatch, {"cluster": {"chief": ["c:0"]}})
    with pytest.raises(ValueError, match='task index must be set'):
        _with_tf_config(monkeypatch, {"cluster": {"chief": ["c:0"]}, "task": {"type": "chief"}})
    for task_type in ("chief", "evaluator"):
        with pytest.raises(ValueError, match="Task index must be non-negative number"):
            _with_tf_config(monkeypatch, {"cluster": {"chief": ["c:0"]},
                                          "task": {"type": task_type, "index": -1}})
    with pytest.raises(ValueError, match="job `chief` is not supported"):
        _with_tf_config(monkeypatch, {"cluster": {"master": ["m:0"], "chief": ["c:0"]},
                                      "task": {"type": "master", "index": 0}})


def test_run_config_single_node_cluster_runs_locally(monkeypatch):
    c = _with_tf_config(monkeypatch, {"cluster": {"chief": ["c:0"]},
                                      "task": {"type": "chief", "index": 0}})
    assert (c.master, c.is_chief, c.num_worker_replicas, c.num_ps_replicas) == ("", True, 1, 0)


def test_run_config_global_id_orders_jobs_by_name_with_ps_last(monkeypatch):
    cl = {"chief": ["c:0"], "worker": ["w:0", "w:1", "w:2"], "other_type": ["o:0", "o:1"],
          "ps": ["p:0", "p:1", "p:2"]}
    # chief (1 task), other_type (2), worker (3), ps (3)
    expected = {("chief", 0): 0, ("other_type", 1): 2, ("worker", 2): 5, ("ps", 1): 7}
    for (task_type, index), gid in expected.items():
        c = _with_tf_config(monkeypatch, {"cluster": cl,
                                          "task": {"type": task_type, "index": index}})
        assert c.global_id_in_cluster == gid


def test_run_config_default_session_config_per_role(monkeypatch):
    cl = {"master": ["m:0"], "ps": ["p:0", "p:1"], "worker": ["w:0", "w:1"],
          "other_type": ["o:0"]}
    expected = {"master": ["/job:ps", "/job:master"],
                "worker": ["/job:ps", "/job:worker/task:1"],
                "ps": ["/job:ps", "/job:worker", "/job:chief", "/job:master"]}
    for task_type, filters in expected.items():
        c = _with_tf_config(monkeypatch, {"cluster": cl, "task": {"type": task_type,
                                                                  "index": 1 if task_type in
                                                                  ("worker", "ps") else 0}})
        assert list(c.session_config.device_filters) == filters
        assert c.session_config.allow_soft_placement
        assert c.session_config.graph_options.rewrite_options.meta_optimizer_iterations == 1
    c = _with_tf_config(monkeypatch, {"cluster": cl, "task": {"type": "other_type", "index": 0}})
    assert c.session_config is None
    c = _with_tf_config(monkeypatch, {"cluster": {"chief": ["c:0"], "worker": ["w:0"]},
                                      "task": {"type": "chief", "index": 0}})
    assert list(c.session_config.device_filters) == ["/job:ps", "/job:chief"]


def test_run_config_service_and_model_dir_from_tf_config(monkeypatch):
    service = {"key1": [1, 2], "key2": {"a": 3}}
    assert _with_tf_config(monkeypatch, {"service": service}).service == service
    with pytest.raises(TypeError, match='"service" is set in TF_CONFIG, it must be a dict'):
        _with_tf_config(monkeypatch, {"service": 789})
    assert _with_tf_config(monkeypatch, {"model_dir": "/tmp/a"}).model_dir == "/tmp/a"
    assert _with_tf_config(monkeypatch, {"model_dir": "/tmp/a"},
                           model_dir="/tmp/a").model_dir == "/tmp/a"
    with pytest.raises(ValueError, match="must have the same value as the model_dir in TF_CONFIG"):
        _with_tf_config(monkeypatch, {"model_dir": "/tmp/a"}, model_dir="/tmp/b")
    with pytest.raises(ValueError, match="model_dir in TF_CONFIG should be non-empty"):
        _with_tf_config(monkeypatch, {"model_dir": ""})


# -- serving and supervised input receivers --------------------------------------------------

export = tf.estimator.export


def _receivers():
    return {"example0": tf.constant(["a"]), "example1": tf.constant(["b"])}


def test_serving_input_receiver_allows_int_feature_keys_and_checks_as_tf():
    with tf.Graph().as_default():
        sparse = tf.SparseTensor([[0, 0]], [1], [1, 1])
        r = export.ServingInputReceiver({"f": tf.constant([0]), "s": sparse,
                                         42: tf.constant([3])}, _receivers())
        assert set(r.features) == {"f", "s", 42}
        cases = [
            ({"features": None, "receiver_tensors": _receivers()}, "features must be defined"),
            ({"features": {4.5: tf.constant([1])}, "receiver_tensors": _receivers()},
             "feature keys must be strings or ints"),
            ({"features": {"f1": [1]}, "receiver_tensors": _receivers()},
             r"feature f1 must be a Tensor or SparseTensor\."),  # TF 1.15's words
            ({"features": {"f": tf.constant([1])}, "receiver_tensors": None},
             "receiver_tensors must be defined"),
            ({"features": {"f": tf.constant([1])}, "receiver_tensors": {1: tf.constant(["t"])}},
             "receiver_tensor keys must be strings"),
            ({"features": {"f": tf.constant([1])}, "receiver_tensors": {"e1": [1]}},
             "receiver_tensor e1 must be a Tensor"),
        ]
        for kw, message in cases:
            with pytest.raises(ValueError, match=message):
                export.ServingInputReceiver(**kw)
        with pytest.raises(ValueError, match="feature must be a Tensor or SparseTensor"):
            export.TensorServingInputReceiver({"1": tf.constant([1])}, _receivers())


class _HasTensor:
    def __init__(self):
        self.tensor = tf.constant([1])


def test_value_with_tensor_attribute_convertible_is_accepted():
    tf.register_tensor_conversion_function(
        _HasTensor, lambda value, dtype=None, name=None, as_ref=False: value.tensor)
    with tf.Graph().as_default():
        value = _HasTensor()
        r = export.ServingInputReceiver(value, tf.constant(["t"]))
        assert r.features == {"feature": value}


def test_unsupervised_and_supervised_input_receivers():
    with tf.Graph().as_default():
        r = export.UnsupervisedInputReceiver({"a": tf.constant([0])}, tf.constant(["t"]))
        assert isinstance(r, export.ServingInputReceiver)
        assert r.receiver_tensors_alternatives is None and list(r.receiver_tensors) == ["input"]
        sparse = tf.SparseTensor([[0, 0]], [1], [1, 1])
        s = export.SupervisedInputReceiver(sparse, {"c": tf.constant([0]), 43: tf.constant([1])},
                                           tf.constant(["t"]))
        assert s.features is sparse and set(s.labels) == {"c", 43}
        assert list(s.receiver_tensors) == ["input"]
        with pytest.raises(ValueError, match="label keys must be strings or ints"):
            export.SupervisedInputReceiver(tf.constant([0]), {1.5: tf.constant([1])},
                                           _receivers())
        with pytest.raises(ValueError, match="label must be a Tensor or SparseTensor"):
            export.SupervisedInputReceiver(tf.constant([0]), 100, _receivers())


def test_build_raw_supervised_input_receiver_fn():
    features = {"f1": tf.constant(["hello"]), "f2": tf.constant([[42, 1]])}
    labels = {"foo": tf.constant([5]), "bar": tf.constant([6.0])}
    fn = export.build_raw_supervised_input_receiver_fn(features, labels, default_batch_size=10)
    single = export.build_raw_supervised_input_receiver_fn(features["f1"], labels["foo"])
    with tf.Graph().as_default():
        r = fn()
        assert set(r.receiver_tensors) == {"f1", "f2", "foo", "bar"}
        assert r.features["f2"].shape.as_list() == [10, 2]
        assert r.features["f2"].dtype == tf.int32 and r.labels["bar"].dtype == tf.float32
        assert r.receiver_tensors["f1"] is r.features["f1"]
        s = single()
        assert set(s.receiver_tensors) == {"input", "label"}
        assert isinstance(s.features, tf.Tensor) and isinstance(s.labels, tf.Tensor)
        assert s.features.shape.as_list() == [None] and s.features.dtype == tf.string
    with pytest.raises(ValueError, match="distinct keys"):
        export.build_raw_supervised_input_receiver_fn({"a": features["f1"]},
                                                      {"a": labels["foo"]})


def test_build_supervised_input_receiver_fn_from_input_fn():
    def input_fn(feature_key="x"):
        return ({feature_key: tf.constant([[1.0], [2.0]]), "y": tf.constant(["h", "g"])},
                tf.constant([[1], [0]]))

    fn = export.build_supervised_input_receiver_fn_from_input_fn(input_fn, feature_key="z")
    with tf.Graph().as_default() as g:
        r = fn()
        assert set(r.features) == {"z", "y"} and set(r.receiver_tensors) == {"z", "y", "label"}
        assert r.labels.graph is g and r.labels.shape.as_list() == [None, 1]
        with tf.Session() as sess:
            got = sess.run(r.labels, {r.receiver_tensors["label"]: [[7], [8], [9]]})
        np.testing.assert_array_equal(got, [[7], [8], [9]])


def test_summary_writer_meta_graph_keeps_the_savers_collection(tmp_path):
    # An Estimator's first FileWriter writes the graph's meta graph: a Saver in the savers
    # collection serializes as a SaverDef (as TF, where the proto functions are always set).
    from tideflow.protos import meta_graph_pb2, saver_pb2
    from tideflow.summary.summary_iterator import summary_iterator

    with tf.Graph().as_default() as g:
        tf.Variable(1.0, name="v")
        saver = tf.train.Saver()
        tf.add_to_collection(tf.GraphKeys.SAVERS, saver)
        writer = tf.summary.FileWriter(str(tmp_path), graph=g)
        writer.close()
    metas = []
    for path in tmp_path.iterdir():
        for event in summary_iterator(str(path)):
            if event.HasField("meta_graph_def"):
                mgd = meta_graph_pb2.MetaGraphDef()
                mgd.ParseFromString(event.meta_graph_def)
                metas.append(mgd)
    assert len(metas) == 1
    assert "savers" in metas[0].collection_def
    (raw,) = metas[0].collection_def["savers"].bytes_list.value
    saver_def = saver_pb2.SaverDef()
    saver_def.ParseFromString(raw)
    assert saver_def.restore_op_name == saver.saver_def.restore_op_name


# -- EvalSpec exporters and BestExporter's compare_fn -----------------------------------------


def test_eval_spec_non_iterable_exporters_message():
    with pytest.raises(TypeError, match=r"`exporters` must be an Exporter, an iterable of "
                                        r"Exporter, or `None`, found 1\."):
        tf.estimator.EvalSpec(lambda: None, exporters=1)


def test_best_exporter_compare_fn_arguments():
    def higher_accuracy(best_eval_result, current_eval_result):
        return current_eval_result["accuracy"] > best_eval_result["accuracy"]

    exporter = tf.estimator.BestExporter(compare_fn=higher_accuracy)
    assert exporter.name == "best_exporter"
    with pytest.raises(ValueError, match="`compare_fn` must not be None"):
        tf.estimator.BestExporter(compare_fn=None)
    with pytest.raises(ValueError, match="must include best_eval_result argument"):
        tf.estimator.BestExporter(compare_fn=lambda a, current_eval_result: True)
    with pytest.raises(ValueError, match="must include current_eval_result argument"):
        tf.estimator.BestExporter(compare_fn=lambda best_eval_result, b: True)
    with pytest.raises(ValueError, match=r"has following not expected args: \['extra'\]"):
        tf.estimator.BestExporter(
            compare_fn=lambda best_eval_result, current_eval_result, extra: True)


def test_best_exporter_calls_compare_fn_with_keywords(tmp_path):
    calls = []

    def compare(current_eval_result, best_eval_result):  # order differs from TF's call
        calls.append((best_eval_result["loss"], current_eval_result["loss"]))
        return current_eval_result["loss"] < best_eval_result["loss"]

    exporter = tf.estimator.BestExporter(compare_fn=compare, event_file_pattern=None,
                                         serving_input_receiver_fn=lambda: None)
    exporter._best = {"loss": 2.0}
    estimator = type("Estimator", (), {"model_dir": str(tmp_path)})()
    assert exporter.export(estimator, str(tmp_path), None, {"loss": 3.0}, False) is None
    assert calls == [(2.0, 3.0)]
