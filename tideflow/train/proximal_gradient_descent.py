"""``tf.train.ProximalGradientDescentOptimizer``: a gradient step followed by the proximal
operator of L1 (soft threshold) and L2 (shrink) regularization."""

from tideflow.framework import ops
from tideflow.ops import cast_ops, training_ops
from tideflow.train.optimizer import Optimizer


class ProximalGradientDescentOptimizer(Optimizer):
    """Proximal gradient descent (no slots).  Its direct base is ``Optimizer``, as in TF (GPflow
    checks ``__base__``); ``ProximalAdagradOptimizer`` borrows ``_prepare`` and ``_hyper``."""

    def __init__(self, learning_rate, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, use_locking=False,
                 name="ProximalGradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength

    def _prepare(self):
        # a callable rate fails to convert, as in TF 1.15 (only some optimizers call it)
        self._learning_rate_tensor = ops.convert_to_tensor(
            self._learning_rate, name="learning_rate")
        self._l1_regularization_strength_tensor = ops.convert_to_tensor(
            self._l1_regularization_strength, name="l1_regularization_strength")
        self._l2_regularization_strength_tensor = ops.convert_to_tensor(
            self._l2_regularization_strength, name="l2_regularization_strength")

    def _hyper(self, var):
        """The learning rate and L1/L2 strengths, uncast: as in TF 1.15, a variable that is
        not float32 meets a float32 rate, and the update op refuses it (TypeError)."""
        return [self._learning_rate_tensor, self._l1_regularization_strength_tensor,
                self._l2_regularization_strength_tensor]

    def _sparse_hyper(self, grad, var):
        """The sparse update's: TF 1.15's _resource_apply_sparse alone casts them to the
        gradient's type (a float64 resource variable trains where its dense update fails)."""
        hy = self._hyper(var)
        if training_ops._is_resource_variable(var):
            hy = [cast_ops.cast(t, grad.dtype) for t in hy]
        return hy

    def _apply_dense(self, grad, var):
        return training_ops.as_op(training_ops.apply_proximal_gradient_descent(
            var, *self._hyper(var), grad, use_locking=self._use_locking))

    def _apply_sparse(self, grad, var):
        return training_ops.as_op(training_ops.sparse_apply_proximal_gradient_descent(
            var, *self._sparse_hyper(grad, var), grad.values, grad.indices,
            use_locking=self._use_locking))
