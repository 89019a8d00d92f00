"""Array ops checked against what TF 1.15's own kernel tests expect of them: the shape-function
and kernel errors a program sees (class and words), static shapes, values and gradients of the
array family (roll, gather, slicing, stacking, concatenation, padding, ...), each with its
expected result computed here with NumPy."""

import re

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture
def sess():
    with tf.Graph().as_default(), tf.Session() as s:
        yield s


# -- Roll ----------------------------------------------------------------------------------
def test_roll_shape_function_errors_use_tf_words(sess):
    with pytest.raises(ValueError, match="Shape must be at least rank 1 but is rank 0"):
        tf.roll(5, 1, 0)
    with pytest.raises(ValueError, match="Shape must be at most rank 1 but is rank 2"):
        tf.roll([[1, 2], [3, 4]], [[1, 0]], 1)
    with pytest.raises(ValueError, match="Shape must be at most rank 1 but is rank 2"):
        tf.roll([[1, 2], [3, 4]], 1, [[1, 0]])
    with pytest.raises(ValueError, match="both shapes must be equal"):
        tf.roll([[1, 2], [3, 4]], [2], [1, 0])


def test_roll_kernel_errors_use_tf_words(sess):
    x = tf.placeholder(tf.int32)
    s = tf.placeholder(tf.int32)
    a = tf.placeholder(tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="input must be 1-D or higher"):
        sess.run(tf.roll(x, 1, 0), {x: 3})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="shift must be a scalar or a 1-D vector"):
        sess.run(tf.roll([[1, 2], [3, 4]], s, 0), {s: [[1, 1]]})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="axis must be a scalar or a 1-D vector"):
        sess.run(tf.roll([[1, 2], [3, 4]], 1, a), {a: [[0, 1]]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="is out of range"):
        sess.run(tf.roll([[1, 2], [3, 4]], 1, a), {a: -3})
    v = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(sess.run(tf.roll(v, [1, -1], [1, 0])),
                                  np.roll(v, [1, -1], [1, 0]))


# -- auto-packing of lists holding tensors ---------------------------------------------------
def test_autopacking_casts_tensors_to_requested_dtype(sess):
    a = tf.constant([1.5, 2.5], dtype=tf.float64)
    b = tf.constant([3, 4])
    packed = tf.convert_to_tensor([[0.25, 0.5], a], dtype=tf.float32)
    assert packed.dtype == tf.float32 and packed.get_shape().as_list() == [2, 2]
    np.testing.assert_array_equal(sess.run(packed), np.array([[0.25, 0.5], [1.5, 2.5]],
                                                             np.float32))
    # TF casts only when the requested dtype differs from the first tensor's
    mixed = tf.convert_to_tensor([b, a], dtype=tf.float64)
    np.testing.assert_array_equal(sess.run(mixed), [[3.0, 4.0], [1.5, 2.5]])
    for dtype in (None, tf.float64):
        with pytest.raises(TypeError, match="Cannot convert a list containing a tensor"):
            tf.convert_to_tensor([a, b], dtype=dtype)


# -- StridedSlice / ConcatOffset -------------------------------------------------------------
def test_strided_slice_more_indices_than_dims_is_out_of_range(sess):
    p = tf.placeholder(tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Index out of range using input dim 1; input has only 1 dims"):
        sess.run(p[1:, 1:], {p: [4, 5]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
        sess.run(p[:], {p: 4})
    np.testing.assert_array_equal(sess.run(p[1:, 1:], {p: [[1, 2], [3, 4]]}), [[4]])


def test_concat_offset_negative_dim_and_mismatch_words(sess):
    shapes = [[2, 3, 5], [2, 7, 5], [2, 20, 5]]
    starts = np.cumsum([0] + [s[1] for s in shapes[:-1]])
    expect = [[0, int(o), 0] for o in starts]
    for cdim in (1, -2):
        np.testing.assert_array_equal(sess.run(tf.raw_ops.ConcatOffset(
            concat_dim=cdim, shape=shapes)), expect)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Concat dim is out of range: -4 vs. 3"):
        sess.run(tf.raw_ops.ConcatOffset(concat_dim=-4, shape=shapes))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Input 1 has shape \[2 7 10\] and doesn't match input 0 with "
                             r"shape \[2 3 5\]"):
        sess.run(tf.raw_ops.ConcatOffset(concat_dim=1, shape=[[2, 3, 5], [2, 7, 10]]))


# -- ExpandDims -------------------------------------------------------------------------------
def test_expand_dims_axis_must_hold_one_value(sess):
    with pytest.raises(ValueError, match="must be a tensor with a single value"):
        tf.expand_dims(1, axis=[0, 1])
    a = tf.placeholder(tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="must be a tensor with a single value"):
        sess.run(tf.expand_dims([1, 2], a), {a: [0, 1]})
    e = tf.expand_dims([[1, 2]], [-1])
    assert e.get_shape().as_list() == [1, 2, 1]
    np.testing.assert_array_equal(sess.run(e), np.expand_dims([[1, 2]], -1))


# -- Tensor.__getitem__ with a boolean mask -----------------------------------------------------
def test_getitem_with_boolean_mask_is_boolean_mask(sess):
    x_np = np.arange(1, 19, dtype=np.float32).reshape(3, 2, 3)
    x = tf.constant(x_np)
    for spec, np_spec in ((x > 7.0, x_np > 7.0), (x_np <= 5.0, x_np <= 5.0),
                          (np.array([True, False, True]), np.array([True, False, True])),
                          (tf.constant([False, True, True]), np.array([False, True, True]))):
        got = x[spec]
        np.testing.assert_array_equal(sess.run(got), x_np[np_spec])
        assert got.get_shape().as_list()[1:] == list(x_np[np_spec].shape[1:])
    v = tf.Variable(x_np)
    sess.run(v.initializer)
    np.testing.assert_array_equal(sess.run(v[x_np[:, 0, 0] > 1.0]), x_np[1:])
    from tideflow.python.ops import array_ops

    with pytest.raises(TypeError, match=re.escape(array_ops._SLICE_TYPE_ERROR)):
        x[0.5]


# -- shape / size / rank of sparse tensors; sliced assignment ------------------------------------
def test_shape_size_rank_of_sparse_tensors(sess):
    value = tf.SparseTensorValue(indices=[[0, 1], [2, 0]], values=[4, 5], dense_shape=[3, 5])
    for sp in (value, tf.SparseTensor.from_value(value)):
        shape, size, rank = tf.shape(sp), tf.size(sp), tf.rank(sp)
        assert (shape.dtype, size.dtype, rank.dtype) == (tf.int32, tf.int32, tf.int32)
        np.testing.assert_array_equal(sess.run(shape), [3, 5])
        assert sess.run([size, rank]) == [15, 2]
        assert sess.run(tf.shape(sp, out_type=tf.int64)).dtype == np.int64
        assert sess.run(tf.size(sp, out_type=tf.int64)).dtype == np.int64


def test_sliced_assignment_only_on_variables_and_empty_windows(sess):
    with pytest.raises(ValueError, match="Sliced assignment is only supported for variables"):
        tf.constant([1, 2, 3])[:2].assign([7, 8])
    init = np.arange(6, dtype=np.float32).reshape(2, 3)
    v = tf.Variable(init)
    sess.run(v.initializer)
    # an empty window takes a value of any shape and changes nothing
    np.testing.assert_array_equal(sess.run(v[8:10, 8:10].assign([[]])), init)
    np.testing.assert_array_equal(sess.run(v[8:10, 0].assign([])), init)
    want = init.copy()
    want[::1, ::-2] = [[3, 33], [4, 44]]
    np.testing.assert_array_equal(sess.run(v[::1, ::-2].assign([[3, 33], [4, 44]])), want)


def test_python_array_ops_holds_generated_array_ops(sess):
    from tideflow.python.ops import array_ops

    dy = np.arange(1, 5, dtype=np.float32).reshape(4, 1, 1)
    dx = array_ops.strided_slice_grad([6, 4, 4], [0, 0, 0], [4, 1, 1], [1, 1, 1], dy)
    want = np.zeros((6, 4, 4), np.float32)
    want[0:4, 0:1, 0:1] = dy
    np.testing.assert_array_equal(sess.run(dx), want)


# -- gather_nd's batch_dims -------------------------------------------------------------------
def _np_batch_gather_nd(params, indices, batch_dims):
    if batch_dims == 0:
        return params[tuple(np.moveaxis(indices, -1, 0))]
    return np.stack([_np_batch_gather_nd(p, i, batch_dims - 1)
                     for p, i in zip(params, indices)])


def test_gather_nd_batch_dims_as_tensor_and_errors(sess):
    rng = np.random.RandomState(3)
    params = rng.uniform(size=(3, 2, 2, 3, 4))
    indices = rng.randint(0, 2, size=(3, 2, 3, 1))
    for b in (0, 1, 2):
        want = _np_batch_gather_nd(params, indices, b)
        for batch_dims in (b, tf.constant(b), tf.constant([b])):
            got = tf.gather_nd(params, indices, batch_dims=batch_dims)
            assert got.get_shape().as_list() == list(want.shape)
            np.testing.assert_allclose(sess.run(got), want)
    from tideflow.python.ops import array_ops

    got = array_ops.batch_gather_nd(params, indices[..., 0, :], batch_dims=0)
    np.testing.assert_allclose(sess.run(got), _np_batch_gather_nd(params, indices[..., 0, :], 0))
    with pytest.raises(TypeError, match="batch_dims must be an int"):
        tf.gather_nd(params, indices, batch_dims=tf.constant([0, 1]))
    with pytest.raises(ValueError, match="does not allow negative batch_dims"):
        array_ops.batch_gather_nd(params, indices, batch_dims=-1)
    with pytest.raises(ValueError, match="must be less than rank"):
        array_ops.batch_gather_nd(params, indices, batch_dims=4)


# -- SpaceToBatchND / BatchToSpaceND static shapes ---------------------------------------------------
def test_space_batch_nd_known_block_fixes_batch_dimension(sess):
    pads = tf.placeholder(tf.int32)
    x = tf.placeholder(tf.float32, [3, None, None, 2])
    s2b = tf.space_to_batch_nd(x, [2, 3], pads)
    assert s2b.get_shape().as_list() == [18, None, None, 2]
    y = tf.placeholder(tf.float32, [12, None, 5, 2])
    b2s = tf.batch_to_space_nd(y, [2, 3], pads)
    assert b2s.get_shape().as_list() == [2, None, None, 2]
    value = np.arange(3 * 4 * 6 * 2, dtype=np.float32).reshape(3, 4, 6, 2)
    got = sess.run(s2b, {x: value, pads: [[0, 0], [0, 0]]})
    # NumPy: split each spatial dim into (size / block, block), move the block offsets first
    want = value.reshape(3, 2, 2, 2, 3, 2).transpose(2, 4, 0, 1, 3, 5).reshape(18, 2, 2, 2)
    np.testing.assert_array_equal(got, want)


# -- scatter_nd family ---------------------------------------------------------------------------------
def test_scatter_nd_shape_errors_use_tf_words(sess):
    v = tf.Variable(tf.zeros([2, 2, 2], tf.int32))
    for scatter in (lambda i, u: tf.scatter_nd(i, u, [2, 2, 2]),
                    lambda i, u: tf.scatter_nd_update(v, i, u),
                    lambda i, u: tf.tensor_scatter_update(tf.zeros([2, 2, 2], tf.int32), i, u)):
        with pytest.raises(ValueError, match=r"The outer 2 dimensions of indices\.shape=\[3,2,2\] "
                                             r"must match the outer 2 dimensions of updates"):
            scatter(tf.zeros([3, 2, 2], tf.int32), tf.zeros([2, 2, 2], tf.int32))
        # (TF 1.15's ScatterNd fails in its first shape pass, before its shape input is
        # computed: output.shape=[?,?,?])
        with pytest.raises(ValueError, match=r"The inner 2 dimensions of (input|output)\.shape="
                                             r"\[(2,2,2|\?,\?,\?)\] must match the inner 0 "
                                             r"dimensions"):
            scatter(tf.zeros([2, 2, 1], tf.int32), tf.zeros([2, 2], tf.int32))
    with pytest.raises(ValueError, match="Indices and updates specified for empty output shape"):
        tf.scatter_nd(tf.zeros([2, 1], tf.int32), tf.zeros([2, 3, 2], tf.int32), [0, 3, 2])
    ix, up = tf.placeholder(tf.int32), tf.placeholder(tf.int32)
    # (TF 1.15's kernel words it so: measured, tests/test_op_sweep_parity27.py)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Indices and updates specified for empty output\.  indices shape: "
                             r"\[1,1\]"):
        sess.run(tf.scatter_nd(ix, up, [0, 3]), {ix: [[0]], up: [[1, 2, 3]]})
    empty = tf.scatter_nd(tf.zeros([0], tf.int32), tf.zeros([0], tf.int32), [0])
    assert sess.run(empty).shape == (0,)
    scalar = tf.Variable(1.5)
    sess.run(scalar.initializer)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Output must be at least 1-D"):
        sess.run(tf.scatter_nd_update(scalar, [[0]], [0.25]))


def test_scatter_nd_of_strings_concatenates_duplicates(sess):
    got = sess.run(tf.scatter_nd([[4], [3], [3], [1]], tf.constant(["a", "b", "b", "c"]), [6]))
    assert got.tolist() == [b"", b"c", b"", b"bb", b"a", b""]


def test_scatter_nd_non_aliasing_add(sess):
    from tideflow.python.ops import array_ops

    base = np.arange(8, dtype=np.float64).reshape(4, 2)
    x = tf.constant(base)
    upd = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    out = array_ops.scatter_nd_non_aliasing_add(x, [[1], [3], [1]], tf.cast(upd, tf.float64))
    want = base.copy()
    np.add.at(want, [1, 3, 1], [[1, 2], [3, 4], [5, 6]])
    assert out.op.type == "ScatterNdNonAliasingAdd" and out.get_shape().as_list() == [4, 2]
    np.testing.assert_array_equal(sess.run(out), want)
    gx, gu = tf.gradients(tf.reduce_sum(out * tf.constant(base)), [x, upd])
    np.testing.assert_array_equal(sess.run(gx), base)
    np.testing.assert_array_equal(sess.run(gu), base[[1, 3, 1]])


# -- Transpose -------------------------------------------------------------------------------------
def test_transpose_repeated_perm_fails_when_run_and_unknown_rank_shapes(sess):
    x = np.arange(30.0).reshape(2, 3, 5)
    t = tf.transpose(x, [0, 2, 2])  # TF's shape function does not look for repeats
    assert t.get_shape().as_list() == [2, 5, 5]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"1 is missing from \{0,2,2\}\."):
        sess.run(t)
    with pytest.raises(ValueError):
        tf.transpose(x, [0, 1, 3])
    unknown = tf.placeholder(tf.float32)
    assert tf.transpose(unknown, [0]).get_shape().ndims is None
    assert tf.transpose(unknown, [1, 0]).get_shape().as_list() == [None, None]
    np.testing.assert_array_equal(sess.run(tf.transpose(unknown, [0]), {unknown: [1.0, 2.0]}),
                                  [1.0, 2.0])
    np.testing.assert_array_equal(sess.run(tf.transpose(x, [2, 0, 1])), x.transpose(2, 0, 1))


# -- constants from ragged lists, shapes and dimensions ---------------------------------------------
def test_constant_conversion_errors_and_shape_dtypes(sess):
    with pytest.raises(ValueError, match="setting an array element with a sequence"):
        tf.constant([[1, 2], [3]], dtype=tf.int32)
    with pytest.raises(ValueError, match="must be a dense"):
        tf.constant([[1, 2], [3]])
    big = tf.convert_to_tensor(tf.TensorShape([2**31, 2]))
    assert big.dtype == tf.int64 and sess.run(big).tolist() == [2**31, 2]
    assert tf.convert_to_tensor(tf.TensorShape([2**31 - 1, 2])).dtype == tf.int32
    with pytest.raises(ValueError, match=r"a dimension is too large \(2147483648\)"):
        tf.convert_to_tensor(tf.TensorShape([2**31, 2]), dtype=tf.int32)
    with pytest.raises(TypeError):
        tf.convert_to_tensor(tf.TensorShape([1, 2]), dtype=tf.float32)
    dim = tf.convert_to_tensor(tf.TensorShape([1, 5])[1], dtype=tf.int64)
    assert dim.dtype == tf.int64 and sess.run(dim) == 5
    from tideflow.python.framework import constant_op

    padded = constant_op.constant_v1([1, 2, 3], shape=[5])
    assert sess.run(padded).tolist() == [1, 2, 3, 3, 3]


def test_fill_negative_dimensions(sess):
    for dims in ([-1], [2, -1], [-1, 2]):
        with pytest.raises(ValueError, match="Fill dimensions must be >= 0"):
            tf.fill(dims, 7)
    d = tf.placeholder(tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError):
        sess.run(tf.fill(d, 3.0), {d: [2, -1]})
    np.testing.assert_array_equal(sess.run(tf.fill([2, 0], 3.0)), np.full((2, 0), 3.0))


# -- Split / SplitV ------------------------------------------------------------------------------------
def test_split_checks_use_tf_words(sess):
    # TF 1.15's shape function: the dimension division's words, the split's context after them
    # (the kernel's "..., but got split_dim 0 (size = 4) and num_split 3" is for a step)
    with pytest.raises(ValueError, match="Dimension size must be evenly divisible by 3 but is 4"
                                         "\n\tNumber of ways to split should evenly divide the "
                                         "split dimension"):
        tf.split([0, 1, 2, 3], 3)
    with pytest.raises(ValueError, match="Rank-0 tensors are not supported"):
        tf.split(tf.ones([4, 4]), tf.constant(2))
    x = tf.constant([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="Split size at index 1 must be >= 0. Got: -2"):
        tf.split(x, [-1, -2])
    sizes = tf.placeholder(tf.int32, [2])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Split size at index 1 must be >= 0. Got: -2"):
        sess.run(tf.split(x, sizes), {sizes: [-1, -2]})
    axis = tf.placeholder(tf.int32)
    parts = tf.split(np.zeros([5, 30]), tf.placeholder_with_default([4, 11, 15], [3]), axis=axis)
    with pytest.raises(tf.errors.InvalidArgumentError, match="must have exactly one element"):
        sess.run(parts, {axis: np.zeros([0], np.int32)})
    a, b = sess.run(tf.split(x, [-1, 1]))
    np.testing.assert_array_equal(a, [1.0, 2.0])
    np.testing.assert_array_equal(b, [3.0])


# -- Reshape ----------------------------------------------------------------------------------------
def test_reshape_divisibility_words_and_zero_sized_inputs(sess):
    with pytest.raises(ValueError, match="Dimension size must be evenly divisible by 17 but is "
                                         "20677"):
        tf.reshape(tf.zeros([23, 29, 31]), [17, -1])
    p = tf.placeholder(tf.float32)
    # a zero in the requested shape: the -1 takes the size of the non-zero dimensions
    got = sess.run(tf.reshape(p, [0, -1]), {p: np.zeros((1, 0, 3))})
    assert got.shape == (0, 3)
    got = sess.run(tf.reshape(p, [-1, 2]), {p: np.arange(6.0)})
    np.testing.assert_array_equal(got, np.arange(6.0).reshape(-1, 2))
    with pytest.raises(tf.errors.InvalidArgumentError, match="requires a multiple of 4"):
        sess.run(tf.reshape(p, [4, -1]), {p: np.zeros(6)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="but the requested shape has 3"):
        sess.run(tf.reshape(p, [3]), {p: np.zeros(4)})


# -- Pad ------------------------------------------------------------------------------------------------
def test_pad_static_shape_from_partly_known_paddings_and_scalars(sess):
    unknown = tf.placeholder(tf.int32)
    x = tf.zeros([4, 4])
    assert tf.pad(x, [[1, 2], unknown]).get_shape().as_list() == [7, None]
    assert tf.pad(x, [[unknown, 0], [1, 2]]).get_shape().as_list() == [None, 7]
    assert tf.pad(x, [tf.constant(1, shape=[2]), [0, unknown]]).get_shape().as_list() == [6, None]
    got = sess.run(tf.pad(x, [[1, 2], unknown]), {unknown: [0, 3]})
    np.testing.assert_array_equal(got, np.pad(np.zeros((4, 4)), [[1, 2], [0, 3]]))
    for mode in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        scalar = tf.pad(np.float32(7), np.zeros((0, 2), np.int64), mode=mode)
        assert scalar.get_shape().as_list() == [] and sess.run(scalar) == 7


# -- UniqueV2 / UniqueWithCountsV2 -------------------------------------------------------------------
def test_unique_v2_along_an_axis(sess):
    from tideflow.python.ops import gen_array_ops

    x = np.array([[1, 0, 0], [1, 0, 0], [2, 0, 0]])
    for axis, want_y, want_idx, want_count in ((0, x[[0, 2]], [0, 0, 1], [2, 1]),
                                               (1, x[:, [0, 1]], [0, 1, 1], [1, 2])):
        y, idx, count = gen_array_ops.unique_with_counts_v2(x, axis=np.array([axis], np.int64))
        got = sess.run([y, idx, count])
        np.testing.assert_array_equal(got[0], want_y)
        assert got[1].tolist() == want_idx and got[2].tolist() == want_count
        assert y.get_shape().ndims == 2 and idx.get_shape().as_list() == [3]
    y, idx = gen_array_ops.unique_v2([3, 1, 3, 2], axis=np.zeros([0], np.int32))
    got = sess.run([y, idx])
    assert got[0].tolist() == [3, 1, 2] and got[1].tolist() == [0, 1, 0, 2]


# -- GatherNd errors ---------------------------------------------------------------------------------
def test_gather_nd_bad_indices_use_tf_1x_words(sess):  # TF 1.15's printed messages
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^indices\[0,1\] = \[7\] does not index into param "
                             r"shape \[3\]\n"):
        sess.run(tf.gather_nd([0, 1, 2], [[[0], [7]]]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^indices\[0,2\] = \[1\] does not index into param "
                             r"shape \[1,3\]\n"):
        sess.run(tf.gather_nd([[0, 1, 2]], [[[0], [0], [1]]]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Requested more than 0 entries, but params is empty"):
        sess.run(tf.gather_nd(np.zeros((0, 3), np.float32), np.zeros((1, 2), np.int32)))
    empty = tf.gather_nd(np.zeros((0, 3), np.float32), np.zeros((0, 2), np.int32))
    assert sess.run(empty).shape == (0,)
    params = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(sess.run(tf.gather_nd(params, [[2, 1], [0, 3]])),
                                  params[[2, 0], [1, 3]])


# -- tf.test.compute_gradient with the x placeholders also in extra_feed_dict ------------------------
def test_compute_gradient_perturbs_x_fed_in_extra_feed_dict(sess):
    xs = [tf.placeholder(tf.float64) for _ in range(2)]
    shapes = [[2, 3], [2, 1]]
    out = tf.gather(tf.concat(xs, 1), [1, 0])
    values = {x: np.arange(np.prod(s), dtype=np.float64).reshape(s) for x, s in zip(xs, shapes)}
    err = tf.test.compute_gradient_error(xs, shapes, out, [2, 4], extra_feed_dict=values)
    assert err < 1e-8


def test_compute_gradient_of_a_scalar_initial_value(sess):
    x = tf.constant(np.float64(2.5))
    tiled = tf.tile(tf.reshape(x, [1]), [3])
    err = tf.test.compute_gradient_error(x, [], tiled, [3], x_init_value=np.float64(2.5))
    assert err < 1e-8
    fortran = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    m = tf.constant(fortran)
    err = tf.test.compute_gradient_error(m, [2, 3], tf.transpose(m), [3, 2], x_init_value=fortran)
    assert err < 1e-8


# -- gradient kinds: concat under a gather, boolean_mask, check_numerics ---------------------------------
def test_gather_of_concat_gives_indexed_slices_per_input(sess):
    a = tf.constant(np.arange(6.0).reshape(3, 2))
    b = tf.constant(np.arange(8.0).reshape(4, 2))
    out = tf.gather(tf.concat([a, b], 0), [4, 1, 4])
    ga, gb = tf.gradients(out, [a, b])
    assert type(ga).__name__ == "IndexedSlices" and type(gb).__name__ == "IndexedSlices"
    np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(ga)), [[0, 0], [1, 1], [0, 0]])
    want_b = np.zeros((4, 2))
    want_b[1] = 2
    np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(gb)), want_b)
    cols = tf.gather(tf.concat([a, a * 2.0], 1), [2])
    (gc,) = tf.gradients(cols, [a])
    np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(gc)), [[0, 0], [0, 0], [3, 3]])
    p = tf.placeholder(tf.float64)
    with pytest.raises(ValueError, match="negative concat_dim"):
        tf.gradients(tf.gather(tf.concat([p, p], -2), [0]), p)


def test_boolean_mask_gradient_is_dense_and_check_numerics_has_one(sess):
    x = tf.constant(np.arange(12.0).reshape(4, 3))
    (g,) = tf.gradients(tf.boolean_mask(x, [True, False, True, True]), x)
    assert isinstance(g, tf.Tensor)
    np.testing.assert_array_equal(sess.run(g), np.array([[1.0] * 3, [0.0] * 3, [1.0] * 3,
                                                         [1.0] * 3]))
    (g,) = tf.gradients(tf.check_numerics(x * 2.0, "fwd"), x)
    np.testing.assert_array_equal(sess.run(g), np.full((4, 3), 2.0))
    y = tf.constant([1.0, 0.0])
    (g,) = tf.gradients(tf.sqrt(tf.check_numerics(y, "fwd")), y)  # d sqrt at 0 is Inf
    with pytest.raises(tf.errors.InvalidArgumentError, match="detected in gradient. fwd"):
        sess.run(g)


# -- ReverseSequence --------------------------------------------------------------------------------
def test_reverse_sequence_length_errors_use_tf_words(sess):
    lens = tf.placeholder(tf.int64, [2])
    out = tf.reverse_sequence(np.arange(6).reshape(2, 3), lens, seq_axis=1, batch_axis=0)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"seq_lens\(0\) > input.dims\(1\)"):
        sess.run(out, {lens: [4, 1]})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"seq_lens\(1\) < 0"):
        sess.run(out, {lens: [1, -1]})
    got = sess.run(out, {lens: [2, 3]})
    np.testing.assert_array_equal(got, [[1, 0, 2], [5, 4, 3]])


# -- TF 1.x's first Concat and Reverse, ConjugateTranspose ------------------------------------------
def test_v1_concat_and_reverse_ops_run_from_an_imported_graph_def():
    a = np.arange(6.0).reshape(2, 3)
    b = np.arange(4.0).reshape(2, 2)
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float64, [2, 3], name="x")
        y = tf.placeholder(tf.float64, [2, 2], name="y")
        c = tf.raw_ops.Concat(concat_dim=1, values=[x, y], name="c")
        tf.raw_ops.Reverse(tensor=c, dims=[False, True], name="r")
        gdef = g.as_graph_def()
    with tf.Graph().as_default():
        x, y = tf.placeholder(tf.float64, [2, 3]), tf.placeholder(tf.float64, [2, 2])
        c, r = tf.import_graph_def(gdef, input_map={"x:0": x, "y:0": y},
                                   return_elements=["c:0", "r:0"])
        assert c.op.type == "Concat" and c.get_shape().as_list() == [2, 5]
        gx, gy = tf.gradients(tf.reduce_sum(r * np.arange(10.0).reshape(2, 5)), [x, y])
        with tf.Session() as s:
            got_c, got_r, got_gx, got_gy = s.run([c, r, gx, gy], {x: a, y: b})
    want = np.concatenate([a, b], 1)
    np.testing.assert_array_equal(got_c, want)
    np.testing.assert_array_equal(got_r, want[:, ::-1])
    weights = np.arange(10.0).reshape(2, 5)[:, ::-1]  # d(sum(w * rev(c)))/dc = rev(w)
    np.testing.assert_array_equal(got_gx, weights[:, :3])
    np.testing.assert_array_equal(got_gy, weights[:, 3:])


def test_conjugate_transpose_is_one_op_with_its_gradient(sess):
    z = tf.constant(np.array([[1 + 2j, 3 - 1j, 0.5j]]))
    t = tf.transpose(z, conjugate=True)
    assert t.op.type == "ConjugateTranspose" and t.get_shape().as_list() == [3, 1]
    np.testing.assert_array_equal(sess.run(t), np.conj(sess.run(z)).T)
    w = tf.constant(np.array([[2 - 1j], [1j], [3.0 + 0j]]))
    (g,) = tf.gradients(tf.reduce_sum(tf.real(t * w)), z)
    # the value TF 1.x gives (checked against TF): w transposed, not conjugated
    np.testing.assert_allclose(sess.run(g), np.array([[2 - 1j, 1j, 3.0 + 0j]]))


# -- inplace_ops, Empty, DeepCopy, ParallelConcat ----------------------------------------------------
def test_inplace_ops_update_rows_of_a_copy(sess):
    from tideflow.python.ops import array_ops, inplace_ops

    base = np.arange(12.0).reshape(4, 3)
    x = tf.constant(base)
    y = inplace_ops.inplace_update(x, [1, -1], [[9.0, 9.0, 9.0], [7.0, 7.0, 7.0]])
    y = inplace_ops.inplace_add(y, 0, [1.0, 2.0, 3.0])  # a scalar row index
    y = array_ops.inplace_sub(y, None, np.ones((4, 3)))  # the whole tensor
    want = base.copy()
    want[1], want[3] = 9.0, 7.0
    want[0] += [1.0, 2.0, 3.0]
    want -= 1.0
    np.testing.assert_array_equal(sess.run(y), want)
    np.testing.assert_array_equal(sess.run(x), base)  # the input is untouched
    with pytest.raises(tf.errors.InvalidArgumentError, match="i must be a vector"):
        sess.run(inplace_ops.inplace_update([[1.0]], [[0]], [[10.0]]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="i and x shape doesn't match"):
        sess.run(inplace_ops.inplace_update([[1.0]], [0, 1], [[10.0]]))
    e = inplace_ops.empty_like(tf.zeros([2, 3], tf.int64), init=True)
    assert e.get_shape().as_list() == [2, 3] and sess.run(e).dtype == np.int64
    assert sess.run(inplace_ops.empty([1, 2], tf.string, init=True)).tolist() == [[b"", b""]]
    p = tf.raw_ops.ParallelConcat(values=[tf.ones([1, 2]), tf.zeros([1, 2])], shape=[2, 2])
    assert p.get_shape().as_list() == [2, 2]
    np.testing.assert_array_equal(sess.run(p), [[1, 1], [0, 0]])
