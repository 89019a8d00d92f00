"""FULL_TRACE step stats, partition graphs, Chrome traces and the text profile."""

import json

import numpy as np

import tideflow as tf
from tideflow import timeline

CPU = "/job:localhost/replica:0/task:0/device:CPU:"


def _graph():
    x = tf.placeholder(tf.float32, [4, 4], name="x")
    with tf.device("/cpu:0"):
        w = tf.Variable(np.eye(4, dtype=np.float32), name="w")
        a = tf.matmul(x, w, name="a")
    with tf.device("/cpu:1"):
        b = tf.nn.relu(a, name="b")
        c = tf.reduce_sum(b, name="c")
    return x, w, c


def _traced_run(s, fetch, feed):
    opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE, output_partition_graphs=True)
    md = tf.RunMetadata()
    out = s.run(fetch, feed, options=opts, run_metadata=md)
    return out, md


def test_step_stats_per_device_and_per_node():
    with tf.Graph().as_default():
        x, w, c = _graph()
        cfg = tf.ConfigProto(device_count={"CPU": 2})
        with tf.Session(config=cfg) as s:
            s.run(w.initializer)
            feed = {x: np.ones((4, 4), np.float32)}
            plain = s.run(c, feed)
            out, md = _traced_run(s, c, feed)
            assert out == plain == 16.0
            plan = next(p for p in s._plans.values() if hasattr(p, "plans"))
            assert all("__rec__" not in p.source for p in plan.plans)  # untraced stays lean
    devs = {d.device: d for d in md.step_stats.dev_stats}
    # TF 1.15's FULL_TRACE: its host tracer's '/host:CPU' first, then each device
    assert md.step_stats.dev_stats[0].device == "/host:CPU"
    assert set(devs) == {"/host:CPU", CPU + "0", CPU + "1"}
    nodes0 = {n.node_name: n for n in devs[CPU + "0"].node_stats}
    nodes1 = {n.node_name: n for n in devs[CPU + "1"].node_stats}
    assert {"a", "w"} <= set(nodes0)
    assert {"b", "c"} <= set(nodes1)
    assert any(n.timeline_label.split(" = ")[1].startswith("_Send") for n in nodes0.values())
    assert any(n.timeline_label.split(" = ")[1].startswith("_Recv") for n in nodes1.values())
    a = nodes0["a"]
    assert a.timeline_label == "a = MatMul(_arg_x_0_0, w/read)"  # TF 1.15: the feed's _Arg
    assert a.all_start_micros > 0
    assert a.op_end_rel_micros >= a.op_start_rel_micros
    assert a.all_end_rel_micros >= a.op_end_rel_micros
    assert a.thread_id == 0  # TF 1.15: the device's stats name no thread; the host's do
    host = {n.node_name: n for n in devs["/host:CPU"].node_stats}
    assert host["a:MatMul"].thread_id != 0
    assert host["a:MatMul"].timeline_label.endswith(f",device={CPU}0,async=false")
    td = a.output[0].tensor_description
    assert td.dtype == tf.float32.as_datatype_enum
    assert [d.size for d in td.shape.dim] == [4, 4]
    assert td.allocation_description.allocated_bytes == 64
    assert nodes1["b"].timeline_label.startswith("b = Relu(a/_")
    assert len(md.partition_graphs) == 2
    ops_ = [n.op for gd in md.partition_graphs for n in gd.node]
    assert ops_.count("_Send") == ops_.count("_Recv") == 1


def test_single_device_trace_and_chrome_trace():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [8], name="x")
        y = tf.square(x, name="y")
        z = tf.reduce_mean(y + 1.0, name="z")
        with tf.Session() as s:
            out, md = _traced_run(s, z, {x: np.arange(8, dtype=np.float32)})
            assert abs(out - (np.arange(8) ** 2 + 1).mean()) < 1e-5
    assert len(md.step_stats.dev_stats) == 2  # ('/host:CPU', then the device)
    names = {n.node_name for n in md.step_stats.dev_stats[1].node_stats}
    assert {"y", "z"} <= names
    trace = json.loads(timeline.Timeline(md.step_stats).generate_chrome_trace_format(
        show_memory=True))
    ev = trace["traceEvents"]
    complete = {e["args"]["name"] for e in ev if e["ph"] == "X"}
    assert names == complete
    assert any(e["ph"] == "M" and e["name"] == "process_name" for e in ev)
    assert any(e["ph"] == "C" for e in ev)


def test_chrome_trace_has_flows_for_send_recv():
    with tf.Graph().as_default():
        x, w, c = _graph()
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as s:
            s.run(w.initializer)
            _, md = _traced_run(s, c, {x: np.ones((4, 4), np.float32)})
    trace = json.loads(timeline.Timeline(md.step_stats).generate_chrome_trace_format())
    ev = trace["traceEvents"]
    all_nodes = {n.node_name for d in md.step_stats.dev_stats for n in d.node_stats
                 if d.device != "/host:CPU"}
    assert {e["args"]["name"] for e in ev if e["ph"] == "X"} == all_nodes
    pids = {e["pid"] for e in ev if e["ph"] == "X"}
    assert len(pids) == 2
    starts = [e for e in ev if e["ph"] == "s"]
    ends = [e for e in ev if e["ph"] == "t"]
    assert starts and len(starts) == len(ends)
    assert any(s_["pid"] != t_["pid"] for s_, t_ in zip(starts, ends))
    text = timeline.top_ops(md.step_stats, n=3)
    assert len(text.splitlines()) == 5 and "total over" in text
    by_type = timeline.top_ops(md.step_stats, n=20, by="type")
    assert "MatMul" in by_type


def test_traced_steps_feed_the_cost_model():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [8])
        y = tf.square(x, name="sq")
        with tf.Session() as s:
            _traced_run(s, y, {x: np.ones(8, np.float32)})
            assert "sq" in s._measured
