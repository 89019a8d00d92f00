"""tf.contrib.rnn's further cells and tf.contrib.crf, against NumPy and brute force."""

import itertools

import numpy as np
import pytest

import tideflow as tf

rnn = tf.contrib.rnn
crf = tf.contrib.crf


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _lstm_ref(x, c, h, kernel, bias, forget_bias=1.0, peep=None, clip=None):
    gates = np.concatenate([x, h], 1) @ kernel + bias
    i, j, f, o = np.split(gates, 4, axis=1)
    if peep is not None:
        i = i + c * peep[0]
        f = f + c * peep[1]
    new_c = _sigmoid(f + forget_bias) * c + _sigmoid(i) * np.tanh(j)
    if clip is not None:
        new_c = np.clip(new_c, -clip, clip)
    if peep is not None:
        o = o + new_c * peep[2]
    return np.tanh(new_c) * _sigmoid(o), new_c


def _values(names):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess, {v.op.name: sess.run(v) for v in tf.global_variables() if v.op.name in names}


@pytest.mark.parametrize("peephole", [False, True])
def test_lstm_block_cell_step_matches_numpy(peephole):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4))
    c0, h0 = rng.standard_normal((3, 5)), rng.standard_normal((3, 5))
    cell = rnn.LSTMBlockCell(5, use_peephole=peephole, cell_clip=0.8)
    out, state = cell(tf.constant(x), rnn.LSTMStateTuple(tf.constant(c0), tf.constant(h0)))
    names = sorted(v.op.name for v in tf.global_variables())
    expected = ["lstm_cell/bias", "lstm_cell/kernel"]
    if peephole:
        expected = ["lstm_cell/bias", "lstm_cell/kernel", "lstm_cell/w_f_diag",
                    "lstm_cell/w_i_diag", "lstm_cell/w_o_diag"]
    assert names == expected
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got_h, got_c = sess.run([out, state.c])
        w = {v.op.name.split("/")[-1]: sess.run(v) for v in tf.global_variables()}
    peep = (w["w_i_diag"], w["w_f_diag"], w["w_o_diag"]) if peephole else None
    ref_h, ref_c = _lstm_ref(x, c0, h0, w["kernel"], w["bias"], peep=peep, clip=0.8)
    np.testing.assert_allclose(got_h, ref_h, rtol=1e-10)
    np.testing.assert_allclose(got_c, ref_c, rtol=1e-10)
    tf.reset_default_graph()


def test_lstm_block_fused_cell_matches_step_cell_with_lengths():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 3, 4))  # time-major
    lengths = np.array([6, 2, 4])
    fused = rnn.LSTMBlockFusedCell(5)
    out, state = fused(tf.constant(x), dtype=tf.float64, sequence_length=lengths)
    assert sorted(v.op.name for v in tf.global_variables()) == [
        "lstm_fused_cell/bias", "lstm_fused_cell/kernel"]
    assert out.get_shape().as_list() == [6, 3, 5]
    out2, _ = fused(tf.constant(x), dtype=tf.float64, sequence_length=lengths)
    assert len(tf.global_variables()) == 2
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, got_c, got_h, got2 = sess.run([out, state.c, state.h, out2])
        kernel, bias = sess.run([fused.kernel, fused.bias])
    c = np.zeros((3, 5))
    h = np.zeros((3, 5))
    for t in range(6):
        nh, nc = _lstm_ref(x[t], c, h, kernel, bias)
        live = (t < lengths)[:, None]
        np.testing.assert_allclose(got[t], np.where(live, nh, 0.0), rtol=1e-10, atol=1e-12)
        c, h = np.where(live, nc, c), np.where(live, nh, h)
    np.testing.assert_allclose(got_c, c, rtol=1e-10)
    np.testing.assert_allclose(got_h, h, rtol=1e-10)
    np.testing.assert_allclose(got2, got)
    with pytest.raises(ValueError, match="expected ndim=3, found ndim=2"):
        fused(tf.zeros([3, 4]))
    tf.reset_default_graph()


def test_gru_block_cell_is_gru_with_tf_names():
    rng = np.random.default_rng(2)
    x, h = rng.standard_normal((2, 3)), rng.standard_normal((2, 4))
    block = rnn.GRUBlockCell(4)
    out, _ = block(tf.constant(x), tf.constant(h))
    with tf.variable_scope("plain"):
        plain = tf.nn.rnn_cell.GRUCell(4)
        out_plain, _ = plain(tf.constant(x), tf.constant(h))
    names = sorted(v.op.name for v in tf.global_variables())
    # TF 1.15's GRUBlockCell names (GRUBlockCellV2 has GRUCell's gates/..., candidate/...)
    assert names[:4] == ["gru_cell/b_c", "gru_cell/b_ru", "gru_cell/w_c", "gru_cell/w_ru"]
    copy = [tf.assign(p, b) for b, p in zip(block.weights, plain.weights, strict=True)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(copy)
        got, ref = sess.run([out, out_plain])
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    with pytest.raises(ValueError, match="Exactly one"):
        rnn.GRUBlockCell()
    tf.reset_default_graph()


def test_layer_norm_basic_lstm_cell_matches_numpy():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3))
    c0, h0 = rng.standard_normal((2, 4)), rng.standard_normal((2, 4))
    cell = rnn.LayerNormBasicLSTMCell(4, norm_gain=1.5, norm_shift=0.25)
    out, state = cell(tf.constant(x), rnn.LSTMStateTuple(tf.constant(c0), tf.constant(h0)))
    names = {v.op.name for v in tf.global_variables()}
    assert "layer_norm_basic_lstm_cell/kernel" in names
    assert "layer_norm_basic_lstm_cell/forget/gamma" in names
    assert not any(n.endswith("/bias") for n in names)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got_h, got_c = sess.run([out, state.c])
        kernel = sess.run(cell.weights[0])

    def norm(v):
        mu = v.mean(1, keepdims=True)
        return (v - mu) / np.sqrt(((v - mu) ** 2).mean(1, keepdims=True) + 1e-12) * 1.5 + 0.25

    i, j, f, o = (norm(g) for g in np.split(np.concatenate([x, h0], 1) @ kernel, 4, axis=1))
    new_c = norm(c0 * _sigmoid(f + 1.0) + _sigmoid(i) * np.tanh(j))
    np.testing.assert_allclose(got_c, new_c, rtol=1e-9)
    np.testing.assert_allclose(got_h, np.tanh(new_c) * _sigmoid(o), rtol=1e-9)
    tf.reset_default_graph()


def test_projection_and_embedding_wrappers():
    rng = np.random.default_rng(4)
    ids = np.array([1, 3, 0])
    cell = rnn.OutputProjectionWrapper(
        rnn.EmbeddingWrapper(tf.nn.rnn_cell.BasicRNNCell(4), embedding_classes=5,
                             embedding_size=3), 2)
    h0 = rng.standard_normal((3, 4)).astype(np.float32)
    out, state = cell(tf.constant(ids), tf.constant(h0))
    names = sorted(v.op.name for v in tf.global_variables())
    assert names == ["output_projection_wrapper/bias",
                     "output_projection_wrapper/embedding_wrapper/basic_rnn_cell/bias",
                     "output_projection_wrapper/embedding_wrapper/basic_rnn_cell/kernel",
                     "output_projection_wrapper/embedding_wrapper/embedding",
                     "output_projection_wrapper/kernel"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, got_state = sess.run([out, state])
        w = {v.op.name: sess.run(v) for v in tf.global_variables()}
    pre = "output_projection_wrapper/embedding_wrapper/"
    emb = w[pre + "embedding"][ids]
    new_h = np.tanh(np.concatenate([emb, h0], 1) @ w[pre + "basic_rnn_cell/kernel"]
                    + w[pre + "basic_rnn_cell/bias"])
    np.testing.assert_allclose(got_state, new_h, rtol=1e-5)
    np.testing.assert_allclose(got, new_h @ w["output_projection_wrapper/kernel"]
                               + w["output_projection_wrapper/bias"], rtol=1e-5, atol=1e-6)
    assert cell.output_size == 2 and cell.state_size == 4
    tf.reset_default_graph()
    inp = rnn.InputProjectionWrapper(tf.nn.rnn_cell.GRUCell(3), num_proj=6)
    out, _ = inp(tf.ones([2, 5]), tf.zeros([2, 3]))
    kernel = [v for v in tf.global_variables() if v.op.name == "input_projection_wrapper/kernel"]
    assert kernel and kernel[0].get_shape().as_list() == [5, 6]
    assert out.get_shape().as_list() == [2, 3]
    tf.reset_default_graph()


def test_stack_bidirectional_dynamic_rnn_shapes_and_scopes():
    x = tf.constant(np.random.default_rng(5).standard_normal((2, 5, 3)))
    fw = [tf.nn.rnn_cell.GRUCell(4), tf.nn.rnn_cell.GRUCell(2)]
    bw = [tf.nn.rnn_cell.GRUCell(4), tf.nn.rnn_cell.GRUCell(2)]
    out, st_fw, st_bw = rnn.stack_bidirectional_dynamic_rnn(fw, bw, x, dtype=tf.float64,
                                                            sequence_length=[5, 3])
    assert out.get_shape().as_list() == [2, 5, 4]
    assert len(st_fw) == 2 and len(st_bw) == 2
    names = {v.op.name.split("/gru_cell")[0] for v in tf.global_variables()}
    assert names == {"stack_bidirectional_rnn/cell_0/bidirectional_rnn/fw",
                     "stack_bidirectional_rnn/cell_0/bidirectional_rnn/bw",
                     "stack_bidirectional_rnn/cell_1/bidirectional_rnn/fw",
                     "stack_bidirectional_rnn/cell_1/bidirectional_rnn/bw"}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(out)
    assert np.all(got[1, 3:] == 0.0)
    with pytest.raises(ValueError, match="same depth"):
        rnn.stack_bidirectional_dynamic_rnn(fw, bw[:1], x, dtype=tf.float64)
    tf.reset_default_graph()


# ------------------------------------------------------------------------------------------
# CRF
# ------------------------------------------------------------------------------------------


def _score(unary, tags, trans):
    return unary[np.arange(len(tags)), tags].sum() + sum(
        trans[tags[t - 1], tags[t]] for t in range(1, len(tags)))


def _brute(unary, trans, length):
    best, best_score, scores = None, -np.inf, []
    for tags in itertools.product(range(unary.shape[1]), repeat=length):
        s = _score(unary[:length], np.array(tags), trans)
        scores.append(s)
        if s > best_score:
            best, best_score = list(tags), s
    return np.log(np.exp(scores).sum()), best, best_score


@pytest.mark.parametrize("steps", [1, 4])
def test_crf_scores_log_norm_and_decode_against_brute_force(steps):
    rng = np.random.default_rng(6)
    batch, tags = 3, 3
    # float32, as TF 1.15 scores sequences against float32 masks (float64 raises TypeError)
    unary = rng.standard_normal((batch, steps, tags)).astype(np.float32)
    trans = rng.standard_normal((tags, tags)).astype(np.float32)
    tag_idx = rng.integers(0, tags, (batch, steps))
    lengths = np.array([steps, max(steps - 1, 1), 1])
    seq = crf.crf_sequence_score(tf.constant(unary), tf.constant(tag_idx, tf.int32),
                                 tf.constant(lengths), tf.constant(trans))
    log_norm = crf.crf_log_norm(tf.constant(unary), tf.constant(lengths), tf.constant(trans))
    decoded, best = crf.crf_decode(tf.constant(unary), tf.constant(trans), tf.constant(lengths))
    with tf.Session() as sess:
        got_seq, got_norm, got_tags, got_best = sess.run([seq, log_norm, decoded, best])
    assert got_tags.dtype == np.int32 and got_tags.shape == (batch, steps)
    for b in range(batch):
        n = lengths[b]
        ref_norm, ref_tags, ref_best = _brute(unary[b], trans, n)
        assert got_seq[b] == pytest.approx(_score(unary[b, :n], tag_idx[b, :n], trans), rel=1e-5)
        assert got_norm[b] == pytest.approx(ref_norm, rel=1e-5)
        assert list(got_tags[b, :n]) == ref_tags
        assert np.all(got_tags[b, n:] == 0)
        assert got_best[b] == pytest.approx(ref_best, rel=1e-5)
        vit, vit_score = crf.viterbi_decode(unary[b, :n], trans)
        assert vit == ref_tags and vit_score == pytest.approx(ref_best, rel=1e-5)
    tf.reset_default_graph()


def test_crf_log_likelihood_variable_and_gradient():
    # float32 as TF 1.15 needs; the finite differences are taken in NumPy's float64
    rng = np.random.default_rng(7)
    unary = rng.standard_normal((2, 3, 3)).astype(np.float32).astype(np.float64)
    tag_idx = np.array([[0, 2, 1], [1, 1, 0]])
    lengths = np.array([3, 2])
    inputs = tf.placeholder(tf.float32, [2, 3, 3])
    with tf.variable_scope("crf"):
        ll, trans = crf.crf_log_likelihood(inputs, tf.constant(tag_idx), tf.constant(lengths))
    assert trans.op.name == "crf/transitions" and trans.get_shape().as_list() == [3, 3]
    loss = -tf.reduce_sum(ll)
    g_in, g_tr = tf.gradients(loss, [inputs, trans])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        t0 = sess.run(trans).astype(np.float64)
        got_ll, ana_in, ana_tr = sess.run([ll, g_in, g_tr], {inputs: unary})

        def f(u, t):
            return -sum(_score(u[b, :lengths[b]], tag_idx[b, :lengths[b]], t)
                        - _brute(u[b], t, lengths[b])[0] for b in range(2))

        eps = 1e-6
        num_in = np.zeros_like(unary)
        for idx in np.ndindex(unary.shape):
            d = np.zeros_like(unary)
            d[idx] = eps
            num_in[idx] = (f(unary + d, t0) - f(unary - d, t0)) / (2 * eps)
        num_tr = np.zeros_like(t0)
        for idx in np.ndindex(t0.shape):
            d = np.zeros_like(t0)
            d[idx] = eps
            num_tr[idx] = (f(unary, t0 + d) - f(unary, t0 - d)) / (2 * eps)
    assert -got_ll.sum() == pytest.approx(f(unary, t0), rel=1e-5)
    np.testing.assert_allclose(ana_in, num_in, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ana_tr, num_tr, rtol=1e-4, atol=1e-5)
    tf.reset_default_graph()
