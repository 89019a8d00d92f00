"""What the application models share: argument checks, the input layer, the model, weights."""

import os

from tideflow.keras import backend as K
from tideflow.keras.applications.imagenet_utils import _obtain_input_shape, fetch, preprocess_input


def check_weights(weights, include_top, classes, imagenet_msg=None):
    """keras_applications' two argument checks on ``weights``."""
    if not (weights in {"imagenet", None} or os.path.exists(weights)):
        raise ValueError("The `weights` argument should be either `None` (random "
                         "initialization), `imagenet` (pre-training on ImageNet), or the path "
                         "to the weights file to be loaded.")
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError(imagenet_msg or ('If using `weights` as `"imagenet"` with '
                                          "`include_top` as true, `classes` should be 1000"))


def layers_of(kwargs):
    """The layers module a model builds from: ``layers=`` as TF 1.x's applications take it
    (an object standing in for ``tf.keras.layers``, e.g. overriding Conv2D's padding), else
    ``tf.keras.layers``."""
    from tideflow.keras import layers

    return kwargs.get("layers") or layers


def image_input(input_tensor, input_shape, layers=None):
    """The model's image input: a new ``Input``, the Keras tensor given, or an ``Input``
    wrapping a plain tensor (``layers.Input`` where a layers module is given)."""
    from tideflow.keras.engine.input_layer import Input

    if input_tensor is None:
        if layers is not None:
            return layers.Input(shape=input_shape)
        return Input(shape=input_shape)
    if not K.is_keras_tensor(input_tensor):
        return Input(tensor=input_tensor, shape=input_shape)
    return input_tensor


def checked_image_input(weights, include_top, classes, input_tensor, input_shape,
                        default_size, min_size):
    """``check_weights``, then the image input of the checked or default input shape
    (``default_size`` square, at least ``min_size``)."""
    check_weights(weights, include_top, classes)
    input_shape = _obtain_input_shape(input_shape, default_size=default_size, min_size=min_size,
                                      data_format=K.image_data_format(),
                                      require_flatten=include_top, weights=weights)
    return image_input(input_tensor, input_shape)


def get_source_inputs(tensor):
    """The ``Input`` tensors a Keras tensor is computed from."""
    from tideflow.keras.engine.input_layer import InputLayer

    history = K._state(tensor.graph).history
    found, seen, stack = [], set(), [tensor]
    while stack:
        t = stack.pop()
        h = history.get(t)
        if h is None:
            if t not in found:
                found.append(t)
            continue
        layer, node_index, _ = h
        if isinstance(layer, InputLayer):
            if t not in found:
                found.append(t)
            continue
        node = layer._inbound_nodes[node_index]
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.extend(reversed([x for x in node.input_tensors if x is not None]))
    return found


def make_model(img_input, input_tensor, x, name):
    from tideflow.keras.engine.training import Model

    inputs = get_source_inputs(input_tensor) if input_tensor is not None else img_input
    return Model(inputs, x, name=name)


def pool_or_top(x, include_top, pooling, top_fn):
    """The top (``top_fn(x)``) or the optional global pooling of the feature maps."""
    from tideflow.keras import layers

    if include_top:
        return top_fn(x)
    if pooling == "avg":
        return layers.GlobalAveragePooling2D()(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D()(x)
    return x


def avg_pool_softmax(classes, dense_name="predictions", pool_name="avg_pool"):
    """A ``top_fn``: global average pooling (``pool_name``, None for Keras's automatic
    name), then the softmax ``dense_name`` layer of ``classes`` units."""
    from tideflow.keras import layers

    def top(x):
        x = layers.GlobalAveragePooling2D(name=pool_name)(x)
        return layers.Dense(classes, activation="softmax", name=dense_name)(x)

    return top


def named_pool_or_top(x, include_top, pooling, classes, dense_name):
    """The ResNet and DenseNet ending: ``avg_pool`` then the softmax ``dense_name`` layer,
    or the optional global pooling (``avg_pool`` or ``max_pool``)."""
    from tideflow.keras import layers

    if include_top:
        return avg_pool_softmax(classes, dense_name)(x)
    if pooling == "avg":
        return layers.GlobalAveragePooling2D(name="avg_pool")(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D(name="max_pool")(x)
    return x


def load_weights(model, weights, fname=None, origin=None, file_hash=None):
    """ImageNet weights through ``get_file`` (the Keras cache), or a weights file's path."""
    if weights == "imagenet":
        model.load_weights(fetch(fname, origin, file_hash))
    elif weights is not None:
        model.load_weights(weights)
    return model


def load_keras_weights(model, weights, include_top, name, base_url, hashes):
    """``weights``: ImageNet's ``<name>_weights_tf_dim_ordering_tf_kernels[_notop].h5`` from
    ``base_url`` (``hashes``: the files' with and without the top), or a weights file's
    path, or None."""
    if weights != "imagenet":
        return load_weights(model, weights)
    fname = f"{name}_weights_tf_dim_ordering_tf_kernels{'' if include_top else '_notop'}.h5"
    return load_weights(model, weights, fname, base_url + fname, hashes[0 if include_top else 1])


def bn_axis():
    return 3 if K.image_data_format() == "channels_last" else 1


def tf_mode_preprocess_input(x, data_format=None, **kwargs):
    """The ``preprocess_input`` of the Inception, Xception, MobileNet, NASNet and ResNetV2
    models: 'tf' preprocessing, pixels scaled to [-1, 1]."""
    return preprocess_input(x, data_format=data_format, mode="tf")
