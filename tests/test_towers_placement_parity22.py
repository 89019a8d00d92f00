"""Multi-device and placement programs of TF 1.x on CPU devices (towers, device functions,
colocation, replica_device_setter, tf.distribute) checked against what TF 1.15 printed."""

import numpy as np
import pytest

import tideflow as tf


def test_colocate_with_none_resets_the_device_stack_too():
    # TF 1.15: colocate_with(None, ignore_existing=True) clears the device functions as any
    # colocate_with does, so an op made inside has no device ('' not '/device:CPU:0')
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        with tf.device("/cpu:0"):
            with tf.colocate_with(None, ignore_existing=True):
                f = tf.identity(v, name="f")
                with tf.device("/cpu:1"):
                    h = tf.identity(v, name="h")
            k = tf.identity(v, name="k")
        assert f.device == ""
        assert f.op.colocation_groups() == [b"loc:@f"]
        assert h.device == "/device:CPU:1"
        assert k.device == "/device:CPU:0"


def test_mirrored_strategy_variables_are_resource_variables():
    # TF 1.15: a strategy's scope makes resource variables: the mirrored variable's dtype is
    # float32 (not float32_ref) and each copy is a ResourceVariable
    with tf.Graph().as_default():
        strategy = tf.distribute.MirroredStrategy(devices=["/cpu:0", "/cpu:1"])
        with strategy.scope():
            w = tf.get_variable("w", [3, 1])
            b = tf.Variable(0.0, name="b", use_resource=False)
        assert w.dtype == tf.float32 and repr(w.dtype) == "tf.float32"
        assert b.dtype == tf.float32
        copies = strategy.experimental_local_results(w)
        assert [type(c).__name__ for c in copies] == ["ResourceVariable", "ResourceVariable"]
        assert [c.name for c in copies] == ["w:0", "w/replica_1:0"]
        assert [c.dtype for c in copies] == [tf.float32, tf.float32]


def test_keras_session_soft_places_a_strategy_of_absent_devices():
    # TF 1.15's Keras session has allow_soft_placement: a model compiled under
    # MirroredStrategy(['/cpu:0', '/cpu:1']) trains in a one-CPU process. TF printed
    # losses ['0.83984', '0.70046', '0.67268'] and these predictions.
    x = np.random.RandomState(0).randn(16, 4).astype(np.float32)
    y = (x.sum(1, keepdims=True) > 0).astype(np.float32)
    tf.keras.backend.clear_session()
    tf.set_random_seed(2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        model = tf.keras.Sequential([
            tf.keras.layers.Dense(3, activation="relu", input_shape=(4,),
                                  kernel_initializer=tf.keras.initializers.glorot_uniform(seed=1)),
            tf.keras.layers.Dense(1, activation="sigmoid",
                                  kernel_initializer=tf.keras.initializers.glorot_uniform(seed=2))])
        model.compile(optimizer=tf.keras.optimizers.SGD(0.5), loss="binary_crossentropy")
    try:
        h = model.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False)
        assert [f"{v:.5f}" for v in h.history["loss"]] == ["0.83984", "0.70046", "0.67268"]
        np.testing.assert_allclose(model.predict(x[:4]).ravel(),
                                   [0.50134, 0.46422, 0.51804, 0.50134], atol=1e-5)
        assert tf.keras.backend.get_session()._config.allow_soft_placement
    finally:
        tf.keras.backend.clear_session()


def _two_cpu_session():
    return tf.Session(config=tf.ConfigProto(device_count={"CPU": 2}))


def test_extended_update_runs_every_copy_when_one_result_is_fetched():
    # TF 1.15's update_regroup: the copies' updates (in update_<i> name scopes) are grouped
    # and each result is read again after the group, so fetching copy 0's result updates both
    with tf.Graph().as_default():
        strategy = tf.distribute.MirroredStrategy(devices=["/cpu:0", "/cpu:1"])
        with strategy.scope():
            v = tf.Variable(1.0, name="v")
            upd = strategy.extended.update(v, lambda var, d: var.assign_add(d),
                                           args=(tf.constant(5.0),))
        first, second = strategy.experimental_local_results(upd)
        assert type(upd).__name__ == "Mirrored"
        assert (first.name, second.name) == ("Identity:0", "Identity_1:0")
        assert [op.name for op in first.op.inputs[0].op.control_inputs] == [
            "group_deps", "update_0/AssignAddVariableOp"]
        assert [c.name for c in tf.get_default_graph().get_operation_by_name(
            "group_deps/NoOp_1").control_inputs] == ["update_1/AssignAddVariableOp"]
        with _two_cpu_session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(first) == 6.0
            assert sess.run(strategy.experimental_local_results(v)) == (6.0, 6.0)


def test_mirrored_variable_assign_returns_a_mirrored_value():
    # TF 1.15: in cross-replica context v.assign goes through extended.update (a Mirrored,
    # fetched as its primary); in a replica an aggregated assign_add gives each replica
    # the read on its own device (PerReplica Identity_4 / Identity_5)
    with tf.Graph().as_default():
        strategy = tf.distribute.MirroredStrategy(devices=["/cpu:0", "/cpu:1"])
        with strategy.scope():
            v = tf.Variable(1.0, name="v", aggregation=tf.VariableAggregation.MEAN)
            a = v.assign(3.0)
            b = v.assign_add(1.0, read_value=False)

            def fn():
                rid = tf.distribute.get_replica_context().replica_id_in_sync_group
                return v.assign_add(tf.cast(rid, tf.float32) * 10.0)

            c = strategy.extended.call_for_each_replica(fn)
        assert type(a).__name__ == "Mirrored" and type(b).__name__ == "Operation"
        assert type(c).__name__ == "PerReplica"
        assert [t.device for t in strategy.experimental_local_results(c)] == [
            "/replica:0/task:0/device:CPU:0", "/replica:0/task:0/device:CPU:1"]
        with _two_cpu_session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(a) == 3.0
            assert sess.run(strategy.experimental_local_results(a)[1]) == 3.0
            sess.run(b)
            assert sess.run(strategy.experimental_local_results(v)) == (4.0, 4.0)
            assert sess.run(strategy.experimental_local_results(c)) == (9.0, 9.0)


def test_set_device_keeps_a_string_as_written():
    # TF 1.15's Operation._set_device stores a string as given ('/job:z/gpu:0'), a
    # DeviceSpec as its to_string() ('/device:GPU:2')
    with tf.Graph().as_default():
        x = tf.constant(3.0, name="x")
        x.op._set_device("/job:z/gpu:0")
        assert x.device == "/job:z/gpu:0"
        y = tf.constant(3.0, name="y")
        y.op._set_device(tf.DeviceSpec(device_type="GPU", device_index=2))
        assert y.device == "/device:GPU:2"
        assert [n.device for n in tf.get_default_graph().as_graph_def().node] == [
            "/job:z/gpu:0", "/device:GPU:2"]


_XLA = "/job:localhost/replica:0/task:0/device:XLA_CPU:0"


def test_the_xla_cpu_device_is_listed_as_tf_lists_it(capsys):
    # TF 1.15's CPU build registers one XLA_CPU device beside the CPUs: sessions, device_lib
    # and tf.config list it, log_device_placement maps it, placement errors name it
    from tideflow.python.client import device_lib

    cfg = tf.ConfigProto(device_count={"CPU": 2}, log_device_placement=True)
    with tf.Graph().as_default(), tf.Session(config=cfg) as sess:
        assert capsys.readouterr().out == (
            f"Device mapping:\n{_XLA} -> device: XLA_CPU device\n")
        devs = sess.list_devices()
        assert [d.name for d in devs][1:] == [
            "/job:localhost/replica:0/task:0/device:CPU:1", _XLA]
        assert (devs[2].device_type, devs[2].memory_limit_bytes) == ("XLA_CPU", 17179869184)
    local = device_lib.list_local_devices()
    assert [(d.name, d.device_type, d.physical_device_desc) for d in local] == [
        ("/device:CPU:0", "CPU", ""), ("/device:XLA_CPU:0", "XLA_CPU", "device: XLA_CPU device")]
    assert [d.name for d in tf.config.experimental.list_physical_devices()] == [
        "/physical_device:CPU:0", "/physical_device:XLA_CPU:0"]
    assert [d.name for d in tf.config.experimental.list_logical_devices("XLA_CPU")] == [_XLA]
    with tf.Graph().as_default():
        with tf.device("/cpu:5"):
            s = tf.reduce_sum(tf.constant([1.0, 2.0]), name="s")
        with tf.Session() as sess, pytest.raises(
                tf.errors.InvalidArgumentError,
                match=r"available devices are \[ /job:localhost/replica:0/task:0/device:CPU:0, "
                      r"/job:localhost/replica:0/task:0/device:XLA_CPU:0 \]"):
            sess.run(s)


def test_the_default_strategy_class_name():
    # TF 1.15: type(tf.distribute.get_strategy()).__name__ outside every scope
    assert type(tf.distribute.get_strategy()).__name__ == "_DefaultDistributionStrategy"
    assert tf.distribute.get_strategy().num_replicas_in_sync == 1


@pytest.fixture
def _quiet_logging():
    before = tf.logging.get_verbosity()
    tf.logging.set_verbosity(tf.logging.ERROR)
    yield
    tf.logging.set_verbosity(before)  # (later tests read the tensorflow logger's lines)


def test_distributed_evaluate_orders_its_metrics_by_name(tmp_path, _quiet_logging):
    # TF 1.15 printed {'aae': -0.12365, 'loss': 0.58192, 'mae': 0.6114, 'global_step': 5.0}
    # for this program: the metrics in name order (loss among them), then the global step
    x = np.random.RandomState(0).randn(32, 3).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(8)

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
        pred = tf.matmul(features["x"], w) + b
        loss = tf.losses.mean_squared_error(labels, pred)
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(
            mode, loss=loss, train_op=train_op,
            eval_metric_ops={"mae": tf.metrics.mean_absolute_error(labels, pred),
                             "aae": tf.metrics.mean(pred)})

    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    config = tf.estimator.RunConfig(
        model_dir=str(tmp_path), train_distribute=strategy, eval_distribute=strategy,
        tf_random_seed=1, session_config=tf.ConfigProto(device_count={"CPU": 2}),
        save_summary_steps=1000, log_step_count_steps=1000)
    est = tf.estimator.Estimator(model_fn, config=config)
    est.train(input_fn, steps=5)
    np.testing.assert_allclose(est.get_variable_value("w").ravel(),
                               [0.74787, -1.26913, 0.24972], atol=1e-5)
    result = est.evaluate(input_fn, steps=2)
    assert list(result) == ["aae", "loss", "mae", "global_step"]
    np.testing.assert_allclose([result["aae"], result["loss"], result["mae"]],
                               [-0.12365, 0.58192, 0.6114], atol=1e-5)


def test_mirrored_replica_ops_are_named_and_placed_as_tf():
    # TF 1.15's op names and devices for this program (types aside: resource variables are
    # VariableV2 here): each replica thread's id Const at the top level on no device, a fresh
    # read of the copy per use, the second copy's initial value on its device, and the
    # reduction's AddN copied by an Identity to the destination
    with tf.Graph().as_default() as g:
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        with strategy.scope():
            w = tf.Variable([[1.0], [2.0]], name="w")
            r = strategy.experimental_run_v2(lambda: tf.matmul(tf.constant([[1.0, 1.0]]), w))
            tot = strategy.reduce(tf.distribute.ReduceOp.SUM, r)
        c0, c1 = "/replica:0/task:0/device:CPU:0", "/replica:0/task:0/device:CPU:1"
        want = [("w/replica_1/Initializer/Identity", c1), ("Const", ""), ("Const_1", c0),
                ("MatMul/ReadVariableOp", c0), ("MatMul", c0), ("Const_2", ""),
                ("replica_1/Const", c1), ("replica_1/MatMul/ReadVariableOp", c1),
                ("replica_1/MatMul", c1), ("AddN", c0), ("Identity", c0)]
        names = {op.name: op.device for op in g.get_operations()}
        assert [(n, names.get(n)) for n, _ in want] == want
        assert [op.name for op in g.get_operations()][-2:] == ["AddN", "Identity"]
        assert tot.name == "Identity:0"
        with _two_cpu_session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(tot).tolist() == [[6.0]]



def test_central_storage_keeps_its_parameter_device_as_given():
    # TF 1.15: parameter_devices is the string given ('/cpu:0'; '/device:CPU:0' by default)
    # and a variable made in scope is under tf.device of it ('/device:CPU:0'); the replicas
    # train the one copy (TF printed -1.0, -6.2, -11.400001 and [-0.70000005 -2.3000002])
    with tf.Graph().as_default():
        s = tf.distribute.experimental.CentralStorageStrategy(["/cpu:0", "/cpu:1"],
                                                              parameter_device="/cpu:0")
        assert s.extended.parameter_devices == ("/cpu:0",)
        assert tf.distribute.experimental.CentralStorageStrategy(
            ["/cpu:0"]).extended.parameter_devices == ("/device:CPU:0",)
        with s.scope():
            w = tf.Variable([[0.5], [-0.5]], name="w")
            opt = tf.train.GradientDescentOptimizer(0.1)
            x = tf.constant([[1.0, 2.0], [3.0, 4.0]])

            def fn():
                i = tf.distribute.get_replica_context().replica_id_in_sync_group
                loss = tf.reduce_sum(tf.matmul(tf.gather(x, [i]), w))
                with tf.control_dependencies([opt.minimize(loss)]):
                    return tf.identity(loss)

            tot = s.reduce(tf.distribute.ReduceOp.SUM, s.experimental_run_v2(fn))
        assert w.device == "/device:CPU:0"
        with _two_cpu_session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose([sess.run(tot) for _ in range(3)],
                                       [-1.0, -6.2, -11.400001], rtol=1e-6)
            np.testing.assert_allclose(sess.run(w).ravel(), [-0.70000005, -2.3000002],
                                       rtol=1e-6)


def test_a_resource_variable_is_read_on_its_own_device():
    # TF 1.15: a Keras layer built under /cpu:0 and called in a tower under /cpu:1 reads its
    # weights on /cpu:0 (tower_1/dense/MatMul/ReadVariableOp), whatever the tower's device;
    # read_value's Read/ReadVariableOp too, its Identity in the scope's device
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        with tf.device("/cpu:0"):
            dense = tf.keras.layers.Dense(3)
            dense.build((None, 4))
        with tf.device("/cpu:1"), tf.name_scope("tower_1"):
            y = dense(x)
            r = dense.kernel.read_value()
        g = tf.get_default_graph()
        assert g.get_operation_by_name("tower_1/dense/MatMul/ReadVariableOp").device == (
            "/device:CPU:0")
        assert g.get_operation_by_name("tower_1/dense/MatMul").device == "/device:CPU:1"
        assert g.get_operation_by_name("tower_1/Read/ReadVariableOp").device == "/device:CPU:0"
        assert r.device == "/device:CPU:1"
        with _two_cpu_session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(y, {x: np.zeros((2, 4), np.float32)}).tolist() == [[0.0] * 3] * 2


def test_keras_fit_under_mirrored_reports_the_replicas_loss_with_batch_norm():
    # TF 1.15 reports the sum of the replicas' losses, each replica normalizing its own half
    # of the batch: it printed {'loss': [1.4699, 1.2993]} for this program
    x = np.random.RandomState(0).randn(32, 5).astype(np.float32)
    y = np.eye(3, dtype=np.float32)[np.random.RandomState(1).randint(0, 3, 32)]
    tf.keras.backend.clear_session()
    tf.keras.backend.set_session(tf.Session(config=tf.ConfigProto(
        device_count={"CPU": 2}, allow_soft_placement=True)))
    tf.set_random_seed(3)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    try:
        with strategy.scope():
            inp = tf.keras.Input((5,))
            h = tf.keras.layers.Dense(
                8, activation="relu",
                kernel_initializer=tf.keras.initializers.glorot_uniform(seed=1))(inp)
            h = tf.keras.layers.BatchNormalization()(h)
            out = tf.keras.layers.Dense(
                3, activation="softmax",
                kernel_initializer=tf.keras.initializers.glorot_uniform(seed=2))(h)
            model = tf.keras.Model(inp, out)
            model.compile(tf.keras.optimizers.Adam(0.01), "categorical_crossentropy")
        hist = model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
        assert [round(float(v), 4) for v in hist.history["loss"]] == [1.4699, 1.2993]
    finally:
        tf.keras.backend.clear_session()
