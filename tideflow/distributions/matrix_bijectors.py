"""``tf.contrib.distributions.bijectors`` on matrices and shapes (TF 1.15):
``CholeskyOuterProduct``, ``FillTriangular``, ``TransformDiagonal``, ``ScaleTriL``,
``MatrixInverseTriL`` and ``Reshape``; plus the elementwise ``AbsoluteValue`` (not injective)
and ``SinhArcsinh``."""

import math

import numpy as np

import tideflow as tf
from tideflow.distributions import util as dist_util
from tideflow.distributions.bijector import Bijector, _overrides
from tideflow.distributions.bijectors import AffineScalar, Chain, Softplus, _first_dtype, _tensor

__all__ = ["AbsoluteValue", "AffineLinearOperator", "CholeskyOuterProduct", "ConditionalBijector",
           "FillTriangular", "MatrixInverseTriL", "Reshape", "ScaleTriL", "SinhArcsinh",
           "TransformDiagonal"]


class AbsoluteValue(Bijector):
    """``y = |x|``: not injective, so ``inverse`` gives both preimages ``(-y, y)`` and the
    inverse log det Jacobian one (zero) term per preimage."""

    _is_injective = False

    def __init__(self, validate_args=False, name="absolute_value"):
        super().__init__(forward_min_event_ndims=0, is_constant_jacobian=True,
                         validate_args=validate_args, name=name)

    def forward(self, x, name="forward"):
        with tf.name_scope(self.name), tf.name_scope(name, values=[x]):
            return tf.abs(tf.convert_to_tensor(x, name="x"))

    def inverse(self, y, name="inverse"):
        with tf.name_scope(self.name), tf.name_scope(name, values=[y]):
            y = tf.convert_to_tensor(y, name="y")
            if self.validate_args:
                with tf.control_dependencies([tf.assert_non_negative(
                        y, message="Argument y was negative")]):
                    y = tf.identity(y)
            return -y, y

    def inverse_log_det_jacobian(self, y, event_ndims, name="inverse_log_det_jacobian"):
        with tf.name_scope(self.name), tf.name_scope(name, values=[y]):
            self._check_event_ndims(event_ndims, 0)
            zero = tf.zeros([], tf.convert_to_tensor(y).dtype)
            return zero, zero

    def forward_log_det_jacobian(self, x, event_ndims, name="forward_log_det_jacobian"):
        raise NotImplementedError("forward_log_det_jacobian cannot be implemented for "
                                  "non-injective transforms.")


class SinhArcsinh(Bijector):
    """``y = sinh((arcsinh(x) + skewness) * tailweight)``."""

    def __init__(self, skewness=None, tailweight=None, validate_args=False,
                 name="SinhArcsinh"):
        with tf.name_scope(name, values=[skewness, tailweight]):
            dtype = _first_dtype(skewness, tailweight) or tf.float32
            self._skewness = _tensor(0.0 if skewness is None else skewness, "skewness", dtype)
            self._tailweight = _tensor(1.0 if tailweight is None else tailweight, "tailweight",
                                       dtype)
            if validate_args:
                with tf.control_dependencies([tf.assert_positive(
                        self._tailweight, message="Argument tailweight was not positive")]):
                    self._tailweight = tf.identity(self._tailweight)
        super().__init__(forward_min_event_ndims=0, validate_args=validate_args,
                         graph_parents=[self._skewness, self._tailweight], name=name)

    skewness = property(lambda self: self._skewness)
    tailweight = property(lambda self: self._tailweight)

    def _forward(self, x):
        return tf.sinh((tf.asinh(x) + self._skewness) * self._tailweight)

    def _inverse(self, y):
        return tf.sinh(tf.asinh(y) / self._tailweight - self._skewness)

    def _forward_log_det_jacobian(self, x):
        z = (tf.asinh(x) + self._skewness) * self._tailweight
        return (tf.log(tf.cosh(z)) + tf.log(self._tailweight) - 0.5 * tf.log1p(tf.square(x)))


# ---------------------------------------------------------------------------------------------
# matrices
# ---------------------------------------------------------------------------------------------


class CholeskyOuterProduct(Bijector):
    """``Y = X X^T`` for lower triangular ``X`` with a positive diagonal (inverse: the
    Cholesky factor)."""

    def __init__(self, validate_args=False, name="cholesky_outer_product"):
        super().__init__(forward_min_event_ndims=2, validate_args=validate_args, name=name)

    def _forward(self, x):
        return tf.matmul(x, x, adjoint_b=True)

    def _inverse(self, y):
        return tf.cholesky(y)

    def _forward_log_det_jacobian(self, x):
        # d(XX^T) over the lower triangle: det = 2^n prod_i X_ii^(n - i) (i from 0)
        diag = tf.matrix_diag_part(x)
        n = tf.shape(x)[-1]
        powers = tf.cast(n - tf.range(n), x.dtype)
        return (tf.cast(n, x.dtype) * math.log(2.0)
                + tf.reduce_sum(powers * tf.log(tf.abs(diag)), -1))


class FillTriangular(Bijector):
    """A vector of ``n(n+1)/2`` entries to an ``n x n`` triangular matrix (TF's
    ``fill_triangular`` layout); volume preserving."""

    def __init__(self, upper=False, validate_args=False, name="fill_triangular"):
        self._upper = upper
        # (TF 1.15 does not mark its Jacobian constant)
        super().__init__(forward_min_event_ndims=1, inverse_min_event_ndims=2,
                         validate_args=validate_args, name=name)

    def _forward(self, x):
        return dist_util.fill_triangular(x, upper=self._upper)

    def _inverse(self, y):
        return dist_util.fill_triangular_inverse(y, upper=self._upper)

    def _forward_log_det_jacobian(self, x):
        return tf.zeros_like(x[..., 0])

    def _inverse_log_det_jacobian(self, y):
        return tf.zeros_like(y[..., 0, 0])

    def _forward_event_shape(self, input_shape):
        m = input_shape[-1].value if input_shape.ndims else None
        if m is None:
            return input_shape[:-1].concatenate([None, None]) if input_shape.ndims \
                else tf.TensorShape(None)
        n = dist_util._tri_size(m)
        return input_shape[:-1].concatenate([n, n])

    def _forward_event_shape_tensor(self, input_shape):
        m = tf.cast(input_shape[-1], tf.float32)
        n = tf.cast(tf.sqrt(0.25 + 2.0 * m) - 0.5, tf.int32)
        return tf.concat([input_shape[:-1], [n, n]], 0)

    def _inverse_event_shape(self, output_shape):
        n = output_shape[-1].value if output_shape.ndims else None
        if n is None:
            return output_shape[:-2].concatenate([None]) if output_shape.ndims \
                else tf.TensorShape(None)
        return output_shape[:-2].concatenate([n * (n + 1) // 2])

    def _inverse_event_shape_tensor(self, output_shape):
        n = output_shape[-1]
        return tf.concat([output_shape[:-2], [n * (n + 1) // 2]], 0)


class TransformDiagonal(Bijector):
    """Applies ``diag_bijector`` to the diagonal of a matrix, leaving the rest."""

    def __init__(self, diag_bijector, validate_args=False, name="transform_diagonal"):
        self._diag_bijector = diag_bijector
        super().__init__(forward_min_event_ndims=2, inverse_min_event_ndims=2,
                         validate_args=validate_args, dtype=diag_bijector.dtype,
                         graph_parents=diag_bijector.graph_parents, name=name)

    @property
    def diag_bijector(self):
        return self._diag_bijector

    def _forward(self, x):
        return tf.matrix_set_diag(x, self._diag_bijector.forward(tf.matrix_diag_part(x)))

    def _inverse(self, y):
        return tf.matrix_set_diag(y, self._diag_bijector.inverse(tf.matrix_diag_part(y)))

    def _forward_log_det_jacobian(self, x):
        return self._diag_bijector.forward_log_det_jacobian(tf.matrix_diag_part(x),
                                                            event_ndims=1)

    def _inverse_log_det_jacobian(self, y):
        return self._diag_bijector.inverse_log_det_jacobian(tf.matrix_diag_part(y),
                                                            event_ndims=1)


class ScaleTriL(Chain):
    """Unconstrained vectors to lower triangular scale matrices with a positive diagonal:
    ``FillTriangular``, then ``diag_bijector`` (softplus by default) plus ``diag_shift`` on the
    diagonal."""

    def __init__(self, diag_bijector=None, diag_shift=1e-5, validate_args=False,
                 name="scale_tril"):
        if diag_bijector is None:
            diag_bijector = Softplus(validate_args=validate_args)
        if diag_shift is not None:
            diag_bijector = Chain([AffineScalar(shift=diag_shift), diag_bijector])
        super().__init__([TransformDiagonal(diag_bijector=diag_bijector),
                          FillTriangular()], validate_args=validate_args, name=name)


class MatrixInverseTriL(Bijector):
    """``Y = X^{-1}`` for lower triangular ``X``."""

    def __init__(self, validate_args=False, name="matrix_inverse_tril"):
        super().__init__(forward_min_event_ndims=2, validate_args=validate_args, name=name)

    def _inv(self, x):
        eye = tf.eye(tf.shape(x)[-1], batch_shape=tf.shape(x)[:-2], dtype=x.dtype)
        return tf.matrix_triangular_solve(x, eye, lower=True)

    def _forward(self, x):
        return self._inv(x)

    def _inverse(self, y):
        return self._inv(y)

    def _forward_log_det_jacobian(self, x):
        # X -> X^{-1} on triangular matrices: |det| = prod_i |X_ii|^-(n + 1)
        n = tf.cast(tf.shape(x)[-1], x.dtype)
        return -(n + 1.0) * tf.reduce_sum(tf.log(tf.abs(tf.matrix_diag_part(x))), -1)


class Reshape(Bijector):
    """Reshapes the rightmost ``event_shape_in`` dims to ``event_shape_out`` (one ``-1``
    allowed in each), keeping the batch dims."""

    def __init__(self, event_shape_out, event_shape_in=(-1,), validate_args=False, name=None):
        self._out = [int(d) for d in np.reshape(event_shape_out, -1)]
        self._in = [int(d) for d in np.reshape(event_shape_in, -1)]
        for what, shape in (("event_shape_out", self._out), ("event_shape_in", self._in)):
            if sum(d == -1 for d in shape) > 1:
                raise ValueError(f"{what} can have at most one -1")
            if any(d < -1 for d in shape):
                raise ValueError(f"{what} dimensions must be non-negative or -1")
        super().__init__(forward_min_event_ndims=len(self._in),
                         inverse_min_event_ndims=len(self._out), is_constant_jacobian=True,
                         validate_args=validate_args, name=name or "reshape")

    def _move(self, x, src, dst):
        rank = tf.rank(x)
        batch = tf.shape(x)[:rank - len(src)]
        return tf.reshape(x, tf.concat([batch, tf.constant(dst, tf.int32)], 0))

    def _forward(self, x):
        return self._move(x, self._in, self._out)

    def _inverse(self, y):
        return self._move(y, self._out, self._in)

    def _forward_log_det_jacobian(self, x):
        return tf.zeros([], x.dtype)

    def _inverse_log_det_jacobian(self, y):
        return tf.zeros([], y.dtype)

    @staticmethod
    def _static(shape, src, dst):
        if shape.ndims is None:
            return tf.TensorShape(None)
        event = shape[shape.ndims - len(src):]
        size = event.num_elements()
        out = list(dst)
        if -1 in out:
            known = int(np.prod([d for d in out if d != -1]))
            out[out.index(-1)] = None if size is None or known == 0 else size // known
        return shape[:shape.ndims - len(src)].concatenate(out)

    def _forward_event_shape(self, input_shape):
        return self._static(input_shape, self._in, self._out)

    def _inverse_event_shape(self, output_shape):
        return self._static(output_shape, self._out, self._in)

    def _shape_t(self, shape, src, dst):
        n = tf.size(shape)
        event = shape[n - len(src):]
        out = tf.constant(dst, tf.int32)
        if -1 in dst:
            known = int(np.prod([d for d in dst if d != -1]))
            fill = tf.reduce_prod(event) // known
            out = tf.where(tf.equal(out, -1), tf.fill(tf.shape(out), fill), out)
        return tf.concat([shape[:n - len(src)], out], 0)

    def _forward_event_shape_tensor(self, input_shape):
        return self._shape_t(input_shape, self._in, self._out)

    def _inverse_event_shape_tensor(self, output_shape):
        return self._shape_t(output_shape, self._out, self._in)


class AffineLinearOperator(Bijector):
    """``y = scale @ x + shift`` over the last axis, ``scale`` a ``LinearOperator`` (the
    identity when None)."""

    def __init__(self, shift=None, scale=None, adjoint=False, validate_args=False,
                 name="affine_linear_operator"):
        with tf.name_scope(name, values=[shift]):
            dtype = scale.dtype if scale is not None else _first_dtype(shift) or tf.float32
            self._shift = _tensor(shift, "shift", dtype)
            if self._shift is not None and scale is not None and \
                    self._shift.dtype.base_dtype != scale.dtype.base_dtype:
                raise TypeError(f"shift.dtype({self._shift.dtype}) is incompatible with "
                                f"scale.dtype({scale.dtype}).")
            self._scale = scale
            self._adjoint = adjoint
        parents = ([self._shift] if self._shift is not None else []) + list(
            getattr(scale, "graph_parents", []) if scale is not None else [])
        super().__init__(forward_min_event_ndims=1, is_constant_jacobian=True,
                         validate_args=validate_args, graph_parents=parents, dtype=dtype,
                         name=name)

    shift = property(lambda self: self._shift)
    scale = property(lambda self: self._scale)
    adjoint = property(lambda self: self._adjoint)

    def _forward(self, x):
        y = x if self._scale is None else self._scale.matvec(x, adjoint=self._adjoint)
        return y if self._shift is None else y + self._shift

    def _inverse(self, y):
        x = y if self._shift is None else y - self._shift
        return x if self._scale is None else self._scale.solvevec(x, adjoint=self._adjoint)

    def _forward_log_det_jacobian(self, x):
        if self._scale is None:
            return tf.constant(0.0, dtype=x.dtype)
        return self._scale.log_abs_determinant()


class ConditionalBijector(Bijector):
    """A bijector whose maps take extra keyword arguments (``**condition_kwargs``), passed on to
    ``_forward`` / ``_inverse`` / the log det Jacobians; results are not cached."""

    def _conditional(self, method, value, name, kwargs):
        with tf.name_scope(self.name), tf.name_scope(name, values=[value]):
            return getattr(self, method)(self._convert(value, "x"), **kwargs)

    def forward(self, x, name="forward", **condition_kwargs):
        return self._conditional("_forward", x, name, condition_kwargs)

    def inverse(self, y, name="inverse", **condition_kwargs):
        return self._conditional("_inverse", y, name, condition_kwargs)

    def forward_log_det_jacobian(self, x, event_ndims, name="forward_log_det_jacobian",
                                 **condition_kwargs):
        self._check_event_ndims(event_ndims, self.forward_min_event_ndims)
        with tf.name_scope(self.name), tf.name_scope(name, values=[x]):
            x = self._convert(x, "x")
            if _overrides(self, "_forward_log_det_jacobian"):
                fldj = self._forward_log_det_jacobian(x, **condition_kwargs)
            else:
                fldj = -self._inverse_log_det_jacobian(self._forward(x, **condition_kwargs),
                                                       **condition_kwargs)
            return self._reduce(x, tf.convert_to_tensor(fldj), self.forward_min_event_ndims,
                                event_ndims)

    def inverse_log_det_jacobian(self, y, event_ndims, name="inverse_log_det_jacobian",
                                 **condition_kwargs):
        self._check_event_ndims(event_ndims, self.inverse_min_event_ndims)
        with tf.name_scope(self.name), tf.name_scope(name, values=[y]):
            y = self._convert(y, "y")
            if _overrides(self, "_inverse_log_det_jacobian"):
                ildj = self._inverse_log_det_jacobian(y, **condition_kwargs)
            else:
                ildj = -self._forward_log_det_jacobian(self._inverse(y, **condition_kwargs),
                                                       **condition_kwargs)
            return self._reduce(y, tf.convert_to_tensor(ildj), self.inverse_min_event_ndims,
                                event_ndims)
