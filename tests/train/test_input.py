"""Input producers and batching, and an end-to-end pipeline: TFRecord files of the digits
data set -> string_input_producer -> TFRecordReader -> decode -> shuffle_batch -> training."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.framework import record_io
from tideflow.ops import io_ops
from tideflow.train import input as input_lib
from tideflow.train.coordinator import Coordinator
from tideflow.train.queue_runner import start_queue_runners


class _Runners:
    """Starts the graph's queue runners for a session; stops and joins them on exit."""

    def __init__(self, sess):
        self.sess = sess
        self.coord = Coordinator()

    def __enter__(self):
        self.threads = start_queue_runners(self.sess, coord=self.coord)
        return self.coord

    def __exit__(self, *exc):
        self.coord.request_stop()
        self.coord.join(self.threads, stop_grace_period_secs=10)
        return False


def _drain(sess, fetch):
    out = []
    while True:
        try:
            out.append(sess.run(fetch))
        except tf.errors.OutOfRangeError:
            return out


def test_limit_epochs_needs_local_init_and_counts():
    with tf.Graph().as_default():
        t = input_lib.limit_epochs(tf.constant([1, 2]), num_epochs=2)
        assert len(tf.local_variables()) == 1
        assert tf.local_variables()[0].op.name == "limit_epochs/epochs"
        with pytest.raises(ValueError):
            input_lib.limit_epochs(t, num_epochs=0)
        assert input_lib.limit_epochs(t) is t
        with tf.Session() as s:
            with pytest.raises(tf.errors.FailedPreconditionError):
                s.run(t)
            s.run(tf.local_variables_initializer())
            assert s.run(t).tolist() == [1, 2]
            assert s.run(t).tolist() == [1, 2]
            with pytest.raises(tf.errors.OutOfRangeError, match="Reached limit of 2"):
                s.run(t)


def test_string_input_producer_epochs_and_shuffle():
    with tf.Graph().as_default():
        q = input_lib.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=False)
        assert q.name == "input_producer"
        assert len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)) == 1
        deq = q.dequeue()
        with tf.Session() as s:
            s.run(tf.local_variables_initializer())
            with _Runners(s):
                assert _drain(s, deq) == [b"a", b"b", b"c"] * 2
    with tf.Graph().as_default():
        q = input_lib.string_input_producer([f"f{i}" for i in range(20)], num_epochs=1, seed=5)
        deq = q.dequeue()
        with tf.Session() as s:
            s.run(tf.local_variables_initializer())
            with _Runners(s):
                got = _drain(s, deq)
        assert sorted(got) == sorted(f"f{i}".encode() for i in range(20))
        assert got != [f"f{i}".encode() for i in range(20)]
    with pytest.raises(ValueError, match="non-null"):
        input_lib.string_input_producer([])


def test_range_and_slice_input_producers():
    with tf.Graph().as_default():
        q = input_lib.range_input_producer(5, num_epochs=1, shuffle=False)
        x, y = input_lib.slice_input_producer(
            [tf.constant([[1, 2], [3, 4], [5, 6]]), tf.constant(["a", "b", "c"])],
            num_epochs=1, shuffle=False)
        assert x.get_shape().as_list() == [2]
        with tf.Session() as s:
            s.run(tf.local_variables_initializer())
            with _Runners(s):
                assert _drain(s, q.dequeue()) == list(range(5))
                got = _drain(s, [x, y])
        assert [(a.tolist(), b) for a, b in got] == [([1, 2], b"a"), ([3, 4], b"b"),
                                                      ([5, 6], b"c")]


def test_batch_dict_enqueue_many_and_smaller_final_batch():
    with tf.Graph().as_default():
        x, y = input_lib.slice_input_producer([tf.range(10), tf.range(10) * 10], num_epochs=1,
                                              shuffle=False)
        batch = input_lib.batch({"x": x, "y": y}, 4, allow_smaller_final_batch=True)
        assert set(batch) == {"x", "y"} and batch["x"].get_shape().as_list() == [None]
        many = input_lib.batch([tf.constant([[1, 2], [3, 4], [5, 6]])], 2, enqueue_many=True,
                               capacity=8)
        assert isinstance(many, tf.Tensor) and many.get_shape().as_list() == [2, 2]
        with tf.Session() as s:
            s.run(tf.local_variables_initializer())
            with _Runners(s):
                got = _drain(s, batch)
                assert s.run(many).shape == (2, 2)
        assert [b["x"].tolist() for b in got] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
        assert [b["y"].tolist() for b in got][-1] == [80, 90]


def test_batch_dynamic_pad():
    with tf.Graph().as_default():
        n = input_lib.range_input_producer(4, num_epochs=1, shuffle=False).dequeue()
        seq = tf.range(n + 1)
        batch = input_lib.batch([seq], 2, dynamic_pad=True, allow_smaller_final_batch=True)
        assert batch.get_shape().as_list() == [None, None]
        with pytest.raises(ValueError, match="fully defined"):
            input_lib.batch([seq], 2)
        with tf.Session() as s:
            s.run(tf.local_variables_initializer())
            with _Runners(s):
                got = _drain(s, batch)
        assert [g.tolist() for g in got] == [[[0, 0], [0, 1]], [[0, 1, 2, 0], [0, 1, 2, 3]]]


def test_shuffle_batch_and_joins():
    with tf.Graph().as_default():
        v = input_lib.range_input_producer(100, num_epochs=1, shuffle=False).dequeue()
        sb = input_lib.shuffle_batch([v], 10, capacity=50, min_after_dequeue=20, seed=7,
                                     num_threads=2, allow_smaller_final_batch=True)
        with pytest.raises(ValueError, match="must be bigger than min_after_dequeue"):
            input_lib.shuffle_batch([v], 10, capacity=20, min_after_dequeue=20)
        a = input_lib.range_input_producer(6, num_epochs=1, shuffle=False).dequeue()
        b = input_lib.range_input_producer(6, num_epochs=1, shuffle=False).dequeue() + 100
        bj = input_lib.batch_join([[a], [b]], 4, allow_smaller_final_batch=True)
        c = input_lib.range_input_producer(6, num_epochs=1, shuffle=False).dequeue()
        d = input_lib.range_input_producer(6, num_epochs=1, shuffle=False).dequeue() + 100
        sbj = input_lib.shuffle_batch_join([{"v": c}, {"v": d}], 4, capacity=20,
                                           min_after_dequeue=2,
                                           allow_smaller_final_batch=True)
        with tf.Session() as s:
            s.run(tf.local_variables_initializer())
            with _Runners(s):
                got = np.concatenate(_drain(s, sb)).tolist()
                joined = np.concatenate(_drain(s, bj)).tolist()
                shuffled_join = np.concatenate([r["v"] for r in _drain(s, sbj)]).tolist()
        assert sorted(got) == list(range(100)) and got != list(range(100))
        want = sorted(list(range(6)) + list(range(100, 106)))
        assert sorted(joined) == want and sorted(shuffled_join) == want


# ------------------------------------------------------------------------------------------
# end to end: digits through TFRecord files and a shuffling queue
# ------------------------------------------------------------------------------------------


def _write_digits(tmp_path, features, labels, shards, as_text):
    files = []
    rows = np.concatenate([features, labels[:, None]], axis=1).astype(np.float32)
    for k in range(shards):
        path = tmp_path / f"digits-{k}.tfrecord"
        with record_io.TFRecordWriter(str(path)) as w:
            for row in rows[k::shards]:
                w.write(" ".join(str(int(v)) for v in row).encode() if as_text
                        else row.tobytes())
        files.append(str(path))
    return files


def _decode(value, as_text):
    if not as_text:
        return tf.reshape(tf.decode_raw(value, tf.float32), [65])
    parts = tf.string_split([value], delimiter=" ").values
    return tf.reshape(tf.string_to_number(parts, out_type=tf.float32), [65])


def test_digits_pipeline_trains_softmax_regression(tmp_path):
    datasets = pytest.importorskip("sklearn.datasets", reason="needs scikit-learn's digits")
    digits = datasets.load_digits()
    features, labels = digits.data, digits.target
    as_text = not hasattr(tf, "decode_raw")  # without decode_raw, parse text records
    files = _write_digits(tmp_path, features, labels, 4, as_text)
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        filename_queue = input_lib.string_input_producer(files, seed=1)
        _, value = io_ops.TFRecordReader().read(filename_queue)
        row = _decode(value, as_text)
        image = row[:64] / 16.0
        label = tf.cast(row[64], tf.int32)
        images, label_batch = input_lib.shuffle_batch(
            [image, label], batch_size=64, capacity=1000, min_after_dequeue=300, num_threads=2,
            seed=2)
        w = tf.Variable(tf.zeros([64, 10]))
        b = tf.Variable(tf.zeros([10]))
        logits = tf.matmul(images, w) + b
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=label_batch, logits=logits))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        x_all = tf.placeholder(tf.float32, [None, 64])
        predict = tf.argmax(tf.matmul(x_all, w) + b, 1)
        with tf.Session() as s:
            s.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            with _Runners(s) as coord:
                for _ in range(250):
                    if coord.should_stop():
                        break
                    s.run(train)
            accuracy = np.mean(s.run(predict, {x_all: features / 16.0}) == labels)
    print("digits accuracy", accuracy)
    assert accuracy >= 0.9, accuracy


def test_match_filenames_once_feeds_a_producer(tmp_path):
    for name in ("b.txt", "a.txt", "skip.csv"):
        (tmp_path / name).write_text(f"{name}\n")
    with tf.Graph().as_default():
        files = input_lib.match_filenames_once(str(tmp_path / "*.txt"))
        q = input_lib.string_input_producer(files, num_epochs=1, shuffle=False)
        _, line = io_ops.TextLineReader().read(q)
        with tf.Session() as s:
            s.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            with _Runners(s):
                assert _drain(s, line) == [b"a.txt", b"b.txt"]
