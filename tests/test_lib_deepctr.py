"""Differences found by running DeepCTR 0.8 (the click-through-rate model zoo on tf.keras)
against tideflow, each reduced to the plain TF 1.x calls the library makes: Keras merge layers
on inputs of different ranks, ``add_weight`` with a single size as its shape, Lambda layers saved
to HDF5 and loaded back, and the module paths it imports
(``tensorflow.python.layers.utils.conv_output_length``,
``tensorflow.python.estimator.canned.optimizers``)."""

import os

import numpy as np
import pytest

import tideflow as tf

keras = tf.keras


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ----------------------------------------------------------------------------------------
# merge layers: a lower-rank input gets size-1 axes after the batch axis
# ----------------------------------------------------------------------------------------


def test_add_of_rank3_and_rank2_expands_after_batch_axis():
    a = keras.layers.Input(shape=(1, 1))
    b = keras.layers.Input(shape=(1,))
    out = keras.layers.Add()([a, b])
    assert out.get_shape().as_list() == [None, 1, 1]
    model = keras.models.Model([a, b], out)
    av = np.arange(5, dtype=np.float32).reshape(5, 1, 1)
    bv = np.full((5, 1), 10.0, np.float32)
    got = model.predict([av, bv])
    assert got.shape == (5, 1, 1)
    np.testing.assert_allclose(got, av + 10.0)


def test_multiply_expands_each_lower_rank_input():
    a = keras.layers.Input(shape=(3, 2))
    b = keras.layers.Input(shape=(2,))
    out = keras.layers.Multiply()([a, b])
    assert out.get_shape().as_list() == [None, 3, 2]
    model = keras.models.Model([a, b], out)
    av = np.ones((2, 3, 2), np.float32)
    bv = np.array([[2.0, 3.0], [4.0, 5.0]], np.float32)
    np.testing.assert_allclose(model.predict([av, bv]), av * bv[:, None, :])


def test_merge_compute_output_shape_broadcasts():
    layer = keras.layers.Maximum()
    shape = layer.compute_output_shape([(None, 4, 1), (7, 4, 5)])
    assert isinstance(shape, tf.TensorShape) and shape.as_list() == [7, 4, 5]
    with pytest.raises(ValueError, match="could not be broadcast"):
        keras.layers.Add().compute_output_shape([(None, 4), (None, 3)])


def test_concatenate_does_not_expand_ranks():
    a = keras.layers.Input(shape=(2, 3))
    b = keras.layers.Input(shape=(2, 4))
    out = keras.layers.Concatenate()([a, b])
    assert out.get_shape().as_list() == [None, 2, 7]


# ----------------------------------------------------------------------------------------
# add_weight(shape=<one size>)
# ----------------------------------------------------------------------------------------


class _OneSizeBias(keras.layers.Layer):
    def build(self, input_shape):
        # a Dimension (input_shape[-1]) or an int is a 1-D shape, as TF's TensorShape reads it
        self.b1 = self.add_weight(name="b1", shape=input_shape[-1],
                                  initializer=keras.initializers.Ones())
        self.b2 = self.add_weight(name="b2", shape=3, initializer="zeros")
        super().build(input_shape)

    def call(self, x):
        return x + self.b1


def test_add_weight_takes_a_single_size_as_a_1d_shape():
    x = keras.layers.Input(shape=(3,))
    layer = _OneSizeBias()
    y = layer(x)
    assert layer.b1.get_shape().as_list() == [3]
    assert layer.b2.get_shape().as_list() == [3]
    model = keras.models.Model(x, y)
    np.testing.assert_allclose(model.predict(np.zeros((2, 3), np.float32)), np.ones((2, 3)))


# ----------------------------------------------------------------------------------------
# Lambda layers in a saved model
# ----------------------------------------------------------------------------------------


def _scale_by_three(x):
    return x * 3.0


def test_lambda_layer_saved_and_loaded_from_hdf5(tmp_path):
    x = keras.layers.Input(shape=(2, 2))
    offset = 5.0
    y = keras.layers.Lambda(lambda t: tf.expand_dims(t, axis=3) + offset)(x)
    y = keras.layers.Lambda(_scale_by_three)(y)
    z = keras.layers.Flatten()(y)
    out = keras.layers.Dense(1)(z)
    model = keras.models.Model(x, out)
    data = np.arange(8, dtype=np.float32).reshape(2, 2, 2)
    want = model.predict(data)
    path = os.path.join(str(tmp_path), "lam.h5")
    keras.models.save_model(model, path)
    loaded = keras.models.load_model(path, {"_scale_by_three": _scale_by_three})
    np.testing.assert_allclose(loaded.predict(data), want, rtol=1e-6)
    lam = loaded.layers[1]
    assert lam.get_config()["function_type"] == "lambda"


def test_lambda_from_config_looks_a_named_function_up():
    cfg = {"name": "lam", "function": "_scale_by_three", "function_type": "function",
           "module": __name__, "output_shape": None, "output_shape_type": "raw",
           "mask": None, "mask_type": "raw", "arguments": {}}
    layer = keras.layers.Lambda.from_config(cfg)
    assert layer.function is _scale_by_three
    cfg["function"] = "no_such_function"
    with pytest.raises(ValueError, match="Unknown function"):
        keras.layers.Lambda.from_config(cfg)


# ----------------------------------------------------------------------------------------
# module paths
# ----------------------------------------------------------------------------------------


def test_python_layers_utils_conv_lengths():
    from tideflow.python.layers import utils

    assert utils.conv_output_length(10, 3, "valid", 1) == 8
    assert utils.conv_output_length(10, 3, "same", 2) == 5
    assert utils.conv_output_length(10, 3, "full", 1) == 12
    assert utils.conv_output_length(10, 3, "causal", 1) == 10
    assert utils.conv_output_length(9, 3, "valid", 1, dilation=2) == 5
    assert utils.conv_output_length(None, 3, "valid", 1) is None
    assert utils.conv_input_length(8, 3, "valid", 1) == 10
    assert utils.conv_input_length(10, 3, "same", 1) == 10
    assert utils.normalize_tuple(2, 2, "strides") == (2, 2)


def test_python_estimator_canned_optimizers_path():
    from tideflow.python.estimator.canned import optimizers

    opt = optimizers.get_optimizer_instance("Adagrad", learning_rate=0.1)
    assert isinstance(opt, tf.train.AdagradOptimizer)


# ----------------------------------------------------------------------------------------
# tf.stack of one tensor; a layer whose own attribute is called ``layers``
# ----------------------------------------------------------------------------------------


def test_stack_of_a_tensor_is_that_tensor():
    batch = tf.placeholder(tf.int32, [])
    size = tf.concat([tf.expand_dims(batch, 0), tf.constant([3])], 0)
    stacked = tf.stack(size)
    assert stacked is size
    zeros = tf.zeros(stacked, tf.float32)
    with tf.Session() as sess:
        assert sess.run(zeros, {batch: 2}).shape == (2, 3)
    with pytest.raises(ValueError):
        tf.stack(tf.constant([1, 2]), axis=3)


class _Stacked(keras.layers.Layer):
    def __init__(self, layers=2, **kwargs):
        self.layers = layers  # a count, not sublayers (DeepCTR's BiLSTM)
        super().__init__(**kwargs)

    def build(self, input_shape):
        self.inner = [keras.layers.Dense(2) for _ in range(self.layers)]
        super().build(input_shape)

    def call(self, x):
        for d in self.inner:
            x = d(x)
        return x


def test_fit_with_a_layer_whose_layers_attribute_is_a_count():
    x = keras.layers.Input(shape=(2,))
    y = keras.layers.BatchNormalization()(_Stacked(layers=2)(x))
    model = keras.models.Model(x, y)
    model.compile("sgd", "mse")
    data = np.ones((4, 2), np.float32)
    model.fit(data, data, epochs=1, verbose=0)
    assert len(model.updates) == 2


# ----------------------------------------------------------------------------------------
# sublayers put into a list (or dict) attribute after it was assigned
# ----------------------------------------------------------------------------------------


class _Blocks(keras.layers.Layer):
    def build(self, input_shape):
        self.denses = []  # filled after assignment (DeepCTR's FGCNNLayer)
        self.by_name = {}
        for i in range(2):
            self.denses.append(keras.layers.Dense(3, name=f"d{i}"))
        self.by_name["out"] = keras.layers.Dense(1, name="out")
        super().build(input_shape)

    def call(self, x):
        for d in self.denses:
            x = d(x)
        return self.by_name["out"](x)


def test_layers_appended_to_a_list_attribute_are_tracked(tmp_path):
    x = keras.layers.Input(shape=(2,))
    blocks = _Blocks()
    model = keras.models.Model(x, blocks(x))
    names = [w.name for w in blocks.weights]
    assert len(names) == 6
    assert len(model.trainable_weights) == 6
    data = np.random.RandomState(0).rand(4, 2).astype(np.float32)
    before = model.get_weights()
    model.compile("sgd", "mse")
    model.fit(data, np.ones((4, 1), np.float32), epochs=1, verbose=0)
    after = model.get_weights()
    assert all(not np.array_equal(a, b) for a, b in zip(before, after))
    want = model.predict(data)
    path = os.path.join(str(tmp_path), "blocks.h5")
    model.save_weights(path)
    x2 = keras.layers.Input(shape=(2,))
    model2 = keras.models.Model(x2, _Blocks()(x2))
    model2.load_weights(path)
    np.testing.assert_allclose(model2.predict(data), want, rtol=1e-6)
    blocks.trainable = False
    assert model.trainable_weights == [] and len(model.non_trainable_weights) == 6


# ----------------------------------------------------------------------------------------
# an RNN cell held by a Keras layer; layers behind a loss added to a functional model
# ----------------------------------------------------------------------------------------


class _GRUOverTime(keras.layers.Layer):
    def build(self, input_shape):
        self.cell = tf.nn.rnn_cell.GRUCell(3)  # a tf.layers layer: a sublayer too, as in TF
        super().build(input_shape)

    def call(self, x):
        outputs, _ = tf.nn.dynamic_rnn(self.cell, x, dtype=tf.float32, scope=self.name)
        return outputs[:, -1, :]


def test_rnn_cell_held_by_a_keras_layer_is_trained():
    x = keras.layers.Input(shape=(4, 2))
    layer = _GRUOverTime()
    y = keras.layers.Dense(1)(layer(x))
    model = keras.models.Model(x, y)
    assert len(layer.trainable_weights) == 4
    assert len(model.trainable_weights) == 6
    model.compile("sgd", "mse")
    data = np.random.RandomState(1).rand(5, 4, 2).astype(np.float32)
    before = layer.get_weights()
    model.fit(data, np.ones((5, 1), np.float32), epochs=1, verbose=0)
    assert all(not np.array_equal(a, b) for a, b in zip(before, layer.get_weights()))
    layer.trainable = False
    assert layer.trainable_weights == [] and len(layer.non_trainable_weights) == 4


def test_layers_behind_an_added_loss_join_the_model():
    x = keras.layers.Input(shape=(3,))
    h = keras.layers.Dense(4, name="body")(x)
    y = keras.layers.Dense(1, name="head")(h)
    model = keras.models.Model(x, y)
    aux_dense = keras.layers.Dense(1, name="aux")
    aux = tf.reduce_mean(tf.square(aux_dense(h[:, 1:])))  # plain ops and a layer of its own
    model.add_loss(0.5 * aux)
    names = {w.name for w in model.trainable_weights}
    assert {"aux/kernel:0", "aux/bias:0"} <= names
    model.compile("sgd", "mse")
    before = aux_dense.get_weights()
    model.fit(np.ones((4, 3), np.float32), np.zeros((4, 1), np.float32), epochs=1, verbose=0)
    assert all(not np.array_equal(a, b) for a, b in zip(before, aux_dense.get_weights()))


def test_lambda_layer_through_to_json_and_model_from_json():
    x = keras.layers.Input(shape=(3,))
    y = keras.layers.Lambda(lambda t: t * 2.0 + 1.0)(x)
    model = keras.models.Model(x, y)
    clone = keras.models.model_from_json(model.to_json())
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(clone.predict(data), data * 2.0 + 1.0)


def test_lambda_closing_over_a_module_is_saved_by_name():
    ops_module = tf  # closed over: JSON cannot hold it
    scale = np.float32(2.0)  # closed over: JSON can
    x = keras.layers.Input(shape=(3,))
    y = keras.layers.Lambda(lambda t: ops_module.identity(t))(x)
    z = keras.layers.Lambda(lambda t: t * scale)(y)
    import json

    layers = json.loads(keras.models.Model(x, z).to_json())["config"]["layers"]
    assert layers[1]["config"]["function"] == "<lambda>"
    code, defaults, closure = layers[2]["config"]["function"]
    assert isinstance(code, str) and defaults is None and closure == [2.0]


class _Tower(keras.models.Model):
    def __init__(self):
        super().__init__()
        self.stack = []
        for i in range(3):
            self.stack.append(keras.layers.Dense(2, name=f"t{i}"))

    def call(self, x):
        for d in self.stack:
            x = d(x)
        return x


def test_subclassed_model_lists_layers_appended_to_a_list_attribute():
    model = _Tower()
    assert [la.name for la in model.layers] == ["t0", "t1", "t2"]
    model(tf.zeros([1, 2]))
    assert len(model.trainable_weights) == 6
