"""TF 1.15 parity of variables, variable scopes and initializers as TF 1.x programs use them:
each expected value below is what the same program printed under real TF 1.15."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_keras_identity_and_glorot_are_init_ops_classes():
    k = tf.keras.initializers
    assert k.Identity is tf.initializers.identity is k.identity
    assert k.glorot_uniform is tf.glorot_uniform_initializer
    assert k.glorot_normal is tf.glorot_normal_initializer
    init = k.Identity()
    assert sorted(init.get_config().items()) == [("dtype", "float32"), ("gain", 1.0)]
    t = init([2, 3])
    assert (t.op.type, t.name) == ("Mul", "mul:0")
    with pytest.raises(TypeError, match="Expected int32, got 1.0 of type 'float' instead."):
        init([2, 3], dtype=tf.int32)
    v = tf.get_variable("v", [3, 4], initializer=k.Identity(gain=2.0))
    assert v.initial_value.name == "v/Initializer/mul:0"
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(v), 2 * np.eye(3, 4))
    assert type(k.get("glorot_uniform")).__name__ == "GlorotUniform"


def test_assign_family_on_a_plain_tensor_is_an_attribute_error():
    c = tf.constant([1.0])
    for fn, method in ((tf.assign, "assign"), (tf.assign_add, "assign_add"),
                       (tf.assign_sub, "assign_sub")):
        with pytest.raises(AttributeError) as e:
            fn(c, [2.0])
        assert str(e.value) == f"'Tensor' object has no attribute '{method}'"


def test_disallowed_dtype_message_is_tf_words_exactly():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(TypeError) as e:
        tf.scatter_update(v, [0.5], [1.0])
    assert str(e.value) == ("Value passed to parameter 'indices' has DataType float32 not in "
                            "list of allowed values: int32, int64")
    with pytest.raises(TypeError) as e:
        tf.count_up_to(tf.Variable(0.0), 3)
    assert str(e.value) == ("Value passed to parameter 'ref' has DataType float32 not in list "
                            "of allowed values: int32, int64")


def test_count_up_to_needs_a_scalar():
    with pytest.raises(ValueError) as e:
        tf.count_up_to(tf.Variable([0]), 3)
    assert str(e.value) == ("Shape must be rank 0 but is rank 1 for 'CountUpTo' (op: "
                            "'CountUpTo') with input shapes: [1].")


def test_resource_variable_def_says_is_resource_and_round_trips():
    u = tf.Variable([1.0], name="u", use_resource=True)
    d = u.to_proto()
    assert d.is_resource
    assert (d.snapshot_name, d.initial_value_name) == ("u/Read/ReadVariableOp:0",
                                                       "u/Initializer/initial_value:0")
    assert not tf.Variable([1.0], name="r").to_proto().is_resource
    mg = tf.train.export_meta_graph()
    with tf.Graph().as_default():
        tf.train.import_meta_graph(mg)
        got = [(repr(v), v.dtype, v.value().name, v.read_value().name)
               for v in tf.global_variables()]
    assert got == [
        ("<tf.Variable 'u:0' shape=(1,) dtype=float32>", tf.float32, "ReadVariableOp:0",
         "Identity:0"),
        ("<tf.Variable 'r:0' shape=(1,) dtype=float32_ref>", tf.float32_ref, "r/read:0",
         "read_1:0")]


def test_resource_sparse_read_is_a_named_gather_then_identity():
    v = tf.get_variable("v", initializer=np.arange(12.0, dtype=np.float32).reshape(4, 3),
                        use_resource=True)
    s = v.sparse_read([0, 2])
    assert (s.name, s.op.type, s.shape.as_list()) == ("Identity:0", "Identity", [2, 3])
    assert s.op.inputs[0].op.name == "Gather"
    assert v.sparse_read([0, 2], name="foo").op.inputs[0].op.name == "foo"
    assert tf.gather(v, [1]).name == "Identity_2:0"
    assert tf.nn.embedding_lookup(v, [3]).name == "embedding_lookup/Identity_1:0"
    r = tf.gather(tf.Variable([[1.0]], name="r"), [0])  # a ref variable: TF's GatherV2
    assert (r.name, r.op.inputs[0].name) == ("GatherV2:0", "r/read:0")
    loss = tf.reduce_sum(tf.square(tf.nn.embedding_lookup(v, [0, 2, 0])))
    g = tf.gradients(loss, v)[0]
    assert type(g).__name__ == "IndexedSlices"
    train = tf.train.AdamOptimizer(0.1).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train)
        np.testing.assert_allclose(sess.run(v), [  # TF 1.15's
            [0.0, 0.7015873, 1.7006245], [3.0, 4.0, 5.0], [5.7001758, 6.7001491, 7.7001290],
            [9.0, 10.0, 11.0]], rtol=1e-6, atol=1e-6)


def test_template_names_the_new_trainable_variables():
    t = tf.make_template("t3", lambda x: x * tf.Variable(1.0, name="direct"))
    assert t(1.0).name == "t3/mul:0"
    with pytest.raises(ValueError) as e:
        t(1.0)
    assert str(e.value) == (
        "Trainable variable created when calling a template after the first time, perhaps you "
        "used tf.Variable when you meant tf.get_variable: [<tf.Variable 't3_1/direct:0' "
        "shape=() dtype=float32_ref>]")


def test_cast_returns_a_resource_variable_of_that_dtype_itself():
    r = tf.get_variable("r", [2], use_resource=True)
    assert tf.cast(r, tf.float32) is r
    assert tf.cast(r, tf.float64).name == "Cast:0"
    v = tf.Variable([1.0], name="v")
    assert tf.cast(v, tf.float32).name == "v/read:0"


def test_sparse_adam_on_a_resource_variable_builds_tf_ops():
    v = tf.get_variable("v", [10, 3], use_resource=True)
    loss = tf.reduce_sum(tf.nn.embedding_lookup(v, [1, 2]))
    tf.train.AdamOptimizer().minimize(loss)
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert len(names) == 111  # TF 1.15's
    grad = [n for n in names if n.startswith("gradients/embedding_lookup_grad/")]
    assert grad[:2] == ["gradients/embedding_lookup_grad/Const",
                        "gradients/embedding_lookup_grad/Size"]
    update = [n[len("Adam/update_v/"):] for n in names if n.startswith("Adam/update_v/")]
    assert update[update.index("mul_2"):] == [  # TF 1.15's
        "mul_2", "AssignVariableOp", "ReadVariableOp_3", "ResourceScatterAdd", "ReadVariableOp_4",
        "mul_3", "sub_3/x", "sub_3", "mul_4", "ReadVariableOp_5", "mul_5", "AssignVariableOp_1",
        "ReadVariableOp_6", "ResourceScatterAdd_1", "ReadVariableOp_7", "Sqrt_1", "mul_6", "add",
        "truediv_1", "AssignSubVariableOp", "ReadVariableOp_8", "group_deps"]


def test_contrib_variance_scaling_fans_are_the_partition_shape():
    tf.set_random_seed(5)
    v = tf.get_variable("xav", [6, 2], partitioner=tf.fixed_size_partitioner(2),
                        initializer=tf.contrib.layers.xavier_initializer(seed=5))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(v.as_tensor())
    part = [-0.756405, 0.781141, 0.749765, -0.08736, -0.801909, 0.98937]  # TF 1.15's
    np.testing.assert_allclose(got.ravel(), part + part, atol=2e-6)
    with pytest.raises(TypeError) as e:
        tf.contrib.layers.variance_scaling_initializer(mode="bad")
    assert str(e.value) == "('Unknown mode %s [FAN_IN, FAN_OUT, FAN_AVG]', 'bad')"


def test_glorot_initializers_drop_their_dtype_as_tf():
    for make in (tf.glorot_uniform_initializer, tf.glorot_normal_initializer,
                 tf.keras.initializers.glorot_uniform):
        init = make(dtype=tf.float64)
        assert init([2, 2]).dtype == tf.float32
        assert init.get_config() == {"seed": None, "dtype": "float32"}
        make(dtype=tf.int32)  # no error at construction


def test_keras_unknown_name_messages():
    cases = [
        (lambda: tf.keras.activations.get("nope"), "Unknown activation function:nope"),
        (lambda: tf.keras.losses.get("nope"), "Unknown loss function:nope"),
        (lambda: tf.keras.regularizers.get("nope"), "Unknown regularizer:nope"),
        (lambda: tf.keras.initializers.get("nope"), "Unknown initializer:nope"),
        (lambda: tf.keras.constraints.get("nope"), "Unknown constraint: nope"),
        (lambda: tf.keras.initializers.get({"class_name": "nope", "config": {}}),
         "Unknown initializer: nope"),
    ]
    for fn, message in cases:
        with pytest.raises(ValueError) as e:
            fn()
        assert str(e.value) == message
    assert type(tf.keras.constraints.get("non_neg")).__name__ == "NonNeg"


def test_resource_assign_converts_the_value_to_the_variable_dtype():
    v = tf.Variable([1.0, 2.0], name="v", use_resource=True)
    with pytest.raises(ValueError) as e:
        v.assign(tf.constant([1.0, 2.0], tf.float64, name="d"))
    assert str(e.value) == ("Tensor conversion requested dtype float32 for Tensor with dtype "
                            "float64: <tf.Tensor 'd:0' shape=(2,) dtype=float64>")
    with pytest.raises(ValueError, match="requested dtype float32 for Tensor with dtype int32"):
        v.assign_add(tf.constant([1, 2]))
    with pytest.raises(ValueError, match="requested dtype float32 for Tensor with dtype int32"):
        v.assign_sub(tf.constant([1, 2]))
    add = v.assign_add([1.0, 1.0], read_value=False)
    assert add.inputs[1].name == "Const_2:0"  # converted first, as TF's
    with pytest.raises(ValueError) as e:
        tf.Variable([1.0, 2.0], shape=[3], use_resource=True)
    assert str(e.value) == ("The initial value's shape ((2,)) is not compatible with the "
                            "explicitly supplied `shape` argument ([3]).")


def test_a_scope_constraint_is_not_inherited():
    def cons(x):
        return x

    with tf.variable_scope("a", constraint=cons) as a:
        v = tf.get_variable("v", [1])
        with tf.variable_scope("b") as b:
            w = tf.get_variable("w", [1])
    with tf.variable_scope(a) as a2:
        u = tf.get_variable("u", [1])
    with tf.variable_scope(a, constraint=cons) as a3:
        z = tf.get_variable("z", [1])
    # TF 1.15 printed: True None None True / True None None True
    assert (a.constraint, b.constraint, a2.constraint, a3.constraint) == (cons, None, None, cons)
    assert (v.constraint, w.constraint, u.constraint, z.constraint) == (cons, None, None, cons)


def test_resource_updates_named_as_tf():
    tf.enable_resource_variables()
    try:
        x = tf.placeholder(tf.float32, [None, 4])
        loss = tf.reduce_mean(tf.square(tf.layers.dense(x, 3)))
        tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    finally:
        tf.disable_resource_variables()
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names[-3:] == ["Momentum/update_dense/kernel/ResourceApplyMomentum",  # TF 1.15's
                          "Momentum/update_dense/bias/ResourceApplyMomentum", "Momentum"]


def test_sparse_gradient_descent_on_a_resource_variable_as_tf():
    tf.set_random_seed(1)
    v = tf.get_variable("v", [10, 3], use_resource=True)
    loss = tf.reduce_sum(tf.nn.embedding_lookup(v, [1, 2, 1]))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    d = tf.random_uniform([2])
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names[names.index("GradientDescent/learning_rate"):names.index("GradientDescent")] == [
        "GradientDescent/learning_rate", "GradientDescent/update_v/Neg",
        "GradientDescent/update_v/mul/y", "GradientDescent/update_v/mul",
        "GradientDescent/update_v/ResourceScatterAdd"]  # TF 1.15's
    rnd = tf.get_default_graph().get_operation_by_name("random_uniform/RandomUniform")
    assert rnd.get_attr("seed2") == 45  # TF 1.15's (the op count before it is TF's)
    assert d.name == "random_uniform:0"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run(v)
        sess.run(train)
        after = sess.run(v)
    want = before.copy()
    want[1] -= 0.2
    want[2] -= 0.1
    np.testing.assert_allclose(after, want, rtol=1e-6)


def test_resource_scatters_and_slice_assigns_build_tf_ops():
    tf.set_random_seed(1)
    v = tf.get_variable("v", [4], use_resource=True)
    i = tf.IndexedSlices(tf.constant([10.0, 20.0]), tf.constant([0, 2]))
    got = [v.scatter_update(i), v.scatter_add(i), v.scatter_mul(i), v.scatter_max(i)]
    got.append(v.scatter_nd_update([[1]], [7.0]))
    got.append(tf.scatter_sub(v, [0], [5.0]))
    w = tf.get_variable("w", [4, 2], use_resource=True)
    got.append(w[0].assign([1.0, 2.0]))
    g = w.gather_nd([[0, 1]])
    c = tf.get_variable("c", [], dtype=tf.int32, use_resource=True).count_up_to(3)
    tf.random_uniform([2])
    names = [op.name for op in tf.get_default_graph().get_operations()]
    first = names.index("Const_1") + 1
    assert names[first:names.index("w/Initializer/random_uniform/shape")] == [  # TF 1.15's
        "ResourceScatterUpdate", "ReadVariableOp", "ResourceScatterAdd", "ReadVariableOp_1",
        "ResourceScatterMul", "ReadVariableOp_2", "ResourceScatterMax", "ReadVariableOp_3",
        "Const_2", "ResourceScatterNdUpdate/indices", "ResourceScatterNdUpdate",
        "ReadVariableOp_4", "Const_3", "ResourceScatterSub/indices", "ResourceScatterSub",
        "ReadVariableOp_5"]
    assert names[names.index("strided_slice"):names.index("GatherNd/indices")] == [
        "strided_slice", "Const_4", "strided_slice/_assign", "ReadVariableOp_7"]
    assert (g.name, g.op.inputs[0].op.name) == ("Identity:0", "GatherNd")
    assert c.op.name == "ResourceCountUpTo"
    rnd = tf.get_default_graph().get_operation_by_name("random_uniform/RandomUniform")
    assert rnd.get_attr("seed2") == len(names) - 4 == 60  # TF 1.15's
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(v.assign([1.0, 2.0, 3.0, 4.0]))
        np.testing.assert_allclose(sess.run(got[0]), [10.0, 2.0, 20.0, 4.0])
        np.testing.assert_allclose(sess.run(got[2]), [100.0, 2.0, 400.0, 4.0])
        np.testing.assert_allclose(sess.run(got[5]), [95.0, 2.0, 400.0, 4.0])
        np.testing.assert_allclose(sess.run(got[6])[0], [1.0, 2.0])
        assert sess.run(c) == 0


def test_resource_initialization_checks_are_named_as_tf():
    a = tf.get_variable("a", [1], use_resource=True)
    tf.Variable(1.0, name="b")
    assert tf.is_variable_initialized(a).name == "VarIsInitializedOp:0"
    assert a.is_initialized().name == "VarIsInitializedOp_1:0"
    assert not hasattr(tf.Variable(1.0), "is_initialized")  # a ref variable has none in TF
    r = tf.report_uninitialized_variables()
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert [n for n in names if n.startswith("report_")][:3] == [
        "report_uninitialized_variables/VarIsInitializedOp",
        "report_uninitialized_variables/IsVariableInitialized",
        "report_uninitialized_variables/IsVariableInitialized_1"]
    with tf.Session() as sess:
        assert list(sess.run(r)) == [b"a", b"b", b"Variable"]
        sess.run(a.initializer)
        assert list(sess.run(r)) == [b"b", b"Variable"]


def test_batch_scatter_update_builds_tf_ops():
    tf.set_random_seed(1)
    v = tf.Variable(np.arange(12.0, dtype=np.float32).reshape(4, 3))
    u = tf.batch_scatter_update(v, [[0], [1], [2], [0]], [[1.0], [2.0], [3.0], [4.0]])
    d = tf.random_uniform([2])
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names[names.index("indices"):names.index("random_uniform/shape")] == [  # TF 1.15's
        "indices", "Shape", "ExpandDims/dim", "ExpandDims", "strided_slice/stack",
        "strided_slice/stack_1", "strided_slice/stack_2", "strided_slice", "Range/start",
        "Range/delta", "Range", "Reshape/shape/1", "Reshape/shape/2", "Reshape/shape", "Reshape",
        "ones_like/Shape", "ones_like/Const", "ones_like", "mul", "concat/axis", "concat",
        "ScatterNdUpdate/updates", "ScatterNdUpdate"]
    assert d.op.inputs[0].op.inputs[0].op.get_attr("seed2") == 30
    w = tf.Variable([1.0, 2.0, 3.0], name="w")
    u1 = tf.batch_scatter_update(w, [2, 0], [9.0, 8.0], name="bsu")
    assert u1.name == "bsu/ScatterNdUpdate:0"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(u), [[1, 1, 2], [3, 2, 5], [6, 7, 3], [4, 10, 11]])
        np.testing.assert_array_equal(sess.run(u1), [8.0, 2.0, 9.0])


def test_top_level_is_variable_initialized_takes_variable():
    import inspect

    assert str(inspect.signature(tf.is_variable_initialized)) == "(variable)"  # TF 1.15's
    v = tf.Variable(1.0, name="v")
    assert tf.is_variable_initialized(variable=v).name == "IsVariableInitialized:0"


def test_reading_an_unset_resource_variable_says_tf_words():
    a = tf.get_variable("a", [1], use_resource=True)
    w = tf.get_variable("w", [1], use_resource=True)
    head = ("Error while reading resource variable w from Container: localhost. This could mean "
            "that the variable was uninitialized. Not found: ")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError) as e:
            sess.run(w)
        assert e.value.message.split("\n")[0] == head + ("Container localhost does not exist. (Could not find "
                                          "resource: localhost/w)")
        sess.run(a.initializer)
        with pytest.raises(tf.errors.FailedPreconditionError) as e:
            sess.run(w + 1)
        assert e.value.message.split("\n")[0] == head + "Resource localhost/w/N10tensorflow3VarE does not exist."
    with tf.Session() as sess, pytest.raises(tf.errors.FailedPreconditionError) as e:
        sess.run(tf.Variable(1.0, name="r"))
    assert e.value.message.split("\n")[0] == "Attempting to use uninitialized value r"


def test_resource_gather_in_a_cond_keeps_tf_seeds():
    tf.set_random_seed(1)
    v = tf.get_variable("v", [10, 3], use_resource=True)
    p = tf.placeholder(tf.bool, [])
    c = tf.cond(p, lambda: tf.reduce_sum(tf.nn.embedding_lookup(v, [1, 2])),
                lambda: tf.constant(0.0))
    g = tf.gradients(c, v)[0]
    tf.random_uniform([2])
    rnd = tf.get_default_graph().get_operation_by_name("random_uniform/RandomUniform")
    assert rnd.get_attr("seed2") == 64  # TF 1.15's
    with tf.Session() as sess:
        sess.run(v.initializer)
        want = np.zeros((10, 3), np.float32)
        want[1:3] = 1.0
        np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(g), {p: True}), want)


def test_zero_initializer_is_tf_op():
    v = tf.Variable(tf.ones([2]), name="v")
    z = tf.contrib.framework.zero_initializer(v)
    assert (z.name, z.op.type) == ("zero_initializer:0", "ZeroInitializer")  # TF 1.15's
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(z), [0.0, 0.0])
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(z)
        assert e.value.message.split("\n")[0] == "input is already initialized"


def test_keras_moving_average_update_is_zero_debiased():
    K = tf.keras.backend
    c = K.zeros((2,))
    m = K.moving_average_update(c, tf.constant([1.0, 3.0]), 0.9)
    assert [v.name for v in tf.global_variables()] == [  # TF 1.15's
        "Variable:0", "Variable/biased:0", "Variable/local_step:0"]
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names[-2:] == ["AssignMovingAvg", "AssignMovingAvg/ReadVariableOp"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(m), [1.0, 3.0], rtol=1e-6)  # (debiased: TF's)


def test_keras_random_variables_draw_with_tf_initializers():
    K = tf.keras.backend
    np.random.seed(4)
    a = K.random_uniform_variable((2, 3), -1, 1)
    b = K.random_normal_variable((3,), 1, 2, dtype="float64", name="rn")
    c = K.random_uniform_variable((2,), 0, 1, seed=7)
    assert (repr(a), repr(b)) == ("<tf.Variable 'Variable:0' shape=(2, 3) dtype=float32>",
                                  "<tf.Variable 'rn:0' shape=(3,) dtype=float64>")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        # TF 1.15's values
        np.testing.assert_allclose(sess.run(a), [[-0.71818, -0.09654, 0.88853],
                                                 [-0.46025, 0.9754, 0.48812]], atol=1e-5)
        np.testing.assert_allclose(sess.run(b), [-0.61712, -0.83252, 0.65414], atol=1e-5)
        np.testing.assert_allclose(sess.run(c), [0.48394, 0.5062], atol=1e-5)
