"""``tf.keras.applications.inception_resnet_v2``: Inception-ResNet V2 (keras_applications
1.0.8's layers and names; the scaled residual sums are ``Lambda`` layers, as there)."""

from tideflow.keras.applications import _common
from tideflow.keras.applications._common import tf_mode_preprocess_input as preprocess_input
from tideflow.keras.applications.imagenet_utils import decode_predictions
from tideflow.keras.applications.inception_v3 import _channel_axis

BASE_WEIGHT_URL = "https://github.com/fchollet/deep-learning-models/releases/download/v0.7/"


def conv2d_bn(x, filters, kernel_size, strides=1, padding="same", activation="relu",
              use_bias=False, name=None):
    """Convolution, batch normalization (no scale; only without a bias), activation."""
    from tideflow.keras import layers

    x = layers.Conv2D(filters, kernel_size, strides=strides, padding=padding,
                      use_bias=use_bias, name=name)(x)
    if not use_bias:
        bn_name = None if name is None else name + "_bn"
        x = layers.BatchNormalization(axis=_channel_axis(), scale=False, name=bn_name)(x)
    if activation is not None:
        ac_name = None if name is None else name + "_ac"
        x = layers.Activation(activation, name=ac_name)(x)
    return x


def _scaled_sum(inputs, scale):
    return inputs[0] + inputs[1] * scale


def inception_resnet_block(x, scale, block_type, block_idx, activation="relu"):
    """One Inception-ResNet block: ``x + scale * conv(concat(branches))``."""
    from tideflow.keras import backend as K
    from tideflow.keras import layers

    if block_type == "block35":
        branch_0 = conv2d_bn(x, 32, 1)
        branch_1 = conv2d_bn(conv2d_bn(x, 32, 1), 32, 3)
        branch_2 = conv2d_bn(conv2d_bn(conv2d_bn(x, 32, 1), 48, 3), 64, 3)
        branches = [branch_0, branch_1, branch_2]
    elif block_type == "block17":
        branch_0 = conv2d_bn(x, 192, 1)
        branch_1 = conv2d_bn(conv2d_bn(conv2d_bn(x, 128, 1), 160, [1, 7]), 192, [7, 1])
        branches = [branch_0, branch_1]
    elif block_type == "block8":
        branch_0 = conv2d_bn(x, 192, 1)
        branch_1 = conv2d_bn(conv2d_bn(conv2d_bn(x, 192, 1), 224, [1, 3]), 256, [3, 1])
        branches = [branch_0, branch_1]
    else:
        raise ValueError('Unknown Inception-ResNet block type. Expects "block35", "block17" '
                         f'or "block8", but got: {block_type}')
    block_name = f"{block_type}_{block_idx}"
    axis = _channel_axis()
    mixed = layers.Concatenate(axis=axis, name=block_name + "_mixed")(branches)
    up = conv2d_bn(mixed, K.int_shape(x)[axis], 1, activation=None, use_bias=True,
                   name=block_name + "_conv")
    x = layers.Lambda(_scaled_sum, output_shape=K.int_shape(x)[1:],
                      arguments={"scale": scale}, name=block_name)([x, up])
    if activation is not None:
        x = layers.Activation(activation, name=block_name + "_ac")(x)
    return x


def InceptionResNetV2(include_top=True, weights="imagenet", input_tensor=None,
                      input_shape=None, pooling=None, classes=1000, **kwargs):
    """Inception-ResNet V2, for 299x299 RGB images by default (at least 75x75)."""
    from tideflow.keras import layers

    img_input = _common.checked_image_input(weights, include_top, classes, input_tensor,
                                            input_shape, 299, 75)
    axis = _channel_axis()

    # stem
    x = conv2d_bn(img_input, 32, 3, strides=2, padding="valid")
    x = conv2d_bn(x, 32, 3, padding="valid")
    x = conv2d_bn(x, 64, 3)
    x = layers.MaxPooling2D(3, strides=2)(x)
    x = conv2d_bn(x, 80, 1, padding="valid")
    x = conv2d_bn(x, 192, 3, padding="valid")
    x = layers.MaxPooling2D(3, strides=2)(x)

    # mixed 5b (Inception-A): 35 x 35 x 320
    branch_0 = conv2d_bn(x, 96, 1)
    branch_1 = conv2d_bn(conv2d_bn(x, 48, 1), 64, 5)
    branch_2 = conv2d_bn(conv2d_bn(conv2d_bn(x, 64, 1), 96, 3), 96, 3)
    branch_pool = layers.AveragePooling2D(3, strides=1, padding="same")(x)
    branch_pool = conv2d_bn(branch_pool, 64, 1)
    x = layers.Concatenate(axis=axis, name="mixed_5b")(
        [branch_0, branch_1, branch_2, branch_pool])
    for block_idx in range(1, 11):
        x = inception_resnet_block(x, scale=0.17, block_type="block35", block_idx=block_idx)

    # mixed 6a (Reduction-A): 17 x 17 x 1088
    branch_0 = conv2d_bn(x, 384, 3, strides=2, padding="valid")
    branch_1 = conv2d_bn(conv2d_bn(conv2d_bn(x, 256, 1), 256, 3), 384, 3, strides=2,
                         padding="valid")
    branch_pool = layers.MaxPooling2D(3, strides=2, padding="valid")(x)
    x = layers.Concatenate(axis=axis, name="mixed_6a")([branch_0, branch_1, branch_pool])
    for block_idx in range(1, 21):
        x = inception_resnet_block(x, scale=0.1, block_type="block17", block_idx=block_idx)

    # mixed 7a (Reduction-B): 8 x 8 x 2080
    branch_0 = conv2d_bn(conv2d_bn(x, 256, 1), 384, 3, strides=2, padding="valid")
    branch_1 = conv2d_bn(conv2d_bn(x, 256, 1), 288, 3, strides=2, padding="valid")
    branch_2 = conv2d_bn(conv2d_bn(conv2d_bn(x, 256, 1), 288, 3), 320, 3, strides=2,
                         padding="valid")
    branch_pool = layers.MaxPooling2D(3, strides=2, padding="valid")(x)
    x = layers.Concatenate(axis=axis, name="mixed_7a")(
        [branch_0, branch_1, branch_2, branch_pool])
    for block_idx in range(1, 10):
        x = inception_resnet_block(x, scale=0.2, block_type="block8", block_idx=block_idx)
    x = inception_resnet_block(x, scale=1.0, activation=None, block_type="block8",
                               block_idx=10)
    x = conv2d_bn(x, 1536, 1, name="conv_7b")

    x = _common.pool_or_top(x, include_top, pooling, _common.avg_pool_softmax(classes))
    model = _common.make_model(img_input, input_tensor, x, "inception_resnet_v2")
    return _common.load_keras_weights(
        model, weights, include_top, "inception_resnet_v2", BASE_WEIGHT_URL,
        ("e693bd0210a403b3192acc6073ad2e96", "d19885ff4a710c122648d3b5c3b684e4"))


__all__ = ["InceptionResNetV2", "decode_predictions", "preprocess_input"]
