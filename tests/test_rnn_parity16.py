"""Recurrent models built as TF 1.15 programs build them: the contrib block cells, the fused
LSTM and the contrib cells count TF 1.15's ops (so later random ops draw TF's op seeds) and
name their variables' initializers as TF; seeded programs print TF's numbers. Expected values
are what real TF 1.15 printed for the same programs."""

import numpy as np
import pytest

import tideflow as tf
from tests.opseq_util import op_names
from tests.opseq_util import seed2 as _seed2


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _one_step(cell, depth=4):
    x = tf.placeholder(tf.float32, [2, depth])
    return cell(x, cell.zero_state(2, tf.float32))


@pytest.mark.parametrize("make, want", [
    (lambda: tf.contrib.rnn.GRUBlockCell(3), 41),
    (lambda: tf.contrib.rnn.GRUBlockCellV2(3), 41),
    (lambda: tf.contrib.rnn.LSTMBlockCell(3), 36),
    (lambda: tf.contrib.rnn.LSTMBlockCell(3, use_peephole=True, cell_clip=0.5), 65),
    (lambda: tf.contrib.rnn.UGRNNCell(3), 42),
    (lambda: tf.contrib.rnn.IntersectionRNNCell(4), 64),
    (lambda: tf.contrib.rnn.IntersectionRNNCell(3, num_in_proj=3), 80),
    (lambda: tf.contrib.rnn.GLSTMCell(4, number_of_groups=2), 103),
    (lambda: tf.contrib.rnn.TimeFreqLSTMCell(3, feature_size=2, frequency_skip=1), 118),
])
def test_a_block_cell_step_counts_tf_1_15s_ops(make, want):
    tf.set_random_seed(1)
    _one_step(make())
    tf.random_normal([2])
    assert _seed2("RandomStandardNormal") == [want]


def test_block_cells_zero_biases_are_constant_initialized_as_tf():
    _one_step(tf.contrib.rnn.GRUBlockCell(3))
    with tf.variable_scope("l"):
        _one_step(tf.contrib.rnn.LSTMBlockCell(3))
    with tf.variable_scope("p"):
        _one_step(tf.contrib.rnn.OutputProjectionWrapper(tf.nn.rnn_cell.GRUCell(3), 5))
    names = set(op_names())
    for name in ["gru_cell/b_c/Initializer/Const", "l/lstm_cell/bias/Initializer/Const",
                 "p/output_projection_wrapper/bias/Initializer/Const"]:
        assert name in names


def test_dynamic_rnn_over_a_gru_block_cell_counts_tf_1_15s_ops():
    # (in the loop TF's fused op also reads each variable through an Enter)
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [2, 3, 4])
    tf.nn.dynamic_rnn(tf.contrib.rnn.GRUBlockCell(3), x, dtype=tf.float32)
    tf.random_normal([2])
    assert _seed2("RandomStandardNormal") == [134]


@pytest.mark.parametrize("seq, want", [([3, 2], 63), (None, 33)])
def test_fused_lstm_builds_tf_1_15s_ops_around_its_steps(seq, want):
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [3, 2, 4])
    tf.contrib.rnn.LSTMBlockFusedCell(3)(x, dtype=tf.float32, sequence_length=seq)
    tf.random_normal([2])
    assert _seed2("RandomStandardNormal") == [want]
    names = [n for n in op_names() if "/rnn/" not in n]  # (tideflow's steps)
    tail = ["lstm_fused_cell/GatherNd_1"] if seq else ["lstm_fused_cell/strided_slice_1"]
    assert names[names.index("random_normal/shape") - 1:][:1] == tail


def test_seeded_fused_and_block_cells_give_tf_1_15s_numbers():
    tf.set_random_seed(3)
    x = tf.constant(np.linspace(-1, 1, 24, dtype=np.float32).reshape(3, 2, 4))
    with tf.variable_scope("a"):
        fo, (fc, fh) = tf.contrib.rnn.LSTMBlockFusedCell(3)(x, dtype=tf.float32,
                                                            sequence_length=[3, 1])
    with tf.variable_scope("b"):  # (a second fused cell: its own layer, its own name)
        ro, rs = tf.contrib.rnn.TimeReversedFusedRNN(tf.contrib.rnn.LSTMBlockFusedCell(2))(
            x, dtype=tf.float32, sequence_length=[2, 3])
    go, _ = tf.nn.dynamic_rnn(tf.contrib.rnn.GRUBlockCell(2), x, dtype=tf.float32,
                              time_major=True)
    w = tf.Variable(tf.random_normal([3]))
    assert [v.name for v in tf.global_variables()] == [
        "a/lstm_fused_cell/kernel:0", "a/lstm_fused_cell/bias:0", "b/lstm_fused_cell/kernel:0",
        "b/lstm_fused_cell/bias:0", "rnn/gru_cell/w_ru:0", "rnn/gru_cell/b_ru:0",
        "rnn/gru_cell/w_c:0", "rnn/gru_cell/b_c:0", "Variable:0"]
    assert (fo.name, fc.name, fh.name) == ("a/lstm_fused_cell/mul:0",
                                           "a/lstm_fused_cell/GatherNd:0",
                                           "a/lstm_fused_cell/GatherNd_1:0")
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = s.run([fo, fc, fh, ro, rs.h, go, w])
    want = [
        [0.0457122, 0.0419638, 0.0163626, 0.0383397, 0.0253826, 0.0080243, 0.0473685,
         0.0419431, -0.0059738, 0, 0, 0, -0.0495184, 0.0071717, -0.0876672, 0, 0, 0],
        [-0.1103827, 0.0132311, -0.1839319, 0.0734656, 0.0544116, 0.0161206],
        [-0.0495184, 0.0071717, -0.0876672, 0.0383397, 0.0253826, 0.0080243],
        [-0.1248496, 0.1965273, -0.0222217, 0.0309968, -0.0288192, 0.0725562, 0.0630877,
         -0.1790406, 0, 0, 0.0753978, -0.1985168],
        [-0.1248496, 0.1965273, -0.0222217, 0.0309968],
        [0.0476437, -0.0254824, 0.0209173, -0.0163622, 0.0143989, -0.0270719, -0.0679527,
         -0.0146232, -0.150214, -0.0179674, -0.2892275, -0.0028383],
        [1.4749306, -0.8501991, 0.7751837]]
    for g, v in zip(got, want):
        np.testing.assert_allclose(g.ravel(), v, atol=2e-6)


def test_recursive_monotonic_attention_counts_tf_1_15s_ops():
    # a known batch size makes the ones and zeros of its scan constants, as in TF
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [2, 4, 3])
    mem = tf.placeholder(tf.float32, [2, 4, 5])
    am = tf.contrib.seq2seq.LuongMonotonicAttention(5, mem, [4, 3], sigmoid_noise=0.0,
                                                    mode="recursive")
    cell = tf.contrib.seq2seq.AttentionWrapper(tf.nn.rnn_cell.GRUCell(5), am)
    cell(x[:, 0], cell.zero_state(2, tf.float32))
    tf.random_normal([2])
    assert _seed2("RandomStandardNormal") == [277]
    assert "attention_wrapper/ones" in op_names()


def test_raw_rnn_builds_tf_1_15s_loop_and_seeded_numbers():
    # loop variables (time, finished, input, emit arrays, state, loop state) as TF orders
    # them; its emit arrays count their ops as a program's, stack() included
    tf.set_random_seed(5)
    x = tf.constant(np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 2, 3))
    sl = tf.constant([4, 2])
    cell = tf.nn.rnn_cell.GRUCell(2)

    def loop_fn(time, cell_output, cell_state, loop_state):
        if cell_output is None:
            return time >= sl, x[0], cell.zero_state(2, tf.float32), None, tf.constant(0.0)
        nxt = x[tf.minimum(time, 3)]
        return time >= sl, nxt, cell_state, cell_output, loop_state + tf.reduce_sum(cell_output)

    o_ta, fs, ls = tf.nn.raw_rnn(cell, loop_fn)
    o = o_ta.stack()
    w = tf.Variable(tf.random_normal([2]))
    assert (fs.name, ls.name) == ("rnn/while/Exit_4:0", "rnn/while/Exit_5:0")
    assert o.shape.as_list() == [None, 2, 2]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        ov, fv, lv, wv = s.run([o, fs, ls, w])
    np.testing.assert_allclose(ov.ravel(), [
        -0.148443, -0.0876061, -0.1006386, -0.1040193, -0.1567403, -0.1689802, -0.0937754,
        -0.1438497, -0.1108855, -0.1043099, 0, 0, -0.0470847, 0.2383084, 0, 0], atol=2e-6)
    np.testing.assert_allclose(fv.ravel(), [-0.0470847, 0.2383084, -0.0937754, -0.1438497],
                               atol=2e-6)
    np.testing.assert_allclose(lv, -0.6750512, atol=2e-6)
    np.testing.assert_allclose(wv, [1.3035733, 0.5438075], atol=1e-6)


@pytest.mark.parametrize("batch, want", [(2, 139), (None, 152)])
def test_raw_rnn_later_random_ops_get_tf_1_15s_seeds(batch, want):
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [4, batch, 3])
    sl = tf.placeholder(tf.int32, [batch])
    cell = tf.nn.rnn_cell.GRUCell(3)

    def loop_fn(time, cell_output, cell_state, loop_state):
        if cell_output is None:
            n = batch or tf.shape(x)[1]
            return time >= sl, x[0], cell.zero_state(n, tf.float32), None, None
        return time >= sl, x[0], cell_state, cell_output, None

    o_ta, _, ls = tf.nn.raw_rnn(cell, loop_fn)
    assert ls is None
    o_ta.stack()
    tf.random_normal([2])
    assert _seed2("RandomStandardNormal") == [want]


def test_attention_wrapper_checks_initial_cell_state_in_its_init_scope():
    # TF: the batch size checks and identities under AttentionWrapperInit; a single step
    # with an alignment history counts TF's ops (the history's array: a Const and the array)
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [2, 3])
    mem = tf.placeholder(tf.float32, [2, 4, 5])
    am = tf.contrib.seq2seq.LuongAttention(5, mem, tf.constant([4, 3]))
    cell = tf.contrib.seq2seq.AttentionWrapper(
        tf.nn.rnn_cell.GRUCell(5), am, initial_cell_state=mem[:, 0], alignment_history=True,
        cell_input_fn=lambda i, a: tf.concat([i, a], -1) * 0.5)
    names = op_names()
    assert names[-2:] == ["AttentionWrapperInit/assert_equal/NoOp",
                          "AttentionWrapperInit/check_initial_cell_state"]
    cell(x, cell.zero_state(2, tf.float32))
    tf.random_normal([2])
    assert _seed2("RandomUniform") == [27, 87, 101]
    assert _seed2("RandomStandardNormal") == [179]


class _NoZeroState:
    output_size = 2
    state_size = 2

    def __call__(self, inputs, state):
        return inputs, state


@pytest.mark.parametrize("call, kind, message", [
    (lambda: tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), tf.placeholder(tf.float32, [None, 3]),
                               dtype=tf.float32),
     ValueError, r"^Shape \(3, \?\) must have rank at least 3"),
    (lambda: tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), tf.placeholder(tf.float32, [3]),
                               dtype=tf.float32, time_major=True),
     ValueError, r"^Expected input tensor .* to have rank at least 2"),
    (lambda: tf.nn.static_rnn(tf.nn.rnn_cell.GRUCell(2), [tf.placeholder(tf.float32, [None, 2,
                                                                                      None])],
                              dtype=tf.float32),
     ValueError, (r"^Input size \(dimension 1 of inputs\) must be accessible via shape "
                 r"inference, but saw value None")),
    (lambda: tf.nn.dynamic_rnn(_NoZeroState(), tf.zeros([2, 3, 1]), dtype=tf.float32),
     TypeError, (r"is not an RNNCell: either 'zero_state' or 'get_initial_state' method is "
                r"required\.$")),
    (lambda: tf.nn.static_rnn(3, [tf.zeros([2, 1])], dtype=tf.float32),
     TypeError, (r"^The argument 'cell' \(3\) is not an RNNCell: 'output_size' property is "
                r"missing, 'state_size' property is missing, either 'zero_state' or "
                r"'get_initial_state' method is required, is not callable\.$")),
])
def test_rnn_argument_errors_read_as_tf_1_15s(call, kind, message):
    with pytest.raises(kind, match=message):
        call()


def test_beam_search_with_attention_history_and_coverage_as_tf_1_15():
    # the alignment history stays a TensorArray (TF's static check: a known dimension 1, the
    # memory length, must be the beam width); seeded values are TF 1.15's
    tf.set_random_seed(47)
    b, t, d, v, h, w = 2, 4, 3, 7, 5, 2
    x = tf.placeholder(tf.float32, [b, t, d])
    sl = tf.constant([4, 2])
    with tf.variable_scope("enc"):
        mem, es = tf.nn.dynamic_rnn(tf.nn.rnn_cell.LSTMCell(h), x, sequence_length=sl,
                                    dtype=tf.float32)
    emb = tf.get_variable("emb", [v, d])
    s2s = tf.contrib.seq2seq
    tm, ts, tl = s2s.tile_batch(mem, w), s2s.tile_batch(es, w), s2s.tile_batch(sl, w)
    am = s2s.LuongAttention(h, tm, tl, scale=True, score_mask_value=-1e4)
    cell = s2s.AttentionWrapper(tf.nn.rnn_cell.LSTMCell(h), am, attention_layer_size=4,
                                alignment_history=True)
    init = cell.zero_state(b * w, tf.float32).clone(cell_state=ts)
    dec = s2s.BeamSearchDecoder(cell, lambda ids: tf.nn.embedding_lookup(emb, ids),
                                tf.fill([b], 1), 2, init, w,
                                output_layer=tf.layers.Dense(v, use_bias=False),
                                length_penalty_weight=0.5, coverage_penalty_weight=0.2)
    out, st, _ = s2s.dynamic_decode(dec, maximum_iterations=tf.placeholder_with_default(4, []),
                                    output_time_major=True)
    assert isinstance(st.cell_state.alignment_history, tf.TensorArray)
    ah = st.cell_state.alignment_history.stack()
    wv = tf.Variable(tf.random_normal([3]))
    xv = np.sin(np.arange(b * t * d).reshape(b, t, d)).astype(np.float32)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        pred, lp, al, wval = s.run([out.predicted_ids, st.log_probs, ah, wv], {x: xv})
    # (TF 1.15 with NumPy 1.18, whose tf.zeros([batch_size]) makes np.prod's Less op)
    np.testing.assert_array_equal(pred.ravel(), [5, 5, 5, 5, 5, 6, 3, 3, 6, 5, 4, 4, 6, 6, 5, 4])
    np.testing.assert_allclose(lp.ravel(), [-7.61415, -7.61972, -7.71549, -7.72243], atol=1e-4)
    np.testing.assert_allclose(al[0, 0], [0.25015, 0.24991, 0.25009, 0.24985], atol=1e-4)
    np.testing.assert_allclose(wval, [-0.59389, -1.16339, -1.7562], atol=1e-4)


def test_dropout_state_filter_and_stacked_static_bidirectional_scopes_as_tf_1_15():
    # the filter visits the state from the top (TF's get_traverse_shallow_structure): a
    # subtree it leaves out is kept whole and counts as one for the dropout seeds
    tf.set_random_seed(53)
    x = tf.constant(np.cos(np.arange(24).reshape(2, 4, 3) * 0.3).astype(np.float32))
    lstm = tf.nn.rnn_cell.LSTMStateTuple

    def multi():
        return tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(2),
                                            tf.nn.rnn_cell.BasicLSTMCell(2)])

    dw = tf.nn.rnn_cell.DropoutWrapper(
        multi(), state_keep_prob=0.5, seed=9,
        dropout_state_filter_visitor=lambda s: lstm(c=False, h=True)
        if isinstance(s, lstm) else True)
    o, s = tf.nn.dynamic_rnn(dw, x, dtype=tf.float32)
    dw2 = tf.nn.rnn_cell.DropoutWrapper(
        multi(), state_keep_prob=0.5, seed=9,
        dropout_state_filter_visitor=lambda s: (False, True)
        if isinstance(s, tuple) and not isinstance(s, lstm) else True)
    o2, s2 = tf.nn.dynamic_rnn(dw2, x, dtype=tf.float32, scope="r2")
    tf.contrib.rnn.stack_bidirectional_rnn([tf.nn.rnn_cell.GRUCell(2)],
                                           [tf.nn.rnn_cell.GRUCell(2)], tf.unstack(x, axis=1),
                                           sequence_length=[4, 2], dtype=tf.float32)
    names = [v.name for v in tf.global_variables()]
    assert names[-8:-4] == ["stack_bidirectional_rnn/cell_0/fw/gru_cell/gates/kernel:0",
                            "stack_bidirectional_rnn/cell_0/fw/gru_cell/gates/bias:0",
                            "stack_bidirectional_rnn/cell_0/fw/gru_cell/candidate/kernel:0",
                            "stack_bidirectional_rnn/cell_0/fw/gru_cell/candidate/bias:0"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([o, s[1].h, o2, s2[1].h])
    want = [[-0.011915, -0.008031, -0.029859, -0.01439, -0.035866, -0.012176, -0.017586,
             -0.003801, 0.009722, 0.004438, 0.020478, 0.007189, 0.012775, -0.000689,
             -0.005641, -0.012066],
            [0, -0.007602, 0, 0],
            [-0.020585, 0.002081, -0.023423, -0.010028, 0.005131, -0.014584, 0.024435,
             -0.010028, 0.01804, 0.000851, 0.038776, 0.011511, -0.003453, 0.021672,
             -0.028484, 0.009966],
            [0, 0, -0.056969, 0]]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.ravel(), w, atol=2e-6)


@pytest.mark.parametrize("make", [lambda: tf.nn.rnn_cell.GRUCell(2),
                                  lambda: tf.nn.rnn_cell.BasicLSTMCell(2),
                                  lambda: tf.nn.rnn_cell.LSTMCell(2),
                                  lambda: tf.nn.rnn_cell.BasicRNNCell(2)])
def test_core_cells_take_a_rank_2_input_as_tf_layers(make):
    cell = make()
    with pytest.raises(ValueError, match=r"^Input 0 of layer .* is incompatible with the "
                                         r"layer: expected ndim=2, found ndim=1\. Full shape "
                                         r"received: \[2\]"):
        cell(tf.zeros([2]), cell.zero_state(2, tf.float32))
