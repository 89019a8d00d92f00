"""tf.random: the stateless wrappers' arguments and errors, split/fold_in, get_seed."""

import numpy as np
import pytest

import tideflow as tf


def _run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def test_seed_and_dtype_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="shape \\[2\\]"):
            tf.random.stateless_uniform([2], seed=[1, 2, 3])
        with pytest.raises(TypeError, match="int32 or int64"):
            tf.random.stateless_normal([2], seed=[1.0, 2.0])
        with pytest.raises(ValueError, match="maxval"):
            tf.random.stateless_uniform([2], seed=[1, 2], dtype=tf.int32)
        p = tf.placeholder(tf.int64)
        with pytest.raises(tf.errors.InvalidArgumentError, match="seed must have shape"):
            _run(tf.random.stateless_normal([2], seed=p), {p: [1, 2, 3]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="minval < maxval"):
            _run(tf.random.stateless_uniform([2], [1, 2], minval=5, maxval=5, dtype=tf.int64))
        with pytest.raises(tf.errors.InvalidArgumentError, match="broadcast"):
            _run(tf.random.stateless_poisson([3], [1, 2], lam=[1.0, 2.0]))


def test_parameters_broadcast_and_deterministic_across_graphs():
    def draw():
        with tf.Graph().as_default():
            t = tf.random.stateless_gamma([5000, 2], [4, 5], alpha=[1.0, 9.0])
            return _run(t)

    a, b = draw(), draw()
    np.testing.assert_array_equal(a, b)
    assert abs(a[:, 0].mean() - 1.0) < 0.1 and abs(a[:, 1].mean() - 9.0) < 0.3


def test_full_range_ints_split_fold_in():
    with tf.Graph().as_default():
        u = _run(tf.random.stateless_uniform([4000], [1, 1], minval=None, maxval=None,
                                             dtype=tf.uint32))
        assert u.dtype == np.uint32 and u.max() > 2 ** 31  # the whole range is used
        seeds = tf.random.split([1, 2], num=3)
        s = _run(seeds)
        assert s.shape == (3, 2) and s.dtype == np.int64 and len({tuple(r) for r in s}) == 3
        f = tf.random.fold_in([1, 2], 7)
        v1, v2 = _run([f, tf.random.fold_in([1, 2], 8)])
        assert v1.shape == (2,) and v1[1] == 7 and v2[1] == 8 and v1[0] == v2[0]
        x = _run(tf.random.stateless_normal([3], seed=f))
        assert x.shape == (3,)


def test_get_seed_follows_graph_seed():
    with tf.Graph().as_default():
        assert tf.random.get_seed(None) == (None, None)
        tf.set_random_seed(11)
        g, o = tf.random.get_seed(5)
        assert g == 11 and o == 5
