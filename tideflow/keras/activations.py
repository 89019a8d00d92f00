"""``tf.keras.activations``: activation functions, and ``get``/``serialize``/``deserialize``."""

import tideflow as tf
from tideflow.keras import backend as K
from tideflow.keras._utils import deserialize as _deserialize


def softmax(x, axis=-1):
    """Softmax over ``axis`` as TF 1.15's Keras: a matrix takes the Softmax op over its last
    axis whatever ``axis`` says; higher ranks exp(x - max) / sum over ``axis``, in ops."""
    rank = K.ndim(x)
    if rank == 2:
        return tf.nn.softmax(x)
    if rank is not None and rank > 2:
        e = tf.exp(x - tf.reduce_max(x, axis=axis, keepdims=True))
        return e / tf.reduce_sum(e, axis=axis, keepdims=True)
    raise ValueError(f"Cannot apply softmax to a tensor that is 1D. Received input: {x}")


def elu(x, alpha=1.0):
    return K.elu(x, alpha)


def selu(x):
    """``scale * elu(x, alpha)``, made as TF 1.15's Keras makes it (Elu, the select of its
    negative part times alpha, then the scale)."""
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return scale * K.elu(x, alpha)


def softplus(x):
    return tf.nn.softplus(x)


def softsign(x):
    return tf.nn.softsign(x)


def relu(x, alpha=0.0, max_value=None, threshold=0):
    return K.relu(x, alpha=alpha, max_value=max_value, threshold=threshold)


def tanh(x):
    return tf.nn.tanh(x)


def sigmoid(x):
    return tf.nn.sigmoid(x)


def exponential(x):
    return tf.exp(x)


def hard_sigmoid(x):
    return K.hard_sigmoid(x)


def linear(x):
    return x


_TABLE = {
    "softmax": softmax, "elu": elu, "selu": selu, "softplus": softplus, "softsign": softsign,
    "relu": relu, "tanh": tanh, "sigmoid": sigmoid, "exponential": exponential,
    "hard_sigmoid": hard_sigmoid, "linear": linear,
}


def serialize(activation):
    """An activation's name (TF 2's ``softmax_v2`` is 'softmax'); a layer used as an
    activation serializes as its ``{'class_name', 'config'}``."""
    name = getattr(activation, "__name__", None)
    if name in ("softmax_v2", "log_softmax_v2"):
        return name[:-3]
    if name is None and hasattr(activation, "get_config"):
        return {"class_name": type(activation).__name__, "config": activation.get_config()}
    if name in _TABLE and _TABLE[name] is activation:
        return name
    if name in ("relu", "tanh", "sigmoid", "softmax", "elu", "selu", "softplus", "softsign"):
        return name
    return name or str(activation)


def deserialize(name, custom_objects=None):
    return _deserialize(name, _TABLE, "activation function", custom_objects,
                        instantiate=False)


def get(identifier):
    """An activation function from a name, a function, or None (linear)."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    if isinstance(identifier, dict):  # a layer used as an activation (its config)
        from tideflow.keras import layers
        from tideflow.keras.utils import deserialize_keras_object

        return deserialize_keras_object(identifier, module_objects=vars(layers),
                                        printable_module_name="activation")
    raise ValueError(f"Could not interpret activation function identifier: {identifier}")
