"""FileWriter event files: read back with ``summary_iterator`` and with TensorBoard's own
``EventAccumulator``; flushing, the bounded queue, close/reopen and FileWriterCache."""

import os
import re
import socket
import threading
import time

import numpy as np
import pytest

import tideflow as tf
from tideflow.protos import config_pb2, event_pb2, graph_pb2, summary_pb2
from tideflow.summary import summary as summ
from tideflow.summary.summary_iterator import summary_iterator
from tideflow.summary.writer import FileWriter, FileWriterCache, SummaryWriter

S = tf.summary if hasattr(tf, "summary") else __import__("tideflow.summary").summary


def _files(logdir):
    return sorted(os.path.join(logdir, f) for f in os.listdir(logdir)
                  if f.startswith("events.out.tfevents."))


def _events(logdir):
    (path,) = _files(logdir)
    return list(summary_iterator(path))


def _scalar(tag, value):
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, simple_value=value)])


def test_file_name_version_steps_and_wall_time(tmp_path):
    logdir = str(tmp_path / "run")  # created by the writer
    t0 = time.time()
    w = FileWriter(logdir, filename_suffix=".v2")
    assert w.get_logdir() == logdir
    w.add_summary(_scalar("a", 1.0), global_step=7)
    w.add_summary(_scalar("a", 2.0).SerializeToString(), np.int64(8))
    w.add_summary(_scalar("b", 3.0))
    w.close()
    (path,) = _files(logdir)
    name = os.path.basename(path)
    assert re.fullmatch(r"events\.out\.tfevents\.\d{10}\." + re.escape(socket.gethostname())
                        + r"\.v2", name)
    assert abs(int(name.split(".")[3]) - t0) < 5
    events = list(summary_iterator(path))
    assert events[0].file_version == "brain.Event:2"
    got = [(e.step, e.summary.value[0].tag, e.summary.value[0].simple_value) for e in events[1:]]
    assert got == [(7, "a", 1.0), (8, "a", 2.0), (0, "b", 3.0)]
    for e in events:
        assert t0 - 1 <= e.wall_time <= time.time() + 1


def test_graph_and_meta_graph(tmp_path):
    with tf.Graph().as_default() as g, tf.name_scope("layer"):
        tf.matmul(tf.constant([[1.0]]), tf.constant([[2.0]]), name="mm")
    w = FileWriter(str(tmp_path), g)
    w.add_graph(None, global_step=3, graph_def=g.as_graph_def())  # the deprecated form
    with pytest.raises(ValueError, match="only graph, or graph_def"):
        w.add_graph(g, graph_def=g.as_graph_def())
    with pytest.raises(TypeError, match="instance of `Graph`"):
        w.add_graph("nope")
    with pytest.raises(TypeError, match="must be type MetaGraphDef"):
        w.add_meta_graph(g.as_graph_def())
    w.close()
    events = _events(str(tmp_path))
    kinds = [e.WhichOneof("what") for e in events]
    assert kinds == ["file_version", "graph_def", "meta_graph_def", "graph_def"]
    gd = graph_pb2.GraphDef.FromString(events[1].graph_def)
    assert gd == g.as_graph_def(add_shapes=True)
    assert [n.name for n in gd.node] == [n.name for n in g.as_graph_def().node]
    assert "layer/mm" in [n.name for n in gd.node]
    from tideflow.protos import meta_graph_pb2

    meta = meta_graph_pb2.MetaGraphDef.FromString(events[2].meta_graph_def)
    assert meta.graph_def == gd
    assert graph_pb2.GraphDef.FromString(events[3].graph_def) == g.as_graph_def()
    assert events[3].step == 3


def test_run_metadata_session_log_and_metadata_once(tmp_path):
    w = FileWriter(str(tmp_path))
    rm = config_pb2.RunMetadata()
    w.add_run_metadata(rm, "step1", global_step=1)
    with pytest.raises(ValueError, match="already used"):
        w.add_run_metadata(rm, "step1")
    w.add_session_log(event_pb2.SessionLog(status=event_pb2.SessionLog.START), 5)
    with tf.Graph().as_default():
        t = S.text("note", tf.constant("hi"))
        with tf.Session() as sess:
            data = sess.run(t)
    w.add_summary(data, 1)
    w.add_summary(data, 2)
    w.close()
    events = _events(str(tmp_path))
    assert events[1].tagged_run_metadata.tag == "step1" and events[1].step == 1
    assert config_pb2.RunMetadata.FromString(events[1].tagged_run_metadata.run_metadata) == rm
    assert events[2].session_log.status == event_pb2.SessionLog.START and events[2].step == 5
    # plugin metadata only with the first value of a tag, as TF's writer does
    assert events[3].summary.value[0].metadata.plugin_data.plugin_name == "text"
    assert not events[4].summary.value[0].HasField("metadata")


def test_flush_and_flush_secs(tmp_path):
    slow = FileWriter(str(tmp_path / "slow"), flush_secs=120)
    slow.add_summary(_scalar("x", 1.0), 1)
    deadline = time.time() + 5
    while len(_events(str(tmp_path / "slow"))) < 2 and time.time() < deadline:
        time.sleep(0.05)
    assert len(_events(str(tmp_path / "slow"))) == 2  # as TF, the first event is flushed at once
    slow.add_summary(_scalar("x", 2.0), 2)
    time.sleep(0.3)
    assert len(_events(str(tmp_path / "slow"))) == 2  # the next ones wait for flush_secs
    slow.flush()
    assert len(_events(str(tmp_path / "slow"))) == 3
    fast = FileWriter(str(tmp_path / "fast"), flush_secs=0.2)
    fast.add_summary(_scalar("x", 1.0), 1)
    deadline = time.time() + 5
    while len(_events(str(tmp_path / "fast"))) < 2 and time.time() < deadline:
        time.sleep(0.05)
    assert len(_events(str(tmp_path / "fast"))) == 2  # flushed by the thread, no call needed
    slow.close()
    fast.close()


def test_bounded_queue_blocks_until_written(tmp_path):
    w = FileWriter(str(tmp_path), max_queue=3)
    done = threading.Event()

    def produce():
        for i in range(10):
            w.add_summary(_scalar("q", float(i)), i)
        done.set()

    with w.event_writer._lock:  # stall the writing thread
        t = threading.Thread(target=produce)
        t.start()
        assert not done.wait(0.5)  # the producer waits on the full queue
    t.join(5)
    assert done.is_set()
    w.close()
    assert [e.step for e in _events(str(tmp_path))[1:]] == list(range(10))


def test_close_reopen(tmp_path):
    w = FileWriter(str(tmp_path))
    w.add_summary(_scalar("a", 1.0), 1)
    w.close()
    w.close()  # idempotent
    with pytest.warns(UserWarning, match="closed FileWriter"):  # dropped, as TF warns
        w.add_summary(_scalar("a", 2.0), 2)
    w.reopen()
    w.add_summary(_scalar("a", 3.0), 3)
    w.flush()
    w.close()
    first, second = _files(str(tmp_path))
    assert [e.step for e in summary_iterator(first)] == [0, 1]
    again = list(summary_iterator(second))
    assert again[0].file_version == "brain.Event:2" and [e.step for e in again[1:]] == [3]


def test_context_manager_and_summary_writer_alias(tmp_path):
    with SummaryWriter(str(tmp_path / "old"), flush_secs=10) as w:
        assert isinstance(w, FileWriter)
        w.add_summary(_scalar("s", 1.0), 1)
    assert [e.step for e in _events(str(tmp_path / "old"))] == [0, 1]


def test_file_writer_cache(tmp_path):
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    with tf.Graph().as_default():
        w = FileWriterCache.get(a)
        assert FileWriterCache.get(a) is w and FileWriterCache.get(b) is not w
        FileWriterCache.clear()
        assert FileWriterCache.get(a) is not w
        FileWriterCache.clear()
    kinds = [e.WhichOneof("what") for e in summary_iterator(_files(a)[0])]
    assert kinds == ["file_version", "graph_def", "meta_graph_def"]


def test_training_loop_writes_every_step(tmp_path):
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 3])
        w = tf.Variable(np.ones([3, 1], np.float32))
        loss = tf.reduce_mean(tf.matmul(x, w))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        S.scalar("loss", loss)
        S.histogram("w", w)
        merged = S.merge_all()
        writer = FileWriter(str(tmp_path), g)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(5):
                s, _ = sess.run([merged, train], {x: np.ones([2, 3], np.float32) * step})
                writer.add_summary(s, step)
        writer.close()
    steps = [e.step for e in _events(str(tmp_path)) if e.HasField("summary")]
    assert steps == list(range(5))


# ------------------------------------------------------------------------------------------
# TensorBoard's own reader
# ------------------------------------------------------------------------------------------


def _accumulator(logdir):
    ea = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator",
                             reason="tensorboard is not installed")
    acc = ea.EventAccumulator(logdir, size_guidance={ea.SCALARS: 0, ea.HISTOGRAMS: 0,
                                                     ea.IMAGES: 0, ea.AUDIO: 0, ea.TENSORS: 0})
    acc.Reload()
    return acc


def test_tensorboard_reads_our_event_files(tmp_path):
    rng = np.random.RandomState(0)
    with tf.Graph().as_default() as g:
        with tf.device("/cpu:0"):
            x = tf.placeholder(tf.float32, [None, 4], name="input")
            with tf.name_scope("layer1"):
                w = tf.Variable(rng.standard_normal((4, 2)).astype(np.float32), name="weights")
                y = tf.matmul(x, w, name="matmul")
        loss = tf.reduce_mean(y, name="loss_value")
        S.scalar("loss", loss)
        S.histogram("weights", w, family="params")
        S.image("digits", tf.reshape(tf.cast(x * 50, tf.uint8), [-1, 2, 2, 1]), max_outputs=1)
        S.audio("tone", tf.sin(tf.reshape(x, [-1, 4])), 8000, max_outputs=1)
        S.text("notes", tf.constant("step notes"))
        merged = S.merge_all()
        feeds = [rng.uniform(0, 1, (3, 4)).astype(np.float32) for _ in range(4)]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            results = [sess.run([merged, loss], {x: f}) for f in feeds]
        writer = FileWriter(str(tmp_path), g)
        for step, (s, _) in enumerate(results):
            writer.add_summary(s, 10 * step)
        writer.close()
        graph_def = g.as_graph_def()

    acc = _accumulator(str(tmp_path))
    tags = acc.Tags()
    assert tags["scalars"] == ["loss"]
    assert tags["histograms"] == ["params/params/weights"]
    assert tags["images"] == ["digits/image"]
    assert tags["audio"] == ["tone/audio"]
    assert tags["graph"] and tags["meta_graph"]
    scalars = acc.Scalars("loss")
    assert [e.step for e in scalars] == [0, 10, 20, 30]
    np.testing.assert_allclose([e.value for e in scalars], [r[1] for r in results], rtol=1e-6)
    histo = acc.Histograms("params/params/weights")[0].histogram_value
    assert histo.num == 8 and sum(histo.bucket) == 8
    assert histo.min <= histo.max
    img = acc.Images("digits/image")[-1]
    assert (img.step, img.width, img.height) == (30, 2, 2)
    assert img.encoded_image_string.startswith(b"\x89PNG")
    aud = acc.Audio("tone/audio")[0]
    assert aud.content_type == "audio/wav" and aud.sample_rate == 8000
    text = acc.Tensors("notes")[0]
    assert text.tensor_proto.string_val == [b"step notes"]

    tb_graph = acc.Graph()
    nodes = {n.name: n for n in tb_graph.node}
    assert set(nodes) == {n.name for n in graph_def.node}
    assert nodes["layer1/matmul"].op == "MatMul"
    assert list(nodes["layer1/matmul"].input) == ["input", "layer1/weights/read"]
    assert nodes["layer1/matmul"].device.lower().endswith("cpu:0")
    assert nodes["input"].device.lower().endswith("cpu:0")
    assert not nodes["loss_value"].device
    assert "_output_shapes" in nodes["layer1/matmul"].attr
    assert {n.name for n in acc.MetaGraph().graph_def.node} == set(nodes)


def test_tensorboard_reads_reopened_runs(tmp_path):
    w = FileWriter(str(tmp_path))
    w.add_summary(_scalar("s", 1.0), 1)
    w.close()
    w.reopen()
    w.add_summary(_scalar("s", 2.0), 2)
    w.close()
    acc = _accumulator(str(tmp_path))
    assert [(e.step, e.value) for e in acc.Scalars("s")] == [(1, 1.0), (2, 2.0)]


def test_scalar_summary_08_names_read_by_tensorboard(tmp_path):
    with tf.Graph().as_default():
        s = summ.scalar_summary(["a", "b"], tf.constant([1.0, 2.0]))
        with tf.Session() as sess:
            data = sess.run(s)
    with SummaryWriter(str(tmp_path)) as w:
        w.add_summary(data, 4)
    acc = _accumulator(str(tmp_path))
    assert [acc.Scalars(t)[0].value for t in ("a", "b")] == [1.0, 2.0]
