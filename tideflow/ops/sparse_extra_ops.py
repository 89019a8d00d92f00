"""Sparse ops of TF 1.x's later releases: SparseSoftmax, SparseSparseMaximum/Minimum,
SparseSplit, SparseReduceSumSparse/MaxSparse, SerializeManySparse/DeserializeManySparse,
EditDistance; and the composed ``sparse_merge``, ``sparse_reset_shape``, ``sparse_expand_dims``,
``sparse_eye``, ``from_dense``, ``sparse_mask`` and ``serialize_sparse``."""

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.indexed_slices import IndexedSlices
from tideflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tideflow.framework.tensor_shape import TensorShape, unknown_shape
from tideflow.framework.wire_format import decode_varint as _varint_at
from tideflow.framework.wire_format import encode_varint as _varint
from tideflow.ops.sparse_ops import (
    _as_sparse,
    _check_same_shapes,
    _check_sparse,
    _merge,
    _order,
    _rank_of,
    _validate_index_order,
    eigen_group_sums,
)


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _groups(idx):
    """Row ids of ``idx`` grouped by all but the last column: (keys, inverse)."""
    if idx.shape[0] == 0:
        return np.zeros((0, max(idx.shape[1] - 1, 0)), np.int64), np.zeros(0, np.int64)
    lead = idx[:, :-1]
    if lead.shape[1] == 0:
        keys, inverse = np.unique(lead, axis=0, return_inverse=True)
        return keys, inverse.reshape(-1)
    # np.unique(lead, axis=0)'s keys and inverse (rows in lexicographic order) by a lexsort
    # of the columns: np.unique sorts the rows as opaque records, 10x slower
    order = np.lexsort(lead.T[::-1])
    ordered = lead[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = (ordered[1:] != ordered[:-1]).any(1)
    inverse = np.empty(len(order), dtype=np.intp)
    inverse[order] = np.cumsum(new) - 1
    return ordered[new], inverse


# ------------------------------------------------------------------------------------------
# SparseSoftmax
# ------------------------------------------------------------------------------------------


def _sparse_softmax_kernel(sp_indices, sp_values, sp_shape):
    if np.size(sp_shape) < 2:
        # (TF's words, with the shape's values; checked before the tensor itself, as TF)
        raise _invalid(f"Input should have rank >= 2, but received shape: "
                       f"{' '.join(str(int(d)) for d in np.asarray(sp_shape).reshape(-1))}")
    idx, vals, _ = _check_sparse(sp_indices, sp_values, sp_shape)
    out = np.empty_like(vals)
    if vals.size == 0:
        return out
    if vals.dtype == np.float32:
        return _sparse_softmax_float32(idx, vals)
    _, inv = _groups(idx)
    # in the values' dtype, as TF's kernel
    mx = np.full(inv.max() + 1, -np.inf, vals.dtype)
    np.maximum.at(mx, inv, vals)
    e = np.exp(vals - mx[inv])
    s = np.zeros_like(mx)
    np.add.at(s, inv, e)
    out = (e * (np.ones_like(s) / s)[inv]).astype(vals.dtype)  # (TF scales by the inverse)
    # as TF's kernel, which reorders its copy of the input and writes the values out in
    # row-major index order: unsorted indices get the values of the sorted ones (GAT's sparse
    # heads, fed (col, row) pairs, rely on that pairing)
    return out[np.lexsort(idx.T[::-1])]


def _sparse_softmax_float32(idx, vals):
    """TF 1.15's float kernel bit for bit: the entries in row-major index order, each group
    (all but the last index) shifted by its max, Eigen's exp on the group (packets of 8, the
    last ``size % 8`` by glibc's expf), the group's sum in Eigen's lane order, its inverse
    times each value; written out in that order."""
    from tideflow.ops import eigen_float32 as ef
    from tideflow.ops.eigen_softmax import row_sum

    order = np.lexsort(idx.T[::-1])
    v, lead = vals[order], idx[order, :-1]
    n = v.size
    new = np.ones(n, dtype=bool)
    new[1:] = (lead[1:] != lead[:-1]).any(1)
    starts = np.flatnonzero(new)
    sizes = np.diff(np.append(starts, n))
    gid = np.cumsum(new) - 1
    pos = np.arange(n) - starts[gid]
    with np.errstate(invalid="ignore"):
        shifted = v - np.maximum.reduceat(v, starts)[gid]
    e = ef._packet_exp(shifted.copy())
    size = sizes[gid]
    tail = pos >= size - size % 8
    if tail.any():
        e[tail] = ef._expf(shifted[tail])
    ef._flush_denormals(e)
    sums = np.empty(starts.size, np.float32)
    for k in np.unique(sizes):  # the groups of one size as the rows of a matrix
        rows = np.flatnonzero(sizes == k)
        sums[rows] = row_sum(e[starts[rows][:, None] + np.arange(k)])
    with np.errstate(divide="ignore"):
        inverse = np.float32(1) / sums
    return e * inverse[gid]


def _sparse_softmax_grad(op, grad):
    # TF 1.15's: the softmax gradient on the values, its row sums by a SparseReduceSum kept
    # to rank and subtracted through SparseDenseCwiseAdd
    indices, shape = op._inputs[0], op._inputs[2]
    out = op._outputs[0]
    prod = out * grad
    row_sums = ops.apply_op("SparseReduceSum", [indices, prod, shape, [-1]],
                            {"keep_dims": True})._outputs[0]
    shifted = ops.apply_op("SparseDenseCwiseAdd",
                           [indices, grad, shape, -row_sums])._outputs[0]
    return [None, shifted * out, None]


op_registry.declare(
    "SparseSoftmax",
    inputs=["sp_indices: int64", "sp_values: T", "sp_shape: int64"],
    outputs=["output: T"],
    attrs=["T: {float, double}"],
    shape=lambda op: [op._inputs[1]._shape.merge_with(unknown_shape(1))],
    kernel=_sparse_softmax_kernel,
    grad=_sparse_softmax_grad,
)


def sparse_softmax(sp_input, name=None):
    """Softmax over the last dimension of a SparseTensor, among its present entries only
    (missing entries are not -inf zeros but absent). Indices must be in canonical order."""
    sp_input = _as_sparse(sp_input)
    with ops.name_scope(name, "SparseSoftmax", [sp_input.indices, sp_input.values]):
        out = ops.apply_op("SparseSoftmax", [sp_input.indices, sp_input.values,
                                             sp_input.dense_shape])._outputs[0]
        return SparseTensor(sp_input.indices, out, sp_input.dense_shape)


# ------------------------------------------------------------------------------------------
# SparseSparseMaximum / Minimum
# ------------------------------------------------------------------------------------------


def _sparse_sparse_kernel(op_type, fn):
    def kernel(a_indices, a_values, a_shape, b_indices, b_values, b_shape):
        na, nb = np.shape(a_indices)[0], np.shape(b_indices)[0]
        if np.size(a_values) != na or np.size(b_values) != nb:  # (TF's words)
            raise _invalid(f"Expected {na} and {nb} non-empty input values, got "
                           f"{np.size(a_values)} and {np.size(b_values)}")
        ai, av, ash = _check_sparse(a_indices, a_values, a_shape, "a")
        bi, bv, bsh = _check_sparse(b_indices, b_values, b_shape, "b")
        _check_same_shapes(ash, bsh)
        if av.dtype.kind == "c":
            # the op def (SparseSparseMinimum's) admits complex types, no kernel takes them
            raise _invalid(f"No OpKernel was registered to support Op '{op_type}' with these "
                           f"attrs: [T=DT_{dtypes.as_dtype(av.dtype).name.upper()}]")
        # as TF: one merge walk of the two index lists (sorted ones give their union in
        # order; unsorted ones give what the same walk gives), a missing value counting as 0
        rows, vals = [], []
        for i, j in _merge(ai, bi):
            rows.append(ai[i] if i is not None else bi[j])
            vals.append(fn(0 if i is None else av[i], 0 if j is None else bv[j]))
        out_i = np.array(rows, np.int64).reshape(-1, ash.shape[0])
        out_v = np.array(vals, av.dtype).reshape(-1)
        return out_i, out_v

    return kernel


def _sparse_sparse_grad(name):
    def grad(op, *grads):
        # as TF 1.15, whose gradient function for these ops takes one gradient too few:
        # asking for a gradient through them is this TypeError
        raise TypeError(f"_{name}Grad() takes 2 positional arguments but 3 were given")

    return grad


# TF 1.15 declares SparseSparseMinimum over numbertype (complex included) but
# SparseSparseMaximum over realnumbertype
for _name, _fn, _types in (("SparseSparseMaximum", max, "realnumbertype"),
                           ("SparseSparseMinimum", min, "numbertype")):
    op_registry.declare(
        _name,
        inputs=["a_indices: int64", "a_values: T", "a_shape: int64", "b_indices: int64",
                "b_values: T", "b_shape: int64"],
        outputs=["output_indices: int64", "output_values: T"],
        attrs=[f"T: {_types}"],
        # TF's shape function leaves both index dimensions unknown
        shape=lambda op: [TensorShape([None, None]), TensorShape([None])],
        kernel=_sparse_sparse_kernel(_name, _fn),
        grad=_sparse_sparse_grad(_name),
    )


def _sparse_sparse(op_type, sp_a, sp_b, name):
    sp_a, sp_b = _as_sparse(sp_a, "sp_a"), _as_sparse(sp_b, "sp_b")
    # as TF: the op itself takes the name (no scope around it)
    idx, vals = ops.apply_op(op_type, [sp_a.indices, sp_a.values, sp_a.dense_shape,
                                       sp_b.indices, sp_b.values, sp_b.dense_shape],
                             name=name)._outputs
    return SparseTensor(idx, vals, sp_a.dense_shape)


def sparse_maximum(sp_a, sp_b, name=None):
    """The elementwise maximum of two same-shaped SparseTensors (absent entries count as 0)."""
    return _sparse_sparse("SparseSparseMaximum", sp_a, sp_b, name)


def sparse_minimum(sp_a, sp_b, name=None):
    """The elementwise minimum of two same-shaped SparseTensors (absent entries count as 0)."""
    return _sparse_sparse("SparseSparseMinimum", sp_a, sp_b, name)


# ------------------------------------------------------------------------------------------
# SparseSplit
# ------------------------------------------------------------------------------------------


def _sparse_split_kernel(split_dim, indices, values, shape, *, num_split):
    idx, vals, shp = _check_sparse(indices, values, shape)
    rank = shp.shape[0]
    d = int(split_dim)
    # TF 1.15's checks and words (a negative split_dim is not taken)
    if d >= rank:
        raise _invalid(f"Input split_dim should be between 0 and rank ({rank}), got {d}")
    if d < 0:
        raise _invalid(f"num_dim must be in the interval [0, {rank})")
    size = int(shp[d])
    if not 1 <= num_split <= size:
        raise _invalid(f"Input num_split should be between 1 and the splitting dimension size "
                       f"({size}), got {num_split}")
    base, extra = divmod(size, num_split)
    starts = [i * base + min(i, extra) for i in range(num_split + 1)]
    out_i, out_v, out_s = [], [], []
    for k in range(num_split):
        lo, hi = starts[k], starts[k + 1]
        keep = (idx[:, d] >= lo) & (idx[:, d] < hi)
        ii = idx[keep].copy()
        ii[:, d] -= lo
        s = shp.copy()
        s[d] = hi - lo
        out_i.append(ii)
        out_v.append(vals[keep])
        out_s.append(s)
    return out_i + out_v + out_s


def _sparse_split_shape(op):
    n = op._attrs["num_split"]
    rank = _rank_of(op._inputs[3])
    return ([TensorShape([None, rank])] * n + [TensorShape([None])] * n +
            [TensorShape([rank])] * n)


def _sparse_split_shape_value(op, i):
    # the output shapes are known when split_dim and the input's shape are: TF's shape
    # inference evaluates such constant inputs, so to_dense of a piece has a static shape
    n = op._attrs["num_split"]
    if i < 2 * n:
        return None
    d, shp = ops.constant_value(op._inputs[0]), ops.constant_value(op._inputs[3])
    if d is None or shp is None:
        return None
    shp = np.array(shp, np.int64).reshape(-1)
    d = int(d)
    if not 0 <= d < shp.shape[0]:  # (the op fails when run)
        return None
    base, extra = divmod(int(shp[d]), n)
    shp[d] = base + (1 if i - 2 * n < extra else 0)
    return shp


op_registry.declare(
    "SparseSplit",
    inputs=["split_dim: int64", "indices: int64", "values: T", "shape: int64"],
    outputs=["output_indices: num_split * int64", "output_values: num_split * T",
             "output_shape: num_split * int64"],
    attrs=["num_split: int >= 1", "T: type"],
    shape=_sparse_split_shape,
    kernel=_sparse_split_kernel,
    # (as TF 1.15: no gradient defined, so tf.gradients through it is a LookupError)
)
# (only while shapes are inferred: TF's Python constant_value leaves the pieces' dense shapes
# unknown, so a piece's get_shape() is (?, ?) while to_dense of it has a static shape)
ops.register_constant_value("SparseSplit", _sparse_split_shape_value, shape_inference_only=True)


def sparse_split(keyword_required=None, sp_input=None, num_split=None, axis=None, name=None,
                 split_dim=None):
    """Splits a SparseTensor into ``num_split`` SparseTensors along ``axis`` (the first
    ``size % num_split`` pieces are one longer). Arguments must be given by keyword."""
    if keyword_required is not None:
        raise ValueError("Keyword arguments are required for this function.")
    if sp_input is None:
        raise ValueError("sp_input is required")
    if num_split is None:
        raise ValueError("num_split is required")
    from tideflow.ops.reduction_ops import _deprecated

    # (split_dim alone is taken, as 1.0 named it; TF 1.15 asks for axis even then)
    axis = _deprecated("axis", axis, "split_dim", split_dim)
    if axis is None:
        raise ValueError("axis is required")
    sp_input = _as_sparse(sp_input)
    # (the axis is made a tensor by the op, in its scope: SparseSplit/split_dim)
    op = ops.apply_op("SparseSplit", [axis, sp_input.indices, sp_input.values,
                                      sp_input.dense_shape],
                      {"num_split": int(num_split)}, name=name)
    outs = op._outputs
    n = int(num_split)
    return [SparseTensor(outs[i], outs[n + i], outs[2 * n + i]) for i in range(n)]


# ------------------------------------------------------------------------------------------
# SparseReduceSumSparse / SparseReduceMaxSparse
# ------------------------------------------------------------------------------------------


def _reduce_sparse_kernel(kind):
    def kernel(input_indices, input_values, input_shape, reduction_axes, *, keep_dims):
        # (as TF: the axes are checked before the sparse tensor itself)
        rank = np.size(input_shape)
        axes = set()
        for a in np.asarray(reduction_axes).reshape(-1).tolist():
            if not -rank <= a < rank:
                raise _invalid(f"Invalid reduction dimension {a}, for input with {rank} "
                               "dimensions.")
            axes.add(a % rank)
        idx, vals, shape = _check_sparse(input_indices, input_values, input_shape)
        keep = [i for i in range(rank) if i not in axes]
        if keep_dims:
            out_idx = idx.copy()
            out_idx[:, sorted(axes)] = 0
            out_shape = shape.copy()
            out_shape[sorted(axes)] = 1
        else:
            out_idx = idx[:, keep]
            out_shape = shape[keep]
        if out_idx.shape[0] == 0:
            return out_idx.reshape(0, out_shape.shape[0]), vals[:0], out_shape
        keys, inv = np.unique(out_idx, axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        if kind == "sum" and vals.dtype == np.float32:
            # (the groups come in the order of np.unique's keys: their kept columns sorted)
            out = eigen_group_sums(idx, vals, keep, sorted(axes))[1]
        elif kind == "sum":
            out = np.zeros(keys.shape[0], vals.dtype)
            np.add.at(out, inv, vals)
        else:
            out = np.full(keys.shape[0], vals.min(), vals.dtype)
            np.maximum.at(out, inv, vals)
        order = _order(keys)
        return keys[order].astype(np.int64), out[order], out_shape

    return kernel


for _name, _kind in (("SparseReduceSumSparse", "sum"), ("SparseReduceMaxSparse", "max")):
    op_registry.declare(
        _name,
        inputs=["input_indices: int64", "input_values: T", "input_shape: int64",
                "reduction_axes: int32"],
        outputs=["output_indices: int64", "output_values: T", "output_shape: int64"],
        attrs=["keep_dims: bool = false",
               "T: numbertype" if _kind == "sum" else "T: realnumbertype"],
        # (as TF: no shape function, so nothing is known of the outputs)
        shape=lambda op: [unknown_shape(), unknown_shape(), unknown_shape()],
        kernel=_reduce_sparse_kernel(_kind),
        # (as TF 1.15: no gradient defined, so tf.gradients through it is a LookupError)
    )


def _reduce_sparse(op_type, sp_input, axis, keepdims, reduction_axes, keep_dims):
    from tideflow.ops.sparse_ops import _reduction_dims

    sp_input = _as_sparse(sp_input)
    if keepdims is None:
        keepdims = bool(keep_dims)
    if axis is None:
        axis = reduction_axes
    out = ops.apply_op(op_type, [sp_input.indices, sp_input.values, sp_input.dense_shape,
                                 _reduction_dims(sp_input, axis)],
                       {"keep_dims": bool(keepdims)})._outputs
    return SparseTensor(*out)


def sparse_reduce_sum_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None,
                             keep_dims=None):
    """The sum over ``axis`` of a SparseTensor, as a SparseTensor."""
    return _reduce_sparse("SparseReduceSumSparse", sp_input, axis, keepdims, reduction_axes,
                          keep_dims)


def sparse_reduce_max_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None,
                             keep_dims=None):
    """The maximum over ``axis`` of the present entries of a SparseTensor, as a SparseTensor."""
    return _reduce_sparse("SparseReduceMaxSparse", sp_input, axis, keepdims, reduction_axes,
                          keep_dims)


# ------------------------------------------------------------------------------------------
# SerializeManySparse / DeserializeManySparse (string form: 3 serialized TensorProtos)
# ------------------------------------------------------------------------------------------


def _proto_bytes(array):
    """A serialized TensorProto with the values in ``tensor_content`` (TF's
    AsProtoTensorContent: raw little-endian numbers; for strings, the varint lengths then the
    bytes), so the bytes are those TF writes."""
    from tideflow.protos import tensor_pb2

    array = np.asarray(array)
    p = tensor_pb2.TensorProto()
    if array.dtype == object:
        p.dtype = dtypes.string.as_datatype_enum
        items = [bytes(v) if not isinstance(v, str) else v.encode() for v in array.reshape(-1)]
        p.tensor_content = b"".join(_varint(len(v)) for v in items) + b"".join(items)
    else:
        p.dtype = dtypes.as_dtype(array.dtype).as_datatype_enum
        p.tensor_content = np.ascontiguousarray(array).astype(
            array.dtype.newbyteorder("<"), copy=False).tobytes()
    for d in array.shape:
        p.tensor_shape.dim.add().size = d
    return p.SerializeToString()


def _serialize_many_kernel(sparse_indices, sparse_values, sparse_shape, *, out_type):
    idx, vals, shape = _check_sparse(sparse_indices, sparse_values, sparse_shape)
    if shape.shape[0] < 2:
        raise _invalid(f"Rank of input SparseTensor should be > 1, but saw rank: "
                       f"{shape.shape[0]}")
    # as TF: the indices must be valid (in bounds, ordered, unrepeated), in TF's words
    _validate_index_order(idx, shape)
    n = int(shape[0])
    order = _order(idx)
    idx, vals = idx[order], vals[order]
    out = np.empty((n, 3), dtype=object)
    sub_shape = shape[1:].astype(np.int64)
    for b in range(n):
        keep = idx[:, 0] == b
        out[b, 0] = _proto_bytes(np.ascontiguousarray(idx[keep][:, 1:]).reshape(-1, len(shape)
                                                                                - 1))
        out[b, 1] = _proto_bytes(vals[keep])
        out[b, 2] = _proto_bytes(sub_shape)
    if idx.size and (idx[:, 0].min() < 0 or idx[:, 0].max() >= n):
        raise _invalid("SparseTensor has an index out of bounds in its first dimension")
    return out


op_registry.declare(
    "SerializeManySparse",
    inputs=["sparse_indices: int64", "sparse_values: T", "sparse_shape: int64"],
    outputs=["serialized_sparse: out_type"],
    attrs=["T: type", "out_type: {string, variant} = DT_STRING"],
    shape=lambda op: [TensorShape([None, 3])],
    kernel=_serialize_many_kernel,
    differentiable=False,
)


def _parse_proto(data, what):
    from tideflow.framework.tensor_util import make_ndarray
    from tideflow.protos import tensor_pb2

    p = tensor_pb2.TensorProto()
    try:
        p.ParseFromString(bytes(data))
    except Exception as e:  # noqa: BLE001 - any decode failure is bad input
        raise _invalid(f"Could not parse serialized_sparse{what}: {e}") from None
    if p.dtype == dtypes.string.as_datatype_enum and p.tensor_content:
        shape = [d.size for d in p.tensor_shape.dim]
        return _strings_from_content(p.tensor_content, int(np.prod(shape))).reshape(shape)
    return make_ndarray(p)


def _strings_from_content(buf, n):
    lengths, pos = [], 0
    for _ in range(n):
        try:
            v, pos = _varint_at(buf, pos)
        except ValueError:
            raise _invalid("Could not parse serialized string tensor content") from None
        lengths.append(v)
    out = []
    for k in lengths:
        out.append(bytes(buf[pos:pos + k]))
        pos += k
    return np.array(out + [None], dtype=object)[:-1]


def _deserialize_many_kernel(serialized_sparse, *, dtype):
    s = np.asarray(serialized_sparse)
    if s.ndim != 2 or s.shape[1] != 3:
        raise _invalid(f"Serialized sparse should be a matrix with 3 columns, got shape "
                       f"{list(s.shape)}")
    want = dtype.as_numpy_dtype if dtype != dtypes.string else object
    all_i, all_v, shapes = [], [], []
    for b in range(s.shape[0]):
        ii = _parse_proto(s[b, 0], f"[{b}, 0]").astype(np.int64)
        vv = _parse_proto(s[b, 1], f"[{b}, 1]")
        sh = _parse_proto(s[b, 2], f"[{b}, 2]").astype(np.int64)
        if dtype != dtypes.string and vv.dtype != np.dtype(want):
            raise _invalid(f"Requested SparseTensor of type {dtype.name} but SparseTensor[{b}]"
                           f".values.dtype() == {vv.dtype}")
        if ii.ndim != 2 or ii.shape[1] != sh.shape[0] or ii.shape[0] != vv.shape[0]:
            raise _invalid(f"Serialized SparseTensor[{b}] has inconsistent indices, values "
                           "and shape")
        if shapes and sh.shape[0] != shapes[0].shape[0]:
            # as TF, the ranks named count the batch dimension the result gains
            raise _invalid("Inconsistent rank across SparseTensors: rank prior to "
                           f"SparseTensor[{b}] was: {shapes[0].shape[0] + 1} but rank of "
                           f"SparseTensor[{b}] is: {sh.shape[0] + 1}")
        all_i.append(np.concatenate([np.full((ii.shape[0], 1), b, np.int64), ii], 1))
        all_v.append(vv)
        shapes.append(sh)
    if not shapes:
        raise _invalid("Serialized sparse should have at least 1 serialized tensor, but has "
                       f"a zero dimension [{','.join(map(str, s.shape))}]")
    out_shape = np.concatenate([[s.shape[0]], np.max(np.stack(shapes), 0)]).astype(np.int64)
    idx = np.concatenate(all_i, 0)
    vals = np.concatenate(all_v, 0) if all_v else np.zeros(0, want)
    if dtype == dtypes.string:
        vals = np.array(list(vals) + [None], dtype=object)[:-1]
    return idx, vals.astype(want, copy=False), out_shape


op_registry.declare(
    "DeserializeManySparse",
    inputs=["serialized_sparse: string"],
    outputs=["sparse_indices: int64", "sparse_values: dtype", "sparse_shape: int64"],
    attrs=["dtype: type"],
    shape=lambda op: [unknown_shape(2), unknown_shape(1), unknown_shape(1)],
    kernel=_deserialize_many_kernel,
    differentiable=False,
)


def serialize_many_sparse(sp_input, name=None, out_type=dtypes.string):
    """Serializes each minibatch entry (first dimension) of a SparseTensor of rank >= 2 as
    three serialized TensorProtos (indices, values, shape): a [N, 3] string tensor."""
    sp_input = _as_sparse(sp_input)
    if dtypes.as_dtype(out_type) != dtypes.string:
        raise ValueError("serialize_many_sparse: only out_type=tf.string is supported")
    return ops.apply_op("SerializeManySparse",
                        [sp_input.indices, sp_input.values, sp_input.dense_shape],
                        {"out_type": dtypes.string}, name=name)._outputs[0]


def serialize_sparse(sp_input, name=None, out_type=dtypes.string):
    """Serializes a SparseTensor as three serialized TensorProtos: a [3] string tensor (the
    string form; the variant form is Dataset-internal)."""
    from tideflow.ops import dataset_kernels  # declares SerializeSparse

    sp_input = _as_sparse(sp_input)
    if dtypes.as_dtype(out_type) != dtypes.string:
        return dataset_kernels.serialize_sparse(sp_input)
    return ops.apply_op("SerializeSparse",
                        [sp_input.indices, sp_input.values, sp_input.dense_shape],
                        {"out_type": dtypes.string}, name=name)._outputs[0]


def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None):
    """The SparseTensor of rank ``rank`` (+1 for the batch) from ``serialize_many_sparse``
    rows; the dense shape is the elementwise maximum of the rows' shapes."""
    idx, vals, shape = ops.apply_op("DeserializeManySparse", [serialized_sparse],
                                    {"dtype": dtypes.as_dtype(dtype)}, name=name)._outputs
    if rank is not None:
        idx.set_shape([None, rank])
        shape.set_shape([rank])
    return SparseTensor(idx, vals, shape)


# ------------------------------------------------------------------------------------------
# EditDistance
# ------------------------------------------------------------------------------------------


def _levenshtein(a, b):
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y))
        prev = cur
    return prev[-1]


def _edit_distance_kernel(hypothesis_indices, hypothesis_values, hypothesis_shape,
                          truth_indices, truth_values, truth_shape, *, normalize):
    hi, hv, hs = _check_sparse(hypothesis_indices, hypothesis_values, hypothesis_shape,
                               "hypothesis")
    ti, tv, ts = _check_sparse(truth_indices, truth_values, truth_shape, "truth")
    if hs.shape[0] != ts.shape[0]:
        raise _invalid(f"hypothesis and truth must have the same rank; got "
                       f"{hs.shape[0]} and {ts.shape[0]}")
    if hs.shape[0] < 1:
        raise _invalid("hypothesis and truth must have rank >= 1")
    out_shape = np.maximum(hs[:-1], ts[:-1])
    out = np.zeros(tuple(out_shape.tolist()), np.float32)

    def seqs(idx, vals):
        d = {}
        for row, v in zip(idx[_order(idx)].tolist(), vals[_order(idx)].tolist()):
            d.setdefault(tuple(row[:-1]), []).append(v)
        return d

    hyp, truth = seqs(hi, hv), seqs(ti, tv)
    for key in set(hyp) | set(truth):
        a, b = hyp.get(key, []), truth.get(key, [])
        dist = _levenshtein(a, b)
        if normalize:
            out[key] = np.inf if not b else dist / len(b)
        else:
            out[key] = dist
    return out


op_registry.declare(
    "EditDistance",
    inputs=["hypothesis_indices: int64", "hypothesis_values: T", "hypothesis_shape: int64",
            "truth_indices: int64", "truth_values: T", "truth_shape: int64"],
    outputs=["output: float"],
    attrs=["normalize: bool = true", "T: type"],
    shape=lambda op: [_edit_distance_shape(op)],
    kernel=_edit_distance_kernel,
    differentiable=False,
)


def _edit_distance_shape(op):
    from tideflow.ops.sparse_ops import _shape_from

    hn, tn = (op._inputs[i]._shape.num_elements() for i in (2, 5))
    if hn is not None and tn is not None and hn != tn:
        raise ValueError(f"Num elements of hypothesis_shape does not match truth_shape: {hn} vs. "
                         f"{tn}")
    hs, ts = _shape_from(op._inputs[2]), _shape_from(op._inputs[5])
    if hs.ndims is None or ts.ndims is None or not hs.is_fully_defined() or \
            not ts.is_fully_defined():
        return unknown_shape()  # TF 1.15 needs both shapes' values, else not even the rank
    return TensorShape([max(a, b) for a, b in zip(hs.as_list()[:-1], ts.as_list()[:-1])])


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """The Levenshtein distance between the sequences (last dimension) of two SparseTensors,
    divided by the truth's length when ``normalize`` (inf for an empty truth)."""
    if not isinstance(hypothesis, SparseTensor):
        raise TypeError("Hypothesis must be a SparseTensor.")
    if not isinstance(truth, SparseTensor):
        raise TypeError("Truth must be a SparseTensor.")
    return ops.apply_op("EditDistance",
                        [hypothesis.indices, hypothesis.values, hypothesis.dense_shape,
                         truth.indices, truth.values, truth.dense_shape],
                        {"normalize": normalize}, name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# composed
# ------------------------------------------------------------------------------------------


def sparse_merge(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    """The SparseTensor whose last dimension is indexed by ``sp_ids``' values (size
    ``vocab_size``), holding ``sp_values``' values. ``sp_ids`` may be a list of id tensors
    with a list ``vocab_size``: each adds one dimension (TF 1.x ``tf.sparse_merge``)."""
    import numbers

    if isinstance(sp_ids, (SparseTensor, SparseTensorValue)):
        if not isinstance(vocab_size, (ops.Tensor, numbers.Integral)):
            raise TypeError(f"vocab_size has to be a Tensor or Python int. Found "
                            f"{type(vocab_size)}")
        sp_ids, vocab_size = [sp_ids], [vocab_size]
    else:
        if not isinstance(sp_ids, (list, tuple)):
            raise TypeError(f"sp_ids has to be a SparseTensor or list thereof. Found "
                            f"{type(sp_ids)}")
        if not isinstance(vocab_size, (list, tuple)):
            raise TypeError(f"vocab_size has to be a list of Tensors or Python ints. Found "
                            f"{type(vocab_size)}")
        for dim in vocab_size:
            if not isinstance(dim, (ops.Tensor, numbers.Integral)):
                raise TypeError(f"vocab_size has to be a list of Tensors or Python ints. "
                                f"Found {type(dim)}")
    if len(sp_ids) != len(vocab_size):
        raise ValueError("sp_ids and vocab_size have to have equal lengths.")
    return _sparse_merge_impl(sp_ids, sp_values, vocab_size, name, already_sorted)


def _sparse_merge_impl(sp_ids, sp_values, vocab_size, name, already_sorted=False):
    """sparse_merge past its argument checks (a list of ids, a list of sizes); also
    sparse_to_indicator's body, as in TF."""
    from tideflow.ops import array_ops
    from tideflow.ops.cast_ops import cast
    from tideflow.ops.concat_ops import concat
    from tideflow.ops.sparse_ops import sparse_reorder

    sp_ids = [_as_sparse(s, "sp_ids") for s in sp_ids]
    sp_values = _as_sparse(sp_values, "sp_values")
    with ops.name_scope(name, "SparseMerge", [sp_values.indices]):
        # TF's ops in TF's order (the sizes packed by concat, the shape of the first ids)
        ids = [array_ops.expand_dims(cast(s.values, dtypes.int64), axis=1) for s in sp_ids]
        sizes = [cast(v, dtypes.int64) for v in vocab_size]
        new_indices = concat([sp_ids[0].indices[:, :-1]] + ids, 1)
        new_shape = concat([sp_ids[0].dense_shape[:-1], sizes], 0)
        result = SparseTensor(new_indices, sp_values.values, new_shape)
        if already_sorted:
            return result
        ordered = sparse_reorder(result)
        return SparseTensor(ordered.indices, ordered.values, new_shape)


def sparse_reset_shape(sp_input, new_shape=None):
    """``sp_input`` with dense_shape ``new_shape`` (checked not to shrink it: statically when
    both shapes are known, else by ``assert_equal`` on the ranks and ``assert_less_equal`` at
    run time), or the tight shape ``max(indices) + 1`` when None."""
    from tideflow.ops import (
        array_ops,
        check_ops,
        constant_op,
        control_flow_ops,
        math_ops,
        reduction_ops,
    )
    from tideflow.ops.cast_ops import cast

    sp_input = _as_sparse(sp_input)
    # as TF: the parts pass Identity ops, and no name scope is opened
    in_indices = array_ops.identity(sp_input.indices)
    in_values = array_ops.identity(sp_input.values)
    in_shape = array_ops.identity(sp_input.dense_shape)
    if new_shape is None:
        # (an empty tensor's max is int64's least value: the maximum with 0 makes it 0)
        low = reduction_ops.reduce_max(in_indices, axis=0)
        tight = math_ops.maximum(constant_op.constant(0, dtype=dtypes.int64),
                                 math_ops.add(low, array_ops.ones_like(in_shape)))
        return SparseTensor(in_indices, in_values, tight)
    new_shape = ops.convert_to_tensor(new_shape)
    new_shape.get_shape().assert_has_rank(1)
    new_shape = cast(new_shape, dtypes.int64)
    if new_shape.get_shape().ndims is not None:
        new_shape.get_shape()[0].assert_is_compatible_with(in_shape.get_shape()[0])
    from tideflow.framework.sparse_tensor import _python_value

    const = _python_value(new_shape)  # (what TF's Python constant_value knows)
    if const is not None and sp_input.get_shape().is_fully_defined():
        in_const = np.array(sp_input.get_shape().as_list())
        if not np.all(in_const <= const):
            # (TF's words, which name the two shapes the other way round)
            raise ValueError(f"Requested new_shape should have dimension sizes >= "
                             f"sp_input.shape.  Found new_shape ({in_const}), sp_input.shape "
                             f"({const}).")
        return SparseTensor(in_indices, in_values, const)
    new_shape = control_flow_ops.with_dependencies(
        [check_ops.assert_equal(array_ops.shape(in_shape), array_ops.shape(new_shape))],
        new_shape)
    new_shape = control_flow_ops.with_dependencies(
        [check_ops.assert_less_equal(in_shape, new_shape)], new_shape)
    return SparseTensor(in_indices, in_values, new_shape)


def _pair(a, b):
    from tideflow.ops.concat_ops import stack

    return stack([a, b])


def sparse_expand_dims(sp_input, axis=None, name=None):
    """``sp_input`` with a new dimension of size 1 inserted at ``axis`` (an int or a scalar
    int32 tensor; negative counts from the end)."""
    import numbers

    from tideflow.ops import array_ops, constant_op
    from tideflow.ops.concat_ops import concat
    from tideflow.ops.fill_ops import zeros

    sp_input = _as_sparse(sp_input)
    rank = _rank_of(sp_input.dense_shape)
    axis = -1 if axis is None else axis
    # TF's ops in TF's order: the axis made non-negative by where_v2, the index column and
    # the shape spliced in with Slice ops
    with ops.name_scope(name, "expand_dims", [sp_input]):
        if isinstance(axis, numbers.Integral):
            axis = ops.convert_to_tensor(axis, name="axis", dtype=dtypes.int32)
        elif not isinstance(axis, ops.Tensor):
            raise TypeError("axis must be an integer value in range [-rank(sp_input) - 1, "
                            "rank(sp_input)]")
        axis = array_ops.where_v2(axis >= 0, axis, axis + rank + 1)
        n = array_ops.shape(sp_input.indices)[0]
        col = zeros([n, 1], dtype=dtypes.int64)
        before = array_ops.slice(sp_input.indices, [0, 0], [-1, axis])
        after = array_ops.slice(sp_input.indices, [0, axis], [-1, -1])
        idx = concat([before, col, after], axis=1)
        shape_before = array_ops.slice(sp_input.dense_shape, [0], [axis])
        shape_after = array_ops.slice(sp_input.dense_shape, [axis], [-1])
        one = constant_op.constant([1], dtype=dtypes.int64, name="new_shape")
        shape = concat([shape_before, one, shape_after], axis=0)
        return SparseTensor(idx, sp_input.values, shape)


def sparse_eye(num_rows, num_columns=None, dtype=dtypes.float32, name=None):
    """The [num_rows, num_columns] identity as a SparseTensor."""
    from tideflow.ops import math_ops, range_ops
    from tideflow.ops.concat_ops import stack
    from tideflow.ops.fill_ops import ones

    with ops.name_scope(name, "eye", [num_rows, num_columns]):
        rows = _int64_tensor(num_rows, "num_rows")
        cols = rows if num_columns is None else _int64_tensor(num_columns, "num_columns")
        n = math_ops.minimum(rows, cols)
        diag = range_ops.range(n, dtype=dtypes.int64)
        # (as TF: the shape is given as a list, packed inside SparseTensor's scope)
        return SparseTensor(stack([diag, diag], axis=1), ones(n, dtype=dtype), [rows, cols])


def _int64_tensor(value, name):
    """An int as an int64 constant named ``name``, an int64 tensor as it is, another int
    tensor cast (TF's helper for sparse.eye's sizes)."""
    import numbers

    from tideflow.ops.cast_ops import cast

    if isinstance(value, numbers.Integral):
        return ops.convert_to_tensor(value, name=name, dtype=dtypes.int64)
    if not isinstance(value, ops.Tensor):
        raise TypeError(f"{name} must be an integer value")
    return value if value.dtype == dtypes.int64 else cast(value, dtypes.int64)


def from_dense(tensor, name=None):
    """The SparseTensor of the non-zero entries of ``tensor``."""
    from tideflow.ops import array_ops, constant_op, math_ops
    from tideflow.ops.gather_ops import gather_nd, where

    with ops.name_scope(name, "dense_to_sparse", [tensor]):
        tensor = ops.convert_to_tensor(tensor)
        # as TF: compared with a 0 of the tensor's dtype (so strings are a TypeError)
        idx = where(math_ops.not_equal(tensor, constant_op.constant(0, tensor.dtype)))
        return SparseTensor(idx, gather_nd(tensor, idx),
                            array_ops.shape(tensor, out_type=dtypes.int64))


def sparse_mask(a, mask_indices, name=None):
    """The IndexedSlices ``a`` without the slices whose indices are in ``mask_indices``."""
    from tideflow.ops import array_ops
    from tideflow.ops.counting_ops import setdiff1d

    with ops.name_scope(name, "sparse_mask", [a, mask_indices]):
        out_indices, to_gather = setdiff1d(a.indices, mask_indices)
        return IndexedSlices(array_ops.gather(a.values, to_gather), out_indices, a.dense_shape)


# ------------------------------------------------------------------------------------------
# DenseCountSparseOutput / SparseCountSparseOutput (tf.sparse.bincount)
# ------------------------------------------------------------------------------------------


def _count(rows, vals, weights, n_rows, batched, minlength, maxlength, binary_output,
           out_dtype):
    vals = np.asarray(vals).reshape(-1)
    if vals.size and vals.min() < 0:
        raise _invalid("Input values must all be non-negative")
    top = int(vals.max()) + 1 if vals.size else 0
    size = max(top, minlength, 0)
    if maxlength >= 0:
        size = min(size, maxlength)
    keep = vals < size
    counts = {}
    w = None if weights is None else np.asarray(weights).reshape(-1)
    for i in np.flatnonzero(keep):
        key = (int(rows[i]), int(vals[i])) if batched else (int(vals[i]),)
        add = 1 if w is None else w[i]
        counts[key] = add if binary_output else counts.get(key, 0) + add
    keys = sorted(counts)
    rank = 2 if batched else 1
    idx = np.array(keys, np.int64).reshape(-1, rank)
    values = np.array([counts[k] for k in keys], out_dtype).reshape(-1)
    shape = np.array([n_rows, size] if batched else [size], np.int64)
    return idx, values, shape


def _dense_count_kernel(values, weights, *, minlength, maxlength, binary_output, output_type):
    values = np.asarray(values)
    if values.ndim not in (1, 2):
        raise _invalid(f"Input must be a 1 or 2-dimensional tensor, got rank {values.ndim}")
    w = np.asarray(weights)
    if w.size and w.shape != values.shape:
        raise _invalid(f"Weights and values must have the same shape, got {list(w.shape)} "
                       f"and {list(values.shape)}")
    batched = values.ndim == 2
    rows = np.repeat(np.arange(values.shape[0]), values.shape[1]) if batched else None
    return _count(rows, values, w if w.size else None, values.shape[0] if batched else 0,
                  batched, minlength, maxlength, binary_output, output_type.as_numpy_dtype)


def _sparse_count_kernel(indices, values, dense_shape, weights, *, minlength, maxlength,
                         binary_output, output_type):
    idx, vals, shape = _check_sparse(indices, values, dense_shape)
    w = np.asarray(weights)
    if w.size and w.shape != vals.shape:
        raise _invalid("Weights and values must have the same shape")
    batched = shape.shape[0] == 2
    if shape.shape[0] not in (1, 2):
        raise _invalid(f"Input must be a 1 or 2-dimensional SparseTensor, got rank "
                       f"{shape.shape[0]}")
    return _count(idx[:, 0] if batched else None, vals, w if w.size else None,
                  int(shape[0]) if batched else 0, batched, minlength, maxlength,
                  binary_output, output_type.as_numpy_dtype)


_COUNT_ATTRS = ["T: {int32, int64}", "minlength: int >= -1 = -1", "maxlength: int >= -1 = -1",
                "binary_output: bool", "output_type: {int32, int64, float, double}"]
_COUNT_OUTS = ["output_indices: int64", "output_values: output_type",
               "output_dense_shape: int64"]


def _count_shape(rank_of):
    def shape(op):
        r = rank_of(op)
        return [TensorShape([None, r]), TensorShape([None]), TensorShape([r])]

    return shape


op_registry.declare(
    "DenseCountSparseOutput", inputs=["values: T", "weights: output_type"],
    outputs=_COUNT_OUTS, attrs=_COUNT_ATTRS,
    shape=_count_shape(lambda op: op._inputs[0]._shape.ndims),
    kernel=_dense_count_kernel, differentiable=False,
)
op_registry.declare(
    "SparseCountSparseOutput",
    inputs=["indices: int64", "values: T", "dense_shape: int64", "weights: output_type"],
    outputs=_COUNT_OUTS, attrs=_COUNT_ATTRS,
    shape=_count_shape(lambda op: _rank_of(op._inputs[2])),
    kernel=_sparse_count_kernel, differentiable=False,
)


def sparse_bincount(values, weights=None, axis=0, minlength=None, maxlength=None,
                    binary_output=False, name=None):
    """Counts (or sums ``weights`` of) each non-negative integer value, as a SparseTensor:
    over all values (``axis=0``) or per row of a 2-D input (``axis=-1``)."""
    from tideflow.ops import array_ops
    from tideflow.ops.cast_ops import cast

    with ops.name_scope(name, "count", [values, weights]):
        sparse = isinstance(values, SparseTensor)
        if not sparse:
            values = ops.convert_to_tensor(values, name="values")
            if values.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
                values = cast(values, dtypes.int64)
        if weights is not None:
            weights = ops.convert_to_tensor(weights, name="weights")
            out_type = weights.dtype.base_dtype
        else:
            out_type = values.dtype.base_dtype
            weights = ops.convert_to_tensor(np.zeros([0], out_type.as_numpy_dtype))
        if axis not in (0, -1):
            raise ValueError(f"Unsupported axis value {axis}. Only 0 and -1 are supported.")
        attrs = {"minlength": -1 if minlength is None else int(minlength),
                 "maxlength": -1 if maxlength is None else int(maxlength),
                 "binary_output": bool(binary_output), "output_type": out_type}
        if sparse:
            v, idx, shape = values.values, values.indices, values.dense_shape
            if axis == 0:
                idx = array_ops.zeros_like(idx[:, :1])
                shape = array_ops.reshape(array_ops.size(v, out_type=dtypes.int64), [1])
            out = ops.apply_op("SparseCountSparseOutput", [idx, v, shape, weights],
                               attrs)._outputs
        else:
            if axis == 0:
                values = array_ops.reshape(values, [-1])
                if weights.get_shape().num_elements() != 0:
                    weights = array_ops.reshape(weights, [-1])
            out = ops.apply_op("DenseCountSparseOutput", [values, weights], attrs)._outputs
        return SparseTensor(*out)


def sparse_cross(inputs, name=None, separator=None):
    """The string crosses of SparseTensors and dense [batch, n] tensors (sparse inputs first),
    joined by "_X_" (the SparseCross op of tf.feature_column)."""
    from tideflow.feature_column.sparse_cross import sparse_cross as cross

    if separator not in (None, "_X_"):
        raise NotImplementedError("tf.sparse.cross: only the default separator '_X_' is "
                                  f"supported, got {separator!r}")
    _check_cross_inputs(inputs)
    return cross(inputs, name=name)


def _check_cross_inputs(inputs):
    # TF 1.15's checks: a list of SparseTensors and Tensors (a SparseTensorValue or a NumPy
    # array is refused, in TF's words)
    if not isinstance(inputs, list):
        raise TypeError("Inputs must be a list")
    if not all(isinstance(i, (SparseTensor, ops.Tensor)) for i in inputs):
        raise TypeError("All inputs must be SparseTensors")


def sparse_cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """The hashed crosses (FingerprintCat64, modulo ``num_buckets`` when > 0)."""
    from tideflow.feature_column.sparse_cross import sparse_cross_hashed as cross_hashed

    _check_cross_inputs(inputs)
    return cross_hashed(inputs, num_buckets=num_buckets, hash_key=hash_key, name=name)
