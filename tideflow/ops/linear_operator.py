"""``tf.linalg.LinearOperator``: matrix-free operators with matmul, solve, determinants,
diagonals and adjoints, computed through ``to_dense`` unless a subclass's structure (diagonal,
identity, triangular, adjoint, inverse, composition here) gives them directly."""

import collections

import numpy as np

from tideflow.framework import dtypes, ops
from tideflow.framework.tensor_shape import Dimension, TensorShape
from tideflow.ops import (
    array_ops,
    cast_ops,
    linalg_extra_ops,
    linalg_more_ops,
    linalg_ops,
    linear_operator_util,
    math_ops,
    matrix_diag_ops,
    range_ops,
    reduction_ops,
    unary_ops,
)
from tideflow.ops.concat_ops import concat

__all__ = [
    "LinearOperator", "LinearOperatorAdjoint", "LinearOperatorComposition", "LinearOperatorDiag",
    "LinearOperatorFullMatrix", "LinearOperatorIdentity", "LinearOperatorInversion",
    "LinearOperatorLowerTriangular", "LinearOperatorScaledIdentity", "LinearOperatorZeros",
    "conjugate_gradient",
]


def _adj(x):
    return linalg_extra_ops.adjoint(x)


def _same_dtype(operators):
    if any(o.dtype != operators[0].dtype for o in operators):
        found = "   ".join(str((o.name, o.dtype)) for o in operators)
        raise TypeError(f"Expected all operators to have the same dtype.  Found {found}")


def _parents(operators):
    return [t for o in operators for t in o.graph_parents]


def _square_shape(s):
    """``s + s[-1:]``: the static shape of the square matrices with diagonals of shape ``s``."""
    return s.concatenate(s[-1:]) if s.ndims is not None else TensorShape(None)


def _det_product(operators):
    """The product of the determinants of ``operators``."""
    out = operators[0].determinant()
    for o in operators[1:]:
        out = out * o.determinant()
    return out


def _log_abs_det_sum(operators):
    """The sum of the log absolute determinants of ``operators``."""
    out = operators[0].log_abs_determinant()
    for o in operators[1:]:
        out = out + o.log_abs_determinant()
    return out


def _broadcast_batch(shape_a, shape_b):
    out = TensorShape(None)
    if shape_a.ndims is None or shape_b.ndims is None:
        return out
    a, b = shape_a.as_list(), shape_b.as_list()
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    dims = []
    for x, y in zip(a, b):
        if x == 1:
            dims.append(y)
        elif y == 1 or y is None:
            dims.append(x)
        elif x is None:
            dims.append(y)
        elif x != y:
            raise ValueError(f"batch shapes {shape_a} and {shape_b} are not broadcastable")
        else:
            dims.append(x)
    return TensorShape(dims)


class LinearOperator:
    """An operator acting like a (batch of) ``[M, N]`` matrices without necessarily holding
    them. Subclasses implement ``_shape``, ``_shape_tensor`` and ``_to_dense`` at least."""

    # tf.matmul, tf.linalg.solve/inv/det/logdet/trace/diag_part/adjoint/cholesky hand an
    # operator argument to its own method (TF's dispatch)
    _is_linear_operator = True

    def __init__(self, dtype, graph_parents=None, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None, parameters=None):
        if is_positive_definite and is_non_singular is False:
            raise ValueError("A positive definite matrix is always non-singular.")
        if is_positive_definite:
            is_non_singular = True
        if is_non_singular and is_square is False:
            raise ValueError("A non-singular matrix is always square.")
        if is_non_singular:
            is_square = True
        self._dtype = dtypes.as_dtype(dtype) if dtype is not None else None
        self._graph_parents = list(graph_parents or [])
        self._is_non_singular = is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        self._is_square_set = is_square
        self._name = name or type(self).__name__
        self._parameters = dict(parameters or {})

    # -- hints and shapes -------------------------------------------------------------------

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    @property
    def parameters(self):
        return dict(self._parameters)

    @property
    def graph_parents(self):
        return list(self._graph_parents)

    @property
    def is_non_singular(self):
        return self._is_non_singular

    @property
    def is_self_adjoint(self):
        return self._is_self_adjoint

    @property
    def is_positive_definite(self):
        return self._is_positive_definite

    @property
    def is_square(self):
        s = self.shape
        square = None
        if s.ndims is not None and s[-1].value is not None and s[-2].value is not None:
            square = s[-1].value == s[-2].value
        hint = self._is_square_set
        if hint is not None and square is not None and hint != square:  # TF's words
            raise ValueError(f"User set is_square hint to {hint}, but the operator was "
                             f"{'' if square else 'not '}square.")
        return hint if hint is not None else square

    @property
    def shape(self):
        """The static ``TensorShape`` ``batch_shape + [M, N]``."""
        return self._shape()

    def _shape(self):
        return self._to_dense_static_shape()

    def _name_scope(self, name):
        # TF 1.15's: one scope "<operator>/<method>", made unique as a whole, so every
        # method of an operator sits under the operator's own name
        return ops.name_scope(self._name + "/" + name)

    def _to_dense_static_shape(self):
        return self.to_dense().get_shape()

    def shape_tensor(self, name="shape_tensor"):
        with self._name_scope(name):
            s = self.shape
            if s.is_fully_defined():
                return ops.convert_to_tensor(np.array(s.as_list(), np.int32))
            return self._shape_tensor()

    def _shape_tensor(self):
        return array_ops.shape(self.to_dense())

    @property
    def batch_shape(self):
        return self.shape[:-2] if self.shape.ndims is not None else TensorShape(None)

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        return self.shape_tensor(name)[:-2]

    @property
    def tensor_rank(self):
        return self.shape.ndims

    def tensor_rank_tensor(self, name="tensor_rank_tensor"):
        return array_ops.size(self.shape_tensor(name))

    @property
    def domain_dimension(self):
        return self.shape[-1] if self.shape.ndims is not None else Dimension(None)

    def domain_dimension_tensor(self, name="domain_dimension_tensor"):
        return self.shape_tensor(name)[-1]

    @property
    def range_dimension(self):
        return self.shape[-2] if self.shape.ndims is not None else Dimension(None)

    def range_dimension_tensor(self, name="range_dimension_tensor"):
        return self.shape_tensor(name)[-2]

    # -- the operations -----------------------------------------------------------------------

    def to_dense(self, name="to_dense"):
        """The operator as a dense ``[..., M, N]`` tensor."""
        with self._name_scope(name):
            return self._to_dense()

    def _to_dense(self):
        # an operator that only knows how to multiply: its product with the identity
        if type(self)._matmul is LinearOperator._matmul:
            raise NotImplementedError(f"{type(self).__name__} implements neither _to_dense "
                                      f"nor _matmul")
        from tideflow.ops import range_ops

        batch = self.batch_shape
        batch = batch.as_list() if batch.is_fully_defined() else self.batch_shape_tensor()
        n = self.domain_dimension.value
        n = n if n is not None else self.domain_dimension_tensor()
        return self.matmul(range_ops.eye(n, batch_shape=batch, dtype=self.dtype))

    def _check_arg(self, x, name, self_dim=None, arg_dim=None):
        x = ops.convert_to_tensor(x, name=name)
        if self._dtype is not None and x.dtype.base_dtype != self._dtype:
            raise TypeError(f"Expected argument to have dtype {self._dtype}.  Found: "
                            f"{x.dtype} in tensor {x}")
        if self_dim is not None:
            # the operator's dimension against the argument's, known statically (as TF)
            mine, theirs = self.shape, x.get_shape()
            if mine.ndims is not None and theirs.ndims is not None and \
                    theirs.ndims >= -arg_dim:
                mine.dims[self_dim].assert_is_compatible_with(theirs.dims[arg_dim])
        return x

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """``op(A) @ op(x)`` with ``op`` the adjoint where asked; ``x`` may be another
        LinearOperator (giving a LinearOperatorComposition)."""
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            product = _diagonal_algebra(left, right, "matmul")
            return product if product is not None else _composition_of(left, right)
        with self._name_scope(name):
            x = self._check_arg(x, "x", -2 if adjoint else -1, -1 if adjoint_arg else -2)
            return self._matmul(x, adjoint, adjoint_arg)

    def _matmul(self, x, adjoint, adjoint_arg):
        return linalg_ops.matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def __matmul__(self, other):
        return self.matmul(other)

    def matvec(self, x, adjoint=False, name="matvec"):
        with self._name_scope(name):
            x = self._check_arg(x, "x", -2 if adjoint else -1, -1)
            return self._matvec(x, adjoint)

    def _matvec(self, x, adjoint):
        # TF 1.15's default goes through the public matmul (its own name scope)
        return array_ops.squeeze(self.matmul(array_ops.expand_dims(x, -1), adjoint=adjoint),
                                 [-1])

    def _require_solvable(self):
        if self.is_non_singular is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is "
                                      "expected to be singular.")
        if self.is_square is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is "
                                      "expected to not be square.")

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """``X`` with ``op(A) X = op(rhs)`` (square, non-singular operators)."""
        self._require_solvable()
        if isinstance(rhs, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = rhs.adjoint() if adjoint_arg else rhs
            quotient = _diagonal_algebra(left, right, "solve")
            if quotient is not None:
                return quotient
            return LinearOperatorComposition([left.inverse(), right])
        with self._name_scope(name):
            rhs = self._check_arg(rhs, "rhs", -1 if adjoint else -2, -1 if adjoint_arg else -2)
            return self._solve(rhs, adjoint, adjoint_arg)

    def _can_use_cholesky(self):
        return self.is_self_adjoint and self.is_positive_definite

    # TF 1.15's dense defaults: through a Cholesky factor where the hints allow it
    def _solve(self, rhs, adjoint, adjoint_arg):
        if adjoint_arg:
            rhs = _adj(rhs)
        if self._can_use_cholesky():
            return linear_operator_util.cholesky_solve_with_broadcast(
                linalg_ops.cholesky(self.to_dense()), rhs)
        return linear_operator_util.matrix_solve_with_broadcast(self.to_dense(), rhs,
                                                                adjoint=adjoint)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        self._require_solvable()
        with self._name_scope(name):
            rhs = self._check_arg(rhs, "rhs", -1 if adjoint else -2, -1)
            return array_ops.squeeze(self.solve(array_ops.expand_dims(rhs, -1),
                                                adjoint=adjoint), [-1])

    def _require_square(self, what):
        if self.is_square is False:
            raise NotImplementedError("Determinant not implemented for an operator that is "
                                      "expected to not be square.")

    def determinant(self, name="det"):
        self._require_square("determinant")
        with self._name_scope(name):
            return self._determinant()

    def _determinant(self):
        if self._can_use_cholesky():
            return unary_ops.exp(self.log_abs_determinant())
        return linalg_ops.matrix_determinant(self.to_dense())

    def log_abs_determinant(self, name="log_abs_det"):
        self._require_square("log_abs_determinant")
        with self._name_scope(name):
            return self._log_abs_determinant()

    def _log_abs_determinant(self):
        if self._can_use_cholesky():
            diag = matrix_diag_ops.matrix_diag_part(linalg_ops.cholesky(self.to_dense()))
            return 2 * reduction_ops.reduce_sum(unary_ops.log(diag), axis=[-1])
        # the operator's dtype, as TF (a complex one has a zero imaginary part)
        return linalg_more_ops.slogdet(self.to_dense())[1]

    def diag_part(self, name="diag_part"):
        with self._name_scope(name):
            return self._diag_part()

    def _diag_part(self):
        return matrix_diag_ops.matrix_diag_part(self.to_dense())

    def trace(self, name="trace"):
        with self._name_scope(name):
            return reduction_ops.reduce_sum(self.diag_part(), axis=-1)

    def add_to_tensor(self, x, name="add_to_tensor"):
        with self._name_scope(name):
            return self.to_dense() + self._check_arg(x, "x")

    # adjoint, inverse and cholesky make operators as TF 1.15's registered algebra does (a
    # structured operator gives its own kind), under "<operator>/<method>/<Algebra>" scopes
    def adjoint(self, name="adjoint"):
        if self.is_self_adjoint is True:
            return self
        with self._name_scope(name), ops.name_scope(None, "Adjoint"):
            return self._adjoint()

    H = property(adjoint)

    def _adjoint(self):
        return LinearOperatorAdjoint(self, self.is_non_singular, self.is_self_adjoint,
                                     self.is_positive_definite, self.is_square)

    def inverse(self, name="inverse"):
        if self.is_square is False:
            raise ValueError("Cannot take the Inverse: This operator represents a non square "
                             "matrix.")
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a singular "
                             "matrix.")
        with self._name_scope(name), ops.name_scope(None, "Inverse"):
            return self._inverse()

    def _inverse(self):
        return LinearOperatorInversion(self, self.is_non_singular, self.is_self_adjoint,
                                       self.is_positive_definite, self.is_square)

    def cholesky(self, name="cholesky"):
        if not (self.is_self_adjoint and self.is_positive_definite):  # TF 1.15's words
            raise ValueError("Cannot take the Cholesky decomposition: Not a positive definite "
                             "self adjoint matrix.")
        with self._name_scope(name), ops.name_scope(None, "Cholesky"):
            return self._cholesky()

    def _cholesky(self):
        return LinearOperatorLowerTriangular(linalg_ops.cholesky(self.to_dense()),
                                             is_non_singular=True, is_self_adjoint=False,
                                             is_square=True)

    def eigvals(self, name="eigvals"):
        if not self.is_self_adjoint:
            raise NotImplementedError("Only self-adjoint matrices are supported.")
        with self._name_scope(name):
            return linalg_extra_ops.self_adjoint_eigvals(self.to_dense())

    def cond(self, name="cond"):
        with self._name_scope(name):
            from tideflow.ops import svd_ops

            s = svd_ops.svd(self.to_dense(), compute_uv=False)
            return reduction_ops.reduce_max(s, -1) / reduction_ops.reduce_min(s, -1)

    def assert_non_singular(self, name="assert_non_singular"):
        from tideflow.ops import check_ops

        with self._name_scope(name):
            diag = self._diag_of_triangle()
            if diag is not None:  # TF 1.15's check for diagonal and triangular operators
                with ops.name_scope("assert_no_entries_with_modulus_zero"):
                    return check_ops.assert_less(
                        ops.convert_to_tensor(0, self._dtype.real_dtype), unary_ops.abs(diag),
                        message="Singular operator:  Diagonal contained zero values.")
            if self.is_self_adjoint and self.is_positive_definite:
                return self.assert_positive_definite()
            # TF 1.15's default: the condition number against max(100, M, N) * eps
            from tideflow.ops import svd_ops

            s = svd_ops.svd(self.to_dense(), compute_uv=False)
            cond = reduction_ops.reduce_max(s, -1) / reduction_ops.reduce_min(s, -1)
            with ops.name_scope("max_nonsingular_condition_number"):
                dims = [100.0, cast_ops.cast(self.range_dimension_tensor(), self._dtype),
                        cast_ops.cast(self.domain_dimension_tensor(), self._dtype)]
                eps = cast_ops.cast(reduction_ops.reduce_max(dims), self._dtype) * \
                    np.finfo(self._dtype.as_numpy_dtype).eps
                bound = 1.0 / eps
            return check_ops.assert_less(cond, bound,
                                         message="Singular matrix up to precision epsilon.")

    def _diag_of_triangle(self):
        """The diagonal whose zeros make the operator singular, where its structure says so
        (None: no such structure)."""

    def assert_positive_definite(self, name="assert_positive_definite"):
        from tideflow.ops import check_ops

        with self._name_scope(name):
            if not self.is_self_adjoint:  # as TF 1.15: no generic check
                raise NotImplementedError("assert_positive_definite is not implemented.")
            return check_ops.assert_positive(
                matrix_diag_ops.matrix_diag_part(linalg_ops.cholesky(self.to_dense())),
                message="Matrix was not positive definite.")

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        from tideflow.ops import check_ops

        with self._name_scope(name):
            d = self.to_dense()
            return check_ops.assert_equal(d, _adj(d),
                                          message="Matrix was not equal to its adjoint.")

    def __repr__(self):
        try:
            shape = self.shape
        except ValueError:  # a composition of mismatched factors fails only when asked
            shape = "?"
        return (f"<tf.linalg.{type(self).__name__} '{self._name}' shape={shape} "
                f"dtype={self._dtype.name if self._dtype is not None else None}>")


# -- matrices given by value -------------------------------------------------------------------


class LinearOperatorFullMatrix(LinearOperator):
    """A LinearOperator wrapping a dense ``[..., M, N]`` matrix."""

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorFullMatrix"):
        with ops.name_scope(name, values=[matrix]):
            self._matrix = ops.convert_to_tensor(matrix, name="matrix")
        allowed = [dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64,
                   dtypes.complex128]
        if self._matrix.dtype not in allowed:  # TF 1.15's checks and words
            raise TypeError(f"Argument matrix must have dtype in {allowed}.  Found: "
                            f"{self._matrix.dtype}")
        if self._matrix.get_shape().ndims is not None and self._matrix.get_shape().ndims < 2:
            raise ValueError(f"Argument matrix must have at least 2 dimensions.  Found: "
                             f"{self._matrix}")
        super().__init__(self._matrix.dtype.base_dtype, [self._matrix], is_non_singular,
                         is_self_adjoint, is_positive_definite, is_square, name,
                         {"matrix": matrix})

    def _shape(self):
        return self._matrix.get_shape()

    def _shape_tensor(self):
        return array_ops.shape(self._matrix)

    def _to_dense(self):
        return self._matrix


class LinearOperatorLowerTriangular(LinearOperator):
    """The lower triangle of ``tril`` (the rest is ignored): triangular solves and a
    determinant from the diagonal."""

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorLowerTriangular"):
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        with ops.name_scope(name, values=[tril]):
            tril = ops.convert_to_tensor(tril, name="tril")
            if tril.get_shape().ndims is not None and tril.get_shape().ndims < 2:
                raise ValueError(f"Argument tril must have at least 2 dimensions.  Found: {tril}")
            self._tril = tril
        super().__init__(self._tril.dtype.base_dtype, [self._tril], is_non_singular,
                         is_self_adjoint, is_positive_definite, True, name, {"tril": tril})

    # as TF 1.15, each method takes the lower triangle (or the diagonal) in its own scope
    def _get_tril(self):
        return range_ops.matrix_band_part(self._tril, -1, 0)

    def _get_diag(self):
        return matrix_diag_ops.matrix_diag_part(self._tril)

    def _shape(self):
        return self._tril.get_shape()

    def _shape_tensor(self):
        return array_ops.shape(self._tril)

    def _to_dense(self):
        return self._get_tril()

    def _matmul(self, x, adjoint, adjoint_arg):
        return linalg_ops.matmul(self._get_tril(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _solve(self, rhs, adjoint, adjoint_arg):
        if adjoint_arg:
            rhs = _adj(rhs)
        return linear_operator_util.matrix_triangular_solve_with_broadcast(
            self._get_tril(), rhs, lower=True, adjoint=adjoint)

    def _diag_of_triangle(self):
        return self._get_diag()

    def _determinant(self):
        return reduction_ops.reduce_prod(self._get_diag(), axis=-1)

    def _log_abs_determinant(self):
        return reduction_ops.reduce_sum(unary_ops.log(unary_ops.abs(self._get_diag())), -1)


class LinearOperatorDiag(LinearOperator):
    """The diagonal matrix of ``diag [..., N]``."""

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorDiag"):
        if is_square is False:
            raise ValueError("Only square diagonal operators currently supported.")
        with ops.name_scope(name, values=[diag]):
            self._diag = ops.convert_to_tensor(diag, name="diag")
        if self._diag.get_shape().ndims is not None and self._diag.get_shape().ndims < 1:
            raise ValueError(f"Argument diag must have at least 1 dimension.  Found: "
                             f"{self._diag}")
        if not self._diag.dtype.is_complex and is_self_adjoint is False:
            raise ValueError("A real diagonal operator is always self adjoint.")
        if not self._diag.dtype.is_complex:
            is_self_adjoint = True
        super().__init__(self._diag.dtype.base_dtype, [self._diag], is_non_singular,
                         is_self_adjoint, is_positive_definite, True, name, {"diag": diag})

    @property
    def diag(self):
        return self._diag

    def _shape(self):
        s = self._diag.get_shape()
        return _square_shape(s)

    def _shape_tensor(self):
        s = array_ops.shape(self._diag)
        return concat([s, s[-1:]], 0)

    def _to_dense(self):
        return matrix_diag_ops.matrix_diag(self._diag)

    def _d(self, adjoint):
        return math_ops.conj(self._diag) if adjoint and self._diag.dtype.is_complex else \
            self._diag

    def _matmul(self, x, adjoint, adjoint_arg):
        x = _adj(x) if adjoint_arg else x
        return array_ops.expand_dims(self._d(adjoint), -1) * x

    def _matvec(self, x, adjoint):
        return self._d(adjoint) * x

    def _solve(self, rhs, adjoint, adjoint_arg):
        # TF 1.15 multiplies by the reciprocals (which can differ from dividing in the last bit)
        rhs = _adj(rhs) if adjoint_arg else rhs
        return rhs * array_ops.expand_dims(1.0 / self._d(adjoint), -1)

    def _diag_part(self):
        return self._diag

    def _diag_of_triangle(self):
        return self._diag

    def _determinant(self):
        return reduction_ops.reduce_prod(self._diag, axis=-1)

    def _log_abs_determinant(self):
        out = reduction_ops.reduce_sum(unary_ops.log(unary_ops.abs(self._diag)), axis=[-1])
        # TF 1.15 gives a complex operator's log|det| its dtype (a zero imaginary part)
        return cast_ops.cast(out, self._dtype) if self._dtype.is_complex else out

    def add_to_tensor(self, x, name="add_to_tensor"):
        with self._name_scope(name):
            x = self._check_arg(x, "x")
            return matrix_diag_ops.matrix_set_diag(
                x, matrix_diag_ops.matrix_diag_part(x) + self._diag)

    # the adjoint, inverse and Cholesky factor of a diagonal operator are diagonal (as TF's)
    def _adjoint(self):
        return LinearOperatorDiag(math_ops.conj(self._diag), self.is_non_singular,
                                  self.is_self_adjoint, self.is_positive_definite, True)

    def _inverse(self):
        return LinearOperatorDiag(1.0 / self._diag, self.is_non_singular, self.is_self_adjoint,
                                  self.is_positive_definite, True)

    def _cholesky(self):
        return LinearOperatorDiag(unary_ops.sqrt(self._diag), True, True, True, True)

    def assert_positive_definite(self, name="assert_positive_definite"):
        from tideflow.ops import check_ops

        with self._name_scope(name):
            return check_ops.assert_positive(
                math_ops.real(self._diag),
                message="This diagonal operator contained non-positive real entries, so it "
                        "was not positive definite.")

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        from tideflow.ops import check_ops

        with self._name_scope(name):
            return check_ops.assert_equal(
                math_ops.imag(self._diag), array_ops.zeros([], self._dtype.real_dtype),
                message="This diagonal operator contained non-zero imaginary values, so it "
                        "was not self-adjoint.")


def _composition_of(left, right):
    """``left @ right`` with TF's hints: square when both are (or their outer dimensions
    agree), then non-singular as both are; neither singular nor definite when not square."""
    square = None
    if left.is_square and right.is_square:
        square = True
    elif left.is_square is False and right.is_square is False:
        m, n = left.range_dimension.value, right.domain_dimension.value
        if m is not None and n is not None:
            square = m == n
    elif None not in (left.is_square, right.is_square):
        square = False
    non_singular = self_adjoint = positive_definite = None
    if square:
        if left.is_non_singular is False or right.is_non_singular is False:
            non_singular = False
        else:
            non_singular = _both(left.is_non_singular, right.is_non_singular)
    elif square is False:
        non_singular = self_adjoint = positive_definite = False
    return LinearOperatorComposition([left, right], is_non_singular=non_singular,
                                     is_self_adjoint=self_adjoint,
                                     is_positive_definite=positive_definite, is_square=square)


def _both(a, b):
    return True if a and b else None


def _diagonal_algebra(left, right, how):
    """``left @ right`` or ``left^-1 @ right`` as a LinearOperatorDiag when both are diagonal
    (Diag, ScaledIdentity; TF's registered operator algebra), else None."""
    kinds = (LinearOperatorDiag, LinearOperatorScaledIdentity)
    if not (isinstance(left, kinds) and isinstance(right, kinds)) or (
            isinstance(left, LinearOperatorScaledIdentity)
            and isinstance(right, LinearOperatorScaledIdentity)):
        return None
    a, b = left.diag_part(), right.diag_part()
    return LinearOperatorDiag(
        a * b if how == "matmul" else b / a,
        is_non_singular=_both(left.is_non_singular, right.is_non_singular),
        is_self_adjoint=_both(left.is_self_adjoint, right.is_self_adjoint) if a.dtype.is_complex
        else None,
        is_positive_definite=_both(left.is_positive_definite, right.is_positive_definite))


def _num_rows_value(num_rows, what):
    v = ops.constant_value(ops.convert_to_tensor(num_rows, dtypes.int32))
    if v is not None:
        v = int(v)
        if v < 0:
            raise ValueError(f"Argument {what} must be non-negative, got {v}")
    return v


def _shape_argument(value, what, rank, checks, tensor_name=None):
    """``num_rows`` (rank 0) or ``batch_shape`` (rank 1) as an int32 tensor, checked as TF
    checks it: statically where its rank or value is known, else (``checks`` a list) by
    run-time assertions appended to ``checks``."""
    from tideflow.ops import check_ops
    from tideflow.ops.variables import Variable

    if isinstance(value, Variable):
        raise TypeError(f"Argument {what} cannot be reference type. Found: {type(value)}")
    t = ops.convert_to_tensor(value, name=tensor_name or what)
    if not t.dtype.is_integer:
        raise TypeError(f"Argument {what} must be integer type.  Found: {t}")
    words = "0-D" if rank == 0 else "1-D"
    v = ops.constant_value(t)  # TF 1.15 checks the rank of a value known statically only
    if v is not None and np.ndim(v) != rank:
        raise ValueError(f"Argument {what} must be a {words} Tensor.  Found: {v}")
    if v is not None and (np.asarray(v) < 0).any():
        # TF 1.15 puts no space after the colon for batch_shape
        raise ValueError(f"Argument {what} must be non-negative.  Found:{' ' * (rank == 0)}{v}")
    if v is None and checks is not None:
        checks.append(check_ops.assert_rank(t, rank, message=f"Argument {what} must be a "
                                                             f"{words} Tensor."))
        checks.append(check_ops.assert_non_negative(t, message=f"Argument {what} must be "
                                                               f"non-negative."))
    return math_ops.cast(t, dtypes.int32) if t.dtype != dtypes.int32 else t


class LinearOperatorIdentity(LinearOperator):
    """The ``[N, N]`` identity, optionally batched by ``batch_shape``."""

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True,
                 is_self_adjoint=True, is_positive_definite=True, is_square=True,
                 assert_proper_shapes=False, name="LinearOperatorIdentity"):
        checks = [] if assert_proper_shapes else None
        with ops.name_scope(name):
            for hint, words in ((is_self_adjoint, "self adjoint"),
                                (is_non_singular, "non-singular"),
                                (is_positive_definite, "positive-definite"), (is_square, "square")):
                if not hint:
                    raise ValueError(f"An identity operator is always {words}.")
            rows = _shape_argument(num_rows, "num_rows", 0, checks)
            b = None if batch_shape is None else _shape_argument(
                batch_shape, "batch_shape", 1, checks, "batch_shape_arg")
        self._n = _num_rows_value(rows, "num_rows")
        self._batch = []
        self._batch_t = None  # a batch shape known only when the graph runs
        if b is not None:
            static = ops.constant_value(b)
            if static is None:
                self._batch_t, self._batch = b, None
            else:
                self._batch = [int(v) for v in np.reshape(static, -1)]
        if checks:
            from tideflow.ops import control_flow_ops

            rows = control_flow_ops.with_dependencies(checks, rows)
            if self._batch_t is not None:
                self._batch_t = control_flow_ops.with_dependencies(checks, self._batch_t)
        self._num_rows = rows
        self._assert_proper_shapes = bool(assert_proper_shapes)
        super().__init__(dtypes.as_dtype(dtype or dtypes.float32), None, True, True, True,
                         True, name, {"num_rows": num_rows, "batch_shape": batch_shape})

    def _batch_shape_arg(self):
        return self._batch_t if self._batch_t is not None else np.array(self._batch, np.int32)

    def _shape(self):
        if self._batch is None:
            return TensorShape(None)
        return TensorShape(self._batch + [self._n, self._n])

    def _shape_tensor(self):
        n = self._num_rows
        return concat([self._batch_shape_arg(), array_ops.stack([n, n])], 0)

    def _to_dense(self):
        batch = self._batch_t if self._batch_t is not None else (self._batch or None)
        return range_ops.eye(self._num_rows, batch_shape=batch, dtype=self._dtype)

    def _ones_diag(self):
        return array_ops.ones(concat([self._batch_shape_arg(),
                                      array_ops.reshape(self._num_rows, [1])], 0), self._dtype)

    def _matmul(self, x, adjoint, adjoint_arg):
        x = _adj(x) if adjoint_arg else x
        if self._assert_proper_shapes:
            from tideflow.ops import check_ops, control_flow_ops

            check = check_ops.assert_equal(
                array_ops.shape(x)[-2], self._num_rows,
                message="Dimensions are not compatible.  shape[-2] of argument to be the "
                        "same as this operator")
            x = control_flow_ops.with_dependencies([check], x)
        # TF 1.15 hands x back itself where the batch shape adds nothing to it
        if self._batch == []:
            return x
        if self._batch is not None:
            from tideflow.ops.fill_ops import broadcast_static_shape

            # (TF compares the shapes dimension by dimension: an unknown one never equals)
            xs = x.get_shape()
            out = broadcast_static_shape(xs, TensorShape(self._batch + [1, 1]))
            if xs.is_fully_defined() and out.as_list() == xs.as_list():
                return x
            return x + array_ops.zeros(self._batch + [1, 1], self._dtype)
        return x + array_ops.zeros(concat([self._batch_shape_arg(), [1, 1]], 0), self._dtype)

    def _solve(self, rhs, adjoint, adjoint_arg):
        return self._matmul(rhs, adjoint, adjoint_arg)

    def _diag_part(self):
        return self._ones_diag()

    def _determinant(self):
        return array_ops.ones(self._batch_shape_arg(), self._dtype)

    def _log_abs_determinant(self):
        return array_ops.zeros(self._batch_shape_arg(), self._dtype.real_dtype)

    # the identity is its own adjoint and inverse; its Cholesky factor is a new identity (as
    # TF's algebra)
    def _inverse(self):
        return self

    def _cholesky(self):
        return LinearOperatorIdentity(self._num_rows, self.batch_shape, self._dtype)

    def add_to_tensor(self, mat, name="add_to_tensor"):
        with self._name_scope(name):
            x = self._check_arg(mat, "mat")
            return matrix_diag_ops.matrix_set_diag(
                x, matrix_diag_ops.matrix_diag_part(x) + 1)


class LinearOperatorScaledIdentity(LinearOperator):
    """``multiplier * I`` (``multiplier`` of shape batch_shape)."""

    def __init__(self, num_rows, multiplier, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorScaledIdentity"):
        checks = [] if assert_proper_shapes else None
        with ops.name_scope(name, values=[multiplier, num_rows]):
            self._multiplier = ops.convert_to_tensor(multiplier, name="multiplier")
            if not self._multiplier.dtype.is_complex:
                if is_self_adjoint is False:
                    raise ValueError("A real diagonal operator is always self adjoint.")
                is_self_adjoint = True
            if not is_square:
                raise ValueError("A ScaledIdentity operator is always square.")
            rows = _shape_argument(num_rows, "num_rows", 0, checks)
            if checks:
                from tideflow.ops import control_flow_ops

                rows = control_flow_ops.with_dependencies(checks, rows)
            # TF 1.15 casts the size once here, for the determinants
            dt = self._multiplier.dtype.base_dtype
            self._rows_as_dtype = cast_ops.cast(rows, dt)
            self._rows_as_real = cast_ops.cast(rows, dt.real_dtype)
        self._num_rows = rows
        self._n = _num_rows_value(rows, "num_rows")
        super().__init__(self._multiplier.dtype.base_dtype, [self._multiplier],
                         is_non_singular, is_self_adjoint, is_positive_definite, True, name,
                         {"num_rows": num_rows, "multiplier": multiplier})

    @property
    def multiplier(self):
        return self._multiplier

    def _adjoint(self):
        return LinearOperatorScaledIdentity(self._num_rows, math_ops.conj(self._multiplier),
                                            self.is_non_singular, self.is_self_adjoint,
                                            self.is_positive_definite, True)

    def _inverse(self):
        return LinearOperatorScaledIdentity(self._num_rows, 1.0 / self._multiplier,
                                            self.is_non_singular, True,
                                            self.is_positive_definite, True)

    def _cholesky(self):
        return LinearOperatorScaledIdentity(self._num_rows, unary_ops.sqrt(self._multiplier),
                                            True, True, True, True)

    def _shape(self):
        return self._multiplier.get_shape().concatenate([self._n, self._n])

    def _shape_tensor(self):
        n = ops.convert_to_tensor(self._num_rows, dtypes.int32)
        return concat([array_ops.shape(self._multiplier), array_ops.stack([n, n])], 0)

    def _m(self, adjoint):
        m = math_ops.conj(self._multiplier) if adjoint and self._dtype.is_complex else \
            self._multiplier
        return array_ops.expand_dims(array_ops.expand_dims(m, -1), -1)

    def _to_dense(self):
        return self._m(False) * range_ops.eye(self._num_rows, dtype=self._dtype)

    def _matmul(self, x, adjoint, adjoint_arg):
        return (_adj(x) if adjoint_arg else x) * self._m(adjoint)

    def _solve(self, rhs, adjoint, adjoint_arg):
        return (_adj(rhs) if adjoint_arg else rhs) / self._m(adjoint)

    def _diag_part(self):
        n = ops.convert_to_tensor(self._num_rows, dtypes.int32)
        return array_ops.expand_dims(self._multiplier, -1) * array_ops.ones(
            array_ops.reshape(n, [1]), self._dtype)

    def _determinant(self):
        return self._multiplier ** self._rows_as_dtype

    def _log_abs_determinant(self):
        return self._rows_as_real * unary_ops.log(unary_ops.abs(self._multiplier))

    def add_to_tensor(self, mat, name="add_to_tensor"):
        with self._name_scope(name):
            x = self._check_arg(mat, "mat")
            diag = matrix_diag_ops.matrix_diag_part(x) + array_ops.expand_dims(self._multiplier,
                                                                               -1)
            return matrix_diag_ops.matrix_set_diag(x, diag)

    # checks on the multiplier itself, in TF's words
    def assert_non_singular(self, name="assert_non_singular"):
        from tideflow.ops import check_ops

        with self._name_scope(name):
            return check_ops.assert_positive(unary_ops.abs(self._multiplier),
                                             message="LinearOperator was singular")

    def assert_positive_definite(self, name="assert_positive_definite"):
        from tideflow.ops import check_ops

        with self._name_scope(name):
            return check_ops.assert_positive(math_ops.real(self._multiplier),
                                             message="LinearOperator was not positive "
                                                     "definite.")

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        from tideflow.ops import check_ops

        with self._name_scope(name):
            return check_ops.assert_equal(
                math_ops.imag(self._multiplier),
                array_ops.zeros([], self._dtype.real_dtype),
                message="LinearOperator was not self-adjoint")


class LinearOperatorZeros(LinearOperator):
    """The ``[M, N]`` zero matrix (singular; no solve)."""

    def __init__(self, num_rows, num_columns=None, batch_shape=None, dtype=None,
                 is_non_singular=False, is_self_adjoint=True, is_positive_definite=False,
                 is_square=True, assert_proper_shapes=False, name="LinearOperatorZeros"):
        del assert_proper_shapes
        if is_non_singular:
            raise ValueError("A Zeros operator is always singular.")
        if is_positive_definite:
            raise ValueError("A Zeros operator is never positive definite.")
        self._rows = _num_rows_value(num_rows, "num_rows")
        self._cols = self._rows if num_columns is None else _num_rows_value(num_columns,
                                                                              "num_columns")
        self._batch = [] if batch_shape is None else [int(b) for b in np.reshape(batch_shape, -1)]
        square = self._rows == self._cols
        if is_square and not square:  # TF's words
            raise ValueError(f"LinearOperatorZeros initialized as is_square=True, but got "
                             f"num_rows({self._rows}) != num_columns({self._cols})")
        super().__init__(dtypes.as_dtype(dtype or dtypes.float32), None, False,
                         is_self_adjoint and square, False, square, name,
                         {"num_rows": num_rows, "num_columns": num_columns})

    def _shape(self):
        return TensorShape(self._batch + [self._rows, self._cols])

    def _to_dense(self):
        return array_ops.zeros(self._batch + [self._rows, self._cols], self._dtype)

    def _matmul(self, x, adjoint, adjoint_arg):
        x = _adj(x) if adjoint_arg else x
        rows = self._cols if adjoint else self._rows
        shape = concat([array_ops.shape(x)[:-2], [rows], array_ops.shape(x)[-1:]], 0)
        return array_ops.zeros(shape, self._dtype) + array_ops.zeros(
            self._batch + [1, 1], self._dtype)

    def _determinant(self):
        return array_ops.zeros(self._batch, self._dtype)

    def _log_abs_determinant(self):
        return array_ops.zeros(self._batch, self._dtype.real_dtype) + np.array(
            -np.inf, self._dtype.real_dtype.as_numpy_dtype)

    def _diag_part(self):
        return array_ops.zeros(self._batch + [min(self._rows, self._cols)], self._dtype)

    def add_to_tensor(self, mat, name="add_to_tensor"):
        with self._name_scope(name):
            return self._check_arg(mat, "mat")


# -- operators built from operators ---------------------------------------------------------------


def _combined_hints(operator, what, is_non_singular, is_self_adjoint, is_positive_definite,
                    is_square):
    """The hints of the adjoint or inverse of ``operator``: each the operator's or the one
    given, True if either is, and TF 1.15's error where they contradict."""
    out = []
    for hint, given, words in (("non_singular", is_non_singular, "non-singular"),
                               ("self_adjoint", is_self_adjoint, "self-adjoint"),
                               ("positive_definite", is_positive_definite, "positive-definite"),
                               ("square", is_square, "square")):
        mine = getattr(operator, "is_" + hint)
        if (mine is False and given) or (mine and given is False):
            raise ValueError(f"An operator is {words} if and only if its {what} is {words}.")
        out.append(True if (mine or given) else
                   False if (mine is False or given is False) else None)
    return out


class LinearOperatorAdjoint(LinearOperator):
    """The adjoint (conjugate transpose) of ``operator``."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        self._operator = operator
        hints = _combined_hints(operator, "adjoint", is_non_singular, is_self_adjoint,
                                is_positive_definite, is_square)
        super().__init__(operator.dtype, operator.graph_parents, *hints,
                         name or f"{operator.name}_adjoint", {"operator": operator})

    @property
    def operator(self):
        return self._operator

    def _adjoint(self):
        return self._operator

    def _shape(self):
        s = self._operator.shape
        if s.ndims is None:
            return s
        return s[:-2].concatenate([s[-1], s[-2]])

    def _shape_tensor(self):
        s = self._operator.shape_tensor()
        return concat([s[:-2], s[-1:], s[-2:-1]], 0)

    def _to_dense(self):
        return _adj(self._operator.to_dense())

    def _matmul(self, x, adjoint, adjoint_arg):
        return self._operator.matmul(x, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs, adjoint, adjoint_arg):
        return self._operator.solve(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _determinant(self):
        d = self._operator.determinant()
        return math_ops.conj(d) if d.dtype.is_complex else d

    def _log_abs_determinant(self):
        return self._operator.log_abs_determinant()

    def _diag_part(self):
        d = self._operator.diag_part()
        return math_ops.conj(d) if d.dtype.is_complex else d


class LinearOperatorInversion(LinearOperator):
    """The inverse of a square, non-singular ``operator`` (matmul solves, solve multiplies)."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        for hint, given in (("non_singular", is_non_singular), ("square", is_square)):
            if getattr(operator, "is_" + hint) is False or given is False:
                raise ValueError(f"operator and supplied hints must have `is_{hint}` equal to "
                                 f"`True` or `None`.  Found "
                                 f"{getattr(operator, 'is_' + hint)}, {given}")
        self._operator = operator
        hints = _combined_hints(operator, "inverse", is_non_singular, is_self_adjoint,
                                is_positive_definite, is_square)
        super().__init__(operator.dtype, operator.graph_parents, *hints,
                         name or f"{operator.name}_inv", {"operator": operator})

    @property
    def operator(self):
        return self._operator

    def _inverse(self):
        return self._operator

    def _shape(self):
        return self._operator.shape

    def _shape_tensor(self):
        return self._operator.shape_tensor()

    def _to_dense(self):
        return linalg_ops.matrix_inverse(self._operator.to_dense())

    def _matmul(self, x, adjoint, adjoint_arg):
        return self._operator.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs, adjoint, adjoint_arg):
        return self._operator.matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _determinant(self):
        return 1.0 / self._operator.determinant()

    def _log_abs_determinant(self):
        return -self._operator.log_abs_determinant()


def _checked_operators(operators, empty_words="Expected a non-empty list of operators."):
    operators = list(operators)
    if not operators:
        raise ValueError(f"{empty_words} Found: {operators}")
    _same_dtype(operators)
    return operators


class _OperatorList(LinearOperator):
    """An operator built from a (checked, non-empty) list of ``operators`` of one dtype,
    named by joining their names with ``separator``. It has each hint in ``inherited``
    (pairs of hint and TF's words for it) that all its operators have; ``what`` names the
    combination in the error for a hint given as False against them."""

    def __init__(self, operators, is_non_singular, is_self_adjoint, is_positive_definite,
                 is_square, name, separator, what, inherited=(("non_singular", "non-singular"),)):
        self._operators = operators
        hints = {"non_singular": is_non_singular, "self_adjoint": is_self_adjoint,
                 "positive_definite": is_positive_definite}
        for hint, words in inherited:
            if all(getattr(o, "is_" + hint) for o in operators):
                if hints[hint] is False:
                    raise ValueError(f"{what} of {words} operators is always {words}.")
                hints[hint] = True
        is_non_singular, is_self_adjoint, is_positive_definite = (
            hints["non_singular"], hints["self_adjoint"], hints["positive_definite"])
        super().__init__(operators[0].dtype, _parents(operators),
                         is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name or separator.join(o.name for o in operators),
                         {"operators": operators})

    @property
    def operators(self):
        return list(self._operators)


class LinearOperatorComposition(_OperatorList):
    """The product ``operators[0] @ operators[1] @ ...``."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        # TF 1.15 does not check the factors' dimensions against each other here
        operators = _checked_operators(operators)
        super().__init__(operators, is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name, "_o_", "The composition")

    def _shape(self):
        # TF 1.15 checks the factors' dimensions here, not when the composition is made
        for a, b in zip(self._operators, self._operators[1:]):
            a.domain_dimension.assert_is_compatible_with(b.range_dimension)
        batch = TensorShape([])
        for o in self._operators:
            batch = _broadcast_batch(batch, o.batch_shape)
        first, last = self._operators[0].shape, self._operators[-1].shape
        m = first[-2] if first.ndims is not None else None
        n = last[-1] if last.ndims is not None else None
        return batch.concatenate(TensorShape([m, n]))

    def _to_dense(self):
        out = self._operators[-1].to_dense()
        for o in reversed(self._operators[:-1]):
            out = o.matmul(out)
        return out

    def _matmul(self, x, adjoint, adjoint_arg):
        seq = list(reversed(self._operators)) if not adjoint else list(self._operators)
        out = seq[0].matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for o in seq[1:]:
            out = o.matmul(out, adjoint=adjoint)
        return out

    def _solve(self, rhs, adjoint, adjoint_arg):
        seq = list(self._operators) if not adjoint else list(reversed(self._operators))
        out = seq[0].solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for o in seq[1:]:
            out = o.solve(out, adjoint=adjoint)
        return out

    def _determinant(self):
        return _det_product(self._operators)

    def _log_abs_determinant(self):
        return _log_abs_det_sum(self._operators)


# -- tf.linalg.experimental --------------------------------------------------------------------

CGState = collections.namedtuple("CGState", ["i", "x", "r", "p", "gamma"])


def conjugate_gradient(operator, rhs, preconditioner=None, x=None, tol=1e-5, max_iter=20,
                       name="conjugate_gradient"):
    """Solves ``A x = rhs`` for a self-adjoint positive-definite LinearOperator ``A`` by
    (preconditioned) conjugate gradients, stopping when every residual's norm is within
    ``tol`` times the initial one or after ``max_iter`` steps; returns ``CGState(i, x, r, p,
    gamma)``."""
    from tideflow.ops import gather_ops
    from tideflow.ops.norm_ops import norm
    from tideflow.ops.while_loop import while_loop

    if not (operator.is_self_adjoint and operator.is_positive_definite):
        raise ValueError("Expected a self-adjoint, positive definite operator.")
    if preconditioner is not None and not (preconditioner.is_self_adjoint and
                                           preconditioner.is_positive_definite):
        raise ValueError("Expected a self-adjoint, positive definite preconditioner.")

    def dot(a, b):
        prod = (math_ops.conj(a) if a.dtype.is_complex else a) * b
        return reduction_ops.reduce_sum(prod, axis=-1)

    with ops.name_scope(name):
        rhs = ops.convert_to_tensor(rhs, name="rhs")
        batch = array_ops.broadcast_dynamic_shape(array_ops.shape(rhs)[:-1],
                                                  operator.batch_shape_tensor())
        if preconditioner is not None:
            batch = array_ops.broadcast_dynamic_shape(batch,
                                                      preconditioner.batch_shape_tensor())
        full = concat([batch, array_ops.shape(rhs)[-1:]], 0)
        r0 = rhs + array_ops.zeros(full, rhs.dtype)
        limit = tol * norm(r0, axis=-1)
        if x is None:
            x = array_ops.zeros(full, rhs.dtype)
        else:
            x = ops.convert_to_tensor(x, rhs.dtype, name="x") + array_ops.zeros(full, rhs.dtype)
            r0 = r0 - operator.matvec(x)
        p0 = r0 if preconditioner is None else preconditioner.matvec(r0)
        state = CGState(i=ops.convert_to_tensor(0, dtypes.int32), x=x, r=r0, p=p0,
                        gamma=dot(r0, p0))

        def cond(state):
            return math_ops.logical_and(
                state.i < max_iter,
                reduction_ops.reduce_any(norm(state.r, axis=-1) > limit))

        def body(state):
            z = operator.matvec(state.p)
            denom = dot(state.p, z)
            alpha = state.gamma / gather_ops.where(math_ops.equal(denom, 0),
                                                   array_ops.ones_like(denom), denom)
            x = state.x + array_ops.expand_dims(alpha, -1) * state.p
            r = state.r - array_ops.expand_dims(alpha, -1) * z
            q = r if preconditioner is None else preconditioner.matvec(r)
            gamma = dot(r, q)
            beta = gamma / gather_ops.where(math_ops.equal(state.gamma, 0),
                                            array_ops.ones_like(gamma), state.gamma)
            p = q + array_ops.expand_dims(beta, -1) * state.p
            return (CGState(state.i + 1, x, r, p, gamma),)

        (final,) = while_loop(cond, body, (state,))
        return final
