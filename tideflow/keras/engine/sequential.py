"""``Sequential``: a linear stack of layers. With an input shape on the first layer (or an
``InputLayer`` first) the graph is built as layers are added; otherwise at the first call,
``build`` or ``fit``."""

import contextlib

from tideflow.framework import ops
from tideflow.keras.engine.base_layer import Layer, flatten
from tideflow.keras.engine.input_layer import Input, InputLayer
from tideflow.keras.engine.training import Model


class Sequential(Model):
    """``Sequential([layer, ...])`` or ``Sequential()`` then ``add(layer)``."""

    def __init__(self, layers=None, name=None):
        super().__init__(name=name)
        self._stack = []
        self._input_layer = None
        self._build_input_shape = None
        if layers is not None and not isinstance(layers, (list, tuple)):
            layers = [layers]  # as TF 1.15: a single layer
        for layer in layers or []:
            self.add(layer)

    def _default_name(self):
        return "sequential"

    @property
    def layers(self):
        return list(self._stack)

    @property
    def input_spec(self):
        """As TF 1.15's Sequential: its first layer's input spec."""
        if self._stack:
            return getattr(self._stack[0], "input_spec", None)
        return self.__dict__.get("_own_input_spec")

    @input_spec.setter
    def input_spec(self, value):
        self.__dict__["_own_input_spec"] = value

    @property
    def _layers(self):
        """TF 1.x's own list: an InputLayer the program added first, then the layers."""
        explicit = getattr(self, "_explicit_input_layer", False) and self._input_layer
        return ([self._input_layer] if explicit else []) + list(self._stack)

    def compute_output_shape(self, input_shape):
        if self._is_graph_network and self.outputs:
            return super().compute_output_shape(input_shape)
        # as TF 1.15: a model not built yet chains its layers' output shapes
        from tideflow.framework.tensor_shape import TensorShape

        shape = input_shape
        for layer in self._stack:
            shape = layer.compute_output_shape(shape)
        return TensorShape(shape) if not isinstance(shape, list) else shape

    def add(self, layer):
        """Appends ``layer``; builds the graph now when the input shape is known."""
        if isinstance(layer, ops.Tensor):
            # as TF 1.15: an Input tensor adds the InputLayer behind it
            from tideflow.keras import backend as K

            origin = K._state(layer.graph).history.get(layer)
            if origin is not None and isinstance(origin[0], InputLayer):
                layer = origin[0]
        if not isinstance(layer, Layer):
            raise TypeError("The added layer must be an instance of class Layer. Found: "
                            f"{layer}")
        if isinstance(layer, InputLayer):
            if self._stack or self._input_layer is not None:
                raise ValueError("An InputLayer can only be the first layer of a Sequential "
                                 "model.")
            self._input_layer = layer
            self._explicit_input_layer = True
            x = layer._inbound_nodes[0].output_tensors[0]
            self.inputs = [x]
            self.outputs = [x]
            self._sublayers.append(layer)
            return
        # the same layer object may come back (a shared MaxPooling2D, official/r1/mnist);
        # only another layer of that name is an error, as in TF
        if any(la.name == layer.name and la is not layer for la in self._stack):
            raise ValueError(f'All layers added to a Sequential model should have unique '
                             f'names. Name "{layer.name}" is already the name of a layer in '
                             f"this model. Update the `name` argument to pass a unique name.")
        first_input = False
        if not self._stack and self._input_layer is None and hasattr(layer,
                                                                     "_batch_input_shape"):
            x = Input(batch_shape=layer._batch_input_shape, dtype=layer._dtype,
                      name=layer.name + "_input")
            self._input_layer = self._history_layer(x)
            self.inputs = [x]
            self.outputs = [x]
            first_input = True
        if self.outputs:
            out = layer(self.outputs[0])
            if len(flatten(out)) != 1:
                # as TF 1.15: ValueError for a first layer with its input shape, else TypeError
                raise (ValueError if first_input else TypeError)(
                    "All layers in a Sequential model should have a single output tensor. For "
                    "multi-output layers, use the functional API.")
        self._stack.append(layer)
        self._sublayers.append(layer)
        if self.outputs:
            self._init_graph_network(self.inputs, out)
            self._stack_outputs_ready()
        self._train_fn = self._test_fn = None

    def _history_layer(self, x):
        from tideflow.keras import backend as K

        return K._state(x.graph).history[x][0]

    def _stack_outputs_ready(self):
        self._sublayers = ([self._input_layer] if self._input_layer else []) + list(self._stack)
        if self._compiled:
            self._compile_graph()

    def pop(self):
        """Removes the last layer."""
        if not self._stack:
            raise TypeError("There are no layers in the model.")
        # as TF 1.15: the new last layer's output in this model's graph becomes the output
        # (its layers are not called again)
        nodes = list(getattr(self, "_network_nodes", None) or []) if self.inputs else []
        self._stack.pop()
        self._sublayers = ([self._input_layer] if self._input_layer else []) + list(self._stack)
        if not self._stack:
            # as TF 1.15: an emptied model has no inputs or outputs and is unbuilt
            self.outputs = None
            self.inputs = None
            self._input_layer = None
            self.built = False
            self._train_fn = self._test_fn = None
            return
        if self.inputs:
            last = self._stack[-1]
            x = next((n.output_tensors[0] for n in nodes if n.layer is last), None)
            if x is None:
                x = self.inputs[0]
                for layer in self._stack:
                    x = layer(x)
            self._init_graph_network(self.inputs, x)
            self._stack_outputs_ready()
        self._train_fn = self._test_fn = None

    def build(self, input_shape=None):
        if self.outputs and self._is_graph_network:
            return
        if input_shape is None:
            raise ValueError("You must provide an `input_shape` argument.")
        # as TF 1.15's Network.build of a model with no input layer: the layers run on a
        # plain placeholder (their weights made), the model stays without a graph of its own
        # (summary prints 'multiple'), and fit, evaluate or predict calls them again on an
        # Input in its name scope
        from tideflow.keras import backend as K

        self._build_input_shape = tuple(input_shape)
        self._deferred_call = "plain"
        self._built_by_build = True
        x = ops.convert_to_tensor(K.placeholder(shape=self._build_input_shape))
        for layer in self._stack:
            x = layer(x)
        self.built = True

    def _build_on(self, x, scope=None):
        flat = list(x.values()) if isinstance(x, dict) else [x]
        if len(flat) == 1 and flat[0].get_shape().ndims is not None:
            self._build_input_shape = tuple(flat[0].get_shape().as_list())
        self._input_layer = self._history_layer(flat[0]) if len(flat) == 1 else None
        self.inputs = flat
        with ops.name_scope(scope) if scope else contextlib.nullcontext():
            for layer in self._stack:
                x = layer(x)
        # as TF 1.15: a model built from its first call (or ``build``) has no node of its own
        self._init_graph_network(self.inputs, x, own_node=False)
        self._stack_outputs_ready()

    def _build_from_arrays(self, x):
        import numpy as np

        if getattr(self, "_built_by_build", False):
            # (TF 1.15: a model built by ``build`` sets its inputs as a subclassed model's,
            # its output named output_1)
            return Model._build_from_arrays(self, x)

        from tideflow.keras import backend as K

        def dtype_of(a):
            return K.floatx() if a.dtype.kind == "f" else (
                "string" if a.dtype.kind in "USO" else a.dtype.name)

        if isinstance(x, dict) and self._stack and _takes_dict(self._stack[0]):
            # a first layer of feature columns (DenseFeatures): one Input per feature, named
            # after it, called with the dict (as TF's Sequential fed a dict of columns)
            inputs = {}
            for key in sorted(x):
                a = np.asarray(x[key])
                shape = a.shape[1:] if a.ndim > 1 else (1,)
                inputs[key] = Input(batch_shape=(None,) + shape, dtype=dtype_of(a), name=key)
            self._build_on(inputs, scope=self.name)
            return
        if isinstance(x, (list, tuple, dict)):
            raise ValueError("A Sequential model takes a single input array.")  # noqa: TRY004
        if not isinstance(x, np.ndarray) and hasattr(x, "get_shape") and hasattr(x, "dtype"):
            # symbolic inputs: a tensor or variable (K.zeros)
            self._build_on(Input(batch_shape=(None,) + tuple(x.get_shape().as_list()[1:]),
                                 dtype=x.dtype.base_dtype.name), scope=self.name)
            return
        a = np.asarray(x)
        dtype = dtype_of(a)
        # as TF 1.15: built by its first fit/evaluate/predict, the model calls its layers in
        # its own name scope (sequential/dense/kernel:0)
        self._build_on(Input(batch_shape=(None,) + a.shape[1:], dtype=dtype), scope=self.name)

    def call(self, inputs, training=None, mask=None):
        if not (self._is_graph_network and self.outputs) and self._stack and isinstance(
                inputs, ops.Tensor) and inputs.get_shape().ndims is not None:
            # as TF 1.15: a Sequential with no input shape runs its layers on what it is
            # called with (in its name scope), and stays a model of no graph of its own
            # (its config gets no build_input_shape from such a call: TF 1.15 records one
            # only in build() and in fit/evaluate/predict of arrays)
            from tideflow.keras import backend as K

            if not getattr(self, "_deferred_call", None):
                keras = K._state(inputs.graph).history.get(inputs) is not None
                self._deferred_call = "keras" if keras else "plain"
        if self._is_graph_network and self.outputs and self.inputs:
            return self._run_internal_graph(inputs, training=training)
        x = inputs
        for layer in self._stack:
            kwargs = {}
            if training is not None and "training" in layer._call_arg_names():
                kwargs["training"] = training
            x = layer(x, **kwargs)
        if getattr(self, "_deferred_call", None) and not self.outputs:
            # as TF 1.15: the first call's tensors are the model's inputs and outputs
            self.inputs, self.outputs = [inputs], [x]
        return x

    def get_config(self):
        layers = [{"class_name": type(la).__name__, "config": la.get_config()}
                  for la in self._stack]
        if (getattr(self, "_explicit_input_layer", False) and self.outputs and layers
                and "batch_input_shape" not in layers[0]["config"]):
            # as TF 1.15: built from an explicit InputLayer, the model's config leaves the
            # InputLayer out and gives its first layer the input shape, so that from_config
            # (load_model) rebuilds the graph (on an Input named '<first layer>_input')
            layers[0]["config"]["batch_input_shape"] = self._input_layer._batch_input_shape
        config = {"name": self.name, "layers": layers}
        if self._build_input_shape is not None:
            # as TF 1.15: a model built late (build, first call or fit) records the shape
            config["build_input_shape"] = self._build_input_shape
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A Sequential model from ``get_config()``: ``{"name", "layers"}``, or the bare list
        of layer configs older Keras wrote."""
        from tideflow.keras import layers as layers_mod

        if isinstance(config, dict):
            name, layer_configs = config.get("name"), config["layers"]
            build_input_shape = config.get("build_input_shape")
        else:
            name, layer_configs, build_input_shape = None, config, None
        model = cls(name=name)
        for spec in layer_configs:
            model.add(layers_mod.deserialize(spec, custom_objects=custom_objects))
        if not model.inputs and build_input_shape:
            model.build(build_input_shape)
        return model

    def predict_classes(self, x, batch_size=32, verbose=0):
        proba = self.predict(x, batch_size=batch_size, verbose=verbose)
        if proba.shape[-1] > 1:
            return proba.argmax(axis=-1)
        return (proba > 0.5).astype("int32")

    def predict_proba(self, x, batch_size=32, verbose=0):
        return self.predict(x, batch_size=batch_size, verbose=verbose)


def _takes_dict(layer):
    """Whether ``layer`` is called on a dict of features (DenseFeatures)."""
    from tideflow.keras.layers.dense_features import DenseFeatures

    return isinstance(layer, DenseFeatures)
