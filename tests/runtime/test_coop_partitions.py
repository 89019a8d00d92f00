"""Partitions that the cost model finds serialized by their data take turns in one thread
(generators meeting in the rendezvous); others keep their threads. The rendezvous wakes only
the Recv whose key was sent."""

import threading
import time

import numpy as np
import pytest

import tideflow as tf
from tideflow.runtime import parallel
from tideflow.runtime.rendezvous import Rendezvous, StepAborted


def _config(n=2):
    return tf.ConfigProto(device_count={"CPU": n})


def _multi_plan(sess):
    """The session's largest two-partition plan (the step's; not the initializer's)."""
    plans = [p for p in sess._plans.values() if isinstance(p, parallel.MultiPlan)]
    assert plans
    return max(plans, key=lambda p: len(p.ops))


def _layer_split_model(split):
    rng = np.random.RandomState(0)
    x = tf.placeholder(tf.float32, [None, 64])
    y = tf.placeholder(tf.int64, [None])
    with tf.device("/cpu:0"):
        w1 = tf.Variable(rng.standard_normal((64, 128)).astype(np.float32) * 0.1)
        h = tf.nn.relu(tf.matmul(x, w1))
    with tf.device("/cpu:1" if split else "/cpu:0"):
        w2 = tf.Variable(rng.standard_normal((128, 10)).astype(np.float32) * 0.1)
        logits = tf.matmul(h, w2)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return x, y, [w1, w2], loss, train


def test_layer_split_takes_turns_in_one_thread_and_matches_one_device():
    rng = np.random.RandomState(1)
    xs = rng.standard_normal((32, 64)).astype(np.float32)
    ys = rng.randint(0, 10, 32).astype(np.int64)
    results = []
    for split in (False, True):
        with tf.Graph().as_default():
            x, y, ws, loss, train = _layer_split_model(split)
            with tf.Session(config=_config()) as s:
                s.run(tf.global_variables_initializer())
                submitted = []
                submit = s._pool.submit
                s._pool.submit = lambda *a, _s=submitted, _f=submit: _s.append(a) or _f(*a)
                for _ in range(3):
                    s.run(train, {x: xs, y: ys})
                if split:
                    mp = _multi_plan(s)
                    assert mp.coop and all(p.coop for p in mp.plans)
                    assert not submitted  # no partition went to another thread
                results.append(s.run(ws + [loss], {x: xs, y: ys}))
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_independent_work_on_two_devices_keeps_its_threads():
    rng = np.random.RandomState(0)
    with tf.Graph().as_default():
        outs = []
        for d in (0, 1):
            with tf.device(f"/cpu:{d}"):
                a = tf.constant(rng.standard_normal((512, 512)).astype(np.float32) / 512)
                v = tf.Variable(a)
                z = v
                for _ in range(4):
                    z = tf.matmul(z, v)
                outs.append(tf.reduce_sum(z))
        with tf.Session(config=_config()) as s:
            s.run(tf.global_variables_initializer())
            got = s.run(outs)
            assert not _multi_plan(s).coop
            assert np.isfinite(got).all()


def test_a_partition_that_may_block_keeps_its_threads():
    with tf.Graph().as_default():
        with tf.device("/cpu:1"):
            q = tf.FIFOQueue(2, tf.float32)
            item = q.dequeue()
        with tf.device("/cpu:0"):
            out = item * 2.0
        with tf.Session(config=_config()) as s:
            s.run(q.enqueue(3.0))
            assert s.run(out) == 6.0
            assert not _multi_plan(s).coop


def test_error_in_a_turn_taking_partition_names_the_op_and_leaves_the_session_usable():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        with tf.device("/cpu:1"):
            bad = tf.check_numerics(x * 1.0, "bad value", name="checked")
        with tf.device("/cpu:0"):
            out = bad + 1.0
        with tf.Session(config=_config()) as s:
            with pytest.raises(tf.errors.InvalidArgumentError, match="bad value") as info:
                s.run(out, {x: [1.0, np.nan]})
            assert _multi_plan(s).coop
            assert info.value.op is not None and info.value.op.name == "checked"
            np.testing.assert_allclose(s.run(out, {x: [1.0, 2.0]}), [2.0, 3.0])


def test_traced_turn_taking_step_has_both_devices_and_transfers():
    with tf.Graph().as_default():
        x, y, _, _, train = _layer_split_model(True)
        with tf.Session(config=_config()) as s:
            s.run(tf.global_variables_initializer())
            feed = {x: np.ones((4, 64), np.float32), y: np.zeros(4, np.int64)}
            md = tf.RunMetadata()
            s.run(train, feed, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                  run_metadata=md)
            assert _multi_plan(s).coop
    devs = {ds.device[-5:]: {n.node_name for n in ds.node_stats} for ds in md.step_stats.dev_stats
            if ds.device != "/host:CPU"}
    assert set(devs) == {"CPU:0", "CPU:1"}
    for names in devs.values():
        assert any("/_" in n for n in names)  # the Send/Recv nodes
    assert any(n.startswith("MatMul") for n in devs["CPU:0"] | devs["CPU:1"])


def test_rendezvous_send_wakes_only_its_recv_and_abort_wakes_all():
    rv = Rendezvous()
    got, errs = [], []

    def recv(key):
        try:
            got.append((key, rv.recv(key)))
        except StepAborted as e:
            errs.append((key, e))

    t1 = threading.Thread(target=recv, args=("a",))
    t2 = threading.Thread(target=recv, args=("b",))
    t1.start()
    t2.start()
    time.sleep(0.05)
    rv.send("a", 1)
    t1.join(5)
    assert got == [("a", 1)] and t2.is_alive()
    rv.send("c", 3)  # nobody waits for it
    time.sleep(0.05)
    assert t2.is_alive()
    rv.abort(ValueError("boom"))
    t2.join(5)
    assert not t2.is_alive() and errs[0][0] == "b"
    with pytest.raises(StepAborted):
        rv.recv("c")


def test_rendezvous_recv_honours_the_deadline():
    class _Step:
        cancelled = threading.Event()
        deadline = time.monotonic() + 0.1

    rv = Rendezvous(_Step())
    t0 = time.monotonic()
    with pytest.raises(tf.errors.DeadlineExceededError):
        rv.recv("never")
    assert time.monotonic() - t0 < 5
