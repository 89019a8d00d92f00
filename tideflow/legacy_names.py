"""NumPy 1.x and Python 3.7 as TF 1.x programs knew them: the names NumPy 2 and Python 3.8-3.11
removed, and NumPy 1.x's scalar reprs.

TF 1.15 ran on NumPy 1.x, and its programs print lists of fetched scalars and spell dtypes
``np.float``, ``np.int``, ``np.float_``, ``np.string_``, constants ``np.NaN``, ``np.Inf``, helpers
``np.asscalar``, ``np.product``, ``np.in1d``, write TFRecord features with ``array.tostring()``
and read them back with ``np.fromstring(data, dtype)``. ``import tideflow`` puts these back (only
names NumPy does not define, each with its NumPy 1.x meaning; ``np.fromstring`` keeps NumPy 2's
behaviour wherever NumPy 2 gives one) and prints scalars as NumPy 1.x did. TF 1.15 ran on
Python 3.5-3.7 too, whose ``time.clock``, ``collections.Iterable`` (and the other ABCs),
``Thread.isAlive``, ``inspect.getargspec``, ``base64.encodestring`` and ``fractions.gcd`` later
versions removed: put back the same way. ``TIDEFLOW_NUMPY_PRINTING=numpy`` keeps NumPy's
printing and ``TIDEFLOW_LEGACY_NAMES=0`` leaves every name out.
"""

import builtins
import collections
import math
import warnings

import numpy as np

from tideflow import env


def _scalar_printing():
    """Fetched scalars print as ``[1.0, 0.5]``, not NumPy 2's ``[np.float32(1.0), ...]``: only
    scalars' repr changes (NumPy's ``legacy='1.25'``), only when the program has not chosen a
    legacy mode itself."""
    if env.numpy_printing() == "numpy":
        return
    if np.get_printoptions().get("legacy") is False:
        np.set_printoptions(legacy="1.25")


def _asscalar(a):
    return a.item()


def _msort(a):
    return np.sort(a, axis=0)


def _in1d(ar1, ar2, assume_unique=False, invert=False):
    return np.isin(np.asarray(ar1).ravel(), ar2, assume_unique=assume_unique, invert=invert)


def _asfarray(a, dtype=np.float64):
    if not np.issubdtype(dtype, np.inexact):
        dtype = np.float64
    return np.asarray(a, dtype=dtype)


class _Cast(dict):
    """``np.cast[np.float32](x)``: ``x`` as an array of that type."""

    def __missing__(self, key):
        t = np.dtype(key).type

        def cast(x):
            return np.asarray(x).astype(t)

        self[key] = cast
        return cast


def _fromstring_of(numpy_fromstring):
    def fromstring(string, dtype=float, count=-1, *, sep="", **kwargs):
        """NumPy 1.x's binary mode (``sep=''``) too: a copy of the bytes read as ``dtype``."""
        if sep == "" and not isinstance(string, str) and not kwargs:
            return np.frombuffer(string, dtype=dtype, count=count).copy()
        return numpy_fromstring(string, dtype=dtype, count=count, sep=sep, **kwargs)

    fromstring.__wrapped__ = numpy_fromstring
    return fromstring


def _ptp(self, axis=None, out=None, keepdims=False):
    return np.ptp(self, axis=axis, out=out, keepdims=keepdims)


def _add_methods(cls, methods):
    """Adds the methods ``cls`` lacks to a built-in type's own dict (it refuses setattr): the
    methods NumPy 2 removed from arrays and scalars. CPython only; elsewhere nothing happens."""
    import ctypes
    import gc

    missing = {k: v for k, v in methods.items() if not hasattr(cls, k)}
    if not missing:
        return
    refs = gc.get_referents(cls.__dict__)
    if len(refs) != 1 or not isinstance(refs[0], dict) or not hasattr(ctypes, "pythonapi"):
        return
    refs[0].update(missing)
    ctypes.pythonapi.PyType_Modified(ctypes.py_object(cls))


def _removed_names():
    return {
        # the builtin types NumPy 1.x re-exported
        "float": builtins.float, "int": builtins.int, "object": builtins.object,
        "str": builtins.str, "unicode": builtins.str, "complex": builtins.complex,
        # scalar type aliases
        "float_": np.float64, "complex_": np.complex128, "cfloat": np.complex128,
        "singlecomplex": np.complex64, "longfloat": np.longdouble,
        "clongfloat": np.clongdouble, "longcomplex": np.clongdouble,
        "string_": np.bytes_, "unicode_": np.str_, "str0": np.str_, "bytes0": np.bytes_,
        "bool8": np.bool_, "object0": np.object_, "void0": np.void,
        "int0": np.intp, "uint0": np.uintp,
        # constants
        "NaN": np.nan, "NAN": np.nan, "Inf": np.inf, "Infinity": np.inf, "PINF": np.inf,
        "infty": np.inf, "NINF": -np.inf, "PZERO": 0.0, "NZERO": -0.0,
        # functions
        "asscalar": _asscalar, "alltrue": np.all, "sometrue": np.any, "product": np.prod,
        "cumproduct": np.cumprod, "round_": np.round, "msort": _msort, "in1d": _in1d,
        "asfarray": _asfarray, "trapz": getattr(np, "trapezoid", None), "mat": np.asmatrix,
        "cast": _Cast(), "typeDict": np.sctypeDict,
        # the standard modules NumPy 1.x re-exported
        "math": math, "warnings": warnings,
    }


_ArgSpec = collections.namedtuple("ArgSpec", "args varargs keywords defaults")


def _getargspec(func):
    """Python 3.7's ``inspect.getargspec``: refuses keyword-only arguments and annotations."""
    import inspect

    spec = inspect.getfullargspec(func)
    if spec.kwonlyargs or spec.annotations:
        raise ValueError("Function has keyword-only parameters or annotations, use "
                         "inspect.signature() API which can support them")
    return _ArgSpec(spec.args, spec.varargs, spec.varkw, spec.defaults)


def _python_names():
    """(module, name, value) of what Python 3.8-3.11 removed and TF 1.x programs still call."""
    import base64
    import collections.abc
    import fractions
    import inspect
    import threading
    import time

    out = [(time, "clock", time.perf_counter),
           (threading.Thread, "isAlive", threading.Thread.is_alive),
           (inspect, "getargspec", _getargspec),
           (base64, "encodestring", base64.encodebytes),
           (base64, "decodestring", base64.decodebytes),
           (fractions, "gcd", math.gcd)]
    out += [(collections, name, getattr(collections.abc, name))
            for name in collections.abc.__all__ if not name.startswith("_")]
    return out


def _define_missing(names):
    """Sets each (owner, name, value) whose owner does not define that name itself."""
    for owner, name, value in names:
        if value is not None and name not in vars(owner):
            setattr(owner, name, value)


def install():
    """NumPy 1.x's scalar printing and the removed names (see the module's docstring)."""
    legacy = env.legacy_names()
    if legacy:
        _define_missing(_python_names())
    if int(np.__version__.split(".")[0]) < 2:
        return
    _scalar_printing()
    if not legacy:
        return
    _define_missing((np, name, value) for name, value in _removed_names().items())
    if getattr(np.fromstring, "__wrapped__", None) is None:
        np.fromstring = _fromstring_of(np.fromstring)
    _add_methods(np.ndarray, {"tostring": np.ndarray.tobytes, "ptp": _ptp})
    _add_methods(np.generic, {"tostring": np.generic.tobytes})
