"""TF 1.15's ``AutoCastVariable``: a layer's float32 weight that a mixed-precision layer reads
in its compute dtype (a ``Cast`` after each read made while the layer's call runs)."""

import contextlib
import threading

from tideflow.framework import dtypes, ops
from tideflow.ops import variables

_state = threading.local()


def _read_dtype():
    return getattr(_state, "dtype", None)


@contextlib.contextmanager
def autocast_context(dtype):
    """Reads of autocast variables made inside are in ``dtype`` (None: as they are), as a
    Keras layer's call in TF 1.15 sets its graph's read dtype to its compute dtype."""
    before = _read_dtype()
    _state.dtype = None if dtype is None else dtypes.as_dtype(dtype)
    try:
        yield
    finally:
        _state.dtype = before


class AutoCastVariable(variables.ResourceVariable):
    """The same variable (it shares the wrapped one's state, so updates, gradients, savers and
    initializers see one variable); only its reads differ: cast to the autocast dtype of the
    layer call they are made in. ``dtype`` stays the variable's own, as TF's."""

    def _cast_to(self):
        want = _read_dtype()
        if (want is None or not want.is_floating or not self.dtype.is_floating
                or want == self.dtype.base_dtype):
            return None
        return want

    def value(self):
        val = super().value()
        want = self._cast_to()
        return val if want is None else _cast(val, want)

    def read_value(self):
        val = super().read_value()
        want = self._cast_to()
        return val if want is None else _cast(val, want)

    def __repr__(self):
        return (f"<AutoCastVariable '{self.name}' shape={variables._shape_repr(self.shape)} "
                f"dtype={self.dtype.name} true_dtype={self.dtype.name}>")


def _cast(x, dtype):
    from tideflow.ops.cast_ops import cast

    return cast(x, dtype)  # ('Cast', in the scope of the op reading the variable, as TF's)


def create_autocast_variable(variable):
    """``variable`` as an AutoCastVariable (the same state)."""
    wrapped = object.__new__(AutoCastVariable)
    wrapped.__dict__ = variable.__dict__
    return wrapped


def _convert(v, dtype=None, name=None, as_ref=False):
    if as_ref:
        return v._ref()
    val = v.value()
    if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(val.dtype):
        raise ValueError(f"Incompatible type conversion requested to type "
                         f"'{dtypes.as_dtype(dtype).name}' for variable of type "
                         f"'{val.dtype.name}'")
    return val


# (before the plain variables' conversion, which would refuse a read in the compute dtype)
ops.register_tensor_conversion_function(AutoCastVariable, _convert, priority=99)
