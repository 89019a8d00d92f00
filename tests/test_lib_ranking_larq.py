"""What running TensorFlow Ranking 0.1.6 (estimator learning-to-rank) and Larq 0.8.3
(binarized Keras layers, the Bop and case optimizers) on tideflow needed, pinned with the plain
TF 1.x calls those libraries make."""

import inspect

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _run(fetches):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches)


# ------------------------------------------------------------------------------------------
# Keras metrics: TF 1.15's Metric.add_weight, and the metric objects a layer added
# ------------------------------------------------------------------------------------------

class _LastValues(tf.keras.metrics.Metric):
    """Counts the calls whose values differ from the previous call's."""

    def __init__(self, n, name="last_values", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.prev = self.add_weight("prev", shape=(n,), dtype="int32",
                                    initializer=tf.keras.initializers.zeros,
                                    aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA)
        self.changes = self.add_weight("changes", initializer="zeros",
                                       synchronization=tf.VariableSynchronization.ON_READ)

    def update_state(self, values):
        values = tf.cast(values, "int32")
        changed = tf.cast(tf.reduce_any(tf.not_equal(values, self.prev)), self.dtype)
        with tf.control_dependencies([tf.assign_add(self.changes, changed)]):
            return tf.assign(self.prev, values)

    def result(self):
        return tf.identity(self.changes)


def test_metric_add_weight_takes_aggregation_and_an_initializer_class():
    m = _LastValues(2)
    ups = [m.update_state(tf.constant(v)) for v in ([0, 0], [1, 2], [1, 2], [3, 2])]
    with tf.Session() as sess:
        # (TF 1.15 puts a metric's variables in no collection)
        sess.run(tf.variables_initializer(m.variables))
        for u in ups:
            sess.run(u)
        assert sess.run(m.result()) == 2.0
        np.testing.assert_array_equal(sess.run(m.prev), [3, 2])
    assert m.prev.dtype.base_dtype == tf.int32


def test_metric_add_weight_without_initializer_is_glorot_for_floats():
    class M(tf.keras.metrics.Metric):
        def __init__(self):
            super().__init__(name="m")
            self.w = self.add_weight("w", shape=(20, 30))
            self.k = self.add_weight("k", shape=(4,), dtype="int64")

    m = M()
    with tf.Session() as sess:
        sess.run(tf.variables_initializer(m.variables))
        w, k = sess.run([m.w, m.k])
    limit = np.sqrt(6.0 / 50)
    assert np.all(np.abs(w) <= limit) and np.std(w) > 0.05
    np.testing.assert_array_equal(k, np.zeros(4))


class _Flips(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.mean_in = tf.keras.metrics.Mean(name="mean_in")
        super().build(input_shape)

    def call(self, x):
        self.add_metric(self.mean_in(x))
        return x


def test_layer_and_model_metrics_list_the_metric_objects():
    inp = tf.keras.layers.Input((3,))
    flips = _Flips()
    out = tf.keras.layers.Dense(2)(flips(inp))
    model = tf.keras.models.Model(inp, out)
    assert flips.metrics == [flips.mean_in]
    assert model.layers[2].metrics == []
    assert [m.name for m in model.metrics] == ["mean_in"]
    mse = tf.keras.metrics.MeanSquaredError()
    model.compile("sgd", "mse", metrics=[mse])
    model.fit(np.ones((4, 3)), np.zeros((4, 2)), verbose=0)
    assert model.metrics == [mse, flips.mean_in]


# ------------------------------------------------------------------------------------------
# Keras layers: TF 1.15's full signatures (positional arguments land where TF puts them)
# ------------------------------------------------------------------------------------------

def test_conv_transpose_and_locally_connected_signatures():
    conv2d_t = list(inspect.signature(tf.keras.layers.Conv2DTranspose).parameters)
    assert conv2d_t[:9] == ["filters", "kernel_size", "strides", "padding", "output_padding",
                            "data_format", "dilation_rate", "activation", "use_bias"]
    conv3d_t = list(inspect.signature(tf.keras.layers.Conv3DTranspose).parameters)
    assert conv3d_t[6:8] == ["activation", "use_bias"]
    assert "bias_constraint" in conv3d_t
    lc2 = inspect.signature(tf.keras.layers.LocallyConnected2D).parameters
    assert lc2["strides"].default == (1, 1)
    assert inspect.signature(tf.keras.layers.LocallyConnected1D).parameters[
        "strides"].default == 1

    layer = tf.keras.layers.Conv2DTranspose(3, 2, (2, 2), "valid", None, None, (1, 1), "relu",
                                            False)
    y = layer(tf.ones([1, 2, 2, 1]))
    assert layer.activation is tf.keras.activations.relu and not layer.use_bias
    assert y.get_shape().as_list() == [1, 4, 4, 3]
    assert layer.get_config()["activation"] == "relu"
    layer3 = tf.keras.layers.Conv3DTranspose(2, 2, (1, 1, 1), "valid", None, None, "tanh",
                                             use_bias=False)
    assert layer3.activation is tf.keras.activations.tanh
    assert layer3(tf.ones([1, 2, 2, 2, 1])).get_shape().as_list() == [1, 3, 3, 3, 2]


# ------------------------------------------------------------------------------------------
# Keras optimizers: subclasses in OptimizerV2's style (larq's Bop and CaseOptimizer)
# ------------------------------------------------------------------------------------------

class _SignStep(tf.keras.optimizers.Optimizer):
    """var -= rate * sign(grad); the rate may be a schedule of the step."""

    def __init__(self, rate=0.1, name="SignStep", **kwargs):
        super().__init__(name=name, **kwargs)
        self._set_hyper("rate", rate)

    def _resource_apply_dense(self, grad, var):
        rate = self._get_hyper("rate", var.dtype.base_dtype)
        if isinstance(rate, tf.keras.optimizers.schedules.LearningRateSchedule):
            rate = tf.cast(rate(tf.cast(self.iterations, tf.float32)), var.dtype.base_dtype)
        return tf.assign_sub(var, rate * tf.sign(grad)).op

    def get_config(self):
        config = {"rate": self._serialize_hyperparameter("rate")}
        return {**super().get_config(), **config}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        if isinstance(config.get("rate"), dict):
            config["rate"] = tf.keras.optimizers.schedules.deserialize(
                config["rate"], custom_objects=custom_objects)
        return cls(**config)


class _Split(tf.keras.optimizers.Optimizer):
    """Kernels to one optimizer, everything else to another (its own ``weights`` and
    ``apply_gradients``, no learning rate of its own)."""

    def __init__(self, kernels, others, name="Split"):
        super().__init__(name=name)
        self.parts = [kernels, others]

    @property
    def weights(self):
        return [w for opt in self.parts for w in opt.weights]

    def apply_gradients(self, grads_and_vars, name=None):
        grads_and_vars = list(grads_and_vars)
        groups = [[(g, v) for g, v in grads_and_vars if "kernel" in v.name],
                  [(g, v) for g, v in grads_and_vars if "kernel" not in v.name]]
        return tf.group(*[opt.apply_gradients(gv) for opt, gv in zip(self.parts, groups)])

    def get_config(self):
        return {**super().get_config(),
                "parts": [tf.keras.optimizers.serialize(o) for o in self.parts]}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        parts = [tf.keras.optimizers.deserialize(c, custom_objects=custom_objects)
                 for c in config.pop("parts")]
        return cls(*parts, **config)


def test_optimizer_subclass_may_override_weights_and_apply_gradients():
    opt = _Split(_SignStep(0.5), tf.keras.optimizers.SGD(0.0))
    assert opt.weights == [] and opt.variables() == []
    model = tf.keras.models.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    model.compile(opt, "mse")
    k0 = tf.keras.backend.get_value(model.layers[0].kernel)
    model.fit(np.ones((4, 2)), np.full((4, 1), 100.0), batch_size=4, epochs=2, verbose=0)
    np.testing.assert_allclose(tf.keras.backend.get_value(model.layers[0].kernel), k0 + 1.0,
                               rtol=1e-6)
    np.testing.assert_allclose(tf.keras.backend.get_value(model.layers[0].bias), [0.0])
    assert len(opt.weights) == 2  # each part's iterations (neither has slots)
    assert [tf.keras.backend.get_value(w) for w in opt.weights] == [2, 2]


def test_optimizer_apply_gradients_of_no_variables_counts_the_step():
    opt = tf.keras.optimizers.Adam(0.1)
    step = opt.apply_gradients([])
    assert isinstance(step, tf.Operation)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step)
        sess.run(step)
        assert sess.run(opt.iterations) == 2
    v = tf.Variable(1.0)
    with pytest.raises(ValueError, match="No gradients provided"):
        opt.apply_gradients([(None, v)])


def test_optimizer_hyper_schedule_is_returned_as_is():
    sched = tf.keras.optimizers.schedules.InverseTimeDecay(1.0, decay_steps=1.0,
                                                           decay_rate=1.0)
    opt = _SignStep(sched)
    assert opt._get_hyper("rate") is sched
    assert opt._get_hyper("rate", tf.float32) is sched
    v = tf.Variable([1.0, -1.0])
    loss = tf.reduce_sum(v * tf.constant([1.0, -1.0]))
    train = opt.minimize(loss, [v])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)  # rate 1 / (1 + 0)
        sess.run(train)  # rate 1 / (1 + 1)
        np.testing.assert_allclose(sess.run(v), [-0.5, 0.5])


def test_schedules_serialize_and_deserialize():
    sched = tf.keras.optimizers.schedules.PolynomialDecay(0.5, 100, end_learning_rate=0.1)
    config = tf.keras.optimizers.schedules.serialize(sched)
    assert config["class_name"] == "PolynomialDecay"
    back = tf.keras.optimizers.schedules.deserialize(config)
    assert isinstance(back, tf.keras.optimizers.schedules.PolynomialDecay)
    assert back.get_config() == sched.get_config()
    with pytest.raises(ValueError, match="Unknown"):
        tf.keras.optimizers.schedules.deserialize({"class_name": "Nope", "config": {}})


def test_optimizers_deserialize_uses_from_config_and_registered_objects():
    tf.keras.utils.get_custom_objects().update({"_Split": _Split, "_SignStep": _SignStep})
    try:
        sched = tf.keras.optimizers.schedules.ExponentialDecay(0.3, 10, 0.5)
        opt = _Split(_SignStep(sched), tf.keras.optimizers.Adam(0.01))
        config = tf.keras.optimizers.serialize(opt)
        assert config["config"]["name"] == "Split"
        assert "learning_rate" not in config["config"]  # (no learning rate of its own)
        back = tf.keras.optimizers.deserialize(config)
        assert isinstance(back, _Split) and isinstance(back.parts[0], _SignStep)
        assert isinstance(back.parts[0]._get_hyper("rate"),
                          tf.keras.optimizers.schedules.ExponentialDecay)
        assert tf.keras.optimizers.serialize(back) == config
    finally:
        for key in ("_Split", "_SignStep"):
            tf.keras.utils.get_custom_objects().pop(key)


# ------------------------------------------------------------------------------------------
# parse_sequence_example: TF 1.15's batch (fast) parser words its errors its own way
# ------------------------------------------------------------------------------------------

def _sequence_example(steps):
    se = tf.train.SequenceExample()
    frames = se.feature_lists.feature_list["score"].feature
    for values in steps:
        frame = frames.add()
        if values:
            frame.float_list.value.extend(values)
    return se.SerializeToString()


def test_parse_sequence_example_step_of_wrong_size_is_the_batch_parser_error():
    spec = {"score": tf.io.FixedLenSequenceFeature([1], tf.float32, allow_missing=True)}
    good = _sequence_example([[0.5], [2.0]])
    bad = _sequence_example([[0.5], []])
    _, lists, lengths = tf.io.parse_sequence_example([good, _sequence_example([[1.0]])],
                                                     sequence_features=spec)
    _, bad_lists, _ = tf.io.parse_sequence_example([good, bad], sequence_features=spec)
    _, single = tf.io.parse_single_sequence_example(bad, sequence_features=spec)
    with tf.Session() as sess:
        got, n = sess.run((lists["score"], lengths["score"]))
        np.testing.assert_allclose(got, [[[0.5], [2.0]], [[1.0], [0.0]]])
        np.testing.assert_array_equal(n, [2, 1])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^Unexpected number of elements in feature score, "
                                 r"example <unknown>"):
            sess.run(bad_lists["score"])
        # the one-example op keeps its own words
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Key: score, Index: 1.  Number of float values != expected"):
            sess.run(single["score"])


def test_parse_sequence_example_missing_required_list_is_the_batch_parser_error():
    spec = {"score": tf.io.FixedLenSequenceFeature([1], tf.float32)}
    other = tf.train.SequenceExample()
    other.feature_lists.feature_list["other"].feature.add().float_list.value.append(1.0)
    _, lists, _ = tf.io.parse_sequence_example([other.SerializeToString()],
                                               sequence_features=spec,
                                               example_names=["q7"])
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                             match=r"^Missing feature score in example q7"):
        sess.run(lists["score"])


# ------------------------------------------------------------------------------------------
# tf.layers take an activation by name, as TF 1.15's (Keras layers underneath)
# ------------------------------------------------------------------------------------------

def test_tf_layers_take_an_activation_by_name():
    x = tf.constant([[-2.0, 1.0], [0.5, -0.5]])
    dense = tf.layers.Dense(2, activation="relu", kernel_initializer=tf.ones_initializer())
    y = dense(x)
    assert dense.activation is tf.keras.activations.relu
    z = tf.layers.dense(x, 3, activation="softmax", kernel_initializer=tf.ones_initializer())
    img = tf.reshape(tf.range(16, dtype=tf.float32), [1, 4, 4, 1]) - 8.0
    c = tf.layers.conv2d(img, 1, 2, activation="tanh", kernel_initializer=tf.ones_initializer())
    c1 = tf.layers.conv1d(img[:, 0], 2, 2, activation="sigmoid",
                          kernel_initializer=tf.ones_initializer())
    with pytest.raises(ValueError, match="Unknown activation function"):
        tf.layers.dense(x, 2, activation="no_such")
    got_y, got_z, got_c, got_c1 = _run([y, z, c, c1])
    np.testing.assert_allclose(got_y, [[0.0, 0.0], [0.0, 0.0]])
    np.testing.assert_allclose(got_z, np.full((2, 3), 1 / 3), rtol=1e-6)
    sums = np.array([[0, 1, 2, 4, 5, 6, 8, 9, 10]], np.float32).reshape(1, 3, 3, 1) * 4 + 10 - 32
    np.testing.assert_allclose(got_c, np.tanh(sums), rtol=1e-5)
    np.testing.assert_allclose(got_c1, 1 / (1 + np.exp(-np.array(
        [[[-15.0] * 2, [-13.0] * 2, [-11.0] * 2]]))), rtol=1e-5)


def _context_example(**features):
    se = tf.train.SequenceExample()
    for key, values in features.items():
        feature = se.context.feature[key]
        if values and isinstance(values[0], float):
            feature.float_list.value.extend(values)
        else:
            feature.int64_list.value.extend(values)
    frames = se.feature_lists.feature_list["score"].feature
    frames.add().float_list.value.append(1.0)
    return se.SerializeToString()


@pytest.mark.parametrize("records, spec, message", [
    ([{"qlen": [1, 2]}], {"qlen": tf.io.FixedLenFeature([1], tf.int64)},
     "Inconsistent number of elements for feature qlen: 2 vs 1"),
    ([{"qlen": [1]}, {}], {"qlen": tf.io.FixedLenFeature([1], tf.int64)},
     r"Feature: qlen \(data type: int64\) is required but could not be found."),
    ([{"qlen": [1]}, {"qlen": []}], {"qlen": tf.io.FixedLenFeature([1], tf.int64)},
     "Unexpected number of elements in example <unknown>"),
    ([{"qlen": [1.5]}], {"qlen": tf.io.FixedLenFeature([1], tf.int64)},
     "Error in context feature qlen in example <unknown>"),
])
def test_parse_sequence_example_context_errors_are_the_batch_parser_errors(records, spec,
                                                                            message):
    serialized = [_context_example(**r) for r in records]
    context, _, _ = tf.io.parse_sequence_example(serialized, context_features=spec)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                             match="^" + message):
        sess.run(context)


def test_parse_sequence_example_context_default_and_list_errors():
    spec = {"qlen": tf.io.FixedLenFeature([1], tf.int64, default_value=[7])}
    lists = {"score": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True)}
    ok, _, _ = tf.io.parse_sequence_example(
        [_context_example(qlen=[3]), _context_example()], context_features=spec)
    _, bad_shape, _ = tf.io.parse_sequence_example([_context_example()],
                                                   sequence_features=lists)
    wrong = tf.train.SequenceExample()
    wrong.feature_lists.feature_list["score"].feature.add().int64_list.value.append(1)
    _, bad_type, _ = tf.io.parse_sequence_example(
        [wrong.SerializeToString()], sequence_features={
            "score": tf.io.FixedLenSequenceFeature([1], tf.float32, allow_missing=True)})
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(ok["qlen"]), [[3], [7]])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="^Unexpected shape error in feature score"):
            sess.run(bad_shape["score"])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="^Error in sequence feature score in example <unknown>"):
            sess.run(bad_type["score"])
