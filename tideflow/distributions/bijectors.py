"""``tf.contrib.distributions.bijectors`` (TF 1.15): invertible maps built on ``Bijector`` --
the elementwise ones (Exp, PowerTransform, Sigmoid, Softplus, Softsign, Square, AffineScalar,
Gumbel, Weibull, Kumaraswamy), the vector ones (Affine, SoftmaxCentered, Permute, Ordered) and
the combinators (Chain, Invert, Inline)."""

import math
from types import MappingProxyType

import numpy as np

import tideflow as tf
from tideflow.distributions import util as dist_util
from tideflow.distributions.bijector import Bijector, Identity, _overrides
from tideflow.framework import ops
from tideflow.ops.control_flow_ops import with_dependencies

__all__ = ["Affine", "AffineScalar", "Bijector", "Chain", "Exp", "Gumbel", "Identity",
           "Inline", "Invert", "Kumaraswamy", "Ordered", "Permute", "PowerTransform",
           "Sigmoid", "SoftmaxCentered", "Softplus", "Softsign", "Square", "Weibull"]


def _tensor(value, name, dtype=None):
    return None if value is None else tf.convert_to_tensor(value, dtype=dtype, name=name)


def _first_dtype(*values):
    for v in values:
        if isinstance(v, (tf.Tensor, tf.Variable, np.ndarray, np.generic)):
            return tf.convert_to_tensor(v).dtype.base_dtype
    return None


# ---------------------------------------------------------------------------------------------
# elementwise
# ---------------------------------------------------------------------------------------------


class PowerTransform(Bijector):
    """``y = (1 + x * c)**(1 / c)`` for ``power = c > 0``; ``y = exp(x)`` for ``c = 0``."""

    def __init__(self, power=0.0, validate_args=False, name="power_transform"):
        # as TF 1.15: the power is read from a constant made in the bijector's "init" scope
        with tf.name_scope(name), tf.name_scope("init", values=[power]):
            power_value = ops.constant_value(tf.convert_to_tensor(power, name="power"))
        if (power_value is None or np.ndim(power_value) != 0 or not np.isfinite(power_value)
                or power_value < 0):
            raise ValueError("`power` must be a non-negative TF constant.")
        self._power = float(power_value)
        super().__init__(forward_min_event_ndims=0, validate_args=validate_args, name=name)

    @property
    def power(self):
        return self._power

    def _forward(self, x):
        if self._power == 0.0:
            return tf.exp(x)
        return tf.exp(tf.log1p(x * self._power) / self._power)

    def _inverse(self, y):
        if self._power == 0.0:
            return tf.log(y)
        return tf.expm1(tf.log(y) * self._power) / self._power

    def _inverse_log_det_jacobian(self, y):
        return (self._power - 1.0) * tf.log(y)

    def _forward_log_det_jacobian(self, x):
        if self._power == 0.0:
            return x
        return (1.0 / self._power - 1.0) * tf.log1p(x * self._power)


class Exp(PowerTransform):
    """``y = exp(x)``."""

    def __init__(self, validate_args=False, name="exp"):
        super().__init__(power=0.0, validate_args=validate_args, name=name)


class Sigmoid(Bijector):
    """``y = 1 / (1 + exp(-x))``, onto (0, 1)."""

    def __init__(self, validate_args=False, name="sigmoid"):
        super().__init__(forward_min_event_ndims=0, validate_args=validate_args, name=name)

    def _forward(self, x):
        return tf.sigmoid(x)

    def _inverse(self, y):
        return tf.log(y) - tf.log1p(-y)

    def _inverse_log_det_jacobian(self, y):
        return -tf.log(y) - tf.log1p(-y)

    def _forward_log_det_jacobian(self, x):
        return -tf.nn.softplus(-x) - tf.nn.softplus(x)


class Softplus(Bijector):
    """``y = c * log(1 + exp(x / c))`` (``c = hinge_softness``, 1 by default), onto (0, inf)."""

    def __init__(self, hinge_softness=None, validate_args=False, name="softplus"):
        # TF 1.15 opens the name's scope here even without a hinge (softplus, softplus_1...)
        with tf.name_scope(name, values=[hinge_softness]):
            self._hinge_softness = _tensor(hinge_softness, "hinge_softness")
            if self._hinge_softness is not None and validate_args:
                with tf.control_dependencies([tf.assert_none_equal(
                        self._hinge_softness, tf.zeros([], self._hinge_softness.dtype),
                        message="hinge_softness must be non-zero")]):
                    self._hinge_softness = tf.identity(self._hinge_softness)
        super().__init__(forward_min_event_ndims=0, validate_args=validate_args, name=name,
                         graph_parents=[t for t in [self._hinge_softness] if t is not None])

    @property
    def hinge_softness(self):
        return self._hinge_softness

    def _forward(self, x):
        if self._hinge_softness is None:
            return tf.nn.softplus(x)
        c = tf.cast(self._hinge_softness, x.dtype)
        return c * tf.nn.softplus(x / c)

    def _inverse(self, y):
        if self._hinge_softness is None:
            return _softplus_inverse(y)
        c = tf.cast(self._hinge_softness, y.dtype)
        return c * _softplus_inverse(y / c)

    def _inverse_log_det_jacobian(self, y):
        if self._hinge_softness is not None:
            y = y / tf.cast(self._hinge_softness, y.dtype)
        return -tf.log(-tf.expm1(-y))

    def _forward_log_det_jacobian(self, x):
        if self._hinge_softness is not None:
            x = x / tf.cast(self._hinge_softness, x.dtype)
        return -tf.nn.softplus(-x)


def _softplus_inverse(y):
    from tideflow.distributions.util import softplus_inverse

    return softplus_inverse(y)


class Softsign(Bijector):
    """``y = x / (1 + |x|)``, onto (-1, 1)."""

    def __init__(self, validate_args=False, name="softsign"):
        super().__init__(forward_min_event_ndims=0, validate_args=validate_args, name=name)

    def _forward(self, x):
        return x / (1.0 + tf.abs(x))

    def _inverse(self, y):
        return y / (1.0 - tf.abs(y))

    def _forward_log_det_jacobian(self, x):
        return -2.0 * tf.log1p(tf.abs(x))

    def _inverse_log_det_jacobian(self, y):
        return -2.0 * tf.log1p(-tf.abs(y))


class Square(Bijector):
    """``y = x**2`` on ``x >= 0``."""

    def __init__(self, validate_args=False, name="square"):
        super().__init__(forward_min_event_ndims=0, validate_args=validate_args, name=name)

    def _forward(self, x):
        return tf.square(x)

    def _inverse(self, y):
        return tf.sqrt(y)

    def _forward_log_det_jacobian(self, x):
        return math.log(2.0) + tf.log(x)


class AffineScalar(Bijector):
    """``y = scale * x + shift`` with scalar-broadcast ``shift`` and ``scale``."""

    def __init__(self, shift=None, scale=None, validate_args=False, name="affine_scalar"):
        with tf.name_scope(name, values=[shift, scale]):
            dtype = _first_dtype(shift, scale)
            self._shift = _tensor(shift, "shift", dtype)
            self._scale = _tensor(scale, "scale",
                                  dtype or (self._shift.dtype if shift is not None else None))
            if self._scale is not None and validate_args:
                with tf.control_dependencies([tf.assert_none_equal(
                        self._scale, tf.zeros([], self._scale.dtype),
                        message="Argument scale must be non-zero.")]):
                    self._scale = tf.identity(self._scale)
        parents = [t for t in (self._shift, self._scale) if t is not None]
        super().__init__(forward_min_event_ndims=0, is_constant_jacobian=True,
                         validate_args=validate_args, graph_parents=parents, name=name,
                         dtype=parents[0].dtype.base_dtype if parents else None)

    @property
    def shift(self):
        return self._shift

    @property
    def scale(self):
        return self._scale

    # TF 1.15's ops: an Identity first
    def _forward(self, x):
        y = tf.identity(x)
        y = y if self._scale is None else y * self._scale
        return y if self._shift is None else y + self._shift

    def _inverse(self, y):
        x = tf.identity(y)
        x = x if self._shift is None else x - self._shift
        return x if self._scale is None else x / self._scale

    def _forward_log_det_jacobian(self, x):
        if self._scale is None:
            return tf.constant(0.0, dtype=x.dtype)
        return tf.log(tf.abs(self._scale))


class Gumbel(Bijector):
    """``y = exp(-exp(-(x - loc) / scale))``: the Gumbel cdf, onto (0, 1)."""

    def __init__(self, loc=0.0, scale=1.0, validate_args=False, name="gumbel"):
        with tf.name_scope(name, values=[loc, scale]):
            dtype = _first_dtype(loc, scale)
            self._loc = _tensor(loc, "loc", dtype)
            self._scale = _tensor(scale, "scale", self._loc.dtype)
        super().__init__(forward_min_event_ndims=0, validate_args=validate_args,
                         graph_parents=[self._loc, self._scale], name=name)

    loc = property(lambda self: self._loc)
    scale = property(lambda self: self._scale)

    def _forward(self, x):
        return tf.exp(-tf.exp(-(x - self._loc) / self._scale))

    def _inverse(self, y):
        return self._loc - self._scale * tf.log(-tf.log(y))

    def _inverse_log_det_jacobian(self, y):
        return tf.log(self._scale / (-tf.log(y) * y))

    def _forward_log_det_jacobian(self, x):
        z = (x - self._loc) / self._scale
        return -z - tf.exp(-z) - tf.log(self._scale)


class Weibull(Bijector):
    """``y = 1 - exp(-(x / scale)**concentration)``: the Weibull cdf on x >= 0."""

    def __init__(self, scale=1.0, concentration=1.0, validate_args=False, name="weibull"):
        with tf.name_scope(name, values=[scale, concentration]):
            dtype = _first_dtype(scale, concentration)
            self._scale = _tensor(scale, "scale", dtype)
            self._concentration = _tensor(concentration, "concentration", self._scale.dtype)
        super().__init__(forward_min_event_ndims=0, validate_args=validate_args,
                         graph_parents=[self._scale, self._concentration], name=name)

    scale = property(lambda self: self._scale)
    concentration = property(lambda self: self._concentration)

    def _forward(self, x):
        return -tf.expm1(-((x / self._scale) ** self._concentration))

    def _inverse(self, y):
        return self._scale * (-tf.log1p(-y)) ** (1.0 / self._concentration)

    def _inverse_log_det_jacobian(self, y):
        k = self._concentration
        return (-tf.log1p(-y) + (1.0 / k - 1.0) * tf.log(-tf.log1p(-y))
                + tf.log(self._scale / k))

    def _forward_log_det_jacobian(self, x):
        k = self._concentration
        return (-(x / self._scale) ** k + (k - 1.0) * tf.log(x) + tf.log(k)
                - k * tf.log(self._scale))


class Kumaraswamy(Bijector):
    """``y = (1 - (1 - x)**(1 / b))**(1 / a)`` on [0, 1] (``a = concentration1``,
    ``b = concentration0``): the Kumaraswamy quantile function."""

    def __init__(self, concentration1=None, concentration0=None, validate_args=False,
                 name="kumaraswamy"):
        with tf.name_scope(name, values=[concentration1, concentration0]):
            dtype = _first_dtype(concentration1, concentration0)
            self._c1 = _tensor(concentration1, "concentration1", dtype)
            self._c0 = _tensor(concentration0, "concentration0", self._c1.dtype)
        super().__init__(forward_min_event_ndims=0, validate_args=validate_args,
                         graph_parents=[self._c1, self._c0], name=name)

    concentration1 = property(lambda self: self._c1)
    concentration0 = property(lambda self: self._c0)

    def _forward(self, x):
        return tf.exp(tf.log1p(-tf.exp(tf.log1p(-x) / self._c0)) / self._c1)

    def _inverse(self, y):
        return tf.exp(tf.log1p(-(1.0 - y ** self._c1) ** self._c0))

    def _inverse_log_det_jacobian(self, y):
        a, b = self._c1, self._c0
        return (tf.log(a) + tf.log(b) + (a - 1) * tf.log(y)
                + (b - 1) * tf.log1p(-y ** a))


# ---------------------------------------------------------------------------------------------
# vector
# ---------------------------------------------------------------------------------------------


class Affine(Bijector):
    """``y = scale @ x + shift`` over the last axis, with ``scale`` the sum of
    ``scale_identity_multiplier * I``, ``diag(scale_diag)`` and the lower triangle of
    ``scale_tril`` (the identity when none is given)."""

    def __init__(self, shift=None, scale_identity_multiplier=None, scale_diag=None,
                 scale_tril=None, scale_perturb_factor=None, scale_perturb_diag=None,
                 adjoint=False, validate_args=False, name="affine", dtype=None):
        if scale_perturb_factor is not None or scale_perturb_diag is not None:
            raise NotImplementedError("Affine: scale_perturb_factor / scale_perturb_diag are "
                                      "not supported")
        values = [shift, scale_identity_multiplier, scale_diag, scale_tril]
        with tf.name_scope(name, values=values):
            dtype = dtype or _first_dtype(*values)
            if dtype is None and any(v is not None for v in values):
                dtype = tf.float32
            self._shift = _tensor(shift, "shift", dtype)
            if scale_identity_multiplier is None and scale_diag is None and scale_tril is None:
                scale_identity_multiplier = 1.0
            self._multiplier = _tensor(scale_identity_multiplier, "scale_identity_multiplier",
                                       dtype)
            self._diag = _tensor(scale_diag, "scale_diag", dtype)
            self._tril = None if scale_tril is None else tf.matrix_band_part(
                _tensor(scale_tril, "scale_tril", dtype), -1, 0)
            self._adjoint = adjoint
            # the scale's diagonal (all the Jacobian needs: the scale is triangular)
            diag = None if self._tril is None else tf.matrix_diag_part(self._tril)
            if self._diag is not None:
                diag = self._diag if diag is None else diag + self._diag
            if self._multiplier is not None and diag is not None:
                diag = diag + self._multiplier[..., None] if self._multiplier.get_shape().ndims \
                    else diag + self._multiplier
            self._scale_diag_part = diag
            if validate_args and diag is not None:
                with tf.control_dependencies([tf.assert_none_equal(
                        diag, tf.zeros([], diag.dtype),
                        message="diagonal part must be non-zero")]):
                    self._scale_diag_part = tf.identity(diag)
        parents = [t for t in (self._shift, self._multiplier, self._diag, self._tril)
                   if t is not None]
        super().__init__(forward_min_event_ndims=1, is_constant_jacobian=True,
                         validate_args=validate_args, graph_parents=parents, name=name,
                         dtype=dtype)

    @property
    def shift(self):
        return self._shift

    @property
    def adjoint(self):
        return self._adjoint

    @property
    def scale(self):
        """The dense scale matrix (TF returns a LinearOperator; this is its ``to_dense()``)."""
        return self._dense()

    def _dense(self):
        if self._tril is None and self._diag is None:
            return None
        m = self._tril
        if self._diag is not None:
            d = tf.matrix_diag(self._diag)
            m = d if m is None else m + d
        if self._multiplier is not None:
            eye = tf.eye(tf.shape(m)[-1], dtype=m.dtype)
            mult = self._multiplier
            if mult.get_shape().ndims:
                mult = mult[..., None, None]
            m = m + mult * eye
        return m

    def _forward(self, x):
        m = self._dense()
        if m is None:
            y = x if self._multiplier is None else x * self._multiplier[..., None] \
                if self._multiplier.get_shape().ndims else x * self._multiplier
        elif self._tril is None:  # diagonal
            y = x * self._scale_diag_part
        else:
            y = tf.squeeze(tf.matmul(m + tf.zeros_like(x[..., None]), x[..., None],
                                     adjoint_a=self._adjoint), -1)
        return y if self._shift is None else y + self._shift

    def _inverse(self, y):
        x = y if self._shift is None else y - self._shift
        m = self._dense()
        if m is None:
            mult = self._multiplier
            return x / (mult[..., None] if mult.get_shape().ndims else mult)
        if self._tril is None:
            return x / self._scale_diag_part
        rhs = x[..., None]
        m = m + tf.zeros_like(rhs)
        return tf.squeeze(tf.matrix_triangular_solve(m, rhs, lower=True,
                                                     adjoint=self._adjoint), -1)

    def _forward_log_det_jacobian(self, x):
        if self._scale_diag_part is None:  # a multiple of the identity
            k = tf.cast(tf.shape(x)[-1], x.dtype)
            return k * tf.log(tf.abs(self._multiplier))
        return tf.reduce_sum(tf.log(tf.abs(self._scale_diag_part)), -1)


class SoftmaxCentered(Bijector):
    """``R^k -> the open (k+1)-simplex``: ``y = softmax([x, 0])``."""

    def __init__(self, validate_args=False, name="softmax_centered"):
        super().__init__(forward_min_event_ndims=1, validate_args=validate_args, name=name)

    # TF 1.15's ops (its event shapes are the last dimension's alone)
    def _forward_event_shape(self, input_shape):
        if input_shape.ndims is None or input_shape[-1].value is None:
            return input_shape
        return tf.TensorShape([input_shape[-1].value + 1])

    def _forward_event_shape_tensor(self, input_shape):
        return (input_shape[-1] + 1)[..., tf.newaxis]

    def _inverse_event_shape(self, output_shape):
        if output_shape.ndims is None or output_shape[-1].value is None:
            return output_shape
        if output_shape[-1].value <= 1:
            raise ValueError(f"output_shape[-1] = {output_shape[-1].value} <= 1")
        return tf.TensorShape([output_shape[-1].value - 1])

    def _inverse_event_shape_tensor(self, output_shape):
        if self.validate_args:
            output_shape = with_dependencies([tf.assert_greater(
                output_shape[-1], 1, message="Need last dimension greater than 1.")],
                output_shape)
        return (output_shape[-1] - 1)[..., tf.newaxis]

    def _forward(self, x):
        y = dist_util.pad(x, axis=-1, back=True)
        if x.get_shape().ndims is not None:
            y.set_shape(x.get_shape()[:-1].concatenate(x.get_shape()[-1].value + 1
                                                       if x.get_shape()[-1].value is not None
                                                       else None))
        return tf.nn.softmax(y)

    def _inverse(self, y):
        x = tf.log(y)
        log_normalization = (-x[..., -1])[..., tf.newaxis]
        x = x[..., :-1] + log_normalization
        if y.get_shape().ndims is not None:
            x.set_shape(y.get_shape()[:-1].concatenate(y.get_shape()[-1].value - 1
                                                       if y.get_shape()[-1].value is not None
                                                       else None))
        return x

    def _inverse_log_det_jacobian(self, y):
        return -tf.reduce_sum(tf.log(y), axis=-1)

    def _forward_log_det_jacobian(self, x):
        log_normalization = tf.nn.softplus(tf.reduce_logsumexp(x, axis=-1, keepdims=True))
        return tf.squeeze(-log_normalization + tf.reduce_sum(x - log_normalization, axis=-1,
                                                             keepdims=True), axis=-1)


class Permute(Bijector):
    """Reorders the last axis: ``y = x[..., permutation]``."""

    def __init__(self, permutation, validate_args=False, name=None):
        with tf.name_scope(name, "permute", values=[permutation]):  # TF 1.15's scope
            self._permutation = tf.convert_to_tensor(permutation, name="permutation")
        if not self._permutation.dtype.is_integer:
            raise TypeError(f"permutation.dtype ({self._permutation.dtype.name}) should be "
                            f"`int`-like.")
        p = ops.constant_value(self._permutation)
        if p is not None and set(p.ravel().tolist()) != set(range(p.size)):
            raise ValueError("Permutation over `d` must contain exactly one of each of "
                             "`{0, 1, ..., d}`.")
        super().__init__(forward_min_event_ndims=1, is_constant_jacobian=True,
                         validate_args=validate_args, name=name or "permute")

    @property
    def permutation(self):
        return self._permutation

    def _forward(self, x):
        return tf.gather(x, self._permutation, axis=-1)

    def _inverse(self, y):
        return tf.gather(y, tf.invert_permutation(self._permutation), axis=-1)

    def _forward_log_det_jacobian(self, x):
        return tf.constant(0.0, dtype=x.dtype)


class Ordered(Bijector):
    """Increasing vectors to unconstrained ones: ``x[0]``, then ``log(x[i] - x[i-1])``."""

    def __init__(self, validate_args=False, name="ordered"):
        super().__init__(forward_min_event_ndims=1, validate_args=validate_args, name=name)

    def _forward(self, x):
        return tf.concat([x[..., :1], tf.log(x[..., 1:] - x[..., :-1])], -1)

    def _inverse(self, y):
        return tf.cumsum(tf.concat([y[..., :1], tf.exp(y[..., 1:])], -1), axis=-1)

    def _inverse_log_det_jacobian(self, y):
        return tf.reduce_sum(y[..., 1:], -1)

    def _forward_log_det_jacobian(self, x):
        return -tf.reduce_sum(tf.log(x[..., 1:] - x[..., :-1]), -1)


# ---------------------------------------------------------------------------------------------
# combinators
# ---------------------------------------------------------------------------------------------


class Invert(Bijector):
    """The inverse of ``bijector``: its forward is the other's inverse."""

    def __init__(self, bijector, validate_args=False, name=None):
        if not bijector._is_injective:
            raise NotImplementedError("Invert is not implemented for non-injective "
                                      "bijectors.")
        self._bijector = bijector
        super().__init__(graph_parents=bijector.graph_parents,
                         forward_min_event_ndims=bijector.inverse_min_event_ndims,
                         inverse_min_event_ndims=bijector.forward_min_event_ndims,
                         is_constant_jacobian=bijector.is_constant_jacobian,
                         validate_args=validate_args, dtype=bijector.dtype,
                         name=name or f"invert_{bijector.name}")

    @property
    def bijector(self):
        return self._bijector

    # TF 1.15: the base class's methods (this bijector's name scopes and caches) on the inner
    # bijector's private ones
    _SIDES = MappingProxyType({"_forward": "_inverse", "_inverse": "_forward",
                               "_forward_log_det_jacobian": "_inverse_log_det_jacobian",
                               "_inverse_log_det_jacobian": "_forward_log_det_jacobian"})

    def _has_impl(self, method):
        return _overrides(self._bijector, self._SIDES[method])

    def _forward(self, x):
        return self._bijector._inverse(x)

    def _inverse(self, y):
        return self._bijector._forward(y)

    def _forward_log_det_jacobian(self, x):
        return self._bijector._inverse_log_det_jacobian(x)

    def _inverse_log_det_jacobian(self, y):
        return self._bijector._forward_log_det_jacobian(y)

    def _forward_event_shape(self, input_shape):
        return self._bijector._inverse_event_shape(input_shape)

    def _forward_event_shape_tensor(self, input_shape):
        return self._bijector._inverse_event_shape_tensor(input_shape)

    def _inverse_event_shape(self, output_shape):
        return self._bijector._forward_event_shape(output_shape)

    def _inverse_event_shape_tensor(self, output_shape):
        return self._bijector._forward_event_shape_tensor(output_shape)


class Chain(Bijector):
    """The composition of ``bijectors``: forward applies the LAST one first (``Chain([f, g])``
    is ``f(g(x))``)."""

    def __init__(self, bijectors=None, validate_args=False, name=None):
        bijectors = list(bijectors or [])
        self._bijectors = bijectors
        for b in bijectors:
            if not b._is_injective:
                raise NotImplementedError(f"Invert is not implemented for non-injective "
                                          f"bijector ({b.name})")
        dtypes = {b.dtype for b in bijectors if b.dtype is not None}
        if len(dtypes) > 1:
            raise ValueError("incompatible dtypes: " + str(sorted(d.name for d in dtypes)))
        # the fewest input dims every member accepts, as the ranks change along the chain
        forward_min, change = 0, 0
        for b in reversed(bijectors):
            forward_min = max(forward_min, b.forward_min_event_ndims - change)
            change += b.inverse_min_event_ndims - b.forward_min_event_ndims
        parents = [t for b in bijectors for t in b.graph_parents]
        super().__init__(graph_parents=parents, forward_min_event_ndims=forward_min,
                         inverse_min_event_ndims=forward_min + change,
                         is_constant_jacobian=all(b.is_constant_jacobian for b in bijectors),
                         validate_args=validate_args, dtype=dtypes.pop() if dtypes else None,
                         name=name or ("identity" if not bijectors else
                                       "_of_".join(["chain"] + [b.name for b in bijectors])))

    @property
    def bijectors(self):
        return list(self._bijectors)

    def _forward(self, x):
        for b in reversed(self._bijectors):
            x = b.forward(x)
        return x

    def _inverse(self, y):
        for b in self._bijectors:
            y = b.inverse(y)
        return y

    # TF 1.15's Chain sums its members' log det Jacobians at its own minimal event dims; the
    # base class reduces over further event dims and caches, so names and counts are TF's
    def _forward_log_det_jacobian(self, x):
        return self._sum_of_ldjs(x, forward=True)

    def _inverse_log_det_jacobian(self, y):
        return self._sum_of_ldjs(y, forward=False)

    def _sum_of_ldjs(self, point, forward):
        point = tf.convert_to_tensor(point, name="x" if forward else "y")
        total = tf.cast(0.0, dtype=point.dtype.base_dtype)
        if not self._bijectors:
            return total
        event_ndims = self._static_event_ndims(
            self.forward_min_event_ndims if forward else self.inverse_min_event_ndims)

        def static(t, ndims):
            return t.get_shape().is_fully_defined() and isinstance(ndims, int)

        if static(point, event_ndims):
            event_shape = point.get_shape()[point.get_shape().ndims - event_ndims:]
        else:
            event_shape = tf.shape(point)[tf.rank(point) - event_ndims:]
        for b in reversed(self._bijectors) if forward else self._bijectors:
            if forward:
                total += b.forward_log_det_jacobian(point, event_ndims=event_ndims)
            else:
                total += b.inverse_log_det_jacobian(point, event_ndims=event_ndims)
            if static(point, event_ndims):
                event_shape = (b.forward_event_shape if forward
                               else b.inverse_event_shape)(event_shape)
                event_ndims = self._static_event_ndims(event_shape.ndims)
            else:
                event_shape = (b.forward_event_shape_tensor if forward
                               else b.inverse_event_shape_tensor)(event_shape)
                event_ndims = tf.size(event_shape)
                static_ndims = self._static_event_ndims(event_ndims)
                if static_ndims is not None:
                    event_ndims = static_ndims
            point = b.forward(point) if forward else b.inverse(point)
        return total

    def _forward_event_shape(self, input_shape):
        for b in reversed(self._bijectors):
            input_shape = b.forward_event_shape(input_shape)
        return input_shape

    def _forward_event_shape_tensor(self, input_shape):
        for b in reversed(self._bijectors):
            input_shape = b.forward_event_shape_tensor(input_shape)
        return input_shape

    def _inverse_event_shape(self, output_shape):
        for b in self._bijectors:
            output_shape = b.inverse_event_shape(output_shape)
        return output_shape

    def _inverse_event_shape_tensor(self, output_shape):
        for b in self._bijectors:
            output_shape = b.inverse_event_shape_tensor(output_shape)
        return output_shape


class Inline(Bijector):
    """A bijector of the given functions (those left ``None`` are not implemented)."""

    def __init__(self, forward_fn=None, inverse_fn=None, inverse_log_det_jacobian_fn=None,
                 forward_log_det_jacobian_fn=None, forward_event_shape_fn=None,
                 forward_event_shape_tensor_fn=None, inverse_event_shape_fn=None,
                 inverse_event_shape_tensor_fn=None, is_constant_jacobian=False,
                 validate_args=False, forward_min_event_ndims=None,
                 inverse_min_event_ndims=None, name="inline"):
        super().__init__(forward_min_event_ndims=forward_min_event_ndims,
                         inverse_min_event_ndims=inverse_min_event_ndims,
                         is_constant_jacobian=is_constant_jacobian,
                         validate_args=validate_args, name=name)
        self._fns = {"_forward": forward_fn, "_inverse": inverse_fn,
                     "_inverse_log_det_jacobian": inverse_log_det_jacobian_fn,
                     "_forward_log_det_jacobian": forward_log_det_jacobian_fn}
        self._shape_fns = {"fwd": forward_event_shape_fn,
                           "fwd_t": forward_event_shape_tensor_fn,
                           "inv": inverse_event_shape_fn,
                           "inv_t": inverse_event_shape_tensor_fn}

    def _has_impl(self, method):
        return self._fns.get(method) is not None

    def _forward(self, x):
        return self._fns["_forward"](x)

    def _inverse(self, y):
        return self._fns["_inverse"](y)

    def _inverse_log_det_jacobian(self, y):
        return self._fns["_inverse_log_det_jacobian"](y)

    def _forward_log_det_jacobian(self, x):
        return self._fns["_forward_log_det_jacobian"](x)

    def _shape(self, key, shape):
        fn = self._shape_fns[key]
        return shape if fn is None else fn(shape)

    def _forward_event_shape(self, input_shape):
        return self._shape("fwd", input_shape)

    def _forward_event_shape_tensor(self, input_shape):
        return self._shape("fwd_t", input_shape)

    def _inverse_event_shape(self, output_shape):
        return self._shape("inv", output_shape)

    def _inverse_event_shape_tensor(self, output_shape):
        return self._shape("inv_t", output_shape)


# the matrix, shape and non-injective bijectors live beside; TF exports them here too
from tideflow.distributions.matrix_bijectors import (
    AbsoluteValue,
    AffineLinearOperator,
    CholeskyOuterProduct,
    ConditionalBijector,
    FillTriangular,
    MatrixInverseTriL,
    Reshape,
    ScaleTriL,
    SinhArcsinh,
    TransformDiagonal,
)

__all__ += ["AbsoluteValue", "AffineLinearOperator", "CholeskyOuterProduct",
            "ConditionalBijector", "FillTriangular", "MatrixInverseTriL", "Reshape", "ScaleTriL",
            "SinhArcsinh", "TransformDiagonal"]

from tideflow.distributions.flow_bijectors import (
    MaskedAutoregressiveFlow,
    RealNVP,
    masked_autoregressive_default_template,
    masked_dense,
    real_nvp_default_template,
)

__all__ += ["MaskedAutoregressiveFlow", "RealNVP", "masked_autoregressive_default_template",
            "masked_dense", "real_nvp_default_template"]
