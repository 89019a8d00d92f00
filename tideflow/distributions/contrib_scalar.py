"""``tf.contrib.distributions``' scalar-event families beyond ``tf.distributions`` (TF 1.15):
the counts (Poisson, Binomial, NegativeBinomial, Geometric), Chi2, InverseGamma, Logistic,
Cauchy, HalfNormal and the point masses Deterministic / VectorDeterministic."""

import math

import numpy as np

import tideflow as tf
from tideflow.distributions.distribution import (
    FULLY_REPARAMETERIZED,
    NOT_REPARAMETERIZED,
    Distribution,
)
from tideflow.distributions.dists import (
    Gamma,
    _all_positive,
    _ConcentrationRate,
    _float_params,
    _keep_parameters,
    _LocScale,
    _logits_probs,
    _ParamsDistribution,
    _same_shapes,
    _sample_shape,
)
from tideflow.distributions.special_math import erfinv
from tideflow.distributions.util import embed_check_nonnegative_integer_form, gen_new_seed
from tideflow.framework import ops
from tideflow.ops.control_flow_ops import with_dependencies

__all__ = ["Binomial", "Cauchy", "Chi2", "Chi2WithAbsDf", "Deterministic", "Geometric",
           "HalfNormal", "InverseGamma", "InverseGammaWithSoftplusConcentrationRate",
           "Logistic", "NegativeBinomial", "Poisson", "VectorDeterministic"]


def _tiny(dtype):
    return np.finfo(dtype.as_numpy_dtype).tiny


def _whole_counts(dist, x, upper=None, floor=True):
    """``x`` with TF's ``validate_args`` checks of a count (non-negative, whole, at most
    ``upper``); without validation its floor where TF takes it (as SciPy does), else as is."""
    if not dist.validate_args:
        return tf.floor(x) if floor else x
    x = embed_check_nonnegative_integer_form(x)
    if upper is not None:
        check = tf.assert_less_equal(x, upper,
                                     message="counts are not less than or equal to n.")
        with tf.control_dependencies([check]):
            x = tf.identity(x)
    return x


class _LogitsOrProbs(_ParamsDistribution):
    """A distribution of one success probability (``logits`` or ``probs``), plus optional
    further float parameters that broadcast with it."""

    def _init_logits_probs(self, name, extra, logits, probs, validate_args, allow_nan_stats,
                           parameters, reparameterization_type=NOT_REPARAMETERIZED):
        with tf.name_scope(name, values=[logits, probs] + [v for _, v in extra]) as scope:
            self._logits, self._probs = _logits_probs(logits, probs, False, validate_args)
            dtype = self._logits.dtype.base_dtype
            rest = [tf.convert_to_tensor(v, name=n, dtype=dtype) for n, v in extra]
            if validate_args and rest:
                with tf.control_dependencies(_all_positive(*rest)):
                    rest = [tf.identity(t) for t in rest]
        self._batch_params = [self._logits] + rest
        Distribution.__init__(self, dtype, reparameterization_type, validate_args,
                              allow_nan_stats, parameters, [self._logits, self._probs] + rest,
                              scope)
        return rest

    @property
    def logits(self):
        return self._logits

    @property
    def probs(self):
        return self._probs


# ---------------------------------------------------------------------------------------------
# counts
# ---------------------------------------------------------------------------------------------


class Poisson(_ParamsDistribution):
    """The Poisson distribution of ``rate`` (or ``exp(log_rate)``) events per interval."""

    def __init__(self, rate=None, log_rate=None, validate_args=False, allow_nan_stats=True,
                 name="Poisson"):
        parameters = dict(locals())
        if (rate is None) == (log_rate is None):
            raise ValueError("Must specify exactly one of `rate` and `log_rate`.")
        with tf.name_scope(name, values=[rate]) as scope:
            # as TF 1.15: the rate converted, then its identity ("rate_1") and log
            if rate is not None:
                rate = tf.convert_to_tensor(rate, name="rate")
                if not rate.dtype.is_floating:
                    raise TypeError(f"rate.dtype ({rate.dtype.name}) is a not a float-type.")
                with tf.control_dependencies([tf.assert_positive(rate)]
                                             if validate_args else []):
                    self._rate = tf.identity(rate, name="rate")
                    self._log_rate = tf.log(rate, name="log_rate")
            else:
                log_rate = tf.convert_to_tensor(log_rate, name="log_rate")
                if not log_rate.dtype.is_floating:
                    raise TypeError(f"log_rate.dtype ({log_rate.dtype.name}) is a not a "
                                    f"float-type.")
                self._rate = tf.exp(log_rate, name="rate")
                self._log_rate = log_rate
        self._batch_params = [self._rate]
        Distribution.__init__(self, self._rate.dtype.base_dtype, NOT_REPARAMETERIZED,
                              validate_args, allow_nan_stats, parameters, [self._rate], scope)

    _param_shapes = _same_shapes("rate")

    @property
    def rate(self):
        return self._rate

    @property
    def log_rate(self):
        return self._log_rate

    def _sample_n(self, n, seed):
        return tf.random_poisson(self._rate, [n], dtype=self.dtype, seed=seed)

    def _log_prob(self, x):
        x = _whole_counts(self, x, floor=False)  # TF 1.15 interpolates between counts
        return x * self._log_rate - tf.lgamma(1.0 + x) - self._rate

    def _cdf(self, x):
        if self.validate_args:
            x = embed_check_nonnegative_integer_form(x)
        return tf.math.igammac(1.0 + x, self._rate)  # TF 1.15's broadcasting op

    def _mean(self):
        return tf.identity(self._rate)

    def _variance(self):
        return tf.identity(self._rate)

    def _mode(self):
        return tf.floor(self._rate)


class Binomial(_LogitsOrProbs):
    """The number of successes in ``total_count`` trials of success probability ``probs``
    (TF 1.15 defines no sampling for it)."""

    def __init__(self, total_count, logits=None, probs=None, validate_args=False,
                 allow_nan_stats=True, name="Binomial"):
        parameters = dict(locals())
        (self._total_count,) = self._init_logits_probs(
            name, [("total_count", total_count)], logits, probs, validate_args,
            allow_nan_stats, parameters)

    @property
    def total_count(self):
        return self._total_count

    def _log_prob(self, counts):
        counts = _whole_counts(self, counts, self._total_count, floor=False)
        n, p = self._total_count, self._probs
        return (counts * tf.log(p) + (n - counts) * tf.log1p(-p)
                + tf.lgamma(1.0 + n) - tf.lgamma(1.0 + counts) - tf.lgamma(1.0 + n - counts))

    def _cdf(self, counts):
        # TF's bdtr: I_{1-p}(n - k, k + 1), exactly 1 at k = n (its ops)
        counts = _whole_counts(self, counts, self._total_count, floor=False)
        probs = self._probs
        if not (counts.get_shape().is_fully_defined() and probs.get_shape().is_fully_defined()
                and counts.get_shape().is_compatible_with(probs.get_shape())):
            probs = probs + tf.zeros_like(counts)
            counts = counts + tf.zeros_like(self._probs)
        n = self._total_count
        ones = tf.ones_like(n - counts)
        at_n = tf.equal(counts, n)
        safe = tf.where_v2(at_n, ones, n - counts)
        value = tf.math.betainc(a=safe, b=counts + 1, x=1 - probs)
        return tf.where_v2(at_n, ones, value)

    def _mean(self):
        return self._total_count * self._probs

    def _variance(self):
        return self._mean() * (1.0 - self._probs)

    def _mode(self):
        return tf.floor((1.0 + self._total_count) * self._probs)


class NegativeBinomial(_LogitsOrProbs):
    """The number of successes (each of probability ``probs``) before ``total_count``
    failures."""

    def __init__(self, total_count, logits=None, probs=None, validate_args=False,
                 allow_nan_stats=True, name="NegativeBinomial"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[total_count, logits, probs]) as scope:
            self._logits, self._probs = _logits_probs(logits, probs, False, validate_args)
            # TF 1.15 takes total_count through an unnamed Identity (after its check)
            with tf.control_dependencies(
                    [tf.assert_positive(total_count)] if validate_args else []):
                self._total_count = tf.identity(total_count)
        self._batch_params = [self._logits, self._total_count]
        Distribution.__init__(self, self._probs.dtype, NOT_REPARAMETERIZED, validate_args,
                              allow_nan_stats, parameters,
                              [self._total_count, self._probs, self._logits], scope)

    @property
    def total_count(self):
        return self._total_count

    # TF 1.15's ops: a gamma draw of the rate, then a Poisson draw (its seed derived from
    # the gamma's as TF derives it)
    def _sample_n(self, n, seed):
        rate = tf.random_gamma(shape=[n], alpha=self._total_count,
                               beta=tf.exp(-self._logits), dtype=self.dtype, seed=seed)
        return tf.random_poisson(rate, shape=[], dtype=self.dtype,
                                 seed=gen_new_seed(seed, "negative_binom"))

    def _cdf(self, x):
        if self.validate_args:
            x = embed_check_nonnegative_integer_form(x)
        return tf.math.betainc(self._total_count, 1.0 + x, tf.sigmoid(-self._logits))

    def _log_prob(self, x):
        return self._log_unnormalized_prob(x) - self._log_normalization(x)

    def _log_unnormalized_prob(self, x):
        if self.validate_args:
            x = embed_check_nonnegative_integer_form(x)
        return (self._total_count * tf.log_sigmoid(-self._logits)
                + x * tf.log_sigmoid(self._logits))

    def _log_normalization(self, x):
        if self.validate_args:
            x = embed_check_nonnegative_integer_form(x)
        return (-tf.lgamma(self._total_count + x) + tf.lgamma(1.0 + x)
                + tf.lgamma(self._total_count))

    def _mean(self):
        return self._total_count * tf.exp(self._logits)

    def _variance(self):
        return self._mean() / tf.sigmoid(-self._logits)

    def _mode(self):
        adjusted = tf.where_v2(1.0 < self._total_count, self._total_count - 1.0,
                               tf.zeros_like(self._total_count))
        return tf.floor(adjusted * tf.exp(self._logits))


class Geometric(_LogitsOrProbs):
    """The number of failures before the first success of probability ``probs``."""

    def __init__(self, logits=None, probs=None, validate_args=False, allow_nan_stats=True,
                 name="Geometric"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[logits, probs]) as scope:
            self._logits, self._probs = _logits_probs(logits, probs, False, validate_args)
            # TF 1.15 takes the probabilities once more through an Identity (after checking
            # them when validating)
            with tf.control_dependencies(
                    [tf.assert_positive(self._probs)] if validate_args else []):
                self._probs = tf.identity(self._probs, name="probs")
        self._batch_params = [self._probs]
        Distribution.__init__(self, self._probs.dtype, NOT_REPARAMETERIZED, validate_args,
                              allow_nan_stats, parameters, [self._probs, self._logits], scope)

    _param_shapes = _same_shapes("logits")

    def _sample_n(self, n, seed):
        u = tf.random_uniform(tf.concat([[n], tf.shape(self._probs)], 0),
                              minval=_tiny(self.dtype), maxval=1.0, seed=seed, dtype=self.dtype)
        return tf.floor(tf.log(u) / tf.log1p(-self._probs))

    # TF 1.15's ops: the counts broadcast by multiplying with ones
    def _cdf(self, x):
        x = _whole_counts(self, x)
        x = x * tf.ones_like(self._probs)
        return tf.where(x < 0.0, tf.zeros_like(x),
                        -tf.expm1((1.0 + x) * tf.log1p(-self._probs)))

    def _log_prob(self, x):
        x = _whole_counts(self, x)
        x = x * tf.ones_like(self._probs)
        p = self._probs * tf.ones_like(x)
        # at p = 1 the only outcome is 0: its log1p(-p) = -inf term is dropped, not NaN
        safe = tf.where(tf.equal(x, 0.0), tf.zeros_like(p), p)
        return x * tf.log1p(-safe) + tf.log(p)

    def _entropy(self):
        p = self._probs
        if self.validate_args:
            p = with_dependencies([tf.assert_less(
                p, tf.constant(1.0, p.dtype),
                message="Entropy is undefined when logits = inf or probs = 1.")], p)
        return tf.nn.softplus(self._logits) / p - self._logits

    def _mean(self):
        return tf.exp(-self._logits)

    def _variance(self):
        return self._mean() / self._probs

    def _mode(self):
        return tf.zeros(self.batch_shape_tensor(), dtype=self.dtype)


# ---------------------------------------------------------------------------------------------
# continuous
# ---------------------------------------------------------------------------------------------


class Chi2(Gamma):
    """The chi-squared distribution of ``df`` degrees of freedom (a Gamma of concentration
    ``df / 2`` and rate ``1 / 2``)."""

    def __init__(self, df, validate_args=False, allow_nan_stats=True, name="Chi2"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[df]) as scope:
            # TF 1.15: df through an Identity named "df" (after its check)
            with tf.control_dependencies([tf.assert_positive(df)] if validate_args else []):
                self._df = tf.identity(df, name="df")
            super().__init__(0.5 * self._df, tf.constant(0.5, self._df.dtype), validate_args,
                             allow_nan_stats, name=scope)
        _keep_parameters(self, parameters)

    _param_shapes = _same_shapes("df")

    @property
    def df(self):
        return self._df


class Chi2WithAbsDf(Chi2):
    """A Chi2 of ``floor(|df|)`` degrees of freedom."""

    def __init__(self, df, validate_args=False, allow_nan_stats=True, name="Chi2WithAbsDf"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[df]) as scope:
            (df_t,) = _float_params([("df", df)])
            super().__init__(tf.floor(tf.abs(df_t, name="abs_df"), name="floor_abs_df"),
                             validate_args, allow_nan_stats, scope)
        _keep_parameters(self, parameters)


class InverseGamma(_ConcentrationRate):
    """The distribution of ``1 / X`` for ``X ~ Gamma(concentration, rate)``: density
    ``rate**c / Gamma(c) x**(-c-1) exp(-rate / x)`` (TF calls the scale ``rate``)."""

    def __init__(self, concentration, rate, validate_args=False, allow_nan_stats=True,
                 name="InverseGamma"):
        parameters = dict(locals())
        self._init_concentration_rate(name, concentration, rate, NOT_REPARAMETERIZED,
                                      validate_args, allow_nan_stats, parameters)

    def _sample_n(self, n, seed):
        return 1.0 / tf.random_gamma(shape=[n], alpha=self._concentration, beta=self._rate,
                                     dtype=self.dtype, seed=seed)

    # TF 1.15's ops: unnormalized log density less the normalization, a broadcasting igammac
    def _valid_sample(self, x):
        if not self.validate_args:
            return x
        return with_dependencies([tf.assert_positive(x)], x)

    def _log_prob(self, x):
        x = self._valid_sample(x)
        unnormalized = -(1.0 + self._concentration) * tf.log(x) - self._rate / x
        return unnormalized - (tf.lgamma(self._concentration)
                               - self._concentration * tf.log(self._rate))

    def _cdf(self, x):
        x = self._valid_sample(x)
        return tf.math.igammac(self._concentration, self._rate / x)

    def _entropy(self):
        a = self._concentration
        return a + tf.log(self._rate) + tf.lgamma(a) - (1.0 + a) * tf.digamma(a)

    # TF 1.15's ops: NaN where undefined by a where_v2 over the batch, else its checks
    def _nan_fill(self):
        return tf.fill(self.batch_shape_tensor(),
                       np.array(np.nan, dtype=self.dtype.as_numpy_dtype()), name="nan")

    def _mean(self):
        mean = self._rate / (self._concentration - 1.0)
        if self.allow_nan_stats:
            return tf.where_v2(self._concentration > 1.0, mean, self._nan_fill())
        return with_dependencies([tf.assert_less(
            tf.ones([], self.dtype), self._concentration,
            message="mean undefined when any concentration <= 1")], mean)

    def _variance(self):
        var = (tf.square(self._rate) / tf.squared_difference(self._concentration, 1.0)
               / (self._concentration - 2.0))
        if self.allow_nan_stats:
            return tf.where_v2(self._concentration > 2.0, var, self._nan_fill())
        return with_dependencies([tf.assert_less(
            tf.constant(2.0, dtype=self.dtype), self._concentration,
            message="variance undefined when any concentration <= 2")], var)

    def _mode(self):
        return self._rate / (1.0 + self._concentration)


class InverseGammaWithSoftplusConcentrationRate(InverseGamma):
    """An InverseGamma whose parameters are ``softplus`` of the given ones."""

    def __init__(self, concentration, rate, validate_args=False, allow_nan_stats=True,
                 name="InverseGammaWithSoftplusConcentrationRate"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[concentration, rate]) as scope:
            super().__init__(tf.nn.softplus(concentration, name="softplus_concentration"),
                             tf.nn.softplus(rate, name="softplus_rate"), validate_args,
                             allow_nan_stats, scope)
        _keep_parameters(self, parameters)


class _LocScaleFamily(_LocScale):
    """``loc + scale * Z`` for a standard variable ``Z`` whose draws ``_standard(shape,
    seed)`` gives (its mode is ``loc`` even where its mean is not defined)."""

    def _z(self, x):
        return (x - self._loc) / self._scale

    def _sample_n(self, n, seed):
        shape = _sample_shape(n, self.batch_shape_tensor())
        return self._loc + self._scale * self._standard(shape, seed)

    def _uniform_open(self, shape, seed):
        return tf.random_uniform(shape, minval=_tiny(self.dtype), maxval=1.0, dtype=self.dtype,
                                 seed=seed)

    def _mode(self):
        return self._loc + tf.zeros_like(self._scale)


class Logistic(_LocScaleFamily):
    """The logistic distribution: cdf ``sigmoid((x - loc) / scale)`` (TF 1.15's ops)."""

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Logistic"):
        super().__init__(loc, scale, validate_args, allow_nan_stats, name)

    def _z(self, x):
        with tf.name_scope("standardize", values=[x]):
            return (x - self._loc) / self._scale

    def _sample_n(self, n, seed):
        u = tf.random_uniform(shape=_sample_shape(n, self.batch_shape_tensor()),
                              minval=_tiny(self.dtype), maxval=1.0, dtype=self.dtype,
                              seed=seed)
        return (tf.log(u) - tf.log1p(-1.0 * u)) * self._scale + self._loc

    def _log_prob(self, x):
        z = self._z(x)
        return (-z - 2.0 * tf.nn.softplus(-z)) - tf.log(self._scale)

    def _cdf(self, x):
        return tf.sigmoid(self._z(x))

    def _log_cdf(self, x):
        return -tf.nn.softplus(-self._z(x))

    def _survival_function(self, x):
        return tf.sigmoid(-self._z(x))

    def _log_survival_function(self, x):
        return -tf.nn.softplus(self._z(x))

    def _entropy(self):
        return 2 + tf.log(self._scale * tf.ones_like(self._loc))

    def _mean(self):
        return self._loc * tf.ones_like(self._scale)

    def _mode(self):
        return self._mean()

    def _stddev(self):
        return self._scale * tf.ones_like(self._loc) * math.pi / math.sqrt(3)


class Cauchy(_LocScaleFamily):
    """The Cauchy distribution: density ``1 / (pi scale (1 + ((x - loc) / scale)**2))``; its
    mean and variance are undefined (NaN, or an error with ``allow_nan_stats=False``)."""

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Cauchy"):
        super().__init__(loc, scale, validate_args, allow_nan_stats, name)

    def _standard(self, shape, seed):
        u = self._uniform_open(shape, seed)
        return tf.tan(math.pi * (u - 0.5))

    # TF 1.15's ops (its variance is the square of its NaN stddev)
    def _z(self, x):
        with tf.name_scope("standardize", values=[x]):
            return (x - self._loc) / self._scale

    def _log_prob(self, x):
        return (-tf.log1p(tf.square(self._z(x)))
                - (np.log(np.pi) + tf.log(self._scale)))

    def _cdf(self, x):
        return tf.atan(self._z(x)) / np.pi + 0.5

    def _log_cdf(self, x):
        return tf.log1p(2 / np.pi * tf.atan(self._z(x))) - np.log(2)

    def _quantile(self, p):
        return self._loc + self._scale * tf.tan(np.pi * (p - 0.5))

    def _entropy(self):
        h = np.log(4 * np.pi) + tf.log(self._scale)
        return h * tf.ones_like(self._loc)

    def _mode(self):
        return self._loc * tf.ones_like(self._scale)

    def _undefined(self, what):
        if not self.allow_nan_stats:
            raise ValueError(f"`{what}` is undefined for Cauchy distribution.")
        return tf.fill(self.batch_shape_tensor(), self.dtype.as_numpy_dtype(np.nan))

    def _mean(self):
        return self._undefined("mean")

    def _stddev(self):
        return self._undefined("stddev")


class HalfNormal(_ParamsDistribution):
    """``|X|`` for ``X ~ Normal(0, scale)``."""

    def __init__(self, scale, validate_args=False, allow_nan_stats=True, name="HalfNormal"):
        parameters = dict(locals())
        (self._scale,) = self._init_params(name, [("scale", scale)], _all_positive,
                                           FULLY_REPARAMETERIZED, validate_args,
                                           allow_nan_stats, parameters)

    _param_shapes = _same_shapes("scale")

    @property
    def scale(self):
        return self._scale

    def _sample_n(self, n, seed):
        shape = _sample_shape(n, self.batch_shape_tensor())
        return tf.abs(tf.random_normal(shape, dtype=self.dtype, seed=seed) * self._scale)

    # TF 1.15's ops: a density (log_prob is its log), the cdf of relu(x), a quantile
    def _prob(self, x):
        coeff = np.sqrt(2) / self._scale / np.sqrt(np.pi)
        pdf = coeff * tf.exp(-0.5 * (x / self._scale) ** 2)
        return pdf * tf.cast(x >= 0, self.dtype)

    def _cdf(self, x):
        return tf.erf(tf.nn.relu(x) / self._scale / np.sqrt(2.0))

    def _entropy(self):
        return 0.5 * tf.log(np.pi * self._scale ** 2.0 / 2.0) + 0.5

    def _mean(self):
        return self._scale * np.sqrt(2.0) / np.sqrt(np.pi)

    def _quantile(self, p):
        return np.sqrt(2.0) * self._scale * erfinv(p)

    def _mode(self):
        return tf.zeros(self.batch_shape_tensor())

    def _variance(self):
        return self._scale ** 2.0 * (1.0 - 2.0 / np.pi)


# ---------------------------------------------------------------------------------------------
# point masses
# ---------------------------------------------------------------------------------------------


class _PointMass(Distribution):
    """All mass at ``loc`` (within ``atol + rtol * |loc|``)."""

    def __init__(self, loc, atol, rtol, validate_args, allow_nan_stats, name, parameters,
                 is_vector=False):
        # TF 1.15's ops: loc, the tolerances (unnamed constants when not given) and the slack
        # made once
        with tf.name_scope(name, values=[loc, atol, rtol]) as scope:
            loc = tf.convert_to_tensor(loc, name="loc")
            if is_vector and validate_args:
                msg = "Argument loc must be at least rank 1."
                if loc.get_shape().ndims is not None:
                    if loc.get_shape().ndims < 1:
                        raise ValueError(msg)
                else:
                    loc = with_dependencies([tf.assert_rank_at_least(loc, 1, message=msg)], loc)
            self._loc = loc
            Distribution.__init__(self, loc.dtype, NOT_REPARAMETERIZED, validate_args,
                                  allow_nan_stats, parameters, [loc], scope)
            self._atol = self._get_tol(atol)
            self._rtol = self._get_tol(rtol)
            self._slack_t = (self._atol if rtol is None
                             else self._atol + self._rtol * tf.abs(self._loc))

    def _get_tol(self, tol):
        if tol is None:
            return tf.convert_to_tensor(0, dtype=self._loc.dtype)
        tol = tf.convert_to_tensor(tol, dtype=self._loc.dtype)
        if self.validate_args:
            tol = with_dependencies([tf.assert_non_negative(
                tol, message="Argument 'tol' must be non-negative")], tol)
        return tol

    @property
    def loc(self):
        return self._loc

    @property
    def atol(self):
        return self._atol

    @property
    def rtol(self):
        return self._rtol

    def _slack(self):
        return self._slack_t

    def _sample_n(self, n, seed):
        n_static = ops.constant_value(tf.convert_to_tensor(n))
        if n_static is not None and self._loc.get_shape().ndims is not None:
            multiples = [n_static] + [1] * self._loc.get_shape().ndims
        else:
            ones = tf.ones_like(tf.shape(self._loc))
            multiples = tf.concat(([n], ones), axis=0)
        return tf.tile(self._loc[tf.newaxis, ...], multiples=multiples)

    def _entropy(self):
        return tf.zeros(self.batch_shape_tensor(), dtype=self.dtype)

    def _mean(self):
        return tf.identity(self._loc)

    def _mode(self):
        return self.mean()  # TF 1.15's public call: a scope of its own ("mean_1")

    def _variance(self):
        return tf.zeros_like(self._loc)


class Deterministic(_PointMass):
    """A scalar point mass at ``loc``: probability 1 within ``atol + rtol * |loc|`` of it."""

    def __init__(self, loc, atol=None, rtol=None, validate_args=False, allow_nan_stats=True,
                 name="Deterministic"):
        parameters = dict(locals())
        super().__init__(loc, atol, rtol, validate_args, allow_nan_stats, name, parameters)

    def _batch_shape(self):
        return self._loc.get_shape()

    def _batch_shape_tensor(self):
        return tf.shape(self._loc)

    def _prob(self, x):
        return tf.cast(tf.less_equal(tf.abs(x - self._loc), self._slack()), self.dtype)

    def _cdf(self, x):
        return tf.cast(tf.greater_equal(x, self._loc - self._slack()), self.dtype)


class VectorDeterministic(_PointMass):
    """A point mass at the vector ``loc`` (its last axis the event)."""

    def __init__(self, loc, atol=None, rtol=None, validate_args=False, allow_nan_stats=True,
                 name="VectorDeterministic"):
        parameters = dict(locals())
        super().__init__(loc, atol, rtol, validate_args, allow_nan_stats, name, parameters,
                         is_vector=True)

    def _batch_shape(self):
        shape = self._loc.get_shape()
        return shape[:-1] if shape.ndims is not None else tf.TensorShape(None)

    def _batch_shape_tensor(self):
        return tf.shape(self._loc)[:-1]

    def _event_shape(self):
        shape = self._loc.get_shape()
        return shape[-1:] if shape.ndims is not None else tf.TensorShape([None])

    def _event_shape_tensor(self):
        return tf.shape(self._loc)[-1:]

    def _prob(self, x):
        inside = tf.less_equal(tf.abs(x - self._loc), self._slack())
        return tf.cast(tf.reduce_all(inside, axis=-1), self.dtype)
