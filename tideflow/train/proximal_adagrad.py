"""``tf.train.ProximalAdagradOptimizer``: an Adagrad step followed by the proximal operator of
L1/L2 regularization, with the per-coordinate Adagrad rate."""

from tideflow.framework import ops
from tideflow.ops import constant_op, training_ops
from tideflow.train.optimizer import Optimizer
from tideflow.train.proximal_gradient_descent import ProximalGradientDescentOptimizer


class ProximalAdagradOptimizer(Optimizer):
    """Proximal Adagrad; one slot "accumulator" per variable (``<var>/ProximalAdagrad``)."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="ProximalAdagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError(
                f"initial_accumulator_value must be positive: {initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength

    _prepare = ProximalGradientDescentOptimizer._prepare
    _hyper = ProximalGradientDescentOptimizer._hyper
    _sparse_hyper = ProximalGradientDescentOptimizer._sparse_hyper

    def _create_slots(self, var_list):
        for v in var_list:
            # the accumulator starts from a Const made outside the slot (TF 1.15's ops)
            with ops.colocate_with(v):
                val = constant_op.constant(self._initial_accumulator_value,
                                           shape=v.get_shape(), dtype=v.dtype.base_dtype)
            self._get_or_make_slot(v, val, "accumulator", self._name)

    def _apply_dense(self, grad, var):
        return training_ops.as_op(training_ops.apply_proximal_adagrad(
            var, self.get_slot(var, "accumulator"), *self._hyper(var), grad,
            use_locking=self._use_locking))

    def _apply_sparse(self, grad, var):
        return training_ops.as_op(training_ops.sparse_apply_proximal_adagrad(
            var, self.get_slot(var, "accumulator"), *self._sparse_hyper(grad, var), grad.values,
            grad.indices, use_locking=self._use_locking))
