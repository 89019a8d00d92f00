"""``RaggedTensor.__getitem__``: rows by index or slice, then slices of each row (TF 1.15's
rules: an integer index into an inner ragged dimension raises)."""

import numpy as np

from tideflow.framework import ops
from tideflow.ops import array_ops, cast_ops, fill_ops, gather_ops, math_ops, range_ops
from tideflow.ops.ragged_tensor import RaggedTensor, _gather_rows, _ranges, _slice_rows


def getitem(rt, key):
    """``rt[key]`` for a tuple ``key`` whose first entry indexes rows."""
    return _getitem(rt, key)


def _is_int_key(k):
    if isinstance(k, (int, np.integer)) and not isinstance(k, bool):
        return True
    return isinstance(k, ops.Tensor) and k.dtype.is_integer and k.get_shape().ndims == 0


def _getitem(rt, key):
    """``rt[key]`` for a tuple ``key`` whose first entry indexes rows."""
    if not key:
        return rt
    head, rest = key[0], key[1:]
    if isinstance(head, slice):
        rows = _row_slice(rt, head)
        return _getitem_inner(rows, rest) if rest else rows
    if not _is_int_key(head):
        raise TypeError(f"Indices for a RaggedTensor must be integers, slices or scalar "
                        f"integer Tensors; got {head!r}")
    starts, limits = rt.row_splits[:-1], rt.row_splits[1:]
    row = _slice_rows(rt.values, starts[head], limits[head])
    if not rest:
        return row
    if isinstance(row, RaggedTensor):
        return _getitem(row, rest)
    return row[rest]


def _row_slice(rt, key):
    if key.start is None and key.stop is None and key.step is None:
        return rt
    nrows = rt.nrows()
    indices = range_ops.range(nrows, dtype=rt.row_splits.dtype)[key]
    return rt._gather_rows(indices)


def _getitem_inner(rt, key):
    """Applies ``key`` to dimensions 1.. of ``rt`` (dimension 1 is ragged)."""
    head, rest = key[0], key[1:]
    if not isinstance(head, slice):
        raise ValueError("Cannot index into an inner ragged dimension.")  # noqa: TRY004
    if not (head.step is None or (isinstance(head.step, int) and head.step == 1)):
        raise ValueError("Slicing a ragged dimension with a step is not supported")
    if head.start is not None or head.stop is not None:
        rt = _slice_each_row(rt, head.start, head.stop)
    if not rest:
        return rt
    values = rt.values
    if isinstance(values, RaggedTensor):
        new_values = _getitem_inner(values, rest)
    else:
        new_values = values[(slice(None),) + tuple(rest)]
    return rt.with_values(new_values) if new_values.shape.ndims != 0 else new_values


def _clamp_index(index, lengths, dt, default):
    """Python's slice bound ``index`` resolved against each row's length."""
    if index is None:
        return default
    if isinstance(index, (int, np.integer)):
        if index >= 0:
            return math_ops.minimum(lengths, index)
        return math_ops.maximum(lengths + index, 0)
    index = cast_ops.cast(ops.convert_to_tensor(index), dt)
    positive = math_ops.minimum(index, lengths)
    negative = math_ops.maximum(lengths + index, 0)
    return gather_ops.where(
        math_ops.greater_equal(fill_ops.fill(array_ops.shape(lengths), index),
                               array_ops.zeros_like(lengths)), positive, negative)


def _slice_each_row(rt, start, stop):
    dt = rt.row_splits.dtype
    starts = rt.row_splits[:-1]
    lengths = rt.row_splits[1:] - starts
    zero = array_ops.zeros_like(lengths)
    begin = _clamp_index(start, lengths, dt, zero)
    end = _clamp_index(stop, lengths, dt, lengths)
    new_lengths = math_ops.maximum(end - begin, 0)
    positions, splits = _ranges(starts + begin, new_lengths, dt)
    splits.set_shape(rt.row_splits.get_shape())
    return RaggedTensor(_gather_rows(rt.values, positions), splits, internal=True)


