"""``tf.keras.constraints``: projections applied to a variable after each optimizer step."""

import tideflow as tf
from tideflow.keras import backend as K
from tideflow.keras._utils import deserialize as _deserialize


class Constraint:
    def __call__(self, w):
        return w

    def get_config(self):
        return {}


class MaxNorm(Constraint):
    def __init__(self, max_value=2, axis=0):
        self.max_value = max_value
        self.axis = axis

    def __call__(self, w):
        norms = K.sqrt(tf.reduce_sum(tf.square(w), axis=self.axis, keepdims=True))
        desired = K.clip(norms, 0, self.max_value)
        return w * (desired / (K.epsilon() + norms))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    def __call__(self, w):
        return w * tf.cast(tf.greater_equal(w, 0.0), w.dtype.base_dtype)


class UnitNorm(Constraint):
    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        return w / (K.epsilon() + K.sqrt(tf.reduce_sum(tf.square(w), axis=self.axis,
                                                       keepdims=True)))

    def get_config(self):
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w):
        norms = K.sqrt(tf.reduce_sum(tf.square(w), axis=self.axis, keepdims=True))
        desired = (self.rate * K.clip(norms, self.min_value, self.max_value)
                   + (1 - self.rate) * norms)
        return w * (desired / (K.epsilon() + norms))

    def get_config(self):
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate,
                "axis": self.axis}


class RadialConstraint(Constraint):
    """Makes each (rows, cols) slice of a conv kernel constant on its square rings, as TF
    1.15 computes it: ring ``d`` (from the border) of an odd kernel of ``h`` rows takes the
    value at ``(h - 2 - d, h - 2 - d)``; of an even one, ``(h - 1 - d, h - 1 - d)`` but for
    the innermost ring, ``(h/2 - 1, h/2 - 1)``. The kernel is square: its rows give its size."""

    def __call__(self, w):
        import numpy as np

        shape = w.shape
        if shape.rank is None or shape.rank != 4:
            raise ValueError(f"The weight tensor must be of rank 4, but is of shape: {shape}")
        h = tf.compat.dimension_value(shape[0])
        if h is None:
            raise ValueError(f"RadialConstraint needs the kernel's rows statically, got {shape}")
        rows = np.arange(h)
        ring = np.minimum(np.minimum.outer(rows, rows),
                          np.minimum.outer(h - 1 - rows, h - 1 - rows))
        if h % 2:
            src = h - 2 - ring
        else:
            src = np.where(ring == h // 2 - 1, h // 2 - 1, h - 1 - ring)
        src = np.where(src < 0, src + h, src)  # (a 1x1 kernel reads its last entry)
        with tf.name_scope("radial_constraint"):
            flat = tf.reshape(w, tf.concat([[-1], tf.shape(w)[2:]], 0))
            picked = tf.gather(flat, src.ravel() * (tf.shape(w)[1] + 1))
            return tf.reshape(picked, tf.concat([[h, h], tf.shape(w)[2:]], 0))


max_norm = MaxNorm
non_neg = NonNeg
unit_norm = UnitNorm
min_max_norm = MinMaxNorm
radial_constraint = RadialConstraint
# Keras 1's names, which TF 1.x's module keeps as legacy aliases
maxnorm = max_norm
nonneg = non_neg
unitnorm = unit_norm

_TABLE = {"MaxNorm": MaxNorm, "NonNeg": NonNeg, "UnitNorm": UnitNorm, "MinMaxNorm": MinMaxNorm,
          "max_norm": MaxNorm, "non_neg": NonNeg, "unit_norm": UnitNorm,
          "min_max_norm": MinMaxNorm, "RadialConstraint": RadialConstraint,
          "radial_constraint": RadialConstraint}


def serialize(constraint):
    if constraint is None:
        return None  # (a layer's unset constraint, as TF)
    if not hasattr(constraint, "get_config") and hasattr(constraint, "__name__"):
        return constraint.__name__  # a plain function: its name, as TF
    return {"class_name": type(constraint).__name__, "config": constraint.get_config()}


def deserialize(config, custom_objects=None):
    return _deserialize(config, _TABLE, "constraint", custom_objects)


def get(identifier):
    if isinstance(identifier, str):  # as TF 1.15: a name is looked up as a config
        identifier = {"class_name": identifier, "config": {}}
    return deserialize(identifier)
