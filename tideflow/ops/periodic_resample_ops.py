"""``tf.contrib.periodic_resample``: PeriodicResample (a generalised depth-to-space, the
sub-pixel shuffle NiftyNet's SubPixelLayer uses) and PeriodicResampleOpGrad, its gradient."""

import numpy as np

from tideflow.framework import errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape

_T = "T: numbertype"
_KERNEL_DTYPES = (np.float32, np.float64, np.int32, np.int64)  # TF's kernel covers these


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _target_dims(in_shape, desired):
    """The output dimensions and the adjustable axis, with TF's kernel's checks."""
    if len(desired) != len(in_shape):
        raise _invalid(f"periodic_resample expects the rank of the input tensor, {len(in_shape)}"
                       f", to be the same as the length of the desired shape, {len(desired)}.")
    adj, sliced, dims = None, 1, list(desired)
    for i, (want, have) in enumerate(zip(desired, in_shape)):
        if want is None or want < 1:
            if adj is not None:
                raise _invalid("periodic_resample expects only one index to be marked as "
                               "adjustable.")
            adj = i
            continue
        if want < have:
            raise _invalid("periodic_resample expects the size of non-adjustable dimensions be "
                           f"at least as large as size of input tensor. Dimension {i} input "
                           f"tensor has size {have}, desired shape has size {want}.")
        sliced *= want
    if adj is None:
        raise _invalid("periodic_resample expects at least one index to be marked as "
                       "adjustable.")
    dims[adj] = int(np.prod(in_shape, dtype=np.int64)) // sliced
    if dims[adj] <= 0:
        raise _invalid(f"periodic_resample found that the adjustable dimension, {adj}, isn't "
                       f"greater than zero, {dims[adj]}.")
    return dims, adj


def _source_index(in_shape, out_dims, adj):
    """For each output element, the flat index of the input element it takes.

    Off the adjustable axis, output index s_i reads input index s_i // g_i (g_i the ceiling
    of the size ratio); the remainders s_i % g_i, weighed by the running products of the g's,
    pick the block of the adjustable axis the element comes from."""
    rank = len(in_shape)
    ceil = [-(-o // i) for o, i in zip(out_dims, in_shape)]
    weight = np.cumprod([1] + ceil[:-1])
    strides = np.cumprod([1] + list(in_shape[::-1])[:-1])[::-1]
    grid = np.ogrid[tuple(slice(0, n) for n in out_dims)]
    flat, block = np.int64(0), np.int64(0)
    for r in range(rank):
        if r != adj:
            flat = flat + (grid[r] // ceil[r]) * strides[r]
            block = block + weight[r] * (grid[r] % ceil[r])
    flat = flat + (block * out_dims[adj] + grid[adj]) * strides[adj]
    return np.broadcast_to(flat, out_dims)


def _desired(shape):
    return [d.value for d in shape.dims] if shape.ndims is not None else []


def _check_dtype(x):
    if x.dtype.type not in _KERNEL_DTYPES:
        raise _invalid("Unsuppored tensor elements type")  # TF's spelling


def _periodic_resample_kernel(values, *, shape):
    values = np.asarray(values)
    _check_dtype(values)
    dims, adj = _target_dims(values.shape, _desired(shape))
    return values.reshape(-1)[_source_index(values.shape, dims, adj)]


def _periodic_resample_shape(op):
    desired = op._attrs["shape"]
    s = op._inputs[0]._shape
    if not s.is_fully_defined() or desired.ndims is None:
        return [desired if isinstance(desired, TensorShape) else TensorShape(desired)]
    want = _desired(desired)
    adj = next((i for i, w in enumerate(want) if w is None or w < 1), 0)
    sliced = int(np.prod([w for i, w in enumerate(want) if i != adj], dtype=np.int64))
    dims = list(want)
    dims[adj] = s.num_elements() // sliced if sliced else None
    return [TensorShape(dims)]


def _periodic_resample_grad(op, grad):
    original = op._inputs[0]._shape
    if not original.is_fully_defined():
        raise ValueError(f"periodic_resample's gradient needs the input's full static shape, "
                         f"got {original} for {op.name}")
    return [periodic_resample_op_grad(grad, original, op._attrs["shape"])]


op_registry.declare(
    "PeriodicResample",
    inputs=["values: T"],
    outputs=["output: T"],
    attrs=[_T, "shape: shape"],
    shape=_periodic_resample_shape,
    kernel=_periodic_resample_kernel,
    grad=_periodic_resample_grad,
)


def _periodic_resample_grad_kernel(grad, *, original_shape, desired_shape):
    grad = np.asarray(grad)
    _check_dtype(grad)
    in_shape = tuple(original_shape.as_list())
    dims, adj = _target_dims(in_shape, _desired(desired_shape))
    out = np.zeros(int(np.prod(in_shape, dtype=np.int64)), grad.dtype)
    # as TF's kernel: each output element's gradient is written (not added) to its source
    out[_source_index(in_shape, dims, adj).reshape(-1)] = grad.reshape(-1)
    return out.reshape(in_shape)


op_registry.declare(
    "PeriodicResampleOpGrad",
    inputs=["grad: T"],
    outputs=["grad_values: T"],
    attrs=[_T, "original_shape: shape", "desired_shape: shape"],
    shape=lambda op: [TensorShape(op._attrs["original_shape"])],
    kernel=_periodic_resample_grad_kernel,
)  # as TF: no gradient is defined for the gradient op


def _as_shape(shape):
    if isinstance(shape, TensorShape):
        return shape
    return TensorShape([None if d is None or int(d) < 0 else int(d) for d in list(shape)])


def periodic_resample(values, shape, name=None):
    """Periodically resamples ``values`` to ``shape``, in which exactly one entry is ``None``
    (that dimension shrinks as the others grow, as in a sub-pixel shuffle)."""
    values = ops.convert_to_tensor(values, name="values")
    attrs = {"shape": _as_shape(shape)}
    return ops.apply_op("PeriodicResample", [values], attrs, name=name)._outputs[0]


def periodic_resample_op_grad(grad, original_shape, desired_shape, name=None):
    """The gradient of :func:`periodic_resample` back to an input of ``original_shape``."""
    grad = ops.convert_to_tensor(grad, name="grad")
    attrs = {"original_shape": TensorShape(original_shape),
             "desired_shape": _as_shape(desired_shape)}
    return ops.apply_op("PeriodicResampleOpGrad", [grad], attrs, name=name)._outputs[0]


__all__ = ["periodic_resample", "periodic_resample_op_grad"]
