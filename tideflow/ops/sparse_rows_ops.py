"""Row-wise sparse ops: segment reductions over selected rows (``tf.sparse_segment_*``),
filling empty rows, retaining entries, transposing, and ``tf.sparse_placeholder``.
"""

import numpy as np

from tideflow.framework import dtypes, op_registry, ops
from tideflow.framework.sparse_tensor import SparseTensor
from tideflow.framework.tensor_shape import TensorShape, as_shape, matrix, unknown_shape, vector
from tideflow.kernels.scatter import rows_at
from tideflow.ops.array_ops import _check_rank
from tideflow.ops.conv_ops import _merge
from tideflow.ops.sparse_ops import _as_sparse, _check_sparse, _in, _invalid, sparse_reorder

# ------------------------------------------------------------------------------------------
# SparseSegmentSum / Mean / SqrtN and the Mean / SqrtN gradient ops
# ------------------------------------------------------------------------------------------


def _segment_rows(data, indices, segment_ids):
    data = np.asarray(data)
    idx = np.asarray(indices).astype(np.int64).reshape(-1)
    seg = np.asarray(segment_ids).astype(np.int64).reshape(-1)
    if np.ndim(indices) != 1:
        raise _invalid("indices should be a vector.")
    if np.ndim(segment_ids) != 1:
        raise _invalid("segment_ids should be a vector.")
    if idx.shape != seg.shape:
        raise _invalid(f"segment_ids and indices should have same size. segment_ids: "
                       f"{seg.shape[0]}, indices: {idx.shape[0]}")
    bad = np.nonzero((idx < 0) | (idx >= data.shape[0]))[0]
    if bad.size:
        i = int(bad[0])
        raise _invalid(f"Bad: indices[{i}] == {idx[i]} out of range [0, {data.shape[0]})")
    return data, idx, seg


def _ordered_segment_sums(rows, seg, n, kind):
    """Each segment's rows added in TF 1.15's order (its kernel unrolls by eight): the first
    ``count % 8`` rows (eight when that is 0, nine when 1) one after another, then each
    following eight added up alone and onto the total; a mean or sqrt-n segment of fewer than
    10 rows is scaled after its first part, a longer one at the end (float types)."""
    out = np.zeros((n,) + rows.shape[1:], dtype=rows.dtype)
    new = np.ones(seg.size, dtype=bool)
    new[1:] = seg[1:] != seg[:-1]
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, seg.size))
    for c in np.unique(counts).tolist():
        which = np.flatnonzero(counts == c)
        block = rows[starts[which][:, None] + np.arange(c)]
        acc = block[:, 0].copy()
        if c > 1:
            first = {0: 8, 1: 9}.get(c % 8, c % 8)
            for j in range(1, first):
                acc = acc + block[:, j]
            scale = None
            if kind == "mean":
                scale = rows.dtype.type(c)
            elif kind != "sum":
                scale = rows.dtype.type(np.sqrt(float(c)))
            if scale is not None and c < 10:
                acc = acc / scale
            for b in range(first, c, 8):
                part = block[:, b] + block[:, b + 1]
                for j in range(b + 2, b + 8):
                    part = part + block[:, j]
                acc = acc + part
            if scale is not None and c >= 10:
                acc = acc / scale
        out[seg[starts[which]]] = acc
    return out


def _sparse_segment(kind, with_num_segments=False):
    def kernel(data, indices, segment_ids, *num_segments):
        from tideflow.ops.reduction_ops import segment_output_rows

        if with_num_segments and np.ndim(num_segments[0]) != 0:
            raise _invalid(f"num_segments should be a scalar, not shape "
                           f"{list(np.shape(num_segments[0]))}")
        # the segment ids are checked first, then the indices, as TF's kernel
        seg = np.asarray(segment_ids).astype(np.int64).reshape(-1)
        n = segment_output_rows(seg, int(num_segments[0]) if with_num_segments else None)
        data, idx, seg = _segment_rows(data, indices, segment_ids)
        if data.dtype.kind == "f" and seg.size and (seg[1:] >= seg[:-1]).all():
            return _ordered_segment_sums(data[idx], seg, n, kind)
        out = np.zeros((n,) + data.shape[1:], dtype=data.dtype)
        rows_at(np.add, out, seg, data[idx])
        if kind != "sum":
            counts = np.bincount(seg, minlength=n).astype(data.dtype)
            scale = counts if kind == "mean" else np.sqrt(counts)
            scale = np.where(scale == 0, 1, scale).reshape((n,) + (1,) * (data.ndim - 1))
            out = (out / scale).astype(data.dtype)
        return out

    return kernel


def _sparse_segment_shape(op, rows=None):
    # TF 1.15's checks in its order: data of rank >= 1, indices and segment_ids vectors
    # (num_segments a scalar), then the two vectors' lengths merged
    data = _in(op, 0).with_rank_at_least(1)
    for i in (1, 2):
        _check_rank(_in(op, i), 1)
    if len(op._inputs) > 3:
        _check_rank(_in(op, 3), 0)
    lengths = [_in(op, i).dims[0].value if _in(op, i).dims else None for i in (1, 2)]
    if None not in lengths and lengths[0] != lengths[1]:
        raise ValueError(f"Dimension 0 in both shapes must be equal, but are {lengths[0]} and "
                         f"{lengths[1]}. Shapes are [{lengths[0]}] and [{lengths[1]}].")
    if data.ndims is None:
        return [unknown_shape()]
    return [TensorShape([rows] + data.dims[1:])]


def _sparse_segment_sum_grad(op, grad):
    from tideflow.ops import array_ops, reduction_ops

    data, indices, segment_ids = op._inputs[:3]
    rows = array_ops.shape(data)[0]
    picked = array_ops.gather(grad, segment_ids)
    return [reduction_ops.unsorted_segment_sum(picked, indices, rows), None, None]


def _sparse_segment_scaled_grad(grad_op):
    def grad_fn(op, grad):
        from tideflow.ops import array_ops

        data, indices, segment_ids = op._inputs[:3]
        rows = array_ops.shape(data)[0]
        g = ops.apply_op(grad_op, [grad, indices, segment_ids, rows])._outputs[0]
        return [g, None, None]

    return grad_fn


_SEG_INPUTS = ["data: T", "indices: Tidx", "segment_ids: int32"]
_TIDX = "Tidx: {int32, int64} = DT_INT32"

for _name, _kind, _t, _grad in (
    ("SparseSegmentSum", "sum", "T: realnumbertype", _sparse_segment_sum_grad),
    ("SparseSegmentMean", "mean", "T: {float, double}",
     _sparse_segment_scaled_grad("SparseSegmentMeanGrad")),
    ("SparseSegmentSqrtN", "sqrtn", "T: {float, double}",
     _sparse_segment_scaled_grad("SparseSegmentSqrtNGrad")),
):
    op_registry.declare(_name, inputs=_SEG_INPUTS, outputs=["output: T"], attrs=[_t, _TIDX],
                        shape=_sparse_segment_shape, kernel=_sparse_segment(_kind), grad=_grad)


def _num_segments_shape(op):
    _sparse_segment_shape(op)  # (its checks come first, as TF's)
    n = ops.constant_value(op._inputs[3])
    rows = None if n is None else int(n)
    if rows is not None and rows < 0:
        raise ValueError("Cannot specify a negative value for num_segments")
    return _sparse_segment_shape(op, rows)


def _with_num_segments_grad(grad_fn):
    def fn(op, grad):
        return grad_fn(op, grad) + [None]

    fn.__name__ = grad_fn.__name__ + "_with_num_segments"
    return fn


for _name, _kind, _t, _grad in (
    ("SparseSegmentSumWithNumSegments", "sum", "T: realnumbertype", _sparse_segment_sum_grad),
    ("SparseSegmentMeanWithNumSegments", "mean", "T: {float, double}",
     _sparse_segment_scaled_grad("SparseSegmentMeanGrad")),
    ("SparseSegmentSqrtNWithNumSegments", "sqrtn", "T: {float, double}",
     _sparse_segment_scaled_grad("SparseSegmentSqrtNGrad")),
):
    op_registry.declare(
        _name, inputs=_SEG_INPUTS + ["num_segments: Tnumsegments"], outputs=["output: T"],
        attrs=[_t, _TIDX, "Tnumsegments: {int32, int64} = DT_INT32"],
        shape=_num_segments_shape, kernel=_sparse_segment(_kind, True),
        grad=_with_num_segments_grad(_grad))


def _segment_grad_kernel(kind):
    def kernel(grad, indices, segment_ids, output_dim0):
        grad = np.asarray(grad)
        idx = np.asarray(indices).astype(np.int64).reshape(-1)
        seg = np.asarray(segment_ids).astype(np.int64).reshape(-1)
        n = grad.shape[0]
        # TF's checks and words: the number of segments, then the first bad id, then index
        if seg.size and int(seg[-1]) + 1 > n:
            raise _invalid("Invalid number of segments")
        bad = np.flatnonzero((seg < 0) | (seg >= n))
        if bad.size:
            raise _invalid(f"Segment id {int(seg[bad[0]])} out of range [0, {n}).")
        counts = np.bincount(seg, minlength=n).astype(grad.dtype)
        scale = counts if kind == "mean" else np.sqrt(counts)
        scale = np.where(scale == 0, 1, scale).reshape((n,) + (1,) * (grad.ndim - 1))
        dim0 = int(output_dim0)
        bad = np.flatnonzero((idx < 0) | (idx >= dim0))
        if bad.size:
            raise _invalid(f"Index {int(idx[bad[0]])} out of range [0, {dim0}).")
        out = np.zeros((dim0,) + grad.shape[1:], dtype=grad.dtype)
        rows_at(np.add, out, idx, (grad / scale)[seg])
        return out

    return kernel


def _segment_grad_shape(op):
    g = _in(op, 0)
    dim0 = ops.constant_value(op._inputs[3])
    d0 = None if dim0 is None else int(dim0)
    if g.ndims is None:
        return [unknown_shape()]
    return [TensorShape([d0] + g.dims[1:])]


for _name, _kind in (("SparseSegmentMeanGrad", "mean"), ("SparseSegmentSqrtNGrad", "sqrtn")):
    op_registry.declare(
        _name,
        inputs=["grad: T", "indices: Tidx", "segment_ids: int32", "output_dim0: int32"],
        outputs=["output: T"],
        attrs=["T: {float, double}", _TIDX],
        shape=_segment_grad_shape,
        kernel=_segment_grad_kernel(_kind),
        differentiable=False,
    )


def _segment_wrapper(op_type, data, indices, segment_ids, name, num_segments):
    if num_segments is not None:
        return ops.apply_op(op_type + "WithNumSegments",
                            [data, indices, segment_ids, num_segments], name=name)._outputs[0]
    return ops.apply_op(op_type, [data, indices, segment_ids], name=name)._outputs[0]


def sparse_segment_sum(data, indices, segment_ids, name=None, num_segments=None):
    """Sums of the rows ``data[indices]`` grouped by sorted ``segment_ids``."""
    return _segment_wrapper("SparseSegmentSum", data, indices, segment_ids, name, num_segments)


def sparse_segment_mean(data, indices, segment_ids, name=None, num_segments=None):
    """Means of the rows ``data[indices]`` grouped by sorted ``segment_ids``."""
    return _segment_wrapper("SparseSegmentMean", data, indices, segment_ids, name, num_segments)


def sparse_segment_sqrt_n(data, indices, segment_ids, name=None, num_segments=None):
    """Sums of the rows ``data[indices]`` by segment, divided by sqrt(segment size)."""
    return _segment_wrapper("SparseSegmentSqrtN", data, indices, segment_ids, name,
                            num_segments)


# ------------------------------------------------------------------------------------------
# SparseFillEmptyRows
# ------------------------------------------------------------------------------------------


def _fill_empty_rows_kernel(indices, values, dense_shape, default_value):
    idx, vals, shape = _check_sparse(indices, values, dense_shape)
    if np.ndim(default_value) != 0:
        raise _invalid(f"default_value must be a scalar, saw: {list(np.shape(default_value))}")
    if shape.shape[0] == 0:
        raise _invalid("Input SparseTensor must have rank >= 1")
    rows = int(shape[0])
    row = idx[:, 0]
    bad = np.nonzero((row < 0) | (row >= rows))[0]
    if bad.size:
        i = int(bad[0])
        # (TF 1.15's words, a negative row too)
        raise _invalid(f"indices({i}, 0) is invalid: {row[i]} >= {rows}")
    empty = np.bincount(row, minlength=rows) == 0
    fill_rows = np.nonzero(empty)[0]
    fill_idx = np.zeros((fill_rows.size, idx.shape[1]), np.int64)
    fill_idx[:, 0] = fill_rows
    all_idx = np.concatenate([idx, fill_idx], 0)
    # rows in order, each row's own entries in their input order
    order = np.argsort(all_idx[:, 0], kind="stable")
    all_vals = np.concatenate([vals, np.full(fill_rows.size, default_value, vals.dtype)])
    reverse = np.empty(idx.shape[0], np.int64)
    position = np.empty(len(order), np.int64)
    position[order] = np.arange(len(order))
    reverse[:] = position[:idx.shape[0]]
    return all_idx[order], all_vals[order], empty, reverse


def _fill_empty_rows_grad(op, _, values_grad, *unused):
    from tideflow.ops import array_ops, reduction_ops

    reverse = op._outputs[3]
    d_values = array_ops.gather(values_grad, reverse)
    d_default = reduction_ops.reduce_sum(values_grad) - reduction_ops.reduce_sum(d_values)
    return [None, d_values, None, d_default]


def _first_dim(dense_shape):
    # as TF: the empty-row indicator has one entry per row of a dense shape known when built
    v = ops.constant_value(dense_shape)
    return int(v[0]) if v is not None and np.ndim(v) == 1 and len(v) else None


def _fill_empty_rows_shape(op):
    indices, values, shape, default = (_in(op, i) for i in range(4))
    for x, rank in ((indices, 2), (values, 1), (shape, 1), (default, 0)):  # as TF, in order
        _check_rank(x, rank)
    indices = indices.with_rank(2)
    rows = _merge(indices.dims[0].value, values.with_rank(1).dims[0].value)
    _merge(indices.dims[1].value, shape.with_rank(1).dims[0].value)
    return [matrix(None, indices.dims[1]), vector(None), vector(_first_dim(op._inputs[2])),
            vector(rows)]


op_registry.declare(
    "SparseFillEmptyRows",
    inputs=["indices: int64", "values: T", "dense_shape: int64", "default_value: T"],
    outputs=["output_indices: int64", "output_values: T", "empty_row_indicator: bool",
             "reverse_index_map: int64"],
    attrs=["T: type"],
    shape=_fill_empty_rows_shape,
    kernel=_fill_empty_rows_kernel,
    grad=_fill_empty_rows_grad,
)


def sparse_fill_empty_rows(sp_input, default_value, name=None):
    """Puts ``default_value`` at ``[row, 0, ...]`` of each row of ``sp_input`` with no entry.

    Returns ``(sp_ordered_output, empty_row_indicator)``.
    """
    sp_input = _as_sparse(sp_input)
    with ops.name_scope(name, "SparseFillEmptyRows", [sp_input]):
        default_value = ops.convert_to_tensor(default_value, dtype=sp_input.values.dtype)
        idx, vals, empty, _ = ops.apply_op(
            "SparseFillEmptyRows", [sp_input.indices, sp_input.values, sp_input.dense_shape,
                                    default_value])._outputs
        return SparseTensor(idx, vals, sp_input.dense_shape), empty


# ------------------------------------------------------------------------------------------
# Python-level sparse helpers
# ------------------------------------------------------------------------------------------


def sparse_retain(sp_input, to_retain):
    """The entries of ``sp_input`` whose flag in the bool vector ``to_retain`` is True."""
    from tideflow.ops import array_ops

    sp_input = _as_sparse(sp_input)
    to_retain = ops.convert_to_tensor(to_retain)
    shape = to_retain.get_shape().with_rank(1)  # (TF's words: "Shape (1, 1) must have rank 1")
    n = sp_input.values.get_shape()
    if n.ndims == 1 and shape.ndims == 1:
        n.dims[0].merge_with(shape.dims[0])
    where = array_ops.reshape(array_ops.where(to_retain), [-1])
    return SparseTensor(array_ops.gather(sp_input.indices, where),
                        array_ops.gather(sp_input.values, where),
                        array_ops.identity(sp_input.dense_shape))


def sparse_transpose(sp_input, perm=None, name=None):
    """The SparseTensor with its dimensions permuted by ``perm`` (default: reversed)."""
    from tideflow.ops import array_ops, range_ops

    sp_input = _as_sparse(sp_input)
    with ops.name_scope(name, "SparseTranspose", [sp_input]):
        if perm is None:
            rank = array_ops.rank(sp_input)
            perm = (rank - 1) - range_ops.range(0, rank, 1)
        indices = array_ops.transpose(array_ops.gather(array_ops.transpose(sp_input.indices),
                                                       perm))
        # as TF: a constant perm over a fully known shape gives a constant dense shape;
        # otherwise it is gathered when run (and the result's static shape is unknown)
        from tideflow.framework.sparse_tensor import _python_value

        # (get_shape is asked only for a known perm, as in TF: asking marks a constant dense
        # shape, as a fully shaped sparse_placeholder's, as no longer feedable)
        known_perm = _python_value(ops.convert_to_tensor(perm))
        if known_perm is not None and sp_input.get_shape().is_fully_defined():
            old = sp_input.get_shape().as_list()
            dense_shape = [old[int(p)] for p in np.asarray(known_perm).reshape(-1)]
        else:
            dense_shape = array_ops.gather(sp_input.dense_shape, perm)
        return sparse_reorder(SparseTensor(indices, sp_input.values, dense_shape))


def sparse_placeholder(dtype, shape=None, name=None):
    """A SparseTensor to be fed (with a ``SparseTensorValue``) through its three parts."""
    from tideflow.ops import constant_op

    def part(suffix):
        return None if name is None else f"{name}/{suffix}"

    rank = None
    dense_shape = None
    if shape is not None:
        if isinstance(shape, ops.Tensor):
            dense_shape = shape
            rank = shape.get_shape().num_elements()
        else:
            if isinstance(shape, TensorShape) and not shape.is_fully_defined():
                # as TF: a TensorShape has no None entries to look for, so it is converted
                # to a constant, which a partly known one cannot be
                len(shape)
                raise ValueError(
                    f"Cannot convert a partially known TensorShape to a Tensor: {shape}")
            shape = as_shape(shape)
            rank = shape.ndims
            if shape.is_fully_defined():
                dense_shape = ops.convert_to_tensor(np.asarray(shape.as_list(), np.int64),
                                                    name=part("shape"))
    if dense_shape is None:
        dense_shape = constant_op.placeholder(dtypes.int64, shape=[rank], name=part("shape"))
    return SparseTensor(
        values=constant_op.placeholder(dtype, shape=[None], name=part("values")),
        indices=constant_op.placeholder(dtypes.int64, shape=[None, rank],
                                        name=part("indices")),
        dense_shape=dense_shape,
    )
