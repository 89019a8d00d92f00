"""``tf.keras.models``: Model, Sequential, save/load and cloning."""

from tideflow.keras.engine.sequential import Sequential
from tideflow.keras.engine.training import Model
from tideflow.keras.saving import load_model, save_model


def model_from_config(config, custom_objects=None):
    from tideflow.keras import layers as layers_mod

    if config.get("class_name") == "Sequential":
        model = Sequential(name=config["config"].get("name"))
        for spec in config["config"]["layers"]:
            cls = (custom_objects or {}).get(spec["class_name"]) or getattr(
                layers_mod, spec["class_name"])
            model.add(cls.from_config(spec["config"]))
        return model
    raise NotImplementedError("model_from_config supports Sequential models only.")


def model_from_json(json_string, custom_objects=None):
    import json

    return model_from_config(json.loads(json_string), custom_objects=custom_objects)


def clone_model(model, input_tensors=None, clone_function=None):
    """A new model of the same architecture with fresh weights (Sequential models)."""
    if isinstance(model, Sequential):
        import json

        config = json.loads(model.to_json())
        for spec in config["config"]["layers"]:
            spec["config"].pop("name", None)
        return model_from_config(config)
    raise NotImplementedError("clone_model supports Sequential models only.")


__all__ = ["Model", "Sequential", "clone_model", "load_model", "model_from_config",
           "model_from_json", "save_model"]
