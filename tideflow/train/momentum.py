"""``tf.train.MomentumOptimizer``: ``accum = accum * momentum + grad; var -= lr * accum``
(or the Nesterov form)."""

from tideflow.framework import ops
from tideflow.ops import cast_ops, training_ops
from tideflow.train.optimizer import Optimizer


class MomentumOptimizer(Optimizer):
    """Momentum; one slot "momentum" per variable (``<var>/Momentum``)."""

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum",
                 use_nesterov=False):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._learning_rate_tensor = ops.convert_to_tensor(
            self._call_if_callable(self._learning_rate), name="learning_rate")
        self._momentum_tensor = ops.convert_to_tensor(
            self._call_if_callable(self._momentum), name="momentum")

    def _hyper(self, var):
        dt = var.dtype.base_dtype
        return (cast_ops.cast(self._learning_rate_tensor, dt),
                cast_ops.cast(self._momentum_tensor, dt))

    def _apply_dense(self, grad, var):
        lr, momentum = self._hyper(var)
        return training_ops.as_op(training_ops.apply_momentum(
            var, self.get_slot(var, "momentum"), lr, grad, momentum,
            use_locking=self._use_locking, use_nesterov=self._use_nesterov))

    def _apply_sparse(self, grad, var):
        lr, momentum = self._hyper(var)
        return training_ops.as_op(training_ops.sparse_apply_momentum(
            var, self.get_slot(var, "momentum"), lr, grad.values, grad.indices, momentum,
            use_locking=self._use_locking, use_nesterov=self._use_nesterov))
