"""Variables, initializers, variable scopes and seeded randomness, as TF 1.x programs use them."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.framework.indexed_slices import IndexedSlices


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


# ------------------------------------------------------------------------------------------
# tf.Variable
# ------------------------------------------------------------------------------------------


def test_variable_graph_structure_and_properties():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="v")
    assert v.name == "v:0" and v.op.name == "v" and v.op.type == "VariableV2"
    assert v.dtype == tf.float32_ref and v.dtype.base_dtype == tf.float32
    assert v.shape.as_list() == [2, 2] and v.get_shape().as_list() == [2, 2]
    assert v.initializer.type == "Assign" and v.initializer.name == "v/Assign"
    assert v.initial_value.op.name == "v/initial_value"
    assert v.value().op.name == "v/read" and v.value().op.type == "Identity"
    assert v.value().dtype == tf.float32
    assert v.graph is tf.get_default_graph()
    assert repr(v) == "<tf.Variable 'v:0' shape=(2, 2) dtype=float32_ref>"
    assert tf.global_variables() == [v] and tf.trainable_variables() == [v]
    assert tf.all_variables() == [v]
    assert tf.convert_to_tensor(v) is v.value()
    assert tf.convert_to_tensor(v, as_ref=True).dtype == tf.float32_ref
    w = tf.Variable(0, name="v")
    assert w.op.name == "v_1" and w.dtype == tf.int32_ref
    u = tf.Variable(1.0)
    assert u.op.name == "Variable"
    with pytest.raises(ValueError, match="initial_value must be specified"):
        tf.Variable()


def test_variable_run_and_operators():
    v = tf.Variable([1.0, 2.0, 3.0], name="v")
    w = tf.Variable(np.eye(3, dtype=np.float32), name="w")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(v), [1, 2, 3])
        np.testing.assert_array_equal(v.eval(), [1, 2, 3])
        np.testing.assert_array_equal(sess.run(v + 1), [2, 3, 4])
        np.testing.assert_array_equal(sess.run(2 * v), [2, 4, 6])
        np.testing.assert_array_equal(sess.run(-v), [-1, -2, -3])
        np.testing.assert_array_equal(sess.run(v - v), [0, 0, 0])
        np.testing.assert_array_equal(sess.run(np.float32(1) + v), [2, 3, 4])
        if hasattr(tf.Tensor, "__getitem__"):
            assert sess.run(v[1]) == 2.0
        if hasattr(tf.Tensor, "__matmul__"):
            np.testing.assert_array_equal(sess.run(w @ tf.reshape(v, [3, 1])).ravel(), [1, 2, 3])
        assert sess.run(tf.add(v, v)).tolist() == [2, 4, 6]
        np.testing.assert_array_equal(sess.run({"v": v})["v"], [1, 2, 3])
    with pytest.raises(TypeError):
        iter(v)


def test_initial_value_callable_and_dtype():
    v = tf.Variable(lambda: [1, 2], dtype=tf.float32, name="c")
    assert v.dtype == tf.float32_ref
    assert v.initial_value.op.name.startswith("c/Initializer/")
    assert [c if isinstance(c, bytes) else c.encode()
            for c in v.initial_value.op.get_attr("_class")] == [b"loc:@c"]
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(v).tolist() == [1.0, 2.0]


def test_uninitialized_error_names_variable_and_session_survives():
    v = tf.Variable(3.0, name="weights")
    w = tf.Variable(4.0, name="other")
    with tf.Session() as sess:
        for fetch in (v, v.value(), v + 1.0, v._ref()):
            with pytest.raises(tf.errors.FailedPreconditionError,
                               match="Attempting to use uninitialized value weights"):
                sess.run(fetch)
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value weights"):
            sess.run(v.assign_add(1.0))
        sess.run(v.initializer)
        assert sess.run(v) == 3.0
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value other"):
            sess.run(v + w)
        sess.run(w.initializer)
        assert sess.run(v + w) == 7.0
    with tf.Session() as sess:  # variables live in the session: a new one starts uninitialized
        assert not sess.run(tf.is_variable_initialized(v))
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(v)


def test_fetched_values_do_not_alias_the_buffer():
    v = tf.Variable([1.0, 2.0], name="v")
    inc = tf.assign_add(v, [1.0, 1.0])
    with tf.Session() as sess:
        sess.run(v.initializer)
        a = sess.run(v)
        b = sess.run(v.value())
        c = sess.run(inc)
        d = sess.run(inc)
        a[0] = 100.0
        np.testing.assert_array_equal(b, [1, 2])
        np.testing.assert_array_equal(c, [2, 3])
        np.testing.assert_array_equal(d, [3, 4])
        np.testing.assert_array_equal(sess.run(v), [3, 4])


def test_assign_methods_and_validate_shape():
    v = tf.Variable([1, 2, 3], name="v")
    p = tf.placeholder(tf.int32)
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(v.assign([4, 5, 6])).tolist() == [4, 5, 6]
        assert sess.run(v.assign_add([1, 1, 1])).tolist() == [5, 6, 7]
        assert sess.run(v.assign_sub([5, 5, 5])).tolist() == [0, 1, 2]
        op = v.assign([7, 7, 7], read_value=False)
        assert isinstance(op, tf.Operation)
        sess.run(op)
        assert sess.run(v).tolist() == [7, 7, 7]
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Assign requires shapes of both tensors to match. "
                                 r"lhs shape= \[3\] rhs shape= \[2\]"):
            sess.run(tf.assign(v, p), {p: [1, 2]})
        assert sess.run(v).tolist() == [7, 7, 7]
        grow = tf.assign(v, p, validate_shape=False)
        assert sess.run(grow, {p: [1, 2]}).tolist() == [1, 2]
        assert sess.run(v).tolist() == [1, 2]
    with pytest.raises(ValueError):
        v.assign([1, 2])
    with pytest.raises(TypeError):
        tf.assign_add(v, [1.5, 2.0, 3.0])


def test_scatter_ops_with_duplicates():
    v = tf.Variable(np.zeros([4, 2], np.float32), name="v")
    idx = tf.constant([0, 2, 0])
    upd = tf.constant([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    with tf.Session() as sess:
        sess.run(v.initializer)
        got = sess.run(tf.scatter_add(v, idx, upd))
        np.testing.assert_array_equal(got, [[4, 4], [0, 0], [2, 2], [0, 0]])
        got = sess.run(tf.scatter_sub(v, [1], [[1.0, 2.0]]))
        np.testing.assert_array_equal(got[1], [-1, -2])
        got = sess.run(tf.scatter_update(v, [3, 1], [[9.0, 9.0], [8.0, 8.0]]))
        np.testing.assert_array_equal(got[3], [9, 9])
        np.testing.assert_array_equal(got[1], [8, 8])
        got = sess.run(v.scatter_sub(IndexedSlices(tf.constant([[1.0, 1.0]]), tf.constant([3]))))
        np.testing.assert_array_equal(got[3], [8, 8])
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"= 7 is not in \[0, 4\)"):
            sess.run(tf.scatter_update(v, [7], [[0.0, 0.0]]))


def test_load_initialized_value_read_value_and_proto():
    v = tf.Variable([1.0, 2.0], name="v")
    w = tf.Variable(v.initialized_value() * 2, name="w")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(w).tolist() == [2.0, 4.0]
        v.load([5.0, 6.0], sess)
        assert sess.run(v.read_value()).tolist() == [5.0, 6.0]
        assert sess.run(v).tolist() == [5.0, 6.0]  # initialized_value did not reset v
        with sess.as_default():
            v.load([0.0, 0.0])
        assert v.eval(sess).tolist() == [0.0, 0.0]
    vd = v.to_proto()
    assert vd.variable_name == "v:0" and vd.snapshot_name == "v/read:0"
    v2 = tf.Variable.from_proto(vd)
    assert v2.op is v.op and v2.initializer is v.initializer and v2.value() is v.value()


def test_control_dependencies_on_variable():
    v = tf.Variable(1.0, name="v")
    with tf.control_dependencies([v]):
        c = tf.constant(2.0)
    assert v.op in c.op.control_inputs


def test_collections_and_initializers():
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b", trainable=False)
    c = tf.Variable(3.0, name="c", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    d = tf.Variable(4.0, name="d", collections=[tf.GraphKeys.GLOBAL_VARIABLES,
                                                tf.GraphKeys.MODEL_VARIABLES])
    assert tf.global_variables() == [a, b, d]
    assert tf.trainable_variables() == [a, c, d]
    assert tf.local_variables() == [c]
    assert tf.model_variables() == [d]
    assert tf.moving_average_variables() == []
    with pytest.raises(ValueError, match="must be a list, tuple, or set"):
        tf.Variable(1.0, collections="x")
    init = tf.global_variables_initializer()
    assert init.type == "NoOp" and init.name == "init"
    assert tf.initialize_all_variables().type == "NoOp"
    local = tf.local_variables_initializer()
    assert tf.variables_initializer([]).type == "NoOp"
    with tf.Session() as sess:
        assert sess.run(tf.is_variable_initialized(a)) == np.False_
        sess.run(init)
        assert sess.run(tf.is_variable_initialized(a))
        assert not sess.run(tf.is_variable_initialized(c))
        sess.run(local)
        assert sess.run(c) == 3.0
        sess.run(tf.initialize_variables([a]))


@pytest.mark.skipif(not hasattr(tf, "boolean_mask"), reason="needs tf.boolean_mask")
def test_report_uninitialized_variables():
    a = tf.Variable(1.0, name="a")
    tf.Variable(2.0, name="b")
    report = tf.report_uninitialized_variables()
    assert report.dtype == tf.string
    with tf.Session() as sess:
        assert sess.run(report).tolist() == [b"a", b"b"]
        sess.run(a.initializer)
        assert sess.run(report).tolist() == [b"b"]
        sess.run(tf.global_variables_initializer())
        assert sess.run(report).size == 0
    with tf.Graph().as_default():
        assert tf.Session().run(tf.report_uninitialized_variables()).size == 0


def test_assert_variables_initialized():
    a = tf.Variable([1.0], name="a")
    check = tf.assert_variables_initialized([a])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(check)
        sess.run(a.initializer)
        sess.run(check)


# ------------------------------------------------------------------------------------------
# variable scopes and get_variable
# ------------------------------------------------------------------------------------------


def test_get_variable_names_and_reuse():
    with tf.variable_scope("foo"):
        w = tf.get_variable("w", [2, 3])
        c = tf.constant(1.0, name="c")
        with tf.variable_scope("bar"):
            b = tf.get_variable("b", [3], initializer=tf.zeros_initializer())
    assert w.name == "foo/w:0" and b.name == "foo/bar/b:0" and c.op.name == "foo/c"
    assert w.dtype == tf.float32_ref
    exists = r"Variable foo/w already exists, disallowed. Did you mean to set reuse=True or reuse"
    with pytest.raises(ValueError, match=exists), tf.variable_scope("foo"):
        tf.get_variable("w", [2, 3])
    with tf.variable_scope("foo", reuse=True):
        assert tf.get_variable("w", [2, 3]) is w
        assert tf.get_variable("w") is w
        with tf.variable_scope("bar"):  # reuse is inherited
            assert tf.get_variable("b") is b
        with pytest.raises(ValueError, match=r"Variable foo/x does not exist, or was not created "
                                             r"with tf.get_variable\(\). Did you mean to set "
                                             r"reuse=tf.AUTO_REUSE in VarScope\?"):
            tf.get_variable("x", [1])
        with pytest.raises(ValueError, match="Trying to share variable foo/w, but specified "
                                             "shape"):
            tf.get_variable("w", [3, 3])
        with pytest.raises(ValueError, match="specified dtype int32 and found dtype "
                                             "float32_ref"):
            tf.get_variable("w", [2, 3], dtype=tf.int32)
    with tf.variable_scope("foo") as scope:
        scope.reuse_variables()
        assert tf.get_variable_scope().reuse is True
        assert tf.get_variable("w") is w
    assert tf.get_variable_scope().reuse is False
    with pytest.raises(ValueError, match="`shape` should be fully defined"):
        tf.get_variable("nope")
    assert tf.global_variables() == [w, b]


def test_auto_reuse_and_scope_objects():
    def layer():
        with tf.variable_scope("layer", reuse=tf.AUTO_REUSE):
            return tf.get_variable("k", [1])

    assert layer() is layer()
    with tf.variable_scope("outer") as outer:
        v = tf.get_variable("v", [1])
        x = tf.constant(0, name="x")
    assert outer.name == "outer" and outer.original_name_scope == "outer/"
    with tf.variable_scope(outer, reuse=True) as again:
        assert again.name == "outer"
        assert tf.get_variable("v") is v
        y = tf.constant(0, name="x")
    assert x.op.name == "outer/x" and y.op.name == "outer_1/x"
    with tf.variable_scope(None, default_name="blk"):
        a = tf.get_variable("a", [1])
    with tf.variable_scope(None, default_name="blk"):
        a2 = tf.get_variable("a", [1])
    assert a.name == "blk/a:0" and a2.name == "blk_1/a:0"
    with tf.variable_op_scope([], None, default_name="old"):
        assert tf.get_variable("z", [1]).name == "old/z:0"
    with pytest.raises(ValueError), tf.variable_scope(None, default_name="x", reuse=True):
        pass
    with tf.name_scope("ns"), tf.variable_scope("vs"):
        q = tf.get_variable("q", [1])
        t = tf.constant(1, name="t")
    assert q.name == "vs/q:0" and t.op.name == "ns/vs/t"


def test_scope_defaults_initializers_and_regularizers():
    with tf.variable_scope("s", initializer=tf.constant_initializer(7.0)):
        a = tf.get_variable("a", [2])
        with tf.variable_scope("inner", dtype=tf.float64):
            b = tf.get_variable("b", [1])
    i = tf.get_variable("i", [3], dtype=tf.int32)
    g = tf.get_variable("g", [100, 100])
    c = tf.get_variable("c", initializer=tf.constant([1.0, 2.0]))
    with tf.variable_scope("r", regularizer=lambda v: tf.reduce_sum(v) * 0.5):
        r = tf.get_variable("w", [2], initializer=tf.ones_initializer())
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert len(losses) == 1 and losses[0].op.name.startswith("r/w/Regularizer/")
    assert b.dtype == tf.float64_ref and c.get_shape().as_list() == [2]
    with pytest.raises(ValueError, match="If initializer is a constant, do not specify shape"):
        tf.get_variable("c2", [2], initializer=tf.constant([1.0, 2.0]))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(a).tolist() == [7.0, 7.0] and sess.run(b).tolist() == [7.0]
        assert sess.run(i).tolist() == [0, 0, 0]
        gv = sess.run(g)
        limit = np.sqrt(6.0 / 200)
        assert np.abs(gv).max() <= limit and gv.std() > 0.5 * limit / np.sqrt(3)
        assert sess.run(c).tolist() == [1.0, 2.0]
        assert sess.run(losses[0]) == 1.0
        assert sess.run(r).tolist() == [1.0, 1.0]


def test_custom_getter():
    seen = []

    def getter(getter, name, *args, **kwargs):
        seen.append(name)
        return getter(name + "_x", *args, **kwargs)

    with tf.variable_scope("cg", custom_getter=getter):
        v = tf.get_variable("v", [1])
    assert seen == ["cg/v"] and v.name == "cg/v_x:0"


# ------------------------------------------------------------------------------------------
# initializers
# ------------------------------------------------------------------------------------------


def _value(init, shape, dtype=tf.float32):
    t = init(shape, dtype=dtype)
    assert t.get_shape().as_list() == list(shape) and t.dtype == dtype
    with tf.Session() as sess:
        out = sess.run(t)
    assert out.shape == tuple(shape)
    return out


def test_constant_like_initializers():
    assert _value(tf.zeros_initializer(), [2, 3]).tolist() == [[0] * 3] * 2
    assert _value(tf.ones_initializer(), [2], tf.int32).tolist() == [1, 1]
    assert _value(tf.constant_initializer(5), [2, 2]).tolist() == [[5, 5], [5, 5]]
    assert _value(tf.constant_initializer([1, 2]), [4]).tolist() == [1, 2, 2, 2]
    with pytest.raises(TypeError):
        tf.constant_initializer([1, 2], verify_shape=True)([4])
    with pytest.raises(TypeError):
        tf.constant_initializer({"a": 1})
    assert tf.initializers.zeros is tf.zeros_initializer


def test_random_initializers_statistics():
    tf.set_random_seed(3)
    n = _value(tf.random_normal_initializer(1.0, 2.0), [200, 100])
    assert abs(n.mean() - 1.0) < 0.1 and abs(n.std() - 2.0) < 0.1
    t = _value(tf.truncated_normal_initializer(0.0, 1.0), [200, 100])
    assert np.abs(t).max() <= 2.0 + 1e-6
    u = _value(tf.random_uniform_initializer(-2.0, 3.0), [200, 100])
    assert u.min() >= -2.0 and u.max() < 3.0 and abs(u.mean() - 0.5) < 0.1
    gu = _value(tf.glorot_uniform_initializer(), [300, 100])
    lim = np.sqrt(6.0 / 400)
    assert np.abs(gu).max() <= lim and abs(gu.std() - lim / np.sqrt(3)) < 0.1 * lim
    gn = _value(tf.glorot_normal_initializer(), [300, 100])
    assert abs(gn.std() - np.sqrt(2.0 / 400)) < 0.1 * np.sqrt(2.0 / 400)
    for mode, fan in (("fan_in", 300), ("fan_out", 100), ("fan_avg", 200)):
        vs = _value(tf.variance_scaling_initializer(2.0, mode, "uniform"), [300, 100])
        assert abs(vs.std() - np.sqrt(2.0 / fan)) < 0.1 * np.sqrt(2.0 / fan)
    conv = _value(tf.variance_scaling_initializer(), [3, 3, 16, 32], tf.float64)
    assert abs(conv.std() - np.sqrt(1.0 / 144)) < 0.15 * np.sqrt(1.0 / 144)
    uus = _value(tf.uniform_unit_scaling_initializer(), [100, 10])
    assert np.abs(uus).max() <= np.sqrt(3 / 100)
    with pytest.raises(ValueError):
        tf.variance_scaling_initializer(mode="nope")
    with pytest.raises(ValueError):
        tf.variance_scaling_initializer(scale=-1.0)


def test_orthogonal_initializer():
    for shape in ([10, 4], [4, 10], [3, 3, 8]):
        q = _value(tf.orthogonal_initializer(gain=2.0), shape).reshape(-1, shape[-1])
        small = min(q.shape)
        gram = q.T @ q if q.shape[0] >= q.shape[1] else q @ q.T
        np.testing.assert_allclose(gram, 4.0 * np.eye(small), atol=1e-4)
    with pytest.raises(ValueError):
        tf.orthogonal_initializer()([3])


# ------------------------------------------------------------------------------------------
# seeded randomness
# ------------------------------------------------------------------------------------------


def _program(graph_seed=None, op_seed=None):
    with tf.Graph().as_default():
        if graph_seed is not None:
            tf.set_random_seed(graph_seed)
        a = tf.random_uniform([5], seed=op_seed)
        b = tf.random_normal([5], seed=op_seed)
        with tf.Session() as s1:
            first = (s1.run(a), s1.run(a), s1.run(b))
        with tf.Session() as s2:
            again = s2.run(a)
    return first, again


def test_random_determinism():
    (a1, a2, b1), again = _program(graph_seed=7)
    (c1, c2, d1), _ = _program(graph_seed=7)
    np.testing.assert_array_equal(a1, c1)  # same program, same graph seed: same numbers
    np.testing.assert_array_equal(a2, c2)
    np.testing.assert_array_equal(b1, d1)
    assert not np.array_equal(a1, a2)  # runs advance the sequence
    np.testing.assert_array_equal(again, a1)  # a new session restarts it
    (e1, _, _), _ = _program(op_seed=11)
    (f1, _, _), _ = _program(op_seed=11)
    np.testing.assert_array_equal(e1, f1)  # an op seed alone is deterministic
    (g1, _, _), _ = _program(graph_seed=8)
    assert not np.array_equal(a1, g1)
    (h1, _, _), _ = _program()
    (i1, _, _), _ = _program()
    assert not np.array_equal(h1, i1)  # no seeds: nondeterministic
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        x, y = tf.random_uniform([5]), tf.random_uniform([5])
        with tf.Session() as s:
            assert not np.array_equal(*s.run([x, y]))  # different ops differ


def test_random_wrappers_validate():
    with pytest.raises(ValueError, match="Must specify maxval for integer dtype"):
        tf.random_uniform([2], dtype=tf.int32)
    t = tf.random_uniform([2, 3], 1.0, 2.0, name="u")
    assert t.op.name == "u" and t.get_shape().as_list() == [2, 3]
    n = tf.random_normal([4], dtype=tf.float64)
    assert n.dtype == tf.float64 and n.get_shape().as_list() == [4]
    s = tf.random_uniform([])
    assert s.get_shape().as_list() == []
    with tf.Session() as sess:
        assert np.shape(sess.run(s)) == ()


def test_tables_initializer_groups_the_collection():
    with tf.Graph().as_default():
        v = tf.Variable(0, name="counter")
        tf.add_to_collection(tf.GraphKeys.TABLE_INITIALIZERS, tf.assign(v, 7).op)
        init = tf.tables_initializer()
        with tf.Session() as s:
            s.run(init)
            assert s.run(v) == 7
    with tf.Graph().as_default():
        assert tf.tables_initializer().type == "NoOp"
