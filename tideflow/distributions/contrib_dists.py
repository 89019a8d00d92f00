"""``tf.contrib.distributions`` beyond ``tf.distributions`` (TF 1.0-1.15): the diagonal
multivariate normal continuous-control policies use (``MultivariateNormalDiag`` and its
softplus-scale variant), ``NormalWithSoftplusScale`` (tf.distributions' own),
``OneHotCategorical``, the Concrete (Gumbel-softmax) relaxations
``RelaxedOneHotCategorical`` / ``ExpRelaxedOneHotCategorical``, and 1.0's ``kl``."""

import math

import numpy as np

import tideflow as tf
from tideflow.distributions import bijectors
from tideflow.distributions.distribution import (
    FULLY_REPARAMETERIZED,
    NOT_REPARAMETERIZED,
    Distribution,
    RegisterKL,
    kl_divergence,
)
from tideflow.distributions.dists import NormalWithSoftplusScale, batch_rank_of
from tideflow.distributions.transformed import TransformedDistribution
from tideflow.distributions.util import get_logits_and_probs
from tideflow.ops.control_flow_ops import with_dependencies

_HALF_LOG_TWO_PI = 0.5 * math.log(2.0 * math.pi)


class _VectorEvent:
    """Shapes of a distribution over vectors whose broadcast mean is ``self._loc_b``: the last
    axis is the event, the others the batch."""

    def _batch_shape(self):
        s = self._loc_b.get_shape()
        return s[:-1] if s.ndims is not None else tf.TensorShape(None)

    def _batch_shape_tensor(self):
        return tf.shape(self._loc_b)[:-1]

    def _event_shape(self):
        return self._loc_b.get_shape()[-1:]

    def _event_shape_tensor(self):
        return tf.shape(self._loc_b)[-1:]


def _reserve_tf_names():
    """Marks used the names TF 1.15's multivariate normals give ops in the caller's scope (the
    standard ``Normal`` they transform, its ``zeros``/``ones`` parameters and the
    ``affine_linear_operator`` bijector), so later ops are named as in TF (``Normal_1``)."""
    graph = tf.get_default_graph()
    for name in ("zeros", "ones", "Normal", "affine_linear_operator"):
        graph.unique_name(name)


class _AsTransformedNormal:
    """TF 1.15 builds the multivariate normals as a standard Normal transformed with an event
    shape override, whose cdf family raises "... is not implemented when overriding
    event_shape"."""

    @staticmethod
    def _overridden(what):
        raise NotImplementedError(f"{what} is not implemented when overriding event_shape")

    def _cdf(self, x):
        self._overridden("cdf")

    def _log_cdf(self, x):
        self._overridden("log_cdf")

    def _survival_function(self, x):
        self._overridden("survival_function")

    def _log_survival_function(self, x):
        self._overridden("log_survival_function")

    def _quantile(self, p):
        self._overridden("quantile")


class MultivariateNormalDiag(_AsTransformedNormal, _VectorEvent, Distribution):
    """A normal distribution over vectors (the last axis) with mean ``loc`` and a diagonal
    covariance ``diag(scale_diag)**2`` (``scale_identity_multiplier`` adds to the diagonal, as
    TF's ``scale = diag(scale_diag) + scale_identity_multiplier * I``)."""

    def __init__(self, loc=None, scale_diag=None, scale_identity_multiplier=None,
                 validate_args=False, allow_nan_stats=True, name="MultivariateNormalDiag"):
        parameters = dict(locals())
        if loc is None and scale_diag is None:
            raise ValueError("MultivariateNormalDiag needs loc or scale_diag (or both) to "
                             "know the event size")
        with tf.name_scope(name, values=[loc, scale_diag, scale_identity_multiplier]) as scope:
            # the parameters' dtype: the first given one's (a float64 array stays float64)
            first = next(v for v in (loc, scale_diag, scale_identity_multiplier)
                         if v is not None)
            dtype = tf.convert_to_tensor(first).dtype.base_dtype
            if not dtype.is_floating:
                raise TypeError(f"{name}: parameters must be floating point, got {dtype.name}")
            if loc is not None:
                loc = tf.convert_to_tensor(loc, dtype=dtype, name="loc")
            if scale_diag is not None:
                scale_diag = tf.convert_to_tensor(scale_diag, dtype=dtype, name="scale_diag")
            scale = scale_diag
            # a scale from loc's event size alone: a known size keeps loc out of its graph
            k = loc.get_shape()[-1].value if loc is not None and loc.get_shape().ndims else None
            eye_diag = None if loc is None else tf.ones([k] if k is not None else
                                                        tf.shape(loc)[-1:], dtype)
            if scale_identity_multiplier is not None:
                m = tf.convert_to_tensor(scale_identity_multiplier, dtype=dtype,
                                         name="scale_identity_multiplier")
                m = tf.expand_dims(m, -1)
                scale = m * eye_diag if scale is None else scale + m
            if scale is None:
                scale = eye_diag
            if loc is None:
                loc = tf.zeros_like(scale)
            if loc.get_shape().ndims == 0:
                raise ValueError("loc must have rank >= 1 (the last axis is the event)")
            if validate_args:
                with tf.control_dependencies([tf.assert_positive(
                        tf.abs(scale), message="scale_diag must be non-zero")]):
                    scale = tf.identity(scale)
            self._loc = loc
            self._scale_op = None
            # the scale alone (its moments do not depend on loc, as TF), and loc broadcast
            self._scale_diag = scale
            self._loc_b = loc + tf.zeros_like(scale)
        super().__init__(dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats,
                         parameters, [self._loc, self._scale_diag], scope)
        if type(self) is MultivariateNormalDiag:
            _reserve_tf_names()

    @property
    def loc(self):
        return self._loc

    @property
    def scale_diag(self):
        return self._scale_diag

    @property
    def scale(self):
        """The scale as a ``LinearOperatorDiag`` (covariance ``scale @ scale^T``)."""
        if self._scale_op is None:
            from tideflow.ops.linear_operator import LinearOperatorDiag

            self._scale_op = LinearOperatorDiag(self._scale_diag, is_non_singular=True)
        return self._scale_op

    def _sample_n(self, n, seed):
        shape = tf.concat([[n], tf.shape(self._loc_b)], 0)
        eps = tf.random_normal(shape, dtype=self.dtype, seed=seed)
        return self._loc_b + self._scale_diag * eps

    def _log_prob(self, x):
        z = (x - self._loc_b) / self._scale_diag
        return (-0.5 * tf.reduce_sum(tf.square(z), -1)
                - tf.reduce_sum(tf.log(tf.abs(self._scale_diag)), -1)
                - self._k() * _HALF_LOG_TWO_PI)

    def _k(self):
        k = self._loc_b.get_shape()[-1].value
        if k is not None:
            return float(k)
        return tf.cast(tf.shape(self._loc_b)[-1], self.dtype)

    def _entropy(self):
        return (self._k() * (0.5 + _HALF_LOG_TWO_PI)
                + tf.reduce_sum(tf.log(tf.abs(self._scale_diag)), -1)
                + tf.zeros_like(self._loc_b[..., 0]))

    def _mean(self):
        return self._loc_b

    def _mode(self):
        return self._loc_b

    def _stddev(self):
        return tf.abs(self._scale_diag)

    def _variance(self):
        return tf.square(self._scale_diag)

    def _covariance(self):
        return tf.matrix_diag(tf.square(self._scale_diag))


class MultivariateNormalDiagWithSoftplusScale(MultivariateNormalDiag):
    """:class:`MultivariateNormalDiag` with ``scale_diag = softplus(scale_diag)``."""

    def __init__(self, loc, scale_diag, validate_args=False, allow_nan_stats=True,
                 name="MultivariateNormalDiagWithSoftplusScale"):
        with tf.name_scope(name, values=[scale_diag]) as scope:
            scale = tf.nn.softplus(scale_diag, name="softplus_scale_diag")
        super().__init__(loc, scale, validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats, name=scope)


class OneHotCategorical(Distribution):
    """A categorical distribution whose samples are one-hot vectors (TF 1.15's ops)."""

    def __init__(self, logits=None, probs=None, dtype=tf.int32, validate_args=False,
                 allow_nan_stats=True, name="OneHotCategorical"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[logits, probs]) as scope:
            self._logits, self._probs = get_logits_and_probs(
                name=scope, logits=logits, probs=probs, validate_args=validate_args,
                multidimensional=True)
            self._batch_rank = batch_rank_of(self._logits)
            with tf.name_scope("event_size"):
                self._event_size = tf.shape(self._logits)[-1]
        super().__init__(tf.as_dtype(dtype), NOT_REPARAMETERIZED, validate_args,
                         allow_nan_stats, parameters, [self._logits, self._probs], scope)

    logits = property(lambda self: self._logits)
    probs = property(lambda self: self._probs)
    event_size = property(lambda self: self._event_size)

    def _batch_shape(self):
        return self._logits.get_shape()[:-1]

    def _batch_shape_tensor(self):
        return tf.shape(self._logits)[:-1]

    def _event_shape(self):
        return self._logits.get_shape().with_rank_at_least(1)[-1:]

    def _event_shape_tensor(self):
        return tf.shape(self._logits)[-1:]

    def _sample_n(self, n, seed):
        sample_shape = tf.concat([[n], tf.shape(self._logits)], 0)
        logits = self._logits
        if logits.get_shape().ndims != 2:
            logits = tf.reshape(logits, [-1, self._event_size])
        draws = tf.transpose(tf.multinomial(logits, n, seed=seed))  # [n, batch]
        onehot = tf.one_hot(draws, self._event_size, dtype=self.dtype)
        return tf.reshape(onehot, sample_shape)

    def _log_prob(self, x):
        x, shape, logits_2d, x_2d = _flat_event_pair(self, x, -1)
        out = -tf.nn.softmax_cross_entropy_with_logits(labels=x_2d, logits=logits_2d)
        return tf.reshape(out, shape)

    def _entropy(self):
        return -tf.reduce_sum(tf.nn.log_softmax(self._logits) * self._probs, axis=-1)

    def _mean(self):  # (beyond TF 1.15, which has none)
        return tf.nn.softmax(self._logits)

    def _mode(self):
        mode = tf.argmax(self._logits, axis=self._batch_rank)
        mode = tf.one_hot(mode, self._event_size, dtype=self.dtype)
        mode.set_shape(self._logits.get_shape())
        return mode

    def _covariance(self):
        p = self._probs
        return tf.matrix_set_diag(-tf.matmul(p[..., None], p[..., None, :]), self._variance())

    def _variance(self):
        return self._probs * (1.0 - self._probs)


class ExpRelaxedOneHotCategorical(Distribution):
    """The Concrete (Gumbel-softmax) relaxation of a one-hot categorical, in log space: a draw
    is ``log_softmax((logits + gumbel_noise) / temperature)``; lower temperatures give draws
    nearer a one-hot vector's log. Its ops are TF 1.15's."""

    def __init__(self, temperature, logits=None, probs=None, dtype=None, validate_args=False,
                 allow_nan_stats=True, name="ExpRelaxedOneHotCategorical"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[logits, probs, temperature]) as scope:
            self._logits, self._probs = get_logits_and_probs(
                name=scope, logits=logits, probs=probs, validate_args=validate_args,
                multidimensional=True)
            if dtype is None:
                dtype = self._logits.dtype
                if not validate_args:
                    temperature = tf.cast(temperature, dtype)
            with tf.control_dependencies([tf.assert_positive(temperature)] if validate_args
                                         else []):
                self._temperature = tf.identity(temperature, name="temperature")
                self._temperature_2d = tf.reshape(temperature, [-1, 1],
                                                  name="temperature_2d")
            self._batch_rank = batch_rank_of(self._logits)
            with tf.name_scope("event_size"):
                self._event_size = tf.shape(self._logits)[-1]
        super().__init__(tf.as_dtype(dtype), FULLY_REPARAMETERIZED, validate_args,
                         allow_nan_stats, parameters,
                         [self._logits, self._probs, self._temperature], scope)

    logits = property(lambda self: self._logits)
    probs = property(lambda self: self._probs)
    temperature = property(lambda self: self._temperature)
    event_size = property(lambda self: self._event_size)

    def _batch_shape(self):
        return self._logits.get_shape()[:-1]

    def _batch_shape_tensor(self):
        return tf.shape(self._logits)[:-1]

    def _event_shape(self):
        return self._logits.get_shape().with_rank_at_least(1)[-1:]

    def _event_shape_tensor(self):
        return tf.shape(self._logits)[-1:]

    def _sample_n(self, n, seed):
        sample_shape = tf.concat([[n], tf.shape(self._logits)], 0)
        logits = self._logits * tf.ones(sample_shape, dtype=self.dtype)
        logits_2d = tf.reshape(logits, [-1, self._event_size])
        tiny = np.finfo(self.dtype.as_numpy_dtype).tiny
        u = tf.random_uniform(shape=tf.shape(logits_2d), minval=tiny, maxval=1.0,
                              dtype=self.dtype, seed=seed)
        gumbel = -tf.log(-tf.log(u))
        noisy = tf.div(gumbel + logits_2d, self._temperature_2d)
        return tf.reshape(tf.nn.log_softmax(noisy), sample_shape)

    def _log_prob(self, x):
        x, shape, logits_2d, x_2d = _flat_event_pair(self, x, [-1])
        k = tf.cast(self._event_size, x.dtype)
        log_norm = tf.lgamma(k) + (k - 1.0) * tf.log(self._temperature)
        log_softmax = tf.nn.log_softmax(logits_2d - x_2d * self._temperature_2d)
        log_unnorm = tf.reduce_sum(log_softmax, [-1], keepdims=False)
        return tf.reshape(log_norm + log_unnorm, shape)


class RelaxedOneHotCategorical(TransformedDistribution):
    """The Concrete (Gumbel-softmax) relaxation of a one-hot categorical: draws are points of
    the simplex, ``softmax((logits + gumbel_noise) / temperature)``, reparameterized (gradients
    flow to ``logits``); as TF 1.15, the ``Exp`` of an ``ExpRelaxedOneHotCategorical`` (made
    in the caller's scope)."""

    def __init__(self, temperature, logits=None, probs=None, dtype=None, validate_args=False,
                 allow_nan_stats=True, name="RelaxedOneHotCategorical"):
        dist = ExpRelaxedOneHotCategorical(temperature, logits=logits, probs=probs, dtype=dtype,
                                           validate_args=validate_args,
                                           allow_nan_stats=allow_nan_stats)
        super().__init__(dist, bijectors.Exp(), name=name)

    logits = property(lambda self: self.distribution.logits)
    probs = property(lambda self: self.distribution.probs)
    temperature = property(lambda self: self.distribution.temperature)
    event_size = property(lambda self: self.distribution.event_size)


@RegisterKL(MultivariateNormalDiag, MultivariateNormalDiag)
def _kl_mvn_diag(a, b, name=None):
    with tf.name_scope(name, "kl_mvn_diag", [a.loc, b.loc]):
        va, vb = tf.square(a.scale_diag), tf.square(b.scale_diag)
        d = b.mean() - a.mean()
        return 0.5 * tf.reduce_sum(va / vb + tf.square(d) / vb - 1.0 + tf.log(vb) - tf.log(va),
                                   -1)


@RegisterKL(OneHotCategorical, OneHotCategorical)
def _kl_onehot(a, b, name=None):
    with tf.name_scope(name, "kl_categorical_categorical", values=[a.logits, b.logits]):
        delta = tf.nn.log_softmax(a.logits) - tf.nn.log_softmax(b.logits)
        return tf.reduce_sum(tf.nn.softmax(a.logits) * delta, axis=-1)


class _LegacyMethods:
    """TF 0.12-1.0's method names beside 1.1's."""

    def sample_n(self, n, seed=None, name="sample_n"):
        return self.sample(n, seed=seed, name=name)

    def pdf(self, value, name="pdf"):
        return self.prob(value, name=name)

    def log_pdf(self, value, name="log_pdf"):
        return self.log_prob(value, name=name)

    def pmf(self, value, name="pmf"):
        return self.prob(value, name=name)

    def log_pmf(self, value, name="log_pmf"):
        return self.log_prob(value, name=name)

    def std(self, name="std"):
        return self.stddev(name=name)


def _add_legacy_names(cls, renames):
    """Lets ``cls`` also take (and expose as properties) TF 1.0's parameter names, and gives
    it 1.0's method names; in place, so that tf.distributions' and tf.contrib.distributions'
    classes stay one class each, as in TF."""
    if "_legacy_renames" in vars(cls):
        return cls
    init = cls.__init__

    def __init__(self, *args, **kwargs):
        for old, new in renames.items():
            if old in kwargs:
                if new in kwargs:
                    raise ValueError(f"{cls.__name__}: pass {new}= or {old}=, not both")
                kwargs[new] = kwargs.pop(old)
        init(self, *args, **kwargs)

    __init__.__doc__ = init.__doc__
    __init__.__wrapped__ = init
    cls.__init__ = __init__
    cls._legacy_renames = dict(renames)
    for old, new in renames.items():
        if not hasattr(cls, old):
            setattr(cls, old, property(lambda self, new=new: getattr(self, new)))
    for name, fn in vars(_LegacyMethods).items():
        if callable(fn) and not name.startswith("_") and not hasattr(cls, name):
            setattr(cls, name, fn)
    return cls


_RENAMES = {
    "Normal": {"mu": "loc", "sigma": "scale"},
    "Laplace": {},
    "StudentT": {"mu": "loc", "sigma": "scale"},
    "Bernoulli": {"p": "probs"},
    "Categorical": {"p": "probs"},
    "Uniform": {"a": "low", "b": "high"},
    "Gamma": {"alpha": "concentration", "beta": "rate"},
    "Beta": {"a": "concentration1", "b": "concentration0"},
    "Exponential": {"lam": "rate"},
    "Dirichlet": {"alpha": "concentration"},
    "Multinomial": {"n": "total_count", "p": "probs"},
}


def add_legacy_names():
    """Gives the tf.distributions classes TF 1.0's parameter and method names."""
    from tideflow.distributions import dists

    for name, renames in _RENAMES.items():
        _add_legacy_names(getattr(dists, name), renames)


def kl(distribution_a, distribution_b, allow_nan_stats=True, name=None):
    """TF 1.0-1.2's name of ``kl_divergence``."""
    return kl_divergence(distribution_a, distribution_b, allow_nan_stats=allow_nan_stats,
                         name=name)


__all__ = ["ExpRelaxedOneHotCategorical", "MultivariateNormalDiag",
           "MultivariateNormalDiagWithSoftplusScale", "NormalWithSoftplusScale",
           "OneHotCategorical", "RelaxedOneHotCategorical", "kl"]


def _flat_event_pair(dist, x, sum_axis):
    """TF 1.15's prologue of a one-hot distribution's log_prob: ``x`` checked (validate_args),
    ``x`` and the logits broadcast against each other unless their static shapes agree, the
    batch shape (the logits summed over ``sum_axis``, written as TF's class writes it) and both
    flattened to [-1, event_size]. Returns (x, shape, logits_2d, x_2d)."""
    if dist.validate_args:
        x = with_dependencies(
            [tf.assert_non_positive(x),
             tf.assert_near(tf.zeros([], dtype=dist.dtype),
                            tf.reduce_logsumexp(x, axis=[-1]))], x)
    logits = dist._logits
    xs, ls = x.get_shape(), logits.get_shape()
    if not xs.is_fully_defined() or not ls.is_fully_defined() or xs != ls:
        logits = tf.ones_like(x, dtype=logits.dtype) * logits
        x = tf.ones_like(logits, dtype=x.dtype) * x
    shape = tf.shape(tf.reduce_sum(logits, axis=sum_axis))
    return (x, shape, tf.reshape(logits, [-1, dist._event_size]),
            tf.reshape(x, [-1, dist._event_size]))
