"""A ``grpc://`` session to a server of its own process calls that server's master directly
(no gRPC, as TF's LocalMaster): the same results, errors, timeouts, partial runs, callables
and metadata as over gRPC, which the same servers answer when reached at an address they are
not registered under (``ipv4:127.0.0.1`` for ``localhost``) or from another process."""

import threading

import numpy as np
import pytest

import tideflow as tf
from tests.distributed.cluster_procs import Cluster, cluster_spec
from tideflow.distributed import grpc_session
from tideflow.distributed import security as security_lib
from tideflow.distributed import server as server_lib
from tideflow.distributed.server import Server
from tideflow.framework import errors

CONFIG = tf.ConfigProto(operation_timeout_in_ms=30000)
BIG = 1 << 19  # floats: 2 MiB, over the size that travels out of band


def _grpc_target(server):
    """The same server, at an address its process's registry does not know: gRPC."""
    target = server.target  # grpc://localhost:<port>, as TF's
    assert target.startswith("grpc://localhost:")
    return target.replace("localhost", "ipv4:127.0.0.1")


def _in_process(sess):
    return sess._remote._stub._local() is not None


def _graph():
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(np.arange(4, dtype=np.float32), name="v")
            big = tf.Variable(tf.zeros([BIG]), name="big")
        with tf.device("/job:worker/task:0"):
            x = tf.placeholder(tf.float32, [4], name="x")
            y = x * v + 1.0
            local_big = tf.Variable(tf.ones([BIG]), name="local_big")
            bump = local_big.assign_add(tf.ones([BIG]))
            q = tf.FIFOQueue(2, tf.float32, shapes=[[]], name="q")
            deq = q.dequeue()
            bad = tf.check_numerics(x / 0.0, "x/0")
        init = tf.global_variables_initializer()
    return g, {"v": v, "big": big, "x": x, "y": y, "local_big": local_big, "bump": bump,
               "deq": deq, "bad": bad, "init": init}


@pytest.mark.parametrize("path", ["in-process", "grpc"])
def test_steps_fetches_and_callables(servers, path):
    target = servers["worker"].target if path == "in-process" else _grpc_target(
        servers["worker"])
    g, t = _graph()
    with tf.Session(target, graph=g, config=CONFIG) as sess:
        assert _in_process(sess) == (path == "in-process")
        sess.run(t["init"])
        np.testing.assert_allclose(sess.run(t["y"], {t["x"]: [1, 1, 1, 1]}), [1, 2, 3, 4])
        f = sess.make_callable(t["y"], feed_list=[t["x"]])
        np.testing.assert_allclose(f(np.full(4, 2, np.float32)), [1, 3, 5, 7])
        big = sess.run(t["big"])
        assert big.shape == (BIG,) and not big.any()
        # a fetched value is the client's own: writing it changes no variable, and a later
        # update of the variable does not show through it
        lb = sess.run(t["local_big"])
        assert lb.flags.writeable
        lb[:] = 7.0
        sess.run(t["bump"])
        assert np.all(lb == 7.0)
        np.testing.assert_array_equal(sess.run(t["local_big"])[:3], [2.0, 2.0, 2.0])


def test_errors_are_the_same_on_both_paths(servers):
    g, t = _graph()
    got = []
    for target in (servers["worker"].target, _grpc_target(servers["worker"])):
        with tf.Session(target, graph=g, config=CONFIG) as sess:
            sess.run(t["init"])
            errs = []
            for fetch, feed in ((t["bad"], {t["x"]: np.ones(4, np.float32)}),
                                (t["y"], {})):  # an unfed placeholder
                with pytest.raises(errors.OpError) as ei:
                    sess.run(fetch, feed)
                # the message, to the node it names (where the server's copy of the node was
                # "defined" is the stack that imported it there, which differs)
                errs.append((type(ei.value), ei.value.message.split(" (defined at ")[0]))
            got.append(errs)
    assert got[0] == got[1]
    assert got[0][0][0] is errors.InvalidArgumentError and "x/0" in got[0][0][1]
    assert got[0][1][0] is errors.InvalidArgumentError and "x" in got[0][1][1]


@pytest.mark.parametrize("path", ["in-process", "grpc"])
def test_timeouts_and_run_metadata(servers, path):
    target = servers["worker"].target if path == "in-process" else _grpc_target(
        servers["worker"])
    g, t = _graph()
    config = tf.ConfigProto(operation_timeout_in_ms=300)
    with tf.Session(target, graph=g, config=config) as sess:
        sess.run(t["init"])
        with pytest.raises(errors.DeadlineExceededError):
            sess.run(t["deq"])
        options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE, timeout_in_ms=200)
        with pytest.raises(errors.DeadlineExceededError):
            sess.run(t["deq"], options=options)
        md = tf.RunMetadata()
        sess.run(t["y"], {t["x"]: np.ones(4, np.float32)}, options=options, run_metadata=md)
        devices = {d.device for d in md.step_stats.dev_stats}
        assert any("/job:ps" in d for d in devices) and any("/job:worker" in d for d in devices)


@pytest.mark.parametrize("path", ["in-process", "grpc"])
def test_partial_runs(servers, path):
    target = servers["worker"].target if path == "in-process" else _grpc_target(
        servers["worker"])
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            a = tf.placeholder(tf.float32, [], name="a")
            b = tf.placeholder(tf.float32, [], name="b")
        with tf.device("/job:worker/task:0"):
            r1 = a + b
            r2 = r1 * 3.0
    with tf.Session(target, graph=g, config=CONFIG) as sess:
        assert _in_process(sess) == (path == "in-process")
        h = sess.partial_run_setup([r1, r2], [a, b])
        assert sess.partial_run(h, r1, {a: 1.0, b: 2.0}) == 3.0
        assert sess.partial_run(h, r2) == 9.0
        with pytest.raises(errors.InvalidArgumentError, match="partial run handle"):
            sess.partial_run("", r1, {a: 1.0})


def test_several_servers_each_with_its_own_master():
    made = [Server.create_local_server() for _ in range(2)]
    try:
        for i, s in enumerate(made):
            assert server_lib.local_master(s.target[len("grpc://"):])[0] is s._master
            g = tf.Graph()
            with g.as_default():
                v = tf.Variable(float(i), name="v")
            with tf.Session(s.target, graph=g) as sess:
                assert _in_process(sess)
                sess.run(v.initializer)
        for i, s in enumerate(made):
            g = tf.Graph()
            with g.as_default():
                v = tf.Variable(-1.0, name="v")
            with tf.Session(s.target, graph=g) as sess:
                assert sess.run(v) == float(i)  # each master's own worker holds its own v
    finally:
        for s in made:
            s.stop()
    assert all(server_lib.local_master(s.target[len("grpc://"):]) is None for s in made)


def test_reset_and_close_in_process():
    server = Server.create_local_server()
    try:
        g = tf.Graph()
        with g.as_default():
            v = tf.Variable(3.0, name="v")
        sess = tf.Session(server.target, graph=g)
        assert _in_process(sess)
        sess.run(v.initializer)
        assert len(server._master._sessions) == 1
        sess.close()
        assert not server._master._sessions
        tf.Session.reset(server.target)
        with tf.Session(server.target, graph=g) as sess, pytest.raises(
                errors.FailedPreconditionError):
            sess.run(v)
    finally:
        server.stop()


@pytest.mark.parametrize("path", ["in-process", "grpc"])
def test_server_stopped_under_an_open_session_is_unavailable(path):
    server = Server.create_local_server()
    target = server.target if path == "in-process" else server.target.replace(
        "localhost", "127.0.0.1")
    g = tf.Graph()
    with g.as_default():
        q = tf.FIFOQueue(2, tf.float32, shapes=[[]], name="q")
        deq = q.dequeue()
        c = tf.constant(1.0) + 1.0
    sess = tf.Session(target, graph=g, config=CONFIG)
    assert _in_process(sess) == (path == "in-process")
    assert sess.run(c) == 2.0
    out = []

    def blocked():
        try:
            sess.run(deq)
        except Exception as e:  # noqa: BLE001 - checked below
            out.append(e)

    th = threading.Thread(target=blocked)
    th.start()
    th.join(0.5)  # the dequeue waits on the empty queue
    server.stop()
    th.join(60)
    assert not th.is_alive()
    assert len(out) == 1 and isinstance(out[0], errors.OpError), out
    with pytest.raises(errors.UnavailableError):
        sess.run(c)
    sess.close()


def test_token_is_checked_before_taking_the_direct_path(monkeypatch):
    token = "in-process-secret"
    server = Server({"local": ["127.0.0.1:0"]}, job_name="local", task_index=0,
                    security=security_lib.Security(token=token))
    address = server.target[len("grpc://"):]
    try:
        ok = grpc_session._Stub(address, security_lib.Security(token=token))
        wrong = grpc_session._Stub(address, security_lib.Security(token="other"))
        none = grpc_session._Stub(address, None)
        assert ok._local() is not None
        assert wrong._local() is None and none._local() is None
        for stub, why in ((wrong, "token is wrong"), (none, "no tideflow token")):
            with pytest.raises(errors.UnauthenticatedError, match=why):
                stub.call("ListDevices", grpc_session.master_pb2.ListDevicesRequest(), 10.0)
        resp = ok.call("ListDevices", grpc_session.master_pb2.ListDevicesRequest(), 10.0)
        assert [d.name for d in resp.local_device] == ["/job:local/replica:0/task:0/device:CPU:0",
                                                       "/job:local/replica:0/task:0/device:XLA_CPU:0"]
        for s in (ok, wrong, none):
            s.close()
    finally:
        server.stop()


def test_a_server_in_another_process_is_reached_over_grpc(tmp_path):
    spec = cluster_spec(worker=1)
    c = Cluster(spec, tmp_path)
    try:
        c.start_all()
        g = tf.Graph()
        with g.as_default():
            v = tf.Variable(tf.ones([BIG]), name="v")
        with tf.Session(c.target("worker", 0), graph=g, config=CONFIG) as sess:
            assert not _in_process(sess)
            sess.run(v.initializer)
            assert sess.run(v).sum() == BIG
    finally:
        c.stop()


def test_keyboard_interrupt_in_process_cleans_up_the_other_tasks(servers):
    # Ctrl-C lands in the client's thread, which runs the step's master (and the local task's
    # part) in process: the ps's blocked dequeue must be cancelled, not left waiting for the
    # step's deadline and then taking a later element
    def interrupt(_):
        raise KeyboardInterrupt

    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            q = tf.FIFOQueue(4, tf.float32, shapes=[[]], name="q_ki", shared_name="q_ki")
            deq = q.dequeue()
            size = q.size()
            enq = q.enqueue(7.0)
        with tf.device("/job:worker/task:0"):
            x = tf.placeholder(tf.float32, [], name="x")
            boom = tf.py_func(interrupt, [x], tf.float32)
    with tf.Session(servers["worker"].target, graph=g, config=CONFIG) as sess:
        assert _in_process(sess)
        with pytest.raises(KeyboardInterrupt):
            sess.run([deq, boom], {x: 1.0})
        sess.run(enq)
        assert sess.run(size) == 1  # the interrupted step's dequeue took nothing
        assert sess.run(deq) == 7.0
