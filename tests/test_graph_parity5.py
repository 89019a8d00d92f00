"""Graph-construction parity with TF 1.x: static shapes (partial constant evaluation of shape
tensors), the names of composite ops' outputs, and tf.GradientTape in graph mode.

Expected shapes and names were observed from TensorFlow 2.21 in compat.v1 graph mode running the
same programs (see tests/shape_table5.py); values are checked against NumPy."""

import numpy as np
import pytest

import tideflow as tf
from tests import shape_table5
from tideflow.ops import array_ops

# ------------------------------------------------------------------------------------------
# static shapes
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(shape_table5.EXPECTED))
def test_static_shape_and_dtype_match_tf(name):
    with tf.Graph().as_default():
        cases = dict(shape_table5.build())
        with tf.variable_scope(name):
            got = shape_table5.fmt(cases[name]())
    assert got == shape_table5.EXPECTED[name]


def test_constant_value_as_shape_matches_tf():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [None, 3])
        b = tf.placeholder(tf.float32, [2, None, 5])
        m = tf.placeholder(tf.float32, [4, 5])
        n = tf.placeholder(tf.int32, [])
        cases = [
            (tf.shape(a), [None, 3]),
            (tf.concat([tf.shape(a)[:1], [7]], 0), [None, 7]),
            (tf.stack([n, 3]), [None, 3]),
            (tf.placeholder(tf.int32, [3]), [None, None, None]),
            (tf.placeholder(tf.int32, [None]), None),
            (tf.shape(b)[1:], [None, 5]),
            (tf.cast(tf.shape(a), tf.int64), [None, 3]),
            (tf.fill([2], -1), [None, None]),
            (tf.constant([-1, 4]), [None, 4]),
            (tf.shape(b)[::-1], [5, None, 2]),
            (tf.concat([[-1], tf.shape(m)], 0), [None, 4, 5]),
            (tf.shape(a) * 2, [None, None]),
            (tf.gather(tf.shape(b), [2, 0]), [None, None]),
        ]
        for t, want in cases:
            got = array_ops.constant_value_as_shape(t)
            assert (None if got.ndims is None else got.as_list()) == want, t.name
        # a scalar -1 is "unknown rank"; any other scalar is TF's ValueError
        assert array_ops.constant_value_as_shape(tf.constant(-1)).ndims is None
        with pytest.raises(ValueError, match="scalar"):
            array_ops.constant_value_as_shape(tf.constant(3))


def test_random_shape_from_partial_shape_tensor_runs():
    # TF's (?, 7), and the kernel's result agrees with the static shape
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        r = tf.random_normal(tf.concat([tf.shape(x)[:1], [7]], 0))
        assert r.shape.as_list() == [None, 7]
        with tf.Session() as sess:
            assert sess.run(r, {x: np.zeros((5, 3))}).shape == (5, 7)


def test_conv2d_backprop_input_batch_comes_from_out_backprop():
    # TF: the batch of input_sizes is checked against out_backprop's, which is the result's
    with tf.Graph().as_default():
        flt = tf.ones([3, 3, 3, 6])
        g = tf.placeholder(tf.float32, [None, 4, 4, 6])
        y = tf.nn.conv2d_transpose(g, flt, [2, 8, 8, 3], [1, 2, 2, 1], "SAME")
        assert y.shape.as_list() == [None, 8, 8, 3]
        with tf.Session() as sess:
            assert sess.run(y, {g: np.ones((2, 4, 4, 6))}).shape == (2, 8, 8, 3)
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 7"):
            tf.nn.conv2d_transpose(tf.ones([7, 4, 4, 6]), flt, [2, 8, 8, 3], [1, 2, 2, 1], "SAME")


def test_dynamic_rnn_input_gradient_keeps_its_shape():
    with tf.Graph().as_default():
        seq = tf.placeholder(tf.float32, [None, 7, 4])
        out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicRNNCell(3), seq, dtype=tf.float32)
        (g,) = tf.gradients(tf.reduce_sum(out), [seq])
        assert g.shape.as_list() == [None, 7, 4]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(g, {seq: np.ones((2, 7, 4))}).shape == (2, 7, 4)
