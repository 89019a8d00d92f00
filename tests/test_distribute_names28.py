"""A tf.train optimizer (and Keras' fit) under tf.distribute.MirroredStrategy builds TF 1.15's
ops: ``Optimizer._distributed_apply`` updates each variable's copies in turn under the
strategy's ``update_<i>`` scopes ("Adam/update_0/update_w/ResourceApplyAdam",
"Adam/update_0_1/update_b/..."), runs ``_finish`` once per device after all of them
("Adam/update_0_2/update"), then increments the global step in ``update_<i>`` scopes of its
own. Every expected name and value below was printed by TF 1.15 (tensorflow-cpu 1.15.0) for
the same program."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _program(ndev, optimizer, with_step):
    """Two variables trained by ``optimizer`` in a replica function on ``ndev`` CPU devices;
    the op list (without gradients) and four steps' mean losses, the weights and the step."""
    tf.set_random_seed(3)
    strategy = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(ndev)])
    x = np.random.RandomState(0).rand(4, 3).astype(np.float32)
    y = x.sum(1, keepdims=True)
    with strategy.scope():
        w = tf.get_variable("w", [3, 1], initializer=tf.random_normal_initializer())
        b = tf.Variable(tf.zeros([1]), name="b")
        step = tf.train.get_or_create_global_step() if with_step else None
        opt = optimizer()
        made = []

        def replica_fn():
            loss = tf.reduce_mean(tf.square(tf.matmul(tf.constant(x), w) + b - y))
            train = opt.minimize(loss, global_step=step)
            made.append(train)
            with tf.control_dependencies([train]):
                return tf.identity(loss)

        per = strategy.extended.call_for_each_replica(replica_fn)
        mean = strategy.reduce(tf.distribute.ReduceOp.MEAN, per)
        init = tf.global_variables_initializer()
    graph = tf.get_default_graph()
    names = [(op.type, op.name, [c.name for c in op.control_inputs])
             for op in graph.get_operations() if "gradients" not in op.name]
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": ndev})) as sess:
        sess.run(init)
        losses = [float(sess.run(mean)) for _ in range(4)]
        weights = sess.run(w).ravel().tolist() + sess.run(b).tolist()
        steps = sess.run(step) if with_step else None
    return names, losses, weights, steps, made


def _scoped(names, prefix):
    return [n for _, n, _ in names if n.startswith(prefix)]


def test_adam_on_one_device_names_its_updates_as_tf():
    names, losses, weights, _, made = _program(1, lambda: tf.train.AdamOptimizer(0.1), False)
    assert _scoped(names, "Adam/update") == [
        "Adam/update_0/update_w/ResourceApplyAdam/ReadVariableOp",
        "Adam/update_0/update_w/ResourceApplyAdam/ReadVariableOp_1",
        "Adam/update_0/update_w/ResourceApplyAdam",
        "Adam/update_0_1/update_b/ResourceApplyAdam/ReadVariableOp",
        "Adam/update_0_1/update_b/ResourceApplyAdam/ReadVariableOp_1",
        "Adam/update_0_1/update_b/ResourceApplyAdam",
        "Adam/update_0_2/ReadVariableOp", "Adam/update_0_2/mul",
        "Adam/update_0_2/AssignVariableOp", "Adam/update_0_2/ReadVariableOp_1",
        "Adam/update_0_2/ReadVariableOp_2", "Adam/update_0_2/mul_1",
        "Adam/update_0_2/AssignVariableOp_1", "Adam/update_0_2/ReadVariableOp_3",
        "Adam/update_0_2/update"]
    ops = {n: (t, c) for t, n, c in names}
    assert ops["Adam/update_0_2/update"][1] == [
        "Adam/update_0/update_w/ResourceApplyAdam", "Adam/update_0_1/update_b/ResourceApplyAdam",
        "Adam/update_0_2/AssignVariableOp", "Adam/update_0_2/AssignVariableOp_1"]
    assert ops["Adam"] == ("NoOp", ["Adam/update_0_2/update"])
    assert [m.name for m in made] == ["Adam"]
    # (the hyper-parameters made once, before the updates)
    assert _scoped(names, "Adam/learning_rate") == ["Adam/learning_rate"]
    assert np.allclose(losses, [14.131101608276367, 12.049104690551758, 10.138423919677734,
                                8.401455879211426], rtol=1e-6)
    assert np.allclose(weights, [-1.1099679470062256, -0.4556501507759094, -0.387057363986969,
                                 0.39731696248054504], rtol=1e-6)


def test_global_step_is_incremented_in_an_update_scope_as_tf():
    names, losses, weights, steps, _ = _program(
        1, lambda: tf.train.GradientDescentOptimizer(0.1), True)
    assert [(t, n) for t, n, _ in names if n.startswith("GradientDescent/update")] == [
        ("ResourceApplyGradientDescent",
         "GradientDescent/update_0/update_w/ResourceApplyGradientDescent"),
        ("ResourceApplyGradientDescent",
         "GradientDescent/update_0_1/update_b/ResourceApplyGradientDescent"),
        ("NoOp", "GradientDescent/update_0_2/update"),
        ("Const", "GradientDescent/update_0_3/Const"),
        ("AssignAddVariableOp", "GradientDescent/update_0_3/AssignAddVariableOp"),
        ("ReadVariableOp", "GradientDescent/update_0_3/ReadVariableOp")]
    ops = {n: c for _, n, c in names}
    # (the replica's control dependency on the train op waits on the increment itself)
    assert ops["Identity"] == ["GradientDescent/update_0_3/AssignAddVariableOp"]
    assert "GradientDescent" not in ops
    assert tf.get_collection(tf.GraphKeys.TRAIN_OP)[0].name == \
        "GradientDescent/update_0_3/AssignAddVariableOp"
    assert np.allclose(losses, [14.131101608276367, 4.409519195556641, 1.387906551361084,
                                0.4486755132675171], rtol=1e-6)
    assert np.allclose(weights, [-0.7815181016921997, 0.2466101199388504, 0.29307395219802856,
                                 1.5187342166900635], rtol=1e-6)
    assert steps == 4


def test_two_devices_update_copy_by_copy_and_finish_on_each_as_tf():
    names, losses, weights, steps, made = _program(
        2, lambda: tf.train.AdamOptimizer(0.1), True)
    applies = [n for t, n, _ in names if t == "ResourceApplyAdam"]
    assert applies == ["Adam/update_0/update_w/ResourceApplyAdam",
                       "Adam/update_1/update_w/replica_1/ResourceApplyAdam",
                       "Adam/update_0_1/update_b/ResourceApplyAdam",
                       "Adam/update_1_1/update_b/replica_1/ResourceApplyAdam"]
    # _prepare once: no second set of hyper-parameters
    assert _scoped(names, "Adam/beta1") == ["Adam/beta1"]
    ops = {n: (t, c) for t, n, c in names}
    assert ops["Adam/update_0_2/update"][1] == ["Adam/update_0_2/update/NoOp",
                                                "Adam/update_0_2/update/NoOp_1"]
    assert ops["Adam/update_1_2/update"][1] == ["Adam/update_1_2/update/NoOp",
                                                "Adam/update_1_2/update/NoOp_1"]
    assert [(t, n) for t, n, _ in names if "update_0_3" in n or "update_1_3" in n
            or n.startswith(("Adam/group_deps", "Adam/Identity"))] == [
        ("Const", "Adam/update_0_3/Const"),
        ("AssignAddVariableOp", "Adam/update_0_3/AssignAddVariableOp"),
        ("ReadVariableOp", "Adam/update_0_3/ReadVariableOp"),
        ("Const", "Adam/update_1_3/Const"),
        ("AssignAddVariableOp", "Adam/update_1_3/AssignAddVariableOp"),
        ("ReadVariableOp", "Adam/update_1_3/ReadVariableOp"),
        ("NoOp", "Adam/group_deps/NoOp"), ("NoOp", "Adam/group_deps/NoOp_1"),
        ("NoOp", "Adam/group_deps"),
        ("ReadVariableOp", "Adam/Identity/ReadVariableOp"), ("Identity", "Adam/Identity"),
        ("ReadVariableOp", "Adam/Identity_1/ReadVariableOp"), ("Identity", "Adam/Identity_1")]
    assert [m.name for m in made] == ["Adam/Identity:0", "Adam/Identity_1:0"]
    # the MEAN over two replicas divides by a Const, as TF's divide_by_n
    assert ops["truediv/y"][0] == "Const"
    assert np.allclose(losses, [14.131101608276367, 12.049104690551758, 10.138423919677734,
                                8.40145492553711], rtol=1e-6)
    assert np.allclose(weights, [-1.1099679470062256, -0.45565009117126465, -0.387057363986969,
                                 0.39731699228286743], rtol=1e-6)
    assert steps == 4


def test_two_devices_momentum_groups_each_finish_as_tf():
    names, losses, weights, _, _ = _program(
        2, lambda: tf.train.MomentumOptimizer(0.1, 0.9), False)
    ops = {n: (t, c) for t, n, c in names}
    assert ops["Momentum"] == ("NoOp", ["Momentum/NoOp", "Momentum/NoOp_1"])
    assert ops["Momentum/NoOp"][1] == ["Momentum/update_0_2/update"]
    assert ops["Momentum/NoOp_1"][1] == ["Momentum/update_1_2/update"]
    assert np.allclose(losses, [14.131101608276367, 0.21185824275016785, 8.678838729858398,
                                11.411971092224121], rtol=1e-5)
    assert np.allclose(weights, [-0.5453222393989563, 0.6267014741897583, 0.6914380192756653,
                                 2.000100612640381], rtol=1e-5)


def _keras_fit(optimizer):
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    x = np.random.RandomState(0).rand(16, 3).astype(np.float32)
    y = x.sum(1, keepdims=True)
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(
            1, input_shape=(3,), kernel_initializer=tf.keras.initializers.Constant(0.5))])
        model.compile(optimizer(), "mse")
    history = model.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False)
    names = [(op.type, op.name) for op in tf.get_default_graph().get_operations()
             if op.name.startswith("training/") and "gradients" not in op.name]
    return history.history["loss"], model.get_weights()[0].ravel().tolist(), names


def test_keras_fit_with_a_tf_train_optimizer_takes_no_step_under_the_strategy():
    # as TF 1.15's TFOptimizer under a strategy: the global step (none here), not iterations
    losses, kernel, names = _keras_fit(lambda: tf.train.AdamOptimizer(0.1))
    assert ("NoOp", "training/Adam") in names
    assert not [n for _, n in names if n.startswith("training/Identity")]
    assert [n for t, n in names if t == "ResourceApplyAdam"] == [
        "training/Adam/update_0/update_dense/kernel/ResourceApplyAdam",
        "training/Adam/update_0_1/update_dense/bias/ResourceApplyAdam"]
    assert np.allclose(losses, [0.35083, 0.10026], atol=1e-5)
    assert np.allclose(kernel, [0.9811819791793823, 0.9743071794509888, 0.9726048707962036],
                       rtol=1e-6)


def test_keras_optimizer_opens_the_variable_scope_before_the_copy_scope():
    # as TF 1.15's OptimizerV2._distributed_apply
    losses, kernel, names = _keras_fit(lambda: tf.keras.optimizers.SGD(0.1))
    sgd = [(t, n) for t, n in names if n.startswith("training/SGD/SGD/update")]
    assert sgd == [
        ("ResourceApplyGradientDescent",
         "training/SGD/SGD/update_dense/kernel/update_0/ResourceApplyGradientDescent"),
        ("ResourceApplyGradientDescent",
         "training/SGD/SGD/update_dense/bias/update_0/ResourceApplyGradientDescent"),
        ("Const", "training/SGD/SGD/update_0/Const"),
        ("AssignAddVariableOp", "training/SGD/SGD/update_0/AssignAddVariableOp"),
        ("ReadVariableOp", "training/SGD/SGD/update_0/ReadVariableOp")]
    assert ("NoOp", "training/SGD/SGD/update") not in names
    assert np.allclose(losses, [0.31537, 0.02209], atol=1e-5)
    assert np.allclose(kernel, [0.7266957759857178, 0.7709136605262756, 0.7789435982704163],
                       rtol=1e-6)


def test_distributed_iterator_initializers_are_groups_as_tf():
    # TF 1.15 (DistributedIteratorV1): the worker's initializer grouped when the iterator is
    # made, and each initialize() / initializer a new group of it (an op, not a list)
    strategy = tf.distribute.MirroredStrategy()
    ds = tf.data.Dataset.from_tensor_slices(np.arange(8, dtype=np.float32)).batch(4)
    graph = tf.get_default_graph()
    with strategy.scope():
        got = []
        for make in (lambda: strategy.make_dataset_iterator(ds),
                     lambda: strategy.experimental_distribute_dataset(ds)
                     .make_initializable_iterator(),
                     lambda: strategy.make_input_fn_iterator(lambda ctx: ds)):
            n = len(graph.get_operations())
            it = make()
            made = [op.name for op in graph.get_operations()[n:] if op.type == "NoOp"]
            inits = [it.initialize(), it.initializer]
            got.append((made, [(type(i).__name__, i.name, [c.name for c in i.control_inputs])
                               for i in inits]))
        assert got == [
            (["group_deps"], [("Operation", "group_deps_1", ["group_deps"]),
                              ("Operation", "group_deps_2", ["group_deps"])]),
            (["group_deps_3"], [("Operation", "group_deps_4", ["group_deps_3"]),
                                ("Operation", "group_deps_5", ["group_deps_3"])]),
            (["group_deps_6"], [("Operation", "group_deps_7", ["group_deps_6"]),
                                ("Operation", "group_deps_8", ["group_deps_6"])])]
        assert graph.get_operation_by_name("group_deps").control_inputs[0].type == \
            "MakeIterator"
        with tf.Session() as sess:
            sess.run(it.initialize())
            assert sess.run(it.get_next()).tolist() == [0.0, 1.0, 2.0, 3.0]
