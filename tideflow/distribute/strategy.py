"""``tf.distribute`` strategies in graph mode: the strategy and replica contexts, mirrored
variables made by a variable creator, replica functions built once per device (one thread per
replica, run in lockstep so that ``merge_call`` sees every replica's arguments), reductions
placed on real devices, and the optimizer's all-reduced ``apply_gradients``."""

import enum
import threading

from tideflow.distribute.values import (
    DistributedValues,
    Mirrored,
    MirroredVariable,
    PerReplica,
    SyncOnReadVariable,
    regroup,
    select_replica,
)
from tideflow.framework import device as device_lib
from tideflow.framework import ops
from tideflow.framework.indexed_slices import IndexedSlices
from tideflow.ops import variables as variables_lib


class ReduceOp(enum.Enum):
    """How values from the replicas are combined: ``SUM`` or ``MEAN``."""

    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation):
        name = getattr(aggregation, "name", str(aggregation)).upper()
        if name in ("SUM", "MEAN"):
            return ReduceOp[name]
        raise ValueError(f"Could not convert from `tf.VariableAggregation` {aggregation} to "
                         "`tf.distribute.ReduceOp` type")


class InputReplicationMode(enum.Enum):
    """How ``make_input_fn_iterator`` replicates input: one pipeline per worker."""

    PER_WORKER = "PER_WORKER"


def _reduce_op(op):
    if isinstance(op, ReduceOp):
        return op
    if isinstance(op, str) and op.upper() in ("SUM", "MEAN"):
        return ReduceOp[op.upper()]
    if getattr(op, "name", None) in ("SUM", "MEAN"):  # a VariableAggregation
        return ReduceOp[op.name]
    raise ValueError(f"{op!r} is not a valid ReduceOp (expected tf.distribute.ReduceOp.SUM or "
                     "MEAN)")


# -- contexts ----------------------------------------------------------------------------------

_local = threading.local()


class _Ctx:
    __slots__ = ("call", "index", "kind", "replica_ctx", "strategy")

    def __init__(self, kind, strategy, index=0, replica_ctx=None, call=None):
        self.kind, self.strategy, self.index = kind, strategy, index
        self.replica_ctx, self.call = replica_ctx, call


def _stack():
    s = getattr(_local, "stack", None)
    if s is None:
        s = _local.stack = []
    return s


def _top():
    s = _stack()
    return s[-1] if s else None


class _Push:
    def __init__(self, ctx, creator=None):
        self._ctx, self._creator, self._scope = ctx, creator, None

    def __enter__(self):
        _stack().append(self._ctx)
        if self._creator is not None and self._creator not in variables_lib._creator_stack():
            self._scope = variables_lib.variable_creator_scope(self._creator)
            self._scope.__enter__()
        return self._ctx

    def __exit__(self, *exc):
        if self._scope is not None:
            self._scope.__exit__(*exc)
        _stack().pop()
        return False


def _current_index():
    """The device index the current context reads distributed values on (0: the primary)."""
    top = _top()
    return top.index if top is not None and top.kind in ("replica", "update") else 0


def _in_cross_replica_of(strategy):
    top = _top()
    return top is None or top.kind == "cross"


def _in_replica_of(strategy):
    top = _top()
    return top is not None and top.kind == "replica"


def get_strategy():
    """The current strategy (a default one, with one replica, outside every scope)."""
    top = _top()
    return top.strategy if top is not None else _default_strategy()


def has_strategy():
    """True inside a strategy's ``scope()`` (or a replica function it runs)."""
    return _top() is not None


def in_cross_replica_context():
    """True in a strategy's scope outside of its replica functions."""
    top = _top()
    return top is not None and top.kind in ("cross", "update")


def get_replica_context():
    """The current ``ReplicaContext``; None in cross-replica context."""
    top = _top()
    if top is None:
        return _default_strategy()._default_replica_context
    return top.replica_ctx if top.kind == "replica" else None


def get_cross_replica_context():
    top = _top()
    if top is None:
        return _default_strategy()
    return top.strategy if top.kind != "replica" else None


_SET = []  # the scope experimental_set_strategy entered (per process, as TF's)


def experimental_set_strategy(strategy):
    """Makes ``strategy`` current without a ``with strategy.scope()`` (None: the default)."""
    if _SET:
        _SET.pop().__exit__(None, None, None)
    if strategy is not None:
        scope = strategy.scope()
        scope.__enter__()
        _SET.append(scope)


class RunOptions:
    """Options of ``Strategy.run`` (accepted; tideflow's replicas need none)."""

    def __init__(self, experimental_enable_dynamic_batch_size=True,
                 experimental_bucketizing_dynamic_shape=False,
                 experimental_xla_options=None):
        self.experimental_enable_dynamic_batch_size = experimental_enable_dynamic_batch_size
        self.experimental_bucketizing_dynamic_shape = experimental_bucketizing_dynamic_shape
        self.experimental_xla_options = experimental_xla_options


def get_loss_reduction():
    """The reduction of the optimizer's gradients: MEAN for an Estimator's model_fn, else SUM."""
    strategy = get_strategy()
    return ReduceOp.MEAN if getattr(strategy, "_scale_loss_for_estimator", False) else ReduceOp.SUM


# -- device names ----------------------------------------------------------------------------


def _canonical(device):
    spec = device_lib.DeviceSpec.from_string(device if isinstance(device, str) else str(device))
    dev_type = (spec.device_type or "CPU").upper()
    return (f"/replica:{spec.replica or 0}/task:{spec.task or 0}/device:{dev_type}:"
            f"{spec.device_index or 0}")


def _devices_of(destinations):
    if isinstance(destinations, MirroredVariable):
        return tuple(v.device for v in destinations.values)
    if isinstance(destinations, DistributedValues):
        return tuple(destinations.devices)
    if isinstance(destinations, str):
        return (_canonical(destinations),)
    if isinstance(destinations, (list, tuple)):
        return tuple(_canonical(d) for d in destinations)
    device = getattr(destinations, "device", None)
    return (device or "",)


# -- reductions --------------------------------------------------------------------------------


def _reduce_on(reduce_op, values, device):
    """The SUM or MEAN of the per-replica ``values`` computed on ``device``."""
    from tideflow.ops import cast_ops, concat_ops, math_ops

    n = len(values)
    with ops.device(device):
        if all(isinstance(v, IndexedSlices) for v in values):
            vals = concat_ops.concat([v.values for v in values], 0)
            if reduce_op is ReduceOp.MEAN:
                vals = vals / n
            return IndexedSlices(vals, concat_ops.concat([v.indices for v in values], 0),
                                 values[0].dense_shape)
        values = [ops.convert_to_tensor(v) for v in values]
        total = values[0] if n == 1 else math_ops.add_n(values)
        if reduce_op is ReduceOp.MEAN and n > 1:
            total = total / cast_ops.cast(n, total.dtype)
        return total


def _broadcast(value, devices):
    from tideflow.ops import array_ops

    if len(devices) == 1:
        return value
    out = []
    for d in devices:
        with ops.device(d):
            if isinstance(value, IndexedSlices):
                out.append(IndexedSlices(array_ops.identity(value.values),
                                         array_ops.identity(value.indices), value.dense_shape))
            else:
                out.append(array_ops.identity(value))
    return Mirrored(out)


# -- replica threads ---------------------------------------------------------------------------

_GRAPH_STATE = ("_name_stack", "_control_dependencies_stack", "_device_function_stack",
                "_colocation_stack", "_frame_stack", "_attr_scope_map", "_gradient_override_map",
                "_container")


def _store(graph):
    from tideflow.ops import variable_scope

    with graph.as_default():  # the store of `graph` (a new thread has no default graph)
        return variable_scope.get_variable_scope_store()


def _save_state(graph):
    store = _store(graph)
    return [getattr(graph, a) for a in _GRAPH_STATE] + [store.current_scope,
                                                        store.variable_scopes_count]


def _copy_state(state):
    return [list(x) if isinstance(x, list) else dict(x) if isinstance(x, dict) else x
            for x in state]


def _restore_state(graph, state):
    for a, v in zip(_GRAPH_STATE, state):
        setattr(graph, a, v)
    store = _store(graph)
    store.current_scope, store.variable_scopes_count = state[-2], state[-1]


class _Call:
    """One ``call_for_each_replica``: the replicas' threads and what they share."""

    def __init__(self, strategy, graph):
        self.strategy, self.graph = strategy, graph
        self.created = []  # (name, variable) replica 0 made, handed to the others


class _ReplicaThread(threading.Thread):
    def __init__(self, call, replica_id, device, fn, args, kwargs, state):
        super().__init__(name=f"tideflow-replica-{replica_id}", daemon=True)
        self.call, self.replica_id, self.device = call, replica_id, device
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.state = _copy_state(state)
        # as TF's thread-local variable scope store: a replica starts with no scope counts,
        # so `dense` in every replica names the same variables (reused past the first)
        self.state[-1] = {}
        self.creators = list(variables_lib._creator_stack())  # the caller's, as TF's threads
        self.should_run, self.has_paused = threading.Event(), threading.Event()
        self.done, self.stop, self.error, self.result = False, False, None, None
        self.merge_fn = self.merge_args = self.merge_kwargs = self.merge_result = None
        self.consumed = set()

    def run(self):
        self.should_run.wait()
        self.should_run.clear()
        try:
            if self.stop:
                return
            _restore_state(self.call.graph, self.state)
            variables_lib._creators.stack = self.creators
            strategy = self.call.strategy
            ctx = _Ctx("replica", strategy, self.replica_id,
                       ReplicaContext(strategy, self.replica_id), self)
            with self.call.graph.as_default(), _Push(ctx, strategy.extended._creator), \
                    _replica_scopes(self.replica_id, self.device):
                self.result = self.fn(*self.args, **self.kwargs)
            self.done = True
        except BaseException as e:  # noqa: BLE001 - handed to the calling thread
            self.error = e
        finally:
            self.state = _save_state(self.call.graph)
            self.has_paused.set()

    def merge(self, merge_fn, args, kwargs):
        self.merge_fn, self.merge_args, self.merge_kwargs = merge_fn, args, kwargs
        self.state = _save_state(self.call.graph)
        self.has_paused.set()
        self.should_run.wait()
        self.should_run.clear()
        if self.stop:
            raise RuntimeError("The replica functions stopped: another replica failed.")
        _restore_state(self.call.graph, self.state)
        return self.merge_result


class _replica_scopes:
    """The device, name scope (``replica_<i>`` past the first) and variable reuse of a
    replica."""

    def __init__(self, replica_id, device):
        self._id, self._device, self._entered = replica_id, device, []

    def __enter__(self):
        from tideflow.ops import variable_scope

        scopes = [ops.device(self._device)]
        if self._id > 0:
            scopes.append(ops.name_scope(f"replica_{self._id}"))
            scopes.append(variable_scope.variable_scope(
                variable_scope.get_variable_scope(), reuse=True, auxiliary_name_scope=False))
        for s in scopes:
            s.__enter__()
            self._entered.append(s)

    def __exit__(self, *exc):
        while self._entered:
            self._entered.pop().__exit__(*exc)
        return False


def _run_replicas(strategy, fn, args, kwargs):
    ext = strategy.extended
    devices = ext.worker_devices
    if len(devices) == 1:
        ctx = _Ctx("replica", strategy, 0, ReplicaContext(strategy, 0), None)
        with _Push(ctx, ext._creator), ops.device(devices[0]):
            return fn(*args, **kwargs)
    graph = ops.get_default_graph()
    call = _Call(strategy, graph)
    main_state = _save_state(graph)
    threads = [_ReplicaThread(call, i, d, fn, select_replica(i, args), select_replica(i, kwargs),
                              main_state) for i, d in enumerate(devices)]
    for t in threads:
        t.start()
    try:
        while True:
            for t in threads:
                t.should_run.set()
                t.has_paused.wait()
                t.has_paused.clear()
                if t.error is not None:
                    raise t.error
            _restore_state(graph, main_state)
            if all(t.done for t in threads):
                break
            if any(t.done for t in threads):
                raise RuntimeError("Some replicas made a different number of "
                                   "replica_context().merge_call() calls.")
            merge_args = regroup([t.merge_args for t in threads])
            merge_kwargs = regroup([t.merge_kwargs for t in threads])
            with _Push(_Ctx("cross", strategy), ext._creator):
                result = threads[0].merge_fn(strategy, *merge_args, **merge_kwargs)
            _restore_state(graph, main_state)
            for i, t in enumerate(threads):
                t.merge_result = select_replica(i, result)
    finally:
        _restore_state(graph, main_state)
        for t in threads:
            if t.is_alive():
                t.stop = True
                t.should_run.set()
                t.join()
    return regroup([t.result for t in threads])


# -- contexts' public objects -----------------------------------------------------------------


class ReplicaContext:
    """The replica a replica function runs as: its id, the all-reduce and ``merge_call``."""

    def __init__(self, strategy, replica_id_in_sync_group):
        self._strategy = strategy
        self._replica_id = replica_id_in_sync_group
        self._id_tensor = None

    @property
    def strategy(self):
        return self._strategy

    @property
    def num_replicas_in_sync(self):
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        """This replica's index, as a scalar int32 tensor on its device."""
        if self._id_tensor is None:
            from tideflow.ops import constant_op

            self._id_tensor = constant_op.constant(self._replica_id, name="replica_id_in_sync_group")
        return self._id_tensor

    @property
    def devices(self):
        return (self._strategy.extended.worker_devices[self._replica_id],)

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """Runs ``merge_fn(strategy, *args, **kwargs)`` once, in cross-replica context, with
        each argument that differs per replica as a ``PerReplica``; every replica gets (its part
        of) the result."""
        kwargs = kwargs or {}
        top = _top()
        thread = top.call if top is not None and top.kind == "replica" else None
        if isinstance(thread, _ReplicaThread):
            return thread.merge(merge_fn, args, kwargs)
        with _Push(_Ctx("cross", self._strategy), self._strategy.extended._creator):
            return merge_fn(self._strategy, *args, **kwargs)

    def all_reduce(self, reduce_op, value):
        """The SUM or MEAN of ``value`` (a nested structure) over the replicas, on each."""
        reduce_op = _reduce_op(reduce_op)

        def merge(strategy, v):
            devices = strategy.extended.worker_devices
            return _nest_map(lambda x: _broadcast(
                _reduce_on(reduce_op, list(x.values) if isinstance(x, PerReplica) else [x],
                           devices[0]), devices), v)

        return self.merge_call(merge, args=(value,))


def _nest_map(fn, structure):
    from tideflow.framework import nest

    return nest.map_structure(fn, structure)


class _DefaultReplicaContext(ReplicaContext):
    """The replica context outside every strategy: one replica, reductions are identities."""

    @property
    def replica_id_in_sync_group(self):
        return 0

    @property
    def devices(self):
        return ("/replica:0/task:0/device:CPU:0",)

    def all_reduce(self, reduce_op, value):
        from tideflow.ops import array_ops

        _reduce_op(reduce_op)
        return _nest_map(array_ops.identity, value)


# -- strategies -------------------------------------------------------------------------------


class StrategyExtended:
    """The strategy's lower-level API: devices, variable placement, per-replica calls,
    reductions and updates."""

    def __init__(self, container_strategy, devices):
        self._container_strategy_ref = container_strategy
        self._devices = tuple(devices)
        self._colocate_stack = []
        # MirroredStrategy's variables are MirroredVariables even on one device, as TF's
        self._mirrors = False

    # devices
    @property
    def worker_devices(self):
        return self._devices

    @property
    def parameter_devices(self):
        return self._devices

    def _variable_devices(self):
        return self._devices

    @property
    def experimental_between_graph(self):
        return False

    @property
    def experimental_should_init(self):
        return True

    @property
    def should_checkpoint(self):
        return True

    @property
    def should_save_summary(self):
        return True

    @property
    def experimental_require_static_shapes(self):
        return False

    def non_slot_devices(self, var_list):
        return self._devices

    # variables
    def _creator(self, next_creator, **kwargs):
        top = _top()
        call = top.call if top is not None else None
        requested = kwargs.get("name") or "Variable"
        if isinstance(call, _ReplicaThread) and call.replica_id > 0:
            # a replica past the first gets the variable the first made with the same name,
            # in order (get_variable finds its variables itself: the scope reuses them)
            for i, (name, v) in enumerate(call.call.created):
                if name == requested and i not in call.consumed:
                    call.consumed.add(i)
                    return v
        devices = (self._colocate_stack[-1] if self._colocate_stack
                   else self._variable_devices())
        v = self._create_variable(next_creator, devices, kwargs)
        if isinstance(call, _ReplicaThread) and call.replica_id == 0:
            call.call.created.append((requested, v))
        return v

    def _create_variable(self, next_creator, devices, kwargs):
        from tideflow.ops import array_ops
        from tideflow.ops.tf1_misc_ops import VariableSynchronization

        sync = kwargs.get("synchronization")
        if len(devices) == 1 and not self._mirrors:
            with ops.colocate_with(None), ops.device(devices[0]):
                return next_creator(**kwargs)
        collections = kwargs.get("collections")
        collections = list(collections) if collections else [ops.GraphKeys.GLOBAL_VARIABLES]
        # a metric's variables are summed on read, as TF's metric variables (ON_READ, SUM)
        on_read = sync in (VariableSynchronization.ON_READ, "ON_READ") or (
            ops.GraphKeys.METRIC_VARIABLES in collections)
        trainable = kwargs.get("trainable", True)
        if trainable is None:
            trainable = True
        if trainable and ops.GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections.append(ops.GraphKeys.TRAINABLE_VARIABLES)
        components = []
        for i, d in enumerate(devices):
            kw = dict(kwargs, collections=[])
            if i > 0:
                primary = components[0]
                kw["name"] = f"{primary.op.name}/replica_{i}/"
                # every copy starts from the primary's initial value (one draw per run)
                kw["initial_value"] = lambda p=primary: array_ops.identity(p._initial_value)
                kw["dtype"] = primary.dtype.base_dtype
            with ops.colocate_with(None), ops.device(d):
                components.append(next_creator(**kw))
        trainable_coll = ops.get_collection_ref(ops.GraphKeys.TRAINABLE_VARIABLES)
        for v in components:  # the collections hold the mirrored variable, not its copies
            if v in trainable_coll:
                trainable_coll.remove(v)
        cls = SyncOnReadVariable if on_read else MirroredVariable
        mirrored = cls(self._container_strategy_ref, components, kwargs.get("aggregation"))
        ops.add_to_collections(collections, mirrored)
        return mirrored

    def colocate_vars_with(self, colocate_with_variable):
        """Variables made inside are placed on the devices of ``colocate_with_variable``."""
        ext = self

        class _Colocate:
            def __enter__(self):
                ext._colocate_stack.append(_devices_of(colocate_with_variable))

            def __exit__(self, *exc):
                ext._colocate_stack.pop()
                return False

        return _Colocate()

    def variable_created_in_scope(self, v):
        return isinstance(v, MirroredVariable) and v.distribute_strategy is \
            self._container_strategy_ref or (
                len(self._devices) == 1 and isinstance(v, variables_lib.Variable)
                and v.device == self._devices[0])

    # replica functions
    def call_for_each_replica(self, fn, args=(), kwargs=None):
        """Runs ``fn`` once per replica, on its device; returns ``PerReplica`` results."""
        return _run_replicas(self._container_strategy_ref, fn, tuple(args or ()), kwargs or {})

    # reductions
    def reduce_to(self, reduce_op, value, destinations):
        """``value`` reduced onto ``destinations`` (a device, a variable, a mirrored value)."""
        reduce_op = _reduce_op(reduce_op)
        devices = _devices_of(destinations)
        if isinstance(value, DistributedValues):
            parts = list(value.values)
        elif isinstance(value, MirroredVariable):
            parts = [value.primary.value()]
        else:
            if reduce_op is ReduceOp.SUM and self._container_strategy_ref.num_replicas_in_sync > 1:
                raise ValueError(f"A non-DistributedValues value {value} cannot be reduced with "
                                 f"the given reduce op {reduce_op}.")
            parts = [value]
        return _broadcast(_reduce_on(reduce_op, parts, devices[0] or self._devices[0]), devices)

    def batch_reduce_to(self, reduce_op, value_destination_pairs):
        return [self.reduce_to(reduce_op, v, d) for v, d in value_destination_pairs]

    def broadcast_to(self, tensor, destinations):
        """``tensor`` copied to each of ``destinations``' devices (a Mirrored for several)."""
        return _nest_map(lambda t: _broadcast(ops.convert_to_tensor(t),
                                              _devices_of(destinations)), tensor)

    # updates
    def update(self, var, fn, args=(), kwargs=None, group=True):
        """Runs ``fn(v, *args, **kwargs)`` for each copy ``v`` of ``var``, on its device."""
        kwargs = kwargs or {}
        if not isinstance(var, MirroredVariable):
            with _Push(_Ctx("update", self._container_strategy_ref, 0)), ops.colocate_with(var):
                return fn(var, *select_replica(0, args), **select_replica(0, kwargs))
        results = []
        for i, v in enumerate(var.values):
            with _Push(_Ctx("update", self._container_strategy_ref, i)), ops.device(v.device):
                results.append(fn(v, *select_replica(i, args), **select_replica(i, kwargs)))
        return _update_result(results, group)

    def update_non_slot(self, colocate_with, fn, args=(), kwargs=None, group=True):
        kwargs = kwargs or {}
        devices = _devices_of(colocate_with) if not isinstance(colocate_with, (list, tuple)) \
            else tuple(colocate_with)
        results = []
        for i, d in enumerate(devices):
            with _Push(_Ctx("update", self._container_strategy_ref, i)), ops.device(d):
                results.append(fn(*select_replica(i, args), **select_replica(i, kwargs)))
        return _update_result(results, group)

    def value_container(self, value):
        return value

    def read_var(self, v):
        return v.primary.read_value() if isinstance(v, MirroredVariable) else v.read_value()

    def experimental_make_numpy_dataset(self, numpy_input, session=None):
        from tideflow.ops import dataset_ops

        return dataset_ops.Dataset.from_tensor_slices(numpy_input)


def _update_result(results, group):
    from tideflow.ops import control_flow_ops

    if len(results) == 1:
        return results[0]
    if not group:
        return tuple(results)
    if all(isinstance(r, ops.Operation) for r in results):
        return control_flow_ops.group(*results)
    return Mirrored(results)


class Strategy:
    """A way to run a computation on several devices (``tf.distribute.Strategy``)."""

    def __init__(self, extended):
        self._extended = extended
        self._default_replica_context = _DefaultReplicaContext(self, 0)
        self._scale_loss_for_estimator = False

    @property
    def extended(self):
        return self._extended

    @property
    def num_replicas_in_sync(self):
        return len(self._extended.worker_devices)

    def scope(self):
        """Inside, variables are made for the strategy (mirrored on its devices)."""
        top = _top()
        if top is not None and top.strategy is not self:
            raise RuntimeError(f"Mixing different tf.distribute.Strategy objects: {top.strategy}"
                               f" is not {self}")
        return _Push(_Ctx("cross", self), self._extended._creator)

    def run(self, fn, args=(), kwargs=None, options=None):
        """Runs ``fn`` on each replica with its part of ``args``: ``PerReplica`` results."""
        return self._extended.call_for_each_replica(fn, args=args, kwargs=kwargs)

    experimental_run_v2 = run

    def experimental_run(self, fn, input_iterator=None):
        """``fn(next element)`` on each replica (the TF 1.x form)."""
        if input_iterator is None:
            return self.run(fn)
        return self.run(fn, args=(input_iterator.get_next(),))

    def reduce(self, reduce_op, value, axis=None):
        """The SUM or MEAN over the replicas of ``value`` (and over ``axis`` within each)."""
        from tideflow.ops import cast_ops, reduction_ops

        reduce_op = _reduce_op(reduce_op)
        host = self._host_device()
        if axis is None:
            return self._extended.reduce_to(reduce_op, value, host)
        parts = list(value.values) if isinstance(value, DistributedValues) else [value]
        if reduce_op is ReduceOp.SUM:
            summed = [reduction_ops.reduce_sum(p, axis=axis) for p in parts]
            return _reduce_on(ReduceOp.SUM, summed, host)
        summed = [reduction_ops.reduce_sum(p, axis=axis) for p in parts]
        counts = [cast_ops.cast(_dim(p, axis), summed[0].dtype) for p in parts]
        total = _reduce_on(ReduceOp.SUM, summed, host)
        with ops.device(host):
            return total / _reduce_on(ReduceOp.SUM, counts, host)

    def _host_device(self):
        d = self._extended.worker_devices[0]
        return d[:d.rindex("/device:")] + "/device:CPU:0" if "/device:" in d else d

    def experimental_local_results(self, value):
        """The per-replica parts of ``value`` as a tuple."""
        if isinstance(value, (DistributedValues, MirroredVariable)):
            return tuple(value.values)
        return (value,)

    unwrap = experimental_local_results

    def colocate_vars_with(self, colocate_with_variable):
        """Variables made inside are placed with ``colocate_with_variable`` (TF 1.x's)."""
        return self._extended.colocate_vars_with(colocate_with_variable)

    def group(self, value, name=None):
        from tideflow.framework import nest
        from tideflow.ops import control_flow_ops

        flat = []
        for x in nest.flatten(value):
            flat.extend(self.experimental_local_results(x))
        return control_flow_ops.group(*flat, name=name)

    # input
    def experimental_distribute_dataset(self, dataset, options=None):
        """Each global batch of ``dataset`` split along its first dimension over replicas."""
        from tideflow.distribute import input_lib

        return input_lib.DistributedDataset(dataset, self)

    def make_dataset_iterator(self, dataset):
        from tideflow.distribute import input_lib

        return input_lib.DistributedDataset(dataset, self)._make_iterator(initializable=True)

    def make_input_fn_iterator(self, input_fn, replication_mode=InputReplicationMode.PER_WORKER):
        """``input_fn(InputContext)`` -> a dataset whose elements are per-replica batches:
        each replica takes its own element."""
        from tideflow.distribute import input_lib

        if replication_mode != InputReplicationMode.PER_WORKER:
            raise ValueError(f"Input replication mode {replication_mode} is not supported.")
        ctx = input_lib.InputContext(1, 0, self.num_replicas_in_sync)
        return input_lib.InputFunctionIterator(input_fn(ctx), self)

    def experimental_make_numpy_iterator(self, numpy_input, batch_size, num_epochs=1,
                                         shuffle=1024, session=None):
        ds = self._extended.experimental_make_numpy_dataset(numpy_input, session=session)
        if shuffle:
            ds = ds.shuffle(shuffle)
        ds = ds.repeat(num_epochs).batch(batch_size)
        return self.make_dataset_iterator(ds)

    def experimental_distribute_datasets_from_function(self, dataset_fn, options=None):
        from tideflow.distribute import input_lib

        ctx = input_lib.InputContext(1, 0, self.num_replicas_in_sync)
        return input_lib.InputFunctionDataset(dataset_fn(ctx), self)

    # config
    def configure(self, session_config=None, cluster_spec=None, task_type=None, task_id=None):
        """Adjusts ``session_config`` in place so that the strategy's devices exist."""
        if session_config is not None:
            session_config.CopyFrom(self.update_config_proto(session_config))

    def update_config_proto(self, config_proto):
        """A copy of ``config_proto`` with enough CPU devices for the strategy's replicas."""
        import copy

        config = copy.deepcopy(config_proto)
        need = 1 + max([_device_index(d, "CPU") for d in self._extended.worker_devices] or [0])
        if need > 1 and config.device_count.get("CPU", 1) < need:
            config.device_count["CPU"] = need
        return config

    def __deepcopy__(self, memo):
        return self  # a RunConfig holding a strategy may be copied

    def __repr__(self):
        return f"<tideflow.distribute.{type(self).__name__} object at {id(self):#x}>"


def _device_index(device, dev_type):
    spec = device_lib.DeviceSpec.from_string(device)
    if (spec.device_type or "").upper() != dev_type:
        return -1
    return spec.device_index or 0


def _dim(t, axis):
    from tideflow.ops import array_ops, cast_ops, reduction_ops

    shape = array_ops.shape(t)
    axes = axis if isinstance(axis, (list, tuple)) else [axis]
    return reduction_ops.reduce_prod(cast_ops.cast(array_ops.gather(shape, axes), "int64"))


class _DefaultStrategy(Strategy):
    """The strategy in effect outside every scope: one replica on the default device."""

    def __init__(self):
        super().__init__(_DefaultExtended(self))

    def scope(self):
        return _Push(_Ctx("cross", self))

    def run(self, fn, args=(), kwargs=None, options=None):
        return fn(*args, **(kwargs or {}))

    experimental_run_v2 = run

    @property
    def num_replicas_in_sync(self):
        return 1

    def reduce(self, reduce_op, value, axis=None):
        from tideflow.ops import reduction_ops

        reduce_op = _reduce_op(reduce_op)
        if axis is None:
            return value
        fn = reduction_ops.reduce_sum if reduce_op is ReduceOp.SUM else reduction_ops.reduce_mean
        return fn(value, axis=axis)


class _DefaultExtended(StrategyExtended):
    def __init__(self, container):
        super().__init__(container, ("",))

    @property
    def worker_devices(self):
        raise RuntimeError("worker_devices() method unsupported by default "
                           "tf.distribute.Strategy.")

    @property
    def parameter_devices(self):
        raise RuntimeError("parameter_devices() method unsupported by default "
                           "tf.distribute.Strategy.")

    def _creator(self, next_creator, **kwargs):
        return next_creator(**kwargs)


_DEFAULT = []


def _default_strategy():
    if not _DEFAULT:
        _DEFAULT.append(_DefaultStrategy())
    return _DEFAULT[0]


class MirroredStrategy(Strategy):
    """Synchronous training on the devices of one machine: a copy of each variable on each
    device, the replica function run once per device, gradients summed over the replicas.
    ``devices=None``: the GPUs if there are any, else the CPU."""

    def __init__(self, devices=None, cross_device_ops=None):
        if devices is None:
            devices = _default_devices()
        if isinstance(devices, str):
            devices = [devices]
        devices = tuple(_canonical(d) for d in devices)
        if not devices:
            raise ValueError("Got an empty `devices` list. Please make sure the `devices` you "
                             "pass in is not empty.")
        if len(set(devices)) != len(devices):
            raise AssertionError(f"No duplicates allowed in `devices` argument: {devices}")
        self._cross_device_ops = cross_device_ops
        super().__init__(StrategyExtended(self, devices))
        self._extended._mirrors = True


def _default_devices():
    from tideflow.kernels.device import gpu_info

    try:
        _, gpus = gpu_info()
    except Exception:  # noqa: BLE001 - no GPU backend: the CPU
        gpus = []
    if gpus:
        return [f"/replica:0/task:0/device:GPU:{i}" for i in range(len(gpus))]
    return ["/replica:0/task:0/device:CPU:0"]


class OneDeviceStrategy(Strategy):
    """Everything on one device: variables and the replica function placed there."""

    def __init__(self, device):
        super().__init__(StrategyExtended(self, (_canonical(device),)))


class CentralStorageStrategy(Strategy):
    """Variables on one device (the CPU), the computation replicated on ``compute_devices``."""

    def __init__(self, compute_devices=None, parameter_device=None):
        devices = tuple(_canonical(d) for d in (compute_devices or _default_devices()))
        param = _canonical(parameter_device or "/device:CPU:0")
        super().__init__(_SingleParamExtended(self, devices, param))


class _SingleParamExtended(StrategyExtended):
    def __init__(self, container, devices, param_device):
        super().__init__(container, devices)
        self._param_device = param_device

    @property
    def parameter_devices(self):
        return (self._param_device,)

    def _variable_devices(self):
        return (self._param_device,)

    def non_slot_devices(self, var_list):
        return (self._param_device,)


class ParameterServerStrategy(Strategy):
    """Variables on parameter servers, computation on the workers. Without a cluster
    (``TF_CONFIG`` unset) it runs locally: variables on the CPU, replicas on the local
    devices, as TF's does."""

    def __init__(self, cluster_resolver=None):
        from tideflow.distribute import cluster_resolver as cr

        self._cluster_resolver = cluster_resolver or cr.TFConfigClusterResolver()
        spec = self._cluster_resolver.cluster_spec().as_dict()
        if spec.get("ps"):
            raise NotImplementedError(
                "ParameterServerStrategy with a cluster: use tf.train.replica_device_setter and "
                "tf.train.Server (tideflow's between-graph replication) instead.")
        super().__init__(_SingleParamExtended(self, tuple(_canonical(d) for d in
                                                          _default_devices()),
                                              _canonical("/device:CPU:0")))


class MultiWorkerMirroredStrategy(Strategy):
    """Mirrored training across workers; with one worker (no ``TF_CONFIG``) it is a
    MirroredStrategy on the local devices."""

    def __init__(self, communication=None, cluster_resolver=None, communication_options=None):
        from tideflow.distribute import cluster_resolver as cr

        self._cluster_resolver = cluster_resolver or cr.TFConfigClusterResolver()
        workers = self._cluster_resolver.cluster_spec().as_dict()
        if len(workers.get("worker", [])) + len(workers.get("chief", [])) > 1:
            raise NotImplementedError(
                "MultiWorkerMirroredStrategy with several workers needs collective ops, which "
                "tideflow does not have; use between-graph replication with parameter servers.")
        super().__init__(StrategyExtended(self, tuple(_canonical(d) for d in
                                                      _default_devices())))
        self._extended._mirrors = True


class CollectiveCommunication(enum.Enum):
    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


CommunicationImplementation = CollectiveCommunication


class CommunicationOptions:
    def __init__(self, bytes_per_pack=0, timeout_seconds=None, implementation=None):
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation


class CrossDeviceOps:
    """How reductions cross devices: tideflow reduces on one device and copies the result."""

    def reduce(self, reduce_op, per_replica_value, destinations):
        parts = list(per_replica_value.values) if isinstance(per_replica_value,
                                                             DistributedValues) else [
            per_replica_value]
        devices = _devices_of(destinations)
        return _broadcast(_reduce_on(_reduce_op(reduce_op), parts, devices[0]), devices)

    def batch_reduce(self, reduce_op, value_destination_pairs):
        return [self.reduce(reduce_op, v, d) for v, d in value_destination_pairs]


class ReductionToOneDevice(CrossDeviceOps):
    def __init__(self, reduce_to_device=None, accumulation_fn=None):
        self.reduce_to_device = reduce_to_device


class HierarchicalCopyAllReduce(CrossDeviceOps):
    def __init__(self, num_packs=1):
        self.num_packs = num_packs


class NcclAllReduce(CrossDeviceOps):
    def __init__(self, num_packs=1):
        self.num_packs = num_packs


# -- the optimizer in a replica ----------------------------------------------------------------


def optimizer_apply(optimizer, grads_and_vars, global_step, name):
    """``Optimizer.apply_gradients`` called in a replica: None when not in one (the plain
    path runs); else the train op, after the gradients are summed over the replicas and each
    device's copy of each variable is updated with the sum."""
    top = _top()
    if top is None or top.kind != "replica":
        mirrored = [v for g, v in grads_and_vars
                    if g is not None and isinstance(v, MirroredVariable)]
        if not mirrored:
            return None
        # gradients computed once (from the primary copies, e.g. Keras' fit outside a replica
        # function): every copy gets the same update, so the copies stay equal
        strategy = mirrored[0].distribute_strategy
        with _Push(_Ctx("cross", strategy), strategy.extended._creator):
            return _merge_apply(strategy, optimizer, list(grads_and_vars), global_step, name,
                                reduce=False)
    ctx = top.replica_ctx
    return ctx.merge_call(_merge_apply, args=(optimizer, list(grads_and_vars), global_step,
                                                name))


def scale_loss(loss):
    """The loss an optimizer differentiates in a replica: divided by the number of replicas
    when the gradients are to be averaged (an Estimator's model_fn)."""
    top = _top()
    if top is None or top.kind != "replica" or get_loss_reduction() is not ReduceOp.MEAN:
        return loss
    n = top.strategy.num_replicas_in_sync
    return loss if n == 1 else loss * (1.0 / n)


def _merge_apply(strategy, optimizer, grads_and_vars, global_step, name, reduce=True):
    from tideflow.ops import control_flow_ops
    from tideflow.train import optimizer as optimizer_lib

    ext = strategy.extended
    # each replica may have made its own optimizer (an Estimator's model_fn): the first's
    # slots and hyper-parameters serve them all, as in TF
    optimizer, name, global_step = (x.values[0] if isinstance(x, PerReplica) else x
                                    for x in (optimizer, name, global_step))
    pairs = [(g, v) for g, v in grads_and_vars if g is not None]
    if not pairs:
        raise ValueError(f"No gradients provided for any variable: "
                         f"{[str(v) for _, v in grads_and_vars]}.")
    if reduce:
        reduced = ext.batch_reduce_to(ReduceOp.SUM, [(g, v) for g, v in pairs])
    else:
        reduced = [g if isinstance(g, DistributedValues) else _broadcast(g, _devices_of(v))
                   for g, v in pairs]
    var_list = [v for _, v in pairs]
    with ops.control_dependencies(None):
        optimizer._create_slots(var_list)
    n = max(len(v.values) if isinstance(v, MirroredVariable) else 1 for v in var_list)
    device_updates = []
    with ops.name_scope(name, optimizer._name) as scope:
        for i in range(n):
            with _Push(_Ctx("update", strategy, i)):
                optimizer._prepare()
                updates = []
                for g, v in zip(reduced, var_list):
                    if not isinstance(v, MirroredVariable) and i > 0:
                        continue
                    g = g._component(i) if isinstance(g, DistributedValues) else g
                    with ops.name_scope("update_" + v.op.name), ops.colocate_with(v):
                        updates.append(optimizer_lib._get_processor(v).update_op(optimizer, g))
                device_updates.append(optimizer._finish(
                    updates, "update" if i == 0 else f"update_{i}"))
        if global_step is None:
            train_op = control_flow_ops.group(*device_updates, name=scope)
        else:
            with ops.control_dependencies(device_updates):
                if isinstance(global_step, MirroredVariable):
                    train_op = global_step.assign_add(1, read_value=False)
                else:
                    from tideflow.ops import state_ops

                    with ops.colocate_with(global_step):
                        train_op = state_ops.assign_add(global_step, 1, name=scope).op
    if isinstance(train_op, ops.Tensor):
        train_op = train_op.op
    coll = ops.get_collection_ref(ops.GraphKeys.TRAIN_OP)
    if train_op not in coll:
        coll.append(train_op)
    return train_op


def _replica_variable_update(var, method, value, read_value, kwargs):
    """An assignment to a MirroredVariable in a replica: with an aggregation, the replicas'
    values are combined and every copy gets the result; without one it is TF's error."""
    from tideflow.ops.tf1_misc_ops import VariableAggregation

    agg = var._mirrored_aggregation
    if agg is None or agg == VariableAggregation.NONE:
        raise ValueError(
            "You must specify an aggregation method to update a MirroredVariable in Replica "
            "Context. You can do so by passing an explicit value for argument `aggregation` to "
            "tf.Variable(..).e.g. `tf.Variable(..., aggregation=tf.VariableAggregation.SUM)`."
            "`tf.VariableAggregation` lists the possible aggregation methods.This is required "
            "because MirroredVariable should always be kept in sync. When updating them or "
            "assigning to them in a replica context, we automatically try to aggregate the "
            "values before updating the variable. For this aggregation, we need to know the "
            "aggregation method. Another alternative is to not try to update such "
            "MirroredVariable in replica context. You can do this by using "
            "`tf.distribute.get_replica_context().merge_call` or by using "
            "`tf.distribute.get_strategy().extended.update` instead.")

    def merge(strategy, v, val):
        if agg == VariableAggregation.ONLY_FIRST_REPLICA:
            first = val._component(0) if isinstance(val, DistributedValues) else val
            reduced = _broadcast(first, v.devices)
        else:
            reduced = strategy.extended.reduce_to(ReduceOp[agg.name], val, v)
        return v._update(method, reduced, read_value, **kwargs)

    return get_replica_context().merge_call(merge, args=(var, value))
