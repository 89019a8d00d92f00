"""Parity with TF 1.15 of what NLP projects of the TF 1.x years build: char-RNN language models,
text CNNs, seq2seq decoders, BERT-style encoders, word2vec, BiLSTM-CRF taggers and CTC models.
Expected values, names and messages are what TF 1.15 printed for the same programs."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _sparse(seqs):
    idx = [[b, i] for b, s in enumerate(seqs) for i in range(len(s))]
    return (np.array(idx, np.int64).reshape(-1, 2),
            np.array([v for s in seqs for v in s], np.int32),
            np.array([len(seqs), max(len(s) for s in seqs)], np.int64))


def _run_error(sess, fetch, feed):
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        sess.run(fetch, feed)
    return e.value.message.split("\n\t [[")[0]


# -- CRF (BiLSTM-CRF taggers) --------------------------------------------------------------


def test_crf_sequence_score_over_unknown_time_has_no_static_shape():
    # TF 1.15 gathers with all of tag_indices' columns in its one-step branch, so the cond's
    # result has an unknown shape where the time dimension is unknown
    crf = tf.contrib.crf
    x = tf.placeholder(tf.float32, [None, None, 4])
    tags = tf.placeholder(tf.int32, [None, None])
    lengths = tf.placeholder(tf.int32, [None])
    trans = tf.get_variable("t", [4, 4])
    assert crf.crf_sequence_score(x, tags, lengths, trans).get_shape().ndims is None
    ll, _ = crf.crf_log_likelihood(x, tags, lengths, trans)
    assert ll.get_shape().ndims is None
    assert crf.crf_log_norm(x, lengths, trans).get_shape().as_list() == [None]
    one = crf.crf_sequence_score(tf.placeholder(tf.float32, [3, 1, 4]),
                                 tf.placeholder(tf.int32, [3, 1]), lengths, trans)
    assert one.get_shape().as_list() == [3]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        tv = s.run(trans)
        xv = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10
        got = s.run(crf.crf_sequence_score(x, tags, lengths, trans),
                    {x: xv[:, :1], tags: [[1], [3]], lengths: [1, 0]})
        np.testing.assert_allclose(got, [xv[0, 0, 1], 0.0], rtol=1e-6)
        got = s.run(crf.crf_sequence_score(x, tags, lengths, trans),
                    {x: xv, tags: [[1, 2, 0], [3, 3, 3]], lengths: [3, 2]})
        want = [xv[0, 0, 1] + xv[0, 1, 2] + xv[0, 2, 0] + tv[1, 2] + tv[2, 0],
                xv[1, 0, 3] + xv[1, 1, 3] + tv[3, 3]]
        np.testing.assert_allclose(got, want, rtol=1e-5)


def test_viterbi_decode_returns_numpy_scalars_of_the_scores_dtype():
    # TF 1.15: the score is np.max of a float32 trellis (prints 1.913296, not 1.9132963418960571)
    # and the tags are NumPy integers
    score = np.array([[0.5, 1.25], [0.75, 0.1], [0.3, 0.9]], np.float32)
    trans = np.array([[0.1, -0.2], [0.4, 0.05]], np.float32)
    tags, best = tf.contrib.crf.viterbi_decode(score, trans)
    assert type(best) is np.float32
    assert abs(best - 3.1) < 1e-6  # 1.25 + 0.4 + 0.75 - 0.2 + 0.9
    assert tags == [1, 0, 1] and all(isinstance(t, np.integer) for t in tags)


# -- CTC (speech and OCR models) -------------------------------------------------------------


def test_ctc_loss_is_the_op_itself_as_tf_1_15():
    # TF 1.15's ctc_loss calls the generated op with no scope of its own: CTCLoss:0, CTCLoss_1:0
    x = tf.placeholder(tf.float32, [None, None, 4])
    lab = tf.sparse_placeholder(tf.int32)
    seq = tf.placeholder(tf.int32, [None])
    assert tf.nn.ctc_loss(lab, x, seq).name == "CTCLoss:0"
    assert tf.nn.ctc_loss(lab, x, seq, ignore_longer_outputs_than_inputs=True).name == (
        "CTCLoss_1:0")
    tf.nn.ctc_beam_search_decoder(tf.placeholder(tf.float32, [4, 2, 3]), [4, 4])
    ops = [op.name for op in tf.get_default_graph().get_operations()]
    assert ops[-2:] == ["CTCBeamSearchDecoder/sequence_length", "CTCBeamSearchDecoder"]
    tf.nn.ctc_loss(lab, tf.placeholder(tf.float32, [2, 4, 3]), [4, 4], time_major=False)
    ops = [op.name for op in tf.get_default_graph().get_operations()]
    assert ops[-4:] == ["transpose/perm", "transpose", "CTCLoss_2/sequence_length", "CTCLoss_2"]


@pytest.mark.parametrize("make, message", [
    (lambda lab: tf.nn.ctc_loss(lab, tf.placeholder(tf.float32, [4, 2]), [4, 4]),
     ("Shape must be rank 3 but is rank 2 for 'CTCLoss' (op: 'CTCLoss') with input shapes: "
      "[4,2], [?,2], [?], [2].")),
    (lambda lab: tf.nn.ctc_loss(lab, tf.placeholder(tf.float32, [4, 2, 3]),
                                tf.placeholder(tf.int32, [3])),
     ("Dimensions must be equal, but are 2 and 3 for 'CTCLoss' (op: 'CTCLoss') with input "
      "shapes: [4,2,3], [?,2], [?], [3].")),
    (lambda lab: tf.nn.ctc_loss(lab, tf.placeholder(tf.float32, [4, 2, 3]),
                                tf.placeholder(tf.int32, [2, 1])),
     ("Shape must be rank 1 but is rank 2 for 'CTCLoss' (op: 'CTCLoss') with input shapes: "
      "[4,2,3], [?,2], [?], [2,1].")),
    (lambda lab: tf.nn.ctc_greedy_decoder(tf.placeholder(tf.float32, [4, 2]), [4, 4]),
     ("Shape must be rank 3 but is rank 2 for 'CTCGreedyDecoder' (op: 'CTCGreedyDecoder') with "
      "input shapes: [4,2], [2].")),
    (lambda lab: tf.nn.ctc_beam_search_decoder(tf.placeholder(tf.float32, [4, 2, 3]), [4] * 3),
     ("Dimensions must be equal, but are 2 and 3 for 'CTCBeamSearchDecoder' (op: "
      "'CTCBeamSearchDecoder') with input shapes: [4,2,3], [3].")),
])
def test_ctc_shape_errors_in_tf_1_15s_words(make, message):
    lab = tf.SparseTensor(tf.placeholder(tf.int64, [None, 2]), tf.placeholder(tf.int32, [None]),
                          [2, 3])
    with pytest.raises(ValueError) as e:
        make(lab)
    assert str(e.value) == message


def test_ctc_loss_labels_of_the_blank_class_end_the_sequence():
    # TF 1.15's kernel: a label >= num_classes - 1 ends the row's labels (later ones must be
    # blanks too), so [0, 3] and [0, 5] score as [0]; the time needed counts the labels as
    # given, before collapsing; rows of length 0 score 0 when ignoring
    x = tf.placeholder(tf.float32, [None, None, 4])
    seq = tf.placeholder(tf.int32, [None])
    lab = tf.sparse_placeholder(tf.int32)
    loss = tf.nn.ctc_loss(lab, x, seq)
    ignoring = tf.nn.ctc_loss(lab, x, seq, ignore_longer_outputs_than_inputs=True)
    collapsing = tf.nn.ctc_loss(lab, x, seq, preprocess_collapse_repeated=True)
    xv = np.random.RandomState(0).randn(4, 2, 4).astype(np.float32)
    with tf.Session() as s:
        def run(t, seqs, lengths):
            return s.run(t, {x: xv, seq: lengths, lab: _sparse(seqs)})

        want = run(loss, [[0], [2]], [4, 4])
        np.testing.assert_allclose(want, [1.54308, 4.32178], rtol=1e-5)  # TF 1.15's values
        np.testing.assert_allclose(run(loss, [[0, 3], [2]], [4, 4]), want, rtol=1e-6)
        np.testing.assert_allclose(run(loss, [[0, 5], [2]], [4, 4]), want, rtol=1e-6)
        np.testing.assert_allclose(run(ignoring, [[1, 2], [2]], [0, 4]), [0.0, 4.32178],
                                   rtol=1e-5)
        assert _run_error(s, collapsing, {x: xv, seq: [2, 4], lab: _sparse([[1, 1, 1], [2]])}) == (
            "Not enough time for target transition sequence (required: 3, available: 2)0You can "
            "turn this error into a warning by using the flag ignore_longer_outputs_than_inputs")
        assert _run_error(s, loss, {x: xv, seq: [4, 4], lab: _sparse([[3, 1], [2]])}) == (
            "Saw a non-null label (index >= num_classes - 1) following a null label, batch: 0 "
            "num_classes: 4 labels: 3,1 labels seen so far: ")
        assert _run_error(s, loss, {x: xv, seq: [4, 4], lab: _sparse([[-3, 3], [2]])}) == (
            "All labels must be nonnegative integers, batch: 0 labels: -3")
        assert _run_error(s, loss, {x: xv, seq: [4, 4], lab: _sparse([[1, -2], [2]])}) == (
            "All labels must be nonnegative integers, batch: 0 labels: 1,-2")


def test_ctc_loss_kernel_errors_in_tf_1_15s_order_and_words():
    x = tf.placeholder(tf.float32, None)
    seq = tf.placeholder(tf.int32, None)
    idx = tf.placeholder(tf.int64, None)
    vals = tf.placeholder(tf.int32, None)
    loss = tf.nn.ctc_loss(tf.SparseTensor(idx, vals, tf.constant([2, 3], tf.int64)), x, seq)
    xv = np.random.RandomState(0).randn(4, 2, 4).astype(np.float32)
    base = {x: xv, seq: [4, 4], idx: [[0, 0], [1, 0]], vals: [1, 2]}
    names = {"x": x, "seq": seq, "idx": idx, "vals": vals}
    with tf.Session() as s:
        def err(**kw):
            return _run_error(s, loss, {**base, **{names[k]: v for k, v in kw.items()}})

        assert err(x=xv[0]) == "inputs is not a 3-Tensor"
        assert err(seq=[[4, 4]]) == "sequence_length is not a vector"
        assert err(idx=[0, 1]) == "labels_indices is not a matrix"
        assert err(vals=[[1], [2]]) == "labels_values is not a vector"
        assert err(idx=[[0, 0], [0, 0]]) == (
            "label SparseTensor is not valid: indices[1] = [0,0] is repeated")
        assert err(idx=[[0, 1], [0, 0]]) == (
            "label SparseTensor is not valid: indices[1] = [0,0] is out of order. Many sparse ops "
            "require sorted indices.\n    Use `tf.sparse.reorder` to create a correctly ordered "
            "copy.\n\n")
        assert err(idx=[[0, 0], [5, 0]]) == (
            "label SparseTensor is not valid: indices[1] = [5,0] is out of bounds: need 0 <= "
            "index < [2,1]")
        assert err(idx=[[0, 0], [1, -1]]) == (
            "label SparseTensor is not valid: indices[1] = [1,-1] is out of bounds: need 0 <= "
            "index < [2,1]")
        assert err(vals=[1, 2, 3]) == (
            "labels_indices and labels_values must contain the same number of rows, but saw "
            "shapes: [2,2] vs. [3]")
        assert err(idx=[[0, 0, 0], [1, 0, 0]]) == "Order length must be SparseTensor rank."
        assert err(seq=[4, 4, 4]) == (
            "len(sequence_length) != batch_size.  len(sequence_length):  3 batch_size: 2")
        assert err(seq=[5, -1]) == "sequence_length(0) <= 4"
        assert err(seq=[-1, 5]) == "sequence_length(1) <= 4"
        assert err(seq=[-1, 4]) == "seq_len(0) < 0"
        assert err(idx=[[0, 0]], vals=[1]) == "Labels length is zero in batch 1"


# -- BERT-style warm starts -----------------------------------------------------------------


@pytest.mark.parametrize("mapping", [{"model/": "new/"}, {"model/w": "new/w"}])
def test_init_from_checkpoint_maps_onto_resource_variables(tmp_path, mapping):
    # TF 1.15 looks the mapped names up without testing a variable's truth (which for a
    # resource variable would read it in the graph)
    with tf.variable_scope("model"):
        w = tf.get_variable("w", [2, 3], use_resource=True)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        want = s.run(w)
        path = tf.train.Saver().save(s, str(tmp_path / "m.ckpt"))
    with tf.Graph().as_default():
        with tf.variable_scope("new"):
            w2 = tf.get_variable("w", [2, 3], use_resource=True,
                                 initializer=tf.zeros_initializer())
        tf.train.init_from_checkpoint(path, mapping)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(s.run(w2), want)


# -- attention layers over RNN outputs (HAN-style) ------------------------------------------


def test_contrib_fully_connected_over_3d_inputs_is_tf_1_15s_tensordot():
    # TF 1.15's contrib fully_connected applies the core Dense layer: a rank-3 input goes
    # through tensordot (ops under <scope>/Tensordot), so later seeded ops draw TF's numbers
    tf.set_random_seed(1)
    xv = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10
    x = tf.placeholder(tf.float32, [None, 3, 4])
    with tf.variable_scope("att"):
        h = tf.contrib.layers.fully_connected(x, 2, activation_fn=tf.tanh, scope="proj")
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names[names.index("att/proj/biases/read") + 1:] == [
        "att/proj/Tensordot/axes", "att/proj/Tensordot/free", "att/proj/Tensordot/Shape",
        "att/proj/Tensordot/GatherV2/axis", "att/proj/Tensordot/GatherV2",
        "att/proj/Tensordot/GatherV2_1/axis", "att/proj/Tensordot/GatherV2_1",
        "att/proj/Tensordot/Const", "att/proj/Tensordot/Prod", "att/proj/Tensordot/Const_1",
        "att/proj/Tensordot/Prod_1", "att/proj/Tensordot/concat/axis",
        "att/proj/Tensordot/concat", "att/proj/Tensordot/stack",
        "att/proj/Tensordot/transpose", "att/proj/Tensordot/Reshape",
        "att/proj/Tensordot/transpose_1/perm", "att/proj/Tensordot/transpose_1",
        "att/proj/Tensordot/Reshape_1/shape", "att/proj/Tensordot/Reshape_1",
        "att/proj/Tensordot/MatMul", "att/proj/Tensordot/Const_2",
        "att/proj/Tensordot/concat_1/axis", "att/proj/Tensordot/concat_1", "att/proj/Tensordot",
        "att/proj/BiasAdd", "att/proj/Tanh"]
    assert h.get_shape().as_list() == [None, 3, 2]
    tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(h))
    r = tf.random_uniform([3])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(h, {x: xv})[1], [[-0.72163, 0.48938],
                                                         [-0.82343, 0.55553],
                                                         [-0.89038, 0.61531]], atol=1e-5)
        np.testing.assert_allclose(s.run(r), [0.55273, 0.32342, 0.03769], atol=1e-5)


# -- shape errors NLP programs run into -----------------------------------------------------


@pytest.mark.parametrize("cond, then, other, dims, shapes", [
    ([3], [2, 3], [2, 3], "0 in both shapes must be equal, but are 3 and 2. Shapes are [3] and [2]",
     "[3], [2,3], [2,3]"),
    ([2, 3], [2, 4], [2, 4],
     "1 in both shapes must be equal, but are 4 and 3. Shapes are [2,4] and [2,3]",
     "[2,3], [2,4], [2,4]"),
    ([3], [None, 3], [2, 3],
     "0 in both shapes must be equal, but are 3 and 2. Shapes are [3] and [2]",
     "[3], [?,3], [2,3]"),
    ([2], [2, 3], [2, 4],
     "1 in both shapes must be equal, but are 3 and 4. Shapes are [2,3] and [2,4]",
     "[2], [2,3], [2,4]"),
])
def test_where_shape_errors_merge_as_tf_1_15(cond, then, other, dims, shapes):
    # TF 1.15 merges then with else, then (a vector cond) the cond with [then's first dimension]
    # or (another rank) the result with the cond: a dynamic_rnn's sequence_length of the wrong
    # batch size fails in rnn/while/Select with these words
    with pytest.raises(ValueError) as e:
        tf.where(tf.placeholder(tf.bool, cond), tf.placeholder(tf.float32, then),
                 tf.placeholder(tf.float32, other))
    assert str(e.value) == (f"Dimension {dims}. for 'Select' (op: 'Select') with input shapes: "
                            f"{shapes}.")


def test_luong_attention_units_error_shows_the_tensors_as_tf_1_15():
    mech = tf.contrib.seq2seq.LuongAttention(3, tf.zeros([2, 4, 3]))
    with pytest.raises(ValueError) as e:
        mech(tf.zeros([2, 5]), mech.initial_alignments(2, tf.float32))
    assert str(e.value) == (
        "Incompatible or unknown inner dimensions between query and keys.  Query "
        "(Tensor(\"zeros_1:0\", shape=(2, 5), dtype=float32)) has units: 5.  Keys "
        "(Tensor(\"LuongAttention/memory_layer/Tensordot:0\", shape=(2, 4, 3), dtype=float32)) "
        "have units: 3.  Perhaps you need to set num_units to the keys' dimension (3)?")


def test_nce_loss_with_vector_labels_fails_in_the_samplers_words():
    with pytest.raises(ValueError) as e:
        tf.nn.nce_loss(tf.zeros([10, 3]), tf.zeros([10]), tf.zeros([4], tf.int64),
                       tf.zeros([4, 3]), 2, 10)
    assert str(e.value) == (
        "Shape must be rank 2 but is rank 1 for 'nce_loss/LogUniformCandidateSampler' (op: "
        "'LogUniformCandidateSampler') with input shapes: [4].")


# -- static_rnn with sequence lengths over wrapped cells (0.x-era seq2seq and LM code) -------


def test_static_rnn_with_lengths_seeds_wrapped_cells_variables_as_tf_1_15():
    # TF 1.15 runs each step's cell inside a cond: the Switch of each outside tensor the cell
    # reads (its input, the embedding table) is made right after the op reading it, before
    # the inner cell's and the projection's variables; the table's gradient arrives as
    # IndexedSlices through that cond (values, indices and dense shape merged)
    rnn = tf.contrib.rnn
    tf.set_random_seed(2)
    ids = [tf.placeholder(tf.int32, [None]) for _ in range(3)]
    cell = rnn.OutputProjectionWrapper(
        rnn.EmbeddingWrapper(rnn.GRUCell(5), embedding_classes=9, embedding_size=3), 4)
    outs, _ = tf.nn.static_rnn(cell, [tf.expand_dims(i, 1) for i in ids], dtype=tf.float32,
                               sequence_length=[3, 2])
    gates, proj = tf.trainable_variables()[1], tf.trainable_variables()[-2]
    tf.train.AdamOptimizer(0.1).minimize(tf.add_n([tf.reduce_sum(o) for o in outs]))
    r = tf.random_uniform([2])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(gates)[0, :4], [0.434262, 0.559545, 0.349822, -0.030024],
                                   atol=1e-6)
        np.testing.assert_allclose(s.run(proj)[0], [-0.636487, -0.009582, 0.583438, -0.373078],
                                   atol=1e-6)
        np.testing.assert_allclose(s.run(outs[-1], {i: [1, 2] for i in ids})[0],
                                   [0.643195, 0.848345, -0.686143, 0.13314], atol=1e-5)
        np.testing.assert_allclose(s.run(r), [0.717973, 0.587673], atol=1e-6)


# -- raw_rnn (decoders written against tf.nn.raw_rnn) ----------------------------------------


def test_raw_rnn_gradient_counts_tf_ops_around_a_cond_reading_the_input_array():
    # tf.nn.raw_rnn's documented loop_fn: a cond picks the next input from the input
    # TensorArray, or zeros once every row is done. No gradient reaches that cond, so TF 1.15
    # makes no ops for it and a seeded op after tf.gradients draws TF's numbers
    tf.set_random_seed(33)
    steps, batch, depth = 4, 2, 3
    inputs = tf.placeholder(tf.float32, [steps, batch, depth])
    lengths = tf.placeholder(tf.int32, [batch])
    inputs_ta = tf.TensorArray(dtype=tf.float32, size=steps).unstack(inputs)
    cell = tf.nn.rnn_cell.GRUCell(5)

    def loop_fn(time, cell_output, cell_state, loop_state):
        state = cell.zero_state(batch, tf.float32) if cell_output is None else cell_state
        finished = time >= lengths
        next_input = tf.cond(tf.reduce_all(finished),
                             lambda: tf.zeros([batch, depth], dtype=tf.float32),
                             lambda: inputs_ta.read(time))
        return finished, next_input, state, cell_output, None

    outputs_ta, _, _ = tf.nn.raw_rnn(cell, loop_fn)
    loss = tf.reduce_sum(outputs_ta.stack())
    tf.gradients(loss, tf.trainable_variables())
    r = tf.random_uniform([3])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(r), [0.546737, 0.018754, 0.678613], atol=1e-6)
        xv = np.arange(24, dtype=np.float32).reshape(steps, batch, depth) / 24
        np.testing.assert_allclose(s.run(loss, {inputs: xv, lengths: [4, 2]}), -1.6853726,
                                   rtol=1e-6)
