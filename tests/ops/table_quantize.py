"""Op-table rows for QuantizeV2, Dequantize and QuantizedConcat (tf.quantization.quantize,
dequantize, quantized_concat).

The references follow TF's documented formulas one element at a time in Python floats, with
each float32 step of TF's kernels rounded to float32 (``_f``); rounding half away from zero is
``floor(|v| + 0.5)`` in float64, exact for float32 values. No gradient is registered for these
ops in TF, so the rows check no gradient (tests/test_leftovers6.py checks the LookupError)."""

import math

import numpy as np

import tideflow as tf
from tests.ops.optable import Case

F32 = (tf.float32,)
_x = np.array([[-7.0, -6.2, -1.3, -0.51], [-0.0234, 0.0, 0.0234, 0.8],
               [2.49, 5.99, 6.0, 9.0]], np.float32)
_LIMITS = {tf.quint8: (0, 255), tf.qint8: (-128, 127), tf.quint16: (0, 65535),
           tf.qint16: (-32768, 32767), tf.qint32: (-(1 << 31), (1 << 31) - 1)}
_BASE = {tf.quint8: np.uint8, tf.qint8: np.int8, tf.quint16: np.uint16, tf.qint16: np.int16,
         tf.qint32: np.int32}


def _f(v):
    return float(np.float32(v))


def _away(v):
    return math.copysign(math.floor(abs(v) + 0.5), v)


def _nudged(a, b, eps=0.01):
    mn = min(0.0, a)
    e = _f(max(1.0, abs(a), abs(b)) * _f(eps))
    return mn, max(0.0, b, _f(mn + e))


def _quantize_one(v, a, b, T, mode, round_mode, narrow):
    lo, hi = _LIMITS[T]
    mn, mx = _nudged(a, b)
    if mode == "MIN_COMBINED":
        scale = _f((hi - lo) / _f(mx - mn))
        t = _f(_f(min(max(v, mn), mx) - mn) * scale)
        q = _away(_f(t - (hi - lo + 1) / 2)) if lo < 0 else math.trunc(_f(t + 0.5))
    elif mode == "MIN_FIRST":
        bits = 8 * np.dtype(_BASE[T]).itemsize
        scale = _f(((1 << bits) - 1.0) / _f(mx - mn))
        q = _away(_f(v * scale)) - (_away(_f(mn * scale)) - lo)
        q = min(max(q, lo), hi)
    else:
        qmin = lo + (1 if narrow else 0)
        s_min = _f(qmin / mn) if qmin * mn > 0 else math.inf
        s_max = _f(hi / mx) if hi * mx > 0 else math.inf
        scale = min(s_min, s_max)
        mn, mx = _f(qmin / scale), _f(hi / scale)
        t = _f(min(max(v, mn), mx) * scale)
        q = round(t) if round_mode == "HALF_TO_EVEN" else _away(t)
    return int(q), mn, mx


def _quantize_ref(T, mode="MIN_COMBINED", round_mode="HALF_AWAY_FROM_ZERO", narrow=False,
                  axis=-1):
    def ref(x, a, b):
        a, b = np.atleast_1d(a), np.atleast_1d(b)
        out = np.zeros(x.shape, _BASE[T])
        mns, mxs = np.zeros(a.shape, np.float32), np.zeros(b.shape, np.float32)
        for idx in np.ndindex(*x.shape):
            k = idx[axis] if axis != -1 else 0
            out[idx], mns[k], mxs[k] = _quantize_one(float(x[idx]), float(a[k]), float(b[k]), T,
                                                     mode, round_mode, narrow)
        shape = () if axis == -1 else a.shape
        return [out, mns.reshape(shape), mxs.reshape(shape)]

    return ref


def _range(lo, hi, x, axis):
    """The min/max inputs: scalars, or with ``axis`` one distinct range per slice of ``x``."""
    if axis is None:
        return np.float32(lo), np.float32(hi)
    n = x.shape[axis]
    return (np.linspace(lo, lo / 4, n).astype(np.float32),
            np.linspace(hi / 3, hi, n).astype(np.float32))


def _quantize_case(T, mode="MIN_COMBINED", round_mode="HALF_AWAY_FROM_ZERO", narrow=False,
                   axis=None, lo=-6.0, hi=6.0, name=None):
    a, b = _range(lo, hi, _x, axis)
    return Case(
        "QuantizeV2",
        lambda x, mn, mx: list(tf.quantization.quantize(
            x, mn, mx, T, mode=mode, round_mode=round_mode, narrow_range=narrow, axis=axis)),
        [_x, a, b], _quantize_ref(T, mode, round_mode, narrow, -1 if axis is None else axis),
        dtypes=F32, grad=False, fixed=(1, 2),
        name=name or f"QuantizeV2_{mode}_{T.name}")


def _dequantize_one(q, a, b, T, mode, narrow):
    lo, hi = _LIMITS[T]
    if mode == "MIN_COMBINED":
        scale = _f(_f(b - a) / _f(_f(hi) - _f(lo)))
        half = 0.0 if lo == 0 else (_f(hi) - lo + 1) / 2
        return _f(_f(_f(q + half) * scale) + a)
    if mode == "MIN_FIRST":
        bits = 8 * np.dtype(_BASE[T]).itemsize
        scale = _f(_f(b - a) / ((1 << bits) - 1.0))
        rounded = a if a == b else _f(_away(_f(a / scale)) * scale)
        return _f(_f(rounded - _f(lo * scale)) + _f(q * scale))
    qmin = lo + (1 if narrow else 0)
    scale = _f(b / _f(hi)) if lo == 0 else max(_f(a / qmin), _f(b / _f(hi)))
    return _f(q * scale)


def _dequantize_ref(T, mode="MIN_COMBINED", narrow=False, axis=-1):
    def ref(q, a, b):
        q = q.view(_BASE[T])
        a, b = np.atleast_1d(a), np.atleast_1d(b)
        out = np.zeros(q.shape, np.float32)
        for idx in np.ndindex(*q.shape):
            k = idx[axis] if axis != -1 else 0
            out[idx] = _dequantize_one(int(q[idx]), float(a[k]), float(b[k]), T, mode, narrow)
        return out

    return ref


def _quantized(T, values):
    return np.asarray(values, _BASE[T]).view(T._np)


_Q8 = _quantized(tf.qint8, [[-128, -100, -1, 0], [1, 37, 126, 127], [5, -5, 64, -64]])
_QU8 = _quantized(tf.quint8, [[0, 1, 100, 127], [128, 129, 200, 255], [7, 77, 177, 250]])
_Q16 = _quantized(tf.qint16, [[-32768, -32767, -1000, 0], [1, 377, 12600, 32767],
                              [5, -5, 640, -64]])


def _dequantize_case(T, q, mode="MIN_COMBINED", narrow=False, axis=None, lo=-1.5, hi=4.0,
                     name=None):
    a, b = _range(lo, hi, q, axis)
    return Case(
        "Dequantize",
        lambda x, mn, mx: tf.quantization.dequantize(x, mn, mx, mode=mode, narrow_range=narrow,
                                                     axis=axis),
        [q, a, b], _dequantize_ref(T, mode, narrow, -1 if axis is None else axis),
        dtypes=F32, grad=False, fixed=(1, 2), name=name or f"Dequantize_{mode}_{T.name}")


def _concat_ref(T):
    lo, hi = _LIMITS[T]
    bits = 8 * np.dtype(_BASE[T]).itemsize
    steps = (1 << bits) - 1.0

    def ref(dim, q1, q2, a1, a2, b1, b2):
        out_min, out_max = min(float(a1), float(a2)), max(float(b1), float(b2))
        if lo < 0:
            m = max(abs(out_min), abs(out_max))
            out_min, out_max = -m, m
        parts = []
        for q, a, b in ((q1, float(a1), float(b1)), (q2, float(a2), float(b2))):
            q = q.view(_BASE[T])
            if (a, b) == (out_min, out_max):
                parts.append(q)
                continue
            p = np.zeros(q.shape, _BASE[T])
            qscale = _f(steps / _f(out_max - out_min))
            for idx in np.ndindex(*q.shape):
                f = _dequantize_one(int(q[idx]), a, b, T, "MIN_FIRST", False)
                v = _away(_f(f * qscale)) - (_away(_f(out_min * qscale)) - lo)
                p[idx] = min(max(v, max(lo, -2147483648)), min(hi, 2147483520))
            parts.append(p)
        return [np.concatenate(parts, axis=int(dim)), np.float32(out_min), np.float32(out_max)]

    return ref


def _concat_case(T, q1, q2, ranges):
    (a1, b1), (a2, b2) = ranges
    return Case(
        "QuantizedConcat",
        lambda d, x1, x2, mn1, mn2, mx1, mx2: list(tf.quantization.quantized_concat(
            d, [x1, x2], [mn1, mn2], [mx1, mx2])),
        [np.int32(1), q1, q2] + [np.float32(v) for v in (a1, a2, b1, b2)], _concat_ref(T),
        dtypes=F32, grad=False, fixed=(0, 1, 2, 3, 4, 5, 6),
        name=f"QuantizedConcat_{T.name}")


CASES = [
    _quantize_case(tf.quint8),
    _quantize_case(tf.qint8),
    _quantize_case(tf.qint16, lo=-2.5, hi=3.7),
    _quantize_case(tf.quint8, mode="MIN_FIRST", lo=-1.0, hi=2.5),
    _quantize_case(tf.qint16, mode="MIN_FIRST"),
    _quantize_case(tf.qint8, mode="SCALED"),
    _quantize_case(tf.qint8, mode="SCALED", round_mode="HALF_TO_EVEN", narrow=True,
                   name="QuantizeV2_SCALED_qint8_even_narrow"),
    _quantize_case(tf.quint16, mode="SCALED", narrow=True, lo=-1.0, hi=0.5),
    _quantize_case(tf.qint8, mode="SCALED", axis=1, name="QuantizeV2_SCALED_axis1"),
    _quantize_case(tf.quint8, axis=0, name="QuantizeV2_MIN_COMBINED_axis0"),
    _dequantize_case(tf.qint8, _Q8),
    _dequantize_case(tf.quint8, _QU8),
    _dequantize_case(tf.quint8, _QU8, mode="MIN_FIRST"),
    _dequantize_case(tf.qint16, _Q16, mode="MIN_FIRST", lo=-0.7, hi=0.3),
    _dequantize_case(tf.qint8, _Q8, mode="SCALED", narrow=True),
    _dequantize_case(tf.quint8, _QU8, mode="SCALED"),
    _dequantize_case(tf.qint16, _Q16, mode="SCALED", axis=1, name="Dequantize_SCALED_axis1"),
    _dequantize_case(tf.qint8, _Q8, axis=0, name="Dequantize_MIN_COMBINED_axis0"),
    _concat_case(tf.quint8, _QU8, _QU8[:, :2], ((-1.0, 3.0), (-2.0, 1.5))),
    _concat_case(tf.qint32, _quantized(tf.qint32, [[-(1 << 31), -5], [12345678, 1 << 30]]),
                 _quantized(tf.qint32, [[7], [-7]]), ((-1.0, 1.0), (-0.25, 0.5))),
]


# -- QuantizedAvgPool / QuantizedMaxPool / QuantizedReluX ------------------------------------

_POOL_IN = _quantized(tf.quint8, (np.arange(2 * 5 * 4 * 2) * 37 % 256).reshape(2, 5, 4, 2))


def _pool_ref(kind, ksize, strides, padding):
    def ref(q, mn, mx):
        x = q.view(np.uint8).astype(np.int64)
        outs, before = [], []
        for n, k, s in zip(x.shape[1:3], ksize[1:3], strides[1:3]):
            o = (n - k) // s + 1 if padding == "VALID" else -(-n // s)
            outs.append(o)
            before.append(0 if padding == "VALID" else max((o - 1) * s + k - n, 0) // 2)
        out = np.zeros((x.shape[0], outs[0], outs[1], x.shape[3]), np.uint8)
        for i, j in np.ndindex(*outs):
            r0, c0 = i * strides[1] - before[0], j * strides[2] - before[1]
            win = x[:, max(r0, 0):r0 + ksize[1], max(c0, 0):c0 + ksize[2], :]
            if kind == "max":
                out[:, i, j] = win.max(axis=(1, 2))
            else:  # truncated, as TF 1.15 (TF 2.21 rounds half to even)
                out[:, i, j] = win.sum(axis=(1, 2)) // (win.shape[1] * win.shape[2])
        return [out, np.float32(mn), np.float32(mx)]

    return ref


def _pool_case(kind, ksize, strides, padding):
    fn = tf.nn.quantized_max_pool if kind == "max" else tf.nn.quantized_avg_pool
    return Case(f"Quantized{kind.capitalize()}Pool",
                lambda q, a, b: list(fn(q, a, b, ksize, strides, padding)),
                [_POOL_IN, np.float32(-1.0), np.float32(3.0)],
                _pool_ref(kind, ksize, strides, padding), dtypes=F32, grad=False, fixed=(1, 2),
                name=f"Quantized{kind.capitalize()}Pool_{padding}_{ksize[1]}{ksize[2]}")


def _relu_x_ref(q, max_value, a, b):
    T = tf.quint8 if q.dtype.names[0] == "quint8" else tf.qint32
    lo, hi = _LIMITS[T]
    steps = float(1 << (8 * np.dtype(_BASE[T]).itemsize))
    scale = steps / ((float(b) - float(a)) * (steps / (steps - 1.0)))

    def level(v):
        return min(max(int(_away(v * scale) - _away(float(a) * scale)) + lo, lo), hi)

    x = q.view(_BASE[T]).astype(np.int64)
    out = np.clip(x, level(0.0), level(float(max_value))).astype(_BASE[T])
    return [out, np.float32(a), np.float32(b)]


CASES += [
    _pool_case("avg", [1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
    _pool_case("avg", [1, 3, 2, 1], [1, 1, 2, 1], "VALID"),
    _pool_case("max", [1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
    _pool_case("max", [1, 2, 3, 1], [1, 2, 1, 1], "VALID"),
    Case("QuantizedReluX", lambda q, m, a, b: list(tf.nn.quantized_relu_x(q, m, a, b)),
         [_QU8, np.float32(1.5), np.float32(-1.0), np.float32(3.0)], _relu_x_ref, dtypes=F32,
         grad=False, fixed=(1, 2, 3)),
    Case("QuantizedReluX",
         lambda q, m, a, b: list(tf.nn.quantized_relu_x(q, m, a, b, out_type=tf.qint32)),
         [_quantized(tf.qint32, [[-(1 << 31), -5, 0], [1 << 29, 1 << 30, (1 << 31) - 1]]),
          np.float32(2.0), np.float32(-1.0), np.float32(3.0)], _relu_x_ref, dtypes=F32,
         grad=False, fixed=(1, 2, 3), name="QuantizedReluX_qint32"),
]


# -- QuantizedConv2D -----------------------------------------------------------------------

_CONV_X = _quantized(tf.quint8, np.random.RandomState(1).randint(0, 256, (2, 5, 6, 3)))
_CONV_F = _quantized(tf.quint8, np.random.RandomState(2).randint(0, 256, (2, 3, 3, 4)))


def _zero_level(a, b):
    scale = 256.0 / ((float(b) - float(a)) * (256.0 / 255.0))
    return int(-_away(float(a) * scale))


def _conv_ref(stride, padding):
    def ref(x, f, a, b, fa, fb):
        x = x.view(np.uint8).astype(np.int64) - _zero_level(a, b)
        f = f.view(np.uint8).astype(np.int64) - _zero_level(fa, fb)
        n, h, w, _ = x.shape
        kh, kw, _, oc = f.shape
        if padding == "VALID":
            oh, ow, top, left = (h - kh) // stride + 1, (w - kw) // stride + 1, 0, 0
        else:
            oh, ow = -(-h // stride), -(-w // stride)
            top = max((oh - 1) * stride + kh - h, 0) // 2
            left = max((ow - 1) * stride + kw - w, 0) // 2
        out = np.zeros((n, oh, ow, oc), np.int64)
        for i, j, di, dj in np.ndindex(oh, ow, kh, kw):
            r, c = i * stride - top + di, j * stride - left + dj
            if 0 <= r < h and 0 <= c < w:
                out[:, i, j] += x[:, r, c] @ f[di, dj]
        step = _f(_f(_f(b) - _f(a)) / 255.0) * _f(_f(_f(fb) - _f(fa)) / 255.0)
        return [out.astype(np.int32), np.float32(_f(step) * -2.0 ** 31),
                np.float32(_f(step) * _f(2.0 ** 31 - 1))]

    return ref


def _conv_case(s, p, rng):
    return Case(
        "QuantizedConv2D",
        lambda x, f, a, b, fa, fb: list(tf.nn.quantized_conv2d(x, f, a, b, fa, fb,
                                                               [1, s, s, 1], p)),
        [_CONV_X, _CONV_F] + [np.float32(v) for v in rng], _conv_ref(s, p), dtypes=F32,
        grad=False, fixed=(2, 3, 4, 5), name=f"QuantizedConv2D_{p}_{s}")


CASES += [
    _conv_case(1, "SAME", (-1.0, 3.0, -0.5, 0.7)),
    _conv_case(2, "VALID", (0.0, 2.0, -2.0, 1.0)),
    _conv_case(2, "SAME", (-1.0, 1.0, -1.0, 1.0)),
]
