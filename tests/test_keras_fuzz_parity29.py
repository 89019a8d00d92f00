"""tf.keras models from a differential fuzzer (random Sequential and functional models run in
TF 1.15 and tideflow, compared on weight names, initial values, summary(), predict(), fit
histories, evaluate(), get_config/from_config, to_json and save_weights): each case below is a
shrunk difference, its expected values measured by running the same program under TF 1.15.
The last tests run a small seeded fuzz checked without TF: predict() equals a NumPy forward
pass of the model's own get_weights(), and summary()'s counts equal the weights' sizes."""

import json

import pytest

import tideflow as tf

K = tf.keras
L = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()
    K.backend.clear_session()
    yield
    K.backend.clear_session()
    tf.reset_default_graph()


def test_sequential_from_input_layer_config_puts_input_shape_on_first_layer():
    # TF 1.15 (measured): Sequential.get_config leaves an explicit InputLayer out and writes
    # its batch_input_shape, last, into the first layer's config; from_config then rebuilds
    # the model on an Input named after that layer
    model = K.Sequential()
    model.add(L.InputLayer(input_shape=(6,)))
    model.add(L.Reshape((2, 3)))
    model.add(L.Dense(4, activation="relu"))
    cfg = model.get_config()
    assert [la["class_name"] for la in cfg["layers"]] == ["Reshape", "Dense"]
    assert list(cfg["layers"][0]["config"]) == ["name", "trainable", "dtype", "target_shape",
                                                "batch_input_shape"]
    assert json.loads(model.to_json())["config"]["layers"][0]["config"][
        "batch_input_shape"] == [None, 6]
    m2 = K.Sequential.from_config(cfg)
    assert [la.name for la in m2.layers] == ["reshape", "dense"]
    assert m2.inputs[0].name == "reshape_input:0"
    assert list(m2.get_config()["layers"][0]["config"]) == [
        "name", "trainable", "batch_input_shape", "dtype", "target_shape"]
