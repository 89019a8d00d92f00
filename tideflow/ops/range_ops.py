"""Patterned tensors: Range, LinSpace, OneHot, MatrixBandPart; and ``eye``, ``meshgrid`` and
``sequence_mask`` built from them.
"""

import builtins
import numbers

import numpy as np

from tideflow.framework import dtypes, op_registry, ops
from tideflow.ops import array_ops, cast_ops, concat_ops, fill_ops
from tideflow.ops.array_ops import _check_rank, _in, _invalid, _np, _register_fold
from tideflow.ops.gradients import dense

# ------------------------------------------------------------------------------------------
# Range, LinSpace
# ------------------------------------------------------------------------------------------


def _num(v):
    """A number as TF's StrCat writes it (0.0 -> '0', 0.5 -> '0.5')."""
    return f"{v:g}" if isinstance(v, (float, np.floating)) else str(v)


def _range_size(start, limit, delta, err):
    if delta == 0:  # (TF's shape function names no value; its kernel does)
        raise err("Requires delta != 0" if err is ValueError else
                  f"Requires delta != 0: {_num(delta)}")
    if delta > 0 and start > limit:
        raise err(f"Requires start <= limit when delta > 0: {_num(start)}/{_num(limit)}")
    if delta < 0 and start < limit:
        raise err(f"Requires start >= limit when delta < 0: {_num(start)}/{_num(limit)}")
    if all(isinstance(v, (int, np.integer)) for v in (start, limit, delta)):
        return (abs(limit - start) + abs(delta) - 1) // abs(delta)
    return int(np.ceil(abs((limit - start) / delta)))


def _range_shape(op):
    for i, what in enumerate(("start", "limit", "delta")):
        _check_rank(_in(op, i), 0, f" for '{what}'")
    vals = [ops.constant_value(t) for t in op._inputs]
    if any(v is None for v in vals):
        return [[None]]
    start, limit, delta = (np.asarray(v)[()].item() for v in vals)
    return [[_range_size(start, limit, delta, ValueError)]]


def _range_kernel(start, limit, delta, *, Tidx):
    t = Tidx.as_numpy_dtype
    for v, what in ((start, "start"), (limit, "limit"), (delta, "delta")):
        if np.ndim(v):  # a fed non-scalar: TF's kernel's words
            raise _invalid(f"{what} must be a scalar, not shape "
                           f"[{','.join(map(str, np.shape(v)))}]")
    start, limit, delta = (np.asarray(v)[()].item() for v in (start, limit, delta))
    n = _range_size(start, limit, delta, _invalid)
    steps = np.full(n, delta, dtype=t)
    if n:
        steps[0] = start
    # TF accumulates start + delta + delta ... in the output type; so does add.accumulate
    return np.add.accumulate(steps, dtype=t)


op_registry.declare(
    "Range",
    inputs=["start: Tidx", "limit: Tidx", "delta: Tidx"],
    outputs=["output: Tidx"],
    attrs=["Tidx: {bfloat16, float, double, int32, int64} = DT_INT32"],
    shape=_range_shape,
    kernel=_range_kernel,
    differentiable=False,
)

_RANGE_HIERARCHY = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]


def range(start, limit=None, delta=1, dtype=None, name="range"):
    """The sequence ``start, start + delta, ...`` up to but excluding ``limit``."""
    if limit is None:
        start, limit = 0, start
    with ops.name_scope(name, "Range", [start, limit, delta]) as scope:
        args = []
        for v, what in ((start, "start"), (limit, "limit"), (delta, "delta")):
            if not isinstance(v, ops.Tensor):
                v = ops.convert_to_tensor(v, dtype=dtype, name=what)
            args.append(v)
        if dtype is None:
            for a in args:
                if a.dtype.base_dtype not in _RANGE_HIERARCHY:
                    raise TypeError(f"Range does not support dtype {a.dtype.name}")
            dtype = max((a.dtype.base_dtype for a in args), key=_RANGE_HIERARCHY.index)
        args = [cast_ops.cast(a, dtype) for a in args]
        return ops.apply_op("Range", args, name=scope)._outputs[0]


def _linspace_shape(op):
    for i in builtins.range(3):
        _check_rank(_in(op, i), 0)
    num = ops.constant_value(op._inputs[2])
    if num is None:
        return [[None]]
    if int(num) <= 0:
        raise ValueError(f"Requires num > 0: {int(num)}")
    return [[int(num)]]


def _linspace_kernel(start, stop, num):
    n = int(num)
    if n <= 0:
        raise _invalid(f"Requires num > 0: {n}")
    start, stop = _np(start), _np(stop)
    t = start.dtype
    if n == 1:
        return np.array([start], dtype=t)
    step = ((stop - start) / t.type(n - 1)).astype(t)
    out = (start + step * np.arange(n, dtype=t)).astype(t)
    out[-1] = stop  # as TF's kernel: the last value is exactly ``stop``
    return out


op_registry.declare(
    "LinSpace",
    inputs=["start: T", "stop: T", "num: Tidx"],
    outputs=["output: T"],
    attrs=["T: {bfloat16, float, double}", "Tidx: {int32, int64} = DT_INT32"],
    shape=_linspace_shape,
    kernel=_linspace_kernel,
    differentiable=False,
)


def linspace(start, stop, num, name=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive."""
    return ops.apply_op("LinSpace", [start, stop, num], name=name)._outputs[0]


lin_space = linspace

# ------------------------------------------------------------------------------------------
# OneHot
# ------------------------------------------------------------------------------------------


def _one_hot_shape(op):
    ix = _in(op, 0)
    for i in (1, 2, 3):
        _check_rank(_in(op, i), 0)
    axis = op._attrs["axis"]
    # TF's shape function: the axis attr first, then the depth
    if axis < -1:
        raise ValueError("axis must be >= -1")
    depth = array_ops.dim_for_scalar_input(op, 1)
    if ix.ndims is None:
        return [None]
    r = ix.ndims
    # an axis past the output's rank is the kernel's error, when the op runs; TF 1.15's shape
    # function places the depth as if at the axis modulo the output's rank
    a = r if axis == -1 else axis % (r + 1)
    dims = ix.as_list()
    return [dims[:a] + [depth] + dims[a:]]


def _one_hot_kernel(indices, depth, on_value, off_value, *, axis):
    ix = np.asarray(indices)
    d = int(depth)
    if d < 0:
        raise _invalid(f"depth must be non-negative, got: {d}")
    on, off = _np(on_value), _np(off_value)
    if on.ndim or off.ndim:
        raise _invalid("on_value and off_value must be scalars")
    if axis != -1 and not 0 <= axis <= ix.ndim:
        raise _invalid(f"Expected axis to be -1 or between [0, {ix.ndim + 1}).  But received: "
                       f"{axis}")
    out = np.where(ix[..., None] == np.arange(d), on, off)
    return out if axis == -1 else np.moveaxis(out, -1, axis)


op_registry.declare(
    "OneHot",
    inputs=["indices: TI", "depth: int32", "on_value: T", "off_value: T"],
    outputs=["output: T"],
    attrs=["axis: int = -1", "T: type", "TI: {uint8, int32, int64} = DT_INT64"],
    shape=_one_hot_shape,
    kernel=_one_hot_kernel,
    differentiable=False,
)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """A one-hot tensor: ``on_value`` where the last (or ``axis``) index equals ``indices``."""
    with ops.name_scope(name, "one_hot", [indices, depth, on_value, off_value]) as scope:
        on_exists, off_exists = on_value is not None, off_value is not None
        on_dtype = ops.convert_to_tensor(on_value).dtype.base_dtype if on_exists else None
        off_dtype = ops.convert_to_tensor(off_value).dtype.base_dtype if off_exists else None
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype).base_dtype
        if on_exists or off_exists:
            if dtype is not None:
                if on_exists and on_dtype != dtype:
                    raise TypeError(f"dtype {on_dtype} of on_value does not match dtype "
                                    f"parameter {dtype}")
                if off_exists and off_dtype != dtype:
                    raise TypeError(f"dtype {off_dtype} of off_value does not match dtype "
                                    f"parameter {dtype}")
            else:
                dtype = on_dtype if on_exists else off_dtype
        elif dtype is None:
            dtype = dtypes.float32
        if not on_exists:
            on_value = ops.convert_to_tensor(1, dtype, name="on_value")
            on_dtype = dtype
        if not off_exists:
            off_value = ops.convert_to_tensor(0, dtype, name="off_value")
            off_dtype = dtype
        if on_dtype != off_dtype:
            raise TypeError(f"dtype {on_dtype} of on_value does not match dtype {off_dtype} of "
                            "off_value")
        attrs = {"axis": -1 if axis is None else axis}
        return ops.apply_op("OneHot", [indices, depth, on_value, off_value], attrs,
                            name=scope)._outputs[0]


# ------------------------------------------------------------------------------------------
# MatrixBandPart, eye, meshgrid, sequence_mask
# ------------------------------------------------------------------------------------------


def _band_part_shape(op):
    # TF 1.15's shape function is UnchangedShape: the kernel checks the ranks
    return [_in(op, 0)]


def _band_part_kernel(x, num_lower, num_upper):
    x = _np(x)
    if x.ndim < 2:
        raise _invalid(f"input must be at least 2-dim, received shape: {list(x.shape)}")
    for name, v in (("num_lower", num_lower), ("num_upper", num_upper)):
        if np.ndim(v):
            raise _invalid(f"{name} must be scalar, got shape {list(np.shape(v))}")
    lo, hi = int(num_lower), int(num_upper)
    m, n = x.shape[-2:]
    if lo > m:
        raise _invalid(f"num_lower must be negative or less or equal to number of rows ({m}) "
                       f"got: {lo}")
    if hi > n:
        raise _invalid(f"num_upper must be negative or less or equal to number of columns ({n}) "
                       f"got: {hi}")
    i = np.arange(m)[:, None]
    j = np.arange(n)[None, :]
    mask = ((lo < 0) | (i - j <= lo)) & ((hi < 0) | (j - i <= hi))
    return np.where(mask, x, np.zeros((), x.dtype))


def _matrix_band_part_grad(op, grad):
    return [matrix_band_part(dense(grad), op._inputs[1], op._inputs[2]), None, None]


op_registry.declare(
    "MatrixBandPart",
    inputs=["input: T", "num_lower: Tindex", "num_upper: Tindex"],
    outputs=["band: T"],
    attrs=["T: type", "Tindex: {int32, int64} = DT_INT64"],
    shape=_band_part_shape,
    kernel=_band_part_kernel,
    grad=_matrix_band_part_grad,
)

_register_fold("Range", "LinSpace", "OneHot")


def matrix_band_part(input, num_lower, num_upper, name=None):
    """Zeroes everything outside a central band of each innermost matrix (-1: keep all)."""
    return ops.apply_op("MatrixBandPart", [input, num_lower, num_upper], name=name)._outputs[0]


band_part = matrix_band_part


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """An identity matrix (or a batch of them), ``num_rows`` x ``num_columns``: TF 1.15's ops,
    ones on the diagonal through a MatrixDiag (or a MatrixSetDiag of zeros), the shapes
    concatenated in the graph when a size or the batch shape is a tensor."""
    from tideflow.ops import fill_ops, math_ops, matrix_diag_ops

    with ops.name_scope(name, "eye", [num_rows, num_columns, batch_shape]):
        is_square = num_columns is None
        batch_shape = [] if batch_shape is None else batch_shape
        num_columns = num_rows if num_columns is None else num_columns
        if isinstance(num_rows, ops.Tensor) or isinstance(num_columns, ops.Tensor):
            diag_size = math_ops.minimum(num_rows, num_columns)
        else:
            for v in (num_rows, num_columns):
                if not isinstance(v, numbers.Integral):  # (True counts, as in TF)
                    raise TypeError("num_rows and num_columns must be positive integer values.")
            is_square = num_rows == num_columns
            diag_size = builtins.min(num_rows, num_columns)
        if isinstance(batch_shape, ops.Tensor) or isinstance(diag_size, ops.Tensor):
            batch_shape = ops.convert_to_tensor(batch_shape, name="shape", dtype=dtypes.int32)
            diag_shape = concat_ops.concat((batch_shape, [diag_size]), axis=0)
            if not is_square:
                shape = concat_ops.concat((batch_shape, [num_rows, num_columns]), axis=0)
        else:
            batch_shape = list(batch_shape)
            diag_shape = batch_shape + [diag_size]
            if not is_square:
                shape = batch_shape + [num_rows, num_columns]
        ones = fill_ops.ones(diag_shape, dtype=dtype)
        if is_square:
            return matrix_diag_ops.matrix_diag(ones, name="diag")
        return matrix_diag_ops.matrix_set_diag(fill_ops.zeros(shape, dtype=dtype), ones,
                                               name="set_diag")


def meshgrid(*args, **kwargs):
    """N-D coordinate arrays from 1-D ``args`` (``indexing='xy'`` or ``'ij'``)."""
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        key = next(iter(kwargs))
        raise TypeError(f"'{key}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError("indexing parameter must be either 'xy' or 'ij'")
    with ops.name_scope(name, "meshgrid", list(args)):
        ndim = len(args)
        s0 = (1,) * ndim
        outs = []
        for i, x in enumerate(args):
            outs.append(array_ops.reshape(ops.convert_to_tensor(x), s0[:i] + (-1,) + s0[i + 1:]))
        sizes = [array_ops.size(x) for x in args]
        if indexing == "xy" and ndim > 1:
            outs[0] = array_ops.reshape(outs[0], (1, -1) + (1,) * (ndim - 2))
            outs[1] = array_ops.reshape(outs[1], (-1, 1) + (1,) * (ndim - 2))
            sizes[0], sizes[1] = sizes[1], sizes[0]
        # TF 1.15 multiplies by ones rather than broadcasting: its op names and count
        # (which a graph-level seed reads) are those of ones(sizes) and a Mul per output.
        ones = fill_ops.ones(sizes, ops.convert_to_tensor(args[0]).dtype.base_dtype)
        return [x * ones for x in outs]


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None):
    """A mask ``[..., maxlen]`` that is true for the first ``lengths[...]`` positions
    (``maxlen`` defaults to ``max(0, max(lengths))``). Built from TF's ops, in TF's order."""
    def apply(op_type, inputs, attrs=None):
        return ops.apply_op(op_type, inputs, attrs or {})._outputs[0]

    with ops.name_scope(name, "SequenceMask", [lengths, maxlen]):
        lengths = ops.convert_to_tensor(lengths)
        if maxlen is None:
            r = lengths.get_shape().ndims
            if r is not None:
                axes = ops.convert_to_tensor(np.arange(r, dtype=np.int32))
            else:
                axes = range(array_ops.rank(lengths), name="Range")  # TF: math_ops.range
            maxlen = apply("Max", [lengths, axes], {"keep_dims": False})
            zero = ops.convert_to_tensor(0, dtype=maxlen.dtype)
            maxlen = apply("Maximum", [zero, maxlen])  # no negative length for an empty batch
        else:
            maxlen = ops.convert_to_tensor(maxlen)
        if maxlen.get_shape().ndims is not None and maxlen.get_shape().ndims != 0:
            raise ValueError("maxlen must be scalar for sequence_mask")
        mtype = maxlen.dtype.base_dtype
        row = apply("Range", [ops.convert_to_tensor(0, dtype=mtype), maxlen,
                              ops.convert_to_tensor(1, dtype=mtype)])
        matrix = apply("Cast", [array_ops.expand_dims(lengths, -1)], {"DstT": mtype})
        result = apply("Less", [row, matrix])
        dtype = dtypes.as_dtype(dtype).base_dtype if dtype is not None else None
        if dtype is None or dtype == dtypes.bool:
            return result
        return apply("Cast", [result], {"DstT": dtype})

