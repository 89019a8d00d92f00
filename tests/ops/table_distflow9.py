"""Op-table rows for the Barrier and map staging-area ops (stateful: each row runs its own
check of static shapes and dtypes against what runs; their semantics are in
tests/test_tf_kernel_tests_distflow.py)."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.ops import data_flow_ops as dfo


def _check(tensors, values):
    for t, v in zip(tensors, values):
        assert t.get_shape().is_compatible_with(np.shape(v)), (t, np.shape(v))
        v = np.asarray(v)
        if v.dtype != object:
            assert tf.as_dtype(v.dtype) == t.dtype.base_dtype, (t, v.dtype)


def _check_barrier():
    with tf.Graph().as_default():
        b = dfo.Barrier((tf.float32, tf.int64), shapes=((2,), ()))
        assert b.barrier_ref.op.type == "Barrier"
        keys = tf.constant([b"a", b"b", b"c"])
        ins0 = b.insert_many(0, keys, np.arange(6, dtype=np.float32).reshape(3, 2))
        ins1 = b.insert_many(1, keys[:2], np.array([7, 8], np.int64))
        ready, incomplete = b.ready_size(), b.incomplete_size()
        idx, got_keys, vals = b.take_many(2)
        with tf.Session() as s:
            s.run([ins0])
            s.run(ins1)
            sizes = s.run([ready, incomplete])
            _check([ready, incomplete], sizes)
            assert sizes == [2, 1]
            out = s.run([idx, got_keys, *vals])
            _check([idx, got_keys, *vals], out)
            assert sorted(out[1].tolist()) == [b"a", b"b"]
            s.run(b.close())
            assert s.run(incomplete) == 1


def _check_map_staging(ordered):
    def check():
        with tf.Graph().as_default():
            area = dfo.MapStagingArea([tf.float32, tf.int32], shapes=[[2], []],
                                      ordered=ordered)
            prefix = "Ordered" if ordered else ""
            put = area.put(tf.constant(3, tf.int64), [tf.constant([1.0, 2.0]),
                                                      tf.constant(5)])
            put2 = area.put(tf.constant(4, tf.int64), [tf.constant([3.0, 4.0]),
                                                       tf.constant(6)])
            assert put.type == f"{prefix}MapStage"
            size, incomplete = area.size(), area.incomplete_size()
            peeked = area.peek(tf.constant(3, tf.int64))
            got = area.get(tf.constant(3, tf.int64))
            key_t, anyone = area.get()
            with tf.Session() as s:
                s.run([put, put2])
                sizes = s.run([size, incomplete])
                _check([size, incomplete], sizes)
                assert sizes == [2, 0]
                p = s.run(peeked)
                _check(peeked, p)
                g = s.run(got)
                _check(got[1], g[1])
                np.testing.assert_array_equal(g[1][0], [1.0, 2.0])
                k, rest = s.run([key_t, anyone])
                _check([key_t, *anyone], [k, *rest])
                assert k == 4 and rest[1] == 6
                s.run(area.clear())
                assert s.run(size) == 0

    return check


_MAP_OPS = ("MapStage", "MapUnstage", "MapUnstageNoKey", "MapPeek", "MapSize",
            "MapIncompleteSize", "MapClear")

CASES = [
    Case(("Barrier", "BarrierInsertMany", "BarrierTakeMany", "BarrierClose", "BarrierReadySize",
          "BarrierIncompleteSize"), name="Barrier", check=_check_barrier),
    Case(_MAP_OPS, name="MapStagingArea", check=_check_map_staging(False)),
    Case(tuple("Ordered" + o for o in _MAP_OPS), name="OrderedMapStagingArea",
         check=_check_map_staging(True)),
]
