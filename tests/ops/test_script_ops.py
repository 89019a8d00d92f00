"""tf.py_func / tf.numpy_function: NumPy in and out, TF's return-value checks and error
classes, stateless calls folded by CSE, strings, no gradient, and errors leaving the session
usable."""

import numpy as np
import pytest

import tideflow as tf


def _run(fetches, feed=None):
    with tf.Session() as s:
        return s.run(fetches, feed)


def test_single_and_list_outputs():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        y = tf.py_func(lambda a: a * 2, [x], tf.float32)
        assert isinstance(y, tf.Tensor) and y.get_shape().ndims is None
        a, b = tf.py_func(lambda a: (a + 1, np.int32(a.size)), [x], [tf.float32, tf.int32])
        (only,) = tf.numpy_function(lambda a: [a], [x], [tf.float32])
        op = tf.py_func(lambda a: None, [x], [])
        assert isinstance(op, tf.Operation)
        got = _run([y, a, b, only, op], {x: [1.0, 2.0]})
    np.testing.assert_array_equal(got[0], [2.0, 4.0])
    np.testing.assert_array_equal(got[1], [2.0, 3.0])
    assert got[2] == 2 and got[2].dtype == np.int32
    np.testing.assert_array_equal(got[3], [1.0, 2.0])
    assert got[4] is None


def test_arguments_are_numpy_values():
    seen = {}

    def look(scalar, vec, text):
        seen.update(scalar=scalar, vec=vec, text=text)
        return np.float32(0)

    with tf.Graph().as_default():
        y = tf.py_func(look, [tf.constant(1.5), tf.constant([1, 2]), tf.constant("héllo")],
                       tf.float32)
        _run(y)
    assert isinstance(seen["scalar"], np.float32) and seen["scalar"] == 1.5
    assert isinstance(seen["vec"], np.ndarray) and seen["vec"].dtype == np.int32
    assert seen["text"] == "héllo".encode()


def test_string_outputs_from_str_and_bytes():
    with tf.Graph().as_default():
        y = tf.py_func(lambda: np.array(["a", "bé"]), [], tf.string)
        # a list is several outputs, as in TF
        two = tf.py_func(lambda: ["a", "b"], [], tf.string)
        z = tf.py_func(lambda: b"raw", [], tf.string)
        got_y, got_z = _run([y, z])
        with pytest.raises(tf.errors.InvalidArgumentError, match="returns 2 values"):
            _run(two)
    assert got_y.tolist() == [b"a", "bé".encode()]
    assert got_z == b"raw"


def test_wrong_return_dtype_or_count_is_invalid_argument():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2])
        wrong_type = tf.py_func(lambda a: a.astype(np.float64), [x], tf.float32)
        python_float = tf.py_func(lambda a: 1.0, [x], tf.float32)
        wrong_count = tf.py_func(lambda a: (a, a), [x], [tf.float32])
        ok = tf.py_func(lambda a: a + 1, [x], tf.float32)
        with tf.Session() as s:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="0-th value returned by pyfunc_[0-9]+ is double, but "
                                     "expects float"):
                s.run(wrong_type, {x: [1, 2]})
            with pytest.raises(tf.errors.InvalidArgumentError, match="is double"):
                s.run(python_float, {x: [1, 2]})
            with pytest.raises(tf.errors.InvalidArgumentError, match="returns 2 values, but expects to see 1"):
                s.run(wrong_count, {x: [1, 2]})
            np.testing.assert_array_equal(s.run(ok, {x: [1, 2]}), [2, 3])


@pytest.mark.parametrize("exc,cls", [
    (ValueError("bad value"), tf.errors.InvalidArgumentError),
    (TypeError("bad type"), tf.errors.InvalidArgumentError),
    (StopIteration(), tf.errors.OutOfRangeError),
    (MemoryError(), tf.errors.ResourceExhaustedError),
    (NotImplementedError("later"), tf.errors.UnimplementedError),
    (RuntimeError("boom"), tf.errors.UnknownError),
])
def test_exceptions_map_to_tf_error_classes(exc, cls):
    def raise_it(a):
        raise exc

    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        y = tf.py_func(raise_it, [x], tf.float32, name="my_func")
        with tf.Session() as s:
            with pytest.raises(cls) as ei:
                s.run(y, {x: 1.0})
            assert type(exc).__name__ in str(ei.value)
            assert "my_func" in str(ei.value)  # the node
            assert s.run(x * 2, {x: 2.0}) == 4.0


def test_keyboard_interrupt_passes_through():
    def interrupt(a):
        raise KeyboardInterrupt

    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        y = tf.py_func(interrupt, [x], tf.float32)
        with tf.Session() as s:
            with pytest.raises(KeyboardInterrupt):
                s.run(y, {x: 1.0})
            assert s.run(x + 1, {x: 1.0}) == 2.0


def test_stateful_runs_every_time_stateless_may_merge():
    calls = []

    def f(a):
        calls.append(1)
        return a

    with tf.Graph().as_default():
        c = tf.constant(3.0)
        s1 = tf.py_func(f, [c], tf.float32, stateful=False)
        s2 = tf.py_func(f, [c], tf.float32, stateful=False)
        assert s1.op.type == "PyFuncStateless"
        st = tf.py_func(f, [c], tf.float32)
        with tf.Session() as s:
            assert s.run([st, st]) == [3.0, 3.0]
            assert len(calls) == 1  # one op, one call per step
            s.run(st)
            assert len(calls) == 2
            s.run([s1, s2])


def test_not_differentiable_and_graph_keeps_function():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [2])
        y = tf.py_func(lambda a: a * a, [x], tf.float32)
        assert tf.gradients(tf.reduce_sum(y), x) == [None]
        # the GraphDef carries the token; importing it into another graph of this process
        # still finds the function while the first graph lives
        gd = g.as_graph_def()
    with tf.Graph().as_default():
        x2 = tf.placeholder(tf.float32, [2], name="x2")
        (y2,) = tf.import_graph_def(gd, input_map={x.name: x2}, return_elements=[y.name])
        np.testing.assert_array_equal(_run(y2, {x2: [2.0, 3.0]}), [4.0, 9.0])


def test_unregistered_token_is_a_clear_error():
    g = tf.Graph()
    with g.as_default():
        y = tf.py_func(lambda: np.float32(1), [], tf.float32)
    gd = g.as_graph_def()
    del g, y
    import gc

    gc.collect()
    with tf.Graph().as_default():
        (y2,) = tf.import_graph_def(gd, return_elements=["PyFunc:0"])
        with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError,
                                              match="not registered"):
            s.run(y2)
