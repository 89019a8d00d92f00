"""The array-op wrappers: TF 1.x (and 0.x) signatures, static shapes, dtypes and errors."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.framework import op_registry


def _run(*fetches, feed=None):
    with tf.Session() as s:
        out = s.run(list(fetches), feed)
    return out if len(out) > 1 else out[0]


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def _shape(t):
    s = t.get_shape()
    return None if s.ndims is None else s.as_list()


# -- shapes and reshaping -----------------------------------------------------------------


def test_shape_size_rank_are_constants_when_static():
    x = tf.placeholder(tf.float32, [2, 3])
    assert tf.shape(x).op.type == "Const" and tf.size(x).op.type == "Const"
    assert tf.rank(x).op.type == "Const"
    y = tf.placeholder(tf.float32, [None, 3])
    s = tf.shape(y, out_type=tf.int64)
    assert s.op.type == "Shape" and s.dtype == tf.int64 and _shape(s) == [2]
    assert tf.size(tf.placeholder(tf.float32, [None, 0])).op.type == "Const"
    z = tf.placeholder(tf.float32)
    assert tf.rank(z).op.type == "Rank"
    feed = {y: np.zeros((4, 3)), z: np.zeros((1, 2, 3))}
    got = _run(s, tf.size(y), tf.rank(z), feed=feed)
    assert [np.asarray(v).tolist() for v in got] == [[4, 3], 12, 3]


def test_reshape_static_shapes_and_errors():
    x = tf.placeholder(tf.float32, [None, 3, 4])
    assert _shape(tf.reshape(x, [-1, 12])) == [None, 12]
    # TF 1.15 leaves both unknown: the shape tensor holds two unknowns (tf.shape(x)[0], -1)
    assert _shape(tf.reshape(x, [tf.shape(x)[0], -1])) == [None, None]
    assert _shape(tf.reshape(tf.zeros([2, 6]), [3, -1])) == [3, 4]
    assert _shape(tf.reshape(tf.zeros([2, 6]), tf.shape(tf.zeros([4, 3])))) == [4, 3]
    assert _shape(tf.reshape(tf.zeros([6]), tf.stack([2, 3]))) == [2, 3]
    assert _shape(tf.reshape(tf.zeros([6]), tf.placeholder(tf.int32, [2]))) == [None, None]
    # slices of a partly known shape are partial shapes, but no element of one is a constant
    # (TF 1.15's: range's limit is unknown)
    assert _shape(tf.range(tf.shape(x)[1])) == [None]
    assert _shape(tf.zeros(tf.shape(x)[1:])) == [3, 4]
    assert _shape(tf.fill(tf.shape(x)[:2], 1.0)) == [None, 3]
    with pytest.raises(ValueError, match="Cannot reshape a tensor with 6 elements to shape"):
        tf.reshape(tf.zeros([2, 3]), [4])
    p = tf.placeholder(tf.int32, [2])
    r = tf.reshape(tf.zeros([2, 3]), p)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Input to reshape is a tensor with 6 values, but the requested "
                             "shape has 4"):
        _run(r, feed={p: [2, 2]})


def test_squeeze_and_expand_dims():
    x = tf.placeholder(tf.float32, [1, None, 1, 3])
    assert _shape(tf.squeeze(x, [0, 2])) == [None, 3]
    assert _shape(tf.squeeze(x, axis=0)) == [None, 1, 3]
    assert _shape(tf.squeeze(x)) is None  # the unknown dim may be 1
    assert _shape(tf.squeeze(tf.zeros([1, 2, 1]))) == [2]
    with pytest.raises(ValueError, match=r"Can not squeeze dim\[3\], expected a dimension of 1"):
        tf.squeeze(x, [3])
    with pytest.raises(ValueError, match=r"squeeze_dims\[0\] not in \[-4,4\)\."):  # TF 1.15's
        tf.squeeze(x, [4])
    assert _shape(tf.expand_dims(x, -1)) == [1, None, 1, 3, 1]
    assert _shape(tf.expand_dims(tf.zeros([2]), dim=0)) == [1, 2]
    with pytest.raises(ValueError, match=r"dim 3 not in the interval \[-2, 1\]\."):
        tf.expand_dims(tf.zeros([2]), 3)
    with pytest.raises(ValueError):
        tf.expand_dims(tf.zeros([2]), axis=0, dim=0)


def test_transpose_default_reverses_even_with_unknown_rank():
    x = tf.placeholder(tf.float32)
    t = tf.transpose(x)
    v = np.arange(24.0).reshape(2, 3, 4)
    assert _run(t, feed={x: v}).shape == (4, 3, 2)
    y = tf.placeholder(tf.float32, [2, None, 4])
    assert _shape(tf.transpose(y)) == [4, None, 2]
    assert _shape(tf.transpose(y, [0, 2, 1])) == [2, 4, None]
    with pytest.raises(ValueError):
        tf.transpose(y, [0, 1])


# -- joining and splitting ----------------------------------------------------------------


def test_concat_accepts_both_argument_orders():
    a, b = tf.zeros([2, 3]), tf.ones([2, 1])
    new, old = tf.concat([a, b], 1), tf.concat(1, [a, b])
    assert _shape(new) == _shape(old) == [2, 4]
    n, o = _run(new, old)
    np.testing.assert_array_equal(n, o)
    assert tf.concat([a], 0).op.type == "Identity"
    assert _shape(tf.concat([a, tf.placeholder(tf.float32, [None, 1])], 1)) == [2, 4]
    assert _shape(tf.concat([a, b], tf.placeholder(tf.int32, []))) == [None, None]
    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal"):
        tf.concat([a, tf.zeros([3, 1])], 1)
    with pytest.raises(ValueError):
        tf.concat([tf.constant(1.0), tf.constant(2.0)], 0)


def test_concat_of_mixed_tensors_and_arrays():
    a = tf.constant([1.0, 2.0], dtype=tf.float64)
    c = tf.concat([np.array([0.0]), a], 0)
    assert c.dtype == tf.float64
    assert _run(c).tolist() == [0.0, 1.0, 2.0]


def test_split_forms():
    x = tf.reshape(tf.range(24), [4, 6])
    parts = tf.split(x, 3, axis=1)
    assert [_shape(p) for p in parts] == [[4, 2]] * 3
    sizes = tf.split(x, [1, -1, 2], 1)
    assert [_shape(p) for p in sizes] == [[4, 1], [4, 3], [4, 2]]
    old = tf.split(0, 2, x)  # 0.x: split(split_dim, num_split, value)
    assert [_shape(p) for p in old] == [[2, 6]] * 2
    got = _run(*old)
    np.testing.assert_array_equal(got[1], np.arange(12, 24).reshape(2, 6))
    with pytest.raises(ValueError, match="should evenly divide the split dimension"):
        tf.split(x, 4, 1)
    with pytest.raises(ValueError, match="Cannot infer num"):
        tf.split(x, tf.placeholder(tf.int32, [None]), 1)


def test_stack_unstack_and_autopacking():
    x = tf.placeholder(tf.float32, [None, 3])
    s = tf.stack([x, x], axis=1)
    assert _shape(s) == [None, 2, 3]
    assert tf.stack([1, 2]).op.type == "Const"
    assert tf.pack([x, x]).op.type == "Pack"
    with pytest.raises(ValueError, match="axis = 3 not in"):
        tf.stack([x, x], axis=3)
    parts = tf.unstack(tf.zeros([2, 5]), axis=1)
    assert len(parts) == 5 and _shape(parts[0]) == [2]
    with pytest.raises(ValueError, match="Cannot infer num"):
        tf.unstack(x)
    n = tf.placeholder(tf.int32, [])
    z = tf.zeros([n, 3])  # a list holding a tensor packs into one
    assert _shape(z) == [None, 3]
    assert _run(z, feed={n: 2}).shape == (2, 3)
    # a requested dtype casts the list's tensors (TF's _cast_nested_seqs_to_dtype)
    packed = tf.convert_to_tensor([n, 1], dtype=tf.int64)
    assert packed.dtype == tf.int64 and _run(packed, feed={n: 5}).tolist() == [5, 1]


def test_tile_pad_reverse():
    x = tf.placeholder(tf.float32, [None, 3])
    assert _shape(tf.tile(x, [2, 3])) == [None, 9]
    assert _shape(tf.pad(x, [[1, 1], [0, 2]])) == [None, 5]
    assert tf.pad(x, [[1, 1], [0, 2]], constant_values=1.5).op.type == "PadV2"
    assert tf.pad(x, [[1, 1], [0, 2]], "REFLECT").op.type == "MirrorPad"
    with pytest.raises(ValueError, match="Unknown padding mode"):
        tf.pad(x, [[1, 1], [0, 2]], "WRAP")
    # as TF: a REFLECT padding too large builds (Pad's shape) and fails when run
    big = tf.pad(tf.constant([[1, 2, 3]]), [[0, 0], [3, 0]], "REFLECT")
    assert _shape(big) == [1, 6]
    with pytest.raises(tf.errors.InvalidArgumentError, match="paddings must be less than"):
        _run(big)
    p = tf.placeholder(tf.int32, [2, 2])
    m = tf.pad(tf.constant([[1, 2, 3]]), p, "REFLECT")
    with pytest.raises(tf.errors.InvalidArgumentError, match="paddings must be less than"):
        _run(m, feed={p: [[0, 0], [3, 0]]})
    assert _run(tf.reverse(tf.constant([[1, 2], [3, 4]]), [1])).tolist() == [[2, 1], [4, 3]]
    old = tf.reverse(tf.constant([[1, 2], [3, 4]]), [True, False])  # 0.x: dims as bools
    assert _run(old).tolist() == [[3, 4], [1, 2]]
    with pytest.raises(ValueError, match="specified more than once"):
        tf.reverse(x, [1, -1])


# -- slicing -------------------------------------------------------------------------------


def test_getitem_static_shapes():
    x = tf.placeholder(tf.float32, [5, None, 4])
    assert _shape(x[1]) == [None, 4]
    assert _shape(x[1:4, :, ::-1]) == [3, None, 4]
    assert _shape(x[..., 0]) == [5, None]
    assert _shape(x[:, tf.newaxis, 1:3]) == [5, 1, None, 4]
    assert _shape(x[1:3, ..., tf.newaxis, 1:3]) == [2, None, 1, 2]
    assert _shape(x[-1, ..., None]) == [None, 4, 1]
    assert _shape(x[::2]) == [3, None, 4]
    assert _shape(x[10:]) == [0, None, 4]
    i = tf.placeholder(tf.int32, [])
    assert _shape(x[i]) == [None, 4]
    assert _shape(x[i:i + 2]) == [None, None, 4]
    assert _shape(x[:, :, i]) == [5, None]
    with pytest.raises(ValueError, match="out of bounds"):
        x[7]
    assert _shape(x[[1, 2]]) == [4]  # a list is a tuple of indices, as in TF 1.x
    with pytest.raises(TypeError, match="Only integers, slices"):
        x[1.5]
    with pytest.raises(TypeError, match="Only integers, slices"):
        x[tf.constant([1, 2])]
    with pytest.raises(ValueError, match="Index out of range"):
        tf.zeros([3])[0, 1]


def test_getitem_values_and_iteration():
    v = np.arange(60).reshape(3, 4, 5)
    x = tf.constant(v)
    i = tf.placeholder(tf.int32, [])
    outs = _run(x[1, ::-1, 2], x[..., None, -1], x[i, 1:], x[:, -2], x[2, 3, 4],
                feed={i: 2})
    np.testing.assert_array_equal(outs[0], v[1, ::-1, 2])
    np.testing.assert_array_equal(outs[1], v[..., None, -1])
    np.testing.assert_array_equal(outs[2], v[2, 1:])
    np.testing.assert_array_equal(outs[3], v[:, -2])
    assert outs[4] == 59
    with pytest.raises(TypeError, match="iterating over `tf.Tensor` is not allowed"):
        # as TF 1.x in graph mode, whatever the shape: iter() gives TF's generator, whose
        # first step raises
        next(iter(tf.constant([[1, 2], [3, 4]])))
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of bounds"):
        _run(x[i], feed={i: 3})


def test_getitem_int64_index_and_strings():
    x = tf.constant([b"a", b"bc", b"d"])
    j = tf.constant(1, dtype=tf.int64)
    assert _run(x[j]) == b"bc"
    assert _run(x[::-1]).tolist() == [b"d", b"bc", b"a"]


def test_slice_and_strided_slice():
    x = tf.placeholder(tf.float32, [4, None])
    assert _shape(tf.slice(x, [1, 0], [2, -1])) == [2, None]
    assert _shape(tf.slice(x, [1, 0], [-1, 3])) == [3, 3]
    too_big = tf.slice(x, [1, 0], [4, 1])  # as in TF, only the kernel rejects it
    assert _shape(too_big) == [4, 1]
    with pytest.raises(tf.errors.InvalidArgumentError):
        _run(too_big, feed={x: np.zeros((4, 2))})
    # a -1 resolves only when the whole size vector is constant
    n = tf.placeholder(tf.int32, [])
    assert _shape(tf.slice(x, [1, 0], tf.stack([-1, n]))) == [None, None]
    s = tf.strided_slice(tf.zeros([6, 2]), [1], [6], [2])
    assert _shape(s) == [3, 2]
    assert _shape(tf.strided_slice(tf.zeros([6, 2]), [0, 1], [0, 0], shrink_axis_mask=2,
                                   begin_mask=1, end_mask=1)) == [6]


def test_boolean_mask():
    t = tf.constant([[1, 2], [3, 4], [5, 6]])
    got = _run(tf.boolean_mask(t, [True, False, True]))
    assert got.tolist() == [[1, 2], [5, 6]]
    m = tf.constant([[True, False], [False, True], [True, True]])
    assert _run(tf.boolean_mask(t, m)).tolist() == [1, 4, 5, 6]
    assert _run(tf.boolean_mask(t, [False, True], axis=1)).tolist() == [[2], [4], [6]]
    with pytest.raises(ValueError, match="mask cannot be scalar"):
        tf.boolean_mask(t, True)


# -- gathering and selecting ---------------------------------------------------------------


def test_gather_uses_gather_v2_and_checks_indices():
    p = tf.constant([[1, 2], [3, 4], [5, 6]])
    g = tf.gather(p, [2, 0])
    assert g.op.type == "GatherV2" and _shape(g) == [2, 2]
    assert _shape(tf.gather(p, [[1]], axis=1)) == [3, 1, 1]
    assert _run(g).tolist() == [[5, 6], [1, 2]]
    i = tf.placeholder(tf.int32, [4])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[3\] = 7 is not in \[0, 3\)"):
        _run(tf.gather(p, i), feed={i: [0, 1, 2, 7]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="is not in"):
        _run(tf.gather(p, i), feed={i: [0, -1, 2, 1]})
    nd = tf.gather_nd(p, [[2, 1], [0, 0]])
    assert _shape(nd) == [2] and _run(nd).tolist() == [6, 1]


def test_scatter_nd_sums_duplicates():
    out = tf.scatter_nd([[0], [2], [0]], [1.0, 2.0, 3.0], [4])
    assert _shape(out) == [4]
    assert _run(out).tolist() == [4.0, 0.0, 2.0, 0.0]


def test_where_and_select():
    c = tf.constant([[True, False], [False, True]])
    w = tf.where(c)
    assert w.dtype == tf.int64 and _shape(w) == [None, 2]
    assert _run(w).tolist() == [[0, 0], [1, 1]]
    x, y = tf.ones([2, 2]), tf.zeros([2, 2])
    assert tf.where(c, x, y).op.type == "Select"
    v = tf.where(tf.constant([True, False]), x, y)
    assert _run(v).tolist() == [[1, 1], [0, 0]]
    with pytest.raises(ValueError):
        tf.where(c, x)
    with pytest.raises(ValueError):
        tf.where(c, tf.ones([2, 3]), tf.zeros([2, 3]))
    b = tf.where_v2(tf.constant([True, False]), tf.ones([3, 2]), 0.0)
    assert _shape(b) == [3, 2]


def test_unique_and_invert_permutation():
    y, idx = tf.unique(tf.constant([4, 1, 4, 2, 1]))
    assert _run(y).tolist() == [4, 1, 2] and _run(idx).tolist() == [0, 1, 0, 2, 1]
    res = tf.unique(tf.constant([1, 1]), out_idx=tf.int64)
    assert res.idx.dtype == tf.int64
    assert _run(tf.invert_permutation([2, 0, 1])).tolist() == [1, 2, 0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="duplicated"):
        _run(tf.invert_permutation([0, 0, 1]))


# -- filling, ranges, casts ---------------------------------------------------------------


def test_zeros_ones_fill():
    z = tf.zeros([2, 3], dtype=tf.int32)
    assert z.op.type == "Const" and z.dtype == tf.int32 and z.op.name == "zeros"
    big = tf.ones([100, 100])
    assert big.op.type == "Fill" and _shape(big) == [100, 100]
    assert _run(tf.zeros([2], tf.bool)).tolist() == [False, False]
    assert _run(tf.zeros([1], tf.string)).tolist() == [b""]
    n = tf.placeholder(tf.int32, [2])
    assert _run(tf.ones(n), feed={n: [1, 2]}).tolist() == [[1.0, 1.0]]
    assert _shape(tf.fill([2, 3], 7)) == [2, 3]
    x = tf.placeholder(tf.float32, [None, 2])
    zl, ol = tf.zeros_like(x), tf.ones_like(x, dtype=tf.int32)
    assert zl.op.type == "ZerosLike" and _shape(ol) == [None, 2] and ol.dtype == tf.int32
    assert tf.zeros_like(x, dtype=tf.int64).dtype == tf.int64
    got = _run(zl, ol, feed={x: np.ones((3, 2))})
    assert got[0].shape == (3, 2) and got[1].tolist() == [[1, 1]] * 3


def test_range_dtype_inference_and_shapes():
    assert tf.range(5).dtype == tf.int32 and _shape(tf.range(5)) == [5]
    assert tf.range(1.0, 4).dtype == tf.float32
    assert tf.range(3, dtype=tf.float64).dtype == tf.float64
    assert tf.range(tf.constant(3, tf.int64)).dtype == tf.int64
    assert _shape(tf.range(0, 10, 3)) == [4]
    assert _run(tf.range(10, 0, -4)).tolist() == [10, 6, 2]
    assert _shape(tf.range(tf.placeholder(tf.int32, []))) == [None]
    with pytest.raises(ValueError, match="Requires delta != 0"):
        tf.range(0, 5, 0)
    assert _run(tf.linspace(0.0, 1.0, 5)).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]


def test_one_hot_dtypes_and_axis():
    h = tf.one_hot([0, 2], 3)
    assert h.dtype == tf.float32 and _shape(h) == [2, 3]
    assert tf.one_hot([0], 3, on_value=5).dtype == tf.int32
    assert _shape(tf.one_hot([[0, 1]], 4, axis=0)) == [4, 1, 2]
    with pytest.raises(TypeError):
        tf.one_hot([0], 3, on_value=1.0, dtype=tf.int32)
    assert _run(tf.one_hot([1, -1], 2, dtype=tf.int64)).tolist() == [[0, 1], [0, 0]]


def test_eye_meshgrid_band_part():
    assert _run(tf.eye(2)).tolist() == [[1, 0], [0, 1]]
    e = tf.eye(2, 3, batch_shape=[4], dtype=tf.int32)
    assert _shape(e) == [4, 2, 3] and e.dtype == tf.int32
    assert _run(e)[3].tolist() == [[1, 0, 0], [0, 1, 0]]
    xs, ys = tf.meshgrid([1, 2, 3], [4, 5])
    assert _shape(xs) == [2, 3]
    got = _run(xs, ys)
    np.testing.assert_array_equal(got[0], np.meshgrid([1, 2, 3], [4, 5])[0])
    np.testing.assert_array_equal(got[1], np.meshgrid([1, 2, 3], [4, 5])[1])
    b = tf.matrix_band_part(tf.ones([3, 3]), 0, -1)
    assert _run(b).tolist() == [[1, 1, 1], [0, 1, 1], [0, 0, 1]]


@pytest.mark.skipif(op_registry.lookup("Less") is None or op_registry.lookup("Max") is None,
                    reason="needs the math ops Less and Max")
def test_sequence_mask():
    m = tf.sequence_mask([1, 3], 4)
    assert _run(m).tolist() == [[True, False, False, False], [True, True, True, False]]
    assert _run(tf.sequence_mask([2, 1])).tolist() == [[True, True], [True, False]]
    assert tf.sequence_mask([1], 2, dtype=tf.float32).dtype == tf.float32


def test_cast_family():
    x = tf.constant([1.7, -1.7])
    assert tf.cast(x, tf.float32) is x
    assert tf.to_int32(x).op.name == "ToInt32" and tf.to_int64(x).dtype == tf.int64
    assert _run(tf.to_int32(x)).tolist() == [1, -1]
    assert _run(tf.cast(tf.constant([1 + 2j]), tf.float32)).tolist() == [1.0]
    assert tf.to_double(x).dtype == tf.float64 and tf.to_bfloat16(x).dtype == tf.bfloat16
    assert tf.cast([1, 2], tf.float32).dtype == tf.float32


@pytest.mark.skipif(op_registry.lookup("Maximum") is None, reason="needs Maximum/Minimum")
def test_saturate_cast():
    got = _run(tf.saturate_cast(tf.constant([-5.0, 300.0, 7.9]), tf.uint8))
    assert got.tolist() == [0, 255, 7] and got.dtype == np.uint8


def test_broadcasting_helpers():
    assert _shape(tf.broadcast_to(tf.zeros([3, 1]), [2, 3, 4])) == [2, 3, 4]
    with pytest.raises(ValueError, match="^Dimensions must be equal, but are 3 and 4 for"):
        tf.broadcast_to(tf.zeros([3]), [2, 4])
    assert tf.broadcast_static_shape(tf.TensorShape([2, 1]), tf.TensorShape([3])).as_list() == [
        2, 3]
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        tf.broadcast_static_shape(tf.TensorShape([2]), tf.TensorShape([3]))
    assert _run(tf.broadcast_dynamic_shape([2, 1], [3])).tolist() == [2, 3]


def test_identity_n_and_stop_gradient():
    a, b = tf.identity_n([tf.constant(1), tf.constant("s")])
    assert a.dtype == tf.int32 and b.dtype == tf.string
    assert _run(a, b) == [1, b"s"]
    assert tf.stop_gradient(a).op.type == "StopGradient"


def test_string_tensors_flow_through_array_ops():
    s = tf.placeholder(tf.string, [None])
    m = tf.reshape(s, [2, -1])
    out = tf.concat([tf.transpose(m), tf.tile(m, [1, 1])[:, :1]], 1)
    g = tf.gather(tf.stack([s, s]), 1)
    got = _run(out, g, feed={s: np.array([b"a", b"b", b"c", b"d"], dtype=object)})
    assert got[0].tolist() == [[b"a", b"c", b"a"], [b"b", b"d", b"c"]]
    assert got[1].tolist() == [b"a", b"b", b"c", b"d"]
