"""Learning-rate schedules against their formulas at several steps."""

import math

import numpy as np
import pytest

import tideflow as tf

STEPS = [0, 1, 5, 10, 15, 25, 40]


def _values(make, steps=STEPS, step_dtype=tf.int64):
    with tf.Graph().as_default():
        step = tf.placeholder(step_dtype, [])
        lr = make(step)
        with tf.Session() as s:
            return [s.run(lr, {step: k}) for k in steps], lr


def _close(got, want, rtol=1e-6):
    np.testing.assert_allclose(np.array(got, np.float64), np.array(want, np.float64), rtol=rtol,
                               atol=1e-7)


@pytest.mark.parametrize("staircase", [False, True])
def test_exponential_decay(staircase):
    got, lr = _values(lambda s: tf.train.exponential_decay(0.1, s, 10, 0.5, staircase=staircase))
    assert lr.dtype == tf.float32 and lr.op.name == "ExponentialDecay"
    _close(got, [0.1 * 0.5 ** (math.floor(k / 10) if staircase else k / 10) for k in STEPS])


def test_natural_exp_and_inverse_time_decay():
    for staircase in (False, True):
        def p(k, staircase=staircase):
            return math.floor(k / 10) if staircase else k / 10

        got, _ = _values(lambda s, st=staircase: tf.train.natural_exp_decay(
            0.1, s, 10, 0.5, staircase=st))
        _close(got, [0.1 * math.exp(-0.5 * p(k)) for k in STEPS])
        got, _ = _values(lambda s, st=staircase: tf.train.inverse_time_decay(
            0.1, s, 10, 0.5, staircase=st))
        _close(got, [0.1 / (1 + 0.5 * p(k)) for k in STEPS])


def test_piecewise_constant():
    got, lr = _values(lambda s: tf.train.piecewise_constant(s, [5, 15], [1.0, 0.5, 0.1]))
    assert lr.dtype == tf.float32
    _close(got, [1.0 if k <= 5 else 0.5 if k <= 15 else 0.1 for k in STEPS])
    # int32 step with Python int boundaries, float step with float boundaries
    got, _ = _values(lambda s: tf.train.piecewise_constant(s, [10], [3, 4]), step_dtype=tf.int32)
    assert [int(v) for v in got] == [3 if k <= 10 else 4 for k in STEPS]
    got, _ = _values(lambda s: tf.train.piecewise_constant(s, [2.5], [1.0, 2.0]),
                     step_dtype=tf.float32)
    _close(got, [1.0 if k <= 2.5 else 2.0 for k in STEPS])
    with tf.Graph().as_default():
        x = tf.placeholder(tf.int64, [])
        with pytest.raises(ValueError, match="1 less than the length of values"):
            tf.train.piecewise_constant(x, [1, 2], [1.0, 2.0])
        with pytest.raises(ValueError, match="must have the same dtype as x"):
            tf.train.piecewise_constant(x, [1.5], [1.0, 2.0])
        with pytest.raises(ValueError, match="all with the same dtype"):
            tf.train.piecewise_constant(x, [1], [1.0, 2])


@pytest.mark.parametrize("cycle", [False, True])
@pytest.mark.parametrize("power", [1.0, 0.5])
def test_polynomial_decay(cycle, power):
    got, _ = _values(lambda s: tf.train.polynomial_decay(0.1, s, 10, end_learning_rate=0.01,
                                                         power=power, cycle=cycle))

    def want(k):
        steps = 10
        if cycle:
            steps = 10 * (1.0 if k == 0 else math.ceil(k / 10))
        else:
            k = min(k, 10)
        return (0.1 - 0.01) * (1 - k / steps) ** power + 0.01

    _close(got, [want(k) for k in STEPS], rtol=1e-5)


def test_cosine_decays():
    got, _ = _values(lambda s: tf.train.cosine_decay(0.1, s, 20, alpha=0.1))
    _close(got, [0.1 * (0.9 * 0.5 * (1 + math.cos(math.pi * min(k, 20) / 20)) + 0.1)
                 for k in STEPS], rtol=1e-5)

    got, _ = _values(lambda s: tf.train.linear_cosine_decay(0.1, s, 20, num_periods=0.5,
                                                            alpha=0.0, beta=0.001))

    def lin_cos(k):
        k = min(k, 20)
        linear = (20 - k) / 20
        cosine = 0.5 * (1 + math.cos(math.pi * 2 * 0.5 * k / 20))
        return 0.1 * (linear * cosine + 0.001)

    _close(got, [lin_cos(k) for k in STEPS], rtol=1e-5)


@pytest.mark.parametrize("t_mul", [1.0, 2.0])
def test_cosine_decay_restarts(t_mul):
    got, _ = _values(lambda s: tf.train.cosine_decay_restarts(0.1, s, 5, t_mul=t_mul,
                                                              m_mul=0.5, alpha=0.1))

    def want(k):
        # walk the periods: each one t_mul times longer, m_mul times lower
        start, length, i = 0.0, 5.0, 0
        while k >= start + length:
            start += length
            length *= t_mul
            i += 1
        frac = (k - start) / length
        cosine = 0.5 * 0.5 ** i * (1 + math.cos(math.pi * frac))
        return 0.1 * (0.9 * cosine + 0.1)

    _close(got, [want(k) for k in STEPS], rtol=1e-4)


def test_schedules_need_a_global_step():
    # TF 1.15 converts the None step as any tensor: "None values not supported."
    for fn in (tf.train.exponential_decay, tf.train.natural_exp_decay,
               tf.train.inverse_time_decay):
        with pytest.raises(ValueError, match="^None values not supported"):
            fn(0.1, None, 10, 0.5)
    with pytest.raises(ValueError, match="^None values not supported"):
        tf.train.polynomial_decay(0.1, None, 10)


def test_schedule_follows_a_global_step_variable():
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        lr = tf.train.exponential_decay(1.0, gs, 2, 0.5, staircase=True, name="lr")
        assert lr.op.name == "lr"
        inc = tf.assign_add(gs, 1)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            got = []
            for _ in range(5):
                got.append(s.run(lr))
                s.run(inc)
        _close(got, [1.0, 1.0, 0.5, 0.5, 0.25])
