"""Quantization (``tf.quantization``): FakeQuantWithMinMaxArgs/Vars(/PerChannel) and their
gradient ops, QuantizeAndDequantizeV2, and QuantizeV2/Dequantize/QuantizedConcat (float to the
quantized types and back).

As TF's kernels, the range [min, max] is first nudged so that 0.0 is exactly representable:
the zero point ``quant_min - min / scale`` is rounded (half away from zero) and clamped into
[quant_min, quant_max], and min and max move with it. Values are then clamped into the nudged
range and rounded onto its grid. All arithmetic is in float32, as TF's.
"""

import collections

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops.concat_ops import _concat_shape

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
            name=scope.rstrip("/") if scope else None)._outputs[0]


quantize_and_dequantize_v2 = quantize_and_dequantize




# ------------------------------------------------------------------------------------------
# QuantizeV2, Dequantize, QuantizedConcat: float <-> quantized types (qint8, quint8, qint16,
# quint16, qint32), following TF's reference CPU kernels step by step in float32 (the modes
# MIN_COMBINED, MIN_FIRST and SCALED; per-slice ranges along ``axis``).
# ------------------------------------------------------------------------------------------

_FLT_MAX = np.finfo(_F32).max


def _qtypes(T):
    """(structured NumPy dtype, its integer base, lowest, highest) of quantized dtype ``T``."""
    struct = T._np
    base = struct[0] if struct.names else struct
    info = np.iinfo(base)
    return struct, base, int(info.min), int(info.max)


def _plain(x):
    """A quantized value as a plain integer array (internally they are TF's structured ones)."""
    x = np.asarray(x)
    return x.view(x.dtype[0]) if x.dtype.names else x


def _round_away(v):
    """Round half away from zero (C's round), exactly: ``trunc(v + 0.5)`` is off for values
    just below one half in float32."""
    a = np.abs(v)
    r = np.floor(a)
    r = r + (a - r >= _F32(0.5))
    return np.copysign(r, v).astype(v.dtype, copy=False)


def _to_quantized(v, struct, base):
    """Float values (already in range) to the quantized type, as C++'s float -> int cast."""
    with np.errstate(invalid="ignore"):
        if base.itemsize >= 4:
            q = v.astype(base)
        else:
            q = v.astype(np.int64).astype(base)
    return q.view(struct)


def _slice_ranges(mn, mx, axis, ndim):
    """Per-slice ranges as arrays broadcasting along ``axis`` of a rank-``ndim`` input."""
    mn = np.asarray(mn, _F32)
    mx = np.asarray(mx, _F32)
    if axis == -1:
        return mn.reshape(()), mx.reshape(())
    shape = (-1,) + (1,) * (ndim - axis - 1)
    return mn.reshape(shape), mx.reshape(shape)


def _check_axis_ranges(x, mn, mx, axis, what):
    if axis > -1:
        if x.ndim <= axis:
            raise errors.InvalidArgumentError(
                None, None, "Axis is on a zero-based index, so its value must always be less "
                f"than number of input's dims, but given axis value was {axis} and input's "
                f"dims was {x.ndim}")
        n = x.shape[axis]
        for name, t in (("min_range", mn), ("max_range", mx)):
            if t.ndim != 1 or t.shape[0] != n:
                raise errors.InvalidArgumentError(
                    None, None, f"{what}: if axis is specified, {name} must be a 1-D tensor "
                    f"whose size matches the axis dimension of the input ({n}), but {name} "
                    f"has shape {list(t.shape)}")
    else:
        for name, t in (("min_range", mn), ("max_range", mx)):
            if t.size != 1:
                raise errors.InvalidArgumentError(
                    None, None, f"{what}: if axis is not specified, {name} must contain a "
                    f"single float element, but it contains {t.size} elements")


def _quantize_v2_kernel(x, min_range, max_range, *, T, mode, round_mode, narrow_range, axis,
                        ensure_minimum_range):
    if round_mode == "HALF_TO_EVEN" and mode != "SCALED":
        raise errors.InvalidArgumentError(
            None, None, "Round mode 'HALF_TO_EVEN' only supported for mode 'SCALED', but mode "
                        f"is '{mode}'.")
    x = np.asarray(x, _F32)
    mn_in = np.asarray(min_range, _F32)
    mx_in = np.asarray(max_range, _F32)
    _check_axis_ranges(x, mn_in, mx_in, axis, "QuantizeV2")
    if axis > -1 and mode == "MIN_FIRST":
        raise errors.UnimplementedError(
            None, None, "MIN_FIRST mode is not implemented for Quantize with axis != -1.")
    if np.any(mx_in < mn_in):
        raise errors.InvalidArgumentError(
            None, None, "input_max_range must be larger than input_min_range.")
    struct, base, lo, hi = _qtypes(T)
    imin, imax = _slice_ranges(mn_in, mx_in, axis, x.ndim)
    # ranges nudged apart (and to include 0), as TF's kernel
    mn = np.minimum(_F32(0), imin)
    eps = (np.maximum(_F32(1), np.maximum(np.abs(imin), np.abs(imax)))
           * _F32(ensure_minimum_range)).astype(_F32)
    mx = np.maximum(_F32(0), np.maximum(imax, (mn + eps).astype(_F32)))
    with np.errstate(all="ignore"):
        if mode == "MIN_COMBINED":
            scale = ((float(hi) - float(lo)) / (mx - mn).astype(np.float64)).astype(_F32)
            v = ((np.minimum(np.maximum(x, mn), mx) - mn) * scale).astype(_F32)
            if lo < 0:
                v = _round_away((v - _F32((hi - lo + 1) / 2.0)).astype(_F32))
            else:
                v = np.trunc((v + _F32(0.5)).astype(_F32))
        elif mode == "MIN_FIRST":
            steps = float(1 << (8 * base.itemsize))
            scale = ((steps - 1.0) / (mx - mn).astype(np.float64)).astype(_F32)
            scale = np.where(mx == mn, _F32(0), scale)
            min_scaled = _round_away((mn * scale).astype(_F32))
            v = _round_away((x * scale).astype(_F32)) - (min_scaled - _F32(lo))
            v = np.clip(v.astype(_F32), max(_F32(lo), _F32(-2.147483648e9)),
                        min(_F32(hi), _F32(2.147483520e9)))
            q = v.astype(np.int32).astype(base).view(struct)
            return q, np.asarray(mn, _F32).reshape(mn_in.shape), \
                np.asarray(mx, _F32).reshape(mx_in.shape)
        else:  # SCALED
            qmin = _F32(lo + (1 if narrow_range else 0))
            qmax = _F32(hi)
            from_min = np.where(qmin * mn > 0, (qmin / mn).astype(_F32), _FLT_MAX)
            from_max = np.where(qmax * mx > 0, (qmax / mx).astype(_F32), _FLT_MAX)
            scale = np.minimum(from_min, from_max).astype(_F32)
            mn = (qmin / scale).astype(_F32)
            mx = (qmax / scale).astype(_F32)
            v = (np.minimum(np.maximum(x, mn), mx) * scale).astype(_F32)
            v = np.rint(v) if round_mode == "HALF_TO_EVEN" else _round_away(v)
        q = _to_quantized(v, struct, base)
    return q, np.asarray(mn, _F32).reshape(mn_in.shape), np.asarray(mx, _F32).reshape(mx_in.shape)


def _range_shape_fn(n_data):
    """Shape function of QuantizeV2/Dequantize: data shape unchanged; ranges scalars, or
    vectors as long as the ``axis`` dimension."""
    def shape(op):
        axis = op._attrs["axis"]
        if axis < -1:
            raise ValueError(f"{op.type}: axis should be at least -1, got {axis}")
        x = op._inputs[0]._shape
        rank = 0 if axis == -1 else 1
        rng = None
        for t in op._inputs[1:3]:
            s = t._shape
            if s.ndims is not None and s.ndims != rank:
                raise ValueError(f"Shape must be rank {rank} but is rank {s.ndims}")
            rng = s if rng is None else rng.merge_with(s)
        if axis != -1:
            if rng.ndims is None:
                rng = TensorShape([None])
            if x.ndims is not None:
                if x.ndims < axis + 1:
                    raise ValueError(f"Shape must be at least rank {axis + 1} but is rank "
                                     f"{x.ndims}")
                a, b = rng.dims[0], x.dims[axis]
                if not a.is_compatible_with(b):
                    raise ValueError(f"Dimensions must be equal, but are {a.value} and "
                                     f"{b.value}")
                rng = TensorShape([a.merge_with(b)])
        else:
            rng = TensorShape([])
        return [x] + [rng] * (n_data - 1)

    return shape


op_registry.declare(
    "QuantizeV2",
    inputs=["input: float", "min_range: float", "max_range: float"],
    outputs=["output: T", "output_min: float", "output_max: float"],
    attrs=["T: quantizedtype", "mode: {'MIN_COMBINED', 'MIN_FIRST', 'SCALED'} = 'MIN_COMBINED'",
           "round_mode: {'HALF_AWAY_FROM_ZERO', 'HALF_TO_EVEN'} = 'HALF_AWAY_FROM_ZERO'",
           "narrow_range: bool = false", "axis: int = -1",
           "ensure_minimum_range: float = 0.01"],
    shape=_range_shape_fn(3),
    kernel=_quantize_v2_kernel,
    # as TF: no gradient is registered for QuantizeV2 (tf.gradients raises LookupError)
)


def _dequantize_kernel(q, min_range, max_range, *, T, mode, narrow_range, axis, dtype):
    if dtype == dtypes.bfloat16 and mode != "MIN_COMBINED":
        raise errors.InvalidArgumentError(
            None, None, f"When output type is bfloat16, Mode string must be 'MIN_COMBINED', is "
                        f"'{mode}'")
    q = _plain(q)
    mn_in = np.asarray(min_range, _F32)
    mx_in = np.asarray(max_range, _F32)
    n = q.shape[axis] if axis > -1 else 1
    for name, t in (("input_min_tensor", mn_in), ("input_max_tensor", mx_in)):
        if t.size != n:
            raise errors.InvalidArgumentError(
                None, None, f"{name} must have as many elements as input on the "
                            f"dequantization axis ({axis}), got {t.size}, expected {n}")
    if axis > -1 and mode == "MIN_FIRST":
        raise errors.UnimplementedError(
            None, None, "MIN_FIRST mode is not implemented for Dequantize with axis != -1.")
    _, base, lo, hi = _qtypes(T)
    mn, mx = _slice_ranges(mn_in, mx_in, axis, q.ndim)
    qf = q.astype(_F32)
    with np.errstate(all="ignore"):
        if mode == "MIN_COMBINED":
            half = _F32(0.0 if lo == 0 else (float(_F32(hi)) - lo + 1) / 2.0)
            scale = ((mx - mn) / (_F32(hi) - _F32(lo))).astype(_F32)
            out = (((qf + half) * scale).astype(_F32) + mn).astype(_F32)
        elif mode == "MIN_FIRST":
            steps = float(1 << (8 * base.itemsize))
            scale = ((mx - mn).astype(np.float64) / (steps - 1.0)).astype(_F32)
            rounded = np.where(mx == mn, mn,
                               (_round_away((mn / scale).astype(_F32)) * scale).astype(_F32))
            out = ((rounded - _F32(lo) * scale).astype(_F32)
                   + (qf * scale).astype(_F32)).astype(_F32)
        else:  # SCALED
            qmin = _F32(lo + (1 if narrow_range else 0))
            if lo == 0:
                scale = (mx / _F32(hi)).astype(_F32)
            else:
                scale = np.maximum((mn / qmin).astype(_F32), (mx / _F32(hi)).astype(_F32))
            out = (qf * scale).astype(_F32)
    return out.astype(dtype.as_numpy_dtype)


op_registry.declare(
    "Dequantize",
    inputs=["input: T", "min_range: float", "max_range: float"],
    outputs=["output: dtype"],
    attrs=["T: quantizedtype", "mode: {'MIN_COMBINED', 'MIN_FIRST', 'SCALED'} = 'MIN_COMBINED'",
           "narrow_range: bool = false", "axis: int = -1",
           "dtype: {bfloat16, float} = DT_FLOAT"],
    shape=lambda op: _range_shape_fn(1)(op),
    kernel=_dequantize_kernel,
    # as TF: no gradient is registered for Dequantize
)


def _requantize_min_first(q, in_min, in_max, out_min, out_max, struct, base, lo, hi):
    """TF's RequantizeCopier: dequantize (MIN_FIRST formula) and quantize into a new range."""
    if in_min == out_min and in_max == out_max:
        return q
    steps = float(1 << (8 * base.itemsize))
    in_min, in_max, out_min, out_max = map(_F32, (in_min, in_max, out_min, out_max))
    with np.errstate(all="ignore"):
        dscale = _F32(float(in_max - in_min) / (steps - 1.0))
        rounded = in_min if in_max == in_min else _F32(_round_away(in_min / dscale) * dscale)
        f = (_F32(rounded - _F32(lo) * dscale) + q.astype(_F32) * dscale).astype(_F32)
        qscale = _F32(0.0) if out_max == out_min else _F32((steps - 1.0) / float(out_max - out_min))
        min_scaled = _round_away(_F32(out_min * qscale))
        v = _round_away((f * qscale).astype(_F32)) - _F32(min_scaled - _F32(lo))
        v = np.clip(v.astype(_F32), max(_F32(lo), _F32(-2.147483648e9)),
                    min(_F32(hi), _F32(2.147483520e9)))
    return v.astype(np.int32).astype(base)


def _quantized_concat_kernel(concat_dim, values, input_mins, input_maxes, *, T):
    cd = np.asarray(concat_dim)
    if cd.ndim != 0:
        raise errors.InvalidArgumentError(
            None, None, f"Concat dim tensor should be a scalar integer, but got shape "
                        f"{list(cd.shape)}")
    cd = int(cd)
    struct, base, lo, hi = _qtypes(T)
    vals = [_plain(v) for v in values]
    first = vals[0].shape
    if not 0 <= cd < len(first):
        raise errors.InvalidArgumentError(
            None, None, f"ConcatOp : Expected concatenating dimensions in the range [0, "
                        f"{len(first)}), but got {cd}")
    for i, v in enumerate(vals):
        if v.ndim != len(first) or any(a != b for j, (a, b) in enumerate(zip(v.shape, first))
                                       if j != cd):
            raise errors.InvalidArgumentError(
                None, None, f"ConcatOp : Dimensions of inputs should match: shape[0] = "
                            f"{list(first)} vs. shape[{i}] = {list(v.shape)}")
    mins = [_F32(np.asarray(m).reshape(-1)[0]) for m in input_mins]
    maxs = [_F32(np.asarray(m).reshape(-1)[0]) for m in input_maxes]
    out_min, out_max = min(mins), max(maxs)
    if lo < 0:  # signed: a range symmetric about zero
        largest = max(abs(out_min), abs(out_max))
        out_min, out_max = -largest, largest
    parts = [_requantize_min_first(v, a, b, out_min, out_max, struct, base, lo, hi)
             for v, a, b in zip(vals, mins, maxs)]
    out = np.concatenate(parts, axis=cd).astype(base).view(struct)
    return out, _F32(out_min), _F32(out_max)


def _quantized_concat_shape(op):
    n = op._attrs["N"]
    values = op._inputs[1:1 + n]
    for t in op._inputs[1 + n:]:
        if t._shape.ndims not in (None, 0):
            raise ValueError(f"QuantizedConcat: input_mins and input_maxes must be scalars, "
                             f"got {t._shape}")

    class _AsConcatV2:  # ConcatV2's shape function reads (values..., axis)
        _inputs = list(values) + [op._inputs[0]]

    return _concat_shape(_AsConcatV2) + [TensorShape([]), TensorShape([])]


op_registry.declare(
    "QuantizedConcat",
    inputs=["concat_dim: int32", "values: N * T", "input_mins: N * float",
            "input_maxes: N * float"],
    outputs=["output: T", "output_min: float", "output_max: float"],
    attrs=["N: int >= 2", "T: type"],
    shape=_quantized_concat_shape,
    kernel=_quantized_concat_kernel,
    # as TF: no gradient is registered for QuantizedConcat
)


_QuantizeV2 = collections.namedtuple("QuantizeV2", ["output", "output_min", "output_max"])
_QuantizedConcat = collections.namedtuple("QuantizedConcat",
                                          ["output", "output_min", "output_max"])


def _axis_attr(input, axis):
    if axis is None:
        return -1
    axis = int(axis)
    if axis < 0:
        ndims = input.get_shape().ndims
        if ndims is None:
            raise ValueError("input should have known rank to use negative axis.")
        axis %= ndims
    return axis


def quantize(input, min_range, max_range, T, mode="MIN_COMBINED",
             round_mode="HALF_AWAY_FROM_ZERO", name=None, narrow_range=False, axis=None,
             ensure_minimum_range=0.01):
    """Quantizes float ``input`` to type ``T`` over [min_range, max_range] (per slice along
    ``axis`` when given); returns ``(output, output_min, output_max)``, the ranges as used."""
    x = ops.convert_to_tensor(input, dtype=dtypes.float32, name="input")
    op = ops.apply_op("QuantizeV2", [x, min_range, max_range],
                      {"T": dtypes.as_dtype(T), "mode": mode, "round_mode": round_mode,
                       "narrow_range": bool(narrow_range), "axis": _axis_attr(x, axis),
                       "ensure_minimum_range": float(ensure_minimum_range)}, name=name)
    return _QuantizeV2(*op._outputs)


def quantize_v2(input, min_range, max_range, T, mode="MIN_COMBINED", name=None,
                round_mode="HALF_AWAY_FROM_ZERO", narrow_range=False, axis=None,
                ensure_minimum_range=0.01):
    """The deprecated name of :func:`quantize` (``name`` comes before ``round_mode``)."""
    return quantize(input, min_range, max_range, T, mode=mode, round_mode=round_mode,
                    name=name, narrow_range=narrow_range, axis=axis,
                    ensure_minimum_range=ensure_minimum_range)


def dequantize(input, min_range, max_range, mode="MIN_COMBINED", name=None, axis=None,
               narrow_range=False, dtype=dtypes.float32):
    """Converts quantized ``input`` back to ``dtype`` (float32 or bfloat16) over
    [min_range, max_range] (per slice along ``axis`` when given)."""
    x = ops.convert_to_tensor(input, name="input")
    return ops.apply_op("Dequantize", [x, min_range, max_range],
                        {"mode": mode, "narrow_range": bool(narrow_range),
                         "axis": _axis_attr(x, axis), "dtype": dtypes.as_dtype(dtype)},
                        name=name)._outputs[0]


def quantized_concat(concat_dim, values, input_mins, input_maxes, name=None):
    """Concatenates quantized tensors along ``concat_dim``, requantizing each into the union
    of the ranges; returns ``(output, output_min, output_max)``."""
    op = ops.apply_op("QuantizedConcat", [concat_dim, list(values), list(input_mins),
                                          list(input_maxes)], {}, name=name)
    return _QuantizedConcat(*op._outputs)
