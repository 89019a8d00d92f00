"""tf.train optimizers and tf.contrib.opt: parity points found by running TF 1.15's own
optimizer tests against tideflow (error wording, internal module paths, the contrib optimizers)."""

import pytest

import tideflow as tf


def test_invalid_dtype_message_lists_the_float_types_in_tfs_order():
    with tf.Graph().as_default():
        counter = tf.Variable(3, name="counter")
        opt = tf.train.GradientDescentOptimizer(0.1)
        with pytest.raises(ValueError) as err:
            opt.minimize(counter * 2)
        assert str(err.value) == (
            "Invalid type tf.int32 for mul:0, expected: "
            "[tf.float32, tf.float64, tf.float16, tf.bfloat16].")
