"""``tf.keras.applications.resnet_v2``: ResNet50V2/101V2/152V2 (keras_applications 1.0.8)."""

from tideflow.keras.applications._common import tf_mode_preprocess_input as preprocess_input
from tideflow.keras.applications.imagenet_utils import decode_predictions
from tideflow.keras.applications.resnet import ResNet, _v2


def ResNet50V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
               pooling=None, classes=1000, **kwargs):
    """ResNet50V2 (pre-activation): 224x224 RGB by default (at least 32x32), 'tf' inputs."""
    return ResNet(_v2((3, 4, 6, 3)), True, True, "resnet50v2", include_top, weights,
                  input_tensor, input_shape, pooling, classes)


def ResNet101V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, **kwargs):
    """ResNet101V2 (pre-activation): 224x224 RGB by default (at least 32x32), 'tf' inputs."""
    return ResNet(_v2((3, 4, 23, 3)), True, True, "resnet101v2", include_top, weights,
                  input_tensor, input_shape, pooling, classes)


def ResNet152V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, **kwargs):
    """ResNet152V2 (pre-activation): 224x224 RGB by default (at least 32x32), 'tf' inputs."""
    return ResNet(_v2((3, 8, 36, 3)), True, True, "resnet152v2", include_top, weights,
                  input_tensor, input_shape, pooling, classes)


__all__ = ["ResNet50V2", "ResNet101V2", "ResNet152V2", "decode_predictions",
           "preprocess_input"]
