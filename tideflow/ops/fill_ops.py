"""Filled tensors: Fill (``zeros``, ``ones``), ZerosLike/OnesLike, BroadcastTo and BroadcastArgs."""

import functools

import numpy as np

from tideflow.framework import dtypes, op_registry, ops
from tideflow.framework.dispatch import add_dispatch_support
from tideflow.framework.tensor_shape import as_shape
from tideflow.ops import constant_op
from tideflow.ops.array_ops import (
    _check_rank,
    _in,
    _invalid,
    _np,
    _register_fold,
    _shape_internal,
    _shape_str,
    constant_value_as_shape,
    reshape,
    shape,
)
from tideflow.ops.concat_ops import _has_tensor
from tideflow.ops.gradients import dense

# ------------------------------------------------------------------------------------------
# Fill, ZerosLike, OnesLike, BroadcastTo, BroadcastArgs
# ------------------------------------------------------------------------------------------


def _fill_shape(op):
    _check_rank(_in(op, 1), 0)
    _check_rank(_in(op, 0), 1)
    out = constant_value_as_shape(op._inputs[0])  # (first, as TF's refiner reads it)
    dims = ops.constant_value(op._inputs[0])
    if dims is not None and np.any(np.asarray(dims) < 0):
        raise ValueError("Fill dimensions must be >= 0")  # TF's words (-1 is not "unknown")
    return [out]


def _fill_kernel(dims, value):
    value = _np(value)
    if value.ndim != 0:
        raise _invalid(f"value must be a scalar, got shape {_shape_str(value.shape)}")
    dims = np.reshape(dims, -1)
    if np.any(dims < 0):
        raise _invalid(f"Dimension {int(dims[dims < 0][0])} must be >= 0")  # TF's words
    return np.full([int(d) for d in dims], value, dtype=value.dtype)


def _fill_grad(op, grad):
    from tideflow.ops import reduction_ops

    return [None, reduction_ops.reduce_sum(dense(grad))]


op_registry.declare(
    "Fill",
    inputs=["dims: index_type", "value: T"],
    outputs=["output: T"],
    attrs=["T: type", "index_type: {int32, int64} = DT_INT32"],
    shape=_fill_shape,
    kernel=_fill_kernel,
    grad=_fill_grad,
)


def _zeros_like_kernel(x):
    x = _np(x)
    if x.dtype == object:
        return np.full(x.shape, b"", dtype=object)
    return np.zeros(x.shape, x.dtype)


op_registry.declare(
    "ZerosLike",
    inputs=["x: T"],
    outputs=["y: T"],
    attrs=["T: type"],
    shape=lambda op: [_in(op, 0)],
    kernel=_zeros_like_kernel,
    differentiable=False,
)
op_registry.declare(
    "OnesLike",
    inputs=["x: T"],
    outputs=["y: T"],
    attrs=[("T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, int64, "
           "complex64, complex128, bool}")],
    shape=lambda op: [_in(op, 0)],
    kernel=lambda x: np.ones(np.shape(x), np.asarray(x).dtype),
    differentiable=False,
)


def _broadcast_to_shape(op):
    target = constant_value_as_shape(op._inputs[1])
    s = _in(op, 0)
    if target.ndims is None or s.ndims is None:
        return [target]
    if s.ndims > target.ndims:
        raise ValueError(f"Shape must be at most rank {target.ndims} but is rank {s.ndims}")
    out = target.dims
    off = target.ndims - s.ndims
    # TF merges from the last dimension back: the first clash from the right is named
    for i in range(s.ndims - 1, -1, -1):
        d, t = s.dims[i], out[off + i]
        if d.value is None or d.value <= 1:  # TF merges only dimensions above 1 (not a 0)
            continue
        if t.value is None:
            out[off + i] = d
        elif t.value != d.value:
            raise ValueError(f"Dimensions must be equal, but are {d.value} and {t.value}")
    return [out]


def _broadcast_to_kernel(x, shape):
    x = _np(x)
    if (type(shape) is np.ndarray and shape.ndim == 1 and x.flags.c_contiguous
            and x.dtype.kind != "O"):
        v = _broadcast_view(x, tuple(shape.tolist()))
        if v is not None:
            return v
    want = [int(d) for d in np.reshape(shape, -1)]
    try:
        return np.broadcast_to(x, want)
    except ValueError:
        pass
    # TF 1.15's kernel: the ranks, then an empty output is made whatever the input, then the
    # two shapes must broadcast, to the output's shape
    for d in want:
        if d < 0:
            raise _invalid(f"Dimension {d} must be >= 0")
    if x.ndim > len(want):
        raise _invalid(f"Rank of input ({x.ndim}) must be no greater than rank of output shape "
                       f"({len(want)}).")
    if 0 in want and min(want) >= 0:
        return np.zeros(want, x.dtype)
    try:
        np.broadcast_shapes(x.shape, tuple(want))
    except ValueError:
        raise _invalid(f"Incompatible shapes: {_shape_str(x.shape)} vs. {_shape_str(want)}"
                       ) from None
    raise _invalid(f"Unable to broadcast tensor of shape {_shape_str(x.shape)} to tensor of "
                   f"shape {_shape_str(want)}")


def _broadcast_view(x, want):
    """np.broadcast_to(x, want) as one ndarray constructor call (no nditer), or None."""
    pad = len(want) - x.ndim
    if pad < 0:
        return None
    strides = [0] * pad
    for n, d, st in zip(want[pad:], x.shape, x.strides):
        if d == n:
            strides.append(st)
        elif d == 1:
            strides.append(0)
        else:
            return None
    try:
        v = np.ndarray(want, x.dtype, buffer=x, strides=tuple(strides))
    except (TypeError, ValueError):
        return None
    v.flags.writeable = False
    return v


def _broadcast_to_grad(op, grad):
    """TF 1.15's: the gradient summed (keepdims) over the axes BroadcastGradientArgs finds
    between the target shape and the input's, reshaped to the input's shape."""
    from tideflow.ops import reduction_ops

    x, target = op._inputs
    in_shape = shape(x, out_type=target.dtype.base_dtype)
    _, axes = ops.apply_op("BroadcastGradientArgs", [target, in_shape])._outputs
    return [reshape(reduction_ops.reduce_sum(dense(grad), axes, keepdims=True), in_shape), None]


op_registry.declare(
    "BroadcastTo",
    inputs=["input: T", "shape: Tidx"],
    outputs=["output: T"],
    attrs=["T: type", "Tidx: {int32, int64} = DT_INT32"],
    shape=_broadcast_to_shape,
    kernel=_broadcast_to_kernel,
    grad=_broadcast_to_grad,
)


def _broadcast_args_shape(op):
    a, b = _in(op, 0), _in(op, 1)
    _check_rank(a, 1)
    _check_rank(b, 1)
    if a.ndims is None or b.ndims is None:
        return [[None]]
    da, db = a.dims[0].value, b.dims[0].value
    return [[None if da is None or db is None else max(da, db)]]


def _broadcast_args_kernel(s0, s1):
    a, b = [int(d) for d in s0], [int(d) for d in s1]
    try:
        out = np.broadcast_shapes(tuple(a), tuple(b))
    except ValueError:
        raise _invalid(f"Incompatible shapes: {_shape_str(a)} vs. {_shape_str(b)}") from None
    return np.array(out, dtype=np.asarray(s0).dtype)


op_registry.declare(
    "BroadcastArgs",
    inputs=["s0: T", "s1: T"],
    outputs=["r0: T"],
    attrs=["T: {int32, int64} = DT_INT32"],
    shape=_broadcast_args_shape,
    kernel=_broadcast_args_kernel,
    differentiable=False,
)

_register_fold("Fill", "BroadcastTo", "BroadcastArgs", "ZerosLike", "OnesLike")


def fill(dims, value, name=None):
    """A tensor of shape ``dims`` filled with the scalar ``value``."""
    return ops.apply_op("Fill", [dims, value], name=name)._outputs[0]


def _small_shape_probe(shape):
    """The ops TF 1.15 makes before filling a list shape holding tensors: its ``np.prod(shape)
    < 1000`` test for a small constant multiplies the entries left to right ("mul", "mul_1",
    ...: a tensor times the others) and compares the product ("Less") before refusing it as a
    bool. Later ops and random seeds count them."""
    if not isinstance(shape, (list, tuple)):
        return
    try:
        product = functools.reduce(lambda a, b: a * b, shape) if shape else 1
        if isinstance(product, ops.Tensor):
            product < 1000  # noqa: B015 (made for its op, as TF's test)
    except (TypeError, ValueError):
        pass


def _small_float_shape(shape):
    """TF's small-constant path for a list shape no TensorShape takes: fewer than 1000
    elements by ``np.prod`` and each entry truncated by ``int`` ([2.5, 3] is (2, 3))."""
    try:
        if not isinstance(shape, (list, tuple)) or not np.prod(shape) < 1000:
            return None
        dims = [int(d) for d in shape]
    except (TypeError, ValueError):
        return None
    return dims if all(d >= 0 for d in dims) else None


def _filled(value, shape, dtype, name, default):
    dtype = dtypes.as_dtype(dtype).base_dtype
    with ops.name_scope(name, default, [shape]) as scope:
        if not isinstance(shape, ops.Tensor):
            if _has_tensor(shape):
                _small_shape_probe(shape)
                # as TF: int32, an int64 tensor in the list cast to it
                shape = ops.convert_to_tensor(shape, dtype=dtypes.int32)
            else:
                try:
                    s = as_shape(shape)
                except (TypeError, ValueError):
                    s = None
                # (TF's constant path takes a list or tuple: a lone int is its Fill's shape)
                if s is not None and s.is_fully_defined() and s.num_elements() < 1000 and not \
                        isinstance(shape, (int, np.integer)):
                    return constant_op.constant(value, dtype=dtype, shape=s.as_list(), name=scope)
                small = _small_float_shape(shape) if s is None else None
                if small is not None:
                    return constant_op.constant(value, dtype=dtype, shape=small, name=scope)
                if s is not None and s.is_fully_defined():
                    # int64 when a dimension needs it (TF's TensorShape conversion rule, and
                    # its name: zeros/shape_as_tensor)
                    shape = ops.convert_to_tensor(s, name="shape_as_tensor")
                else:  # as TF: the list itself as int32 (None fails; -1 reaches Fill's check)
                    shape = ops.convert_to_tensor(shape, dtype=dtypes.int32)
        if shape.get_shape().ndims == 0:
            shape = reshape(shape, [-1])
        return fill(shape, constant_op.constant(value, dtype=dtype), name=scope)


def zeros(shape, dtype=dtypes.float32, name=None):
    """A tensor of ``shape`` with all elements zero."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    zero = False if dtype == dtypes.bool else (b"" if dtype == dtypes.string else 0)
    return _filled(zero, shape, dtype, name, "zeros")


def ones(shape, dtype=dtypes.float32, name=None):
    """A tensor of ``shape`` with all elements one."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    one = True if dtype == dtypes.bool else 1
    return _filled(one, shape, dtype, name, "ones")


@add_dispatch_support(elementwise=1)
def zeros_like(tensor, dtype=None, name=None, optimize=True):
    """A tensor of zeros shaped like ``tensor`` (of ``dtype``, default ``tensor``'s)."""
    with ops.name_scope(name, "zeros_like", [tensor]) as scope:
        tensor = ops.convert_to_tensor(tensor, name="tensor")
        if tensor.dtype == dtypes.resource:
            # a variable's handle: zeros of its variable's shape and dtype (TF's gradient
            # zeros of a resource variable)
            from tideflow.ops import resource_variable_ops as rv

            var_op = rv.handle_var_op(tensor)
            shape = var_op._attrs["shape"]
            return zeros(shape if shape.is_fully_defined() else rv.variable_shape(tensor),
                         dtype=dtype or var_op._attrs["dtype"], name=scope)
        if (optimize and tensor.get_shape().is_fully_defined()
                and tensor.dtype.base_dtype != dtypes.variant):
            # as TF: a statically shaped tensor's zeros do not depend on its value (no edge
            # from it, so nothing reading the graph sees one)
            return zeros(tensor.get_shape(), dtype=dtype or tensor.dtype.base_dtype, name=scope)
        if dtype is not None and dtypes.as_dtype(dtype).base_dtype != tensor.dtype.base_dtype:
            return zeros(_shape_internal(tensor, optimize=optimize), dtype=dtype, name=scope)
        return ops.apply_op("ZerosLike", [tensor], name=scope)._outputs[0]


@add_dispatch_support(elementwise=1)
def ones_like(tensor, dtype=None, name=None, optimize=True):
    """A tensor of ones shaped like ``tensor`` (of ``dtype``, default ``tensor``'s)."""
    with ops.name_scope(name, "ones_like", [tensor]) as scope:
        tensor = ops.convert_to_tensor(tensor, name="tensor")
        ones_shape = _shape_internal(tensor, optimize=optimize)
        ret = ones(ones_shape, dtype=dtype or tensor.dtype.base_dtype, name=scope)
        ret.set_shape(tensor.get_shape())
        return ret


def broadcast_to(input, shape, name=None):
    """Broadcasts ``input`` to ``shape``."""
    return ops.apply_op("BroadcastTo", [input, shape], name=name)._outputs[0]


def broadcast_dynamic_shape(shape_x, shape_y):
    """The broadcast of two 1-D shape tensors, as a tensor."""
    return ops.apply_op("BroadcastArgs", [shape_x, shape_y])._outputs[0]


def broadcast_static_shape(shape_x, shape_y):
    """The broadcast of two TensorShapes (ValueError when incompatible)."""
    from tideflow.ops.elementwise import broadcast_shape

    shape_x, shape_y = as_shape(shape_x), as_shape(shape_y)
    try:
        return broadcast_shape(shape_x, shape_y)
    except ValueError:
        raise ValueError(
            f"Incompatible shapes for broadcasting: {shape_x} and {shape_y}"
        ) from None
