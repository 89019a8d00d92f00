"""More of ``tf.contrib.distributions`` (TF 1.15): ``MixtureSameFamily``,
``QuantizedDistribution``, the affine vector families ``VectorLaplaceDiag`` /
``VectorExponentialDiag``, ``WishartCholesky`` / ``WishartFull``, the normal conjugate posteriors,
``percentile``, ``matrix_diag_transform`` and ``tridiag``."""

import math

import numpy as np

import tideflow as tf
from tideflow.distributions import bijectors
from tideflow.distributions.distribution import (
    FULLY_REPARAMETERIZED,
    NOT_REPARAMETERIZED,
    Distribution,
)
from tideflow.distributions.dists import Exponential, Laplace, Normal
from tideflow.distributions.transformed import TransformedDistribution
from tideflow.distributions.util import pad_mixture_dimensions, pick_vector

__all__ = ["MixtureSameFamily", "QuantizedDistribution", "SinhArcsinh", "VectorExponentialDiag",
           "VectorLaplaceDiag", "VectorSinhArcsinhDiag", "WishartCholesky", "WishartFull", "matrix_diag_transform",
           "normal_conjugates_known_scale_posterior", "normal_conjugates_known_scale_predictive",
           "percentile", "tridiag"]


class MixtureSameFamily(Distribution):
    """A mixture whose components are the rightmost batch member of one distribution
    (``components_distribution.batch_shape[-1]`` = the number of components), weighted by the
    Categorical ``mixture_distribution``. Its ops are TF 1.15's, in TF's order: a draw takes
    the components' draws first, then the categorical's, neither with the ``seed`` given (as
    TF 1.15, which ignores it: the op seeds come from the graph)."""

    def __init__(self, mixture_distribution, components_distribution, validate_args=False,
                 allow_nan_stats=True, name="MixtureSameFamily"):
        parameters = dict(locals())
        with tf.name_scope(name) as scope:
            self._mixture = mixture_distribution
            self._components = components_distribution
            self._assertions = []
            s = components_distribution.event_shape_tensor()
            s_dim0 = s.get_shape()[0].value
            self._event_ndims = s_dim0 if s_dim0 is not None else tf.shape(s)[0]
            if not mixture_distribution.dtype.is_integer:
                raise ValueError(f"`mixture_distribution.dtype` ({mixture_distribution.dtype.name})"
                                 f" is not over integers")
            if mixture_distribution.event_shape.ndims not in (None, 0):
                raise ValueError("`mixture_distribution` must have scalar `event_dim`s")
            if validate_args and mixture_distribution.event_shape.ndims is None:
                self._assertions.append(tf.assert_rank(
                    mixture_distribution.event_shape_tensor(), 0,
                    message="`mixture_distribution` must have scalar `event_dim`s"))
            mdbs = mixture_distribution.batch_shape
            cdbs = components_distribution.batch_shape.with_rank_at_least(1)[:-1]
            if mdbs.is_fully_defined() and cdbs.is_fully_defined():
                if mdbs.ndims != 0 and mdbs != cdbs:
                    raise ValueError(f"`mixture_distribution.batch_shape` (`{mdbs.as_list()}`) "
                                     f"is not compatible with "
                                     f"`components_distribution.batch_shape` "
                                     f"(`{cdbs.as_list()}`)")
            elif validate_args:
                mdbs_t = mixture_distribution.batch_shape_tensor()
                cdbs_t = components_distribution.batch_shape_tensor()[:-1]
                self._assertions.append(tf.assert_equal(
                    pick_vector(mixture_distribution.is_scalar_batch(), cdbs_t, mdbs_t), cdbs_t,
                    message="`mixture_distribution.batch_shape` is not compatible with "
                            "`components_distribution.batch_shape`"))
            km = mixture_distribution.logits.get_shape().with_rank_at_least(1)[-1].value
            kc = components_distribution.batch_shape.with_rank_at_least(1)[-1].value
            if km is not None and kc is not None and km != kc:
                raise ValueError(f"`mixture_distribution components` ({km}) does not equal "
                                 f"`components_distribution.batch_shape[-1]` ({kc})")
            if validate_args and (km is None or kc is None):
                km = tf.shape(mixture_distribution.logits)[-1]
                self._assertions.append(tf.assert_equal(
                    km, components_distribution.batch_shape_tensor()[-1],
                    message="`mixture_distribution components` does not equal "
                            "`components_distribution.batch_shape[-1:]`"))
            elif km is None:
                km = tf.shape(mixture_distribution.logits)[-1]
            self._num_components = km
        parents = list(mixture_distribution.graph_parents) + list(
            components_distribution.graph_parents)
        super().__init__(components_distribution.dtype, NOT_REPARAMETERIZED, validate_args,
                         allow_nan_stats, parameters, parents, scope)

    @property
    def mixture_distribution(self):
        return self._mixture

    @property
    def components_distribution(self):
        return self._components

    def _batch_shape(self):
        return self._components.batch_shape.with_rank_at_least(1)[:-1]

    def _batch_shape_tensor(self):
        with tf.control_dependencies(self._assertions):
            return self._components.batch_shape_tensor()[:-1]

    def _event_shape(self):
        return self._components.event_shape

    def _event_shape_tensor(self):
        with tf.control_dependencies(self._assertions):
            return self._components.event_shape_tensor()

    def _padded_probs(self):
        """The mixture's probabilities ``[B, k, 1 per event dim]``."""
        return pad_mixture_dimensions(self._mixture.probs, self, self._mixture,
                                      self._event_shape().ndims)

    def _pad_sample_dims(self, x):
        """``x`` with a 1 (the component axis) before its event dimensions."""
        with tf.name_scope("pad_sample_dims", values=[x]):
            ndims = x.get_shape().ndims if x.get_shape().ndims is not None else tf.rank(x)
            shape = tf.shape(x)
            d = ndims - self._event_ndims
            return tf.reshape(x, shape=tf.concat([shape[:d], [1], shape[d:]], axis=0))

    def _sample_n(self, n, seed):
        with tf.control_dependencies(self._assertions):
            x = self._components.sample(n)  # [n, B, k, E]
            np_dtype = x.dtype.as_numpy_dtype
            mask = tf.one_hot(indices=self._mixture.sample(n), depth=self._num_components,
                              on_value=np.ones([], dtype=np_dtype),
                              off_value=np.zeros([], dtype=np_dtype))  # [n, B, k]
            mask = pad_mixture_dimensions(mask, self, self._mixture, self._event_shape().ndims)
            return tf.reduce_sum(x * mask, axis=-1 - self._event_ndims)

    def _log_prob(self, x):
        with tf.control_dependencies(self._assertions):
            x = self._pad_sample_dims(x)
            log_prob_x = self._components.log_prob(x)  # [S, B, k]
            log_mix = tf.nn.log_softmax(self._mixture.logits, axis=-1)
            return tf.reduce_logsumexp(log_prob_x + log_mix, axis=-1)

    def _mean(self):
        with tf.control_dependencies(self._assertions):
            probs = self._padded_probs()
            return tf.reduce_sum(probs * self._components.mean(),
                                 axis=-1 - self._event_ndims)

    def _log_cdf(self, x):
        x = self._pad_sample_dims(x)
        log_cdf_x = self._components.log_cdf(x)
        log_mix = tf.nn.log_softmax(self._mixture.logits, axis=-1)
        return tf.reduce_logsumexp(log_cdf_x + log_mix, axis=-1)

    def _variance(self):
        # the law of total variance: E[Var(Y|X)] + Var(E[Y|X])
        with tf.control_dependencies(self._assertions):
            probs = self._padded_probs()
            axis = -1 - self._event_ndims
            mean_cond_var = tf.reduce_sum(probs * self._components.variance(), axis=axis)
            var_cond_mean = tf.reduce_sum(
                probs * tf.squared_difference(self._components.mean(),
                                              self._pad_sample_dims(self._mean())),
                axis=axis)
            return mean_cond_var + var_cond_mean

    def _covariance(self):
        if self.event_shape.ndims != 1:
            raise NotImplementedError("covariance is not implemented")
        with tf.control_dependencies(self._assertions):
            probs = pad_mixture_dimensions(self._padded_probs(), self, self._mixture,
                                           self._event_shape().ndims)  # [B, k, 1, 1]
            mean_cond_var = tf.reduce_sum(probs * self._components.covariance(), axis=-3)
            z = self._components.mean() - self._pad_sample_dims(self._mean())
            outer = z[..., tf.newaxis, :] * z[..., tf.newaxis]
            var_cond_mean = tf.reduce_sum(probs * outer, axis=-3)
            return mean_cond_var + var_cond_mean


class QuantizedDistribution(Distribution):
    """``Y = ceiling(X)`` for ``X ~ distribution`` (a scalar-event distribution), clipped to
    ``[low, high]``: ``P[Y = y] = F(y) - F(y - 1)``, with the tails folded into ``low`` and
    ``high``."""

    def __init__(self, distribution, low=None, high=None, validate_args=False,
                 name="QuantizedDistribution"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[low, high]) as scope:
            self._dist = distribution
            dtype = distribution.dtype
            self._low = None if low is None else tf.convert_to_tensor(low, dtype=dtype,
                                                                      name="low")
            self._high = None if high is None else tf.convert_to_tensor(high, dtype=dtype,
                                                                        name="high")
            if validate_args and low is not None and high is not None:
                check = tf.assert_less(self._low, self._high,
                                       message="low must be strictly less than high.")
                with tf.control_dependencies([check]):
                    self._low = tf.identity(self._low)
        parents = list(distribution.graph_parents) + [
            t for t in (self._low, self._high) if t is not None]
        super().__init__(distribution.dtype, NOT_REPARAMETERIZED, validate_args,
                         distribution.allow_nan_stats, parameters, parents, scope)

    @property
    def distribution(self):
        return self._dist

    @property
    def low(self):
        return self._low

    @property
    def high(self):
        return self._high

    def _batch_shape(self):
        return self._dist.batch_shape

    def _batch_shape_tensor(self):
        return self._dist.batch_shape_tensor()

    def _event_shape(self):
        return self._dist.event_shape

    def _event_shape_tensor(self):
        return self._dist.event_shape_tensor()

    def _sample_n(self, n, seed):
        # TF 1.15's ops, under "transform"
        with tf.name_scope("transform"):
            n = tf.convert_to_tensor(n, name="n")
            x = self._dist.sample(n, seed=seed)
            ones = tf.ones_like(x)
            y = tf.ceil(x)
            if self._low is not None:
                y = tf.where(y < self._low, self._low * ones, y)
            if self._high is not None:
                y = tf.where(y > self._high, self._high * ones, y)
            return y

    def _cdf_at(self, y):
        """``P[Y <= y]`` for whole ``y``."""
        value = self._dist.cdf(y)
        if self._low is not None:
            value = tf.where(tf.less(y + tf.zeros_like(value), self._low),
                             tf.zeros_like(value), value)
        if self._high is not None:
            value = tf.where(tf.greater_equal(y + tf.zeros_like(value), self._high),
                             tf.ones_like(value), value)
        return value

    def _cdf(self, y):
        return self._cdf_at(tf.floor(y))

    def _log_cdf(self, y):
        return tf.log(self._cdf(y))

    def _prob(self, y):
        # the mass of a whole y: F(y) - F(y - 1), from the survival side in the upper half
        # (fewer cancellation digits lost), 0 off the whole numbers
        upper = self._cdf_at(y)
        lower = self._cdf_at(y - 1.0)
        value = upper - lower
        whole = tf.equal(y + tf.zeros_like(value), tf.floor(y) + tf.zeros_like(value))
        return tf.where(whole, tf.maximum(value, tf.zeros_like(value)), tf.zeros_like(value))

    def _log_prob(self, y):
        return tf.log(self._prob(y))


class _AffineVector(TransformedDistribution):
    """``loc + scale @ Z`` for ``Z`` of iid standard scalar draws along a vector event."""

    def __init__(self, base_fn, loc, scale_diag, scale_identity_multiplier, validate_args,
                 allow_nan_stats, name, parameters):
        with tf.name_scope(name, values=[loc, scale_diag, scale_identity_multiplier]) as scope:
            values = [v for v in (loc, scale_diag, scale_identity_multiplier) if v is not None]
            if not values:
                raise ValueError("At least one of loc, scale_diag or scale_identity_multiplier "
                                 "must be given")
            first = tf.convert_to_tensor(values[0])
            dtype = first.dtype.base_dtype
            affine = bijectors.Affine(shift=loc, scale_diag=scale_diag,
                                      scale_identity_multiplier=scale_identity_multiplier,
                                      validate_args=validate_args, dtype=dtype)
            parts = [tf.convert_to_tensor(v, dtype=dtype) for v in (loc, scale_diag)
                     if v is not None]
            if not parts:
                raise ValueError("VectorDiag families need loc or scale_diag to know the "
                                 "event size")
            shape = tf.shape(parts[0])
            for p in parts[1:]:
                shape = tf.broadcast_dynamic_shape(shape, tf.shape(p))
            static = parts[0].get_shape()
            for p in parts[1:]:
                static = tf.broadcast_static_shape(static, p.get_shape())
            self._static_vec = static
            base = base_fn(dtype, allow_nan_stats)
            super().__init__(base, affine, batch_shape=shape[:-1], event_shape=shape[-1:],
                             validate_args=validate_args, name=scope)
        self._parameters = {k: v for k, v in parameters.items()
                            if k not in ("self", "__class__")}

    @property
    def loc(self):
        return self.bijector.shift

    @property
    def scale(self):
        return self.bijector.scale

    def _batch_shape(self):
        return self._static_vec[:-1] if self._static_vec.ndims else tf.TensorShape(None)

    def _event_shape(self):
        return self._static_vec[-1:] if self._static_vec.ndims else tf.TensorShape([None])

    def _mean(self):
        shape = tf.concat([self.batch_shape_tensor(), self.event_shape_tensor()], 0)
        return self.bijector.forward(self.distribution.mean() + tf.zeros(shape, self.dtype))

    def _scale_diag(self):
        return self.bijector._scale_diag_part if self.bijector._scale_diag_part is not None \
            else self.bijector._multiplier + tf.zeros(self.event_shape_tensor(), self.dtype)


class VectorLaplaceDiag(_AffineVector):
    """``loc + diag(scale) @ Z`` for iid standard Laplace ``Z`` along the last axis."""

    def __init__(self, loc=None, scale_diag=None, scale_identity_multiplier=None,
                 validate_args=False, allow_nan_stats=True, name="VectorLaplaceDiag"):
        parameters = dict(locals())
        super().__init__(lambda dt, nan: Laplace(tf.zeros([], dt), tf.ones([], dt),
                                                 allow_nan_stats=nan),
                         loc, scale_diag, scale_identity_multiplier, validate_args,
                         allow_nan_stats, name, parameters)

    def _stddev(self):
        return math.sqrt(2.0) * tf.abs(self._scale_diag()) + tf.zeros(
            tf.concat([self.batch_shape_tensor(), self.event_shape_tensor()], 0), self.dtype)

    def _covariance(self):
        return 2.0 * tf.matrix_diag(tf.square(self._stddev()) / 2.0)


class VectorExponentialDiag(_AffineVector):
    """``loc + diag(scale) @ Z`` for iid standard exponential ``Z`` along the last axis."""

    def __init__(self, loc=None, scale_diag=None, scale_identity_multiplier=None,
                 validate_args=False, allow_nan_stats=True, name="VectorExponentialDiag"):
        parameters = dict(locals())
        super().__init__(lambda dt, nan: Exponential(tf.ones([], dt), allow_nan_stats=nan),
                         loc, scale_diag, scale_identity_multiplier, validate_args,
                         allow_nan_stats, name, parameters)

    def _stddev(self):
        return tf.abs(self._scale_diag()) + tf.zeros(
            tf.concat([self.batch_shape_tensor(), self.event_shape_tensor()], 0), self.dtype)

    def _covariance(self):
        return tf.matrix_diag(tf.square(self._stddev()))

    def _mode(self):
        return self.loc + tf.zeros_like(self._stddev())


class SinhArcsinh(TransformedDistribution):
    """``Y = loc + scale * F(Z) * 2 / F_0(2)`` for ``Z ~ distribution`` (a standard Normal by
    default), ``F(z) = sinh((arcsinh(z) + skewness) * tailweight)`` and ``F_0`` the same without
    skewness: skewness and tail weight around a location-scale family."""

    def __init__(self, loc, scale, skewness=None, tailweight=None, distribution=None,
                 validate_args=False, allow_nan_stats=True, name="SinhArcsinh"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[loc, scale, skewness, tailweight]) as scope:
            loc = tf.convert_to_tensor(loc, name="loc")
            dtype = loc.dtype.base_dtype
            scale = tf.convert_to_tensor(scale, name="scale", dtype=dtype)
            tailweight = tf.convert_to_tensor(1.0 if tailweight is None else tailweight,
                                              name="tailweight", dtype=dtype)
            has_skew = skewness is not None
            skewness = tf.convert_to_tensor(0.0 if skewness is None else skewness,
                                            name="skewness", dtype=dtype)
            self._loc, self._scale = loc, scale
            self._tailweight, self._skewness = tailweight, skewness
            batch = tf.broadcast_dynamic_shape(
                tf.broadcast_dynamic_shape(tf.shape(loc), tf.shape(scale)),
                tf.broadcast_dynamic_shape(tf.shape(tailweight), tf.shape(skewness)))
            static = loc.get_shape()
            for t in (scale, tailweight, skewness):
                static = tf.broadcast_static_shape(static, t.get_shape())
            self._static_batch_shape = static
            if distribution is None:
                distribution = Normal(tf.zeros(batch, dtype), tf.ones(batch, dtype),
                                      allow_nan_stats=allow_nan_stats)
            # the scale that makes F(2) - F(-2) span 4 * scale, as TF
            c = 2.0 * scale / tf.sinh(tf.asinh(tf.constant(2.0, dtype)) * tailweight)
            bij = bijectors.Chain([
                bijectors.AffineScalar(shift=loc, scale=c, validate_args=validate_args),
                bijectors.SinhArcsinh(skewness=skewness if has_skew else None,
                                      tailweight=tailweight, validate_args=validate_args)])
            super().__init__(distribution, bij, validate_args=validate_args, name=scope)
        self._parameters = {k: v for k, v in parameters.items()
                            if k not in ("self", "__class__")}

    loc = property(lambda self: self._loc)
    scale = property(lambda self: self._scale)
    tailweight = property(lambda self: self._tailweight)
    skewness = property(lambda self: self._skewness)

    def _batch_shape(self):
        return self._static_batch_shape


class VectorSinhArcsinhDiag(TransformedDistribution):
    """The vector ``SinhArcsinh``: ``Y = loc + scale @ F(Z) * 2 / F_0(2)`` with ``Z`` iid
    standard normal along the event and ``scale`` diagonal (``scale_diag`` plus
    ``scale_identity_multiplier``)."""

    def __init__(self, loc=None, scale_diag=None, scale_identity_multiplier=None,
                 skewness=None, tailweight=None, distribution=None, validate_args=False,
                 allow_nan_stats=True, name="VectorSinhArcsinhDiag"):
        parameters = dict(locals())
        values = [loc, scale_diag, scale_identity_multiplier, skewness, tailweight]
        with tf.name_scope(name, values=values) as scope:
            given = [v for v in (loc, scale_diag) if v is not None]
            if not given:
                raise ValueError("VectorSinhArcsinhDiag needs loc or scale_diag to know the "
                                 "event size")
            dtype = tf.convert_to_tensor(given[0]).dtype.base_dtype
            parts = [tf.convert_to_tensor(v, dtype=dtype) for v in given]
            ones = tf.ones_like(parts[0])
            diag = ones if scale_diag is None else tf.convert_to_tensor(scale_diag, dtype=dtype)
            if scale_identity_multiplier is not None:
                mult = tf.convert_to_tensor(scale_identity_multiplier, dtype=dtype)
                diag = (diag + mult[..., None]) if scale_diag is not None else \
                    diag * mult[..., None]
            tailweight = tf.convert_to_tensor(1.0 if tailweight is None else tailweight,
                                              dtype=dtype, name="tailweight")
            has_skew = skewness is not None
            skewness = tf.convert_to_tensor(0.0 if skewness is None else skewness,
                                            dtype=dtype, name="skewness")
            c = 2.0 * diag / tf.sinh(tf.asinh(tf.constant(2.0, dtype)) * tailweight)
            shape = tf.shape(parts[0] + c + skewness + tailweight)
            static = parts[0].get_shape()
            for t in (c, skewness, tailweight):
                static = tf.broadcast_static_shape(static, t.get_shape())
            self._static_vec = static
            self._loc = parts[0] if loc is not None else None
            self._skewness, self._tailweight = skewness, tailweight
            if distribution is None:
                distribution = Normal(tf.zeros([], dtype), tf.ones([], dtype),
                                      allow_nan_stats=allow_nan_stats)
            bij = bijectors.Chain([
                bijectors.Affine(shift=loc, scale_diag=c, validate_args=validate_args,
                                 dtype=dtype),
                bijectors.SinhArcsinh(skewness=skewness if has_skew else None,
                                      tailweight=tailweight, validate_args=validate_args)])
            super().__init__(distribution, bij, batch_shape=shape[:-1], event_shape=shape[-1:],
                             validate_args=validate_args, name=scope)
        self._parameters = {k: v for k, v in parameters.items()
                            if k not in ("self", "__class__")}

    loc = property(lambda self: self._loc)
    skewness = property(lambda self: self._skewness)
    tailweight = property(lambda self: self._tailweight)

    def _batch_shape(self):
        return self._static_vec[:-1] if self._static_vec.ndims else tf.TensorShape(None)

    def _event_shape(self):
        return self._static_vec[-1:] if self._static_vec.ndims else tf.TensorShape([None])


# ---------------------------------------------------------------------------------------------
# Wishart
# ---------------------------------------------------------------------------------------------


def _multi_lgamma(a, p):
    """``log Gamma_p(a)``, the multivariate log gamma function."""
    j = tf.range(p, dtype=a.dtype)
    return (p * (p - 1) / 4.0) * math.log(math.pi) + tf.reduce_sum(
        tf.lgamma(tf.expand_dims(a, -1) - j / 2.0), -1)


def _multi_digamma(a, p):
    j = tf.range(p, dtype=a.dtype)
    return tf.reduce_sum(tf.digamma(tf.expand_dims(a, -1) - j / 2.0), -1)


class _Wishart(Distribution):
    """The Wishart distribution of ``df`` degrees of freedom and scale ``L L^T`` over k x k
    positive definite matrices (or their Cholesky factors with
    ``cholesky_input_output_matrices``)."""

    def __init__(self, df, scale_tril, cholesky_input_output_matrices, validate_args,
                 allow_nan_stats, name, parameters):
        self._df = tf.convert_to_tensor(df, dtype=scale_tril.dtype, name="df")
        self._tril = scale_tril
        self._chol_io = cholesky_input_output_matrices
        k = scale_tril.get_shape()[-1].value
        self._k_static = k
        if validate_args:
            kk = tf.cast(tf.shape(scale_tril)[-1], self._df.dtype)
            check = tf.assert_less(kk - 1.0, self._df,
                                   message=f"Degrees of freedom (df = {self._df}) cannot be "
                                   f"less than dimension of scale matrix")
            with tf.control_dependencies([check]):
                self._df = tf.identity(self._df)
        super().__init__(scale_tril.dtype.base_dtype, FULLY_REPARAMETERIZED, validate_args,
                         allow_nan_stats, parameters, [self._df, self._tril], name)

    @property
    def df(self):
        return self._df

    @property
    def cholesky_input_output_matrices(self):
        return self._chol_io

    def scale(self):
        return tf.matmul(self._tril, self._tril, transpose_b=True)

    def scale_operator(self):
        return tf.linalg.LinearOperatorLowerTriangular(self._tril)

    def dimension(self):
        return tf.shape(self._tril)[-1]

    def _k(self):
        k = self._k_static
        return float(k) if k is not None else tf.cast(tf.shape(self._tril)[-1], self.dtype)

    def _batch_shape(self):
        return tf.broadcast_static_shape(self._df.get_shape(),
                                         self._tril.get_shape()[:-2])

    def _batch_shape_tensor(self):
        return tf.broadcast_dynamic_shape(tf.shape(self._df), tf.shape(self._tril)[:-2])

    def _event_shape(self):
        return self._tril.get_shape()[-2:]

    def _event_shape_tensor(self):
        return tf.shape(self._tril)[-2:]

    def _log_det_scale(self):
        return 2.0 * tf.reduce_sum(tf.log(tf.abs(tf.matrix_diag_part(self._tril))), -1)

    def _sample_n(self, n, seed):
        # Bartlett: X = L A A^T L^T, A lower triangular, A_ii^2 ~ chi2(df - i), A_ij ~ N(0, 1)
        k = tf.shape(self._tril)[-1]
        batch = self.batch_shape_tensor()
        shape = tf.concat([[n], batch, [k, k]], 0)
        normal = tf.matrix_band_part(tf.random_normal(shape, dtype=self.dtype, seed=seed),
                                     -1, 0)
        df = self._df + tf.zeros(batch, self.dtype)
        conc = 0.5 * (tf.expand_dims(df, -1) - tf.cast(tf.range(k), self.dtype))
        chi2 = 2.0 * tf.random_gamma([n], conc, dtype=self.dtype,
                                     seed=None if seed is None else seed + 1)
        a = tf.matrix_set_diag(normal, tf.sqrt(chi2))
        chol = tf.matmul(self._tril + tf.zeros_like(a), a)
        if self._chol_io:
            return chol
        return tf.matmul(chol, chol, transpose_b=True)

    def _log_prob(self, x):
        if self._chol_io:
            chol_x = x
            x = tf.matmul(x, x, transpose_b=True)
        else:
            chol_x = tf.cholesky(x)
        k = self._k()
        log_det_x = 2.0 * tf.reduce_sum(tf.log(tf.abs(tf.matrix_diag_part(chol_x))), -1)
        # tr(S^-1 X) = ||L^-1 chol(X)||_F^2
        tril = self._tril + tf.zeros_like(chol_x)
        half = tf.matrix_triangular_solve(tril, chol_x, lower=True)
        trace = tf.reduce_sum(tf.square(half), [-2, -1])
        df = self._df
        return (0.5 * (df - k - 1.0) * log_det_x - 0.5 * trace
                - 0.5 * df * k * math.log(2.0) - 0.5 * df * self._log_det_scale()
                - _multi_lgamma(0.5 * df, self._k_static or tf.shape(self._tril)[-1]))

    def _entropy(self):
        k = self._k()
        p = self._k_static or tf.shape(self._tril)[-1]
        df = self._df
        return (0.5 * (k + 1.0) * self._log_det_scale() + 0.5 * k * (k + 1.0) * math.log(2.0)
                + _multi_lgamma(0.5 * df, p) - 0.5 * (df - k - 1.0) * _multi_digamma(0.5 * df, p)
                + 0.5 * df * k)

    def _mean(self):
        df = self._df[..., None, None]
        if self._chol_io:
            return tf.sqrt(df) * self._tril
        return df * self.scale()

    def _mode(self):
        s = self._df - self._k() - 1.0
        s = tf.where_v2(tf.less(s, 0.0), tf.constant(float("NaN"), dtype=self.dtype, name="nan"),
                        s)[..., None, None]
        if self._chol_io:
            return tf.sqrt(s) * self._tril
        return s * self.scale()

    # TF 1.15's variance (the Cholesky factor of it with cholesky_input_output_matrices) and
    # its stddev: the Cholesky factor of the variance, not an elementwise root
    def _variance(self):
        x = tf.sqrt(self._df)[..., None, None] * self.scale()
        d = tf.expand_dims(tf.matrix_diag_part(x), -1)
        v = tf.square(x) + tf.matmul(d, d, adjoint_b=True)
        return tf.cholesky(v) if self._chol_io else v

    def _stddev(self):
        if self._chol_io:
            raise ValueError("Computing std. dev. when is cholesky_input_output_matrices=True "
                             "does not make sense.")
        return tf.cholesky(self.variance())


class WishartCholesky(_Wishart):
    """A Wishart of ``df`` degrees of freedom whose scale is ``scale @ scale^T`` (``scale``
    lower triangular)."""

    def __init__(self, df, scale, cholesky_input_output_matrices=False, validate_args=False,
                 allow_nan_stats=True, name="WishartCholesky"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[df, scale]) as scope:
            tril = tf.matrix_band_part(tf.convert_to_tensor(scale, name="scale"), -1, 0)
            super().__init__(df, tril, cholesky_input_output_matrices, validate_args,
                             allow_nan_stats, scope, parameters)


class WishartFull(_Wishart):
    """A Wishart of ``df`` degrees of freedom and the positive definite ``scale`` matrix."""

    def __init__(self, df, scale, cholesky_input_output_matrices=False, validate_args=False,
                 allow_nan_stats=True, name="WishartFull"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[df, scale]) as scope:
            tril = tf.cholesky(tf.convert_to_tensor(scale, name="scale"))
            super().__init__(df, tril, cholesky_input_output_matrices, validate_args,
                             allow_nan_stats, scope, parameters)


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def normal_conjugates_known_scale_posterior(prior, scale, s, n):
    """The posterior ``Normal`` of a normal mean with a ``Normal`` prior, after ``n``
    observations of known standard deviation ``scale`` summing to ``s``."""
    if not isinstance(prior, Normal):
        raise TypeError("Expected prior to be an instance of type Normal")
    if s.dtype != prior.dtype:
        raise TypeError(f"Observation sum s.dtype does not match prior dtype: {s.dtype} vs. "
                        f"{prior.dtype}")
    n = tf.cast(n, prior.dtype)
    scale0_2 = tf.square(prior.scale)
    scale_2 = tf.square(scale)
    scalep_2 = scale0_2 * scale_2 / (scale_2 + n * scale0_2)
    return Normal(loc=(prior.loc / scale0_2 + s / scale_2) * scalep_2,
                  scale=tf.sqrt(scalep_2))


def normal_conjugates_known_scale_predictive(prior, scale, s, n):
    """The posterior predictive ``Normal`` of one more observation (see
    ``normal_conjugates_known_scale_posterior``)."""
    post = normal_conjugates_known_scale_posterior(prior, scale, s, n)
    return Normal(loc=post.loc, scale=tf.sqrt(tf.square(post.scale) + tf.square(scale)))


def percentile(x, q, axis=None, interpolation=None, keep_dims=False, validate_args=False,
               name=None):
    """The ``q``-th percentile of ``x`` over ``axis`` (all axes by default), taking the
    ``nearest`` (default), ``lower`` or ``higher`` order statistic, as TF 1.15."""
    interpolation = interpolation or "nearest"
    allowed = ("nearest", "lower", "higher")
    if interpolation not in allowed:
        raise ValueError(f"Argument 'interpolation' must be in {allowed}.  Found "
                         f"{interpolation}")
    with tf.name_scope(name, "percentile", [x, q]):
        x = tf.convert_to_tensor(x, name="x")
        q = tf.cast(tf.convert_to_tensor(q, name="q"), tf.float64)
        if q.get_shape().ndims not in (None, 0):
            raise ValueError(f"Expected argument 'x' to have ndims 0.  Found tensor {q}")
        if validate_args:
            checks = [tf.assert_rank(q, 0),
                      tf.assert_greater_equal(q, tf.constant(0.0, tf.float64)),
                      tf.assert_less_equal(q, tf.constant(100.0, tf.float64))]
            with tf.control_dependencies(checks):
                q = tf.identity(q)
        ndims = x.get_shape().ndims
        if ndims is None:
            raise ValueError("percentile needs x of known rank")
        axes = list(range(ndims)) if axis is None else sorted(
            a % ndims for a in np.atleast_1d(axis).tolist())
        keep = [a for a in range(ndims) if a not in axes]
        y = tf.transpose(x, keep + axes) if ndims else x
        shape_keep = tf.shape(y)[:len(keep)]
        y = tf.reshape(y, tf.concat([shape_keep, [-1]], 0))
        n = tf.shape(y)[-1]
        sorted_desc, _ = tf.nn.top_k(y, k=n, sorted=True)
        frac = 1.0 - q / 100.0
        d = tf.cast(n - 1, tf.float64)
        if interpolation == "nearest":
            index = tf.round(d * frac)
        elif interpolation == "lower":
            index = tf.ceil(d * frac)
        else:
            index = tf.floor(d * frac)
        index = tf.clip_by_value(tf.cast(index, tf.int32), 0, n - 1)
        out = tf.gather(sorted_desc, index, axis=-1)
        if keep_dims and ndims:
            shape = tf.stack([1 if a in axes else tf.shape(x)[a] for a in range(ndims)])
            out = tf.reshape(out, shape)
        return out


def matrix_diag_transform(matrix, transform=None, name=None):
    """``matrix`` with ``transform`` applied to its diagonal (unchanged without one)."""
    with tf.name_scope(name, "matrix_diag_transform", [matrix]):
        matrix = tf.convert_to_tensor(matrix, name="matrix")
        if transform is None:
            return matrix
        return tf.matrix_set_diag(matrix, transform(tf.matrix_diag_part(matrix)))


def tridiag(below=None, diag=None, above=None, name=None):
    """The tridiagonal matrix with ``diag`` on the diagonal and ``below`` / ``above`` (one
    shorter) beside it; omitted parts are zeros. At least one part must be given."""
    parts = [("below", below, -1), ("diag", diag, 0), ("above", above, 1)]
    if all(v is None for _, v, _ in parts):
        raise ValueError("Must specify at least one of `below`, `diag`, `above`.")
    with tf.name_scope(name, "tridiag", [below, diag, above]):
        out = None
        for label, value, offset in parts:
            if value is None:
                continue
            value = tf.convert_to_tensor(value, name=label)
            if offset == 0:
                m = tf.matrix_diag(value)
            else:
                pad = tf.zeros_like(value[..., :1])
                m = tf.matrix_diag(tf.concat([value, pad], -1))
                # shift the diagonal one place down (below) or right (above)
                if offset == -1:
                    m = tf.concat([tf.zeros_like(m[..., :1, :]), m[..., :-1, :]], -2)
                else:
                    m = tf.concat([tf.zeros_like(m[..., :, :1]), m[..., :, :-1]], -1)
            out = m if out is None else out + m
        return out

