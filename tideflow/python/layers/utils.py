"""``tensorflow.python.layers.utils``: static-or-dynamic conditionals and the shape helpers
used by layer code (``conv_output_length``, ``normalize_tuple``...)."""

from tideflow.framework.ops import constant_value
from tideflow.ops.layers_base import (
    normalize_data_format,
    normalize_padding,
    normalize_tuple,
    smart_cond,
)
from tideflow.ops.layers_conv import deconv_output_length

_PADDINGS = ("same", "valid", "full", "causal")


def conv_output_length(input_length, filter_size, padding, stride, dilation=1):
    """The length a convolution of ``filter_size`` (dilated by ``dilation``) with ``padding``
    and ``stride`` makes of ``input_length`` (``None`` stays ``None``)."""
    if input_length is None:
        return None
    if padding not in _PADDINGS:
        raise AssertionError(f"padding must be one of {_PADDINGS}, got {padding!r}")
    span = filter_size + (filter_size - 1) * (dilation - 1)
    if padding == "valid":
        input_length = input_length - span + 1
    elif padding == "full":
        input_length = input_length + span - 1
    return (input_length + stride - 1) // stride


def conv_input_length(output_length, filter_size, padding, stride):
    """The input length a convolution needs to make ``output_length`` (the inverse of
    ``conv_output_length`` for a stride-1 ``filter_size``)."""
    if output_length is None:
        return None
    if padding not in _PADDINGS[:3]:
        raise AssertionError(f"padding must be one of {_PADDINGS[:3]}, got {padding!r}")
    pad = {"same": filter_size // 2, "valid": 0, "full": filter_size - 1}[padding]
    return (output_length - 1) * stride - 2 * pad + filter_size


__all__ = [
    "constant_value",
    "conv_input_length",
    "conv_output_length",
    "deconv_output_length",
    "normalize_data_format",
    "normalize_padding",
    "normalize_tuple",
    "smart_cond",
]


_DATA_FORMATS = {"channels_last": {3: "NWC", 4: "NHWC", 5: "NDHWC"},
                 "channels_first": {3: "NCW", 4: "NCHW", 5: "NCDHW"}}


def convert_data_format(data_format, ndim):
    """The op-level data format (``"NHWC"``, ``"NCW"``...) of a layer's ``data_format``
    (``"channels_last"``/``"channels_first"``) for inputs of rank ``ndim`` (3, 4 or 5)."""
    if data_format not in _DATA_FORMATS:
        raise ValueError("Invalid data_format:", data_format)
    if ndim not in _DATA_FORMATS[data_format]:
        raise ValueError("Input rank not supported:", ndim)
    return _DATA_FORMATS[data_format][ndim]
