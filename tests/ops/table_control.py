"""Op-table rows for control and logging ops: NoOp, Assert, Print, CheckNumerics, and the
Python-function ops PyFunc and PyFuncStateless."""

import numpy as np
import pytest

import tideflow as tf
from tests.ops.optable import Case


def _check_no_op():
    g = tf.Graph()
    with g.as_default():
        op = tf.no_op(name="nothing")
        assert op.type == "NoOp" and op.name == "nothing"
        assert op.outputs == [] and list(op.inputs) == []
        with tf.Session(graph=g) as sess:
            assert sess.run(op) is None


def _check_assert():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.int32, [None])
        ok = tf.Assert(True, [x])
        cond = tf.placeholder(tf.bool, [])
        check = tf.Assert(cond, ["x is", x], summarize=2)
        assert check.type == "Assert" and check.outputs == []
        assert check.get_attr("summarize") == 2
        assert check.get_attr("T") == [tf.string, tf.int32]
        with tf.Session(graph=g) as sess:
            sess.run([ok, check], {x: [1, 2, 3], cond: True})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"assertion failed: \[x is\] \[1 2\.\.\.\]"):
                sess.run(check, {x: [1, 2, 3], cond: False})


def _check_print():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 2])
        y = tf.Print(x, [x, "s"], message="x: ", first_n=1, summarize=3)
        assert y.op.type == "Print" and y.dtype == tf.float32
        assert y.get_shape().as_list() == [2, 2]
        assert y.op.get_attr("U") == [tf.float32, tf.string]
        value = np.array([[1, 2], [3, 4]], np.float32)
        with tf.Session(graph=g) as sess:
            for _ in range(2):
                np.testing.assert_array_equal(sess.run(y, {x: value}), value)


def _finite(dt):
    return np.array([[0.5, -2.0, 3.0], [1e3, 0.0, -0.25]], dtype=dt)


def _check_py_func():
    calls = []

    def count(a):
        calls.append(a.copy())
        return a * 2, np.int64(a.size)

    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        y, n = tf.py_func(count, [x], [tf.float32, tf.int64])
        assert y.op.type == "PyFunc" and y.op.get_attr("Tout") == [tf.float32, tf.int64]
        assert y.op.get_attr("Tin") == [tf.float32]
        assert y.get_shape().ndims is None and n.dtype == tf.int64
        value = _finite(np.float32)
        with tf.Session(graph=g) as sess:
            for _ in range(2):  # stateful: runs every time, never folded
                out, size = sess.run([y, n], {x: value})
                np.testing.assert_array_equal(out, value * 2)
                assert size == 6
        assert len(calls) == 2


CASES = [
    Case("NoOp", check=_check_no_op, grad=False),
    Case("Assert", check=_check_assert, grad=False),
    Case("Print", check=_check_print, grad=False),
    Case("CheckNumerics", lambda x: tf.check_numerics(x, "bad"), [_finite], lambda x: x,
         dtypes=(tf.float16, tf.bfloat16, tf.float32, tf.float64), grad=False),
    Case("PyFunc", check=_check_py_func, grad=False),
    Case("PyFuncStateless",
         lambda x: tf.py_func(lambda a: a * 2 + 1, [x], x.dtype, stateful=False),
         [_finite], lambda x: x * 2 + 1, dtypes=(tf.float32, tf.float64, tf.int32, tf.int64),
         grad=False),
]
