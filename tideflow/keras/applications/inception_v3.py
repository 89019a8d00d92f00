"""``tf.keras.applications.inception_v3``: Inception V3 (keras_applications 1.0.8's layers; the
convolutions of the branches keep Keras's automatic names: ``conv2d_N``, ``batch_normalization_N``,
``activation_N``)."""

from tideflow.keras.applications import _common
from tideflow.keras.applications._common import tf_mode_preprocess_input as preprocess_input
from tideflow.keras.applications.imagenet_utils import decode_predictions

_BASE = "https://github.com/fchollet/deep-learning-models/releases/download/v0.5/"
WEIGHTS_PATH = _BASE + "inception_v3_weights_tf_dim_ordering_tf_kernels.h5"
WEIGHTS_PATH_NO_TOP = _BASE + "inception_v3_weights_tf_dim_ordering_tf_kernels_notop.h5"


def _channel_axis():
    from tideflow.keras import backend as K

    return 1 if K.image_data_format() == "channels_first" else 3


def conv2d_bn(x, filters, num_row, num_col, padding="same", strides=(1, 1), name=None):
    """Convolution (no bias), batch normalization (no scale), ReLU."""
    from tideflow.keras import layers

    conv_name = None if name is None else name + "_conv"
    bn_name = None if name is None else name + "_bn"
    x = layers.Conv2D(filters, (num_row, num_col), strides=strides, padding=padding,
                      use_bias=False, name=conv_name)(x)
    x = layers.BatchNormalization(axis=_channel_axis(), scale=False, name=bn_name)(x)
    return layers.Activation("relu", name=name)(x)


def _avg_branch(x, filters):
    from tideflow.keras import layers

    pool = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x)
    return conv2d_bn(pool, filters, 1, 1)


def InceptionV3(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, **kwargs):
    """Inception V3, for 299x299 RGB images by default (at least 75x75)."""
    from tideflow.keras import layers

    img_input = _common.checked_image_input(weights, include_top, classes, input_tensor,
                                            input_shape, 299, 75)
    axis = _channel_axis()

    def concat(branches, name=None):
        return layers.Concatenate(axis=axis, name=name)(branches)

    x = conv2d_bn(img_input, 32, 3, 3, strides=(2, 2), padding="valid")
    x = conv2d_bn(x, 32, 3, 3, padding="valid")
    x = conv2d_bn(x, 64, 3, 3)
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = conv2d_bn(x, 80, 1, 1, padding="valid")
    x = conv2d_bn(x, 192, 3, 3, padding="valid")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)

    # mixed 0, 1, 2: 35 x 35
    for i, pool_filters in enumerate((32, 64, 64)):
        branch1x1 = conv2d_bn(x, 64, 1, 1)
        branch5x5 = conv2d_bn(x, 48, 1, 1)
        branch5x5 = conv2d_bn(branch5x5, 64, 5, 5)
        branch3x3dbl = conv2d_bn(x, 64, 1, 1)
        branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3)
        branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3)
        branch_pool = _avg_branch(x, pool_filters)
        x = concat([branch1x1, branch5x5, branch3x3dbl, branch_pool], f"mixed{i}")

    # mixed 3: 17 x 17
    branch3x3 = conv2d_bn(x, 384, 3, 3, strides=(2, 2), padding="valid")
    branch3x3dbl = conv2d_bn(x, 64, 1, 1)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3, strides=(2, 2), padding="valid")
    branch_pool = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = concat([branch3x3, branch3x3dbl, branch_pool], "mixed3")

    # mixed 4, 5, 6, 7: 17 x 17
    for i, width in enumerate((128, 160, 160, 192)):
        branch1x1 = conv2d_bn(x, 192, 1, 1)
        branch7x7 = conv2d_bn(x, width, 1, 1)
        branch7x7 = conv2d_bn(branch7x7, width, 1, 7)
        branch7x7 = conv2d_bn(branch7x7, 192, 7, 1)
        branch7x7dbl = conv2d_bn(x, width, 1, 1)
        branch7x7dbl = conv2d_bn(branch7x7dbl, width, 7, 1)
        branch7x7dbl = conv2d_bn(branch7x7dbl, width, 1, 7)
        branch7x7dbl = conv2d_bn(branch7x7dbl, width, 7, 1)
        branch7x7dbl = conv2d_bn(branch7x7dbl, 192, 1, 7)
        branch_pool = _avg_branch(x, 192)
        x = concat([branch1x1, branch7x7, branch7x7dbl, branch_pool], f"mixed{4 + i}")

    # mixed 8: 8 x 8
    branch3x3 = conv2d_bn(x, 192, 1, 1)
    branch3x3 = conv2d_bn(branch3x3, 320, 3, 3, strides=(2, 2), padding="valid")
    branch7x7x3 = conv2d_bn(x, 192, 1, 1)
    branch7x7x3 = conv2d_bn(branch7x7x3, 192, 1, 7)
    branch7x7x3 = conv2d_bn(branch7x7x3, 192, 7, 1)
    branch7x7x3 = conv2d_bn(branch7x7x3, 192, 3, 3, strides=(2, 2), padding="valid")
    branch_pool = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = concat([branch3x3, branch7x7x3, branch_pool], "mixed8")

    # mixed 9, 10: 8 x 8
    for i in range(2):
        branch1x1 = conv2d_bn(x, 320, 1, 1)
        branch3x3 = conv2d_bn(x, 384, 1, 1)
        branch3x3_1 = conv2d_bn(branch3x3, 384, 1, 3)
        branch3x3_2 = conv2d_bn(branch3x3, 384, 3, 1)
        branch3x3 = concat([branch3x3_1, branch3x3_2], f"mixed9_{i}")
        branch3x3dbl = conv2d_bn(x, 448, 1, 1)
        branch3x3dbl = conv2d_bn(branch3x3dbl, 384, 3, 3)
        branch3x3dbl_1 = conv2d_bn(branch3x3dbl, 384, 1, 3)
        branch3x3dbl_2 = conv2d_bn(branch3x3dbl, 384, 3, 1)
        branch3x3dbl = concat([branch3x3dbl_1, branch3x3dbl_2])
        branch_pool = _avg_branch(x, 192)
        x = concat([branch1x1, branch3x3, branch3x3dbl, branch_pool], f"mixed{9 + i}")

    x = _common.pool_or_top(x, include_top, pooling, _common.avg_pool_softmax(classes))
    model = _common.make_model(img_input, input_tensor, x, "inception_v3")
    return _common.load_keras_weights(
        model, weights, include_top, "inception_v3", _BASE,
        ("9a0d58056eeedaa3f26cb7ebd46da564", "bcbd6486424b2319ff4ef7d526e38f63"))


__all__ = ["InceptionV3", "decode_predictions", "preprocess_input"]
