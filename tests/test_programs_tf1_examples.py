"""Regressions found by running public TF 1.x example programs against tideflow."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_reduce_sum_gradient_of_unknown_rank_input_fed_a_scalar():
    # linear regression fitted one scalar sample at a time through a shape-less placeholder
    x = tf.placeholder("float")
    w = tf.Variable(2.0)
    cost = tf.reduce_sum(tf.pow(x * w, 2)) / 4
    step = tf.train.GradientDescentOptimizer(0.1).minimize(cost)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step, {x: 1.0})
        assert sess.run(w) == pytest.approx(2.0 - 0.1 * 1.0)


def test_integer_division_by_zero_of_an_empty_tensor_divides_nothing():
    x = tf.placeholder(tf.int32)
    ops = [tf.floormod(x, 0), tf.floordiv(x, 0), tf.truncatemod(x, 0), tf.truncatediv(x, 0)]
    with tf.Session() as sess:
        for out in sess.run(ops, {x: np.zeros([0], np.int32)}):
            assert out.shape == (0,)
        with pytest.raises(tf.errors.InvalidArgumentError, match="division by zero"):
            sess.run(ops[0], {x: [1]})
