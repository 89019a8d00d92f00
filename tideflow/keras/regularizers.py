"""``tf.keras.regularizers``: ``L1L2`` and ``l1``, ``l2``, ``l1_l2``."""

import numpy as np

import tideflow as tf
from tideflow.keras._utils import deserialize as _deserialize


class Regularizer:
    def __call__(self, x):
        return 0.0

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x ** 2)``."""

    def __init__(self, l1=0.0, l2=0.0):
        # float32 values, as TF's K.cast_to_floatx (the config shows 0.009999999776482582)
        self.l1 = float(np.float32(l1))
        self.l2 = float(np.float32(l2))

    def __call__(self, x):
        if not self.l1 and not self.l2:
            return tf.constant(0.0, dtype=x.dtype.base_dtype)
        regularization = 0.0  # (as TF 1.15: its first sum is 'add', with 'add/x' = 0)
        if self.l1:
            regularization += self.l1 * tf.reduce_sum(tf.abs(x))
        if self.l2:
            regularization += self.l2 * tf.reduce_sum(tf.square(x))
        return regularization

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


def l1(l=0.01):
    return L1L2(l1=l)


def l2(l=0.01):
    return L1L2(l2=l)


def l1_l2(l1=0.01, l2=0.01):
    return L1L2(l1=l1, l2=l2)


_TABLE = {"L1L2": L1L2, "l1": l1, "l2": l2, "l1_l2": l1_l2}


def serialize(regularizer):
    if regularizer is None:
        return None  # (a layer's unset regularizer, as TF)
    if not hasattr(regularizer, "get_config") and hasattr(regularizer, "__name__"):
        return regularizer.__name__  # a plain function: its name, as TF
    return {"class_name": type(regularizer).__name__, "config": regularizer.get_config()}


def deserialize(config, custom_objects=None):
    return _deserialize(config, _TABLE, "regularizer", custom_objects)


def get(identifier):
    return deserialize(identifier)
