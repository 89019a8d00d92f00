"""The ``tf.distributions.Distribution`` base class, reparameterization types and the KL
divergence registry (``kl_divergence``, ``RegisterKL``), as in TF 1.x.

A distribution holds parameter tensors; each method builds graph ops under the
distribution's name scope (``Normal/log_prob/...``). Shapes follow TF: a sample has shape
``sample_shape + batch_shape + event_shape``.
"""

import contextlib

import numpy as np

import tideflow as tf
from tideflow.distributions.util import pick_vector
from tideflow.framework import ops


class ReparameterizationType:
    """Whether samples are a differentiable function of the parameters
    (``FULLY_REPARAMETERIZED``) or not (``NOT_REPARAMETERIZED``)."""

    def __init__(self, rep_type):
        self._rep_type = rep_type

    def __repr__(self):
        return f"<Reparameteriation Type: {self._rep_type}>"

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__


FULLY_REPARAMETERIZED = ReparameterizationType("FULLY_REPARAMETERIZED")
NOT_REPARAMETERIZED = ReparameterizationType("NOT_REPARAMETERIZED")


class Distribution:
    """A batch of probability distributions (TF 1.x ``tf.distributions.Distribution``).

    Subclasses implement ``_batch_shape``/``_batch_shape_tensor``, ``_event_shape``/
    ``_event_shape_tensor``, ``_sample_n(n, seed)`` and the statistics they support
    (``_log_prob``, ``_cdf``, ``_entropy``, ``_mean``, ``_variance``, ``_mode``...); the
    public methods derive the rest (``prob`` from ``log_prob``, ``stddev`` from
    ``variance``...) and raise NotImplementedError for what is not defined.
    """

    def __init__(self, dtype, reparameterization_type, validate_args, allow_nan_stats,
                 parameters=None, graph_parents=None, name=None):
        if not isinstance(reparameterization_type, ReparameterizationType):
            raise TypeError(f"reparameterization_type must be a ReparameterizationType, got "
                            f"{reparameterization_type!r}")
        self._dtype = dtype
        self._reparameterization_type = reparameterization_type
        self._allow_nan_stats = allow_nan_stats
        self._validate_args = validate_args
        self._parameters = dict(parameters or {})
        self._parameters.pop("self", None)
        self._parameters.pop("__class__", None)  # the cell of super() in locals()
        self._graph_parents = list(graph_parents or [])
        self._name = name or type(self).__name__

    # -- properties ---------------------------------------------------------------------------
    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    @property
    def parameters(self):
        """The constructor's arguments (a dict)."""
        return dict(self._parameters)

    @property
    def reparameterization_type(self):
        return self._reparameterization_type

    @property
    def allow_nan_stats(self):
        return self._allow_nan_stats

    @property
    def validate_args(self):
        return self._validate_args

    @property
    def graph_parents(self):
        return list(self._graph_parents)

    def copy(self, **override_parameters_kwargs):
        """A new distribution of this type with some constructor arguments replaced."""
        params = dict(self.parameters)
        params.update(override_parameters_kwargs)
        return type(self)(**params)

    @contextlib.contextmanager
    def _name_scope(self, name=None, values=None):
        with tf.name_scope(self.name), tf.name_scope(name, values=values) as scope:
            yield scope

    # -- parameter shapes -------------------------------------------------------------------------
    @classmethod
    def param_shapes(cls, sample_shape, name="DistributionParamShapes"):
        """The shapes (int32 tensors) each parameter needs for ``sample()`` to have shape
        ``sample_shape``: a dict keyed by parameter name."""
        with tf.name_scope(name, values=[sample_shape]):
            return cls._param_shapes(sample_shape)

    @classmethod
    def param_static_shapes(cls, sample_shape):
        """``param_shapes`` for a known ``sample_shape`` (a list, tuple or fully-defined
        ``TensorShape``): a dict of ``TensorShape``."""
        if isinstance(sample_shape, tf.TensorShape):
            if not sample_shape.is_fully_defined():
                raise ValueError("TensorShape sample_shape must be fully defined")
            sample_shape = sample_shape.as_list()
        params = cls.param_shapes(sample_shape)
        static = {}
        for name, shape in params.items():
            value = ops.constant_value(shape)
            if value is None:
                raise ValueError("sample_shape must be a fully-defined TensorShape or "
                                 "list/tuple")
            static[name] = tf.TensorShape([int(d) for d in np.reshape(value, -1)])
        return static

    @staticmethod
    def _param_shapes(sample_shape):
        raise NotImplementedError("_param_shapes not implemented")

    # -- shapes --------------------------------------------------------------------------------
    @property
    def batch_shape(self):
        """The static ``TensorShape`` of the batch of distributions."""
        return tf.TensorShape(self._batch_shape())

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        with self._name_scope(name):
            if self.batch_shape.is_fully_defined():
                return tf.convert_to_tensor(self.batch_shape.as_list(), dtype=tf.int32,
                                            name="batch_shape")
            return self._batch_shape_tensor()

    @property
    def event_shape(self):
        """The static ``TensorShape`` of one draw of one distribution."""
        return tf.TensorShape(self._event_shape())

    def event_shape_tensor(self, name="event_shape_tensor"):
        with self._name_scope(name):
            if self.event_shape.is_fully_defined():
                return tf.convert_to_tensor(self.event_shape.as_list(), dtype=tf.int32,
                                            name="event_shape")
            return self._event_shape_tensor()

    def is_scalar_event(self, name="is_scalar_event"):
        with self._name_scope(name):
            return tf.convert_to_tensor(
                self._is_scalar(self.event_shape, self.event_shape_tensor),
                name="is_scalar_event")

    def is_scalar_batch(self, name="is_scalar_batch"):
        with self._name_scope(name):
            return tf.convert_to_tensor(
                self._is_scalar(self.batch_shape, self.batch_shape_tensor),
                name="is_scalar_batch")

    @staticmethod
    def _is_scalar(static_shape, shape_fn):
        """Whether a shape is scalar: a Python bool when its rank (or the length of its shape
        tensor) is known, else the graph's test of the length."""
        if static_shape.ndims is not None:
            return static_shape.ndims == 0
        shape = shape_fn()
        if shape.get_shape().ndims is not None and shape.get_shape()[0].value is not None:
            return shape.get_shape()[0].value == 0
        return tf.equal(tf.shape(shape)[0], 0)

    def _event_shape(self):
        return tf.TensorShape([])

    def _event_shape_tensor(self):
        return tf.constant([], dtype=tf.int32)

    # -- sampling --------------------------------------------------------------------------------
    def sample(self, sample_shape=(), seed=None, name="sample"):
        """Draws: a tensor of shape ``sample_shape + batch_shape + event_shape``."""
        with self._name_scope(name, values=[sample_shape]):
            shape_t = tf.convert_to_tensor(sample_shape, dtype=tf.int32, name="sample_shape")
            shape_t, n = self._sample_shape_vector(shape_t, "sample_shape")
            draws = self._sample_n(n, seed)
            rest = tf.shape(draws)[1:]
            out = tf.reshape(draws, tf.concat([shape_t, rest], 0))
            return self._set_sample_static_shape(out, shape_t)

    @staticmethod
    def _sample_shape_vector(shape_t, name):
        """``(shape as a vector, number of draws)``, the ops TF 1.x builds for them: the count
        is a NumPy int32 when the shape is static (subclasses test ``n == 1``), a scalar
        static shape becomes a new constant named ``name``."""
        value = ops.constant_value(shape_t)
        n = tf.reduce_prod(shape_t) if value is None else np.prod(value, dtype=np.int32)
        ndims = shape_t.get_shape().ndims
        if ndims is None:
            rank = tf.rank(shape_t)
            vector = pick_vector(tf.equal(rank, 0), np.array([1], dtype=np.int32),
                                 tf.shape(shape_t))
            shape_t = tf.reshape(shape_t, vector)
        elif ndims == 0:
            if value is not None:
                shape_t = tf.convert_to_tensor(np.array([value], dtype=np.int32), name=name)
            else:
                shape_t = tf.reshape(shape_t, [1])
        elif ndims != 1:
            raise ValueError("Input is neither scalar nor vector.")
        return shape_t, n

    def _set_sample_static_shape(self, x, shape_t):
        """``x`` with the static shape its sample, batch and event shapes give."""
        value = ops.constant_value(shape_t)
        sample = tf.TensorShape(None if value is None else
                                [int(d) for d in np.reshape(value, -1)])
        batch, event = self.batch_shape, self.event_shape
        ndims = x.get_shape().ndims
        if ndims is None and None not in (sample.ndims, batch.ndims, event.ndims):
            ndims = sample.ndims + batch.ndims + event.ndims
            x.set_shape([None] * ndims)
        if ndims is not None and sample.ndims is not None:
            x.set_shape(sample.concatenate([None] * (ndims - sample.ndims)))
        if ndims is not None and event.ndims is not None:
            x.set_shape(tf.TensorShape([None] * (ndims - event.ndims)).concatenate(event))
        if batch.ndims is not None and ndims is not None:
            s_nd, e_nd = sample.ndims, event.ndims
            if s_nd is None and e_nd is not None:
                s_nd = ndims - batch.ndims - e_nd
            elif e_nd is None and s_nd is not None:
                e_nd = ndims - batch.ndims - s_nd
            if s_nd is not None and e_nd is not None:
                x.set_shape(tf.TensorShape([None] * s_nd).concatenate(batch)
                            .concatenate([None] * e_nd))
        return x

    def _sample_n(self, n, seed):
        raise NotImplementedError(f"sample_n is not implemented: {type(self).__name__}")

    # -- statistics ---------------------------------------------------------------------------------
    def _call(self, method, name, value=None):
        with self._name_scope(name, values=None if value is None else [value]):
            if value is not None:
                value = tf.convert_to_tensor(value, name="value", preferred_dtype=self.dtype)
                return method(value)
            return method()

    def log_prob(self, value, name="log_prob"):
        """The log of the probability (density or mass) of ``value``."""
        if _overrides(self, "_log_prob"):
            return self._call(self._log_prob, name, value)
        if _overrides(self, "_prob"):
            return self._call(lambda v: tf.log(self._prob(v)), name, value)
        raise NotImplementedError(f"log_prob is not implemented: {type(self).__name__}")

    def prob(self, value, name="prob"):
        """The probability (density or mass) of ``value``."""
        if _overrides(self, "_prob"):
            return self._call(self._prob, name, value)
        if _overrides(self, "_log_prob"):
            return self._call(lambda v: tf.exp(self._log_prob(v)), name, value)
        raise NotImplementedError(f"prob is not implemented: {type(self).__name__}")

    def cdf(self, value, name="cdf"):
        """``P[X <= value]``."""
        if _overrides(self, "_cdf"):
            return self._call(self._cdf, name, value)
        if _overrides(self, "_log_cdf"):
            return self._call(lambda v: tf.exp(self._log_cdf(v)), name, value)
        raise NotImplementedError(f"cdf is not implemented: {type(self).__name__}")

    def log_cdf(self, value, name="log_cdf"):
        if _overrides(self, "_log_cdf"):
            return self._call(self._log_cdf, name, value)
        if _overrides(self, "_cdf"):
            return self._call(lambda v: tf.log(self._cdf(v)), name, value)
        raise NotImplementedError(f"log_cdf is not implemented: {type(self).__name__}")

    def survival_function(self, value, name="survival_function"):
        """``P[X > value] = 1 - cdf(value)``."""
        if _overrides(self, "_survival_function"):
            return self._call(self._survival_function, name, value)
        if _overrides(self, "_cdf") or _overrides(self, "_log_cdf"):
            return self._call(lambda v: 1.0 - self.cdf(v), name, value)
        raise NotImplementedError(f"survival_function is not implemented: "
                                  f"{type(self).__name__}")

    def log_survival_function(self, value, name="log_survival_function"):
        """``log(P[X > value])``."""
        if _overrides(self, "_log_survival_function"):
            return self._call(self._log_survival_function, name, value)
        if _overrides(self, "_cdf") or _overrides(self, "_log_cdf"):
            return self._call(lambda v: tf.log1p(-self.cdf(v)), name, value)
        raise NotImplementedError(f"log_survival_function is not implemented: "
                                  f"{type(self).__name__}")

    def quantile(self, value, name="quantile"):
        if _overrides(self, "_quantile"):
            return self._call(self._quantile, name, value)
        raise NotImplementedError(f"quantile is not implemented: {type(self).__name__}")

    def entropy(self, name="entropy"):
        """The Shannon entropy (nats)."""
        return self._stat("_entropy", name)

    def mean(self, name="mean"):
        return self._stat("_mean", name)

    def mode(self, name="mode"):
        return self._stat("_mode", name)

    def variance(self, name="variance"):
        if _overrides(self, "_variance"):
            return self._stat("_variance", name)
        if _overrides(self, "_stddev"):
            with self._name_scope(name):
                return tf.square(self._stddev())
        raise NotImplementedError(f"variance is not implemented: {type(self).__name__}")

    def stddev(self, name="stddev"):
        if _overrides(self, "_stddev"):
            return self._stat("_stddev", name)
        if _overrides(self, "_variance"):
            with self._name_scope(name):
                return tf.sqrt(self._variance())
        raise NotImplementedError(f"stddev is not implemented: {type(self).__name__}")

    def covariance(self, name="covariance"):
        return self._stat("_covariance", name)

    def _stat(self, method, name):
        if not _overrides(self, method):
            raise NotImplementedError(f"{method[1:]} is not implemented: "
                                      f"{type(self).__name__}")
        with self._name_scope(name):
            return getattr(self, method)()

    def cross_entropy(self, other, name="cross_entropy"):
        """``H[self, other] = entropy(self) + KL(self || other)``."""
        with self._name_scope(name):
            return cross_entropy(self, other, allow_nan_stats=self.allow_nan_stats)

    def kl_divergence(self, other, name="kl_divergence"):
        with self._name_scope(name):
            return kl_divergence(self, other, allow_nan_stats=self.allow_nan_stats)

    def __str__(self):
        batch = (f", batch_shape={self.batch_shape}" if self.batch_shape.ndims is not None
                 else "")
        event = (f", event_shape={self.event_shape}" if self.event_shape.ndims is not None
                 else "")
        return (f"tfp.distributions.{type(self).__name__}(\"{self.name}\"{batch}{event}, "
                f"dtype={self.dtype.name})")

    def __repr__(self):
        return (f"<tfp.distributions.{type(self).__name__} '{self.name}' batch_shape="
                f"{self.batch_shape} event_shape={self.event_shape} dtype={self.dtype.name}>")

    # -- helpers for subclasses ---------------------------------------------------------------------
    def _nan_where(self, bad, value, what, above_one=()):
        """``value`` with NaN where ``bad``; with ``allow_nan_stats=False`` instead TF's
        assertions that each tensor of ``above_one`` exceeds 1 (``Condition x < y``, with the
        message ``what``)."""
        if self.allow_nan_stats:
            nan = tf.fill(tf.shape(value), np.array(np.nan, value.dtype.as_numpy_dtype))
            return tf.where(bad, nan, value)
        one = tf.ones([], value.dtype)
        checks = [tf.assert_less(one, t, message=what) for t in above_one]
        with tf.control_dependencies(checks):
            return tf.identity(value)


def _overrides(obj, method):
    fn = getattr(type(obj), method, None)
    return fn is not None and fn is not getattr(Distribution, method, None)


# ---------------------------------------------------------------------------------------------
# KL divergence
# ---------------------------------------------------------------------------------------------

_KL = {}


def _lookup_kl(type_a, type_b):
    best, best_dist = None, None
    for a_i, a in enumerate(type_a.__mro__):
        for b_i, b in enumerate(type_b.__mro__):
            fn = _KL.get((a, b))
            if fn is not None and (best_dist is None or a_i + b_i < best_dist):
                best, best_dist = fn, a_i + b_i
    return best


def kl_divergence(distribution_a, distribution_b, allow_nan_stats=True, name=None):
    """``KL(distribution_a || distribution_b)``, by the function registered (``RegisterKL``)
    for the pair of types (or the nearest registered parent classes)."""
    fn = _lookup_kl(type(distribution_a), type(distribution_b))
    if fn is None:
        raise NotImplementedError(f"No KL(distribution_a || distribution_b) registered for "
                                  f"distribution_a type {type(distribution_a).__name__} and "
                                  f"distribution_b type {type(distribution_b).__name__}")
    with tf.name_scope("KullbackLeibler"):
        kl = fn(distribution_a, distribution_b, name=name)
        if allow_nan_stats:
            return kl
        kl = tf.identity(kl, name="kl")
        check = tf.Assert(tf.logical_not(tf.reduce_any(tf.is_nan(kl))),
                          [(f"KL calculation between {distribution_a.name} and "
                           f"{distribution_b.name} returned NaN values (and was called with "
                           f"allow_nan_stats=False). Values:"), kl])
        with tf.control_dependencies([check]):
            return tf.identity(kl)


def cross_entropy(ref, other, allow_nan_stats=True, name=None):
    """``H[ref, other] = entropy(ref) + KL(ref || other)``, in nats."""
    with tf.name_scope(name, "cross_entropy"):
        return ref.entropy() + kl_divergence(ref, other, allow_nan_stats=allow_nan_stats)


# the names TF 1.x's kullback_leibler module gives the registry and its look-up
_DIVERGENCES = _KL
_registered_kl = _lookup_kl


class RegisterKL:
    """A decorator registering ``fn(dist_a, dist_b, name=None)`` as the KL divergence of the
    two distribution classes."""

    def __init__(self, dist_cls_a, dist_cls_b):
        self._key = (dist_cls_a, dist_cls_b)

    def __call__(self, kl_fn):
        if not callable(kl_fn):
            raise TypeError(f"kl_fn must be callable, received: {kl_fn}")
        if self._key in _KL:
            raise ValueError(f"KL({self._key[0].__name__} || {self._key[1].__name__}) has "
                             f"already been registered to: {_KL[self._key]}")
        _KL[self._key] = kl_fn
        return kl_fn
