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



# ------------------------------------------------------------------------------------------
# Keras: a Sequential model extended one layer at a time maps the same network as a full walk
# ------------------------------------------------------------------------------------------

def _full_map(model):
    return model._map_graph_network()


def _same(a, b):
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def test_sequential_added_layer_by_layer_maps_as_a_full_walk():
    with tf.Graph().as_default():
        m = tf.keras.Sequential([tf.keras.layers.Dense(4, input_shape=(3,))])
        for i in range(5):
            m.add(tf.keras.layers.Dense(4, name=f"d{i}"))
            nodes, layers = _full_map(m)
            assert _same(m._network_nodes, nodes) and _same(m._layers_list, layers)
        assert [la.name for la in m.layers][-5:] == [f"d{i}" for i in range(5)]
        m.pop()
        m.add(tf.keras.layers.Dense(2, name="last"))
        nodes, layers = _full_map(m)
        assert _same(m._network_nodes, nodes) and _same(m._layers_list, layers)
        assert m.output_names == ["last"] and m.output.get_shape().as_list() == [None, 2]
        assert len(m.trainable_weights) == 2 * 6


def test_sequential_of_a_nested_model_and_a_shared_tail_maps_as_a_full_walk():
    with tf.Graph().as_default():
        inner = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(3,), name="in_d")])
        m = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(3,), name="first")])
        m.add(inner)  # a nested model: one node of the outer network
        m.add(tf.keras.layers.Dense(3, name="after"))
        nodes, layers = _full_map(m)
        assert _same(m._network_nodes, nodes) and _same(m._layers_list, layers)
        assert [la.name for la in m.layers] == ["first", inner.name, "after"]
        assert len(m.weights) == 6


def test_layer_lists_keep_order_and_drop_only_repeats_of_earlier_items():
    with tf.Graph().as_default():
        x = tf.keras.Input((3,))
        shared = tf.keras.layers.Dense(3, name="shared")
        bn = tf.keras.layers.BatchNormalization(name="bn")
        y = shared(bn(shared(x)))
        m = tf.keras.Model(x, y)
        # the shared layer's weights once, in first-seen order; BN's moving stats not trainable
        assert [v.op.name for v in m.trainable_weights] == [
            "shared/kernel", "shared/bias", "bn/gamma", "bn/beta"]
        assert [v.op.name for v in m.non_trainable_weights] == [
            "bn/moving_mean", "bn/moving_variance"]
        assert len(m.updates) == 2 and len({id(u) for u in m.updates}) == 2
        m.trainable = False
        assert m.trainable_weights == []
        assert [v.op.name for v in m.non_trainable_weights] == [
            "shared/kernel", "shared/bias", "bn/gamma", "bn/beta", "bn/moving_mean",
            "bn/moving_variance"]


def test_a_sublayers_repeated_loss_is_kept_as_before():
    class Twice(tf.keras.layers.Layer):
        def call(self, inputs):
            loss = tf.reduce_sum(inputs)
            self.add_loss(loss)
            self.add_loss(loss)
            return inputs

    class Outer(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.inner = Twice()

        def call(self, inputs):
            self.add_loss(tf.reduce_mean(inputs))
            return self.inner(inputs)

    with tf.Graph().as_default():
        outer = Outer()
        outer(tf.keras.Input((2,)))
        # a layer's losses: its own, then each sublayer's not seen before (a sublayer's own
        # repeats included), as the list scan did
        losses = outer.losses
        assert [x.op.name for x in losses] == ["outer/Mean", "outer/twice/Sum",
                                               "outer/twice/Sum"]


# ------------------------------------------------------------------------------------------
# variable scopes: closing a scope resets the counts of its own subscopes only
# ------------------------------------------------------------------------------------------

def test_closing_a_variable_scope_resets_exactly_its_subscopes():
    with tf.Graph().as_default():
        with tf.variable_scope("a"):
            with tf.variable_scope("b"):
                pass
            with tf.variable_scope("b/c"):  # a name with a slash: under a and a/b
                pass
            with tf.variable_scope(None, default_name="b"):  # a/b was opened: a/b_1
                assert tf.get_variable_scope().name == "a/b_1"
        with tf.variable_scope("ab"), tf.variable_scope(None, default_name="x"):
            pass  # "ab": a prefix of the name "a", not a scope under it
        with tf.variable_scope("a"):  # closing the first "a" reset a/b and a/b/c
            with tf.variable_scope(None, default_name="b"):
                assert tf.get_variable_scope().name == "a/b"
            with tf.variable_scope(None, default_name="b/c"):
                assert tf.get_variable_scope().name == "a/b/c"
        with tf.variable_scope("ab"), tf.variable_scope(None, default_name="x"):
            assert tf.get_variable_scope().name == "ab/x"
        # the top level is never closed: default names keep counting there
        with tf.variable_scope(None, default_name="a"):
            assert tf.get_variable_scope().name == "a_1"


def test_tf_layers_names_in_nested_and_repeated_scopes():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 2])
        for _ in range(2):
            with tf.variable_scope("block", reuse=tf.AUTO_REUSE):
                tf.layers.dense(tf.layers.dense(x, 2), 2)
        with tf.variable_scope("other"):
            tf.layers.dense(x, 2)
        tf.layers.dense(x, 2)
        tf.layers.dense(x, 2)
        names = [v.op.name for v in tf.global_variables()]
        assert names == ["block/dense/kernel", "block/dense/bias", "block/dense_1/kernel",
                         "block/dense_1/bias", "other/dense/kernel", "other/dense/bias",
                         "dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias"]
        assert len(g.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)) == 10


# ------------------------------------------------------------------------------------------
# ops keep no empty consumer / control lists, and the links stay right when they appear
# ------------------------------------------------------------------------------------------

def test_consumers_and_control_links_made_on_demand():
    with tf.Graph().as_default():
        a = tf.constant(1.0, name="a")
        b = tf.constant(2.0, name="b")
        assert a.consumers() == [] and a.op.control_inputs == []
        x = tf.add(a, b, name="x")
        with tf.control_dependencies([x]):
            y = tf.identity(a, name="y")
        assert [op.name for op in a.consumers()] == ["x", "y"]
        assert [op.name for op in y.op.control_inputs] == ["x"]
        assert x.op._control_outputs == [y.op]
        y.op._add_control_input(b.op)
        y.op._add_control_input(b.op)  # once only
        assert [op.name for op in y.op.control_inputs] == ["x", "b"]
        assert b.op._control_outputs == [y.op]
        z = tf.identity(b, name="z")
        z.op._update_input(0, a)
        assert [op.name for op in a.consumers()] == ["x", "y", "z"]
        assert b.consumers() == [x.op]
        x.op._update_input(1, a)
        assert b.consumers() == []
        with tf.Session() as s:
            assert s.run([y, z]) == [1.0, 1.0]
            assert s.run(x) == 2.0
