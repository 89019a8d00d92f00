"""Diagonals: MatrixDiag, MatrixDiagPart, MatrixSetDiag (batched, innermost two dims), Diag and
DiagPart (the rank-doubling forms), and ``trace`` (a reduce_sum of matrix_diag_part, as TF)."""

import numpy as np

from tideflow.framework import op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops.array_ops import _in, _invalid, _np, _register_fold, _shape_str
from tideflow.ops.gradients import dense

_DIAG_T = "T: {bfloat16, half, float, double, int32, int64, complex64, complex128}"


def _at_least(s, rank, op_name):
    if s.ndims is not None and s.ndims < rank:
        raise ValueError(f"{op_name}: shape must be at least rank {rank} but is rank {s.ndims} "
                         f"(input shape {_shape_str(s)})")


def _min_dim(a, b):
    if a is not None and b is not None:
        return min(a, b)
    return None


# ------------------------------------------------------------------------------------------
# MatrixDiag, MatrixDiagPart, MatrixSetDiag
# ------------------------------------------------------------------------------------------


def _matrix_diag_shape(op):
    s = _in(op, 0)
    _at_least(s, 1, "MatrixDiag")
    if s.ndims is None:
        return [TensorShape(None)]
    return [TensorShape(s.as_list() + [s.as_list()[-1]])]


def _matrix_diag_kernel(diagonal):
    d = _np(diagonal)
    if d.ndim < 1:
        raise _invalid(f"MatrixDiag: input must be at least 1-dim, received shape: "
                       f"{_shape_str(d.shape)}")
    n = d.shape[-1]
    out = np.zeros(d.shape + (n,), dtype=d.dtype)
    i = np.arange(n)
    out[..., i, i] = d
    return out


def _matrix_diag_part_shape(op):
    s = _in(op, 0)
    _at_least(s, 2, "MatrixDiagPart")
    if s.ndims is None:
        return [TensorShape(None)]
    d = s.as_list()
    return [TensorShape(d[:-2] + [_min_dim(d[-2], d[-1])])]


def _matrix_diag_part_kernel(input):
    x = _np(input)
    if x.ndim < 2:
        raise _invalid(f"MatrixDiagPart: input must be at least 2-dim, received shape: "
                       f"{_shape_str(x.shape)}")
    return np.diagonal(x, axis1=-2, axis2=-1).copy()


def _set_diag_check(x, d, err):
    """The MatrixSetDiag shapes' check; returns the output's static shape."""
    _at_least(x, 2, "MatrixSetDiag")
    _at_least(d, 1, "MatrixSetDiag")
    if x.ndims is None or d.ndims is None:
        return x
    xs, ds = x.as_list(), d.as_list()
    want = xs[:-2] + [_min_dim(xs[-2], xs[-1])]
    if len(ds) != len(want) or any(a is not None and b is not None and a != b
                                   for a, b in zip(ds, want)):
        raise err(
            f"MatrixSetDiag: must have diagonal.shape == input.shape[:-2] + "
            f"[min(input.shape[-2:])], but received input shape: {_shape_str(xs)} and "
            f"diagonal shape: {_shape_str(ds)}")
    batch = [a if a is not None else b for a, b in zip(xs[:-2], ds[:-1])]
    return TensorShape(batch + xs[-2:])


def _matrix_set_diag_shape(op):
    return [_set_diag_check(_in(op, 0), _in(op, 1), ValueError)]


def _matrix_set_diag_kernel(input, diagonal):
    x, d = _np(input), _np(diagonal)
    if x.ndim < 2:
        raise _invalid(f"MatrixSetDiag: input must be at least 2-dim, received shape: "
                       f"{_shape_str(x.shape)}")
    _set_diag_check(TensorShape(x.shape), TensorShape(d.shape), _invalid)
    out = x.copy()
    i = np.arange(min(x.shape[-2:]))
    out[..., i, i] = d
    return out


def _matrix_diag_grad(op, grad):
    return [matrix_diag_part(dense(grad))]


def _matrix_diag_part_grad(op, grad):
    from tideflow.ops.fill_ops import zeros_like

    m = op._inputs[0]._shape
    if m.ndims is not None and m[-2:].is_fully_defined() and m.as_list()[-2] == m.as_list()[-1]:
        return [matrix_diag(dense(grad))]
    return [matrix_set_diag(zeros_like(op._inputs[0]), dense(grad))]


def _matrix_set_diag_grad(op, grad):
    from tideflow.ops.fill_ops import zeros_like

    grad = dense(grad)
    return [matrix_set_diag(grad, zeros_like(op._inputs[1])), matrix_diag_part(grad)]


op_registry.declare(
    "MatrixDiag",
    inputs=["diagonal: T"],
    outputs=["output: T"],
    attrs=["T: type"],
    shape=_matrix_diag_shape,
    kernel=_matrix_diag_kernel,
    grad=_matrix_diag_grad,
)

op_registry.declare(
    "MatrixDiagPart",
    inputs=["input: T"],
    outputs=["diagonal: T"],
    attrs=["T: type"],
    shape=_matrix_diag_part_shape,
    kernel=_matrix_diag_part_kernel,
    grad=_matrix_diag_part_grad,
)

op_registry.declare(
    "MatrixSetDiag",
    inputs=["input: T", "diagonal: T"],
    outputs=["output: T"],
    attrs=["T: type"],
    shape=_matrix_set_diag_shape,
    kernel=_matrix_set_diag_kernel,
    grad=_matrix_set_diag_grad,
)


def matrix_diag(diagonal, name=None):
    """A batch of diagonal matrices with ``diagonal``'s innermost dimension on the diagonal."""
    return ops.apply_op("MatrixDiag", [diagonal], name=name)._outputs[0]


def matrix_diag_part(input, name=None):
    """The main diagonals of the innermost matrices of ``input``."""
    return ops.apply_op("MatrixDiagPart", [input], name=name)._outputs[0]


def matrix_set_diag(input, diagonal, name=None):
    """``input`` with the main diagonals of its innermost matrices replaced by ``diagonal``."""
    return ops.apply_op("MatrixSetDiag", [input, diagonal], name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# Diag, DiagPart
# ------------------------------------------------------------------------------------------


def _diag_shape(op):
    s = _in(op, 0)
    if s.ndims is None:
        return [TensorShape(None)]
    if s.ndims < 1:
        raise ValueError(f"Diag: shape must be at least rank 1 but is rank 0 (input shape "
                         f"{_shape_str(s)})")
    return [TensorShape(s.as_list() * 2)]


def _diag_kernel(diagonal):
    d = _np(diagonal)
    if d.ndim < 1:
        raise _invalid(f"Diag: input must be at least rank 1, got 0 (shape "
                       f"{_shape_str(d.shape)})")
    return np.diag(d.ravel()).reshape(d.shape * 2)


def _diag_part_check(dims, err):
    if dims is None:
        return None
    if len(dims) == 0 or len(dims) % 2:
        raise err(f"DiagPart: the rank of the input should be even and positive, got shape "
                  f"{_shape_str(dims)}")
    r = len(dims) // 2
    for i in range(r):
        a, b = dims[i], dims[i + r]
        if a is not None and b is not None and a != b:
            raise err(f"DiagPart: invalid input shape {_shape_str(dims)}: dimensions {i} and "
                      f"{i + r} do not match ({a} vs. {b})")
    return [a if a is not None else b for a, b in zip(dims[:r], dims[r:])]


def _diag_part_shape(op):
    s = _in(op, 0)
    return [TensorShape(_diag_part_check(None if s.ndims is None else s.as_list(), ValueError))]


def _diag_part_kernel(input):
    x = _np(input)
    out = _diag_part_check(list(x.shape), _invalid)
    n = int(np.prod(out))
    return np.diagonal(x.reshape(n, n)).reshape(out).copy()


def _diag_grad(op, grad):
    return [diag_part(dense(grad))]


def _diag_part_grad(op, grad):
    return [diag(dense(grad))]


op_registry.declare(
    "Diag",
    inputs=["diagonal: T"],
    outputs=["output: T"],
    attrs=[_DIAG_T],
    shape=_diag_shape,
    kernel=_diag_kernel,
    grad=_diag_grad,
)

op_registry.declare(
    "DiagPart",
    inputs=["input: T"],
    outputs=["diagonal: T"],
    attrs=[_DIAG_T],
    shape=_diag_part_shape,
    kernel=_diag_part_kernel,
    grad=_diag_part_grad,
)

_register_fold("MatrixDiag", "MatrixDiagPart", "MatrixSetDiag", "Diag", "DiagPart")


def diag(diagonal, name=None):
    """The tensor of rank ``2k`` with ``diagonal`` (rank ``k``) on its diagonal."""
    return ops.apply_op("Diag", [diagonal], name=name)._outputs[0]


def diag_part(input, name=None):
    """The diagonal of ``input`` (rank ``2k``): ``out[i..] = input[i.., i..]``."""
    return ops.apply_op("DiagPart", [input], name=name)._outputs[0]


def trace(x, name=None):
    """The sum of the main diagonals of ``x``'s innermost matrices."""
    from tideflow.ops.reduction_ops import reduce_sum

    with ops.name_scope(name, "Trace", [x]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        return reduce_sum(matrix_diag_part(x), [-1], name=scope)
