"""Exponential moving averages of variables: ``tf.train.ExponentialMovingAverage`` (shadow
variables ``<var>/ExponentialMovingAverage``) and ``assign_moving_average``."""

from tideflow.framework import dtypes, ops
from tideflow.ops import (
    cast_ops,
    control_flow_ops,
    init_ops,
    math_ops,
    state_ops,
    variable_scope,
)
from tideflow.ops import variables as variables_lib
from tideflow.train import slot_creator


def assign_moving_average(variable, value, decay, zero_debias=True, name=None):
    """``variable -= (variable - value) * (1 - decay)``; returns the updated ref.

    With ``zero_debias`` the average is corrected for its zero start (Adam's bias correction),
    using two helper variables ``<variable>/biased`` and ``<variable>/local_step``.
    """
    # the arithmetic sits by ``variable`` (TF 1.15 puts it on the device in scope, a worker
    # under replica_device_setter, where its read of a ps variable races with that variable's
    # update in the same step; by the variable, a control dependency on the update holds)
    with ops.name_scope(name, "AssignMovingAvg", [variable, value, decay]) as scope, \
            ops.colocate_with(variable):
        decay = ops.convert_to_tensor(1.0 - decay, name="decay")
        if decay.dtype.base_dtype != variable.dtype.base_dtype:
            decay = cast_ops.cast(decay, variable.dtype.base_dtype)
        if zero_debias:
            return _zero_debias(variable, value, decay, scope)
        return state_ops.assign_sub(variable, (variable - value) * decay, name=scope)


def _zero_debias(unbiased_var, value, decay, scope):
    """``unbiased_var`` set to the bias-corrected average (``decay`` is ``1 - decay``): a
    ``biased`` average and a ``local_step`` counter beside it, in TF 1.15's ops and order."""
    with variable_scope.variable_scope(unbiased_var.op.name,
                                       values=[unbiased_var, value, decay]):
        biased_initializer = init_ops.zeros_initializer()
        local_step_initializer = init_ops.zeros_initializer()

        def unique(name):
            current = variable_scope.get_variable_scope()
            if current.reuse:
                return name
            existing = {v.op.name for v in current.global_variables()}
            full = current.name + "/" + name
            if full not in existing:
                return name
            i = 1
            while f"{full}_{i}" in existing:
                i += 1
            return f"{name}_{i}"

        with ops.colocate_with(unbiased_var):
            biased_var = variable_scope.get_variable(
                unique("biased"), initializer=biased_initializer,
                shape=unbiased_var.get_shape(), dtype=unbiased_var.dtype.base_dtype,
                trainable=False)
            local_step = variable_scope.get_variable(
                unique("local_step"), shape=[], dtype=unbiased_var.dtype.base_dtype,
                initializer=local_step_initializer, trainable=False)
    with ops.colocate_with(unbiased_var):
        update_biased = state_ops.assign_sub(biased_var, (biased_var - value) * decay)
        update_local_step = local_step.assign_add(1)
        # (``decay`` is 1 - decay: the exponent's base is the decay)
        bias_factor = 1 - math_ops.pow(1.0 - decay, update_local_step)
        return state_ops.assign(unbiased_var, update_biased / bias_factor, name=scope)


def weighted_moving_average(value, decay, weight, truediv=True, collections=None, name=None):
    """The moving average of ``value`` weighted by ``weight``: two shadow variables
    ``value_x_weight`` and ``weight`` (in ``collections``, default the global variables) follow
    ``value * weight`` and ``weight`` without zero debiasing; returns their ratio."""
    if collections is None:
        collections = [ops.GraphKeys.GLOBAL_VARIABLES]
    with variable_scope.variable_scope(name, "WeightedMovingAvg",
                                       [value, weight, decay]) as scope:
        value = ops.convert_to_tensor(value)
        weight = ops.convert_to_tensor(weight, dtype=value.dtype)
        value_x_weight_var = variable_scope.get_variable(
            "value_x_weight", shape=value.get_shape(), dtype=value.dtype,
            initializer=init_ops.zeros_initializer(), trainable=False, collections=collections)
        weight_var = variable_scope.get_variable(
            "weight", shape=weight.get_shape(), dtype=weight.dtype,
            initializer=init_ops.zeros_initializer(), trainable=False, collections=collections)
        numerator = assign_moving_average(value_x_weight_var, value * weight, decay,
                                          zero_debias=False)
        denominator = assign_moving_average(weight_var, weight, decay, zero_debias=False)
        if truediv:
            return math_ops.truediv(numerator, denominator, name=scope.name)
        return math_ops.div(numerator, denominator, name=scope.name)

class ExponentialMovingAverage:
    """Keeps shadow copies of variables updated as ``shadow -= (1 - decay) * (shadow - var)``.

    ``apply(var_list)`` makes the shadows and returns the op that updates them; with
    ``num_updates`` the decay is ``min(decay, (1 + num_updates) / (10 + num_updates))``.
    """

    def __init__(self, decay, num_updates=None, zero_debias=False,
                 name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages = {}

    @property
    def name(self):
        return self._name

    def apply(self, var_list=None):
        """Creates the shadows of ``var_list`` (default: trainable variables) and returns the
        op that updates them all."""
        if var_list is None:
            var_list = variables_lib.trainable_variables()
        zero_debias_true = set()
        for var in var_list:
            # (TF 1.15 takes bfloat16 too, though its words do not name it)
            if var.dtype.base_dtype not in (dtypes.bfloat16, dtypes.float16, dtypes.float32,
                                            dtypes.float64):
                raise TypeError(f"The variables must be half, float, or double: {var.name}")
            if var in self._averages:
                continue  # TF 1.15: a second apply updates the shadow it already has
            with ops.control_dependencies(None):
                if isinstance(var, variables_lib.Variable):
                    avg = slot_creator.create_slot(var, var.initialized_value(), self.name,
                                                   colocate_with_primary=True)
                    ops.add_to_collection(ops.GraphKeys.MOVING_AVERAGE_VARIABLES, var)
                else:
                    avg = slot_creator.create_zeros_slot(
                        var, self.name,
                        colocate_with_primary=var.op.type in ("Variable", "VariableV2"))
                    if self._zero_debias:
                        zero_debias_true.add(avg)
            self._averages[var] = avg
        with ops.name_scope(self.name) as scope:
            decay = ops.convert_to_tensor(self._decay, name="decay")
            if self._num_updates is not None:
                num_updates = cast_ops.cast(self._num_updates, dtypes.float32,
                                            name="num_updates")
                decay = math_ops.minimum(decay, (1.0 + num_updates) / (10.0 + num_updates))
            updates = [assign_moving_average(self._averages[var], var, decay,
                                             zero_debias=self._averages[var] in zero_debias_true)
                       for var in var_list]
            return control_flow_ops.group(*updates, name=scope)

    def average(self, var):
        """The shadow variable of ``var``, or None."""
        return self._averages.get(var)

    def average_name(self, var):
        """The name the shadow of ``var`` has (or would have)."""
        if var in self._averages:
            return self._averages[var].op.name
        return ops.get_default_graph().unique_name(var.op.name + "/" + self.name,
                                                   mark_as_used=False)

    def variables_to_restore(self, moving_avg_variables=None):
        """A map from checkpoint names to variables that restores the averages in place of the
        variables (for a Saver in evaluation)."""
        name_map = {}
        if moving_avg_variables is None:
            moving_avg_variables = (variables_lib.trainable_variables()
                                    + variables_lib.moving_average_variables())
        moving_avg_variables = set(moving_avg_variables)
        for v in moving_avg_variables:
            name_map[self.average_name(v)] = v
        for v in variables_lib.global_variables():
            if v not in moving_avg_variables and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map
