"""Random ops checked against what TF 1.15's random kernel tests expect (our own cases)."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    # the huge-shape variable below must not reach another test's global initializer
    with tf.Graph().as_default():
        yield


def test_zeros_of_a_huge_tensor_shape_converts_it_as_int64():
    # a dimension past int32 makes the shape int64 (TF's TensorShape rule), not an error
    v = tf.Variable(tf.zeros([3 * 2**31, 2], dtype=tf.float32))
    assert v.shape.as_list() == [3 * 2**31, 2]
    n = tf.truncated_normal(v.shape)
    assert n.shape.as_list() == [3 * 2**31, 2]
    z = tf.ones(tf.TensorShape([2**32, 1]))
    assert z.op.inputs[0].dtype == tf.int64
    # small shapes stay int32 constants
    assert tf.zeros([2000, 3]).op.inputs[0].dtype == tf.int32


def test_add_leading_unit_dimensions():
    from tideflow.python.ops import random_grad

    f = random_grad.add_leading_unit_dimensions
    assert f(tf.ones([4, 1]), 2).shape.as_list() == [1, 1, 4, 1]
    assert f(tf.ones([4, 1]), 0).shape.as_list() == [4, 1]
    assert f(2.0, 3).shape.as_list() == [1, 1, 1]
    x = tf.placeholder(tf.float32)
    k = tf.placeholder(tf.int32)
    with tf.Session() as sess:
        out = sess.run(f(x, k), {x: np.zeros([3, 2]), k: 3})
    assert out.shape == (1, 1, 1, 3, 2)


@pytest.mark.parametrize("seed", [7, None])
def test_random_gamma_of_zero_and_negative_shapes(seed):
    # as TF's kernel: a zero shape draws 0, a negative one NaN, both clipped to the dtype's
    # tiny by the wrapper's maximum(tiny, draw) (std::max keeps tiny against a NaN: TF 1.15
    # prints tiny for both), for seeded (TF's own numbers) and unseeded draws alike
    with tf.Session() as sess:
        for dtype in (tf.float32, tf.float64):
            out = sess.run(tf.random_gamma([4], [0.0, -2.0, 3.0], dtype=dtype, seed=seed))
            tiny = np.finfo(dtype.as_numpy_dtype).tiny
            assert out.shape == (4, 3)
            np.testing.assert_array_equal(out[:, 0], tiny)
            np.testing.assert_array_equal(out[:, 1], tiny)
            assert (out[:, 2] > tiny).all()
