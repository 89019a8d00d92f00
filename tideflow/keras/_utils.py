"""Helpers shared by the Keras modules: looking up objects by name or config."""

from tideflow.ops.layers_base import _to_snake_case

snake_case = _to_snake_case  # class names to layer/object names, as tf.layers names them


def deserialize(identifier, table, kind, custom_objects=None, instantiate=True):
    """An object from a name, a ``{'class_name', 'config'}`` dict, or itself when callable."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        name = identifier["class_name"]
        config = identifier.get("config", {})
        cls = (custom_objects or {}).get(name) or table.get(name)
        if cls is None:
            raise ValueError(f"Unknown {kind}: {name}")
        return cls(**config) if isinstance(cls, type) else cls
    if isinstance(identifier, str):
        obj = (custom_objects or {}).get(identifier) or table.get(identifier)
        if obj is None:
            raise ValueError(f"Unknown {kind}: {identifier}")
        return obj() if instantiate else obj
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret {kind} identifier: {identifier}")
