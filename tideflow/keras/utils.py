"""``tf.keras.utils``: ``to_categorical``, ``normalize``, ``Sequence``, ``Progbar``,
``print_summary`` (the table ``model.summary()`` prints) and ``get_custom_objects``."""

import sys
import time
import typing

import numpy as np

from tideflow.keras import data_utils
from tideflow.keras.data_utils import (  # noqa: F401 (tf.keras.utils)
    GeneratorEnqueuer,
    OrderedEnqueuer,
    Sequence,
    SequenceEnqueuer,
    get_file,
    validate_file,
)
from tideflow.keras.multi_gpu_utils import multi_gpu_model  # noqa: F401 (tf.keras.utils)

_CUSTOM_OBJECTS = {}


def get_custom_objects():
    return _CUSTOM_OBJECTS


class CustomObjectScope:
    def __init__(self, *args):
        self.custom_objects = args
        self.backup = None

    def __enter__(self):
        self.backup = dict(_CUSTOM_OBJECTS)
        for objects in self.custom_objects:
            _CUSTOM_OBJECTS.update(objects)
        return self

    def __exit__(self, *args):
        _CUSTOM_OBJECTS.clear()
        _CUSTOM_OBJECTS.update(self.backup)


custom_object_scope = CustomObjectScope


def to_categorical(y, num_classes=None, dtype="float32"):
    """Class ids (any shape) as one-hot rows: shape ``y.shape + (num_classes,)`` (a trailing
    axis of size 1 is dropped first)."""
    y = np.array(y, dtype="int")
    input_shape = y.shape
    if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
        input_shape = tuple(input_shape[:-1])
    y = y.ravel()
    if not num_classes:
        num_classes = int(np.max(y)) + 1
    n = y.shape[0]
    if n and (y.min() < 0 or y.max() >= num_classes):
        raise ValueError(f"to_categorical: class ids must be in [0, {num_classes}), got "
                         f"values in [{y.min()}, {y.max()}]")
    categorical = np.zeros((n, num_classes), dtype=dtype)
    categorical[np.arange(n), y] = 1
    return np.reshape(categorical, input_shape + (num_classes,))


def normalize(x, axis=-1, order=2):
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis)


class Progbar:
    """A text progress bar: ``update(current, values)``, ``add(n, values)``.

    Writes what TF 1.15's does: verbose=1 redraws one line (backspaces and a carriage
    return before each draw, as TF does on any POSIX system, a terminal or not) at most
    every ``interval`` seconds and always at the target; verbose=2 writes one line at the
    target. Values are averaged over the steps (weighted by how far each update advanced),
    except ``stateful_metrics``, shown as given."""

    def __init__(self, target, width=30, verbose=1, interval=0.05, stateful_metrics=None,
                 unit_name="step"):
        self.target, self.width, self.verbose = target, width, verbose
        self.interval, self.unit_name = interval, unit_name
        self.stateful_metrics = set(stateful_metrics or ())
        self._total_width = 0
        self._seen_so_far = 0
        self._values = {}
        self._values_order = []
        self._start = time.time()
        self._last_update = 0

    def _value_text(self, k, ok):
        avg = np.mean(self._values[k][0] / max(1, self._values[k][1]))
        return f" - {k}: {avg:.4f}" if ok(avg) else f" - {k}: {avg:.4e}"

    def update(self, current, values=None):
        for k, v in values or []:
            if k not in self._values_order:
                self._values_order.append(k)
            step = current - self._seen_so_far
            if isinstance(v, (np.float32, np.float16)):
                # as TF 1.15 under NumPy 1.x: a float32 scalar times the step (an int) is a
                # float64, so the running sums (and the printed averages) are float64's
                v = np.float64(v)
            if k in self.stateful_metrics:
                self._values[k] = [v, 1]
            elif k in self._values:
                self._values[k][0] += v * step
                self._values[k][1] += step
            else:
                self._values[k] = [v * step, step]
        self._seen_so_far = current
        now = time.time()
        info = f" - {now - self._start:.0f}s"
        done = self.target is not None and current >= self.target
        if self.verbose == 1:
            if now - self._last_update < self.interval and self.target is not None \
                    and not done:
                return
            prev_total_width = self._total_width
            sys.stdout.write("\b" * prev_total_width + "\r")
            if self.target is not None:
                digits = int(np.log10(self.target)) + 1
                bar = f"{current:{digits}d}/{self.target} ["
                filled = int(self.width * float(current) / self.target)
                if filled > 0:
                    bar += "=" * (filled - 1) + ("=" if done else ">")
                bar += "." * (self.width - filled) + "]"
            else:
                bar = f"{current:7d}/Unknown"
            self._total_width = len(bar)
            sys.stdout.write(bar)
            per = (now - self._start) / current if current else 0
            if self.target is not None and not done:
                eta = per * (self.target - current)
                if eta > 3600:
                    eta_text = f"{int(eta // 3600)}:{int(eta % 3600 // 60):02d}:{int(eta % 60):02d}"
                elif eta > 60:
                    eta_text = f"{int(eta // 60)}:{int(eta % 60):02d}"
                else:
                    eta_text = f"{int(eta)}s"
                info = " - ETA: " + eta_text
            elif per >= 1 or per == 0:
                info += f" {per:.0f}s/{self.unit_name}"
            elif per >= 1e-3:
                info += f" {per * 1e3:.0f}ms/{self.unit_name}"
            else:
                info += f" {per * 1e6:.0f}us/{self.unit_name}"
            for k in self._values_order:
                info += self._value_text(k, lambda a: abs(a) > 1e-3)
            self._total_width += len(info)
            if prev_total_width > self._total_width:
                info += " " * (prev_total_width - self._total_width)
            if done:
                info += "\n"
            sys.stdout.write(info)
            sys.stdout.flush()
        elif self.verbose == 2 and done:
            digits = int(np.log10(self.target)) + 1
            info = f"{current:{digits}d}/{self.target}" + info
            for k in self._values_order:
                info += self._value_text(k, lambda a: a > 1e-3)
            sys.stdout.write(info + "\n")
            sys.stdout.flush()
        self._last_update = now

    def add(self, n, values=None):
        self.update(self._seen_so_far + n, values)


def _shape_str(layer, model=None):
    """The Output Shape column as TF 1.15 prints it: ``multiple`` for the layers of a
    subclassed model (their calls make no Keras nodes there), an InputLayer's shape in a
    list (its node's outputs are a list), else the layer's output shape."""
    from tideflow.keras.engine.input_layer import InputLayer

    if model is not None and not getattr(model, "_is_graph_network", True) and getattr(
            model, "_deferred_call", None) != "keras":
        # (a Sequential with no input shape first called on Keras tensors: its layers have
        # nodes, as in TF 1.15)
        return "multiple"
    try:
        shape = layer.output_shape
    except AttributeError:
        return "multiple"
    if isinstance(shape, list) and len(shape) == 1:
        shape = shape[0]
    if isinstance(layer, InputLayer) or getattr(layer._inbound_nodes[0], "outputs_listed",
                                                False):
        return str([shape])
    return str(shape)


def _branches(model):
    """True when some depth of a functional model (outputs at depth 0, a node's inputs one
    deeper than it) holds more than one node: TF prints such a model with its connections."""
    from tideflow.keras import backend as K

    history = K._state(model.outputs[0].graph).history if model.outputs else {}
    depth = {}
    for node in reversed(model._network_nodes):  # each node after every node it feeds
        d = depth.setdefault(id(node), 0)
        for t in node.input_tensors:
            h = history.get(t)
            if h is not None:
                inbound = id(h[0]._inbound_nodes[h[1]])
                depth[inbound] = max(depth.get(inbound, 0), d + 1)
    counts = {}
    for d in depth.values():
        counts[d] = counts.get(d, 0) + 1
    return any(n > 1 for n in counts.values())


def print_summary(model, line_length=None, positions=None, print_fn=None):
    """Prints the Keras table: ``Layer (type)``, ``Output Shape``, ``Param #`` (and
    ``Connected to`` for functional models with branches), then the parameter totals."""
    from tideflow.keras.engine.input_layer import InputLayer

    print_fn = print_fn or print
    layers = model.layers
    sequential_like = type(model).__name__ == "Sequential" or not model._is_graph_network
    if not sequential_like:
        # (as TF: only the model's own calls count; a nested model's first node is not one)
        in_model = {id(n) for n in model._network_nodes}
        sequential_like = not _branches(model) and all(
            len(mine) <= 1 and all(len(n.input_tensors) <= 1 for n in mine)
            for mine in ([n for n in la._inbound_nodes if id(n) in in_model]
                         for la in layers))
    if sequential_like:
        line_length = line_length or 65
        positions = positions or [0.45, 0.85, 1.0]
        headers = ["Layer (type)", "Output Shape", "Param #"]
    else:
        line_length = line_length or 98
        positions = positions or [0.33, 0.55, 0.67, 1.0]
        headers = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]

    def row(fields):
        line = ""
        for i, field in enumerate(fields):
            if i > 0:
                line = line[:-1] + " "
            line += str(field)
            line = line[:positions[i]]
            line += " " * (positions[i] - len(line))
        print_fn(line)

    print_fn(f'Model: "{model.name}"')
    print_fn("_" * line_length)
    row(headers)
    print_fn("=" * line_length)
    for i, layer in enumerate(layers):
        name = f"{layer.name} ({type(layer).__name__})"
        params = layer.count_params()  # (an unbuilt layer: ValueError, as TF 1.15)
        fields = [name, _shape_str(layer, model), params]
        if not sequential_like:
            from tideflow.keras import backend as K

            connections = []
            in_model = {id(n) for n in model._network_nodes}
            for node in layer._inbound_nodes:
                if id(node) not in in_model:
                    continue
                for t in node.input_tensors:
                    h = K._state(t.graph).history.get(t)
                    if h is not None:
                        connections.append(f"{h[0].name}[{h[1]}][{h[2]}]")
            fields.append(connections[0] if connections else "")
            row(fields)
            for extra in connections[1:]:
                row(["", "", "", extra])
        else:
            if isinstance(layer, InputLayer) and type(model).__name__ == "Sequential":
                continue
            row(fields)
        print_fn(("=" if i == len(layers) - 1 else "_") * line_length)
    def count(weights):
        unique = {id(v): v for v in weights}.values()
        return sum(int(np.prod(v.get_shape().as_list())) for v in unique)

    # as TF 1.15: a compiled model counts the weights compile collected as trainable, so one
    # frozen after compile (a GAN's discriminator) shows them under both counts
    trainable = count(getattr(model, "_collected_trainable_weights", model.trainable_weights))
    non_trainable = count(model.non_trainable_weights)
    print_fn(f"Total params: {trainable + non_trainable:,}")
    print_fn(f"Trainable params: {trainable:,}")
    print_fn(f"Non-trainable params: {non_trainable:,}")
    print_fn("_" * line_length)


_PYDOT_MESSAGE = ("Failed to import pydot. You must install pydot and graphviz for "
                  "`pydotprint` to work.")


def _check_pydot():
    try:
        import pydot
    except ImportError:
        raise ImportError(_PYDOT_MESSAGE) from None
    try:
        pydot.Dot.create(pydot.Dot())  # graphviz's dot program
    except Exception:  # noqa: BLE001 (pydot raises anything when dot is missing)
        raise ImportError(_PYDOT_MESSAGE) from None


def model_to_dot(model, show_shapes=False, show_layer_names=True, rankdir="TB",
                 expand_nested=False, dpi=96, subgraph=False):
    """A ``pydot.Dot`` of the model's layers (needs pydot and graphviz: without them,
    Keras's ``ImportError``)."""
    _check_pydot()
    import pydot

    dot = pydot.Dot()
    dot.set("rankdir", rankdir)
    dot.set("concentrate", True)
    dot.set("dpi", dpi)
    dot.set_node_defaults(shape="record")
    for layer in model.layers:
        label = f"{layer.name}: {type(layer).__name__}" if show_layer_names else \
            type(layer).__name__
        if show_shapes:
            try:
                label += f"\n{_shape_str(layer)}"
            except Exception:  # noqa: BLE001
                label += "\nmultiple"
        dot.add_node(pydot.Node(str(id(layer)), label=label))
    for layer in model.layers:
        for node in layer._inbound_nodes:
            for inbound in node.inbound_layers:
                if inbound in model.layers:
                    dot.add_edge(pydot.Edge(str(id(inbound)), str(id(layer))))
    return dot


def plot_model(model, to_file="model.png", show_shapes=False, show_layer_names=True,
               rankdir="TB", expand_nested=False, dpi=96):
    """Writes ``model_to_dot(model)`` to ``to_file`` (needs pydot and graphviz)."""
    import os

    dot = model_to_dot(model, show_shapes, show_layer_names, rankdir, expand_nested, dpi)
    _, ext = os.path.splitext(to_file)
    dot.write(to_file, format=ext[1:] if ext else "png")


def get_source_inputs(tensor, layer=None, node_index=None):
    """The Keras input tensors ``tensor`` comes from (a tensor without Keras history is
    returned as it is)."""
    from tideflow.keras import backend as K
    from tideflow.keras.engine.input_layer import InputLayer

    history = K._state(tensor.graph).history if hasattr(tensor, "graph") else {}
    if layer is None or node_index:
        h = history.get(tensor)
        if h is None:
            return tensor
        layer, node_index = h[0], h[1]
    if isinstance(layer, InputLayer) or not layer._inbound_nodes:
        return [tensor]
    node = layer._inbound_nodes[node_index]
    if not node.inbound_layers:
        return list(node.input_tensors) or [tensor]
    sources = []
    for x in node.input_tensors:
        h = history.get(x)
        if h is None:
            found = [x]
        else:
            found = get_source_inputs(x, h[0], h[1])
        for t in found:
            if all(t is not s for s in sources):
                sources.append(t)
    return sources


def serialize_keras_object(instance):
    """``{'class_name', 'config'}`` for an object with ``get_config``, a function's name, or
    None."""
    if instance is None:
        return None
    if hasattr(instance, "get_config"):
        return {"class_name": type(instance).__name__, "config": instance.get_config()}
    if hasattr(instance, "__name__"):
        return instance.__name__
    raise ValueError("Cannot serialize", instance)


def deserialize_keras_object(identifier, module_objects=None, custom_objects=None,
                             printable_module_name="object"):
    """The object a config (``{'class_name', 'config'}``) or name describes, looked up in
    ``custom_objects``, the global custom objects, then ``module_objects``. A class given by
    name is instantiated without arguments; a function is returned as it is."""
    module_objects = module_objects or {}
    custom_objects = custom_objects or {}
    if isinstance(identifier, dict):
        if "class_name" not in identifier or "config" not in identifier:
            raise ValueError("Improper config format: " + str(identifier))
        class_name = identifier["class_name"]
        cls = (custom_objects.get(class_name) or _CUSTOM_OBJECTS.get(class_name)
               or module_objects.get(class_name))
        if cls is None:
            raise ValueError(f"Unknown {printable_module_name}: {class_name}")
        config = identifier["config"]
        if hasattr(cls, "from_config"):
            import inspect

            params = inspect.signature(cls.from_config).parameters
            if "custom_objects" in params:
                return cls.from_config(config, custom_objects={**_CUSTOM_OBJECTS,
                                                               **custom_objects})
            with CustomObjectScope(custom_objects):
                return cls.from_config(config)
        with CustomObjectScope(custom_objects):
            return cls(**config)
    if isinstance(identifier, str):
        obj = (custom_objects.get(identifier) or _CUSTOM_OBJECTS.get(identifier)
               or module_objects.get(identifier))
        if obj is None:
            raise ValueError(f"Unknown {printable_module_name}: {identifier}")
        return obj() if isinstance(obj, type) else obj
    raise ValueError(f"Could not interpret serialized {printable_module_name}: {identifier}")


def _to_list(x, allow_tuple=False):
    """``x`` as a list: a list as it is, a tuple's items when ``allow_tuple``, else ``[x]``
    (``keras.utils.generic_utils.to_list``)."""
    if isinstance(x, list):
        return x
    if allow_tuple and isinstance(x, tuple):
        return list(x)
    return [x]


def _object_list_uid(object_list):
    """A string naming the objects of a (nested) list by identity
    (``keras.utils.generic_utils.object_list_uid``: layers key their per-input state by it)."""
    from tideflow.framework import nest

    return ", ".join(str(abs(id(x))) for x in nest.flatten(object_list))


def convert_kernel(kernel):
    """A convolution kernel flipped along its spatial axes (the channel axes kept): the
    conversion between Theano's and TensorFlow's kernels."""
    kernel = np.asarray(kernel)
    if not 3 <= kernel.ndim <= 5:
        raise ValueError(f"Invalid kernel shape: {kernel.shape}")
    index = tuple([slice(None, None, -1)] * (kernel.ndim - 2) + [slice(None), slice(None)])
    return np.copy(kernel[index])


def convert_all_kernels_in_model(model):
    """Flips the kernels of the model's Conv1D/2D/3D and Conv2DTranspose layers in place
    (Theano <-> TensorFlow weights; deprecated in TF 1.15, still there)."""
    from tideflow.keras import backend as K

    conv_classes = {"Conv1D", "Conv2D", "Conv3D", "Conv2DTranspose"}
    to_assign = [(layer.kernel, convert_kernel(K.get_value(layer.kernel)))
                 for layer in model.layers if type(layer).__name__ in conv_classes]
    K.batch_set_value(to_assign)


class HDF5Matrix:
    """``tf.keras.utils.HDF5Matrix``: rows ``start:end`` of a dataset in an HDF5 file, read on
    indexing (an int, a slice, or a list / array of increasing indices, as h5py reads them),
    through ``normalizer`` when one is given; Keras's ``fit`` takes it as an input array
    (``shuffle='batch'`` keeps the indices of a batch in order)."""

    refs: typing.ClassVar[dict] = {}  # the open files by path (one per file, as TF's)

    def __init__(self, datapath, dataset, start=0, end=None, normalizer=None):
        from tideflow.keras import saving

        h5py = saving._h5py()
        if datapath not in type(self).refs:
            type(self).refs[datapath] = h5py.File(datapath, "r")
        self.data = type(self).refs[datapath][dataset]
        self.start = start
        self.end = self.data.shape[0] if end is None else end
        self.normalizer = normalizer

    def __len__(self):
        return self.end - self.start

    def __getitem__(self, key):
        if isinstance(key, slice):
            first = 0 if key.start is None else key.start
            stop = len(self) if key.stop is None else key.stop
            if stop + self.start > self.end:
                raise IndexError
            idx = slice(first + self.start, stop + self.start)
        elif isinstance(key, (int, np.integer)):
            if key + self.start >= self.end:
                raise IndexError
            idx = key + self.start
        elif isinstance(key, (list, np.ndarray)):
            if np.max(key) + self.start >= self.end:
                raise IndexError
            idx = [int(x) + self.start for x in key]
        else:
            raise IndexError
        out = self.data[idx]
        return self.normalizer(out) if self.normalizer is not None else out

    def __array__(self, dtype=None, copy=None):
        # all rows in one read (NumPy would otherwise read them one by one)
        out = self[:len(self)]
        return out if dtype is None else out.astype(dtype)

    @property
    def shape(self):
        """The rows' count, then the dataset's other dimensions."""
        return (self.end - self.start,) + tuple(self.data.shape[1:])

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def ndim(self):
        return self.data.ndim

    @property
    def size(self):
        return int(np.prod(self.shape))


# TF 1.x's modules under ``tensorflow.python.keras.utils`` (``keras.utils.np_utils``,
# ``keras.utils.generic_utils``, ``keras.utils.data_utils``): tideflow keeps their contents in
# this module and in data_utils, so each is a module object holding the very functions.
def _add_submodules():
    import importlib.machinery
    import importlib.util

    here = sys.modules[__name__]
    # a package for the import system, so ``tensorflow.python.keras.utils.generic_utils``
    # (whose parent is this module under TF's path) imports
    here.__path__ = []
    tables = {
        "io_utils": "HDF5Matrix",
        "np_utils": "to_categorical normalize",
        "generic_utils": "CustomObjectScope custom_object_scope get_custom_objects Progbar "
                         "serialize_keras_object deserialize_keras_object",
    }
    from tideflow.keras import _utils

    tf_utils = importlib.util.module_from_spec(
        importlib.machinery.ModuleSpec(f"{__name__}.tf_utils", None))
    tf_utils.__doc__ = "``keras.utils.tf_utils`` (TF's module): the symbolic-type registry."
    tf_utils.register_symbolic_tensor_type = _utils.register_symbolic_tensor_type
    tf_utils.is_symbolic_tensor = _utils.is_symbolic_tensor
    from tideflow.ops.layers_base import smart_cond

    tf_utils.smart_cond = smart_cond
    here.tf_utils = sys.modules.setdefault(tf_utils.__name__, tf_utils)
    for short, names in tables.items():
        full = f"{__name__}.{short}"
        module = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(full, None))
        module.__doc__ = f"``keras.utils.{short}`` (TF's module): helpers of tf.keras.utils."
        for name in names.split():
            setattr(module, name, getattr(here, name))
        module = sys.modules.setdefault(full, module)
        setattr(here, short, module)
    here.generic_utils.to_list = _to_list
    here.generic_utils.object_list_uid = _object_list_uid
    # ``to_snake_case``: the default layer name of a class (wrappers name themselves with it)
    from tideflow.ops.layers_base import _to_snake_case

    here.generic_utils.to_snake_case = _to_snake_case
    # ``keras.utils.conv_utils``: the argument helpers custom convolution layers import
    from tideflow.python.layers import utils as _layer_utils

    conv_utils = importlib.util.module_from_spec(
        importlib.machinery.ModuleSpec(f"{__name__}.conv_utils", None))
    conv_utils.__doc__ = "``keras.utils.conv_utils`` (TF's module): convolution argument helpers."
    for name in ("conv_output_length", "conv_input_length", "convert_data_format",
                 "normalize_tuple", "normalize_padding", "normalize_data_format"):
        setattr(conv_utils, name, getattr(_layer_utils, name))
    conv_utils.convert_kernel = convert_kernel
    here.conv_utils = sys.modules.setdefault(conv_utils.__name__, conv_utils)
    sys.modules.setdefault(f"{__name__}.data_utils", data_utils)


_add_submodules()
