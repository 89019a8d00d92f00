"""``tf.keras.models``: Model, Sequential, save/load and cloning."""

from tideflow.framework import ops
from tideflow.keras.engine.sequential import Sequential
from tideflow.keras.engine.training import Model
from tideflow.keras.saving import load_model, save_model


def model_from_config(config, custom_objects=None):
    """A new model from ``{'class_name', 'config'}`` (``Sequential``, functional, or a model
    class of ``custom_objects``)."""
    from tideflow.keras import saving

    return saving.model_from_config(config, custom_objects=custom_objects)


def model_from_json(json_string, custom_objects=None):
    import json

    return model_from_config(json.loads(json_string), custom_objects=custom_objects)


_YAML_MESSAGE = "Requires yaml module installed (`pip install pyyaml`)."


def model_from_yaml(yaml_string, custom_objects=None):
    """A new model from the YAML of ``model.to_yaml()`` (needs PyYAML; without it,
    Keras's ``ImportError``)."""
    try:
        import yaml
    except ImportError:
        raise ImportError(_YAML_MESSAGE) from None
    return model_from_config(yaml.safe_load(yaml_string), custom_objects=custom_objects)


def share_weights(layer):
    """A ``layer_fn`` for cloning that reuses each layer (and so its weights)."""
    return layer


def _clone_layer(layer):
    from tideflow.keras import layers as layers_mod

    # as TF 1.15: the layer's own class and config, name included
    cls = type(layer)
    if hasattr(cls, "from_config"):
        return cls.from_config(layer.get_config())
    return layers_mod.deserialize({"class_name": cls.__name__, "config": layer.get_config()})


def _input_for(tensor, name):
    """``tensor`` itself when it is a Keras tensor, else an Input wrapping it (no new
    placeholder)."""
    from tideflow.keras import backend as K
    from tideflow.keras.engine.input_layer import Input

    if isinstance(tensor, ops.Tensor) and K.is_keras_tensor(tensor):
        return tensor
    if not isinstance(tensor, ops.Tensor):
        tensor = ops.convert_to_tensor(tensor)
    return Input(tensor=tensor, name="input_wrapper_for_" + name)


def _clone_functional_model(model, input_tensors=None, layer_fn=_clone_layer):
    """A functional model calling new layers (``layer_fn`` of each layer) on new inputs (or
    on ``input_tensors``) the way ``model`` calls its own."""
    from tideflow.keras.engine.base_layer import flatten, map_structure
    from tideflow.keras.engine.input_layer import Input

    if not isinstance(model, Model):
        raise ValueError(  # noqa: TRY004 (as TF)
            f"Expected `model` argument to be a `Model` instance, got {model}")
    if isinstance(model, Sequential):
        raise ValueError(  # noqa: TRY004 (as TF)
            "Expected `model` argument to be a functional `Model` instance, got "
                         f"a `Sequential` instance instead: {model}")
    if not model._is_graph_network:
        raise ValueError("Expected `model` argument to be a functional `Model` instance, but "
                         "got a subclass model instead.")
    if input_tensors is None:
        new_inputs = [Input(batch_shape=tuple(t.get_shape().as_list()),
                            dtype=t.dtype.base_dtype.name, name=name)
                      for t, name in zip(model.inputs, model.input_names)]
    else:
        new_inputs = [_input_for(t, name)
                      for t, name in zip(flatten(input_tensors), model.input_names)]
    tensor_map = {id(old): new for old, new in zip(model.inputs, new_inputs)}
    layer_map = {}
    for node in model._network_nodes:
        layer = node.layer
        if id(layer) not in layer_map:
            layer_map[id(layer)] = layer_fn(layer)
        new_layer = layer_map[id(layer)]
        args = map_structure(lambda t: tensor_map.get(id(t), t), node.inputs)
        kwargs = dict(node.arguments)
        if "mask" in kwargs and not any(id(m) in tensor_map for m in flatten(kwargs["mask"])):
            del kwargs["mask"]  # the inputs' own masks: the new call computes its own
        outs = new_layer(args, **kwargs)
        for old, new in zip(node.output_tensors, flatten(outs)):
            tensor_map[id(old)] = new
    outputs = [tensor_map[id(t)] for t in model.outputs]
    nested = outputs if isinstance(model._nested_outputs, (list, tuple)) else outputs[0]
    return Model(new_inputs if len(new_inputs) > 1 else new_inputs[0], nested, name=model.name)


def _clone_sequential_model(model, input_tensors=None, layer_fn=_clone_layer):
    """A Sequential model of new layers (``layer_fn`` of each), on a copy of the model's own
    InputLayer, or on ``input_tensors`` (one tensor)."""
    from tideflow.keras import backend as K
    from tideflow.keras.engine.base_layer import flatten
    from tideflow.keras.engine.input_layer import InputLayer

    if not isinstance(model, Sequential):
        raise ValueError(  # noqa: TRY004 (as TF)
            "Expected `model` argument to be a `Sequential` model instance, but "
                         f"got: {model}")
    layers = []
    for layer in model._layers:
        if isinstance(layer, InputLayer):
            if input_tensors is None:  # a fresh input layer of the same config
                layers.append(InputLayer.from_config(layer.get_config()))
            continue
        layers.append(layer_fn(layer))
    if input_tensors is None:
        clone = Sequential(name=model.name)
        if (model.inputs and not isinstance(model._layers[0], InputLayer)
                and layers and not hasattr(layers[0], "_batch_input_shape")):
            # (a model built from data: its input shape becomes the clone's)
            t = model.inputs[0]
            clone.add(InputLayer(batch_input_shape=tuple(t.get_shape().as_list()),
                                 dtype=t.dtype.base_dtype.name))
        for layer in layers:
            clone.add(layer)
        return clone
    tensors = flatten(input_tensors)
    if len(tensors) != 1:
        raise ValueError("To clone a `Sequential` model, we expect at most one tensor as part "
                         "of `input_tensors`.")
    x = tensors[0]
    if isinstance(x, ops.Tensor) and K.is_keras_tensor(x):
        origin = K._state(x.graph).history[x][0]
        if not isinstance(origin, InputLayer):
            raise ValueError("Cannot clone a `Sequential` model on top of a tensor that comes "
                             "from a Keras layer other than an `InputLayer`. Use the "
                             "functional API instead.")
    else:
        x = _input_for(x, getattr(x, "name", "input").split(":")[0])
        origin = K._state(x.graph).history[x][0]
    clone = Sequential(name=model.name)
    clone.add(origin)
    for layer in layers:
        clone.add(layer)
    return clone


def clone_model(model, input_tensors=None, clone_function=None):
    """A model of the same architecture with new layers (and new, freshly initialized
    weights): each layer is rebuilt from its config (or by ``clone_function``) and the calls
    of the original graph are replayed on new inputs."""
    layer_fn = clone_function or _clone_layer
    if isinstance(model, Sequential):
        return _clone_sequential_model(model, input_tensors=input_tensors, layer_fn=layer_fn)
    return _clone_functional_model(model, input_tensors=input_tensors, layer_fn=layer_fn)


def clone_and_build_model(model, input_tensors=None, target_tensors=None, custom_objects=None,
                          compile_clone=True, in_place_reset=False, optimizer_iterations=None,
                          optimizer_config=None):
    """A clone of ``model`` (functional or Sequential; a subclassed model is reused in
    place), compiled as the original when ``compile_clone``."""
    from tideflow.keras import optimizers
    from tideflow.keras.utils import CustomObjectScope

    del optimizer_iterations
    compiled = getattr(model, "_compiled", False)
    if compile_clone and not compiled:
        raise ValueError("Error when cloning model: compile_clone was set to True, but the "
                         "original model has not been compiled.")
    with CustomObjectScope(custom_objects or {}):
        if isinstance(model, Sequential) or model._is_graph_network:
            clone = clone_model(model, input_tensors=input_tensors)
        else:
            if not in_place_reset:
                raise ValueError(
                    "This model is a subclassed model. Such a model cannot be cloned, but "
                    "there is a workaround where the model is reset in-place. To use this, "
                    "please set the argument `in_place_reset` to `True`. This will reset the "
                    "attributes in the original model. To restore the attributes, call "
                    "`in_place_subclassed_model_state_restoration(model)`.")
            clone = model
            clone._compiled = False  # (the model is reset in place: compiled anew below)
            clone._train_fn = clone._test_fn = None
    if compile_clone:
        optimizer = model.optimizer
        if isinstance(optimizer, optimizers.Optimizer):
            config = optimizer_config or optimizer.get_config()
            optimizer = type(optimizer).from_config(config)
        clone.compile(optimizer, model.loss, metrics=getattr(model, "_compile_metrics", None),
                      loss_weights=getattr(model, "loss_weights", None),
                      sample_weight_mode=getattr(model, "sample_weight_mode", None),
                      weighted_metrics=getattr(model, "_compile_weighted_metrics", None),
                      target_tensors=target_tensors)
    return clone


__all__ = ["Model", "Sequential", "clone_and_build_model", "clone_model", "load_model", "model_from_config",
           "model_from_json", "save_model"]
