"""Op-table rows for the tf.data ops (dataset, iterator and sparse-wire ops). Each row builds
a small pipeline with the op, checks its elements against Python and its static shapes; the
full semantics are in tests/test_data.py."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow import data
from tideflow.framework.record_io import TFRecordWriter

D = data.Dataset


def _elements(sess, nxt):
    out = []
    while True:
        try:
            v = sess.run(nxt)
        except tf.errors.OutOfRangeError:
            return out
        for t, x in zip(_flat(nxt), _flat(v)):
            if hasattr(x, "indices") or hasattr(x, "to_list"):
                continue
            assert t.get_shape().is_compatible_with(np.shape(x)), (t, np.shape(x))
        out.append(v)


def _flat(x):
    if isinstance(x, dict):
        return [y for k in sorted(x) for y in _flat(x[k])]
    if isinstance(x, tuple) and not hasattr(x, "indices"):
        return [y for c in x for y in _flat(c)]
    return [x]


def _row(op_types, build, want, name=None):
    """A row: ``build()`` makes a dataset whose graph holds ``op_types``; elements == want."""

    def check():
        g = tf.Graph()
        with g.as_default():
            ds = build()
            it = ds.make_initializable_iterator()
            nxt = it.get_next()
            present = {op.type for op in g.get_operations()}
            for fg in g._functions.values():
                present |= {op.type for op in fg.get_operations()}
            missing = set(op_types) - present - {"Iterator"}
            assert not missing, missing
            with tf.Session() as sess:
                sess.run(it.initializer)
                got = _elements(sess, nxt)
        assert _norm(got) == _norm(want), (got, want)

    return Case(op_types, check=check, name=name or op_types[0])


def _norm(x):
    if isinstance(x, (list, tuple)):
        return [_norm(y) for y in x]
    if isinstance(x, dict):
        return {k: _norm(v) for k, v in x.items()}
    if hasattr(x, "indices"):
        return [_norm(x.indices), _norm(x.values), _norm(x.dense_shape)]
    if hasattr(x, "to_list"):
        return x.to_list()
    a = np.asarray(x)
    return a.tolist()


def _records(tmp):
    import os
    import tempfile

    d = tempfile.mkdtemp()
    p = os.path.join(d, "r.tfrecord")
    with TFRecordWriter(p) as w:
        for r in (b"a", b"bb"):
            w.write(r)
    t = os.path.join(d, "t.txt")
    with open(t, "wb") as f:
        f.write(b"x\ny\n")
    b = os.path.join(d, "b.bin")
    with open(b, "wb") as f:
        f.write(b"0123456789")
    return {"tfrecord": p, "text": t, "bin": b}[tmp]


def _gen():
    yield from ([1, 2], [3, 4])


def _examples():
    # three serialized tf.train.Examples holding an int64 "x" and a float list "v"
    out = []
    for i in range(3):
        ex = tf.train.Example(features=tf.train.Features(feature={
            "x": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
            "v": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5] * i))}))
        out.append(ex.SerializeToString())
    return out


def _parsed_examples():
    spec = {"x": tf.FixedLenFeature([], tf.int64), "v": tf.VarLenFeature(tf.float32)}
    return D.from_tensor_slices(_examples()).batch(2).apply(
        tf.data.experimental.parse_example_dataset(spec))


def _check_iterator_ops():
    with tf.Graph().as_default():
        one = D.range(3).make_one_shot_iterator()
        reinit = data.Iterator.from_structure(tf.int64, [])
        init = reinit.make_initializer(D.range(5, 7))
        h = tf.placeholder(tf.string, [])
        feed = data.Iterator.from_string_handle(h, tf.int64, [])
        from tideflow.framework import ops

        v1 = ops.apply_op("Iterator", [], {"shared_name": "", "container": "",
                                           "output_types": [tf.int64],
                                           "output_shapes": [[]]}, name="V1")._outputs[0]
        v1_init = ops.apply_op("MakeIterator", [D.range(2)._as_variant_tensor(), v1])
        v1_next = ops.apply_op("IteratorGetNext", [v1], {"output_types": [tf.int64],
                                                         "output_shapes": [[]]})._outputs[0]
        single = data.experimental.get_single_element(D.from_tensors(np.int32(7)))
        with tf.Session() as sess:
            sess.run(init)
            sess.run(v1_init)
            hs = sess.run(one.string_handle())
            assert sess.run(feed.get_next(), {h: hs}) == 0
            assert sess.run(one.get_next()) == 1
            assert sess.run(reinit.get_next()) == 5
            assert sess.run(v1_next) == 0
            assert sess.run(single) == 7


def _check_iterator_state():
    # the saved position of an iterator, restored into the same iterator after it moved on
    with tf.Graph().as_default():
        it = D.range(6).map(lambda x: x * 10).make_initializable_iterator()
        nxt = it.get_next()
        saveable = data.experimental.make_saveable_from_iterator(it)
        (spec,) = saveable.specs
        restore = saveable.restore([spec.tensor], None)
        with tf.Session() as sess:
            sess.run(it.initializer)
            assert [sess.run(nxt), sess.run(nxt)] == [0, 10]
            state = sess.run(spec.tensor)
            assert [sess.run(nxt), sess.run(nxt)] == [20, 30]
            sess.run(restore, {spec.tensor: state})
            assert [sess.run(nxt), sess.run(nxt)] == [20, 30]


CASES = [
    _row(("TensorSliceDataset", "MapDataset", "BatchDatasetV2"),
         lambda: D.from_tensor_slices(np.arange(5)).map(lambda x: x * 2).batch(2),
         [[0, 2], [4, 6], [8]]),
    _row(("TensorDataset", "RepeatDataset", "TakeDataset", "SkipDataset"),
         lambda: D.from_tensors(np.float32(1.5)).repeat().skip(1).take(2), [1.5, 1.5]),
    _row(("RangeDataset", "FilterDataset", "ShardDataset"),
         lambda: D.range(10).filter(lambda x: x > 3).shard(2, 0), [4, 6, 8]),
    _row(("ZipDataset", "ConcatenateDataset"),
         lambda: D.zip((D.range(2), D.range(5, 7))).concatenate(D.zip((D.range(1),
                                                                       D.range(1)))),
         [(0, 5), (1, 6), (0, 0)]),
    _row(("ParallelMapDataset", "PrefetchDataset", "CacheDataset"),
         lambda: D.range(4).map(lambda x: x + 1, num_parallel_calls=2).cache().prefetch(1),
         [1, 2, 3, 4]),
    _row(("FlatMapDataset", "InterleaveDataset"),
         lambda: D.range(1, 3).flat_map(lambda x: D.range(x)).interleave(
             lambda x: D.from_tensors(x).repeat(2), cycle_length=2),
         [0, 0, 0, 0, 1, 1]),
    _row(("ParallelInterleaveDatasetV2",),
         lambda: D.range(2).interleave(lambda x: D.range(x, x + 2), 2,
                                       num_parallel_calls=2), [0, 1, 1, 2]),
    _row(("PaddedBatchDatasetV2", "UnbatchDataset"),
         lambda: D.range(1, 4).map(lambda x: tf.fill([x], x)).padded_batch(3, [None])
         .unbatch(), [[1, 0, 0], [2, 2, 0], [3, 3, 3]]),
    _row(("ShuffleDataset",), lambda: D.range(1).shuffle(4, seed=3), [0]),
    _row(("SlidingWindowDataset",),
         lambda: D.range(6).apply(tf.contrib.data.sliding_window_batch(3, 2)),
         [[0, 1, 2], [2, 3, 4]]),
    _row(("ShuffleAndRepeatDataset",),
         lambda: D.range(1).apply(tf.data.experimental.shuffle_and_repeat(4, 2, seed=3)),
         [0, 0]),
    _row(("IgnoreErrorsDataset",),
         lambda: D.from_tensor_slices(np.array([1.0, np.inf])).map(
             lambda x: tf.check_numerics(x, "x")).ignore_errors(), [1.0]),
    _row(("PyGeneratorDataset",), lambda: D.from_generator(_gen, tf.int32, [2]),
         [[1, 2], [3, 4]]),
    _row(("ParseExampleDataset",), _parsed_examples,
         [{"x": [0, 1], "v": [[[1, 0]], [0.5], [2, 1]]},
          {"x": [2], "v": [[[0, 0], [0, 1]], [0.5, 0.5], [1, 2]]}]),
    _row(("TFRecordDataset",), lambda: data.TFRecordDataset(_records("tfrecord")),
         [b"a", b"bb"]),
    _row(("TextLineDataset",), lambda: data.TextLineDataset(_records("text")), [b"x", b"y"]),
    _row(("FixedLengthRecordDatasetV2",),
         lambda: data.FixedLengthRecordDataset(_records("bin"), 4, header_bytes=1,
                                             footer_bytes=1),
         [b"1234", b"5678"]),
    _row(("SerializeSparse", "DeserializeSparse"),
         lambda: D.from_tensor_slices(tf.SparseTensor([[0, 1], [1, 0]], [5, 6], [2, 3])),
         [[[[1]], [5], [3]], [[[0]], [6], [3]]]),
    _row(("RaggedTensorToVariant", "RaggedTensorFromVariant"),
         lambda: D.from_tensor_slices(tf.ragged.constant([[[1], [2, 3]], [[4]]])).batch(2),
         [[[[1], [2, 3]], [[4]]]]),
    _row(("WindowDataset",),
         lambda: D.range(5).window(2, shift=2, stride=1).flat_map(lambda w: w.batch(2)),
         [[0, 1], [2, 3], [4]]),
    Case(("SerializeIterator", "DeserializeIterator"), check=_check_iterator_state,
         name="IteratorState"),
    Case(("Iterator", "IteratorV2", "MakeIterator", "IteratorGetNext", "OneShotIterator",
          "IteratorToStringHandle", "IteratorFromStringHandleV2", "DatasetToSingleElement"),
         check=_check_iterator_ops, name="Iterators"),
]
