"""Svd: the singular value decomposition of the innermost matrices (``tf.svd``,
``tf.linalg.svd``), with its gradient through ``s``, ``u`` and ``v``."""

import numpy as np

from tideflow.framework import errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import matrix_diag_ops
from tideflow.ops.array_ops import _in, _np, _shape_str
from tideflow.ops.gradients import dense

_HALF = (np.dtype(np.float16),)


def _svd_shape(op):
    x = _in(op, 0)
    if x.ndims is not None and x.ndims < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {x.ndims}")
    uv, full = op._attrs["compute_uv"], op._attrs["full_matrices"]
    if x.ndims is None:
        none = TensorShape(None)
        return [none, none, none] if uv else [none, TensorShape([0]), TensorShape([0])]
    d = x.as_list()
    batch, m, n = d[:-2], d[-2], d[-1]
    p = None if m is None or n is None else min(m, n)
    s = TensorShape(batch + [p])
    if not uv:
        return [s, TensorShape([0]), TensorShape([0])]
    return [s, TensorShape(batch + [m, m if full else p]),
            TensorShape(batch + [n, n if full else p])]


def _svd_kernel(input, *, compute_uv, full_matrices):
    x = _np(input)
    if x.ndim < 2:
        raise errors.InvalidArgumentError(
            None, None, f"Svd: input must have rank >= 2, got shape {_shape_str(x.shape)}")
    wide = x.astype(np.float32) if x.dtype in _HALF else x
    empty = np.zeros([0], x.dtype)
    rows, cols = wide.shape[-2:]
    if (wide.dtype.kind == "f" and 0 < cols < 16 and 0 < wide.size <= 1 << 20
            and wide.size // rows * cols <= 1 << 14):
        # TF's own steps (BDCSVD hands matrices under 16 columns to Eigen's Jacobi SVD), for
        # its singular vectors' signs, and for its values with or without the vectors
        from tideflow.kernels import jacobi_svd

        triples = [jacobi_svd.svd(m, wide.dtype, full_matrices and compute_uv)
                   for m in wide.reshape((-1, rows, cols))]
        batch = wide.shape[:-2]
        s, u, v = (np.stack([t[i] for t in triples]) for i in range(3))
        s, u, v = (t.reshape(batch + t.shape[1:]) for t in (s, u, v))
        if not compute_uv:
            return s.astype(x.dtype), empty, empty
        return s.astype(x.dtype), u.astype(x.dtype), v.astype(x.dtype)
    try:
        if not compute_uv:
            return np.linalg.svd(wide, compute_uv=False).astype(x.dtype), empty, empty
        u, s, vh = np.linalg.svd(wide, full_matrices=full_matrices)
    except np.linalg.LinAlgError:
        # Eigen's SVD never fails: TF 1.15 gives NaNs for a NaN input, where LAPACK gives up
        p = min(rows, cols)
        s = np.full(wide.shape[:-2] + (p,), np.nan, x.dtype)
        if not compute_uv:
            return s, empty, empty
        ku, kv = (rows, cols) if full_matrices else (p, p)
        return (s, np.full(wide.shape[:-2] + (rows, ku), np.nan, x.dtype),
                np.full(wide.shape[:-2] + (cols, kv), np.nan, x.dtype))
    v = np.conj(np.swapaxes(vh, -1, -2))
    return s.astype(x.dtype), u.astype(x.dtype), v.astype(x.dtype)


def _svd_grad(op, grad_s, grad_u, grad_v):
    from tideflow.ops import cast_ops, fill_ops, linalg_ops

    a = op._inputs[0]
    grad_s = cast_ops.cast(dense(grad_s), a.dtype) if grad_s is not None else None
    if not op._attrs["compute_uv"]:
        _, u, v = svd(a, full_matrices=False, compute_uv=True)
        return linalg_ops.matmul(linalg_ops.matmul(u, matrix_diag_ops.matrix_diag(grad_s)), v,
                                 adjoint_b=True)
    shape = a.get_shape()
    m, n = (shape.dims[-2].value, shape.dims[-1].value) if shape.ndims else (None, None)
    if m is None or n is None:
        raise NotImplementedError("SVD gradient has not been implemented for input with "
                                  "unknown inner matrix shape.")
    full = op._attrs["full_matrices"]
    if full and abs(m - n) > 1:
        raise NotImplementedError("svd gradient is not implemented for abs(m - n) > 1 when "
                                  "full_matrices is True")
    s, u, v = op._outputs
    grad_u = fill_ops.zeros_like(u) if grad_u is None else dense(grad_u)
    grad_v = fill_ops.zeros_like(v) if grad_v is None else dense(grad_v)
    if grad_s is None:
        grad_s = fill_ops.zeros_like(s)
    transposed = m > n
    if transposed:  # differentiate A^T = V S U^T instead, so that u is the square side
        m, n, u, v, grad_u, grad_v = n, m, v, u, grad_v, grad_u
    k = m  # the number of singular values
    u, grad_u = u[..., :, :k], grad_u[..., :, :k]
    v1, grad_v1 = v[..., :, :k], grad_v[..., :, :k]
    return _svd_grad_wide(s, u, v, v1, grad_s, grad_u, grad_v, grad_v1, m, n, full, transposed)


def _svd_grad_wide(s, u, v, v1, grad_s, grad_u, grad_v, grad_v1, m, n, full, transposed):
    """dL/dA for A = U diag(s) V1^T with A m x n, m <= n (V1 the first m columns of V)."""
    from tideflow.ops import array_ops, fill_ops, linalg_extra_ops, linalg_ops, math_ops

    mm = linalg_ops.matmul
    diag = matrix_diag_ops.matrix_diag
    s2 = math_ops.square(s)
    # F[i, j] = 1 / (s_j^2 - s_i^2) off the diagonal: how rotating the singular vectors i
    # and j into each other moves the loss (infinite where singular values repeat)
    gaps = array_ops.expand_dims(s2, -2) - array_ops.expand_dims(s2, -1)
    f = matrix_diag_ops.matrix_set_diag(math_ops.reciprocal(gaps), fill_ops.zeros_like(s))
    j = f * mm(u, grad_u, adjoint_a=True)
    k = f * mm(v1, grad_v1, adjoint_a=True)
    s_mat = diag(s)
    inner = (diag(grad_s) + mm(j + linalg_extra_ops.adjoint(j), s_mat)
             + mm(s_mat, k + linalg_extra_ops.adjoint(k)))
    grad_a = mm(u, mm(inner, v1, adjoint_b=True))
    if m != n:
        # the part of grad_v1 outside V1's span (and, with the full V, grad_v2 along V2)
        g1t = linalg_extra_ops.adjoint(grad_v1)
        rest = g1t - mm(mm(g1t, v1), v1, adjoint_b=True)
        if full:
            v2, grad_v2 = v[..., :, m:n], grad_v[..., :, m:n]
            rest = rest - mm(mm(v1, grad_v2, adjoint_a=True), v2, adjoint_b=True)
        # 1/s, kept finite where a singular value is zero
        s_inv = s * math_ops.reciprocal(s2 + 1e-20)
        grad_a = grad_a + mm(mm(u, diag(s_inv)), rest)
    if s.dtype.is_complex:
        # complex singular vectors are free up to a phase each: the imaginary diagonal of
        # V1^H grad_v1 moves the loss through that phase
        s_inv = s * math_ops.reciprocal(s2 + 1e-20)
        d = matrix_diag_ops.matrix_diag_part(mm(v1, grad_v1, adjoint_a=True))
        phase = diag(s_inv * (math_ops.conj(d) - d))
        grad_a = grad_a + 0.5 * mm(u, mm(phase, v1, adjoint_b=True))
    return linalg_extra_ops.adjoint(grad_a) if transposed else grad_a


op_registry.declare(
    "Svd",
    inputs=["input: T"],
    outputs=["s: T", "u: T", "v: T"],
    attrs=["compute_uv: bool = true", "full_matrices: bool = false",
           "T: {double, float, half, complex64, complex128}"],
    shape=_svd_shape,
    kernel=_svd_kernel,
    grad=_svd_grad,
)


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """The singular values ``s`` of ``tensor``'s innermost matrices (descending) and, with
    ``compute_uv``, ``u`` and ``v`` such that ``tensor = u @ diag(s) @ adjoint(v)``; returns
    ``s, u, v`` or just ``s``."""
    op = ops.apply_op("Svd", [tensor], {"compute_uv": compute_uv,
                                        "full_matrices": full_matrices}, name=name)
    s, u, v = op._outputs
    if s.dtype.is_complex:  # singular values are real: TF returns real(s)
        from tideflow.ops import math_ops

        s = math_ops.real(s)
    return (s, u, v) if compute_uv else s
