"""Estimator behaviours found by running TF 1.15's estimator tests against tideflow: Keras
metric objects in ``EstimatorSpec.eval_metric_ops`` (validated, then run by ``evaluate``),
nested metric values and their graph check, ``numpy_input_fn`` with zero epochs and with an
empty array, and the default serving signature added next to a single named export output."""

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
        assert spec.eval_metric_ops["mean"] is m
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
