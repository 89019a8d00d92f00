"""``tf.contrib.mixed_precision``: ``LossScaleOptimizer`` and its loss scale managers
(``FixedLossScaleManager``, ``ExponentialUpdateLossScaleManager``), with TF 1.x's update rules."""

import abc

from tideflow.framework import dtypes, ops
from tideflow.train import experimental as _experimental
from tideflow.train.optimizer import Optimizer


class LossScaleManager(abc.ABC):
    """Chooses the loss scale: ``get_loss_scale()`` (a float32 scalar tensor) and
    ``update_loss_scale(finite_grads)`` (an op, given whether this step's gradients are all
    finite)."""

    @abc.abstractmethod
    def get_loss_scale(self):
        """The loss scale, a float32 scalar tensor."""

    @abc.abstractmethod
    def update_loss_scale(self, finite_grads):
        """An op updating the scale after a step (``finite_grads``: a bool scalar tensor)."""


class FixedLossScaleManager(LossScaleManager):
    """A loss scale that never changes."""

    def __init__(self, loss_scale):
        if loss_scale < 1:
            raise ValueError("loss scale must be at least 1.")
        self._loss_scale = ops.convert_to_tensor(loss_scale, dtype=dtypes.float32)

    def get_loss_scale(self):
        return self._loss_scale

    def update_loss_scale(self, finite_grads):
        from tideflow.ops import control_flow_ops

        del finite_grads
        return control_flow_ops.no_op()


class ExponentialUpdateLossScaleManager(LossScaleManager):
    """Multiplies the scale by ``incr_ratio`` after ``incr_every_n_steps`` consecutive steps
    with finite gradients (unless the product overflows float32), and by ``decr_ratio`` (never
    below 1) once ``decr_every_n_nan_or_inf`` steps with non-finite gradients have accumulated;
    both counts restart whenever the scale changes, and a non-finite step restarts the count of
    finite ones."""

    def __init__(self, init_loss_scale, incr_every_n_steps, decr_every_n_nan_or_inf=2,
                 incr_ratio=2, decr_ratio=0.8):
        from tideflow.ops import variables

        self._incr_every_n_steps = incr_every_n_steps
        self._decr_every_n_nan_or_inf = decr_every_n_nan_or_inf
        self._incr_ratio = incr_ratio
        self._decr_ratio = decr_ratio
        self._loss_scale = variables.Variable(
            ops.convert_to_tensor(init_loss_scale, dtypes.float32), name="loss_scale",
            dtype=dtypes.float32, trainable=False)
        self._num_good_steps = variables.Variable(0, name="good_steps", dtype=dtypes.int32,
                                                  trainable=False)
        self._num_bad_steps = variables.Variable(0, name="bad_steps", dtype=dtypes.int32,
                                                 trainable=False)

    def get_loss_scale(self):
        return self._loss_scale

    def _reset_stats(self):
        from tideflow.ops import control_flow_ops, state_ops

        return control_flow_ops.group(state_ops.assign(self._num_good_steps, 0),
                                      state_ops.assign(self._num_bad_steps, 0))

    def update_loss_scale(self, finite_grads):
        # TF 1.15's nested conds (their ops live in the branches, as TF's)
        from tideflow.ops import control_flow_ops, math_ops, state_ops
        from tideflow.ops.cond import cond

        scale, good, bad = self._loss_scale, self._num_good_steps, self._num_bad_steps

        def incr_loss_scale():
            new_scale = cond(math_ops.is_finite(scale * self._incr_ratio),
                             lambda: scale * self._incr_ratio, lambda: scale)
            return control_flow_ops.group(state_ops.assign(scale, new_scale),
                                          self._reset_stats())

        def update_if_finite_grads():
            return cond(good + 1 >= self._incr_every_n_steps, incr_loss_scale,
                        lambda: state_ops.assign_add(good, 1).op)

        def decr_loss_scale():
            new_scale = math_ops.maximum(1.0, scale * self._decr_ratio)
            return control_flow_ops.group(state_ops.assign(scale, new_scale),
                                          self._reset_stats())

        def just_update_steps():
            return control_flow_ops.group(state_ops.assign_add(bad, 1),
                                          state_ops.assign(good, 0))

        def update_if_not_finite_grads():
            return cond(bad + 1 >= self._decr_every_n_nan_or_inf, decr_loss_scale,
                        just_update_steps)

        return cond(finite_grads, update_if_finite_grads, update_if_not_finite_grads)


class LossScaleOptimizer(_experimental.MixedPrecisionLossScaleOptimizer):
    """Wraps ``opt``: ``compute_gradients`` differentiates the loss times the manager's loss
    scale and divides the gradients by it; ``apply_gradients`` applies them (and increments
    ``global_step``) only when all are finite, and always updates the manager."""

    def __init__(self, opt, loss_scale_manager):
        # any object with get_loss_scale and update_loss_scale will do, as in TF 1.15
        super().__init__(opt, None)
        self._name = "LossScaleOptimizer"
        self._opt = opt
        self._loss_scale_manager = loss_scale_manager

    # (TF 1.15's wrapper has no optimizer state of its own and fails on these; here they
    # answer for the wrapped optimizer)
    def get_slot(self, var, name):
        return self._opt.get_slot(var, name)

    def get_slot_names(self):
        return self._opt.get_slot_names()

    def variables(self):
        return self._opt.variables()

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        from tideflow.ops import control_flow_ops, math_ops, reduction_ops

        grads_and_vars = list(grads_and_vars)
        # contrib checks every gradient, as a dense tensor: a None one fails in IsFinite
        # (TF 1.15's "None values not supported"), where the experimental wrapper skips it
        finite = reduction_ops.reduce_all(
            [reduction_ops.reduce_all(math_ops.is_finite(g)) for g, _ in grads_and_vars])
        applied = _experimental._apply_if(self._opt, finite, grads_and_vars, global_step, name)
        return control_flow_ops.group(applied,
                                      self._loss_scale_manager.update_loss_scale(finite))

    def compute_gradients(self, loss, var_list=None, gate_gradients=Optimizer.GATE_OP,
                          aggregation_method=None, colocate_gradients_with_ops=False,
                          grad_loss=None):
        from tideflow.ops import cast_ops, math_ops

        loss_scale = self._loss_scale_manager.get_loss_scale()
        loss_val = loss() if callable(loss) else loss
        scaled_loss = loss_val * cast_ops.cast(loss_scale, loss_val.dtype.base_dtype)
        pairs = self._opt.compute_gradients(
            scaled_loss, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        inv_loss_scale = math_ops.reciprocal(loss_scale)
        # IndexedSlices times a tensor is a dense product, as in TF 1.15's contrib wrapper, so
        # an embedding's gradient reaches the wrapped optimizer dense (its dense update runs)
        return [(g if g is None else g * cast_ops.cast(inv_loss_scale, g.dtype.base_dtype), v)
                for g, v in pairs]


__all__ = ["ExponentialUpdateLossScaleManager", "FixedLossScaleManager", "LossScaleManager",
           "LossScaleOptimizer"]
