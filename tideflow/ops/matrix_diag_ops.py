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
        raise ValueError(f"Shape must be at least rank {rank} but is rank {s.ndims}")


def _min_dim(a, b):
    # TF's InferenceContext::Min: a known 0 wins over an unknown dimension
    if a == 0 or b == 0:
        return 0
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
        raise _invalid(f"diagonal must be at least 1-dim, received shape: "
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
        raise _invalid(f"input must be at least 2-dim, received shape: "
                       f"{_shape_str(x.shape)}")
    return np.diagonal(x, axis1=-2, axis2=-1).copy()


def _set_diag_static_shape(x, d):
    """TF 1.15's shape function: the diagonal's rank and length, then the diagonal's batch
    dimensions merged into an input shape that is not fully known."""
    if x.ndims is not None and d.ndims is not None:
        xs, ds = x.as_list(), d.as_list()
        if len(ds) != len(xs) - 1:
            raise ValueError(f"Shape must be rank {len(xs) - 1} but is rank {len(ds)}")
        smallest = _min_dim(xs[-2], xs[-1])
        if smallest is not None and ds[-1] is not None and smallest != ds[-1]:
            raise ValueError(f"Dimensions must be equal, but are {smallest} and {ds[-1]}")
    if d.ndims is None or x.is_fully_defined():
        return x
    guess = TensorShape(d.as_list()[:-1] + [None, None])
    if x.ndims is None:
        return guess
    for i, (a, b) in enumerate(zip(x.as_list(), guess.as_list())):
        if a is not None and b is not None and a != b:
            raise ValueError(f"Dimension {i} in both shapes must be equal, but are {a} and "
                             f"{b}. Shapes are {_shape_str(x.as_list())} and "
                             f"{_shape_str(guess.as_list())}.")
    return x.merge_with(guess)


def _set_diag_check(x, d, err):
    """The MatrixSetDiag shapes' check; returns the output's static shape."""
    _at_least(x, 2, "MatrixSetDiag")
    _at_least(d, 1, "MatrixSetDiag")
    if err is ValueError:
        return _set_diag_static_shape(x, d)
    if x.ndims is None or d.ndims is None:
        return x
    xs, ds = x.as_list(), d.as_list()
    want = xs[:-2] + [_min_dim(xs[-2], xs[-1])]
    if len(ds) != len(want) or any(a is not None and b is not None and a != b
                                   for a, b in zip(ds, want)):
        raise err("Either first dimensions of diagonal don't match input.shape[:-2], or "
                  "diagonal.shape[:-1] is not equal to the longests diagonal in range "
                  "[lower_diag_index:upper_diag_index].")
    return x


def _matrix_set_diag_shape(op):
    return [_set_diag_check(_in(op, 0), _in(op, 1), ValueError)]


def _matrix_set_diag_kernel(input, diagonal):
    x, d = _np(input), _np(diagonal)
    if x.ndim < 2:
        raise _invalid(f"input must be at least 2-dim, received shape: "
                       f"{_shape_str(x.shape)}")
    if d.ndim < 1:
        raise _invalid(f"diagonal must be at least 1-dim, received shape: "
                       f"{_shape_str(d.shape)}")
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
    # TF 1.15's: zeros of the diagonal's shape, known statically or computed from grad's
    from tideflow.ops import array_ops, concat_ops, fill_ops, reduction_ops

    grad = dense(grad)
    input_shape = op._inputs[0].get_shape().merge_with(grad.get_shape())
    batch_shape = input_shape[:-2].merge_with(op._inputs[1].get_shape()[:-1])
    matrix_shape = input_shape[-2:]
    if batch_shape.is_fully_defined() and matrix_shape.is_fully_defined():
        diag_shape = batch_shape.as_list() + [min(matrix_shape.as_list())]
    else:
        with ops.colocate_with(grad):
            grad_shape = array_ops.shape(grad)
            grad_rank = array_ops.rank(grad)
            batch = array_ops.slice(grad_shape, [0], [grad_rank - 2])
            matrix = array_ops.slice(grad_shape, [grad_rank - 2], [2])
            diag_shape = concat_ops.concat([batch, [reduction_ops.reduce_min(matrix)]], 0)
    zeros = fill_ops.zeros(diag_shape, dtype=grad.dtype)
    return [matrix_set_diag(grad, zeros), matrix_diag_part(grad)]


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


# ------------------------------------------------------------------------------------------
# MatrixDiagV2, MatrixDiagPartV2, MatrixSetDiagV2: a band of diagonals k = (k0, k1)
# ------------------------------------------------------------------------------------------
# Diagonal d of an M x N matrix holds the entries (i, i + d); its length is
# min(M + min(d, 0), N - max(d, 0)). A band k0 <= d <= k1 is packed as rows k1, k1 - 1, ..., k0
# (one row without a band), each row left-aligned and padded on the right to the longest.


def _band(k, what):
    """(k0, k1) from a scalar or pair ``k`` (a constant array)."""
    k = np.asarray(k).reshape(-1)
    if k.size < 1 or k.size > 2:
        raise what(f"diag_index must have only one or two elements, received {k.size} "
                   f"elements.")
    k0, k1 = int(k[0]), int(k[-1])
    if k0 > k1:
        raise what(f"lower_diag_index must not be larger than upper_diag_index: {k0} > {k1}")
    return k0, k1


def _band_len(m, n, k0, k1):
    return min(m + min(k1, 0), n - max(k0, 0))


def _const(op, i):
    return ops.constant_value(op._inputs[i])


def _band_index(m, n, k0, k1):
    """For each (i, j) of an m x n matrix: in the band, its row in the packed diagonals, and
    its place along its diagonal."""
    i = np.arange(m)[:, None]
    j = np.arange(n)[None, :]
    d = j - i
    return (d >= k0) & (d <= k1), k1 - d, np.minimum(i, j)


def _packed(diagonal, k0, k1, what):
    """``diagonal`` with its band dimension (added for a single diagonal) checked."""
    d = _np(diagonal)
    if k0 == k1:
        if d.ndim < 1:
            raise _invalid(f"diagonal must be at least 1-dim, received shape: "
                           f"{_shape_str(d.shape)}")
        return d[..., None, :]
    if d.ndim < 2 or d.shape[-2] != k1 - k0 + 1:
        raise _invalid(f"{what}: the number of diagonals provided in the input does not match "
                       f"the lower_diag_index and upper_diag_index range; diagonal shape "
                       f"{_shape_str(d.shape)}, k = ({k0}, {k1})")
    return d


def _diag_size(max_len, k0, k1, num_rows, num_cols):
    min_rows = max_len - min(k1, 0)
    min_cols = max_len + max(k0, 0)
    if num_rows == -1 and num_cols == -1:
        num_rows = num_cols = max(min_rows, min_cols)
    elif num_rows == -1:
        num_rows = min_rows
    elif num_cols == -1:
        num_cols = min_cols
    return num_rows, num_cols, min_rows, min_cols


def _matrix_diag_v2_kernel(diagonal, k, num_rows, num_cols, padding_value):
    k0, k1 = _band(k, _invalid)
    d = _packed(diagonal, k0, k1, "MatrixDiagV2")
    max_len = d.shape[-1]
    m, n, min_rows, min_cols = _diag_size(max_len, k0, k1, int(num_rows), int(num_cols))
    if m < min_rows or n < min_cols or (m != min_rows and n != min_cols):
        raise _invalid(f"The number of rows or columns is not consistent with the specified "
                       f"d_lower, d_upper, and diagonal: num_rows {m}, num_cols {n}, "
                       f"k = ({k0}, {k1}), diagonal length {max_len}")
    band, row, pos = _band_index(m, n, k0, k1)
    pos = np.minimum(pos, max_len - 1) if max_len else pos
    values = d[..., np.clip(row, 0, d.shape[-2] - 1), pos] if d.size else np.zeros(
        d.shape[:-2] + (m, n), d.dtype)
    return np.where(band, values, np.asarray(padding_value, d.dtype))


def _matrix_diag_part_v2_kernel(input, k, padding_value):
    x = _np(input)
    if x.ndim < 2:
        raise _invalid(f"input must be at least 2-dim, received shape: {_shape_str(x.shape)}")
    m, n = x.shape[-2:]
    k0, k1 = _band(k, _invalid)
    if (k0 <= -m and m) or (k1 >= n and n):
        raise _invalid(f"The diagonal index is out of bound: k = ({k0}, {k1}) for a "
                       f"{m} x {n} matrix")
    max_len = max(_band_len(m, n, k0, k1), 0)
    d = k1 - np.arange(k1 - k0 + 1)[:, None]
    j = np.arange(max_len)[None, :]
    rows, cols = j - np.minimum(d, 0), j + np.maximum(d, 0)
    inside = (rows < m) & (cols < n)
    if x.size:
        out = np.where(inside, x[..., np.minimum(rows, m - 1), np.minimum(cols, n - 1)],
                       np.asarray(padding_value, x.dtype))
    else:
        out = np.full(x.shape[:-2] + inside.shape, padding_value, x.dtype)
    return out[..., 0, :] if k0 == k1 else out


def _matrix_set_diag_v2_kernel(input, diagonal, k):
    x = _np(input)
    if x.ndim < 2:
        raise _invalid(f"input must be at least 2-dim, received shape: {_shape_str(x.shape)}")
    k0, k1 = _band(k, _invalid)
    d = _packed(diagonal, k0, k1, "MatrixSetDiagV2")
    m, n = x.shape[-2:]
    max_len = max(_band_len(m, n, k0, k1), 0)
    if d.shape[:-2] != x.shape[:-2] or d.shape[-1] != max_len:
        raise _invalid(f"first dimensions of diagonal don't match input: diagonal shape "
                       f"{_shape_str(_np(diagonal).shape)}, input shape {_shape_str(x.shape)}, "
                       f"k = ({k0}, {k1})")
    band, row, pos = _band_index(m, n, k0, k1)
    if not x.size:
        return x.copy()
    values = d[..., np.clip(row, 0, d.shape[-2] - 1), np.minimum(pos, max(max_len - 1, 0))]
    return np.where(band, values, x)


def _static_band(op, index):
    k = _const(op, index)
    return None if k is None else _band(k, ValueError)


def _matrix_diag_v2_shape(op):
    s = _in(op, 0)
    _at_least(s, 1, "MatrixDiagV2")
    band = _static_band(op, 1)
    num_rows, num_cols = _const(op, 2), _const(op, 3)
    if band is None or s.ndims is None:
        return [TensorShape(None)]
    k0, k1 = band
    dims = s.as_list()
    if k0 != k1:
        _at_least(s, 2, "MatrixDiagV2")
        if dims[-2] is not None and dims[-2] != k1 - k0 + 1:
            raise ValueError(f"The number of diagonals provided in the input does not match "
                             f"the lower_diag_index and upper_diag_index range: "
                             f"{dims[-2]} vs. {k1 - k0 + 1}")
        batch = dims[:-2]
    else:
        batch = dims[:-1]
    if dims[-1] is None or num_rows is None or num_cols is None:
        return [TensorShape(batch + [None, None])]
    m, n, _, _ = _diag_size(dims[-1], k0, k1, int(num_rows), int(num_cols))
    return [TensorShape(batch + [m, n])]


def _matrix_diag_part_v2_shape(op):
    s = _in(op, 0)
    _at_least(s, 2, "MatrixDiagPartV2")
    band = _static_band(op, 1)
    if s.ndims is None:
        return [TensorShape(None)]
    dims = s.as_list()
    if band is None:
        return [TensorShape(None)]
    k0, k1 = band
    m, n = dims[-2:]
    if (m is not None and k0 <= -m and m) or (n is not None and k1 >= n and n):
        raise ValueError(f"The diagonal index is out of bound: k = ({k0}, {k1}) for a "
                         f"{m} x {n} matrix")
    length = None if m is None or n is None else max(_band_len(m, n, k0, k1), 0)
    return [TensorShape(dims[:-2] + ([] if k0 == k1 else [k1 - k0 + 1]) + [length])]


def _matrix_set_diag_v2_shape(op):
    x, d = _in(op, 0), _in(op, 1)
    _at_least(x, 2, "MatrixSetDiagV2")
    _at_least(d, 1, "MatrixSetDiagV2")
    band = _static_band(op, 2)
    if x.ndims is None or d.ndims is None or band is None:
        return [x]
    k0, k1 = band
    nb = x.ndims - 2
    if d.ndims != nb + (1 if k0 == k1 else 2):
        raise ValueError(f"Shapes must be equal rank, but are {d.ndims} and "
                         f"{nb + (1 if k0 == k1 else 2)}")
    batch = x.dims[:-2]
    try:
        batch = [a.merge_with(b) for a, b in zip(batch, d.dims[:nb])]
    except ValueError:
        raise ValueError(f"Dimensions must be equal: input shape {_shape_str(x)}, diagonal "
                         f"shape {_shape_str(d)}") from None
    return [TensorShape(batch + x.dims[-2:])]


def _matrix_diag_v2_grad(op, grad):
    return [_diag_part_v2(dense(grad), op._inputs[1], 0), None, None, None, None]


def _matrix_diag_part_v2_grad(op, grad):
    from tideflow.ops.fill_ops import zeros_like

    return [_set_diag_v2(zeros_like(op._inputs[0]), dense(grad), op._inputs[1]), None, None]


def _matrix_set_diag_v2_grad(op, grad):
    from tideflow.ops.fill_ops import zeros_like

    grad = dense(grad)
    k = op._inputs[2]
    return [_set_diag_v2(grad, zeros_like(op._inputs[1]), k), _diag_part_v2(grad, k, 0), None]


_INDEX = "T: type"
op_registry.declare(
    "MatrixDiagV2",
    inputs=["diagonal: T", "k: int32", "num_rows: int32", "num_cols: int32",
            "padding_value: T"],
    outputs=["output: T"],
    attrs=[_INDEX],
    shape=_matrix_diag_v2_shape,
    kernel=_matrix_diag_v2_kernel,
    grad=_matrix_diag_v2_grad,
)
op_registry.declare(
    "MatrixDiagPartV2",
    inputs=["input: T", "k: int32", "padding_value: T"],
    outputs=["diagonal: T"],
    attrs=[_INDEX],
    shape=_matrix_diag_part_v2_shape,
    kernel=_matrix_diag_part_v2_kernel,
    grad=_matrix_diag_part_v2_grad,
)
op_registry.declare(
    "MatrixSetDiagV2",
    inputs=["input: T", "diagonal: T", "k: int32"],
    outputs=["output: T"],
    attrs=[_INDEX],
    shape=_matrix_set_diag_v2_shape,
    kernel=_matrix_set_diag_v2_kernel,
    grad=_matrix_set_diag_v2_grad,
)


def _padding(x, padding_value):
    x = ops.convert_to_tensor(x)
    value = bool(padding_value) if x.dtype.base_dtype.name == "bool" else padding_value
    return x, ops.convert_to_tensor(value, dtype=x.dtype.base_dtype, name="padding_value")


def _k(k):
    from tideflow.framework import dtypes

    return ops.convert_to_tensor(k, dtype=dtypes.int32, name="k")


def _diag_part_v2(x, k, padding_value, name=None):
    x, pad = _padding(x, padding_value)
    return ops.apply_op("MatrixDiagPartV2", [x, _k(k), pad], name=name)._outputs[0]


def _set_diag_v2(x, diagonal, k, name=None):
    return ops.apply_op("MatrixSetDiagV2", [x, diagonal, _k(k)], name=name)._outputs[0]


def _is_default(value, default):
    return not isinstance(value, ops.Tensor) and np.array_equal(np.asarray(value), default)


def _v2_ops():
    # TF 1.15 builds the V2 diagonal ops only past its forward-compatibility horizon
    # (forward_compatible(2019, 8, 31)): by default k, num_rows, num_cols and padding_value
    # are ignored there (tf.linalg.diag(x, k=1) is MatrixDiag of x)
    from tideflow import compat

    return compat.forward_compatible(2019, 8, 31)


def matrix_diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0):
    """A batch of matrices with ``diagonal`` on their main diagonal, or on the diagonals
    ``k`` (an offset or a band ``(k0, k1)``), of ``num_rows`` x ``num_cols`` (by default the
    smallest square that fits), the rest ``padding_value``."""
    if not _v2_ops() or (_is_default(k, 0) and _is_default(num_rows, -1)
                         and _is_default(num_cols, -1) and _is_default(padding_value, 0)):
        return ops.apply_op("MatrixDiag", [diagonal], name=name)._outputs[0]
    from tideflow.framework import dtypes

    diagonal, pad = _padding(diagonal, padding_value)
    rows = ops.convert_to_tensor(num_rows, dtype=dtypes.int32, name="num_rows")
    cols = ops.convert_to_tensor(num_cols, dtype=dtypes.int32, name="num_cols")
    return ops.apply_op("MatrixDiagV2", [diagonal, _k(k), rows, cols, pad],
                        name=name)._outputs[0]


def matrix_diag_part(input, name="diag_part", k=0, padding_value=0):
    """The main diagonals of the innermost matrices of ``input``, or the diagonals ``k`` (an
    offset or a band ``(k0, k1)``, packed top diagonal first, padded with ``padding_value``)."""
    if getattr(input, "_is_linear_operator", False):
        return input.diag_part(name=name or "diag_part")
    if not _v2_ops() or _is_default(k, 0) and _is_default(padding_value, 0):
        return ops.apply_op("MatrixDiagPart", [input], name=name)._outputs[0]
    return _diag_part_v2(input, k, padding_value, name=name)


def matrix_set_diag(input, diagonal, name="set_diag", k=0):
    """``input`` with the main diagonals (or the diagonals ``k``) of its innermost matrices
    replaced by ``diagonal``."""
    if not _v2_ops() or _is_default(k, 0):
        return ops.apply_op("MatrixSetDiag", [input, diagonal], name=name)._outputs[0]
    input = ops.convert_to_tensor(input, name="input")
    diagonal = ops.convert_to_tensor(diagonal, dtype=input.dtype.base_dtype, name="diagonal")
    return _set_diag_v2(input, diagonal, k, name=name)


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
    if (len(dims) == 0 or len(dims) % 2) and err is ValueError:  # TF 1.15's words
        raise err(f"Input must have even and non-zero rank, input rank is {len(dims)}")
    if len(dims) == 0 or len(dims) % 2:
        raise err(f"DiagPart: the rank of the input should be even and positive, got shape "
                  f"{_shape_str(dims)}")
    r = len(dims) // 2
    for i in range(r):
        a, b = dims[i], dims[i + r]
        if a is not None and b is not None and a != b and err is ValueError:
            raise err(f"Dimensions must be equal, but are {a} and {b}")  # TF 1.15's
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
    return diag_part(dense(grad))


def _diag_part_grad(op, grad):
    return diag(dense(grad))


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

    if getattr(x, "_is_linear_operator", False):
        return x.trace(name=name or "trace")
    with ops.name_scope(name, "Trace", [x]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        return reduce_sum(matrix_diag_part(x), [-1], name=scope)
