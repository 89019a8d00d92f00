"""``tf.contrib.opt``: LazyAdam (sparse updates touch only the rows in the gradient), decoupled
weight decay (AdamW, MomentumW, ``extend_with_decoupled_weight_decay``, Loshchilov and Hutter
2019), Nadam (Adam with Nesterov momentum), AdaMax (Adam's infinity-norm variant), AddSign and
PowerSign (Bello et al. 2017) with their sign-decay schedules, ``MovingAverageOptimizer`` (an
optimizer that also keeps moving averages, and a saver that swaps them in), and
``ScipyOptimizerInterface`` (SciPy's minimizers over a graph's loss, when SciPy is installed)."""

import itertools
import math

import numpy as np

from tideflow import logging
from tideflow.framework import ops
from tideflow.ops import (
    array_ops,
    cast_ops,
    concat_ops,
    constant_op,
    control_flow_ops,
    gather_ops,
    math_ops,
    state_ops,
    training_ops,
)
from tideflow.train.adam import AdamOptimizer
from tideflow.train.momentum import MomentumOptimizer
from tideflow.train.optimizer import Optimizer


class LazyAdamOptimizer(AdamOptimizer):
    """Adam whose sparse updates change ``m``, ``v`` and the variable only in the rows the
    gradient names (dense updates are Adam's)."""

    def _apply_sparse(self, grad, var):
        return lazy_adam_rows(self, grad, var, *self._sparse_hyper(var))


def lazy_adam_rows(opt, grad, var, lr, beta1_t, beta2_t, epsilon_t):
    """The lazy Adam step: ``m``, ``v`` and ``var`` change only in ``grad``'s rows, with the
    bias-corrected rate ``lr``."""
    if getattr(var, "_resource", False) is True:
        return _lazy_adam_resource_rows(opt, grad, var, lr, beta1_t, beta2_t, epsilon_t)
    m = opt.get_slot(var, "m")
    v = opt.get_slot(var, "v")
    m_rows = beta1_t * gather_ops.gather(m, grad.indices) + (1 - beta1_t) * grad.values
    m_update = state_ops.scatter_update(m, grad.indices, m_rows, use_locking=opt._use_locking)
    v_rows = (beta2_t * gather_ops.gather(v, grad.indices)
              + (1 - beta2_t) * math_ops.square(grad.values))
    v_update = state_ops.scatter_update(v, grad.indices, v_rows, use_locking=opt._use_locking)
    # the updated rows read back from the slots, as TF 1.15 does (its op count)
    m_t = gather_ops.gather(m_update, grad.indices)
    v_t = gather_ops.gather(v_update, grad.indices)
    denominator = math_ops.sqrt(v_t) + epsilon_t
    var_update = state_ops.scatter_sub(var, grad.indices, lr * m_t / denominator,
                                       use_locking=opt._use_locking)
    return control_flow_ops.group(var_update, m_update, v_update)


def _lazy_adam_resource_rows(opt, grad, var, lr, beta1_t, beta2_t, epsilon_t):
    """TF 1.15's resource form of the lazy step (its ops, so its seeds after minimize): the
    new rows feed the variable's step directly, and the raw scatters read nothing back."""
    indices, values = grad.indices, grad.values
    m, v = opt.get_slot(var, "m"), opt.get_slot(var, "v")
    m_rows = beta1_t * gather_ops.gather(m, indices) + (1 - beta1_t) * values
    m_update = state_ops.scatter_update(m._ref(), indices, m_rows, name="ResourceScatterUpdate")
    v_rows = beta2_t * gather_ops.gather(v, indices) + (1 - beta2_t) * math_ops.square(values)
    v_update = state_ops.scatter_update(v._ref(), indices, v_rows, name="ResourceScatterUpdate")
    step = lr * m_rows / (math_ops.sqrt(v_rows) + epsilon_t)
    var_update = state_ops.scatter_sub(var._ref(), indices, step, name="ResourceScatterSub")
    return control_flow_ops.group(var_update, m_update, v_update)


class NadamOptimizer(AdamOptimizer):
    """Adam with Nesterov momentum (Dozat 2016): the step uses
    ``(1 - beta1) g + beta1 m_t`` in place of ``m_t``. Sparse updates decay all of ``m`` and
    ``v`` (as Adam's) but step only the gradient's rows of the variable, as TF 1.15's."""

    _use_nesterov = True  # the dense step is ApplyAdam's Nesterov form

    def _apply_sparse(self, grad, var):
        # TF 1.15's ops in its order (its seeds after minimize)
        lr, beta1_t, beta2_t, epsilon_t = self._sparse_hyper(var)
        indices, values = grad.indices, grad.values
        m = self.get_slot(var, "m")
        m_scaled = values * (1 - beta1_t)
        m_t = state_ops.assign(m, m * beta1_t, use_locking=self._use_locking)
        with ops.control_dependencies([m_t]):
            m_t = state_ops.scatter_add(m, indices, m_scaled, use_locking=self._use_locking)
            # the Nesterov look-ahead (1 - beta1) g + beta1 m_t on the gradient's rows
            m_bar = m_scaled + beta1_t * gather_ops.gather(m_t, indices)
        v = self.get_slot(var, "v")
        v_scaled = (values * values) * (1 - beta2_t)
        v_t = state_ops.assign(v, v * beta2_t, use_locking=self._use_locking)
        with ops.control_dependencies([v_t]):
            v_t = state_ops.scatter_add(v, indices, v_scaled, use_locking=self._use_locking)
        v_sqrt = math_ops.sqrt(gather_ops.gather(v_t, indices))
        var_update = state_ops.scatter_add(var, indices, -lr * m_bar / (v_sqrt + epsilon_t),
                                           use_locking=self._use_locking)
        return control_flow_ops.group(var_update, m_bar, v_t)


class DecoupledWeightDecayExtension:
    """Mixin for an Optimizer: before each variable's update, ``var -= weight_decay * var``
    (on the gradient's rows for sparse updates), for the variables of ``decay_var_list`` (all
    when it is None). The decay is not scaled by the learning rate, as in the paper."""

    def __init__(self, weight_decay, **kwargs):
        self._decay_var_list = False
        self._weight_decay = weight_decay
        self._weight_decay_tensor = None
        super().__init__(**kwargs)

    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=Optimizer.GATE_OP,
                 aggregation_method=None, colocate_gradients_with_ops=False, name=None,
                 grad_loss=None, decay_var_list=None):
        """``Optimizer.minimize`` that decays only ``decay_var_list`` (all when None)."""
        # as TF 1.15: an empty (or no) list decays every variable
        self._decay_var_list = set(decay_var_list) if decay_var_list else False
        return super().minimize(loss, global_step=global_step, var_list=var_list,
                                gate_gradients=gate_gradients,
                                aggregation_method=aggregation_method,
                                colocate_gradients_with_ops=colocate_gradients_with_ops,
                                name=name, grad_loss=grad_loss)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None, decay_var_list=None):
        """``Optimizer.apply_gradients`` that decays only ``decay_var_list`` (all when None)."""
        self._decay_var_list = set(decay_var_list) if decay_var_list else False
        return super().apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def _prepare(self):
        weight_decay = self._weight_decay
        if callable(weight_decay):
            weight_decay = weight_decay()
        self._weight_decay_tensor = ops.convert_to_tensor(weight_decay, name="weight_decay")
        super()._prepare()

    def _decays(self, var):
        return not self._decay_var_list or var in self._decay_var_list

    def _weight_decay_factor(self, var):  # not `_decay`: RMSProp keeps its rho there
        """The weight decay as TF 1.15 multiplies with it: the value given (a Python number
        becomes the Mul's constant), or the tensor a callable gave."""
        wd = self._weight_decay
        if callable(wd):
            wd = cast_ops.cast(self._weight_decay_tensor, var.dtype.base_dtype)
        return wd

    def _decay_weights_op(self, var):
        if not self._decays(var):
            return control_flow_ops.no_op()
        return state_ops.assign_sub(var, self._weight_decay_factor(var) * var,
                                    use_locking=self._use_locking)

    def _decay_weights_sparse_op(self, var, indices):
        if not self._decays(var):
            return control_flow_ops.no_op()
        return state_ops.scatter_add(var, indices,
                                     -self._weight_decay_factor(var)
                                     * gather_ops.gather(var, indices),
                                     use_locking=self._use_locking)

    def _apply_dense(self, grad, var):
        with ops.control_dependencies([self._decay_weights_op(var)]):
            return super()._apply_dense(grad, var)

    def _apply_sparse(self, grad, var):
        with ops.control_dependencies([self._decay_weights_sparse_op(var, grad.indices)]):
            return super()._apply_sparse(grad, var)


def extend_with_decoupled_weight_decay(base_optimizer):
    """A subclass of ``base_optimizer`` taking ``weight_decay`` first, with decoupled weight
    decay applied before each update."""

    class OptimizerWithDecoupledWeightDecay(DecoupledWeightDecayExtension, base_optimizer):
        def __init__(self, weight_decay, *args, **kwargs):
            super().__init__(weight_decay, *args, **kwargs)

    return OptimizerWithDecoupledWeightDecay  # TF 1.15 keeps this class name


class AdamWOptimizer(DecoupledWeightDecayExtension, AdamOptimizer):
    """Adam with decoupled weight decay."""

    def __init__(self, weight_decay, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 use_locking=False, name="AdamW"):
        super().__init__(weight_decay, learning_rate=learning_rate, beta1=beta1, beta2=beta2,
                         epsilon=epsilon, use_locking=use_locking, name=name)


class MomentumWOptimizer(DecoupledWeightDecayExtension, MomentumOptimizer):
    """Momentum with decoupled weight decay."""

    def __init__(self, weight_decay, learning_rate, momentum, use_locking=False,
                 name="MomentumW", use_nesterov=False):
        super().__init__(weight_decay, learning_rate=learning_rate, momentum=momentum,
                         use_locking=use_locking, name=name, use_nesterov=use_nesterov)


class AdaMaxOptimizer(AdamOptimizer):
    """AdaMax (Kingma and Ba 2015, section 7): ``v`` is the decayed infinity norm
    ``max(beta2 v, |g|)`` and the step ``lr / (1 - beta1^t) m / (v + epsilon)`` (fused:
    ApplyAdaMax). Sparse updates decay ``m`` and ``v`` only in the gradient's rows. Its one
    non-slot variable is ``beta1_power`` (no ``beta2_power``: the step does not use it)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 use_locking=False, name="AdaMax"):
        super().__init__(learning_rate, beta1, beta2, epsilon, use_locking, name)

    def _get_beta_accumulators(self):
        return self._get_non_slot_variable("beta1_power", graph=ops.get_default_graph())

    def _create_slots(self, var_list):
        first_var = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(self._beta1, "beta1_power", first_var)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _finish(self, update_ops, name_scope):
        with ops.control_dependencies(update_ops):
            beta1_power = self._get_beta_accumulators()
            with ops.colocate_with(beta1_power):
                update_beta1 = beta1_power.assign(beta1_power * self._beta1_t,
                                                  use_locking=self._use_locking)
        return control_flow_ops.group(*update_ops, update_beta1, name=name_scope)

    def _apply_dense(self, grad, var):
        dt = var.dtype.base_dtype
        beta1_power = self._get_beta_accumulators()
        return training_ops.as_op(training_ops.apply_ada_max(
            var, self.get_slot(var, "m"), self.get_slot(var, "v"),
            cast_ops.cast(beta1_power, dt), cast_ops.cast(self._lr_t, dt),
            cast_ops.cast(self._beta1_t, dt), cast_ops.cast(self._beta2_t, dt),
            cast_ops.cast(self._epsilon_t, dt), grad, use_locking=self._use_locking))

    def _apply_sparse_shared(self, grad, var, indices, scatter_add, scatter_update):
        # TF 1.15's ops in its order (its seeds after minimize)
        dt = var.dtype.base_dtype
        beta1_power = self._get_beta_accumulators()
        if beta1_power.dtype.base_dtype != dt:
            beta1_power = cast_ops.cast(beta1_power, dt)
        lr_t, beta1_t, beta2_t, epsilon_t = (cast_ops.cast(t, dt) for t in (
            self._lr_t, self._beta1_t, self._beta2_t, self._epsilon_t))
        m_rows = gather_ops.gather(self.get_slot(var, "m"), indices) * beta1_t \
            + grad * (1 - beta1_t)
        with ops.control_dependencies([m_rows]):
            m_t = scatter_update(self.get_slot(var, "m"), indices, m_rows)
        v_rows = math_ops.maximum(gather_ops.gather(self.get_slot(var, "v"), indices) * beta2_t,
                                  math_ops.abs(grad))
        with ops.control_dependencies([v_rows]):
            v_t = scatter_update(self.get_slot(var, "v"), indices, v_rows)
        step = -lr_t / (1 - beta1_power) * (m_rows / (v_rows + epsilon_t))
        with ops.control_dependencies([step]):
            var_update = scatter_add(var, indices, step)
        return control_flow_ops.group(var_update, m_t, v_t)

    def _apply_sparse(self, grad, var):
        if getattr(var, "_resource", False) is True:
            return self._apply_sparse_shared(grad.values, var, grad.indices,
                                             self._resource_scatter_add,
                                             self._resource_scatter_update)
        return self._apply_sparse_shared(
            grad.values, var, grad.indices,
            lambda x, i, v: state_ops.scatter_add(x, i, v, use_locking=self._use_locking),
            lambda x, i, v: state_ops.scatter_update(x, i, v, use_locking=self._use_locking))

    def _resource_scatter_update(self, x, i, v):
        # TF 1.15's raw ResourceScatterUpdate, then a read after it
        with ops.control_dependencies([state_ops.scatter_update(x._ref(), i, v,
                                                                name="ResourceScatterUpdate")]):
            return x.value()


class _SignOptimizer(Optimizer):
    """The AddSign/PowerSign family: a moving average ``m`` of the gradient (slot "m"), and
    each gradient scaled up where its sign agrees with ``m``'s and down where it does not;
    ``sign_decay_fn(global_step)`` anneals that agreement term (1 without it)."""

    _fused = None  # the ApplyAddSign / ApplyPowerSign wrapper

    def __init__(self, learning_rate, beta, sign_decay_fn, use_locking, name):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._beta = beta
        self._sign_decay_fn = sign_decay_fn
        self._sign_decay_t = None

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        if self._sign_decay_fn is not None:
            self._sign_decay_t = ops.convert_to_tensor(self._sign_decay_fn(global_step),
                                                       name="sign_decay")
        return super().apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "m", self._name)

    def _prepare(self):
        # TF 1.15's names
        self._lr_t = ops.convert_to_tensor(self._call_if_callable(self._lr),
                                           name="learning_rate")
        self._beta_t = ops.convert_to_tensor(self._beta, name="beta")
        # kept as TF 1.15 names it: _alpha_t (AddSign) or _logbase_t (PowerSign)
        setattr(self, f"_{self._base_name}_t",
                ops.convert_to_tensor(self._base_value(), name=self._base_name))
        if self._sign_decay_fn is None:
            self._sign_decay_t = ops.convert_to_tensor(1.0, name="sign_decay")

    @property
    def _base_t(self):
        return getattr(self, f"_{self._base_name}_t")

    def _hyper(self, var):
        dt = var.dtype.base_dtype
        return [cast_ops.cast(t, dt) for t in (self._lr_t, self._base_t, self._sign_decay_t,
                                                self._beta_t)]

    def _apply_dense(self, grad, var):
        lr, base, sign_decay, beta = self._hyper(var)
        return training_ops.as_op(type(self)._fused(
            var, self.get_slot(var, "m"), lr, base, sign_decay, beta, grad,
            use_locking=self._use_locking))

    def _apply_sparse(self, grad, var):
        if getattr(var, "_resource", False) is True:
            raise NotImplementedError()  # TF 1.15 has no resource sparse update for these
        # TF 1.15's ops in its order: the whole slot decayed and the gradient added densely
        dt = var.dtype.base_dtype
        lr = cast_ops.cast(self._lr_t, dt)
        beta, base, e = self._sparse_consts(dt)
        m = self.get_slot(var, "m")
        m_t = state_ops.assign(m, (m * beta) + (grad * (1 - beta)),
                               use_locking=self._use_locking)
        sign_g = math_ops.sign(grad.values)
        sign_gm = gather_ops.gather(math_ops.sign(m_t), grad.indices) * sign_g
        sign_decay = cast_ops.cast(self._sign_decay_t, dt)
        scale = self._sparse_scale(base, sign_decay, sign_gm, e)
        var_update = state_ops.scatter_sub(var, grad.indices, lr * scale * grad.values,
                                           use_locking=self._use_locking)
        return control_flow_ops.group(var_update, m_t)


class AddSignOptimizer(_SignOptimizer):
    """AddSign: ``var -= lr (alpha + sign_decay sign(g) sign(m)) g`` (fused: ApplyAddSign)."""

    _fused = staticmethod(training_ops.apply_add_sign)
    _base_name = "alpha"

    def __init__(self, learning_rate=0.1, alpha=1.0, beta=0.9, sign_decay_fn=None,
                 use_locking=False, name="AddSignOptimizer"):
        super().__init__(learning_rate, beta, sign_decay_fn, use_locking, name)
        self._alpha = alpha

    def _base_value(self):
        return self._alpha

    @staticmethod
    def _scale(alpha, agree):
        return alpha + agree

    def _sparse_consts(self, dt):
        alpha = cast_ops.cast(self._base_t, dt)  # (TF 1.15's order: alpha, then beta)
        return cast_ops.cast(self._beta_t, dt), alpha, None

    @staticmethod
    def _sparse_scale(alpha, sign_decay, sign_gm, _):
        return alpha + sign_decay * sign_gm


class PowerSignOptimizer(_SignOptimizer):
    """PowerSign: ``var -= lr base^(sign_decay sign(g) sign(m)) g`` (fused: ApplyPowerSign
    with ``logbase = ln(base)``)."""

    _fused = staticmethod(training_ops.apply_power_sign)
    _base_name = "logbase"

    def __init__(self, learning_rate=0.1, base=math.e, beta=0.9, sign_decay_fn=None,
                 use_locking=False, name="PowerSignOptimizer"):
        super().__init__(learning_rate, beta, sign_decay_fn, use_locking, name)
        self._logbase = math.log(base)

    def _base_value(self):
        return self._logbase

    @staticmethod
    def _scale(logbase, agree):
        return math_ops.exp(logbase * agree)

    def _sparse_consts(self, dt):
        beta = cast_ops.cast(self._beta_t, dt)
        logbase = cast_ops.cast(self._base_t, dt)
        return beta, logbase, cast_ops.cast(math.e, dt)

    @staticmethod
    def _sparse_scale(logbase, sign_decay, sign_gm, e):
        return math_ops.pow(e, logbase * sign_decay * sign_gm)


def _capped_step(global_step, decay_steps):
    if global_step is None:
        raise ValueError("global_step is required for the sign decay functions.")
    return cast_ops.to_float(math_ops.minimum(global_step, decay_steps))


def get_linear_decay_fn(decay_steps):
    """``global_step -> max(0, (decay_steps - step) / decay_steps)``."""

    def linear_decay_fn(global_step):
        step = _capped_step(global_step, decay_steps)
        return math_ops.maximum(0.0, (float(decay_steps) - step) / float(decay_steps))

    return linear_decay_fn


def get_cosine_decay_fn(decay_steps, num_periods=0.5, zero_after=None):
    """``global_step -> 0.5 (1 + cos(2 pi num_periods step / decay_steps))`` (the step capped
    at ``decay_steps``); 0 once ``2 num_periods step / decay_steps >= 2 zero_after``."""

    def cosine_decay_fn(global_step):
        fraction = 2.0 * num_periods * _capped_step(global_step, decay_steps) / float(
            decay_steps)
        decayed = 0.5 * (1.0 + math_ops.cos(math.pi * fraction))
        if zero_after is not None:
            decayed = array_ops.where(fraction >= 2 * zero_after,
                                      array_ops.zeros_like(decayed), decayed)
        return decayed

    return cosine_decay_fn


def get_restart_decay_fn(decay_steps, num_periods=1, zero_after=None):
    """``global_step -> 0.5 (1 + cos(pi ((num_periods step) mod decay_steps) / decay_steps))``
    (warm restarts, the step capped at ``decay_steps``); 0 once ``num_periods step /
    decay_steps >= zero_after``."""

    def restart_decay_fn(global_step):
        step = _capped_step(global_step, decay_steps)
        fraction = math_ops.mod(num_periods * step, float(decay_steps)) / float(decay_steps)
        decayed = 0.5 * (1.0 + math_ops.cos(math.pi * fraction))
        if zero_after is not None:
            decayed = array_ops.where(num_periods * step / float(decay_steps) >= zero_after,
                                      array_ops.zeros_like(decayed), decayed)
        return decayed

    return restart_decay_fn


class MovingAverageOptimizer(Optimizer):
    """Wraps ``opt``: ``apply_gradients`` also updates an ExponentialMovingAverage of the
    trained variables (after the step, with ``sequential_update``), and
    :meth:`swapping_saver` saves each variable's average under the variable's name and
    restores it into the variable (evaluation with the averaged weights)."""

    def __init__(self, opt, average_decay=0.9999, num_updates=None, sequential_update=True):
        from tideflow.train.moving_averages import ExponentialMovingAverage

        self._optimizer = opt
        self._ema = ExponentialMovingAverage(average_decay, num_updates=num_updates)
        self._swapped = None
        self._sequential_update = sequential_update

    def __getattr__(self, name):  # slots, names, ... of the wrapped optimizer
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.__dict__["_optimizer"], name)

    def compute_gradients(self, *args, **kwargs):
        return self._optimizer.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        grads_and_vars = list(grads_and_vars)
        train_op = self._optimizer.apply_gradients(grads_and_vars, global_step=global_step,
                                                   name=name)
        var_list = [v for g, v in grads_and_vars if g is not None]
        if self._sequential_update:
            with ops.control_dependencies([train_op]):
                ma_op = self._ema.apply(var_list)
        else:
            ma_op = self._ema.apply(var_list)
        self._swapped = {}
        for v in var_list:
            avg = self._ema.average(v)
            self._swapped[v.op.name] = avg.op.name
            self._swapped[avg.op.name] = v.op.name
        return control_flow_ops.group(train_op, ma_op, name="train_with_avg")

    def swapping_saver(self, var_list=None, name="swapping_saver", **kwargs):
        """A Saver whose checkpoint holds each average under its variable's name (and the
        variable under the average's), so restoring it loads the averages into the
        variables."""
        from tideflow.ops import variables
        from tideflow.train import saveable
        from tideflow.train.saver import Saver

        if self._swapped is None:
            raise RuntimeError("Must call apply_gradients or minimize before creating the "
                               "swapping_saver")  # TF 1.15's words
        if var_list is None:
            var_list = variables.global_variables()
        if not isinstance(var_list, dict):
            var_list = saveable.op_list_to_dict(var_list)
        # as TF 1.15: a single entry is known (and swapped) by its checkpoint key, a list's
        # parts by their op names; a missing counterpart fails where it is first needed
        by_name = {}
        for key, value in var_list.items():
            if isinstance(value, list | variables.PartitionedVariable):
                by_name.update((v.op.name, v) for v in value)
            else:
                by_name[key] = value

        def swap(v_name, value):
            other = self._swapped.get(v_name)
            if other is None:
                return value
            if other not in by_name:
                raise ValueError(f"Variable to swap {other} is not part of variables to "
                                 "save. This breaks MovingAverageOptimizer.")
            return by_name[other]

        swapped = {}
        for key, value in var_list.items():
            if isinstance(value, list):
                swapped[key] = [swap(v.op.name, v) for v in value]
            else:
                swapped[key] = swap(key, value)
        return Saver(swapped, name=name, **kwargs)


def _doubles(fn):
    def as_doubles(x):
        return np.asarray(fn(x), np.float64)
    return as_doubles


class ExternalOptimizerInterface:
    """Minimizes ``loss`` over ``var_list`` with an optimizer outside the graph, evaluating
    the loss and its gradient in the session with the variables fed; ``var_to_bounds`` maps a
    variable to ``(low, high)`` bounds, ``equalities``/``inequalities`` are constraint tensors
    (``== 0`` / ``>= 0``). The graph is TF 1.15's: per variable an update placeholder,
    reshape and assign, then the gradients and their packed (reshaped, concatenated) forms.
    A subclass implements ``_minimize`` with TF 1.15's arguments."""

    def __init__(self, loss, var_list=None, equalities=None, inequalities=None,
                 var_to_bounds=None, **optimizer_kwargs):
        from tideflow.ops import gradients

        self._loss = loss
        self._equalities = equalities or []
        self._inequalities = inequalities or []
        if var_list is None:
            self._vars = ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES)
        else:
            self._vars = list(var_list)
        self._packed_bounds = None
        if var_to_bounds is not None:
            low, high = [], []
            for var in self._vars:
                shape = var.get_shape().as_list()
                bounds = var_to_bounds.get(var, (-np.inf, np.inf))
                low.extend(np.broadcast_to(bounds[0], shape).flat)
                high.extend(np.broadcast_to(bounds[1], shape).flat)
            self._packed_bounds = list(zip(low, high, strict=True))
        self._update_placeholders = [constant_op.placeholder(v.dtype) for v in self._vars]
        self._var_updates = [
            v.assign(array_ops.reshape(p, v.get_shape().as_list()))
            for v, p in zip(self._vars, self._update_placeholders, strict=True)]

        def grads_of(tensor):
            grads = gradients.gradients(tensor, self._vars)
            return [g if g is not None else array_ops.zeros_like(v)
                    for v, g in zip(self._vars, grads, strict=True)]

        loss_grads = grads_of(loss)
        equality_grads = [grads_of(t) for t in self._equalities]
        inequality_grads = [grads_of(t) for t in self._inequalities]
        self.optimizer_kwargs = optimizer_kwargs
        self._packed_var = self._pack(self._vars)
        self._packed_loss_grad = self._pack(loss_grads)
        self._packed_equality_grads = [self._pack(g) for g in equality_grads]
        self._packed_inequality_grads = [self._pack(g) for g in inequality_grads]
        self._var_shapes = [v.get_shape().as_list() for v in self._vars]
        ends = np.cumsum([0] + [int(np.prod(s, dtype=np.int64)) for s in self._var_shapes])
        self._packing_slices = [slice(int(a), int(b)) for a, b in itertools.pairwise(ends)]

    @staticmethod
    def _pack(tensors):
        if not tensors:
            return None
        if len(tensors) == 1:
            return array_ops.reshape(tensors[0], [-1])
        return concat_ops.concat([array_ops.reshape(t, [-1]) for t in tensors], 0)

    def _eval_func(self, tensors, session, feed_dict, fetches, callback=None):
        """A function of the packed point: ``tensors``' values with the variables fed."""
        if not isinstance(tensors, list):
            tensors = [tensors]

        def eval_func(x):
            fed = {v: x[sl].reshape(shape) for v, sl, shape
                   in zip(self._vars, self._packing_slices, self._var_shapes, strict=True)}
            fed.update(feed_dict)
            vals = session.run(tensors + fetches, feed_dict=fed)
            if callable(callback):
                callback(*vals[len(tensors):])
            return vals[:len(tensors)]
        return eval_func

    def minimize(self, session=None, feed_dict=None, fetches=None, step_callback=None,
                 loss_callback=None, **run_kwargs):
        """Runs ``_minimize`` from the variables' current values and assigns the result to
        them (returns None, as TF)."""
        session = session or ops.get_default_session()
        feed_dict = feed_dict or {}
        fetches = fetches or []
        loss_callback = loss_callback or (lambda *fetches: None)
        step_callback = step_callback or (lambda xk: None)
        loss_grad = self._eval_func([self._loss, self._packed_loss_grad], session, feed_dict,
                                    fetches, loss_callback)

        def funcs(tensors):
            return [self._eval_func(t, session, feed_dict, fetches) for t in tensors]

        x = self._minimize(
            initial_val=session.run(self._packed_var), loss_grad_func=loss_grad,
            equality_funcs=funcs(self._equalities),
            equality_grad_funcs=funcs(self._packed_equality_grads),
            inequality_funcs=funcs(self._inequalities),
            inequality_grad_funcs=funcs(self._packed_inequality_grads),
            packed_bounds=self._packed_bounds, step_callback=step_callback,
            optimizer_kwargs=self.optimizer_kwargs)
        session.run(self._var_updates,
                    feed_dict=dict(zip(self._update_placeholders,
                                       [x[sl] for sl in self._packing_slices], strict=True)),
                    **run_kwargs)

    def _minimize(self, initial_val, loss_grad_func, equality_funcs, equality_grad_funcs,
                  inequality_funcs, inequality_grad_funcs, packed_bounds, step_callback,
                  optimizer_kwargs):
        """The packed minimizer of the loss (what a subclass implements)."""
        raise NotImplementedError(
            "To use ExternalOptimizerInterface, subclass from it and implement the _minimize() "
            "method.")


class ScipyOptimizerInterface(ExternalOptimizerInterface):
    """``ExternalOptimizerInterface`` on ``scipy.optimize.minimize`` (default L-BFGS-B)."""

    _DEFAULT_METHOD = "L-BFGS-B"

    def _minimize(self, initial_val, loss_grad_func, equality_funcs, equality_grad_funcs,
                  inequality_funcs, inequality_grad_funcs, packed_bounds, step_callback,
                  optimizer_kwargs):
        try:
            from scipy import optimize
        except ImportError as e:
            raise ImportError("ScipyOptimizerInterface needs SciPy (pip install scipy).") from e

        def loss_grad_wrapper(x):
            loss, grad = loss_grad_func(x)
            return loss, grad.astype("float64")  # L-BFGS-B's Fortran wants doubles

        kwargs = dict(optimizer_kwargs)
        method = kwargs.pop("method", self._DEFAULT_METHOD)
        # doubles, as SciPy of TF 1.15's time made them (SciPy 1.16's SLSQP takes no floats)
        constraints = [{"type": kind, "fun": _doubles(f), "jac": _doubles(g)}
                       for kind, fs, gs in (("eq", equality_funcs, equality_grad_funcs),
                                            ("ineq", inequality_funcs, inequality_grad_funcs))
                       for f, g in zip(fs, gs, strict=True)]
        fixed = {"jac": True, "callback": step_callback, "method": method,
                 "constraints": constraints, "bounds": packed_bounds}
        for key in fixed:
            if key in kwargs:
                if key == "bounds":
                    raise ValueError("Bounds must be set using the var_to_bounds argument")
                raise ValueError(f"Optimizer keyword arg '{key}' is set automatically and "
                                 f"cannot be injected manually")
        fixed.update(kwargs)
        result = optimize.minimize(loss_grad_wrapper, np.asarray(initial_val, np.float64),
                                   **fixed)
        lines, args = ["Optimization terminated with:", "  Message: %s",
                       "  Objective function value: %f"], [result.message, result.fun]
        # the counts some methods report (TF 1.15 logs what there is)
        for key, words in (("nit", "  Number of iterations: %d"),
                           ("nfev", "  Number of functions evaluations: %d")):
            if key in result:
                lines.append(words)
                args.append(result[key])
        logging.info("\n".join(lines), *args)
        return result["x"]


__all__ = ["AdaMaxOptimizer", "AdamWOptimizer", "AddSignOptimizer",
           "DecoupledWeightDecayExtension", "ExternalOptimizerInterface", "LazyAdamOptimizer",
           "MomentumWOptimizer", "MovingAverageOptimizer", "NadamOptimizer",
           "PowerSignOptimizer", "ScipyOptimizerInterface", "extend_with_decoupled_weight_decay",
           "get_cosine_decay_fn", "get_linear_decay_fn", "get_restart_decay_fn"]
