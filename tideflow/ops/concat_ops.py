"""Joining and splitting: Pack/Unpack (stack), ConcatV2, Split/SplitV, Tile, Pad/PadV2/MirrorPad,
ReverseV2; and the packing of Python lists that hold tensors.
"""

import numbers

import numpy as np

from tideflow.framework import dtypes, op_registry, ops
from tideflow.framework.tensor_shape import Dimension, as_shape
from tideflow.ops import constant_op
from tideflow.ops.array_ops import (
    _check_rank,
    _in,
    _invalid,
    _merge_all,
    _np,
    _register_fold,
    _shape_str,
    identity,
    partial_vector,
)

# ------------------------------------------------------------------------------------------
# Pack (stack), Unpack (unstack), and lists of tensors as tensors
# ------------------------------------------------------------------------------------------


def _pack_shape(op):
    s = _merge_all([t._shape for t in op._inputs])
    axis = op._attrs["axis"]
    if s.ndims is None:
        return [None]
    r = s.ndims + 1
    if not -r <= axis < r:
        raise ValueError(f"Invalid axis: {axis}; must be in [{-r},{r})")
    axis %= r
    dims = s.dims
    return [dims[:axis] + [Dimension(len(op._inputs))] + dims[axis:]]


def _pack_kernel(values, *, axis, T):
    values = [_np(v) for v in values]
    first = values[0].shape
    for i, v in enumerate(values[1:], 1):
        if v.shape != first:
            raise _invalid(
                f"Shapes of all inputs must match: values[0].shape = {_shape_str(first)} != "
                f"values[{i}].shape = {_shape_str(v.shape)}"
            )
    r = len(first) + 1
    if not -r <= axis < r:
        raise _invalid(f"axis = {axis} not in [{-r}, {r})")
    out = np.stack(values, axis=axis)
    return out if T != dtypes.string else out.astype(object, copy=False)


op_registry.declare(
    "Pack",
    inputs=["values: N * T"],
    outputs=["output: T"],
    attrs=["N: int >= 1", "T: type", "axis: int = 0"],
    shape=_pack_shape,
    kernel=_pack_kernel,
)


def _unpack_shape(op):
    s = _in(op, 0)
    num = op._attrs["num"]
    axis = op._attrs["axis"]
    if s.ndims is None:
        return [None] * num
    r = s.ndims
    if not -r <= axis < r:
        raise ValueError(f"Invalid axis: {axis}; must be in [{-r},{r})")
    axis %= r
    d = s.dims[axis].value
    if d is not None and d != num:
        raise ValueError(f"Dimension must be {num} but is {d}")
    dims = s.dims
    return [dims[:axis] + dims[axis + 1:]] * num


def _unpack_kernel(x, *, num, axis):
    x = _np(x)
    r = x.ndim
    if not -r <= axis < r:
        raise _invalid(f"axis = {axis} not in [{-r}, {r})")
    if x.shape[axis] != num:
        raise _invalid(
            f"Input shape axis {axis % r} must equal {num}, got shape {_shape_str(x.shape)}"
        )
    return list(np.moveaxis(x, axis, 0))


op_registry.declare(
    "Unpack",
    inputs=["value: T"],
    outputs=["output: num * T"],
    attrs=["num: int >= 0", "T: type", "axis: int = 0"],
    shape=_unpack_shape,
    kernel=_unpack_kernel,
)


def _has_tensor(v):
    if isinstance(v, ops.Tensor):
        return True
    if isinstance(v, (list, tuple)):
        return any(_has_tensor(x) for x in v)
    return False


def _first_tensor(v):
    if isinstance(v, ops.Tensor):
        return v
    if isinstance(v, (list, tuple)):
        for x in v:
            t = _first_tensor(x)
            if t is not None:
                return t
    return None


def _packed(values, dtype, name):
    """Packs a nested list holding tensors into one tensor (TF's auto-packing)."""
    with ops.name_scope(name) as scope:
        elems = []
        for i, v in enumerate(values):
            if isinstance(v, ops.Tensor):
                if v.dtype.base_dtype != dtype:
                    raise TypeError(
                        f"Cannot convert a list containing a tensor of dtype {v.dtype.base_dtype} "
                        f"to {dtype} (Tensor is: {v!r})"
                    )
                elems.append(v)
            elif _has_tensor(v):
                elems.append(_packed(v, dtype, str(i)))
            else:
                elems.append(constant_op.constant(v, dtype=dtype, name=str(i)))
        return ops.apply_op("Pack", [elems], {"T": dtype}, name=scope)._outputs[0]


def _autopacking_conversion(value, dtype=None, name=None, as_ref=False):
    if as_ref or not _has_tensor(value):
        return NotImplemented
    inferred = _first_tensor(value).dtype.base_dtype
    if dtype is not None and dtypes.as_dtype(dtype).base_dtype != inferred:
        raise TypeError(
            f"Cannot convert a list containing a tensor of dtype {inferred} to "
            f"{dtypes.as_dtype(dtype).name} (Tensor is: {_first_tensor(value)!r})"
        )
    return _packed(value, inferred, name or "packed")


ops.register_tensor_conversion_function((list, tuple), _autopacking_conversion, priority=99)
_register_fold("Pack", "Unpack")


def stack(values, axis=0, name="stack"):
    """Stacks a list of rank-R tensors into one rank-(R+1) tensor along ``axis``."""
    if axis == 0 and not _has_tensor(values):
        try:
            return ops.convert_to_tensor(values, name=name)
        except (TypeError, ValueError):
            pass
    first = _first_tensor(values)
    s = first.get_shape() if first is not None else as_shape(np.shape(values[0]))
    if s.ndims is not None:
        r = s.ndims + 1
        if axis < -r or axis >= r:
            raise ValueError(f"axis = {axis} not in [{-r}, {r})")
    attrs = {"axis": axis}
    if first is not None:
        attrs["T"] = first.dtype.base_dtype
    return ops.apply_op("Pack", [list(values)], attrs, name=name)._outputs[0]


def pack(values, axis=0, name="pack"):
    """0.x name of :func:`stack`."""
    return stack(values, axis=axis, name=name)


def unstack(value, num=None, axis=0, name="unstack"):
    """Splits ``value`` along ``axis`` into a list of ``num`` tensors."""
    if num is None:
        value = ops.convert_to_tensor(value)
        s = value.get_shape()
        if s.ndims is not None:
            if axis < -s.ndims or axis >= s.ndims:
                raise ValueError(f"axis = {axis} not in [{-s.ndims}, {s.ndims})")
            num = s.dims[axis].value
        if num is None:
            raise ValueError(f"Cannot infer num from shape {s}")
    return ops.apply_op("Unpack", [value], {"num": num, "axis": axis}, name=name)._outputs


def unpack(value, num=None, axis=0, name="unpack"):
    """0.x name of :func:`unstack`."""
    return unstack(value, num=num, axis=axis, name=name)


# ------------------------------------------------------------------------------------------
# ConcatV2
# ------------------------------------------------------------------------------------------


def _concat_shape(op):
    values = op._inputs[:-1]
    _check_rank(_in(op, len(values)), 0)
    axis = ops.constant_value(op._inputs[-1])
    shapes = [t._shape for t in values]
    r = next((s.ndims for s in shapes if s.ndims is not None), None)
    if r is None:
        return [None]
    for i, s in enumerate(shapes):
        if s.ndims is not None and s.ndims != r:
            raise ValueError(
                f"Shape must be rank {r} but is rank {s.ndims}; From merging shape {i} with "
                "other shapes."
            )
    if r == 0:
        raise ValueError("Can't concatenate scalars (use tf.stack instead)")
    if axis is None:
        return [[None] * r]
    axis = int(axis)
    if not -r <= axis < r:
        raise ValueError(f"Expected concat_dim in the range [{-r}, {r}), but got {axis}")
    axis %= r
    out = [Dimension(None)] * r
    total = 0
    for i, s in enumerate(shapes):
        if s.ndims is None:
            total = None
            continue
        for k, d in enumerate(s.dims):
            if k == axis:
                continue
            try:
                out[k] = out[k].merge_with(d)
            except ValueError:
                raise ValueError(
                    f"Dimension {k} in both shapes must be equal, but are {out[k].value} and "
                    f"{d.value}. Shapes are {_shape_str(shapes[0])} and {_shape_str(s)}. From "
                    f"merging shape {i} with other shapes."
                ) from None
        d = s.dims[axis].value
        total = None if total is None or d is None else total + d
    out[axis] = Dimension(total)
    return [out]


def _concat_kernel(values, axis):
    values = [_np(v) for v in values]
    first = values[0]
    r = first.ndim
    if r == 0:
        raise _invalid("ConcatOp : Can't concatenate scalars (use tf.stack instead)")
    axis = int(axis)
    if not -r <= axis < r:
        raise _invalid(
            f"ConcatOp : Expected concatenating dimensions in the range [{-r}, {r}), but got "
            f"{axis}"
        )
    axis %= r
    for i, v in enumerate(values[1:], 1):
        if v.ndim != r:
            raise _invalid(
                f"ConcatOp : Ranks of all input tensors should match: shape[0] = "
                f"{_shape_str(first.shape)} vs. shape[{i}] = {_shape_str(v.shape)}"
            )
        if v.shape[:axis] != first.shape[:axis] or v.shape[axis + 1:] != first.shape[axis + 1:]:
            raise _invalid(
                f"ConcatOp : Dimensions of inputs should match: shape[0] = "
                f"{_shape_str(first.shape)} vs. shape[{i}] = {_shape_str(v.shape)}"
            )
    return np.concatenate(values, axis=axis)


op_registry.declare(
    "ConcatV2",
    inputs=["values: N * T", "axis: Tidx"],
    outputs=["output: T"],
    attrs=["N: int >= 2", "T: type", "Tidx: {int32, int64} = DT_INT32"],
    shape=_concat_shape,
    kernel=_concat_kernel,
)


def _is_int_like(v):
    if isinstance(v, ops.Tensor):
        return v.get_shape().ndims == 0 and v.dtype.base_dtype in (dtypes.int32, dtypes.int64)
    if isinstance(v, np.ndarray):
        return v.ndim == 0 and v.dtype.kind in "iu"
    return isinstance(v, (numbers.Integral, Dimension)) and not isinstance(v, bool)


def concat(values, axis, name="concat"):
    """Concatenates ``values`` along ``axis``; also accepts 0.x's ``concat(concat_dim, values)``."""
    if _is_int_like(values) and not _is_int_like(axis):
        values, axis = axis, values
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        with ops.name_scope(name) as scope:
            a = ops.convert_to_tensor(axis, name="concat_dim", dtype=dtypes.int32)
            if a.get_shape().ndims not in (None, 0):
                raise ValueError(f"Shape {a.get_shape()} must have rank 0")
            return identity(values[0], name=scope)
    first = _first_tensor(list(values))
    attrs = {} if first is None else {"T": first.dtype.base_dtype}
    return ops.apply_op("ConcatV2", [list(values), axis], attrs, name=name)._outputs[0]


def concat_v2(values, axis, name="concat_v2"):
    """0.12 name of :func:`concat`."""
    return concat(values, axis, name=name)


# ------------------------------------------------------------------------------------------
# Split, SplitV
# ------------------------------------------------------------------------------------------


def _split_shape(op):
    _check_rank(_in(op, 0), 0)
    s = _in(op, 1)
    n = op._attrs["num_split"]
    axis = ops.constant_value(op._inputs[0])
    if s.ndims is None:
        return [None] * n
    if axis is None:
        return [[None] * s.ndims] * n
    r = s.ndims
    axis = int(axis)
    if not -r <= axis < r:
        raise ValueError(f"Dimension {axis} must be >= {-r} and < {r}")
    axis %= r
    d = s.dims[axis].value
    if d is not None and d % n:
        raise ValueError(f"Dimension size must be evenly divisible by {n} but is {d}")
    dims = s.dims
    dims[axis] = Dimension(None if d is None else d // n)
    return [dims] * n


def _split_kernel(split_dim, value, *, num_split):
    value = _np(value)
    r = value.ndim
    axis = int(split_dim)
    if not -r <= axis < r:
        raise _invalid(f"-input rank(-{r}) <= split_dim < input rank ({r}), but got {axis}")
    axis %= r
    if value.shape[axis] % num_split:
        raise _invalid(
            f"Number of ways to split should evenly divide the split dimension, but got "
            f"split_dim {axis} (size = {value.shape[axis]}) and num_split {num_split}"
        )
    return np.split(value, num_split, axis=axis)


op_registry.declare(
    "Split",
    inputs=["split_dim: int32", "value: T"],
    outputs=["output: num_split * T"],
    attrs=["num_split: int >= 1", "T: type"],
    shape=_split_shape,
    kernel=_split_kernel,
)


def _split_v_shape(op):
    s = _in(op, 0)
    n = op._attrs["num_split"]
    sizes = partial_vector(op._inputs[1])
    axis = ops.constant_value(op._inputs[2])
    if s.ndims is None:
        return [None] * n
    r = s.ndims
    if axis is None:
        return [[None] * r] * n
    axis = int(axis)
    if not -r <= axis < r:
        raise ValueError(f"Dimension {axis} must be >= {-r} and < {r}")
    axis %= r
    if sizes is None:
        sizes = [None] * n
    if len(sizes) != n:
        raise ValueError(f"Dimension 0 in both shapes must be equal, but are {len(sizes)} and {n}")
    d = s.dims[axis].value
    if sizes.count(-1) > 1:
        raise ValueError("Only one dimensions can have a value of -1. Second one found at "
                         f"dimension {[i for i, v in enumerate(sizes) if v == -1][1]}")
    if -1 in sizes and None not in sizes and d is not None:
        rest = sum(v for v in sizes if v != -1)
        if rest > d:
            raise ValueError(f"The specified sizes ({_shape_str(sizes)}) exceed the size {d} of "
                             f"the split dimension")
        sizes = [d - rest if v == -1 else v for v in sizes]
    elif None not in sizes and d is not None and sum(sizes) != d:
        raise ValueError(
            f"Determined shape must either match input shape along split_dim exactly if fully "
            f"specified, or be less than the size of the input along split_dim if not fully "
            f"specified.  Got: {sum(sizes)}"
        )
    out = []
    for v in sizes:
        dims = s.dims
        dims[axis] = Dimension(None if v is None or v < 0 else v)
        out.append(dims)
    return out


def _split_v_kernel(value, size_splits, split_dim, *, num_split):
    value = _np(value)
    r = value.ndim
    axis = int(split_dim)
    if not -r <= axis < r:
        raise _invalid(f"-input rank(-{r}) <= split_dim < input rank ({r}), but got {axis}")
    axis %= r
    sizes = [int(v) for v in np.reshape(size_splits, -1)]
    if len(sizes) != num_split:
        raise _invalid(f"size_splits has {len(sizes)} values, but num_split is {num_split}")
    d = value.shape[axis]
    if sizes.count(-1) > 1:
        raise _invalid("There can only be one -1 in the input.")
    if -1 in sizes:
        rest = sum(v for v in sizes if v != -1)
        sizes[sizes.index(-1)] = d - rest
    if sum(sizes) != d or any(v < 0 for v in sizes):
        raise _invalid(
            f"Determined shape must either match input shape along split_dim exactly if fully "
            f"specified, or be less than the size of the input along split_dim if not fully "
            f"specified.  Got: {sum(sizes)}"
        )
    return np.split(value, np.cumsum(sizes)[:-1], axis=axis)


op_registry.declare(
    "SplitV",
    inputs=["value: T", "size_splits: Tlen", "split_dim: int32"],
    outputs=["output: num_split * T"],
    attrs=["num_split: int >= 1", "T: type", "Tlen: {int32, int64} = DT_INT64"],
    shape=_split_v_shape,
    kernel=_split_v_kernel,
)


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Splits ``value`` along ``axis`` into ``num_or_size_splits`` pieces (or pieces of sizes).

    Also accepts 0.x's ``split(split_dim, num_split, value)``.
    """
    if _is_int_like(value) and not _is_int_like(axis) and not isinstance(axis, Dimension):
        value, axis = axis, value
    if isinstance(num_or_size_splits, (numbers.Integral, Dimension)) and not isinstance(
        num_or_size_splits, bool
    ):
        return ops.apply_op("Split", [axis, value], {"num_split": int(num_or_size_splits)},
                            name=name)._outputs
    sizes = num_or_size_splits
    if not isinstance(sizes, ops.Tensor):
        sizes = ops.convert_to_tensor(sizes)
    if sizes.get_shape().ndims == 0 and sizes.dtype.is_integer:
        v = ops.constant_value(sizes)
        if v is None:
            raise ValueError(f"Cannot infer num from shape {num_or_size_splits}")
        return ops.apply_op("Split", [axis, value], {"num_split": int(v)}, name=name)._outputs
    if num is None:
        s = sizes.get_shape()
        num = s.dims[0].value if s.ndims else None
        if num is None:
            raise ValueError(f"Cannot infer num from shape {num_or_size_splits}")
    return ops.apply_op("SplitV", [value, sizes, axis], {"num_split": num}, name=name)._outputs


# ------------------------------------------------------------------------------------------
# Tile
# ------------------------------------------------------------------------------------------


def _tile_shape(op):
    s = _in(op, 0)
    _check_rank(_in(op, 1), 1)
    m = partial_vector(op._inputs[1])
    if s.ndims is None:
        return [None if m is None else [None] * len(m)]
    if m is None:
        return [[None] * s.ndims]
    if len(m) != s.ndims:
        raise ValueError(f"Shape must be rank {len(m)} but is rank {s.ndims}")
    return [[None if d.value is None or k is None else d.value * k for d, k in zip(s.dims, m)]]


def _tile_kernel(x, multiples):
    x = _np(x)
    m = [int(v) for v in np.reshape(multiples, -1)]
    if len(m) != x.ndim:
        raise _invalid(
            f"Expected multiples argument to be a vector of length {x.ndim} but got length "
            f"{len(m)}"
        )
    for i, v in enumerate(m):
        if v < 0:
            raise _invalid(f"Expected multiples[{i}] >= 0, but got {v}")
    return np.tile(x, m)


op_registry.declare(
    "Tile",
    inputs=["input: T", "multiples: Tmultiples"],
    outputs=["output: T"],
    attrs=["T: type", "Tmultiples: {int32, int64} = DT_INT32"],
    shape=_tile_shape,
    kernel=_tile_kernel,
)


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
    if p.ndims == 2 and p.dims[1].value not in (None, 2):
        raise ValueError(f"Dimension 1 in both shapes must be equal, but are {p.dims[1].value} "
                         "and 2.")
    if s.ndims is not None and p.ndims == 2 and p.dims[0].value not in (None, s.ndims):
        raise ValueError(
            f"Dimension 0 in both shapes must be equal, but are {p.dims[0].value} and {s.ndims}."
        )
    if len(op._inputs) == 3:
        _check_rank(_in(op, 2), 0)
    r = s.ndims if s.ndims is not None else (p.dims[0].value if p.ndims == 2 else None)
    if r is None:
        return [None]
    v = ops.constant_value(op._inputs[1])
    if v is None:
        return [[None] * r]
    v = np.asarray(v).reshape(-1, 2)
    if s.ndims is None:
        return [[None] * r]
    out = []
    for d, (a, b) in zip(s.dims, v.tolist()):
        if a < 0 or b < 0:
            raise ValueError(f"Paddings must be non-negative: {a} {b}")
        out.append(None if d.value is None else d.value + a + b)
    return [out]


def _check_paddings(x, paddings):
    p = np.asarray(paddings)
    if p.ndim != 2 or p.shape[1] != 2 or p.shape[0] != x.ndim:
        raise _invalid(
            f"The first dimension of paddings must be the rank of inputs{_shape_str(p.shape)} "
            f"{_shape_str(x.shape)}"
        )
    if np.any(p < 0):
        raise _invalid(f"Paddings must be non-negative: {p.tolist()}")
    return [(int(a), int(b)) for a, b in p.tolist()]


def _pad_kernel(x, paddings):
    x = _np(x)
    p = _check_paddings(x, paddings)
    fill = b"" if x.dtype == object else 0
    return np.pad(x, p, mode="constant", constant_values=fill)


def _pad_v2_kernel(x, paddings, constant_values):
    x = _np(x)
    p = _check_paddings(x, paddings)
    c = _np(constant_values)
    if c.ndim != 0:
        raise _invalid(f"constant_values must be a scalar. Got: {_shape_str(c.shape)}")
    return np.pad(x, p, mode="constant", constant_values=c[()])


def _mirror_pad_kernel(x, paddings, *, mode):
    x = _np(x)
    p = _check_paddings(x, paddings)
    off = 0 if mode == "SYMMETRIC" else 1
    for i, (a, b) in enumerate(p):
        if a > x.shape[i] - off or b > x.shape[i] - off:
            raise _invalid(
                f"paddings must be no greater than the dimension size{'' if off == 0 else ' - 1'}"
                f": {a}, {b} greater than {x.shape[i] - off} (dimension {i})"
            )
    return np.pad(x, p, mode=mode.lower())


_PAD_ATTRS = ["T: type", "Tpaddings: {int32, int64} = DT_INT32"]
op_registry.declare(
    "Pad",
    inputs=["input: T", "paddings: Tpaddings"],
    outputs=["output: T"],
    attrs=_PAD_ATTRS,
    shape=_pad_shape,
    kernel=_pad_kernel,
)
op_registry.declare(
    "PadV2",
    inputs=["input: T", "paddings: Tpaddings", "constant_values: T"],
    outputs=["output: T"],
    attrs=_PAD_ATTRS,
    shape=_pad_shape,
    kernel=_pad_v2_kernel,
)
op_registry.declare(
    "MirrorPad",
    inputs=["input: T", "paddings: Tpaddings"],
    outputs=["output: T"],
    attrs=_PAD_ATTRS + ["mode: {'REFLECT', 'SYMMETRIC'}"],
    shape=_pad_shape,
    kernel=_mirror_pad_kernel,
)


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
    raise ValueError(f"Unknown padding mode: {mode}")


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
                raise ValueError(f"'axis'[{len(seen)}] = {a} is out of valid range [0, {r - 1}]")
            if a % r in seen:
                raise ValueError(f"axis {a % r} specified more than once.")
            seen.add(a % r)
    return [s]


def _reverse_kernel(tensor, axis):
    x = _np(tensor)
    r = x.ndim
    axes = [int(a) for a in np.reshape(axis, -1)]
    seen = set()
    for i, a in enumerate(axes):
        if not -r <= a < r:
            raise _invalid(f"'axis'[{i}] = {a} is out of valid range [0, {r - 1}]")
        if a % r in seen:
            raise _invalid(f"axis {a % r} specified more than once.")
        seen.add(a % r)
    return np.flip(x, axis=tuple(seen)) if seen else x


op_registry.declare(
    "ReverseV2",
    inputs=["tensor: T", "axis: Tidx"],
    outputs=["output: T"],
    attrs=["Tidx: {int32, int64} = DT_INT32",
           ("T: {uint8, int8, uint16, int16, int32, int64, bool, bfloat16, half, float, double, "
           "complex64, complex128, string}")],
    shape=_reverse_shape,
    kernel=_reverse_kernel,
)

_register_fold("ConcatV2", "Split", "SplitV", "Tile", "Pad", "PadV2", "ReverseV2")


def reverse_v2(tensor, axis, name=None):
    """Reverses ``tensor`` along the dimensions in ``axis``."""
    return ops.apply_op("ReverseV2", [tensor, axis], name=name)._outputs[0]


def reverse(tensor, axis, name=None):
    """Reverses ``tensor`` along ``axis``; 0.x's per-dimension bool list is accepted too."""
    if isinstance(axis, (list, tuple, np.ndarray)) and len(axis) and all(
        isinstance(a, (bool, np.bool_)) for a in np.asarray(axis).reshape(-1).tolist()
    ):
        axis = [i for i, a in enumerate(np.asarray(axis).reshape(-1).tolist()) if a]
    return reverse_v2(tensor, axis, name=name)

