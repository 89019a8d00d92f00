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

    # -- TF 1.15's log det Jacobians: the ops it builds (the event_ndims constant, a sum over the
    # event dims even when there are none beyond the minimum), and its caches ----------------------
    def _constant_ildj_map(self):
        """The log det Jacobians of a constant-Jacobian bijector by event_ndims (TF reuses
        the first one made for every later point)."""
        return self.__dict__.setdefault("_constant_ildj", {})

    def _event_ndims_checks(self, min_event_ndims, event_ndims):
        """TF's checks of ``event_ndims`` (made a tensor, ``event_ndims``): static errors, or
        assertions to depend on when validating a dynamic one."""
        event_ndims = tf.convert_to_tensor(event_ndims, name="event_ndims")
        static = ops.constant_value(event_ndims)
        checks = []
        if not event_ndims.dtype.is_integer:
            raise ValueError(f"Expected integer dtype, got dtype {event_ndims.dtype}")
        if static is not None:
            if event_ndims.get_shape().ndims != 0:
                raise ValueError(f"Expected scalar event_ndims, got shape "
                                 f"{event_ndims.get_shape()}")
            if min_event_ndims > static:
                raise ValueError(f"event_ndims ({static}) must be larger than min_event_ndims "
                                 f"({min_event_ndims})")
        elif self._validate_args:
            checks.append(tf.assert_greater_equal(event_ndims, min_event_ndims))
        if event_ndims.get_shape().is_fully_defined():
            if event_ndims.get_shape().ndims != 0:
                raise ValueError(f"Expected scalar shape, got ndims "
                                 f"{event_ndims.get_shape().ndims}")
        elif self._validate_args:
            checks.append(tf.assert_rank(event_ndims, 0, message="Expected scalar."))
        return checks

    @staticmethod
    def _static_event_ndims(event_ndims):
        if isinstance(event_ndims, (tf.Tensor, tf.Variable)):
            value = ops.constant_value(event_ndims)
        else:
            value = event_ndims
        if isinstance(value, (np.generic, np.ndarray)):
            if value.dtype not in (np.int32, np.int64):
                raise ValueError(f"Expected integer dtype, got dtype {value.dtype}")
            if isinstance(value, np.ndarray) and value.shape:
                raise ValueError(f"Expected a scalar integer, got {value}")
            value = int(value)
        return value

    def _reduce_over_event(self, point, ildj, min_event_ndims, event_ndims):
        """``ildj`` tiled over and summed across the event dims of ``point`` beyond
        ``min_event_ndims`` (TF builds the sum even when there are none)."""
        rank = tf.rank(point)
        shape = tf.shape(point)[rank - event_ndims:rank - min_event_ndims]
        ones = tf.ones(shape, ildj.dtype)
        static = self._static_event_ndims(event_ndims)
        if static is not None:
            dims = [-i for i in range(1, static - min_event_ndims + 1)]
        else:
            dims = tf.range(-(event_ndims - min_event_ndims), 0)
        reduced = tf.reduce_sum(ones * ildj, axis=dims)
        if (static is not None and point.get_shape().ndims is not None
                and ildj.get_shape().ndims is not None):
            ndims = point.get_shape().ndims
            point_shape = point.get_shape()[ndims - static:ndims - min_event_ndims]
            both = tf.broadcast_static_shape(ildj.get_shape(), point_shape)
            reduced.set_shape(both[:both.ndims - (static - min_event_ndims)])
        return reduced

    def inverse_log_det_jacobian(self, y, event_ndims, name="inverse_log_det_jacobian"):
        """``log |det d f^{-1}(y) / dy|`` summed over ``event_ndims`` event dimensions."""
        with tf.name_scope(self._name), tf.name_scope(name, values=[y]):
            key = _ndims_key(event_ndims)
            if key in self._constant_ildj_map():
                return self._constant_ildj_map()[key]
            y = self._convert(y, "y")
            checks = self._event_ndims_checks(self._inverse_min_event_ndims, event_ndims)
            with tf.control_dependencies(checks):
                pair = self._lookup(self._by_y, y) or _Pair(y=y)
                if key in pair.ildj:
                    return pair.ildj[key]
                return self._new_ildj(pair, key, event_ndims, y, from_y=True)

    def forward_log_det_jacobian(self, x, event_ndims, name="forward_log_det_jacobian"):
        """``log |det d f(x) / dx|`` summed over ``event_ndims`` event dimensions."""
        if not self._is_injective:
            raise NotImplementedError("forward_log_det_jacobian cannot be implemented for "
                                      "non-injective transforms.")
        with tf.name_scope(self._name), tf.name_scope(name, values=[x]):
            checks = self._event_ndims_checks(self._forward_min_event_ndims, event_ndims)
            with tf.control_dependencies(checks):
                key = _ndims_key(event_ndims)
                if key in self._constant_ildj_map():
                    return -1.0 * self._constant_ildj_map()[key]
                x = self._convert(x, "x")
                pair = self._lookup(self._by_x, x) or _Pair(x=x)
                if key in pair.ildj:
                    return -pair.ildj[key]
                return -self._new_ildj(pair, key, event_ndims, x, from_y=False)

    def _new_ildj(self, pair, key, event_ndims, point, from_y):
        """The inverse log det Jacobian at ``pair`` (``point`` its y when ``from_y``, else its
        x), from the subclass's method for that side when it has one, else from the other
        side's at the other point (computed and kept in the pair); cached as TF does."""
        def at_y(y):
            ildj = tf.convert_to_tensor(self._inverse_log_det_jacobian(y))
            return self._reduce_over_event(y, ildj, self._inverse_min_event_ndims, event_ndims)

        def at_x(x):
            ildj = -tf.convert_to_tensor(self._forward_log_det_jacobian(x))
            return self._reduce_over_event(x, ildj, self._forward_min_event_ndims, event_ndims)

        sides = [("_inverse_log_det_jacobian", at_y, "y", self._forward),
                 ("_forward_log_det_jacobian", at_x, "x", self._inverse)]
        (own, own_at, _, _), (other, other_at, other_name, to_other) = \
            sides if from_y else sides[::-1]
        if _overrides(self, own):
            ildj = own_at(point)
        elif _overrides(self, other):
            at = getattr(pair, other_name)
            if at is None:
                at = to_other(point)
                setattr(pair, other_name, at)
            ildj = other_at(at)
        else:
            raise NotImplementedError(f"{'inverse' if from_y else 'forward'}_log_det_jacobian "
                                      "not implemented.")
        pair.ildj[key] = ildj
        self._remember(pair)
        if self._is_constant_jacobian:
            self._constant_ildj_map()[key] = ildj
        return ildj


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
