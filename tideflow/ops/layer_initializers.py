"""The initializers of ``tf.contrib.layers``: ``xavier_initializer`` and the contrib form of
``variance_scaling_initializer`` (``factor``, ``mode='FAN_IN'``, ``uniform``)."""

import math

from tideflow.framework import dtypes
from tideflow.ops import init_ops, random_ops


class _ContribVarianceScaling(init_ops.Initializer):
    """Uniform in ``±sqrt(3 factor / n)`` or truncated normal with stddev
    ``sqrt(1.3 factor / n)``, n the fan-in, fan-out or their mean."""

    def __init__(self, factor, mode, uniform, seed, dtype):
        self.factor, self.mode, self.uniform, self.seed, self.dtype = (
            factor, mode, uniform, seed, dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtypes.as_dtype(dtype or self.dtype)
        if not dtype.is_floating:
            raise TypeError("Cannot create initializer for non-floating point type.")
        del partition_info  # TF 1.15's fans are the given (partition's) shape's
        dims = [int(d) for d in shape]
        if dims:
            fan_in = float(dims[-2]) if len(dims) > 1 else float(dims[-1])
            fan_out = float(dims[-1])
        else:
            fan_in = fan_out = 1.0
        for d in dims[:-2]:
            fan_in *= d
            fan_out *= d
        n = {"FAN_IN": fan_in, "FAN_OUT": fan_out, "FAN_AVG": (fan_in + fan_out) / 2.0}[self.mode]
        if self.uniform:
            limit = math.sqrt(3.0 * self.factor / n)
            return random_ops.random_uniform(shape, -limit, limit, dtype, seed=self.seed)
        stddev = math.sqrt(1.3 * self.factor / n)
        return random_ops.truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)

    def get_config(self):
        return {"factor": self.factor, "mode": self.mode, "uniform": self.uniform,
                "seed": self.seed, "dtype": dtypes.as_dtype(self.dtype).name}


def variance_scaling_initializer(factor=2.0, mode="FAN_IN", uniform=False, seed=None,
                                 dtype=dtypes.float32):
    """He-style initializer of ``tf.contrib.layers`` (defaults: factor 2, fan-in, normal)."""
    if not dtypes.as_dtype(dtype).is_floating:
        raise TypeError("Cannot create initializer for non-floating point type.")
    if mode not in ("FAN_IN", "FAN_OUT", "FAN_AVG"):
        # (TF 1.15 passes the format and the mode as two arguments)
        raise TypeError("Unknown mode %s [FAN_IN, FAN_OUT, FAN_AVG]", mode)
    return _ContribVarianceScaling(factor, mode, uniform, seed, dtype)


def xavier_initializer(uniform=True, seed=None, dtype=dtypes.float32):
    """Glorot/Xavier initializer: variance scaling with factor 1 over the mean fan."""
    return variance_scaling_initializer(factor=1.0, mode="FAN_AVG", uniform=uniform, seed=seed,
                                        dtype=dtype)


xavier_initializer_conv2d = xavier_initializer
