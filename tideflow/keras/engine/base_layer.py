"""The Keras ``Layer``: weights made by ``add_weight`` (plain ``tf.Variable`` objects named
``<layer name scope>/<weight name>:0``, e.g. ``dense/kernel:0``), ``build`` on the first call,
and a ``Node`` recorded per call so functional models can be traced back from their outputs.

Layer names are unique per graph and numbered from 0 as in Keras: ``dense``, ``dense_1``...
"""

import contextlib
import inspect

import numpy as np

import tideflow as tf
from tideflow.framework import dtypes, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.keras import backend as K
from tideflow.keras import constraints as constraints_mod
from tideflow.keras import initializers as initializers_mod
from tideflow.keras import regularizers as regularizers_mod
from tideflow.keras._utils import is_registered_symbolic, snake_case
from tideflow.keras.mixed_precision.autocast_variable import autocast_context
from tideflow.ops.layers_base import InputSpec
from tideflow.ops.layers_base import Layer as _TFLayer
from tideflow.ops.layers_base import _flatten as flatten
from tideflow.ops.layers_base import _map as map_structure
from tideflow.ops.variables import VariableAggregation, VariableSynchronization

__all__ = ["InputSpec", "Layer", "Node", "flatten", "map_structure", "to_list"]

# frames of the layer calls in progress: each collects the updates and losses made inside it
_CALL_FRAMES = []


def to_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _to_tensor(x):
    if isinstance(x, (ops.Tensor, tf.SparseTensor, tf.RaggedTensor)) or x is None:
        return x  # (a sparse or ragged input, as DenseFeatures takes, passes as it is)
    if isinstance(x, tf.Variable):
        return x.value() if hasattr(x, "value") else ops.convert_to_tensor(x)
    if isinstance(x, np.ndarray) and x.dtype == np.float64:
        x = x.astype(K.floatx())
    return ops.convert_to_tensor(x)


def _is_policy(dtype):
    from tideflow.keras.mixed_precision.experimental import Policy

    return isinstance(dtype, Policy)


def _shape_of(x):
    return x.get_shape() if isinstance(x, (ops.Tensor, tf.SparseTensor)) else None


def _shape_tuple(shape):
    if isinstance(shape, TensorShape):
        return None if shape.ndims is None else tuple(shape.as_list())
    return shape


class Node:
    """One call of ``layer``: its input and output tensors (as given and flat), the call's
    keyword arguments, and the updates and losses the call made."""

    def __init__(self, layer, inputs, outputs, arguments, updates, losses):
        self.layer = layer
        self.inputs = inputs
        self.outputs = outputs
        self.input_tensors = flatten(inputs)
        self.output_tensors = flatten(outputs)
        self.arguments = arguments
        self.updates = updates
        self.losses = losses
        self.inbound_layers = []
        history = K._state().history
        for t in self.input_tensors:
            h = history.get(t) if isinstance(t, ops.Tensor) or is_registered_symbolic(t) \
                else None
            if h is not None:
                self.inbound_layers.append(h[0])
                outbound = h[0].__dict__.setdefault("_outbound_nodes", [])
                if not any(n is self for n in outbound):
                    outbound.append(self)

    @property
    def outbound_layer(self):
        """The layer this call is a call of (TF's name)."""
        return self.layer

    @property
    def input_shapes(self):
        shapes = [_shape_tuple(t.get_shape()) for t in self.input_tensors]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shapes(self):
        shapes = [_shape_tuple(t.get_shape()) for t in self.output_tensors]
        return shapes[0] if len(shapes) == 1 else shapes


class _WeightRegularization:
    """A weight's regularization loss, made when the losses are first collected (compile,
    ``layer.losses``) under ``<variable>/Regularizer``: TF 1.15's Keras makes it then too, so
    the layers built after a regularized one get TF's op count. Made once, then reused."""

    __slots__ = ("regularizer", "value", "variable")

    def __init__(self, variable, regularizer):
        self.variable, self.regularizer, self.value = variable, regularizer, None

    def __call__(self):
        if self.value is None:
            v = self.variable
            graph = getattr(v, "graph", None)
            home = (graph.as_default() if graph is not None and graph is not
                    ops.get_default_graph() else contextlib.nullcontext())
            with home, ops.name_scope(v.op.name + "/Regularizer"):
                self.value = self.regularizer(v)
        return self.value


def _loss_values(losses, tail=()):
    """``losses`` with the weight regularizations made (see _WeightRegularization). As TF
    1.15's (which keeps them apart, as callables), those come last: after the losses added
    as tensors, then ``tail``."""
    regs = [x for x in losses if isinstance(x, _WeightRegularization)]
    return ([x for x in losses if not isinstance(x, _WeightRegularization)] + list(tail)
            + [x() for x in regs])


def _merged(out, batches, dedupe_within=True):
    """``out`` extended by the items of each of ``batches`` (lists) that are not already in it
    (by identity); with ``dedupe_within=False`` the repeats inside one batch are kept (only the
    items of earlier batches count). One set of ids instead of a scan of ``out`` per item,
    which is quadratic in deep models."""
    seen = {id(o) for o in out}
    for items in batches:
        if dedupe_within:
            for x in items:
                if id(x) not in seen:
                    seen.add(id(x))
                    out.append(x)
        else:
            new = [x for x in items if id(x) not in seen]
            out += new
            seen.update(id(x) for x in new)
    return out


def _listed(node, shapes, attr):
    """A node's output shapes in a list where its outputs were given as one (TF 1.15's op
    layers: their op's outputs)."""
    if attr == "output_shape" and getattr(node, "outputs_listed", False) and \
            not isinstance(shapes, list):
        return [shapes]
    return shapes


def _passed_mask(call_args, args, kwargs):
    """(mask, True) when the caller handed ``call`` a mask, by keyword or by position."""
    if "mask" in kwargs:
        return kwargs["mask"], True
    names = list(call_args)[1:]
    if "mask" in names:
        i = names.index("mask")
        if i < len(args):
            return args[i], True
    return None, False


def _added_metric_entries(root):
    """The (metric, result) pairs ``add_metric`` recorded on ``root``'s layers (deepest
    first) and on ``root`` itself."""
    seen, out = set(), []

    def visit(layer):
        if id(layer) in seen:
            return
        seen.add(id(layer))
        subs = layer.layers if hasattr(type(layer), "layers") else \
            layer.__dict__.get("_sublayers", [])
        for sub in subs:
            visit(sub)
        out.extend(layer.__dict__.get("_added_metrics", []))

    visit(root)
    return out


def _attribute_metrics(root):
    """(root's own metric attributes, those of the layers in it) in tracking order."""
    from tideflow.keras.metrics import Metric

    own = [s for s in root.__dict__.get("_sublayers", ()) if isinstance(s, Metric)]
    nested, seen = [], {id(root)}

    def visit(layer):
        for sub in layer.__dict__.get("_sublayers", ()):
            if id(sub) in seen or isinstance(sub, Metric):
                continue
            seen.add(id(sub))
            nested.extend(s for s in sub.__dict__.get("_sublayers", ())
                          if isinstance(s, Metric))
            visit(sub)

    if not isinstance(root, Metric):
        visit(root)
    return own, nested


class Layer:
    """Base class of Keras layers: override ``build(input_shape)`` (make weights with
    ``add_weight``), ``call(inputs, ...)`` and ``compute_output_shape``; ``get_config`` returns
    the constructor arguments."""

    _KWARGS = frozenset({"input_shape", "batch_input_shape", "batch_size", "weights",
                         "activity_regularizer", "input_dim", "autocast", "dynamic"})

    def __init__(self, trainable=True, name=None, dtype=None, dynamic=False, **kwargs):
        for k in kwargs:
            if k not in self._KWARGS:
                # (TF 1.15 raises it with two arguments: str() shows the tuple)
                raise TypeError("Keyword argument not understood:", k)
        self._trainable = trainable
        self.built = False
        self._dtype_policy = None
        if _is_policy(dtype):  # (a mixed precision Policy: its variables' dtype)
            self._dtype_policy, dtype = dtype, dtype.variable_dtype
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype.name
        self._trainable_weights = []
        self._non_trainable_weights = []
        self._updates = []
        self._losses = []  # not tied to a call (weight regularizers)
        self._call_losses = []  # made by calls (activity regularizers)
        self._inbound_nodes = []
        self._dynamic = bool(dynamic)
        # a plain Layer may set sublayers before calling Layer.__init__ (TF 1.15 allows it)
        self.__dict__.setdefault("_sublayers", [])
        self.input_spec = None
        self.supports_masking = False
        self.stateful = False
        self._name = name or K.unique_object_name(snake_case(type(self).__name__))
        self._initial_weights = kwargs.get("weights")
        self.activity_regularizer = regularizers_mod.get(kwargs.get("activity_regularizer"))
        batch_input_shape = kwargs.get("batch_input_shape")
        if batch_input_shape is None:
            input_shape = kwargs.get("input_shape")
            if input_shape is None and kwargs.get("input_dim") is not None:
                input_shape = (kwargs["input_dim"],)
            if input_shape is not None:
                batch_input_shape = (kwargs.get("batch_size"),) + tuple(input_shape)
        if batch_input_shape is not None:
            self._batch_input_shape = tuple(batch_input_shape)

    # -- TF 1.15's Layer attributes programs read --------------------------------------------
    inbound_nodes = property(lambda self: self._inbound_nodes)
    outbound_nodes = property(lambda self: self.__dict__.get("_outbound_nodes", []))
    dynamic = property(lambda self: self.__dict__.get("_dynamic", False))

    @property
    def submodules(self):
        """Every layer reachable through this one's sublayers, depth first (TF's tf.Module
        walk; weights are not listed here)."""
        out, seen = [], {id(self)}

        def walk(layer):
            if isinstance(layer, Layer):
                layer._sync_sublayers()  # (layers put into list attributes since)
            for sub in layer.__dict__.get("_sublayers", ()):
                if id(sub) not in seen:
                    seen.add(id(sub))
                    out.append(sub)
                    walk(sub)

        walk(self)
        return tuple(out)

    # -- attribute tracking ------------------------------------------------------------------
    def __setattr__(self, name, value):
        if not name.startswith("_"):
            if isinstance(value, Layer) and "_sublayers" not in self.__dict__:
                from tideflow.keras.engine.network import Network
                if not isinstance(self, Network):  # only a Model must call __init__ first
                    object.__setattr__(self, "_sublayers", [])
            if isinstance(value, Layer) and "_sublayers" not in self.__dict__:
                raise RuntimeError(
                    f"It looks like you are subclassing `{type(self).__name__}` and you forgot "
                    f"to call `super({type(self).__name__}, self).__init__()`. Always start "
                    "with this line.")
            if isinstance(value, (Layer, _TFLayer)) and value is not self:
                subs = self.__dict__.get("_sublayers")
                if subs is not None and not any(value is s for s in subs):
                    subs.append(value)
            elif isinstance(value, (list, tuple)) and value and all(isinstance(v, Layer)
                                                                   for v in value):
                subs = self.__dict__.get("_sublayers")
                if subs is not None:
                    for v in value:
                        if not any(v is s for s in subs):
                            subs.append(v)
            if type(value) in (list, dict):
                # as TF's tracked containers: layers put into the list (or dict) later, e.g.
                # ``self.convs = []`` then ``self.convs.append(Conv2D(...))`` in build, are
                # sublayers too (see _sync_sublayers)
                self.__dict__.setdefault("_layer_containers", {})[name] = value
            elif "_layer_containers" in self.__dict__:
                self.__dict__["_layer_containers"].pop(name, None)
            if isinstance(value, (tf.Variable, list, tuple)):
                self._track_assigned_variables(name, value)
        object.__setattr__(self, name, value)

    def _track_trackable(self, trackable, name, overwrite=False):
        """TF's named-dependency hook (wrapper layers call it for the layer they wrap): a
        layer so tracked is a sublayer, as an attribute assignment makes it; returns it."""
        del name, overwrite  # tideflow's checkpoints walk the sublayers, not named edges
        subs = self.__dict__.get("_sublayers")
        if (isinstance(trackable, Layer) and trackable is not self and subs is not None
                and not any(trackable is s for s in subs)):
            subs.append(trackable)
        return trackable

    def _track_assigned_variables(self, name, value):
        # as TF 1.15: a Variable assigned to an attribute (alone or in a list or tuple), e.g.
        # ``self.w = tf.Variable(...)`` in ``build``, is one of the layer's weights; not for a
        # functional model, nor through a property's setter
        if self.__dict__.get("_is_graph_network") or hasattr(type(self), name):
            return
        for v in (value if isinstance(value, (list, tuple)) else (value,)):
            if not isinstance(v, tf.Variable):
                continue
            own = self.__dict__.setdefault(
                "_trainable_weights" if v.trainable else "_non_trainable_weights", [])
            if not any(v is w for w in own):
                own.append(v)

    def _sync_sublayers(self):
        """Adds the layers found in the list/dict attributes to the sublayers."""
        conts = self.__dict__.get("_layer_containers")
        subs = self.__dict__.get("_sublayers")
        if not conts or subs is None:
            return
        for c in conts.values():
            for v in (c.values() if isinstance(c, dict) else c):
                if isinstance(v, (Layer, _TFLayer)) and v is not self and not any(
                        v is s for s in subs):
                    subs.append(v)

    # -- properties ----------------------------------------------------------------------------
    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype or K.floatx()

    @property
    def _compute_dtype(self):
        """The dtype the layer computes in: its policy's (float16 under 'mixed_float16'),
        else its dtype."""
        policy = self.__dict__.get("_dtype_policy")
        if policy is not None and policy.compute_dtype is not None:
            return policy.compute_dtype
        return self.dtype

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        self._trainable = bool(value)
        self._sync_sublayers()
        for layer in self._sublayers:
            layer.trainable = value

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        self._sync_sublayers()
        return _merged(list(self._trainable_weights),
                       (layer.trainable_weights for layer in self._sublayers))

    @property
    def non_trainable_weights(self):
        self._sync_sublayers()
        out = [] if self.trainable else list(self._trainable_weights)
        out += self._non_trainable_weights
        return _merged(out, (layer.non_trainable_weights + (
            [] if self.trainable else layer.trainable_weights) for layer in self._sublayers))

    @property
    def weights(self):
        return self.trainable_weights + self.non_trainable_weights

    @property
    def trainable_variables(self):
        return self.trainable_weights

    @property
    def non_trainable_variables(self):
        return self.non_trainable_weights

    @property
    def variables(self):
        return self.weights

    def _unconditional_losses(self):
        return _merged(_loss_values(self._losses), (layer._unconditional_losses()
                                            for layer in self._sublayers), False)

    @property
    def updates(self):
        if not self.trainable and not getattr(self, "stateful", False):
            return []  # as TF 1.x: a frozen layer's updates do not run
        return _merged(list(self._updates), (layer.updates for layer in self._sublayers),
                       False)

    @property
    def metrics(self):
        """The metric objects set as attributes of this layer (a metric is a layer, as in
        TF 1.15), those it and the layers in it added with ``add_metric``, then those set as
        attributes of the layers in it."""
        own, nested = _attribute_metrics(self)
        out = list(own)
        for metric in [m for m, _ in _added_metric_entries(self)] + nested:
            if not any(metric is m for m in out):
                out.append(metric)
        return out

    @property
    def losses(self):
        return _merged(_loss_values(self._losses, self._input_losses() + self._call_losses),
                       (layer.losses for layer in self._sublayers), False)

    def _input_losses(self, keys=None):
        """The losses added outside a call with ``inputs`` (those tied to ``keys``)."""
        return [loss for loss, tied in self.__dict__.get("_losses_on_inputs", ())
                if keys is None or tied & keys]

    def get_updates_for(self, inputs):
        """The updates made by this layer's calls on ``inputs`` (None: the updates not tied
        to a call, of which Keras layers make none)."""
        if inputs is None:
            return self._unconditional_update_list()
        found = _merged([], (node.updates for node in self._calls_on(inputs)), False)
        # as TF 1.x: also those computed from ``inputs`` further up (fed to a layer before)
        ids = {id(t) for t in flatten(inputs) if isinstance(t, ops.Tensor)}
        unconditional = {id(u) for u in self._unconditional_update_list()}
        return _merged(found, [[u for u in self.updates
                                if id(u) not in unconditional and _depends_on(u, ids)]], False)

    def _unconditional_update_list(self):
        if not self.trainable and not getattr(self, "stateful", False):
            return []
        return _merged(list(self.__dict__.get("_unconditional_updates", ())),
                       (layer._unconditional_update_list() for layer in self._sublayers),
                       False)

    def get_losses_for(self, inputs):
        """The losses of this layer's calls on ``inputs``; with None, the losses not tied to
        a call (weight regularizers)."""
        if inputs is None:
            return self._unconditional_losses()
        keys = _input_keys(inputs)
        return _merged(self._input_losses(keys),
                       [node.losses for node in self._calls_on(inputs)]
                       + [layer._input_losses(keys) for layer in self._sublayers], False)

    def _calls_on(self, inputs):
        """The nodes of this layer's calls that took one of ``inputs`` (a variable given as an
        input matches the read of it the call made)."""
        wanted = {id(t.op) if isinstance(t, tf.Variable) else id(t) for t in flatten(inputs)}

        def taken(t):
            if id(t) in wanted:
                return True
            return (t.op.type in ("Identity", "ReadVariableOp") and bool(t.op.inputs)
                    and id(t.op.inputs[0].op) in wanted)

        return [node for node in self._inbound_nodes
                if any(isinstance(t, ops.Tensor) and taken(t) for t in node.input_tensors)]

    def _node_attr(self, attr, what):
        if not self._inbound_nodes:
            raise AttributeError(f"Layer {self.name} is not connected, no {what} to return.")
        if len(self._inbound_nodes) > 1 and attr in ("input", "output"):
            raise AttributeError(f"Layer {self.name} has multiple inbound nodes, hence the "
                                 f"notion of \"layer {what}\" is ill-defined. Use "
                                 f"`get_{what.replace(' ', '_')}_at(node_index)` instead.")
        if len(self._inbound_nodes) > 1 and attr in ("input_shape", "output_shape"):
            shapes = {str(_listed(n, getattr(n, attr + "s"), attr)) for n in self._inbound_nodes}
            if len(shapes) > 1:
                raise AttributeError(
                    f'The layer "{self.name}" has multiple inbound nodes, with different '
                    f'{what}s. Hence the notion of "{what}" is ill-defined for the layer. Use '
                    f"`get_{what.replace(' ', '_')}_at(node_index)` instead.")
        node = self._inbound_nodes[0]
        if attr == "input":
            return node.inputs
        if attr == "output":
            return node.outputs
        if attr == "input_shape":
            return node.input_shapes
        return _listed(node, node.output_shapes, attr)

    @property
    def input(self):
        return self._node_attr("input", "input")

    @property
    def output(self):
        return self._node_attr("output", "output")

    @property
    def input_shape(self):
        if not self._inbound_nodes and hasattr(self, "_batch_input_shape"):
            return self._batch_input_shape
        return self._node_attr("input_shape", "input shape")

    @property
    def output_shape(self):
        return self._node_attr("output_shape", "output shape")

    def _node_at(self, node_index, what):
        if not self._inbound_nodes:
            raise RuntimeError(f"The layer has never been called and thus has no defined "
                               f"{what}.")
        if not len(self._inbound_nodes) > node_index:
            raise ValueError(f"Asked to get {what} at node {node_index}, but the layer has "
                             f"only {len(self._inbound_nodes)} inbound nodes.")
        return self._inbound_nodes[node_index]

    def get_input_at(self, node_index):
        return self._node_at(node_index, "input").inputs

    def get_input_shape_at(self, node_index):
        return self._node_at(node_index, "input shape").input_shapes

    def get_output_shape_at(self, node_index):
        return self._node_at(node_index, "output shape").output_shapes

    @property
    def input_mask(self):
        """The mask of the layer's input (a list for several inputs; None where unmasked)."""
        return _masks_of(self.input)

    @property
    def output_mask(self):
        """The mask the layer attached to its output (None when it computes none)."""
        return _masks_of(self.output)

    def get_input_mask_at(self, node_index):
        return _masks_of(self.get_input_at(node_index))

    def get_output_mask_at(self, node_index):
        return _masks_of(self.get_output_at(node_index))

    def get_output_at(self, node_index):
        return self._node_at(node_index, "output").outputs

    def count_params(self):
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on {self.name}, but the layer "
                             "isn't built. You can build it manually via: "
                             f"`{self.name}.build(batch_input_shape)`.")
        return int(sum(np.prod(v.get_shape().as_list()) for v in self.weights))

    # -- weights -------------------------------------------------------------------------------
    def add_weight(self, name=None, shape=None, dtype=None, initializer=None, regularizer=None,
                   trainable=None, constraint=None, partitioner=None, use_resource=None,
                   synchronization=VariableSynchronization.AUTO,
                   aggregation=VariableAggregation.NONE, **kwargs):
        """Makes a variable ``name`` of ``shape`` in the current name scope (the layer's, when
        called from ``build``), tracks it, and adds ``regularizer(variable)`` to the losses."""
        for k in kwargs:
            if k not in ("getter",):
                raise TypeError(f"Unknown keyword argument: {k}")
        if shape is None:
            shape = ()
        elif not hasattr(shape, "__iter__"):  # one size (int, Dimension): a 1-D shape, as TF's
            shape = (shape,)
        shape = tuple(int(d) for d in shape)
        if any(d < 0 for d in shape):
            tf.TensorShape(shape)  # (TF's error: 'Dimension -1 must be >= 0')
        dtype = dtypes.as_dtype(dtype or self.dtype)
        if self._dtype is None:  # as TF 1.15: a layer of no dtype yet takes its weights'
            self._dtype = dtype.base_dtype.name
        if synchronization == VariableSynchronization.ON_READ:
            if trainable:  # as TF 1.15: variables synced on read are not trainable
                raise ValueError(
                    "Synchronization value can be set to VariableSynchronization.ON_READ only "
                    "for non-trainable variables. You have specified trainable=True and "
                    "synchronization=VariableSynchronization.ON_READ.")
            trainable = False
        elif trainable is None:
            trainable = True
        initializer = initializers_mod.get(initializer)
        if isinstance(initializer, type):  # a class, as TF: its default instance
            initializer = initializer()
        if initializer is None:
            if dtype.is_floating:
                initializer = initializers_mod.GlorotUniform()
            else:
                initializer = initializers_mod.Zeros()
        regularizer = regularizers_mod.get(regularizer)
        constraint = constraints_mod.get(constraint)

        def init_value():
            return initializer(shape, dtype=dtype)

        # as TF 1.15's Keras: resource variables unless asked otherwise
        variable = tf.Variable(init_value, name=name, dtype=dtype, trainable=trainable,
                               constraint=constraint,
                               use_resource=True if use_resource is None else use_resource,
                               synchronization=synchronization, aggregation=aggregation)
        K._track_variable(variable)
        policy = self.__dict__.get("_dtype_policy")
        if policy is not None and policy.should_cast_variables and dtype.is_floating:
            from tideflow.keras.mixed_precision.autocast_variable import (
                create_autocast_variable,
            )

            variable = create_autocast_variable(variable)  # (read in the compute dtype)
        if trainable:
            self._trainable_weights.append(variable)
        else:
            self._non_trainable_weights.append(variable)
        if regularizer is not None:
            self._losses.append(_WeightRegularization(variable, regularizer))
        return variable

    add_variable = add_weight

    def get_weights(self):
        """The values of ``weights`` as NumPy arrays."""
        return K.batch_get_value(self.weights)

    def set_weights(self, weights):
        """Sets ``weights`` from NumPy arrays given in the same order and shapes."""
        params = self.weights
        if len(params) != len(weights):
            raise ValueError(f'You called `set_weights(weights)` on layer "{self.name}" with a '
                             f"weight list of length {len(weights)}, but the layer was "
                             f"expecting {len(params)} weights. Provided weights: "
                             f"{str(weights)[:50]}...")
        tuples = []
        for p, w in zip(params, weights):
            w = np.asarray(w)
            ref = tuple(p.get_shape().as_list())
            if ref != w.shape:
                raise ValueError(f"Layer weight shape {ref} not compatible with provided "
                                 f"weight shape {w.shape}")
            tuples.append((p, w))
        K.batch_set_value(tuples)

    # -- losses and updates ----------------------------------------------------------------------
    def add_loss(self, losses, inputs=None):
        for loss in flatten(losses):
            if callable(loss):
                loss = loss()
            if loss is None:
                continue
            loss = ops.convert_to_tensor(loss)
            if _CALL_FRAMES and inputs is not None:  # made by a call on its inputs: the node's
                for frame in _CALL_FRAMES:
                    frame[1].append(loss)
                self._call_losses.append(loss)
            elif _CALL_FRAMES:
                self._losses.append(loss)  # as TF 1.x: without ``inputs``, unconditional
            elif inputs is not None:
                # outside a call but tied to ``inputs``: a loss of get_losses_for(inputs)
                if "_losses_on_inputs" not in self.__dict__:
                    self._losses_on_inputs = []
                self._losses_on_inputs.append((loss, _input_keys(inputs)))
            else:
                self._losses.append(loss)

    def add_metric(self, value, aggregation=None, name=None):
        """A metric that fit and evaluate report after the compiled ones: the running mean of
        a tensor over the epoch (``aggregation='mean'``), or a Metric object's result."""
        if aggregation is not None and aggregation != "mean":
            raise ValueError("We currently support only `mean` sample-wise metric aggregation. "
                             f"You provided aggregation=`{aggregation}`")
        metric = getattr(value, "_metric_obj", None)
        if name is None and metric is None:
            raise ValueError("Please provide a name for your metric like `self.add_metric("
                             "tf.reduce_sum(inputs), name='mean_activation', "
                             "aggregation='mean')`")
        if not isinstance(value, ops.Tensor):
            raise ValueError(  # noqa: TRY004 - as TF
                f"Expected a symbolic Tensor for the metric value, received: {value}")
        if metric is None:
            if aggregation is None:
                raise ValueError("We do not support adding an aggregated metric result tensor "
                                 "that is not the output of a `tf.keras.metrics.Metric` "
                                 "metric instance. Pass the un-aggregated value with "
                                 "`aggregation='mean'` instead.")
            from tideflow.keras import metrics as metrics_mod
            from tideflow.ops import variables as variables_lib

            # under a strategy the model's whole-batch graph (where this runs) is built
            # across replicas: the mean's state is plain variables, as the compiled metrics'
            creators = variables_lib._creator_stack()
            saved = creators[:]
            del creators[:]
            try:
                with ops.name_scope(name):
                    metric = metrics_mod.Mean(name=name)
            finally:
                creators[:] = saved
            with ops.name_scope(name):
                value = metric(value)
        added = [e for e in self.__dict__.get("_added_metrics", []) if e[0].name != metric.name]
        # (a layer called again reports its latest call's value, once)
        self.__dict__["_added_metrics"] = added + [(metric, value)]

    def add_update(self, updates, inputs=None):
        for update in flatten(updates):
            if callable(update):
                update = update()
            if update is None:
                continue
            # as TF 1.x: an op (a resource variable's update read, TF's unread variable, is
            # its assignment)
            update = getattr(update, "_update_op", None) or getattr(update, "op", update)
            self._updates.append(update)
            if _CALL_FRAMES and _depends_on(update, _CALL_FRAMES[-1][2]):
                # an enclosing call's node takes it only when computed from that call's
                # inputs (a model built in its own call runs its layers on an Input first)
                for frame in _CALL_FRAMES:
                    if frame is _CALL_FRAMES[-1] or _depends_on(update, frame[2]):
                        frame[0].append(update)
            elif "_unconditional_updates" in self.__dict__:
                # as TF 1.x: an update that does not depend on the call's inputs (made in
                # build, or outside a call) is one of get_updates_for(None)
                self._unconditional_updates.append(update)
            else:
                self._unconditional_updates = [update]

    # -- building and calling ----------------------------------------------------------------------
    def build(self, input_shape):
        self.built = True

    def call(self, inputs, **kwargs):
        return inputs

    def compute_output_shape(self, input_shape):
        """The output shape for ``input_shape`` (by default: the layer applied to a
        placeholder of that shape in a scratch graph, when it has no weights)."""
        raise NotImplementedError(f"Layer {type(self).__name__} does not implement "
                                  "compute_output_shape.")

    def compute_output_signature(self, input_signature):
        """TensorSpecs of the outputs for ``input_signature`` (a nest of TensorSpecs): the
        shapes by ``compute_output_shape``, the dtype the layer's (else the inputs')."""
        def check(s):
            if not isinstance(s, tf.TensorSpec):
                raise TypeError("Only TensorSpec signature types are supported, but saw "
                                f"signature signature entry: {s}.")
            return s.shape
        shapes = map_structure(check, input_signature)
        if isinstance(shapes, list) and not isinstance(input_signature, list):
            shapes = tuple(shapes)
        out_shapes = self.compute_output_shape(shapes)
        dtype = self._dtype or flatten(input_signature)[0].dtype

        def spec(s):
            return tf.TensorSpec(dtype=dtype, shape=s)
        if isinstance(out_shapes, TensorShape):
            return spec(out_shapes)
        return map_structure(spec, out_shapes)

    _produces_mask = False

    def compute_mask(self, inputs, mask=None):
        """The mask of the outputs: the input mask when the layer ``supports_masking``,
        else None."""
        if self.supports_masking and not isinstance(mask, list):
            return mask
        return None

    def _assert_input_compatibility(self, inputs):
        if self.input_spec is None:
            return
        specs = to_list(self.input_spec)
        flat = flatten(inputs)
        if len(specs) != len(flat):
            raise ValueError(f"Layer {self.name} expects {len(specs)} inputs, but it received "
                             f"{len(flat)} input tensors. Inputs received: {flat}")
        for i, (spec, x) in enumerate(zip(specs, flat)):
            if spec is not None and isinstance(x, ops.Tensor):
                spec.check(x, self.name, i)

    def _copied_input(self, tensor):
        """An input a call hands back unchanged, copied by an identity named as TF 1.15 names it."""
        with ops.name_scope(self.name):
            return tf.identity(tensor)

    def _maybe_build(self, inputs):
        if self.built:
            return
        flat = [x for x in flatten(inputs) if isinstance(x, ops.Tensor)]
        # the dtype a layer without one would take (Dense refuses integer inputs by it)
        self._build_input_dtype = flat[0].dtype.base_dtype if flat else None
        if self._dtype is None and flat and flat[0].dtype.is_floating:
            self._dtype = flat[0].dtype.base_dtype.name
        shapes = map_structure(_shape_of, inputs)
        if isinstance(shapes, list) and not isinstance(inputs, list):
            shapes = tuple(shapes)
        self.build(shapes)
        self._sync_sublayers()
        self.built = True
        if self._initial_weights is not None:
            self.set_weights(self._initial_weights)
            self._initial_weights = None

    def _call_arg_names(self):
        try:
            return inspect.signature(self.call).parameters
        except (TypeError, ValueError):
            return {}

    def __call__(self, inputs, *args, **kwargs):
        """Builds the layer on its first call, applies ``call`` in the layer's name scope, and
        records the call as a ``Node``."""
        inputs = map_structure(_to_tensor, inputs)
        flat = [x for x in flatten(inputs) if isinstance(x, ops.Tensor)]
        graph = flat[0].graph if flat else ops.get_default_graph()
        if not _CALL_FRAMES and any(t not in K._state(t.graph).history and not getattr(
                t, "_tf_layers_output", False) for t in flat):
            from tideflow.keras.engine import op_layer

            op_layer.create_history(flat)  # (TF 1.15's create_keras_history, here)
        call_args = self._call_arg_names()
        if "training" in kwargs and "training" not in call_args and not any(
                p.kind == p.VAR_KEYWORD for p in call_args.values()):
            kwargs.pop("training")
        if "mask" in kwargs and "mask" not in call_args:
            kwargs.pop("mask")
        masks = K._state(graph).masks
        input_masks = [masks.get(t) for t in flat]
        if "mask" in call_args and "mask" not in kwargs and any(
                m is not None for m in input_masks):
            kwargs["mask"] = input_masks[0] if len(input_masks) == 1 else input_masks
        explicit_mask, mask_passed = _passed_mask(call_args, args, kwargs)
        frame = ([], [], {id(t) for t in flat})
        _CALL_FRAMES.append(frame)
        try:
            with graph.as_default(), ops.name_scope(self._name):
                self._assert_input_compatibility(inputs)
                self._maybe_build(inputs)
                self._assert_input_compatibility(inputs)
                # as TF 1.15: a user's layer (or model) has its call converted by AutoGraph
                # as TF 1.15: autocast variables are read in this call's compute dtype
                with autocast_context(self._compute_dtype):
                    outputs = _call_as_converted(self, inputs, args, kwargs)
                self._sync_sublayers()  # (sublayers made in call)
                if outputs is None:
                    raise ValueError("A layer's `call` method should return a Tensor or a list "
                                     f"of Tensors, not None (layer: {self.name}).")
                # (instances of registered symbolic types pass as they are, as in TF)
                outputs = map_structure(
                    lambda o: o if isinstance(o, ops.Tensor) or is_registered_symbolic(o)
                    else _to_tensor(o), outputs)
                # an input handed back unchanged gets its own tensor (TF 1.x copies it), so
                # the call's node has outputs of its own (Lambda(lambda t: t) on an Input)
                # (under a scope of the layer's name, as TF 1.15's _set_connectivity_metadata_:
                # 'activation/activation/Identity')
                seen = {id(t) for t in flat}
                outputs = map_structure(
                    lambda o: self._copied_input(o) if id(o) in seen else o, outputs)
                if self.activity_regularizer is not None:
                    with ops.name_scope("ActivityRegularizer"):
                        for o in flatten(outputs):
                            loss = self.activity_regularizer(o)
                            batch = tf.cast(tf.shape(o)[0], loss.dtype)
                            self.add_loss(loss / batch, inputs=True)
                if (mask_passed or any(m is not None for m in input_masks)
                        or self._produces_mask
                        or type(self).compute_mask is not Layer.compute_mask):
                    # (as TF 1.15's _collect_input_masks: no masks at all is None)
                    in_mask = None if all(m is None for m in input_masks) else \
                        input_masks[0] if len(input_masks) == 1 else input_masks
                    if mask_passed:  # a mask handed to the call itself (TF 1.x)
                        in_mask = explicit_mask
                    out_flat = flatten(outputs)
                    # a call that set every output's _keras_mask itself made its masks (TF 1.15
                    # then makes none: Masking computes output and mask jointly)
                    out_masks = ([ops.KERAS_MASKS.get(o) for o in out_flat]
                                 if all(isinstance(o, ops.Tensor)
                                        and ops.KERAS_MASKS.get(o) is not None for o in out_flat)
                                 else self.compute_mask(inputs, in_mask))
                    # (a nested list of masks is flattened as the outputs, as TF's)
                    out_masks = flatten(out_masks) if isinstance(out_masks, (list, tuple)) \
                        else [out_masks] * len(out_flat)
                    for o, m in zip(out_flat, out_masks):
                        if isinstance(o, ops.Tensor):
                            # TF 1.x: every output of a mask-aware call carries _keras_mask
                            ops.KERAS_MASKS[o] = m
                            if m is not None:
                                masks[o] = m
        finally:
            _CALL_FRAMES.pop()
        # TF 1.x keras layers keep their updates to themselves (``layer.updates``,
        # ``get_updates_for``), out of GraphKeys.UPDATE_OPS, which only tf.layers fill
        self._add_node(inputs, outputs, kwargs, frame)
        return outputs

    def _add_node(self, inputs, outputs, kwargs, frame):
        node = Node(self, inputs, outputs, dict(kwargs), frame[0], frame[1])
        index = len(self._inbound_nodes)
        self._inbound_nodes.append(node)
        history = K._state().history
        for i, t in enumerate(node.output_tensors):
            if isinstance(t, (ops.Tensor, tf.SparseTensor, tf.RaggedTensor)) or \
                    is_registered_symbolic(t):
                history[t] = (self, index, i)
        return node

    def apply(self, inputs, *args, **kwargs):
        return self.__call__(inputs, *args, **kwargs)

    # -- configuration -------------------------------------------------------------------------
    def get_config(self):
        # as TF 1.15: the dtype the layer was given or took from its first input (None
        # before), after the input shape it was given
        config = {"name": self.name, "trainable": self.trainable}
        if hasattr(self, "_batch_input_shape"):
            config["batch_input_shape"] = self._batch_input_shape
        config["dtype"] = self._dtype
        if self.dynamic:
            config["dynamic"] = True
        # as TF 1.15: a layer whose __init__ takes arguments the config does not hold cannot
        # be rebuilt from it unless its class says how (overrides get_config)
        if type(self).get_config is Layer.get_config:
            args = inspect.getfullargspec(self.__init__).args
            extra = [a for a in args if a not in config and a != "dynamic"]
            if len(extra) > 1:  # (besides self)
                raise NotImplementedError("Layers with arguments in `__init__` must override "
                                          "`get_config`.")
        return config

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _masks_of(tensors):
    if isinstance(tensors, (list, tuple)):
        return [getattr(t, "_keras_mask", None) for t in tensors]
    return getattr(tensors, "_keras_mask", None)


def _input_keys(inputs):
    return {id(t) for t in flatten(inputs)}


def _depends_on(update, input_ids):
    """Whether ``update`` (an op or tensor) is computed from one of the tensors ``input_ids``
    (a walk up its inputs, stopping at them)."""
    if not input_ids:
        return False
    op = update if isinstance(update, ops.Operation) else getattr(update, "op", None)
    if op is None:
        return False
    stack, seen = [op], set()
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        for t in op.inputs:
            if id(t) in input_ids:
                return True
            stack.append(t.op)
        stack.extend(op.control_inputs)
    return False


def _call_as_converted(layer, inputs, args, kwargs):
    """``layer.call(inputs, ...)``; a user's layer's error as AutoGraph rewrites it in TF 1.15
    ("in converted code:" and the frames from the call down)."""
    call = _converted_call(layer)
    try:
        return call(inputs, *args, **kwargs)
    except Exception as e:
        if _from_package(getattr(layer.call, "__func__", None)):
            raise
        from tideflow.autograph import errors

        err = errors.converted_code_error(e, getattr(layer.call, "__func__", layer.call))
        if err is None:
            raise
        raise err from None


def _converted_call(layer):
    """``layer.call``, converted by AutoGraph when the layer's class is the user's (TF 1.15
    converts subclassed layers' and models' calls; its own layers' are left as they are)."""
    call = layer.call
    if _from_package(getattr(call, "__func__", None)):
        return call
    from tideflow.autograph import conversion

    return conversion.maybe_convert(call)


def _from_package(func):
    mod = getattr(func, "__module__", None) or ""
    return mod == "tideflow" or mod.startswith("tideflow.")



def __getattr__(name):
    # TF 1.15 defines TensorFlowOpLayer in this module (libraries import it from here; TF
    # Model Optimization's prune registry lists it); tideflow keeps it in op_layer
    if name == "TensorFlowOpLayer":
        from tideflow.keras.engine.op_layer import TensorFlowOpLayer

        return TensorFlowOpLayer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
