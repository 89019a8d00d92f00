"""Small TF 1.x behaviours found by running the same programs under tideflow and TensorFlow
(ninth session; our own cases)."""

import numpy as np

import tideflow as tf


def test_indexed_slices_to_dense_builds_tf_ops():
    with tf.Graph().as_default() as g:
        x = tf.constant([[1., 2.], [3., 4.]])
        grad = tf.gradients(tf.gather(x, [1, 1, 0]), x)[0]
        n = len(g.get_operations())
        dense = tf.convert_to_tensor(grad)
        # dense_shape[0] is a StridedSlice, as TF builds it (op names follow TF's)
        assert [op.type for op in g.get_operations()[n:]] == [
            "Const", "Const", "Const", "StridedSlice", "UnsortedSegmentSum"]
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(dense), [[1., 1.], [2., 2.]])


def test_sparse_concat_static_shape_from_known_shapes():
    with tf.Graph().as_default():
        a = tf.SparseTensor([[0, 1], [2, 2]], [1., 3.], [3, 3])
        b = tf.SparseTensor([[1, 0]], [5.], [3, 2])
        c = tf.sparse_concat(1, [a, b])
        assert c.shape.as_list() == [3, 5]
        assert tf.sparse_concat(-1, [a, b]).shape.as_list() == [3, 5]
        # an unknown input shape leaves it unknown
        p = tf.sparse_placeholder(tf.float32, shape=[None, 3])
        assert tf.sparse_concat(0, [a, p]).shape.ndims in (None, 2)
        with tf.Session() as sess:
            v = sess.run(c)
        np.testing.assert_array_equal(v.dense_shape, [3, 5])
        np.testing.assert_array_equal(v.indices, [[0, 1], [1, 3], [2, 2]])


def test_a_step_that_both_dequeues_and_enqueues_completes():
    # TF runs a step's independent ops concurrently: the dequeue waits for the enqueue of the
    # same step (a serial plan must run the enqueue first, whatever the creation order)
    with tf.Graph().as_default():
        q = tf.FIFOQueue(3, tf.int32, shapes=[[]])
        dequeued = q.dequeue()
        enqueue = q.enqueue(5)
        dq_many = q.dequeue_many(2)
        enq_many = q.enqueue_many([[1, 2]])
        with tf.Session() as sess:
            assert sess.run([dequeued, enqueue]) == [5, None]
            assert sess.run([enqueue, dequeued]) == [None, 5]
            got, _ = sess.run([dq_many, enq_many])
            np.testing.assert_array_equal(got, [1, 2])
            # a failing Assert beside a dequeue on an empty queue ends the step (it did block)
            check = tf.Assert(False, ["boom"])
            try:
                sess.run([dequeued, check])
                raise AssertionError("the Assert did not fail")
            except tf.errors.InvalidArgumentError as e:
                assert "boom" in str(e)
            assert sess.run(q.size()) == 0


def test_scaffold_default_ready_ops_report_variables_and_resources():
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        scaffold = tf.train.Scaffold().finalize()
        # TF's form: uninitialized variables and resources concatenated into one vector
        assert scaffold.ready_op.op.type == "ConcatV2"
        assert scaffold.ready_for_local_init_op.op.type == "ConcatV2"
        with tf.Session() as sess:
            assert list(sess.run(scaffold.ready_op)) == [b"v"]
            sess.run(v.initializer)
            assert sess.run(scaffold.ready_op).size == 0
            assert sess.run(scaffold.ready_for_local_init_op).size == 0
            sess.run(scaffold.local_init_op)
