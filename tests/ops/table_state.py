"""Op-table rows for the state ops: variables, Assign*, Scatter*, IsVariableInitialized,
ZeroInitializer."""

import numpy as np
import pytest

import tideflow as tf
from tests.ops.optable import Case
from tideflow.ops import state_ops


def _check_static(t, value):
    assert t.get_shape().is_compatible_with(np.shape(value)), (t, np.shape(value))
    assert tf.as_dtype(np.asarray(value).dtype) == t.dtype.base_dtype, (t, value.dtype)


def _check_variable_ops():
    for op_type, make in (("VariableV2", state_ops.variable_op_v2),
                          ("Variable", state_ops.variable_op)):
        for dt in (tf.float32, tf.float64, tf.int32, tf.int64, tf.bool, tf.complex64,
                   tf.string):
            with tf.Graph().as_default():
                ref = make([2, 3], dt, name="v")
                assert ref.op.type == op_type and ref.dtype == dt._as_ref
                assert ref.get_shape().as_list() == [2, 3]
                value = np.zeros([2, 3], dt.as_numpy_dtype) if dt != tf.string else (
                    np.array([[b"a", b"b", b"c"]] * 2, dtype=object))
                init = tf.assign(ref, value)
                with tf.Session() as s:
                    with pytest.raises(tf.errors.FailedPreconditionError,
                                       match="uninitialized value v"):
                        s.run(ref)
                    s.run(init)
                    got = s.run(ref)
                    _check_static(ref, got)
                    assert got.tolist() == value.tolist()


def _check_assign():
    for dt in (tf.float32, tf.float64, tf.int32, tf.bfloat16, tf.bool):
        with tf.Graph().as_default():
            v = state_ops.variable_op_v2([3], dt, name="v")
            a = np.array([1, 0, 1]).astype(dt.as_numpy_dtype)
            out = tf.assign(v, a)
            assert out.dtype == dt._as_ref and out.get_shape().as_list() == [3]
            with tf.Session() as s:
                got = s.run(out)
                _check_static(out, got)
                assert got.tolist() == a.tolist()
    # validate_shape=False changes the shape; the static shape follows the value
    with tf.Graph().as_default():
        v = state_ops.variable_op_v2([3], tf.float32)
        out = tf.assign(v, np.ones([2, 2], np.float32), validate_shape=False)
        assert out.get_shape().as_list() == [2, 2]
        with tf.Session() as s:
            s.run(tf.assign(v, [1.0, 2.0, 3.0]))
            assert s.run(out).shape == (2, 2)
            assert s.run(v).shape == (2, 2)
        with pytest.raises(ValueError):
            tf.assign(v, np.ones([2, 2], np.float32))


def _check_dense_update(op_type, fn, np_fn):
    def check():
        for dt in (tf.float32, tf.float64, tf.int32, tf.int64, tf.complex128):
            with tf.Graph().as_default():
                v = state_ops.variable_op_v2([2, 2], dt, name="v")
                init = tf.assign(v, np.full([2, 2], 5).astype(dt.as_numpy_dtype))
                delta = np.array([[1, 2], [3, 4]]).astype(dt.as_numpy_dtype)
                out = fn(v, delta)
                assert out.op.type == op_type and out.dtype == dt._as_ref
                assert out.get_shape().as_list() == [2, 2]
                with tf.Session() as s:
                    with pytest.raises(tf.errors.FailedPreconditionError,
                                       match="uninitialized value v"):
                        s.run(out)
                    s.run(init)
                    got = s.run(out)
                    _check_static(out, got)
                    want = np_fn(np.full([2, 2], 5).astype(dt.as_numpy_dtype), delta)
                    np.testing.assert_array_equal(got, want)
                    np.testing.assert_array_equal(s.run(out), np_fn(want, delta))
                with pytest.raises(ValueError):
                    fn(v, np.ones([3], dt.as_numpy_dtype))

    return check


def _check_scatter(op_type, fn, np_fn):
    def check():
        for dt in (tf.float32, tf.float64, tf.int32):
            for idt in (tf.int32, tf.int64):
                with tf.Graph().as_default():
                    v = state_ops.variable_op_v2([4, 2], dt, name="v")
                    start = np.arange(8).reshape(4, 2).astype(dt.as_numpy_dtype)
                    init = tf.assign(v, start)
                    idx = np.array([3, 0, 3], idt.as_numpy_dtype)
                    upd = np.array([[1, 1], [2, 2], [5, 5]]).astype(dt.as_numpy_dtype)
                    out = fn(v, idx, upd)
                    assert out.op.type == op_type and out.get_shape().as_list() == [4, 2]
                    with tf.Session() as s:
                        s.run(init)
                        got = s.run(out)
                        _check_static(out, got)
                        want = start.copy()
                        np_fn(want, idx, upd)
                        np.testing.assert_array_equal(got, want)
                    with pytest.raises(ValueError):
                        fn(v, idx, np.ones([3, 3], dt.as_numpy_dtype))

    return check


def _np_update(a, i, u):
    for j, row in zip(i, u):
        a[j] = row


def _check_is_initialized():
    for dt in (tf.float32, tf.int32, tf.string):
        with tf.Graph().as_default():
            v = state_ops.variable_op_v2([], dt)
            init = tf.assign(v, np.zeros([], dt.as_numpy_dtype) if dt != tf.string else b"x")
            t = tf.is_variable_initialized(v)
            assert t.dtype == tf.bool and t.get_shape().as_list() == []
            with tf.Session() as s:
                got = s.run(t)
                assert got.dtype == np.bool_ and not got
                s.run(init)
                assert s.run(t)
            with tf.Session() as s:  # a new session starts uninitialized
                assert not s.run(t)


def _check_zero_initializer():
    for dt in (tf.float32, tf.float64, tf.int32, tf.int64, tf.float16):
        with tf.Graph().as_default():
            v = state_ops.variable_op_v2([2, 3], dt, name="v")
            z = tf.contrib.framework.zero_initializer(v)
            assert (z.op.type, z.name, z.dtype) == ("ZeroInitializer", "zero_initializer:0",
                                                    dt._as_ref)
            read = tf.identity(v)
            with tf.Session() as s:
                got = s.run(z)
                _check_static(z, got)
                np.testing.assert_array_equal(got, np.zeros([2, 3], dt.as_numpy_dtype))
                np.testing.assert_array_equal(s.run(read), np.zeros([2, 3]))
                with pytest.raises(tf.errors.InvalidArgumentError,
                                   match="input is already initialized"):
                    s.run(z)
    with tf.Graph().as_default(), pytest.raises(TypeError, match="not in list of allowed"):
        tf.contrib.framework.zero_initializer(tf.Variable([True]))


CASES = [
    Case(("VariableV2", "Variable"), check=_check_variable_ops, grad=False),
    Case("Assign", check=_check_assign, grad=False),
    Case("AssignAdd", check=_check_dense_update("AssignAdd", tf.assign_add, np.add),
         grad=False),
    Case("AssignSub", check=_check_dense_update("AssignSub", tf.assign_sub, np.subtract),
         grad=False),
    Case("ScatterUpdate", check=_check_scatter("ScatterUpdate", tf.scatter_update, _np_update),
         grad=False),
    Case("ScatterAdd", check=_check_scatter("ScatterAdd", tf.scatter_add, np.add.at),
         grad=False),
    Case("ScatterSub", check=_check_scatter("ScatterSub", tf.scatter_sub, np.subtract.at),
         grad=False),
    Case("IsVariableInitialized", check=_check_is_initialized, grad=False),
    Case("ZeroInitializer", check=_check_zero_initializer, grad=False),
]
