"""Indexing by value: Gather/GatherV2/GatherNd, ScatterNd, Where, Select/SelectV2, Unique,
InvertPermutation.
"""

import collections

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.dispatch import add_dispatch_support
from tideflow.framework.indexed_slices import IndexedSlices
from tideflow.framework.tensor_shape import TensorShape
from tideflow.kernels.scatter import nd_at
from tideflow.ops import array_ops, constant_op
from tideflow.ops.array_ops import (
    _check_rank,
    _fold,
    _in,
    _invalid,
    _np,
    _register_fold,
    _shape_str,
    constant_value_as_shape,
    reshape,
    shape,
    transpose,
)
from tideflow.ops.elementwise import broadcast_shape
from tideflow.ops.fill_ops import zeros_like
from tideflow.ops.gradients import dense

_INDEX = "Tindices: {int32, int64}"

# ------------------------------------------------------------------------------------------
# Gather, GatherV2
# ------------------------------------------------------------------------------------------


def _check_indices(indices, n):
    bad = (indices < 0) | (indices >= n)
    if bad.any():
        pos = tuple(np.argwhere(bad)[0])
        where = ",".join(str(int(p)) for p in pos)
        where = f"[{where}]" if pos else ""  # a scalar index: TF's "indices = 5 ..."
        raise _invalid(f"indices{where} = {indices[pos]} is not in [0, {n})")


def _gather(params, indices, axis):
    params = _np(params)
    indices = np.asarray(indices)
    r = params.ndim
    if r == 0:
        raise _invalid("params must be at least 1 dimensional")
    if not -r <= axis < r:
        raise _invalid(f"Expected axis in the range [{-r}, {r}), but got {axis}")
    axis %= r
    _check_indices(indices, params.shape[axis])
    out = np.take(params, indices, axis=axis)
    return out if type(out) is np.ndarray else np.asarray(out, dtype=params.dtype)


def _gather_v2_kernel(params, indices, axis, *, batch_dims=0):
    if not batch_dims:
        return _gather(params, indices, int(axis))
    return _batch_gather(_np(params), np.asarray(indices), int(axis), batch_dims)


def _batch_gather(params, indices, axis, batch_dims):
    """TF 1.15's GatherV2 kernel with batch_dims: its checks in its order and words; the
    indices are read as [batch, N / batch] rows of params' batch size (TF 1.15 does not compare
    the two tensors' batch dimensions); a bad index is named by its place in the indices."""
    r = params.ndim
    if r == 0:
        raise _invalid("params must be at least 1 dimensional")
    if not -r <= axis < r:
        raise _invalid(f"Expected axis in the range [{-r}, {r}), but got {axis}")
    axis %= r
    n_ix = indices.ndim
    b = batch_dims + n_ix if batch_dims < 0 else batch_dims
    if not -n_ix <= b < n_ix:
        raise _invalid(f"Expected batch_dims in the range [{-n_ix}, {n_ix}), but got {b}")
    if b >= r:
        raise _invalid(f"batch_dims ({b}) must be less than rank(params) ({r}).")
    if axis < b:
        raise _invalid(f"batch_dims ({b}) must be less than or equal to axis ({axis}).")
    n = int(np.prod(params.shape[:b], dtype=np.int64))
    rows = indices.size // n if n else 0
    out_shape = params.shape[:axis] + indices.shape[b:] + params.shape[axis + 1:]
    if params.shape[:b] != indices.shape[:b] and rows != int(
            np.prod(indices.shape[b:], dtype=np.int64)):
        # (TF 1.15 aborts the process here: its output holds more or fewer rows than it reads)
        raise _invalid(f"params.shape[:{b}] {list(params.shape[:b])} does not match "
                       f"indices.shape[:{b}] {list(indices.shape[:b])}")
    flat = indices.reshape(-1)[:n * rows]
    g = params.shape[axis]
    bad = (flat < 0) | (flat >= g)
    if bad.any():
        i = int(np.argmax(bad))
        raise _invalid(f"indices{_slice_str(i, indices.shape)} = {flat[i]} is not in [0, {g})")
    if n == 0 or rows == 0:
        return np.zeros(out_shape, params.dtype)
    p = params.reshape((n,) + params.shape[b:])
    ix = flat.reshape(n, rows)
    return np.stack([np.take(p[k], ix[k], axis=axis - b) for k in range(n)]).reshape(out_shape)


def _gather_shape_for(p, ix, axis):
    if axis is None:
        if p.ndims == 0:
            raise ValueError("Shape must be at least rank 1 but is rank 0")
        if p.ndims is None or ix.ndims is None:
            return None
        return [None] * (p.ndims + ix.ndims - 1)
    if p.ndims is None:
        return None
    r = p.ndims
    if r == 0 or not -r <= axis < r:
        raise ValueError(f"Shape must be at least rank {axis + 1 if axis >= 0 else -axis} but is "
                         f"rank {r}")
    axis %= r
    if ix.ndims is None:
        return None
    return p.dims[:axis] + ix.dims + p.dims[axis + 1:]


def _rows_grad(params, indices, grad, v2=False):
    """The gradient of an axis-0 gather: rows of ``grad`` as IndexedSlices of ``params``,
    built from TF 1.15's ops (GatherV2's takes the params' shape as int64, then casts it)."""
    from tideflow.ops import cast_ops, concat_ops

    if not v2 and params._dtype == dtypes.resource:
        # a resource variable's sparse_read (TF's ResourceGather): its static shape as a
        # Const when known (TF's variable_shape), no colocation
        from tideflow.ops.resource_variable_ops import _var_shape, variable_shape

        known = _var_shape(params)
        if known.is_fully_defined():
            params_shape = constant_op.constant(known.as_list(), dtypes.int32)
        else:
            params_shape = variable_shape(params)
    else:
        with ops.colocate_with(params):
            if v2:
                params_shape = cast_ops.cast(shape(params, out_type=dtypes.int64),
                                             dtypes.int32)
            else:
                params_shape = shape(params)
    size = array_ops.expand_dims(array_ops.size(indices), 0)
    values_shape = concat_ops.concat([size, params_shape[1:]], 0)
    # (an IndexedSlices grad is densified by the Reshape's conversion, "Reshape/tensor", as TF)
    values = reshape(grad, values_shape)
    return IndexedSlices(values, reshape(indices, size), params_shape)


def _gather_grad(op, grad):
    return [_rows_grad(op._inputs[0], op._inputs[1], grad), None]


def _gather_v2_grad(op, grad):
    """TF 1.15's: for a constant axis 0, the rows of ``grad`` as IndexedSlices; for any other
    axis (negative ones too, as there) a dense gradient from TF's ops: the axis moved next to
    the batch dimensions, rows summed by index (offset per batch entry), and moved back."""
    from tideflow.ops import cast_ops, concat_ops, range_ops

    params, indices, axis_t = op._inputs
    batch_dims = int(op._attrs.get("batch_dims") or 0)
    if batch_dims < 0:
        batch_dims += indices.get_shape().ndims
    a = ops.constant_value(axis_t)
    if a is not None and int(a) == 0:
        return [_rows_grad(params, indices, grad, v2=True), None, None]
    with ops.colocate_with(params):
        params_shape = cast_ops.cast(shape(params, out_type=dtypes.int64), dtypes.int32)
    array_ops.expand_dims(array_ops.size(indices), 0)  # (made by TF, used by its axis-0 case)
    outer_shape = params_shape[:axis_t]
    inner_shape = params_shape[axis_t:][1:]
    values_shape = concat_ops.concat([outer_shape, [-1], inner_shape], 0)
    values_dims = array_ops.size(values_shape)
    axis_dims = array_ops.size(outer_shape)
    outer_batches = range_ops.range(batch_dims)
    batch_axes = range_ops.range(batch_dims, axis_dims)
    inner_axes = range_ops.range(axis_dims + 1, values_dims)
    values = reshape(grad, values_shape)  # (densified inside the Reshape, as TF)
    perm = concat_ops.concat([outer_batches, [axis_dims], batch_axes, inner_axes], 0)
    values = transpose(values, perm)
    summed = _batch_gather_grad(params_shape, values, indices, batch_dims,
                                params_shape[axis_t])
    inverse = concat_ops.concat([outer_batches, batch_axes + 1, [batch_dims], inner_axes], 0)
    return [transpose(summed, inverse), None, None]


def _batch_gather_grad(params_shape, values, indices, batch_dims, gather_dim_size):
    """TF 1.15's _BatchGatherGrad: the rows of ``values`` summed by index, the batch
    dimensions flattened into the index (and put back after)."""
    from tideflow.ops import concat_ops, reduction_ops

    indices_size = array_ops.expand_dims(array_ops.size(indices), 0)
    if batch_dims:
        values_shape = shape(values)
        outer_shape = values_shape[:batch_dims]
        inner_shape = values_shape[batch_dims:][1:]
        batch_size = reduction_ops.reduce_prod(outer_shape, [0])
        flat_values_shape = concat_ops.concat([[-1], inner_shape], 0)
        gather_dim_size *= batch_size
        indices = _batch_indices(params_shape, indices, batch_dims)
        values = reshape(values, flat_values_shape)
    indices = reshape(indices, indices_size)
    params_grad = reduction_ops.unsorted_segment_sum(values, indices, gather_dim_size)
    if batch_dims:
        params_grad = reshape(params_grad, concat_ops.concat([outer_shape, flat_values_shape], 0))
    return params_grad


def _batch_indices(params_shape, indices, batch_dims):
    """TF 1.15's _GetBatchIndices: each index offset by its batch entry's first row."""
    from tideflow.ops import cast_ops, concat_ops, fill_ops, range_ops

    batch_indices = indices
    nd = indices.get_shape().ndims
    dt = indices.dtype.base_dtype
    casted = cast_ops.cast(params_shape, dt)
    accum = fill_ops.ones((), dtype=dt)
    for dim in range(batch_dims, 0, -1):
        dim_value = casted[dim - 1]
        accum *= casted[dim]
        start = fill_ops.zeros((), dtype=dt)
        step = fill_ops.ones((), dtype=dt)
        dim_indices = range_ops.range(start, dim_value, step)
        dim_indices *= accum
        dim_shape = concat_ops.stack([1] * (dim - 1) + [dim_value] + [1] * (nd - dim), axis=0)
        batch_indices += reshape(dim_indices, dim_shape)
    return batch_indices


op_registry.declare(
    "Gather",
    inputs=["params: Tparams", "indices: Tindices"],
    outputs=["output: Tparams"],
    attrs=["validate_indices: bool = true", "Tparams: type", _INDEX],
    shape=lambda op: [_gather_shape_for(_in(op, 0), _in(op, 1), 0)],
    kernel=lambda params, indices: _gather(params, indices, 0),
    grad=_gather_grad,
)


def _gather_v2_shape(op):
    _check_rank(_in(op, 2), 0)
    axis = ops.constant_value(op._inputs[2])
    batch_dims = op._attrs.get("batch_dims") or 0
    if batch_dims:
        return [_batch_gather_shape(_in(op, 0), _in(op, 1),
                                    None if axis is None else int(axis), batch_dims)]
    return [_gather_shape_for(_in(op, 0), _in(op, 1), None if axis is None else int(axis))]


def _batch_gather_shape(p, ix, axis, batch_dims):
    """TF 1.15's GatherV2 shape function with batch_dims: params[:axis] +
    indices[batch_dims:] + params[axis + 1:] (params' batch dimensions, not merged with the
    indices'); an unknown axis gives rank(params) + rank(indices) - 1 dimensions, batch_dims
    not taken off (as TF 1.15 does)."""
    if p.ndims == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    if axis is None:
        if p.ndims is None or ix.ndims is None:
            return None
        return [None] * (p.ndims + ix.ndims - 1)
    if p.ndims is not None and p.ndims < (-axis if axis < 0 else axis + 1):
        raise ValueError(f"Shape must be at least rank {-axis if axis < 0 else axis + 1} but "
                         f"is rank {p.ndims}")
    if p.ndims is not None and p.ndims < batch_dims + 1:
        raise ValueError(f"Shape must be at least rank {batch_dims + 1} but is rank "
                         f"{p.ndims}")
    if ix.ndims is None:
        return None
    if batch_dims < -ix.ndims:
        raise ValueError(f"Subshape start out of bounds: {batch_dims}, for shape with rank "
                         f"{ix.ndims}")
    if p.ndims is None:
        return None
    # (TF's Subshape clamps a start past the rank to the rank)
    b = batch_dims + ix.ndims if batch_dims < 0 else min(batch_dims, ix.ndims)
    a = axis % p.ndims
    return p.dims[:a] + ix.dims[b:] + p.dims[a + 1:]


op_registry.declare(
    "GatherV2",
    inputs=["params: Tparams", "indices: Tindices", "axis: Taxis"],
    outputs=["output: Tparams"],
    attrs=["batch_dims: int = 0", "Tparams: type", _INDEX, "Taxis: {int32, int64}"],
    shape=_gather_v2_shape,
    kernel=_gather_v2_kernel,
    grad=_gather_v2_grad,
)


@add_dispatch_support  # RaggedTensor params or indices: ragged gather
def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """Gathers slices of ``params`` along ``axis`` at ``indices``; the first ``batch_dims``
    dimensions of both are matched up (``axis`` defaults to ``batch_dims``)."""
    del validate_indices
    if axis is None:
        axis = batch_dims
    if batch_dims and (ops.constant_value(axis) if isinstance(axis, ops.Tensor) else axis) != 0:
        # TF 1.15's tf.gather: one GatherV2 with the batch_dims attr (axis defaults to it);
        # a constant axis 0 takes the plain gather below, batch_dims dropped, as TF's does
        return ops.apply_op("GatherV2", [params, indices, axis], {"batch_dims": batch_dims},
                            name=name)._outputs[0]
    sparse_read = getattr(params, "sparse_read", None)
    if axis == 0 and sparse_read is not None and not isinstance(params, ops.Tensor):
        return sparse_read(indices, name=name)
    return ops.apply_op("GatherV2", [params, indices, axis], name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# GatherNd, ScatterNd
# ------------------------------------------------------------------------------------------


def _gather_nd_shape(op):
    p, ix = _in(op, 0), _in(op, 1)
    if ix.ndims == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    if ix.ndims is None or ix.dims[-1].value is None:
        return [None]
    k = ix.dims[-1].value
    if p.ndims is None:
        return [None]
    if k > p.ndims:
        raise ValueError(
            f"indices.shape[-1] must be <= params.rank, but saw indices shape: {_shape_str(ix)} "
            f"and params shape: {_shape_str(p)}"
        )
    return [ix.dims[:-1] + p.dims[k:]]


def _slice_str(i, shape):
    """TF's SliceDebugString: flat position ``i`` in ``shape`` as [a,b] ([i] for a vector, ''
    for a scalar)."""
    if not len(shape):
        return ""
    if len(shape) == 1:
        return f"[{i}]"
    return "[" + ",".join(str(int(j)) for j in np.unravel_index(i, shape)) + "]"


def _nd_index(indices, shape, what):
    k = indices.shape[-1]
    flat = indices.reshape(-1, k)
    limit = np.asarray(shape[:k])
    bad = np.any((flat < 0) | (flat >= limit), axis=1)
    if bad.any():
        i = int(np.argmax(bad))
        raise _invalid(
            f"indices{_slice_str(i, indices.shape[:-1])} = {flat[i].tolist()} does not index "
            f"into {what}shape {_shape_str(list(shape))}"
        )
    return tuple(np.moveaxis(indices, -1, 0))


def _gather_nd_kernel(params, indices):
    params = _np(params)
    indices = np.asarray(indices)
    if params.ndim == 0:  # (TF's kernel check, first)
        raise _invalid("params must be at least a vector")
    if indices.ndim == 0:
        raise _invalid("indices must be at least a vector")
    k = indices.shape[-1]
    if k > params.ndim:
        raise _invalid(
            f"index innermost dimension length must be <= params rank; saw: {k} vs. "
            f"{params.ndim}"
        )
    if params.size == 0 and indices.size:
        raise _invalid(f"Requested more than 0 entries, but params is empty.  Params shape: "
                       f"{_shape_str(params.shape)}")
    if k == 0:
        out = np.broadcast_to(params, indices.shape[:-1] + params.shape).copy()
    else:
        flat = indices.reshape(-1, k)
        bad = np.any((flat < 0) | (flat >= np.asarray(params.shape[:k])), axis=1)
        if bad.any():  # TF 1.15's words: the bad index vector's position among them
            i = int(np.argmax(bad))
            at = _slice_str(i, indices.shape[:-1])
            raise _invalid(f"indices{at} = [{', '.join(map(str, flat[i].tolist()))}] does not "
                           f"index into param shape {_shape_str(params.shape)}")
        out = params[tuple(np.moveaxis(indices, -1, 0))]
    return out if type(out) is np.ndarray else np.asarray(out, dtype=params.dtype)


def _gather_nd_grad(op, grad):
    params, indices = op._inputs
    params_shape = shape(params, out_type=indices.dtype.base_dtype)
    ix = indices.get_shape()
    if ix.ndims == 2 and ix.dims[-1].value == 1:
        rows = array_ops.squeeze(indices, axis=[-1])
        return [IndexedSlices(dense(grad), rows, params_shape), None]
    return [scatter_nd(indices, dense(grad), params_shape), None]


def _scatter_nd_grad(op, grad):
    return [None, gather_nd(dense(grad), op._inputs[0]), None]


op_registry.declare(
    "GatherNd",
    inputs=["params: Tparams", "indices: Tindices"],
    outputs=["output: Tparams"],
    attrs=["Tparams: type", _INDEX],
    shape=_gather_nd_shape,
    kernel=_gather_nd_kernel,
    grad=_gather_nd_grad,
)


def scatter_shape_mismatch(ix, up, target, target_name="input"):
    """TF's shape-function error when ``updates`` does not fit ``indices`` and the target:
    the leading (index) dimensions first, then the trailing (slice) ones."""
    k = ix.dims[-1].value
    outer = ix.ndims - 1
    if up.ndims < outer or not TensorShape(up.dims[:outer]).is_compatible_with(
            TensorShape(ix.dims[:-1])):
        return ValueError(
            f"The outer {outer} dimensions of indices.shape={_shape_str(ix)} must match the "
            f"outer {outer} dimensions of updates.shape={_shape_str(up)}: "
            f"{_merge_error(ix.dims[:-1], up.dims[:outer])}")
    return ValueError(
        f"The inner {max(target.ndims - k, 0)} dimensions of {target_name}.shape="
        f"{_shape_str(target)} must match the inner {up.ndims - outer} dimensions of "
        f"updates.shape={_shape_str(up)}: {_merge_error(target.dims[k:], up.dims[outer:])}")


def _merge_error(a, b):
    """TF's shape-inference Merge error for two partial shapes (lists of Dimensions)."""
    if len(a) != len(b):
        return f"Shapes must be equal rank, but are {len(a)} and {len(b)}"
    for i, (x, y) in enumerate(zip(a, b)):
        if x.value is not None and y.value is not None and x.value != y.value:
            return (f"Dimension {i} in both shapes must be equal, but are {x.value} and "
                    f"{y.value}. Shapes are {_shape_str(TensorShape(a))} and "
                    f"{_shape_str(TensorShape(b))}.")
    return ""


def check_empty_target(target, ix, up):
    """TF's static check: indices or updates known non-empty for a known empty target."""
    size = target.num_elements() if target.is_fully_defined() else None
    ix_size = ix.num_elements() if ix.is_fully_defined() else 0
    up_size = up.num_elements() if up.is_fully_defined() else 0
    if size == 0 and (ix_size or up_size):
        raise ValueError("Indices and updates specified for empty output shape")


def _empty_target_error(ix_size, up_size, target_size):
    if target_size == 0 and (ix_size or up_size):
        return "Indices and updates specified for empty output shape"
    return None


def _scatter_nd_shape(op):
    ix, up = _in(op, 0), _in(op, 1)
    if up.ndims == 0:  # (TF's shape function: updates of rank at least 1)
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    _check_rank(_in(op, 2), 1)
    out = constant_value_as_shape(op._inputs[2])
    check_empty_target(out, ix, up)
    if ix.ndims is not None and ix.dims[-1].value is not None and up.ndims is not None and (
        out.ndims is not None
    ):
        k = ix.dims[-1].value
        want = TensorShape(ix.dims[:-1] + out.dims[k:])
        if not up.is_compatible_with(want):
            raise scatter_shape_mismatch(ix, up, out, "output")
    return [out]


def _scatter_nd_check(indices, updates, shape_input):
    """TF 1.15's ScatterNd kernel checks, in its order and words (the shape function has
    checked what the graph knew)."""
    ix, up = indices.shape, updates.shape
    if len(ix) < 1:
        raise _invalid(f"Indices shape must have rank at least one. Found:{_shape_str(ix)}")
    if len(up) < 1:
        raise _invalid(f"Updates shape must have rank at least one. Found:{_shape_str(up)}")
    shp = [int(v) for v in np.reshape(shape_input, -1)]
    outer = len(ix) - 1
    if any(i >= len(up) or ix[i] != up[i] for i in range(outer)):
        raise _invalid(f"Outer dimensions of indices and update must match. Indices shape: "
                       f"{_shape_str(ix)}, updates shape:{_shape_str(up)}")
    k = ix[-1]
    if len(up) - outer != len(shp) - k:
        raise _invalid(f"Inner dimensions of output shape must match inner dimensions of "
                       f"updates shape. Output: {_shape_str(shp)} updates: {_shape_str(up)}")
    if any(up[i + outer] != shp[k + i] for i in range(len(up) - outer)):
        raise _invalid(f"The inner {len(shp) - k} dimensions of output.shape="
                       f"{_shape_str(shp)} must match the inner {len(up) - outer} dimensions "
                       f"of updates.shape={_shape_str(up)}")
    if np.ndim(shape_input) != 1:
        raise _invalid("Shape must be a vector")
    if _empty_target_error(indices.size, updates.size, int(np.prod(shp))):
        raise _invalid(f"Indices and updates specified for empty output.  indices shape: "
                       f"{_shape_str(ix)}")
    return shp, k


def _scatter_nd_kernel(indices, updates, shape):
    indices = np.asarray(indices)
    updates = _np(updates)
    shp, k = _scatter_nd_check(indices, updates, shape)
    if updates.dtype == object:  # strings: duplicates concatenate onto "" (TF's string sum)
        out = np.full(shp, b"", dtype=object)
    else:
        out = np.zeros(shp, dtype=updates.dtype)
    if k == 0:
        rows = int(np.prod(indices.shape[:-1]))
        return out + updates.reshape((rows,) + tuple(shp)).sum(0, dtype=updates.dtype)
    _nd_index(indices, shp, "")  # (its bounds check)
    nd_at(np.add, out, indices, updates)
    return out


op_registry.declare(
    "ScatterNd",
    inputs=["indices: Tindices", "updates: T", "shape: Tindices"],
    outputs=["output: T"],
    attrs=["T: type", _INDEX],
    shape=_scatter_nd_shape,
    kernel=_scatter_nd_kernel,
    grad=_scatter_nd_grad,
)


@add_dispatch_support  # RaggedTensor params or indices: ragged gather_nd
def gather_nd(params, indices, name=None, batch_dims=0):
    """Gathers slices of ``params`` at the multi-dimensional ``indices``; the first
    ``batch_dims`` dimensions of both are matched up."""
    if isinstance(batch_dims, (ops.Tensor, np.ndarray)):
        # a constant tensor (or a one-element vector) as TF 1.x: its value
        value = ops.constant_value(batch_dims) if isinstance(batch_dims, ops.Tensor) else \
            batch_dims
        if value is not None:
            batch_dims = int(np.reshape(value, -1)[0]) if np.size(value) == 1 else value
    if isinstance(batch_dims, (int, np.integer)) and batch_dims == 0:
        return ops.apply_op("GatherNd", [params, indices], name=name)._outputs[0]
    return batch_gather_nd(params, indices, batch_dims, name)


def batch_gather_nd(params, indices, batch_dims, name=None):
    """``gather_nd`` per batch: each index vector gains its (flattened) batch coordinate."""
    from tideflow.ops import cast_ops, concat_ops, range_ops, reduction_ops, slicing_ops

    with ops.name_scope(name, "BatchGatherND", [params, indices]):
        params = ops.convert_to_tensor(params, name="params")
        indices = ops.convert_to_tensor(indices, name="indices")
        if not isinstance(batch_dims, (int, np.integer)):
            raise TypeError(f"batch_dims must be an int; got {batch_dims!r}")
        batch_dims = int(batch_dims)
        if batch_dims < 0:
            raise ValueError("tf.gather_nd does not allow negative batch_dims.")
        irank = indices.get_shape().ndims
        prank = params.get_shape().ndims
        if irank is not None and batch_dims >= irank:
            raise ValueError(f"batch_dims = {batch_dims} must be less than rank(indices) = "
                             f"{irank}")
        if prank is not None and batch_dims >= prank:
            raise ValueError(f"batch_dims = {batch_dims} must be less than rank(params) = "
                             f"{prank}")
        if batch_dims == 0:
            return ops.apply_op("GatherNd", [params, indices])._outputs[0]
        pshape = shape(params)
        ishape = shape(indices, out_type=indices.dtype)
        depth = indices.get_shape().dims[-1].value if irank is not None else None
        nbatch = reduction_ops.reduce_prod(pshape[:batch_dims])
        flat_params = reshape(params, concat_ops.concat([[nbatch], pshape[batch_dims:]], 0))
        flat_idx = reshape(indices, concat_ops.concat(
            [cast_ops.cast(reshape(nbatch, [1]), indices.dtype), [-1], ishape[-1:]], 0))
        m = shape(flat_idx)[1]
        batch_ix = cast_ops.cast(reshape(range_ops.range(nbatch), [-1, 1, 1]), indices.dtype)
        batch_ix = array_ops.tile(batch_ix, concat_ops.stack([1, m, 1]))
        out = ops.apply_op("GatherNd", [flat_params, concat_ops.concat([batch_ix, flat_idx], 2)]
                           )._outputs[0]
        if depth is not None:
            rest = pshape[batch_dims + depth:]
        else:
            begin = cast_ops.cast(ishape[-1], dtypes.int32) + batch_dims
            rest = slicing_ops.slice(pshape, reshape(begin, [1]), [-1])
        out = reshape(out, concat_ops.concat([cast_ops.cast(ishape[:-1], dtypes.int32), rest],
                                             0))
        if irank is not None and depth is not None and params.get_shape().ndims is not None:
            out.set_shape(indices.get_shape()[:-1].concatenate(
                params.get_shape()[batch_dims + depth:]))
        return out


def scatter_nd(indices, updates, shape, name=None):
    """A zero tensor of ``shape`` with ``updates`` summed in at ``indices``."""
    return ops.apply_op("ScatterNd", [indices, updates, shape], name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# Where, Select, SelectV2
# ------------------------------------------------------------------------------------------


def _where_kernel(x):
    x = np.asarray(x)
    if not x.ndim:  # TF's kernel takes ranks 1 to 8 only
        raise errors.InvalidArgumentError(None, None, "WhereOp : Unhandled input dimensions: 0")
    if x.dtype == np.float16:  # (TF 1.15's CPU kernel is registered for half, and refuses it)
        raise errors.UnimplementedError(
            None, None, "No WhereOp available for float16/half type on CPU; dying in CPU WhereOp "
            "to avoid silently creating costly copies from device.")
    return np.argwhere(x).astype(np.int64, copy=False)


op_registry.declare(
    "Where",
    inputs=["input: T"],
    outputs=["index: int64"],
    attrs=[("T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, "
            "qint32, bfloat16, uint16, complex128, half, uint32, uint64, bool} = DT_BOOL")],
    shape=lambda op: [[None, _in(op, 0).ndims]],
    kernel=_where_kernel,
    differentiable=False,
)


def _select_shape(op):
    # TF 1.15's shape function, merge for merge (each failure in its words): then with else,
    # then the result with a cond of another rank than 0 or 1 (or a cond beside scalars), or a
    # vector cond with the result's first dimension; the output keeps then/else's shape (a
    # cond's known length does not fill in an unknown batch dimension)
    from tideflow.ops.concat_ops import _merge_error

    def merge(a, b):
        err = _merge_error(a, b)
        if err is not None:
            raise ValueError(err)
        return a.merge_with(b)

    c, out = _in(op, 0), merge(_in(op, 1), _in(op, 2))
    if c.ndims is None or out.ndims is None or c.ndims == 0:
        return [out]
    if c.ndims != 1 or out.ndims == 0:
        return [merge(out, c)]
    merge(c, TensorShape([out.dims[0]]))
    return [out]


def _select_kernel(condition, t, e, *, ctx):
    # The checks in TF's order and words: a scalar or (vector cond, higher-rank then) is the
    # broadcasting form; otherwise all three inputs must have one shape.
    c = np.asarray(condition)
    t, e = _np(t), _np(e)
    if c.ndim == 0 or (c.ndim == 1 and t.ndim != 1):
        if c.ndim == 1 and t.ndim == 0:
            raise _invalid(f"'then' must be at least a vector, but saw shape: {_shape_str(t.shape)}")
        if c.ndim == 1 and c.shape[0] != t.shape[0]:
            raise _invalid(
                f"Number of batches of 'then' must match size of 'cond', but saw: "
                f"{t.shape[0]} vs. {c.shape[0]}"
            )
        if t.shape != e.shape:
            raise _invalid(
                f"'then' and 'else' must have the same size.  but received: "
                f"{_shape_str(t.shape)} vs. {_shape_str(e.shape)}"
            )
        if c.ndim == 0:
            return t if c else e
        return np.where(c.reshape((-1,) + (1,) * (t.ndim - 1)), t, e)
    for i, x in ((1, t), (2, e)):
        if x.shape != c.shape:
            raise _invalid(
                f"Inputs to operation {ctx.op.name} of type Select must have the same size and "
                f"shape.  Input 0: {_shape_str(c.shape)} != input {i}: {_shape_str(x.shape)}"
            )
    return np.where(c, t, e)


def _select_grad(op, grad):
    grad = dense(grad)
    c = op._inputs[0]
    zeros = zeros_like(op._inputs[1])  # TF's: of the selected-from input (in a loop, it reads it)
    return [None, select(c, grad, zeros), select(c, zeros, grad)]


op_registry.declare(
    "Select",
    inputs=["condition: bool", "t: T", "e: T"],
    outputs=["output: T"],
    attrs=["T: type"],
    shape=_select_shape,
    kernel=_select_kernel,
    grad=_select_grad,
)


def _select_v2_kernel(condition, t, e):
    try:
        return np.where(condition, _np(t), _np(e))
    except ValueError:
        ts, es = _shape_str(np.shape(t)), _shape_str(np.shape(e))
        try:  # TF 1.15 combines then with else first, then condition with the two
            np.broadcast_shapes(np.shape(t), np.shape(e))
        except ValueError:
            raise _invalid(f"then {ts} and else {es} must be broadcastable") from None
        raise _invalid(f"condition {_shape_str(np.shape(condition))}, then {ts}, and else {es} "
                       "must be broadcastable") from None


def _select_v2_grad(op, grad):
    # TF 1.15's ops: each branch's gradient summed (keepdims) over the axes
    # BroadcastGradientArgs finds against the output's shape, reshaped to the branch's shape
    from tideflow.ops import reduction_ops
    from tideflow.ops.array_ops import reshape, shape
    from tideflow.ops.fill_ops import zeros

    def reduced(g, t_shape, out_shape):
        axes = ops.apply_op("BroadcastGradientArgs", [t_shape, out_shape])._outputs[0]
        return reshape(reduction_ops.reduce_sum(g, axes, keepdims=True), t_shape)

    grad = dense(grad)
    c, x, y = op._inputs
    zero = zeros([], dtype=grad.dtype.base_dtype)
    gx = where_v2(c, grad, zero)
    x_shape, out_shape = shape(x), shape(op._outputs[0])
    gx = reduced(gx, x_shape, out_shape)
    gy = where_v2(c, zero, grad)
    return [None, gx, reduced(gy, shape(y), out_shape)]


op_registry.declare(
    "SelectV2",
    inputs=["condition: bool", "t: T", "e: T"],
    outputs=["output: T"],
    attrs=["T: type"],
    # as TF: then and else broadcast first, then the condition with them
    shape=lambda op: [broadcast_shape(_in(op, 0), broadcast_shape(_in(op, 1), _in(op, 2)))],
    kernel=_select_v2_kernel,
    grad=_select_v2_grad,
)


@add_dispatch_support(elementwise=3)  # ragged condition, x and y: on the flat values
def where(condition, x=None, y=None, name=None):
    """With one argument, the coordinates of true elements; with three, ``x`` where true."""
    if x is None and y is None:
        with ops.name_scope(name, "Where", [condition]) as scope:
            condition = ops.convert_to_tensor(condition, preferred_dtype=dtypes.bool,
                                              name="condition")
            return ops.apply_op("Where", [condition], name=scope)._outputs[0]
    if x is not None and y is not None:
        return ops.apply_op("Select", [condition, x, y], name=name)._outputs[0]
    raise ValueError("x and y must both be non-None or both be None.")


@add_dispatch_support(elementwise=3)  # ragged condition, x and y: on the flat values
def where_v2(condition, x=None, y=None, name=None):
    """Like :func:`where`, with broadcasting among ``condition``, ``x`` and ``y``."""
    if x is None and y is None:
        return where(condition, name=name)
    if x is not None and y is not None:
        return ops.apply_op("SelectV2", [condition, x, y], name=name)._outputs[0]
    raise ValueError("x and y must both be non-None or both be None.")


def select(condition, t, e, name=None):
    """0.x name: ``t`` where ``condition`` is true, else ``e``."""
    return ops.apply_op("Select", [condition, t, e], name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# Unique, InvertPermutation
# ------------------------------------------------------------------------------------------


def _unique_kernel(x, *, out_idx):
    x = _np(x)
    if x.ndim != 1:
        raise _invalid("unique expects a 1D vector.")  # (TF 1.15's words)
    if x.dtype.kind in "iu" and x.size and _unique_small_range(x):
        return _unique_by_table(x, out_idx)
    if x.dtype == np.float16:
        _, first, inverse = np.unique(half_keys(x), return_index=True, return_inverse=True)
    else:
        kw = {"equal_nan": False} if x.dtype.kind in "fc" else {}
        _, first, inverse = np.unique(x, return_index=True, return_inverse=True, **kw)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return x[first[order]], rank[inverse.reshape(-1)].astype(out_idx.as_numpy_dtype)


def half_keys(x):
    """What TF's hash map tells float16 values apart by: their bits (its hash of a half), so
    -0.0 and 0.0 are two values; each NaN is a value of its own (equal to nothing)."""
    key = x.view(np.uint16).astype(np.int64)
    nan = np.isnan(x)
    if nan.any():
        key[nan] = 65536 + np.flatnonzero(nan)
    return key


def _unique_small_range(x):
    return int(x.max()) - int(x.min()) < 2 * x.size + 4096


def _unique_by_table(x, out_idx):
    """Unique of integers within a small range by a table over the range (each value's first
    position), as TF's hash map: no sort of the input."""
    # the offset from the least value, wrapping in x's width and read back unsigned
    key = (x - x.min()).view(f"u{x.itemsize}").astype(np.intp)
    span = int(key.max()) + 1
    first = np.full(span, x.size, dtype=np.intp)
    np.minimum.at(first, key, np.arange(x.size, dtype=np.intp))
    present = np.flatnonzero(first < x.size)
    order = np.argsort(first[present])
    rank = np.empty(span, dtype=np.intp)
    rank[present[order]] = np.arange(order.size)
    return x[first[present[order]]], rank[key].astype(out_idx.as_numpy_dtype)


op_registry.declare(
    "Unique",
    inputs=["x: T"],
    outputs=["y: T", "idx: out_idx"],
    attrs=["T: type", "out_idx: {int32, int64} = DT_INT32"],
    shape=lambda op: [_check_rank(_in(op, 0), 1) or [None], _in(op, 0)],
    kernel=_unique_kernel,  # no gradient, as TF: LookupError when one is asked through it
)

UniqueOutput = collections.namedtuple("Unique", ["y", "idx"])


def unique(x, out_idx=dtypes.int32, name=None):
    """The unique elements of 1-D ``x`` in order of appearance, and each element's index."""
    op = ops.apply_op("Unique", [x], {"out_idx": out_idx}, name=name)
    return UniqueOutput(*op._outputs)


def _invert_permutation_kernel(x):
    x = np.asarray(x)
    if x.ndim != 1:
        raise _invalid(f"invert_permutation expects a 1D vector, got shape {_shape_str(x.shape)}")
    n = x.size
    bad = (x < 0) | (x >= n)
    if bad.any():
        raise _invalid(f"{x[np.argmax(bad)]} is not between 0 and {n}")
    counts = np.bincount(x, minlength=n)
    if (counts > 1).any():
        raise _invalid(f"{int(np.argmax(counts > 1))} is duplicated in the input.")
    y = np.empty_like(x)
    y[x] = np.arange(n, dtype=x.dtype)
    return y


op_registry.declare(
    "InvertPermutation",
    inputs=["x: T"],
    outputs=["y: T"],
    attrs=["T: {int32, int64} = DT_INT32"],
    shape=lambda op: [_check_rank(_in(op, 0), 1) or _in(op, 0).merge_with([None])],
    kernel=_invert_permutation_kernel,
    differentiable=False,
)

_register_fold("Gather", "GatherV2", "GatherNd", "InvertPermutation")
# as TF's shape inference, which evaluates any small constant subgraph (tf.where's indices of
# a constant mask scattered into sizes); TF's Python constant_value stops at these
for _t in ("Where", "SparseToDense"):
    ops.register_constant_value(_t, _fold, shape_inference_only=True)


def invert_permutation(x, name=None):
    """The inverse of permutation ``x`` (a 1-D int tensor)."""
    return ops.apply_op("InvertPermutation", [x], name=name)._outputs[0]

