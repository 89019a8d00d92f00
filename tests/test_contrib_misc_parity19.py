"""Parity of tf.contrib's framework, training, metrics, lookup, image, opt, layers and
distributions helpers with TF 1.15 (expected values from running TF 1.15)."""

import numpy as np
import pytest

import tideflow as tf


def test_create_train_op_empty_or_untrainable_variables_assert():
    # TF 1.15 checks variables_to_train with bare asserts: AssertionError, in contrib.training
    # and in slim (which calls it)
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        frozen = tf.Variable(2.0, trainable=False)
        loss = tf.square(v) + frozen
        opt = tf.train.GradientDescentOptimizer(0.1)
        with pytest.raises(AssertionError):
            tf.contrib.training.create_train_op(loss, opt, variables_to_train=[])
        with pytest.raises(AssertionError):
            tf.contrib.training.create_train_op(loss, opt, variables_to_train=[frozen])
        with pytest.raises(AssertionError):
            tf.contrib.slim.learning.create_train_op(loss, opt, variables_to_train=[])
        train_op = tf.contrib.slim.learning.create_train_op(loss, opt, clip_gradient_norm=0.1)
        assert train_op.name == "train_op/control_dependency:0"
        # the optimizer's apply op first, as TF 1.15's apply_gradients adds it too
        assert [t.name for t in tf.get_collection(tf.GraphKeys.TRAIN_OP)] == [
            "GradientDescent", "train_op/control_dependency:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train_op)
            # the gradient 2.0 clipped to 0.1, times the learning rate
            np.testing.assert_allclose(sess.run(v), 0.99, rtol=1e-6)
