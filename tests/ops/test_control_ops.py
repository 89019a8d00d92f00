"""group/tuple/with_dependencies, Assert, Print, CheckNumerics and the check_ops assertions."""

import numpy as np
import pytest

import tideflow as tf


def _need(*names):
    missing = [n for n in names if not hasattr(tf, n)]
    if missing:
        pytest.skip(f"needs tf.{', tf.'.join(missing)} (math/array ops not merged yet)")


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


# ------------------------------------------------------------------------------------------
# group, tuple, with_dependencies
# ------------------------------------------------------------------------------------------


def test_group_builds_one_noop_with_control_inputs():
    a = tf.constant(1.0, name="a")
    b = tf.constant(2.0, name="b")
    c = tf.no_op(name="c")
    g = tf.group(a, [b, [c]])
    assert g.type == "NoOp" and g.name == "group_deps"
    assert {op.name for op in g.control_inputs} == {"a", "b", "c"}
    assert tf.group(name="empty").control_inputs == []
    assert tf.group(a, name="named").name == "named"


def test_group_rejects_bad_arguments():
    with pytest.raises(ValueError, match="Unknown keyword arguments: foo"):
        tf.group(tf.constant(1), foo=2)
    with pytest.raises(TypeError, match="Expected tf.group"):
        tf.group(tf.constant(1), 3)


def test_group_gathers_one_noop_per_device():
    with tf.device("/cpu:0"):
        a = tf.constant(1.0)
    with tf.device("/device:CPU:1"):
        b = tf.constant(2.0)
    g = tf.group(a, b)
    inner = g.control_inputs
    assert len(inner) == 2 and all(op.type == "NoOp" for op in inner)
    assert sorted(op.device for op in inner) == sorted([a.device, b.device])
    assert {c.name for op in inner for c in op.control_inputs} == {a.op.name, b.op.name}


def test_group_runs_every_stateful_input(capsys):
    p1 = tf.Print(tf.constant(1), [tf.constant(10)], message="first")
    p2 = tf.Print(tf.constant(2), [tf.constant(20)], message="second")
    with tf.Session() as sess:
        assert sess.run(tf.group(p1, [p2])) is None
    err = capsys.readouterr().err
    assert "first[10]" in err and "second[20]" in err


def test_control_dependencies_order_stateful_ops(capsys):
    p1 = tf.Print(tf.constant(1), [], message="A")
    with tf.control_dependencies([p1]):
        p2 = tf.Print(tf.constant(2), [], message="B")
    with tf.Session() as sess:
        assert sess.run(p2) == 2
    assert capsys.readouterr().err.splitlines() == ["A", "B"]


def test_tuple_gates_each_output_on_all_inputs(capsys):
    a = tf.Print(tf.constant(1), [], message="A")
    b = tf.Print(tf.constant(2.5), [], message="B")
    side = tf.Print(tf.constant(0), [], message="side")
    op = tf.no_op(name="an_op")
    ta, tb, none, top = tf.tuple([a, b, None, op], control_inputs=[side])
    assert none is None
    assert ta.op.type == "Identity" and ta.dtype == tf.int32 and tb.dtype == tf.float32
    assert top.type == "NoOp"
    with tf.Session() as sess:
        assert sess.run(ta) == 1
    assert sorted(capsys.readouterr().err.splitlines()) == ["A", "B", "side"]
    with pytest.raises(ValueError, match="Must have at least one Tensor"):
        tf.tuple([None])
    with pytest.raises(TypeError, match="Control input must be Operation or Tensor"):
        tf.tuple([a], control_inputs=[3])


def test_with_dependencies_returns_a_gated_identity(capsys):
    p = tf.Print(tf.constant(0), [], message="dep")
    t = tf.constant([1.0, 2.0], name="t")
    out = tf.with_dependencies([p], t)
    assert out.op.type == "Identity" and out.op.name == "control_dependency"
    assert p.op in out.op.control_inputs
    assert out.get_shape().as_list() == [2]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(out), [1.0, 2.0])
    assert capsys.readouterr().err == "dep\n"


# ------------------------------------------------------------------------------------------
# Assert
# ------------------------------------------------------------------------------------------


def test_assert_failure_names_data_and_op_and_session_survives():
    x = tf.placeholder(tf.int32, [None], name="x")
    cond = tf.placeholder(tf.bool, [], name="cond")
    check = tf.Assert(cond, ["x is", x, tf.constant([[1.5, 2.0], [3.0, 4.0]])], summarize=3,
                      name="check")
    # TF 1.15's guarded Assert (float data) is named inside its AssertGuard cond
    assert check.name == "check/AssertGuard/Assert"
    with tf.control_dependencies([check]):
        y = tf.identity(x)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(y, {x: [1, 2, 3, 4], cond: False})
        msg = str(info.value)
        assert msg.startswith("assertion failed: [x is] [1 2 3...] [[1.5 2][3...]...]")
        assert "check/Assert" in msg
        assert info.value.error_code == tf.errors.INVALID_ARGUMENT
        # the session stays usable
        np.testing.assert_array_equal(sess.run(y, {x: [5], cond: True}), [5])


def test_assert_default_summarize_and_strings():
    check = tf.Assert(False, [tf.constant([0, 1, 2, 3, 4]), "a\nb"])
    with tf.Session() as sess, pytest.raises(
        tf.errors.InvalidArgumentError, match=r"assertion failed: \[0 1 2\.\.\.\] \[a\\nb\]"
    ):
        sess.run(check)


def test_assert_condition_must_be_scalar():
    check = tf.Assert(tf.constant([True, True]), ["x"])  # (TF 1.15 wants data: T >= 1)
    with tf.Session() as sess, pytest.raises(
        tf.errors.InvalidArgumentError, match=r"In\[0\] should be a scalar"
    ):
        sess.run(check)


# ------------------------------------------------------------------------------------------
# Print
# ------------------------------------------------------------------------------------------


def test_print_first_n_counts_per_session(capsys):
    x = tf.placeholder(tf.float32, [2, 2])
    y = tf.Print(x, [x], message="v=", first_n=2, summarize=-1)
    value = np.array([[1.0, 0.5], [-2.0, 3.0]], np.float32)
    with tf.Session() as sess:
        for _ in range(3):
            np.testing.assert_array_equal(sess.run(y, {x: value}), value)
    assert capsys.readouterr().err.splitlines() == ["v=[[1 0.5][-2 3]]"] * 2
    with tf.Session() as sess:
        sess.run(y, {x: value})
    assert capsys.readouterr().err.splitlines() == ["v=[[1 0.5][-2 3]]"]


def test_print_formats_like_tf(capsys):
    x = tf.constant(np.arange(10, dtype=np.int64))
    f = tf.constant([0.1, 1e20, np.inf], dtype=tf.float32)
    y = tf.Print(tf.constant(0), [x, f, tf.constant(True), tf.constant(7.25, tf.float64)],
                 summarize=4)
    with tf.Session() as sess:
        sess.run(y)
    assert capsys.readouterr().err == "[0 1 2 3...][0.1 1e+20 inf][1][7.25]\n"


# ------------------------------------------------------------------------------------------
# CheckNumerics
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("values,what", [
    ([1.0, np.nan], "NaN"), ([np.inf, 1.0], "Inf"), ([-np.inf, np.nan], "Inf and NaN"),
])
@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64])
def test_check_numerics_reports_nan_and_inf(values, what, dtype):
    x = tf.placeholder(dtype, [2])
    y = tf.check_numerics(x, "my message", name="checked")
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.0]}), [1.0, 2.0])
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(y, {x: values})
    assert str(info.value).startswith(f"my message : Tensor had {what} values")
    assert "checked" in str(info.value)


def test_check_numerics_rejects_integer_tensors():
    with pytest.raises(TypeError, match="not in list of allowed values"):
        tf.check_numerics(tf.constant([1, 2]), "m")


def test_add_check_numerics_ops_checks_every_float_tensor():
    x = tf.placeholder(tf.float32, [2], name="x")
    tf.constant([1, 2], name="ints")
    y = tf.identity(x, name="y")
    check = tf.add_check_numerics_ops()
    checks = [op for op in tf.get_default_graph().get_operations()
              if op.type == "CheckNumerics"]
    assert [op.get_attr("message") for op in checks] == [b"x:0", b"y:0"]
    assert checks[0] in checks[1].control_inputs  # chained, in graph order
    with tf.Session() as sess:
        sess.run([y, check], {x: [1.0, 2.0]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="x:0 : Tensor had NaN values"):
            sess.run([y, check], {x: [np.nan, 2.0]})


def test_verify_tensor_all_finite():
    x = tf.placeholder(tf.float64, [None])
    y = tf.verify_tensor_all_finite(x, "not finite")
    assert y.op.type == "Identity"
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1.0]}), [1.0])
        with pytest.raises(tf.errors.InvalidArgumentError, match="not finite : Tensor had Inf"):
            sess.run(y, {x: [np.inf]})


# ------------------------------------------------------------------------------------------
# check_ops: static failures at construction, dynamic ones at run time
# ------------------------------------------------------------------------------------------


def test_static_binary_assert_failures_raise_at_construction():
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.assert_equal(tf.constant([1, 2], name="a"), tf.constant([1, 3], name="b"),
                        message="custom")
    assert str(info.value).splitlines() == [
        "custom", "Condition x == y did not hold element-wise:", "x (a:0) = ", "[1 2]",
        "y (b:0) = ", "[1 3]",
    ]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x < y"):
        tf.assert_less(3, 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x >= y"):
        tf.assert_greater_equal([1, 2], 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x > 0"):
        tf.assert_positive([1.0, 0.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x < 0"):
        tf.assert_negative([-1.0, 0.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x >= 0"):
        tf.assert_non_negative([-1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x <= 0"):
        tf.assert_non_positive([1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x != y"):
        tf.assert_none_equal([1, 2], [3, 2])


def test_assert_equal_of_a_tensor_with_itself_is_a_noop():
    x = tf.placeholder(tf.float32)
    assert tf.assert_equal(x, x).type == "NoOp"


def test_binary_asserts_statically_true_and_dynamic():
    # (assert_equal opens its name scope twice, as TF's does: ops land in assert_equal_1/)
    _need("equal", "less", "reduce_all")
    ok = tf.assert_less([1, 2], 3)
    assert ok.type == "Assert"
    x = tf.placeholder(tf.int32, [None], name="x")
    check = tf.assert_equal(x, 2, summarize=2)
    pos = tf.assert_positive(x, message="must be positive")
    with tf.Session() as sess:
        sess.run([ok, check, pos], {x: [2, 2]})
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(check, {x: [2, 1, 5]})
        assert ("[Condition x == y did not hold element-wise:] [x (x:0) = ] [2 1...] "
                "[y (assert_equal_1/y:0) = ] [2]") in str(info.value)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[must be positive\]"):
            sess.run(pos, {x: [0]})
        sess.run(pos, {x: [1]})  # still usable


def test_assert_rank_static():
    x = tf.placeholder(tf.float32, [3], name="x")
    ok = tf.assert_rank(x, 1)
    assert ok.type == "NoOp" and ok.name.endswith("static_checks_determined_all_ok")
    assert tf.assert_rank_at_least(x, 1).type == "NoOp"
    with pytest.raises(ValueError, match=r"Tensor x:0 must have rank 2\.  Received rank 1"):
        tf.assert_rank(x, 2)
    with pytest.raises(ValueError, match=r"must have rank at least 3\.  Received rank 1"):
        tf.assert_rank_at_least(x, 3, message="msg")
    with pytest.raises(ValueError, match="Rank must be a scalar"):
        tf.assert_rank(x, [1])
    with pytest.raises(TypeError, match="must be of type"):
        tf.assert_rank(x, tf.constant(1, tf.int64))


def test_assert_rank_dynamic():
    _need("equal", "greater_equal", "rank", "shape")
    x = tf.placeholder(tf.float32, name="x")
    check = tf.assert_rank(x, 2)
    at_least = tf.assert_rank_at_least(x, 2)
    with tf.Session() as sess:
        sess.run([check, at_least], {x: np.zeros((2, 3))})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"\[Tensor x:0 must have rank\] \[2\] \[Received shape: \] \[3\]"):
            sess.run(check, {x: np.zeros(3)})
        sess.run(at_least, {x: np.zeros((1, 1, 1))})
        with pytest.raises(tf.errors.InvalidArgumentError, match="must have rank at least"):
            sess.run(at_least, {x: np.zeros(3)})


def test_static_type_checks():
    x = tf.constant([1.0], name="f")
    assert tf.assert_type(x, tf.float32).type == "NoOp"
    with pytest.raises(TypeError, match="f:0 must be of type"):
        tf.assert_type(x, tf.int32)
    assert tf.assert_integer(tf.constant([1])).type == "NoOp"
    with pytest.raises(TypeError, match='Expected "x" to be integer type'):
        tf.assert_integer(x)
    s = tf.constant(3.0)
    assert tf.assert_scalar(s) is s
    with pytest.raises(ValueError, match="Expected scalar shape for f:0"):
        tf.assert_scalar(x)
    assert tf.is_numeric_tensor(x) and not tf.is_numeric_tensor(tf.constant("a"))
    assert not tf.is_numeric_tensor(np.array([1.0]))
    with pytest.raises(TypeError, match="proper"):
        tf.assert_proper_iterable(x)
    tf.assert_proper_iterable([x])


def test_monotonic_checks():
    _need("reshape", "less", "less_equal", "reduce_all", "subtract")
    if not hasattr(tf.Tensor, "__getitem__"):
        pytest.skip("needs Tensor.__getitem__ (slicing ops not merged yet)")
    x = tf.placeholder(tf.float32)
    inc = tf.is_strictly_increasing(x)
    nondec = tf.is_non_decreasing(x)
    with tf.Session() as sess:
        for value, want in [([1, 2, 3], (True, True)), ([1, 1, 2], (False, True)),
                            ([[2, 1]], (False, False)), ([], (True, True)), (5.0, (True, True))]:
            assert tuple(sess.run([inc, nondec], {x: value})) == want
    with pytest.raises(TypeError, match="Expected x to be numeric"):
        tf.is_non_decreasing(tf.constant(["a"]))
