"""Joining and splitting: Pack/Unpack (stack), ConcatV2 (and ConcatOffset), Split/SplitV; and the
packing of Python lists that hold tensors. Padding, tiling and reversing are in ``pad_ops``.
"""

import numbers

import numpy as np

from tideflow.framework import dtypes, op_registry, ops
from tideflow.framework.dispatch import add_dispatch_support
from tideflow.framework.tensor_shape import Dimension
from tideflow.ops import constant_op
from tideflow.ops.array_ops import (
    _check_rank,
    _in,
    _invalid,
    _np,
    _register_fold,
    _shape_str,
    identity,
    rank,
    shape,
    shape_n,
    squeeze,
    value_or_partial_vector,
)
from tideflow.ops.gradients import dense

# ------------------------------------------------------------------------------------------
# Pack (stack), Unpack (unstack), and lists of tensors as tensors
# ------------------------------------------------------------------------------------------


def _merge_error(a, b):
    """TF's message when shapes ``a`` and ``b`` do not merge (None when they do)."""
    if a.ndims is None or b.ndims is None:
        return None
    if a.ndims != b.ndims:
        return f"Shapes must be equal rank, but are {a.ndims} and {b.ndims}"
    for k, (x, y) in enumerate(zip(a.dims, b.dims)):
        if x.value is not None and y.value is not None and x.value != y.value:
            return (f"Dimension {k} in both shapes must be equal, but are {x.value} and "
                    f"{y.value}. Shapes are {_shape_str(a)} and {_shape_str(b)}.")
    return None


def _pack_shape(op):
    # TF merges from the last input to the first, naming the one that disagrees
    shapes = [t._shape for t in op._inputs]
    s = shapes[-1]
    for i in range(len(shapes) - 2, -1, -1):
        err = _merge_error(shapes[i], s)
        if err is not None:
            raise ValueError(f"{err}\n\tFrom merging shape {i} with other shapes.")
        s = shapes[i].merge_with(s)
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


def _pack_grad(op, grad):
    return unstack(dense(grad), num=op._attrs["N"], axis=op._attrs["axis"])


op_registry.declare(
    "Pack",
    inputs=["values: N * T"],
    outputs=["output: T"],
    attrs=["N: int >= 1", "T: type", "axis: int = 0"],
    shape=_pack_shape,
    kernel=_pack_kernel,
    grad=_pack_grad,
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


def _unpack_grad(op, *grads):
    return stack([dense(g) for g in grads], axis=op._attrs["axis"])


op_registry.declare(
    "Unpack",
    inputs=["value: T"],
    outputs=["output: num * T"],
    attrs=["num: int >= 0", "T: type", "axis: int = 0"],
    shape=_unpack_shape,
    kernel=_unpack_kernel,
    grad=_unpack_grad,
)


_DENSE = [ops.Tensor]  # the Variable class joins on first use (TF's is_dense_tensor_like)


def _dense_types():
    if len(_DENSE) == 1:
        from tideflow.ops.variables import Variable

        _DENSE.append(Variable)
    return tuple(_DENSE)


def _has_tensor(v):
    if isinstance(v, _dense_types()):
        return True
    if isinstance(v, (list, tuple)):
        return any(_has_tensor(x) for x in v)
    return False


def _first_tensor(v):
    if isinstance(v, _dense_types()):
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
            if isinstance(v, _dense_types()):
                v = ops.convert_to_tensor(v)  # a Variable: its value
                if v.dtype.base_dtype != dtype:
                    raise TypeError(
                        f"Cannot convert a list containing a tensor of dtype {v.dtype.base_dtype} "
                        f"to {dtype} (Tensor is: {v!r})"
                    )
                elems.append(v)
            elif _has_tensor(v):
                elems.append(_packed(v, dtype, str(i)))
            else:
                if isinstance(v, (list, tuple)):
                    # TF recurses into a sub-list first, opening (so using) the name scope
                    # str(i): its Const then takes the next name (``stack/2_1``)
                    with ops.name_scope(str(i)):
                        pass
                elems.append(constant_op.constant(v, dtype=dtype, name=str(i)))
        return ops.apply_op("Pack", [elems], {"T": dtype}, name=scope)._outputs[0]


def _autopacking_conversion(value, dtype=None, name=None, as_ref=False):
    if as_ref or not _has_tensor(value):
        return NotImplemented
    inferred = _first_tensor(value).dtype.base_dtype
    if dtype is not None and dtypes.as_dtype(dtype).base_dtype != inferred:
        # a requested dtype casts every tensor of the list to it (TF's
        # _cast_nested_seqs_to_dtype); only a list mixing dtypes without one is an error
        dtype = dtypes.as_dtype(dtype).base_dtype
        return _packed(_cast_tensors(value, dtype), dtype, name or "packed")
    return _packed(value, inferred, name or "packed")


def _cast_tensors(value, dtype):
    from tideflow.ops.cast_ops import cast

    if isinstance(value, _dense_types()):
        value = ops.convert_to_tensor(value)
        return value if value.dtype.base_dtype == dtype else cast(value, dtype)
    if isinstance(value, (list, tuple)):
        return [_cast_tensors(v, dtype) for v in value]
    return value


ops.register_tensor_conversion_function((list, tuple), _autopacking_conversion, priority=99)
_register_fold("Pack", "Unpack")


@add_dispatch_support  # RaggedTensor inputs: ragged stack
def stack(values, axis=0, name="stack"):
    """Stacks a list of rank-R tensors into one rank-(R+1) tensor along ``axis``."""
    if axis == 0 and isinstance(values, ops.Tensor):
        return values  # as TF: a tensor converts to itself (``tf.stack(shape_tensor)``)
    if axis == 0:
        # as TF: a constant list becomes a Const, one holding tensors is auto-packed (its
        # Python numbers become Consts named by their index: ``stack/0``)
        try:
            return ops.convert_to_tensor(values, name=name)
        except (TypeError, ValueError):
            pass
    # as TF: values[0] is converted on its own (a Python value becomes a Const of the
    # stack's name, left unused) for the rank the axis is checked against
    s = ops.convert_to_tensor(values[0], name=name).get_shape()
    first = _first_tensor(values)
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
    return list(ops.apply_op("Unpack", [value], {"num": num, "axis": axis}, name=name)._outputs)


def unpack(value, num=None, axis=0, name="unpack"):
    """0.x name of :func:`unstack`."""
    return unstack(value, num=num, axis=axis, name=name)


# ------------------------------------------------------------------------------------------
# ConcatV2
# ------------------------------------------------------------------------------------------


def _concat_shape(op):
    return _concat_static(op._inputs[:-1], op._inputs[-1])


def _concat_v1_shape(op):
    return _concat_static(op._inputs[1:], op._inputs[0])


def _concat_static(values, axis_t):
    from tideflow.framework.tensor_shape import TensorShape, unknown_shape

    _check_rank(axis_t._shape, 0)
    shapes = [t._shape for t in values]
    r = next((s.ndims for s in shapes if s.ndims is not None), None)
    if r == 0:  # as TF: a scalar first known rank fails before the others are compared
        raise ValueError("Can't concatenate scalars (use tf.stack instead)")
    # as TF: every input's rank is checked against the first known one, then (the axis
    # known) the last input's rank against the axis, then the inputs are merged from the
    # last to the first without the axis' dimension, whose sizes add up
    for s in shapes:
        if s.ndims is not None and s.ndims != r:
            raise ValueError(f"Shape must be rank {r} but is rank {s.ndims}")
    if r is None:
        return [None]
    axis = ops.constant_value(axis_t)
    if axis is None:
        return [[None] * r]
    axis = int(axis)
    min_rank = -axis if axis < 0 else axis + 1
    if r < min_rank:
        raise ValueError(f"Shape must be at least rank {min_rank} but is rank {r}")
    axis %= r

    def parts(s):
        if s.ndims is None:
            return unknown_shape(), None, unknown_shape()
        return TensorShape(s.dims[:axis]), s.dims[axis].value, TensorShape(s.dims[axis + 1:])

    before, total, after = parts(shapes[-1])
    for s in reversed(shapes[:-1]):
        b, middle, a = parts(s)
        for mine, merged in ((b, before), (a, after)):
            err = _merge_error(mine, merged)
            if err is not None:
                raise ValueError(err)
        before, after = b.merge_with(before), a.merge_with(after)
        total = None if total is None or middle is None else total + middle
    if before.ndims is None or after.ndims is None:
        return [[None] * r]
    return [before.dims + [Dimension(total)] + after.dims]


def _concat_kernel(values, axis):
    first = values[0]
    if type(first) is np.ndarray and first.ndim and -first.ndim <= int(axis) < first.ndim:
        # the common case at NumPy's speed (an RNN cell's [x, h] every step); whatever
        # NumPy rejects gets TF's checks and messages below
        try:
            return np.concatenate(values, axis=int(axis))
        except (ValueError, TypeError):
            pass
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


def _concat_indexed_slices_grad(grad, values, axis_t):
    """TF 1.15's gradient of a concat for IndexedSlices (a gather of a concat: embedding tables),
    op for op: IndexedSlices per input, the rows of each (axis 0) or its columns (axis > 0)."""
    from tideflow.framework.indexed_slices import IndexedSlices
    from tideflow.ops import cast_ops, fill_ops, gather_ops, math_ops, slicing_ops
    from tideflow.ops.array_ops import expand_dims

    # as TF, the axis mod the rank comes first (Rank, mod), and a negative static axis asks for
    # the rank once more (Rank_1)
    non_neg_axis = axis_t % rank(values[0])
    axis = ops.constant_value(axis_t)
    if axis is None:
        raise ValueError("Can only compute IndexedSlices gradient with statically-known "
                         "concat_dim")
    axis = int(axis)
    if axis < 0:
        r = ops.constant_value(rank(values[0]))
        if r is None:
            raise ValueError("Can only compute IndexedSlices gradient with negative concat_dim "
                             "when first value rank is statically-known.")
        axis %= int(r)
    sizes = [shape(v) for v in values]
    out = []
    if axis > 0:
        # TF's dense mask (1 at the axis) and begin vector, moved along by size * mask
        shape_of_shape = shape(sizes[0])
        mask = concat([fill_ops.fill(expand_dims(non_neg_axis, 0), 0), [1],
                       fill_ops.fill(shape_of_shape - non_neg_axis - 1, 0)], 0)
        begin = fill_ops.fill(shape_of_shape, 0)
        for size in sizes:
            part = slicing_ops.slice(grad.values, begin,
                                     concat([[-1], slicing_ops.slice(size, [1], [-1])], 0))
            out.append(IndexedSlices(part, grad.indices, size))
            begin = math_ops.add(begin, size * mask)
        return out
    indices = grad.indices
    start = constant_op.constant(0, dtype=indices.dtype)
    for size in sizes:
        size_axis = gather_ops.gather(size, non_neg_axis)
        if size_axis.dtype != indices.dtype:
            size_axis = cast_ops.cast(size_axis, indices.dtype)
        end = start + size_axis
        keep = squeeze(gather_ops.where(math_ops.logical_and(indices >= start, indices < end)),
                       axis=[1])
        new_indices = gather_ops.gather(indices, keep) - start
        out.append(IndexedSlices(gather_ops.gather(grad.values, keep), new_indices, size))
        start = end
    return out


def _concat_v2_grad(op, grad):
    from tideflow.framework.indexed_slices import IndexedSlices

    values = op._inputs[:-1]
    if isinstance(grad, IndexedSlices):
        return _concat_indexed_slices_grad(grad, values, op._inputs[-1]) + [None]
    return _concat_dense_grad(dense(grad), values, op._inputs[-1]) + [None]


def _concat_dense_grad(grad, values, axis):
    """TF 1.15's dense concat gradient, op for op: the axis mod the rank, the inputs' shapes
    (Consts when all known, else one ShapeN), ConcatOffset and a Slice per input (a split
    past 16 inputs)."""
    from tideflow.ops import slicing_ops

    if len(values) == 1:
        return [grad]
    axis = axis % rank(values[0])
    sizes = []
    for v in values:
        s = shape(v)
        if s.op.type != "Const":
            sizes = shape_n(values)
            break
        sizes.append(s)
    if len(sizes) > 16:
        sizes = squeeze(slicing_ops.slice(stack(sizes, axis=1), [axis, 0], [1, -1]))
        return list(split(grad, sizes, axis))
    offsets = concat_offset(axis, sizes)
    return [slicing_ops.slice(grad, b, z) for b, z in zip(offsets, sizes)]


def _concat_v1_grad(op, grad):
    from tideflow.framework.indexed_slices import IndexedSlices

    values = op._inputs[1:]
    if isinstance(grad, IndexedSlices):
        return [None] + _concat_indexed_slices_grad(grad, values, op._inputs[0])
    return [None] + _concat_dense_grad(dense(grad), values, op._inputs[0])


# TF's first concat (concat_dim before the values), as GraphDefs of TF 0.x-1.x models hold it
op_registry.declare(
    "Concat",
    inputs=["concat_dim: int32", "values: N * T"],
    outputs=["output: T"],
    attrs=["N: int >= 2", "T: type"],
    shape=_concat_v1_shape,
    kernel=lambda concat_dim, values: _concat_kernel(values, concat_dim),
    grad=_concat_v1_grad,
)
op_registry.declare(
    "ConcatV2",
    inputs=["values: N * T", "axis: Tidx"],
    outputs=["output: T"],
    attrs=["N: int >= 2", "T: type", "Tidx: {int32, int64} = DT_INT32"],
    shape=_concat_shape,
    kernel=_concat_kernel,
    grad=_concat_v2_grad,
)


def _concat_offset_kernel(concat_dim, shape):
    cdim = int(concat_dim)
    shapes = [np.asarray(s) for s in shape]
    first = shapes[0]
    n = first.size
    if first.ndim != 1:
        raise _invalid(f"input 0 should be a vector, got shape {_shape_str(first.shape)}")
    if not -n <= cdim < n:
        raise _invalid(f"Concat dim is out of range: {cdim} vs. {n}")
    cdim %= n
    out = []
    offset = 0
    for i, s in enumerate(shapes):
        if s.shape != first.shape:
            raise _invalid(f"input {i} should contain {n} elements, but got {s.size}")
        if any(s[j] != first[j] for j in range(n) if j != cdim):
            raise _invalid(
                # the shapes as TF prints a tensor's values: [2 7 10]
                f"All dimensions except {cdim} must match. Input {i} has shape "
                f"[{' '.join(map(str, s.tolist()))}] and doesn't match input 0 with shape "
                f"[{' '.join(map(str, first.tolist()))}]."
            )
        o = np.zeros(n, dtype=first.dtype)
        o[cdim] = offset
        out.append(o)
        offset += int(s[cdim])
    return out


op_registry.declare(
    "ConcatOffset",
    inputs=["concat_dim: int32", "shape: N * shape_type"],
    outputs=["offset: N * shape_type"],
    attrs=["N: int >= 2", "shape_type: {int32, int64} = DT_INT32"],
    newer_attrs=["shape_type"],  # TF 2.x's
    shape=lambda op: [t._shape for t in op._inputs[1:]],
    kernel=_concat_offset_kernel,
    differentiable=False,
)


def concat_offset(concat_dim, shape, name=None):
    """The offset of each input of a concatenation along ``concat_dim`` (for its gradient)."""
    return ops.apply_op("ConcatOffset", [concat_dim, list(shape)], name=name)._outputs


def _is_int_like(v):
    if isinstance(v, ops.Tensor):
        return v.get_shape().ndims == 0 and v.dtype.base_dtype in (dtypes.int32, dtypes.int64)
    if isinstance(v, np.ndarray):
        return v.ndim == 0 and v.dtype.kind in "iu"
    return isinstance(v, (numbers.Integral, Dimension)) and not isinstance(v, bool)


@add_dispatch_support  # RaggedTensor inputs: ragged concat
def concat(values=None, axis=None, name="concat", concat_dim=None):
    """Concatenates ``values`` along ``axis``; also accepts 0.x's ``concat(concat_dim, values)``
    (positionally or by those keywords)."""
    if concat_dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'concat_dim'")
        axis = concat_dim
    if values is None or axis is None:  # (Python's words for TF's two required arguments)
        missing = [n for n, v in (("values", values), ("axis", axis)) if v is None]
        raise TypeError(f"concat() missing {len(missing)} required positional argument"
                        f"{'s' if len(missing) > 1 else ''}: "
                        + " and ".join(f"'{n}'" for n in missing))
    if _is_int_like(values) and not _is_int_like(axis):
        values, axis = axis, values
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        with ops.name_scope(name):
            a = ops.convert_to_tensor(axis, name="concat_dim", dtype=dtypes.int32)
            if a.get_shape().ndims not in (None, 0):
                raise ValueError(f"Shape {a.get_shape()} must have rank 0")
            return identity(values[0], name=name)  # TF names it "concat/concat"
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
        raise ValueError(f"Dimension size, given by scalar input {axis} must be in range "
                         f"[{-r}, {r})")
    axis %= r
    d = s.dims[axis].value
    if d is not None and d % n:
        # TF's words: the dimension division's error, with the op's context after it
        raise ValueError(
            f"Dimension size must be evenly divisible by {n} but is {d}\n\tNumber of ways to "
            "split should evenly divide the split dimension")
    dims = s.dims
    dims[axis] = Dimension(None if d is None else d // n)
    return [dims] * n


def _split_kernel(split_dim, value, *, num_split):
    value = _np(value)
    r = value.ndim
    axis = _split_axis(split_dim)
    if not -r <= axis < r:
        raise _invalid(f"-input rank(-{r}) <= split_dim < input rank ({r}), but got {axis}")
    axis %= r
    if value.shape[axis] % num_split:
        raise _invalid(
            f"Number of ways to split should evenly divide the split dimension, but got "
            f"split_dim {axis} (size = {value.shape[axis]}) and num_split {num_split}"
        )
    # the same views np.split makes, without its generic array_split (a third of an RNN
    # cell's Split time)
    n = value.shape[axis] // num_split
    pre = (slice(None),) * axis
    return [value[pre + (slice(i * n, (i + 1) * n),)] for i in range(num_split)]


def _split_grad(op, *grads):
    return [None, concat([dense(g) for g in grads], op._inputs[0])]


op_registry.declare(
    "Split",
    inputs=["split_dim: int32", "value: T"],
    outputs=["output: num_split * T"],
    attrs=["num_split: int >= 1", "T: type"],
    shape=_split_shape,
    kernel=_split_kernel,
    grad=_split_grad,
)


def _split_v_shape(op):
    s = _in(op, 0)
    n = op._attrs["num_split"]
    sizes = value_or_partial_vector(op._inputs[1])
    axis = ops.constant_value(op._inputs[2])
    if s.ndims is None:
        return [None] * n
    r = s.ndims
    if axis is None:
        return [[None] * r] * n
    axis = int(axis)
    if not -r <= axis < r:
        raise ValueError(f"Dimension size, given by scalar input {axis} must be in range "
                         f"[{-r}, {r})")
    axis %= r
    if sizes is None:
        sizes = [None] * n
    elif None in sizes:
        # TF 1.15 reads size_splits as a whole constant or not at all: a partly known value
        # leaves every piece's split dimension unknown
        sizes = [None] * len(sizes)
    if len(sizes) != n:
        raise ValueError(f"Dimension 0 in both shapes must be equal, but are {len(sizes)} and {n}")
    d = s.dims[axis].value
    if sizes.count(-1) > 1:
        raise ValueError("size_splits can only have one -1")
    if None not in sizes and d is not None:
        # TF 1.15's shape function: the sizes (one -1 standing for the rest) must fill the axis
        determined = sum(v for v in sizes if v != -1)
        if (determined > d) if -1 in sizes else (determined != d):
            raise ValueError(f"can't split axis of size {d} into pieces of size "
                             f"[{','.join(str(v) for v in sizes)}]")
        sizes = [d - determined if v == -1 else v for v in sizes]
        for i, v in enumerate(sizes):
            if v < 0:
                raise ValueError(f"Split size at index {i} must be >= 0. Got: {v}")
    out = []
    for v in sizes:
        dims = s.dims
        dims[axis] = Dimension(None if v is None or v < 0 else v)
        out.append(dims)
    return out


def _split_v_kernel(value, size_splits, split_dim, *, num_split):
    value = _np(value)
    r = value.ndim
    axis = _split_axis(split_dim)
    if not -r <= axis < r:
        raise _invalid(f"-input rank(-{r}) <= split_dim < input rank ({r}), but got {axis}")
    axis %= r
    sizes = [int(v) for v in np.reshape(size_splits, -1)]
    if len(sizes) != num_split:
        raise _invalid(f"size_splits has {len(sizes)} values, but num_split is {num_split}")
    if sizes.count(-1) > 1:
        raise _invalid("There can only be one -1 in the input.")
    sizes = _resolve_split_sizes(sizes, value.shape[axis], _invalid)
    return np.split(value, np.cumsum(sizes)[:-1], axis=axis)


def _resolve_split_sizes(sizes, d, err):
    """SplitV's sizes with the -1 filled in, checked in TF's order and words."""
    determined = sum(v for v in sizes if v != -1)
    if (-1 not in sizes and determined != d) or (-1 in sizes and determined > d):
        raise err(
            f"Determined shape must either match input shape along split_dim exactly if fully "
            f"specified, or be less than the size of the input along split_dim if not fully "
            f"specified.  Got: {determined}"
        )
    sizes = [d - determined if v == -1 else v for v in sizes]
    for i, v in enumerate(sizes):
        if v < 0:
            raise err(f"Split size at index {i} must be >= 0. Got: {v}")
    return sizes


def _split_axis(split_dim):
    if np.size(split_dim) != 1:
        raise _invalid(f"split_dim tensor should have exactly one element, but got shape "
                       f"{_shape_str(np.shape(split_dim))}: split_dim must have exactly one "
                       "element")
    return int(np.reshape(split_dim, -1)[0])


def _split_v_grad(op, *grads):
    return [concat([dense(g) for g in grads], op._inputs[2]), None, None]


op_registry.declare(
    "SplitV",
    inputs=["value: T", "size_splits: Tlen", "split_dim: int32"],
    outputs=["output: num_split * T"],
    attrs=["num_split: int >= 1", "T: type", "Tlen: {int32, int64} = DT_INT64"],
    shape=_split_v_shape,
    kernel=_split_v_kernel,
    grad=_split_v_grad,
)


def split(value=None, num_or_size_splits=None, axis=0, num=None, name="split", split_dim=None,
          num_split=None):
    """Splits ``value`` along ``axis`` into ``num_or_size_splits`` pieces (or pieces of sizes).

    Also accepts 0.x's ``split(split_dim, num_split, value)``, positionally or by keywords.
    """
    if num_split is not None:
        num_or_size_splits = num_split
    if split_dim is not None:
        axis = split_dim
    if value is None or num_or_size_splits is None:
        raise TypeError("split() needs 'value' and 'num_or_size_splits'")
    if _is_int_like(value) and not _is_int_like(axis) and not isinstance(axis, Dimension):
        value, axis = axis, value
    if isinstance(num_or_size_splits, (numbers.Integral, Dimension)) and not isinstance(
        num_or_size_splits, bool
    ):
        # TF 1.15 converts the count to a tensor it then leaves unused: one Const more in the
        # graph (the seeds of later random ops count it)
        ops.convert_to_tensor(int(num_or_size_splits))
        return list(ops.apply_op("Split", [axis, value], {"num_split": int(num_or_size_splits)},
                                 name=name)._outputs)
    sizes = num_or_size_splits
    if not isinstance(sizes, ops.Tensor):
        sizes = ops.convert_to_tensor(sizes)
    if sizes.get_shape().ndims == 0:
        raise ValueError("Rank-0 tensors are not supported as the num_or_size_splits argument "
                         f"to split. Argument provided: {num_or_size_splits}")
    if num is None:
        s = sizes.get_shape()
        num = s.dims[0].value if s.ndims else None
        if num is None:
            raise ValueError(f"Cannot infer num from shape {num_or_size_splits}")
    return list(ops.apply_op("SplitV", [value, sizes, axis], {"num_split": num},
                             name=name)._outputs)


_register_fold("Concat", "ConcatV2", "ConcatOffset", "Split", "SplitV")

# tf.pad, tf.tile and tf.reverse are still reachable from here (the public namespace imports them)
from tideflow.ops.pad_ops import pad, reverse, reverse_v2, tile  # noqa: F401
