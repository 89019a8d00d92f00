"""``tf.RaggedTensor`` (graph mode, as TF 1.15): a ``values`` tensor cut into rows by a
``row_splits`` vector, nested for more ragged dimensions; its factories and conversions to and
from dense and sparse tensors. Indexing lives in ``ragged_getitem``, the fetched value and the
type spec in ``ragged_value``, the ``tf.ragged`` functions and dispatched ops in ``ragged_ops``.
"""

import numpy as np

from tideflow.framework import dtypes, ops
from tideflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import (
    array_ops,
    cast_ops,
    check_ops,
    concat_ops,
    constant_op,
    control_flow_ops,
    fill_ops,
    gather_ops,
    math_ops,
    range_ops,
    reduction_ops,
    slicing_ops,
)
from tideflow.ops.logging_ops import Assert
from tideflow.ops.ragged_value import RowPartitioned

_SPLITS_DTYPES = (dtypes.int32, dtypes.int64)


def _nrows(values, out_type=dtypes.int64):
    """The size of ``values``' outermost dimension, as a scalar of ``out_type``."""
    if isinstance(values, RaggedTensor):
        return values.nrows(out_type=out_type)
    return array_ops.shape(values, out_type=out_type)[0]


def _assert_zero(x, message):
    return check_ops.assert_equal(x, array_ops.zeros_like(x), message=message)


def _assert_monotonic(x, message):
    return check_ops.assert_less_equal(x[:-1], x[1:], message=message)


def _check_validate(validate):
    if not isinstance(validate, bool):
        raise TypeError("validate must have type bool")


def _with_checks(checks, tensor):
    checks = [c for c in checks if c is not None]
    return control_flow_ops.with_dependencies(checks, tensor) if checks else tensor


def _rank_checks(values, msg):
    if isinstance(values, RaggedTensor):
        return []
    return [check_ops.assert_rank_at_least(values, 1)]


def _searchsorted(sorted_ids, values, side, out_type):
    """``searchsorted`` over a sorted vector that may be empty: a sentinel above every value
    is appended (it never counts, for either side)."""
    sentinel = constant_op.constant([np.iinfo(sorted_ids.dtype.as_numpy_dtype).max],
                                    sorted_ids.dtype)
    seq = array_ops.expand_dims(concat_ops.concat([sorted_ids, sentinel], 0), 0)
    # the bound ops on [1, n] rows directly (searchsorted's reshape to [-1, m] fails for m = 0)
    op_type = "UpperBound" if side == "right" else "LowerBound"
    out = ops.apply_op(op_type, [seq, array_ops.expand_dims(values, 0)],
                       {"out_type": dtypes.as_dtype(out_type)})._outputs[0]
    return out[0]


def _splits_to_rowids(splits, name=None):
    """The row of each value: ``rowids[j] = i`` where ``splits[i] <= j < splits[i+1]``."""
    with ops.name_scope(name, "RaggedSplitsToSegmentIds", [splits]):
        splits = ops.convert_to_tensor(splits, name="splits")
        if splits.dtype not in _SPLITS_DTYPES:
            raise ValueError("splits must have dtype int32 or int64")
        nvals = splits[-1]
        positions = range_ops.range(nvals, dtype=splits.dtype)
        return _searchsorted(splits[1:], positions, "right", splits.dtype)


def _ranges(starts, lengths, dtype):
    """The concatenation of ``range(starts[i], starts[i] + lengths[i])``, with its splits."""
    splits = concat_ops.concat([array_ops.zeros([1], dtype), reduction_ops.cumsum(lengths)], 0)
    rowids = _splits_to_rowids(splits)
    offsets = gather_ops.gather(starts - splits[:-1], rowids)
    positions = range_ops.range(splits[-1], dtype=dtype) + offsets
    return positions, splits


def _gather_rows(values, indices):
    """``values``' rows (outermost slices) at ``indices`` (1-D), dense or ragged."""
    if isinstance(values, RaggedTensor):
        return values._gather_rows(indices)
    return gather_ops.gather(values, indices)


def _slice_rows(values, start, limit):
    """Rows ``start:limit`` of ``values``, dense or ragged."""
    if isinstance(values, RaggedTensor):
        splits = values.row_splits
        new_splits = splits[start:limit + 1] - splits[start]
        inner = _slice_rows(values.values, splits[start], splits[limit])
        return RaggedTensor(inner, new_splits, internal=True)
    return values[start:limit]


class RaggedTensor(RowPartitioned):
    """A tensor with ragged dimensions: ``values`` cut into rows by ``row_splits``
    (``values[row_splits[i]:row_splits[i+1]]`` is row ``i``). Build one with the factory class
    methods (``from_row_splits``, ``from_row_lengths``, ...) or ``tf.ragged.constant``."""

    __array_priority__ = 100  # NumPy operands defer to our reflected operators

    def __init__(self, values, row_splits, cached_row_lengths=None, cached_value_rowids=None,
                 cached_nrows=None, internal=False):
        if not internal:
            raise ValueError("RaggedTensor constructor is private; please use one of the "
                             "factory methods instead (e.g., RaggedTensor.from_row_lengths())")
        if not isinstance(row_splits, ops.Tensor):
            raise TypeError(f"Row-partitioning argument must be a Tensor, got {row_splits!r}")
        if not isinstance(values, (RaggedTensor, ops.Tensor)):
            raise TypeError(f"values must be a Tensor or RaggedTensor, got {values!r}")
        if row_splits.dtype.base_dtype not in _SPLITS_DTYPES:
            raise ValueError("Row-partitioning argument must be int32 or int64")
        row_splits.get_shape().assert_has_rank(1)
        values.shape.with_rank_at_least(1)
        if isinstance(values, RaggedTensor) and row_splits.dtype != values.row_splits.dtype:
            raise ValueError(f"dtype mismatch: row_splits ({row_splits.dtype}) vs "
                             f"values.row_splits ({values.row_splits.dtype})")
        self._values = values
        self._row_splits = row_splits
        self._cached_row_lengths = cached_row_lengths
        self._cached_value_rowids = cached_value_rowids
        self._cached_nrows = cached_nrows

    # ------------------------------------------------------------------ factories

    @classmethod
    def _convert_values_and_partition(cls, values, partition, name):
        if isinstance(values, RaggedTensor):
            if isinstance(partition, ops.Tensor):
                if partition.dtype.base_dtype not in _SPLITS_DTYPES:
                    raise ValueError(f"{name} must have dtype int32 or int64")
                if partition.dtype != values.row_splits.dtype:
                    raise ValueError(f"dtype mismatch: {name} ({partition.dtype}) vs "
                                     f"values.row_splits ({values.row_splits.dtype})")
            else:
                partition = ops.convert_to_tensor(partition, values.row_splits.dtype, name=name)
        else:
            values = ops.convert_to_tensor(values, name="values")
            if isinstance(partition, np.ndarray) and partition.dtype == np.int32:
                partition = ops.convert_to_tensor(partition, name=name)
            else:
                partition = ops.convert_to_tensor(partition, preferred_dtype=dtypes.int64,
                                                  name=name)
            if partition.dtype.base_dtype not in _SPLITS_DTYPES:
                raise ValueError(f"{name} must have dtype int32 or int64")
        return values, partition

    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        """Row ``i`` is ``values[row_splits[i]:row_splits[i + 1]]``."""
        _check_validate(validate)
        if isinstance(row_splits, (list, tuple)) and not row_splits:
            raise ValueError("row_splits tensor may not be empty.")
        with ops.name_scope(name, "RaggedFromRowSplits", [values, row_splits]):
            values, row_splits = cls._convert_values_and_partition(values, row_splits,
                                                                   "row_splits")
            row_splits.get_shape().assert_has_rank(1)
            if validate:
                msg = "Arguments to from_row_splits do not form a valid RaggedTensor"
                nvals = _nrows(values, row_splits.dtype)
                checks = [
                    _assert_zero(row_splits[0], msg),
                    _assert_monotonic(row_splits, msg),
                    check_ops.assert_equal(row_splits[-1], nvals, message=msg),
                ] + _rank_checks(values, msg)
                row_splits = _with_checks(checks, row_splits)
            return cls(values, row_splits, internal=True)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        """Row ``i`` holds the next ``row_lengths[i]`` values."""
        _check_validate(validate)
        with ops.name_scope(name, "RaggedFromRowLengths", [values, row_lengths]):
            values, row_lengths = cls._convert_values_and_partition(values, row_lengths,
                                                                    "row_lengths")
            row_lengths.get_shape().assert_has_rank(1)
            if validate:
                msg = "Arguments to from_row_lengths do not form a valid RaggedTensor"
                checks = [
                    check_ops.assert_non_negative(row_lengths, message=msg),
                    check_ops.assert_equal(reduction_ops.reduce_sum(row_lengths),
                                           _nrows(values, row_lengths.dtype), message=msg),
                ] + _rank_checks(values, msg)
                row_lengths = _with_checks(checks, row_lengths)
            row_splits = concat_ops.concat(
                [array_ops.zeros([1], row_lengths.dtype), reduction_ops.cumsum(row_lengths)], 0)
            n = row_lengths.get_shape()[0].value
            if n is not None:
                row_splits.set_shape([n + 1])
            return cls(values, row_splits, cached_row_lengths=row_lengths, internal=True)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        """Row ``i`` holds the values whose ``value_rowids`` entry is ``i`` (sorted ids);
        ``nrows`` (default ``value_rowids[-1] + 1``) adds trailing empty rows."""
        _check_validate(validate)
        with ops.name_scope(name, "RaggedFromValueRowIds", [values, value_rowids, nrows]):
            values, value_rowids = cls._convert_values_and_partition(values, value_rowids,
                                                                     "value_rowids")
            if nrows is None:
                const_ids = ops.constant_value(value_rowids)
                if const_ids is None:
                    nrows = concat_ops.concat(
                        [value_rowids[-1:], constant_op.constant([-1], value_rowids.dtype)],
                        0)[0] + 1
                    const_nrows = None
                else:
                    const_nrows = int(const_ids[-1]) + 1 if const_ids.size else 0
                    nrows = ops.convert_to_tensor(const_nrows, value_rowids.dtype, name="nrows")
            else:
                nrows = ops.convert_to_tensor(nrows, value_rowids.dtype, name="nrows")
                const_nrows = ops.constant_value(nrows)
                if const_nrows is not None:
                    const_nrows = int(const_nrows)
                    if const_nrows < 0:
                        raise ValueError(f"Expected nrows >= 0; got {const_nrows}")
                    const_ids = ops.constant_value(value_rowids)
                    if const_ids is not None and const_ids.size and (
                            const_nrows < int(const_ids[-1]) + 1):
                        raise ValueError(
                            f"Expected nrows >= value_rowids[-1] + 1; got nrows="
                            f"{const_nrows}, value_rowids[-1]={int(const_ids[-1])}")
            value_rowids.get_shape().assert_has_rank(1)
            nrows.get_shape().assert_has_rank(0)
            values.shape[:1].assert_is_compatible_with(value_rowids.get_shape())
            if validate:
                msg = "Arguments to from_value_rowids do not form a valid RaggedTensor"
                checks = [
                    check_ops.assert_equal(_nrows(values, value_rowids.dtype),
                                           _nrows(value_rowids, value_rowids.dtype),
                                           message=msg),
                    check_ops.assert_non_negative(value_rowids[:1], message=msg),
                    _assert_monotonic(value_rowids, msg),
                    check_ops.assert_less(value_rowids[-1:], nrows, message=msg),
                ] + _rank_checks(values, msg)
                value_rowids = _with_checks(checks, value_rowids)
            # row_splits[i] = how many values lie in rows before i (the ids are sorted)
            row_splits = _searchsorted(
                value_rowids, range_ops.range(nrows + 1, dtype=value_rowids.dtype), "left",
                value_rowids.dtype)
            if const_nrows is not None:
                row_splits.set_shape([const_nrows + 1])
            return cls(values, row_splits, cached_value_rowids=value_rowids,
                       cached_nrows=nrows, internal=True)

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        """``from_row_splits(values, concat([row_starts, [nvals]]))``."""
        _check_validate(validate)
        with ops.name_scope(name, "RaggedFromRowStarts", [values, row_starts]):
            values, row_starts = cls._convert_values_and_partition(values, row_starts,
                                                                   "row_starts")
            row_starts.get_shape().assert_has_rank(1)
            nvals = _nrows(values, row_starts.dtype)
            if validate:
                msg = "Arguments to from_row_starts do not form a valid RaggedTensor"
                checks = [
                    _assert_zero(row_starts[:1], msg),
                    _assert_monotonic(row_starts, msg),
                    check_ops.assert_less_equal(row_starts[-1:], nvals, message=msg),
                ] + _rank_checks(values, msg)
                row_starts = _with_checks(checks, row_starts)
            row_splits = concat_ops.concat([row_starts, array_ops.reshape(nvals, [1])], 0)
            return cls(values, row_splits, internal=True)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        """``from_row_splits(values, concat([[0], row_limits]))``."""
        _check_validate(validate)
        with ops.name_scope(name, "RaggedFromRowLimits", [values, row_limits]):
            values, row_limits = cls._convert_values_and_partition(values, row_limits,
                                                                   "row_limits")
            row_limits.get_shape().assert_has_rank(1)
            if validate:
                msg = "Arguments to from_row_limits do not form a valid RaggedTensor"
                nvals = _nrows(values, row_limits.dtype)
                checks = [
                    check_ops.assert_non_negative(row_limits[:1], message=msg),
                    _assert_monotonic(row_limits, msg),
                    check_ops.assert_equal(row_limits[-1:], nvals, message=msg),
                ] + _rank_checks(values, msg)
                row_limits = _with_checks(checks, row_limits)
            row_splits = concat_ops.concat([array_ops.zeros([1], row_limits.dtype), row_limits],
                                           0)
            return cls(values, row_splits, internal=True)

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True):
        """``from_row_splits`` applied for each splits vector, innermost first."""
        _check_validate(validate)
        if isinstance(nested_row_splits, ops.Tensor):
            raise TypeError("nested_row_splits must be a list of Tensors")
        with ops.name_scope(name, "RaggedFromNestedRowSplits",
                            [flat_values] + list(nested_row_splits)):
            result = flat_values
            for splits in reversed(list(nested_row_splits)):
                result = cls.from_row_splits(result, splits, validate=validate)
            return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None,
                                validate=True):
        """``from_row_lengths`` applied for each lengths vector, innermost first."""
        _check_validate(validate)
        if isinstance(nested_row_lengths, ops.Tensor):
            raise TypeError("nested_row_lengths must be a list of Tensors")
        with ops.name_scope(name, "RaggedFromNestedRowlengths",
                            [flat_values] + list(nested_row_lengths)):
            result = flat_values
            for lengths in reversed(list(nested_row_lengths)):
                result = cls.from_row_lengths(result, lengths, validate=validate)
            return result

    @classmethod
    def from_nested_value_rowids(cls, flat_values, nested_value_rowids, nested_nrows=None,
                                 name=None, validate=True):
        """``from_value_rowids`` applied for each (rowids, nrows) pair, innermost first."""
        _check_validate(validate)
        if isinstance(nested_value_rowids, ops.Tensor):
            raise TypeError("nested_value_rowids must be a list of Tensors")
        if nested_nrows is None:
            nested_nrows = [None] * len(nested_value_rowids)
        elif isinstance(nested_nrows, ops.Tensor):
            raise TypeError("nested_nrows must be a list of Tensors")
        elif len(nested_nrows) != len(nested_value_rowids):
            raise ValueError("nested_nrows must have the same length as nested_value_rowids")
        with ops.name_scope(name, "RaggedFromNestedValueRowIds",
                            [flat_values] + list(nested_value_rowids) + list(nested_nrows)):
            result = flat_values
            for rowids, nrows in reversed(list(zip(nested_value_rowids, nested_nrows))):
                result = cls.from_value_rowids(result, rowids, nrows, validate=validate)
            return result

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None,
                    row_splits_dtype=dtypes.int64):
        """The rows of a dense ``tensor``, cut to ``lengths`` or stripped of trailing
        ``padding``; its dimensions 1..``ragged_rank`` become ragged."""
        row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        if lengths is not None and padding is not None:
            raise ValueError("Specify lengths or padding, but not both")
        if not isinstance(ragged_rank, int):
            raise TypeError(f"ragged_rank expected int, got {ragged_rank!r}")
        if ragged_rank <= 0:
            raise ValueError(f"ragged_rank must be greater than 0; got {ragged_rank}")
        with ops.name_scope(name, "RaggedFromTensor", [tensor, lengths, padding]):
            tensor = ops.convert_to_tensor(tensor, name="tensor")
            if (isinstance(lengths, (list, tuple)) and lengths
                    and not isinstance(lengths[0], (int, float, np.integer, np.floating))):
                return cls._from_tensor_nested_lengths(tensor, lengths, row_splits_dtype)
            tensor.get_shape().with_rank_at_least(ragged_rank + 1)
            input_shape = array_ops.shape(tensor, out_type=row_splits_dtype)
            ncols = input_shape[1]
            if ragged_rank > 1:
                # the outer ragged dimensions are uniform: merge dims 0 and 1, then recurse
                nrows = input_shape[0]
                flat = array_ops.reshape(
                    tensor, concat_ops.concat([constant_op.constant([-1], row_splits_dtype),
                                               input_shape[2:]], 0))
                static = tensor.get_shape()
                d0, d1 = static[0].value, static[1].value
                flat.set_shape(TensorShape([d0 * d1 if d0 is not None and d1 is not None
                                            else None]).concatenate(static[2:]))
                values = cls.from_tensor(flat, lengths, padding, ragged_rank - 1,
                                         row_splits_dtype=row_splits_dtype)
                splits = range_ops.range(nrows + 1, dtype=row_splits_dtype) * ncols
                if d0 is not None:
                    splits.set_shape([d0 + 1])
                return cls(values, splits, internal=True)
            if padding is not None:
                padding = ops.convert_to_tensor(padding, dtype=tensor.dtype, name="padding")
                padding.get_shape().assert_is_compatible_with(tensor.get_shape()[2:])
                is_pad = math_ops.equal(tensor, padding)
                if tensor.get_shape().ndims is None or tensor.get_shape().ndims > 2:
                    inner_axes = range_ops.range(2, array_ops.rank(tensor))
                    is_pad = reduction_ops.reduce_all(is_pad, axis=inner_axes)
                keep = cast_ops.cast(math_ops.logical_not(is_pad), row_splits_dtype)
                # a row's length: one past its last non-padding entry
                lengths = reduction_ops.reduce_max(
                    keep * range_ops.range(1, ncols + 1, dtype=row_splits_dtype), axis=1)
            if lengths is not None:
                lengths = ops.convert_to_tensor(lengths, preferred_dtype=row_splits_dtype,
                                                name="lengths")
                lengths = cast_ops.cast(lengths, row_splits_dtype)
                lengths.get_shape().assert_has_rank(1)
                lengths = math_ops.minimum(lengths, ncols)
                mask = range_ops.sequence_mask(lengths, ncols)
                values = slicing_ops.boolean_mask(tensor, mask)
                return cls.from_row_lengths(values, lengths, validate=False)
            nrows = input_shape[0]
            values = array_ops.reshape(
                tensor, concat_ops.concat([constant_op.constant([-1], row_splits_dtype),
                                           input_shape[2:]], 0))
            static = tensor.get_shape()
            d0, d1 = static[0].value, static[1].value
            values.set_shape(TensorShape([d0 * d1 if d0 is not None and d1 is not None
                                          else None]).concatenate(static[2:]))
            splits = range_ops.range(nrows + 1, dtype=row_splits_dtype) * ncols
            if d0 is not None:
                splits.set_shape([d0 + 1])
            return cls(values, splits, internal=True)

    @classmethod
    def _from_tensor_nested_lengths(cls, tensor, nested_lengths, row_splits_dtype):
        """from_tensor with one row-length vector per ragged dimension (as TF 1.15 takes a
        list or tuple of them): level k keeps the first lengths[k][r] entries of each row r
        left by the levels above."""
        tensor.get_shape().with_rank_at_least(len(nested_lengths) + 1)
        values = tensor
        cast = []
        for lengths in nested_lengths:
            lengths = cast_ops.cast(ops.convert_to_tensor(lengths, name="lengths"),
                                    row_splits_dtype)
            lengths.get_shape().assert_has_rank(1)
            ncols = array_ops.shape(values, out_type=row_splits_dtype)[1]
            lengths = math_ops.minimum(lengths, ncols)
            values = slicing_ops.boolean_mask(values, range_ops.sequence_mask(lengths, ncols))
            cast.append(lengths)
        return cls.from_nested_row_lengths(values, cast, validate=False)

    @classmethod
    def from_sparse(cls, st_input, name=None, row_splits_dtype=dtypes.int64):
        """The rows of a 2-D ``SparseTensor`` whose indices are in row-major order and fill
        each row from column 0 without gaps (right-ragged)."""
        row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        if isinstance(st_input, SparseTensorValue):
            st_input = SparseTensor.from_value(st_input)
        if not isinstance(st_input, SparseTensor):
            raise TypeError(f"st_input must be a SparseTensor, got {st_input!r}")
        with ops.name_scope(name, "RaggedFromSparse", [st_input]):
            static_rank = st_input.dense_shape.get_shape()[0].value
            if static_rank is not None and static_rank != 2:
                raise ValueError("rank(st_input) must be 2")
            indices = st_input.indices
            rows, cols = indices[:, 0], indices[:, 1]
            # right-ragged: each index is (row, 0) of a later row or (row, col + 1)
            prev_rows = concat_ops.concat([constant_op.constant([-1], dtypes.int64),
                                           rows[:-1]], 0)
            prev_cols = concat_ops.concat([constant_op.constant([-1], dtypes.int64),
                                           cols[:-1]], 0)
            ok = math_ops.logical_or(
                math_ops.logical_and(math_ops.equal(rows, prev_rows),
                                     math_ops.equal(cols, prev_cols + 1)),
                math_ops.logical_and(math_ops.greater(rows, prev_rows),
                                     math_ops.equal(cols, 0)))
            check = Assert(reduction_ops.reduce_all(ok),
                           ["SparseTensor is not right-ragged", "SparseTensor.indices =",
                            indices], summarize=25)
            with ops.control_dependencies([check]):
                rows = array_ops.identity(rows)
            return cls.from_value_rowids(st_input.values, cast_ops.cast(rows, row_splits_dtype),
                                         cast_ops.cast(st_input.dense_shape[0],
                                                       row_splits_dtype),
                                         validate=False)

    # ------------------------------------------------------------------ accessors

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def shape(self):
        """The static shape: ``None`` for every ragged dimension."""
        n = self._row_splits.get_shape()[0].value
        nrows = None if n is None else n - 1
        return TensorShape([nrows, None]).concatenate(self._values.shape[1:])

    def get_shape(self):
        return self.shape

    @property
    def ragged_rank(self):
        return self._values.ragged_rank + 1 if isinstance(self._values, RaggedTensor) else 1

    @property
    def values(self):
        return self._values

    @property
    def row_splits(self):
        return self._row_splits

    @property
    def graph(self):
        return self._row_splits.graph

    @property
    def _type_spec(self):
        return RaggedTensorSpec(self.shape, self.dtype, self.ragged_rank, self._row_splits.dtype)

    def value_rowids(self, name=None):
        """The row of each of ``values``' rows (sorted, 1-D ``[nvals]``)."""
        if self._cached_value_rowids is not None:
            return self._cached_value_rowids
        with ops.name_scope(name, "RaggedValueRowIds", [self]):
            return _splits_to_rowids(self._row_splits)

    def nested_value_rowids(self, name=None):
        with ops.name_scope(name, "RaggedNestedValueRowIds", [self]):
            ids = [self.value_rowids()]
            v = self._values
            while isinstance(v, RaggedTensor):
                ids.append(v.value_rowids())
                v = v._values
            return tuple(ids)

    def nrows(self, out_type=None, name=None):
        """The number of rows (a scalar of ``out_type``, default the splits' dtype)."""
        out_type = self._row_splits.dtype if out_type is None else dtypes.as_dtype(out_type)
        if self._cached_nrows is not None:
            return cast_ops.cast(self._cached_nrows, out_type)
        with ops.name_scope(name, "RaggedNRows", [self]):
            return array_ops.shape(self._row_splits, out_type=out_type)[0] - 1

    def row_starts(self, name=None):
        with ops.name_scope(name, "RaggedRowStarts", [self]):
            return self._row_splits[:-1]

    def row_limits(self, name=None):
        with ops.name_scope(name, "RaggedRowLimits", [self]):
            return self._row_splits[1:]

    def row_lengths(self, axis=1, name=None):
        """The lengths of the rows along ``axis`` (``axis=1``: a vector ``[nrows]``)."""
        if axis == 1 and self._cached_row_lengths is not None:
            return self._cached_row_lengths
        with ops.name_scope(name, "RaggedRowLengths", [self]):
            axis = _positive_axis(axis, self.shape.ndims)
            if axis == 0:
                return self.nrows()
            if axis == 1:
                return self._row_splits[1:] - self._row_splits[:-1]
            if isinstance(self._values, RaggedTensor):
                return self.with_values(self._values.row_lengths(axis - 1))
            shape = array_ops.shape(self._values, out_type=self._row_splits.dtype)
            return self.with_values(
                fill_ops.ones(shape[:axis - 1], self._row_splits.dtype) * shape[axis - 1])

    def nested_row_lengths(self, name=None):
        with ops.name_scope(name, "RaggedNestedRowLengths", [self]):
            lengths = []
            rt = self
            while isinstance(rt, RaggedTensor):
                lengths.append(rt.row_lengths())
                rt = rt._values
            return tuple(lengths)

    def bounding_shape(self, axis=None, name=None, out_type=None):
        """The smallest dense shape holding this tensor: ``[nrows, longest row, ...]``."""
        out_type = self._row_splits.dtype if out_type is None else dtypes.as_dtype(out_type)
        with ops.name_scope(name, "RaggedBoundingBox", [self, axis]):
            dims = [self.nrows(out_type=out_type)]
            for splits in self.nested_row_splits:
                lengths = cast_ops.cast(splits[1:] - splits[:-1], out_type)
                # an empty tensor's longest row is 0
                dims.append(reduction_ops.reduce_max(
                    concat_ops.concat([array_ops.zeros([1], out_type), lengths], 0)))
            inner = array_ops.shape(self.flat_values, out_type=out_type)[1:]
            bbox = concat_ops.concat([array_ops.stack(dims), inner], 0)
            return bbox if axis is None else gather_ops.gather(bbox, axis)

    # ------------------------------------------------------------------ transformations

    def with_values(self, new_values):
        """This tensor's row partition over ``new_values`` (same outer size)."""
        if not isinstance(new_values, RaggedTensor):
            new_values = ops.convert_to_tensor(new_values)
        new_values.shape.with_rank_at_least(1)
        self._values.shape[:1].assert_is_compatible_with(new_values.shape[:1])
        if isinstance(new_values, RaggedTensor) and (
                new_values.row_splits.dtype != self._row_splits.dtype):
            raise ValueError("with_values: new_values' row_splits dtype "
                             f"{new_values.row_splits.dtype} differs from "
                             f"{self._row_splits.dtype}")
        return RaggedTensor(new_values, self._row_splits, self._cached_row_lengths,
                            self._cached_value_rowids, self._cached_nrows, internal=True)

    def with_flat_values(self, new_values):
        """This tensor's nested row partitions over ``new_values``."""
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype):
        dtype = dtypes.as_dtype(dtype)
        if dtype not in _SPLITS_DTYPES:
            raise ValueError(f"dtype must be int32 or int64; got {dtype}")
        if self._row_splits.dtype == dtype:
            return self
        values = self._values
        if isinstance(values, RaggedTensor):
            values = values.with_row_splits_dtype(dtype)
        return RaggedTensor(values, cast_ops.cast(self._row_splits, dtype), internal=True)

    def to_tensor(self, default_value=None, name=None):
        """A dense tensor of ``bounding_shape()``, the missing entries ``default_value``
        (default zero / empty string)."""
        with ops.name_scope(name, "RaggedToTensor", [self, default_value]):
            inner = self._values
            if isinstance(inner, RaggedTensor):
                inner = inner.to_tensor(default_value)
            if default_value is None:
                default_value = array_ops.zeros([], self.dtype)
            default_value = ops.convert_to_tensor(default_value, dtype=self.dtype,
                                                  name="default_value")
            splits = self._row_splits
            dt = splits.dtype
            starts, lengths = splits[:-1], splits[1:] - splits[:-1]
            ncols = reduction_ops.reduce_max(
                concat_ops.concat([array_ops.zeros([1], dt), lengths], 0))
            cols = range_ops.range(ncols, dtype=dt)
            present = math_ops.less(array_ops.expand_dims(cols, 0),
                                    array_ops.expand_dims(lengths, 1))
            nvals = array_ops.shape(inner, out_type=dt)[0]
            # a missing entry reads one extra row holding the default value
            index = gather_ops.where(
                present, array_ops.expand_dims(starts, 1) + array_ops.expand_dims(cols, 0),
                fill_ops.fill(array_ops.shape(present), nvals))
            pad_row = fill_ops.broadcast_to(
                default_value,
                concat_ops.concat([constant_op.constant([1], dtypes.int32),
                                   array_ops.shape(inner)[1:]], 0))
            padded = concat_ops.concat([inner, pad_row], 0)
            result = gather_ops.gather(padded, index)
            result.set_shape(self.shape)
            return result

    def to_sparse(self, name=None):
        """A ``SparseTensor`` of ``bounding_shape()`` holding every value."""
        with ops.name_scope(name, "RaggedToSparse", [self]):
            flat = self.flat_values
            i64 = dtypes.int64
            inner_rank = flat.shape.ndims
            if inner_rank is None:
                raise ValueError("to_sparse needs flat_values of known rank")
            if inner_rank > 1:
                dense_idx = gather_ops.where(fill_ops.ones_like(flat, dtype=dtypes.bool))
                pos, tail = dense_idx[:, 0], [dense_idx[:, k] for k in range(1, inner_rank)]
                values = array_ops.reshape(flat, [-1])
            else:
                pos = range_ops.range(array_ops.shape(flat, out_type=i64)[0], dtype=i64)
                tail, values = [], flat
            cols = []
            for splits in reversed(self.nested_row_splits):
                splits = cast_ops.cast(splits, i64)
                rowids = _splits_to_rowids(splits)
                row_of = gather_ops.gather(rowids, pos)
                cols.insert(0, pos - gather_ops.gather(splits, row_of))
                pos = row_of
            indices = array_ops.stack([pos] + cols + tail, axis=1)
            return SparseTensor(indices, values, self.bounding_shape(out_type=i64))

    def _gather_rows(self, indices):
        """The rows at ``indices`` (1-D) as a RaggedTensor of the same ragged rank."""
        dt = self._row_splits.dtype
        indices = cast_ops.cast(indices, dt)
        starts = gather_ops.gather(self._row_splits[:-1], indices)
        lengths = gather_ops.gather(self._row_splits[1:], indices) - starts
        positions, splits = _ranges(starts, lengths, dt)
        n = indices.get_shape()[0].value
        if n is not None:
            splits.set_shape([n + 1])
        return RaggedTensor(_gather_rows(self._values, positions), splits, internal=True)

    # ------------------------------------------------------------------ indexing

    def __getitem__(self, key):
        """Rows by index or slice, then each row's entries: ``rt[i]``, ``rt[a:b]``,
        ``rt[:, a:b]``, ``rt[i, j]``; an integer index into a ragged dimension other than
        the first (``rt[:, j]``) raises, as TF."""
        with ops.name_scope(None, "RaggedGetItem", [self, key]):
            if not isinstance(key, tuple):
                key = (key,)
            ndims = self.shape.ndims
            if sum(k is Ellipsis for k in key) > 1:
                raise ValueError("Cannot use more than one ellipsis.")
            if Ellipsis in key and ndims is not None:
                i = key.index(Ellipsis)
                fill = max(ndims - (len(key) - 1), 0)
                key = key[:i] + (slice(None),) * fill + key[i + 1:]
            if any(k is None or k is Ellipsis for k in key):
                raise ValueError("tf.newaxis (and an ellipsis in a tensor of unknown rank) is "
                                 "not supported when indexing a RaggedTensor in tideflow")
            if ndims is not None and len(key) > ndims:
                raise ValueError("Too many indices for RaggedTensor")
            from tideflow.ops.ragged_getitem import getitem

            return getitem(self, key)

    # ------------------------------------------------------------------ composite protocol

    def _tf_fetch_components(self):
        splits = list(self.nested_row_splits)
        return [self.flat_values] + splits, _rebuild_value

    def _tf_feed_components(self):
        def split(value):
            if isinstance(value, RaggedTensor):
                raise TypeError("The value of a feed cannot be a tf.RaggedTensor object.")
            if not isinstance(value, RaggedTensorValue):
                raise TypeError(f"A RaggedTensor is fed a tf.ragged.RaggedTensorValue, got "
                                f"{type(value).__name__}")
            if value.ragged_rank != self.ragged_rank:
                raise ValueError(f"Fed a RaggedTensorValue of ragged_rank {value.ragged_rank} "
                                 f"for a RaggedTensor of ragged_rank {self.ragged_rank}")
            return [value.flat_values] + list(value.nested_row_splits)

        return [self.flat_values] + list(self.nested_row_splits), split

    def consumers(self):
        """The ops that use this tensor's component tensors."""
        seen, result = set(), []
        for t in (self.flat_values,) + self.nested_row_splits:
            for op in t.consumers():
                if op not in seen:
                    seen.add(op)
                    result.append(op)
        return result

    def merge_dims(self, outer_axis, inner_axis):
        """This tensor with dimensions ``outer_axis..inner_axis`` merged into one."""
        ndims = self.shape.ndims
        outer_axis = _positive_axis(outer_axis, ndims)
        inner_axis = _positive_axis(inner_axis, ndims)
        if outer_axis > inner_axis:
            raise ValueError(f"Expected outer_axis ({outer_axis}) to be less than or equal to "
                             f"inner_axis ({inner_axis})")
        if outer_axis == inner_axis:
            return self
        if outer_axis > 1:
            return self.with_values(_merge_dims(self._values, outer_axis - 1, inner_axis - 1))
        if outer_axis == 1:
            values = self._values
            if isinstance(values, RaggedTensor):
                # each row's rows, joined: the inner splits taken at this tensor's splits
                splits = gather_ops.gather(values.row_splits, self._row_splits)
                return RaggedTensor(values.values, splits, internal=True).merge_dims(
                    1, inner_axis - 1)
            shape = array_ops.shape(values, out_type=self._row_splits.dtype)
            factor = reduction_ops.reduce_prod(shape[1:inner_axis])
            return RaggedTensor(_merge_dims(values, 0, inner_axis - 1),
                                self._row_splits * factor, internal=True)
        # merging dims 0..k: the values, flattened k - 1 more times
        return _merge_dims(self._values, 0, inner_axis - 1)

    def eval(self, feed_dict=None, session=None):
        session = session or ops.get_default_session()
        return session.run(self, feed_dict)

    def __iter__(self):
        raise TypeError("RaggedTensor objects are not iterable in graph mode.")

    def __bool__(self):
        raise TypeError("Using a `tf.RaggedTensor` as a Python `bool` is not allowed.")

    def __array__(self, dtype=None, copy=None):
        raise TypeError(f"Failed to convert object of type {type(self)} to Tensor. "
                        f"Contents: {self!r}. Consider casting elements to a supported type.")

    def __repr__(self):
        return f"tf.RaggedTensor(values={self._values}, row_splits={self._row_splits})"

    __str__ = __repr__


def _rebuild_value(parts):
    value = parts[0]
    for splits in reversed(parts[1:]):
        value = RaggedTensorValue(value, splits)
    return value


def _merge_dims(values, outer_axis, inner_axis):
    if isinstance(values, RaggedTensor):
        return values.merge_dims(outer_axis, inner_axis)
    if outer_axis == inner_axis:
        return values
    shape = array_ops.shape(values)
    new_shape = concat_ops.concat([shape[:outer_axis], [-1], shape[inner_axis + 1:]], 0)
    return array_ops.reshape(values, new_shape)


def _positive_axis(axis, ndims):
    if not isinstance(axis, int):
        raise TypeError(f"axis must be an int; got {axis!r}")
    if axis >= 0:
        if ndims is not None and axis >= ndims:
            raise ValueError(f"axis={axis} out of bounds: expected {-ndims}<=axis<{ndims}")
        return axis
    if ndims is None:
        raise ValueError(f"axis may only be negative if ndims is statically known: {axis}")
    if axis < -ndims:
        raise ValueError(f"axis={axis} out of bounds: expected {-ndims}<=axis<{ndims}")
    return axis + ndims


def _convert_ragged_fails(value, dtype=None, name=None, as_ref=False):
    if dtype is not None:  # as TF 1.15's constant conversion checking the value's type
        raise TypeError(f"Expected {dtype.name}, got {value!r} of type "
                        f"'{type(value).__name__}' instead.")
    raise TypeError(f"Failed to convert object of type {type(value)} to Tensor. Contents: "
                    f"{value!r}. Consider casting elements to a supported type.")


ops.register_tensor_conversion_function(RaggedTensor, _convert_ragged_fails, priority=1)

# RaggedTensorValue, RaggedTensorSpec; then the ragged rules of the dense ops (element-wise
# math, reductions, concat, gather, ...)
from tideflow.ops.ragged_value import RaggedTensorSpec, RaggedTensorValue

ops.register_tensor_conversion_function(RaggedTensorValue, _convert_ragged_fails, priority=1)

from tideflow.ops import ragged_ops  # noqa: F401
