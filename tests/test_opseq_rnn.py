"""tf.while_loop and tf.nn.dynamic_rnn take TF 1.15's op count (see test_opseq_layers.py for
why): tideflow builds a functional While where TF builds Enter/Merge/Switch/Exit frames, so it
skips the ids of the ops TF makes and it does not, and the random ops made inside and after
the loop get TF's op seeds. Expected values are what real TF 1.15 printed."""

import numpy as np
import pytest

import tideflow as tf
from tests.opseq_util import seed2 as _seed2


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_ops_after_a_while_loop_get_tf_1_15s_seeds():
    tf.set_random_seed(1)
    tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0),
                  [tf.constant(0), tf.placeholder(tf.float32, [3])])
    tf.random_normal([3])
    assert _seed2("RandomStandardNormal") == [24]  # TF 1.15's


@pytest.mark.parametrize("make, shape, want", [
    (lambda: tf.nn.rnn_cell.BasicLSTMCell(6), [None, 5, 4], [101, 163]),
    (lambda: tf.nn.rnn_cell.LSTMCell(6), [8, 5, 4], [86, 149]),
])
def test_dynamic_rnn_initializers_and_later_ops_get_tf_1_15s_seeds(make, shape, want):
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, shape)
    tf.nn.dynamic_rnn(make(), x, dtype=tf.float32)
    tf.random_normal([3])
    assert _seed2("RandomUniform") + _seed2("RandomStandardNormal") == want


def test_seeded_gru_program_gives_tf_1_15s_numbers():
    tf.set_random_seed(7)
    x = tf.placeholder(tf.float32, [None, 5, 4])
    o, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(6), x, dtype=tf.float32)
    y = tf.layers.dense(o[:, -1], 2)
    tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 1.5),
                  [tf.constant(0), tf.ones([2])])
    z = tf.Variable(tf.random_normal([3]))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        xv = np.linspace(-1, 1, 40, dtype=np.float32).reshape(2, 5, 4)
        np.testing.assert_allclose(s.run(y, {x: xv}), [[0.10270391, 0.11569404],
                                                        [-0.2290199, 0.05745466]], atol=1e-6)
        np.testing.assert_allclose(s.run(z), [0.8366285, 0.58071226, 0.07942528], atol=1e-7)


def test_transpose_batch_time_builds_tf_1_15s_permutation():
    x = tf.placeholder(tf.float32, [None, 5, 4])
    o, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicRNNCell(3), x, dtype=tf.float32)
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names[1:9] == ["rnn/Rank", "rnn/range/start", "rnn/range/delta", "rnn/range",
                          "rnn/concat/values_0", "rnn/concat/axis", "rnn/concat",
                          "rnn/transpose"]
    assert o.shape.as_list() == [None, 5, 3]


def test_dynamic_rnn_with_sequence_lengths_gets_tf_1_15s_seeds_and_zero_tails():
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [None, 5, 4])
    lengths = tf.placeholder(tf.int32, [None])
    o, s = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(6), x, sequence_length=lengths,
                             dtype=tf.float32)
    tf.random_normal([3])
    assert _seed2("RandomUniform") + _seed2("RandomStandardNormal") == [120, 186]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        xv = np.linspace(-1, 1, 40, dtype=np.float32).reshape(2, 5, 4)
        out, st = sess.run([o, s], {x: xv, lengths: [3, 1]})
    # the loop stops after the longest sequence (3): later rows are zeros, and each final
    # state is the one at the row's own length
    assert out.shape == (2, 5, 6)
    np.testing.assert_array_equal(out[:, 3:], 0)
    np.testing.assert_array_equal(out[1, 1:], 0)
    np.testing.assert_allclose(st.h[0], out[0, 2], rtol=1e-6)
    np.testing.assert_allclose(st.h[1], out[1, 0], rtol=1e-6)


@pytest.mark.parametrize("one_shot, want", [(False, 18), (True, 26)])
def test_layers_after_a_tf_data_pipeline_get_tf_1_15s_seeds(one_shot, want):
    tf.set_random_seed(1)
    x = np.ones((8, 4), np.float32)
    if one_shot:
        tf.train.get_or_create_global_step()
        d = tf.data.Dataset.from_tensor_slices(x).shuffle(4).batch(4)
        f = d.make_one_shot_iterator().get_next()
    else:
        d = tf.data.Dataset.from_tensor_slices(({"x": x}, np.ones(8, np.int32))).batch(4)
        f = d.repeat().make_initializable_iterator().get_next()[0]["x"]
    tf.layers.dense(f, 3)
    assert _seed2("RandomUniform") == [want]  # TF 1.15's
    with tf.Session() as s:  # the pipeline still runs
        s.run(tf.global_variables_initializer())
        for op in tf.get_default_graph().get_operations():
            if op.type == "MakeIterator":
                s.run(op)
        assert s.run(f).shape == (4, 4)


def test_estimator_training_graph_reads_the_global_step_as_tf_1_15(tmp_path):
    """TF 1.15's Estimator makes the hooks' read of the global step (its initialized_value()
    + 0) before the input_fn, so the model's initializers get TF's seeds."""
    rng = np.random.RandomState(0)
    x = rng.rand(64, 4).astype(np.float32)
    y = (x[:, 0] > 0.5).astype(np.int32)

    def model_fn(features, labels, mode):
        h = tf.layers.dense(features["x"], 8, activation=tf.nn.relu)
        loss = tf.losses.sparse_softmax_cross_entropy(labels, tf.layers.dense(h, 2))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(16).repeat()

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path),
                                 config=tf.estimator.RunConfig(tf_random_seed=5))
    est.train(input_fn, steps=10)
    np.testing.assert_allclose(  # TF 1.15's
        est.get_variable_value("dense/kernel")[0],
        [0.67682964, 0.21320929, 0.13563032, 0.5279407, 0.59483814, -0.2563892, -0.50477,
         -0.55278397], atol=1e-6)


def test_seq2seq_attention_decoder_gives_tf_1_15s_numbers():
    tf.set_random_seed(2)
    src = tf.placeholder(tf.int32, [None, 5])
    tgt_in = tf.placeholder(tf.int32, [None, 4])
    tgt_len = tf.placeholder(tf.int32, [None])
    emb = tf.get_variable("emb", [12, 6])
    enc_out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(8), tf.nn.embedding_lookup(emb, src),
                                   dtype=tf.float32, scope="enc")
    attn = tf.contrib.seq2seq.LuongAttention(8, enc_out)
    cell = tf.contrib.seq2seq.AttentionWrapper(tf.nn.rnn_cell.GRUCell(8), attn,
                                               attention_layer_size=8)
    helper = tf.contrib.seq2seq.TrainingHelper(tf.nn.embedding_lookup(emb, tgt_in), tgt_len)
    dec = tf.contrib.seq2seq.BasicDecoder(cell, helper,
                                          cell.zero_state(tf.shape(src)[0], tf.float32),
                                          output_layer=tf.layers.Dense(12))
    out, _, _ = tf.contrib.seq2seq.dynamic_decode(dec)
    w2 = tf.Variable(tf.random_normal([2]))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        rng = np.random.RandomState(0)
        r = s.run(out.rnn_output, {src: rng.randint(0, 12, (2, 5)),
                                   tgt_in: rng.randint(0, 12, (2, 4)), tgt_len: [4, 3]})
        np.testing.assert_allclose(r[0, 0, :4], [0.03992, 0.04946, 0.03207, 0.05856],
                                   atol=1e-5)  # TF 1.15's
        np.testing.assert_allclose(s.run(w2), [-1.1808794, -0.96392477], atol=1e-6)


def test_greedy_decoding_to_maximum_iterations_as_tf_1_15():
    emb = tf.get_variable("emb", initializer=np.linspace(-1, 1, 72).reshape(12, 6)
                          .astype(np.float32))
    cell = tf.nn.rnn_cell.GRUCell(8, kernel_initializer=tf.constant_initializer(0.1))
    helper = tf.contrib.seq2seq.GreedyEmbeddingHelper(emb, tf.fill([2], 1), 3)
    dense = tf.layers.Dense(12, kernel_initializer=tf.constant_initializer(
        np.linspace(-1, 1, 96).reshape(8, 12)))
    dec = tf.contrib.seq2seq.BasicDecoder(cell, helper, cell.zero_state(2, tf.float32),
                                          output_layer=dense)
    out, _, lengths = tf.contrib.seq2seq.dynamic_decode(dec, maximum_iterations=4)
    # TF 1.15's body has no finished test of its own for maximum_iterations
    from tideflow.framework import func_graph

    g = tf.get_default_graph()
    (loop,) = [op for op in g.get_operations() if op.type == "While"]
    body = func_graph.lookup_function(g, loop.get_attr("body").name
                                      if hasattr(loop.get_attr("body"), "name")
                                      else loop.get_attr("body"))
    assert not [op for op in body.get_operations() if op.type == "GreaterEqual"]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        ids, lens = s.run([out.sample_id, lengths])
    assert ids.tolist() == [[0, 0, 0, 0], [0, 0, 0, 0]] and lens.tolist() == [4, 4]  # TF's
