"""``tf.train.AdagradDAOptimizer``: Adagrad dual averaging (Duchi et al.), for sparse linear
models with L1/L2 regularization.

Per step (``t`` = global step + 1): ``g_acc += grad``, ``gg_acc += grad**2`` and
``var = -lr * shrink(g_acc, l1 t) / (l2 t lr + sqrt(gg_acc))``, where ``shrink(a, c) =
sign(a) max(|a| - c, 0)`` (no shrinking when ``l1`` is 0). Built from assignment ops; sparse
gradients update only their rows.
"""

from tideflow.framework import dtypes, ops
from tideflow.ops import (
    cast_ops,
    control_flow_ops,
    gather_ops,
    init_ops,
    math_ops,
    state_ops,
    unary_ops,
)
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
        self._initial = initial_gradient_squared_accumulator_value
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength
        self._global_step = global_step

    def _create_slots(self, var_list):
        for v in var_list:
            dtype = v.dtype.base_dtype
            self._zeros_slot(v, "gradient_accumulator", self._name)
            self._get_or_make_slot_with_initializer(
                v, init_ops.constant_initializer(self._initial, dtype=dtype), v.get_shape(),
                dtype, "gradient_squared_accumulator", self._name)

    def _prepare(self):
        self._lr_t = ops.convert_to_tensor(self._call_if_callable(self._learning_rate),
                                           name="learning_rate")
        with ops.colocate_with(self._lr_t):
            self._step_t = cast_ops.cast(self._global_step, dtypes.int64) + 1

    def _new_value(self, acc, sq, dtype):
        lr = cast_ops.cast(self._lr_t, dtype)
        t = cast_ops.cast(self._step_t, dtype)
        l1 = cast_ops.cast(self._l1, dtype)
        l2 = cast_ops.cast(self._l2, dtype)
        den = l2 * t * lr + unary_ops.sqrt(sq)
        if self._l1 > 0:
            shrunk = unary_ops.sign(acc) * math_ops.maximum(unary_ops.abs(acc) - l1 * t, 0.0)
        else:
            shrunk = acc
        return -lr * shrunk / den

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        acc = state_ops.assign_add(self.get_slot(var, "gradient_accumulator"), grad,
                                   use_locking=self._use_locking)
        sq = state_ops.assign_add(self.get_slot(var, "gradient_squared_accumulator"),
                                  grad * grad, use_locking=self._use_locking)
        return state_ops.assign(var, self._new_value(acc, sq, dtype),
                                use_locking=self._use_locking).op

    def _apply_sparse(self, grad, var):
        dtype = var.dtype.base_dtype
        acc_var = self.get_slot(var, "gradient_accumulator")
        sq_var = self.get_slot(var, "gradient_squared_accumulator")
        acc = state_ops.scatter_add(acc_var, grad.indices, grad.values,
                                    use_locking=self._use_locking)
        sq = state_ops.scatter_add(sq_var, grad.indices, grad.values * grad.values,
                                   use_locking=self._use_locking)
        rows = gather_ops.unique(grad.indices)[0]  # each touched row once
        with ops.control_dependencies([acc, sq]):
            acc_rows = gather_ops.gather(acc_var.value(), rows)
            sq_rows = gather_ops.gather(sq_var.value(), rows)
            update = state_ops.scatter_update(var, rows, self._new_value(acc_rows, sq_rows,
                                                                         dtype),
                                              use_locking=self._use_locking)
        return control_flow_ops.group(update)


__all__ = ["AdagradDAOptimizer"]
