"""Array ops of TF 1.x's later releases: Roll, Cross, TensorScatterMax/Min,
ScatterMul/Div/Max/Min (in-place updates of ref variables), and the composed ``repeat``,
``parallel_stack`` and ``accumulate_n``."""

import numpy as np

from tideflow.framework import errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.kernels.scatter import rows_at
from tideflow.ops.array_ops import _np, _shape_str
from tideflow.ops.gradients import dense

# ------------------------------------------------------------------------------------------
# Roll
# ------------------------------------------------------------------------------------------


def _roll_kernel(x, shift, axis, *, ctx=None):
    # TF's kernel checks, in its order and words
    if x.ndim < 1:
        raise errors.InvalidArgumentError(None, None, "input must be 1-D or higher")
    shift = np.asarray(shift)
    axis = np.asarray(axis)
    for what, t in (("shift", shift), ("axis", axis)):
        if t.ndim > 1:
            raise errors.InvalidArgumentError(
                None, None, f"{what} must be a scalar or a 1-D vector. Found: "
                f"{_shape_str(t.shape)}")
    if shift.shape != axis.shape:
        raise errors.InvalidArgumentError(
            None, None, f"shift and axis must have the same size, got shift shape "
            f"{_shape_str(shift.shape)} and axis shape {_shape_str(axis.shape)}")
    total = {}
    for s, a in zip(shift.reshape(-1).tolist(), axis.reshape(-1).tolist()):
        if a < 0:
            a += x.ndim
        if not 0 <= a < x.ndim:  # (TF 1.15 names the axis after adding the rank)
            raise errors.InvalidArgumentError(None, None, f"axis {a} is out of range")
        total[a] = total.get(a, 0) + s
    if not total:
        return x.copy()
    axes = sorted(total)
    return np.roll(x, [total[a] for a in axes], axes)


def _roll_shape(op):
    x, s, a = (t._shape for t in op._inputs)
    if x.ndims is not None and x.ndims < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {x.ndims}")
    for t in (s, a):
        if t.ndims is not None and t.ndims > 1:
            raise ValueError(f"Shape must be at most rank 1 but is rank {t.ndims}")
    if s.ndims is not None and a.ndims is not None and not s.is_compatible_with(a):
        # TF merges the two shapes
        if s.ndims != a.ndims:
            raise ValueError(f"Shapes must be equal rank, but are {s.ndims} and {a.ndims}")
        raise ValueError(f"Dimension 0 in both shapes must be equal, but are {s.dims[0].value} "
                         f"and {a.dims[0].value}. Shapes are {_shape_str(s)} and "
                         f"{_shape_str(a)}.")
    return [x]


def _roll_grad(op, grad):
    return [roll(dense(grad), -op._inputs[1], op._inputs[2]), None, None]


op_registry.declare(
    "Roll",
    inputs=["input: T", "shift: Tshift", "axis: Taxis"],
    outputs=["output: T"],
    attrs=["T: type", "Tshift: {int32, int64}", "Taxis: {int32, int64}"],
    shape=lambda op: _roll_shape(op),
    kernel=_roll_kernel,
    grad=_roll_grad,
)


def roll(input, shift, axis, name=None):
    """``input`` with its elements shifted by ``shift`` along ``axis`` (both scalars or 1-D;
    shifts of a repeated axis add up), wrapping around."""
    return ops.apply_op("Roll", [input, shift, axis], name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# Cross
# ------------------------------------------------------------------------------------------


def _cross_shape(op):
    a, b = op._inputs[0]._shape, op._inputs[1]._shape
    try:
        s = a.merge_with(b)
    except ValueError:
        raise ValueError(f"Cross: a and b must have the same shape, got {a} and {b}") from None
    if s.ndims is not None:
        if s.ndims < 1:
            raise ValueError("Cross: a and b must be at least 1-D")
        last = s.dims[-1].value
        if last is not None and last != 3:
            raise ValueError(f"Dimension must be 3 but is {last}")  # TF 1.15's words
    return [s]


def _cross_kernel(a, b):
    if a.shape != b.shape:
        raise errors.InvalidArgumentError(
            None, None, f"a and b must be the same shape: {_shape_str(a.shape)} vs "
            f"{_shape_str(b.shape)}")
    if a.ndim < 1 or a.shape[-1] != 3:
        raise errors.InvalidArgumentError(
            None, None, f"a must be at least 1-D with its last dimension 3, got shape "
            f"{_shape_str(a.shape)}")
    return np.cross(a, b).astype(a.dtype, copy=False)


op_registry.declare(
    "Cross",
    inputs=["a: T", "b: T"],
    outputs=["product: T"],
    attrs=["T: realnumbertype"],
    shape=_cross_shape,
    kernel=_cross_kernel,
    grad=lambda op, grad: [cross(op._inputs[1], grad), cross(grad, op._inputs[0])],
)


def cross(a, b, name=None):
    """The pairwise cross product of 3-vectors along the last dimension."""
    return ops.apply_op("Cross", [a, b], name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# TensorScatterMax, TensorScatterMin
# ------------------------------------------------------------------------------------------


def _tensor_scatter_minmax_kernel(op_type, ufunc):
    from tideflow.ops.scatter_nd_ops import _scatter_into

    def kernel(tensor, indices, updates):
        out = _np(tensor).copy()
        _scatter_into(op_type, out.copy(), indices, updates, "update")  # validates shapes
        indices = np.asarray(indices)
        updates = _np(updates)
        k = indices.shape[-1]
        if k == 0:
            rows = updates.reshape((-1,) + out.shape)
            for r in rows:
                ufunc(out, r, out=out)
            return out
        ufunc.at(out, tuple(np.moveaxis(indices, -1, 0)), updates)
        return out

    return kernel


def _tensor_scatter_minmax_grad(op, grad):
    from tideflow.ops import array_ops, cast_ops, gather_ops, math_ops

    grad = dense(grad)
    x, indices, y = op._inputs
    out = op._outputs[0]
    x_ind = cast_ops.cast(math_ops.equal(x, out), grad.dtype)
    y_ind = cast_ops.cast(math_ops.equal(y, gather_ops.gather_nd(out, indices)), grad.dtype)
    ys_ind = gather_ops.scatter_nd(indices, y_ind,
                                   array_ops.shape(x, out_type=indices.dtype))
    ind = x_ind + ys_ind  # >= 1 everywhere: ties share the gradient
    return [grad * x_ind / ind, None, gather_ops.gather_nd(grad / ind, indices) * y_ind]


def _tensor_scatter_shape(op):
    from tideflow.ops.scatter_nd_ops import _check_static

    t, ix, up = (x._shape for x in op._inputs)
    _check_static(op._type, t, ix, up)
    return [t]


for _name, _ufunc in (("TensorScatterMax", np.maximum), ("TensorScatterMin", np.minimum)):
    op_registry.declare(
        _name,
        inputs=["tensor: T", "indices: Tindices", "updates: T"],
        outputs=["output: T"],
        attrs=["T: type", "Tindices: {int32, int64}"],
        shape=_tensor_scatter_shape,
        kernel=_tensor_scatter_minmax_kernel(_name, _ufunc),
        grad=_tensor_scatter_minmax_grad,
    )


def tensor_scatter_nd_max(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with ``out[indices[i]] = max(out[indices[i]], updates[i])``."""
    return ops.apply_op("TensorScatterMax", [tensor, indices, updates], name=name)._outputs[0]


def tensor_scatter_nd_min(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with ``out[indices[i]] = min(out[indices[i]], updates[i])``."""
    return ops.apply_op("TensorScatterMin", [tensor, indices, updates], name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# ScatterMul, ScatterDiv, ScatterMax, ScatterMin (ref variables, in place)
# ------------------------------------------------------------------------------------------


def _trunc_div_at(ref, indices, updates):
    upd = np.broadcast_to(updates, indices.shape + ref.shape[1:])
    for i, j in enumerate(indices.reshape(-1).tolist()):
        u = upd.reshape((-1,) + ref.shape[1:])[i]
        if np.any(u == 0):
            raise errors.InvalidArgumentError(None, None, "Integer division by zero")
        q = np.abs(ref[j]) // np.abs(u)
        ref[j] = np.where((ref[j] < 0) != (u < 0), -q, q)


def _ref_scatter_kernel(mode):
    from tideflow.ops.state_ops import scatter_ref_kernel

    ufunc = {"mul": np.multiply, "div": np.divide, "max": np.maximum, "min": np.minimum}[mode]

    def apply(ref, indices, updates):
        if mode == "div" and ref.dtype.kind in "iu":
            _trunc_div_at(ref, indices, updates)
        else:
            rows_at(ufunc, ref, indices, updates)

    return scatter_ref_kernel(apply)


def _declare_ref_scatter():
    from tideflow.ops.state_ops import _scatter_shape

    for name, mode, types in (
            ("ScatterMul", "mul", "numbertype"), ("ScatterDiv", "div", "numbertype"),
            ("ScatterMax", "max", "{half, bfloat16, float, double, int32, int64}"),
            ("ScatterMin", "min", "{half, bfloat16, float, double, int32, int64}")):
        op_registry.declare(
            name,
            inputs=["ref: Ref(T)", "indices: Tindices", "updates: T"],
            outputs=["output_ref: Ref(T)"],
            attrs=[f"T: {types}", "Tindices: {int32, int64}", "use_locking: bool = false"],
            shape=_scatter_shape,
            kernel_factory=_ref_scatter_kernel(mode),
            # (max and min: no gradient defined, as TF 1.15, a LookupError; mul and div give None)
            differentiable=None if mode in ("max", "min") else False,
            stateful=True,
        )


_declare_ref_scatter()


def _ref_scatter(op_type, ref, indices, updates, use_locking, name):
    from tideflow.ops.state_ops import _lvalue

    if getattr(ref, "_resource", False) is True:  # a resource variable: TF 1.15's form
        return ref._resource_scatter(
            lambda r, i, u, name: _ref_scatter(op_type, r, i, u, use_locking, name), indices,
            updates, name, op_type)
    return ops.apply_op(op_type, [_lvalue(ref), indices, updates],
                        {"use_locking": use_locking}, name=name)._outputs[0]


def scatter_mul(ref, indices, updates, use_locking=False, name=None):
    """``ref[indices, ...] *= updates`` (duplicates multiply); returns the ref."""
    return _ref_scatter("ScatterMul", ref, indices, updates, use_locking, name)


def scatter_div(ref, indices, updates, use_locking=False, name=None):
    """``ref[indices, ...] /= updates`` (integers truncate); returns the ref."""
    return _ref_scatter("ScatterDiv", ref, indices, updates, use_locking, name)


def scatter_max(ref, indices, updates, use_locking=False, name=None):
    """``ref[indices, ...] = max(ref[indices, ...], updates)``; returns the ref."""
    return _ref_scatter("ScatterMax", ref, indices, updates, use_locking, name)


def scatter_min(ref, indices, updates, use_locking=False, name=None):
    """``ref[indices, ...] = min(ref[indices, ...], updates)``; returns the ref."""
    return _ref_scatter("ScatterMin", ref, indices, updates, use_locking, name)


# ------------------------------------------------------------------------------------------
# composed: repeat, parallel_stack, accumulate_n
# ------------------------------------------------------------------------------------------


def repeat(input, repeats, axis=None, name=None):
    """Repeats each slice of ``input`` along ``axis`` (flattened first when None)
    ``repeats`` times (a scalar, or one count per slice), as ``np.repeat``."""
    from tideflow.framework import dtypes
    from tideflow.ops import (
        array_ops,
        cast_ops,
        fill_ops,
        gather_ops,
        range_ops,
        reduction_ops,
        slicing_ops,
    )
    from tideflow.ops.concat_ops import concat, stack
    from tideflow.ops.pad_ops import tile

    with ops.name_scope(name, "Repeat", [input, repeats]):
        x = ops.convert_to_tensor(input, name="input")
        r = cast_ops.cast(ops.convert_to_tensor(repeats, name="repeats"), dtypes.int32)
        if axis is None:
            x = array_ops.reshape(x, [-1])
            axis = 0
        ndims = x.get_shape().ndims
        if r.get_shape().ndims not in (None, 0, 1):
            raise ValueError(f"repeats must be a scalar or 1-D, got shape {r.get_shape()}")
        if ndims is not None and not -ndims <= axis < max(ndims, 1):
            raise ValueError(f"axis {axis} is out of range for input of rank {ndims}")
        if ndims is not None and axis < 0:
            axis += ndims
        n = array_ops.shape(x)[axis]
        r = fill_ops.broadcast_to(r, array_ops.reshape(n, [1]))
        # an empty input has no counts: the mask's width is then 0
        width = reduction_ops.reduce_max(concat([r, [0]], 0))
        mask = range_ops.sequence_mask(r, width)
        ids = tile(array_ops.expand_dims(range_ops.range(n), 1),
                             stack([1, width]))
        idx = slicing_ops.boolean_mask(ids, mask)
        out = gather_ops.gather(x, idx, axis=axis)
        # a constant scalar count fixes the repeated dimension's size, as in TF
        count = ops.constant_value(ops.convert_to_tensor(repeats))
        shape = x.get_shape()
        if count is not None and np.ndim(count) == 0 and shape.ndims is not None:
            dims = shape.as_list()
            if dims[axis] is not None:
                dims[axis] *= int(count)
            out.set_shape(dims)
        return out


def parallel_stack(values, name="parallel_stack"):
    """Stacks same-shaped tensors along a new first axis: as TF, one ParallelConcat of the
    values each expanded to a leading 1 (their shape must be fully known; no gradient)."""
    from tideflow.framework.tensor_shape import TensorShape
    from tideflow.ops import array_ops, inplace_ops  # noqa: F401  (declares ParallelConcat)

    with ops.name_scope(name):
        value_t = ops.convert_to_tensor(values[0])
        shape = TensorShape([len(values)]).concatenate(value_t.get_shape())
        return ops.apply_op("ParallelConcat", [[array_ops.expand_dims(v, 0) for v in values]],
                            {"shape": shape})._outputs[0]


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """The elementwise sum of ``inputs`` (``tf.add_n``, after checking ``shape`` and
    ``tensor_dtype`` when given)."""
    from tideflow.framework import dtypes
    from tideflow.ops.math_ops import add_n

    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype and "
                         "shape")
    inputs = [ops.convert_to_tensor(x) for x in inputs]
    s = TensorShape(None)
    for x in inputs:
        s = s.merge_with(x.get_shape())
    if shape is not None:
        s.merge_with(TensorShape(shape))
    if tensor_dtype is not None:
        want = dtypes.as_dtype(tensor_dtype)
        bad = [x for x in inputs if x.dtype.base_dtype != want]
        if bad:
            raise TypeError(f"tensor_dtype is {want.name}, but input is of type "
                            f"{bad[0].dtype.name}")
    if len({x.dtype.base_dtype for x in inputs}) > 1:
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype "
                         "and shape")
    if len(inputs) == 1:
        return add_n(inputs, name=name)  # the input itself, or an Identity when named
    # TF 1.15's graph op, carrying the merged static shape
    return ops.apply_op("AccumulateNV2", [list(inputs)], {"shape": s}, name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# ApproxTopK (computed exactly: an exact top-k meets every recall target)
# ------------------------------------------------------------------------------------------


def _approx_top_k_kernel(input, *, k, reduction_dimension, is_max_k):
    x = np.asarray(input)
    if x.ndim == 0:
        raise errors.InvalidArgumentError(None, None, "ApproxTopK needs an input of rank >= 1")
    d = reduction_dimension % x.ndim
    n = x.shape[d]
    if not 0 <= k <= n:
        raise errors.InvalidArgumentError(
            None, None, f"k ({k}) must be in [0, {n}], the size of dimension {d}")
    key = -x if is_max_k else x
    if x.dtype.kind == "u" and is_max_k:
        key = np.iinfo(x.dtype).max - x
    order = np.argsort(key, axis=d, kind="stable")
    idx = np.take(order, np.arange(k), axis=d)
    return np.take_along_axis(x, idx, axis=d), idx.astype(np.int32)


def _approx_top_k_shape(op):
    s = op._inputs[0]._shape
    if s.ndims is None:
        return [s, s]
    dims = s.as_list()
    dims[op._attrs["reduction_dimension"] % len(dims)] = op._attrs["k"]
    return [TensorShape(dims), TensorShape(dims)]


def _approx_top_k_grad(op, grad, _):
    from tideflow.ops import array_ops, reduction_ops
    from tideflow.ops.range_ops import one_hot

    x = op._inputs[0]
    rank = x.get_shape().ndims
    if rank is None:
        raise ValueError("the gradient of ApproxTopK needs the input's rank")
    d = op._attrs["reduction_dimension"] % rank
    n = array_ops.shape(x)[d]
    # one_hot puts the input's positions on a new axis right after the k axis
    hot = one_hot(op._outputs[1], n, axis=d + 1, dtype=grad.dtype)
    return [reduction_ops.reduce_sum(hot * array_ops.expand_dims(grad, d + 1), d)]


op_registry.declare(
    "ApproxTopK",
    inputs=["input: T"],
    outputs=["values: T", "indices: int32"],
    attrs=["k: int >= 0", "reduction_dimension: int = -1", "recall_target: float = 0.95",
           "is_max_k: bool = true", "reduction_input_size_override: int = -1",
           "aggregate_to_topk: bool = true",
           ("T: {half, bfloat16, float, double, int8, int16, int32, int64, uint8, uint16, "
           "uint32, uint64}")],
    shape=_approx_top_k_shape,
    kernel=_approx_top_k_kernel,
    grad=_approx_top_k_grad,
)


def approx_top_k(input, k, reduction_dimension=-1, recall_target=0.95, is_max_k=True,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """The k largest (or smallest) values along ``reduction_dimension`` and their int32
    indices; tideflow computes them exactly, which meets any ``recall_target``."""
    return list(ops.apply_op(
        "ApproxTopK", [input],
        {"k": int(k), "reduction_dimension": int(reduction_dimension),
         "recall_target": float(recall_target), "is_max_k": bool(is_max_k),
         "reduction_input_size_override": int(reduction_input_size_override),
         "aggregate_to_topk": bool(aggregate_to_topk)}, name=name)._outputs)


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """(values, indices) of the k largest entries along ``reduction_dimension``."""
    return approx_top_k(operand, k, reduction_dimension, recall_target, True,
                        reduction_input_size_override, aggregate_to_topk, name)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """(values, indices) of the k smallest entries along ``reduction_dimension``."""
    return approx_top_k(operand, k, reduction_dimension, recall_target, False,
                        reduction_input_size_override, aggregate_to_topk, name)
