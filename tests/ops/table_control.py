"""Op-table rows for control and logging ops: NoOp, Assert, Print, CheckNumerics, and the
Python-function ops PyFunc and PyFuncStateless."""

import contextlib
import io
import sys

import numpy as np
import pytest

import tideflow as tf
from tests.ops.optable import Case
from tideflow.framework import ops


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


def _check_print_v2():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.int32, [None])
        m = tf.constant([[1.5, 2.0], [3.0, 4.0]])
        p = tf.print("x:", x, {"m": m, "n": 2}, output_stream=sys.stdout, summarize=2, sep="|",
                     end="$\n", name="show")
        assert p.type == "PrintV2" and p.name == "show" and p.outputs == []
        assert p.get_attr("output_stream") == b"stdout" and p.get_attr("end") == b"$\n"
        fmt = p.inputs[0].op
        assert fmt.type == "StringFormat" and fmt.name == "show_format"
        assert fmt.get_attr("template") == b"x:|{}|{'m': {}, 'n': 2}"
        assert fmt.get_attr("T") == [tf.int32, tf.float32] and fmt.get_attr("summarize") == 2
        s = tf.print(tf.constant("only"), output_stream=sys.stdout)
        assert s.inputs[0].op.type == "Const"  # a lone string scalar is printed as it is
        bad = tf.print(tf.constant(["a", "b"]))
        with pytest.raises(ValueError, match=r"2 placeholder\(s\) in template does not match 1 "
                                             r"tensor\(s\) provided as input"):  # TF's words
            tf.strings.format("{} {}", [x])
        with pytest.raises(ValueError, match="Unsupported output stream"):
            tf.print(x, output_stream=3.5)
        out = io.StringIO()
        with tf.Session(graph=g) as sess, contextlib.redirect_stdout(out):
            assert sess.run(p, {x: [7, 8, 9, 10, 11]}) is None
            sess.run(s)
            sess.run(p, {x: [5]})
        assert out.getvalue() == ("x:|[7 8 ... 10 11]|{'m': [[1.5 2]\n [3 4]], 'n': 2}$\n"
                                  "only\n"
                                  "x:|[5]|{'m': [[1.5 2]\n [3 4]], 'n': 2}$\n")
        err = io.StringIO()
        with tf.Session(graph=g) as sess, contextlib.redirect_stderr(err):
            sess.run(bad)
        assert err.getvalue() == '["a" "b"]\n'
        # a graph whose template does not fit its inputs fails when run
        with g.as_default():
            raw = ops.apply_op("StringFormat", [[x]], {"template": "{} {}", "placeholder": "{}"},
                               name="raw")._outputs[0]
        with tf.Session(graph=g) as sess, pytest.raises(
                tf.errors.InvalidArgumentError, match="num placeholders in template and num"):
            sess.run(raw, {x: [1]})


CASES = [
    Case("NoOp", check=_check_no_op, grad=False),
    Case("Assert", check=_check_assert, grad=False),
    Case("Print", check=_check_print, grad=False),
    Case("CheckNumerics", lambda x: tf.check_numerics(x, "bad"), [_finite], lambda x: x,
         dtypes=(tf.float16, tf.bfloat16, tf.float32, tf.float64)),
    Case("PyFunc", check=_check_py_func, grad=False),
    Case("PyFuncStateless",
         lambda x: tf.py_func(lambda a: a * 2 + 1, [x], x.dtype, stateful=False),
         [_finite], lambda x: x * 2 + 1, dtypes=(tf.float32, tf.float64, tf.int32, tf.int64),
         grad=False),
    # tf.py_function: its gradient traces the function over the op's inputs
    Case("EagerPyFunc", lambda x: tf.py_function(lambda a: a * a + 1.0, [x], x.dtype),
         [_finite], lambda x: x * x + 1),
    Case(("PrintV2", "StringFormat"), check=_check_print_v2, grad=False),
]
