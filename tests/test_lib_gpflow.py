"""Differences found by running GPflow 1.5.1 (Gaussian processes on TF 1.x graph mode) against
tideflow, each reduced to the plain TF 1.x calls the library makes."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ----------------------------------------------------------------------------------------
# every tf.train.*Optimizer derives directly from tf.train.Optimizer
# ----------------------------------------------------------------------------------------


def test_every_train_optimizer_has_optimizer_as_its_direct_base():
    names = [n for n in dir(tf.train) if n.endswith("Optimizer") and n != "Optimizer"]
    assert "ProximalAdagradOptimizer" in names
    for n in names:
        assert getattr(tf.train, n).__base__ is tf.train.Optimizer, n


def test_proximal_optimizers_still_step():
    v = tf.Variable([1.0, -2.0], dtype=tf.float64)
    w = tf.Variable([0.5, 3.0], dtype=tf.float64)
    loss = tf.reduce_sum(v * v) + tf.reduce_sum(w * w)
    a = tf.train.ProximalGradientDescentOptimizer(0.1, l1_regularization_strength=0.05)
    b = tf.train.ProximalAdagradOptimizer(0.1, l2_regularization_strength=0.1)
    step = tf.group(a.minimize(loss, var_list=[v]), b.minimize(loss, var_list=[w]))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step)
        got_v, got_w = sess.run([v, w])
    # gradient step then soft threshold: x - lr*2x = 0.8x, then shrink |.| by lr*l1
    np.testing.assert_allclose(got_v, [0.8 - 0.005, -1.6 + 0.005])
    # adagrad: accumulator 0.1 + g^2; step lr*g/sqrt(acc); then divide by 1 + lr_t*l2
    g = 2 * np.array([0.5, 3.0])
    lr_t = 0.1 / np.sqrt(0.1 + g * g)
    np.testing.assert_allclose(got_w, (np.array([0.5, 3.0]) - lr_t * g) / (1 + lr_t * 0.1))
