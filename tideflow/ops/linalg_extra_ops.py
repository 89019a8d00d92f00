"""More TF 1.x linear algebra: ``tf.matrix_transpose``/``tf.linalg.adjoint`` (built from
transpose, as TF), MatrixTriangularSolve, Qr, SelfAdjointEigV2 (each with its gradient) and
``tf.matrix_solve_ls`` (built from Cholesky and triangular solves, as TF's ``fast=True``)."""

import collections

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape, unknown_shape
from tideflow.ops.array_ops import _in, _shape_str
from tideflow.ops.gradients import dense
from tideflow.ops.linalg_ops import _adjoint, _wide, matmul
from tideflow.ops.linalg_ops import _check_square as _check_square_op

_TYPES = "T: {double, float, half, complex64, complex128}"


def _fail(msg):
    raise errors.InvalidArgumentError(None, None, msg)


def _check_rank2(op_type, what, x):
    if np.ndim(x) < 2:
        _fail(f"{op_type}: {what} must have rank >= 2, got shape {_shape_str(np.shape(x))}")


def _static_rank2(op_type, what, s):
    # TF's shape-function words (the op and its input shapes are added by the caller)
    if s.ndims is not None and s.ndims < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {s.ndims}")


def _static_square(op_type, what, s):
    _static_rank2(op_type, what, s)
    if s.ndims is None:
        return s
    try:
        d = s.dims[-2].merge_with(s.dims[-1])
    except ValueError:
        raise ValueError(f"Dimensions must be equal, but are {s.dims[-2].value} and "
                         f"{s.dims[-1].value}") from None
    return TensorShape(s.dims[:-2] + [d, d])


# ------------------------------------------------------------------------------------------
# matrix_transpose, adjoint
# ------------------------------------------------------------------------------------------


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """``a`` with its innermost two dimensions swapped (conjugated too with ``conjugate``)."""
    from tideflow.ops import array_ops, concat_ops, range_ops

    with ops.name_scope(name, "matrix_transpose", [a]):
        a = ops.convert_to_tensor(a, name="a")
        ndims = a.get_shape().ndims
        if ndims is not None:
            if ndims < 2:
                raise ValueError(f"Argument 'a' should be a (batch) matrix, with rank >= 2.  "
                                 f"Found: {_shape_str(a.get_shape())}")
            perm = list(range(ndims - 2)) + [ndims - 1, ndims - 2]
        else:
            r = array_ops.rank(a)
            perm = concat_ops.concat([range_ops.range(0, r - 2, 1, name="Range"), [r - 1, r - 2]],
                                     0)
        return array_ops.transpose(a, perm=perm, conjugate=conjugate)


def adjoint(matrix, name=None):
    """The conjugate transpose of ``matrix``'s innermost two dimensions."""
    if getattr(matrix, "_is_linear_operator", False):
        return matrix.adjoint()
    with ops.name_scope(name, "adjoint", [matrix]):
        matrix = ops.convert_to_tensor(matrix, name="matrix")
        return matrix_transpose(matrix, conjugate=True)


# ------------------------------------------------------------------------------------------
# MatrixTriangularSolve
# ------------------------------------------------------------------------------------------


def _tri_solve_shape(op):
    m = _static_square("MatrixTriangularSolve", "matrix", _in(op, 0))
    r = _in(op, 1)
    _static_rank2("MatrixTriangularSolve", "rhs", r)
    if m.ndims is None or r.ndims is None:
        return [unknown_shape() if r.ndims is None else r]
    if m.ndims != r.ndims:  # TF merges the batch shapes: their ranks are the ones named
        raise ValueError(f"Shapes must be equal rank, but are {m.ndims - 2} and "
                         f"{r.ndims - 2}")
    batch = []
    for a, b in [*zip(m.dims[:-2], r.dims[:-2]), (m.dims[-1], r.dims[-2])]:
        try:
            batch.append(a.merge_with(b))
        except ValueError:
            raise ValueError(f"Dimensions must be equal, but are {a.value} and "
                             f"{b.value}") from None
    batch = batch[:-1]
    return [TensorShape(batch + [m.dims[-1], r.dims[-1]])]


def _tri_solve_kernel(matrix, rhs, *, lower, adjoint):
    _check_square_op(matrix, "First input (lhs) must be a square matrix.", rhs)
    a = _wide(matrix)
    a = np.tril(a) if lower else np.triu(a)
    if adjoint:
        a = _adjoint(a)
    # (a NaN on the diagonal fails TF's check that its smallest modulus is above zero)
    if a.shape[-1] and not np.all(np.abs(np.diagonal(a, axis1=-2, axis2=-1)) > 0):
        _fail("Input matrix is not invertible.")  # TF's words: a zero on the diagonal
    if a.size == 0 or rhs.size == 0:
        return np.zeros(rhs.shape, matrix.dtype)
    return _substitute(a, _wide(rhs), lower != adjoint).astype(matrix.dtype, copy=False)


def _substitute(a, b, lower):
    """Forward (``lower``) or back substitution, as TF's kernel: a row of x depends only on the
    rows before it (after it), never through pivoting on the rest of the matrix. Halves are
    solved recursively with one matrix product between them; small blocks row by row."""
    n = a.shape[-1]
    if n > 32:
        h = n // 2
        if lower:
            top = _substitute(a[..., :h, :h], b[..., :h, :], True)
            bottom = _substitute(a[..., h:, h:], b[..., h:, :] - a[..., h:, :h] @ top, True)
        else:
            bottom = _substitute(a[..., h:, h:], b[..., h:, :], False)
            top = _substitute(a[..., :h, :h], b[..., :h, :] - a[..., :h, h:] @ bottom, False)
        return np.concatenate([top, bottom], axis=-2)
    x = np.empty(b.shape, np.result_type(a, b))
    for i in range(n) if lower else range(n - 1, -1, -1):
        done = slice(0, i) if lower else slice(i + 1, n)
        x[..., i:i + 1, :] = ((b[..., i:i + 1, :] - a[..., i:i + 1, done] @ x[..., done, :])
                              / a[..., i:i + 1, i:i + 1])
    return x


def _tri_solve_grad(op, grad):
    from tideflow.ops import range_ops

    a, c = op._inputs[0], op._outputs[0]
    lower, adj = op._attrs["lower"], op._attrs["adjoint"]
    grad_b = matrix_triangular_solve(a, dense(grad), lower=lower, adjoint=not adj)
    if adj:
        grad_a = -matmul(c, grad_b, adjoint_b=True)
    else:
        grad_a = -matmul(grad_b, c, adjoint_b=True)
    grad_a = (range_ops.matrix_band_part(grad_a, -1, 0) if lower
              else range_ops.matrix_band_part(grad_a, 0, -1))
    return [grad_a, grad_b]


op_registry.declare(
    "MatrixTriangularSolve",
    inputs=["matrix: T", "rhs: T"],
    outputs=["output: T"],
    attrs=["lower: bool = true", "adjoint: bool = false", _TYPES],
    shape=_tri_solve_shape,
    kernel=_tri_solve_kernel,
    grad=_tri_solve_grad,
)


def matrix_triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """Solves ``matrix @ x = rhs`` (``adjoint(matrix) @ x`` with ``adjoint``) for ``x`` using
    only ``matrix``'s lower (``lower``) or upper triangle."""
    return ops.apply_op("MatrixTriangularSolve", [matrix, rhs],
                        {"lower": lower, "adjoint": adjoint}, name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# Qr
# ------------------------------------------------------------------------------------------


def _qr_shape(op):
    x = _in(op, 0)
    _static_rank2("Qr", "input", x)
    if x.ndims is None:
        return [unknown_shape(), unknown_shape()]
    d = x.as_list()
    batch, m, n = d[:-2], d[-2], d[-1]
    if op._attrs["full_matrices"]:
        k = m
    else:
        k = None if m is None or n is None else min(m, n)
    return [TensorShape(batch + [m, k]), TensorShape(batch + [k, n])]


def _qr_kernel(input, *, full_matrices):
    _check_rank2("Qr", "input", input)
    x = _wide(input)
    if input.dtype in (np.float32, np.float64):
        # TF's own arithmetic (Eigen's Householder QR) where it is modelled
        from tideflow.kernels import eigen_qr

        flat = x.reshape((-1,) + x.shape[-2:])
        outs = [eigen_qr.qr(a, full_matrices) for a in flat]
        if outs and all(o is not None for o in outs):
            q = np.stack([o[0] for o in outs]).reshape(x.shape[:-2] + outs[0][0].shape)
            r = np.stack([o[1] for o in outs]).reshape(x.shape[:-2] + outs[0][1].shape)
            return q, r
    q, r = np.linalg.qr(x, mode="complete" if full_matrices else "reduced")
    return q.astype(input.dtype, copy=False), r.astype(input.dtype, copy=False)


def _qr_grad(op, dq, dr):
    from tideflow.ops import range_ops

    a = op._inputs[0]
    q, r = op._outputs
    s = a.get_shape()
    if s.ndims is None or s.dims[-2].value is None or s.dims[-1].value is None:
        raise NotImplementedError(
            "QrGrad not implemented when input shape is not fully defined (Qr input "
            f"{_shape_str(s)})")
    m, n = s.dims[-2].value, s.dims[-1].value
    if m < n or (op._attrs["full_matrices"] and m != n):
        raise NotImplementedError(
            "QrGrad not implemented when ncols > nrows or full_matrices is true and "
            f"ncols != nrows (Qr input {_shape_str(s)})")
    dq = dense(dq) if dq is not None else q * 0
    dr = dense(dr) if dr is not None else r * 0

    def tri_solve(x, rr):
        # x @ inverse(rr) for upper-triangular rr
        return adjoint(matrix_triangular_solve(rr, adjoint(x), lower=False, adjoint=False))

    qdq = matmul(q, dq, adjoint_a=True)
    qdq_ = qdq - adjoint(qdq)
    rdr = matmul(r, dr, adjoint_b=True)
    rdr_ = rdr - adjoint(rdr)
    tril = range_ops.matrix_band_part(qdq_ + rdr_, -1, 0)
    grad_a = matmul(q, dr + tri_solve(tril, r))
    grad_b = tri_solve(dq - matmul(q, qdq), r)
    return grad_a + grad_b


op_registry.declare(
    "Qr",
    inputs=["input: T"],
    outputs=["q: T", "r: T"],
    attrs=["full_matrices: bool = false", _TYPES],
    shape=_qr_shape,
    kernel=_qr_kernel,
    grad=_qr_grad,
)


def qr(input, full_matrices=False, name=None):
    """The QR decomposition of ``input``'s innermost matrices: ``q`` (orthonormal columns) and
    upper-triangular ``r`` with ``input = q @ r``."""
    op = ops.apply_op("Qr", [input], {"full_matrices": full_matrices}, name=name)
    return QrOutput(op._outputs[0], op._outputs[1])


QrOutput = collections.namedtuple("Qr", ["q", "r"])  # as TF's generated wrapper


# ------------------------------------------------------------------------------------------
# SelfAdjointEigV2
# ------------------------------------------------------------------------------------------


def _eig_shape(op):
    x = _static_square("SelfAdjointEigV2", "input", _in(op, 0))
    if x.ndims is None:
        return [unknown_shape(), unknown_shape() if op._attrs["compute_v"] else TensorShape([0])]
    e = TensorShape(x.dims[:-1])
    return [e, x if op._attrs["compute_v"] else TensorShape([0])]


def _eig_kernel(input, *, compute_v):
    _check_square_op(input)
    if input.dtype in (np.float32, np.complex64) and np.isnan(np.tril(input)).any():
        # TF 1.15's single-precision solver reports no convergence on a NaN in the lower
        # triangle it reads (its double one goes on)
        raise errors.InvalidArgumentError(None, None, "Self-adjoint eigen decomposition was not "
                                                      "successful. The input might not be valid.")
    x = _wide(input)
    if not compute_v:
        e = np.linalg.eigvalsh(x, UPLO="L")
        return e.astype(input.dtype), np.zeros([0], input.dtype)
    n = x.shape[-1]
    if x.dtype.kind in "fc" and 1 < n <= 64 and x.size * n <= 1 << 18:
        # TF's own steps (Eigen's solver), for its eigenvectors' signs; in Python, so only
        # for matrices small enough (LAPACK's vectors differ from it by a sign per column)
        from tideflow.kernels import selfadjoint_eig

        flat = x.reshape((-1, n, n))
        pairs = [selfadjoint_eig.eigh(m, x.dtype) for m in flat]
        e = np.stack([p[0] for p in pairs]).reshape(x.shape[:-1])
        v = np.stack([p[1] for p in pairs]).reshape(x.shape)
    else:
        e, v = np.linalg.eigh(x, UPLO="L")
    return e.astype(input.dtype), v.astype(input.dtype, copy=False)


def _eig_grad(op, grad_e, grad_v):
    # TF 1.15's ops, under a control dependency on both incoming gradients
    from tideflow.ops import array_ops, fill_ops, math_ops, matrix_diag_ops, range_ops

    e, v = op._outputs
    grad_e = dense(grad_e) if grad_e is not None else fill_ops.zeros_like(e)
    deps = [g for g in (grad_e, grad_v) if isinstance(g, ops.Tensor)]
    with ops.control_dependencies(deps):
        if op._attrs["compute_v"]:
            grad_v = dense(grad_v) if grad_v is not None else fill_ops.zeros_like(v)
            f = matrix_diag_ops.matrix_set_diag(
                math_ops.reciprocal(array_ops.expand_dims(e, -2) - array_ops.expand_dims(e, -1)),
                fill_ops.zeros_like(e))
            inner = matrix_diag_ops.matrix_diag(grad_e) + f * matmul(v, grad_v, adjoint_a=True)
            grad_a = matmul(v, matmul(inner, v, adjoint_b=True))
        else:
            _, v = self_adjoint_eig(op._inputs[0])
            grad_a = matmul(v, matmul(matrix_diag_ops.matrix_diag(grad_e), v, adjoint_b=True))
        grad_a = range_ops.matrix_band_part(grad_a + adjoint(grad_a), -1, 0)
        return matrix_diag_ops.matrix_set_diag(grad_a,
                                               0.5 * matrix_diag_ops.matrix_diag_part(grad_a))


op_registry.declare(
    "SelfAdjointEigV2",
    inputs=["input: T"],
    outputs=["e: T", "v: T"],
    attrs=["compute_v: bool = true", _TYPES],
    shape=_eig_shape,
    kernel=_eig_kernel,
    grad=_eig_grad,
)


def self_adjoint_eig(tensor, name=None):
    """The eigenvalues (ascending) and eigenvectors of ``tensor``'s innermost self-adjoint
    matrices (only their lower triangles are read)."""
    op = ops.apply_op("SelfAdjointEigV2", [tensor], {"compute_v": True}, name=name)
    return op._outputs[0], op._outputs[1]


def self_adjoint_eigvals(tensor, name=None):
    """The eigenvalues (ascending) of ``tensor``'s innermost self-adjoint matrices."""
    return ops.apply_op("SelfAdjointEigV2", [tensor], {"compute_v": False},
                        name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# matrix_solve_ls
# ------------------------------------------------------------------------------------------


def cholesky_solve(chol, rhs, name=None):
    """Solves ``A @ x = rhs`` given ``chol``, the lower Cholesky factor of ``A`` (two
    triangular solves)."""
    with ops.name_scope(name, "cholesky_solve", [chol, rhs]):
        y = matrix_triangular_solve(chol, rhs, lower=True, adjoint=False)
        return matrix_triangular_solve(chol, y, lower=True, adjoint=True)


def _regularized_gram(a, l2, adjoint_a):
    from tideflow.ops import matrix_diag_ops

    gram = matmul(a, a, adjoint_a=adjoint_a, adjoint_b=not adjoint_a)
    return matrix_diag_ops.matrix_set_diag(gram, matrix_diag_ops.matrix_diag_part(gram) + l2)


def _min_norm_lstsq(matrix, rhs, name):
    """``fast=False``: the minimum-norm least-squares solution, also for rank-deficient
    matrices (through the SVD pseudo-inverse; TF uses a complete orthogonal factorization, the
    same solution); ``l2_regularizer`` is ignored, as in TF. The gradient with respect to
    ``matrix`` raises (Svd's u/v gradient is not implemented); TF has none for either input."""
    from tideflow.ops import (
        array_ops,
        cast_ops,
        fill_ops,
        gather_ops,
        math_ops,
        reduction_ops,
        svd_ops,
    )

    # TF 1.15 runs one MatrixSolveLs op here: its result takes that op's name
    with ops.name_scope(name, "MatrixSolveLs", [matrix, rhs]) as scope:
        matrix = ops.convert_to_tensor(matrix, name="matrix")
        rhs = ops.convert_to_tensor(rhs, name="rhs", dtype=matrix.dtype)
        _static_rank2("MatrixSolveLs", "matrix", matrix.get_shape())
        _static_rank2("MatrixSolveLs", "rhs", rhs.get_shape())
        s, u, v = svd_ops.svd(matrix, full_matrices=False)
        sr = math_ops.real(s) if matrix.dtype.is_complex else s
        shape = array_ops.shape(matrix)
        big = cast_ops.cast(math_ops.maximum(shape[-2], shape[-1]), sr.dtype)
        eps = float(np.finfo(sr.dtype.as_numpy_dtype).eps)
        cutoff = eps * big * reduction_ops.reduce_max(sr, axis=-1, keepdims=True)
        keep = sr > cutoff
        inv = gather_ops.where(keep, 1.0 / gather_ops.where(keep, sr, fill_ops.ones_like(sr)),
                               fill_ops.zeros_like(sr))
        inv = cast_ops.cast(inv, matrix.dtype)
        x = matmul(v * array_ops.expand_dims(inv, -2), matmul(u, rhs, adjoint_a=True))
        return array_ops.identity(x, name=scope)


def matrix_solve_ls(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """The least-squares solutions ``x`` of ``matrix @ x = rhs`` (minimum-norm when
    underdetermined). ``fast=True`` (TF's default) solves the normal equations by Cholesky,
    with Tikhonov regularization ``l2_regularizer``; ``fast=False`` gives the minimum-norm
    solution even for rank-deficient matrices and ignores ``l2_regularizer`` (its gradient
    covers ``rhs`` only)."""
    from tideflow.ops import array_ops, cast_ops, cond, linalg_ops

    matrix = ops.convert_to_tensor(matrix, name="matrix")  # outside the scope, as TF 1.15
    if matrix.dtype.base_dtype == dtypes.complex128 and (
            isinstance(l2_regularizer, ops.Tensor) or l2_regularizer != 0):
        raise NotImplementedError("matrix_solve_ls is currently disabled for complex128 and "
                                  "l2_regularizer != 0 due to poor accuracy.")
    if not fast:
        return _min_norm_lstsq(matrix, rhs, name)
    with ops.name_scope(name, "matrix_solve_ls", [matrix, rhs, l2_regularizer]):
        rhs = ops.convert_to_tensor(rhs, name="rhs", dtype=matrix.dtype)
        ms, rs = matrix.get_shape(), rhs.get_shape()
        _static_rank2("MatrixSolveLs", "matrix", ms)
        _static_rank2("MatrixSolveLs", "rhs", rs)
        # mismatched shapes fail in the composed ops, with TF 1.15's words and op names
        l2 = ops.convert_to_tensor(l2_regularizer, name="l2_regularizer")
        if l2.dtype.base_dtype != matrix.dtype.base_dtype:
            l2 = cast_ops.cast(l2, matrix.dtype)

        def overdetermined():
            chol = linalg_ops.cholesky(_regularized_gram(matrix, l2, adjoint_a=True))
            return cholesky_solve(chol, matmul(matrix, rhs, adjoint_a=True))

        def underdetermined():
            chol = linalg_ops.cholesky(_regularized_gram(matrix, l2, adjoint_a=False))
            return matmul(matrix, cholesky_solve(chol, rhs), adjoint_a=True)

        if ms.ndims is not None and ms.dims[-2].value is not None and \
                ms.dims[-1].value is not None:
            return overdetermined() if ms.dims[-2].value >= ms.dims[-1].value \
                else underdetermined()
        shape = array_ops.shape(matrix)
        return cond.cond(shape[-2] >= shape[-1], overdetermined, underdetermined)
