"""``tf.sort``/``tf.argsort`` (built from top_k, as TF) and ``tf.searchsorted`` (the LowerBound
and UpperBound ops)."""

import numpy as np

from tideflow.framework import dtypes, op_registry, ops
from tideflow.ops.array_ops import _check_rank, _in, _invalid, _np, _register_fold, _shape_str

_DIRECTIONS = ("ASCENDING", "DESCENDING")


# ------------------------------------------------------------------------------------------
# sort, argsort
# ------------------------------------------------------------------------------------------


def _descending(values, axis, return_argsort):
    from tideflow.ops import array_ops, concat_ops, constant_op, nn_impl, range_ops

    static_rank = values.get_shape().ndims
    # TF 1.15's ops in its order: the size along axis (an axis out of range fails in this
    # StridedSlice's shape function, with its words), a Rank, one 'transposition' used twice
    k = array_ops.shape(values)[axis]
    rank = array_ops.rank(values)
    if axis == -1 or (static_rank is not None and axis + 1 == static_rank):
        top_k_input, perm = values, None
    else:
        if axis < 0:
            axis += static_rank or rank
        if static_rank is not None:
            perm = constant_op.constant(
                np.r_[np.arange(axis), [static_rank - 1], np.arange(axis + 1, static_rank - 1),
                      [axis]].astype(np.int32), name="transposition")
        else:
            perm = concat_ops.concat([range_ops.range(axis), [rank - 1],
                                      range_ops.range(axis + 1, rank - 1), [axis]], 0)
        top_k_input = array_ops.transpose(values, perm)
    vals, idx = nn_impl.top_k(top_k_input, k)
    out = idx if return_argsort else vals
    if perm is not None:
        out = array_ops.transpose(out, perm)
    return out


def _sort_or_argsort(values, axis, direction, return_argsort):
    if direction not in _DIRECTIONS:
        raise ValueError(f"{direction} should be one of {', '.join(_DIRECTIONS)}")
    axis = ops.convert_to_tensor(axis, name="axis")
    axis_static = ops.constant_value(axis)
    if axis.get_shape().ndims not in (None, 0) or axis_static is None:
        raise ValueError("axis must be a constant scalar")
    axis_static = int(axis_static)
    values = ops.convert_to_tensor(values, name="values")
    if direction == "DESCENDING":
        return _descending(values, axis_static, return_argsort)
    # as TF 1.15: ascending is the descending sort of -values (so no uint8/uint16/int8/int16,
    # Neg's TypeError; the most negative int wraps as Neg wraps it)
    out = _descending(-values, axis_static, return_argsort)
    return out if return_argsort else -out


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``values`` sorted along ``axis`` in ``direction`` ('ASCENDING' or 'DESCENDING')."""
    with ops.name_scope(name, "sort"):
        return _sort_or_argsort(values, axis, direction, return_argsort=False)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The int32 indices that sort ``values`` along ``axis``; ties keep their order (the sort is
    always stable, so ``stable`` changes nothing)."""
    del stable
    with ops.name_scope(name, "argsort"):
        return _sort_or_argsort(values, axis, direction, return_argsort=True)


# ------------------------------------------------------------------------------------------
# LowerBound, UpperBound, searchsorted
# ------------------------------------------------------------------------------------------


def _bound_shape(op):
    seq, vals = _in(op, 0), _in(op, 1)
    what = f" for the inputs of {op._type}"
    _check_rank(seq, 2, what)
    _check_rank(vals, 2, what)
    if seq.ndims is not None and vals.ndims is not None:
        a, b = seq.as_list()[0], vals.as_list()[0]
        if a is not None and b is not None and a != b:
            raise ValueError(
                f"{op._type}: leading dim_size of both tensors must match: sorted_inputs "
                f"{_shape_str(seq)} vs. values {_shape_str(vals)}")
    return [vals]


def _bound_kernel(side, op_type):
    def kernel(sorted_inputs, values, *, out_type):
        seq, vals = _np(sorted_inputs), _np(values)
        for what, a in (("sorted_inputs", seq), ("values", vals)):
            if a.ndim != 2:
                raise _invalid(f"{op_type}: {what} must be 2-dimensional, got shape "
                               f"{_shape_str(a.shape)}")
        if seq.shape[0] != vals.shape[0]:
            raise _invalid(
                f"{op_type}: leading dim_size of both tensors must match: sorted_inputs "
                f"{_shape_str(seq.shape)} vs. values {_shape_str(vals.shape)}")
        out = np.empty(vals.shape, dtype=out_type.as_numpy_dtype)
        for i in range(seq.shape[0]):
            out[i] = np.searchsorted(seq[i], vals[i], side=side)
        if vals.dtype.kind in "fc" and seq.shape[1]:
            # TF's std::lower_bound/upper_bound compare with <, which a NaN value never
            # satisfies: it lands at 0 (left) or past the end (right); NumPy sorts NaN last
            nan = np.isnan(vals)
            if nan.any():
                out[nan] = 0 if side == "left" else seq.shape[1]
        return out

    return kernel


for _name, _side in (("LowerBound", "left"), ("UpperBound", "right")):
    op_registry.declare(
        _name,
        inputs=["sorted_inputs: T", "values: T"],
        outputs=["output: out_type"],
        attrs=["T: type", "out_type: {int32, int64} = DT_INT32"],
        shape=_bound_shape,
        kernel=_bound_kernel(_side, _name),
        differentiable=False,
    )

_register_fold("LowerBound", "UpperBound")


def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """For each of ``values``' innermost rows, the indices into the matching row of
    ``sorted_sequence`` where the values would be inserted to keep it sorted."""
    from tideflow.ops import array_ops

    if side not in ("left", "right"):
        raise ValueError(f"side must be either 'right' or 'left'.  Saw: {side}.")
    sorted_sequence = ops.convert_to_tensor(sorted_sequence, name="sorted_sequence")
    values = ops.convert_to_tensor(values, name="values")
    seq_size = array_ops.shape(sorted_sequence)[-1]
    values_size = array_ops.shape(values)[-1]
    seq_2d = array_ops.reshape(sorted_sequence, [-1, seq_size])
    values_2d = array_ops.reshape(values, [-1, values_size])
    op_type = "UpperBound" if side == "right" else "LowerBound"
    out = ops.apply_op(op_type, [seq_2d, values_2d], {"out_type": dtypes.as_dtype(out_type)},
                       name=name)._outputs[0]
    return array_ops.reshape(out, array_ops.shape(values))
