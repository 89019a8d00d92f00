"""Audio and speech programs of TF 1.x (tf.signal features, CTC models, WaveNet pieces,
WAV decoding) checked against TF 1.15's shapes, values and errors."""
import numpy as np

import tideflow as tf


def test_edit_distance_of_run_time_shapes_has_unknown_rank():
    # TF 1.15's EditDistance shape function needs both dense shapes' values; a decoder's or
    # a placeholder's shape leaves the output <unknown> (not a known rank of unknown dims).
    with tf.Graph().as_default():
        hyp = tf.SparseTensor(tf.placeholder(tf.int64, [None, 2]),
                              tf.placeholder(tf.int32, [None]), tf.placeholder(tf.int64, [2]))
        truth = tf.SparseTensor([[0, 0]], [1], [3, 4])
        assert tf.edit_distance(hyp, truth).get_shape().ndims is None
        assert tf.edit_distance(truth, hyp).get_shape().ndims is None
        assert tf.edit_distance(truth, truth).get_shape().as_list() == [3]
        logits = tf.placeholder(tf.float32, [5, 2, 4])
        (dec,), _ = tf.nn.ctc_greedy_decoder(logits, [5, 5])
        assert tf.edit_distance(tf.cast(dec, tf.int32), truth).get_shape().ndims is None


def test_generation_queue_push_and_pop_in_one_run():
    # Fast WaveNet generation: a full FIFOQueue of past activations is popped and pushed in
    # the same Session.run. TF 1.15 runs the Dequeue and the Enqueue together and both finish
    # (tideflow's serial plan blocked in the Enqueue forever). Outputs from TF 1.15.
    with tf.Graph().as_default():
        q = tf.FIFOQueue(2, dtypes=tf.float32, shapes=(1, 4))
        init = q.enqueue_many(tf.zeros((2, 1, 4)))
        cur = tf.placeholder(tf.float32, [1, 4])
        out = q.dequeue() + cur
        push = q.enqueue([cur])
        with tf.Session() as s:
            s.run(init)
            opts = tf.RunOptions(timeout_in_ms=5000)
            got = [s.run([out, push], {cur: np.full((1, 4), t + 1, np.float32)},
                         options=opts)[0][0, 0] for t in range(4)]
            assert got == [1.0, 2.0, 4.0, 6.0]
            assert s.run(q.size()) == 2
            # an enqueue something waits on still blocks in place: a deadline ends it
            with tf.control_dependencies([q.enqueue([cur])]):
                after = tf.identity(cur)
            opts = tf.RunOptions(timeout_in_ms=300)
            try:
                s.run(after, {cur: np.zeros((1, 4), np.float32)}, options=opts)
                raise AssertionError("expected DeadlineExceededError")
            except tf.errors.DeadlineExceededError:
                pass
