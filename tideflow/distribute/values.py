"""Distributed values: ``PerReplica`` (one value per replica), ``Mirrored`` (the same value on
every device) and ``MirroredVariable`` (one variable per device, kept equal by its updates)."""

from tideflow.framework import nest, ops
from tideflow.ops import control_flow_ops, state_ops
from tideflow.ops import variables as variables_lib
from tideflow.train import saveable as saveable_lib


class DistributedValues:
    """Values, one per replica (device), in the strategy's device order."""

    def __init__(self, values):
        self._values = tuple(values)

    @property
    def values(self):
        return self._values

    @property
    def devices(self):
        return tuple(getattr(v, "device", None) for v in self._values)

    @property
    def primary(self):
        return self._values[0]

    def _component(self, index):
        return self._values[index]

    def __repr__(self):
        inner = ",\n".join(f"  {i}: {v!r}" for i, v in enumerate(self._values))
        return f"{type(self).__name__}:{{\n{inner}\n}}"

    __str__ = __repr__


class PerReplica(DistributedValues):
    """A value that differs per replica (what a replica function returns, an input element)."""


class Mirrored(DistributedValues):
    """The same value on every replica's device (the result of an all-reduce)."""

    def _as_graph_element(self):
        # what a session fetches: the current device's copy (the primary outside replicas)
        value = self._component(_context())
        convert = getattr(value, "_as_graph_element", None)
        return convert() if callable(convert) else value


def _context():
    from tideflow.distribute import replica

    return replica._current_index()


def _mirrored_conversion(value, dtype=None, name=None, as_ref=False):
    return ops.convert_to_tensor(value._component(_context()), dtype=dtype, name=name,
                                 as_ref=as_ref)


ops.register_tensor_conversion_function(Mirrored, _mirrored_conversion)


def _mirrored_operator(name):
    # arithmetic on a Mirrored value uses the current device's copy (the primary in
    # cross-replica context), as its tensor conversion does
    def run(self, *args):
        return getattr(ops.Tensor, name)(ops.convert_to_tensor(self), *args)

    run.__name__ = name
    return run


for _name in variables_lib._OVERLOADABLE:
    setattr(Mirrored, _name, _mirrored_operator(_name))


class _MirroredSaveable(saveable_lib.SaveableObject):
    """Saves the primary copy; restoring assigns the saved value to every copy."""

    def __init__(self, mirrored, name):
        self._mirrored = mirrored
        primary = mirrored._primary
        # (a resource copy is saved from the read its creation made, as TF's)
        primary = primary._graph_element if primary._resource else primary._ref()
        super().__init__(primary, [saveable_lib.SaveSpec(primary, "", name)], name)

    def restore(self, restored_tensors, restored_shapes):
        restored = restored_tensors[0]
        assigns = []
        for v in self._mirrored._components:
            with ops.device(v.device):
                assigns.append(state_ops.assign(v._ref(), restored))
        return control_flow_ops.group(*assigns)


class MirroredVariable(variables_lib.Variable):
    """One variable per device of a strategy. Read in a replica (or an ``extended.update``
    on a device) it is that device's copy; read in cross-replica context it is the primary
    (first) copy. Assigned in cross-replica context, every copy gets the value."""

    _is_mirrored_variable = True  # what state_ops and the optimizer look for

    def __init__(self, strategy, components, aggregation):
        # Variable.__init__ is not called: the copies hold the state
        self._strategy = strategy
        self._components = tuple(components)
        self._primary = self._components[0]
        self._mirrored_aggregation = aggregation
        self._save_slice_info = None

    # the state Variable's methods use, routed to the current device's copy
    def _current(self):
        return self._components[_context()]

    _variable = property(lambda self: self._current()._variable)
    _snapshot = property(lambda self: self._current()._snapshot)
    _graph_element = property(lambda self: self._current()._graph_element)
    _resource = property(lambda self: self._primary._resource)
    _dtype = property(lambda self: self._primary._dtype)
    _var_shape = property(lambda self: self._primary.shape)
    _caching_device = property(lambda self: self._primary._caching_device)
    _constraint = property(lambda self: self._primary._constraint)
    _trainable = property(lambda self: self._primary._trainable)
    _synchronization = property(lambda self: self._primary._synchronization)
    _aggregation = property(lambda self: self._mirrored_aggregation)

    @property
    def values(self):
        """The per-device copies (TF's ``MirroredVariable.values``)."""
        return self._components

    @property
    def devices(self):
        return tuple(v.device for v in self._components)

    @property
    def primary(self):
        return self._primary

    @property
    def distribute_strategy(self):
        return self._strategy

    @property
    def name(self):
        return self._primary.name

    @property
    def dtype(self):
        # the copies are resource variables: float32, not float32_ref (as TF's)
        return self._primary.dtype

    def value(self):
        # the current copy's value: a resource variable's fresh read (an op's
        # "MatMul/ReadVariableOp" when a MatMul converts it, as TF's); in cross-replica
        # context TF 1.15 first builds (and drops) an Identity of the copy
        self._cross_replica_read()
        return self._current().value()

    def read_value(self):
        # TF 1.15's extended.read_var: an Identity of get() in cross-replica context
        read = self._cross_replica_read()
        if read is None:
            return self._current().read_value()
        from tideflow.ops import array_ops

        return array_ops.identity(read)

    def __getitem__(self, slice_spec):
        read = self._cross_replica_read()
        if read is None:
            return variables_lib.Variable.__getitem__(self, slice_spec)
        return read[slice_spec]

    @property
    def _shared_name(self):
        return self._primary.op.name

    @property
    def op(self):
        return self._current().op

    @property
    def device(self):
        return self._current().device

    @property
    def initializer(self):
        override = getattr(self, "_init_override", None)
        if override is not None:
            return override
        return control_flow_ops.group(*[v.initializer for v in self._components])

    # init_from_checkpoint and warm-starting replace a variable's initializer (an assign to
    # its primary ref) and then its initial value: the other copies start from that value too
    @property
    def _initializer_op(self):
        return self.initializer

    @_initializer_op.setter
    def _initializer_op(self, op):
        self._pending_init = op

    @property
    def _initial_value(self):
        value = getattr(self, "_init_value_override", None)
        return self._primary._initial_value if value is None else value

    @_initial_value.setter
    def _initial_value(self, value):
        self._init_value_override = value
        pending = getattr(self, "_pending_init", None)
        inits = [pending if pending is not None else self._primary.initializer]
        with ops.control_dependencies(None):
            for v in self._components[1:]:
                with ops.colocate_with(None, ignore_existing=True), ops.device(v.device):
                    t = state_ops.assign(v._ref(), value)
                    inits.append(t if isinstance(t, ops.Operation) else t.op)
        self._init_override = control_flow_ops.group(*inits)

    def _should_act_as_resource_variable(self):
        return False

    def _in_update_all(self):
        from tideflow.distribute import replica

        return replica._in_cross_replica_of(self._strategy)

    def _update(self, method, value, read_value, **kwargs):
        """An assignment: to every copy in cross-replica context (the value placed on each
        copy's device), to the current copy in a replica or an update."""
        from tideflow.distribute import replica

        if not self._in_update_all():
            if replica._in_replica_of(self._strategy):
                return _updates()._replica_variable_update(self, method, value, read_value,
                                                         kwargs)
            return getattr(self._current(), method)(value, read_value=read_value, **kwargs)
        def update(v, x):
            return getattr(v, method)(x, read_value=read_value, **kwargs)

        # as TF's: extended.update, each copy's update on its device (not with a colocation
        # the caller set for the primary); a Mirrored of the reads, or the group of the ops
        with ops.colocate_with(None, ignore_existing=True):
            return self._strategy.extended.update(self, update, args=(value,))

    def assign(self, value, use_locking=False, name=None, read_value=True):
        return self._update("assign", value, read_value, use_locking=use_locking, name=name)

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        return self._update("assign_add", delta, read_value, use_locking=use_locking, name=name)

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        return self._update("assign_sub", delta, read_value, use_locking=use_locking, name=name)

    def _cross_replica_read(self):
        # as TF 1.15's get(): read in a strategy's cross-replica context (its scope, outside
        # replica functions and updates) the variable is an Identity of its copy, so such a
        # read adds two ops ("MatMul/Identity/ReadVariableOp", "MatMul/Identity") and moves
        # the op seeds of random initializers made after it, as in TF; None elsewhere
        from tideflow.distribute import replica

        top = replica._top()
        if top is None or top.kind != "cross":
            return None
        from tideflow.ops import array_ops

        return array_ops.identity(self._primary)

    @staticmethod
    def _TensorConversionFunction(v, dtype=None, name=None, as_ref=False):
        read = None if as_ref else v._cross_replica_read()
        if read is None:
            return variables_lib.Variable._TensorConversionFunction(v, dtype, name, as_ref)
        return ops.convert_to_tensor(read, dtype=dtype, name=name)

    def load(self, value, session=None):
        for v in self._components:
            v.load(value, session=session)

    def _saveable_objects(self, name):
        return [_MirroredSaveable(self, name)]

    def to_proto(self, export_scope=None):
        return self._primary.to_proto(export_scope=export_scope)

    def __repr__(self):
        inner = ",\n".join(f"  {i}: {v!r}" for i, v in enumerate(self._components))
        return f"MirroredVariable:{{\n{inner}\n}}"


# ahead of Variable's own (priority 100), which would otherwise match first
ops.register_tensor_conversion_function(MirroredVariable,
                                       MirroredVariable._TensorConversionFunction, priority=99)


def _mirrored_variable_operator(operator):
    # TF's DistributedDelegate: the operator applies to get() (an Identity in cross-replica
    # context), else to the current copy's value as a Variable's operators do
    plain = getattr(variables_lib.Variable, operator)

    def run(self, *args):
        read = self._cross_replica_read()
        if read is None:
            return plain(self, *args)
        return getattr(ops.Tensor, operator)(read, *args)

    run.__name__ = operator
    return run


for _name in variables_lib._OVERLOADABLE:
    if _name != "__getitem__":
        setattr(MirroredVariable, _name, _mirrored_variable_operator(_name))


def select_replica(index, structure):
    """The replica ``index``'s part of a structure holding distributed values."""

    def pick(x):
        if isinstance(x, DistributedValues):
            return x._component(index)
        return x

    return nest.map_structure(pick, structure)


def regroup(per_replica, wrap_class=PerReplica):
    """Structures from each replica -> one structure of ``PerReplica`` leaves (a leaf equal in
    every replica, such as a MirroredVariable or the op an update returned, is kept as is)."""
    if len(per_replica) == 1:
        return per_replica[0]
    first = per_replica[0]
    flats = [nest.flatten(s) for s in per_replica]
    for f in flats[1:]:
        if len(f) != len(flats[0]):
            raise ValueError("The replicas returned structures that differ: "
                             f"{per_replica[0]!r} and {per_replica[1]!r}.")
    leaves = []
    for parts in zip(*flats):
        if all(p is parts[0] for p in parts):
            leaves.append(parts[0])
        else:
            leaves.append(wrap_class(parts))
    return nest.pack_sequence_as(first, leaves)


class SyncOnReadVariable(MirroredVariable):
    """One variable per device that each replica updates alone (a metric's total and count);
    read in cross-replica context it is the SUM (or MEAN, or first) of the copies."""

    def value(self):
        return self._snapshot  # (the copies' aggregate, not the current copy's read)

    def _reduced(self):
        from tideflow.ops import math_ops

        agg = getattr(self._mirrored_aggregation, "name", "SUM")
        snaps = [c._snapshot for c in self._components]
        with ops.device(self._primary.device):
            if agg == "ONLY_FIRST_REPLICA":
                return snaps[0]
            total = math_ops.add_n(snaps)
            return total / len(snaps) if agg == "MEAN" else total

    @property
    def _snapshot(self):
        # a replica's read is the sum too (TF reads its copy, but computes a metric's value
        # in cross-replica context): so a metric's value covers every replica
        if _context_kind() == "update":
            return self._current()._snapshot
        return self._reduced()

    def _update(self, method, value, read_value, **kwargs):
        if _context_kind() in ("replica", "update"):
            return getattr(self._current(), method)(value, read_value=read_value, **kwargs)
        agg = getattr(self._mirrored_aggregation, "name", "SUM")
        n = len(self._components)
        if agg == "SUM" and method == "assign":  # the copies sum to the value assigned
            value = ops.convert_to_tensor(value, dtype=self.dtype.base_dtype) / n
        elif agg == "SUM":
            raise ValueError("SyncOnReadVariable does not support `assign_add` or "
                             "`assign_sub` in cross-replica context when aggregation is set "
                             "to `tf.VariableAggregation.SUM`.")
        updates = []
        for i, v in enumerate(self._components):
            kw = dict(kwargs, name=kwargs.get("name") if i == 0 else None)
            with ops.colocate_with(None, ignore_existing=True), ops.device(v.device):
                updates.append(getattr(v, method)(value, read_value=False, **kw))
        if not read_value:
            return control_flow_ops.group(*updates)
        with ops.control_dependencies(updates):
            return self._reduced()

    def __repr__(self):
        return "SyncOnRead" + super().__repr__()[len("Mirrored"):]


def _context_kind():
    from tideflow.distribute import replica

    top = replica._top()
    return None if top is None else top.kind


def _updates():
    from tideflow.distribute import updates

    return updates
