"""``tf.train.experimental``: loss scaling for mixed precision (``FixedLossScale``,
``DynamicLossScale``, ``MixedPrecisionLossScaleOptimizer``), the mixed-precision graph rewrite
switches, ``PythonState`` and the checkpoint sharding policies.

``enable_mixed_precision_graph_rewrite`` wraps the optimizer for loss scaling; the float16
rewrite itself is TF's GPU-only graph optimization, which tideflow does not perform (TF does
not perform it on CPUs either), so the graph keeps its dtypes.
"""

import abc

import numpy as np

from tideflow import logging as tf_logging
from tideflow.framework import dtypes, ops
from tideflow.train.optimizer import Optimizer


class LossScale(abc.ABC):
    """A loss scale: ``loss_scale()`` is the current factor; ``update(grads)`` returns
    ``(update_op, should_apply_gradients)``."""

    def __call__(self):
        return self._current()

    @abc.abstractmethod
    def _current(self):
        """The scale, a float32 scalar tensor."""

    @abc.abstractmethod
    def update(self, grads):
        """``(update_op, should_apply_gradients)`` for these (unscaled) gradients."""

    @abc.abstractmethod
    def get_config(self):
        """The constructor arguments."""

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class FixedLossScale(LossScale):
    """A constant loss scale (at least 1); gradients are always applied."""

    def __init__(self, loss_scale_value):
        if isinstance(loss_scale_value, bool) or not isinstance(loss_scale_value, (int, float)):
            raise ValueError("loss_scale_value must be a Python int or float.")  # noqa: TRY004
        if loss_scale_value < 1:
            raise ValueError("loss_scale_value must be at least 1.")
        self._value = float(loss_scale_value)

    def _current(self):
        return ops.convert_to_tensor(self._value)

    def update(self, grads):
        from tideflow.ops import control_flow_ops

        del grads
        return control_flow_ops.no_op(), True

    def get_config(self):
        return {"loss_scale_value": self._value}

    def __repr__(self):
        return f"FixedLossScale({self._value})"


def _all_finite(grads):
    from tideflow.ops import math_ops, reduction_ops

    checks = []
    for g in grads:
        if g is None:
            continue
        values = g.values if hasattr(g, "values") and not isinstance(g, ops.Tensor) else g
        checks.append(reduction_ops.reduce_all(math_ops.is_finite(values)))
    return reduction_ops.reduce_all(checks)


class DynamicLossScale(LossScale):
    """A loss scale that grows by ``multiplier`` after ``increment_period`` steps in a row with
    finite gradients (unless it would overflow) and shrinks by it (down to 1) at a step with a
    non-finite gradient, which is then skipped. Its state is two resource variables,
    ``current_loss_scale`` and ``good_steps``, updated under conds as TF 1.15's."""

    def __init__(self, initial_loss_scale=2 ** 15, increment_period=2000, multiplier=2.0):
        from tideflow.ops import variables

        self._initial = float(initial_loss_scale)
        self._period = int(increment_period)
        self._multiplier = float(multiplier)
        with ops.init_scope():
            self._scale = variables.Variable(self._initial, name="current_loss_scale",
                                             trainable=False, dtype=dtypes.float32,
                                             use_resource=True)
            self._good = variables.Variable(0, name="good_steps", trainable=False,
                                            dtype=dtypes.int64, use_resource=True)

    @property
    def initial_loss_scale(self):
        return self._initial

    @property
    def increment_period(self):
        return self._period

    @property
    def multiplier(self):
        return self._multiplier

    def _current(self):
        return ops.convert_to_tensor(self._scale)

    def update(self, grads):
        from tideflow.framework import nest
        from tideflow.ops import control_flow_ops, math_ops
        from tideflow.ops.cond import cond

        is_finite = _all_finite(nest.flatten(grads))
        scale, good = self._scale, self._good

        def grow():
            new_scale = scale * self._multiplier
            return control_flow_ops.group(
                cond(math_ops.is_finite(new_scale), lambda: scale.assign(new_scale).op,
                     control_flow_ops.no_op),
                good.assign(0))

        def finite_step():
            return cond(good + 1 >= self._period, grow, lambda: good.assign_add(1).op)

        def nonfinite_step():
            return control_flow_ops.group(
                good.assign(0), scale.assign(math_ops.maximum(scale / self._multiplier, 1)))

        return cond(is_finite, finite_step, nonfinite_step), is_finite

    def get_config(self):
        return {"initial_loss_scale": self._initial, "increment_period": self._period,
                "multiplier": self._multiplier}

    def __repr__(self):
        return (f"DynamicLossScale(initial_loss_scale={self._initial}, increment_period="
                f"{self._period}, multiplier={self._multiplier})")


def _as_loss_scale(loss_scale):
    if isinstance(loss_scale, (int, float)) and not isinstance(loss_scale, bool):
        return FixedLossScale(loss_scale)
    if isinstance(loss_scale, str) and loss_scale == "dynamic":
        return DynamicLossScale()
    if isinstance(loss_scale, LossScale) or loss_scale is None:
        return loss_scale
    raise ValueError(f"Could not interpret loss scale identifier: {loss_scale}")


class MixedPrecisionLossScaleOptimizer(Optimizer):
    """Wraps an optimizer (and takes its name): the loss is multiplied by the loss scale before
    differentiating and the gradients by its reciprocal. With a dynamic scale a step whose
    gradients are not all finite is skipped: the wrapped optimizer applies them (as
    '<name>-wrapped') under a cond, grouped with the scale's update as '<name>'."""

    def __init__(self, opt, loss_scale):
        if not isinstance(opt, Optimizer):
            raise ValueError(  # noqa: TRY004 - as TF
                f'"opt" must be an instance of Optimizer, but got: {type(opt)}')
        self._optimizer = opt
        super().__init__(opt._use_locking, opt.get_name())
        self._loss_scale = _as_loss_scale(loss_scale)

    @property
    def loss_scale(self):
        return self._loss_scale

    def _doing_dynamic_loss_scaling(self):
        return isinstance(self._loss_scale, DynamicLossScale)

    def compute_gradients(self, loss, var_list=None, gate_gradients=Optimizer.GATE_OP,
                          aggregation_method=None, colocate_gradients_with_ops=False,
                          grad_loss=None):
        from tideflow.framework.indexed_slices import IndexedSlices

        scale = self._loss_scale()
        scaled = (lambda: loss() * scale) if callable(loss) else loss * scale
        pairs = self._optimizer.compute_gradients(
            scaled, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        inv = 1 / self._loss_scale()
        out = []
        for g, v in pairs:
            if isinstance(g, IndexedSlices):
                g = IndexedSlices(g.values * inv, g.indices, g.dense_shape)
            elif g is not None:
                g = g * inv
            out.append((g, v))
        return out

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        from tideflow.ops import control_flow_ops

        if not self._doing_dynamic_loss_scaling():
            return self._optimizer.apply_gradients(grads_and_vars, global_step, name)
        name = name if name is not None else self.get_name()
        grads_and_vars = list(grads_and_vars)
        update_scale, should_apply = self._loss_scale.update([g for g, _ in grads_and_vars])
        applied = _apply_if(self._optimizer, should_apply, grads_and_vars, global_step,
                           name + "-wrapped")
        return control_flow_ops.group(applied, update_scale, name=name)


def _apply_if(opt, should_apply, grads_and_vars, global_step, name):
    """``opt.apply_gradients`` under ``cond(should_apply, ..., no_op)``; the cond's output.

    TF makes the optimizer's variables in the cond's branch, so under its name scope
    ('cond_1/beta1_power'); here they are made before it, under that same scope."""
    from tideflow.ops.cond import cond

    graph = ops.get_default_graph()
    cond_scope = graph.unique_name("cond", mark_as_used=False)
    with ops.control_dependencies(None), ops.name_scope(cond_scope + "/"):
        opt._create_slots([v for g, v in grads_and_vars if g is not None])

    def apply_fn():
        op = opt.apply_gradients(grads_and_vars, global_step, name)
        with ops.control_dependencies([op]):
            return ops.convert_to_tensor(True)

    return cond(should_apply, apply_fn, lambda: ops.convert_to_tensor(False))


_REWRITE = [False]


def enable_mixed_precision_graph_rewrite(opt, loss_scale="dynamic"):
    """Returns ``opt`` wrapped in a :class:`MixedPrecisionLossScaleOptimizer`. (The float16
    rewrite of the graph is not performed; see the module's note.)"""
    if isinstance(opt, MixedPrecisionLossScaleOptimizer):
        raise ValueError('"opt" must not already be an instance of a '  # noqa: TRY004
                         'MixedPrecisionLossScaleOptimizer. '
                         '`enable_mixed_precision_graph_rewrite` will automatically wrap the '
                         'optimizer with a MixedPrecisionLossScaleOptimizer.')
    _REWRITE[0] = True
    return MixedPrecisionLossScaleOptimizer(opt, loss_scale)


def disable_mixed_precision_graph_rewrite():
    """Turns the (recorded) mixed-precision rewrite request off."""
    if not _REWRITE[0]:
        tf_logging.warning("disable_mixed_precision_graph_rewrite() called when mixed "
                           "precision is already disabled.")
    _REWRITE[0] = False


class PythonState(abc.ABC):
    """A Python object whose state a checkpoint saves as a string (``serialize`` /
    ``deserialize``)."""

    @abc.abstractmethod
    def serialize(self):
        """The object's state as a string."""

    @abc.abstractmethod
    def deserialize(self, string_value):
        """Restores the state from ``serialize``'s string."""


class ShardingCallback(abc.ABC):
    """Decides how a checkpoint's tensors are split into shards (``__call__(shardable_tensors)
    -> list of {tensor name: {slice spec: tensor}}``)."""

    @property
    @abc.abstractmethod
    def description(self):
        """A text describing the policy."""

    @abc.abstractmethod
    def __call__(self, shardable_tensors):
        """The shards."""


class ShardableTensor:
    """A tensor about to be written to a checkpoint, with what a sharding policy needs."""

    def __init__(self, _tensor_save_spec=None, tensor=None, dtype=None, device=None, name=None,
                 shape=None, slice_spec=None, checkpoint_key=None, trackable=None):
        self._tensor_save_spec = _tensor_save_spec
        self.tensor = tensor
        self.dtype = dtype
        self.device = device
        self.name = name
        self.shape = shape
        self.slice_spec = slice_spec
        self.checkpoint_key = checkpoint_key
        self.trackable = trackable


class ShardByTaskPolicy(ShardingCallback):
    """One shard per device task."""

    @property
    def description(self):
        return "Split tensors into shards based on their device spec task."

    def __call__(self, shardable_tensors):
        shards = {}
        for t in shardable_tensors:
            task = str(getattr(t, "device", "") or "")
            shards.setdefault(task, {}).setdefault(t.checkpoint_key, {})[t.slice_spec] = t.tensor
        return list(shards.values())


class MaxShardSizePolicy(ShardingCallback):
    """Shards of at most ``max_shard_size`` bytes (tensors are not split)."""

    def __init__(self, max_shard_size):
        self.max_shard_size = int(max_shard_size)

    @property
    def description(self):
        return f"Split tensors into shards with a max shard size of {self.max_shard_size} bytes."

    def __call__(self, shardable_tensors):
        shards, current, size = [], {}, 0
        for t in shardable_tensors:
            n = int(np.prod(t.shape or [])) * (dtypes.as_dtype(t.dtype).size if t.dtype else 1)
            if current and size + n > self.max_shard_size:
                shards.append(current)
                current, size = {}, 0
            current.setdefault(t.checkpoint_key, {})[t.slice_spec] = t.tensor
            size += n
        if current:
            shards.append(current)
        return shards


__all__ = ["DynamicLossScale", "FixedLossScale", "LossScale", "MaxShardSizePolicy",
           "MixedPrecisionLossScaleOptimizer", "PythonState", "ShardByTaskPolicy",
           "ShardableTensor", "ShardingCallback", "disable_mixed_precision_graph_rewrite",
           "enable_mixed_precision_graph_rewrite"]
