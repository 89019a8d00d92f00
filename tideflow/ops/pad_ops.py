"""Padding, tiling and reversing: Pad/PadV2, MirrorPad (and MirrorPadGrad), Tile, ReverseV2."""

import numpy as np

from tideflow.framework import errors, op_registry, ops
from tideflow.framework.dispatch import add_dispatch_support
from tideflow.ops.array_ops import (
    _check_rank,
    _in,
    _invalid,
    _np,
    _register_fold,
    _shape_str,
    partial_vector,
    rank,
    reshape,
    shape,
    size,
    transpose,
)
from tideflow.ops.gradients import dense

# ------------------------------------------------------------------------------------------
# Tile
# ------------------------------------------------------------------------------------------


def _tile_shape(op):
    s = _in(op, 0)
    _check_rank(_in(op, 1), 1)
    m = partial_vector(op._inputs[1])
    if m is not None:  # as TF reads a shape: -1 is an unknown multiple (an error when run)
        for k in m:
            if k is not None and k < -1 and None not in m:  # (partly known: k is unknown)
                raise ops.shape_tensor_error(f"Invalid value in tensor used for shape: {k}")
        m = [None if k is not None and k < 0 else k for k in m]
    if s.ndims is None:
        return [None if m is None else [_dim_times(None, k) for k in m]]
    if m is None:  # TF still multiplies: a 0 dimension stays 0
        return [[_dim_times(d.value, None) for d in s.dims]]
    if len(m) != s.ndims:  # TF: the multiples (a shape) must have the input's rank
        raise ValueError(f"Shape must be rank {s.ndims} but is rank {len(m)}")
    return [[_dim_times(d.value, k) for d, k in zip(s.dims, m)]]


def _dim_times(d, k):
    """A dimension times a multiple as TF's shape inference multiplies them: 0 times anything
    is 0 and 1 times anything is that, even when the other is unknown."""
    if d == 0 or k == 0:
        return 0
    if d == 1 or k == 1:
        return k if d == 1 else d
    return None if d is None or k is None else d * k


# TF 1.15's Tile kernel has no case for these (it still hands on its input unchanged, or an
# empty output)
_TILE_UNSUPPORTED = frozenset(np.dtype(t) for t in (np.uint16, np.uint32, np.uint64))


def _tile_kernel(x, multiples):
    x = _np(x)
    if x.size == 1 and x.ndim == 1 and type(multiples) is np.ndarray and multiples.shape == (1,) \
            and x.dtype not in _TILE_UNSUPPORTED:
        # one value repeated (a mean's gradient over a batch): a fill, not np.tile's copies
        n = int(multiples[0])
        if n >= 0:
            return np.full(n, x[0], dtype=x.dtype)
    m = [int(v) for v in np.reshape(multiples, -1)]
    if len(m) != x.ndim:
        raise _invalid(
            f"Expected multiples argument to be a vector of length {x.ndim} but got length "
            f"{len(m)}"
        )
    for i, v in enumerate(m):
        if v < 0:
            raise _invalid(f"Expected multiples[{i}] >= 0, but got {v}")
    if x.dtype in _TILE_UNSUPPORTED and x.size and 0 not in m and any(v != 1 for v in m):
        raise errors.UnimplementedError(
            None, None, f"TileOp : The input data type is not supported, DataType : "
            f"{x.dtype.name}, Dimension : {x.ndim}")
    return np.tile(x, m)


def _tile_grad(op, grad):
    """grad reshaped to [m0, d0, m1, d1, ...] and summed over the even (tiled) axes, from TF
    1.15's ops even when the shapes are static (later random ops' seeds count them)."""
    from tideflow.ops import concat_ops, range_ops, reduction_ops

    x, multiples = op._inputs
    in_shape = shape(x, out_type=multiples.dtype.base_dtype)
    split = reshape(transpose(concat_ops.stack([multiples, in_shape])), [-1])
    axes = range_ops.range(0, size(split), 2)
    if isinstance(grad, ops.IndexedSlices):
        # as TF 1.15: the rows are summed into the first dimension by their index modulo its
        # size (UnsortedSegmentSum of FloorMod), and its tiling reads as 1
        from tideflow.ops import cast_ops, math_ops

        rows = cast_ops.cast(in_shape[0], grad.indices.dtype.base_dtype)
        grad = reduction_ops.unsorted_segment_sum(
            grad.values, math_ops.floormod(grad.indices, rows), rows)
        split = concat_ops.concat([[1], split[1:]], axis=0)
    g = reduction_ops.reduce_sum(reshape(dense(grad), split), axes)
    g.set_shape(x._shape)
    return [g, None]


op_registry.declare(
    "Tile",
    inputs=["input: T", "multiples: Tmultiples"],
    outputs=["output: T"],
    attrs=["T: type", "Tmultiples: {int32, int64} = DT_INT32"],
    shape=_tile_shape,
    kernel=_tile_kernel,
    grad=_tile_grad,
)


@add_dispatch_support  # a RaggedTensor: ragged tile
def tile(input, multiples, name=None):
    """Repeats ``input`` ``multiples[i]`` times along dimension i."""
    return ops.apply_op("Tile", [input, multiples], name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# Pad, PadV2, MirrorPad
# ------------------------------------------------------------------------------------------


def _pad_shape(op):
    s = _in(op, 0)
    p = _in(op, 1)
    _check_rank(p, 2)
    # TF's words: the paddings' rows must be pairs, and their count is the input's rank
    if p.ndims == 2 and p.dims[1].value not in (None, 2):
        raise ValueError(f"Dimension must be 2 but is {p.dims[1].value}")
    if s.ndims is not None and p.ndims == 2 and p.dims[0].value not in (None, s.ndims):
        raise ValueError(f"Shape must be rank {p.dims[0].value} but is rank {s.ndims}")
    if len(op._inputs) == 3:
        _check_rank(_in(op, 2), 0)
    r = s.ndims if s.ndims is not None else (p.dims[0].value if p.ndims == 2 else None)
    if r is None:
        return [None]
    rows = _partial_paddings(op._inputs[1])
    # (checked though the input's rank is unknown, as TF's shape function does)
    if rows is not None and any(row is not None and any(v is not None and v < 0 for v in row)
                                for row in rows):
        raise ValueError("Paddings must be non-negative")  # (the kernel names them)
    if rows is None or s.ndims is None:
        return [[None] * r]
    out = []
    for d, row in zip(s.dims, rows):
        if d.value is None or row is None or None in row:
            out.append(None)  # TF's wrapper: a dimension whose paddings are partly unknown
        else:
            out.append(d.value + row[0] + row[1])
    return [out]


def _partial_paddings(t):
    """The rows of a [n, 2] paddings tensor as far as they are known at graph build time
    (``[[1, 2], unknown]`` gives ``[[1, 2], None]``), or None; as TF's constant_value(partial)."""
    v = ops.constant_value(t)
    if v is not None:
        return [[int(a), int(b)] for a, b in np.asarray(v).reshape(-1, 2).tolist()]
    op = t._op
    if op._type != "Pack" or op._attrs.get("axis", 0) != 0:
        return None
    rows = []
    for row in op._inputs:
        vec = partial_vector(row)
        rows.append(vec if vec is not None and len(vec) == 2 else None)
    return rows


def _check_paddings(x, paddings, word="Paddings", signs=True):
    p = np.asarray(paddings)
    if p.ndim != 2 or p.shape[1] != 2:
        raise _invalid(f"paddings must be a matrix with 2 columns: {_shape_str(p.shape)}")
    if p.shape[0] != x.ndim:
        raise _invalid(
            f"The first dimension of paddings must be the rank of inputs{_shape_str(p.shape)} "
            f"{_shape_str(x.shape)}"
        )
    for before, after in p.tolist() if signs else ():
        if before < 0 or after < 0:
            raise _invalid(f"{word} must be non-negative: {before} {after}")
    return [(int(a), int(b)) for a, b in p.tolist()]


def _np_pad(x, p, **kw):
    # a scalar has no dimensions to pad (NumPy refuses an empty pad_width)
    return np.array(x, copy=True) if x.ndim == 0 else np.pad(x, p, **kw)


def _rank_limit(x, most):
    # TF 1.15's Pad kernels are instantiated for ranks 0..6 (MirrorPad 0..5) only
    if x.ndim > most:
        raise errors.UnimplementedError(None, None, f"inputs rank not in [0,{most}]: {x.ndim}")


def _pad_kernel(x, paddings):
    x = _np(x)
    _rank_limit(x, 6)
    p = _check_paddings(x, paddings)
    fill = b"" if x.dtype == object else 0
    return _np_pad(x, p, mode="constant", constant_values=fill)


def _pad_v2_kernel(x, paddings, constant_values):
    x = _np(x)
    _rank_limit(x, 6)
    p = _check_paddings(x, paddings)
    c = _np(constant_values)
    if c.ndim != 0:
        raise _invalid(f"constant_values must be a scalar. Got: {_shape_str(c.shape)}")
    return _np_pad(x, p, mode="constant", constant_values=c[()])


def _mirror_pad_kernel(x, paddings, *, mode):
    x = _np(x)
    _rank_limit(x, 5)
    # (MirrorPad's words: lower case; its sign and size checks go dimension by dimension)
    p = _check_paddings(x, paddings, signs=False)
    # TF checks the limit here, at run time (REFLECT pads less than the dimension size,
    # SYMMETRIC no more than it), not when the graph is built
    for i, (a, b) in enumerate(p):
        n = x.shape[i]
        if a < 0 or b < 0:
            raise _invalid(f"paddings must be non-negative: {a} {b}")
        if mode == "SYMMETRIC" and (a > n or b > n):  # TF 1.15's words
            raise _invalid(f"paddings must be no greater than the dimension size: {a}, {b} "
                           f"greater than {n}")
        if mode == "REFLECT" and (a >= n or b >= n):
            raise _invalid(f"paddings must be less than the dimension size: {a}, {b} not less "
                           f"than {n}")
    return _np_pad(x, p, mode=mode.lower())


def _pad_grad(op, grad):
    # the input's window of the gradient; constant_values gets None, as in TF
    from tideflow.ops import concat_ops, slicing_ops

    # TF 1.x's ops even for constant paddings (Rank, stack, Slice, Reshape, Shape, Slice: so
    # the ops after a gradient number as in TF); constant folding takes them out of the plan
    x, paddings = op._inputs[:2]
    index = paddings.dtype.base_dtype
    before = slicing_ops.slice(paddings, [0, 0], concat_ops.stack([rank(x), 1]))
    begin = reshape(before, [-1])
    x_grad = slicing_ops.slice(dense(grad), begin, shape(x, out_type=index))
    return [x_grad] + [None] * (len(op._inputs) - 1)


def _mirror_pad_grad(op, grad):
    return [mirror_pad_grad(dense(grad), op._inputs[1], op._attrs["mode"]), None]


_PAD_ATTRS = ["T: type", "Tpaddings: {int32, int64} = DT_INT32"]
op_registry.declare(
    "Pad",
    inputs=["input: T", "paddings: Tpaddings"],
    outputs=["output: T"],
    attrs=_PAD_ATTRS,
    shape=_pad_shape,
    kernel=_pad_kernel,
    grad=_pad_grad,
)
op_registry.declare(
    "PadV2",
    inputs=["input: T", "paddings: Tpaddings", "constant_values: T"],
    outputs=["output: T"],
    attrs=_PAD_ATTRS,
    shape=_pad_shape,
    kernel=_pad_v2_kernel,
    grad=_pad_grad,
)
op_registry.declare(
    "MirrorPad",
    inputs=["input: T", "paddings: Tpaddings"],
    outputs=["output: T"],
    attrs=_PAD_ATTRS + ["mode: {'REFLECT', 'SYMMETRIC'}"],
    shape=_pad_shape,  # as TF's: the paddings' limit is the kernel's check
    kernel=_mirror_pad_kernel,
    grad=_mirror_pad_grad,
)


def _mirror_pad_grad_shape(op):
    s = _in(op, 0)
    _check_rank(_in(op, 1), 2)
    if s.ndims is None:
        return [None]
    v = ops.constant_value(op._inputs[1])
    if v is None:
        return [[None] * s.ndims]
    v = np.asarray(v).reshape(-1, 2).tolist()
    if len(v) != s.ndims:
        raise ValueError(f"Dimension 0 in both shapes must be equal, but are {len(v)} and "
                         f"{s.ndims}.")
    out = []
    for d, (a, b) in zip(s.dims, v):
        if d.value is not None and d.value < a + b:
            raise ValueError(f"Paddings {a}, {b} exceed the dimension size {d.value}")
        out.append(None if d.value is None else d.value - a - b)
    return [out]


def _mirror_pad_grad_kernel(x, paddings, *, mode):
    # fold each padded border back onto the entries it mirrors, one dimension at a time
    out = _np(x)
    p = _check_paddings(out, paddings)
    off = 0 if mode == "SYMMETRIC" else 1
    for i, (a, b) in enumerate(p):
        g = np.moveaxis(out, i, 0)
        n = g.shape[0] - a - b
        if n < 0 or a > n - off or b > n - off:
            raise _invalid(
                f"paddings must be no greater than the dimension size{'' if off == 0 else ' - 1'}"
                f": {a}, {b} greater than {n - off} (dimension {i})"
            )
        core = g[a:a + n].copy()
        core[off:off + a] += g[:a][::-1]
        core[n - off - b:n - off] += g[a + n:][::-1]
        out = np.moveaxis(core, 0, i)
    return out


def _mirror_pad_grad_grad(op, grad):
    return [pad(dense(grad), op._inputs[1], mode=op._attrs["mode"]), None]


op_registry.declare(
    "MirrorPadGrad",
    inputs=["input: T", "paddings: Tpaddings"],
    outputs=["output: T"],
    attrs=_PAD_ATTRS + ["mode: {'REFLECT', 'SYMMETRIC'}"],
    shape=_mirror_pad_grad_shape,
    kernel=_mirror_pad_grad_kernel,
    grad=_mirror_pad_grad_grad,
)


def mirror_pad_grad(input, paddings, mode, name=None):
    """The gradient of MirrorPad: the padded borders of ``input`` summed onto what they mirror."""
    return ops.apply_op("MirrorPadGrad", [input, paddings], {"mode": mode},
                        name=name)._outputs[0]


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):
    """Pads ``tensor`` by ``paddings`` ([rank, 2]) with a constant, or by reflection."""
    m = mode.upper()
    if m == "CONSTANT":
        if isinstance(constant_values, ops.Tensor) or constant_values != 0:
            t = ops.convert_to_tensor(tensor, name="tensor")
            return ops.apply_op("PadV2", [t, paddings, constant_values], name=name)._outputs[0]
        return ops.apply_op("Pad", [tensor, paddings], name=name)._outputs[0]
    if m in ("REFLECT", "SYMMETRIC"):
        return ops.apply_op("MirrorPad", [tensor, paddings], {"mode": m}, name=name)._outputs[0]
    raise ValueError(f"Unknown padding mode: {m}")  # upper-cased, as TF reports it


# ------------------------------------------------------------------------------------------
# ReverseV2
# ------------------------------------------------------------------------------------------


def _reverse_shape(op):
    s = _in(op, 0)
    _check_rank(_in(op, 1), 1)
    axes = ops.constant_value(op._inputs[1])
    if axes is not None and s.ndims is not None:
        r = s.ndims
        seen = set()
        for a in np.reshape(axes, -1).tolist():
            if not -r <= a < r:
                # (sic: TF 1.15's shape function leaves the bracket open)
                raise ValueError(f"'axis'[{len(seen)}] = {a} is out of valid range [0, {r - 1}")
            if a % r in seen:
                raise ValueError(f"axis {a % r} specified more than once.")
            seen.add(a % r)
    return [s]


def _reverse_kernel(tensor, axis):
    x = _np(tensor)
    r = x.ndim
    axes = np.asarray(axis).reshape(-1).tolist()
    seen = set()
    for i, a in enumerate(axes):
        if not -r <= a < r:
            # (TF 1.15's kernel leaves the range unclosed, as its shape function)
            raise _invalid(f"'axis'[{i}] = {a} is out of valid range [0, {r - 1}")
        if a % r in seen:
            raise _invalid(f"axis {a % r} specified more than once.")
        seen.add(a % r)
    if not seen:
        return x
    idx = [slice(None)] * r  # a reversed view, as np.flip's, without its axis checks
    for a in seen:
        idx[a] = _REVERSED
    return x[tuple(idx)]


_REVERSED = slice(None, None, -1)


def _reverse_v2_grad(op, grad):
    return [reverse_v2(dense(grad), op._inputs[1]), None]


op_registry.declare(
    "ReverseV2",
    inputs=["tensor: T", "axis: Tidx"],
    outputs=["output: T"],
    attrs=["Tidx: {int32, int64} = DT_INT32",
           ("T: {uint8, int8, uint16, int16, int32, int64, bool, bfloat16, half, float, double, "
           "complex64, complex128, string}")],
    shape=_reverse_shape,
    kernel=_reverse_kernel,
    grad=_reverse_v2_grad,
)



def _reverse_v1_shape(op):
    x, dims = op._inputs[0]._shape, op._inputs[1]._shape
    _check_rank(dims, 1)
    if x.ndims is not None and dims.ndims == 1 and dims.dims[0].value not in (None, x.ndims):
        raise ValueError(f"'dims' must have the same number of values as 'input' has "
                         f"dimensions: {dims.dims[0].value} vs. {x.ndims}")
    return [x]


def _reverse_v1_kernel(tensor, dims):
    x, dims = _np(tensor), np.asarray(dims, bool).reshape(-1)
    if dims.size != x.ndim:
        raise _invalid(f"'dims' must have the same number of values as 'input' has dimensions: "
                       f"{dims.size} vs. {x.ndim}")
    axes = tuple(int(i) for i in np.nonzero(dims)[0])
    return np.flip(x, axes).copy() if axes else x


def _reverse_v1_grad(op, grad):
    return [ops.apply_op("Reverse", [dense(grad), op._inputs[1]])._outputs[0], None]


# TF's first reverse (a bool per dimension), as older GraphDefs hold it
op_registry.declare(
    "Reverse",
    inputs=["tensor: T", "dims: bool"],
    outputs=["output: T"],
    attrs=[("T: {uint8, int8, uint16, int16, int32, int64, bool, half, float, double, "
            "complex64, complex128, string}")],
    shape=_reverse_v1_shape,
    kernel=_reverse_v1_kernel,
    grad=_reverse_v1_grad,
)

_register_fold("Tile", "Pad", "PadV2", "MirrorPadGrad", "ReverseV2", "Reverse")


def reverse_v2(tensor, axis, name=None):
    """Reverses ``tensor`` along the dimensions in ``axis``."""
    return ops.apply_op("ReverseV2", [tensor, axis], name=name)._outputs[0]


def reverse(tensor, axis, name=None):
    """Reverses ``tensor`` along ``axis``; 0.x's per-dimension bool list is accepted too."""
    # (a list may hold tensors, as ``[tf.rank(x) - 1]``: it is stacked like any op argument)
    if isinstance(axis, np.ndarray) and axis.dtype == np.bool_:
        axis = axis.reshape(-1).tolist()
    if isinstance(axis, (list, tuple)) and axis and all(
            isinstance(a, (bool, np.bool_)) for a in axis):
        axis = [i for i, a in enumerate(axis) if a]
    return reverse_v2(tensor, axis, name=name)

