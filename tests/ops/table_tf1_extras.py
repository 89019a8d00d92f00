"""Op-table rows for the later TF 1.x array ops and framework ops: Roll, Cross,
TensorScatterMax/Min, ScatterMul/Div/Max/Min, EnsureShape, Timestamp, and the composed
repeat / parallel_stack / accumulate_n / switch_case."""

import time

import numpy as np
import pytest

import tideflow as tf
from tests.ops.optable import Case
from tideflow.ops import state_ops

R = (tf.float32, tf.float64)
_x34 = np.arange(12, dtype=np.float64).reshape(3, 4) / 3.0 - 1.0


def _ref_roll(x, shift, axis):
    return np.roll(x, shift.tolist(), axis.tolist())


def _ref_scatter_minmax(fn):
    def ref(t, idx, upd):
        out = t.copy()
        for i, pos in enumerate(idx.reshape(-1, idx.shape[-1]).tolist()):
            out[tuple(pos)] = fn(out[tuple(pos)], upd.reshape((-1,) + t.shape[idx.shape[-1]:])[i])
        return out

    return ref


def _check_ref_scatter(op_type, fn, np_fn, dts=(tf.float32, tf.float64, tf.int32)):
    def check():
        for dt in dts:
            for idt in (tf.int32, tf.int64):
                with tf.Graph().as_default():
                    v = state_ops.variable_op_v2([4, 2], dt, name="v")
                    start = (np.arange(8).reshape(4, 2) - 3).astype(dt.as_numpy_dtype)
                    init = tf.assign(v, start)
                    idx = np.array([3, 0, 3], idt.as_numpy_dtype)
                    upd = np.array([[2, -3], [2, 5], [5, -2]]).astype(dt.as_numpy_dtype)
                    out = fn(v, idx, upd)
                    assert out.op.type == op_type and out.get_shape().as_list() == [4, 2]
                    with tf.Session() as s:
                        s.run(init)
                        got = s.run(out)
                        assert got.dtype == dt.as_numpy_dtype
                        want = start.copy()
                        for i, j in enumerate(idx.tolist()):
                            want[j] = np_fn(want[j], upd[i])
                        np.testing.assert_allclose(got, want, rtol=1e-6)
                        bad = fn(v, np.array([4], idt.as_numpy_dtype),
                                 np.ones([1, 2], dt.as_numpy_dtype))
                        with pytest.raises(tf.errors.InvalidArgumentError, match="not in"):
                            s.run(bad)
                    with pytest.raises(ValueError):
                        fn(v, idx, np.ones([3, 3], dt.as_numpy_dtype))

    return check


def _trunc_div(a, b):
    if np.asarray(a).dtype.kind == "i":
        q = np.abs(a) // np.abs(b)
        return np.where((a < 0) != (b < 0), -q, q)
    return a / b


def _check_roll_static_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="both shapes must be equal"):
            tf.roll(tf.zeros([2, 3]), [1, 2], [0])
        r = tf.roll(tf.zeros([2, 3]), 1, 5)
        with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError, match="range"):
            s.run(r)


def _check_ensure_shape():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        y = tf.ensure_shape(x, [2, None])
        assert y.op.type == "EnsureShape" and y.get_shape().as_list() == [2, 3]
        (g,) = tf.gradients(tf.reduce_sum(y * 2.0), x)
        with tf.Session() as s:
            np.testing.assert_array_equal(s.run(g, {x: np.ones([2, 3])}), 2 * np.ones([2, 3]))
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"tensor x \[3,3\] is not compatible with expected shape"):
                s.run(y, {x: np.ones([3, 3])})


def _check_timestamp():
    with tf.Graph().as_default():
        t = tf.timestamp()
        assert t.op.type == "Timestamp" and t.get_shape().ndims == 0
        with tf.Session() as s:
            before = time.time()
            got = s.run(t)
            after = time.time()
        assert got.dtype == np.float64 and before - 1 <= got <= after + 1


def _check_switch_case():
    with tf.Graph().as_default():
        i = tf.placeholder(tf.int32, [])
        x = tf.placeholder(tf.float64, [2])
        y = tf.switch_case(i, [lambda: x * 2.0, lambda: tf.sin(x)], default=lambda: -x)
        (g,) = tf.gradients(tf.reduce_sum(y), x)
        xv = np.array([0.5, -1.0])
        with tf.Session() as s:
            np.testing.assert_allclose(s.run([y, g], {i: 1, x: xv}), [np.sin(xv), np.cos(xv)])
            np.testing.assert_allclose(s.run([y, g], {i: 0, x: xv}), [2 * xv, [2.0, 2.0]])
            np.testing.assert_allclose(s.run([y, g], {i: 3, x: xv}), [-xv, [-1.0, -1.0]])


CASES = [
    Case("Roll", tf.roll, [_x34, np.array([1, -2]), np.array([0, 1])], _ref_roll,
         dtypes=R + (tf.int32,), fixed=(1, 2), grad_inputs=[0]),
    Case("Roll", lambda x, s, a: tf.manip.roll(x, s, a),
         [_x34, np.array([5, 1], np.int64), np.array([-1, -1], np.int64)],
         lambda x, s, a: np.roll(x, 6, 1), dtypes=R, fixed=(1, 2), grad_inputs=[0],
         name="Roll_same_axis_twice"),
    Case("Roll", check=_check_roll_static_errors, name="Roll_errors"),
    Case("Cross", tf.cross, [np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]),
                             np.array([[0.5, -1.0, 2.0], [3.0, 1.0, -2.0]])],
         lambda a, b: np.cross(a, b), dtypes=R + (tf.int32,)),
    Case("TensorScatterMax", tf.tensor_scatter_nd_max,
         [_x34, np.array([[0, 1], [2, 3], [0, 1]]), np.array([4.0, -5.0, 2.5])],
         _ref_scatter_minmax(np.maximum), dtypes=R + (tf.int32,), fixed=(1,)),
    Case("TensorScatterMin", tf.tensor_scatter_nd_min,
         [_x34, np.array([[1], [2]]), np.array([[0.1, -7.0, 9.0, 0.2], [3.0, -2.5, 0.7, 5.0]])],
         _ref_scatter_minmax(np.minimum), dtypes=R + (tf.int64,), fixed=(1,)),
    Case("ScatterMul", check=_check_ref_scatter("ScatterMul", tf.scatter_mul, np.multiply)),
    Case("ScatterDiv", check=_check_ref_scatter("ScatterDiv", tf.scatter_div, _trunc_div)),
    Case("ScatterMax", check=_check_ref_scatter("ScatterMax", tf.scatter_max, np.maximum)),
    Case("ScatterMin", check=_check_ref_scatter("ScatterMin", tf.scatter_min, np.minimum)),
    Case("EnsureShape", check=_check_ensure_shape),
    Case("EnsureShape", lambda x: tf.ensure_shape(x, [3, None]) * 1.5,
         [_x34], lambda x: x * 1.5, name="EnsureShape_values"),
    Case("Timestamp", check=_check_timestamp),
    Case("GatherV2", lambda x, r: tf.repeat(x, r, axis=1), [_x34, np.array([2, 0, 1, 3])],
         lambda x, r: np.repeat(x, r, axis=1), dtypes=R + (tf.int32,), fixed=(1,),
         grad_inputs=[0], name="repeat_axis"),
    Case("GatherV2", lambda x: tf.repeat(x, 2), [_x34], lambda x: np.repeat(x, 2),
         name="repeat_flat"),
    # as TF 1.15: one ParallelConcat, shapes fully known, no gradient
    Case("ParallelConcat", lambda a, b: tf.parallel_stack([a, b]), [_x34, _x34 * 2],
         lambda a, b: np.stack([a, b]), grad=False, unknown_shape=False, name="parallel_stack"),
    Case("AddN", lambda a, b, c: tf.accumulate_n([a, b, c]), [_x34, _x34 * 2, -_x34],
         lambda a, b, c: a + b + c, name="accumulate_n"),
    Case("If", check=_check_switch_case, name="switch_case"),
]


def _check_fingerprint():
    from tideflow.ops.string_hash_ops import fingerprint64

    with tf.Graph().as_default():
        x = np.array([[1.5, 2.0], [3.0, -1.0]], np.float32)
        f = tf.fingerprint(x)
        fs = tf.fingerprint(tf.constant([["a", "bc"], ["", "x"]]))
        f1 = tf.fingerprint(tf.constant(["abc"]))
        assert f.get_shape().as_list() == [2, 8] and f.dtype == tf.uint8
        with tf.Session() as s:
            got, gs, g1 = s.run([f, fs, f1])
            with pytest.raises(tf.errors.InvalidArgumentError, match="method"):
                s.run(tf.fingerprint(x, method="md5"))
    for row, want in zip(x, got):
        assert np.array([fingerprint64(row.tobytes())], "<u8").view(np.uint8).tolist() == \
            want.tolist()
    assert g1[0].tolist() == np.array([fingerprint64(b"abc")], "<u8").view(np.uint8).tolist()
    # the values TF 2.21 gives (FarmHash Fingerprint64 is stable across versions)
    assert g1[0].tolist() == [105, 243, 231, 116, 160, 179, 165, 36]
    assert gs.shape == (2, 8) and gs[0].tolist() != gs[1].tolist()


def _check_decode_compressed_json():
    import gzip
    import json
    import zlib

    js = json.dumps({"features": {"feature": {
        "a": {"int64List": {"value": ["3", "4"]}}, "b": {"floatList": {"value": [1.5]}}}}})
    with tf.Graph().as_default():
        z = tf.decode_compressed(tf.constant([zlib.compress(b"hello"), zlib.compress(b"")]),
                                 "ZLIB")
        g = tf.decode_compressed(tf.constant([gzip.compress(b"hi there")]), "GZIP")
        plain = tf.decode_compressed(tf.constant(["as is"]))
        ex = tf.decode_json_example(tf.constant([js]))
        parsed = tf.parse_single_example(ex[0], {"a": tf.FixedLenFeature([2], tf.int64),
                                                 "b": tf.FixedLenFeature([], tf.float32)})
        with tf.Session() as s:
            assert s.run(z).tolist() == [b"hello", b""]
            assert s.run(g).tolist() == [b"hi there"]
            assert s.run(plain).tolist() == [b"as is"]
            p = s.run(parsed)
            assert p["a"].tolist() == [3, 4] and p["b"] == 1.5
            # TF 1.15: zlib's error, a DataLossError
            with pytest.raises(tf.errors.DataLossError,
                               match="^inflate\\(\\) failed with error -3: incorrect header check"):
                s.run(tf.decode_compressed(tf.constant(["junk"]), "ZLIB"))
            with pytest.raises(tf.errors.InvalidArgumentError, match="JSON"):
                s.run(tf.decode_json_example(tf.constant(["{bad"])))


def _check_guarantee_const_and_fact():
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        y = tf.guarantee_const(x)
        assert y.op.type == "GuaranteeConst" and y.shape.as_list() == [2]
        with pytest.raises(LookupError, match="No gradient defined"):
            tf.gradients(y, x)
        snap = tf.raw_ops.Snapshot(input=x)
        assert snap.op.type == "Snapshot" and snap.shape.as_list() == [2]
        with pytest.raises(LookupError, match="No gradient defined"):
            tf.gradients(snap, x)
        with tf.Session() as s:
            assert s.run(y).tolist() == [1.0, 2.0]
            assert s.run(snap).tolist() == [1.0, 2.0]
            assert s.run(tf.user_ops.my_fact()) == b"0! == 1"


CASES += [
    Case("Fingerprint", check=_check_fingerprint),
    Case(("DecodeCompressed", "DecodeJSONExample"), check=_check_decode_compressed_json),
    Case(("GuaranteeConst", "Snapshot", "Fact"), check=_check_guarantee_const_and_fact),
]


def _ref_top(k, d, largest):
    def ref(x):
        key = -x if largest else x
        idx = np.take(np.argsort(key, axis=d, kind="stable"), np.arange(k), axis=d)
        return [np.take_along_axis(x, idx, axis=d), idx.astype(np.int32)]

    return ref


_tk = np.array([[3.0, 1.0, 4.0, 1.5, 5.0], [9.0, 2.0, 6.0, 5.5, 3.0], [0.5, -2.0, 7.0, 8.0, 1.25]])

CASES += [
    Case("ApproxTopK", lambda x: tf.math.approx_max_k(x, 2), [_tk], _ref_top(2, -1, True),
         dtypes=R + (tf.int32,)),
    Case("ApproxTopK", lambda x: tf.math.approx_min_k(x, 2, reduction_dimension=0), [_tk],
         _ref_top(2, 0, False), dtypes=R + (tf.int64,), name="ApproxTopK_min_axis0"),
    Case("ApproxTopK", lambda x: tf.approx_top_k(x, 3, is_max_k=False), [_tk],
         _ref_top(3, -1, False), name="approx_top_k_min"),
]


def _check_session_handles():
    with tf.Graph().as_default():
        c = tf.multiply(tf.constant(3.0), 2.0)
        h = tf.get_session_handle(c)
        assert h.op.type == "GetSessionHandle" and h.dtype == tf.string and h.shape.ndims == 0
        with tf.Session() as s:
            hv = s.run(h)
            assert isinstance(hv, bytes) and hv.handle.startswith("GetSessionHandle;")
            assert hv.eval() == 6.0
            p, a = tf.get_session_tensor(hv.handle, tf.float32)
            b = tf.multiply(a, 10)
            assert s.run(b, feed_dict={p: hv.handle}) == 60.0
            # a handle made by the next run is a different stored tensor
            h2 = s.run(tf.get_session_handle(tf.constant([1, 2])))
            assert h2.handle != hv.handle and h2.eval().tolist() == [1, 2]
            ph, d = tf.delete_session_tensor(hv.handle)
            s.run(d, feed_dict={ph: hv.handle})
            with pytest.raises(tf.errors.NotFoundError, match="no tensor with handle"):
                s.run(b, feed_dict={p: hv.handle})
            with pytest.raises(tf.errors.InvalidArgumentError, match="is int32, not int64"):
                p32, a32 = tf.get_session_tensor(h2.handle, tf.int64)
                s.run(a32, {p32: h2.handle})
            h2.delete()
        with tf.Session() as other:  # another session has its own store
            p, a = tf.get_session_tensor(hv.handle, tf.float32)
            with pytest.raises(tf.errors.NotFoundError):
                other.run(a, {p: hv.handle})


CASES += [Case(("GetSessionHandle", "GetSessionTensor", "DeleteSessionTensor"),
               check=_check_session_handles)]


def _check_mutex_ops():
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        cs = tf.CriticalSection(shared_name="shared_cs")
        out = cs.execute(lambda: tf.assign_add(v, 2.0))
        ops_types = {op.type for op in tf.get_default_graph().get_operations()}
        assert {"MutexV2", "MutexLock", "ConsumeMutexLock"} <= ops_types
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert s.run(out) == 3.0 and s.run(out) == 5.0


CASES += [Case(("MutexV2", "MutexLock", "ConsumeMutexLock"), check=_check_mutex_ops)]
