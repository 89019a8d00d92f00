"""More of ``tf.train``: ``noisy_linear_cosine_decay`` and ``checkpoints_iterator`` (and
``wait_for_new_checkpoint``)."""

import math
import time

from tideflow import logging as tf_logging
from tideflow.framework import ops
from tideflow.ops import (
    cast_ops,
    constant_op,
    math_ops,
    random_ops,
    unary_ops,
)
from tideflow.train.checkpoint_management import latest_checkpoint

# ------------------------------------------------------------------------------------------
# learning rate
# ------------------------------------------------------------------------------------------


def noisy_linear_cosine_decay(learning_rate, global_step, decay_steps, initial_variance=1.0,
                              variance_decay=0.55, num_periods=0.5, alpha=0.0, beta=0.001,
                              name=None):
    """``linear_cosine_decay`` with Gaussian noise on the linear part: the noise's variance is
    ``initial_variance / (1 + step) ** variance_decay``; each evaluation draws new noise."""
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


__all__ = ["checkpoints_iterator", "noisy_linear_cosine_decay", "wait_for_new_checkpoint"]
