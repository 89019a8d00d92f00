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
