"""Differential parity of tf.contrib.seq2seq, contrib.rnn and what they build on, against real
TF 1.15 (with NumPy 1.18): op names, order and counts (a random op without its own seed takes
the graph's op count as its seed), error classes and words, values. Expected values are what
TF 1.15 printed."""

import numpy as np
import pytest

import tideflow as tf

s2s = tf.contrib.seq2seq


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _ops():
    return [(op.name, op.type) for op in tf.get_default_graph().get_operations()]


def test_zeros_of_a_list_shape_with_tensors_makes_tf_1_15s_small_shape_test_ops():
    # TF 1.15 tries np.prod(shape) < 1000 first: tensors in the list are multiplied and the
    # product compared before the list is packed
    t = tf.placeholder(tf.int32, [])
    z = tf.ones([3, t, 2])
    assert _ops() == [
        ("Placeholder", "Placeholder"), ("ones/mul/x", "Const"), ("ones/mul", "Mul"),
        ("ones/mul_1/y", "Const"), ("ones/mul_1", "Mul"), ("ones/Less/y", "Const"),
        ("ones/Less", "Less"), ("ones/packed/0", "Const"), ("ones/packed/2", "Const"),
        ("ones/packed", "Pack"), ("ones/Const", "Const"), ("ones", "Fill")]
    tf.zeros([t])
    assert [n for n, _ in _ops()[12:]] == ["zeros/Less/y", "zeros/Less", "zeros/packed",
                                           "zeros/Const", "zeros"]
    assert z.get_shape().as_list() == [3, None, 2]
    with tf.Session() as s:
        assert s.run(z, {t: 2}).shape == (3, 2, 2)


def test_embedding_lookup_converts_params_before_ids_as_params_0():
    a = np.ones([4, 2], np.float32)
    tf.nn.embedding_lookup([a, a], [1, 2])
    assert [n for n, _ in _ops()[:3]] == ["embedding_lookup/params_0",
                                          "embedding_lookup/params_1", "embedding_lookup/ids"]


def test_tile_batch_takes_the_shape_first_as_tf_1_15():
    s2s.tile_batch(tf.constant([[1., 2.], [3., 4.]]), 3)
    assert [n for n, _ in _ops()[1:4]] == ["tile_batch/Shape", "tile_batch/ExpandDims/dim",
                                           "tile_batch/ExpandDims"]
    with pytest.raises(ValueError, match="t must have statically known rank"):
        s2s.tile_batch(tf.constant(3.0), 2)
    assert _ops()[-1] == ("tile_batch_1/Shape", "Const")


@pytest.mark.parametrize("args, message", [
    (([3, 2], [3, 2, 3], [2], 1), "Shape must be rank 3 but is rank 2 for 'GatherTree'"),
    (([3, 2, 3], [2, 2, 3], [2], 1), (r"Dimension 0 in both shapes must be equal, but are 3 "
                                      r"and 2. Shapes are \[3,2,3\] and \[2,2,3\].")),
    (([3, 2, 3], [3, 2, 3], [[1, 2]], 1), "Shape must be rank 1 but is rank 2"),
    (([3, 2, 3], [3, 2, 3], [1, 2, 3], 1), "Dimensions must be equal, but are 2 and 3"),
    (([3, 2, 3], [3, 2, 3], [1, 2], [1]), "Shape must be rank 0 but is rank 1"),
])
def test_gather_tree_shape_errors_read_as_tf_1_15s(args, message):
    step, parent, lengths, end = args
    step, parent = tf.zeros(step, tf.int32), tf.zeros(parent, tf.int32)
    with pytest.raises(ValueError, match=message):
        s2s.gather_tree(step, parent, lengths, end)


def test_gather_tree_refuses_a_float_end_token_in_tf_1_15s_words():
    z = tf.zeros([3, 2, 3], tf.int32)
    with pytest.raises(TypeError, match="Expected int32 passed to parameter 'end_token' of op "
                                        "'GatherTree', got 1.0 of type 'float' instead"):
        s2s.gather_tree(z, z, [1, 2], 1.0)


@pytest.mark.parametrize("shapes, message", [
    (([2, 3], [2, 3], [2, 3]), (r"^Logits must be a \[batch_size x sequence_length x "
                                r"logits\] tensor$")),
    (([2, 3, 5], [2], [2, 3]), r"^Targets must be a \[batch_size x sequence_length\] tensor$"),
    (([2, 3, 5], [2, 3], [2]), r"^Weights must be a \[batch_size x sequence_length\] tensor$"),
])
def test_sequence_loss_rank_errors_are_tf_1_15s_words(shapes, message):
    logits, targets, weights = shapes
    with pytest.raises(ValueError, match=message):
        s2s.sequence_loss(tf.zeros(logits), tf.zeros(targets, tf.int32), tf.zeros(weights))


def test_beam_search_decoder_with_list_start_tokens_and_array_embedding_as_tf_1_15():
    cell = tf.nn.rnn_cell.GRUCell(6)
    dec = s2s.BeamSearchDecoder(cell, np.ones([7, 3], np.float32), [1, 2], 0,
                                tf.zeros([8, 6]), 4)
    names = [n for n, _ in _ops()]
    # the size of start_tokens as given (converted again, in Size), the embedding looked up as
    # given (no up-front constant)
    assert names[names.index("end_token"):][:3] == ["end_token", "Size/Const", "Size"]
    assert "embedding_lookup/params_0" in names and "embedding" not in names
    _, i, s = dec.initialize()
    dec.step(0, i, s)
    assert "BeamSearchDecoderStep/time" in [n for n, _ in _ops()]


def test_seeded_beam_search_prints_tf_1_15s_beams():
    tf.set_random_seed(7)
    bw, b = 4, 2
    cell = tf.nn.rnn_cell.GRUCell(6)
    emb = tf.get_variable("emb", [7, 3])
    init = s2s.tile_batch(tf.constant(np.random.RandomState(3).randn(b, 6), tf.float32), bw)
    dec = s2s.BeamSearchDecoder(cell, lambda i: tf.nn.embedding_lookup(emb, i),
                                tf.constant([1, 2]), 0, init, bw,
                                output_layer=tf.layers.Dense(7, use_bias=False),
                                length_penalty_weight=1.0)
    assert tf.get_default_graph()._last_id == 61  # TF 1.15's
    out, st, ln = s2s.dynamic_decode(dec, maximum_iterations=5, output_time_major=True)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        ids, n, lp = s.run([out.predicted_ids, ln, st.log_probs])
    # TF 1.15's
    assert ids.tolist() == [[[5, 5, 5, 5], [0, 3, 3, 4]], [[5, 5, 5, 5], [0, 3, 3, 3]],
                            [[5, 5, 5, 5], [0, 3, 5, 3]], [[5, 5, 2, 5], [0, 5, 5, 3]],
                            [[5, 2, 5, 1], [0, 5, 5, 5]]]
    assert n.tolist() == [[5, 5, 5, 5], [1, 5, 5, 5]]
    np.testing.assert_allclose(lp, [[-5.696159, -5.957129, -6.100625, -6.232922],
                                    [-1.445463, -9.446071, -9.50251, -9.508853]], atol=1e-5)


def test_sparsemax_takes_the_logits_as_given_so_masked_entries_stay_finite():
    y = tf.contrib.sparsemax.sparsemax(tf.constant([[1., 2., -np.inf], [0.5, 0.1, 0.2]]))
    assert tf.get_default_graph()._last_id == 60  # TF 1.15's op count
    with tf.Session() as s:
        # TF 1.15's
        np.testing.assert_allclose(s.run(y), [[0, 1, 0], [0.566667, 0.166667, 0.266667]],
                                   atol=1e-5)


def test_a_named_attention_wrapper_reserves_its_name_at_construction():
    mech = s2s.LuongAttention(5, tf.zeros([2, 4, 6]), [4, 3])
    w = s2s.AttentionWrapper(tf.nn.rnn_cell.GRUCell(5), mech, output_attention=False, name="aw")
    out, state = w(tf.zeros([2, 3]), w.zero_state(2, tf.float32))
    assert out.name == "aw_1/checked_cell_output:0"  # TF 1.15's
    assert state.attention.name == "aw_1/concat_1/concat:0"


def test_monotonic_attention_mode_error_is_tf_1_15s():
    with pytest.raises(ValueError, match=r"^mode must be 'recursive', 'parallel', or 'hard'\.$"):
        s2s.monotonic_attention(tf.ones([2, 3]) * 0.5, tf.zeros([2, 3]), "cumsum")


def test_static_rnn_steps_with_lengths_are_named_as_tf_1_15s_cond_merges():
    x = tf.unstack(tf.zeros([2, 3, 4]), axis=1)
    cell = tf.contrib.rnn.ResidualWrapper(tf.contrib.rnn.BasicLSTMCell(4))
    out, st = tf.nn.static_rnn(cell, x, sequence_length=tf.constant([3, 2]), dtype=tf.float32)
    # TF 1.15's
    assert [o.name for o in out] == ["rnn/cond/Merge:0", "rnn/cond_1/Merge:0",
                                     "rnn/cond_2/Merge:0"]
    assert [st.c.name, st.h.name] == ["rnn/cond_2/Merge_1:0", "rnn/cond_2/Merge_2:0"]
    assert tf.get_default_graph()._last_id == 234


def test_dynamic_rnn_state_dtype_error_is_tf_1_15s():
    mech = s2s.LuongAttention(5, tf.zeros([2, 4, 6]))
    w = s2s.AttentionWrapper(tf.nn.rnn_cell.GRUCell(5), mech)
    with pytest.raises(ValueError, match=r"^State has tensors of different inferred_dtypes\. "
                                         r"Unable to infer a single representative dtype\.$"):
        tf.nn.dynamic_rnn(w, tf.zeros([2, 3, 4]), initial_state=w.zero_state(2, tf.float32))


def test_decoders_check_their_cell_as_tf_1_15s_assert_like_rnncell():
    h = s2s.TrainingHelper(tf.zeros([2, 3, 4]), [3, 3])
    with pytest.raises(TypeError, match=r"The argument 'cell' \(3\) is not an RNNCell: "
                                        "'output_size' property is missing"):
        s2s.BasicDecoder(3, h, tf.zeros([2, 4]))
    with pytest.raises(TypeError, match="is not an RNNCell"):
        s2s.AttentionWrapper(3, s2s.LuongAttention(4, tf.zeros([2, 3, 4])))


def test_greedy_helper_checks_its_tokens_in_tf_1_15s_order():
    emb = tf.zeros([10, 5])
    with pytest.raises(ValueError, match="^end_token must be a scalar$"):
        s2s.GreedyEmbeddingHelper(emb, [1, 2], [0])
    # TF 1.15's: both converted and the batch size taken before the end token is refused
    assert [n for n, _ in _ops()[1:]] == ["start_tokens", "end_token", "Size/Const", "Size"]
    with pytest.raises(ValueError, match="^start_tokens must be a vector$"):
        s2s.GreedyEmbeddingHelper(emb, [[1, 2]], 0)


def test_state_saving_rnn_with_lengths_counts_tf_1_15s_ops():
    class Saver:
        batch_size = 2

        def __init__(self):
            self.vars = {}

        def state(self, name):
            if name not in self.vars:
                self.vars[name] = tf.Variable(tf.zeros([2, 5]), name=name, trainable=False)
            return self.vars[name]

        def save_state(self, name, value):
            return tf.assign(self.vars[name], value)

    x = tf.unstack(tf.zeros([2, 3, 4]), axis=1)
    tf.contrib.rnn.static_state_saving_rnn(tf.nn.rnn_cell.LSTMCell(5), x, Saver(), ("c", "h"),
                                           sequence_length=tf.constant([3, 2]))
    assert tf.get_default_graph()._last_id == 222  # TF 1.15's


def test_grid_lstm_cell_makes_tf_1_15s_two_zeros():
    x = tf.zeros([2, 4])
    c = tf.contrib.rnn.GridLSTMCell(3, feature_size=2, frequency_skip=1, num_frequency_blocks=[3])
    c(x, c.zero_state(2, tf.float32))
    names = [n for n, _ in _ops()]
    assert "grid_lstm_cell/zeros" in names and "grid_lstm_cell/zeros_1" in names
    assert tf.get_default_graph()._last_id == 192  # TF 1.15's


def test_nmt_attention_decoder_over_unknown_batch_builds_tf_1_15s_ops_and_values():
    # the initial alignments are TF's zero state of a tensor max_time, and clone() checks
    # every tensor field's shape as TF's with_same_shape does (an assertion per unknown shape)
    tf.set_random_seed(7)
    src = tf.placeholder(tf.int32, [None, None])
    src_len = tf.placeholder(tf.int32, [None])
    emb = tf.get_variable("emb", [12, 6])
    enc_out, enc_st = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(8),
                                        tf.nn.embedding_lookup(emb, src),
                                        sequence_length=src_len, dtype=tf.float32)
    bs = tf.shape(src)[0]
    mech = s2s.LuongAttention(8, enc_out, src_len, scale=True)
    cell = s2s.AttentionWrapper(tf.nn.rnn_cell.GRUCell(8), mech, attention_layer_size=8,
                                output_attention=False)
    init = cell.zero_state(bs, tf.float32).clone(cell_state=enc_st)
    assert init.cell_state.name == "rnn/while/Exit_3/Identity:0"  # TF 1.15's
    assert init.attention.name == "AttentionWrapperZeroState/zeros_2/Identity:0"
    helper = s2s.GreedyEmbeddingHelper(emb, tf.fill([bs], 1), 2)
    dec = s2s.BasicDecoder(cell, helper, init, output_layer=tf.layers.Dense(12, use_bias=False))
    out, _, lens = s2s.dynamic_decode(dec, impute_finished=True, maximum_iterations=7)
    assert tf.get_default_graph()._last_id == 729
    w = tf.Variable(tf.random_normal([2]))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        ids, n, wv = s.run([out.sample_id, lens, w], {src: [[3, 4, 5], [6, 7, 0]],
                                                     src_len: [3, 2]})
    # TF 1.15's
    assert ids.tolist() == [[8, 8, 8, 9, 8, 9, 8], [8, 8, 8, 8, 8, 8, 8]]
    assert n.tolist() == [7, 7]
    np.testing.assert_allclose(wv, [-1.179882, 0.868678], atol=1e-5)


def test_with_same_shape_asserts_with_tf_1_15s_ops():
    a = tf.placeholder(tf.float32, [None, 3])
    b = tf.placeholder(tf.float32, [None, None])
    tf.contrib.framework.with_same_shape(a, b)
    assert [n for n, _ in _ops()[2:]] == [  # TF 1.15's
        "Placeholder_1/expected_shape", "Placeholder_1/assert_shape/actual",
        "Placeholder_1/assert_shape/is_shape/Size",
        "Placeholder_1/assert_shape/is_shape/is_rank/actual",
        "Placeholder_1/assert_shape/is_shape/is_rank",
        "Placeholder_1/assert_shape/is_shape/shape_tensor_equal/Equal/y",
        "Placeholder_1/assert_shape/is_shape/shape_tensor_equal/Equal",
        "Placeholder_1/assert_shape/is_shape/shape_tensor_equal/equal_1",
        "Placeholder_1/assert_shape/is_shape/shape_tensor_equal/exclude_partial_shape",
        "Placeholder_1/assert_shape/is_shape/shape_tensor_equal/Const",
        "Placeholder_1/assert_shape/is_shape/shape_tensor_equal",
        "Placeholder_1/assert_shape/is_shape", "Placeholder_1/assert_shape/Const",
        "Placeholder_1/assert_shape/Assert/data_0", "Placeholder_1/assert_shape/Assert",
        "Placeholder_1/Identity"]


def test_beam_search_reorders_alignment_history_with_tf_1_15s_ops():
    # gather_tree_from_array takes each size statically where known (the beam width here) and
    # builds TF's beam ids, gather tree and indices: the decode ends at TF's op count
    m = tf.placeholder_with_default(np.ones([2, 5, 6], np.float32), [None, None, 6])
    ml = tf.placeholder_with_default([5, 3], [None])
    tm, tl = s2s.tile_batch(m, 2), s2s.tile_batch(ml, 2)
    cell = s2s.AttentionWrapper(tf.nn.rnn_cell.GRUCell(5), s2s.BahdanauAttention(4, tm, tl),
                                alignment_history=True)
    bs = tf.shape(m)[0]
    dec = s2s.BeamSearchDecoder(cell, tf.get_variable("emb", [7, 3]), tf.fill([bs], 1), 0,
                                cell.zero_state(bs * 2, tf.float32), 2,
                                output_layer=tf.layers.Dense(7), coverage_penalty_weight=0.3,
                                length_penalty_weight=0.2)
    s2s.dynamic_decode(dec, maximum_iterations=4)
    assert tf.get_default_graph()._last_id == 1166  # TF 1.15's
    assert ("decoder/GatherTree_1/end_token", "Const") in _ops()


def test_gather_tree_kernel_errors_are_tf_1_15s():
    ids = tf.placeholder(tf.int32, [None, None, None])
    par = tf.placeholder(tf.int32, [None, None, None])
    lens = tf.placeholder(tf.int32, [None])
    r = s2s.gather_tree(ids, par, lens, 9)
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"batch size dimensions step_ids.shape\[1\] and "
                                 r"max_sequence_lengths.shape\[0\] must match.  but shapes "
                                 r"are: \[2,1,2\] and \[2\]"):
            s.run(r, {ids: np.ones([2, 1, 2]), par: np.zeros([2, 1, 2]), lens: [1, 2]})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"step_ids.shape must match parent_ids.shape.  but shapes "
                                 r"are: \[2,1,2\] and \[2,1,3\]"):
            s.run(r, {ids: np.ones([2, 1, 2]), par: np.zeros([2, 1, 3]), lens: [1]})


@pytest.mark.parametrize("use_outputs, want", [(False, 304), (True, 324)])
def test_rnn_gradient_counts_tf_1_15s_ops_for_an_unused_output_array(use_outputs, want):
    # an RNN's output array with no gradient (only the final state used) is, in TF 1.15, a
    # float flow that gets zeros and an Enter in the gradient loop
    out, st = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(5), tf.ones([2, 3, 4]), dtype=tf.float32)
    tf.gradients(tf.reduce_sum(out if use_outputs else st), tf.trainable_variables())
    assert tf.get_default_graph()._last_id == want  # TF 1.15's


def test_attention_alignment_history_gradient_counts_tf_1_15s_ops():
    mech = s2s.LuongAttention(5, tf.ones([2, 5, 6]))
    cell = s2s.AttentionWrapper(tf.nn.rnn_cell.GRUCell(5), mech, alignment_history=True)
    out, _ = tf.nn.dynamic_rnn(cell, tf.ones([2, 3, 4]), dtype=tf.float32)
    tf.gradients(tf.reduce_sum(out), tf.trainable_variables())
    assert tf.get_default_graph()._last_id == 530  # TF 1.15's


def test_attention_wrapper_takes_dtype_and_dynamic_decode_other_keywords_as_tf_1_15():
    mech = s2s.LuongAttention(4, tf.zeros([2, 3, 4]))
    cell = s2s.AttentionWrapper(tf.nn.rnn_cell.GRUCell(4), mech, dtype=tf.float32)
    assert cell.dtype == "float32"
    helper = s2s.GreedyEmbeddingHelper(tf.ones([5, 3]), [1, 1], 2)
    dec = s2s.BasicDecoder(cell, helper, cell.zero_state(2, tf.float32))
    out, _, _ = s2s.dynamic_decode(dec, maximum_iterations=2, decoder_init_kwargs={})
    assert out.sample_id.get_shape().as_list() == [2, None]
