"""``tf.quantization``: fake quantization (training-time simulation of integer inference)."""

import types as _types

from tideflow.ops.quantization_ops import (
    fake_quant_with_min_max_args,
    fake_quant_with_min_max_args_gradient,
    fake_quant_with_min_max_vars,
    fake_quant_with_min_max_vars_gradient,
    fake_quant_with_min_max_vars_per_channel,
    fake_quant_with_min_max_vars_per_channel_gradient,
    quantize_and_dequantize,
    quantize_and_dequantize_v2,
)
from tideflow.ops.quantized_ops import dequantize, quantize, quantized_concat

experimental = _types.SimpleNamespace()

__all__ = [
    "dequantize", "experimental", "fake_quant_with_min_max_args",
    "fake_quant_with_min_max_args_gradient",
    "fake_quant_with_min_max_vars", "fake_quant_with_min_max_vars_gradient",
    "fake_quant_with_min_max_vars_per_channel",
    "fake_quant_with_min_max_vars_per_channel_gradient", "quantize", "quantize_and_dequantize",
    "quantize_and_dequantize_v2", "quantized_concat",
]
