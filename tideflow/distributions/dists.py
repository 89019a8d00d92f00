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
from tideflow.distributions.util import (
    embed_check_categorical_event_shape,
    embed_check_integer_casting_closed,
    embed_check_nonnegative_integer_form,
    gen_new_seed,
    get_logits_and_probs,
    log_combinations,
)
from tideflow.ops.control_flow_ops import with_dependencies

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
    """The broadcast shape of ``ts`` as TF 1.x builds it: the first shape, then the broadcast
    of the rest, then their broadcast."""
    first = tf.shape(ts[0])
    if len(ts) == 1:
        return first
    return tf.broadcast_dynamic_shape(first, _bshape_t(*ts[1:]))


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


def _nan(dtype):
    return np.array(np.nan, dtype=dtype.as_numpy_dtype)


def _ones(dtype):
    return tf.ones([], dtype)


class _ParamsDistribution(Distribution):
    """A distribution of floating point parameters whose batch shape is their broadcast shape."""

    def _init_params(self, name, names_values, checks, reparameterization_type, validate_args,
                     allow_nan_stats, parameters):
        """The ``(name, value)`` parameters as TF 1.x takes them: under the name scope
        ``name``, each an identity named after it (``Normal/loc``; a Python number or array
        becomes ``Normal/loc/input``), behind ``checks(*values)`` when ``validate_args``, all
        of one float dtype; initializes the distribution with them as graph parents and
        returns them."""
        values = [v for _, v in names_values]
        with (tf.name_scope(name, values=values) as scope,
              tf.control_dependencies(checks(*values) if validate_args else [])):
            ts = [tf.identity(v, name=n) for n, v in names_values]
            tf.assert_same_float_dtype(ts)
        self._batch_params = ts
        super().__init__(ts[0].dtype.base_dtype, reparameterization_type, validate_args,
                         allow_nan_stats, parameters, ts, scope)
        return ts

    def _batch_shape(self):
        return _bshape(*self._batch_params)

    def _batch_shape_tensor(self):
        return _bshape_t(*self._batch_params)

    def _event_shape_tensor(self):
        return tf.constant([], dtype=tf.int32)


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
        return self._event_param.get_shape().with_rank_at_least(1)[-1:]

    def _event_shape_tensor(self):
        return tf.shape(self._event_param)[-1:]


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
        draws = tf.random_normal(shape, mean=0.0, stddev=1.0, dtype=self._loc.dtype, seed=seed)
        return draws * self._scale + self._loc

    def _z(self, x):
        with tf.name_scope("standardize", values=[x]):
            return (x - self._loc) / self._scale

    def _log_prob(self, x):
        log_unnormalized = -0.5 * tf.square(self._z(x))
        return log_unnormalized - (_HALF_LOG_TWO_PI + tf.log(self._scale))

    def _cdf(self, x):
        return ndtr(self._z(x))

    def _log_cdf(self, x):
        return log_ndtr(self._z(x))

    def _survival_function(self, x):
        return ndtr(-self._z(x))

    def _log_survival_function(self, x):
        return log_ndtr(-self._z(x))

    def _quantile(self, p):
        z = ndtri(p)
        with tf.name_scope("reconstruct", values=[z]):
            return z * self._scale + self._loc

    def _entropy(self):
        scale = self._scale * tf.ones_like(self._loc)
        return 0.5 * math.log(2.0 * math.pi * math.e) + tf.log(scale)

    def _mean(self):
        return self._loc * tf.ones_like(self._scale)

    def _stddev(self):
        return self._scale * tf.ones_like(self._loc)


class Laplace(_LocScale):
    """The Laplace distribution: density ``exp(-|x - loc| / scale) / (2 scale)``."""

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Laplace"):
        super().__init__(loc, scale, validate_args, allow_nan_stats, name)

    def _sample_n(self, n, seed):
        shape = _sample_shape(n, self.batch_shape_tensor())
        # u in (-1, 1): log1p(-|u|) stays finite
        np_dtype = self.dtype.as_numpy_dtype
        u = tf.random_uniform(shape, minval=np.nextafter(np_dtype(-1.0), np_dtype(0.0)),
                              maxval=1.0, dtype=self.dtype, seed=seed)
        return self._loc - self._scale * tf.sign(u) * tf.log1p(-tf.abs(u))

    def _z(self, x):
        return (x - self._loc) / self._scale

    def _log_prob(self, x):
        return -tf.abs(self._z(x)) - (math.log(2.0) + tf.log(self._scale))

    def _prob(self, x):
        return tf.exp(self._log_prob(x))

    def _cdf(self, x):
        z = self._z(x)
        return 0.5 + 0.5 * tf.sign(z) * (1.0 - tf.exp(-tf.abs(z)))

    def _log_cdf(self, x):
        return log_cdf_laplace(self._z(x))

    def _log_survival_function(self, x):
        return log_cdf_laplace(-self._z(x))

    # (beyond TF 1.15, which has no Laplace, Uniform or Exponential quantile nor Bernoulli
    # cdf; they build ops only when called)
    def _quantile(self, p):
        d = p - 0.5
        return self._loc - self._scale * tf.sign(d) * tf.log1p(-2.0 * tf.abs(d))

    def _entropy(self):
        scale = self._scale + tf.zeros_like(self._loc)
        return math.log(2.0) + 1.0 + tf.log(scale)

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
        u = tf.random_uniform(shape=shape, dtype=self.dtype, seed=seed)
        return self._low + self.range() * u

    def _prob(self, x):
        x = x * tf.ones(self.batch_shape_tensor(), dtype=x.dtype)
        # a NaN point has a NaN density (as TF), not 0
        nan = tf.is_nan(x)
        outside = tf.logical_or(x < self._low, x >= self._high)
        return tf.where_v2(nan, x, tf.where_v2(outside, tf.zeros_like(x),
                                               tf.ones_like(x) / self.range()))

    def _cdf(self, x):
        shape = tf.broadcast_dynamic_shape(tf.shape(x), self.batch_shape_tensor())
        zeros = tf.zeros(shape, dtype=self.dtype)
        ones = tf.ones(shape, dtype=self.dtype)
        bx = x * ones
        below_high = tf.where_v2(x < self._low, zeros, (bx - self._low) / self.range())
        return tf.where_v2(x >= self._high, ones, below_high)

    def _quantile(self, p):
        return self._low + p * (self._high - self._low)

    def _entropy(self):
        return tf.log(self.range())

    def _mean(self):
        return (self._low + self._high) / 2.0

    def _variance(self):
        return tf.square(self.range()) / 12.0

    def _stddev(self):
        return self.range() / math.sqrt(12.0)


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
        return tf.random_gamma(shape=[n], alpha=self._concentration, beta=self._rate,
                               dtype=self.dtype, seed=seed)

    def _valid_sample(self, x):
        tf.assert_same_float_dtype(tensors=[x], dtype=self.dtype)
        if not self.validate_args:
            return x
        return with_dependencies([tf.assert_positive(x)], x)

    def _log_prob(self, x):
        x = self._valid_sample(x)
        # xlogy: a concentration of 1 at x = 0 gives log(rate), not NaN
        log_unnormalized = tf.math.xlogy(self._concentration - 1.0, x) - self._rate * x
        return log_unnormalized - (tf.lgamma(self._concentration)
                                   - self._concentration * tf.log(self._rate))

    def _cdf(self, x):
        x = self._valid_sample(x)
        return tf.math.igamma(self._concentration, self._rate * x)

    def _entropy(self):
        a = self._concentration
        return a - tf.log(self._rate) + tf.lgamma(a) + (1.0 - a) * tf.digamma(a)

    def _mean(self):
        return self._concentration / self._rate

    def _variance(self):
        return self._concentration / tf.square(self._rate)

    def _stddev(self):
        return tf.sqrt(self._concentration) / self._rate

    def _mode(self):
        # as TF 1.x: defined only for concentration > 1 (an Exponential's mode is NaN too)
        mode = (self._concentration - 1.0) / self._rate
        if self.allow_nan_stats:
            nan = tf.fill(self.batch_shape_tensor(), _nan(self.dtype), name="nan")
            return tf.where_v2(self._concentration > 1.0, mode, nan)
        return with_dependencies(
            [tf.assert_less(_ones(self.dtype), self._concentration,
                            message="mode not defined when any concentration <= 1")], mode)


class Exponential(Gamma):
    """The exponential distribution with rate ``rate`` (a Gamma with concentration 1)."""

    def __init__(self, rate, validate_args=False, allow_nan_stats=True, name="Exponential"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[rate]) as scope:
            rate = tf.convert_to_tensor(rate, name="rate")
        # as TF 1.x, the unit concentration is made outside the distribution's scope
        super().__init__(tf.ones([], dtype=rate.dtype), rate, validate_args, allow_nan_stats,
                         name=scope)
        _keep_parameters(self, parameters)
        self._graph_parents.append(rate)

    _param_shapes = _same_shapes("rate")

    def _log_survival_function(self, x):
        return self._log_prob(x) - tf.log(self._rate)

    def _sample_n(self, n, seed):
        shape = _sample_shape(n, tf.shape(self._rate))
        u = tf.random_uniform(shape, minval=np.finfo(self.dtype.as_numpy_dtype).tiny,
                              maxval=1.0, seed=seed, dtype=self.dtype)
        return -tf.log(u) / self._rate

    def _quantile(self, p):
        return -tf.log1p(-p) / self._rate


class Beta(_ParamsDistribution):
    """The Beta distribution on (0, 1) with ``concentration1`` (alpha) and ``concentration0``
    (beta)."""

    def __init__(self, concentration1=None, concentration0=None, validate_args=False,
                 allow_nan_stats=True, name="Beta"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[concentration1, concentration0]) as scope:
            self._c1 = self._valid_concentration(
                tf.convert_to_tensor(concentration1, name="concentration1"), validate_args)
            self._c0 = self._valid_concentration(
                tf.convert_to_tensor(concentration0, name="concentration0"), validate_args)
            tf.assert_same_float_dtype([self._c1, self._c0])
            self._total = self._c1 + self._c0
        self._batch_params = [self._total]
        Distribution.__init__(self, self._total.dtype.base_dtype, FULLY_REPARAMETERIZED,
                              validate_args, allow_nan_stats, parameters,
                              [self._c1, self._c0, self._total], scope)

    @staticmethod
    def _valid_concentration(c, validate_args):
        if not validate_args:
            return c
        return with_dependencies(
            [tf.assert_positive(c, message="Concentration parameter must be positive.")], c)

    _param_shapes = _same_shapes("concentration1", "concentration0")

    @property
    def concentration1(self):
        return self._c1

    @property
    def concentration0(self):
        return self._c0

    @property
    def total_concentration(self):
        return self._total

    def _batch_shape(self):
        return self._total.get_shape()

    def _batch_shape_tensor(self):
        return tf.shape(self._total)

    def _sample_n(self, n, seed):
        c1 = tf.ones_like(self._total, dtype=self.dtype) * self._c1
        c0 = tf.ones_like(self._total, dtype=self.dtype) * self._c0
        g1 = tf.random_gamma(shape=[n], alpha=c1, dtype=self.dtype, seed=seed)
        g0 = tf.random_gamma(shape=[n], alpha=c0, dtype=self.dtype,
                             seed=gen_new_seed(seed, "beta"))
        return g1 / (g1 + g0)

    def _log_normalization(self):
        return tf.lgamma(self._c1) + tf.lgamma(self._c0) - tf.lgamma(self._total)

    _lbeta = _log_normalization

    def _log_prob(self, x):
        if self.validate_args:
            x = with_dependencies(
                [tf.assert_positive(x, message="sample must be positive"),
                 tf.assert_less(x, _ones(self.dtype), message="sample must be less than `1`.")],
                x)
        # as TF 1.x: xlogy for x (concentration1 = 1 at x = 0 contributes 0, not NaN), a
        # plain product for 1 - x (so concentration0 = 1 at x = 1 is NaN, as in TF)
        log_unnormalized = (tf.math.xlogy(self._c1 - 1.0, x)
                            + (self._c0 - 1.0) * tf.log1p(-x))
        return log_unnormalized - self._log_normalization()

    def _prob(self, x):
        return tf.exp(self._log_prob(x))

    def _log_cdf(self, x):
        return tf.log(self._cdf(x))

    def _cdf(self, x):
        return tf.math.betainc(self._c1, self._c0, x)

    def _entropy(self):
        a, b, t = self._c1, self._c0, self._total
        return (self._log_normalization() - (a - 1.0) * tf.digamma(a)
                - (b - 1.0) * tf.digamma(b) + (t - 2.0) * tf.digamma(t))

    def _mean(self):
        return self._c1 / self._total

    def _variance(self):
        return self._mean() * (1.0 - self._mean()) / (1.0 + self._total)

    def _mode(self):
        mode = (self._c1 - 1.0) / (self._total - 2.0)
        if self.allow_nan_stats:
            nan = tf.fill(self.batch_shape_tensor(), _nan(self.dtype), name="nan")
            defined = tf.logical_and(self._c1 > 1.0, self._c0 > 1.0)
            return tf.where_v2(defined, mode, nan)
        return with_dependencies(
            [tf.assert_less(_ones(self.dtype), self._c1,
                            message="Mode undefined for concentration1 <= 1."),
             tf.assert_less(_ones(self.dtype), self._c0,
                            message="Mode undefined for concentration0 <= 1.")], mode)


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

    def _batch_ones(self):
        return tf.ones(self.batch_shape_tensor(), dtype=self.dtype)

    def _sample_n(self, n, seed):
        shape = _sample_shape(n, self.batch_shape_tensor())
        z = tf.random_normal(shape, dtype=self.dtype, seed=seed)
        df = self._df * self._batch_ones()
        g = tf.random_gamma([n], 0.5 * df, beta=0.5, dtype=self.dtype,
                            seed=gen_new_seed(seed, salt="student_t"))
        return z * tf.rsqrt(g / df) * self._scale + self._loc

    def _log_prob(self, x):
        df = self._df
        y = (x - self._loc) / self._scale
        log_unnormalized = -0.5 * (df + 1.0) * tf.log1p(y ** 2.0 / df)
        log_normalization = (tf.log(tf.abs(self._scale)) + 0.5 * tf.log(df)
                             + 0.5 * np.log(np.pi) + tf.lgamma(0.5 * df)
                             - tf.lgamma(0.5 * (df + 1.0)))
        return log_unnormalized - log_normalization

    def _cdf(self, x):
        y = (x - self._loc) / tf.abs(self._scale)
        x_t = self._df / (y ** 2.0 + self._df)
        below = 0.5 * tf.math.betainc(0.5 * self._df, 0.5, x_t)
        return tf.where_v2(tf.less(y, 0.0), below, 1.0 - below)

    def _entropy(self):
        df = self._df
        v = self._batch_ones()[..., tf.newaxis]
        u = v * df[..., tf.newaxis]
        beta_arg = tf.concat([u, v], -1) / 2.0
        return (tf.log(tf.abs(self._scale)) + 0.5 * tf.log(df) + tf.lbeta(beta_arg)
                + 0.5 * (df + 1.0) * (tf.digamma(0.5 * (df + 1.0)) - tf.digamma(0.5 * df)))

    def _mean(self):
        mean = self._loc * self._batch_ones()
        if self.allow_nan_stats:
            return tf.where_v2(tf.greater(self._df, self._batch_ones()), mean,
                               tf.fill(self.batch_shape_tensor(), _nan(self.dtype), name="nan"))
        return with_dependencies(
            [tf.assert_less(_ones(self.dtype), self._df,
                            message="mean not defined for components of df <= 1")], mean)

    def _variance(self):
        df = self._df
        denom = tf.where_v2(tf.greater(df, 2.0), df - 2.0, tf.ones_like(df))
        var = self._batch_ones() * tf.square(self._scale) * df / denom
        inf = np.array(np.inf, dtype=self.dtype.as_numpy_dtype)
        defined = tf.where_v2(df > tf.fill(self.batch_shape_tensor(), 2.0), var,
                              tf.fill(self.batch_shape_tensor(), inf, name="inf"))
        if self.allow_nan_stats:
            return tf.where_v2(tf.greater(df, self._batch_ones()), defined,
                               tf.fill(self.batch_shape_tensor(), _nan(self.dtype), name="nan"))
        return with_dependencies(
            [tf.assert_less(_ones(self.dtype), df,
                            message="variance not defined for components of df <= 1")], defined)

    def _mode(self):
        return tf.identity(self._loc)


# ---------------------------------------------------------------------------------------------
# discrete
# ---------------------------------------------------------------------------------------------


def _logits_probs(logits, probs, multidimensional, validate_args=False):
    """``get_logits_and_probs`` in the current name scope (as TF's distributions call it with
    their own scope)."""
    scope = tf.get_default_graph().get_name_scope()
    return get_logits_and_probs(logits=logits, probs=probs, multidimensional=multidimensional,
                                validate_args=validate_args,
                                name=scope + "/" if scope else None)


class Bernoulli(_LogitsProbs, Distribution):
    """The Bernoulli distribution: 1 with probability ``probs`` (or ``sigmoid(logits)``)."""

    def __init__(self, logits=None, probs=None, dtype=tf.int32, validate_args=False,
                 allow_nan_stats=True, name="Bernoulli"):
        parameters = dict(locals())
        with tf.name_scope(name) as scope:
            self._logits, self._probs = get_logits_and_probs(
                logits=logits, probs=probs, validate_args=validate_args, name=scope)
        super().__init__(tf.as_dtype(dtype), NOT_REPARAMETERIZED, validate_args,
                         allow_nan_stats, parameters, [self._logits, self._probs],
                         scope)

    _param_shapes = _same_shapes("logits")

    def _batch_shape(self):
        return self._logits.get_shape()

    def _batch_shape_tensor(self):
        return tf.shape(self._logits)

    def _event_shape_tensor(self):
        return tf.constant([], dtype=tf.int32)

    def _sample_n(self, n, seed):
        shape = _sample_shape(n, self.batch_shape_tensor())
        u = tf.random_uniform(shape, seed=seed, dtype=self._probs.dtype)
        return tf.cast(tf.less(u, self._probs), self.dtype)

    def _log_prob(self, event):
        if self.validate_args:
            event = embed_check_integer_casting_closed(event, target_dtype=tf.bool)
        event = tf.cast(event, self._logits.dtype)
        logits = self._logits
        es, ls = event.get_shape(), logits.get_shape()
        if not (es.is_fully_defined() and ls.is_fully_defined() and es == ls):
            logits, event = tf.ones_like(event) * logits, tf.ones_like(logits) * event
        return -tf.nn.sigmoid_cross_entropy_with_logits(labels=event, logits=logits)

    # (no cdf: TF 1.15's Bernoulli raises NotImplementedError for it)
    def _entropy(self):
        return (-self._logits * (tf.sigmoid(self._logits) - 1)
                + tf.nn.softplus(-self._logits))

    def _mean(self):
        return tf.identity(self._probs)

    def _variance(self):
        return self._mean() * (1.0 - self._probs)

    def _mode(self):
        return tf.cast(self._probs > 0.5, self.dtype)


def _broadcast_event_and_params(event, params):
    """``(event, params)`` of Categorical's ``log_prob``/``cdf``: a float event as int32,
    both broadcast (params over the event's shape, the event over params' batch shape)
    unless their shapes are known to agree."""
    if event.dtype.is_floating:
        event = tf.cast(event, dtype=tf.int32)
    elif not event.dtype.is_integer:
        raise TypeError(f"`value` should have integer `dtype` or `self.dtype` "
                        f"({params.dtype.base_dtype})")
    ps, es = params.get_shape(), event.get_shape()
    known = ps.ndims is not None and ps[:-1].is_fully_defined() and es.is_fully_defined()
    if not known or ps[:-1] != es:
        params = params * tf.ones_like(event[..., tf.newaxis], dtype=params.dtype)
        event = event * tf.ones(tf.shape(params)[:-1], dtype=event.dtype)
        if params.get_shape().ndims is not None:
            event.set_shape(tf.TensorShape(params.get_shape()[:-1]))
    return event, params


def batch_rank_of(logits):
    """The batch rank of ``logits`` [..., classes] as TF 1.15's Categorical makes it: a
    ``batch_rank`` constant when the rank is static, else ``rank - 1`` under that scope."""
    static = logits.get_shape().with_rank_at_least(1)
    if static.ndims is not None:
        return tf.convert_to_tensor(static.ndims - 1, dtype=tf.int32, name="batch_rank")
    with tf.name_scope("batch_rank"):
        return tf.rank(logits) - 1


class Categorical(_LogitsProbs, Distribution):
    """A distribution over ``{0, ..., K-1}`` with ``logits`` or ``probs`` along the last
    axis."""

    def __init__(self, logits=None, probs=None, dtype=tf.int32, validate_args=False,
                 allow_nan_stats=True, name="Categorical"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[logits, probs]) as scope:
            self._logits, self._probs = get_logits_and_probs(
                logits=logits, probs=probs, validate_args=validate_args,
                multidimensional=True, name=scope)
            if validate_args:
                self._logits = embed_check_categorical_event_shape(self._logits)
            static = self._logits.get_shape().with_rank_at_least(1)
            # TF 1.x makes the batch rank, logits' shape, event size and batch shape here
            self._batch_rank = batch_rank_of(self._logits)
            logits_shape = tf.shape(self._logits, name="logits_shape")
            if static[-1].value is not None:
                self._event_size = tf.convert_to_tensor(static[-1].value, dtype=tf.int32,
                                                        name="event_size")
            else:
                with tf.name_scope("event_size"):
                    self._event_size = logits_shape[self._batch_rank]
            if static[:-1].is_fully_defined():
                self._batch_shape_val = tf.constant(static[:-1].as_list(), dtype=tf.int32,
                                                    name="batch_shape")
            else:
                with tf.name_scope("batch_shape"):
                    self._batch_shape_val = logits_shape[:-1]
        super().__init__(tf.as_dtype(dtype), NOT_REPARAMETERIZED, validate_args,
                         allow_nan_stats, parameters, [self._logits, self._probs],
                         scope)

    @property
    def event_size(self):
        """The number of classes, an int32 scalar tensor (constant when known statically)."""
        return self._event_size

    def _batch_shape(self):
        return self._logits.get_shape()[:-1]

    def _batch_shape_tensor(self):
        return tf.identity(self._batch_shape_val)

    def _event_shape_tensor(self):
        return tf.constant([], dtype=tf.int32)

    def _sample_n(self, n, seed):
        if self._logits.get_shape().ndims == 2:
            logits_2d = self._logits
        else:
            logits_2d = tf.reshape(self._logits, [-1, self._event_size])
        sample_dtype = tf.int64 if self.dtype.size > 4 else tf.int32
        draws = tf.multinomial(logits_2d, n, seed=seed, output_dtype=sample_dtype)
        draws = tf.reshape(tf.transpose(draws),
                           tf.concat([[n], self.batch_shape_tensor()], 0))
        return tf.cast(draws, self.dtype)

    def _valid_k(self, k):
        k = tf.convert_to_tensor(k, name="k")
        if self.validate_args:
            k = embed_check_integer_casting_closed(k, target_dtype=tf.int32)
        return k

    def _log_prob(self, k):
        k, logits = _broadcast_event_and_params(self._valid_k(k), self._logits)
        return -tf.nn.sparse_softmax_cross_entropy_with_logits(labels=k, logits=logits)

    def _cdf(self, k):
        # as TF 1.x, the classes below k: P(X < k)
        k, probs = _broadcast_event_and_params(self._valid_k(k), self._probs)
        flat_probs = tf.reshape(probs, (-1, self._event_size))
        flat_k = tf.reshape(k, [-1])
        below = tf.where(tf.sequence_mask(flat_k, self._event_size), flat_probs,
                         tf.zeros_like(flat_probs))
        return tf.reshape(tf.reduce_sum(below, axis=-1), tf.shape(k))

    def _entropy(self):
        return -tf.reduce_sum(tf.nn.log_softmax(self._logits) * self._probs, axis=-1)

    def _mode(self):
        mode = tf.cast(tf.argmax(self._logits, axis=self._batch_rank), self.dtype)
        mode.set_shape(self.batch_shape)
        return mode


class Dirichlet(_VectorEvent, Distribution):
    """The Dirichlet distribution over the simplex, with ``concentration`` along the last
    axis."""

    def __init__(self, concentration, validate_args=False, allow_nan_stats=True,
                 name="Dirichlet"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[concentration]) as scope:
            c = tf.convert_to_tensor(concentration, name="concentration")
            if validate_args:
                c = with_dependencies(
                    [tf.assert_positive(c, message="Concentration parameter must be "
                                        "positive."),
                     tf.assert_rank_at_least(c, 1, message="Concentration parameter must "
                                             "have >=1 dimensions."),
                     tf.assert_less(1, tf.shape(c)[-1], message="Concentration parameter "
                                    "must have event_size >= 2.")], c)
            self._concentration = c
            self._total = tf.reduce_sum(c, -1)
        self._event_param = self._concentration
        super().__init__(self._concentration.dtype.base_dtype, FULLY_REPARAMETERIZED,
                         validate_args, allow_nan_stats, parameters,
                         [self._concentration, self._total], scope)

    @property
    def concentration(self):
        return self._concentration

    @property
    def total_concentration(self):
        return self._total

    def _batch_shape(self):
        return self._total.get_shape()

    def _batch_shape_tensor(self):
        return tf.shape(self._total)

    def _sample_n(self, n, seed):
        g = tf.random_gamma(shape=[n], alpha=self._concentration, dtype=self.dtype, seed=seed)
        return g / tf.reduce_sum(g, -1, keepdims=True)

    def _log_prob(self, x):
        if self.validate_args:
            x = with_dependencies(
                [tf.assert_positive(x, message="samples must be positive"),
                 tf.assert_near(_ones(self.dtype), tf.reduce_sum(x, -1),
                                message="sample last-dimension must sum to `1`")], x)
        log_unnormalized = tf.reduce_sum(tf.math.xlogy(self._concentration - 1.0, x), -1)
        return log_unnormalized - tf.lbeta(self._concentration)

    def _prob(self, x):
        return tf.exp(self._log_prob(x))

    def _entropy(self):
        k = tf.cast(self.event_shape_tensor()[0], self.dtype)
        return (tf.lbeta(self._concentration)
                + (self._total - k) * tf.digamma(self._total)
                - tf.reduce_sum((self._concentration - 1.0) * tf.digamma(self._concentration),
                                axis=-1))

    def _mean(self):
        return self._concentration / self._total[..., tf.newaxis]

    def _covariance(self):
        x = self._variance_scale() * self._mean()
        return tf.matrix_set_diag(-tf.matmul(x[..., tf.newaxis], x[..., tf.newaxis, :]),
                                  self._variance())

    def _variance(self):
        scale = self._variance_scale()
        x = scale * self._mean()
        return x * (scale - x)

    def _variance_scale(self):
        return tf.rsqrt(1.0 + self._total[..., tf.newaxis])

    def _mode(self):
        k = tf.cast(self.event_shape_tensor()[0], self.dtype)
        mode = (self._concentration - 1.0) / (self._total[..., tf.newaxis] - k)
        if self.allow_nan_stats:
            # a whole event is NaN when any of its concentrations is <= 1 (as TF 1.x)
            nan = tf.fill(tf.shape(mode), _nan(self.dtype), name="nan")
            return tf.where_v2(tf.reduce_all(self._concentration > 1.0, axis=-1), mode, nan)
        return with_dependencies(
            [tf.assert_less(_ones(self.dtype), self._concentration,
                            message="Mode undefined when any concentration <= 1")], mode)


class _Counts(_VectorEvent, Distribution):
    """Counts of ``total_count`` draws over the classes of the last axis."""

    @property
    def total_count(self):
        return self._total_count

    _sum_message = "counts must sum to `self.total_count`"

    def _valid_counts(self, counts):
        if not self.validate_args:
            return counts
        counts = embed_check_nonnegative_integer_form(counts)
        return with_dependencies(
            [tf.assert_equal(self._total_count, tf.reduce_sum(counts, -1),
                             message=self._sum_message)], counts)


class Multinomial(_LogitsProbs, _Counts):
    """Counts of ``total_count`` draws over ``K`` classes (``logits``/``probs`` along the
    last axis)."""

    def __init__(self, total_count, logits=None, probs=None, validate_args=False,
                 allow_nan_stats=True, name="Multinomial"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[total_count, logits, probs]) as scope:
            self._total_count = tf.convert_to_tensor(total_count, name="total_count")
            if validate_args:
                self._total_count = embed_check_nonnegative_integer_form(self._total_count)
            self._logits, self._probs = get_logits_and_probs(
                logits=logits, probs=probs, multidimensional=True,
                validate_args=validate_args, name=scope)
            self._mean_val = self._total_count[..., tf.newaxis] * self._probs
        self._event_param = self._mean_val
        super().__init__(self._probs.dtype.base_dtype, NOT_REPARAMETERIZED, validate_args,
                         allow_nan_stats, parameters,
                         [self._total_count, self._logits, self._probs], scope)

    def _batch_shape(self):
        return self._mean_val.get_shape().with_rank_at_least(1)[:-1]

    def _batch_shape_tensor(self):
        return tf.shape(self._mean_val)[:-1]

    def _sample_n(self, n, seed):
        n_draws = tf.cast(self._total_count, dtype=tf.int32)
        k = self.event_shape_tensor()[0]
        n_draws = tf.ones_like(self._logits[..., 0], dtype=n_draws.dtype) * n_draws
        logits = tf.ones_like(n_draws[..., tf.newaxis], dtype=self._logits.dtype) * self._logits
        flat_logits = tf.reshape(logits, [-1, k])
        flat_ndraws = n * tf.reshape(n_draws, [-1])

        def one_row(args):
            row_logits, row_draws = args[0], args[1]
            x = tf.multinomial(row_logits[tf.newaxis, ...], row_draws, seed)
            x = tf.reshape(x, shape=[n, -1])
            return tf.reduce_sum(tf.one_hot(x, depth=k), axis=-2)

        x = tf.map_fn(one_row, [flat_logits, flat_ndraws], dtype=self.dtype)
        x = tf.transpose(x, perm=[1, 0, 2])
        final_shape = tf.concat([[n], self.batch_shape_tensor(), [k]], 0)
        return tf.reshape(x, final_shape)

    def _log_prob(self, counts):
        log_unnormalized = tf.reduce_sum(
            self._valid_counts(counts) * tf.nn.log_softmax(self._logits), -1)
        counts = self._valid_counts(counts)
        return log_unnormalized - -log_combinations(self._total_count, counts)

    def _mean(self):
        return tf.identity(self._mean_val)

    def _covariance(self):
        p = self._probs * tf.ones_like(self._total_count)[..., tf.newaxis]
        return tf.matrix_set_diag(
            -tf.matmul(self._mean_val[..., tf.newaxis], p[..., tf.newaxis, :]),
            self._variance())

    def _variance(self):
        p = self._probs * tf.ones_like(self._total_count)[..., tf.newaxis]
        return self._mean_val - self._mean_val * p


class DirichletMultinomial(_Counts):
    """Counts of ``total_count`` draws with class probabilities drawn from a Dirichlet of
    ``concentration``."""

    def __init__(self, total_count, concentration, validate_args=False, allow_nan_stats=True,
                 name="DirichletMultinomial"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[total_count, concentration]) as scope:
            self._total_count = tf.convert_to_tensor(total_count, name="total_count")
            if validate_args:
                self._total_count = embed_check_nonnegative_integer_form(self._total_count)
            c = tf.convert_to_tensor(concentration, name="concentration")
            if validate_args:
                c = embed_check_categorical_event_shape(c)
                c = with_dependencies(
                    [tf.assert_positive(c, message="Concentration parameter must be "
                                        "positive.")], c)
            self._concentration = c
            self._total = tf.reduce_sum(c, -1)
        self._event_param = self._concentration
        super().__init__(self._concentration.dtype.base_dtype, NOT_REPARAMETERIZED,
                         validate_args, allow_nan_stats, parameters,
                         [self._total_count, self._concentration], scope)

    _sum_message = "counts last-dimension must sum to `self.total_count`"

    @property
    def concentration(self):
        return self._concentration

    @property
    def total_concentration(self):
        return self._total

    # as TF 1.x, the batch shape is the concentration's alone
    def _batch_shape(self):
        return self._total.get_shape()

    def _batch_shape_tensor(self):
        return tf.shape(self._total)

    def _sample_n(self, n, seed):
        n_draws = tf.cast(self._total_count, dtype=tf.int32)
        k = self.event_shape_tensor()[0]
        g = tf.random_gamma(shape=[n], alpha=self._concentration, dtype=self.dtype, seed=seed)
        logits = tf.reshape(tf.log(g), shape=[-1, k])
        draws = tf.multinomial(logits=logits, num_samples=n_draws,
                               seed=gen_new_seed(seed, salt="dirichlet_multinomial"))
        x = tf.reduce_sum(tf.one_hot(draws, depth=k), -2)
        final_shape = tf.concat([[n], self.batch_shape_tensor(), [k]], 0)
        return tf.cast(tf.reshape(x, final_shape), self.dtype)

    def _log_prob(self, counts):
        counts = self._valid_counts(counts)
        ordered = tf.lbeta(self._concentration + counts) - tf.lbeta(self._concentration)
        return ordered + log_combinations(self._total_count, counts)

    def _prob(self, counts):
        return tf.exp(self._log_prob(counts))

    # As TF 1.x, the moments broadcast ``total_count`` against the event axis as it is (a
    # total_count of shape [4, 1] with concentration [4, 3] gives means of shape [4, 3]).
    def _mean(self):
        return self._total_count * (self._concentration / self._total[..., tf.newaxis])

    def _variance_scale(self):
        c0 = self._total[..., tf.newaxis]
        return tf.sqrt((1.0 + c0 / self._total_count) / (1.0 + c0))

    def _variance(self):
        scale = self._variance_scale()
        x = scale * self._mean()
        return x * (self._total_count * scale - x)

    def _covariance(self):
        x = self._variance_scale() * self._mean()
        return tf.matrix_set_diag(-tf.matmul(x[..., tf.newaxis], x[..., tf.newaxis, :]),
                                  self._variance())


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
        one = tf.constant(1, dtype=a.dtype)
        two = tf.constant(2, dtype=a.dtype)
        half = tf.constant(0.5, dtype=a.dtype)
        var_a = tf.square(a.scale)
        var_b = tf.square(b.scale)
        ratio = var_a / var_b
        return (tf.squared_difference(a.loc, b.loc) / (two * var_b)
                + half * (ratio - one - tf.log(ratio)))


@RegisterKL(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(a, b, name=None):
    with tf.name_scope(name, "kl_bernoulli_bernoulli", values=[a.logits, b.logits]):
        delta_0 = tf.nn.softplus(-b.logits) - tf.nn.softplus(-a.logits)
        delta_1 = tf.nn.softplus(b.logits) - tf.nn.softplus(a.logits)
        return tf.sigmoid(a.logits) * delta_0 + tf.sigmoid(-a.logits) * delta_1


@RegisterKL(Categorical, Categorical)
def _kl_categorical_categorical(a, b, name=None):
    with tf.name_scope(name, "kl_categorical_categorical", values=[a.logits, b.logits]):
        delta = tf.nn.log_softmax(a.logits) - tf.nn.log_softmax(b.logits)
        return tf.reduce_sum(tf.nn.softmax(a.logits) * delta, axis=-1)


@RegisterKL(Gamma, Gamma)
def _kl_gamma_gamma(a, b, name=None):
    with tf.name_scope(name, "kl_gamma_gamma", values=[a.concentration, a.rate,
                                                       b.concentration, b.rate]):
        ca, cb, ra, rb = a.concentration, b.concentration, a.rate, b.rate
        return ((ca - cb) * tf.digamma(ca) + tf.lgamma(cb) - tf.lgamma(ca)
                + cb * tf.log(ra) - cb * tf.log(rb) + ca * (rb / ra - 1.0))


@RegisterKL(Beta, Beta)
def _kl_beta_beta(a, b, name=None):
    with tf.name_scope(name, "kl_beta_beta", values=[a.concentration1, a.concentration0,
                                                     a.total_concentration, b.concentration1,
                                                     b.concentration0, b.total_concentration]):
        # each difference is b's minus a's, made where the sum needs it (TF 1.x's order)
        def delta(get):
            return get(b) - get(a)
        return (delta(lambda d: d._log_normalization())
                - tf.digamma(a.concentration1) * delta(lambda d: d.concentration1)
                - tf.digamma(a.concentration0) * delta(lambda d: d.concentration0)
                + tf.digamma(a.total_concentration)
                * delta(lambda d: d.total_concentration))


@RegisterKL(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(a, b, name=None):
    with tf.name_scope(name, "kl_dirichlet_dirichlet", values=[a.concentration,
                                                               b.concentration]):
        digamma_total = tf.digamma(tf.reduce_sum(a.concentration, axis=-1, keepdims=True))
        digamma_diff = tf.digamma(a.concentration) - digamma_total
        concentration_diff = a.concentration - b.concentration
        return (tf.reduce_sum(concentration_diff * digamma_diff, axis=-1)
                - tf.lbeta(a.concentration) + tf.lbeta(b.concentration))
