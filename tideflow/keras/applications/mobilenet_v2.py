"""``tf.keras.applications.mobilenet_v2``: MobileNetV2 (keras_applications 1.0.8's layers,
names and argument checks)."""

import warnings

from tideflow.keras.applications import _common
from tideflow.keras.applications._common import tf_mode_preprocess_input as preprocess_input
from tideflow.keras.applications.imagenet_utils import _obtain_input_shape, decode_predictions
from tideflow.keras.applications.mobilenet import _channel_axis, _rows_cols, _square_size

BASE_WEIGHT_PATH = ("https://github.com/JonathanCMitchell/mobilenet_v2_keras/releases/"
                    "download/v1.1/")
_SIZES = (96, 128, 160, 192, 224)


def _make_divisible(v, divisor, min_value=None):
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:  # rounding down must not lose more than 10%
        new_v += divisor
    return new_v


def correct_pad(inputs, kernel_size):
    """The zero padding of a stride-2 'valid' convolution that matches TF's 'same' one."""
    from tideflow.keras import backend as K

    img_dim = 2 if K.image_data_format() == "channels_first" else 1
    input_size = K.int_shape(inputs)[img_dim:img_dim + 2]
    if isinstance(kernel_size, int):
        kernel_size = (kernel_size, kernel_size)
    adjust = (1, 1) if input_size[0] is None else (1 - input_size[0] % 2, 1 - input_size[1] % 2)
    correct = (kernel_size[0] // 2, kernel_size[1] // 2)
    return ((correct[0] - adjust[0], correct[0]), (correct[1] - adjust[1], correct[1]))


def _default_size(input_shape, input_tensor):
    from tideflow.keras import backend as K

    if input_shape is not None and input_tensor is not None:
        try:
            is_keras = K.is_keras_tensor(input_tensor)
        except ValueError:
            raise ValueError("input_tensor: ", input_tensor,
                             "is not type input_tensor") from None
        if not is_keras:
            raise ValueError("input_tensor specified: ", input_tensor, "is not a keras tensor")
        if K.int_shape(input_tensor)[2] != input_shape[1]:  # Keras compares these two
            raise ValueError("input_shape: ", input_shape, "and input_tensor: ", input_tensor,
                             "do not meet the same shape requirements")
    if input_shape is None and input_tensor is not None:
        try:
            is_keras = K.is_keras_tensor(input_tensor)
        except ValueError:
            raise ValueError("input_tensor: ", input_tensor, "is type: ", type(input_tensor),
                             "which is not a valid type") from None
        if not is_keras:
            return 224
        shape = K.int_shape(input_tensor)
        rows, cols = (shape[2], shape[3]) if K.image_data_format() == "channels_first" \
            else (shape[1], shape[2])
        return rows if rows == cols and rows in _SIZES else 224
    return _square_size(input_shape, _SIZES)


def MobileNetV2(input_shape=None, alpha=1.0, include_top=True, weights="imagenet",
                input_tensor=None, pooling=None, classes=1000, **kwargs):
    """MobileNetV2: inverted residual blocks, width ``alpha``, for 224x224 RGB images by
    default (at least 32x32; ImageNet weights for 96/128/160/192/224)."""
    from tideflow.keras import backend as K

    layers = _common.layers_of(kwargs)
    _common.check_weights(weights, include_top, classes)
    default_size = _default_size(input_shape, input_tensor)
    input_shape = _obtain_input_shape(input_shape, default_size=default_size, min_size=32,
                                      data_format=K.image_data_format(),
                                      require_flatten=include_top, weights=weights)
    rows, cols = _rows_cols(input_shape)
    if weights == "imagenet":
        if alpha not in [0.35, 0.50, 0.75, 1.0, 1.3, 1.4]:
            raise ValueError("If imagenet weights are being loaded, alpha can be one of "
                             "`0.35`, `0.50`, `0.75`, `1.0`, `1.3` or `1.4` only.")
        if rows != cols or rows not in _SIZES:
            rows = 224
            warnings.warn("`input_shape` is undefined or non-square, or `rows` is not in "
                          "[96, 128, 160, 192, 224]. Weights for input shape (224, 224) will "
                          "be loaded as the default.", stacklevel=2)
    img_input = _common.image_input(input_tensor, input_shape, kwargs.get("layers"))
    axis = _channel_axis()
    first_block_filters = _make_divisible(32 * alpha, 8)
    x = layers.ZeroPadding2D(padding=correct_pad(img_input, 3), name="Conv1_pad")(img_input)
    x = layers.Conv2D(first_block_filters, kernel_size=3, strides=(2, 2), padding="valid",
                      use_bias=False, name="Conv1")(x)
    x = layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999, name="bn_Conv1")(x)
    x = layers.ReLU(6.0, name="Conv1_relu")(x)
    plan = [(16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6),
            (64, 2, 6), (64, 1, 6), (64, 1, 6), (64, 1, 6), (96, 1, 6), (96, 1, 6), (96, 1, 6),
            (160, 2, 6), (160, 1, 6), (160, 1, 6), (320, 1, 6)]
    for block_id, (filters, stride, expansion) in enumerate(plan):
        x = _inverted_res_block(x, filters=filters, alpha=alpha, stride=stride,
                                expansion=expansion, block_id=block_id, layers=layers)
    last_block_filters = _make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = layers.Conv2D(last_block_filters, kernel_size=1, use_bias=False, name="Conv_1")(x)
    x = layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999, name="Conv_1_bn")(x)
    x = layers.ReLU(6.0, name="out_relu")(x)

    x = _common.pool_or_top(x, include_top, pooling,
                            _common.avg_pool_softmax(classes, "Logits", pool_name=None))
    model = _common.make_model(img_input, input_tensor, x, f"mobilenetv2_{alpha:0.2f}_{rows}")
    if weights == "imagenet":
        fname = (f"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{alpha}_{rows}"
                 f"{'' if include_top else '_no_top'}.h5")
        return _common.load_weights(model, weights, fname, BASE_WEIGHT_PATH + fname)
    return _common.load_weights(model, weights)


def _inverted_res_block(inputs, expansion, stride, alpha, filters, block_id, layers=None):
    from tideflow.keras import backend as K

    layers = layers or _common.layers_of({})

    axis = _channel_axis()
    in_channels = K.int_shape(inputs)[axis]
    pointwise_filters = _make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = f"block_{block_id}_"
    if block_id:
        x = layers.Conv2D(expansion * in_channels, kernel_size=1, padding="same",
                          use_bias=False, activation=None, name=prefix + "expand")(x)
        x = layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999,
                                      name=prefix + "expand_BN")(x)
        x = layers.ReLU(6.0, name=prefix + "expand_relu")(x)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = layers.ZeroPadding2D(padding=correct_pad(x, 3), name=prefix + "pad")(x)
    x = layers.DepthwiseConv2D(kernel_size=3, strides=stride, activation=None, use_bias=False,
                               padding="same" if stride == 1 else "valid",
                               name=prefix + "depthwise")(x)
    x = layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999,
                                  name=prefix + "depthwise_BN")(x)
    x = layers.ReLU(6.0, name=prefix + "depthwise_relu")(x)
    x = layers.Conv2D(pointwise_filters, kernel_size=1, padding="same", use_bias=False,
                      activation=None, name=prefix + "project")(x)
    x = layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999,
                                  name=prefix + "project_BN")(x)
    if in_channels == pointwise_filters and stride == 1:
        return layers.Add(name=prefix + "add")([inputs, x])
    return x


__all__ = ["MobileNetV2", "decode_predictions", "preprocess_input"]
