"""``tf.keras.utils``: ``to_categorical``, ``normalize``, ``Sequence``, ``Progbar``,
``print_summary`` (the table ``model.summary()`` prints) and ``get_custom_objects``."""

import sys
import time

import numpy as np

from tideflow.keras.data_utils import get_file, validate_file  # noqa: F401 (tf.keras.utils)
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


class Sequence:
    """Base class of batch sequences for ``fit_generator``: implement ``__getitem__`` and
    ``__len__``."""

    def __getitem__(self, index):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def on_epoch_end(self):
        pass

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]


class Progbar:
    """A text progress bar: ``update(current, values)``, ``add(n, values)``."""

    def __init__(self, target, width=30, verbose=1, interval=0.05, stateful_metrics=None,
                 unit_name="step"):
        self.target, self.width, self.verbose = target, width, verbose
        self._values = {}
        self._seen = 0
        self._start = time.time()

    def update(self, current, values=None):
        for k, v in values or []:
            self._values[k] = v
        self._seen = current
        if self.verbose:
            line = f"{current}/{self.target}"
            if self.target:
                done = int(self.width * current / self.target)
                line += " [" + "=" * done + "." * (self.width - done) + "]"
            line += "".join(f" - {k}: {np.mean(v):.4f}" for k, v in self._values.items())
            sys.stdout.write("\r" + line)
            if self.target and current >= self.target:
                sys.stdout.write("\n")
            sys.stdout.flush()

    def add(self, n, values=None):
        self.update(self._seen + n, values)


def _shape_str(layer, model=None):
    """The Output Shape column as TF 1.15 prints it: ``multiple`` for the layers of a
    subclassed model (their calls make no Keras nodes there), an InputLayer's shape in a
    list (its node's outputs are a list), else the layer's output shape."""
    from tideflow.keras.engine.input_layer import InputLayer

    if model is not None and not getattr(model, "_is_graph_network", True):
        return "multiple"
    try:
        shape = layer.output_shape
    except AttributeError:
        return "multiple"
    if isinstance(shape, list) and len(shape) == 1:
        shape = shape[0]
    if isinstance(layer, InputLayer):
        return str([shape])
    return str(shape)


def print_summary(model, line_length=None, positions=None, print_fn=None):
    """Prints the Keras table: ``Layer (type)``, ``Output Shape``, ``Param #`` (and
    ``Connected to`` for functional models with branches), then the parameter totals."""
    from tideflow.keras.engine.input_layer import InputLayer

    print_fn = print_fn or print
    layers = model.layers
    sequential_like = type(model).__name__ == "Sequential" or not model._is_graph_network
    if not sequential_like:
        sequential_like = all(len(la._inbound_nodes) <= 1 and all(
            len(n.input_tensors) <= 1 for n in la._inbound_nodes) for la in layers)
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
        params = layer.count_params() if layer.built else 0
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
    trainable = sum(int(np.prod(v.get_shape().as_list())) for v in model.trainable_weights)
    non_trainable = sum(int(np.prod(v.get_shape().as_list()))
                        for v in model.non_trainable_weights)
    print_fn(f"Total params: {trainable + non_trainable:,}")
    print_fn(f"Trainable params: {trainable:,}")
    print_fn(f"Non-trainable params: {non_trainable:,}")
    print_fn("_" * line_length)


def plot_model(*args, **kwargs):
    raise ImportError("plot_model needs pydot and graphviz, which tideflow does not provide.")
