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
