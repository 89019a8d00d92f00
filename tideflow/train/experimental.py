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
    """A constant loss scale; gradients are always applied."""

    def __init__(self, loss_scale_value):
        if isinstance(loss_scale_value, (ops.Tensor,)) or not isinstance(
                loss_scale_value, (int, float)):
            raise ValueError(f"loss_scale_value must be a Python int or float, got "  # noqa: TRY004
                             f"{loss_scale_value!r}")
        if loss_scale_value < 1:
            tf_logging.warning("FixedLossScale: a loss scale below 1 can make gradients "
                               "underflow.")
        self._value = float(loss_scale_value)

    def _current(self):
        return ops.convert_to_tensor(np.float32(self._value))

    def update(self, grads):
        from tideflow.ops import control_flow_ops

        del grads
        return control_flow_ops.no_op(), ops.convert_to_tensor(True)

    def get_config(self):
        return {"loss_scale_value": self._value}

    def __repr__(self):
        return f"FixedLossScale({self._value})"


def _all_finite(grads):
    from tideflow.ops import array_ops, math_ops, reduction_ops

    checks = []
    for g in grads:
        if g is None:
            continue
        values = g.values if hasattr(g, "values") and not isinstance(g, ops.Tensor) else g
        checks.append(reduction_ops.reduce_all(math_ops.is_finite(values)))
    if not checks:
        return ops.convert_to_tensor(True)
    return reduction_ops.reduce_all(array_ops.stack(checks))


class DynamicLossScale(LossScale):
    """A loss scale that doubles (``multiplier``) after ``increment_period`` steps with finite
    gradients and halves (down to 1) at any step with a non-finite gradient, which is then
    skipped."""

    def __init__(self, initial_loss_scale=2 ** 15, increment_period=2000, multiplier=2.0):
        from tideflow.ops import variables

        self._initial = float(initial_loss_scale)
        self._period = int(increment_period)
        self._multiplier = float(multiplier)
        if self._multiplier <= 1:
            raise ValueError(f"multiplier must be greater than 1, got {multiplier}")
        with ops.init_scope():
            self._scale = variables.Variable(np.float32(self._initial), name="current_loss_scale",
                                             trainable=False, dtype=dtypes.float32)
            self._good = variables.Variable(np.int64(0), name="good_steps", trainable=False,
                                            dtype=dtypes.int64)

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
        return self._scale.value()

    def update(self, grads):
        from tideflow.ops import control_flow_ops, gather_ops, math_ops, state_ops

        finite = _all_finite(grads)
        good = self._good.value() + 1
        grow = math_ops.logical_and(finite, math_ops.greater_equal(good, self._period))
        scale = self._scale.value()
        new_scale = gather_ops.where(
            grow, scale * self._multiplier,
            gather_ops.where(finite, scale, math_ops.maximum(scale / self._multiplier, 1.0)))
        new_good = gather_ops.where(math_ops.logical_and(finite, math_ops.logical_not(grow)),
                                    good, np.int64(0) + good * 0)
        op = control_flow_ops.group(state_ops.assign(self._scale, new_scale),
                                    state_ops.assign(self._good, new_good))
        return op, finite

    def get_config(self):
        return {"initial_loss_scale": self._initial, "increment_period": self._period,
                "multiplier": self._multiplier}

    def __repr__(self):
        return (f"DynamicLossScale(initial_loss_scale={self._initial}, increment_period="
                f"{self._period}, multiplier={self._multiplier})")


def _as_loss_scale(loss_scale):
    if isinstance(loss_scale, LossScale):
        return loss_scale
    if loss_scale == "dynamic":
        return DynamicLossScale()
    if isinstance(loss_scale, (int, float)) and not isinstance(loss_scale, bool):
        return FixedLossScale(loss_scale)
    raise ValueError(f"Invalid loss scale: {loss_scale!r} (expected a LossScale, 'dynamic' or "
                     f"a number)")


class MixedPrecisionLossScaleOptimizer(Optimizer):
    """Wraps an optimizer: the loss is multiplied by the loss scale before differentiating,
    the gradients divided by it, and a step whose gradients are not all finite is skipped
    (and updates a dynamic scale)."""

    def __init__(self, opt, loss_scale):
        if not isinstance(opt, Optimizer):
            raise ValueError(  # noqa: TRY004 - as TF
                f'"opt" must be an instance of Optimizer, but got: {type(opt)}')
        super().__init__(False, "MixedPrecisionLossScale")
        self._optimizer = opt
        self._loss_scale = _as_loss_scale(loss_scale)

    @property
    def loss_scale(self):
        return self._loss_scale

    def compute_gradients(self, loss, var_list=None, gate_gradients=Optimizer.GATE_OP,
                          aggregation_method=None, colocate_gradients_with_ops=False,
                          grad_loss=None):
        from tideflow.framework.indexed_slices import IndexedSlices
        from tideflow.ops import cast_ops, math_ops

        if callable(loss):
            loss = loss()
        scale = self._loss_scale()
        scaled = math_ops.multiply(loss, cast_ops.cast(scale, loss.dtype))
        pairs = self._optimizer.compute_gradients(
            scaled, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        out = []
        for g, v in pairs:
            if g is None:
                out.append((g, v))
            elif isinstance(g, IndexedSlices):
                inv = cast_ops.cast(1.0 / scale, g.values.dtype)
                out.append((IndexedSlices(g.values * inv, g.indices, g.dense_shape), v))
            else:
                out.append((g * cast_ops.cast(1.0 / scale, g.dtype), v))
        return out

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        from tideflow.ops import control_flow_ops
        from tideflow.ops.cond import cond

        grads_and_vars = list(grads_and_vars)
        grads = [g for g, _ in grads_and_vars]
        update_scale, should_apply = self._loss_scale.update(grads)
        # the wrapped optimizer's variables exist before the cond, outside its branches
        with ops.control_dependencies(None):
            self._optimizer._create_slots([v for g, v in grads_and_vars if g is not None])

        outer = ops.get_default_graph()

        def apply_fn():
            # the branch is a function graph: the wrapped optimizer finds its non-slot
            # variables (Adam's beta powers...) by graph, so they are made visible under it
            inner = ops.get_default_graph()
            table = self._optimizer._non_slot_dict
            for (var_name, g), var in list(table.items()):
                if g is outer:
                    table.setdefault((var_name, inner), var)
            op = self._optimizer.apply_gradients(grads_and_vars, global_step, name)
            with ops.control_dependencies([op]):
                return ops.convert_to_tensor(True)

        def skip_fn():
            return ops.convert_to_tensor(False)

        applied = cond(should_apply, apply_fn, skip_fn)
        return control_flow_ops.group(applied, update_scale)

    def get_slot(self, var, name):
        return self._optimizer.get_slot(var, name)

    def get_slot_names(self):
        return self._optimizer.get_slot_names()

    def variables(self):
        return self._optimizer.variables()


_REWRITE = [False]


def enable_mixed_precision_graph_rewrite(opt, loss_scale="dynamic"):
    """Returns ``opt`` wrapped in a :class:`MixedPrecisionLossScaleOptimizer`. (The float16
    rewrite of the graph is not performed; see the module's note.)"""
    if isinstance(opt, MixedPrecisionLossScaleOptimizer):
        raise ValueError('"opt" must not already be an instance of a '  # noqa: TRY004
                         'MixedPrecisionLossScaleOptimizer.')
    _REWRITE[0] = True
    return MixedPrecisionLossScaleOptimizer(opt, loss_scale)


def disable_mixed_precision_graph_rewrite():
    """Turns the (recorded) mixed-precision rewrite request off."""
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
