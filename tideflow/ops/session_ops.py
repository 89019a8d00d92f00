"""Tensors kept in a session between runs (``tf.get_session_handle``, ``get_session_tensor``,
``delete_session_tensor``): GetSessionHandle stores its input in the session's state and
returns a handle string; GetSessionTensor reads it back in a later run; DeleteSessionTensor
drops it.

A fetched handle is a ``TensorHandle``: a ``bytes`` (so it feeds and travels as the string it
is) with TF's ``handle``, ``eval()`` and ``delete()``.
"""

import itertools

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape

_ids = itertools.count()


class TensorHandle(bytes):
    """The handle of a tensor stored in a session (a bytes with ``handle``/``eval``/``delete``)."""

    def __new__(cls, handle, dtype, session):
        obj = super().__new__(cls, handle.encode() if isinstance(handle, str) else handle)
        obj._dtype = dtype
        obj._session = session
        return obj

    @property
    def handle(self):
        return self.decode()

    def get_raw_handle(self):
        """The handle string (what ``delete_session_tensor``'s placeholder is fed)."""
        return self.decode()

    def to_numpy_array(self):
        """The handle as the 0-d string array a feed carries."""
        return np.array(bytes(self), dtype=object)

    def __reduce__(self):  # pickles and copies as the plain string it is
        return (bytes, (bytes(self),))

    def eval(self):
        """The stored tensor's value (runs GetSessionTensor in the handle's session)."""
        return self._session.run(self._reader()[1], {self._reader()[0]: self.handle})

    def delete(self):
        """Removes the stored tensor from its session."""
        ph, op = self._deleter()
        self._session.run(op, {ph: self.handle})

    def _cached(self, key, build):
        graph = self._session.graph
        cache = graph.__dict__.setdefault("_tideflow_session_handle_ops", {})
        if key not in cache:
            with graph.as_default():
                cache[key] = build()
        return cache[key]

    def _reader(self):
        return self._cached(("read", self._dtype),
                            lambda: get_session_tensor(self.handle, self._dtype))

    def _deleter(self):
        return self._cached(("delete",), lambda: delete_session_tensor(self.handle))


def _key(handle):
    h = handle.item() if isinstance(handle, np.ndarray) else handle
    return ("session_tensor", bytes(h))


def _get_handle_kernel(value, *, ctx):
    handle = f"{ctx.op.name};{next(_ids)};{ctx.device.name}"
    ctx.session_state[_key(handle.encode())] = value
    return np.array(TensorHandle(handle, ctx.op._inputs[0].dtype.base_dtype, ctx.session),
                    dtype=object)


def _get_tensor_kernel(handle, *, dtype, ctx):
    value = ctx.session_state.get(_key(handle))
    if value is None:
        raise errors.NotFoundError(
            None, None, f"GetSessionTensor: no tensor with handle {bytes(np.asarray(handle).item())!r} "
            "is stored in this session (it was deleted, or made by another session)")
    if np.asarray(value).dtype != np.dtype(dtype.as_numpy_dtype if dtype != dtypes.string
                                           else object):
        raise errors.InvalidArgumentError(
            None, None, f"GetSessionTensor: the stored tensor is {np.asarray(value).dtype}, "
            f"not {dtype.name}")
    return value


def _delete_kernel(handle, *, ctx):
    if ctx.session_state.pop(_key(handle), None) is None:
        raise errors.NotFoundError(None, None, "DeleteSessionTensor: no tensor with handle "
                                   f"{bytes(np.asarray(handle).item())!r} in this session")


op_registry.declare(
    "GetSessionHandle", inputs=["value: T"], outputs=["handle: string"], attrs=["T: type"],
    shape=lambda op: [TensorShape([])], kernel=_get_handle_kernel, stateful=True,
    differentiable=False,
)
op_registry.declare(
    "GetSessionTensor", inputs=["handle: string"], outputs=["value: dtype"],
    attrs=["dtype: type"], shape=lambda op: [TensorShape(None)], kernel=_get_tensor_kernel,
    stateful=True, differentiable=False,
)
op_registry.declare(
    "DeleteSessionTensor", inputs=["handle: string"], outputs=[], shape=lambda op: [],
    kernel=_delete_kernel, stateful=True, differentiable=False,
)


def get_session_handle(data, name=None):
    """A string tensor: running it stores ``data`` in the session and gives its
    TensorHandle."""
    data = ops.convert_to_tensor(data)
    with ops.colocate_with(data):
        return ops.apply_op("GetSessionHandle", [data], name=name)._outputs[0]


def get_session_tensor(handle, dtype, name=None):
    """(placeholder for the handle string, the stored tensor of ``dtype``)."""
    from tideflow.ops.constant_op import placeholder

    del handle  # the device is taken from placement, not parsed from the handle
    ph = placeholder(dtypes.string)
    return ph, ops.apply_op("GetSessionTensor", [ph], {"dtype": dtypes.as_dtype(dtype)},
                            name=name)._outputs[0]


def delete_session_tensor(handle, name=None):
    """(placeholder for the handle string, the op that deletes that tensor)."""
    from tideflow.ops.constant_op import placeholder

    del handle
    ph = placeholder(dtypes.string)
    return ph, ops.apply_op("DeleteSessionTensor", [ph], name=name)
