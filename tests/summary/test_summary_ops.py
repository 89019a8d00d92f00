"""Summary ops: serialized protos parsed back and checked against NumPy and TF's rules (tags from
name scopes and families, histogram buckets, PNG images, WAV audio, merging)."""

import io
import struct
import wave
import zlib

import numpy as np
import pytest

import tideflow as tf
from tideflow.protos import node_def_pb2, summary_pb2
from tideflow.summary import summary as summ

S = tf.summary if hasattr(tf, "summary") else __import__("tideflow.summary").summary


def _run(t, feed=None):
    with tf.Session() as sess:
        return summary_pb2.Summary.FromString(sess.run(t, feed))


# ------------------------------------------------------------------------------------------
# histogram reference: TF's Histogram written plainly (per-value upper_bound, empty runs merged)
# ------------------------------------------------------------------------------------------


def _ref_limits():
    pos, v = [], 1.0e-12
    while v < 1.0e20:
        pos.append(v)
        v *= 1.1
    pos.append(np.finfo(np.float64).max)
    return [-x for x in reversed(pos)] + [0.0] + pos


_LIMITS = np.array(_ref_limits())


def _ref_histogram(x):
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    counts = np.bincount(np.searchsorted(_LIMITS, x, side="right"), minlength=len(_LIMITS))
    limits, buckets = [], []
    i = 0
    while i < len(_LIMITS):
        end, count = _LIMITS[i], counts[i]
        i += 1
        if count <= 0:
            while i < len(_LIMITS) and counts[i] <= 0:
                end, count = _LIMITS[i], counts[i]
                i += 1
        limits.append(end)
        buckets.append(float(count))
    return limits, buckets


def _histogram_of(values, dtype=tf.float32):
    with tf.Graph().as_default():
        x = tf.placeholder(dtype)
        s = _run(S.histogram("h", x), {x: values})
    return s.value[0].histo


def test_default_buckets_are_tf_s():
    assert len(_LIMITS) == 1551  # 774 growing limits and DBL_MAX, mirrored, plus 0
    from tideflow.summary.summary_ops import BUCKET_LIMITS

    np.testing.assert_array_equal(BUCKET_LIMITS, _LIMITS)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.float16])
def test_histogram_matches_reference(dtype):
    rng = np.random.RandomState(1)
    x = np.concatenate([rng.standard_normal(20000) * 10.0 ** rng.randint(-8, 8, 20000),
                        [0.0, -0.0, 1e-13, -1e-13, 5.0, -5.0]])
    if np.dtype(dtype).kind == "i":
        x = np.round(x).clip(-1e9, 1e9)
    elif dtype == np.float16:
        x = x.clip(-6e4, 6e4)
    x = x.astype(dtype)
    h = _histogram_of(x, tf.as_dtype(dtype))
    limits, buckets = _ref_histogram(x)
    assert list(h.bucket_limit) == limits
    assert list(h.bucket) == buckets
    x64 = x.astype(np.float64)
    assert (h.min, h.max, h.num) == (x64.min(), x64.max(), x.size)
    np.testing.assert_allclose(h.sum, x64.sum(), rtol=1e-10, atol=1e-6)
    np.testing.assert_allclose(h.sum_squares, (x64 ** 2).sum(), rtol=1e-6)


def test_histogram_values_on_bucket_limits():
    # values exactly at limits, and their float32 neighbours, land as TF's upper_bound puts them
    picks = _LIMITS[700:860:7]
    x64 = np.concatenate([picks, np.nextafter(picks, -np.inf), np.nextafter(picks, np.inf)])
    h = _histogram_of(x64, tf.float64)
    assert (list(h.bucket_limit), list(h.bucket)) == _ref_histogram(x64)
    x32 = np.concatenate([picks.astype(np.float32),
                          np.nextafter(picks.astype(np.float32), np.float32(-np.inf)),
                          np.nextafter(picks.astype(np.float32), np.float32(np.inf))])
    h = _histogram_of(x32, tf.float32)
    assert (list(h.bucket_limit), list(h.bucket)) == _ref_histogram(x32)


def test_histogram_empty_and_single():
    h = _histogram_of(np.zeros([0], np.float32))
    dbl_max = np.finfo(np.float64).max
    assert (h.min, h.max, h.num, h.sum) == (dbl_max, -dbl_max, 0, 0)
    assert (list(h.bucket_limit), list(h.bucket)) == ([dbl_max], [0.0])
    h = _histogram_of(np.array([2.5], np.float32))
    assert (list(h.bucket_limit), list(h.bucket)) == _ref_histogram([2.5])
    assert (h.min, h.max, h.sum, h.sum_squares) == (2.5, 2.5, 2.5, 6.25)


@pytest.mark.parametrize("bad, word", [(np.nan, "Nan"), (np.inf, "Infinity"),
                                       (-np.inf, "Infinity")])
def test_histogram_non_finite_fails(bad, word):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
        with tf.name_scope("layer"):
            h = S.histogram("w", x)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                           match=f"{word} in summary histogram for: layer/w"):
            sess.run(h, {x: [1.0, bad, 2.0]})


# ------------------------------------------------------------------------------------------
# scalars, tags and scopes
# ------------------------------------------------------------------------------------------


def test_scalar_tag_is_scope_name():
    with tf.Graph().as_default():
        with tf.name_scope("train"):
            a = S.scalar("loss", tf.constant(1.5))
            b = S.scalar("loss", tf.constant(2, tf.int64))
        c = S.scalar("acc", tf.constant(0.25), family="metrics")
        d = S.scalar("bad name:x", tf.constant(1.0))
        assert [t.op.name for t in (a, b, c, d)] == ["train/loss", "train/loss_1",
                                                      "metrics/acc", "bad_name_x"]
        assert a.dtype == tf.string and a.get_shape().as_list() == []
        assert a.op.type == "ScalarSummary"
        got = [(v.tag, v.simple_value) for t in (a, b, c, d) for v in _run(t).value]
    assert got == [("train/loss", 1.5), ("train/loss_1", 2.0), ("metrics/metrics/acc", 0.25),
                   ("bad_name_x", 1.0)]


def test_family_under_scope():
    with tf.Graph().as_default():
        with tf.name_scope("tower0"):
            h = S.histogram("w", tf.constant([1.0, 2.0]), family="weights")
        assert h.op.name == "tower0/weights/w"
        assert _run(h).value[0].tag == "weights/tower0/weights/w"


def test_scalar_of_vector_fails_at_run_time():
    with tf.Graph().as_default():
        s = S.scalar("x", tf.constant([1.0, 2.0]))
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"tags and values not the same shape: \[\] != \[2\] "
                                 r"\(tag 'x'\)"):
            sess.run(s)


def test_scalar_summary_08_with_tag_tensor():
    with tf.Graph().as_default():
        tags = tf.constant(["a/b c", "d"])
        s = summ.scalar_summary(tags, tf.constant([1.0, 2.0]))
        assert s.op.name == "ScalarSummary"
        assert s in tf.get_collection(tf.GraphKeys.SUMMARIES)
        assert [(v.tag, v.simple_value) for v in _run(s).value] == [("a/b c", 1.0), ("d", 2.0)]
        s2 = summ.scalar_summary("plain tag", tf.constant(3.0), collections=["mine"], name="n")
        assert s2.op.name == "n" and tf.get_collection("mine") == [s2]
        assert _run(s2).value[0].tag == "plain tag"


# ------------------------------------------------------------------------------------------
# merge
# ------------------------------------------------------------------------------------------


def test_merge_and_merge_all_with_collections():
    with tf.Graph().as_default():
        assert S.merge_all() is None
        a = S.scalar("a", tf.constant(1.0))
        with tf.name_scope("inner"):
            b = S.histogram("b", tf.constant([1.0, 2.0]))
        c = S.scalar("c", tf.constant(3.0), collections=["extra"])
        assert tf.get_collection(tf.GraphKeys.SUMMARIES) == [a, b]
        m = S.merge_all()
        assert m.op.type == "MergeSummary" and m.op.name == "Merge/MergeSummary"
        assert [v.tag for v in _run(m).value] == ["a", "inner/b"]
        assert [v.tag for v in _run(S.merge_all(scope="inner")).value] == ["inner/b"]
        assert [v.tag for v in _run(S.merge_all("extra")).value] == ["c"]
        m2 = S.merge([a, c], collections=["merged"], name="both")
        assert m2.op.name == "both/both" and tf.get_collection("merged") == [m2]
        assert [v.tag for v in _run(m2).value] == ["a", "c"]
        assert summ.merge_all_summaries("extra").op.name == "MergeSummary/MergeSummary"  # as TF 1.x
        nested = summ.merge_summary([m2, b])
        assert [v.tag for v in _run(nested).value] == ["a", "c", "inner/b"]


def test_merge_duplicate_tag_fails():
    with tf.Graph().as_default():
        a = summ.scalar_summary("same", tf.constant(1.0))
        b = summ.scalar_summary("same", tf.constant(2.0))
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="Duplicate tag same found in summary inputs"):
                sess.run(S.merge([a, b]))
            with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse"):
                sess.run(S.merge([a, tf.constant("\x0a\x05junk")]))


# ------------------------------------------------------------------------------------------
# images: decoded with a PNG reader written here
# ------------------------------------------------------------------------------------------


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def _read_png(data):
    """(height, width, channels) uint8 array of an 8-bit non-interlaced PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert zlib.crc32(kind + body) == crc
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and interlace == 0
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    c = {0: 1, 4: 2, 2: 3, 6: 4}[ctype]
    raw = zlib.decompress(idat)
    stride = w * c
    out = np.zeros((h, stride), dtype=np.int64)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int64)
        prev = out[y - 1] if y else np.zeros(stride, np.int64)
        for x in range(stride):
            a = out[y, x - c] if x >= c else 0
            b, cc = prev[x], (prev[x - c] if x >= c else 0)
            pred = (0, a, b, (a + b) // 2, _paeth(a, b, cc))[f]
            out[y, x] = (line[x] + pred) & 0xFF
    return out.astype(np.uint8).reshape(h, w, c)


def _images(t, feed=None):
    s = _run(t, feed)
    return [(v.tag, v.image, _read_png(v.image.encoded_image_string)) for v in s.value]


@pytest.mark.parametrize("channels", [1, 3, 4])
def test_uint8_images_round_trip(channels):
    rng = np.random.RandomState(channels)
    x = rng.randint(0, 256, (4, 5, 7, channels)).astype(np.uint8)
    with tf.Graph().as_default():
        got = _images(S.image("img", tf.constant(x)))
    assert [t for t, _, _ in got] == ["img/image/0", "img/image/1", "img/image/2"]
    for i, (_, proto, pixels) in enumerate(got):
        assert (proto.height, proto.width, proto.colorspace) == (5, 7, channels)
        np.testing.assert_array_equal(pixels, x[i])
    try:
        from PIL import Image
    except ImportError:
        return
    pil = np.asarray(Image.open(io.BytesIO(got[0][1].encoded_image_string)))
    np.testing.assert_array_equal(pil.reshape(5, 7, channels), x[0])


def test_float_images_are_normalized_as_tf():
    pos = np.linspace(0.0, 0.5, 2 * 3 * 3).reshape(1, 2, 3, 3).astype(np.float32)
    neg = np.linspace(-2.0, 1.0, 2 * 3 * 3).reshape(1, 2, 3, 3).astype(np.float32)
    bad = pos.copy()
    bad[0, 0, 0, 1] = np.nan  # the pixel holding the max stays finite
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2, 3, 3])
        img = S.image("f", x, max_outputs=1)
        (tag, _, p), = _images(img, {x: pos})
        assert tag == "f/image"
        np.testing.assert_array_equal(p, np.trunc(pos[0] * np.float32(255 / 0.5)).astype(np.uint8))
        (_, _, p), = _images(img, {x: neg})
        want = np.trunc(neg[0] * np.float32(127 / 2.0) + 128).astype(np.uint8)
        np.testing.assert_array_equal(p, want)
        (_, _, p), = _images(img, {x: bad})
        np.testing.assert_array_equal(p[0, 0], [255, 0, 0])  # TF's bad_color: red
        good = np.trunc(pos[0] * np.float32(255 / 0.5)).astype(np.uint8)
        np.testing.assert_array_equal(p[1], good[1])


def test_image_errors():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
        img = S.image("i", x)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Tensor must be 4-D with last dim 1, 3, or 4, not \[1,2,2,2\]"):
            sess.run(img, {x: np.zeros([1, 2, 2, 2])})
        with pytest.raises(TypeError):
            S.image("i2", tf.constant([[[[1]]]], tf.int32))


# ------------------------------------------------------------------------------------------
# audio
# ------------------------------------------------------------------------------------------


def _wav(data):
    with wave.open(io.BytesIO(data)) as w:
        frames = np.frombuffer(w.readframes(w.getnframes()), "<i2")
        return w.getnchannels(), w.getsampwidth(), w.getframerate(), frames


def test_audio_wav():
    rng = np.random.RandomState(0)
    x = rng.uniform(-1.2, 1.2, (3, 40, 2)).astype(np.float32)
    with tf.Graph().as_default():
        rate = tf.placeholder(tf.float32, [])
        s = _run(S.audio("snd", tf.constant(x), rate, max_outputs=2), {rate: 16000.0})
    assert [v.tag for v in s.value] == ["snd/audio/0", "snd/audio/1"]
    for i, v in enumerate(s.value):
        a = v.audio
        assert (a.sample_rate, a.num_channels, a.length_frames, a.content_type) == (
            16000.0, 2, 40, "audio/wav")
        data = a.encoded_audio_string
        assert data[:4] == b"RIFF" and data[8:16] == b"WAVEfmt " and len(data) == 44 + 40 * 4
        channels, width, framerate, frames = _wav(data)
        assert (channels, width, framerate) == (2, 2, 16000)
        scaled = np.clip(x[i].astype(np.float64) * 32768, -32768, 32767)
        want = np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)
        np.testing.assert_array_equal(frames, want.reshape(-1))


def test_audio_summary_08_and_errors():
    with tf.Graph().as_default():
        s = summ.audio_summary("a", tf.zeros([1, 10]), 44100, max_outputs=1)
        (v,) = _run(s).value
        assert v.tag == "a/audio" and v.audio.num_channels == 1
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="sample_rate must be > 0"):
                sess.run(S.audio("b", tf.zeros([1, 10]), 0.0))
            with pytest.raises(tf.errors.InvalidArgumentError, match="Tensor must be 3-D or 2-D"):
                sess.run(S.audio("c", tf.zeros([10]), 8000.0))


# ------------------------------------------------------------------------------------------
# text and tensor summaries
# ------------------------------------------------------------------------------------------


def test_text_summary_has_text_plugin_metadata():
    with tf.Graph().as_default():
        t = S.text("notes", tf.constant(["**bold**", "b"]))
        (v,) = _run(t).value
        assert v.tag == "notes" and t.op.type == "TensorSummaryV2"
        assert v.metadata.plugin_data.plugin_name == "text"
        assert list(tf.make_ndarray(v.tensor)) == [b"**bold**", b"b"]
        with pytest.raises(ValueError, match="to have dtype string"):
            S.text("n", tf.constant(1.0))


def test_tensor_summary_and_description():
    with tf.Graph().as_default():
        x = np.arange(6, dtype=np.int32).reshape(2, 3)
        t = S.tensor_summary("t", tf.constant(x), summary_description="desc", display_name="T")
        (v,) = _run(t).value
        assert v.tag == "t" and (v.metadata.display_name, v.metadata.summary_description) == (
            "T", "desc")
        np.testing.assert_array_equal(tf.make_ndarray(v.tensor), x)
    nd = node_def_pb2.NodeDef(op="TensorSummary")
    nd.attr["description"].s = b'{"type_hint": "scalar"}'
    assert S.get_summary_description(nd).type_hint == "scalar"
    with pytest.raises(ValueError, match="Can't get_summary_description on Const"):
        S.get_summary_description(node_def_pb2.NodeDef(op="Const"))


def test_summary_ops_in_graph_def_round_trip():
    with tf.Graph().as_default() as g:
        S.image("img", tf.zeros([1, 2, 2, 3]))
        gd = g.as_graph_def()
    node = next(n for n in gd.node if n.op == "ImageSummary")
    assert list(tf.make_ndarray(node.attr["bad_color"].tensor)) == [255, 0, 0, 255]
    assert node.attr["max_images"].i == 3
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        out = tf.get_default_graph().get_tensor_by_name("img:0")
        assert _run(out).value[0].tag == "img/image/0"
