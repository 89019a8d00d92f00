"""Real clusters on loopback: servers in subprocesses, clients through tf.Session(target)."""

import time

import numpy as np
import pytest

import tideflow as tf
from tests.distributed.cluster_procs import Cluster, cluster_spec, run_client
from tideflow.framework import errors


@pytest.fixture
def cluster(tmp_path):
    made = []

    def make(env=None, skip=(), **jobs):
        c = Cluster(cluster_spec(**jobs), tmp_path, env=env)
        made.append(c)
        return c.start_all(skip=skip)

    yield make
    for c in made:
        c.stop()


def _in_graph_model():
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
            b = tf.Variable(np.ones(3, np.float32), name="b")
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        outs = []
        for i in range(2):
            with tf.device(f"/job:worker/task:{i}"):
                h = tf.nn.relu(tf.matmul(x[i:i + 1], w) + b)
                outs.append(tf.reduce_sum(h * h))
        total = tf.add_n(outs)
        step = tf.train.GradientDescentOptimizer(0.01).minimize(total)
        init = tf.global_variables_initializer()
    return g, x, total, step, init, w


def test_in_graph_replication_matches_local(cluster):
    c = cluster(ps=1, worker=2)
    xv = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)
    g, x, total, step, init, w = _in_graph_model()
    with tf.Session(c.target("worker", 0), graph=g) as sess:
        sess.run(init)
        remote = [sess.run([total, step], {x: xv})[0] for _ in range(3)]
        remote_w = sess.run(w)
    # the same graph with the devices stripped, in a local session
    g2, x2, total2, step2, init2, w2 = _in_graph_model_local()
    with tf.Session(graph=g2) as sess:
        sess.run(init2)
        local = [sess.run([total2, step2], {x2: xv})[0] for _ in range(3)]
        local_w = sess.run(w2)
    np.testing.assert_allclose(remote, local, rtol=1e-6)
    np.testing.assert_allclose(remote_w, local_w, rtol=1e-6)


def _in_graph_model_local():
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
        b = tf.Variable(np.ones(3, np.float32), name="b")
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        outs = [tf.reduce_sum(tf.square(tf.nn.relu(tf.matmul(x[i:i + 1], w) + b)))
                for i in range(2)]
        total = tf.add_n(outs)
        step = tf.train.GradientDescentOptimizer(0.01).minimize(total)
        init = tf.global_variables_initializer()
    return g, x, total, step, init, w


BETWEEN_GRAPH_CLIENT = """
import sys, time, numpy as np
import tideflow as tf
from tideflow.train.device_setter import replica_device_setter
task, target, steps = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
rng = np.random.RandomState(task)
with tf.device(replica_device_setter(ps_tasks=1, worker_device=f"/job:worker/task:{task}")):
    w = tf.Variable(np.zeros((1, 1), np.float32), name="w")
    b = tf.Variable(np.zeros((1,), np.float32), name="b")
    x = tf.placeholder(tf.float32, [None, 1])
    y = tf.placeholder(tf.float32, [None, 1])
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    gs = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
    init = tf.global_variables_initializer()
    ready = tf.report_uninitialized_variables()
with tf.Session(target) as sess:
    if task == 0:
        sess.run(init)
    else:
        while len(sess.run(ready)):
            time.sleep(0.05)
    for _ in range(steps):
        xs = rng.uniform(-1, 1, (16, 1)).astype(np.float32)
        sess.run(train, {x: xs, y: 3 * xs + 2})
    print("RESULT", float(sess.run(w)[0, 0]), float(sess.run(b)[0]), int(sess.run(gs)))
"""


def test_between_graph_replication_shares_ps_variables(cluster):
    import subprocess
    import sys

    from tests.distributed.cluster_procs import _env

    c = cluster(ps=1, worker=2)
    steps = 150
    procs = [subprocess.Popen([sys.executable, "-c", BETWEEN_GRAPH_CLIENT, str(i),
                               c.target("worker", i), str(steps)], env=_env(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(2)]
    try:
        outs = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            p.kill()
    results = []
    for (out, err), p in zip(outs, procs):
        assert p.returncode == 0, err
        line = [ln for ln in out.splitlines() if ln.startswith("RESULT")][-1]
        results.append([float(v) for v in line.split()[1:]])
    # both workers updated the same ps variables: the global step counts every step
    assert max(r[2] for r in results) == 2 * steps
    w, b = results[-1][0], results[-1][1]
    # single-process SGD on the same problem reaches (3, 2) as well
    assert abs(w - 3.0) < 0.05 and abs(b - 2.0) < 0.05, results


def test_killed_ps_surfaces_within_seconds(cluster):
    c = cluster(ps=1, worker=1)
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(np.ones(4, np.float32))
        with tf.device("/job:worker/task:0"):
            y = tf.reduce_sum(v * 2.0)
        init = tf.global_variables_initializer()
    with tf.Session(c.target("worker", 0), graph=g) as sess:
        sess.run(init)
        assert sess.run(y) == 8.0
        c.kill("ps", 0)
        t0 = time.monotonic()
        with pytest.raises((errors.UnavailableError, errors.AbortedError)) as ei:
            sess.run(y)
        assert time.monotonic() - t0 < 10.0
        assert "ps" in str(ei.value) or "unavailable" in str(ei.value).lower()


def test_killed_worker_surfaces_within_seconds(cluster):
    c = cluster(ps=1, worker=2)
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(np.ones(4, np.float32))
        with tf.device("/job:worker/task:1"):
            y = tf.reduce_sum(v * 2.0)
        init = tf.global_variables_initializer()
    with tf.Session(c.target("worker", 0), graph=g) as sess:
        sess.run(init)
        assert sess.run(y) == 8.0
        c.kill("worker", 1)
        t0 = time.monotonic()
        with pytest.raises((errors.UnavailableError, errors.AbortedError)):
            sess.run(y)
        assert time.monotonic() - t0 < 10.0


LARGE_CLIENT = """
import sys, time, numpy as np
import tideflow as tf
n = int(sys.argv[2]) // 4
with tf.device("/job:ps/task:0"):
    v = tf.Variable(tf.zeros([n], tf.float32))
    fill = tf.assign(v, tf.range(n, dtype=tf.float32) * 0.5)
with tf.device("/job:worker/task:0"):
    s = tf.reduce_sum(tf.cast(tf.equal(tf.identity(v), tf.range(n, dtype=tf.float32) * 0.5),
                              tf.int64))
with tf.Session(sys.argv[1]) as sess:
    sess.run(fill.op)
    t0 = time.time()
    print("MATCHING", sess.run(s), n, time.time() - t0)
"""


def test_large_tensor_recv_in_chunks(cluster):
    c = cluster(ps=1, worker=1)
    out = run_client(LARGE_CLIENT, c.target("worker", 0), 300 << 20, timeout=170)
    line = next(ln for ln in out.splitlines() if ln.startswith("MATCHING")).split()
    assert int(line[1]) == int(line[2]) == (300 << 20) // 4


def test_token_auth(cluster):
    c = cluster(ps=1, env={"TIDEFLOW_GRPC_TOKEN": "s3cret"})
    code = """
import sys, tideflow as tf
from tideflow.framework import errors
with tf.device("/job:ps/task:0"):
    y = tf.constant(2.0) * 3.0
try:
    with tf.Session(sys.argv[1]) as s:
        print("VALUE", s.run(y))
except errors.UnauthenticatedError as e:
    print("REJECTED", e)
"""
    out = run_client(code, c.target("ps", 0), env={"TIDEFLOW_GRPC_TOKEN": ""})
    assert "REJECTED" in out
    out = run_client(code, c.target("ps", 0), env={"TIDEFLOW_GRPC_TOKEN": "wrong"})
    assert "REJECTED" in out
    out = run_client(code, c.target("ps", 0), env={"TIDEFLOW_GRPC_TOKEN": "s3cret"})
    assert "VALUE 6.0" in out


def test_malformed_requests_then_good_one(cluster):
    import grpc

    from tideflow.distributed import transport as tp
    from tideflow.protos import master_pb2, worker_pb2

    c = cluster(worker=1)
    address = c.spec["worker"][0]
    ch = grpc.insecure_channel(address)
    raw = ch.unary_unary(f"/{tp.WORKER_SERVICE}/RegisterGraph")

    def expect(code, payload):
        with pytest.raises(grpc.RpcError) as ei:
            raw(payload, timeout=10)
        assert ei.value.code() == code, ei.value.details()
        assert ei.value.details()
        return ei.value.details()

    expect(grpc.StatusCode.INVALID_ARGUMENT, b"\xff\xff\xff garbage \x00\x01")
    # an unknown op, and a cycle
    gd = tf.Graph().as_graph_def()
    nd = gd.node.add(name="a", op="NoSuchOp")
    req = worker_pb2.RegisterGraphRequest(graph_def=gd)
    msg = expect(grpc.StatusCode.INVALID_ARGUMENT, req.SerializeToString())
    assert "NoSuchOp" in msg
    del gd.node[:]
    nd = gd.node.add(name="a", op="Identity", input=["b"])
    nd.attr["T"].type = 1
    nd = gd.node.add(name="b", op="Identity", input=["a"])
    nd.attr["T"].type = 1
    msg = expect(grpc.StatusCode.INVALID_ARGUMENT,
                 worker_pb2.RegisterGraphRequest(graph_def=gd).SerializeToString())
    assert "cycle" in msg
    # a fed tensor whose declared size does not match its bytes, and one too big for memory
    run_step = ch.unary_unary(f"/{tp.MASTER_SERVICE}/RunStep")
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None], name="x")
        y = tf.identity(x, name="y")
    create = ch.unary_unary(f"/{tp.MASTER_SERVICE}/CreateSession",
                            response_deserializer=master_pb2.CreateSessionResponse.FromString)
    handle = create(master_pb2.CreateSessionRequest(graph_def=g.as_graph_def())
                    .SerializeToString(), timeout=30).session_handle
    req = master_pb2.RunStepRequest(session_handle=handle, fetch=[y.name])
    nt = req.feed.add(name=x.name)
    nt.tensor.dtype = 1
    nt.tensor.tensor_shape.dim.add(size=10)
    nt.tensor.tensor_content = b"\x00" * 12
    with pytest.raises(grpc.RpcError) as ei:
        run_step(req.SerializeToString(), timeout=30)
    assert ei.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "40 bytes" in ei.value.details()
    nt.tensor.tensor_shape.dim[0].size = 1 << 50
    with pytest.raises(grpc.RpcError) as ei:
        run_step(req.SerializeToString(), timeout=30)
    assert ei.value.code() in (grpc.StatusCode.RESOURCE_EXHAUSTED,
                               grpc.StatusCode.INVALID_ARGUMENT)
    ch.close()
    # the server still serves a good request
    with tf.Session("grpc://" + address, graph=g) as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.0]}), [1.0, 2.0])


def test_session_reset_clears_ps_variables(cluster):
    c = cluster(ps=1, worker=1)
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(5.0, name="v")
        init = tf.global_variables_initializer()
    target = c.target("worker", 0)
    with tf.Session(target, graph=g) as sess:
        sess.run(init)
    with tf.Session(target, graph=g) as sess:  # variables outlive sessions
        assert sess.run(v) == 5.0
    tf.Session.reset(target)
    with tf.Session(target, graph=g) as sess, pytest.raises(errors.FailedPreconditionError):
        sess.run(v)
