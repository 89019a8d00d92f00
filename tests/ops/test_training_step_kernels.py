"""Kernels and gradients of the MLP training step on their less common inputs: int64 labels out
of range, reductions over dimensions unknown until run time, ExpandDims' fast path."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.ops import array_ops, nn_ops


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("bad", [-1, 5, -(2**31)])
def test_sparse_xent_kernel_rejects_out_of_range_labels(dtype, bad):
    logits = np.zeros((3, 5), np.float32)
    labels = np.array([0, bad, 4], dtype)
    with pytest.raises(tf.errors.InvalidArgumentError, match=f"label value of {bad} "):
        nn_ops._sparse_softmax_xent(logits, labels)


def test_sparse_xent_kernel_matches_numpy():
    rng = np.random.RandomState(1)
    logits = rng.standard_normal((6, 4)).astype(np.float32) * 10
    labels = np.array([0, 3, 1, 2, 3, 0], np.int64)
    loss, backprop = nn_ops._sparse_softmax_xent(logits, labels)
    z = logits.astype(np.float64)
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    np.testing.assert_allclose(loss, -np.log(p[np.arange(6), labels]), rtol=1e-5, atol=1e-6)
    p[np.arange(6), labels] -= 1
    np.testing.assert_allclose(backprop, p, rtol=1e-5, atol=1e-7)
    assert loss.dtype == backprop.dtype == np.float32
    empty_loss, empty_bp = nn_ops._sparse_softmax_xent(np.zeros((0, 4), np.float32),
                                                       np.zeros(0, np.int64))
    assert empty_loss.shape == (0,) and empty_bp.shape == (0, 4)


@pytest.mark.parametrize("axis", [None, 0, 1, [0, 1], -1])
def test_mean_and_sum_gradients_with_an_unknown_batch(axis):
    x = tf.placeholder(tf.float32, [None, 3])
    xv = np.arange(12, dtype=np.float32).reshape(4, 3)
    gm, gs = tf.gradients([tf.reduce_mean(x, axis)], [x])[0], tf.gradients(
        [tf.reduce_sum(x, axis)], [x])[0]
    assert gm.get_shape().as_list() == [None, 3]
    with tf.Session() as sess:
        m, s = sess.run([gm, gs], {x: xv})
    n = xv.size // np.sum(xv, axis=None if axis is None else tuple(np.atleast_1d(axis))).size
    np.testing.assert_allclose(m, np.full_like(xv, 1.0 / n), rtol=1e-6)
    np.testing.assert_array_equal(s, np.ones_like(xv))


def test_mean_of_a_vector_needs_no_shape_arithmetic_beyond_its_size():
    x = tf.placeholder(tf.float32, [None])
    (g,) = tf.gradients(tf.reduce_mean(x), [x])
    types = {op.type for op in g.graph.get_operations() if op.name.startswith("gradients/")}
    # TF 1.15's ops: Reshape/Tile, then the shapes' products divided (Maximum, FloorDiv)
    assert "Select" not in types and {"Tile", "Prod", "FloorDiv"} <= types
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(g, {x: np.ones(8, np.float32)}), np.full(8, 0.125))


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_expand_dims_kernel_scalar_axis(dim):
    x = np.arange(6).reshape(2, 3)
    got = array_ops._expand_dims_kernel(x, np.array(dim, np.int32))
    assert got.shape == np.expand_dims(x, dim).shape
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tried to expand dim index 3"):
        array_ops._expand_dims_kernel(x, np.array(3, np.int64))


@pytest.mark.parametrize("x, shape", [
    (np.array([1.0], np.float32), [128]),
    (np.arange(3.0), [2, 3]),
    (np.arange(3.0).reshape(3, 1), [2, 3, 4]),
    (np.zeros((0, 1)), [0, 5]),
    (np.arange(6.0).reshape(2, 3)[:, ::2], [2, 2]),  # not contiguous: NumPy's own path
    (np.array([b"a"], dtype=object), [3]),
])
def test_broadcast_to_kernel_matches_numpy(x, shape):
    from tideflow.ops import fill_ops

    got = fill_ops._broadcast_to_kernel(x, np.array(shape, np.int32))
    want = np.broadcast_to(x, shape)
    assert got.shape == want.shape and got.dtype == want.dtype and not got.flags.writeable
    np.testing.assert_array_equal(got, want)


# TF 1.15's kernel words, measured (fed x and shape)
@pytest.mark.parametrize("x, shape, words", [
    (np.arange(3.0), [4], r"^Incompatible shapes: \[3\] vs. \[4\]"),
    (np.ones((2, 1)), [3], (r"^Rank of input \(2\) must be no greater than rank of output "
                           r"shape \(1\)\.")),
    (np.ones((2, 3)), [2, 3, 3], r"^Incompatible shapes: \[2,3\] vs. \[2,3,3\]")])
def test_broadcast_to_kernel_incompatible_shapes(x, shape, words):
    from tideflow.ops import fill_ops

    with pytest.raises(tf.errors.InvalidArgumentError, match=words):
        fill_ops._broadcast_to_kernel(x, np.array(shape, np.int32))


def test_cast_kernel_int_to_float_and_float16_overflow():
    from tideflow.ops import cast_ops

    big = np.array([2**62, -3], np.int64)
    np.testing.assert_array_equal(
        cast_ops._cast_kernel(big, SrcT=tf.int64, DstT=tf.float32, Truncate=False),
        big.astype(np.float32))
    with np.errstate(over="raise"):  # the overflow to inf stays silent, as TF's cast
        half = cast_ops._cast_kernel(np.array([100000]), SrcT=tf.int64, DstT=tf.float16,
                                     Truncate=False)
    assert np.isinf(half[0])
