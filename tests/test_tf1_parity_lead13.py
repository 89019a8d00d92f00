"""TF 1.x behaviours the lead fixed in the thirteenth session, each checked side by side with
TF 2.21's compat.v1 first; expected values worked out by hand or with NumPy.

Resource variables (``use_resource=True``, ``tf.enable_resource_variables()``, resource variables
of an imported graph) read as snapshots: an update later in the step, or in a later step, does
not change a value read before it. Reference variables keep TF 1.x's aliasing (their read is the
buffer the update writes into).
"""

import os

import numpy as np
import pytest

import tideflow as tf

ART = os.path.join(os.path.dirname(__file__), "data", "tf_artifacts")


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _var(name, value, resource):
    return tf.get_variable(name, initializer=np.asarray(value, np.float32),
                           use_resource=resource)


@pytest.mark.parametrize("resource", [False, True])
def test_a_read_before_an_update_of_the_step(resource):
    v = _var("v", [1.0, 1.0, 1.0], resource)
    r = v.read_value()
    with tf.control_dependencies([r]):
        a = v.assign_add([1.0, 1.0, 1.0])
    w = _var("w", [1.0, 2.0], resource)
    r2 = tf.identity(w)
    with tf.control_dependencies([r2]):
        a2 = w.assign(w * 5)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        before, after = s.run([r, a])
        np.testing.assert_array_equal(after, [2, 2, 2])
        # a resource read is a snapshot; a ref read is the buffer the update wrote into
        np.testing.assert_array_equal(before, [1, 1, 1] if resource else [2, 2, 2])
        before, after = s.run([r2, a2])
        np.testing.assert_array_equal(after, [5, 10])
        np.testing.assert_array_equal(before, [1, 2] if resource else [5, 10])
        assert s.run(v).tolist() == [2, 2, 2]


def test_resource_read_ordered_after_an_update_sees_it():
    v = _var("v", [0.0, 1.0, 2.0, 3.0], True)
    a = v.assign(v * 2)
    with tf.control_dependencies([a]):
        r_after = v.read_value()
    r_before = v.read_value()
    with tf.control_dependencies([r_before]):
        sc = tf.scatter_add(v, [1, 3], [10.0, 20.0])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(s.run(r_after), [0, 2, 4, 6])
        before, scattered = s.run([r_before, sc])
        np.testing.assert_array_equal(before, [0, 2, 4, 6])
        np.testing.assert_array_equal(scattered, [0, 12, 4, 26])


def test_resource_value_in_a_queue_is_not_changed_by_later_steps():
    v = _var("v", [1.0, 2.0], True)
    q = tf.FIFOQueue(2, tf.float32, shapes=[[2]])
    enq = q.enqueue([v.read_value()])
    inc = v.assign_add([10.0, 10.0])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(enq)
        s.run(inc)
        np.testing.assert_array_equal(s.run(q.dequeue()), [1, 2])
        np.testing.assert_array_equal(s.run(v), [11, 12])


def test_enable_resource_variables_gives_snapshots():
    tf.enable_resource_variables()
    try:
        v = tf.Variable([3.0])
    finally:
        tf.disable_resource_variables()
    r = v.read_value()
    with tf.control_dependencies([r]):
        a = v.assign_sub([1.0])
    with tf.Session() as s:
        s.run(v.initializer)
        assert s.run([r, a])[0].tolist() == [3.0]


@pytest.mark.parametrize("opt", ["sgd", "momentum", "adam", "rmsprop", "adagrad"])
def test_resource_training_matches_ref_training_and_reads_stay_old(opt):
    """Dense (MatMul) and sparse (embedding) updates of resource variables give the same
    values as of ref variables; a read the train op waits for keeps the old weights."""
    results = []
    for resource in (False, True):
        with tf.Graph().as_default():
            x = tf.constant(np.linspace(-1, 1, 24, dtype=np.float32).reshape(6, 4))
            w = _var("w", np.linspace(0.1, 0.9, 12).reshape(4, 3), resource)
            emb = _var("emb", np.linspace(-1, 1, 15).reshape(5, 3), resource)
            e = tf.nn.embedding_lookup(emb, [0, 2, 2, 4, 1, 0])
            loss = tf.reduce_sum(tf.square(tf.matmul(x, w) + e - 0.3))
            o = {"sgd": tf.train.GradientDescentOptimizer(0.1),
                 "momentum": tf.train.MomentumOptimizer(0.05, 0.9),
                 "adam": tf.train.AdamOptimizer(0.05),
                 "rmsprop": tf.train.RMSPropOptimizer(0.05),
                 "adagrad": tf.train.AdagradOptimizer(0.1)}[opt]
            wr = w.read_value()
            with tf.control_dependencies([wr]):
                train = o.minimize(loss)
            with tf.Session() as s:
                s.run(tf.global_variables_initializer())
                seen = []
                for _ in range(3):
                    old = s.run(w)
                    got, _ = s.run([wr, train])
                    seen.append((old, got))
                results.append((s.run(w), s.run(emb), seen))
    (w_ref, emb_ref, seen_ref), (w_res, emb_res, seen_res) = results
    np.testing.assert_allclose(w_res, w_ref, rtol=1e-6)
    np.testing.assert_allclose(emb_res, emb_ref, rtol=1e-6)
    for old, got in seen_res:
        np.testing.assert_array_equal(got, old)  # the read from before the update
    assert any(not np.array_equal(got, old) for old, got in seen_ref)  # ref: the updated one


def test_resource_variable_in_a_while_loop_and_a_cond():
    v = _var("v", [0.0, 1.0], True)

    def body(i):
        with tf.control_dependencies([v.assign_add([1.0, 1.0])]):
            return i + 1

    w = tf.while_loop(lambda i: i < 3, body, [tf.constant(0)])
    c = tf.cond(tf.constant(True), lambda: tf.identity(v.assign_sub([1.0, 1.0])),
                lambda: tf.identity(v))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(w) == 3
        np.testing.assert_array_equal(s.run(v), [3, 4])
        np.testing.assert_array_equal(s.run(c), [2, 3])


def test_imported_resource_variables_read_as_snapshots():
    import gzip

    from tideflow.protos import meta_graph_pb2

    with gzip.open(os.path.join(ART, "mlp.meta.gz"), "rb") as f:
        meta = meta_graph_pb2.MetaGraphDef.FromString(f.read())
    with tf.Session() as s:
        saver = tf.train.import_meta_graph(meta)
        saver.restore(s, os.path.join(ART, "mlp.ckpt"))
        g = tf.get_default_graph()
        for name, resource in (("b1", True), ("w1", False)):
            ref = g.get_tensor_by_name(f"{name}:0")
            if resource:  # (a handle: TF's resource ops read and update it)
                r = tf.raw_ops.ReadVariableOp(resource=ref, dtype=tf.float32)
                with tf.control_dependencies([r]):
                    up = tf.raw_ops.AssignAddVariableOp(resource=ref, value=tf.ones_like(r))
                with tf.control_dependencies([up]):
                    a = tf.raw_ops.ReadVariableOp(resource=ref, dtype=tf.float32)
                ref = g.get_tensor_by_name(f"{name}/Read/ReadVariableOp:0")
            else:
                r = tf.identity(ref)
                with tf.control_dependencies([r]):
                    a = tf.assign_add(ref, tf.ones_like(r))
            old = s.run(ref)
            got, new = s.run([r, a])
            np.testing.assert_allclose(new, old + 1)
            np.testing.assert_allclose(got, old if resource else old + 1)


def test_keras_weights_and_slots_are_resource_variables_tf_layers_ref_ones():
    keras = tf.keras
    K = keras.backend
    m = keras.Sequential([keras.layers.Dense(3, input_shape=(4,)),
                          keras.layers.BatchNormalization()])
    m.compile("adam", "mse")
    kernel = m.weights[0]
    assert kernel.dtype == tf.float32  # TF 1.15: resource variables, dtype float32
    assert repr(kernel) == "<tf.Variable 'dense/kernel:0' shape=(4, 3) dtype=float32>"
    assert K.variable(np.ones(2)).dtype == tf.float32
    m.fit(np.ones((8, 4)), np.ones((8, 3)), verbose=0, epochs=1)
    assert [w.dtype for w in m.optimizer.weights][:3] == [tf.int64, tf.float32, tf.float32]
    # the kernel read before a step keeps its value
    before = kernel.read_value()
    with tf.control_dependencies([before]):
        step = kernel.assign_add(tf.ones([4, 3]))
    old = K.get_value(kernel)
    got, _ = K.get_session().run([before, step])
    np.testing.assert_array_equal(got, old)
    layer = tf.layers.Dense(2)
    layer(tf.ones((1, 3)))
    assert layer.kernel.dtype == tf.float32_ref  # tf.layers: ref variables, as TF 1.15's


def test_resource_variable_ops_are_tf_1_15s():
    """A resource variable's own ops and names, a fresh ReadVariableOp for each use, and an
    update followed by a read (the value sess.run gives), as TF 1.15 builds them."""
    v = tf.get_variable("v", [3, 4], use_resource=True)
    g = tf.get_default_graph()
    names = [op.name for op in g.get_operations()]
    assert names[-4:] == ["v", "v/IsInitialized/VarIsInitializedOp", "v/Assign",
                          "v/Read/ReadVariableOp"]
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.matmul(x, v)
    assert y.op.inputs[1].op.name == "MatMul/ReadVariableOp"
    r = v.read_value()
    assert [r.op.name, r.op.inputs[0].op.name] == ["Identity", "Read/ReadVariableOp"]
    a = v.assign_add(tf.ones([3, 4]))
    assert a.op.name == "ReadVariableOp"
    assert a.op.control_inputs[0].name == "AssignAddVariableOp"
    u = tf.Variable(3.0, use_resource=True)
    assert u.initial_value.op.name == "Variable/Initializer/initial_value"
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        before = s.run(v)
        np.testing.assert_allclose(s.run(a), before + 1)
        assert s.run(u.assign(5.0)) == 5.0


def test_resource_update_in_a_cond_branch_returns_the_new_value():
    v = _var("v", [0.0, 1.0], True)
    c = tf.cond(tf.constant(True), lambda: tf.identity(v.assign_sub([1.0, 1.0])),
                lambda: tf.identity(v))
    d = tf.cond(tf.constant(True), lambda: v.assign_add([1.0, 1.0]), lambda: tf.identity(v))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(s.run(c), [-1, 0])  # TF 1.15's
        np.testing.assert_array_equal(s.run(d), [0, 1])
        np.testing.assert_array_equal(s.run(v), [0, 1])


def test_tf_assign_functions_on_a_resource_variable_use_its_methods():
    v = tf.get_variable("v", [3], use_resource=True, initializer=tf.zeros_initializer())
    a = tf.assign_sub(v, tf.ones([3]), name="ignored")  # TF 1.15 drops the name here
    b = tf.assign(v, tf.ones([3]) * 4, name="yy")
    assert a.op.control_inputs[0].name == "AssignSubVariableOp"
    assert b.op.control_inputs[0].name == "yy"
    with tf.Session() as s:
        s.run(v.initializer)
        assert s.run(a).tolist() == [-1, -1, -1]
        assert s.run(b).tolist() == [4, 4, 4]


def test_resource_reads_in_a_cond_branch_count_as_tfs():
    tf.set_random_seed(1)
    v = tf.get_variable("v", [3], use_resource=True)
    tf.cond(tf.placeholder(tf.bool, []), lambda: v * 2.0, lambda: v + v)
    tf.random_normal([3])
    seeds = [op.get_attr("seed2") for op in tf.get_default_graph().get_operations()
             if op.type.startswith("Random")]
    assert seeds == [3, 28]  # TF 1.15's


def test_keras_batch_normalization_over_several_axes_keeps_the_input_rank():
    bn = tf.keras.layers.BatchNormalization(axis=[1, -1])
    y = bn(tf.zeros([2, 3, 5]))
    assert y.shape.as_list() == [2, 3, 5]
    assert [w.shape.as_list() for w in bn.weights] == [[1, 3, 5]] * 4  # TF 1.15's


def test_small_shape_arithmetic_fast_paths_keep_values():
    with tf.Session() as s:
        v = tf.constant([2**20, 2**12], tf.int32)
        assert s.run(tf.reduce_prod(v)) == 0  # wraps in int32, as the general kernel
        assert s.run(tf.reduce_prod(tf.constant([3, 5, 7]))) == 105
        assert s.run(tf.tile(tf.constant([2.5]), [4])).tolist() == [2.5] * 4
        assert s.run(tf.floordiv(tf.constant(7), tf.constant(2))) == 3
        with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
            s.run(tf.floordiv(tf.constant(7), tf.constant(0)))


def test_shape_readers_run_right_after_their_input_in_a_plan():
    """A forward shape a gradient reads runs as soon as its input exists, so it does not keep
    the input alive until the backward pass (the input can then be updated in place)."""
    from tideflow.runtime.executor import topo_order

    x = tf.placeholder(tf.float32, [None, 4])
    h = tf.nn.relu(x)
    y = h * 2.0 + 1.0
    s = tf.shape(h)  # made last, as a gradient's read of a forward shape
    order = topo_order(tf.get_default_graph().get_operations(), {})
    assert order.index(s.op) == order.index(h.op) + 1
    with tf.Session() as sess:
        out, shp = sess.run([y, s], {x: np.ones((3, 4), np.float32)})
    assert shp.tolist() == [3, 4] and out.tolist() == [[3.0] * 4] * 3
