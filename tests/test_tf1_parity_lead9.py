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
