"""Set and counting ops of TF 1.x: ListDiff (``tf.setdiff1d``), UniqueWithCounts, UniqueV2 and
UniqueWithCountsV2 (unique slices along an axis), Bincount,
HistogramFixedWidth and UnravelIndex, with ``tf.confusion_matrix``, ``tf.batch_gather`` and
``tf.lbeta`` composed from other ops as TF 1.x composes them."""

import collections

import numpy as np

from tideflow.framework import dtypes, op_registry, ops
from tideflow.framework.dispatch import add_dispatch_support
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops.array_ops import _in, _invalid, _np, _register_fold, _shape_str
from tideflow.ops.gather_ops import half_keys


def _vector(op_type, what, x):
    if x.ndim != 1:
        raise _invalid(f"{op_type}: {what} must be 1-D, got shape {_shape_str(x.shape)}")


def _static_vector(op_type, what, s):
    if s.ndims is not None and s.ndims != 1:
        # TF's shape-function wording, to which the op's name and input shapes are added
        raise ValueError(f"Shape must be rank 1 but is rank {s.ndims}")


def _static_scalar(op_type, what, s):
    if s.ndims is not None and s.ndims != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {s.ndims}")


# ------------------------------------------------------------------------------------------
# ListDiff (setdiff1d)
# ------------------------------------------------------------------------------------------


def _list_diff_shape(op):
    _static_vector("ListDiff", "x", _in(op, 0))
    _static_vector("ListDiff", "y", _in(op, 1))
    return [TensorShape([None]), TensorShape([None])]


def _list_diff_kernel(x, y, *, out_idx):
    x, y = _np(x), _np(y)
    _vector("ListDiff", "x", x)
    _vector("ListDiff", "y", y)
    keep = ~np.isin(x, y) if x.dtype != object else np.array(
        [v not in set(y.tolist()) for v in x.tolist()], bool)
    idx = np.nonzero(keep)[0]
    return x[idx], idx.astype(out_idx.as_numpy_dtype)


op_registry.declare(
    "ListDiff",
    inputs=["x: T", "y: T"],
    outputs=["out: T", "idx: out_idx"],
    attrs=["T: type", "out_idx: {int32, int64} = DT_INT32"],
    shape=_list_diff_shape,
    kernel=_list_diff_kernel,
    differentiable=False,
)

ListDiff = collections.namedtuple("ListDiff", ["out", "idx"])


def setdiff1d(x, y, index_dtype=dtypes.int32, name=None):
    """The elements of 1-D ``x`` not in ``y`` (in ``x``'s order, duplicates kept) and their
    indices in ``x``."""
    op = ops.apply_op("ListDiff", [x, y], {"out_idx": dtypes.as_dtype(index_dtype)},
                      name=name)
    return ListDiff(*op._outputs)


# ------------------------------------------------------------------------------------------
# UniqueWithCounts
# ------------------------------------------------------------------------------------------


def _unique_with_counts_kernel(x, *, out_idx):
    x = _np(x)
    if x.ndim != 1:
        raise _invalid("unique expects a 1D vector.")
    seen = {}
    idx = np.empty(x.shape, out_idx.as_numpy_dtype)
    firsts = []
    # (a half by its bits, as TF's hash map: see gather_ops.half_keys)
    for i, v in enumerate((half_keys(x) if x.dtype == np.float16 else x).tolist()):
        j = seen.get(v)
        if j is None:
            j = seen[v] = len(firsts)
            firsts.append(i)
        idx[i] = j
    count = np.bincount(idx.astype(np.int64), minlength=len(firsts))
    return x[np.asarray(firsts, np.int64)], idx, count.astype(out_idx.as_numpy_dtype)


def _unique_with_counts_shape(op):
    # as TF 1.15: no rank check here (Unique has one); idx is shaped like x; the kernel
    # rejects a non-vector
    return [TensorShape([None]), _in(op, 0), TensorShape([None])]


op_registry.declare(
    "UniqueWithCounts",
    inputs=["x: T"],
    outputs=["y: T", "idx: out_idx", "count: out_idx"],
    attrs=["T: type", "out_idx: {int32, int64} = DT_INT32"],
    shape=_unique_with_counts_shape,
    kernel=_unique_with_counts_kernel,  # (no gradient defined, as TF 1.15)
)

UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    """The unique elements of 1-D ``x`` in order of appearance, each element's index into
    them, and how often each occurs."""
    op = ops.apply_op("UniqueWithCounts", [x], {"out_idx": dtypes.as_dtype(out_idx)},
                      name=name)
    return UniqueWithCounts(*op._outputs)


# ------------------------------------------------------------------------------------------
# UniqueV2, UniqueWithCountsV2: unique slices along an axis (TF's gen_array_ops.unique_v2)
# ------------------------------------------------------------------------------------------


def _unique_axis_kernel(op_type, counts):
    def kernel(x, axis, *, out_idx):
        x = _np(x)
        axis = np.reshape(_np(axis), -1)
        if axis.size == 0:
            _vector(op_type, "x", x)  # TF: "unique expects a 1D vector" without an axis
            a = 0
        elif axis.size > 1:
            raise _invalid(f"{op_type}: axis expects a 1D vector with 1 element: "
                           f"{_shape_str(axis.shape)}")
        else:
            a = int(axis[0])
            if not -x.ndim <= a < x.ndim:
                raise _invalid(f"{op_type}: axis has to be between [{-x.ndim}, {x.ndim})")
            a %= x.ndim
        rows = np.moveaxis(x, a, 0).reshape(x.shape[a], -1)
        seen, firsts = {}, []
        idx = np.empty(x.shape[a], out_idx.as_numpy_dtype)
        for i, row in enumerate(rows.tolist()):
            key = tuple(row)
            j = seen.get(key)
            if j is None:
                j = seen[key] = len(firsts)
                firsts.append(i)
            idx[i] = j
        y = np.take(x, np.asarray(firsts, np.int64), axis=a)
        if not counts:
            return y, idx
        count = np.bincount(idx.astype(np.int64), minlength=len(firsts))
        return y, idx, count.astype(out_idx.as_numpy_dtype)

    return kernel


def _unique_axis_shape(op):
    x = _in(op, 0)
    axis = ops.constant_value(op._inputs[1])
    n = len(op._outputs)
    if x.ndims is None:
        return [None, TensorShape([None])] + [TensorShape([None])] * (n - 2)
    a = 0 if axis is None or np.size(axis) == 0 else int(np.reshape(axis, -1)[0]) % max(
        x.ndims, 1)
    y = x.as_list()
    if axis is None:
        y = [None] * x.ndims
    elif y:
        y[a] = None
    idx = TensorShape([x.as_list()[a] if axis is not None and x.ndims else None])
    return [TensorShape(y), idx] + [TensorShape([None])] * (n - 2)


for _name, _counts in (("UniqueV2", False), ("UniqueWithCountsV2", True)):
    op_registry.declare(
        _name,
        inputs=["x: T", "axis: Taxis"],
        outputs=["y: T", "idx: out_idx"] + (["count: out_idx"] if _counts else []),
        attrs=["T: type", "Taxis: {int32, int64} = DT_INT64",
               "out_idx: {int32, int64} = DT_INT32"],
        shape=_unique_axis_shape,
        kernel=_unique_axis_kernel(_name, _counts),  # (no gradient defined, as TF 1.15)
    )


# ------------------------------------------------------------------------------------------
# Bincount
# ------------------------------------------------------------------------------------------


def _bincount_shape(op):
    _static_scalar("Bincount", "size", _in(op, 1))
    size = ops.constant_value(op._inputs[1])
    if size is not None and int(size) < 0:
        raise ValueError(f"size ({int(size)}) must be non-negative")
    return [TensorShape([None if size is None else int(size)])]


def _bincount_kernel(arr, size, weights):
    arr, weights = _np(arr), _np(weights)
    size = _np(size)
    if size.ndim != 0:
        raise _invalid(f"Bincount: size must be a scalar, got shape {_shape_str(size.shape)}")
    size = int(size)
    if size < 0:
        raise _invalid(f"Bincount: size ({size}) must be non-negative")
    if arr.size and arr.min() < 0:
        raise _invalid("Input arr must be non-negative!")  # TF's words
    if weights.size and weights.shape != arr.shape:
        raise _invalid(f"Bincount: weights {_shape_str(weights.shape)} must be empty or have "
                       f"the shape of arr {_shape_str(arr.shape)}")
    flat = arr.reshape(-1).astype(np.int64)
    keep = flat < size
    w = weights.reshape(-1)[keep] if weights.size else None
    out = np.bincount(flat[keep], weights=w, minlength=size)[:size]
    return out.astype(weights.dtype)


op_registry.declare(
    "Bincount",
    inputs=["arr: int32", "size: int32", "weights: T"],
    outputs=["bins: T"],
    attrs=["T: {int32, int64, float32, float64}"],
    shape=_bincount_shape,
    kernel=_bincount_kernel,
    differentiable=False,
)
_register_fold("Bincount")


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32,
             name=None):
    """Counts the occurrences of each value of the non-negative int32 ``arr`` (summing
    ``weights`` instead, if given); the result has ``max(arr) + 1`` entries, at least
    ``minlength`` and at most ``maxlength``."""
    from tideflow.ops import array_ops, cast_ops, math_ops, reduction_ops

    with ops.name_scope(name or "bincount"):
        arr = ops.convert_to_tensor(arr, name="arr", dtype=dtypes.int32)
        # TF 1.15's ops: max(arr) + 1, times 0 for an empty arr
        nonempty = math_ops.greater(reduction_ops.reduce_prod(array_ops.shape(arr)), 0)
        output_size = cast_ops.cast(nonempty, dtypes.int32) * (reduction_ops.reduce_max(arr) + 1)
        if minlength is not None:
            minlength = ops.convert_to_tensor(minlength, name="minlength", dtype=dtypes.int32)
            output_size = ops.apply_op("Maximum", [minlength, output_size])._outputs[0]
        if maxlength is not None:
            maxlength = ops.convert_to_tensor(maxlength, name="maxlength", dtype=dtypes.int32)
            output_size = ops.apply_op("Minimum", [maxlength, output_size])._outputs[0]
        if weights is not None:
            weights = ops.convert_to_tensor(weights, name="weights")
            return ops.apply_op("UnsortedSegmentSum", [weights, arr, output_size])._outputs[0]
        weights = ops.convert_to_tensor(np.zeros([0], dtypes.as_dtype(dtype).as_numpy_dtype))
        return ops.apply_op("Bincount", [arr, output_size, weights])._outputs[0]


# ------------------------------------------------------------------------------------------
# Bucketize
# ------------------------------------------------------------------------------------------


def _bucketize_kernel(input, *, boundaries):
    # the attr is TF's 32-bit float list: compare against the float32-rounded boundaries
    bounds = np.asarray(boundaries, dtype=np.float32).astype(np.float64)
    if bounds.size > 1 and np.any(bounds[1:] < bounds[:-1]):
        raise _invalid("Expected sorted boundaries")
    x = _np(input)
    return np.searchsorted(bounds, x, side="right").astype(np.int32).reshape(np.shape(x))


op_registry.declare(
    "Bucketize",
    inputs=["input: T"],
    outputs=["output: int32"],
    attrs=["T: {int32, int64, float, double}", "boundaries: list(float)"],
    shape=lambda op: [op._inputs[0]._shape],
    kernel=_bucketize_kernel,
    differentiable=False,
)


def _bucketize(input, boundaries, name=None):
    """The index of the bucket of each element of ``input`` (the number of ``boundaries`` at or
    below it), as int32: TF's hidden ``math_ops._bucketize``."""
    return ops.apply_op("Bucketize", [input], {"boundaries": [float(b) for b in boundaries]},
                        name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# HistogramFixedWidth
# ------------------------------------------------------------------------------------------


def _histogram_shape(op):
    _static_vector("HistogramFixedWidth", "value_range", _in(op, 1))
    _static_scalar("HistogramFixedWidth", "nbins", _in(op, 2))
    rng = _in(op, 1)
    if rng.ndims == 1 and rng.dims[0].value is not None and rng.dims[0].value != 2:
        raise ValueError(f"HistogramFixedWidth: Dimension must be 2 but is {rng.dims[0].value} "
                         f"for value_range (shape {_shape_str(rng)}): it is [lo, hi]")
    nbins = ops.constant_value(op._inputs[2])
    if nbins is not None and int(nbins) <= 0:
        raise ValueError(f"Requires nbins > 0: {int(nbins)}")  # TF 1.15's words
    return [TensorShape([None if nbins is None else int(nbins)])]


def _histogram_kernel(values, value_range, nbins, *, dtype):
    values, value_range, nbins = _np(values), _np(value_range), _np(nbins)
    if value_range.shape != (2,):
        raise _invalid(f"value_range should be a vector of 2 elements, got shape "
                       f"{_shape_str(value_range.shape)}")
    if nbins.ndim != 0:
        raise _invalid(f"nbins should be a scalar, got shape {_shape_str(nbins.shape)}")
    nbins = int(nbins)
    if nbins <= 0:
        raise _invalid(f"nbins should be a positive number, but got '{nbins}'")
    lo, hi = value_range
    if not lo < hi:
        raise _invalid(f"value_range should satisfy value_range[0] < value_range[1], but got "
                       f"'[{lo:g}, {hi:g}]'")
    if values.dtype.kind == "f" and np.isnan(values).any():
        raise _invalid("HistogramFixedWidth: values contain NaN, which falls in no bin")
    step = (float(hi) - float(lo)) / nbins
    # TF's bin rule: clamp below to the first bin, the right edge and above to the last
    pos = (np.maximum(values, lo).astype(np.float64) - float(lo)) / step
    index = np.minimum(pos, nbins - 1).astype(np.int64).reshape(-1)
    return np.bincount(index, minlength=nbins).astype(dtype.as_numpy_dtype)


op_registry.declare(
    "HistogramFixedWidth",
    inputs=["values: T", "value_range: T", "nbins: int32"],
    outputs=["out: dtype"],
    attrs=["T: {int32, int64, float32, float64}", "dtype: {int32, int64} = DT_INT32"],
    shape=_histogram_shape,
    kernel=_histogram_kernel,
    differentiable=False,
)


def histogram_fixed_width(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """Counts ``values`` into ``nbins`` equal-width bins over ``value_range`` ([lo, hi]);
    values below ``lo`` count in the first bin, values at or above ``hi`` in the last."""
    with ops.name_scope(name, "histogram_fixed_width", [values, value_range, nbins]) as scope:
        values = ops.convert_to_tensor(values, name="values")
        value_range = ops.convert_to_tensor(value_range, name="value_range",
                                            dtype=values.dtype)
        nbins = ops.convert_to_tensor(nbins, name="nbins", dtype=dtypes.int32)
        return ops.apply_op("HistogramFixedWidth", [values, value_range, nbins],
                            {"dtype": dtypes.as_dtype(dtype)}, name=scope)._outputs[0]


# ------------------------------------------------------------------------------------------
# UnravelIndex
# ------------------------------------------------------------------------------------------


def _unravel_shape(op):
    # TF 1.15's: [len(dims)] for a scalar, else [len(dims), indices' element count] (its
    # rank unchecked here: the kernel rejects a matrix)
    idx, dims = _in(op, 0), _in(op, 1)
    _static_vector("UnravelIndex", "dims", dims)
    n = dims.as_list()[0] if dims.ndims == 1 else None
    if idx.ndims is None:
        return [TensorShape(None)]
    if idx.ndims == 0:
        return [TensorShape([n])]
    count = idx.num_elements() if idx.is_fully_defined() else None
    return [TensorShape([n, count])]


def _unravel_kernel(indices, dims):
    indices, dims = _np(indices), _np(dims)
    if indices.ndim > 1:
        raise _invalid(f"The indices can only be scalar or vector, got "
                       f"\"{_shape_str(indices.shape)}\"")
    if dims.ndim != 1:
        raise _invalid(f"The indices can only be 1-D, got \"{_shape_str(dims.shape)}\"")
    if np.any(dims <= 0) and indices.size:
        # (TF 1.15's kernel divides by the zero: a floating-point exception ends the process)
        raise _invalid(f"UnravelIndex: dims must be positive, got {dims.tolist()}")
    if not dims.size:
        return np.zeros((0,) + indices.shape, indices.dtype)
    # TF 1.15's kernel: (index / stride) % dim in C's truncating arithmetic, no bounds check
    # (7 in [2, 3] is [0, 1], -1 is [0, -1])
    strides = np.cumprod(np.concatenate([[1], dims[::-1][:-1]]).astype(np.int64))[::-1]
    i = indices.astype(np.int64)[None]
    q = np.abs(i) // strides.reshape((-1,) + (1,) * indices.ndim) * np.sign(i)
    out = np.fmod(q, dims.astype(np.int64).reshape((-1,) + (1,) * indices.ndim))
    return out.astype(indices.dtype)


op_registry.declare(
    "UnravelIndex",
    inputs=["indices: Tidx", "dims: Tidx"],
    outputs=["output: Tidx"],
    attrs=["Tidx: {int32, int64} = DT_INT32"],
    shape=_unravel_shape,
    kernel=_unravel_kernel,
    differentiable=False,
)
_register_fold("UnravelIndex")


def unravel_index(indices, dims, name=None):
    """The coordinates in an array of shape ``dims`` of each flat index in ``indices``: shape
    ``[len(dims)]`` for a scalar, ``[len(dims), n]`` for a vector."""
    return ops.apply_op("UnravelIndex", [indices, dims], name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# composed: confusion_matrix, batch_gather, lbeta
# ------------------------------------------------------------------------------------------


def _drop_last_unit_dim(a, b):
    """TF's remove_squeezable_dimensions for static ranks (in its scope): squeezes the last
    dimension of the operand that is one rank longer (a size other than 1 fails there, as in
    TF 1.15)."""
    from tideflow.ops import array_ops

    with ops.name_scope(None, "remove_squeezable_dimensions", [a, b]):
        ra, rb = a.get_shape().ndims, b.get_shape().ndims
        if ra is not None and rb is not None:
            if ra - rb == 1:
                a = array_ops.squeeze(a, [-1])
            elif rb - ra == 1:
                b = array_ops.squeeze(b, [-1])
    return a, b


def confusion_matrix(labels, predictions, num_classes=None, dtype=dtypes.int32, name=None,
                     weights=None):
    """The ``[num_classes, num_classes]`` matrix counting (or summing ``weights`` over) each
    (label, prediction) pair; rows are labels, columns predictions."""
    from tideflow.ops import (
        cast_ops,
        check_ops,
        concat_ops,
        control_flow_ops,
        math_ops,
        reduction_ops,
        sparse_ops,  # noqa: F401 - declares SparseTensorDenseAdd
    )
    from tideflow.ops.fill_ops import ones_like, zeros

    with ops.name_scope(name, "confusion_matrix", (predictions, labels, num_classes, weights)):
        labels, predictions = _drop_last_unit_dim(
            ops.convert_to_tensor(labels, name="labels"),
            ops.convert_to_tensor(predictions, name="predictions"))
        predictions = cast_ops.cast(predictions, dtypes.int64)
        labels = cast_ops.cast(labels, dtypes.int64)
        labels = control_flow_ops.with_dependencies([check_ops.assert_non_negative(
            labels, message="`labels` contains negative values")], labels)
        predictions = control_flow_ops.with_dependencies([check_ops.assert_non_negative(
            predictions, message="`predictions` contains negative values")], predictions)
        if num_classes is None:
            num_classes = math_ops.maximum(reduction_ops.reduce_max(predictions),
                                           reduction_ops.reduce_max(labels)) + 1
        else:
            n64 = cast_ops.cast(num_classes, dtypes.int64)
            labels = control_flow_ops.with_dependencies([check_ops.assert_less(
                labels, n64, message="`labels` out of bound")], labels)
            predictions = control_flow_ops.with_dependencies([check_ops.assert_less(
                predictions, n64, message="`predictions` out of bound")], predictions)
        dtype = dtypes.as_dtype(dtype)
        if weights is not None:
            weights = ops.convert_to_tensor(weights, name="weights")
            predictions.get_shape().assert_is_compatible_with(weights.get_shape())  # (TF's)
            weights = cast_ops.cast(weights, dtype)
        shape = concat_ops.stack([num_classes, num_classes])
        indices = concat_ops.stack([labels, predictions], axis=1)
        values = ones_like(predictions, dtype=dtype) if weights is None else weights
        # as TF 1.15: the pairs as a sparse tensor added onto a zero matrix (its ops; the
        # shape stacks num_classes as given)
        # (the SparseTensor checks its parts' ranks: labels and predictions of rank 2 stack
        # to rank-3 indices, TF's "Shape (n, 2, 2) must have rank 2")
        from tideflow.framework.sparse_tensor import SparseTensor

        cm_sparse = SparseTensor(indices=indices, values=values,
                                 dense_shape=cast_ops.cast(shape, dtypes.int64))
        zero_matrix = zeros(cast_ops.cast(shape, dtypes.int32), dtype)
        return ops.apply_op("SparseTensorDenseAdd",
                            [cm_sparse.indices, cm_sparse.values, cm_sparse.dense_shape,
                             zero_matrix], name="SparseTensorDenseAdd")._outputs[0]


@add_dispatch_support  # RaggedTensor params or indices: ragged batch_gather
def batch_gather(params, indices, name=None):
    """``params[b..., indices[b..., i], ...]``: a gather along ``indices``' last axis with
    the leading (batch) dimensions of ``params`` and ``indices`` matched up."""
    from tideflow.ops import array_ops, concat_ops, fill_ops, gather_ops

    with ops.name_scope(name, "BatchGather", [params, indices]):
        indices = ops.convert_to_tensor(indices, name="indices")
        params = ops.convert_to_tensor(params, name="params")
        ndims = indices.get_shape().ndims
        if ndims is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        pshape = params.get_shape()
        if pshape.ndims is not None and pshape.ndims < ndims:
            raise ValueError(f"batch_gather: params {_shape_str(pshape)} must have at least the "
                             f"rank of indices {_shape_str(indices.get_shape())}")
        ishape = indices.get_shape()
        batch_dims = ndims - 1
        try:
            final = ishape[:batch_dims].merge_with(pshape[:batch_dims])
        except ValueError:
            raise ValueError(f"batch_gather: batch dimensions of params {_shape_str(pshape)} "
                             f"and indices {_shape_str(ishape)} differ") from None
        final = final.concatenate(ishape.dims[batch_dims:])
        final = final.concatenate(pshape[batch_dims + 1:])
        # TF 1.15's _batch_gather, op for op: each batch's row offset added to the indices,
        # then one gather from params flattened over the batch dims
        idx_dt = indices.dtype.base_dtype
        indices_shape = array_ops.shape(indices)
        params_shape = array_ops.shape(params)
        batch_indices = indices
        accum = fill_ops.ones((), dtype=idx_dt)
        cast_shape = ops.apply_op("Cast", [params_shape], {"DstT": idx_dt})._outputs[0]
        for dim in range(batch_dims, 0, -1):
            dim_value = cast_shape[dim - 1]
            accum *= cast_shape[dim]
            start = fill_ops.zeros((), dtype=idx_dt)
            step = fill_ops.ones((), dtype=idx_dt)
            dim_indices = ops.apply_op("Range", [start, dim_value, step])._outputs[0]
            dim_indices *= accum
            dim_shape = concat_ops.stack([1] * (dim - 1) + [dim_value] + [1] * (ndims - dim),
                                         axis=0)
            batch_indices += array_ops.reshape(dim_indices, dim_shape)
        flat_indices = array_ops.reshape(batch_indices, [-1])
        outer_shape = params_shape[batch_dims + 1:]
        flat_inner = ops.apply_op("Prod", [params_shape[:batch_dims + 1], [0]],
                                  {"keep_dims": False})._outputs[0]
        flat_params = array_ops.reshape(params, concat_ops.concat([[flat_inner], outer_shape],
                                                                  axis=0))
        result = array_ops.reshape(gather_ops.gather(flat_params, flat_indices),
                                   concat_ops.concat([indices_shape, outer_shape], axis=0))
        result.set_shape(final)
        return result


def lbeta(x, name=None):
    """``log(|Beta(x)|)`` over the last dimension: ``sum(lgamma(x)) - lgamma(sum(x))``."""
    from tideflow.ops import reduction_ops
    from tideflow.ops.math_ops import lgamma

    with ops.name_scope(name, "lbeta", [x]):
        x = ops.convert_to_tensor(x, name="x")
        log_prod_gamma_x = reduction_ops.reduce_sum(lgamma(x), axis=[-1])
        sum_x = reduction_ops.reduce_sum(x, axis=[-1])
        return log_prod_gamma_x - lgamma(sum_x)

