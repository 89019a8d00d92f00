"""Constants and placeholders: ``tf.constant``, ``tf.placeholder`` and value-to-tensor conversion."""

import numbers
import re

import numpy as np
from google.protobuf import message as _message

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import Dimension, as_shape, unknown_shape

# a TensorProto is a value (as TF's make_tensor_proto takes it); matched by its message type so
# that importing tideflow loads no generated proto module
_ProtoMessage = _message.Message


def _is_tensor_proto(value):
    return type(value).DESCRIPTOR.full_name.endswith(".TensorProto")


def _const_shape(op):
    return [as_shape(op._attrs["value"].shape)]


def _const_kernel(*, value):
    return value


op_registry.declare(
    "Const",
    outputs=["output: dtype"],
    attrs=["value: tensor", "dtype: type"],
    shape=_const_shape,
    kernel=_const_kernel,
    differentiable=False,
)
ops.register_constant_value("Const", lambda op, i: op._attrs["value"])


def unfed_placeholder_error(op):
    """TF's error for placeholder ``op`` left unfed in a step."""
    shape = op._attrs["shape"]
    # TF's PlaceholderOp names the shape only for rank > 0 (not for scalars or unknown rank)
    shape_str = "" if not shape.ndims else (
        " and shape [" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"
    )
    return errors.InvalidArgumentError(
        None, op,
        f"You must feed a value for placeholder tensor '{op.name}' with dtype "
        f"{dtypes.type_string(op._attrs['dtype'])}{shape_str}",
    )


def _placeholder_kernel(ctx):
    op = ctx.op

    def run():
        raise unfed_placeholder_error(op)

    return run


op_registry.declare(
    "Placeholder",
    outputs=["output: dtype"],
    attrs=["dtype: type", "shape: shape = unknown"],
    shape=lambda op: [op._attrs["shape"]],
    kernel_factory=_placeholder_kernel,
    differentiable=False,
)

def _placeholder_with_default_grad(op, grad):
    return grad


def _dims(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def _placeholder_with_default_shape(op):
    """The ``shape`` attr, which the default's shape must be compatible with (as TF's)."""
    shape, given = op._attrs["shape"], op._inputs[0].shape
    if shape.ndims is not None and given.ndims is not None:
        if shape.ndims != given.ndims:
            raise ValueError(f"Shapes must be equal rank, but are {given.ndims} and {shape.ndims}")
        for i, (a, b) in enumerate(zip(given.as_list(), shape.as_list())):
            if a is not None and b is not None and a != b:
                raise ValueError(f"Dimension {i} in both shapes must be equal, but are {a} and "
                                 f"{b}. Shapes are {_dims(given)} and {_dims(shape)}.")
    return [shape]


op_registry.declare(
    "PlaceholderWithDefault",
    inputs=["input: dtype"],
    outputs=["output: dtype"],
    attrs=["dtype: type", "shape: shape"],
    shape=_placeholder_with_default_shape,
    kernel=lambda x: x,
    grad=_placeholder_with_default_grad,
)


# ------------------------------------------------------------------------------------------
# values -> ndarrays
# ------------------------------------------------------------------------------------------


def _dense_dims(values):
    """The shape a nested list would have if every row were as its first (TF's message)."""
    dims = []
    while isinstance(values, (list, tuple)):
        dims.append(len(values))
        if not values:
            break
        values = values[0]
    return dims


def _flat_values(values):
    if isinstance(values, (list, tuple, range)):  # TF's type check reads a range's ints
        for v in values:
            yield from _flat_values(v)
    else:
        yield values


def _check_dense_range(values, arr):
    """As TF 1.15's make_tensor_proto: a range (NumPy reads it as a row, TF's dense shape
    of a list does not count it) is not a dense tensor, in TF's words and class."""
    # the shapes first (one path down the list): only a mismatch looks for a range (NumPy
    # arrays inside a list mismatch too, and tideflow lets those through)
    want = _dense_dims(values)
    if list(arr.shape) != want and (isinstance(values, range) or (
            isinstance(values, (list, tuple)) and any(
                isinstance(v, range) for v in _flat_ranges(values)))):
        raise ValueError(f"Argument must be a dense tensor: {values} - got shape "
                         f"{list(arr.shape)}, but wanted {want}.")


def _flat_ranges(values):
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from _flat_ranges(v)
        else:
            yield v


_LENIENT = (np.bool_, np.ndarray)
_INTEGRAL = (numbers.Integral, np.integer, Dimension, *_LENIENT)
_REAL = (numbers.Real, np.integer, np.floating, *_LENIENT)
_COMPLEX = (numbers.Complex, np.number, *_LENIENT)


def _check_compatible(values, dtype):
    """Raises TypeError when a Python value cannot be represented exactly as ``dtype``."""
    if isinstance(values, (np.ndarray, np.generic)):
        # as TF: NumPy values are cast to the requested dtype (np.float32(2.5) -> 2), but
        # never from numbers to strings
        if dtype == dtypes.string:
            flat = np.asarray(values).reshape(-1)
            if flat.dtype.kind != "O":
                bad = flat[:1] if flat.dtype.kind not in "SU" else flat[:0]
            else:  # an object array's first element that is not bytes or text
                bad = [v for v in flat if not isinstance(v, (str, bytes))][:1]
            if len(bad):
                bad = bad[0].item() if isinstance(bad[0], np.generic) else bad[0]
                raise TypeError(f"Expected binary or unicode string, got {bad!r}")
        return
    if dtype.is_quantized:
        from tideflow.framework.tensor_util import assert_quantized_compatible

        return assert_quantized_compatible(values, dtype)
    for v in _flat_values(values):
        if v is None and dtype != dtypes.string and dtype != dtypes.bool:
            raise TypeError(f"Expected {dtype.name}, got None of type 'NoneType' instead.")
        if isinstance(v, ops.Tensor):
            raise TypeError(f"Expected {dtype.name}, got {v!r} of type 'Tensor' instead.")
        if dtype == dtypes.string:
            if not isinstance(v, (str, bytes, np.bytes_, np.str_)):
                raise TypeError(f"Expected string, got {v!r} of type '{type(v).__name__}' instead.")
        elif dtype.is_integer or dtype.is_floating or dtype.is_complex:
            # TF 1.15's isinstance checks (an object, a Decimal, a Dimension for a float fail
            # here, not in NumPy); tideflow also lets NumPy bools and arrays in a list through
            ok = (_INTEGRAL if dtype.is_integer else _REAL if dtype.is_floating else _COMPLEX)
            if v is not None and not isinstance(v, ok):
                raise TypeError(
                    f"Expected {dtype.name}, got {v!r} of type '{type(v).__name__}' instead."
                )
        elif dtype == dtypes.bool and not isinstance(v, (bool, np.bool_)):
            raise TypeError(f"Expected bool, got {v!r} of type '{type(v).__name__}' instead.")


def to_ndarray(values, dtype=None, shape=None, verify_shape=False):
    """Converts Python or NumPy values to the ndarray a Const holds, with TF's dtype rules."""
    if values is None:  # as TF's make_tensor_proto (also a None inside an autopacked shape)
        raise ValueError("None values not supported.")
    if isinstance(values, _ProtoMessage) and _is_tensor_proto(values):
        # as TF's make_tensor_proto, a TensorProto is the value as it stands (its own dtype
        # and shape): tf-encrypted's converter passes NodeDef attrs' protos to ops directly
        from tideflow.framework import graph_io

        return graph_io.tensor_value(values)  # one value filling it stays one value
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype).base_dtype
    is_np = isinstance(values, (np.ndarray, np.generic))
    if isinstance(shape, (list, tuple)) and any(d is None for d in shape):
        # TF 1.15 reads each entry with int() (Python 3.7's words)
        raise TypeError("int() argument must be a string, a bytes-like object or a number, "
                        "not 'NoneType'")
    if isinstance(shape, numbers.Integral):
        raise TypeError(f"'{type(shape).__name__}' object is not iterable")
    if shape is not None and not is_np:
        want = as_shape(shape)
        if want.is_fully_defined() and want.num_elements() == 0:
            # as TF: a Python value for a shape with no elements is not even read
            return np.empty(want.as_list(), object if dtype == dtypes.string else
                            (dtype._np if dtype is not None else np.float32))
    if dtype is not None:
        _check_compatible(values, dtype)
        if dtype == dtypes.string:
            arr = _string_array(values)
        else:
            try:
                if is_np and dtype == dtypes.bool and np.asarray(values).dtype.kind in "SU":
                    # NumPy 1.x (TF 1.15's) reads text as integers on the way to bool
                    values = np.asarray(values).astype(np.int64)
                if is_np and dtype == dtypes.bfloat16:
                    from tideflow.framework.tensor_util import check_bfloat16_cast

                    check_bfloat16_cast(values.dtype)
                arr = np.array(values, dtype=dtype._np)
            except OverflowError:
                # as TF (and NumPy 1.x): a Python int out of the dtype's range wraps around
                # (tf.constant(0xFFFFFFFF, tf.int32) is -1) when it fits C's long (unsigned
                # long for uint32 and uint64); past that it is NumPy 1.x's error
                if dtype.is_integer:
                    wide = dtype in (dtypes.uint32, dtypes.uint64)
                    lo, hi = (-(1 << 63), 1 << (64 if wide else 63))
                    if any(isinstance(v, int) and not lo <= v < hi for v in _flat_values(
                            values)):
                        raise OverflowError("Python int too large to convert to C long"
                                            ) from None
                arr = np.array(values).astype(dtype._np)
            except ValueError as e:
                if is_np:  # as TF: NumPy's own error casting an array ("could not convert")
                    raise
                if "sequence" in str(e):  # ragged nesting: NumPy's ValueError, as in TF
                    # (NumPy 1.18's words, TF 1.15's NumPy, without the later shape detail)
                    arrays = [v for v in _flat_values(values) if isinstance(v, np.ndarray)]
                    if arrays:  # (TF's type check refuses an array in a list before NumPy)
                        raise TypeError(f"Expected {dtype.name}, got {arrays[0]!r} of type "
                                        "'ndarray' instead.") from None
                    msg = str(e)
                    cut = msg.find(" The requested array")
                    raise ValueError(msg[:cut] if cut > 0 else msg) from None
                raise TypeError(f"Expected {dtype.name}, got {values!r}: {e}") from None
            except TypeError:
                raise  # as TF: NumPy's own words ("__int__ returned non-int (type NoneType)")
            if not is_np and arr.ndim:
                _check_dense_range(values, arr)
    else:
        if is_np:
            arr = np.array(values)
            if arr.dtype.kind in "SUO":
                _check_compatible(arr, dtypes.string)  # an object array is read as strings
                arr = _string_array(arr)
            else:
                dtypes.dtype_of_numpy(arr)  # raises for unsupported dtypes
        else:
            try:
                arr = np.array(values)
            except ValueError as e:
                # TF's words: the shape NumPy made of the ragged list vs its first-row path
                got = re.search(r"detected shape was \(([\d, ]*)\)", str(e))
                got = (f"error ({e})" if got is None else
                       str([int(d) for d in got.group(1).split(",") if d.strip()]))
                if got == str(_dense_dims(values)):
                    # NumPy 1.18 (TF 1.15's) made an object array of the shape TF expected,
                    # which TF then failed to read as strings
                    raise TypeError(f"Failed to convert object of type {type(values)} to "
                                    f"Tensor. Contents: {values!r}. Consider casting elements "
                                    "to a supported type.") from None
                raise ValueError(f"Argument must be a dense tensor: {values} - got shape {got}, "
                                 f"but wanted {_dense_dims(values)}.") from None
            if arr.ndim:
                _check_dense_range(values, arr)
            if arr.dtype == object or arr.dtype.kind in "SU":
                if all(isinstance(v, (str, bytes, np.bytes_, np.str_)) for v in _flat_values(
                        values)):
                    arr = _string_array(values)
                else:
                    raise TypeError(f"Failed to convert object of type {type(values)} to Tensor. "
                                    f"Contents: {values!r}. Consider casting elements to a "
                                    "supported type.")
            elif arr.dtype == np.float64:
                arr = arr.astype(np.float32)
            elif arr.dtype == np.int64:
                down = arr.astype(np.int32)
                if np.array_equal(down, arr):
                    arr = down
            elif arr.dtype.kind == "c":
                arr = arr.astype(np.complex128)
    if shape is not None:
        shape = as_shape(shape)
        if not shape.is_fully_defined():
            raise TypeError(f"Shape {shape} must be fully defined for a constant.")
        want = shape.as_list()
        n = int(np.prod(want, dtype=np.int64))
        if list(arr.shape) != want:
            if verify_shape:
                raise TypeError(f"Expected Tensor's shape: {tuple(want)}, got {arr.shape}.")
            if arr.size == 1 and n:
                # a read-only view of the one value: the GraphDef keeps that one value
                # (float_val: 1 for tf.constant(1.0, shape=[8]) or tf.ones([8])), as TF's
                arr = np.broadcast_to(arr.reshape(()), want)
            elif arr.size > n:
                raise ValueError(
                    f"Too many elements provided. Needed at most {n}, but received {arr.size}"
                )
            elif n == 0:  # an empty value fits any shape with no elements ([0, 2, 3])
                arr = arr.reshape(want)
            elif arr.size == 0:  # as TF: a Const holding no values reads as zeros
                arr = np.full(want, b"", object) if arr.dtype == object else np.zeros(
                    want, arr.dtype)
            else:
                flat = arr.reshape(-1)
                arr = np.concatenate([flat, np.repeat(flat[-1:], n - flat.size)]).reshape(want)
    return arr


def _string_array(values):
    arr = np.array(values, dtype=object)
    flat = arr.reshape(-1)
    for i, v in enumerate(flat):
        if isinstance(v, str):
            flat[i] = v.encode()
        elif isinstance(v, np.bytes_):
            flat[i] = bytes(v)
        elif isinstance(v, np.str_):
            flat[i] = str(v).encode()
    return flat.reshape(arr.shape)


# ------------------------------------------------------------------------------------------
# public API
# ------------------------------------------------------------------------------------------


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """Creates a constant tensor holding ``value`` (converted with TF's dtype rules)."""
    try:
        arr = to_ndarray(value, dtype=dtype, shape=shape, verify_shape=verify_shape)
    except (NotImplementedError, ValueError, TypeError) as e:
        # a symbolic Tensor somewhere inside value (its __array__ raises, or a ragged list
        # holds it, which NumPy 1.18 makes an object array of): TF 1.15's make_tensor_proto
        # finds the tensor first and says so in these words, whatever the nesting
        if isinstance(e, TypeError) and not str(e).startswith("Failed to convert object"):
            raise
        if isinstance(value, ops.Tensor) or (isinstance(value, (list, tuple)) and any(
                isinstance(v, ops.Tensor) for v in _flat_values(value))):
            raise TypeError("List of Tensors when single Tensor expected") from None
        raise
    return _const(arr, name)


# TF 1.x's tf.constant is its constant_v1 (a short value fills the shape; verify_shape opts
# into the strict check); tensorflow.python.framework.constant_op names both
constant_v1 = constant


def _const(arr, name="Const"):
    # TF builds Const with Graph.create_op: the name is checked as a node name
    ops.check_node_name(ops.get_default_graph(), name)
    dtype = dtypes.dtype_of_numpy(arr)
    if arr.flags.writeable:
        arr = arr.copy() if arr.base is not None else arr
        arr.flags.writeable = False
    return ops.apply_op("Const", [], {"value": arr, "dtype": dtype}, name=name)._outputs[0]


def _constant_conversion(value, dtype=None, name=None, as_ref=False):
    if as_ref:
        return NotImplemented
    return constant(value, dtype=dtype, name=name or "Const")


for _t in (list, tuple, range, np.ndarray, np.generic, float, int, bool, complex, str, bytes,
           numbers.Number, _ProtoMessage, object):
    if _t is object:
        continue
    ops.register_tensor_conversion_function(_t, _constant_conversion, priority=200)


def _array_like_conversion(value, dtype=None, name=None, as_ref=False):
    """Objects NumPy can read through ``__array__`` (a pandas Series or DataFrame, as the
    get_started iris samples feed ``from_tensor_slices``) convert as their array, as in TF,
    whose fallback converts any object NumPy can read."""
    if as_ref or not hasattr(value, "__array__"):
        return NotImplemented
    return constant(np.asarray(value), dtype=dtype, name=name or "Const")


ops.register_tensor_conversion_function(object, _array_like_conversion, priority=300)


def _shape_dtype(what, dims, dtype):
    """int32 unless a dimension needs int64 (TF's rule); only the two integer dtypes."""
    large = next((d for d in dims if d >= 2**31), 0)
    if dtype is None:
        return dtypes.int64 if large else dtypes.int32
    dtype = dtypes.as_dtype(dtype).base_dtype
    if dtype not in (dtypes.int32, dtypes.int64):
        # (TF 1.15's words, "TensorShape" also for a Dimension)
        raise TypeError(f"Cannot convert a TensorShape to dtype: {dtype}")
    if dtype == dtypes.int32 and large:
        raise ValueError(f"Cannot convert a {what} to dtype int32; a dimension is too large "
                         f"({large})")
    return dtype


def _shape_conversion(value, dtype=None, name=None, as_ref=False):
    if not value.is_fully_defined():
        raise ValueError(f"Cannot convert a partially known TensorShape to a Tensor: {value}")
    dims = value.as_list()
    return constant(dims, dtype=_shape_dtype("TensorShape", dims, dtype),
                    name=name or "shape_as_tensor")


def _dim_conversion(value, dtype=None, name=None, as_ref=False):
    if value.value is None:
        raise ValueError(f"Cannot convert an unknown Dimension to a Tensor: {value}")
    return constant(value.value, dtype=_shape_dtype("Dimension", [value.value], dtype),
                    name=name or "shape_as_tensor")


def _register_shape_conversions():
    from tideflow.framework.tensor_shape import Dimension, TensorShape

    ops.register_tensor_conversion_function(TensorShape, _shape_conversion, priority=100)
    ops.register_tensor_conversion_function(Dimension, _dim_conversion, priority=100)


_register_shape_conversions()


def placeholder(dtype, shape=None, name=None):
    """A tensor whose value must be fed to ``Session.run``."""
    # (the op's attrs convert dtype and shape, with TF's words for a bad one)
    shape = unknown_shape() if shape is None else shape
    return ops.apply_op("Placeholder", [], {"dtype": dtype, "shape": shape}, name=name)._outputs[0]


def placeholder_with_default(input, shape, name=None):
    """A tensor that takes ``input`` unless fed."""
    # as TF's op wrapper: a Python default becomes the constant "<name>/input"
    with ops.name_scope(name, "PlaceholderWithDefault", [input]) as scope:
        try:
            t = ops.convert_to_tensor(input, name="input")
        except ValueError as e:  # as TF's op wrapper converting its input
            raise ValueError(f"Tried to convert 'input' to a tensor and failed. Error: {e}"
                             ) from None
        return ops.apply_op(
            "PlaceholderWithDefault", [t], {"dtype": t.dtype, "shape": as_shape(shape)},
            name=scope,
        )._outputs[0]
