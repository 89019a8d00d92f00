"""``tf.Variable``: a VariableV2 op with its initializer (Assign) and snapshot (Identity), plus
the variable collections and the ``*_initializer`` helpers.
"""

import contextlib
import enum
import functools
import inspect
import threading

from tideflow.framework import dtypes, op_registry, ops
from tideflow.framework.tensor_shape import as_shape, unknown_shape
from tideflow.ops import array_ops, resource_variable_ops, state_ops


class VariableAggregation(enum.Enum):
    """How a distributed variable's updates are aggregated across replicas."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3
    ONLY_FIRST_TOWER = 3  # noqa: PIE796 - the TF 1.x alias of ONLY_FIRST_REPLICA


class VariableSynchronization(enum.Enum):
    """When a distributed variable is synchronized."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


def _control_flow_ops():
    from tideflow.ops import control_flow_ops

    return control_flow_ops


def _default_use_resource():
    from tideflow.ops import misc_ops, variable_scope

    scoped = variable_scope.get_variable_scope().use_resource
    return misc_ops._RESOURCE_VARIABLES[0] if scoped is None else scoped


_creators = threading.local()


def _creator_stack():
    stack = getattr(_creators, "stack", None)
    if stack is None:
        stack = _creators.stack = []
    return stack


@contextlib.contextmanager
def variable_creator_scope(variable_creator):
    """``tf.variable_creator_scope``: inside, ``tf.Variable(...)`` (and so ``get_variable``)
    calls ``variable_creator(next_creator, **kwargs)``; ``next_creator(**kwargs)`` makes the
    variable (or calls the next creator out). Per thread, as TF's."""
    stack = _creator_stack()
    stack.append(variable_creator)
    depth = len(stack)
    try:
        yield
    finally:
        if len(stack) != depth or stack[-1] is not variable_creator:
            raise RuntimeError("Exiting variable_creator_scope without proper nesting.")
        stack.pop()


class _VariableMeta(type):
    """Routes ``Variable(...)`` through the creators of ``variable_creator_scope``."""

    def __call__(cls, *args, **kwargs):
        if cls is ResourceVariable:  # TF's class called directly makes a resource variable
            kwargs["use_resource"] = True
        return _with_tf_class(cls._create(*args, **kwargs))

    def _create(cls, *args, **kwargs):
        stack = _creator_stack()
        if cls not in _PLAIN_CLASSES or not stack or kwargs.get("variable_def") is not None:
            return super().__call__(*args, **kwargs)
        bound = inspect.signature(Variable.__init__).bind(None, *args, **kwargs)
        bound.apply_defaults()  # as TF, a creator sees every argument
        kwargs = dict(bound.arguments)
        kwargs.pop("self")
        # as TF's VariableV1 call: the creators see the enum defaults, not None
        sync_cls, agg_cls = _sync_agg()
        if kwargs["synchronization"] is None:
            kwargs["synchronization"] = sync_cls.AUTO
        if kwargs["aggregation"] is None:
            kwargs["aggregation"] = agg_cls.NONE
        make = super().__call__

        def creator_at(i):
            if i < 0:  # (a creator's result may wrap it: a strategy's mirrored variable)
                return lambda **kw: _with_tf_class(make(**kw))
            return lambda **kw: stack[i](creator_at(i - 1), **kw)

        return creator_at(len(stack) - 1)(**kwargs)


def _with_tf_class(var):
    """``var`` as TF 1.15 classes it: a RefVariable or a ResourceVariable (one implementation
    here, told apart by ``_resource``; both are tf.Variable)."""
    if type(var) is Variable:
        var.__class__ = ResourceVariable if var._resource else RefVariable
    return var


_VARIABLE_OPS = ("VariableV2", "Variable", "VarHandleOp")
# ops a guarded initial value is never rebuilt through (TF leaves the first four as they are;
# control flow and state changes are not safe to copy)
_GUARD_STOP = {"IsVariableInitialized", "VarIsInitializedOp", "ReadVariableOp", "If",
               "Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter", "Exit",
               "RefExit", "NextIteration", "RefNextIteration", "LoopCond"}


def _initialized_value_of(op):
    """The ref variable whose ``initialized_value()`` cond ``op`` is (None for other ops)."""
    if op._type != "If":
        return None
    return getattr(op._graph, "_initialized_value_ifs", {}).get(op)


def _may_read_variable(op, g):
    """Whether a variable op is among the inputs of ``op``, transitively (the walk stops at the
    ops of ``_GUARD_STOP``, as the guard's). Ops found to reach none are remembered on the graph
    (until an op's inputs are rewired), so building N variables walks each op once, not N
    times, and no variable collection is scanned unless the initial value may read one."""
    memo = getattr(g, "_guard_no_variable", None)
    if memo is None or memo[0] != g._structure_version:
        memo = g._guard_no_variable = (g._structure_version, set())
    clear = memo[1]
    if op in clear:
        return False
    seen = {op}
    stack = [op]
    while stack:
        o = stack.pop()
        if o._type in _VARIABLE_OPS:
            return True
        if o._type in _GUARD_STOP:
            if _initialized_value_of(o) is not None:
                return True
            continue
        for t in o._inputs:
            i = t._op
            if i not in seen and i not in clear:
                seen.add(i)
                stack.append(i)
    clear.update(seen)
    return False


def _guard_uninitialized(value, var_name):
    """TF 1.x's guard against uninitialized dependencies: where the initial value reads other
    variables (``tf.Variable(v * 2)``), the initializer reads their ``initialized_value()``
    instead, so it runs whatever order the initializers run in. The ops between are rebuilt
    with the guarded inputs (named ``<op>_<variable>``); the initial value itself is kept."""
    if not isinstance(value, ops.Tensor):
        return value
    g = value.graph
    if not _may_read_variable(value.op, g):
        return value  # the common case (an initializer's own ops): nothing to walk or rebuild
    by_var_op = {}
    for key in (ops.GraphKeys.GLOBAL_VARIABLES, ops.GraphKeys.LOCAL_VARIABLES):
        for v in g.get_collection(key):
            op = getattr(getattr(v, "_variable", None), "op", None)
            if op is not None:
                by_var_op.setdefault(op, v)
    if not by_var_op:
        return value
    # the ops whose value depends on a known variable, found depth first (None: give up)
    reads = {}

    def depends(op, visiting):
        if op in reads:
            return reads[op]
        if op in visiting:
            return None  # a cycle (a loop): leave the initial value as it is
        if op.type in _VARIABLE_OPS:
            reads[op] = op in by_var_op
            return reads[op]
        if _initialized_value_of(op) is not None:
            reads[op] = True
            return True
        if op.type in _GUARD_STOP:
            reads[op] = False
            return False
        visiting.add(op)
        found = False
        for t in op._inputs:
            d = depends(t.op, visiting)
            if d is None:
                return None
            found = found or d
        visiting.discard(op)
        if found and op_registry.lookup(op.type) is not None and (
                op_registry.lookup(op.type).is_stateful):
            return None  # a state change on the way: not safe to copy
        reads[op] = found
        return found

    try:
        if not depends(value.op, set()):
            return value
    except RecursionError:
        return value
    rebuilt = {}
    counted = set()  # the variables whose TF initialized_value ids were skipped

    def guarded(t):
        op = t.op
        if not reads.get(op):
            return t
        new = rebuilt.get(op)
        if new is None and _initialized_value_of(op) is not None:
            # another variable's initialized_value() (our If, already safe: kept as it is).
            # TF 1.15 walks into its Switch/Merge cond to the variable: the ids of that
            # variable's own initialized_value (its IsVariableInitialized and 8 cond ops, once
            # per variable) and of its RefSwitch and read rebuilt are skipped (the Merge and
            # the ops after it are rebuilt here, named as TF's)
            var = _initialized_value_of(op)
            rebuilt[op] = new = op
            # its false branch first: the variable's initial value, rebuilt (unused) where
            # it reads variables too, then its Switch
            init = var._initial_value
            if isinstance(init, ops.Tensor) and init.graph is g and depends(init.op, set()):
                guarded(init)
                g._skip_op_ids(1)
            var_op = var._variable.op
            g._skip_op_ids((9 if var_op not in counted else 0) + 2)
            counted.add(var_op)
            rebuilt.setdefault(var_op, op)  # (its value where the variable is read again)
        if new is None:
            if op.type in _VARIABLE_OPS:  # in the new variable's name scope, as TF
                counted.add(op)
                new = by_var_op[op].initialized_value().op
            else:
                inputs = [guarded(x) for x in op._inputs]
                with ops.name_scope(None):
                    new = g.create_op(op.type, inputs, name=f"{op.name}_{var_name}",
                                      attrs=dict(op._attrs))
            rebuilt[op] = new
        return new._outputs[t._value_index]

    with g.control_dependencies(None):
        return guarded(value)


class Variable(metaclass=_VariableMeta):
    """A variable: a buffer that keeps its value across ``Session.run`` calls.

    ``Variable(initial_value, trainable=True, collections=None, validate_shape=True,
    caching_device=None, name=None, variable_def=None, dtype=None, expected_shape=None,
    import_scope=None, constraint=None)``. ``initial_value`` may be a callable returning it.
    """

    # numpy must defer to our operator overloads (ndarray + Variable -> Variable.__radd__)
    __array_priority__ = 100
    # TF's distribution-strategy hook: a plain graph variable belongs to no strategy
    _distribute_strategy = None
    _any_shape = False  # made with a partly unknown ``shape=``: assigns take other shapes
    _dtype = _var_shape = None  # a resource variable's dtype and shape (its handle's attrs)

    def __init__(self, initial_value=None, trainable=None, collections=None, validate_shape=True,
                 caching_device=None, name=None, variable_def=None, dtype=None,
                 expected_shape=None, import_scope=None, constraint=None, use_resource=None,
                 synchronization=VariableSynchronization.AUTO,
                 aggregation=VariableAggregation.NONE, shape=None):
        if use_resource is None:  # as TF 1.x: the variable scope's choice, else the default
            use_resource = _default_use_resource()
        # as TF's resource variables, one may start from a value of unknown shape, and a read
        # made under control dependencies is a fresh read that runs after them
        self._resource = bool(use_resource)
        self._synchronization, self._aggregation = _check_sync_aggregation(
            synchronization, aggregation, name)
        if trainable is None:
            # TF: trained unless synchronized on read
            trainable = self._synchronization.name != "ON_READ"
        if variable_def is not None:
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            self._init_from_proto(variable_def, import_scope=import_scope)
        elif ops.get_default_graph().building_function or ops._init_scope_lifts_devices():
            # made inside a cond branch or loop body: the variable lives in the outer graph;
            # under colocate_with, TF's init_scope still runs the device functions in force
            # when the graph was made default (a replica_device_setter counts the variable)
            with ops.init_scope():
                self._init_from_args(initial_value, trainable, collections, validate_shape,
                                     caching_device, name, dtype, expected_shape, constraint,
                                     shape)
        else:
            self._init_from_args(initial_value, trainable, collections, validate_shape,
                                 caching_device, name, dtype, expected_shape, constraint, shape)

    def _init_from_args(self, initial_value, trainable, collections, validate_shape,
                        caching_device, name, dtype, expected_shape, constraint, shape=None):
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        init_from_fn = callable(initial_value)
        if collections is None:
            collections = [ops.GraphKeys.GLOBAL_VARIABLES]
        if not isinstance(collections, (list, tuple, set)):
            raise ValueError(  # noqa: TRY004 - TF's error class
                "collections argument to Variable constructor must be a list, tuple, or set. "
                f"Got {collections} of type {type(collections)}"
            )
        if constraint is not None and not callable(constraint):
            raise ValueError("The `constraint` argument must be a callable.")
        collections = list(collections)
        if trainable and ops.GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections.append(ops.GraphKeys.TRAINABLE_VARIABLES)
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype).base_dtype
        g = ops.get_default_graph()
        # a variable never depends on the control context it is created in
        values = [] if init_from_fn else [initial_value]
        with g.control_dependencies(None), ops.name_scope(name, "Variable", values) as n:
            if not n:  # name="" at the root: TF's op gets that (invalid) name
                raise ValueError(f"'{g.unique_name('')}' is not a valid node name")
            if init_from_fn:
                true_name = n[:-1]
                with g._attr_scope({"_class": [f"loc:@{true_name}"]}), ops.name_scope(
                    "Initializer"
                ), g.device(None):
                    self._initial_value = ops.convert_to_tensor(
                        initial_value(), name="initial_value", dtype=dtype
                    )
            elif self._resource:
                # TF 1.15's ResourceVariable converts it under "Initializer" too, colocated
                with g._attr_scope({"_class": [f"loc:@{n[:-1]}"]}), ops.name_scope(
                        "Initializer"), g.device(None):
                    self._initial_value = ops.convert_to_tensor(
                        initial_value, name="initial_value", dtype=dtype
                    )
            else:
                self._initial_value = ops.convert_to_tensor(
                    initial_value, name="initial_value", dtype=dtype
                )
                if self._initial_value.graph is not g and getattr(
                        self._initial_value.graph, "building_function", False):
                    # the value was computed in a cond branch / loop body, while the variable
                    # (and its initializer) lives in the outer graph: TF's error
                    raise ValueError(
                        f"Initializer for variable {n} is from inside a control-flow "
                        "construct, such as a loop or conditional. When creating a variable "
                        "inside a loop or conditional, use a lambda as the initializer.")
            init_shape = self._initial_value.get_shape()
            del expected_shape  # TF 1.15 ignores it
            if shape is not None:  # TF 1.15's shape=: the variable's static shape
                given, shape = shape, as_shape(shape)
                # (a ref variable's initializer Assign reports a mismatch, as TF's)
                if self._resource and not shape.is_compatible_with(init_shape):
                    raise ValueError(  # (the argument as given, as TF prints it)
                        f"The initial value's shape ({init_shape}) is not compatible with the "
                        f"explicitly supplied `shape` argument ({given})."
                    )
                # the variable's shape is the one given (TF: an unknown shape lets later
                # assigns change it), not the initial value's
                self._any_shape = not shape.is_fully_defined()
            else:  # (TF 1.15's resource variables ignore validate_shape)
                shape = init_shape if validate_shape or self._resource else unknown_shape()
            if (validate_shape and not init_shape.is_fully_defined()
                    and not getattr(self, "_resource", False)):
                raise ValueError(
                    f"initial_value must have a shape specified: {self._initial_value}"
                )
            if self._resource:
                self._init_resource(n, shape, caching_device)
                ops.add_to_collections(collections, self)
                self._caching_device = caching_device
                self._save_slice_info = None
                self._constraint = constraint
                self._trainable = trainable
                return
            # as TF 1.15: a variable made from a function carries its own colocation attr,
            # "_class: loc:@<name>"
            with g._attr_scope({"_class": [f"loc:@{n[:-1]}"]} if init_from_fn else {}):
                self._variable = state_ops.variable_op_v2(
                    shape, self._initial_value.dtype.base_dtype, name=n
                )
            # the initializer runs where the variable lives (e.g. its parameter server)
            with g.colocate_with(self._variable.op):
                self._initializer_op = state_ops.assign(
                    self._variable, _guard_uninitialized(self._initial_value, n[:-1]),
                    validate_shape=validate_shape
                ).op
            if caching_device is not None:
                with g.device(caching_device):
                    self._snapshot = array_ops.identity(self._variable, name="read")
            else:
                with g.colocate_with(self._variable.op):
                    self._snapshot = array_ops.identity(self._variable, name="read")
        ops.add_to_collections(collections, self)
        self._caching_device = caching_device
        self._save_slice_info = None
        self._constraint = constraint
        self._trainable = trainable

    def _init_resource(self, n, shape, caching_device):
        """TF 1.15's ops of a resource variable, with its names: the handle <v> (a
        VarHandleOp, its own colocation attr "_class: loc:@<v>"), <v>/IsInitialized/
        VarIsInitializedOp, <v>/Assign (AssignVariableOp), <v>/Read/ReadVariableOp (the
        value a fetch of the variable gets); every other use of it reads it afresh
        (value())."""
        g = ops.get_default_graph()
        self._dtype = self._initial_value.dtype.base_dtype
        self._var_shape = shape
        with g._attr_scope({"_class": [f"loc:@{n[:-1]}"]}):
            self._variable = resource_variable_ops.var_handle_op(
                self._dtype, shape, container=g._container, shared_name=n[:-1], name=n)
        handle = self._variable
        with ops.name_scope("IsInitialized"):
            resource_variable_ops.var_is_initialized_op(handle)
        # (on the handle's device, whatever the scope's colocation says)
        with ops.name_scope("Assign") as an, ops.colocate_with(None, ignore_existing=True), \
                ops.device(handle.device):
            self._initializer_op = ops.apply_op(
                "AssignVariableOp", [handle, _guard_uninitialized(self._initial_value, n[:-1])],
                {"dtype": self._dtype}, name=an)
        # (as TF 1.15, the read keeps the scope's colocation: a slot's carries its primary's)
        with ops.name_scope("Read"), ops.device(handle.device):
            self._snapshot = resource_variable_ops.read_variable_op(handle, self._dtype)
        self._graph_element = self._snapshot  # (TF's: what a feed or fetch names)
        if caching_device is not None:
            with g.device(caching_device):
                self._snapshot = array_ops.identity(self._snapshot)

    def _read_op(self, name="ReadVariableOp"):
        return resource_variable_ops.read_variable_op(self._variable, self._dtype, name=name)

    def _init_from_proto(self, variable_def, import_scope=None):
        if isinstance(variable_def, bytes):
            from tideflow.protos import variable_pb2

            variable_def = variable_pb2.VariableDef.FromString(variable_def)
        g = ops.get_default_graph()

        def scoped(name):
            # an import scope may end in "/" (one taken from the enclosing name scope)
            return f"{import_scope.rstrip('/')}/{name}" if import_scope else name

        self._variable = g.as_graph_element(scoped(variable_def.variable_name))
        self._initializer_op = g.as_graph_element(scoped(variable_def.initializer_name))
        if variable_def.initial_value_name:
            self._initial_value = g.as_graph_element(scoped(variable_def.initial_value_name))
        else:
            self._initial_value = self._initializer_op.inputs[1]
        self._snapshot = g.as_graph_element(scoped(variable_def.snapshot_name))
        self._graph_element = self._snapshot
        # as TF 1.15's from_proto: a resource variable's def makes a resource variable
        self._resource = self._resource or bool(variable_def.is_resource) or (
            state_ops.is_resource(self._variable.op))
        if self._variable.op.type == "VarHandleOp":
            self._resource = True
            self._dtype = self._variable.op.get_attr("dtype")
            self._var_shape = as_shape(self._variable.op.get_attr("shape"))
        self._caching_device = None
        self._save_slice_info = None
        if variable_def.HasField("save_slice_info_def"):
            self._save_slice_info = SaveSliceInfo(
                save_slice_info_def=variable_def.save_slice_info_def, import_scope=import_scope)
        self._constraint = None
        self._trainable = getattr(variable_def, "trainable", True)
        # the proto's enums number their values as the Python enums do
        sync_cls, agg_cls = _sync_agg()
        self._synchronization = sync_cls(variable_def.synchronization)
        self._aggregation = agg_cls(variable_def.aggregation)

    # -- identity ---------------------------------------------------------------------------
    @property
    def name(self):
        return self._variable.name

    @property
    def _shared_name(self):
        # a resource variable's name without the output index (TF code keys savers by it)
        return self._variable.op.name

    @property
    def op(self):
        return self._variable.op

    def __bool__(self):
        # TF 1.15: a resource variable's truth is its value's (an error in a graph); a ref
        # variable is a plain object (true)
        if getattr(self, "_resource", False):
            return bool(self.read_value())
        return True

    @property
    def handle(self):
        """A resource variable's handle: here the variable's own tensor, named as TF's
        (``v:0``); a ref variable has none (AttributeError, as TF's RefVariable)."""
        if not getattr(self, "_resource", False):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute 'handle'")
        return self._variable

    @property
    def graph(self):
        return self._variable.graph

    @property
    def device(self):
        return self._variable.device

    @property
    def dtype(self):
        # as TF's ResourceVariable, a resource variable's dtype is its value's (int64, not
        # int64_ref): programs compare it with tf.int64
        if getattr(self, "_resource", False):
            return self._dtype or self._variable.dtype.base_dtype
        return self._variable.dtype

    @property
    def shape(self):
        if self._var_shape is not None:  # (a resource variable's; its handle is a scalar)
            return self._var_shape
        return self._variable.get_shape()

    def get_shape(self):
        return self.shape

    def set_shape(self, shape):
        """Refines the static shape of the variable and of its snapshot (a variable made with
        ``validate_shape=False`` starts with an unknown shape); TF 1.15's resource variables
        have no set_shape."""
        if getattr(self, "_resource", False):
            raise NotImplementedError("ResourceVariable does not implement set_shape()")
        self._variable.set_shape(shape)
        self._snapshot.set_shape(shape)

    @property
    def initializer(self):
        return self._initializer_op

    @property
    def create(self):
        # a resource variable's name for its initializer (tf.python.ops.resources uses it)
        return self._initializer_op

    @property
    def initial_value(self):
        return self._initial_value

    @property
    def constraint(self):
        return self._constraint

    @property
    def synchronization(self):
        return getattr(self, "_synchronization", None) or _sync_agg()[0].AUTO

    @property
    def aggregation(self):
        return getattr(self, "_aggregation", None) or _sync_agg()[1].NONE

    @property
    def trainable(self):
        return self._trainable

    def __repr__(self):
        return (f"<tf.Variable '{self.name}' shape={_shape_repr(self.shape)} "
                f"dtype={self.dtype.name}>")

    # -- reading ----------------------------------------------------------------------------
    def value(self):
        """The snapshot tensor ``<name>/read`` (the value used by ops that read the variable);
        a resource variable's is a fresh read (``ReadVariableOp``, in the current name scope,
        ordered after the control dependencies in force), as TF's."""
        if getattr(self, "_resource", False):
            g = ops.get_default_graph()
            if g.building_function and not g._control_dependencies_stack:
                # in a cond branch or loop body: the read made outside, captured (gradients
                # reach the variable through it); TF makes a ReadVariableOp there (and a
                # Switch or Enter of the handle with the first one): its id is skipped
                if getattr(g, "control_flow_body", False):
                    g._skip_op_ids(1)
                return self._snapshot
            # (on the variable's device whatever the scope says, as TF's)
            with ops.colocate_with(None, ignore_existing=True), ops.device(self._variable.device):
                return self._read_op()
        return self._snapshot

    def read_value(self):
        """A fresh read of the variable (an Identity op; a resource variable's as TF names it:
        ``Read/ReadVariableOp`` on the variable's device and an ``Identity`` of it)."""
        if getattr(self, "_resource", False):
            with ops.name_scope("Read"), ops.device(self._variable.device):
                value = self._read_op()
            return array_ops.identity(value)
        return array_ops.identity(self._variable, name="read")

    def _ref(self):
        return self._variable

    def _AsTensor(self):
        return self._snapshot

    def experimental_ref(self):
        """A hashable reference to this variable (``ref.deref()`` gives it back)."""
        return ops.Reference(self)

    ref = experimental_ref

    def _as_graph_element(self):
        # a ref variable is its ref tensor; a resource variable (as TF 1.15's) the read its
        # creation made, "<v>/Read/ReadVariableOp": feeding the variable feeds that read only
        if getattr(self, "_resource", False):
            return self._graph_element
        return self._variable

    def eval(self, session=None):
        """The variable's value in ``session`` (or the default session)."""
        if getattr(self, "_resource", False):
            return self._graph_element.eval(session=session)
        return self._variable.eval(session=session)

    @property
    def is_initialized(self):
        """A resource variable's ``is_initialized(name=None)``: a bool scalar op (TF's
        VarIsInitializedOp); a ref variable has none (AttributeError, as TF's RefVariable)."""
        if not getattr(self, "_resource", False):
            raise AttributeError(
                f"'{type(self).__name__}' object has no attribute 'is_initialized'")
        return functools.partial(state_ops.is_variable_initialized, self)

    def initialized_value(self):
        """The variable's value once initialized: its value if it is, else its initial value.

        TF builds ``tf.cond(is_variable_initialized(v), read, initial_value)``; we do the same
        when ``tf.cond`` is available. Without it we return the initial value (never re-running
        the initializer): the same numbers whenever both are evaluated in one step, which is how
        this is used to initialize one variable from another.
        """
        g = self.graph
        with g.as_default(), g.control_dependencies(None):
            from tideflow.ops import cond as _cond_module

            cond = getattr(_cond_module, "cond", None)
            if cond is not None:
                out = cond(state_ops.is_variable_initialized(self), self.read_value,
                           lambda: self._initial_value)
                if_op = out.op._inputs[0].op if out.op._inputs else None
                if (if_op is not None and if_op._type == "If"
                        and not getattr(self, "_resource", False)):
                    # (see _guard_uninitialized)
                    if getattr(g, "_initialized_value_ifs", None) is None:
                        g._initialized_value_ifs = {}
                    g._initialized_value_ifs[if_op] = self
                return out
            return array_ops.identity(self._initial_value)

    # -- updating ---------------------------------------------------------------------------
    def assign(self, value, use_locking=False, name=None, read_value=True):
        """Assigns ``value``; returns the ref after the assignment (or the op). As TF 1.15, a
        resource variable checks the value's static shape against its own, and one made with
        a partly unknown ``shape`` takes values of other shapes; a ref variable's Assign checks
        the shapes when it runs."""
        if getattr(self, "_resource", False):
            # (a tensor of another dtype: TF's ValueError from the conversion)
            value = ops.convert_to_tensor(value, dtype=self.dtype)
            self.shape.assert_is_compatible_with(value.get_shape())
            return self._resource_update(
                self._handle_op("AssignVariableOp", value, name), read_value)
        # (a ref variable made with a partly unknown shape= takes other shapes, as TF 2
        # documents; TF 1.15's fails to initialize one)
        t = state_ops.assign(self._variable, value, use_locking=use_locking, name=name,
                             validate_shape=not self._any_shape)
        return t if read_value else t.op

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        if getattr(self, "_resource", False):
            delta = ops.convert_to_tensor(delta, dtype=self.dtype)  # (as TF's: a "Const")
            return self._resource_update(
                self._handle_op("AssignAddVariableOp", delta, name), read_value)
        t = state_ops.assign_add(self._variable, delta, use_locking=use_locking, name=name)
        return t if read_value else t.op

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        if getattr(self, "_resource", False):
            delta = ops.convert_to_tensor(delta, dtype=self.dtype)  # (as TF's: a "Const")
            return self._resource_update(
                self._handle_op("AssignSubVariableOp", delta, name), read_value)
        t = state_ops.assign_sub(self._variable, delta, use_locking=use_locking, name=name)
        return t if read_value else t.op

    def _handle_op(self, op_type, value, name):
        return ops.apply_op(op_type, [self._variable, value], {"dtype": self._dtype},
                            name=name or op_type)

    def _resource_update(self, t, read_value):
        """A resource variable's update, as TF 1.15's: named after the resource op, and, with
        ``read_value``, a read of the variable made after it (``ReadVariableOp``: the value a
        program gets from ``sess.run(v.assign(...))``)."""
        if not read_value:
            return t
        with ops.control_dependencies([t]):
            read = self._read_op()
        read._update_op = t  # (TF's unread variable: its op is the update's)
        return read

    def _sparse(self, fn, sparse_delta, use_locking, name, op_type):
        if not (hasattr(sparse_delta, "indices") and hasattr(sparse_delta, "values")):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")
        if getattr(self, "_resource", False):
            return self._resource_scatter(fn, sparse_delta.indices, sparse_delta.values, name,
                                          op_type)
        return fn(self._variable, sparse_delta.indices, sparse_delta.values,
                  use_locking=use_locking, name=name)

    def _resource_scatter(self, fn, indices, updates, name, op_type):
        """A resource variable's scatter, as TF 1.15's: the updates converted first (a
        "Const"), the op named ``Resource<op_type>``, then a read of the variable after it
        (the value returned)."""
        updates = ops.convert_to_tensor(updates, dtype=self.dtype)
        t = ops.apply_op("Resource" + op_type, [self._variable, indices, updates],
                         {"T" if "Nd" in op_type else "dtype": self._dtype},
                         name=name or "Resource" + op_type)
        return self._resource_update(t, True)

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        return self._sparse(state_ops.scatter_sub, sparse_delta, use_locking, name,
                            "ScatterSub")

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        return self._sparse(state_ops.scatter_add, sparse_delta, use_locking, name,
                            "ScatterAdd")

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        return self._sparse(state_ops.scatter_update, sparse_delta, use_locking, name,
                            "ScatterUpdate")

    def scatter_max(self, sparse_delta, use_locking=False, name=None):
        from tideflow.ops import extra_array_ops

        return self._sparse(extra_array_ops.scatter_max, sparse_delta, use_locking, name,
                            "ScatterMax")

    def scatter_min(self, sparse_delta, use_locking=False, name=None):
        from tideflow.ops import extra_array_ops

        return self._sparse(extra_array_ops.scatter_min, sparse_delta, use_locking, name,
                            "ScatterMin")

    def scatter_mul(self, sparse_delta, use_locking=False, name=None):
        from tideflow.ops import extra_array_ops

        return self._sparse(extra_array_ops.scatter_mul, sparse_delta, use_locking, name,
                            "ScatterMul")

    def scatter_div(self, sparse_delta, use_locking=False, name=None):
        from tideflow.ops import extra_array_ops

        return self._sparse(extra_array_ops.scatter_div, sparse_delta, use_locking, name,
                            "ScatterDiv")

    def batch_scatter_update(self, sparse_delta, use_locking=False, name=None):
        from tideflow.ops import tf1_misc_ops

        if not (hasattr(sparse_delta, "indices") and hasattr(sparse_delta, "values")):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")
        if getattr(self, "_resource", False):
            # TF 1.15's: through its own scatter_nd_update (a ResourceScatterNdUpdate and a
            # read after it), then one more read after the update
            t = tf1_misc_ops.batch_scatter_update(self, sparse_delta.indices,
                                                  sparse_delta.values, use_locking=use_locking,
                                                  name=name)
            return self._resource_update(t._update_op, True)
        return tf1_misc_ops.batch_scatter_update(self._variable, sparse_delta.indices,
                                                 sparse_delta.values, use_locking=use_locking,
                                                 name=name)

    def scatter_nd_update(self, indices, updates, name=None):
        from tideflow.ops import scatter_nd_ops

        if getattr(self, "_resource", False):
            return self._resource_scatter(scatter_nd_ops.scatter_nd_update, indices, updates,
                                          name, "ScatterNdUpdate")
        return scatter_nd_ops.scatter_nd_update(self._variable, indices, updates, name=name)

    def scatter_nd_add(self, indices, updates, name=None):
        from tideflow.ops import scatter_nd_ops

        if getattr(self, "_resource", False):
            return self._resource_scatter(scatter_nd_ops.scatter_nd_add, indices, updates,
                                          name, "ScatterNdAdd")
        return scatter_nd_ops.scatter_nd_add(self._variable, indices, updates, name=name)

    def scatter_nd_sub(self, indices, updates, name=None):
        from tideflow.ops import scatter_nd_ops

        if getattr(self, "_resource", False):
            return self._resource_scatter(scatter_nd_ops.scatter_nd_sub, indices, updates,
                                          name, "ScatterNdSub")
        return scatter_nd_ops.scatter_nd_sub(self._variable, indices, updates, name=name)

    def gather_nd(self, indices, name=None):
        from tideflow.ops import gather_ops

        if getattr(self, "_resource", False):
            # TF 1.15's: a GatherNd of the variable named "GatherNd" (or ``name``), then an
            # Identity of it (as sparse_read)
            with ops.name_scope("GatherNd" if name is None else name) as scope:
                if ops.get_default_graph().building_function:
                    value = ops.apply_op("GatherNd", [self._snapshot, indices],
                                         name=scope)._outputs[0]
                else:
                    value = ops.apply_op("ResourceGatherNd", [self._variable, indices],
                                         {"dtype": self._dtype}, name=scope)._outputs[0]
            return array_ops.identity(value)
        return gather_ops.gather_nd(self._snapshot, indices, name=name)

    def sparse_read(self, indices, name=None):
        """The rows ``indices`` of the variable (ResourceVariable's ``sparse_read``: a gather
        whose gradient is IndexedSlices)."""
        from tideflow.ops import gather_ops

        if getattr(self, "_resource", False):
            # TF 1.15's two ops: a gather of the variable itself named "Gather" (or ``name``),
            # then an Identity of it
            g = ops.get_default_graph()
            # (in a cond branch or loop body, the read made outside, captured: TF's gather
            # takes the handle there, through its Switch or Enter, and makes no read)
            with ops.name_scope("Gather" if name is None else name) as scope:
                if g.building_function:
                    value = ops.apply_op("Gather", [self._snapshot, indices],
                                         name=scope)._outputs[0]
                else:
                    value = resource_variable_ops.resource_gather(self._variable, indices,
                                                                  self._dtype, name=scope)
            return array_ops.identity(value)
        return gather_ops.gather(self._snapshot, indices, name=name)

    def count_up_to(self, limit):
        """Increments this scalar int variable until ``limit`` (then OutOfRangeError);
        returns the value before the increment."""
        from tideflow.ops import data_flow_ops

        return data_flow_ops.count_up_to(self, limit)

    def load(self, value, session=None):
        """Writes ``value`` into the variable by running its initializer with the value fed."""
        session = session or ops.get_default_session()
        if session is None:
            raise ValueError(
                "Either session argument should be provided or default session should be "
                "established"
            )
        session.run(self._initializer_op, {self._initializer_op.inputs[1]: value})

    # -- serialization ----------------------------------------------------------------------
    def to_proto(self, export_scope=None):
        """A VariableDef naming this variable's graph elements (None if outside export_scope)."""
        from tideflow.protos import variable_pb2

        def strip(name):
            if export_scope is None:
                return name
            if not name.startswith(export_scope + "/"):
                return None
            return name[len(export_scope) + 1:]

        if export_scope is not None and strip(self._variable.name) is None:
            return None
        vd = variable_pb2.VariableDef()
        vd.variable_name = strip(self._variable.name)
        vd.initial_value_name = strip(self._initial_value.name) or ""
        vd.initializer_name = strip(self._initializer_op.name)
        vd.snapshot_name = strip(self._snapshot.name)
        vd.trainable = bool(self._trainable)
        if getattr(self, "_resource", False):
            vd.is_resource = True
        vd.synchronization = self.synchronization.value
        vd.aggregation = self.aggregation.value
        if self._save_slice_info is not None:
            info = self._save_slice_info.to_proto(export_scope=export_scope)
            if info is not None:
                vd.save_slice_info_def.CopyFrom(info)
        return vd

    @staticmethod
    def from_proto(variable_def, import_scope=None):
        return Variable(variable_def=variable_def, import_scope=import_scope)

    def _set_save_slice_info(self, save_slice_info):
        self._save_slice_info = save_slice_info

    def _get_save_slice_info(self):
        return self._save_slice_info

    # -- Python protocol --------------------------------------------------------------------
    def __iter__(self):
        raise TypeError("'Variable' object is not iterable.")

    def __hash__(self):
        return id(self)  # as TF 1.15 (object identity, as a Tensor's)

    @staticmethod
    def _TensorConversionFunction(v, dtype=None, name=None, as_ref=False):
        if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(v.dtype):
            raise ValueError(
                f"Incompatible type conversion requested to type '{dtypes.as_dtype(dtype).name}' "
                f"for variable of type '{v.dtype.name}'"
            )
        return v._ref() if as_ref else v.value()


def _shape_repr(shape):
    if shape.ndims is None:
        return "<unknown>"
    return "(" + ", ".join("?" if d is None else str(d) for d in shape.as_list()) + (
        ",)" if shape.ndims == 1 else ")"
    )


_OVERLOADABLE = (
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__div__", "__rdiv__",
    "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__",
    "__lt__", "__le__", "__gt__", "__ge__", "__and__", "__rand__", "__or__", "__ror__",
    "__xor__", "__rxor__", "__getitem__", "__pow__", "__rpow__", "__invert__", "__neg__",
    "__abs__", "__matmul__", "__rmatmul__",
)


def _delegate(operator):
    # looked up on Tensor at call time, so operators added to Tensor later work on Variables
    def run(self, *args):
        fn = getattr(ops.Tensor, operator, None)
        if fn is None:
            if args and operator != "__getitem__":
                return NotImplemented
            raise TypeError(f"'Variable' object does not support {operator}")
        return fn(self.value(), *args)

    run.__name__ = operator
    return run


for _op in _OVERLOADABLE:
    setattr(Variable, _op, _delegate(_op))


def _getitem(self, slice_spec):
    # TF's _SliceHelperVar: a slice of the value that can also be assigned to
    from tideflow.ops.slicing_ops import _slice_helper

    return _slice_helper(self.value(), slice_spec, var=self)


Variable.__getitem__ = _getitem

ops.register_tensor_conversion_function(Variable, Variable._TensorConversionFunction)



class RefVariable(Variable):
    """TF 1.15's class of a variable made without ``use_resource`` (what ``type(v)`` shows)."""


def _no_inplace(op, hint):
    def inplace(self, unused_other):
        raise RuntimeError(f"Variable {op}= value not supported. {hint} to get a new Tensor "
                           "object.")

    return inplace


class ResourceVariable(Variable):
    """TF 1.15's class of a resource variable; called directly it makes one."""

    # TF 1.15's resource variables refuse in-place operators (a ref variable's `v += 1` is a
    # new tensor, through Variable's operators)
    __iadd__ = _no_inplace("+", "Use variable.assign_add(value) to modify the variable value "
                                "and variable = variable + value")
    __isub__ = _no_inplace("-", "Use variable.assign_sub(value) to modify the variable value "
                                "and variable = variable - value")
    __imul__ = _no_inplace("*", "Use `var.assign(var * value)` to modify the variable or "
                                "`var = var * value`")
    __itruediv__ = __idiv__ = _no_inplace(
        "/", "Use `var.assign(var / value)` to modify the variable or `var = var / value`")
    __ipow__ = _no_inplace("**", "Use `var.assign(var ** value)` to modify the variable or "
                                 "`var = var ** value`")


_PLAIN_CLASSES = (Variable, RefVariable, ResourceVariable)

# legacy name (TF 1.x's ``variables.VariableV1`` is the class behind ``tf.Variable``)
VariableV1 = Variable


def _sync_agg():
    return VariableSynchronization, VariableAggregation


def _check_sync_aggregation(synchronization, aggregation, name=None):
    """TF's validation of a variable's ``synchronization``/``aggregation`` arguments (an enum
    member or its number)."""
    sync_cls, agg_cls = _sync_agg()
    synchronization = sync_cls.AUTO if synchronization is None else synchronization
    aggregation = agg_cls.NONE if aggregation is None else aggregation
    if not isinstance(aggregation, agg_cls):
        try:
            aggregation = agg_cls(aggregation)
        except ValueError:
            raise ValueError(f"Invalid variable aggregation mode: {aggregation} for variable: "
                             f"{name}") from None
    if not isinstance(synchronization, sync_cls):
        try:
            synchronization = sync_cls(synchronization)
        except ValueError:
            raise ValueError(f"Invalid variable synchronization mode: {synchronization} for "
                             f"variable: {name}") from None
    return synchronization, aggregation


class SaveSliceInfo:
    """Where a partition of a partitioned variable sits in the full variable: the full
    variable's name and shape, and this part's offset and shape (``Variable.SaveSliceInfo``)."""

    def __init__(self, full_name=None, full_shape=None, var_offset=None, var_shape=None,
                 save_slice_info_def=None, import_scope=None):
        if save_slice_info_def is not None:
            full_name = save_slice_info_def.full_name
            if import_scope:
                full_name = f"{import_scope.rstrip('/')}/{full_name}"
            full_shape = list(save_slice_info_def.full_shape)
            var_offset = list(save_slice_info_def.var_offset)
            var_shape = list(save_slice_info_def.var_shape)
        self.full_name = full_name
        self.full_shape = None if full_shape is None else [int(d) for d in full_shape]
        self.var_offset = None if var_offset is None else [int(d) for d in var_offset]
        self.var_shape = None if var_shape is None else [int(d) for d in var_shape]

    @property
    def spec(self):
        """The checkpoint slice spec: ``"<full shape> <offset>,<length>:..."``."""
        full = " ".join(str(d) for d in self.full_shape)
        sl = ":".join(f"{o},{n}" for o, n in zip(self.var_offset, self.var_shape))
        return f"{full} {sl}"

    def to_proto(self, export_scope=None):
        """A SaveSliceInfoDef (None when the variable is outside ``export_scope``)."""
        from tideflow.protos import variable_pb2

        name = self.full_name
        if export_scope is not None:
            if not name.startswith(export_scope + "/"):
                return None
            name = name[len(export_scope) + 1:]
        return variable_pb2.SaveSliceInfoDef(
            full_name=name, full_shape=self.full_shape, var_offset=self.var_offset,
            var_shape=self.var_shape)

    def __repr__(self):
        return (f"SaveSliceInfo(full_name={self.full_name!r}, full_shape={self.full_shape}, "
                f"var_offset={self.var_offset}, var_shape={self.var_shape})")


Variable.SaveSliceInfo = SaveSliceInfo


# ------------------------------------------------------------------------------------------
# collections
# ------------------------------------------------------------------------------------------


def global_variables(scope=None):
    """The variables in the GLOBAL_VARIABLES collection."""
    return ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES, scope)


all_variables = global_variables


def trainable_variables(scope=None):
    return ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope=None):
    return ops.get_collection(ops.GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope=None):
    return ops.get_collection(ops.GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope=None):
    return ops.get_collection(ops.GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


# ------------------------------------------------------------------------------------------
# initializers
# ------------------------------------------------------------------------------------------


def variables_initializer(var_list, name="init"):
    """An op that runs the initializers of ``var_list`` (a NoOp when the list is empty)."""
    cf = _control_flow_ops()
    if var_list:
        return cf.group(*[v.initializer for v in var_list], name=name)
    return cf.no_op(name=name)


initialize_variables = variables_initializer


def global_variables_initializer():
    """An op that initializes every global variable."""
    return variables_initializer(global_variables())


initialize_all_variables = global_variables_initializer


def local_variables_initializer():
    """An op that initializes every local variable."""
    return variables_initializer(local_variables(), name="init")


initialize_local_variables = local_variables_initializer


def tables_initializer(name="init_all_tables"):
    """An op that runs every initializer in the TABLE_INITIALIZERS collection."""
    inits = ops.get_collection(ops.GraphKeys.TABLE_INITIALIZERS)
    if inits:
        return _control_flow_ops().group(*inits, name=name)
    return _control_flow_ops().no_op(name=name)


initialize_all_tables = tables_initializer


def is_variable_initialized(variable):
    return state_ops.is_variable_initialized(variable)


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """A 1-D string tensor with the names of the variables of ``var_list`` not yet initialized.

    Defaults to every global and local variable.
    """
    if var_list is None:
        var_list = global_variables() + local_variables()
    from tideflow import env

    with ops.name_scope(name):
        inits = [state_ops.is_variable_initialized(v) for v in var_list]
        # the report runs on the CPU (as TF: under a replica_device_setter it lands on
        # the worker's CPU, whatever device the worker computes on)
        with ops.device(env.uninitialized_variable_reporting_device()):
            if not var_list:
                # an empty list, so callers test only the size of the result
                return _string_const([])
            mask = _math().logical_not(array_ops.stack(inits))
            names = _string_const([v.op.name for v in var_list])
            from tideflow.ops import slicing_ops

            return slicing_ops.boolean_mask(names, mask)


def _string_const(values):
    from tideflow.ops import constant_op

    return constant_op.constant(values, dtype=dtypes.string)


def _math():
    from tideflow.ops import math_ops

    return math_ops


def assert_variables_initialized(var_list=None):
    """An op that fails (FailedPreconditionError) when a variable of ``var_list`` is not
    initialized; None when there are no variables."""
    if var_list is None:
        var_list = global_variables() + local_variables()
    g = ops.get_default_graph()
    if not var_list:  # as TF: the graph's variable ops made outside tf.Variable
        var_list = [op.outputs[0] for op in g.get_operations()
                    if op.type in ("Variable", "VariableV2", "AutoReloadVariable")]
    if not var_list:
        return None
    ranks = []
    for v in var_list:  # TF's plain "Rank" ops, in the current scopes
        with g.colocate_with(v.op):
            # a Rank op even when the rank is known: running it reads the variable
            ranks.append(ops.apply_op("Rank", [v], name="Rank").outputs[0])
    if len(ranks) == 1:
        return ranks[0]
    return array_ops.stack(ranks)


ops.register_dense_tensor_like_type(Variable)  # as TF: a Variable is dense-tensor-like


def __getattr__(name):
    # TF's variables module also holds PartitionedVariable, which lives with the partitioners
    # (that module imports this one)
    if name == "PartitionedVariable":
        from tideflow.ops.partitioned_variables import PartitionedVariable

        return PartitionedVariable
    # ... and the distribution enums (TF 2's VariableAggregationV2 compares equal to TF 1's
    # enum, which adds the ONLY_FIRST_TOWER alias: here they are one enum)
    if name in ("VariableSynchronization", "VariableAggregation", "VariableAggregationV2"):
        sync_cls, agg_cls = _sync_agg()
        return sync_cls if name == "VariableSynchronization" else agg_cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
