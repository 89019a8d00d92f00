"""``tf.keras.applications.vgg19``: VGG19 (keras_applications 1.0.8's layers and names)."""

from tideflow.keras.applications.vgg16 import _vgg, decode_predictions, preprocess_input


def VGG19(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
          pooling=None, classes=1000, **kwargs):
    """The VGG19 network (16 convolutions, 3 dense layers), for 224x224 RGB images by
    default (at least 32x32)."""
    return _vgg((2, 2, 4, 4, 4), "vgg19", include_top, weights, input_tensor, input_shape,
                pooling, classes)


__all__ = ["VGG19", "decode_predictions", "preprocess_input"]
