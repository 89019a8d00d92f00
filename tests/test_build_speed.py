"""Graph construction: the shortcuts that make building big graphs fast keep TF 1.x's behaviour,
and building graphs does not keep them alive. (Speed itself: benchmarks/bench_build.py.)"""

import gc
import weakref

import numpy as np

import tideflow as tf


def _op_names(g):
    return {op.name for op in g.get_operations()}


def test_initial_values_that_read_no_variable_are_used_as_they_are():
    with tf.Graph().as_default() as g:
        a = tf.Variable(tf.random_normal([3, 2]) * 2 + 1, name="a")
        before = _op_names(g)
        b = tf.Variable(tf.ones([2]) * 3, name="b")
        # the initializer assigns the initial value itself; nothing was rebuilt
        assert a.initializer.inputs[1] is a.initial_value
        assert b.initializer.inputs[1] is b.initial_value
        assert not any(n.endswith("_b") for n in _op_names(g) - before)
        # the ops of those initial values are known to read no variable
        clear = g._guard_no_variable[1]
        assert a.initial_value.op in clear and b.initial_value.op in clear


def test_a_value_built_on_known_clear_ops_and_a_variable_is_still_guarded():
    with tf.Graph().as_default() as g:
        base = tf.ones([2]) * 2  # walked (and found clear) by the first variable
        tf.Variable(base, name="first")
        assert base.op in g._guard_no_variable[1]
        v = tf.Variable([1.0, 2.0], name="v")
        w = tf.Variable(base + v, name="w")
        assert w.initializer.inputs[1].name == "add_w:0"
        assert "w/IsVariableInitialized" in _op_names(g)
        # and the value read through a clear op further down: mul(add(base, v)) ...
        u = tf.Variable((base + v) * 3, name="u")
        assert u.initializer.inputs[1].name == "mul_1_u:0"
        with tf.Session() as s:
            s.run(u.initializer)  # before v's: v's initial value is used
            np.testing.assert_allclose(s.run(u), [9.0, 12.0])


def test_rewiring_an_input_forgets_what_was_known_clear():
    with tf.Graph().as_default() as g:
        v = tf.Variable(5.0, name="v")
        c = tf.constant(1.0)
        x = tf.identity(c)
        tf.Variable(x, name="first")
        assert x.op in g._guard_no_variable[1]
        x.op._update_input(0, v._ref())  # x now reads the variable
        w = tf.Variable(x * 2, name="w")
        assert w.initializer.inputs[1].name == "mul_w:0"
        assert x.op not in g._guard_no_variable[1]


def test_variables_outside_the_collections_are_not_guarded_but_collected_ones_are():
    with tf.Graph().as_default() as g:
        hidden = tf.Variable(1.0, name="hidden", collections=[])
        w = tf.Variable(hidden * 2, name="w")
        assert w.initializer.inputs[1] is w.initial_value  # as TF: only known variables
        local = tf.Variable(1.0, name="local", collections=[tf.GraphKeys.LOCAL_VARIABLES])
        x = tf.Variable(local * 2, name="x")
        assert x.initializer.inputs[1].name == "mul_1_x:0"
        assert "x/IsVariableInitialized" in _op_names(g)


def test_a_value_through_a_stop_op_is_not_walked():
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        w = tf.Variable(tf.where(tf.is_variable_initialized(v), 1.0, 2.0), name="w")
        assert w.initializer.inputs[1] is w.initial_value


def _freed(build):
    """Builds in a fresh graph, drops it, and tells whether the graph was freed."""
    g = tf.Graph()
    with g.as_default():
        build()
    ref = weakref.ref(g)
    del g
    gc.collect()
    return ref() is None


def test_a_graph_that_used_the_global_generator_is_freed():
    def build():
        gen = tf.random.get_global_generator()
        gen.normal([2])

    assert _freed(build)


def test_a_graph_with_a_set_global_generator_is_freed():
    def build():
        tf.random.set_global_generator(tf.random.Generator.from_seed(3))
        assert tf.random.get_global_generator() is tf.random.get_global_generator()

    assert _freed(build)


def test_the_global_generator_is_per_graph():
    with tf.Graph().as_default():
        a = tf.random.get_global_generator()
        assert tf.random.get_global_generator() is a
    with tf.Graph().as_default():
        assert tf.random.get_global_generator() is not a


def test_a_graph_with_variables_and_gradients_is_freed():
    def build():
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.layers.dense(x, 2)
        tf.train.AdamOptimizer().minimize(tf.reduce_sum(y))

    assert _freed(build)

