"""``tf.train.AdamOptimizer`` (Kingma and Ba 2015): bias-corrected running moments of the
gradient; dense updates are fused (ApplyAdam), sparse ones decay every row and add the new rows."""

from tideflow.framework import ops
from tideflow.ops import cast_ops, control_flow_ops, math_ops, state_ops, training_ops
from tideflow.train.optimizer import Optimizer


class AdamOptimizer(Optimizer):
    """Adam; slots "m" (``<var>/Adam``) and "v" (``<var>/Adam_1``), and the non-slot variables
    ``beta1_power`` and ``beta2_power`` (colocated with the first variable by name)."""

    _use_nesterov = False  # Nadam (tf.contrib.opt) sets it

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 use_locking=False, name="Adam"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon
        self._lr_t = self._beta1_t = self._beta2_t = self._epsilon_t = None

    def _get_beta_accumulators(self):
        graph = ops.get_default_graph()
        return (self._get_non_slot_variable("beta1_power", graph=graph),
                self._get_non_slot_variable("beta2_power", graph=graph))

    def _create_slots(self, var_list):
        first_var = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(self._beta1, "beta1_power", first_var)
        self._create_non_slot_variable(self._beta2, "beta2_power", first_var)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self):
        c = self._call_if_callable
        self._lr_t = ops.convert_to_tensor(c(self._lr), name="learning_rate")
        self._beta1_t = ops.convert_to_tensor(c(self._beta1), name="beta1")
        self._beta2_t = ops.convert_to_tensor(c(self._beta2), name="beta2")
        self._epsilon_t = ops.convert_to_tensor(c(self._epsilon), name="epsilon")

    def _apply_dense(self, grad, var):
        dt = var.dtype.base_dtype
        beta1_power, beta2_power = self._get_beta_accumulators()
        return training_ops.as_op(training_ops.apply_adam(
            var, self.get_slot(var, "m"), self.get_slot(var, "v"),
            cast_ops.cast(beta1_power, dt), cast_ops.cast(beta2_power, dt),
            cast_ops.cast(self._lr_t, dt), cast_ops.cast(self._beta1_t, dt),
            cast_ops.cast(self._beta2_t, dt), cast_ops.cast(self._epsilon_t, dt), grad,
            use_locking=self._use_locking, use_nesterov=self._use_nesterov))

    def _sparse_hyper(self, var):
        """(bias-corrected lr, beta1, beta2, epsilon) in the variable's dtype."""
        dt = var.dtype.base_dtype
        beta1_power, beta2_power = self._get_beta_accumulators()
        beta1_power = cast_ops.cast(beta1_power, dt)
        beta2_power = cast_ops.cast(beta2_power, dt)
        lr = cast_ops.cast(self._lr_t, dt) * math_ops.sqrt(1 - beta2_power) / (1 - beta1_power)
        return (lr, cast_ops.cast(self._beta1_t, dt), cast_ops.cast(self._beta2_t, dt),
                cast_ops.cast(self._epsilon_t, dt))

    def _sparse_moments(self, grad, beta1_t, beta2_t, var):
        """Decays every row of ``m`` and ``v`` and adds the gradient's rows; returns the
        updated ``(m_t, v_t)``."""
        # m = beta1 * m + (1 - beta1) * g, then v likewise with g * g
        m = self.get_slot(var, "m")
        m_t = state_ops.assign(m, m * beta1_t, use_locking=self._use_locking)
        with ops.control_dependencies([m_t]):
            m_t = state_ops.scatter_add(m, grad.indices, grad.values * (1 - beta1_t),
                                        use_locking=self._use_locking)
        v = self.get_slot(var, "v")
        v_t = state_ops.assign(v, v * beta2_t, use_locking=self._use_locking)
        with ops.control_dependencies([v_t]):
            v_t = state_ops.scatter_add(v, grad.indices,
                                        (grad.values * grad.values) * (1 - beta2_t),
                                        use_locking=self._use_locking)
        return m_t, v_t

    def _apply_sparse_shared(self, grad, var, indices, scatter_add):
        """The sparse step for gradient rows ``grad`` at ``indices``, adding into the moments
        with ``scatter_add(ref, indices, updates)`` (TF's hook for Adam variants)."""
        lr, beta1_t, beta2_t, epsilon_t = self._sparse_hyper(var)
        # the scaled rows first, then the decayed moment (TF 1.15's op order)
        m = self.get_slot(var, "m")
        m_scaled = grad * (1 - beta1_t)
        m_t = state_ops.assign(m, m * beta1_t, use_locking=self._use_locking)
        with ops.control_dependencies([m_t]):
            m_t = scatter_add(m, indices, m_scaled)
        v = self.get_slot(var, "v")
        v_scaled = (grad * grad) * (1 - beta2_t)
        v_t = state_ops.assign(v, v * beta2_t, use_locking=self._use_locking)
        with ops.control_dependencies([v_t]):
            v_t = scatter_add(v, indices, v_scaled)
        v_sqrt = math_ops.sqrt(v_t)
        var_update = state_ops.assign_sub(
            var, lr * m_t / (v_sqrt + epsilon_t), use_locking=self._use_locking)
        return control_flow_ops.group(var_update, m_t, v_t)

    def _apply_sparse(self, grad, var):
        if getattr(var, "_resource", False) is True:
            # TF 1.15's resource form: each scatter then a read of the moment (one op more)
            return self._apply_sparse_shared(grad.values, var, grad.indices,
                                             self._resource_scatter_add)
        return self._apply_sparse_shared(
            grad.values, var, grad.indices,
            lambda x, i, v: state_ops.scatter_add(x, i, v, use_locking=self._use_locking))

    def _resource_scatter_add(self, x, i, v):
        if getattr(x, "_resource", False) is True:
            # TF 1.15's raw ResourceScatterAdd (no read of its own), then a read after it
            with ops.control_dependencies([state_ops.scatter_add(x._ref(), i, v,
                                                                 name="ResourceScatterAdd")]):
                return x.value()
        with ops.control_dependencies([state_ops.scatter_add(x, i, v)]):
            return x.read_value()  # (a ref variable's value() is the step's snapshot)

    def _finish(self, update_ops, name_scope):
        # the beta powers advance once per step, after every variable's update
        with ops.control_dependencies(update_ops):
            beta1_power, beta2_power = self._get_beta_accumulators()
            with ops.colocate_with(beta1_power):
                update_beta1 = beta1_power.assign(beta1_power * self._beta1_t,
                                                  use_locking=self._use_locking)
                update_beta2 = beta2_power.assign(beta2_power * self._beta2_t,
                                                  use_locking=self._use_locking)
        return control_flow_ops.group(*update_ops, update_beta1, update_beta2, name=name_scope)
