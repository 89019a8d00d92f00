"""tf.gradients and friends against TF 1.15 (differential cases): what comes back and the ops
made, so later seeded random ops draw TF's numbers. Expected values are TF 1.15's outputs."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _seeds(op_type="RandomStandardNormal"):
    return [op.get_attr("seed2") for op in tf.get_default_graph().get_operations()
            if op.type == op_type]


def test_euclidean_norm_is_not_differentiable_as_tf115():
    a = tf.constant([[3.0, 4.0], [1.0, 2.0]])
    assert tf.gradients(tf.math.reduce_euclidean_norm(a), a) == [None]
    assert tf.gradients(tf.math.reduce_euclidean_norm(a, -1, keepdims=True), a) == [None]
    # a loss term through it adds nothing to the other terms' gradient
    g = tf.gradients(tf.reduce_sum(a * a) + tf.math.reduce_euclidean_norm(a), a)[0]
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(g), [[6.0, 8.0], [2.0, 4.0]])


def test_hessians_op_count_seed_and_values_as_tf115():
    tf.set_random_seed(1)
    a = tf.Variable(tf.random_normal([3]))
    h = tf.hessians(tf.reduce_sum(a * a * a), a)
    r = tf.random_normal([2])
    # TF's hessians opens no name scope; its loop and stack take 91 - 3 ids before r
    assert h[0].name == "Reshape_1:0" and h[0].get_shape().as_list() == [3, 3]
    assert _seeds() == [3, 91]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(r), [-0.51725054, 1.0855219], rtol=1e-6)
        np.testing.assert_allclose(s.run(h[0]), np.diag([-4.0251675, 1.3414286, 4.7836385]),
                                   rtol=1e-5)


def test_hessians_of_unknown_shape_as_tf115():
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [None])
    h = tf.hessians(tf.reduce_sum(x * x * x), x, name="hh")
    r = tf.random_normal([2])
    assert h[0].name == "Reshape_1:0" and h[0].get_shape().as_list() == [None, None]
    assert _seeds() == [217]
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(h[0], {x: [1.0, 2.0]}), [[6.0, 0.0], [0.0, 12.0]])
        np.testing.assert_allclose(s.run(r), [1.9684068, 1.3178934], rtol=1e-6)


def test_hessians_of_two_xs_share_the_first_gradients():
    tf.set_random_seed(1)
    a = tf.Variable(tf.random_normal([2, 2]))
    b = tf.Variable(tf.random_normal([3]))
    h = tf.hessians(tf.reduce_sum(a * a) * tf.reduce_sum(tf.exp(b)), [a, b])
    tf.random_normal([2])
    assert [t.get_shape().as_list() for t in h] == [[2, 2, 2, 2], [3, 3]]
    assert _seeds() == [3, 12, 151]


def test_tensor_array_split_gradient_fills_unread_pieces_with_zeros():
    a = tf.constant(np.arange(10.0, dtype=np.float32).reshape(5, 2))
    ta = tf.TensorArray(tf.float32, 2, infer_shape=False).split(a, [2, 3])
    g = tf.gradients(ta.read(1) * 2.0, a)[0]
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(g), [[0, 0], [0, 0], [2, 2], [2, 2], [2, 2]])
