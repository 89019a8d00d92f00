"""Op-table rows for the queue, accumulator, reader and file ops (stateful: each row runs its
own check; the full semantics are in test_queues.py and test_readers.py)."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.framework import record_io
from tideflow.ops import data_flow_ops as dfo
from tideflow.ops import io_ops


def _check(tensors, values):
    for t, v in zip(tensors, values):
        assert t.get_shape().is_compatible_with(np.shape(v)), (t, np.shape(v))
        v = np.asarray(v)
        if v.dtype != object:
            assert tf.as_dtype(v.dtype) == t.dtype.base_dtype, (t, v.dtype)


def _check_queue(make, op_type, vals):
    def check():
        with tf.Graph().as_default():
            q = make()
            assert q.queue_ref.op.type == op_type
            enq_many = q.enqueue_many(vals)
            enq = q.enqueue([v[0] for v in vals])
            deq, deqm, dequp = q.dequeue(), q.dequeue_many(2), q.dequeue_up_to(5)
            size, closed = q.size(), q.is_closed()
            with tf.Session() as s:
                s.run(enq_many)
                s.run(enq)
                got = s.run(size)
                _check([size], [got])
                assert got == 4
                for t in (deq, deqm):
                    ts = t if isinstance(t, list) else [t]
                    _check(ts, s.run(ts))
                s.run(q.close())
                _check([closed], [s.run(closed)])
                ts = dequp if isinstance(dequp, list) else [dequp]
                out = s.run(ts)
                _check(ts, out)
                assert len(out[0]) == 1

    return check


def _check_count_up_to():
    with tf.Graph().as_default():
        v = tf.Variable(np.int32(0))
        c = dfo.count_up_to(v, 2)
        assert c.get_shape().as_list() == [] and c.dtype == tf.int32
        with tf.Session() as s:
            s.run(v.initializer)
            got = [s.run(c), s.run(c)]
            _check([c], got[:1])
            assert got == [0, 1]
            try:
                s.run(c)
            except tf.errors.OutOfRangeError:
                pass
            else:
                raise AssertionError("CountUpTo did not stop at its limit")


def _check_dense_accumulator(resource):
    from tideflow.ops import accumulator_ops

    with tf.Graph().as_default():
        if resource:  # TF 1.15's tf.ConditionalAccumulator
            acc = dfo.ConditionalAccumulator(tf.float64, shape=[2])
            assert acc.accumulator_ref.dtype == tf.resource
            assert acc.accumulator_ref.op.type == "ResourceConditionalAccumulator"
        else:  # the ref form (an imported older graph's)
            ref = accumulator_ops._accumulator_op("ConditionalAccumulator", tf.float64, [2],
                                                  None, "acc", "MEAN")
            acc = object.__new__(dfo.ConditionalAccumulator)
            accumulator_ops.ConditionalAccumulatorBase.__init__(acc, tf.float64, [2], ref)
            assert acc.accumulator_ref.dtype == tf.string._as_ref
        apply = acc.apply_grad(np.array([1.0, 3.0]))
        num = acc.num_accumulated()
        take = acc.take_grad(2)
        with tf.Session() as s:
            s.run(apply)
            s.run(apply)
            _check([num], [s.run(num)])
            s.run(acc.set_global_step(0))
            got = s.run(take)
            _check([take], [got])
            np.testing.assert_allclose(got, [1.0, 3.0])


def _check_sparse_accumulator():
    with tf.Graph().as_default():
        acc = dfo.SparseConditionalAccumulator(tf.float32, shape=[5, 2])
        apply = acc.apply_grad([1, 3], np.ones([2, 2], np.float32), [5, 2])
        taken = acc.take_grad(1)
        with tf.Session() as s:
            s.run(apply)
            got = s.run(list(taken))
            _check(list(taken), got)
            assert got[0].tolist() == [1, 3] and got[2].tolist() == [5, 2]


def _check_staging_area():
    with tf.Graph().as_default():
        area = dfo.StagingArea([tf.float32, tf.int64], shapes=[[2], []])
        put = area.put([np.array([1.0, 2.0], np.float32), np.int64(7)])
        peek = area.peek(0)
        size = area.size()
        got = area.get()
        with tf.Session() as s:
            s.run(put)
            s.run(put)
            _check(peek, s.run(peek))
            _check([size], [s.run(size)])
            values = s.run(got)
            _check(got, values)
            assert values[0].tolist() == [1.0, 2.0] and values[1] == 7
            s.run(area.clear())
            assert s.run(size) == 0


def _check_readers():
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        rec = f"{d}/r.tfrecord"
        with record_io.TFRecordWriter(rec) as w:
            w.write(b"abc")
        txt = f"{d}/t.txt"
        with open(txt, "wb") as f:
            f.write(b"abc\n")
        readers = [io_ops.TFRecordReader, io_ops.TextLineReader, io_ops.WholeFileReader,
                   io_ops.IdentityReader, lambda: io_ops.FixedLengthRecordReader(3)]
        files = [rec, txt, txt, txt, txt]
        for make, path in zip(readers, files):
            with tf.Graph().as_default():
                r = make()
                q = dfo.FIFOQueue(4, tf.string, shapes=())
                kv = list(r.read(q))
                kvs = list(r.read_up_to(q, 1))
                counters = [r.num_records_produced(), r.num_work_units_completed()]
                with tf.Session() as s:
                    s.run(q.enqueue_many([[path, path]]))
                    _check(kv, s.run(kv))
                    _check(kvs, s.run(kvs))
                    _check(counters, s.run(counters))
                    s.run(r.reset())
                    assert s.run(counters[0]) == 0
                    for op in (r.serialize_state(), r.restore_state(b"")):
                        try:
                            s.run(op)
                        except tf.errors.UnimplementedError:
                            pass


def _check_file_ops():
    import tempfile

    with tempfile.TemporaryDirectory() as d, tf.Graph().as_default():
        path = f"{d}/x/f.bin"
        write = io_ops.write_file(path, b"data")
        read = io_ops.read_file(path)
        match = io_ops.matching_files(f"{d}/x/*")
        with tf.Session() as s:
            s.run(write)
            got = s.run([read, match])
            _check([read, match], got)
            assert got[0] == b"data" and got[1].tolist() == [path.encode()]


_QUEUE_OPS = ("QueueEnqueueV2", "QueueEnqueueManyV2", "QueueDequeueV2", "QueueDequeueManyV2",
              "QueueDequeueUpToV2", "QueueCloseV2", "QueueSizeV2", "QueueIsClosedV2")

CASES = [
    Case(("FIFOQueueV2", *_QUEUE_OPS), name="FIFOQueue",
         check=_check_queue(lambda: dfo.FIFOQueue(10, tf.int64, shapes=[[2]]), "FIFOQueueV2",
                            [np.arange(6, dtype=np.int64).reshape(3, 2)])),
    Case("PaddingFIFOQueueV2", check=_check_queue(
        lambda: dfo.PaddingFIFOQueue(10, tf.int64, shapes=[[None]]), "PaddingFIFOQueueV2",
        [np.arange(6, dtype=np.int64).reshape(3, 2)])),
    Case("RandomShuffleQueueV2", check=_check_queue(
        lambda: dfo.RandomShuffleQueue(10, 0, tf.float32, shapes=[[]], seed=3),
        "RandomShuffleQueueV2", [np.array([1.0, 2.0, 3.0], np.float32)])),
    Case("PriorityQueueV2", check=_check_queue(
        lambda: dfo.PriorityQueue(10, [tf.float32], shapes=[[2]]), "PriorityQueueV2",
        [np.array([3, 1, 2], np.int64), np.arange(6, dtype=np.float32).reshape(3, 2)])),
    Case("CountUpTo", check=_check_count_up_to),
    Case(("ConditionalAccumulator", "AccumulatorApplyGradient", "AccumulatorTakeGradient",
          "AccumulatorNumAccumulated", "AccumulatorSetGlobalStep"),
         name="ConditionalAccumulator", check=lambda: _check_dense_accumulator(False)),
    Case(("ResourceConditionalAccumulator", "ResourceAccumulatorApplyGradient",
          "ResourceAccumulatorTakeGradient", "ResourceAccumulatorNumAccumulated",
          "ResourceAccumulatorSetGlobalStep"),
         name="ResourceConditionalAccumulator", check=lambda: _check_dense_accumulator(True)),
    Case(("SparseConditionalAccumulator", "SparseAccumulatorApplyGradient",
          "SparseAccumulatorTakeGradient"),
         name="SparseConditionalAccumulator", check=_check_sparse_accumulator),
    Case(("Stage", "Unstage", "StagePeek", "StageSize", "StageClear"), name="StagingArea",
         check=_check_staging_area),
    Case(("TFRecordReaderV2", "TextLineReaderV2", "WholeFileReaderV2", "IdentityReaderV2",
          "FixedLengthRecordReaderV2", "ReaderReadV2", "ReaderReadUpToV2",
          "ReaderNumRecordsProducedV2", "ReaderNumWorkUnitsCompletedV2", "ReaderResetV2",
          "ReaderSerializeStateV2", "ReaderRestoreStateV2"),
         name="Readers", check=_check_readers),
    Case(("ReadFile", "WriteFile", "MatchingFiles"), name="FileOps", check=_check_file_ops),
]
