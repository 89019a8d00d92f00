"""Random ops and seeds against TF 1.15: the numbers, shapes, dtypes and error messages of
seeded programs (expected values printed by TF 1.15)."""

import numpy as np
import pytest

import tideflow as tf


def _error(fn):
    with tf.Graph().as_default():
        try:
            fn()
        except (TypeError, ValueError) as e:
            return type(e), str(e)
    return None


def test_dropout_of_integers_names_the_dtype_as_tf():
    # TF 1.15 formats the dtype itself: "... Got a <dtype: 'int32'> tensor instead."
    assert _error(lambda: tf.nn.dropout(tf.ones([2], tf.int32), 0.5)) == (
        ValueError, ("x has to be a floating point tensor since it's going to be scaled. "
        "Got a <dtype: 'int32'> tensor instead."))


@pytest.mark.parametrize("fn, expected", [
    # TF 1.15's shape function: a vector of two
    (lambda: tf.random.stateless_uniform([2], [1, 2, 3]), (
        ValueError, ("Dimension must be 2 but is 3 for 'stateless_random_uniform/"
        "StatelessRandomUniform' (op: 'StatelessRandomUniform') with input shapes: [1], [3]."))),
    (lambda: tf.random.stateless_uniform([2], 3), (
        ValueError, ("Shape must be rank 1 but is rank 0 for 'stateless_random_uniform/"
        "StatelessRandomUniform' (op: 'StatelessRandomUniform') with input shapes: [1], []."))),
    (lambda: tf.random.stateless_normal([2], [[1, 2]]), (
        ValueError, ("Shape must be rank 1 but is rank 2 for 'stateless_random_normal/"
        "StatelessRandomNormal' (op: 'StatelessRandomNormal') with input shapes: [1], [1,2]."))),
    (lambda: tf.random.stateless_multinomial([[1., 2.]], 2, [1, 2, 3]), (
        ValueError, ("Dimension must be 2 but is 3 for 'stateless_multinomial/"
        "StatelessMultinomial' (op: 'StatelessMultinomial') with input shapes: [1,2], [], [3]."))),
    # the op's dtype check, a float tensor or a Python list of floats alike
    (lambda: tf.random.stateless_uniform([2], tf.constant([1., 2.])), (
        TypeError, ("Value passed to parameter 'seed' has DataType float32 not in list of "
        "allowed values: int32, int64"))),
    (lambda: tf.random.stateless_normal([2], [1.5, 2.]), (
        TypeError, ("Value passed to parameter 'seed' has DataType float32 not in list of "
        "allowed values: int32, int64"))),
    (lambda: tf.random.stateless_uniform([2], [1, 2], dtype=tf.string), (
        ValueError, "Invalid dtype tf.string")),
    (lambda: tf.random.stateless_uniform([2], [1, 2], dtype=tf.int64), (
        ValueError, "Must specify maxval for integer dtype tf.int64")),
])
def test_stateless_argument_errors_are_tfs(fn, expected):
    assert _error(fn) == expected


def test_stateless_seed_as_a_float_numpy_array_is_cast():
    # TF 1.15 casts a NumPy float seed to int64 and draws as for [1, 2]
    with tf.Graph().as_default():
        a = tf.random.stateless_uniform([3], np.array([1., 2.]))
        b = tf.random.stateless_uniform([3], [1, 2])
        with tf.Session() as s:
            va, vb = s.run([a, b])
    np.testing.assert_array_equal(va, vb)


def _drain(ds):
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    out = []
    with tf.Session() as s:
        try:
            while True:
                out.append(int(s.run(nxt)))
        except tf.errors.OutOfRangeError:
            return out


def _inner(x):
    return tf.data.Dataset.range(x * 10, x * 10 + 4).shuffle(4, seed=7)


def test_interleave_slot_shares_the_shuffle_seed_generator():
    # TF 1.15 keys a reshuffling shuffle's seed generator by the iterator prefix
    # "Interleave[slot]": the dataset opened third reuses slot 0 and takes its next seeds
    with tf.Graph().as_default():
        assert _drain(tf.data.Dataset.range(5).interleave(_inner, cycle_length=2)) == [
            0, 10, 2, 12, 1, 11, 3, 13, 21, 31, 20, 30, 23, 33, 22, 32, 43, 40, 42, 41]
        assert _drain(tf.data.Dataset.range(3).interleave(_inner, cycle_length=1)) == [
            0, 2, 1, 3, 11, 10, 13, 12, 23, 20, 22, 21]
        # flat_map opens each element under a prefix of its own: the same order each time
        assert _drain(tf.data.Dataset.range(2).flat_map(_inner)) == [0, 2, 1, 3, 10, 12, 11, 13]


def test_nested_interleave_slots_keep_their_generators():
    # TF 1.15: the outer slot 0 opens the second inner interleave under the same prefix
    def inner_interleave(_):
        return tf.data.Dataset.range(3).interleave(
            lambda x: tf.data.Dataset.range(x * 10, x * 10 + 3).shuffle(3, seed=7),
            cycle_length=2)

    with tf.Graph().as_default():
        assert _drain(tf.data.Dataset.range(2).interleave(inner_interleave, cycle_length=1)) == [
            1, 11, 2, 12, 0, 10, 21, 20, 22, 1, 11, 2, 10, 0, 12, 21, 20, 22]


def test_poisson_has_no_gradient():
    # TF 1.15 registers no gradient for RandomPoissonV2: a path through it is a LookupError
    with tf.Graph().as_default():
        rate = tf.constant([0.5, 2.])
        with pytest.raises(LookupError, match="No gradient defined for operation "
                           "'random_poisson/RandomPoissonV2' \\(op type: RandomPoissonV2\\)"):
            tf.gradients(tf.reduce_sum(tf.random_poisson(rate, [2])), rate)


def test_poisson_of_a_negative_rate_draws_zeros():
    # TF 1.15 prints [[0. 6. 0. 0.] [0. 3. 0. 0.] ...]: no error for rates below zero
    with tf.Graph().as_default():
        p = tf.random_poisson([-1., 2., -0.5, -20.], [3], seed=1)
        n = tf.random_poisson([-1., -3.], [4])
        with tf.Session() as s:
            v, vn = s.run([p, n])
    np.testing.assert_array_equal(v[:2], [[0., 6., 0., 0.], [0., 3., 0., 0.]])
    np.testing.assert_array_equal(vn, np.zeros([4, 2]))


@pytest.mark.parametrize("make", [
    lambda s: tf.random_uniform(s), lambda s: tf.random_normal(s, seed=1),
    lambda s: tf.random_uniform(s, 0, 5, tf.int32),
    lambda s: tf.random.stateless_uniform(s, [1, 2])])
def test_negative_shape_value_is_tfs_error(make):
    # TF 1.15's MakeShape: "Dimension -1 must be >= 0" (the static shape is (?, 2))
    with tf.Graph().as_default():
        t = make(tf.constant([-1, 2]))
        assert t.get_shape().as_list() == [None, 2]
        with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError) as e:
            s.run(t)
    assert e.value.message.split("\n")[0] == "Dimension -1 must be >= 0"


def test_dropout_rate_of_rank_one_is_tfs_rank_error():
    # TF 1.15: rate.get_shape().assert_has_rank(0)
    assert _error(lambda: tf.nn.dropout(tf.ones([3, 4]), rate=tf.constant([0.5, 0.5]))) == (
        ValueError, "Shape (2,) must have rank 0")


def test_stateless_uniform_op_names_are_tfs():
    # TF 1.15 scales with the * operator: its op is "stateless_random_uniform/mul"
    with tf.Graph().as_default() as g:
        tf.random.stateless_uniform([2], [1, 2])
        assert [(o.name, o.type) for o in g.get_operations()] == [
            ("stateless_random_uniform/shape", "Const"),
            ("stateless_random_uniform/min", "Const"),
            ("stateless_random_uniform/max", "Const"),
            ("stateless_random_uniform/StatelessRandomUniform/seed", "Const"),
            ("stateless_random_uniform/StatelessRandomUniform", "StatelessRandomUniform"),
            ("stateless_random_uniform/sub", "Sub"),
            ("stateless_random_uniform/mul", "Mul"),
            ("stateless_random_uniform", "Add")]
