"""Queue semantics: blocking and waking across threads, close (with and without cancelling
pending enqueues), dequeue_many/up_to at close, padding, priority and shuffling queues,
cancellation when the session closes, deadlines, and the accumulators."""

import threading
import time

import numpy as np
import pytest

import tideflow as tf
from tideflow.ops import data_flow_ops as dfo

JOIN_TIMEOUT = 20


def _start(fn, *args):
    """Runs ``fn`` in a daemon thread; returns (thread, box with 'value' or 'error')."""
    box = {}

    def target():
        try:
            box["value"] = fn(*args)
        except BaseException as e:  # noqa: BLE001 - handed to the test
            box["error"] = e

    t = threading.Thread(target=target, daemon=True)
    t.start()
    return t, box


def _join(t):
    t.join(JOIN_TIMEOUT)
    assert not t.is_alive(), "thread did not finish"


def _assert_blocked(t, secs=0.2):
    time.sleep(secs)
    assert t.is_alive(), "op should still be blocked"


# ------------------------------------------------------------------------------------------
# FIFOQueue
# ------------------------------------------------------------------------------------------


def test_fifo_order_size_and_names():
    with tf.Graph().as_default():
        q = dfo.FIFOQueue(10, [tf.int32, tf.string], shapes=[[], []], names=["a", "b"])
        assert q.names == ["a", "b"] and q.dtypes == [tf.int32, tf.string]
        assert q.name == "fifo_queue" and q.queue_ref.dtype == tf.resource
        enq = q.enqueue({"a": 1, "b": "x"})
        enq_many = q.enqueue_many({"a": [2, 3], "b": ["y", "z"]})
        deq = q.dequeue()
        assert set(deq) == {"a", "b"} and deq["a"].get_shape().as_list() == []
        with pytest.raises(ValueError, match="must enqueue a dictionary"):
            q.enqueue([1, "x"])
        with tf.Session() as s:
            s.run(enq)
            s.run(enq_many)
            assert s.run(q.size()) == 3
            assert not s.run(q.is_closed())
            got = [s.run(deq) for _ in range(3)]
            assert [g["a"] for g in got] == [1, 2, 3]
            assert [g["b"] for g in got] == [b"x", b"y", b"z"]
            s.run(q.close())
            assert s.run(q.is_closed())


def test_single_component_dequeue_returns_a_tensor():
    with tf.Graph().as_default():
        q = dfo.FIFOQueue(5, tf.float32, shapes=())
        assert isinstance(q.dequeue(), tf.Tensor)
        assert q.dequeue_many(3).get_shape().as_list() == [3]
        assert q.dequeue_up_to(3).get_shape().as_list() == [None]


def test_dequeue_blocks_until_enqueue():
    with tf.Graph().as_default():
        q = dfo.FIFOQueue(10, tf.float32, shapes=())
        x = tf.placeholder(tf.float32, [])
        enq, deq = q.enqueue(x), q.dequeue()
        with tf.Session() as s:
            t, box = _start(s.run, deq)
            _assert_blocked(t)
            s.run(enq, {x: 7.0})
            _join(t)
            assert box["value"] == 7.0


def test_enqueue_blocks_while_full():
    with tf.Graph().as_default():
        q = dfo.FIFOQueue(2, tf.int32, shapes=())
        enq = q.enqueue_many([[1, 2, 3, 4]])
        deq = q.dequeue()
        with tf.Session() as s:
            t, box = _start(s.run, enq)
            _assert_blocked(t)
            assert s.run(q.size()) == 2
            assert [s.run(deq) for _ in range(2)] == [1, 2]
            _join(t)
            assert "error" not in box
            assert [s.run(deq) for _ in range(2)] == [3, 4]


def test_dequeue_many_larger_than_capacity_takes_elements_as_they_come():
    with tf.Graph().as_default():
        q = dfo.FIFOQueue(3, tf.int32, shapes=())
        x = tf.placeholder(tf.int32, [])
        enq, deqm = q.enqueue(x), q.dequeue_many(10)
        with tf.Session() as s:
            t, box = _start(s.run, deqm)
            for i in range(10):
                s.run(enq, {x: i})
            _join(t)
            assert box["value"].tolist() == list(range(10))


def test_close_lets_pending_enqueues_finish():
    with tf.Graph().as_default():
        q = dfo.FIFOQueue(1, tf.int32, shapes=())
        x = tf.placeholder(tf.int32, [])
        enq, deq, close = q.enqueue(x), q.dequeue(), q.close()
        with tf.Session() as s:
            s.run(enq, {x: 1})
            t_enq, box_enq = _start(s.run, enq, {x: 2})
            _assert_blocked(t_enq)
            t_close, box_close = _start(s.run, close)
            _assert_blocked(t_close)  # the close waits behind the pending enqueue
            assert s.run(deq) == 1
            _join(t_enq)
            _join(t_close)
            assert "error" not in box_enq and "error" not in box_close
            assert s.run(q.is_closed())
            assert s.run(deq) == 2
            with pytest.raises(tf.errors.OutOfRangeError,
                               match=r"is closed and has insufficient elements "
                                     r"\(requested 1, current size 0\)"):
                s.run(deq)
            with pytest.raises(tf.errors.CancelledError, match="is closed"):
                s.run(enq, {x: 3})


def test_close_cancel_pending_enqueues():
    with tf.Graph().as_default():
        q = dfo.FIFOQueue(1, tf.int32, shapes=())
        x = tf.placeholder(tf.int32, [])
        enq, deq = q.enqueue(x), q.dequeue()
        with tf.Session() as s:
            s.run(enq, {x: 1})
            t, box = _start(s.run, enq, {x: 2})
            _assert_blocked(t)
            s.run(q.close(cancel_pending_enqueues=True))
            _join(t)
            assert isinstance(box["error"], tf.errors.CancelledError)
            assert "Enqueue operation was cancelled" in str(box["error"])
            assert s.run(deq) == 1
            with pytest.raises(tf.errors.OutOfRangeError):
                s.run(deq)


def test_error_message_names_the_queue():
    with tf.Graph().as_default():
        q = dfo.FIFOQueue(10, tf.float32)
        with tf.Session() as s:
            s.run(q.close())
            with pytest.raises(tf.errors.OutOfRangeError) as info:
                s.run(q.dequeue())
            assert ("FIFOQueue '_" in str(info.value)
                    and "_fifo_queue' is closed and has insufficient elements (requested 1, "
                        "current size 0)" in str(info.value))


def test_dequeue_many_and_up_to_at_close():
    with tf.Graph().as_default():
        q = dfo.FIFOQueue(10, [tf.int32, tf.float32], shapes=[[], [2]])
        enq = q.enqueue_many([[1, 2, 3], np.ones([3, 2], np.float32)])
        deqm, dequp = q.dequeue_many(4), q.dequeue_up_to(4)
        with tf.Session() as s:
            s.run(enq)
            t, box = _start(s.run, deqm)
            _assert_blocked(t)
            s.run(q.close())
            _join(t)
            err = box["error"]
            assert isinstance(err, tf.errors.OutOfRangeError)
            assert "requested 1, current size 0" in str(err)
            # the failed dequeue_many put its elements back
            ints, floats = s.run(dequp)
            assert ints.tolist() == [1, 2, 3] and floats.shape == (3, 2)
            with pytest.raises(tf.errors.OutOfRangeError):
                s.run(dequp)


def test_dequeue_many_needs_shapes_and_zero_works():
    with tf.Graph().as_default():
        q = dfo.FIFOQueue(10, tf.int32)
        q2 = dfo.FIFOQueue(10, tf.int32, shapes=[[2]])
        with tf.Session() as s:
            with pytest.raises(tf.errors.InvalidArgumentError, match="specified shapes"):
                s.run(q.dequeue_many(1))
            assert s.run(q2.dequeue_many(0)).shape == (0, 2)


def test_shape_and_type_checks():
    with tf.Graph().as_default():
        q = dfo.FIFOQueue(10, tf.float32, shapes=[[2]])
        with pytest.raises(ValueError):
            q.enqueue([[1.0, 2.0, 3.0]])
        with pytest.raises(ValueError, match="fully defined"):
            dfo.FIFOQueue(10, tf.float32, shapes=[[None]])
        x = tf.placeholder(tf.float32)
        enq = q.enqueue(x)
        with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Shape mismatch in tuple component 0. Expected \[2\], "
                                 r"got \[3\]"):
            s.run(enq, {x: [1.0, 2.0, 3.0]})


def test_shared_name_shares_one_queue():
    with tf.Graph().as_default():
        q1 = dfo.FIFOQueue(10, tf.int32, shapes=(), shared_name="shared")
        q2 = dfo.FIFOQueue(10, tf.int32, shapes=(), shared_name="shared")
        bad = dfo.FIFOQueue(5, tf.int32, shapes=(), shared_name="shared")
        with tf.Session() as s:
            s.run(q1.enqueue(5))
            assert s.run(q2.dequeue()) == 5
            with pytest.raises(tf.errors.InvalidArgumentError, match="capacity"):
                s.run(bad.size())
        with tf.Session() as s:  # a new session starts with a fresh resource manager
            assert s.run(q2.size()) == 0


def test_many_producers_and_consumers():
    with tf.Graph().as_default():
        q = dfo.FIFOQueue(4, tf.int64, shapes=())
        x = tf.placeholder(tf.int64, [None])
        enq, deq = q.enqueue_many([x]), q.dequeue_many(5)
        with tf.Session() as s:
            producers = [_start(s.run, enq, {x: np.arange(i * 100, i * 100 + 50)})
                         for i in range(4)]
            consumers = [_start(lambda: [s.run(deq) for _ in range(10)]) for _ in range(4)]
            for t, box in producers + consumers:
                _join(t)
                assert "error" not in box, box.get("error")
            got = sorted(v for _, box in consumers for batch in box["value"] for v in batch)
            want = sorted(v for i in range(4) for v in range(i * 100, i * 100 + 50))
            assert got == want


# ------------------------------------------------------------------------------------------
# cancellation and deadlines
# ------------------------------------------------------------------------------------------


def test_session_close_cancels_blocked_ops():
    with tf.Graph().as_default():
        q = dfo.FIFOQueue(1, tf.int32, shapes=())
        full = dfo.FIFOQueue(1, tf.int32, shapes=())
        s = tf.Session()
        s.run(full.enqueue(1))
        t1, box1 = _start(s.run, q.dequeue())
        t2, box2 = _start(s.run, full.enqueue(2))
        t3, box3 = _start(s.run, q.dequeue_many(3))
        for t in (t1, t2, t3):
            _assert_blocked(t, 0.1)
        s.close()
        for t in (t1, t2, t3):
            _join(t)
        for box in (box1, box2, box3):
            assert isinstance(box["error"], tf.errors.CancelledError), box


def test_run_options_timeout_gives_deadline_exceeded():
    with tf.Graph().as_default():
        q = dfo.FIFOQueue(1, tf.int32, shapes=())
        with tf.Session() as s:
            start = time.monotonic()
            with pytest.raises(tf.errors.DeadlineExceededError):
                s.run(q.dequeue(), options=tf.RunOptions(timeout_in_ms=100))
            assert time.monotonic() - start < 5
            s.run(q.enqueue(1))
            with pytest.raises(tf.errors.DeadlineExceededError):
                s.run(q.enqueue(2), options=tf.RunOptions(timeout_in_ms=100))
            # the timed-out enqueue left nothing behind
            assert s.run(q.size()) == 1 and s.run(q.dequeue()) == 1


def test_config_operation_timeout():
    with tf.Graph().as_default():
        q = dfo.FIFOQueue(1, tf.int32, shapes=())
        config = tf.ConfigProto(operation_timeout_in_ms=100)
        with tf.Session(config=config) as s, pytest.raises(tf.errors.DeadlineExceededError):
            s.run(q.dequeue())


# ------------------------------------------------------------------------------------------
# padding, priority, random shuffle
# ------------------------------------------------------------------------------------------


def test_padding_fifo_queue():
    with tf.Graph().as_default():
        q = dfo.PaddingFIFOQueue(10, [tf.int32, tf.string], shapes=[[None], [None, 2]])
        x = tf.placeholder(tf.int32, [None])
        y = tf.placeholder(tf.string, [None, 2])
        enq = q.enqueue([x, y])
        deqm = q.dequeue_many(2)
        assert deqm[0].get_shape().as_list() == [2, None]
        with pytest.raises(ValueError, match="partial shapes"):
            dfo.PaddingFIFOQueue(10, tf.int32, shapes=None)
        with tf.Session() as s:
            s.run(enq, {x: [1, 2, 3], y: [["a", "b"]]})
            s.run(enq, {x: [4], y: [["c", "d"], ["e", "f"]]})
            a, b = s.run(deqm)
            assert a.tolist() == [[1, 2, 3], [4, 0, 0]]
            assert b.tolist() == [[[b"a", b"b"], [b"", b""]], [[b"c", b"d"], [b"e", b"f"]]]
            with pytest.raises(ValueError):
                q.enqueue([[[1]], [["a", "b"]]])
            z = tf.placeholder(tf.int32)
            with pytest.raises(tf.errors.InvalidArgumentError, match="Shape mismatch"):
                s.run(q.enqueue([z, y]), {z: [[1]], y: [["a", "b"]]})


def test_priority_queue_order():
    with tf.Graph().as_default():
        q = dfo.PriorityQueue(10, [tf.string], shapes=[[]])
        assert q.dtypes == [tf.int64, tf.string]
        enq = q.enqueue_many([[5, 1, 3, 2, 4], ["e", "a", "c", "b", "d"]])
        with tf.Session() as s:
            s.run(enq)
            pr, vals = s.run(q.dequeue_many(3))
            assert pr.tolist() == [1, 2, 3] and vals.tolist() == [b"a", b"b", b"c"]
            pr, val = s.run(q.dequeue())
            assert pr == 4 and val == b"d"


def test_random_shuffle_keeps_min_after_dequeue_until_closed():
    with tf.Graph().as_default():
        q = dfo.RandomShuffleQueue(10, 3, tf.int32, shapes=(), seed=1)
        enq = q.enqueue_many([np.arange(5, dtype=np.int32)])
        deq = q.dequeue()
        with tf.Session() as s:
            s.run(enq)
            got = [s.run(deq) for _ in range(2)]
            with pytest.raises(tf.errors.DeadlineExceededError):
                s.run(deq, options=tf.RunOptions(timeout_in_ms=100))
            assert s.run(q.size()) == 3
            s.run(q.close())
            got += s.run(q.dequeue_up_to(10)).tolist()
            assert sorted(got) == list(range(5))


def test_random_shuffle_is_seeded():
    def order(seed):
        with tf.Graph().as_default():
            q = dfo.RandomShuffleQueue(100, 0, tf.int32, shapes=(), seed=seed)
            with tf.Session() as s:
                s.run(q.enqueue_many([np.arange(50, dtype=np.int32)]))
                return s.run(q.dequeue_many(50)).tolist()

    a, b, c = order(3), order(3), order(4)
    assert a == b and a != c and sorted(a) == list(range(50)) and a != list(range(50))


# ------------------------------------------------------------------------------------------
# accumulators
# ------------------------------------------------------------------------------------------


def test_accumulator_mean_and_stale_gradients():
    with tf.Graph().as_default():
        acc = dfo.ConditionalAccumulator(tf.float32, shape=[2], name="acc")
        g = tf.placeholder(tf.float32, [2])
        step = tf.placeholder(tf.int64, [])
        apply = acc.apply_grad(g, local_step=step)
        take = acc.take_grad(2)
        assert take.get_shape().as_list() == [2]
        with tf.Session() as s:
            s.run(apply, {g: [1, 2], step: 0})
            s.run(apply, {g: [3, 6], step: 0})
            assert s.run(acc.num_accumulated()) == 2
            np.testing.assert_allclose(s.run(take), [2, 4])
            # the take advanced the global step to 1: a step-0 gradient is now stale
            s.run(apply, {g: [100, 100], step: 0})
            assert s.run(acc.num_accumulated()) == 0
            s.run(apply, {g: [1, 1], step: 1})
            s.run(apply, {g: [3, 3], step: 5})
            np.testing.assert_allclose(s.run(take), [2, 2])
            s.run(acc.set_global_step(10))
            s.run(apply, {g: [1, 1], step: 9})
            assert s.run(acc.num_accumulated()) == 0
            with pytest.raises(tf.errors.InvalidArgumentError, match="num_required"):
                s.run(acc.take_grad(0))


def test_accumulator_shape_check_and_sum():
    with tf.Graph().as_default():
        acc = dfo.ConditionalAccumulator(tf.float64, reduction_type="SUM")
        g = tf.placeholder(tf.float64)
        apply = acc.apply_grad(g)
        with tf.Session() as s:
            s.run(apply, {g: [1.0, 2.0]})
            with pytest.raises(tf.errors.InvalidArgumentError, match="Shape mismatch"):
                s.run(apply, {g: [1.0, 2.0, 3.0]})
            s.run(apply, {g: [1.0, 2.0]})
            np.testing.assert_allclose(s.run(acc.take_grad(2)), [2.0, 4.0])


def test_accumulator_take_blocks_across_threads():
    with tf.Graph().as_default():
        acc = dfo.ConditionalAccumulator(tf.float32, shape=[])
        g = tf.placeholder(tf.float32, [])
        apply = acc.apply_grad(g, local_step=0)
        take = acc.take_grad(6)
        with tf.Session() as s:
            t, box = _start(s.run, take)
            workers = [_start(lambda v=v: [s.run(apply, {g: v}) for _ in range(2)])
                       for v in (1.0, 2.0, 3.0)]
            for w, wb in workers:
                _join(w)
                assert "error" not in wb
            _join(t)
            assert box["value"] == pytest.approx(2.0)


def test_accumulator_take_cancelled_by_session_close():
    with tf.Graph().as_default():
        acc = dfo.ConditionalAccumulator(tf.float32, shape=[])
        s = tf.Session()
        t, box = _start(s.run, acc.take_grad(1))
        _assert_blocked(t)
        s.close()
        _join(t)
        assert isinstance(box["error"], tf.errors.CancelledError)


def test_sparse_accumulator_averages_rows():
    with tf.Graph().as_default():
        acc = dfo.SparseConditionalAccumulator(tf.float32, shape=[4, 2])
        a1 = acc.apply_grad([0, 2], np.array([[1, 1], [2, 2]], np.float32), [4, 2])
        a2 = acc.apply_indexed_slices_grad(tf.IndexedSlices(
            tf.constant([[3.0, 3.0], [5.0, 5.0]]), tf.constant([2, 3], tf.int64),
            tf.constant([4, 2], tf.int64)))
        taken = acc.take_grad(2)
        slices = acc.take_indexed_slices_grad(1)
        with tf.Session() as s:
            s.run([a1])
            s.run([a2])
            idx, vals, shape = s.run(taken)
            assert idx.tolist() == [0, 2, 3]
            np.testing.assert_allclose(vals, [[1, 1], [2.5, 2.5], [5, 5]])
            assert shape.tolist() == [4, 2]
            s.run(acc.apply_grad([1], np.array([[7, 8]], np.float32), local_step=1))
            got = s.run(slices)
            assert got.indices.tolist() == [1] and got.values.tolist() == [[7, 8]]
            with pytest.raises(tf.errors.InvalidArgumentError, match="exceeded limits"):
                s.run(acc.apply_grad([9], np.array([[7, 8]], np.float32), local_step=5))
