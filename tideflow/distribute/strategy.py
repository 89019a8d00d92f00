"""``tf.distribute`` strategies in graph mode: MirroredStrategy (a copy of each variable on
each device, made by a variable creator), OneDeviceStrategy and the single-machine forms of
the experimental ones, with the strategy's extended API (per-replica calls, reductions,
updates) and input methods."""

import enum

from tideflow.distribute.replica import (  # noqa: F401 - tf.distribute's names live here too
    ReduceOp,
    ReplicaContext,
    RunOptions,
    _broadcast,
    _canonical,
    _Ctx,
    _DefaultReplicaContext,
    _devices_of,
    _nest_map,
    _Push,
    _reduce_on,
    _reduce_op,
    _ReplicaThread,
    _run_replicas,
    _top,
    experimental_set_strategy,
    get_cross_replica_context,
    get_loss_reduction,
    get_replica_context,
    get_strategy,
    has_strategy,
    in_cross_replica_context,
)
from tideflow.distribute.values import (
    DistributedValues,
    Mirrored,
    MirroredVariable,
    SyncOnReadVariable,
    select_replica,
)
from tideflow.framework import device as device_lib
from tideflow.framework import ops
from tideflow.ops import variables as variables_lib


class InputReplicationMode(enum.Enum):
    """How ``make_input_fn_iterator`` replicates input: one pipeline per worker."""

    PER_WORKER = "PER_WORKER"


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
        kwargs["use_resource"] = True  # as TF 1.15: a strategy's variables are resource ones
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
            with ops.colocate_with(None, ignore_existing=True), ops.device(devices[0]):
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
                kw["initial_value"] = lambda p=primary, d=d: _on_device(
                    d, lambda: array_ops.identity(p._initial_value))
                kw["dtype"] = primary.dtype.base_dtype
            with ops.colocate_with(None, ignore_existing=True), ops.device(d):
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
            return value  # (as TF's: the same on every replica, left as it is)
        if len(parts) == 1 and len(devices) == 1 and _same_device(parts[0], devices[0]):
            return parts[0]  # (TF's shortcut: nothing to reduce or copy)
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
            with _Push(_Ctx("update", self._container_strategy_ref, i)), \
                    ops.device(v.device), ops.name_scope(f"update_{i}"):
                results.append(fn(v, *select_replica(i, args), **select_replica(i, kwargs)))
        return _update_result(results, group)

    def update_non_slot(self, colocate_with, fn, args=(), kwargs=None, group=True):
        kwargs = kwargs or {}
        devices = _devices_of(colocate_with) if not isinstance(colocate_with, (list, tuple)) \
            else tuple(colocate_with)
        results = []
        for i, d in enumerate(devices):
            with _Push(_Ctx("update", self._container_strategy_ref, i)), ops.device(d), \
                    ops.name_scope(f"update_{i}"):
                results.append(fn(*select_replica(i, args), **select_replica(i, kwargs)))
        return _update_result(results, group)

    def value_container(self, value):
        return value

    def read_var(self, v):
        return v.primary.read_value() if isinstance(v, MirroredVariable) else v.read_value()

    def experimental_make_numpy_dataset(self, numpy_input, session=None):
        from tideflow.ops import dataset_ops

        return dataset_ops.Dataset.from_tensor_slices(numpy_input)


def _on_device(device, fn):
    with ops.device(device):  # (as TF's copies' initial values: on the copy's device)
        return fn()


def _same_device(value, device):
    from tideflow.framework.device import canonical_name

    have = getattr(value, "device", None)
    return have is not None and canonical_name(have or "") == canonical_name(device or "")


def _update_result(results, group):
    """The copies' updates as TF's ``update_regroup``: grouped, each tensor result read again
    after the group (so fetching one copy's result runs every copy's update)."""
    from tideflow.ops import array_ops, control_flow_ops

    if len(results) == 1:
        return results[0]
    if not group:
        return tuple(results)
    if not all(isinstance(r, (ops.Operation, ops.Tensor)) for r in results):
        return Mirrored(results)
    # (an update's read stands for its update op, as TF's unread variable)
    deps = control_flow_ops.group(*[getattr(r, "_update_op", None) or r for r in results])
    if not all(isinstance(r, ops.Tensor) for r in results):
        return deps
    with_deps = []
    for r in results:
        update = getattr(r, "_update_op", None)
        with ops.device(r.device), ops.control_dependencies([deps]):
            if update is None:
                with_deps.append(array_ops.identity(r))
                continue
            # an update's read of a resource variable is read again, as TF's unread variable
            with ops.name_scope("Identity") as scope, ops.control_dependencies([update]):
                handle = r.op.inputs[0]
                read = ops.apply_op("ReadVariableOp", [handle], {"dtype": r.dtype.base_dtype},
                                    name="ReadVariableOp")._outputs[0]
            with_deps.append(array_ops.identity(read, name=scope))
    return Mirrored(with_deps)


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


class _DefaultDistributionStrategy(Strategy):
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
        _DEFAULT.append(_DefaultDistributionStrategy())
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
        # (as TF's: the parameter device as given, its variables under tf.device of it)
        param = parameter_device or "/device:CPU:0"
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
                                              "/device:CPU:0"))


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
