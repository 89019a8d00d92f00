"""``tf.contrib.optimizer_v2``: TF 1.x's second optimizer interface. Its optimizers take their
hyperparameters as values, tensors or callables and build the variables, slots and update ops
of ``tf.train``'s (TF 1.15 names them alike: ``w/Adam``, ``beta1_power``), so here they are
``tf.train``'s optimizers under this namespace, but for RMSProp's epsilon (below);
``OptimizerV2`` is their base class."""

from tideflow.ops import array_ops, cast_ops
from tideflow.train import rmsprop
from tideflow.train.adadelta import AdadeltaOptimizer
from tideflow.train.adagrad import AdagradOptimizer
from tideflow.train.adam import AdamOptimizer
from tideflow.train.gradient_descent import GradientDescentOptimizer
from tideflow.train.momentum import MomentumOptimizer
from tideflow.train.optimizer import Optimizer as OptimizerV2


class RMSPropOptimizer(rmsprop.RMSPropOptimizer):
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
