"""Bitwise ops on integers (``tf.bitwise``): BitwiseAnd/Or/Xor, Invert, LeftShift, RightShift.

As TF's kernels, a shift amount is clamped to [0, bits - 1] (so out-of-range shifts are
defined), left shifts wrap around in the type's width, and right shifts of signed integers are
arithmetic.
"""

import numpy as np

from tideflow.framework import ops
from tideflow.ops.elementwise import declare_binary, declare_unary

_INT = "T: {int8, int16, int32, int64, uint8, uint16, uint32, uint64}"


def _clamped(x, y):
    bits = np.dtype(x.dtype).itemsize * 8
    return np.clip(y, 0, bits - 1).astype(x.dtype, copy=False)


def _left_shift(x, y):
    return np.left_shift(x, _clamped(x, y)).astype(x.dtype, copy=False)


def _right_shift(x, y):
    return np.right_shift(x, _clamped(x, y)).astype(x.dtype, copy=False)


declare_binary("BitwiseAnd", "bitwise_and", _INT, differentiable=False)
declare_binary("BitwiseOr", "bitwise_or", _INT, differentiable=False)
declare_binary("BitwiseXor", "bitwise_xor", _INT, differentiable=False)
declare_binary("LeftShift", _left_shift, _INT, differentiable=False)
declare_binary("RightShift", _right_shift, _INT, differentiable=False)
declare_unary("Invert", "invert", _INT, differentiable=False)


def _binary(op_type, x, y, name):
    from tideflow.ops.math_ops import _same_dtype_pair

    x, y = _same_dtype_pair(x, y)
    return ops.apply_op(op_type, [x, y], name=name)._outputs[0]


def bitwise_and(x, y, name=None):
    return _binary("BitwiseAnd", x, y, name)


def bitwise_or(x, y, name=None):
    return _binary("BitwiseOr", x, y, name)


def bitwise_xor(x, y, name=None):
    return _binary("BitwiseXor", x, y, name)


def left_shift(x, y, name=None):
    """x << y, with y clamped to [0, bits - 1]; bits shifted past the width are lost."""
    return _binary("LeftShift", x, y, name)


def right_shift(x, y, name=None):
    """x >> y, with y clamped to [0, bits - 1] (arithmetic for signed x)."""
    return _binary("RightShift", x, y, name)


def invert(x, name=None):
    """~x: every bit flipped."""
    return ops.apply_op("Invert", [x], name=name)._outputs[0]
