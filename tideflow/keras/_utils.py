"""Helpers shared by the Keras modules: looking up objects by name or config."""

from tideflow.ops.layers_base import _to_snake_case

snake_case = _to_snake_case  # class names to layer/object names, as tf.layers names them


def deserialize(identifier, table, kind, custom_objects=None, instantiate=True):
    """An object from a name, a ``{'class_name', 'config'}`` dict, or itself when callable."""
    if identifier is None:
        return None
    if isinstance(identifier, (dict, str)):
        from tideflow.keras.utils import get_custom_objects

        # the objects of an active CustomObjectScope count too, as in TF
        custom_objects = {**get_custom_objects(), **(custom_objects or {})}
    if isinstance(identifier, dict):
        name = identifier["class_name"]
        config = identifier.get("config", {})
        cls = custom_objects.get(name) or table.get(name)
        if cls is None:
            raise ValueError(f"Unknown {kind}: {name}")
        return cls(**config) if isinstance(cls, type) else cls
    if isinstance(identifier, str):
        custom = custom_objects.get(identifier)
        if custom is not None:  # a user's function is itself; a class is instantiated
            return custom() if instantiate and isinstance(custom, type) else custom
        obj = table.get(identifier)
        if obj is None:  # (TF 1.15's words: no space after the colon for a name)
            raise ValueError(f"Unknown {kind}:{identifier}")
        return obj() if instantiate else obj
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret {kind} identifier: {identifier}")


# TF 1.15's keras.utils.tf_utils registry: the types (besides Tensor) whose instances Keras
# layers take and return as they are, as symbolic values (TF Probability registers its
# distributions, which its layers output)
_SYMBOLIC_TYPES = []


def register_symbolic_tensor_type(cls):
    """Lets Keras layers pass instances of ``cls`` through as symbolic values."""
    _SYMBOLIC_TYPES.append(cls)


def is_registered_symbolic(value):
    return bool(_SYMBOLIC_TYPES) and isinstance(value, tuple(_SYMBOLIC_TYPES))


def is_symbolic_tensor(tensor):
    """Whether ``tensor`` is a graph tensor or an instance of a registered symbolic type."""
    from tideflow.framework import ops
    from tideflow.framework.sparse_tensor import SparseTensor

    return isinstance(tensor, (ops.Tensor, SparseTensor)) or is_registered_symbolic(tensor)
