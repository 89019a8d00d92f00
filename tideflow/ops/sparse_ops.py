"""Sparse ops: SparseTensor <-> dense, add, reduce, matmul, concat, reorder, reshape, slice.

Kernels work on the COO triple (indices [N, rank] int64, values [N], dense_shape [rank]);
ops that need canonical (row-major) order say so, as in TF. The segment ops on sparse row
selections live in ``sparse_segment_ops``.
"""

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.sparse_tensor import (
    SparseTensor,
    SparseTensorValue,
)
from tideflow.framework.tensor_shape import TensorShape, matrix, unknown_shape, vector
from tideflow.kernels.scatter import rows_at


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _fmt(v):
    return "[" + ",".join(str(int(x)) for x in np.asarray(v).reshape(-1)) + "]"


def _in(op, i):
    return op._inputs[i]._shape


def _rank_of(shape_tensor):
    """The static rank a 1-D dense_shape tensor describes, or None."""
    s = shape_tensor._shape
    return s.dims[0].value if s.ndims == 1 else None


def _shape_from(tensor):
    from tideflow.ops import array_ops

    try:
        return array_ops.constant_value_as_shape(tensor)
    except ValueError:
        return unknown_shape()


def _order(indices):
    """The permutation that sorts rows of ``indices`` in row-major (lexicographic) order."""
    if indices.shape[0] == 0 or indices.shape[1] == 0:
        return np.arange(indices.shape[0])
    return np.lexsort(indices.T[::-1])


def _as_sparse(sp_input, name="sp_input"):
    if isinstance(sp_input, SparseTensorValue):
        sp_input = SparseTensor.from_value(sp_input)
    if not isinstance(sp_input, SparseTensor):
        raise TypeError("Input must be a SparseTensor.")  # (TF's words, whatever the argument)
    return sp_input


def _check_same_shapes(a_shape, b_shape):
    """TF 1.15's check of two sparse operands' dense shapes (vectors): ranks first, then each
    dimension, in its words."""
    if a_shape.shape != b_shape.shape:
        raise _invalid(f"Operands do not have the same ranks; got shapes: "
                       f"{' '.join(map(str, a_shape.tolist()))} and "
                       f"{' '.join(map(str, b_shape.tolist()))}")
    for d, (sa, sb) in enumerate(zip(a_shape.tolist(), b_shape.tolist())):
        if sa != sb:
            raise _invalid(f"Operands' shapes do not match: got {sa} and {sb} for "
                           f"dimension {d}")


def _check_sparse(indices, values, shape, what="input"):
    indices = np.asarray(indices)
    values = np.asarray(values)
    shape = np.asarray(shape)
    if indices.ndim != 2:
        raise _invalid(f"{what} indices should be a matrix but received shape "
                       f"{_fmt(indices.shape)}")
    if values.ndim != 1:
        raise _invalid(f"{what} values should be a vector but received shape "
                       f"{_fmt(values.shape)}")
    if shape.ndim != 1:
        raise _invalid(f"{what} shape should be a vector but received shape {_fmt(shape.shape)}")
    if indices.shape[0] != values.shape[0]:
        if what == "input":  # TF's SparseTensor validation words
            raise _invalid(f"indices and values rows (indexing dimension) must match. (indices "
                           f"= {indices.shape[0]}, values = {values.shape[0]})")
        raise _invalid(f"Number of elements in {what} indices ({indices.shape[0]}) and values "
                       f"({values.shape[0]}) do not match")
    if indices.shape[1] != shape.shape[0]:
        if what == "input":
            raise _invalid("Order length must be SparseTensor rank.")
        raise _invalid(f"{what} indices have rank {indices.shape[1]} but shape has "
                       f"{shape.shape[0]} entries")
    return indices.astype(np.int64, copy=False), values, shape.astype(np.int64, copy=False)


# ------------------------------------------------------------------------------------------
# SparseToDense
# ------------------------------------------------------------------------------------------


def _validate_index_order(idx, shape):
    """TF's validate_indices: in bounds, strictly increasing in row-major order. The first
    bad row is found with whole-array compares (a row's bounds are checked before its order
    against the row above), then reported in TF's words."""
    n, rank = idx.shape
    bad = (idx < 0).any(1) | (idx >= shape).any(1)
    same = np.zeros(n, dtype=bool)
    back = np.zeros(n, dtype=bool)
    if n > 1:
        cur, prev = idx[1:], idx[:-1]
        differ = cur != prev
        same[1:] = ~differ.any(1)
        if rank:
            # the first column where a row differs from the row above decides their order
            col = np.argmax(differ, axis=1)
            at = np.arange(n - 1)
            back[1:] = ~same[1:] & (cur[at, col] < prev[at, col])
    first = np.flatnonzero(bad | same | back)
    if not first.size:
        return
    i = int(first[0])
    row = idx[i]
    if bad[i]:
        raise _invalid(f"indices[{i}] = {_fmt(row)} is out of bounds: need 0 <= index < "
                       f"{_fmt(shape)}")
    if same[i]:
        raise _invalid(f"indices[{i}] = {_fmt(row)} is repeated")
    raise _invalid(f"indices[{i}] = {_fmt(row)} is out of order. Many sparse ops "
                   "require sorted indices.\n    Use `tf.sparse.reorder` to create "
                   "a correctly ordered copy.\n\n")  # (TF's blank line too)


def _sparse_to_dense_kernel(sparse_indices, output_shape, sparse_values, default_value, *,
                            validate_indices):
    idx = np.asarray(sparse_indices)
    shape = np.asarray(output_shape).reshape(-1).astype(np.int64)
    values = np.asarray(sparse_values)
    if idx.ndim > 2:
        raise _invalid(f"sparse_indices should be a scalar, vector, or matrix, got shape "
                       f"{_fmt(idx.shape)}")
    if np.ndim(output_shape) > 1:
        raise _invalid(f"output_shape should be a scalar or vector, got shape "
                       f"{_fmt(np.shape(output_shape))}")
    idx = idx.reshape(-1, 1) if idx.ndim < 2 else idx
    n = idx.shape[0]
    if values.ndim > 1 or (values.ndim == 1 and values.shape[0] != n):
        raise _invalid(f"sparse_values has incorrect shape {_fmt(values.shape)}, should be [] "
                       f"or [{n}]")
    if np.ndim(default_value) != 0:
        raise _invalid("default_value should be a scalar.")  # (TF's words)
    if idx.shape[1] != shape.shape[0]:
        raise _invalid(f"output_shape has incorrect number of elements: {shape.shape[0]} "
                       f"should be: {idx.shape[1]}")
    if validate_indices:
        _validate_index_order(idx.astype(np.int64), shape)
    elif n and (np.any(idx < 0) or np.any(idx >= shape)):
        raise _invalid(f"Indices are not valid (out of bounds).  Shape: {_fmt(tuple(shape))}")
    out = np.full(tuple(shape), default_value, dtype=values.dtype)
    if n and idx.shape[1] == 0:  # a scalar output (a full reduction's sparse result)
        out[()] = values.reshape(-1)[-1]
    elif n:
        out[tuple(idx.T)] = values
    return out


def _sparse_to_dense_shape(op):
    shape_t = op._inputs[1]
    if shape_t._shape.ndims is not None and shape_t._shape.ndims > 1:
        raise ValueError(f"Shape must be rank 1 but is rank {shape_t._shape.ndims}")
    if shape_t._shape.ndims == 0:
        v = ops.constant_value(shape_t)
        return [vector(None if v is None else int(v))]
    return [_shape_from(shape_t)]


def _sparse_to_dense_grad(op, grad):
    from tideflow.ops import array_ops, reduction_ops
    from tideflow.ops.fill_ops import zeros_like

    indices, shape, values, _ = op._inputs
    if indices._shape.ndims == 2:  # TF 1.15's ops
        idx = indices
    else:  # (a vector or scalar of indices, which TF's gather_nd would misread)
        idx = array_ops.reshape(indices, array_ops.stack([-1, array_ops.size(shape)]))
    picked = array_ops.gather_nd(grad, idx)
    values_grad = picked if values._shape.ndims != 0 else reduction_ops.reduce_sum(picked)
    default_grad = reduction_ops.reduce_sum(grad) - reduction_ops.reduce_sum(picked)
    # (TF builds zeros for the integer inputs too: their op ids count)
    return [zeros_like(indices), zeros_like(shape), values_grad, default_grad]


op_registry.declare(
    "SparseToDense",
    inputs=["sparse_indices: Tindices", "output_shape: Tindices", "sparse_values: T",
            "default_value: T"],
    outputs=["dense: T"],
    attrs=["validate_indices: bool = true", "T: type", "Tindices: {int32, int64}"],
    shape=_sparse_to_dense_shape,
    kernel=_sparse_to_dense_kernel,
    grad=_sparse_to_dense_grad,
)


def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0,
                    validate_indices=True, name=None):
    """A dense tensor of ``output_shape`` with ``sparse_values`` at ``sparse_indices``."""
    with ops.name_scope(name, "SparseToDense",
                        [sparse_indices, output_shape, sparse_values]) as scope:
        # the inputs converted in the op's order, as TF's generated wrapper
        indices = ops.convert_to_tensor(sparse_indices, name="sparse_indices")
        if indices.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError("Value passed to parameter 'sparse_indices' has DataType "
                            f"{indices.dtype.name} not in list of allowed values: int32, int64")
        output_shape = ops.convert_to_tensor(output_shape, dtype=indices.dtype.base_dtype,
                                             name="output_shape")
        sparse_values = ops.convert_to_tensor(sparse_values, name="sparse_values")
        # (the op converts default_value to the values' type, failing in TF's words)
        return ops.apply_op("SparseToDense", [indices, output_shape, sparse_values,
                                              default_value],
                            {"validate_indices": validate_indices}, name=scope)._outputs[0]


def sparse_tensor_to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor a SparseTensor stands for (missing entries are ``default_value``, a
    zero of its dtype unless given)."""
    sp_input = _as_sparse(sp_input)
    if default_value is None:  # as TF 1.15: a "zeros" constant made before the op's scope
        from tideflow.ops import fill_ops

        default_value = fill_ops.zeros([], dtype=sp_input.values.dtype)
    return sparse_to_dense(sp_input.indices, sp_input.dense_shape, sp_input.values,
                           default_value=default_value, validate_indices=validate_indices,
                           name=name or "SparseToDense")


def sparse_to_indicator(sp_input, vocab_size, name=None):
    """A bool tensor with ``True`` at ``[..., id]`` for each id in the last sparse dim."""
    from tideflow.ops import array_ops, fill_ops
    from tideflow.ops.sparse_extra_ops import _sparse_merge_impl

    sp_input = _as_sparse(sp_input)
    with ops.name_scope(name, "SparseToIndicator", [sp_input]) as scope:
        # as TF: a True per entry, merged along the ids (in this scope), then made dense
        n = array_ops.shape(sp_input.indices)[0]
        trues = fill_ops.fill(array_ops.expand_dims(n, 0), True)
        merged = _sparse_merge_impl([sp_input],
                                    SparseTensor(sp_input.indices, trues, sp_input.dense_shape),
                                    [vocab_size], scope)
        return sparse_tensor_to_dense(merged, default_value=False, validate_indices=False,
                                      name=scope)


def _cast(x, dtype):
    from tideflow.ops import cast_ops

    return cast_ops.cast(x, dtype)


# ------------------------------------------------------------------------------------------
# SparseAdd, SparseAddGrad, SparseTensorDenseAdd
# ------------------------------------------------------------------------------------------


def _merge(a_idx, b_idx):
    """Walks two row-major ordered index lists: yields (i or None, j or None) pairs."""
    i = j = 0
    na, nb = len(a_idx), len(b_idx)
    ta = [tuple(r) for r in a_idx.tolist()]
    tb = [tuple(r) for r in b_idx.tolist()]
    while i < na and j < nb:
        if ta[i] < tb[j]:
            yield i, None
            i += 1
        elif ta[i] > tb[j]:
            yield None, j
            j += 1
        else:
            yield i, j
            i += 1
            j += 1
    for k in range(i, na):
        yield k, None
    for k in range(j, nb):
        yield None, k


def _sparse_add_kernel(a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh):
    # TF 1.15's SparseAdd checks, in its order and words
    ai, av, bi, bv = (np.asarray(a_indices), np.asarray(a_values), np.asarray(b_indices),
                      np.asarray(b_values))
    if ai.ndim != 2 or bi.ndim != 2:
        raise _invalid(f"Input indices should be matrices but received shapes: "
                       f"{_fmt(ai.shape)} and {_fmt(bi.shape)}")
    if av.ndim != 1 or bv.ndim != 1:
        raise _invalid(f"Input values should be vectors but received shapes: "
                       f"{_fmt(av.shape)} and {_fmt(bv.shape)}")
    if av.shape[0] != ai.shape[0] or bv.shape[0] != bi.shape[0]:
        raise _invalid(f"Expected {ai.shape[0]} and {bi.shape[0]} non-empty input values, got "
                       f"{av.shape[0]} and {bv.shape[0]}")
    ash, bsh = np.asarray(a_shape), np.asarray(b_shape)
    if ash.ndim == 1 and bsh.ndim == 1:
        _check_same_shapes(ash, bsh)
    a_idx, a_val, a_shp = _check_sparse(a_indices, a_values, a_shape, "A")
    b_idx, b_val, _ = _check_sparse(b_indices, b_values, b_shape, "B")
    if np.ndim(thresh) != 0:
        raise _invalid(f"The magnitude threshold must be a scalar: got shape "
                       f"{_fmt(np.shape(thresh))}")
    rows, vals = [], []
    for i, j in _merge(a_idx, b_idx):
        if i is not None and j is not None:
            s = a_val[i] + b_val[j]
            if np.abs(s) >= thresh:
                rows.append(a_idx[i])
                vals.append(s)
        elif i is not None:
            rows.append(a_idx[i])
            vals.append(a_val[i])
        else:
            rows.append(b_idx[j])
            vals.append(b_val[j])
    out_idx = np.asarray(rows, dtype=np.int64).reshape(-1, a_idx.shape[1])
    return out_idx, np.asarray(vals, dtype=a_val.dtype).reshape(-1), a_shp.copy()


def _sparse_add_shape(op):
    rank = _in(op, 0).dims[1] if _in(op, 0).ndims == 2 else None
    rank = rank.value if rank is not None else None
    return [matrix(None, rank), vector(None), _in(op, 2).merge_with(vector(rank))]


def _sparse_add_grad(op, *grads):
    a_grad, b_grad = ops.apply_op(
        "SparseAddGrad", [grads[1], op._inputs[0], op._inputs[3], op._outputs[0]])._outputs
    a_grad.set_shape(_in(op, 1))
    b_grad.set_shape(_in(op, 4))
    return [None, a_grad, None, None, b_grad, None, None]


op_registry.declare(
    "SparseAdd",
    inputs=["a_indices: int64", "a_values: T", "a_shape: int64", "b_indices: int64",
            "b_values: T", "b_shape: int64", "thresh: Treal"],
    outputs=["sum_indices: int64", "sum_values: T", "sum_shape: int64"],
    attrs=["T: numbertype", "Treal: realnumbertype"],
    shape=_sparse_add_shape,
    kernel=_sparse_add_kernel,
    grad=_sparse_add_grad,
)


def _sparse_add_grad_kernel(backprop_val_grad, a_indices, b_indices, sum_indices):
    grad = np.asarray(backprop_val_grad)
    a_idx, b_idx, s_idx = (np.asarray(x, dtype=np.int64) for x in (a_indices, b_indices,
                                                                     sum_indices))
    a_out = np.zeros(a_idx.shape[0], dtype=grad.dtype)
    b_out = np.zeros(b_idx.shape[0], dtype=grad.dtype)
    where = {tuple(r): k for k, r in enumerate(s_idx.tolist())}
    for out, idx in ((a_out, a_idx), (b_out, b_idx)):
        for i, r in enumerate(idx.tolist()):
            k = where.get(tuple(r))
            if k is not None:
                out[i] = grad[k]
    return a_out, b_out


op_registry.declare(
    "SparseAddGrad",
    inputs=["backprop_val_grad: T", "a_indices: int64", "b_indices: int64",
            "sum_indices: int64"],
    outputs=["a_val_grad: T", "b_val_grad: T"],
    attrs=["T: numbertype"],
    shape=lambda op: [vector(_in(op, 1).dims[0] if _in(op, 1).ndims else None),
                      vector(_in(op, 2).dims[0] if _in(op, 2).ndims else None)],
    kernel=_sparse_add_grad_kernel,
    differentiable=False,
)


def _sparse_dense_add_kernel(a_indices, a_values, a_shape, b):
    b = np.asarray(b)
    shape = np.asarray(a_shape).reshape(-1)
    if shape.shape[0] != b.ndim:  # TF's checks and words
        raise _invalid(f"Two operands have different ranks; received: {shape.shape[0]} and "
                       f"{b.ndim}")
    for d in range(b.ndim):
        if shape[d] != b.shape[d]:
            raise _invalid(f"Dimension {d} does not equal (no broadcasting is supported): "
                           f"sparse side {shape[d]} vs dense side {b.shape[d]}")
    idx, vals, shape = _check_sparse(a_indices, a_values, a_shape)
    out = np.array(b, copy=True)
    if idx.shape[0]:
        bad = (idx < 0) | (idx >= shape)
        if bad.any():
            d = int(np.nonzero(bad.any(0))[0][0])
            raise _invalid(f"Sparse tensor has some invalid index on dimension {d}; dense "
                           f"tensor shape: {_fmt(shape)}")
        np.add.at(out, tuple(idx.T), vals)
    return out


op_registry.declare(
    "SparseTensorDenseAdd",
    inputs=["a_indices: Tindices", "a_values: T", "a_shape: Tindices", "b: T"],
    outputs=["output: T"],
    attrs=["T: numbertype", "Tindices: {int32, int64}"],
    shape=lambda op: [_in(op, 3)],
    kernel=_sparse_dense_add_kernel,
    grad=lambda op, grad: [None, _gather_nd(grad, op._inputs[0]), None, grad],
)


def _gather_nd(params, indices):
    from tideflow.ops import array_ops

    return array_ops.gather_nd(params, indices)


def sparse_add(a, b, threshold=None, thresh=None):
    """``a + b`` where at least one is a SparseTensor: sparse when both are, else dense.

    Sums of two present entries whose magnitude is below ``threshold`` (``thresh``, its
    deprecated name, as the third positional argument of TF 1.x) are dropped.
    """
    if threshold is not None and thresh is not None:
        raise ValueError("Cannot specify both 'thresh' and 'threshold'")
    threshold = thresh if threshold is None else threshold
    threshold = 0 if threshold is None else threshold
    a_sparse = isinstance(a, (SparseTensor, SparseTensorValue))
    b_sparse = isinstance(b, (SparseTensor, SparseTensorValue))
    if not a_sparse and not b_sparse:
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add()?")
    if a_sparse and b_sparse:
        a, b = _as_sparse(a, "a"), _as_sparse(b, "b")
        # as TF 1.15: no name scope of its own ("threshold", "SparseAdd")
        threshold = ops.convert_to_tensor(threshold, dtype=a.values.dtype.real_dtype,
                                          name="threshold")
        out = ops.apply_op("SparseAdd", [a.indices, a.values, a.dense_shape, b.indices,
                                         b.values, b.dense_shape, threshold])._outputs
        # as TF: the operands' static shapes must agree, and their broadcast static
        # shape, when fully known, is the result's dense shape (an operand of unknown
        # rank, or an unknown dimension against a 1, leaves it unknown)
        sa, sb = a.get_shape(), b.get_shape()
        sa.assert_is_compatible_with(sb)
        if sa.ndims is not None and sb.ndims is not None:
            pairs = list(zip(sa.as_list(), sb.as_list()))
            if all((x is not None and y is not None) or (x or 0) > 1 or (y or 0) > 1
                   for x, y in pairs):
                dims = [y if x is None else x for x, y in pairs]
                return SparseTensor(out[0], out[1], np.asarray(dims, np.int64))
        return SparseTensor(*out)
    if not b_sparse:
        a, b = b, a
    b_sp = _as_sparse(b)
    # as TF 1.15: no name scope; a Python dense operand is converted by the op ("<op>/b")
    return ops.apply_op("SparseTensorDenseAdd", [b_sp.indices, b_sp.values, b_sp.dense_shape,
                                                 a])._outputs[0]


# ------------------------------------------------------------------------------------------
# SparseReduceSum, SparseReduceMax
# ------------------------------------------------------------------------------------------


def _reduce_axes(axes, rank):
    out = []
    for a in np.asarray(axes).reshape(-1).tolist():
        if not -rank <= a < rank:
            raise _invalid(f"Invalid reduction dimension {a}, for input with {rank} dimensions.")
        out.append(a % rank)
    return tuple(sorted(set(out)))


def eigen_group_sums(idx, vals, kept, reduced):
    """float32 sums of the entries that share their ``kept`` index columns, as TF 1.15's
    sparse reductions make them: the entries sorted by the kept then the reduced columns,
    each group's values summed as one Eigen reduction (lane order, ``row_sum``). Returns the
    groups' kept columns (in order) and their sums."""
    from tideflow.ops.eigen_softmax import row_sum

    cols = list(kept) + list(reduced)
    order = np.lexsort(idx[:, cols].T[::-1]) if cols else np.arange(len(vals))
    v, keys = vals[order], idx[order][:, list(kept)]
    n = v.size
    new = np.zeros(n, dtype=bool)
    new[:1] = True
    if kept:
        new[1:] = (keys[1:] != keys[:-1]).any(1)
    starts = np.flatnonzero(new)
    sizes = np.diff(np.append(starts, n))
    sums = np.empty(starts.size, np.float32)
    for m in np.unique(sizes):  # the groups of one size as the rows of a matrix
        rows = np.flatnonzero(sizes == m)
        sums[rows] = row_sum(v[starts[rows][:, None] + np.arange(m)])
    return keys[starts], sums


def _sparse_reduce(kind):
    def kernel(input_indices, input_values, input_shape, reduction_axes, *, keep_dims):
        # (as TF: the axes are checked before the sparse tensor itself)
        axes = _reduce_axes(reduction_axes, np.size(input_shape))
        idx, vals, shape = _check_sparse(input_indices, input_values, input_shape)
        rank = len(shape)
        kept = [d for d in range(rank) if d not in axes]
        kept_shape = tuple(int(shape[d]) for d in kept)
        out_shape = (tuple(1 if d in axes else int(shape[d]) for d in range(rank)) if keep_dims
                     else kept_shape)
        # as TF: values go straight to their output cell (indices along reduced axes are never
        # looked at, so nothing dense of the input's size is built)
        sub = idx[:, kept]
        bad = np.flatnonzero(np.any((sub < 0) | (sub >= np.asarray(kept_shape, np.int64)), axis=1))
        if bad.size:
            i = int(bad[0])
            raise _invalid(f"indices[{i}] = [{','.join(map(str, idx[i].tolist()))}] is out of "
                           f"bounds: need 0 <= index < [{','.join(map(str, shape.tolist()))}]")
        flat = (np.ravel_multi_index(tuple(sub.T), kept_shape) if kept
                else np.zeros(len(vals), np.int64))
        size = int(np.prod(kept_shape, dtype=np.int64))
        if kind == "sum" and vals.dtype == np.float32 and vals.size:
            keys, sums = eigen_group_sums(idx, vals, kept, axes)
            out = np.zeros(size, dtype=vals.dtype)
            out[np.ravel_multi_index(tuple(keys.T), kept_shape) if kept
                else np.zeros(len(sums), np.int64)] = sums
            return out.reshape(out_shape)
        if kind == "sum":
            out = np.zeros(size, dtype=vals.dtype)
            np.add.at(out, flat, vals)
            return out.reshape(out_shape)
        low = (-np.inf if vals.dtype.kind == "f" else np.iinfo(vals.dtype).min)
        out = np.full(size, low, dtype=vals.dtype)
        np.maximum.at(out, flat, vals)
        # as TF: an output with no present values is 0
        present = np.zeros(size, dtype=bool)
        present[flat] = True
        return np.where(present, out, vals.dtype.type(0)).reshape(out_shape)

    return kernel


def _sparse_reduce_shape(op):
    # as TF: known only when both the dense shape and the axes are constants (a sparse
    # placeholder's partly known shape gives an unknown output shape, even its rank)
    shape = ops.constant_value(op._inputs[2])
    axes = ops.constant_value(op._inputs[3])
    if shape is None or axes is None:
        return [unknown_shape()]
    shape = [int(d) for d in np.asarray(shape).reshape(-1)]
    rank = len(shape)
    axes = {a % rank for a in np.asarray(axes).reshape(-1).tolist()} if rank else set()
    if op._attrs["keep_dims"]:
        return [TensorShape([1 if i in axes else d for i, d in enumerate(shape)])]
    return [TensorShape([d for i, d in enumerate(shape) if i not in axes])]


def _sparse_reduce_sum_grad(op, grad):
    # TF 1.15's ops: the kept-dims shape from reduced_shape's DynamicStitch, the gradient
    # reshaped to it and gathered at the indices scaled down to it
    from tideflow.ops import array_ops, reduction_ops

    indices, _, dense_shape, axes = op._inputs
    kept = reduction_ops._reduced_shape(dense_shape, axes)
    grad = array_ops.reshape(grad, kept)
    scale = dense_shape // _cast(kept, dtypes.int64)
    return [None, array_ops.gather_nd(grad, indices // scale), None, None]


for _name, _kind, _grad in (("SparseReduceSum", "sum", _sparse_reduce_sum_grad),
                            ("SparseReduceMax", "max", None)):
    op_registry.declare(
        _name,
        inputs=["input_indices: int64", "input_values: T", "input_shape: int64",
                "reduction_axes: int32"],
        outputs=["output: T"],
        attrs=["keep_dims: bool = false",
               "T: numbertype" if _kind == "sum" else "T: realnumbertype"],
        shape=_sparse_reduce_shape,
        kernel=_sparse_reduce(_kind),
        grad=_grad,
    )


def _reduction_dims(sp_input, axis):
    """The axes a sparse reduction takes, as TF passes them: as given (made a tensor by the
    op), or every axis as a plain Const (a range of the rank when it is unknown)."""
    if axis is not None:
        return axis
    rank = _rank_of(sp_input.dense_shape)
    if rank is not None:
        from tideflow.ops import constant_op

        return constant_op.constant(np.arange(rank, dtype=np.int32))
    from tideflow.ops import array_ops, range_ops

    return range_ops.range(0, array_ops.size(sp_input.dense_shape, name="Rank"))


def _sparse_reduce_wrapper(op_type, sp_input, axis, keepdims, reduction_axes, keep_dims):
    if axis is not None and reduction_axes is not None:
        raise ValueError("Can't specify both axis' and 'reduction_indices'.")  # (sic) TF 1.15's
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'")
    axis = axis if axis is not None else reduction_axes
    keepdims = bool(keepdims if keepdims is not None else keep_dims)
    sp_input = _as_sparse(sp_input)
    axis = _reduction_dims(sp_input, axis)
    return ops.apply_op(op_type, [sp_input.indices, sp_input.values, sp_input.dense_shape,
                                  axis], {"keep_dims": keepdims})._outputs[0]


def sparse_reduce_sum(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """The sum of a SparseTensor's values across ``axis`` (all axes when None), dense."""
    return _sparse_reduce_wrapper("SparseReduceSum", sp_input, axis, keepdims, reduction_axes,
                                  keep_dims)


def sparse_reduce_max(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """The max of a SparseTensor's present values across ``axis`` (all when None), dense."""
    return _sparse_reduce_wrapper("SparseReduceMax", sp_input, axis, keepdims, reduction_axes,
                                  keep_dims)


# ------------------------------------------------------------------------------------------
# SparseTensorDenseMatMul
# ------------------------------------------------------------------------------------------


def _sparse_matmul_kernel(a_indices, a_values, a_shape, b, *, adjoint_a, adjoint_b):
    idx = np.asarray(a_indices).astype(np.int64)
    vals = np.asarray(a_values)
    shape = np.asarray(a_shape).astype(np.int64)
    b = np.asarray(b)
    # TF's checks, in its order and words
    if idx.ndim != 2:
        raise _invalid("Tensor 'a_indices' is not a matrix")
    if b.ndim != 2:
        raise _invalid("Tensor 'b' is not a matrix")
    if vals.ndim != 1:
        raise _invalid("Tensor 'a_values' is not a vector")
    if shape.ndim != 1:
        raise _invalid("Tensor 'a_shape' is not a vector")
    if shape.shape[0] != 2:
        raise _invalid("Tensor 'a_shape' must have 2 elements")
    if idx.shape[0] != vals.shape[0]:
        raise _invalid("Number of rows of a_indices does not match number of entries in "
                       "a_values")
    if idx.shape[1] != 2:
        raise _invalid("Number of columns of a_indices does not match number of entries in "
                       "a_shape")
    b_shape = b.shape
    if adjoint_b:
        b = b.conj().T
    rows, cols = idx[:, 0], idx[:, 1]
    m, k = int(shape[0]), int(shape[1])
    if adjoint_a:
        rows, cols, m, k = cols, rows, k, m  # (TF 1.15's kernel does not conjugate A)
    if k != b.shape[0]:
        # (TF's words show A's and B's shapes as given, before any adjoint)
        raise _invalid(f"Cannot multiply A and B because inner dimension does not match: {k} vs."
                       f" {b.shape[0]}.  Did you forget a transpose?  Dimensions of A: "
                       f"[{int(shape[0])}, {int(shape[1])}).  Dimensions of B: {_fmt(b_shape)}")
    bad = np.nonzero((rows < 0) | (rows >= m) | (cols < 0) | (cols >= k))[0]
    if bad.size:
        # TF's words: the first bad entry, its k (column of op(A)) checked before its m
        i = int(bad[0])
        m_col, k_col = (1, 0) if adjoint_a else (0, 1)
        if not 0 <= cols[i] < k:
            raise _invalid(f"k ({cols[i]}) from index[{i},{k_col}] out of bounds (>={k})")
        raise _invalid(f"m ({rows[i]}) from index[{i},{m_col}] out of bounds (>={m})")
    out = np.zeros((m, b.shape[1]), dtype=np.result_type(vals.dtype, b.dtype))
    if idx.shape[0]:
        rows_at(np.add, out, rows, vals[:, None] * b[cols, :])
    return out.astype(b.dtype, copy=False)


def _sparse_matmul_shape(op):
    a, b = _shape_from(op._inputs[2]), _in(op, 3)
    for s in (a, b):  # (TF's words)
        if s.ndims not in (None, 2):
            raise ValueError(f"Shape must be rank 2 but is rank {s.ndims}")
    a = a.merge_with(unknown_shape(2))
    b = b.merge_with(unknown_shape(2))
    m, k = (a.dims[1], a.dims[0]) if op._attrs["adjoint_a"] else (a.dims[0], a.dims[1])
    k_b, n = (b.dims[1], b.dims[0]) if op._attrs["adjoint_b"] else (b.dims[0], b.dims[1])
    if k.value is not None and k_b.value is not None and k.value != k_b.value:
        raise ValueError(f"Dimensions must be equal, but are {k.value} and {k_b.value}")
    return [TensorShape([m, n])]


def _sparse_matmul_grad(op, grad):
    from tideflow.ops import array_ops, reduction_ops

    a_indices, a_values, a_shape, b = op._inputs
    adj_a = op._attrs["adjoint_a"]
    adj_b = op._attrs["adjoint_b"]
    if a_values.dtype.base_dtype.is_complex:
        raise NotImplementedError("SparseTensorDenseMatMul op does not support complex "
                                  "gradients.")
    b_grad = ops.apply_op("SparseTensorDenseMatMul", [a_indices, a_values, a_shape, grad],
                          {"adjoint_a": not adj_a})._outputs[0]
    if adj_b:
        b_grad = array_ops.transpose(b_grad)
    rows, cols = a_indices[:, 0], a_indices[:, 1]
    parts_a = array_ops.gather(grad, cols if adj_a else rows)
    parts_b = array_ops.gather(array_ops.transpose(b) if adj_b else b, rows if adj_a else cols)
    a_values_grad = reduction_ops.reduce_sum(parts_a * parts_b, 1)
    return [None, a_values_grad, None, b_grad]


op_registry.declare(
    "SparseTensorDenseMatMul",
    inputs=["a_indices: Tindices", "a_values: T", "a_shape: int64", "b: T"],
    outputs=["product: T"],
    attrs=["T: type", "Tindices: {int32, int64} = DT_INT64", "adjoint_a: bool = false",
           "adjoint_b: bool = false"],
    shape=_sparse_matmul_shape,
    kernel=_sparse_matmul_kernel,
    grad=_sparse_matmul_grad,
)


def sparse_tensor_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """The dense product of SparseTensor ``sp_a`` (rank 2) and dense matrix ``b``."""
    sp_a = _as_sparse(sp_a, "sp_a")
    with ops.name_scope(name, "SparseTensorDenseMatMul", [sp_a.indices, sp_a.values, b]):
        # (as TF: b keeps its own dtype, so another one is the op's TypeError)
        b = ops.convert_to_tensor(b, name="b")
        return ops.apply_op("SparseTensorDenseMatMul",
                            [sp_a.indices, sp_a.values, sp_a.dense_shape, b],
                            {"adjoint_a": adjoint_a, "adjoint_b": adjoint_b})._outputs[0]


# ------------------------------------------------------------------------------------------
# SparseConcat, SparseReorder, SparseReshape, SparseSlice
# ------------------------------------------------------------------------------------------


def _sparse_concat_kernel(indices, values, shapes, *, concat_dim):
    parts = [_check_sparse(i, v, s) for i, v, s in zip(indices, values, shapes)]
    rank = parts[0][2].shape[0]
    if not -rank <= concat_dim < rank:
        raise _invalid(f"Concat dimension must be in range [{-rank}, {rank}), got {concat_dim}")
    dim = concat_dim % rank
    first = parts[0][2]
    offset = 0
    all_idx, all_vals = [], []
    for n, (idx, vals, shape) in enumerate(parts):
        if shape.shape[0] != rank:
            raise _invalid(f"Ranks of all input tensors must match: expected {rank} but got "
                           f"{shape.shape[0]} at position {n}")
        for d in range(rank):
            if d != dim and shape[d] != first[d]:
                raise _invalid(f"Input shapes must match: expected {first[d]} for dimension {d}"
                               f" but got {shape[d]} at position {n}")
        idx = idx.copy()
        idx[:, dim] += offset
        offset += int(shape[dim])
        all_idx.append(idx)
        all_vals.append(vals)
    idx = np.concatenate(all_idx, 0)
    vals = np.concatenate(all_vals, 0)
    # TF re-sorts row-major so canonical inputs give a canonical result
    order = _order(idx)
    out_shape = first.copy()
    out_shape[dim] = offset
    return idx[order], vals[order], out_shape


def _sparse_concat_shape(op):
    # as TF: each input's entry count (indices rows merged with values length) adds up
    # to the result's; the index width and the dense_shape length merge across inputs
    n = op._attrs["N"]
    total, cols, shape = 0, unknown_shape(1)[0], vector(None)
    for i in range(n):
        idx = _in(op, i).merge_with(unknown_shape(2))
        nnz = idx.dims[0].merge_with(_in(op, n + i).merge_with(unknown_shape(1)).dims[0])
        if cols.value is not None and idx.dims[1].value not in (None, cols.value):
            raise ValueError(f"Dimensions must be equal, but are {cols.value} and "
                             f"{idx.dims[1].value}")  # (TF's words)
        cols = cols.merge_with(idx.dims[1])
        shape = shape.merge_with(_in(op, 2 * n + i))
        total = None if total is None or nnz.value is None else total + nnz.value
    return [matrix(total, cols), vector(total), shape]


op_registry.declare(
    "SparseConcat",
    inputs=["indices: N * int64", "values: N * T", "shapes: N * int64"],
    outputs=["output_indices: int64", "output_values: T", "output_shape: int64"],
    attrs=["concat_dim: int", "N: int >= 2", "T: type"],
    shape=_sparse_concat_shape,
    kernel=_sparse_concat_kernel,
    differentiable=False,
)


def sparse_concat(axis, sp_inputs, name=None, expand_nonconcat_dim=False, concat_dim=None,
                  expand_nonconcat_dims=None):
    """Concatenates SparseTensors along ``axis``.

    With ``expand_nonconcat_dim`` the other dimensions of each input grow to the largest
    among the inputs; otherwise they must match.
    """
    from tideflow.ops import array_ops, reduction_ops

    if concat_dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'concat_dim' and 'axis'")
        axis = concat_dim
    if expand_nonconcat_dims is not None:
        # as TF 1.15, whose lookup sees the older name's default False as given: the newer
        # name is never accepted
        raise ValueError("Cannot specify both 'expand_nonconcat_dim' and "
                         "'expand_nonconcat_dims'")
    if not isinstance(sp_inputs, (list, tuple)):
        raise TypeError("Inputs must be a list")
    sp_inputs = [_as_sparse(s) for s in sp_inputs]
    if len(sp_inputs) == 1:
        return sp_inputs[0]
    shapes = [s.dense_shape for s in sp_inputs]
    axis = int(axis)
    if expand_nonconcat_dim:
        # as TF: the elementwise largest shape, with each input's own size along axis (built
        # outside any name scope, so the op names are TF's: Reshape.., concat, Max, ...)
        largest = reduction_ops.reduce_max(array_ops.concat(
            [array_ops.reshape(s, [1, -1]) for s in shapes], 0), 0)
        shapes = [array_ops.concat([largest[:axis], s[-1:] if axis == -1 else s[axis:axis + 1],
                                    [] if axis == -1 else largest[axis + 1:]], 0)
                  for s in shapes]
    # as TF: the op itself takes the name (no scope around it)
    out = ops.apply_op("SparseConcat", [[s.indices for s in sp_inputs],
                                        [s.values for s in sp_inputs], shapes],
                       {"concat_dim": axis}, name=name)._outputs
    # as TF: shapes its Python constant_value knows give the result a constant dense shape
    # (the expanded shapes are slices, which it does not see through)
    from tideflow.framework.sparse_tensor import _python_value

    known = [_python_value(s) for s in shapes]
    if all(k is not None for k in known):
        dense_shape = np.array(known[0], dtype=np.int64)
        dense_shape[axis] = sum(int(k[axis]) for k in known)
        out = [out[0], out[1], ops.convert_to_tensor(dense_shape)]
    return SparseTensor(*out)


def _sparse_reorder_kernel(input_indices, input_values, input_shape):
    idx, vals, _ = _check_sparse(input_indices, input_values, input_shape)
    order = _order(idx)
    return idx[order], vals[order]


def _sparse_reorder_grad(op, _, values_grad):
    from tideflow.ops import array_ops, range_ops

    indices, _, shape = op._inputs
    n = array_ops.shape(indices)[0]
    entry = range_ops.range(0, n)
    _, perm = ops.apply_op("SparseReorder", [indices, entry, shape])._outputs
    return [None, array_ops.gather(values_grad, array_ops.invert_permutation(perm)), None]


op_registry.declare(
    "SparseReorder",
    inputs=["input_indices: int64", "input_values: T", "input_shape: int64"],
    outputs=["output_indices: int64", "output_values: T"],
    attrs=["T: type"],
    shape=lambda op: [_in(op, 0).merge_with(unknown_shape(2)),
                      _in(op, 1).merge_with(unknown_shape(1))],
    kernel=_sparse_reorder_kernel,
    grad=_sparse_reorder_grad,
)


def sparse_reorder(sp_input, name=None):
    """The same SparseTensor with its entries in canonical row-major order."""
    sp_input = _as_sparse(sp_input)
    idx, vals = ops.apply_op("SparseReorder", [sp_input.indices, sp_input.values,
                                               sp_input.dense_shape], name=name)._outputs
    # as TF: a statically known shape becomes a constant, else the shape passes an Identity
    from tideflow.ops import array_ops

    shape = sp_input.get_shape()
    if shape.is_fully_defined():
        dense_shape = shape.as_list()  # (made a constant in SparseTensor's own scope)
    else:
        dense_shape = array_ops.identity(sp_input.dense_shape)
    return SparseTensor(idx, vals, dense_shape)


def _sparse_reshape_kernel(input_indices, input_shape, new_shape):
    idx = np.asarray(input_indices).astype(np.int64)
    shape = np.asarray(input_shape).astype(np.int64)
    target = np.asarray(new_shape).astype(np.int64)
    if idx.ndim != 2 or shape.ndim != 1 or target.ndim != 1:
        raise _invalid("Input indices should be a matrix and shapes vectors")
    total = int(np.prod(shape))
    # TF's checks, in its order: dimension by dimension (a second -1, then a negative size),
    # then the size to infer; the shapes named as TF's DebugString ([2,3])
    out_shape = target.copy()
    unknown, known = -1, 1
    for d, size in enumerate(target.tolist()):
        if size == -1:
            if unknown != -1:
                raise _invalid(f"only one output dimension may be -1, not both {unknown} and "
                               f"{d}")
            unknown = d
            out_shape[d] = 1
        elif size < 0:
            raise _invalid(f"size {d} must be non-negative, not {size}")
        else:
            known *= size

    def shapes():
        return (f". input_shape=[{','.join(map(str, shape.tolist()))}] "
                f"output_shape=[{','.join(map(str, out_shape.tolist()))}]")

    if unknown != -1:
        if known == 0:  # (TF's words)
            raise _invalid("reshape cannot infer the missing input size for an empty tensor "
                           "unless all specified input sizes are non-zero")
        if total % known:
            raise _invalid(f"Input to reshape is a SparseTensor with {total} dense values, but "
                           f"the requested shape requires a multiple of {known}{shapes()}")
        out_shape[unknown] = total // known
    if int(np.prod(out_shape)) != total:
        raise _invalid(f"Input to reshape is a tensor with {total} dense values, but the "
                       f"requested shape has {int(np.prod(out_shape))}{shapes()}")
    # as TF's kernel: row-major strides, C++'s truncating division, and no bounds check (an
    # index outside the input shape lands outside the output shape)
    linear = idx @ _row_major_strides(shape)
    out = np.empty((idx.shape[0], out_shape.size), np.int64)
    for j, stride in enumerate(_row_major_strides(out_shape)):
        q = np.where(linear >= 0, linear // stride, -(-linear // stride))
        out[:, j] = q
        linear = linear - q * stride
    return out, out_shape


def _row_major_strides(shape):
    strides = np.ones(len(shape), np.int64)
    for j in range(len(shape) - 2, -1, -1):
        strides[j] = strides[j + 1] * shape[j + 1]
    return strides


def _sparse_reshape_shape(op):
    rank = _in(op, 2).dims[0].value if _in(op, 2).ndims == 1 else None
    return [matrix(_in(op, 0).dims[0] if _in(op, 0).ndims == 2 else None, rank), vector(rank)]


op_registry.declare(
    "SparseReshape",
    inputs=["input_indices: int64", "input_shape: int64", "new_shape: int64"],
    outputs=["output_indices: int64", "output_shape: int64"],
    shape=_sparse_reshape_shape,
    kernel=_sparse_reshape_kernel,
    differentiable=False,
)


def _literal_shape(shape):
    """The entries of a 1-D shape tensor written as constants (a Const, or a Pack of
    scalars, None where one is computed), as TF 1.15's sparse_reshape reads its new shape; None
    when it is computed as a whole."""
    op = shape.op
    while op.type == "Cast":
        op = op.inputs[0].op
    if op.type == "Const":
        v = ops.constant_value(op.outputs[0])
        return None if v is None else [int(d) for d in np.asarray(v).reshape(-1)]
    if op.type == "Pack":
        out = []
        for t in op.inputs:
            v = ops.constant_value(t) if t.op.type == "Const" else None
            out.append(None if v is None or int(v) < 0 else int(v))
        return out
    return None


def _sparse_reshape_shape_value(op, index):
    """The new dense shape of a SparseReshape whose input shape and new shape fold to
    constants, as TF's C++ shape inference knows it (its Python code makes no Const then)."""
    if index != 1:
        return None
    in_shape = ops.constant_value(op.inputs[1])
    wanted = ops.constant_value(op.inputs[2])
    if in_shape is None or wanted is None:
        return None
    wanted = [int(d) for d in np.asarray(wanted).reshape(-1)]
    size = int(np.prod(np.asarray(in_shape, np.int64)))
    if wanted.count(-1) == 1:
        known = int(np.prod([d for d in wanted if d != -1], dtype=np.int64))
        if not known:
            return None
        wanted[wanted.index(-1)] = size // known
    if -1 in wanted or int(np.prod(wanted, dtype=np.int64)) != size:
        return None
    return np.asarray(wanted, np.int64)


ops.register_constant_value("SparseReshape", _sparse_reshape_shape_value,
                            shape_inference_only=True)


def sparse_reshape(sp_input, shape, name=None):
    """The SparseTensor reshaped to ``shape`` (one dimension may be -1), as dense reshape."""
    from tideflow.ops.cast_ops import cast

    sp_input = _as_sparse(sp_input)
    # as TF 1.15: the shape cast to int64 before the op's scope; the op takes the scope's name
    # and the values pass through an Identity
    shape = cast(shape, dtypes.int64)
    with ops.name_scope(name, "SparseReshape", [sp_input]) as scope:
        idx, out_shape = ops.apply_op("SparseReshape", [sp_input.indices, sp_input.dense_shape,
                                                        shape], name=scope)._outputs
        wanted = _literal_shape(shape)
        in_shape = sp_input.get_shape()
        if wanted is not None and wanted.count(None) <= 1 and in_shape.is_fully_defined():
            # a constant new shape: checked and completed now, and it is the result's dense
            # shape (else the kernel checks when the step runs)
            wanted = [-1 if d is None else d for d in wanted]
            if wanted.count(-1) > 1:
                raise ValueError("At most one dimension can be inferred (-1). Found: "
                                 f"{np.array(wanted)}")  # (TF prints the NumPy value)
            size = int(np.prod(in_shape.as_list(), dtype=np.int64))
            full = list(wanted)
            if -1 in full:
                known = int(np.prod([d for d in full if d != -1], dtype=np.int64))
                full[full.index(-1)] = size // known if known else 0
            if int(np.prod(full, dtype=np.int64)) != size:
                shown = [None if d == -1 else d for d in wanted]  # TF's message shows None
                raise ValueError(f"Cannot reshape a tensor with {size} elements to shape "
                                 f"{shown} ({int(np.prod(full, dtype=np.int64))} elements).")
            from tideflow.ops import constant_op

            out_shape = constant_op.constant(full, dtype=dtypes.int64)
        from tideflow.ops import array_ops

        return SparseTensor(idx, array_ops.identity(sp_input.values), out_shape)


def _sparse_slice_kernel(indices, values, shape, start, size):
    idx, vals, shp = _check_sparse(indices, values, shape)
    start = np.asarray(start).astype(np.int64)
    size = np.asarray(size).astype(np.int64)
    for what, v in (("start", start), ("size", size)):  # (TF's words)
        if v.shape != shp.shape:
            raise _invalid(f"Expected {what} to be a vector of length {shp.shape[0]} but got "
                           f"length {v.reshape(-1).shape[0]}")
    end = np.minimum(start + size, shp)
    # as TF: the window picked from is start + size as asked (an index past the shape inside
    # it is kept), the output shape is clipped to the input's
    keep = (np.all((idx >= start) & (idx < start + size), axis=1) if idx.shape[0]
            else np.zeros(0, bool))
    out_shape = np.maximum(end - start, 0)
    return idx[keep] - start, vals[keep], out_shape


def _sparse_slice_grad(op, *grads):
    # each sliced value's gradient goes back to its place among the input's values
    val_grad = ops.apply_op("SparseSliceGrad", [grads[1], op._inputs[0], op._inputs[3],
                                                op._outputs[0]])._outputs[0]
    val_grad.set_shape(_in(op, 1))
    return [None, val_grad, None, None, None]


op_registry.declare(
    "SparseSlice",
    inputs=["indices: int64", "values: T", "shape: int64", "start: int64", "size: int64"],
    outputs=["output_indices: int64", "output_values: T", "output_shape: int64"],
    attrs=["T: type"],
    shape=lambda op: [matrix(None, _rank_of(op._inputs[2])), vector(None),
                      _in(op, 2).merge_with(unknown_shape(1))],
    kernel=_sparse_slice_kernel,
    grad=_sparse_slice_grad,
)


def fold_in_shape_inference(op_type):
    """Folds `op_type` (its kernel on constant inputs) while shapes are inferred only."""
    # array_ops imports this module: take its constant fold on first use of it
    def fold(op, i):
        from tideflow.ops.array_ops import _fold

        return _fold(op, i)

    ops.register_constant_value(op_type, fold, shape_inference_only=True)


# as TF's shape refiner: a slice of a constant SparseTensor has its dense shape while shapes
# are inferred (to_dense of it is static), but TF's Python constant_value stops at the op, so
# the slice's own get_shape() is unknown
fold_in_shape_inference("SparseSlice")


def _sparse_slice_grad_kernel(backprop_val_grad, input_indices, input_start, output_indices):
    grad = np.asarray(backprop_val_grad)
    inp = np.asarray(input_indices, dtype=np.int64)
    out = np.asarray(output_indices, dtype=np.int64) + np.asarray(input_start, np.int64)
    where = {tuple(r): k for k, r in enumerate(inp.tolist())}
    val_grad = np.zeros(inp.shape[0], dtype=grad.dtype)
    for k, r in enumerate(out.tolist()):
        if tuple(r) not in where:
            raise _invalid("Elements of output_indices not found in input_indices.")
        val_grad[where[tuple(r)]] = grad[k]
    return val_grad


op_registry.declare(
    "SparseSliceGrad",
    inputs=["backprop_val_grad: T", "input_indices: int64", "input_start: int64",
            "output_indices: int64"],
    outputs=["val_grad: T"],
    attrs=["T: numbertype"],
    shape=lambda op: [vector(_in(op, 1).merge_with(unknown_shape(2)).dims[0].value)],
    kernel=_sparse_slice_grad_kernel,
    differentiable=False,
)


def sparse_slice(sp_input, start, size, name=None):
    """The entries of ``sp_input`` inside the box [start, start + size), re-based at 0."""
    sp_input = _as_sparse(sp_input)
    start = ops.convert_to_tensor(start, dtype=dtypes.int64)
    size = ops.convert_to_tensor(size, dtype=dtypes.int64)
    with ops.name_scope(name, "SparseSlice", [sp_input]) as scope:
        # as TF: the op takes the scope's own name
        out = ops.apply_op("SparseSlice", [sp_input.indices, sp_input.values,
                                           sp_input.dense_shape, start, size],
                           name=scope)._outputs
        return SparseTensor(*out)
