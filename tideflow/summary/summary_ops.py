"""Summary ops (paper §9.1): kernels that turn tensors into serialized ``Summary`` protos.

Scalars, histograms over TF's fixed exponential buckets, images (PNG), audio (WAV), tensors
with plugin metadata, and their merge. Each op outputs a scalar string tensor.
"""

import io
import struct
import sys
import wave

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, tensor_util
from tideflow.framework.tensor_shape import TensorShape
from tideflow.framework.wire_format import encode_varint
from tideflow.protos import summary_pb2

_DBL_MAX = sys.float_info.max


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _shape_str(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _scalar_shape(op):
    return [TensorShape([])]


def _string_scalar(data):
    out = np.empty((), dtype=object)
    out[()] = data
    return out


def _text(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _legacy_scalar_tag(tag, what):
    tag = np.asarray(tag)
    if not (tag.ndim == 0 or tag.shape == (1,)):
        raise _invalid(f"{what} must be a scalar")
    return _text(tag.reshape(-1)[0])


# ------------------------------------------------------------------------------------------
# Histogram buckets (TF's core/lib/histogram): limits grow by 10% from 1e-12 to 1e20,
# mirrored for negatives, with 0 between; the last is DBL_MAX.
# ------------------------------------------------------------------------------------------


def _default_bucket_limits():
    pos = []
    v = 1.0e-12
    while v < 1.0e20:
        pos.append(v)
        v *= 1.1
    pos.append(_DBL_MAX)
    limits = np.array([-x for x in reversed(pos)] + [0.0] + pos, dtype=np.float64)
    limits.flags.writeable = False
    return limits


BUCKET_LIMITS = _default_bucket_limits()


def _float32_thresholds(limits):
    # For float32 x and double limit L, ``x < L`` iff ``x < T`` where T is the smallest float32
    # not below L: sorted float32 data can then be searched without a float64 copy.
    with np.errstate(over="ignore"):
        t = limits.astype(np.float32)
    low = t.astype(np.float64) < limits
    t[low] = np.nextafter(t[low], np.float32(np.inf))
    t.flags.writeable = False
    return t


_THRESHOLDS_F32 = _float32_thresholds(BUCKET_LIMITS)


def _non_finite_error(flat, name):
    first = flat[np.flatnonzero(~np.isfinite(flat))[0]]
    what = "Nan" if np.isnan(first) else "Infinity"
    return _invalid(f"{what} in summary histogram for: {name}")


def _sums(data, narrow_squares):
    """(sum, sum of squares) of ``data``. The sum is accumulated in float64, as TF's per-value
    double loop (NumPy's pairwise order: within a few ulps of TF's sequential sum). Float32
    squares are summed in float32 over rows of 256 and the row sums in float64: relative
    error 1e-9 to 3e-8, by NumPy's loop and the data (TF's double loop: 1e-16), and several
    times cheaper than widening every value to float64.
    Without ``narrow_squares`` (magnitudes whose float32 squares could overflow, or lose the
    small values' share) they are widened to float64 first. (Histograms of up to
    ``_EXACT_SUMS_MAX`` values are summed as TF does instead, in ``histogram_counts``.)"""
    if data.dtype == np.float32:
        total = float(np.add.reduce(data, dtype=np.float64))
        if not narrow_squares:
            wide = data.astype(np.float64)
            return total, float(np.einsum("i,i->", wide, wide))
        head = data.size - data.size % _SQUARE_ROW
        rows = data[:head].reshape(-1, _SQUARE_ROW)
        squares = float(np.add.reduce(_row_dots(rows), dtype=np.float64))
        tail = data[head:].astype(np.float64)
        squares += float(np.einsum("i,i->", tail, tail))
        return total, squares
    # einsum, not np.dot: a multi-threaded BLAS dot can stall for milliseconds on a busy host
    return float(np.add.reduce(data)), float(np.einsum("i,i->", data, data))


_SQUARE_ROW = 256
# histograms of up to this many values get TF's exact sums (sequential, in double); larger ones
# the cheaper ones of _sums
_EXACT_SUMS_MAX = 1 << 14
# float32 squares are used when the largest magnitude m is in this range: a row's sum,
# 256*m*m, stays finite, and what the squares of values under 1e-19 lose below float32's
# normal range (about 1e-45 each) stays under 1e-25 of m*m per value
_F32_SQUARES_RANGE = (1e-10, 1e18)


def _row_dots(rows):
    # np.vecdot (NumPy 2) is a SIMD loop twice as fast as einsum's
    return np.vecdot(rows, rows) if _HAS_VECDOT else np.einsum("ij,ij->i", rows, rows)


_HAS_VECDOT = hasattr(np, "vecdot")


def histogram_counts(values, name="histogram"):
    """``(min, max, num, sum, sum_squares, counts)`` of ``values`` exactly as TF's default
    ``Histogram`` accumulates them: ``counts[i]`` holds the values ``v`` with
    ``BUCKET_LIMITS[i-1] <= v < BUCKET_LIMITS[i]`` (std::upper_bound over the limits).

    Each value's bucket comes from its logarithm: the limits grow by 10%, so ``log(|v| /
    1e-12) / log(1.1)`` rounded is the limit nearest ``v`` (the rounding errors of the float
    logarithm and of the limits' own products are under 1e-3 of a bucket, against the 0.5
    rounding allows), and one comparison with that limit says on which side ``v`` lies. A few
    passes over the values and a bincount: no sort, no per-value binary search (NumPy's sort
    of the 668,672 weights of the MLP benchmark ran 10-100x slower than this on some hosts).
    Non-finite values raise InvalidArgumentError naming ``name``.
    """
    flat = np.asarray(values).reshape(-1)
    if flat.dtype == np.float32 or flat.dtype == np.float16 or flat.dtype.kind == "V":
        flat = flat.astype(np.float32, copy=False)  # float16/bfloat16 fit exactly
        thresholds = _THRESHOLDS_F32
    else:
        flat = flat.astype(np.float64, copy=False)  # TF's static_cast<double>
        thresholds = BUCKET_LIMITS
    n = flat.size
    if n == 0:
        return _DBL_MAX, -_DBL_MAX, 0, 0.0, 0.0, np.zeros(BUCKET_LIMITS.size, dtype=np.int64)
    lo, hi = flat.min(), flat.max()
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise _non_finite_error(flat, name)
    counts = np.bincount(_buckets(flat, thresholds), minlength=BUCKET_LIMITS.size)
    if n <= _EXACT_SUMS_MAX:
        # TF's own loop: each value widened to double, added in order (cumsum adds
        # sequentially), so a printed sum / sum_squares has TF's last digits
        wide = flat.astype(np.float64)
        total = float(np.cumsum(wide)[-1])
        squares = float(np.cumsum(np.multiply(wide, wide, out=wide))[-1])
    else:
        biggest = max(-float(lo), float(hi))
        total, squares = _sums(flat, _F32_SQUARES_RANGE[0] <= biggest <= _F32_SQUARES_RANGE[1])
    if lo == 0 or hi == 0:
        # TF keeps the first of equal extremes: with 0.0 and -0.0, the one met first
        zero = flat[int(np.argmax(flat == 0))]
        lo = zero if lo == 0 else lo
        hi = zero if hi == 0 else hi
    return float(lo), float(hi), n, total, squares, counts.astype(np.int64, copy=False)


# the positive limits (1e-12 growing by 10%, then DBL_MAX) and where the first one is
_POSITIVE = (BUCKET_LIMITS.size - 1) // 2
_LOG_FIRST = float(np.log(1e-12))
_PER_LOG = float(1 / np.log(1.1))


def _buckets(flat, thresholds):
    """Each finite value's bucket: how many of ``thresholds`` (the limits, or float32 ones
    that compare with float32 values as the double limits do) are <= it."""
    dt = flat.dtype.type
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        k = np.abs(flat)
        np.log(k, out=k)
        k -= dt(_LOG_FIRST)
        k *= dt(_PER_LOG)
        np.rint(k, out=k)
        # the nearest positive limit's index j (-1 below the first one, and for a zero);
        # the limit sits at _POSITIVE + 1 + j in the whole array for a positive value, its
        # negation at _POSITIVE - 1 - j for a negative one (at j = -1 both are the limit 0)
        np.clip(k, -1, _POSITIVE - 1, out=k)
        k += 1
        np.copysign(k, flat, out=k)
        k += _POSITIVE
    near = k.astype(np.intp)
    near += thresholds.take(near) <= flat
    return near


# ------------------------------------------------------------------------------------------
# Protobuf wire format, written directly for the histogram path (tests check every byte
# against the protobuf library's own serialization)
# ------------------------------------------------------------------------------------------


_varint = encode_varint  # (lengths and counts: never negative)


_FIVE_DOUBLES = struct.Struct("<5d")
_DOUBLE_KEYS = [bytes([(field << 3) | 1]) for field in range(1, 6)]  # fixed64 wire type
_ZERO_DOUBLE = bytes(8)
_LE_F64 = np.dtype("<f8")


def _histogram_proto_bytes(lo, hi, num, total, squares, counts):
    """A serialized ``HistogramProto``: the five doubles (proto3 leaves out one whose bits are
    all zero), then the kept limits and counts as packed doubles. Runs of empty buckets are
    collapsed into one entry at the run's last limit, as TF's ``EncodeToProto``."""
    nonzero = counts > 0
    keep = nonzero.copy()
    keep[:-1] |= nonzero[1:]  # also the last bucket of each run of empty ones...
    keep[-1] = True  # ...and the final bucket
    heads = _FIVE_DOUBLES.pack(lo, hi, float(num), total, squares)
    parts = []
    for i, key in enumerate(_DOUBLE_KEYS):
        field = heads[8 * i:8 * i + 8]
        if field != _ZERO_DOUBLE:
            parts += (key, field)
    limits = BUCKET_LIMITS[keep].astype(_LE_F64, copy=False).tobytes()
    buckets = counts[keep].astype(_LE_F64).tobytes()
    parts += (b"\x32", _varint(len(limits)), limits, b"\x3a", _varint(len(buckets)), buckets)
    return b"".join(parts)


def _summary_value_bytes(tag, value_field, payload):
    """A serialized ``Summary`` holding one ``Value`` with ``tag`` and one length-delimited
    field (``value_field``: 5 for histo)."""
    tag = tag.encode("utf-8") if isinstance(tag, str) else tag
    body = []
    if tag:  # proto3 leaves an empty string out
        body += (b"\x0a", _varint(len(tag)), tag)
    body += (bytes([(value_field << 3) | 2]), _varint(len(payload)), payload)
    body = b"".join(body)
    return b"\x0a" + _varint(len(body)) + body


def histogram_proto(values, name="histogram"):
    """A ``HistogramProto`` of ``values`` exactly as TF's default ``Histogram`` builds it.

    Bucket ``i`` counts the values in ``[limit[i-1], limit[i])``; runs of empty buckets are
    collapsed into one entry at the run's last limit. Non-finite values raise
    InvalidArgumentError naming ``name``.
    """
    return summary_pb2.HistogramProto.FromString(
        _histogram_proto_bytes(*histogram_counts(values, name)))


# ------------------------------------------------------------------------------------------
# PNG and WAV encoding (no optional dependency)
# ------------------------------------------------------------------------------------------

def encode_png(image, compression=-1):
    """PNG bytes of a uint8 ``[height, width, channels]`` image (1 to 4 channels): EncodePng's
    encoder (libpng's row filters and deflate settings), as TF's image summaries use it."""
    from tideflow.ops.image_codec_ops import encode_png_bytes

    return encode_png_bytes(np.asarray(image, dtype=np.uint8), compression)


def encode_wav(samples, sample_rate):
    """16-bit PCM WAV bytes of float ``[frames, channels]`` samples in ``[-1, 1]``."""
    channels = samples.shape[1]
    scaled = np.clip(samples.astype(np.float32) * np.float32(32768.0), -32768.0, 32767.0)
    # round half away from zero, as C's roundf
    pcm = (np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(sample_rate)
        w.writeframes(pcm.tobytes())
    return buf.getvalue()


# ------------------------------------------------------------------------------------------
# ScalarSummary
# ------------------------------------------------------------------------------------------


def _scalar_summary_kernel(tags, values):
    tags = np.asarray(tags)
    values = np.asarray(values)
    if tags.shape != values.shape:
        single = f" (tag '{_text(tags.reshape(-1)[0])}')" if tags.size == 1 else ""
        raise _invalid(f"tags and values not the same shape: {_shape_str(tags.shape)} != "
                       f"{_shape_str(values.shape)}{single}")
    s = summary_pb2.Summary()
    for tag, v in zip(tags.reshape(-1).tolist(), values.reshape(-1).astype(np.float32).tolist()):
        s.value.add(tag=_text(tag), simple_value=v)
    return _string_scalar(s.SerializeToString())


op_registry.declare(
    "ScalarSummary",
    inputs=["tags: string", "values: T"],
    outputs=["summary: string"],
    attrs=["T: realnumbertype"],
    shape=_scalar_shape,
    kernel=_scalar_summary_kernel,
    differentiable=False,
)


# ------------------------------------------------------------------------------------------
# HistogramSummary
# ------------------------------------------------------------------------------------------


def _histogram_summary_factory(ctx):
    name = ctx.name

    def run(tag, values):
        tag = np.asarray(tag)
        if tag.ndim != 0:
            raise _invalid("tags must be scalar")
        histo = _histogram_proto_bytes(*histogram_counts(values, name))
        return _string_scalar(_summary_value_bytes(_text(tag[()]), 5, histo))

    return run


op_registry.declare(
    "HistogramSummary",
    inputs=["tag: string", "values: T"],
    outputs=["summary: string"],
    attrs=["T: realnumbertype = DT_FLOAT"],
    shape=_scalar_shape,
    kernel_factory=_histogram_summary_factory,
    differentiable=False,
)


# ------------------------------------------------------------------------------------------
# ImageSummary
# ------------------------------------------------------------------------------------------


def _normalize_image(values, bad_color):
    """One float ``[h, w, c]`` image to uint8 as TF does: non-finite pixels get ``bad_color``;
    all-positive images scale so the max is 255, others so 0 lands on 128. As TF's kernel, the
    extremes and the scale are single floats, the scale and offset then the image's own type,
    in which the affine map is computed (half images in half precision)."""
    dtype = values.dtype.type
    finite = np.isfinite(values).all(axis=-1)
    good = values[finite]
    lo = np.float32(good.min()) if good.size else np.float32(np.inf)
    hi = np.float32(good.max()) if good.size else np.float32(-np.inf)
    if lo < 0:
        max_val = max(abs(lo), abs(hi))
        scale = np.float32(0) if max_val < np.float32(1e-6) else np.float32(127) / max_val
        offset = 128.0
    else:
        scale = np.float32(0) if hi < np.float32(1e-6) else np.float32(255) / hi
        offset = 0.0
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = values * dtype(scale) + dtype(offset)
        out = np.clip(np.trunc(np.nan_to_num(scaled.astype(np.float64))), 0, 255)
    out = out.astype(np.uint8)
    out[~finite] = bad_color
    return out


def _image_summary_kernel(tag, tensor, *, max_images, bad_color):
    base = _legacy_scalar_tag(tag, "Tags")
    tensor = np.asarray(tensor)
    if tensor.ndim != 4 or tensor.shape[3] not in (1, 3, 4):
        raise _invalid(f"Tensor must be 4-D with last dim 1, 3, or 4, not "
                       f"{_shape_str(tensor.shape)}")
    batch, h, w, depth = tensor.shape
    bad = np.asarray(bad_color)
    if tensor.dtype != np.uint8 and bad.shape[0] < depth:
        raise _invalid(f"expected depth <= bad_color.size, got depth = {depth}, "
                       f"bad_color.size = {bad.shape[0]}")
    s = summary_pb2.Summary()
    for i in range(min(max_images, batch)):
        img = tensor[i]
        if img.dtype != np.uint8:
            img = _normalize_image(img, bad[:depth]) if img.size else img.astype(np.uint8)
        v = s.value.add(tag=f"{base}/image/{i}" if max_images > 1 else f"{base}/image")
        v.image.height = h
        v.image.width = w
        v.image.colorspace = depth
        v.image.encoded_image_string = encode_png(img)
    return _string_scalar(s.SerializeToString())


_image_def = op_registry.declare(
    "ImageSummary",
    inputs=["tag: string", "tensor: T"],
    outputs=["summary: string"],
    attrs=["max_images: int >= 1 = 3", "T: {uint8, float, half, float64} = DT_FLOAT",
           "bad_color: tensor"],
    shape=_scalar_shape,
    kernel=_image_summary_kernel,
    differentiable=False,
)


class _AttrTensor(np.ndarray):
    """A tensor attr default that compares by value (``==`` gives one bool, like other attr
    values), so declared defaults can be compared with what a NodeDef holds. In a NodeDef or
    OpDef it is written element by element (``int_val``), as TF writes it."""

    _attr_default_as_values = True

    def __eq__(self, other):
        return np.array_equal(np.asarray(self), np.asarray(other))

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None


# TF's default bad_color is opaque red; the declaration notation has no tensor literals
_RED = np.array([255, 0, 0, 255], dtype=np.uint8).view(_AttrTensor)
_RED.flags.writeable = False
_image_def.attrs["bad_color"].has_default = True
_image_def.attrs["bad_color"].default = _RED


# ------------------------------------------------------------------------------------------
# AudioSummary, AudioSummaryV2
# ------------------------------------------------------------------------------------------


def _audio_summary(tag, tensor, sample_rate, max_outputs):
    base = _legacy_scalar_tag(tag, "Tag")
    tensor = np.asarray(tensor, dtype=np.float32)
    if tensor.ndim not in (2, 3):
        raise _invalid(f"Tensor must be 3-D or 2-D, got: {_shape_str(tensor.shape)}")
    sample_rate = float(np.float32(sample_rate))
    if not sample_rate > 0.0:
        raise _invalid("sample_rate must be > 0")
    batch, frames = tensor.shape[:2]
    channels = 1 if tensor.ndim == 2 else tensor.shape[2]
    rate = max(1, round(sample_rate))  # lrintf: half to even
    s = summary_pb2.Summary()
    for i in range(min(max_outputs, batch)):
        v = s.value.add(tag=f"{base}/audio/{i}" if max_outputs > 1 else f"{base}/audio")
        a = v.audio
        a.sample_rate = sample_rate
        a.num_channels = channels
        a.length_frames = frames
        a.content_type = "audio/wav"
        a.encoded_audio_string = encode_wav(tensor[i].reshape(frames, channels), rate)
    return _string_scalar(s.SerializeToString())


def _audio_v2_kernel(tag, tensor, sample_rate, *, max_outputs):
    rate = np.asarray(sample_rate)
    if rate.ndim != 0:
        raise _invalid(f"sample_rate must be a scalar, got shape {_shape_str(rate.shape)}")
    return _audio_summary(tag, tensor, rate[()], max_outputs)


def _audio_v1_kernel(tag, tensor, *, sample_rate, max_outputs):
    return _audio_summary(tag, tensor, sample_rate, max_outputs)


op_registry.declare(
    "AudioSummaryV2",
    inputs=["tag: string", "tensor: float", "sample_rate: float"],
    outputs=["summary: string"],
    attrs=["max_outputs: int >= 1 = 3"],
    shape=_scalar_shape,
    kernel=_audio_v2_kernel,
    differentiable=False,
)

op_registry.declare(
    "AudioSummary",
    inputs=["tag: string", "tensor: float"],
    outputs=["summary: string"],
    attrs=["sample_rate: float", "max_outputs: int >= 1 = 3"],
    shape=_scalar_shape,
    kernel=_audio_v1_kernel,
    differentiable=False,
)


# ------------------------------------------------------------------------------------------
# TensorSummary, TensorSummaryV2
# ------------------------------------------------------------------------------------------


def _tensor_proto(tensor):
    arr = np.asarray(tensor)
    dtype = dtypes.string if arr.dtype == object else dtypes.as_dtype(arr.dtype)
    return tensor_util.make_tensor_proto(arr, dtype=dtype, shape=arr.shape)


def _tensor_summary_factory(ctx):
    name = ctx.name

    def run(tensor):
        s = summary_pb2.Summary()
        v = s.value.add(node_name=name)
        v.tensor.CopyFrom(_tensor_proto(tensor))
        return _string_scalar(s.SerializeToString())

    return run


def _tensor_summary_v2_kernel(tag, tensor, serialized_summary_metadata):
    s = summary_pb2.Summary()
    v = s.value.add(tag=_text(np.asarray(tag).reshape(-1)[0]))
    v.tensor.CopyFrom(_tensor_proto(tensor))
    meta = np.asarray(serialized_summary_metadata).reshape(-1)[0]
    v.metadata.ParseFromString(meta if isinstance(meta, bytes) else str(meta).encode())
    return _string_scalar(s.SerializeToString())


op_registry.declare(
    "TensorSummary",
    inputs=["tensor: T"],
    outputs=["summary: string"],
    attrs=["T: type", "description: string = ''", "labels: list(string) = []",
           "display_name: string = ''"],
    shape=_scalar_shape,
    kernel_factory=_tensor_summary_factory,
    differentiable=False,
)

op_registry.declare(
    "TensorSummaryV2",
    inputs=["tag: string", "tensor: T", "serialized_summary_metadata: string"],
    outputs=["summary: string"],
    attrs=["T: type"],
    shape=_scalar_shape,
    kernel=_tensor_summary_v2_kernel,
    differentiable=False,
)


# ------------------------------------------------------------------------------------------
# MergeSummary
# ------------------------------------------------------------------------------------------


def _merge_summary_kernel(inputs):
    # A serialized Summary is one repeated field, so concatenating the inputs merges them;
    # each input is still parsed, to check it and to find duplicate tags.
    tags = set()
    parts = []
    probe = summary_pb2.Summary()
    for x in inputs:
        for data in np.asarray(x, dtype=object).reshape(-1).tolist():
            if not isinstance(data, bytes):
                data = str(data).encode()
            try:
                probe.ParseFromString(data)
            except Exception:  # noqa: BLE001 - protobuf raises DecodeError subclasses
                raise _invalid("Could not parse one of the summary inputs") from None
            for v in probe.value:
                tag = v.tag
                if tag:
                    if tag in tags:
                        raise _invalid(f"Duplicate tag {tag} found in summary inputs")
                    tags.add(tag)
            parts.append(data)
    return _string_scalar(b"".join(parts))


op_registry.declare(
    "MergeSummary",
    inputs=["inputs: N * string"],
    outputs=["summary: string"],
    attrs=["N: int >= 1"],
    shape=_scalar_shape,
    kernel=_merge_summary_kernel,
    differentiable=False,
)
