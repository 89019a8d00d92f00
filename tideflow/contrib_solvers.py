"""``tf.contrib.solvers``: matrix-free Krylov solvers of TF 1.x (conjugate gradients, CGLS,
Lanczos bidiagonalization) over any object with ``shape``, ``dtype``, ``apply`` (and
``apply_adjoint``), built of ``while_loop``s as TF's, with its helpers in ``util``."""

import collections

from tideflow.framework import dtypes, ops
from tideflow.ops import (
    array_ops,
    constant_op,
    linalg_extra_ops,
    linalg_ops,
    math_ops,
    random_ops,
    reduction_ops,
    unary_ops,
)
from tideflow.ops.concat_ops import concat
from tideflow.ops.cond import cond
from tideflow.ops.nn_impl import l2_loss
from tideflow.ops.norm_ops import norm
from tideflow.ops.tensor_array import TensorArray
from tideflow.ops.while_loop import while_loop

__all__ = ["bidiag_matmul", "cgls", "conjugate_gradient", "create_operator", "dot",
           "identity_operator", "l2norm", "l2norm_squared", "l2normalize", "lanczos_bidiag"]

_Operator = collections.namedtuple("LinearOperator", ["shape", "dtype", "apply",
                                                      "apply_adjoint"])
CGState = collections.namedtuple("CGState", ["i", "x", "r", "p", "gamma"])
CGLSState = collections.namedtuple("CGLSState", ["i", "x", "r", "p", "gamma"])
LanczosBidiagState = collections.namedtuple("LanczosBidiagState", ["u", "v", "alpha", "beta"])


# -- util -----------------------------------------------------------------------------------


def _static_or_dynamic_shape(matrix):
    shape = matrix.get_shape()
    return shape.as_list() if shape.is_fully_defined() else array_ops.shape(matrix)


def create_operator(matrix):
    """The operator of a rank-2 ``matrix``: ``apply(v) = matrix @ v``, ``apply_adjoint(v) =
    matrix^H @ v``."""
    return _Operator(_static_or_dynamic_shape(matrix), matrix.dtype,
                     lambda v: linalg_ops.matmul(matrix, v, adjoint_a=False),
                     lambda v: linalg_ops.matmul(matrix, v, adjoint_a=True))


def identity_operator(matrix):
    """The identity operator with ``matrix``'s shape and dtype."""
    return _Operator(_static_or_dynamic_shape(matrix), matrix.dtype, lambda v: v, lambda v: v)


def dot(x, y):
    return reduction_ops.reduce_sum(math_ops.conj(x) * y)


def l2norm_squared(v):
    # twice l2_loss, as TF's
    return constant_op.constant(2, dtype=v.dtype.base_dtype) * l2_loss(v)


def l2norm(v):
    return unary_ops.sqrt(l2norm_squared(v))


def l2normalize(v):
    n = l2norm(v)
    return v / n, n


# -- linear_equations and least_squares -----------------------------------------------------


def _column_and_zeros(operator, rhs):
    """``rhs`` as a column, and a zero column of the operator's domain size."""
    rhs = array_ops.expand_dims(rhs, -1)
    zeros = array_ops.expand_dims(array_ops.zeros(operator.shape[1:],
                                                  dtype=rhs.dtype.base_dtype), -1)
    return rhs, zeros


def _squeezed(state_type, state):
    return state_type(state.i, x=array_ops.squeeze(state.x), r=array_ops.squeeze(state.r),
                      p=array_ops.squeeze(state.p), gamma=state.gamma)


def conjugate_gradient(operator, rhs, preconditioner=None, x=None, tol=1e-4, max_iter=20,
                       name="conjugate_gradient"):
    """Solves ``A x = rhs`` (A self-adjoint positive definite, ``rhs`` a vector) until
    ``||r|| <= tol ||r0||`` or ``max_iter`` steps; returns ``CGState(i, x, r, p, gamma)``."""

    def keep_going(i, state):
        return math_ops.logical_and(i < max_iter, norm(state.r) > tol)

    def step(i, state):
        z = operator.apply(state.p)
        alpha = state.gamma / dot(state.p, z)
        x = state.x + alpha * state.p
        r = state.r - alpha * z
        q = r if preconditioner is None else preconditioner.apply(r)
        gamma = dot(r, q)
        p = q + (gamma / state.gamma) * state.p
        return i + 1, CGState(i + 1, x, r, p, gamma)

    with ops.name_scope(name):
        rhs, zeros = _column_and_zeros(operator, rhs)
        if x is None:
            x, r0 = zeros, rhs
        else:
            x = array_ops.expand_dims(x, -1)
            r0 = rhs - operator.apply(x)
        p0 = r0 if preconditioner is None else preconditioner.apply(r0)
        tol *= norm(r0)
        i = constant_op.constant(0, dtype=dtypes.int32)
        _, state = while_loop(keep_going, step,
                              [i, CGState(i=i, x=x, r=r0, p=p0, gamma=dot(r0, p0))])
        return _squeezed(CGState, state)


def cgls(operator, rhs, tol=1e-6, max_iter=20, name="cgls"):
    """Least squares ``min ||A x - rhs||`` by conjugate gradients on the normal equations,
    until ``||A^H r|| <= tol ||A^H rhs||`` or ``max_iter`` steps; returns ``CGLSState``."""

    def keep_going(i, state):
        return math_ops.logical_and(i < max_iter, state.gamma > tol)

    def step(i, state):
        q = operator.apply(state.p)
        alpha = state.gamma / l2norm_squared(q)
        x = state.x + alpha * state.p
        r = state.r - alpha * q
        s = operator.apply_adjoint(r)
        gamma = l2norm_squared(s)
        p = s + (gamma / state.gamma) * state.p
        return i + 1, CGLSState(i + 1, x, r, p, gamma)

    with ops.name_scope(name):
        rhs, x = _column_and_zeros(operator, rhs)
        s0 = operator.apply_adjoint(rhs)
        gamma0 = l2norm_squared(s0)
        tol = tol * tol * gamma0
        i = constant_op.constant(0, dtype=dtypes.int32)
        _, state = while_loop(keep_going, step,
                              [i, CGLSState(i=i, x=x, r=rhs, p=s0, gamma=gamma0)])
        return _squeezed(CGLSState, state)


# -- lanczos --------------------------------------------------------------------------------


def lanczos_bidiag(operator, k, orthogonalize=True, starting_vector=None,
                   name="lanczos_bidiag"):
    """Golub-Kahan-Lanczos bidiagonalization ``A V = U B`` of ``k`` steps: ``U [m, k+1]`` and
    ``V [n, k]`` with orthonormal columns, ``B`` lower bidiagonal with diagonal ``alpha`` and
    subdiagonal ``beta``. With ``orthogonalize``, each new vector is made orthogonal to the
    earlier ones by Gram-Schmidt (twice where the first pass loses more than 1/sqrt(2) of its
    norm). The default starting vector is uniform in [-1, 1)."""

    def column(array, i):
        return array_ops.expand_dims(array.read(i), -1)

    def against_one(j, basis, v):
        shape = v.get_shape()
        b = column(basis, j)
        v -= linalg_ops.matmul(b, v, adjoint_a=True) * b
        v.set_shape(shape)
        return j + 1, basis, v

    def orthogonalized_once(i, basis, v):
        _, _, v = while_loop(lambda j, basis, v: j < i, against_one,
                             [constant_op.constant(0, dtype=dtypes.int32), basis, v])
        return l2normalize(v)

    def orthonormal(i, basis, v):
        before = l2norm(v)
        after, after_norm = orthogonalized_once(i, basis, v)
        return cond(after_norm < 0.7071 * before, lambda: orthogonalized_once(i, basis, v),
                    lambda: (after, after_norm))

    def normalized(i, basis, v):
        return orthonormal(i, basis, v) if orthogonalize else l2normalize(v)

    def step(i, state):
        u = column(state.u, i)
        r = operator.apply_adjoint(u)
        shape = r.get_shape()
        r = cond(i > 0, lambda: r - state.beta.read(i - 1) * column(state.v, i - 1), lambda: r)
        r.set_shape(shape)
        v, alpha = normalized(i - 1, state.v, r)
        u, beta = normalized(i, state.u, operator.apply(v) - alpha * u)
        return i + 1, LanczosBidiagState(state.u.write(i + 1, array_ops.squeeze(u)),
                                         state.v.write(i, array_ops.squeeze(v)),
                                         state.alpha.write(i, alpha), state.beta.write(i, beta))

    with ops.name_scope(name):
        dtype = operator.dtype
        if starting_vector is None:
            starting_vector = random_ops.random_uniform(operator.shape[:1], -1, 1, dtype=dtype)
        u0, _ = l2normalize(starting_vector)

        def array(size, what):
            return TensorArray(dtype=dtype, size=size, tensor_array_name=what,
                               clear_after_read=False)

        state = LanczosBidiagState(u=array(k + 1, "u").write(0, array_ops.squeeze(u0)),
                                   v=array(k, "v"), alpha=array(k, "alpha"),
                                   beta=array(k, "beta"))
        _, state = while_loop(lambda i, _: i < k, step,
                              [constant_op.constant(0, dtype=dtypes.int32), state])
        return LanczosBidiagState(linalg_extra_ops.matrix_transpose(state.u.stack()),
                                  linalg_extra_ops.matrix_transpose(state.v.stack()),
                                  state.alpha.stack(), state.beta.stack())


def bidiag_matmul(matrix, alpha, beta, adjoint_b=False, name="bidiag_matmul"):
    """``A B`` for the ``[k+1, k]`` lower bidiagonal ``B`` of diagonal ``alpha`` and
    subdiagonal ``beta``; with ``adjoint_b``, ``A B[:-1, :]^H``."""
    with ops.name_scope(name):
        alpha = array_ops.expand_dims(alpha, 0)
        if adjoint_b is False:
            return matrix[:, :-1] * alpha + matrix[:, 1:] * array_ops.expand_dims(beta, 0)
        beta = array_ops.expand_dims(beta[:-1], 0)
        zero_column = array_ops.expand_dims(
            array_ops.zeros(array_ops.shape(matrix)[:1], dtype=matrix.dtype), 1)
        return matrix * alpha + concat([zero_column, matrix[:, :-1] * beta], 1)
