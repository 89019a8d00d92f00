"""WAV audio (``tf.audio``): DecodeWav and EncodeWav, 16-bit PCM little-endian RIFF files.

Samples map to float32 in [-1, 1) as ``int16 / 32768``; encoding clamps to [-1, 1] and rounds
``x * 32768`` (half away from zero) into int16, as TF's kernels do.
"""

import collections
import struct

import numpy as np

from tideflow.framework import errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops.array_ops import _check_rank

DecodeWavOutput = collections.namedtuple("DecodeWav", ["audio", "sample_rate"])


def _bad(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _dims(x):
    return "[" + ",".join(str(d) for d in np.shape(x)) + "]"


def _read(data, pos, n):
    # every short read is the one message, as TF's offset check words it
    if pos + n > len(data):
        raise _bad("Data too short when trying to read string")
    return data[pos:pos + n], pos + n


def _expect(data, pos, tag):
    found, pos = _read(data, pos, len(tag))
    if found != tag:
        raise _bad(f"Header mismatch: Expected {tag.decode()} but found "
                   f"{found.decode('latin-1')}")
    return pos


def _value(data, pos, fmt):
    raw, pos = _read(data, pos, struct.calcsize(fmt))
    return struct.unpack(fmt, raw)[0], pos


def _parse_wav(data):
    """(int16 samples [n, channels], sample_rate) of a 16-bit PCM WAV file, read as TF 1.15's
    wav_io does: RIFF, WAVE and a 16- or 18-byte fmt chunk in that order, then chunks up to the
    end (no pad bytes), exactly one of them data."""
    pos = _expect(data, 0, b"RIFF")
    _, pos = _value(data, pos, "<I")
    pos = _expect(data, pos, b"WAVE")
    pos = _expect(data, pos, b"fmt ")
    fmt_size, pos = _value(data, pos, "<I")
    if fmt_size not in (16, 18):
        raise _bad(f"Bad file size for WAV: Expected 16 or 18, but got{fmt_size}")
    fmt, pos = _value(data, pos, "<H")
    if fmt != 1:
        raise _bad(f"Bad audio format for WAV: Expected 1 (PCM), but got{fmt}")
    channels, pos = _value(data, pos, "<H")
    if channels < 1:
        raise _bad(f"Bad number of channels for WAV: Expected at least 1, but got {channels}")
    rate, pos = _value(data, pos, "<I")
    byte_rate, pos = _value(data, pos, "<I")
    block, pos = _value(data, pos, "<H")
    bits, pos = _value(data, pos, "<H")
    if bits != 16:
        raise _bad(f"Can only read 16-bit WAV files, but received {bits}")
    if block != (bits * channels + 7) // 8:
        raise _bad(f"Bad bytes per sample in WAV header: Expected "
                   f"{(bits * channels + 7) // 8} but got {block}")
    if byte_rate != block * rate:
        raise _bad(f"Bad bytes per second in WAV header: Expected {block * rate} but got "
                   f"{byte_rate} (sample_rate={rate}, bytes_per_sample={block})")
    pos += fmt_size - 16
    samples = None
    while pos < len(data):
        cid, pos = _read(data, pos, 4)
        size, pos = _value(data, pos, "<I")
        if size > 0x7FFFFFFF:
            raise _bad(f"WAV data chunk '{cid.decode('latin-1')}' is too large: {size} bytes, "
                       f"but the limit is {0x7FFFFFFF}")
        if cid != b"data":
            pos += size
            continue
        if samples is not None:
            raise _bad("More than one data chunk found in WAV")
        frames = size // block
        body, pos = _read(data, pos, 2 * frames * channels)
        samples = np.frombuffer(body, dtype="<i2").reshape(frames, channels)
    if samples is None:
        raise _bad("No data chunk found in WAV")
    return samples, rate


def _decode_wav_kernel(contents, *, desired_channels, desired_samples):
    if np.ndim(contents) != 0:
        raise _bad(f"contents must be scalar, got shape {_dims(contents)}")
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
    _check_rank(op._inputs[0]._shape, 0)
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
        raise _bad(f"audio must be 2-dimensional{_dims(audio)}")
    if np.ndim(sample_rate) != 0:
        raise _bad(f"Input sample_rate should be a scalar tensor, got {_dims(sample_rate)} "
                   "instead.")
    rate = int(np.asarray(sample_rate))
    _n, ch = audio.shape
    if audio.size == 0:
        raise _bad("audio is null")  # TF's words for an empty tensor's missing buffer
    if rate <= 0:
        # TF reads the int32 rate as an unsigned 64-bit size
        raise _bad(f"sample_rate must be in (0, 2^32), got: {rate % (1 << 64)}")
    scaled = np.clip(audio, -1.0, 1.0).astype(np.float32) * np.float32(32768.0)
    rounded = np.where(scaled < 0, -np.floor(-scaled + 0.5), np.floor(scaled + 0.5))
    pcm = np.clip(rounded, -32768, 32767).astype("<i2").tobytes()
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(pcm), b"WAVE", b"fmt ", 16,
                         1, ch, rate, rate * ch * 2, ch * 2, 16, b"data", len(pcm))
    return np.array(header + pcm, dtype=object)


def _encode_wav_shape(op):
    _check_rank(op._inputs[0]._shape, 2)
    _check_rank(op._inputs[1]._shape, 0)
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



# --- AudioSpectrogram and Mfcc (the speech-commands front end) -------------------------------


def _spectrogram_kernel(input, *, window_size, stride, magnitude_squared):
    x = np.asarray(input, np.float64)
    if x.ndim != 2:
        raise _bad(f"input must be 2-dimensional, got shape {list(x.shape)}")
    if window_size < 2 or stride < 1:
        raise _bad(f"window_size ({window_size}) must be at least 2 and stride ({stride}) at "
                   "least 1")
    n, channels = x.shape
    frames = 0 if n < window_size else 1 + (n - window_size) // stride
    fft_length = 1 << (window_size - 1).bit_length()
    # TF's periodic Hann window, computed (like the FFT) in double precision
    window = 0.5 - 0.5 * np.cos(2.0 * np.pi * np.arange(window_size) / window_size)
    out = np.zeros((channels, frames, fft_length // 2 + 1), np.float32)
    if frames:
        starts = np.arange(frames) * stride
        segments = x[starts[:, None] + np.arange(window_size)[None, :]]  # [frames, win, ch]
        spectrum = np.fft.rfft(segments * window[None, :, None], n=fft_length, axis=1)
        power = spectrum.real ** 2 + spectrum.imag ** 2
        values = power if magnitude_squared else np.sqrt(power)
        out[:] = np.transpose(values, (2, 0, 1))
    return out


def _spectrogram_shape(op):
    shape = op._inputs[0]._shape
    if shape.ndims is not None and shape.ndims != 2:
        raise ValueError(f"AudioSpectrogram: input must be rank 2 [samples, channels], got "
                         f"{shape}")
    window, stride = op._attrs["window_size"], op._attrs["stride"]
    bins = (1 << (window - 1).bit_length()) // 2 + 1
    if shape.ndims is None:
        return [TensorShape([None, None, bins])]
    n, ch = shape.as_list()
    frames = None if n is None else (0 if n < window else 1 + (n - window) // stride)
    return [TensorShape([ch, frames, bins])]


op_registry.declare(
    "AudioSpectrogram",
    inputs=["input: float"],
    outputs=["spectrogram: float"],
    attrs=["window_size: int", "stride: int", "magnitude_squared: bool = false"],
    shape=_spectrogram_shape,
    kernel=_spectrogram_kernel,
    differentiable=False,
)


def _freq_to_mel(freq):
    return 1127.0 * np.log1p(np.asarray(freq, np.float64) / 700.0)


def _mel_filterbank(input_length, sample_rate, channels, lower, upper):
    """TF's MfccMelFilterbank: (start, end, band index per bin, weight per bin)."""
    mel_low, mel_high = _freq_to_mel(lower), _freq_to_mel(upper)
    centers = mel_low + (mel_high - mel_low) / (channels + 1) * np.arange(1, channels + 2)
    hz_per_sbin = 0.5 * sample_rate / (input_length - 1)
    start = int(1.5 + lower / hz_per_sbin)
    end = int(upper / hz_per_sbin)
    band = np.full(input_length, -2)
    weights = np.zeros(input_length)
    channel = 0
    for i in range(input_length):
        melf = _freq_to_mel(i * hz_per_sbin)
        if i < start or i > end:
            continue
        while channel < channels and centers[channel] < melf:
            channel += 1
        band[i] = channel - 1
        if channel - 1 >= 0:
            c = channel - 1
            weights[i] = (centers[c + 1] - melf) / (centers[c + 1] - centers[c])
        else:
            weights[i] = (centers[0] - melf) / (centers[0] - mel_low)
    return start, end, band, weights


def _mfcc_kernel(spectrogram, sample_rate, *, upper_frequency_limit, lower_frequency_limit,
                 filterbank_channel_count, dct_coefficient_count):
    spec = np.asarray(spectrogram, np.float64)
    if spec.ndim != 3:
        raise _bad(f"spectrogram must be 3-dimensional, got shape {list(spec.shape)}")
    rate = int(np.asarray(sample_rate))
    bins = spec.shape[2]
    if not 0 <= lower_frequency_limit < upper_frequency_limit or filterbank_channel_count < 1 \
            or bins < 2:
        raise _bad("Mfcc: bad filterbank settings (frequency limits "
                   f"{lower_frequency_limit}..{upper_frequency_limit}, "
                   f"{filterbank_channel_count} channels, {bins} spectrogram bins)")
    n_ch = filterbank_channel_count
    start, end, band, weights = _mel_filterbank(bins, rate, n_ch, lower_frequency_limit,
                                                upper_frequency_limit)
    # the filterbank of sqrt(power): each bin splits between its band and the next one
    mapping = np.zeros((bins, n_ch + 1))
    for i in range(max(start, 0), min(end, bins - 1) + 1):
        c = band[i]
        if c >= 0:
            mapping[i, c] += weights[i]
        if c + 1 < n_ch:
            mapping[i, c + 1] += 1.0 - weights[i]
    energies = np.sqrt(spec) @ mapping[:, :n_ch]
    logs = np.log(np.maximum(energies, 1e-12))
    k = np.arange(dct_coefficient_count)[:, None]
    j = np.arange(n_ch)[None, :]
    dct = np.sqrt(2.0 / n_ch) * np.cos(k * (np.pi / n_ch) * (j + 0.5))
    return (logs @ dct.T).astype(np.float32)


def _mfcc_shape(op):
    shape = op._inputs[0]._shape
    if shape.ndims is not None and shape.ndims != 3:
        raise ValueError(f"Mfcc: spectrogram must be rank 3 [channels, frames, bins], got "
                         f"{shape}")
    lead = [None, None] if shape.ndims is None else shape.as_list()[:2]
    return [TensorShape(lead + [op._attrs["dct_coefficient_count"]])]


op_registry.declare(
    "Mfcc",
    inputs=["spectrogram: float", "sample_rate: int32"],
    outputs=["output: float"],
    attrs=["upper_frequency_limit: float = 4000", "lower_frequency_limit: float = 20",
           "filterbank_channel_count: int = 40", "dct_coefficient_count: int = 13"],
    shape=_mfcc_shape,
    kernel=_mfcc_kernel,
    differentiable=False,
)


def audio_spectrogram(input, window_size, stride, magnitude_squared=False,
                      name=None):
    """Spectrogram [channels, frames, fft_length/2 + 1] of audio [samples, channels]: periodic
    Hann windows of ``window_size`` samples every ``stride``, FFT length the next power of
    two; power spectrum with ``magnitude_squared``, else its square root."""
    return ops.apply_op("AudioSpectrogram", [input],
                        {"window_size": window_size, "stride": stride,
                         "magnitude_squared": magnitude_squared}, name=name)._outputs[0]


def mfcc(spectrogram, sample_rate, upper_frequency_limit=4000, lower_frequency_limit=20,
         filterbank_channel_count=40, dct_coefficient_count=13, name=None):
    """Mel-frequency cepstral coefficients of a squared-magnitude ``spectrogram``: a
    triangular mel filterbank over its square root, log (floored at 1e-12), then a DCT."""
    return ops.apply_op("Mfcc", [spectrogram, sample_rate],
                        {"upper_frequency_limit": float(upper_frequency_limit),
                         "lower_frequency_limit": float(lower_frequency_limit),
                         "filterbank_channel_count": filterbank_channel_count,
                         "dct_coefficient_count": dct_coefficient_count}, name=name)._outputs[0]
