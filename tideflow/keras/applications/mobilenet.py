"""``tf.keras.applications.mobilenet``: MobileNet v1 (keras_applications 1.0.8's layers,
names and argument checks)."""

import warnings

from tideflow.keras.applications import _common
from tideflow.keras.applications._common import tf_mode_preprocess_input as preprocess_input
from tideflow.keras.applications.imagenet_utils import _obtain_input_shape, decode_predictions

BASE_WEIGHT_PATH = "https://github.com/fchollet/deep-learning-models/releases/download/v0.6/"


def _square_size(input_shape, sizes):
    """The default size: the input's when square and one of ``sizes``, else 224."""
    from tideflow.keras import backend as K

    if input_shape is None:
        return 224
    if K.image_data_format() == "channels_first":
        rows, cols = input_shape[1], input_shape[2]
    else:
        rows, cols = input_shape[0], input_shape[1]
    return rows if rows == cols and rows in sizes else 224


def _rows_cols(input_shape):
    from tideflow.keras import backend as K

    if K.image_data_format() == "channels_last":
        return input_shape[0], input_shape[1]
    return input_shape[1], input_shape[2]


def MobileNet(input_shape=None, alpha=1.0, depth_multiplier=1, dropout=1e-3, include_top=True,
              weights="imagenet", input_tensor=None, pooling=None, classes=1000, **kwargs):
    """MobileNet: depthwise-separable convolutions, width ``alpha``, for 224x224 RGB images by
    default (at least 32x32; ImageNet weights for 128/160/192/224)."""
    from tideflow.keras import backend as K

    layers = _common.layers_of(kwargs)
    _common.check_weights(weights, include_top, classes,
                          "If using `weights` as ImageNet with `include_top` as true, "
                          "`classes` should be 1000")
    default_size = _square_size(input_shape, (128, 160, 192, 224))
    input_shape = _obtain_input_shape(input_shape, default_size=default_size, min_size=32,
                                      data_format=K.image_data_format(),
                                      require_flatten=include_top, weights=weights)
    rows, cols = _rows_cols(input_shape)
    if weights == "imagenet":
        if depth_multiplier != 1:
            raise ValueError("If imagenet weights are being loaded, depth multiplier must be 1")
        if alpha not in [0.25, 0.50, 0.75, 1.0]:
            raise ValueError("If imagenet weights are being loaded, alpha can be one of"
                             "`0.25`, `0.50`, `0.75` or `1.0` only.")
        if rows != cols or rows not in [128, 160, 192, 224]:
            if rows is None:
                rows = 224
                warnings.warn("MobileNet shape is undefined. Weights for input shape "
                              "(224, 224) will be loaded.", stacklevel=2)
            else:
                raise ValueError("If imagenet weights are being loaded, input must have a "
                                 "static square shape (one of (128, 128), (160, 160), "
                                 "(192, 192), or (224, 224)). Input shape provided = "
                                 f"{input_shape}")
    img_input = _common.image_input(input_tensor, input_shape, kwargs.get("layers"))
    x = _conv_block(img_input, 32, alpha, strides=(2, 2), layers=layers)
    plan = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1),
            (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1)]
    for block_id, (filters, stride) in enumerate(plan, 1):
        x = _depthwise_conv_block(x, filters, alpha, depth_multiplier,
                                  strides=(stride, stride), block_id=block_id, layers=layers)

    def top(x):
        if K.image_data_format() == "channels_first":
            shape = (int(1024 * alpha), 1, 1)
        else:
            shape = (1, 1, int(1024 * alpha))
        x = layers.GlobalAveragePooling2D()(x)
        x = layers.Reshape(shape, name="reshape_1")(x)
        x = layers.Dropout(dropout, name="dropout")(x)
        x = layers.Conv2D(classes, (1, 1), padding="same", name="conv_preds")(x)
        x = layers.Reshape((classes,), name="reshape_2")(x)
        return layers.Activation("softmax", name="act_softmax")(x)

    x = _common.pool_or_top(x, include_top, pooling, top)
    model = _common.make_model(img_input, input_tensor, x, f"mobilenet_{alpha:0.2f}_{rows}")
    if weights == "imagenet":
        if K.image_data_format() == "channels_first":
            raise ValueError('Weights for "channels_first" format are not available.')
        alpha_text = {1.0: "1_0", 0.75: "7_5", 0.50: "5_0"}.get(alpha, "2_5")
        fname = f"mobilenet_{alpha_text}_{int(rows)}_tf{'' if include_top else '_no_top'}.h5"
        return _common.load_weights(model, weights, fname, BASE_WEIGHT_PATH + fname)
    return _common.load_weights(model, weights)


def _conv_block(inputs, filters, alpha, kernel=(3, 3), strides=(1, 1), layers=None):
    layers = layers or _common.layers_of({})
    filters = int(filters * alpha)
    x = layers.ZeroPadding2D(padding=((0, 1), (0, 1)), name="conv1_pad")(inputs)
    x = layers.Conv2D(filters, kernel, padding="valid", use_bias=False, strides=strides,
                      name="conv1")(x)
    x = layers.BatchNormalization(axis=_channel_axis(), name="conv1_bn")(x)
    return layers.ReLU(6.0, name="conv1_relu")(x)


def _channel_axis():
    from tideflow.keras import backend as K

    return 1 if K.image_data_format() == "channels_first" else -1


def _depthwise_conv_block(inputs, pointwise_conv_filters, alpha, depth_multiplier=1,
                          strides=(1, 1), block_id=1, layers=None):
    layers = layers or _common.layers_of({})
    pointwise_conv_filters = int(pointwise_conv_filters * alpha)
    if strides == (1, 1):
        x = inputs
    else:
        x = layers.ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(inputs)
    x = layers.DepthwiseConv2D((3, 3), padding="same" if strides == (1, 1) else "valid",
                               depth_multiplier=depth_multiplier, strides=strides,
                               use_bias=False, name=f"conv_dw_{block_id}")(x)
    x = layers.BatchNormalization(axis=_channel_axis(), name=f"conv_dw_{block_id}_bn")(x)
    x = layers.ReLU(6.0, name=f"conv_dw_{block_id}_relu")(x)
    x = layers.Conv2D(pointwise_conv_filters, (1, 1), padding="same", use_bias=False,
                      strides=(1, 1), name=f"conv_pw_{block_id}")(x)
    x = layers.BatchNormalization(axis=_channel_axis(), name=f"conv_pw_{block_id}_bn")(x)
    return layers.ReLU(6.0, name=f"conv_pw_{block_id}_relu")(x)


__all__ = ["MobileNet", "decode_predictions", "preprocess_input"]
