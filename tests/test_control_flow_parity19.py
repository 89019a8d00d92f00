"""Control-flow programs (while loops with TensorArrays, conds, scans, RNN and beam-search loops)
checked against what TF 1.15 prints for them: body-result structure checks and loop errors."""

import collections

import numpy as np
import pytest

import tideflow as tf

_NESTS = "^The two structures don't have the same nested structure"


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def _types_differ(first):
    return (f"The two namedtuples don't have the same sequence type. First structure "
            f"type={first}")


def test_bounded_loop_body_must_return_the_loop_variables_sequence_type():
    # TF 1.15 runs a loop with maximum_iterations as `lambda i, lv: (i + 1, body(*lv))`, so a
    # tuple back for a list of variables (or the other way round) is nest's TypeError
    def body(i, x):
        return i + 1, x * 2

    with pytest.raises(TypeError, match=_NESTS) as e:
        tf.while_loop(lambda i, x: i < 5, body, [0, 1.0], maximum_iterations=3)
    assert _types_differ("list") in str(e.value)
    assert str(e.value).endswith("Entire first structure:\n[., [., .]]\n"
                                 "Entire second structure:\n[., (., .)]")
    with pytest.raises(TypeError, match=_NESTS):
        tf.while_loop(lambda i, x: i < 5, lambda i, x: [i + 1, x], (0, 1.0),
                      maximum_iterations=3)
    # the same types, or no maximum_iterations, build (TF 1.15: while/Exit_1, while_1/Exit)
    ok = tf.while_loop(lambda i, x: i < 5, lambda i, x: (i + 1, x), (0, 1.0),
                       maximum_iterations=3)
    assert type(ok) is tuple and ok[0].name == "while_2/Exit_1:0"
    ok = tf.while_loop(lambda i, x: i < 5, body, [0, 1.0])
    assert type(ok) is tuple and ok[0].name == "while_3/Exit:0"


def test_bounded_loop_of_one_variable_takes_its_value_not_a_sequence():
    # TF 1.15: `body(lv)` for a lone loop variable, so a 1-list or 1-tuple back is a
    # sequence where a tensor was (ValueError); with return_same_structure it is a list
    with pytest.raises(ValueError, match=_NESTS) as e:
        tf.while_loop(lambda i: i < 5, lambda i: [i + 1], [0], maximum_iterations=2)
    assert "is a sequence, while substructure" in str(e.value)
    with pytest.raises(ValueError, match=_NESTS):
        tf.while_loop(lambda i: i < 5, lambda i: (i + 1,), (0,), maximum_iterations=2)
    with pytest.raises(TypeError, match=_NESTS):
        tf.while_loop(lambda i: i < 5, lambda i: (i + 1,), [0], maximum_iterations=2,
                      return_same_structure=True)
    r = tf.while_loop(lambda i: i < 5, lambda i: i + 1, [0], maximum_iterations=2)
    assert r.name == "while_3/Exit_1:0"
    r = tf.while_loop(lambda i: i < 5, lambda i: [i + 1], [0], maximum_iterations=2,
                      return_same_structure=True)
    assert isinstance(r, list) and len(r) == 1
    with tf.Session() as s:
        assert s.run(r) == [2]
    # without maximum_iterations the top level is compared as lists (TF 1.15 builds these)
    assert tf.while_loop(lambda i: i < 5, lambda i: (i + 1,), [0]).name == "while_5/Exit:0"


def test_loop_body_nested_sequence_types_are_checked():
    # below the top level TF 1.15 compares types: a list inside the loop variables needs a
    # list back, a namedtuple the namedtuple (any two mappings are alike)
    pair = collections.namedtuple("pair", "a b")
    c2 = lambda i, x: i < 3
    with pytest.raises(TypeError, match=_NESTS):
        tf.while_loop(c2, lambda i, x: (i + 1, (x[0], x[1])), [0, [1.0, 2.0]])
    with pytest.raises(TypeError, match=_NESTS):
        tf.while_loop(c2, lambda i, x: (i + 1, (x.a, x.b)), [0, pair(1.0, 2.0)])
    with pytest.raises(TypeError, match=_NESTS):
        tf.while_loop(lambda i: i[0] < 3, lambda i: ((i[0] + 1,),), [[0]])
    ta = tf.TensorArray(tf.float32, size=3)
    with pytest.raises(TypeError, match=_NESTS):
        tf.while_loop(c2, lambda i, x: (i + 1, x.write(i, 1.0)), [0, ta], maximum_iterations=2)
    out = tf.while_loop(c2, lambda i, x: (i + 1, pair(x.a * 2, x.b)), [0, pair(1.0, 2.0)])
    assert isinstance(out[1], pair)
    out = tf.while_loop(c2, lambda i, x: (i + 1, {"a": x["a"] + 1}), [0, {"a": 1.0}])
    out_ta = tf.while_loop(c2, lambda i, x: [i + 1, x.write(i, 1.0)], [0, ta],
                           maximum_iterations=2)
    with tf.Session() as s:
        assert s.run(out[1]["a"]) == 4.0
        np.testing.assert_array_equal(s.run(out_ta[1].gather([0, 1])), [1.0, 1.0])


def test_second_order_loop_gradient_error_is_tfs_message():
    # TF 1.15: TypeError("Second-order gradient for while loops not supported."), no more
    x = tf.Variable(1.2, name="x")
    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x), [0, tf.constant(1.0)])
    g = tf.gradients(y, x)[0]
    with pytest.raises(TypeError) as e:
        tf.gradients(g, x)
    assert str(e.value) == "Second-order gradient for while loops not supported."


def test_cond_on_a_python_bool_takes_the_cond_scope_before_it_raises():
    # TF 1.15 checks the predicate inside name_scope("cond"), so the next cond is cond_1
    with pytest.raises(TypeError, match="^pred must not be a Python bool$"):
        tf.cond(True, lambda: 1, lambda: 2)
    q = tf.placeholder(tf.int32, [])
    assert tf.cond(q > 0, lambda: q, lambda: -q).name == "cond_1/Merge:0"


def _probe_count(sess):
    # the process-wide count TF's kernel appends to an array's name, read from an error
    twice = tf.TensorArray(tf.float32, size=2).write(0, 1.0).write(0, 2.0).stack()
    with pytest.raises(tf.errors.InvalidArgumentError, match="already been written") as e:
        sess.run(twice)
    return int(str(e.value).split(":")[0].rsplit("_", 1)[1])


def test_a_split_that_fails_has_made_its_array():
    # TF 1.15: TensorArrayV3 runs before TensorArraySplitV3 checks the lengths, so the next
    # array's name counts it (TensorArray_6_6, split fails, TensorArray_8_8)
    bad = tf.TensorArray(tf.float32, size=3).split([1.0, 2.0, 3.0, 4.0], [1, 1]).concat()
    with tf.Session() as s:
        first = _probe_count(s)
        with pytest.raises(tf.errors.InvalidArgumentError, match="^Expected sum of lengths"):
            s.run(bad)
        assert _probe_count(s) == first + 2


def test_concat_of_a_tensor_array_of_scalars_asks_for_pack():
    # TF 1.15's TensorArrayConcatV3 kernel: "... Did you mean to call pack?"
    ta = tf.TensorArray(tf.bool, size=2).write(0, True).write(1, False)
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError) as e:
        s.run(ta.concat())
    assert str(e.value).startswith(
        "Concat saw a scalar shape at index 0 but requires at least vectors.  Did you mean to "
        "call pack?")


def test_loop_argument_errors_take_the_while_scope_and_nests_text():
    # TF 1.15 raises "No loop variables provided" inside name_scope("while"), and checks
    # shape_invariants against loop_vars with nest (its text names both structures)
    with pytest.raises(ValueError, match="^No loop variables provided$"):
        tf.while_loop(lambda i: i < 3, lambda i: i + 1, [])
    with pytest.raises(ValueError, match=_NESTS) as e:
        tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x), [0, 1.0],
                      shape_invariants=[tf.TensorShape([])])
    assert "First structure: type=list str=[0, 1.0]" in str(e.value)
    assert "The two structures don't have the same number of elements." in str(e.value)
    out = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0])
    assert out.name == "while_2/Exit:0"
