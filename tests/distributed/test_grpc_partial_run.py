"""Partial runs and make_callable through ``tf.Session("grpc://...")``: real servers (ps and
worker) in this process talking gRPC on loopback, and one cluster of server processes."""

import collections
import threading
import time

import numpy as np
import pytest

import tideflow as tf
from tests.distributed.cluster_procs import Cluster, cluster_spec

# every step of these tests ends within this bound (the master's deadline for each call)
CONFIG = tf.ConfigProto(operation_timeout_in_ms=30000)


def _lanes():
    """Threads of partial-run lanes still alive in this process (servers are in-process)."""
    return [t for t in threading.enumerate() if t.name.startswith("tf-partial")]


def _no_lanes_left(timeout=10.0):
    end = time.monotonic() + timeout
    while _lanes() and time.monotonic() < end:
        time.sleep(0.02)
    return not _lanes()


def _abc_graph(distributed):
    def dev(name):
        return tf.device(name if distributed else None)

    g = tf.Graph()
    with g.as_default():
        with dev("/job:ps/task:0"):
            v = tf.Variable(np.float32(10.0), name="v")
            a = tf.placeholder(tf.float32, [], name="a")
            b = tf.placeholder(tf.float32, [], name="b")
        with dev("/job:worker/task:0"):
            c = tf.placeholder(tf.float32, [], name="c")
            r1 = a + b * v
            r2 = r1 * c
        with dev("/job:ps/task:0"):
            r3 = r2 - a
        init = tf.global_variables_initializer()
    return g, (a, b, c), (r1, r2, r3), init


def _pieces(sess, feeds, fetches):
    a, b, c = feeds
    r1, r2, r3 = fetches
    h = sess.partial_run_setup([r1, r2, r3], [a, b, c])
    out = [sess.partial_run(h, r1, feed_dict={a: 1.0, b: 2.0})]
    out.append(sess.partial_run(h, [r2], feed_dict={c: 3.0}))
    out.append(sess.partial_run(h, {"r3": r3}))
    return out


def test_partial_run_in_pieces_matches_local_session(servers):
    g, feeds, fetches, init = _abc_graph(True)
    with tf.Session(servers["worker"].target, graph=g, config=CONFIG) as sess:
        sess.run(init)
        remote = _pieces(sess, feeds, fetches)
    g2, feeds2, fetches2, init2 = _abc_graph(False)
    with tf.Session(graph=g2) as sess:
        sess.run(init2)
        local = _pieces(sess, feeds2, fetches2)
    assert remote[0] == local[0] == 21.0
    assert remote[1] == local[1] == [63.0]
    assert remote[2] == local[2] == {"r3": 62.0}
    assert _no_lanes_left()


def test_stateful_ops_run_once_and_feed_order_is_free(servers):
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            q = tf.FIFOQueue(4, tf.float32, shapes=[[]])
            a = tf.placeholder(tf.float32, [], name="a")
            enq = q.enqueue(a * 2.0)
            deq = q.dequeue()
            count = tf.Variable(0, name="count")
            inc = count.assign_add(1)
            # on the device of the dequeue, which blocks until a later call's enqueue
            rnd = tf.random_uniform([], seed=None)
            early = rnd * 1.0
        with tf.device("/job:worker/task:0"):
            b = tf.placeholder(tf.float32, [], name="b")
            late = deq + rnd
            other = b * rnd
        init = tf.global_variables_initializer()
    with tf.Session(servers["worker"].target, graph=g, config=CONFIG) as sess:
        sess.run(init)
        for order in ("ab", "ba"):
            h = sess.partial_run_setup([early, late, other, enq, inc], [a, b])
            # fetched while the dequeue still waits for the enqueue of a later call
            r = sess.partial_run(h, early)
            with pytest.raises(RuntimeError, match="requires empty target_list"):
                sess.partial_run(h, enq)  # as TF 1.x: the setup's ops run on their own
            if order == "ab":
                got_late = sess.partial_run(h, late, {a: 3.0})
                got_other = sess.partial_run(h, other, {b: 5.0})
            else:
                got_other = sess.partial_run(h, other, {b: 5.0})
                got_late = sess.partial_run(h, late, {a: 3.0})
            # one random draw for the whole partial run
            np.testing.assert_allclose([got_late, got_other], [6.0 + r, 5.0 * r], rtol=1e-6)
        # the enqueue, the dequeue and the counter ran once per partial run
        assert sess.run(count) == 2
        assert sess.run(q.size()) == 0
    assert _no_lanes_left()


def test_variable_on_ps_read_then_assigned_from_a_feed(servers):
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(np.float32(10.0), name="v")
            w = tf.Variable(np.float32(0.0), name="w")  # never initialized: the partial run does
            x = tf.placeholder(tf.float32, [], name="x")
            y = tf.placeholder(tf.float32, [], name="y")
            set_w = w.assign(x * 3.0)
        with tf.device("/job:worker/task:0"):
            h_val = x * v
            loss = tf.square(h_val - y)
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss, var_list=[v])
        # read where the variable lives (across tasks a read may be sent before the update)
        with tf.device("/job:ps/task:0"), tf.control_dependencies([train]):
            after = tf.identity(v.read_value())
    with tf.Session(servers["worker"].target, graph=g, config=CONFIG) as sess:
        sess.run(v.initializer)
        h = sess.partial_run_setup([h_val, after, set_w], [x, y])
        assert sess.partial_run(h, h_val, {x: 2.0}) == 20.0
        # d loss / d v = 2 (x v - y) x = 2 (20 - 4) 2 = 64
        np.testing.assert_allclose(sess.partial_run(h, after, {y: 4.0}), 10.0 - 0.64, rtol=1e-6)
        assert sess.partial_run(h, set_w) == 6.0
        np.testing.assert_allclose(sess.run([v, w]), [9.36, 6.0], rtol=1e-6)


def test_invalid_calls_are_rejected_as_tf_does(servers):
    g, (a, b, c), (r1, r2, _), init = _abc_graph(True)
    with g.as_default():
        d = tf.placeholder(tf.float32, [], name="d")
        r4 = d * 2.0
    with tf.Session(servers["worker"].target, graph=g, config=CONFIG) as sess:
        sess.run(init)
        h = sess.partial_run_setup([r1, r2], [a, b, c])
        bad = tf.errors.InvalidArgumentError
        with pytest.raises(bad, match="feed d:0 was not specified in partial_run_setup"):
            sess.partial_run(h, r1, {a: 1.0, b: 2.0, d: 1.0})
        with pytest.raises(bad, match="fetch mul_2:0 was not specified in partial_run_setup"):
            sess.partial_run(h, r4, {a: 1.0})
        with pytest.raises(bad, match="can't be computed from the feeds.*b:0.*not been fed"):
            sess.partial_run(h, r1, {a: 1.0})
        # rejected calls change nothing: the partial run goes on
        assert sess.partial_run(h, r1, {a: 1.0, b: 2.0}) == 21.0
        with pytest.raises(bad, match="feed a:0 has already been fed"):
            sess.partial_run(h, r2, {a: 1.0, c: 1.0})
        with pytest.raises(bad, match="fetch add:0 has already been fetched"):
            sess.partial_run(h, r1)
        assert sess.partial_run(h, r2, {c: 2.0}) == 42.0
        # every fetch was fetched: the partial run is over and released
        with pytest.raises(bad, match="must run 'setup'"):
            sess.partial_run(h, r2)
        with pytest.raises(bad, match="must run 'setup'"):
            sess.partial_run("partial_no_such_handle", r1)
    assert _no_lanes_left()


def test_a_failing_op_ends_the_partial_run(servers):
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            a = tf.placeholder(tf.float32, [], name="a")
            checked = tf.check_numerics(a * 1.0, "a is not finite")
        with tf.device("/job:worker/task:0"):
            b = tf.placeholder(tf.float32, [], name="b")
            other = b + 1.0
    with tf.Session(servers["worker"].target, graph=g, config=CONFIG) as sess:
        h = sess.partial_run_setup([checked, other], [a, b])
        with pytest.raises(tf.errors.InvalidArgumentError, match="a is not finite"):
            sess.partial_run(h, checked, {a: np.nan})
        assert _no_lanes_left()  # the lane waiting for b was stopped too
        with pytest.raises(tf.errors.InvalidArgumentError, match="must run 'setup'"):
            sess.partial_run(h, other, {b: 1.0})
        # the session goes on
        h = sess.partial_run_setup([checked, other], [a, b])
        assert sess.partial_run(h, [checked, other], {a: 1.0, b: 2.0}) == [1.0, 3.0]


def test_timeout_and_close_end_waiting_lanes(servers):
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            q = tf.FIFOQueue(4, tf.float32, shapes=[[]])
            never = q.dequeue() + 1.0
            a = tf.placeholder(tf.float32, [], name="a")
        with tf.device("/job:worker/task:0"):
            b = tf.placeholder(tf.float32, [], name="b")
            r = a + b
    config = tf.ConfigProto(operation_timeout_in_ms=1000)
    with tf.Session(servers["worker"].target, graph=g, config=config) as sess:
        h = sess.partial_run_setup([never, r], [a, b])
        start = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.partial_run(h, never, {a: 1.0})
        assert time.monotonic() - start < 20
        assert _no_lanes_left()
        with pytest.raises(tf.errors.InvalidArgumentError, match="must run 'setup'"):
            sess.partial_run(h, r, {b: 1.0})
        # open partial runs, lanes waiting for feeds, when the session is closed
        h = sess.partial_run_setup([never, r], [a, b])
        sess.partial_run(h, [], {a: 1.0})
        sess.partial_run_setup([r], [a, b])
        assert _lanes()
    assert _no_lanes_left()


def test_make_callable_matches_run(servers):
    g, (a, b, c), (r1, r2, r3), init = _abc_graph(True)
    Pair = collections.namedtuple("Pair", ["first", "second"])
    with tf.Session(servers["worker"].target, graph=g, config=CONFIG) as sess:
        sess.run(init)
        f = sess.make_callable({"r": [r1, r2], "p": Pair(r3, init)}, feed_list=[a, b, c])
        got = f(1.0, 2.0, 3.0)
        want = sess.run({"r": [r1, r2], "p": Pair(r3, init)}, {a: 1.0, b: 2.0, c: 3.0})
        assert got == want == {"r": [21.0, 63.0], "p": Pair(62.0, None)}
        assert f(0.0, np.float32(1.0), [[2.0]][0][0]) == sess.run(
            {"r": [r1, r2], "p": Pair(r3, init)}, {a: 0.0, b: 1.0, c: 2.0})
        # as TF: the values are zipped with feed_list (c left unfed; an extra value ignored)
        with pytest.raises(tf.errors.InvalidArgumentError, match="placeholder tensor 'c'"):
            f(1.0, 2.0)
        assert f(1.0, 2.0, 3.0, 4.0) == want
        with pytest.raises(TypeError, match="must be a list or tuple"):
            sess.make_callable(r1, feed_list=a)
        # a plain callable takes no options; accept_options adds them
        g1 = sess.make_callable(r1.op)
        with pytest.raises(TypeError, match="unexpected keyword argument 'options'"):
            g1(options=tf.RunOptions())
        traced = sess.make_callable(r2, feed_list=[a, b, c], accept_options=True)
        meta = tf.RunMetadata()
        assert traced(1.0, 1.0, 1.0, options=tf.RunOptions(
            trace_level=tf.RunOptions.FULL_TRACE), run_metadata=meta) == 11.0
        devices = {d.device for d in meta.step_stats.dev_stats}
        assert any("job:ps" in d for d in devices) and any("job:worker" in d for d in devices)
        # nodes added after the callable was made reach the master; the callable still runs
        with g.as_default():
            r5 = tf.add(r1, 100.0, name="r5")
        assert sess.run(r5, {a: 1.0, b: 0.0}) == 101.0
        assert f(1.0, 0.0, 1.0)["r"] == [1.0, 1.0]


PROCESS_CLIENT = """
import sys
import numpy as np
import tideflow as tf
with tf.device("/job:ps/task:0"):
    v = tf.Variable(np.arange(4, dtype=np.float32), name="v")
    x = tf.placeholder(tf.float32, [4], name="x")
    upd = v.assign_add(x)
with tf.device("/job:worker/task:0"):
    y = tf.placeholder(tf.float32, [], name="y")
    big = tf.placeholder(tf.float32, [None], name="big")
    total = tf.reduce_sum(v.read_value() * y) + tf.reduce_sum(big)
config = tf.ConfigProto(operation_timeout_in_ms=30000)
with tf.Session(sys.argv[1], config=config) as sess:
    sess.run(v.initializer)
    h = sess.partial_run_setup([total, upd], [x, y, big])
    print("TOTAL", sess.partial_run(h, total, {y: 2.0, big: np.ones(3 << 20, np.float32)}))
    print("UPD", sess.partial_run(h, upd, {x: np.ones(4, np.float32)}).tolist())
    call = sess.make_callable(total, [y, big])
    print("CALL", call(1.0, np.zeros(2, np.float32)))
"""


def test_partial_run_across_server_processes(tmp_path):
    from tests.distributed.cluster_procs import run_client

    c = Cluster(cluster_spec(ps=1, worker=1), tmp_path)
    try:
        c.start_all()
        out = run_client(PROCESS_CLIENT, c.target("ps", 0), timeout=120)
    finally:
        c.stop()
    lines = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
    assert float(lines["TOTAL"]) == 2 * 6.0 + (3 << 20)
    assert lines["UPD"] == "[1.0, 2.0, 3.0, 4.0]"
    assert float(lines["CALL"]) == 10.0
