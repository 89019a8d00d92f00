"""``tf.train.RMSPropOptimizer``: divides the gradient by a running root mean square of recent
gradients (centered: by their running variance), with optional momentum."""

from tideflow.framework import ops
from tideflow.ops import cast_ops, init_ops, training_ops
from tideflow.train.optimizer import Optimizer


class RMSPropOptimizer(Optimizer):
    """RMSProp; slots "rms" (ones), "mg" when centered, and "momentum" (``<var>/RMSProp``,
    ``<var>/RMSProp_1``, ...)."""

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False,
                 centered=False, name="RMSProp"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._decay = decay
        self._momentum = momentum
        self._epsilon = epsilon
        self._centered = centered

    def _create_slots(self, var_list):
        for v in var_list:
            self._make_rms_slot(v)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _make_rms_slot(self, v):
        dtype = v.dtype.base_dtype
        self._get_or_make_slot_with_initializer(
            v, init_ops.ones_initializer(dtype=dtype), v.get_shape(), dtype, "rms", self._name)

    def _prepare(self):
        c = self._call_if_callable
        self._learning_rate_tensor = ops.convert_to_tensor(c(self._learning_rate),
                                                           name="learning_rate")
        self._decay_tensor = ops.convert_to_tensor(c(self._decay), name="decay")
        self._momentum_tensor = ops.convert_to_tensor(c(self._momentum), name="momentum")
        self._epsilon_tensor = ops.convert_to_tensor(c(self._epsilon), name="epsilon")

    def _hyper(self, var):
        dt = var.dtype.base_dtype
        return [cast_ops.cast(t, dt) for t in (self._learning_rate_tensor, self._decay_tensor,
                                               self._momentum_tensor, self._epsilon_tensor)]

    def _apply_dense(self, grad, var):
        rms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")
        if self._centered:
            return training_ops.as_op(training_ops.apply_centered_rms_prop(
                var, self.get_slot(var, "mg"), rms, mom, *self._hyper(var), grad,
                use_locking=self._use_locking))
        return training_ops.as_op(training_ops.apply_rms_prop(var, rms, mom, *self._hyper(var), grad,
                                           use_locking=self._use_locking))

    def _apply_sparse(self, grad, var):
        rms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")
        if self._centered:
            return training_ops.as_op(training_ops.sparse_apply_centered_rms_prop(
                var, self.get_slot(var, "mg"), rms, mom, *self._hyper(var), grad.values,
                grad.indices, use_locking=self._use_locking))
        return training_ops.as_op(training_ops.sparse_apply_rms_prop(
            var, rms, mom, *self._hyper(var), grad.values, grad.indices,
            use_locking=self._use_locking))
