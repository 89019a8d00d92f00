"""``Network``: a graph of layers traced back from output tensors to input tensors (the
functional API), callable on new inputs like a layer; or a subclassed model whose ``call`` the
user writes and whose layers are tracked as attributes."""

import itertools

import numpy as np

from tideflow.framework import ops
from tideflow.framework.nest import pack_sequence_as
from tideflow.framework.sparse_tensor import SparseTensor
from tideflow.keras import backend as K
from tideflow.keras._utils import is_registered_symbolic
from tideflow.keras.engine import op_layer
from tideflow.keras.engine.base_layer import Layer, Node, _merged, flatten, map_structure, to_list
from tideflow.keras.engine.input_layer import InputLayer
from tideflow.ops.ragged_tensor import RaggedTensor


def _history(t):
    if isinstance(t, ops.Tensor):
        return K._state(t.graph).history.get(t)
    if isinstance(t, SparseTensor):  # (an Input(sparse=True)'s)
        return K._state(t.indices.graph).history.get(t)
    if isinstance(t, RaggedTensor):  # (an Input(ragged=True)'s)
        return K._state(t.flat_values.graph).history.get(t)
    if is_registered_symbolic(t):  # (a registered symbolic value: the current graph's)
        return K._state().history.get(t)
    return None


def _keras_order(layers, nodes, first_seen):
    """Keras's order of a network's layers: by decreasing depth (the longest path from the
    layer to an output), ties by the order in which the walk from the outputs first met them.
    ``nodes`` are in post-order (every node after the nodes it consumes)."""
    node_depth, layer_depth = {}, {}
    for node in reversed(nodes):
        depth = max(node_depth.get(id(node), 0), layer_depth.get(id(node.layer), 0))
        layer_depth[id(node.layer)] = depth
        node_depth[id(node)] = depth
        for x in node.input_tensors:
            h = _history(x)
            if h is not None:
                dep = h[0]._inbound_nodes[h[1]]
                node_depth[id(dep)] = max(depth + 1, node_depth.get(id(dep), 0))

    def depth(la):
        d = layer_depth.get(id(la))
        if d is None and isinstance(la, InputLayer):  # its node is not among ``nodes``
            d = node_depth.get(id(la._inbound_nodes[0]), 0)
        return d or 0

    # an input the outputs do not use: depth 0, before the rest of it (as TF)
    return sorted(layers, key=lambda la: (-depth(la), first_seen.get(id(la), -1)))


class Network(Layer):
    """A functional network ``Network(inputs, outputs)`` or, with no ``inputs``/``outputs``, the
    base of a subclassed model."""

    def __init__(self, *args, **kwargs):
        inputs = kwargs.pop("inputs", None)
        outputs = kwargs.pop("outputs", None)
        if len(args) >= 2 and inputs is None:
            inputs, outputs = args[0], args[1]
            args = args[2:]
        elif len(args) == 1 and inputs is None and outputs is not None:
            inputs, args = args[0], ()
        name = kwargs.pop("name", None)
        trainable = kwargs.pop("trainable", True)
        self._is_graph_network = False
        self.inputs = []
        self.outputs = []
        self._network_nodes = []
        self._layers_list = []
        self._output_node = None
        if inputs is not None and outputs is not None:
            Layer.__init__(self, name=name or K.unique_object_name(self._default_name()),
                           trainable=trainable)
            self._init_graph_network(inputs, outputs)
        else:
            # as TF 1.15: a subclassed model takes dtype, dynamic and autocast too
            extra = {k: v for k, v in kwargs.items() if k not in ("dtype", "dynamic",
                                                                   "autocast")}
            if args or extra:
                raise TypeError("Model() takes `inputs` and `outputs` (functional API) or "
                                f"no arguments (subclassing); got {args} {list(extra)}")
            Layer.__init__(self, name=name or K.unique_object_name(self._default_name()),
                           trainable=trainable, **kwargs)

    def _default_name(self):
        from tideflow.keras._utils import snake_case

        cls = type(self).__name__
        if cls in ("Model", "Network"):
            return "model"
        return snake_case(cls)

    # -- the functional graph ------------------------------------------------------------------------
    def _extended_by_one_node(self, inputs, outputs):
        """Where the new network is the one mapped last plus one new layer called on its
        single output (``Sequential.add``), its (nodes, layers) extended by that layer, else
        None. ``_map_graph_network`` would give the same: every old node is one step further
        from the output and keeps its place, the new one comes last. Spares re-walking the
        whole network on every add (quadratic in the number of layers)."""
        m = self.__dict__.get("_graph_map")
        if m is None or len(outputs) != 1 or len(inputs) != len(m["inputs"]) or any(
                a is not b for a, b in zip(inputs, m["inputs"])):
            return None
        prev = m["output"]
        if prev is None or self._network_nodes is not m["nodes"] or (
                self._layers_list is not m["layers"]):
            return None  # remapped or changed since
        h = _history(outputs[0])
        if h is None or isinstance(h[0], InputLayer):
            return None
        layer, node = h[0], h[0]._inbound_nodes[h[1]]
        node_inputs = [x for x in node.input_tensors if isinstance(x, ops.Tensor)]
        if len(node_inputs) != 1 or node_inputs[0] is not prev or (
                id(layer) in m["layer_ids"]) or id(node) in m["node_ids"]:
            return None
        return m["nodes"] + [node], m["layers"] + [layer]

    def _remember_graph_map(self):
        nodes, layers = self._network_nodes, self._layers_list
        single = len(self.outputs) == 1 and not any(self.outputs[0] is t for t in self.inputs)
        self._graph_map = {"inputs": tuple(self.inputs), "nodes": nodes, "layers": layers,
                           "output": self.outputs[0] if single else None,
                           "node_ids": {id(n) for n in nodes},
                           "layer_ids": {id(la) for la in layers}}

    def _init_graph_network(self, inputs, outputs, own_node=True):
        # as TF 1.15: a list holding one tensor stands for that tensor (calling a model built
        # with outputs=[x] returns a tensor, not a list of one)
        if isinstance(inputs, list) and len(flatten(inputs)) == 1:
            inputs = inputs[0]
        if isinstance(outputs, list) and len(flatten(outputs)) == 1:
            outputs = outputs[0]
        self._nested_inputs = inputs
        self._nested_outputs = outputs
        inputs = [self._as_input(t) for t in flatten(inputs)]
        outputs = flatten(outputs)
        batches = {t.get_shape().as_list()[0] for t in inputs if t.get_shape().ndims}
        batches.discard(None)
        if len(batches) > 1:
            raise ValueError("The specified batch sizes of the Input Layers are incompatible. "
                             f"Found batch sizes: {sorted(batches)}")
        for t in outputs:
            if not (isinstance(t, ops.Tensor) or is_registered_symbolic(t)):
                raise ValueError(f"Output tensors to a Model must be the output of a Keras "
                                 f"`Layer` (thus holding past layer metadata). Found: {t}")
        extended = self._extended_by_one_node(inputs, outputs)
        self.inputs, self.outputs = inputs, outputs
        if extended is None:
            self._network_nodes, self._layers_list = self._map_graph_network()
            self._remember_graph_map()
        else:
            self._network_nodes, self._layers_list = extended
            m = self._graph_map
            m.update(nodes=self._network_nodes, layers=self._layers_list,
                     output=self.outputs[0])
            m["node_ids"].add(id(self._network_nodes[-1]))
            m["layer_ids"].add(id(self._layers_list[-1]))
        self._is_graph_network = True
        self.built = True
        if own_node:
            self._link_own_node()
        self._sublayers = [la for la in self._layers_list]
        self.input_names = [h[0].name for h in map(_history, self.inputs)]
        self.output_names = []
        for t in self.outputs:
            name = _history(t)[0].name
            if name in self.output_names:  # one layer giving several outputs
                name = f"{name}_{len(self.output_names)}"
            self.output_names.append(name)
        batch_shape = self.inputs[0].get_shape()
        if batch_shape.ndims is not None and len(self.inputs) == 1:
            self._batch_input_shape = tuple(batch_shape.as_list())

    def _link_own_node(self):
        """TF 1.x: a graph network's node 0 links its own inputs to its outputs (no inbound
        layers), so ``get_input_at(0)`` / ``get_output_at(0)`` are the model's input / output;
        rebuilding the network (``Sequential.add``) replaces that node."""
        one = (lambda ts: ts[0] if len(ts) == 1 else list(ts))
        node = Node(self, one(self.inputs), one(self.outputs), {}, [], [])
        node.inbound_layers = []
        node.own_network_node = True
        nodes = self._inbound_nodes
        if nodes and getattr(nodes[0], "own_network_node", False):
            nodes[0] = node
        elif not nodes:
            nodes.append(node)

    def _map_graph_network(self):
        """The nodes of the network from ``self.inputs`` to ``self.outputs`` (post-order) and
        its layers in Keras's order."""
        nodes, layers = [], []
        layer_ids = set()  # id() of the layers listed (a list scan per node is quadratic)
        seen_nodes = set()
        input_ids = {id(t) for t in self.inputs}
        from_keras = op_layer.from_keras_tensors(input_ids)
        used_inputs = set()
        first_seen = {}  # id(layer) -> rank of its first visit (pre-order), Keras's tie-break

        def visit(t, path):
            if id(t) in input_ids:
                used_inputs.add(id(t))
                h = _history(t)
                if h is not None:
                    first_seen.setdefault(id(h[0]), len(first_seen))
                if h is not None and id(h[0]) not in layer_ids:
                    layer_ids.add(id(h[0]))
                    layers.append(h[0])
                return
            h = _history(t)
            if h is None and isinstance(t, ops.Tensor) and op_layer.wrap_tensor(
                    t, from_keras, force=path == "output"):
                # as TF 1.15: a TF op on Keras tensors becomes a layer (an output's op does
                # even on no Keras tensor: all its inputs are then constants)
                h = _history(t)
            if h is None:
                raise ValueError(
                    f"Graph disconnected: cannot obtain value for tensor {t} at layer "
                    f'"{path}". The following previous layers were accessed without issue: '
                    f"{[layer.name for layer in layers]}")
            layer, node_index, _ = h
            if isinstance(layer, InputLayer):
                raise ValueError(  # noqa: TRY004
                    f"Graph disconnected: cannot obtain value for tensor {t} at layer "
                    f'"{layer.name}". The following previous layers were accessed without '
                    f"issue: {[la.name for la in layers if la is not layer]}")
            node = layer._inbound_nodes[node_index]
            if id(node) in seen_nodes:
                return
            seen_nodes.add(id(node))
            first_seen.setdefault(id(layer), len(first_seen))
            for x in node.input_tensors:
                if isinstance(x, ops.Tensor):
                    visit(x, layer.name)
            nodes.append(node)
            if id(layer) not in layer_ids:
                layer_ids.add(id(layer))
                layers.append(layer)

        for t in self.outputs:
            visit(t, "output")
        # as TF: the InputLayers take their places by depth like the other layers (a
        # multi-input model's inputs are not all first)
        for t in self.inputs:
            h = _history(t)
            if h is not None and id(h[0]) not in layer_ids:
                layer_ids.add(id(h[0]))
                layers.append(h[0])
        return nodes, _keras_order(layers, nodes, first_seen)

    def _as_input(self, t):
        if not isinstance(t, (ops.Tensor, SparseTensor, RaggedTensor)):
            raise ValueError(f"Input tensors to a Model must come from `tf.keras.Input`. "  # noqa: TRY004
                             f"Received: {t} (missing previous layer metadata).")
        h = _history(t)
        if h is None:  # a plain placeholder: wrap it in an InputLayer
            InputLayer(input_tensor=t)
        elif not isinstance(h[0], InputLayer):
            raise ValueError(f"Input tensors to a Model must come from `tf.keras.Input`. "
                             f"Received: {t} (an output of layer {h[0].name}).")
        return t

    def _own(self, tensors, what):
        if not tensors:
            # (a model not called yet: TF 1.15's Layer messages)
            raise AttributeError({
                "input": f"Layer {self.name} is not connected, no input to return.",
                "output": f"Layer {self.name} has no inbound nodes."}.get(
                    what, f"The layer has never been called and thus has no defined {what}."))
        return tensors[0] if len(tensors) == 1 else list(tensors)

    @property
    def input(self):
        return self._own(self.inputs, "input")

    @property
    def output(self):
        return self._own(self.outputs, "output")

    @property
    def input_shape(self):
        shapes = [tuple(t.get_shape().as_list()) for t in self.inputs]
        return self._own(shapes, "input shape")

    @property
    def output_shape(self):
        shapes = [tuple(t.get_shape().as_list()) for t in self.outputs]
        return self._own(shapes, "output shape")

    @property
    def layers(self):
        if self._is_graph_network:
            return list(self._layers_list)
        self._sync_sublayers()
        return list(self._sublayers)

    def add_loss(self, losses, inputs=None):
        super().add_loss(losses, inputs)
        from tideflow.keras.engine import base_layer

        if getattr(self, "_is_graph_network", False) and not base_layer._CALL_FRAMES:
            self._track_loss_layers(losses)

    def _track_loss_layers(self, losses):
        """As TF's functional models: the layers a symbolic loss added to the model was
        computed with (through plain TF ops on the model's tensors, e.g. an auxiliary loss
        with a DNN of its own) become the model's too: their weights are trained."""
        stop = {id(t) for t in self.inputs}
        known = {id(la) for la in self._sublayers}
        seen, stack = set(), [t for t in flatten(losses) if isinstance(t, ops.Tensor)]
        while stack:
            t = stack.pop()
            if id(t) in seen or id(t) in stop:
                continue
            seen.add(id(t))
            h = _history(t)
            if h is not None and id(h[0]) not in known and not isinstance(h[0], InputLayer):
                known.add(id(h[0]))
                self._sublayers.append(h[0])
            stack.extend(t.op.inputs)

    def get_layer(self, name=None, index=None):
        """The layer called ``name``, or at ``index`` in ``layers``."""
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError(f"Was asked to retrieve layer at index {index} but model only "
                                 f"has {len(self.layers)} layers.")
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}")

    def reset_states(self):
        """Resets the states of the stateful layers (stateful RNNs) to zeros."""
        for layer in self.layers:
            if getattr(layer, "stateful", False) and hasattr(layer, "reset_states"):
                layer.reset_states()

    def _model_nodes(self):
        if self._is_graph_network:
            return self._network_nodes
        return [self._output_node] if self._output_node is not None else []

    @property
    def updates(self):
        """As TF 1.x: the update ops of every call of this model's layers (a discriminator
        called on real and generated batches holds both calls'), none when the model is
        frozen; a step runs those of the calls computing its outputs (``_model_updates``)."""
        if not self.trainable and not getattr(self, "stateful", False):
            return []
        return Layer.updates.fget(self)

    def _model_updates(self):
        """The update ops (e.g. BatchNormalization's moving statistics) of the calls that
        compute this model's outputs: what fit runs (TF's get_updates_for(None) and
        get_updates_for(inputs))."""
        if not self.trainable and self._is_graph_network:
            return []
        frozen = self._frozen_updates()
        out = []
        for node in self._model_nodes():
            for u in node.updates:
                if id(u) in frozen:
                    continue  # as TF 1.x: a layer with trainable=False has no updates
                if not any(u is o for o in out):
                    out.append(u)
        if not self._model_nodes():
            return Layer.updates.fget(self)
        # as TF 1.x: with them the layers' unconditional updates (made in a call but not from
        # its inputs, e.g. a pruning wrapper's mask update)
        for u in self._unconditional_update_list():
            if id(u) not in frozen and not any(u is o for o in out):
                out.append(u)
        return out

    def _frozen_updates(self):
        """The ids of the updates made by the layers within this model whose updates do not
        run: those with ``trainable=False`` (unless stateful) and everything inside them."""
        frozen, seen = set(), set()

        def _children(layer):
            # a plain layer's own ``layers`` attribute may be anything (a count, a list of
            # names): only a Network's ``layers`` are its sublayers
            subs = list(layer.layers) if isinstance(layer, Network) else []
            return subs + list(getattr(layer, "_sublayers", None) or [])

        def inside(layer):
            out = [layer]
            for sub in _children(layer):
                if id(sub) not in seen:
                    seen.add(id(sub))
                    out += inside(sub)
            return out

        def walk(layer):
            for sub in _children(layer):
                if not sub.trainable and not getattr(sub, "stateful", False):
                    frozen.update(id(u) for x in inside(sub)
                                  for u in getattr(x, "_updates", ()))
                else:
                    walk(sub)

        walk(self)
        return frozen

    def get_updates_for(self, inputs):
        if inputs is not None and self._is_graph_network and {id(t) for t in flatten(
                inputs)} == {id(t) for t in self.inputs}:
            return self._model_updates()
        return Layer.get_updates_for(self, inputs)

    @property
    def losses(self):
        """Weight regularization losses of all layers, plus the losses (activity
        regularization) of the calls that compute the outputs."""
        out = self._unconditional_losses()
        for node in self._model_nodes():
            for x in node.losses:
                if not any(x is o for o in out):
                    out.append(x)
        if not self._model_nodes():
            out += [x for x in self._call_losses if not any(x is o for o in out)]
        return out

    def call(self, inputs, training=None, mask=None):
        if not self._is_graph_network:
            raise NotImplementedError("When subclassing the `Model` class, you should implement "
                                      "a `call` method.")
        return self._run_internal_graph(inputs, training=training)

    def _run_internal_graph(self, inputs, training=None):
        flat = flatten(inputs)
        if len(flat) != len(self.inputs):
            raise ValueError(f"Model {self.name} expects {len(self.inputs)} input(s), but it "
                             f"received {len(flat)} input tensors. Inputs received: {inputs}")
        tensor_map = {}
        for ref, x in zip(self.inputs, flat):
            tensor_map[id(ref)] = x
        for node in self._network_nodes:
            layer = node.layer
            new_inputs = map_structure(
                lambda t: tensor_map.get(id(t), t) if isinstance(t, ops.Tensor) else t,
                node.inputs)
            kwargs = dict(node.arguments)
            if training is not None and "training" in layer._call_arg_names():
                kwargs.setdefault("training", training)
            outs = layer(new_inputs, **kwargs)
            for ref, new in zip(node.output_tensors, flatten(outs)):
                tensor_map[id(ref)] = new
        outs = [tensor_map[id(t)] for t in self.outputs]
        if isinstance(self._nested_outputs, list) and len(self._nested_outputs) == len(outs):
            return outs
        if isinstance(self._nested_outputs, (list, tuple, dict)):
            # as TF: in the structure the outputs were given (a tuple of dicts stays one)
            return pack_sequence_as(self._nested_outputs, outs)
        return outs[0]

    def compute_output_shape(self, input_shape):
        if self._is_graph_network and self.outputs:
            # TensorShapes in the structure the outputs were given, as TF 1.15's (the outputs'
            # static shapes: TF's for the model's own input shape)
            shapes = [t.get_shape() for t in self.outputs]
            if isinstance(self._nested_outputs, (list, tuple, dict)):
                return pack_sequence_as(self._nested_outputs, shapes)
            return shapes[0]
        raise NotImplementedError

    def _set_output_node(self, outputs):
        h = _history(flatten(outputs)[0])
        if h is not None and h[0] is self:
            self._output_node = self._inbound_nodes[h[1]]

    # -- weights -----------------------------------------------------------------------------------
    def _assert_weights_created(self):
        """As TF 1.15's: a model with a build() of its own (a Sequential of no input shape, a
        subclassed model defining build) that has not been built has no weights to list."""
        if (not self.built and not self.__dict__.get("_is_graph_network")
                and "build" in type(self).__dict__ and not self.dynamic):
            raise ValueError(f"Weights for model {self.name} have not yet been created. "
                             "Weights are created when the Model is first called on inputs "
                             "or `build()` is called with an `input_shape`.")

    @property
    def trainable_weights(self):
        # as TF's Network (unlike a plain Layer): the layers' weights first, then the model's own
        self._assert_weights_created()
        if not self.trainable:
            return []
        self._sync_sublayers()
        return _merged([], itertools.chain(
            (layer.trainable_weights for layer in self._sublayers), (self._trainable_weights,)))

    @property
    def non_trainable_weights(self):
        self._assert_weights_created()
        self._sync_sublayers()
        layers = self._sublayers
        frozen = () if self.trainable else itertools.chain(
            (layer.trainable_weights for layer in layers), (self._trainable_weights,))
        return _merged([], itertools.chain(
            frozen, (layer.non_trainable_weights for layer in layers),
            (self._non_trainable_weights,)))

    @property
    def weights(self):
        # as TF's Network: layer by layer (each layer's trainable then non-trainable weights),
        # then the model's own; not all trainable weights before all non-trainable ones
        self._assert_weights_created()
        self._sync_sublayers()
        return _merged([], itertools.chain(
            self._weights_by_layer(), (self._trainable_weights, self._non_trainable_weights)))

    def _weights_by_layer(self):
        """Each sublayer's weights; the layers of a list attribute as one (TF 1.15's
        ListWrapper: all their trainable weights, then all their non-trainable ones), where
        its first layer comes."""
        lists = [c for c in self.__dict__.get("_layer_containers", {}).values()
                 if isinstance(c, list)]
        group_of = {}
        for c in lists:
            for layer in c:
                if isinstance(layer, Layer):
                    group_of.setdefault(id(layer), c)
        done = set()
        for layer in self._sublayers:
            group = group_of.get(id(layer))
            if group is None:
                yield layer.weights
            elif id(group) not in done:
                done.add(id(group))
                members = [la for la in group if isinstance(la, Layer)]
                yield [w for la in members for w in la.trainable_weights] + [
                    w for la in members for w in la.non_trainable_weights]

    def get_weights(self):
        return K.batch_get_value(self.weights)

    def set_weights(self, weights):
        params = self.weights
        if len(params) != len(weights):
            raise ValueError(f"You called `set_weights(weights)` on model {self.name} with a "
                             f"weight list of length {len(weights)}, but the model was "
                             f"expecting {len(params)} weights.")
        tuples = []
        for p, w in zip(params, weights):
            w = np.asarray(w)
            if tuple(p.get_shape().as_list()) != w.shape:
                raise ValueError(f"Layer weight shape {tuple(p.get_shape().as_list())} not "
                                 f"compatible with provided weight shape {w.shape} "
                                 f"(variable {p.name}).")
            tuples.append((p, w))
        K.batch_set_value(tuples)

    def summary(self, line_length=None, positions=None, print_fn=None):
        """Prints a table of the layers: name (type), output shape, parameter count."""
        from tideflow.keras.utils import print_summary

        if not self.built:
            raise ValueError("This model has not yet been built. Build the model first by "
                             "calling `build()` or calling `fit()` with some data, or specify "
                             "an `input_shape` argument in the first layer(s) for automatic "
                             "build.")
        print_summary(self, line_length=line_length, positions=positions, print_fn=print_fn)

    def get_config(self):
        """The layers (class, config, and the calls in this model as ``inbound_nodes``: for
        each call, ``[source layer, its call number in this model, output index, {}]`` per
        input) and the input and output layers."""
        if not self._is_graph_network:
            raise NotImplementedError  # (TF 1.15's, without a message)
        in_model = {id(n) for n in self._network_nodes}

        def local(t):
            layer, node_index, tensor_index = _history(t)
            if isinstance(layer, InputLayer):
                return [layer.name, 0, tensor_index]
            mine = [n for n in layer._inbound_nodes if id(n) in in_model]
            node = layer._inbound_nodes[node_index]
            return [layer.name, _first_node(layer) + next(i for i, n in enumerate(mine)
                                                          if n is node), tensor_index]

        layers = []
        for layer in self._layers_list:
            inbound = [[local(t) + [_node_kwargs(node)] for t in node.input_tensors]
                       for node in layer._inbound_nodes if id(node) in in_model]
            layers.append({"name": layer.name, "class_name": type(layer).__name__,
                           "config": layer.get_config(), "inbound_nodes": inbound})
        return {"name": self.name, "layers": layers,
                "input_layers": [local(t) for t in self.inputs],
                "output_layers": [local(t) for t in self.outputs]}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A functional model from ``get_config``'s output: the layers are made from their
        configs and called as recorded in ``inbound_nodes``."""
        from tideflow.keras import layers as layers_mod
        from tideflow.keras.engine.input_layer import InputLayer

        made, outputs_of = {}, {}
        pending = list(config["layers"])
        for spec in pending:
            if spec["class_name"] == "InputLayer":
                layer = InputLayer(**spec["config"])
            else:
                layer = layers_mod.deserialize(spec, custom_objects=custom_objects)
            made[spec["name"]] = layer
            if isinstance(layer, InputLayer):
                outputs_of[(spec["name"], 0)] = layer._inbound_nodes[0].output_tensors
        progress = True
        while progress:
            progress = False
            for spec in pending:
                layer = made[spec["name"]]
                for node_index, inbound in enumerate(spec.get("inbound_nodes", []),
                                                     _first_node(layer)):
                    key = (spec["name"], node_index)
                    if key in outputs_of:
                        continue
                    if not all((src, idx) in outputs_of for src, idx, _, _ in inbound):
                        continue
                    args = [outputs_of[(src, idx)][t] for src, idx, t, _ in inbound]
                    kwargs = dict(inbound[-1][3]) if inbound and inbound[-1][3] else {}
                    out = layer(args[0] if len(args) == 1 else args, **kwargs)
                    outputs_of[key] = flatten(out)
                    progress = True
        inputs = [outputs_of[(name, idx)][t] for name, idx, t in config["input_layers"]]
        outputs = [outputs_of[(name, idx)][t] for name, idx, t in config["output_layers"]]
        return cls(inputs=inputs if len(inputs) > 1 else inputs[0],
                   outputs=outputs if len(outputs) > 1 else outputs[0], name=config.get("name"))

    def to_json(self, **kwargs):
        import json

        from tideflow.keras.layers.core import json_ready

        return json.dumps({"class_name": type(self).__name__,
                           "config": json_ready(self.get_config()),
                           "keras_version": "2.2.4-tf", "backend": "tensorflow"},
                          default=_json_default, **kwargs)

    def to_yaml(self, **kwargs):
        """The model's config as YAML (needs PyYAML; without it, Keras's ``ImportError``)."""
        import json

        try:
            import yaml
        except ImportError:
            raise ImportError("Requires yaml module installed (`pip install pyyaml`).") \
                from None
        return yaml.dump(json.loads(self.to_json()), **kwargs)


def _first_node(layer):
    """As TF 1.15's configs: a nested functional model's calls are numbered after its own
    first node (its inputs to its outputs), which no config holds."""
    return int(isinstance(layer, Network) and bool(layer._is_graph_network))


def _json_default(obj):
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if hasattr(obj, "get_config"):
        return {"class_name": type(obj).__name__, "config": obj.get_config()}
    if hasattr(obj, "name"):
        return str(obj.name)
    if callable(obj):
        if getattr(obj, "__name__", "") == "<lambda>" and hasattr(obj, "__code__"):
            from tideflow.keras.layers.core import lambda_for_json

            return lambda_for_json(obj)  # as Keras: a lambda as its bytecode
        return getattr(obj, "__name__", str(obj))
    return str(obj)


__all__ = ["Network", "to_list"]


def _node_kwargs(node):
    """The keyword arguments of a call that a config can hold (``training=True``...): as TF,
    those that are not JSON-serializable (tensors, such as the inputs' masks) are left out."""
    import json

    out = {}
    for key, value in node.arguments.items():
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            continue
        out[key] = value
    return out
