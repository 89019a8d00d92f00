"""A queue or accumulator on a ps task, through real in-process gRPC servers (ps and worker
on loopback): a step that times out, fails in another partition or whose session is closed
while its dequeue / take_grad waits leaves no waiter behind, and takes no later element."""

import threading
import time

import numpy as np
import pytest

import tideflow as tf
from tideflow.framework import errors
from tideflow.ops import queue_ops


def _ps_resource(servers, name):
    devices = servers["ps"]._worker.devices
    for d in devices:
        try:
            return d.resource_mgr.lookup("", name)
        except errors.NotFoundError:
            pass
    raise AssertionError(f"no resource {name!r} on the ps task")


def _graph():
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            q = tf.FIFOQueue(10, tf.float32, shapes=[[]], shared_name="q")
            acc = tf.ConditionalAccumulator(tf.float32, shape=[2], shared_name="acc")
        with tf.device("/job:worker/task:0"):
            x = tf.placeholder(tf.float32, [], name="x")
            bad = tf.check_numerics(x, "bad input")
        t = {
            "dequeue": q.dequeue(), "dequeue_many": q.dequeue_many(2),
            "enqueue": q.enqueue([x]), "size": q.size(), "take": acc.take_grad(1),
            "apply": acc.apply_grad(tf.stack([x, x]), local_step=0),
            "num": acc.num_accumulated(), "x": x, "bad": bad,
        }
        with tf.device("/job:worker/task:0"):
            t["dequeue_on_worker"] = t["dequeue"] + 1.0  # the value crosses to the worker
    return g, t


def _wait_until(cond, timeout=10.0):
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, "condition not reached"
        time.sleep(0.01)


@pytest.mark.parametrize("blocked", ["dequeue", "dequeue_many", "dequeue_on_worker"])
@pytest.mark.parametrize("timeout", ["run_options", "config"])
def test_timed_out_dequeue_on_ps_takes_nothing_later(servers, blocked, timeout):
    g, t = _graph()
    config = tf.ConfigProto(operation_timeout_in_ms=200) if timeout == "config" else None
    opts = tf.RunOptions(timeout_in_ms=200) if timeout == "run_options" else None
    with tf.Session(servers["worker"].target, graph=g, config=config) as s:
        with pytest.raises(errors.DeadlineExceededError):
            s.run(t[blocked], options=opts)
        s.run(t["enqueue"], {t["x"]: 4.0})
        assert s.run(t["size"]) == 1
        assert s.run(t["dequeue"], options=tf.RunOptions(timeout_in_ms=10000)) == 4.0
        assert s.run(t["size"]) == 0
    q = _ps_resource(servers, "q")
    _wait_until(lambda: not q._deq)


def test_timed_out_take_grad_on_ps_takes_nothing_later(servers):
    g, t = _graph()
    with tf.Session(servers["worker"].target, graph=g) as s:
        with pytest.raises(errors.DeadlineExceededError):
            s.run(t["take"], options=tf.RunOptions(timeout_in_ms=200))
        s.run(t["apply"], {t["x"]: 3.0})
        assert s.run(t["num"]) == 1
        got = s.run(t["take"], options=tf.RunOptions(timeout_in_ms=10000))
        np.testing.assert_array_equal(got, [3.0, 3.0])
        assert s.run(t["num"]) == 0


def test_error_in_worker_partition_cancels_the_ps_dequeue(servers):
    g, t = _graph()
    with tf.Session(servers["worker"].target, graph=g) as s:
        # the worker's partition fails at once, so the master's CleanupGraph may reach the ps
        # before or after the ps partition's RunGraph: either way its dequeue must end (a few
        # rounds, as which comes first is up to the threads)
        q = None
        for i in range(5):
            # no deadline: only the step's cancellation can end the dequeue
            with pytest.raises(errors.InvalidArgumentError, match="bad input"):
                s.run([t["dequeue"], t["bad"]], {t["x"]: np.nan})
            q = q or _ps_resource(servers, "q")
            _wait_until(lambda q=q: not q._deq, timeout=5.0)
            s.run(t["enqueue"], {t["x"]: float(i)})
            assert s.run(t["size"]) == 1
            assert s.run(t["dequeue"], options=tf.RunOptions(timeout_in_ms=10000)) == i


@pytest.mark.parametrize("blocked", ["dequeue", "take"])
def test_closed_session_dequeue_on_ps_takes_nothing_later(servers, blocked, monkeypatch):
    # blocked ops look at their step only every 5 s (the servers are in this process): the
    # dead op is still a waiter when the next session's element arrives
    monkeypatch.setattr(queue_ops, "_WAIT_SLICE", 5.0)
    g, t = _graph()
    s1 = tf.Session(servers["worker"].target, graph=g)
    outcome = {}

    def run():
        try:
            outcome["value"] = s1.run(t[blocked], options=tf.RunOptions(timeout_in_ms=30000))
        except errors.OpError as e:
            outcome["error"] = e

    th = threading.Thread(target=run, daemon=True)
    th.start()
    s1.run(t["size"])  # the step above has been sent (or is about to be)
    res = "q" if blocked == "dequeue" else "acc"
    waiters = (lambda r: r._deq) if blocked == "dequeue" else (lambda r: r._takes)
    _wait_until(lambda: _has_resource(servers, res) and waiters(_ps_resource(servers, res)))
    s1.close()
    with tf.Session(servers["worker"].target, graph=g) as s2:
        if blocked == "dequeue":
            s2.run(t["enqueue"], {t["x"]: 9.0})
            assert s2.run(t["size"]) == 1
            assert s2.run(t["dequeue"], options=tf.RunOptions(timeout_in_ms=10000)) == 9.0
        else:
            s2.run(t["apply"], {t["x"]: 9.0})
            assert s2.run(t["num"]) == 1
            got = s2.run(t["take"], options=tf.RunOptions(timeout_in_ms=10000))
            np.testing.assert_array_equal(got, [9.0, 9.0])
    th.join(20)
    assert not th.is_alive()
    assert "error" in outcome, outcome
    assert not waiters(_ps_resource(servers, res))


def _has_resource(servers, name):
    try:
        _ps_resource(servers, name)
    except AssertionError:
        return False
    return True
