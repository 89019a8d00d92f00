"""``tf.dtypes``: DType, the dtypes, and the casting functions under their ``tf.dtypes.*``
names. (The dtypes themselves are defined in ``tideflow/framework/dtypes.py``.)"""

import types as _types

from tideflow.framework import dtypes as _fw
from tideflow.framework.dtypes import (
    DType,
    as_dtype,
    bfloat16,
    bool,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    qint8,
    qint16,
    qint32,
    quint8,
    quint16,
    resource,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
    variant,
)
from tideflow.ops.cast_ops import cast, saturate_cast
from tideflow.ops.math_ops import complex
from tideflow.ops.string_ops import as_string

# the quantized dtypes and their reference types
QUANTIZED_DTYPES = frozenset(d for d in _fw._BY_ENUM.values() if d.is_quantized)

experimental = _types.SimpleNamespace()

__all__ = [
    "QUANTIZED_DTYPES",
    "DType",
    "as_dtype",
    "as_string",
    "bfloat16",
    "bool",
    "cast",
    "complex",
    "complex64",
    "complex128",
    "double",
    "experimental",
    "float16",
    "float32",
    "float64",
    "half",
    "int8",
    "int16",
    "int32",
    "int64",
    "qint8",
    "qint16",
    "qint32",
    "quint8",
    "quint16",
    "resource",
    "saturate_cast",
    "string",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "variant",
]
