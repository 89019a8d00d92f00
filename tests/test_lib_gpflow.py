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
    # float64 hyperparameters: TF 1.15's proximal updates refuse float32 ones for these
    f64 = lambda x: tf.constant(x, tf.float64)
    a = tf.train.ProximalGradientDescentOptimizer(f64(0.1), l1_regularization_strength=f64(0.05),
                                                  l2_regularization_strength=f64(0.0))
    b = tf.train.ProximalAdagradOptimizer(f64(0.1), l1_regularization_strength=f64(0.0),
                                          l2_regularization_strength=f64(0.1))
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


# ----------------------------------------------------------------------------------------
# Variable.set_shape refines a variable made with validate_shape=False
# ----------------------------------------------------------------------------------------


def test_variable_set_shape_refines_unvalidated_shape():
    init = tf.placeholder(tf.float64, shape=None)
    v = tf.get_variable("free", initializer=init, validate_shape=False)
    assert v.shape.ndims is None
    v.set_shape([3])
    assert v.shape.as_list() == [3]
    assert v.value().shape.as_list() == [3]
    assert v.read_value().shape.as_list() == [3]
    assert tf.convert_to_tensor(v).shape.as_list() == [3]
    with tf.Session() as sess:
        sess.run(v.initializer, {init: [1.0, 2.0, 4.0]})
        np.testing.assert_allclose(sess.run(v.read_value() * 2.0), [2.0, 4.0, 8.0])
    with pytest.raises(ValueError):
        v.set_shape([2])


# ----------------------------------------------------------------------------------------
# tf.test.TestCase.test_session(graph=g) opens a fresh session on g each time
# ----------------------------------------------------------------------------------------


class _Case(tf.test.TestCase):
    __test__ = False  # run by the function below

    def runTest(self):
        g = tf.Graph()
        with g.as_default():
            v = tf.Variable(2.0)
            init = tf.is_variable_initialized(v)
        with self.test_session(graph=g) as s1:
            assert tf.get_default_graph() is g
            assert tf.get_default_session() is s1
            s1.run(v.initializer)
            with self.test_session(graph=g) as s2:
                assert s2 is not s1
                assert not s2.run(init)
            assert s1.run(init)
        # without a graph it is the one cached session of the test
        with self.test_session() as c1, self.test_session() as c2:
            assert c1 is c2


def test_test_session_with_graph_is_a_fresh_session():
    case = _Case()
    try:
        case.runTest()
    finally:
        case.tearDown()


# ----------------------------------------------------------------------------------------
# a FULL_TRACE step may run a variable's initializer (the variable's output has no value yet)
# ----------------------------------------------------------------------------------------


def test_full_trace_of_a_step_that_initializes_variables():
    v = tf.Variable(np.arange(6.0).reshape(2, 3), name="w")
    opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    meta = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer(), options=opts, run_metadata=meta)
        nodes = [n for d in meta.step_stats.dev_stats for n in d.node_stats]
        assert any(n.node_name == "w/Assign" for n in nodes)
        meta2 = tf.RunMetadata()
        np.testing.assert_allclose(sess.run(v * 2.0, options=opts, run_metadata=meta2),
                                   2.0 * np.arange(6.0).reshape(2, 3))
        assert meta2.step_stats.dev_stats


# ----------------------------------------------------------------------------------------
# feeding a variable replaces what its readers see in that step
# ----------------------------------------------------------------------------------------


def test_feeding_an_unvalidated_variable_feeds_its_readers():
    init = tf.placeholder(tf.float64, shape=None)
    x = tf.get_variable("data", initializer=init, validate_shape=False)
    total = tf.reduce_sum(x)
    total_t = tf.reduce_sum(tf.convert_to_tensor(x)) * 2.0
    with tf.Session() as sess:
        sess.run(x.initializer, {init: np.arange(5.0)})
        assert sess.run(total) == 10.0
        assert sess.run(total, {x: [1.0, 2.0]}) == 3.0
        assert sess.run(total_t, {x: [4.0]}) == 8.0
        np.testing.assert_allclose(sess.run(x, {x: [7.0, 8.0]}), [7.0, 8.0])
        assert sess.run(total) == 10.0  # the variable itself is untouched


def test_feeding_a_fixed_variable_feeds_its_readers():
    w = tf.Variable([1.0, 2.0], dtype=tf.float64)
    y = tf.reduce_sum(w * 3.0)
    with tf.Session() as sess:
        sess.run(w.initializer)
        assert sess.run(y, {w: [5.0, 5.0]}) == 30.0
        assert sess.run(y) == 9.0
