"""Where a tf.distribute computation is: the strategy, replica and update contexts (per
thread), the lockstep threads that build a replica function once per device (``merge_call``
sees every replica's arguments), the graph state they swap, and reductions across devices."""

import enum
import threading

from tideflow.distribute.values import (
    DistributedValues,
    Mirrored,
    MirroredVariable,
    PerReplica,
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
    from tideflow.ops import concat_ops, math_ops

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
            total = total / n  # (as TF's divide_by_n: a "truediv/y" Const)
        return total


def _broadcast(value, devices):
    """``value`` copied to each of ``devices`` (an Identity on each, as TF's simple broadcast;
    a Mirrored for several)."""
    from tideflow.ops import array_ops

    if isinstance(value, (int, float)):
        return value  # (as TF's: converted where used, so 1 added to an int64 stays int64)
    out = []
    for d in devices:
        with ops.device(d):
            if isinstance(value, IndexedSlices):
                out.append(IndexedSlices(array_ops.identity(value.values),
                                         array_ops.identity(value.indices), value.dense_shape))
            else:
                out.append(array_ops.identity(value))
    return Mirrored(out) if len(out) > 1 else out[0]


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
            replica_ctx = ReplicaContext(strategy, self.replica_id)
            ctx = _Ctx("replica", strategy, self.replica_id, replica_ctx, self)
            with self.call.graph.as_default(), _Push(ctx, strategy.extended._creator):
                replica_ctx._make_id_tensor()
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
        replica_ctx = ReplicaContext(strategy, 0)
        ctx = _Ctx("replica", strategy, 0, replica_ctx, None)
        with _Push(ctx, ext._creator), ops.device(devices[0]):
            # (a OneDeviceStrategy's in the caller's scopes, a replica thread's outside them)
            replica_ctx._make_id_tensor(type(strategy).__name__ != "OneDeviceStrategy")
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
        """This replica's index, as a scalar int32 tensor."""
        if self._id_tensor is None:
            self._make_id_tensor()
        return self._id_tensor

    def _make_id_tensor(self, outside_scopes=True):
        """The replica id's Const, made as TF 1.15 makes it before the replica function runs
        (by a replica thread: at the top level, on no device)."""
        from tideflow.ops import constant_op

        if not outside_scopes:
            self._id_tensor = constant_op.constant(self._replica_id)
            return
        with ops.name_scope(None), ops.device(None), ops.control_dependencies(None):
            self._id_tensor = constant_op.constant(self._replica_id)

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
            result = merge_fn(self._strategy, *args, **kwargs)
        if top is not None and top.kind == "replica":
            # the lone replica gets its part of the result, as each replica thread does
            return select_replica(top.index, result)
        return result

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


def _default_strategy():
    from tideflow.distribute import strategy

    return strategy._default_strategy()
