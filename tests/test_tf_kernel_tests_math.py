"""Math ops checked against what TF 1.15's own kernel tests expect of them (reductions,
element-wise arithmetic, scans, segment sums, matrix products, linear algebra): values,
dtypes, static shapes, gradients and the errors a program sees, each expected result
computed here with NumPy or by hand."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.python.ops import math_ops


@pytest.fixture
def sess():
    with tf.Graph().as_default(), tf.Session() as s:
        yield s


def _grad_error(x, x_shape, y, y_shape, x_init):
    return tf.test.compute_gradient_error(x, x_shape, y, y_shape, x_init_value=x_init)


# -- reductions ----------------------------------------------------------------------------
def test_reduce_all_any_convert_python_lists_as_bool(sess):
    # an empty list is a bool tensor for All/Any: the empty AND is true, the empty OR false
    assert sess.run(tf.reduce_all([], axis=0)) is np.True_
    assert sess.run(tf.reduce_any([], axis=0)) is np.False_
    assert sess.run(tf.reduce_all([True, False], 0, keepdims=True)).tolist() == [False]


def test_reduction_indices_of_rank_two_are_a_shape_error(sess):
    with pytest.raises(ValueError, match="must be at most rank 1"):
        tf.reduce_sum(tf.placeholder(tf.float32), [[1], [2]])


def test_count_nonzero_counts_non_empty_strings(sess):
    x = np.array([["", "a", "bc"], ["", "", "d"]])
    out = tf.count_nonzero(tf.constant(x), axis=1)
    assert out.dtype == tf.int64
    np.testing.assert_array_equal(sess.run(out), (x != "").sum(axis=1))
    assert sess.run(tf.count_nonzero(tf.constant(["test"]))) == 1


def test_reduced_shape_static_and_fed(sess):
    assert sess.run(math_ops.reduced_shape([5, 3], [0])).tolist() == [1, 3]
    assert sess.run(math_ops.reduced_shape([10, 10, 10], [-1, 0])).tolist() == [1, 10, 1]
    assert sess.run(math_ops.reduced_shape([0, 3], [])).tolist() == [0, 3]
    shape = tf.placeholder(tf.int32, [None])
    axes = tf.placeholder(tf.int32, [None])
    out = math_ops.reduced_shape(shape, axes)
    got = sess.run(out, {shape: [4, 5, 6], axes: [-1, 1]})
    assert got.tolist() == [4, 1, 1]
    assert sess.run(out, {shape: [4, 5], axes: []}).tolist() == [4, 5]


def test_reduce_euclidean_norm_is_one_op_with_a_gradient(sess):
    x = np.array([[3.0, -4.0, 1.0], [0.5, 2.0, -2.0]])
    t = tf.constant(x)
    y = tf.math.reduce_euclidean_norm(t, 1)
    assert y.op.type == "EuclideanNorm"
    assert y.get_shape().as_list() == [2]
    np.testing.assert_allclose(sess.run(y), np.sqrt((x * x).sum(1)))
    kept = tf.math.reduce_euclidean_norm(t, [1], keepdims=True)
    assert kept.get_shape().as_list() == [2, 1]
    assert _grad_error(t, [2, 3], y, [2], x) < 1e-6
    assert _grad_error(t, [2, 3], kept, [2, 1], x) < 1e-6


def test_reduce_euclidean_norm_complex_and_integer(sess):
    z = np.array([1 - 2j, 3j, 2 + 0j], dtype=np.complex64)
    out = sess.run(tf.math.reduce_euclidean_norm(tf.constant(z), 0))
    assert out.dtype == np.complex64
    np.testing.assert_allclose(out, np.sqrt(1 + 4 + 9 + 4), rtol=1e-6)
    # integers take the floor of the root, in their own dtype
    ints = sess.run(tf.math.reduce_euclidean_norm(tf.constant([[3, 4], [2, 2]]), 1))
    assert ints.dtype == np.int32 and ints.tolist() == [5, 2]
    # nothing reduced: TF's reduction kernels hand the input on unchanged
    np.testing.assert_array_equal(
        sess.run(tf.math.reduce_euclidean_norm(tf.constant(z), [])), z)
