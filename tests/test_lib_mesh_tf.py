"""Differences found by running Mesh TensorFlow 0.1.9 (model-parallel layouts lowered to TF 1.x
graphs; its op, layer, auto-layout and transformer tests, the MNIST example and a small
transformer) against tideflow, each reduced to the plain TF 1.x calls the library makes."""

import importlib

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ----------------------------------------------------------------------------------------
# module paths imported at `import mesh_tensorflow` time
# ----------------------------------------------------------------------------------------


def test_gen_resource_variable_ops_module_imports():
    gen = importlib.import_module("tideflow.python.ops.gen_resource_variable_ops")
    from tideflow.python.ops import gen_resource_variable_ops

    assert gen is gen_resource_variable_ops
    with pytest.raises(AttributeError, match="no_such_op_here"):
        gen.no_such_op_here  # noqa: B018


def test_python_tpu_modules_name_the_cpu_tpu_estimator():
    from tideflow.python.tpu import tpu_config, tpu_estimator
    from tideflow.python.tpu.ops import tpu_ops

    assert tpu_estimator.TPUEstimator is tf.estimator.tpu.TPUEstimator
    assert tpu_estimator.TPUEstimatorSpec is tf.estimator.tpu.TPUEstimatorSpec
    cfg = tpu_config.RunConfig(tpu_config=tpu_config.TPUConfig(iterations_per_loop=3))
    assert cfg.tpu_config.iterations_per_loop == 3
    assert tpu_config.InputPipelineConfig.BROADCAST == 4
    x = tf.constant([1.5, -2.0])
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(tpu_ops.cross_replica_sum(x)), [1.5, -2.0])


# ----------------------------------------------------------------------------------------
# a device function's answer is the op's device as written (BalancedVariablePlacer)
# ----------------------------------------------------------------------------------------


def test_device_function_answer_is_kept_as_written():
    with tf.device(lambda op: "cpu:1"):
        v = tf.get_variable("w", [2])
        c = tf.constant(1.0)
    with tf.device("cpu:2"):
        d = tf.constant(1.0)
    with tf.device(lambda op: "/job:w/cpu:1"):
        f = tf.constant(1.0)
    with tf.device(lambda op: "/GPU:0" if op.type == "Identity" else ""):
        g = tf.constant(1.0)
        h = tf.identity(g)
    assert (v.device, c.device, f.device) == ("cpu:1", "cpu:1", "/job:w/cpu:1")
    assert d.device == "/device:CPU:2"  # a string scope is canonical
    assert (g.device, h.device) == ("", "/GPU:0")


def test_device_function_answer_merged_by_outer_string_scope():
    with tf.device("/job:localhost"), tf.device(lambda op: "cpu:1"):
        a = tf.constant(1.0)
    assert a.device == "/job:localhost/device:CPU:1"


def test_round_robin_variable_placer_runs_on_the_named_cpus():
    # (a device function's bare "cpu:1" is stored as it is and refused at run time as
    # malformed, as in TF 1.15: the placer names full devices)
    names = iter(["/cpu:1", "/cpu:2", "/cpu:3", "/cpu:0"])

    def placer(op):
        return next(names) if op.type == "VariableV2" else op.device

    with tf.device(placer):
        ws = [tf.get_variable(f"w{i}", [3], initializer=tf.constant_initializer(i + 1.0))
              for i in range(4)]
    assert [w.device for w in ws] == ["/cpu:1", "/cpu:2", "/cpu:3", "/cpu:0"]
    total = tf.add_n([tf.reduce_sum(w) for w in ws])
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 4})) as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(total) == pytest.approx(3.0 * (1 + 2 + 3 + 4))


# ----------------------------------------------------------------------------------------
# tpu_estimator.export_estimator_savedmodel (mesh transformer's export mode)
# ----------------------------------------------------------------------------------------


def test_export_estimator_savedmodel_serves_on_the_cpu(tmp_path):
    from tideflow.python.tpu import tpu_config, tpu_estimator

    def model_fn(features, labels, mode, params):
        w = tf.get_variable("w", [2], initializer=tf.constant_initializer([2.0, -1.0]))
        y = tf.reduce_sum(features["x"] * w, axis=1)
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tpu_estimator.TPUEstimatorSpec(mode, predictions={"y": y})
        loss = tf.reduce_mean(tf.square(y - labels))
        step = tf.train.get_or_create_global_step()
        return tpu_estimator.TPUEstimatorSpec(mode, loss=loss,
                                              train_op=tf.assign_add(step, 1))

    def input_fn(params):
        x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
        ds = tf.data.Dataset.from_tensor_slices(({"x": x}, np.zeros(2, np.float32)))
        return ds.repeat().batch(params["batch_size"], drop_remainder=True)

    def serving_input_fn():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})

    est = tpu_estimator.TPUEstimator(
        model_fn=model_fn, use_tpu=False, train_batch_size=2,
        config=tpu_config.RunConfig(model_dir=str(tmp_path / "m")))
    est.train(input_fn, max_steps=1)
    path = tpu_estimator.export_estimator_savedmodel(est, str(tmp_path / "export"),
                                                     serving_input_fn, as_text=True)
    assert tf.contrib.tpu.export_estimator_savedmodel is tpu_estimator.export_estimator_savedmodel
    path = path.decode() if isinstance(path, bytes) else path
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING], path)
        sig = meta.signature_def["serving_default"]
        out = sess.run(sig.outputs["y"].name, {sig.inputs["x"].name: [[1.0, 1.0], [0.0, 3.0]]})
    np.testing.assert_allclose(out, [1.0, -3.0])
