"""tf.data: datasets against the equivalent Python computation, iterators, files, a pipeline."""

import collections
import gc
import pathlib
import threading
import time

import numpy as np
import pytest

import tideflow as tf
from tideflow import data
from tideflow.framework.record_io import TFRecordOptions, TFRecordWriter

D = data.Dataset


def _all(d, one_shot=True, n=10_000):
    """Every element of ``d`` (as Session.run returns them), until OutOfRangeError."""
    with tf.Graph().as_default():
        ds = d() if callable(d) else d
        it = ds.make_one_shot_iterator() if one_shot else ds.make_initializable_iterator()
        nxt = it.get_next()
        out = []
        with tf.Session() as sess:
            if not one_shot:
                sess.run(it.initializer)
            for _ in range(n):
                try:
                    out.append(sess.run(nxt))
                except tf.errors.OutOfRangeError:
                    break
    return out


def _ints(xs):
    return [int(x) for x in xs]


# ------------------------------------------------------------------------------------------
# sources and transformations vs Python
# ------------------------------------------------------------------------------------------


def test_range_forms():
    assert _ints(_all(lambda: D.range(5))) == list(range(5))
    assert _ints(_all(lambda: D.range(2, 5))) == [2, 3, 4]
    assert _ints(_all(lambda: D.range(10, 0, -3))) == [10, 7, 4, 1]


def test_slices_map_filter_batch_vs_python():
    xs = np.arange(20, dtype=np.int32)

    def make():
        return (D.from_tensor_slices(xs).map(lambda x: x * x + 1)
                .filter(lambda x: tf.equal(x % 3, 2)).batch(4))

    want = [x * x + 1 for x in xs if (x * x + 1) % 3 == 2]
    got = _all(make)
    assert [list(b) for b in got] == [want[i:i + 4] for i in range(0, len(want), 4)]
    assert got[0].dtype == np.int32


def test_nested_structures_and_static_shapes():
    Pair = collections.namedtuple("Pair", ["x", "y"])
    with tf.Graph().as_default():
        d = D.from_tensor_slices({"img": np.zeros((6, 4, 3), np.float32),
                                  "lab": np.arange(6, dtype=np.int64),
                                  "list_is_a_tensor": [[1, 2]] * 6})
        assert d.output_types == {"img": tf.float32, "lab": tf.int64,
                                  "list_is_a_tensor": tf.int32}
        assert d.output_shapes["img"].as_list() == [4, 3]
        assert d.output_classes["lab"] is tf.Tensor
        d2 = d.map(lambda e: Pair(e["img"], (e["lab"], e["list_is_a_tensor"])))
        assert isinstance(d2.output_types, Pair)
        b = d2.batch(4)
        assert b.output_shapes.x.as_list() == [None, 4, 3]
        assert b.output_shapes.y[1].as_list() == [None, 2]
        bd = d2.batch(4, drop_remainder=True)
        assert bd.output_shapes.x.as_list() == [4, 4, 3]
        it = b.make_initializable_iterator()
        nxt = it.get_next()
        assert isinstance(nxt, Pair) and nxt.x.get_shape().as_list() == [None, 4, 3]
        nd = bd.make_one_shot_iterator().get_next()
        assert nd.y[0].get_shape().as_list() == [4]
        with tf.Session() as sess:
            sess.run(it.initializer)
            v = sess.run(nxt)
            assert v.x.shape == (4, 4, 3) and list(v.y[0]) == [0, 1, 2, 3]
            assert sess.run(nxt).x.shape == (2, 4, 3)
            assert sess.run(nd).x.shape == (4, 4, 3)
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(nd)


def test_map_unpacks_tuples_and_list_results():
    got = _all(lambda: D.from_tensor_slices((np.arange(3), np.arange(3) * 10))
               .map(lambda a, b: [a + b, a - b]))
    assert [tuple(map(int, g)) for g in got] == [(0, 0), (11, -9), (22, -18)]


def test_zip_concatenate_take_skip_repeat_shard_enumerate():
    def make():
        a = D.range(5)
        b = D.range(10, 20)
        return D.zip((a, b)).concatenate(D.zip((D.range(3), D.range(3))))

    assert [tuple(map(int, x)) for x in _all(make)] == (
        list(zip(range(5), range(10, 15))) + [(0, 0), (1, 1), (2, 2)])
    assert _ints(_all(lambda: D.range(10).skip(3).take(4).repeat(2))) == [3, 4, 5, 6] * 2
    assert _ints(_all(lambda: D.range(10).shard(3, 1))) == [1, 4, 7]
    assert _ints(_all(lambda: D.range(3).take(-1).repeat(3))) == [0, 1, 2] * 3
    assert [tuple(map(int, x)) for x in _all(lambda: D.range(5, 8).enumerate(2))] == [
        (2, 5), (3, 6), (4, 7)]
    assert _ints(_all(lambda: D.range(4).apply(lambda d: d.skip(1)))) == [1, 2, 3]


def test_flat_map_interleave_unbatch_padded_batch():
    assert _ints(_all(lambda: D.range(1, 4).flat_map(lambda x: D.range(x)))) == [
        0, 0, 1, 0, 1, 2]
    got = _ints(_all(lambda: D.range(1, 6).interleave(
        lambda x: D.from_tensors(x).repeat(6), cycle_length=2, block_length=4)))
    assert got == [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 4, 4,
                   5, 5, 5, 5, 5, 5]
    assert _ints(_all(lambda: D.range(7).batch(3).unbatch())) == list(range(7))

    def padded():
        # as TF 1.x: the padding value has the component's dtype (int64 here)
        d = D.range(1, 5).map(lambda x: tf.fill([x], x)).padded_batch(
            2, [None], padding_values=np.int64(-1))
        assert d.output_shapes.as_list() == [None, None]
        return d

    got = _all(padded)
    np.testing.assert_array_equal(got[0], [[1, -1], [2, 2]])
    np.testing.assert_array_equal(got[1], [[3, 3, 3, -1], [4, 4, 4, 4]])
    fixed = _all(lambda: D.range(1, 3).map(lambda x: tf.fill([x], x)).padded_batch(2, [3]))
    np.testing.assert_array_equal(fixed[0], [[1, 0, 0], [2, 2, 0]])


def test_from_generator_and_shape_errors():
    def gen(n):
        for i in range(n):
            yield i, [i] * i

    got = _all(lambda: D.from_generator(gen, (tf.int64, tf.int32), ([], [None]), args=(3,)))
    assert [(int(a), list(b)) for a, b in got] == [(0, []), (1, [1]), (2, [2, 2])]

    def bad():
        yield [1, 2]
        yield [1, 2, 3]

    with tf.Graph().as_default():
        nxt = D.from_generator(bad, tf.int32, [2]).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            assert list(sess.run(nxt)) == [1, 2]
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(nxt)


def test_cache_in_memory_and_file(tmp_path):
    calls = []

    def gen():
        calls.append(1)
        yield from range(4)

    assert _ints(_all(lambda: D.from_generator(gen, tf.int64).cache().repeat(3))) == [
        0, 1, 2, 3] * 3
    assert len(calls) == 1
    path = str(tmp_path / "cache")
    assert _ints(_all(lambda: D.from_generator(gen, tf.int64).cache(path))) == [0, 1, 2, 3]
    assert _ints(_all(lambda: D.from_generator(gen, tf.int64).cache(path))) == [0, 1, 2, 3]
    assert len(calls) == 2  # the second program read the cache file


def test_parallel_map_keeps_order_and_prefetch():
    got = _ints(_all(lambda: D.range(50).map(lambda x: x * 3, num_parallel_calls=4)
                     .prefetch(3)))
    assert got == [x * 3 for x in range(50)]


def test_sparse_slices_map_batch():
    st = tf.SparseTensorValue(indices=[[0, 0], [1, 2], [2, 1]], values=[1.0, 2.0, 3.0],
                              dense_shape=[3, 4])
    with tf.Graph().as_default():
        d = D.from_tensor_slices(st)
        assert d.output_classes is tf.SparseTensor
        assert d.output_shapes.as_list() == [4]
        d = d.map(lambda s: tf.SparseTensor(s.indices, s.values * 2, s.dense_shape)).batch(2)
        nxt = d.make_one_shot_iterator().get_next()
        assert isinstance(nxt, tf.SparseTensor)
        with tf.Session() as sess:
            v = sess.run(nxt)
            assert v.indices.tolist() == [[0, 0], [1, 2]]
            assert v.values.tolist() == [2.0, 4.0]
            assert v.dense_shape.tolist() == [2, 4]


# ------------------------------------------------------------------------------------------
# iterators
# ------------------------------------------------------------------------------------------


def test_end_of_sequence_then_reinitialize():
    with tf.Graph().as_default():
        n = tf.placeholder(tf.int64, [])
        it = D.range(n).make_initializable_iterator()
        nxt = it.get_next()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError):
                sess.run(nxt)
            sess.run(it.initializer, {n: 2})
            assert [sess.run(nxt), sess.run(nxt)] == [0, 1]
            with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
                sess.run(nxt)
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(nxt)
            sess.run(it.initializer, {n: 3})
            assert [sess.run(nxt) for _ in range(3)] == [0, 1, 2]


def test_reinitializable_iterator_switches_datasets():
    with tf.Graph().as_default():
        train = D.range(100).map(lambda x: tf.cast(x, tf.float32)).batch(10)
        val = D.from_tensor_slices(np.arange(5, dtype=np.float32)).batch(10)
        it = data.Iterator.from_structure(train.output_types, train.output_shapes)
        nxt = it.get_next()
        t_init, v_init = it.make_initializer(train), it.make_initializer(val)
        with pytest.raises(ValueError, match="initializer"):
            it.initializer  # noqa: B018
        with pytest.raises(TypeError):
            it.make_initializer(D.range(3))
        with tf.Session() as sess:
            sess.run(t_init)
            assert list(sess.run(nxt)) == list(range(10))
            sess.run(v_init)
            assert list(sess.run(nxt)) == list(range(5))
            sess.run(t_init)
            assert list(sess.run(nxt)) == list(range(10))


def test_feedable_iterator_from_string_handle():
    with tf.Graph().as_default():
        a = D.range(10).make_one_shot_iterator()
        b = D.range(100, 110).make_initializable_iterator()
        handle = tf.placeholder(tf.string, [])
        it = data.Iterator.from_string_handle(handle, a.output_types, a.output_shapes)
        nxt = it.get_next()
        with tf.Session() as sess:
            ha, hb = sess.run([a.string_handle(), b.string_handle()])
            sess.run(b.initializer)
            assert sess.run(nxt, {handle: ha}) == 0
            assert sess.run(nxt, {handle: hb}) == 100
            assert sess.run(nxt, {handle: ha}) == 1


def test_map_with_captured_tensor_and_variable():
    with tf.Graph().as_default():
        scale = tf.placeholder(tf.int64, [])
        v = tf.Variable(np.int64(100))
        d = D.range(4).map(lambda x: x * scale + v)
        it = d.make_initializable_iterator()
        nxt = it.get_next()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(it.initializer, {scale: 3})
            assert [sess.run(nxt) for _ in range(4)] == [100, 103, 106, 109]


def test_one_shot_iterator_rejects_placeholders():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.int64, [])
        with pytest.raises(ValueError, match="placeholder"):
            D.range(p).make_one_shot_iterator()


def test_errors_in_map_propagate():
    with tf.Graph().as_default():
        d = D.from_tensor_slices(np.array([1.0, np.inf, 2.0], np.float32)).map(
            lambda x: tf.check_numerics(x, "bad value"))
        nxt = d.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            assert sess.run(nxt) == 1.0
            with pytest.raises(tf.errors.InvalidArgumentError, match="bad value"):
                sess.run(nxt)
            assert sess.run(nxt) == 2.0  # map's iterator goes on after an error
        got = _ints(_all(lambda: D.from_tensor_slices(np.array([1.0, np.inf, 2.0])).map(
            lambda x: tf.check_numerics(x, "bad")).apply(data.experimental.ignore_errors())))
        assert got == [1, 2]


def _shuffled(seed_graph, seed_op, epochs=2):
    with tf.Graph().as_default():
        tf.set_random_seed(seed_graph)
        d = D.range(20).shuffle(8, seed=seed_op).repeat(epochs)
        it = d.make_initializable_iterator()
        nxt = it.get_next()
        with tf.Session() as sess:
            sess.run(it.initializer)
            first = [int(sess.run(nxt)) for _ in range(20 * epochs)]
            sess.run(it.initializer)
            again = [int(sess.run(nxt)) for _ in range(20)]
    return first, again


def test_seeded_shuffle_is_deterministic_across_programs():
    a, a_again = _shuffled(7, None)
    b, _ = _shuffled(7, None)
    assert a == b
    assert sorted(a[:20]) == list(range(20)) and a[:20] != list(range(20))
    assert a[:20] != a[20:]  # reshuffled each epoch
    assert a_again == a[:20]  # re-initializing starts the same sequence again
    c, _ = _shuffled(8, None)
    assert c != a


def test_prefetch_thread_stops_on_session_close():
    before = {t for t in threading.enumerate() if t.name.startswith("tf_data_prefetch")}
    with tf.Graph().as_default():
        nxt = D.range(10**9).prefetch(4).make_one_shot_iterator().get_next()
        sess = tf.Session()
        assert sess.run(nxt) == 0
        mine = {t for t in threading.enumerate()
                if t.name.startswith("tf_data_prefetch")} - before
        assert len(mine) == 1
        sess.close()
    deadline = time.monotonic() + 5
    while any(t.is_alive() for t in mine) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not any(t.is_alive() for t in mine)
    gc.collect()


# ------------------------------------------------------------------------------------------
# files
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("compression", [None, "GZIP", "ZLIB"])
def test_tfrecord_dataset(tmp_path, compression):
    paths = []
    for k in range(3):
        p = str(tmp_path / f"r{k}.tfrecord")
        with TFRecordWriter(p, TFRecordOptions(compression)) as w:
            for i in range(5):
                w.write(f"f{k}-r{i}".encode() * (1 + i * 1000))
        paths.append(p)
    want = [f"f{k}-r{i}".encode() * (1 + i * 1000) for k in range(3) for i in range(5)]
    got = _all(lambda: data.TFRecordDataset(paths, compression_type=compression or ""))
    assert got == want
    inter = _all(lambda: data.TFRecordDataset(paths, compression, num_parallel_reads=2))
    assert sorted(inter) == sorted(want) and inter[:2] == [want[0], want[5]]
    got = _all(lambda: data.TFRecordDataset(D.from_tensor_slices(paths), compression)
               .batch(4))
    assert [r for b in got for r in b] == want


@pytest.mark.parametrize("compression", [None, "GZIP"])
def test_tfrecord_small_and_large_records_mixed(tmp_path, compression):
    from tideflow.framework.record_io import tf_record_iterator

    rng = np.random.RandomState(0)
    sizes = [10, 20000, 300000, 5, 0, 70000, 3, 1 << 20, 17]
    want = [rng.bytes(n) for n in sizes]
    p = str(tmp_path / "mixed.tfrecord")
    with TFRecordWriter(p, TFRecordOptions(compression)) as w:
        for r in want:
            w.write(r)
    got = _all(lambda: data.TFRecordDataset(p, compression, buffer_size=4096))
    assert got == want == list(tf_record_iterator(p, TFRecordOptions(compression)))


def test_tfrecord_corruption_is_data_loss(tmp_path):
    p = str(tmp_path / "bad.tfrecord")
    with TFRecordWriter(p) as w:
        w.write(b"hello world")
    path = pathlib.Path(p)
    raw = bytearray(path.read_bytes())
    raw[14] ^= 0xFF
    path.write_bytes(bytes(raw))
    with tf.Graph().as_default():
        nxt = data.TFRecordDataset(p).make_one_shot_iterator().get_next()
        with tf.Session() as sess, pytest.raises(tf.errors.DataLossError):
            sess.run(nxt)


def test_text_line_and_fixed_length_datasets(tmp_path):
    p = tmp_path / "a.txt"
    p.write_bytes(b"one\ntwo\r\n\nlast")
    assert _all(lambda: data.TextLineDataset(str(p))) == [b"one", b"two", b"", b"last"]
    f = tmp_path / "b.bin"
    f.write_bytes(b"HH" + b"abcdefghij" + b"FFF")
    got = _all(lambda: data.FixedLengthRecordDataset(str(f), 5, header_bytes=2,
                                                      footer_bytes=3))
    assert got == [b"abcde", b"fghij"]
    missing = str(tmp_path / "nope.txt")
    with tf.Graph().as_default():
        nxt = data.TextLineDataset(missing).make_one_shot_iterator().get_next()
        with tf.Session() as sess, pytest.raises(tf.errors.NotFoundError):
            sess.run(nxt)


def test_list_files(tmp_path):
    for n in ("a.txt", "b.txt", "c.csv"):
        (tmp_path / n).write_text(n)
    got = _all(lambda: D.list_files(str(tmp_path / "*.txt"), shuffle=False))
    assert got == [str(tmp_path / "a.txt").encode(), str(tmp_path / "b.txt").encode()]


# ------------------------------------------------------------------------------------------
# an input pipeline feeding training
# ------------------------------------------------------------------------------------------


def _example(x, y):
    return tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(float_list=tf.train.FloatList(value=x)),
        "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[y])),
    })).SerializeToString()


def test_example_pipeline_trains_digits(tmp_path):
    from sklearn.datasets import load_digits

    digits = load_digits()
    xs = (digits.data / 16.0).astype(np.float32)
    ys = digits.target.astype(np.int64)
    rng = np.random.RandomState(0)
    order = rng.permutation(len(xs))
    train_idx, test_idx = order[:1400], order[1400:]
    path = str(tmp_path / "digits.tfrecord")
    with TFRecordWriter(path, TFRecordOptions("GZIP")) as w:
        for i in train_idx:
            w.write(_example(xs[i], int(ys[i])))

    def parse(record):
        f = tf.parse_single_example(record, {"x": tf.FixedLenFeature([64], tf.float32),
                                             "y": tf.FixedLenFeature([], tf.int64)})
        return f["x"], f["y"]

    with tf.Graph().as_default():
        tf.set_random_seed(1)
        d = (data.TFRecordDataset(path, compression_type="GZIP").map(parse, num_parallel_calls=2)
             .shuffle(500).repeat(20).batch(32).prefetch(2))
        it = d.make_one_shot_iterator()
        x, y = it.get_next()
        assert x.get_shape().as_list() == [None, 64]
        w = tf.Variable(tf.zeros([64, 10]))
        b = tf.Variable(tf.zeros([10]))
        logits = tf.matmul(x, w) + b
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                            logits=logits))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        tx = tf.placeholder(tf.float32, [None, 64])
        pred = tf.argmax(tf.matmul(tx, w) + b, 1)
        steps = 0
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            while True:
                try:
                    sess.run(train)
                except tf.errors.OutOfRangeError:
                    break
                steps += 1
            acc = np.mean(sess.run(pred, {tx: xs[test_idx]}) == ys[test_idx])
    assert steps == -(-1400 * 20 // 32)
    assert acc >= 0.9, acc
