"""tf.train and tf.summary behaviour that TF 1.15's own training tests exercise and tideflow
differed on: internal import paths those tests (and user programs) use, optimizers on
variables of unknown static shape, and the other parity points found while running them."""

import numpy as np
import pytest

import tideflow as tf


def test_internal_paths_for_training_programs():
    from tideflow.python.framework import ops
    from tideflow.python.ops import gradients_util
    from tideflow.python.training import training_ops

    assert ops.IndexedSlices is tf.IndexedSlices
    assert gradients_util.AggregationMethod is tf.AggregationMethod
    with tf.Graph().as_default():
        var = tf.Variable([1.0, 2.0])
        out = training_ops.apply_gradient_descent(var, 0.5, tf.constant([2.0, -4.0]))
        with tf.Session() as sess:
            sess.run(var.initializer)
            np.testing.assert_allclose(sess.run(out), [0.0, 4.0])


def test_get_variable_with_argumentless_callable_and_unknown_shape():
    with tf.Graph().as_default():
        v = tf.get_variable("v", initializer=lambda: tf.zeros([3]) + 2.0, validate_shape=False)
        assert v.shape.ndims is None
        with tf.Session() as sess:
            sess.run(v.initializer)
            np.testing.assert_allclose(sess.run(v), [2.0, 2.0, 2.0])
        # a zero-argument initializer with no shape is also accepted when validate_shape holds
        w = tf.get_variable("w", initializer=lambda: tf.ones([2, 2]))
        assert w.shape.as_list() == [2, 2]
        with pytest.raises(ValueError, match="fully defined"):
            tf.get_variable("x", initializer=tf.zeros_initializer())


def test_adagrad_on_variable_of_unknown_shape():
    with tf.Graph().as_default():
        init = tf.placeholder(tf.float32)
        var = tf.get_variable("var", initializer=init, validate_shape=False)
        opt = tf.train.AdagradOptimizer(3.0, initial_accumulator_value=0.1)
        step = opt.apply_gradients([(tf.constant([0.1, 0.2]), var)])
        accum = opt.get_slot(var, "accumulator")
        assert accum.op.name == "var/Adagrad"
        assert accum.shape.ndims is None
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer(), {init: [1.0, 2.0]})
            np.testing.assert_allclose(sess.run(accum), [0.1, 0.1])
            var_np, acc_np = np.array([1.0, 2.0]), np.array([0.1, 0.1])
            g = np.array([0.1, 0.2])
            for _ in range(3):
                sess.run(step)
                acc_np = acc_np + g * g
                var_np = var_np - 3.0 * g / np.sqrt(acc_np)
            np.testing.assert_allclose(sess.run(var), var_np, rtol=1e-6)
            np.testing.assert_allclose(sess.run(accum), acc_np, rtol=1e-6)
