"""Regressions found by running public TF 1.x text / RNN / seq2seq programs (text CNN, char-RNN,
NMT, sequence taggers) against tideflow; each test is a small self-contained form of the pattern."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_flags_parse_flags_of_tf_1_4_scripts(tmp_path):
    # scripts written for TF <= 1.4 call FLAGS._parse_flags() before printing their parameters;
    # it parses the known flags of sys.argv and returns the arguments left over
    script = tmp_path / "s.py"
    script.write_text(textwrap.dedent('''
        import tideflow as tf
        tf.flags.DEFINE_integer("batch_size", 64, "b")
        tf.flags.DEFINE_string("name", "x", "n")
        FLAGS = tf.flags.FLAGS
        rest = FLAGS._parse_flags()
        print(FLAGS.batch_size, FLAGS.name, rest)
        print(FLAGS._parse_flags(["--batch_size=3", "extra"]), FLAGS.batch_size)
    '''))
    proc = subprocess.run([sys.executable, str(script), "--batch_size=8", "--other=1"],
                          check=False, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["8 x ['--other=1']", "['extra'] 3"]


def test_python_ops_lookup_ops_of_the_nmt_vocab_utils(tmp_path):
    # tensorflow/nmt builds its vocabulary tables with
    # `from tensorflow.python.ops import lookup_ops` and initializes them with tables_initializer
    from tideflow.python.ops import lookup_ops

    vocab = tmp_path / "vocab.txt"
    vocab.write_text("<unk>\n<s>\n</s>\nhello\nworld\n")
    table = lookup_ops.index_table_from_file(str(vocab), default_value=0)
    reverse = lookup_ops.index_to_string_table_from_file(str(vocab), default_value="<unk>")
    ids = table.lookup(tf.constant(["world", "hello", "nope", "</s>"]))
    words = reverse.lookup(tf.constant([3, 9], tf.int64))
    with tf.Session() as sess:
        sess.run(lookup_ops.tables_initializer())
        assert sess.run(ids).tolist() == [4, 3, 0, 2]
        assert sess.run(words).tolist() == [b"hello", b"<unk>"]


def test_random_shuffle_queue_enqueue_many_keeps_trailing_nul_bytes():
    # serialized Examples whose last int64 value is 0 end in NUL bytes; splitting an
    # enqueue_many batch into bare bytes scalars let NumPy stack them as 'S' and drop them
    recs = [b"ab\x00", b"\x00\x00", b"x\x00y\x00", b""]
    q = tf.RandomShuffleQueue(10, 0, [tf.string], shapes=[[]], seed=1)
    fifo = tf.FIFOQueue(10, [tf.string], shapes=[[]])
    with tf.Session() as sess:
        sess.run([q.enqueue_many([recs]), fifo.enqueue_many([recs])])
        assert sorted(sess.run(q.dequeue_many(4)).tolist()) == sorted(recs)
        assert sess.run(fifo.dequeue_many(2)).tolist() == recs[:2]
        assert [sess.run(fifo.dequeue()) for _ in range(2)] == recs[2:]


def _write_examples(path, rows):
    with tf.python_io.TFRecordWriter(str(path)) as w:
        for ids, label in rows:
            feats = {"ids": tf.train.Feature(int64_list=tf.train.Int64List(value=ids)),
                     "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[label]))}
            w.write(tf.train.Example(
                features=tf.train.Features(feature=feats)).SerializeToString())


@pytest.mark.parametrize("randomize", [False, True])
def test_contrib_learn_read_batch_features_of_the_udc_input_fn(tmp_path, randomize):
    # dennybritz/chatbot-retrieval reads its TFRecords with tf.contrib.learn.io.read_batch_features
    # (parse specs from create_feature_spec_for_parsing): every record once per epoch, the last
    # batch smaller, then OutOfRange; names under the reader's scope as in TF
    rows = [([i, i + 1, 0], i % 2) for i in range(7)]
    _write_examples(tmp_path / "a.tfrecords", rows[:4])
    _write_examples(tmp_path / "b.tfrecords", rows[4:])
    cols = [tf.contrib.layers.real_valued_column("ids", dimension=3, dtype=tf.int64),
            tf.contrib.layers.real_valued_column("label", dimension=1, dtype=tf.int64)]
    spec = tf.contrib.layers.create_feature_spec_for_parsing(cols)
    feats = tf.contrib.learn.io.read_batch_features(
        file_pattern=[str(tmp_path / "*.tfrecords")], batch_size=3, features=spec,
        reader=tf.TFRecordReader, randomize_input=randomize, num_epochs=2,
        queue_capacity=100, num_enqueue_threads=2 if randomize else 1,
        name="read_batch_features_train")
    assert tf.contrib.learn.read_batch_features is tf.contrib.learn.io.read_batch_features
    assert feats["ids"].shape.as_list() == [None, 3]
    assert feats["label"].shape.as_list() == [None, 1]
    epochs = tf.get_default_graph().get_tensor_by_name(
        "read_batch_features_train/file_name_queue/limit_epochs/epochs:0")
    assert epochs.op.type.startswith("Variable")
    got = []
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        while True:
            try:
                ids, label = sess.run([feats["ids"], feats["label"]])
            except tf.errors.OutOfRangeError:
                break
            assert 1 <= len(ids) <= 3
            got += [(tuple(r), int(lab)) for r, lab in zip(ids, label[:, 0])]
        coord.request_stop()
        coord.join(threads)
    want = sorted([(tuple(ids), lab) for ids, lab in rows] * 2)
    assert sorted(got) == want
    if not randomize:  # files sorted, read in order, each epoch the same
        assert got[:7] == [(tuple(ids), lab) for ids, lab in rows]


def test_py_func_and_padded_batch_return_strings_as_bytes_with_their_nul_bytes():
    # a serialized record (or any binary string) ends in NUL bytes; padded_batch of scalar
    # strings handed back 0-d 'S' arrays, and a py_func returning bytes lost the NULs
    recs = [b"ab\x00", b"\x00\x00", b"xy"]
    ds = tf.data.Dataset.from_tensor_slices(tf.constant(recs))
    scalars = ds.padded_batch(3, padded_shapes=[]).make_one_shot_iterator().get_next()
    vectors = ds.map(lambda s: tf.fill([tf.strings.length(s) - 1], s)).padded_batch(
        3, padded_shapes=[None], padding_values=b"-").make_one_shot_iterator().get_next()
    echoed = tf.py_func(lambda x: x, [tf.constant(recs[0])], tf.string)
    pair = tf.py_func(lambda x: (x, [b"\x00", x]), [tf.constant(recs[1])], [tf.string] * 2)
    with tf.Session() as sess:
        got = sess.run(scalars)
        assert got.dtype == object and got.tolist() == recs
        assert sess.run(vectors).tolist() == [[b"ab\x00", b"ab\x00"], [b"\x00\x00", b"-"],
                                              [b"xy", b"-"]]
        assert sess.run(echoed) == b"ab\x00"
        first, second = sess.run(pair)
        assert first == b"\x00\x00" and second.tolist() == [b"\x00", b"\x00\x00"]


def test_contrib_learn_estimators_tensor_signature():
    # old contrib.learn programs (chatbot-retrieval's udc_predict) set
    # estimator._targets_info = tf.contrib.learn.estimators.tensor_signature.TensorSignature(t)
    ts = tf.contrib.learn.estimators.tensor_signature
    dense = tf.constant(0, shape=[1, 1])
    sparse = tf.SparseTensor([[0, 0]], tf.constant([1.5]), [2, 2])
    sig = ts.TensorSignature(dense)
    assert (sig.dtype, sig.shape.as_list(), sig.is_sparse) == (tf.int32, [1, 1], False)
    assert ts.TensorSignature(sparse) == (tf.float32, None, True)
    sigs = ts.create_signatures({"a": dense, "b": sparse})
    assert ts.tensors_compatible({"a": tf.placeholder(tf.int32, [None, 1])}, sigs)
    assert not ts.tensors_compatible({"a": tf.zeros([1, 2], tf.int32)}, sigs)
    assert not ts.tensors_compatible({"a": tf.zeros([1, 1])}, sigs)
    ph = ts.create_placeholders_from_signatures(sigs)
    assert ph["a"].op.type == "Placeholder" and ph["a"].shape.as_list() == [None, 1]
    assert isinstance(ph["b"], tf.SparseTensor)
    assert tf.contrib.learn.estimators.estimator.Estimator is tf.contrib.learn.Estimator
    assert tf.contrib.learn.estimators.model_fn.ModelFnOps is tf.contrib.learn.ModelFnOps


def test_contrib_linalg_tril_future_mask_of_tf1_transformers():
    # Transformer code of the TF 1.2-1.4 era builds its causal mask with
    # tf.contrib.linalg.LinearOperatorTriL(ones).to_dense() (later LinearOperatorLowerTriangular)
    scores = tf.constant(np.arange(18, dtype=np.float32).reshape(2, 3, 3))
    tril = tf.contrib.linalg.LinearOperatorTriL(tf.ones_like(scores[0, :, :])).to_dense()
    masks = tf.tile(tf.expand_dims(tril, 0), [tf.shape(scores)[0], 1, 1])
    masked = tf.where(tf.equal(masks, 0), tf.ones_like(masks) * (-2 ** 32 + 1), scores)
    probs = tf.nn.softmax(masked)
    with tf.Session() as sess:
        got = sess.run(probs)
    assert np.allclose(np.triu(got[0], 1), 0) and np.allclose(got.sum(-1), 1)
    assert np.allclose(got[1, 0], [1, 0, 0])
    assert (tf.contrib.linalg.LinearOperatorUDVHUpdate
            is tf.linalg.LinearOperatorLowRankUpdate)
    assert tf.contrib.linalg.LinearOperatorDiag is tf.linalg.LinearOperatorDiag


def test_second_dynamic_decode_opens_decoder_1_as_tf():
    # a training decoder and a beam-search decoder with their own attention cells in one graph:
    # TF's dynamic_decode opens variable_scope(scope, "decoder"), so the second is decoder_1
    # (re-entering "decoder" made the second cell's attention layer collide with the first's)
    s2s = tf.contrib.seq2seq
    mem = tf.constant(np.random.RandomState(0).randn(2, 4, 6).astype(np.float32))
    emb = tf.get_variable("emb", [5, 6])
    outputs = []
    for beam in (0, 2):
        memory = s2s.tile_batch(mem, beam) if beam else mem
        cell = s2s.AttentionWrapper(tf.nn.rnn_cell.GRUCell(6), s2s.LuongAttention(6, memory),
                                    attention_layer_size=6)
        init = cell.zero_state(2 * max(beam, 1), tf.float32)
        if beam:
            dec = s2s.BeamSearchDecoder(cell, emb, tf.fill([2], 1), 0, init, beam,
                                        output_layer=tf.layers.Dense(5))
        else:
            helper = s2s.GreedyEmbeddingHelper(emb, tf.fill([2], 1), 0)
            dec = s2s.BasicDecoder(cell, helper, init, output_layer=tf.layers.Dense(5))
        outputs.append(s2s.dynamic_decode(dec, maximum_iterations=3)[0])
    names = {v.name for v in tf.global_variables()}
    assert "decoder/attention_wrapper/attention_layer/kernel:0" in names
    assert "decoder_1/attention_wrapper/attention_layer/kernel:0" in names
    assert "decoder_1/attention_wrapper/gru_cell/gates/kernel:0" in names
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        greedy, beam = sess.run([outputs[0].sample_id, outputs[1].predicted_ids])
    assert greedy.shape[0] == 2 and beam.shape[0] == 2 and beam.shape[2] == 2


def test_python_layers_core_dense_of_the_seq2seq_tutorials():
    # `from tensorflow.python.layers.core import Dense` (and `layers import core as layers_core`)
    # gives the output projection handed to BasicDecoder in the TF 1.x seq2seq tutorials
    from tideflow.python.layers.core import Dense

    from tideflow.python.layers import base
    from tideflow.python.layers import core as layers_core

    assert Dense is tf.layers.Dense and layers_core.dropout is tf.layers.dropout
    assert base.Layer is tf.layers.Layer and base.InputSpec is tf.layers.InputSpec
    layer = Dense(3, use_bias=False, kernel_initializer=tf.ones_initializer())
    out = layer(tf.constant([[1.0, 2.0]]))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(out).tolist() == [[3.0, 3.0, 3.0]]


def test_custom_cell_written_against_tensorflow_python_ops_modules():
    # text models subclass RNNCell from tensorflow.python.ops.rnn_cell_impl and call the ops
    # modules directly (vs.variable_scope, math_ops, nn_ops, rnn._transpose_batch_time, ...)
    from tideflow.python.ops.rnn_cell_impl import LSTMStateTuple, RNNCell

    from tideflow.python.ops import (
        array_ops,
        clip_ops,
        embedding_ops,
        init_ops,
        math_ops,
        nn_ops,
        rnn,
        tensor_array_ops,
    )
    from tideflow.python.ops import variable_scope as vs

    class MinimalLSTM(RNNCell):
        def __init__(self, units):
            super().__init__()
            self._units = units

        @property
        def state_size(self):
            return LSTMStateTuple(self._units, self._units)

        @property
        def output_size(self):
            return self._units

        def call(self, inputs, state):
            c, h = state
            w = vs.get_variable("w", [inputs.shape[1] + self._units, 4 * self._units],
                                initializer=init_ops.constant_initializer(0.1))
            gates = nn_ops.bias_add(math_ops.matmul(array_ops.concat([inputs, h], 1), w),
                                    vs.get_variable("b", [4 * self._units],
                                                    initializer=init_ops.zeros_initializer()))
            i, j, f, o = array_ops.split(gates, 4, axis=1)
            new_c = c * math_ops.sigmoid(f) + math_ops.sigmoid(i) * math_ops.tanh(j)
            new_h = math_ops.tanh(new_c) * math_ops.sigmoid(o)
            return new_h, LSTMStateTuple(new_c, new_h)

    emb = tf.constant(np.linspace(-1, 1, 10 * 3, dtype=np.float32).reshape(10, 3))
    x = embedding_ops.embedding_lookup(emb, tf.constant([[1, 2, 3, 4], [5, 6, 7, 8]]))
    out, state = rnn.dynamic_rnn(MinimalLSTM(2), x, dtype=tf.float32)
    time_major = rnn._transpose_batch_time(out)
    ta = tensor_array_ops.TensorArray(tf.float32, size=4).unstack(time_major)
    clipped, norm = clip_ops.clip_by_global_norm([ta.stack()], 0.5)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o, tm, c, n, h = sess.run([out, time_major, clipped[0], norm, state.h])
    assert o.shape == (2, 4, 2) and np.allclose(tm, o.transpose(1, 0, 2))
    assert np.allclose(h, o[:, -1]) and np.isclose(n, np.linalg.norm(o))
    assert np.isclose(np.linalg.norm(c), min(0.5, n))
    from tideflow.python.ops import gradients_impl, sparse_ops

    sp = tf.SparseTensor([[0, 1]], [2.0], [1, 2])
    assert sparse_ops.sparse_retain is tf.sparse_retain
    assert gradients_impl.gradients is tf.gradients
    assert tf.Session().run(sparse_ops.sparse_tensor_to_dense(sp)).tolist() == [[0.0, 2.0]]


def test_contrib_rnn_and_seq2seq_source_module_paths():
    # custom attention cells import core_rnn_cell._linear and the seq2seq modules by path
    from tideflow.contrib.rnn.python.ops import core_rnn_cell, rnn_cell
    from tideflow.contrib.seq2seq.python.ops import attention_wrapper, beam_search_decoder, loss
    from tideflow.contrib.seq2seq.python.ops.helper import GreedyEmbeddingHelper

    assert attention_wrapper.AttentionWrapper is tf.contrib.seq2seq.AttentionWrapper
    assert beam_search_decoder.tile_batch is tf.contrib.seq2seq.tile_batch
    assert GreedyEmbeddingHelper is tf.contrib.seq2seq.GreedyEmbeddingHelper
    assert loss.sequence_loss is tf.contrib.seq2seq.sequence_loss
    assert rnn_cell.LSTMBlockCell is tf.contrib.rnn.LSTMBlockCell
    x, h = tf.constant([[1.0, 2.0, 3.0]]), tf.constant([[1.0]])
    with tf.variable_scope("attn"):
        y = core_rnn_cell._linear([x, h], 2, True, bias_initializer=tf.constant_initializer(1.0),
                                  kernel_initializer=tf.constant_initializer(0.5))
    with tf.variable_scope("proj"):
        z = core_rnn_cell._linear(x, 3, False)
    names = [v.name for v in tf.global_variables()]
    assert names == ["attn/kernel:0", "attn/bias:0", "proj/kernel:0"]
    assert z.shape.as_list() == [1, 3]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(y).tolist() == [[4.5, 4.5]]
    with pytest.raises(ValueError, match="2D arguments"):
        core_rnn_cell._linear(tf.ones([2]), 3, True)


def test_contrib_lookup_string_to_index_tables_of_tf_1_0(tmp_path):
    # TF 1.0 text programs name the vocabulary tables string_to_index_table_from_file/_tensor
    vocab = tmp_path / "words.txt"
    vocab.write_text("the\ncat\nsat\n")
    lookup = tf.contrib.lookup
    from_file = lookup.string_to_index_table_from_file(str(vocab), num_oov_buckets=1)
    from_tensor = lookup.string_to_index_table_from_tensor(tf.constant(["a", "b"]),
                                                           default_value=7)
    ids = from_file.lookup(tf.constant(["cat", "dog", "the"]))
    ids2 = from_tensor.lookup(tf.constant(["b", "zz"]))
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        assert sess.run(ids).tolist() == [1, 3, 0]
        assert sess.run(ids2).tolist() == [1, 7]
