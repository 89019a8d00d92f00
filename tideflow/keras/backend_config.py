"""``tensorflow.python.keras.backend_config``: the Keras settings (fuzz factor, float type,
image data format), the very functions of ``tf.keras.backend``."""

from tideflow.keras.backend import (
    epsilon,
    floatx,
    image_data_format,
    set_epsilon,
    set_floatx,
    set_image_data_format,
)

__all__ = ["epsilon", "floatx", "image_data_format", "set_epsilon", "set_floatx",
           "set_image_data_format"]
