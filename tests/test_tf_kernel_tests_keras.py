"""tf.keras behaviours that TF 1.15's own keras tests (layers/core_test and friends) rely on,
checked on tideflow in graph mode: masks attached to layer outputs as ``_keras_mask``, the
Lambda layer's mask / output_shape / config / variable handling, Layer.compute_output_signature,
and Dense casting integer inputs to its dtype. Expected values are worked out by hand or with
NumPy."""

import numpy as np
import pytest

import tideflow as tf

keras = tf.keras
K = keras.backend


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_masking_output_carries_keras_mask():
    x = np.ones((4, 3), np.float32)
    x[1] = 2.0
    y = keras.layers.Masking(2.0)(x)
    assert y._keras_mask is not None
    np.testing.assert_array_equal(K.get_value(y._keras_mask), [True, False, True, True])


def test_plain_tensor_has_no_keras_mask():
    assert not hasattr(tf.ones((2, 2)), "_keras_mask")


def test_mask_passed_positionally_reaches_compute_mask():
    class Flagger(keras.layers.Layer):
        def call(self, inputs, mask=None):
            return inputs

        def compute_mask(self, inputs, mask=None):
            return tf.constant(7.0) if mask is not None else tf.constant(-1.0)

    y = Flagger()(tf.ones((2, 2)), tf.ones((2, 2)))
    assert K.get_value(y._keras_mask) == 7.0
    z = Flagger()(tf.ones((2, 2)))
    assert K.get_value(z._keras_mask) == -1.0


def test_lambda_mask_callable_and_config_round_trip():
    layer = keras.layers.Lambda(lambda t: t * 3.0, mask=lambda inputs, m: m)
    x = np.full([2, 3, 2], 5.0, np.float32)
    x[:, 0, :] = 0.0
    out = layer(keras.layers.Masking()(x))
    np.testing.assert_allclose(K.get_value(out), x * 3.0)
    np.testing.assert_array_equal(K.get_value(out._keras_mask), [[False, True, True]] * 2)
    cfg = layer.get_config()
    assert cfg["mask_type"] == "lambda" and cfg["function_type"] == "lambda"
    assert cfg["output_shape_type"] == "raw"
    clone = keras.layers.deserialize({"class_name": "Lambda", "config": cfg})
    assert clone.function(2.0) == 6.0
    assert clone.mask(None, "m") == "m"


def test_lambda_output_shape_forms():
    fixed = keras.layers.Lambda(lambda t: t, output_shape=(None, 4))
    assert fixed.compute_output_shape((6, 4, 9)).as_list() == [6, None, 4]
    several = keras.layers.Lambda(lambda t: t, output_shape=[(3,), (7,)])
    shapes = several.compute_output_shape([(2, 5), (2, 8)])
    assert [s.as_list() for s in shapes] == [[2, 3], [2, 7]]
    fn = keras.layers.Lambda(lambda t: t, output_shape=lambda s: s)
    assert fn.get_config()["output_shape_type"] == "lambda"
    nested = keras.layers.Lambda(lambda i: (i[1]["k"], {"v": i[0]}))
    a, b = nested.compute_output_shape(((4, 2), {"k": (4, 9)}))
    assert a.as_list() == [4, 9] and b["v"].as_list() == [4, 2]


def test_compute_output_signature():
    layer = keras.layers.Lambda(lambda x: tf.matmul(x[0], x[1]), dtype=tf.float64)
    sig = layer.compute_output_signature([
        tf.TensorSpec(dtype=tf.float64, shape=(3, 4)),
        tf.TensorSpec(dtype=tf.float64, shape=(4, 6))])
    assert sig.shape.as_list() == [3, 6] and sig.dtype == tf.float64
    dense_sig = keras.layers.Dense(5).compute_output_signature(
        tf.TensorSpec(dtype=tf.float32, shape=(2, 3)))
    assert dense_sig.shape.as_list() == [2, 5] and dense_sig.dtype == tf.float32


def test_lambda_variable_made_once_and_tracked():
    layer = keras.layers.Lambda(lambda x: x * tf.Variable(3.0, name="scale"))
    for _ in range(4):
        out = layer(np.ones((2, 2), np.float32))
    assert len(layer.trainable_weights) == 1
    assert layer.trainable_weights[0].name == "lambda/scale:0"
    np.testing.assert_allclose(K.get_value(out), np.full((2, 2), 3.0))


def test_lambda_variable_trains_in_model():
    inp = keras.Input((3,))
    out = keras.layers.Lambda(lambda x: x * tf.Variable(1.0))(inp)
    model = keras.Model(inp, out)
    model.compile(keras.optimizers.SGD(0.5), "mse")
    x = np.ones((4, 3), np.float32)
    # d/dv mean((v - 2)^2) = 2 (v - 2) = -2 at v = 1: one step of lr 0.5 gives v = 2
    model.fit(x, 2 * x, batch_size=4, epochs=1, verbose=0)
    assert len(model.trainable_weights) == 1
    np.testing.assert_allclose(K.get_value(model.trainable_weights[0]), 2.0, rtol=1e-6)


def test_dense_casts_integer_inputs_to_its_dtype():
    ints = np.array([[1, 2], [3, 4]], np.int64)
    layer = keras.layers.Dense(2, dtype="float32", kernel_initializer="ones",
                               bias_initializer="zeros")
    out = layer(tf.convert_to_tensor(ints))
    assert out.dtype == tf.float32
    np.testing.assert_allclose(K.get_value(out), ints.astype(np.float32) @ np.ones((2, 2)))


class _SumCell(keras.layers.Layer):
    """A cell whose state is the running sum of ``inputs @ kernel`` (kernel all ones)."""

    def __init__(self, units, **kwargs):
        self.units = units
        self.state_size = units
        super().__init__(**kwargs)

    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel", shape=(input_shape[-1], self.units),
                                      initializer="ones")
        self.built = True

    def call(self, inputs, states):
        out = K.dot(inputs, self.kernel) + states[0]
        return out, [out]

    def get_config(self):
        config = {"units": self.units}
        config.update(super().get_config())
        return config


def test_rnn_config_carries_its_cell():
    layer = keras.layers.RNN(keras.layers.LSTMCell(3), return_sequences=True)
    cfg = layer.get_config()
    assert cfg["cell"]["class_name"] == "LSTMCell" and cfg["cell"]["config"]["units"] == 3
    clone = keras.layers.RNN.from_config(cfg)
    assert isinstance(clone.cell, keras.layers.LSTMCell) and clone.return_sequences
    # LSTM/GRU/SimpleRNN rebuild their own cell: no 'cell' entry
    assert "cell" not in keras.layers.LSTM(2).get_config()


def test_custom_cells_round_trip_through_config():
    x = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
    for cell in (_SumCell(4), [_SumCell(2), _SumCell(4)]):
        layer = keras.layers.RNN(cell)
        inp = keras.Input((3, 2))
        model = keras.Model(inp, layer(inp))
        with keras.utils.CustomObjectScope({"_SumCell": _SumCell}):
            clone = keras.Model.from_config(model.get_config())
        clone.set_weights(model.get_weights())
        np.testing.assert_allclose(clone.predict(x), model.predict(x))
    # one cell of 4 ones-kernels: the sum over time of each row's feature sum
    single = keras.Model(inp, keras.layers.RNN(_SumCell(4))(inp))
    expect = np.repeat(x.sum(axis=(1, 2))[:, None], 4, axis=1)
    np.testing.assert_allclose(single.predict(x), expect)


def test_masked_rnn_with_initial_state():
    seq = keras.Input((None, 3))
    state = keras.Input((2,))
    out = keras.layers.GRU(2)(keras.layers.Masking()(seq), initial_state=state)
    model = keras.Model([seq, state], out)
    x = np.random.RandomState(1).rand(2, 4, 3).astype(np.float32)
    x[:, 2:] = 0.0  # masked tail: the result is that of the first two steps
    s0 = np.full((2, 2), 0.5, np.float32)
    np.testing.assert_allclose(model.predict([x, s0]), model.predict([x[:, :2], s0]),
                               rtol=1e-5)


def test_simple_rnn_drops_implementation_argument():
    layer = keras.layers.SimpleRNN(3, implementation=2)
    assert "implementation" not in layer.get_config()
    assert layer(keras.Input((4, 5))).shape.as_list() == [None, 3]


def test_conv_padding_and_cropping_errors():
    with pytest.raises(ValueError, match="Causal padding is only supported for `Conv1D`"):
        keras.layers.Conv2D(2, 3, padding="causal")
    assert keras.layers.Conv1D(2, 3, padding="causal")(
        keras.Input((6, 2))).shape.as_list() == [None, 6, 2]
    with pytest.raises(ValueError, match="The channel dimension of the inputs should be "
                                         "defined. Found `None`"):
        keras.layers.Conv2D(2, 3)(keras.Input((5, 5, None)))
    with pytest.raises(ValueError, match="`cropping` argument must be a tuple of 2 integers"):
        keras.layers.Cropping1D((1, 1, 1))
    assert keras.layers.Cropping1D(2).cropping == (2, 2)


def test_loss_refuses_unknown_reduction():
    with pytest.raises(ValueError, match="Invalid Reduction Key foo"):
        keras.losses.MeanSquaredError(reduction="foo")
    assert set(keras.losses.Reduction.all()) == {"auto", "none", "sum",
                                                  "sum_over_batch_size"}
    loss = keras.losses.MeanAbsoluteError(reduction=keras.losses.Reduction.SUM)
    # per-sample means 0.5 and 1.5, summed
    value = loss(np.array([[0.0, 1.0], [2.0, 2.0]], np.float32),
                 np.array([[0.0, 0.0], [0.5, 0.5]], np.float32))
    np.testing.assert_allclose(K.get_value(value), 2.0)


def test_backend_sparse_placeholder():
    sp = K.placeholder(shape=(2, 3), sparse=True)
    assert K.is_sparse(sp)
    dense = K.to_dense(sp)
    value = tf.SparseTensorValue(indices=[[0, 1], [1, 2]], values=[5.0, -1.0],
                                 dense_shape=[2, 3])
    with tf.Session() as sess:
        out = sess.run(dense, {sp: value})
    np.testing.assert_allclose(out, [[0.0, 5.0, 0.0], [0.0, 0.0, -1.0]])
    assert K.is_sparse(K.placeholder(ndim=2, sparse=True))


@pytest.mark.parametrize("make, keys", [
    (lambda r, c: keras.layers.LSTM(2, kernel_regularizer=r, recurrent_constraint=c,
                                    activity_regularizer=r),
     ("kernel_regularizer", "recurrent_constraint", "activity_regularizer")),
    (lambda r, c: keras.layers.GRUCell(2, bias_regularizer=r, kernel_constraint=c),
     ("bias_regularizer", "kernel_constraint")),
    (lambda r, c: keras.layers.BatchNormalization(gamma_regularizer=r, beta_constraint=c),
     ("gamma_regularizer", "beta_constraint")),
    (lambda r, c: keras.layers.LayerNormalization(beta_regularizer=r, gamma_constraint=c),
     ("beta_regularizer", "gamma_constraint")),
    (lambda r, c: keras.layers.Embedding(5, 2, embeddings_regularizer=r,
                                         embeddings_constraint=c, activity_regularizer=r),
     ("embeddings_regularizer", "embeddings_constraint", "activity_regularizer")),
    (lambda r, c: keras.layers.Conv2D(2, 3, activity_regularizer=r, kernel_constraint=c),
     ("activity_regularizer", "kernel_constraint")),
    (lambda r, c: keras.layers.SeparableConv2D(2, 3, depthwise_regularizer=r,
                                               pointwise_constraint=c),
     ("depthwise_regularizer", "pointwise_constraint")),
])
def test_configs_keep_regularizers_and_constraints(make, keys):
    layer = make(keras.regularizers.l2(0.25), keras.constraints.max_norm(3.0))
    config = layer.get_config()
    for key in keys:
        assert config[key] is not None, key
    clone = type(layer).from_config(config)
    for key in keys:
        assert clone.get_config()[key] == config[key], key


def test_layer_normalization_applies_its_constraint_and_config():
    layer = keras.layers.LayerNormalization(gamma_initializer="zeros",
                                            gamma_constraint=keras.constraints.NonNeg())
    layer(keras.Input((3,)))
    assert layer.gamma.constraint is layer.gamma_constraint
    assert layer.get_config()["gamma_initializer"]["class_name"] == "Zeros"


def test_lstm_activity_regularizer_survives_clone():
    inp = keras.Input((3, 2))
    reg = keras.regularizers.l2(0.5)
    model = keras.Model(inp, keras.layers.LSTM(2, activity_regularizer=reg,
                                               kernel_regularizer=reg)(inp))
    assert len(model.losses) == 2
    assert len(keras.models.clone_model(model).losses) == 2


class _Recorder(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.events = []

    def on_test_begin(self, logs=None):
        self.events.append("test_begin")

    def on_test_batch_end(self, batch, logs=None):
        self.events.append(("test_batch", batch, logs["size"], round(logs["loss"], 6)))

    def on_test_end(self, logs=None):
        self.events.append("test_end")

    def on_predict_batch_end(self, batch, logs=None):
        self.events.append(("predict_batch", batch, logs["size"], logs["outputs"][0].shape))

    def on_predict_end(self, logs=None):
        self.events.append("predict_end")


def _ones_model():
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(1,), use_bias=False,
                                                 kernel_initializer="zeros")])
    model.compile(keras.optimizers.SGD(0.0), "mse")
    return model


def test_evaluate_and_predict_call_their_callbacks():
    model = _ones_model()
    rec = _Recorder()
    x = np.ones((5, 1), np.float32)
    # the model outputs 0: each batch's mse against targets of 2 is 4
    model.evaluate(x, 2 * x, batch_size=2, callbacks=[rec], verbose=0)
    assert rec.events == ["test_begin", ("test_batch", 0, 2, 4.0), ("test_batch", 1, 2, 4.0),
                          ("test_batch", 2, 1, 4.0), "test_end"]
    rec.events.clear()
    model.predict(x, batch_size=3, callbacks=[rec])
    assert rec.events == [("predict_batch", 0, 3, (3, 1)), ("predict_batch", 1, 2, (2, 1)),
                          "predict_end"]


def test_fit_validation_runs_test_hooks():
    model = _ones_model()
    rec = _Recorder()
    x = np.ones((4, 1), np.float32)
    model.fit(x, x, batch_size=4, epochs=2, validation_data=(x, 3 * x), callbacks=[rec],
              verbose=0)
    one_pass = ["test_begin", ("test_batch", 0, 4, 9.0), "test_end"]
    assert rec.events == one_pass * 2


def test_batch_norm_ghost_batches_normalize_each_virtual_batch():
    x = np.random.RandomState(3).rand(6, 4).astype(np.float32) * 5
    layer = keras.layers.BatchNormalization(virtual_batch_size=3, epsilon=1e-3)
    out = layer(tf.constant(x), training=True)
    # [6, 4] -> [3, 2, 4]: virtual batch j holds rows j and j + 2 and j + 4
    ghost = x.reshape(3, 2, 4)
    mean = ghost.mean(axis=0, keepdims=True)
    var = ghost.var(axis=0, keepdims=True)
    expect = ((ghost - mean) / np.sqrt(var + 1e-3)).reshape(6, 4)
    np.testing.assert_allclose(K.get_value(out), expect, rtol=1e-4, atol=1e-5)
    config = layer.get_config()
    assert config["virtual_batch_size"] == 3 and config["axis"] == -1
    assert "renorm" not in config
    clone = keras.layers.BatchNormalization.from_config(config)
    assert clone(tf.constant(x), training=True).shape.as_list() == [6, 4]


def test_batch_norm_renorm_weights_config_and_inference():
    layer = keras.layers.BatchNormalization(renorm=True, renorm_momentum=0.9,
                                            renorm_clipping={"rmax": 2.0})
    x = np.random.RandomState(4).rand(5, 3).astype(np.float32)
    out = layer(tf.constant(x), training=False)
    names = sorted(w.name for w in layer.weights)
    assert "batch_normalization/renorm_mean:0" in names
    assert "batch_normalization/renorm_stddev:0" in names
    # freshly built: moving mean 0, variance 1, so inference is x / sqrt(1 + eps)
    np.testing.assert_allclose(K.get_value(out), x / np.sqrt(1.0 + 1e-3), rtol=1e-5)
    config = layer.get_config()
    assert config["renorm"] and config["renorm_momentum"] == 0.9
    assert config["renorm_clipping"] == {"rmax": 2.0}
    assert keras.layers.BatchNormalization.from_config(config).renorm


def test_batch_norm_argument_errors():
    with pytest.raises(ValueError, match="virtual_batch_size must be a positive integer"):
        keras.layers.BatchNormalization(virtual_batch_size=0)
    with pytest.raises(ValueError, match="contains keys not in"):
        keras.layers.BatchNormalization(renorm=True, renorm_clipping={"rmid": 1.0})
    with pytest.raises(ValueError, match="Invalid axis: 3"):
        keras.layers.BatchNormalization(axis=3)(keras.Input((3, 4)))


def test_bidirectional_over_generic_rnn_round_trips():
    inp = keras.Input((3, 4))
    layer = keras.layers.Bidirectional(keras.layers.RNN(keras.layers.SimpleRNNCell(2)),
                                       merge_mode="sum")
    model = keras.Model(inp, layer(inp))
    clone = keras.Model.from_config(model.get_config())
    clone.set_weights(model.get_weights())
    x = np.random.RandomState(5).rand(2, 3, 4).astype(np.float32)
    np.testing.assert_allclose(clone.predict(x), model.predict(x), rtol=1e-5)


def test_bidirectional_backward_layer_travels_in_config():
    inp = keras.Input((3, 4))
    layer = keras.layers.Bidirectional(keras.layers.GRU(2),
                                       backward_layer=keras.layers.GRU(3, go_backwards=True))
    out = layer(inp)
    assert out.shape.as_list() == [None, 5]  # concat of 2 forward and 3 backward units
    config = layer.get_config()
    assert config["backward_layer"]["class_name"] == "GRU"
    assert config["backward_layer"]["config"]["units"] == 3
    clone = keras.layers.Bidirectional.from_config(config)
    assert clone.backward_layer.units == 3 and clone.backward_layer.go_backwards
    assert "backward_layer" not in keras.layers.Bidirectional(keras.layers.GRU(2)).get_config()


def test_sequential_accepts_an_input_tensor_and_a_single_layer():
    model = keras.Sequential()
    model.add(keras.Input(shape=(2,), name="first_in"))
    model.add(keras.layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros"))
    assert len(model.layers) == 1 and len(model.weights) == 2
    np.testing.assert_allclose(model.predict(np.array([[1.0, 2.0]])), [[3.0]])
    assert len(keras.Sequential(keras.layers.Dense(1)).layers) == 1


def test_sequential_multi_output_layer_errors():
    class Twice(keras.layers.Layer):
        def call(self, inputs):
            return [inputs, 2 * inputs]

        def compute_output_shape(self, input_shape):
            return [input_shape, input_shape]

    with pytest.raises(ValueError, match="should have a single output tensor"):
        keras.Sequential([Twice(input_shape=(3,))])
    model = keras.Sequential([keras.layers.Dense(1, input_dim=1)])
    with pytest.raises(TypeError, match="should have a single output tensor"):
        model.add(Twice())


def test_sequential_pop_to_empty_and_rebuild():
    model = keras.Sequential([keras.layers.Dense(4, input_dim=3)])
    model.pop()
    assert model.layers == [] and model.outputs is None and model.inputs is None
    assert not model.built
    model.add(keras.layers.Dense(2, input_dim=5))
    assert model.predict(np.ones((1, 5))).shape == (1, 2)


def test_sequential_deferred_build_config_and_output_shape():
    model = keras.Sequential([keras.layers.Dense(4), keras.layers.Dense(6)])
    assert model.compute_output_shape((None, 7)).as_list() == [None, 6]
    model.compile("sgd", "mse")
    model.train_on_batch(np.ones((2, 3)), np.ones((2, 6)))
    config = model.get_config()
    assert tuple(config["build_input_shape"]) == (None, 3)
    clone = keras.Sequential.from_config(config)
    assert len(clone.weights) == 4


def test_untrainable_model_trains_without_changes():
    model = keras.Sequential([keras.layers.BatchNormalization(input_shape=(4,))])
    model.trainable = False
    model.compile("sgd", "mse")
    x = np.random.RandomState(6).rand(10, 4).astype(np.float32)
    before = model.predict(x)
    loss = model.train_on_batch(x, np.zeros_like(x))
    # TF 1.x (v1 behaviour): a frozen BatchNormalization still normalizes a training batch
    # with the batch's statistics, but neither its weights nor its moving statistics move
    normed = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3)
    np.testing.assert_allclose(loss, np.mean(normed ** 2), rtol=1e-4)
    np.testing.assert_allclose(model.predict(x), before)


@pytest.mark.parametrize("deferred", [True, False])
def test_training_methods_take_symbolic_data(deferred):
    def make():
        first = keras.layers.Dense(2, kernel_initializer="zeros", bias_initializer="zeros",
                                   **({} if deferred else {"input_dim": 3}))
        model = keras.Sequential([first])
        model.compile(keras.optimizers.SGD(0.0), "mse")
        return model

    x = K.zeros((10, 3))
    y = K.ones((10, 2))
    # outputs are 0 (zero weights, no learning), targets 1: every loss is exactly 1
    history = make().fit(x, y, epochs=2, steps_per_epoch=3, verbose=0)
    np.testing.assert_allclose(history.history["loss"], [1.0, 1.0])
    np.testing.assert_allclose(make().evaluate(x, y, steps=2, verbose=0), 1.0)
    np.testing.assert_allclose(make().train_on_batch(x, y), 1.0)
    np.testing.assert_allclose(make().test_on_batch(x, y), 1.0)
    assert make().predict_on_batch(x).shape == (10, 2)
    history = make().fit(x, y, epochs=1, steps_per_epoch=2, verbose=0,
                         validation_data=(x, y), validation_steps=2)
    np.testing.assert_allclose(history.history["val_loss"], [1.0])


def test_loss_weights_checked_against_outputs():
    inp = keras.Input((3,))
    hidden = keras.layers.Dense(4)(inp)
    model = keras.Model(inp, [keras.layers.Dense(2, name="first")(hidden),
                              keras.layers.Dense(1, name="second")(hidden)])
    with pytest.raises(ValueError, match="one entry per model output. The model has 2 "
                                         "outputs"):
        model.compile("sgd", "mse", loss_weights=[1.0])
    with pytest.raises(ValueError, match=r"Unknown entries in loss_weights dictionary: "
                                         r"\['third'\]"):
        model.compile("sgd", "mse", loss_weights={"third": 1.0})
    with pytest.raises(TypeError, match="Could not interpret loss_weights argument"):
        model.compile("sgd", "mse", loss_weights=2.0)
    model.compile("sgd", "mse", loss_weights={"second": 0.5})


def test_fit_on_a_dataset_refuses_batch_size_and_validation_split():
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(3,))])
    model.compile("sgd", "mse")
    ds = tf.data.Dataset.from_tensor_slices(
        (np.ones((8, 3), np.float32), np.ones((8, 1), np.float32))).batch(2).repeat()
    with pytest.raises(ValueError, match="`batch_size` argument must not be specified"):
        model.fit(ds, batch_size=2, steps_per_epoch=2, verbose=0)
    with pytest.raises(ValueError, match="`validation_split` argument is not supported"):
        model.fit(ds, validation_split=0.5, steps_per_epoch=2, verbose=0)
    assert len(model.fit(ds, steps_per_epoch=2, verbose=0).history["loss"]) == 1
