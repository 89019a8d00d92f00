"""Differential fuzzing of array and shape ops against TF 1.15 (session 28, helper h313):
random programs of reshape/transpose/expand_dims/squeeze/concat/stack/unstack/split/tile/pad/
slice/strided_slice (Python slicing and raw masks)/gather (axis, batch_dims)/gather_nd/
scatter_nd/boolean_mask/where/one_hot/sequence_mask/reverse(_sequence)/roll/unique/setdiff1d/
top_k/sort/argsort/argmax/cumsum/segment ops/space<->batch/depth/meshgrid/broadcast_to/shape
ops/matrix_band_part/matrix_diag*/einsum over placeholders of partly known shapes, compared
with TF 1.15 for static shapes (str and as_list), values, dtypes and errors (class, message, at
build or at run, and for fed values of the wrong shape). Below: the minimal cases where
tideflow differed, with TF 1.15's answers as measured, then a small seeded fuzz run that checks
tideflow against NumPy and against its own static shapes."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _run(t, feed=None):
    with tf.Session() as s:
        return s.run(t, feed)


def _run_error(t, feed=None):
    with tf.Session() as s, pytest.raises(tf.errors.OpError) as e:
        s.run(t, feed)
    return type(e.value), e.value.message.split("\n")[0]


P = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
I2 = [[0, 1], [1, 2]]


# ---- tf.gather with batch_dims (TF 1.15's wrapper, shape function and kernel) -------------

def test_gather_batch_dims_axis0_takes_the_plain_gather():
    # TF 1.15's tf.gather passes batch_dims only when the constant axis is not 0
    p = tf.placeholder(tf.float32, [2, 3, 4])
    t = tf.gather(p, I2, axis=0, batch_dims=1)
    assert t.shape.as_list() == [2, 2, 3, 4]
    assert "batch_dims" not in t.op.node_def.attr or t.op.get_attr("batch_dims") == 0
    assert _run_error(t, {p: P}) == (tf.errors.InvalidArgumentError,
                                     "indices[1,1] = 2 is not in [0, 2)")


def test_gather_batch_dims_unknown_axis_keeps_the_batch_dims_in_the_rank():
    # TF 1.15: rank(params) + rank(indices) - 1, batch_dims not taken off
    p = tf.placeholder(tf.float32, [2, 3, 4])
    a = tf.placeholder(tf.int32, [])
    assert str(tf.gather(p, I2, axis=a, batch_dims=1).shape) == "(?, ?, ?, ?)"
    assert str(tf.gather(p, I2, axis=a, batch_dims=-3).shape) == "(?, ?, ?, ?)"


def test_gather_batch_dims_shape_function_errors():
    p = tf.placeholder(tf.float32, None)
    with pytest.raises(ValueError, match=r"^Subshape start out of bounds: -3, for shape with "
                                         r"rank 2 for 'GatherV2'"):
        tf.gather(p, I2, axis=1, batch_dims=-3)
    # batch_dims past the indices' rank: unknown params build (Subshape clamps) ...
    assert tf.gather(p, I2, axis=2, batch_dims=3).shape.ndims is None
    # ... known params need rank batch_dims + 1
    with pytest.raises(ValueError, match=r"^Shape must be at least rank 4 but is rank 3"):
        tf.gather(tf.placeholder(tf.float32, [2, 3, 4]), I2, axis=2, batch_dims=3)


def test_gather_batch_dims_kernel_errors_in_tf_words():
    p = tf.placeholder(tf.float32, None)
    cases = [
        (tf.gather(p, I2, axis=2, batch_dims=2), P,
         "Expected batch_dims in the range [-2, 2), but got 2"),
        (tf.gather(p, I2, axis=2, batch_dims=3), P,
         "Expected batch_dims in the range [-2, 2), but got 3"),
        (tf.gather(p, [0, 1], axis=1, batch_dims=1), P,
         "Expected batch_dims in the range [-1, 1), but got 1"),
        (tf.gather(p, [[0]], batch_dims=1), P[0, 0],
         "Expected axis in the range [-1, 1), but got 1"),
        # a bad index is named by its place in the whole indices tensor
        (tf.gather(p, [[0, 1], [1, 5]], axis=2, batch_dims=1), P,
         "indices[1,1] = 5 is not in [0, 4)"),
        (tf.gather(p, [[0, -1], [1, 2]], axis=2, batch_dims=1), P,
         "indices[0,1] = -1 is not in [0, 4)"),
        (tf.gather(p, [[[0, 3], [1, 2], [0, 0]], [[0, 1], [1, 9], [0, 0]]], axis=2,
                   batch_dims=2), P, "indices[1,1,1] = 9 is not in [0, 4)"),
    ]
    for t, v, msg in cases:
        assert _run_error(t, {p: v}) == (tf.errors.InvalidArgumentError, msg)


def test_gather_batch_dims_reads_indices_by_params_batch():
    # TF 1.15 does not compare the batch dimensions: indices [3, 1] against params' batch of
    # 2 read as 2 rows of 1 (values measured in TF 1.15)
    p = tf.placeholder(tf.float32, [2, 3, 4])
    t = tf.gather(p, [[0], [1], [2]], axis=1, batch_dims=1)
    assert t.shape.as_list() == [2, 1, 4]
    assert _run(t, {p: P}).ravel().tolist() == [0, 1, 2, 3, 16, 17, 18, 19]
    assert _run(tf.gather(p, I2, axis=-1, batch_dims=1), {p: P}).ravel().tolist() == [
        0, 1, 4, 5, 8, 9, 13, 14, 17, 18, 21, 22]


# ---- strided_slice: an unknown dimension skips TF's shrink checks -------------------------

def test_strided_slice_shrink_negative_stride_on_unknown_dim_builds():
    x = tf.placeholder(tf.float32, [None])
    t = tf.strided_slice(x, [0], [1], [-1], shrink_axis_mask=1)
    assert t.shape.as_list() == []
    assert _run_error(t, {x: [1., 2., 3.]}) == (
        tf.errors.InvalidArgumentError, "only stride 1 allowed on non-range indexing.")
    # the known dimension's index is checked first at build
    y = tf.placeholder(tf.float32, [1, None])
    with pytest.raises(ValueError, match=r"^slice index 5 of dimension 0 out of bounds\."):
        tf.strided_slice(y, [5, -5], [2, -1], [1, -2], shrink_axis_mask=3)
    assert tf.strided_slice(y, [0, 1], [2, -1], [1, -2], shrink_axis_mask=3).shape.ndims == 0


# ---- matrix_diag_part: a known 0 wins over an unknown dimension (TF's Min) ----------------

def test_matrix_diag_part_zero_dim_static_shape():
    x = tf.placeholder(tf.float32, [2, None, 0])
    t = tf.matrix_diag_part(x)
    assert str(t) == 'Tensor("diag_part:0", shape=(2, 0), dtype=float32)'
    assert _run(t, {x: np.zeros([2, 3, 0])}).shape == (2, 0)
    assert tf.matrix_diag_part(tf.placeholder(tf.float32, [0, None])).shape.as_list() == [0]


# ---- where_v2: then/else combined first ---------------------------------------------------

def test_where_v2_broadcast_error_words():
    x = tf.placeholder(tf.float32, None)
    y = tf.placeholder(tf.float32, None)
    c = tf.placeholder(tf.bool, None)
    assert _run_error(tf.where_v2(x > 1, x, y), {x: np.ones([2, 2, 4]), y: np.ones([2, 3, 3])})[
        1] == "then [2,2,4] and else [2,3,3] must be broadcastable"
    assert _run_error(tf.where_v2(c, x, x), {c: np.ones([3], bool), x: np.ones([2])})[1] == (
        "condition [3], then [2], and else [2] must be broadcastable")


# ---- space_to_batch_nd / batch_to_space_nd: TF 1.15's shape function and kernel words -----

def test_space_batch_nd_shape_function_errors():
    cases = [
        (lambda p: tf.batch_to_space_nd(p, [2, 2], [[1, 2], [0, 0]]), [4, 1, 1, 1],
         "Negative dimension size caused by subtracting 2 from 1"),
        (lambda p: tf.batch_to_space_nd(p, [2, 2], [[0, 0], [3, 0]]), [4, 1, 1, 1],
         "Negative dimension size caused by subtracting 3 from 2"),
        (lambda p: tf.batch_to_space_nd(p, [2, 2], [[-1, 0], [0, 0]]), None,
         "crops cannot be negative"),
        (lambda p: tf.batch_to_space_nd(p, [0, 2], [[0, 0], [0, 0]]), None,
         "block_shape must be positive"),
        (lambda p: tf.space_to_batch_nd(p, [2, 2], [[0, -1], [0, 0]]), None,
         "paddings cannot be negative"),
        (lambda p: tf.space_to_batch_nd(p, [2, 2], [[0, 0], [0, 0]]), [None, None],
         "Shape must be at least rank 3 but is rank 2"),
        (lambda p: tf.batch_to_space_nd(p, [2, 2], [[0, 0], [0, 0]]), [2, 3, 4, 2],
         "Dimension size must be evenly divisible by 2 but is 1"),
    ]
    for f, shape, msg in cases:
        with pytest.raises(ValueError, match="^" + msg.replace("[", r"\[")):
            f(tf.placeholder(tf.float32, shape))


def test_space_batch_nd_kernel_errors():
    x = np.zeros([2, 3, 4, 2], np.float32)
    p = tf.placeholder(tf.float32, None)
    cases = [
        (tf.batch_to_space_nd(p, [2, 2], [[0, 0], [0, 0]]), x,
         "Input batch dimension (2) is not divisible by product of block sizes (4)"),
        (tf.batch_to_space_nd(p, [2, 2], [[1, 2], [0, 0]]), np.zeros([4, 1, 1, 1]),
         "cropped_shape[0]=-1 must be non-negative"),
        (tf.space_to_batch_nd(p, [2, 2], [[0, 1], [0, 1]]), x,
         "padded_shape[1]=5 is not divisible by block_shape[1]=2"),
        (tf.space_to_batch_nd(p, [2, 2], [[0, 0], [0, 0]]), x[0, 0],
         "input rank should be >= 3 instead of 2"),
        (tf.batch_to_space_nd(p, [2, 2], [[0, 0], [0, 0]]), x[0, 0],
         "input rank should be >= 3 instead of 2"),
    ]
    for t, v, msg in cases:
        assert _run_error(t, {p: v}) == (tf.errors.InvalidArgumentError, msg)


# ---- kernels instantiated for a few ranks only --------------------------------------------

def test_pad_and_reverse_sequence_rank_limits():
    p = tf.placeholder(tf.float32, None)
    for r, mode, ok in [(6, "CONSTANT", True), (7, "CONSTANT", False), (5, "REFLECT", True),
                        (6, "REFLECT", False), (6, "SYMMETRIC", False)]:
        t = tf.pad(p, [[0, 0]] * r, mode)
        v = np.ones([1] * r, np.float32)
        if ok:
            assert _run(t, {p: v}).shape == (1,) * r
        else:
            most = 6 if mode == "CONSTANT" else 5
            assert _run_error(t, {p: v}) == (tf.errors.UnimplementedError,
                                             f"inputs rank not in [0,{most}]: {r}")
    t = tf.reverse_sequence(p, [1], seq_axis=1, batch_axis=0)
    assert _run(t, {p: np.ones([1] * 5)}).shape == (1,) * 5
    assert _run_error(t, {p: np.ones([1] * 6)}) == (
        tf.errors.InvalidArgumentError, "ReverseSequenceOp : Unhandled input dimensions: 6")
