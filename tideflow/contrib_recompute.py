"""``tf.contrib.layers.recompute_grad``: the contrib spelling of ``tf.recompute_grad``."""

import functools

from tideflow.ops import tf1_misc_ops


def _with_or_without_args(dec):
    """``@dec`` or ``@dec(**options)``, as TF 1.15's contrib decorators: any other call, such
    as ``dec(fn, use_data_dep=True)``, hands ``fn`` twice to ``dec`` and fails there."""

    @functools.wraps(dec)
    def new_dec(*args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]):
            return dec(args[0])
        return lambda fn: dec(fn, *args, **kwargs)

    return new_dec


@_with_or_without_args
def recompute_grad(fn, use_data_dep=None, tupleize_grads=False):
    """``fn`` whose activations are recomputed in the backward pass instead of kept: values
    and gradients (inputs and the variables ``fn`` makes or reuses) are those of ``fn``.

    ``use_data_dep`` and ``tupleize_grads`` choose how TF orders the recomputation after the
    forward pass; tideflow's recomputation always waits on the incoming gradients (a data
    dependency), so both are accepted and have no further effect. ``fn`` must not close over
    tensors or variables (TF 1.15's ValueError): their gradients would not flow through it."""
    del use_data_dep, tupleize_grads
    from tideflow.framework import ops
    from tideflow.ops import variables

    for var_name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        value = cell.cell_contents
        if isinstance(value, (ops.Tensor, variables.Variable)):
            raise ValueError(  # noqa: TRY004 - TF 1.15's class and words
                f"fn decorated with @recompute_grad closes over Tensor {value.name} (local "
                f"variable name: {var_name}). The decorated fn must not close over Tensors or "
                "Variables because gradients will NOT be computed for them through fn. To "
                "ensure correct gradients, make the Tensor an input to fn.")
    wrapped = tf1_misc_ops.recompute_grad(fn)
    return functools.wraps(fn)(lambda *args: wrapped(*args))


__all__ = ["recompute_grad"]
