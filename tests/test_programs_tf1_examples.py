"""Regressions found by running public TF 1.x example programs against tideflow."""


import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_reduce_sum_gradient_of_unknown_rank_input_fed_a_scalar():
    # linear regression fitted one scalar sample at a time through a shape-less placeholder
    x = tf.placeholder("float")
    w = tf.Variable(2.0)
    cost = tf.reduce_sum(tf.pow(x * w, 2)) / 4
    step = tf.train.GradientDescentOptimizer(0.1).minimize(cost)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step, {x: 1.0})
        assert sess.run(w) == pytest.approx(2.0 - 0.1 * 1.0)


def test_integer_division_by_zero_of_an_empty_tensor_divides_nothing():
    x = tf.placeholder(tf.int32)
    ops = [tf.floormod(x, 0), tf.floordiv(x, 0), tf.truncatemod(x, 0), tf.truncatediv(x, 0)]
    with tf.Session() as sess:
        for out in sess.run(ops, {x: np.zeros([0], np.int32)}):
            assert out.shape == (0,)
        with pytest.raises(tf.errors.InvalidArgumentError, match="division by zero"):
            sess.run(ops[0], {x: [1]})


def test_contrib_data_keeps_the_tf1_dataset_classes():
    # TF 1.2-1.5 input pipelines: tf.contrib.data.Dataset.from_tensor_slices(...).batch(...)
    data = tf.placeholder(tf.float32, [None, 2])
    dataset = tf.contrib.data.Dataset.from_tensor_slices((data, tf.range(3))).batch(2)
    iterator = dataset.make_initializable_iterator()
    x, y = iterator.get_next()
    with tf.Session() as sess:
        sess.run(iterator.initializer, {data: np.arange(6).reshape(3, 2)})
        np.testing.assert_array_equal(sess.run(y), [0, 1])
        np.testing.assert_array_equal(sess.run(x), [[4, 5]])
    assert tf.contrib.data.TextLineDataset is tf.data.TextLineDataset
    assert tf.contrib.data.Iterator is tf.data.Iterator


def test_logging_tensor_hook_prints_float32_values_as_numpy_does(caplog):
    # TF's "loss = 2.6780713, step = 1": values are %s-formatted NumPy scalars, not floats
    loss = tf.constant(2.6780712604522705, tf.float32)
    hook = tf.train.LoggingTensorHook({"loss": loss}, every_n_iter=1)
    with caplog.at_level("INFO", logger="tensorflow"), \
            tf.train.MonitoredSession(hooks=[hook]) as sess:
        sess.run(loss)
    assert "loss = 2.6780713" in caplog.text, caplog.text


def test_contrib_predictor_runs_a_saved_model_signature(tmp_path):
    export_dir = str(tmp_path / "model")
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable([[1.0], [2.0]])
    y = tf.matmul(x, w, name="y")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.saved_model.simple_save(sess, export_dir, inputs={"x": x}, outputs={"y": y})
    predict_fn = tf.contrib.predictor.from_saved_model(export_dir)
    out = predict_fn({"x": [[1.0, 1.0], [0.0, 3.0]]})
    np.testing.assert_allclose(out["y"], [[3.0], [6.0]])
    assert sorted(predict_fn.feed_tensors) == ["x"]
    with pytest.raises(ValueError, match="Got unexpected keys in input_dict"):
        predict_fn({"z": [[1.0, 1.0]]})
    named = tf.contrib.predictor.from_saved_model(
        export_dir, input_names={"inp": "x:0"}, output_names={"out": "y:0"})
    np.testing.assert_allclose(named({"inp": [[2.0, 0.0]]})["out"], [[2.0]])
    # TF 1.15 looks the key up in a proto map: an unknown one gives an empty signature
    assert tf.contrib.predictor.from_saved_model(
        export_dir, signature_def_key="nope").feed_tensors == {}


def test_slim_learning_train_starts_the_input_queue_runners(tmp_path):
    # slim walkthrough: tf.train.batch feeding slim.learning.train used to wait forever
    import threading

    data = tf.constant(np.random.RandomState(0).rand(32, 3).astype(np.float32))
    batch = tf.train.batch([data], batch_size=8, enqueue_many=True)
    loss = tf.reduce_mean(tf.square(tf.contrib.slim.fully_connected(batch, 1)))
    train_op = tf.contrib.slim.learning.create_train_op(
        loss, tf.train.GradientDescentOptimizer(0.1))
    result = {}

    def train():
        result["loss"] = tf.contrib.slim.learning.train(
            train_op, logdir=str(tmp_path), number_of_steps=3, graph=loss.graph)

    worker = threading.Thread(target=train, daemon=True)
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "slim.learning.train is waiting on an unfed queue"
    assert np.isfinite(result["loss"])
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith("-3")


def _checkpoint_of_a_scaled_input(directory):
    """A checkpoint of ``w = 3`` at global step 7; returns its path."""
    w = tf.Variable(3.0, name="w")
    step = tf.train.get_or_create_global_step()
    with tf.Session() as sess:
        sess.run([w.initializer, step.initializer, tf.assign(step, 7)])
        return tf.train.Saver().save(sess, str(directory / "model.ckpt"), global_step=7)


def test_slim_evaluation_evaluate_once_runs_num_evals_and_writes_summaries(tmp_path):
    path = _checkpoint_of_a_scaled_input(tmp_path)
    with tf.Graph().as_default():
        w = tf.Variable(0.0, name="w")
        tf.train.get_or_create_global_step()
        value = w * tf.range(1.0, 3.0)  # [w, 2w]
        mean, update = tf.metrics.mean(value)
        tf.summary.scalar("mean", mean)
        result = tf.contrib.slim.evaluation.evaluate_once(
            "", path, str(tmp_path / "eval"), num_evals=3, eval_op=[update],
            final_op=[mean, tf.contrib.training.get_or_create_eval_step()])
    assert result[0] == pytest.approx(4.5)
    assert result[1] == 3  # the eval step counts each run of eval_op
    events = list(tf.train.summary_iterator(
        tf.gfile.Glob(str(tmp_path / "eval" / "events.*"))[0]))
    scalars = [(e.step, v.simple_value) for e in events for v in e.summary.value]
    assert scalars == [(7, pytest.approx(4.5))]


def test_contrib_training_evaluate_repeatedly_stops_after_max_evaluations(tmp_path):
    _checkpoint_of_a_scaled_input(tmp_path)
    with tf.Graph().as_default():
        w = tf.Variable(0.0, name="w")
        total = tf.Variable(0.0, collections=[tf.GraphKeys.LOCAL_VARIABLES])
        add = tf.assign_add(total, w)
        values = tf.contrib.training.evaluate_repeatedly(
            str(tmp_path), eval_ops=add, final_ops=total, eval_interval_secs=0,
            hooks=[tf.contrib.training.StopAfterNEvalsHook(2)], max_number_of_evaluations=1)
    assert values == pytest.approx(6.0)


def test_contrib_util_stateless_and_signal_namespaces():
    proto = tf.contrib.util.make_tensor_proto([[1, 2]], dtype=tf.int32)
    np.testing.assert_array_equal(tf.contrib.util.make_ndarray(proto), [[1, 2]])
    assert tf.contrib.util.constant_value(tf.constant(3) * 2) is None  # TF 1.15: None
    assert tf.contrib.util.constant_value(tf.cast(tf.constant(3), tf.int64)) == 3
    seed = tf.constant([1, 2], tf.int64)
    a = tf.contrib.stateless.stateless_random_uniform([3], seed)
    b = tf.contrib.stateless.stateless_random_normal([3], seed)
    frames = tf.contrib.signal.frame(tf.range(6), frame_length=2, frame_step=2)
    with tf.Session() as sess:
        first, again = sess.run(a), sess.run(a)
        np.testing.assert_array_equal(first, again)
        assert ((0 <= first) & (first < 1)).all()
        assert sess.run(b).shape == (3,)
        np.testing.assert_array_equal(sess.run(frames), [[0, 1], [2, 3], [4, 5]])


def test_saved_model_loader_accepts_the_bytes_path_estimators_return(tmp_path):
    # Estimator.export_savedmodel returns bytes (as TF's does); programs pass it on to load
    export_dir = str(tmp_path / "model")
    x = tf.placeholder(tf.float32, [None], name="x")
    with tf.Session() as sess:
        tf.saved_model.simple_save(sess, export_dir, inputs={"x": x}, outputs={"y": x * 2})
    as_bytes = export_dir.encode()
    assert tf.saved_model.loader.maybe_saved_model_directory(as_bytes)
    with tf.Session(graph=tf.Graph()) as sess:
        tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING], as_bytes)
        np.testing.assert_allclose(sess.run("mul:0", {"x:0": [1.5]}), [3.0])
    np.testing.assert_allclose(
        tf.contrib.predictor.from_saved_model(as_bytes)({"x": [2.0]})["y"], [4.0])


def test_feed_dict_key_may_be_a_nested_tuple_of_tensors():
    # char-rnn sampling feeds {model.initial_state: state} with a MultiRNNCell state tuple
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(2) for _ in range(2)])
    state = cell.zero_state(1, tf.float32)
    total = tf.add_n([tf.reduce_sum(t) for t in tf.contrib.framework.nest.flatten(state)])
    with tf.Session() as sess:
        value = sess.run(state)
        value = tuple(type(s)(s.c + 1.0, s.h + 2.0) for s in value)
        assert sess.run(total, {state: value}) == pytest.approx(2 * 2 * (1.0 + 2.0))
        with pytest.raises(ValueError, match="Key had 4 elements, but value had 2"):
            sess.run(total, {state: [value[0]]})


def test_legacy_seq2seq_rnn_decoder_and_basic_rnn_seq2seq():
    cell = tf.nn.rnn_cell.GRUCell(3)
    enc = [tf.constant(np.ones((2, 4), np.float32) * i) for i in range(3)]
    dec = [tf.zeros([2, 3]) for _ in range(4)]
    outputs, state = tf.contrib.legacy_seq2seq.basic_rnn_seq2seq(enc, dec, cell)
    assert len(outputs) == 4 and outputs[0].shape.as_list() == [2, 3]
    names = sorted(v.op.name for v in tf.trainable_variables())
    assert names[0].startswith("basic_rnn_seq2seq/rnn/gru_cell/")
    assert names[-1].startswith("basic_rnn_seq2seq/rnn_decoder/gru_cell/")
    # with a loop_function every step after the first reads the previous output instead
    seen = []

    def loop(prev, i):
        seen.append(i)
        return prev * 0.0

    outs, _ = tf.contrib.legacy_seq2seq.rnn_decoder(
        dec, state, tf.nn.rnn_cell.GRUCell(3), loop_function=loop, scope="greedy")
    assert seen == [1, 2, 3]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first, last = sess.run([outputs[0], outs[-1]])
        assert first.shape == (2, 3) and np.isfinite(last).all()


def test_legacy_embedding_rnn_seq2seq_with_buckets_trains_and_decodes():
    # the translate tutorial's shape: int32 [batch] step inputs, model_with_buckets, projection
    enc = [tf.placeholder(tf.int32, [None]) for _ in range(3)]
    dec = [tf.placeholder(tf.int32, [None]) for _ in range(4)]
    weights = [tf.ones([2]) for _ in range(3)]
    w = tf.get_variable("proj_w", [8, 6])
    b = tf.get_variable("proj_b", [6])

    def seq2seq(e, d, decode):
        return tf.contrib.legacy_seq2seq.embedding_rnn_seq2seq(
            e, d, tf.nn.rnn_cell.GRUCell(8), 6, 6, embedding_size=5,
            output_projection=(w, b), feed_previous=decode)

    def loss(labels, logits):
        return tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=tf.matmul(logits, w) + b)

    outputs, losses = tf.contrib.legacy_seq2seq.model_with_buckets(
        enc, dec, dec[1:], weights, [(2, 2), (3, 3)], lambda e, d: seq2seq(e, d, False),
        softmax_loss_function=loss)
    with tf.variable_scope(tf.get_variable_scope(), reuse=True):
        decoded, _ = seq2seq(enc, dec[:3], True)
    assert [len(o) for o in outputs] == [2, 3] and len(losses) == 2
    names = sorted(v.op.name for v in tf.trainable_variables())
    assert "embedding_rnn_seq2seq/rnn/embedding_wrapper/embedding" in names
    assert "embedding_rnn_seq2seq/embedding_rnn_decoder/embedding" in names
    assert len(names) == 12  # one set of weights shared by both buckets and the decoder
    step = tf.train.AdamOptimizer(0.05).minimize(losses[1])
    feed = {p: [1, 2] for p in enc + dec}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(losses[1], feed)
        for _ in range(20):
            sess.run(step, feed)
        assert sess.run(losses[1], feed) < first
        assert sess.run(decoded[-1], feed).shape == (2, 8)
    with pytest.raises(ValueError, match="encoder_inputs \\(3\\) must be at least"):
        tf.contrib.legacy_seq2seq.model_with_buckets(enc, dec, dec[1:], weights, [(4, 3)],
                                                     lambda e, d: seq2seq(e, d, False))


def test_legacy_embedding_attention_seq2seq_builds_the_translate_model():
    enc = [tf.placeholder(tf.int32, [None]) for _ in range(3)]
    dec = [tf.placeholder(tf.int32, [None]) for _ in range(2)]
    outputs, _ = tf.contrib.legacy_seq2seq.embedding_attention_seq2seq(
        enc, dec, tf.nn.rnn_cell.GRUCell(4), 7, 5, embedding_size=3)
    names = {v.op.name.split("embedding_attention_seq2seq/")[1] for v in tf.trainable_variables()}
    for name in ("embedding_attention_decoder/attention_decoder/AttnW_0",
                 "embedding_attention_decoder/attention_decoder/AttnV_0",
                 "embedding_attention_decoder/attention_decoder/Attention_0/kernel",
                 "embedding_attention_decoder/attention_decoder/AttnOutputProjection/kernel"):
        assert name in names, sorted(names)
    with tf.variable_scope(tf.get_variable_scope(), reuse=True):
        greedy, _ = tf.contrib.legacy_seq2seq.embedding_attention_seq2seq(
            enc, dec, tf.nn.rnn_cell.GRUCell(4), 7, 5, embedding_size=3,
            feed_previous=tf.constant(True))
    feed = {p: [1, 4] for p in enc + dec}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out, fed_back = sess.run([outputs, greedy], feed)
    assert [o.shape for o in out] == [(2, 5), (2, 5)]  # logits over the decoder symbols
    np.testing.assert_allclose(fed_back[0], out[0], rtol=1e-5)  # the first step reads dec[0]


def test_projector_config_is_written_next_to_the_event_files(tmp_path):
    # word2vec_basic / mnist_with_projector: config.embeddings.add() then visualize_embeddings
    from google.protobuf import text_format
    from tideflow.contrib.tensorboard.plugins import projector

    writer = tf.summary.FileWriter(str(tmp_path))
    config = projector.ProjectorConfig()
    embedding_conf = config.embeddings.add()
    embedding_conf.tensor_name = "embedding:0"
    embedding_conf.metadata_path = "metadata.tsv"
    embedding_conf.sprite.single_image_dim.extend([28, 28])
    projector.visualize_embeddings(writer, config)
    writer.close()
    with open(tmp_path / "projector_config.pbtxt") as f:
        text = f.read()
    assert 'tensor_name: "embedding:0"' in text
    assert text_format.Parse(text, projector.ProjectorConfig()) == config
    assert tf.contrib.tensorboard.plugins.projector is projector


def test_slim_nets_vgg_16_end_points_and_fine_tuning_variables():
    from tideflow.contrib.slim.nets import vgg

    slim = tf.contrib.slim
    images = tf.placeholder(tf.float32, [None, 224, 224, 3])
    with slim.arg_scope(vgg.vgg_arg_scope()):
        logits, end_points = vgg.vgg_16(images, num_classes=5, is_training=False)
    assert logits.shape.as_list() == [None, 5]
    assert list(end_points)[:3] == ["vgg_16/conv1/conv1_1", "vgg_16/conv1/conv1_2",
                                    "vgg_16/pool1"]
    assert len(end_points) == 21 and end_points["vgg_16/fc8"] is logits
    assert end_points["vgg_16/pool5"].shape.as_list() == [None, 7, 7, 512]
    assert len(slim.get_variables_to_restore(exclude=["vgg_16/fc8"])) == 30
    assert len(tf.losses.get_regularization_losses()) == 16


def test_slim_utils_convert_collection_to_dict_uses_the_layer_aliases():
    x = tf.zeros([1, 4])
    out = tf.contrib.slim.fully_connected(x, 2, scope="fc", outputs_collections="ends")
    plain = tf.identity(x, name="plain")
    tf.add_to_collection("ends", plain)
    ends = tf.contrib.slim.utils.convert_collection_to_dict("ends", clear_collection=True)
    assert list(ends.items()) == [("fc", out), ("plain", plain)]
    assert tf.get_collection("ends") == []


def test_slim_nets_alexnet_v2_runs():
    from tideflow.contrib.slim.nets import alexnet

    slim = tf.contrib.slim
    images = tf.placeholder(tf.float32, [2, 224, 224, 3])
    with slim.arg_scope(alexnet.alexnet_v2_arg_scope()):
        logits, end_points = alexnet.alexnet_v2(images, num_classes=3, is_training=False)
    assert end_points["alexnet_v2/pool5"].shape.as_list() == [2, 5, 5, 256]
    assert end_points["alexnet_v2/conv1"].shape.as_list() == [2, 54, 54, 64]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = sess.run(logits, {images: np.random.RandomState(0).rand(2, 224, 224, 3)})
    assert out.shape == (2, 3) and np.isfinite(out).all()
