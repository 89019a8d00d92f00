"""Differential parity with TF 1.15 for input pipelines, checkpoints and summaries as a TF 1.x
program sees them (queues, batching, readers, parsing, Saver, monitored sessions, events).
Expected values are what TF 1.15 prints for the same programs."""

import threading
import time

import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_enqueue_pairs_values_with_dtypes_by_zip():
    # TF zips the values with the dtypes: a longer list is cut to the queue's components
    q = tf.FIFOQueue(3, tf.float32, shapes=[[2]])
    with pytest.raises(ValueError, match=r"Shapes \(\) and \(2,\) are incompatible"):
        q.enqueue([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"Shape \(\) must have rank at least 1"):
        q.enqueue_many([1.0, 2.0, 3.0])
    pq = tf.PriorityQueue(10, [tf.string], shapes=[[]])
    with pytest.raises(TypeError, match="Expected int64"):
        pq.enqueue(("x",))


def test_blocked_dequeue_many_reports_what_was_missing_at_close():
    q = tf.FIFOQueue(10, [tf.int32], shapes=[[]])
    pq = tf.PriorityQueue(10, [tf.int32], shapes=[[]])
    d, pd = q.dequeue_many(4), pq.dequeue_many(4)
    got = {}
    with tf.Session() as s:
        s.run(q.enqueue_many([[1, 2, 3]]))
        s.run(pq.enqueue_many([[1, 2, 3], [1, 2, 3]]))
        for key, t in (("fifo", d), ("prio", pd)):
            def run(key=key, t=t):
                try:
                    s.run(t)
                except tf.errors.OutOfRangeError as e:
                    got[key] = str(e)
            th = threading.Thread(target=run)
            th.start()
            time.sleep(0.2)
        s.run([q.close(), pq.close()])
        time.sleep(0.3)
        # the blocked dequeue had taken the three elements: TF reports the one still missing
        assert "insufficient elements (requested 1, current size 0)" in got["fifo"]
        assert "insufficient elements (requested 4, current size 3)" in got["prio"]
        # the elements went back: a dequeue that starts after the close sees them all
        with pytest.raises(tf.errors.OutOfRangeError, match=r"requested 4, current size 3\)"):
            s.run(d)
