"""A step that times out or is cancelled while a queue or accumulator op of it waits: the
op fails, is removed from the resource's waiters and never takes an element that arrives
later (TF cancels it through the step's cancellation manager)."""

import threading
import time

import numpy as np
import pytest

import tideflow as tf
from tideflow.framework import errors
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import accumulator_ops, queue_ops
from tideflow.runtime.executor import Step

# ------------------------------------------------------------------------------------------
# local sessions
# ------------------------------------------------------------------------------------------

QUEUES = {
    "fifo": lambda: tf.FIFOQueue(10, tf.float32, shapes=[[]]),
    "shuffle": lambda: tf.RandomShuffleQueue(10, 0, tf.float32, shapes=[[]], seed=1),
    "padding": lambda: tf.PaddingFIFOQueue(10, tf.float32, shapes=[[]]),
}


def _timeout(ms):
    return tf.RunOptions(timeout_in_ms=ms)


@pytest.mark.parametrize("kind", sorted(QUEUES))
@pytest.mark.parametrize("how", ["dequeue", "dequeue_many", "dequeue_up_to"])
def test_timed_out_dequeue_takes_nothing_later(kind, how):
    g = tf.Graph()
    with g.as_default():
        q = QUEUES[kind]()
        blocked = {"dequeue": lambda: q.dequeue(),
                   "dequeue_many": lambda: q.dequeue_many(2),
                   "dequeue_up_to": lambda: q.dequeue_up_to(2)}[how]()
        x = tf.placeholder(tf.float32, [])
        enq = q.enqueue([x])
        deq = q.dequeue()
        size = q.size()
    with tf.Session(graph=g) as s:
        with pytest.raises(errors.DeadlineExceededError):
            s.run(blocked, options=_timeout(100))
        s.run(enq, {x: 5.0})
        assert s.run(size) == 1
        assert s.run(deq, options=_timeout(5000)) == 5.0
        assert s.run(size) == 0
        if how == "dequeue_many":
            # a dequeue_many that got one of its two elements and timed out puts it back
            s.run(enq, {x: 6.0})
            with pytest.raises(errors.DeadlineExceededError):
                s.run(blocked, options=_timeout(100))
            assert s.run(size) == 1
            assert s.run(deq, options=_timeout(5000)) == 6.0


def test_operation_timeout_in_ms_dequeue_takes_nothing_later():
    g = tf.Graph()
    with g.as_default():
        q = tf.FIFOQueue(10, tf.float32, shapes=[[]])
        deq = q.dequeue()
        enq = q.enqueue([3.0])
        size = q.size()
    with tf.Session(graph=g, config=tf.ConfigProto(operation_timeout_in_ms=100)) as s:
        with pytest.raises(errors.DeadlineExceededError):
            s.run(deq)
        s.run(enq)
        assert s.run(size) == 1
        assert s.run(deq) == 3.0


@pytest.mark.parametrize("sparse", [False, True])
def test_timed_out_take_grad_takes_nothing_later(sparse):
    g = tf.Graph()
    with g.as_default():
        if sparse:
            acc = tf.SparseConditionalAccumulator(tf.float32, shape=[4, 2])
            apply = acc.apply_grad([1], np.array([[1, 2]], np.float32), local_step=0)
        else:
            acc = tf.ConditionalAccumulator(tf.float32, shape=[2])
            apply = acc.apply_grad(np.array([1, 2], np.float32), local_step=0)
        take = acc.take_grad(1)
        n = acc.num_accumulated()
    with tf.Session(graph=g) as s:
        with pytest.raises(errors.DeadlineExceededError):
            s.run(take, options=_timeout(100))
        s.run(apply)
        assert s.run(n) == 1
        got = s.run(take, options=_timeout(5000))
        values = got.values if sparse else got
        np.testing.assert_array_equal(np.ravel(values), [1, 2])
        assert s.run(n) == 0


def test_close_fails_waiters_that_need_more_than_remain():
    g = tf.Graph()
    with g.as_default():
        q = tf.FIFOQueue(10, tf.float32, shapes=[[]])
        many = q.dequeue_many(3)
        up_to = q.dequeue_up_to(3)
        enq = q.enqueue([1.0])
        close = q.close()
    with tf.Session(graph=g) as s:
        got = {}

        def run(name, t):
            try:
                got[name] = s.run(t, options=_timeout(20000))
            except errors.OpError as e:
                got[name] = e

        t1 = threading.Thread(target=run, args=("many", many))
        t1.start()
        s.run(enq)  # the waiting dequeue_many holds it
        _wait_until(lambda: s.run(q.size()) == 0)
        t2 = threading.Thread(target=run, args=("up_to", up_to))
        t2.start()
        time.sleep(0.1)  # let the second waiter block (it needs no timing to pass)
        s.run(close)
        t1.join(10)
        t2.join(10)
        assert not t1.is_alive() and not t2.is_alive()
    # dequeue_many(3) cannot be met: OutOfRange, its element goes back; dequeue_up_to
    # takes what remains (the element, whichever of the two ran first)
    assert isinstance(got["many"], errors.OutOfRangeError)
    if isinstance(got["up_to"], errors.OutOfRangeError):
        pytest.fail("dequeue_up_to lost the element the failed dequeue_many put back")
    np.testing.assert_array_equal(got["up_to"], [1.0])


def _wait_until(cond, timeout=10.0):
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, "condition not reached"
        time.sleep(0.01)


# ------------------------------------------------------------------------------------------
# the race: the step dies while its op still sleeps in the resource's waiting loop
# ------------------------------------------------------------------------------------------


def _blocked(target, *args):
    """Runs ``target(*args)`` in a thread; returns the thread and the box of its outcome."""
    box = {}

    def body():
        try:
            box["result"] = target(*args)
        except errors.OpError as e:
            box["error"] = e

    t = threading.Thread(target=body, daemon=True)
    t.start()
    return t, box


def _waiting(resource, attempts, n=1):
    _wait_until(lambda: len(attempts) >= n)


def _kill(step, how):
    if how == "cancel":
        step.cancelled.set()
    else:
        step.deadline = time.monotonic() - 1.0


@pytest.fixture
def slow_wakeup(monkeypatch):
    """Blocked ops look at their step only every 5 s: a dead op is still a waiter when the
    next element arrives (without this the window is 50 ms, and the test could pass by luck)."""
    monkeypatch.setattr(queue_ops, "_WAIT_SLICE", 5.0)


@pytest.mark.parametrize("how", ["cancel", "deadline"])
@pytest.mark.parametrize("many", [False, True])
def test_dead_dequeue_does_not_take_an_arriving_element(slow_wakeup, how, many):
    q = queue_ops.QueueResource("q", [tf.float32], [TensorShape([])], 10)
    dead = Step(deadline=time.monotonic() + 60)
    if many:
        q.enqueue([np.float32(1)], None)
        t, box = _blocked(q.dequeue_many, 2, dead)  # holds element 1, waits for one more
    else:
        t, box = _blocked(q.dequeue, dead)
    _waiting(q, q._deq)
    assert q.size() == 0
    _kill(dead, how)
    q.enqueue([np.float32(2)], None)
    # the element stays (and the one a dead dequeue_many held comes back), in order
    assert q.size() == (2 if many else 1)
    t.join(10)
    assert not t.is_alive()
    want = errors.CancelledError if how == "cancel" else errors.DeadlineExceededError
    assert isinstance(box.get("error"), want), box
    live = Step()
    if many:
        np.testing.assert_array_equal(q.dequeue_many(2, live)[0], [1, 2])
    else:
        assert q.dequeue(live)[0] == 2
    assert q.size() == 0 and not q._deq


@pytest.mark.parametrize("how", ["cancel", "deadline"])
def test_live_waiter_behind_a_dead_one_gets_the_element(slow_wakeup, how):
    q = queue_ops.QueueResource("q", [tf.float32], [TensorShape([])], 10)
    dead, live = Step(deadline=time.monotonic() + 60), Step()
    t1, box1 = _blocked(q.dequeue, dead)
    _waiting(q, q._deq)
    t2, box2 = _blocked(q.dequeue, live)
    _waiting(q, q._deq, 2)
    _kill(dead, how)
    q.enqueue([np.float32(7)], None)
    t1.join(10)
    t2.join(10)
    assert not t1.is_alive() and not t2.is_alive()
    assert "error" in box1 and box2.get("result") == [7.0]
    assert q.size() == 0 and not q._deq


@pytest.mark.parametrize("how", ["cancel", "deadline"])
def test_dead_take_grad_does_not_take_an_arriving_gradient(slow_wakeup, how):
    acc = accumulator_ops.DenseAccumulatorResource("acc", tf.float32, TensorShape([2]), "MEAN")
    dead = Step(deadline=time.monotonic() + 60)
    t, box = _blocked(acc.take_grad, 1, dead)
    _waiting(acc, acc._takes)
    _kill(dead, how)
    acc.apply_grad(0, np.array([1, 2], np.float32))
    assert acc.num_accumulated() == 1 and acc.global_step == 0
    t.join(10)
    assert not t.is_alive() and "error" in box
    np.testing.assert_array_equal(acc.take_grad(1, Step()), [1, 2])
    assert acc.num_accumulated() == 0 and acc.global_step == 1


@pytest.mark.parametrize("how", ["cancel", "deadline"])
def test_dead_waiter_wakes_without_any_enqueue(how):
    q = queue_ops.QueueResource("q", [tf.float32], [TensorShape([])], 10)
    dead = Step(deadline=time.monotonic() + 60)
    t, box = _blocked(q.dequeue, dead)
    _waiting(q, q._deq)
    _kill(dead, how)
    t.join(10)
    assert not t.is_alive() and "error" in box
    assert not q._deq
