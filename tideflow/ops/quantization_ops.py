"""Fake quantization (``tf.quantization``): FakeQuantWithMinMaxArgs/Vars(/PerChannel) and their
gradient ops, and QuantizeAndDequantizeV2. The ops on quantized types are in ``quantized_ops``.

As TF 1.15's kernels, the range [min, max] is first nudged so that 0.0 is exactly
representable: the zero point ``quant_min - min / scale`` is rounded (half away from zero) and
clamped into [quant_min, quant_max], and min and max move with it. Values are then clamped into
the nudged range and rounded onto its grid: ``floor(shifted * (1 / scale) + 0.5)`` for the Args
op, ``floor(shifted / scale + 0.5)`` for the Vars ops (half away from zero for a rank-1 per-channel
input), all in float32, as TF 1.15 (TF 2.x rounds with a separate zero point and differs by an
ulp or a step). A range of (0, 0) gives zeros; the Vars ops do not check that min <= max.
"""

import collections

import ml_dtypes
import numpy as np

from tideflow.framework import errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape

_F32 = np.float32


def _nudge(mn, mx, num_bits, narrow_range):
    """(nudged_min, nudged_max, scale) as float32 arrays (elementwise over channels)."""
    mn = np.asarray(mn, _F32)
    mx = np.asarray(mx, _F32)
    qmin = _F32(1 if narrow_range else 0)
    qmax = _F32((1 << num_bits) - 1)
    with np.errstate(all="ignore"):
        scale = ((mx - mn) / (qmax - qmin)).astype(_F32)
        zp_from_min = (qmin - mn / scale).astype(_F32)
        # std::round (half away from zero) into TF's uint16; a NaN casts to 0 on x86
        whole = np.floor(zp_from_min)
        rounded = whole + (zp_from_min - whole >= _F32(0.5))
        zp = np.where(zp_from_min < qmin, qmin, np.where(zp_from_min > qmax, qmax, rounded))
        zp = np.where(np.isnan(zp), _F32(0), zp).astype(_F32)
        nudged_min = ((qmin - zp) * scale).astype(_F32)
        nudged_max = ((qmax - zp) * scale).astype(_F32)
    return nudged_min, nudged_max, scale


def _fake_quant(x, mn, mx, num_bits, narrow_range, by="divide"):
    """``by``: 'inverse' (the Args op multiplies by 1 / scale), 'divide' (the Vars ops), or
    'round' (the rank-1 per-channel op: std::round of the quotient)."""
    nmin, nmax, scale = _nudge(mn, mx, num_bits, narrow_range)
    x = np.asarray(x, _F32)
    with np.errstate(all="ignore"):
        # as Eigen's cwiseMin(max).cwiseMax(min): an inverted range gives min, not max
        shifted = (np.maximum(np.minimum(x, nmax), nmin) - nmin).astype(_F32)
        if by == "inverse":
            q = np.floor(shifted * (_F32(1) / scale) + _F32(0.5))
        elif by == "divide":
            q = np.floor(shifted / scale + _F32(0.5))
        else:
            q = shifted / scale
            whole = np.floor(q)
            q = whole + (q - whole >= _F32(0.5))
        out = (q.astype(_F32) * scale + nmin).astype(_F32)
    zero = (np.asarray(mn) == 0) & (np.asarray(mx) == 0)  # TF's kernels: a (0, 0) range is 0
    return np.where(zero, _F32(0), out).astype(_F32) if zero.any() else out


def _bits_error():
    return errors.InvalidArgumentError(None, None, "num_bits must be between 2 and 16, inclusive")


def _check_bits(num_bits):
    if not 2 <= num_bits <= 16:
        raise _bits_error()


def _float_str(v):
    from tideflow.ops.logging_ops import _format_float

    return _format_float(_F32(v), 32)


def _check_args_attrs(attrs):
    """TF 1.15 checks the Args ops' attributes when their kernel is built."""
    if not attrs["min"] < attrs["max"]:
        raise errors.InvalidArgumentError(
            None, None, f"min has to be smaller than max, was: {_float_str(attrs['min'])} >= "
                        f"{_float_str(attrs['max'])}")
    if not 2 <= attrs["num_bits"] <= 16:
        raise _bits_error()


def _check_vars_attrs(attrs):
    if not 2 <= attrs["num_bits"] <= 16:
        raise _bits_error()


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


# ------------------------------------------------------------------------------------------
# FakeQuantWithMinMaxArgs (+ Gradient)
# ------------------------------------------------------------------------------------------


def _args_kernel(inputs, *, min, max, num_bits, narrow_range):
    return _fake_quant(inputs, min, max, num_bits, narrow_range, by="inverse")


def _args_grad_kernel(gradients, inputs, *, min, max, num_bits, narrow_range, ctx):
    if np.shape(gradients) != np.shape(inputs):
        raise errors.InvalidArgumentError(
            None, None, f"Inputs to operation {ctx.name} of type {ctx.op.type} must have the same "
                        f"size and shape.  Input 0: {_dims(np.shape(gradients))} != input 1: "
                        f"{_dims(np.shape(inputs))}")
    nmin, nmax, _ = _nudge(min, max, num_bits, narrow_range)
    inside = (inputs >= nmin) & (inputs <= nmax)
    return (gradients * inside.astype(_F32)).astype(_F32)  # (a product, as TF: -0.0 kept)


_ARGS_ATTRS = ["min: float = -6.0", "max: float = 6.0", "num_bits: int = 8",
               "narrow_range: bool = false"]


def _args_grad(op, grad):
    return ops.apply_op("FakeQuantWithMinMaxArgsGradient", [grad, op._inputs[0]],
                        {k: op._attrs[k] for k in ("min", "max", "num_bits", "narrow_range")}
                        )._outputs[0]


op_registry.declare(
    "FakeQuantWithMinMaxArgs", inputs=["inputs: float"], outputs=["outputs: float"],
    attrs=_ARGS_ATTRS, shape=lambda op: [op._inputs[0]._shape], kernel=_args_kernel,
    grad=_args_grad, check_attrs=_check_args_attrs,
)
op_registry.declare(
    "FakeQuantWithMinMaxArgsGradient", inputs=["gradients: float", "inputs: float"],
    outputs=["backprops: float"], attrs=_ARGS_ATTRS,
    shape=lambda op: [op._inputs[0]._shape],  # TF 1.15 checks the shapes when it runs
    kernel=_args_grad_kernel, differentiable=False, check_attrs=_check_args_attrs,
)


# ------------------------------------------------------------------------------------------
# FakeQuantWithMinMaxVars(PerChannel) (+ Gradient)
# ------------------------------------------------------------------------------------------


def _vars_kernel(inputs, mn, mx, *, num_bits, narrow_range):
    return _fake_quant(inputs, mn, mx, num_bits, narrow_range)


def _check_depth(inputs, mn, mx):
    depth = inputs.shape[-1] if inputs.ndim else 0
    for what, t in (("min", mn), ("max", mx)):
        n = t.shape[0] if t.ndim else 1
        if n != depth:
            raise errors.InvalidArgumentError(
                None, None, f"{what} has incorrect size, expected {depth} was {n}")


def _per_channel_kernel(inputs, mn, mx, *, num_bits, narrow_range):
    _check_depth(inputs, mn, mx)
    return _fake_quant(inputs, mn, mx, num_bits, narrow_range,
                       by="round" if inputs.ndim == 1 else "divide")


def _vars_grad_kernel(per_channel):
    def kernel(gradients, inputs, mn, mx, *, num_bits, narrow_range):
        if per_channel:
            _check_depth(inputs, mn, mx)
        if np.shape(gradients) != np.shape(inputs):
            raise errors.InvalidArgumentError(
                None, None, "gradient and input must be the same size")
        nmin, nmax, _ = _nudge(mn, mx, num_bits, narrow_range)
        g = np.asarray(gradients, _F32)
        below = inputs < nmin
        above = inputs > nmax
        zero = (np.asarray(mn) == 0) & (np.asarray(mx) == 0)  # a (0, 0) range passes all
        below &= ~zero
        above &= ~zero
        axes = tuple(range(inputs.ndim - 1)) if per_channel else None
        dx = (g * ~(below | above)).astype(_F32)  # products, as TF's: -0.0 outside
        dmin = np.sum(g * below, axis=axes, dtype=_F32)
        dmax = np.sum(g * above, axis=axes, dtype=_F32)
        return dx, np.asarray(dmin, _F32), np.asarray(dmax, _F32)

    kernel.__name__ = f"_vars_grad_kernel_{per_channel}"
    return kernel


def _vars_grad(grad_op_type):
    def grad_fn(op, grad):
        return list(ops.apply_op(grad_op_type, [grad] + list(op._inputs),
                                 {"num_bits": op._attrs["num_bits"],
                                  "narrow_range": op._attrs["narrow_range"]})._outputs)

    grad_fn.__name__ = f"_{grad_op_type}_fn"
    return grad_fn


def _with_rank(shape, rank):
    if shape.ndims is not None and shape.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims}")
    return shape if shape.ndims is not None else TensorShape([None] * rank)


def _merge(a, b):
    """``a.merge_with(b)`` with TF's shape-inference words when they do not merge."""
    from tideflow.ops.concat_ops import _merge_error

    err = _merge_error(a, b)
    if err is not None:
        raise ValueError(err)
    return a.merge_with(b)


def _merge_dim(a, b):
    if a.value is not None and b.value is not None and a.value != b.value:
        raise ValueError(f"Dimensions must be equal, but are {a.value} and {b.value}")


def _vars_shape(op):
    x, mn, mx = (t._shape for t in op._inputs)
    _with_rank(mn, 0)
    _with_rank(mx, 0)
    return [x]


def _per_channel_shape(op):
    x, mn, mx = (t._shape for t in op._inputs)
    if x.ndims is not None and x.ndims < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {x.ndims}")
    mn, mx = _with_rank(mn, 1), _with_rank(mx, 1)
    if x.ndims is not None:
        _merge_dim(x.dims[-1], mn.dims[0])
        _merge_dim(x.dims[-1], mx.dims[0])
    return [x]


def _vars_grad_shape(op):
    g, x, mn, mx = (t._shape for t in op._inputs)
    inputs = _merge(g, x)
    scalar = _merge(_with_rank(mn, 0), mx)
    return [inputs, scalar, scalar]


def _per_channel_grad_shape(op):
    g, x, mn, mx = (t._shape for t in op._inputs)
    inputs = _merge(g, x)
    if inputs.ndims is not None and inputs.ndims < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {inputs.ndims}")
    if inputs.ndims is not None and inputs.ndims > 4:
        raise ValueError(f"Shape must be at most rank 4 but is rank {inputs.ndims}")
    last = TensorShape([inputs.dims[-1] if inputs.ndims else None])
    min_max = _merge(_with_rank(mn, 1), last)
    min_max = _merge(mx, min_max)
    return [inputs, min_max, min_max]


_VARS_ATTRS = ["num_bits: int = 8", "narrow_range: bool = false"]

for _name, _kernel, _shape, _grad_shape in (
        ("FakeQuantWithMinMaxVars", _vars_kernel, _vars_shape, _vars_grad_shape),
        ("FakeQuantWithMinMaxVarsPerChannel", _per_channel_kernel, _per_channel_shape,
         _per_channel_grad_shape)):
    op_registry.declare(
        _name, inputs=["inputs: float", "min: float", "max: float"], outputs=["outputs: float"],
        attrs=_VARS_ATTRS, shape=_shape, kernel=_kernel, grad=_vars_grad(_name + "Gradient"),
        check_attrs=_check_vars_attrs,
    )
    op_registry.declare(
        _name + "Gradient",
        inputs=["gradients: float", "inputs: float", "min: float", "max: float"],
        outputs=["backprops_wrt_input: float", "backprop_wrt_min: float",
                 "backprop_wrt_max: float"],
        attrs=_VARS_ATTRS, shape=_grad_shape,
        kernel=_vars_grad_kernel(_kernel is _per_channel_kernel), differentiable=False,
        check_attrs=_check_vars_attrs,
    )

# as TF's generated wrappers, the gradient ops' three outputs come back as a namedtuple
_GRAD_FIELDS = ["backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"]
_VarsGradient = collections.namedtuple("FakeQuantWithMinMaxVarsGradient", _GRAD_FIELDS)
_PerChannelGradient = collections.namedtuple("FakeQuantWithMinMaxVarsPerChannelGradient",
                                             _GRAD_FIELDS)


def fake_quant_with_min_max_args(inputs, min=-6.0, max=6.0, num_bits=8, narrow_range=False,
                                 name=None):
    """Quantizes float32 ``inputs`` onto ``2**num_bits`` levels of the nudged [min, max] and
    back (straight-through gradient inside the range, zero outside)."""
    return ops.apply_op("FakeQuantWithMinMaxArgs", [inputs],
                        {"min": float(min), "max": float(max), "num_bits": num_bits,
                         "narrow_range": narrow_range}, name=name)._outputs[0]


def fake_quant_with_min_max_args_gradient(gradients, inputs, min=-6.0, max=6.0, num_bits=8,
                                          narrow_range=False, name=None):
    return ops.apply_op("FakeQuantWithMinMaxArgsGradient", [gradients, inputs],
                        {"min": float(min), "max": float(max), "num_bits": num_bits,
                         "narrow_range": narrow_range}, name=name)._outputs[0]


def fake_quant_with_min_max_vars(inputs, min, max, num_bits=8, narrow_range=False, name=None):
    """As fake_quant_with_min_max_args with the range given by scalar tensors (variables);
    gradients flow to min and max from the values clamped below and above."""
    return ops.apply_op("FakeQuantWithMinMaxVars", [inputs, min, max],
                        {"num_bits": num_bits, "narrow_range": narrow_range},
                        name=name)._outputs[0]


def fake_quant_with_min_max_vars_gradient(gradients, inputs, min, max, num_bits=8,
                                          narrow_range=False, name=None):
    return _VarsGradient(*ops.apply_op(
        "FakeQuantWithMinMaxVarsGradient", [gradients, inputs, min, max],
        {"num_bits": num_bits, "narrow_range": narrow_range}, name=name)._outputs)


def fake_quant_with_min_max_vars_per_channel(inputs, min, max, num_bits=8, narrow_range=False,
                                             name=None):
    """As fake_quant_with_min_max_vars with one range per channel (the last dimension)."""
    return ops.apply_op("FakeQuantWithMinMaxVarsPerChannel", [inputs, min, max],
                        {"num_bits": num_bits, "narrow_range": narrow_range},
                        name=name)._outputs[0]


def fake_quant_with_min_max_vars_per_channel_gradient(gradients, inputs, min, max, num_bits=8,
                                                      narrow_range=False, name=None):
    return _PerChannelGradient(*ops.apply_op(
        "FakeQuantWithMinMaxVarsPerChannelGradient", [gradients, inputs, min, max],
        {"num_bits": num_bits, "narrow_range": narrow_range}, name=name)._outputs)


# ------------------------------------------------------------------------------------------
# QuantizeAndDequantizeV2
# ------------------------------------------------------------------------------------------


def _round_half_to_even(y):
    """TF's scalar_round_half_to_even: floor, then up past a half or at an odd half (so a
    value in (-0.5, 0) becomes +0.0, where NumPy's rint keeps the sign)."""
    fl = np.floor(y)
    frac = y - fl
    up = (frac > 0.5) | ((frac == 0.5) & (np.fmod(fl, 2) != 0))
    return np.where(up, fl + 1, fl).astype(y.dtype, copy=False)


def _qdq(x, mn, mx, signed_input, num_bits, range_given, round_mode, narrow_range):
    """TF 1.15's QuantizeAndDequantizeOneScaleImpl, each step in the input's type."""
    t = x.dtype.type
    if signed_input:
        qmin = -(1 << (num_bits - 1)) + (1 if narrow_range else 0)
        qmax = (1 << (num_bits - 1)) - 1
    else:
        qmin, qmax = 0, (1 << num_bits) - 1
    mn, mx = t(mn), t(mx)
    big = ml_dtypes.finfo(t).max
    with np.errstate(all="ignore"):
        s_min = t(t(qmin) / mn) if t(qmin) * mn > 0 else big
        s_max = t(t(qmax) / mx) if t(qmax) * mx > 0 else big
        if s_min < s_max:
            scale, inv = s_min, t(mn / t(qmin))
            mx = t(t(qmax) * inv)
        else:
            scale, inv = s_max, t(mx / t(qmax))
            mn = t(t(qmin) * inv)
        # as TF, values are clamped into the (adjusted) range only when the range was given;
        # Eigen's cwiseMin/cwiseMax keep x when equal (-0.0 stays -0.0), NumPy's do not
        if range_given:
            x = np.where(mx < x, mx, x)
            x = np.where(x < mn, mn, x)
        y = x * scale
        y = _round_half_to_even(y) if round_mode == "HALF_TO_EVEN" else np.floor(y + t(0.5))
        return (y * inv).astype(x.dtype, copy=False)


def _qdq_kernel(x, input_min, input_max, num_bits=None, *, signed_input, range_given,
                round_mode="HALF_TO_EVEN", narrow_range, axis=-1, **attrs):
    num_bits = int(num_bits) if num_bits is not None else attrs["num_bits"]
    if not 0 < num_bits < (62 if signed_input else 63):
        raise errors.InvalidArgumentError(
            None, None, f"num_bits is out of range: {num_bits} with signed_input_ "
                        f"{int(signed_input)}")
    if axis == -1:
        # (TF 1.15 checks the range of float and double inputs only)
        if range_given and x.dtype in (np.float32, np.float64) and input_min > input_max:
            from tideflow.ops.logging_ops import _format_float

            bits = 64 if x.dtype == np.float64 else 32
            raise errors.InvalidArgumentError(
                None, None, f"Invalid range: input_min {_format_float(input_min, bits)} > "
                            f"input_max {_format_float(input_max, bits)}")
        mn = input_min if range_given else (np.min(x) if x.size else 0.0)
        mx = input_max if range_given else (np.max(x) if x.size else 0.0)
        return _qdq(x, mn, mx, signed_input, num_bits, range_given, round_mode, narrow_range)
    a = axis % x.ndim
    out = np.empty_like(x)
    for i in range(x.shape[a]):
        sl = np.take(x, i, axis=a)
        mn = input_min[i] if range_given else np.min(sl)
        mx = input_max[i] if range_given else np.max(sl)
        idx = [slice(None)] * x.ndim
        idx[a] = i
        out[tuple(idx)] = _qdq(sl, mn, mx, signed_input, num_bits, range_given, round_mode,
                               narrow_range)
    return out


def _qdq_v2_kernel(x, input_min, input_max, *, signed_input, num_bits, range_given,
                   round_mode, narrow_range, axis):
    return _qdq_kernel(x, input_min, input_max, signed_input=signed_input, num_bits=num_bits,
                       range_given=range_given, round_mode=round_mode,
                       narrow_range=narrow_range, axis=axis)


def _qdq_v3_kernel(x, input_min, input_max, num_bits, *, signed_input, range_given,
                   narrow_range):
    return _qdq_kernel(x, input_min, input_max, num_bits, signed_input=signed_input,
                       range_given=range_given, narrow_range=narrow_range)


def _qdq_shape(op):
    # TF 1.15: the range (and V3's num_bits) are scalars
    for t in op._inputs[1:]:
        if t._shape.ndims not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {t._shape.ndims}")
    return [op._inputs[0]._shape]


_QDQ_TYPES = "T: {bfloat16, half, float, double}"
op_registry.declare(
    "QuantizeAndDequantizeV2",
    inputs=["input: T", "input_min: T", "input_max: T"],
    outputs=["output: T"],
    attrs=["signed_input: bool = true", "num_bits: int = 8", "range_given: bool = false",
           _QDQ_TYPES, ("round_mode: {'HALF_TO_EVEN', 'HALF_UP'} = "
           "'HALF_TO_EVEN'"), "narrow_range: bool = false", "axis: int = -1"],
    newer_attrs=["axis"],  # TF 2.x's
    shape=_qdq_shape,
    kernel=_qdq_v2_kernel,
    # straight-through, as TF 1.x's gradient of QuantizeAndDequantizeV2
    grad=lambda op, grad: [grad, None, None],
)
op_registry.declare(
    "QuantizeAndDequantizeV3",
    inputs=["input: T", "input_min: T", "input_max: T", "num_bits: int32"],
    outputs=["output: T"],
    attrs=["signed_input: bool = true", "range_given: bool = true", _QDQ_TYPES,
           "narrow_range: bool = false"],
    shape=_qdq_shape, kernel=_qdq_v3_kernel,
    grad=lambda op, grad: [grad, None, None, None],
)


def quantize_and_dequantize(input, input_min, input_max, signed_input=True, num_bits=8,
                            range_given=False, round_mode="HALF_TO_EVEN", name=None,
                            narrow_range=False, axis=None):
    """Quantizes ``input`` to ``num_bits`` integers over its range (or the given range) with
    the scale that keeps 0 exact, and back; the gradient passes straight through."""
    # TF 1.15 calls the generated op directly: no name scope, 'QuantizeAndDequantizeV2'
    return ops.apply_op(
        "QuantizeAndDequantizeV2", [input, input_min, input_max],
        {"signed_input": signed_input, "num_bits": num_bits, "range_given": range_given,
         "round_mode": round_mode, "narrow_range": narrow_range,
         "axis": -1 if axis is None else int(axis)},
        name=name)._outputs[0]


quantize_and_dequantize_v2 = quantize_and_dequantize
