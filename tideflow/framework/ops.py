"""The graph model: ``Graph``, ``Operation`` and ``Tensor``, scopes, collections and op creation."""

import abc
import contextlib
import os
import re
import sys
import threading
import weakref

import numpy as np

from tideflow.framework import device as device_lib
from tideflow.framework import dtypes, errors, op_registry
from tideflow.framework.tensor_shape import (
    TensorShape,
    as_shape,
    fresh_unknown_dims,
    unknown_shape,
)

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# as TF's node-name check, but also allowing a leading "_" (our internal ops' type names)
_VALID_NODE_NAME = re.compile(r"^[A-Za-z0-9._][A-Za-z0-9_.\\/>-]*$")
# TF 1.15's name scope rules (TF 2 allows '>' too)
_VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/-]*$")
_VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\\/-]*$")
# tideflow's own stores in a graph's collections (the current variable scope, layer name
# counters), left out of Graph.collections as TF has no such keys
_INTERNAL_COLLECTION_KEYS = (("__varscope_current",), ("__layer_name_uids",))


class GraphKeys:
    """Standard collection names."""

    GLOBAL_VARIABLES = "variables"
    VARIABLES = GLOBAL_VARIABLES  # 0.8 name
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"
    _STREAMING_MODEL_PORTS = "streaming_model_ports"
    _SUMMARY_COLLECTION = "_SUMMARY_V2"

    _VARIABLE_COLLECTIONS = (
        GLOBAL_VARIABLES,
        LOCAL_VARIABLES,
        METRIC_VARIABLES,
        MODEL_VARIABLES,
        TRAINABLE_VARIABLES,
        MOVING_AVERAGE_VARIABLES,
        CONCATENATED_VARIABLES,
        TRAINABLE_RESOURCE_VARIABLES,
    )


# ------------------------------------------------------------------------------------------
# Tensor
# ------------------------------------------------------------------------------------------



def _session_for(session, graph, doing, owner, no_default, hint):
    """The session ``Tensor.eval``/``Operation.run`` use: ``session``, or the default one,
    checked to hold ``graph`` (TF's ValueErrors otherwise)."""
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError(no_default)
        if getattr(session, "graph", graph) is not graph:
            raise ValueError(
                f"Cannot use the default session to {doing}: the {owner}'s graph is different "
                f"from the session's graph. Pass an explicit session to {hint}.")
    elif getattr(session, "graph", graph) is not graph:
        raise ValueError(
            f"Cannot use the given session to {doing}: the {owner}'s graph is different from "
            "the session's graph.")
    return session


def _append_to(obj, attr, item):
    """Appends ``item`` to the list ``obj.<attr>``, made on the first append (an empty tuple
    until then)."""
    lst = getattr(obj, attr)
    if lst.__class__ is list:
        lst.append(item)
    else:
        setattr(obj, attr, [*lst, item])


class Reference:
    """Identity-keyed wrapper of a tensor or variable (``Tensor.experimental_ref()``)."""

    __slots__ = ("_wrapped",)

    def __init__(self, wrapped):
        self._wrapped = wrapped

    def deref(self):
        return self._wrapped

    def __eq__(self, other):
        if not isinstance(other, Reference):
            return NotImplemented
        return self._wrapped is other._wrapped

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return id(self._wrapped)

    def __repr__(self):
        return f"<Reference wrapping {self._wrapped!r}>"


# Tensor.aliases lives here (Tensor has fixed slots): slim's end-point names per tensor
TENSOR_ALIASES = weakref.WeakKeyDictionary()
# Tensor._keras_mask lives here too: the mask a tf.keras layer gave its output tensor
KERAS_MASKS = weakref.WeakKeyDictionary()
# and Tensor._keras_history: tf.keras registers the look-up of (layer, node index, tensor
# index) in its per-graph state (a function of the tensor, returning None when not Keras's)
KERAS_HISTORY_LOOKUP = [None]


class Tensor:
    """A symbolic handle to one output of an Operation."""

    # ``__dict__``: TF 1.x tensors take any attribute (standalone Keras sets ``_keras_shape``,
    # ``_uses_learning_phase``, ``_keras_history`` on them); the hot fields stay slots
    __slots__ = ("__dict__", "__weakref__", "_consumers", "_dtype", "_op", "_shape",
                 "_sliced_assign", "_value_index")

    # numpy must defer to our operator overloads (ndarray + Tensor -> Tensor.__radd__)
    __array_priority__ = 100

    # the Python operators TF 1.15 lets wrappers forward to tensors (Edward's random variables
    # install one delegate per name); a plain set as TF's, which TF Probability's tensor-like
    # classes edit in place
    OVERLOADABLE_OPERATORS = {  # noqa: RUF012 (mutable, as TF's)
        "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__div__",
        "__rdiv__", "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__",
        "__rmod__", "__lt__", "__le__", "__gt__", "__ge__", "__ne__", "__eq__", "__and__",
        "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__getitem__", "__pow__",
        "__rpow__", "__invert__", "__neg__", "__abs__", "__matmul__", "__rmatmul__",
    }

    @property
    def assign(self):
        """Only on a slice of a variable (``v[0, 1:].assign(value)``), as in TF."""
        try:
            return self._sliced_assign
        except AttributeError:
            raise AttributeError("'Tensor' object has no attribute 'assign'") from None

    @assign.setter
    def assign(self, fn):
        # TF's Tensor takes any attribute: a library's proxy tensor for a variable carries the
        # variable's assign (T2T's daisy-chained variable reads)
        self._sliced_assign = fn

    @property
    def aliases(self):
        """The end-point names contrib/slim layers gave this tensor (TF sets ``aliases`` on
        the tensors it files in an ``outputs_collections``); absent until one is given."""
        try:
            return TENSOR_ALIASES[self]
        except KeyError:
            raise AttributeError("'Tensor' object has no attribute 'aliases'") from None

    @aliases.setter
    def aliases(self, value):
        TENSOR_ALIASES[self] = value

    @property
    def _keras_mask(self):
        """The mask a tf.keras layer attached to this output (TF 1.x sets ``_keras_mask`` on
        the outputs of masking-aware layers); absent until one is set."""
        try:
            return KERAS_MASKS[self]
        except KeyError:
            raise AttributeError("'Tensor' object has no attribute '_keras_mask'") from None

    @_keras_mask.setter
    def _keras_mask(self, value):
        KERAS_MASKS[self] = value

    @property
    def _keras_history(self):
        """``(layer, node_index, tensor_index)`` of the tf.keras call that made this tensor
        (TF 1.x sets it on Keras outputs); absent on other tensors."""
        given = self.__dict__.get("_keras_history")
        if given is not None:  # set by a Keras outside tideflow (standalone multi-backend Keras)
            return given
        lookup = KERAS_HISTORY_LOOKUP[0]
        history = lookup(self) if lookup is not None else None
        if history is None:
            raise AttributeError("'Tensor' object has no attribute '_keras_history'")
        return history

    @_keras_history.setter
    def _keras_history(self, value):
        self.__dict__["_keras_history"] = value

    def __copy__(self):
        # a copy names the same graph value (TF's runtime finds tensors by name); handing back
        # the tensor itself keeps ``copy.copy(t)`` usable as an op input (Keras's clip_norm)
        return self

    def __init__(self, op, value_index, dtype):
        self._op = op
        self._value_index = value_index
        self._dtype = dtype
        self._shape = _UNKNOWN_SHAPE
        self._consumers = ()  # a list from the first consumer on (empty lists cost GC time)

    @property
    def op(self):
        return self._op

    @property
    def value_index(self):
        return self._value_index

    @property
    def dtype(self):
        return self._dtype

    @property
    def graph(self):
        return self._op._graph

    @property
    def name(self):
        return f"{self._op._name}:{self._value_index}"

    @property
    def device(self):
        return self._op.device

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    def _shape_as_list(self):
        """The static shape as a list (None where unknown), or None for an unknown rank."""
        return self._shape.as_list() if self._shape.ndims is not None else None

    def set_shape(self, shape):
        """Merges ``shape`` into this tensor's static shape (ValueError when incompatible)."""
        shape = as_shape(shape)
        if not self._shape.is_compatible_with(shape):
            # TF's words (its C++ shape merge)
            a, b = self._shape, shape
            if a.ndims != b.ndims:
                raise ValueError(f"Shapes must be equal rank, but are {a.ndims} and {b.ndims}")
            i, x, y = next((i, x, y) for i, (x, y) in enumerate(zip(a.as_list(), b.as_list()))
                           if x is not None and y is not None and x != y)

            def show(s):
                return "[" + ",".join("?" if d is None else str(d) for d in s.as_list()) + "]"

            raise ValueError(f"Dimension {i} in both shapes must be equal, but are {x} and {y}. "
                             f"Shapes are {show(a)} and {show(b)}.")
        self._shape = self._shape.merge_with(shape)

    def consumers(self):
        return list(self._consumers)

    def eval(self, feed_dict=None, session=None):
        """Runs the default (or given) session to compute this tensor."""
        session = _session_for(
            session, self.graph, "evaluate tensor", "tensor",
            "Cannot evaluate tensor using `eval()`: No default session is registered. Use "
            "`with sess.as_default()` or pass an explicit session to `eval(session=sess)`",
            "`eval(session=sess)`")
        return session.run(self, feed_dict)

    def _as_node_def_input(self):
        if self._value_index == 0:
            return self._op._name
        return f"{self._op._name}:{self._value_index}"

    def __repr__(self):
        return f'<tf.Tensor {self.name!r} shape={self._shape} dtype={self._dtype.name}>'

    def __str__(self):
        # As TF: the shape only when its rank is known, the device only when one is set.
        shape = f", shape={self._shape}" if self._shape.ndims is not None else ""
        device = f", device={self.device}" if self.device else ""
        return f'Tensor("{self.name}"{shape}, dtype={self._dtype.name}{device})'

    def __hash__(self):
        return id(self)

    def experimental_ref(self):
        """A hashable reference to this tensor (``ref.deref()`` gives it back), TF 1.15's way
        to key sets and dicts by tensor identity."""
        return Reference(self)

    ref = experimental_ref

    def _rank(self):
        """The static rank (None when unknown), as TF's ``Tensor._rank``."""
        return self._shape.ndims

    def _shape_tuple(self):
        dims = self._shape.as_list() if self._shape.ndims is not None else None
        return None if dims is None else tuple(dims)

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    def __bool__(self):
        # TF 1.15's words (the TypeError subclass since its AutoGraph work); ``if t:`` on a
        # graph tensor is almost always meant as ``if t is not None:`` or a tf.cond
        raise errors.OperatorNotAllowedInGraphError(
            "using a `tf.Tensor` as a Python `bool` is not allowed in Graph execution. Use "
            "Eager execution or decorate this function with @tf.function."
        )

    __nonzero__ = __bool__

    def __iter__(self):
        # TF 1.x never iterates a graph tensor (whatever its shape). As TF 1.15's, this is a
        # generator: iter(x) gives one, and its first step raises (so code probing
        # ``list(iter(x))`` for a TypeError sees a tensor as one value)
        raise errors.OperatorNotAllowedInGraphError(
            "iterating over `tf.Tensor` is not allowed in Graph execution. Use Eager "
            "execution or decorate this function with @tf.function.")
        yield  # (unreached: makes this a generator, as TF's)

    def __contains__(self, value):
        # ``v in t`` iterates, as it did where TF 1.15 ran (Python 3.7): its error, not the
        # "argument of type 'Tensor' is not iterable" later Pythons put in its place
        return next(self.__iter__())

    def __len__(self):
        raise TypeError(
            f"len is not well defined for symbolic Tensors. ({self.name}) Please call "
            "`x.shape` rather than `len(x)` for shape information."
        )

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(
            f"Cannot convert a symbolic Tensor ({self.name}) to a numpy array."
        )

    @classmethod
    def _override_operator(cls, operator, func):
        setattr(cls, operator, func)


_UNKNOWN_SHAPE = unknown_shape()


class EagerTensor(Tensor):
    """TF's type of eager values. tideflow builds graphs only, so no tensor is one; programs
    test ``isinstance(x, ops.EagerTensor)`` to tell eager values from symbolic ones."""

    def __init__(self, *args, **kwargs):
        raise TypeError("tideflow runs TF 1.x graphs: there are no eager tensors")


# ------------------------------------------------------------------------------------------
# Operation
# ------------------------------------------------------------------------------------------


class _InputList(tuple):
    """The inputs of an op (a tuple, as TF's ``op.inputs``)."""

    # printed as TF 1.15 prints ``op.inputs``: a plain object, not its tensors
    __repr__ = object.__repr__
    __str__ = object.__str__


_InputList.__qualname__ = "Operation._InputList"  # TF's name for it


class Operation:
    """A node of the graph: an op type, inputs, attrs, a device and outputs."""

    __slots__ = (
        "__weakref__",
        "_attrs",
        "_control_inputs",
        "_control_outputs",
        "_device",
        "_frame",
        "_graph",
        "_id",
        "_inputs",
        "_name",
        "_op_def",
        "_original_op",
        "_outputs",
        "_traceback",
        "_type",
    )

    def __init__(self, graph, name, op_def, inputs, attrs, output_types, control_inputs=(),
                 device="", traceback=None):
        self._graph = graph
        self._name = name
        self._type = op_def.name
        self._op_def = op_def
        self._inputs = _InputList(inputs)
        # lists only where non-empty: most ops have neither (fewer objects for the GC to scan)
        self._control_inputs = list(control_inputs) if control_inputs else ()
        self._attrs = attrs
        self._device = device
        self._outputs = [Tensor(self, i, t) for i, t in enumerate(output_types)]
        self._id = None
        self._traceback = traceback
        self._control_outputs = ()
        self._original_op = graph._default_original_op
        self._frame = None  # control-flow frame, set by control-flow builders

    # -- identity ---------------------------------------------------------------------------
    @property
    def name(self):
        return self._name

    @property
    def type(self):
        return self._type

    @property
    def graph(self):
        return self._graph

    @property
    def op_def(self):
        return self._op_def

    @property
    def device(self):
        return self._device

    @property
    def inputs(self):
        return self._inputs

    @property
    def outputs(self):
        return list(self._outputs)

    def values(self):
        return tuple(self._outputs)

    @property
    def control_inputs(self):
        return list(self._control_inputs)

    @property
    def _control_outputs_list(self):
        return self._control_outputs

    @property
    def node_def(self):
        from tideflow.framework import graph_io

        return graph_io.node_def_of(self)

    @property
    def traceback(self):
        """TF's (filename, lineno, function, source line) of each frame of the stack that made
        this op, outermost first."""
        return stack_of(self)

    def _traceback_tuple(self):
        return self._traceback

    @property
    def _user_location(self):
        tb = self._traceback
        # as TF's error messages name it: "(defined at <file>:<line>)"
        return f"{tb[0]}:{tb[1]}" if tb else "<unknown>"

    def _set_device(self, device):
        canonical = device_lib.canonical_name(device)  # (validates a string)
        # as TF's: a string is kept as written ('/gpu:0'), a DeviceSpec as its string
        self._device = device if isinstance(device, str) else canonical

    def get_attr(self, name):
        """The value of attr ``name`` as TF returns it (strings as bytes, tensors as protos)."""
        if name is None:  # (TF's C API wrapper passes it as no name)
            name = ""
        elif not isinstance(name, str):  # (and refuses anything else, bytes too)
            raise TypeError("in method 'TF_OperationGetAttrValueProto', argument 2 of type "
                            "'char const *'")
        if name not in self._attrs:
            raise ValueError(f"Operation '{self._name}' has no attr named '{name}'.")
        value = self._attrs[name]
        if name == "_class":
            return [v.encode() if isinstance(v, str) else v for v in value]
        spec = self._op_def.attrs.get(name)
        typ = spec.type if spec is not None else None
        if typ == "func" or typ == "list(func)":  # NameAttrList protos, as TF's
            from tideflow.framework import graph_io

            protos = [graph_io._func_proto(v) for v in (value if typ != "func" else [value])]
            protos = [type(p).FromString(p.SerializeToString()) for p in protos]  # fresh copies
            return protos[0] if typ == "func" else protos
        if hasattr(value, "WhichOneof"):  # an AttrValue kept as is (imported "_" attrs)
            from tideflow.framework import graph_io

            value = graph_io.attr_value_to_python(value)
            if isinstance(value, str):  # strings as bytes, as TF's get_attr
                return value.encode()
            if isinstance(value, list):
                return [v.encode() if isinstance(v, str) else v for v in value]
            return value
        if (typ == "string" or typ is None) and isinstance(value, str):
            return value.encode()  # "_gradient_op_type" and other "_" attrs too, as TF
        if typ == "list(string)":
            return [v.encode() if isinstance(v, str) else v for v in value]
        if typ == "tensor":
            from tideflow.framework import tensor_util

            return tensor_util.make_tensor_proto(value)
        if typ == "shape":
            return value.as_proto() if isinstance(value, TensorShape) else value
        if typ == "list(shape)":
            return [v.as_proto() for v in value]
        if isinstance(value, (list, tuple)):
            return list(value)  # a fresh list, as TF's: changing it leaves the op alone
        return value

    def _set_attr(self, name, value):
        if hasattr(value, "WhichOneof"):  # an AttrValue, as TF's _set_attr takes
            if name == "_class":
                value = [v.decode() if isinstance(v, bytes) else v for v in value.list.s]
            elif name in self._op_def.attrs:
                from tideflow.framework import graph_io

                value = graph_io.attr_value_to_python(value, self._op_def.attrs[name].type)
        self._attrs[name] = value

    def _add_control_input(self, op):
        if not isinstance(op, Operation):
            raise TypeError(f"op must be an Operation: {op}")
        if op not in self._control_inputs:
            _append_to(self, "_control_inputs", op)
            _append_to(op, "_control_outputs", self)
            self._graph._structure_version += 1

    def _add_control_inputs(self, ops):
        for op in ops:
            self._add_control_input(op)

    def _remove_all_control_inputs(self):
        for op in self._control_inputs:
            if op._control_outputs and self in op._control_outputs:
                op._control_outputs = [o for o in op._control_outputs if o is not self]
        self._control_inputs = ()
        self._graph._structure_version += 1

    def _update_input(self, index, tensor):
        """Replaces input ``index`` (used by graph rewrites such as control flow)."""
        if not isinstance(tensor, Tensor):
            raise TypeError(f"tensor must be a Tensor: {tensor!r}")
        if tensor._op._graph is not self._graph:
            raise ValueError(f"{tensor} must be from the same graph as {self.name}.")
        if not 0 <= index < len(self._inputs):
            from tideflow.framework import errors

            raise errors.OutOfRangeError(
                None, self, f"Cannot update edge. Input index [{index}] is greater than the "
                f"number of total inputs [{len(self._inputs)}].")
        old = self._inputs[index]
        if not old._shape.is_compatible_with(tensor._shape):
            from tideflow.framework import errors

            dims = [",".join("?" if d is None else str(d) for d in t._shape.as_list())
                    for t in (tensor, old)]
            raise errors.InvalidArgumentError(
                None, self, f"Cannot update edge, incompatible shapes: [{dims[0]}] and "
                f"[{dims[1]}].")
        inputs = list(self._inputs)
        inputs[index] = tensor
        self._inputs = _InputList(inputs)
        if old._consumers:
            with contextlib.suppress(ValueError):
                old._consumers.remove(self)
        _append_to(tensor, "_consumers", self)
        self._graph._structure_version += 1

    def _add_input(self, tensor):
        """Appends a data input (control-flow gradients add loop accumulators this way)."""
        self._inputs = _InputList((*self._inputs, tensor))
        _append_to(tensor, "_consumers", self)
        self._graph._structure_version += 1

    def _add_output(self, dtype, shape=None):
        """Appends an output (control-flow gradients expose intermediates this way)."""
        t = Tensor(self, len(self._outputs), dtype)
        if shape is not None:
            t._shape = as_shape(shape)
        self._outputs.append(t)
        self._graph._structure_version += 1
        return t

    def colocation_groups(self):
        groups = self._attrs.get("_class")
        if not groups:
            return [f"loc:@{self._name}".encode()]
        return [g.encode() if isinstance(g, str) else g for g in groups]

    def run(self, feed_dict=None, session=None):
        """Runs this op in the default (or given) session."""
        session = _session_for(
            session, self._graph, "execute operation", "operation",
            "Cannot execute operation using `run()`: No default session is registered. Use "
            "`with sess.as_default():` or pass an explicit session to `run(session=sess)`",
            "run(session=sess)")  # (TF's op message quotes no code here, its tensor one does)
        session.run(self, feed_dict)

    def __repr__(self):
        return f"<tf.Operation '{self._name}' type={self._type}>"

    def __str__(self):
        return str(self.node_def)  # TF 1.15's text format (tideflow.protos)


# ------------------------------------------------------------------------------------------
# Graph
# ------------------------------------------------------------------------------------------


_THREAD_LOCAL_STACKS = ("_device_function_stack", "_colocation_stack",
                        "_control_dependencies_stack")
_THREAD_LOCAL_CLASSES = {}


class _GraphThreadLocal(threading.local):
    """A graph's per-thread state: the name scope (every thread starts at the root), and
    whether a shape function is running (see ``constant_value``)."""

    name_stack = ""
    inferring_shapes = 0
    inferring_op = None  # the op whose shape function runs
    # while a shape function's error is replayed (see _shape_error): the inputs it asked
    # the values (or, as shapes, the partial values) of, and (input ids, ids of the inputs
    # whose values it may see) as TF's shape refiner computes them pass by pass
    shape_reads = None
    shape_gate = None
    # constant_value's evaluation of constant subgraphs (see _evaluated_value): off while
    # no_evaluation; evaluation_truncated when a depth limit, not the graph, left a value unknown
    no_evaluation = 0
    evaluation_truncated = False


def _thread_local_stack(attr):
    def get(self):
        local = self._stacks_local
        try:
            return getattr(local, attr)
        except AttributeError:
            value = list(self._stacks_snapshot[attr])
            setattr(local, attr, value)
            return value

    def set_(self, value):
        setattr(self._stacks_local, attr, value)

    return property(get, set_)


def _thread_local_stacks_class(cls):
    sub = _THREAD_LOCAL_CLASSES.get(cls)
    if sub is None:
        sub = type(cls.__name__, (cls,), {a: _thread_local_stack(a) for a in
                                          _THREAD_LOCAL_STACKS})
        sub.__module__ = cls.__module__
        sub.__qualname__ = cls.__qualname__
        _THREAD_LOCAL_CLASSES[cls] = sub
    return sub


def _check_str_map(mapping, what):
    """TF's check on gradient_override_map / _kernel_label_map arguments (raised on entering)."""
    if not isinstance(mapping, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in mapping.items()):
        raise TypeError(f"{what} must be a dictionary mapping strings to strings")


class Graph:
    """A dataflow graph: operations connected by tensors, plus scopes and collections."""

    def __init__(self):
        self._lock = threading.RLock()
        self._thread_local = _GraphThreadLocal()  # the name scope is per thread, as TF's
        self._nodes_by_id = {}
        self._nodes_by_name = {}
        self._ops = []
        self._next_id = 1
        self._version = 0
        self._structure_version = 0
        # (op id, output index) -> (structure version, value): see _evaluated_value
        self._evaluated_values = {}
        self._names_in_use = {}
        self._name_stack = ""
        self._control_dependencies_stack = []
        self._device_function_stack = []
        self._colocation_stack = []
        self._collections = {}
        self._finalized = False
        self._seed = None
        self._gradient_override_map = {}
        self._attr_scope_map = {}
        self._kernel_label_map_dict = {}
        self._unfeedable_tensors = set()
        self._unfetchable_ops = set()
        self._container = ""
        self._frame_stack = []  # control-flow contexts (set by control-flow builders)
        self._graph_def_versions = (134, 0)  # TF 1.15's GRAPH_DEF_VERSION (tideflow/version.py)
        self._node_def_cache = {}
        # function library (control-flow bodies): name -> FuncGraph (framework/func_graph.py)
        self._functions = {}

    # -- ops --------------------------------------------------------------------------------
    def _add_op(self, op):
        self._check_not_finalized()
        op._id = self._next_id
        self._next_id += 1
        self._nodes_by_id[op._id] = op
        self._nodes_by_name[op._name] = op
        self._ops.append(op)
        # the number of ops made, as TF's (op ids may skip numbers, or take one reserved
        # earlier: a tf.data dataset's), so that as_graph_def(from_version) sends every op made
        # since, in creation order
        self._version = len(self._ops)

    def _add_created_op(self, op):
        """Adds a new op and links it to its producers, scopes and control-flow frame."""
        self._add_op(op)
        for t in op._inputs:
            c = t._consumers
            if c.__class__ is list:
                c.append(op)
            else:
                t._consumers = [op]
        for c in op._control_inputs:
            _append_to(c, "_control_outputs", op)
        for controller in self._control_dependencies_stack:
            controller.created.add(op._id)
        if self._frame_stack:
            self._frame_stack[-1]._add_op(op)

    def _remove_ops(self, removed):
        """Takes back ops added by a failed multi-op construction (newest first)."""
        for op in reversed(removed):
            for t in op._inputs:
                with contextlib.suppress(ValueError):
                    if t._consumers:
                        t._consumers.remove(op)
            for c in op._control_inputs:
                with contextlib.suppress(ValueError):
                    if c._control_outputs:
                        c._control_outputs.remove(op)
            self._nodes_by_id.pop(op._id, None)
            if self._nodes_by_name.get(op._name) is op:
                del self._nodes_by_name[op._name]
            for controller in self._control_dependencies_stack:
                controller.created.discard(op._id)
        dead = {id(op) for op in removed}
        self._ops[:] = [op for op in self._ops if id(op) not in dead]

    def get_operations(self):
        return list(self._ops)

    @property
    def version(self):
        return self._version

    @property
    def graph_def_versions(self):
        from tideflow.protos import versions_pb2

        producer, min_consumer = self._graph_def_versions[:2]
        return versions_pb2.VersionDef(producer=producer, min_consumer=min_consumer)

    @property
    def seed(self):
        return self._seed

    @seed.setter
    def seed(self, seed):
        self._seed = seed

    @property
    def finalized(self):
        return self._finalized

    def finalize(self):
        self._finalized = True
        forget_stack_above()

    def _unsafe_unfinalize(self):
        self._finalized = False

    def switch_to_thread_local(self):
        """Makes the device, colocation and control-dependency stacks per thread (TF), each
        thread starting from the stacks as they are now. The graph's class becomes a
        subclass with properties for them, so graphs that never switch pay nothing."""
        if getattr(self, "_stacks_local", None) is not None:
            return
        snapshot = {a: list(self.__dict__.pop(a)) for a in _THREAD_LOCAL_STACKS}
        self._stacks_snapshot = snapshot
        self._stacks_local = threading.local()
        self.__class__ = _thread_local_stacks_class(type(self))

    def _check_not_finalized(self):
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")

    def get_operation_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=False, allow_operation=True)

    def get_tensor_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def _get_operation_by_name_unsafe(self, name):
        return self._nodes_by_name[name]

    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        """Resolves a Tensor, Operation or name ('op' or 'op:0') in this graph."""
        if allow_tensor and allow_operation:
            types_str = "Tensor or Operation"
        elif allow_tensor:
            types_str = "Tensor"
        elif allow_operation:
            types_str = "Operation"
        else:
            raise ValueError("allow_tensor and allow_operation can't both be False.")
        conv = getattr(obj, "_as_graph_element", None)
        if conv is not None and not isinstance(obj, (Tensor, Operation)):
            obj = conv()
        if isinstance(obj, bytes):
            obj = obj.decode()
        if isinstance(obj, str):
            name = obj
            if ":" in name and allow_tensor:
                try:
                    op_name, out_n = name.split(":")
                    out_n = int(out_n)
                except ValueError:
                    raise ValueError(
                        f"The name {name!r} looks a like a Tensor name, but is not a valid one. "
                        "Tensor names must be of the form \"<op_name>:<output_index>\"."
                    ) from None
                op = self._nodes_by_name.get(op_name)
                if op is None:
                    raise KeyError(
                        f"The name {name!r} refers to a Tensor which does not exist. The "
                        f"operation, {op_name!r}, does not exist in the graph."
                    )
                if out_n >= len(op._outputs):
                    raise KeyError(
                        f"The name {name!r} refers to a Tensor which does not exist. The "
                        f"operation, {op_name!r}, exists but only has {len(op._outputs)} outputs."
                    )
                return op._outputs[out_n]
            if ":" in name and not allow_tensor:
                raise ValueError(f"Name {name!r} appears to refer to a Tensor, not a {types_str}.")
            if not allow_operation:
                if name in self._nodes_by_name:
                    raise ValueError(
                        f"The name {name!r} refers to an Operation, not a {types_str}. Tensor "
                        f"names must be of the form \"<op_name>:<output_index>\"."
                    )
                raise ValueError(
                    f"The name {name!r} looks like an (invalid) Operation name, not a {types_str}."
                    " Tensor names must be of the form \"<op_name>:<output_index>\"."
                )
            op = self._nodes_by_name.get(name)
            if op is None:
                raise KeyError(f"The name {name!r} refers to an Operation not in the graph.")
            return op
        if isinstance(obj, Tensor) and allow_tensor:
            if obj.graph is not self:
                raise ValueError(f"Tensor {obj} is not an element of this graph.")
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj._graph is not self:
                raise ValueError(f"Operation {obj} is not an element of this graph.")
            return obj
        raise TypeError(f"Can not convert a {type(obj).__name__} into a {types_str}.")

    # -- naming -----------------------------------------------------------------------------
    @property
    def _name_stack(self):
        return self._thread_local.name_stack

    @_name_stack.setter
    def _name_stack(self, value):
        self._thread_local.name_stack = value

    @property
    def collections(self):
        """The names of the collections this graph holds (TF's own tuple key, the variable
        scope store, among them; tideflow's other internal stores are not listed)."""
        return [k for k in self._collections
                if isinstance(k, str) or k not in _INTERNAL_COLLECTION_KEYS]

    def get_name_scope(self):
        return self._name_stack

    @property
    def _last_id(self):
        """The id of the last op created (0 in an empty graph), as TF's ``Graph._last_id``."""
        return self._next_id - 1

    # ids for ops TF 1.x has no counterpart of and that must not take the graph's count
    # (see aside_ids): far above any count a graph reaches
    ASIDE_IDS = 1 << 40

    @contextlib.contextmanager
    def aside_ids(self):
        """Ops made inside take ids from a range of their own, not the graph's op count (the
        placeholders a while loop adds so that its cond and body take the same captures: TF
        1.x makes no op for them), so the ops after number as TF's."""
        root = getattr(self, "_root", None) or self
        nxt = root._next_id
        root._next_id = root.__dict__.get("_aside_next_id", self.ASIDE_IDS)
        try:
            yield
        finally:
            root._aside_next_id = root._next_id
            root._next_id = nxt

    def _reserve_op_id(self):
        """An id for an op made later: a tf.data dataset's, which TF 1.15 made with the
        Dataset and tideflow makes when an iterator needs it (``Dataset._apply_reserved``)."""
        i = self._next_id
        self._next_id = i + 1
        return i

    def _skip_op_ids(self, count=0, to=None):
        """Skips the op ids of ops TF 1.x makes where tideflow makes none (its Switch/Merge
        frames, TensorArray ops, ...): ``count`` more, or forward ``to`` an id (never back), so
        later ops, and the op seeds of later random ops, number as in TF."""
        self._next_id = self._next_id + count if to is None else max(self._next_id, to)

    def unique_name(self, name, mark_as_used=True):
        """``name`` under the current scope, suffixed ``_1``, ``_2``... when already used."""
        stack = self._thread_local.name_stack
        if stack:
            name = stack + "/" + name
        key = name.lower()
        i = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = i + 1
        if i > 0:
            base = name
            while name.lower() in self._names_in_use:
                name = f"{base}_{i}"
                i += 1
            if mark_as_used:
                self._names_in_use[name.lower()] = 1
        return name

    @contextlib.contextmanager
    def name_scope(self, name):
        """Opens name scope ``name`` (made unique); ``'a/'`` re-enters; None or '' resets."""
        local = self._thread_local
        old = local.name_stack
        if name:
            if isinstance(name, bytes):
                name = name.decode()
            regex = _VALID_SCOPE_NAME if old else _VALID_OP_NAME
            if not regex.match(name):  # TF 1.15's words (TF 2 adds the pattern)
                raise ValueError(f"'{name}' is not a valid scope name")
        if not name:
            new = ""
        elif name[-1] == "/":
            new = name[:-1]
        else:
            new = self.unique_name(name)
        local.name_stack = new
        try:
            yield "" if not new else new + "/"
        finally:
            local.name_stack = old

    # -- control dependencies --------------------------------------------------------------
    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        """Ops created inside run after ``control_inputs``; None clears outer dependencies."""
        if control_inputs is None:
            old = self._control_dependencies_stack
            self._control_dependencies_stack = []
            try:
                yield
            finally:
                self._control_dependencies_stack = old
            return
        ops = []
        current = self._current_control_dependencies()
        for c in control_inputs:
            if hasattr(c, "_as_graph_element") and not isinstance(c, (Tensor, Operation)):
                c = c._as_graph_element()
            if isinstance(c, Tensor) and c._op._graph is self:
                # (a resource variable's update read back: TF's unread variable, whose op
                # is the update's)
                c = getattr(c, "_update_op", None) or c._op
            elif isinstance(c, IndexedSlicesBase):
                c = c.op
            if not isinstance(c, Operation):
                # a name resolves; another graph's tensor or any other value gets TF's error
                c = self.as_graph_element(c)
                if isinstance(c, Tensor):
                    c = c._op
            elif c._graph is not self:
                raise ValueError(f"Operation {c} is not an element of this graph.")
            if c not in current and c not in ops:
                ops.append(c)
        controller = _ControlDependencies(ops)
        self._control_dependencies_stack.append(controller)
        try:
            yield
        finally:
            self._control_dependencies_stack.remove(controller)

    def _current_control_dependencies(self):
        out = []
        for c in self._control_dependencies_stack:
            out.extend(c.ops)
        return out

    def _control_dependencies_for_inputs(self, input_ops):
        ret = []
        for controller in self._control_dependencies_stack:
            # a controller's deps are implied when an input was created inside its block
            if any(op._id is not None and op._id in controller.created for op in input_ops):
                continue
            for op in controller.ops:
                if op not in input_ops and op not in ret:
                    ret.append(op)
        return ret

    # -- devices ----------------------------------------------------------------------------
    @contextlib.contextmanager
    def device(self, device_name_or_function):
        """Ops created inside get this device (a string, DeviceSpec, function or None)."""
        if isinstance(device_name_or_function, device_lib.DeviceSpec):
            device_name_or_function = device_name_or_function.to_string()
        if isinstance(device_name_or_function, str):
            device_lib.canonical_name(device_name_or_function)  # validate now
        elif not (device_name_or_function is None or callable(device_name_or_function)
                  or isinstance(device_name_or_function, bytes)):
            # (TF parses any other value as a device string)
            raise AttributeError(f"'{type(device_name_or_function).__name__}' object has no "
                                 "attribute 'split'")
        stack = self._device_function_stack
        stack.append(device_name_or_function)
        depth = len(stack)
        try:
            yield
        finally:
            if len(stack) != depth:
                raise RuntimeError("Exiting device scope without proper scope nesting")
            stack.pop()

    def _apply_device_functions(self, op):
        dev = ""
        for fn in reversed(self._device_function_stack):
            if fn is None:
                break
            if callable(fn):
                op._device = dev
                new = fn(op)
                if isinstance(new, device_lib.DeviceSpec):
                    new = new.to_string()
                elif isinstance(new, bytes):
                    new = new.decode()
                elif not isinstance(new, str):  # (TF sets the op's device to the answer)
                    raise TypeError(f"Expected binary or unicode string, got {new!r}")
                # as TF: a function's answer is the op's device as written ('cpu:1' stays
                # 'cpu:1' in ``op.device``; it sees the device so far in ``op.device`` and
                # merges it itself when it wants to); an outer string scope canonicalizes
                if new:
                    device_lib.canonical_name(new)  # validate now
                dev = new or ""
            else:
                # the inner (already applied) fields win; the outer spec fills the rest
                dev = device_lib.merge_device(fn, dev) if dev else device_lib.canonical_name(fn)
        return dev

    @contextlib.contextmanager
    def colocate_with(self, op, ignore_existing=False):
        """Ops created inside are placed with ``op`` (its colocation group and device)."""
        if op is None:
            if not ignore_existing:
                raise ValueError(
                    "Trying to reset colocation (op is None) but ignore_existing is not True")
            # resetting colocation resets the device stack too, as TF's
            old, old_dev = self._colocation_stack, self._device_function_stack
            self._colocation_stack, self._device_function_stack = [], []
            try:
                yield
            finally:
                self._colocation_stack, self._device_function_stack = old, old_dev
            return
        if hasattr(op, "_as_graph_element") and not isinstance(op, (Tensor, Operation)):
            # as TF's _op_to_colocate_with: a resource variable colocates with its handle's
            # op (_class "loc:@v"), not with the read its graph element is
            handle = getattr(op, "handle", None) if getattr(op, "_resource", False) else None
            op = (handle if isinstance(handle, Tensor) and handle._op._graph is self
                  else op._as_graph_element())
        if isinstance(op, IndexedSlicesBase):
            op = op.op
        if isinstance(op, Tensor):
            op = op._op
        elif not isinstance(op, Operation):
            op = _colocation_tensor(op)._op
        old_dev = self._device_function_stack
        self._device_function_stack = []
        old_stack = self._colocation_stack
        if ignore_existing:
            self._colocation_stack = []
        self._colocation_stack = self._colocation_stack + [op]
        try:
            yield
        finally:
            self._device_function_stack = old_dev
            self._colocation_stack = old_stack

    @contextlib.contextmanager
    def container(self, container_name):
        old = self._container
        self._container = container_name
        try:
            yield self._container
        finally:
            self._container = old

    # -- collections ------------------------------------------------------------------------
    def add_to_collection(self, name, value):
        self._check_not_finalized()
        with self._lock:
            self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value):
        if isinstance(names, str):
            names = [names]
        # each name once, in the given order (TF's set makes the order of newly made
        # collections depend on string hashing)
        for name in dict.fromkeys(names):
            self.add_to_collection(name, value)

    def get_collection_ref(self, name):  # (TF 1.15's argument names)
        with self._lock:
            return self._collections.setdefault(name, [])

    def get_collection(self, name, scope=None):
        with self._lock:
            items = self._collections.get(name)
            if items is None:
                return []
            if scope is None:
                return list(items)
            regex = re.compile(scope)
            out = []
            for item in items:
                name = getattr(item, "name", None)
                if name is not None and regex.match(name):
                    out.append(item)
            return out

    def get_all_collection_keys(self):
        with self._lock:
            # as TF: only string keys (internal stores use tuple keys)
            return [k for k, v in self._collections.items()
                    if isinstance(v, list) and isinstance(k, str)]

    def clear_collection(self, name):
        self._check_not_finalized()
        with self._lock:
            self._collections.pop(name, None)

    # -- overrides --------------------------------------------------------------------------
    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map):
        """Within this block, ops of type k use the gradient registered under name v."""
        _check_str_map(op_type_map, "op_type_map")
        old = {k: self._gradient_override_map.get(k) for k in op_type_map}
        self._gradient_override_map.update(op_type_map)
        try:
            yield
        finally:
            for k, v in old.items():
                if v is None:
                    del self._gradient_override_map[k]
                else:
                    self._gradient_override_map[k] = v

    @contextlib.contextmanager
    def _kernel_label_map(self, op_to_kernel_label_map):
        """Within this block, ops of type k record kernel label v (their ``_kernel`` attr).
        tideflow has one kernel per op and device, so a label selects nothing."""
        _check_str_map(op_to_kernel_label_map, "op_to_kernel_label_map")
        old = {k: self._kernel_label_map_dict.get(k) for k in op_to_kernel_label_map}
        self._kernel_label_map_dict.update(op_to_kernel_label_map)
        try:
            yield
        finally:
            for k, v in old.items():
                if v is None:
                    self._kernel_label_map_dict.pop(k, None)
                else:
                    self._kernel_label_map_dict[k] = v

    @contextlib.contextmanager
    def _attr_scope(self, attr_map):
        old = {k: self._attr_scope_map.get(k) for k in attr_map}
        self._attr_scope_map.update(attr_map)
        try:
            yield
        finally:
            for k, v in old.items():
                if v is None:
                    self._attr_scope_map.pop(k, None)
                else:
                    self._attr_scope_map[k] = v

    def prevent_feeding(self, tensor):
        self._unfeedable_tensors.add(tensor)

    def is_feedable(self, tensor):
        return tensor not in self._unfeedable_tensors and not self._in_body(tensor)

    def prevent_fetching(self, op):
        self._unfetchable_ops.add(op)

    def is_fetchable(self, tensor_or_op):
        op = tensor_or_op._op if isinstance(tensor_or_op, Tensor) else tensor_or_op
        return op not in self._unfetchable_ops and not self._in_body(op)

    def _in_body(self, el):
        """Whether ``el`` lives in a loop or branch body built in this graph (TF marks those
        not fetchable; ours, function bodies, cannot be fed either)."""
        g = getattr(el, "graph", None)
        return g is not None and g is not self and getattr(g, "_root", None) is self

    # -- default graph ----------------------------------------------------------------------
    def as_default(self):
        return _default_graph_stack.get_controller(self)

    _building_function = False  # a graph a function body is traced into (FuncGraph)
    while_loop_body = False  # a while loop's cond or body (FuncGraph)
    _default_original_op = None  # set by _original_op(): what the ops made now stand for

    @contextlib.contextmanager
    def _original_op(self, op):
        """Ops created inside record ``op`` as their ``_original_op`` (TF: the op an error
        names as the origin of the one that failed)."""
        old = self.__dict__.get("_default_original_op")
        self._default_original_op = op
        try:
            yield
        finally:
            if old is None:
                self.__dict__.pop("_default_original_op", None)
            else:
                self._default_original_op = old

    @property
    def building_function(self):
        return self._building_function

    # TF 1.x's cond/while contexts: tideflow's loops and conds are functional (their bodies are
    # function graphs), so ops are never built inside a context and this is always None.
    def _get_control_flow_context(self):
        return None

    # -- serialization (framework/graph_io.py) ----------------------------------------------
    def as_graph_def(self, from_version=None, add_shapes=False):
        from tideflow.framework import graph_io

        # TF 1.15 (its C API graph) accepts from_version and always returns the whole graph
        return graph_io.graph_to_graph_def(self, add_shapes=add_shapes)

    def _as_graph_def(self, from_version=None, add_shapes=False):
        return self.as_graph_def(from_version, add_shapes), self._version

    def create_op(self, op_type, inputs, dtypes=None, input_types=None, name=None, attrs=None,
                  op_def=None, compute_shapes=True, compute_device=True):
        """TF's low-level op constructor: inputs are Tensors, attrs Python values or (as TF
        takes them) ``AttrValue`` protos (a copied ``node_def.attr``)."""
        del dtypes, input_types, op_def, compute_shapes, compute_device
        # TF's order: the inputs, the graph's finalization, the name, the op type
        inputs = list(inputs)
        for i, x in enumerate(inputs):  # as TF's: tensors (not Python values) only
            if not (isinstance(x, Tensor) or is_dense_tensor_like(x)):
                raise TypeError(f"Input #{i} is not a tensor: {x}")
        self._check_not_finalized()
        check_node_name(self, name)
        if op_registry.lookup(op_type) is None:
            import socket

            raise errors.NotFoundError(
                None, None, f"Op type not registered '{op_type}' in binary running on "
                f"{socket.gethostname()}. Make sure the Op and Kernel are registered in the "
                "binary running in this process.")
        if attrs and any(hasattr(v, "WhichOneof") for v in attrs.values()):
            from tideflow.framework import graph_io

            specs = op_registry.get(op_type).attrs
            attrs = {k: graph_io.attr_value_to_python(v, specs[k].type if k in specs else None)
                     if hasattr(v, "WhichOneof") else v for k, v in attrs.items()}
        return apply_op(op_type, inputs, attrs or {}, name=name, graph=self, _flat=True)


class _ControlDependencies:
    __slots__ = ("created", "ops")

    def __init__(self, ops):
        self.ops = ops
        self.created = set()


class IndexedSlicesBase:
    """Marker base for sparse gradient values (IndexedSlices is defined with the ops)."""

    op = None


class _TensorLike(abc.ABC):
    """TF 1.x's common base of Tensor, SparseTensor and IndexedSlices, which libraries test
    with ``isinstance(x, ops._TensorLike)`` (standalone Keras's ``is_tensor``)."""

    @classmethod
    def __subclasshook__(cls, klass):
        from tideflow.framework import sparse_tensor

        if issubclass(klass, (Tensor, IndexedSlicesBase, sparse_tensor.SparseTensor)):
            return True
        return NotImplemented


# ------------------------------------------------------------------------------------------
# The default graph stack (the only global: thread-local)
# ------------------------------------------------------------------------------------------


class _DefaultStack(threading.local):
    def __init__(self):
        super().__init__()
        self.stack = []
        self.enforce_nesting = True

    def get_default(self):
        return self.stack[-1] if self.stack else None

    def reset(self):
        self.stack = []

    def is_cleared(self):
        return not self.stack

    @contextlib.contextmanager
    def get_controller(self, default):
        self.stack.append(default)
        try:
            yield default
        finally:
            # the stack may have been reset inside the block
            if self.stack and self.stack[-1] is default:
                self.stack.pop()
            elif default in self.stack:
                if self.enforce_nesting:  # as TF: leaving an outer context first is a bug
                    raise AssertionError(
                        f"Nesting violated for default stack of {type(default)} objects")
                self.stack.remove(default)


class _DefaultGraphStack(_DefaultStack):
    def __init__(self):
        super().__init__()
        # per thread, as TF 1.x's: a new thread that enters no graph builds into a global
        # default graph of its own, not the one of the thread that started it
        self._global_default_graph = None
        # as TF's context switches: each as_default() entry keeps the device stack (the list
        # itself) its graph had then, which init_scope falls back on under colocate_with
        self.device_stacks = []

    @contextlib.contextmanager
    def get_controller(self, default):
        entry = (default, default._device_function_stack)
        self.device_stacks.append(entry)
        try:
            with super().get_controller(default) as g:
                yield g
        finally:
            if self.device_stacks and self.device_stacks[-1] is entry:
                self.device_stacks.pop()
            elif entry in self.device_stacks:
                self.device_stacks.remove(entry)

    def lifted_device_stack(self, g):
        """TF's init_scope device stack: ``g``'s own when it has devices, else the first
        non-empty one recorded by the innermost as_default() entries, up to the first graph
        not building a function (so a variable made under ``colocate_with`` inside
        ``with graph.as_default(), tf.device(fn)`` still calls ``fn``, as TF 1.15 does)."""
        devices = g._device_function_stack
        if devices:
            return devices
        for graph, recorded in reversed(self.device_stacks):
            if getattr(graph, "_stands_for_global", False) or graph not in self.stack:
                continue  # TF's global graph has no entry (tf.test.TestCase's plays it)
            if recorded:
                return recorded
            if not graph.building_function:
                break
        return devices

    def get_default(self):
        g = super().get_default()
        if g is not None:
            return g
        if self._global_default_graph is None:
            self._global_default_graph = Graph()
        return self._global_default_graph

    def reset(self):
        self.stack = []
        self.device_stacks = []
        self._global_default_graph = None


_default_graph_stack = _DefaultGraphStack()
_default_session_stack = _DefaultStack()


def get_default_graph():
    return _default_graph_stack.get_default()


def inside_function():
    """Whether the default graph is a function body being traced (TF's ``ops.inside_function``):
    a tf.data function's, not a cond branch or loop body, which TF 1.x builds in the graph
    itself."""
    g = get_default_graph()
    while getattr(g, "control_flow_body", False):
        g = g.outer_graph
    return g.building_function


def reset_default_graph():
    """Clears the default graph stack and starts a new global default graph."""
    stack = _default_graph_stack.stack
    if len(stack) == 1 and getattr(stack[0], "_stands_for_global", False):
        # tf.test.TestCase's per-test graph plays TF's global default graph (which TF's setUp
        # has just reset): a test resetting it gets a fresh one in its place
        stack[0] = Graph()
        stack[0]._stands_for_global = True
        return
    if stack:
        raise AssertionError(
            "Do not use tf.reset_default_graph() to clear nested graphs. If you need a cleared "
            "graph, exit the nesting and create a new graph."
        )
    _default_graph_stack.reset()


def has_default_graph():
    """Whether a graph has been entered with ``as_default()`` (TF's ``has_default_graph``)."""
    return len(_default_graph_stack.stack) >= 1


_uids = iter(range(1, 1 << 62))  # next() on it is atomic under the GIL


def uid():
    """A process-wide unique positive integer (TF's ``ops.uid``: libraries name the functions
    and gradient overrides they create with it)."""
    return next(_uids)


def get_default_session():
    return _default_session_stack.get_default()


def default_session(session):
    return _default_session_stack.get_controller(session)


# module-level scope helpers -----------------------------------------------------------------


def _value_graph(v):
    """The graph of a Tensor, an Operation or anything with a ``graph`` (a Variable), else
    None."""
    if isinstance(v, Tensor):
        return v._op._graph
    if isinstance(v, Operation):
        return v._graph
    g = getattr(v, "graph", None)
    return g if isinstance(g, Graph) else None


def _graph_of(values, default=None):
    if default is None:
        default = get_default_graph()
    if default.building_function:
        return default  # a function body captures what it uses from enclosing graphs
    found = first = None
    for v in values or ():
        g = _value_graph(v)
        if g is not None and g is not default and _in_body_of(default, g):
            # TF 1.x's loop bodies and cond branches are in the graph (ops refuse a loop's
            # tensors: _check_loop_input; a branch's come out of its If: func_graph.reach)
            g = default
        if g is None or g is found:
            continue
        if found is None:
            found, first = g, v
        else:
            raise ValueError(f"{v} must be from the same graph as {first}.")
    return found if found is not None else default


class name_scope:
    """``tf.name_scope(name, default_name=None, values=None)``: opens a name scope."""

    def __init__(self, name, default_name=None, values=None):
        # TF 1.14+: a list passed positionally (the TF 1.0 idiom `name_scope(name, [x])`) is
        # an error, not a silently ignored default name
        if not (default_name is None or isinstance(default_name, str)):
            raise TypeError(f"`default_name` type ({type(default_name)}) is not a string type. "
                            "You likely meant to pass this into the `values` kwarg.")
        self._name = default_name if name is None else name
        self._default_name = default_name
        self._values = values
        self._entered = []  # (name scope ctx, graph ctx or None) per entry: re-entrant

    @property
    def name(self):
        """The name given (``default_name`` when ``name`` is None), as TF's ``.name``."""
        return self._name

    def __enter__(self):
        if self._name is None and self._values is not None:
            raise ValueError(f"At least one of name ({self._name}) and default_name "
                             f"({self._default_name}) must be provided.")
        default = get_default_graph()
        g = _graph_of(self._values, default) if self._values else default
        g_ctx = None
        if g is not default:
            g_ctx = g.as_default()
            g_ctx.__enter__()
        ctx = g.name_scope(self._name)
        self._entered.append((ctx, g_ctx))
        return ctx.__enter__()

    def __exit__(self, *exc):
        ctx, g_ctx = self._entered.pop()
        ctx.__exit__(*exc)
        if g_ctx is not None:
            g_ctx.__exit__(*exc)
        return False


# the gradient table as TF 1.x exposes it (programs override gradients by editing its entries)
_gradient_registry = op_registry.gradient_registry


def get_gradient_function(op):
    """The gradient function registered for ``op`` (its gradient override, if any); None for
    an op declared not differentiable; LookupError when nothing is registered."""
    from tideflow.ops import gradients

    if not op.inputs:
        return None
    fn, found = gradients._gradient_fn(op)
    if not found:
        name = op._attrs.get("_gradient_op_type") or op._type
        if isinstance(name, bytes):
            name = name.decode()
        raise LookupError(f"gradient registry has no entry for: {name}")
    return fn


def op_scope(values, name, default_name=None):
    """0.x's ``name_scope`` with the arguments ``(values, name, default_name)``."""
    return name_scope(name, default_name=default_name, values=values)


def control_dependencies(control_inputs):
    g = get_default_graph()
    if control_inputs is None and getattr(g, "control_flow_body", False):
        # TF 1.x's ``control_dependencies(None)`` also leaves the control-flow context: ops
        # made inside a loop body or cond branch then sit outside it (a variable's initial
        # value, a zero-debias accumulator); the body captures them where it uses them
        return _outside_control_flow(g)
    return g.control_dependencies(control_inputs)


@contextlib.contextmanager
def _outside_control_flow(g):
    """Ops created inside go to the graph enclosing control-flow body ``g`` (and any bodies
    around it), under the same name scope, devices and colocation, free of control
    dependencies."""
    root = g
    while getattr(root, "control_flow_body", False):
        root = root.outer_graph
    scope = g.get_name_scope()
    devices, colocation = g._device_function_stack, g._colocation_stack
    with root.as_default(), root.control_dependencies(None), root.name_scope(
            scope + "/" if scope else None):
        old = root._device_function_stack, root._colocation_stack
        root._device_function_stack, root._colocation_stack = list(devices), list(colocation)
        try:
            yield
        finally:
            root._device_function_stack, root._colocation_stack = old


@contextlib.contextmanager
def init_scope():
    """Leaves any function body being traced (a cond branch, a loop body): ops created inside
    go to the outermost graph, under the same name scope, free of control dependencies.

    TF 1.x creates variables this way, so a variable made inside ``tf.cond``/``tf.while_loop``
    lives (and is initialized) outside the control-flow construct.
    """
    g = get_default_graph()
    root = getattr(g, "_root", None) or g
    if root.building_function:  # as TF: the innermost graph on the stack not building one
        root = next((c for c in reversed(_default_graph_stack.stack)
                     if not c.building_function), None)
        if root is None:
            root = _default_graph_stack._global_default_graph or Graph()
            _default_graph_stack._global_default_graph = root
    scope = g.get_name_scope()
    # as TF: the innermost non-empty device stack comes along into the outer graph
    devices = _default_graph_stack.lifted_device_stack(g)
    with root.as_default(), root.control_dependencies(None), root.name_scope(
            scope + "/" if scope else None):
        if not devices or devices is root._device_function_stack:
            yield
            return
        old = root._device_function_stack
        root._device_function_stack = devices if root is g else list(devices)
        try:
            yield
        finally:
            root._device_function_stack = old


def _init_scope_lifts_devices():
    """Whether init_scope would bring back device functions the default graph lacks now
    (a ``colocate_with`` emptied its stack): TF 1.15 makes every variable in init_scope."""
    g = get_default_graph()
    return not g._device_function_stack and bool(_default_graph_stack.lifted_device_stack(g))


def device(device_name_or_function):
    return get_default_graph().device(device_name_or_function)


def _colocation_tensor(value):
    """What TF colocates with for a value that is no op or tensor: the tensor it converts to
    (a Python value becomes a Const); a list holding tensors or variables is TF's error."""
    if isinstance(value, (list, tuple)):
        flat, todo = [], list(value)
        while todo:
            x = todo.pop(0)
            if isinstance(x, (list, tuple)):
                todo[:0] = list(x)
            else:
                flat.append(x)
        if any(isinstance(x, Tensor) for x in flat):
            raise TypeError("List of Tensors when single Tensor expected")
        if any(hasattr(x, "_as_graph_element") for x in flat):
            raise TypeError(f"Failed to convert object of type {type(value)} to Tensor. "
                            f"Contents: {value}. Consider casting elements to a supported type.")
    return convert_to_tensor(value)


def colocate_with(op, ignore_existing=False):
    return get_default_graph().colocate_with(op, ignore_existing)


def container(container_name):
    return get_default_graph().container(container_name)


def add_to_collection(name, value):
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    get_default_graph().add_to_collections(names, value)


def get_collection(key, scope=None):
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key):
    return get_default_graph().get_collection_ref(key)


def get_name_scope():
    return get_default_graph().get_name_scope()


# ------------------------------------------------------------------------------------------
# Tensor conversion
# ------------------------------------------------------------------------------------------

_conversion_funcs = []  # (priority, base_type, fn)
_conversion_cache = {}


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """``conversion_func(value, dtype=None, name=None, as_ref=False)`` converts base_type."""
    _conversion_funcs.append((priority, base_type, conversion_func))
    _conversion_funcs.sort(key=lambda x: x[0])
    _conversion_cache.clear()


def _conversion_for(cls):
    fns = _conversion_cache.get(cls)
    if fns is None:
        fns = [f for _, base, f in _conversion_funcs if issubclass(cls, base)]
        _conversion_cache[cls] = fns
    return fns


def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None, as_ref=False,
                      dtype_hint=None):
    """Converts a Tensor, Variable, NumPy array, Python number or nested list to a Tensor."""
    if preferred_dtype is None:
        preferred_dtype = dtype_hint
    if isinstance(value, Tensor):
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
            if not dtype.is_compatible_with(value._dtype):
                raise ValueError(
                    f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                    f"{value._dtype.name}: {value!r}"
                )
        if as_ref or not value._dtype._is_ref_dtype:
            return value
        return _deref(value)
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    for fn in _conversion_for(type(value)):
        if dtype is None and preferred_dtype is not None:
            try:
                ret = fn(value, dtype=dtypes.as_dtype(preferred_dtype), name=name, as_ref=as_ref)
            except (TypeError, ValueError):
                ret = NotImplemented
            if ret is not NotImplemented:
                return ret
        ret = fn(value, dtype=dtype, name=name, as_ref=as_ref)
        if ret is NotImplemented:
            continue
        if dtype is not None and not dtype.is_compatible_with(ret.dtype):
            raise ValueError(
                f"Tensor conversion requested dtype {dtype.name} for value with dtype "
                f"{ret.dtype.name}: {value!r}"
            )
        return ret
    if value is None:
        raise ValueError("None values not supported.")  # TF's class and message
    if dtype is not None:  # TF's constant conversion checking the object against the dtype
        raise TypeError(f"Expected {dtype.name}, got {value!r} of type "
                        f"'{type(value).__name__}' instead.")
    raise TypeError(
        f"Failed to convert object of type {type(value)} to Tensor. Contents: {value}. "
        "Consider casting elements to a supported type."
    )


internal_convert_to_tensor = convert_to_tensor


def _operation_conversion_error(op, dtype=None, name=None, as_ref=False):
    # as TF: an Operation is named in the error (a common slip: passing ``train_op``)
    raise TypeError(f"Can't convert Operation '{op.name}' to Tensor (target dtype={dtype!r}, "
                    f"name={name!r}, as_ref={as_ref!r})")


register_tensor_conversion_function(Operation, _operation_conversion_error)


def convert_n_to_tensor(values, dtype=None, name=None, preferred_dtype=None):
    return [
        convert_to_tensor(v, dtype=dtype, preferred_dtype=preferred_dtype,
                          name=None if name is None else f"{name}_{i}")
        for i, v in enumerate(values)
    ]


def convert_to_tensor_or_indexed_slices(value, dtype=None, name=None):
    if isinstance(value, IndexedSlicesBase):
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)


def _deref(tensor):
    """A ref tensor used as a value: TF reads it through its ref directly (no extra op)."""
    return tensor


_DENSE_TENSOR_LIKE_TYPES = [Tensor]


def register_dense_tensor_like_type(tensor_type):
    """Declares a class whose objects stand for dense tensors (TF: Variable is one); it
    must have ``name`` and ``dtype`` properties."""
    if not isinstance(getattr(tensor_type, "name", None), property):
        raise TypeError(f"Type {tensor_type.__name__} does not define a `name` property")
    if not isinstance(getattr(tensor_type, "dtype", None), property):
        raise TypeError(f"Type {tensor_type.__name__} does not define a `dtype` property")
    _DENSE_TENSOR_LIKE_TYPES.append(tensor_type)


def is_dense_tensor_like(t):
    return isinstance(t, tuple(_DENSE_TENSOR_LIKE_TYPES))


def _as_graph_element(obj):
    """``obj._as_graph_element()`` where ``obj`` has one (a Variable gives its ref tensor),
    else None (TF 1.x's helper that standalone Keras calls)."""
    conv = getattr(obj, "_as_graph_element", None)
    return conv() if callable(conv) else None


def strip_name_scope(name, export_scope):
    """``name`` without a leading ``export_scope/`` (also inside ``^name`` and ``loc:@``)."""
    from tideflow.framework import meta_graph

    return meta_graph.strip_name_scope(name, export_scope)


def prepend_name_scope(name, import_scope):
    """``import_scope/name`` (also inside ``^name`` and ``loc:@``)."""
    from tideflow.framework import meta_graph

    return meta_graph.prepend_name_scope(name, import_scope)


# -- op statistics (TF's RegisterStatistics: e.g. the flops a profiler sums) ----------------
_STATS = {}


class OpStats:
    """A named statistic of an op (``OpStats("flops", 20)``); ``+=`` adds two of a kind."""

    def __init__(self, statistic_type, value=None):
        self.statistic_type = statistic_type
        self.value = value

    def __iadd__(self, other):
        if other.statistic_type != self.statistic_type:
            raise ValueError(f"Can't add an OpStat of type {other.statistic_type} to one of "
                             f"{self.statistic_type}.")
        if self.value is None:
            self.value = other.value
        elif other.value is not None:
            self.value += other.value
        return self


class RegisterStatistics:
    """``@RegisterStatistics(op_type, statistic_type)`` registers ``fn(graph, node_def)``
    returning an OpStats."""

    def __init__(self, op_type, statistic_type):
        if not isinstance(op_type, str) or "," in op_type:
            raise TypeError("op_type must be a string without ','")
        if not isinstance(statistic_type, str) or "," in statistic_type:
            raise TypeError("statistic_type must be a string without ','")
        self._key = f"{op_type},{statistic_type}"

    def __call__(self, f):
        if self._key in _STATS:
            raise KeyError(f"Registering two statistics with name '{self._key}'!")
        _STATS[self._key] = f
        return f


def get_stats_for_node_def(graph, node, statistic_type):
    """The registered statistic of ``node`` (a NodeDef), or an OpStats valued None."""
    fn = _STATS.get(f"{node.op},{statistic_type}")
    return fn(graph, node) if fn is not None else OpStats(statistic_type)


# ------------------------------------------------------------------------------------------
# constant values (for shape functions)
# ------------------------------------------------------------------------------------------

_constant_value_fns = {}
# ops folded only while a shape function asks (comparisons, logical ops, Select): TF's C++
# shape inference evaluates any small constant subgraph an input comes from, while its Python
# constant_value (smart_cond's, tensor_util's) stops at them
_shape_constant_value_fns = {}


def register_constant_value(op_type, fn, shape_inference_only=False):
    """``fn(op, value_index) -> ndarray or None``: a tensor's value, known before running."""
    (_shape_constant_value_fns if shape_inference_only else _constant_value_fns)[op_type] = fn


def constant_value(tensor):
    """The value of ``tensor`` if it can be known without running the graph, else None."""
    if isinstance(tensor, np.ndarray):
        return tensor
    if not isinstance(tensor, Tensor):
        return None
    op = tensor._op
    reads = op._graph._thread_local.shape_reads
    if reads is not None:
        reads.append((tensor, None))
        gate = op._graph._thread_local.shape_gate
        if id(tensor) in gate[0] and id(tensor) not in gate[1]:
            return None  # (not computed yet in this pass)
    fn = _constant_value_fns.get(op._type)
    if fn is None:
        if not op._graph._thread_local.inferring_shapes:
            return None
        fn = _shape_constant_value_fns.get(op._type)
        if fn is None:
            return _evaluated_value(op, tensor._value_index)
    try:
        value = fn(op, tensor._value_index)
    except (TypeError, ValueError, IndexError, KeyError):
        value = None
    if value is None and op._graph._thread_local.inferring_shapes and (
            op._type in _SHAPE_OF_INPUT or fn is _size_limited_fold and not (
                (tensor._shape.num_elements() or 0) <= _SIZE_LIMITED_FOLD_ELEMENTS)):
        # as TF's refiner: a shape it cannot read off the input's static shape is computed
        # from the input's value, when that is a constant; and so is a value larger than
        # constant_value folds by itself
        return _evaluated_value(op, tensor._value_index)
    return value


def constant_value_unevaluated(tensor):
    """``constant_value`` without the shape-time evaluation of ops that have no constant-value
    function (see ``_evaluated_value``)."""
    local = tensor._op._graph._thread_local if isinstance(tensor, Tensor) else None
    if local is None or not local.inferring_shapes:
        return constant_value(tensor)
    local.no_evaluation += 1
    try:
        return constant_value(tensor)
    finally:
        local.no_evaluation -= 1


# TF's ExtractConstantSubgraph takes these from the input's static shape when it is known, and
# otherwise walks on to the input
_SHAPE_OF_INPUT = frozenset(("Shape", "ShapeN", "Size", "Rank"))
# ops whose values TF's constant evaluation never computes (fed, or control flow's frames)
_NOT_EVALUATED = frozenset((
    "Placeholder", "PlaceholderV2", "PlaceholderWithDefault", "Merge", "RefMerge", "Switch",
    "RefSwitch", "Enter", "RefEnter", "Exit", "RefExit", "NextIteration", "RefNextIteration",
    "LoopCond", "ControlTrigger", "_Recv", "_HostRecv", "_Arg", "PyFunc", "PyFuncStateless",
    "EagerPyFunc"))
# the largest output (and input) the shape-time evaluation computes, in elements
MAX_EVALUATED_ELEMENTS = 100_000
# set by tideflow.ops.array_ops: fn(op, index, limit) -> ndarray or None; its registered
# constant-value function that runs a kernel on outputs up to _SIZE_LIMITED_FOLD_ELEMENTS
_evaluate_kernel = None
_size_limited_fold = None
_SIZE_LIMITED_FOLD_ELEMENTS = 0


# the most ops constant_rooted walks before answering no
_CONSTANT_SUBGRAPH_MAX_OPS = 500
_CONSTANTS = frozenset(("Const", "HostConst"))


def constant_rooted(op):
    """Whether TF 1.15's shape-time evaluation (ExtractConstantSubgraph) can compute ``op``'s
    outputs: up its data inputs every op is stateless, not random, neither a feed nor a loop's
    frame, and every op without inputs is a constant; a Shape, Size or Rank whose input's static
    shape answers it ends the walk there, as TF's refiner reads those off the shape. (At most
    ``_CONSTANT_SUBGRAPH_MAX_OPS`` ops are walked before answering no.)"""
    seen = set()
    stack = [op]
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        od = op._op_def
        if (len(seen) > _CONSTANT_SUBGRAPH_MAX_OPS or od.is_stateful or od.is_random
                or op._type in _NOT_EVALUATED or not op._inputs and op._type not in _CONSTANTS):
            return False
        if op._type in _SHAPE_OF_INPUT and op._inputs:
            s = op._inputs[0]._shape
            if s.ndims is not None and (op._type == "Rank" or s.is_fully_defined()):
                continue
        stack.extend(t._op for t in op._inputs)
    return True


def _evaluated_value(op, index):
    """The value of ``op``'s output ``index`` by running its kernel on its inputs' constant
    values, as TF 1.15's shape refiner evaluates the constant subgraph an input a shape function
    asks the value of comes from (EvaluateConstantTensor): only while a shape function runs,
    for stateless, non-random ops with a plain host kernel, small inputs and outputs. Results
    are kept per op (the graph's structure version guards rewrites of its inputs)."""
    od = op._op_def
    if (_evaluate_kernel is None or od.is_stateful or od.is_random or od.kernel is None
            or od.kernel_factory is not None or od.kernel_wants_ctx or od.kernel_wants_step
            or not op._inputs or op._type in _NOT_EVALUATED):
        return None
    g = op._graph
    local = g._thread_local
    if local.no_evaluation:
        return None
    replaying = local.shape_reads is not None  # (its gate hides inputs: neither read nor keep)
    cache = g.__dict__.get("_evaluated_values")
    if cache is None:
        cache = g._evaluated_values = {}
    key = (op._id, index)
    if not replaying:
        hit = cache.get(key)
        if hit is not None and hit[0] == g._structure_version:
            return hit[1]
    truncated = local.evaluation_truncated
    local.evaluation_truncated = False
    # (the subgraph is evaluated by itself, as TF's: the inputs it reads on the way are none
    # the replayed shape function asked for, whatever pass the replay is in)
    reads, gate = local.shape_reads, local.shape_gate
    local.shape_reads = local.shape_gate = None
    try:
        value = _evaluate_kernel(op, index, MAX_EVALUATED_ELEMENTS)
    except RecursionError:  # a very long constant chain: just "not known"
        value = None
        local.evaluation_truncated = True
    finally:
        local.shape_reads, local.shape_gate = reads, gate
        inner_truncated = local.evaluation_truncated
        local.evaluation_truncated = truncated or inner_truncated
    if not replaying and not inner_truncated:
        if isinstance(value, np.ndarray) and value.flags.writeable:
            value.flags.writeable = False  # (handed to every later asker)
        cache[key] = (g._structure_version, value)
    return value


# ------------------------------------------------------------------------------------------
# op creation from a declaration
# ------------------------------------------------------------------------------------------


# the stack above the last op's user frame: (that frame's caller, its instruction offset, the
# stack from it outward). A live caller at the same offset has the same callers above it, so
# the ops a function makes share one walk of the stack. (A generator's frame is never kept: it
# may be resumed from elsewhere.) Keeping the caller alive guards its identity
_stack_above = (None, -1, ())
_RESUMABLE = 0x20 | 0x80 | 0x200  # CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR


def _user_frame():
    """Where an op is made: the innermost frame outside tideflow as (file, line, function),
    then the stack above it as TF 1.15 records it for an error's "Original stack trace" (a flat
    tuple of code objects and instruction offsets, innermost first: line numbers and source
    lines are looked up only when an error or ``op.traceback`` asks for them). tideflow's own
    frames below the user's are left out, where TF 1.15 lists its own."""
    global _stack_above
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename.startswith(_PKG_DIR):
        f = f.f_back
    if f is None:
        return None
    code = f.f_code
    caller = f.f_back
    if caller is None:
        return (code.co_filename, f.f_lineno, code.co_name, ())
    offset = caller.f_lasti
    kept = _stack_above
    if kept[0] is caller and kept[1] == offset:
        return (code.co_filename, f.f_lineno, code.co_name, kept[2])
    stack = []
    append = stack.append
    g = caller
    while g is not None:
        append(g.f_code)
        append(g.f_lasti)
        g = g.f_back
    stack = tuple(stack)
    if not caller.f_code.co_flags & _RESUMABLE:
        _stack_above = (caller, offset, stack)
    return (code.co_filename, f.f_lineno, code.co_name, stack)


def forget_stack_above():
    """Lets go of the caller frame kept for the stack walk: once its function has returned, its
    locals would live on until the next op is made (a session building a plan, or a graph
    finalized, says graph building is done for now)."""
    global _stack_above
    _stack_above = (None, -1, ())


def _line_at(code, offset):
    for start, end, line in code.co_lines():
        if start <= offset < end and line is not None:
            return line
    return code.co_firstlineno


def stack_of(op):
    """``op``'s stack where it was made, outermost frame first, as TF 1.15's
    ``Operation.traceback``: (file, line, function, source line) tuples."""
    import linecache

    tb = op._traceback
    if not tb:
        return ()
    stack = tb[3] if len(tb) > 3 else ()  # (only the user frame: a 3-tuple)
    out = []
    for i in range(len(stack) - 2, -1, -2):
        code = stack[i]
        line = _line_at(code, stack[i + 1])
        out.append((code.co_filename, line, code.co_name,
                    linecache.getline(code.co_filename, line).strip() or None))
    f, line, fn = tb[:3]
    out.append((f, line, fn, linecache.getline(f, line).strip() or None))
    return tuple(out)


def _type_name_list(allowed):
    return ", ".join(d.name for d in allowed)  # in the op's declared order, as TF


def _convert_input(op_type, arg, value, dtype, name, index=None, observe=False):
    try:
        if isinstance(value, Tensor):
            t = value
        else:
            # as TF: the i-th Python value of a list argument becomes the constant "<arg>_<i>"
            cname = arg.name if index is None else f"{arg.name}_{index}"
            t = convert_to_tensor(value, dtype=dtype, as_ref=arg.is_ref, name=cname)
    except (TypeError, ValueError) as e:
        if observe and dtype is not None and isinstance(e, ValueError) and not (
                value is None or isinstance(value, (list, tuple))):
            # as TF: the value as it converts by itself, for the caller to name the mismatch
            # (``int_var < float_var``: "Input 'y' of 'Less' Op has type float32 that ...")
            try:
                t = convert_to_tensor(value, as_ref=arg.is_ref)
            except (TypeError, ValueError):
                t = None
            if t is not None and t._dtype.base_dtype != dtype.base_dtype:
                return t
        if dtype is not None:
            if isinstance(e, ValueError) and (value is None or isinstance(value, (list, tuple))):
                # as TF: a value no dtype converts (None, ragged nesting) is a ValueError
                try:
                    convert_to_tensor(value, as_ref=arg.is_ref)
                except ValueError as e2:
                    raise ValueError(f"Tried to convert '{arg.name}' to a tensor and failed. "
                                     f"Error: {e2}") from None
                except TypeError:
                    pass
            raise TypeError(
                f"Expected {dtype.name} passed to parameter '{arg.name}' of op '{op_type}', got "
                f"{value!r} of type '{type(value).__name__}' instead. Error: {e}"
            ) from None
        raise
    return t


def apply_op(op_type, inputs, attrs=None, name=None, graph=None, _flat=False):
    """Creates an op of type ``op_type`` from its declaration.

    ``inputs`` follows the declaration's input arguments, a list for each list argument
    (``_flat=True`` takes a flat list of Tensors, as ``Graph.create_op`` does). ``attrs`` may
    omit attrs that are inferred from the inputs or have defaults. Returns the Operation.
    """
    op_def = op_registry.get(op_type)
    attrs = dict(attrs) if attrs else {}
    in_args = op_def.inputs
    if _flat:
        inputs = _group_flat_inputs(op_def, inputs, attrs)
    if len(inputs) != len(in_args):
        raise TypeError(
            f"{op_type} takes {len(in_args)} inputs ({', '.join(a.name for a in in_args)}), "
            f"got {len(inputs)}"
        )
    if graph is None:
        graph = _graph_from_inputs(inputs)
        if graph is not get_default_graph():
            # as TF: an op on another graph's tensors is built in that graph, its Python
            # values converted there too
            with graph.as_default():
                return apply_op(op_type, inputs, attrs, name, graph, _flat)
    if type(name) is bytes:  # TF takes names as bytes too (``name=b"e"``)
        name = name.decode()
    elif name and not isinstance(name, str):  # (TF's scope-name regex refuses it so)
        raise TypeError("expected string or bytes-like object")
    if not (name and name.endswith("/")) and not all(
            isinstance(v, Tensor) or (arg.is_list and isinstance(v, (list, tuple))
                                      and all(isinstance(x, Tensor) for x in v))
            for v, arg in zip(inputs, in_args)):
        # as TF: Python values become tensors inside the op's own name scope ("Reshape/shape"),
        # a list of tensors given for one tensor too (packed as "Slice/begin")
        with graph.name_scope(name or op_type) as scope:
            return _apply_op(op_def, op_type, inputs, attrs, scope, graph, not _flat)
    used = len(graph._names_in_use)  # grows with every name taken
    try:
        return _apply_op(op_def, op_type, inputs, attrs, name, graph, not _flat)
    except (TypeError, ValueError) as e:
        # as TF, whose op constructors enter the op's name scope first: an op refused for its
        # inputs' or attrs' types still takes its name ("DecodeRaw" then "DecodeRaw_1"); an
        # attr value that is no DataType, int, float, bool, string or shape at all is refused
        # by TF's generated op wrapper before that (make_type and the like), taking no name
        if len(graph._names_in_use) == used and not _ATTR_KIND_ERROR.match(str(e)) and (
                not name or (name[-1] != "/" and (_VALID_SCOPE_NAME if graph._name_stack
                                                  else _VALID_OP_NAME).match(name))):
            graph.unique_name(name or op_type)
        raise


_ATTR_KIND_ERROR = re.compile(
    r"Expected (DataType|int|float|bool|string) for argument '|Error converting \w+ to a "
    r"TensorShape")


def _list_types_error(op_type, arg, values, earlier):
    """TF's TypeError for a list argument some of whose values do not convert to the list's
    type: each value's own type (or ``<NOT CONVERTIBLE TO TENSOR>``), and where the type was
    fixed (by the op, or by an ``earlier`` argument of the same type attr)."""
    observed = []
    for value in values:
        try:
            observed.append(convert_to_tensor(value, as_ref=arg.is_ref)._dtype.base_dtype.name)
        except (TypeError, ValueError):
            observed.append("<NOT CONVERTIBLE TO TENSOR>")
    prefix = (f"Tensors in list passed to '{arg.name}' of '{op_type}' Op have types "
              f"[{', '.join(observed)}]")
    if arg.type_list_attr is not None:
        return TypeError(f"{prefix} that are invalid. Tensors: {values}")
    if arg.fixed_type:
        return TypeError(f"{prefix} that do not match expected type {arg.fixed_type.name}.")
    if earlier is not None:
        return TypeError(f"{prefix} that do not match type {earlier.name} inferred from "
                         "earlier arguments.")
    return TypeError(f"{prefix} that don't all match.")


def _apply_op(op_def, op_type, inputs, attrs, name, graph, colocate_refs=True):
    in_args = op_def.inputs
    # a list argument's type attr comes from its first tensor, wherever it stands (as TF's
    # list conversion: stack([1., t64]) is float64); a single input's does not look ahead:
    # the first input of a type attr fixes it (TF 1.15: add(1., t64) is a TypeError)
    for arg, value in zip(in_args, inputs):
        if arg.type_attr is not None and arg.type_attr not in attrs:
            if arg.number_attr is None or not isinstance(value, (list, tuple)):
                continue
            v = next((x for x in value if isinstance(x, Tensor)), value[0] if value else None)
            if isinstance(v, Tensor):
                attrs[arg.type_attr] = v._dtype.base_dtype
            elif hasattr(v, "_as_graph_element") and hasattr(v, "dtype") and not isinstance(
                v, (list, tuple)
            ):
                attrs[arg.type_attr] = dtypes.as_dtype(v.dtype).base_dtype

    flat_inputs = []
    input_types = []
    for arg, value in zip(in_args, inputs):
        if arg.number_attr is not None or arg.type_list_attr is not None:
            if not isinstance(value, (list, tuple)):
                raise TypeError(
                    f"Expected list for '{arg.name}' argument to '{op_type}' Op, not {value}."
                )
            if arg.number_attr is not None:
                n = len(value)
                if arg.number_attr in attrs and attrs[arg.number_attr] != n:
                    raise ValueError(
                        f"List argument '{arg.name}' to '{op_type}' Op with length {n} must match"
                        f" length {attrs[arg.number_attr]} of argument '{arg.number_attr}'."
                    )
                attrs[arg.number_attr] = n
                spec = op_def.attrs[arg.number_attr]
                if spec.minimum is not None and n < spec.minimum:
                    raise ValueError(
                        f"List argument '{arg.name}' to '{op_type}' Op with length {n} shorter "
                        f"than minimum length {spec.minimum}."
                    )
                dtype = arg.fixed_type or attrs.get(arg.type_attr)
                try:
                    if dtype is None:
                        default = op_def.attrs[arg.type_attr].default
                        ts = convert_n_to_tensor(value, preferred_dtype=default, name=arg.name)
                        if ts:
                            dtype = ts[0]._dtype.base_dtype
                            attrs[arg.type_attr] = dtype
                        ts = [_convert_input(op_type, arg, v, dtype, name) for v in ts]
                    else:
                        ts = [_convert_input(op_type, arg, v, dtype, name, i)
                              for i, v in enumerate(value)]
                except (TypeError, ValueError):
                    earlier = next((attrs.get(a.type_attr) for a in in_args[:in_args.index(arg)]
                                    if a.type_attr == arg.type_attr), None)
                    raise _list_types_error(op_type, arg, value, earlier) from None
                for t in ts:
                    if t._dtype.base_dtype != dtype:
                        raise TypeError(
                            f"Tensors in list passed to '{arg.name}' of '{op_type}' Op have "
                            f"types [{', '.join(x._dtype.name for x in ts)}] that "
                            + (f"do not match expected type {dtype.name}." if arg.fixed_type
                               else "don't all match."))
                if arg.type_attr is not None:
                    _check_allowed(op_def, arg, dtype)
            else:
                want = attrs.get(arg.type_list_attr)
                if want is not None:
                    ts = [_convert_input(op_type, arg, v, dtypes.as_dtype(d), name, i)
                          for i, (v, d) in enumerate(zip(value, want))]
                else:
                    try:
                        ts = [_convert_input(op_type, arg, v, None, name, i)
                              for i, v in enumerate(value)]
                    except (TypeError, ValueError):
                        raise _list_types_error(op_type, arg, value, None) from None
                    spec = op_def.attrs[arg.type_list_attr]
                    for t in ts:  # as TF, each inferred type checked, naming the input
                        if spec.allowed is not None and t._dtype.base_dtype not in spec.allowed:
                            raise TypeError(
                                f"Value passed to parameter '{arg.name}' has DataType "
                                f"{t._dtype.base_dtype.name} not in list of allowed values: "
                                f"{_type_name_list(spec.allowed)}")
                    attrs[arg.type_list_attr] = [t._dtype.base_dtype for t in ts]
            flat_inputs.extend(ts)
            input_types.extend(t._dtype for t in ts)
            continue

        dtype = arg.fixed_type or (attrs.get(arg.type_attr) if arg.type_attr else None)
        if dtype is None and not isinstance(value, Tensor):
            # as TF 1.15's op_def_library: the attr's default is the preferred dtype, and a
            # NumPy array is cast to it (make_tensor_proto's astype: encode_png of a uint16 or
            # float32 array makes a uint8 image, one_hot of int32 indices int64 ones)
            default = op_def.attrs[arg.type_attr].default
            try:
                t = convert_to_tensor(value, preferred_dtype=default, as_ref=arg.is_ref,
                                      name=arg.name)
            except ValueError as e:  # (TF's words; a TypeError passes as it is)
                raise ValueError(f"Tried to convert '{arg.name}' to a tensor and failed. "
                                 f"Error: {e}") from None
        else:
            t = _convert_input(op_type, arg, value, dtype, name, observe=True)
        if arg.is_ref and not t._dtype._is_ref_dtype:
            raise TypeError(f"Input '{arg.name}' of '{op_type}' Op requires l-value input")
        base = t._dtype.base_dtype
        if arg.fixed_type is not None:
            if base != arg.fixed_type:
                raise TypeError(
                    f"Input '{arg.name}' of '{op_type}' Op has type {base.name} that does not "
                    f"match expected type of {arg.fixed_type.name}."
                )
        else:
            have = attrs.get(arg.type_attr)
            if have is None:
                attrs[arg.type_attr] = base
                _check_allowed(op_def, arg, base)
            elif base != have:
                first = next(a for a in in_args if a.type_attr == arg.type_attr)
                raise TypeError(
                    f"Input '{arg.name}' of '{op_type}' Op has type {base.name} that does not "
                    f"match type {dtypes.as_dtype(have).name} of argument '{first.name}'."
                )
            else:
                _check_allowed(op_def, arg, base)
        flat_inputs.append(t)
        input_types.append(t._dtype)

    if graph.building_function:
        # a function body (framework/func_graph.py) captures tensors of enclosing graphs
        for t in flat_inputs:
            if t._op._graph is not graph and t._op._graph.while_loop_body:
                _check_loop_input(t, graph, name, op_type)  # (not of a loop nested in it)
        flat_inputs = [t if t._op._graph is graph else graph.capture(t) for t in flat_inputs]
    for i, t in enumerate(flat_inputs):
        if t._op._graph is not graph:
            if not graph.building_function:
                # a tensor a finished cond branch made comes out of its If (TF 1.x: it has a
                # value when that branch ran)
                from tideflow.framework.func_graph import reach

                t = flat_inputs[i] = reach(t, graph, dead_elsewhere=True)
                if t._op._graph is graph:
                    continue
            _check_loop_input(t, graph, name, op_type)
            first = next((x for x in flat_inputs if x._op._graph is graph), None)
            if first is not None:  # TF 1.15's words: this input, then the one the graph is of
                raise ValueError(f"{t} must be from the same graph as {first}.")
            raise ValueError(
                f"Tensor {t.name} must be from the same graph as the other inputs of {op_type} "
                f"(and as the default graph)."
            )

    final_attrs = _complete_attrs(op_def, attrs)
    if graph._attr_scope_map:
        final_attrs.update(graph._attr_scope_map)

    output_types = []
    for arg in op_def.outputs:
        if arg.fixed_type is not None:
            t = arg.fixed_type
        elif arg.type_attr is not None:
            t = final_attrs[arg.type_attr]
        else:
            t = None
        if arg.number_attr is not None:
            output_types.extend([t] * final_attrs[arg.number_attr])
        elif arg.type_list_attr is not None:
            output_types.extend(final_attrs[arg.type_list_attr])
        else:
            output_types.append(t._as_ref if arg.is_ref else t)

    if colocate_refs and op_def.has_ref_input and not graph.building_function:
        # as TF's op_def_library: an op taking a ref input (Assign, ApplyAdam,
        # IsVariableInitialized...) is created colocated with it, so it carries the variable's
        # device and "loc:@" group whatever device scope it was built under (Graph.create_op
        # does not do this)
        refs = [t for arg, t in zip(_flat_args(op_def, final_attrs), flat_inputs) if arg.is_ref]
        with contextlib.ExitStack() as stack:
            for t in refs:
                stack.enter_context(graph.colocate_with(t))
            return _create_op(graph, op_def, flat_inputs, final_attrs, output_types, name)
    return _create_op(graph, op_def, flat_inputs, final_attrs, output_types, name)


def _flat_args(op_def, attrs):
    """The input arg of each flat input (list args repeated by their lengths)."""
    out = []
    for arg in op_def.inputs:
        if arg.number_attr is not None:
            out.extend([arg] * attrs[arg.number_attr])
        elif arg.type_list_attr is not None:
            out.extend([arg] * len(attrs[arg.type_list_attr]))
        else:
            out.append(arg)
    return out


def _group_flat_inputs(op_def, flat, attrs):
    grouped = []
    i = 0
    list_args = [a for a in op_def.inputs if a.is_list]
    n_single = len(op_def.inputs) - len(list_args)
    n_list_total = len(flat) - n_single
    for arg in op_def.inputs:
        if arg.is_list:
            if arg.number_attr is not None and arg.number_attr in attrs:
                n = attrs[arg.number_attr]
            elif arg.type_list_attr is not None and arg.type_list_attr in attrs:
                n = len(attrs[arg.type_list_attr])
            elif len(list_args) == 1:
                n = n_list_total
            else:
                raise ValueError(f"cannot split inputs of {op_def.name} without list attrs")
            grouped.append(list(flat[i:i + n]))
            i += n
        else:
            grouped.append(flat[i])
            i += 1
    return grouped


def _check_allowed(op_def, arg, dtype):
    spec = op_def.attrs[arg.type_attr]
    if spec.allowed is not None and dtype not in spec.allowed:
        raise TypeError(
            f"Value passed to parameter '{arg.name}' has DataType {dtype.name} not in list of "
            f"allowed values: {_type_name_list(spec.allowed)}")  # TF 1.15's words, exactly


def _complete_attrs(op_def, attrs):
    out = {}
    for name, spec in op_def.attrs.items():
        # None given for an attr that has a default means the default (TF's op wrappers)
        if name in attrs and (attrs[name] is not None or not spec.has_default):
            out[name] = _coerce_attr(op_def, spec, attrs[name])
        elif spec.has_default:
            d = spec.default
            out[name] = list(d) if isinstance(d, list) else (
                as_shape(d) if spec.type == "shape" else d
            )
        else:
            raise TypeError(f"No argument for attr {name} of op '{op_def.name}'")
    for name, value in attrs.items():
        if name not in out:
            if name.startswith("_"):
                out[name] = value
            else:
                raise TypeError(f"{op_def.name} got an unexpected attr '{name}'")
    return out


def _int64(value):
    """An int attr's value: TF's AttrValue holds an int64 (protobuf's words past its range)."""
    if not -(1 << 63) <= value < (1 << 63):
        raise ValueError(f"Value out of range: {value}")
    return value


def _coerce_attr(op_def, spec, value):
    typ = spec.type
    try:
        if typ == "type":
            value = dtypes.as_dtype(value)
            if value._is_ref_dtype:
                value = value.base_dtype
            if spec.allowed is not None and value not in spec.allowed:
                raise TypeError(
                    f"Value passed to parameter '{spec.name}' has DataType {value.name} not in "
                    f"list of allowed values: {_type_name_list(spec.allowed)}"
                )
            return value
        if typ == "int":
            # TF's _MakeInt: a string is refused, anything int() takes is truncated (1.5 -> 1)
            if isinstance(value, str):
                raise TypeError(f"Expected int for argument '{spec.name}' not {value!r}.")
            value = _int64(int(value))
            if spec.minimum is not None and value < spec.minimum:
                raise ValueError(
                    f"Attr '{spec.name}' of '{op_def.name}' Op passed {value} less than minimum "
                    f"{spec.minimum}."
                )
            return value
        if typ == "float":  # float attrs are float32, as in TF's AttrValue
            return float(np.float32(value))
        if typ == "bool":
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError(f"Expected bool for argument '{spec.name}' not {value!r}.")
            return bool(value)
        if typ == "string":
            if isinstance(value, bytes):
                try:
                    value = value.decode()
                except UnicodeDecodeError:
                    return value  # a binary string attr stays bytes, as graph_io reads one
            if not isinstance(value, str):
                raise TypeError(f"Expected string for argument '{spec.name}' not {value!r}.")
            if spec.allowed is not None and value not in spec.allowed:
                allowed = ", ".join(f'"{a}"' for a in spec.allowed)  # TF's quotes and order
                raise ValueError(
                    f"Attr '{spec.name}' of '{op_def.name}' Op passed string '{value}' not in: "
                    f"{allowed}."
                )
            return value
        if typ == "shape":
            return as_shape(value)
        if typ == "list(int)":
            value = [_int64(int(v)) for v in value]
            if spec.minimum is not None and len(value) < spec.minimum:
                raise ValueError(
                    f"Attr '{spec.name}' of '{op_def.name}' Op passed list of length "
                    f"{len(value)} less than minimum {spec.minimum}.")
            return value
        if typ == "list(float)":
            return [float(np.float32(v)) for v in value]
        if typ == "list(type)":
            if spec.minimum is not None and len(value) < spec.minimum:
                raise ValueError(
                    f"Attr '{spec.name}' of '{op_def.name}' Op passed list of length "
                    f"{len(value)} less than minimum {spec.minimum}.")
            return [dtypes.as_dtype(v) for v in value]
        if typ == "list(string)":
            return [v.decode() if isinstance(v, bytes) else str(v) for v in value]
        if typ == "list(shape)":
            return [as_shape(v) for v in value]
        if typ == "list(bool)":
            return [bool(v) for v in value]
    except (TypeError, ValueError) as e:
        if str(e).startswith(("Expected", "Value passed", "Attr", "Value out of range")):
            raise
        # TF's op_def_library words, by the attr's kind
        if typ.startswith("list(") and not isinstance(value, (list, tuple)):
            raise TypeError(f"Expected list for attr {spec.name}") from None
        kind = typ[5:-1] if typ.startswith("list(") else typ
        if kind == "shape":
            cls = TypeError if isinstance(e, TypeError) else ValueError  # (not a subclass)
            raise cls(f"Error converting {spec.name} to a TensorShape: {e}.") from None
        expected = {"type": "DataType", "int": "int", "float": "float"}.get(kind)
        if expected is not None:
            bad = value
            if typ.startswith("list("):
                bad = next((v for v in value if not _attr_item_ok(kind, v)), value)
            raise TypeError(f"Expected {expected} for argument '{spec.name}' not {bad!r}.") \
                from None
        raise TypeError(f"Bad value {value!r} for attr '{spec.name}' of op '{op_def.name}': {e}")
    return value


def _attr_item_ok(kind, v):
    try:
        if kind == "type":
            dtypes.as_dtype(v)
        elif isinstance(v, str):
            return False
        else:
            (int if kind == "int" else float)(v)
    except (TypeError, ValueError):
        return False
    return True


def _get_graph_from_inputs(op_input_list, graph=None):
    """The graph the tensors/operations of ``op_input_list`` belong to (``graph`` if given,
    which they must then belong to), else the default graph; ValueError when they come from
    different graphs (TF's helper of this name, which Keras-style backends call; the public
    form is ``tf.contrib.framework.get_graph_from_inputs``)."""
    if get_default_graph().building_function:  # a function body captures outer values
        return get_default_graph()
    if graph is not None and not isinstance(graph, Graph):
        raise TypeError(f"Input graph needs to be a Graph: {graph}")
    if isinstance(op_input_list, Tensor | Operation) or not isinstance(
            op_input_list, list | tuple):
        op_input_list = [op_input_list]
    if graph is None:
        return _graph_of(op_input_list)
    for item in op_input_list:
        g = _value_graph(item)
        if g is not None and g is not graph:
            raise ValueError(f"{item} is not from the passed-in graph.")
    return graph


def _graph_from_inputs(inputs):
    default = get_default_graph()
    for v in inputs:
        if isinstance(v, (list, tuple)):
            for x in v:
                if isinstance(x, Tensor):
                    return _checked_graph(x, default)
        elif isinstance(v, Tensor):
            return _checked_graph(v, default)
        elif hasattr(v, "_as_graph_element"):
            # a Variable counts where it stands, as in TF's _get_graph_from_inputs (an
            # optimizer's foreign learning rate is then the input that is refused)
            t = v._as_graph_element()
            if isinstance(t, Tensor):
                return _checked_graph(t, default)
    return default


def _in_body_of(graph, inner):
    """Whether ``inner`` is a while loop's body or a finished cond branch (one that can export
    its tensors through its If) nested in ``graph``: TF 1.x builds both into the graph itself."""
    return ((inner.while_loop_body or getattr(inner, "export_tensor", None) is not None)
            and _encloses(graph, inner))


def _encloses(graph, inner):
    """Whether ``inner`` is a body graph nested (at any depth) in ``graph``."""
    g = getattr(inner, "outer_graph", None)
    while g is not None:
        if g is graph:
            return True
        g = getattr(g, "outer_graph", None)
    return False


def _check_loop_input(t, graph, name, op_type):
    """TF 1.x's ValueError for an op outside a while loop taking a tensor made inside it."""
    inner = t._op._graph
    if inner.while_loop_body and _encloses(graph, inner):
        op = name[:-1] if name and name.endswith("/") else graph.unique_name(name or op_type)
        g = graph
        while g is not None and not g.while_loop_body:
            g = getattr(g, "outer_graph", None)
        why = ("they are in different while loops" if g is not None else
               f"'{t._op._name}' is in a while loop")
        raise ValueError(f"Cannot use '{t._op._name}' as input to '{op}' because {why}. "
                         "See info log for more details.")


def check_node_name(graph, name):
    """TF's check of a name given to ``Graph.create_op`` (tf.constant's too): taken as the
    scoped unique name, then refused as a node name (a second try says 'x_1')."""
    if type(name) is str and name[-1:] != "/" and not _VALID_OP_NAME.match(name) and (
            not _VALID_OP_NAME.match(graph.unique_name(name, mark_as_used=False))):
        raise ValueError(f"'{graph.unique_name(name)}' is not a valid node name")


def _checked_graph(t, default):
    g = t._op._graph
    if g is not default and (default.building_function or _in_body_of(default, g)):
        # the function body captures t (FuncGraph.capture); a tensor of a while loop in the
        # default graph is refused there (_check_loop_input), as TF 1.x's context check
        return default
    # as TF's _get_graph_from_inputs: the op goes to its inputs' graph, whatever the default
    return g


def _create_op(graph, op_def, inputs, attrs, output_types, name):
    if graph._finalized:
        graph._check_not_finalized()  # before the name is taken, as TF
    if name and name[-1] != "/":
        # as TF's op constructors: the name given is checked as a name scope (a root one may
        # not start with '_' or '-') before a unique name is taken
        if not (_VALID_SCOPE_NAME if graph._name_stack else _VALID_OP_NAME).match(name):
            raise ValueError(f"'{name}' is not a valid scope name")
        name = graph.unique_name(name)
    else:
        name = graph.unique_name(op_def.name) if not name else name[:-1]
        if not _VALID_NODE_NAME.match(name):
            raise ValueError(f"'{name}' is not a valid node name")
    if name in graph._nodes_by_name:  # an absolute name ("train/") taken twice, as TF
        raise ValueError(f"Duplicate node name in graph: '{name}'")
    input_ops = [t._op for t in inputs]
    control = graph._control_dependencies_for_inputs(input_ops) if (
        graph._control_dependencies_stack
    ) else ()
    if graph._kernel_label_map_dict and op_def.name in graph._kernel_label_map_dict:
        attrs["_kernel"] = graph._kernel_label_map_dict[op_def.name]
    if graph._gradient_override_map and op_def.name in graph._gradient_override_map:
        # as TF: an op created under gradient_override_map records its gradient's name
        attrs["_gradient_op_type"] = graph._gradient_override_map[op_def.name]
    op = Operation(graph, name, op_def, inputs, attrs, output_types, control,
                   traceback=_user_frame())
    # as TF: the shapes are known (the C op was finished) when the device functions run, so a
    # placement strategy may weigh them (byte_size_load_fn)
    try:
        infer_shapes(op)
    except Exception:
        # TF 1.15 spends an op id on a node its shape inference refuses, so ops made after a
        # caught construction error (and the seeds of later random ops) number as in TF
        graph._skip_op_ids(1)
        raise
    if graph._colocation_stack:
        groups = set()
        for c in graph._colocation_stack:
            groups.update(g.decode() for g in c.colocation_groups())
        attrs["_class"] = sorted(groups)
        # as TF: devices set inside the colocation scope apply, then a placed colocation op wins
        if graph._device_function_stack:
            op._device = graph._apply_device_functions(op)
        for c in graph._colocation_stack:
            if c._device:
                op._device = c._device
    elif graph._device_function_stack:
        op._device = graph._apply_device_functions(op)
    graph._add_created_op(op)
    return op


def shape_tensor_error(message):
    """The ValueError for a shape tensor's value no shape takes (a dimension below -1): TF's
    shape refiner reports it before the op's shape function runs, so it names no op."""
    e = ValueError(message)
    e._refiner_error = True
    return e


def infer_shapes(op):
    """Sets the static shapes of ``op``'s outputs from its shape function."""
    shape_fn = op._op_def.shape_fn
    if shape_fn is None:
        return
    local = op._graph._thread_local
    local.inferring_shapes += 1
    outer_op, local.inferring_op = local.inferring_op, op
    try:
        shapes = shape_fn(op)
    except ValueError as e:
        if getattr(e, "_refiner_error", False):
            raise
        message, computed = _shape_error(op, shape_fn, local, e)
        shapes_str = ", ".join(_shape_str(t._shape) for t in op._inputs)
        raise ValueError(
            f"{message} for '{op._name}' (op: '{op._type}') with input shapes: {shapes_str}"
            f"{computed}."
        ) from None
    finally:
        local.inferring_shapes -= 1
        local.inferring_op = outer_op
    if shapes is not None:
        for t, s in zip(op._outputs, shapes):
            if s is not None:
                # as TF, each output's shape is made afresh: an unknown dimension is an
                # object of its own (relu(x).shape == x.shape is False for x of (?, 3))
                t._shape = fresh_unknown_dims(s if isinstance(s, TensorShape) else as_shape(s))


def _shape_error(op, shape_fn, local, error):
    """The message of a shape function's error and TF's tail naming the inputs it had
    computed. TF's shape refiner runs the function without input values, then again with
    the values (or partial shapes) of the inputs it asked for, until no new one is asked
    for: the error is that of the first failing pass, listing the inputs computed by then."""
    if local.shape_gate is not None:  # (a shape function run inside another's replay)
        return str(error), ""
    inputs = {id(t) for t in op._inputs}
    available = set()
    try:
        for _ in range(len(op._inputs) + 1):
            reads = local.shape_reads = []
            local.shape_gate = (inputs, available)
            try:
                shape_fn(op)
            except ValueError as e:
                return str(e), _computed_inputs(op, reads, available)
            asked = {id(t) for t, _ in reads if id(t) in inputs} - available
            if not asked:
                break
            available |= asked
    finally:
        local.shape_reads = local.shape_gate = None
    return str(error), ""


def _computed_inputs(op, reads, available):
    """TF's tail of a shape function's error: the inputs computed for it (their values,
    then those read as partial shapes), by input index."""
    as_shapes = {id(t): s for t, s in reads if s is not None}
    values, shapes = [], []
    for i, t in enumerate(op._inputs):
        if id(t) not in available:
            continue
        if id(t) in as_shapes:
            shapes.append(f"input[{i}] = {_shape_str(as_shapes[id(t)])}")
        else:
            v = constant_value(t)
            if v is not None:
                from tideflow.ops.logging_ops import summarize_value

                # TF's SummarizeValue(256): nested brackets for a matrix ([-2 1][3 4])
                values.append(f"input[{i}] = <{summarize_value(v, 256)}>")
    out = ""
    if values:
        out += " and with computed input tensors: " + ", ".join(values)
    if shapes:
        out += " and with input tensors computed as partial shapes: " + ", ".join(shapes)
    return out


def _shape_str(shape):
    if shape.ndims is None:
        return "?"
    return "[" + ",".join("?" if d.value is None else str(d.value) for d in shape.dims) + "]"


def _name_from_tensor(t):
    return t.name


def __getattr__(name):
    # TF 1.x keeps IndexedSlices (and its value type) in ``framework/ops``; tideflow defines
    # them in their own module, which imports this one, so they are looked up on first use
    if name in ("IndexedSlices", "IndexedSlicesValue"):
        from tideflow.framework import indexed_slices

        return getattr(indexed_slices, name)
    # ... and the gradient registration (``@ops.RegisterGradient("GuidedRelu")`` in programs
    # that override a gradient), which tideflow keeps with tf.gradients
    if name in ("RegisterGradient", "NotDifferentiable", "NoGradient"):
        from tideflow.ops import gradients

        return getattr(gradients, name)
    # ... and the collection proto-function registry that MetaGraphDef export consults
    if name in ("register_proto_function", "get_collection_proto_type",
                "get_to_proto_function", "get_from_proto_function"):
        from tideflow.framework import meta_graph

        return getattr(meta_graph, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
