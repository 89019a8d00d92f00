"""``tf.contrib.opt``'s wrappers and smaller optimizers: VariableClipping (max-norm constraints
after each step), DropStaleGradient (skips updates computed too many steps ago), the multitask
wrapper (all-zero gradients leave the optimizer's state alone), RegAdagrad, LARS, Adam
driven by the global step (AdamGS, LazyAdamGS), and GGT's windowed full-matrix preconditioning."""

import contextlib

import numpy as np

from tideflow import logging as tf_logging
from tideflow.framework import dtypes, ops
from tideflow.framework.indexed_slices import IndexedSlices
from tideflow.ops import (
    array_ops,
    cast_ops,
    clip_ops,
    control_flow_ops,
    gather_ops,
    init_ops,
    linalg_ops,
    math_ops,
    norm_ops,
    range_ops,
    reduction_ops,
    state_ops,
    svd_ops,
    training_ops,
    variable_scope,
)
from tideflow.ops import cond as cond_lib
from tideflow.train import training_util
from tideflow.train.adagrad import AdagradOptimizer
from tideflow.train.optimizer import Optimizer


class _Delegating(Optimizer):
    """An optimizer that wraps ``opt``: gradients and slots are ``opt``'s."""

    def __init__(self, opt, use_locking, name):
        super().__init__(use_locking, name)
        self._opt = opt

    def compute_gradients(self, *args, **kwargs):
        return self._opt.compute_gradients(*args, **kwargs)

    def get_slot(self, *args, **kwargs):
        return self._opt.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._opt.get_slot_names(*args, **kwargs)

    def variables(self):
        return self._opt.variables()


class VariableClippingOptimizer(_Delegating):
    """Runs ``opt``'s update, then rescales each variable of ``vars_to_clip_dims`` so that its
    slices along the given dims have an L2 norm of at most ``max_norm``. With a sparse
    gradient only the updated rows are clipped (unless dim 0 is clipped: then all of it)."""

    def __init__(self, opt, vars_to_clip_dims, max_norm, use_locking=False,
                 colocate_clip_ops_with_vars=False, name="VariableClipping"):
        super().__init__(opt, use_locking, name)
        self._vars_to_clip_dims = {var: list(dims) for var, dims in vars_to_clip_dims.items()}
        self._max_norm = max_norm
        self._colocate_clip_ops_with_vars = colocate_clip_ops_with_vars

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        grads_and_vars = list(grads_and_vars)
        with ops.name_scope(name, self._name) as scope:
            update_op = self._opt.apply_gradients(grads_and_vars, global_step=global_step)
            clip_ops_list = []
            with ops.control_dependencies([update_op]):
                for grad, var in grads_and_vars:
                    if grad is None or var not in self._vars_to_clip_dims:
                        continue
                    with ops.name_scope("clip_" + var.op.name):
                        if isinstance(grad, IndexedSlices):
                            clip_ops_list.append(self._clip_sparse(grad, var))
                        else:
                            clip_ops_list.append(self._clip_dense(var))
            return control_flow_ops.group(update_op, *clip_ops_list, name=scope)

    def _colocation(self, var):
        if self._colocate_clip_ops_with_vars:
            return ops.colocate_with(var)
        return contextlib.nullcontext()

    def _clip_dense(self, var):
        with self._colocation(var):
            value = var._ref()
            delta = value - clip_ops.clip_by_norm(value, self._max_norm,
                                                  self._vars_to_clip_dims[var])
        with ops.colocate_with(var):
            return state_ops.assign_sub(var, delta, use_locking=self._use_locking)

    def _clip_sparse(self, grad, var):
        dims = self._vars_to_clip_dims[var]
        if 0 in dims:
            tf_logging.warning("Clipping norm across dims %s for %s is inefficient when "
                               "including sparse dimension 0.", dims, var.op.name)
            return self._clip_dense(var)
        with ops.colocate_with(var):
            rows = gather_ops.gather(var, grad.indices)
        with self._colocation(var):
            delta = rows - clip_ops.clip_by_norm(rows, self._max_norm, dims)
        with ops.colocate_with(var):
            return state_ops.scatter_sub(var, grad.indices, delta,
                                         use_locking=self._use_locking)


class DropStaleGradientOptimizer(_Delegating):
    """Applies ``opt``'s update only when the global step has advanced at most ``staleness``
    steps since ``compute_gradients`` read it; the variable ``stale_counter`` counts the
    dropped updates (and the summary "Gradient staleness percentage" their share)."""

    def __init__(self, opt, staleness, use_locking=False, name="DropStaleGradient"):
        super().__init__(opt, use_locking, name)
        self._staleness = staleness
        self._local_step = None

    def compute_gradients(self, loss, *args, **kwargs):
        # the step the gradients are computed at, read before the loss
        with ops.colocate_with(loss):
            self._local_step = training_util.get_global_step() + 0
        with ops.control_dependencies([self._local_step]):
            loss = array_ops.identity(loss)
            return self._opt.compute_gradients(loss, *args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        from tideflow.summary import summary as summary_lib

        grads_and_vars = list(grads_and_vars)
        with ops.colocate_with(global_step):
            stale_counter = variable_scope.get_variable(
                "stale_counter", [], initializer=init_ops.zeros_initializer(), trainable=False)

        def accept():
            with ops.control_dependencies(
                    [self._opt.apply_gradients(grads_and_vars, global_step=global_step,
                                               name=name)]):
                return array_ops.identity(0.0)

        def drop():
            return array_ops.identity(1.0)

        gradients = []
        for grad, _ in grads_and_vars:
            if isinstance(grad, ops.Tensor):
                gradients.append(grad)
            elif grad is not None:
                gradients.append(grad.op)
        with ops.control_dependencies(gradients), ops.colocate_with(global_step):
            staleness = array_ops.reshape(global_step - self._local_step, shape=())
        update = stale_counter.assign_add(cond_lib.cond(
            math_ops.less_equal(staleness, self._staleness), accept, drop))
        summary_lib.scalar("Gradient staleness percentage",
                           stale_counter / cast_ops.cast(global_step + 1, dtypes.float32))
        return update


def _is_all_zeros(grad):
    return math_ops.equal(reduction_ops.count_nonzero(grad), 0)


def _skip_all_zeros(fn):
    def update(grad, *args, **kwargs):
        def run():
            with ops.control_dependencies([fn(grad, *args, **kwargs)]):
                return control_flow_ops.no_op()

        return cond_lib.cond(_is_all_zeros(grad), control_flow_ops.no_op, run)

    return update


class MultitaskOptimizerWrapper:
    """Wraps ``opt`` so that a variable whose gradient is all zeros (a task absent from the
    batch) is left alone, its slots included; everything else is ``opt``'s."""

    def __init__(self, opt):
        if not isinstance(opt, Optimizer):
            raise TypeError("Supplied optimizer must be an instance of tf.train.Optimizer")
        self._opt = opt
        for name in ("_apply_dense", "_apply_sparse"):
            setattr(opt, name, _skip_all_zeros(getattr(opt, name)))

    def __getattr__(self, name):
        return getattr(self._opt, name)


def clip_gradients_by_global_norm(gradients_variables, clip_norm=20.0):
    """``clip_by_global_norm`` of the gradients with all-zero ones left out of the norm;
    returns ``(clipped (gradient, variable) pairs, that norm)``."""
    gradients, variables = zip(*gradients_variables)

    def counted(grad):
        if grad is None:
            return None
        return cond_lib.cond(
            _is_all_zeros(grad), lambda: array_ops.zeros([], dtype=grad.dtype), lambda: grad)

    norm = clip_ops.global_norm([counted(g) for g in gradients])
    clipped, _ = clip_ops.clip_by_global_norm(gradients, clip_norm, use_norm=norm)
    return list(zip(clipped, variables)), norm


class RegAdagradOptimizer(AdagradOptimizer):
    """Adagrad whose accumulators can be frozen: inside ``avoid_updating_slots()`` the update
    uses the accumulator without adding the new squared gradient (for regularizer steps)."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False,
                 name="RegAdagrad"):
        super().__init__(learning_rate, initial_accumulator_value=initial_accumulator_value,
                         use_locking=use_locking, name=name)
        self._should_update_slots = True

    @contextlib.contextmanager
    def avoid_updating_slots(self):
        old = self._should_update_slots
        self._should_update_slots = False
        try:
            yield
        finally:
            self._should_update_slots = old

    def _apply_dense(self, grad, var):
        return training_ops.apply_adagrad(
            var, self.get_slot(var, "accumulator"),
            cast_ops.cast(self._learning_rate_tensor, var.dtype.base_dtype), grad,
            use_locking=self._use_locking, update_slots=self._should_update_slots).op

    def _apply_sparse(self, grad, var):
        return training_ops.sparse_apply_adagrad(
            var, self.get_slot(var, "accumulator"),
            cast_ops.cast(self._learning_rate_tensor, var.dtype.base_dtype), grad.values,
            grad.indices, use_locking=self._use_locking,
            update_slots=self._should_update_slots).op


class LARSOptimizer(Optimizer):
    """Layer-wise Adaptive Rate Scaling (You, Gitman and Ginsburg 2017): momentum whose
    learning rate is scaled per variable by ``eeta |w| / (|g| + weight_decay |w| + epsilon)``
    (1 where either norm is 0, or for variables named by ``skip_list``); sparse gradients
    take plain momentum steps."""

    def __init__(self, learning_rate, momentum=0.9, weight_decay=0.0001, eeta=0.001,
                 epsilon=0.0, name="LARSOptimizer", skip_list=None, use_nesterov=False):
        if momentum < 0.0:
            raise ValueError(f"momentum should be positive: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"weight_decay should be positive: {weight_decay}")
        super().__init__(use_locking=False, name=name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._weight_decay = weight_decay
        self._eeta = eeta
        self._epsilon = epsilon
        self._skip_list = skip_list
        self._use_nesterov = use_nesterov
        self._learning_rate_tensor = self._momentum_tensor = None

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def compute_lr(self, grad, var):
        """The learning rate scaled by the trust ratio of ``var`` and its gradient."""
        if self._skip_list is not None and any(s in var.name for s in self._skip_list):
            return self._learning_rate
        w_norm = norm_ops.norm(var, ord=2)
        g_norm = norm_ops.norm(grad, ord=2)
        ratio = array_ops.where(
            math_ops.greater(w_norm, 0),
            array_ops.where(math_ops.greater(g_norm, 0),
                            self._eeta * w_norm
                            / (g_norm + self._weight_decay * w_norm + self._epsilon), 1.0),
            1.0)
        return self._learning_rate * ratio

    def _prepare(self):
        c = self._call_if_callable
        self._learning_rate_tensor = ops.convert_to_tensor(c(self._learning_rate),
                                                           name="learning_rate")
        self._momentum_tensor = ops.convert_to_tensor(c(self._momentum), name="momentum")

    def _apply_dense(self, grad, var):
        return training_ops.apply_momentum(
            var, self.get_slot(var, "momentum"), self.compute_lr(grad, var), grad,
            self._momentum, use_locking=False, use_nesterov=self._use_nesterov)

    def _apply_sparse(self, grad, var):
        dt = var.dtype.base_dtype
        return training_ops.sparse_apply_momentum(
            var, self.get_slot(var, "momentum"), cast_ops.cast(self._learning_rate_tensor, dt),
            grad.values, grad.indices, cast_ops.cast(self._momentum_tensor, dt),
            use_locking=self._use_locking, use_nesterov=self._use_nesterov).op


class AdamGSOptimizer(Optimizer):
    """Adam whose bias corrections come from ``global_step`` (``beta ** (step + 1)``) rather
    than from beta-power variables of its own; slots "m" and "v" as Adam's. Sparse updates
    decay all of ``m`` and ``v``."""

    def __init__(self, global_step=0, learning_rate=0.001, beta1=0.9, beta2=0.999,
                 epsilon=1e-8, use_locking=False, name="Adam"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon
        self._global_step = global_step
        self._global_step_on_worker = None
        self._lr_t = self._beta1_t = self._beta2_t = self._epsilon_t = None

    def _get_beta_accumulators(self):
        return (math_ops.pow(self._beta1_t, self._global_step_on_worker),
                math_ops.pow(self._beta2_t, self._global_step_on_worker))

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self):
        from tideflow.train.adam import AdamOptimizer

        AdamOptimizer._prepare(self)  # the same hyperparameter tensors as Adam's
        # one read of the step per apply_gradients, taken where the update runs
        self._global_step_on_worker = cast_ops.cast(
            array_ops.identity(self._global_step) + 1, dtypes.float32)

    def _hyper(self, var):
        """(beta1_power, beta2_power, lr, beta1, beta2, epsilon) in the variable's dtype."""
        dt = var.dtype.base_dtype
        beta1_power, beta2_power = self._get_beta_accumulators()
        return tuple(cast_ops.cast(x, dt) for x in (
            beta1_power, beta2_power, self._lr_t, self._beta1_t, self._beta2_t,
            self._epsilon_t))

    def _apply_dense(self, grad, var):
        return training_ops.apply_adam(
            var, self.get_slot(var, "m"), self.get_slot(var, "v"), *self._hyper(var), grad,
            use_locking=self._use_locking).op

    def _apply_sparse(self, grad, var):
        beta1_power, beta2_power, lr_t, beta1_t, beta2_t, epsilon_t = self._hyper(var)
        lr = lr_t * math_ops.sqrt(1 - beta2_power) / (1 - beta1_power)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_t = state_ops.assign(m, m * beta1_t, use_locking=self._use_locking)
        with ops.control_dependencies([m_t]):
            m_t = state_ops.scatter_add(m, grad.indices, grad.values * (1 - beta1_t),
                                        use_locking=self._use_locking)
        v_t = state_ops.assign(v, v * beta2_t, use_locking=self._use_locking)
        with ops.control_dependencies([v_t]):
            v_t = state_ops.scatter_add(v, grad.indices,
                                        (grad.values * grad.values) * (1 - beta2_t),
                                        use_locking=self._use_locking)
        var_update = state_ops.assign_sub(var, lr * m_t / (math_ops.sqrt(v_t) + epsilon_t),
                                          use_locking=self._use_locking)
        return control_flow_ops.group(var_update, m_t, v_t)


class LazyAdamGSOptimizer(AdamGSOptimizer):
    """AdamGS whose sparse updates touch ``m``, ``v`` and the variable only in the gradient's
    rows."""

    def _apply_sparse(self, grad, var):
        from tideflow.train.contrib_opt import lazy_adam_rows

        beta1_power, beta2_power, lr_t, beta1_t, beta2_t, epsilon_t = self._hyper(var)
        lr = lr_t * math_ops.sqrt(1 - beta2_power) / (1 - beta1_power)
        return lazy_adam_rows(self, grad, var, lr, beta1_t, beta2_t, epsilon_t)


class GGTOptimizer(Optimizer):
    """GGT (Agarwal et al. 2018): full-matrix adaptive preconditioning from a window of
    recent first moments. All variables' gradients form one flat vector ``g`` (variables
    ordered by name); ``m = beta1 m + (1 - beta1) g`` is stored in a ring of ``window`` rows,
    ``M`` is that ring (transposed) over ``sqrt(min(t, window))``, and with the SVD
    ``U diag(s) U^T`` of ``M^T M + svd_eps I`` the step is
    ``M U diag((sqrt(s) + sigma_eps)^-3) U^T M^T m``, plus, when ``min sqrt(s) > eps``, the
    part of ``m`` outside M's span divided by ``min sqrt(s)``. Dense gradients only; its
    state is the non-slot variables ``global_step``, ``grad_buffer``, ``moment1`` and
    ``flat_grad``."""

    def __init__(self, learning_rate=0.001, beta1=0.9, use_locking=False, name="GGT",
                 window=10, eps=1e-4, svd_eps=1e-6, sigma_eps=1e-2):
        super().__init__(use_locking, name)
        self._hyper = {"lr": learning_rate, "beta1": beta1, "eps": eps, "svd_eps": svd_eps,
                       "sigma_eps": sigma_eps}
        self._window = window
        self.index_dict = {}
        self.shape_dict = {}
        self._variables = []

    def _create_slots(self, var_list):
        sizes = {v.name: int(np.prod(v.get_shape().as_list())) for v in var_list}
        self.shape_dict = dict(sorted(sizes.items()))
        start = 0
        for name, size in self.shape_dict.items():
            self.index_dict[name] = start
            start += size
        first = min(var_list, key=lambda v: v.name)
        dtype = var_list[0].dtype.base_dtype
        self._create_non_slot_variable(cast_ops.cast(0.0, dtype), "global_step", first)
        self._create_non_slot_variable(array_ops.zeros([self._window, start], dtype),
                                       "grad_buffer", first)
        self._create_non_slot_variable(array_ops.zeros([start], dtype), "moment1", first)
        self._create_non_slot_variable(array_ops.zeros([start], dtype), "flat_grad", first)

    def _state(self, name):
        return self._get_non_slot_variable(name, graph=ops.get_default_graph())

    def _prepare(self):
        self._variables = []

    def _span(self, var):
        start = self.index_dict[var.name]
        return start, start + self.shape_dict[var.name]

    def _apply_dense(self, grad, var):
        self._variables.append(var)
        start, end = self._span(var)
        return state_ops.scatter_update(self._state("flat_grad"), range_ops.range(start, end),
                                        array_ops.reshape(grad, [-1]))

    def _apply_sparse(self, grad, var):
        raise NotImplementedError("Sparse gradient updates are not supported.")

    def _finish(self, update_ops, name_scope):
        dtype = self._variables[0].dtype.base_dtype
        hyper = {k: cast_ops.cast(self._call_if_callable(v), dtype)
                 for k, v in self._hyper.items()}
        with ops.control_dependencies(update_ops):
            t = state_ops.assign_add(self._state("global_step"), 1.0)
            moment1 = self._state("moment1")
            m_t = moment1.assign(hyper["beta1"] * moment1
                                 + (1.0 - hyper["beta1"]) * self._state("flat_grad"))
            row = math_ops.floormod(cast_ops.cast(t - 1.0, dtypes.int32), self._window)
            ring = state_ops.scatter_update(self._state("grad_buffer"), row, m_t)
        window = cast_ops.cast(self._window, dtype)
        m = array_ops.transpose(ring / math_ops.sqrt(math_ops.minimum(t, window)))
        gram = linalg_ops.matmul(m, m, transpose_a=True)
        gram += hyper["svd_eps"] * cast_ops.cast(range_ops.eye(self._window), dtype)
        sigma, u, _ = svd_ops.svd(gram)
        sigma_sqrt = math_ops.sqrt(sigma)
        smallest = reduction_ops.reduce_min(sigma_sqrt)
        m_col = array_ops.expand_dims(m_t, -1)
        projected = linalg_ops.matmul(m, m_col, transpose_a=True)  # M^T m

        def through(scale):
            inner = linalg_ops.matmul(u, projected, transpose_a=True) * array_ops.expand_dims(
                scale, -1)
            return linalg_ops.matmul(m, linalg_ops.matmul(u, inner))

        head = through(1.0 / math_ops.pow(sigma_sqrt + hyper["sigma_eps"], 3))
        tail = (m_col - through(1.0 / sigma)) / smallest
        step = array_ops.where(smallest > hyper["eps"], head + tail, head)
        updates = []
        for var in self._variables:
            start, end = self._span(var)
            delta = array_ops.reshape(step[start:end], var.get_shape())
            updates.append(state_ops.assign_sub(var, hyper["lr"] * delta,
                                                use_locking=self._use_locking))
        return control_flow_ops.group(*updates, name=name_scope)


__all__ = ["AdamGSOptimizer", "DropStaleGradientOptimizer", "GGTOptimizer", "LARSOptimizer",
           "LazyAdamGSOptimizer", "MultitaskOptimizerWrapper", "RegAdagradOptimizer",
           "VariableClippingOptimizer", "clip_gradients_by_global_norm"]
