"""``tensorflow.python.debug`` (tfdbg, imported as ``from tensorflow.python import debug as
tf_debug``): the module and its tensor filter exist so programs that import it run; tfdbg's
debugger sessions and hooks (the curses CLI, dump directories, gRPC streams) are not part of
tideflow and say so when a program builds one."""

import numpy as np


def has_inf_or_nan(datum, tensor):
    """tfdbg's stock tensor filter: True when a float ``tensor`` holds an inf or a NaN
    (``datum`` is the dumped tensor's record, unused here)."""
    del datum
    if tensor is None or not isinstance(tensor, np.ndarray):
        return False  # an uninitialized tensor, or one tfdbg could not load
    if np.issubdtype(tensor.dtype, np.floating) or np.issubdtype(tensor.dtype, np.complexfloating):
        return bool(np.any(~np.isfinite(tensor)))
    return False


class _Unavailable:
    """A tfdbg session wrapper or hook: building one says tideflow has no debugger."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(
            f"tfdbg's {type(self).__name__} is not part of tideflow: tideflow has no tensor "
            "debugger (no CLI, dump directory or debug gRPC stream); run the program without "
            "the debug wrapper or hook")


class LocalCLIDebugWrapperSession(_Unavailable):
    """tfdbg's interactive CLI around a Session (unavailable)."""


class LocalCLIDebugHook(_Unavailable):
    """tfdbg's interactive CLI as a SessionRunHook (unavailable)."""


class DumpingDebugWrapperSession(_Unavailable):
    """tfdbg's tensor dumps to a directory around a Session (unavailable)."""


class DumpingDebugHook(_Unavailable):
    """tfdbg's tensor dumps to a directory as a SessionRunHook (unavailable)."""


class GrpcDebugWrapperSession(_Unavailable):
    """tfdbg's debug gRPC stream around a Session (unavailable)."""


class GrpcDebugHook(_Unavailable):
    """tfdbg's debug gRPC stream as a SessionRunHook (unavailable)."""


class TensorBoardDebugWrapperSession(_Unavailable):
    """TensorBoard's debugger plugin around a Session (unavailable)."""


class TensorBoardDebugHook(_Unavailable):
    """TensorBoard's debugger plugin as a SessionRunHook (unavailable)."""
