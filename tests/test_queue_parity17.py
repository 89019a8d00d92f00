"""Queues, readers, Python-function ops and printing as TF 1.x programs use them, against the
values and messages real TF 1.15 printed for the same programs."""

import sys

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _error(sess, fetch):
    try:
        sess.run(fetch)
    except tf.errors.OpError as e:
        return f"{type(e).__name__}: {e.message.splitlines()[0]}"
    return None


def test_batch_join_cuts_later_lists_to_the_first_and_names_a_short_one():
    x, y = tf.constant([1, 2]), tf.constant([3, 4])
    # a longer later list loses its extra tensors, as TF's zip does
    b = tf.train.batch_join([[x], [y, y]], batch_size=2)
    assert (b.name, b.shape.as_list()) == ("batch_join:0", [2, 2])
    assert [op.name for op in tf.get_default_graph().get_operations()][-3:] == [
        "batch_join/fraction_of_32_full", "batch_join/n", "batch_join"]
    with pytest.raises(ValueError) as e:
        tf.train.batch_join([[x, y], [y]], batch_size=2)
    assert str(e.value) == (
        "Inconsistent SparseTensors list: [<tf.Tensor 'Const:0' shape=(2,) dtype=int32>, "
        "<tf.Tensor 'Const_1:0' shape=(2,) dtype=int32>] vs. "
        "[<tf.Tensor 'Const_1:0' shape=(2,) dtype=int32>]")


def test_reader_names_what_is_wrong_with_its_work_queue():
    cases = [(tf.FIFOQueue(5, [tf.string, tf.string]), ["a", "b"]),
             (tf.FIFOQueue(5, tf.string), [["a", "b"]]),
             (tf.FIFOQueue(5, tf.float32), 1.0)]
    got = []
    for q, value in cases:
        key, _ = tf.IdentityReader().read(q)
        with tf.Session() as sess:
            sess.run(q.enqueue(value))
            got.append(_error(sess, key))
    assert got == ["InvalidArgumentError: Expected single component queue",
                   "InvalidArgumentError: Expected to dequeue a one-element string tensor",
                   "InvalidArgumentError: Expected queue with single string component"]


def test_an_op_refused_for_its_types_still_takes_its_name():
    failing = [lambda: tf.decode_raw(tf.constant(["a"]), tf.string),
               lambda: tf.decode_raw(tf.constant([1]), tf.uint8),
               lambda: tf.add(tf.constant(1), tf.constant("a")),
               lambda: tf.matmul(tf.constant([1.]), tf.constant([1.]))]
    for f in failing:
        with pytest.raises((TypeError, ValueError)):
            f()
    names = [tf.decode_raw(tf.constant(["a"]), tf.uint8).name, tf.add(1, 2).name,
             tf.matmul([[1.]], [[1.]]).name]
    assert names == ["DecodeRaw_2:0", "Add_1:0", "MatMul_1:0"]
    # an invalid name is refused before it is taken
    with pytest.raises(ValueError):
        tf.identity(tf.constant(1), name="-bad")
    assert tf.identity(tf.constant(1)).name == "Identity:0"


def test_py_func_converts_its_python_inputs_inside_its_scope_and_wants_a_list():
    y = tf.py_func(lambda a, b: a + b, [1, np.float32(2.)], tf.float32)
    v = tf.Variable([1., 2.])
    y2 = tf.py_func(lambda a, b: a, [v, "s"], tf.float32)
    assert [op.name for op in tf.get_default_graph().get_operations()
            if "PyFunc" in op.name] == [
        "PyFunc/input_0", "PyFunc/input_1", "PyFunc", "PyFunc_1/input_1", "PyFunc_1"]
    assert [t.name for t in y2.op.inputs] == ["Variable/read:0", "PyFunc_1/input_1:0"]
    assert y.op.get_attr("Tin") == [tf.int32, tf.float32]
    with pytest.raises(TypeError) as e:
        tf.py_func(lambda a: a, tf.constant(1.), tf.float32)
    assert str(e.value) == ("Expected list for 'input' argument to 'PyFunc' Op, not "
                            "Tensor(\"Const:0\", shape=(), dtype=float32).")


def _run_errors(fn_touts):
    out = []
    for f, tout in fn_touts:
        with tf.Graph().as_default():
            y = tf.py_func(f, [], tout)
            with tf.Session() as sess:
                err = _error(sess, y)
                op = y if isinstance(y, tf.Operation) else (y[0] if isinstance(y, list)
                                                            else y).op
                out.append(err.replace(op.get_attr("token").decode(), "T") if err else None)
    return out


def test_py_func_converts_then_counts_then_checks_what_it_returns():
    assert _run_errors([
        (lambda: None, tf.float32), (lambda: [None], tf.float32),
        (lambda: None, []), (lambda: [None], []),
        (lambda: None, [tf.float32, tf.float32]), (lambda: [None], [tf.float32, tf.float32]),
        (lambda: np.zeros(2, dtype=[("a", "i4")]), tf.float32),
        (lambda: np.array([1, "a"], dtype=object), tf.string),
        (lambda: [1, 2], []), (lambda: np.array(["a", "b"]), tf.int32),
        (lambda: np.array([1, 2], np.uint32), tf.int32),
    ]) == [
        "InvalidArgumentError: T returns 0 values, but expects to see 1 values.",
        "InternalError: Unsupported object type NoneType",
        None,
        "InternalError: Unsupported object type NoneType",
        "InvalidArgumentError: T returns 0 values, but expects to see 2 values.",
        "InternalError: Unsupported object type NoneType",
        "InternalError: Unsupported numpy data type",
        "InternalError: Unsupported object type int",
        "InvalidArgumentError: T returns 2 values, but expects to see 0 values.",
        "InvalidArgumentError: 0-th value returned by T is string, but expects int32",
        "InvalidArgumentError: 0-th value returned by T is uint32, but expects int32",
    ]


def test_py_func_maps_the_python_class_of_what_it_raises_tf_errors_too():
    got = []
    for exc in [ValueError("bad v"), KeyError("k"), StopIteration(), IndexError("ix"),
                tf.errors.InvalidArgumentError(None, None, "tfinv"),
                tf.errors.OutOfRangeError(None, None, "tfoor")]:
        with tf.Graph().as_default():
            def f(x, exc=exc):
                raise exc
            y = tf.py_func(f, [tf.constant(1.)], tf.float32)
            with tf.Session() as sess:
                got.append(_error(sess, y))
    assert got == ["InvalidArgumentError: ValueError: bad v",
                   "UnknownError: KeyError: 'k'",
                   "OutOfRangeError: StopIteration: ",
                   "UnknownError: IndexError: ix",
                   "UnknownError: InvalidArgumentError: tfinv",
                   "UnknownError: OutOfRangeError: tfoor"]


def test_py_function_converts_returned_python_values_by_tf_rules():
    got = []
    for value, dtype in [(1.5, tf.int32), ([1.5, 2], tf.int32), (np.float64(1.5), tf.int32),
                         (np.array([1.5]), tf.int64), (2, tf.float32), (True, tf.int32),
                         (1, tf.bool), (1.0, tf.bool), (3, tf.string), ("a", tf.int32),
                         (1.5, tf.float16), (1 + 2j, tf.float32)]:
        with tf.Graph().as_default():
            w = tf.py_function(lambda v=value: v, [], dtype)
            with tf.Session() as sess:
                err = _error(sess, w)
                got.append(err if err else sess.run(w).tolist())
    assert got == [
        "InvalidArgumentError: TypeError: Cannot convert 1.5 to EagerTensor of dtype int32",
        "InvalidArgumentError: TypeError: Cannot convert 1.5 to EagerTensor of dtype int32",
        1, [1], 2.0, 1,
        "InvalidArgumentError: TypeError: Cannot convert 1 to EagerTensor of dtype bool",
        "InvalidArgumentError: TypeError: Cannot convert 1.0 to EagerTensor of dtype bool",
        "InvalidArgumentError: TypeError: Cannot convert 3 to EagerTensor of dtype string",
        "InvalidArgumentError: TypeError: Cannot convert 'a' to EagerTensor of dtype int32",
        1.5,
        "InvalidArgumentError: TypeError: Cannot convert (1+2j) to EagerTensor of dtype float",
    ]


def test_complex_and_bfloat16_values_print_as_question_marks(capfd):
    c = tf.constant(np.arange(6).reshape(2, 3), tf.complex64)
    b = tf.constant([1.5, 2], tf.bfloat16)
    with tf.Session() as sess:
        sess.run(tf.print(c, tf.constant(3 + 1j, tf.complex64), output_stream=sys.stdout))
        sess.run(tf.print(c, summarize=2, output_stream=sys.stdout))
        sess.run(tf.Print(c, [c, b], summarize=2, message="P:"))
        assert sess.run(tf.strings.format("{} {}", [b, tf.zeros([0], tf.complex64)])) == \
            b"[? ?] []"
        assert _error(sess, tf.Assert(False, [c[0, :2], b])) == \
            "InvalidArgumentError: assertion failed: [? ?] [? ?]"
    out, err = capfd.readouterr()
    assert out.splitlines() == ["[? ? ?...] [?]", "[? ?...]"]
    assert err.splitlines()[-1] == "P:[? ?...][? ?]"


def test_print_names_an_unsupported_output_stream_in_tf_words():
    with pytest.raises(ValueError) as e:
        tf.print(tf.constant(1), output_stream="bad")
    assert str(e.value) == (
        "Unsupported output stream, logging level, or file.bad. Supported streams are "
        "sys.stdout, sys.stderr, tf.logging.info, tf.logging.warning, tf.logging.error. File "
        "needs to be in the form of 'file://<filepath>'.")


def test_py_function_gradient_is_one_eager_py_func_after_the_op():
    x = tf.constant(1.5)
    y = tf.constant(-2.0)
    p, q = tf.py_function(lambda a, b: (a * a * b, a - 3.0 * b), [x, y],
                          [tf.float32, tf.float32])
    dx, dy = tf.gradients(p + 2.0 * q, [x, y])
    assert (dx.name, dy.name) == ("gradients/EagerPyFunc_grad/EagerPyFunc:0",
                                  "gradients/EagerPyFunc_grad/EagerPyFunc:1")
    assert [t.name for t in dx.op.inputs] == ["gradients/add_grad/Reshape:0",
                                              "gradients/mul_grad/Reshape_1:0"]
    assert [c.name for c in dx.op.control_inputs] == ["EagerPyFunc"]
    assert sorted(dx.op.node_def.attr) == ["Tin", "Tout", "is_async", "token"]
    z = tf.py_function(lambda a: np.float32(np.sin(a.numpy())), [x], tf.float32)
    gz = tf.gradients(z, x)
    w = tf.py_function(lambda a: a * 2., [tf.constant([1., 2.])], tf.float32)
    gw = tf.gradients(w, w.op.inputs[0])
    # (TF 1.15's op list: no op of the traced function enters the graph)
    assert [op.name for op in tf.get_default_graph().get_operations()][-12:] == [
        "gradients/EagerPyFunc_grad/EagerPyFunc", "EagerPyFunc_1", "gradients_1/Shape",
        "gradients_1/grad_ys_0", "gradients_1/Fill", "gradients_1/EagerPyFunc_1_grad/EagerPyFunc",
        "Const_2", "EagerPyFunc_2", "gradients_2/Shape", "gradients_2/grad_ys_0",
        "gradients_2/Fill", "gradients_2/EagerPyFunc_2_grad/EagerPyFunc"]
    assert gw[0].shape.as_list() == [2]
    with tf.Session() as sess:
        assert sess.run([dx, dy]) == [pytest.approx(-4.0), pytest.approx(-3.75)]
        assert sess.run(gz) == [0.0]
        assert sess.run(gw)[0].tolist() == [2.0, 2.0]


def test_dequeue_many_takes_a_one_element_vector_count():
    q = tf.FIFOQueue(3, tf.int32, shapes=[[2]])
    d = q.dequeue_many(tf.constant([2]))
    assert d.shape.as_list() == [2, 2]
    assert q.dequeue_up_to(tf.constant([2])).shape.as_list() == [None, 2]
    with tf.Session() as sess:
        sess.run(q.enqueue_many([[[1, 2], [3, 4]]]))
        assert sess.run(d).tolist() == [[1, 2], [3, 4]]


def test_reader_read_wants_a_queue_or_its_handle():
    q = tf.FIFOQueue(5, tf.string)
    reader = tf.IdentityReader()
    key, value = reader.read(q.queue_ref)
    with pytest.raises(AttributeError, match="'str' object has no attribute 'queue_ref'"):
        reader.read("notaqueue")
    with tf.Session() as sess:
        sess.run(q.enqueue("z"))
        assert sess.run([key, value]) == [b"z", b"z"]


def test_print_to_a_log_stream_writes_tf_cpp_log_lines(capfd, monkeypatch):
    monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", "0")
    x = tf.constant([1, 2])
    ops = [tf.print("v", x, output_stream=tf.logging.info),
           tf.print("w", x, output_stream=tf.logging.error),
           tf.print("z", x, output_stream=tf.compat.v1.logging.warning, end="")]
    with tf.Session() as sess:
        for op in ops:
            sess.run(op)
    err = capfd.readouterr().err.splitlines()
    assert [line.split(": ", 1)[1] for line in err if line] == [
        "I tensorflow/core/kernels/logging_ops.cc:166] v [1 2]",
        "E tensorflow/core/kernels/logging_ops.cc:170] w [1 2]",
        "W tensorflow/core/kernels/logging_ops.cc:168] z [1 2]"]
    assert len(err) == 5  # (each print's '\\n' end, then LOG's own)


def test_py_func_refuses_a_bad_tout_and_a_non_callable_in_tf_words():
    for f in (tf.py_func, tf.py_function):
        for tout, shown in [("foo", "'foo'"), ([[tf.float32]], "[tf.float32]"), (None, "None")]:
            with pytest.raises(TypeError) as e:
                f(lambda: 1., [], tout)
            assert str(e.value) == f"Expected DataType for argument 'Tout' not {shown}."
        with pytest.raises(ValueError, match=r"^Expected func to be callable, got func of type "
                                             r"<class 'NoneType'>$"):
            f(None, [], tf.float32)
