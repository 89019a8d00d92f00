"""Master and worker logic through the in-process transport (no sockets)."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.distributed import wire
from tideflow.distributed.cluster import ClusterSpec
from tideflow.distributed.master import Master
from tideflow.distributed.transport import InProcessTransport
from tideflow.distributed.worker import Worker
from tideflow.framework import errors, graph_io
from tideflow.framework.device import DeviceSpec
from tideflow.protos import master_pb2, worker_pb2

SPEC = {"ps": ["ps0:1"], "worker": ["w0:1", "w1:1"]}


class _Cluster:
    def __init__(self, spec=SPEC):
        self.spec = ClusterSpec(spec)
        self.transport = InProcessTransport(chunk_bytes=1 << 16)
        self.workers = {}
        for job in self.spec.jobs:
            for i in self.spec.task_indices(job):
                self.start(job, i)

    def resolve(self, name):
        s = DeviceSpec.from_string(name)
        return self.spec.task_address(s.job, s.task)

    def start(self, job, i):
        w = Worker(job, i, self.transport, self.resolve)
        self.workers[(job, i)] = w
        self.transport.add(self.spec.task_address(job, i), w)
        return w

    def master(self, task=("worker", 0)):
        return Master(self.spec, task, self.transport)


class _Client:
    def __init__(self, master, graph, config=None):
        self.m = master
        req = master_pb2.CreateSessionRequest(graph_def=graph_io.graph_to_graph_def(graph))
        if config is not None:
            req.config.CopyFrom(config)
        self.handle = master.create_session(req).session_handle

    def run(self, fetches=(), feeds=None, targets=(), options=None):
        req = master_pb2.RunStepRequest(session_handle=self.handle, fetch=list(fetches),
                                        target=list(targets))
        if options is not None:
            req.options.CopyFrom(options)
        for k, v in (feeds or {}).items():
            wire.encode(np.asarray(v), req.feed.add(name=k).tensor)
        resp = self.m.run_step(req)
        self.metadata = resp.metadata
        return [wire.decode(nt.tensor) for nt in resp.tensor]


def _graph():
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="v")
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        with tf.device("/job:worker/task:0"):
            y0 = tf.matmul(x, v)
        with tf.device("/job:worker/task:1"):
            tf.reduce_sum(y0 * 2.0, name="y1")
        v.assign_add(tf.ones_like(v))
        tf.global_variables_initializer()
    return g


def test_in_graph_steps_and_variables_outlive_sessions():
    c = _Cluster()
    g = _graph()
    s1 = _Client(c.master(), g)
    s1.run(targets=["init"])
    xv = np.ones((1, 2), np.float32)
    (y,) = s1.run(["y1:0"], {"x:0": xv})
    assert y == 30.0
    s1.run(targets=["AssignAdd"])
    # another client, another master: the ps variable is shared by name
    s2 = _Client(c.master(("worker", 1)), g)
    y, v, x = s2.run(["y1:0", "v:0", "x:0"], {"x:0": xv})
    assert y == 42.0 and x.tolist() == [[1.0, 1.0]]
    np.testing.assert_array_equal(v, np.arange(6).reshape(2, 3) + 1)


def test_full_trace_merges_worker_step_stats():
    c = _Cluster()
    s = _Client(c.master(), _graph())
    s.run(targets=["init"])
    opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    s.run(["y1:0"], {"x:0": np.ones((1, 2), np.float32)}, options=opts)
    devs = {d.device for d in s.metadata.step_stats.dev_stats}
    assert any("task:1" in d for d in devs) and any("job:ps" in d for d in devs)


def test_extend_session_adds_nodes():
    c = _Cluster()
    g = _graph()
    m = c.master()
    s = _Client(m, g)
    s.run(targets=["init"])
    before = g.version
    with g.as_default():
        z = tf.add(g.get_tensor_by_name("y1:0"), 1.0, name="z")
    gd = graph_io.graph_to_graph_def(g, from_version=before)
    m.extend_session(master_pb2.ExtendSessionRequest(session_handle=s.handle, graph_def=gd,
                                                     current_graph_version=1))
    assert s.run([z.name], {"x:0": np.ones((1, 2), np.float32)})[0] == 31.0


def test_lost_worker_is_unavailable_and_restart_is_aborted():
    c = _Cluster()
    m = c.master()
    s = _Client(m, _graph())
    s.run(targets=["init"])
    c.transport.down.add("ps0:1")
    with pytest.raises(errors.UnavailableError, match="ps"):
        s.run(["y1:0"], {"x:0": np.ones((1, 2), np.float32)})
    c.transport.down.clear()
    c.start("ps", 0)  # a new process: new incarnations, no registered graphs
    with pytest.raises(errors.AbortedError):
        s.run(["y1:0"], {"x:0": np.ones((1, 2), np.float32)})


def test_recv_of_restarted_producer_is_aborted():
    c = _Cluster()
    w = c.workers[("ps", 0)]
    dev = w.devices[0]
    from tideflow.runtime.rendezvous import make_key

    key = make_key(dev.name, dev.incarnation + 1, "/job:worker/replica:0/task:0/device:CPU:0",
                   "t")
    with pytest.raises(errors.AbortedError, match="restarted"):
        w.recv_tensor_value(1, key, deadline=None)


def test_bad_graphs_are_invalid_argument():
    w = Worker("worker", 0)
    gd = tf.Graph().as_graph_def()
    gd.node.add(name="a", op="NoSuchOp")
    with pytest.raises(errors.InvalidArgumentError, match="NoSuchOp"):
        w.register_graph(worker_pb2.RegisterGraphRequest(graph_def=gd))
    with pytest.raises(errors.AbortedError):
        w.run_graph(worker_pb2.RunGraphRequest(graph_handle="nope", step_id=1))


def test_device_filters_limit_the_tasks_seen():
    c = _Cluster()
    cfg = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:0"])
    g = tf.Graph()
    with g.as_default():
        tf.constant(1.0, name="c")
    m = c.master()
    s = _Client(m, g, cfg)
    names = [d.name for d in m.list_devices(master_pb2.ListDevicesRequest(
        session_handle=s.handle)).remote_device]
    assert names and not any("task:1" in n for n in names)


def test_step_error_prefers_the_cause_over_the_cleanup():
    # a part that failed because the step was cleaned up (Cancelled) must not hide the part
    # whose task lost its graphs (Aborted): the monitored session recovers from Aborted only
    from tideflow.distributed.master import _first_error

    cancelled = errors.CancelledError(None, None, "Step 7 was cleaned up")
    aborted = errors.AbortedError(None, None, "Graph handle is not found")
    unavailable = errors.UnavailableError(None, None, "Socket closed")
    assert _first_error([cancelled, aborted]) is aborted
    assert _first_error([cancelled, aborted, unavailable]) is unavailable
    assert _first_error([cancelled]) is cancelled
