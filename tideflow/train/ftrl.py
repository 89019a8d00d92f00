"""``tf.train.FtrlOptimizer``: FTRL-Proximal (McMahan et al. 2013), with L1/L2 regularization
and optional L2 shrinkage (ApplyFtrlV2)."""

from tideflow.framework import ops
from tideflow.ops import cast_ops, constant_op, training_ops
from tideflow.train.optimizer import Optimizer


def _non_negative(value, what):
    if value < 0.0:
        raise ValueError(f"{what} {value:f} needs to be positive or zero")


class FtrlOptimizer(Optimizer):
    """FTRL; slots "accum" (``<var>/Ftrl``) and "linear" (``<var>/Ftrl_1``)."""

    def __init__(self, learning_rate, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="Ftrl", accum_name=None, linear_name=None,
                 l2_shrinkage_regularization_strength=0.0):
        super().__init__(use_locking, name)
        _non_negative(initial_accumulator_value, "initial_accumulator_value")
        if learning_rate_power > 0.0:
            raise ValueError(
                f"learning_rate_power {learning_rate_power:f} needs to be negative or zero")
        _non_negative(l1_regularization_strength, "l1_regularization_strength")
        _non_negative(l2_regularization_strength, "l2_regularization_strength")
        _non_negative(l2_shrinkage_regularization_strength,
                      "l2_shrinkage_regularization_strength")
        self._learning_rate = learning_rate
        self._learning_rate_power = learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self._accum_name = accum_name
        self._linear_name = linear_name

    def _create_slots(self, var_list):
        for v in var_list:
            # the accumulator starts from a Const made outside the slot (TF 1.15's ops)
            with ops.colocate_with(v):
                val = constant_op.constant(self._initial_accumulator_value,
                                           dtype=v.dtype.base_dtype, shape=v.get_shape())
                self._get_or_make_slot(v, val, "accum", self._accum_name or self._name)
                self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _prepare(self):
        # no callable rates here (TF 1.15's Ftrl converts its rate as given: a function fails)
        self._learning_rate_tensor = ops.convert_to_tensor(self._learning_rate,
                                                           name="learning_rate")
        self._l1_regularization_strength_tensor = ops.convert_to_tensor(
            self._l1_regularization_strength, name="l1_regularization_strength")
        self._l2_regularization_strength_tensor = ops.convert_to_tensor(
            self._l2_regularization_strength, name="l2_regularization_strength")
        self._l2_shrinkage_regularization_strength_tensor = ops.convert_to_tensor(
            self._l2_shrinkage_regularization_strength,
            name="l2_shrinkage_regularization_strength")
        self._learning_rate_power_tensor = ops.convert_to_tensor(
            self._learning_rate_power, name="learning_rate_power")

    def _hyper(self, var):
        dt = var.dtype.base_dtype
        lr, l1, l2, shrink, power = (cast_ops.cast(t, dt) for t in (
            self._learning_rate_tensor, self._l1_regularization_strength_tensor,
            self._l2_regularization_strength_tensor,
            self._l2_shrinkage_regularization_strength_tensor,
            self._learning_rate_power_tensor))
        if self._l2_shrinkage_regularization_strength <= 0.0:
            return [lr, l1, l2, power]
        return [lr, l1, l2, shrink, power]

    def _apply_dense(self, grad, var):
        hyper = self._hyper(var)
        fn = training_ops.apply_ftrl if len(hyper) == 4 else training_ops.apply_ftrl_v2
        return training_ops.as_op(fn(var, self.get_slot(var, "accum"),
                                     self.get_slot(var, "linear"), grad, *hyper,
                                     use_locking=self._use_locking))

    def _apply_sparse(self, grad, var):
        hyper = self._hyper(var)
        fn = (training_ops.sparse_apply_ftrl if len(hyper) == 4
              else training_ops.sparse_apply_ftrl_v2)
        return training_ops.as_op(fn(var, self.get_slot(var, "accum"),
                                     self.get_slot(var, "linear"), grad.values, grad.indices,
                                     *hyper, use_locking=self._use_locking))
