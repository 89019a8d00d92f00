"""tf.contrib.slim's data pipeline (tfexample_decoder, dataset, parallel_reader,
dataset_data_provider, prefetch_queue) over real TFRecord files.

Expected values are the records the tests write; the record keys ("file:offset") and the
summary names are the ones tf_slim gives for the same files on real TF (observed once).
"""

import os

import numpy as np
import pytest

import tideflow as tf

slim = tf.contrib.slim
_IMAGES = np.random.RandomState(0).randint(0, 255, size=(6, 4, 5, 3)).astype(np.uint8)


def _feature(kind, values):
    if kind == "bytes":
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
    if kind == "int":
        return tf.train.Feature(int64_list=tf.train.Int64List(value=values))
    return tf.train.Feature(float_list=tf.train.FloatList(value=values))


def _write_records(root):
    """Two shards of three examples: even ones hold raw pixels, odd ones PNG bytes."""
    with tf.Graph().as_default(), tf.Session() as sess:
        pngs = [sess.run(tf.image.encode_png(tf.constant(im))) for im in _IMAGES]
    for shard in range(2):
        with tf.python_io.TFRecordWriter(os.path.join(root, f"train-{shard}.tfrecord")) as w:
            for i in range(shard * 3, shard * 3 + 3):
                raw = i % 2 == 0
                example = tf.train.Example(features=tf.train.Features(feature={
                    "image/encoded": _feature("bytes", [_IMAGES[i].tobytes() if raw
                                                        else pngs[i]]),
                    "image/format": _feature("bytes", [b"raw" if raw else b"png"]),
                    "image/class/label": _feature("int", [i]),
                    "image/object/bbox/ymin": _feature("float", [0.1 * i, 0.2]),
                    "image/object/bbox/xmin": _feature("float", [0.0, 0.1]),
                    "image/object/bbox/ymax": _feature("float", [0.5, 0.6]),
                    "image/object/bbox/xmax": _feature("float", [0.7, 0.8 + i]),
                }))
                w.write(example.SerializeToString())
    return os.path.join(root, "train-*.tfrecord")


def _decoder():
    keys_to_features = {
        "image/encoded": tf.FixedLenFeature((), tf.string, default_value=""),
        "image/format": tf.FixedLenFeature((), tf.string, default_value="png"),
        "image/class/label": tf.FixedLenFeature([], tf.int64, default_value=-1),
        "image/object/bbox/ymin": tf.VarLenFeature(tf.float32),
        "image/object/bbox/xmin": tf.VarLenFeature(tf.float32),
        "image/object/bbox/ymax": tf.VarLenFeature(tf.float32),
        "image/object/bbox/xmax": tf.VarLenFeature(tf.float32),
    }
    items_to_handlers = {
        "image": slim.tfexample_decoder.Image(shape=[4, 5, 3]),
        "label": slim.tfexample_decoder.Tensor("image/class/label"),
        "bbox": slim.tfexample_decoder.BoundingBox(["ymin", "xmin", "ymax", "xmax"],
                                                   "image/object/bbox/"),
    }
    return slim.tfexample_decoder.TFExampleDecoder(keys_to_features, items_to_handlers)


def _boxes(i):
    return np.array([[0.1 * i, 0.0, 0.5, 0.7], [0.2, 0.1, 0.6, 0.8 + i]], np.float32)


def test_dataset_data_provider_batches_through_a_prefetch_queue(tmp_path):
    pattern = _write_records(str(tmp_path))
    dataset = slim.dataset.Dataset(data_sources=pattern, reader=tf.TFRecordReader,
                                   decoder=_decoder(), num_samples=6,
                                   items_to_descriptions={"image": "a 4x5 color image"},
                                   num_classes=6)
    assert dataset.num_classes == 6 and dataset.reader is tf.TFRecordReader
    with tf.Graph().as_default():
        provider = slim.dataset_data_provider.DatasetDataProvider(dataset, shuffle=False,
                                                                  num_epochs=1)
        assert sorted(provider.list_items()) == ["bbox", "image", "label", "record_key"]
        assert provider.num_samples() == 6
        image, label, bbox, key = provider.get(["image", "label", "bbox", "record_key"])
        assert image.shape.as_list() == [4, 5, 3] and image.dtype == tf.uint8
        assert bbox.shape.as_list() == [None, 4] and label.shape.as_list() == []
        # the key comes out of an untyped queue of unknown shape: batch needs it scalar
        batch = tf.train.batch([tf.to_float(image) / 255.0, label, tf.reshape(key, [])],
                               batch_size=2)
        images, labels, keys = slim.prefetch_queue.prefetch_queue(batch, capacity=2).dequeue()
        assert images.shape.as_list() == [2, 4, 5, 3]
        summaries = [op.name for op in tf.get_default_graph().get_operations()
                     if op.name.endswith("_full")]
        assert summaries == ["parallel_read/filenames/fraction_of_32_full",
                             "parallel_read/fraction_of_256_full",
                             "batch/fraction_of_32_full", "prefetch_queue/fraction_of_2_full"]
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            seen, seen_keys = [], []
            for _ in range(3):
                got_images, got_labels, got_keys = sess.run([images, labels, keys])
                for im, lb in zip(got_images, got_labels):
                    np.testing.assert_allclose(im, _IMAGES[lb] / 255.0, rtol=1e-6)
                seen += list(got_labels)
                seen_keys += [k.decode().rsplit(os.sep, 1)[1] for k in got_keys]
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=5)
    assert seen == [0, 1, 2, 3, 4, 5]
    assert seen_keys == ["train-0.tfrecord:0", "train-0.tfrecord:315", "train-0.tfrecord:706",
                         "train-1.tfrecord:0", "train-1.tfrecord:391", "train-1.tfrecord:706"]


def test_single_pass_read_decodes_every_record_once(tmp_path):
    pattern = _write_records(str(tmp_path))
    decoder = _decoder()
    assert sorted(decoder.list_items()) == ["bbox", "image", "label"]
    with tf.Graph().as_default():
        _, data = slim.parallel_reader.single_pass_read(pattern, tf.TFRecordReader)
        image, label, bbox = decoder.decode(data, ["image", "label", "bbox"])
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            labels = []
            with pytest.raises(tf.errors.OutOfRangeError):
                while True:
                    im, lb, bb = sess.run([image, label, bbox])
                    np.testing.assert_array_equal(im, _IMAGES[lb])
                    np.testing.assert_allclose(bb, _boxes(lb), rtol=1e-6)
                    labels.append(lb)
            coord.request_stop()
            coord.join(threads)
    assert labels == [0, 1, 2, 3, 4, 5]


def test_item_handlers_as_tf_slim():
    # the values tf_slim decodes for this example on real TF are these same ones
    td = slim.tfexample_decoder
    example = tf.train.Example(features=tf.train.Features(feature={
        "values": _feature("float", [1, 2, 3, 4, 5, 6]), "dims": _feature("int", [2, 3]),
        "ids": _feature("int", [0, 2, 4]), "weights": _feature("float", [0.5, 1.5, 2.5]),
        "empty": _feature("float", []), "fallback": _feature("float", [9.0]),
        "words": _feature("bytes", [b"b", b"a", b"zz"]),
    })).SerializeToString()
    keys_to_features = {name: tf.VarLenFeature(dtype) for name, dtype in [
        ("values", tf.float32), ("dims", tf.int64), ("ids", tf.int64), ("weights", tf.float32),
        ("empty", tf.float32), ("fallback", tf.float32), ("words", tf.string)]}
    keys_to_features["fixed"] = tf.FixedLenFeature([2, 1], tf.int64, default_value=[[7], [8]])
    with tf.Graph().as_default():
        table = tf.contrib.lookup.index_table_from_tensor(tf.constant(["a", "b", "c"]))
        handlers = {
            "matrix": td.Tensor("values", shape_keys="dims"),
            "flat": td.Tensor("values", default_value=-1.0),
            "shaped": td.Tensor("values", shape=[3, 2]),
            "sparse": td.SparseTensor("ids", "weights", shape=[5]),
            "dense": td.SparseTensor("ids", "weights", shape=[5], densify=True,
                                     default_value=-1.0),
            "backup": td.BackupHandler(td.Tensor("empty"), td.Tensor("fallback")),
            "primary": td.BackupHandler(td.Tensor("weights"), td.Tensor("fallback")),
            "callback": td.ItemHandlerCallback(
                ["values", "dims"], lambda d: tf.reduce_sum(d["values"].values) * tf.cast(
                    tf.reduce_sum(d["dims"].values), tf.float32)),
            "looked": td.LookupTensor("words", table, default_value=""),
            "fixed": td.Tensor("fixed"),
        }
        items = sorted(handlers)
        outputs = dict(zip(items, td.TFExampleDecoder(keys_to_features, handlers).decode(
            tf.constant(example), items)))
        with tf.Session() as sess:
            sess.run(tf.tables_initializer())
            got = sess.run(outputs)
    np.testing.assert_array_equal(got["matrix"], [[1, 2, 3], [4, 5, 6]])
    np.testing.assert_array_equal(got["flat"], [1, 2, 3, 4, 5, 6])
    np.testing.assert_array_equal(got["shaped"], [[1, 2], [3, 4], [5, 6]])
    assert got["sparse"].indices.tolist() == [[0], [2], [4]]
    assert got["sparse"].dense_shape.tolist() == [5]
    np.testing.assert_array_equal(got["dense"], [0.5, -1, 1.5, -1, 2.5])
    np.testing.assert_array_equal(got["backup"], [9.0])
    np.testing.assert_array_equal(got["primary"], [0.5, 1.5, 2.5])
    assert got["callback"] == pytest.approx(105.0)
    np.testing.assert_array_equal(got["looked"], [1, 0, -1])
    np.testing.assert_array_equal(got["fixed"], [[7], [8]])


def test_invalid_uses_raise_as_slim(tmp_path):
    td = slim.tfexample_decoder
    with pytest.raises(ValueError, match="BoundingBox expects 4 keys but got 3"):
        td.BoundingBox(["a", "b", "c"])
    with pytest.raises(ValueError, match="Cannot specify both shape_keys and shape"):
        td.Tensor("x", shape_keys="d", shape=[2])
    with pytest.raises(ValueError, match="Primary handler is of type"):
        td.BackupHandler("x", td.Tensor("y"))
    with pytest.raises(ValueError, match="No data files found in"):
        slim.parallel_reader.get_data_files(str(tmp_path / "none-*.tfrecord"))
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match=r"common_queue.dtypes must be \[tf.string"):
            slim.parallel_reader.ParallelReader(tf.TFRecordReader, tf.FIFOQueue(4, [tf.int32]))
        provider = slim.data_provider.DataProvider({"a": tf.constant(1)}, num_samples=1)
        with pytest.raises(ValueError, match="items must be a list or tuple"):
            provider.get("a")
        with pytest.raises(ValueError, match=r"Item \[b\] is invalid"):
            provider.get(["b"])
        pattern = _write_records(str(tmp_path))
        items = {"record_key": td.Tensor("image/class/label")}
        dataset = slim.dataset.Dataset(pattern, tf.TFRecordReader, td.TFExampleDecoder(
            {"image/class/label": tf.FixedLenFeature([], tf.int64)}, items), 6, {})
        with pytest.raises(ValueError, match="`record_key` cannot also be used"):
            slim.dataset_data_provider.DatasetDataProvider(dataset)


def test_slim_learning_trains_on_a_shuffled_parallel_pipeline(tmp_path):
    # the models/research recipe: provider (two readers, shuffled) -> batch -> prefetch ->
    # network -> slim.learning.train, whose Supervisor starts the queue runners
    pattern = _write_records(str(tmp_path))
    dataset = slim.dataset.Dataset(pattern, tf.TFRecordReader, _decoder(), 6, {})
    with tf.Graph().as_default():
        provider = slim.dataset_data_provider.DatasetDataProvider(
            dataset, num_readers=2, common_queue_capacity=8, common_queue_min=2, seed=1)
        image, label = provider.get(["image", "label"])
        images, labels = tf.train.batch([tf.to_float(image) / 255.0, label], batch_size=3)
        images, labels = slim.prefetch_queue.prefetch_queue([images, labels]).dequeue()
        logits = slim.fully_connected(slim.flatten(images), 6, activation_fn=None)
        tf.losses.sparse_softmax_cross_entropy(labels, logits)
        tf.summary.scalar("loss", tf.losses.get_total_loss())
        train_op = slim.learning.create_train_op(tf.losses.get_total_loss(),
                                                 tf.train.AdamOptimizer(0.05))
        final = slim.learning.train(train_op, str(tmp_path / "logs"), number_of_steps=20,
                                    save_summaries_secs=1)
    assert np.isfinite(final)
    reader = tf.train.load_checkpoint(tf.train.latest_checkpoint(str(tmp_path / "logs")))
    assert reader.get_tensor("global_step") == 20
    with tf.Graph().as_default():  # one shuffled epoch holds every record once
        provider = slim.dataset_data_provider.DatasetDataProvider(
            dataset, num_readers=2, num_epochs=1, common_queue_min=1, seed=3)
        label, = provider.get(["label"])
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            labels = []
            with pytest.raises(tf.errors.OutOfRangeError):
                while True:
                    labels.append(sess.run(label))
            coord.request_stop()
            coord.join(threads)
    assert sorted(labels) == [0, 1, 2, 3, 4, 5]


def test_slim_summaries_model_analyzer_and_queue_runners(capsys):
    # names, printed lines and sizes as tf_slim gives them on real TF
    with tf.Graph().as_default():
        x = tf.constant([[0.0, 1.0], [2.0, 0.0]], name="acts")
        made = [slim.summaries.add_scalar_summary(tf.reduce_sum(x), "total", prefix="p"),
                slim.summaries.add_scalar_summary(tf.reduce_mean(x), print_summary=True),
                slim.summaries.add_histogram_summary(x, prefix="h"),
                slim.summaries.add_zero_fraction_summary(x),
                *slim.summaries.add_zero_fraction_summaries([x], prefix="z")]
        assert [op.op.name for op in made] == [
            "p/total", "Print", "h/acts", "acts/Fraction_of_Zero_Values",
            "z/acts/Fraction_of_Zero_Values"]
        assert sorted(t.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)) == [
            "Print:0", "acts/Fraction_of_Zero_Values:0", "h/acts:0", "p/total:0",
            "z/acts/Fraction_of_Zero_Values:0"]
        w = tf.get_variable("w", [3, 3, 8, 16])
        b = tf.get_variable("b", [16], dtype=tf.float64)
        assert slim.model_analyzer.analyze_vars([w, b], print_info=True) == (1168, 4736)
        assert capsys.readouterr().out.splitlines()[3:6] == [
            "w:0 (float32_ref 3x3x8x16) [1152, bytes: 4608]",
            "b:0 (float64_ref 16) [16, bytes: 128]", "Total size of variables: 1168"]
        assert slim.model_analyzer.analyze_ops(tf.get_default_graph()) > 0
        queue = tf.FIFOQueue(4, [tf.int32], shapes=[[]])
        tf.train.add_queue_runner(tf.train.QueueRunner(queue, [queue.enqueue(7)]))
        with tf.Session() as sess:
            with slim.queues.QueueRunners(sess):
                assert sess.run(queue.dequeue()) == 7
                with pytest.raises(slim.queues.NestedQueueRunnerError), \
                        slim.queues.QueueRunners(sess):
                    pass
            summary = tf.Summary.FromString(sess.run(tf.summary.merge_all()))
    values = {v.tag: v.simple_value for v in summary.value if v.HasField("simple_value")}
    assert values == {"p/total": 3.0, "Mean_1": 0.75, "acts/Fraction_of_Zero_Values": 0.5,
                      "z/acts/Fraction_of_Zero_Values": 0.5}
