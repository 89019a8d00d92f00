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


# ----------------------------------------------------------------------------------------
# second derivatives through tf.while_loop (a physics-informed loss differentiates twice)
# ----------------------------------------------------------------------------------------


def _loop(z, body, n=2):
    return tf.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, body(acc)), [0, z])[1]


def test_second_gradient_through_a_loop_invariant_raises_as_tf1_instead_of_a_wrong_value():
    z = tf.placeholder(tf.float64, [2])
    r = _loop(z, lambda a: a * z)  # z ** 3 after two steps: d2/dz2 is 6 z, not what z alone gives
    g = tf.gradients(tf.reduce_sum(r), z)[0]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(g, {z: [0.5, 1.5]}), 3 * np.array([0.5, 1.5]) ** 2)
    with pytest.raises(TypeError, match="Second-order gradient for while loops not supported"):
        tf.gradients(tf.reduce_sum(g), z)


def test_second_gradient_reaching_a_loop_only_through_its_saved_values_is_none():
    # the forward values the gradient loop pops are not differentiable, as TF 1.x's stacks:
    # the second gradient is None, as in TF 1.15, rather than an error
    x = tf.constant(0.7, tf.float64)
    r = _loop(x, tf.sin, n=3)
    g = tf.gradients(r, x)[0]
    assert tf.gradients(g, x) == [None]
    with tf.Session() as sess:
        v = 0.7
        d = 1.0
        for _ in range(3):
            d *= np.cos(v)
            v = np.sin(v)
        np.testing.assert_allclose(sess.run(g), d)


def test_first_gradients_and_second_gradients_outside_loops_are_unchanged():
    z = tf.placeholder(tf.float64, [3])
    r = _loop(z, lambda a: tf.tanh(a) + a)
    g = tf.gradients(tf.reduce_sum(r), z)[0]
    h = tf.hessians(tf.reduce_sum(tf.tanh(z) ** 2), z)[0]
    with tf.Session() as sess:
        zz = np.array([0.1, -0.4, 0.8])
        a = zz.copy()
        d = np.ones(3)
        for _ in range(2):
            d *= 1 - np.tanh(a) ** 2 + 1
            a = np.tanh(a) + a
        np.testing.assert_allclose(sess.run(g, {z: zz}), d)
        t = np.tanh(zz)
        s2 = 1 - t ** 2
        np.testing.assert_allclose(np.diag(sess.run(h, {z: zz})), 2 * s2 ** 2 - 4 * t ** 2 * s2)
