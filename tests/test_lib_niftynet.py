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
