"""tf.contrib.legacy_seq2seq as TF 1.15's seq2seq tests use it: the module path, every model
with a boolean-tensor ``feed_previous``, the tied and one-to-many models (our own cases)."""

import numpy as np
import pytest
from tideflow.contrib.legacy_seq2seq.python.ops import seq2seq as s2s

import tideflow as tf
from tideflow.python.ops import rnn_cell


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _ints(values, batch=2):
    return [tf.constant(v, tf.int32, shape=[batch]) for v in values]


def test_module_path_is_tf_contrib_legacy_seq2seq():
    assert s2s is tf.contrib.legacy_seq2seq
    for name in ("embedding_tied_rnn_seq2seq", "one2many_rnn_seq2seq", "model_with_buckets"):
        assert callable(getattr(s2s, name))


def test_a_layer_called_in_a_cond_branch_on_an_outer_input_and_an_inner_state():
    x = tf.ones([2, 3])
    cell = rnn_cell.BasicLSTMCell(4)

    def branch():
        out, _ = cell(x, cell.zero_state(2, tf.float32))
        return out

    pred = tf.placeholder(tf.bool, [])
    y = tf.cond(pred, branch, lambda: tf.zeros([2, 4]))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(y, {pred: True}).shape == (2, 4)
        np.testing.assert_array_equal(sess.run(y, {pred: False}), np.zeros([2, 4]))


@pytest.mark.parametrize("model", ["rnn", "tied", "attention"])
def test_tensor_feed_previous_matches_python_true(model):
    enc = _ints([1, 2])
    dec_a = _ints([0, 3, 1])
    dec_b = _ints([0, 0, 0])  # fed back from the outputs, so only the first step counts

    def build(dec, feed_previous):
        cell = rnn_cell.BasicLSTMCell(3)
        if model == "tied":
            return s2s.embedding_tied_rnn_seq2seq(enc, dec, cell, num_symbols=5,
                                                  embedding_size=2, feed_previous=feed_previous)
        fn = (s2s.embedding_rnn_seq2seq if model == "rnn"
              else s2s.embedding_attention_seq2seq)
        return fn(enc, dec, cell, num_encoder_symbols=3, num_decoder_symbols=5,
                  embedding_size=2, feed_previous=feed_previous)

    with tf.variable_scope("m", initializer=tf.random_uniform_initializer(-1, 1, seed=3)):
        with tf.variable_scope("py"):
            out_py, _ = build(dec_a, True)
        with tf.variable_scope("tensor"):
            flag = tf.placeholder(tf.bool, [])
            out_t, state_t = build(dec_b, flag)
    assert len(out_t) == 3 and out_t[0].shape.as_list() == [2, 5]
    assert isinstance(state_t, tf.nn.rnn_cell.LSTMStateTuple)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        want = sess.run(out_py)
        got = sess.run(out_t, {flag: True})
        np.testing.assert_allclose(got, want, rtol=1e-6)
        # False feeds dec_b itself: a different decoding
        assert not np.allclose(sess.run(out_t, {flag: False}), want)


def test_embedding_tied_rnn_seq2seq_sizes_and_projection():
    enc, dec = _ints([1, 1]), _ints([0, 1, 2])
    cell = rnn_cell.BasicLSTMCell(2)
    out, state = s2s.embedding_tied_rnn_seq2seq(enc, dec, cell, num_symbols=5, embedding_size=2,
                                                num_decoder_symbols=3)
    assert [o.shape.as_list() for o in out] == [[2, 3]] * 3
    names = sorted(v.op.name for v in tf.global_variables())
    # one embedding shared by encoder and decoder, one set of cell weights
    assert names.count("embedding_tied_rnn_seq2seq/embedding") == 1
    assert sum("basic_lstm_cell/kernel" in n for n in names) == 1
    w = tf.get_variable("proj_w", [2, 5])
    b = tf.get_variable("proj_b", [5])
    with tf.variable_scope("proj"):
        out, _ = s2s.embedding_tied_rnn_seq2seq(enc, dec, rnn_cell.BasicLSTMCell(2),
                                                num_symbols=5, embedding_size=2,
                                                output_projection=(w, b))
    assert out[0].shape.as_list() == [2, 2]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(state).h.shape == (2, 2)


def test_one2many_rnn_seq2seq():
    enc = _ints([1, 1])
    dec = {"a": _ints([0, 1, 2]), "b": _ints([0, 1, 2, 3])}
    symbols = {"a": 5, "b": 6}
    outs, states = s2s.one2many_rnn_seq2seq(
        enc, dec, rnn_cell.BasicLSTMCell(2), {k: rnn_cell.BasicLSTMCell(2) for k in dec}, 2,
        symbols, embedding_size=2)
    assert [o.shape.as_list() for o in outs["a"]] == [[2, 5]] * 3
    assert [o.shape.as_list() for o in outs["b"]] == [[2, 6]] * 4
    scopes = {v.op.name.split("/")[1] for v in tf.global_variables()}
    assert {"one2many_decoder_a", "one2many_decoder_b"} <= scopes
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(states["b"]).c.shape == (2, 2)
    with pytest.raises(TypeError, match="enc_cell is not an RNNCell"):
        s2s.one2many_rnn_seq2seq(enc, dec, object(), {}, 2, symbols, 2)
    with pytest.raises(ValueError, match="keys of dec_cells_dict"):
        s2s.one2many_rnn_seq2seq(enc, dec, rnn_cell.BasicLSTMCell(2),
                                 {"a": rnn_cell.BasicLSTMCell(2)}, 2, symbols, 2)


def test_one2many_tensor_feed_previous():
    enc = _ints([1, 2])
    symbols = {"a": 4}
    with tf.variable_scope("x", initializer=tf.random_uniform_initializer(-1, 1, seed=4)):
        with tf.variable_scope("py"):
            want, _ = s2s.one2many_rnn_seq2seq(
                enc, {"a": _ints([0, 2, 1])}, rnn_cell.BasicLSTMCell(2),
                {"a": rnn_cell.BasicLSTMCell(2)}, 3, symbols, 2, feed_previous=True)
        with tf.variable_scope("t"):
            got, _ = s2s.one2many_rnn_seq2seq(
                enc, {"a": _ints([0, 0, 0])}, rnn_cell.BasicLSTMCell(2),
                {"a": rnn_cell.BasicLSTMCell(2)}, 3, symbols, 2,
                feed_previous=tf.constant(True))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(got["a"]), sess.run(want["a"]), rtol=1e-6)
