"""``tf.keras.wrappers``: the scikit-learn wrappers."""

from tideflow.keras.wrappers import scikit_learn

__all__ = ["scikit_learn"]
