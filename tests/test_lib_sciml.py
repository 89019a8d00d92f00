"""Differences found by running DeepXDE 0.9.0 (physics-informed networks on TF 1.x graphs) and
NeuPy 0.8.2 (a neural-network library written on TF 1.x graphs) against tideflow, each reduced
to the plain TF 1.x calls the library makes."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ----------------------------------------------------------------------------------------
# get_variable and initializers written by the user
# ----------------------------------------------------------------------------------------


class _ShapeDtypeOnly:
    """An initializer whose __call__ takes (shape, dtype) alone, as DeepXDE's stacked ones."""

    def __init__(self):
        self.calls = []

    def __call__(self, shape, dtype=None):
        self.calls.append((tuple(shape), dtype))
        return tf.fill(shape, tf.constant(0.25, dtype=dtype))


def test_get_variable_calls_an_initializer_without_partition_info_with_shape_and_dtype():
    init = _ShapeDtypeOnly()
    v = tf.get_variable("w", [3, 2, 4], initializer=init)
    assert init.calls == [((3, 2, 4), tf.float32)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(v), np.full((3, 2, 4), 0.25))


def test_dense_layer_takes_a_shape_and_dtype_only_kernel_initializer():
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.layers.dense(x, 3, kernel_initializer=_ShapeDtypeOnly(), use_bias=False)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(y, {x: [[1.0, 2.0]]}), [[0.75, 0.75, 0.75]])


def test_partition_info_still_reaches_an_initializer_that_names_it():
    seen = []

    def init(shape, dtype=None, partition_info=None):
        seen.append(partition_info)
        return tf.zeros(shape, dtype)

    def kwargs_only(shape, dtype=None, **kwargs):
        seen.append(sorted(kwargs))
        return tf.ones(shape, dtype)

    tf.get_variable("a", [2], initializer=init)
    tf.get_variable("b", [2], initializer=kwargs_only)
    # TF hands partition_info only to a callable whose arguments name it
    assert seen == [None, []]
