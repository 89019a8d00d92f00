"""Parity with TF 1.15 for programs that differentiate through gradients and loops: MAML,
gradient penalties, Hessians, Jacobians, custom and overridden gradients."""
import pytest

import tideflow as tf


def test_hessians_of_unconnected_x_takes_reshapes_name():
    """TF 1.15's hessians reshapes the None first gradient: the op's name is taken before the
    conversion fails, so the next tf.reshape is Reshape_1 (TF prints 'Reshape_1:0')."""
    with tf.Graph().as_default():
        x = tf.Variable([1.0, 2.0])
        unrelated = tf.constant([3.0])
        with pytest.raises(ValueError, match="None values not supported"):
            tf.hessians(tf.reduce_sum(x ** 3), unrelated)
        assert tf.reshape(x, [-1]).name == "Reshape_1:0"
