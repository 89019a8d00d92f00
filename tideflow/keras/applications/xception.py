"""``tf.keras.applications.xception``: Xception (keras_applications 1.0.8's layers and names;
the residual 1x1 convolutions and the sums keep Keras's automatic names)."""

from tideflow.keras.applications import _common
from tideflow.keras.applications._common import tf_mode_preprocess_input as preprocess_input
from tideflow.keras.applications.imagenet_utils import decode_predictions

_BASE = "https://github.com/fchollet/deep-learning-models/releases/download/v0.4/"
TF_WEIGHTS_PATH = _BASE + "xception_weights_tf_dim_ordering_tf_kernels.h5"
TF_WEIGHTS_PATH_NO_TOP = _BASE + "xception_weights_tf_dim_ordering_tf_kernels_notop.h5"


def Xception(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
             pooling=None, classes=1000, **kwargs):
    """Xception, for 299x299 RGB images by default (at least 71x71)."""
    from tideflow.keras import backend as K
    from tideflow.keras import layers

    img_input = _common.checked_image_input(weights, include_top, classes, input_tensor,
                                            input_shape, 299, 71)
    axis = 1 if K.image_data_format() == "channels_first" else -1

    def bn(x, name=None):
        return layers.BatchNormalization(axis=axis, name=name)(x)

    def relu(x, name):
        return layers.Activation("relu", name=name)(x)

    def sepconv(x, filters, name):
        x = layers.SeparableConv2D(filters, (3, 3), padding="same", use_bias=False,
                                   name=name)(x)
        return bn(x, name + "_bn")

    def shortcut(x, filters):
        x = layers.Conv2D(filters, (1, 1), strides=(2, 2), padding="same", use_bias=False)(x)
        return bn(x)

    x = layers.Conv2D(32, (3, 3), strides=(2, 2), use_bias=False, name="block1_conv1")(img_input)
    x = relu(bn(x, "block1_conv1_bn"), "block1_conv1_act")
    x = layers.Conv2D(64, (3, 3), use_bias=False, name="block1_conv2")(x)
    x = relu(bn(x, "block1_conv2_bn"), "block1_conv2_act")

    # entry flow: blocks 2-4 halve the size (block 2 starts without an activation)
    for block, filters in ((2, 128), (3, 256), (4, 728)):
        residual = shortcut(x, filters)
        if block != 2:
            x = relu(x, f"block{block}_sepconv1_act")
        x = sepconv(x, filters, f"block{block}_sepconv1")
        x = relu(x, f"block{block}_sepconv2_act")
        x = sepconv(x, filters, f"block{block}_sepconv2")
        x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same",
                                name=f"block{block}_pool")(x)
        x = layers.add([x, residual])

    # middle flow: blocks 5-12
    for i in range(8):
        residual = x
        prefix = f"block{i + 5}"
        for j in (1, 2, 3):
            x = relu(x, f"{prefix}_sepconv{j}_act")
            x = sepconv(x, 728, f"{prefix}_sepconv{j}")
        x = layers.add([x, residual])

    # exit flow
    residual = shortcut(x, 1024)
    x = relu(x, "block13_sepconv1_act")
    x = sepconv(x, 728, "block13_sepconv1")
    x = relu(x, "block13_sepconv2_act")
    x = sepconv(x, 1024, "block13_sepconv2")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same", name="block13_pool")(x)
    x = layers.add([x, residual])
    x = relu(sepconv(x, 1536, "block14_sepconv1"), "block14_sepconv1_act")
    x = relu(sepconv(x, 2048, "block14_sepconv2"), "block14_sepconv2_act")

    x = _common.pool_or_top(x, include_top, pooling, _common.avg_pool_softmax(classes))
    model = _common.make_model(img_input, input_tensor, x, "xception")
    return _common.load_keras_weights(
        model, weights, include_top, "xception", _BASE,
        ("0a58e3b7378bc2990ea3b43d5981f1f6", "b0042744bf5b25fce3cb969f33bebb97"))


__all__ = ["Xception", "decode_predictions", "preprocess_input"]
