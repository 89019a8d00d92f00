"""Set operations along the last dimension (``tf.sets``): SetSize, and the intersection, union
and difference of sets given densely (every entry of the last dimension is an element) or
sparsely (the values of one row), with SparseTensor results whose rows are sorted."""

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.sparse_tensor import SparseTensor, convert_to_tensor_or_sparse_tensor
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops.array_ops import _shape_str

_SET_T = "T: {int8, int16, int32, int64, uint8, uint16, string}"
_OPS = ("a-b", "b-a", "intersection", "union")


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _dense_groups(x):
    """{row index tuple: set} for a dense set tensor, and the group shape."""
    if x.ndim < 2:
        raise _invalid(f"Invalid rank {x.ndim}: a dense set needs rank >= 2")
    rows = x.reshape(int(np.prod(x.shape[:-1])), x.shape[-1])  # (-1 is ambiguous for 0 wide)
    keys = list(np.ndindex(*x.shape[:-1]))
    return {k: set(r.tolist()) for k, r in zip(keys, rows)}, tuple(x.shape[:-1])


def _sparse_groups(indices, values, shape, validate=False):
    shape = tuple(int(d) for d in np.asarray(shape).tolist())
    indices = np.asarray(indices)
    if len(shape) < 2:
        raise _invalid(f"Invalid rank {len(shape)}: a sparse set needs rank >= 2")
    if indices.ndim != 2 or indices.shape[1] != len(shape):
        raise _invalid(f"indices shape {list(indices.shape)} does not match rank {len(shape)}")
    groups = {}
    prev = None
    for n, (idx, v) in enumerate(zip(indices.tolist(), np.asarray(values).tolist())):
        if any(i < 0 or i >= d for i, d in zip(idx, shape)):
            raise _invalid(f"Invalid index {idx} for shape {list(shape)}")
        if validate and prev is not None and idx <= prev:
            # validate_indices (the default), as TF: indices in row-major order, no repeats
            what = "repeated" if idx == prev else (
                "out of order. Many sparse ops require sorted indices. Use `tf.sparse.reorder` "
                "to create a correctly ordered copy.")
            raise _invalid(f"indices[{n}] = [{','.join(map(str, idx))}] is {what}")
        prev = idx
        groups.setdefault(tuple(idx[:-1]), set()).add(v)
    return groups, shape[:-1]


def _result(g1, g2, shape1, shape2, op, dtype):
    if shape1 != shape2:
        raise _invalid(f"Mismatched shapes {list(shape1)} vs {list(shape2)}")
    out_i, out_v = [], []
    width = 0
    for key in sorted(set(g1) | set(g2)):
        a, b = g1.get(key, set()), g2.get(key, set())
        s = {"a-b": a - b, "b-a": b - a, "intersection": a & b, "union": a | b}[op]
        vals = sorted(s)
        width = max(width, len(vals))
        for j, v in enumerate(vals):
            out_i.append(list(key) + [j])
            out_v.append(v)
    rank = len(shape1) + 1
    indices = np.array(out_i, np.int64).reshape(-1, rank)
    if dtype == np.dtype(object):
        values = np.array(out_v + [None], dtype=object)[:-1]
    else:
        values = np.array(out_v, dtype=dtype)
    return indices, values, np.array(list(shape1) + [width], np.int64)


def _check_op(set_operation):
    if set_operation not in _OPS:
        raise _invalid(f"Invalid set_operation {set_operation}")


def _d2d_kernel(set1, set2, *, set_operation):
    _check_op(set_operation)
    g1, s1 = _dense_groups(set1)
    g2, s2 = _dense_groups(set2)
    return _result(g1, g2, s1, s2, set_operation, set1.dtype)


def _d2s_kernel(set1, idx2, val2, shape2, *, set_operation, validate_indices):
    _check_op(set_operation)
    g1, s1 = _dense_groups(set1)
    g2, s2 = _sparse_groups(idx2, val2, shape2, validate_indices)
    return _result(g1, g2, s1, s2, set_operation, set1.dtype)


def _s2s_kernel(idx1, val1, shape1, idx2, val2, shape2, *, set_operation, validate_indices):
    _check_op(set_operation)
    g1, s1 = _sparse_groups(idx1, val1, shape1, validate_indices)
    g2, s2 = _sparse_groups(idx2, val2, shape2, validate_indices)
    return _result(g1, g2, s1, s2, set_operation, np.asarray(val1).dtype)


def _result_shape(rank):
    return [TensorShape([None, rank]), TensorShape([None]), TensorShape([rank])]


def _rank_of_dense(t):
    r = t._shape.ndims
    if r is not None and r < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {r}: a dense set tensor "
                         "holds its sets along the last dimension")
    return r


def _rank_of_sparse_shape(t):
    s = t._shape
    r = s.dims[0].value if s.ndims == 1 else None
    if r is not None and r < 2:
        raise ValueError(f"Sparse set tensors must have rank at least 2, got rank {r}")
    return r


def _both(r1, r2):
    if r1 is not None and r2 is not None and r1 != r2:
        raise ValueError(f"Set operation inputs must have the same rank, got {r1} and {r2}")
    return r1 if r1 is not None else r2


_OUTS = ["result_indices: int64", "result_values: T", "result_shape: int64"]
_ATTRS = ["set_operation: string", "validate_indices: bool = true", _SET_T]

def _dense_dense_shape(op):
    rank = _both(_rank_of_dense(op._inputs[0]), _rank_of_dense(op._inputs[1]))
    s1, s2 = op._inputs[0]._shape, op._inputs[1]._shape
    if s1.ndims is not None and s2.ndims is not None:
        # as TF's shape function: the group dimensions (all but the last) must agree
        for i, (d1, d2) in enumerate(zip(s1.as_list()[:-1], s2.as_list()[:-1])):
            if d1 is not None and d2 is not None and d1 != d2:
                g1, g2 = _shape_str(s1.as_list()[:-1]), _shape_str(s2.as_list()[:-1])
                raise ValueError(f"Dimension {i} in both shapes must be equal, but are {d1} and "
                                 f"{d2}. Shapes are {g1} and {g2}.")
    return _result_shape(rank)


op_registry.declare(
    "DenseToDenseSetOperation", inputs=["set1: T", "set2: T"], outputs=_OUTS, attrs=_ATTRS,
    shape=_dense_dense_shape,
    kernel=_d2d_kernel, differentiable=False,
)
op_registry.declare(
    "DenseToSparseSetOperation",
    inputs=["set1: T", "set2_indices: int64", "set2_values: T", "set2_shape: int64"],
    outputs=_OUTS, attrs=_ATTRS,
    shape=lambda op: _result_shape(_both(_rank_of_dense(op._inputs[0]),
                                         _rank_of_sparse_shape(op._inputs[3]))),
    kernel=_d2s_kernel, differentiable=False,
)
op_registry.declare(
    "SparseToSparseSetOperation",
    inputs=["set1_indices: int64", "set1_values: T", "set1_shape: int64",
            "set2_indices: int64", "set2_values: T", "set2_shape: int64"],
    outputs=_OUTS, attrs=_ATTRS,
    shape=lambda op: _result_shape(_both(_rank_of_sparse_shape(op._inputs[2]),
                                         _rank_of_sparse_shape(op._inputs[5]))),
    kernel=_s2s_kernel, differentiable=False,
)


def _set_size_kernel(indices, values, shape, *, validate_indices):
    groups, gshape = _sparse_groups(indices, values, shape, validate_indices)
    out = np.zeros(gshape, np.int32)
    for k, s in groups.items():
        out[k] = len(s)
    return out


op_registry.declare(
    "SetSize",
    inputs=["set_indices: int64", "set_values: T", "set_shape: int64"],
    outputs=["size: int32"],
    attrs=["validate_indices: bool = true", _SET_T],
    shape=lambda op: [TensorShape(None)],
    kernel=_set_size_kernel, differentiable=False,
)


def _convert(a, b):
    a = convert_to_tensor_or_sparse_tensor(a, name="a")
    if not a.dtype.is_integer and a.dtype.base_dtype != dtypes.string:
        raise TypeError(f"Invalid dtype {a.dtype}.")
    b = convert_to_tensor_or_sparse_tensor(b, name="b")
    if b.dtype.base_dtype != a.dtype.base_dtype:
        raise TypeError(f"Types don't match, {a.dtype} vs {b.dtype}.")
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        return b, a, True
    return a, b, False


def _set_operation(a, b, set_operation, validate_indices=True):
    attrs = {"set_operation": set_operation, "validate_indices": validate_indices}
    if isinstance(a, SparseTensor):
        if not isinstance(b, SparseTensor):
            raise ValueError("Sparse,Dense is not supported, but Dense,Sparse is. Please flip "  # noqa: TRY004
                             "the order of your inputs.")
        op = ops.apply_op("SparseToSparseSetOperation",
                          [a.indices, a.values, a.dense_shape, b.indices, b.values,
                           b.dense_shape], attrs)
    elif isinstance(b, SparseTensor):
        op = ops.apply_op("DenseToSparseSetOperation",
                          [a, b.indices, b.values, b.dense_shape], attrs)
    else:
        op = ops.apply_op("DenseToDenseSetOperation", [a, b], attrs)
    return SparseTensor(*op._outputs)


def set_size(a, validate_indices=True):
    """The number of unique elements of each set (the last dimension) of SparseTensor ``a``."""
    a = convert_to_tensor_or_sparse_tensor(a, name="a")
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a}.")
    if not a.dtype.is_integer and a.dtype.base_dtype != dtypes.string:
        raise TypeError(f"Invalid dtype {a.dtype}.")
    return ops.apply_op("SetSize", [a.indices, a.values, a.dense_shape],
                        {"validate_indices": validate_indices})._outputs[0]


def set_intersection(a, b, validate_indices=True):
    """The sorted intersection of the sets in the last dimension of a and b (SparseTensor)."""
    a, b, _ = _convert(a, b)
    return _set_operation(a, b, "intersection", validate_indices)


def set_union(a, b, validate_indices=True):
    """The sorted union of the sets in the last dimension of a and b (SparseTensor)."""
    a, b, _ = _convert(a, b)
    return _set_operation(a, b, "union", validate_indices)


def set_difference(a, b, aminusb=True, validate_indices=True):
    """The sorted difference a - b (or b - a) of the sets in the last dimension."""
    a, b, flipped = _convert(a, b)
    if flipped:
        aminusb = not aminusb
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)
