"""Fixes found by running public TF 1.x model programs (SeqGAN, WaveNet, show-attend-and-tell,
facenet, SSD, tacotron, tutorials) under tideflow: each test pins one behaviour those programs
rely on, with values checked against NumPy or hand-derived numbers."""

import numpy as np

import tideflow as tf


def test_python_ops_control_flow_ops_has_while_loop_cond_and_case():
    # SeqGAN's generator imports control_flow_ops from tensorflow.python.ops and calls
    # control_flow_ops.while_loop; TF 1.x's module holds while_loop, cond and case too
    from tideflow.python.ops import control_flow_ops, tensor_array_ops

    with tf.Graph().as_default():
        xs = tf.constant(np.arange(1.0, 6.0, dtype=np.float32))
        ta = tensor_array_ops.TensorArray(dtype=tf.float32, size=5)

        def body(i, acc, ta):
            v = xs[i] * xs[i]
            return i + 1, acc + v, ta.write(i, v)

        _, total, ta = control_flow_ops.while_loop(
            lambda i, *_: i < 5, body, (tf.constant(0), tf.constant(0.0), ta))
        picked = control_flow_ops.cond(total > 50.0, lambda: total, lambda: -total)
        branch = control_flow_ops.case([(tf.less(total, 0.0), lambda: tf.constant(1.0))],
                                       default=lambda: tf.constant(2.0))
        with tf.Session() as sess:
            t, p, b, sq = sess.run([total, picked, branch, ta.stack()])
    expected = np.arange(1.0, 6.0) ** 2
    np.testing.assert_allclose(sq, expected)
    assert t == expected.sum() == p == 55.0
    assert b == 2.0
    assert control_flow_ops.group is tf.group
