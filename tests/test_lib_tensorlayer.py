"""Regressions found by running TensorLayer 1.x (its layer tests and tutorials) against tideflow,
each reduced to the plain TF 1.x calls the library makes."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_array_ops_shape_internal_is_importable_and_folds_static_shapes():
    # TensorLayer imports shape_internal from tensorflow.python.ops.array_ops at import time
    from tideflow.python.ops.array_ops import shape_internal

    x = tf.placeholder(tf.float32, [None, 3])
    known = shape_internal(tf.zeros([2, 5]), optimize=True)
    assert known.op.type == "Const"
    unfolded = shape_internal(tf.zeros([2, 5]), optimize=False)
    assert unfolded.op.type == "Shape"
    dyn = shape_internal(x, out_type=tf.int64)
    assert dyn.dtype == tf.int64
    with tf.Session() as sess:
        a, b, c = sess.run([known, unfolded, dyn], {x: np.zeros([4, 3])})
    assert a.tolist() == [2, 5] and b.tolist() == [2, 5] and c.tolist() == [4, 3]


def test_none_for_a_defaulted_op_attr_means_the_default():
    # TF's op wrappers take None for any attr that has a default (TensorLayer passes
    # data_format=None to tf.nn.conv2d, max_pool, ...)
    x = tf.constant(np.arange(32, dtype=np.float32).reshape([1, 4, 4, 2]))
    w = tf.ones([2, 2, 2, 3])
    conv = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME", data_format=None, use_cudnn_on_gpu=None)
    conv_s = tf.nn.conv2d(x, w, [1, 1], "SAME", data_format=None)
    pool = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID", data_format=None)
    avg = tf.nn.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID", data_format=None)
    s2d = tf.nn.space_to_depth(x, 2, data_format=None)
    deconv = tf.nn.conv2d_transpose(x, tf.ones([2, 2, 3, 2]), [1, 4, 4, 3], [1, 1, 1, 1],
                                    "SAME", data_format=None)
    assert conv.shape.as_list() == [1, 4, 4, 3]
    assert pool.shape.as_list() == [1, 2, 2, 2]
    assert s2d.shape.as_list() == [1, 2, 2, 8]
    assert deconv.shape.as_list() == [1, 4, 4, 3]
    with tf.Session() as sess:
        c, cs, p, a, d = sess.run([conv, conv_s, pool, avg,
                                   tf.nn.conv2d_transpose(x, tf.ones([2, 2, 3, 2]),
                                                          [1, 4, 4, 3], [1, 1, 1, 1], "SAME")])
        d2 = sess.run(deconv)
    xv = np.arange(32, dtype=np.float32).reshape([1, 4, 4, 2])
    assert c[0, 0, 0, 0] == xv[0, :2, :2].sum()
    np.testing.assert_array_equal(c, cs)
    np.testing.assert_array_equal(p[0, 0, 0], xv[0, :2, :2].reshape(-1, 2).max(0))
    np.testing.assert_allclose(a[0, 1, 1], xv[0, 2:, 2:].reshape(-1, 2).mean(0))
    np.testing.assert_array_equal(d, d2)
