"""Op-table rows for the summary ops: each serialized ``Summary`` parsed back and checked."""

import io
import wave

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.protos import summary_pb2
from tideflow.summary import summary as summ


def _s(*items, shape=None):
    out = np.empty(len(items), dtype=object)
    out[:] = [i.encode() if isinstance(i, str) else i for i in items]
    return out.reshape(shape if shape is not None else (len(items),))


def _scalar_ref(tags, values):
    s = summary_pb2.Summary()
    for t, v in zip(tags.reshape(-1), values.reshape(-1)):
        s.value.add(tag=t.decode(), simple_value=float(np.float32(v)))
    return np.array(s.SerializeToString(), dtype=object)


def _merge_ref(a, b):
    s = summary_pb2.Summary()
    for data in (a, b):
        s.MergeFromString(data[()] if data.ndim == 0 else data.reshape(-1)[0])
    return np.array(s.SerializeToString(), dtype=object)


def _parts(*summaries):
    return [np.array(x.SerializeToString(), dtype=object) for x in summaries]


_A = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="a", simple_value=1.0)])
_B = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="b", simple_value=2.0),
                                summary_pb2.Summary.Value(tag="c", simple_value=3.0)])


def _run_both(build, arrays):
    """Runs ``build(*placeholders)`` with known and unknown input shapes; returns the two
    parsed summaries after checking the static (scalar) shape of the output."""
    out = []
    for known in (True, False):
        with tf.Graph().as_default():
            phs = [tf.placeholder(tf.string if a.dtype == object else tf.as_dtype(a.dtype),
                                  shape=a.shape if known else None) for a in arrays]
            t = build(*phs)
            assert t.dtype == tf.string and t.get_shape().as_list() == []
            with tf.Session() as sess:
                data = sess.run(t, dict(zip(phs, arrays)))
        assert isinstance(data, bytes)
        out.append(summary_pb2.Summary.FromString(data))
    assert out[0] == out[1]
    return out[0]


def _check_histogram():
    rng = np.random.RandomState(0)
    for dtype in (np.float32, np.float64, np.int32, np.float16):
        x = (rng.standard_normal((7, 9)) * 100).astype(dtype)
        s = _run_both(lambda t, v: summ.histogram_summary(t, v), [_s("h", shape=()), x])
        (v,) = s.value
        assert v.tag == "h"
        h = v.histo
        x64 = x.astype(np.float64)
        assert h.min == x64.min() and h.max == x64.max() and h.num == x.size
        np.testing.assert_allclose(h.sum, x64.sum(), rtol=1e-12, atol=1e-9)
        np.testing.assert_allclose(h.sum_squares, (x64 * x64).sum(), rtol=1e-6)
        assert sum(h.bucket) == x.size


def _check_image():
    img = np.arange(2 * 3 * 4 * 3, dtype=np.uint8).reshape(2, 3, 4, 3)
    s = _run_both(lambda t, v: summ.image_summary(t, v, max_images=5), [_s("im", shape=()), img])
    assert [v.tag for v in s.value] == ["im/image/0", "im/image/1"]
    for v in s.value:
        assert (v.image.height, v.image.width, v.image.colorspace) == (3, 4, 3)
        assert v.image.encoded_image_string.startswith(b"\x89PNG\r\n\x1a\n")


def _check_audio(op_type):
    clip = np.sin(np.linspace(0, 20, 2 * 50)).astype(np.float32).reshape(2, 50)
    if op_type == "AudioSummaryV2":
        def build(t, v):
            return summ.audio_summary(t, v, 8000.0, max_outputs=1)
    else:
        def build(t, v):
            op = tf.get_default_graph().create_op(
                "AudioSummary", [t, v], [tf.string],
                attrs={"sample_rate": 8000.0, "max_outputs": 1})
            return op.outputs[0]
    s = _run_both(build, [_s("au", shape=()), clip])
    (v,) = s.value
    assert v.tag == "au/audio" and v.audio.sample_rate == 8000.0
    assert (v.audio.num_channels, v.audio.length_frames) == (1, 50)
    with wave.open(io.BytesIO(v.audio.encoded_audio_string)) as w:
        assert (w.getnchannels(), w.getframerate(), w.getnframes()) == (1, 8000, 50)


def _check_tensor_summary(op_type):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    if op_type == "TensorSummaryV2":
        meta = summary_pb2.SummaryMetadata(display_name="shown")

        def build(v):
            return summ.tensor_summary("ts", v, summary_metadata=meta)
    else:
        def build(v):
            return tf.get_default_graph().create_op("TensorSummary", [v], [tf.string],
                                                    name="ts").outputs[0]
    s = _run_both(build, [x])
    (v,) = s.value
    np.testing.assert_array_equal(tf.make_ndarray(v.tensor), x)
    if op_type == "TensorSummaryV2":
        assert v.tag == "ts" and v.metadata.display_name == "shown"
    else:
        assert v.node_name == "ts"


CASES = [
    Case("ScalarSummary", lambda t, v: summ.scalar_summary(t, v),
         [_s("a", "b/c"), np.array([1.5, -2.25])], _scalar_ref,
         dtypes=(tf.float32, tf.float64, tf.int32, tf.int64), grad=False),
    Case("ScalarSummary", lambda t, v: summ.scalar_summary(t, v),
         [_s("x", shape=()), np.array(3.0)], _scalar_ref, dtypes=(tf.float32,), grad=False,
         name="ScalarSummary_scalar"),
    Case("HistogramSummary", check=_check_histogram),
    Case("ImageSummary", check=_check_image),
    Case("AudioSummaryV2", check=lambda: _check_audio("AudioSummaryV2")),
    Case("AudioSummary", check=lambda: _check_audio("AudioSummary")),
    Case("TensorSummaryV2", check=lambda: _check_tensor_summary("TensorSummaryV2")),
    Case("TensorSummary", check=lambda: _check_tensor_summary("TensorSummary")),
    Case("MergeSummary", lambda a, b: summ.merge_summary([a, b]), _parts(_A, _B), _merge_ref,
         dtypes=(tf.string,), grad=False),
]
