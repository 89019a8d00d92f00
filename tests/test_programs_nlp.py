"""Regressions found by running TF 1.x NLP / sequence-model programs against tideflow
(programs written in the style of the TF 1.x tutorials, compared with real TensorFlow)."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@pytest.mark.parametrize("make_logits", ["einsum", "transpose"])
def test_sparse_xent_gradient_of_strided_rank3_logits_subtracts_the_labels(make_logits):
    # a Transformer's tied output layer: logits = einsum('btd,vd->btv', out, embedding) fed to
    # sparse_softmax_cross_entropy_with_logits. The einsum result is not C-ordered, and the
    # kernel wrote "- onehot" into a copy, so the gradient was softmax alone and training stalled.
    rs = np.random.RandomState(0)
    a_np = rs.randn(2, 3, 4).astype(np.float32)
    e_np = rs.randn(5, 4).astype(np.float32)
    y_np = np.array([[4, 4, 4], [3, 4, 0]], np.int32)
    a, e = tf.constant(a_np), tf.constant(e_np)
    if make_logits == "einsum":
        logits = tf.einsum("btd,vd->btv", a, e)
    else:
        logits = tf.transpose(tf.einsum("btd,vd->vbt", a, e), [1, 2, 0])
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y_np, logits=logits)
    (g,) = tf.gradients(tf.reduce_sum(xent), [logits])
    with tf.Session() as sess:
        got = sess.run(g)
    expect = _softmax(np.einsum("btd,vd->btv", a_np, e_np).astype(np.float64))
    expect -= np.eye(5)[y_np]
    np.testing.assert_allclose(got, expect, rtol=1e-4, atol=1e-5)


def test_cast_of_a_sparse_tensor_casts_its_values():
    # speech/OCR tutorials: label error rate of a CTC decode (int64 SparseTensor) against int32
    # sparse targets, tf.edit_distance(tf.cast(decoded[0], tf.int32), targets)
    logits = tf.constant(np.log(np.eye(3, dtype=np.float32)[[1, 1, 2, 2]] + 1e-3)[:, None, :])
    decoded, _ = tf.nn.ctc_greedy_decoder(logits, [4])
    sp = tf.cast(decoded[0], tf.int32)
    assert isinstance(sp, tf.SparseTensor) and sp.dtype == tf.int32
    assert sp.indices is decoded[0].indices
    targets = tf.SparseTensor([[0, 0], [0, 1]], tf.constant([1, 1], tf.int32), [1, 2])
    dist = tf.edit_distance(sp, targets, normalize=False)
    slices = tf.cast(tf.IndexedSlices(tf.constant([1.5, 2.5]), tf.constant([0, 2])), tf.int32)
    assert isinstance(slices, tf.IndexedSlices) and slices.dtype == tf.int32
    with tf.Session() as sess:
        values, d, sv = sess.run([sp.values, dist, slices.values])
    # greedy decode of [1, 1, blank, blank] (the last class is the blank) merges the repeat: [1]
    assert values.tolist() == [1] and values.dtype == np.int32
    assert d.tolist() == [1.0] and sv.tolist() == [1, 2]


def _tf_wrapper_seed(seed, salt):
    # TF's DropoutWrapper._gen_seed: md5 of str(seed) + "<prefix>_<index>", first 32 bits
    import hashlib

    return int(hashlib.md5(f"{seed}{salt}".encode()).hexdigest()[:8], 16) & 0x7FFFFFFF


def test_seeded_variational_dropout_wrapper_draws_with_tfs_op_seeds():
    # AWD-LSTM style: DropoutWrapper(variational_recurrent=True, seed=5). TF derives each noise
    # tensor's op seed from md5(seed + salt); with those seeds tideflow's Philox gives TF's masks
    # (the program's outputs matched real TF 2.21's legacy cells to the printed digits).
    cell = tf.nn.rnn_cell.DropoutWrapper(
        tf.nn.rnn_cell.LSTMCell(8), input_keep_prob=0.8, state_keep_prob=0.7,
        output_keep_prob=0.5, variational_recurrent=True, input_size=2, dtype=tf.float32, seed=5)
    ops = tf.get_default_graph().get_operations()
    seeds = [op.get_attr("seed2") for op in ops if op.type == "RandomUniform"]
    salts = ["input_0", "state_0", "state_1", "output_0"]
    assert seeds == [_tf_wrapper_seed(5, s) for s in salts]
    assert [op.name for op in ops if op.type == "Const"][:3] == [
        "DropoutWrapperInit/Const", "DropoutWrapperInit/Const_1", "DropoutWrapperInit/Const_2"]
    x = tf.constant(np.ones([4, 6, 2], np.float32))
    out, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o = sess.run(out)
    # one output mask for every row and step: a unit dropped at one (row, step) is dropped at all
    dropped = o == 0
    assert dropped.any() and (dropped == dropped[:1, :1]).all()


def test_dropout_wrapper_seeded_plain_dropout_uses_tf_salted_seeds():
    cell = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.GRUCell(3), output_keep_prob=0.5, seed=7)
    cell(tf.ones([2, 2]), cell.zero_state(2, tf.float32))
    seeds = [op.get_attr("seed2") for op in tf.get_default_graph().get_operations()
             if op.type == "RandomUniform" and "dropout" in op.name]
    assert seeds == [_tf_wrapper_seed(7, "output_0")]


def test_keras_cells_run_in_dynamic_rnn_and_static_rnn():
    # TF 1.13+'s deprecation notes send users from tf.nn.rnn_cell to tf.keras.layers cells,
    # kept inside tf.nn.dynamic_rnn: the initial state comes from get_initial_state (a list for
    # LSTMCell, one tensor for GRUCell) and a one-tensor state passes to the cell as a list.
    # Values below (first rows) were printed by real TF 2.21 (tf.compat.v1, legacy tf_keras).
    x = tf.constant(np.random.RandomState(0).randn(2, 4, 3).astype(np.float32))
    init = tf.glorot_uniform_initializer(seed=1)
    rec = tf.orthogonal_initializer(seed=2)
    lstm = tf.keras.layers.LSTMCell(5, kernel_initializer=init, recurrent_initializer=rec)
    _, s = tf.nn.dynamic_rnn(lstm, x, dtype=tf.float32)
    gru = tf.keras.layers.GRUCell(5, kernel_initializer=init, recurrent_initializer=rec)
    o2, s2 = tf.nn.dynamic_rnn(gru, x, sequence_length=[4, 2], dtype=tf.float32, scope="g")
    simple = tf.keras.layers.SimpleRNNCell(5, kernel_initializer=init, recurrent_initializer=rec)
    _, s3 = tf.nn.static_rnn(simple, tf.unstack(x, axis=1), dtype=tf.float32, scope="s")
    assert isinstance(s, list) and len(s) == 2 and isinstance(s2, tf.Tensor)
    assert s2.shape.as_list() == [2, 5] and o2.shape.as_list() == [2, 4, 5]
    assert "g/while/gru_cell/kernel:0" in [v.name for v in tf.global_variables()]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        c, h2, h3, out2 = sess.run([s[1], s2, s3, o2])
    np.testing.assert_allclose(c[0], [0.3236, 0.2156, -0.6452, -0.1488, -0.5457], atol=2e-4)
    np.testing.assert_allclose(h2[0], [0.0544, -0.2534, 0.2921, -0.5340, -0.0561], atol=2e-4)
    np.testing.assert_allclose(h3[0], [0.4294, -0.8977, -0.9870, -0.6806, 0.1050], atol=2e-4)
    # past its length a row's outputs are zero and its state is the last step's
    assert (out2[1, 2:] == 0).all() and np.allclose(out2[1, 1], h2[1])


def test_attention_cell_wrapper_matches_a_numpy_lstma_and_tf_variable_names():
    rs = np.random.RandomState(1)
    x_np = rs.randn(2, 3, 4).astype(np.float32)
    cell = tf.contrib.rnn.AttentionCellWrapper(tf.nn.rnn_cell.BasicRNNCell(5), attn_length=2)
    out, state = tf.nn.dynamic_rnn(cell, tf.constant(x_np), dtype=tf.float32)
    names = [v.name[len("rnn/attention_cell_wrapper/"):] for v in tf.global_variables()]
    assert names == ["kernel:0", "bias:0", "basic_rnn_cell/kernel:0", "basic_rnn_cell/bias:0",
                     "attention/attn_w:0", "attention/attn_v:0", "attention/kernel:0",
                     "attention/bias:0", "attn_output_projection/kernel:0",
                     "attn_output_projection/bias:0"]
    assert [s.shape.as_list() for s in state] == [[2, 5], [2, 5], [2, 10]]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, w = sess.run([out, tf.global_variables()])
    k1, b1, kc, bc, attn_w, attn_v, k3, b3, k2, b2 = w
    h = np.zeros([2, 5]); attns = np.zeros([2, 5]); window = np.zeros([2, 2, 5])
    for t in range(3):
        inp = np.concatenate([x_np[:, t], attns], 1) @ k1 + b1
        h = np.tanh(np.concatenate([inp, h], 1) @ kc + bc)
        feats = window @ attn_w[0, 0]
        y = (h @ k3 + b3)[:, None, :]
        s = (attn_v * np.tanh(feats + y)).sum(-1)
        a = np.exp(s - s.max(1, keepdims=True)); a /= a.sum(1, keepdims=True)
        attns = (a[:, :, None] * window).sum(1)
        o = np.concatenate([h, attns], 1) @ k2 + b2
        window = np.concatenate([window[:, 1:], o[:, None]], 1)
        np.testing.assert_allclose(got[:, t], o, rtol=1e-4, atol=1e-5)


def test_highway_wrapper_carries_the_inputs():
    x = tf.constant(np.random.RandomState(2).randn(2, 3).astype(np.float32))
    cell = tf.contrib.rnn.HighwayWrapper(tf.nn.rnn_cell.GRUCell(3), carry_bias_init=1.0)
    out, _ = cell(x, cell.zero_state(2, tf.float32))
    variables = {v.name: v for v in tf.global_variables()}
    assert {"carry_w:0", "carry_b:0", "gru_cell/gates/kernel:0"} <= set(variables)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([tf.assign(variables["carry_w:0"], np.zeros([3, 3], np.float32)),
                  tf.assign(variables["carry_b:0"], np.full([3], 50.0, np.float32))])
        # carry = sigmoid(50) = 1 and transform = 1 - carry = 0: the output is the input
        np.testing.assert_allclose(sess.run(out), sess.run(x), rtol=1e-5)


def test_vocabulary_processor_of_the_text_cnn_tutorials(tmp_path):
    # cnn-text-classification-tf: x = np.array(list(vocab_processor.fit_transform(x_text)))
    preprocessing = tf.contrib.learn.preprocessing
    vp = preprocessing.VocabularyProcessor(5)
    docs = ["I love TensorFlow", "the movie was great great", "I hate it a lot really much"]
    x = np.array(list(vp.fit_transform(docs)))
    # TF's tokenizer splits "TensorFlow" into "Tensor" "Flow"; ids in order of first sight,
    # 0 = padding / unknown, documents cut at max_document_length
    assert x.tolist() == [[1, 2, 3, 4, 0], [5, 6, 7, 8, 8], [1, 9, 10, 11, 12]]
    assert x.dtype == np.int64 and len(vp.vocabulary_) == 15
    assert list(vp.reverse(x[:1])) == ["I love Tensor Flow <UNK>"]
    path = str(tmp_path / "vocab")
    vp.save(path)
    restored = preprocessing.VocabularyProcessor.restore(path)
    assert [v.tolist() for v in restored.transform(["great movie zzz"])] == [[8, 6, 0, 0, 0]]
    # min_frequency renumbers by count: words seen once are dropped
    vp2 = preprocessing.VocabularyProcessor(4, min_frequency=1)
    assert np.array(list(vp2.fit_transform(["a b a", "b c a"]))).tolist() == [
        [1, 2, 1, 0], [2, 0, 1, 0]]
    assert vp2.vocabulary_._mapping == {"<UNK>": 0, "a": 1, "b": 2}


def test_embedding_and_random_init_ops_are_named_and_counted_as_in_tf():
    # a graph-level seed gives each unseeded random op the graph's op count as seed2, so TF's
    # initial weights need TF's op count before them; the list is what real TF printed
    ids = tf.placeholder(tf.int32, [None, 4])
    emb = tf.Variable(tf.random_uniform([10, 3], -1.0, 1.0, seed=1))
    x = tf.nn.embedding_lookup(emb, ids)
    tf.Variable(tf.truncated_normal([3, 2], stddev=0.1, seed=2))
    tf.Variable(tf.random_normal([2], seed=3))
    assert x.name == "embedding_lookup/Identity:0"
    assert [op.name for op in tf.get_default_graph().get_operations()] == [
        "Placeholder", "random_uniform/shape", "random_uniform/min", "random_uniform/max",
        "random_uniform/RandomUniform", "random_uniform/sub", "random_uniform/mul",
        "random_uniform", "Variable", "Variable/Assign", "Variable/read", "embedding_lookup/axis",
        "embedding_lookup", "embedding_lookup/Identity", "truncated_normal/shape",
        "truncated_normal/mean", "truncated_normal/stddev", "truncated_normal/TruncatedNormal",
        "truncated_normal/mul", "truncated_normal", "Variable_1", "Variable_1/Assign",
        "Variable_1/read", "random_normal/shape", "random_normal/mean", "random_normal/stddev",
        "random_normal/RandomStandardNormal", "random_normal/mul", "random_normal", "Variable_2",
        "Variable_2/Assign", "Variable_2/read"]
    # the lookup's gradient stays sparse through the Identity
    (g,) = tf.gradients(tf.reduce_sum(x), [emb])
    assert isinstance(g, tf.IndexedSlices)


def test_sequence_mask_builds_tfs_ops_and_clamps_an_empty_batch():
    lengths = tf.placeholder(tf.int32, [None])
    mask = tf.sequence_mask(lengths, 6, dtype=tf.float32)
    auto = tf.sequence_mask(lengths)
    # TF's op list (printed by real TF): constants for maxlen, 0 and 1, Range, Cast, Less, Cast
    assert [op.name for op in tf.get_default_graph().get_operations()][1:] == [
        "SequenceMask/Const", "SequenceMask/Const_1", "SequenceMask/Const_2",
        "SequenceMask/Range", "SequenceMask/ExpandDims/dim", "SequenceMask/ExpandDims",
        "SequenceMask/Cast", "SequenceMask/Less", "SequenceMask/Cast_1",
        "SequenceMask_1/Const", "SequenceMask_1/Max", "SequenceMask_1/Const_1",
        "SequenceMask_1/Maximum", "SequenceMask_1/Const_2", "SequenceMask_1/Const_3",
        "SequenceMask_1/Range", "SequenceMask_1/ExpandDims/dim", "SequenceMask_1/ExpandDims",
        "SequenceMask_1/Cast", "SequenceMask_1/Less"]
    with tf.Session() as sess:
        m, a = sess.run([mask, auto], {lengths: [2, 0, 3]})
        empty = sess.run(auto, {lengths: np.zeros([0], np.int32)})
    assert m.tolist() == [[1, 1, 0, 0, 0, 0], [0] * 6, [1, 1, 1, 0, 0, 0]]
    assert a.tolist() == [[True, True, False], [False] * 3, [True] * 3]
    assert empty.shape == (0, 0)  # max of no lengths is clamped to 0, as in TF


def test_dense_on_a_sequence_builds_tfs_tensordot():
    # tf.layers.dense over [batch, time, depth] (Transformer/BERT blocks) contracts with TF's
    # tensordot ops; the op list is what real TF 1.15 printed (the kernel too is transposed
    # and reshaped), so graph-seeded weights of later layers get TF's seeds
    x = tf.placeholder(tf.float32, [None, 6, 4])
    y = tf.layers.dense(x, 3, name="q")
    ops = [op.name for op in tf.get_default_graph().get_operations()]
    assert [n for n in ops if n.startswith("q/Tensordot")] == [
        "q/Tensordot/axes", "q/Tensordot/free", "q/Tensordot/Shape", "q/Tensordot/GatherV2/axis",
        "q/Tensordot/GatherV2", "q/Tensordot/GatherV2_1/axis", "q/Tensordot/GatherV2_1",
        "q/Tensordot/Const", "q/Tensordot/Prod", "q/Tensordot/Const_1", "q/Tensordot/Prod_1",
        "q/Tensordot/concat/axis", "q/Tensordot/concat", "q/Tensordot/stack",
        "q/Tensordot/transpose", "q/Tensordot/Reshape", "q/Tensordot/transpose_1/perm",
        "q/Tensordot/transpose_1", "q/Tensordot/Reshape_1/shape", "q/Tensordot/Reshape_1",
        "q/Tensordot/MatMul",
        "q/Tensordot/Const_2", "q/Tensordot/concat_1/axis", "q/Tensordot/concat_1",
        "q/Tensordot"]
    assert y.shape.as_list() == [None, 6, 3]
    rs = np.random.RandomState(0)
    a = rs.randn(5, 3, 4).astype(np.float32)
    b = rs.randn(4, 3, 2).astype(np.float32)
    t = tf.tensordot(a, b, [[2, 1], [0, 1]])  # fully known shapes: transposes and a matmul
    t1 = tf.tensordot(a, b, 1)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, got1, yv = sess.run([t, t1, y], {x: np.ones([2, 6, 4], np.float32)})
    np.testing.assert_allclose(got, np.tensordot(a, b, [[2, 1], [0, 1]]), rtol=1e-5)
    np.testing.assert_allclose(got1, np.tensordot(a, b, 1), rtol=1e-5)
    assert yv.shape == (2, 6, 3)


def test_batch_normalization_scales_before_it_shifts_as_tf():
    x = tf.placeholder(tf.float32, [None, 4])
    mean, var = tf.nn.moments(x, [1], keep_dims=True)
    tf.nn.batch_normalization(x, mean, var, tf.zeros([4]), tf.ones([4]), 1e-3)
    names = [op.name for op in tf.get_default_graph().get_operations()
             if op.name.startswith("batchnorm/")]
    assert names == ["batchnorm/add/y", "batchnorm/add", "batchnorm/Rsqrt", "batchnorm/mul",
                     "batchnorm/mul_1", "batchnorm/mul_2", "batchnorm/sub", "batchnorm/add_1"]


def _tagger(keras, concat):
    inp = keras.layers.Input(shape=(5,))
    e = keras.layers.Embedding(10, 4, mask_zero=True,
                               embeddings_initializer=keras.initializers.RandomNormal(seed=1))(inp)
    h = keras.layers.GRU(3, return_sequences=True, kernel_initializer="zeros",
                         recurrent_initializer="zeros")(e)
    if concat:
        h = keras.layers.concatenate([h, e])
    out = keras.layers.TimeDistributed(keras.layers.Dense(3, activation="softmax"))(h)
    return keras.models.Model(inp, out)


@pytest.mark.parametrize("concat", [False, True])
def test_keras_sequence_tagger_masks_padding_in_loss_and_metrics(concat):
    # Embedding(mask_zero=True) -> GRU(return_sequences) [-> concatenate] -> TimeDistributed:
    # the output keeps the padding mask (Concatenate ANDs its inputs' masks), which multiplies
    # the loss weights as in TF 1.15 (sum over unmasked steps / all steps) and the metrics
    keras = tf.keras
    model = _tagger(keras, concat)
    model.compile("sgd", "sparse_categorical_crossentropy", metrics=["accuracy"])
    x = np.array([[1, 2, 3, 0, 0], [4, 5, 0, 0, 0]])
    y = np.array([[0, 1, 2, 0, 0], [1, 1, 0, 0, 0]])[..., None]
    probs = model.predict(x)
    per_step = -np.log(np.take_along_axis(probs, y, -1))[..., 0]
    mask = (x > 0).astype(np.float64)
    loss, acc = model.evaluate(x, y, verbose=0)
    assert loss == pytest.approx((per_step * mask).sum() / mask.size, rel=1e-5)
    hits = (probs.argmax(-1) == y[..., 0]) * mask
    assert acc == pytest.approx(hits.sum() / mask.sum(), rel=1e-5)


def test_keras_temporal_sample_weights():
    keras = tf.keras
    model = _tagger(keras, False)
    model.compile("sgd", "sparse_categorical_crossentropy", sample_weight_mode="temporal")
    x = np.array([[1, 2, 3, 4, 5], [4, 5, 6, 7, 8]])
    y = np.zeros([2, 5, 1], np.int64)
    w = np.array([[1, 1, 0, 0, 2], [0, 1, 1, 1, 1]], np.float32)
    per_step = -np.log(model.predict(x)[..., 0])
    assert model.evaluate(x, y, sample_weight=w, verbose=0) == pytest.approx(
        (per_step * w).sum() / w.size, rel=1e-5)
    model.fit(x, y, sample_weight=w, epochs=1, verbose=0)
    with pytest.raises(ValueError, match="you should pass a 2D sample_weight array"):
        model.fit(x, y, sample_weight=w[:, 0], verbose=0)


def test_keras_skipgrams_and_sampling_table():
    seq = tf.keras.preprocessing.sequence
    couples, labels = seq.skipgrams([1, 2, 0, 3], vocabulary_size=10, window_size=1,
                                    negative_samples=0.0, shuffle=False)
    assert couples == [[1, 2], [2, 1]] and labels == [1, 1]  # index 0 is skipped
    couples, labels = seq.skipgrams([1, 2, 3], 5, window_size=1, negative_samples=1.0, seed=3)
    assert sorted(labels) == [0] * 4 + [1] * 4
    assert all(1 <= c[1] < 5 for c, lab in zip(couples, labels) if lab == 0)
    # values printed by real TF (keras_preprocessing's Zipf table)
    np.testing.assert_allclose(seq.make_sampling_table(5),
                               [0.00315, 0.00315, 0.00548, 0.00742, 0.00913], atol=1e-5)
    tok = tf.keras.preprocessing.text.Tokenizer()
    tok.fit_on_texts(["b a a", "c b"])
    assert list(tok.word_counts.items()) == [("b", 2), ("a", 2), ("c", 1)]
    assert type(tok.word_counts).__name__ == "OrderedDict"


def test_keras_dense_attention_layers():
    # tf.keras.layers.Attention / AdditiveAttention (TF 1.15); values checked with NumPy
    rs = np.random.RandomState(0)
    q = rs.randn(2, 3, 4).astype(np.float32)
    v = rs.randn(2, 5, 4).astype(np.float32)
    vm = np.array([[1, 1, 1, 0, 0], [1] * 5], bool)
    qm = np.array([[1, 1, 0], [1, 0, 0]], bool)
    dot = tf.keras.layers.Attention(causal=True)(
        [tf.constant(q), tf.constant(v)], mask=[tf.constant(qm), tf.constant(vm)])
    add_layer = tf.keras.layers.AdditiveAttention()
    add = add_layer([tf.constant(q), tf.constant(v)])
    assert [w.name for w in add_layer.weights] == ["additive_attention/scale:0"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got_dot, got_add, scale = sess.run([dot, add, add_layer.scale])
    scores = q @ v.transpose(0, 2, 1)
    allowed = vm[:, None, :] & np.tril(np.ones([3, 5], bool))[None]
    scores = scores - 1e9 * ~allowed
    expect = _softmax(scores) @ v * qm[..., None]
    np.testing.assert_allclose(got_dot, expect, rtol=1e-4, atol=1e-5)
    add_scores = (scale * np.tanh(q[:, :, None, :] + v[:, None, :, :])).sum(-1)
    np.testing.assert_allclose(got_add, _softmax(add_scores) @ v, rtol=1e-4, atol=1e-5)


def test_placeholder_with_default_names_its_default_as_tf():
    # keep_prob = tf.placeholder_with_default(1.0, [], name="keep_prob"): TF's op wrapper makes
    # the default the constant "keep_prob/input" (one op, counted before graph-seeded ops)
    keep = tf.placeholder_with_default(1.0, [], name="keep_prob")
    other = tf.placeholder_with_default([1, 2], [None])
    assert keep.name == "keep_prob:0" and other.name == "PlaceholderWithDefault:0"
    assert [op.name for op in tf.get_default_graph().get_operations()] == [
        "keep_prob/input", "keep_prob", "PlaceholderWithDefault/input", "PlaceholderWithDefault"]
    with tf.Session() as sess:
        assert sess.run(keep) == 1.0 and sess.run(keep, {keep: 0.5}) == 0.5


def test_queue_bucket_by_sequence_length_flushes_every_bucket():
    bucket_ops = tf.contrib.training
    data = [[1, 2, 3], [4, 5], [6, 7, 8, 9, 10, 11], [12], [13, 14, 15, 16], [17, 18],
            [19, 20, 21, 22, 23, 24, 25], [26, 27, 28]]
    ds = tf.data.Dataset.from_generator(lambda: iter(data), tf.int32, tf.TensorShape([None]))
    seq = ds.make_one_shot_iterator().get_next()
    lengths, (batch,) = bucket_ops.bucket_by_sequence_length(
        input_length=tf.shape(seq)[0], tensors=[seq], batch_size=2, bucket_boundaries=[3, 5],
        dynamic_pad=True, allow_smaller_final_batch=True)
    assert lengths.shape.as_list() == [None] and batch.shape.as_list() == [None, None]
    seen = []
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        with pytest.raises(tf.errors.OutOfRangeError):
            while True:
                seen.append([x.tolist() for x in sess.run([lengths, batch])])
        coord.request_stop()
        coord.join(threads)
    # buckets: length < 3, 3 <= length < 5, length >= 5; batches padded per bucket and the
    # last partial batch of each bucket flushed when the input runs out
    assert sorted(seen) == [[[2], [[17, 18]]], [[2, 1], [[4, 5], [12, 0]]],
                            [[3], [[26, 27, 28]]], [[3, 4], [[1, 2, 3, 0], [13, 14, 15, 16]]],
                            [[6, 7], [[6, 7, 8, 9, 10, 11, 0], [19, 20, 21, 22, 23, 24, 25]]]]
    with pytest.raises(ValueError, match="sequential increasing"):
        bucket_ops.bucket_by_sequence_length(3, [seq], 2, [5, 3])


def test_contrib_framework_sort():
    values = tf.constant([[3.0, 1.0, 2.0]])
    with tf.Session() as sess:
        s, a = sess.run([tf.contrib.framework.sort(values, direction="DESCENDING"),
                         tf.contrib.framework.argsort(values)])
    assert s.tolist() == [[3.0, 2.0, 1.0]] and a.tolist() == [[1, 2, 0]]


def test_mutable_hash_table_vocabulary_is_checkpointed(tmp_path):
    # a growing vocabulary in a tf.contrib.lookup.MutableHashTable, saved with the variables
    table = tf.contrib.lookup.MutableHashTable(key_dtype=tf.string, value_dtype=tf.int64,
                                               default_value=-1)
    words = tf.placeholder(tf.string, [None])
    ids = tf.placeholder(tf.int64, [None])
    insert = table.insert(words, ids)
    found = table.lookup(tf.constant([["the", "cat"], ["sat", "dog"]]))
    tf.Variable(0.0, name="w")
    saver = tf.train.Saver()
    path = str(tmp_path / "model")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(insert, {words: ["the", "cat", "sat"], ids: [0, 1, 2]})
        sess.run(table.remove(tf.constant(["cat"])))
        assert sess.run(found).tolist() == [[0, -1], [2, -1]]
        saver.save(sess, path)
    names = sorted(n for n, _ in tf.train.list_variables(path))
    assert names == ["MutableHashTable-keys", "MutableHashTable-values", "w"]
    with tf.Session() as sess:
        assert sess.run(table.size()) == 0
        saver.restore(sess, path)
        assert sess.run(found).tolist() == [[0, -1], [2, -1]] and sess.run(table.size()) == 2
        with pytest.raises(tf.errors.InvalidArgumentError, match="Expected shape"):
            sess.run(insert, {words: ["a"], ids: [1, 2]})


def test_cudnn_compatible_cells_compute_cudnns_recurrences():
    rs = np.random.RandomState(3)
    x_np = rs.randn(2, 4).astype(np.float32)
    h_np = rs.randn(2, 3).astype(np.float32)
    gru = tf.contrib.cudnn_rnn.CudnnCompatibleGRUCell(3)
    out, _ = gru(tf.constant(x_np), tf.constant(h_np))
    lstm = tf.contrib.cudnn_rnn.CudnnCompatibleLSTMCell(3)
    c_np = rs.randn(2, 3).astype(np.float32)
    lo, ls = lstm(tf.constant(x_np), tf.nn.rnn_cell.LSTMStateTuple(tf.constant(c_np),
                                                                   tf.constant(h_np)))
    names = [v.name for v in tf.global_variables()]
    assert names[:2] == ["cudnn_compatible_gru_cell/gates/kernel:0",
                         "cudnn_compatible_gru_cell/gates/bias:0"]
    assert "cudnn_compatible_lstm_cell/kernel:0" in names
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, (got_lo, got_c) = sess.run([out, (lo, ls.c)])
        gk, gb, ik, hk, ib, hb, lk, lb = sess.run(tf.global_variables())

    def sig(v):
        return 1 / (1 + np.exp(-v))

    r, u = np.split(sig(np.concatenate([x_np, h_np], 1) @ gk + gb), 2, axis=1)
    cand = np.tanh(x_np @ ik + ib + r * (h_np @ hk + hb))  # reset after the projection
    np.testing.assert_allclose(got, (1 - u) * cand + u * h_np, rtol=1e-4, atol=1e-5)
    i, ci, f, o = np.split(np.concatenate([x_np, h_np], 1) @ lk + lb, 4, axis=1)
    c = sig(f) * c_np + sig(i) * np.tanh(ci)  # no forget bias added
    np.testing.assert_allclose(got_c, c, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_lo, np.tanh(c) * sig(o), rtol=1e-4, atol=1e-5)


def test_keras_stateful_rnn_carries_its_state_between_batches():
    # the TF text-generation tutorial: GRU(stateful=True) with batch_input_shape, a custom
    # from_logits loss on (batch, time, 1) targets, model.reset_states() per epoch (the same
    # program gave real TF 2.21's losses and states, legacy tf_keras under tf.compat.v1)
    keras = tf.keras
    model = keras.Sequential([
        keras.layers.Embedding(11, 8, batch_input_shape=[2, None],
                               embeddings_initializer=keras.initializers.RandomUniform(
                                   -0.1, 0.1, seed=1)),
        keras.layers.GRU(16, return_sequences=True, stateful=True,
                         recurrent_initializer=keras.initializers.Orthogonal(seed=2),
                         kernel_initializer=keras.initializers.glorot_uniform(seed=3)),
        keras.layers.Dense(11, kernel_initializer=keras.initializers.glorot_uniform(seed=4))])

    def loss(labels, logits):
        return keras.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True)

    model.compile(optimizer=keras.optimizers.Adam(0.01), loss=loss)
    gru = model.layers[1]
    assert [s.shape.as_list() for s in gru.states] == [[2, 16]]
    x = np.array([[3, 2, 5, 5, 7], [0, 9, 7, 8, 5]])
    first = model.predict(x)
    again = model.predict(x)  # starts from the state the first call left
    assert not np.allclose(first, again)
    model.reset_states()
    np.testing.assert_allclose(model.predict(x), first, rtol=1e-5)
    assert np.abs(keras.backend.get_value(gru.states[0])).sum() > 0
    model.reset_states()
    loss0 = model.train_on_batch(x, x[..., None])
    assert loss0 == pytest.approx(np.log(11), abs=0.05)
    gru.reset_states()
    assert not keras.backend.get_value(gru.states[0]).any()
    with pytest.raises(ValueError, match="needs to know its batch size"):
        keras.Sequential([keras.layers.LSTM(3, stateful=True, input_shape=(None, 4))])


def test_keras_rmsprop_without_momentum_adds_epsilon_after_the_square_root():
    # Keras' RMSprop (momentum 0, the 'rmsprop' default of the Keras seq2seq example) updates
    # var -= lr * g / (sqrt(rms) + eps) with no momentum slot; the ApplyRMSProp kernel takes
    # sqrt(rms + eps). A large epsilon makes the two differ.
    keras = tf.keras
    model = keras.Sequential([
        keras.layers.Embedding(6, 2, input_length=2,
                               embeddings_initializer=keras.initializers.Constant(0.5)),
        keras.layers.Flatten(),
        keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")])
    model.compile(keras.optimizers.RMSprop(0.1, rho=0.5, epsilon=0.1), "mse")
    x, y = np.array([[1, 2]]), np.array([[0.0]])
    emb, kernel = 0.5 * np.ones([6, 2]), np.ones([4, 1])
    rms_e, rms_k = np.zeros_like(emb), np.zeros_like(kernel)
    for _ in range(2):
        model.train_on_batch(x, y)
        feat = emb[[1, 2]].reshape(1, 4)
        g_out = 2 * (feat @ kernel - y)
        g_k = feat.T @ g_out
        g_e = np.zeros_like(emb)
        g_e[[1, 2]] = (g_out @ kernel.T).reshape(2, 2)
        rms_k = 0.5 * rms_k + 0.5 * g_k ** 2
        rms_e = 0.5 * rms_e + 0.5 * g_e ** 2
        kernel = kernel - 0.1 * g_k / (np.sqrt(rms_k) + 0.1)
        emb = emb - 0.1 * g_e / (np.sqrt(rms_e) + 0.1)
    got_emb, got_kernel = model.get_weights()
    np.testing.assert_allclose(got_kernel, kernel, rtol=1e-5)
    np.testing.assert_allclose(got_emb, emb, rtol=1e-5)
    slots = [v.name for v in model.optimizer.weights]
    assert not any("RMSprop_1" in n for n in slots)  # no momentum slot


def test_keras_decoder_lstm_reused_with_fed_states():
    # the Keras lstm_seq2seq example: the decoder LSTM is first called with the encoder's
    # states, then again (inference model) with states fed through Input layers
    keras = tf.keras
    enc_in = keras.layers.Input(shape=(None, 3))
    _, h, c = keras.layers.LSTM(4, return_state=True)(enc_in)
    dec_in = keras.layers.Input(shape=(None, 5))
    dec_lstm = keras.layers.LSTM(4, return_sequences=True, return_state=True)
    dec_out, _, _ = dec_lstm(dec_in, initial_state=[h, c])
    keras.models.Model([enc_in, dec_in], dec_out)
    h_in, c_in = keras.layers.Input(shape=(4,)), keras.layers.Input(shape=(4,))
    out2, h2, c2 = dec_lstm(dec_in, initial_state=[h_in, c_in])
    step = keras.models.Model([dec_in, h_in, c_in], [out2, h2, c2])
    o, hv, cv = step.predict([np.ones([1, 1, 5]), np.zeros([1, 4]), np.zeros([1, 4])])
    assert o.shape == (1, 1, 4) and hv.shape == cv.shape == (1, 4)
    np.testing.assert_allclose(o[:, -1], hv, rtol=1e-6)
    with pytest.raises(ValueError, match="expected ndim=3"):
        dec_lstm(keras.layers.Input(shape=(5,)))


def test_keras_train_and_test_on_batch_return_float32_scalars():
    # as TF (the fetched values): print(model.train_on_batch(x, y)) shows float32's short form
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,),
                                                       kernel_initializer="ones")])
    model.compile("sgd", "mse", metrics=["mae"])
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    y = np.array([[1.0], [2.0]], np.float32)
    loss, mae = model.train_on_batch(x, y)
    assert type(loss) is np.float32 and type(mae) is np.float32
    assert str(loss) == "14.5" and [type(v) for v in model.test_on_batch(x, y)] == [np.float32] * 2


def test_one_shot_iterator_over_a_lookup_table_says_to_use_an_initializable_one():
    # the common tf.data text pipeline mistake: a vocabulary table captured by map()
    table = tf.contrib.lookup.index_table_from_tensor(tf.constant(["a", "b"]))
    ds = tf.data.Dataset.from_tensor_slices(["a", "b", "c"]).map(table.lookup)
    with pytest.raises(ValueError, match=r"make_initializable_iterator\(\)`\. \(Original "
                                         r"error: Cannot capture a stateful node"):
        ds.make_one_shot_iterator()
    it = ds.make_initializable_iterator()
    with tf.Session() as sess:
        sess.run([tf.tables_initializer(), it.initializer])
        assert [sess.run(it.get_next()) for _ in range(3)] == [0, 1, -1]
