"""``tf.contrib.opt``: LazyAdam (sparse updates touch only the rows in the gradient), decoupled
weight decay (AdamW, MomentumW, ``extend_with_decoupled_weight_decay``, Loshchilov and Hutter
2019), Nadam (Adam with Nesterov momentum), and ``ScipyOptimizerInterface`` (SciPy's
minimizers over a graph's loss, when SciPy is installed)."""

import numpy as np

from tideflow.framework import ops
from tideflow.ops import (
    array_ops,
    cast_ops,
    constant_op,
    control_flow_ops,
    gather_ops,
    math_ops,
    reduction_ops,
    state_ops,
)
from tideflow.train.adam import AdamOptimizer
from tideflow.train.momentum import MomentumOptimizer
from tideflow.train.optimizer import Optimizer


class LazyAdamOptimizer(AdamOptimizer):
    """Adam whose sparse updates change ``m``, ``v`` and the variable only in the rows the
    gradient names (dense updates are Adam's)."""

    def _apply_sparse(self, grad, var):
        lr, beta1_t, beta2_t, epsilon_t = self._sparse_hyper(var)
        m = self.get_slot(var, "m")
        v = self.get_slot(var, "v")
        m_rows = beta1_t * gather_ops.gather(m, grad.indices) + (1 - beta1_t) * grad.values
        m_update = state_ops.scatter_update(m, grad.indices, m_rows,
                                            use_locking=self._use_locking)
        v_rows = (beta2_t * gather_ops.gather(v, grad.indices)
                  + (1 - beta2_t) * math_ops.square(grad.values))
        v_update = state_ops.scatter_update(v, grad.indices, v_rows,
                                            use_locking=self._use_locking)
        var_update = state_ops.scatter_sub(var, grad.indices,
                                           lr * m_rows / (math_ops.sqrt(v_rows) + epsilon_t),
                                           use_locking=self._use_locking)
        return control_flow_ops.group(var_update, m_update, v_update)


class NadamOptimizer(AdamOptimizer):
    """Adam with Nesterov momentum (Dozat 2016): the step uses
    ``(1 - beta1) g + beta1 m_t`` in place of ``m_t``."""

    _use_nesterov = True  # the dense step is ApplyAdam's Nesterov form

    def _apply_sparse(self, grad, var):
        lr, beta1_t, beta2_t, epsilon_t = self._sparse_hyper(var)
        m_t, v_t = self._sparse_moments(grad, beta1_t, beta2_t, var)
        # the Nesterov look-ahead (1 - beta1) g + beta1 m_t, g zero outside the gradient's rows
        dense_grad = reduction_ops.unsorted_segment_sum(grad.values, grad.indices,
                                                        array_ops.shape(var)[0])
        m_bar = m_t * beta1_t + dense_grad * (1 - beta1_t)
        var_update = state_ops.assign_sub(
            var, lr * m_bar / (math_ops.sqrt(v_t) + epsilon_t), use_locking=self._use_locking)
        return control_flow_ops.group(var_update, m_t, v_t)


class DecoupledWeightDecayExtension:
    """Mixin for an Optimizer: before each variable's update, ``var -= weight_decay * var``
    (on the gradient's rows for sparse updates), for the variables of ``decay_var_list`` (all
    when it is None). The decay is not scaled by the learning rate, as in the paper."""

    def __init__(self, weight_decay, **kwargs):
        self._decay_var_list = None
        self._weight_decay = weight_decay
        self._weight_decay_tensor = None
        super().__init__(**kwargs)

    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=Optimizer.GATE_OP,
                 aggregation_method=None, colocate_gradients_with_ops=False, name=None,
                 grad_loss=None, decay_var_list=None):
        """``Optimizer.minimize`` that decays only ``decay_var_list`` (all when None)."""
        self._decay_var_list = set(decay_var_list) if decay_var_list is not None else None
        return super().minimize(loss, global_step=global_step, var_list=var_list,
                                gate_gradients=gate_gradients,
                                aggregation_method=aggregation_method,
                                colocate_gradients_with_ops=colocate_gradients_with_ops,
                                name=name, grad_loss=grad_loss)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None, decay_var_list=None):
        """``Optimizer.apply_gradients`` that decays only ``decay_var_list`` (all when None)."""
        if decay_var_list is not None:
            self._decay_var_list = set(decay_var_list)
        return super().apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def _prepare(self):
        weight_decay = self._weight_decay
        if callable(weight_decay):
            weight_decay = weight_decay()
        self._weight_decay_tensor = ops.convert_to_tensor(weight_decay, name="weight_decay")
        super()._prepare()

    def _decays(self, var):
        return self._decay_var_list is None or var in self._decay_var_list

    def _decay_weights_op(self, var):
        if not self._decays(var):
            return control_flow_ops.no_op()
        wd = cast_ops.cast(self._weight_decay_tensor, var.dtype.base_dtype)
        return state_ops.assign_sub(var, wd * var, use_locking=self._use_locking)

    def _decay_weights_sparse_op(self, var, indices):
        if not self._decays(var):
            return control_flow_ops.no_op()
        wd = cast_ops.cast(self._weight_decay_tensor, var.dtype.base_dtype)
        return state_ops.scatter_add(var, indices, -wd * gather_ops.gather(var, indices),
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

    OptimizerWithDecoupledWeightDecay.__name__ = base_optimizer.__name__ + "WithDecay"
    return OptimizerWithDecoupledWeightDecay


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


class ScipyOptimizerInterface:
    """Minimizes ``loss`` over ``var_list`` with ``scipy.optimize.minimize`` (default
    L-BFGS-B), evaluating the loss and its gradient in the session; ``var_to_bounds`` maps a
    variable to ``(low, high)`` bounds, ``equalities``/``inequalities`` are constraint tensors
    (``== 0`` / ``>= 0``)."""

    def __init__(self, loss, var_list=None, equalities=None, inequalities=None,
                 var_to_bounds=None, method="L-BFGS-B", **optimizer_kwargs):
        from tideflow.ops import gradients

        self._loss = ops.convert_to_tensor(loss)
        if var_list is None:
            var_list = ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES)
        if not var_list:
            raise ValueError("No variables to optimize.")
        self._vars = list(var_list)
        self._equalities = list(equalities or [])
        self._inequalities = list(inequalities or [])
        self._bounds = var_to_bounds or {}
        self._method = method
        self._kwargs = optimizer_kwargs
        grads = gradients.gradients(self._loss, self._vars)
        self._grads = [g if g is not None else array_ops.zeros_like(v)
                       for g, v in zip(grads, self._vars, strict=True)]
        self._shapes = [v.get_shape().as_list() for v in self._vars]
        if any(None in s for s in self._shapes):
            raise ValueError("ScipyOptimizerInterface needs fully defined variable shapes.")
        self._sizes = [int(np.prod(s, dtype=np.int64)) for s in self._shapes]
        self._placeholders = [constant_op.placeholder(v.dtype.base_dtype, s)
                              for v, s in zip(self._vars, self._shapes, strict=True)]
        self._assign = control_flow_ops.group(*[
            state_ops.assign(v, p) for v, p in zip(self._vars, self._placeholders, strict=True)])
        self._cons_grads = [[g if g is not None else array_ops.zeros_like(v)
                             for g, v in zip(gradients.gradients(c, self._vars), self._vars,
                                             strict=True)]
                            for c in self._equalities + self._inequalities]

    def _pack(self, arrays):
        return np.concatenate([np.reshape(a, -1).astype(np.float64) for a in arrays])

    def _unpack(self, x):
        out, start = [], 0
        for size, shape in zip(self._sizes, self._shapes, strict=True):
            out.append(np.reshape(x[start:start + size], shape))
            start += size
        return out

    def minimize(self, session=None, feed_dict=None, fetches=None, step_callback=None,
                 loss_callback=None, **run_kwargs):
        """Runs the SciPy minimizer from the variables' current values and assigns the
        result to them."""
        try:
            from scipy import optimize
        except ImportError as e:
            raise ImportError("ScipyOptimizerInterface needs SciPy (pip install scipy).") from e
        from tideflow.framework import ops as _ops

        session = session or _ops.get_default_session()
        feed_dict = dict(feed_dict or {})
        fetches = list(fetches or [])

        def feed_for(x):
            d = dict(feed_dict)
            d.update(zip(self._placeholders, self._unpack(x), strict=True))
            return d

        def set_vars(x):
            session.run(self._assign, feed_for(x), **run_kwargs)

        def loss_and_grad(x):
            set_vars(x)
            loss, grads, *extra = session.run([self._loss, self._grads, *fetches], feed_dict,
                                              **run_kwargs)
            if loss_callback is not None:
                loss_callback(*extra)
            return float(loss), self._pack(grads)

        def constraint(i):
            tensor = (self._equalities + self._inequalities)[i]

            def fun(x):
                set_vars(x)
                return np.reshape(session.run(tensor, feed_dict), -1).astype(np.float64)

            def jac(x):
                set_vars(x)
                grads = session.run(self._cons_grads[i], feed_dict)
                return self._pack(grads)[None, :]

            kind = "eq" if i < len(self._equalities) else "ineq"
            return {"type": kind, "fun": fun, "jac": jac}

        x0 = self._pack(session.run(self._vars))
        bounds = None
        if self._bounds:
            bounds = []
            for v, size in zip(self._vars, self._sizes, strict=True):
                low, high = self._bounds.get(v, (-np.inf, np.inf))
                low = np.broadcast_to(np.asarray(low, np.float64), (size,)) if np.ndim(low) == 0 \
                    else np.reshape(low, -1)
                high = np.broadcast_to(np.asarray(high, np.float64), (size,)) \
                    if np.ndim(high) == 0 else np.reshape(high, -1)
                bounds.extend((None if np.isneginf(lo) else lo, None if np.isposinf(hi) else hi)
                              for lo, hi in zip(low, high, strict=True))
        constraints = [constraint(i)
                       for i in range(len(self._equalities) + len(self._inequalities))]
        callback = (lambda x: step_callback(x)) if step_callback is not None else None
        kwargs = {"method": self._method, "jac": True, "bounds": bounds, "callback": callback,
                  **self._kwargs}
        if constraints:
            kwargs["constraints"] = constraints
        result = optimize.minimize(loss_and_grad, x0, **kwargs)
        set_vars(result.x)
        return result


ExternalOptimizerInterface = ScipyOptimizerInterface

__all__ = ["AdamWOptimizer", "DecoupledWeightDecayExtension", "ExternalOptimizerInterface",
           "LazyAdamOptimizer", "MomentumWOptimizer", "NadamOptimizer",
           "ScipyOptimizerInterface", "extend_with_decoupled_weight_decay"]
