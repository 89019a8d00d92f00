"""``tf.contrib.layers.recompute_grad``: the contrib spelling of ``tf.recompute_grad``."""

import functools

from tideflow.ops import tf1_misc_ops


def recompute_grad(fn, use_data_dep=None, tupleize_grads=False):
    """``fn`` whose activations are recomputed in the backward pass instead of kept: values
    and gradients (inputs and the variables ``fn`` makes or reuses) are those of ``fn``.

    ``use_data_dep`` and ``tupleize_grads`` choose how TF orders the recomputation after the
    forward pass; tideflow's recomputation always waits on the incoming gradients (a data
    dependency), so both are accepted and have no further effect."""
    del use_data_dep, tupleize_grads
    wrapped = tf1_misc_ops.recompute_grad(fn)
    return functools.wraps(fn)(lambda *args: wrapped(*args))


__all__ = ["recompute_grad"]
