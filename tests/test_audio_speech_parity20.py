"""Audio and speech programs of TF 1.x (tf.signal features, CTC models, WaveNet pieces,
WAV decoding) checked against TF 1.15's shapes, values and errors."""
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
