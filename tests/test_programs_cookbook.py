"""Patterns from the TF 1.x cookbook sweep (nfmcclure/tensorflow_cookbook run under tideflow).

Each test pins one behaviour a cookbook program relied on and that tideflow got wrong before:
values are checked against NumPy or hand-derived numbers.
"""

import os

import numpy as np

import tideflow as tf


def test_saved_model_builder_accepts_bytes_export_dir(tmp_path):
    # The production chapter exports with
    #   builder = tf.saved_model.builder.SavedModelBuilder(tf.compat.as_bytes(path))
    # and TF's builder.save() returns the path of saved_model.pb as bytes.
    export_dir = os.path.join(str(tmp_path), "1")
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.Variable([[1.0], [2.0]], name="w")
        y = tf.matmul(x, w, name="y")
        sess.run(tf.global_variables_initializer())
        sess.run(w.assign([[3.0], [-1.0]]))
        builder = tf.saved_model.builder.SavedModelBuilder(tf.compat.as_bytes(export_dir))
        sig = tf.saved_model.signature_def_utils.build_signature_def(
            inputs={"x": tf.saved_model.utils.build_tensor_info(x)},
            outputs={"y": tf.saved_model.utils.build_tensor_info(y)},
            method_name=tf.saved_model.signature_constants.PREDICT_METHOD_NAME)
        builder.add_meta_graph_and_variables(
            sess, [tf.saved_model.tag_constants.SERVING], signature_def_map={"p": sig},
            legacy_init_op=tf.group(tf.tables_initializer(), name="legacy_init_op"))
        path = builder.save()
    assert path == os.fsencode(os.path.join(export_dir, "saved_model.pb"))
    assert sorted(os.listdir(export_dir)) == ["saved_model.pb", "variables"]

    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        mg = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING],
                                        tf.compat.as_bytes(export_dir))
        s = mg.signature_def["p"]
        feed = np.array([[1.0, 2.0], [0.5, -4.0]], np.float32)
        out = sess.run(s.outputs["y"].name, {s.inputs["x"].name: feed})
    np.testing.assert_allclose(out, feed @ np.array([[3.0], [-1.0]], np.float32))


def test_translate_data_utils(tmp_path):
    # 09/05 imports ``tensorflow.models.rnn.translate.data_utils`` (the 0.x tutorial module).
    from tideflow.models.rnn.translate import data_utils

    assert (data_utils.PAD_ID, data_utils.GO_ID, data_utils.EOS_ID, data_utils.UNK_ID) == (
        0, 1, 2, 3)
    assert data_utils.basic_tokenizer("Hello, world! It's 2 o'clock.") == [
        b"Hello", b",", b"world", b"!", b"It", b"'", b"s", b"2", b"o", b"'", b"clock", b"."]
    data = tmp_path / "data.txt"
    data.write_bytes(b"the cat sat 12\nthe dog sat 7\nthe cat\n")
    vocab_path = str(tmp_path / "vocab")
    data_utils.create_vocabulary(vocab_path, str(data), 7)
    # special symbols, then by falling count (the:3, cat:2, sat:2, "00"/"0" once), digits -> 0;
    # equal counts keep first-seen order; cut at 7 lines
    assert (tmp_path / "vocab").read_bytes() == b"_PAD\n_GO\n_EOS\n_UNK\nthe\ncat\nsat\n"
    vocab, rev = data_utils.initialize_vocabulary(vocab_path)
    assert rev == [b"_PAD", b"_GO", b"_EOS", b"_UNK", b"the", b"cat", b"sat"]
    assert vocab[b"sat"] == 6
    assert data_utils.sentence_to_token_ids("the dog sat.", vocab) == [4, 3, 6, 3]
    ids_path = tmp_path / "ids"
    data_utils.data_to_token_ids(str(data), str(ids_path), vocab_path)
    assert ids_path.read_text() == "4 5 6 3\n4 3 6 3\n4 5\n"
    import pytest

    with pytest.raises(ValueError, match="not found"):
        data_utils.initialize_vocabulary(str(tmp_path / "missing"))


def test_translate_seq2seq_model_batches_steps_and_decay(tmp_path):
    # 09/05 builds ``seq2seq_model.Seq2SeqModel`` twice in one variable scope (training, then
    # forward-only with reused variables) and drives it with get_batch/step.
    import pytest

    from tideflow.models.rnn.translate import seq2seq_model

    buckets = [(3, 4), (5, 6)]
    with tf.Graph().as_default(), tf.Session() as sess:
        with tf.variable_scope("translate_model") as scope:
            model = seq2seq_model.Seq2SeqModel(
                12, 10, buckets, size=8, num_layers=2, max_gradient_norm=5.0, batch_size=2,
                learning_rate=0.5, learning_rate_decay_factor=0.9, num_samples=4)
            scope.reuse_variables()
            test_model = seq2seq_model.Seq2SeqModel(
                12, 10, buckets, size=8, num_layers=2, max_gradient_norm=5.0, batch_size=2,
                learning_rate=0.5, learning_rate_decay_factor=0.9, num_samples=4,
                forward_only=True)
        n_trainable = len(tf.trainable_variables())
        sess.run(tf.global_variables_initializer())

        enc, dec, weights = model.get_batch({0: [([5, 6], [7, 8])]}, 0)
        # encoder: padded to 3 then reversed; decoder: GO, target, PAD to 4, time-major
        np.testing.assert_array_equal(np.array(enc), [[0, 0], [6, 6], [5, 5]])
        np.testing.assert_array_equal(np.array(dec), [[1, 1], [7, 7], [8, 8], [0, 0]])
        # a weight is 0 where the next decoder input is PAD, and at the last position
        np.testing.assert_array_equal(np.array(weights), [[1, 1], [1, 1], [0, 0], [0, 0]])
        assert enc[0].dtype == np.int32 and weights[0].dtype == np.float32

        norm, loss, none = model.step(sess, enc, dec, weights, 0, False)
        assert none is None and np.isfinite(loss) and norm > 0
        assert sess.run(model.global_step) == 1
        sess.run(model.learning_rate_decay_op)
        np.testing.assert_allclose(sess.run(model.learning_rate), 0.45, rtol=1e-6)

        _, test_loss, logits = test_model.step(sess, enc, dec, weights, 0, True)
        # forward-only outputs are projected to the whole target vocabulary
        assert len(logits) == 4 and logits[0].shape == (2, 10) and np.isfinite(test_loss)
        assert len(tf.trainable_variables()) == n_trainable  # the test model reused them
        with pytest.raises(ValueError, match="Encoder length must be equal to the one in "
                                             "bucket, 2 != 3."):
            model.step(sess, enc[:2], dec, weights, 0, False)
