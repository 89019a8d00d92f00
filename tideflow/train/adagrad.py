"""``tf.train.AdagradOptimizer``: ``accum += grad**2; var -= lr * grad / sqrt(accum)``."""

from tideflow.framework import ops
from tideflow.ops import array_ops, cast_ops, fill_ops, init_ops, training_ops
from tideflow.train.optimizer import Optimizer


class AdagradOptimizer(Optimizer):
    """Adagrad; one slot "accumulator" per variable (``<var>/Adagrad``)."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False,
                 name="Adagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError(
                f"initial_accumulator_value must be positive: {initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value

    def _create_slots(self, var_list):
        for v in var_list:
            dtype = v.dtype.base_dtype
            if v.get_shape().is_fully_defined():
                init = init_ops.constant_initializer(self._initial_accumulator_value,
                                                     dtype=dtype)
            else:
                init = self._init_constant_op(v, dtype)
            self._get_or_make_slot_with_initializer(
                v, init, v.get_shape(), dtype, "accumulator", self._name)

    def _init_constant_op(self, v, dtype):
        # a variable of unknown static shape: the accumulator is filled to its runtime shape
        def init():
            return fill_ops.fill(array_ops.shape(v),
                                 cast_ops.cast(self._initial_accumulator_value, dtype))

        return init

    def _prepare(self):
        self._learning_rate_tensor = ops.convert_to_tensor(
            self._call_if_callable(self._learning_rate), name="learning_rate")

    def _apply_dense(self, grad, var):
        return training_ops.as_op(training_ops.apply_adagrad(
            var, self.get_slot(var, "accumulator"),
            cast_ops.cast(self._learning_rate_tensor, var.dtype.base_dtype), grad,
            use_locking=self._use_locking))

    def _apply_sparse(self, grad, var):
        return training_ops.as_op(training_ops.sparse_apply_adagrad(
            var, self.get_slot(var, "accumulator"),
            cast_ops.cast(self._learning_rate_tensor, var.dtype.base_dtype), grad.values,
            grad.indices, use_locking=self._use_locking))
