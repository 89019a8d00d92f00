"""``tf.contrib.optimizer_v2``: TF 1.x's second optimizer interface. Its optimizers take their
hyperparameters as values, tensors or callables and build the variables, slots and update ops
of ``tf.train``'s (TF 1.15 names them alike: ``w/Adam``, ``beta1_power``), so here they are
``tf.train``'s optimizers under this namespace with OptimizerV2's ``minimize`` and
``compute_gradients`` arguments, but for RMSProp's epsilon (below); ``OptimizerV2`` is their
base class."""

from tideflow.ops import array_ops, cast_ops
from tideflow.train import adadelta, adagrad, adam, gradient_descent, momentum, optimizer, rmsprop


class OptimizerV2(optimizer.Optimizer):
    """tf.train's Optimizer with OptimizerV2's arguments: ``stop_gradients`` and
    ``scale_loss_by_num_replicas`` where tf.train's has ``colocate_gradients_with_ops``."""

    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=1,
                 aggregation_method=None, name=None, grad_loss=None, stop_gradients=None,
                 scale_loss_by_num_replicas=False):
        grads_and_vars = self.compute_gradients(
            loss, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method, grad_loss=grad_loss,
            stop_gradients=stop_gradients, scale_loss_by_num_replicas=scale_loss_by_num_replicas)
        return self._apply_minimizing(loss, grads_and_vars, global_step, name)

    def compute_gradients(self, loss, var_list=None, gate_gradients=1, aggregation_method=None,
                          grad_loss=None, stop_gradients=None, scale_loss_by_num_replicas=False):
        if scale_loss_by_num_replicas:
            from tideflow.distribute import get_strategy

            replicas = get_strategy().num_replicas_in_sync
            if replicas > 1:
                loss = (loss() if callable(loss) else loss) * (1.0 / replicas)
        return self._gradients_of(loss, var_list, gate_gradients, aggregation_method, False,
                                  grad_loss, stop_gradients)


class AdadeltaOptimizer(OptimizerV2, adadelta.AdadeltaOptimizer):
    pass


class AdagradOptimizer(OptimizerV2, adagrad.AdagradOptimizer):
    pass


class AdamOptimizer(OptimizerV2, adam.AdamOptimizer):
    pass


class GradientDescentOptimizer(OptimizerV2, gradient_descent.GradientDescentOptimizer):
    pass


class MomentumOptimizer(OptimizerV2, momentum.MomentumOptimizer):
    pass


class RMSPropOptimizer(OptimizerV2, rmsprop.RMSPropOptimizer):
    """RMSProp as OptimizerV2 has it: the "rms" slot starts at ``epsilon`` (tf.train's at 1) and
    the update adds no epsilon to the denominator."""

    def _make_rms_slot(self, v):
        epsilon = cast_ops.cast(self._call_if_callable(self._epsilon), v.dtype.base_dtype)
        self._get_or_make_slot(v, epsilon * array_ops.ones_like(v), "rms", self._name)

    def _hyper(self, var):
        learning_rate, decay, momentum, _ = super()._hyper(var)
        return [learning_rate, decay, momentum, 0]


__all__ = ["AdadeltaOptimizer", "AdagradOptimizer", "AdamOptimizer", "GradientDescentOptimizer",
           "MomentumOptimizer", "OptimizerV2", "RMSPropOptimizer"]
