"""``tf.train.GradientDescentOptimizer``: ``var -= learning_rate * grad``."""

from tideflow.framework import ops
from tideflow.framework.indexed_slices import IndexedSlices
from tideflow.ops import cast_ops, state_ops, training_ops
from tideflow.train.optimizer import Optimizer


class GradientDescentOptimizer(Optimizer):
    """Plain gradient descent; sparse gradients update only their rows (ScatterSub)."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._learning_rate_tensor = None

    def _prepare(self):
        lr = self._call_if_callable(self._learning_rate)
        self._learning_rate_tensor = ops.convert_to_tensor(lr, name="learning_rate")

    def _lr(self, var):
        return cast_ops.cast(self._learning_rate_tensor, var.dtype.base_dtype)

    def _apply_dense(self, grad, var):
        return training_ops.as_op(training_ops.apply_gradient_descent(
            var, self._lr(var), grad, use_locking=self._use_locking))

    def _apply_sparse_duplicate_indices(self, grad, var):
        if getattr(var, "_resource", False) is True:
            # TF 1.15's resource form: a scatter-add of -grad times the learning rate as given
            return state_ops.scatter_add(var._ref(), grad.indices,
                                         -grad.values * self._learning_rate,
                                         name="ResourceScatterAdd")
        # ScatterSub adds up repeated indices itself
        delta = IndexedSlices(grad.values * self._lr(var), grad.indices, grad.dense_shape)
        return var.scatter_sub(delta, use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        return self._apply_sparse_duplicate_indices(grad, var)
