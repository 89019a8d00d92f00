"""Recurrent models trained step by step as TF 1.15 trains them: seeded programs whose losses
at every step, and final weights, are TF's bits. The reference values were measured in TF 1.15
(tensorflow-cpu 1.15.0, CPython 3.7, on this 2-core AMD EPYC machine) running the same
programs: each step's loss as big-endian float32 hex, and the first 16 hex digits of the
sha256 of the trained variables' bytes in order."""

import hashlib

import numpy as np
import pytest

import tideflow as tf


def _train(loss, opt, steps=12):
    train = opt.minimize(loss)
    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(steps):
            losses.append(sess.run([loss, train])[0])
        weights = sess.run(tf.trainable_variables())
    digest = hashlib.sha256(b"".join(np.asarray(w, np.float32).tobytes() for w in weights))
    return np.array(losses, np.float32).astype(">f4").tobytes().hex(), digest.hexdigest()[:16]


def _static_multi_lstm():
    # two stacked BasicLSTMCells unrolled over 12 steps: each weight gradient an AddN of 12
    rs = np.random.RandomState(25)
    x = rs.randn(4, 12, 3).astype(np.float32)
    y = rs.randn(4, 6).astype(np.float32)
    tf.set_random_seed(25)
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(6) for _ in range(2)])
    outs, _ = tf.nn.static_rnn(cell, tf.unstack(tf.constant(x), axis=1), dtype=tf.float32)
    loss = tf.reduce_mean(tf.square(outs[-1] - y))
    return _train(loss, tf.train.MomentumOptimizer(0.05, 0.9))


def _static_lstm_peepholes():
    # LSTMCell with peepholes, projection and cell clip, unrolled over 5 steps
    rs = np.random.RandomState(3)
    x = rs.randn(4, 5, 3).astype(np.float32)
    y = rs.randn(4, 6).astype(np.float32)
    tf.set_random_seed(13)
    cell = tf.nn.rnn_cell.LSTMCell(8, use_peepholes=True, num_proj=6, cell_clip=1.5)
    outs, _ = tf.nn.static_rnn(cell, tf.unstack(tf.constant(x), axis=1), dtype=tf.float32)
    loss = tf.reduce_mean(tf.square(outs[-1] - y))
    return _train(loss, tf.train.MomentumOptimizer(0.1, 0.5))


def _static_lstm_lengths():
    # BasicLSTMCell unrolled with sequence lengths (a cond per step), Nesterov momentum
    rs = np.random.RandomState(7)
    x = rs.randn(4, 5, 3).astype(np.float32)
    y = rs.randn(4, 6).astype(np.float32)
    tf.set_random_seed(17)
    cell = tf.nn.rnn_cell.BasicLSTMCell(6)
    outs, st = tf.nn.static_rnn(cell, tf.unstack(tf.constant(x), axis=1),
                                sequence_length=tf.constant([5, 2, 4, 3]), dtype=tf.float32)
    loss = tf.reduce_mean(tf.square(st.h - y)) + 0.05 * tf.add_n(
        [tf.reduce_sum(o) for o in outs])
    return _train(loss, tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True))


# a static RNN's weight gradients are AddNs of one product per step, which TF sums in its
# AddN order (inputs sorted by name, blocks of 8); a plan that summed them as they were
# computed drifted from the first step on (weights a few ulps off, the losses later)
_STATIC_REF = {
    "multi_lstm": (_static_multi_lstm,
                   ("3f6fea3b3f6cb1d83f670ab83f601b2d3f5911713f52aa283f4d0ff83f481a70"
                   "3f43918f3f3f4c633f3b35773f3745b3"), "ac450948eee0ed04"),
    "lstm_peepholes": (_static_lstm_peepholes,
                       ("3f8a14ad3f87875e3f8403c93f805fae3f79e2f43f739dc03f6debdf3f68bee8"
                       "3f6408a33f5fbbd03f5bcb393f582950"), "2151fc68bf7b7883"),
    "lstm_lengths": (_static_lstm_lengths,
                     ("3f9f699e3f9538f63f8775d23f6f8e6e3f4f292e3f2f5dfa3f10d9fa3ee7606b"
                     "3eaf87e23e7470bc3e0fb4143d46a240"), "92041b2d779e4922"),
}


@pytest.mark.parametrize("name", sorted(_STATIC_REF))
def test_static_rnn_trains_to_tf_bits(name):
    program, losses, weights = _STATIC_REF[name]
    with tf.Graph().as_default():
        got_losses, got_weights = program()
    assert got_losses == losses
    assert got_weights == weights


def _dynamic_lstm_three_units():
    # a [4, 3] gate: SigmoidGrad's last 4 elements take Eigen's scalar code
    rs = np.random.RandomState(6)
    x = rs.randn(4, 5, 3).astype(np.float32)
    y = rs.randn(4, 3).astype(np.float32)
    tf.set_random_seed(16)
    _, st = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(3), tf.constant(x),
                              dtype=tf.float32)
    loss = tf.reduce_mean(tf.square(st.h - y))
    return _train(loss, tf.train.MomentumOptimizer(0.05, 0.9))


def test_dynamic_lstm_with_a_partial_packet_gate_trains_to_tf_bits():
    with tf.Graph().as_default():
        losses, weights = _dynamic_lstm_three_units()
    assert losses == ("3f667c893f63f5f93f5f45fd3f58e19b3f5155c53f493da43f4133fc3f39c5bd"
                      "3f335e103f2e2b083f2a15913f26dbeb")
    assert weights == "413f2951b9013790"



def _dynamic_lstm_weighted_loss():
    # loss = mean(...) + 0.1 * mean(...): TF's constant folding makes the second mean's
    # gradient 0.1 / 60 through the gradient tuple's Identity (whose control input is the
    # tuple's group of pure gradient ops); run as 0.1 * (1 / 60) it is a last bit off
    rs = np.random.RandomState(6)
    x = rs.randn(4, 5, 3).astype(np.float32)
    y = rs.randn(4, 3).astype(np.float32)
    tf.set_random_seed(16)
    out, st = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(3), tf.constant(x),
                                sequence_length=tf.constant([5, 4, 1, 3]), dtype=tf.float32)
    loss = tf.reduce_mean(tf.square(st.h - y)) + tf.reduce_mean(tf.square(out)) * 0.1
    return _train(loss, tf.train.MomentumOptimizer(0.05, 0.9))


def test_weighted_loss_terms_seed_gradients_folded_as_tf():
    with tf.Graph().as_default():
        losses, weights = _dynamic_lstm_weighted_loss()
    assert losses == ("3f2e2a963f2d68753f2bfacc3f29f8b73f27797d3f2494393f215fac3f1df1df"
                      "3f1a5fee3f16bda43f131d003f0f8dae")
    assert weights == "e8fa098f66247349"



def _bidirectional_lengths():
    rs = np.random.RandomState(6)
    x = rs.randn(4, 5, 3).astype(np.float32)
    y = rs.randn(4, 6).astype(np.float32)
    tf.set_random_seed(16)
    (of, ob), (sf, sb) = tf.nn.bidirectional_dynamic_rnn(
        tf.nn.rnn_cell.GRUCell(3), tf.nn.rnn_cell.BasicLSTMCell(3), tf.constant(x),
        sequence_length=tf.constant([5, 4, 1, 3]), dtype=tf.float32)
    h = tf.concat([sf, sb.h], 1)
    loss = tf.reduce_mean(tf.square(h - y)) + tf.reduce_mean(tf.square(of + ob)) * 0.1
    return _train(loss, tf.train.MomentumOptimizer(0.05, 0.9))


def _seq2seq_luong():
    rs = np.random.RandomState(24)
    src = rs.randn(4, 6, 3).astype(np.float32)
    tgt_in = rs.randn(4, 4, 5).astype(np.float32)
    labels = rs.randint(0, 7, (4, 4)).astype(np.int32)
    src_len = np.array([6, 4, 5, 3], np.int32)
    tgt_len = np.array([4, 3, 4, 2], np.int32)
    tf.set_random_seed(24)
    enc_out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(6), tf.constant(src),
                                   sequence_length=src_len, dtype=tf.float32, scope="encoder")
    mech = tf.contrib.seq2seq.LuongAttention(6, enc_out, memory_sequence_length=src_len,
                                             scale=True)
    cell = tf.contrib.seq2seq.AttentionWrapper(tf.nn.rnn_cell.LSTMCell(6), mech,
                                               attention_layer_size=4)
    helper = tf.contrib.seq2seq.TrainingHelper(tf.constant(tgt_in), tgt_len)
    dec = tf.contrib.seq2seq.BasicDecoder(cell, helper, cell.zero_state(4, tf.float32),
                                          output_layer=tf.layers.Dense(7))
    outs, _, _ = tf.contrib.seq2seq.dynamic_decode(dec)
    mask = tf.sequence_mask(tgt_len, 4, dtype=tf.float32)
    loss = tf.contrib.seq2seq.sequence_loss(outs.rnn_output, tf.constant(labels), mask)
    return _train(loss, tf.train.MomentumOptimizer(0.05, 0.9))


_DYNAMIC_REF = {
    "bidirectional_lengths": (_bidirectional_lengths,
                              ("3f9372e63f92d3503f91a0493f8fe1e03f8d9d9d3f8ad7d43f8794fb"
                               "3f83daf43f7f65f43f7659cd3f6cc9373f630fbd"), "1c989b0b3f738b5d"),
    "seq2seq_luong": (_seq2seq_luong,
                      ("3ff611b43ff4ee023ff2cdfe3fefdcd23fec46823fe835aa3fe3d207"
                       "3fdf3fcc3fda9f6f3fd60ddf3fd1a4a63fcd79c5"), "f54c4b9a32949f0e"),
}


@pytest.mark.parametrize("name", sorted(_DYNAMIC_REF))
def test_dynamic_programs_train_to_tf_bits(name):
    program, losses, weights = _DYNAMIC_REF[name]
    with tf.Graph().as_default():
        got_losses, got_weights = program()
    assert got_losses == losses
    assert got_weights == weights



# LSTMBlockCell's outputs and final cell state (sha256 of their bytes): TF's kernel adds the
# forget bias to the forget gate before its peephole term
_BLOCK_CELL_REF = {
    (True, 2.0, 0.5): "23fd809f0565cb71",
    (False, None, 1.0): "a7f768e74b718983",
    (True, None, 1.0): "a759a1e57cd376bb",
}


@pytest.mark.parametrize("peephole,clip,forget_bias", sorted(_BLOCK_CELL_REF, key=str))
def test_lstm_block_cell_forward_is_tf_bits(peephole, clip, forget_bias):
    x = np.random.RandomState(8).randn(4, 5, 3).astype(np.float32)
    with tf.Graph().as_default():
        tf.set_random_seed(18)
        cell = tf.contrib.rnn.LSTMBlockCell(6, forget_bias=forget_bias, cell_clip=clip,
                                            use_peephole=peephole)
        out, st = tf.nn.dynamic_rnn(cell, tf.constant(x), dtype=tf.float32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            o, c = sess.run([out, st.c])
    got = hashlib.sha256(o.tobytes() + c.tobytes()).hexdigest()[:16]
    assert got == _BLOCK_CELL_REF[(peephole, clip, forget_bias)]



@pytest.mark.parametrize("v2", [False, True])
def test_gru_block_cell_forward_is_tf_bits(v2):
    # TF's GRUBlockCell kernel updates h as u * (h_prev - c) + c (GRUCell: u * h + (1 - u) * c)
    x = np.random.RandomState(10).randn(4, 5, 3).astype(np.float32)
    with tf.Graph().as_default():
        tf.set_random_seed(20)
        cell = (tf.contrib.rnn.GRUBlockCellV2 if v2 else tf.contrib.rnn.GRUBlockCell)(6)
        out, _ = tf.nn.dynamic_rnn(cell, tf.constant(x), dtype=tf.float32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            o = sess.run(out)
    assert hashlib.sha256(o.tobytes()).hexdigest()[:16] == "a99ce0f084eb408a"


# TF 1.15's SigmoidGrad: whole AVX packets compute dy * (y * (1 - y)), the last size % 8
# float32 (size % 4 float64) elements its scalar (dy * y) * (1 - y); the indices where the two
# forms differ, as TF 1.15 gave them, are those where its value is the scalar form's
_SIGMOID_GRAD_SCALAR_AT = {
    (np.float32, 7): [1], (np.float32, 12): [8], (np.float32, 13): [9, 11],
    (np.float32, 100): [96, 97], (np.float32, 1003): [1000], (np.float64, 7): [6],
    (np.float64, 12): [], (np.float64, 37): [36], (np.float64, 1003): [1002],
}


@pytest.mark.parametrize("dtype,n", sorted(_SIGMOID_GRAD_SCALAR_AT, key=str))
def test_sigmoid_grad_tail_takes_the_scalar_form(dtype, n):
    rs = np.random.RandomState(n)
    y = rs.rand(n).astype(dtype)
    dy = rs.randn(n).astype(dtype)
    with tf.Graph().as_default():
        py, pdy = tf.placeholder(dtype, [n]), tf.placeholder(dtype, [n])
        g = tf.raw_ops.SigmoidGrad(y=py, dy=pdy)
        with tf.Session() as sess:
            got = sess.run(g, {py: y, pdy: dy})
    packet = dy * (y * (1 - y))
    scalar = (dy * y) * (1 - y)
    at = np.nonzero(got != packet)[0]
    assert at.tolist() == _SIGMOID_GRAD_SCALAR_AT[(dtype, n)]
    np.testing.assert_array_equal(got[at], scalar[at])
