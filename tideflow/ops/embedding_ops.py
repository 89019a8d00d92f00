"""Embedding lookups over one or many sharded parameter tensors, and the two ops that route ids
to shards and results back: DynamicPartition and DynamicStitch."""

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.dispatch import add_dispatch_support
from tideflow.framework.tensor_shape import TensorShape, unknown_shape
from tideflow.ops.array_ops import _fold
from tideflow.ops.partitioned_variables import PartitionedVariable


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


# ------------------------------------------------------------------------------------------
# DynamicPartition
# ------------------------------------------------------------------------------------------


def _dynamic_partition(data, partitions, *, num_partitions):
    p = np.asarray(partitions)
    if data.shape[:p.ndim] != p.shape:
        raise errors.InvalidArgumentError(
            None, None,
            f"data.shape must start with partitions.shape, got data.shape = {_dims(data.shape)}, "
            f"partitions.shape = {_dims(p.shape)}",
        )
    flat_p = p.reshape(-1)
    bad = (flat_p < 0) | (flat_p >= num_partitions)
    if bad.any():
        i = int(np.argmax(bad))
        pos = ",".join(str(int(v)) for v in np.unravel_index(i, p.shape)) if p.ndim else ""
        raise errors.InvalidArgumentError(
            None, None, f"partitions[{pos}] = {flat_p[i]} is not in [0, {num_partitions})")
    flat = data.reshape((flat_p.size,) + data.shape[p.ndim:])
    # a stable sort by partition keeps each partition's rows in their original order
    order = np.argsort(flat_p, kind="stable")
    counts = np.bincount(flat_p, minlength=num_partitions)
    starts = np.concatenate([[0], np.cumsum(counts)])
    rows = flat[order]
    return [rows[starts[i]:starts[i + 1]] for i in range(num_partitions)]


def _merge_leading(data_dims, index_shape):
    """The leading dimensions of ``data`` against the index tensor's shape, failing with TF's
    shape-function wording (Dimensions must be equal, but are a and b)."""
    for a, b in zip(data_dims.as_list(), index_shape.as_list()):
        if a is not None and b is not None and a != b:
            raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    return data_dims.merge_with(index_shape)


def _dynamic_partition_shape(op):
    data, parts = op._inputs[0]._shape, op._inputs[1]._shape
    n = op._attrs["num_partitions"]
    if data.ndims is None or parts.ndims is None:
        return [unknown_shape()] * n
    if parts.ndims > data.ndims:
        raise ValueError(f"Shape must be at least rank {parts.ndims} but is rank {data.ndims}")
    _merge_leading(TensorShape(data.dims[:parts.ndims]), parts)
    out = TensorShape([None]).concatenate(TensorShape(data.dims[parts.ndims:]))
    return [out] * n


def _dynamic_partition_grad(op, *grads):
    """Each row went to exactly one partition: stitch the partitions' gradients back."""
    from tideflow.ops import array_ops, range_ops, reduction_ops

    data, partitions = op.inputs
    prefix = array_ops.shape(partitions)
    original = array_ops.reshape(range_ops.range(reduction_ops.reduce_prod(prefix)), prefix)
    parts = dynamic_partition(original, partitions, op.get_attr("num_partitions"))
    stitched = dynamic_stitch(parts, list(grads))
    return [array_ops.reshape(stitched, array_ops.shape(data)), None]


op_registry.declare(
    "DynamicPartition",
    inputs=["data: T", "partitions: int32"],
    outputs=["outputs: num_partitions * T"],
    attrs=["num_partitions: int >= 1", "T: type"],
    shape=_dynamic_partition_shape,
    kernel=_dynamic_partition,
    grad=_dynamic_partition_grad,
)
# as TF's shape inference, which evaluates small constant subgraphs: the DynamicStitch of a
# partitioned embedding_lookup with constant ids then has a known number of rows
ops.register_constant_value("DynamicPartition", _fold, shape_inference_only=True)


# ------------------------------------------------------------------------------------------
# DynamicStitch
# ------------------------------------------------------------------------------------------


def _dynamic_stitch(indices, data):
    first_idx = np.asarray(indices[0])
    rest = data[0].shape[first_idx.ndim:]
    for i, (ix, d) in enumerate(zip(indices, data)):
        ix = np.asarray(ix)
        if d.shape[:ix.ndim] != ix.shape or d.shape[ix.ndim:] != rest:
            raise errors.InvalidArgumentError(
                None, None,
                f"data[{i}].shape = {_dims(d.shape)} does not start with indices[{i}].shape = "
                f"{_dims(ix.shape)}" if d.shape[:ix.ndim] != ix.shape else
                f"Need data[0].shape[{first_idx.ndim}:] = data[{i}].shape[{ix.ndim}:], got "
                f"data[0].shape = {_dims(data[0].shape)}, data[{i}].shape = {_dims(d.shape)}, "
                f"indices[0].shape = {_dims(first_idx.shape)}, indices[{i}].shape = "
                f"{_dims(ix.shape)}",
            )
    sizes = [int(np.max(ix)) + 1 for ix in indices if np.size(ix)]
    n = max(sizes) if sizes else 0
    if any(np.size(ix) and np.min(ix) < 0 for ix in indices):
        raise errors.InvalidArgumentError(None, None, "indices must be non-negative")
    out = np.zeros((n,) + rest, data[0].dtype)
    for ix, d in zip(indices, data):
        ix = np.asarray(ix).reshape(-1)
        out[ix] = d.reshape((ix.size,) + rest)  # later pieces overwrite earlier ones
    return out


def _dynamic_stitch_shape(op):
    n = op._attrs["N"]
    idx_shapes = [t._shape for t in op._inputs[:n]]
    data_shapes = [t._shape for t in op._inputs[n:]]
    rest = unknown_shape()
    for i, (ix, d) in enumerate(zip(idx_shapes, data_shapes)):
        if ix.ndims is None or d.ndims is None:
            continue
        if d.ndims < ix.ndims:
            raise ValueError(f"Shape must be at least rank {ix.ndims} but is rank {d.ndims}")
        _merge_leading(TensorShape(d.dims[:ix.ndims]), ix)
        try:
            rest = rest.merge_with(TensorShape(d.dims[ix.ndims:]))
        except ValueError:
            raise ValueError(
                f"Dimensions of data[{i}] beyond its indices' rank disagree with data[0]"
            ) from None
    size = None
    values = [ops.constant_value(t) for t in op._inputs[:n]]
    if all(v is not None for v in values):
        # as TF's shape function, whose running max starts at 0: empty indices say 1 row
        size = max([int(np.max(v)) for v in values if np.size(v)] + [0]) + 1
    return [TensorShape([size]).concatenate(rest)]


def _dynamic_stitch_grad(op, grad):
    """Each data row landed at its index: gather the gradient from there."""
    from tideflow.framework.indexed_slices import IndexedSlices
    from tideflow.ops import array_ops, cast_ops, gather_ops, reduction_ops

    n = op.get_attr("N")
    if isinstance(grad, IndexedSlices):
        rows = array_ops.shape(op.outputs[0])[0]
        grad = reduction_ops.unsorted_segment_sum(grad.values, grad.indices, rows)
    data_grads = [gather_ops.gather(grad, cast_ops.cast(ix, dtypes.int32))
                  for ix in op.inputs[:n]]
    return [None] * n + data_grads


for _name in ("DynamicStitch", "ParallelDynamicStitch"):
    op_registry.declare(
        _name,
        inputs=["indices: N * int32", "data: N * T"],
        outputs=["merged: T"],
        attrs=["N: int >= 1", "T: type"],
        shape=_dynamic_stitch_shape,
        kernel=_dynamic_stitch,
        grad=_dynamic_stitch_grad,
    )


@add_dispatch_support  # RaggedTensor data or partitions: ragged stack_dynamic_partitions
def dynamic_partition(data, partitions, num_partitions, name=None):
    """Splits ``data`` into ``num_partitions`` tensors by the partition index of each row."""
    return list(ops.apply_op("DynamicPartition", [data, partitions],
                             {"num_partitions": num_partitions}, name=name)._outputs)


def dynamic_stitch(indices, data, name=None):
    """Interleaves the rows of ``data`` into one tensor: ``merged[indices[m][i]] = data[m][i]``."""
    return ops.apply_op("DynamicStitch", [list(indices), list(data)], name=name)._outputs[0]


def parallel_dynamic_stitch(indices, data, name=None):
    """As dynamic_stitch (the order among duplicate indices is unspecified)."""
    return ops.apply_op("ParallelDynamicStitch", [list(indices), list(data)],
                        name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# embedding_lookup
# ------------------------------------------------------------------------------------------


def _clip_rows(x, ids, max_norm):
    """Rescales each looked-up embedding whose L2 norm exceeds ``max_norm``: TF 1.15's _clip,
    a clip_by_norm over the embedding's axes (a Range between the ranks when either is not
    a known positive number)."""
    from tideflow.ops import array_ops, clip_ops, range_ops

    if max_norm is None:
        return x

    def rank(t):
        r = t.get_shape().ndims
        return (r, True) if r else (array_ops.rank(t), False)

    ids_rank, ids_static = rank(ids)
    x_rank, x_static = rank(x)
    axes = (list(range(ids_rank, x_rank)) if ids_static and x_static
            else range_ops.range(ids_rank, x_rank))
    return clip_ops.clip_by_norm(x, max_norm, axes=axes)


def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True,
                     max_norm=None):
    """Looks up rows ``ids`` of ``params`` (one tensor, a list of shards partitioned by
    ``partition_strategy`` 'mod' or 'div', or a PartitionedVariable, whose parts are 'div'
    shards); the result has shape ``ids.shape + row shape``."""
    from tideflow.ops import array_ops, cast_ops, concat_ops, gather_ops, math_ops, range_ops

    del validate_indices
    if isinstance(params, PartitionedVariable):
        params = list(params)  # its parts, in order
    if params is None or (isinstance(params, (list, tuple)) and not params):
        raise ValueError("Need at least one param")
    if not isinstance(params, (list, tuple)):
        params = [params]
    params = list(params)
    with ops.name_scope(name, "embedding_lookup", params + [ids]) as scope:
        np_ = len(params)
        # variables stay variables, so the gathers read them where they live; the others are
        # converted before the ids, as params_0, params_1, ... (TF 1.15's order and names)
        params = [p if hasattr(p, "sparse_read") else ops.convert_to_tensor(p, name=f"params_{i}")
                  for i, p in enumerate(params)]
        ids = ops.convert_to_tensor(ids, name="ids")
        if np_ == 1:
            with ops.colocate_with(params[0]):
                result = _clip_rows(gather_ops.gather(params[0], ids, name=scope), ids,
                                    max_norm)
            # as TF: an Identity out of the params' colocation (and one op more in the graph,
            # so that graph-seeded ops created after it get TF's seeds)
            return array_ops.identity(result)
        flat_ids = array_ops.reshape(ids, [-1])
        original_indices = range_ops.range(array_ops.size(flat_ids))
        if partition_strategy not in ("mod", "div"):  # as TF, only with more than one shard
            raise ValueError(f"Unrecognized partition strategy: {partition_strategy}")
        if partition_strategy == "mod":
            p_assignments = flat_ids % np_
            new_ids = flat_ids // np_
        else:
            # the first (total % np) shards hold one row more than the others (TF 1.15's
            # ops: a Const total when the shards' rows are known, a Select of the two ids)
            rows = [p.get_shape()[0].value if p.get_shape().ndims else None for p in params]
            if None not in rows:
                from tideflow.ops import constant_op

                total = constant_op.constant(sum(rows), flat_ids.dtype)
            else:  # TF's ops: the rows stacked (known ones as numbers), cast, summed
                from tideflow.ops import array_ops, reduction_ops

                sizes = []
                for p, d in zip(params, rows):
                    if d is not None:
                        sizes.append(d)
                    else:
                        with ops.colocate_with(p):
                            sizes.append(array_ops.shape(p)[0])
                total = reduction_ops.reduce_sum(
                    cast_ops.cast(array_ops.stack(sizes), flat_ids.dtype))
            per = total // np_
            extras = total % np_
            p_assignments = math_ops.maximum(flat_ids // (per + 1), (flat_ids - extras) // per)
            new_ids = gather_ops.where(p_assignments < extras, flat_ids % (per + 1),
                                       (flat_ids - extras) % per)
        p_assignments = cast_ops.cast(p_assignments, dtypes.int32)
        gather_ids = dynamic_partition(new_ids, p_assignments, np_)
        pindices = dynamic_partition(original_indices, p_assignments, np_)
        partitioned = []
        for p, pids in zip(params, gather_ids):
            with ops.colocate_with(p):
                partitioned.append(gather_ops.gather(p, pids))
        ret = parallel_dynamic_stitch(pindices, partitioned, name=scope)
        element_shape = TensorShape(None)
        for p in params:
            ps = p.get_shape()
            element_shape = element_shape.merge_with(ps[1:] if ps.ndims else TensorShape(None))
        if element_shape.is_fully_defined():
            element_d = element_shape.as_list()
        else:  # as TF: the first shard's shape (taken on its device), before the ids' shape
            with ops.colocate_with(params[0]):
                element_d = array_ops.shape(params[0])[1:]
        ret = array_ops.reshape(ret, concat_ops.concat([array_ops.shape(ids), element_d], 0))
        ret.set_shape(ids.get_shape().concatenate(element_shape))
        return _clip_rows(ret, ids, max_norm)


def embedding_lookup_v2(params, ids, max_norm=None, name=None):
    """TF 2's ``embedding_lookup``: sharded ``params`` are always 'div'-partitioned."""
    return embedding_lookup(params, ids, "div", name, max_norm=max_norm)


def _embedding_lookup_and_transform(params, ids, partition_strategy="mod", name=None,
                                    max_norm=None, transform_fn=None):
    """TF's internal lookup with ``transform_fn`` applied to the (clipped) looked-up rows,
    [n] + row shape -> [n] + any shape; the result has shape ``ids.shape`` + that shape."""
    from tideflow.ops import array_ops, concat_ops

    if transform_fn is None:
        return embedding_lookup(params, ids, partition_strategy, name, max_norm=max_norm)
    with ops.name_scope(name, "embedding_lookup", [ids]):
        ids = ops.convert_to_tensor(ids, name="ids")
        rows = embedding_lookup(params, array_ops.reshape(ids, [-1]), partition_strategy,
                                max_norm=max_norm)
        out = transform_fn(rows)
        shape = concat_ops.concat([array_ops.shape(ids), array_ops.shape(out)[1:]], 0)
        result = array_ops.reshape(out, shape)
        result.set_shape(ids.get_shape().concatenate(out.get_shape()[1:]))
        return result
