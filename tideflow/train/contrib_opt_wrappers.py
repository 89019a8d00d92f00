"""``tf.contrib.opt``'s wrappers and smaller optimizers: VariableClipping (max-norm constraints
after each step), DropStaleGradient (skips updates computed too many steps ago), the multitask
wrapper (all-zero gradients leave the optimizer's state alone), RegAdagrad, LARS, Adam
driven by the global step (AdamGS, LazyAdamGS), GGT's windowed full-matrix preconditioning and
Shampoo's per-dimension preconditioners."""

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
from tideflow.ops.while_loop import while_loop
from tideflow.train import training_util
from tideflow.train.adagrad import AdagradOptimizer
from tideflow.train.adam import AdamOptimizer
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
            value = var.read_value()  # TF 1.15's read (an Identity, 'clip_<var>/read')
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
        return training_ops.as_op(training_ops.apply_adagrad(
            var, self.get_slot(var, "accumulator"),
            cast_ops.cast(self._learning_rate_tensor, var.dtype.base_dtype), grad,
            use_locking=self._use_locking, update_slots=self._should_update_slots))

    def _apply_sparse(self, grad, var):
        return training_ops.as_op(training_ops.sparse_apply_adagrad(
            var, self.get_slot(var, "accumulator"),
            cast_ops.cast(self._learning_rate_tensor, var.dtype.base_dtype), grad.values,
            grad.indices, use_locking=self._use_locking,
            update_slots=self._should_update_slots))


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
        """``(scaled_lr, grad)``: the learning rate scaled by the trust ratio of ``var`` and
        its gradient, and the gradient plus ``weight_decay * var`` (both as given for a
        variable that ``skip_list`` names)."""
        if self._skip_list is not None and any(s in var.name for s in self._skip_list):
            return self._learning_rate, grad
        w_norm = norm_ops.norm(var, ord=2)
        g_norm = norm_ops.norm(grad, ord=2)
        ratio = array_ops.where(
            math_ops.greater(w_norm, 0),
            array_ops.where(math_ops.greater(g_norm, 0),
                            self._eeta * w_norm
                            / (g_norm + self._weight_decay * w_norm + self._epsilon), 1.0),
            1.0)
        return self._learning_rate * ratio, grad + self._weight_decay * var

    def _prepare(self):
        c = self._call_if_callable
        self._learning_rate_tensor = ops.convert_to_tensor(c(self._learning_rate),
                                                           name="learning_rate")
        self._momentum_tensor = ops.convert_to_tensor(c(self._momentum), name="momentum")

    def _apply_dense(self, grad, var):
        # TF 1.15 folds the scaled rate into the gradient (rate 1), so the momentum slot
        # accumulates scaled steps.
        scaled_lr, grad = self.compute_lr(grad, var)
        return training_ops.apply_momentum(
            var, self.get_slot(var, "momentum"), cast_ops.cast(1.0, var.dtype.base_dtype),
            grad * scaled_lr, self._momentum, use_locking=False,
            use_nesterov=self._use_nesterov)

    def _apply_sparse(self, grad, var):
        dt = var.dtype.base_dtype
        return training_ops.as_op(training_ops.sparse_apply_momentum(
            var, self.get_slot(var, "momentum"), cast_ops.cast(self._learning_rate_tensor, dt),
            grad.values, grad.indices, cast_ops.cast(self._momentum_tensor, dt),
            use_locking=self._use_locking, use_nesterov=self._use_nesterov))


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
        return training_ops.as_op(training_ops.apply_adam(
            var, self.get_slot(var, "m"), self.get_slot(var, "v"), *self._hyper(var), grad,
            use_locking=self._use_locking))

    # TF 1.15's sparse step is Adam's, ops in Adam's order (the scaled rows, then the decayed
    # moment; a resource variable's raw scatters), with the beta powers from the step
    _sparse_hyper = AdamOptimizer._sparse_hyper
    _apply_sparse_shared = AdamOptimizer._apply_sparse_shared
    _apply_sparse = AdamOptimizer._apply_sparse
    _resource_scatter_add = AdamOptimizer._resource_scatter_add


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


def _param_at(value, step):
    """A Shampoo hyper-parameter: a number, or a function of the (1-based, float) step."""
    return value(step) if callable(value) else value


def _psd_sqrt_newton(mat, size, iter_count=100, ridge=1e-4):
    """``(mat + ridge I)^0.5`` by the coupled Newton iteration Y <- Y T, Z <- T Z with
    ``T = (3 I - Z Y) / 2`` on the Frobenius-normalized matrix, stopped after ``iter_count``
    steps or as soon as the reconstruction error stops falling (the iterate before is kept)."""
    eye = range_ops.eye(size, dtype=mat.dtype)
    mat = mat + ridge * eye
    scale = math_ops.sqrt(reduction_ops.reduce_sum(mat * mat))

    def keep_going(i, y, y_prev, z, z_prev, err, err_prev):
        return math_ops.logical_and(i < iter_count, err < err_prev)

    def step(i, y, y_prev, z, z_prev, err, err_prev):
        t = 0.5 * (3.0 * eye - linalg_ops.matmul(z, y))
        y_next = linalg_ops.matmul(y, t)
        z_next = linalg_ops.matmul(t, z)
        root = y_next * math_ops.sqrt(scale)
        gap = mat - linalg_ops.matmul(root, root)
        err_next = math_ops.sqrt(reduction_ops.reduce_sum(gap * gap)) / scale
        return i + 1, y_next, y, z_next, z, err_next, err

    y0 = mat / scale
    out = while_loop(keep_going, step,
                                      [0, y0, y0, eye, eye, scale, scale + 1.0])
    return out[2] * math_ops.sqrt(scale)


def _psd_inverse_root_newton(mat, size, alpha, iter_count=100, epsilon=1e-6, ridge=0.0):
    """``(mat + ridge I)^alpha`` for ``alpha = -1/p`` (p a whole number) by the Schur-Newton
    iteration of Guo and Higham: ``M <- ((1-a) I + a M)^p M``, ``X <- X ((1-a) I + a M)``
    from ``M = z A``, ``X = z^-a I`` with ``z = (1 - 1/a) / (2 ||A||)``, until ``M`` is within
    ``epsilon`` of the identity (max-abs) or ``iter_count`` steps."""
    if size == 1:
        return math_ops.pow(mat + ridge, alpha)
    eye = range_ops.eye(size, dtype=mat.dtype)
    power = -1.0 / alpha
    if power != int(power) or power <= 0:
        raise ValueError(f"alpha must be -1/p for a positive whole p, got {alpha}")

    def matrix_power(m, p):
        p, out = int(p), None
        while p > 0:
            if p % 2:
                out = m if out is None else linalg_ops.matmul(m, out)
            p //= 2
            m = linalg_ops.matmul(m, m)
        return out

    def keep_going(i, m, x):
        return math_ops.logical_and(
            i < iter_count, reduction_ops.reduce_max(math_ops.abs(m - eye)) > epsilon)

    def step(i, m, x):
        mid = (1 - alpha) * eye + alpha * m
        return i + 1, linalg_ops.matmul(matrix_power(mid, power), m), linalg_ops.matmul(x, mid)

    damped = mat + ridge * eye
    z = (1 - 1 / alpha) / (2 * norm_ops.norm(damped))
    return while_loop(keep_going, step,
                                       [0, damped * z, eye * math_ops.pow(z, -alpha)])[2]


class ShampooOptimizer(Optimizer):
    """Shampoo (Gupta, Koren and Singer 2018): Adagrad with one preconditioner per dimension
    of each variable. ``gbar = gbar_decay gbar + gbar_weight g`` (slot "gbar"); for a
    dimension i of size ``d <= max_matrix_size`` the statistic ``G_i`` (slot "Gbar_i", d x d)
    accumulates ``mat_gbar_decay G_i + mat_gbar_weight g_(i) g_(i)^T`` (g unfolded along i;
    every ``precond_update_interval`` steps, the weight scaled by it) and ``gbar`` is
    contracted along i with ``(G_i / d + epsilon I)^(-alpha / rank)`` (by SVD, or by Newton
    iterations with ``use_iterative_root``; recomputed every ``svd_interval`` steps and kept
    in slot "H_i" when that is above 1); a larger dimension keeps a diagonal statistic (d
    values) and is scaled element-wise by its positive entries' powers. The step is
    ``var -= learning_rate * preconditioned gbar``. Hyper-parameters may be functions of the
    step (``global_step + 1`` as a float). Sparse gradients of a variable whose first
    dimension is small (or with momentum) are made dense; otherwise the rows are updated in
    place without momentum."""

    def __init__(self, global_step=0, max_matrix_size=768, gbar_decay=0.0, gbar_weight=1.0,
                 mat_gbar_decay=1.0, mat_gbar_weight=1.0, learning_rate=1.0, svd_interval=1,
                 precond_update_interval=1, epsilon=1e-4, alpha=0.5, use_iterative_root=False,
                 use_locking=False, name="Shampoo"):
        super().__init__(use_locking, name)
        self._global_step = cast_ops.cast(global_step, dtypes.float32)
        self._max_matrix_size = max_matrix_size
        self._gbar_decay = gbar_decay
        self._gbar_weight = gbar_weight
        self._mat_gbar_decay = mat_gbar_decay
        self._mat_gbar_weight = mat_gbar_weight
        self._learning_rate = learning_rate
        self._svd_interval = svd_interval
        self._precond_update_interval = precond_update_interval
        self._epsilon = epsilon
        self._alpha = alpha
        self._use_iterative_root = use_iterative_root

    def _create_slots(self, var_list):
        for v in var_list:
            with ops.colocate_with(v):
                self._zeros_slot(v, "gbar", self._name)
                for i, d in enumerate(v.get_shape().as_list()):
                    if d <= self._max_matrix_size:
                        init = array_ops.zeros([d, d], v.dtype.base_dtype)
                        if self._svd_interval > 1:
                            self._get_or_make_slot(v, range_ops.eye(d, dtype=v.dtype.base_dtype),
                                                   f"H_{i}", self._name)
                    else:
                        init = array_ops.zeros([d], v.dtype.base_dtype)
                    self._get_or_make_slot(v, init, f"Gbar_{i}", self._name)

    def _apply_dense(self, grad, var):
        return self._shampoo_step(grad, var)

    def _resource_apply_dense(self, grad, handle):
        return self._shampoo_step(grad, handle)

    def _apply_sparse(self, grad, var):
        return self._sparse_step(grad.values, grad.indices, var)

    def _resource_apply_sparse(self, grad, handle, indices):
        return self._sparse_step(grad, indices, handle)

    def _sparse_step(self, values, indices, var):
        if var.get_shape()[0] <= self._max_matrix_size or self._gbar_decay != 0.0:
            dense = gather_ops.scatter_nd(array_ops.expand_dims(indices, 1), values,
                                          array_ops.shape(var, out_type=indices.dtype))
            return self._shampoo_step(dense, var)
        return self._shampoo_step(values, var, indices)

    @staticmethod
    def _average_into(state, decay, decay_t, addend):
        """``state = decay_t * state + addend`` (just ``addend`` when decay is 0: the state is
        never read)."""
        if isinstance(decay, (int, float)) and decay == 0.0:
            return addend
        if isinstance(decay, (int, float)) and decay == 1.0:
            return state_ops.assign_add(state, addend)
        return state.assign_add((decay_t - 1) * state + addend)

    def _power(self, var, mat, size, alpha, slot=None):
        with ops.name_scope("matrix_iterative_power"):
            if self._use_iterative_root:
                root = _psd_sqrt_newton(mat, size, 100, self._epsilon)
                out = _psd_inverse_root_newton(root, size, 2 * alpha, 100, 1e-6, ridge=0.0)
            elif size == 1:
                out = math_ops.pow(mat + self._epsilon, alpha)
            else:
                damped = mat + self._epsilon * range_ops.eye(size, dtype=mat.dtype)
                s, u, v = svd_ops.svd(damped, full_matrices=True)
                out = linalg_ops.matmul(v * math_ops.pow(math_ops.maximum(s, self._epsilon), alpha),
                                        array_ops.transpose(u))
        if slot is not None:
            return state_ops.assign(self.get_slot(var, slot), out)
        return out

    def _shampoo_step(self, grad, var, indices=None):
        step = self._global_step + 1
        shape = var.get_shape().as_list()
        rank = len(shape)
        if indices is None:
            precond = self._average_into(self.get_slot(var, "gbar"), self._gbar_decay,
                                         _param_at(self._gbar_decay, step),
                                         _param_at(self._gbar_weight, step) * grad)
        else:
            if self._gbar_decay != 0.0:
                tf_logging.warning("Not applying momentum for variable: %s", var.name)
            precond = grad
        decay_t = _param_at(self._mat_gbar_decay, step)
        weight_t = _param_at(self._mat_gbar_weight, step)
        neg_alpha = -_param_at(self._alpha, step) / rank
        svd_every = _param_at(self._svd_interval, step)
        update_every = _param_at(self._precond_update_interval, step)
        for i, d in enumerate(shape):
            stats = self.get_slot(var, f"Gbar_{i}")
            others = [j for j in range(rank) if j != i]
            if d <= self._max_matrix_size:
                def updated(stats=stats, others=others, i=i):
                    outer = linalg_ops.tensordot(grad, grad, axes=(others, others),
                                                 name=f"grad_outer_{i}")
                    return self._average_into(stats, self._mat_gbar_decay, decay_t,
                                              weight_t * update_every * outer)

                stats_t = cond_lib.cond(math_ops.mod(step, update_every) < 1, updated,
                                        lambda stats=stats: array_ops.identity(stats))
                stats_t = stats_t / float(d)
                if self._svd_interval == 1:
                    power = self._power(var, stats_t, d, neg_alpha)
                else:
                    power = cond_lib.cond(
                        math_ops.mod(step, svd_every) < 1,
                        lambda stats_t=stats_t, d=d, i=i: self._power(var, stats_t, d, neg_alpha,
                                                                      f"H_{i}"),
                        lambda i=i: array_ops.identity(self.get_slot(var, f"H_{i}")))
                # contracting the leading axis moves it to the end: after all axes, the
                # original order is back
                precond = linalg_ops.tensordot(precond, power, axes=([0], [0]),
                                               name=f"precond_{i}")
            else:
                if others:
                    scale = 1.0 if indices is not None else float(d)
                    outer = reduction_ops.reduce_sum(grad * grad, axis=others) / scale
                else:
                    outer = grad * grad
                if i == 0 and indices is not None:
                    if self._mat_gbar_decay != 1.0:
                        raise ValueError("Shampoo's sparse row updates need mat_gbar_decay=1.0")
                    stats_t = gather_ops.gather(
                        state_ops.scatter_add(stats, indices, weight_t * outer), indices)
                else:
                    stats_t = self._average_into(stats, self._mat_gbar_decay, decay_t,
                                                 weight_t * outer)
                power = array_ops.where(math_ops.greater(stats_t, 0),
                                        math_ops.pow(stats_t, neg_alpha),
                                        array_ops.zeros_like(stats_t))
                precond = array_ops.transpose(precond, perm=list(range(1, rank)) + [0]) * power
        lr_t = _param_at(self._learning_rate, step)
        if indices is not None:
            return state_ops.scatter_add(var, indices, -lr_t * precond,
                                         use_locking=self._use_locking)
        return state_ops.assign_sub(var, lr_t * precond, use_locking=self._use_locking)


__all__ = ["AdamGSOptimizer", "DropStaleGradientOptimizer", "GGTOptimizer", "LARSOptimizer",
           "LazyAdamGSOptimizer", "MultitaskOptimizerWrapper", "RegAdagradOptimizer",
           "ShampooOptimizer", "VariableClippingOptimizer", "clip_gradients_by_global_norm"]
