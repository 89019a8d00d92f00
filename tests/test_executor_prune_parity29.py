"""The executor runs only what a step's fetches need of a while loop or a cond, as TF 1.15.

TF 1.15 builds ``tf.while_loop`` as Enter/Merge/Switch/NextIteration/Exit ops per loop
variable and ``tf.cond`` as a Merge per output, and its executor runs only the ops the
fetched Exits/Merges need: a loop variable nothing fetched reads (nor the condition, nor the
bodies of the needed ones) is not computed, its inputs neither (an unfed placeholder there is
fine) and its side effects do not run. Every expected value and effect below was measured in
TF 1.15 (tensorflow-cpu 1.15.0) with the same program.
"""

import numpy as np
import pytest

import tideflow as tf
from tideflow.runtime import executor


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default() as g:
        yield g


@pytest.fixture(params=[True, False], ids=["inlined", "sub_plan"])
def inline(request, monkeypatch):
    # the same rules hold when a loop runs as a sub-plan (its kernel) instead of inlined
    monkeypatch.setattr(executor, "INLINE_CONTROL_FLOW", request.param)
    return request.param


def _run(fetch, feed=None, after=None):
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        out = s.run(fetch, feed)
        return out, (s.run(after) if after is not None else None)


def test_unfed_placeholder_behind_an_unneeded_loop_variable(inline):
    p = tf.placeholder(tf.float32, [], name="p")
    i, x = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x + p), [0, tf.constant(1.0)])
    assert _run(i)[0] == 3  # TF 1.15: 3
    with pytest.raises(tf.errors.InvalidArgumentError, match="must feed a value for placeholder"):
        _run(x)
    assert _run(x, {p: 2.0})[0] == 7.0


def test_unfed_placeholder_as_an_unneeded_initial_value(inline):
    p = tf.placeholder(tf.float32, [])
    i, _ = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2.0), [0, p])
    assert _run(i)[0] == 3


def test_side_effects_of_an_unneeded_loop_variable_do_not_run(inline):
    v = tf.Variable(0.0)
    i, x = tf.while_loop(lambda i, x: i < 3,
                         lambda i, x: (i + 1, x + tf.assign_add(v, 1.0)), [0, tf.constant(1.0)])
    assert _run(i, after=v) == (3, 0.0)  # TF 1.15: v stays 0
    assert _run(x, after=v)[1] == 3.0


def test_stateful_body_op_feeding_no_output_never_runs(inline):
    v = tf.Variable(0.0)
    r = tf.get_variable("r", initializer=0.0, use_resource=True)

    def body(i, x):
        tf.assign_add(v, 1.0)
        r.assign_add(1.0)
        return i + 1, x + 1

    i, x = tf.while_loop(lambda i, x: i < 3, body, [0, tf.constant(1.0)])
    out, after = _run([i, x], after=[v, r])
    assert out == [3, 4.0] and after == [0.0, 0.0]  # TF 1.15: neither runs


def test_control_dependencies_in_the_body(inline):
    v = tf.Variable(0.0)

    def body(i, x):
        with tf.control_dependencies([tf.assign_add(v, 1.0)]):
            x2 = x + 1
        return i + 1, x2

    i, x = tf.while_loop(lambda i, x: i < 3, body, [0, tf.constant(1.0)])
    assert _run(i, after=v) == (3, 0.0)
    assert _run(x, after=v) == (4.0, 3.0)


def test_control_dependency_on_the_needed_variable_runs(inline):
    v = tf.Variable(0.0)

    def body(i, x):
        with tf.control_dependencies([tf.assign_add(v, 1.0)]):
            i2 = i + 1
        return i2, x + 1

    i, _ = tf.while_loop(lambda i, x: i < 3, body, [0, tf.constant(1.0)])
    assert _run(i, after=v) == (3, 3.0)


def test_variables_the_condition_and_needed_bodies_read_are_needed(inline):
    v = tf.Variable(0.0)
    i, _, _ = tf.while_loop(lambda i, x, y: x < 3.0,
                            lambda i, x, y: (i + 1, x + 1.0, y + tf.assign_add(v, 1.0)),
                            [0, tf.constant(0.0), tf.constant(0.0)])
    assert _run(i, after=v) == (3, 0.0)

    w = tf.Variable(0.0)
    out = tf.while_loop(
        lambda i, x, y, z: i < 10,
        lambda i, x, y, z: (i + tf.cast(x, tf.int32), x + y, y + 1.0, z + tf.assign_add(w, 1.0)),
        [0, tf.constant(0.0), tf.constant(1.0), tf.constant(0.0)])
    assert _run(out[0], after=w) == (10, 0.0)  # i reads x, x reads y: z alone is left out


def test_invariant_read_by_a_needed_variable_and_print(inline, capsys):
    p = tf.placeholder(tf.float32, [])
    q = tf.constant(5.0)
    i, x, _, _ = tf.while_loop(
        lambda i, x, y, z: i < 3,
        lambda i, x, y, z: (i + 1, x + q, y + p, tf.Print(z, [z], "PRINTED ")),
        [0, tf.constant(0.0), tf.constant(0.0), tf.constant(0.0)])
    assert _run([i, x])[0] == [3, 15.0]
    assert "PRINTED" not in capsys.readouterr().err


def test_py_func_behind_an_unneeded_variable(inline):
    calls = []

    def f(a):
        calls.append(1)
        return a

    def body(i, x):
        y = tf.py_func(f, [x], tf.float32)
        y.set_shape([])
        return i + 1, y

    i, x = tf.while_loop(lambda i, x: i < 3, body, [0, tf.constant(1.0)])
    assert _run(i)[0] == 3 and not calls
    assert _run(x)[0] == 1.0 and len(calls) == 3


def test_nested_loops(inline):
    v = tf.Variable(0.0)
    p = tf.placeholder(tf.float32, [])

    def outer(i, x):
        j, y = tf.while_loop(lambda j, y: j < 2,
                             lambda j, y: (j + 1, y + tf.assign_add(v, 1.0) + p), [0, x])
        return i + j, y

    i, _ = tf.while_loop(lambda i, x: i < 4, outer, [0, tf.constant(1.0)])
    assert _run(i, after=v) == (4, 0.0)


def test_cond_in_the_body(inline):
    v = tf.Variable(0.0)
    p = tf.placeholder(tf.float32, [])

    def body(i, x):
        return i + 1, tf.cond(i < 2, lambda: x + tf.assign_add(v, 1.0), lambda: x + p)

    i, _ = tf.while_loop(lambda i, x: i < 3, body, [0, tf.constant(1.0)])
    assert _run(i, after=v) == (3, 0.0)

    w = tf.Variable(0.0)

    def body2(i, x):
        return tf.cond(i < 2, lambda: (i + 1, x + tf.assign_add(w, 1.0)), lambda: (i + 1, x))

    i2, _ = tf.while_loop(lambda i, x: i < 3, body2, [0, tf.constant(1.0)])
    assert _run(i2, after=w) == (3, 0.0)  # the cond's other output is not needed


def test_cond_runs_only_what_the_fetched_outputs_need(inline):
    v = tf.Variable(0.0)
    p = tf.placeholder(tf.float32, [])
    x = tf.constant(1.0)
    a, _ = tf.cond(x > 0, lambda: (x + 1, x + tf.assign_add(v, 1.0)), lambda: (x - 1, x + p))
    assert _run(a, after=v) == (2.0, 0.0)
    a2, _ = tf.cond(x < 0, lambda: (x + 1, x + tf.assign_add(v, 1.0)), lambda: (x - 1, x + p))
    assert _run(a2, after=v) == (0.0, 0.0)

    w = tf.Variable(0.0)

    def branch():
        with tf.control_dependencies([tf.assign_add(w, 1.0)]):
            return x + 1, x + 2

    _, b = tf.cond(x > 0, branch, lambda: (x - 1, x))
    assert _run(b, after=w) == (3.0, 1.0)


def test_tensor_array_loop_variable(inline):
    p = tf.placeholder(tf.float32, [])
    ta = tf.TensorArray(tf.float32, size=3)
    i, _ = tf.while_loop(lambda i, ta: i < 3, lambda i, ta: (i + 1, ta.write(i, p)), [0, ta])
    assert _run(i)[0] == 3
    ta = tf.TensorArray(tf.float32, size=3)
    _, ta2 = tf.while_loop(lambda i, ta: i < 3,
                           lambda i, ta: (i + 1, ta.write(i, tf.cast(i, tf.float32))), [0, ta])
    np.testing.assert_array_equal(_run(ta2.stack())[0], [0.0, 1.0, 2.0])


def test_maximum_iterations(inline):
    v = tf.Variable(0.0)
    p = tf.placeholder(tf.float32, [])
    i, _ = tf.while_loop(lambda i, x: i < 10, lambda i, x: (i + 1, x + tf.assign_add(v, 1.0)),
                         (0, tf.constant(1.0)), maximum_iterations=4)
    assert _run(i, after=v) == (4, 0.0)
    j, _ = tf.while_loop(lambda i, x: i < 10, lambda i, x: (i + 1, x + p),
                         (0, tf.constant(1.0)), maximum_iterations=4)
    assert _run(j)[0] == 4


def test_gradients_through_the_loop(inline):
    v = tf.Variable(0.0)
    p = tf.placeholder(tf.float32, [])
    x0 = tf.constant(2.0)
    i, x, _ = tf.while_loop(lambda i, x, z: i < 3,
                            lambda i, x, z: (i + 1, x * x, z + tf.assign_add(v, 1.0) + p),
                            [0, x0, tf.constant(0.0)])
    g = tf.gradients(x, x0)[0]
    assert _run(g, after=v) == (1024.0, 0.0)
    assert _run([g, x, i], after=v) == ([1024.0, 256.0, 3], 0.0)


def test_control_dependency_on_one_output_of_a_loop(inline):
    v = tf.Variable(0.0)
    i, _ = tf.while_loop(lambda i, x: i < 3,
                         lambda i, x: (i + 1, x + tf.assign_add(v, 1.0)), [0, tf.constant(1.0)])
    with tf.control_dependencies([i]):
        k = tf.constant(1)
    assert _run(k, after=v) == (1, 0.0)  # TF: only i's Exit is a control input
    assert _run(i.op, after=v) == (None, 0.0)


def test_loop_outputs_read_only_through_their_shape(inline):
    p = tf.placeholder(tf.float32, [])
    _, x = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x + p),
                         [0, tf.constant([1.0, 2.0])])
    np.testing.assert_array_equal(_run(tf.shape(x))[0], [2])


def test_loop_across_two_devices():
    v = tf.Variable(0.0)
    with tf.device("/cpu:1"):
        p = tf.placeholder(tf.float32, [])
        q = p * 2.0
        x0 = tf.constant(1.0) + 1.0
    with tf.device("/cpu:0"):
        i, x = tf.while_loop(lambda i, x: i < 3,
                             lambda i, x: (i + 1, x + q + tf.assign_add(v, 1.0)), [0, x0])
    with tf.device("/cpu:1"):
        i2 = i * 10
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as s:
        s.run(v.initializer)
        assert s.run(i2) == 30 and s.run(v) == 0.0
        s.run(x, {p: 1.0})
        assert s.run(v) == 3.0
