"""Regressions found by running TF 1.x example programs (tensorflow/examples, tensorflow/models
tutorials) against tideflow; each test is a small program of our own in the same style."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_contrib_learn_base_load_csv_reads_the_0x_header_csv(tmp_path):
    # 0.x's load_csv(filename, target_dtype[, target_column, has_header]): float64 features
    path = tmp_path / "flowers.csv"
    path.write_text("3,2,a,b\n1.5,2.0,1\n3.0,4.5,0\n0.5,0.25,1\n")
    ds = tf.contrib.learn.datasets.base.load_csv(filename=str(path), target_dtype=int)
    np.testing.assert_array_equal(ds.data, [[1.5, 2.0], [3.0, 4.5], [0.5, 0.25]])
    assert ds.data.dtype == np.float64
    np.testing.assert_array_equal(ds.target, [1, 0, 1])
    plain = tmp_path / "plain.csv"
    plain.write_text("7,1.0,2.0\n8,3.0,4.0\n")
    ds = tf.contrib.learn.datasets.base.load_csv(str(plain), np.int32, target_column=0,
                                                 has_header=False)
    np.testing.assert_array_equal(ds.target, [7, 8])
    np.testing.assert_array_equal(ds.data, [[1.0, 2.0], [3.0, 4.0]])



def test_contrib_learn_datasets_table_maps_names_to_loaders():
    # resnet-style programs index the loader table by name: DATASETS['mnist'](directory)
    table = tf.contrib.learn.datasets.DATASETS
    assert {"iris", "boston", "mnist"} <= set(table)
    assert table["mnist"] is tf.contrib.learn.datasets.load_mnist
    iris = table["iris"]()
    assert iris.data.shape == (150, 4)
    np.testing.assert_array_equal(np.bincount(iris.target), [50, 50, 50])


def test_bow_encoder_averages_the_embeddings_of_the_non_padding_ids():
    ids = tf.constant([[1, 2, 0, 0], [3, 3, 1, 0], [0, 0, 0, 0]])
    table = np.arange(12, dtype=np.float32).reshape(4, 3) * 0.5 - 1.0
    enc = tf.contrib.layers.bow_encoder(ids, vocab_size=4, embed_dim=3,
                                        initializer=tf.constant_initializer(table))
    dense = tf.contrib.layers.bow_encoder(ids, vocab_size=4, embed_dim=3, sparse_lookup=False,
                                          initializer=tf.constant_initializer(table),
                                          scope="dense")
    assert [v.op.name for v in tf.model_variables()] == ["bow_encoder/embeddings",
                                                          "dense/embeddings"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, got_dense = sess.run([enc, dense])
    want = np.stack([table[[1, 2]].mean(0), table[[3, 3, 1]].mean(0), table[0]])
    np.testing.assert_allclose(got, want, rtol=1e-6)
    ids_np = np.array([[1, 2, 0, 0], [3, 3, 1, 0], [0, 0, 0, 0]])
    np.testing.assert_allclose(got_dense, table[ids_np].mean(1), rtol=1e-6)


def test_contrib_learn_predict_hands_the_model_fn_label_placeholders_of_fits_signature(
        tmp_path):
    # a (features, target) model_fn that one-hots its target before checking the mode
    seen = []

    def model_fn(features, target):
        seen.append(target)
        target = tf.one_hot(target, 3, 1.0, 0.0)
        logits = tf.contrib.layers.fully_connected(features, 3, activation_fn=None)
        loss = tf.losses.softmax_cross_entropy(target, logits)
        train_op = tf.contrib.layers.optimize_loss(
            loss, tf.train.get_global_step(), optimizer="SGD", learning_rate=0.5)
        return {"class": tf.argmax(logits, 1)}, loss, train_op

    x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]] * 4, dtype=np.float32)
    y = np.array([0, 1, 2] * 4, dtype=np.int64)
    est = tf.contrib.learn.Estimator(model_fn=model_fn, model_dir=str(tmp_path))
    est.fit(x, y, steps=150, batch_size=12)
    classes = [p["class"] for p in est.predict(x[:3], as_iterable=True)]
    assert classes == [0, 1, 2]
    fed, placeholder = seen[0], seen[-1]
    assert placeholder.op.type == "Placeholder"
    assert placeholder.dtype == fed.dtype
    assert placeholder.get_shape().as_list() == [None]


def test_contrib_learn_modules_import_by_their_tf_source_paths():
    # convert_to_records-style: `from tensorflow.contrib.learn.python.learn.datasets import mnist`
    from tideflow.contrib.learn.python.learn.datasets import base, mnist
    from tideflow.contrib.learn.python.learn.datasets.mnist import read_data_sets
    from tideflow.contrib.learn.python.learn.metric_spec import MetricSpec

    assert MetricSpec is tf.contrib.learn.MetricSpec

    assert read_data_sets is mnist.read_data_sets
    assert mnist.read_data_sets is tf.contrib.learn.datasets.mnist.read_data_sets
    assert base.load_csv_without_header is tf.contrib.learn.datasets.base.load_csv_without_header
    fake = read_data_sets("unused", fake_data=True)
    images, labels = fake.train.next_batch(3, fake_data=True)
    assert np.asarray(images).shape == (3, 784) and len(labels) == 3


def test_tensorflow_python_lib_io_and_platform_modules_import(tmp_path):
    # saved_model_half_plus_two / random_forest-style imports of tensorflow.python modules
    from tideflow.python.lib.io import file_io
    from tideflow.python.platform import app, gfile, tf_logging

    assert app.run is tf.app.run and gfile.Exists is tf.gfile.Exists
    assert tf_logging.info is tf.logging.info
    target = str(tmp_path / "a" / "b")
    file_io.recursive_create_dir(target)
    file_io.write_string_to_file(target + "/f.txt", "contents")
    assert file_io.file_exists(target + "/f.txt")
    assert file_io.read_file_to_string(target + "/f.txt") == "contents"


def test_meta_graph_records_the_tf_version_tf_importers_compare():
    # TF's import_scoped_meta_graph compares tensorflow_version with "1.9" (LooseVersion /
    # packaging.version); a non-version string there made TF fail on tideflow's .meta files
    from packaging import version

    tf.Variable(1.0, name="v")
    mgd = tf.train.export_meta_graph()
    info = mgd.meta_info_def
    assert version.parse(info.tensorflow_version) >= version.parse("1.9")
    assert info.tensorflow_version == tf.VERSION
    assert info.tensorflow_git_version == tf.GIT_VERSION


def test_saved_model_assets_are_packed_under_tensorflows_type_name(tmp_path):
    asset = tmp_path / "vocab.txt"
    asset.write_text("a\nb\n")
    export = str(tmp_path / "export")
    path = tf.constant(str(asset))
    tf.add_to_collection(tf.GraphKeys.ASSET_FILEPATHS, path)
    x = tf.placeholder(tf.float32, name="x")
    tf.identity(x * 2.0, name="y")
    builder = tf.saved_model.builder.SavedModelBuilder(export)
    with tf.Session() as sess:
        builder.add_meta_graph_and_variables(
            sess, ["serve"], assets_collection=tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS))
    builder.save(as_text=True)
    text = (tmp_path / "export" / "saved_model.pbtxt").read_text()
    assert 'type_url: "type.googleapis.com/tensorflow.AssetFileDef"' in text
    assert "tideflow.AssetFileDef" not in text
    with tf.Graph().as_default(), tf.Session() as sess:
        mg = tf.saved_model.loader.load(sess, ["serve"], export)
        (packed,) = mg.collection_def["saved_model_assets"].any_list.value
        name = tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS)[0].name
        # the graph round-trips with its asset tensor and signature-free outputs
        assert sess.run(name).decode().endswith("vocab.txt")
        assert sess.run("y:0", {"x:0": 3.0}) == 6.0
    assert packed.type_url.endswith("tensorflow.AssetFileDef")


def _audio_clip():
    n = np.arange(64)
    return (np.sin(n * 0.7) * 0.5 + np.cos(n * 2.1) * 0.25).astype(np.float32)[:, None]


def test_audio_spectrogram_matches_numpy_and_tf():
    # speech_commands' front end: gen_audio_ops.audio_spectrogram, periodic Hann windows
    from tideflow.python.ops import gen_audio_ops

    x = _audio_clip()
    power = gen_audio_ops.audio_spectrogram(x, window_size=16, stride=8, magnitude_squared=True)
    mag = gen_audio_ops.audio_spectrogram(x, window_size=12, stride=20)
    assert power.get_shape().as_list() == [1, 7, 9] and mag.get_shape().as_list() == [1, 3, 9]
    with tf.Session() as sess:
        p, m = sess.run([power, mag])
    hann = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(16) / 16)
    want = np.abs(np.fft.rfft(x[16:32, 0].astype(np.float64) * hann)) ** 2
    np.testing.assert_allclose(p[0, 2], want, rtol=1e-5)
    # values printed by TensorFlow 2.21's gen_audio_ops.audio_spectrogram on this clip
    np.testing.assert_allclose(p[0, 2, :5], [0.03251036, 1.7326846, 3.753124, 0.4958114,
                                             0.08618698], rtol=1e-5)
    np.testing.assert_allclose(m[0, :, 3], [0.8156725, 0.88765734, 0.8041419], rtol=1e-5)


def test_mfcc_matches_tf_on_a_small_filterbank():
    # TF 1.x speech_commands imports the ops as contrib.framework.python.ops.audio_ops
    from tideflow.contrib.framework.python.ops import audio_ops as gen_audio_ops

    spec = gen_audio_ops.audio_spectrogram(_audio_clip(), window_size=16, stride=8,
                                           magnitude_squared=True)
    mfcc = gen_audio_ops.mfcc(spec, 8000, upper_frequency_limit=3000.0,
                              lower_frequency_limit=100.0, filterbank_channel_count=8,
                              dct_coefficient_count=5)
    assert mfcc.get_shape().as_list() == [1, 7, 5]
    with tf.Session() as sess:
        got = sess.run(mfcc)
    # values printed by TensorFlow 2.21's gen_audio_ops.mfcc for the same spectrogram
    np.testing.assert_allclose(got[0, :2], [[-15.457218, -12.862955, -12.98065, -11.524449,
                                             -8.7619915],
                                            [-15.3935175, -12.937694, -12.960656, -11.490171,
                                             -8.805294]], rtol=1e-5)
    with pytest.raises(ValueError, match="rank 3"):
        gen_audio_ops.mfcc(tf.zeros([4, 9]), 8000)


def test_validation_monitor_logs_each_evaluation(tmp_path, caplog):
    import logging

    rng = np.random.RandomState(0)
    x = rng.rand(40, 2).astype(np.float32)
    y = (x[:, 0] > x[:, 1]).astype(np.int64)
    monitor = tf.contrib.learn.monitors.ValidationMonitor(x, y, every_n_steps=1)
    clf = tf.contrib.learn.DNNClassifier(
        hidden_units=[4], n_classes=2, model_dir=str(tmp_path),
        feature_columns=[tf.contrib.layers.real_valued_column("", dimension=2)])
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        clf.fit(x=x, y=y, steps=3, monitors=[monitor])
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Validation (")]
    assert lines, "ValidationMonitor evaluated without logging 'Validation (step N): ...'"
    # the metric values print as TF's str() of float32, not float64 reprs
    text = lines[0].split("loss = ")[1].split(",")[0]
    assert text == str(np.float32(float(text)))


def test_estimator_evaluate_logs_tfs_timestamped_start_and_finish(tmp_path, caplog):
    import logging
    import re

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [], initializer=tf.constant_initializer(2.0))
        loss = tf.reduce_mean(tf.square(features["x"] * w - labels))
        step = tf.assign_add(tf.train.get_global_step(), 1)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=step)

    x = {"x": np.array([1.0, 2.0], np.float32)}
    y = np.array([1.0, 1.0], np.float32)
    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    est.train(tf.estimator.inputs.numpy_input_fn(x, y, num_epochs=1, shuffle=False))
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        result = est.evaluate(tf.estimator.inputs.numpy_input_fn(x, y, num_epochs=1,
                                                                 shuffle=False))
    assert result["loss"] == pytest.approx(((2.0 - 1.0) ** 2 + (4.0 - 1.0) ** 2) / 2)
    messages = [r.getMessage() for r in caplog.records]
    assert any(re.fullmatch(r"Starting evaluation at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", m)
               for m in messages), messages
    assert any(re.fullmatch(r"Finished evaluation at \d{4}-\d\d-\d\d-\d\d:\d\d:\d\d", m)
               for m in messages), messages
