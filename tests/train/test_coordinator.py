"""Coordinator (stop requests, join re-raising the first reported exception, grace periods,
LooperThread) and QueueRunner (threads, closing the queue, errors, protos)."""

import threading
import time

import pytest

import tideflow as tf
from tideflow.ops import data_flow_ops as dfo
from tideflow.protos import queue_runner_pb2
from tideflow.train import input as input_lib
from tideflow.train.coordinator import Coordinator, LooperThread
from tideflow.train.queue_runner import QueueRunner, add_queue_runner, start_queue_runners


def _worker(coord, fail_after=None, exc=None):
    def run():
        with coord.stop_on_exception():
            n = 0
            while not coord.should_stop():
                n += 1
                if fail_after is not None and n >= fail_after:
                    raise exc
                time.sleep(0.005)

    t = threading.Thread(target=run, daemon=True)
    coord.register_thread(t)
    t.start()
    return t


def test_join_reraises_first_exception():
    coord = Coordinator()
    threads = [_worker(coord), _worker(coord, 3, ValueError("boom")), _worker(coord)]
    with pytest.raises(ValueError, match="boom"):
        coord.join(threads, stop_grace_period_secs=10)
    assert coord.should_stop() and coord.joined
    assert not any(t.is_alive() for t in threads)
    # after join, a reported exception is raised at once: TF 1.15 re-raises sys.exc_info(),
    # the exception being handled (measured)
    try:
        raise RuntimeError("late")
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match="late"):
            coord.request_stop(e)


def test_clean_stop_exceptions_are_not_reported():
    coord = Coordinator()
    t = _worker(coord, 2, tf.errors.OutOfRangeError(None, None, "done"))
    coord.join([t], stop_grace_period_secs=10)
    coord2 = Coordinator(clean_stop_exception_types=(KeyError,))
    t2 = _worker(coord2, 2, KeyError("k"))
    coord2.join([t2], stop_grace_period_secs=10)


def test_request_stop_wait_and_clear():
    coord = Coordinator()
    assert not coord.wait_for_stop(0.01)
    try:
        raise OSError("io")
    except OSError as e:
        coord.request_stop(e)
    assert coord.wait_for_stop(0.01)
    with pytest.raises(OSError, match="io"):
        coord.raise_requested_exception()
    coord.clear_stop()
    assert not coord.should_stop()
    coord.raise_requested_exception()


def test_join_reports_stragglers():
    coord = Coordinator()
    release = threading.Event()
    t = threading.Thread(target=release.wait, args=(10,), daemon=True)
    t.start()
    coord.request_stop()
    with pytest.raises(RuntimeError, match="threads still running"):
        coord.join([t], stop_grace_period_secs=0.05)
    release.set()
    t.join(5)
    coord2 = Coordinator()
    release2 = threading.Event()
    t2 = threading.Thread(target=release2.wait, args=(10,), daemon=True)
    t2.start()
    coord2.request_stop()
    coord2.join([t2], stop_grace_period_secs=0.05, ignore_live_threads=True)
    release2.set()
    t2.join(5)


def test_looper_thread():
    coord = Coordinator()
    calls = []
    looper = LooperThread.loop(coord, 0.01, target=calls.append, args=(1,))
    time.sleep(0.1)
    coord.request_stop()
    coord.join([looper], stop_grace_period_secs=5)
    assert len(calls) >= 2


# ------------------------------------------------------------------------------------------
# QueueRunner
# ------------------------------------------------------------------------------------------


def test_queue_runner_closes_queue_when_input_ends():
    with tf.Graph().as_default():
        values = input_lib.limit_epochs(tf.constant([1, 2, 3]), num_epochs=2)
        q = dfo.FIFOQueue(4, tf.int32, shapes=())
        qr = QueueRunner(q, [q.enqueue_many([values])] * 2)
        deq = q.dequeue()
        with tf.Session() as s:
            s.run(tf.local_variables_initializer())
            coord = Coordinator()
            threads = qr.create_threads(s, coord=coord, start=True)
            assert qr.create_threads(s, coord=coord) == []  # already running for s
            got = []
            try:
                while True:
                    got.append(s.run(deq))
            except tf.errors.OutOfRangeError:
                pass
            assert sorted(got) == [1, 1, 2, 2, 3, 3]
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)


def test_queue_runner_reports_errors_to_coordinator():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)  # never fed: the enqueue fails
        q = dfo.FIFOQueue(4, tf.float32)
        qr = QueueRunner(q, [q.enqueue(x)])
        with tf.Session() as s:
            coord = Coordinator()
            threads = qr.create_threads(s, coord=coord, start=True)
            with pytest.raises(tf.errors.InvalidArgumentError):
                coord.join(threads, stop_grace_period_secs=10)
            assert s.run(q.is_closed())  # the close-on-stop thread cancelled the queue


def test_queue_runner_without_coordinator_records_exceptions():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
        q = dfo.FIFOQueue(4, tf.float32)
        qr = QueueRunner(q, [q.enqueue(x)])
        with tf.Session() as s:
            threads = qr.create_threads(s)
            assert len(threads) == 1 and not threads[0].is_alive()
            import tideflow.logging as tf_logging

            old = tf_logging.get_verbosity()
            tf_logging.set_verbosity(tf_logging.FATAL)
            try:
                # the thread re-raises after recording; silence threading's hook
                hook, threading.excepthook = threading.excepthook, lambda args: None
                try:
                    threads[0].start()
                    threads[0].join(10)
                finally:
                    threading.excepthook = hook
            finally:
                tf_logging.set_verbosity(old)
            assert len(qr.exceptions_raised) == 1


def test_start_queue_runners_and_stop_with_session_close():
    with tf.Graph().as_default():
        q = dfo.FIFOQueue(2, tf.float32, shapes=())
        add_queue_runner(QueueRunner(q, [q.enqueue(1.0)]))
        with pytest.raises(ValueError, match="No default session"):
            start_queue_runners()
        with tf.Session() as s:
            coord = Coordinator()
            threads = start_queue_runners(s, coord=coord)
            assert all(t.daemon for t in threads) and len(threads) == 2
            assert s.run(q.dequeue_many(5)).tolist() == [1.0] * 5
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)


def test_queue_runner_proto_round_trip():
    with tf.Graph().as_default():
        q = dfo.FIFOQueue(2, tf.float32, shapes=(), name="scope/q")
        qr = QueueRunner(q, [q.enqueue(1.0)],
                         queue_closed_exception_types=(tf.errors.OutOfRangeError,
                                                       tf.errors.CancelledError))
        proto = qr.to_proto()
        assert isinstance(proto, queue_runner_pb2.QueueRunnerDef)
        assert proto.queue_name == "scope/q"
        assert list(proto.queue_closed_exception_types) == [11, 1]
        assert qr.to_proto(export_scope="other") is None
        assert qr.to_proto(export_scope="scope").queue_name == "q"
        qr2 = QueueRunner.from_proto(proto)
        assert qr2.queue.name == "scope/q"
        assert [op.name for op in qr2.enqueue_ops] == [op.name for op in qr.enqueue_ops]
        assert qr2.close_op is qr.close_op and qr2.cancel_op is qr.cancel_op
        assert qr2.queue_closed_exception_types == (tf.errors.OutOfRangeError,
                                                    tf.errors.CancelledError)
        with pytest.raises(TypeError):
            QueueRunner(q, [q.enqueue(1.0)], queue_closed_exception_types=[ValueError])
        with pytest.raises(ValueError):
            QueueRunner(q, [])
