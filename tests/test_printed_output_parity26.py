"""Printed text of TF 1.x programs against TF 1.15's, continued (tests/test_printed_output_parity23
.py came first): each expected string was measured in TF 1.15. TF's own frames in a stack are
not reproduced (tideflow lists the user's frames only); paths are compared as TF names them."""

import os
import re
import subprocess
import sys
import textwrap
import weakref

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _error(sess, fetches, feed=None):
    with pytest.raises(tf.errors.OpError) as info:
        sess.run(fetches, feed)
    return info.value


def _user_lines(text):
    """The lines of a stack listing that name this file, with the source line after each."""
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        m = re.fullmatch(r'  File "[^"]*test_printed_output_parity26\.py", line \d+, in (.*)', line)
        if m:
            out += [m.group(1), lines[i + 1].strip()]
    return out


def _make_product(x):
    return tf.matmul(x, x, name="prod")


def test_an_op_error_shows_the_stack_that_made_its_op():
    # measured in TF 1.15: str(e) is the message, a blank line, "Original stack trace for
    # 'prod':" and the op's stack as traceback.format_list writes it (outermost first); the
    # message alone is e.message
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = _make_product(x)
    with tf.Session() as sess:
        e = _error(sess, y, {x: [[1.0, 2.0, 3.0]]})
    text = str(e)
    assert e.message.startswith("Matrix size-incompatible: In[0]: [1,3], In[1]: [1,3]\n\t [[node "
                                "prod (defined at ")
    assert text.startswith(e.message + "\n\nOriginal stack trace for 'prod':\n  File \"")
    assert text.endswith("\n")
    assert _user_lines(text)[-4:] == [
        "test_an_op_error_shows_the_stack_that_made_its_op", "y = _make_product(x)",
        "_make_product", 'return tf.matmul(x, x, name="prod")']
    # the same for an error a queue or an iterator raises
    q = tf.FIFOQueue(2, tf.float32, name="q")
    it = tf.data.Dataset.range(0).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        sess.run(q.close())
        e = _error(sess, q.dequeue(name="deq"))
        assert type(e) is tf.errors.OutOfRangeError
        assert "\n\nOriginal stack trace for 'deq':\n" in str(e)
        e = _error(sess, it)
        assert str(e).startswith("End of sequence\n\t [[node IteratorGetNext (defined at ")
        assert "\n\nOriginal stack trace for 'IteratorGetNext':\n" in str(e)


def test_an_error_naming_no_op_of_the_graph_is_its_message():
    # measured in TF 1.15: no op (a fetch's _Retval node, an error made by hand, a placement
    # error), no stack
    v = tf.Variable(1.0, name="v")
    with tf.Session() as sess:
        e = _error(sess, v)
        assert e.op is None
        assert str(e) == "Attempting to use uninitialized value v\n\t [[{{node _retval_v_0_0}}]]"
    assert str(tf.errors.InvalidArgumentError(None, None, "bad")) == "bad"
    with tf.device("/gpu:0"):
        a = tf.square(1.0, name="a")
    with tf.Session() as sess:
        e = _error(sess, a)
    assert e.op is None
    assert str(e).startswith("Cannot assign a device for operation a: node a (defined at ")
    assert str(e).endswith("The requested device appears to be a GPU, but CUDA is not "
                           "enabled.\n\t [[a]]")


def _build(x):
    return _make_product(x)


def test_op_traceback_is_the_whole_stack_outermost_first():
    # measured in TF 1.15: op.traceback holds (file, line, function, source line) for each
    # frame, the program's outermost first (TF's own frames follow it there)
    x = tf.placeholder(tf.float32, [2, 2])
    a = _build(x)
    b = _build(x)  # (a second call from another line: its own line, not the first one's)
    ta = [t for t in a.op.traceback if t[0] == __file__]
    tb = [t for t in b.op.traceback if t[0] == __file__]
    assert [t[2:] for t in ta] == [
        ("test_op_traceback_is_the_whole_stack_outermost_first", "a = _build(x)"),
        ("_build", "return _make_product(x)"),
        ("_make_product", 'return tf.matmul(x, x, name="prod")')]
    assert tb[0][3] == "b = _build(x)  # (a second call from another line: its own line, not " \
        "the first one's)"
    assert tb[0][1] == ta[0][1] + 1
    assert a.op.traceback[0][0] != __file__  # (pytest's frames above the test)


def test_an_op_made_for_another_shows_both_stacks():
    # measured in TF 1.15: "...which was originally created as op 'r1', defined at:" and the
    # first op's stack, its lines in common with the previous stack elided
    g = tf.get_default_graph()
    x = tf.placeholder(tf.float32, [None], name="x")
    a = tf.reshape(x, [3], name="r1")
    with g._original_op(a.op):
        b = tf.reshape(x, [3], name="r2")
    with tf.Session() as sess:
        text = str(_error(sess, b, {x: [1.0]}))
    first, second = text.split("\n...which was originally created as op 'r1', defined at:\n")
    assert first.startswith("Input to reshape is a tensor with 1 values, but the requested shape "
                            "has 3\n\t [[node r2 (defined at ")
    assert _user_lines(first)[-2:] == ["test_an_op_made_for_another_shows_both_stacks",
                                       'b = tf.reshape(x, [3], name="r2")']
    # pytest's frames above the test are the same in both: the first shown, then elided
    assert "[elided " in second
    assert _user_lines(second)[-2:] == ["test_an_op_made_for_another_shows_both_stacks",
                                        'a = tf.reshape(x, [3], name="r1")']


def _make_w():
    return tf.get_variable("w", [1])


def test_a_variable_made_twice_shows_where_it_was_first_made():
    # TF 1.15: "Originally defined at:" and traceback.format_list of the variable's stack, the
    # innermost frame first, at most 5 after TF's own frames are left out (TF 1.15's filter
    # looks for "tensorflow/python" where its files are under tensorflow_core/python, so it
    # lists five of its own frames instead)
    _make_w()
    with pytest.raises(ValueError) as info:
        _make_w()
    msg = str(info.value)
    head = ("Variable w already exists, disallowed. Did you mean to set reuse=True or "
            "reuse=tf.AUTO_REUSE in VarScope? Originally defined at:\n\n")
    assert msg.startswith(head)
    frames = re.findall(r'  File "([^"]*)", line \d+, in (\S+)\n    (.*)\n', msg[len(head):])
    assert len(frames) == 5
    assert frames[0] == (__file__, "_make_w", 'return tf.get_variable("w", [1])')
    assert frames[1] == (__file__, "test_a_variable_made_twice_shows_where_it_was_first_made",
                         "_make_w()")


def test_a_script_run_by_its_relative_path_is_named_so(tmp_path):
    # measured in TF 1.15 (Python 3.7), `python a10_where.py`: the script's frames are named as
    # the command line gave it; its path is absolute in "(defined at ...)" here (TF 1.15 names a
    # frame of its own there)
    script = tmp_path / "where.py"
    script.write_text(textwrap.dedent("""\
        import tideflow as tf
        sess = tf.Session()
        x = tf.placeholder(tf.float32, name="x")
        try:
            sess.run(x)
        except tf.errors.OpError as e:
            print(str(e))
        try:
            sess.run(tf.py_func(lambda a: 1 / 0, [1.0], tf.float32))
        except tf.errors.OpError as e:
            print(e.message.split(chr(10))[6])
        """))
    root = os.path.dirname(os.path.dirname(os.path.abspath(tf.__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run([sys.executable, "where.py"], check=False, cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert out == (
        "You must feed a value for placeholder tensor 'x' with dtype float\n"
        f"\t [[node x (defined at {script}:3) ]]\n\n"
        "Original stack trace for 'x':\n"
        '  File "where.py", line 3, in <module>\n'
        '    x = tf.placeholder(tf.float32, name="x")\n\n'
        # (a py_func's error quotes the Python traceback, the script named so there too)
        '  File "where.py", line 9, in <lambda>\n')


def test_tf_test_dtype_and_proto_reports_are_tfs():
    # measured in TF 1.15: assertDTypeEqual's is assertEqual's of the array's dtype and the
    # dtype as given; assertProtoEquals' is absltest's line diff of the two texts (msg first)
    t = tf.test.TestCase("__init__")
    with pytest.raises(AssertionError) as info:
        t.assertDTypeEqual(np.zeros(2, np.float32), np.int32)
    assert str(info.value) == "dtype('float32') != <class 'numpy.int32'>"
    with pytest.raises(AssertionError) as info:
        t.assertDTypeEqual([1, 2], np.float32)
    assert str(info.value) == "dtype('int64') != <class 'numpy.float32'>"
    t.assertDTypeEqual(np.zeros(2, np.float32), np.float32)
    with pytest.raises(AssertionError) as info:
        t.assertProtoEquals("name: 'a' op: 'X'", tf.NodeDef(name="b", op="X"), msg="hello")
    assert str(info.value) == 'hello:\n- name: "a"\n?        ^\n+ name: "b"\n?        ^\n  op: "X"\n'
    with pytest.raises(AssertionError) as info:
        t.assertProtoEquals(tf.NodeDef(name="a"), tf.NodeDef(name="b"))
    assert str(info.value) == '\n- name: "a"\n?        ^\n+ name: "b"\n?        ^\n'
    with pytest.raises(AssertionError) as info:
        t.assertProtoEquals("name: 'a' attr { key: 'v' value { f: 1.0 } }", tf.NodeDef(name="a"))
    assert str(info.value) == ('\n  name: "a"\n- attr {\n-   key: "v"\n-   value {\n-     f: 1.0\n'
                               '-   }\n- }\n')
    t.assertProtoEquals("name: 'a'", tf.NodeDef(name="a"))


def test_layers_and_tensor_arrays_print_as_plain_objects():
    # measured in TF 1.15: neither defines a repr ("<tensorflow.python.keras.layers.core.Dense
    # object at 0x7f...>", "<tensorflow.python.ops.tensor_array_ops.TensorArray object at ...>")
    layer = tf.keras.layers.Dense(3)
    model = tf.keras.Sequential([layer])
    ta = tf.TensorArray(tf.float32, 3)
    for obj in (layer, model, ta):
        assert re.fullmatch(rf"<[\w.]+\.{type(obj).__name__} object at 0x[0-9a-f]+>",
                            repr(obj)), repr(obj)
    assert re.fullmatch(r"\[<[\w.]+\.Dense object at 0x[0-9a-f]+>\]", str(model.layers))


def _flatten(x):
    return tf.reshape(x, [6], name="flat")


def test_an_error_in_a_gradient_shows_the_forward_ops_stack_too():
    # measured in TF 1.15: a gradient's ops stand for the forward op (their _original_op), so
    # the error shows both stacks (TF's own frames left out here)
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    gy = tf.placeholder(tf.float32, [None], name="gy")
    y = _flatten(x)
    g = tf.gradients(y, x, grad_ys=gy)[0]
    assert (g.op.name, g.op._original_op.name) == ("gradients/flat_grad/Reshape", "flat")
    with tf.Session() as sess:
        e = _error(sess, g, {x: np.zeros([2, 3]), gy: np.zeros([5])})
    first, second = str(e).split("\n...which was originally created as op 'flat', defined at:\n")
    assert first.startswith("Input to reshape is a tensor with 5 values, but the requested shape "
                            "has 6\n\t [[node gradients/flat_grad/Reshape (defined at ")
    assert _user_lines(first)[-2:] == ["test_an_error_in_a_gradient_shows_the_forward_ops_stack_too",
                                       "g = tf.gradients(y, x, grad_ys=gy)[0]"]
    # (the frames past the gradient's stack are shown, as TF's own frames make room for them)
    assert _user_lines(second)[-4:] == ["test_an_error_in_a_gradient_shows_the_forward_ops_stack_too",
                                        "y = _flatten(x)",
                                        "_flatten", 'return tf.reshape(x, [6], name="flat")']


def test_tf_test_raises_contexts_report_as_tfs():
    # measured in TF 1.15: assertRaisesOpError's failure is raised while handling the first
    # ("During handling of the above exception"), not from it; assertRaisesRegexp is TF's own
    # name for assertRaisesRegex (no DeprecationWarning)
    import warnings

    t = tf.test.TestCase("__init__")
    with pytest.raises(AssertionError) as info, t.assertRaisesOpError("x"):
        pass
    assert str(info.value) == ("Exception of type <class 'AssertionError'>: OpError not raised")
    assert info.value.__cause__ is None
    assert str(info.value.__context__) == "OpError not raised"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with t.assertRaisesRegexp(ValueError, "ab"):
            raise ValueError("abc")


def test_keras_steps_fail_with_the_runtimes_words():
    # measured in TF 1.15: Keras runs its steps through Session._make_callable_from_options,
    # whose errors are the runtime's: the node as "[[{{node X}}]]", no op, no stack
    m = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(2,))])
    m.compile("sgd", "sparse_categorical_crossentropy")
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        m.fit(np.zeros([4, 2]), np.array([0, 1, 5, 2]), verbose=0)
    assert info.value.op is None
    assert str(info.value) == (
        "Received a label value of 5 which is outside the valid range of [0, 3).  Label values: "
        "0 1 5 2\n\t [[{{node loss/dense_loss/SparseSoftmaxCrossEntropyWithLogits/"
        "SparseSoftmaxCrossEntropyWithLogits}}]]")
    x = tf.keras.backend.placeholder([None])
    f = tf.keras.backend.function([x], [tf.reshape(x, [3], name="r")])
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f([np.zeros([2])])
    assert str(info.value) == ("Input to reshape is a tensor with 2 values, but the requested "
                               "shape has 3\n\t [[{{node r}}]]")


def test_supervisor_logs_queue_runners_before_the_first_step_rate(tmp_path, caplog):
    # measured in TF 1.15 (two programs, managed_session and slim's learning.train): the
    # step counter thread's first "global_step/sec: 0" follows the starting thread's next line
    gs = tf.train.get_or_create_global_step()
    inc = tf.assign_add(gs, 1)
    sv = tf.train.Supervisor(logdir=str(tmp_path), save_model_secs=1000,
                             save_summaries_secs=1000)
    with caplog.at_level("INFO", logger="tensorflow"), sv.managed_session() as sess:
        sess.run(inc)
    lines = [r.getMessage() for r in caplog.records]
    assert lines.index("Starting queue runners.") < lines.index("global_step/sec: 0")


class _Local:
    pass


def _make_add():
    return tf.constant(1.0) + 1.0


def _build_with_a_local():
    local = _Local()
    _make_add()  # (its caller's frame, this one, is what the stack walk keeps)
    return weakref.ref(local)


def test_the_stack_walk_keeps_no_finished_frame_past_graph_building():
    c = tf.constant(2.0)
    ref = _build_with_a_local()
    with tf.Session() as sess:
        sess.run(c)  # (a plan built: graph building done for now)
    assert ref() is None
    ref = _build_with_a_local()
    tf.get_default_graph().finalize()
    assert ref() is None
