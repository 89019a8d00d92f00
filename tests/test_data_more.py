"""tf.data additions: Options, cardinality, scan/take_while/unique, group_by_window and
bucket_by_sequence_length, group_by_reducer, sample/choose_from_datasets,
dense_to_sparse_batch, assert_cardinality, CsvDataset/make_csv_dataset, TFRecordWriter,
Optional and the errors."""

import collections

import numpy as np
import pytest

import tideflow as tf

D = tf.data.Dataset
X = tf.data.experimental


def _all(dataset):
    nxt = dataset.make_one_shot_iterator().get_next()
    out = []
    with tf.Session() as sess:
        while True:
            try:
                out.append(sess.run(nxt))
            except tf.errors.OutOfRangeError:
                return out


@pytest.fixture(autouse=True)
def graph():
    with tf.Graph().as_default() as g:
        yield g


def test_constants_and_options():
    assert tf.data.AUTOTUNE == X.AUTOTUNE == -1
    assert tf.data.INFINITE_CARDINALITY == -1 and tf.data.UNKNOWN_CARDINALITY == -2
    o = tf.data.Options()
    o.experimental_deterministic = False
    o.experimental_optimization.map_parallelization = True
    o.threading.private_threadpool_size = 4
    assert o.deterministic is False and o.experimental_threading.private_threadpool_size == 4
    with pytest.raises(AttributeError):
        o.no_such_option = 1
    with pytest.raises(TypeError):
        o.threading.private_threadpool_size = "four"
    d = D.range(3).with_options(o)
    o2 = tf.data.Options()
    o2.experimental_slack = True
    d2 = d.map(lambda x: x + 1).with_options(o2)
    got = d2.options()
    assert got.experimental_slack is True and got.deterministic is False
    assert got.experimental_optimization.map_parallelization is True
    assert got.experimental_distribute.auto_shard_policy == X.AutoShardPolicy.AUTO
    assert _all(d2) == [1, 2, 3]
    with pytest.raises(TypeError, match="Options"):
        D.range(3).with_options({"x": 1})


def test_scan_state_shape_change_and_errors():
    # the state grows: traced again with a relaxed shape
    d = D.range(4).scan(tf.constant([], tf.int64), lambda s, x: (tf.concat([s, [x]], 0),
                                                                   tf.size(s)))
    assert _all(d) == [0, 1, 2, 3]
    with pytest.raises(TypeError, match="pair"):
        D.range(3).apply(X.scan(np.int64(0), lambda s, x: s + x))
    with pytest.raises(TypeError, match="types for the new state"):
        D.range(3).apply(X.scan(np.int64(0), lambda s, x: (tf.cast(s, tf.float32), x)))
    # tuple elements come as one argument (the tuple)
    pairs = D.zip((D.range(3), D.range(3)))
    assert _all(pairs.apply(X.scan(np.int64(0), lambda s, e: (s + e[0] * e[1], s)))) == [
        0, 0, 1]


def test_take_while_unique_errors():
    assert _all(D.range(5).take_while(lambda x: x < 10)) == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="scalar boolean"):
        D.range(5).take_while(lambda x: x)
    assert [v.decode() for v in _all(D.from_tensor_slices(["b", "a", "b"]).unique())] == [
        "b", "a"]
    with pytest.raises(TypeError, match="1 component"):
        D.zip((D.range(2), D.range(2))).unique()
    with pytest.raises(TypeError, match="int32, tf.int64 or tf.string"):
        D.from_tensor_slices([1.0]).unique()


def test_group_by_window_and_bucketing():
    d = D.range(7).group_by_window(lambda x: x % 3, lambda k, w: w.batch(10).map(
        lambda b: (k, tf.reduce_sum(b))), window_size_func=lambda k: k + 1)
    got = [(int(k), int(s)) for k, s in _all(d)]
    assert got == [(0, 0), (0, 3), (1, 5), (0, 6), (2, 7)]  # the partial window at the end
    # TF 1.15's words, for both arguments given as for neither
    with pytest.raises(ValueError, match="^Must pass either window_size or window_size_func.$"):
        X.group_by_window(lambda x: x, lambda k, w: w, 2, lambda k: k)
    with pytest.raises(ValueError, match="requested dtype int64"):  # TF's conversion error
        D.range(3).apply(X.group_by_window(lambda x: tf.cast(x, tf.int32), lambda k, w: w, 2))
    lengths = [1, 5, 2, 7, 3, 6, 1, 8]
    seqs = D.from_generator(lambda: (np.arange(n) + 1 for n in lengths), tf.int64, [None])
    b = seqs.apply(X.bucket_by_sequence_length(lambda s: tf.shape(s)[0], [4], [2, 2]))
    batches = _all(b)
    for batch in batches:
        nonzero = (batch != 0).sum(1)
        assert batch.shape[0] <= 2 and batch.shape[1] == nonzero.max()
        assert (nonzero < 4).all() or (nonzero >= 4).all()
    assert sorted(int(n) for batch in batches for n in (batch != 0).sum(1)) == sorted(lengths)


def test_group_by_reducer_mean_per_key():
    r = X.Reducer(lambda k: (np.float64(0.0), np.int64(0)),
                  lambda s, x: (s[0] + tf.cast(x, tf.float64), s[1] + 1),
                  # as in TF, a tuple state is unpacked into finalize_func's arguments
                  lambda total, count: total / tf.cast(count, tf.float64))
    got = _all(D.range(10).apply(X.group_by_reducer(lambda x: x % 2, r)))
    assert got == [4.0, 5.0]


def test_sample_and_choose_from_datasets():
    a = D.from_tensor_slices(np.zeros(300, np.int64))
    b = D.from_tensor_slices(np.ones(300, np.int64))
    got = np.array(_all(X.sample_from_datasets([a, b], [0.2, 0.8], seed=5)))
    assert len(got) == 600  # runs on until both inputs are exhausted
    assert 0.65 < got[:200].mean() < 0.95  # early on, mostly from b
    again = np.array(_all(X.sample_from_datasets([a, b], [0.2, 0.8], seed=5)))
    np.testing.assert_array_equal(got, again)
    short = X.choose_from_datasets([D.range(2), D.range(10, 13)],
                                   D.from_tensor_slices(np.array([0, 0, 0, 1], np.int64)),
                                   stop_on_empty_dataset=True)
    assert _all(short) == [0, 1]
    with pytest.raises(TypeError, match="int64"):
        X.choose_from_datasets([D.range(2)], D.from_tensor_slices([0]))
    with pytest.raises(TypeError, match="same type"):
        X.choose_from_datasets([D.range(2), D.from_tensor_slices([1.0])],
                               D.from_tensor_slices(np.array([0], np.int64)))


def test_dense_to_sparse_batch_and_errors():
    d = D.from_generator(lambda: iter([[1], [2, 3, 4], [5, 6]]), tf.int32, [None])
    b = d.apply(X.dense_to_sparse_batch(2, [5]))
    assert b.output_classes is tf.SparseTensor
    first, second = _all(b)
    assert first.dense_shape.tolist() == [2, 5]
    assert first.indices.tolist() == [[0, 0], [1, 0], [1, 1], [1, 2]]
    assert second.values.tolist() == [5, 6]
    too_long = d.apply(X.dense_to_sparse_batch(2, [2]))
    with pytest.raises(tf.errors.DataLossError, match="larger than the row shape"):
        _all(too_long)


def test_cardinality_and_assert_cardinality():
    with tf.Session() as sess:
        assert sess.run(D.range(10).map(lambda x: x).batch(4).cardinality()) == 3
        assert sess.run(X.cardinality(D.range(3).repeat())) == X.INFINITE_CARDINALITY
        assert sess.run(X.cardinality(D.range(3).filter(lambda x: x > 0))) == \
            X.UNKNOWN_CARDINALITY
        assert sess.run(X.cardinality(D.range(3).filter(lambda x: x > 0).apply(
            X.assert_cardinality(2)))) == 2
    with pytest.raises(tf.errors.InvalidArgumentError, match="contained only 3"):
        _all(D.range(3).apply(X.assert_cardinality(5)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="at least 3"):
        _all(D.range(3).apply(X.assert_cardinality(2)))


def test_csv_dataset_options_and_errors(tmp_path):
    p = tmp_path / "a.csv"
    p.write_text("x;y;z\n1;NA;q\n2;2.5;\n")
    d = X.CsvDataset(str(p), [tf.int64, -1.0, "dflt"], header=True, field_delim=";",
                     na_value="NA")
    assert _all(d) == [(1, -1.0, b"q"), (2, 2.5, b"dflt")]
    sel = X.CsvDataset(str(p), [0, "?"], header=True, field_delim=";", select_cols=[0, 2])
    assert _all(sel) == [(1, b"q"), (2, b"?")]
    req = X.CsvDataset(str(p), [tf.int64, tf.float32, tf.string], header=True, field_delim=";",
                       na_value="NA")
    with pytest.raises(tf.errors.InvalidArgumentError, match="required"):
        _all(req)
    bad = X.CsvDataset(str(p), [tf.int64, tf.float32], header=True, field_delim=";")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expect 2 fields"):
        _all(bad)


def test_make_csv_dataset(tmp_path):
    p = tmp_path / "train.csv"
    p.write_text("age,score,name,label\n" + "".join(
        f"{i},{i * 0.5},n{i},{i % 2}\n" for i in range(6)))
    d = X.make_csv_dataset(str(p), batch_size=3, label_name="label", num_epochs=1,
                           shuffle=False)
    batches = _all(d)
    features, label = batches[0]
    assert isinstance(features, collections.OrderedDict)
    assert list(features) == ["age", "score", "name"]
    assert features["age"].tolist() == [0, 1, 2] and features["age"].dtype == np.int32
    assert features["score"].dtype == np.float32 and label.tolist() == [0, 1, 0]
    assert len(batches) == 2
    with pytest.raises(ValueError, match="label_name"):
        X.make_csv_dataset(str(p), 2, label_name="nope")


def test_tfrecord_writer_roundtrip_and_type_error(tmp_path):
    path = str(tmp_path / "w.tfrecord")
    w = X.TFRecordWriter(path, "GZIP")
    with tf.Session() as sess:
        sess.run(w.write(D.range(3).map(lambda x: tf.as_string(x))))
    assert _all(tf.data.TFRecordDataset(path, "GZIP")) == [b"0", b"1", b"2"]
    with pytest.raises(TypeError, match="scalar `DT_STRING`"):
        w.write(D.range(3))


def test_other_helpers():
    assert _all(X.from_list([(1, "a"), (2, "b")])) == [(1, b"a"), (2, b"b")]
    assert _all(D.range(3).apply(X.copy_to_device("/gpu:0"))) == [0, 1, 2]
    X.enable_debug_mode()
    resampled = D.from_tensor_slices(np.array([0] * 50 + [1] * 50, np.int64)).apply(
        X.rejection_resample(lambda x: x, [0.0, 1.0], [0.5, 0.5], seed=1))
    got = _all(resampled)
    assert got and all(c == 1 and v == 1 for c, v in got)


def test_sql_dataset(tmp_path):
    import sqlite3

    db = str(tmp_path / "people.db")
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE people (name TEXT, age INTEGER, score REAL)")
        conn.executemany("INSERT INTO people VALUES (?, ?, ?)",
                         [("ann", 31, 1.5), ("bob", 42, 2.25)])
    d = X.SqlDataset("sqlite", db, "SELECT name, age, score FROM people ORDER BY age",
                     (tf.string, tf.int32, tf.float64))
    assert _all(d) == [(b"ann", 31, 1.5), (b"bob", 42, 2.25)]
    bad = X.SqlDataset("sqlite", db, "SELECT name FROM people", (tf.string, tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="number of columns"):
        _all(bad)
    with pytest.raises(tf.errors.InvalidArgumentError, match="not supported"):
        _all(X.SqlDataset("mysql", db, "SELECT 1", tf.int64))


def test_tables_from_datasets():
    keys = D.from_tensor_slices(["a", "b", "c"])
    table = X.index_table_from_dataset(keys)
    t2 = X.table_from_dataset(D.zip((keys, D.from_tensor_slices(np.array([10, 20, 30],
                                                                        np.int64)))),
                              default_value=np.int64(-5))
    t3 = X.index_table_from_dataset(keys, num_oov_buckets=2)
    looked = [table.lookup(tf.constant(["c", "a", "zz"])), t2.lookup(tf.constant(["b", "q"])),
              t3.lookup(tf.constant(["b", "zz"]))]
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        a, b, c = sess.run(looked)
    assert a.tolist() == [2, 0, -1] and b.tolist() == [20, -5]
    assert c[0] == 1 and 3 <= c[1] < 5


def test_pad_to_cardinality_snapshot_and_batched_features(tmp_path):
    d = D.from_tensor_slices({"x": np.array([1, 2], np.int64)}).apply(X.pad_to_cardinality(4))
    got = _all(d)
    assert [int(e["x"]) for e in got] == [1, 2, 0, 0]
    assert [bool(e["valid"]) for e in got] == [True, True, False, False]
    with pytest.raises(ValueError, match="dictionary"):
        D.range(3).apply(X.pad_to_cardinality(4))
    snap = str(tmp_path / "snap")
    first = _all(D.range(4).map(lambda x: x * 3).apply(X.snapshot(snap)))
    assert first == [0, 3, 6, 9]
    # a later pipeline reads the persisted elements back
    assert _all(D.range(4).map(lambda x: x * 3).apply(X.snapshot(snap))) == first
    path = str(tmp_path / "ex.tfrecord")
    with tf.python_io.TFRecordWriter(path) as w:
        for i in range(5):
            ex = tf.train.Example(features=tf.train.Features(feature={
                "f": tf.train.Feature(float_list=tf.train.FloatList(value=[i * 0.5])),
                "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 2]))}))
            w.write(ex.SerializeToString())
    feats = {"f": tf.FixedLenFeature([1], tf.float32), "y": tf.FixedLenFeature([], tf.int64)}
    b = X.make_batched_features_dataset(path, 2, feats, label_key="y", num_epochs=1,
                                        shuffle=False)
    batches = _all(b)
    assert [len(y) for _, y in batches] == [2, 2, 1]
    assert batches[0][0]["f"].tolist() == [[0.0], [0.5]] and batches[0][1].tolist() == [0, 1]
    with pytest.raises(NotImplementedError, match="RaggedTensor"):
        X.dense_to_ragged_batch(2)
    assert X.map_and_batch_with_legacy_function is X.map_and_batch
    assert X.to_variant(D.range(2)).dtype == tf.variant


def test_partial_groups_come_out_by_key():
    # as TF (whose groups live in an ordered map): the leftovers in ascending key order
    d = D.from_tensor_slices(np.array([5, 3, 1, 3], np.int64))
    got = _all(d.apply(X.group_by_window(lambda x: x, lambda k, w: w.batch(10), 10)))
    assert [g.tolist() for g in got] == [[1], [3, 3], [5]]
    r = X.Reducer(lambda k: np.int64(0), lambda s, x: s + x, lambda s: s)
    assert _all(d.apply(X.group_by_reducer(lambda x: x, r))) == [1, 6, 5]


def test_structures_as_type_specs():
    d = D.range(3).map(lambda x: (x, {"a": tf.zeros([2])}))
    spec = X.get_structure(d)
    assert spec[0] == tf.TensorSpec([], tf.int64)
    assert spec[1]["a"] == tf.TensorSpec([2], tf.float32)
    assert d.element_spec == spec
    it = d.make_one_shot_iterator()
    assert X.get_structure(it) == spec
    sp = D.from_tensor_slices(tf.SparseTensor([[0, 0], [1, 1]], [1.0, 2.0], [2, 3]))
    assert isinstance(X.get_structure(sp), tf.SparseTensorSpec)
    with pytest.raises(TypeError, match="Dataset"):
        X.get_structure(3)
    again = X.from_variant(X.to_variant(d), spec)
    got = _all(again)
    assert [int(x) for x, _ in got] == [0, 1, 2]
    ds_spec = tf.data.DatasetSpec.from_value(d)
    assert ds_spec.element_spec == spec and ds_spec.value_type is tf.data.Dataset
    assert X.DatasetStructure is tf.data.DatasetSpec and X.Structure is tf.TypeSpec
    assert X.TensorStructure(tf.int32, [3]) == tf.TensorSpec([3], tf.int32)
    assert X.SparseTensorStructure(tf.float32, [2, 3]) == tf.SparseTensorSpec([2, 3],
                                                                              tf.float32)


def test_optional_spec():
    o = X.Optional.from_value((tf.constant(1.5), tf.constant([1, 2])))
    assert o.element_spec == (tf.TensorSpec([], tf.float32), tf.TensorSpec([2], tf.int32))
    spec = X.OptionalStructure.from_value(o)
    assert spec.element_spec == o.element_spec and spec.value_type is X.Optional
    assert spec == X.OptionalStructure(o.element_spec)


def test_numpy_iterator():
    d = D.from_tensor_slices({"a": [1, 2, 3]}).map(lambda e: (e["a"], e["a"] * 10))
    got = list(d.as_numpy_iterator())
    assert [(int(a), int(b)) for a, b in got] == [(1, 10), (2, 20), (3, 30)]
    it = tf.data.NumpyIterator(D.range(5))
    assert next(it) == 0 and next(it) == 1
    it.close()
    with pytest.raises(StopIteration):
        next(it)
