"""Svd: the singular value decomposition of the innermost matrices (``tf.svd``,
``tf.linalg.svd``); its gradient covers the singular values (what ``tf.norm``'s matrix 2-norm
needs), not ``u``/``v``."""

import numpy as np

from tideflow.framework import errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops.array_ops import _in, _np, _shape_str
from tideflow.ops.gradients import dense

_HALF = (np.dtype(np.float16),)


def _svd_shape(op):
    x = _in(op, 0)
    if x.ndims is not None and x.ndims < 2:
        raise ValueError(f"Svd: shape must be at least rank 2 but is rank {x.ndims} (input "
                         f"shape {_shape_str(x)})")
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
    if not compute_uv:
        s = np.linalg.svd(wide, compute_uv=False)
        empty = np.zeros([0], x.dtype)
        return s.astype(x.dtype), empty, empty
    u, s, vh = np.linalg.svd(wide, full_matrices=full_matrices)
    v = np.conj(np.swapaxes(vh, -1, -2))
    return s.astype(x.dtype), u.astype(x.dtype), v.astype(x.dtype)


def _svd_grad(op, grad_s, grad_u, grad_v):
    from tideflow.ops import linalg_ops, matrix_diag_ops

    if op._attrs["compute_uv"] and (grad_u is not None or grad_v is not None):
        raise NotImplementedError(
            "Svd: the gradient with respect to u and v is not implemented (only the singular "
            "values' gradient is)")
    a = op._inputs[0]
    if op._attrs["compute_uv"] and not op._attrs["full_matrices"]:
        u, v = op._outputs[1], op._outputs[2]
    else:
        _, u, v = svd(a, full_matrices=False, compute_uv=True)
    g = matrix_diag_ops.matrix_diag(dense(grad_s))
    return [linalg_ops.matmul(linalg_ops.matmul(u, g), v, adjoint_b=True)]


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
    return (s, u, v) if compute_uv else s
