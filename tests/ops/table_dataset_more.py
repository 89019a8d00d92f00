"""Op-table rows for the further tf.data ops (scan, take_while, unique, group_by_window,
group_by_reducer, directed interleave, RandomDataset, dense_to_sparse_batch, cardinality,
CSV reading, TFRecord writing, Optional). Semantics in detail: tests/test_data_more.py."""

import os
import tempfile

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tests.ops.table_dataset import _row

D = tf.data.Dataset
X = tf.data.experimental


def _run(fetch, init=None):
    with tf.Session() as sess:
        if init is not None:
            sess.run(init)
        return sess.run(fetch)


def _cardinality_check():
    with tf.Graph().as_default():
        cases = [(D.range(10), 10), (D.range(10).batch(3), 4),
                 (D.range(10).batch(3, drop_remainder=True), 3), (D.range(5).repeat(), -1),
                 (D.range(10).filter(lambda x: x > 3), -2), (D.range(7).shard(3, 0), 3),
                 (D.range(4).repeat(3).skip(2).take(5), 5),
                 (D.range(4).apply(X.assert_cardinality(4)), 4)]
        got = _run([X.cardinality(d) for d, _ in cases])
    assert [int(g) for g in got] == [w for _, w in cases]


def _random_check():
    def draw(seed):
        with tf.Graph().as_default():
            nxt = X.RandomDataset(seed).take(5).batch(5).make_one_shot_iterator().get_next()
            return _run(nxt)

    a, b, c = draw(3), draw(3), draw(4)
    assert a.dtype == np.int64 and a.shape == (5,)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def _csv_file():
    d = tempfile.mkdtemp()
    p = os.path.join(d, "x.csv")
    with open(p, "w") as f:
        f.write('a,b,c\n1,"x,y",2.5\n3,,\n')
    return p


def _sqlite_file():
    import sqlite3

    p = os.path.join(tempfile.mkdtemp(), "t.db")
    with sqlite3.connect(p) as conn:
        conn.execute("CREATE TABLE t (a INTEGER, b TEXT)")
        conn.executemany("INSERT INTO t VALUES (?, ?)", [(2, "two"), (1, "one")])
    return p


def _tfrecord_check():
    d = tempfile.mkdtemp()
    p = os.path.join(d, "out.tfrecord")
    with tf.Graph().as_default():
        w = X.TFRecordWriter(p)
        op = w.write(D.from_tensor_slices(["r1", "record two"]))
        _run(op)
    assert list(tf.python_io.tf_record_iterator(p)) == [b"r1", b"record two"]


def _optional_check():
    with tf.Graph().as_default():
        it = D.range(2).make_one_shot_iterator()
        opt = X.get_next_as_optional(it)
        has, val = opt.has_value(), opt.get_value()
        o2 = X.Optional.from_value((tf.constant(1.5), tf.constant([1, 2])))
        none = X.Optional.none_from_structure(tf.int64, [])
        with tf.Session() as sess:
            got = [sess.run([has, val]) for _ in range(2)]
            assert [int(v) for _, v in got] == [0, 1] and all(h for h, _ in got)
            assert not sess.run(has)
            a, b = sess.run(o2.get_value())
            assert a == 1.5 and b.tolist() == [1, 2]
            assert not sess.run(none.has_value())
            try:
                sess.run(none.get_value())
            except tf.errors.InvalidArgumentError as e:
                assert "does not have a value" in str(e)
            else:
                raise AssertionError("get_value of an empty Optional did not fail")


def _reduce_check():
    vals = np.array([3, 1, 4, 1, 5], np.int64)
    with tf.Graph().as_default():
        total, prod = D.from_tensor_slices(vals).reduce(
            (np.int64(0), np.int64(1)), lambda s, x: (s[0] + x, s[1] * x))
        got = _run([total, prod])
    assert [int(g) for g in got] == [int(vals.sum()), int(np.prod(vals))]


def _stats_aggregator_check():
    # the aggregator set through the dataset's options collects each stage's histogram; its
    # summary is empty before any element passes
    with tf.Graph().as_default() as g:
        agg = X.StatsAggregator()
        ds = D.range(4).apply(X.latency_stats("lat")).apply(X.bytes_produced_stats("bytes"))
        opts = tf.data.Options()
        opts.experimental_stats.aggregator = agg
        it = ds.with_options(opts).make_initializable_iterator()
        nxt = it.get_next()
        summary = agg.get_summary()
        assert "SetStatsAggregatorDataset" in {op.type for op in g.get_operations()}
        with tf.Session() as sess:
            assert sess.run(summary) == b""
            sess.run(it.initializer)
            assert [int(sess.run(nxt)) for _ in range(4)] == [0, 1, 2, 3]
            got = tf.Summary.FromString(sess.run(summary))
    first = got.value[0]
    assert (first.tag, first.histo.num, first.histo.sum) == ("bytes", 4.0, 32.0)
    assert [v.tag for v in got.value] == ["bytes", "lat"]


CASES = [
    _row(("ScanDataset",), lambda: D.range(5).apply(
        X.scan(np.int64(0), lambda s, x: (s + x, s * 10))), [0, 0, 10, 30, 60]),
    _row(("TakeWhileDataset",), lambda: D.range(10).apply(X.take_while(lambda x: x < 4)),
         [0, 1, 2, 3]),
    _row(("UniqueDataset",), lambda: D.from_tensor_slices([3, 1, 3, 2, 1]).apply(X.unique()),
         [3, 1, 2]),
    _row(("GroupByWindowDataset",), lambda: D.range(10).apply(X.group_by_window(
        lambda x: x % 2, lambda k, w: w.batch(3), window_size=3)),
        [[0, 2, 4], [1, 3, 5], [6, 8], [7, 9]]),
    _row(("GroupByReducerDataset",), lambda: D.range(10).apply(X.group_by_reducer(
        lambda x: x % 3, X.Reducer(lambda k: np.int64(0), lambda s, x: s + x,
                                   lambda s: s))), [18, 12, 15]),
    _row(("DirectedInterleaveDataset",), lambda: X.choose_from_datasets(
        [D.from_tensor_slices([1, 2]), D.from_tensor_slices([10, 20, 30])],
        D.from_tensor_slices(np.array([0, 1, 1, 0, 0, 1, 1], np.int64))), [1, 10, 20, 2, 30]),
    _row(("DenseToSparseBatchDataset",), lambda: D.from_tensor_slices(
        np.array([[1, 0], [2, 3]])).map(lambda r: r[:1 + tf.cast(r[0] > 1, tf.int32)]).apply(
        X.dense_to_sparse_batch(2, [None])),
        [[[[0, 0], [1, 0], [1, 1]], [1, 2, 3], [2, 2]]]),
    _row(("SparseTensorSliceDataset",), lambda: D.from_sparse_tensor_slices(
        tf.SparseTensor([[0, 1], [2, 0]], [7, 8], [3, 2])),
        [([[1]], [7], [2]), (np.zeros((0, 1), np.int64), np.zeros(0, np.int32), [2]),
         ([[0]], [8], [2])]),
    _row(("AssertCardinalityDataset",), lambda: D.range(3).apply(X.assert_cardinality(3)),
         [0, 1, 2]),
    _row(("CSVDataset",), lambda: X.CsvDataset(_csv_file(), [tf.int32, "?", 0.0],
                                               header=True),
         [(1, b"x,y", 2.5), (3, b"?", 0.0)]),
    Case("DatasetCardinality", check=_cardinality_check),
    _row(("SqlDataset",), lambda: X.SqlDataset("sqlite", _sqlite_file(),
                                               "SELECT a, b FROM t ORDER BY a",
                                               (tf.int64, tf.string)),
         [(1, b"one"), (2, b"two")]),
    Case("RandomDataset", check=_random_check),
    _row(("LatencyStatsDataset",), lambda: D.range(3).apply(X.latency_stats("l")), [0, 1, 2]),
    _row(("BytesProducedStatsDataset",), lambda: D.range(3).apply(X.bytes_produced_stats("b")),
         [0, 1, 2]),
    Case(("SetStatsAggregatorDataset", "StatsAggregatorSummary"),
         check=_stats_aggregator_check),
    Case("ReduceDataset", check=_reduce_check),
    _row(("ParallelInterleaveDataset",), lambda: D.range(1, 4).apply(X.parallel_interleave(
        lambda x: D.from_tensors(x).repeat(x), cycle_length=2)), [1, 2, 2, 3, 3, 3]),
    _row(("MapAndBatchDataset",), lambda: D.range(7).apply(
        X.map_and_batch(lambda x: x * 3, 3)), [[0, 3, 6], [9, 12, 15], [18]]),
    Case("DatasetToTFRecord", check=_tfrecord_check),
    Case(("OptionalFromValue", "OptionalNone", "OptionalHasValue", "OptionalGetValue",
          "IteratorGetNextAsOptional"), check=_optional_check),
]
