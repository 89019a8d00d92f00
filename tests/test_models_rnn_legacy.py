"""``tensorflow.models.rnn`` of the 0.x releases (rnn_cell, rnn, seq2seq, linear and the PTB
reader), as 0.8-era language-model and translation programs imported them."""
import numpy as np
import pytest

import tideflow as tf
from tideflow.models.rnn import linear, rnn, rnn_cell, seq2seq
from tideflow.models.rnn.ptb import reader


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _ptb_files(tmp_path):
    (tmp_path / "ptb.train.txt").write_text(" b a c a \n b a d \n")
    (tmp_path / "ptb.valid.txt").write_text(" a b \n")
    (tmp_path / "ptb.test.txt").write_text(" d zz c \n")
    return str(tmp_path)


def test_ptb_raw_data_orders_the_vocabulary_by_count_then_word(tmp_path):
    train, valid, test, vocab = reader.ptb_raw_data(_ptb_files(tmp_path))
    # counts: a 3, <eos> 2, b 2, c 1, d 1 -> ties broken by the word ('<eos>' < 'b', 'c' < 'd')
    ids = {"a": 0, "<eos>": 1, "b": 2, "c": 3, "d": 4}
    assert vocab == 5
    assert train == [ids[w] for w in ["b", "a", "c", "a", "<eos>", "b", "a", "d", "<eos>"]]
    assert valid == [ids["a"], ids["b"], ids["<eos>"]]
    assert test == [ids["d"], ids["c"], ids["<eos>"]]  # the unknown 'zz' is left out


def test_ptb_iterator_windows_and_shifted_targets():
    raw = list(range(23))
    pairs = list(reader.ptb_iterator(raw, batch_size=2, num_steps=3))
    rows = np.arange(22, dtype=np.int32).reshape(2, 11)  # 23 // 2 = 11 words per row
    assert len(pairs) == (11 - 1) // 3
    for i, (x, y) in enumerate(pairs):
        assert x.dtype == np.int32 and x.shape == (2, 3)
        np.testing.assert_array_equal(x, rows[:, 3 * i:3 * i + 3])
        np.testing.assert_array_equal(y, rows[:, 3 * i + 1:3 * i + 4])
    with pytest.raises(ValueError, match="epoch_size == 0"):
        list(reader.ptb_iterator(raw, batch_size=10, num_steps=5))


def test_ptb_producer_steps_through_the_epoch_in_order_then_wraps():
    raw = list(range(23))
    x, y = reader.ptb_producer(raw, 2, 3)
    assert x.get_shape().as_list() == [2, 3] and y.get_shape().as_list() == [2, 3]
    rows = np.arange(22).reshape(2, 11)
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord=coord)
        try:
            for i in list(range(3)) + [0, 1]:
                xv, yv = sess.run([x, y])
                np.testing.assert_array_equal(xv, rows[:, 3 * i:3 * i + 3])
                np.testing.assert_array_equal(yv, rows[:, 3 * i + 1:3 * i + 4])
        finally:
            coord.request_stop()
            coord.join(threads)


def test_ptb_producer_too_short_raises_invalid_argument():
    # TF 1.15's asserts decide while building only through the ops its constant_value folds
    # (not the floor divisions here): a too-short constant fails in the step, as a fed one
    reader.ptb_producer(list(range(7)), 4, 3)
    short = tf.get_default_graph().get_tensor_by_name("PTBProducer/epoch_size:0")
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                             match="epoch_size == 0"):
        sess.run(short)
    raw = tf.placeholder(tf.int32, [None])
    reader.ptb_producer(raw, 4, 3)
    epoch_size = tf.get_default_graph().get_tensor_by_name("PTBProducer_1/epoch_size:0")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="epoch_size == 0"):
            sess.run(epoch_size, {raw: np.arange(7)})
        assert sess.run(epoch_size, {raw: np.arange(23)}) == 1


def test_linear_makes_matrix_and_bias_under_its_scope():
    a = tf.constant([[1.0, 2.0]])
    b = tf.constant([[3.0]])
    out = linear.linear([a, b], 2, True, bias_start=0.5, scope="proj")
    assert rnn_cell.linear is linear.linear
    names = sorted(v.op.name for v in tf.global_variables())
    assert names == ["proj/Bias", "proj/Matrix"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        m = sess.run(next(v for v in tf.global_variables() if v.op.name == "proj/Matrix"))
        # (float32 against a float64 reference: a sum near 0 of the unseeded random weights
        # may cancel, hence the absolute tolerance)
        np.testing.assert_allclose(sess.run(out), np.array([[1.0, 2.0, 3.0]]) @ m + 0.5,
                                   rtol=1e-6, atol=1e-6)


def test_0x_translation_model_trains_with_the_old_module_names():
    # the 0.8 seq2seq tutorial's shape: lists of int32 steps, an embedding attention model and
    # the sequence loss over the decoder's outputs
    steps, vocab, batch = 3, 6, 4
    enc = [tf.placeholder(tf.int32, [None], name=f"enc{i}") for i in range(steps)]
    dec = [tf.placeholder(tf.int32, [None], name=f"dec{i}") for i in range(steps)]
    weights = [tf.ones([batch]) for _ in range(steps)]
    cell = rnn_cell.MultiRNNCell([rnn_cell.GRUCell(8) for _ in range(2)])
    outputs, _ = seq2seq.embedding_attention_seq2seq(
        enc, dec, cell, num_encoder_symbols=vocab, num_decoder_symbols=vocab, embedding_size=5)
    loss = seq2seq.sequence_loss(outputs, dec, weights)
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    rng = np.random.RandomState(0)
    feed = {p: rng.randint(0, vocab, batch).astype(np.int32) for p in enc + dec}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, feed)
        for _ in range(30):
            sess.run(train, feed)
        last = sess.run(loss, feed)
    assert np.isfinite(first) and last < 0.5 * first


def test_rnn_driver_names_run_cells_over_lists_of_steps():
    x = [tf.constant(np.full((2, 3), i + 1.0, np.float32)) for i in range(4)]
    cell = rnn_cell.BasicRNNCell(3, activation=tf.identity)
    outputs, state = rnn.rnn(cell, x, dtype=tf.float32)
    assert rnn.rnn is tf.nn.static_rnn and len(outputs) == 4
    kernel, bias = tf.trainable_variables()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        k, b, got = sess.run([kernel, bias, state])
    h = np.zeros((2, 3), np.float32)
    for i in range(4):
        h = np.concatenate([np.full((2, 3), i + 1.0, np.float32), h], 1) @ k + b
    np.testing.assert_allclose(got, h, rtol=1e-5)
