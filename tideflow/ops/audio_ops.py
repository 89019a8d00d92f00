"""WAV audio (``tf.audio``): DecodeWav and EncodeWav, 16-bit PCM little-endian RIFF files.

Samples map to float32 in [-1, 1) as ``int16 / 32768``; encoding clamps to [-1, 1] and rounds
``x * 32768`` (half away from zero) into int16, as TF's kernels do.
"""

import collections
import struct

import numpy as np

from tideflow.framework import errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape

DecodeWavOutput = collections.namedtuple("DecodeWav", ["audio", "sample_rate"])


def _bad(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _read(data, pos, n, what="string"):
    if pos + n > len(data):
        raise _bad(f"Data too short when trying to read {what}")
    return data[pos:pos + n], pos + n


def _parse_wav(data):
    """(int16 samples [n, channels], sample_rate) of a 16-bit PCM WAV file."""
    tag, pos = _read(data, 0, 4)
    if tag != b"RIFF":
        raise _bad(f"Header mismatch: Expected RIFF but found {tag!r}")
    _, pos = _read(data, pos, 4, "uint32")
    tag, pos = _read(data, pos, 4)
    if tag != b"WAVE":
        raise _bad(f"Header mismatch: Expected WAVE but found {tag!r}")
    channels = rate = None
    while True:
        cid, pos = _read(data, pos, 4)
        size_b, pos = _read(data, pos, 4, "uint32")
        size = struct.unpack("<I", size_b)[0]
        if cid == b"fmt ":
            body, pos = _read(data, pos, size)
            if size < 16:
                raise _bad(f"Bad fmt chunk size: {size}")
            fmt, channels, rate, byte_rate, block, bits = struct.unpack("<HHIIHH", body[:16])
            if fmt not in (1, 0xFFFE):
                raise _bad(f"Bad audio format {fmt}: only PCM (1) is supported")
            if channels == 0:
                raise _bad("Bad number of channels: 0")
            if bits != 16:
                raise _bad(f"Can only read 16-bit WAV files, but received {bits}")
            if block != channels * 2 or byte_rate != rate * block:
                raise _bad("Bad block alignment or byte rate in the fmt chunk")
            pos += size & 1
        elif cid == b"data":
            if channels is None:
                raise _bad("The data chunk comes before the fmt chunk")
            body, pos = _read(data, pos, size)
            n = size // (2 * channels)
            samples = np.frombuffer(body[:n * 2 * channels], dtype="<i2").reshape(n, channels)
            return samples, rate
        else:
            _, pos = _read(data, pos, size + (size & 1))


def _decode_wav_kernel(contents, *, desired_channels, desired_samples):
    data = contents.item() if isinstance(contents, np.ndarray) else contents
    if not isinstance(data, bytes):
        raise _bad("contents must be a scalar string")
    samples, rate = _parse_wav(data)
    n, ch = samples.shape
    out_ch = ch if desired_channels == -1 else desired_channels
    out_n = n if desired_samples == -1 else desired_samples
    src = samples.astype(np.float32) / np.float32(32768.0)
    cols = [min(c, ch - 1) for c in range(out_ch)]
    out = np.zeros((out_n, out_ch), np.float32)
    k = min(n, out_n)
    out[:k] = src[:k][:, cols]
    return out, np.int32(rate)


def _decode_wav_shape(op):
    ch = op._attrs["desired_channels"]
    n = op._attrs["desired_samples"]
    return [TensorShape([None if n == -1 else n, None if ch == -1 else ch]), TensorShape([])]


op_registry.declare(
    "DecodeWav",
    inputs=["contents: string"],
    outputs=["audio: float", "sample_rate: int32"],
    attrs=["desired_channels: int = -1", "desired_samples: int = -1"],
    shape=_decode_wav_shape,
    kernel=_decode_wav_kernel,
    differentiable=False,
)


def _encode_wav_kernel(audio, sample_rate):
    audio = np.asarray(audio, np.float32)
    if audio.ndim != 2:
        raise _bad(f"audio must be 2-dimensional, got shape {list(audio.shape)}")
    rate = int(np.asarray(sample_rate))
    _n, ch = audio.shape
    if ch == 0:
        raise _bad("audio must have at least one channel")
    scaled = np.clip(audio, -1.0, 1.0).astype(np.float32) * np.float32(32768.0)
    rounded = np.where(scaled < 0, -np.floor(-scaled + 0.5), np.floor(scaled + 0.5))
    pcm = np.clip(rounded, -32768, 32767).astype("<i2").tobytes()
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(pcm), b"WAVE", b"fmt ", 16,
                         1, ch, rate, rate * ch * 2, ch * 2, 16, b"data", len(pcm))
    return np.array(header + pcm, dtype=object)


def _encode_wav_shape(op):
    a, r = op._inputs[0]._shape, op._inputs[1]._shape
    if a.ndims is not None and a.ndims != 2:
        raise ValueError(f"EncodeWav: audio must be rank 2 [samples, channels], got {a}")
    if r.ndims is not None and r.ndims != 0:
        raise ValueError(f"EncodeWav: sample_rate must be a scalar, got {r}")
    return [TensorShape([])]


op_registry.declare(
    "EncodeWav",
    inputs=["audio: float", "sample_rate: int32"],
    outputs=["contents: string"],
    shape=lambda op: _encode_wav_shape(op),
    kernel=_encode_wav_kernel,
    differentiable=False,
)


def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None):
    """Decodes a 16-bit PCM WAV file: (audio float32 [samples, channels], sample_rate).

    ``desired_channels`` repeats the last channel or drops channels; ``desired_samples`` pads
    with zeros or truncates."""
    op = ops.apply_op("DecodeWav", [contents], {"desired_channels": desired_channels,
                                                "desired_samples": desired_samples}, name=name)
    return DecodeWavOutput(*op._outputs)


def encode_wav(audio, sample_rate, name=None):
    """Encodes float32 audio [samples, channels] in [-1, 1] as a 16-bit PCM WAV file."""
    return ops.apply_op("EncodeWav", [audio, sample_rate], name=name)._outputs[0]

