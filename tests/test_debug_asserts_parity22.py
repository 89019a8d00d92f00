"""Debugging and checking programs (asserts, shape checks, monotonicity checks, gradient
checks, prints) checked against what TF 1.15 printed for the same programs."""

import numpy as np
import pytest

import tideflow as tf


def _static_error(fn):
    with pytest.raises(ValueError) as e:
        fn()
    return str(e.value)


def test_assert_shapes_scalar_and_empty_spec_mean_size_one():
    # TF 1.15: a scalar counts as one dimension of size 1 and an empty spec as (1,)
    with tf.Graph().as_default():
        s = tf.constant(2.0, name="s")
        c = tf.constant([7.0], name="c")
        v = tf.constant([1.0, 2.0], name="v")
        ok = tf.debugging.assert_shapes([(s, ("N",))])
        assert ok.name == "assert_shapes/group_deps"
        assert [i.name for i in ok.control_inputs] == [
            "assert_shapes/assert_rank_in/static_checks_determined_all_ok"]
        assert _static_error(lambda: tf.debugging.assert_shapes([(s, (2,))])) == (
            ".  Specified explicitly.  Tensor s:0 dimension 0 must have size 2.  Received size "
            "1, shape ()")
        tf.debugging.assert_shapes([(c, ())])
        assert _static_error(lambda: tf.debugging.assert_shapes([(v, ())])) == (
            ".  Specified explicitly.  Tensor v:0 dimension 0 must have size 1.  Received size "
            "2, shape (2,)")
        # a one-dimension spec checks the rank with assert_rank_in([0, 1])
        m = tf.zeros([2, 3], name="m")
        assert _static_error(lambda: tf.debugging.assert_shapes([(m, ("B",))])) == (
            ".  Tensor m:0 must have rank in (array(0, dtype=int32), array(1, dtype=int32)).  "
            "Received rank 2, shape (2, 3)")


def test_assert_shapes_leading_ellipsis_and_spec_forms():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        y = tf.placeholder(tf.float32, [None, 3, 4], name="y")
        # TF 1.15 counts the dimensions after a leading '*' (or Ellipsis) from the end
        assert _static_error(lambda: tf.debugging.assert_shapes([(y, ("*", 3, 5))])) == (
            ".  Specified explicitly.  Tensor y:0 dimension -1 must have size 5.  Received "
            "size 4, shape (?, 3, 4)")
        assert _static_error(
            lambda: tf.debugging.assert_shapes([(y, (Ellipsis, "Q")), (x, (Ellipsis, "Q"))])
        ) == (".  Specified by tensor y:0 dimension -1.  Tensor x:0 dimension -1 must have "
              "size 4.  Received size 3, shape (?, 3)")
        assert _static_error(lambda: tf.debugging.assert_shapes([(y, ("B", "*"))])) == (
            ".  Tensor y:0 specified shape index 1.  Symbol `...` or `*` for a variable number "
            "of unspecified dimensions is only allowed as the first entry")
        assert _static_error(lambda: tf.debugging.assert_shapes([(y, 3)], message="m")) == (
            "m.  Tensor y:0.  Specified shape must be an iterable.  An iterable has the "
            "attribute `__iter__` or `__getitem__`.  Received specified shape: 3")
        # a string spec is the tuple of its characters; a None spec is skipped
        tf.debugging.assert_shapes([(x, "BD"), (y, None)])


def test_assert_shapes_unknown_rank_at_run_time():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        z = tf.placeholder(tf.float32, None, name="z")
        chk = tf.debugging.assert_shapes([(x, ("B", 3)), (z, ("B",))])
        with tf.Session() as sess:
            sess.run(chk, {x: np.zeros([1, 3]), z: 1.0})  # a scalar has size 1
            sess.run(chk, {x: np.zeros([2, 3]), z: [0.0, 0.0]})
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(chk, {x: np.zeros([2, 3]), z: np.zeros([2, 1])})
            assert e.value.message.startswith(
                "assertion failed: [] [Tensor z:0 must have rank in] [0] [1] [Received shape: ] "
                "[2 1]")
            assert e.value.op.name == "assert_shapes/assert_rank_in/Assert/Assert"
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(chk, {x: np.zeros([2, 3]), z: 1.0})
            assert e.value.message.startswith(
                "assertion failed: [] [Specified by tensor x:0 dimension 0] [Tensor z:0 "
                "dimension] [0] [must have size] [2] [Received shape: ] []")


def test_assert_rank_in_dynamic_ops():
    # TF 1.15's op names: the first rank's Equal, then an Equal and a LogicalOr per rank
    with tf.Graph().as_default() as g:
        r = tf.placeholder(tf.int32, None, name="r")
        tf.assert_rank_in(r, [0, 2, 3])
        assert [o.name for o in g.get_operations()][8:14] == [
            "assert_rank_in/Rank_3", "assert_rank_in/Equal", "assert_rank_in/Equal_1",
            "assert_rank_in/LogicalOr", "assert_rank_in/Equal_2", "assert_rank_in/LogicalOr_1"]


def test_monotonic_checks_keep_tf_op_count():
    # TF 1.15 builds a cond in is_non_decreasing/is_strictly_increasing; a seeded random op
    # made after them draws what TF 1.15 printed
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        z = tf.placeholder(tf.float32, None)
        c = tf.is_non_decreasing(z)
        s = tf.is_strictly_increasing(z)
        r = tf.random_uniform([2])
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(r), [0.853924036026001, 0.22931790351867676],
                                       rtol=1e-6)
            got = [sess.run([c, s], {z: v})
                   for v in ([1, 2, 2], [[1, 2], [0, 3]], 5.0, [], [1, 3])]
            assert got == [[True, False], [False, False], [True, True], [True, True],
                           [True, True]]


def test_compute_gradient_error_is_numpy_float64():
    # TF 1.15 returns np.maximum's NumPy float64 (an int 0 when every Jacobian is empty)
    with tf.Graph().as_default(), tf.Session():
        x = tf.constant([0.5, -1.5, 2.0])
        err = tf.test.compute_gradient_error(x, [3], tf.nn.softmax(x * 2.0), [3])
        assert type(err) is np.float64 and err < 1e-2


@pytest.mark.parametrize("build, raises, checks", [
    (lambda x: tf.assert_positive(tf.constant([1, 2])), False, 3),
    (lambda x: tf.assert_positive(tf.constant([1, 2], tf.int64)), False, 3),
    (lambda x: tf.assert_positive(x), True, 4),
    (lambda x: tf.Assert(tf.constant(True), [x]), True, 3),
    (lambda x: tf.Assert(tf.constant(True), ["a", 2.5]), True, 4),
    (lambda x: tf.Assert(tf.constant(True), [tf.constant(1.0, tf.float64)]), True, 4),
    (lambda x: tf.assert_near(x, x), True, 10),
])
def test_add_check_numerics_ops_refuses_guarded_float_asserts(build, raises, checks):
    # TF 1.15 guards an Assert whose data is not all int32/strings in a cond: a float tensor
    # of its data passes a Switch in the cond's context, which add_check_numerics_ops refuses
    # (after making the checks of the ops before it, counted here as TF 1.15 counted them)
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [2])
        _ = x * 2.0
        build(x)
        if raises:
            with pytest.raises(ValueError, match="not compatible with TensorFlow control flow"):
                tf.add_check_numerics_ops()
        else:
            tf.add_check_numerics_ops()
        assert len([o for o in g.get_operations() if o.type == "CheckNumerics"]) == checks


def test_failed_static_assert_with_fed_data_is_a_type_error():
    # TF 1.15 joins the data's static values into the message; a tensor without one stays a
    # Tensor and the join fails
    with tf.Graph().as_default():
        ph = tf.placeholder(tf.float32, name="ph")
        with pytest.raises(TypeError) as e:
            tf.assert_equal(1, 2, data=["custom", tf.constant([1.0, 2.0]), 3, ph])
        assert str(e.value) == "sequence item 3: expected str instance, Tensor found"
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            tf.assert_equal(1, 2, data=["custom", tf.constant([1.0, 2.0]), 3])
        assert e.value.message == "custom\n[1. 2.]\n3"


def test_ensure_shape_messages():
    # TF 1.15's shape function checks the rank, then merges the wanted shape with the input's
    with tf.Graph().as_default():
        with pytest.raises(ValueError) as e:
            tf.ensure_shape(tf.zeros([2, 4]), [2, 3])
        assert str(e.value) == (
            "Dimension 1 in both shapes must be equal, but are 3 and 4. Shapes are [2,3] and "
            "[2,4]. for 'EnsureShape' (op: 'EnsureShape') with input shapes: [2,4].")
        with pytest.raises(ValueError) as e:
            tf.ensure_shape(tf.zeros([4]), [2, 3])
        assert str(e.value) == ("Shape must be rank 2 but is rank 1 for 'EnsureShape_1' (op: "
                                "'EnsureShape') with input shapes: [4].")
        # at run time the kernel names its input as the NodeDef does ("split:1")
        parts = tf.split(tf.placeholder_with_default(tf.zeros([4, 2]), None), 2)
        checked = tf.ensure_shape(parts[1], [3, 2])
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(checked)
            assert e.value.message.startswith(
                "Shape of tensor split:1 [2,2] is not compatible with expected shape [3,2].")


def test_float32_subnormals_print_as_signed_zeros(capsys):
    # TF 1.15's kernels read denormals as zero: tf.print, tf.Print and Assert print a float32
    # subnormal as 0 (or -0); float64 and half subnormals print as they are
    import sys

    with tf.Graph().as_default():
        x = tf.constant([1e-45, -1e-45, 1e-40, -2e-39, 1.2e-38], tf.float32)
        with tf.Session() as sess:
            sess.run(tf.print(x, tf.constant([5e-324], tf.float64),
                              tf.constant([6e-8], tf.float16), output_stream=sys.stdout))
            assert capsys.readouterr().out == (
                "[0 -0 0 -0 1.2e-38] [4.94065645841247e-324] [5.96046448e-08]\n")
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(tf.Assert(False, [x]))
            assert e.value.message.startswith("assertion failed: [0 -0 0...]")


def test_unconvertible_data_of_a_type_list_input():
    # TF 1.15's op_def_library: a list(type) argument that fails to convert names each
    # value's type and the values
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        with pytest.raises(TypeError) as e:
            tf.Print(x, [x, "s", {"a": 1}])
        assert str(e.value) == (
            "Tensors in list passed to 'data' of 'Print' Op have types [float32, string, "
            "<NOT CONVERTIBLE TO TENSOR>] that are invalid. Tensors: [<tf.Tensor 'Const:0' "
            "shape=(2,) dtype=float32>, 's', {'a': 1}]")
        with pytest.raises(TypeError, match=r"'input' of 'IdentityN' Op have types \[float32, "
                           r"<NOT CONVERTIBLE TO TENSOR>\] that are invalid"):
            tf.identity_n([x, None])


def test_compute_gradient_of_an_unconnected_y():
    # TF 1.15 asserts the gradient exists ("dx = None"); for an empty y it fails fetching it
    with tf.Graph().as_default(), tf.Session():
        a = tf.constant([1.0, 2.0], tf.float64)
        b = tf.constant([3.0, 4.0], tf.float64)
        with pytest.raises(AssertionError, match="^dx = None$"):
            tf.test.compute_gradient(a, [2], b * 2, [2])
        e = tf.constant(np.zeros([0]))
        with pytest.raises(TypeError, match="Fetch argument None has invalid type"):
            tf.test.compute_gradient_error(e, [0], tf.constant(np.zeros([0])) * 2, [0])
        err = tf.test.compute_gradient_error(e, [0], e * 2, [0])
        assert err == 0 and type(err) is int


def test_compute_gradient_of_half_gives_half_jacobians():
    # TF 1.15's Jacobians have x's real dtype: float16 for a half x (values as it printed)
    with tf.Graph().as_default(), tf.Session():
        h = tf.placeholder(tf.float16, [3])
        init = np.array([0.3, 1.1, 2.5], np.float16)
        jt, jn = tf.test.compute_gradient(h, [3], tf.sin(h) * h, [3], x_init_value=init,
                                          delta=1e-2)
        assert jt.dtype == np.float16 and jn.dtype == np.float16
        np.testing.assert_array_equal(np.diag(jt), [0.58203125, 1.390625, -1.4052734375])
        np.testing.assert_array_equal(np.diag(jn), [0.58251953125, 1.3671875, -1.3671875])
        err = tf.test.compute_gradient_error(h, [3], tf.sin(h) * h, [3], x_init_value=init,
                                             delta=1e-2)
        assert err == 0.0380859375 and type(err) is np.float64


def _new_case():
    class Case(tf.test.TestCase):  # (made here, so pytest does not collect it)
        def runTest(self):
            pass

    return Case()


def _failure(fn, kind=AssertionError):
    with pytest.raises(kind) as e:
        fn()
    return str(e.value)


def test_test_case_all_close_and_all_equal_as_tf():
    import collections

    # TF 1.15's texts (the NumPy report that follows them depends on NumPy's version)
    case = _new_case()
    assert _failure(lambda: case.assertAllClose([[1.0, 1.0]], 1.0)).startswith(
        "Tuples differ: (1, 2) != ()")  # no broadcasting
    assert _failure(lambda: case.assertAllClose([1.0, 2.0], [1.0, 2.0, 3.0])).endswith(
        " : Shape mismatch: expected (2,), got (3,) with contents [1. 2. 3.].")
    pair = collections.namedtuple("pair", "a b")
    assert _failure(lambda: case.assertAllClose(pair(1.0, 2.0), (1.0, 2.0)), ValueError) == (
        "Can't compare dict to non-dict, a vs b. ")
    # lists of mixed depth are object vectors (TF 1.15's NumPy): their lengths must agree
    assert _failure(lambda: case.assertAllClose({"k": [1.0, [2.0]]}, {"k": [1.0]})).endswith(
        " : Shape mismatch: expected (2,), got (1,) with contents [1.].")
    case.assertAllClose({"k": [1.0, [2.0]]}, {"k": [1.0, [2.0 + 1e-7]]})
    with pytest.raises(AssertionError, match=r"Mismatched value: a\[k\]\[1\] is different"):
        case.assertAllClose({"k": [1.0, [2.0]]}, {"k": [1.0, [2.5]]})
    text = _failure(lambda: case.assertAllClose([1.0, 2.0, 3.0], [1.0, 2.1, 3.0]))
    assert ("Mismatched value: a is different from b. \nnot close where = (array([1]),)\n"
            "not close lhs = [2.]\nnot close rhs = [2.1]\n") in text
    case.assertAllClose(pair(1.0, [2.0]), pair(1.0, [2.0 + 1e-7]))
    assert _failure(lambda: case.assertAllEqual([[1, 2]], [1, 2])).endswith(
        " : Shape mismatch: expected (1, 2), got (2,). Contents: [1 2]. \n.")
    text = _failure(lambda: case.assertAllEqual([[1, 2], [3, 4]], [[1, 2], [3, 5]]))
    assert ("\nnot equal where = (array([1]), array([1]))\nnot equal lhs = [4]\n"
            "not equal rhs = [5]\n") in text


def test_test_case_other_assertions_as_tf():
    case = _new_case()
    assert _failure(lambda: case.assertAllGreater([1, 2, 3], 2)) == "1 not greater than 2"
    assert _failure(lambda: case.assertAllLessEqual([1, 5], 4)) == (
        "5 not less than or equal to 4")
    assert _failure(lambda: case.assertAllInRange([1, 5, 3], 0, 4)) == (
        "1 of the 3 element(s) are outside the range [0, 4]. Subscript(s) and value(s) of the "
        "offending elements:\n  [1] : 5")
    assert _failure(lambda: case.assertAllInRange([1.0, np.nan], 0, 4)) == (
        "1 of the 2 element(s) are NaN. Subscripts(s) and value(s) of the NaN element(s):\n"
        "  [1] : nan")
    assert _failure(lambda: case.assertNear(1.0, 1.2, 0.1)) == (
        "False is not true : 1.000000 != 1.200000 +/- 0.100000")
    assert _failure(lambda: case.assertShapeEqual([1, 2], tf.zeros([2])), TypeError) == (
        "np_array must be a Numpy ndarray or Numpy scalar")

    def not_raised():
        with case.assertRaisesOpError("nothing"):
            pass

    assert _failure(not_raised) == (
        "Exception of type <class 'AssertionError'>: OpError not raised")

    def other_error():
        with case.assertRaisesOpError("x"):
            raise ValueError("boom")

    assert _failure(other_error) == "Exception of type <class 'ValueError'>: boom"


def test_assert_near_of_complex_fails_as_tf():
    # TF 1.15 makes the tolerances of x's (complex) dtype, which cannot multiply |y|
    with tf.Graph().as_default():
        with pytest.raises(TypeError) as e:
            tf.assert_near(tf.constant([1 + 1j]), tf.constant([1 + 1j]))
        assert str(e.value) == ("Input 'y' of 'Mul' Op has type float64 that does not match "
                                "type complex128 of argument 'x'.")
