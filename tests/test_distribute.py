"""tf.distribute in graph mode: TF 1.15-style programs run with ``import tideflow as tf``;
values checked against NumPy or single-device runs. Names and error classes were observed
from real TF (2.21 in compat.v1 mode) and are noted where they are checked."""

import numpy as np
import pytest

import tideflow as tf

TWO_CPUS = tf.ConfigProto(device_count={"CPU": 2})
DEVICES = ["/cpu:0", "/cpu:1"]


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def _data(n=16, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.randn(n, 3).astype(np.float32)
    y = (x @ np.array([[1.0], [2.0], [-1.0]], np.float32) + 0.5).astype(np.float32)
    return x, y


def test_mirrored_variables_names_devices_and_collections():
    s = tf.distribute.MirroredStrategy(DEVICES)
    assert s.num_replicas_in_sync == 2
    # TF: ('/replica:0/task:0/device:CPU:0', '/replica:0/task:0/device:CPU:1')
    assert s.extended.worker_devices == ("/replica:0/task:0/device:CPU:0",
                                         "/replica:0/task:0/device:CPU:1")
    with s.scope():
        v = tf.Variable(1.0, name="v")
        w = tf.get_variable("w", [2], initializer=tf.ones_initializer())
    assert isinstance(v, tf.distribute.MirroredVariable) and isinstance(v, tf.Variable)
    # TF names the copies 'v:0' and 'v/replica_1:0'
    assert v.name == "v:0"
    assert [c.name for c in v.values] == ["v:0", "v/replica_1:0"]
    assert [c.device for c in w.values] == list(s.extended.worker_devices)
    assert tf.global_variables() == [v, w]
    assert tf.trainable_variables() == [v, w]
    with tf.Session(config=TWO_CPUS) as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(v) == 1.0
        # cross-replica assignments reach every copy
        assert sess.run(v.assign_add(2.0)) == 3.0
        assert sess.run(list(v.values)) == [3.0, 3.0]
        sess.run(tf.assign(v, 7.0))
        assert sess.run(list(v.values)) == [7.0, 7.0]
        sess.run(tf.assign_sub(w, [1.0, 2.0]))
        np.testing.assert_array_equal(sess.run(list(w.values)), [[0.0, -1.0], [0.0, -1.0]])


def test_random_initial_value_is_the_same_on_every_copy():
    s = tf.distribute.MirroredStrategy(DEVICES)
    with s.scope():
        v = tf.get_variable("r", [5], initializer=tf.random_normal_initializer())
    with tf.Session(config=TWO_CPUS) as sess:
        sess.run(tf.global_variables_initializer())
        a, b = sess.run(list(v.values))
        np.testing.assert_array_equal(a, b)
        assert np.std(a) > 0


def test_replica_context_all_reduce_and_strategy_reduce():
    s = tf.distribute.MirroredStrategy(DEVICES)

    def fn():
        ctx = tf.distribute.get_replica_context()
        x = tf.cast(ctx.replica_id_in_sync_group, tf.float32) + 1.0
        return ctx.all_reduce(tf.distribute.ReduceOp.SUM, x), x

    total, per = s.experimental_run_v2(fn)
    assert isinstance(per, tf.distribute.PerReplica) and len(per.values) == 2
    # TF names the second replica's ops under 'replica_1/'
    assert per.values[1].name.startswith("replica_1/")
    assert per.values[1].device == "/replica:0/task:0/device:CPU:1"
    red_sum = s.reduce(tf.distribute.ReduceOp.SUM, per, axis=None)
    red_mean = s.reduce("MEAN", per, axis=None)
    with tf.Session(config=TWO_CPUS) as sess:
        got = sess.run([red_sum, red_mean, s.experimental_local_results(per),
                        s.experimental_local_results(total)])
    assert got[0] == 3.0 and got[1] == 1.5
    assert got[2] == (1.0, 2.0) and got[3] == (3.0, 3.0)


def test_reduce_with_axis_and_non_distributed_values():
    s = tf.distribute.MirroredStrategy(DEVICES)
    per = s.run(lambda: tf.cast(tf.range(3), tf.float32)
                + tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group,
                          tf.float32) * 10.0)
    total = s.reduce(tf.distribute.ReduceOp.SUM, per, axis=0)
    mean = s.reduce(tf.distribute.ReduceOp.MEAN, per, axis=0)
    with tf.Session(config=TWO_CPUS) as sess:
        a, b = sess.run([total, mean])
    values = np.array([[0, 1, 2], [10, 11, 12]], np.float32)
    assert a == values.sum() and b == pytest.approx(values.mean())
    # TF: a plain tensor cannot be SUM-reduced over 2 replicas (ValueError); MEAN returns it
    with pytest.raises(ValueError, match="non-DistributedValues"):
        s.reduce(tf.distribute.ReduceOp.SUM, tf.constant(1.0), axis=None)
    with tf.Session(config=TWO_CPUS) as sess:
        assert sess.run(s.reduce(tf.distribute.ReduceOp.MEAN, tf.constant(4.0), axis=None)) == 4


def test_contexts_and_mixing_strategies():
    assert not tf.distribute.has_strategy()
    assert not tf.distribute.in_cross_replica_context()
    default = tf.distribute.get_replica_context()
    # TF: outside every scope one replica, id 0, all_reduce an identity
    assert default.replica_id_in_sync_group == 0 and default.num_replicas_in_sync == 1
    with tf.Session() as sess:
        assert sess.run(default.all_reduce("SUM", tf.constant(2.0))) == 2.0
    s = tf.distribute.MirroredStrategy(DEVICES)
    one = tf.distribute.OneDeviceStrategy("/cpu:0")
    with s.scope():
        assert tf.distribute.has_strategy() and tf.distribute.in_cross_replica_context()
        assert tf.distribute.get_replica_context() is None
        assert tf.distribute.get_strategy() is s
        seen = s.run(lambda: tf.constant(0.0) if tf.distribute.get_replica_context()
                     .num_replicas_in_sync == 2 and not tf.distribute.in_cross_replica_context()
                     else None)
        assert seen is not None
    with one.scope(), pytest.raises(RuntimeError, match="Mixing different"), s.scope():
        pass
    with pytest.raises(AssertionError, match="No duplicates"):
        tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:0"])


def test_one_device_strategy_results_are_plain_tensors():
    one = tf.distribute.OneDeviceStrategy("/cpu:0")
    out = one.run(lambda: tf.constant(2.0))
    # TF: the result is the tensor itself, so `.values` is an AttributeError
    assert isinstance(out, tf.Tensor)
    with pytest.raises(AttributeError):
        out.values  # noqa: B018
    with one.scope():
        v = tf.Variable(3.0, name="v")
    # as TF 1.15: a plain resource variable on the device, no distributed wrapper
    assert type(v).__name__ == "ResourceVariable" and v.device == "/replica:0/task:0/device:CPU:0"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(one.reduce(tf.distribute.ReduceOp.SUM, out, axis=None)) == 2.0


def test_distributed_dataset_splits_each_global_batch():
    s = tf.distribute.MirroredStrategy(DEVICES)
    ds = tf.data.Dataset.range(10).batch(4)
    it = s.experimental_distribute_dataset(ds).make_initializable_iterator()
    nxt = it.get_next()
    got = []
    with tf.Session(config=TWO_CPUS) as sess:
        sess.run(it.initializer)
        for _ in range(3):
            got.append([list(x) for x in sess.run(s.experimental_local_results(nxt))])
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(nxt.values[0])
    # what TF 2.21 gives for the same program
    assert got == [[[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8], [9]]]


def _train(strategy, opt_name, steps=5):
    tf.reset_default_graph()
    x, y = _data()
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8).repeat()
    with strategy.scope():
        it = strategy.experimental_distribute_dataset(ds).make_initializable_iterator()
        w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
        b = tf.Variable(0.0, name="b")
        opt = {"sgd": lambda: tf.train.GradientDescentOptimizer(0.1),
               "adam": lambda: tf.train.AdamOptimizer(0.1),
               "momentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9)}[opt_name]()
        gs = tf.train.get_or_create_global_step()

        def step(xb, yb):
            # the loss of a replica is its share of the global batch's mean
            loss = tf.reduce_sum(tf.square(tf.matmul(xb, w) + b - yb)) / 8.0
            train = opt.minimize(loss, global_step=gs)
            with tf.control_dependencies([train]):
                return tf.identity(loss)

        per = strategy.experimental_run_v2(step, args=it.get_next())
        loss = strategy.reduce(tf.distribute.ReduceOp.SUM, per, axis=None)
    with tf.Session(config=TWO_CPUS) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(it.initialize())
        losses = [sess.run(loss) for _ in range(steps)]
        copies = [sess.run(list(v.values)) if hasattr(v, "values") else None
                  for v in tf.global_variables()]
        return sess.run([w, b, gs]), losses, copies


@pytest.mark.parametrize("opt_name", ["sgd", "momentum", "adam"])
def test_custom_training_loop_matches_one_device(opt_name):
    (w2, b2, gs2), loss2, copies = _train(tf.distribute.MirroredStrategy(DEVICES), opt_name)
    (w1, b1, gs1), loss1, _ = _train(tf.distribute.OneDeviceStrategy("/cpu:0"), opt_name)
    # two replicas on half batches, gradients summed == one device on the whole batch
    np.testing.assert_allclose(w2, w1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b2, b1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(loss2, loss1, rtol=1e-5)
    assert gs2 == gs1 == 5
    for c in copies:  # every variable (slots, Adam's powers, the step) stays in sync
        assert c is not None
        np.testing.assert_array_equal(c[0], c[1])
    assert loss2[-1] < loss2[0]


def test_sgd_step_against_numpy():
    x, y = _data(8)
    s = tf.distribute.MirroredStrategy(DEVICES)
    with s.scope():
        w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
        opt = tf.train.GradientDescentOptimizer(0.5)

        def step(xb, yb):
            loss = tf.reduce_mean(tf.square(tf.matmul(xb, w) - yb))
            return opt.minimize(loss)

        xs = tf.distribute.PerReplica([tf.constant(x[:4]), tf.constant(x[4:])])
        ys = tf.distribute.PerReplica([tf.constant(y[:4]), tf.constant(y[4:])])
        train = s.run(step, args=(xs, ys))
    with tf.Session(config=TWO_CPUS) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        got = sess.run(list(w.values))
    # each replica's gradient is of its own mean loss; the update uses their sum
    grad = sum(2 * xb.T @ (xb @ np.zeros((3, 1))- yb) / 4 for xb, yb in
               ((x[:4], y[:4]), (x[4:], y[4:])))
    np.testing.assert_allclose(got[0], -0.5 * grad, rtol=1e-5)
    np.testing.assert_array_equal(got[0], got[1])


def test_replica_assignment_needs_an_aggregation():
    s = tf.distribute.MirroredStrategy(DEVICES)
    with s.scope():
        v = tf.Variable(0.0, name="v")
        m = tf.Variable(0.0, name="m", aggregation=tf.VariableAggregation.MEAN)

    def bad():
        return v.assign(1.0)

    with pytest.raises(ValueError, match="aggregation"):
        s.run(bad)

    def good():
        rid = tf.distribute.get_replica_context().replica_id_in_sync_group
        return m.assign(tf.cast(rid, tf.float32) * 4.0 + 2.0)

    op = s.run(good)
    with tf.Session(config=TWO_CPUS) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(s.experimental_local_results(op))
        assert sess.run(list(m.values)) == [4.0, 4.0]  # mean of 2 and 6, on both copies


def test_saver_restores_every_copy(tmp_path):
    s = tf.distribute.MirroredStrategy(DEVICES)
    with s.scope():
        v = tf.Variable([1.0, 2.0], name="v")
    saver = tf.train.Saver()
    with tf.Session(config=TWO_CPUS) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(v.assign([5.0, 6.0]))
        path = saver.save(sess, str(tmp_path / "model"))
        sess.run(v.assign([0.0, 0.0]))
        saver.restore(sess, path)
        np.testing.assert_array_equal(sess.run(list(v.values)), [[5.0, 6.0], [5.0, 6.0]])
    # the checkpoint holds one variable 'v', as a single-device program's does
    assert [n for n, _ in tf.train.list_variables(path)] == ["v"]


def _xy32():
    return _data(32, seed=1)


def test_estimator_train_distribute_matches_one_device_on_the_global_batch(tmp_path):
    x, y = _xy32()

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
        b = tf.get_variable("b", [], initializer=tf.zeros_initializer())
        pred = tf.matmul(features, w) + b
        loss = tf.losses.mean_squared_error(labels, pred)
        train = tf.train.MomentumOptimizer(0.05, 0.9).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(
            mode, loss=loss, train_op=train,
            eval_metric_ops={"mse": tf.metrics.mean_squared_error(labels, pred)})

    def input_fn(batch):
        return lambda: tf.data.Dataset.from_tensor_slices((x, y)).batch(batch).repeat()

    strategy = tf.distribute.MirroredStrategy(DEVICES)
    config = tf.estimator.RunConfig(train_distribute=strategy, session_config=TWO_CPUS)
    dist = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "dist"), config=config)
    dist.train(input_fn(4), steps=6)  # each replica takes its own batch of 4
    single = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "one"))
    single.train(input_fn(8), steps=6)
    np.testing.assert_allclose(dist.get_variable_value("w"), single.get_variable_value("w"),
                               rtol=1e-5, atol=1e-6)
    # the checkpoint has the single-device names (the copies are saved once)
    assert dist.get_variable_names() == single.get_variable_names()
    assert dist.get_variable_value("global_step") == 6
    dist.train(input_fn(4), steps=2)  # restores every copy from the checkpoint
    assert dist.get_variable_value("global_step") == 8
    metrics = dist.evaluate(input_fn(8), steps=2)
    assert metrics["global_step"] == 8 and np.isfinite(metrics["mse"])


def _keras_run(strategy, make_opt):
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    tf.keras.backend.set_session(tf.Session(config=TWO_CPUS))
    x, y = _xy32()
    with strategy.scope():
        model = tf.keras.Sequential([
            tf.keras.layers.Dense(4, activation="relu", input_shape=(3,),
                                  kernel_initializer=tf.keras.initializers.Constant(0.3),
                                  kernel_regularizer=tf.keras.regularizers.l2(0.01)),
            tf.keras.layers.Dense(1, kernel_initializer="ones")])
        model.compile(optimizer=make_opt(), loss="mse", metrics=["mae"])
    # batches of 7 split 4 + 3 over two replicas, the last one (4) 2 + 2
    history = model.fit(x, y, batch_size=7, epochs=3, verbose=0, shuffle=False)
    graph = tf.keras.backend.get_session().graph
    on_second = [op for op in graph.get_operations()
                 if op.name.startswith("replica_1/") and op.device.endswith("CPU:1")]
    if strategy.num_replicas_in_sync == 2:  # the second replica's tower is on its device
        assert any(op.type == "MatMul" for op in on_second)
    sess = tf.keras.backend.get_session()
    copies = [sess.run(list(w.values)) for w in model.weights if hasattr(w, "values")]
    return (history.history["loss"], model.get_weights(), copies, model.weights,
            history.history["mean_absolute_error"])


@pytest.mark.parametrize("make_opt", [
    lambda: tf.keras.optimizers.SGD(0.05),
    lambda: tf.train.AdamOptimizer(0.05),
    lambda: tf.keras.optimizers.RMSprop(0.01),
    lambda: tf.keras.optimizers.Adamax(0.05),  # an update rule written with assign ops
    lambda: tf.keras.optimizers.SGD(0.05, clipnorm=0.5),
], ids=["sgd", "tf_adam", "rmsprop", "adamax", "sgd_clipnorm"])
def test_keras_fit_on_replicas_matches_one_device(make_opt):
    loss2, w2, copies, weights, mae2 = _keras_run(tf.distribute.MirroredStrategy(DEVICES),
                                                  make_opt)
    loss1, w1, _, _, mae1 = _keras_run(tf.distribute.OneDeviceStrategy("/cpu:0"), make_opt)
    np.testing.assert_allclose(mae2, mae1, rtol=1e-5)
    assert all(isinstance(w, tf.distribute.MirroredVariable) for w in weights)
    assert len(copies) == 4
    for a, b in copies:
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(loss2, loss1, rtol=1e-5)
    for a, b in zip(w2, w1):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert loss2[-1] < loss2[0]


def test_slots_update_merge_call_and_colocation_as_tf():
    s = tf.distribute.MirroredStrategy(DEVICES)
    with s.scope():
        w = tf.get_variable("w", [2], initializer=tf.ones_initializer())
        opt = tf.train.MomentumOptimizer(0.1, 0.9)
        train = s.run(lambda: opt.minimize(tf.reduce_sum(w * w)))
        # TF: the one train op is returned to the caller, not a PerReplica of it
        assert isinstance(train, tf.Operation) and train.name == "Momentum"
        assert [v.name for v in tf.global_variables()] == ["w:0", "w/Momentum:0"]
        assert [x.name for x in opt.get_slot(w, "momentum").values] == [
            "w/Momentum:0", "w/Momentum/replica_1:0"]
        up = s.extended.update(w, lambda v, d: v.assign_add(d), args=(tf.constant([1.0, 1.0]),))
        assert [t.device for t in up.values] == list(s.extended.worker_devices)
        copies = s.extended.broadcast_to(tf.constant(3.0), w)
        assert [t.device for t in copies.values] == list(s.extended.worker_devices)
        seen = []

        def replica():
            ctx = tf.distribute.get_replica_context()

            def merge_fn(strategy, x):
                seen.append((type(x).__name__, strategy is s,
                             tf.distribute.in_cross_replica_context()))
                return strategy.reduce("SUM", x, axis=None)

            rid = tf.cast(ctx.replica_id_in_sync_group, tf.float32)
            return ctx.merge_call(merge_fn, args=(rid,))

        merged = s.run(replica)
        assert seen == [("PerReplica", True, True)]
        with s.extended.colocate_vars_with(w):
            c = tf.Variable(0.0, name="c")
        assert [x.device for x in c.values] == list(s.extended.worker_devices)
        assert s.extended.variable_created_in_scope(w)
    assert not s.extended.variable_created_in_scope(tf.Variable(1.0))
    with tf.Session(config=TWO_CPUS) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        # d(sum w^2)/dw = 2 per replica, summed: 4; w = 1 - 0.1 * 4 (TF gives 0.6 too)
        np.testing.assert_allclose(sess.run(list(w.values)), [[0.6, 0.6], [0.6, 0.6]])
        assert sess.run(merged) == 1.0
        assert sess.run(list(copies.values)) == [3.0, 3.0]


def test_central_storage_keeps_one_copy_and_matches_one_device():
    s = tf.distribute.experimental.CentralStorageStrategy(DEVICES)
    assert s.extended.parameter_devices == ("/device:CPU:0",)  # (as TF 1.15's)
    (w2, b2, gs2), loss2, copies = _train(s, "adam")
    (w1, b1, _), loss1, _ = _train(tf.distribute.OneDeviceStrategy("/cpu:0"), "adam")
    np.testing.assert_allclose(b2, b1, rtol=1e-5, atol=1e-6)
    assert copies == [None] * len(copies)  # plain variables on the parameter device
    np.testing.assert_allclose(w2, w1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(loss2, loss1, rtol=1e-5)
    assert gs2 == 5


def test_input_fn_iterator_gives_each_replica_its_own_element():
    s = tf.distribute.MirroredStrategy(DEVICES)
    seen = []

    def input_fn(ctx):
        seen.append((ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync))
        return tf.data.Dataset.range(8).batch(2)

    it = s.make_input_fn_iterator(input_fn)
    nxt = it.get_next()
    with tf.Session(config=TWO_CPUS) as sess:
        sess.run(it.initialize())
        got = [sorted(map(list, sess.run(s.experimental_local_results(nxt)))) for _ in range(2)]
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(s.experimental_local_results(nxt))
    assert seen == [(1, 0, 2)]
    # each step the replicas take one element each (which takes which is not fixed)
    assert got == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]


def test_contrib_distribute_and_experimental_names():
    from tideflow.contrib.distribute import MirroredStrategy

    s = MirroredStrategy(DEVICES)
    assert s.num_replicas_in_sync == 2
    assert tf.contrib.distribute.MirroredStrategy(num_gpus=2).extended.worker_devices == (
        "/replica:0/task:0/device:GPU:0", "/replica:0/task:0/device:GPU:1")
    with pytest.raises(ValueError, match="only specify one"):
        tf.contrib.distribute.MirroredStrategy(devices=DEVICES, num_gpus=2)
    assert tf.contrib.distribute.DistributeConfig(train_distribute=s).train_distribute is s
    ps = tf.distribute.experimental.ParameterServerStrategy()
    assert ps.num_replicas_in_sync == 1
    assert tf.distribute.experimental.MultiWorkerMirroredStrategy().num_replicas_in_sync == 1
    assert tf.distribute.Server is tf.train.Server
    assert tf.distribute.ClusterSpec is tf.train.ClusterSpec


def test_cluster_resolvers(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    assert tf.distribute.cluster_resolver.TFConfigClusterResolver().cluster_spec().as_dict() == {}
    monkeypatch.setenv("TF_CONFIG", '{"cluster": {"worker": ["h0:2222", "h1:2222"], '
                       '"ps": ["p0:2222"]}, "task": {"type": "worker", "index": 1}}')
    r = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    assert (r.task_type, r.task_id) == ("worker", 1)
    # TF 1.15 formats with the resolver's own RPC layer (none here), not the argument
    assert r.master() == "h1:2222" and r.master(rpc_layer="grpc") == "h1:2222"
    assert r.cluster_spec().as_dict()["ps"] == ["p0:2222"]
    with pytest.raises(NotImplementedError, match="replica_device_setter"):
        tf.distribute.experimental.ParameterServerStrategy(r)
    simple = tf.distribute.cluster_resolver.SimpleClusterResolver(
        tf.train.ClusterSpec({"worker": ["a:1", "b:2"]}), master="grpc://a:1")
    assert simple.master() == "grpc://a:1" and simple.master("worker", 1) == "b:2"


def test_multi_gpu_model_checks_as_tf():
    model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    for gpus, match in ((1, "`gpus >= 2`"), ([0], "`len\\(gpus\\) >= 2`"),
                        (0, "`gpus >= 2`")):
        with pytest.raises(ValueError, match=match):
            tf.keras.utils.multi_gpu_model(model, gpus=gpus)
    # no GPUs here: TF names the devices it expected and the ones the machine has
    with pytest.raises(ValueError, match=r"\['/cpu:0', '/gpu:0', '/gpu:1'\]. However this "
                                         r"machine only has: \['/cpu:0'"):
        tf.keras.utils.multi_gpu_model(model, gpus=2)


def test_multi_gpu_model_batch_slices():
    from tideflow.keras.multi_gpu_utils import _get_slice

    x = tf.constant(np.arange(20, dtype=np.float32).reshape(10, 2))
    with tf.Session() as sess:
        parts = sess.run([_get_slice(x, i, 3) for i in range(3)])
    # TF's split: batch // parts rows each, the last takes the remainder
    assert [p.shape[0] for p in parts] == [3, 3, 4]
    np.testing.assert_array_equal(np.concatenate(parts), np.arange(20).reshape(10, 2))


def test_misuse_errors_match_tf():
    s = tf.distribute.MirroredStrategy(DEVICES)
    per = s.run(lambda: tf.constant(1.0))
    # TF: a PerReplica is no fetch (TypeError); a bad reduce op is a ValueError
    with tf.Session(config=TWO_CPUS) as sess, pytest.raises(TypeError):
        sess.run(per)
    with pytest.raises(ValueError, match="'MAX' is not a valid ReduceOp"):
        s.reduce("MAX", per, axis=None)
    with pytest.raises(RuntimeError, match="unsupported by default"):
        tf.distribute.get_strategy().extended.worker_devices  # noqa: B018

    def fails():
        raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):  # the replica's own error, as TF
        s.run(fails)

    def uneven():
        ctx = tf.distribute.get_replica_context()
        if ctx._replica_id == 0:  # only the first replica merges
            ctx.merge_call(lambda strategy: None)
        return tf.constant(0.0)

    with pytest.raises(RuntimeError, match="different number of"):
        s.run(uneven)
    # the graph's scopes are the caller's again after the failures
    assert tf.get_default_graph().get_name_scope() == ""
    c = tf.constant(1.0)
    assert not c.name.startswith("replica_") and c.device == ""


def test_one_device_mirrored_strategy_and_configure():
    m1 = tf.distribute.MirroredStrategy(["/cpu:0"])
    with m1.scope():
        v = tf.Variable(1.0, name="v1")
        out = m1.run(lambda: v * 2.0)
    # TF makes a MirroredVariable even for one device
    assert isinstance(v, tf.distribute.MirroredVariable) and len(v.values) == 1
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(out) == 2.0 and sess.run(v.assign_add(1.0)) == 2.0
    config = tf.ConfigProto()
    tf.distribute.MirroredStrategy(DEVICES).configure(session_config=config)
    assert config.device_count["CPU"] == 2


def test_estimator_with_tf_layers_and_tensor_input_fn(tmp_path):
    x, y = _xy32()

    def model_fn(features, labels, mode):
        hidden = tf.layers.dense(features, 4, activation=tf.nn.relu,
                                 kernel_initializer=tf.constant_initializer(0.2))
        pred = tf.layers.dense(hidden, 1, kernel_initializer=tf.ones_initializer())
        loss = tf.losses.mean_squared_error(labels, pred)
        train = tf.train.AdamOptimizer(0.05).minimize(loss, tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train)

    def input_fn():  # tensors, not a dataset: the batch of 32 is split 16 + 16
        return tf.constant(x), tf.constant(y)

    strategy = tf.distribute.MirroredStrategy(DEVICES)
    dist = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "dist"),
                                  config=tf.estimator.RunConfig(train_distribute=strategy))
    dist.train(input_fn, steps=4)
    single = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "one"))
    single.train(input_fn, steps=4)
    # TF names: every replica's `dense` is the same layer (replicas past the first reuse it)
    names = dist.get_variable_names()
    assert names == single.get_variable_names()
    assert "dense_1/kernel" in names and "dense_2/kernel" not in names
    for name in ("dense/kernel", "dense_1/kernel", "dense/bias"):
        np.testing.assert_allclose(dist.get_variable_value(name),
                                   single.get_variable_value(name), rtol=1e-4, atol=1e-6)


def test_replicas_see_the_callers_variable_creators():
    s = tf.distribute.MirroredStrategy(DEVICES)
    seen = []

    def creator(next_creator, **kwargs):
        seen.append(kwargs.get("name"))
        return next_creator(**kwargs)

    with tf.variable_creator_scope(creator), s.scope():
        s.run(lambda: tf.Variable(1.0, name="made_in_replica"))
    # made once (the second replica gets the first one's), through the user's creator: the
    # primary copy, then the copy named as TF names it
    assert seen == ["made_in_replica", "made_in_replica/replica_1/"]
    assert [v.name for v in tf.global_variables()] == ["made_in_replica:0"]


def _embedding_run(strategy):
    tf.reset_default_graph()
    ids = np.array([0, 2, 2, 5, 1, 0, 3, 5], np.int64)
    target = np.arange(8, dtype=np.float32)
    ds = tf.data.Dataset.from_tensor_slices((ids, target)).batch(8).repeat()
    with strategy.scope():
        it = strategy.experimental_distribute_dataset(ds).make_initializable_iterator()
        emb = tf.get_variable("emb", [6, 2], initializer=tf.constant_initializer(0.5))
        opt = tf.train.AdagradOptimizer(0.3)

        def step(i, t):
            e = tf.nn.embedding_lookup(emb, i)  # an IndexedSlices gradient
            return opt.minimize(tf.reduce_sum(tf.square(tf.reduce_sum(e, 1) - t)) / 8.0)

        train = strategy.run(step, args=it.get_next())
    with tf.Session(config=TWO_CPUS) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(it.initializer)
        for _ in range(3):
            sess.run(train)
        copies = sess.run(list(emb.values)) if hasattr(emb, "values") else None
        return sess.run(emb), copies


def test_sparse_gradients_are_gathered_over_replicas():
    got, copies = _embedding_run(tf.distribute.MirroredStrategy(DEVICES))
    want, _ = _embedding_run(tf.distribute.OneDeviceStrategy("/cpu:0"))
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_array_equal(copies[0], copies[1])
    assert not np.allclose(got, 0.5)


def test_single_machine_experimental_strategies_variables_as_tf():
    # TF 1.15 (no TF_CONFIG): plain variables on the CPU ('/device:CPU:0', the parameter
    # device) for the parameter-server and central-storage strategies, a MirroredVariable for
    # the multi-worker one
    for make, mirrored, device in (
            (tf.distribute.experimental.ParameterServerStrategy, False, "/device:CPU:0"),
            (tf.distribute.experimental.CentralStorageStrategy, False, "/device:CPU:0"),
            (tf.distribute.experimental.MultiWorkerMirroredStrategy, True,
             "/replica:0/task:0/device:CPU:0")):
        s = make()
        assert s.num_replicas_in_sync == 1
        assert s.extended.parameter_devices == (device,)
        with s.scope():
            v = tf.Variable(1.0)
        assert isinstance(v, tf.distribute.MirroredVariable) is mirrored
        assert v.device == device


def test_estimator_eval_distribute_metrics_cover_every_replica(tmp_path):
    x, y = _xy32()

    def model_fn(features, labels, mode):
        pred = tf.layers.dense(features, 1)
        loss = tf.losses.mean_squared_error(labels, pred)
        train = tf.train.AdamOptimizer(0.1).minimize(loss, tf.train.get_global_step())
        batch = tf.cast(tf.shape(labels)[0], tf.float32)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train, eval_metric_ops={
            "mae": tf.metrics.mean_absolute_error(labels, pred),
            "batch": tf.metrics.mean(batch),
            "acc": tf.metrics.accuracy(tf.cast(labels > 0, tf.int32),
                                       tf.cast(pred > 0, tf.int32))})

    def input_fn():
        return tf.data.Dataset.from_tensor_slices((x, y)).batch(4)

    s = tf.distribute.MirroredStrategy(DEVICES)
    model_dir = str(tmp_path / "m")
    dist = tf.estimator.Estimator(model_fn, model_dir, config=tf.estimator.RunConfig(
        train_distribute=s, eval_distribute=s))
    dist.train(input_fn, steps=3)
    got = dist.evaluate(input_fn)
    want = tf.estimator.Estimator(model_fn, model_dir).evaluate(input_fn)  # one device
    assert set(got) == set(want) == {"mae", "batch", "acc", "loss", "global_step"}
    assert got["batch"] == want["batch"] == 4.0  # each replica took whole batches of 4
    for k in ("mae", "acc", "loss"):
        assert got[k] == pytest.approx(want[k], rel=1e-5)
    assert got["global_step"] == want["global_step"] == 3
    # direct check of one value: the accuracy over all 32 rows with the trained weights
    w, b = dist.get_variable_value("dense/kernel"), dist.get_variable_value("dense/bias")
    acc = np.mean(((x @ w + b) > 0) == (y > 0))
    assert got["acc"] == pytest.approx(acc)


def test_run_config_takes_a_contrib_distribute_config():
    s = tf.distribute.MirroredStrategy(DEVICES)
    config = tf.estimator.RunConfig(
        experimental_distribute=tf.contrib.distribute.DistributeConfig(train_distribute=s))
    assert config.train_distribute is s and config.eval_distribute is None


class _Subclassed(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.d1 = tf.keras.layers.Dense(4, activation="relu",
                                        kernel_initializer=tf.keras.initializers.Constant(0.3))
        self.d2 = tf.keras.layers.Dense(1, kernel_initializer="ones")

    def call(self, x):
        return self.d2(self.d1(x))


def _subclassed_run(strategy):
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    tf.keras.backend.set_session(tf.Session(config=TWO_CPUS))
    x, y = _xy32()
    with strategy.scope():
        model = _Subclassed()
        model.compile(tf.keras.optimizers.Adam(0.01), "mse")
    history = model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    return history.history["loss"], model


def test_keras_subclassed_model_builds_its_weights_in_the_scope():
    loss2, model = _subclassed_run(tf.distribute.MirroredStrategy(DEVICES))
    # built at fit time, in the scope it was compiled in (as TF)
    assert all(isinstance(w, tf.distribute.MirroredVariable) for w in model.weights)
    sess = tf.keras.backend.get_session()
    for w in model.weights:
        a, b = sess.run(list(w.values))
        np.testing.assert_array_equal(a, b)
    loss1, _ = _subclassed_run(tf.distribute.OneDeviceStrategy("/cpu:0"))
    np.testing.assert_allclose(loss2, loss1, rtol=1e-5)


def test_named_assignment_of_a_mirrored_variable_under_its_colocation():
    s = tf.distribute.MirroredStrategy(DEVICES)
    with s.scope():
        step = tf.Variable(0, dtype=tf.int64, name="step")
    with tf.name_scope("train") as scope, tf.colocate_with(step):
        inc = tf.assign_add(step, 1, name=scope)
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert len(names) == len(set(names))
    with tf.Session(config=TWO_CPUS) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(inc)
        sess.run(inc)
        assert sess.run(list(step.values)) == [2, 2]


def test_init_from_checkpoint_initializes_every_copy(tmp_path):
    with tf.Graph().as_default():
        tf.get_variable("w", [3], initializer=tf.constant_initializer([1.0, 2.0, 3.0]))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().save(sess, str(tmp_path / "model"))
    s = tf.distribute.MirroredStrategy(DEVICES)
    with s.scope():
        w = tf.get_variable("w", [3], initializer=tf.zeros_initializer())
    tf.train.init_from_checkpoint(str(tmp_path), {"w": "w"})
    with tf.Session(config=TWO_CPUS) as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(list(w.values)), [[1, 2, 3], [1, 2, 3]])


def test_variable_creator_scope_sees_every_argument():
    seen = {}

    def creator(next_creator, **kwargs):
        seen.update(kwargs)
        kwargs["trainable"] = False
        return next_creator(**kwargs)

    with tf.variable_creator_scope(creator):
        v = tf.Variable(1.0, name="v")
    assert seen["name"] == "v" and seen["trainable"] is None and seen["collections"] is None
    assert {"initial_value", "dtype", "validate_shape", "caching_device", "constraint",
            "synchronization", "aggregation"} <= set(seen)
    assert v not in tf.trainable_variables() and v in tf.global_variables()


def test_keras_compile_distribute_argument_trains_on_replicas():
    # TF 1.11-1.13: model.compile(..., distribute=strategy)
    tf.keras.backend.clear_session()
    tf.keras.backend.set_session(tf.Session(config=TWO_CPUS))
    x, y = _xy32()
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,),
                                                       kernel_initializer="zeros")])
    model.compile(tf.train.GradientDescentOptimizer(0.1), "mse",
                  distribute=tf.distribute.MirroredStrategy(DEVICES))
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    graph = tf.keras.backend.get_session().graph
    assert any(op.type == "MatMul" and op.device.endswith("CPU:1")
               for op in graph.get_operations())
    # one step of gradient descent on the whole batch's mean squared error, from zeros
    grad_w = -2 * x.T @ y / 32
    grad_b = -2 * y.mean()
    w, b = model.get_weights()
    np.testing.assert_allclose(w, -0.1 * grad_w, rtol=1e-5)
    np.testing.assert_allclose(b, [-0.1 * grad_b], rtol=1e-5)


def test_experimental_set_strategy():
    s = tf.distribute.MirroredStrategy(DEVICES)
    tf.distribute.experimental_set_strategy(s)
    try:
        assert tf.distribute.get_strategy() is s and tf.distribute.has_strategy()
        v = tf.Variable(1.0)
        assert isinstance(v, tf.distribute.MirroredVariable)
    finally:
        tf.distribute.experimental_set_strategy(None)
    assert not tf.distribute.has_strategy()
    assert type(tf.Variable(1.0)).__name__ == "RefVariable"  # (TF 1.15 shows this class)


def test_adam_with_global_step_variables_and_result_as_tf():
    s = tf.distribute.MirroredStrategy(DEVICES)
    with s.scope():
        w = tf.get_variable("w", [2], initializer=tf.ones_initializer())
        gs = tf.train.get_or_create_global_step()
        opt = tf.train.AdamOptimizer(0.1)
        train = s.run(lambda: opt.minimize(tf.reduce_sum(w * w), global_step=gs))
    # what TF 2.21 (compat.v1) lists and returns for the same program
    assert [(v.name, [c.name for c in v.values]) for v in tf.global_variables()] == [
        ("w:0", ["w:0", "w/replica_1:0"]),
        ("global_step:0", ["global_step:0", "global_step/replica_1:0"]),
        ("beta1_power:0", ["beta1_power:0", "beta1_power/replica_1:0"]),
        ("beta2_power:0", ["beta2_power:0", "beta2_power/replica_1:0"]),
        ("w/Adam:0", ["w/Adam:0", "w/Adam/replica_1:0"]),
        ("w/Adam_1:0", ["w/Adam_1:0", "w/Adam_1/replica_1:0"])]
    assert isinstance(train, tf.distribute.PerReplica)
    assert [t.name for t in train.values] == ["Adam/Identity:0", "Adam/Identity_1:0"]
    with tf.Session(config=TWO_CPUS) as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(s.experimental_local_results(train)) == (1, 1)
        assert sess.run(s.experimental_local_results(train)) == (2, 2)
        a, b = sess.run(list(w.values))
        np.testing.assert_array_equal(a, b)


def test_keras_batch_norm_statistics_under_mirrored_strategy():
    tf.keras.backend.clear_session()
    tf.keras.backend.set_session(tf.Session(config=TWO_CPUS))
    x, y = _xy32()
    s = tf.distribute.MirroredStrategy(DEVICES)
    with s.scope():
        model = tf.keras.Sequential([tf.keras.layers.Dense(8, input_shape=(3,)),
                                     tf.keras.layers.BatchNormalization(momentum=0.5),
                                     tf.keras.layers.Dense(1)])
        model.compile(tf.keras.optimizers.SGD(0.05), "mse")
    bn = model.layers[1]
    # TF: the moving statistics are sync-on-read (MEAN): a copy per replica, read as the mean
    assert type(bn.moving_mean).__name__ == "SyncOnReadVariable"
    history = model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    assert history.history["loss"][-1] < history.history["loss"][0]
    sess = tf.keras.backend.get_session()
    for w in model.weights:
        a, b = sess.run(list(w.values))
        np.testing.assert_array_equal(a, b)
    assert not np.allclose(sess.run(bn.moving_mean), 0.0)  # the statistics were updated
