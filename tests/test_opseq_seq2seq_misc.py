"""Seeded programs with RNN cells, their wrappers and seq2seq decoders take TF 1.15's op
count (see test_opseq_layers.py for why: a random op without its own seed takes the graph's
op count as its seed), so they print TF 1.15's numbers. Expected values are what real
TF 1.15 printed."""

import numpy as np
import pytest

import tideflow as tf
from tests.opseq_util import seed2 as _seed2


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _train(loss, optimizer, feed, after=()):
    """The losses of three steps of ``optimizer`` minimizing ``loss`` (fed ``feed``), then the
    values of the tensors ``after``."""
    train = optimizer.minimize(loss)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        losses = [s.run([loss, train], feed)[0] for _ in range(3)]
        return losses, s.run(list(after), feed)


def test_dynamic_rnn_over_an_unknown_time_dimension_keeps_tf_1_15s_seeds():
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [None, None, 4])
    tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(6), x, dtype=tf.float32)
    tf.random_normal([3])
    assert _seed2("RandomUniform") == [87, 101]  # TF 1.15's
    assert _seed2("RandomStandardNormal") == [164]


@pytest.mark.parametrize("as_function", [False, True])
def test_greedy_decoding_gives_tf_1_15s_ids_and_later_seeds(as_function):
    tf.set_random_seed(3)
    emb = tf.get_variable("emb", [12, 6])
    cell = tf.nn.rnn_cell.GRUCell(8)
    embedding = (lambda ids: tf.nn.embedding_lookup(emb, ids)) if as_function else emb
    helper = tf.contrib.seq2seq.GreedyEmbeddingHelper(embedding, tf.fill([2], 1), 3)
    dec = tf.contrib.seq2seq.BasicDecoder(cell, helper, cell.zero_state(2, tf.float32),
                                          output_layer=tf.layers.Dense(12))
    out, _, lens = tf.contrib.seq2seq.dynamic_decode(dec, maximum_iterations=6)
    w2 = tf.Variable(tf.random_normal([3]))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        ids, n, first, w = s.run([out.sample_id, lens, out.rnn_output[0, 0, :4], w2])
    # TF 1.15's
    assert ids.tolist() == [[6, 0, 9, 9, 9, 9]] * 2 and n.tolist() == [6, 6]
    np.testing.assert_allclose(first, [-0.098324, -0.023818, -0.00045, 0.029273], atol=1e-6)
    np.testing.assert_allclose(w, [2.567575, 0.092451, -1.038945], atol=1e-6)


def test_training_helper_decoder_trains_as_tf_1_15():
    tf.set_random_seed(5)
    src = tf.placeholder(tf.int32, [None, 4])
    tgt = tf.placeholder(tf.int32, [None, 4])
    ln = tf.placeholder(tf.int32, [None])
    emb = tf.get_variable("emb", [10, 5])
    cell = tf.nn.rnn_cell.LSTMCell(7)
    helper = tf.contrib.seq2seq.TrainingHelper(tf.nn.embedding_lookup(emb, src), ln)
    dec = tf.contrib.seq2seq.BasicDecoder(cell, helper,
                                          cell.zero_state(tf.shape(src)[0], tf.float32),
                                          output_layer=tf.layers.Dense(10))
    out, _, _ = tf.contrib.seq2seq.dynamic_decode(dec)
    steps = tf.shape(out.rnn_output)[1]
    loss = tf.contrib.seq2seq.sequence_loss(
        out.rnn_output, tgt[:, :steps], tf.sequence_mask(ln, steps, dtype=tf.float32))
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    rng = np.random.RandomState(0)
    feed = {src: rng.randint(0, 10, (3, 4)), tgt: rng.randint(0, 10, (3, 4)), ln: [4, 2, 3]}
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        losses = [s.run([loss, train], feed)[0] for _ in range(4)]
    np.testing.assert_allclose(losses, [2.3198233, 2.2321444, 2.1463029, 2.0447209],
                               atol=1e-5)  # TF 1.15's


def test_static_rnn_with_sequence_lengths_trains_as_tf_1_15():
    tf.set_random_seed(7)
    x = tf.placeholder(tf.float32, [3, 4, 2])
    y = tf.placeholder(tf.float32, [3, 5])
    _, st = tf.nn.static_rnn(tf.nn.rnn_cell.LSTMCell(5), tf.unstack(x, axis=1),
                             sequence_length=[4, 2, 3], dtype=tf.float32)
    loss = tf.reduce_mean((tf.layers.dense(st.h, 5) - y) ** 2)
    rng = np.random.RandomState(1)
    losses, _ = _train(loss, tf.train.GradientDescentOptimizer(0.5),
                       {x: rng.randn(3, 4, 2), y: rng.randn(3, 5)})
    np.testing.assert_allclose(losses, [0.53918892, 0.3976528, 0.33623806], atol=1e-6)


@pytest.mark.parametrize("make, seeds", [
    (lambda: tf.nn.rnn_cell.GRUCell(6), [36, 50, 219]),
    (lambda: tf.nn.rnn_cell.LSTMCell(6), [45, 228]),
])
def test_static_rnn_steps_with_lengths_count_tf_1_15s_conds(make, seeds):
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [2, 3, 4])
    tf.nn.static_rnn(make(), tf.unstack(x, axis=1), sequence_length=[3, 2], dtype=tf.float32)
    tf.random_normal([3])
    assert _seed2("RandomUniform") + _seed2("RandomStandardNormal") == seeds  # TF 1.15's


def test_bidirectional_dynamic_rnn_with_lengths_trains_as_tf_1_15():
    tf.set_random_seed(11)
    x = tf.placeholder(tf.float32, [3, 5, 2])
    y = tf.placeholder(tf.int32, [3])
    (_, ob), (sf, sb) = tf.nn.bidirectional_dynamic_rnn(
        tf.nn.rnn_cell.LSTMCell(4), tf.nn.rnn_cell.LSTMCell(4), x, sequence_length=[5, 2, 4],
        dtype=tf.float32)
    # TF 1.15's order: the zero state before the lengths' check; a ReverseSequence converts
    # the lengths itself
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names.index("bidirectional_rnn/fw/fw/CheckSeqLen") > names.index(
        "bidirectional_rnn/fw/fw/LSTMCellZeroState/zeros")
    assert "bidirectional_rnn/bw/ReverseSequence/seq_lengths" in names
    loss = tf.losses.sparse_softmax_cross_entropy(
        y, tf.layers.dense(tf.concat([sf.h, sb.h], 1), 3))
    rng = np.random.RandomState(2)
    losses, (back,) = _train(loss, tf.train.AdamOptimizer(0.1),
                             {x: rng.randn(3, 5, 2), y: [0, 2, 1]}, after=[ob[1, :, 0]])
    np.testing.assert_allclose(losses, [1.1926746, 1.0216093, 0.8843081], atol=1e-6)
    np.testing.assert_allclose(back, [-0.10937, -0.02116, 0, 0, 0], atol=1e-5)


def test_variational_dropout_wrapper_trains_as_tf_1_15():
    tf.set_random_seed(13)
    x = tf.placeholder(tf.float32, [3, 4, 2])
    y = tf.placeholder(tf.float32, [3, 4, 5])
    cell = tf.nn.rnn_cell.DropoutWrapper(
        tf.nn.rnn_cell.LSTMCell(5), input_keep_prob=0.8, output_keep_prob=0.6,
        state_keep_prob=0.7, variational_recurrent=True, input_size=2, dtype=tf.float32)
    o, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    w2 = tf.Variable(tf.random_normal([3]))
    rng = np.random.RandomState(1)
    losses, (w,) = _train(tf.reduce_mean((o - y) ** 2), tf.train.GradientDescentOptimizer(0.5),
                          {x: rng.randn(3, 4, 2), y: rng.randn(3, 4, 5)}, after=[w2])
    np.testing.assert_allclose(losses, [0.82109708, 0.77739042, 0.75003475], atol=1e-6)  # TF
    np.testing.assert_allclose(w, [-0.761981, 0.835482, -0.082837], atol=1e-6)  # TF 1.15


def test_layer_norm_basic_lstm_cell_makes_its_variables_where_tf_1_15_does():
    tf.set_random_seed(17)
    x = tf.placeholder(tf.float32, [3, 4, 2])
    y = tf.placeholder(tf.float32, [3, 4, 5])
    o, _ = tf.nn.dynamic_rnn(tf.contrib.rnn.LayerNormBasicLSTMCell(5, norm_gain=1.2), x,
                             dtype=tf.float32)
    assert _seed2("RandomUniform") == [89]  # TF 1.15's kernel, made after the concat
    names = [v.op.name for v in tf.trainable_variables()]
    assert names == ["rnn/layer_norm_basic_lstm_cell/" + n for n in (
        "kernel", "input/gamma", "input/beta", "transform/gamma", "transform/beta",
        "forget/gamma", "forget/beta", "output/gamma", "output/beta", "state/gamma",
        "state/beta")]
    rng = np.random.RandomState(1)
    losses, _ = _train(tf.reduce_mean((o - y) ** 2), tf.train.GradientDescentOptimizer(0.5),
                       {x: rng.randn(3, 4, 2), y: rng.randn(3, 4, 5)})
    np.testing.assert_allclose(losses, [0.85194588, 0.77708632, 0.74885094], atol=1e-6)  # TF


@pytest.mark.parametrize("luong, w_want, losses_want", [
    (False, [2.253663, -0.50244, -2.805224], [2.4942741, 2.4335849, 2.3713732, 2.2996619]),
    (True, [2.031736, 1.780779, -0.458166], [2.4846568, 2.4417579, 2.3971372, 2.3454311]),
])
def test_attention_over_masked_memory_trains_as_tf_1_15(luong, w_want, losses_want):
    tf.set_random_seed(21)
    src = tf.placeholder(tf.int32, [None, 5])
    src_len = tf.placeholder(tf.int32, [None])
    tgt_in = tf.placeholder(tf.int32, [None, 4])
    tgt_out = tf.placeholder(tf.int32, [None, 4])
    tgt_len = tf.placeholder(tf.int32, [None])
    emb = tf.get_variable("emb", [12, 6])
    enc, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.LSTMCell(8), tf.nn.embedding_lookup(emb, src),
                               sequence_length=src_len, dtype=tf.float32, scope="enc")
    if luong:
        attn = tf.contrib.seq2seq.LuongAttention(8, enc, memory_sequence_length=src_len,
                                                 scale=True)
    else:
        attn = tf.contrib.seq2seq.BahdanauAttention(8, enc, memory_sequence_length=src_len,
                                                    normalize=True)
    cell = tf.contrib.seq2seq.AttentionWrapper(tf.nn.rnn_cell.LSTMCell(8), attn,
                                               attention_layer_size=8,
                                               output_attention=not luong)
    helper = tf.contrib.seq2seq.TrainingHelper(tf.nn.embedding_lookup(emb, tgt_in), tgt_len)
    dec = tf.contrib.seq2seq.BasicDecoder(cell, helper,
                                          cell.zero_state(tf.shape(src)[0], tf.float32),
                                          output_layer=tf.layers.Dense(12))
    out, _, _ = tf.contrib.seq2seq.dynamic_decode(dec)
    w2 = tf.Variable(tf.random_normal([3]))
    steps = tf.shape(out.rnn_output)[1]
    loss = tf.contrib.seq2seq.sequence_loss(
        out.rnn_output, tgt_out[:, :steps], tf.sequence_mask(tgt_len, steps, dtype=tf.float32))
    train = tf.train.AdamOptimizer(0.02).minimize(loss)
    rng = np.random.RandomState(3)
    feed = {src: rng.randint(0, 12, (3, 5)), src_len: [5, 3, 4],
            tgt_in: rng.randint(0, 12, (3, 4)), tgt_out: rng.randint(0, 12, (3, 4)),
            tgt_len: [4, 2, 3]}
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        w = s.run(w2)
        losses = [s.run([loss, train], feed)[0] for _ in range(4)]
    np.testing.assert_allclose(w, w_want, atol=1e-6)  # TF 1.15's
    np.testing.assert_allclose(losses, losses_want, atol=1e-6)


def test_ones_and_zeros_of_an_int_shape_fill_as_tf_1_15():
    a = tf.zeros(3)
    tf.ones(2, tf.int32)
    tf.zeros([3])
    assert [(op.name, op.type) for op in tf.get_default_graph().get_operations()] == [
        ("zeros/shape_as_tensor", "Const"), ("zeros/Const", "Const"), ("zeros", "Fill"),
        ("ones/shape_as_tensor", "Const"), ("ones/Const", "Const"), ("ones", "Fill"),
        ("zeros_1", "Const")]  # TF 1.15's
    assert a.get_shape().as_list() == [3]
    with tf.Session() as s:
        assert s.run(a).tolist() == [0, 0, 0]


def test_sample_embedding_decoding_draws_tf_1_15s_ids():
    tf.set_random_seed(3)
    emb = tf.get_variable("emb", [12, 6])
    cell = tf.nn.rnn_cell.GRUCell(8)
    helper = tf.contrib.seq2seq.SampleEmbeddingHelper(emb, tf.fill([3], 1), 11,
                                                      softmax_temperature=0.5)
    dec = tf.contrib.seq2seq.BasicDecoder(cell, helper, cell.zero_state(3, tf.float32),
                                          output_layer=tf.layers.Dense(12))
    out, _, lens = tf.contrib.seq2seq.dynamic_decode(dec, maximum_iterations=6)
    w2 = tf.Variable(tf.random_normal([3]))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        ids, n, w = s.run([out.sample_id, lens, w2])
        again = s.run(out.sample_id)
    # TF 1.15's
    assert ids.tolist() == [[6, 5, 3, 6, 6, 5], [1, 8, 8, 5, 9, 7], [7, 4, 9, 1, 3, 6]]
    assert n.tolist() == [6, 6, 6]
    assert again.tolist() == [[2, 4, 3, 6, 6, 0], [6, 11, 4, 10, 7, 5], [11, 4, 6, 0, 9, 6]]
    np.testing.assert_allclose(w, [-1.112761, -2.099123, -1.195044], atol=1e-6)


def test_scheduled_embedding_training_samples_and_trains_as_tf_1_15():
    tf.set_random_seed(4)
    emb = tf.get_variable("emb", [12, 6])
    inp = tf.placeholder(tf.int32, [3, 5])
    tgt = tf.placeholder(tf.int32, [3, 5])
    helper = tf.contrib.seq2seq.ScheduledEmbeddingTrainingHelper(
        tf.nn.embedding_lookup(emb, inp), [5, 3, 4], emb, 0.5)
    cell = tf.nn.rnn_cell.GRUCell(8)
    dec = tf.contrib.seq2seq.BasicDecoder(cell, helper, cell.zero_state(3, tf.float32),
                                          output_layer=tf.layers.Dense(12))
    out, _, _ = tf.contrib.seq2seq.dynamic_decode(dec)
    w2 = tf.Variable(tf.random_normal([3]))
    loss = tf.contrib.seq2seq.sequence_loss(
        out.rnn_output, tgt, tf.sequence_mask([5, 3, 4], 5, dtype=tf.float32))
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    rng = np.random.RandomState(0)
    feed = {inp: rng.randint(0, 12, (3, 5)), tgt: rng.randint(0, 12, (3, 5))}
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        w = s.run(w2)
        steps = [s.run([loss, out.sample_id, train], feed)[:2] for _ in range(3)]
    np.testing.assert_allclose(w, [-0.585712, -0.38708, 0.261128], atol=1e-6)  # TF 1.15's
    np.testing.assert_allclose([l for l, _ in steps], [2.5340962, 2.4518116, 2.3540077],
                               atol=1e-6)
    assert [ids.tolist() for _, ids in steps] == [
        [[11, 5, -1, 6, 10], [-1, 0, -1, 1, -1], [-1, 6, -1, -1, 7]],
        [[-1, 5, 9, 2, -1], [7, 5, -1, 1, 6], [11, 1, -1, 5, 10]],
        [[9, -1, -1, 6, -1], [-1, 10, -1, -1, 2], [7, 9, -1, -1, 8]]]


def test_scheduled_output_training_samples_and_trains_as_tf_1_15():
    tf.set_random_seed(4)
    x = tf.placeholder(tf.float32, [3, 5, 8])
    tgt = tf.placeholder(tf.float32, [3, 5, 8])
    helper = tf.contrib.seq2seq.ScheduledOutputTrainingHelper(x, [5, 3, 4], 0.5)
    cell = tf.nn.rnn_cell.GRUCell(8)
    dec = tf.contrib.seq2seq.BasicDecoder(cell, helper, cell.zero_state(3, tf.float32))
    out, _, _ = tf.contrib.seq2seq.dynamic_decode(dec)
    w2 = tf.Variable(tf.random_normal([3]))
    loss = tf.reduce_mean((out.rnn_output - tgt) ** 2)
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    rng = np.random.RandomState(0)
    feed = {x: rng.randn(3, 5, 8), tgt: rng.randn(3, 5, 8)}
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        w = s.run(w2)
        steps = [s.run([loss, out.sample_id, train], feed)[:2] for _ in range(3)]
    np.testing.assert_allclose(w, [0.195172, 1.059213, 0.597408], atol=1e-6)  # TF 1.15's
    np.testing.assert_allclose([l for l, _ in steps], [0.9822424, 0.90926754, 0.8476349],
                               atol=1e-6)
    assert [ids.tolist() for _, ids in steps] == [
        [[1, 0, 0, 0, 0], [0, 1, 1, 1, 1], [0, 0, 0, 1, 0]],
        [[0, 1, 1, 1, 1], [1, 0, 1, 1, 1], [1, 1, 1, 1, 1]],
        [[0, 0, 0, 1, 0], [1, 0, 1, 1, 0], [1, 0, 0, 1, 0]]]


def test_beam_search_with_attention_decodes_tf_1_15s_beams_and_later_seeds():
    tf.set_random_seed(8)
    emb = tf.get_variable("emb", [12, 6])
    mem = tf.placeholder(tf.float32, [2, 5, 8])
    mem_len = tf.placeholder(tf.int32, [2])
    attn = tf.contrib.seq2seq.BahdanauAttention(
        8, tf.contrib.seq2seq.tile_batch(mem, 3),
        memory_sequence_length=tf.contrib.seq2seq.tile_batch(mem_len, 3))
    cell = tf.contrib.seq2seq.AttentionWrapper(tf.nn.rnn_cell.GRUCell(8), attn,
                                               attention_layer_size=8)
    dec = tf.contrib.seq2seq.BeamSearchDecoder(cell, emb, tf.fill([2], 1), 3,
                                               cell.zero_state(6, tf.float32), 3,
                                               output_layer=tf.layers.Dense(12),
                                               length_penalty_weight=0.5)
    out, _, lens = tf.contrib.seq2seq.dynamic_decode(dec, maximum_iterations=5)
    w2 = tf.Variable(tf.random_normal([3]))
    rng = np.random.RandomState(0)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        ids, scores, n, w = s.run(
            [out.predicted_ids, out.beam_search_decoder_output.scores[:, -1], lens, w2],
            {mem: rng.randn(2, 5, 8), mem_len: [5, 3]})
    # TF 1.15's (with NumPy 1.18: its tf.zeros([batch_size]) makes np.prod's Less op)
    assert ids.tolist() == [[[1, 1, 1], [1, 1, 1], [1, 1, 1], [1, 1, 8], [8, 1, 8]],
                            [[0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 4], [4, 0, 0]]]
    np.testing.assert_allclose(scores, [[-7.437818, -7.4664326, -7.5104313],
                                        [-7.6678615, -7.6845784, -7.714673]], atol=2e-5)
    assert n.tolist() == [[5, 5, 5], [5, 5, 5]]
    np.testing.assert_allclose(w, [0.4726807, 0.6610178, -0.8044005], atol=1e-6)


@pytest.mark.parametrize("make, seed, size", [
    (lambda x: tf.nn.atrous_conv2d(x, tf.get_variable("w", [3, 3, 3, 4]), 2, "SAME"), 90,
     (9, 8)),
    (lambda x: tf.layers.conv2d(x, 4, 3, dilation_rate=2, padding="same"), 95, (9, 8)),
    (lambda x: tf.layers.conv2d(x, 4, 3, dilation_rate=2, padding="valid"), 94, (5, 4)),
])
def test_dilated_convolution_over_unknown_sizes_makes_tf_1_15s_paddings(make, seed, size):
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [None, None, None, 3])
    y = make(x)
    tf.random_normal([3])
    assert _seed2("RandomStandardNormal") == [seed]  # TF 1.15's
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert any(n.endswith("required_space_to_batch_paddings/crops") for n in names)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = s.run(y, {x: np.random.RandomState(0).randn(2, 9, 8, 3)})
    assert got.shape == (2,) + size + (4,)


def test_moving_averages_of_variables_read_by_others_keep_tf_1_15s_seeds_and_values():
    tf.set_random_seed(6)
    a = tf.Variable(tf.random_normal([3]))
    b = tf.Variable(a.initialized_value() * 2)
    step = tf.train.get_or_create_global_step()
    ema = tf.train.ExponentialMovingAverage(0.9, num_updates=step)
    update = ema.apply([a, b])
    w2 = tf.Variable(tf.random_normal([3]))
    # TF 1.15 guards each initial value that reads another variable (the other's
    # initialized_value and the ops between, rebuilt): its op count
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert "cond/Merge_Variable_1" in names and "mul_Variable_1" in names
    with tf.control_dependencies([update]):
        train = tf.group(tf.assign_add(step, 1), tf.assign_add(a, [0.5, 0.5, 0.5]))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        first = s.run([a, b, w2])
        for _ in range(3):
            s.run(train)
        averages = s.run([ema.average(a), ema.average(b)])
    # TF 1.15's
    np.testing.assert_allclose(first[0], [-0.341809, -0.860273, 0.123064], atol=1e-6)
    np.testing.assert_allclose(first[1], [-0.683618, -1.720546, 0.246127], atol=1e-6)
    np.testing.assert_allclose(first[2], [-1.255527, 0.050758, -0.028737], atol=1e-6)
    np.testing.assert_allclose(averages[0], [0.510464, -0.008, 0.975336], atol=1e-6)
    np.testing.assert_allclose(averages[1], [-0.683618, -1.720546, 0.246127], atol=1e-6)


def test_initial_values_reading_an_initialized_value_and_the_variable_as_tf_1_15():
    tf.set_random_seed(6)
    a = tf.Variable(tf.random_normal([3]))
    b = tf.Variable(a.initialized_value() + a)
    c = tf.Variable(a * 2)
    w2 = tf.Variable(tf.random_normal([3]))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = s.run([b, c, w2])
    np.testing.assert_allclose(got[0], [-0.683618, -1.720546, 0.246127], atol=1e-6)  # TF's
    np.testing.assert_allclose(got[1], [-0.683618, -1.720546, 0.246127], atol=1e-6)
    np.testing.assert_allclose(got[2], [0.167637, -0.179839, -0.519271], atol=1e-6)


def test_imputed_decoding_over_unknown_lengths_keeps_tf_1_15s_seeds_and_values():
    tf.set_random_seed(9)
    emb = tf.get_variable("emb", [12, 6])
    inp = tf.placeholder(tf.int32, [None, None])
    lengths = tf.placeholder(tf.int32, [None])
    helper = tf.contrib.seq2seq.TrainingHelper(tf.nn.embedding_lookup(emb, inp), lengths)
    cell = tf.nn.rnn_cell.LSTMCell(8)
    dec = tf.contrib.seq2seq.BasicDecoder(cell, helper,
                                          cell.zero_state(tf.shape(inp)[0], tf.float32),
                                          output_layer=tf.layers.Dense(12))
    out, state, n = tf.contrib.seq2seq.dynamic_decode(dec, impute_finished=True)
    w2 = tf.Variable(tf.random_normal([3]))
    rng = np.random.RandomState(0)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        o, c, got_n, w = s.run([out.rnn_output, state.c, n, w2],
                               {inp: rng.randint(0, 12, (3, 5)), lengths: [5, 2, 4]})
    # TF 1.15's
    np.testing.assert_allclose(o[1, :, 0], [0.053583, 0.098285, 0, 0, 0], atol=1e-6)
    np.testing.assert_allclose(c[1, :3], [-0.144215, 0.112787, -0.118437], atol=1e-6)
    assert got_n.tolist() == [5, 2, 4]
    np.testing.assert_allclose(w, [1.848767, 0.49543, -1.286367], atol=1e-6)


def test_static_bidirectional_rnn_with_lengths_reverses_as_tf_1_15():
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [2, 3, 4])
    tf.nn.static_bidirectional_rnn(tf.nn.rnn_cell.LSTMCell(6), tf.nn.rnn_cell.LSTMCell(6),
                                   tf.unstack(x, axis=1), sequence_length=[3, 2],
                                   dtype=tf.float32)
    tf.random_normal([3])
    # TF 1.15's: each ReverseSequence converts the lengths itself
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert "bidirectional_rnn/bw/ReverseSequence/seq_lengths" in names
    assert "ReverseSequence/seq_lengths" in names
    assert _seed2("RandomUniform") == [45, 272] and _seed2("RandomStandardNormal") == [465]


def test_zero_debiased_moving_average_builds_tf_1_15s_ops_and_values():
    tf.set_random_seed(2)
    x = tf.placeholder(tf.float32, [2, 4])
    v = tf.reduce_mean(x, 0)
    ema = tf.train.ExponentialMovingAverage(0.9, zero_debias=True)
    update = ema.apply([v])
    w = tf.Variable(tf.random_normal([3]))
    names = [op.name for op in tf.get_default_graph().get_operations()]
    i = names.index("ExponentialMovingAverage/AssignMovingAvg/sub_3/x")
    assert names[i:i + 6] == [  # TF 1.15's
        "ExponentialMovingAverage/AssignMovingAvg/sub_3/x",
        "ExponentialMovingAverage/AssignMovingAvg/sub_3",
        "ExponentialMovingAverage/AssignMovingAvg/truediv",
        "ExponentialMovingAverage/AssignMovingAvg", "ExponentialMovingAverage",
        "random_normal/shape"]
    assert "Mean/ExponentialMovingAverage/biased/Initializer/zeros" in names
    rng = np.random.RandomState(0)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(3):
            s.run(update, {x: rng.randn(2, 4)})
        got, w_got = s.run([ema.average(v), w])
    np.testing.assert_allclose(got, [0.456592, 0.084878, 0.603131, 0.314652], atol=1e-6)
    np.testing.assert_allclose(w_got, [0.546369, -0.290816, 0.916236], atol=1e-6)  # TF's


def test_sequence_loss_reduces_once_as_tf_1_15():
    rng = np.random.RandomState(0)
    logits = tf.constant(rng.randn(2, 4, 12).astype(np.float32))
    targets = tf.constant(np.random.RandomState(1).randint(0, 12, (2, 4)).astype(np.int32))
    weights = tf.sequence_mask([4, 3], 4, dtype=tf.float32)
    # TF 1.15 applies only the first reduction that applies: averaging over the batch wins
    # over summing over the steps
    loss = tf.contrib.seq2seq.sequence_loss(logits, targets, weights,
                                            average_across_timesteps=False,
                                            sum_over_timesteps=True)
    summed = tf.contrib.seq2seq.sequence_loss(logits, targets, weights,
                                              average_across_timesteps=False,
                                              average_across_batch=False,
                                              sum_over_timesteps=True)
    with tf.Session() as s:
        got, got_summed = s.run([loss, summed])
    np.testing.assert_allclose(got, [3.6314, 3.17948, 2.7731, 3.41787], atol=1e-5)  # TF's
    np.testing.assert_allclose(got_summed, [3.94982, 2.26218], atol=1e-5)


def test_alignment_history_counts_as_tf_1_15s_tensor_array():
    tf.set_random_seed(12)
    mem = tf.placeholder(tf.float32, [2, 5, 8])
    attn = tf.contrib.seq2seq.LuongAttention(8, mem, memory_sequence_length=[5, 3])
    cell = tf.contrib.seq2seq.AttentionWrapper(tf.nn.rnn_cell.LSTMCell(8), attn,
                                               attention_layer_size=6, alignment_history=True)
    x = tf.placeholder(tf.float32, [2, 4, 3])
    helper = tf.contrib.seq2seq.TrainingHelper(x, [4, 4])
    dec = tf.contrib.seq2seq.BasicDecoder(cell, helper, cell.zero_state(2, tf.float32))
    out, state, _ = tf.contrib.seq2seq.dynamic_decode(dec, output_time_major=True)
    history = state.alignment_history.stack()
    w2 = tf.Variable(tf.random_normal([3]))
    rng = np.random.RandomState(0)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        a, o, w = s.run([history, out.rnn_output, w2],
                        {mem: rng.randn(2, 5, 8), x: rng.randn(2, 4, 3)})
    # TF 1.15's
    np.testing.assert_allclose(a[2, 1], [0.20496, 0.420427, 0.374612, 0, 0], atol=1e-6)
    np.testing.assert_allclose(o[3, 0, :3], [0.020486, 0.718923, -1.168871], atol=2e-6)
    np.testing.assert_allclose(w, [-0.311508, -0.448632, -1.234264], atol=1e-6)
