"""The TF 1.x distributions: Normal, Laplace, Uniform, Gamma, Exponential, Beta, StudentT,
Bernoulli, Categorical, Dirichlet, Multinomial, DirichletMultinomial, and their registered KL
divergences. Formulas are the standard closed forms; gradients flow through the ops."""

import math

import numpy as np

import tideflow as tf
from tideflow.distributions.distribution import (
    FULLY_REPARAMETERIZED,
    NOT_REPARAMETERIZED,
    Distribution,
    RegisterKL,
)
from tideflow.distributions.special_math import log_cdf_laplace, log_ndtr, ndtr, ndtri

_HALF_LOG_TWO_PI = 0.5 * math.log(2.0 * math.pi)


def _params(names_values, dtype=None):
    """The parameters as tensors of one common dtype: Python numbers take the dtype of the
    first typed parameter; typed ones (arrays, tensors) of different dtypes are an error."""
    out = []
    for name, v in names_values:
        if v is None:
            out.append(None)
            continue
        typed = isinstance(v, (np.ndarray, np.generic, tf.Tensor, tf.Variable))
        t = tf.convert_to_tensor(v, name=name, dtype=None if typed else dtype)
        if dtype is None:
            dtype = t.dtype.base_dtype
        out.append(t)
    for t in out:
        if t is not None and t.dtype.base_dtype != dtype:
            raise TypeError(f"Parameters must have the same dtype: {dtype.name} and "
                            f"{t.dtype.name}")
    return out


def _float_params(names_values):
    ts = _params(names_values)
    for t in ts:
        if t is not None and not t.dtype.is_floating:
            raise TypeError(f"Parameter {t.name} must be a floating point tensor, got "
                            f"{t.dtype.name}")
    return ts


def _checked(validate, checks, tensors):
    """``tensors`` behind ``checks`` (a list of assert ops, or a function making them) when
    ``validate``; without it no check is built at all (an assert of a constant fails while
    it is built, and TF adds none)."""
    if not validate:
        return tensors
    if callable(checks):
        checks = checks()
    with tf.control_dependencies(checks):
        return [tf.identity(t) for t in tensors]


def _bshape(*ts):
    s = tf.TensorShape([])
    for t in ts:
        s = tf.broadcast_static_shape(s, t.get_shape())
    return s


def _bshape_t(*ts):
    s = tf.shape(ts[0])
    for t in ts[1:]:
        s = tf.broadcast_dynamic_shape(s, tf.shape(t))
    return s


def _sample_shape(n, batch):
    return tf.concat([[n], batch], 0)


def _all_positive(*ts):
    return [tf.assert_positive(t) for t in ts]


def _same_shapes(*names):
    """A ``_param_shapes`` giving every parameter in ``names`` the sample shape."""
    def param_shapes(sample_shape):
        shape = tf.convert_to_tensor(sample_shape, dtype=tf.int32)
        return {n: shape for n in names}
    return staticmethod(param_shapes)


class _ParamsDistribution(Distribution):
    """A distribution of floating point parameters whose batch shape is their broadcast shape."""

    def _init_params(self, name, names_values, checks, reparameterization_type, validate_args,
                     allow_nan_stats, parameters):
        """Converts the ``(name, value)`` parameters to tensors of one float dtype under the
        name scope ``name``, guards them with ``checks(*tensors)`` when ``validate_args``, and
        initializes the distribution with them as graph parents; returns the tensors."""
        with tf.name_scope(name, values=[v for _, v in names_values]) as scope:
            ts = _float_params(names_values)
            ts = _checked(validate_args, lambda: checks(*ts), ts)
        self._batch_params = ts
        super().__init__(ts[0].dtype.base_dtype, reparameterization_type, validate_args,
                         allow_nan_stats, parameters, ts, scope)
        return ts

    def _batch_shape(self):
        return _bshape(*self._batch_params)

    def _batch_shape_tensor(self):
        return _bshape_t(*self._batch_params)


class _LogitsProbs:
    """The ``logits`` and ``probs`` properties of the discrete distributions."""

    @property
    def logits(self):
        return self._logits

    @property
    def probs(self):
        return self._probs


class _VectorEvent:
    """Events along the last axis of the parameter tensor ``self._event_param``."""

    def _event_shape(self):
        return self._event_param.get_shape()[-1:]

    def _event_shape_tensor(self):
        return tf.shape(self._event_param)[-1:]


class _Counts(_VectorEvent, Distribution):
    """Counts of ``total_count`` draws over the classes of the last axis of
    ``self._event_param``; the batch shape broadcasts ``total_count`` with the other axes."""

    @property
    def total_count(self):
        return self._total_count

    def _batch_shape(self):
        return tf.broadcast_static_shape(self._total_count.get_shape(),
                                         self._event_param.get_shape()[:-1])

    def _batch_shape_tensor(self):
        return tf.broadcast_dynamic_shape(tf.shape(self._total_count),
                                          tf.shape(self._event_param)[:-1])

    _sum_message = "counts must sum to `self.total_count`"

    def _counts_log_norm(self, counts):
        """``counts`` in the distribution's dtype and the log multinomial coefficient
        ``log(total_count! / prod(counts!))``; with ``validate_args``, TF's checks that the
        counts are whole, non-negative and sum to ``total_count``."""
        counts = tf.cast(counts, self.dtype)
        if self.validate_args:
            checks = [tf.assert_non_negative(counts, message=f"'{counts}' must be "
                                             f"non-negative."),
                      tf.assert_equal(counts, tf.round(counts),
                                      message=f"'{counts}' cannot contain fractional "
                                      f"components.")]
            with tf.control_dependencies(checks):
                counts = tf.identity(counts)
            total = tf.assert_equal(self._total_count, tf.reduce_sum(counts, -1),
                                    message=self._sum_message)
            with tf.control_dependencies([total]):
                counts = tf.identity(counts)
        log_norm = tf.lgamma(self._total_count + 1.0) - tf.reduce_sum(tf.lgamma(counts + 1.0),
                                                                      -1)
        return counts, log_norm


# ---------------------------------------------------------------------------------------------
# location-scale families
# ---------------------------------------------------------------------------------------------


class _LocScale(_ParamsDistribution):
    """A location-scale family with a positive ``scale``; its mean and mode are ``loc``."""

    def __init__(self, loc, scale, validate_args, allow_nan_stats, name):
        parameters = dict(locals())
        self._loc, self._scale = self._init_params(
            name, [("loc", loc), ("scale", scale)], lambda loc, scale: _all_positive(scale),
            FULLY_REPARAMETERIZED, validate_args, allow_nan_stats, parameters)

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    _param_shapes = _same_shapes("loc", "scale")

    def _mean(self):
        return self._loc + tf.zeros_like(self._scale)

    def _mode(self):
        return self._mean()


class Normal(_LocScale):
    """The normal distribution with mean ``loc`` and standard deviation ``scale``."""

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Normal"):
        super().__init__(loc, scale, validate_args, allow_nan_stats, name)

    def _sample_n(self, n, seed):
        shape = _sample_shape(n, self.batch_shape_tensor())
        return tf.random_normal(shape, dtype=self.dtype, seed=seed) * self._scale + self._loc

    def _z(self, x):
        return (x - self._loc) / self._scale

    def _log_prob(self, x):
        return -0.5 * tf.square(self._z(x)) - tf.log(self._scale) - _HALF_LOG_TWO_PI

    def _cdf(self, x):
        return ndtr(self._z(x))

    def _log_cdf(self, x):
        return log_ndtr(self._z(x))

    def _survival_function(self, x):
        return ndtr(-self._z(x))

    def _log_survival_function(self, x):
        return log_ndtr(-self._z(x))

    def _quantile(self, p):
        return self._loc + self._scale * ndtri(p)

    def _entropy(self):
        return (0.5 + _HALF_LOG_TWO_PI) + tf.log(self._scale) + tf.zeros_like(self._loc)

    def _stddev(self):
        return self._scale + tf.zeros_like(self._loc)


class Laplace(_LocScale):
    """The Laplace distribution: density ``exp(-|x - loc| / scale) / (2 scale)``."""

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Laplace"):
        super().__init__(loc, scale, validate_args, allow_nan_stats, name)

    def _sample_n(self, n, seed):
        shape = _sample_shape(n, self.batch_shape_tensor())
        # u in (-1, 1): log1p(-|u|) stays finite
        low = np.nextafter(np.array(-1.0, self.dtype.as_numpy_dtype),
                           np.array(0.0, self.dtype.as_numpy_dtype))
        u = tf.random_uniform(shape, minval=low, maxval=1.0, dtype=self.dtype, seed=seed)
        return self._loc - self._scale * tf.sign(u) * tf.log1p(-tf.abs(u))

    def _log_prob(self, x):
        return -math.log(2.0) - tf.log(self._scale) - tf.abs(x - self._loc) / self._scale

    def _cdf(self, x):
        z = (x - self._loc) / self._scale
        return 0.5 + 0.5 * tf.sign(z) * (1.0 - tf.exp(-tf.abs(z)))

    def _log_cdf(self, x):
        return log_cdf_laplace((x - self._loc) / self._scale)

    def _log_survival_function(self, x):
        return log_cdf_laplace((self._loc - x) / self._scale)

    def _quantile(self, p):
        d = p - 0.5
        return self._loc - self._scale * tf.sign(d) * tf.log1p(-2.0 * tf.abs(d))

    def _entropy(self):
        return math.log(2.0) + 1.0 + tf.log(self._scale) + tf.zeros_like(self._loc)

    def _stddev(self):
        return math.sqrt(2.0) * self._scale + tf.zeros_like(self._loc)


class Uniform(_ParamsDistribution):
    """The uniform distribution on ``[low, high)``."""

    def __init__(self, low=0.0, high=1.0, validate_args=False, allow_nan_stats=True,
                 name="Uniform"):
        parameters = dict(locals())
        self._low, self._high = self._init_params(
            name, [("low", low), ("high", high)],
            lambda low, high: [tf.assert_less(low, high,
                                              message="uniform not defined when low >= high.")],
            FULLY_REPARAMETERIZED, validate_args, allow_nan_stats, parameters)

    _param_shapes = _same_shapes("low", "high")

    @property
    def low(self):
        return self._low

    @property
    def high(self):
        return self._high

    def range(self, name="range"):
        with self._name_scope(name):
            return self._high - self._low

    def _sample_n(self, n, seed):
        shape = _sample_shape(n, self.batch_shape_tensor())
        return self._low + (self._high - self._low) * tf.random_uniform(shape, dtype=self.dtype,
                                                                        seed=seed)

    def _prob(self, x):
        inside = tf.logical_and(tf.greater_equal(x, self._low), tf.less(x, self._high))
        density = tf.ones_like(x) / (self._high - self._low)
        inside = tf.logical_and(inside, tf.ones_like(density, dtype=tf.bool))
        value = tf.where(inside, density, tf.zeros_like(density))
        # a NaN point has a NaN density (as TF), not 0
        return tf.where(tf.is_nan(x + tf.zeros_like(value)), x + tf.zeros_like(value), value)

    def _log_prob(self, x):
        return tf.log(self._prob(x))

    def _cdf(self, x):
        return tf.clip_by_value((x - self._low) / (self._high - self._low), 0.0, 1.0)

    def _quantile(self, p):
        return self._low + p * (self._high - self._low)

    def _entropy(self):
        return tf.log(self._high - self._low)

    def _mean(self):
        return (self._low + self._high) / 2.0

    def _variance(self):
        return tf.square(self._high - self._low) / 12.0


# ---------------------------------------------------------------------------------------------
# Gamma family
# ---------------------------------------------------------------------------------------------


class _ConcentrationRate(_ParamsDistribution):
    """A family of positive ``concentration`` and ``rate`` parameters (Gamma, InverseGamma),
    drawn through Gamma draws."""

    def _init_concentration_rate(self, name, concentration, rate, reparameterization_type,
                                 validate_args, allow_nan_stats, parameters):
        self._concentration, self._rate = self._init_params(
            name, [("concentration", concentration), ("rate", rate)], _all_positive,
            reparameterization_type, validate_args, allow_nan_stats, parameters)

    _param_shapes = _same_shapes("concentration", "rate")

    @property
    def concentration(self):
        return self._concentration

    @property
    def rate(self):
        return self._rate

    def _gamma_draws(self, n, seed):
        alpha = self._concentration + tf.zeros_like(self._rate)
        beta = self._rate + tf.zeros_like(self._concentration)
        return tf.random_gamma([n], alpha, beta=beta, dtype=self.dtype, seed=seed)


class Gamma(_ConcentrationRate):
    """The Gamma distribution with shape ``concentration`` and inverse scale ``rate``."""

    def __init__(self, concentration, rate, validate_args=False, allow_nan_stats=True,
                 name="Gamma"):
        parameters = dict(locals())
        self._init_concentration_rate(name, concentration, rate, FULLY_REPARAMETERIZED,
                                      validate_args, allow_nan_stats, parameters)

    def _sample_n(self, n, seed):
        return self._gamma_draws(n, seed)

    def _log_prob(self, x):
        a, b = self._concentration, self._rate
        # xlogy: a concentration of 1 at x = 0 gives log(rate), not NaN
        return (a * tf.log(b) + tf.math.xlogy(a - 1.0 + tf.zeros_like(x), x + tf.zeros_like(a))
                - b * x - tf.lgamma(a))

    def _cdf(self, x):
        return tf.math.igamma(self._concentration + tf.zeros_like(x),
                              self._rate * x + tf.zeros_like(self._concentration))

    def _entropy(self):
        a = self._concentration
        return a - tf.log(self._rate) + tf.lgamma(a) + (1.0 - a) * tf.digamma(a)

    def _mean(self):
        return self._concentration / self._rate

    def _variance(self):
        return self._concentration / tf.square(self._rate)

    def _mode(self):
        # as TF 1.x: defined only for concentration > 1 (an Exponential's mode is NaN too)
        mode = (self._concentration - 1.0) / self._rate
        return self._nan_where(tf.less_equal(self._concentration + tf.zeros_like(mode), 1.0),
                               mode, "mode not defined when any concentration <= 1",
                               [self._concentration])


class Exponential(Gamma):
    """The exponential distribution with rate ``rate`` (a Gamma with concentration 1)."""

    def __init__(self, rate, validate_args=False, allow_nan_stats=True, name="Exponential"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[rate]) as scope:
            (rate_t,) = _float_params([("rate", rate)])
            super().__init__(tf.ones_like(rate_t), rate_t, validate_args, allow_nan_stats,
                             name=scope)
        self._parameters = parameters
        self._parameters.pop("self", None)
        self._parameters.pop("__class__", None)

    _param_shapes = _same_shapes("rate")

    def _sample_n(self, n, seed):
        shape = _sample_shape(n, tf.shape(self._rate))
        u = tf.random_uniform(shape, minval=np.finfo(self.dtype.as_numpy_dtype).tiny,
                              maxval=1.0, dtype=self.dtype, seed=seed)
        return -tf.log(u) / self._rate

    def _log_prob(self, x):
        return tf.log(self._rate) - self._rate * x

    def _cdf(self, x):
        return -tf.expm1(-self._rate * x)

    def _log_survival_function(self, x):
        return -self._rate * x

    def _quantile(self, p):
        return -tf.log1p(-p) / self._rate


class Beta(_ParamsDistribution):
    """The Beta distribution on (0, 1) with ``concentration1`` (alpha) and ``concentration0``
    (beta)."""

    def __init__(self, concentration1=None, concentration0=None, validate_args=False,
                 allow_nan_stats=True, name="Beta"):
        parameters = dict(locals())
        self._c1, self._c0 = self._init_params(
            name, [("concentration1", concentration1), ("concentration0", concentration0)],
            _all_positive, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats, parameters)

    _param_shapes = _same_shapes("concentration1", "concentration0")

    @property
    def concentration1(self):
        return self._c1

    @property
    def concentration0(self):
        return self._c0

    @property
    def total_concentration(self):
        return self._c1 + self._c0

    def _sample_n(self, n, seed):
        a = self._c1 + tf.zeros_like(self._c0)
        b = self._c0 + tf.zeros_like(self._c1)
        g1 = tf.random_gamma([n], a, dtype=self.dtype, seed=seed)
        g0 = tf.random_gamma([n], b, dtype=self.dtype,
                             seed=None if seed is None else seed + 1)
        return g1 / (g1 + g0)

    def _lbeta(self):
        return tf.lgamma(self._c1) + tf.lgamma(self._c0) - tf.lgamma(self._c1 + self._c0)

    def _log_prob(self, x):
        if self.validate_args:
            checks = [tf.assert_positive(x, message="sample must be positive"),
                      tf.assert_less(x, tf.ones([], self.dtype),
                                     message="sample must be less than `1`.")]
            with tf.control_dependencies(checks):
                x = tf.identity(x)
        # as TF 1.x: xlogy for x (concentration1 = 1 at x = 0 contributes 0, not NaN), a
        # plain product for 1 - x (so concentration0 = 1 at x = 1 is NaN, as in TF)
        x_b = x + tf.zeros_like(self._c1) + tf.zeros_like(self._c0)
        return (tf.math.xlogy(self._c1 - 1.0 + tf.zeros_like(x_b), x_b)
                + (self._c0 - 1.0) * tf.log1p(-x_b) - self._lbeta())

    def _cdf(self, x):
        a = self._c1 + tf.zeros_like(x) + tf.zeros_like(self._c0)
        b = self._c0 + tf.zeros_like(a)
        return tf.math.betainc(a, b, x + tf.zeros_like(a))

    def _entropy(self):
        a, b = self._c1, self._c0
        return (self._lbeta() - (a - 1.0) * tf.digamma(a) - (b - 1.0) * tf.digamma(b)
                + (a + b - 2.0) * tf.digamma(a + b))

    def _mean(self):
        return self._c1 / self.total_concentration

    def _variance(self):
        t = self.total_concentration
        return self._c1 * self._c0 / (tf.square(t) * (t + 1.0))

    def _mode(self):
        t = self.total_concentration
        mode = (self._c1 - 1.0) / (t - 2.0)
        bad = tf.logical_or(tf.less_equal(self._c1 + tf.zeros_like(mode), 1.0),
                            tf.less_equal(self._c0 + tf.zeros_like(mode), 1.0))
        if not self.allow_nan_stats:
            one = tf.ones([], self.dtype)
            checks = [tf.assert_less(one, self._c1, message="Mode undefined for "
                                     "concentration1 <= 1."),
                      tf.assert_less(one, self._c0, message="Mode undefined for "
                                     "concentration0 <= 1.")]
            with tf.control_dependencies(checks):
                return tf.identity(mode)
        return self._nan_where(bad, mode, "")


class StudentT(_ParamsDistribution):
    """Student's t distribution with ``df`` degrees of freedom, location and scale."""

    def __init__(self, df, loc, scale, validate_args=False, allow_nan_stats=True,
                 name="StudentT"):
        parameters = dict(locals())
        self._df, self._loc, self._scale = self._init_params(
            name, [("df", df), ("loc", loc), ("scale", scale)],
            lambda df, loc, scale: _all_positive(df), FULLY_REPARAMETERIZED, validate_args,
            allow_nan_stats, parameters)

    _param_shapes = _same_shapes("df", "loc", "scale")

    @property
    def df(self):
        return self._df

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    def _sample_n(self, n, seed):
        shape = _sample_shape(n, self.batch_shape_tensor())
        z = tf.random_normal(shape, dtype=self.dtype, seed=seed)
        df = self._df + tf.zeros(self.batch_shape_tensor(), self.dtype)
        g = tf.random_gamma([n], 0.5 * df, beta=tf.constant(0.5, self.dtype), dtype=self.dtype,
                            seed=None if seed is None else seed + 1)
        return self._loc + self._scale * z * tf.rsqrt(g / df)

    def _log_prob(self, x):
        y = (x - self._loc) / self._scale
        df = self._df
        return (tf.lgamma(0.5 * (df + 1.0)) - tf.lgamma(0.5 * df)
                - 0.5 * tf.log(df * math.pi) - tf.log(tf.abs(self._scale))
                - 0.5 * (df + 1.0) * tf.log1p(tf.square(y) / df))

    def _cdf(self, x):
        y = (x - self._loc) / tf.abs(self._scale)
        df = self._df + tf.zeros_like(y)
        t = df / (df + tf.square(y))
        half = 0.5 * tf.math.betainc(0.5 * df, 0.5 + tf.zeros_like(df), t)
        return tf.where(tf.less(y, 0.0), half, 1.0 - half)

    def _entropy(self):
        df = self._df + tf.zeros(self.batch_shape_tensor(), self.dtype)
        half = 0.5 * (df + 1.0)
        lbeta = tf.lgamma(0.5 + tf.zeros_like(df)) + tf.lgamma(0.5 * df) - tf.lgamma(half)
        return (half * (tf.digamma(half) - tf.digamma(0.5 * df)) + 0.5 * tf.log(df) + lbeta
                + tf.log(tf.abs(self._scale)))

    def _mean(self):
        mean = self._loc + tf.zeros(self.batch_shape_tensor(), self.dtype)
        return self._nan_where(tf.less_equal(self._df + tf.zeros_like(mean), 1.0), mean,
                               "mean not defined for components of df <= 1", [self._df])

    def _variance(self):
        df = self._df + tf.zeros(self.batch_shape_tensor(), self.dtype)
        scale2 = tf.square(self._scale) + tf.zeros_like(df)
        var = tf.where(tf.greater(df, 2.0), scale2 * df / tf.maximum(df - 2.0, 1e-30),
                       tf.fill(tf.shape(df), np.array(np.inf, self.dtype.as_numpy_dtype)))
        return self._nan_where(tf.less_equal(df, 1.0), var,
                               "variance not defined for components of df <= 1", [self._df])

    def _mode(self):
        return self._loc + tf.zeros(self.batch_shape_tensor(), self.dtype)


# ---------------------------------------------------------------------------------------------
# discrete
# ---------------------------------------------------------------------------------------------


def _logits_probs(logits, probs, multidimensional, validate_args=False):
    if (logits is None) == (probs is None):
        raise ValueError("Must pass probs or logits, but not both.")
    if probs is None:
        (logits,) = _float_params([("logits", logits)])
        probs = tf.nn.softmax(logits) if multidimensional else tf.sigmoid(logits)
    else:
        (probs,) = _float_params([("probs", probs)])
        if validate_args:
            # TF 1.x's checks and messages: non-negative, then summing to 1 (along the
            # last axis) or each at most 1
            one = tf.constant(1.0, probs.dtype)
            checks = [tf.assert_non_negative(probs)]
            if multidimensional:
                checks.append(tf.assert_near(tf.reduce_sum(probs, -1), one,
                                             message="probs does not sum to 1."))
            else:
                checks.append(tf.assert_less_equal(
                    probs, one, message="probs has components greater than 1."))
            (probs,) = _checked(True, checks, [probs])
        logits = tf.log(probs) if multidimensional else tf.log(probs) - tf.log1p(-probs)
    return logits, probs


def _check_binary(x):
    """``x`` guarded (as TF 1.x's ``validate_args``) to hold whole numbers in [0, 1]."""
    checks = []
    if x.dtype.is_floating:
        checks.append(tf.assert_equal(x, tf.round(x), message="x has non-integer components."))
    checks.append(tf.assert_non_negative(x, message="Elements must be non-negative."))
    checks.append(tf.assert_less_equal(x, tf.constant(1, x.dtype),
                                       message="Elements cannot exceed 1."))
    with tf.control_dependencies(checks):
        return tf.identity(x)


class Bernoulli(_LogitsProbs, Distribution):
    """The Bernoulli distribution: 1 with probability ``probs`` (or ``sigmoid(logits)``)."""

    def __init__(self, logits=None, probs=None, dtype=tf.int32, validate_args=False,
                 allow_nan_stats=True, name="Bernoulli"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[logits, probs]) as scope:
            self._from_logits = logits is not None
            self._logits, self._probs = _logits_probs(logits, probs, False, validate_args)
        super().__init__(tf.as_dtype(dtype), NOT_REPARAMETERIZED, validate_args,
                         allow_nan_stats, parameters, [self._logits, self._probs],
                         scope)

    _param_shapes = _same_shapes("logits")

    def _batch_shape(self):
        return self._logits.get_shape()

    def _batch_shape_tensor(self):
        return tf.shape(self._logits)

    def _sample_n(self, n, seed):
        shape = _sample_shape(n, self.batch_shape_tensor())
        u = tf.random_uniform(shape, dtype=self._probs.dtype, seed=seed)
        return tf.cast(tf.less(u, self._probs), self.dtype)

    def _log_prob(self, x):
        if self.validate_args:
            x = _check_binary(x)
        x = tf.cast(x, self._logits.dtype)
        logits = self._logits + tf.zeros_like(x)
        x = x + tf.zeros_like(logits)
        return -tf.nn.sigmoid_cross_entropy_with_logits(labels=x, logits=logits)

    def _cdf(self, x):
        x = tf.cast(x, self._probs.dtype)
        p = self._probs + tf.zeros_like(x)
        x = x + tf.zeros_like(p)
        return tf.where(tf.less(x, 0.0), tf.zeros_like(p),
                        tf.where(tf.less(x, 1.0), 1.0 - p, tf.ones_like(p)))

    def _entropy(self):
        # H = -p log p - (1 - p) log(1 - p): the cross entropy of the distribution with itself
        return tf.nn.sigmoid_cross_entropy_with_logits(labels=self._probs, logits=self._logits)

    def _mean(self):
        return tf.identity(self._probs)

    def _variance(self):
        return self._probs * (1.0 - self._probs)

    def _mode(self):
        return tf.cast(tf.greater(self._probs, 0.5), self.dtype)


class Categorical(_LogitsProbs, Distribution):
    """A distribution over ``{0, ..., K-1}`` with ``logits`` or ``probs`` along the last
    axis."""

    def __init__(self, logits=None, probs=None, dtype=tf.int32, validate_args=False,
                 allow_nan_stats=True, name="Categorical"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[logits, probs]) as scope:
            self._logits, self._probs = _logits_probs(logits, probs, True, validate_args)
            if self._logits.get_shape().ndims == 0:
                raise ValueError("logits (or probs) must have rank >= 1")
        super().__init__(tf.as_dtype(dtype), NOT_REPARAMETERIZED, validate_args,
                         allow_nan_stats, parameters, [self._logits, self._probs],
                         scope)

    @property
    def event_size(self):
        """The number of classes, an int32 scalar tensor (constant when known statically)."""
        k = self._logits.get_shape()[-1].value if self._logits.get_shape().ndims else None
        if k is not None:
            return tf.constant(k, tf.int32, name="event_size")
        return tf.shape(self._logits)[-1]

    def _batch_shape(self):
        s = self._logits.get_shape()
        return s[:-1] if s.ndims is not None else tf.TensorShape(None)

    def _batch_shape_tensor(self):
        return tf.shape(self._logits)[:-1]

    def _flat_logits(self):
        return tf.reshape(self._logits, [-1, tf.shape(self._logits)[-1]])

    def _sample_n(self, n, seed):
        draws = tf.multinomial(self._flat_logits(), n, seed=seed, output_dtype=tf.int64)
        draws = tf.cast(tf.transpose(draws), self.dtype)  # [n, batch]
        return tf.reshape(draws, tf.concat([[n], self.batch_shape_tensor()], 0))

    def _log_prob(self, k):
        k = tf.cast(k, tf.int32)
        logits = self._logits + tf.zeros_like(tf.expand_dims(tf.cast(k, self._logits.dtype),
                                                             -1))
        k = k + tf.zeros(tf.shape(logits)[:-1], tf.int32)
        return -tf.nn.sparse_softmax_cross_entropy_with_logits(labels=k, logits=logits)

    def _cdf(self, k):
        k = tf.cast(k, tf.int32)
        probs = tf.nn.softmax(self._logits)
        probs = probs + tf.zeros_like(tf.expand_dims(tf.cast(k, probs.dtype), -1))
        kk = tf.expand_dims(k + tf.zeros(tf.shape(probs)[:-1], tf.int32), -1)
        classes = tf.range(tf.shape(probs)[-1])
        # TF 1.x's Categorical.cdf(k) sums the classes below k: P(X < k)
        below = tf.cast(tf.less(classes, kk), probs.dtype)
        return tf.reduce_sum(probs * below, -1)

    def _entropy(self):
        logp = tf.nn.log_softmax(self._logits)
        return -tf.reduce_sum(tf.exp(logp) * logp, -1)

    def _mode(self):
        return tf.cast(tf.argmax(self._logits, -1), self.dtype)


def _lbeta(x):
    return tf.reduce_sum(tf.lgamma(x), -1) - tf.lgamma(tf.reduce_sum(x, -1))


class Dirichlet(_VectorEvent, Distribution):
    """The Dirichlet distribution over the simplex, with ``concentration`` along the last
    axis."""

    def __init__(self, concentration, validate_args=False, allow_nan_stats=True,
                 name="Dirichlet"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[concentration]) as scope:
            (self._concentration,) = _float_params([("concentration", concentration)])
            (self._concentration,) = _checked(
                validate_args, lambda: [tf.assert_positive(self._concentration)],
                [self._concentration])
            self._total = tf.reduce_sum(self._concentration, -1)
        self._event_param = self._concentration
        super().__init__(self._concentration.dtype.base_dtype, FULLY_REPARAMETERIZED,
                         validate_args, allow_nan_stats, parameters, [self._concentration],
                         scope)

    @property
    def concentration(self):
        return self._concentration

    @property
    def total_concentration(self):
        return self._total

    def _batch_shape(self):
        return self._concentration.get_shape()[:-1]

    def _batch_shape_tensor(self):
        return tf.shape(self._concentration)[:-1]

    def _sample_n(self, n, seed):
        g = tf.random_gamma([n], self._concentration, dtype=self.dtype, seed=seed)
        return g / tf.reduce_sum(g, -1, keepdims=True)

    def _log_prob(self, x):
        if self.validate_args:
            checks = [tf.assert_positive(x, message="samples must be positive"),
                      tf.assert_near(tf.ones([], self.dtype), tf.reduce_sum(x, -1),
                                     message="sample last-dimension must sum to `1`")]
            with tf.control_dependencies(checks):
                x = tf.identity(x)
        return tf.reduce_sum(tf.math.xlogy(self._concentration - 1.0 + tf.zeros_like(x), x),
                             -1) - _lbeta(self._concentration)

    def _entropy(self):
        a = self._concentration
        k = tf.cast(tf.shape(a)[-1], self.dtype)
        return (_lbeta(a) + (self._total - k) * tf.digamma(self._total)
                - tf.reduce_sum((a - 1.0) * tf.digamma(a), -1))

    def _mean(self):
        return self._concentration / tf.expand_dims(self._total, -1)

    def _variance(self):
        m = self._mean()
        return m * (1.0 - m) / tf.expand_dims(1.0 + self._total, -1)

    def _covariance(self):
        m = self._mean()
        scale = tf.expand_dims(tf.expand_dims(1.0 + self._total, -1), -1)
        cov = -tf.expand_dims(m, -1) * tf.expand_dims(m, -2)
        return (cov + tf.matrix_diag(m)) / scale

    def _mode(self):
        k = tf.cast(tf.shape(self._concentration)[-1], self.dtype)
        mode = (self._concentration - 1.0) / tf.expand_dims(self._total - k, -1)
        # a whole event is NaN when any of its concentrations is <= 1 (as TF 1.x)
        bad = tf.reduce_any(tf.less_equal(self._concentration, 1.0), -1, keepdims=True)
        return self._nan_where(tf.logical_or(bad, tf.zeros_like(mode, dtype=tf.bool)), mode,
                               "Mode undefined when any concentration <= 1",
                               [self._concentration])


class Multinomial(_LogitsProbs, _Counts):
    """Counts of ``total_count`` draws over ``K`` classes (``logits``/``probs`` along the
    last axis)."""

    def __init__(self, total_count, logits=None, probs=None, validate_args=False,
                 allow_nan_stats=True, name="Multinomial"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[total_count, logits, probs]) as scope:
            self._logits, self._probs = _logits_probs(logits, probs, True, validate_args)
            self._total_count = tf.convert_to_tensor(total_count, name="total_count",
                                                     dtype=self._probs.dtype)
            (self._total_count,) = _checked(
                validate_args, lambda: [tf.assert_non_negative(self._total_count)],
                [self._total_count])
        self._event_param = self._logits
        super().__init__(self._probs.dtype.base_dtype, NOT_REPARAMETERIZED, validate_args,
                         allow_nan_stats, parameters,
                         [self._total_count, self._logits, self._probs], scope)

    def _sample_n(self, n, seed):
        k = tf.shape(self._logits)[-1]
        batch = self.batch_shape_tensor()
        logits = self._logits + tf.zeros(tf.concat([batch, [k]], 0), self.dtype)
        counts = self._total_count + tf.zeros(batch, self.dtype)
        flat_logits = tf.reshape(logits, [-1, k])
        flat_counts = tf.reshape(counts, [-1])
        most = tf.cast(tf.reduce_max(flat_counts), tf.int32)
        rows = tf.shape(flat_logits)[0]
        draws = tf.multinomial(flat_logits, n * most, seed=seed, output_dtype=tf.int32)
        draws = tf.reshape(draws, [rows, n, most])
        used = tf.cast(tf.less(tf.cast(tf.range(most), self.dtype),
                               tf.reshape(flat_counts, [-1, 1, 1])), self.dtype)
        hits = tf.one_hot(draws, k, dtype=self.dtype) * tf.expand_dims(used, -1)
        out = tf.reduce_sum(hits, 2)  # [rows, n, k]
        out = tf.transpose(out, [1, 0, 2])
        return tf.reshape(out, tf.concat([[n], batch, [k]], 0))

    def _log_prob(self, counts):
        counts, log_norm = self._counts_log_norm(counts)
        return log_norm + tf.reduce_sum(counts * tf.nn.log_softmax(self._logits), -1)

    def _mean(self):
        return tf.expand_dims(self._total_count, -1) * self._probs

    def _variance(self):
        return tf.expand_dims(self._total_count, -1) * self._probs * (1.0 - self._probs)

    def _covariance(self):
        p = self._probs
        n = tf.expand_dims(tf.expand_dims(self._total_count, -1), -1)
        return n * (tf.matrix_diag(p) - tf.expand_dims(p, -1) * tf.expand_dims(p, -2))


class DirichletMultinomial(_Counts):
    """Counts of ``total_count`` draws with class probabilities drawn from a Dirichlet of
    ``concentration``."""

    def __init__(self, total_count, concentration, validate_args=False, allow_nan_stats=True,
                 name="DirichletMultinomial"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[total_count, concentration]) as scope:
            (self._concentration,) = _float_params([("concentration", concentration)])
            self._total_count = tf.convert_to_tensor(total_count, name="total_count",
                                                     dtype=self._concentration.dtype)
            self._total = tf.reduce_sum(self._concentration, -1)
        self._event_param = self._concentration
        super().__init__(self._concentration.dtype.base_dtype, NOT_REPARAMETERIZED,
                         validate_args, allow_nan_stats, parameters,
                         [self._total_count, self._concentration], scope)

    @property
    def concentration(self):
        return self._concentration

    @property
    def total_concentration(self):
        return self._total

    def _sample_n(self, n, seed):
        k = tf.shape(self._concentration)[-1]
        batch = self.batch_shape_tensor()
        conc = self._concentration + tf.zeros(tf.concat([batch, [k]], 0), self.dtype)
        g = tf.random_gamma([n], conc, dtype=self.dtype, seed=seed)  # [n, batch, k]
        logits = tf.log(g / tf.reduce_sum(g, -1, keepdims=True))
        counts = self._total_count + tf.zeros(batch, self.dtype)
        counts = counts + tf.zeros(tf.concat([[n], batch], 0), self.dtype)
        m = Multinomial(tf.reshape(counts, [-1]), logits=tf.reshape(logits, [-1, k]))
        one = m.sample(1, seed=None if seed is None else seed + 1)[0]
        return tf.reshape(one, tf.concat([[n], batch, [k]], 0))

    def _log_prob(self, counts):
        counts, log_norm = self._counts_log_norm(counts)
        return log_norm + _lbeta(self._concentration + counts) - _lbeta(self._concentration)

    _sum_message = "counts last-dimension must sum to `self.total_count`"

    # as TF 1.x, the batch shape is the concentration's alone
    def _batch_shape(self):
        return self._concentration.get_shape()[:-1]

    def _batch_shape_tensor(self):
        return tf.shape(self._concentration)[:-1]

    # As TF 1.x, the moments broadcast ``total_count`` against the event axis as it is (a
    # total_count of shape [4, 1] with concentration [4, 3] gives means of shape [4, 3]).
    def _mean(self):
        return self._total_count * (self._concentration / tf.expand_dims(self._total, -1))

    def _variance_scale(self):
        a0 = tf.expand_dims(self._total, -1)
        return tf.sqrt((1.0 + a0 / self._total_count) / (1.0 + a0))

    def _variance(self):
        scale = self._variance_scale()
        x = scale * self._mean()
        return x * (self._total_count * scale - x)

    def _covariance(self):
        x = self._variance_scale() * self._mean()
        outer = -tf.expand_dims(x, -1) * tf.expand_dims(x, -2)
        return tf.matrix_set_diag(outer, self._variance())


# ---------------------------------------------------------------------------------------------
# TF 1.x's (deprecated) variants taking unconstrained parameters
# ---------------------------------------------------------------------------------------------


def _keep_parameters(dist, parameters):
    parameters.pop("self", None)
    parameters.pop("__class__", None)
    dist._parameters = parameters


class NormalWithSoftplusScale(Normal):
    """A Normal whose ``scale`` is ``softplus`` of the given one."""

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True,
                 name="NormalWithSoftplusScale"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[scale]) as scope:
            super().__init__(loc, tf.nn.softplus(scale, name="softplus_scale"), validate_args,
                             allow_nan_stats, scope)
        _keep_parameters(self, parameters)


class LaplaceWithSoftplusScale(Laplace):
    """A Laplace whose ``scale`` is ``softplus`` of the given one."""

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True,
                 name="LaplaceWithSoftplusScale"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[loc, scale]) as scope:
            super().__init__(loc, tf.nn.softplus(scale, name="softplus_scale"), validate_args,
                             allow_nan_stats, scope)
        _keep_parameters(self, parameters)


class ExponentialWithSoftplusRate(Exponential):
    """An Exponential whose ``rate`` is ``softplus`` of the given one."""

    def __init__(self, rate, validate_args=False, allow_nan_stats=True,
                 name="ExponentialWithSoftplusRate"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[rate]) as scope:
            super().__init__(tf.nn.softplus(rate, name="softplus_rate"), validate_args,
                             allow_nan_stats, scope)
        _keep_parameters(self, parameters)


class GammaWithSoftplusConcentrationRate(Gamma):
    """A Gamma whose ``concentration`` and ``rate`` are ``softplus`` of the given ones."""

    def __init__(self, concentration, rate, validate_args=False, allow_nan_stats=True,
                 name="GammaWithSoftplusConcentrationRate"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[concentration, rate]) as scope:
            super().__init__(tf.nn.softplus(concentration, name="softplus_concentration"),
                             tf.nn.softplus(rate, name="softplus_rate"), validate_args,
                             allow_nan_stats, scope)
        _keep_parameters(self, parameters)


class BetaWithSoftplusConcentration(Beta):
    """A Beta whose concentrations are ``softplus`` of the given ones."""

    def __init__(self, concentration1, concentration0, validate_args=False,
                 allow_nan_stats=True, name="BetaWithSoftplusConcentration"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[concentration1, concentration0]) as scope:
            super().__init__(tf.nn.softplus(concentration1, name="softplus_concentration1"),
                             tf.nn.softplus(concentration0, name="softplus_concentration0"),
                             validate_args, allow_nan_stats, scope)
        _keep_parameters(self, parameters)


class StudentTWithAbsDfSoftplusScale(StudentT):
    """A StudentT with ``df = floor(|df|)`` and ``scale = softplus(scale)``."""

    def __init__(self, df, loc, scale, validate_args=False, allow_nan_stats=True,
                 name="StudentTWithAbsDfSoftplusScale"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[df, scale]) as scope:
            super().__init__(tf.floor(tf.abs(df)), loc,
                             tf.nn.softplus(scale, name="softplus_scale"), validate_args,
                             allow_nan_stats, scope)
        _keep_parameters(self, parameters)


# ---------------------------------------------------------------------------------------------
# KL divergences
# ---------------------------------------------------------------------------------------------


@RegisterKL(Normal, Normal)
def _kl_normal_normal(a, b, name=None):
    with tf.name_scope(name, "kl_normal_normal", [a.loc, b.loc]):
        ratio = tf.square(a.scale / b.scale)
        return (tf.square(a.loc - b.loc) / (2.0 * tf.square(b.scale))
                + 0.5 * (ratio - 1.0 - tf.log(ratio)))


@RegisterKL(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(a, b, name=None):
    with tf.name_scope(name, "kl_bernoulli_bernoulli", [a.logits, b.logits]):
        delta_a = tf.nn.softplus(-b.logits) - tf.nn.softplus(-a.logits)
        delta_b = tf.nn.softplus(b.logits) - tf.nn.softplus(a.logits)
        return tf.sigmoid(a.logits) * delta_a + tf.sigmoid(-a.logits) * delta_b


@RegisterKL(Categorical, Categorical)
def _kl_categorical_categorical(a, b, name=None):
    with tf.name_scope(name, "kl_categorical_categorical", [a.logits, b.logits]):
        la, lb = tf.nn.log_softmax(a.logits), tf.nn.log_softmax(b.logits)
        return tf.reduce_sum(tf.exp(la) * (la - lb), -1)


@RegisterKL(Gamma, Gamma)
def _kl_gamma_gamma(a, b, name=None):
    with tf.name_scope(name, "kl_gamma_gamma", [a.concentration, b.concentration]):
        ca, cb, ra, rb = a.concentration, b.concentration, a.rate, b.rate
        return ((ca - cb) * tf.digamma(ca) + tf.lgamma(cb) - tf.lgamma(ca)
                + cb * (tf.log(ra) - tf.log(rb)) + ca * (rb / ra - 1.0))


@RegisterKL(Beta, Beta)
def _kl_beta_beta(a, b, name=None):
    with tf.name_scope(name, "kl_beta_beta", [a.concentration1, b.concentration1]):
        a1, a0, b1, b0 = a.concentration1, a.concentration0, b.concentration1, b.concentration0
        ta = a1 + a0
        return (b._lbeta() - a._lbeta() + (a1 - b1) * tf.digamma(a1)
                + (a0 - b0) * tf.digamma(a0) + (b1 + b0 - ta) * tf.digamma(ta))


@RegisterKL(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(a, b, name=None):
    with tf.name_scope(name, "kl_dirichlet_dirichlet", [a.concentration, b.concentration]):
        ca, cb = a.concentration, b.concentration
        ta = tf.reduce_sum(ca, -1, keepdims=True)
        return (_lbeta(cb) - _lbeta(ca)
                + tf.reduce_sum((ca - cb) * (tf.digamma(ca) - tf.digamma(ta)), -1))
