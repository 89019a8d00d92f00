"""The ``tf.layers.Layer`` base: a callable owning variables made by ``tf.get_variable`` in its own
variable scope, plus ``InputSpec``, ``smart_cond`` and the argument normalizers layers share.

As in TF 1.x, a layer's variable scope is fixed at its first use (``<scope>/dense``,
``dense_1``... or the ``name`` given to a functional layer), its ops live in that scope's name
scope, and calls after the first reuse its variables.
"""

import contextlib
import inspect
import re
import sys

import numpy as np

from tideflow.framework import dtypes, ops
from tideflow.framework.tensor_shape import Dimension, TensorShape
from tideflow.ops import array_ops, cast_ops, variables
from tideflow.ops import variable_scope as vs

_LAYER_NAME_UIDS_KEY = ("__layer_name_uids",)


# TF 1.x's keras_style_scope switch: layers made while it is on behave as Keras layers (no
# variable scope, scope or reuse; variables named by the name scopes they are built in)
_KERAS_STYLE = [False]


@contextlib.contextmanager
def keras_style_scope():
    """Layers (and RNN cells) created inside are Keras-style: they take their variables' names
    from the name scopes they are called in, and never share variables through variable-scope
    reuse (TF 1.x's ``tf.layers.experimental.keras_style_scope``)."""
    old = _KERAS_STYLE[0]
    _KERAS_STYLE[0] = True
    try:
        yield
    finally:
        _KERAS_STYLE[0] = old


def set_keras_style():
    """Makes every layer created from now on Keras-style (see :func:`keras_style_scope`)."""
    _KERAS_STYLE[0] = True


def _root_graph(graph):
    while getattr(graph, "outer_graph", None) is not None:
        graph = graph.outer_graph
    return graph


def _to_snake_case(name):
    s = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    s = re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()
    return "private" + s if s[0] == "_" else s


def layer_name_uids(graph=None):
    """The graph's counts of layer names, which tf.layers and Keras layers share, as TF 1.15's
    per-graph object-name uids (a Keras Conv2DTranspose made after two tf.layers ones is
    'conv2d_transpose_2')."""
    graph = _root_graph(graph if graph is not None else ops.get_default_graph())
    coll = graph.get_collection_ref(_LAYER_NAME_UIDS_KEY)
    if not coll:
        coll.append({})
    return coll[0]


def _unique_layer_name(base):
    """``base_1``, ``base_2``... per graph (TF numbers layer names from 1)."""
    uids = layer_name_uids()
    uids[base] = uids.get(base, 0) + 1
    return f"{base}_{uids[base]}"


def _flatten(x):
    if isinstance(x, (list, tuple)):
        return [leaf for item in x for leaf in _flatten(item)]
    if isinstance(x, dict):
        return [leaf for k in sorted(x) for leaf in _flatten(x[k])]
    return [x]


def _map(fn, x):
    if isinstance(x, tuple) and hasattr(x, "_fields"):  # a namedtuple (LSTMStateTuple)
        return type(x)(*[_map(fn, item) for item in x])
    if isinstance(x, (list, tuple)):
        return type(x)(_map(fn, item) for item in x)
    if isinstance(x, dict):
        return {k: _map(fn, v) for k, v in x.items()}
    return fn(x)


def _as_tensor(x):
    if isinstance(x, (ops.Tensor, ops.Operation)) or x is None:
        return x
    return ops.convert_to_tensor(x)


def static_bool(pred):
    """``pred`` as a Python bool when known before running, else None."""
    if isinstance(pred, (bool, np.bool_)):
        return bool(pred)
    if isinstance(pred, int) and pred in (0, 1):
        return bool(pred)
    if isinstance(pred, ops.Tensor) or hasattr(pred, "_as_graph_element"):
        value = ops.constant_value(ops.convert_to_tensor(pred))
        return None if value is None else bool(value)
    raise TypeError(f"`pred` must be a Tensor, or a Python bool, or 1 or 0. Found instead: {pred}")


def smart_cond(pred, true_fn, false_fn, name=None):
    """``true_fn()`` or ``false_fn()`` when ``pred`` is known statically, else ``tf.cond``
    (only the taken branch runs, and the branches' results may differ in shape)."""
    value = static_bool(pred)
    if value is not None:
        return true_fn() if value else false_fn()
    from tideflow.ops.cond import cond  # late: cond's module loads after this one

    return cond(pred, true_fn, false_fn, name=name)


# ------------------------------------------------------------------------------------------
# argument normalization (TF's conv_utils)
# ------------------------------------------------------------------------------------------


def activation_fn(activation):
    """A layer's ``activation`` argument as a function: as TF 1.15's ``tf.layers`` (Keras
    layers underneath), a name (``'relu'``, ``'tanh'``...) is Keras's activation of that name."""
    if isinstance(activation, str):
        from tideflow.keras import activations

        return activations.get(activation)
    return activation


def normalize_tuple(value, n, name):
    """An int or an iterable of ``n`` ints as a tuple of ``n`` ints."""
    if isinstance(value, (int, np.integer)):
        return (int(value),) * n
    given = value  # (TF's message shows the value as given)
    try:
        value = tuple(value)
    except TypeError:
        raise ValueError(
            f"The `{name}` argument must be a tuple of {n} integers. Received: {value}"
        ) from None
    # a known Dimension counts as an int (TF only asks int() of each value), so a layer can
    # take e.g. ``images.get_shape()[1:3]``
    if len(value) != n or not all(isinstance(v, (int, np.integer)) or (
            isinstance(v, Dimension) and v.value is not None) for v in value):
        raise ValueError(
            f"The `{name}` argument must be a tuple of {n} integers. Received: {given}"
        )
    return tuple(int(v) for v in value)


def normalize_padding(value):
    padding = value.lower()
    if padding not in ("valid", "same"):
        raise ValueError('The `padding` argument must be a list/tuple or one of "valid", '
                         '"same" (or "causal", only for `Conv1D). Received: '
                         f"{padding}")
    return padding


def normalize_data_format(value):
    data_format = (value or "channels_last").lower()
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError('The `data_format` argument must be one of "channels_first", '
                         f'"channels_last". Received: {value}')
    return data_format


# ------------------------------------------------------------------------------------------
# InputSpec
# ------------------------------------------------------------------------------------------


class InputSpec:
    """What a layer accepts: dtype, rank (``ndim``/``min_ndim``/``max_ndim``), a full
    ``shape`` or sizes of some ``axes`` ({axis: size})."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None):
        self.dtype = None if dtype is None else dtypes.as_dtype(dtype).name
        self.shape = shape
        self.ndim = len(shape) if shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = axes or {}

    def get_config(self):
        """TF 1.15's six fields, set or not."""
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim,
                "max_ndim": self.max_ndim, "min_ndim": self.min_ndim, "axes": self.axes}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        # as TF 1.15: only the fields that are set (and not 0 or empty)
        fields = ("dtype", "shape", "ndim", "max_ndim", "min_ndim", "axes")
        return "InputSpec({})".format(", ".join(f"{k}={getattr(self, k)}" for k in fields
                                                if getattr(self, k)))

    def check(self, x, layer_name, index=0):
        # TF 1.15's words, each check's own (the min_ndim one with its doubled colon)
        where = f"Input {index} of layer {layer_name} is incompatible with the layer: "
        shape = x.get_shape()
        rank = shape.ndims
        if (self.ndim is not None or self.min_ndim is not None
                or self.max_ndim is not None) and rank is None:
            raise ValueError(where + "its rank is undefined, but the layer requires a "
                             "defined rank.")
        full = f"Full shape received: {shape.as_list() if rank is not None else None}"
        if self.ndim is not None and rank != self.ndim:
            raise ValueError(where + f"expected ndim={self.ndim}, found ndim={rank}. {full}")
        if self.max_ndim is not None and rank > self.max_ndim:
            raise ValueError(where + f"expected max_ndim={self.max_ndim}, found ndim={rank}")
        if self.min_ndim is not None and rank < self.min_ndim:
            raise ValueError(where + f": expected min_ndim={self.min_ndim}, found ndim={rank}. "
                             f"{full}")
        if self.dtype is not None and x.dtype.base_dtype.name != self.dtype:
            raise ValueError(where + f"expected dtype={self.dtype}, found dtype={x.dtype!s}")
        if self.axes and rank is not None:
            for axis, size in self.axes.items():
                dim = shape.as_list()[axis] if -rank <= axis < rank else None
                if size is not None and dim not in (size, None):
                    raise ValueError(where + f"expected axis {axis} of input shape to have "
                                     f"value {size} but received input with shape "
                                     f"{shape.as_list()}")
        if self.shape is not None and rank is not None:
            for spec_dim, dim in zip(self.shape, shape.as_list()):
                if spec_dim is not None and dim is not None and spec_dim != dim:
                    # (TF words this check differently from the others)
                    raise ValueError(f"Input {index} is incompatible with layer {layer_name}: "
                                     f"expected shape={self.shape}, found "
                                     f"shape={shape.as_list()}")


# ------------------------------------------------------------------------------------------
# Layer
# ------------------------------------------------------------------------------------------


class Layer:
    """Base class of the ``tf.layers`` layers: ``build`` makes the variables (with
    ``add_weight``) on the first call, ``call`` computes outputs.

    Args: ``trainable`` (variables go to TRAINABLE_VARIABLES), ``name``, ``dtype`` (of the
    variables; default: the first input's dtype), ``activity_regularizer``.
    """

    _ALLOWED_KWARGS = frozenset({"_scope", "_reuse", "activity_regularizer", "input_shape",
                                 "batch_input_shape", "batch_size", "autocast"})

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        for k in kwargs:
            if k not in self._ALLOWED_KWARGS:
                # (TF 1.15 raises it with two arguments: str() shows the tuple)
                raise TypeError("Keyword argument not understood:", k)
        self.trainable = trainable
        self.built = False
        self._called = False
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype.name
        self._activity_regularizer = kwargs.get("activity_regularizer")
        self._reuse = kwargs.get("_reuse")
        self._trainable_weights = []
        self._non_trainable_weights = []
        self._losses = []
        self._updates = []
        self._call_inputs = []  # every tensor passed to __call__ (for get_*_for(None))
        self._graph = None
        self.input_spec = None
        self._init_set_name(name)
        scope = kwargs.get("_scope")
        self._keras_style = _KERAS_STYLE[0]
        if self._keras_style:
            if scope is not None:
                raise ValueError("scope argument not allowed when keras style layers are "
                                 f"enabled, but saw: {scope}")
            if self._reuse is not None:
                raise ValueError("reuse argument not allowed when keras style layers are "
                                 f"enabled, but saw: {self._reuse}")
        if scope:
            with vs.variable_scope(scope) as captured:
                self._scope = captured
        else:
            self._scope = None
        self._current_scope = None

    def _init_set_name(self, name):
        if isinstance(name, vs.VariableScope):
            base_name = name.name
            self._name = _unique_layer_name(_to_snake_case(type(self).__name__))
        else:
            base_name = name
            self._name = name
        if not name:
            base_name = _to_snake_case(type(self).__name__)
            self._name = _unique_layer_name(base_name)
        self._base_name = base_name

    # -- properties ----------------------------------------------------------------------------
    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    @property
    def scope_name(self):
        if not self._scope:
            raise ValueError(
                f'No name available for layer scope because the layer "{self._name}" has not '
                "been used yet. The scope name is determined the first time the layer "
                "instance is called. You must therefore call the layer before querying "
                "`scope_name`."
            )
        return self._scope.name

    @property
    def activity_regularizer(self):
        return self._activity_regularizer

    @property
    def trainable_weights(self):
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self):
        if self.trainable:
            return list(self._non_trainable_weights)
        return self._trainable_weights + self._non_trainable_weights

    @property
    def weights(self):
        return self.trainable_weights + self.non_trainable_weights

    # properties over the *_weights ones, so subclasses that override those (MultiRNNCell,
    # cell wrappers) report the same lists under both names, as in TF
    @property
    def trainable_variables(self):
        return self.trainable_weights

    @property
    def non_trainable_variables(self):
        return self.non_trainable_weights

    @property
    def variables(self):
        return self.weights

    @property
    def updates(self):
        return list(self._updates)

    @property
    def losses(self):
        return list(self._losses)

    @property
    def graph(self):
        return self._graph

    def _unconditional_losses(self):
        # what a Keras layer wrapping this one (keras.layers.RNN around a cell) collects
        return list(self._losses)

    # the rest of what a Keras layer asks of its sublayers: a tf.layers layer (an RNN cell)
    # held as an attribute of a Keras layer is one of them, as in TF 1.x where both kinds
    # share one base class
    _sublayers = ()
    stateful = False

    def _unconditional_update_list(self):
        return list(self._updates) if self.trainable else []

    def _input_losses(self, keys=None):
        return []

    def get_weights(self):
        """The values of ``weights``, as NumPy arrays (read in the Keras session)."""
        from tideflow.keras import backend  # tf.layers layers are Keras layers in TF 1.x

        return backend.batch_get_value(self.weights)

    def set_weights(self, weights):
        """Assigns NumPy arrays to ``weights``, in order (shapes must match)."""
        from tideflow.keras import backend

        params = self.weights
        if len(params) != len(weights):
            raise ValueError(f"You called `set_weights(weights)` on layer \"{self.name}\" with "
                             f"a weight list of length {len(weights)}, but the layer was "
                             f"expecting {len(params)} weights. Provided weights: "
                             f"{str(weights)[:50]}...")
        backend.batch_set_value(list(zip(params, weights)))

    def get_config(self):
        """The layer's name, trainable flag and dtype; layers with their own constructor
        arguments add them (as TF 1.x's Keras-based layers)."""
        return {"name": self.name, "trainable": self.trainable, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config):
        """The layer made from ``get_config()``'s dict."""
        return cls(**config)

    def count_params(self):
        """The number of scalars in the layer's variables (the layer must be built)."""
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on {self.name}, but the layer "
                             "isn't built. You can build it manually via: "
                             f"`{self.name}.build(batch_input_shape)`.")
        return int(sum(np.prod(v.get_shape().as_list()) for v in self.weights))

    # -- Keras's node bookkeeping: TF 1.15's tf.layers in graph mode never record a call as an
    # inbound node, so these read as for a layer that was never connected
    inbound_nodes = outbound_nodes = property(lambda self: [])
    metrics = property(lambda self: [])
    dynamic = property(lambda self: False)

    def _not_connected(self, what):
        if what in ("input", "input_mask"):
            raise AttributeError(f"Layer {self.name} is not connected, no input to return.")
        raise AttributeError(f"Layer {self.name} has no inbound nodes.")

    input = property(lambda self: self._not_connected("input"))
    output = property(lambda self: self._not_connected("output"))
    input_mask = property(lambda self: self._not_connected("input_mask"))
    output_mask = property(lambda self: self._not_connected("output_mask"))

    @property
    def input_shape(self):
        raise AttributeError("The layer has never been called and thus has no defined input "
                             "shape.")

    @property
    def output_shape(self):
        raise AttributeError("The layer has never been called and thus has no defined output "
                             "shape.")

    def _node_at(self, node_index, what):
        raise RuntimeError(f"The layer has never been called and thus has no defined {what}.")

    def get_input_at(self, node_index):
        return self._node_at(node_index, "input")

    def get_output_at(self, node_index):
        return self._node_at(node_index, "output")

    def get_input_shape_at(self, node_index):
        return self._node_at(node_index, "input shape")

    def get_output_shape_at(self, node_index):
        return self._node_at(node_index, "output shape")

    # -- losses and updates ----------------------------------------------------------------------
    def add_loss(self, losses, inputs=None):
        """Adds loss tensors (or callables returning one) to the layer and to
        ``GraphKeys.REGULARIZATION_LOSSES``."""
        coll = ops.get_collection_ref(ops.GraphKeys.REGULARIZATION_LOSSES)
        for loss in _flatten(losses):
            if callable(loss):
                loss = loss()
            if loss is None:
                continue
            self._losses.append(loss)
            if not any(loss is c for c in coll):
                coll.append(loss)

    def add_update(self, updates, inputs=None):
        """Adds update ops (or callables making one); ``__call__`` copies them to
        ``GraphKeys.UPDATE_OPS``."""
        for update in _flatten(updates):
            if callable(update):
                update = update()
            if isinstance(update, ops.Tensor):
                # as TF 1.x's layers (Keras-based since 1.4): an update is kept as its op, so
                # UPDATE_OPS holds Operations and running one returns None
                update = update.op
            if update is not None:
                self._updates.append(update)

    def get_updates_for(self, inputs):
        """The updates that depend on ``inputs`` (computed from them in the graph); with None,
        the updates that depend on no input the layer was called on (as TF)."""
        return self._depending_on(self._updates, inputs)

    def get_losses_for(self, inputs):
        """The losses that depend on ``inputs``; with None, the unconditional ones."""
        return self._depending_on(self._losses, inputs)

    def _depending_on(self, items, inputs):
        sources = self._call_inputs if inputs is None else [
            x for x in _flatten(inputs) if isinstance(x, ops.Tensor)]
        seen = set()
        stack = [t.op for t in sources]
        while stack:
            op = stack.pop()
            if op in seen:
                continue
            seen.add(op)
            stack.extend(c for t in op.outputs for c in t.consumers())
            stack.extend(op._control_outputs)
        inside = [x for x in items if (x if isinstance(x, ops.Operation) else x.op) in seen]
        if inputs is None:
            return [x for x in items if not any(x is y for y in inside)]
        return inside

    # -- variables -----------------------------------------------------------------------------
    def add_weight(self, name, shape, dtype=None, initializer=None, regularizer=None,
                   trainable=None, constraint=None, use_resource=None,
                   synchronization=vs._SYNC_AUTO, aggregation=vs._AGG_NONE, partitioner=None,
                   **kwargs):
        """Gets or creates variable ``<layer scope>/<name>`` with ``tf.get_variable`` and tracks
        it; a regularizer applies only to a newly created variable. (TF 1.15's parameter order:
        ``synchronization`` and ``aggregation`` come before ``partitioner``.)"""
        for k in kwargs:
            if k not in ("experimental_autocast",):
                raise TypeError("Unknown keyword argument:", k)
        if synchronization == variables.VariableSynchronization.ON_READ:
            if trainable:  # as TF 1.15: a variable synced on read is not trainable
                raise ValueError(
                    "Synchronization value can be set to VariableSynchronization.ON_READ only "
                    "for non-trainable variables. You have specified trainable=True and "
                    "synchronization=VariableSynchronization.ON_READ.")
            trainable = False
        elif trainable is None:
            trainable = True
        # a list copy, not a set: hashing every variable per weight is quadratic in big models
        existing = ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)
        if dtype is None:
            dtype = self.dtype or dtypes.float32
        if self._keras_style:
            # named by the name scope the layer is built in, never reused
            here = vs.VariableScope(False, name=ops.get_default_graph().get_name_scope())
            scope_cm = vs.variable_scope(here, auxiliary_name_scope=False)
        else:
            self._set_scope(None)
            reuse = True if self._called else self._reuse
            scope_cm = vs.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False)
        with scope_cm as scope:
            self._current_scope = scope
            with (_nullcontext() if self._keras_style else ops.name_scope(self._name_scope())):
                variable = vs.get_variable(
                    name, shape=shape, dtype=dtypes.as_dtype(dtype), initializer=initializer,
                    trainable=trainable and self.trainable, constraint=constraint,
                    partitioner=partitioner, use_resource=use_resource,
                    synchronization=synchronization, aggregation=aggregation,
                )
                if regularizer and not any(variable is v for v in existing):
                    # (as TF 1.15's Keras-based tf.layers: not colocated with the variable,
                    # unlike get_variable's own regularizer)
                    with ops.name_scope(name + "/Regularizer"):
                        loss = regularizer(variable)
                    self.add_loss(loss)
        tracked = self._trainable_weights + self._non_trainable_weights
        if not any(variable is v for v in tracked):
            # as TF 1.x, whose tf.layers are Keras layers: the Keras session initializes the
            # layer's variables (a tf.nn.rnn_cell cell inside keras.layers.RNN); looked up only
            # when Keras is in use, so plain graphs never import it
            keras_backend = sys.modules.get("tideflow.keras.backend")
            if keras_backend is not None and not any(variable is v for v in existing):
                keras_backend.track_variable(variable)
            trainable_vars = ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES)
            # from the end: a variable just made is the last one
            if trainable and self.trainable and any(
                    variable is v for v in reversed(trainable_vars)):
                self._trainable_weights.append(variable)
            else:
                self._non_trainable_weights.append(variable)
        return variable

    add_variable = add_weight

    # -- scopes --------------------------------------------------------------------------------
    def _name_scope(self):
        return self._current_scope.original_name_scope

    def _set_scope(self, scope=None):
        if self._scope is None:
            if self._reuse:
                with vs.variable_scope(scope if scope is not None else self._base_name) as s:
                    self._scope = s
            else:
                with vs.variable_scope(scope, default_name=self._base_name) as s:
                    self._scope = s

    # -- calling -------------------------------------------------------------------------------
    def build(self, input_shape):
        """Creates the layer's variables for inputs of ``input_shape``."""
        self.built = True

    def call(self, inputs, **kwargs):
        """The layer's computation."""
        return inputs

    def compute_output_shape(self, input_shape):
        raise NotImplementedError

    # Keras's masking protocol, which TF 1.15's tf.layers inherit (Dense, Dropout and
    # BatchNormalization pass a mask through)
    supports_masking = False

    def compute_mask(self, inputs, mask=None):
        if not self.supports_masking:
            if any(m is not None for m in _flatten(mask)):
                raise TypeError(f"Layer {self.name} does not support masking, but was passed an "
                                f"input_mask: {mask}")
            return None
        return mask

    @property
    def submodules(self):
        """The layers inside this one (tf.Module's walk): none for a plain layer."""
        return ()

    def _assert_input_compatibility(self, inputs):
        if self.input_spec is None:
            return
        specs = self.input_spec if isinstance(self.input_spec, (list, tuple)) else [
            self.input_spec]
        flat = _flatten(inputs)
        if len(specs) != len(flat):
            raise ValueError(f"Layer {self.name} expects {len(specs)} inputs, but it received "
                             f"{len(flat)} input tensors.")
        for i, (spec, x) in enumerate(zip(specs, flat)):
            if spec is not None:
                spec.check(x, self.name, i)

    def __call__(self, inputs, *args, **kwargs):
        """Builds the layer on the first call, then applies ``call`` in the layer's scopes."""
        scope = kwargs.pop("scope", None)
        inputs = _map(_as_tensor, inputs)
        flat = [x for x in _flatten(inputs) if isinstance(x, ops.Tensor)]
        self._call_inputs.extend(flat)
        default = ops.get_default_graph()
        graph = flat[0].graph if flat else default
        if graph is not default and default.building_function:
            graph = default  # a cond/while body called on outer tensors captures them (TF)
        if self._graph is None:
            self._graph = graph
        elif graph is not self._graph:
            if _root_graph(graph) is not _root_graph(self._graph):
                raise ValueError(f"Input graph and Layer graph are not the same: {graph} is "
                                 f"not {self._graph}.")
            # a while_loop or cond body is a function graph of the same graph: the layer's
            # variables serve there as outside (TF 1.x traces bodies into the one graph)
            self._graph = graph
        if self._keras_style and scope is not None:
            raise ValueError("scope argument not allowed when keras style layers are enabled, "
                             f"but saw: {scope}")
        with graph.as_default():
            if self._keras_style:
                vsc = None
                scope_cm = _nullcontext()
            else:
                self._set_scope(scope)
                reuse = True if self._called else self._reuse
                scope_cm = vs.variable_scope(self._scope, reuse=reuse,
                                             auxiliary_name_scope=False)
            with scope_cm as vsc:
                self._current_scope = vsc
                with ops.name_scope(self._name if self._keras_style else self._name_scope()):
                    self._assert_input_compatibility(inputs)
                    if not self.built:
                        # the dtype a layer without one would take (TF 1.x's Dense refuses
                        # integer inputs by it)
                        self._build_input_dtype = flat[0].dtype.base_dtype if flat else None
                        if self._dtype is None and flat and (
                                flat[0].dtype.is_floating or flat[0].dtype.is_complex):
                            self._dtype = flat[0].dtype.base_dtype.name
                        shapes = _map(lambda x: x.get_shape() if isinstance(x, ops.Tensor)
                                      else None, inputs)
                        self.build(shapes)
                        self.built = True
                    if "scope" in _call_args(self.call) and not self._keras_style:
                        kwargs["scope"] = vsc
                    outputs = _call_rewriting_errors(self, inputs, args, kwargs)
                    if outputs is None:
                        raise ValueError("A layer's `call` method should return a Tensor or a "
                                         f"list of Tensors, not None (layer: {self.name}).")
                    if self._activity_regularizer is not None:
                        self._add_activity_regularization(outputs)
            self._called = True
            for o in _flatten(outputs):
                if isinstance(o, ops.Tensor):
                    # (a layer's output, as TF 1.x's tf.layers outputs carry their Keras
                    # history: a Keras layer called on it makes no op layer of its op)
                    o._tf_layers_output = True
            coll = ops.get_collection_ref(ops.GraphKeys.UPDATE_OPS)
            for update in self._updates:
                if not any(update is c for c in coll):
                    coll.append(update)
        return outputs

    def _add_activity_regularization(self, outputs):
        with ops.name_scope("ActivityRegularizer"):
            for output in _flatten(outputs):
                loss = self._activity_regularizer(output)
                if loss is None:
                    continue
                # divided by the batch size, so its strength does not depend on it (TF 1.13+)
                batch = cast_ops.cast(array_ops.shape(output)[0], loss.dtype)
                self.add_loss(loss / batch)

    def apply(self, inputs, *args, **kwargs):
        """The same as calling the layer."""
        return self.__call__(inputs, *args, **kwargs)


def _call_rewriting_errors(layer, inputs, args, kwargs):
    """``layer.call(inputs, ...)``. TF 1.15 runs the ``call`` of a layer whose class is not one
    of Keras's own (tf.layers, RNN cells, the user's subclasses) through AutoGraph, so an error
    raised there reads "in converted code:", the frames from ``call`` down, then the error; and
    a user's ``call`` has its Python control flow on tensors made graph control flow."""
    cls_mod = type(layer).__module__ or ""
    keras_own = "keras.engine" in cls_mod or "keras.layers" in cls_mod
    func = getattr(layer.call, "__func__", layer.call)
    mod = getattr(func, "__module__", None) or ""
    library = mod == "tideflow" or mod.startswith("tideflow.")
    call = layer.call
    if not keras_own and not library:
        from tideflow.autograph import conversion

        call = conversion.maybe_convert(call)
    try:
        return call(inputs, *args, **kwargs)
    except Exception as e:
        if keras_own:
            raise
        from tideflow.autograph import errors

        err = errors.converted_code_error(e, func, library=library)
        if err is None:
            raise
        raise err from None


class _nullcontext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _call_args(fn):
    try:
        return inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}


def input_shape_of(input_shape):
    """``input_shape`` (TensorShape, list or tuple) as a TensorShape."""
    return input_shape if isinstance(input_shape, TensorShape) else TensorShape(input_shape)
