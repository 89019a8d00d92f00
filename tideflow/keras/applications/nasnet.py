"""``tf.keras.applications.nasnet``: NASNet-A Mobile and Large (keras_applications 1.0.8's
cells, layer names and padding)."""

import warnings

from tideflow.keras.applications import _common
from tideflow.keras.applications._common import tf_mode_preprocess_input as preprocess_input
from tideflow.keras.applications.imagenet_utils import _obtain_input_shape, decode_predictions
from tideflow.keras.applications.mobilenet_v2 import correct_pad

BASE_WEIGHTS_PATH = "https://github.com/titu1994/Keras-NASNet/releases/download/v1.2/"
NASNET_MOBILE_WEIGHT_PATH = BASE_WEIGHTS_PATH + "NASNet-mobile.h5"
NASNET_MOBILE_WEIGHT_PATH_NO_TOP = BASE_WEIGHTS_PATH + "NASNet-mobile-no-top.h5"
NASNET_LARGE_WEIGHT_PATH = BASE_WEIGHTS_PATH + "NASNet-large.h5"
NASNET_LARGE_WEIGHT_PATH_NO_TOP = BASE_WEIGHTS_PATH + "NASNet-large-no-top.h5"
_FILES = {  # (default_size, include_top): (cache name, origin, md5)
    (224, True): ("nasnet_mobile.h5", NASNET_MOBILE_WEIGHT_PATH,
                  "020fb642bf7360b370c678b08e0adf61"),
    (224, False): ("nasnet_mobile_no_top.h5", NASNET_MOBILE_WEIGHT_PATH_NO_TOP,
                   "1ed92395b5b598bdda52abe5c0dbfd63"),
    (331, True): ("nasnet_large.h5", NASNET_LARGE_WEIGHT_PATH,
                  "11577c9a518f0070763c2b964a382f17"),
    (331, False): ("nasnet_large_no_top.h5", NASNET_LARGE_WEIGHT_PATH_NO_TOP,
                   "d81d89dc07e6e56530c4e77faddd61b5"),
}


def _channel_dim():
    from tideflow.keras import backend as K

    return 1 if K.image_data_format() == "channels_first" else -1


def _bn(name=None):
    from tideflow.keras import layers

    return layers.BatchNormalization(axis=_channel_dim(), momentum=0.9997, epsilon=1e-3,
                                     name=name)


def NASNet(input_shape=None, penultimate_filters=4032, num_blocks=6, stem_block_filters=96,
           skip_reduction=True, filter_multiplier=2, include_top=True, weights=None,
           input_tensor=None, pooling=None, classes=1000, default_size=None, **kwargs):
    """A NASNet-A network: ``num_blocks`` normal cells between reduction cells, ending with
    ``penultimate_filters`` channels."""
    from tideflow.keras import backend as K
    from tideflow.keras import layers

    _common.check_weights(weights, include_top, classes)
    if isinstance(input_shape, tuple) and None in input_shape and weights == "imagenet":
        raise ValueError("When specifying the input shape of a NASNet and loading `ImageNet` "
                         "weights, the input_shape argument must be static (no None entries). "
                         f"Got: `input_shape={input_shape}`.")
    if default_size is None:
        default_size = 331
    input_shape = _obtain_input_shape(input_shape, default_size=default_size, min_size=32,
                                      data_format=K.image_data_format(),
                                      require_flatten=include_top, weights=weights)
    old_data_format = None
    if K.image_data_format() != "channels_last":
        warnings.warn("The NASNet family of models is only available for the input data "
                      'format "channels_last" (width, height, channels). The model being '
                      'returned right now will expect inputs to follow the "channels_last" '
                      "data format.", stacklevel=2)
        K.set_image_data_format("channels_last")
        old_data_format = "channels_first"
    try:
        img_input = _common.image_input(input_tensor, input_shape)
        if penultimate_filters % 24 != 0:
            raise ValueError("For NASNet-A models, the value of `penultimate_filters` needs to "
                             f"be divisible by 24. Current value: {penultimate_filters}")
        filters = penultimate_filters // 24
        x = layers.Conv2D(stem_block_filters, (3, 3), strides=(2, 2), padding="valid",
                          use_bias=False, name="stem_conv1",
                          kernel_initializer="he_normal")(img_input)
        x = _bn("stem_bn1")(x)
        p = None
        x, p = _reduction_a_cell(x, p, filters // (filter_multiplier ** 2), block_id="stem_1")
        x, p = _reduction_a_cell(x, p, filters // filter_multiplier, block_id="stem_2")
        for i in range(num_blocks):
            x, p = _normal_a_cell(x, p, filters, block_id=f"{i}")
        x, p0 = _reduction_a_cell(x, p, filters * filter_multiplier,
                                  block_id=f"reduce_{num_blocks}")
        p = p if skip_reduction else p0
        for i in range(num_blocks):
            x, p = _normal_a_cell(x, p, filters * filter_multiplier,
                                  block_id=f"{num_blocks + i + 1}")
        x, p0 = _reduction_a_cell(x, p, filters * filter_multiplier ** 2,
                                  block_id=f"reduce_{2 * num_blocks}")
        p = p if skip_reduction else p0
        for i in range(num_blocks):
            x, p = _normal_a_cell(x, p, filters * filter_multiplier ** 2,
                                  block_id=f"{2 * num_blocks + i + 1}")
        x = layers.Activation("relu")(x)

        x = _common.pool_or_top(x, include_top, pooling,
                                _common.avg_pool_softmax(classes, pool_name=None))
        model = _common.make_model(img_input, input_tensor, x, "NASNet")
        if weights == "imagenet":
            if default_size not in (224, 331):
                raise ValueError("ImageNet weights can only be loaded with NASNetLarge or "
                                 "NASNetMobile")
            fname, origin, file_hash = _FILES[default_size, bool(include_top)]
            _common.load_weights(model, weights, fname, origin, file_hash)
        else:
            _common.load_weights(model, weights)
    finally:
        if old_data_format:
            K.set_image_data_format(old_data_format)
    return model


def NASNetLarge(input_shape=None, include_top=True, weights="imagenet", input_tensor=None,
                pooling=None, classes=1000, **kwargs):
    """NASNet-A (6 @ 4032), for 331x331 RGB images by default (at least 32x32)."""
    return NASNet(input_shape, penultimate_filters=4032, num_blocks=6, stem_block_filters=96,
                  skip_reduction=True, filter_multiplier=2, include_top=include_top,
                  weights=weights, input_tensor=input_tensor, pooling=pooling,
                  classes=classes, default_size=331)


def NASNetMobile(input_shape=None, include_top=True, weights="imagenet", input_tensor=None,
                 pooling=None, classes=1000, **kwargs):
    """NASNet-A (4 @ 1056), for 224x224 RGB images by default (at least 32x32)."""
    return NASNet(input_shape, penultimate_filters=1056, num_blocks=4, stem_block_filters=32,
                  skip_reduction=False, filter_multiplier=2, include_top=include_top,
                  weights=weights, input_tensor=input_tensor, pooling=pooling,
                  classes=classes, default_size=224)


def _separable_conv_block(ip, filters, kernel_size=(3, 3), strides=(1, 1), block_id=None):
    """Twice relu -> separable convolution -> batch normalization."""
    from tideflow.keras import layers

    x = layers.Activation("relu")(ip)
    if strides == (2, 2):
        x = layers.ZeroPadding2D(padding=correct_pad(x, kernel_size),
                                 name=f"separable_conv_1_pad_{block_id}")(x)
        conv_pad = "valid"
    else:
        conv_pad = "same"
    x = layers.SeparableConv2D(filters, kernel_size, strides=strides,
                               name=f"separable_conv_1_{block_id}", padding=conv_pad,
                               use_bias=False, kernel_initializer="he_normal")(x)
    x = _bn(f"separable_conv_1_bn_{block_id}")(x)
    x = layers.Activation("relu")(x)
    x = layers.SeparableConv2D(filters, kernel_size, name=f"separable_conv_2_{block_id}",
                               padding="same", use_bias=False,
                               kernel_initializer="he_normal")(x)
    return _bn(f"separable_conv_2_bn_{block_id}")(x)


def _adjust_block(p, ip, filters, block_id=None):
    """``p`` (the previous cell's input) brought to ``ip``'s size and ``filters`` channels."""
    from tideflow.keras import backend as K
    from tideflow.keras import layers

    channel_dim = _channel_dim()
    img_dim = 2 if K.image_data_format() == "channels_first" else -2
    ip_shape = K.int_shape(ip)
    if p is None:
        return ip
    p_shape = K.int_shape(p)
    if p_shape[img_dim] != ip_shape[img_dim]:
        p = layers.Activation("relu", name=f"adjust_relu_1_{block_id}")(p)
        p1 = layers.AveragePooling2D((1, 1), strides=(2, 2), padding="valid",
                                     name=f"adjust_avg_pool_1_{block_id}")(p)
        p1 = layers.Conv2D(filters // 2, (1, 1), padding="same", use_bias=False,
                           name=f"adjust_conv_1_{block_id}",
                           kernel_initializer="he_normal")(p1)
        p2 = layers.ZeroPadding2D(padding=((0, 1), (0, 1)))(p)
        p2 = layers.Cropping2D(cropping=((1, 0), (1, 0)))(p2)
        p2 = layers.AveragePooling2D((1, 1), strides=(2, 2), padding="valid",
                                     name=f"adjust_avg_pool_2_{block_id}")(p2)
        p2 = layers.Conv2D(filters // 2, (1, 1), padding="same", use_bias=False,
                           name=f"adjust_conv_2_{block_id}",
                           kernel_initializer="he_normal")(p2)
        p = layers.concatenate([p1, p2], axis=channel_dim)
        p = _bn(f"adjust_bn_{block_id}")(p)
    elif p_shape[channel_dim] != filters:
        p = layers.Activation("relu")(p)
        p = layers.Conv2D(filters, (1, 1), strides=(1, 1), padding="same",
                          name=f"adjust_conv_projection_{block_id}", use_bias=False,
                          kernel_initializer="he_normal")(p)
        p = _bn(f"adjust_bn_{block_id}")(p)
    return p


def _squeeze(ip, filters, kind, block_id):
    from tideflow.keras import layers

    h = layers.Activation("relu")(ip)
    h = layers.Conv2D(filters, (1, 1), strides=(1, 1), padding="same",
                      name=f"{kind}_conv_1_{block_id}", use_bias=False,
                      kernel_initializer="he_normal")(h)
    return _bn(f"{kind}_bn_1_{block_id}")(h)


def _normal_a_cell(ip, p, filters, block_id=None):
    """A NASNet-A normal cell: returns (output, ``ip``)."""
    from tideflow.keras import layers

    p = _adjust_block(p, ip, filters, block_id)
    h = _squeeze(ip, filters, "normal", block_id)
    x1_1 = _separable_conv_block(h, filters, kernel_size=(5, 5),
                                 block_id=f"normal_left1_{block_id}")
    x1_2 = _separable_conv_block(p, filters, block_id=f"normal_right1_{block_id}")
    x1 = layers.add([x1_1, x1_2], name=f"normal_add_1_{block_id}")
    x2_1 = _separable_conv_block(p, filters, (5, 5), block_id=f"normal_left2_{block_id}")
    x2_2 = _separable_conv_block(p, filters, (3, 3), block_id=f"normal_right2_{block_id}")
    x2 = layers.add([x2_1, x2_2], name=f"normal_add_2_{block_id}")
    x3 = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same",
                                 name=f"normal_left3_{block_id}")(h)
    x3 = layers.add([x3, p], name=f"normal_add_3_{block_id}")
    x4_1 = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same",
                                   name=f"normal_left4_{block_id}")(p)
    x4_2 = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same",
                                   name=f"normal_right4_{block_id}")(p)
    x4 = layers.add([x4_1, x4_2], name=f"normal_add_4_{block_id}")
    x5 = _separable_conv_block(h, filters, block_id=f"normal_left5_{block_id}")
    x5 = layers.add([x5, h], name=f"normal_add_5_{block_id}")
    x = layers.concatenate([p, x1, x2, x3, x4, x5], axis=_channel_dim(),
                           name=f"normal_concat_{block_id}")
    return x, ip


def _reduction_a_cell(ip, p, filters, block_id=None):
    """A NASNet-A reduction cell (halves the size): returns (output, ``ip``)."""
    from tideflow.keras import layers

    p = _adjust_block(p, ip, filters, block_id)
    h = _squeeze(ip, filters, "reduction", block_id)
    h3 = layers.ZeroPadding2D(padding=correct_pad(h, 3), name=f"reduction_pad_1_{block_id}")(h)
    x1_1 = _separable_conv_block(h, filters, (5, 5), strides=(2, 2),
                                 block_id=f"reduction_left1_{block_id}")
    x1_2 = _separable_conv_block(p, filters, (7, 7), strides=(2, 2),
                                 block_id=f"reduction_right1_{block_id}")
    x1 = layers.add([x1_1, x1_2], name=f"reduction_add_1_{block_id}")
    x2_1 = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="valid",
                               name=f"reduction_left2_{block_id}")(h3)
    x2_2 = _separable_conv_block(p, filters, (7, 7), strides=(2, 2),
                                 block_id=f"reduction_right2_{block_id}")
    x2 = layers.add([x2_1, x2_2], name=f"reduction_add_2_{block_id}")
    x3_1 = layers.AveragePooling2D((3, 3), strides=(2, 2), padding="valid",
                                   name=f"reduction_left3_{block_id}")(h3)
    x3_2 = _separable_conv_block(p, filters, (5, 5), strides=(2, 2),
                                 block_id=f"reduction_right3_{block_id}")
    x3 = layers.add([x3_1, x3_2], name=f"reduction_add3_{block_id}")
    x4 = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same",
                                 name=f"reduction_left4_{block_id}")(x1)
    x4 = layers.add([x2, x4])
    x5_1 = _separable_conv_block(x1, filters, (3, 3), block_id=f"reduction_left4_{block_id}")
    x5_2 = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="valid",
                               name=f"reduction_right5_{block_id}")(h3)
    x5 = layers.add([x5_1, x5_2], name=f"reduction_add4_{block_id}")
    x = layers.concatenate([x2, x3, x4, x5], axis=_channel_dim(),
                           name=f"reduction_concat_{block_id}")
    return x, ip


__all__ = ["NASNetLarge", "NASNetMobile", "decode_predictions", "preprocess_input"]
