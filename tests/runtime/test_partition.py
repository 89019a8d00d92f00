"""Partitioning across CPU devices: results match one device, one Recv per tensor per
destination, control edges, loops and conds, partition graphs, bfloat16 transfers."""

import ml_dtypes
import numpy as np
import pytest

import tideflow as tf
from tideflow.runtime.parallel import MultiPlan

CPU = "/job:localhost/replica:0/task:0/device:CPU:"


def _config(n=2, **kw):
    return tf.ConfigProto(device_count={"CPU": n}, inter_op_parallelism_threads=1, **kw)


def _train(devices, steps=5):
    rng = np.random.RandomState(0)
    xs = rng.standard_normal((16, 8)).astype(np.float32)
    ys = rng.standard_normal((16, 1)).astype(np.float32)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        with tf.device(devices[1]):
            w1 = tf.Variable(rng.standard_normal((8, 6)).astype(np.float32) * 0.3, name="w1")
            w2 = tf.Variable(rng.standard_normal((6, 1)).astype(np.float32) * 0.3, name="w2")
        x = tf.placeholder(tf.float32, [None, 8])
        y = tf.placeholder(tf.float32, [None, 1])
        with tf.device(devices[0]):
            h = tf.nn.relu(tf.matmul(x, w1))
            loss = tf.reduce_mean(tf.square(tf.matmul(h, w2) - y))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        losses = []
        with tf.Session(config=_config()) as s:
            s.run(tf.global_variables_initializer())
            for _ in range(steps):
                losses.append(s.run([train, loss], {x: xs, y: ys})[1])
            plan = s._plans[max(s._plans, key=lambda k: len(k[0]) + len(k[2]))]
            return losses, s.run(w1), s.run(w2), plan


def test_variable_on_cpu1_trained_by_model_on_cpu0_matches_single_device():
    ref = _train(["/cpu:0", "/cpu:0"])
    got = _train(["/cpu:0", "/cpu:1"])
    assert isinstance(got[3], MultiPlan)
    assert not isinstance(ref[3], MultiPlan)
    np.testing.assert_allclose(ref[0], got[0], rtol=1e-5)
    np.testing.assert_allclose(ref[1], got[1], rtol=1e-5)
    np.testing.assert_allclose(ref[2], got[2], rtol=1e-5)
    assert got[0][-1] < got[0][0]
    placed = {op.name: d.name for op, d in got[3].placement.items()}
    assert placed["w1"] == CPU + "1"
    assert any(n.endswith("ApplyGradientDescent") and d == CPU + "1" for n, d in placed.items())


def test_one_recv_per_tensor_per_destination_device():
    with tf.Graph().as_default():
        with tf.device("/cpu:0"):
            x = tf.placeholder(tf.float32, [3])
            a = tf.square(x, name="a")
        with tf.device("/cpu:1"):
            outs = [tf.add(a, float(i)) for i in range(3)]  # three consumers of a
            b = tf.add_n(outs)
        with tf.device("/cpu:2"):
            c = a * 2.0
            d = a * 3.0
        e = b + c + d
        opts = tf.RunOptions(output_partition_graphs=True)
        md = tf.RunMetadata()
        with tf.Session(config=_config(3)) as s:
            v = s.run(e, {x: [1.0, 2.0, 3.0]}, options=opts, run_metadata=md)
            xv = np.array([1.0, 2.0, 3.0], np.float32)
            np.testing.assert_allclose(v, 3 * xv**2 + 3 + 5 * xv**2)
            plan = next(iter(s._plans.values()))
    assert len(md.partition_graphs) == 3
    recvs = [(gd.node[0].device, n) for gd in md.partition_graphs for n in gd.node
             if n.op == "_Recv"]
    sends = [n for gd in md.partition_graphs for n in gd.node if n.op == "_Send"]
    a_recvs = [n for _, n in recvs if n.attr["tensor_name"].s.decode().endswith("_a:0")]
    assert len(a_recvs) == 2  # one for CPU:1, one for CPU:2, whatever the consumer count
    assert len(sends) == len(recvs)
    for n in sends + [n for _, n in recvs]:
        for k in ("tensor_name", "send_device", "recv_device", "send_device_incarnation",
                  "client_terminated"):
            assert k in n.attr
    p1 = next(p for p in plan.partitions if p.device.name == CPU + "1")
    assert len(p1.recvs) == 1
    src = plan.plans[[p.device.name for p in plan.partitions].index(CPU + "1")].source
    assert src.count("__rv__.recv(") + src.count("__rvi__.pop(") == 1


def test_cross_device_control_edges():
    with tf.Graph().as_default():
        with tf.device("/cpu:1"):
            v = tf.Variable(0.0, name="v")
            inc = tf.assign_add(v, 1.0)
        with tf.device("/cpu:0"), tf.control_dependencies([inc]):
            out = tf.constant(5.0) * 2.0
        with tf.Session(config=_config()) as s:
            s.run(v.initializer)
            for _ in range(3):
                assert s.run(out) == 10.0
            assert s.run(v) == 3.0
            opts = tf.RunOptions(output_partition_graphs=True)
            md = tf.RunMetadata()
            s.run(out, options=opts, run_metadata=md)
    nodes = [n for gd in md.partition_graphs for n in gd.node]
    assert any(n.op == "_Recv" and "^" in n.attr["tensor_name"].s.decode() or
               n.op == "_Recv" for n in nodes)
    ctrl_inputs = [i for n in nodes for i in n.input if i.startswith("^") and "/_" in i]
    assert ctrl_inputs


def test_while_loop_and_cond_across_devices():
    def build(dev_a, dev_b):
        with tf.Graph().as_default():
            with tf.device(dev_a):
                x = tf.placeholder(tf.float32, [])
                start = tf.square(x)
            with tf.device(dev_b):
                n, acc = tf.while_loop(lambda i, a: i < 5, lambda i, a: (i + 1, a * 1.5 + start),
                                       [tf.constant(0), start])
                c = tf.cond(acc > 50.0, lambda: acc - 50.0, lambda: acc + 50.0)
            with tf.device(dev_a):
                out = c * 2.0 + start
            with tf.Session(config=_config()) as s:
                return [s.run([out, n], {x: v}) for v in (1.0, 3.0)]

    ref = build("/cpu:0", "/cpu:0")
    got = build("/cpu:0", "/cpu:1")
    for (a, na), (b, nb) in zip(ref, got):
        assert na == nb == 5
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_variable_updated_in_loop_on_its_device():
    with tf.Graph().as_default():
        with tf.device("/cpu:1"):
            v = tf.Variable(0.0, name="v")

        def body(i):
            with tf.control_dependencies([tf.assign_add(v, 2.0)]):
                return i + 1

        with tf.device("/cpu:0"):
            loop = tf.while_loop(lambda i: i < 4, body, [tf.constant(0)])
        with tf.Session(config=_config()) as s:
            s.run(v.initializer)
            assert s.run(loop) == 4
            assert s.run(v) == 8.0


def test_feeds_and_fetches_across_partitions():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2])
        with tf.device("/cpu:1"):
            a = x * 2.0
        b = a + x
        with tf.Session(config=_config()) as s:
            got = s.run([b, x, a], {x: [1.0, 2.0]})
            np.testing.assert_allclose(got[0], [3.0, 6.0])
            np.testing.assert_allclose(got[1], [1.0, 2.0])
            np.testing.assert_allclose(got[2], [2.0, 4.0])
            call = s.make_callable(b, [x])
            np.testing.assert_allclose(call(np.array([2.0, 2.0], np.float32)), [6.0, 6.0])


@pytest.mark.parametrize("enabled", [False, True])
def test_bfloat16_sendrecv_error_bounds(enabled):
    vals = np.random.RandomState(0).standard_normal(1000).astype(np.float32) * 100
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [1000])
        with tf.device("/cpu:0"):
            a = tf.identity(x) + 0.0
        with tf.device("/cpu:1"):
            b = a * 1.0
        ints = tf.placeholder(tf.int32, [3])
        with tf.device("/cpu:0"):
            i0 = ints + 0
        with tf.device("/cpu:1"):
            i1 = i0 * 1
        go = tf.GraphOptions(enable_bfloat16_sendrecv=enabled)
        with tf.Session(config=_config(graph_options=go)) as s:
            got, gi = s.run([b, i1], {x: vals, ints: [16777217, 3, -5]})
    np.testing.assert_array_equal(gi, [16777217, 3, -5])  # only float32 is narrowed
    if not enabled:
        np.testing.assert_array_equal(got, vals)
        return
    expect = vals.astype(ml_dtypes.bfloat16).astype(np.float32)  # round to nearest even
    np.testing.assert_array_equal(got, expect)
    rel = np.abs(got - vals) / np.abs(vals)
    assert rel.max() <= 2.0**-8  # half an ulp of bfloat16's 8-bit significand
    assert rel.max() > 0
