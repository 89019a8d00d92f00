"""Op-id parity with TF 1.15 of RNN gradients: TF seeds a random op without an op seed from the
graph's op count, so a seeded op made after ``tf.gradients``/``minimize`` of an RNN draws TF's
numbers only when the gradient made as many ops as TF's. Expected counts and values are TF
1.15's printed outputs."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _cell(kind):
    return {"rnn": lambda: tf.nn.rnn_cell.BasicRNNCell(6),
            "gru": lambda: tf.nn.rnn_cell.GRUCell(6),
            "lstm": lambda: tf.nn.rnn_cell.BasicLSTMCell(6),
            "lstmp": lambda: tf.nn.rnn_cell.LSTMCell(6, num_proj=4),
            "multi": lambda: tf.nn.rnn_cell.MultiRNNCell(
                [tf.nn.rnn_cell.GRUCell(5), tf.nn.rnn_cell.BasicLSTMCell(4)])}[kind]()


def test_static_rnn_with_lengths_minimize_takes_tf_op_ids():
    # TF's step is two nested conds: its gradient's Switches, zeros and Merges take ids
    tf.set_random_seed(1)
    g = tf.get_default_graph()
    x = tf.placeholder(tf.float32, [4, 5, 3])
    sl = tf.placeholder(tf.int32, [4])
    outs, st = tf.nn.static_rnn(tf.nn.rnn_cell.BasicRNNCell(6), tf.unstack(x, axis=1),
                                sequence_length=sl, dtype=tf.float32)
    assert g._last_id == 232
    loss = tf.reduce_sum(tf.square(st)) + tf.reduce_sum(tf.square(outs[-1]))
    tf.gradients(loss, tf.trainable_variables())
    assert g._last_id == 547
    tf.train.GradientDescentOptimizer(0.1).minimize(loss)  # gated: tuples after each Switch
    assert g._last_id == 958
    r = tf.random_uniform([3])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(r), [0.01873505, 0.51836705, 0.03096437], rtol=1e-6)


@pytest.mark.parametrize("kind,loss_kind,steps,fw,grad", [
    ("rnn", "state", 4, 195, 229),
    ("gru", "outputs", 2, 166, 182),   # the last step's state gets no gradient
    ("lstm", "outputs", 3, 232, 285),
])
def test_static_rnn_with_lengths_gradients_count_as_tf(kind, loss_kind, steps, fw, grad):
    g = tf.get_default_graph()
    x = tf.placeholder(tf.float32, [4, steps, 3])
    sl = tf.placeholder(tf.int32, [4])
    outs, st = tf.nn.static_rnn(_cell(kind), tf.unstack(x, axis=1), sequence_length=sl,
                                dtype=tf.float32)
    if loss_kind == "state":
        loss = tf.add_n([tf.reduce_sum(s) for s in tf.nest.flatten(st)])
    else:
        loss = tf.add_n([tf.reduce_sum(o) for o in outs])
    assert g._last_id == fw
    tf.gradients(loss, tf.trainable_variables())
    assert g._last_id - fw == grad


@pytest.mark.parametrize("kind,mode,fw,grad,value", [
    ("gru", "adam", 229, 572, 0.25286),
    ("lstm", "wrt_x", 243, 403, 0.47525),
    ("lstmp", "init", 270, 668, 0.93886),
    ("multi", "min", 376, 1065, 0.18308),
])
def test_static_rnn_with_int64_lengths_unknown_batch_seeds_as_tf(kind, mode, fw, grad, value):
    # int64 lengths: their Cast comes after the zero outputs, as TF's
    tf.set_random_seed(1)
    g = tf.get_default_graph()
    x = tf.placeholder(tf.float32, [None, 3, 3])
    sl = tf.placeholder(tf.int64, [None])
    cell = _cell(kind)
    kw = {"dtype": tf.float32}
    if mode == "init":  # an initial state with a gradient
        zero = cell.zero_state(tf.shape(x)[0], tf.float32)
        w0 = tf.get_variable("w0", [], initializer=tf.ones_initializer())
        kw = {"initial_state": tf.nest.map_structure(lambda s: s * w0, zero)}
    outs, st = tf.nn.static_rnn(cell, tf.unstack(x, axis=1), sequence_length=sl, **kw)
    loss = (tf.add_n([tf.reduce_sum(s) for s in tf.nest.flatten(st)])
            + tf.reduce_sum(outs[1]))
    assert g._last_id == fw
    if mode == "adam":
        tf.train.AdamOptimizer(0.1).minimize(loss)
    elif mode == "wrt_x":
        tf.gradients(loss, [x])
    else:
        tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    assert g._last_id - fw == grad
    r = tf.random_uniform([2])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert abs(s.run(r)[0] - value) < 1e-5


@pytest.mark.parametrize("batch,cell,mode,fw,grad,value", [
    (4, "gru", "grad", 260, 204, 0.47987),
    (None, "gru", "min", 269, 363, 0.22391),
    (4, "lstm", "adam", 242, 235, 0.80944),
    (None, "lstm", "grad", 253, 258, 0.15223),
])
def test_decoder_loop_inputs_no_variable_reaches_get_zeros_only(batch, cell, mode, fw, grad,
                                                                value):
    # TrainingHelper on a placeholder: the decoder loop's inputs variable depends on no
    # variable, so TF's gradient gives it only zeros and an Enter (no Exit/Merge/Switch chain)
    seq2seq = tf.contrib.seq2seq
    tf.set_random_seed(1)
    g = tf.get_default_graph()
    sl = tf.placeholder(tf.int32, [batch])
    x = tf.placeholder(tf.float32, [batch, 5, 3])
    c = (tf.nn.rnn_cell.GRUCell(6) if cell == "gru" else tf.nn.rnn_cell.BasicLSTMCell(6))
    n = 4 if batch else tf.shape(x)[0]
    d = seq2seq.BasicDecoder(c, seq2seq.TrainingHelper(x, sl), c.zero_state(n, tf.float32),
                             output_layer=tf.layers.Dense(7) if cell == "gru" else None)
    out, st, _ = seq2seq.dynamic_decode(d)
    loss = tf.reduce_sum(out.rnn_output) + tf.add_n(
        [tf.reduce_sum(s) for s in tf.nest.flatten(st)])
    assert g._last_id == fw
    if mode == "grad":
        tf.gradients(loss, tf.trainable_variables())
    elif mode == "min":
        tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    else:
        tf.train.AdamOptimizer(0.1).minimize(loss)
    assert g._last_id - fw == grad
    r = tf.random_uniform([2])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert abs(s.run(r)[0] - value) < 1e-5


def test_while_loop_factor_fed_in_takes_no_gradient_chain():
    # k depends on no variable: TF's gradient loop takes only the Enter of the gradient the
    # loss gives k from outside, no Exit/Merge/Switch chain for it
    tf.set_random_seed(1)
    g = tf.get_default_graph()
    w = tf.get_variable("w", [3, 3])
    x = tf.placeholder(tf.float32, [4, 3])
    c = tf.placeholder(tf.float32, [])
    _, h, k = tf.while_loop(lambda i, h, k: i < 3,
                            lambda i, h, k: (i + 1, tf.tanh(tf.matmul(h, w)) * k, k * 0.9),
                            [0, x, c])
    loss = tf.reduce_sum(h) + k
    assert g._last_id == 45
    tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    assert g._last_id == 45 + 85
    r = tf.random_uniform([2])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert abs(s.run(r)[0] - 0.27129) < 1e-5


def test_while_loop_chain_of_fed_factors_count_as_tf():
    g = tf.get_default_graph()
    w = tf.get_variable("w", [3])
    x = tf.placeholder(tf.float32, [3])
    a0, b0 = tf.placeholder(tf.float32, []), tf.placeholder(tf.float32, [])
    _, h, a, b = tf.while_loop(lambda i, *r: i < 4,
                               lambda i, h, a, b: (i + 1, h * w * a, a + b, b * 0.5),
                               [0, x, a0, b0])
    loss = tf.reduce_sum(h) + a + b
    assert g._last_id == 53
    tf.gradients(loss, [w])
    assert g._last_id == 53 + 70


@pytest.mark.parametrize("batch,time_major,last_id,loss0,loss1,rand", [
    (4, False, 997, 0.69907, 0.75275, [-1.4368154, -0.07879719]),
    (None, True, 1259, 0.61894, -1.45897, [0.23287192, 0.79181266]),
])
def test_training_helper_on_trainable_embeddings_trains_and_seeds_as_tf(
        batch, time_major, last_id, loss0, loss1, rand):
    # the gradient reaches the embeddings through the helper's input arrays (TF's cond and
    # TensorArray reads in the decoder loop): TF's op count, values after a step of Adam
    seq2seq = tf.contrib.seq2seq
    tf.set_random_seed(3)
    g = tf.get_default_graph()
    sl = tf.placeholder(tf.int32, [batch])
    ids = tf.placeholder(tf.int32, [batch, 5])
    emb = tf.get_variable("E", [11, 3])
    x = tf.nn.embedding_lookup(emb, ids)
    if time_major:
        x = tf.transpose(x, [1, 0, 2])
    cell = tf.nn.rnn_cell.GRUCell(6)
    n = 4 if batch else tf.shape(ids)[0]
    helper = seq2seq.TrainingHelper(x, sl, time_major=time_major)
    d = seq2seq.BasicDecoder(cell, helper, cell.zero_state(n, tf.float32),
                             output_layer=tf.layers.Dense(5))
    out, st, lengths = seq2seq.dynamic_decode(d)
    loss = tf.reduce_sum(tf.square(out.rnn_output)) + tf.reduce_sum(st)
    tf.gradients(loss, tf.trainable_variables())
    opt = tf.train.AdamOptimizer(0.1).minimize(loss)
    r = tf.random_normal([2])
    init = tf.global_variables_initializer()
    assert g._last_id == last_id
    with tf.Session() as s:
        s.run(init)
        fd = {ids: np.arange(20).reshape(4, 5) % 11, sl: [5, 2, 3, 1]}
        l0, ln = s.run([loss, lengths], fd)
        s.run(opt, fd)
        assert list(ln) == [5, 2, 3, 1]
        np.testing.assert_allclose([l0, s.run(loss, fd)], [loss0, loss1], atol=2e-5)
        np.testing.assert_allclose(s.run(r), rand, rtol=1e-5)


@pytest.mark.parametrize("batch,gate,fw,grad", [
    (4, False, 252, 242), (4, True, 252, 296), (None, False, 261, 370), (None, True, 261, 424)])
def test_training_helper_embedding_gradient_counts_as_tf(batch, gate, fw, grad):
    seq2seq = tf.contrib.seq2seq
    g = tf.get_default_graph()
    sl = tf.placeholder(tf.int32, [batch])
    ids = tf.placeholder(tf.int32, [batch, 5])
    x = tf.nn.embedding_lookup(tf.get_variable("E", [11, 3]), ids)
    cell = tf.nn.rnn_cell.GRUCell(6)
    n = 4 if batch else tf.shape(x)[0]
    d = seq2seq.BasicDecoder(cell, seq2seq.TrainingHelper(x, sl), cell.zero_state(n, tf.float32))
    out, _, _ = seq2seq.dynamic_decode(d)
    loss = tf.reduce_sum(out.rnn_output)
    assert g._last_id == fw
    tf.gradients(loss, tf.trainable_variables(), gate_gradients=gate)
    assert g._last_id - fw == grad
