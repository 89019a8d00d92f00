"""Differences found by running NiftyNet 0.6.0 (its layers, losses and networks built and run
for a step on tiny synthetic volumes) against tideflow, each reduced to the plain TF 1.x calls
the library makes."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ----------------------------------------------------------------------------------------
# dense Tensor * SparseTensor is a SparseTensor (NiftyNet's weighted Dice / GDSC losses)
# ----------------------------------------------------------------------------------------


def test_dense_times_sparse_is_sparse_with_the_sparse_indices():
    sp = tf.SparseTensor([[0, 1], [2, 0]], [3.0, -2.0], [3, 2])
    dense = tf.constant([[0.5, 4.0], [1.0, 1.0], [6.0, 7.0]])
    prod = dense * sp
    assert isinstance(prod, tf.SparseTensor)
    with tf.Session() as sess:
        got = sess.run(prod)
    np.testing.assert_array_equal(got.indices, [[0, 1], [2, 0]])
    np.testing.assert_allclose(got.values, [12.0, -12.0])
    np.testing.assert_array_equal(got.dense_shape, [3, 2])


def test_dense_times_sparse_broadcasts_the_dense_side_and_chains():
    # a per-row weight (tiled to the classes) times a one-hot SparseTensor times the scores,
    # then summed per class with sparse_reduce_sum
    weights = tf.constant([[2.0], [0.5], [1.0], [3.0]])
    onehot = tf.SparseTensor([[0, 1], [1, 0], [2, 0], [3, 1]], [1.0, 1.0, 1.0, 1.0], [4, 2])
    scores = tf.constant([[0.1, 0.9], [0.8, 0.2], [0.6, 0.4], [0.3, 0.7]])
    per_class = tf.sparse_reduce_sum(weights * onehot * scores, reduction_axes=[0])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(per_class), [0.5 * 0.8 + 0.6, 2.0 * 0.9 + 3.0 * 0.7],
                                   rtol=1e-6)


def test_dense_times_sparse_gradient_reaches_the_dense_operand():
    dense = tf.constant([[1.0, 2.0], [3.0, 4.0]], dtype=tf.float64)
    sp = tf.SparseTensor([[0, 0], [1, 1]], tf.constant([5.0, 7.0], tf.float64), [2, 2])
    loss = tf.reduce_sum((dense * sp).values)
    (grad,) = tf.gradients(loss, [dense])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(grad), [[5.0, 0.0], [0.0, 7.0]])


def test_python_number_times_sparse_is_a_type_error_as_in_tf():
    sp = tf.SparseTensor([[0]], [1.0], [2])
    with pytest.raises(TypeError):
        2.0 * sp
    with pytest.raises(TypeError):
        tf.constant([1.0, 2.0]) / sp


# ----------------------------------------------------------------------------------------
# tf.contrib.periodic_resample (NiftyNet's SubPixelLayer shuffles its features with it)
# ----------------------------------------------------------------------------------------


def _shuffle_by_loops(x, factor):
    # the sub-pixel case: [b, h, w, c * f * f] -> [b, h * f, w * f, c] with whole-multiple sizes
    b, h, w, cf = x.shape
    out = np.zeros((b, h * factor, w * factor, cf // factor ** 2), x.dtype)
    c_out = out.shape[-1]
    for i in range(h * factor):
        for j in range(w * factor):
            block = (i % factor) + factor * (j % factor)
            out[:, i, j, :] = x[:, i // factor, j // factor, block * c_out:(block + 1) * c_out]
    return out


def test_periodic_resample_is_a_sub_pixel_shuffle_with_a_static_shape():
    x = np.random.RandomState(5).rand(2, 3, 2, 12).astype(np.float32)
    out = tf.contrib.periodic_resample.periodic_resample(tf.constant(x), [2, 6, 4, None])
    assert out.shape.as_list() == [2, 6, 4, 3]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(out), _shuffle_by_loops(x, 2))


def test_periodic_resample_unknown_input_keeps_the_adjustable_dimension_unknown():
    from tideflow.contrib.periodic_resample import periodic_resample

    x = tf.placeholder(tf.float32, [1, 2, None])
    out = periodic_resample(x, [2, 4, None])
    assert out.shape.as_list() == [2, 4, None]
    with tf.Session() as sess:
        got = sess.run(out, {x: np.arange(16, dtype=np.float32).reshape(1, 2, 8)})
    assert got.shape == (2, 4, 2)


def test_periodic_resample_gradient_matches_finite_differences():
    rs = np.random.RandomState(7)
    x0 = rs.rand(1, 2, 3, 8)
    x = tf.constant(x0)
    out = tf.contrib.periodic_resample.periodic_resample(x, [1, 4, 6, None])
    weights = tf.constant(rs.rand(1, 4, 6, 2))
    loss = tf.reduce_sum(out * weights)
    (grad,) = tf.gradients(loss, [x])
    with tf.Session() as sess:
        g = sess.run(grad)
        eps = 1e-6
        num = np.zeros_like(x0)
        for idx in np.ndindex(x0.shape):
            for sign in (1, -1):
                xp = x0.copy()
                xp[idx] += sign * eps
                num[idx] += sign * sess.run(loss, {x: xp}) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-7)


def test_periodic_resample_refuses_a_shrunken_fixed_dimension():
    op = tf.contrib.periodic_resample.periodic_resample(tf.zeros([1, 2, 2, 4]), [None, 4, 4, 1])
    msg = "Dimension 3 input tensor has size 4, desired shape has size 1"
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match=msg):
        sess.run(op)


# ----------------------------------------------------------------------------------------
# a ref update after a shape-changing Assign in the same step sees the new buffer (NiftyNet's
# CRF-as-RNN resets a validate_shape=False local variable, then scatter_nd_adds into it)
# ----------------------------------------------------------------------------------------


def _resizable_buffer():
    return tf.Variable(0.0, validate_shape=False, trainable=False,
                       collections=[tf.GraphKeys.LOCAL_VARIABLES])


def test_scatter_nd_add_after_a_reshaping_assign_in_the_same_run():
    buf = _resizable_buffer()
    n = tf.placeholder(tf.int32, [])
    reset = tf.assign(buf, tf.zeros([n, 2]), validate_shape=False)
    with tf.control_dependencies([reset]):
        acc = buf
        for k in range(2):
            acc = tf.scatter_nd_add(acc, [[1], [3]], tf.fill([2, 2], float(k + 2)))
    rows = tf.gather(acc, [0, 1, 3])
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        for _ in range(2):  # the reset runs again each step
            np.testing.assert_array_equal(sess.run(rows, {n: 4}), [[0, 0], [5, 5], [5, 5]])
        assert sess.run(buf).shape == (4, 2)


def test_assign_add_after_a_reshaping_assign_in_the_same_run():
    buf = _resizable_buffer()
    reset = tf.assign(buf, tf.fill([2, 3], 1.5), validate_shape=False)
    with tf.control_dependencies([reset]):
        bumped = tf.assign_add(buf, tf.ones([2, 3]))
    with tf.Session() as sess:
        sess.run(buf.initializer)
        np.testing.assert_array_equal(sess.run(bumped), np.full((2, 3), 2.5))
