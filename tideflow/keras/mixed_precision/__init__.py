"""``tf.keras.mixed_precision``: TF 1.15 has only its ``experimental`` namespace."""

from tideflow.keras.mixed_precision import experimental

__all__ = ["experimental"]
