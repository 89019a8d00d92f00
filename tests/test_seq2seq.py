"""``tf.contrib.seq2seq`` decoding: BasicDecoder and its helpers, dynamic_decode,
attention (Bahdanau, Luong, AttentionWrapper) and beam search, against NumPy
re-computations of the same LSTM, output layer and attention."""

import numpy as np
import pytest

import tideflow as tf

s2s = tf.contrib.seq2seq


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _lstm(kernel, bias, x, c, h, forget_bias=1.0):
    gates = np.concatenate([x, h], 1) @ kernel + bias
    i, j, f, o = np.split(gates, 4, axis=1)
    c = c * _sigmoid(f + forget_bias) + _sigmoid(i) * np.tanh(j)
    return c, np.tanh(c) * _sigmoid(o)


def _log_softmax(z):
    z = z - z.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


def _softmax(z):
    return np.exp(_log_softmax(z))


class _Model:
    """An LSTM and an output projection with weights set through assign ops, and the NumPy
    re-computation of one decoding step."""

    def __init__(self, sess, depth, units, vocab, seed, scale=1.0):
        rs = np.random.RandomState(seed)
        self.cell = tf.nn.rnn_cell.BasicLSTMCell(units)
        self.layer = tf.layers.Dense(vocab, name="output_projection")
        self.kernel = (rs.randn(depth + units, 4 * units) * 0.5 * scale).astype(np.float32)
        self.bias = (rs.randn(4 * units) * 0.1).astype(np.float32)
        self.w = (rs.randn(units, vocab) * scale).astype(np.float32)
        self.b = (rs.randn(vocab) * 0.1).astype(np.float32)
        self.emb = (rs.randn(vocab, depth)).astype(np.float32)
        self.sess = sess
        self.units = units

    def assign(self):
        pairs = [(self.cell._kernel, self.kernel), (self.cell._bias, self.bias),
                 (self.layer.kernel, self.w), (self.layer.bias, self.b)]
        self.sess.run([tf.assign(v, val) for v, val in pairs])

    def step(self, x, c, h):
        c, h = _lstm(self.kernel, self.bias, x, c, h)
        return c, h, h @ self.w + self.b

    def zeros(self, batch):
        return np.zeros([batch, self.units], np.float32), np.zeros([batch, self.units],
                                                                    np.float32)


def test_basic_decoder_training_helper_matches_numpy_and_dynamic_rnn():
    batch, time, depth, units, vocab = 3, 5, 4, 6, 7
    rs = np.random.RandomState(0)
    x_val = rs.randn(batch, time, depth).astype(np.float32)
    lengths = np.array([5, 2, 3], np.int32)
    with tf.Graph().as_default(), tf.Session() as sess:
        m = _Model(sess, depth, units, vocab, seed=1)
        x = tf.constant(x_val)
        helper = s2s.TrainingHelper(x, lengths)
        decoder = s2s.BasicDecoder(m.cell, helper, m.cell.zero_state(batch, tf.float32),
                                   output_layer=m.layer)
        out, state, seq_len = s2s.dynamic_decode(decoder)
        imputed, imputed_state, _ = s2s.dynamic_decode(decoder, impute_finished=True)
        with tf.variable_scope("decoder", reuse=True):
            rnn_out, _ = tf.nn.dynamic_rnn(m.cell, x, dtype=tf.float32)
            _, rnn_state = tf.nn.dynamic_rnn(m.cell, x, sequence_length=lengths,
                                             dtype=tf.float32)
        projected = m.layer(rnn_out)
        assert out.rnn_output.get_shape().as_list() == [batch, None, vocab]
        assert out.sample_id.dtype == tf.int32
        assert sorted(v.op.name for v in tf.trainable_variables()) == [
            "decoder/basic_lstm_cell/bias", "decoder/basic_lstm_cell/kernel",
            "decoder/output_projection/bias", "decoder/output_projection/kernel"]
        sess.run(tf.global_variables_initializer())
        m.assign()
        # two decodes read the helper's input TensorArray twice: as in TF 1.x (clear_after_read)
        # they run in separate steps
        o, s, n, p, rs_ = sess.run([out, state, seq_len, projected, rnn_state])
        io, ist = sess.run([imputed, imputed_state])
    c, h = m.zeros(batch)
    want = []
    for t in range(time):
        c, h, logits = m.step(x_val[:, t], c, h)
        want.append(logits)
    want = np.stack(want, 1)
    np.testing.assert_allclose(o.rnn_output, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(o.sample_id, want.argmax(-1))
    np.testing.assert_allclose(o.rnn_output, p, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(n, lengths)
    # impute_finished: zeros past each length, state frozen at the last valid step
    mask = np.arange(time)[None, :] < lengths[:, None]
    np.testing.assert_allclose(io.rnn_output, want * mask[:, :, None], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(io.sample_id, np.where(mask, want.argmax(-1), 0))
    np.testing.assert_allclose(ist.c, rs_.c, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ist.h, rs_.h, rtol=1e-5, atol=1e-5)
    assert not np.allclose(s.h, rs_.h)  # without imputation the state runs on


def _greedy_numpy(m, start, end_token, steps):
    batch = len(start)
    c, h = m.zeros(batch)
    x = m.emb[start]
    ids, logits_all = [], []
    for _ in range(steps):
        c, h, logits = m.step(x, c, h)
        y = logits.argmax(-1)
        ids.append(y)
        logits_all.append(logits)
        x = m.emb[y]
    return np.stack(ids, 1), np.stack(logits_all, 1)


def _first_end(ids, end_token, limit):
    out = []
    for row in ids:
        hits = np.nonzero(row == end_token)[0]
        out.append(hits[0] + 1 if hits.size else limit)
    return np.array(out)


def _pick_end_token(ids):
    # a token that some row emits early and another row does not emit at all
    for tok in np.unique(ids[:, 1:3]):
        if any(tok not in row for row in ids):
            return int(tok)
    return int(ids[0, 2])


def test_greedy_stops_at_end_token_and_impute_finished_zeros():
    batch, depth, units, vocab, max_iter = 4, 3, 8, 6, 7
    start = np.array([0, 1, 2, 3], np.int32)
    with tf.Graph().as_default(), tf.Session() as sess:
        m = _Model(sess, depth, units, vocab, seed=5, scale=2.0)
        ids_np, logits_np = _greedy_numpy(m, start, None, max_iter)
        end_token = _pick_end_token(ids_np)
        lengths_np = _first_end(ids_np, end_token, max_iter)
        assert lengths_np.min() < max_iter  # the test needs a row that stops early
        helper = s2s.GreedyEmbeddingHelper(tf.constant(m.emb), start, end_token)
        decoder = s2s.BasicDecoder(m.cell, helper, m.cell.zero_state(batch, tf.float32),
                                   output_layer=m.layer)
        out, _, seq_len = s2s.dynamic_decode(decoder, maximum_iterations=max_iter)
        imp, imp_state, imp_len = s2s.dynamic_decode(decoder, maximum_iterations=max_iter,
                                                     impute_finished=True)
        sess.run(tf.global_variables_initializer())
        m.assign()
        o, n, io, ist, inn = sess.run([out, seq_len, imp, imp_state, imp_len])
    np.testing.assert_array_equal(n, lengths_np)
    np.testing.assert_array_equal(inn, lengths_np)
    steps = lengths_np.max()
    assert o.sample_id.shape == (batch, steps)
    np.testing.assert_array_equal(o.sample_id, ids_np[:, :steps])
    np.testing.assert_allclose(o.rnn_output, logits_np[:, :steps], rtol=1e-4, atol=1e-5)
    for b in range(batch):
        row = o.sample_id[b, :lengths_np[b]]
        assert (row[-1] == end_token) == (lengths_np[b] < max_iter or
                                          ids_np[b, max_iter - 1] == end_token)
        assert end_token not in row[:-1]
        np.testing.assert_array_equal(io.rnn_output[b, lengths_np[b]:], 0.0)
        np.testing.assert_array_equal(io.sample_id[b, lengths_np[b]:], 0)
        np.testing.assert_allclose(io.rnn_output[b, :lengths_np[b]],
                                   logits_np[b, :lengths_np[b]], rtol=1e-4, atol=1e-5)
    # the imputed final state of a row is its state at its last step
    c, h = m.zeros(batch)
    x = m.emb[start]
    want_h = np.zeros_like(h)
    for t in range(steps):
        c, h, logits = m.step(x, c, h)
        x = m.emb[logits.argmax(-1)]
        done = lengths_np == t + 1
        want_h[done] = h[done]
    np.testing.assert_allclose(ist.h, want_h, rtol=1e-4, atol=1e-5)


def test_helpers_reject_bad_arguments():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="sequence_length to be a vector"):
            s2s.TrainingHelper(tf.zeros([2, 3, 4]), [[1, 2]])
        with pytest.raises(ValueError, match="start_tokens must be a vector"):
            s2s.GreedyEmbeddingHelper(tf.zeros([5, 2]), [[1]], 0)
        with pytest.raises(ValueError, match="end_token must be a scalar"):
            s2s.GreedyEmbeddingHelper(tf.zeros([5, 2]), [1], [0])
        cell = tf.nn.rnn_cell.BasicLSTMCell(3)
        with pytest.raises(TypeError, match="helper must be a Helper"):
            s2s.BasicDecoder(cell, object(), cell.zero_state(1, tf.float32))
        with pytest.raises(TypeError, match="Decoder"):
            s2s.dynamic_decode(cell)


def test_inference_and_custom_helpers():
    batch, units = 2, 3
    with tf.Graph().as_default(), tf.Session() as sess:
        cell = tf.nn.rnn_cell.BasicRNNCell(units)
        start = tf.zeros([batch, units])
        # sample_fn: the output itself; stops when its first unit is below -0.5 or after 4
        helper = s2s.InferenceHelper(
            sample_fn=lambda out: out, sample_shape=[units], sample_dtype=tf.float32,
            start_inputs=start, end_fn=lambda s: s[:, 0] < -2.0)
        decoder = s2s.BasicDecoder(cell, helper, cell.zero_state(batch, tf.float32))
        out, _, n = s2s.dynamic_decode(decoder, maximum_iterations=4)

        def initialize_fn():
            return tf.constant([False, False]), tf.ones([batch, units])

        def sample_fn(time, outputs, state):
            return tf.fill([batch], time)

        def next_inputs_fn(time, outputs, state, sample_ids):
            return tf.equal(sample_ids, [1, 2]), outputs, state

        custom = s2s.CustomHelper(initialize_fn, sample_fn, next_inputs_fn)
        with pytest.raises(ValueError, match="before initialize"):
            custom.batch_size  # noqa: B018
        dec2 = s2s.BasicDecoder(cell, custom, cell.zero_state(batch, tf.float32))
        out2, _, n2 = s2s.dynamic_decode(dec2, scope="custom")
        sess.run(tf.global_variables_initializer())
        o, nv, o2, n2v = sess.run([out, n, out2, n2])
    np.testing.assert_array_equal(nv, [4, 4])
    np.testing.assert_allclose(o.sample_id, o.rnn_output)
    assert o.sample_id.shape == (batch, 4, units)
    np.testing.assert_array_equal(n2v, [2, 3])
    np.testing.assert_array_equal(o2.sample_id, [[0, 1, 2], [0, 1, 2]])


def _attention_setup(kind, sess, batch=2, mem_time=5, mem_depth=4, units=3, depth=2):
    rs = np.random.RandomState(7)
    memory = rs.randn(batch, mem_time, mem_depth).astype(np.float32)
    mem_len = np.array([5, 3], np.int32)
    if kind == "bahdanau":
        mech = s2s.BahdanauAttention(units, memory, memory_sequence_length=mem_len,
                                     normalize=True)
    else:
        mech = s2s.LuongAttention(units, memory, memory_sequence_length=mem_len, scale=True)
    cell = tf.nn.rnn_cell.BasicLSTMCell(units)
    wrapper = s2s.AttentionWrapper(cell, mech, attention_layer_size=4, alignment_history=True)
    inputs = rs.randn(2, batch, depth).astype(np.float32)
    return memory, mem_len, wrapper, inputs


def _numpy_attention(kind, v, memory, mem_len, query):
    keys = memory @ v["memory_layer/kernel"]
    if kind == "bahdanau":
        pq = query @ v["query_layer/kernel"]
        att_v, g, b = v["attention_v"], v["attention_g"], v["attention_b"]
        normed = g * att_v / np.sqrt((att_v ** 2).sum())
        score = (normed * np.tanh(keys + pq[:, None, :] + b)).sum(-1)
    else:
        score = v["attention_g"] * np.einsum("bu,btu->bt", query, keys)
    mask = np.arange(memory.shape[1])[None, :] < mem_len[:, None]
    score = np.where(mask, score, -np.inf)
    return _softmax(score)


@pytest.mark.parametrize("kind", ["bahdanau", "luong"])
def test_attention_wrapper_matches_numpy(kind):
    with tf.Graph().as_default(), tf.Session() as sess:
        memory, mem_len, wrapper, inputs = _attention_setup(kind, sess)
        batch = memory.shape[0]
        state = wrapper.zero_state(batch, tf.float32)
        outs, states = [], []
        with tf.variable_scope("decoder"):
            for t in range(2):
                out, state = wrapper(tf.constant(inputs[t]), state)
                outs.append(out)
                states.append(state._replace(alignment_history=()))
        history = state.alignment_history.stack()
        names = sorted(v.op.name for v in tf.global_variables())
        sess.run(tf.global_variables_initializer())
        values = {n.split("/", 1)[1] if n.startswith("decoder/") else n: val for n, val in
                  zip(names, sess.run([tf.get_default_graph().get_tensor_by_name(n + ":0")
                                       for n in names]))}
        got_outs, got_states, got_hist = sess.run([outs, states, history])
    scope = "attention_wrapper/bahdanau_attention/" if kind == "bahdanau" else (
        "attention_wrapper/luong_attention/")
    expected = {"memory_layer/kernel", "attention_wrapper/basic_lstm_cell/kernel",
                "attention_wrapper/basic_lstm_cell/bias", "attention_wrapper/attention_layer/kernel",
                scope + "attention_g"}
    if kind == "bahdanau":
        expected |= {scope + "attention_v", scope + "attention_b", scope + "query_layer/kernel"}
    assert set(values) == expected
    v = {k.rsplit(scope, 1)[-1]: val for k, val in values.items()}
    c = np.zeros([memory.shape[0], 3], np.float32)
    h = np.zeros_like(c)
    attention = np.zeros([memory.shape[0], 4], np.float32)
    masked_memory = memory * (np.arange(5)[None, :, None] < mem_len[:, None, None])
    for t in range(2):
        x = np.concatenate([inputs[t], attention], 1)
        c, h = _lstm(v["attention_wrapper/basic_lstm_cell/kernel"],
                     v["attention_wrapper/basic_lstm_cell/bias"], x, c, h)
        align = _numpy_attention(kind, v, masked_memory, mem_len, h)
        context = np.einsum("bt,btd->bd", align, masked_memory)
        attention = np.concatenate([h, context], 1) @ v[
            "attention_wrapper/attention_layer/kernel"]
        st = got_states[t]
        np.testing.assert_allclose(st.alignments, align, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(st.alignments.sum(-1), 1.0, rtol=1e-6)
        np.testing.assert_array_equal(st.alignments[1, 3:], 0.0)
        np.testing.assert_allclose(got_outs[t], attention, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(st.attention, attention, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(st.cell_state.h, h, rtol=1e-5, atol=1e-6)
        assert st.time == t + 1
        np.testing.assert_allclose(got_hist[t], align, rtol=1e-5, atol=1e-6)
    assert got_hist.shape == (2, memory.shape[0], 5)


def test_attention_wrapper_in_dynamic_decode_stacks_alignment_history():
    batch, time = 2, 4
    with tf.Graph().as_default(), tf.Session() as sess:
        _, _, wrapper, _ = _attention_setup("luong", sess)
        x = tf.constant(np.random.RandomState(1).randn(batch, time, 2).astype(np.float32))
        helper = s2s.TrainingHelper(x, [time, time - 1])
        decoder = s2s.BasicDecoder(wrapper, helper, wrapper.zero_state(batch, tf.float32))
        out, state, _ = s2s.dynamic_decode(decoder)
        assert isinstance(state, s2s.AttentionWrapperState)
        history = state.alignment_history.stack()
        assert out.rnn_output.get_shape()[-1].value == wrapper.output_size == 4
        sess.run(tf.global_variables_initializer())
        o, hist, align = sess.run([out.rnn_output, history, state.alignments])
    assert o.shape == (batch, time, 4)
    assert hist.shape == (time, batch, 5)
    np.testing.assert_allclose(hist.sum(-1), 1.0, rtol=1e-5)
    np.testing.assert_array_equal(hist[:, 1, 3:], 0.0)
    np.testing.assert_allclose(hist[-1], align, rtol=1e-6)


def test_attention_errors_and_hardmax():
    with tf.Graph().as_default(), tf.Session() as sess:
        memory = tf.zeros([2, 5, 4])
        mech = s2s.LuongAttention(3, memory)
        with pytest.raises(ValueError, match="Incompatible or unknown inner dimensions"):
            mech(tf.zeros([2, 7]), mech.initial_state(2, tf.float32))
        cell = tf.nn.rnn_cell.BasicLSTMCell(3)
        with pytest.raises(TypeError, match="AttentionMechanism"):
            s2s.AttentionWrapper(cell, memory)
        wrapper = s2s.AttentionWrapper(cell, mech)
        with pytest.raises(TypeError, match="AttentionWrapperState"):
            wrapper(tf.zeros([2, 1]), cell.zero_state(2, tf.float32))
        assert wrapper.output_size == 4  # the memory depth without an attention layer
        hm = sess.run(s2s.hardmax([[0.1, 2.0, -1.0], [3.0, 0.0, 1.0]]))
        cp = sess.run(s2s.safe_cumprod([0.5, 0.5, 0.0, 2.0]))
    np.testing.assert_array_equal(hm, [[0, 1, 0], [1, 0, 0]])
    np.testing.assert_allclose(cp[:2], [0.5, 0.25], rtol=1e-6)
    assert 0 <= cp[2] < 1e-30 and cp[3] == cp[2]


def test_gradients_flow_and_training_learns_copy_task():
    vocab, emb_dim, units, batch, time = 6, 5, 16, 8, 4
    rs = np.random.RandomState(0)
    src = rs.randint(2, vocab, size=(batch, time)).astype(np.int32)
    go = np.full([batch, 1], 1, np.int32)
    dec_in = np.concatenate([go, src[:, :-1]], 1)
    lengths = np.full([batch], time, np.int32)
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.set_random_seed(3)
        emb = tf.get_variable("embedding", [vocab, emb_dim])
        enc_cell = tf.nn.rnn_cell.GRUCell(units)
        enc_out, enc_state = tf.nn.dynamic_rnn(enc_cell, tf.nn.embedding_lookup(emb, src),
                                               sequence_length=lengths, dtype=tf.float32,
                                               scope="encoder")
        mech = s2s.BahdanauAttention(units, enc_out, memory_sequence_length=lengths)
        cell = s2s.AttentionWrapper(tf.nn.rnn_cell.GRUCell(units), mech,
                                    attention_layer_size=units)
        helper = s2s.TrainingHelper(tf.nn.embedding_lookup(emb, dec_in), lengths)
        init = cell.zero_state(batch, tf.float32).clone(cell_state=enc_state)
        decoder = s2s.BasicDecoder(cell, helper, init,
                                   output_layer=tf.layers.Dense(vocab, name="proj"))
        out, _, _ = s2s.dynamic_decode(decoder)
        # (targets as a tensor: TF 1.15's sequence_loss reads get_shape of what it is given)
        loss = s2s.sequence_loss(out.rnn_output, tf.constant(src), tf.ones([batch, time]))
        variables = tf.trainable_variables()
        grads = tf.gradients(loss, variables)
        assert len(variables) >= 9
        missing = [v.op.name for v, g in zip(variables, grads) if g is None]
        assert not missing, f"no gradient for {missing}"
        train = tf.train.AdamOptimizer(0.05).apply_gradients(zip(grads, variables))
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss)
        for _ in range(40):
            sess.run(train)
        last = sess.run(loss)
    assert last < 0.2 * first, (first, last)


def _decode_pair(m, start, end_token, beam_width, max_iter, length_penalty=0.0):
    batch = len(start)
    emb = tf.constant(m.emb)
    greedy = s2s.BasicDecoder(m.cell, s2s.GreedyEmbeddingHelper(emb, start, end_token),
                              m.cell.zero_state(batch, tf.float32), output_layer=m.layer)
    g_out, _, g_len = s2s.dynamic_decode(greedy, maximum_iterations=max_iter)
    init = s2s.tile_batch(m.cell.zero_state(batch, tf.float32), beam_width)
    beam = s2s.BeamSearchDecoder(m.cell, emb, start, end_token, init, beam_width,
                                 output_layer=m.layer, length_penalty_weight=length_penalty)
    b_out, b_state, _ = s2s.dynamic_decode(beam, maximum_iterations=max_iter, scope="decoder")
    return g_out, g_len, b_out, b_state


def test_beam_search_width_one_equals_greedy():
    batch, depth, units, vocab, max_iter = 4, 3, 8, 6, 7
    start = np.array([0, 1, 2, 3], np.int32)
    with tf.Graph().as_default(), tf.Session() as sess:
        m = _Model(sess, depth, units, vocab, seed=5, scale=2.0)
        ids_np, _ = _greedy_numpy(m, start, None, max_iter)
        end_token = _pick_end_token(ids_np)
        g_out, g_len, b_out, b_state = _decode_pair(m, start, end_token, 1, max_iter)
        assert isinstance(b_out, s2s.FinalBeamSearchDecoderOutput)
        sess.run(tf.global_variables_initializer())
        m.assign()
        g_ids, g_n, b_ids, b_len = sess.run([g_out.sample_id, g_len, b_out.predicted_ids,
                                             b_state.lengths])
    assert b_ids.shape == (batch, g_ids.shape[1], 1)
    np.testing.assert_array_equal(b_len[:, 0], g_n)
    for b in range(batch):
        np.testing.assert_array_equal(b_ids[b, :g_n[b], 0], g_ids[b, :g_n[b]])
        np.testing.assert_array_equal(b_ids[b, g_n[b]:, 0], end_token)


def _numpy_log_prob(m, start, seq, end_token):
    """Log probability of ``seq`` (up to and including its first end_token) under the
    model, fed from ``start``."""
    c, h = m.zeros(1)
    x = m.emb[[start]]
    total = 0.0
    for y in seq:
        c, h, logits = m.step(x, c, h)
        total += _log_softmax(logits)[0, y]
        if y == end_token:
            break
        x = m.emb[[y]]
    return total


def test_beam_search_width_three_scores_and_log_probs():
    batch, depth, units, vocab, max_iter, width = 3, 3, 8, 6, 6, 3
    start = np.array([0, 1, 2], np.int32)
    with tf.Graph().as_default(), tf.Session() as sess:
        m = _Model(sess, depth, units, vocab, seed=11, scale=2.0)
        ids_np, _ = _greedy_numpy(m, start, None, max_iter)
        end_token = _pick_end_token(ids_np)
        _, _, b_out, b_state = _decode_pair(m, start, end_token, width, max_iter)
        assert b_out.predicted_ids.get_shape().as_list() == [batch, None, width]
        sess.run(tf.global_variables_initializer())
        m.assign()
        ids, scores, log_probs, lengths = sess.run([
            b_out.predicted_ids, b_out.beam_search_decoder_output.scores,
            b_state.log_probs, b_state.lengths])
    steps = ids.shape[1]
    assert scores.shape == (batch, steps, width)
    # beams come sorted by score, best first, at every step
    assert np.all(np.diff(scores, axis=-1) <= 1e-6)
    np.testing.assert_allclose(scores[:, -1], log_probs, rtol=1e-5)
    for b in range(batch):
        seqs = set()
        for w in range(width):
            seq = ids[b, :, w]
            want = _numpy_log_prob(m, start[b], seq, end_token)
            np.testing.assert_allclose(log_probs[b, w], want, rtol=1e-4, atol=1e-4)
            ends = np.nonzero(seq == end_token)[0]
            n = ends[0] + 1 if ends.size else steps
            assert lengths[b, w] == n
            seqs.add(tuple(seq[:n]))
        assert len(seqs) == width  # distinct hypotheses


def test_beam_search_length_penalty_and_attention_history():
    batch, width, units, vocab = 2, 3, 4, 5
    rs = np.random.RandomState(2)
    with tf.Graph().as_default(), tf.Session() as sess:
        memory = tf.constant(rs.randn(batch, 6, 3).astype(np.float32))
        tiled = s2s.tile_batch(memory, width)
        tiled_len = s2s.tile_batch(tf.constant([6, 4]), width)
        mech = s2s.LuongAttention(units, tiled, memory_sequence_length=tiled_len)
        cell = s2s.AttentionWrapper(tf.nn.rnn_cell.BasicLSTMCell(units), mech,
                                    attention_layer_size=units, alignment_history=True)
        emb = tf.constant(rs.randn(vocab, 2).astype(np.float32))
        decoder = s2s.BeamSearchDecoder(
            cell, emb, [0, 1], 4, cell.zero_state(batch * width, tf.float32), width,
            output_layer=tf.layers.Dense(vocab), length_penalty_weight=0.6,
            coverage_penalty_weight=0.2)
        out, state, _ = s2s.dynamic_decode(decoder, maximum_iterations=5)
        history = state.cell_state.alignment_history
        # TF 1.15 leaves it unsorted: its static check wants a known dimension 1 (the memory
        # length here) to be the beam width
        assert isinstance(history, tf.TensorArray)
        history = history.stack()
        sess.run(tf.global_variables_initializer())
        ids, scores, log_probs, lengths, hist, acc = sess.run([
            out.predicted_ids, out.beam_search_decoder_output.scores, state.log_probs,
            state.lengths, history, state.accumulated_attention_probs])
    assert ids.shape[0] == batch and ids.shape[2] == width
    assert hist.shape == (ids.shape[1], batch * width, 6)
    np.testing.assert_array_equal(hist[:, 3:6, 4:], 0.0)  # batch entry 1: memory length 4
    np.testing.assert_allclose(hist.sum(-1), 1.0, rtol=1e-5)
    assert acc.shape == (batch, width, 6)
    assert np.all(np.diff(scores, axis=-1) <= 1e-6)
    # GNMT scores of the final beams: log_prob / ((5 + len) / 6) ** 0.6, plus 0.2 times the
    # coverage penalty for beams finished before the last step; a beam that emitted
    # end_token at the last step is scored on its length without it
    acc = np.where(acc == 0, 1.0, acc)
    cov = np.log(np.minimum(acc, 1.0)).sum(-1)
    last = ids.shape[1] - 1
    for b in range(batch):
        for w in range(width):
            ends = np.nonzero(ids[b, :, w] == 4)[0]
            done_before = ends.size > 0 and ends[0] < last
            length = lengths[b, w] - (ends.size > 0 and ends[0] == last)
            want = log_probs[b, w] / ((5.0 + length) / 6.0) ** 0.6
            want += 0.2 * cov[b, w] * done_before
            np.testing.assert_allclose(scores[b, last, w], want, rtol=1e-5, atol=1e-6)


def test_tile_batch():
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.constant(np.arange(12, dtype=np.float32).reshape(2, 3, 2))
        state = (x, tf.constant([4, 7]))
        tiled = s2s.tile_batch(state, 3)
        assert tiled[0].get_shape().as_list() == [6, 3, 2]
        assert tiled[1].get_shape().as_list() == [6]
        ph = tf.placeholder(tf.float32, [None, 2])
        dyn = s2s.tile_batch(ph, 2)
        assert dyn.get_shape().as_list() == [None, 2]
        with pytest.raises(ValueError, match="rank"):
            s2s.tile_batch(tf.constant(1.0), 2)
        a, b, d = sess.run([tiled[0], tiled[1], dyn], {ph: [[1, 2], [3, 4]]})
    np.testing.assert_array_equal(a, np.repeat(np.arange(12).reshape(2, 3, 2), 3, axis=0))
    np.testing.assert_array_equal(b, [4, 4, 4, 7, 7, 7])
    np.testing.assert_array_equal(d, [[1, 2], [1, 2], [3, 4], [3, 4]])


def test_gather_tree_errors():
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(ValueError, match="Dimension 2 in both shapes must be equal"):
            s2s.gather_tree(tf.zeros([3, 1, 2], tf.int32), tf.zeros([3, 1, 3], tf.int32),
                            [3], 0)
        bad = s2s.gather_tree([[[1, 2]], [[3, 4]]], [[[0, 0]], [[5, 0]]], [2], 9)
        with pytest.raises(tf.errors.InvalidArgumentError, match="invalid parent id 5"):
            sess.run(bad)
        ok = sess.run(s2s.gather_tree([[[1, 2]], [[3, 4]]], [[[0, 0]], [[1, 0]]], [2], 9))
    np.testing.assert_array_equal(ok, [[[2, 1]], [[3, 4]]])
    assert tf.contrib.seq2seq.gather_tree is s2s.gather_tree


def _numpy_monotonic(p, prev):
    out = np.zeros_like(p)
    for b in range(p.shape[0]):
        q = 0.0
        for i in range(p.shape[1]):
            q = (1 - p[b, i - 1]) * q + prev[b, i] if i else prev[b, i]
            out[b, i] = p[b, i] * q
    return out


def test_monotonic_attention_modes():
    rs = np.random.RandomState(4)
    p = rs.uniform(0.05, 0.9, size=(3, 6))
    prev = _softmax(rs.randn(3, 6))
    hard_p = (rs.uniform(size=(3, 6)) > 0.5).astype(np.float64)
    hard_prev = np.eye(6)[[0, 2, 5]]
    with tf.Graph().as_default(), tf.Session() as sess:
        rec, par, hard = sess.run([
            s2s.monotonic_attention(p, prev, "recursive"),
            s2s.monotonic_attention(p, prev, "parallel"),
            s2s.monotonic_attention(hard_p, hard_prev, "hard")])
        with pytest.raises(ValueError, match="mode must be"):
            s2s.monotonic_attention(p, prev, "soft")
    want = _numpy_monotonic(p, prev)
    np.testing.assert_allclose(rec, want, rtol=1e-10)
    np.testing.assert_allclose(par, want, rtol=1e-6)
    assert np.all(rec.sum(1) <= 1 + 1e-12)
    for b, start in enumerate([0, 2, 5]):
        chosen = [i for i in range(start, 6) if hard_p[b, i]]
        np.testing.assert_array_equal(hard[b], np.eye(6)[chosen[0]] if chosen else 0.0)


@pytest.mark.parametrize("mechanism", ["bahdanau", "luong"])
def test_monotonic_mechanisms_in_attention_wrapper(mechanism):
    batch, time = 2, 3
    rs = np.random.RandomState(5)
    with tf.Graph().as_default(), tf.Session() as sess:
        memory = tf.constant(rs.randn(batch, 5, 4).astype(np.float32))
        if mechanism == "bahdanau":
            mech = s2s.BahdanauMonotonicAttention(4, memory, memory_sequence_length=[5, 2],
                                                  normalize=True, score_bias_init=-1.0)
            scope = "bahdanau_monotonic_attention"
        else:
            mech = s2s.LuongMonotonicAttention(4, memory, memory_sequence_length=[5, 2],
                                               scale=True, score_bias_init=-1.0)
            scope = "luong_monotonic_attention"
        cell = s2s.AttentionWrapper(tf.nn.rnn_cell.BasicLSTMCell(4), mech,
                                    alignment_history=True)
        init = cell.zero_state(batch, tf.float32)
        helper = s2s.TrainingHelper(tf.constant(rs.randn(batch, time, 3).astype(np.float32)),
                                    [time, time])
        _, state, _ = s2s.dynamic_decode(s2s.BasicDecoder(cell, helper, init))
        names = {v.op.name for v in tf.global_variables()}
        assert f"decoder/attention_wrapper/{scope}/attention_score_bias" in names
        sess.run(tf.global_variables_initializer())
        a0, hist, bias = sess.run([init.alignments, state.alignment_history.stack(),
                                   f"decoder/attention_wrapper/{scope}/attention_score_bias:0"])
    np.testing.assert_array_equal(a0, [[1, 0, 0, 0, 0], [1, 0, 0, 0, 0]])
    assert bias == -1.0
    assert hist.shape == (time, batch, 5)
    assert np.all(hist.sum(-1) <= 1 + 1e-5) and np.all(hist >= 0)
    np.testing.assert_array_equal(hist[:, 1, 2:], 0.0)


def test_cond_in_loop_reading_a_captured_tensor_array_has_gradients():
    # TrainingHelper reads its inputs under a tf.cond inside the decoder's while_loop
    x_val = np.arange(6, dtype=np.float32).reshape(3, 2)
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.constant(x_val)
        ta = tf.TensorArray(tf.float32, size=3).unstack(x)

        def body(i, acc):
            v = tf.cond(i < 2, lambda: ta.read(i), lambda: tf.zeros([2]))
            return i + 1, acc + v * tf.cast(i + 1, tf.float32)

        _, acc = tf.while_loop(lambda i, a: i < 3, body, (0, tf.zeros([2])))
        grad = sess.run(tf.gradients(tf.reduce_sum(acc), x)[0])
    np.testing.assert_array_equal(grad, [[1, 1], [2, 2], [0, 0]])


def _replay(m, first_inputs, next_inputs_of, steps):
    """NumPy logits of ``steps`` steps where step t + 1 reads ``next_inputs_of(t, x_t)``."""
    c, h = m.zeros(first_inputs.shape[0])
    x = first_inputs
    out = []
    for t in range(steps):
        c, h, logits = m.step(x, c, h)
        out.append(logits)
        if t + 1 < steps:
            x = next_inputs_of(t, logits)
    return np.stack(out, 1)


def test_scheduled_embedding_and_sample_helpers_feed_what_they_sampled():
    batch, time, depth, units, vocab = 3, 4, 3, 5, 6
    rs = np.random.RandomState(8)
    x_val = rs.randn(batch, time, depth).astype(np.float32)
    lengths = np.array([4, 4, 4], np.int32)
    with tf.Graph().as_default(), tf.Session() as sess:
        m = _Model(sess, depth, units, vocab, seed=2)
        emb = tf.constant(m.emb)
        zero = m.cell.zero_state(batch, tf.float32)
        outs = {}
        for prob in (0.0, 1.0):
            helper = s2s.ScheduledEmbeddingTrainingHelper(x_val, lengths, emb, prob, seed=1)
            dec = s2s.BasicDecoder(m.cell, helper, zero, output_layer=m.layer)
            outs[prob] = s2s.dynamic_decode(dec)[0]
        sample = s2s.SampleEmbeddingHelper(emb, [0, 1, 2], 5, softmax_temperature=0.5, seed=3)
        sdec = s2s.BasicDecoder(m.cell, sample, zero, output_layer=m.layer)
        s_out, _, s_len = s2s.dynamic_decode(sdec, maximum_iterations=6)
        with pytest.raises(ValueError, match="sampling_probability"):
            s2s.ScheduledEmbeddingTrainingHelper(x_val, lengths, emb, [[0.5]])
        sess.run(tf.global_variables_initializer())
        m.assign()
        o0, o1, so, sl = sess.run([outs[0.0], outs[1.0], s_out, s_len])
    # never sampling: teacher forcing, sample ids -1
    np.testing.assert_array_equal(o0.sample_id, -1)
    want0 = _replay(m, x_val[:, 0], lambda t, _: x_val[:, t + 1], time)
    np.testing.assert_allclose(o0.rnn_output, want0, rtol=1e-4, atol=1e-5)
    # always sampling: step t + 1 reads the embedding of the id sampled at step t
    assert np.all((o1.sample_id >= 0) & (o1.sample_id < vocab))
    want1 = _replay(m, x_val[:, 0], lambda t, _: m.emb[o1.sample_id[:, t]], time)
    np.testing.assert_allclose(o1.rnn_output, want1, rtol=1e-4, atol=1e-5)
    # sampled inference: the same, from the start tokens, until end_token 5
    wants = _replay(m, m.emb[[0, 1, 2]], lambda t, _: m.emb[so.sample_id[:, t]],
                    so.sample_id.shape[1])
    np.testing.assert_allclose(so.rnn_output, wants, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(sl, _first_end(so.sample_id, 5, 6))


def test_scheduled_output_helper_feeds_outputs():
    batch, time, units = 2, 4, 3
    rs = np.random.RandomState(9)
    x_val = rs.randn(batch, time, units).astype(np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        cell = tf.nn.rnn_cell.BasicRNNCell(units)
        helper = s2s.ScheduledOutputTrainingHelper(x_val, [time, time], 1.0)
        out, _, _ = s2s.dynamic_decode(s2s.BasicDecoder(
            cell, helper, cell.zero_state(batch, tf.float32)))
        sess.run(tf.global_variables_initializer())
        kernel, bias = sess.run([cell.weights[0], cell.weights[1]])
        o = sess.run(out)
    # TF 1.15: int32 ids, 1 where the output was fed back
    assert o.sample_id.dtype == np.int32 and (o.sample_id == 1).all()
    h = np.zeros([batch, units], np.float32)
    x = x_val[:, 0]
    for t in range(time):
        h = np.tanh(np.concatenate([x, h], 1) @ kernel + bias)
        np.testing.assert_allclose(o.rnn_output[:, t], h, rtol=1e-5, atol=1e-6)
        x = h


def test_nmt_style_program_with_unknown_lengths():
    # the shape of TF's NMT tutorial: bidirectional encoder fed through placeholders,
    # attention over the tiled memory, beam search from the tiled encoder state
    vocab, units, width = 10, 8, 4
    with tf.Graph().as_default(), tf.Session() as sess:
        src = tf.placeholder(tf.int32, [None, None])
        src_len = tf.placeholder(tf.int32, [None])
        emb = tf.get_variable("embedding", [vocab, 6])
        (out_fw, out_bw), (state_fw, _) = tf.nn.bidirectional_dynamic_rnn(
            tf.nn.rnn_cell.LSTMCell(units), tf.nn.rnn_cell.LSTMCell(units),
            tf.nn.embedding_lookup(emb, src), sequence_length=src_len, dtype=tf.float32)
        batch = tf.size(src_len)
        with tf.variable_scope("decoder") as scope:
            memory = s2s.tile_batch(tf.concat([out_fw, out_bw], -1), multiplier=width)
            mech = s2s.BahdanauAttention(units, memory,
                                         memory_sequence_length=s2s.tile_batch(src_len, width))
            cell = s2s.AttentionWrapper(tf.nn.rnn_cell.LSTMCell(units), mech,
                                        attention_layer_size=units, name="attention")
            init = cell.zero_state(batch * width, tf.float32).clone(
                cell_state=s2s.tile_batch(state_fw, width))
            decoder = s2s.BeamSearchDecoder(
                cell, emb, tf.fill([batch], 1), 2, init, width,
                output_layer=tf.layers.Dense(vocab, use_bias=False, name="output_projection"),
                length_penalty_weight=1.0)
            out, state, _ = s2s.dynamic_decode(
                decoder, maximum_iterations=tf.reduce_max(src_len) * 2, scope=scope)
        names = {v.op.name for v in tf.global_variables()}
        assert {"decoder/memory_layer/kernel", "decoder/attention/lstm_cell/kernel",
                "decoder/attention/bahdanau_attention/query_layer/kernel",
                "decoder/attention/bahdanau_attention/attention_v",
                "decoder/attention/attention_layer/kernel",
                "decoder/output_projection/kernel"} <= names
        sess.run(tf.global_variables_initializer())
        ids, lengths = sess.run([out.predicted_ids, state.lengths],
                                {src: [[3, 4, 5], [6, 7, 0]], src_len: [3, 2]})
    assert ids.shape[0] == 2 and ids.shape[1] <= 6 and ids.shape[2] == width
    assert ids.min() >= 0 and ids.max() < vocab
    assert lengths.shape == (2, width) and lengths.max() <= 6


def test_attention_wrapper_multiple_mechanisms_and_cell_output():
    batch = 2
    rs = np.random.RandomState(6)
    with tf.Graph().as_default(), tf.Session() as sess:
        mem_a = tf.constant(rs.randn(batch, 4, 3).astype(np.float32))
        mem_b = tf.constant(rs.randn(batch, 6, 5).astype(np.float32))
        mechs = [s2s.LuongAttention(4, mem_a), s2s.BahdanauAttention(4, mem_b)]
        inner = tf.nn.rnn_cell.BasicLSTMCell(4)
        cell = s2s.AttentionWrapper(inner, mechs, attention_layer_size=[2, 3],
                                    output_attention=False, alignment_history=True)
        assert cell.output_size == 4 and cell.state_size.attention == 5
        with pytest.raises(ValueError, match="exactly one integer per"):
            s2s.AttentionWrapper(inner, mechs, attention_layer_size=3)
        state = cell.zero_state(batch, tf.float32)
        assert isinstance(state.alignments, tuple) and len(state.alignment_history) == 2
        out, state = cell(tf.constant(rs.randn(batch, 2).astype(np.float32)), state)
        sess.run(tf.global_variables_initializer())
        cell_out, att, (al_a, al_b), h = sess.run([out, state.attention, state.alignments,
                                                   state.cell_state.h])
    np.testing.assert_allclose(cell_out, h)  # output_attention=False: the cell's output
    assert att.shape == (batch, 5)
    np.testing.assert_allclose(al_a.sum(-1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(al_b.sum(-1), 1.0, rtol=1e-6)
    assert al_a.shape == (batch, 4) and al_b.shape == (batch, 6)
