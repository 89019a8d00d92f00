"""Resource variables as TF 1.15 builds and runs them (``use_resource=True``, tf.keras's,
``ResourceVariable(...)``): a ``VarHandleOp`` handle (a scalar ``resource`` tensor) read by
``ReadVariableOp`` and updated by ``AssignVariableOp``, ``AssignAdd/SubVariableOp``,
``ResourceScatter*``, ``ResourceGather`` and the optimizers' ``Resource[Sparse]Apply*``,
each with a kernel. Every expected listing, value and message here was measured by running the
same program under TF 1.15."""

import json
import subprocess
import sys

import numpy as np
import pytest

import tideflow as tf
from tests.distributed.cluster_procs import _env, free_ports, wait_ready


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _error(sess, fetch):
    with pytest.raises(tf.errors.OpError) as info:
        sess.run(fetch)
    return type(info.value).__name__, info.value.message.splitlines()[0]


def test_handle_and_its_ops_are_tf_resource_ops():
    v = tf.get_variable("a", [2], use_resource=True, initializer=tf.zeros_initializer())
    w = tf.get_variable("e", [5, 2], use_resource=True, initializer=tf.ones_initializer())
    assert type(v).__name__ == "ResourceVariable" and v.op.type == "VarHandleOp"
    assert (v.handle.name, v.handle.dtype, v.handle.shape.as_list()) == ("a:0", tf.resource, [])
    assert v.dtype == tf.float32 and v.shape.as_list() == [2]
    assert v.op.get_attr("shared_name") == b"a" and v.op.colocation_groups() == [b"loc:@a"]
    u = tf.assign_add(v, [1.0, 2.0])
    g = tf.gather(w, [1, 3])
    got = [(o.name, o.type, [t.name for t in o.inputs], [c.name for c in o.control_inputs])
           for o in tf.get_default_graph().get_operations()]
    assert got == [  # TF 1.15's
        ("a/Initializer/zeros", "Const", [], []),
        ("a", "VarHandleOp", [], []),
        ("a/IsInitialized/VarIsInitializedOp", "VarIsInitializedOp", ["a:0"], []),
        ("a/Assign", "AssignVariableOp", ["a:0", "a/Initializer/zeros:0"], []),
        ("a/Read/ReadVariableOp", "ReadVariableOp", ["a:0"], []),
        ("e/Initializer/ones", "Const", [], []),
        ("e", "VarHandleOp", [], []),
        ("e/IsInitialized/VarIsInitializedOp", "VarIsInitializedOp", ["e:0"], []),
        ("e/Assign", "AssignVariableOp", ["e:0", "e/Initializer/ones:0"], []),
        ("e/Read/ReadVariableOp", "ReadVariableOp", ["e:0"], []),
        ("Const", "Const", [], []),
        ("AssignAddVariableOp", "AssignAddVariableOp", ["a:0", "Const:0"], []),
        ("ReadVariableOp", "ReadVariableOp", ["a:0"], ["AssignAddVariableOp"]),
        ("Gather/indices", "Const", [], []),
        ("Gather", "ResourceGather", ["e:0", "Gather/indices:0"], []),
        ("Identity", "Identity", ["Gather:0"], [])]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(s.run(u), [1.0, 2.0])
        np.testing.assert_array_equal(s.run(g), [[1.0, 1.0], [1.0, 1.0]])


def test_adam_builds_resource_updates_as_tf():
    v = tf.get_variable("a", [2], use_resource=True, initializer=tf.zeros_initializer())
    w = tf.get_variable("e", [5, 2], use_resource=True, initializer=tf.ones_initializer())
    loss = tf.reduce_sum(v * v) + tf.reduce_sum(tf.gather(w, [1, 3]))
    train = tf.train.AdamOptimizer(0.1).minimize(loss)
    g = tf.get_default_graph()
    apply = g.get_operation_by_name("Adam/update_a/ResourceApplyAdam")
    assert apply.type == "ResourceApplyAdam" and not apply.outputs
    assert [t.name for t in apply.inputs[:5]] == [  # TF 1.15's
        "a:0", "a/Adam:0", "a/Adam_1:0", "Adam/update_a/ResourceApplyAdam/ReadVariableOp:0",
        "Adam/update_a/ResourceApplyAdam/ReadVariableOp_1:0"]
    sparse = [(o.name, o.type, [c.name for c in o.control_inputs])
              for o in g.get_operations() if o.name.startswith("Adam/update_e/")
              and o.type in ("AssignVariableOp", "ResourceScatterAdd", "AssignSubVariableOp",
                             "NoOp")]
    assert sparse == [  # TF 1.15's
        ("Adam/update_e/AssignVariableOp", "AssignVariableOp", []),
        ("Adam/update_e/ResourceScatterAdd", "ResourceScatterAdd",
         ["Adam/update_e/AssignVariableOp"]),
        ("Adam/update_e/AssignVariableOp_1", "AssignVariableOp", []),
        ("Adam/update_e/ResourceScatterAdd_1", "ResourceScatterAdd",
         ["Adam/update_e/AssignVariableOp_1"]),
        ("Adam/update_e/AssignSubVariableOp", "AssignSubVariableOp", []),
        ("Adam/update_e/group_deps", "NoOp", [
            "Adam/update_e/AssignSubVariableOp", "Adam/update_e/ReadVariableOp_4",
            "Adam/update_e/ReadVariableOp_7"])]
    assert [c.name for c in train.control_inputs] == [
        "Adam/update_a/ResourceApplyAdam", "Adam/update_e/group_deps", "Adam/AssignVariableOp",
        "Adam/AssignVariableOp_1"]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(train)
        np.testing.assert_allclose(s.run(w)[1], [0.9, 0.9], rtol=1e-6)
        np.testing.assert_array_equal(s.run(w)[0], [1.0, 1.0])


def test_uninitialized_resource_variables_fail_with_tf_words():
    v = tf.get_variable("a", [2], use_resource=True)
    slices = tf.IndexedSlices(tf.constant([1.0]), tf.constant([0]))
    missing = "Container localhost does not exist. (Could not find resource: localhost/a)"
    read = ("Error while reading resource variable a from Container: localhost. This could "
            "mean that the variable was uninitialized. Not found: ")
    with tf.Session() as s:
        assert _error(s, v) == ("FailedPreconditionError", read + missing)
        assert _error(s, v.read_value()) == ("FailedPreconditionError", read + missing)
        assert _error(s, v.assign_add([1.0, 1.0])) == ("NotFoundError", missing)
        assert _error(s, v.scatter_add(slices)) == ("NotFoundError", missing)
        assert _error(s, tf.gather(v, [0])) == ("NotFoundError", missing)
        assert not s.run(v.is_initialized())
    w = tf.get_variable("w", [2], use_resource=True)
    step = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(v * 2.0))
    with tf.Session() as s:
        s.run(w.initializer)  # (its container exists now: the resource is what is missing)
        assert _error(s, step) == (
            "FailedPreconditionError", read + "Resource localhost/a/N10tensorflow3VarE does "
            "not exist.")
        # a destroyed variable reads as one never assigned; destroying twice is no error
        destroy = tf.raw_ops.DestroyResourceOp(resource=w.handle)
        s.run(destroy)
        assert _error(s, w.read_value())[1] == read.replace(
            "variable a", "variable w") + "Resource localhost/w/N10tensorflow3VarE does not exist."
        s.run(destroy)


def test_resource_updates_check_shapes_as_tf():
    v = tf.get_variable("a", [2], use_resource=True, initializer=tf.ones_initializer())
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(3,\) are incompatible"):
        v.assign([1.0, 2.0, 3.0])
    x = tf.placeholder(tf.float32, [None])
    with tf.Session() as s:
        s.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            s.run(v.assign_add(x), {x: [1.0, 2.0, 3.0]})
        assert info.value.message.splitlines()[0] == (
            "Cannot update variable with shape [2] using a Tensor with shape [3], shapes must "
            "be equal.")


def test_scatters_update_in_place_and_reads_stay_snapshots():
    v = tf.get_variable("a", [4], use_resource=True,
                        initializer=tf.constant_initializer([1.0, 2.0, 3.0, 4.0]))
    i = tf.IndexedSlices(tf.constant([10.0, 20.0]), tf.constant([0, 2]))
    updates = [v.scatter_update(i), v.scatter_add(i), v.scatter_sub(i), v.scatter_mul(i),
               v.scatter_div(i), v.scatter_min(i), v.scatter_max(i)]
    assert [u.op.control_inputs[0].type for u in updates] == [
        "ResourceScatterUpdate", "ResourceScatterAdd", "ResourceScatterSub",
        "ResourceScatterMul", "ResourceScatterDiv", "ResourceScatterMin", "ResourceScatterMax"]
    r = v.read_value()
    with tf.control_dependencies([r]):
        later = v.assign_add([1.0, 1.0, 1.0, 1.0])
    with tf.Session() as s:
        s.run(v.initializer)
        got = [s.run(u).tolist() for u in updates]
        assert got == [[10.0, 2.0, 20.0, 4.0], [20.0, 2.0, 40.0, 4.0], [10.0, 2.0, 20.0, 4.0],
                       [100.0, 2.0, 400.0, 4.0], [10.0, 2.0, 20.0, 4.0],
                       [10.0, 2.0, 20.0, 4.0], [10.0, 2.0, 20.0, 4.0]]  # TF 1.15's
        before, after = s.run([r, later])
        assert before.tolist() == [10.0, 2.0, 20.0, 4.0]  # the read made first keeps its value
        assert after.tolist() == [11.0, 3.0, 21.0, 5.0]
        assert _error(s, v.scatter_add(tf.IndexedSlices(tf.constant([1.0]), tf.constant([7])))
                      ) == ("InvalidArgumentError", "indices[0] = 7 is not in [0, 4)")


_OPTIMIZED = {  # TF 1.15's op types and values after three steps
    'gd': (
        ['AssignVariableOp', 'ResourceApplyGradientDescent'],
        [0.1464, 0.1976, 0.2488, 0.3, 0.3512, 0.4024, 0.4536, 0.5048, 0.556, 0.6072, 0.6584,
         0.7096, 0.7608, 0.812, 0.8632]),
    'gd_sparse': (
        ['AssignVariableOp', 'ResourceGather', 'ResourceScatterAdd'],
        [0.1464, 0.1976, 0.2488, 0.3, 0.4, 0.5, 0.3648, 0.3864, 0.408, 0.9, 1.0, 1.1, 0.7608,
         0.812, 0.8632]),
    'mom': (
        ['AssignVariableOp', 'ResourceApplyMomentum'],
        [0.2814, 0.2876, 0.2938, 0.3, 0.3062, 0.3124, 0.3186, 0.3248, 0.331, 0.3372, 0.3434,
         0.3496, 0.3558, 0.362, 0.3682]),
    'mom_sparse': (
        ['AssignVariableOp', 'ResourceGather', 'ResourceSparseApplyMomentum'],
        [0.2814, 0.2876, 0.2938, 0.3, 0.4, 0.5, 0.138, 0.084, 0.03, 0.9, 1.0, 1.1, 0.3558,
         0.362, 0.3682]),
    'nest': (
        ['AssignVariableOp', 'ResourceApplyMomentum'],
        [0.332506, 0.32167, 0.310835, 0.3, 0.289165, 0.27833, 0.267494, 0.256659, 0.245824,
         0.234989, 0.224154, 0.213318, 0.202483, 0.191648, 0.180813]),
    'nest_sparse': (
        ['AssignVariableOp', 'ResourceGather', 'ResourceSparseApplyMomentum'],
        [0.332506, 0.32167, 0.310835, 0.3, 0.4, 0.5, 0.170011, 0.126682, 0.083352, 0.9, 1.0,
         1.1, 0.202483, 0.191648, 0.180813]),
    'adagrad': (
        ['AssignVariableOp', 'ResourceApplyAdagrad'],
        [0.178276, 0.248266, 0.28914, 0.3, 0.31086, 0.351734, 0.421724, 0.506294, 0.59752,
         0.692039, 0.788356, 0.885737, 0.983793, 1.082299, 1.181119]),
    'adagrad_sparse': (
        ['AssignVariableOp', 'ResourceGather', 'ResourceSparseApplyAdagrad'],
        [0.178276, 0.248266, 0.28914, 0.3, 0.4, 0.5, 0.411326, 0.499282, 0.592629, 0.9, 1.0,
         1.1, 0.983793, 1.082299, 1.181119]),
    'adam': (
        ['AssignVariableOp', 'ResourceApplyAdam'],
        [0.28671, 0.36718, 0.374437, 0.3, 0.225563, 0.23282, 0.31329, 0.407396, 0.504872,
         0.603543, 0.702745, 0.802221, 0.901855, 1.001587, 1.101383]),
    'adam_sparse': (
        ['AssignSubVariableOp', 'AssignVariableOp', 'ResourceGather', 'ResourceScatterAdd'],
        [0.28671, 0.36718, 0.374437, 0.3, 0.4, 0.5, 0.31329, 0.407396, 0.504872, 0.9, 1.0, 1.1,
         0.901855, 1.001587, 1.101383]),
    'rms': (
        ['AssignVariableOp', 'ResourceApplyRMSProp'],
        [0.15516, 0.204836, 0.252851, 0.3, 0.347149, 0.395164, 0.44484, 0.496842, 0.551673,
         0.609662, 0.67097, 0.73562, 0.803526, 0.874523, 0.948401]),
    'rms_sparse': (
        ['AssignVariableOp', 'ResourceGather', 'ResourceSparseApplyRMSProp'],
        [0.15516, 0.204836, 0.252851, 0.3, 0.4, 0.5, 0.363522, 0.396281, 0.437193, 0.9, 1.0,
         1.1, 0.803526, 0.874523, 0.948401]),
    'rmsc': (
        ['AssignVariableOp', 'ResourceApplyCenteredRMSProp'],
        [0.221257, 0.248993, 0.274954, 0.3, 0.325046, 0.351007, 0.378743, 0.409015, 0.442449,
         0.479518, 0.520537, 0.56567, 0.614956, 0.668323, 0.725621]),
    'rmsc_sparse': (
        ['AssignVariableOp', 'ResourceGather', 'ResourceSparseApplyCenteredRMSProp'],
        [0.221257, 0.248993, 0.274954, 0.3, 0.4, 0.5, 0.260906, 0.260893, 0.270512, 0.9, 1.0,
         1.1, 0.614956, 0.668323, 0.725621]),
    'ftrl': (
        ['AssignVariableOp', 'ResourceApplyFtrl'],
        [0.178276, 0.211866, 0.203997, 0.141391, 0.144009, 0.208627, 0.265388, 0.329414,
         0.41004, 0.50101, 0.597021, 0.695435, 0.79502, 0.895185, 0.995638]),
    'ftrl_sparse': (
        ['AssignVariableOp', 'ResourceGather', 'ResourceSparseApplyFtrl'],
        [0.178276, 0.211866, 0.203997, 0.3, 0.4, 0.5, 0.3235, 0.40043, 0.491561, 0.9, 1.0, 1.1,
         0.79502, 0.895185, 0.995638]),
    'adadelta': (
        ['AssignVariableOp', 'ResourceApplyAdadelta'],
        [0.001356, 0.101355, 0.201354, 0.3, 0.398646, 0.498645, 0.598644, 0.698644, 0.798644,
         0.898644, 0.998644, 1.098644, 1.198644, 1.298643, 1.398643]),
    'adadelta_sparse': (
        ['AssignVariableOp', 'ResourceGather', 'ResourceSparseApplyAdadelta'],
        [0.001356, 0.101355, 0.201354, 0.3, 0.4, 0.5, 0.598644, 0.698644, 0.798644, 0.9, 1.0,
         1.1, 1.198644, 1.298643, 1.398643]),
    'padagrad': (
        ['AssignVariableOp', 'ResourceApplyProximalAdagrad'],
        [0.175089, 0.244328, 0.28458, 0.295249, 0.306298, 0.347786, 0.41853, 0.503704, 0.595369,
         0.690211, 0.78677, 0.88434, 0.982545, 1.081172, 1.180091]),
    'padagrad_sparse': (
        ['AssignVariableOp', 'ResourceGather', 'ResourceSparseApplyProximalAdagrad'],
        [0.175089, 0.244328, 0.28458, 0.3, 0.4, 0.5, 0.409619, 0.497932, 0.591524, 0.9, 1.0,
         1.1, 0.982545, 1.081172, 1.180091]),
    'pgd': (
        ['AssignVariableOp', 'ResourceApplyProximalGradientDescent'],
        [0.146129, 0.197176, 0.248223, 0.299269, 0.350316, 0.401363, 0.452409, 0.503456,
         0.554503, 0.60555, 0.656596, 0.707643, 0.75869, 0.809736, 0.860783]),
    'pgd_sparse': (
        ['AssignVariableOp', 'ResourceGather', 'ResourceSparseApplyProximalGradientDescent'],
        [0.146129, 0.197176, 0.248223, 0.3, 0.4, 0.5, 0.364019, 0.385554, 0.40709, 0.9, 1.0,
         1.1, 0.75869, 0.809736, 0.860783]),
    'adagradda': (
        ['Assign', 'AssignVariableOp', 'ResourceApplyAdagradDA'],
        [0.157092, 0.156833, 0.147619, 0.127985, 0.105467, 0.083584, 0.063133, 0.044856,
         0.028991, 0.015422, 0.00388, -0.005936, -0.014309, -0.021489, -0.027681]),
    'adagradda_sparse': (
        ['Assign', 'AssignVariableOp', 'ResourceGather', 'ResourceSparseApplyAdagradDA'],
        [0.157092, 0.156833, 0.147619, 0.3, 0.4, 0.5, 0.06547, 0.04633, 0.029889, 0.9, 1.0, 1.1,
         -0.014309, -0.021489, -0.027681]),
}


def _train(make_opt, sparse):
    v = tf.get_variable("v", [5, 3], use_resource=True,
                        initializer=tf.constant_initializer(np.arange(15.0).reshape(5, 3) / 10))
    x = tf.nn.embedding_lookup(v, [0, 2, 2, 4]) if sparse else v * 1.0
    step = make_opt().minimize(tf.reduce_sum(tf.square(x - 0.3)))
    types = sorted({o.type for o in tf.get_default_graph().get_operations()
                    if o.type.startswith(("Resource", "Apply", "Sparse", "Assign", "Scatter"))})
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(3):
            s.run(step)
        return types, s.run(v).reshape(-1)


_OPTIMIZERS = {
    "gd": lambda: tf.train.GradientDescentOptimizer(0.1),
    "mom": lambda: tf.train.MomentumOptimizer(0.1, 0.9),
    "nest": lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    "adagrad": lambda: tf.train.AdagradOptimizer(0.1),
    "adam": lambda: tf.train.AdamOptimizer(0.1),
    "rms": lambda: tf.train.RMSPropOptimizer(0.1),
    "rmsc": lambda: tf.train.RMSPropOptimizer(0.1, momentum=0.5, centered=True),
    "ftrl": lambda: tf.train.FtrlOptimizer(0.1),
    "adadelta": lambda: tf.train.AdadeltaOptimizer(1.0),
    "padagrad": lambda: tf.train.ProximalAdagradOptimizer(0.1, l1_regularization_strength=0.01),
    "pgd": lambda: tf.train.ProximalGradientDescentOptimizer(0.1,
                                                              l2_regularization_strength=0.01),
    "adagradda": lambda: tf.train.AdagradDAOptimizer(0.1, tf.train.get_or_create_global_step()),
}


@pytest.mark.parametrize("key", sorted(_OPTIMIZED))
def test_optimizers_update_resource_variables_as_tf(key):
    name, _, sparse = key.partition("_")
    types, values = _train(_OPTIMIZERS[name], bool(sparse))
    want_types, want = _OPTIMIZED[key]
    assert types == want_types
    np.testing.assert_allclose(values, want, rtol=2e-6, atol=1e-6)


def test_gradients_reach_the_variable_through_every_read():
    v = tf.get_variable("a", [2], use_resource=True, initializer=tf.constant_initializer([1, 2]))
    loss = tf.reduce_sum(v * v) + tf.reduce_sum(v.read_value())
    (g,) = tf.gradients(loss, v)
    assert g.op.type == "AddN"  # TF 1.15's: the reads' gradients summed at the handle
    s = tf.get_variable("s", [], use_resource=True, initializer=tf.ones_initializer())
    loop = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a + s.read_value() * 2),
                         [0, 0.0])
    branch = tf.cond(tf.constant(True), lambda: s.read_value() * 2, lambda: tf.constant(1.0))
    gs = tf.gradients(loop[1], s) + tf.gradients(branch, s)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(g).tolist() == [3.0, 5.0]
        assert sess.run(gs) == [6.0, 2.0]  # TF 1.15's


def test_saver_saves_reads_and_restores_with_assign_variable_op():
    v = tf.get_variable("a", [2], use_resource=True, initializer=tf.zeros_initializer())
    with tf.device("/cpu:0"):
        w = tf.get_variable("e", [5, 2], use_resource=True, initializer=tf.ones_initializer())
    tf.get_variable("r", [3], initializer=tf.ones_initializer())
    saver = tf.train.Saver()
    g = tf.get_default_graph()
    assert [t.name for t in g.get_operation_by_name("save/SaveV2").inputs[3:]] == [
        "a/Read/ReadVariableOp:0", "e/Read/ReadVariableOp:0", "r:0"]  # TF 1.15's
    restore = [(o.name, o.type, [t.name for t in o.inputs], o.device, o.colocation_groups())
               for o in g.get_operations() if "Assign" in o.name and o.name.startswith("save")]
    assert restore == [
        ("save/AssignVariableOp", "AssignVariableOp", ["a:0", "save/Identity:0"], "",
         [b"loc:@save/AssignVariableOp"]),
        ("save/AssignVariableOp_1", "AssignVariableOp", ["e:0", "save/Identity_1:0"],
         "/device:CPU:0", [b"loc:@save/AssignVariableOp_1"]),
        ("save/Assign", "Assign", ["r:0", "save/RestoreV2:2"], "", [b"loc:@r"])]
    import os
    import tempfile

    d = tempfile.mkdtemp()
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(v.assign([3.0, 4.0]))
        path = saver.save(s, os.path.join(d, "m"))
        s.run(v.assign([0.0, 0.0]))
        saver.restore(s, path)
        assert s.run(v).tolist() == [3.0, 4.0]
        assert s.run(w).tolist() == [[1.0, 1.0]] * 5
    assert sorted(tf.train.list_variables(d)) == [("a", [2]), ("e", [5, 2]), ("r", [3])]


def test_meta_graph_round_trip_keeps_resource_variables():
    import os
    import tempfile

    from tideflow.protos import variable_pb2

    v = tf.get_variable("a", [2], use_resource=True, initializer=tf.constant_initializer([1, 2]))
    step = tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(v * v))
    tf.add_to_collection("train_op", step)
    saver = tf.train.Saver()
    d = tempfile.mkdtemp()
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(step)
        path = saver.save(s, os.path.join(d, "m"))
    meta = tf.train.export_meta_graph()
    defs = [variable_pb2.VariableDef.FromString(b)
            for b in meta.collection_def["variables"].bytes_list.value]
    assert [(x.variable_name, x.snapshot_name, x.initializer_name, x.is_resource)
            for x in defs][:2] == [("a:0", "a/Read/ReadVariableOp:0", "a/Assign", True),
                                   ("beta1_power:0", "beta1_power/Read/ReadVariableOp:0",
                                    "beta1_power/Assign", True)]
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(meta)
        vs = tf.global_variables()
        assert {(type(x).__name__, x.op.type, x.dtype) for x in vs} == {
            ("ResourceVariable", "VarHandleOp", tf.float32)}
        with tf.Session() as s:
            saver.restore(s, path)
            s.run(tf.get_collection("train_op")[0])
            np.testing.assert_allclose(s.run(vs[0]), [0.800413, 1.800167], rtol=1e-5)
    assert sorted(tf.train.list_variables(d)) == [  # TF 1.15's keys
        ("a", [2]), ("a/Adam", [2]), ("a/Adam_1", [2]), ("beta1_power", []),
        ("beta2_power", [])]


def test_partitioned_resource_variables_train_and_save_as_tf():
    import tempfile

    v = tf.get_variable("p", [6, 2], use_resource=True, initializer=tf.ones_initializer(),
                        partitioner=tf.fixed_size_partitioner(2))
    parts = list(v)
    assert [(p.name, p.op.type) for p in parts] == [("p/part_0:0", "VarHandleOp"),
                                                    ("p/part_1:0", "VarHandleOp")]
    e = tf.nn.embedding_lookup(v, [0, 5, 3])
    step = tf.train.AdagradOptimizer(0.5).minimize(tf.reduce_sum(e * e))
    saver = tf.train.Saver()
    d = tempfile.mkdtemp()
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(step)
        got = np.concatenate(s.run(parts))
        saver.save(s, d + "/m")
    want = np.ones((6, 2), np.float32)
    want[[0, 4, 5]] = 0.506135  # TF 1.15's (ids 0, 5, 3 of the "mod" strategy's parts)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert sorted(tf.train.list_variables(d)) == [("p", [6, 2]), ("p/Adagrad", [6, 2])]


def test_moving_averages_and_keras_weights_are_resource_variables():
    v = tf.get_variable("a", [2], use_resource=True, initializer=tf.constant_initializer([1, 2]))
    ema = tf.train.ExponentialMovingAverage(0.5)
    with tf.control_dependencies([v.assign_add([1.0, 1.0])]):
        up = ema.apply([v])
    avg = ema.average(v)
    assert (type(avg).__name__, avg.op.type, avg.name) == (
        "ResourceVariable", "VarHandleOp", "a/ExponentialMovingAverage:0")
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(up)
        s.run(up)
        assert s.run(avg).tolist() == [2.25, 3.25]  # TF 1.15's
    m = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,),
                                                   kernel_initializer="ones")])
    m.compile(tf.keras.optimizers.SGD(0.1), "mse")
    assert [(w.name, w.op.type) for w in m.weights] == [("dense/kernel:0", "VarHandleOp"),
                                                        ("dense/bias:0", "VarHandleOp")]
    m.fit(np.ones((4, 3)), np.zeros((4, 2)), verbose=0, epochs=2)
    np.testing.assert_allclose(m.get_weights()[0], np.full((3, 2), 0.52), rtol=1e-6)
    np.testing.assert_allclose(m.get_weights()[1], [-0.48, -0.48], rtol=1e-6)


_WORKER = r"""
import json, sys
import numpy as np
import tideflow as tf
spec = json.loads(sys.argv[1])
cluster = tf.train.ClusterSpec(spec)
server = tf.train.Server(cluster, job_name="worker", task_index=0)
with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:0",
                                              cluster=cluster)):
    gs = tf.train.get_or_create_global_step()
    w = tf.get_variable("w", [3], use_resource=True,
                        initializer=tf.constant_initializer([1.0, 2.0, 3.0]))
    emb = tf.get_variable("emb", [4, 2], use_resource=True,
                          initializer=tf.constant_initializer(0.5))
    x = tf.placeholder(tf.float32, [None, 3])
    e = tf.nn.embedding_lookup(emb, [0, 2, 2])
    loss = tf.reduce_sum(tf.square(tf.reduce_sum(x * w, 1) - 1.0)) + tf.reduce_sum(e * e)
    train = tf.train.AdamOptimizer(0.1).minimize(loss, global_step=gs)
g = tf.get_default_graph()
out = {"vars": [[v.op.name, v.op.type, v.device] for v in tf.global_variables()],
       "ops": sorted({(o.type, o.device) for o in g.get_operations()
                      if o.type in ("ReadVariableOp", "ResourceGather", "ResourceApplyAdam",
                                    "ResourceScatterAdd")})}
data = np.array([[1.0, 0.5, 0.25], [0.1, 0.2, 0.3]], np.float32)
with tf.Session(server.target) as sess:
    sess.run(tf.global_variables_initializer())
    out["losses"] = [float(sess.run([train, loss], {x: data})[1]) for _ in range(3)]
    out["values"] = [np.asarray(v).tolist() for v in sess.run([w, emb, gs])]
print("OUT", json.dumps(out), flush=True)
"""

_PS = r"""
import json, sys
import tideflow as tf
server = tf.train.Server(json.loads(sys.argv[1]), job_name="ps", task_index=0)
server.join()
"""


def test_parameter_server_holds_resource_variables_and_runs_their_ops():
    ports = free_ports(2)
    spec = {"ps": [f"127.0.0.1:{ports[0]}"], "worker": [f"127.0.0.1:{ports[1]}"]}
    env = _env()
    procs = [subprocess.Popen([sys.executable, "-c", _PS, json.dumps(spec)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        wait_ready(spec["ps"][0])
        worker = subprocess.Popen([sys.executable, "-c", _WORKER, json.dumps(spec)], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(worker)
        o, e = worker.communicate(timeout=120)
        assert worker.returncode == 0, e[-3000:]
        out = json.loads(o.split("OUT ", 1)[1])
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait(10)
    ps = "/job:ps/task:0"
    assert out["vars"] == [["global_step", "VariableV2", ps]] + [  # TF 1.15's
        [n, "VarHandleOp", ps] for n in ("w", "emb", "beta1_power", "beta2_power", "w/Adam",
                                         "w/Adam_1", "emb/Adam", "emb/Adam_1")]
    # every op on a handle runs on the handle's task: handles never cross processes
    assert out["ops"] == [["ReadVariableOp", ps], ["ResourceApplyAdam", ps],
                          ["ResourceGather", ps], ["ResourceScatterAdd", ps]]
    np.testing.assert_allclose(out["losses"], [4.7225, 3.5562248, 2.5849566], rtol=1e-6)
    np.testing.assert_allclose(out["values"][0], [0.7016132, 1.7016859, 2.701847], rtol=1e-6)
    np.testing.assert_allclose(out["values"][1], [[0.20487233] * 2, [0.5] * 2,
                                                  [0.20487225] * 2, [0.5] * 2], rtol=1e-6)
    assert out["values"][2] == 3


def test_batch_scatter_update_of_a_resource_variable():
    w = tf.get_variable("w", [4, 2], use_resource=True, initializer=tf.zeros_initializer())
    b = w.batch_scatter_update(tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1])))
    assert [(o.name, o.type) for o in tf.get_default_graph().get_operations()][-3:] == [
        ("ResourceScatterNdUpdate", "ResourceScatterNdUpdate"),
        ("ReadVariableOp", "ReadVariableOp"), ("ReadVariableOp_1", "ReadVariableOp")]  # TF's
    with tf.Session() as s:
        s.run(w.initializer)
        assert s.run(b).tolist() == [[0.0, 0.0], [1.0, 2.0], [0.0, 0.0], [0.0, 0.0]]
