"""Input pipelines of TF 0.8-1.x: producers that fill queues of file names or slices
(``string_input_producer``, ``slice_input_producer``...) and batching through queues
(``batch``, ``shuffle_batch``, their ``_join`` and conditional ``maybe_`` forms), each run by
QueueRunners."""

import numpy as np

from tideflow.framework import dtypes, op_registry, ops
from tideflow.framework.indexed_slices import IndexedSlices
from tideflow.framework.sparse_tensor import SparseTensor
from tideflow.framework.tensor_shape import as_shape, unknown_shape
from tideflow.ops import (
    array_ops,
    control_flow_ops,
    data_flow_ops,
    io_ops,
    random_ops,
    sparse_map_ops,
    variables,
)
from tideflow.ops.cast_ops import cast
from tideflow.ops.embedding_ops import dynamic_partition
from tideflow.ops.gather_ops import gather
from tideflow.ops.layers_base import smart_cond
from tideflow.ops.logging_ops import Assert
from tideflow.ops.math_ops import greater, maximum
from tideflow.ops.range_ops import range as _range
from tideflow.train import queue_runner

# ------------------------------------------------------------------------------------------
# producers
# ------------------------------------------------------------------------------------------


def _scalar_summary(tag, value):
    """Adds TF's queue-fullness summary when the summary ops are available."""
    if op_registry.lookup("ScalarSummary") is None:
        return
    scope = ops.get_default_graph()._name_stack
    full_tag = f"{scope}/{tag}" if scope else tag
    try:
        op = ops.apply_op("ScalarSummary", [full_tag, value], name=tag)
    except (TypeError, ValueError, KeyError):
        return
    ops.add_to_collection(ops.GraphKeys.SUMMARIES, op.outputs[0])


def match_filenames_once(pattern, name=None):
    """A local variable holding the files that match ``pattern`` (needs the local init op)."""
    with ops.name_scope(name, "matching_filenames", [pattern]) as scope:
        return variables.Variable(io_ops.matching_files(pattern), trainable=False,
                                  validate_shape=False, name=scope,
                                  collections=[ops.GraphKeys.LOCAL_VARIABLES])


def limit_epochs(tensor, num_epochs=None, name=None):
    """Returns ``tensor`` ``num_epochs`` times, then raises OutOfRangeError.

    The count lives in a local variable ``epochs``: run ``tf.local_variables_initializer()``.
    """
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    with ops.name_scope(name, "limit_epochs", [tensor]) as scope:
        zero64 = ops.convert_to_tensor(0, dtype=dtypes.int64)
        epochs = variables.Variable(zero64, name="epochs", trainable=False,
                                    collections=[ops.GraphKeys.LOCAL_VARIABLES])
        counter = data_flow_ops.count_up_to(epochs, num_epochs)
        with ops.control_dependencies([counter]):
            return array_ops.identity(tensor, name=scope)


def input_producer(input_tensor, element_shape=None, num_epochs=None, shuffle=True, seed=None,
                   capacity=32, shared_name=None, summary_name=None, name=None, cancel_op=None):
    """A FIFOQueue filled with the rows of ``input_tensor`` (shuffled per epoch) by a runner."""
    with ops.name_scope(name, "input_producer", [input_tensor]):
        input_tensor = ops.convert_to_tensor(input_tensor, name="input_tensor")
        element_shape = input_tensor.get_shape()[1:].merge_with(
            unknown_shape() if element_shape is None else as_shape(element_shape))
        if not element_shape.is_fully_defined():
            raise ValueError("Either `input_tensor` must have a fully defined shape or "
                             "`element_shape` must be specified")
        if shuffle:
            input_tensor = random_ops.random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        q = data_flow_ops.FIFOQueue(capacity=capacity, dtypes=[input_tensor.dtype.base_dtype],
                                    shapes=[element_shape], shared_name=shared_name, name=name)
        enq = q.enqueue_many([input_tensor])
        queue_runner.add_queue_runner(queue_runner.QueueRunner(q, [enq], cancel_op=cancel_op))
        if summary_name is not None:
            _scalar_summary(summary_name, cast(q.size(), dtypes.float32) * (1.0 / capacity))
        return q


def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None, capacity=32,
                          shared_name=None, name=None, cancel_op=None):
    """A queue of the strings (usually file names) of ``string_tensor``, for a reader."""
    not_null_err = "string_input_producer requires a non-null input tensor"
    if isinstance(string_tensor, (list, tuple, str, bytes)) and not string_tensor or (
            isinstance(string_tensor, np.ndarray) and not string_tensor.size):
        raise ValueError(not_null_err)
    with ops.name_scope(name, "input_producer", [string_tensor]) as scope:
        string_tensor = ops.convert_to_tensor(string_tensor, dtype=dtypes.string)
        check = Assert(greater(array_ops.size(string_tensor), 0), [not_null_err])
        with ops.control_dependencies([check]):
            string_tensor = array_ops.identity(string_tensor)
        return input_producer(string_tensor, element_shape=[], num_epochs=num_epochs,
                              shuffle=shuffle, seed=seed, capacity=capacity,
                              shared_name=shared_name, name=scope,
                              summary_name=f"fraction_of_{capacity}_full", cancel_op=cancel_op)


def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None):
    """A queue of the integers 0 .. limit-1."""
    with ops.name_scope(name, "input_producer", [limit]) as scope:
        range_tensor = _range(limit)
        return input_producer(range_tensor, [], num_epochs, shuffle, seed, capacity,
                              shared_name, f"fraction_of_{capacity}_full", scope)


def slice_input_producer(tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None):
    """One slice (along the first dimension) of every tensor in ``tensor_list`` at a time."""
    with ops.name_scope(name, "input_producer", list(tensor_list)):
        tensor_list = [t if isinstance(t, IndexedSlices) else ops.convert_to_tensor(t)
                       for t in tensor_list]
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        range_size = array_ops.shape(tensor_list[0])[0]
        queue = range_input_producer(range_size, num_epochs=num_epochs, shuffle=shuffle,
                                     seed=seed, capacity=capacity, shared_name=shared_name)
        index = queue.dequeue()
        return [gather(t, index) for t in tensor_list]


# ------------------------------------------------------------------------------------------
# batching
# ------------------------------------------------------------------------------------------


def _as_tensor_list(tensors):
    if isinstance(tensors, dict):
        # keys in the order of their str(), as TF (mixed key types sort too)
        return [tensors[k] for k in sorted(tensors, key=str)]
    # anything else is iterated, as TF: a lone Tensor raises (OperatorNotAllowedInGraphError)
    return list(tensors)


def _as_tensor_list_list(tensors_list):
    if not tensors_list:
        raise ValueError("Expected at least one set of tensors")
    if isinstance(tensors_list[0], dict):
        expected = set(tensors_list[0].keys())
        result = []
        for tensors in tensors_list:
            if set(tensors.keys()) != expected:
                raise ValueError("All dictionaries in tensors_list must have the same keys")
            result.append(_as_tensor_list(tensors))
        return result
    return [_as_tensor_list(t) for t in tensors_list]


def _as_original_type(original, dequeued):
    if isinstance(original, dict):
        if len(original) == 1:
            dequeued = [dequeued]
        return {k: dequeued[i] for i, k in enumerate(sorted(original, key=str))}
    return dequeued


def _sparse_rank(sp):
    n = sp.dense_shape.get_shape()
    return n[0].value if n.ndims == 1 else None


def _store_sparse(tensor_list, enqueue_many, keep_input, maps=None):
    """``tensor_list`` with each SparseTensor replaced by its handle in a SparseTensorsMap (TF's
    _store_sparse_tensors: handles given a trailing dimension of 1), and (map name, dtype,
    rank) of each position (None if dense). ``maps`` (the first list's, for the _join forms)
    makes the lists share their maps. A scalar ``keep_input`` stores an example only when kept
    (else handle -1); a vector one keeps the rows it marks."""
    from tideflow.ops import constant_op
    from tideflow.ops.sparse_rows_ops import sparse_retain

    out, infos = [], []
    graph = ops.get_default_graph()
    vector_keep = keep_input.get_shape().ndims == 1
    for i, t in enumerate(tensor_list):
        if not isinstance(t, SparseTensor):
            out.append(t)
            infos.append(None)
            continue
        shared = maps[i][0] if maps is not None and maps[i] is not None else \
            graph.unique_name("SparseTensorsMap")
        if vector_keep:
            t = sparse_retain(t, gather(keep_input, t.indices[:, 0]))
            handle = sparse_map_ops.add_many_sparse_to_tensors_map(t, shared_name=shared)
        elif enqueue_many:
            handle = smart_cond(
                keep_input,
                lambda t=t, s=shared: sparse_map_ops.add_many_sparse_to_tensors_map(
                    t, shared_name=s),
                lambda t=t: -1 * array_ops.ones(array_ops.shape(t)[0:1], dtypes.int64))
            handle.set_shape([None])
        else:
            handle = smart_cond(
                keep_input,
                lambda t=t, s=shared: sparse_map_ops.add_sparse_to_tensors_map(t, shared_name=s),
                lambda: constant_op.constant(-1, dtypes.int64))
        rank = _sparse_rank(t)
        if rank is not None and enqueue_many:
            rank -= 1
        out.append(handle)
        infos.append((shared, t.dtype.base_dtype, rank))
    out = [array_ops.expand_dims(s, [-1]) if info else s for s, info in zip(out, infos)]
    return out, infos


def _restore_sparse(dequeued, infos):
    """The dequeued batch with each batch of handles taken back as one SparseTensor; as TF,
    every output then waits (control_dependency identities) for all of them."""
    if not any(infos):
        return dequeued
    single = not isinstance(dequeued, (list, tuple))
    items = [dequeued] if single else list(dequeued)
    items = [sparse_map_ops.take_many(info[0], info[1], array_ops.squeeze(s, [1]),
                                      rank=info[2]) if info else s
             for s, info in zip(items, infos)]
    values = [x.values if isinstance(x, SparseTensor) else x for x in items]

    def gated(x):
        return control_flow_ops.with_dependencies(values, x)

    ensured = [SparseTensor(gated(x.indices), gated(x.values), gated(x.dense_shape))
               if isinstance(x, SparseTensor) else gated(x) for x in items]
    # (as TF, a single output comes back ungated; the identities are built all the same)
    return items[0] if single else ensured


def _validate(tensor_list, what="batch()"):
    out = [t if isinstance(t, SparseTensor) else ops.convert_to_tensor(t) for t in tensor_list]
    if not out:
        raise ValueError(f"Expected at least one tensor in {what}.")
    return out


def _dense_only(tensors):
    """The name_scope values: the dense tensors (and the SparseTensors' components)."""
    out = []
    for t in tensors:
        out.extend([t.indices, t.values, t.dense_shape] if isinstance(t, SparseTensor) else [t])
    return out


def _store_sparse_join(tensor_list_list, enqueue_many, keep_input):
    first, infos = _store_sparse(tensor_list_list[0], enqueue_many, keep_input)
    out = [first]
    for tl in tensor_list_list[1:]:
        # (as TF, a later list is cut to the first's length: its extra tensors are dropped)
        given, tl = list(tl), list(tl)[:len(infos)]
        if [isinstance(t, SparseTensor) for t in tl] != [i is not None for i in infos]:
            raise ValueError(f"Inconsistent SparseTensors list: {list(tensor_list_list[0])} vs. "
                             f"{given}")
        out.append(_store_sparse(tl, enqueue_many, keep_input, maps=infos)[0])
    return out, infos


def _validate_keep_input(keep_input, enqueue_many):
    """``keep_input`` as a tensor (for the plain batch functions the Const ``True`` TF builds
    in the batch's scope, which later graph-seeded ops' ids count), checked as TF."""
    keep = ops.convert_to_tensor(keep_input)
    rank = keep.get_shape().ndims
    if rank is None:
        raise ValueError("`keep_input` dimensions must be known at graph construction.")
    if not enqueue_many and rank == 1:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    if rank > 1:
        raise ValueError("`keep_input` must be 0 or 1 dimensions.")
    return keep


def _validate_join(tensor_list_list):
    out = [_validate(tl, "batch_join()") for tl in tensor_list_list]
    if not out:
        raise ValueError("Expected at least one input in batch_join().")
    return out


def _dtypes(tensor_list_list):
    types = [t.dtype.base_dtype for t in tensor_list_list[0]]
    for tl in tensor_list_list[1:]:
        other = [t.dtype.base_dtype for t in tl]
        if other != types:
            raise TypeError(
                "Expected types to be consistent: "
                f"{', '.join(x.name for x in types)} vs. {', '.join(x.name for x in other)}.")
    return types


def _merge_shapes(shape_list, enqueue_many):
    shape_list = [as_shape(s) for s in shape_list]
    if enqueue_many:
        shape_list = [s.with_rank_at_least(1)[1:] for s in shape_list]
    merged = shape_list[0]
    for s in shape_list[1:]:
        merged = merged.merge_with(s)
    return merged.as_list()


def _shapes(tensor_list_list, shapes, enqueue_many):
    if shapes is not None:
        return shapes
    n = len(tensor_list_list[0])
    for tl in tensor_list_list:
        if len(tl) != n:
            raise ValueError(f"Expected {n} tensors in batch_join, got {len(tl)}")
        for t in tl:
            if t.get_shape().ndims is None:
                raise ValueError(f"Cannot infer Tensor's rank: {t}")
    return [_merge_shapes([tl[i].get_shape() for tl in tensor_list_list], enqueue_many)
            for i in range(n)]


def _which_queue(dynamic_pad):
    return data_flow_ops.PaddingFIFOQueue if dynamic_pad else data_flow_ops.FIFOQueue


def _select_which_to_enqueue(tensor_list, keep_input):
    """The rows a vector ``keep_input`` marks (TF partitions each tensor in two by it)."""
    select = cast(keep_input, dtypes.int32)
    return [dynamic_partition(t, select, num_partitions=2)[1] for t in tensor_list]


def _enqueue_fn(queue, tensor_list, enqueue_many, keep_input):
    fn = queue.enqueue_many if enqueue_many else queue.enqueue
    if keep_input.get_shape().ndims == 1:
        return fn(_select_which_to_enqueue(tensor_list, keep_input))
    return smart_cond(keep_input, lambda: fn(tensor_list), control_flow_ops.no_op)


def _enqueue(queue, tensor_list, threads, enqueue_many, keep_input):
    enqueue = _enqueue_fn(queue, tensor_list, enqueue_many, keep_input)
    queue_runner.add_queue_runner(queue_runner.QueueRunner(queue, [enqueue] * threads))


def _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input):
    queue_runner.add_queue_runner(queue_runner.QueueRunner(
        queue, [_enqueue_fn(queue, tl, enqueue_many, keep_input) for tl in tensor_list_list]))


def _dequeue(queue, batch_size, allow_smaller_final_batch, name):
    if allow_smaller_final_batch:
        return queue.dequeue_up_to(batch_size, name=name)
    return queue.dequeue_many(batch_size, name=name)


def _fraction_full(queue, capacity):
    _scalar_summary(f"fraction_of_{capacity}_full",
                    cast(queue.size(), dtypes.float32) * (1.0 / capacity))


def _fraction_over(queue, capacity, min_after_dequeue):
    full = cast(maximum(0, queue.size() - min_after_dequeue), dtypes.float32) * (
        1.0 / (capacity - min_after_dequeue))
    _scalar_summary(
        f"fraction_over_{min_after_dequeue}_of_{capacity - min_after_dequeue}_full", full)


def _batch_impl(kind, tensors, join, batch_size, keep_input, capacity, enqueue_many, shapes,
                dynamic_pad, allow_smaller_final_batch, shared_name, name, num_threads=1,
                min_after_dequeue=None, seed=None):
    """The four batch functions and their ``maybe_`` forms, building TF's ops in TF's order
    (``kind`` the scope name; ``min_after_dequeue`` given for the shuffling ones)."""
    if join:
        lists = _as_tensor_list_list(tensors)
        original = tensors[0]
    else:
        lists = [_as_tensor_list(tensors)]
        original = tensors
    scope_values = _dense_only([t for tl in lists for t in tl])
    if isinstance(keep_input, ops.Tensor):
        scope_values.append(keep_input)
    shuffle = min_after_dequeue is not None
    with ops.name_scope(name, kind, scope_values) as scope:
        if shuffle and not join:
            _check_shuffle_capacity(capacity, min_after_dequeue)
        lists = _validate_join(lists) if join else [_validate(lists[0])]
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        lists, sparse = _store_sparse_join(lists, enqueue_many, keep_input)
        types = _dtypes(lists)
        shapes = _shapes(lists, shapes, enqueue_many)
        if shuffle:
            queue = data_flow_ops.RandomShuffleQueue(
                capacity=capacity, min_after_dequeue=min_after_dequeue, seed=seed, dtypes=types,
                shapes=shapes, shared_name=shared_name)
        else:
            queue = _which_queue(dynamic_pad)(capacity=capacity, dtypes=types, shapes=shapes,
                                              shared_name=shared_name)
        if join:
            _enqueue_join(queue, lists, enqueue_many, keep_input)
        else:
            _enqueue(queue, lists[0], num_threads, enqueue_many, keep_input)
        if shuffle:
            _fraction_over(queue, capacity, min_after_dequeue)
        else:
            _fraction_full(queue, capacity)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, scope)
        return _as_original_type(original, _restore_sparse(dequeued, sparse))


def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None,
          dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches ``tensors`` (a list or dict) through a FIFO queue filled by ``num_threads``.

    With ``dynamic_pad`` the queue pads variable dimensions to the batch's largest; with
    ``allow_smaller_final_batch`` the last batch may be short once the input runs out.
    """
    return _batch_impl("batch", tensors, False, batch_size, True, capacity, enqueue_many,
                       shapes, dynamic_pad, allow_smaller_final_batch, shared_name, name,
                       num_threads=num_threads)


def batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False, shapes=None,
               dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches several lists (or dicts) of tensors, one enqueue thread each, into one queue."""
    return _batch_impl("batch_join", tensors_list, True, batch_size, True, capacity,
                       enqueue_many, shapes, dynamic_pad, allow_smaller_final_batch,
                       shared_name, name)


def _check_shuffle_capacity(capacity, min_after_dequeue):
    if capacity <= min_after_dequeue:
        raise ValueError(
            f"capacity {capacity} must be bigger than min_after_dequeue {min_after_dequeue}.")


def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None,
                  enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                  shared_name=None, name=None):
    """Batches ``tensors`` in random order through a RandomShuffleQueue."""
    return _batch_impl("shuffle_batch", tensors, False, batch_size, True, capacity,
                       enqueue_many, shapes, False, allow_smaller_final_batch, shared_name,
                       name, num_threads=num_threads, min_after_dequeue=min_after_dequeue,
                       seed=seed)


def shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, seed=None,
                       enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                       shared_name=None, name=None):
    """Shuffles and batches several lists of tensors, one enqueue thread each."""
    return _batch_impl("shuffle_batch_join", tensors_list, True, batch_size, True, capacity,
                       enqueue_many, shapes, False, allow_smaller_final_batch, shared_name,
                       name, min_after_dequeue=min_after_dequeue, seed=seed)


def maybe_batch(tensors, keep_input, batch_size, num_threads=1, capacity=32, enqueue_many=False,
                shapes=None, dynamic_pad=False, allow_smaller_final_batch=False,
                shared_name=None, name=None):
    """``batch`` that enqueues only the examples where ``keep_input`` is true (a scalar bool;
    with ``enqueue_many`` a scalar or one bool per row)."""
    return _batch_impl("batch", tensors, False, batch_size, keep_input, capacity, enqueue_many,
                       shapes, dynamic_pad, allow_smaller_final_batch, shared_name, name,
                       num_threads=num_threads)


def maybe_batch_join(tensors_list, keep_input, batch_size, capacity=32, enqueue_many=False,
                     shapes=None, dynamic_pad=False, allow_smaller_final_batch=False,
                     shared_name=None, name=None):
    """``batch_join`` keeping only the examples where ``keep_input`` is true."""
    return _batch_impl("batch_join", tensors_list, True, batch_size, keep_input, capacity,
                       enqueue_many, shapes, dynamic_pad, allow_smaller_final_batch,
                       shared_name, name)


def maybe_shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input,
                        num_threads=1, seed=None, enqueue_many=False, shapes=None,
                        allow_smaller_final_batch=False, shared_name=None, name=None):
    """``shuffle_batch`` keeping only the examples where ``keep_input`` is true."""
    return _batch_impl("shuffle_batch", tensors, False, batch_size, keep_input, capacity,
                       enqueue_many, shapes, False, allow_smaller_final_batch, shared_name,
                       name, num_threads=num_threads, min_after_dequeue=min_after_dequeue,
                       seed=seed)


def maybe_shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, keep_input,
                             seed=None, enqueue_many=False, shapes=None,
                             allow_smaller_final_batch=False, shared_name=None, name=None):
    """``shuffle_batch_join`` keeping only the examples where ``keep_input`` is true."""
    return _batch_impl("shuffle_batch_join", tensors_list, True, batch_size, keep_input,
                       capacity, enqueue_many, shapes, False, allow_smaller_final_batch,
                       shared_name, name, min_after_dequeue=min_after_dequeue, seed=seed)
