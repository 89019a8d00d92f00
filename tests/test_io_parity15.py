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


def test_batch_of_a_sparse_tensor_builds_tfs_ops():
    i = tf.constant(1)
    sp = tf.SparseTensor(indices=[[0]], values=tf.reshape(i, [1]), dense_shape=[4])
    out = tf.train.batch([sp, i], 2, allow_smaller_final_batch=True)
    ops = [(op.name, op.type) for op in tf.get_default_graph().get_operations()
           if op.name.startswith("batch")]
    assert ops[:4] == [("batch/Const", "Const"),
                       ("batch/AddSparseToTensorsMap", "AddSparseToTensorsMap"),
                       ("batch/ExpandDims/dim", "Const"), ("batch/ExpandDims", "ExpandDims")]
    assert ops[-7:] == [("batch", "QueueDequeueUpToV2"), ("batch/Squeeze", "Squeeze"),
                        ("batch/TakeManySparseFromTensorsMap", "TakeManySparseFromTensorsMap"),
                        ("batch/control_dependency", "Identity"),
                        ("batch/control_dependency_1", "Identity"),
                        ("batch/control_dependency_2", "Identity"),
                        ("batch/control_dependency_3", "Identity")]
    assert out[0].indices.name == "batch/control_dependency:0"
    assert out[0].dense_shape.name == "batch/control_dependency_2:0"
    assert out[1].name == "batch/control_dependency_3:0"
    assert str(tf.get_default_graph().get_tensor_by_name("batch:0").shape) == "(?, 1)"


def test_maybe_batch_functions_use_the_batch_scope_names():
    i = tf.constant(1)
    b = tf.train.maybe_batch([i], tf.constant(True), 2)
    s = tf.train.maybe_shuffle_batch([i], 2, 10, 1, tf.constant(True), seed=2)
    assert (b.name, s.name) == ("batch:0", "shuffle_batch:0")
    # a constant keep_input enqueues directly (TF's smart_cond), a vector one partitions
    assert [op.type for op in tf.get_default_graph().get_operations()
            if op.name.startswith("batch/fifo_queue_enqueue")] == ["QueueEnqueueV2"]
    m = tf.train.maybe_batch([tf.constant([1, 2, 3])], tf.constant([True, False, True]), 2,
                             enqueue_many=True)
    assert m.name == "batch_1:0"
    assert tf.get_default_graph().get_operation_by_name("batch_1/DynamicPartition").type == \
        "DynamicPartition"
    with pytest.raises(ValueError, match=r"^`keep_input` must be 0 or 1 dimensions\.$"):
        tf.train.maybe_batch([i], tf.constant([[True]]), 2, enqueue_many=True)


def test_batch_of_a_lone_tensor_is_iterated_as_tf():
    # TF lists the tensors argument: a bare Tensor cannot be iterated in a graph
    with pytest.raises(TypeError, match="iterating over `tf.Tensor` is not allowed"):
        tf.train.batch(tf.constant([1, 2]), 2)
