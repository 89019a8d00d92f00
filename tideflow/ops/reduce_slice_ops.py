"""``tf.contrib.reduce_slice_ops``: ``ReduceSliceSum``/``Prod``/``Max``/``Min``, reductions of
slices ``[start, end)`` of a tensor along one axis.

``indices`` is ``[n, 2]`` (a start and an end per slice) or ``[n + 1]`` (consecutive entries
bound slice ``i``). An end past the axis stops at its bound; an empty slice gives the
reduction's identity (0, 1, the dtype's lowest or highest value). As TF 1.15, the ops have no
gradient. The static shape is the data's with the axis sized by the slice count (TF 1.15's
shape function sizes the indices' shape instead, which its kernel then contradicts).
"""

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape, unknown_shape

_NUMERIC = ("{float32, float64, int32, uint8, int16, int8, complex64, int64, qint8, quint8, "
            "qint32, bfloat16, uint16, complex128, half, uint32, uint64}")


def _slices_count(indices_shape):
    if indices_shape.ndims is None:
        return None
    if indices_shape.ndims == 1:
        n = indices_shape.dims[0].value
        return None if n is None else max(n - 1, 0)
    if indices_shape.ndims == 2:
        width = indices_shape.dims[1].value
        if width is not None and width != 2:
            raise ValueError(f"Dimensions must be equal, but are {width} and 2")
        return indices_shape.dims[0].value
    raise ValueError(f"Shape must be rank 1 or 2 but is rank {indices_shape.ndims}")


def _reduce_slice_shape(op):
    data, indices, axis_t = op._inputs
    count = _slices_count(indices._shape)
    axis = ops.constant_value(axis_t)
    if data._shape.ndims is None:
        return [unknown_shape()]
    rank = data._shape.ndims
    if axis is None:
        return [unknown_shape(rank)]
    axis = int(axis)
    if not 0 <= axis < rank:
        raise ValueError(f"Out of range dim_index {axis} for shape with {rank} dimensions")
    dims = list(data._shape.dims)
    dims[axis] = count
    return [TensorShape(dims)]


def _identity(kind, dtype):
    if kind == "sum":
        return 0
    if kind == "prod":
        return 1
    if dtype.kind == "f":
        return -np.inf if kind == "max" else np.inf
    info = np.iinfo(dtype)
    return info.min if kind == "max" else info.max


_UFUNCS = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}


def _kernel(kind, op_type):
    ufunc = _UFUNCS[kind]

    def kernel(data, indices, axis):
        data, indices = np.asarray(data), np.asarray(indices)
        axis = int(axis)
        if not 0 <= axis < data.ndim:
            raise errors.InvalidArgumentError(
                None, None, f"{op_type}: axis {axis} is out of range for data of rank "
                f"{data.ndim}")
        if indices.ndim == 1:
            starts, ends = indices[:-1], indices[1:]
        elif indices.ndim == 2 and indices.shape[1] == 2:
            starts, ends = indices[:, 0], indices[:, 1]
        else:
            raise errors.InvalidArgumentError(
                None, None, f"{op_type}: indices must be [n, 2] or [n + 1], got "
                f"{list(indices.shape)}")
        moved = np.moveaxis(data, axis, 0)
        size = moved.shape[0]
        out = np.empty((len(starts), *moved.shape[1:]), data.dtype)
        for i, (start, end) in enumerate(zip(starts.tolist(), ends.tolist())):
            if start < 0:
                raise errors.InvalidArgumentError(
                    None, None, f"{op_type}: slice {i} starts at {start}, before the axis")
            end = min(end, size)
            if end <= start:
                out[i] = _identity(kind, data.dtype)
            else:
                out[i] = ufunc.reduce(moved[start:end], axis=0)
        return np.moveaxis(out, 0, axis)

    return kernel


for _kind in ("sum", "prod", "max", "min"):
    _op_type = f"ReduceSlice{_kind.capitalize()}"
    op_registry.declare(
        _op_type, inputs=["data: T", "indices: Tindices", "axis: int64"],
        outputs=["output: T"],
        attrs=[f"T: {_NUMERIC}", "Tindices: {int32, int64}"],
        shape=_reduce_slice_shape, kernel=_kernel(_kind, _op_type))


def _reduce_slice(op_type, data, indices, axis, name):
    data = ops.convert_to_tensor(data, name="data")
    indices = ops.convert_to_tensor(indices, name="indices")
    axis = ops.convert_to_tensor(axis, dtype=dtypes.int64, name="axis")
    return ops.apply_op(op_type, [data, indices, axis], name=name or op_type).outputs[0]


def reduce_slice_sum(data, indices, axis, name=None):
    """The sums of the slices of ``data`` along ``axis`` that ``indices`` bound (see the
    module docstring); an empty slice sums to 0."""
    return _reduce_slice("ReduceSliceSum", data, indices, axis, name)


def reduce_slice_prod(data, indices, axis, name=None):
    """The products of the slices ``indices`` bound; an empty slice gives 1."""
    return _reduce_slice("ReduceSliceProd", data, indices, axis, name)


def reduce_slice_max(data, indices, axis, name=None):
    """The maxima of the slices ``indices`` bound; an empty slice gives the dtype's lowest."""
    return _reduce_slice("ReduceSliceMax", data, indices, axis, name)


def reduce_slice_min(data, indices, axis, name=None):
    """The minima of the slices ``indices`` bound; an empty slice gives the dtype's highest."""
    return _reduce_slice("ReduceSliceMin", data, indices, axis, name)


__all__ = ["reduce_slice_max", "reduce_slice_min", "reduce_slice_prod", "reduce_slice_sum"]
