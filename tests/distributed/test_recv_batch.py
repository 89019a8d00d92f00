"""All the values a step sends from one task to another in one RecvTensorsStream: the wire
format (headers carrying their first chunk), recycled receive buffers, the serving side, and
steps through the in-process transport and real gRPC servers on loopback."""

import collections
import sys

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
from tideflow.protos import master_pb2, tideflow_transfer_pb2
from tideflow.runtime.rendezvous import make_key

CONFIG = tf.ConfigProto(operation_timeout_in_ms=30000)


def _messages(values, chunk_bytes=1 << 12, bfloat16=()):
    items = [(i, v, bool(bfloat16 and bfloat16[i])) for i, v in enumerate(values)]
    return list(wire.tensors_messages(items, chunk_bytes))


# -- wire ------------------------------------------------------------------------------------


def test_several_tensors_in_one_stream_small_ones_share_messages():
    rng = np.random.RandomState(0)
    values = [np.arange(6, dtype=np.int32).reshape(2, 3), rng.rand(5000),
              np.zeros((0, 4), np.float32), np.array([b"ab", b"", b"\xff" * 9], dtype=object),
              rng.rand(3000).astype(np.float32), np.float32(7.5), np.int8(-3)]
    msgs = _messages(values, bfloat16=(False, False, False, False, True, False, False))
    # messages are filled up to the limit: as few as the bytes need
    assert all(len(m) <= (1 << 12) + 64 for m in msgs)
    assert len(msgs) == -(-(24 + 5000 * 8 + 23 + 3000 * 2 + 4 + 1) // ((1 << 12) - 200))
    reader = wire.TensorsReader()
    got = []
    completed_at = []
    for j, m in enumerate(msgs):
        for meta, buf in reader.feed(m):
            got.append((int(meta.index), wire.array_of(meta, buf)))
            completed_at.append(j)
    reader.close()
    assert [i for i, _ in got] == list(range(len(values)))
    # the first tensor shares its message with the start of the second; the last three
    # (the end of the bfloat16 one, a float, an int8) share the last message
    assert completed_at[0] == 0 and completed_at[1] > 0
    r = wire.TensorsReader()
    assert len(r.feed(msgs[0])) == 1 and 0 < r._pos < 5000 * 8
    assert completed_at[-3:] == [len(msgs) - 1] * 3
    for (_, out), v in zip(got, values):
        v = np.asarray(v)
        assert out.shape == v.shape and out.dtype == v.dtype
        if v.dtype == np.float32 and v.size == 3000:  # went as bfloat16
            np.testing.assert_allclose(out, v, rtol=2.0 ** -8)
        else:
            assert list(out.ravel()) == list(v.ravel())
    # every message reads back to the same values whatever the size limit
    for limit in (64, 1 << 20):
        r = wire.TensorsReader()
        n = sum(len(r.feed(m)) for m in wire.tensors_messages(
            [(i, v, False) for i, v in enumerate(values)], limit))
        assert n == len(values)


def test_tensors_reader_rejects_bad_streams():
    msgs = _messages([np.arange(3000, dtype=np.float64)])
    assert len(msgs) > 2
    reader = wire.TensorsReader()
    for m in msgs[:-1]:
        reader.feed(m)
    with pytest.raises(errors.InvalidArgumentError, match="ended after"):
        reader.close()
    with pytest.raises(errors.DataLossError, match="without a header"):
        wire.TensorsReader().feed(msgs[1])
    # more bytes than declared, and bytes after the tensor's last one
    reader = wire.TensorsReader()
    reader.feed(msgs[0])
    extra = wire.data_message(bytes(3000 * 8))
    with pytest.raises(errors.InvalidArgumentError, match="more than"):
        reader.feed(b"\x0a" + wire._varint(len(extra)) + extra)
    reader = wire.TensorsReader()
    for m in msgs:
        reader.feed(m)
    with pytest.raises(errors.DataLossError, match="without a header"):
        reader.feed(msgs[-1])
    # parts whose length runs past the message; a field that is not a part
    with pytest.raises(errors.DataLossError, match="Corrupt"):
        wire.TensorsReader().feed(b"\x0a\x7f\x08")
    with pytest.raises(errors.DataLossError, match="unexpected field"):
        wire.TensorsReader().feed(b"\x12\x01x")
    # a header followed by a stray field
    head = tideflow_transfer_pb2.TensorChunk(
        meta=tideflow_transfer_pb2.TensorMeta(dtype=1, total_bytes=4)).SerializeToString()
    part = head + b"\x1a\x01x"
    with pytest.raises(errors.DataLossError, match="unexpected field"):
        wire.TensorsReader().feed(b"\x0a" + wire._varint(len(part)) + part)
    # a declared size beyond the machine's memory is refused before allocating
    huge = tideflow_transfer_pb2.TensorChunk(
        meta=tideflow_transfer_pb2.TensorMeta(dtype=1, total_bytes=1 << 60)).SerializeToString()
    with pytest.raises(errors.ResourceExhaustedError):
        wire.TensorsReader().feed(b"\x0a" + wire._varint(len(huge)) + huge)


def test_buffer_pool_never_hands_out_a_buffer_still_referred_to():
    pool = wire.BufferPool(max_bytes=8 << 20, min_bytes=1 << 20, max_buffers=4)
    a = pool.take(2 << 20)
    a_id = id(a)
    view = np.frombuffer(a, np.float32)[3:]
    del a
    b = pool.take(2 << 20)
    assert id(b) != a_id  # the view keeps the first one alive and in use
    del view
    c = pool.take(2 << 20)
    assert id(c) == a_id  # nothing refers to it any more: recycled
    assert pool.take(2 << 20) is not b  # b is still held here
    assert pool.take(1000).nbytes == 1000  # small buffers are not pooled
    big = pool.take(16 << 20)  # more than the pool keeps: handed out, not kept
    assert all(x is not big for x in pool._bufs)
    assert sum(x.nbytes for x in pool._bufs) <= 8 << 20 and len(pool._bufs) <= 4
    del b, c


def test_received_value_is_not_overwritten_by_later_receives():
    v1 = np.full(1 << 19, 1.0, np.float32)  # 2 MiB: a pooled buffer
    v2 = np.full(1 << 19, 2.0, np.float32)
    kept = []
    for v in (v1, v2, v1, v2):
        reader = wire.TensorsReader()
        out = [t for m in wire.tensors_messages([(0, v, False)], 1 << 20) for t in reader.feed(m)]
        kept.append(wire.array_of(*out[0]))
    for k, v in zip(kept, (v1, v2, v1, v2)):
        np.testing.assert_array_equal(k, v)
    # once dropped, a received value's buffer serves the next receive
    first = kept[0].base
    del kept
    assert sys.getrefcount(first) == 2 + 1  # this name, the pool, getrefcount's argument


# -- serving side ----------------------------------------------------------------------------


def _worker_pair():
    spec = ClusterSpec({"ps": ["ps0:1"], "worker": ["w0:1"]})
    transport = InProcessTransport(chunk_bytes=1 << 16)

    def resolve(name):
        s = DeviceSpec.from_string(name)
        return spec.task_address(s.job, s.task)

    ws = {}
    for job, addr in (("ps", "ps0:1"), ("worker", "w0:1")):
        ws[job] = Worker(job, 0, transport, resolve)
        transport.add(addr, ws[job])
    return transport, ws


def test_serve_many_yields_what_is_there_and_stops_when_the_step_ends_without_a_key():
    _, ws = _worker_pair()
    ps = ws["ps"]
    dev = ps.devices[0]
    dst = "/job:worker/replica:0/task:0/device:CPU:0"
    keys = [make_key(dev.name, dev.incarnation, dst, f"t{i}") for i in range(3)]
    rv = ps.rendezvous.find(7)
    rv.send(keys[2], np.float32(2))
    rv.send(keys[0], np.float32(0))
    rv.finished = 1.0  # the step ended here; t1 was never sent
    batches = list(ps.rendezvous.serve_many(7, keys, deadline=None))
    assert len(batches) == 1  # both were there: together
    assert {i: float(v) for i, v in batches[0]} == {0: 0.0, 2: 2.0}
    with pytest.raises(errors.InvalidArgumentError, match="twice"):
        list(ps.rendezvous.serve_many(8, [keys[0], keys[0]]))
    stale = make_key(dev.name, dev.incarnation + 1, dst, "t0")
    with pytest.raises(errors.AbortedError, match="restarted"):
        list(ps.rendezvous.serve_many(9, [keys[0], stale]))


def test_serve_many_waits_until_the_deadline():
    _, ws = _worker_pair()
    ps = ws["ps"]
    dev = ps.devices[0]
    keys = [make_key(dev.name, dev.incarnation, "/job:worker/replica:0/task:0/device:CPU:0",
                     f"t{i}") for i in range(2)]
    import time

    with pytest.raises(errors.DeadlineExceededError, match="t0"):
        list(ps.rendezvous.serve_many(3, keys, deadline=time.monotonic() + 0.2))


# -- steps -----------------------------------------------------------------------------------


class _CountingTransport(InProcessTransport):
    """The in-process transport, counting the receives it serves."""

    def __init__(self):
        super().__init__(chunk_bytes=1 << 12)
        self.calls = collections.Counter()

    def recv_tensor(self, *a, **k):
        self.calls["recv_tensor"] += 1
        return super().recv_tensor(*a, **k)

    def recv_tensors(self, *a, **k):
        self.calls["recv_tensors"] += 1
        return super().recv_tensors(*a, **k)


def _model(distributed):
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0" if distributed else None):
            w = tf.Variable(np.linspace(-1, 1, 784 * 32, dtype=np.float32).reshape(784, 32),
                            name="w")  # 100 KB: several chunks of 4 KiB
            b = tf.Variable(np.zeros(32, np.float32), name="b")
            s = tf.Variable(np.float32(0.5), name="s")
        x = tf.placeholder(tf.float32, [4, 784], name="x")
        with tf.device("/job:worker/task:0" if distributed else None):
            loss = tf.reduce_sum(tf.square(tf.matmul(x, w) * s + b), name="loss")
        train = tf.train.GradientDescentOptimizer(0.001).minimize(loss, name="train")
        init = tf.global_variables_initializer()
    return g, x, loss, train, init, (w, b, s)


def test_values_between_two_tasks_travel_in_one_stream_per_direction():
    spec = ClusterSpec({"ps": ["ps0:1"], "worker": ["w0:1"]})
    transport = _CountingTransport()

    def resolve(name):
        d = DeviceSpec.from_string(name)
        return spec.task_address(d.job, d.task)

    for job, addr in (("ps", "ps0:1"), ("worker", "w0:1")):
        transport.add(addr, Worker(job, 0, transport, resolve))
    m = Master(spec, ("worker", 0), transport)
    g, _, _, _, _, _ = _model(True)
    handle = m.create_session(master_pb2.CreateSessionRequest(
        graph_def=graph_io.graph_to_graph_def(g))).session_handle

    def run(fetches, targets=(), x=None):
        req = master_pb2.RunStepRequest(session_handle=handle, fetch=fetches, target=targets)
        if x is not None:
            wire.encode(x, req.feed.add(name="x:0").tensor)
        return [wire.decode(nt.tensor) for nt in m.run_step(req).tensor]

    run([], ["init"])
    xv = np.random.RandomState(3).rand(4, 784).astype(np.float32)
    run(["loss:0"], ["train"], xv)  # plans are registered
    transport.calls.clear()
    remote = [run(["loss:0"], ["train"], xv)[0] for _ in range(3)]
    # w, b and s to the worker, their three gradients back: one stream each way per step
    assert transport.calls == {"recv_tensors": 6}
    g2, x2, loss2, train2, init2, _ = _model(False)
    with tf.Session(graph=g2) as sess:
        sess.run(init2)
        sess.run([loss2, train2], {x2: xv})
        local = [sess.run([loss2, train2], {x2: xv})[0] for _ in range(3)]
    np.testing.assert_allclose(remote, local, rtol=1e-5)


def test_failure_on_the_sender_ends_a_grouped_receive():
    spec = ClusterSpec({"ps": ["ps0:1"], "worker": ["w0:1"]})
    transport = _CountingTransport()

    def resolve(name):
        d = DeviceSpec.from_string(name)
        return spec.task_address(d.job, d.task)

    for job, addr in (("ps", "ps0:1"), ("worker", "w0:1")):
        transport.add(addr, Worker(job, 0, transport, resolve))
    m = Master(spec, ("worker", 0), transport)
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            a = tf.constant([1.0, 2.0])
            bad = tf.check_numerics(tf.constant([np.nan], tf.float32), "bad value")
        with tf.device("/job:worker/task:0"):
            tf.add(tf.reduce_sum(a), tf.reduce_sum(bad), name="out")
    handle = m.create_session(master_pb2.CreateSessionRequest(
        graph_def=graph_io.graph_to_graph_def(g))).session_handle
    req = master_pb2.RunStepRequest(session_handle=handle, fetch=["out:0"])
    req.options.timeout_in_ms = 20000
    with pytest.raises(errors.InvalidArgumentError, match="bad value"):
        m.run_step(req)
    assert transport.calls["recv_tensors"] == 1


def test_grouped_receives_over_grpc_big_small_and_bfloat16(servers):
    """A big value (chunked), small ones and bfloat16 on the wire, all in one stream."""
    calls = collections.Counter()
    t = servers["worker"]._transport
    for name in ("recv_tensor", "recv_tensors"):
        fn = getattr(t, name)

        def counted(*a, _fn=fn, _name=name, **k):
            calls[_name] += 1
            return _fn(*a, **k)

        setattr(t, name, counted)
    rng = np.random.RandomState(5)
    big = rng.rand(3 << 20).astype(np.float32)  # 12 MiB: chunks of 4 MiB
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(big, name="big")
            u = tf.Variable(np.arange(5, dtype=np.int64), name="u")
            f = tf.Variable(np.float32(1.0 + 2.0 ** -12), name="f")
        with tf.device("/job:worker/task:0"):
            total = tf.reduce_sum(tf.cast(v, tf.float64))
            first = v[:4] * 1.0
            ints = u * 2
            fv = f * 1.0
        init = tf.global_variables_initializer()
    with tf.Session(servers["worker"].target, graph=g, config=CONFIG) as sess:
        sess.run(init)
        calls.clear()
        out = sess.run([total, first, ints, fv])
    assert calls == {"recv_tensors": 1}
    np.testing.assert_allclose(out[0], big.astype(np.float64).sum(), rtol=1e-9)
    np.testing.assert_array_equal(out[1], big[:4])
    np.testing.assert_array_equal(out[2], np.arange(5) * 2)
    assert out[3] == np.float32(1.0 + 2.0 ** -12)
    cfg = tf.ConfigProto(operation_timeout_in_ms=30000)
    cfg.graph_options.enable_bfloat16_sendrecv = True
    with tf.Session(servers["worker"].target, graph=g, config=cfg) as sess:
        calls.clear()
        out = sess.run([first, ints, fv])
    assert calls == {"recv_tensors": 1}
    np.testing.assert_allclose(out[0], big[:4], rtol=2.0 ** -8)
    np.testing.assert_array_equal(out[1], np.arange(5) * 2)
    assert out[2] == np.float32(1.0)  # truncated to bfloat16 on the wire


def test_allocator_tuning_is_idempotent_and_can_be_turned_off(monkeypatch):
    from tideflow.runtime import allocator

    first = allocator.tune_once()  # servers call it (add_services), as sessions do
    assert allocator.tune_once() is first  # once per process
    if sys.platform.startswith("linux"):
        import ctypes

        # glibc accepts the settings (mallopt returns 1); musl's stub would return 0
        assert first == (ctypes.CDLL(None).mallopt(-3, allocator.MMAP_THRESHOLD) == 1)
    monkeypatch.setattr(allocator, "_done", False)
    monkeypatch.setenv("TIDEFLOW_MALLOC_TUNING", "0")
    assert allocator.tune_once() is False


def test_grouped_receive_over_grpc_ends_when_the_step_fails_or_times_out(servers):
    """The stream is read by the executor thread; a failure elsewhere (the master cancels the
    step) or the step's deadline ends it, and the session stays usable."""
    import time

    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            a = tf.Variable([1.0, 2.0], name="a")
            q = tf.FIFOQueue(4, tf.float32, shapes=[[]], name="q")
            late = q.dequeue()  # sent only once something is enqueued
            b = tf.Variable(3.0, name="b")
            bad = tf.check_numerics(a * np.float32(np.nan), "bad value")
        with tf.device("/job:worker/task:0"):
            waits = tf.reduce_sum(a) + late
            fails = tf.reduce_sum(a) + tf.reduce_sum(bad)
            works = tf.reduce_sum(a) + b
        init = tf.global_variables_initializer()
    with tf.Session(servers["worker"].target, graph=g, config=CONFIG) as sess:
        sess.run(init)
        t0 = time.monotonic()
        with pytest.raises(errors.InvalidArgumentError, match="bad value"):
            sess.run(fails)
        t1 = time.monotonic()
        with pytest.raises(errors.DeadlineExceededError):
            sess.run(waits, options=tf.RunOptions(timeout_in_ms=1500))
        t2 = time.monotonic()
        assert t1 - t0 < 10 and t2 - t1 < 10
        assert sess.run(works) == 6.0


def test_two_devices_of_a_task_share_one_stream_from_another():
    """Values for two CPU devices of the worker come in one stream, read by whichever plan
    thread needs one first; the other takes its value or its turn to read."""
    spec = ClusterSpec({"ps": ["ps0:1"], "worker": ["w0:1"]})
    transport = _CountingTransport()

    def resolve(name):
        d = DeviceSpec.from_string(name)
        return spec.task_address(d.job, d.task)

    transport.add("ps0:1", Worker("ps", 0, transport, resolve))
    transport.add("w0:1", Worker("worker", 0, transport, resolve,
                                 config=tf.ConfigProto(device_count={"CPU": 2})))
    m = Master(spec, ("worker", 0), transport)
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            vs = [tf.Variable(np.full(3000, i + 1.0, np.float32), name=f"v{i}") for i in range(4)]
        outs = []
        for d in range(2):
            with tf.device(f"/job:worker/task:0/device:CPU:{d}"):
                outs.append(tf.reduce_sum(vs[d] * 2.0) + tf.reduce_sum(vs[d + 2]))
        with tf.device("/job:worker/task:0/device:CPU:0"):
            tf.add(outs[0], outs[1], name="total")
        tf.global_variables_initializer()
    handle = m.create_session(master_pb2.CreateSessionRequest(
        graph_def=graph_io.graph_to_graph_def(g))).session_handle

    def run(fetches, targets=()):
        req = master_pb2.RunStepRequest(session_handle=handle, fetch=fetches, target=targets)
        req.options.timeout_in_ms = 20000
        return [wire.decode(nt.tensor) for nt in m.run_step(req).tensor]

    run([], ["init"])
    transport.calls.clear()
    for _ in range(20):
        assert run(["total:0"])[0] == 3000 * (2 * 1 + 3 + 2 * 2 + 4)
    assert transport.calls == {"recv_tensors": 20}
