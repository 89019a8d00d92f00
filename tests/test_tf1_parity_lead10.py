"""TF 1.x behaviours pinned by the tenth session's lead (side-by-side checks with TF)."""
import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_as_dtype_none_is_refused():
    # np.dtype(None) is float64, but TF refuses None
    with pytest.raises(TypeError, match="Cannot convert value None to a TensorFlow DType"):
        tf.as_dtype(None)
    assert tf.as_dtype("float16") is tf.float16
    assert tf.as_dtype(np.float64) is tf.float64


def test_rnn_cell_without_dtype_takes_float_inputs_and_refuses_integer_ones():
    cell = tf.nn.rnn_cell.GRUCell(3)
    out, state = tf.nn.dynamic_rnn(cell, tf.zeros([2, 4, 5], tf.float64), dtype=tf.float64)
    assert out.dtype == tf.float64 and cell.weights[0].dtype.base_dtype == tf.float64
    with pytest.raises(ValueError, match="but saw dtype: <dtype: 'int32'>"):
        tf.nn.rnn_cell.BasicLSTMCell(2)(tf.zeros([3, 4], tf.int32),
                                       tf.nn.rnn_cell.LSTMStateTuple(tf.zeros([3, 2]),
                                                                     tf.zeros([3, 2])))
