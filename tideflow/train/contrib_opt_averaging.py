"""``tf.contrib.opt``'s optimizers that average models across workers: model averaging
(ModelAverageOptimizer: every ``interval_steps`` the workers' copies are averaged into global
centre variables) and elastic averaging SGD (ElasticAverageOptimizer, Zhang et al. 2015: every
``communication_period`` steps each worker and the centre move toward each other) and
accumulated gradient normalization (AGNOptimizer, Hermans 2017: the averaged gradient of a
period is applied to the centre).

A cond's body runs on one device in tideflow, so each periodic exchange is one cond per device
it touches (the centres' devices, the worker's, the global step's), ordered by control edges."""

from tideflow.framework import dtypes, ops
from tideflow.ops import (
    accumulator_ops,
    array_ops,
    constant_op,
    control_flow_ops,
    data_flow_ops,
    fill_ops,
    math_ops,
    nn_impl,
    state_ops,
    variable_scope,
)
from tideflow.ops import cond as cond_lib
from tideflow.ops import variables as variables_lib
from tideflow.train import session_run_hook
from tideflow.train.optimizer import Optimizer

GLOBAL_VARIABLE_NAME = "global_center_variable"
LOCAL_VARIABLE_NAME = "local_center_variable"


def _read_when(device, variables, due):
    """The values of ``variables`` (all on ``device``) when ``due``, else empty tensors (so
    that other steps move nothing across tasks)."""
    with ops.device(device):
        return cond_lib.cond(
            due, lambda: [v.read_value() for v in variables],
            lambda: [fill_ops.zeros([0], v.dtype.base_dtype) for v in variables], strict=True)


def _by_device(items, key):
    groups = {}
    for item in items:
        groups.setdefault(key(item).device, []).append(item)
    return groups


class ModelAverageCustomGetter:
    """A ``custom_getter`` for ``variable_scope``: each trainable variable becomes a local
    variable on ``worker_device`` (collection LOCAL_VARIABLES) with a non-trainable global
    twin ``global_center_variable/<name>`` (placed by the enclosing device function, the ps
    under ``replica_device_setter``) that ``ModelAverageOptimizer`` averages into."""

    def __init__(self, worker_device):
        self._worker_device = worker_device
        self._local_2_global = {}

    def __call__(self, getter, name, trainable, collections, *args, **kwargs):
        if trainable:
            with ops.device(self._worker_device):
                local = getter(name, *args, trainable=True,
                               collections=[ops.GraphKeys.LOCAL_VARIABLES], **kwargs)
            center = variable_scope.variable(
                name=f"{GLOBAL_VARIABLE_NAME}/{name}", initial_value=local.initialized_value(),
                trainable=False, collections=[ops.GraphKeys.GLOBAL_VARIABLES])
            self._local_2_global[local] = center
            return local
        return _non_trainable(getter, name, self._worker_device, trainable, collections, args,
                              kwargs)


class ModelAverageOptimizer(Optimizer):
    """Model averaging: each worker trains its local copy with ``opt``; every
    ``interval_steps`` local steps the workers' copies are averaged (conditional accumulators
    on the global variables' devices, one average per round), the chief writes the averages to
    the global center variables and increments ``global_step``, and every worker then copies
    the centers back. The chief releases the other workers through a token queue."""

    def __init__(self, opt, num_worker, is_chief, ma_custom_getter, interval_steps=100,
                 use_locking=True, name="ModelAverageOptimizer"):
        super().__init__(use_locking, name)
        self._opt = opt
        self._num_worker = num_worker
        self._is_chief = is_chief
        self._local_2_global = ma_custom_getter._local_2_global
        self._interval_steps = interval_steps
        self._accumulator_list = []
        self._chief_init_op = None
        self._local_step = variable_scope.get_variable(
            initializer=0, trainable=False, collections=[ops.GraphKeys.LOCAL_VARIABLES],
            name="local_step")
        self._opt._prepare()

    def compute_gradients(self, *args, **kwargs):
        return self._opt.compute_gradients(*args, **kwargs)

    def _local_vars_update(self, var_list):
        """Copies each global center variable into its local variable."""
        if not var_list:
            raise ValueError("The list of local_variables should not be empty")
        updates = []
        for local in var_list:
            center = self._local_2_global[local]
            with ops.device(local.device):
                updates.append(state_ops.assign(local, center.read_value()))
        return control_flow_ops.group(*updates)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        grads_and_vars = list(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required")
        local_update = self._opt.apply_gradients(grads_and_vars)
        with ops.control_dependencies([local_update]):
            local_update = state_ops.assign_add(self._local_step, 1,
                                                name="local_step_update").op
        local_vars = [v for g, v in grads_and_vars if g is not None]
        centers = [self._local_2_global[v] for v in local_vars]
        with ops.colocate_with(global_step):
            sync_queue = data_flow_ops.FIFOQueue(-1, [dtypes.bool], shapes=[[]],
                                                 shared_name="sync_queue")
        accums = []
        with ops.name_scope(None, self._name + "/global"):
            for local, center in zip(local_vars, centers):
                with ops.device(center.device):
                    accums.append(accumulator_ops.ConditionalAccumulator(
                        local.dtype.base_dtype, shape=local.get_shape(),
                        shared_name=center.name + "/var_accum"))
                self._accumulator_list.append((accums[-1], center.device))
        with ops.control_dependencies([local_update]):
            due = math_ops.equal(math_ops.mod(self._local_step, self._interval_steps), 0)
            # (a resource variable's value is a read of its handle)
            values = [array_ops.identity(v.value() if getattr(v, "_resource", False)
                                         else v._ref()) for v in local_vars]
        step_value = global_step.value()
        # one averaging cond per device of the centres (a cond's body runs on one device)
        by_device = {}
        for item in zip(accums, values, centers):
            by_device.setdefault(item[2].device, []).append(item)
        averaged = [self._average_on(device, items, due, step_value)
                    for device, items in by_device.items()]
        with ops.control_dependencies(averaged), ops.device(global_step.device):
            sync = cond_lib.cond(due, self._sync_fn(global_step, sync_queue),
                                 control_flow_ops.no_op)
        with ops.control_dependencies([sync]):
            fresh = {}
            for device, items in by_device.items():
                got = _read_when(device, [c for _, _, c in items], due)
                fresh.update(zip([c for _, _, c in items], got))

        def refresh():
            return control_flow_ops.group(*[
                state_ops.assign(v, fresh[c], validate_shape=False)
                for v, c in zip(local_vars, centers)])

        update = cond_lib.cond(due, refresh, control_flow_ops.no_op)
        inits = []
        for accum, device in self._accumulator_list:
            with ops.device(device):
                inits.append(accum.set_global_step(global_step, name="SetGlobalStep"))
        self._chief_init_op = control_flow_ops.group(*inits)
        return update

    def _average_on(self, device, items, due, step_value):
        """The cond that sends this worker's values to the accumulators on ``device``; the
        chief's also writes their averages to the centres."""

        def average():
            done = []
            for accum, value, center in items:
                sent = accum.apply_grad(value, local_step=step_value)
                if self._is_chief:
                    with ops.control_dependencies([sent]):
                        done.append(state_ops.assign(center, accum.take_grad(self._num_worker)))
                else:
                    done.append(sent)
            return control_flow_ops.group(*done)

        with ops.device(device):
            return cond_lib.cond(due, average, control_flow_ops.no_op)

    def _sync_fn(self, global_step, sync_queue):
        """The chief advances the global step and releases the others with a token each;
        the others wait for theirs."""

        def sync():
            if self._is_chief:
                with ops.control_dependencies([state_ops.assign_add(global_step, 1)]):
                    tokens = fill_ops.fill([self._num_worker - 1], constant_op.constant(False))
                    return sync_queue.enqueue_many(tokens)
            return control_flow_ops.group(sync_queue.dequeue())

        return sync


    def get_init_op(self):
        """The op that sets every local trainable variable to its global center's value."""
        return self._local_vars_update(variables_lib.trainable_variables())

    def make_session_run_hook(self):
        """The hook that initializes the variables and the accumulators in each session."""
        return _ModelAverageOptimizerHook(self, self._is_chief)


class _ModelAverageOptimizerHook(session_run_hook.SessionRunHook):
    def __init__(self, ma_optimizer, is_chief):
        self._ma_optimizer = ma_optimizer
        self._is_chief = is_chief

    def begin(self):
        self._local_init_op = variables_lib.local_variables_initializer()
        self._global_init_op = None
        if self._is_chief:
            self._global_init_op = variables_lib.global_variables_initializer()
            self._chief_init_op = self._ma_optimizer._chief_init_op
        self._variable_init_op = self._ma_optimizer.get_init_op()

    def after_create_session(self, session, coord):
        session.run(self._local_init_op)
        if self._is_chief:
            session.run(self._global_init_op)
            session.run(self._chief_init_op)
        session.run(self._variable_init_op)


# -- elastic averaging ------------------------------------------------------------------------


class ElasticAverageCustomGetter:
    """A ``custom_getter`` for elastic averaging: each trainable variable becomes a local
    variable on ``worker_device``, with a global centre ``global_center_variable/<name>``
    (placed by the enclosing device function) and the worker's copy of that centre,
    ``local_center_variable/<name>`` (local, on the worker)."""

    def __init__(self, worker_device):
        self._worker_device = worker_device
        self._local_map = {}
        self._global_map = {}

    def __call__(self, getter, name, trainable, collections, *args, **kwargs):
        if trainable:
            local, parts = _local_with_copies(getter, name, self._worker_device,
                                              LOCAL_VARIABLE_NAME, args, kwargs)
            for part, local_center, center in parts:
                self._local_map[part] = local_center
                self._global_map[part] = center
            return local
        return _non_trainable(getter, name, self._worker_device, trainable, collections, args,
                              kwargs)


class ElasticAverageOptimizer(Optimizer):
    """Elastic averaging SGD: each worker trains its local copy with ``opt`` on its loss plus
    ``rho * sum(l2_loss(w - local centre))``; every ``communication_period`` local steps it
    fetches the global centre ``c`` and, with ``d = moving_rate * (w - c)``, sets
    ``w -= d`` and ``c += d`` (and increments ``global_step``). ``moving_rate`` defaults to
    0.9 / communication_period / num_worker and ``rho`` to moving_rate / learning rate."""

    BETA = 0.9  # the paper's default

    def __init__(self, opt, num_worker, ea_custom_getter, communication_period=10,
                 moving_rate=None, rho=None, use_locking=True, synchronous=False,
                 name="ElasticAverageOptimizer"):
        super().__init__(use_locking, name)
        self._opt = opt
        self._num_worker = num_worker
        self._period = communication_period
        self._local_map = ea_custom_getter._local_map
        self._global_map = ea_custom_getter._global_map
        self._synchronous = synchronous
        if moving_rate is None:
            moving_rate = self.BETA / communication_period / num_worker
        self._moving_rate = moving_rate
        self._rho = moving_rate / self._opt._learning_rate if rho is None else rho
        self._local_step = variable_scope.get_variable(
            initializer=0, trainable=False, collections=[ops.GraphKeys.LOCAL_VARIABLES],
            name="local_step")
        self._opt._prepare()

    def compute_gradients(self, loss, var_list=None, gate_gradients=Optimizer.GATE_OP,
                          aggregation_method=None, colocate_gradients_with_ops=False,
                          grad_loss=None):
        """``opt``'s gradients of ``loss`` plus the elastic term pulling each variable toward
        the worker's copy of its centre."""
        if not var_list:
            var_list = variables_lib.trainable_variables()
        distances = [nn_impl.l2_loss(math_ops.subtract(v, self._local_map[v])) for v in var_list]
        total = loss + self._rho * math_ops.add_n(distances)
        return self._opt.compute_gradients(total, var_list, gate_gradients, aggregation_method,
                                           colocate_gradients_with_ops, grad_loss)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        grads_and_vars = list(grads_and_vars)
        before = {v.op.name for v in variables_lib.global_variables()}
        local_update = self._opt.apply_gradients(grads_and_vars)
        # the wrapped optimizer's own variables (Adam's beta powers...) are per worker
        made = {v.op.name for v in variables_lib.global_variables()} - before
        global_vars = ops.get_collection_ref(ops.GraphKeys.GLOBAL_VARIABLES)
        for v in [v for v in global_vars if v.op.name in made]:
            global_vars.remove(v)
            ops.add_to_collection(ops.GraphKeys.LOCAL_VARIABLES, v)
        with ops.control_dependencies([local_update]):
            local_update = state_ops.assign_add(self._local_step, 1,
                                                name="local_step_update").op
        local_vars = [v for g, v in grads_and_vars if g is not None]
        with ops.control_dependencies([local_update]):
            due = math_ops.equal(math_ops.mod(self._local_step, self._period), 0)
        centers = [self._global_map[v] for v in local_vars]
        fetched = {}
        for device, group in _by_device(centers, lambda c: c).items():
            fetched.update(zip(group, _read_when(device, group, due)))
        rate = self._moving_rate
        by_worker = _by_device(local_vars, lambda v: v)
        moves, done = {}, []
        for device, group in by_worker.items():
            def pull(group=group):
                steps = []
                for v in group:
                    lc = self._local_map[v]
                    with ops.control_dependencies(
                            [state_ops.assign(lc, fetched[self._global_map[v]],
                                              validate_shape=False)]):
                        steps.append(rate * math_ops.subtract(v, lc))
                updates = [state_ops.assign_sub(v, s) for v, s in zip(group, steps)]
                with ops.control_dependencies(updates):
                    return [array_ops.identity(s) for s in steps]

            def idle(group=group):
                return [fill_ops.zeros([0], v.dtype.base_dtype) for v in group]

            with ops.device(device):
                out = cond_lib.cond(due, pull, idle, strict=True)
            moves.update(zip(group, out))
            done.extend(out)
        for device, group in _by_device(local_vars, lambda v: self._global_map[v]).items():
            def push(group=group):
                return control_flow_ops.group(*[
                    state_ops.assign_add(self._global_map[v], moves[v]) for v in group])

            with ops.device(device):
                done.append(cond_lib.cond(due, push, control_flow_ops.no_op))
        if global_step is not None:
            def advance():
                return control_flow_ops.group(state_ops.assign_add(global_step, 1))

            with ops.control_dependencies(done), ops.colocate_with(global_step):
                done.append(cond_lib.cond(due, advance, control_flow_ops.no_op))
        return control_flow_ops.group(*done)

    def get_init_op(self, task_index):
        """Sets every local variable and local centre to its global centre; with
        ``synchronous``, then waits until every worker has done so."""
        local_vars = variables_lib.trainable_variables()
        centers = [self._global_map[v] for v in local_vars]
        local_centers = [self._local_map[v] for v in local_vars]
        if not (local_vars and centers and local_centers):
            raise ValueError("The lists of local_variables, global_center_variables, "
                             "local_center_variables should not be empty  ")
        inits = []
        for v, c, lc in zip(local_vars, centers, local_centers):
            inits.append(state_ops.assign(v, c))
            inits.append(state_ops.assign(lc, c))
        init = control_flow_ops.group(*inits)
        if not self._synchronous:
            return init
        queues = [data_flow_ops.FIFOQueue(self._num_worker, [dtypes.bool], shapes=[[]],
                                          shared_name=f"variable_init_sync_queue{i}")
                  for i in range(self._num_worker)]
        barrier = []
        with ops.control_dependencies([init]):
            for i, q in enumerate(queues):
                if i != task_index:
                    barrier.append(q.enqueue(constant_op.constant(False)))
        barrier.append(queues[task_index].dequeue_many(len(queues) - 1))
        return control_flow_ops.group(*barrier)

    def make_session_run_hook(self, is_chief, task_index):
        """The hook that runs ``get_init_op(task_index)`` in each new session."""
        return _ElasticAverageOptimizerHook(self, is_chief, task_index)

    def swapping_saver(self, var_list=None, name="swapping_saver", **kwargs):
        """A Saver that saves each global centre under its trainable variable's name (for
        evaluation and serving from the averaged model)."""
        from tideflow.train import saveable
        from tideflow.train.saver import Saver

        if not self._global_map:
            raise RuntimeError("global_center_variable is empty, please make sure this is "
                               "called after model created and ElasticAverageCustomGetter is "
                               "used when declaring you model")
        if var_list is None:
            var_list = variables_lib.trainable_variables()
        if not isinstance(var_list, dict):
            var_list = saveable.op_list_to_dict(var_list)
        by_name = {v.op.name: v for v in variables_lib.trainable_variables()}
        swapped = {}
        for key, var in var_list.items():
            if isinstance(var, list):
                swapped[key] = [self._global_map.get(v, v) for v in var]
            else:
                trained = by_name.get(var.op.name)
                swapped[key] = self._global_map.get(trained, var) if trained is not None else var
        return Saver(swapped, name=name, **kwargs)


class _ElasticAverageOptimizerHook(session_run_hook.SessionRunHook):
    """Runs an averaging optimizer's ``get_init_op(task_index)`` in each new session."""

    def __init__(self, ea_optimizer, is_chief, task_index):
        self._ea_optimizer = ea_optimizer
        self._is_chief = is_chief
        self._task_index = task_index

    def begin(self):
        self._local_init_op = variables_lib.local_variables_initializer()
        self._global_init_op = None
        if self._is_chief:
            self._global_init_op = variables_lib.global_variables_initializer()
        self._variable_init_op = self._ea_optimizer.get_init_op(self._task_index)

    def after_create_session(self, session, coord):
        session.run(self._variable_init_op)


# -- accumulated gradient normalization -------------------------------------------------------

GRAD_VARIABLE_NAME = "grad_variable"


class AGNCustomGetter:
    """A ``custom_getter`` for accumulated gradient normalization: each trainable variable
    becomes a local variable on ``worker_device``, with a global centre
    ``global_center_variable/<name>`` (placed by the enclosing device function) and a local
    gradient accumulator ``grad_variable/<name>`` on the worker."""

    def __init__(self, worker_device):
        self._worker_device = worker_device
        self._global_map = {}
        self._grad_map = {}

    def __call__(self, getter, name, trainable, collections, *args, **kwargs):
        if not trainable:
            return getter(name, *args, trainable=trainable, collections=collections, **kwargs)
        local, parts = _local_with_copies(getter, name, self._worker_device,
                                          GRAD_VARIABLE_NAME, args, kwargs)
        for part, grad, center in parts:
            self._grad_map[part] = grad
            self._global_map[part] = center
        return local


def _non_trainable(getter, name, worker_device, trainable, collections, args, kwargs):
    """What TF's averaging getters do with a variable that is not trained: as asked, on the
    worker when it is a local variable."""
    kwargs["trainable"] = trainable
    kwargs["collections"] = collections
    if collections and ops.GraphKeys.LOCAL_VARIABLES in collections:
        with ops.device(worker_device):
            return getter(name, *args, **kwargs)
    return getter(name, *args, **kwargs)


def _local_with_copies(getter, name, worker_device, copy_prefix, args, kwargs):
    """TF's averaging getters' variables for trainable ``name``: the worker-local variable
    itself, a global copy ``global_center_variable/<name>`` on the parameter servers and a
    worker-local copy ``<copy_prefix>/<name>``; returns (the local variable, [(part, local
    copy, global copy)] per partition; none when reusing)."""
    with ops.device(worker_device):
        local = getter(name, *args, trainable=True,
                       collections=[ops.GraphKeys.LOCAL_VARIABLES], **kwargs)
    if kwargs.get("reuse") is True:
        return local, []
    center = getter(f"{GLOBAL_VARIABLE_NAME}/{name}", *args, trainable=False,
                    collections=[ops.GraphKeys.GLOBAL_VARIABLES], **kwargs)
    with ops.device(worker_device):
        copy = getter(f"{copy_prefix}/{name}", *args, trainable=False,
                      collections=[ops.GraphKeys.LOCAL_VARIABLES], **kwargs)
    if kwargs.get("partitioner") is None:
        return local, [(local, copy, center)]
    return local, list(zip(list(local), list(copy), list(center)))


def _keep_local(next_creator, collections=None, **kwargs):
    """A variable creator putting what would be global into LOCAL_VARIABLES instead."""
    if not collections:
        collections = [ops.GraphKeys.LOCAL_VARIABLES]
    elif ops.GraphKeys.GLOBAL_VARIABLES in collections:
        collections = [c for c in collections if c != ops.GraphKeys.GLOBAL_VARIABLES]
        collections.append(ops.GraphKeys.LOCAL_VARIABLES)
    return next_creator(collections=collections, **kwargs)


class AGNOptimizer(Optimizer):
    """Accumulated gradient normalization (Hermans 2017): each worker steps its local copy
    with ``optimizer`` and sums its gradients; every ``communication_period`` local steps the
    sum divided by the period is applied by ``optimizer`` to the global centres, the worker
    copies the centres back and restarts its sum."""

    def __init__(self, optimizer, num_worker, custom_getter, communication_period=10,
                 use_locking=True, name="AGNOptimizer"):
        super().__init__(use_locking, name)
        self._opt = optimizer
        self._num_worker = num_worker
        self._period = communication_period
        self._global_map = custom_getter._global_map
        self._grad_map = custom_getter._grad_map
        self._local_step = variable_scope.get_variable(
            initializer=0, trainable=False, collections=[ops.GraphKeys.LOCAL_VARIABLES],
            name="local_step")
        self._opt._prepare()

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        grads_and_vars = list(grads_and_vars)
        local_vars = [v for g, v in grads_and_vars if g is not None]
        grads = [g for g, v in grads_and_vars if g is not None]
        with variable_scope.variable_creator_scope(_keep_local):
            local_update = self._opt.apply_gradients(grads_and_vars)
        sums = [self._grad_map[v] for v in local_vars]
        updates = [local_update] + [state_ops.assign_add(a, g) for a, g in zip(sums, grads)]
        step_update = state_ops.assign_add(self._local_step, 1, name="local_step_update").op
        with ops.control_dependencies([step_update]):
            due = math_ops.equal(math_ops.mod(self._local_step, self._period), 0)
        period = self._period
        with ops.control_dependencies(updates):
            normalized = {}
            for device, group in _by_device(sums, lambda a: a).items():
                def normalize(group=group):
                    return [array_ops.identity(state_ops.assign(a, a / period))
                            for a in group]

                def idle(group=group):
                    return [fill_ops.zeros([0], a.dtype.base_dtype) for a in group]

                with ops.device(device):
                    normalized.update(zip(group, cond_lib.cond(due, normalize, idle,
                                                                strict=True)))
        applied = []
        for device, group in _by_device(local_vars, lambda v: self._global_map[v]).items():
            def push(group=group):
                pairs = [(normalized[self._grad_map[v]], self._global_map[v]) for v in group]
                return self._opt.apply_gradients(pairs)

            with ops.device(device):
                applied.append(cond_lib.cond(due, push, control_flow_ops.no_op))
        with ops.control_dependencies(applied):
            done = list(applied)
            if global_step is not None:
                def advance():
                    return control_flow_ops.group(state_ops.assign_add(global_step, 1))

                with ops.colocate_with(global_step):
                    done.append(cond_lib.cond(due, advance, control_flow_ops.no_op))
            fetched = {}
            for device, group in _by_device(local_vars, lambda v: self._global_map[v]).items():
                centers = [self._global_map[v] for v in group]
                fetched.update(zip(group, _read_when(device, centers, due)))
        for device, group in _by_device(local_vars, lambda v: v).items():
            def pull(group=group):
                return control_flow_ops.group(*[
                    op for v in group for op in (
                        state_ops.assign(v, fetched[v], validate_shape=False),
                        state_ops.assign(self._grad_map[v],
                                         array_ops.zeros_like(self._grad_map[v])))])

            with ops.device(device):
                done.append(cond_lib.cond(due, pull, control_flow_ops.no_op))
        return control_flow_ops.group(*done)

    def get_init_op(self, task_index):
        """Sets every local variable to its global centre and every gradient sum to zero."""
        local_vars = variables_lib.trainable_variables()
        centers = [self._global_map[v] for v in local_vars]
        sums = [self._grad_map[v] for v in local_vars]
        if not (local_vars and centers and sums):
            raise ValueError("The lists of local_variables, global_center_variables,"
                             "grad_center_variables should not be empty")
        inits = [state_ops.assign(v, c) for v, c in zip(local_vars, centers)]
        inits += [state_ops.assign(a, array_ops.zeros_like(a)) for a in sums]
        return control_flow_ops.group(*inits)

    def make_session_run_hook(self, is_chief, task_index):
        """The hook that runs ``get_init_op(task_index)`` in each new session."""
        return _AGNOptimizerHook(self, is_chief, task_index)


class _AGNOptimizerHook(_ElasticAverageOptimizerHook):
    """AGN's hook (TF 1.15's class name): the same session set-up as elastic averaging's."""


__all__ = ["AGNCustomGetter", "AGNOptimizer", "ElasticAverageCustomGetter",
           "ElasticAverageOptimizer", "ModelAverageCustomGetter", "ModelAverageOptimizer"]
