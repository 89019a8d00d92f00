"""Op-table rows for tf.quantization (FakeQuantWithMinMaxArgs/Vars/VarsPerChannel and their
gradient ops, QuantizeAndDequantizeV2/V3) and tf.audio (DecodeWav, EncodeWav).

The references re-derive TF's nudged range (in float32, as TF): scale = (max - min) / levels,
zero point = round(qmin - min / scale) clamped, and outputs (q - zero_point) * scale."""

import math
import struct

import numpy as np
import pytest

import tideflow as tf
from tests.ops.optable import Case

F32 = (tf.float32,)
_x = np.array([-7.0, -6.2, -1.3, -0.51, -0.0234, 0.0, 0.0234, 0.8, 2.49, 5.99, 6.0, 9.0],
              np.float32)


def _nudged(mn, mx, bits, narrow):
    # in float32, as TF: with min=-1, max=1 the zero point 127.5 comes out as 127.49999
    f = np.float32
    qmin, qmax = (1 if narrow else 0), (1 << bits) - 1
    scale = float(f(f(mx) - f(mn)) / f(qmax - qmin))
    zf = float(f(qmin) - f(f(mn) / f(scale)))
    zp = qmin if zf < qmin else qmax if zf > qmax else math.floor(zf + 0.5)
    return (qmin - zp) * scale, (qmax - zp) * scale, scale, zp


def _fq_ref(mn, mx, bits=8, narrow=False):
    def ref(x, *_):
        lo, hi, scale, zp = _nudged(mn, mx, bits, narrow)
        qmin = 1 if narrow else 0
        out = [(math.floor((min(max(float(v), lo), hi) - lo) / scale + 0.5) + qmin - zp) * scale
               for v in x.reshape(-1)]
        return np.array(out, np.float32).reshape(x.shape)

    return ref


def _fq_grad_ref(mn, mx, bits=8, narrow=False):
    def ref(g, x, *_):
        lo, hi, _, _ = _nudged(mn, mx, bits, narrow)
        inside = (x >= np.float32(lo)) & (x <= np.float32(hi))
        dx = np.where(inside, g, 0).astype(np.float32)
        return [dx, np.float32(np.sum(g[x < np.float32(lo)])),
                np.float32(np.sum(g[x > np.float32(hi)]))]

    return ref


def _check_fake_quant_gradients():
    with tf.Graph().as_default():
        x = tf.constant(_x)
        mn, mx = tf.constant(-1.3), tf.constant(4.7)
        y = tf.quantization.fake_quant_with_min_max_vars(x, mn, mx, num_bits=5)
        g = tf.gradients(tf.reduce_sum(y * 2.0), [x, mn, mx])
        ya = tf.fake_quant_with_min_max_args(x, min=-0.1, max=2.3, num_bits=4, narrow_range=True)
        (ga,) = tf.gradients(tf.reduce_sum(ya * 3.0), [x])
        assert ga.op.type == "FakeQuantWithMinMaxArgsGradient"
        xc = tf.constant(_x.reshape(4, 3))
        pc = tf.quantization.fake_quant_with_min_max_vars_per_channel(
            xc, tf.constant([-1.0, 0.2, -3.0]), tf.constant([1.0, 3.0, -0.5]))
        gpc = tf.gradients(tf.reduce_sum(pc), [xc])
        with tf.Session() as s:
            gx, gmin, gmax = s.run(g)
            lo, hi, _, _ = _nudged(-1.3, 4.7, 5, False)
            np.testing.assert_array_equal(gx, np.where((_x >= np.float32(lo)) &
                                                       (_x <= np.float32(hi)), 2.0, 0.0))
            assert gmin == 2.0 * np.sum(_x < np.float32(lo))
            assert gmax == 2.0 * np.sum(_x > np.float32(hi))
            lo, hi, _, _ = _nudged(-0.1, 2.3, 4, True)
            np.testing.assert_array_equal(s.run(ga), np.where(
                (_x >= np.float32(lo)) & (_x <= np.float32(hi)), 3.0, 0.0))
            assert s.run(gpc)[0].shape == (4, 3)
            # quantize_and_dequantize passes its gradient straight through
            q = tf.quantization.quantize_and_dequantize(x, -1.0, 1.0, range_given=True)
            np.testing.assert_array_equal(s.run(tf.gradients(q * 2.0, x)[0]), 2.0)
            # TF 1.15 does not check a Vars op's range: max < min clamps everything to the
            # nudged min (TF 1.15 prints 4.705883: zero point 200, -200 * (-6 / 255))
            np.testing.assert_allclose(
                s.run(tf.quantization.fake_quant_with_min_max_vars(x, mx, mn)), 4.705883,
                rtol=1e-6)
            with pytest.raises(tf.errors.InvalidArgumentError, match="smaller than max"):
                s.run(tf.quantization.fake_quant_with_min_max_args(x, min=1.0, max=1.0))
            with pytest.raises(tf.errors.InvalidArgumentError, match="num_bits"):
                s.run(tf.quantization.fake_quant_with_min_max_args(x, num_bits=1))


def _qdq_ref(mn, mx, signed=True, bits=8, range_given=False, half_up=False, narrow=False):
    def ref(x):
        lo, hi = (mn, mx) if range_given else (float(x.min()), float(x.max()))
        if signed:
            qmin, qmax = -(1 << (bits - 1)) + (1 if narrow else 0), (1 << (bits - 1)) - 1
        else:
            qmin, qmax = 0, (1 << bits) - 1
        big = float(np.finfo(x.dtype).max)
        s_min = qmin / lo if qmin * lo > 0 else big
        s_max = qmax / hi if qmax * hi > 0 else big
        if s_min < s_max:
            scale, inv = s_min, lo / qmin
            hi = qmax * inv
        else:
            scale, inv = s_max, hi / qmax
            lo = qmin * inv
        v = np.clip(x, lo, hi) if range_given else x
        v = v.astype(np.float64) * scale
        r = np.floor(v + 0.5) if half_up else np.rint(v)
        return (r * inv).astype(x.dtype)

    return ref


def _wav_bytes(samples, rate):
    pcm = np.asarray(samples, "<i2").tobytes()
    ch = samples.shape[1]
    return struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(pcm), b"WAVE", b"fmt ", 16, 1,
                       ch, rate, rate * ch * 2, ch * 2, 16, b"data", len(pcm)) + pcm


_pcm = np.array([[0, 16384], [-32768, 32767], [8192, -16384]], np.int16)


def _check_decode_wav():
    with tf.Graph().as_default():
        data = _wav_bytes(_pcm, 22050)
        # an extra chunk before "data" is skipped, as in files written by other tools (TF 1.15
        # reads no RIFF pad byte: an odd-sized chunk there is "No data chunk found in WAV")
        extra = data[:36] + b"LIST" + struct.pack("<I", 4) + b"abc\x00" + data[36:]
        c = tf.placeholder(tf.string, [])
        d = tf.audio.decode_wav(c)
        d2 = tf.audio.decode_wav(c, desired_channels=3, desired_samples=5)
        d3 = tf.audio.decode_wav(c, desired_channels=1, desired_samples=2)
        assert d.audio.get_shape().as_list() == [None, None]
        assert d2.audio.get_shape().as_list() == [5, 3]
        with tf.Session() as s:
            for blob in (data, extra):
                audio, rate = s.run(d, {c: blob})
                np.testing.assert_array_equal(audio, _pcm / 32768.0)
                assert rate == 22050 and audio.dtype == np.float32
            a2 = s.run(d2.audio, {c: data})
            np.testing.assert_array_equal(a2[:3, :2], _pcm / 32768.0)
            np.testing.assert_array_equal(a2[:3, 2], _pcm[:, 1] / 32768.0)
            np.testing.assert_array_equal(a2[3:], 0.0)
            np.testing.assert_array_equal(s.run(d3.audio, {c: data}), [[0.0], [-1.0]])
            with pytest.raises(tf.errors.InvalidArgumentError, match="too short"):
                s.run(d, {c: b"RIFFxxxx"})
            with pytest.raises(tf.errors.InvalidArgumentError, match="Expected RIFF"):
                s.run(d, {c: b"RIFX" + data[4:]})
            bits8 = data[:34] + struct.pack("<H", 8) + data[36:]
            with pytest.raises(tf.errors.InvalidArgumentError, match="16-bit"):
                s.run(d, {c: bits8})


def _check_encode_wav():
    with tf.Graph().as_default():
        x = np.array([[0.0, 0.5], [-1.2, 1.0], [0.25, -0.5], [1.5 / 32768, -0.000015]],
                     np.float32)
        e = tf.audio.encode_wav(x, 16000)
        assert e.get_shape().ndims == 0
        with tf.Session() as s:
            blob = s.run(e)
            with pytest.raises(tf.errors.InvalidArgumentError, match="2-dimensional"):
                p = tf.placeholder(tf.float32)
                s.run(tf.audio.encode_wav(p, 8000), {p: np.zeros([3], np.float32)})
        with pytest.raises(ValueError, match="rank 2"):
            tf.audio.encode_wav(np.zeros([3], np.float32), 8000)
        want = np.array([[0, 16384], [-32768, 32767], [8192, -16384], [2, 0]], np.int16)
        assert blob == _wav_bytes(want, 16000)


CASES = [
    Case("FakeQuantWithMinMaxArgs", tf.quantization.fake_quant_with_min_max_args, [_x],
         _fq_ref(-6.0, 6.0), dtypes=F32, grad=False),
    Case("FakeQuantWithMinMaxArgs",
         lambda x: tf.fake_quant_with_min_max_args(x, -0.1, 2.3, num_bits=4, narrow_range=True),
         [_x], _fq_ref(-0.1, 2.3, 4, True), dtypes=F32, grad=False,
         name="FakeQuantWithMinMaxArgs_narrow"),
    Case("FakeQuantWithMinMaxVars",
         lambda x, a, b: tf.fake_quant_with_min_max_vars(x, a, b, num_bits=5),
         [_x, np.array(-1.3, np.float32), np.array(4.7, np.float32)], _fq_ref(-1.3, 4.7, 5),
         dtypes=F32, grad=False),
    Case("FakeQuantWithMinMaxVarsPerChannel",
         lambda x, a, b: tf.fake_quant_with_min_max_vars_per_channel(x, a, b),
         [_x.reshape(6, 2), np.array([-1.0, 0.5], np.float32), np.array([1.0, 7.0], np.float32)],
         lambda x, a, b: np.stack([_fq_ref(-1.0, 1.0)(x[:, 0]), _fq_ref(0.5, 7.0)(x[:, 1])], 1),
         dtypes=F32, grad=False),
    Case("FakeQuantWithMinMaxArgsGradient",
         lambda g, x: tf.quantization.fake_quant_with_min_max_args_gradient(g, x, -1.0, 2.0),
         [np.linspace(1, 2, 12).astype(np.float32), _x],
         lambda g, x: _fq_grad_ref(-1.0, 2.0)(g, x)[0], dtypes=F32, grad=False),
    Case("FakeQuantWithMinMaxVarsGradient",
         lambda g, x, a, b: tf.quantization.fake_quant_with_min_max_vars_gradient(g, x, a, b),
         [np.linspace(1, 2, 12).astype(np.float32), _x, np.array(-1.0, np.float32),
          np.array(2.0, np.float32)], _fq_grad_ref(-1.0, 2.0), dtypes=F32, grad=False),
    Case("FakeQuantWithMinMaxVarsPerChannelGradient",
         lambda g, x, a, b:
         tf.quantization.fake_quant_with_min_max_vars_per_channel_gradient(g, x, a, b),
         [np.ones([12, 1], np.float32), _x.reshape(12, 1), np.array([-1.0], np.float32),
          np.array([2.0], np.float32)],
         lambda g, x, a, b: [r.reshape(s) for r, s in
                             zip(_fq_grad_ref(-1.0, 2.0)(g, x), [(12, 1), (1,), (1,)])],
         dtypes=F32, grad=False),
    Case("FakeQuantWithMinMaxVars", check=_check_fake_quant_gradients,
         name="fake_quant_gradients"),
    Case("QuantizeAndDequantizeV2",
         lambda x: tf.quantization.quantize_and_dequantize(x, -1.0, 1.0), [_x],
         _qdq_ref(0, 0), dtypes=(tf.float32, tf.float64), grad=False),
    Case("QuantizeAndDequantizeV2",
         lambda x: tf.quantization.quantize_and_dequantize(
             x, -3.0, 2.0, range_given=True, num_bits=4, round_mode="HALF_UP"), [_x],
         _qdq_ref(-3.0, 2.0, bits=4, range_given=True, half_up=True),
         dtypes=(tf.float32, tf.float64), grad=False,
         name="QuantizeAndDequantizeV2_range_half_up"),
    Case("QuantizeAndDequantizeV2",
         lambda x: tf.quantization.quantize_and_dequantize(
             x, 0.0, 0.0, signed_input=False, num_bits=3), [_x],
         _qdq_ref(0, 0, signed=False, bits=3), dtypes=(tf.float32,), grad=False,
         name="QuantizeAndDequantizeV2_unsigned"),
    Case("QuantizeAndDequantizeV3",
         lambda x: tf.raw_ops.QuantizeAndDequantizeV3(
             input=x, input_min=tf.constant(-3.0, x.dtype), input_max=tf.constant(2.0, x.dtype),
             num_bits=4), [_x],
         _qdq_ref(-3.0, 2.0, bits=4, range_given=True), dtypes=(tf.float32, tf.float64),
         grad=False),
    Case("DecodeWav", check=_check_decode_wav),
    Case("EncodeWav", check=_check_encode_wav),
]
