"""``tf.contrib.distributions``' multivariate normals with a full scale (TF 1.15):
``MultivariateNormalLinearOperator`` (``x = loc + scale @ eps`` for a LinearOperator ``scale``),
``MultivariateNormalTriL``, ``MultivariateNormalFullCovariance`` (the Cholesky factor of the
covariance as the scale) and ``MultivariateNormalDiagPlusLowRank``, with their KL divergences to
each other and to ``MultivariateNormalDiag``."""

import math

import tideflow as tf
from tideflow.distributions.contrib_dists import (
    MultivariateNormalDiag,
    _AsTransformedNormal,
    _reserve_tf_names,
    _VectorEvent,
)
from tideflow.distributions.distribution import FULLY_REPARAMETERIZED, Distribution, RegisterKL
from tideflow.ops.linear_operator import (
    LinearOperatorDiag,
    LinearOperatorFullMatrix,
    LinearOperatorLowerTriangular,
)

_HALF_LOG_TWO_PI = 0.5 * math.log(2.0 * math.pi)


def _float_dtype(name, *values):
    first = next((v for v in values if v is not None), None)
    if first is None:
        raise ValueError(f"{name}: no parameters given to infer the dtype from")
    dtype = tf.convert_to_tensor(first).dtype.base_dtype
    if not dtype.is_floating:
        raise TypeError(f"{name}: parameters must be floating point, got {dtype.name}")
    return dtype


def _solve(scale, rhs):
    """``scale^-1 @ rhs`` for a scale operator and ``rhs [..., k, m]``, broadcasting their
    batch dimensions."""
    if isinstance(scale, LinearOperatorDiag):
        return rhs / tf.expand_dims(scale.diag, -1)
    dense = scale.to_dense()
    dense_b = dense + tf.zeros_like(rhs[..., :1, :1])
    rhs_b = rhs + tf.zeros_like(dense[..., :1])
    if isinstance(scale, LinearOperatorLowerTriangular):
        return tf.matrix_triangular_solve(dense_b, rhs_b, lower=True)
    return tf.matrix_solve(dense_b, rhs_b)


def _own(parameters):
    return {k: v for k, v in parameters.items() if k not in ("self", "__class__")}


def _dense(scale):
    return scale.to_dense()


class MultivariateNormalLinearOperator(_AsTransformedNormal, _VectorEvent, Distribution):
    """The normal distribution over vectors ``loc + scale @ eps`` (``eps`` standard normal):
    mean ``loc`` and covariance ``scale @ scale^T``."""

    def __init__(self, loc=None, scale=None, validate_args=False, allow_nan_stats=True,
                 name="MultivariateNormalLinearOperator"):
        parameters = dict(locals())
        if scale is None:
            raise ValueError("Missing required `scale` parameter.")
        if not scale.dtype.is_floating:
            raise TypeError(f"`scale` parameter must have floating-point dtype, got "
                            f"{scale.dtype.name}")
        with tf.name_scope(name, values=[loc] + list(scale.graph_parents)) as scope:
            dtype = scale.dtype
            dense = _dense(scale)
            if loc is None:
                loc = tf.zeros_like(dense[..., 0])
            loc = tf.convert_to_tensor(loc, dtype=dtype, name="loc")
            if loc.get_shape().ndims == 0:
                raise ValueError("loc must have rank >= 1 (the last axis is the event)")
            self._loc = loc
            self._scale = scale
            # loc and the scale's columns broadcast against each other's batch dimensions
            self._loc_b = loc + tf.zeros_like(dense[..., 0])
            self._scale_b = dense + tf.zeros_like(loc)[..., None, :1]
            self._dense = dense
        super().__init__(dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats,
                         parameters, [loc] + list(scale.graph_parents), scope)

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    def _k(self):
        k = self._loc_b.get_shape()[-1].value
        if k is not None:
            return float(k)
        return tf.cast(tf.shape(self._loc_b)[-1], self.dtype)

    def _log_abs_det(self):
        return self._scale.log_abs_determinant() + tf.zeros_like(self._loc_b[..., 0])

    def _sample_n(self, n, seed):
        shape = tf.concat([[n], tf.shape(self._loc_b)], 0)
        eps = tf.random_normal(shape, dtype=self.dtype, seed=seed)
        return self._loc_b + tf.reduce_sum(self._scale_b * tf.expand_dims(eps, -2), -1)

    def _log_prob(self, x):
        z = _solve(self._scale, tf.expand_dims(x - self._loc_b, -1))[..., 0]
        return (-0.5 * tf.reduce_sum(tf.square(z), -1) - self._log_abs_det()
                - self._k() * _HALF_LOG_TWO_PI)

    def _entropy(self):
        return self._k() * (0.5 + _HALF_LOG_TWO_PI) + self._log_abs_det()

    def _mean(self):
        return self._loc_b

    def _mode(self):
        return self._loc_b

    # the second moments come from the scale alone (as TF: their batch shape is the scale's,
    # and they do not depend on loc)
    def _covariance(self):
        return tf.matmul(self._dense, self._dense, transpose_b=True)

    def _variance(self):
        return tf.reduce_sum(tf.square(self._dense), -1)

    def _stddev(self):
        return tf.sqrt(self._variance())


class MultivariateNormalTriL(MultivariateNormalLinearOperator):
    """The multivariate normal with scale the lower triangle of ``scale_tril``
    (covariance ``scale_tril @ scale_tril^T``)."""

    def __init__(self, loc=None, scale_tril=None, validate_args=False, allow_nan_stats=True,
                 name="MultivariateNormalTriL"):
        parameters = dict(locals())
        if loc is None and scale_tril is None:
            raise ValueError("Must specify one or both of loc, scale_tril.")
        with tf.name_scope(name, values=[loc, scale_tril]) as scope:
            dtype = _float_dtype(name, loc, scale_tril)
            if scale_tril is None:
                loc = tf.convert_to_tensor(loc, dtype=dtype, name="loc")
                scale = LinearOperatorDiag(tf.ones_like(loc), is_non_singular=True,
                                           is_positive_definite=True)
            else:
                tril = tf.convert_to_tensor(scale_tril, dtype=dtype, name="scale_tril")
                scale = LinearOperatorLowerTriangular(tril, is_non_singular=True)
        super().__init__(loc, scale, validate_args, allow_nan_stats, name=scope)
        self._parameters = _own(parameters)
        if type(self) is MultivariateNormalTriL:
            _reserve_tf_names()


class MultivariateNormalFullCovariance(MultivariateNormalTriL):
    """The multivariate normal of mean ``loc`` and covariance ``covariance_matrix`` (symmetric
    positive definite); its scale is the covariance's Cholesky factor."""

    def __init__(self, loc=None, covariance_matrix=None, validate_args=False,
                 allow_nan_stats=True, name="MultivariateNormalFullCovariance"):
        parameters = dict(locals())
        if loc is None and covariance_matrix is None:
            raise ValueError("Must specify one or both of loc, covariance_matrix.")
        with tf.name_scope(name, values=[loc, covariance_matrix]) as scope:
            dtype = _float_dtype(name, loc, covariance_matrix)
            tril = None
            if covariance_matrix is not None:
                cov = tf.convert_to_tensor(covariance_matrix, dtype=dtype,
                                           name="covariance_matrix")
                tril = tf.cholesky(cov)
        super().__init__(loc, tril, validate_args, allow_nan_stats, name=scope)
        self._parameters = _own(parameters)


class MultivariateNormalDiagPlusLowRank(MultivariateNormalLinearOperator):
    """The multivariate normal with scale
    ``diag(scale_diag + scale_identity_multiplier) + U @ diag(scale_perturb_diag) @ U^T``
    (``U = scale_perturb_factor`` of shape ``[..., k, r]``; ``scale_perturb_diag`` defaults to
    ones)."""

    def __init__(self, loc=None, scale_diag=None, scale_identity_multiplier=None,
                 scale_perturb_factor=None, scale_perturb_diag=None, validate_args=False,
                 allow_nan_stats=True, name="MultivariateNormalDiagPlusLowRank"):
        parameters = dict(locals())
        values = [loc, scale_diag, scale_identity_multiplier, scale_perturb_factor,
                  scale_perturb_diag]
        with tf.name_scope(name, values=values) as scope:
            dtype = _float_dtype(name, *values)

            def conv(v, vname):
                return None if v is None else tf.convert_to_tensor(v, dtype=dtype, name=vname)

            loc = conv(loc, "loc")
            diag = conv(scale_diag, "scale_diag")
            mult = conv(scale_identity_multiplier, "scale_identity_multiplier")
            factor = conv(scale_perturb_factor, "scale_perturb_factor")
            pdiag = conv(scale_perturb_diag, "scale_perturb_diag")
            if factor is None and pdiag is not None:
                raise ValueError("scale_perturb_factor must be given with scale_perturb_diag")
            if diag is None:
                if mult is None and loc is None:
                    raise ValueError("Cannot infer the event size: give loc or scale_diag")
                ref = loc if loc is not None else factor[..., 0]
                diag = tf.ones_like(ref) if mult is None else tf.zeros_like(ref)
            if mult is not None:
                diag = diag + tf.expand_dims(mult, -1)
            dense = tf.matrix_diag(diag)
            if factor is not None:
                scaled = factor if pdiag is None else factor * tf.expand_dims(pdiag, -2)
                dense = dense + tf.matmul(scaled, factor, transpose_b=True)
            scale = LinearOperatorFullMatrix(dense, is_non_singular=True, is_square=True)
        super().__init__(loc, scale, validate_args, allow_nan_stats, name=scope)
        self._parameters = _own(parameters)


def _kl_full(a, b, name=None):
    """KL between two multivariate normals given by scale operators ``S_a``, ``S_b``:
    ``(|S_b^-1 S_a|_F^2 + |S_b^-1 (mu_b - mu_a)|^2 - k) / 2 + log|det S_b| - log|det S_a|``."""
    with tf.name_scope(name, "kl_mvn", [a.loc, b.loc]):
        ratio = _solve(b.scale, _dense(a.scale))
        diff = _solve(b.scale, tf.expand_dims(b.mean() - a.mean(), -1))[..., 0]
        k = tf.cast(tf.shape(a.mean())[-1], a.dtype)
        return (0.5 * (tf.reduce_sum(tf.square(ratio), [-2, -1])
                       + tf.reduce_sum(tf.square(diff), -1) - k)
                + b.scale.log_abs_determinant() - a.scale.log_abs_determinant())


for _pair in ((MultivariateNormalLinearOperator, MultivariateNormalLinearOperator),
              (MultivariateNormalDiag, MultivariateNormalLinearOperator),
              (MultivariateNormalLinearOperator, MultivariateNormalDiag)):
    RegisterKL(*_pair)(_kl_full)


__all__ = ["MultivariateNormalDiagPlusLowRank", "MultivariateNormalFullCovariance",
           "MultivariateNormalLinearOperator", "MultivariateNormalTriL"]
