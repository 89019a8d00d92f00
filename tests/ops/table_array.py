"""Op-table rows for the array ops (array, concat, slicing, gather, range and cast families)."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.framework import ops
from tideflow.ops import slicing_ops

_NUM = (tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int32, tf.int64, tf.uint8,
        tf.complex64)
_ALL = _NUM + (tf.bool,)
_ALLS = _ALL + (tf.string,)
_INT = (tf.int32, tf.int64)


def _data(shape, start=0):
    """Inputs ``start, start+1, ...`` of ``shape`` in each dtype (bytes for strings)."""

    def make(np_dt):
        a = (np.arange(int(np.prod(shape))) + start).reshape(shape)
        if np.dtype(np_dt) == object:
            return np.array([str(v).encode() for v in a.ravel()], dtype=object).reshape(shape)
        if np.dtype(np_dt) == np.bool_:
            return a % 3 != 0
        return a.astype(np_dt)

    return make


def _raw(op_type, inputs, attrs=None):
    return ops.apply_op(op_type, inputs, attrs or {})._outputs


def _i(*v):
    return np.array(v, dtype=np.int32)


def _unique_ref(x):
    seen = {}
    idx = []
    for v in x.tolist():
        idx.append(seen.setdefault(v, len(seen)))
    y = np.array(list(seen), dtype=x.dtype)
    return [y, np.array(idx, dtype=np.int32)]


def _scatter_ref(idx, upd):
    out = np.zeros((5, 2), upd.dtype)
    np.add.at(out, idx[:, 0], upd)
    return out


def _band_ref(x, lo, hi):
    m, n = x.shape[-2:]
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    mask = ((lo < 0) | (i - j <= lo)) & ((hi < 0) | (j - i <= hi))
    return np.where(mask, x, np.zeros((), x.dtype))


def _concat_offset_ref(axis, *shapes):
    out, offset = [], 0
    for shp in shapes:
        o = np.zeros_like(shp)
        o[axis] = offset
        offset += shp[axis]
        out.append(o)
    return out


def _mirror_pad_grad_ref(shape, paddings, mode):
    """Sums each entry of the padded gradient onto the input entry np.pad copied it from."""

    def ref(g):
        src = np.pad(np.arange(int(np.prod(shape))).reshape(shape), paddings, mode)
        out = np.zeros(int(np.prod(shape)), g.dtype)
        np.add.at(out, src.ravel(), g.ravel())
        return out.reshape(shape)

    return ref


def _strided_slice_grad_ref(shape, index):
    def ref(dy):
        out = np.zeros(shape, dy.dtype)
        out[index] = dy
        return out

    return ref


def _slice_grad_op(dy, begin, end, strides, **masks):
    return slicing_ops.strided_slice_grad(_i(3, 4, 5), _i(*begin), _i(*end), _i(*strides), dy,
                                          **masks)


_CAST_TO = (tf.float32, tf.int32, tf.bool, tf.float64, tf.int64, tf.uint8, tf.bfloat16)


def _cast_ref(x):
    out = [np.real(x).astype(np.float64)]
    for d in _CAST_TO:
        if tf.as_dtype(x.dtype) == d:
            continue
        v = x
        if d == tf.bool:
            out.append(v != 0)
            continue
        if v.dtype.kind == "c":
            v = v.real
        out.append(v.astype(d.as_numpy_dtype))
    return out


def _cast_fn(x):
    # the float64 round trip through complex128 is lossless: it carries the gradient check
    exact = tf.cast(tf.cast(x, tf.complex128), tf.float64)
    return [exact] + [tf.cast(x, d) for d in _CAST_TO if d != x.dtype.base_dtype]


def _np_rows(x, rows, v, mode):
    out = x.copy()
    for r, row in zip(rows, v):
        out[r] = row if mode == "update" else (out[r] + row if mode == "add" else out[r] - row)
    return out


def _check_ref_identity():
    # the same ref: reads see the variable, assignments through it change the variable, and
    # the gradient passes through as Identity's
    from tideflow.python.ops import gen_array_ops

    with tf.Graph().as_default():
        v = tf.Variable(np.array([[1.0, 2.0], [3.0, 4.0]]))
        r = gen_array_ops.ref_identity(v)
        assert r.op.type == "RefIdentity" and r.dtype == tf.float64._as_ref
        assert r.get_shape().as_list() == [2, 2]
        (g,) = tf.gradients(tf.reduce_sum(r * 3.0), v)
        with tf.Session() as s:
            s.run(v.initializer)
            np.testing.assert_array_equal(s.run(r), [[1.0, 2.0], [3.0, 4.0]])
            s.run(tf.assign(r, [[5.0, 6.0], [7.0, 8.0]]))
            np.testing.assert_array_equal(s.run(v), [[5.0, 6.0], [7.0, 8.0]])
            np.testing.assert_array_equal(s.run(g), np.full((2, 2), 3.0))


def _check_cast_semantics():
    x = tf.constant([-2.7, -0.5, 0.0, 0.5, 2.7])
    with tf.Session() as s:
        ints, bools, back = s.run([tf.to_int32(x), tf.cast(x, tf.bool),
                                   tf.to_float(tf.constant([True, False]))])
    assert ints.tolist() == [-2, 0, 0, 0, 2]
    assert bools.tolist() == [True, True, False, True, True]
    assert back.tolist() == [1.0, 0.0] and back.dtype == np.float32


CASES = [
    Case("Identity", lambda x: tf.identity(x), [_data((2, 3))], lambda x: x, dtypes=_ALLS),
    Case("IdentityN", lambda x, y: tf.identity_n([x, y]), [_data((2, 3)), _data((4,))],
         lambda x, y: [x, y], dtypes=_ALLS),
    Case("StopGradient", lambda x: tf.stop_gradient(x), [_data((2, 3))], lambda x: x,
         dtypes=_ALL, grad=False),
    Case("Shape", lambda x: _raw("Shape", [x]) + _raw("Shape", [x], {"out_type": tf.int64}),
         [_data((2, 3, 1))],
         lambda x: [np.array(x.shape, np.int32), np.array(x.shape, np.int64)], dtypes=_ALLS,
         grad=False),
    Case("ShapeN", lambda x, y: _raw("ShapeN", [[x, y]]), [_data((2, 3)), _data((4,))],
         lambda x, y: [np.array(x.shape, np.int32), np.array(y.shape, np.int32)], dtypes=_ALLS,
         grad=False),
    Case("Size", lambda x: _raw("Size", [x]) + _raw("Size", [x], {"out_type": tf.int64}),
         [_data((2, 3))], lambda x: [np.int32(x.size), np.int64(x.size)], dtypes=_ALLS,
         grad=False),
    Case("Rank", lambda x: _raw("Rank", [x]), [_data((2, 3, 1))], lambda x: np.int32(x.ndim),
         dtypes=_ALLS, grad=False),
    Case("Reshape", lambda x: [tf.reshape(x, [4, -1]), tf.reshape(x, [24]),
                               tf.reshape(x[0, 0, 0], [1, 1])],
         [_data((2, 3, 4))], lambda x: [x.reshape(4, -1), x.reshape(24), np.reshape(x[0, 0, 0], (1, 1))],
         dtypes=_ALLS),
    Case("Reshape", lambda x, s: tf.reshape(x, s), [_data((2, 3, 4)), _i(3, -1)],
         lambda x, s: x.reshape(3, 8), fixed=(1,), dtypes=(tf.float32, tf.string),
         name="Reshape_fed_shape"),
    Case("Squeeze", lambda x: [tf.squeeze(x), tf.squeeze(x, [2]), tf.squeeze(x, axis=-4),
                               tf.squeeze(x, squeeze_dims=[0, 2])],
         [_data((1, 3, 1, 2))],
         lambda x: [x.reshape(3, 2), x.reshape(1, 3, 2), x.reshape(3, 1, 2), x.reshape(3, 2)],
         dtypes=_ALLS),
    Case("ExpandDims", lambda x: [tf.expand_dims(x, 0), tf.expand_dims(x, -1),
                                  tf.expand_dims(x, dim=1)],
         [_data((2, 3))], lambda x: [x[None], x[..., None], x[:, None]], dtypes=_ALLS),
    Case("Transpose", lambda x: [tf.transpose(x), tf.transpose(x, [1, 0, 2])],
         [_data((2, 3, 4))], lambda x: [x.transpose(), x.transpose(1, 0, 2)], dtypes=_ALLS),
    Case("Transpose", lambda x, p: tf.transpose(x, p), [_data((2, 3, 4)), _i(2, 0, 1)],
         lambda x, p: x.transpose(2, 0, 1), fixed=(1,), name="Transpose_fed_perm"),
    Case("ConjugateTranspose", lambda x: tf.transpose(x, [1, 0, 2], conjugate=True),
         [_data((2, 3, 4))], lambda x: np.conj(x.transpose(1, 0, 2)),
         dtypes=(tf.complex64, tf.complex128)),
    Case("Pack", lambda x, y: [tf.stack([x, y]), tf.stack([x, y], axis=2),
                               tf.pack([x, y], axis=-2)],
         [_data((2, 3)), _data((2, 3), 6)],
         lambda x, y: [np.stack([x, y]), np.stack([x, y], 2), np.stack([x, y], -2)],
         dtypes=_ALLS),
    Case("Unpack", lambda x: tf.unstack(x, num=2) + tf.unpack(x, 3, axis=1), [_data((2, 3))],
         lambda x: list(x) + list(x.T), dtypes=_ALLS),
    Case("Fill", lambda v: [tf.fill([2, 3], v), tf.fill(tf.shape(tf.zeros([4, 1])), v)],
         [_data((), 5)], lambda v: [np.full((2, 3), v), np.full((4, 1), v)], dtypes=_ALLS),
    Case("ZerosLike", lambda x: tf.zeros_like(x), [_data((2, 3))],
         lambda x: np.zeros_like(x), dtypes=_ALL, grad=False),
    Case("OnesLike", lambda x: _raw("OnesLike", [x]), [_data((2, 3))],
         lambda x: np.ones_like(x), dtypes=_ALL, grad=False),
    Case("BroadcastTo", lambda x: [tf.broadcast_to(x, [2, 3, 4]), tf.broadcast_to(x, [3, 1])],
         [_data((3, 1))],
         lambda x: [np.broadcast_to(x, (2, 3, 4)), x], dtypes=_ALLS),
    Case("BroadcastTo", lambda x, s: tf.broadcast_to(x, s), [_data((3, 1)), _i(2, 3, 4)],
         lambda x, s: np.broadcast_to(x, s), fixed=(1,), name="BroadcastTo_fed_shape"),
    Case("BroadcastArgs", lambda a, b: tf.broadcast_dynamic_shape(a, b),
         [np.array([2, 1, 3]), np.array([4, 1])], lambda a, b: np.array([2, 4, 3], a.dtype),
         dtypes=_INT, grad=False),
    # concat_ops
    Case("ConcatV2", lambda x, y: [tf.concat([x, y], 1), tf.concat([x, x], 0),
                                   tf.concat([x, y, x], -1), tf.concat(1, [y, x])],
         [_data((2, 3)), _data((2, 2), 10)],
         lambda x, y: [np.concatenate([x, y], 1), np.concatenate([x, x], 0),
                       np.concatenate([x, y, x], 1), np.concatenate([y, x], 1)],
         dtypes=_ALLS),
    Case("Concat", lambda x, y: _raw("Concat", [1, [x, y]]), [_data((2, 3)), _data((2, 2), 10)],
         lambda x, y: np.concatenate([x, y], 1), dtypes=_ALLS),
    Case("ConcatV2", lambda x, y, a: tf.concat([x, y], a), [_data((2, 3)), _data((2, 3)),
                                                            np.array(0, np.int32)],
         lambda x, y, a: np.concatenate([x, y], 0), fixed=(2,), name="ConcatV2_fed_axis"),
    Case("ConcatOffset", lambda a, *s: _raw("ConcatOffset", [a, list(s)]),
         [np.array(1, np.int32), _i(2, 3, 5), _i(2, 4, 5), _i(2, 1, 5)],
         lambda a, *s: _concat_offset_ref(a, *s), fixed=(0,), dtypes=_INT, grad=False),
    Case("Split", lambda x: tf.split(x, 2, 0) + tf.split(x, 3, axis=1) + tf.split(1, 2, x),
         [_data((4, 6))],
         lambda x: np.split(x, 2, 0) + np.split(x, 3, 1) + np.split(x, 2, 1), dtypes=_ALLS),
    Case("SplitV", lambda x: tf.split(x, [1, 3, 2], 1) + tf.split(x, [-1, 1], 0),
         [_data((4, 6))],
         lambda x: np.split(x, [1, 4], 1) + np.split(x, [3], 0), dtypes=_ALLS),
    Case("Tile", lambda x: [tf.tile(x, [2, 1]), tf.tile(x, [1, 3]), tf.tile(x, [0, 1])],
         [_data((2, 3))], lambda x: [np.tile(x, (2, 1)), np.tile(x, (1, 3)), np.tile(x, (0, 1))],
         dtypes=_ALLS),
    Case("Pad", lambda x: tf.pad(x, [[1, 0], [2, 1]]), [_data((2, 3), 1)],
         lambda x: np.pad(x, [(1, 0), (2, 1)]), dtypes=_ALL),
    # as in TF, constant_values gets no gradient
    Case("PadV2", lambda x, c: tf.pad(x, [[1, 0], [0, 2]], constant_values=c),
         [_data((2, 3)), _data((), 7)],
         lambda x, c: np.pad(x, [(1, 0), (0, 2)], constant_values=c), dtypes=_ALL,
         grad_inputs=[0]),
    Case("MirrorPad", lambda x: [tf.pad(x, [[1, 1], [2, 1]], "REFLECT"),
                                 tf.pad(x, [[2, 0], [3, 1]], mode="symmetric")],
         [_data((3, 4))],
         lambda x: [np.pad(x, [(1, 1), (2, 1)], "reflect"), np.pad(x, [(2, 0), (3, 1)],
                                                                  "symmetric")],
         dtypes=_ALL),
    Case("Tile", lambda x, m: tf.tile(x, m), [_data((2, 3)), _i(2, 2)],
         lambda x, m: np.tile(x, m), fixed=(1,), name="Tile_fed_multiples"),
    Case("Pad", lambda x, p: tf.pad(x, p), [_data((2, 3), 1), _i(1, 0, 2, 1).reshape(2, 2)],
         lambda x, p: np.pad(x, p), fixed=(1,), name="Pad_fed_paddings"),
    Case("MirrorPad", lambda x, p: tf.pad(x, p, "SYMMETRIC"),
         [_data((3, 4)), _i(2, 0, 3, 1).reshape(2, 2)],
         lambda x, p: np.pad(x, p, "symmetric"), fixed=(1,), name="MirrorPad_fed_paddings"),
    Case("MirrorPadGrad",
         lambda g, h: [_raw("MirrorPadGrad", [g, [[1, 1], [2, 1]]], {"mode": "REFLECT"})[0],
                       _raw("MirrorPadGrad", [h, [[2, 0], [3, 1]]], {"mode": "SYMMETRIC"})[0]],
         [_data((5, 7)), _data((5, 8), 3)],
         lambda g, h: [_mirror_pad_grad_ref((3, 4), [(1, 1), (2, 1)], "reflect")(g),
                       _mirror_pad_grad_ref((3, 4), [(2, 0), (3, 1)], "symmetric")(h)],
         dtypes=_NUM),
    Case("Reverse", lambda x: _raw("Reverse", [x, [True, False, True]]), [_data((2, 3, 4))],
         lambda x: x[::-1, :, ::-1], dtypes=tuple(d for d in _ALLS if d != tf.bfloat16)),
    Case("ReverseV2", lambda x: [tf.reverse(x, [0, 2]), tf.reverse_v2(x, [-1]),
                                 tf.reverse(x, [])],
         [_data((2, 3, 4))], lambda x: [x[::-1, :, ::-1], x[..., ::-1], x], dtypes=_ALLS),
    # slicing_ops
    Case("Slice", lambda x: [tf.slice(x, [1, 0], [2, -1]), tf.slice(x, [0, 1], [0, 2])],
         [_data((3, 4))], lambda x: [x[1:3, :], x[0:0, 1:3]], dtypes=_ALLS),
    Case("Slice", lambda x, b: tf.slice(x, b, [2, -1]), [_data((3, 4)), _i(1, 2)],
         lambda x, b: x[1:3, 2:], fixed=(1,), name="Slice_fed_begin"),
    Case("StridedSlice",
         lambda x: [x[1], x[:, ::-2, 1:4], x[..., None, -1], x[-2:, tf.newaxis, 1::2, :],
                    x[::2, ..., 0], x[...], x[5:], x[1, 2, 3], x[:, -10:10:3]],
         [_data((3, 4, 5))],
         lambda x: [x[1], x[:, ::-2, 1:4], x[..., None, -1], x[-2:, None, 1::2, :],
                    x[::2, ..., 0], x, x[5:], x[1, 2, 3], x[:, -10:10:3]],
         dtypes=_ALLS),
    Case("StridedSlice", lambda x, i: [x[i], x[i:i + 2, i], x[:, ::i]],
         [_data((3, 4)), np.array(1, np.int32)], lambda x, i: [x[1], x[1:3, 1], x[:, ::1]],
         fixed=(1,), dtypes=(tf.float32, tf.int64, tf.string), name="StridedSlice_tensor_index"),
    Case("StridedSliceGrad",
         lambda a, b: [_slice_grad_op(a, [0, 0, 1], [0, 0, 4], [1, -2, 1], begin_mask=3,
                                      end_mask=3),
                       _slice_grad_op(b, [1, 0, 0, -1], [2, 0, 0, 0], [1, 1, 1, 1],
                                      shrink_axis_mask=9, new_axis_mask=2, ellipsis_mask=4)],
         [_data((3, 2, 3)), _data((1, 4), 5)],
         lambda a, b: [_strided_slice_grad_ref((3, 4, 5), np.s_[:, ::-2, 1:4])(a),
                       _strided_slice_grad_ref((3, 4, 5), np.s_[1, None, ..., -1])(b)],
         dtypes=_NUM),
    # gather_ops
    Case("GatherV2", lambda x, a: tf.gather(x, [2, 0, 2], axis=a),
         [_data((3, 4)), np.array(-1, np.int32)], lambda x, a: np.take(x, [2, 0, 2], axis=a),
         fixed=(1,), name="GatherV2_fed_axis"),
    Case("Gather", lambda x: _raw("Gather", [x, [2, 0, 2]]), [_data((3, 2))],
         lambda x: x[[2, 0, 2]], dtypes=_ALLS),
    Case("GatherV2", lambda x: [tf.gather(x, [[1, 0], [2, 2]]), tf.gather(x, [1], axis=1),
                                tf.gather(x, 2), tf.gather(x, np.array([3, 0], np.int64), axis=-1)],
         [_data((3, 4))],
         lambda x: [x[[[1, 0], [2, 2]]], x[:, [1]], x[2], x[:, [3, 0]]], dtypes=_ALLS),
    Case("GatherV2", lambda x, i: tf.gather(x, i), [_data((3, 4)), _i(2, 1)],
         lambda x, i: x[i], fixed=(1,), dtypes=(tf.float32, tf.string), name="GatherV2_fed"),
    Case("GatherNd", lambda x: [tf.gather_nd(x, [[0, 1], [2, 3]]), tf.gather_nd(x, [[1], [0]])],
         [_data((3, 4))], lambda x: [x[[0, 2], [1, 3]], x[[1, 0]]], dtypes=_ALLS),
    # (a scalar gathered: TF 1.15's gradient, a ScatterNd of a scalar, fails its shape function)
    Case("GatherNd", lambda x: tf.gather_nd(x, [1, 2]), [_data((3, 4))], lambda x: x[1, 2],
         dtypes=_ALLS, grad=False, name="GatherNd_scalar"),
    Case("ScatterNd", lambda i, u: tf.scatter_nd(i, u, [5, 2]),
         [np.array([[1], [3], [1]], np.int32), _data((3, 2))], _scatter_ref, fixed=(0,),
         dtypes=_NUM),
    # (TF 1.15's CPU Where refuses float16: UnimplementedError, test_dtype_fuzz_parity28)
    Case("Where", lambda x: tf.where(x), [_data((2, 3))],
         lambda x: np.argwhere(x).astype(np.int64), dtypes=[d for d in _ALL if d != tf.float16],
         grad=False),
    Case("Select", lambda c, v, x, y: [tf.where(c, x, y), tf.where(v, x, y), tf.select(c, y, x)],
         [np.array([[True, False, True], [False, False, True]]), np.array([False, True]),
          _data((2, 3)), _data((2, 3), 10)],
         lambda c, v, x, y: [np.where(c, x, y), np.where(v[:, None], x, y), np.where(c, y, x)],
         fixed=(0, 1), dtypes=_ALLS),
    Case("SelectV2", lambda c, x, y: tf.where_v2(c, x, y),
         [np.array([[[True, False, True]], [[False, False, True]]]), _data((1, 3)),
          _data((2, 2, 1), 10)],
         lambda c, x, y: np.where(c, x, y), fixed=(0,), name="SelectV2_broadcast"),
    Case("SelectV2", lambda c, x, y: tf.where_v2(c, x, y),
         [np.array([True, False, True]), _data((2, 3)), _data((), 10)],
         lambda c, x, y: np.where(c, x, y), fixed=(0,), dtypes=_ALLS),
    Case("Unique", lambda x: list(tf.unique(x)), [lambda d: np.array([4, 1, 4, 2, 1, 5]).astype(d)
                                                   if np.dtype(d) != object else
                                                   np.array([b"b", b"a", b"b"], dtype=object)],
         _unique_ref, dtypes=_NUM[:-1] + (tf.string,), grad=False),  # (TF: no complex kernel)
    Case("InvertPermutation", lambda x: tf.invert_permutation(x), [np.array([2, 0, 3, 1])],
         lambda x: np.argsort(x).astype(x.dtype), dtypes=_INT, grad=False),
    # cast_ops
    Case("Cast", _cast_fn, [lambda d: np.array([0, 1, 2, 7, 3]).astype(d)], _cast_ref,
         dtypes=_ALL),
    Case("Cast", check=_check_cast_semantics, name="Cast_semantics"),
    Case("RefIdentity", check=_check_ref_identity),
    Case("InplaceUpdate", lambda x, v: tf.raw_ops.InplaceUpdate(x=x, i=_i(2, -4), v=v),
         [_data((4, 3)), _data((2, 3), 20)],
         lambda x, v: _np_rows(x, [2, 0], v, "update"), dtypes=_ALLS, grad=False),
    Case("InplaceAdd", lambda x, v: tf.raw_ops.InplaceAdd(x=x, i=_i(1, 3, 1), v=v),
         [_data((4, 3)), _data((3, 3), 20)],
         lambda x, v: _np_rows(x, [1, 3, 1], v, "add"), dtypes=_NUM, grad=False),
    Case("InplaceSub", lambda x, v: tf.raw_ops.InplaceSub(x=x, i=_i(0, -1), v=v),
         [_data((4, 3)), _data((2, 3), 20)],
         lambda x, v: _np_rows(x, [0, 3], v, "sub"), dtypes=_NUM, grad=False),
    Case("DeepCopy", lambda x: tf.raw_ops.DeepCopy(x=x), [_data((2, 3))], lambda x: x.copy(),
         dtypes=_ALLS, grad=False),
    Case("Empty", lambda: tf.raw_ops.Empty(shape=_i(2, 0, 3), dtype=tf.float32, init=True),
         [], lambda: [np.zeros((2, 0, 3), np.float32)], grad=False),
    Case("ParallelConcat",
         lambda x, y: tf.raw_ops.ParallelConcat(values=[x, y], shape=[2, 3]),
         [_data((1, 3)), _data((1, 3), 10)], lambda x, y: [np.concatenate([x, y])],
         dtypes=_ALLS, grad=False, unknown_shape=False),  # TF: inputs of fully known shape
    # range_ops
    Case("Range", lambda s, lim, d: tf.range(s, lim, d, dtype=s.dtype),
         [np.array(1), np.array(10), np.array(2)],
         lambda s, lim, d: np.arange(s, lim, d).astype(s.dtype),
         dtypes=(tf.int32, tf.int64, tf.float32, tf.float64, tf.bfloat16), grad=False),
    Case("Range", lambda: [tf.range(5), tf.range(10, 1, -3), tf.range(0.5, 2), tf.range(3, 3)],
         [], lambda: [np.arange(5, dtype=np.int32), np.array([10, 7, 4], np.int32),
                      np.array([0.5, 1.5], np.float32), np.zeros([0], np.int32)],
         dtypes=(tf.int32,), grad=False, name="Range_consts"),
    Case("LinSpace", lambda a, b, n: tf.linspace(a, b, n),
         [np.array(1.0), np.array(5.0), np.array(5, np.int32)],
         lambda a, b, n: np.linspace(a, b, n).astype(a.dtype), fixed=(2,),
         dtypes=(tf.float32, tf.float64, tf.bfloat16), grad=False),
    Case("OneHot", lambda i, on, off: [tf.one_hot(i, 4, on, off), tf.one_hot(i, 3, on, off, 0)],
         [np.array([0, 2, -1, 5]), _data((), 3), _data((), 1)],
         lambda i, on, off: [np.where(i[:, None] == np.arange(4), on, off),
                             np.where(i[None, :] == np.arange(3)[:, None], on, off)],
         fixed=(0,), dtypes=_ALL, grad=False),
    Case("MatrixBandPart",
         lambda x: [tf.matrix_band_part(x, 1, 0), tf.matrix_band_part(x, -1, 1),
                    tf.matrix_band_part(x, 0, -1)],
         [_data((2, 3, 4), 1)],
         lambda x: [_band_ref(x, 1, 0), _band_ref(x, -1, 1), _band_ref(x, 0, -1)],
         dtypes=_ALL),
]
