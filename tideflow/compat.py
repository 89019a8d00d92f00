"""``tf.compat``: bytes/text conversions, and ``tf.compat.v1`` (this API itself)."""

import numbers as _numbers
import sys as _sys

import numpy as _np

integral_types = (_numbers.Integral, _np.integer)
real_types = (_numbers.Real, _np.integer, _np.floating)
complex_types = (_numbers.Complex, _np.number)
bytes_or_text_types = (bytes, str)


def as_bytes(bytes_or_text, encoding="utf-8"):
    """``bytes`` unchanged, ``str`` encoded."""
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text, encoding="utf-8"):
    """``str`` unchanged, ``bytes`` decoded."""
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


as_str = as_text
as_unicode = as_text


def as_str_any(value):
    return as_str(value) if isinstance(value, bytes) else str(value)


def path_to_str(path):
    return str(path) if hasattr(path, "__fspath__") else path


def __getattr__(name):
    if name in ("v1", "v2"):
        # tideflow *is* the TF 1.x API; tf.compat.v1.X is tf.X
        return _sys.modules["tideflow"]
    raise AttributeError(f"module 'tideflow.compat' has no attribute {name!r}")
