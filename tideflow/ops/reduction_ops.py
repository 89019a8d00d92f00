"""Reductions: Sum/Mean/Prod/Max/Min/All/Any, ArgMax/ArgMin, cumulative sums and segment ops.

``math_ops`` re-exports the public functions (TF keeps them in math_ops), so this module
imports math_ops only inside functions.
"""

import math
import weakref

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.dispatch import add_dispatch_support
from tideflow.framework.tensor_shape import Dimension, TensorShape, unknown_shape
from tideflow.kernels import sums
from tideflow.kernels.scatter import rows_at
from tideflow.ops import eigen_softmax

_HALF_TYPES = (np.dtype(np.float16), dtypes.bfloat16.as_numpy_dtype)
_REDUCE_ATTRS = ["keep_dims: bool = false", "T: numbertype", "Tidx: {int32, int64} = DT_INT32"]


def _fail(msg):
    raise errors.InvalidArgumentError(None, None, msg)


def _acc_dtype(x):
    """The accumulation type: float32 for the 16-bit floats, else x's own type."""
    return np.float32 if x.dtype in _HALF_TYPES else x.dtype


# ------------------------------------------------------------------------------------------
# Sum, Mean, Prod, Max, Min, All, Any
# ------------------------------------------------------------------------------------------


def _axes(x, indices):
    nd = np.ndim(x)
    out = set()
    for a in np.ravel(indices).tolist():
        if not -nd <= a < nd:
            _fail(f"Invalid reduction dimension ({a} for input with {nd} dimension(s)")
        out.add(a % nd)
    return tuple(sorted(out))


def _unreduced(x, axis, keep_dims):
    """A sum over axes of size 1 only (the batch axis of a batch of one, in a broadcast
    gradient): x's values, reshaped, without a copy (TF hands on the input's buffer too)."""
    if keep_dims:
        return x
    return x.reshape([d for i, d in enumerate(x.shape) if i not in axis])


_HALF = np.dtype(np.float16)
_BFLOAT16 = np.dtype(dtypes.bfloat16.as_numpy_dtype)


def _running_half_sum(x, axis, ufunc=np.add):
    """Adds (or with ``ufunc`` multiplies) the slices of ``x`` along ``axis`` one after
    another in float16 (each partial result rounded to half), from the identity."""
    if x.shape[axis] == 0:
        return np.full(x.shape[:axis] + x.shape[axis + 1:], ufunc.identity, _HALF)
    return ufunc.accumulate(x, axis=axis, dtype=_HALF).take(-1, axis=axis)


def _bfloat16_sum(x, axis, keep_dims, ufunc=np.add):
    """reduce_sum (or with ``ufunc`` reduce_prod) of bfloat16 as TF 1.15's CPU kernel adds
    (scalar Eigen code, in bfloat16): the reduced elements of each output one after another,
    in row-major order, each partial result rounded to bfloat16."""
    kept = [a for a in range(x.ndim) if a not in axis]
    count = math.prod(x.shape[a] for a in axis)  # (not -1: that fails with no elements)
    moved = np.transpose(x, kept + list(axis)).reshape([x.shape[a] for a in kept] + [count])
    if moved.shape[-1] == 0:
        out = np.full(moved.shape[:-1], ufunc.identity, x.dtype)
    else:
        out = ufunc.accumulate(moved, axis=-1, dtype=x.dtype)[..., -1]
    if keep_dims:
        out = out.reshape([1 if a in axis else d for a, d in enumerate(x.shape)])
    return out


def _half_lane_sum(x, ufunc=np.add):
    """The sum (or with ``ufunc`` product) over the last axis as Eigen's vectorised inner
    reduction of float16: eight lanes reduced in half over whole packets, the lanes combined
    in float ((0+4)+(2+6)) + ((1+5)+(3+7)) and rounded to half, and the tail reduced in half."""
    n = x.shape[-1]
    whole = n // 8 * 8
    lanes = _running_half_sum(x[..., :whole].reshape(x.shape[:-1] + (n // 8, 8)), x.ndim - 1,
                              ufunc)
    f = lanes.astype(np.float32)
    packet = ufunc(ufunc(ufunc(f[..., 0], f[..., 4]), ufunc(f[..., 2], f[..., 6])),
                   ufunc(ufunc(f[..., 1], f[..., 5]), ufunc(f[..., 3], f[..., 7]))).astype(_HALF)
    tail = _running_half_sum(x[..., whole:], x.ndim - 1, ufunc)
    return ufunc(tail, packet)


def _half_sum(x, axis, keep_dims, ufunc=np.add):
    """reduce_sum of float16 as TF 1.15's CPU kernel adds (Eigen, in half, not in float):
    the reduced axes merged into one, a trailing run by ``_half_lane_sum``, a leading or
    inner run slice after slice; None for axes in more than one run (left to the float
    path)."""
    axis = sorted(axis)
    if axis != list(range(axis[0], axis[-1] + 1)):
        return None
    lo, hi = axis[0], axis[-1] + 1
    shape = x.shape
    if hi == x.ndim:  # trailing (or every) axis: the inner reduction
        out = _half_lane_sum(x.reshape(shape[:lo] + (-1,)) if x.size else
                             np.zeros(shape[:lo] + (math.prod(shape[lo:]),), _HALF), ufunc)
    else:
        merged = x.reshape(shape[:lo] + (math.prod(shape[lo:hi]),) + shape[hi:])
        out = _running_half_sum(merged, lo, ufunc)
    if keep_dims:
        out = out.reshape(tuple(1 if i in axis else d for i, d in enumerate(shape)))
    return out


def _eigen_inner_sum(x, axis, keep_dims):
    """A float32 sum over trailing axes as TF 1.15's kernel adds (Eigen's lanes, bit for bit):
    each row of the [kept, reduced] matrix by ``eigen_softmax.row_sum`` (a whole tensor as one
    row); None for other axes and an empty x."""
    axis = sorted(axis)
    if not axis or not x.size or axis != list(range(axis[0], x.ndim)):
        return None
    lo = axis[0]
    rows = math.prod(x.shape[:lo])
    cols = x.size // rows
    out = eigen_softmax.row_sum(np.ascontiguousarray(x).reshape(rows, cols))
    if lo == 0 and not keep_dims:
        return out[0]
    return out.reshape(x.shape[:lo] + ((1,) * (x.ndim - lo) if keep_dims else ()))


def _eigen_general_sum(x, axis, keep_dims):
    """A float32 sum over axes that are no single trailing run, as TF 1.15's kernel adds
    (bit for bit): size-1 axes dropped and neighbours of a kind merged (TF's reduction
    helper), a trailing run left reduced as Eigen's inner reduction, [reduced, kept,
    reduced] sums its elements one after another, the first axis the inner loop (Eigen's
    generic reducer: a broadcast gradient over axes 0 and 2); four or
    more runs are transposed to [kept, reduced] and each row summed as Eigen's inner
    reduction. None for the other shapes (left to the callers' paths) and an empty x."""
    if not x.size:
        return None
    dims = []
    for a, n in enumerate(x.shape):
        if n != 1:
            r = a in axis
            if dims and dims[-1][1] == r:
                dims[-1][0] *= n
            else:
                dims.append([n, r])
    if not dims:  # (every axis of size 1: one element, nothing to add)
        return None
    kinds = [r for _, r in dims]
    sizes = [n for n, _ in dims]
    if kinds[-1] and len(kinds) <= 2:
        # a trailing run once size-1 axes are dropped (axes 0 and 2 of [1, n, m]: a broadcast
        # gradient of [1, n, 1] + [1, 1, m], GAT's attention logits): Eigen's inner reduction
        out = eigen_softmax.row_sum(np.ascontiguousarray(x).reshape(-1, sizes[-1]))
    elif kinds == [True, False, True]:
        y = np.ascontiguousarray(np.transpose(x.reshape(sizes), (2, 0, 1)))
        out = np.add.reduce(y.reshape(sizes[0] * sizes[2], sizes[1]), axis=0)
    elif len(kinds) >= 4:
        kept = [i for i, r in enumerate(kinds) if not r]
        y = np.ascontiguousarray(np.transpose(x.reshape(sizes), kept + [
            i for i, r in enumerate(kinds) if r]))
        out = eigen_softmax.row_sum(y.reshape(math.prod(sizes[i] for i in kept), -1))
    else:
        return None
    return out.reshape([1 if a in axis else n for a, n in enumerate(x.shape)] if keep_dims
                       else [n for a, n in enumerate(x.shape) if a not in axis])


def _sum(x, indices, *, keep_dims):
    if type(x) is np.ndarray and type(indices) is np.ndarray:
        if not indices.size:
            # no axes (a broadcast gradient that needs no reduction): the value unchanged,
            # handed on as Identity hands on its input
            return x
        if indices.shape == (1,) and -x.ndim <= indices[0] < x.ndim:
            axis = (int(indices[0]) % x.ndim,)  # the common case: one valid axis
            if x.shape[axis[0]] == 1:
                return _unreduced(x, axis, keep_dims)
        else:
            axis = _axes(x, indices)
            if all(x.shape[a] == 1 for a in axis):
                return _unreduced(x, axis, keep_dims)
        if x.dtype.kind == "f" and x.dtype not in _HALF_TYPES:
            if x.dtype == np.float32:
                out = _eigen_inner_sum(x, axis, keep_dims)
                if out is None:
                    out = _eigen_general_sum(x, axis, keep_dims)
                if out is not None:
                    return out
            if (axis[-1] == len(axis) - 1 < x.ndim - 1 and x.size >= sums.GEMV_MIN
                    and x.flags.c_contiguous):
                return sums.leading_sum(x, len(axis), keep_dims)
            # float32/64 accumulate in their own type without asking (a cheaper call)
            return np.add.reduce(x, axis=axis, keepdims=keep_dims)
    else:
        axis = _axes(x, indices)
        if not axis:  # (NumPy's reduce over no axes adds to 0: a -0.0 scalar became 0.0)
            return np.asarray(x)
    if x.dtype == _HALF and axis:
        out = _half_sum(np.asarray(x), axis, keep_dims)
        if out is not None:
            return out
    if x.dtype == _BFLOAT16 and axis:
        return _bfloat16_sum(np.asarray(x), axis, keep_dims)
    # np.add.reduce is what np.sum calls for an array, without its Python-level dispatch
    return np.add.reduce(x, axis=axis, dtype=_acc_dtype(x), keepdims=keep_dims).astype(
        x.dtype, copy=False)


def _prod(x, indices, *, keep_dims):
    if (type(x) is np.ndarray and x.ndim == 1 and 0 < x.size <= 8 and x.dtype.kind == "i"
            and not keep_dims and type(indices) is np.ndarray and indices.size == 1
            and int(indices.reshape(-1)[0]) in (0, -1)):
        # the product of a small shape vector (a mean's gradient): in Python ints, wrapped
        # to the dtype as NumPy's product would be
        v = 1
        for d in x.tolist():
            v *= d
        bits = x.dtype.itemsize * 8
        v = (v + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))
        return x.dtype.type(v)
    axis = _axes(x, indices)
    if x.dtype == _HALF and axis and x.size:  # in half, as TF 1.15's kernel (as the sum)
        out = _half_sum(np.asarray(x), axis, keep_dims, np.multiply)
        if out is not None:
            return out
    if x.dtype == _BFLOAT16 and axis:
        return _bfloat16_sum(np.asarray(x), axis, keep_dims, np.multiply)
    return np.prod(x, axis=axis, dtype=_acc_dtype(x), keepdims=keep_dims).astype(
        x.dtype, copy=False)


def _mean(x, indices, *, keep_dims):
    if type(indices) is np.ndarray and not indices.size:
        return np.asarray(x)  # no axes: x / 1, x unchanged (a -0.0 stays -0.0)
    if type(x) is np.ndarray and x.dtype.kind == "f" and x.dtype not in _HALF_TYPES:
        if type(indices) is np.ndarray and indices.shape == (1,) and (
                -x.ndim <= indices[0] < x.ndim):
            axis = (int(indices[0]) % x.ndim,)
            n = x.shape[axis[0]]
        else:
            axis = _axes(x, indices)
            n = 1
            for a in axis:
                n *= x.shape[a]
        # np.mean's own arithmetic (a sum in x's type, divided by the count as an intp),
        # without its Python layers (a layer norm's two means per row cost a third) and
        # without its warning for an empty mean, which is NaN; float32 sums as TF's kernel
        total = None
        if x.dtype == np.float32:
            total = _eigen_inner_sum(x, axis, keep_dims)
            if total is None:
                total = _eigen_general_sum(x, axis, keep_dims)
        if total is None:
            total = np.add.reduce(x, axis=axis, keepdims=keep_dims)
        if type(total) is not np.ndarray:
            return x.dtype.type(total / np.intp(n) if n else np.nan)
        if not n:
            total.fill(np.nan)
            return total
        return np.true_divide(total, np.intp(n), out=total, casting="unsafe")
    axis = _axes(x, indices)
    if x.dtype.kind not in "iu":
        if x.size == 0:
            # as TF: a mean over nothing is NaN for half, float and double only; bfloat16
            # and the complex types fill it with the sum's identity, 0
            return np.full(np.sum(x, axis=axis, keepdims=keep_dims).shape,
                           np.nan if x.dtype.kind == "f" else 0, x.dtype)
        if x.dtype == _HALF and axis:
            total = _half_sum(np.asarray(x), axis, keep_dims)
            if total is not None:  # TF divides the half sum by the count, in half
                n = math.prod(x.shape[a] for a in axis)
                return np.true_divide(total, np.float16(n), dtype=_HALF)
        if x.dtype == _BFLOAT16 and axis:  # as half, in bfloat16
            total = _bfloat16_sum(np.asarray(x), axis, keep_dims)
            return total / x.dtype.type(math.prod(x.shape[a] for a in axis))
        return np.mean(x, axis=axis, dtype=_acc_dtype(x), keepdims=keep_dims).astype(
            x.dtype, copy=False)
    total = np.sum(x, axis=axis, dtype=x.dtype, keepdims=keep_dims)
    n = 1
    for a in axis:
        n *= x.shape[a]
    if n == 0:  # as TF: an integer mean over nothing is 0 (a float one NaN)
        if x.dtype in (np.uint32, np.uint64):  # (run by XLA: 0 / 0 is all bits set)
            return np.full_like(total, np.iinfo(x.dtype).max)
        return np.zeros_like(total)
    # as TF: the sum wraps in x's dtype, then divides by the int64 count truncating towards
    # zero (C division)
    if x.dtype.kind == "u":
        return (total // np.uint64(n)).astype(x.dtype, copy=False)
    wide = np.asarray(total, np.int64)
    q = wide // n
    q += (q * n != wide) & (wide < 0)
    return q.astype(x.dtype, copy=False)


def _extreme(fn, nan_skipping, limit):
    def kernel(x, indices, *, keep_dims):
        axis = _axes(x, indices)
        if np.size(x) == 0:  # TF's identity for an empty max/min: the type's extreme
            return fn(x, axis=axis, keepdims=keep_dims, initial=limit(x.dtype))
        if x.dtype.kind == "f" or x.dtype in _HALF_TYPES:
            n = 1
            for a in axis:
                n *= x.shape[a]
            if n > 1:
                # TF's CPU reducer folds from the type's extreme and skips NaN (all NaN: the
                # extreme); a reduction over one element copies it, NaN included
                return nan_skipping.reduce(x, axis=axis, keepdims=keep_dims,
                                           initial=limit(x.dtype))
        return fn(x, axis=axis, keepdims=keep_dims)

    return kernel


def _lowest(dt):
    return -np.inf if dt.kind in "fc" or dt in _HALF_TYPES else np.iinfo(dt).min


def _highest(dt):
    return np.inf if dt.kind in "fc" or dt in _HALF_TYPES else np.iinfo(dt).max


def _all(x, indices, *, keep_dims):
    return np.all(x, axis=_axes(x, indices), keepdims=keep_dims)


def _any(x, indices, *, keep_dims):
    return np.any(x, axis=_axes(x, indices), keepdims=keep_dims)


def _reduction_shape(op):
    inp = op._inputs[0]._shape
    keep = op._attrs["keep_dims"]
    axes_rank = op._inputs[1]._shape.ndims
    if axes_rank is not None and axes_rank > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {axes_rank} for "
                         f"'{op.name}' (op: '{op.type}'): reduction_indices "
                         f"{op._inputs[1]._shape}")
    axes = ops.constant_value(op._inputs[1])
    if axes is None or inp.ndims is None:
        if keep and inp.ndims is not None:
            return [unknown_shape(ndims=inp.ndims)]
        return [unknown_shape()]
    rank = inp.ndims
    reduced = set()
    for a in np.ravel(axes).tolist():
        if not -rank <= a < rank:
            raise ValueError(f"Invalid reduction dimension {a} for input with {rank} dimensions.")
        reduced.add(a % rank)
    dims = inp.dims
    if keep:
        return [TensorShape([Dimension(1) if i in reduced else d for i, d in enumerate(dims)])]
    return [TensorShape([d for i, d in enumerate(dims) if i not in reduced])]


# ------------------------------------------------------------------------------------------
# gradients of Sum, Mean, Prod, Max, Min
# ------------------------------------------------------------------------------------------


def _kept_shape(x, axes):
    """The shape of x reduced over ``axes`` with keep_dims: a list when static, else a tensor."""
    from tideflow.ops import array_ops, gather_ops

    shape, axes_v = x.get_shape(), ops.constant_value(axes)
    if shape.ndims is not None and axes_v is not None:
        dims = shape.as_list()
        for a in np.ravel(axes_v).tolist():
            if -len(dims) <= a < len(dims):
                dims[a % len(dims)] = 1
        if None not in dims:  # static even when only the reduced dimensions are unknown
            return dims
    in_shape = array_ops.shape(x)
    return gather_ops.select(_reduced_mask(x, axes), array_ops.ones_like(in_shape), in_shape)


def _reduced_mask(x, axes):
    """A bool vector over x's dimensions: true for those in ``axes``."""
    from tideflow.ops import array_ops, math_ops, range_ops

    rank = array_ops.rank(x)
    axes = math_ops.floormod(math_ops._cast(array_ops.reshape(axes, [-1, 1]), dtypes.int32), rank)
    return reduce_any(math_ops.equal(range_ops.range(rank), axes), 0)


def _broadcast_back(op, grad):
    """The gradient of a reduction's output spread over the shape of its input."""
    from tideflow.ops import array_ops
    from tideflow.ops.gradients import dense

    x, axes = op.inputs
    shape = x.get_shape()
    axes_v = ops.constant_value(axes)
    if (shape.ndims is not None and axes_v is not None
            and np.array_equal(np.ravel(axes_v), np.arange(shape.ndims))):
        # a full reduction: reshape and tile, with TF's op names (Reshape, Const, Tile)
        from tideflow.ops import constant_op, pad_ops

        grad = array_ops.reshape(dense(grad), [1] * shape.ndims)
        multiples = (constant_op.constant(shape.as_list(), dtype=dtypes.int32)
                     if shape.is_fully_defined() else array_ops.shape(x))
        return pad_ops.tile(grad, multiples)
    grad = array_ops.reshape(dense(grad), _kept_shape(x, axes))
    return array_ops.broadcast_to(grad, shape.as_list() if shape.is_fully_defined() else
                                  array_ops.shape(x))


# graph -> {(input shape, axes): (kept shape, tile multiples)}: as TF, the ops computing a
# static reduced shape are built once per graph and key, so a second identical gradient adds
# only its Reshape and Tile
_REDUCED_SHAPE_CACHE = weakref.WeakKeyDictionary()


def _reduced_shape(input_shape, axes):
    """TF's ``math_ops.reduced_shape``: ``input_shape`` with the ``axes`` entries set to 1,
    built from the same ops (a DynamicStitch of the shape and ones)."""
    from tideflow.ops import array_ops, cast_ops, embedding_ops, fill_ops, range_ops

    input_shape = cast_ops.cast(input_shape, dtypes.int32)
    axes = cast_ops.cast(axes, dtypes.int32)
    input_rank = array_ops.size(input_shape)
    axes = (axes + input_rank) % input_rank
    axes_shape = array_ops.shape(axes)
    return embedding_ops.dynamic_stitch([range_ops.range(input_rank), axes],
                                        [input_shape, fill_ops.fill(axes_shape, 1)])


def _safe_shape_div(x, y):
    """``x // max(y, 1)``: 0 / 0 is 0 for the sizes of empty tensors."""
    from tideflow.ops import math_ops

    return x // math_ops.maximum(y, 1)


def _sum_grad(op, grad):
    """TF 1.15's Sum gradient, op for op: Reshape and Tile (the reduced shape computed by
    ops when it is not known statically)."""
    from tideflow.ops import array_ops, constant_op, pad_ops

    x, axes = op.inputs
    # (an IndexedSlices grad is densified by the first Reshape's conversion, as TF's:
    # "<op>_grad/Reshape/tensor")
    shape = x.get_shape()
    if shape.ndims is not None:
        axes_v = ops.constant_value(axes)
        if axes_v is not None:
            rank = shape.ndims
            if np.array_equal(axes_v, np.arange(rank)):  # a full reduction
                grad = array_ops.reshape(grad, [1] * rank)
                multiples = (constant_op.constant(shape.as_list(), dtype=dtypes.int32)
                             if shape.is_fully_defined() else array_ops.shape(x))
                return pad_ops.tile(grad, multiples), None
            if shape.is_fully_defined():
                dims = tuple(shape.as_list())
                key = (dims, tuple(np.ravel(axes_v).tolist()))
                # per default graph, as TF's: a v1 cond's or loop's body (and its gradient)
                # is part of its outermost graph there
                graph = ops.get_default_graph()
                cache = _REDUCED_SHAPE_CACHE.setdefault(
                    getattr(graph, "_root", None) or graph, {})
                hit = cache.get(key)
                if hit is None:
                    # TF builds (and leaves in the graph) the ops it folds these from
                    _reduced_shape(dims, key[1])
                    kept = list(dims)
                    for a in key[1]:
                        kept[a % rank] = 1
                    kept = tuple(kept)
                    _safe_shape_div(dims, kept)
                    hit = cache[key] = (kept, tuple(d // max(k, 1) for d, k in zip(dims, kept)))
                grad = array_ops.reshape(grad, list(hit[0]))
                return pad_ops.tile(grad, list(hit[1])), None
    input_shape = array_ops.shape(x)
    # as TF 1.15, the shape arithmetic is colocated with the Shape (its nodes' _class)
    with input_shape._op._graph.colocate_with(input_shape._op):
        kept = _reduced_shape(input_shape, axes)
        multiples = _safe_shape_div(input_shape, kept)
    grad = array_ops.reshape(grad, kept)
    return pad_ops.tile(grad, multiples), None


def _mean_grad(op, grad):
    """The Sum gradient divided by the number of elements each output averages (a Const when
    the shapes are known, else from the shapes' products), as TF 1.15 builds it."""
    from tideflow.ops import array_ops, cast_ops, constant_op, math_ops

    sum_grad = _sum_grad(op, grad)[0]
    xs, ys = op.inputs[0].get_shape(), op.outputs[0].get_shape()
    if xs.is_fully_defined() and ys.is_fully_defined():
        factor = xs.num_elements() // max(ys.num_elements(), 1)
        factor = constant_op.constant(factor, dtype=sum_grad.dtype.base_dtype)
    else:
        in_shape = array_ops.shape(op.inputs[0])
        out_shape = array_ops.shape(op.outputs[0])
        factor = _safe_shape_div(reduce_prod(in_shape), reduce_prod(out_shape))
    return math_ops.truediv(sum_grad, cast_ops.cast(factor, sum_grad.dtype.base_dtype)), None


def _prod_grad(op, grad):
    """The product of all other entries, as exclusive cumulative products from both ends (so
    zeros in x are handled), over x transposed to [reduced dims, other dims] and flattened to
    2-D; built from TF 1.15's ops in its order (later random ops' seeds count them)."""
    from tideflow.ops import (
        array_ops,
        cast_ops,
        counting_ops,
        gather_ops,
        math_ops,
        pad_ops,
        range_ops,
    )
    from tideflow.ops.gradients import dense

    x, axes = op.inputs
    input_shape = array_ops.shape(x)
    flat_axes = array_ops.reshape(axes, [-1])
    kept = _reduced_shape(input_shape, axes)
    multiples = _safe_shape_div(input_shape, kept)
    grad = pad_ops.tile(array_ops.reshape(dense(grad), kept), multiples)
    with ops.device("/cpu:0"):  # (TF keeps these shape computations on the CPU)
        rank = array_ops.rank(x)
        reduced = cast_ops.cast((flat_axes + rank) % rank, dtypes.int32)
        other = counting_ops.setdiff1d(range_ops.range(0, rank), reduced)[0]
        perm = array_ops.concat([reduced, other], 0)
        n_reduced = reduce_prod(array_ops.gather(input_shape, reduced))
        n_other = reduce_prod(array_ops.gather(input_shape, other))
    permuted = array_ops.transpose(x, perm)
    shape, axes_v = x.get_shape(), ops.constant_value(axes)
    if shape.ndims is not None and axes_v is not None:
        # the static shape TF's shape inference finds from the folded perm (and so its Shape
        # is a Const, as TF's)
        front = list(dict.fromkeys(a % max(shape.ndims, 1) for a in np.ravel(axes_v).tolist()))
        order = front + [i for i in range(shape.ndims) if i not in front]
        permuted.set_shape([shape.dims[i] for i in order])
    permuted_shape = array_ops.shape(permuted)
    flat = array_ops.reshape(permuted, (n_reduced, n_other))
    left = cumprod(flat, 0, exclusive=True)
    right = cumprod(flat, 0, exclusive=True, reverse=True)
    others = array_ops.reshape(math_ops.conj(left) * math_ops.conj(right), permuted_shape)
    back = array_ops.transpose(others, gather_ops.invert_permutation(perm))
    if shape.ndims is not None and axes_v is not None:
        back.set_shape(shape)  # (TF's shape inference folds the inverse perm: x's shape)
    out = grad * back
    return array_ops.reshape(out, input_shape), None


def _min_or_max_grad(op, grad):
    # the gradient is shared equally among the entries equal to the extreme (ties, as TF)
    from tideflow.ops import array_ops, math_ops

    # TF 1.15's ops: the kept shape from reduced_shape's DynamicStitch
    x, axes = op.inputs
    kept = _reduced_shape(array_ops.shape(x), axes)
    y = array_ops.reshape(op.outputs[0], kept)
    grad = array_ops.reshape(grad, kept)
    indicators = math_ops._cast(math_ops.equal(y, x), grad.dtype.base_dtype)
    selected = array_ops.reshape(reduce_sum(indicators, axes), kept)
    return math_ops.truediv(indicators, selected) * grad, None


for _name, _kernel, _grad in (("Sum", _sum, _sum_grad), ("Mean", _mean, _mean_grad),
                              ("Prod", _prod, _prod_grad),
                              ("Max", _extreme(np.max, np.fmax, _lowest), _min_or_max_grad),
                              ("Min", _extreme(np.min, np.fmin, _highest), _min_or_max_grad)):
    op_registry.declare(_name, inputs=["input: T", "reduction_indices: Tidx"],
                        outputs=["output: T"], attrs=_REDUCE_ATTRS, shape=_reduction_shape,
                        kernel=_kernel, grad=_grad)
def _euclidean_norm(x, indices, *, keep_dims):
    axis = _axes(x, indices)
    if not axis:  # TF's reductions hand their input on unchanged when nothing is reduced
        return x
    if all(x.shape[a] == 1 for a in axis):
        # so do they when every reduced axis has one element: the values keep their signs
        return _unreduced(x, axis, keep_dims)
    if x.dtype.kind == "c":  # (complex throughout, as TF's: inf * conj(inf) has a NaN part)
        return np.sqrt(np.add.reduce(x * np.conj(x), axis=axis, keepdims=keep_dims)
                       ).astype(x.dtype)
    if x.dtype.kind in "iu":
        # as TF: the squares and their sum wrap in x's own type; the root truncates
        squares = np.add.reduce(x * x, axis=axis, dtype=x.dtype, keepdims=keep_dims)
        with np.errstate(invalid="ignore"):
            return np.sqrt(np.asarray(squares, np.float64)).astype(x.dtype)
    xs = x.astype(_acc_dtype(x), copy=False)
    out = np.sqrt(np.add.reduce(xs * xs, axis=axis, keepdims=keep_dims))
    return out.astype(x.dtype, copy=False)


op_registry.declare("EuclideanNorm", inputs=["input: T", "reduction_indices: Tidx"],
                    outputs=["output: T"], attrs=_REDUCE_ATTRS, shape=_reduction_shape,
                    # as TF 1.15, which registers no gradient for it: a loss term through it
                    # gives its inputs none (None from tf.gradients)
                    kernel=_euclidean_norm, differentiable=False)

for _name, _kernel in (("All", _all), ("Any", _any)):
    op_registry.declare(_name, inputs=["input: bool", "reduction_indices: Tidx"],
                        outputs=["output: bool"],
                        attrs=["keep_dims: bool = false", "Tidx: {int32, int64} = DT_INT32"],
                        shape=_reduction_shape, kernel=_kernel, differentiable=False)


# ------------------------------------------------------------------------------------------
# ArgMax, ArgMin
# ------------------------------------------------------------------------------------------


def _arg(fn):
    def kernel(x, dimension, *, output_type):
        nd = np.ndim(x)
        d = int(dimension)
        if not -nd <= d < nd:
            _fail(f"Expected dimension in the range [{-nd}, {nd}), but got {d}")
        if np.shape(x)[d] == 0:
            _fail(f"Reduction axis {d} is empty in shape "
                  f"[{','.join(str(s) for s in np.shape(x))}]")
        if nd > 5:  # TF 1.15's kernel is instantiated for ranks 1..5
            _fail(f"ArgOp : Unhandled input dimensions: {nd}")
        dt = np.asarray(x).dtype
        if dt == _BFLOAT16 or np.issubdtype(dt, np.floating):
            # TF's argmax/argmin never pick a NaN (NaN compares false); all-NaN gives index 0
            # (bfloat16's too: ml_dtypes' type is no NumPy floating type)
            nan = np.isnan(x)
            if nan.any():
                x = np.where(nan, -np.inf if fn is np.argmax else np.inf, x)
        return fn(x, axis=d).astype(output_type.as_numpy_dtype, copy=False)

    return kernel


def _arg_shape(op):
    inp = op._inputs[0]._shape
    axis_rank = op._inputs[1]._shape.ndims
    if axis_rank not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {axis_rank}")
    if inp.ndims is None:
        return [unknown_shape()]
    rank = inp.ndims
    if rank <= 1:
        return [TensorShape([])]
    d = ops.constant_value(op._inputs[1])
    if d is None:
        return [unknown_shape(ndims=rank - 1)]
    d = int(d)
    if not -rank <= d < rank:
        raise ValueError(f"Dimension ({d}) must be in the range [{-rank}, {rank}), where {rank} "
                         "is the number of dimensions in the input.")
    d %= rank
    return [TensorShape([x for i, x in enumerate(inp.dims) if i != d])]


for _name, _fn in (("ArgMax", np.argmax), ("ArgMin", np.argmin)):
    op_registry.declare(_name, inputs=["input: T", "dimension: Tidx"],
                        outputs=["output: output_type"],
                        attrs=["T: numbertype", "Tidx: {int32, int64} = DT_INT32",
                               "output_type: {int32, int64} = DT_INT64"],
                        shape=_arg_shape, kernel=_arg(_fn), differentiable=False)


# ------------------------------------------------------------------------------------------
# Cumsum, Cumprod
# ------------------------------------------------------------------------------------------


def _cumulative(fn, identity):
    def kernel(x, axis, *, exclusive, reverse):
        nd = np.ndim(x)
        if np.ndim(axis) != 0:
            _fail(f"ScanOp: axis must be a scalar, not {list(np.shape(axis))}")
        a = int(axis)
        if not -nd <= a < nd:  # TF names the axis after adding the rank to a negative one
            _fail(f"ScanOp: Expected scan axis in the range [{-nd}, {nd}), but got "
                  f"{a + nd if a < 0 else a}")
        a %= nd
        if reverse:
            x = np.flip(x, a)
        # float16 and bfloat16 scan in their own type, each partial result rounded, as TF's
        # Eigen scan
        if identity == 1 and x.dtype.kind == "c" and x.size:
            out = _complex_cumprod(x, a)
        else:
            out = fn(x, axis=a, dtype=x.dtype if x.dtype in _HALF_TYPES else _acc_dtype(x))
        if identity == 0 and out.dtype.kind in "fcV" and out.size:
            # TF's scan starts from 0, so no sum is -0.0 (NumPy copies a leading -0.0)
            out += out.dtype.type(0)
        if exclusive and out.shape[a]:
            head = np.full_like(np.take(out, [0], axis=a), identity)
            out = np.concatenate([head, np.delete(out, -1, axis=a)], axis=a)
        if reverse:
            out = np.flip(out, a)
        return out.astype(x.dtype, copy=False)

    return kernel


def _complex_cumprod(x, axis):
    """TF's complex scan: the product from 1 + 0j, each step std::complex's multiply (the
    four products, then C99's recovery where both parts came out NaN), not NumPy's
    first-element copy and plain products (1 * (0 + inf j) is nan + inf j)."""
    from tideflow.ops.elementwise import _complex_mul

    moved = np.moveaxis(x, axis, 0)
    out = np.empty_like(moved)
    acc = np.ones(moved.shape[1:], x.dtype)
    for i in range(moved.shape[0]):
        acc = _complex_mul(acc, moved[i], packets=False)
        out[i] = acc
    return np.moveaxis(out, 0, axis)


def _cumulative_shape(op):
    # TF's shape function is UnchangedShape: a non-scalar axis fails when the op runs
    return [op._inputs[0]._shape]


def _cumsum_grad(op, grad):
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    return cumsum(grad, op.inputs[1], exclusive=exclusive, reverse=not reverse), None


def _cumprod_grad(op, grad):
    # as TF: divides by x, so entries of x must be non-zero
    x, axis = op.inputs
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    prod = cumprod(x, axis, exclusive=exclusive, reverse=reverse)
    out = cumsum(prod * grad, axis, exclusive=exclusive, reverse=not reverse)
    return out / x, None


for _name, _fn, _identity, _grad in (("Cumsum", np.cumsum, 0, _cumsum_grad),
                                     ("Cumprod", np.cumprod, 1, _cumprod_grad)):
    op_registry.declare(_name, inputs=["x: T", "axis: Tidx"], outputs=["out: T"],
                        attrs=["exclusive: bool = false", "reverse: bool = false",
                               "T: numbertype", "Tidx: {int32, int64} = DT_INT32"],
                        shape=_cumulative_shape, kernel=_cumulative(_fn, _identity), grad=_grad)


# ------------------------------------------------------------------------------------------
# segment reductions
# ------------------------------------------------------------------------------------------

# kind -> (ufunc to accumulate with, initial value for a dtype)
_SEGMENT_KINDS = {
    "Sum": (np.add, lambda dt: 0),
    "Mean": (np.add, lambda dt: 0),
    "Prod": (np.multiply, lambda dt: 1),
    "Max": (np.maximum, lambda dt: _lowest(dt)),
    "Min": (np.minimum, lambda dt: _highest(dt)),
}


def _segment_reduce(kind, data, ids, n, empty_value, ufunc=None, initial=None):
    """Reduces rows of ``data`` (first axis matching the flat ``ids``) into ``n`` segments
    (``ufunc`` and ``initial`` in place of the kind's own)."""
    kind_ufunc, kind_initial = _SEGMENT_KINDS[kind]
    acc = _acc_dtype(data)
    rows = np.asarray(data, dtype=acc)
    if initial is None:
        initial = kind_initial(np.dtype(acc))
    out = np.full((n,) + rows.shape[1:], initial, dtype=acc)
    rows_at(ufunc or kind_ufunc, out, ids, rows)
    if kind in ("Mean", "Max", "Min") or empty_value is not None:
        counts = np.bincount(ids, minlength=n).reshape((n,) + (1,) * (rows.ndim - 1))
        if kind == "Mean":
            safe = np.maximum(counts, 1)
            if out.dtype.kind in "iu":
                q = np.abs(out) // safe.astype(out.dtype)
                out = np.where(out < 0, -q, q)
            else:
                out = out / safe
        if empty_value is not None:
            out = np.where(counts == 0, empty_value, out)
    return out.astype(data.dtype, copy=False)


def segment_output_rows(ids, num_segments=None):
    """The number of output rows of a sorted segment reduction over the 1-D ``ids`` (the last
    id + 1, or ``num_segments``), after TF's checks in TF's order: the last id, then each
    segment in turn (ids increasing, id within the output)."""
    if not ids.size:
        return 0 if num_segments is None else num_segments
    n = int(ids[-1]) + 1
    if num_segments is not None:
        if n > num_segments:
            _fail("segment ids must be < num_segments")  # (TF 1.15's words)
        n = num_segments
    if ids[-1] < 0:
        _fail("segment ids must be >= 0")
    starts = np.flatnonzero(np.concatenate([[True], ids[1:] != ids[:-1]]))
    seg = ids[starts]
    falling = np.concatenate([seg[:-1] > seg[1:], [False]])
    outside = (seg < 0) | (seg >= n)
    bad = falling | outside
    if bad.any():
        i = int(np.argmax(bad))
        if falling[i]:
            _fail("segment ids are not increasing")
        _fail(f"Segment id {int(seg[i])} out of range [0, {n}), possibly because "
              "'segment_ids' input is not sorted.")
    return n


def _sorted_segment(kind):
    def kernel(data, segment_ids):
        ids = np.asarray(segment_ids)
        if ids.ndim != 1:
            _fail("segment_ids should be a vector.")
        if np.ndim(data) == 0 or ids.shape[0] != np.shape(data)[0]:
            _fail("segment_ids should be the same size as dimension 0 of input.")
        n = segment_output_rows(ids)
        if kind in ("Max", "Min") and np.asarray(data).dtype.kind not in "iu":
            return _sorted_segment_extreme(kind, data, ids, n)
        # an empty segment is 0, or 1 for a product
        out = _segment_reduce(kind, data, ids, n, None if kind in ("Sum", "Prod") else 0)
        if out.dtype.kind == "c" or (
                kind in ("Sum", "Mean") and out.dtype in _FLOAT32_64 and not out.all()):
            _single_rows_as_is(out, np.asarray(data), ids, n)
        return out

    return kernel


_FLOAT32_64 = frozenset(map(np.dtype, ("float32", "float64")))


def _single_rows_as_is(out, data, ids, n):
    """TF's SegmentSum/Mean/Prod copy a segment of one row: a float sum from 0 would make its
    -0. +0. (patched only where the output holds a zero), a complex one from 0 (or product
    from 1) would lose the sign of a zero part or make an infinite part's partner NaN."""
    single = np.flatnonzero(np.bincount(ids, minlength=n) == 1)
    if single.size:
        rows = data[np.searchsorted(ids, single)]
        out[single] = rows if out.dtype.kind == "c" else np.where(out[single] == 0, rows,
                                                                   out[single])


def _sorted_segment_extreme(kind, data, ids, n):
    """SegmentMax/Min over floats as TF's kernel: a segment of one row is that row; longer
    ones are an Eigen reduction, which passes NaNs over (all NaN: -inf for a max); an empty
    segment is 0."""
    data = np.asarray(data)
    out = _segment_reduce(kind, data, ids, n, 0, np.fmax if kind == "Max" else np.fmin)
    if np.isnan(data).any():
        single = np.flatnonzero(np.bincount(ids, minlength=n) == 1)
        out[single] = data[np.searchsorted(ids, single)]
    return out


def _unsorted_segment(kind):
    empty = {"Sum": None, "Prod": None, "Max": "lowest", "Min": "highest"}[kind]

    def kernel(data, segment_ids, num_segments):
        ids = np.asarray(segment_ids)
        shape = np.shape(data)
        if shape[:ids.ndim] != ids.shape:
            _fail(f"data.shape = [{','.join(map(str, shape))}] does not start with "
                  f"segment_ids.shape = [{','.join(map(str, ids.shape))}]")
        n = int(num_segments)
        if n < 0:
            _fail(f"Input num_segments == {n} must not be negative.")  # (TF 1.15's words)
        flat_ids = ids.reshape(-1)
        rows = np.reshape(data, (flat_ids.size,) + shape[ids.ndim:])
        bad = flat_ids >= n
        if bad.any():
            i = int(np.argmax(bad))
            where = ",".join(str(int(k)) for k in np.unravel_index(i, ids.shape))
            _fail(f"segment_ids[{where}] = {int(flat_ids[i])} is out of range [0, {n})")
        keep = flat_ids >= 0  # negative ids are dropped
        if not keep.all():
            flat_ids, rows = flat_ids[keep], rows[keep]
        if empty is None:
            return _segment_reduce(kind, rows, flat_ids, n, None)
        # TF starts each max (min) segment at the type's lowest (highest) finite value, so
        # an empty segment, or one of -inf (inf), gives that value
        dt = dtypes.as_dtype(np.dtype(data.dtype))
        start = dt.min if empty == "lowest" else dt.max
        if rows.dtype.kind not in "iu" and np.isnan(rows).any():
            return _unsorted_segment_extreme_nan(kind, rows, flat_ids, n, start)
        return _segment_reduce(kind, rows, flat_ids, n, None, initial=start)

    return kernel


def _unsorted_segment_extreme_nan(kind, rows, ids, n, start):
    """UnsortedSegmentMax/Min where the data holds NaNs, row by row in order as TF's kernel
    (out = cwiseMax(data, out)): a row takes the place of its segment's value unless it is
    smaller (larger), so a NaN row sets NaN and the next row replaces that NaN."""
    dtype = rows.dtype
    rows = np.asarray(rows, dtype=_acc_dtype(rows))
    out = np.full((n,) + rows.shape[1:], start, dtype=rows.dtype)
    beaten = np.less if kind == "Max" else np.greater
    for i, s in enumerate(ids.tolist()):
        cur, row = out[s], rows[i]
        out[s] = np.where(beaten(row, cur), cur, row)
    return out.astype(dtype, copy=False)


def _segment_shape(op):
    data = op._inputs[0]._shape.with_rank_at_least(1)
    op._inputs[1]._shape.with_rank(1)
    if data.ndims is None:
        return [unknown_shape()]
    return [TensorShape([None]).concatenate(data[1:])]


def _unsorted_segment_shape(op):
    # TF 1.15's UnsortedSegmentReductionShapeFn, in its order and words: num_segments a
    # scalar, data's leading dimensions merged with the ids' shape, then num_segments' value
    from tideflow.ops.array_ops import _check_rank, dim_for_scalar_input
    from tideflow.ops.conv_ops import _merge

    data = op._inputs[0]._shape
    ids = op._inputs[1]._shape
    _check_rank(op._inputs[2]._shape, 0)
    if ids.ndims is None:
        return [unknown_shape()]
    k = ids.ndims
    if data.ndims is not None:
        if data.ndims < k:
            raise ValueError(f"Shape must be at least rank {k} but is rank {data.ndims}")
        for a, b in zip(data.as_list()[:k], ids.as_list()):
            _merge(a, b)
    num_segments = dim_for_scalar_input(op, 2)
    if data.ndims is None:
        return [unknown_shape()]
    return [TensorShape([num_segments]).concatenate(data[k:])]


# segment gradients: each row of data gets its segment's gradient (gathered by id)


def _gather_drop_negatives(params, ids, zero_clipped=None, is_positive=None):
    """gather(params, ids) with the rows of negative ids zeroed (they were dropped forward)."""
    from tideflow.ops import array_ops, gather_ops, math_ops

    if zero_clipped is None:
        zero_clipped = math_ops.maximum(ids, array_ops.zeros_like(ids))
    gathered = array_ops.gather(params, zero_clipped)
    if is_positive is None:
        is_positive = math_ops.greater_equal(ids, 0)
        g_rank, i_rank = gathered.get_shape().ndims, is_positive.get_shape().ndims
        if g_rank is not None and i_rank is not None:
            # TF's ops: one ExpandDims per trailing dimension of gathered
            for _ in range(g_rank - i_rank):
                is_positive = array_ops.expand_dims(is_positive, -1)
        else:  # reshaped to broadcast over gathered's trailing dims
            tail = array_ops.ones(array_ops.reshape(
                array_ops.rank(gathered) - array_ops.rank(ids), [1]), dtypes.int32)
            shape = array_ops.concat([array_ops.shape(ids), tail], 0)
            is_positive = array_ops.reshape(is_positive, shape)
        # then spread to its full shape
        is_positive = is_positive & array_ops.ones_like(gathered, dtype=dtypes.bool)
    zeros = array_ops.zeros_like(gathered)
    return gather_ops.select(is_positive, gathered, zeros), zero_clipped, is_positive


def _segment_sum_grad(op, grad):
    from tideflow.ops import array_ops

    return array_ops.gather(grad, op.inputs[1]), None


def _unsorted_segment_sum_grad(op, grad):
    return _gather_drop_negatives(grad, op.inputs[1])[0], None, None


def _segment_mean_grad(op, grad):
    from tideflow.ops import array_ops, constant_op, fill_ops, math_ops

    data, ids = op.inputs
    # TF 1.15's ops: ones of shape [len(ids), 1, ...] counting each segment's rows
    rank = array_ops.rank(data)
    ones_shape = array_ops.concat([
        array_ops.shape(ids), fill_ops.fill(array_ops.expand_dims(rank - 1, 0), 1)], 0)
    ones = fill_ops.fill(ones_shape, constant_op.constant(1, dtype=grad.dtype.base_dtype))
    return array_ops.gather(math_ops.divide(grad, segment_sum(ones, ids)), ids), None


def _segment_min_or_max_grad(op, grad):
    # shared equally among the entries equal to their segment's extreme
    from tideflow.ops import array_ops, gather_ops, math_ops

    data, ids = op.inputs
    zeros = array_ops.zeros_like(data)  # first, as TF 1.15 builds it
    selected = math_ops.equal(data, array_ops.gather(op.outputs[0], ids))
    counts = segment_sum(math_ops._cast(selected, grad.dtype.base_dtype), ids)
    gathered = array_ops.gather(grad / counts, ids)
    return gather_ops.select(selected, gathered, zeros), None


def _unsorted_segment_min_or_max_grad(op, grad):
    from tideflow.ops import array_ops, gather_ops, math_ops

    data, ids, n = op.inputs
    extremes, zero_clipped, is_positive = _gather_drop_negatives(op.outputs[0], ids)
    selected = math_ops.logical_and(math_ops.equal(data, extremes), is_positive)
    counts = unsorted_segment_sum(math_ops._cast(selected, grad.dtype.base_dtype), ids, n)
    gathered = _gather_drop_negatives(grad / counts, None, zero_clipped, is_positive)[0]
    return gather_ops.select(selected, gathered, array_ops.zeros_like(gathered)), None, None


def _segment_prod_grad(op, grad):
    # as TF: the product of the other entries of the segment, exact where data holds zeros
    # (one zero: only it gets a gradient; several: none does)
    from tideflow.ops import array_ops, gather_ops, math_ops

    data, ids = op.inputs[:2]
    n = op.inputs[2] if len(op.inputs) > 2 else None
    zero_clipped = math_ops.maximum(ids, array_ops.zeros_like(ids)) if n is not None else None

    def gather(params):
        if n is None:
            return array_ops.gather(params, ids)
        return _gather_drop_negatives(params, ids, zero_clipped)[0]

    def reduce(values, fn):
        return fn(values, ids) if n is None else fn(values, ids, n)

    is_zero = math_ops.equal(data, array_ops.zeros_like(data))
    sorted_op = n is None
    zeros = reduce(math_ops._cast(is_zero, dtypes.int32),
                   segment_sum if sorted_op else unsorted_segment_sum)
    grad = gather_ops.select(math_ops.greater(zeros, 1), array_ops.zeros_like(grad), grad)
    non_zero = gather_ops.select(is_zero, array_ops.ones_like(data), data)
    non_zero_prod = reduce(non_zero, segment_prod if sorted_op else unsorted_segment_prod)
    others = gather_ops.select(is_zero, gather(non_zero_prod), gather(op.outputs[0]) / non_zero)
    return [gather(grad) * others] + [None] * (len(op.inputs) - 1)


_SEGMENT_GRADS = {
    "Sum": (_segment_sum_grad, _unsorted_segment_sum_grad),
    "Mean": (_segment_mean_grad, None),
    "Prod": (None, _segment_prod_grad),  # (TF 1.15 defines none for the sorted SegmentProd)
    "Max": (_segment_min_or_max_grad, _unsorted_segment_min_or_max_grad),
    "Min": (_segment_min_or_max_grad, _unsorted_segment_min_or_max_grad),
}

for _kind, _types in (("Sum", "numbertype"), ("Mean", "numbertype"), ("Prod", "numbertype"),
                      ("Max", "realnumbertype"), ("Min", "realnumbertype")):
    _sorted_grad, _unsorted_grad = _SEGMENT_GRADS[_kind]
    op_registry.declare(f"Segment{_kind}", inputs=["data: T", "segment_ids: Tindices"],
                        outputs=["output: T"], attrs=[f"T: {_types}", "Tindices: {int32, int64}"],
                        shape=_segment_shape, kernel=_sorted_segment(_kind), grad=_sorted_grad)
    if _kind != "Mean":
        op_registry.declare(
            f"UnsortedSegment{_kind}",
            inputs=["data: T", "segment_ids: Tindices", "num_segments: Tnumsegments"],
            outputs=["output: T"],
            attrs=[f"T: {_types}", "Tindices: {int32, int64}",
                   "Tnumsegments: {int32, int64} = DT_INT32"],
            shape=_unsorted_segment_shape, kernel=_unsorted_segment(_kind), grad=_unsorted_grad)


# ------------------------------------------------------------------------------------------
# public API
# ------------------------------------------------------------------------------------------


def _deprecated(new_name, new_value, old_name, old_value):
    if old_value is not None:
        if new_value is not None:
            raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'")  # TF's order
        return old_value
    return new_value


def _reduction_dims(x, axis):
    if axis is not None:
        return axis
    rank = x.get_shape().ndims
    if rank is not None:
        from tideflow.ops import constant_op

        return constant_op.constant(np.arange(rank, dtype=np.int32))  # named Const, as in TF
    # by op type: the array family owns Range and Rank and their wrappers
    rank = ops.apply_op("Rank", [x])._outputs[0]
    return ops.apply_op("Range", [0, rank, 1], name="range")._outputs[0]  # as TF: range/start


def _reduce(op_type, input_tensor, axis, keepdims, name, reduction_indices, keep_dims,
            dtype=None):
    axis = _deprecated("axis", axis, "reduction_indices", reduction_indices)
    keepdims = _deprecated("keepdims", keepdims, "keep_dims", keep_dims)
    if isinstance(input_tensor, ops.Tensor):
        out = ops.apply_op(op_type, [input_tensor, _reduction_dims(input_tensor, axis)],
                           {"keep_dims": bool(keepdims)}, name=name)._outputs[0]
    else:
        # a list, array or variable: as TF, the axes of a full reduction come from Rank and
        # Range ops, and the value is converted inside the op's scope (Sum/input)
        from tideflow.framework.sparse_tensor import SparseTensor
        from tideflow.ops import array_ops, constant_op, range_ops

        if axis is None and isinstance(input_tensor, SparseTensor) and \
                input_tensor.dense_shape.get_shape().is_fully_defined():
            # as TF: a SparseTensor's known rank gives a Const of the axes (before the
            # SparseTensor fails to convert)
            rank = input_tensor.dense_shape.get_shape().dims[0].value
            axis = constant_op.constant(np.arange(rank, dtype=np.int32))
        if axis is None:
            axis = range_ops.range(0, array_ops.rank(input_tensor))
        with ops.name_scope(name, op_type, [input_tensor]) as scope:
            # All/Any take bool: a Python list converts as bool (``reduce_all([])`` is True)
            x = ops.convert_to_tensor(input_tensor, preferred_dtype=dtype, name="input")
            out = ops.apply_op(op_type, [x, axis], {"keep_dims": bool(keepdims)},
                               name=scope)._outputs[0]
    if axis is None and not keepdims:
        out.set_shape([])  # a full reduction is a scalar even when the input's rank is unknown
    return out


@add_dispatch_support  # RaggedTensor inputs: tf.ragged's reductions
def reduce_sum(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
    """The sum of elements across ``axis`` (all axes when None)."""
    return _reduce("Sum", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


@add_dispatch_support
def reduce_mean(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                keep_dims=None):
    """The mean of elements across ``axis`` (integer means truncate, as in TF)."""
    return _reduce("Mean", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


@add_dispatch_support
def reduce_prod(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                keep_dims=None):
    """The product of elements across ``axis``."""
    return _reduce("Prod", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


@add_dispatch_support
def reduce_max(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
    """The maximum of elements across ``axis``."""
    return _reduce("Max", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


@add_dispatch_support
def reduce_min(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
    """The minimum of elements across ``axis``."""
    return _reduce("Min", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


@add_dispatch_support
def reduce_all(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
    """Logical AND of bool elements across ``axis``."""
    return _reduce("All", input_tensor, axis, keepdims, name, reduction_indices, keep_dims,
                   dtypes.bool)


@add_dispatch_support
def reduce_any(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
    """Logical OR of bool elements across ``axis``."""
    return _reduce("Any", input_tensor, axis, keepdims, name, reduction_indices, keep_dims,
                   dtypes.bool)


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(sum(x * conj(x))) across ``axis`` (integers: the floor of the root)."""
    return _reduce("EuclideanNorm", input_tensor, axis, keepdims, name, None, None)


def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                     keep_dims=None):
    """log(sum(exp(x))) across ``axis``, computed without overflow."""
    from tideflow.ops import math_ops

    axis = _deprecated("axis", axis, "reduction_indices", reduction_indices)
    keepdims = bool(_deprecated("keepdims", keepdims, "keep_dims", keep_dims))
    full = axis is None and not keepdims
    from tideflow.ops.array_ops import reshape, shape, stop_gradient
    from tideflow.ops.fill_ops import zeros_like
    from tideflow.ops.gather_ops import where

    with ops.name_scope(name, "ReduceLogSumExp", [input_tensor]):
        # TF 1.15's ops: shift by the max where it is finite (else 0, so all -inf or +inf
        # rows stay exact), a gradient-stopped shift, and raw Sub/Add ops
        raw_max = reduce_max(input_tensor, axis=axis, keepdims=True)
        finite = ops.apply_op("IsFinite", [raw_max])._outputs[0]
        shift = stop_gradient(where(finite, raw_max, zeros_like(raw_max)))
        diff = ops.apply_op("Sub", [input_tensor, shift])._outputs[0]
        total = reduce_sum(math_ops.exp(diff), axis, keepdims=keepdims)
        out = math_ops.log(total)
        if not keepdims:
            shift = reshape(shift, shape(out))
        out = ops.apply_op("Add", [out, shift])._outputs[0]
    if full:
        out.set_shape([])  # as TF: a full reduction is a scalar even of an unknown rank
    return out


def count_nonzero(input_tensor=None, axis=None, keepdims=None, dtype=dtypes.int64, name=None,
                  reduction_indices=None, keep_dims=None, input=None):
    """The number of non-zero elements across ``axis``, as ``dtype`` (``input`` is TF 1.15's
    deprecated name of ``input_tensor``)."""
    from tideflow.ops import math_ops

    input_tensor = _deprecated("input", input, "input_tensor", input_tensor)
    if input_tensor is None:
        raise ValueError("count_nonzero needs input_tensor")

    axis = _deprecated("axis", axis, "reduction_indices", reduction_indices)
    keepdims = bool(_deprecated("keepdims", keepdims, "keep_dims", keep_dims))
    with ops.name_scope(name, "count_nonzero", [input_tensor]):
        x = ops.convert_to_tensor(input_tensor, name="input_tensor")
        # strings count the non-empty ones
        zero = ops.convert_to_tensor("" if x.dtype.base_dtype == dtypes.string
                                     else np.zeros((), x.dtype.as_numpy_dtype),
                                     dtype=x.dtype.base_dtype, name="zeros")
        nonzero = math_ops._cast(math_ops.not_equal(x, zero), dtypes.int64)
        return math_ops._cast(reduce_sum(nonzero, axis=axis, keepdims=keepdims), dtype)


def _arg_minmax(op_type, input, axis, name, dimension, output_type):
    axis = _deprecated("axis", axis, "dimension", dimension)
    if axis is None:
        axis = 0
    return ops.apply_op(op_type, [input, axis], {"output_type": output_type},
                        name=name)._outputs[0]


def argmax(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):
    """The index of the largest value along ``axis`` (0 when None)."""
    return _arg_minmax("ArgMax", input, axis, name, dimension, output_type)


def argmin(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):
    """The index of the smallest value along ``axis`` (0 when None)."""
    return _arg_minmax("ArgMin", input, axis, name, dimension, output_type)


def arg_max(input, dimension, output_type=dtypes.int64, name=None):
    """ArgMax with the generated op's signature (``output_type`` before ``name``)."""
    return _arg_minmax("ArgMax", input, None, name, dimension, output_type)


def arg_min(input, dimension, output_type=dtypes.int64, name=None):
    """ArgMin with the generated op's signature (``output_type`` before ``name``)."""
    return _arg_minmax("ArgMin", input, None, name, dimension, output_type)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """The cumulative sum of x along ``axis``."""
    with ops.name_scope(name, "Cumsum", [x]) as scope:
        return ops.apply_op("Cumsum", [x, axis], {"exclusive": exclusive, "reverse": reverse},
                            name=scope)._outputs[0]


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """The cumulative product of x along ``axis``."""
    with ops.name_scope(name, "Cumprod", [x]) as scope:
        return ops.apply_op("Cumprod", [x, axis], {"exclusive": exclusive, "reverse": reverse},
                            name=scope)._outputs[0]


def _segment_fn(op_type, py_name, doc):
    def fn(data, segment_ids, name=None):
        return ops.apply_op(op_type, [data, segment_ids], name=name)._outputs[0]

    fn.__name__ = fn.__qualname__ = py_name
    fn.__doc__ = doc
    return fn


def _unsorted_segment_fn(op_type, py_name, doc):
    def fn(data, segment_ids, num_segments, name=None):
        return ops.apply_op(op_type, [data, segment_ids, num_segments], name=name)._outputs[0]

    fn.__name__ = fn.__qualname__ = py_name
    fn.__doc__ = doc
    return add_dispatch_support(fn)  # RaggedTensor data: tf.ragged's segment reductions


segment_sum = _segment_fn("SegmentSum", "segment_sum", "Sums rows of data by sorted segment id.")
segment_mean = _segment_fn("SegmentMean", "segment_mean", "Means of rows by sorted segment id.")
segment_prod = _segment_fn("SegmentProd", "segment_prod", "Products of rows by sorted segment id.")
segment_max = _segment_fn("SegmentMax", "segment_max", "Maxima of rows by sorted segment id.")
segment_min = _segment_fn("SegmentMin", "segment_min", "Minima of rows by sorted segment id.")
unsorted_segment_sum = _unsorted_segment_fn(
    "UnsortedSegmentSum", "unsorted_segment_sum", "Sums of data by segment id (any order).")
unsorted_segment_prod = _unsorted_segment_fn(
    "UnsortedSegmentProd", "unsorted_segment_prod", "Products of data by segment id (any order).")
unsorted_segment_max = _unsorted_segment_fn(
    "UnsortedSegmentMax", "unsorted_segment_max", "Maxima of data by segment id (any order).")
unsorted_segment_min = _unsorted_segment_fn(
    "UnsortedSegmentMin", "unsorted_segment_min", "Minima of data by segment id (any order).")


def reduced_shape(input_shape, axes):
    """The shape ``input_shape`` (a 1-D int32 tensor) has after a keep_dims reduction over
    ``axes``: each reduced dimension becomes 1 (``[5, 3]`` over ``[0]`` is ``[1, 3]``)."""
    from tideflow.ops import array_ops, constant_op, gather_ops, math_ops, range_ops

    shape_v, axes_v = ops.constant_value(input_shape), ops.constant_value(axes)
    if not isinstance(input_shape, ops.Tensor):
        shape_v = np.asarray(input_shape)
    if not isinstance(axes, ops.Tensor):
        axes_v = np.asarray(axes)
    if shape_v is not None and axes_v is not None:
        dims = np.array(shape_v, dtype=np.int32).reshape([-1])
        if dims.size:
            dims[np.ravel(axes_v).astype(np.int64) % dims.size] = 1
        return constant_op.constant(dims, dtype=dtypes.int32)
    shape = math_ops._cast(ops.convert_to_tensor(input_shape), dtypes.int32)
    rank = array_ops.size(shape)
    axes = math_ops.floormod(
        math_ops._cast(array_ops.reshape(ops.convert_to_tensor(axes), [1, -1]), dtypes.int32),
        rank)
    hit = reduce_any(math_ops.equal(array_ops.reshape(range_ops.range(rank), [-1, 1]), axes), 1)
    return gather_ops.select(hit, array_ops.ones_like(shape), shape)
