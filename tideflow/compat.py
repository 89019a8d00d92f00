"""``tf.compat``: bytes/text conversions, ``tf.compat.v1`` (this API itself) and ``tf.compat.v2``
(the TF 2 spelling, ``tideflow.compat_v2``)."""

import importlib as _importlib
import importlib.abc as _importlib_abc
import importlib.util as _importlib_util
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


def dimension_value(dimension):
    """The int (or None) of a ``Dimension``; ints and None pass through."""
    from tideflow.ops.misc_ops import dimension_value as fn

    return fn(dimension)


def dimension_at_index(shape, index):
    """``Dimension`` ``index`` of ``shape`` (unknown when the rank is unknown)."""
    from tideflow.ops.misc_ops import dimension_at_index as fn

    return fn(shape, index)


# TF 1.15.0's forward-compatibility horizon, so code gated on a later date builds the graphs
# TF 1.15 builds (asin's gradient as grad * reciprocal(...), not Xdivy)
_FORWARD_COMPAT_DATE = [(2019, 8, 21)]


def forward_compatible(year, month, day):
    """True when the graphs built here may use features TF adopted before the given date."""
    return _FORWARD_COMPAT_DATE[0] > (year, month, day)


class forward_compatibility_horizon:
    """Context manager moving the forward-compatibility date (for tests)."""

    def __init__(self, year, month, day):
        self._date = (year, month, day)

    def __enter__(self):
        self._old = _FORWARD_COMPAT_DATE[0]
        _FORWARD_COMPAT_DATE[0] = self._date
        return self

    def __exit__(self, *exc):
        _FORWARD_COMPAT_DATE[0] = self._old
        return False


def __getattr__(name):
    if name == "v1":
        # tideflow *is* the TF 1.x API; tf.compat.v1.X is tf.X
        return _sys.modules["tideflow"]
    if name == "v2":  # the TF 2 spelling of the API (tideflow.compat_v2)
        return _importlib.import_module("tideflow.compat_v2").v2
    if name == "collections_abc":  # ``tensorflow.python.util.compat.collections_abc``
        import collections.abc

        return collections.abc
    raise AttributeError(f"module 'tideflow.compat' has no attribute {name!r}")


class _V1AliasFinder(_importlib_abc.MetaPathFinder, _importlib_abc.Loader):
    """``import tideflow.compat.v1 as tf`` (TF 1.14+ programs' spelling) and
    ``from tideflow.compat.v1.X import Y``: ``tideflow.compat.v1.X`` is ``tideflow.X``,
    the same module object (never a second copy of it)."""

    _PREFIX = __name__ + ".v1"

    def find_spec(self, fullname, path=None, target=None):
        if fullname == __name__ + ".v2":
            return _importlib_util.spec_from_loader(fullname, self)
        if fullname != self._PREFIX and not fullname.startswith(self._PREFIX + "."):
            return None
        return _importlib_util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        if spec.name == __name__ + ".v2":
            return _importlib.import_module("tideflow.compat_v2").v2
        real = "tideflow" + spec.name[len(self._PREFIX):]
        return _importlib.import_module(real)

    def exec_module(self, module):
        pass


if not any(isinstance(f, _V1AliasFinder) for f in _sys.meta_path):
    _sys.meta_path.insert(0, _V1AliasFinder())
# the parent check of the import system runs before any finder: register v1 itself, and give
# this module an (empty) package path so ``import tideflow.compat.v2`` reaches the finder
__path__ = []
_sys.modules.setdefault(__name__ + ".v1", _sys.modules["tideflow"])
