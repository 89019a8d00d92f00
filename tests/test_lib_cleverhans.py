"""Differences found by running CleverHans 3.0.1 (adversarial examples on TF 1.x graph mode)
against tideflow, each reduced to the plain TF 1.x calls the library makes: its Keras wrapper
reads a model's own node (``model.get_input_at(0)``), which TF 1.x gives every graph network."""

import numpy as np
import pytest

import tideflow as tf

L = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ----------------------------------------------------------------------------------------
# a graph network's node 0 links its own inputs to its outputs
# ----------------------------------------------------------------------------------------


def test_sequential_with_input_shape_has_its_own_node():
    model = tf.keras.Sequential([L.Dense(5, input_shape=(3,)), L.Activation("tanh")])
    assert len(model._inbound_nodes) == 1
    assert model.get_input_at(0) is model.input
    assert model.get_output_at(0) is model.output
    assert model.get_input_shape_at(0) == (None, 3)
    assert model.get_output_shape_at(0) == (None, 5)
    node = model._inbound_nodes[0]
    assert node.outbound_layer is model and node.inbound_layers == []
    # adding a layer rebuilds the network: still one node, now ending at the new layer
    model.add(L.Dense(2))
    assert len(model._inbound_nodes) == 1
    assert model.get_output_at(0) is model.output
    assert model.get_output_shape_at(0) == (None, 2)


def test_calls_of_a_built_model_are_nodes_after_its_own():
    model = tf.keras.Sequential([L.Dense(4, input_shape=(6,))])
    x = tf.placeholder(tf.float32, (None, 6))
    y1 = model(x)
    y2 = model(x * 2.0)
    assert len(model._inbound_nodes) == 3
    assert model.get_input_at(1) is x
    assert model.get_output_at(1) is y1 and model.get_output_at(2) is y2
    with pytest.raises(AttributeError, match="multiple inbound nodes"):
        model.get_layer(index=0).output  # noqa: B018 (the Dense was called three times)


def test_functional_model_has_its_own_node():
    a = L.Input((4,))
    h = L.Dense(3, activation="relu")(a)
    out = L.Dense(2)(h)
    model = tf.keras.Model(a, out)
    assert len(model._inbound_nodes) == 1
    assert model.get_input_at(0) is a and model.get_output_at(0) is out
    two = tf.keras.Model([a], [h, out])
    assert two.get_output_at(0) == [h, out]


def test_sequential_built_by_its_first_call_has_no_own_node():
    # as TF 1.15: a Sequential without an input shape is not a graph network until called, and
    # that call is its node 0
    model = tf.keras.Sequential([L.Dense(3), L.Dense(2)])
    x = L.Input((5,))
    y = model(x)
    assert len(model._inbound_nodes) == 1
    assert model.get_input_at(0) is x and model.get_output_at(0) is y


def test_layer_outputs_model_from_own_input_called_on_new_tensor():
    # the wrapper's pattern: Model(model.get_input_at(0), [each layer's output]) then called
    # on a fresh tensor gives every hidden layer's value for that tensor
    model = tf.keras.Sequential([L.Dense(4, input_shape=(3,), kernel_initializer="ones"),
                                 L.Activation("relu"), L.Dense(2, kernel_initializer="ones"),
                                 L.Activation("softmax")])
    feats = tf.keras.Model(model.get_input_at(0), [la.output for la in model.layers])
    x = tf.placeholder(tf.float32, (None, 3))
    outs = feats(x)
    assert [o.get_shape().as_list() for o in outs] == [[None, 4], [None, 4], [None, 2],
                                                      [None, 2]]
    node = model.get_layer(index=3)._inbound_nodes[0]
    assert node.inbound_layers[0] is model.get_layer(index=2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        vals = sess.run(outs, {x: np.array([[1.0, -2.0, 0.5]], np.float32)})
    np.testing.assert_allclose(vals[0], [[-0.5] * 4])
    np.testing.assert_allclose(vals[1], [[0.0] * 4])
    np.testing.assert_allclose(vals[3], [[0.5, 0.5]])
