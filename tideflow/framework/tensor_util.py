"""Conversion between NumPy values and ``TensorProto`` (``tf.make_tensor_proto``, ``tf.make_ndarray``).

Fixed-size dtypes are stored as little-endian ``tensor_content`` bytes, strings in ``string_val``;
a proto with fewer values than its shape repeats its last value, as in TensorFlow.
"""

import numbers
import sys

import numpy as np

from tideflow.framework import dtypes
from tideflow.protos import tensor_pb2, tensor_shape_pb2

_QUANTIZED_BASE = {
    dtypes.qint8: np.dtype(np.int8),
    dtypes.quint8: np.dtype(np.uint8),
    dtypes.qint16: np.dtype(np.int16),
    dtypes.quint16: np.dtype(np.uint16),
    dtypes.qint32: np.dtype(np.int32),
}

# Typed value field of each dtype, used when the values do not fill the shape (a scalar to be
# repeated) or there is a single value; everything else goes into tensor_content.
_VALUE_FIELD = {
    dtypes.float32: "float_val",
    dtypes.float64: "double_val",
    dtypes.int32: "int_val",
    dtypes.uint8: "int_val",
    dtypes.uint16: "int_val",
    dtypes.int16: "int_val",
    dtypes.int8: "int_val",
    dtypes.qint8: "int_val",
    dtypes.quint8: "int_val",
    dtypes.qint16: "int_val",
    dtypes.quint16: "int_val",
    dtypes.qint32: "int_val",
    dtypes.int64: "int64_val",
    dtypes.uint32: "uint32_val",
    dtypes.uint64: "uint64_val",
    dtypes.bool: "bool_val",
    dtypes.float16: "half_val",
    dtypes.bfloat16: "half_val",
    dtypes.complex64: "scomplex_val",
    dtypes.complex128: "dcomplex_val",
}

# Types TF 1.15 always writes in their value field, never as tensor_content (as its
# make_tensor_proto: a bool Const prints ``bool_val: true``, a float16 one ``half_val: 15360``).
_LISTED_TYPES = frozenset({dtypes.bool, dtypes.float16, dtypes.bfloat16, dtypes.uint16,
                           dtypes.complex64, dtypes.complex128})

_MAX_CONTENT_BYTES = 1 << 31


def _numpy_dtype(dtype):
    """The NumPy dtype holding values of ``dtype`` (a structured dtype for quantized types)."""
    base = _QUANTIZED_BASE.get(dtype)
    if base is not None:
        return np.dtype([(dtype.name, base)])
    return np.dtype(dtype.as_numpy_dtype)


def _shape_proto(shape):
    return tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=int(d)) for d in shape]
    )


def _dense_dimensions(values):
    """The shape a nested list/tuple would have if it were dense (judged by first elements)."""
    if not isinstance(values, (list, tuple)):
        return []
    if not values:
        return [0]
    return [len(values)] + _dense_dimensions(values[0])


def _leaf_check(dtype):
    """A predicate telling whether one Python leaf value may become an element of ``dtype``."""
    if dtype.is_quantized or dtype.is_integer:
        # a TensorShape Dimension counts as an int (TF: [10, Dimension(20), 30])
        return lambda v: isinstance(v, (numbers.Integral, np.integer)) or (
            type(v).__name__ == "Dimension" and v.value is not None)
    if dtype.is_floating:
        return lambda v: isinstance(v, (numbers.Real, np.integer, np.floating))
    if dtype.is_complex:
        return lambda v: isinstance(v, (numbers.Complex, np.number))
    if dtype.is_bool:
        return lambda v: isinstance(v, (bool, np.bool_))
    if dtype.base_dtype == dtypes.string:
        return lambda v: isinstance(v, (bytes, str))
    return lambda v: True


def _first_mismatch(values, ok):
    if isinstance(values, (list, tuple)):
        for v in values:
            bad = _first_mismatch(v, ok)
            if bad is not None:
                return bad
        return None
    if isinstance(values, (np.ndarray, np.generic)):
        return None  # NumPy converts (and TF casts) arrays given inside lists
    return None if ok(values) else (values,)


def _assert_compatible(values, dtype):
    bad = _first_mismatch(values, _leaf_check(dtype))
    if bad is not None:
        (mismatch,) = bad
        raise TypeError(
            f"Expected {dtype.name}, got {mismatch!r} of type '{type(mismatch).__name__}' instead."
        )


def _as_bytes(value):
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError(f"Expected bytes or str, got {value!r} of type '{type(value).__name__}'")


def _flatten(values):
    if isinstance(values, (list, tuple)):
        for v in values:
            yield from _flatten(v)
    elif isinstance(values, np.ndarray):
        yield from values.ravel().tolist()
    else:
        yield values


def _le_bytes(array):
    """Row-major little-endian bytes of ``array``, whatever the host byte order."""
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    if sys.byteorder == "big":
        array = array.byteswap()
    return np.ascontiguousarray(array).tobytes()


def _tuple_mismatch(values):
    """TF 1.15's check that Python values of a quantized type are tuples (a quantized scalar is
    a 1-tuple): the first number that is not inside one, or None."""
    if not isinstance(values, (list, tuple)):
        return (values,)
    if not any(isinstance(v, (list, tuple)) for v in values):
        if isinstance(values, tuple):
            return None
        return (values[0],) if values else None
    for v in values:
        if isinstance(v, (list, tuple)):
            bad = _tuple_mismatch(v)
            if bad is not None:
                return bad
        else:
            return (v,)
    return None


def assert_quantized_compatible(values, dtype):
    """TF 1.15's check of Python values for a quantized ``dtype``: integers, each number
    inside a tuple (``[(1,), (2,)]``, not ``[1, 2]``)."""
    _assert_compatible(values, dtype)
    bad = _tuple_mismatch(values)
    if bad is not None:
        (mismatch,) = bad
        raise TypeError(
            f"Expected {dtype.name}, got {mismatch!r} of type '{type(mismatch).__name__}' instead.")


def _unwrap_quantized(values):
    if isinstance(values, tuple) and len(values) == 1 and isinstance(
            values[0], (numbers.Integral, np.integer)):
        return values[0]
    if isinstance(values, (list, tuple)):
        return [_unwrap_quantized(v) for v in values]
    return values


# the NumPy types TF 1.15's bfloat16 NumPy type registers casts from (its own, float16, float32,
# float64, int32, int64, complex64, complex128); an array of any other is its ValueError
_BFLOAT16_CASTS_FROM = frozenset("efdilFD")


def check_bfloat16_cast(np_dtype):
    """TF 1.15's ValueError for a NumPy array of a type its bfloat16 cannot be cast from."""
    if np_dtype.char not in _BFLOAT16_CASTS_FROM and np_dtype != dtypes.bfloat16._np:
        raise ValueError("No cast function available.")


def _to_ndarray(values, dtype, shape):
    """Converts Python/NumPy ``values`` to an ndarray as TF 1.x does (float32/int32 defaults)."""
    if isinstance(values, (np.ndarray, np.generic)):
        values = np.asarray(values)
        if dtype is None:
            return values
        if dtype.is_quantized:
            base = _QUANTIZED_BASE[dtype]
            return values.view(base) if values.dtype.names else values.astype(base)
        if dtype == dtypes.bfloat16:
            check_bfloat16_cast(values.dtype)
        return values.astype(_numpy_dtype(dtype))

    if values is None:
        raise ValueError("None values not supported.")
    if dtype is not None and dtype.is_quantized:
        assert_quantized_compatible(values, dtype)
        values = _unwrap_quantized(values)  # TF writes quantized scalars as 1-tuples
    if dtype is not None and dtype.is_quantized:
        np_dt = _QUANTIZED_BASE[dtype]
    elif dtype is not None and dtype.is_numpy_compatible:
        np_dt = _numpy_dtype(dtype)
    else:
        np_dt = None

    if shape is not None and np.prod(shape, dtype=np.int64) == 0:
        nparray = np.empty(shape, dtype=np_dt)
    else:
        if dtype is not None:
            _assert_compatible(values, dtype)
        want = _dense_dimensions(values)
        try:
            nparray = np.array(values, dtype=np_dt)
        except ValueError as e:
            if "inhomogeneous" not in str(e) and "sequence" not in str(e):
                raise
            raise ValueError(
                f"Argument must be a dense tensor: {values} - got an irregular nesting, "
                f"but wanted shape {want}."
            ) from None
        if list(nparray.shape) != want:
            raise ValueError(
                f"Argument must be a dense tensor: {values} - got shape "
                f"{list(nparray.shape)}, but wanted {want}."
            )

    if dtype is None:
        # Python floats and ints default to float32 and (when they fit) int32, as in TF.
        if nparray.dtype == np.float64:
            nparray = nparray.astype(np.float32)
        elif nparray.dtype == np.int64:
            narrowed = nparray.astype(np.int32)
            if np.array_equal(narrowed, nparray):
                nparray = narrowed
    return nparray


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False, allow_broadcast=False):
    """Creates a ``TensorProto`` from a Python or NumPy value (TF 1.x ``tf.make_tensor_proto``).

    Args:
      values: a scalar, nested list/tuple, NumPy array or scalar; a ``TensorProto`` is returned
        unchanged.
      dtype: optional element type (anything ``tf.as_dtype`` accepts). NumPy arrays are cast to
        it; Python values must be compatible with it.
      shape: optional shape. Fewer values than the shape holds are allowed (the last value is
        repeated when the proto is read), more are not.
      verify_shape: if true, the values' own shape must equal ``shape``.
      allow_broadcast: if true, a scalar or one-element value fills ``shape``, and any other
        value must have exactly as many elements as ``shape``.

    Raises:
      TypeError: for incompatible types, or a shape mismatch under ``verify_shape`` or
        ``allow_broadcast``.
      ValueError: for ``None``, ragged nested lists, or more values than ``shape`` holds.
    """
    if isinstance(values, tensor_pb2.TensorProto):
        return values
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype).base_dtype
    if shape is not None:
        shape = [int(d) for d in shape]

    if not isinstance(values, (list, tuple, str, bytes, numbers.Number, np.ndarray,
                               np.generic)) and (
            hasattr(values, "__array_interface__") or hasattr(values, "__array__")):
        try:  # an array-like object (TF reads __array__ and __array_interface__)
            arr = np.asarray(values)
        except Exception:  # noqa: BLE001 - not array-like after all: the usual error follows
            arr = None
        if arr is not None and arr.dtype != object:
            values = arr
    nparray = _to_ndarray(values, dtype, shape)
    if dtype is not None and dtype.is_quantized:
        value_dtype = dtype
    else:
        value_dtype = dtypes.as_dtype(nparray.dtype)
        if dtype is not None and dtype != value_dtype.base_dtype:
            raise TypeError(f"Incompatible types: {dtype!r} vs. {nparray.dtype}. Value is {values}")

    if shape is None:
        shape = list(nparray.shape)
        shape_size = nparray.size
    else:
        shape_size = int(np.prod(shape, dtype=np.int64))
        if allow_broadcast:
            if nparray.shape not in ((1,), ()) and nparray.size != shape_size:
                raise TypeError(
                    f"Expected Tensor's shape: {tuple(shape)}, got {tuple(nparray.shape)}."
                )
        else:
            if verify_shape and nparray.shape != tuple(shape):
                raise TypeError(
                    f"Expected Tensor's shape: {tuple(shape)}, got {tuple(nparray.shape)}."
                )
            if nparray.size > shape_size:
                raise ValueError(
                    "Too many elements provided. Needed at most "
                    f"{shape_size}, but received {nparray.size}"
                )
    is_same_size = nparray.size == shape_size
    if nparray.size > 1 and not any(nparray.strides):
        # one value broadcast to the shape (a Const of tf.constant(1.0, shape=[8])): written
        # as that one value, as TF writes the short value it was given
        nparray = nparray[(slice(0, 1),) * nparray.ndim].reshape(1)
        is_same_size = shape_size == 1

    proto = tensor_pb2.TensorProto(
        dtype=value_dtype.as_datatype_enum, tensor_shape=_shape_proto(shape)
    )

    if value_dtype == dtypes.string:
        if isinstance(values, (np.ndarray, np.generic)):
            items = nparray.ravel().tolist()
        else:
            # Read the Python values, not the array, so trailing NULs of bytes survive.
            items = list(_flatten(values))
        try:
            proto.string_val.extend(_as_bytes(v) for v in items)
        except TypeError:
            raise TypeError(
                f"Failed to convert object of type {type(values)} to Tensor. Contents: {values}. "
                "Consider casting elements to a supported type."
            ) from None
        return proto

    field = _VALUE_FIELD.get(value_dtype)
    if field is None:
        raise TypeError(f"Element type not supported in TensorProto: {value_dtype.name}")

    if is_same_size and shape_size > 1 and value_dtype not in _LISTED_TYPES:
        nbytes = nparray.size * nparray.itemsize
        if nbytes >= _MAX_CONTENT_BYTES:
            raise ValueError("Cannot create a tensor proto whose content is larger than 2GB.")
        proto.tensor_content = _le_bytes(nparray)
        return proto

    flat = nparray.ravel()
    if field == "half_val":
        getattr(proto, field).extend(flat.view(np.uint16).tolist())
    elif field in ("scomplex_val", "dcomplex_val"):
        pairs = np.empty(2 * flat.size, dtype=flat.real.dtype)
        pairs[0::2], pairs[1::2] = flat.real, flat.imag
        getattr(proto, field).extend(pairs.tolist())
    else:
        getattr(proto, field).extend(flat.tolist())
    return proto


def make_ndarray(tensor):
    """Returns the NumPy array a ``TensorProto`` holds (TF ``tf.make_ndarray``).

    Strings come back as an ``object`` array of ``bytes``; quantized types as TF's structured
    dtypes. A proto with fewer values than its shape repeats its last value.

    Raises:
      TypeError: for dtypes that have no NumPy value (resource, variant).
      ValueError: when ``tensor_content`` does not match the shape.
    """
    shape = [d.size for d in tensor.tensor_shape.dim]
    num_elements = int(np.prod(shape, dtype=np.int64))
    tensor_dtype = dtypes.as_dtype(tensor.dtype).base_dtype
    if tensor_dtype == dtypes.string:
        values = list(tensor.string_val)
        if values and len(values) < num_elements:
            values.extend([values[-1]] * (num_elements - len(values)))
        elif not values:
            values = [b""] * num_elements
        result = np.empty(len(values), dtype=object)
        result[:] = values
        return result.reshape(shape)

    field = _VALUE_FIELD.get(tensor_dtype)
    if field is None:
        raise TypeError(f"Unsupported tensor type: {tensor.dtype}")
    np_dt = _numpy_dtype(tensor_dtype)

    if tensor.tensor_content:
        content = tensor.tensor_content
        if len(content) != num_elements * np_dt.itemsize:
            raise ValueError(
                f"TensorProto of {tensor_dtype.name} with shape {shape} needs "
                f"{num_elements * np_dt.itemsize} bytes of tensor_content, got {len(content)}"
            )
        values = np.frombuffer(content, dtype=np_dt)
        if sys.byteorder == "big":
            values = values.byteswap()
        return values.copy().reshape(shape)

    base_dt = np_dt[0] if np_dt.names else np_dt
    raw = getattr(tensor, field)
    if field == "half_val":
        values = np.array(raw, dtype=np.uint16).view(np_dt)
    elif field in ("scomplex_val", "dcomplex_val"):
        pairs = np.array(raw, dtype=np_dt.type(0).real.dtype)
        values = (pairs[0::2] + 1j * pairs[1::2]).astype(np_dt)
    else:
        values = np.array(raw, dtype=base_dt)
        if np_dt.names:
            values = values.view(np_dt)

    if values.size == 0:
        return np.zeros(shape, dtype=np_dt)
    if values.size < num_elements:
        values = np.concatenate([values, np.repeat(values[-1:], num_elements - values.size)])
    elif values.size > num_elements:
        raise ValueError(
            f"TensorProto of shape {shape} holds {values.size} values, more than its "
            f"{num_elements} elements"
        )
    return values.reshape(shape)
