"""Op-table rows for the stateless random ops and RandomPoissonV2.

Random ops check themselves: the same seed gives the same values in separate sessions and
graphs, another seed gives other values, the static shape matches, and large samples have the
distribution's moments (or range)."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case


def _values(build, seed):
    g = tf.Graph()
    with g.as_default():
        t = build(tf.constant(seed, dtype=tf.int64))
        with tf.Session() as sess:
            v = sess.run(t)
    return t, v


def _check(build, moments=None, support=None, dtype=None):
    def check():
        t, a = _values(build, [1, 2])
        _, b = _values(build, [1, 2])
        _, c = _values(build, [3, 2])
        np.testing.assert_array_equal(a, b)
        assert not np.array_equal(a, c), "another seed gave the same numbers"
        assert t.get_shape().is_compatible_with(a.shape)
        if t.get_shape().is_fully_defined():
            assert tuple(t.get_shape().as_list()) == a.shape
        if dtype is not None:
            assert a.dtype == np.dtype(dtype) and t.dtype == tf.as_dtype(dtype)
        if support is not None:
            lo, hi = support
            assert a.min() >= lo and a.max() <= hi, (a.min(), a.max())
        if moments is not None:
            mean, var, tol = moments
            x = a.astype(np.float64).reshape(-1)
            se = np.sqrt(var / x.size)
            assert abs(x.mean() - mean) < 5 * se + 1e-12, (x.mean(), mean)
            assert abs(x.var() - var) < tol * var, (x.var(), var)
    return check


_N = [40000]
_TN_VAR = 0.7737413  # variance of a standard normal truncated to [-2, 2]

CASES = [
    Case("StatelessRandomUniform", check=_check(
        lambda s: tf.random.stateless_uniform(_N, s, minval=2.0, maxval=5.0),
        moments=(3.5, 0.75, 0.05), support=(2.0, 5.0), dtype=np.float32)),
    Case("StatelessRandomNormal", check=_check(
        lambda s: tf.random.stateless_normal([200, 200], s, mean=1.0, stddev=2.0,
                                             dtype=tf.float64),
        moments=(1.0, 4.0, 0.05), dtype=np.float64)),
    Case("StatelessTruncatedNormal", check=_check(
        lambda s: tf.random.stateless_truncated_normal(_N, s),
        moments=(0.0, _TN_VAR, 0.05), support=(-2.0, 2.0))),
    Case("StatelessRandomUniformInt", check=_check(
        lambda s: tf.random.stateless_uniform(_N, s, minval=-3, maxval=7, dtype=tf.int32),
        moments=(1.5, (10 ** 2 - 1) / 12, 0.05), support=(-3, 6), dtype=np.int32)),
    Case("StatelessRandomUniformFullInt", check=_check(
        lambda s: tf.random.stateless_uniform([1000], s, minval=None, maxval=None,
                                              dtype=tf.int64), dtype=np.int64)),
    Case("StatelessMultinomial", check=_check(
        lambda s: tf.random.stateless_categorical(tf.log([[0.2, 0.3, 0.5]]), 30000, s),
        moments=(1.3, 0.61, 0.05), support=(0, 2), dtype=np.int64)),
    Case("StatelessRandomPoisson", check=_check(
        lambda s: tf.random.stateless_poisson(_N, s, lam=4.0),
        moments=(4.0, 4.0, 0.05), support=(0, 100), dtype=np.int32)),
    Case("StatelessRandomGammaV2", check=_check(
        lambda s: tf.random.stateless_gamma(_N, s, alpha=3.0, beta=2.0),
        moments=(1.5, 0.75, 0.06), support=(0.0, np.inf))),
    Case("StatelessRandomBinomial", check=_check(
        lambda s: tf.random.stateless_binomial(_N, s, counts=10.0, probs=0.3),
        moments=(3.0, 2.1, 0.05), support=(0, 10), dtype=np.int32)),
    Case("StatelessParameterizedTruncatedNormal", check=_check(
        lambda s: tf.random.stateless_parameterized_truncated_normal(
            _N, s, means=1.0, stddevs=2.0, minvals=-3.0, maxvals=5.0),
        moments=(1.0, 4.0 * _TN_VAR, 0.05), support=(-3.0, 5.0))),
    Case("RandomPoissonV2", check=lambda: _poisson_check()),
]


def _poisson_check():
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        t = tf.random.poisson([0.5, 8.0], [20000], dtype=tf.float64)
        assert t.get_shape().as_list() == [20000, 2]
        with tf.Session() as sess:
            a = sess.run(t)
        with tf.Session() as sess:
            b = sess.run(t)
    np.testing.assert_array_equal(a, b)  # a graph seed repeats the numbers per session
    for col, lam in enumerate((0.5, 8.0)):
        x = a[:, col]
        assert abs(x.mean() - lam) < 5 * np.sqrt(lam / x.size)
        assert abs(x.var() - lam) < 0.06 * lam
    assert (a >= 0).all() and (a == np.round(a)).all()
