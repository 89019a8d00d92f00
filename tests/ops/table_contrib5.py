"""Op-table rows for the contrib pieces of session 5: the ``tf.contrib.summary`` writer ops
(stateful: each check writes real event files and reads them back). None of these ops is
differentiable."""

import glob
import tempfile

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow import contrib_summary_v2  # noqa: F401 - declares the writer ops
from tideflow.framework import ops
from tideflow.protos import event_pb2, summary_pb2
from tideflow.summary.summary_iterator import summary_iterator


def _writer(logdir, name="w"):
    res = ops.apply_op("SummaryWriter", [], {"shared_name": name, "container": ""}).outputs[0]
    init = ops.apply_op("CreateSummaryFileWriter", [
        res, tf.constant(logdir), tf.constant(5), tf.constant(1000), tf.constant(".v2")], {})
    return res, init


def _events(logdir):
    (path,) = glob.glob(logdir + "/events.out.tfevents.*.v2")
    return list(summary_iterator(path))[1:]  # after the file_version event


def _run_writes(build, feeds=None):
    """Builds ``build(writer) -> [ops]`` with a fresh writer, runs init + ops + flush, and
    returns the events written (unknown-shape placeholders in ``feeds`` are fed)."""
    logdir = tempfile.mkdtemp()
    with tf.Graph().as_default():
        res, init = _writer(logdir)
        writes = build(res)
        flush = ops.apply_op("FlushSummaryWriter", [res], {})
        close = ops.apply_op("CloseSummaryWriter", [res], {})
        with tf.Session() as sess:
            sess.run(init)
            sess.run(writes, feeds(tf.get_default_graph()) if feeds else None)
            sess.run(flush)
            flushed = _events(logdir)
            sess.run(close)
    assert _events(logdir) == flushed  # closing adds nothing after a flush
    return flushed


def _step(n):
    return tf.constant(n, tf.int64)


def _check_scalar():
    for known in (True, False):
        def build(res, known=known):
            v = tf.placeholder(tf.float64, shape=[] if known else None, name="v")
            return [ops.apply_op("WriteScalarSummary",
                                 [res, _step(7), tf.constant("loss"), v], {})]
        (e,) = _run_writes(build, lambda g: {g.get_tensor_by_name("v:0"): 2.5})
        assert e.step == 7 and e.wall_time > 0
        assert [(v.tag, v.simple_value) for v in e.summary.value] == [("loss", 2.5)]
    # as TF's kernel (TensorValueAt(t, 0)): a tensor of any shape writes its first element;
    # an empty one is refused, naming the tag
    (e,) = _run_writes(lambda res: [ops.apply_op("WriteScalarSummary", [
        res, _step(0), tf.constant("vec"), tf.constant([[1.5, 2.0]])], {})])
    assert [(v.tag, v.simple_value) for v in e.summary.value] == [("vec", 1.5)]
    try:
        _run_writes(lambda res: [ops.apply_op("WriteScalarSummary", [
            res, _step(0), tf.constant("bad"), tf.zeros([0])], {})])
    except tf.errors.InvalidArgumentError as e:
        assert "bad" in str(e) and "empty" in str(e)
    else:
        raise AssertionError("an empty scalar summary was accepted")


def _check_histogram():
    x = np.random.RandomState(0).standard_normal(50)
    (e,) = _run_writes(lambda res: [ops.apply_op("WriteHistogramSummary", [
        res, _step(3), tf.constant("h"), tf.constant(x)], {})])
    h = e.summary.value[0].histo
    assert e.summary.value[0].tag == "h" and e.step == 3
    assert (h.min, h.max, h.num) == (x.min(), x.max(), 50) and sum(h.bucket) == 50
    np.testing.assert_allclose(h.sum, x.sum())


def _check_image_audio():
    img = np.linspace(0, 1, 2 * 3 * 4 * 3, dtype=np.float32).reshape(2, 3, 4, 3)
    clip = np.sin(np.linspace(0, 10, 40)).astype(np.float32).reshape(1, 40)

    def build(res):
        return [ops.apply_op("WriteImageSummary", [
                    res, _step(1), tf.constant("im"), tf.constant(img),
                    tf.constant([255, 0, 0, 255], tf.uint8)], {"max_images": 3}),
                ops.apply_op("WriteAudioSummary", [
                    res, _step(1), tf.constant("au"), tf.constant(clip), tf.constant(8000.0)],
                    {"max_outputs": 1})]
    events = _run_writes(build)
    tags = sorted(v.tag for e in events for v in e.summary.value)
    assert tags == ["au/audio", "im/image/0", "im/image/1"]
    for e in events:
        for v in e.summary.value:
            if v.HasField("image"):
                assert (v.image.height, v.image.width, v.image.colorspace) == (3, 4, 3)
            else:
                assert v.audio.sample_rate == 8000.0 and v.audio.length_frames == 40


def _check_generic_graph_import():
    meta = summary_pb2.SummaryMetadata(display_name="shown")
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    imported = event_pb2.Event(step=42, wall_time=1.0, summary=summary_pb2.Summary(
        value=[summary_pb2.Summary.Value(tag="imp", simple_value=3.0)]))
    gd = tf.GraphDef()
    gd.node.add(name="n", op="NoOp")

    def build(res):
        return [ops.apply_op("WriteSummary", [res, _step(2), tf.constant(x), tf.constant("t"),
                                              tf.constant(meta.SerializeToString())], {}),
                ops.apply_op("WriteSummary", [res, _step(8), tf.constant(x), tf.constant("u"),
                                              tf.constant(b"")], {}),
                ops.apply_op("WriteGraphSummary",
                             [res, _step(0), tf.constant(gd.SerializeToString())], {}),
                ops.apply_op("ImportEvent", [res, tf.constant(imported.SerializeToString())],
                             {})]
    events = {e.WhichOneof("what") + str(e.step): e for e in _run_writes(build)}
    t = events["summary2"].summary.value[0]
    assert t.tag == "t" and t.metadata.display_name == "shown"
    # as TF 2.21's WriteSummary kernel writes it: no metadata field for empty metadata
    assert not events["summary8"].summary.value[0].HasField("metadata")
    np.testing.assert_array_equal(tf.make_ndarray(t.tensor), x)
    assert tf.GraphDef.FromString(events["graph_def0"].graph_def) == gd
    assert events["summary42"] == imported


def _check_uninitialized():
    with tf.Graph().as_default():
        res = ops.apply_op("SummaryWriter", [], {"shared_name": "never", "container": ""})
        w = ops.apply_op("WriteScalarSummary",
                         [res.outputs[0], _step(0), tf.constant("x"), tf.constant(1.0)], {})
        with tf.Session() as sess:
            try:
                sess.run(w)
            except tf.errors.FailedPreconditionError as e:
                assert "not initialized" in str(e)
            else:
                raise AssertionError("a write to an uninitialized writer succeeded")
            sess.run(ops.apply_op("FlushSummaryWriter", [res.outputs[0]], {}))  # no-op


CASES = [
    Case(("SummaryWriter", "CreateSummaryFileWriter", "WriteScalarSummary",
          "FlushSummaryWriter", "CloseSummaryWriter"), check=_check_scalar,
         name="WriteScalarSummary"),
    Case("WriteHistogramSummary", check=_check_histogram),
    Case(("WriteImageSummary", "WriteAudioSummary"), check=_check_image_audio,
         name="WriteImageAudioSummary"),
    Case(("WriteSummary", "WriteGraphSummary", "ImportEvent"),
         check=_check_generic_graph_import, name="WriteSummary"),
    Case("SummaryWriter", check=_check_uninitialized, name="SummaryWriter_uninitialized"),
]


def _np_components(img):
    """Reference labels by flood fill: 4-connected equal non-zero pixels, each component
    labelled by its first pixel's row-major index over the batch, plus one."""
    out = np.zeros(img.shape, np.int64)
    for start in np.ndindex(img.shape):
        if img[start] == 0 or out[start]:
            continue
        label = np.ravel_multi_index(start, img.shape) + 1
        stack = [start]
        out[start] = label
        while stack:
            b, i, j = stack.pop()
            for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                p = (b, i + di, j + dj)
                if (0 <= p[1] < img.shape[1] and 0 <= p[2] < img.shape[2] and not out[p]
                        and img[p] == img[start]):
                    out[p] = label
                    stack.append(p)
    return out


def _check_connected_components():
    from tideflow import contrib_image_extra  # noqa: F401 - declares the op

    rng = np.random.RandomState(5)
    for dtype in (np.int32, np.float32, np.bool_):
        img = rng.randint(0, 3, size=(2, 6, 7)).astype(dtype)
        for known in (True, False):
            with tf.Graph().as_default():
                x = tf.placeholder(tf.as_dtype(img.dtype), img.shape if known else None)
                out = ops.apply_op("ImageConnectedComponents", [x], {}).outputs[0]
                assert out.dtype == tf.int64
                if known:
                    assert out.get_shape().as_list() == list(img.shape)
                with tf.Session() as sess:
                    got = sess.run(out, {x: img})
            np.testing.assert_array_equal(got, _np_components(img))


CASES.append(Case("ImageConnectedComponents", check=_check_connected_components))


def _check_bipartite_match():
    from tideflow.contrib_image_extra import bipartite_match

    dist = np.array([[0.9, 0.1, 0.5],
                     [0.2, 0.3, 0.8],
                     [0.4, 0.05, 0.6],
                     [0.0, 0.0, 0.0]], np.float32)
    # greedy by hand: (2,1)=0.05, then (1,0)=0.2, then (0,2)=0.5; row 3 is not valid
    for known, top_k, want_rows in ((True, -1, [2, 0, 1, -1]), (False, 2, [-1, 0, 1, -1])):
        with tf.Graph().as_default():
            d = tf.placeholder(tf.float32, dist.shape if known else None)
            rows, cols = bipartite_match(d, 3.0, top_k=top_k)
            if known:
                assert rows.get_shape().as_list() == [4] and cols.get_shape().as_list() == [3]
            with tf.Session() as sess:
                r, c = sess.run((rows, cols), {d: dist})
        np.testing.assert_array_equal(r, want_rows)
        for col, row in enumerate(c):
            assert row == -1 or r[row] == col


CASES.append(Case("BipartiteMatch", check=_check_bipartite_match))
