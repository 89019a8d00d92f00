"""Bitwise ops on integers (``tf.bitwise``): BitwiseAnd/Or/Xor, Invert, LeftShift, RightShift;
and the bit counting and packing ops TF keeps beside them (PopulationCount, CompareAndBitpack).

As TF's kernels, a shift amount is clamped to [0, bits - 1] (so out-of-range shifts are
defined), left shifts wrap around in the type's width, and right shifts of signed integers are
arithmetic.
"""

import numpy as np

from tideflow.framework import op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
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


def _population_count(x):
    # counted on the two's-complement bits (np.bitwise_count alone counts |x| for signed x)
    x = np.asarray(x)
    return np.bitwise_count(x.view(f"u{x.dtype.itemsize}")).astype(np.uint8, copy=False)


# the number of set bits of each element, as uint8
declare_unary("PopulationCount", _population_count, _INT, out="uint8", differentiable=False)


def _bitpack_shape(op):
    x, threshold = op._inputs[0]._shape, op._inputs[1]._shape
    threshold.with_rank(0)
    x = x.with_rank_at_least(1)
    if x.ndims is None:
        return [x]
    dims = x.as_list()
    inner = dims[-1]
    if inner is not None and inner % 8:
        raise ValueError(f"Dimension size must be evenly divisible by 8 but is {inner}")
    return [TensorShape(dims[:-1] + [None if inner is None else inner // 8])]


def _bitpack_kernel(x, threshold):
    # bit 7 of each byte is the first of its 8 elements (np.packbits' big bit order); a bool
    # input packs as it is (TF ignores the threshold there)
    bits = x if x.dtype == np.bool_ else x > threshold
    if bits.ndim == 0 or bits.shape[-1] % 8:
        from tideflow.framework import errors

        raise errors.InvalidArgumentError(
            None, None, "Inner dimension of input should be divisible by 8, but saw shape: "
            f"[{','.join(str(d) for d in x.shape)}]")
    return np.packbits(bits, axis=-1)


op_registry.declare(
    "CompareAndBitpack",
    inputs=["input: T", "threshold: T"],
    outputs=["output: uint8"],
    attrs=["T: {bool, float16, float32, float64, int8, int16, int32, int64}"],
    shape=_bitpack_shape,
    kernel=_bitpack_kernel,
    differentiable=False,
)


def _binary(op_type, x, y, name):
    # as TF's generated wrappers: a tensor of another dtype is the op's TypeError
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


def population_count(x, name=None):
    """The number of bits set in each element of the integer tensor ``x`` (uint8)."""
    return ops.apply_op("PopulationCount", [x], name=name)._outputs[0]


def compare_and_bitpack(input, threshold, name=None):
    """Packs ``input > threshold`` along the last axis into uint8 bytes, 8 elements a byte
    (the first element in the high bit); the last dimension must be a multiple of 8."""
    input = ops.convert_to_tensor(input, name="input")
    threshold = ops.convert_to_tensor(threshold, dtype=input.dtype.base_dtype, name="threshold")
    return ops.apply_op("CompareAndBitpack", [input, threshold], name=name)._outputs[0]
