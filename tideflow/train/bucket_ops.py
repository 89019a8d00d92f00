"""``tf.contrib.training.bucket`` and ``bucket_by_sequence_length``: queue-based bucketing of
examples (TF 1.x input pipelines before ``tf.data``). Each example goes to the queue of its
bucket; a thread per bucket moves full batches (``dequeue_many``, or ``dequeue_up_to`` with
``allow_smaller_final_batch``) to a top queue, from which each step takes one batch of a
single bucket together with that bucket's index. When the input runs out the bucket queues
are closed, their last partial batches flushed (with ``allow_smaller_final_batch``), and then
the top queue is closed, so the consumer gets OutOfRangeError after the last batch."""

import itertools

import numpy as np

from tideflow.framework import dtypes, errors, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import (
    cast_ops,
    constant_op,
    control_flow_ops,
    data_flow_ops,
    gather_ops,
    math_ops,
    reduction_ops,
)
from tideflow.ops.cond import cond
from tideflow.ops.layers_base import smart_cond
from tideflow.train import input as _input
from tideflow.train import queue_runner


def _name_part(name):
    return name.rstrip("/").replace("/", "_")


def bucket(tensors, which_bucket, batch_size, num_buckets, num_threads=1, capacity=32,
           bucket_capacities=None, shapes=None, dynamic_pad=False,
           allow_smaller_final_batch=False, keep_input=True, shared_name=None, name=None):
    """Batches ``tensors`` (a list or dict of one example's tensors) per bucket
    ``which_bucket`` (an int32 scalar in [0, num_buckets)); returns ``(bucket, outputs)``,
    an int32 scalar and the batched outputs (in the structure of ``tensors``) of that bucket.
    ``batch_size`` may be a list, one size per bucket."""
    per_bucket = isinstance(batch_size, (list, tuple))
    if per_bucket:
        if len(batch_size) != num_buckets:
            raise ValueError("If batch_size is a list it must have num_buckets elements")
        batch_size = list(batch_size)
    else:
        batch_size = [batch_size] * num_buckets
    if bucket_capacities is None:
        bucket_capacities = [capacity] * num_buckets
    if len(bucket_capacities) != num_buckets:
        raise ValueError(f"The list bucket_capacities ({bucket_capacities}) must have exactly "
                         f"num_buckets ({num_buckets}) elements.")
    tensor_list = _input._as_tensor_list(tensors)
    with ops.name_scope(name, "bucket", _input._dense_only(tensor_list)) as scope:
        tensor_list = [t if isinstance(t, _input.SparseTensor) else ops.convert_to_tensor(t)
                       for t in tensor_list]
        if not tensor_list:
            raise ValueError("Expected at least one tensor in bucket().")
        keep = _input._validate_keep_input(keep_input, enqueue_many=False)  # a tensor, as TF
        tensor_list, sparse_info = _input._store_sparse(tensor_list, False, keep_input=keep)
        static_batch_size = None
        for i, size in enumerate(batch_size):
            size = ops.convert_to_tensor(size, dtype=dtypes.int32, name="batch_size")
            static = ops.constant_value(size)
            static_batch_size = None if static is None else int(static)
            batch_size[i] = static_batch_size if static_batch_size is not None else size
        types = _input._dtypes([tensor_list])
        shapes = _input._shapes([tensor_list], shapes, False)
        which_bucket = ops.convert_to_tensor(which_bucket, dtype=dtypes.int32,
                                             name="which_bucket")
        make_queue = _input._which_queue(dynamic_pad)
        bucket_queues = []
        for i in range(num_buckets):
            shared_i = f"{shared_name}_{i}" if shared_name is not None else None
            bucket_queues.append(make_queue(capacity=bucket_capacities[i], dtypes=types,
                                            shapes=shapes, shared_name=shared_i,
                                            name=f"bucket_queue_{i}"))
        static_rows = None if (allow_smaller_final_batch or per_bucket) else static_batch_size
        bucket_shapes = [TensorShape([static_rows]).concatenate(TensorShape(s))
                         for s in shapes]
        # a padding queue even without dynamic_pad: with allow_smaller_final_batch the batch
        # dimension is unknown, which a plain FIFOQueue cannot hold
        top_queue = data_flow_ops.PaddingFIFOQueue(
            capacity=capacity, dtypes=[dtypes.int32] + types,
            shapes=[TensorShape([])] + bucket_shapes, shared_name=shared_name,
            name="top_queue")

        def enqueue_which():
            enqueues = [cond(math_ops.equal(which_bucket, i),
                             lambda i=i: bucket_queues[i].enqueue(tensor_list),
                             control_flow_ops.no_op)
                        for i in range(num_buckets)]
            return control_flow_ops.group(*enqueues, name="group_enqueues")

        maybe_enqueue = smart_cond(keep, enqueue_which, control_flow_ops.no_op)

        def read(q, size, i):
            fn = q.dequeue_up_to if allow_smaller_final_batch else q.dequeue_many
            out = fn(size, name=f"read_bucket_{i}")
            return list(out) if isinstance(out, (list, tuple)) else [out]

        enqueues_to_top = [
            top_queue.enqueue([constant_op.constant(i)] + read(q, size, i),
                              name=f"enqueue_from_bucket_{i}")
            for i, (q, size) in enumerate(zip(bucket_queues, batch_size))]
        closed = (errors.OutOfRangeError, errors.CancelledError)
        # bucket queues -> top queue; the top queue is closed when every bucket is drained
        queue_runner.add_queue_runner(queue_runner.QueueRunner(
            bucket_queues[0], enqueues_to_top, close_op=top_queue.close(),
            cancel_op=top_queue.close(cancel_pending_enqueues=True),
            queue_closed_exception_types=closed))
        # input -> bucket queues; they are closed when the input runs out
        queue_runner.add_queue_runner(queue_runner.QueueRunner(
            top_queue, [maybe_enqueue] * num_threads,
            close_op=control_flow_ops.group(*[q.close() for q in bucket_queues]),
            cancel_op=control_flow_ops.group(
                *[q.close(cancel_pending_enqueues=True) for q in bucket_queues]),
            queue_closed_exception_types=closed))
        for q in bucket_queues:
            _input._scalar_summary(f"bucket/{_name_part(q.name)}/size",
                                   cast_ops.cast(top_queue.size(), dtypes.float32))
        _input._scalar_summary(
            f"bucket/{_name_part(top_queue.name)}/fraction_of_{capacity}_full",
            cast_ops.cast(top_queue.size(), dtypes.float32) * (1.0 / capacity))
        dequeued = top_queue.dequeue(name="dequeue_top")
        which_dequeued, dequeued = dequeued[0], list(dequeued[1:])
        if len(dequeued) == 1:
            dequeued = dequeued[0]
        dequeued = _input._restore_sparse(dequeued, sparse_info)
        del scope
        return which_dequeued, _input._as_original_type(tensors, dequeued)


def bucket_by_sequence_length(input_length, tensors, batch_size, bucket_boundaries,
                              num_threads=1, capacity=32, bucket_capacities=None, shapes=None,
                              dynamic_pad=False, allow_smaller_final_batch=False,
                              keep_input=True, shared_name=None, name=None):
    """``bucket`` by ``input_length`` (an int32 scalar): bucket ``i`` holds the lengths in
    ``[bucket_boundaries[i-1], bucket_boundaries[i])`` (open-ended at both ends); returns
    ``(lengths, outputs)``, the batch's input lengths and its batched ``tensors``."""
    tensor_list = _input._as_tensor_list(tensors)
    if not isinstance(bucket_boundaries, (list, tuple)):
        raise TypeError(
            f"bucket_boundaries must be a list or tuple, but received: {bucket_boundaries}")
    if not bucket_boundaries:
        raise ValueError("bucket_boundaries must not be empty")
    for s, e in itertools.pairwise(bucket_boundaries):
        if not isinstance(s, int) or not isinstance(e, int):
            raise TypeError(f"bucket boundaries must be integers, but saw: {s} and {e}")
        if s >= e:
            raise ValueError(f"Buckets must contain sequential increasing lengths, but saw: "
                             f"{s} before {e}")
    with ops.name_scope(name, "bucket_by_sequence_length",
                        [input_length] + _input._dense_only(tensor_list)):
        input_length = ops.convert_to_tensor(input_length, dtype=dtypes.int32,
                                             name="input_length")
        lo = [np.iinfo(np.int32).min] + list(bucket_boundaries)
        hi = list(bucket_boundaries) + [np.iinfo(np.int32).max]
        inside = math_ops.logical_and(math_ops.less_equal(lo, input_length),
                                      math_ops.less(input_length, hi))
        which = reduction_ops.reduce_min(gather_ops.where(inside))
        which = cast_ops.cast(which, dtypes.int32)
        if shapes is not None:
            shapes = [TensorShape([])] + list(shapes)
        _, dequeued = bucket(
            tensors=[input_length] + tensor_list, which_bucket=which, batch_size=batch_size,
            num_buckets=len(bucket_boundaries) + 1, num_threads=num_threads,
            capacity=capacity, bucket_capacities=bucket_capacities, shapes=shapes,
            dynamic_pad=dynamic_pad, allow_smaller_final_batch=allow_smaller_final_batch,
            keep_input=keep_input, shared_name=shared_name)
        return dequeued[0], _input._as_original_type(tensors, dequeued[1:])


__all__ = ["bucket", "bucket_by_sequence_length"]
