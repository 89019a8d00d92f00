"""``tf.keras.applications.resnet50``: TF 1.15's alias module of ``resnet.ResNet50``."""

from tideflow.keras.applications.resnet import ResNet50, decode_predictions, preprocess_input

__all__ = ["ResNet50", "decode_predictions", "preprocess_input"]
