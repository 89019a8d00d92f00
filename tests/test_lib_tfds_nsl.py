"""What running TensorFlow Datasets 1.3.2 and Neural Structured Learning 1.1.0 on tideflow
needed, pinned with plain TF 1.x calls: ``tf.function`` helpers named ``_like_this`` with
nested input signatures, a dense tensor times a SparseTensor whose shapes only clash at run
time, Keras ``add_metric``, subclassed models fit on a dict of arrays, functional models
returning a tuple of dicts, and ``tf.compat.v2.losses`` being Keras's."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _run(fetches, feed_dict=None):
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        return sess.run(fetches, feed_dict)


# ------------------------------------------------------------------------------------------
# tf.function in graph mode
# ------------------------------------------------------------------------------------------

def test_function_named_with_leading_underscore_builds_in_graph_mode():
    @tf.function(input_signature=(tf.TensorSpec((None, 2), tf.float32),))
    def _twice_plus_one(x):
        return 2.0 * x + 1.0

    out = _twice_plus_one(np.array([[1.0, 2.0], [0.5, -1.0]], np.float32))
    np.testing.assert_allclose(_run(out), [[3.0, 5.0], [2.0, -1.0]])


def test_function_lambda_name_is_a_valid_scope():
    f = tf.function(lambda a: a * 3)
    np.testing.assert_allclose(_run(f(tf.constant([1.0, 2.0]))), [3.0, 6.0])


def test_function_input_signature_may_be_a_dict_of_specs():
    specs = {"a": tf.TensorSpec((None, 3), tf.float32), "w": tf.TensorSpec((None, 1), tf.float32)}

    @tf.function(input_signature=[specs])
    def _weighted(feats):
        assert isinstance(feats["a"], tf.Tensor) and feats["a"].dtype == tf.float32
        return feats["a"] * feats["w"]

    feats = {"a": [[1, 2, 3], [4, 5, 6]], "w": [[0.5], [2.0]]}
    np.testing.assert_allclose(_run(_weighted(feats)), [[0.5, 1.0, 1.5], [8.0, 10.0, 12.0]])


def test_function_input_signature_structure_and_shape_mismatches_raise():
    specs = {"a": tf.TensorSpec((None, 3), tf.float32)}

    @tf.function(input_signature=[specs])
    def f(feats):
        return feats["a"]

    with pytest.raises(ValueError, match="structure"):
        f([[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="not compatible"):
        f({"a": [[1.0, 2.0]]})


# ------------------------------------------------------------------------------------------
# dense * SparseTensor: shapes checked when run, as TF's SparseDenseCwiseMul
# ------------------------------------------------------------------------------------------

def _sparse_2x3():
    return tf.SparseTensor(indices=[[0, 0], [0, 2], [1, 1]], values=[1.0, 2.0, 3.0],
                           dense_shape=(2, 3))


def test_dense_times_sparse_with_clashing_shapes_builds_and_fails_when_run():
    sp = _sparse_2x3()
    prod = tf.constant([[5.0], [4.0], [3.0]]) * sp
    assert isinstance(prod, tf.SparseTensor)
    assert prod.values.get_shape().as_list() == [3]
    # a graph holding the product, but not running it, works (its gradient is taken
    # elsewhere only)
    x = tf.constant([[-1.0], [1.0]])
    loss = tf.reduce_sum(tf.constant([[6.0]]) * x) + tf.sparse.reduce_sum(prod)
    g = tf.gradients(loss, x)[0]
    np.testing.assert_allclose(_run(g), [[6.0], [6.0]])
    with pytest.raises(tf.errors.InvalidArgumentError):
        _run(prod.values)


def test_dense_times_sparse_broadcasting_values():
    sp = _sparse_2x3()
    prod = tf.constant([[10.0, 20.0, 30.0]]) * sp
    np.testing.assert_allclose(_run(prod.values), [10.0, 60.0, 60.0])


# ------------------------------------------------------------------------------------------
# Keras: add_metric, dict inputs of subclassed models, nested outputs, Input(ragged=False)
# ------------------------------------------------------------------------------------------

class _DictModel(tf.keras.Model):
    def __init__(self):
        super().__init__(dynamic=False)
        self.dense = tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")

    def call(self, inputs):
        out = self.dense(inputs["x"])
        self.add_metric(tf.reduce_mean(inputs["side"]), aggregation="mean", name="side_mean")
        return out


def test_subclassed_model_fits_a_dict_of_arrays_and_reports_add_metric():
    model = _DictModel()
    model.compile(optimizer=tf.keras.optimizers.SGD(0.0), loss="mse")
    x = {"x": np.ones((4, 2), np.float32), "side": np.array([[1.0], [3.0], [5.0], [7.0]],
                                                             np.float32)}
    y = np.zeros((4, 1), np.float32)
    hist = model.fit(x, y, batch_size=2, epochs=2, verbose=0).history
    assert model.metrics_names == ["loss", "side_mean"]
    assert sorted(model.input_names) == ["side", "x"]
    # the running mean over the epoch's batches: (2 + 6) / 2
    np.testing.assert_allclose(hist["side_mean"], [4.0, 4.0])
    np.testing.assert_allclose(hist["loss"], [4.0, 4.0])
    loss, side = model.evaluate(x, y, batch_size=4, verbose=0)
    np.testing.assert_allclose([loss, side], [4.0, 4.0])


def test_add_metric_of_a_metric_result_and_errors():
    layer = tf.keras.layers.Dense(1)
    m = tf.keras.metrics.Mean(name="m")
    value = m(tf.constant([1.0, 3.0]))
    layer.add_metric(value)  # a Metric's result: no aggregation needed
    assert layer._added_metrics[0][0] is m
    with pytest.raises(ValueError, match="provide a name"):
        layer.add_metric(tf.constant(1.0), aggregation="mean")
    with pytest.raises(ValueError, match="only `mean`"):
        layer.add_metric(tf.constant(1.0), aggregation="sum", name="s")
    with pytest.raises(ValueError, match="aggregated metric result"):
        layer.add_metric(tf.constant(1.0), name="s")


def test_metric_name_follows_its_private_name():
    m = tf.keras.metrics.MeanAbsoluteError()
    assert m.name == "mean_absolute_error"
    m._name = "mae_label1"
    assert m.name == "mae_label1"


def test_functional_model_call_keeps_a_tuple_of_dicts_structure():
    a = tf.keras.Input((3,), name="a")
    b = tf.keras.Input((3,), name="b")
    outs = ({"x": tf.keras.layers.Lambda(lambda t: t * 2.0)(a)},
            {"y": tf.keras.layers.Add()([a, b])}, b)
    model = tf.keras.Model(inputs={"a": a, "b": b}, outputs=outs)
    res = model({"a": tf.ones((2, 3)), "b": tf.ones((2, 3))})
    assert isinstance(res, tuple) and set(res[0]) == {"x"} and set(res[1]) == {"y"}
    x, y, bb = _run([res[0]["x"], res[1]["y"], res[2]])
    np.testing.assert_allclose(x, np.full((2, 3), 2.0))
    np.testing.assert_allclose(y, np.full((2, 3), 2.0))
    np.testing.assert_allclose(bb, np.ones((2, 3)))


def test_input_accepts_ragged_false():
    t = tf.keras.Input((4,), ragged=False, name="plain")
    assert t.get_shape().as_list() == [None, 4]


def test_subclassed_model_rejects_unknown_keyword():
    with pytest.raises(TypeError, match="colour"):
        tf.keras.Model(colour="red")


# ------------------------------------------------------------------------------------------
# tf.compat.v2: losses and metrics are Keras's
# ------------------------------------------------------------------------------------------

def test_compat_v2_losses_and_metrics_are_keras_ones():
    v2 = tf.compat.v2
    assert v2.losses.Reduction.AUTO == "auto"
    assert v2.losses.Reduction is tf.keras.losses.Reduction
    assert v2.metrics.Mean is tf.keras.metrics.Mean
    loss = v2.losses.MeanSquaredError()(tf.constant([[1.0], [3.0]]), tf.constant([[0.0], [0.0]]))
    np.testing.assert_allclose(_run(loss), 5.0)


# ------------------------------------------------------------------------------------------
# tf.data: a reader over one file name with num_parallel_reads (TFDS reads each shard so)
# ------------------------------------------------------------------------------------------

def test_tfrecord_dataset_of_a_scalar_file_name_with_parallel_reads(tmp_path):
    paths = []
    for shard in range(2):
        p = str(tmp_path / f"part-{shard}.tfrecord")
        with tf.io.TFRecordWriter(p) as w:
            for i in range(3):
                w.write(f"s{shard}r{i}".encode())
        paths.append(p)
    one = tf.data.TFRecordDataset(paths[1], num_parallel_reads=1)
    assert one.output_shapes.as_list() == []
    files = tf.data.Dataset.from_tensor_slices({"filename": paths, "skip": np.array([1, 0])})
    ds = files.interleave(
        lambda f: tf.data.TFRecordDataset(f["filename"], num_parallel_reads=1).skip(f["skip"]),
        cycle_length=2, block_length=4)
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    got = []
    with tf.Session() as sess:
        for _ in range(5):
            got.append(sess.run(nxt))
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(nxt)
    assert got == [b"s0r1", b"s0r2", b"s1r0", b"s1r1", b"s1r2"]
    with tf.Session() as sess:
        nxt1 = tf.data.make_one_shot_iterator(one).get_next()
        assert [sess.run(nxt1) for _ in range(3)] == [b"s1r0", b"s1r1", b"s1r2"]


# ------------------------------------------------------------------------------------------
# tf.config: a CPU split into virtual CPUs gives a session made without a config that many
# ------------------------------------------------------------------------------------------

def test_virtual_cpus_are_the_devices_of_a_session_without_config():
    cpu = tf.config.experimental.list_physical_devices("CPU")[0]
    vdc = tf.config.experimental.VirtualDeviceConfiguration
    tf.config.experimental.set_virtual_device_configuration(cpu, [vdc(), vdc()])
    try:
        names = [d.name for d in tf.config.experimental.list_logical_devices("CPU")]
        assert names == ["/job:localhost/replica:0/task:0/device:CPU:0",
                         "/job:localhost/replica:0/task:0/device:CPU:1"]  # as TF 1.15
        with tf.device("/cpu:1"):
            x = tf.constant(2.0) * 3.0
        with tf.Session() as sess:
            kinds = [d.name for d in sess.list_devices()]
            assert any(n.endswith("CPU:1") for n in kinds)
            assert sess.run(x) == 6.0
        # a session given its own ConfigProto keeps its device count
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 1})) as sess:
            assert not any(d.name.endswith("CPU:1") for d in sess.list_devices())
    finally:
        tf.config.experimental.set_virtual_device_configuration(cpu, None)
    assert [d.name for d in tf.config.experimental.list_logical_devices("CPU")] == [
        "/job:localhost/replica:0/task:0/device:CPU:0"]


class _TwoInputs(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")

    def call(self, inputs):
        return self.dense(inputs["a"]) + inputs["b"]


def _fit_two_inputs(strategy):
    with tf.Graph().as_default():
        if strategy is None:
            model = _TwoInputs()
            model.compile(tf.keras.optimizers.SGD(0.1), "mse")
        else:
            with strategy.scope():
                model = _TwoInputs()
                model.compile(tf.keras.optimizers.SGD(0.1), "mse")
        x = {"a": np.arange(8, dtype=np.float32).reshape(4, 2) / 8,
             "b": np.ones((4, 1), np.float32)}
        hist = model.fit(x, np.zeros((4, 1), np.float32), batch_size=4, epochs=2, verbose=0)
        return hist.history["loss"], tf.keras.backend.get_value(model.dense.kernel)


def test_subclassed_dict_input_model_trains_on_mirrored_replicas():
    cpu = tf.config.experimental.list_physical_devices("CPU")[0]
    vdc = tf.config.experimental.VirtualDeviceConfiguration
    tf.config.experimental.set_virtual_device_configuration(cpu, [vdc(), vdc()])
    try:
        loss1, w1 = _fit_two_inputs(None)
        loss2, w2 = _fit_two_inputs(tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"]))
    finally:
        tf.config.experimental.set_virtual_device_configuration(cpu, None)
    np.testing.assert_allclose(loss2, loss1, rtol=1e-6)
    np.testing.assert_allclose(w2, w1, rtol=1e-6)
    assert not np.allclose(w1, 1.0)


class _SelfLoss(tf.keras.Model):
    """Its loss and a metric come from its call (add_loss, add_metric), from a label input."""

    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")

    def call(self, inputs):
        pred = self.dense(inputs["x"])
        err = tf.reduce_mean(tf.square(pred - inputs["y"]))
        self.add_loss(err)
        self.add_metric(err, aggregation="mean", name="err")
        return pred


def _fit_self_loss(strategy):
    with tf.Graph().as_default():
        if strategy is None:
            model = _SelfLoss()
            model.compile(tf.keras.optimizers.SGD(0.05))
        else:
            with strategy.scope():
                model = _SelfLoss()
                model.compile(tf.keras.optimizers.SGD(0.05))
        x = {"x": np.arange(8, dtype=np.float32).reshape(4, 2) / 4,
             "y": np.array([[0.5], [1.0], [1.5], [2.0]], np.float32)}
        hist = model.fit(x, batch_size=4, epochs=3, verbose=0).history
        return hist["loss"], hist["err"], tf.keras.backend.get_value(model.dense.kernel)


def test_call_added_loss_and_metric_train_the_same_on_mirrored_replicas():
    cpu = tf.config.experimental.list_physical_devices("CPU")[0]
    vdc = tf.config.experimental.VirtualDeviceConfiguration
    tf.config.experimental.set_virtual_device_configuration(cpu, [vdc(), vdc()])
    try:
        one = _fit_self_loss(None)
        two = _fit_self_loss(tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"]))
    finally:
        tf.config.experimental.set_virtual_device_configuration(cpu, None)
    for a, b in zip(one, two):
        np.testing.assert_allclose(b, a, rtol=1e-5)
    np.testing.assert_allclose(one[0], one[1], rtol=1e-6)  # loss == its add_metric mean
    assert one[0][2] < one[0][0]


# ------------------------------------------------------------------------------------------
# Keras functional models through plain TF ops (TF 1.15's TensorFlowOpLayer)
# ------------------------------------------------------------------------------------------

def _op_model():
    a = tf.keras.Input((3,), name="a")
    b = tf.keras.Input((3,), name="b")
    h = tf.keras.layers.Dense(2, kernel_initializer="ones", name="d")(a * 2.0 + b)
    out = tf.reduce_sum(h, axis=1, keepdims=True) + tf.constant(1.0)
    return tf.keras.Model([a, b], out)


def test_functional_model_maps_through_tf_ops_on_keras_tensors():
    model = _op_model()
    names = [layer.name for layer in model.layers]
    assert {"tf_op_layer_mul", "tf_op_layer_add", "tf_op_layer_Sum",
            "tf_op_layer_add_1", "d"} <= set(names)
    xa = np.ones((2, 3), np.float32)
    xb = np.arange(6, dtype=np.float32).reshape(2, 3)
    # 2 units of sum(2a + b), summed, plus 1
    want = [[19.0], [37.0]]
    np.testing.assert_allclose(model.predict([xa, xb]), want)
    again = model([tf.constant(xa), tf.constant(xb)])  # the ops are made again on new inputs
    assert again.op.type == "AddV2" or again.op.type == "Add"
    np.testing.assert_allclose(_run(again), want)


def test_functional_model_through_tf_ops_trains_and_stays_disconnected_when_it_is():
    model = _op_model()
    model.compile(tf.keras.optimizers.SGD(0.001), "mse")
    xa = np.ones((4, 3), np.float32)
    xb = np.ones((4, 3), np.float32)
    hist = model.fit([xa, xb], np.zeros((4, 1), np.float32), epochs=2, verbose=0).history
    assert hist["loss"][1] < hist["loss"][0]
    a = tf.keras.Input((3,))
    other = tf.keras.Input((3,))
    with pytest.raises(ValueError, match="Graph disconnected"):
        tf.keras.Model(a, a * 2.0 + other)
