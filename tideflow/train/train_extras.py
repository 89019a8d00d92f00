"""More of ``tf.train``: ``noisy_linear_cosine_decay``, ``checkpoints_iterator`` (and
``wait_for_new_checkpoint``) and the conditional batching functions ``maybe_batch``,
``maybe_batch_join``, ``maybe_shuffle_batch`` and ``maybe_shuffle_batch_join``."""

import math
import time

from tideflow import logging as tf_logging
from tideflow.framework import dtypes, ops
from tideflow.ops import (
    array_ops,
    cast_ops,
    constant_op,
    data_flow_ops,
    fill_ops,
    math_ops,
    random_ops,
    unary_ops,
)
from tideflow.ops.slicing_ops import boolean_mask
from tideflow.train import input as input_lib
from tideflow.train.checkpoint_management import latest_checkpoint
from tideflow.train.learning_rate_decay import _require_step

# ------------------------------------------------------------------------------------------
# learning rate
# ------------------------------------------------------------------------------------------


def noisy_linear_cosine_decay(learning_rate, global_step, decay_steps, initial_variance=1.0,
                              variance_decay=0.55, num_periods=0.5, alpha=0.0, beta=0.001,
                              name=None):
    """``linear_cosine_decay`` with Gaussian noise on the linear part: the noise's variance is
    ``initial_variance / (1 + step) ** variance_decay``; each evaluation draws new noise."""
    _require_step(global_step, "noisy_linear_cosine_decay")
    with ops.name_scope(name, "NoisyLinearCosineDecay", [learning_rate, global_step]) as scope:
        # TF 1.15's ops in its order (its NoisyLinearCosineDecay schedule)
        lr = ops.convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        steps = cast_ops.cast(decay_steps, dtype)
        initial_variance = cast_ops.cast(initial_variance, dtype)
        variance_decay = cast_ops.cast(variance_decay, dtype)
        num_periods = cast_ops.cast(num_periods, dtype)
        alpha = cast_ops.cast(alpha, dtype)
        beta = cast_ops.cast(beta, dtype)
        step = math_ops.minimum(cast_ops.cast(global_step, dtype), steps)
        linear = (steps - step) / steps
        variance = initial_variance / math_ops.pow(1.0 + step, variance_decay)
        std = unary_ops.sqrt(variance)
        noisy = linear + random_ops.random_normal(linear.get_shape(), stddev=std, dtype=dtype)
        completed = step / steps
        fraction = 2.0 * num_periods * completed
        cosine = 0.5 * (1.0 + math_ops.cos(constant_op.constant(math.pi) * fraction))
        decayed = (alpha + noisy) * cosine + beta
        return math_ops.multiply(lr, decayed, name=scope)


# ------------------------------------------------------------------------------------------
# checkpoints_iterator
# ------------------------------------------------------------------------------------------


def wait_for_new_checkpoint(checkpoint_dir, last_checkpoint=None, seconds_to_sleep=1,
                            timeout=None):
    """Polls ``checkpoint_dir`` until its latest checkpoint differs from ``last_checkpoint``;
    returns that path, or None after ``timeout`` seconds."""
    deadline = None if timeout is None else time.time() + timeout
    tf_logging.info(f"Waiting for new checkpoint at {checkpoint_dir}")
    while True:
        path = latest_checkpoint(checkpoint_dir)
        if path is not None and path != last_checkpoint:
            tf_logging.info(f"Found new checkpoint at {path}")
            return path
        if deadline is not None and time.time() + seconds_to_sleep > deadline:
            return None
        time.sleep(seconds_to_sleep)


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yields each new checkpoint of ``checkpoint_dir`` as it appears, at most one per
    ``min_interval_secs``. After ``timeout`` seconds without a new one it stops, unless
    ``timeout_fn`` is given and returns False (then it keeps waiting)."""
    path = None
    while True:
        new = wait_for_new_checkpoint(checkpoint_dir, path, timeout=timeout)
        if new is None:
            if timeout_fn is None:
                tf_logging.info("Timed-out waiting for a checkpoint.")
                return
            if timeout_fn():
                return
            continue
        started = time.time()
        path = new
        yield path
        rest = started + min_interval_secs - time.time()
        if rest > 0:
            time.sleep(rest)


# ------------------------------------------------------------------------------------------
# maybe_batch
# ------------------------------------------------------------------------------------------


def _kept(tensor_list, keep_input, enqueue_many):
    """The rows of ``tensor_list`` to enqueue (as an enqueue_many list): a scalar
    ``keep_input`` keeps or drops the whole example; with ``enqueue_many`` a vector keeps
    each row."""
    keep = ops.convert_to_tensor(keep_input, dtype=dtypes.bool, name="keep_input")
    rank = keep.get_shape().ndims
    # TF's messages (_validate_keep_input)
    if rank is None:
        raise ValueError("`keep_input` dimensions must be known at graph construction.")
    if not enqueue_many and rank == 1:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    if rank > 1:
        raise ValueError(f"`keep_input` must be 0 or 1 dimensions (got shape {keep.get_shape()}).")
    if enqueue_many:
        if rank == 0:
            rows = array_ops.shape(tensor_list[0])[0]
            keep = fill_ops.fill(array_ops.reshape(rows, [1]), keep)
        return [boolean_mask(t, keep) for t in tensor_list]
    keep = array_ops.reshape(keep, [1])
    return [boolean_mask(array_ops.expand_dims(t, 0), keep) for t in tensor_list]


def _maybe(kind, tensors_or_list, keep_input, batch_size, capacity, enqueue_many, shapes,
           dynamic_pad, allow_smaller_final_batch, shared_name, name, num_threads=1,
           min_after_dequeue=None, seed=None):
    join = kind.endswith("_join")
    if join:
        lists = input_lib._as_tensor_list_list(tensors_or_list)
        original = tensors_or_list[0]
    else:
        lists = [input_lib._as_tensor_list(tensors_or_list)]
        original = tensors_or_list
    flat = [t for tl in lists for t in tl]
    with ops.name_scope(name, kind, input_lib._dense_only(flat) + [keep_input]) as scope:
        shuffle = min_after_dequeue is not None
        if shuffle:
            input_lib._check_shuffle_capacity(capacity, min_after_dequeue)
        keeps = keep_input if join and isinstance(keep_input, (list, tuple)) else \
            [keep_input] * len(lists)
        scalar_keeps = [k if ops.convert_to_tensor(k).get_shape().ndims == 0 else None
                        for k in keeps]
        lists, sparse = input_lib._store_sparse_join(lists, enqueue_many, scalar_keeps)
        lists = [input_lib._validate(tl, f"{kind}()") for tl in lists]
        types = input_lib._dtypes(lists)
        shapes = input_lib._shapes(lists, shapes, enqueue_many)
        if shuffle:
            queue = data_flow_ops.RandomShuffleQueue(
                capacity=capacity, min_after_dequeue=min_after_dequeue, seed=seed,
                dtypes=types, shapes=shapes, shared_name=shared_name)
        else:
            queue = input_lib._which_queue(dynamic_pad)(capacity=capacity, dtypes=types,
                                                        shapes=shapes, shared_name=shared_name)
        filtered = [_kept(tl, k, enqueue_many) for tl, k in zip(lists, keeps)]
        if join:
            input_lib._enqueue_join(queue, filtered, True)
        else:
            input_lib._enqueue(queue, filtered[0], num_threads, True)
        if shuffle:
            input_lib._fraction_over(queue, capacity, min_after_dequeue)
        else:
            input_lib._fraction_full(queue, capacity)
        dequeued = input_lib._dequeue(queue, batch_size, allow_smaller_final_batch, scope)
        return input_lib._as_original_type(original,
                                           input_lib._restore_sparse(dequeued, sparse))


def maybe_batch(tensors, keep_input, batch_size, num_threads=1, capacity=32, enqueue_many=False,
                shapes=None, dynamic_pad=False, allow_smaller_final_batch=False,
                shared_name=None, name=None):
    """``batch`` that enqueues only the examples where ``keep_input`` is true (a scalar bool;
    with ``enqueue_many`` a scalar or one bool per row)."""
    return _maybe("maybe_batch", tensors, keep_input, batch_size, capacity, enqueue_many,
                  shapes, dynamic_pad, allow_smaller_final_batch, shared_name, name,
                  num_threads=num_threads)


def maybe_batch_join(tensors_list, keep_input, batch_size, capacity=32, enqueue_many=False,
                     shapes=None, dynamic_pad=False, allow_smaller_final_batch=False,
                     shared_name=None, name=None):
    """``batch_join`` keeping only the examples where ``keep_input`` is true."""
    return _maybe("maybe_batch_join", tensors_list, keep_input, batch_size, capacity,
                  enqueue_many, shapes, dynamic_pad, allow_smaller_final_batch, shared_name,
                  name)


def maybe_shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input,
                        num_threads=1, seed=None, enqueue_many=False, shapes=None,
                        allow_smaller_final_batch=False, shared_name=None, name=None):
    """``shuffle_batch`` keeping only the examples where ``keep_input`` is true."""
    return _maybe("maybe_shuffle_batch", tensors, keep_input, batch_size, capacity,
                  enqueue_many, shapes, False, allow_smaller_final_batch, shared_name, name,
                  num_threads=num_threads, min_after_dequeue=min_after_dequeue, seed=seed)


def maybe_shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, keep_input,
                             seed=None, enqueue_many=False, shapes=None,
                             allow_smaller_final_batch=False, shared_name=None, name=None):
    """``shuffle_batch_join`` keeping only the examples where ``keep_input`` is true."""
    return _maybe("maybe_shuffle_batch_join", tensors_list, keep_input, batch_size, capacity,
                  enqueue_many, shapes, False, allow_smaller_final_batch, shared_name, name,
                  min_after_dequeue=min_after_dequeue, seed=seed)


__all__ = ["checkpoints_iterator", "maybe_batch", "maybe_batch_join", "maybe_shuffle_batch",
           "maybe_shuffle_batch_join", "noisy_linear_cosine_decay", "wait_for_new_checkpoint"]
