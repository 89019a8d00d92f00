"""``Bijector`` (TF 1.x ``tensorflow.python.ops.distributions.bijector``): the base class of
invertible, differentiable maps ``y = f(x)`` with their log Jacobian determinants, and the
``Identity`` bijector.

Subclasses implement ``_forward``/``_inverse`` and one of
``_forward_log_det_jacobian``/``_inverse_log_det_jacobian`` at ``forward_min_event_ndims``;
the public methods reduce the Jacobian over any further event dimensions, derive the missing
direction's Jacobian from the other, and cache the pairs ``(x, y)`` they have seen so that
``inverse(forward(x))`` returns ``x`` without calling ``_inverse``.
"""

import abc
import re

import numpy as np

import tideflow as tf
from tideflow.framework import ops

__all__ = ["Bijector", "Identity"]


def _camel_to_snake(name):
    s1 = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z0-9])([A-Z])", r"\1_\2", s1).lower()


class _Pair:
    """What is known of one ``(x, y)`` pair: the tensors and the inverse log det Jacobians
    by event_ndims."""

    __slots__ = ("ildj", "x", "y")

    def __init__(self, x=None, y=None):
        self.x = x
        self.y = y
        self.ildj = {}


def _ndims_key(event_ndims):
    return event_ndims if isinstance(event_ndims, int) else ("tensor", id(event_ndims))


class Bijector(metaclass=abc.ABCMeta):
    """An invertible map of tensors with its log Jacobian determinant (TF 1.x)."""

    @abc.abstractmethod
    def __init__(self, graph_parents=None, is_constant_jacobian=False, validate_args=False,
                 dtype=None, forward_min_event_ndims=None, inverse_min_event_ndims=None,
                 name=None):
        self._graph_parents = list(graph_parents or [])
        if forward_min_event_ndims is None and inverse_min_event_ndims is None:
            raise ValueError("Must specify at least one of `forward_min_event_ndims` and "
                             "`inverse_min_event_ndims`.")
        if forward_min_event_ndims is None:
            forward_min_event_ndims = inverse_min_event_ndims
        if inverse_min_event_ndims is None:
            inverse_min_event_ndims = forward_min_event_ndims
        for what, v in (("forward_min_event_ndims", forward_min_event_ndims),
                        ("inverse_min_event_ndims", inverse_min_event_ndims)):
            if not isinstance(v, int):
                raise TypeError(f"Expected int for {what}, got {v!r}")
            if v < 0:
                raise ValueError(f"{what} must be a non-negative integer.")
        self._forward_min_event_ndims = forward_min_event_ndims
        self._inverse_min_event_ndims = inverse_min_event_ndims
        self._is_constant_jacobian = is_constant_jacobian
        self._validate_args = validate_args
        self._dtype = None if dtype is None else tf.as_dtype(dtype)
        self._by_x = {}
        self._by_y = {}
        self._name = name or _camel_to_snake(type(self).__name__.lstrip("_"))

    # -- properties ----------------------------------------------------------------------------
    graph_parents = property(lambda self: list(self._graph_parents))
    forward_min_event_ndims = property(lambda self: self._forward_min_event_ndims)
    inverse_min_event_ndims = property(lambda self: self._inverse_min_event_ndims)
    is_constant_jacobian = property(lambda self: self._is_constant_jacobian)
    validate_args = property(lambda self: self._validate_args)
    dtype = property(lambda self: self._dtype)
    name = property(lambda self: self._name)
    # whether each y has one preimage (TF's non-injective bijectors, e.g. AbsoluteValue, say no)
    _is_injective = True

    # -- event shapes ----------------------------------------------------------------------------
    def forward_event_shape_tensor(self, input_shape, name="forward_event_shape_tensor"):
        with tf.name_scope(self._name), tf.name_scope(name, values=[input_shape]):
            shape = tf.convert_to_tensor(input_shape, dtype=tf.int32, name="input_shape")
            return self._forward_event_shape_tensor(shape)

    def _forward_event_shape_tensor(self, input_shape):
        return input_shape

    def forward_event_shape(self, input_shape):
        return self._forward_event_shape(tf.TensorShape(input_shape))

    def _forward_event_shape(self, input_shape):
        return input_shape

    def inverse_event_shape_tensor(self, output_shape, name="inverse_event_shape_tensor"):
        with tf.name_scope(self._name), tf.name_scope(name, values=[output_shape]):
            shape = tf.convert_to_tensor(output_shape, dtype=tf.int32, name="output_shape")
            return self._inverse_event_shape_tensor(shape)

    def _inverse_event_shape_tensor(self, output_shape):
        return output_shape

    def inverse_event_shape(self, output_shape):
        return self._inverse_event_shape(tf.TensorShape(output_shape))

    def _inverse_event_shape(self, output_shape):
        return output_shape

    # -- the maps ------------------------------------------------------------------------------------
    def _convert(self, value, name):
        value = tf.convert_to_tensor(value, dtype=self._dtype, name=name)
        if self._dtype is not None and value.dtype.base_dtype != self._dtype:
            raise TypeError(f"Input had dtype {value.dtype} but expected {self._dtype}.")
        return value

    def _remember(self, pair):
        if pair.x is not None:
            self._by_x[id(pair.x)] = (pair.x, pair)
        if pair.y is not None:
            self._by_y[id(pair.y)] = (pair.y, pair)

    def _lookup(self, table, key):
        hit = table.get(id(key))
        return hit[1] if hit is not None and hit[0] is key else None

    def forward(self, x, name="forward"):
        """``y = f(x)``."""
        with tf.name_scope(self._name), tf.name_scope(name, values=[x]):
            x = self._convert(x, "x")
            pair = self._lookup(self._by_x, x)
            if pair is not None and pair.y is not None:
                return pair.y
            if not _overrides(self, "_forward"):
                raise NotImplementedError("forward not implemented.")
            pair = pair or _Pair(x=x)
            pair.y = self._forward(x)
            self._remember(pair)
            return pair.y

    def inverse(self, y, name="inverse"):
        """``x = f^{-1}(y)``."""
        with tf.name_scope(self._name), tf.name_scope(name, values=[y]):
            y = self._convert(y, "y")
            pair = self._lookup(self._by_y, y)
            if pair is not None and pair.x is not None:
                return pair.x
            if not _overrides(self, "_inverse"):
                raise NotImplementedError("inverse not implemented.")
            pair = pair or _Pair(y=y)
            pair.x = self._inverse(y)
            self._remember(pair)
            return pair.x

    def _check_event_ndims(self, event_ndims, min_event_ndims):
        """``event_ndims`` as a Python int when static (a tensor otherwise), checked: a
        scalar integer, at least ``min_event_ndims``."""
        if not isinstance(event_ndims, (tf.Tensor, tf.Variable)):
            value = np.asarray(event_ndims)
            if value.ndim != 0:
                raise ValueError(f"Expected scalar event_ndims, got shape {list(value.shape)}")
            if not np.issubdtype(value.dtype, np.integer):
                raise ValueError(f"Expected integer event_ndims, got {event_ndims!r}")
            event_ndims = int(value)
        else:
            if not event_ndims.dtype.is_integer:
                raise ValueError(f"Expected integer event_ndims, got {event_ndims.dtype}")
            static = ops.constant_value(event_ndims)
            if static is not None:
                return self._check_event_ndims(static, min_event_ndims)
            if event_ndims.get_shape().ndims not in (None, 0):
                raise ValueError(f"Expected scalar event_ndims, got shape "
                                 f"{event_ndims.get_shape()}")
            if self._validate_args:
                checks = [tf.assert_rank(event_ndims, 0, message="Expected scalar."),
                          tf.assert_greater_equal(
                              event_ndims, min_event_ndims,
                              message="event_ndims must be larger than min_event_ndims")]
                with tf.control_dependencies(checks):
                    event_ndims = tf.identity(event_ndims)
            return event_ndims
        if event_ndims < min_event_ndims:
            raise ValueError(f"event_ndims ({event_ndims}) must be larger than or equal to "
                             f"min_event_ndims ({min_event_ndims})")
        return event_ndims

    def _reduce(self, point, ildj, min_event_ndims, event_ndims):
        """Sums ``ildj`` over the ``event_ndims - min_event_ndims`` rightmost dimensions of
        ``point`` (a constant Jacobian counts once per element there)."""
        extra = event_ndims - min_event_ndims
        if isinstance(extra, int) and extra == 0:
            return ildj
        rank = tf.rank(point)
        shape = tf.shape(point)[rank - event_ndims:rank - min_event_ndims]
        ones = tf.ones(shape, ildj.dtype)
        return tf.reduce_sum(ones * ildj, tf.range(-extra, 0))

    def inverse_log_det_jacobian(self, y, event_ndims, name="inverse_log_det_jacobian"):
        """``log |det d f^{-1}(y) / dy|`` summed over ``event_ndims`` event dimensions."""
        with tf.name_scope(self._name), tf.name_scope(name, values=[y]):
            event_ndims = self._check_event_ndims(event_ndims, self._inverse_min_event_ndims)
            y = self._convert(y, "y")
            pair = self._lookup(self._by_y, y) or _Pair(y=y)
            key = _ndims_key(event_ndims)
            if key in pair.ildj:
                return pair.ildj[key]
            if _overrides(self, "_inverse_log_det_jacobian"):
                ildj = tf.convert_to_tensor(self._inverse_log_det_jacobian(y))
                ildj = self._reduce(y, ildj, self._inverse_min_event_ndims, event_ndims)
            elif _overrides(self, "_forward_log_det_jacobian"):
                x = pair.x if pair.x is not None else self.inverse(y)
                pair.x = x
                fldj = tf.convert_to_tensor(self._forward_log_det_jacobian(x))
                ndims = event_ndims - self._inverse_min_event_ndims + \
                    self._forward_min_event_ndims
                ildj = -self._reduce(x, fldj, self._forward_min_event_ndims, ndims)
            else:
                raise NotImplementedError("inverse_log_det_jacobian not implemented.")
            pair.ildj[key] = ildj
            self._remember(pair)
            return ildj

    def forward_log_det_jacobian(self, x, event_ndims, name="forward_log_det_jacobian"):
        """``log |det d f(x) / dx|`` summed over ``event_ndims`` event dimensions."""
        with tf.name_scope(self._name), tf.name_scope(name, values=[x]):
            event_ndims = self._check_event_ndims(event_ndims, self._forward_min_event_ndims)
            x = self._convert(x, "x")
            pair = self._lookup(self._by_x, x) or _Pair(x=x)
            key = _ndims_key(event_ndims)
            if key in pair.ildj:
                return -pair.ildj[key]
            if _overrides(self, "_forward_log_det_jacobian"):
                fldj = tf.convert_to_tensor(self._forward_log_det_jacobian(x))
                fldj = self._reduce(x, fldj, self._forward_min_event_ndims, event_ndims)
            elif _overrides(self, "_inverse_log_det_jacobian"):
                y = pair.y if pair.y is not None else self.forward(x)
                pair.y = y
                ildj = tf.convert_to_tensor(self._inverse_log_det_jacobian(y))
                ndims = event_ndims - self._forward_min_event_ndims + \
                    self._inverse_min_event_ndims
                fldj = -self._reduce(y, ildj, self._inverse_min_event_ndims, ndims)
            else:
                raise NotImplementedError("forward_log_det_jacobian not implemented.")
            pair.ildj[key] = -fldj
            self._remember(pair)
            return fldj


def _overrides(obj, method):
    has_impl = getattr(obj, "_has_impl", None)  # a bijector of given functions (Inline)
    if has_impl is not None:
        return has_impl(method)
    fn = getattr(type(obj), method, None)
    return fn is not None and fn is not getattr(Bijector, method, None)


class Identity(Bijector):
    """``y = x``: a constant Jacobian of 1 (log det 0)."""

    def __init__(self, validate_args=False, name="identity"):
        super().__init__(forward_min_event_ndims=0, is_constant_jacobian=True,
                         validate_args=validate_args, name=name)

    def _forward(self, x):
        return x

    def _inverse(self, y):
        return y

    def _inverse_log_det_jacobian(self, y):
        return tf.constant(0.0, dtype=y.dtype)

    def _forward_log_det_jacobian(self, x):
        return tf.constant(0.0, dtype=x.dtype)
