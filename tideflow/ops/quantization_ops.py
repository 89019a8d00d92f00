"""Fake quantization (``tf.quantization``): FakeQuantWithMinMaxArgs/Vars(/PerChannel) and their
gradient ops, and QuantizeAndDequantizeV2. The ops on quantized types are in ``quantized_ops``.

As TF's kernels, the range [min, max] is first nudged so that 0.0 is exactly representable:
the zero point ``quant_min - min / scale`` is rounded (half away from zero) and clamped into
[quant_min, quant_max], and min and max move with it. Values are then clamped into the nudged
range and rounded onto its grid. All arithmetic is in float32, as TF's.
"""

import numpy as np

from tideflow.framework import errors, op_registry, ops

_F32 = np.float32


def _nudge(mn, mx, num_bits, narrow_range):
    """(nudged_min, nudged_max, scale, inverse scale) as float32 arrays (elementwise over
    channels); the inverse is computed from the range, not as 1 / scale, as TF."""
    mn = np.asarray(mn, _F32)
    mx = np.asarray(mx, _F32)
    qmin = _F32(1 if narrow_range else 0)
    qmax = _F32((1 << num_bits) - 1)
    scale = ((mx - mn) / (qmax - qmin)).astype(_F32)
    with np.errstate(all="ignore"):
        zp_from_min = (qmin - mn / scale).astype(_F32)
    rounded = np.where(zp_from_min < 0, -np.floor(-zp_from_min + 0.5),
                       np.floor(zp_from_min + 0.5)).astype(_F32)
    zp = np.where(zp_from_min < qmin, qmin, np.where(zp_from_min > qmax, qmax, rounded))
    nudged_min = ((qmin - zp) * scale).astype(_F32)
    nudged_max = ((qmax - zp) * scale).astype(_F32)
    with np.errstate(all="ignore"):
        inv_scale = ((qmax - qmin) / (mx - mn)).astype(_F32)
    return nudged_min, nudged_max, scale, inv_scale


def _fake_quant(x, mn, mx, num_bits, narrow_range):
    nmin, nmax, scale, inv = _nudge(mn, mx, num_bits, narrow_range)
    x = np.asarray(x, _F32)
    with np.errstate(all="ignore"):
        shifted = (np.clip(x, nmin, nmax) - nmin).astype(_F32)
        q = np.floor(shifted * inv + _F32(0.5)).astype(_F32)
        zp = np.round(-nmin / scale).astype(_F32)  # the nudged zero point, an integer
        return ((q - zp) * scale).astype(_F32)


def _check_bits(num_bits, narrow_range=False):
    if not 2 <= num_bits <= 16:
        raise errors.InvalidArgumentError(
            None, None, f"num_bits is out of range, expected between 2 and 16, was: {num_bits}")


def _check_range(mn, mx):
    if np.any(np.asarray(mn) > np.asarray(mx)):
        raise errors.InvalidArgumentError(
            None, None, f"min has to be smaller or equal than max, was: min = {mn}, max = {mx}")


# ------------------------------------------------------------------------------------------
# FakeQuantWithMinMaxArgs (+ Gradient)
# ------------------------------------------------------------------------------------------


def _args_kernel(inputs, *, min, max, num_bits, narrow_range):
    _check_bits(num_bits)
    if not min < max:
        raise errors.InvalidArgumentError(
            None, None, f"min has to be smaller than max, was: min = {min}, max = {max}")
    return _fake_quant(inputs, min, max, num_bits, narrow_range)


def _args_grad_kernel(gradients, inputs, *, min, max, num_bits, narrow_range):
    _check_bits(num_bits)
    nmin, nmax, _, _ = _nudge(min, max, num_bits, narrow_range)
    inside = (inputs >= nmin) & (inputs <= nmax)
    return np.where(inside, gradients, _F32(0)).astype(_F32)


_ARGS_ATTRS = ["min: float = -6.0", "max: float = 6.0", "num_bits: int = 8",
               "narrow_range: bool = false"]


def _args_grad(op, grad):
    return ops.apply_op("FakeQuantWithMinMaxArgsGradient", [grad, op._inputs[0]],
                        {k: op._attrs[k] for k in ("min", "max", "num_bits", "narrow_range")}
                        )._outputs[0]


op_registry.declare(
    "FakeQuantWithMinMaxArgs", inputs=["inputs: float"], outputs=["outputs: float"],
    attrs=_ARGS_ATTRS, shape=lambda op: [op._inputs[0]._shape], kernel=_args_kernel,
    grad=_args_grad,
)
op_registry.declare(
    "FakeQuantWithMinMaxArgsGradient", inputs=["gradients: float", "inputs: float"],
    outputs=["backprops: float"], attrs=_ARGS_ATTRS,
    shape=lambda op: [op._inputs[0]._shape.merge_with(op._inputs[1]._shape)],
    kernel=_args_grad_kernel, differentiable=False,
)


# ------------------------------------------------------------------------------------------
# FakeQuantWithMinMaxVars(PerChannel) (+ Gradient)
# ------------------------------------------------------------------------------------------


def _vars_kernel(inputs, mn, mx, *, num_bits, narrow_range):
    _check_bits(num_bits)
    _check_range(mn, mx)
    return _fake_quant(inputs, mn, mx, num_bits, narrow_range)


def _per_channel_kernel(inputs, mn, mx, *, num_bits, narrow_range):
    _check_bits(num_bits)
    d = inputs.shape[-1] if inputs.ndim else None
    if mn.shape != (d,) or mx.shape != (d,):
        raise errors.InvalidArgumentError(
            None, None, f"min and max must be vectors of the inputs' last dimension {d}, got "
                        f"{list(mn.shape)} and {list(mx.shape)}")
    _check_range(mn, mx)
    return _fake_quant(inputs, mn, mx, num_bits, narrow_range)


def _vars_grad_kernel(per_channel):
    def kernel(gradients, inputs, mn, mx, *, num_bits, narrow_range):
        _check_bits(num_bits)
        nmin, nmax, _, _ = _nudge(mn, mx, num_bits, narrow_range)
        g = np.asarray(gradients, _F32)
        below = inputs < nmin
        above = inputs > nmax
        axes = tuple(range(inputs.ndim - 1)) if per_channel else None
        dx = np.where(below | above, _F32(0), g).astype(_F32)
        dmin = np.sum(np.where(below, g, _F32(0)), axis=axes, dtype=_F32)
        dmax = np.sum(np.where(above, g, _F32(0)), axis=axes, dtype=_F32)
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


def _scalar_or_vector_shape(per_channel):
    def shape(op):
        x = op._inputs[0]._shape
        if per_channel:
            last = x.dims[-1] if x.ndims else None
            for t in op._inputs[1:]:
                if t._shape.ndims not in (None, 1):
                    raise ValueError(f"min and max must be rank 1, got {t._shape}")
                if last is not None and t._shape.ndims == 1:
                    last.merge_with(t._shape.dims[0])
        else:
            for t in op._inputs[1:]:
                if t._shape.ndims not in (None, 0):
                    raise ValueError(f"min and max must be scalars, got {t._shape}")
        return [x]

    return shape


_VARS_ATTRS = ["num_bits: int = 8", "narrow_range: bool = false"]

for _name, _per in (("FakeQuantWithMinMaxVars", False),
                    ("FakeQuantWithMinMaxVarsPerChannel", True)):
    op_registry.declare(
        _name, inputs=["inputs: float", "min: float", "max: float"], outputs=["outputs: float"],
        attrs=_VARS_ATTRS, shape=_scalar_or_vector_shape(_per),
        kernel=_per_channel_kernel if _per else _vars_kernel,
        grad=_vars_grad(_name + "Gradient"),
    )
    op_registry.declare(
        _name + "Gradient",
        inputs=["gradients: float", "inputs: float", "min: float", "max: float"],
        outputs=["backprops_wrt_input: float", "backprop_wrt_min: float",
                 "backprop_wrt_max: float"],
        attrs=_VARS_ATTRS,
        shape=lambda op: [op._inputs[1]._shape, op._inputs[2]._shape, op._inputs[3]._shape],
        kernel=_vars_grad_kernel(_per), differentiable=False,
    )


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
    return list(ops.apply_op("FakeQuantWithMinMaxVarsGradient", [gradients, inputs, min, max],
                             {"num_bits": num_bits, "narrow_range": narrow_range},
                             name=name)._outputs)


def fake_quant_with_min_max_vars_per_channel(inputs, min, max, num_bits=8, narrow_range=False,
                                             name=None):
    """As fake_quant_with_min_max_vars with one range per channel (the last dimension)."""
    return ops.apply_op("FakeQuantWithMinMaxVarsPerChannel", [inputs, min, max],
                        {"num_bits": num_bits, "narrow_range": narrow_range},
                        name=name)._outputs[0]


def fake_quant_with_min_max_vars_per_channel_gradient(gradients, inputs, min, max, num_bits=8,
                                                      narrow_range=False, name=None):
    return list(ops.apply_op("FakeQuantWithMinMaxVarsPerChannelGradient",
                             [gradients, inputs, min, max],
                             {"num_bits": num_bits, "narrow_range": narrow_range},
                             name=name)._outputs)


# ------------------------------------------------------------------------------------------
# QuantizeAndDequantizeV2
# ------------------------------------------------------------------------------------------


def _qdq(x, mn, mx, signed_input, num_bits, range_given, round_mode, narrow_range):
    if signed_input:
        qmin = -(1 << (num_bits - 1)) + (1 if narrow_range else 0)
        qmax = (1 << (num_bits - 1)) - 1
    else:
        qmin, qmax = 0, (1 << num_bits) - 1
    mn, mx = float(mn), float(mx)
    big = np.finfo(x.dtype).max
    s_min = qmin / mn if qmin * mn > 0 else big
    s_max = qmax / mx if qmax * mx > 0 else big
    if s_min < s_max:
        scale, inv = s_min, mn / qmin
        mx = qmax * inv
    else:
        scale, inv = s_max, mx / qmax
        mn = qmin * inv
    dt = x.dtype
    # as TF: values are clamped into the (adjusted) range only when the range was given
    y = (np.clip(x, dt.type(mn), dt.type(mx)) if range_given else x) * dt.type(scale)
    y = np.rint(y) if round_mode == "HALF_TO_EVEN" else np.floor(y + dt.type(0.5))
    return (y * dt.type(inv)).astype(dt, copy=False)


def _qdq_kernel(x, input_min, input_max, *, signed_input, num_bits, range_given, round_mode,
                narrow_range, axis):
    if round_mode not in ("HALF_TO_EVEN", "HALF_UP"):
        raise errors.InvalidArgumentError(None, None, f"Unknown round_mode {round_mode}")
    if not 0 < num_bits <= (63 if signed_input else 62):
        raise errors.InvalidArgumentError(None, None, f"num_bits {num_bits} is out of range")
    if axis == -1:
        mn = input_min if range_given else (np.min(x) if x.size else 0.0)
        mx = input_max if range_given else (np.max(x) if x.size else 0.0)
        if range_given and float(mn) > float(mx):
            raise errors.InvalidArgumentError(
                None, None, f"Invalid range: input_min {float(mn)} > input_max {float(mx)}")
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


op_registry.declare(
    "QuantizeAndDequantizeV2",
    inputs=["input: T", "input_min: T", "input_max: T"],
    outputs=["output: T"],
    attrs=["signed_input: bool = true", "num_bits: int = 8", "range_given: bool = false",
           "T: {bfloat16, half, float, double}", ("round_mode: {'HALF_TO_EVEN', 'HALF_UP'} = "
           "'HALF_TO_EVEN'"), "narrow_range: bool = false", "axis: int = -1"],
    newer_attrs=["axis"],  # TF 2.x's
    shape=lambda op: [op._inputs[0]._shape],
    kernel=_qdq_kernel,
    # straight-through, as TF 1.x's gradient of QuantizeAndDequantizeV2
    grad=lambda op, grad: [grad, None, None],
)


def quantize_and_dequantize(input, input_min, input_max, signed_input=True, num_bits=8,
                            range_given=False, round_mode="HALF_TO_EVEN", name=None,
                            narrow_range=False, axis=None):
    """Quantizes ``input`` to ``num_bits`` integers over its range (or the given range) with
    the scale that keeps 0 exact, and back; the gradient passes straight through."""
    with ops.name_scope(name, "quantize_and_dequantize", [input]) as scope:
        x = ops.convert_to_tensor(input, name="input")
        dt = x.dtype.base_dtype
        mn = ops.convert_to_tensor(input_min, dtype=dt)
        mx = ops.convert_to_tensor(input_max, dtype=dt)
        return ops.apply_op(
            "QuantizeAndDequantizeV2", [x, mn, mx],
            {"signed_input": signed_input, "num_bits": num_bits, "range_given": range_given,
             "round_mode": round_mode, "narrow_range": narrow_range,
             "axis": -1 if axis is None else int(axis)},
            name=scope)._outputs[0]


quantize_and_dequantize_v2 = quantize_and_dequantize
