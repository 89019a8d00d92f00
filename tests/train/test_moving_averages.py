"""ExponentialMovingAverage and assign_moving_average against their formulas."""

import numpy as np
import pytest

import tideflow as tf


def test_exponential_moving_average():
    with tf.Graph().as_default():
        v0 = tf.Variable([10.0, 11.0], name="v0")
        v1 = tf.Variable(30.0, name="v1")
        ema = tf.train.ExponentialMovingAverage(0.25)
        assert ema.name == "ExponentialMovingAverage"
        assert ema.average_name(v0) == "v0/ExponentialMovingAverage"
        update = ema.apply([v0, v1])
        assert update.type == "NoOp" and update.name == "ExponentialMovingAverage"
        avg0, avg1 = ema.average(v0), ema.average(v1)
        assert avg0.op.name == "v0/ExponentialMovingAverage"
        assert ema.average_name(v0) == "v0/ExponentialMovingAverage"
        assert avg0 not in tf.trainable_variables() and avg0 in tf.global_variables()
        # TF collects the averaged variables themselves
        assert tf.get_collection(tf.GraphKeys.MOVING_AVERAGE_VARIABLES) == [v0, v1]
        assert tf.moving_average_variables() == [v0, v1]
        assert avg0.op.colocation_groups() == [b"loc:@v0"]
        assert ema.average(tf.Variable(1.0)) is None
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            # shadows start at the variables' initial values
            assert s.run(avg0).tolist() == [10.0, 11.0] and s.run(avg1) == 30.0
            want0, want1 = np.array([10.0, 11.0]), 30.0
            for new0, new1 in (([0.0, 1.0], 10.0), ([4.0, -4.0], 2.0)):
                s.run([tf.assign(v0, new0), tf.assign(v1, new1)])
                s.run(update)
                want0 = want0 - (1 - 0.25) * (want0 - np.array(new0))
                want1 = want1 - (1 - 0.25) * (want1 - new1)
                np.testing.assert_allclose(s.run(avg0), want0, rtol=1e-6)
                np.testing.assert_allclose(s.run(avg1), want1, rtol=1e-6)
        # a second apply reuses the shadow (TF 1.15; TF 1.4 raised "already computed")
        ema.apply([v0])
        assert ema.average(v0) is avg0
        with pytest.raises(TypeError, match="half, float, or double"):
            ema.apply([tf.Variable(1, name="i")])


def test_num_updates_caps_the_decay():
    with tf.Graph().as_default():
        v = tf.Variable(0.0, name="v")
        step = tf.Variable(0, name="step", trainable=False)
        ema = tf.train.ExponentialMovingAverage(0.999, num_updates=step)
        update = ema.apply([v])
        avg = ema.average(v)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            want = 0.0
            for n, value in ((0, 1.0), (5, 2.0), (100000, 3.0)):
                s.run([tf.assign(v, value), tf.assign(step, n)])
                s.run(update)
                decay = min(0.999, (1.0 + n) / (10.0 + n))
                want = want - (1 - decay) * (want - value)
                np.testing.assert_allclose(s.run(avg), want, rtol=1e-5)


def test_variables_to_restore():
    with tf.Graph().as_default():
        w = tf.Variable(1.0, name="w")
        other = tf.Variable(2.0, name="other", trainable=False)
        ema = tf.train.ExponentialMovingAverage(0.9)
        ema.apply([w])
        got = ema.variables_to_restore()
        assert got == {"w/ExponentialMovingAverage": w, "other": other}


def test_assign_moving_average():
    with tf.Graph().as_default():
        avg = tf.Variable([1.0, 2.0], name="avg", trainable=False)
        value = tf.placeholder(tf.float32, [2])
        plain = tf.train.assign_moving_average(avg, value, 0.9, zero_debias=False)
        assert plain.op.type == "AssignSub" and plain.op.name == "AssignMovingAvg"
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            got = s.run(plain, {value: [3.0, 4.0]})
            np.testing.assert_allclose(got, [1.0 - 0.1 * (1 - 3), 2.0 - 0.1 * (2 - 4)],
                                       rtol=1e-6)


def test_zero_debiased_moving_average():
    with tf.Graph().as_default():
        avg = tf.Variable([0.0, 0.0], name="avg", trainable=False)
        value = tf.placeholder(tf.float32, [2])
        update = tf.train.assign_moving_average(avg, value, 0.8, zero_debias=True)
        names = {v.op.name for v in tf.global_variables()}
        assert {"avg/biased", "avg/local_step"} <= names
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            biased = np.zeros(2)
            for t, x in enumerate(([1.0, 2.0], [3.0, -1.0], [2.0, 2.0]), start=1):
                got = s.run(update, {value: x})
                biased = biased - 0.2 * (biased - np.array(x))
                # the debiased average: the biased one over 1 - decay ** t
                np.testing.assert_allclose(got, biased / (1 - 0.8 ** t), rtol=1e-5)
        # a second debiased average of the same variable gets fresh helper names
        tf.train.assign_moving_average(avg, value, 0.8, zero_debias=True)
        names = {v.op.name for v in tf.global_variables()}
        assert {"avg/biased_1", "avg/local_step_1"} <= names


def test_zero_debias_in_ema():
    with tf.Graph().as_default():
        t = tf.placeholder(tf.float32, [])
        x = tf.identity(t, name="x")
        ema = tf.train.ExponentialMovingAverage(0.5, zero_debias=True)
        update = ema.apply([x])
        avg = ema.average(x)
        assert avg.op.name == "x/ExponentialMovingAverage"
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(update, {t: 4.0})
            # zero start, debiased: the first value itself
            np.testing.assert_allclose(s.run(avg), 4.0, rtol=1e-6)
