"""Tensor element types: TF's DType objects, their enum values and their NumPy counterparts."""

import builtins

import numpy as np

try:  # ml_dtypes supplies bfloat16 as a real NumPy dtype with correct rounding
    import ml_dtypes as _ml

    _bfloat16_np = np.dtype(_ml.bfloat16)
except ImportError:  # pragma: no cover - ml_dtypes is a hard dependency
    _ml = None
    _bfloat16_np = None

# DataType enum values as in TF's types.proto
DT_INVALID, DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8 = 0, 1, 2, 3, 4, 5, 6
DT_STRING, DT_COMPLEX64, DT_INT64, DT_BOOL, DT_QINT8, DT_QUINT8, DT_QINT32 = 7, 8, 9, 10, 11, 12, 13
DT_BFLOAT16, DT_QINT16, DT_QUINT16, DT_UINT16, DT_COMPLEX128, DT_HALF = 14, 15, 16, 17, 18, 19
DT_RESOURCE, DT_VARIANT, DT_UINT32, DT_UINT64 = 20, 21, 22, 23
_REF_OFFSET = 100

# enum -> (name, numpy dtype or None)
_TYPES = {
    DT_FLOAT: ("float32", np.dtype(np.float32)),
    DT_DOUBLE: ("float64", np.dtype(np.float64)),
    DT_INT32: ("int32", np.dtype(np.int32)),
    DT_UINT8: ("uint8", np.dtype(np.uint8)),
    DT_INT16: ("int16", np.dtype(np.int16)),
    DT_INT8: ("int8", np.dtype(np.int8)),
    DT_STRING: ("string", np.dtype(object)),
    DT_COMPLEX64: ("complex64", np.dtype(np.complex64)),
    DT_INT64: ("int64", np.dtype(np.int64)),
    DT_BOOL: ("bool", np.dtype(np.bool_)),
    DT_QINT8: ("qint8", np.dtype([("qint8", np.int8)])),
    DT_QUINT8: ("quint8", np.dtype([("quint8", np.uint8)])),
    DT_QINT32: ("qint32", np.dtype([("qint32", np.int32)])),
    DT_BFLOAT16: ("bfloat16", _bfloat16_np),
    DT_QINT16: ("qint16", np.dtype([("qint16", np.int16)])),
    DT_QUINT16: ("quint16", np.dtype([("quint16", np.uint16)])),
    DT_UINT16: ("uint16", np.dtype(np.uint16)),
    DT_COMPLEX128: ("complex128", np.dtype(np.complex128)),
    DT_HALF: ("float16", np.dtype(np.float16)),
    DT_RESOURCE: ("resource", np.dtype(object)),
    DT_VARIANT: ("variant", np.dtype(object)),
    DT_UINT32: ("uint32", np.dtype(np.uint32)),
    DT_UINT64: ("uint64", np.dtype(np.uint64)),
}

_FLOATING = {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE}
_COMPLEX = {DT_COMPLEX64, DT_COMPLEX128}
_INTEGER = {DT_INT8, DT_INT16, DT_INT32, DT_INT64, DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64}
# TF 1.15 asks ``min == 0``, which a quantized type has no answer to (quint8 is not unsigned)
_UNSIGNED = {DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64}
_QUANTIZED = {DT_QINT8, DT_QUINT8, DT_QINT16, DT_QUINT16, DT_QINT32}


class DType:
    """A tensor element type, e.g. ``tf.float32`` or its reference form ``tf.float32_ref``."""

    __slots__ = ("__weakref__", "_name", "_np", "_type_enum")

    def __init__(self, type_enum):
        type_enum = int(type_enum)
        base = type_enum - _REF_OFFSET if type_enum > _REF_OFFSET else type_enum
        if base not in _TYPES:
            raise TypeError(f"type_enum is not a valid types_pb2.DataType: {type_enum}")
        self._type_enum = type_enum
        name, self._np = _TYPES[base]
        self._name = name + "_ref" if type_enum > _REF_OFFSET else name

    # -- identity --------------------------------------------------------------------------
    @property
    def name(self):
        return self._name

    @property
    def as_datatype_enum(self):
        return self._type_enum

    @property
    def _is_ref_dtype(self):
        return self._type_enum > _REF_OFFSET

    @property
    def is_ref_dtype(self):
        return self._type_enum > _REF_OFFSET

    @property
    def base_dtype(self):
        return _BY_ENUM[self._type_enum - _REF_OFFSET] if self._is_ref_dtype else self

    @property
    def _as_ref(self):
        return self if self._is_ref_dtype else _BY_ENUM[self._type_enum + _REF_OFFSET]

    @property
    def real_dtype(self):
        b = self.base_dtype
        if b is complex64:
            return float32
        if b is complex128:
            return float64
        return b

    @property
    def as_numpy_dtype(self):
        """The NumPy scalar type (``np.float32``, ``ml_dtypes.bfloat16``, ``object`` for strings);
        for a quantized type TF's structured dtype itself (``np.dtype([('qint8', 'i1')])``)."""
        if self._np.names:
            return self._np
        return object if self._np.kind == "O" else self._np.type

    # -- classification --------------------------------------------------------------------
    @property
    def is_floating(self):
        return self.base_dtype._type_enum in _FLOATING

    @property
    def is_complex(self):
        return self.base_dtype._type_enum in _COMPLEX

    @property
    def is_integer(self):
        return self.base_dtype._type_enum in _INTEGER

    @property
    def is_unsigned(self):
        return self.base_dtype._type_enum in _UNSIGNED

    @property
    def is_quantized(self):
        return self.base_dtype._type_enum in _QUANTIZED

    @property
    def is_bool(self):
        return self.base_dtype._type_enum == DT_BOOL

    @property
    def is_numpy_compatible(self):
        # as TF 1.15, quantized types are (their structured NumPy dtypes)
        return self.base_dtype._type_enum not in (DT_RESOURCE, DT_VARIANT)

    @property
    def size(self):
        if self.base_dtype._type_enum in (DT_RESOURCE, DT_VARIANT):
            return 1
        if self.base_dtype._type_enum == DT_STRING:
            return 8  # TF's: the itemsize of NumPy's object dtype
        return self._np.itemsize

    @property
    def min(self):
        b = self.base_dtype
        if b.is_quantized or b._type_enum in (DT_BOOL, DT_STRING, DT_RESOURCE, DT_VARIANT) or (
            b.is_complex
        ):
            raise TypeError(f"Cannot find minimum value of {self}.")
        if b.is_floating:
            return _finfo(b).min  # a NumPy scalar of the type, as TF
        return int(np.iinfo(b._np).min)

    @property
    def max(self):
        b = self.base_dtype
        if b.is_quantized or b._type_enum in (DT_BOOL, DT_STRING, DT_RESOURCE, DT_VARIANT) or (
            b.is_complex
        ):
            raise TypeError(f"Cannot find maximum value of {self}.")
        if b.is_floating:
            return _finfo(b).max  # a NumPy scalar of the type, as TF
        return int(np.iinfo(b._np).max)

    @property
    def limits(self):
        """TF's intensity range with the negative part clipped: ``(0, 1)`` for float32 and
        float64, ``(0, max)`` for integers; TF 1.15's table has no other type (its KeyError
        names the NumPy type, Python's bool for bool)."""
        b = self.base_dtype
        if b._type_enum in (DT_FLOAT, DT_DOUBLE):
            return 0, 1
        if b.is_integer:
            return 0, self.max
        if b._type_enum in (DT_RESOURCE, DT_VARIANT):
            raise KeyError(b._type_enum)  # (TF's as_numpy_dtype has none for them)
        raise KeyError(builtins.bool if b._type_enum == DT_BOOL else b.as_numpy_dtype)

    def is_compatible_with(self, other):
        """True if a value of ``other`` may be used where this type is expected (refs ignored)."""
        other = as_dtype(other)
        return self._type_enum in (other._type_enum, other.base_dtype._type_enum)

    # -- python protocol -------------------------------------------------------------------
    def __eq__(self, other):
        if other is None:
            return False
        if isinstance(other, DType):
            return self._type_enum == other._type_enum
        try:
            return self._type_enum == as_dtype(other)._type_enum
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return self._type_enum

    def __int__(self):
        return self._type_enum

    def __repr__(self):
        return f"tf.{self._name}"

    def __str__(self):
        return f"<dtype: '{self._name}'>"

    def __reduce__(self):
        return as_dtype, (self._name,)


def _finfo(dt):
    return _ml.finfo(dt._np) if dt._type_enum == DT_BFLOAT16 else np.finfo(dt._np)


_BY_ENUM = {}
for _e in _TYPES:
    _BY_ENUM[_e] = DType(_e)
    _BY_ENUM[_e + _REF_OFFSET] = DType(_e + _REF_OFFSET)

float16 = half = _BY_ENUM[DT_HALF]
bfloat16 = _BY_ENUM[DT_BFLOAT16]
float32 = _BY_ENUM[DT_FLOAT]
float64 = double = _BY_ENUM[DT_DOUBLE]
int8 = _BY_ENUM[DT_INT8]
int16 = _BY_ENUM[DT_INT16]
int32 = _BY_ENUM[DT_INT32]
int64 = _BY_ENUM[DT_INT64]
uint8 = _BY_ENUM[DT_UINT8]
uint16 = _BY_ENUM[DT_UINT16]
uint32 = _BY_ENUM[DT_UINT32]
uint64 = _BY_ENUM[DT_UINT64]
complex64 = _BY_ENUM[DT_COMPLEX64]
complex128 = _BY_ENUM[DT_COMPLEX128]
bool = _BY_ENUM[DT_BOOL]
string = _BY_ENUM[DT_STRING]
qint8 = _BY_ENUM[DT_QINT8]
quint8 = _BY_ENUM[DT_QUINT8]
qint16 = _BY_ENUM[DT_QINT16]
quint16 = _BY_ENUM[DT_QUINT16]
qint32 = _BY_ENUM[DT_QINT32]
resource = _BY_ENUM[DT_RESOURCE]
variant = _BY_ENUM[DT_VARIANT]

float16_ref = _BY_ENUM[DT_HALF + _REF_OFFSET]
bfloat16_ref = _BY_ENUM[DT_BFLOAT16 + _REF_OFFSET]
float32_ref = _BY_ENUM[DT_FLOAT + _REF_OFFSET]
float64_ref = _BY_ENUM[DT_DOUBLE + _REF_OFFSET]
int8_ref = _BY_ENUM[DT_INT8 + _REF_OFFSET]
int16_ref = _BY_ENUM[DT_INT16 + _REF_OFFSET]
int32_ref = _BY_ENUM[DT_INT32 + _REF_OFFSET]
int64_ref = _BY_ENUM[DT_INT64 + _REF_OFFSET]
uint8_ref = _BY_ENUM[DT_UINT8 + _REF_OFFSET]
uint16_ref = _BY_ENUM[DT_UINT16 + _REF_OFFSET]
complex64_ref = _BY_ENUM[DT_COMPLEX64 + _REF_OFFSET]
complex128_ref = _BY_ENUM[DT_COMPLEX128 + _REF_OFFSET]
bool_ref = _BY_ENUM[DT_BOOL + _REF_OFFSET]
string_ref = _BY_ENUM[DT_STRING + _REF_OFFSET]

_BY_NAME = {d.name: d for d in _BY_ENUM.values()}
_BY_NAME.update({"half": float16, "double": float64, "float": float32})
# (and their reference types' names, as TF 1.x's "float_ref")
_BY_NAME.update({"half_ref": float16_ref, "double_ref": float64_ref, "float_ref": float32_ref})

# numpy dtype -> DType (object maps to string, as TF does)
_BY_NP = {}
for _e, (_n, _npd) in _TYPES.items():
    if _npd is not None and _e not in (DT_RESOURCE, DT_VARIANT):
        _BY_NP.setdefault(_npd, _BY_ENUM[_e])
_BY_NP[np.dtype(object)] = string

# TF 1.15's Python types: float, bool and object only (int, str, bytes and complex are a
# TypeError there; TF 2.x added them)
_PY_TYPES = {float: float32, builtins.bool: bool, object: string}

QUANTIZED_DTYPES = frozenset(
    d for e in _QUANTIZED for d in (_BY_ENUM[e], _BY_ENUM[e + _REF_OFFSET])
)  # TF's set: the quantized types and their refs

TF_VALUE_DTYPES = frozenset(
    _BY_ENUM[e] for e in _TYPES if e not in {DT_RESOURCE, DT_VARIANT} | _QUANTIZED
)


_TYPE_STRINGS = {"float32": "float", "float64": "double", "float16": "half"}


def type_string(dtype):
    """TF's C++ name of ``dtype`` (DataTypeString), as its kernels' messages print it:
    ``float``, ``double``, ``half``, else the Python name (``int32``, ``float_ref``...)."""
    name = as_dtype(dtype).name
    base, ref = (name[:-4], "_ref") if name.endswith("_ref") else (name, "")
    return _TYPE_STRINGS.get(base, base) + ref


def as_dtype(type_value):
    """Converts a DType, NumPy dtype or type, DataType enum value or name to a ``DType``."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, int) and not isinstance(type_value, builtins.bool):
        d = _BY_ENUM.get(type_value)
        if d is not None:
            return d
    elif isinstance(type_value, str):
        d = _BY_NAME.get(type_value)
        if d is not None:
            return d
    elif type_value in _PY_TYPES:
        return _PY_TYPES[type_value]
    elif type_value is np.bytes_ or type_value is np.str_:
        return string
    elif type_value is None or any(type_value is t for t in (int, str, bytes, complex)):
        pass  # (np.dtype would take them: None as float64, int as int64)
    else:
        try:
            d = _BY_NP.get(np.dtype(type_value))
        except (TypeError, ValueError):
            d = None
        if d is not None:
            return d
        if np.dtype(type_value).kind in "SU" if _is_np_like(type_value) else False:
            return string
    raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.")


def _is_np_like(value):
    try:
        np.dtype(value)
        return True
    except (TypeError, ValueError):
        return False


def dtype_of_numpy(array):
    """The DType of a NumPy array (``S``/``U``/object arrays are strings)."""
    d = _BY_NP.get(array.dtype)
    if d is not None:
        return d
    if array.dtype.kind in "SUO":
        return string
    raise TypeError(f"Unsupported NumPy dtype {array.dtype} for a tensor.")
