"""The placer: partial requests, colocation, reference edges, soft placement, errors, cost model."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.kernels.device import Device
from tideflow.runtime import placer
from tideflow.runtime.executor import prune, topo_order

P = "/job:localhost/replica:0/task:0/device:"


def _devices(cpus=2, gpus=0):
    devs = [Device(f"{P}CPU:{i}", "CPU", i) for i in range(cpus)]
    # a GPU-typed device backed by NumPy: enough to exercise the placement rules
    devs += [Device(f"{P}GPU:{i}", "GPU", i) for i in range(gpus)]
    return devs


def _place(fetches, devices, soft=False, chooser=None):
    fetches = fetches if isinstance(fetches, list) else [fetches]
    ts = [f for f in fetches if isinstance(f, tf.Tensor)]
    targets = [f for f in fetches if isinstance(f, tf.Operation)]
    order = topo_order(prune(ts, targets, {}), {})
    return {op.name: d.name for op, d in placer.place(order, devices, soft).items()}


def test_partial_and_complete_requests():
    with tf.Graph().as_default():
        with tf.device("/cpu:1"):
            a = tf.square(tf.constant(1.0), name="a")
        with tf.device("/device:CPU:*"):
            b = tf.square(a, name="b")
        with tf.device("/job:localhost"):
            c = tf.square(b, name="c")
        with tf.device("/job:localhost/replica:0/task:0/device:CPU:1"):
            d = tf.square(c, name="d")
        e = tf.square(d, name="e")
        pl = _place(e, _devices(2))
    assert pl["a"] == P + "CPU:1"
    assert pl["b"] == P + "CPU:0"
    assert pl["c"] == P + "CPU:0"
    assert pl["d"] == P + "CPU:1"
    assert pl["e"] == P + "CPU:0"


def test_default_prefers_gpu_when_it_has_a_kernel():
    with tf.Graph().as_default():
        x = tf.constant(np.ones((2, 2), np.float32), name="x")
        y = tf.matmul(x, x, name="y")
        v = tf.Variable(1.0, name="v")
        pl = _place([y, v.initializer], _devices(1, 1))
    assert pl["y"] == P + "GPU:0"  # MatMul's kernel is generic (an xp function)
    assert pl["x"] == P + "GPU:0"  # a generator goes with its only consumer
    assert pl["v"] == P + "CPU:0"  # VariableV2 has a CPU kernel only
    assert pl["v/Assign"] == P + "CPU:0"


def test_colocate_with_and_generators():
    with tf.Graph().as_default():
        with tf.device("/cpu:1"):
            a = tf.square(tf.constant(3.0), name="a")
        with tf.colocate_with(a):
            b = tf.square(tf.constant(2.0), name="b")
        c = tf.add(a, b, name="c")
        pl = _place(c, _devices(2))
    assert pl["b"] == P + "CPU:1"
    assert pl["c"] == P + "CPU:0"
    assert pl["Const"] == P + "CPU:1"  # generator with its consumer


def test_reference_edges_colocate_with_the_variable():
    with tf.Graph().as_default():
        with tf.device("/cpu:1"):
            v = tf.Variable(np.zeros(3, np.float32), name="v")
        x = tf.placeholder(tf.float32, [3])
        loss = tf.reduce_sum(tf.square(v - x))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        upd = tf.assign_add(v, x, name="upd")
        pl = _place([train, upd, v.initializer], _devices(2))
    assert pl["v"] == P + "CPU:1"
    assert pl["upd"] == P + "CPU:1"
    assert pl["v/Assign"] == P + "CPU:1"
    apply_ops = [n for n in pl if n.endswith("ApplyGradientDescent")]
    assert apply_ops and all(pl[n] == P + "CPU:1" for n in apply_ops)


def test_ref_edge_overrides_an_incompatible_consumer_request():
    with tf.Graph().as_default():
        with tf.device("/cpu:1"):
            v = tf.Variable(1.0, name="v")
        with tf.device("/cpu:0"):
            a = tf.assign(v, 5.0, name="a")
        pl = _place(a, _devices(2))
    assert pl["a"] == P + "CPU:1"


def test_impossible_request_errors_and_soft_placement():
    with tf.Graph().as_default():
        one = tf.constant(1.0)
        with tf.device("/gpu:0"):
            a = tf.square(one, name="a")
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            _place(a, _devices(2))
        msg = str(e.value)
        # TF 1.15's words
        assert msg.startswith("Cannot assign a device for operation a: node a (defined at ")
        assert "was explicitly assigned to /device:GPU:0 but available devices are [ " in msg
        assert msg.endswith("Make sure the device specification refers to a valid device. The "
                            "requested device appears to be a GPU, but CUDA is not enabled."
                            "\n\t [[a]]")
        pl = _place(a, _devices(2), soft=True)
        assert pl["a"] == P + "CPU:0"
        with tf.device("/cpu:7"):
            b = tf.square(a, name="b")
        assert _place(b, _devices(2), soft=True)["b"] == P + "CPU:0"


def test_no_kernel_for_requested_device_type():
    with tf.Graph().as_default():
        init = tf.constant(1.0)
        with tf.device("/device:GPU:0"):
            v = tf.Variable(init, name="v")
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            _place(v.initializer, _devices(1, 1))
        msg = str(e.value)
        assert "Cannot assign a device for operation 'v'" in msg
        assert ("Could not satisfy explicit device specification '/device:GPU:0' because no "
                "supported kernel for GPU devices is available.") in msg
        assert "Colocation group had the following types and devices" in msg
        assert "VariableV2: CPU" in msg
        assert "v (VariableV2) /device:GPU:0" in msg
        pl = _place(v.initializer, _devices(1, 1), soft=True)
        assert pl["v"] == P + "CPU:0" and pl["v/Assign"] == P + "CPU:0"


def test_incompatible_colocated_requests():
    with tf.Graph().as_default():
        with tf.device("/cpu:0"):
            a = tf.square(tf.constant(1.0), name="a")
        with tf.colocate_with(a), tf.device("/cpu:1"):
            b = tf.square(a, name="b")
        b.op._set_device("/cpu:1")
        with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot colocate nodes"):
            _place(b, _devices(2))
        assert _place(b, _devices(2), soft=True)["b"] == P + "CPU:0"


def test_other_jobs_are_not_local_devices():
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            a = tf.square(tf.constant(1.0), name="a")
        with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot assign a device"):
            _place(a, _devices(1))


def test_session_runs_placed_graph_and_rejects_bad_request():
    with tf.Graph().as_default():
        with tf.device("/cpu:2"):
            a = tf.constant(2.0) * 3.0
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as s, pytest.raises(
                tf.errors.InvalidArgumentError, match="Cannot assign a device"):
            s.run(a)
        cfg = tf.ConfigProto(device_count={"CPU": 2}, allow_soft_placement=True)
        with tf.Session(config=cfg) as s:
            assert s.run(a) == 6.0


def _two_chains(n=4, size=64):
    rng = np.random.RandomState(0)
    outs = []
    for c in range(2):
        x = tf.constant(rng.standard_normal((size, size)).astype(np.float32) / size,
                        name=f"x{c}")
        y = x
        for _ in range(n):
            y = tf.matmul(y, x)
        outs.append(y)
    return outs


def test_cost_model_placer_splits_independent_chains(monkeypatch):
    with tf.Graph().as_default():
        outs = _two_chains(size=256)
        cfg = tf.ConfigProto(device_count={"CPU": 2}, inter_op_parallelism_threads=1)
        with tf.Session(config=cfg) as s:
            ref = s.run(outs)
            placer.use_cost_model(s, True)
            got = s.run(outs)
            plan = next(iter(s._plans.values()))
            devs = {plan.placement[t.op].name for t in outs}
        assert devs == {P + "CPU:0", P + "CPU:1"}
        for a, b in zip(ref, got):
            np.testing.assert_allclose(a, b, rtol=1e-5)
        monkeypatch.setenv("TIDEFLOW_PLACER", "cost")
        with tf.Session(config=cfg) as s:
            s.run(outs)
            plan = next(iter(s._plans.values()))
            assert {plan.placement[t.op].name for t in outs} == {P + "CPU:0", P + "CPU:1"}


def test_stateful_ops_keep_their_device_across_plans():
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")  # no request: CPU:0 in the initializer's plan
        with tf.device("/cpu:1"):
            upd = tf.assign_add(v, 1.0)  # the ref edge would pull v to CPU:1 in this plan
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as s:
            s.run(v.initializer)
            assert s.run(upd) == 2.0
            assert s.run(v) == 2.0
