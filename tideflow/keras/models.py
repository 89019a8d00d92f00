"""``tf.keras.models``: Model, Sequential, save/load and cloning."""

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


def _clone_layer(layer):
    from tideflow.keras import layers as layers_mod

    # as TF 1.15: the layer's own class and config, name included
    cls = type(layer)
    if hasattr(cls, "from_config"):
        return cls.from_config(layer.get_config())
    return layers_mod.deserialize({"class_name": cls.__name__, "config": layer.get_config()})


def clone_model(model, input_tensors=None, clone_function=None):
    """A model of the same architecture with new layers (and new, freshly initialized
    weights): each layer is rebuilt from its config (or by ``clone_function``) and the calls
    of the original graph are replayed on new inputs."""
    from tideflow.keras.engine.base_layer import flatten, map_structure
    from tideflow.keras.engine.input_layer import Input, InputLayer

    clone_function = clone_function or _clone_layer
    if isinstance(model, Sequential):
        layers = [clone_function(la) for la in model.layers]
        if input_tensors is not None:
            x = flatten(input_tensors)[0]
            return Model(x, Sequential(layers, name=model.name)(x))
        clone = Sequential(name=model.name)
        if model.inputs and not hasattr(model.layers[0], "_batch_input_shape"):
            t = model.inputs[0]
            clone.add(InputLayer(batch_input_shape=tuple(t.get_shape().as_list()),
                                 dtype=t.dtype.base_dtype.name))
        for layer in layers:
            clone.add(layer)
        return clone
    if not model._is_graph_network:
        raise ValueError("Expected `model` to be a functional `Model` instance, but got a "
                         "subclass model instead.")
    if input_tensors is None:
        new_inputs = [Input(batch_shape=tuple(t.get_shape().as_list()),
                            dtype=t.dtype.base_dtype.name, name=name)
                      for t, name in zip(model.inputs, model.input_names)]
    else:
        new_inputs = flatten(input_tensors)
    tensor_map = {id(old): new for old, new in zip(model.inputs, new_inputs)}
    layer_map = {}
    for node in model._network_nodes:
        layer = node.layer
        if id(layer) not in layer_map:
            layer_map[id(layer)] = clone_function(layer)
        new_layer = layer_map[id(layer)]
        args = map_structure(lambda t: tensor_map.get(id(t), t), node.inputs)
        outs = new_layer(args, **node.arguments)
        for old, new in zip(node.output_tensors, flatten(outs)):
            tensor_map[id(old)] = new
    outputs = [tensor_map[id(t)] for t in model.outputs]
    nested = outputs if isinstance(model._nested_outputs, (list, tuple)) else outputs[0]
    return Model(new_inputs if len(new_inputs) > 1 else new_inputs[0], nested, name=model.name)


__all__ = ["Model", "Sequential", "clone_model", "load_model", "model_from_config",
           "model_from_json", "save_model"]
