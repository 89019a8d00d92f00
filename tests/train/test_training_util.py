"""The global step helpers of tf.train."""

import numpy as np
import pytest

import tideflow as tf


def test_get_or_create_global_step():
    with tf.Graph().as_default() as g:
        assert tf.train.get_global_step() is None
        gs = tf.train.get_or_create_global_step()
        assert gs.op.name == "global_step" and gs.dtype.base_dtype == tf.int64
        assert gs.get_shape().as_list() == []
        assert gs in tf.global_variables() and gs not in tf.trainable_variables()
        assert tf.get_collection(tf.GraphKeys.GLOBAL_STEP) == [gs]
        assert tf.train.get_global_step() is gs and tf.train.get_global_step(g) is gs
        assert tf.train.get_or_create_global_step() is gs
        with pytest.raises(ValueError, match='"global_step" already exists'):
            tf.train.create_global_step()
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(tf.assign_add(gs, 5))
            assert tf.train.global_step(s, gs) == 5
    # a graph other than the default one
    other = tf.Graph()
    gs = tf.train.create_global_step(other)
    assert gs.graph is other and tf.train.get_global_step(other) is gs


def test_global_step_found_by_name():
    with tf.Graph().as_default():
        v = tf.Variable(np.int64(0), name="global_step", trainable=False)
        assert tf.train.get_global_step() is v.value().graph.get_tensor_by_name("global_step:0")


def test_assert_global_step():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="must be a Variable or Tensor"):
            tf.train.assert_global_step(3)
        with pytest.raises(TypeError, match="does not have integer type"):
            tf.train.assert_global_step(tf.Variable(1.0))
        with pytest.raises(TypeError, match="is not scalar"):
            tf.train.assert_global_step(tf.Variable([1, 2]))
        tf.train.assert_global_step(tf.Variable(1))
