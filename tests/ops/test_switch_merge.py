"""TF 1.x's Switch/Merge primitives: dead branches do not run (stateful ops included), Merge
forwards the live input and its index, fetching a dead tensor fails as TF, slim's random
selector pattern, nesting, and the ops' errors; values checked by hand."""
import numpy as np
import pytest

import tideflow as tf
from tideflow.python.ops import control_flow_ops


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_switch_routes_and_merge_forwards_the_live_input():
    x = tf.placeholder(tf.float32, [2])
    p = tf.placeholder(tf.bool, [])
    f, t = control_flow_ops.switch(x, p)
    m, i = control_flow_ops.merge([f * 2.0, t * 3.0])
    assert (f.name, t.name, m.name, i.name) == ("Switch:0", "Switch:1", "Merge:0", "Merge:1")
    assert m.shape.as_list() == [2] and i.dtype == tf.int32 and i.shape.ndims == 0
    with tf.Session() as sess:
        mv, iv = sess.run([m, i], {x: [1.0, 2.0], p: True})
        np.testing.assert_array_equal(mv, [3.0, 6.0])
        assert iv == 1
        mv, iv = sess.run([m, i], {x: [1.0, 2.0], p: False})
        np.testing.assert_array_equal(mv, [2.0, 4.0])
        assert iv == 0


def test_dead_branch_ops_do_not_run_and_fetching_them_fails():
    x = tf.placeholder(tf.float32, [2])
    p = tf.placeholder(tf.bool, [])
    v = tf.Variable(0.0)
    _, t = control_flow_ops.switch(x, p)
    bump = tf.assign_add(v, tf.reduce_sum(t))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(bump.op, {x: [1.0, 2.0], p: False})
        assert sess.run(v) == 0.0
        sess.run(bump.op, {x: [1.0, 2.0], p: True})
        assert sess.run(v) == 3.0
        for dead in (t, bump):
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"Retval\[0\] does not"):
                sess.run(dead, {x: [1.0, 2.0], p: False})
        assert sess.run(v) == 3.0  # the failed steps changed nothing, the session goes on


def test_random_selector_applies_exactly_one_case():
    # slim's apply_with_random_selector: only the selected case sees the real input
    img = tf.placeholder(tf.float32, [3])
    sel = tf.random_uniform([], maxval=4, dtype=tf.int32, seed=3)
    calls = tf.Variable(tf.zeros([4]))
    outs = []
    for k in range(4):
        xk = control_flow_ops.switch(img, tf.equal(sel, k))[1]
        count = tf.scatter_add(calls, [k], [1.0])
        with tf.control_dependencies([count]):
            outs.append(xk * (k + 1.0))
    out = control_flow_ops.merge(outs)[0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        seen = [float(sess.run(out, {img: [1.0, 1.0, 1.0]})[0]) for _ in range(40)]
        # every update ran each step (they read no dead input); each output one of the cases
        assert set(seen) <= {1.0, 2.0, 3.0, 4.0} and len(set(seen)) > 1
        np.testing.assert_array_equal(sess.run(calls), [40.0] * 4)


def test_nested_switches_and_merge_of_all_dead_inputs():
    x = tf.placeholder(tf.float32, [])
    p = tf.placeholder(tf.bool, [])
    q = tf.placeholder(tf.bool, [])
    _, outer = control_flow_ops.switch(x, p)
    a, b = control_flow_ops.switch(outer, q)
    inner = control_flow_ops.merge([a + 10.0, b + 20.0])[0]
    other = control_flow_ops.switch(x, p)[0] - 1.0
    final = control_flow_ops.merge([inner, other])[0]
    with tf.Session() as sess:
        assert sess.run(final, {x: 1.0, p: True, q: False}) == 11.0
        assert sess.run(final, {x: 1.0, p: True, q: True}) == 21.0
        assert sess.run(final, {x: 1.0, p: False, q: True}) == 0.0  # inner merge all dead


def test_gradients_flow_through_the_taken_branch():
    x = tf.placeholder(tf.float64, [3])
    p = tf.placeholder(tf.bool, [])
    f, t = control_flow_ops.switch(x, p)
    m = control_flow_ops.merge([f * f, t * 3.0])[0]
    (g,) = tf.gradients(tf.reduce_sum(m), [x])
    xv = np.array([1.0, -2.0, 0.5])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(g, {x: xv, p: False}), 2 * xv)
        np.testing.assert_allclose(sess.run(g, {x: xv, p: True}), [3.0, 3.0, 3.0])


def test_errors():
    x = tf.constant([1.0])
    with pytest.raises(ValueError, match="merge inputs is None"):
        control_flow_ops.merge([None, x])
    with pytest.raises(TypeError, match="Input 'pred' of 'Switch' Op has type float32"):
        control_flow_ops.switch(x, 1.0)
    with pytest.raises(ValueError, match="Shape must be rank 0"):
        control_flow_ops.switch(x, tf.constant([True, False]))


def test_graph_def_round_trip_keeps_a_selector_and_converts_a_two_way_cond():
    img = tf.placeholder(tf.float32, [3], name="img")
    sel = tf.placeholder(tf.int32, [], name="sel")
    cases = [control_flow_ops.switch(img, tf.equal(sel, k))[1] * (k + 1.0) for k in range(3)]
    tf.identity(control_flow_ops.merge(cases)[0], name="out")
    x = tf.placeholder(tf.float32, [], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    f, t = control_flow_ops.switch(x, p)
    tf.identity(control_flow_ops.merge([f * 2.0, t * 3.0])[0], name="m")
    gd = tf.get_default_graph().as_graph_def()
    with tf.Graph().as_default() as g:
        tf.import_graph_def(gd, name="")
        types = {op.type for op in g.get_operations()}
        assert {"If", "Switch", "Merge"} <= types  # the cond became an If, the selector stays
        with tf.Session() as sess:
            for k in range(3):
                got = sess.run("out:0", {"img:0": [1.0, 2.0, 3.0], "sel:0": k})
                np.testing.assert_array_equal(got, np.array([1.0, 2.0, 3.0]) * (k + 1))
            assert sess.run("m:0", {"x:0": 1.0, "p:0": True}) == 3.0
            assert sess.run("m:0", {"x:0": 1.0, "p:0": False}) == 2.0
