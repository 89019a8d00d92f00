"""``tf.keras.applications.densenet``: DenseNet121/169/201 (keras_applications 1.0.8's layers
and names: ``conv1/conv``, ``conv2_block1_0_bn``..., ``bn``, ``relu``, ``fc1000``)."""

from tideflow.keras.applications import _common
from tideflow.keras.applications.imagenet_utils import decode_predictions
from tideflow.keras.applications.imagenet_utils import preprocess_input as _preprocess

BASE_WEIGTHS_PATH = ("https://github.com/keras-team/keras-applications/releases/download/"
                     "densenet/")
_HASHES = {
    "densenet121": ("9d60b8095a5708f2dcce2bca79d332c7", "30ee3e1110167f948a6b9946edeeb738"),
    "densenet169": ("d699b8f76981ab1b30698df4c175e90b", "b8c4d4c20dd625c148057b9ff1c1176b"),
    "densenet201": ("1ceb130c1ea1b78c3bf6114dbdfd8807", "c13680b51ded0fb44dff2d8f86ac8bb1"),
}
_NAMES = {(6, 12, 24, 16): "densenet121", (6, 12, 32, 32): "densenet169",
          (6, 12, 48, 32): "densenet201"}
_EPS = 1.001e-5


def dense_block(x, blocks, name):
    for i in range(blocks):
        x = conv_block(x, 32, name=f"{name}_block{i + 1}")
    return x


def transition_block(x, reduction, name):
    from tideflow.keras import backend as K
    from tideflow.keras import layers

    axis = _common.bn_axis()
    x = layers.BatchNormalization(axis=axis, epsilon=_EPS, name=name + "_bn")(x)
    x = layers.Activation("relu", name=name + "_relu")(x)
    x = layers.Conv2D(int(K.int_shape(x)[axis] * reduction), 1, use_bias=False,
                      name=name + "_conv")(x)
    return layers.AveragePooling2D(2, strides=2, name=name + "_pool")(x)


def conv_block(x, growth_rate, name):
    from tideflow.keras import layers

    axis = _common.bn_axis()
    x1 = layers.BatchNormalization(axis=axis, epsilon=_EPS, name=name + "_0_bn")(x)
    x1 = layers.Activation("relu", name=name + "_0_relu")(x1)
    x1 = layers.Conv2D(4 * growth_rate, 1, use_bias=False, name=name + "_1_conv")(x1)
    x1 = layers.BatchNormalization(axis=axis, epsilon=_EPS, name=name + "_1_bn")(x1)
    x1 = layers.Activation("relu", name=name + "_1_relu")(x1)
    x1 = layers.Conv2D(growth_rate, 3, padding="same", use_bias=False,
                       name=name + "_2_conv")(x1)
    return layers.Concatenate(axis=axis, name=name + "_concat")([x, x1])


def DenseNet(blocks, include_top=True, weights="imagenet", input_tensor=None,
             input_shape=None, pooling=None, classes=1000, **kwargs):
    """A DenseNet of four dense blocks of ``blocks`` conv blocks each, for 224x224 RGB images
    by default (at least 32x32)."""
    from tideflow.keras import layers

    img_input = _common.checked_image_input(weights, include_top, classes, input_tensor,
                                            input_shape, 224, 32)
    axis = _common.bn_axis()
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)))(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=False, name="conv1/conv")(x)
    x = layers.BatchNormalization(axis=axis, epsilon=_EPS, name="conv1/bn")(x)
    x = layers.Activation("relu", name="conv1/relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1")(x)
    for i, n in enumerate(blocks):
        x = dense_block(x, n, name=f"conv{i + 2}")
        if i < len(blocks) - 1:
            x = transition_block(x, 0.5, name=f"pool{i + 2}")
    x = layers.BatchNormalization(axis=axis, epsilon=_EPS, name="bn")(x)
    x = layers.Activation("relu", name="relu")(x)
    x = _common.named_pool_or_top(x, include_top, pooling, classes, "fc1000")
    name = _NAMES.get(tuple(blocks), "densenet")
    model = _common.make_model(img_input, input_tensor, x, name)
    if weights == "imagenet" and name not in _HASHES:  # Keras has no file for other depths
        raise ValueError(f"There are no ImageNet weights for a DenseNet of blocks {blocks}.")
    return _common.load_keras_weights(model, weights, include_top, name, BASE_WEIGTHS_PATH,
                                      _HASHES.get(name))


def DenseNet121(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, **kwargs):
    """DenseNet121 (blocks 6, 12, 24, 16), 'torch' preprocessing."""
    return DenseNet([6, 12, 24, 16], include_top, weights, input_tensor, input_shape,
                    pooling, classes)


def DenseNet169(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, **kwargs):
    """DenseNet169 (blocks 6, 12, 32, 32), 'torch' preprocessing."""
    return DenseNet([6, 12, 32, 32], include_top, weights, input_tensor, input_shape,
                    pooling, classes)


def DenseNet201(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, **kwargs):
    """DenseNet201 (blocks 6, 12, 48, 32), 'torch' preprocessing."""
    return DenseNet([6, 12, 48, 32], include_top, weights, input_tensor, input_shape,
                    pooling, classes)


def preprocess_input(x, data_format=None, **kwargs):
    """'torch' preprocessing: pixels scaled to [0, 1], then the ImageNet mean/std."""
    return _preprocess(x, data_format=data_format, mode="torch")


__all__ = ["DenseNet121", "DenseNet169", "DenseNet201", "decode_predictions",
           "preprocess_input"]
