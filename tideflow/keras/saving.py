"""Keras whole-model saving and weights in HDF5, in TF 1.x Keras's file layout.

A model file (``model.save('m.h5')``) holds, as root attributes, ``keras_version``,
``backend``, ``model_config`` (the JSON of ``{"class_name", "config"}``) and, for a compiled
model, ``training_config`` (JSON: ``optimizer_config``, ``loss``, ``metrics``,
``weighted_metrics``, ``sample_weight_mode``, ``loss_weights``); a group ``model_weights``
(attributes ``layer_names``, ``backend``, ``keras_version``; one group per layer with the
attribute ``weight_names`` and one dataset per weight, at the path of its name, e.g.
``dense/dense/kernel:0``); and, when the optimizer has state, a group ``optimizer_weights``
(attribute ``weight_names``). ``save_weights('w.h5')`` writes the ``model_weights`` layout at
the root of the file. Attributes too large for one HDF5 attribute are split into
``name0``, ``name1``... as Keras does.

The optimizer state is Keras's (OptimizerV2) form, which our Keras optimizers keep; a file
whose optimizer state does not fit loads with a fresh optimizer and a warning, as in Keras.
"""

import json
import os
import warnings

import numpy as np

KERAS_VERSION = "2.2.4-tf"
_HDF5_OBJECT_HEADER_LIMIT = 64512


def _h5py():
    try:
        import h5py
    except ImportError:
        raise ImportError("Saving or loading HDF5 (.h5) files requires h5py, which is not "
                          "installed (pip install h5py).") from None
    return h5py


# -- attributes --------------------------------------------------------------------------------
def _text(value):
    if isinstance(value, (bytes, np.bytes_)):
        return bytes(value).decode("utf8")
    return str(value)


def save_attributes_to_hdf5_group(group, name, data):
    """Writes the list of strings ``data`` as attribute ``name`` of ``group``, split into
    ``name0``, ``name1``... when it does not fit in one HDF5 object header."""
    encoded = [d.encode("utf8") if isinstance(d, str) else d for d in data]
    array = np.asarray(encoded)
    chunks = 1
    while array.nbytes and array.nbytes / chunks > _HDF5_OBJECT_HEADER_LIMIT:
        chunks += 1
    if chunks > 1:
        too_long = [d for d in encoded if len(d) > _HDF5_OBJECT_HEADER_LIMIT]
        if too_long:
            raise RuntimeError("The following attributes cannot be saved to HDF5 file because "
                               f"they are larger than {_HDF5_OBJECT_HEADER_LIMIT} bytes: "
                               f"{too_long}")
        for k, part in enumerate(np.array_split(array, chunks)):
            group.attrs[f"{name}{k}"] = part
    else:
        group.attrs[name] = array


def load_attributes_from_hdf5_group(group, name):
    """The list of strings stored by ``save_attributes_to_hdf5_group`` (whole or in chunks)."""
    if name in group.attrs:
        values = group.attrs[name]
    else:
        values, k = [], 0
        while f"{name}{k}" in group.attrs:
            values.extend(group.attrs[f"{name}{k}"])
            k += 1
    return [_text(v) for v in np.asarray(values).reshape(-1)] if len(values) else []


# -- weights -----------------------------------------------------------------------------------
def _layer_weights(layer):
    """A layer's weights in Keras's saving order: trainable, then non-trainable."""
    trainable = list(getattr(layer, "trainable_weights", []))
    listed = {id(w) for w in trainable}
    rest = [w for w in getattr(layer, "non_trainable_weights", []) if id(w) not in listed]
    weights = trainable + rest
    listed.update(id(w) for w in rest)
    weights += [w for w in layer.weights if id(w) not in listed]
    return weights


def save_weights_to_hdf5_group(f, layers):
    """The ``model_weights`` layout: ``layer_names``, ``backend``, ``keras_version``, then one
    group per layer with its ``weight_names`` and a dataset per weight."""
    from tideflow.keras import backend as K

    save_attributes_to_hdf5_group(f, "layer_names", [la.name for la in layers])
    f.attrs["backend"] = b"tensorflow"
    f.attrs["keras_version"] = KERAS_VERSION.encode("utf8")
    for layer in layers:
        g = f.create_group(layer.name)
        weights = _layer_weights(layer)
        values = K.batch_get_value(weights)
        save_attributes_to_hdf5_group(g, "weight_names", [w.name for w in weights])
        for w, v in zip(weights, values):
            _write_dataset(g, w.name, v)


def _write_dataset(group, name, value):
    value = np.asarray(value)
    ds = group.create_dataset(name, value.shape, dtype=value.dtype)
    if value.shape:
        ds[:] = value
    else:
        ds[()] = value


def _check_weights(f, where):
    if "layer_names" not in f.attrs and "layer_names0" not in f.attrs:
        raise ValueError(f"{where} holds no Keras weights (no 'layer_names' attribute).")


def load_weights_from_hdf5_group(f, layers):
    """Sets the weights of ``layers`` (those that have weights, in order) from the layers of
    the file that have weights, in order (the architectures must match)."""
    from tideflow.keras import backend as K

    _check_weights(f, f"The HDF5 group {f.name}")
    filtered = [la for la in layers if _layer_weights(la)]
    names = [n for n in load_attributes_from_hdf5_group(f, "layer_names")
             if load_attributes_from_hdf5_group(f[n], "weight_names")]
    if len(names) != len(filtered):
        raise ValueError(f"You are trying to load a weight file containing {len(names)} "
                         f"layers into a model with {len(filtered)} layers.")
    tuples = []
    for k, (layer, name) in enumerate(zip(filtered, names)):
        tuples.extend(_layer_tuples(layer, f[name], k, name))
    K.batch_set_value(tuples)


def load_weights_from_hdf5_group_by_name(f, layers, skip_mismatch=False):
    """Sets the weights of the layers whose names are in the file (others keep theirs)."""
    from tideflow.keras import backend as K

    _check_weights(f, f"The HDF5 group {f.name}")
    index = {}
    for layer in layers:
        if _layer_weights(layer):
            index.setdefault(layer.name, []).append(layer)
    tuples = []
    for k, name in enumerate(load_attributes_from_hdf5_group(f, "layer_names")):
        for layer in index.get(name, []):
            try:
                tuples.extend(_layer_tuples(layer, f[name], k, name, by_name=True))
            except ValueError as e:
                if not skip_mismatch:
                    raise
                warnings.warn(f"Skipping loading of weights for layer {layer.name}: {e}")
    K.batch_set_value(tuples)


def _layer_tuples(layer, g, k, name, by_name=False):
    weight_names = load_attributes_from_hdf5_group(g, "weight_names")
    values = [np.asarray(g[n]) for n in weight_names]
    weights = _layer_weights(layer)
    if by_name and len(values) != len(weights):
        raise ValueError(f'Layer #{k} (named "{layer.name}") expects {len(weights)} '
                         f"weight(s), but the saved weights have {len(values)} element(s).")
    if by_name:
        for w, v in zip(weights, values):
            want = tuple(w.get_shape().as_list())
            if tuple(v.shape) != want:
                raise ValueError(f'Layer #{k} (named "{layer.name}"), weight {w} has shape '
                                 f"{want}, but the saved weight has shape {tuple(v.shape)}.")
    if len(values) != len(weights):
        raise ValueError(f'Layer #{k} (named "{layer.name}") in the current model was found '
                         f'to correspond to layer {name} in the save file. However the new '
                         f"layer {layer.name} expects {len(weights)} weights, but the saved "
                         f"weights have {len(values)} elements.")
    for w, v, n in zip(weights, values, weight_names):
        want = tuple(w.get_shape().as_list())
        if tuple(v.shape) != want:
            raise ValueError(f'Layer #{k} (named "{layer.name}"): weight {w.name} has shape '
                             f"{want}, but the saved weight {n} has shape {tuple(v.shape)}.")
    return list(zip(weights, values))


def save_weights_to_hdf5(model, filepath, overwrite=True):
    """``model.save_weights('w.h5')``: the ``model_weights`` layout at the file's root."""
    h5py = _h5py()
    if not overwrite and os.path.isfile(filepath) and \
            not ask_to_proceed_with_overwrite(filepath):
        return
    _makedirs_for(filepath)
    with h5py.File(filepath, "w") as f:
        save_weights_to_hdf5_group(f, model.layers)


def load_weights_from_hdf5(model, filepath, by_name=False, skip_mismatch=False):
    """``model.load_weights('w.h5')``: a weights file, or a whole-model file (its
    ``model_weights``)."""
    h5py = _h5py()
    with _open(h5py, filepath) as f:
        if "layer_names" not in f.attrs and "model_weights" in f:
            f = f["model_weights"]
        if by_name:
            load_weights_from_hdf5_group_by_name(f, model.layers, skip_mismatch=skip_mismatch)
        else:
            load_weights_from_hdf5_group(f, model.layers)


def _open(h5py, filepath):
    path = os.fspath(filepath)
    # h5py 2.10's words (the version TF 1.15's Keras ran with)
    if not os.path.exists(path):
        raise OSError(f"Unable to open file (unable to open file: name = '{path}', errno = 2, "
                      "error message = 'No such file or directory', flags = 0, o_flags = 0)")
    if not h5py.is_hdf5(path):
        raise OSError("Unable to open file (file signature not found)")
    return h5py.File(path, "r")


def _makedirs_for(filepath):
    directory = os.path.dirname(os.path.abspath(os.fspath(filepath)))
    os.makedirs(directory, exist_ok=True)


def ask_to_proceed_with_overwrite(filepath):
    """Asks on stdin whether to overwrite ``filepath`` (as Keras's ``overwrite=False``)."""
    answer = input(f"[WARNING] {filepath} already exists - overwrite? [y/n]").strip().lower()
    while answer not in ("y", "n"):
        answer = input('Enter "y" (overwrite) or "n" (cancel).').strip().lower()
    if answer == "n":
        return False
    print("[TIP] Next time specify overwrite=True!")
    return True


# -- whole models --------------------------------------------------------------------------------
def _json_default(obj):
    """JSON for what model and training configs hold: NumPy scalars and arrays, objects with
    ``get_config`` (``{"class_name", "config"}``), functions (their name)."""
    if hasattr(obj, "get_config"):
        return {"class_name": type(obj).__name__, "config": obj.get_config()}
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    if callable(obj) and hasattr(obj, "__name__"):
        if obj.__name__ == "<lambda>" and hasattr(obj, "__code__"):
            from tideflow.keras.layers.core import lambda_for_json

            return lambda_for_json(obj)  # as Keras: a lambda as its bytecode
        return obj.__name__
    if type(obj).__name__ == "Dimension":
        return obj.value
    if type(obj).__name__ == "TensorShape":
        return obj.as_list()
    if type(obj).__name__ == "DType":
        return obj.name
    import tideflow as tf

    if isinstance(obj, (tf.Tensor, tf.Variable)):  # (e.g. a metric's label_smoothing)
        from tideflow.keras import backend as K

        return _json_default(np.asarray(K.get_value(obj)))
    raise TypeError(f"Not JSON Serializable: {obj!r}")


def _is_functional_or_sequential(model):
    from tideflow.keras.engine.sequential import Sequential

    return isinstance(model, Sequential) or getattr(model, "_is_graph_network", False)


def save_model(model, filepath, overwrite=True, include_optimizer=True, save_format=None,
               signatures=None, options=None):
    """``tf.keras.models.save_model`` / ``model.save``: the architecture, the weights and
    (compiled models, ``include_optimizer``) the training configuration and optimizer state
    in one HDF5 file. ``save_format='tf'`` writes a SavedModel instead
    (``tf.keras.experimental.export_saved_model``)."""
    from tideflow.keras import optimizers

    del signatures, options  # SavedModel options: its serving signature is the predict one
    if save_format == "tf" and not hasattr(filepath, "attrs") and \
            os.path.splitext(os.fspath(filepath))[1] not in (".h5", ".keras", ".hdf5"):
        from tideflow.keras import experimental

        experimental.export_saved_model(model, filepath)
        return
    h5py = _h5py()
    if not _is_functional_or_sequential(model):
        raise NotImplementedError(
            "Saving the model to HDF5 format requires the model to be a Functional model or a "
            "Sequential model. It does not work for subclassed models, because such models "
            "are defined via the body of a Python method, which isn't safely serializable. "
            "Consider saving to the Tensorflow SavedModel format (by setting "
            'save_format="tf") or using `save_weights`.')
    opened = hasattr(filepath, "attrs")  # an open h5py.File
    if not opened and not overwrite and os.path.isfile(os.fspath(filepath)) and \
            not ask_to_proceed_with_overwrite(filepath):
        return
    from tideflow.keras.layers.core import json_ready

    model_config = json.dumps({"class_name": type(model).__name__,
                               "config": json_ready(model.get_config())},
                              default=_json_default)
    optimizer = getattr(model, "optimizer", None)
    training_config = None
    if include_optimizer and optimizer is not None:
        if isinstance(optimizer, optimizers.TFOptimizer):
            warnings.warn("TensorFlow optimizers do not make it possible to access optimizer "
                          "attributes or optimizer state after instantiation. As a result, "
                          "we cannot save the optimizer as part of the model save file. You "
                          "will have to compile your model again after loading it. Prefer "
                          "using a Keras optimizer instead (see keras.io/optimizers).")
        else:
            training_config = json.dumps({  # (in TF 1.15's order)
                "loss": model.loss,
                "metrics": _compile_metrics_config(model),
                "weighted_metrics": getattr(model, "_compile_weighted_metrics", None),
                "sample_weight_mode": model.sample_weight_mode,
                "loss_weights": model.loss_weights,
                "optimizer_config": {"class_name": type(optimizer).__name__,
                                     "config": optimizer.get_config()}},
                default=_json_default)
    if opened:
        _write_model(filepath, model_config, training_config, model, optimizer)
        return
    _makedirs_for(filepath)
    with h5py.File(os.fspath(filepath), "w") as f:
        _write_model(f, model_config, training_config, model, optimizer)


def _compile_metrics_config(model):
    """``compile``'s metrics as given: a list, or a dict of output name -> metrics."""
    metrics = getattr(model, "_compile_metrics", None)
    return metrics if isinstance(metrics, dict) else list(metrics or [])


def _write_model(f, model_config, training_config, model, optimizer):
    from tideflow.keras import backend as K

    f.attrs["keras_version"] = KERAS_VERSION.encode("utf8")
    f.attrs["backend"] = b"tensorflow"
    f.attrs["model_config"] = model_config.encode("utf8")
    save_weights_to_hdf5_group(f.create_group("model_weights"), model.layers)
    if training_config is not None:
        f.attrs["training_config"] = training_config.encode("utf8")
        weights = list(optimizer.weights)
        if weights:
            # Keras's optimizers keep OptimizerV2's state (``training/Adam/iter:0``, every
            # ``m``, every ``v``), written under the variables' names as TF does
            names, values = [w.name for w in weights], K.batch_get_value(weights)
            g = f.create_group("optimizer_weights")
            save_attributes_to_hdf5_group(g, "weight_names", names)
            for name, v in zip(names, values):
                _write_dataset(g, name, v)
    f.flush()


def _clean_layer_config(spec):
    """Drops the keys newer Keras writes that mean the TF 1.x default (``InputLayer``'s
    ``ragged``/``optional`` false)."""
    if isinstance(spec, dict):
        if spec.get("class_name") == "InputLayer" and isinstance(spec.get("config"), dict):
            for key in ("ragged", "optional"):
                if spec["config"].get(key) is False:
                    spec["config"].pop(key)
        for value in spec.values():
            _clean_layer_config(value)
    elif isinstance(spec, list):
        for value in spec:
            _clean_layer_config(value)
    return spec


def model_from_config(config, custom_objects=None):
    """A Sequential or functional model from ``{"class_name", "config"}`` (a class of
    ``custom_objects`` when named there)."""
    from tideflow.keras.engine.sequential import Sequential
    from tideflow.keras.engine.training import Model
    from tideflow.keras.utils import get_custom_objects

    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"A model config must be a dict with 'class_name' and 'config'; got "
                         f"{str(config)[:200]}")
    name = config["class_name"]
    cls = ((custom_objects or {}).get(name) or get_custom_objects().get(name)
           or {"Sequential": Sequential, "Model": Model, "Functional": Model}.get(name))
    if cls is None:
        raise ValueError(f"Unknown model class: {name} (pass it in custom_objects).")
    inner = _clean_layer_config(config["config"])
    if issubclass(cls, Sequential) and isinstance(inner, dict):
        layers = inner.get("layers", [])
        if layers and layers[0].get("class_name") == "InputLayer":
            # newer Keras lists the input layer of a Sequential model
            first = layers[0]["config"]
            inner = dict(inner, layers=layers[1:])
            if len(layers) > 1 and "batch_input_shape" not in layers[1]["config"]:
                inner["layers"][0] = dict(layers[1], config=dict(
                    layers[1]["config"], batch_input_shape=first.get("batch_input_shape"),
                    dtype=layers[1]["config"].get("dtype") or first.get("dtype")))
    return cls.from_config(inner, custom_objects=custom_objects)


def _resolve(value, custom_objects, module):
    """A loss or metric from a training config entry: names in ``custom_objects`` become
    those objects; ``{"class_name", "config"}`` becomes an instance of that class."""
    if isinstance(value, list):
        return [_resolve(v, custom_objects, module) for v in value]
    if isinstance(value, dict):
        if set(value) == {"class_name", "config"}:
            name = value["class_name"]
            from tideflow.keras.utils import get_custom_objects

            cls = ((custom_objects or {}).get(name) or get_custom_objects().get(name)
                   or getattr(module, name, None))
            if cls is None:
                raise ValueError(f"Unknown {module.__name__.rsplit('.', 1)[-1][:-1]} class "
                                 f"in the training config: {name} (pass it in "
                                 "custom_objects).")
            return cls.from_config(value["config"]) if hasattr(cls, "from_config") else \
                cls(**value["config"])
        return {k: _resolve(v, custom_objects, module) for k, v in value.items()}
    if isinstance(value, str) and custom_objects and value in custom_objects:
        return custom_objects[value]
    return value


# keys newer Keras writes in optimizer configs (TF 2.x), which TF 1.x optimizers do not take
_NEW_OPTIMIZER_KEYS = ("weight_decay", "use_ema", "ema_momentum", "ema_overwrite_frequency",
                       "jit_compile", "is_legacy_optimizer", "global_clipnorm")


def _optimizer_from_config(config, custom_objects):
    from tideflow.keras import optimizers

    inner = {k: v for k, v in dict(config.get("config", {})).items()
             if k not in _NEW_OPTIMIZER_KEYS}
    return optimizers.deserialize({"class_name": config["class_name"], "config": inner},
                                  custom_objects=custom_objects)


def load_model(filepath, custom_objects=None, compile=True):
    """``tf.keras.models.load_model``: the model of an HDF5 file written by ``save_model``
    (or by TF 1.x Keras), rebuilt in the current graph with its weights; compiled with the
    saved training configuration and optimizer state when ``compile`` and the file has
    them. A SavedModel folder written by ``save_format='tf'`` loads too."""
    from tideflow.keras import losses, metrics

    path = os.fspath(filepath) if not hasattr(filepath, "attrs") else None
    if path is not None and os.path.isdir(path):
        if os.path.isfile(os.path.join(path, "assets", "saved_model.json")):
            from tideflow.keras import experimental

            return experimental.load_from_saved_model(path, custom_objects=custom_objects)
        raise OSError(f"SavedModel file does not exist at: {path}/{{saved_model.pbtxt|"
                      "saved_model.pb}} (nor a Keras model config in its assets)")
    h5py = _h5py()
    if path is not None and not (os.path.isfile(path) and h5py.is_hdf5(path)):
        # TF 1.15 reads what is not an HDF5 file as a SavedModel folder
        raise OSError(f"SavedModel file does not exist at: {path}/{{saved_model.pbtxt|"
                      "saved_model.pb}")
    f = filepath if path is None else _open(h5py, path)
    try:
        raw = f.attrs.get("model_config")
        if raw is None:
            raise ValueError("No model found in config file.")
        model = model_from_config(json.loads(_text(raw)), custom_objects=custom_objects)
        load_weights_from_hdf5_group(f["model_weights"], model.layers)
        if not compile:
            return model
        raw = f.attrs.get("training_config")
        if raw is None:
            warnings.warn("No training configuration found in save file: the model was *not* "
                          "compiled. Compile it manually.")
            return model
        training = json.loads(_text(raw))
        model.compile(
            optimizer=_optimizer_from_config(training["optimizer_config"], custom_objects),
            loss=_resolve(training.get("loss"), custom_objects, losses),
            metrics=_resolve(training.get("metrics"), custom_objects, metrics),
            weighted_metrics=_resolve(training.get("weighted_metrics"), custom_objects,
                                      metrics),
            loss_weights=training.get("loss_weights"),
            sample_weight_mode=training.get("sample_weight_mode"))
        if "optimizer_weights" in f:
            g = f["optimizer_weights"]
            names = load_attributes_from_hdf5_group(g, "weight_names")
            values = [np.asarray(g[n]) for n in names]
            model._make_train_function()
            try:
                model.optimizer.set_weights(values)
            except ValueError:
                warnings.warn("Error in loading the saved optimizer state. As a result, your "
                              "model is starting with a freshly initialized optimizer.")
        return model
    finally:
        if path is not None:
            f.close()


# -- weights from older files -------------------------------------------------------------------


def preprocess_weights_for_loading(layer, weights, original_keras_version=None,
                                   original_backend=None):
    """``weights`` (arrays saved for ``layer``) in the layout ``layer`` uses: each direction
    of a Bidirectional layer and each layer of a model in turn, and, for a Keras 1 file
    (``original_keras_version='1'``), convolution kernels in Keras 2's axis order and the
    per-gate GRU/LSTM arrays joined into Keras 2's kernel, recurrent kernel and bias."""
    del original_backend
    from tideflow.keras.engine.network import Network
    from tideflow.keras.layers import recurrent

    weights = list(weights)
    if isinstance(layer, recurrent.Bidirectional):
        half = len(weights) // 2
        return (preprocess_weights_for_loading(layer.forward_layer, weights[:half],
                                               original_keras_version)
                + preprocess_weights_for_loading(layer.backward_layer, weights[half:],
                                                 original_keras_version))
    if isinstance(layer, Network):
        out = []
        for sub in layer.layers:
            n = len(sub.weights)
            if n:
                out += preprocess_weights_for_loading(sub, weights[:n], original_keras_version)
                weights = weights[n:]
        return out + weights
    if original_keras_version == "1":
        weights = _from_keras1(layer, weights)
    return weights


def _from_keras1(layer, weights):
    from tideflow.keras import layers

    name = type(layer).__name__
    fmt = getattr(layer, "data_format", "channels_last")
    if isinstance(layer, layers.TimeDistributed):
        return preprocess_weights_for_loading(layer.layer, weights, "1")
    if name == "Conv1D" and weights:
        w = np.asarray(weights[0])
        if w.ndim == 4:  # Keras 1: (filters, input_dim, size, 1)
            weights[0] = np.transpose(w, (2, 3, 1, 0))[:, 0, :, :]
    elif name == "Conv2D" and fmt == "channels_first" and weights:
        weights[0] = np.transpose(weights[0], (2, 3, 1, 0))
    elif name == "Conv2DTranspose" and weights:
        axes = (2, 3, 0, 1) if fmt == "channels_first" else (0, 1, 3, 2)
        weights[0] = np.transpose(weights[0], axes)
    elif name == "Conv3D" and fmt == "channels_first" and weights:
        weights[0] = np.transpose(weights[0], (2, 3, 4, 1, 0))
    elif name == "GRU" and len(weights) == 9:
        # Keras 1 kept (W, U, b) per gate: z, r, h
        weights = [np.concatenate([weights[i], weights[i + 3], weights[i + 6]], axis=-1)
                   for i in range(3)]
    elif name == "LSTM" and len(weights) == 12:
        # Keras 1's gate order i, c, f, o; Keras 2's i, f, c, o
        weights = [np.concatenate([weights[i], weights[i + 6], weights[i + 3], weights[i + 9]],
                                  axis=-1) for i in range(3)]
    return weights


# TF 1.x's modules under ``tensorflow.python.keras.saving`` (``hdf5_format``, ``save``,
# ``model_config``): module objects holding this module's functions.
def _add_submodules():
    import importlib.machinery
    import importlib.util
    import sys

    here = sys.modules[__name__]
    here.__path__ = []  # (a package, as TF's, so its submodules import)
    tables = {
        "hdf5_format": {
            "save_weights_to_hdf5_group": save_weights_to_hdf5_group,
            "load_weights_from_hdf5_group": load_weights_from_hdf5_group,
            "load_weights_from_hdf5_group_by_name": load_weights_from_hdf5_group_by_name,
            "save_attributes_to_hdf5_group": save_attributes_to_hdf5_group,
            "load_attributes_from_hdf5_group": load_attributes_from_hdf5_group,
            "preprocess_weights_for_loading": preprocess_weights_for_loading,
            "save_model_to_hdf5": save_model, "load_model_from_hdf5": load_model,
        },
        "save": {"save_model": save_model, "load_model": load_model},
        "model_config": {"model_from_config": model_from_config},
    }
    for short, members in tables.items():
        full = f"{__name__}.{short}"
        module = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(full, None))
        module.__doc__ = f"``keras.saving.{short}`` (TF's module): Keras model saving."
        for name, value in members.items():
            setattr(module, name, value)
        setattr(here, short, sys.modules.setdefault(full, module))


_add_submodules()
