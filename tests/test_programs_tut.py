"""Regressions found by running TF 1.x tutorial programs (CS 20SI-style, MNIST MLP/CNN/RNN,
GAN, word2vec) against tideflow."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_minimize_takes_var_list_as_dict_values_and_dict():
    # GAN tutorials keep the weights in a dict and pass var_list=weights.values()
    gen = {"w": tf.Variable(2.0), "b": tf.Variable(-1.0)}
    disc = {"w": tf.Variable(3.0)}
    loss = (gen["w"] * disc["w"] + gen["b"]) ** 2  # at start: (6 - 1)^2 = 25
    g_step = tf.train.GradientDescentOptimizer(0.01).minimize(loss, var_list=gen.values())
    d_step = tf.train.GradientDescentOptimizer(0.01).minimize(loss, var_list=disc)
    grads = tf.train.GradientDescentOptimizer(0.1).compute_gradients(loss, var_list=gen.keys()
                                                                     and gen.values())
    assert [v for _, v in grads] == [gen["w"], gen["b"]]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(g_step)
        # d loss/dw = 2*5*3 = 30, d loss/db = 2*5 = 10; the discriminator's weight is untouched
        np.testing.assert_allclose(sess.run([gen["w"], gen["b"], disc["w"]]),
                                   [2.0 - 0.3, -1.0 - 0.1, 3.0], rtol=1e-6)
        sess.run(d_step)
        r = 1.7 * 3.0 - 1.1
        np.testing.assert_allclose(sess.run(disc["w"]), 3.0 - 0.01 * 2 * r * 1.7, rtol=1e-6)
