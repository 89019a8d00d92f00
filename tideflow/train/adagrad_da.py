"""``tf.train.AdagradDAOptimizer``: Adagrad dual averaging (Duchi et al.), for sparse linear
models with L1/L2 regularization.

Per step (``t`` = global step + 1): ``g_acc += grad``, ``gg_acc += grad**2`` and
``var = -lr * shrink(g_acc, l1 t) / (l2 t lr + sqrt(gg_acc))``, where ``shrink(a, c) =
sign(a) max(|a| - c, 0)`` (no shrinking when ``l1`` is 0): the fused ApplyAdagradDA and
SparseApplyAdagradDA (sparse gradients update only their rows).
"""

from tideflow.framework import ops
from tideflow.ops import array_ops, cast_ops, constant_op, training_ops
from tideflow.train.optimizer import Optimizer


class AdagradDAOptimizer(Optimizer):
    """Adagrad dual averaging; slots "gradient_accumulator" and
    "gradient_squared_accumulator" per variable. ``global_step`` (a variable) is required."""

    def __init__(self, learning_rate, global_step, initial_gradient_squared_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="AdagradDA"):
        if initial_gradient_squared_accumulator_value <= 0.0:
            raise ValueError(f"initial_gradient_squared_accumulator_value must be positive: "
                             f"{initial_gradient_squared_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        # TF 1.15's attribute names (user code reads them)
        self._initial_gradient_squared_accumulator_value = \
            initial_gradient_squared_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._global_step = global_step

    def _create_slots(self, var_list):
        for v in var_list:
            # both accumulators start from Consts made outside the slots (TF 1.15's ops)
            with ops.colocate_with(v):
                g_val = constant_op.constant(0.0, shape=v.get_shape(), dtype=v.dtype.base_dtype)
                gg_val = constant_op.constant(self._initial_gradient_squared_accumulator_value,
                                              shape=v.get_shape(),
                                              dtype=v.dtype.base_dtype)
            self._get_or_make_slot(v, g_val, "gradient_accumulator", self._name)
            self._get_or_make_slot(v, gg_val, "gradient_squared_accumulator", self._name)

    def _prepare(self):
        # a callable rate fails to convert, as in TF 1.15 (only some optimizers call it)
        self._learning_rate_tensor = ops.convert_to_tensor(
            self._learning_rate, name="learning_rate")
        # one read of the step per apply_gradients, beside the learning rate (TF's worker copy)
        with ops.colocate_with(self._learning_rate_tensor):
            # (not cast, as TF's: a step of another type than int64 fails in the update op)
            self._global_step_on_worker = array_ops.identity(self._global_step) + 1

    def _hyper(self, var):
        dtype = var.dtype.base_dtype
        return (cast_ops.cast(self._learning_rate_tensor, dtype),
                cast_ops.cast(self._l1_regularization_strength, dtype),
                cast_ops.cast(self._l2_regularization_strength, dtype))

    def _step(self, var):
        with ops.device(var.device):
            return array_ops.identity(self._global_step_on_worker)

    def _apply_dense(self, grad, var):
        step = self._step(var)  # the step's Identity before the casts, as TF 1.15's
        return training_ops.as_op(training_ops.apply_adagrad_da(
            var, self.get_slot(var, "gradient_accumulator"),
            self.get_slot(var, "gradient_squared_accumulator"), grad, *self._hyper(var),
            step, use_locking=self._use_locking))

    def _apply_sparse(self, grad, var):
        step = self._step(var)
        return training_ops.as_op(training_ops.sparse_apply_adagrad_da(
            var, self.get_slot(var, "gradient_accumulator"),
            self.get_slot(var, "gradient_squared_accumulator"), grad.values, grad.indices,
            *self._hyper(var), step, use_locking=self._use_locking))


__all__ = ["AdagradDAOptimizer"]
