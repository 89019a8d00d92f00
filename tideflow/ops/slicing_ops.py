"""Slicing: the Slice and StridedSlice ops, ``Tensor.__getitem__``, and ``tf.boolean_mask``."""

import builtins
import numbers
import re

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.dispatch import add_dispatch_support
from tideflow.framework.tensor_shape import Dimension, as_shape
from tideflow.ops import array_ops, cast_ops, concat_ops, fill_ops, gather_ops, pad_ops
from tideflow.ops.array_ops import (
    _check_rank,
    _fold,
    _in,
    _invalid,
    _np,
    _register_fold,
    constant_value_as_shape,
    value_or_partial_vector,
)
from tideflow.ops.gradients import dense

_pyslice = builtins.slice

# ------------------------------------------------------------------------------------------
# Slice
# ------------------------------------------------------------------------------------------


def _slice_shape(op):
    s = _in(op, 0)
    _check_rank(_in(op, 1), 1)
    _check_rank(_in(op, 2), 1)
    # as TF: begin's length merged with size's, then the input's rank checked against it
    lengths = [_in(op, i).dims[0].value if _in(op, i).dims else None for i in (1, 2)]
    if None not in lengths and lengths[0] != lengths[1]:
        raise ValueError(f"Dimension 0 in both shapes must be equal, but are {lengths[0]} and "
                         f"{lengths[1]}. Shapes are [{lengths[0]}] and [{lengths[1]}].")
    rank = lengths[0] if lengths[0] is not None else lengths[1]
    if rank is not None and s.ndims is not None and s.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {s.ndims}")
    begin = value_or_partial_vector(op._inputs[1])
    size = value_or_partial_vector(op._inputs[2])
    n = len(begin) if begin is not None else (len(size) if size is not None else s.ndims)
    if n is None:
        return [None]
    begin = begin or [None] * n
    size = size or [None] * n
    if len(begin) != len(size) or (s.ndims is not None and s.ndims != n):
        raise ValueError(
            f"Shape must be rank {s.ndims if s.ndims is not None else len(begin)} but is rank "
            f"{len(size) if len(begin) != len(size) else n}"
        )
    # as in TF: a size of -1 resolves only when the whole size vector is constant, and sizes
    # past the end are left for the kernel to reject
    size_known = None not in size
    bad = [z for z in size if z is not None and z < -1]
    # (TF reads the sizes as a shape tensor: -1 is unknown, below it invalid; a partly known
    # Pack reads any negative entry as unknown)
    if bad and size_known:
        raise ops.shape_tensor_error(f"Invalid value in tensor used for shape: {bad[0]}")
    out = []
    for i in range(n):
        d = None if s.ndims is None else s.dims[i].value
        b, z = begin[i], size[i]
        if z is None or (z < 0 and not size_known):
            out.append(None)
        elif z == -1:
            if d is not None and b is not None and not 0 <= b <= d:
                raise ValueError(f"Expected begin[{i}] in [0, {d}], but got {b}")
            out.append(None if d is None or b is None else d - b)
        else:
            out.append(z)
    return [out]


def _slice_kernel(x, begin, size):
    x = _np(x)
    if type(begin) is np.ndarray and type(size) is np.ndarray and begin.dtype.kind in "iu" \
            and size.dtype.kind in "iu":
        begin, size = begin.reshape(-1).tolist(), size.reshape(-1).tolist()  # Python ints
    else:
        begin = [int(v) for v in np.reshape(begin, -1)]
        size = [int(v) for v in np.reshape(size, -1)]
    if len(begin) != x.ndim or len(size) != x.ndim:
        raise _invalid(
            f"Expected begin and size arguments to be 1-D tensors of size {x.ndim}, but got "
            f"shapes [{len(begin)}] and [{len(size)}] instead."
        )
    idx = []
    for i, (b, z, d) in enumerate(zip(begin, size, x.shape)):
        if z == -1:
            z = d - b
        if d == 0 and (b or z):  # TF 1.15's words for an empty dimension
            raise _invalid(f"Expected begin[{i}] == 0 (got {b}) and size[{i}] == 0 (got {z}) "
                           f"when input.dim_size({i}) == 0")
        if not 0 <= b <= d:
            raise _invalid(f"Expected begin[{i}] in [0, {d}], but got {b}")
        if not 0 <= z <= d - b:
            raise _invalid(f"Expected size[{i}] in [0, {d - b}], but got {z}")
        idx.append(_pyslice(b, b + z))
    return x[tuple(idx)]


def _slice_grad(op, grad):
    # zeros around the slice: pad before by begin, after by shape(x) - shape(y) - begin,
    # with TF 1.15's ops in its order
    x, begin = op._inputs[:2]
    index = begin.dtype.base_dtype
    input_rank = array_ops.rank(x)
    slice_size = array_ops.shape(op._outputs[0], out_type=index)
    shape = concat_ops.stack([input_rank, 1])
    before = array_ops.reshape(begin, shape)
    after = array_ops.reshape(array_ops.shape(x, out_type=index) - slice_size - begin, shape)
    paddings = concat_ops.concat([before, after], 1)
    return [pad_ops.pad(dense(grad), paddings), None, None]


op_registry.declare(
    "Slice",
    inputs=["input: T", "begin: Index", "size: Index"],
    outputs=["output: T"],
    attrs=["T: type", "Index: {int32, int64}"],
    shape=_slice_shape,
    kernel=_slice_kernel,
    grad=_slice_grad,
)


def slice(input_, begin, size, name=None):
    """Extracts ``size[i]`` elements from ``begin[i]`` along each dimension (-1: the rest)."""
    return ops.apply_op("Slice", [input_, begin, size], name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# StridedSlice
# ------------------------------------------------------------------------------------------

_MASKS = ["begin_mask: int = 0", "end_mask: int = 0", "ellipsis_mask: int = 0",
          "new_axis_mask: int = 0", "shrink_axis_mask: int = 0"]


def _strided_slice_shape(op):
    s = _in(op, 0)
    n = None
    for i in (1, 2, 3):  # as TF: begin's length merged with end's, then with the strides'
        _check_rank(_in(op, i), 1)
        k = _in(op, i).dims[0].value if _in(op, i).dims else None
        if n is not None and k is not None and k != n:
            raise ValueError(f"Dimension 0 in both shapes must be equal, but are {n} and {k}. "
                             f"Shapes are [{n}] and [{k}].")
        n = k if n is None else n
    # As TF, the strides' value is asked for first and begin/end's only once it is known,
    # so an error found then lists only the strides among the computed inputs.
    # (the whole value, as TF's input_tensor: a packed stride is evaluated, and so listed
    # among the computed inputs of an error, not read piece by piece)
    strides = ops.constant_value(op._inputs[3])
    strides = None if strides is None else [int(x) for x in np.reshape(strides, -1)]
    if strides is None or None in strides:
        return [None]  # as TF: strides not fully known leave the rank unknown too (x[::k])
    n = len(strides)
    specs = [value_or_partial_vector(op._inputs[1]), value_or_partial_vector(op._inputs[2])]
    begin, end = (v if v is not None else [None] * n for v in specs)
    a = op._attrs
    bm, em, elm, nm, sm = (a["begin_mask"], a["end_mask"], a["ellipsis_mask"],
                           a["new_axis_mask"], a["shrink_axis_mask"])
    if s.ndims is None:
        return [None]
    r = s.ndims
    # As TF's shape refiner: a first pass knows begin and end only where both are constants,
    # a second once they are evaluated (a zero stride found first hides a shrunk index out of
    # bounds before it); shrunk indices are checked only where begin and end are both known.
    dims = [d.value for d in s.dims]
    whole = specs[0] if all(v is not None and None not in v for v in specs) else None
    direct = whole if all(op._inputs[k].op.type == "Const" for k in (1, 2)) else None
    error = _spec_error(dims, direct, strides, elm, nm, sm) or _spec_error(
        dims, whole, strides, elm, nm, sm)
    if error is not None:
        raise ValueError(error)
    ell = [i for i in range(n) if elm >> i & 1]
    if not ell:
        ell = [n]  # an implicit ellipsis after the spec covers the remaining dims
        total = n + 1
    else:
        total = n
    new_after = sum(1 for i in range(ell[0] + 1, n) if nm >> i & 1 and not elm >> i & 1)
    out = []
    full = 0
    for i in range(total):
        if i == ell[0]:
            nxt = min(r - (total - i) + 1 + new_after, r)
            while full < nxt:
                out.append(s.dims[full])
                full += 1
            continue
        if nm >> i & 1:
            out.append(1)
            continue
        d = s.dims[full].value
        full += 1
        b, e, st = begin[i], end[i], strides[i]
        if sm >> i & 1:
            continue
        b_masked, e_masked = bm >> i & 1, em >> i & 1
        if d is None or st is None or (b is None and not b_masked) or (
            e is None and not e_masked
        ):
            out.append(None)
        else:
            sl = _pyslice(None if b_masked else b, None if e_masked else e, st)
            out.append(len(builtins.range(*sl.indices(d))))
    return [out]


def _spec_error(dims, begin, strides, ellipsis_mask, new_axis_mask, shrink_axis_mask):
    """TF's first complaint about a strided-slice spec over an input of sizes ``dims`` (None
    where unknown; ``begin`` None unless begin and end are both known), in TF's order: several ellipses, more
    indices than dimensions, then dimension by dimension a zero stride or a shrunk index out
    of bounds (numbered by the input's dimension, not the spec's entry); None if it is fine."""
    n, r = len(strides), len(dims)
    if sum(1 for i in range(n) if ellipsis_mask >> i & 1) > 1:
        return "Multiple ellipses in slice spec not allowed"
    explicit = sum(1 for i in range(n) if not (new_axis_mask | ellipsis_mask) >> i & 1)
    if explicit > r:
        return f"Index out of range using input dim {r}; input has only {r} dims"
    dim = 0
    for i in range(n):
        if ellipsis_mask >> i & 1:
            dim += r - explicit
            continue
        if new_axis_mask >> i & 1:
            continue
        if strides[i] == 0:
            return f"strides[{dim}] must be non-zero"
        if shrink_axis_mask >> i & 1 and dims[dim] is not None:
            # (TF skips a dimension of unknown size before its shrink checks)
            if strides[i] < 0:
                return "only stride 1 allowed on non-range indexing."
            b, d = (begin[i] if begin is not None else None), dims[dim]
            if b is not None and not -d <= b < d:
                # TF names the index counted from the front
                return f"slice index {b + d if b < 0 else b} of dimension {dim} out of bounds."
        dim += 1
    return None


_INDEX_CACHE = {}


def _strided_index(begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                   shrink_axis_mask):
    """The NumPy basic index that a StridedSlice's spec and masks describe (remembered per
    spec: RNN loops slice with the same constant spec at every step)."""
    try:
        if type(begin) is np.ndarray and type(end) is np.ndarray and type(strides) is np.ndarray:
            key = (begin.tobytes(), end.tobytes(), strides.tobytes(), begin.dtype.char,
                   begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
        else:
            key = (np.asarray(begin).tobytes(), np.asarray(end).tobytes(),
                   np.asarray(strides).tobytes(), np.asarray(begin).dtype.char, begin_mask,
                   end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
    except (TypeError, ValueError):
        key = None
    idx = _INDEX_CACHE.get(key) if key is not None else None
    if idx is None:
        idx = _build_strided_index(begin, end, strides, begin_mask, end_mask, ellipsis_mask,
                                   new_axis_mask, shrink_axis_mask)
        if key is not None:
            if len(_INDEX_CACHE) >= 4096:
                _INDEX_CACHE.clear()
            _INDEX_CACHE[key] = idx
    return idx


def _build_strided_index(begin, end, strides, begin_mask, end_mask, ellipsis_mask,
                         new_axis_mask, shrink_axis_mask):
    b, e, s = (np.reshape(v, -1).tolist() for v in (begin, end, strides))
    n = len(b)
    if len(e) != n or len(s) != n:
        raise _invalid(
            "Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
            f"[{n}], [{len(e)}], and [{len(s)}] instead."
        )
    idx = []
    seen_ellipsis = False
    for i in range(n):
        bit = 1 << i
        if ellipsis_mask & bit:
            if seen_ellipsis:
                raise _invalid("Multiple ellipses in slice spec not allowed")
            seen_ellipsis = True
            idx.append(Ellipsis)
        elif new_axis_mask & bit:
            idx.append(None)
        elif shrink_axis_mask & bit:
            if s[i] <= 0:  # TF's words; a positive stride is allowed too
                raise _invalid("only stride 1 allowed on non-range indexing.")
            idx.append(b[i])
        else:
            if s[i] == 0:
                raise _invalid(f"strides[{i}] must be non-zero")
            idx.append(_pyslice(None if begin_mask & bit else b[i],
                                None if end_mask & bit else e[i], s[i]))
    return tuple(idx)


def _out_of_bounds(exc):
    """TF's words for a shrunk index past the end: "slice index 5 of dimension 0 out of
    bounds." (from NumPy's "index 5 is out of bounds for axis 0 with size 2")."""
    m = re.search(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)", str(exc))
    rank = re.search(r"array is (\d+)-dimensional", str(exc))
    if m is None and rank is not None:
        # more dense indices than the input has dimensions
        return (f"Index out of range using input dim {rank.group(1)}; input has only "
                f"{rank.group(1)} dims")
    if m is None:
        return f"slice index out of bounds: {exc}"
    b = int(m.group(1))
    b = b + int(m.group(3)) if b < 0 else b  # TF names the index counted from the front
    return f"slice index {b} of dimension {m.group(2)} out of bounds."


def _strided_slice_kernel(x, begin, end, strides, *, begin_mask, end_mask, ellipsis_mask,
                          new_axis_mask, shrink_axis_mask):
    x = _np(x)
    try:
        idx = _strided_index(begin, end, strides, begin_mask, end_mask, ellipsis_mask,
                             new_axis_mask, shrink_axis_mask)
        out = x[idx]
    except (IndexError, errors.InvalidArgumentError) as exc:
        b, s = (np.reshape(v, -1).tolist() for v in (begin, strides))
        error = _spec_error(list(x.shape), b, s, ellipsis_mask, new_axis_mask,
                            shrink_axis_mask) if len(b) == len(s) else None
        if error is None and isinstance(exc, errors.InvalidArgumentError):
            raise
        raise _invalid(error or _out_of_bounds(exc)) from None
    return out if type(out) is np.ndarray else np.asarray(out, dtype=x.dtype)


def _masks(op):
    return {k: op._attrs[k] for k in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                      "shrink_axis_mask")}


def _strided_slice_grad(op, grad):
    x, begin, end, strides = op._inputs
    index = begin.dtype.base_dtype
    shape = array_ops.shape(x, out_type=index)
    # (an IndexedSlices dy is made dense inside the op's scope, as TF: StridedSliceGrad/dy)
    return [strided_slice_grad(shape, begin, end, strides, grad, **_masks(op)),
            None, None, None]


op_registry.declare(
    "StridedSlice",
    inputs=["input: T", "begin: Index", "end: Index", "strides: Index"],
    outputs=["output: T"],
    attrs=["T: type", "Index: {int32, int64}"] + _MASKS,
    shape=_strided_slice_shape,
    kernel=_strided_slice_kernel,
    grad=_strided_slice_grad,
)


def _strided_slice_grad_kernel(shape, begin, end, strides, dy, *, begin_mask, end_mask,
                               ellipsis_mask, new_axis_mask, shrink_axis_mask):
    dy = _np(dy)
    out = np.zeros(shape.tolist() if type(shape) is np.ndarray and shape.ndim == 1 else
                   [int(d) for d in np.reshape(shape, -1)], dtype=dy.dtype)
    idx = _strided_index(begin, end, strides, begin_mask, end_mask, ellipsis_mask,
                         new_axis_mask, shrink_axis_mask)
    try:
        window = out[idx]
    except IndexError as exc:
        raise _invalid(_out_of_bounds(exc)) from None
    if window.shape != dy.shape:
        raise _invalid(
            f"shape of dy was {list(dy.shape)} instead of {list(np.shape(window))}"
        )
    out[idx] = dy
    return out


def _strided_slice_grad_grad(op, grad):
    _, begin, end, strides, _ = op._inputs
    return [None, None, None, None,
            strided_slice(dense(grad), begin, end, strides, **_masks(op))]


op_registry.declare(
    "StridedSliceGrad",
    inputs=["shape: Index", "begin: Index", "end: Index", "strides: Index", "dy: T"],
    outputs=["output: T"],
    attrs=["T: type", "Index: {int32, int64}"] + _MASKS,
    shape=lambda op: [constant_value_as_shape(op._inputs[0])],
    kernel=_strided_slice_grad_kernel,
    grad=_strided_slice_grad_grad,
)


def strided_slice_grad(shape, begin, end, strides, dy, begin_mask=0, end_mask=0,
                       ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0, name=None):
    """Zeros of ``shape`` with ``dy`` placed where StridedSlice(begin, end, strides) reads."""
    return ops.apply_op(
        "StridedSliceGrad", [shape, begin, end, strides, dy],
        {"begin_mask": begin_mask, "end_mask": end_mask, "ellipsis_mask": ellipsis_mask,
         "new_axis_mask": new_axis_mask, "shrink_axis_mask": shrink_axis_mask},
        name=name,
    )._outputs[0]

_register_fold("Slice", "StridedSliceGrad")


def _strided_slice_value(op, index):
    # (only a fully known value: as TF 1.15, a slice of a partly known shape is not a
    # constant even where its elements are known; shape arguments read it as a partial shape)
    return _fold(op, index)


ops.register_constant_value("StridedSlice", _strided_slice_value)


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """Extracts a strided slice of ``input_`` (the masks as in Python's extended slicing)."""
    del var
    if strides is None:
        strides = fill_ops.ones_like(begin)
    return ops.apply_op(
        "StridedSlice", [input_, begin, end, strides],
        {"begin_mask": begin_mask, "end_mask": end_mask, "ellipsis_mask": ellipsis_mask,
         "new_axis_mask": new_axis_mask, "shrink_axis_mask": shrink_axis_mask},
        name=name,
    )._outputs[0]


_SLICE_TYPE_ERROR = array_ops._SLICE_TYPE_ERROR


def _index_value(idx):
    """A slice bound or index as an int or a scalar int tensor (TypeError otherwise)."""
    if isinstance(idx, Dimension):
        # an unknown one stays a Dimension, whose packing fails in TF's words ("Cannot
        # convert an unknown Dimension to a Tensor"), inside the op's name scope as in TF
        return idx if idx.value is None else idx.value
    if isinstance(idx, numbers.Integral):
        return int(idx)
    if isinstance(idx, np.ndarray) and idx.ndim == 0 and idx.dtype.kind in "iu":
        return int(idx)
    if not isinstance(idx, (ops.Tensor, np.ndarray)) and getattr(idx, "dtype", None) in (
            dtypes.int32, dtypes.int64, dtypes.int32_ref, dtypes.int64_ref):
        idx = ops.convert_to_tensor(idx)  # an integer variable indexes by its value, as in TF
    if isinstance(idx, ops.Tensor) and idx.dtype.base_dtype in (dtypes.int32, dtypes.int64) and (
        idx.get_shape().ndims in (None, 0)
    ):
        return idx
    raise TypeError(f"{_SLICE_TYPE_ERROR}, got {idx!r}")


# ------------------------------------------------------------------------------------------
# StridedSliceAssign: ``var[spec].assign(value)`` on a ref variable
# ------------------------------------------------------------------------------------------


def _strided_slice_assign_factory(ctx):
    from tideflow.ops import state_ops

    op = ctx.op
    masks = {k: op._attrs[k] for k in ("begin_mask", "end_mask", "ellipsis_mask",
                                       "new_axis_mask", "shrink_axis_mask")}
    var_op = state_ops.variable_op_of(op._inputs[0])
    res = state_ops.resource_for(ctx, var_op) if var_op is not None else None

    def run(ref, begin, end, strides, value):
        if isinstance(ref, state_ops.UninitializedValue):
            raise state_ops._uninitialized_error(ref.name, op)
        if res is not None and res.buf is not None:
            # the variable's current value: an Assign earlier in the step (validate_shape=False)
            # may have given it a new buffer since the ref was read, as a TF ref sees
            ref = res.buf
        idx = _strided_index(begin, end, strides, **masks)
        try:
            target = ref[idx]
        except IndexError as exc:
            raise _invalid(_out_of_bounds(exc)) from None
        if np.size(target) == 0:
            return ref  # an empty window takes any value, as TF's kernel
        value = np.asarray(value)
        if np.shape(target) != value.shape:
            raise errors.UnimplementedError(  # TF 1.15's class
                None, None,
                f"sliced l-value shape {_shape_list(np.shape(target))} does not match r-value "
                f"shape {_shape_list(value.shape)}. Automatic broadcasting not yet implemented.")
        ref[idx] = value
        return ref

    return run


def _shape_list(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


op_registry.declare(
    "StridedSliceAssign",
    inputs=["ref: Ref(T)", "begin: Index", "end: Index", "strides: Index", "value: T"],
    outputs=["output_ref: Ref(T)"],
    attrs=["T: type", "Index: {int32, int64}"] + _MASKS,
    shape=lambda op: [op._inputs[0]._shape],
    kernel_factory=_strided_slice_assign_factory,  # (no gradient defined, as TF 1.15)
    stateful=True,
)


def strided_slice_assign(ref, begin, end, strides, value, begin_mask=0, end_mask=0,
                         ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0, name=None):
    """``ref[begin:end:strides] = value`` (the masks as in StridedSlice); returns the ref."""
    from tideflow.ops.state_ops import _ref_of

    ref = _ref_of(ref)
    if ref.dtype == dtypes.resource:  # a resource variable's handle: TF's resource form (an op)
        return ops.apply_op(
            "ResourceStridedSliceAssign", [ref, begin, end, strides, value],
            {"begin_mask": begin_mask, "end_mask": end_mask, "ellipsis_mask": ellipsis_mask,
             "new_axis_mask": new_axis_mask, "shrink_axis_mask": shrink_axis_mask},
            name=name)
    return ops.apply_op(
        "StridedSliceAssign", [ref, begin, end, strides, value],
        {"begin_mask": begin_mask, "end_mask": end_mask, "ellipsis_mask": ellipsis_mask,
         "new_axis_mask": new_axis_mask, "shrink_axis_mask": shrink_axis_mask},
        name=name,
    )._outputs[0]


def _slice_helper(tensor, slice_spec, var=None):
    """``tensor[slice_spec]``: NumPy-style basic indexing as one StridedSlice; a boolean
    mask (a bool, bool ndarray or bool tensor) is ``boolean_mask(tensor, mask)``, as TF 1.x."""
    if (isinstance(slice_spec, bool)  # as TF: a NumPy bool scalar is a bad index, not a mask
            or (isinstance(slice_spec, np.ndarray) and slice_spec.dtype == bool)
            or (isinstance(slice_spec, ops.Tensor) and slice_spec.dtype.base_dtype == dtypes.bool)):
        return boolean_mask(tensor, slice_spec)
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin, end, strides = [], [], []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    for index, s in enumerate(slice_spec):
        bit = 1 << index
        if isinstance(s, _pyslice):
            start = None if s.start is None else _index_value(s.start)
            stop = None if s.stop is None else _index_value(s.stop)
            if start is None:
                begin.append(0)
                begin_mask |= bit
            else:
                begin.append(start)
            if stop is None:
                end.append(0)
                end_mask |= bit
            else:
                end.append(stop)
            strides.append(1 if s.step is None else _index_value(s.step))
        elif s is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            ellipsis_mask |= bit
        elif s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            new_axis_mask |= bit
        else:
            v = _index_value(s)
            begin.append(v)
            end.append(v + 1)
            strides.append(1)
            shrink_axis_mask |= bit
    with ops.name_scope(None, "strided_slice", [tensor]) as scope:
        if begin:
            parts = [concat_ops.stack(begin), concat_ops.stack(end), concat_ops.stack(strides)]
            if any(p.dtype.base_dtype == dtypes.int64 for p in parts):
                parts = [cast_ops.cast(p, dtypes.int64) for p in parts]
        else:
            empty = ops.convert_to_tensor(np.zeros([0], np.int32))
            parts = [empty, empty, empty]
        out = strided_slice(tensor, *parts, begin_mask=begin_mask, end_mask=end_mask,
                            shrink_axis_mask=shrink_axis_mask, new_axis_mask=new_axis_mask,
                            ellipsis_mask=ellipsis_mask, var=var, name=scope)
    if var is not None:
        # TF's sliced variable: ``v[0, 1:].assign(value)`` is a StridedSliceAssign on v
        masks = {"begin_mask": begin_mask, "end_mask": end_mask,
                 "shrink_axis_mask": shrink_axis_mask, "new_axis_mask": new_axis_mask,
                 "ellipsis_mask": ellipsis_mask}

        def assign(val, name=None):
            if name is None:  # TF's "<slice scope>_assign", taken relative to the current scope
                name = scope + "_assign"
            resource = getattr(var, "_resource", False) is True
            if resource:  # TF 1.15's resource form: the value converted first (a "Const")
                val = ops.convert_to_tensor(val, dtype=var.dtype)
            with ops.name_scope(name, "strided_slice_assign", [var]) as assign_scope:
                out = strided_slice_assign(var, *parts, val, name=assign_scope, **masks)
            # (and a read of the variable after the assignment, the value returned)
            return var._resource_update(out, True) if resource else out

        out._sliced_assign = assign
    else:
        out._sliced_assign = _assign_to_constant_slice
    return out


def _assign_to_constant_slice(val, name=None):
    raise ValueError("Sliced assignment is only supported for variables")


ops.Tensor._override_operator("__getitem__", _slice_helper)


# ------------------------------------------------------------------------------------------
# boolean_mask
# ------------------------------------------------------------------------------------------


@add_dispatch_support  # RaggedTensor data or mask: tf.ragged.boolean_mask
def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """The elements of ``tensor`` where ``mask`` (a bool tensor over dims ``axis``...) is true."""
    with ops.name_scope(name, values=[tensor, mask]):
        tensor = ops.convert_to_tensor(tensor, name="tensor")
        mask = ops.convert_to_tensor(mask, name="mask")
        shape_mask = mask.get_shape()
        ndims_mask = shape_mask.ndims
        shape_tensor = tensor.get_shape()
        if ndims_mask == 0:
            raise ValueError("mask cannot be scalar.")
        if ndims_mask is None:
            raise ValueError(
                "Number of mask dimensions must be specified, even if some dimensions are None."
                "  E.g. shape=[None] is ok, but shape=None is not."
            )
        axis = 0 if axis is None else axis
        shape_tensor[axis:axis + ndims_mask].assert_is_compatible_with(shape_mask)
        # as TF 1.15, always through a Reshape (also for a 1-D mask): the gradient of
        # ``tensor`` is then a dense tensor, as TF's, not the gather's IndexedSlices. TF's ops
        # in its order: the product of the masked dims of one shape, the head and tail of two
        # more, and [leading] packed inside the concat
        leading = ops.apply_op("Prod", [array_ops.shape(tensor)[axis:axis + ndims_mask], [0]],
                               {"keep_dims": False}).outputs[0]
        tensor = array_ops.reshape(tensor, concat_ops.concat(
            [array_ops.shape(tensor)[:axis], [leading],
             array_ops.shape(tensor)[axis + ndims_mask:]], 0))
        if shape_tensor.ndims is not None:
            first = shape_tensor[axis:axis + ndims_mask].num_elements()
            tensor.set_shape(
                as_shape(shape_tensor[:axis]).concatenate([first]).concatenate(
                    shape_tensor[axis + ndims_mask:]
                )
            )
        mask = array_ops.reshape(mask, [-1])
        indices = array_ops.squeeze(gather_ops.where(mask), axis=[1])
        return gather_ops.gather(tensor, indices, axis=axis)
