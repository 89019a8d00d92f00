"""Ops on TF's quantized types (qint8, quint8, qint16, quint16, qint32): QuantizeV2 and
Dequantize (float to quantized and back; modes MIN_COMBINED, MIN_FIRST, SCALED), QuantizedConcat,
QuantizedAvgPool/MaxPool and QuantizedReluX, each following TF's reference CPU kernel step by
step in float32. Quantized values travel as TF's structured NumPy dtypes and are fetched as
plain integers. No gradient is registered for any of them, as in TF."""

import collections

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops.concat_ops import _concat_shape

_F32 = np.float32


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
    newer_attrs=["narrow_range", "axis", "ensure_minimum_range"],  # TF 2.x's
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
    newer_attrs=["narrow_range", "axis", "dtype"],  # TF 2.x's
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


# ------------------------------------------------------------------------------------------
# QuantizedAvgPool, QuantizedMaxPool, QuantizedReluX (tf.nn.quantized_*): on the quantized
# values themselves, the range passed through unchanged, as TF's reference kernels
# ------------------------------------------------------------------------------------------


def _pool_windows(x, ksize, strides, padding, what):
    if len(ksize) != 4 or len(strides) != 4:
        raise errors.InvalidArgumentError(
            None, None, f"{what}: sliding window ksize and strides must specify 4 dimensions")
    if ksize[0] != 1 or strides[0] != 1:
        raise errors.UnimplementedError(
            None, None, "Pooling is not yet supported on the batch dimension.")
    if ksize[3] != 1 or strides[3] != 1:
        raise errors.UnimplementedError(None, None, "Non-spatial pooling is not yet supported.")
    if x.ndim != 4:
        raise errors.InvalidArgumentError(None, None, f"{what}: input must be 4-dimensional")
    out, before = [], []
    for n, k, s in zip(x.shape[1:3], ksize[1:3], strides[1:3]):
        if padding == "VALID":
            out.append(max((n - k) // s + 1, 0))
            before.append(0)
        else:
            o = -(-n // s)
            out.append(o)
            before.append(max((o - 1) * s + k - n, 0) // 2)
    for i in range(out[0]):
        r0 = i * strides[1] - before[0]
        rows = slice(max(r0, 0), min(r0 + ksize[1], x.shape[1]))
        for j in range(out[1]):
            c0 = j * strides[2] - before[1]
            yield i, j, rows, slice(max(c0, 0), min(c0 + ksize[2], x.shape[2]))


def _quantized_pool(kind):
    def kernel(input, min_input, max_input, *, ksize, strides, padding, T):
        x = _plain(input)
        what = f"Quantized{kind}Pool"
        windows = list(_pool_windows(x, list(ksize), list(strides), padding, what))
        oh = max((w[0] for w in windows), default=-1) + 1
        ow = max((w[1] for w in windows), default=-1) + 1
        struct, base, lo, hi = _qtypes(T)
        out = np.zeros((x.shape[0], oh, ow, x.shape[3]), base)
        for i, j, rows, cols in windows:
            win = x[:, rows, cols, :].astype(np.int64)
            if kind == "Max":
                out[:, i, j, :] = win.max(axis=(1, 2))
            else:  # the mean over the window's valid cells, truncated (TF 1.15's integer
                # division; TF 2's kernel rounds half to even)
                n = win.shape[1] * win.shape[2]
                out[:, i, j, :] = np.clip(np.trunc(win.sum(axis=(1, 2)) / n), lo, hi)
        return (out.view(struct), _F32(np.asarray(min_input).reshape(-1)[0]),
                _F32(np.asarray(max_input).reshape(-1)[0]))

    kernel.__name__ = f"_quantized_{kind.lower()}_pool_kernel"
    return kernel


def _quantized_pool_shape(op):
    x = op._inputs[0]._shape
    for t in op._inputs[1:]:
        if t._shape.ndims not in (None, 0):
            raise ValueError(f"{op.type}: min_input and max_input must be scalars, got "
                             f"{t._shape}")
    k, s = op._attrs["ksize"], op._attrs["strides"]
    if x.ndims is None:
        return [TensorShape([None] * 4), TensorShape([]), TensorShape([])]
    if x.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.ndims}")
    dims = x.as_list()
    spatial = []
    for n, kk, ss in zip(dims[1:3], k[1:3], s[1:3]):
        if n is None:
            spatial.append(None)
        elif op._attrs["padding"] == "VALID":
            spatial.append(max((n - kk) // ss + 1, 0))
        else:
            spatial.append(-(-n // ss))
    return [TensorShape([dims[0]] + spatial + [dims[3]]), TensorShape([]), TensorShape([])]


for _kind in ("Avg", "Max"):
    op_registry.declare(
        f"Quantized{_kind}Pool",
        inputs=["input: T", "min_input: float", "max_input: float"],
        outputs=["output: T", "min_output: float", "max_output: float"],
        attrs=["T: quantizedtype", "ksize: list(int)", "strides: list(int)",
               "padding: {'SAME', 'VALID'}"],
        shape=_quantized_pool_shape,
        kernel=_quantized_pool(_kind),
        # as TF: no gradient is registered
    )


def _float_to_quantized(v, mn, mx, lo, hi, bits):
    """TF's FloatToQuantized: the level of float ``v`` in [mn, mx], in double precision."""
    if mn == mx:
        return lo
    steps = float(1 << bits)
    scale = steps / ((float(mx) - float(mn)) * (steps / (steps - 1.0)))
    q = _round_away(np.float64(float(v) * scale)) - _round_away(np.float64(float(mn) * scale))
    return int(min(max(int(q) + lo, lo), hi))


def _quantized_relu_x_kernel(features, max_value, min_features, max_features, *, Tinput,
                             out_type):
    if Tinput != out_type:
        raise errors.NotFoundError(
            None, None, f"No registered 'QuantizedReluX' kernel for Tinput={Tinput.name}, "
                        f"out_type={out_type.name} (they must be equal: quint8 or qint32)")
    x = _plain(features)
    struct, base, lo, hi = _qtypes(Tinput)
    mn = _F32(np.asarray(min_features).reshape(-1)[0])
    mx = _F32(np.asarray(max_features).reshape(-1)[0])
    bits = 8 * base.itemsize
    q0 = _float_to_quantized(0.0, mn, mx, lo, hi, bits)
    qmax = _float_to_quantized(_F32(np.asarray(max_value).reshape(-1)[0]), mn, mx, lo, hi, bits)
    out = np.minimum(np.maximum(x.astype(np.int64), q0), qmax).astype(base)
    return out.view(struct), mn, mx


op_registry.declare(
    "QuantizedReluX",
    inputs=["features: Tinput", "max_value: float", "min_features: float",
            "max_features: float"],
    outputs=["activations: out_type", "min_activations: float", "max_activations: float"],
    attrs=["Tinput: quantizedtype", "out_type: quantizedtype = DT_QUINT8"],
    shape=lambda op: [op._inputs[0]._shape, TensorShape([]), TensorShape([])],
    kernel=_quantized_relu_x_kernel,
    # as TF: no gradient is registered
)

_QuantizedPool = {k: collections.namedtuple(f"Quantized{k}Pool",
                                            ["output", "min_output", "max_output"])
                  for k in ("Avg", "Max")}
_QuantizedReluX = collections.namedtuple("QuantizedReluX",
                                         ["activations", "min_activations", "max_activations"])


def quantized_avg_pool(input, min_input, max_input, ksize, strides, padding, name=None):
    """Average pooling of quantized NHWC ``input`` (the mean level, truncated as TF 1.15; the
    range passes through); returns ``(output, min_output, max_output)``."""
    op = ops.apply_op("QuantizedAvgPool", [input, min_input, max_input],
                      {"ksize": [int(k) for k in ksize], "strides": [int(s) for s in strides],
                       "padding": padding}, name=name)
    return _QuantizedPool["Avg"](*op._outputs)


def quantized_max_pool(input, min_input, max_input, ksize, strides, padding, name=None):
    """Max pooling of quantized NHWC ``input``; returns ``(output, min_output, max_output)``."""
    op = ops.apply_op("QuantizedMaxPool", [input, min_input, max_input],
                      {"ksize": [int(k) for k in ksize], "strides": [int(s) for s in strides],
                       "padding": padding}, name=name)
    return _QuantizedPool["Max"](*op._outputs)


def quantized_relu_x(features, max_value, min_features, max_features, out_type=dtypes.quint8,
                     name=None):
    """min(max(features, 0), max_value) on quantized ``features`` (the levels of 0 and
    ``max_value`` in [min_features, max_features]); the range passes through."""
    op = ops.apply_op("QuantizedReluX", [features, max_value, min_features, max_features],
                      {"out_type": dtypes.as_dtype(out_type)}, name=name)
    return _QuantizedReluX(*op._outputs)


# ------------------------------------------------------------------------------------------
# QuantizedConv2D (tf.nn.quantized_conv2d): an exact integer convolution of the levels minus
# the level of 0.0 (padding contributes nothing), into a qint32 range of the product's step
# ------------------------------------------------------------------------------------------


def _level_of_zero(mn, mx, lo, bits):
    """TF's FloatToQuantizedUnclamped(0.0, mn, mx)."""
    if mn == mx:
        return lo
    steps = float(1 << bits)
    scale = steps / ((float(mx) - float(mn)) * (steps / (steps - 1.0)))
    return int(-_round_away(np.float64(float(mn) * scale))) + lo


def _conv_geometry(n, k, s, padding):
    if padding == "VALID":
        return max((n - k) // s + 1, 0), 0
    o = -(-n // s)
    return o, max((o - 1) * s + k - n, 0) // 2


def _quantized_conv2d_kernel(input, filter, min_input, max_input, min_filter, max_filter, *,
                             Tinput, Tfilter, out_type, strides, padding, dilations):
    strides, dilations = list(strides), list(dilations)
    if len(strides) != 4:
        raise errors.InvalidArgumentError(
            None, None, "Sliding window strides field must specify 4 dimensions")
    if strides[0] != 1 or strides[3] != 1:
        raise errors.InvalidArgumentError(
            None, None, "Current implementation does not yet support strides in the batch and "
                        "depth dimensions.")
    if strides[1] != strides[2]:
        raise errors.InvalidArgumentError(
            None, None, "Current implementation only supports equal length strides in the row "
                        "and column dimensions.")
    if any(d != 1 for d in dilations):
        raise errors.UnimplementedError(None, None, "QuantizedConv2D: dilations other than 1 "
                                                    f"are not supported, got {dilations}")
    x, f = _plain(input).astype(np.int64), _plain(filter).astype(np.int64)
    if x.ndim != 4 or f.ndim != 4:
        raise errors.InvalidArgumentError(
            None, None, f"QuantizedConv2D: input and filter must be 4-dimensional, got shapes "
                        f"{list(x.shape)} and {list(f.shape)}")
    if x.shape[3] != f.shape[2]:
        raise errors.InvalidArgumentError(
            None, None, f"QuantizedConv2D: input depth {x.shape[3]} does not match the "
                        f"filter's in_depth {f.shape[2]}")
    _, bin_, lo_in, hi_in = _qtypes(Tinput)
    _, bf, lo_f, hi_f = _qtypes(Tfilter)
    ostruct, obase, lo_o, hi_o = _qtypes(out_type)
    mins = [_F32(np.asarray(v).reshape(-1)[0]) for v in (min_input, max_input, min_filter,
                                                         max_filter)]
    x = x - _level_of_zero(mins[0], mins[1], lo_in, 8 * bin_.itemsize)
    f = f - _level_of_zero(mins[2], mins[3], lo_f, 8 * bf.itemsize)
    b, h, w, _ = x.shape
    kh, kw, _, oc = f.shape
    s = strides[1]
    oh, top = _conv_geometry(h, kh, s, padding)
    ow, left = _conv_geometry(w, kw, s, padding)
    padded = np.zeros((b, max(h, (oh - 1) * s + kh) + top, max(w, (ow - 1) * s + kw) + left,
                       x.shape[3]), np.int64)
    padded[:, top:top + h, left:left + w] = x
    out = np.zeros((b, oh, ow, oc), np.int64)
    for i in range(kh):
        for j in range(kw):
            win = padded[:, i:i + (oh - 1) * s + 1:s, j:j + (ow - 1) * s + 1:s, :]
            out += win @ f[i, j]
    out = np.clip(out, lo_o, hi_o).astype(obase).view(ostruct)
    # QuantizationRangeForMultiplication: one output step is the product of the inputs' steps
    step = (_F32((mins[1] - mins[0]) / _F32(hi_in - lo_in))
            * _F32((mins[3] - mins[2]) / _F32(hi_f - lo_f)))
    return out, _F32(step * _F32(lo_o)), _F32(step * _F32(hi_o))


def _quantized_conv2d_shape(op):
    x, f = op._inputs[0]._shape, op._inputs[1]._shape
    for t in op._inputs[2:]:
        if t._shape.ndims not in (None, 0):
            raise ValueError(f"QuantizedConv2D: the ranges must be scalars, got {t._shape}")
    s = op._attrs["strides"]
    scalars = [TensorShape([]), TensorShape([])]
    if x.ndims is None or f.ndims is None:
        oc = f.dims[3] if f.ndims == 4 else None
        return [TensorShape([None, None, None, oc])] + scalars
    if x.ndims != 4 or f.ndims != 4:
        raise ValueError(f"Shape must be rank 4, got {x} and {f}")
    xd, fd = x.as_list(), f.as_list()
    spatial = [None if n is None or k is None else
               _conv_geometry(n, k, ss, op._attrs["padding"])[0]
               for n, k, ss in zip(xd[1:3], fd[0:2], s[1:3])]
    return [TensorShape([xd[0]] + spatial + [fd[3]])] + scalars


op_registry.declare(
    "QuantizedConv2D",
    inputs=["input: Tinput", "filter: Tfilter", "min_input: float", "max_input: float",
            "min_filter: float", "max_filter: float"],
    outputs=["output: out_type", "min_output: float", "max_output: float"],
    attrs=["Tinput: quantizedtype", "Tfilter: quantizedtype",
           "out_type: quantizedtype = DT_QINT32", "strides: list(int)",
           "padding: {'SAME', 'VALID'}", "dilations: list(int) = [1, 1, 1, 1]"],
    shape=_quantized_conv2d_shape,
    kernel=_quantized_conv2d_kernel,
    # as TF: no gradient is registered
)

_QuantizedConv2D = collections.namedtuple("QuantizedConv2D",
                                          ["output", "min_output", "max_output"])


def quantized_conv2d(input, filter, min_input, max_input, min_filter, max_filter, strides,
                     padding, out_type=dtypes.qint32, dilations=(1, 1, 1, 1), name=None):
    """2-D convolution of quantized NHWC ``input`` with quantized HWIO ``filter``, exact in
    integers; returns ``(output, min_output, max_output)`` (qint32 by default)."""
    op = ops.apply_op("QuantizedConv2D",
                      [input, filter, min_input, max_input, min_filter, max_filter],
                      {"out_type": dtypes.as_dtype(out_type),
                       "strides": [int(v) for v in strides], "padding": padding,
                       "dilations": [int(v) for v in dilations]}, name=name)
    return _QuantizedConv2D(*op._outputs)
