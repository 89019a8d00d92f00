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


def test_rsqrt_and_sqrt_grads_do_not_overflow_float16_where_tf_does_not():
    # a float16 batch norm: the gradient of rsqrt(variance + eps) with y ~ 50 must not pass
    # through y ** 3 (> 65504); TF computes -0.5 * (dy * y) * (y * y) and (0.5 * dy) / y
    y = tf.constant(np.array([50.44, 2.0, 0.5, 0.01], np.float16))
    dy = tf.constant(np.array([0.0131, 1.0, 0.0, 900.0], np.float16))
    rs = tf.raw_ops.RsqrtGrad(y=y, dy=dy)
    sq = tf.raw_ops.SqrtGrad(y=y, dy=dy)
    x = tf.constant(np.array([3e-4, 0.02], np.float16))
    g = tf.gradients(tf.reduce_sum(tf.rsqrt(x) * tf.constant(np.array([0.0131, 1.0], np.float16))),
                     x)[0]
    with tf.Session() as sess:
        r, s, gv = sess.run([rs, sq, g])
    assert r.dtype == np.float16 and np.isfinite(r).all()
    np.testing.assert_allclose(r, [-840.5, -4.0, 0.0, -4.5e-4], rtol=2e-3)
    assert np.isfinite(s).all()
    np.testing.assert_allclose(s, [0.0001299, 0.25, 0.0, 45000.0], rtol=2e-3)
    assert np.isfinite(gv).all()
    np.testing.assert_allclose(gv, -0.5 * np.array([0.0131, 1.0]) * np.array([3e-4, 0.02]) ** -1.5,
                               rtol=5e-3)


def test_constant_op_tensor_shape_conversion_function():
    # TensorLayer's tl.alphas turns a shape list into a constant through this hook
    from tideflow.python.framework import constant_op

    conv = constant_op._tensor_shape_tensor_conversion_function
    t = conv(tf.TensorShape([4, 3, 2]))
    assert t.dtype == tf.int32 and t.shape.as_list() == [3]
    with pytest.raises(ValueError, match="partially known"):
        conv(tf.TensorShape([None, 3]))
    filled = tf.fill(t, 0.5)
    with tf.Session() as sess:
        assert sess.run(t).tolist() == [4, 3, 2]
        assert sess.run(filled).shape == (4, 3, 2)
