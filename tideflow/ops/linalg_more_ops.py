"""More of ``tf.linalg``: the Lu, LogMatrixDeterminant, MatrixExponential, MatrixLogarithm and
MatrixSquareRoot ops, and the functions built on ops: LU solve/inverse/reconstruct, logdet,
pinv, matrix_rank, matvec, normalize, tridiagonal solve/matmul and eigh_tridiagonal."""

import collections

import numpy as np

from tideflow.framework import dtypes, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import (
    array_ops,
    cast_ops,
    gather_ops,
    linalg_extra_ops,
    linalg_ops,
    math_ops,
    matrix_diag_ops,
    pad_ops,
    range_ops,
    reduction_ops,
    svd_ops,
    unary_ops,
)
from tideflow.ops.array_ops import _invalid, _np, _shape_str
from tideflow.ops.concat_ops import concat, stack
from tideflow.ops.gradients import dense
from tideflow.ops.linalg_ops import _check_square, tf_slogdet

_FLOATS = "{double, float, half, complex64, complex128}"


def _square_shape(op_type):
    # (LogMatrixDeterminant's shape function merges the columns with the rows)
    columns_first = op_type == "LogMatrixDeterminant"

    def shape(op):
        s = op._inputs[0]._shape
        if s.ndims is not None:
            # TF's words (MakeBatchSquareMatrix)
            if s.ndims < 2:
                raise ValueError(f"Shape must be at least rank 2 but is rank {s.ndims}")
            a, b = s.dims[-2].value, s.dims[-1].value
            if columns_first:
                a, b = b, a
            if a is not None and b is not None and a != b:
                raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
        return [s]

    return shape


def _check_square_np(x, op_type):
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise _invalid(f"{op_type}: input must be a batch of square matrices, got shape "
                       f"{_shape_str(x.shape)}")


def _wide(x):
    if x.dtype == np.float16:
        return x.astype(np.float32)
    return x


# ------------------------------------------------------------------------------------------
# Lu
# ------------------------------------------------------------------------------------------


def _lu_kernel(input, *, output_idx_type):
    x = _np(input)
    # Lu is not a LinearAlgebraOp in TF 1.15: its own words for the rank
    if x.ndim < 2:
        raise _invalid(f"Input tensor must have rank >= 2, got {x.ndim}")
    _check_square(x)
    a = _wide(x).copy()
    n = a.shape[-1]
    batch = a.shape[:-2]
    a = a.reshape((int(np.prod(batch, dtype=np.int64)), n, n))  # (-1 is ambiguous when empty)
    perm = np.tile(np.arange(n), (a.shape[0], 1))
    rows = np.arange(a.shape[0])
    for k in range(n):
        piv = k + np.argmax(np.abs(a[:, k:, k]), axis=1)
        if (np.abs(a[rows, piv, k]) == 0).any():
            raise _invalid("Input is not invertible.")  # TF's words
        a[rows, k], a[rows, piv] = a[rows, piv].copy(), a[rows, k].copy()
        perm[rows, k], perm[rows, piv] = perm[rows, piv].copy(), perm[rows, k].copy()
        a[:, k + 1:, k] /= a[:, k:k + 1, k]
        a[:, k + 1:, k + 1:] -= a[:, k + 1:, k:k + 1] * a[:, k:k + 1, k + 1:]
    return (a.reshape(batch + (n, n)).astype(x.dtype),
            perm.reshape(batch + (n,)).astype(output_idx_type.as_numpy_dtype))


def _lu_shape(op):
    s = _square_shape("Lu")(op)[0]
    return [s, s[:-1] if s.ndims is not None else TensorShape(None)]


def _tril_unit(lu):
    lower = range_ops.matrix_band_part(lu, -1, 0)
    return matrix_diag_ops.matrix_set_diag(lower, array_ops.ones_like(
        matrix_diag_ops.matrix_diag_part(lu)))


def _lu_grad(op, grad_lu, _):
    lu, perm = op._outputs
    g = dense(grad_lu)
    lower = _tril_unit(lu)
    upper = range_ops.matrix_band_part(lu, 0, -1)
    # with P A = L U: A's gradient is P^T L^-H (tril_strict(L^H gL) + triu(gU U^H)) U^-H
    l_grad = range_ops.matrix_band_part(g, -1, 0) - matrix_diag_ops.matrix_diag(
        matrix_diag_ops.matrix_diag_part(g))
    u_grad = range_ops.matrix_band_part(g, 0, -1)
    lh_lg = linalg_ops.matmul(lower, l_grad, adjoint_a=True)
    lh_lg = range_ops.matrix_band_part(lh_lg, -1, 0) - matrix_diag_ops.matrix_diag(
        matrix_diag_ops.matrix_diag_part(lh_lg))
    ug_uh = range_ops.matrix_band_part(linalg_ops.matmul(u_grad, upper, adjoint_b=True), 0, -1)
    middle = lh_lg + ug_uh
    left = linalg_extra_ops.matrix_triangular_solve(lower, middle, lower=True, adjoint=True)
    # X U^-H = (U^-1 X^H)^H
    right = linalg_extra_ops.matrix_triangular_solve(
        upper, linalg_extra_ops.adjoint(left), lower=False, adjoint=False)
    grad_perm = linalg_extra_ops.adjoint(right)
    return [_permute_rows(grad_perm, _invert_perm(perm))]


op_registry.declare(
    "Lu",
    inputs=["input: T"],
    outputs=["lu: T", "p: output_idx_type"],
    attrs=[f"T: {_FLOATS}", "output_idx_type: {int32, int64} = DT_INT32"],
    shape=_lu_shape,
    kernel=_lu_kernel,
    grad=_lu_grad,
)


def _invert_perm(perm):
    """Per row of ``perm [..., n]``, the inverse permutation."""
    n = array_ops.shape(perm)[-1]
    flat = array_ops.reshape(perm, stack([-1, n]))
    b = array_ops.shape(flat)[0]
    rows = array_ops.expand_dims(range_ops.range(b), 1) + array_ops.zeros_like(
        cast_ops.cast(flat, dtypes.int32))
    idx = stack([rows, cast_ops.cast(flat, dtypes.int32)], axis=-1)
    inv = gather_ops.scatter_nd(idx, array_ops.zeros_like(rows) + array_ops.expand_dims(
        range_ops.range(n), 0), stack([b, n]))
    return array_ops.reshape(cast_ops.cast(inv, perm.dtype), array_ops.shape(perm))


def _permute_rows(x, perm):
    """``out[..., i, :] = x[..., perm[..., i], :]``."""
    shape = array_ops.shape(x)
    n = shape[-2]
    flat = array_ops.reshape(x, concat([[-1], shape[-2:]], 0))
    p = array_ops.reshape(cast_ops.cast(perm, dtypes.int32), stack([-1, n]))
    b = array_ops.shape(flat)[0]
    rows = array_ops.expand_dims(range_ops.range(b), 1) + array_ops.zeros_like(p)
    out = gather_ops.gather_nd(flat, stack([rows, p], axis=-1))
    out = array_ops.reshape(out, shape)
    out.set_shape(x.get_shape())
    return out


def lu(input, output_idx_type=dtypes.int32, name=None):
    """The LU decomposition with partial pivoting of square matrices: ``lu`` holds L (unit
    diagonal, below) and U (on and above the diagonal), ``p`` the row permutation with
    ``input[..., p, :] = L @ U``."""
    op = ops.apply_op("Lu", [input], {"output_idx_type": dtypes.as_dtype(output_idx_type)},
                      name=name)
    return tuple(op._outputs)


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """The matrix that :func:`lu` decomposed into ``(lower_upper, perm)``."""
    del validate_args
    with ops.name_scope(name, "lu_reconstruct", [lower_upper, perm]):
        lower_upper = ops.convert_to_tensor(lower_upper, name="lower_upper")
        perm = ops.convert_to_tensor(perm, name="perm")
        x = linalg_ops.matmul(_tril_unit(lower_upper),
                              range_ops.matrix_band_part(lower_upper, 0, -1))
        return _permute_rows(x, _invert_perm(perm))


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """Solves ``A X = rhs`` given :func:`lu`'s ``(lower_upper, perm)`` of A."""
    del validate_args
    with ops.name_scope(name, "lu_solve", [lower_upper, perm, rhs]):
        lower_upper = ops.convert_to_tensor(lower_upper, name="lower_upper")
        perm = ops.convert_to_tensor(perm, name="perm")
        rhs = ops.convert_to_tensor(rhs, name="rhs", dtype=lower_upper.dtype)
        batch = array_ops.shape(lower_upper)[:-2]
        rhs_b = rhs + array_ops.zeros(concat([batch, [1, 1]], 0), rhs.dtype)
        permuted = _permute_rows(rhs_b, perm + array_ops.zeros(
            concat([array_ops.shape(rhs_b)[:-2], array_ops.shape(perm)[-1:]], 0), perm.dtype))
        y = linalg_extra_ops.matrix_triangular_solve(_tril_unit(lower_upper), permuted,
                                                     lower=True)
        return linalg_extra_ops.matrix_triangular_solve(
            range_ops.matrix_band_part(lower_upper, 0, -1), y, lower=False)


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """The inverse of the matrix whose :func:`lu` is ``(lower_upper, perm)``."""
    with ops.name_scope(name, "lu_matrix_inverse", [lower_upper, perm]):
        lower_upper = ops.convert_to_tensor(lower_upper, name="lower_upper")
        n = array_ops.shape(lower_upper)[-1]
        eye = range_ops.eye(n, batch_shape=array_ops.shape(lower_upper)[:-2],
                            dtype=lower_upper.dtype)
        return lu_solve(lower_upper, perm, eye, validate_args)


# ------------------------------------------------------------------------------------------
# determinants
# ------------------------------------------------------------------------------------------


def _slogdet_kernel(input):
    x = _np(input)
    _check_square(x)
    sign, logabs = tf_slogdet(x)
    # both outputs have the input's type (a complex log|det| has a zero imaginary part)
    return sign.astype(x.dtype), logabs.astype(x.dtype)


def _slogdet_shape(op):
    s = _square_shape("LogMatrixDeterminant")(op)[0]
    out = s[:-2] if s.ndims is not None else TensorShape(None)
    return [out, out]


def _slogdet_grad(op, _, grad_logabs):
    inv = linalg_ops.matrix_inverse(op._inputs[0], adjoint=True)
    return [linalg_ops._per_matrix(dense(grad_logabs), op._outputs[1]) * inv]


op_registry.declare(
    "LogMatrixDeterminant",
    inputs=["input: T"],
    outputs=["sign: T", "log_abs_determinant: T"],
    attrs=["T: {half, float, double, complex64, complex128}"],
    shape=_slogdet_shape,
    kernel=_slogdet_kernel,
    grad=_slogdet_grad,
)


def slogdet(input, name=None):
    """``(sign, log|det|)`` of square matrices, stable where the determinant under- or
    overflows."""
    op = ops.apply_op("LogMatrixDeterminant", [input], name=name)
    return LogMatrixDeterminantOutput(*op._outputs)


# as TF's generated wrapper: a namedtuple (sign, log_abs_determinant)
LogMatrixDeterminantOutput = collections.namedtuple("LogMatrixDeterminant",
                                                    ["sign", "log_abs_determinant"])


def logdet(matrix, name=None):
    """``log(det(matrix))`` of Hermitian positive-definite matrices, through Cholesky."""
    if getattr(matrix, "_is_linear_operator", False):
        return matrix.log_abs_determinant(name=name or "log_abs_det")
    with ops.name_scope(name, "logdet", [matrix]):
        chol = linalg_ops.cholesky(matrix)
        d = matrix_diag_ops.matrix_diag_part(chol)
        if d.dtype.is_complex:
            d = math_ops.real(d)
        return 2.0 * reduction_ops.reduce_sum(unary_ops.log(d), axis=[-1])


# ------------------------------------------------------------------------------------------
# matrix functions: exp, log, sqrt
# ------------------------------------------------------------------------------------------

_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)


def _expm_one(a):
    """exp(a) by scaling and squaring with the [13/13] Pade approximant."""
    n = a.shape[-1]
    norm = np.abs(a).sum(axis=0).max() if a.size else 0.0
    s = max(0, int(np.ceil(np.log2(norm / 5.371920351148152)))) if norm > 0 else 0
    a = a / (2.0 ** s)
    b = _PADE13
    ident = np.eye(n, dtype=a.dtype)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 +
             b[1] * ident)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + \
        b[0] * ident
    r = np.linalg.solve(v - u, v + u)
    for _ in range(s):
        r = r @ r
    return r


def _batched(fn, x):
    if x.size == 0:  # an empty batch, or 0x0 matrices
        return x.copy()
    flat = x.reshape((-1,) + x.shape[-2:])
    return np.stack([fn(m) for m in flat]).reshape(x.shape)


def _expm_kernel(input):
    x = _np(input)
    _check_square_np(x, "MatrixExponential")
    wide = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    return _batched(_expm_one, wide).astype(x.dtype)


def _expm_grad(op, grad):
    # the adjoint of d exp(A)[E] is the upper-right block of exp([[A^H, G], [0, A^H]])
    a = op._inputs[0]
    g = dense(grad)
    ah = linalg_extra_ops.adjoint(a)
    n = array_ops.shape(a)[-1]
    top = concat([ah, g], -1)
    bottom = concat([array_ops.zeros_like(ah), ah], -1)
    big = ops.apply_op("MatrixExponential", [concat([top, bottom], -2)])._outputs[0]
    rank = a.get_shape().ndims
    if rank is None:
        raise ValueError("MatrixExponential gradient: the rank of the input must be known")
    begin = concat([array_ops.zeros([rank - 2], dtypes.int32), stack([0, n])], 0)
    size = concat([-array_ops.ones([rank - 2], dtypes.int32), stack([n, n])], 0)
    from tideflow.ops import slicing_ops

    out = slicing_ops.slice(big, begin, size)
    out.set_shape(a.get_shape())
    return [out]


op_registry.declare(
    "MatrixExponential",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: {double, float, half, complex64, complex128}"],
    shape=_square_shape("MatrixExponential"),
    kernel=_expm_kernel,
    grad=_expm_grad,
)


def _eig_fn(fn):
    def apply(m):
        w, v = np.linalg.eig(m)
        return (v * fn(w)[None, :]) @ np.linalg.inv(v)

    return apply


def _logm_kernel(input):
    x = _np(input)
    _check_square(x)
    return _batched(_eig_fn(np.log), x.astype(np.complex128)).astype(x.dtype)


op_registry.declare(
    "MatrixLogarithm",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: {complex64, complex128}"],
    shape=_square_shape("MatrixLogarithm"),
    kernel=_logm_kernel,
    differentiable=False,
)


def _sqrtm_kernel(input):
    x = _np(input)
    _check_square(x)
    r = _batched(_eig_fn(lambda w: np.sqrt(w.astype(np.complex128))),
                 x.astype(np.complex128))
    if x.dtype.kind != "c":
        # a real matrix with eigenvalues on the negative real axis has no real square root:
        # all of that matrix is NaN, as TF's
        bad = np.abs(r.imag) > 1e-6 * (1 + np.abs(r.real))
        r = np.where(bad.any(axis=(-2, -1), keepdims=True), np.nan, r.real)
    return r.astype(x.dtype)


def _sqrtm_grad(op, grad):
    # with S = sqrt(A), dA = dS S + S dS: the adjoint solves S^H X + X S^H = G (Sylvester)
    s = op._outputs[0]
    g = dense(grad)
    return [ops.apply_op("_SylvesterSolve", [linalg_extra_ops.adjoint(s), g])._outputs[0]]


def _sylvester_kernel(a, c):
    a, c = _np(a), _np(c)
    n = a.shape[-1]
    ident = np.eye(n)
    out = np.empty(np.broadcast_shapes(a.shape, c.shape), np.result_type(a, c))
    fa = np.broadcast_to(a, out.shape).reshape(-1, n, n)
    fc = np.broadcast_to(c, out.shape).reshape(-1, n, n)
    flat = out.reshape(-1, n, n)
    for k in range(fa.shape[0]):
        # vec(A X + X A) = (I kron A + A^T kron I) vec(X), column-major vec
        m = np.kron(ident, fa[k]) + np.kron(fa[k].T, ident)
        flat[k] = np.linalg.solve(m, fc[k].reshape(-1, order="F")).reshape(n, n, order="F")
    return out


op_registry.declare(
    "_SylvesterSolve",
    inputs=["a: T", "c: T"],
    outputs=["x: T"],
    attrs=["T: {double, float, complex64, complex128}"],
    shape=lambda op: [op._inputs[1]._shape],
    kernel=_sylvester_kernel,
    differentiable=False,
    doc="X with A X + X A = C (the MatrixSquareRoot gradient's linear system).",
)
op_registry.declare(
    "MatrixSquareRoot",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: {double, float, half, complex64, complex128}"],
    shape=_square_shape("MatrixSquareRoot"),
    kernel=_sqrtm_kernel,
    grad=_sqrtm_grad,
)


def matrix_exponential(input, name=None):
    """The matrix exponential of square matrices (Pade [13/13] with scaling and squaring)."""
    return ops.apply_op("MatrixExponential", [input], name=name)._outputs[0]


def matrix_logarithm(input, name=None):
    """The principal matrix logarithm of complex square matrices."""
    x = ops.convert_to_tensor(input, name="input")
    if not x.dtype.is_complex:
        raise TypeError(f"logm: input must be complex64 or complex128, got {x.dtype.name}")
    return ops.apply_op("MatrixLogarithm", [x], name=name)._outputs[0]


def matrix_square_root(input, name=None):
    """The principal square root of square matrices (NaN where a real matrix has none)."""
    return ops.apply_op("MatrixSquareRoot", [input], name=name)._outputs[0]


# TF's tf.linalg names for them (the functions keep TF's own __name__, which TF's tests read)
expm, logm, sqrtm = matrix_exponential, matrix_logarithm, matrix_square_root


# ------------------------------------------------------------------------------------------
# functions built on ops
# ------------------------------------------------------------------------------------------


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False,
           name=None):
    """``a @ b`` for matrices ``a [..., m, n]`` and vectors ``b [..., n]``."""
    del a_is_sparse, b_is_sparse
    with ops.name_scope(name, "MatVec", [a, b]):
        a = ops.convert_to_tensor(a, name="a")
        b = ops.convert_to_tensor(b, name="b", dtype=a.dtype)
        out = linalg_ops.matmul(a, array_ops.expand_dims(b, -1), transpose_a=transpose_a,
                                adjoint_a=adjoint_a)
        return array_ops.squeeze(out, axis=[-1])


def pinv(a, rcond=None, validate_args=False, name=None):
    """The Moore-Penrose pseudo-inverse through the SVD; singular values at or below
    ``rcond * max(s)`` (default ``10 * max(m, n) * eps``) count as zero."""
    del validate_args
    with ops.name_scope(name, "pinv", [a, rcond]):
        a = ops.convert_to_tensor(a, name="a")
        if not a.dtype.is_floating and not a.dtype.is_complex:
            raise TypeError(f"pinv: input must be floating point, got {a.dtype.name}")
        real = a.dtype.real_dtype
        if rcond is None:
            shape = array_ops.shape(a)
            big = cast_ops.cast(math_ops.maximum(shape[-2], shape[-1]), real)
            rcond = 10.0 * big * np.finfo(real.as_numpy_dtype).eps
        rcond = ops.convert_to_tensor(rcond, real, name="rcond")
        s, u, v = svd_ops.svd(a, full_matrices=False, compute_uv=True)
        cutoff = rcond * reduction_ops.reduce_max(s, axis=-1, keepdims=True)
        safe = gather_ops.where(s > cutoff, s, array_ops.ones_like(s))
        s_inv = gather_ops.where(s > cutoff, 1.0 / safe, array_ops.zeros_like(s))
        if a.dtype.is_complex:
            s_inv = math_ops.complex(s_inv, array_ops.zeros_like(s_inv))
        return linalg_ops.matmul(v * array_ops.expand_dims(s_inv, -2), u, adjoint_b=True)


def matrix_rank(a, tol=None, validate_args=False, name=None):
    """The number of singular values above ``tol`` (default ``eps * max(m, n) * max(s)``)."""
    del validate_args
    with ops.name_scope(name, "matrix_rank", [a, tol]):
        a = ops.convert_to_tensor(a, name="a")
        s = svd_ops.svd(a, compute_uv=False)
        real = s.dtype
        if tol is None:
            shape = array_ops.shape(a)
            big = cast_ops.cast(math_ops.maximum(shape[-2], shape[-1]), real)
            tol = big * np.finfo(real.as_numpy_dtype).eps * reduction_ops.reduce_max(
                s, axis=-1, keepdims=True)
        else:
            tol = array_ops.expand_dims(ops.convert_to_tensor(tol, real, name="tol"), -1)
        return reduction_ops.reduce_sum(cast_ops.cast(s > tol, dtypes.int32), axis=-1)


def normalize(tensor, ord="euclidean", axis=None, name=None):
    """``(tensor / norm, norm)`` with the norm kept in the reduced dimensions."""
    from tideflow.ops import norm_ops

    with ops.name_scope(name, "normalize", [tensor]):
        tensor = ops.convert_to_tensor(tensor, name="tensor")
        norm = norm_ops.norm(tensor, ord, axis, keepdims=True)
        norm = cast_ops.cast(norm, tensor.dtype)
        return tensor / norm, norm


def _diags_from(diagonals, diagonals_format, what):
    if diagonals_format == "compact":
        d = ops.convert_to_tensor(diagonals, name="diagonals")
        s = d.get_shape()
        if s.ndims is not None and (s.ndims < 2 or s.dims[-2].value not in (None, 3)):
            raise ValueError(f"{what}: compact diagonals must be [..., 3, M], got shape {s}")
        return d[..., 0, :], d[..., 1, :], d[..., 2, :]
    if diagonals_format == "sequence":
        if not isinstance(diagonals, (list, tuple)) or len(diagonals) != 3:
            raise ValueError(f"{what}: 'sequence' diagonals must be a list of 3 tensors")
        sup = ops.convert_to_tensor(diagonals[0], name="superdiag")
        main = ops.convert_to_tensor(diagonals[1], sup.dtype, name="maindiag")
        sub = ops.convert_to_tensor(diagonals[2], sup.dtype, name="subdiag")
        # the off-diagonals may hold M - 1 values (no dummy element): pad them to M
        m = main.get_shape()
        if m.ndims is not None and m.dims[-1].value is not None:
            n = m.dims[-1].value
            zero = array_ops.zeros_like(main[..., :1])
            if sup.get_shape().ndims is not None and sup.get_shape().dims[-1].value == n - 1:
                sup = concat([sup, zero], -1)
            if sub.get_shape().ndims is not None and sub.get_shape().dims[-1].value == n - 1:
                sub = concat([zero, sub], -1)
        return sup, main, sub
    if diagonals_format == "matrix":
        m = ops.convert_to_tensor(diagonals, name="diagonals")
        main = matrix_diag_ops.matrix_diag_part(m)
        sup = matrix_diag_ops.matrix_diag_part(m[..., :-1, 1:])
        sub = matrix_diag_ops.matrix_diag_part(m[..., 1:, :-1])
        zero = array_ops.zeros_like(main[..., :1])
        return concat([sup, zero], -1), main, concat([zero, sub], -1)
    raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")


def _shift(x, up):
    """``x [..., M, K]`` moved one row up (row i takes row i + 1) or down, zero-filled."""
    zero = array_ops.zeros_like(x[..., :1, :])
    return concat([x[..., 1:, :], zero], -2) if up else concat([zero, x[..., :-1, :]], -2)


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """``A @ rhs`` for tridiagonal ``A`` given by its diagonals (superdiagonal's last and
    subdiagonal's first entries are ignored)."""
    with ops.name_scope(name, "tridiagonal_matmul", [diagonals, rhs]):
        sup, main, sub = _diags_from(diagonals, diagonals_format, "tridiagonal_matmul")
        rhs = ops.convert_to_tensor(rhs, name="rhs", dtype=main.dtype)
        return (array_ops.expand_dims(main, -1) * rhs +
                array_ops.expand_dims(sup, -1) * _shift(rhs, True) +
                array_ops.expand_dims(sub, -1) * _shift(rhs, False))


def _dense_tridiagonal(sup, main, sub):
    rank = len(main.get_shape())  # TF 1.15's words where the rank is unknown
    lead = [[0, 0]] * (rank - 1)
    a = matrix_diag_ops.matrix_diag(main)
    a += pad_ops.pad(matrix_diag_ops.matrix_diag(sup[..., :-1]), lead + [[0, 1], [1, 0]])
    a += pad_ops.pad(matrix_diag_ops.matrix_diag(sub[..., 1:]), lead + [[1, 0], [0, 1]])
    return a


def _tridiagonal_static_checks(compact, main, rhs, transpose_rhs):
    """TF 1.15's checks of the compact diagonals (rank of the diagonals, then ``main``'s)
    against the right-hand side, in its words."""
    if compact is not None:
        shape = compact.get_shape()
    else:
        shape = main.get_shape()
        shape = shape[:-1].concatenate([3]).concatenate(shape[-1:]) \
            if shape.ndims is not None else shape
    diags_rank, rhs_rank = len(shape), len(rhs.get_shape())
    if diags_rank < 2:
        raise ValueError(f"Expected diagonals to have rank at least 2, got {diags_rank}")
    if rhs_rank not in (diags_rank, diags_rank - 1):
        raise ValueError(f"Expected the rank of rhs to be {diags_rank - 1} or {diags_rank}, "
                         f"got {rhs_rank}")
    if shape[-2].value and shape[-2].value != 3:
        raise ValueError(f"Expected 3 diagonals got {shape[-2].value}")
    if not shape[:-2].is_compatible_with(rhs.get_shape()[:diags_rank - 2]):
        raise ValueError(f"Batch shapes {shape[:-2]} and {rhs.get_shape()[:diags_rank - 2]} "
                         f"are incompatible")
    m = shape[-1].value
    rows = None
    if rhs_rank == diags_rank - 1:
        rows = rhs.get_shape()[-1].value
    else:
        rows = rhs.get_shape()[-1 if transpose_rhs else -2].value
    if m and rows and m != rows:
        raise ValueError(f"Expected number of left-hand sided and right-hand sides to be "
                         f"equal, got {m} and {rows}")


def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False,
                      conjugate_rhs=False, name=None, partial_pivoting=True,
                      perturb_singular=False):
    """Solves ``A X = rhs`` for tridiagonal ``A`` (compact ``[..., 3, M]``, a sequence of
    three ``[..., M]`` diagonals, or a full matrix), with partial pivoting."""
    del partial_pivoting, perturb_singular
    if diagonals_format == "sequence" and (not isinstance(diagonals, (tuple, list))
                                           or len(diagonals) != 3):
        raise ValueError("Expected diagonals to be a sequence of length 3.")
    if diagonals_format == "matrix":
        d = ops.convert_to_tensor(diagonals, name="diagonals")
        m1, m2 = d.get_shape()[-1].value, d.get_shape()[-2].value
        if m1 and m2 and m1 != m2:
            raise ValueError(f"Expected last two dimensions of diagonals to be same, got {m1} "
                             f"and {m2}")
        if not (m1 or m2):
            raise ValueError('The size of the matrix needs to be known for '
                             'diagonals_format="matrix"')
    with ops.name_scope(name, "tridiagonal_solve", [diagonals, rhs]):
        if diagonals_format == "compact":
            diagonals = ops.convert_to_tensor(diagonals, name="diagonals")
            rhs = ops.convert_to_tensor(rhs, name="rhs", dtype=diagonals.dtype)
            _tridiagonal_static_checks(diagonals, None, rhs, transpose_rhs)
        sup, main, sub = _diags_from(diagonals, diagonals_format, "tridiagonal_solve")
        rhs = ops.convert_to_tensor(rhs, name="rhs", dtype=main.dtype)
        if diagonals_format != "compact":
            _tridiagonal_static_checks(None, main, rhs, transpose_rhs)
        # a right-hand side [..., M] (one rank less than the matrices) is one vector, for which
        # transpose_rhs changes nothing; [..., K, M] with transpose_rhs gives [..., K, M]
        vector = rhs.get_shape().ndims is not None and rhs.get_shape().ndims == main.get_shape(
            ).ndims
        if vector:
            rhs = array_ops.expand_dims(rhs, -1)
        elif transpose_rhs:
            rhs = linalg_extra_ops.matrix_transpose(rhs)
        if conjugate_rhs:
            rhs = math_ops.conj(rhs)
        x = linalg_ops.matrix_solve(_dense_tridiagonal(sup, main, sub), rhs)
        if vector:
            return array_ops.squeeze(x, [-1])
        return linalg_extra_ops.matrix_transpose(x) if transpose_rhs else x


def eigh_tridiagonal(alpha, beta, eigvals_only=True, select="a", select_range=None, tol=None,
                     name=None):
    """Eigenvalues (ascending; and eigenvectors unless ``eigvals_only``) of the Hermitian
    tridiagonal matrix with diagonal ``alpha`` and off-diagonal ``beta``; ``select`` 'a' all,
    'v' those in ``select_range = (lo, hi]``, 'i' indices ``[lo, hi]``."""
    del tol
    with ops.name_scope(name, "eigh_tridiagonal", [alpha, beta]):
        alpha = ops.convert_to_tensor(alpha, name="alpha")
        beta = ops.convert_to_tensor(beta, name="beta", dtype=alpha.dtype)
        if alpha.get_shape().ndims not in (None, 1) or beta.get_shape().ndims not in (None, 1):
            raise ValueError("eigh_tridiagonal: alpha and beta must be vectors")
        zero = array_ops.zeros_like(alpha[:1])
        sup = concat([beta, zero], 0)
        sub = concat([zero, math_ops.conj(beta) if beta.dtype.is_complex else beta], 0)
        a = _dense_tridiagonal(sup, alpha, sub)
        if select not in ("a", "v", "i"):
            raise ValueError(f"select must be 'a', 'v' or 'i', got {select!r}")
        if eigvals_only:
            w = linalg_extra_ops.self_adjoint_eigvals(a)
            v = None
        else:
            w, v = linalg_extra_ops.self_adjoint_eig(a)
        if select == "a":
            return w if eigvals_only else (w, v)
        lo, hi = select_range
        if select == "v":
            keep = math_ops.logical_and(w > lo, w <= hi)
        else:
            idx = range_ops.range(array_ops.shape(w)[0])
            keep = math_ops.logical_and(idx >= lo, idx <= hi)
        where = array_ops.reshape(gather_ops.where(keep), [-1])
        w = gather_ops.gather(w, where)
        if eigvals_only:
            return w
        return w, gather_ops.gather(v, where, axis=1)
