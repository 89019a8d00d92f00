"""tf.random: the stateless wrappers' arguments and errors, split/fold_in, get_seed."""

import numpy as np
import pytest

import tideflow as tf


def _run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def test_seed_and_dtype_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimension must be 2 but is 3"):
            tf.random.stateless_uniform([2], seed=[1, 2, 3])
        with pytest.raises(TypeError, match="allowed values: int32, int64"):
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


def test_generator_repeats_from_a_seed_and_advances():
    def draws(seed):
        with tf.Graph().as_default():
            g = tf.random.Generator.from_seed(seed)
            x = g.normal([3])
            u = g.uniform([2], maxval=10, dtype=tf.int64)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                return [sess.run(x), sess.run(x), sess.run(u), sess.run(g.state)]

    a, b = draws(7), draws(7)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], a[1])  # each run of the op is a new draw
    # as in TF, the seed starts the counter (the key is 0); three draws advanced it
    assert a[3].tolist() == [7 + 3 * 2 ** 32, 0, 0]
    c = draws(8)
    assert not np.array_equal(a[0], c[0])
    assert ((0 <= a[2]) & (a[2] < 10)).all()


def test_generator_split_make_seeds_global_and_rng_state():
    with tf.Graph().as_default():
        g = tf.random.Generator.from_seed(1, alg=tf.random.Algorithm.PHILOX)
        assert g.algorithm == 1
        seeds = g.make_seeds(4)
        kids = g.split(2)
        xs = [k.normal([2]) for k in kids]
        glob = tf.random.get_global_generator()
        assert tf.random.get_global_generator() is glob
        tf.random.set_global_generator(g)
        assert tf.random.get_global_generator() is g
        with pytest.raises(TypeError):
            tf.random.set_global_generator(3)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            s = sess.run(seeds)
            assert s.shape == (2, 4) and s.dtype == np.int64
            a, b = sess.run(xs)
            assert not np.array_equal(a, b)
        st = tf.random.create_rng_state(2 ** 64 + 5, "philox")
        assert st.tolist() == [5, 1, 0]
        assert tf.random.create_rng_state(3, "threefry").tolist() == [3, 0]
        # TF 1.15 (measured): a NumPy vector; a negative seed's upper words all ones
        st = tf.random.experimental.create_rng_state(-7, 1)
        assert type(st) is np.ndarray and st.dtype == np.int64 and st.tolist() == [-7, -1, -1]
        sh = _run(tf.random.experimental.stateless_shuffle(tf.range(10), seed=[1, 2]))
        assert sorted(sh.tolist()) == list(range(10)) and sh.tolist() != list(range(10))
        with pytest.raises(ValueError, match="algorithm"):
            tf.random.Generator.from_seed(1, alg="bogus")


def test_stateless_values_are_tensorflows():
    # TF 2.21's tf.random.stateless_* for seed [1, 2] (known answers)
    with tf.Graph().as_default():
        got = _run([
            tf.random.stateless_uniform([5], [1, 2]),
            tf.random.stateless_uniform([3], [1, 2], dtype=tf.float64),
            tf.random.stateless_normal([5], [1, 2]),
            tf.random.stateless_truncated_normal([5], [1, 2]),
            tf.random.stateless_uniform([5], [1, 2], minval=-3, maxval=10, dtype=tf.int32),
            tf.random.stateless_uniform([3], [1, 2], minval=-3, maxval=10 ** 12,
                                        dtype=tf.int64),
            tf.random.stateless_uniform([3], [1, 2], minval=None, maxval=None, dtype=tf.int64),
            tf.random.stateless_uniform([3], [1, 2], minval=None, maxval=None,
                                        dtype=tf.uint32)])
    np.testing.assert_array_equal(got[0], np.array(
        [0.8440604, 0.19204533, 0.9962232, 0.1603874, 0.27199018], np.float32))
    np.testing.assert_allclose(got[1], [0.75248375, 0.96978577, 0.17592234], rtol=1e-7)
    np.testing.assert_allclose(got[2], [0.5441101, 0.20738031, 0.07356432, 0.04643455,
                                        -1.3015898], rtol=1e-6)
    np.testing.assert_allclose(got[3], [0.5441101, 0.20738031, 0.07356432, 0.04643455,
                                        0.16820592], rtol=1e-6)
    assert got[4].tolist() == [7, -3, -2, -2, 6]
    assert got[5].tolist() == [146258219801, 637753188140, 318111882239]
    assert got[6].tolist() == [7464880146280614444, 1591045637757961278, -1057468755545501549]
    assert got[7].tolist() == [1105988140, 1738052849, 3959391294]
