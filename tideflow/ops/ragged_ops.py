"""``tf.ragged`` functions (constant, range, segment ids, map_flat_values, boolean_mask, ...)
and the ragged rules that TF 1.15 dispatches from the dense ops: element-wise math on the
flat values, reductions, concat/stack, gather, size/rank.
"""

import builtins
import functools
import inspect

import numpy as np

from tideflow.framework import dispatch, dtypes, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import (
    array_ops,
    cast_ops,
    check_ops,
    concat_ops,
    constant_op,
    control_flow_ops,
    counting_ops,
    embedding_ops,
    fill_ops,
    gather_ops,
    math_ops,
    pad_ops,
    range_ops,
    reduction_ops,
    slicing_ops,
    sort_ops,
    special_math_ops,
    string_more_ops,
    string_ops,
)
from tideflow.ops.logging_ops import Assert
from tideflow.ops.ragged_tensor import (
    RaggedTensor,
    RaggedTensorValue,
    _gather_rows,
    _positive_axis,
    _searchsorted,
    _splits_to_rowids,
)


def is_ragged(value):
    return isinstance(value, (RaggedTensor, RaggedTensorValue))


# ------------------------------------------------------------------------------------------
# constant, constant_value, placeholder
# ------------------------------------------------------------------------------------------


def _depths(pylist):
    """(depth of the scalars or None when there are none, depth of the deepest list)."""
    if not isinstance(pylist, (list, tuple)) and np.ndim(pylist) == 0:
        return 0, 0
    scalar_depth, max_depth = None, 1
    for child in pylist:
        child_scalar, child_max = _depths(child)
        if child_scalar is not None:
            if scalar_depth is not None and scalar_depth != child_scalar + 1:
                raise ValueError("all scalar values must have the same nesting depth")
            scalar_depth = child_scalar + 1
        max_depth = max(max_depth, child_max + 1)
    return scalar_depth, max_depth


def _default_inner_shape(pylist, ragged_rank):
    """The uniform shape of the items ``ragged_rank + 1`` levels down."""
    def shape_of(x):
        if isinstance(x, (list, tuple)) or np.ndim(x) > 0:
            inner = [shape_of(c) for c in x]
            if any(s != inner[0] for s in inner[1:]):
                raise ValueError("inner values have inconsistent shape")
            return (len(x),) + (inner[0] if inner else ())
        return ()

    items = pylist
    for _ in builtins.range(ragged_rank):
        flat = []
        for row in items:
            if not isinstance(row, (list, tuple)) and np.ndim(row) == 0:
                scalar_depth, _ = _depths(pylist)
                raise ValueError(
                    f"pylist has scalar values depth {scalar_depth}, but ragged_rank="
                    f"{ragged_rank} requires scalar value depth greater than {ragged_rank}")
            flat.extend(row)
        items = flat
    shapes = {shape_of(x) for x in items}
    if len(shapes) > 1:
        raise ValueError("inner values have inconsistent shape")
    return shapes.pop() if shapes else ()


def _constant_value(ragged_factory, inner_factory, pylist, dtype, ragged_rank, inner_shape):
    if is_ragged(pylist):
        raise TypeError("pylist may not be a RaggedTensor or RaggedTensorValue.")
    if not isinstance(pylist, (list, tuple)) and np.ndim(pylist) == 0:
        if ragged_rank not in (None, 0):
            raise ValueError(f"Invalid pylist={pylist!r}: incompatible with "
                             f"ragged_rank={ragged_rank}")
        if inner_shape not in (None, ()):
            raise ValueError(f"Invalid pylist={pylist!r}: incompatible with "
                             f"dim(inner_shape)={len(inner_shape)}")
        return inner_factory(pylist, dtype, ())
    if ragged_rank is not None and ragged_rank < 0:
        raise ValueError(f"Invalid ragged_rank={ragged_rank!r}: must be nonnegative")
    scalar_depth, max_depth = _depths(pylist)
    if scalar_depth is not None and max_depth > scalar_depth:
        raise ValueError(f"Invalid pylist={pylist!r}: empty list nesting is greater than "
                         "scalar value nesting")
    if inner_shape is not None:
        inner_shape = tuple(inner_shape)
    if inner_shape is not None and ragged_rank is not None:
        expected = ragged_rank + len(inner_shape) + 1
        if (scalar_depth is not None and expected != scalar_depth) or (
                scalar_depth is None and expected < max_depth):
            raise ValueError(f"Invalid pylist={pylist!r}: incompatible with ragged_rank="
                             f"{ragged_rank} and dim(inner_shape)={len(inner_shape)}")
    if ragged_rank == 0 or (ragged_rank is None and (
            max_depth < 2 or (inner_shape is not None and max_depth - len(inner_shape) < 2))):
        return inner_factory(pylist, dtype, inner_shape)
    if inner_shape is None:
        inner_shape = () if ragged_rank is None else _default_inner_shape(pylist, ragged_rank)
    if ragged_rank is None:
        if scalar_depth is None:
            ragged_rank = max(1, max_depth - 1)
        else:
            ragged_rank = max(1, scalar_depth - 1 - len(inner_shape))
    nested_splits = []
    values = pylist
    for _ in builtins.range(ragged_rank):
        splits = [0]
        flat = []
        for row in values:
            if not isinstance(row, (list, tuple)) and np.ndim(row) == 0:
                raise ValueError(
                    f"pylist has scalar values depth {scalar_depth}, but ragged_rank="
                    f"{ragged_rank} requires scalar value depth greater than {ragged_rank}")
            splits.append(splits[-1] + len(row))
            flat.extend(row)
        nested_splits.append(splits)
        values = flat
    result = inner_factory(values, dtype, (len(values),) + inner_shape)
    for splits in reversed(nested_splits):
        result = ragged_factory(result, splits)
    return result


def _check_inner_shape(values, shape):
    if shape is None or not isinstance(values, (list, tuple)) or not values:
        return
    got = np.shape(np.asarray(values, dtype=object) if any(
        isinstance(v, (str, bytes)) for v in values) else values)
    if tuple(got) != tuple(shape):
        raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {tuple(got)}.")


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None,
             row_splits_dtype=dtypes.int64):
    """A constant ``RaggedTensor`` from a nested Python list (a ``Tensor`` when it has no
    ragged dimension)."""
    row_splits_dtype = dtypes.as_dtype(row_splits_dtype)

    def ragged_factory(values, splits):
        splits = constant_op.constant(splits, dtype=row_splits_dtype)
        return RaggedTensor.from_row_splits(values, splits, validate=False)

    def inner_factory(values, dtype, shape):
        if shape is not None and not values and len(shape) and dtype is None:
            dtype = dtypes.float32  # as TF: an empty list is float32
        _check_inner_shape(values, shape)
        return constant_op.constant(values, dtype=dtype, shape=shape, name="values")

    with ops.name_scope(name, "RaggedConstant"):
        return _constant_value(ragged_factory, inner_factory, pylist, dtype, ragged_rank,
                               inner_shape)


def constant_value(pylist, dtype=None, ragged_rank=None, inner_shape=None,
                   row_splits_dtype="int64"):
    """A ``tf.ragged.RaggedTensorValue`` (NumPy arrays) from a nested Python list."""
    np_splits_dtype = dtypes.as_dtype(row_splits_dtype).as_numpy_dtype
    if dtype is not None and isinstance(dtype, dtypes.DType):
        dtype = dtype.as_numpy_dtype

    def ragged_factory(values, splits):
        return RaggedTensorValue(values, np.array(splits, dtype=np_splits_dtype))

    def inner_factory(values, dtype, shape):
        _check_inner_shape(values, shape)
        arr = np.array(values, dtype=dtype)
        if shape is not None:
            arr = np.reshape(arr, shape)
        return arr

    return _constant_value(ragged_factory, inner_factory, pylist, dtype, ragged_rank,
                           inner_shape)


def placeholder(dtype, ragged_rank, value_shape=None, name=None):
    """A RaggedTensor of placeholders (flat values ``[None] + value_shape`` and int64 row
    splits); feed it a ``tf.ragged.RaggedTensorValue``."""
    if ragged_rank == 0:
        return constant_op.placeholder(dtype, value_shape, name)
    with ops.name_scope(name, "RaggedPlaceholder", []):
        flat_shape = TensorShape([None]).concatenate(
            TensorShape(value_shape if value_shape is not None else []))
        result = constant_op.placeholder(dtype, flat_shape, "flat_values")
        for i in reversed(builtins.range(ragged_rank)):
            splits = constant_op.placeholder(dtypes.int64, [None], f"row_splits_{i}")
            result = RaggedTensor(result, splits, internal=True)
        return result


# ------------------------------------------------------------------------------------------
# range, segment ids
# ------------------------------------------------------------------------------------------

_RANGE_DTYPES = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)


def ragged_range(starts, limits=None, deltas=1, dtype=None, name=None,
                 row_splits_dtype=dtypes.int64):
    """Row ``i`` is ``range(starts[i], limits[i], deltas[i])`` (scalars broadcast)."""
    row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
    if limits is None:
        starts, limits = 0, starts
    with ops.name_scope(name, "RaggedRange", [starts, limits, deltas]):
        args = [ops.convert_to_tensor(v, dtype=dtype, name=n)
                for v, n in ((starts, "starts"), (limits, "limits"), (deltas, "deltas"))]
        if dtype is None:
            for a in args:
                if a.dtype.base_dtype not in _RANGE_DTYPES:
                    raise TypeError(f"RaggedRange does not support dtype {a.dtype.name}")
            dtype = max((a.dtype.base_dtype for a in args), key=_RANGE_DTYPES.index)
        dtype = dtypes.as_dtype(dtype)
        args = [cast_ops.cast(a, dtype) for a in args]
        for a in args:
            if a.get_shape().ndims is not None and a.get_shape().ndims > 1:
                raise ValueError(f"starts, limits and deltas must be scalars or vectors; got "
                                 f"shape {a.get_shape()}")
        total = args[0] + args[1] + args[2]  # broadcast shape
        starts, limits, deltas = [
            array_ops.reshape(a + array_ops.zeros_like(total), [-1]) for a in args]
        check = Assert(reduction_ops.reduce_all(math_ops.not_equal(deltas, 0)),
                       ["Requires delta != 0"])
        with ops.control_dependencies([check]):
            deltas = array_ops.identity(deltas)
        if dtype.is_integer:
            up = math_ops.floordiv(limits - starts + deltas - 1, deltas)
            down = math_ops.floordiv(starts - limits - deltas - 1, -deltas)
            sizes = gather_ops.where(math_ops.greater(deltas, 0), up, down)
        else:
            sizes = math_ops.ceil((limits - starts) / deltas)
        sizes = math_ops.maximum(cast_ops.cast(sizes, row_splits_dtype),
                                 array_ops.zeros([], row_splits_dtype))
        splits = concat_ops.concat([array_ops.zeros([1], row_splits_dtype),
                                    reduction_ops.cumsum(sizes)], 0)
        rowids = _splits_to_rowids(splits)
        pos = range_ops.range(splits[-1], dtype=row_splits_dtype) - gather_ops.gather(
            splits, rowids)
        values = gather_ops.gather(starts, rowids) + cast_ops.cast(pos, dtype) * (
            gather_ops.gather(deltas, rowids))
        n = total.get_shape().num_elements() if total.get_shape().is_fully_defined() else None
        if n is not None:
            splits.set_shape([n + 1])
        return RaggedTensor(values, splits, internal=True)


def row_splits_to_segment_ids(splits, name=None, out_type=None):
    """The row id of each value: ``[0, 2, 2, 5]`` gives ``[0, 0, 2, 2, 2]``."""
    with ops.name_scope(name, "RaggedSplitsToSegmentIds", [splits]):
        splits = ops.convert_to_tensor(splits, preferred_dtype=dtypes.int64, name="splits")
        if splits.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError("splits must have dtype int32 or int64")
        splits.get_shape().assert_has_rank(1)
        ids = _splits_to_rowids(splits)
        return ids if out_type is None else cast_ops.cast(ids, out_type)


def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    """Row splits for sorted segment ids: ``[0, 0, 2, 2, 2]`` gives ``[0, 2, 2, 5]``."""
    with ops.name_scope(name, "SegmentIdsToRaggedSplits", [segment_ids]):
        segment_ids = ops.convert_to_tensor(segment_ids, preferred_dtype=dtypes.int64,
                                            name="segment_ids")
        if segment_ids.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError("segment_ids must have dtype int32 or int64")
        segment_ids.get_shape().assert_has_rank(1)
        if out_type is None:
            out_type = segment_ids.dtype
        out_type = dtypes.as_dtype(out_type)
        ids = cast_ops.cast(segment_ids, out_type)
        if num_segments is None:
            num_segments = concat_ops.concat(
                [ids[-1:], constant_op.constant([-1], out_type)], 0)[0] + 1
        else:
            num_segments = cast_ops.cast(
                ops.convert_to_tensor(num_segments, name="num_segments"), out_type)
        splits = _searchsorted(ids, range_ops.range(num_segments + 1, dtype=out_type), "left",
                               out_type)
        n = ops.constant_value(num_segments)
        if n is not None:
            splits.set_shape([int(n) + 1])
        return splits


# ------------------------------------------------------------------------------------------
# map_flat_values and the element-wise rule
# ------------------------------------------------------------------------------------------


def _assert_same_splits(first, other):
    checks = []
    for a, b in zip(first.nested_row_splits, other.nested_row_splits):
        if a is b:
            continue
        a.get_shape().assert_is_compatible_with(b.get_shape())
        checks.append(check_ops.assert_equal(a, cast_ops.cast(b, a.dtype),
                                             message="Inputs must have identical ragged splits"))
    return checks


def map_flat_values(op, *args, **kwargs):
    """``op`` applied to the flat values of the RaggedTensor arguments (which must share
    their row partitions); the result keeps that partition."""
    ragged = []

    def replace(x):
        if isinstance(x, RaggedTensor):
            ragged.append(x)
            return x.flat_values
        if isinstance(x, list):
            return [replace(v) for v in x]
        if isinstance(x, tuple) and not hasattr(x, "_fields"):
            return tuple(replace(v) for v in x)
        if isinstance(x, dict):
            return {k: replace(v) for k, v in x.items()}
        return x

    new_args = [replace(a) for a in args]
    new_kwargs = {k: replace(v) for k, v in kwargs.items()}
    if not ragged:
        return op(*args, **kwargs)
    first = ragged[0]
    checks = []
    for other in ragged[1:]:
        if other.ragged_rank != first.ragged_rank:
            raise ValueError("All ragged inputs must have the same ragged_rank.")
        checks.extend(_assert_same_splits(first, other))
    result = op(*new_args, **new_kwargs)
    if checks:
        result = control_flow_ops.with_dependencies(checks, result)
    return first.with_flat_values(result)


def _flat_rowids(rt):
    """The row of ``rt`` holding each of its flat values."""
    ids = None
    for splits in reversed(rt.nested_row_splits):
        level = _splits_to_rowids(splits)
        ids = level if ids is None else gather_ops.gather(level, ids)
    return ids


def _broadcast_dense(ref, dense):
    """``dense`` shaped to broadcast against ``ref.flat_values``."""
    flat_rank = ref.flat_values.shape.ndims
    rank = dense.get_shape().ndims
    if rank is None or flat_rank is None:
        raise ValueError("Ragged element-wise ops need operands of known rank")
    if rank <= flat_rank - 1:
        return dense
    total_rank = ref.ragged_rank + flat_rank
    if rank == total_rank:
        dims = dense.get_shape().as_list()
        if all(d == 1 for d in dims[1:ref.ragged_rank + 1]):
            shape = array_ops.shape(dense)
            squeezed = array_ops.reshape(
                dense, concat_ops.concat([shape[:1], shape[ref.ragged_rank + 1:]], 0))
            if dims[0] == 1:
                return squeezed[0]
            return gather_ops.gather(squeezed, _flat_rowids(ref))
    raise ValueError(f"Unable to broadcast a dense operand of shape {dense.get_shape()} "
                     f"against a RaggedTensor of shape {ref.shape}")


@functools.cache
def _signature(fn):
    return inspect.signature(fn)


def _arguments(fn, args, kwargs):
    """``fn``'s parameters bound to a dispatched call's arguments (a dict), or None when they
    do not fit its signature."""
    try:
        return _signature(fn).bind(*args, **kwargs).arguments
    except TypeError:
        return None


def _elementwise(fn, n, args, kwargs):
    """The ragged rule of an element-wise op: its first ``n`` parameters are operands."""
    sig = _signature(fn)
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError:
        return NotImplemented
    names = list(sig.parameters)[:n]
    operands = [bound.arguments.get(p) for p in names]
    if not any(is_ragged(o) for o in operands) or any(o is None for o in operands):
        return NotImplemented  # (e.g. tf.where(condition) alone: not element-wise)
    ref, flat, checks = _flat_operands(fn, operands)
    for p, v in zip(names, flat):
        bound.arguments[p] = v
    result = fn(*bound.args, **bound.kwargs)
    if checks:
        result = control_flow_ops.with_dependencies(checks, result)
    return ref.with_flat_values(result)


def _flat_operands(fn, operands, broadcast=True):
    """``(ref, flat, checks)``: the first ragged operand, each operand's flat values (a dense
    one broadcast against ``ref``'s, or as it is without ``broadcast``) and the run-time checks
    that the partitions agree."""
    operands = [_ragged_from_value(o) for o in operands]
    ref = next(o for o in operands if isinstance(o, RaggedTensor))
    checks = []
    flat = []
    for o in operands:
        if isinstance(o, RaggedTensor):
            if o is not ref:
                if o.ragged_rank != ref.ragged_rank:
                    raise ValueError(f"{fn.__name__}: ragged operands must have the same "
                                     f"ragged_rank; got {ref.ragged_rank} and {o.ragged_rank}")
                checks.extend(_assert_same_splits(ref, o))
            flat.append(o.flat_values)
        elif broadcast:
            dense = ops.convert_to_tensor(o, preferred_dtype=ref.dtype)
            flat.append(_broadcast_dense(ref, dense))
        else:
            flat.append(o)
    return ref, flat, checks


def _list_elementwise_handler(fn):
    """The ragged rule of an op whose first parameter is a list of element-wise operands
    (``add_n``, ``string_join``: TF 1.15's list dispatch, which passes dense operands as they
    are)."""

    def handler(args, kwargs):
        bound = _arguments(fn, args, kwargs)
        first = next(iter(_signature(fn).parameters))
        inputs = None if bound is None else bound.get(first)
        if not isinstance(inputs, (list, tuple)) or not any(is_ragged(x) for x in inputs):
            return NotImplemented
        ref, bound[first], checks = _flat_operands(fn, list(inputs), broadcast=False)
        result = fn(**bound)
        if checks:
            result = control_flow_ops.with_dependencies(checks, result)
        return ref.with_flat_values(result)

    return handler


dispatch.set_elementwise_handler(_elementwise)


def _ragged_from_value(value):
    if isinstance(value, RaggedTensorValue):
        splits = value.nested_row_splits
        return RaggedTensor.from_nested_row_splits(
            constant_op.constant(value.flat_values),
            [constant_op.constant(s) for s in splits], validate=False)
    return value


# ------------------------------------------------------------------------------------------
# reductions
# ------------------------------------------------------------------------------------------

_SEGMENT_FNS = {
    "sum": reduction_ops.unsorted_segment_sum,
    "prod": reduction_ops.unsorted_segment_prod,
    "max": reduction_ops.unsorted_segment_max,
    "min": reduction_ops.unsorted_segment_min,
}
_DENSE_FNS = {
    "sum": reduction_ops.reduce_sum,
    "prod": reduction_ops.reduce_prod,
    "max": reduction_ops.reduce_max,
    "min": reduction_ops.reduce_min,
}


def _segment_reduce(kind, data, segment_ids, num_segments, separator=""):
    """Reduces the rows of ``data`` (dense or ragged) by segment: ragged rows of different
    lengths reduce element by element, a missing element counting as the identity (kind
    "join": strings joined with ``separator``)."""
    if not isinstance(data, RaggedTensor):
        if kind == "join":
            return string_more_ops.unsorted_segment_join(data, segment_ids, num_segments,
                                                         separator=separator)
        return _SEGMENT_FNS[kind](data, segment_ids, num_segments)
    dt = data.row_splits.dtype
    segment_ids = cast_ops.cast(segment_ids, dt)
    num_segments = cast_ops.cast(num_segments, dt)
    lengths = data.row_lengths()
    out_lengths = math_ops.maximum(
        reduction_ops.unsorted_segment_max(lengths, segment_ids, num_segments),
        array_ops.zeros([], dt))
    out_splits = concat_ops.concat([array_ops.zeros([1], dt), reduction_ops.cumsum(out_lengths)],
                                   0)
    rowids = data.value_rowids()
    cols = range_ops.range(array_ops.shape(rowids, out_type=dt)[0], dtype=dt) - (
        gather_ops.gather(data.row_splits, rowids))
    out_starts = gather_ops.gather(out_splits, segment_ids)
    value_ids = gather_ops.gather(out_starts, rowids) + cols
    values = _segment_reduce(kind, data.values, value_ids, out_splits[-1], separator)
    return RaggedTensor(values, out_splits, internal=True)


def _reduce_axis(kind, rt, axis, separator=""):
    """Reduces one axis of a RaggedTensor (``axis`` >= 0)."""
    if not isinstance(rt, RaggedTensor):
        if kind == "join":
            return string_ops.reduce_join(rt, axis=axis, separator=separator)
        return _DENSE_FNS[kind](rt, axis=axis)
    if axis == 0:
        dt = rt.row_splits.dtype
        rowids = rt.value_rowids()
        cols = range_ops.range(array_ops.shape(rowids, out_type=dt)[0], dtype=dt) - (
            gather_ops.gather(rt.row_splits, rowids))
        ncols = reduction_ops.reduce_max(
            concat_ops.concat([array_ops.zeros([1], dt), rt.row_lengths()], 0))
        return _segment_reduce(kind, rt.values, cols, ncols, separator)
    if axis == 1:
        return _segment_reduce(kind, rt.values, rt.value_rowids(), rt.nrows(), separator)
    return rt.with_values(_reduce_axis(kind, rt.values, axis - 1, separator))


def expand_dims(input, axis, name=None):
    """``input`` with a size-1 dimension inserted at ``axis`` (dense or ragged)."""
    with ops.name_scope(name, "RaggedExpandDims", [input]):
        if not isinstance(input, RaggedTensor):
            return array_ops.expand_dims(input, axis)
        ndims = input.shape.ndims
        axis = _positive_axis(axis, ndims + 1 if ndims is not None else None)
        dt = input.row_splits.dtype
        if axis == 0:
            splits = array_ops.stack([array_ops.zeros([], dt), input.nrows()])
            return RaggedTensor(input, splits, internal=True)
        if axis == 1:
            splits = range_ops.range(input.nrows() + 1, dtype=dt)
            splits.set_shape(input.row_splits.get_shape())
            return RaggedTensor(input, splits, internal=True)
        return input.with_values(expand_dims(input.values, axis - 1))


def _ragged_reduce(kind, rt, axis, keepdims):
    ndims = rt.shape.ndims
    if axis is None:
        flat = rt.flat_values
        if kind == "mean":  # as TF: sum / count, so an int mean is a float64
            result = math_ops.truediv(reduction_ops.reduce_sum(flat),
                                      array_ops.size(flat, out_type=flat.dtype))
        elif kind in ("all", "any"):
            result = (reduction_ops.reduce_all if kind == "all" else reduction_ops.reduce_any)(
                flat)
        else:
            result = _DENSE_FNS[kind](flat)
        if keepdims:
            result = array_ops.reshape(result, [1] * ndims)
        return result
    if kind == "mean":
        total = _ragged_reduce("sum", rt, axis, keepdims)
        count = _ragged_reduce("sum", map_flat_values(fill_ops.ones_like, rt, dtype=total.dtype),
                               axis, keepdims)
        return map_flat_values(math_ops.truediv, total, count) if isinstance(
            total, RaggedTensor) else math_ops.truediv(total, count)
    if kind in ("all", "any"):
        as_int = map_flat_values(cast_ops.cast, rt, dtypes.int32)
        result = _ragged_reduce("min" if kind == "all" else "max", as_int, axis, keepdims)
        # an empty row's max is the lowest int (any: False), its min the highest (all: True)
        return map_flat_values(math_ops.greater, result, 0) if isinstance(
            result, RaggedTensor) else math_ops.greater(result, 0)
    axes = ops.constant_value(axis) if isinstance(axis, ops.Tensor) else axis
    if axes is None:
        raise ValueError("Reducing a RaggedTensor needs a constant axis")
    axes = np.atleast_1d(np.asarray(axes)).tolist()
    axes = sorted({_positive_axis(int(a), ndims) for a in axes}, reverse=True)
    result = rt
    for a in axes:
        result = _reduce_axis(kind, result, a)
        if keepdims:
            result = expand_dims(result, a)
    return result


def _reduce_handler(kind, api_fn):
    def handler(args, kwargs):
        a = _arguments(api_fn, args, kwargs)
        if a is None:
            return NotImplemented
        rt = _ragged_from_value(a.get("input_tensor"))
        if not isinstance(rt, RaggedTensor):
            return NotImplemented
        axis = a.get("axis")
        if axis is None:
            axis = a.get("reduction_indices")
        keepdims = a.get("keepdims")
        if keepdims is None:
            keepdims = a.get("keep_dims")
        with ops.name_scope(a.get("name"), f"RaggedReduce{kind.capitalize()}", [rt]):
            return _ragged_reduce(kind, rt, axis, bool(keepdims))

    return handler


# ------------------------------------------------------------------------------------------
# concat, stack, gather, size, rank, boolean_mask
# ------------------------------------------------------------------------------------------


def _concat_rows(rts):
    """The rows of every input, one after another."""
    if all(isinstance(rt.values, RaggedTensor) for rt in rts):
        values = _concat_rows([rt.values for rt in rts])
    else:
        values = concat_ops.concat([rt.values for rt in rts], 0)
    parts = [rts[0].row_splits]
    offset = rts[0].row_splits[-1]
    for rt in rts[1:]:
        parts.append(rt.row_splits[1:] + offset)
        offset = offset + rt.row_splits[-1]
    return RaggedTensor(values, concat_ops.concat(parts, 0), internal=True)


def _as_ragged_inputs(values, what):
    values = [_ragged_from_value(v) for v in values]
    ragged = [v for v in values if isinstance(v, RaggedTensor)]
    if not ragged:
        return None
    ragged_rank = max(r.ragged_rank for r in ragged)
    splits_dtype = dtypes.int64 if any(
        r.row_splits.dtype == dtypes.int64 for r in ragged) else dtypes.int32
    out = []
    for v in values:
        if not isinstance(v, RaggedTensor):
            v = RaggedTensor.from_tensor(ops.convert_to_tensor(v), ragged_rank=ragged_rank,
                                         row_splits_dtype=splits_dtype)
        elif v.ragged_rank != ragged_rank:
            raise ValueError(f"{what}: the RaggedTensors must have the same ragged_rank; got "
                             f"{sorted({r.ragged_rank for r in ragged})}")
        out.append(v.with_row_splits_dtype(splits_dtype))
    dtype = out[0].dtype
    for v in out[1:]:
        if v.dtype != dtype:
            raise TypeError(f"{what}: the inputs must have the same dtype; got {dtype.name} "
                            f"and {v.dtype.name}")
    return out


def ragged_concat(values, axis, stack_values=False, name=None):
    what = "tf.stack" if stack_values else "tf.concat"
    if not isinstance(values, (list, tuple)):
        return NotImplemented
    rts = _as_ragged_inputs(values, what)
    if rts is None:
        return NotImplemented
    with ops.name_scope(name, "RaggedStack" if stack_values else "RaggedConcat", rts):
        ndims = rts[0].shape.ndims
        if ndims is None:
            raise ValueError(f"{what}: the inputs' rank must be known statically")
        axis = _positive_axis(int(axis), ndims + 1 if stack_values else ndims)
        dt = rts[0].row_splits.dtype
        k = len(rts)
        if len(rts) == 1 and not stack_values:
            return rts[0]
        if axis == 0:
            if stack_values:
                rows = _concat_rows(rts)
                nrows = array_ops.stack([rt.nrows() for rt in rts])
                splits = concat_ops.concat([array_ops.zeros([1], dt),
                                            reduction_ops.cumsum(nrows)], 0)
                return RaggedTensor(rows, splits, internal=True)
            return _concat_rows(rts)
        nrows = rts[0].nrows()
        checks = [check_ops.assert_equal(
            nrows, rt.nrows(),
            message=f"Input tensors at index 0 (=x) and {i} (=y) have incompatible shapes.")
            for i, rt in enumerate(rts[1:], 1)]
        if axis == 1:
            rows = _concat_rows(rts)
            with ops.control_dependencies(checks):
                n = array_ops.identity(nrows)
            # row i of input j sits at j * n + i; take them in (i, j) order
            pos = range_ops.range(n * k, dtype=dt)
            perm = (pos % k) * n + pos // k
            interleaved = rows._gather_rows(perm)
            if stack_values:
                splits = range_ops.range(n + 1, dtype=dt) * k
                splits.set_shape(rts[0].row_splits.get_shape())
                return RaggedTensor(interleaved, splits, internal=True)
            splits = interleaved.row_splits[::k]
            splits.set_shape(rts[0].row_splits.get_shape())
            return RaggedTensor(interleaved.values, splits, internal=True)
        # deeper axes: the inputs share their outer rows
        checks = []
        for rt in rts[1:]:
            checks.extend(_assert_same_splits(rts[0], rt) if rt.ragged_rank == 1 else [])
        if isinstance(rts[0].values, RaggedTensor):
            inner = ragged_concat([rt.values for rt in rts], axis - 1, stack_values)
        elif stack_values:
            inner = concat_ops.stack([rt.values for rt in rts], axis - 1)
        else:
            inner = concat_ops.concat([rt.values for rt in rts], axis - 1)
        if checks:
            inner = control_flow_ops.with_dependencies(checks, inner)
        return rts[0].with_values(inner)


def stack(values, axis=0, name=None):
    """``values`` (ragged or dense, their sizes may differ) stacked along a new ``axis``.
    As TF 1.15, all-dense inputs stacked along one of their last two axes give a dense
    tensor (``tf.stack``); along an outer axis they become ragged rows."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    with ops.name_scope(name, "RaggedConcat", values):
        values = [_ragged_from_value(v) for v in values]
        if len(values) == 1:
            return expand_dims(values[0] if is_ragged(values[0])
                               else ops.convert_to_tensor(values[0]), axis)
        if not any(is_ragged(v) for v in values):
            values = [ops.convert_to_tensor(v) for v in values]
            ndims = values[0].shape.ndims
            if ndims is not None and _positive_axis(axis, ndims + 1) >= ndims - 1:
                return concat_ops.stack(values, axis)
            values = [RaggedTensor.from_tensor(v) for v in values]
        return ragged_concat(values, axis, stack_values=True)


def _concat_handler(api_fn, stack_values):
    def handler(args, kwargs):
        a = _arguments(api_fn, args, kwargs)
        if a is None:
            return NotImplemented
        values = a.get("values")
        axis = a.get("axis", 0)
        if not stack_values and axis is None:
            axis = a.get("concat_dim")
        if axis is None:
            axis = 0
        if not isinstance(values, (list, tuple)) or not any(is_ragged(v) for v in values):
            return NotImplemented
        return ragged_concat(values, axis, stack_values, a.get("name"))

    return handler


def ragged_gather(params, indices, name=None):
    """The rows of ``params`` at ``indices`` (dense or ragged indices, any rank)."""
    with ops.name_scope(name, "RaggedGather", [params, indices]):
        params = _ragged_from_value(params)
        indices = _ragged_from_value(indices)
        if isinstance(indices, RaggedTensor):
            inner = ragged_gather(params, indices.flat_values)
            if isinstance(inner, RaggedTensor):
                indices = indices.with_row_splits_dtype(inner.row_splits.dtype)
                inner = inner.with_row_splits_dtype(indices.row_splits.dtype)
            return indices.with_flat_values(inner)
        indices = ops.convert_to_tensor(indices, name="indices")
        if not indices.dtype.is_integer:
            raise TypeError(f"indices must be int32 or int64; got {indices.dtype.name}")
        if not isinstance(params, RaggedTensor):
            return gather_ops.gather(params, indices)
        rank = indices.get_shape().ndims
        if rank is None:
            raise ValueError("tf.gather on a RaggedTensor needs indices of known rank")
        if rank == 0:
            return params[indices]
        dt = params.row_splits.dtype
        result = params._gather_rows(array_ops.reshape(indices, [-1]))
        shape = array_ops.shape(indices, out_type=dt)
        for d in reversed(builtins.range(1, rank)):
            size = shape[d]
            count = reduction_ops.reduce_prod(shape[:d])
            splits = range_ops.range(count + 1, dtype=dt) * size
            result = RaggedTensor(result, splits, internal=True)
        return result



def _gather_handler(api_fn):
    def handler(args, kwargs):
        a = _arguments(api_fn, args, kwargs)
        if a is None:
            return NotImplemented
        params, indices = a.get("params"), a.get("indices")
        if not (is_ragged(params) or is_ragged(indices)):
            return NotImplemented
        if a.get("axis") not in (None, 0) or a.get("batch_dims", 0) != 0:
            raise ValueError("tf.gather on a RaggedTensor supports only axis=0, batch_dims=0")
        return ragged_gather(params, indices, a.get("name"))

    return handler


def _size_handler(args, kwargs):
    a = _arguments(array_ops.size, args, kwargs)
    rt = None if a is None else a.get("input")
    if not is_ragged(rt):
        return NotImplemented
    rt = _ragged_from_value(rt)
    return array_ops.size(rt.flat_values, name=a.get("name"),
                          out_type=a.get("out_type", dtypes.int32))


def _rank_handler(args, kwargs):
    a = _arguments(array_ops.rank, args, kwargs)
    rt = None if a is None else a.get("input")
    if not is_ragged(rt):
        return NotImplemented
    rt = _ragged_from_value(rt)
    with ops.name_scope(a.get("name"), "RaggedRank", [rt]):
        return rt.ragged_rank + array_ops.rank(rt.flat_values)


def boolean_mask(data, mask, name=None):
    """The entries of ``data`` where ``mask`` is true, keeping ``mask``'s dimensions: a 1-D
    mask selects rows; a mask of rank k > 1 (dense or ragged) selects entries of the first k
    dimensions and makes the result ragged in them."""
    with ops.name_scope(name, "RaggedMask", [data, mask]):
        data = _ragged_from_value(data)
        mask = _ragged_from_value(mask)
        if not isinstance(mask, RaggedTensor):
            mask = ops.convert_to_tensor(mask, dtype=dtypes.bool, name="mask")
        elif mask.dtype != dtypes.bool:
            raise ValueError("mask must have dtype bool")
        mask_rank = mask.shape.ndims
        if mask_rank is None:
            raise ValueError("mask.shape.ndims must be known statically.")
        if mask_rank == 0:
            raise ValueError("mask cannot be scalar.")
        if not isinstance(data, RaggedTensor):
            data = ops.convert_to_tensor(data, name="data")
        data_rank = data.shape.ndims
        if data_rank is not None and mask_rank > data_rank:
            raise ValueError("Rank of mask must be less than or equal to rank of data.")
        if mask_rank == 1:
            keep = array_ops.reshape(gather_ops.where(mask), [-1])
            if isinstance(data, RaggedTensor):
                return data._gather_rows(keep)
            return gather_ops.gather(data, keep)
        if not isinstance(mask, RaggedTensor):
            mask = RaggedTensor.from_tensor(mask, ragged_rank=mask_rank - 1)
        if not isinstance(data, RaggedTensor):
            data = RaggedTensor.from_tensor(data, ragged_rank=mask.ragged_rank,
                                            row_splits_dtype=mask.row_splits.dtype)
        if data.ragged_rank < mask.ragged_rank:
            raise ValueError("boolean_mask: data has fewer ragged dimensions than mask")
        mask = mask.with_row_splits_dtype(data.row_splits.dtype)
        return _mask_level(data, mask)


def _mask_level(data, mask):
    if isinstance(mask.values, RaggedTensor):
        return data.with_values(_mask_level(data.values, mask.values))
    keep = mask.values
    dt = data.row_splits.dtype
    new_values = _gather_rows(data.values, array_ops.reshape(gather_ops.where(keep), [-1]))
    counts = reduction_ops.unsorted_segment_sum(cast_ops.cast(keep, dt), data.value_rowids(),
                                                data.nrows())
    splits = concat_ops.concat([array_ops.zeros([1], dt), reduction_ops.cumsum(counts)], 0)
    splits.set_shape(data.row_splits.get_shape())
    return RaggedTensor(new_values, splits, internal=True)


def _boolean_mask_handler(args, kwargs):
    a = _arguments(slicing_ops.boolean_mask, args, kwargs)
    if a is None or not (is_ragged(a.get("tensor")) or is_ragged(a.get("mask"))):
        return NotImplemented
    if a.get("axis") not in (None, 0):
        raise ValueError("tf.boolean_mask on a RaggedTensor supports only axis=None or 0")
    name = a.get("name", "boolean_mask")
    return boolean_mask(a.get("tensor"), a.get("mask"), name=name)


def stack_dynamic_partitions(data, partitions, num_partitions, name=None):
    """A RaggedTensor whose row ``p`` holds the items of ``data`` with ``partitions == p``,
    in their order (``data`` and ``partitions`` dense or ragged; partitions of rank k pick
    items of ``data``'s first k dimensions)."""
    with ops.name_scope(name, "SegmentStack", [data, partitions, num_partitions]):
        data = _ragged_from_value(data)
        if not isinstance(data, RaggedTensor):
            data = ops.convert_to_tensor(data, name="data")
        partitions = _ragged_from_value(partitions)
        if not isinstance(partitions, RaggedTensor):
            partitions = ops.convert_to_tensor(partitions, name="partitions")
        if partitions.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError("partitions must be int32 or int64")
        rank = partitions.shape.ndims
        if rank is None:
            raise ValueError("partitions must have known rank.")
        if rank == 0:
            return RaggedTensor.from_value_rowids(
                concat_ops.stack([data]), array_ops.reshape(
                    cast_ops.cast(partitions, dtypes.int64), [1]), nrows=num_partitions)
        if rank > 1:
            # the outer dimension of both is their row partition: partition the values
            if not isinstance(data, RaggedTensor):
                data = RaggedTensor.from_tensor(data)
            if not isinstance(partitions, RaggedTensor):
                partitions = RaggedTensor.from_tensor(
                    partitions, ragged_rank=max(data.ragged_rank, rank - 1))
            check = check_ops.assert_equal(
                data.row_splits, cast_ops.cast(partitions.row_splits, data.row_splits.dtype),
                message="data and partitions have incompatible ragged shapes")
            with ops.control_dependencies([check]):
                return stack_dynamic_partitions(data.values, partitions.values, num_partitions)
        n = array_ops.shape(partitions, out_type=dtypes.int64)[0]
        # a stable sort by partition: partition-major keys that are all different
        keys = cast_ops.cast(partitions, dtypes.int64) * n + range_ops.range(
            n, dtype=dtypes.int64)
        perm = sort_ops.argsort(keys)
        rowids = gather_ops.gather(partitions, perm)
        if isinstance(data, RaggedTensor):
            values = ragged_gather(data, perm)
            rowids = cast_ops.cast(rowids, data.row_splits.dtype)
        else:
            values = gather_ops.gather(data, perm)
        return RaggedTensor.from_value_rowids(values, rowids, nrows=num_partitions)


def _dynamic_partition_handler(args, kwargs):
    a = _arguments(embedding_ops.dynamic_partition, args, kwargs)
    if a is None or not (is_ragged(a.get("data")) or is_ragged(a.get("partitions"))):
        return NotImplemented
    num = a.get("num_partitions")
    if not isinstance(num, int) or num < 0:
        raise TypeError("num_partitions must be a non-negative integer")
    result = stack_dynamic_partitions(a.get("data"), a.get("partitions"), num, a.get("name"))
    return [result[i] for i in builtins.range(num)]


def gather_nd(params, indices, name=None):
    """``params`` at the index tuples in the last dimension of ``indices`` (either may be
    ragged): a tuple reaching into the flat values gives a dense result."""
    with ops.name_scope(name, "RaggedGatherNd", [params, indices]):
        params = _ragged_from_value(params)
        indices = _ragged_from_value(indices)
        if isinstance(indices, RaggedTensor):
            return indices.with_flat_values(gather_nd(params, indices.flat_values))
        indices = ops.convert_to_tensor(indices, name="indices")
        if not isinstance(params, RaggedTensor):
            return gather_ops.gather_nd(params, indices)
        if not indices.dtype.is_integer:
            raise TypeError(f"indices must be int32 or int64; got {indices.dtype.name}")
        ishape = indices.get_shape()
        if ishape.ndims is None or ishape.dims[-1].value is None:
            raise ValueError("tf.gather_nd on a RaggedTensor needs indices whose rank and "
                             "last dimension are known")
        k = ishape.dims[-1].value
        if k > params.shape.ndims:
            raise ValueError(f"Index size ({k}) must be less than or equal to the rank of "
                             f"params ({params.shape.ndims})")
        if k == 0 or ishape.ndims == 1:
            # one index tuple (or none): the rows of a batch of one
            batch = gather_nd(params, array_ops.reshape(indices, [1, k]))
            return batch[0]
        if ishape.ndims > 2:
            flat = gather_nd(params, array_ops.reshape(indices, [-1, k]))
            outer = array_ops.shape(indices, out_type=dtypes.int64)[:-1]
            if not isinstance(flat, RaggedTensor):
                inner = array_ops.shape(flat, out_type=dtypes.int64)[1:]
                return array_ops.reshape(flat, concat_ops.concat([outer, inner], 0))
            dt = flat.row_splits.dtype
            outer = cast_ops.cast(outer, dt)
            for d in reversed(builtins.range(1, ishape.ndims - 1)):
                count = reduction_ops.reduce_prod(outer[:d])
                flat = RaggedTensor(flat, range_ops.range(count + 1, dtype=dt) * outer[d],
                                    internal=True)
            return flat
        dt = params.row_splits.dtype
        idx = cast_ops.cast(indices, dt)
        # each step folds a tuple's first two indices into one index into the values
        while k > 1 and isinstance(params, RaggedTensor):
            row = gather_ops.gather(params.row_splits, idx[:, 0]) + idx[:, 1]
            idx = concat_ops.concat([array_ops.expand_dims(row, 1), idx[:, 2:]], 1)
            params = params.values
            k -= 1
        if isinstance(params, RaggedTensor):
            return ragged_gather(params, idx[:, 0])
        return gather_ops.gather_nd(params, idx)


def batch_gather(params, indices, name=None):
    """``result[b, i] = params[b, indices[b, i]]`` for ragged ``params`` or ``indices``
    (one batch dimension)."""
    with ops.name_scope(name, "RaggedBatchGather", [params, indices]):
        params = _ragged_from_value(params)
        indices = _ragged_from_value(indices)
        if not (isinstance(params, RaggedTensor) or isinstance(indices, RaggedTensor)):
            return counting_ops.batch_gather(params, indices)
        if not isinstance(params, RaggedTensor):
            params = RaggedTensor.from_tensor(params, ragged_rank=1)
        if isinstance(indices, RaggedTensor):
            if indices.ragged_rank != 1 or indices.values.get_shape().ndims != 1:
                raise ValueError("batch_gather on RaggedTensors supports indices of shape "
                                 "[batch, (num_indices)] only")
            dt = params.row_splits.dtype
            rows = cast_ops.cast(indices.value_rowids(), dt)
            flat = cast_ops.cast(indices.values, dt) + gather_ops.gather(params.row_splits, rows)
            values = ragged_gather(params.values, flat)
            if isinstance(values, RaggedTensor):
                values = values.with_row_splits_dtype(indices.row_splits.dtype)
            return indices.with_values(values)
        indices = ops.convert_to_tensor(indices, name="indices")
        if indices.get_shape().ndims != 2:
            raise ValueError("batch_gather on a RaggedTensor supports indices of shape "
                             "[batch, num_indices] only")
        # dense indices index each row's values: a dense result when the values are dense
        dt = params.row_splits.dtype
        idx = cast_ops.cast(indices, dt) + array_ops.expand_dims(params.row_splits[:-1], 1)
        return ragged_gather(params.values, idx)


def _pair_handler(api_fn, ragged_fn, names):
    """Dispatch of ``api_fn`` to ``ragged_fn(*names, name=)`` when one of them is ragged."""
    def handler(args, kwargs):
        a = _arguments(api_fn, args, kwargs)
        if a is None or not any(is_ragged(a.get(n)) for n in names):
            return NotImplemented
        if a.get("batch_dims", 0) != 0:
            raise ValueError(f"{api_fn.__name__} on a RaggedTensor supports batch_dims=0 only")
        return ragged_fn(*(a.get(n) for n in names), name=a.get("name"))

    return handler


def segment_reduce(kind, data, segment_ids, num_segments, name=None):
    """The unsorted segment reduction ``kind`` (sum, prod, max, min, mean, sqrt_n) of ragged
    ``data``: rows of one segment combine element by element; ragged ``segment_ids`` must
    share ``data``'s outer row partition."""
    with ops.name_scope(name, "RaggedSegment", [data, segment_ids, num_segments]):
        data = _ragged_from_value(data)
        segment_ids = _ragged_from_value(segment_ids)
        if isinstance(segment_ids, RaggedTensor):
            if not isinstance(data, RaggedTensor):
                raise ValueError(  # noqa: TRY004 - TF's error class
                    "segment_ids.shape must be a prefix of data.shape, but segment_ids is "
                    "ragged and data is not.")
            check = check_ops.assert_equal(
                data.row_splits, cast_ops.cast(segment_ids.row_splits, data.row_splits.dtype),
                message="segment_ids.shape must be a prefix of data.shape")
            with ops.control_dependencies([check]):
                return segment_reduce(kind, data.values, segment_ids.values, num_segments)
        if kind in ("mean", "sqrt_n"):
            total = segment_reduce("sum", data, segment_ids, num_segments)
            ones = (data.with_flat_values(array_ops.ones_like(data.flat_values))
                    if isinstance(data, RaggedTensor) else array_ops.ones_like(data))
            count = segment_reduce("sum", ones, segment_ids, num_segments)
            if kind == "sqrt_n":
                count = map_flat_values(math_ops.sqrt, count) if isinstance(
                    count, RaggedTensor) else math_ops.sqrt(count)
            if isinstance(total, RaggedTensor):
                return total.with_flat_values(total.flat_values / count.flat_values)
            return total / count
        segment_ids = ops.convert_to_tensor(segment_ids, name="segment_ids")
        return _segment_reduce(kind, data, segment_ids, num_segments)


def _segment_handler(kind, api_fn):
    def handler(args, kwargs):
        a = _arguments(api_fn, args, kwargs)
        if a is None or not (is_ragged(a.get("data")) or is_ragged(a.get("segment_ids"))):
            return NotImplemented
        return segment_reduce(kind, a.get("data"), a.get("segment_ids"),
                              a.get("num_segments"), a.get("name"))

    return handler


def squeeze(input, axis=None, name=None):
    """``input`` without the size-1 dimensions ``axis`` (required for a RaggedTensor): a
    ragged dimension squeezes when every row has length 1 (checked when run)."""
    with ops.name_scope(name, "RaggedSqueeze", [input]):
        input = _ragged_from_value(input)
        if not isinstance(input, RaggedTensor):
            return array_ops.squeeze(input, axis)
        if axis is None:
            raise ValueError("Ragged.squeeze must have an axis argument.")
        if isinstance(axis, int):
            axis = [axis]
        elif not isinstance(axis, (list, tuple)) or not all(isinstance(d, int) for d in axis):
            raise TypeError("Axis must be a list or tuple of integers.")
        rank, k = input.shape.ndims, input.ragged_rank
        axis = [_positive_axis(d, rank) for d in axis]
        outer = sorted(d for d in axis if d <= k)  # the row dimension and ragged ones
        inner = sorted(d - k for d in axis if d > k)  # dimensions of the flat values
        checks = []
        one = constant_op.constant(1, input.row_splits.dtype)
        for i, lengths in enumerate(input.nested_row_lengths()):
            if i + 1 in outer:
                checks.append(Assert(reduction_ops.reduce_all(math_ops.equal(lengths, one)),
                                     [f"the given axis (axis = {i + 1}) is not squeezable!"]))
        if 0 in outer:
            checks.append(Assert(math_ops.equal(input.nrows(), one),
                                 ["the given axis (axis = 0) is not squeezable!"]))
        values = control_flow_ops.with_dependencies(checks, input.flat_values) if checks \
            else input.flat_values
        if inner:
            values = array_ops.squeeze(values, inner)
        splits = [s for i, s in enumerate(input.nested_row_splits) if i + 1 not in outer]
        if splits and 0 in outer:
            splits = splits[1:]
        result = RaggedTensor.from_nested_row_splits(values, splits, validate=False)
        if set(builtins.range(k + 1)) <= set(outer):
            # every ragged dimension and the rows went: one value left
            result = array_ops.squeeze(result, [0])
        return result


def _reduce_join_handler(args, kwargs):
    a = _arguments(string_ops.reduce_join, args, kwargs)
    rt = None if a is None else _ragged_from_value(a.get("inputs"))
    if not isinstance(rt, RaggedTensor):
        return NotImplemented
    axis = a.get("axis") if a.get("axis") is not None else a.get("reduction_indices")
    keepdims = bool(a.get("keepdims") or a.get("keep_dims"))
    separator = a.get("separator", "")
    with ops.name_scope(a.get("name"), "RaggedSegmentJoin", [rt]):
        if axis is None:
            result = string_ops.reduce_join(rt.flat_values, separator=separator)
            return array_ops.reshape(result, [1] * rt.shape.ndims) if keepdims else result
        axes = ops.constant_value(axis) if isinstance(axis, ops.Tensor) else axis
        if axes is None:
            raise ValueError("axis must be known at graph construction time.")
        axes = np.atleast_1d(np.asarray(axes)).tolist()
        result = rt
        for ax in sorted({_positive_axis(int(v), rt.shape.ndims) for v in axes}, reverse=True):
            result = _reduce_axis("join", result, ax, separator)
            if keepdims:
                result = expand_dims(result, ax)
        return result


def tile(input, multiples, name=None):
    """``input`` repeated ``multiples[d]`` times along each dimension d: along a ragged
    dimension each row's items repeat in turn (``[[1, 2], [3]]`` by ``[1, 2]`` is
    ``[[1, 2, 1, 2], [3, 3]]``)."""
    with ops.name_scope(name, "RaggedTile", [input, multiples]):
        input = _ragged_from_value(input)
        if not isinstance(input, RaggedTensor):
            return pad_ops.tile(input, multiples)
        dt = input.row_splits.dtype
        multiples = cast_ops.cast(ops.convert_to_tensor(multiples, name="multiples"), dt)
        rank = input.shape.ndims
        multiples.get_shape().assert_is_compatible_with([rank])
        k = input.ragged_rank
        # the dense dimensions of the flat values tile as a Tensor
        inner = concat_ops.concat([array_ops.ones([1], dt), multiples[k + 1:]], 0)
        result = input.with_flat_values(pad_ops.tile(input.flat_values, inner))
        for axis in builtins.range(k, 0, -1):
            result = _tile_ragged_axis(result, axis, multiples[axis])
        rows = result.nrows()
        return ragged_gather(result, range_ops.range(rows * multiples[0], dtype=dt) % rows)


def _tile_ragged_axis(rt, axis, m):
    """Each row of ragged dimension ``axis`` (>= 1) of ``rt`` repeated ``m`` times."""
    if axis > 1:
        return rt.with_values(_tile_ragged_axis(rt.values, axis - 1, m))
    dt = rt.row_splits.dtype
    lengths = rt.row_lengths()
    out_splits = concat_ops.concat([array_ops.zeros([1], dt), reduction_ops.cumsum(lengths * m)],
                                   0)
    out_rows = _splits_to_rowids(out_splits)
    pos = range_ops.range(out_splits[-1], dtype=dt) - gather_ops.gather(out_splits, out_rows)
    src = gather_ops.gather(rt.row_splits, out_rows) + pos % gather_ops.gather(lengths, out_rows)
    return RaggedTensor(_gather_rows(rt.values, src), out_splits, internal=True)


def _tile_handler(args, kwargs):
    a = _arguments(pad_ops.tile, args, kwargs)
    if a is None or not is_ragged(a.get("input")):
        return NotImplemented
    return tile(a.get("input"), a.get("multiples"), a.get("name"))


def _coordinate_where(condition):
    """The coordinates of the true entries of a (ragged) boolean tensor, row-major."""
    if not isinstance(condition, RaggedTensor):
        return gather_ops.where(condition)
    inner = _coordinate_where(condition.values)  # coordinates within the values
    first = inner[:, 0]
    rows = gather_ops.gather(cast_ops.cast(condition.value_rowids(), dtypes.int64), first)
    cols = first - gather_ops.gather(cast_ops.cast(condition.row_splits, dtypes.int64), rows)
    return concat_ops.concat([array_ops.expand_dims(rows, 1), array_ops.expand_dims(cols, 1),
                              inner[:, 1:]], 1)


def _where_handler(args, kwargs):
    a = _arguments(gather_ops.where, args, kwargs)
    if a is None:
        return NotImplemented
    condition, x, y = a.get("condition"), a.get("x"), a.get("y")
    if x is None and y is None:
        if not is_ragged(condition):
            return NotImplemented
        with ops.name_scope(a.get("name"), "RaggedWhere", [condition]):
            return _coordinate_where(_ragged_from_value(condition))
    if is_ragged(condition) or not (is_ragged(x) or is_ragged(y)) or x is None or y is None:
        return NotImplemented  # element-wise (or dense) where
    # a vector condition picks whole rows of x or y, whose rows may differ in length
    with ops.name_scope(a.get("name"), "RaggedWhere", [condition, x, y]):
        condition = ops.convert_to_tensor(condition, name="condition")
        condition.get_shape().assert_has_rank(1)
        both = ragged_concat([x, y], 0)
        dt = both.row_splits.dtype
        nx = _ragged_from_value(x)
        nx = nx.nrows(out_type=dt) if isinstance(nx, RaggedTensor) else array_ops.shape(
            nx, out_type=dt)[0]
        n = array_ops.shape(condition, out_type=dt)[0]
        picks = gather_ops.where(condition, range_ops.range(n, dtype=dt),
                                 nx + range_ops.range(n, dtype=dt))
        return ragged_gather(both, picks)


def _squeeze_handler(args, kwargs):
    a = _arguments(array_ops.squeeze, args, kwargs)
    if a is None or not is_ragged(a.get("input")):
        return NotImplemented
    axis = a.get("axis") if a.get("squeeze_dims") is None else a.get("squeeze_dims")
    return squeeze(a.get("input"), axis, a.get("name"))


def _expand_dims_handler(args, kwargs):
    a = _arguments(array_ops.expand_dims, args, kwargs)
    if a is None or not is_ragged(a.get("input")):
        return NotImplemented
    axis = a.get("axis") if a.get("dim") is None else a.get("dim")
    return expand_dims(_ragged_from_value(a.get("input")), axis, a.get("name"))


# ------------------------------------------------------------------------------------------
# registration with the dense ops
# ------------------------------------------------------------------------------------------

dispatch.register(array_ops.expand_dims, _expand_dims_handler)
dispatch.register(array_ops.squeeze, _squeeze_handler)
dispatch.register(gather_ops.where, _where_handler)
dispatch.register(pad_ops.tile, _tile_handler)
dispatch.register(embedding_ops.dynamic_partition, _dynamic_partition_handler)
dispatch.register(string_ops.reduce_join, _reduce_join_handler)
dispatch.register(string_ops.string_join, _list_elementwise_handler(string_ops.string_join))
dispatch.register(math_ops.add_n, _list_elementwise_handler(math_ops.add_n))
for _kind, _api in (("sum", reduction_ops.unsorted_segment_sum),
                    ("prod", reduction_ops.unsorted_segment_prod),
                    ("max", reduction_ops.unsorted_segment_max),
                    ("min", reduction_ops.unsorted_segment_min),
                    ("mean", special_math_ops.unsorted_segment_mean),
                    ("sqrt_n", special_math_ops.unsorted_segment_sqrt_n)):
    dispatch.register(_api, _segment_handler(_kind, _api))
dispatch.register(gather_ops.gather_nd,
                  _pair_handler(gather_ops.gather_nd, gather_nd, ("params", "indices")))
dispatch.register(counting_ops.batch_gather,
                  _pair_handler(counting_ops.batch_gather, batch_gather, ("params", "indices")))

dispatch.register(reduction_ops.reduce_sum, _reduce_handler("sum", reduction_ops.reduce_sum))
dispatch.register(reduction_ops.reduce_prod, _reduce_handler("prod", reduction_ops.reduce_prod))
dispatch.register(reduction_ops.reduce_max, _reduce_handler("max", reduction_ops.reduce_max))
dispatch.register(reduction_ops.reduce_min, _reduce_handler("min", reduction_ops.reduce_min))
dispatch.register(reduction_ops.reduce_mean, _reduce_handler("mean", reduction_ops.reduce_mean))
dispatch.register(reduction_ops.reduce_all, _reduce_handler("all", reduction_ops.reduce_all))
dispatch.register(reduction_ops.reduce_any, _reduce_handler("any", reduction_ops.reduce_any))
dispatch.register(concat_ops.concat, _concat_handler(concat_ops.concat, False))
dispatch.register(concat_ops.stack, _concat_handler(concat_ops.stack, True))
dispatch.register(gather_ops.gather, _gather_handler(gather_ops.gather))
dispatch.register(array_ops.size, _size_handler)
dispatch.register(array_ops.rank, _rank_handler)
dispatch.register(slicing_ops.boolean_mask, _boolean_mask_handler)


def _binary_operator(fn):
    def op(self, other):
        return fn(self, other)

    def rop(self, other):
        return fn(other, self)

    return op, rop


for _name, _fn in (("add", math_ops.add), ("sub", math_ops.subtract),
                   ("mul", math_ops.multiply), ("truediv", math_ops.truediv),
                   ("floordiv", math_ops.floordiv), ("mod", math_ops.floormod),
                   ("pow", math_ops.pow), ("and", math_ops.logical_and),
                   ("or", math_ops.logical_or), ("xor", math_ops.logical_xor)):
    _op, _rop = _binary_operator(_fn)
    setattr(RaggedTensor, f"__{_name}__", _op)
    setattr(RaggedTensor, f"__r{_name}__", _rop)
RaggedTensor.__div__ = RaggedTensor.__truediv__
RaggedTensor.__lt__ = lambda self, other: math_ops.less(self, other)
RaggedTensor.__le__ = lambda self, other: math_ops.less_equal(self, other)
RaggedTensor.__gt__ = lambda self, other: math_ops.greater(self, other)
RaggedTensor.__ge__ = lambda self, other: math_ops.greater_equal(self, other)
RaggedTensor.__neg__ = lambda self: math_ops.negative(self)
RaggedTensor.__abs__ = lambda self: math_ops.abs(self)
RaggedTensor.__invert__ = lambda self: math_ops.logical_not(self)


def _cross(fn, inputs, name, **kwargs):
    from tideflow.framework.sparse_tensor import SparseTensor

    with ops.name_scope(name, "RaggedCross", inputs):
        sparse = []
        nrows = None
        for x in inputs:
            x = _ragged_from_value(x)
            if isinstance(x, (RaggedTensor, ops.Tensor)) and x.shape.ndims:
                nrows = nrows if nrows is not None else x.shape[0].value
            if isinstance(x, RaggedTensor):
                if x.ragged_rank != 1 or x.flat_values.shape.ndims != 1:
                    raise ValueError("tf.ragged.cross: RaggedTensor inputs must be 2-D with "
                                     "ragged_rank=1")
                x = x.to_sparse()
            elif not isinstance(x, SparseTensor):
                # every input as a SparseTensor, so the crosses keep the inputs' order
                x = RaggedTensor.from_tensor(ops.convert_to_tensor(x)).to_sparse()
            sparse.append(x)
        result = RaggedTensor.from_sparse(fn(sparse, **kwargs))
        if nrows is not None:
            result.row_splits.set_shape([nrows + 1])
        return result


def cross(inputs, name=None):
    """The string feature crosses of each row of ``inputs`` (RaggedTensors, SparseTensors or
    dense [batch, n] tensors), joined by "_X_", one row per example."""
    from tideflow.ops.sparse_extra_ops import sparse_cross

    return _cross(sparse_cross, inputs, name)


def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """The hashed feature crosses (FingerprintCat64, modulo ``num_buckets`` when > 0)."""
    from tideflow.ops.sparse_extra_ops import sparse_cross_hashed

    return _cross(sparse_cross_hashed, inputs, name, num_buckets=num_buckets, hash_key=hash_key)
