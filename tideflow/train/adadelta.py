"""``tf.train.AdadeltaOptimizer`` (Zeiler 2012): step sizes from running averages of squared
gradients and squared updates."""

from tideflow.framework import ops
from tideflow.ops import cast_ops, training_ops
from tideflow.train.optimizer import Optimizer


class AdadeltaOptimizer(Optimizer):
    """Adadelta; slots "accum" (``<var>/Adadelta``) and "accum_update" (``<var>/Adadelta_1``)."""

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking=False,
                 name="Adadelta"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._rho = rho
        self._epsilon = epsilon

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _prepare(self):
        self._lr_t = ops.convert_to_tensor(self._call_if_callable(self._lr), name="lr")
        self._rho_t = ops.convert_to_tensor(self._call_if_callable(self._rho), name="rho")
        self._epsilon_t = ops.convert_to_tensor(self._call_if_callable(self._epsilon),
                                                name="epsilon")

    def _hyper(self, var):
        dt = var.dtype.base_dtype
        return [cast_ops.cast(t, dt) for t in (self._lr_t, self._rho_t, self._epsilon_t)]

    def _apply_dense(self, grad, var):
        return training_ops.as_op(training_ops.apply_adadelta(
            var, self.get_slot(var, "accum"), self.get_slot(var, "accum_update"),
            *self._hyper(var), grad, use_locking=self._use_locking))

    def _apply_sparse(self, grad, var):
        return training_ops.as_op(training_ops.sparse_apply_adadelta(
            var, self.get_slot(var, "accum"), self.get_slot(var, "accum_update"),
            *self._hyper(var), grad.values, grad.indices, use_locking=self._use_locking))
