"""Parity checks for ``tf.contrib.seq2seq`` found by running TF 1.15's seq2seq kernel tests
against tideflow: the module paths TF code imports (``beam_search_ops``), the module-level beam
search helpers (``_beam_search_step``, ``gather_tree_from_array``, ``_check_batch_beam``) and
their results, with expected values worked out by hand or with NumPy."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.python.framework import errors


def _run(fetches):
    with tf.Session() as sess:
        return sess.run(fetches)


def _np_reorder(values, parents, lengths):
    """NumPy reference: each (batch, beam) follows its ancestry back from the batch entry's
    longest length; a step at or past the beam's own length keeps the beam's own value."""
    _, batch, beam = parents.shape
    out = values.copy()
    for b in range(batch):
        max_len = max(lengths[b])
        for k in range(beam):
            cur = k
            for t in range(max_len - 1, -1, -1):
                if t < lengths[b][k]:
                    out[t, b, k] = values[t, b, cur]
                cur = parents[t, b, cur]
    return out


def test_beam_search_ops_module_path():
    from tideflow.contrib.seq2seq.python.ops import beam_search_ops
    with tf.Graph().as_default():
        # batch 1, beam 2, 3 steps; beam 0 of the last step came from beam 1, which came
        # from beam 0
        ids = np.array([[[4, 5]], [[6, 7]], [[8, 9]]], np.int32)
        parents = np.array([[[0, 0]], [[0, 0]], [[1, 0]]], np.int32)
        out = _run(beam_search_ops.gather_tree(ids, parents, max_sequence_lengths=[3],
                                               end_token=10))
    np.testing.assert_array_equal(out[:, 0, 0], [4, 7, 8])
    np.testing.assert_array_equal(out[:, 0, 1], [4, 6, 9])


@pytest.mark.parametrize("extra_dims,merged", [(0, False), (1, False), (2, False), (1, True),
                                               (0, True)])
def test_gather_tree_from_array_layouts(extra_dims, merged):
    from tideflow.contrib.seq2seq.python.ops import beam_search_decoder as bsd
    rng = np.random.RandomState(3)
    time, batch, beam = 4, 2, 3
    values = rng.randint(0, 50, size=(time, batch, beam)).astype(np.float32)
    parents = rng.randint(0, beam, size=(time, batch, beam)).astype(np.int32)
    lengths = [[3, 4, 2], [4, 1, 4]]
    expected = _np_reorder(values, parents, lengths)
    with tf.Graph().as_default():
        v = tf.constant(values)
        e = tf.constant(expected)
        if merged:
            v = tf.reshape(v, [time, batch * beam])
            e = tf.reshape(e, [time, batch * beam])
        for _ in range(extra_dims):
            v = tf.stack([v, 2 * v], -1)
            e = tf.stack([e, 2 * e], -1)
        got = bsd.gather_tree_from_array(v, tf.constant(parents), lengths)
        assert got.get_shape() == v.get_shape()
        got_, e_ = _run([got, e])
    np.testing.assert_array_equal(got_, e_)


@pytest.mark.parametrize("static,dynamic,valid", [
    ((6, 6, 4), (None, None, 4), True),        # batch 2 * beam 3 merged
    ((6, 2, 3, 4), (None, None, None, 4), True),
    ((6, 7, 4), (None, None, 4), False),
    ((6, 2, 4, 4), (None, None, None, 4), False),
    ((6, 2), (None, None), False),
])
def test_check_batch_beam(static, dynamic, valid):
    from tideflow.contrib.seq2seq.python.ops import beam_search_decoder as bsd
    with tf.Graph().as_default():
        t = tf.placeholder_with_default(np.zeros(static, np.float32), shape=dynamic)
        check = bsd._check_batch_beam(t, tf.constant(2), 3)
        if valid:
            _run(check)
        else:
            with pytest.raises(errors.InvalidArgumentError, match="TensorArray reordering"):
                _run(check)


def _log_softmax(x):
    x = x - x.max(-1, keepdims=True)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def test_module_level_beam_search_step():
    from tideflow.contrib.seq2seq.python.ops import beam_search_decoder as bsd
    batch, beam, end = 1, 2, 0
    logits = np.array([[[0.0, 2.0, 1.0], [0.0, 0.5, 3.0]]], np.float32)
    prev = np.log(np.array([[0.6, 0.4]], np.float32))
    with tf.Graph().as_default():
        state = bsd.BeamSearchDecoderState(
            cell_state=tf.zeros([batch, beam]), log_probs=tf.constant(prev),
            lengths=tf.constant([[1, 1]], tf.int64), finished=tf.constant([[False, True]]),
            accumulated_attention_probs=())
        out, nxt = bsd._beam_search_step(
            time=1, logits=tf.constant(logits), next_cell_state=tf.zeros([batch, beam]),
            beam_state=state, batch_size=tf.constant(batch), beam_width=beam, end_token=end,
            length_penalty_weight=0.0, coverage_penalty_weight=0.0)
        out_, nxt_ = _run([out, nxt])
    # beam 1 is finished: it can only continue with end (log prob unchanged)
    total = prev[0, 0] + _log_softmax(logits[0, 0])
    candidates = {(0, 0): total[0], (0, 1): total[1], (0, 2): total[2], (1, 0): prev[0, 1]}
    best = sorted(candidates, key=lambda k: -candidates[k])[:beam]
    np.testing.assert_array_equal(out_.parent_ids[0], [b for b, _ in best])
    np.testing.assert_array_equal(out_.predicted_ids[0], [w for _, w in best])
    np.testing.assert_allclose(nxt_.log_probs[0], [candidates[k] for k in best], rtol=1e-6)
    exp_lengths = [1 if b == 1 else (1 if w == end else 2) for b, w in best]
    np.testing.assert_array_equal(nxt_.lengths[0], exp_lengths)
    np.testing.assert_array_equal(nxt_.finished[0], [b == 1 or w == end for b, w in best])


def test_gather_tree_bad_parent_names_traced_beam_and_step():
    from tideflow.contrib.seq2seq.python.ops import beam_search_ops
    # batch 1, beam 2, 3 steps; tracing beam 0 back: step 2 -> parent 1, step 1 of beam 1
    # points to beam 7, which does not exist and would be read at step 0
    ids = np.arange(6, dtype=np.int32).reshape(3, 1, 2)
    parents = np.array([[[0, 0]], [[0, 7]], [[1, 0]]], np.int32)
    with tf.Graph().as_default():
        out = beam_search_ops.gather_tree(ids, parents, max_sequence_lengths=[3], end_token=9)
        with pytest.raises(errors.InvalidArgumentError,
                           match=r"parent id 7 at \(batch, time, beam\) == \(0, 0, 0\)"):
            _run(out)


def _np_xent(logits, labels):
    return -_log_softmax(logits)[np.arange(len(labels)), labels]


@pytest.mark.parametrize("kwargs,reduce", [
    ({}, "sum_both"),
    ({"sum_over_batch": False}, "sum_time"),
    ({"sum_over_timesteps": False}, "sum_batch"),
    ({"sum_over_timesteps": False, "sum_over_batch": False}, "none"),
    ({"sum_over_timesteps": False, "sum_over_batch": False, "average_across_timesteps": True,
      "average_across_batch": True}, "avg_both"),
])
def test_sequence_loss_object(kwargs, reduce):
    from tideflow.contrib.seq2seq.python.ops import loss
    rng = np.random.RandomState(0)
    logits = rng.randn(2, 3, 4).astype(np.float32)
    targets = rng.randint(0, 4, size=(2, 3)).astype(np.int32)
    weights = np.array([[1.0, 2.0, 0.0], [0.5, 0.0, 0.0]], np.float32)
    xent = _np_xent(logits.reshape(-1, 4), targets.reshape(-1)).reshape(2, 3) * weights
    nonzero = (weights != 0).astype(np.float32)
    expected = {"sum_both": xent.sum() / nonzero.sum(),
                "sum_time": xent.sum(1) / nonzero.sum(1),
                "sum_batch": xent.sum(0) / np.maximum(nonzero.sum(0), 1) * (nonzero.sum(0) > 0),
                "none": xent,
                "avg_both": xent.sum() / weights.sum()}[reduce]
    with tf.Graph().as_default():  # (TF 1.15's SequenceLoss of arrays: no get_shape)
        got = _run(loss.SequenceLoss(**kwargs)(tf.constant(targets), tf.constant(logits),
                                                tf.constant(weights)))
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("prob,want", [(0.0, 0), (1.0, 1)])
def test_scheduled_output_helper_sample_ids_are_int32(prob, want):
    from tideflow.contrib.seq2seq.python.ops import basic_decoder, helper
    batch, time, depth = 3, 4, 2
    rng = np.random.RandomState(1)
    inputs = rng.randn(batch, time, depth).astype(np.float32)
    with tf.Graph().as_default():
        cell = tf.nn.rnn_cell.BasicRNNCell(depth)
        h = helper.ScheduledOutputTrainingHelper(inputs, [time] * batch, prob)
        dec = basic_decoder.BasicDecoder(cell, h, cell.zero_state(batch, tf.float32))
        assert dec.output_dtype == basic_decoder.BasicDecoderOutput(tf.float32, tf.int32)
        assert dec.output_size.sample_id == tf.TensorShape([])
        _, first_inputs, first_state = dec.initialize()
        out, _, next_inputs, _ = dec.step(tf.constant(0), first_inputs, first_state)
        assert out.sample_id.dtype == tf.int32
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out_, next_ = sess.run([out, next_inputs])
    np.testing.assert_array_equal(out_.sample_id, [want] * batch)
    np.testing.assert_allclose(next_, out_.rnn_output if want else inputs[:, 1], rtol=1e-6)


def test_bernoulli_and_categorical_sample_shapes_and_values():
    from tideflow.contrib.seq2seq.python.ops import helper
    with tf.Graph().as_default():
        # probabilities 0 and 1 make the Bernoulli draws certain
        b = helper.bernoulli_sample(probs=[[0.0, 1.0, 1.0]], sample_shape=[2], dtype=tf.bool)
        # a logit far above the others makes the categorical draw certain
        logits = np.full((2, 3, 4), -50.0, np.float32)
        logits[0, :, 2] = 50.0
        logits[1, :, 1] = 50.0
        c = helper.categorical_sample(logits=logits, sample_shape=3)
        c_default = helper.categorical_sample(logits=logits[0])
        b_, c_, cd_ = _run([b, c, c_default])
    assert b_.dtype == np.bool_ and b_.shape == (2, 1, 3)
    np.testing.assert_array_equal(b_, np.broadcast_to([[False, True, True]], (2, 1, 3)))
    assert c_.dtype == np.int32 and c_.shape == (3, 2, 3)
    np.testing.assert_array_equal(c_, np.broadcast_to([[2, 2, 2], [1, 1, 1]], (3, 2, 3)))
    np.testing.assert_array_equal(cd_, [2, 2, 2])


def test_attention_wrapper_in_dynamic_rnn_with_sequence_length():
    # dynamic_rnn copies finished rows' state through; the scalar ``time`` and the alignment
    # history TensorArray are not per-row and simply advance, as in TF
    from tideflow.contrib.seq2seq.python.ops import attention_wrapper as wrapper
    rng = np.random.RandomState(2)
    memory = rng.randn(2, 4, 3).astype(np.float32)
    inputs = rng.randn(2, 3, 5).astype(np.float32)
    with tf.Graph().as_default():
        mech = wrapper.LuongAttention(6, memory, memory_sequence_length=[4, 2])
        cell = wrapper.AttentionWrapper(tf.nn.rnn_cell.LSTMCell(6), mech,
                                        alignment_history=True)
        # (the state mixes float32 and the int32 time, so dtype is needed, as in TF)
        out, state = tf.nn.dynamic_rnn(cell, inputs, sequence_length=[3, 1],
                                       initial_state=cell.zero_state(2, tf.float32),
                                       dtype=tf.float32)
        history = state.alignment_history.stack()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out_, time_, attention_, alignments_, history_ = sess.run(
                [out, state.time, state.attention, state.alignments, history])
    assert time_ == 3
    assert history_.shape == (3, 2, 4)
    # row 1 stopped after one step: its final attention is its first output, later outputs 0
    np.testing.assert_allclose(attention_[1], out_[1, 0], rtol=1e-6)
    np.testing.assert_array_equal(out_[1, 1:], 0.0)
    np.testing.assert_allclose(attention_[0], out_[0, 2], rtol=1e-6)
    np.testing.assert_allclose(alignments_[1], history_[0, 1], rtol=1e-6)
    np.testing.assert_allclose(alignments_.sum(1), 1.0, rtol=1e-5)
    np.testing.assert_array_equal(alignments_[1, 2:], 0.0)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


@pytest.mark.parametrize("peephole,clip", [(False, None), (True, None), (True, 0.05)])
def test_block_lstm_matches_numpy_and_stops_at_seq_len_max(peephole, clip):
    from tideflow.contrib.rnn.python.ops import lstm_ops
    rng = np.random.RandomState(4)
    batch, depth, n, steps, seq_len_max = 2, 3, 4, 4, 3
    xs = [rng.randn(batch, depth).astype(np.float32) for _ in range(steps)]
    w = (0.3 * rng.randn(depth + n, 4 * n)).astype(np.float32)
    b = (0.1 * rng.randn(4 * n)).astype(np.float32)
    wci, wcf, wco = (rng.randn(n).astype(np.float32) for _ in range(3))
    with tf.Graph().as_default():
        kw = {"wci": wci, "wcf": wcf, "wco": wco, "use_peephole": True} if peephole else {}
        out = lstm_ops._block_lstm(tf.constant(seq_len_max, tf.int64),
                                   [tf.constant(x) for x in xs], tf.constant(w),
                                   tf.constant(b), cell_clip=clip, forget_bias=0.5, **kw)
        assert len(out) == 7 and all(len(o) == steps for o in out)
        got = _run(out)
    c = np.zeros((batch, n), np.float32)
    h = np.zeros((batch, n), np.float32)
    for t in range(steps):
        if t >= seq_len_max:
            for k in range(7):
                np.testing.assert_array_equal(got[k][t], 0.0)
            continue
        g = np.concatenate([xs[t], h], 1) @ w + b
        i, ci, f, o = np.split(g, 4, axis=1)
        if peephole:
            i, f = i + c * wci, f + c * wcf
        i, f, ci = _sigmoid(i), _sigmoid(f + 0.5), np.tanh(ci)
        c = f * c + i * ci
        if clip is not None:
            c = np.clip(c, -clip, clip)
        o = _sigmoid(o + c * wco) if peephole else _sigmoid(o)
        h = np.tanh(c) * o
        for k, want in enumerate((i, c, f, o, ci, np.tanh(c), h)):
            np.testing.assert_allclose(got[k][t], want, rtol=1e-5, atol=1e-6)


def test_contrib_rnn_op_module_paths():
    from tideflow.contrib.rnn.python.ops import fused_rnn_cell, gru_ops, lstm_ops
    assert lstm_ops.LSTMBlockCell is tf.contrib.rnn.LSTMBlockCell
    assert lstm_ops.LSTMBlockFusedCell is tf.contrib.rnn.LSTMBlockFusedCell
    assert gru_ops.GRUBlockCell is tf.contrib.rnn.GRUBlockCell
    assert fused_rnn_cell.FusedRNNCellAdaptor is tf.contrib.rnn.FusedRNNCellAdaptor


@pytest.mark.parametrize("clip", [0.0, -1.0, None])
def test_lstm_block_cell_clip_zero_or_negative_means_no_clip(clip):
    # TF's LSTMBlock kernels clip the cell state only for cell_clip > 0
    x = np.array([[2.0, -1.0, 0.5]], np.float32)
    with tf.Graph().as_default():
        with tf.variable_scope("v", initializer=tf.constant_initializer(0.4)):
            cell = tf.contrib.rnn.LSTMBlockCell(2, cell_clip=clip)
            out, state = cell(tf.constant(x), cell.zero_state(1, tf.float32))
        fused = tf.contrib.rnn.LSTMBlockFusedCell(2, cell_clip=clip)
        with tf.variable_scope("f", initializer=tf.constant_initializer(0.4)):
            f_out, f_state = fused(tf.constant(x[None]), dtype=tf.float32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out_, c_, f_out_, f_c_ = sess.run([out, state.c, f_out, f_state.c])
    g = np.concatenate([x, np.zeros((1, 2), np.float32)], 1) @ np.full((5, 8), 0.4)
    i, ci, _, o = np.split(g, 4, axis=1)
    c = _sigmoid(i) * np.tanh(ci)  # no previous state; unclipped
    h = np.tanh(c) * _sigmoid(o)
    np.testing.assert_allclose(c_, c, rtol=1e-5)
    np.testing.assert_allclose(out_, h, rtol=1e-5)
    np.testing.assert_allclose(f_c_, c, rtol=1e-5)
    np.testing.assert_allclose(f_out_[0], h, rtol=1e-5)


def test_multi_rnn_cell_trainable_variables_lists_the_cells_variables():
    with tf.Graph().as_default():
        with tf.variable_scope("root"):
            cell = tf.nn.rnn_cell.MultiRNNCell(
                [tf.contrib.rnn.IndyLSTMCell(2) for _ in range(2)])
            state = tuple((tf.zeros([1, 2]), tf.zeros([1, 2])) for _ in range(2))
            cell(tf.zeros([1, 3]), state)
        names = [f"root/multi_rnn_cell/cell_{k}/indy_lstm_cell/{v}:0"
                 for k in range(2) for v in ("kernel_w", "kernel_u", "bias")]
        assert [v.name for v in cell.trainable_variables] == names
        assert [v.name for v in cell.variables] == names
        assert cell.non_trainable_variables == []
        assert [v.name for v in tf.global_variables()] == names


def test_rnn_cell_get_initial_state():
    with tf.Graph().as_default():
        cell = tf.contrib.rnn.IndRNNCell(3, dtype=tf.float64)
        state = cell.get_initial_state(inputs=None, batch_size=5, dtype=tf.float64)
        assert state.dtype == tf.float64 and state.get_shape().as_list() == [5, 3]
        lstm = tf.nn.rnn_cell.LSTMCell(4)
        x = tf.placeholder(tf.float32, [None, 2])
        c, _ = lstm.get_initial_state(inputs=x)
        assert c.get_shape().as_list() == [None, 4]
        with tf.Session() as sess:
            c_ = sess.run(c, {x: np.ones((3, 2), np.float32)})
        np.testing.assert_array_equal(c_, np.zeros((3, 4)))
        with pytest.raises(ValueError, match="batch size from input tensor is different"):
            lstm.get_initial_state(inputs=tf.zeros([2, 2]), batch_size=3)
        with pytest.raises(ValueError, match="dtype from input tensor is different"):
            lstm.get_initial_state(inputs=tf.zeros([2, 2]), dtype=tf.float64)
        with pytest.raises(ValueError, match="batch_size and dtype cannot be None"):
            lstm.get_initial_state(batch_size=2)


@pytest.mark.parametrize("name", ["EmbeddingWrapper", "InputProjectionWrapper",
                                  "OutputProjectionWrapper"])
def test_core_rnn_cell_module_has_the_legacy_wrappers(name):
    from tideflow.contrib.rnn.python.ops import core_rnn_cell
    assert getattr(core_rnn_cell, name) is getattr(tf.contrib.rnn, name)


def test_output_projection_wrapper_values():
    # GRU (all weights 0.5, biases: gates 1.0, candidate 0.0), then a 3 -> 2 projection
    # whose bias starts at zero whatever the scope initializer (as _linear makes it)
    x = np.ones((1, 3), np.float32)
    m = np.full((1, 3), 0.1, np.float32)
    with tf.Graph().as_default():
        with tf.variable_scope("root", initializer=tf.constant_initializer(0.5)):
            from tideflow.contrib.rnn.python.ops import core_rnn_cell
            cell = core_rnn_cell.OutputProjectionWrapper(tf.nn.rnn_cell.GRUCell(3), 2)
            out, new_m = cell(tf.constant(x), tf.constant(m))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out_, new_m_ = sess.run([out, new_m])
    xm = np.concatenate([x, m], 1)
    r, u = np.split(_sigmoid(xm @ np.full((6, 6), 0.5) + 1.0), 2, axis=1)
    cand = np.tanh(np.concatenate([x, r * m], 1) @ np.full((6, 3), 0.5))
    h = u * m + (1 - u) * cand
    np.testing.assert_allclose(new_m_, h, rtol=1e-5)
    np.testing.assert_allclose(out_, h @ np.full((3, 2), 0.5), rtol=1e-5)  # bias zeros


def test_glstm_cell_input_size_errors():
    with tf.Graph().as_default():
        cell = tf.contrib.rnn.GLSTMCell(num_units=4, number_of_groups=2)
        state = cell.zero_state(batch_size=2, dtype=tf.float32)
        with pytest.raises(ValueError, match="input size must be statically known"):
            cell(tf.placeholder(tf.float32, [2, None]), state)
        with pytest.raises(ValueError,
                           match=r"input size \(3\) must be divisible by number_of_groups \(2\)"):
            cell(tf.placeholder(tf.float32, [2, 3]), state)


def test_layer_norm_basic_lstm_without_norm_bias_takes_scope_initializer():
    x = np.array([[1.0, -0.5, 2.0]], np.float32)
    c = np.array([[0.3, -0.2]], np.float32)
    h = np.array([[0.1, 0.4]], np.float32)
    with tf.Graph().as_default():
        with tf.variable_scope("s", initializer=tf.constant_initializer(0.25)):
            cell = tf.contrib.rnn.LayerNormBasicLSTMCell(2, layer_norm=False, forget_bias=1.0)
            out, state = cell(tf.constant(x), tf.nn.rnn_cell.LSTMStateTuple(tf.constant(c),
                                                                            tf.constant(h)))
        assert [v.name for v in tf.global_variables()] == [
            "s/layer_norm_basic_lstm_cell/kernel:0", "s/layer_norm_basic_lstm_cell/bias:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out_, c_ = sess.run([out, state.c])
    g = np.concatenate([x, h], 1) @ np.full((5, 8), 0.25) + 0.25
    i, j, f, o = np.split(g, 4, axis=1)
    new_c = c * _sigmoid(f + 1.0) + _sigmoid(i) * np.tanh(j)
    np.testing.assert_allclose(c_, new_c, rtol=1e-5)
    np.testing.assert_allclose(out_, np.tanh(new_c) * _sigmoid(o), rtol=1e-5)


@pytest.mark.parametrize("norm,peep,proj", [(False, False, None), (True, False, None),
                                            (True, True, None), (True, True, 3)])
def test_weight_norm_lstm_cell(norm, peep, proj):
    rng = np.random.RandomState(7)
    x = rng.randn(2, 3).astype(np.float32)
    c = rng.randn(2, 2).astype(np.float32)
    h = rng.randn(2, proj or 2).astype(np.float32)
    with tf.Graph().as_default():
        with tf.variable_scope("root", initializer=tf.constant_initializer(0.3)):
            cell = tf.contrib.rnn.WeightNormLSTMCell(2, norm=norm, use_peepholes=peep,
                                                     num_proj=proj)
            out, state = cell(tf.constant(x), tf.nn.rnn_cell.LSTMStateTuple(tf.constant(c),
                                                                            tf.constant(h)))
        names = sorted(v.name.split("weight_norm_lstm_cell/")[1] for v in tf.global_variables())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out_, c_, h_ = sess.run([out, state.c, state.h])
    want = {"kernel:0", "bias:0"}
    if norm:
        want |= {"norm_0:0", "norm_1:0"}
    if peep:
        want |= {"w_f_diag:0", "w_i_diag:0", "w_o_diag:0"}
    if proj:
        want |= {"projection/kernel:0"} | ({"projection/norm_0:0"} if norm else set())
    assert set(names) == want

    def kernel(rows_per_arg, cols):
        blocks = [np.full((r, cols), 0.3) for r in rows_per_arg]
        if norm:  # unit columns per block, times the gain (0.3)
            blocks = [0.3 * b / np.linalg.norm(b, axis=0) for b in blocks]
        return np.concatenate(blocks, 0)

    g = np.concatenate([x, h], 1) @ kernel([3, proj or 2], 8)  # bias starts at 0
    i, j, f, o = np.split(g, 4, axis=1)
    if peep:
        new_c = c * _sigmoid(f + 1 + 0.3 * c) + _sigmoid(i + 0.3 * c) * np.tanh(j)
        new_h = _sigmoid(o + 0.3 * new_c) * np.tanh(new_c)
    else:
        new_c = c * _sigmoid(f + 1) + _sigmoid(i) * np.tanh(j)
        new_h = _sigmoid(o) * np.tanh(new_c)
    if proj:
        new_h = new_h @ kernel([2], proj)
    np.testing.assert_allclose(c_, new_c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h_, new_h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out_, new_h, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cls,names", [
    ("GRUBlockCell", ["w_ru", "b_ru", "w_c", "b_c"]),
    ("GRUBlockCellV2", ["gates/kernel", "gates/bias", "candidate/kernel", "candidate/bias"]),
])
def test_gru_block_cell_variable_names_and_values(cls, names):
    rng = np.random.RandomState(5)
    x = rng.randn(2, 3).astype(np.float32)
    h = rng.randn(2, 4).astype(np.float32)
    with tf.Graph().as_default():
        with tf.variable_scope("blk", initializer=tf.constant_initializer(0.2)):
            cell = getattr(tf.contrib.rnn, cls)(4)
            out, _ = cell(tf.constant(x), tf.constant(h))
        assert [v.name for v in tf.global_variables()] == [f"blk/gru_cell/{n}:0" for n in names]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out_ = sess.run(out)
    # gate bias 1, candidate bias 0, every kernel entry 0.2
    r, u = np.split(_sigmoid(np.concatenate([x, h], 1) @ np.full((7, 8), 0.2) + 1.0), 2, 1)
    c = np.tanh(np.concatenate([x, r * h], 1) @ np.full((7, 4), 0.2))
    np.testing.assert_allclose(out_, u * h + (1 - u) * c, rtol=1e-5)


def test_attention_wrapper_batch_size_checks():
    # a memory of batch 3 with a zero_state / query of batch 2: TF's assertions (statically at
    # once, dynamically when the state or the step runs)
    s2s = tf.contrib.seq2seq
    with tf.Graph().as_default():
        mem = tf.zeros([3, 5, 4])
        cell = s2s.AttentionWrapper(tf.nn.rnn_cell.GRUCell(4), s2s.BahdanauAttention(4, mem))
        with pytest.raises(errors.InvalidArgumentError,
                           match="When calling zero_state of AttentionWrapper attention_wrapper: "
                                 "Non-matching batch sizes"):
            cell.zero_state(2, tf.float32)
        batch = tf.placeholder(tf.int32, [])
        state = cell.zero_state(batch, tf.float32)
        query = tf.placeholder(tf.float32, [None, 4])
        n = tf.shape(query)[0]
        # a state of the query's batch, built by hand (not through the checked zero_state)
        hand = s2s.AttentionWrapperState(
            cell_state=tf.zeros(tf.stack([n, 4])), attention=tf.zeros(tf.stack([n, 4])),
            time=tf.constant(0), alignments=tf.zeros(tf.stack([n, 5])),
            attention_state=tf.zeros(tf.stack([n, 5])), alignment_history=())
        out, _ = cell(query, hand)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(state.cell_state, {batch: 3}).shape == (3, 4)
            with pytest.raises(errors.InvalidArgumentError, match="tile_batch, and the batch_size"):
                sess.run(state.cell_state, {batch: 2})
            assert sess.run(out, {query: np.ones((3, 4), np.float32)}).shape == (3, 4)
            with pytest.raises(errors.InvalidArgumentError,
                               match="When applying AttentionWrapper .*Non-matching batch sizes "
                                     "between the memory \\(encoder output\\) and the query"):
                sess.run(out, {query: np.ones((2, 4), np.float32)})


def test_tile_batch_values_and_scalar_error():
    with tf.Graph().as_default():
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        tiled = tf.contrib.seq2seq.tile_batch({"a": tf.constant(x), "b": tf.constant([4, 5])}, 3)
        assert tiled["a"].get_shape().as_list() == [6, 3]
        with pytest.raises(ValueError, match="t must have statically known rank"):
            tf.contrib.seq2seq.tile_batch(tf.constant(3.0), 2)
        got = _run(tiled)
    np.testing.assert_array_equal(got["a"], np.repeat(x, 3, axis=0))
    np.testing.assert_array_equal(got["b"], [4, 4, 4, 5, 5, 5])


def test_keras_rnn_layer_passes_a_single_state_to_tf_rnn_cells():
    # TF's Keras RNN hands an RNNCell with one state the tensor itself (SRUCell computes
    # f * state, which a one-element list would turn into a [1, batch, units] tensor)
    rng = np.random.RandomState(8)
    x = rng.rand(2, 3, 5).astype(np.float32)
    with tf.Graph().as_default():
        with tf.variable_scope("k", initializer=tf.constant_initializer(0.1)):
            cell = tf.contrib.rnn.SRUCell(4)
            out = tf.keras.layers.RNN(cell=cell)(tf.constant(x))
        assert out.get_shape().as_list() == [2, 4]
        bias = cell._bias
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out_, bias_ = sess.run([out, bias])
    c = np.zeros((2, 4))
    for t in range(3):
        xb, fi, ri, xt = np.split(x[:, t] @ np.full((5, 16), 0.1), 4, axis=1)
        f, r = np.split(_sigmoid(np.concatenate([fi, ri], 1) + bias_), 2, axis=1)
        c = f * c + (1 - f) * xb
        h = r * np.tanh(c) + (1 - r) * xt
    np.testing.assert_allclose(out_, h, rtol=1e-5)


def _np_beam_search(emb, kernel, bias, proj, proj_b, starts, k, eos, alpha, max_it):
    """NumPy reference of TF 1.15's beam search over a tanh RNN with an output projection:
    beam 0 starts live (the others finished at -inf), finished beams can only add eos (for
    free), a live beam's length grows unless it picks eos, scores divide the log
    probabilities by GNMT's ((5 + length) / 6) ** alpha, ties keep the lower index."""
    f32 = np.float32
    batch, vocab = len(starts), proj.shape[1]
    h = np.zeros((batch, k, kernel.shape[1]), f32)
    log_probs = np.full((batch, k), -np.inf, f32)
    log_probs[:, 0] = 0
    finished = np.ones((batch, k), bool)
    finished[:, 0] = False
    lengths = np.zeros((batch, k), np.int64)
    x = np.repeat(emb[np.asarray(starts)][:, None], k, axis=1)
    steps = []
    for _ in range(max_it):
        h_new = np.tanh(np.concatenate([x, h], -1) @ kernel + bias).astype(f32)
        step_lp = _log_softmax((h_new @ proj + proj_b).astype(f32)).astype(f32)
        eos_row = np.full(vocab, np.finfo(f32).min, f32)
        eos_row[eos] = 0
        step_lp = np.where(finished[..., None], eos_row, step_lp)
        total = log_probs[..., None] + step_lp
        grow = np.ones((batch, k, vocab), np.int64)
        grow[..., eos] = 0
        new_len = lengths[..., None] + grow * (~finished)[..., None]
        penalty = ((5.0 + new_len.astype(f32)) ** alpha / 6.0 ** alpha).astype(f32)
        scores = (total / penalty).astype(f32).reshape(batch, -1)
        idx = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        word, parent = idx % vocab, idx // vocab
        log_probs = np.take_along_axis(total.reshape(batch, -1), idx, 1)
        was_finished = np.take_along_axis(finished, parent, 1)
        lengths = np.take_along_axis(lengths, parent, 1) + (~was_finished)
        finished = was_finished | (word == eos)
        h = np.take_along_axis(h_new, parent[..., None], 1)
        x = emb[word]
        steps.append((np.take_along_axis(scores, idx, 1), word, parent))
        if finished.all():
            break
    return steps, log_probs, lengths, finished


def test_beam_search_decoder_matches_numpy_beam_search():
    rng = np.random.RandomState(11)
    vocab, depth, units, k, eos, alpha, max_it = 5, 3, 4, 3, 4, 0.7, 5
    starts = [0, 2]
    emb = rng.randn(vocab, depth).astype(np.float32)
    kernel = rng.randn(depth + units, units).astype(np.float32)
    bias = (0.1 * rng.randn(units)).astype(np.float32)
    proj = (2 * rng.randn(units, vocab)).astype(np.float32)
    proj_b = rng.randn(vocab).astype(np.float32)
    steps, log_probs, lengths, finished = _np_beam_search(
        emb, kernel, bias, proj, proj_b, starts, k, eos, alpha, max_it)
    with tf.Graph().as_default():
        cell = tf.nn.rnn_cell.BasicRNNCell(units)
        layer = tf.layers.Dense(vocab, kernel_initializer=tf.constant_initializer(proj),
                                bias_initializer=tf.constant_initializer(proj_b))
        dec = tf.contrib.seq2seq.BeamSearchDecoder(
            cell, emb, tf.constant(starts), eos, cell.zero_state(len(starts) * k, tf.float32),
            k, output_layer=layer, length_penalty_weight=alpha)
        out, state, seq_len = tf.contrib.seq2seq.dynamic_decode(dec, maximum_iterations=max_it)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run([tf.assign(cell.weights[0], kernel), tf.assign(cell.weights[1], bias)])
            out_, state_, seq_len_ = sess.run([out, state, seq_len])
    per_step = out_.beam_search_decoder_output
    np.testing.assert_array_equal(per_step.predicted_ids, np.stack([s[1] for s in steps], 1))
    np.testing.assert_array_equal(per_step.parent_ids, np.stack([s[2] for s in steps], 1))
    np.testing.assert_allclose(per_step.scores, np.stack([s[0] for s in steps], 1), rtol=1e-4)
    np.testing.assert_allclose(state_.log_probs, log_probs, rtol=1e-4)
    np.testing.assert_array_equal(state_.lengths, lengths)
    np.testing.assert_array_equal(seq_len_, lengths)
    np.testing.assert_array_equal(state_.finished, finished)
    # the spelled-out beams follow the parents back from the last step
    ids = np.stack([s[1] for s in steps], 0)
    parents = np.stack([s[2] for s in steps], 0)
    # from the entry's longest length; after a beam's first eos, everything is eos
    for b in range(len(starts)):
        max_len = lengths[b].max()
        for j in range(k):
            path, beam = [eos] * len(steps), j
            for t in range(max_len - 1, -1, -1):
                path[t] = ids[t, b, beam]
                beam = parents[t, b, beam]
            if eos in path:
                first = path.index(eos)
                path[first:] = [eos] * (len(path) - first)
            np.testing.assert_array_equal(out_.predicted_ids[b, :, j], path)
