"""``tf.keras.applications.vgg16``: VGG16 (keras_applications 1.0.8's layers and names)."""

from tideflow.keras.applications import _common
from tideflow.keras.applications.imagenet_utils import decode_predictions
from tideflow.keras.applications.imagenet_utils import preprocess_input as _preprocess

_BASE = "https://github.com/fchollet/deep-learning-models/releases/download/v0.1/"
_HASHES = {"vgg16": ("64373286793e3c8b2b4e3219cbf3544b", "6d6bbae143d832006294945121d1f1fc"),
           "vgg19": ("cbe5617147190e668d6c5d5026f83318", "253f8cb515780f3b799900260a226db6")}


def _vgg(convs_per_block, name, include_top, weights, input_tensor, input_shape, pooling,
         classes):
    from tideflow.keras import layers

    img_input = _common.checked_image_input(weights, include_top, classes, input_tensor,
                                            input_shape, 224, 32)
    x = img_input
    for block, (filters, n) in enumerate(zip((64, 128, 256, 512, 512), convs_per_block), 1):
        for i in range(1, n + 1):
            x = layers.Conv2D(filters, (3, 3), activation="relu", padding="same",
                              name=f"block{block}_conv{i}")(x)
        x = layers.MaxPooling2D((2, 2), strides=(2, 2), name=f"block{block}_pool")(x)

    def top(x):
        x = layers.Flatten(name="flatten")(x)
        x = layers.Dense(4096, activation="relu", name="fc1")(x)
        x = layers.Dense(4096, activation="relu", name="fc2")(x)
        return layers.Dense(classes, activation="softmax", name="predictions")(x)

    x = _common.pool_or_top(x, include_top, pooling, top)
    model = _common.make_model(img_input, input_tensor, x, name)
    return _common.load_keras_weights(model, weights, include_top, name, _BASE, _HASHES[name])


def VGG16(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
          pooling=None, classes=1000, **kwargs):
    """The VGG16 network (13 convolutions, 3 dense layers), for 224x224 RGB images by
    default (at least 32x32)."""
    return _vgg((2, 2, 3, 3, 3), "vgg16", include_top, weights, input_tensor, input_shape,
                pooling, classes)


def preprocess_input(x, data_format=None, mode="caffe", **kwargs):
    """'caffe' preprocessing by default (RGB -> BGR, minus the ImageNet channel means): VGG's
    module exports ``imagenet_utils.preprocess_input`` itself, ``mode`` included."""
    return _preprocess(x, data_format=data_format, mode=mode)


__all__ = ["VGG16", "decode_predictions", "preprocess_input"]
