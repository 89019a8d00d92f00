"""Keras RNN details checked against TF 1.15's behaviour: ``constants`` passed to a cell at
every step, and StackedRNNCells' nested per-cell states."""

import numpy as np
import pytest

import tideflow as tf
from tideflow import keras

K = keras.backend


@pytest.fixture(autouse=True)
def _own_graph():
    # each test in a graph of its own (the Keras models' variables stay out of later files')
    with tf.Graph().as_default():
        yield


class _BiasedCell(keras.layers.Layer):
    """A linear cell whose step adds a projection of a constant input."""

    def __init__(self, units, width, **kwargs):
        self.units, self.width, self.state_size = units, width, units
        super().__init__(**kwargs)

    def build(self, shape):
        self.w_in = self.add_weight(shape=(shape[-1], self.units), initializer="ones",
                                    name="w_in")
        self.w_const = self.add_weight(shape=(self.width, self.units), initializer="ones",
                                       name="w_const")
        self.built = True

    def call(self, inputs, states, constants):
        out = K.dot(inputs, self.w_in) + states[0] + K.dot(constants[0], self.w_const)
        return out, [out]

    def get_config(self):
        config = super().get_config()
        config.update(units=self.units, width=self.width)
        return config


def _expected(xs, cs, s0=None):
    # out_t = sum(x_t) + out_{t-1} + sum(c)  (ones weights)
    out = np.zeros((xs.shape[0], 1)) if s0 is None else s0[:, :1]
    for t in range(xs.shape[1]):
        out = xs[:, t].sum(1, keepdims=True) + out + cs.sum(1, keepdims=True)
    return out


def test_rnn_constants_keras_inputs_and_config_round_trip():
    x, c = keras.Input((None, 2)), keras.Input((3,))
    layer = keras.layers.RNN(_BiasedCell(2, 3))
    model = keras.models.Model([x, c], layer(x, constants=c))
    xs, cs = np.arange(12.0).reshape(2, 3, 2) / 10, np.array([[1.0, 2, 3], [0, 0, 1]])
    got = model.predict([xs, cs])
    np.testing.assert_allclose(got, np.repeat(_expected(xs, cs), 2, 1), rtol=1e-5)
    config = layer.get_config()
    assert config["num_constants"] == 1
    with keras.utils.CustomObjectScope({"_BiasedCell": _BiasedCell}):
        again = keras.layers.RNN.from_config(dict(config))
    # a flat list [sequence, constant] after from_config: the last entry is the constant
    model2 = keras.models.Model([x, c], again([x, c]))
    np.testing.assert_allclose(model2.predict([xs, cs]), got, rtol=1e-5)


def test_rnn_constants_with_initial_state_and_plain_tensors():
    x, c, s = keras.Input((None, 2)), keras.Input((3,)), keras.Input((2,))
    model = keras.models.Model([x, s, c],
                               keras.layers.RNN(_BiasedCell(2, 3))(x, initial_state=s,
                                                                   constants=c))
    xs, cs, s0 = np.ones((2, 2, 2)), np.ones((2, 3)), np.full((2, 2), 5.0)
    np.testing.assert_allclose(model.predict([xs, s0, cs]),
                               np.repeat(_expected(xs, cs, s0), 2, 1), rtol=1e-5)
    # constants that are not Keras tensors are arguments of the call
    y = keras.layers.RNN(_BiasedCell(2, 3))(x, constants=tf.ones([2, 3]))
    np.testing.assert_allclose(keras.models.Model(x, y).predict(xs),
                               np.repeat(_expected(xs, cs), 2, 1), rtol=1e-5)


def test_stacked_cells_get_constants_only_when_they_take_them():
    x, c = keras.Input((None, 2)), keras.Input((3,))
    layer = keras.layers.RNN([keras.layers.GRUCell(4), _BiasedCell(2, 3)])
    model = keras.models.Model([x, c], layer(x, constants=c))
    model.compile("sgd", "mse")
    model.train_on_batch([np.zeros((3, 4, 2)), np.zeros((3, 3))], np.zeros((3, 2)))
    assert model.predict([np.zeros((3, 4, 2)), np.ones((3, 3))]).shape == (3, 2)


def test_rnn_constants_need_a_cell_that_takes_them():
    x, c = keras.Input((None, 2)), keras.Input((3,))
    with pytest.raises(ValueError, match="does not support constants"):
        keras.layers.RNN(keras.layers.SimpleRNNCell(2))(x, constants=c)


def test_stacked_cells_nested_state_size_and_initial_state():
    cells = [keras.layers.LSTMCell(3), keras.layers.GRUCell(4), keras.layers.SimpleRNNCell(2)]
    stacked = keras.layers.StackedRNNCells(cells)
    assert [list(s) if isinstance(s, (list, tuple)) else s for s in stacked.state_size] == \
        [[3, 3], 4, 2]
    assert stacked.output_size == 2
    init = stacked.get_initial_state(batch_size=5, dtype=tf.float32)
    assert isinstance(init, tuple) and len(init) == 3 and len(init[0]) == 2
    assert [t.get_shape().as_list() for t in [init[0][0], init[0][1], init[1], init[2]]] == \
        [[5, 3], [5, 3], [5, 4], [5, 2]]
    reverse = keras.layers.StackedRNNCells(cells, reverse_state_order=True)
    assert reverse.state_size[0] == 2


def test_rnn_over_stacked_cells_returns_each_cells_states():
    cells = [keras.layers.LSTMCell(3), keras.layers.GRUCell(4), keras.layers.SimpleRNNCell(2)]
    x = keras.Input((None, 5))
    outs = keras.layers.RNN(cells, return_state=True)(x)
    assert len(outs) == 4 and isinstance(outs[1], list) and len(outs[1]) == 2
    assert outs[2].get_shape().as_list() == [None, 4]
    shapes = keras.layers.RNN(cells, return_state=True).compute_output_shape((None, 4, 5))
    assert [s.as_list() for s in shapes] == [[None, 2], [None, 3], [None, 3], [None, 4],
                                             [None, 2]]
    got = keras.models.Model(x, outs).predict(np.random.rand(6, 4, 5))
    assert [np.shape(a) for a in got] == [(6, 2), (6, 3), (6, 3), (6, 4), (6, 2)]


def test_bidirectional_passes_constants_to_both_directions():
    x, c = keras.Input((3, 2)), keras.Input((3,))
    # (its two copies are made without a custom-object scope, as TF)
    layer = keras.layers.Bidirectional(keras.layers.RNN(_BiasedCell(2, 3)))
    model = keras.models.Model([x, c], layer(x, constants=c))
    xs, cs = np.ones((2, 3, 2)), np.array([[1.0, 0, 0], [2, 2, 2]])
    got = model.predict([xs, cs])
    # the input is the same at every step, so both directions agree
    np.testing.assert_allclose(got, np.repeat(_expected(xs, cs), 4, 1), rtol=1e-5)
    config = layer.get_config()
    assert config["num_constants"] == 1
    with keras.utils.CustomObjectScope({"_BiasedCell": _BiasedCell}):
        again = keras.layers.Bidirectional.from_config(dict(config))
    np.testing.assert_allclose(keras.models.Model([x, c], again([x, c])).predict([xs, cs]),
                               got, rtol=1e-5)


def test_bidirectional_constants_with_initial_states():
    x, c = keras.Input((3, 2)), keras.Input((3,))
    s_fw, s_bw = keras.Input((2,)), keras.Input((2,))
    # (its two copies are made without a custom-object scope, as TF)
    layer = keras.layers.Bidirectional(keras.layers.RNN(_BiasedCell(2, 3)))
    y = layer(x, initial_state=[s_fw, s_bw], constants=c)
    model = keras.models.Model([x, s_fw, s_bw, c], y)
    xs, cs = np.ones((2, 3, 2)), np.ones((2, 3))
    s1, s2 = np.full((2, 2), 1.0), np.full((2, 2), 7.0)
    got = model.predict([xs, s1, s2, cs])
    np.testing.assert_allclose(got[:, :2], np.repeat(_expected(xs, cs, s1), 2, 1), rtol=1e-5)
    np.testing.assert_allclose(got[:, 2:], np.repeat(_expected(xs, cs, s2), 2, 1), rtol=1e-5)


def test_time_distributed_counts_the_inner_activity_regularizer_once():
    x = keras.Input((3, 2))
    dense = keras.layers.Dense(1, kernel_initializer="ones", use_bias=False,
                               kernel_regularizer="l2", activity_regularizer="l1")
    model = keras.models.Model(x, keras.layers.TimeDistributed(dense)(x))
    assert len(model.losses) == 2
    sess = K.get_session()
    xs = np.arange(12.0).reshape(2, 3, 2)
    values = sess.run(model.losses, {x: xs})
    # l1 activity (0.01 * sum |y|, over the batch * time folded rows) and l2 kernel
    np.testing.assert_allclose(sorted(values),
                               sorted([0.01 * np.abs(xs.sum(-1)).sum() / 6, 0.01 * 2.0]),
                               rtol=1e-5)


def test_bidirectional_keeps_each_directions_losses():
    x = keras.Input((3, 2))
    layer = keras.layers.Bidirectional(keras.layers.SimpleRNN(
        2, kernel_regularizer="l2", activity_regularizer="l2"))
    layer(x)
    assert (len(layer.losses), len(layer.get_losses_for(None)),
            len(layer.get_losses_for(x))) == (4, 2, 2)
    shared, tied = tf.constant(2.0), tf.reduce_sum(x)
    for sub in (layer.forward_layer, layer.backward_layer):
        sub.add_loss(shared, inputs=None)
        sub.add_loss(tied, inputs=x)
    # a tensor both directions hold counts for each of them
    assert (len(layer.losses), len(layer.get_losses_for(None)),
            len(layer.get_losses_for(x))) == (8, 4, 4)


@pytest.mark.parametrize("case", [
    # layer, input shape, kernel size, strides, implementation, data format, weight shapes,
    # output shape, first outputs and sum (tf_keras's for the same weights and inputs)
    (keras.layers.LocallyConnected1D, (5, 2), 3, 1, 3, "channels_last", [(52,), (5, 2)],
     (2, 5, 2), [-1.7710, -1.3742, -0.1067, 0.0347, 0.3804], 8.4494),
    (keras.layers.LocallyConnected2D, (2, 4, 3), (2, 2), 2, 2, "channels_first",
     [(2, 4, 3, 2, 2, 2), (2, 2, 2)], (2, 2, 2, 2),
     [-0.0028, -1.1863, 0.0138, 0.9540, 0.3747], 3.6064),
    (keras.layers.LocallyConnected2D, (4, 3, 2), (3, 2), 1, 3, "channels_last",
     [(200,), (4, 3, 2)], (2, 4, 3, 2), [-1.1964, -1.0474, -3.0344, -2.6392, 0.9276], 58.5488),
])
def test_locally_connected_implementations_2_and_3_match_tf_keras(case):
    cls, shape, kernel_size, strides, impl, fmt, weight_shapes, out_shape, first, total = case
    layer = cls(2, kernel_size, strides=strides, padding="same", data_format=fmt,
                implementation=impl)
    x = np.sin(np.arange(2 * np.prod(shape))).reshape((2,) + shape).astype("float32")
    y = layer(tf.constant(x))
    assert [tuple(w.get_shape().as_list()) for w in layer.weights] == weight_shapes
    assert y.get_shape().as_list() == list(out_shape)
    layer.set_weights([np.linspace(-1, 1, int(np.prod(weight_shapes[0])))
                       .reshape(weight_shapes[0]),
                       0.1 * np.arange(int(np.prod(weight_shapes[1]))).reshape(weight_shapes[1])])
    got = K.get_session().run(y)
    np.testing.assert_allclose(got.ravel()[:5], first, atol=1e-4)
    np.testing.assert_allclose(got.sum(), total, atol=1e-3)


def test_locally_connected_implementations_agree_and_differentiate():
    x = np.random.RandomState(1).rand(2, 6, 3)
    inp = tf.constant(x)
    layers = [keras.layers.LocallyConnected1D(2, 3, strides=2, implementation=i,
                                              dtype="float64") for i in (1, 2, 3)]
    outs = [layer(inp) for layer in layers]
    sess = K.get_session()
    k1, b1 = sess.run(layers[0].weights)  # [positions, 3 * 3, 2]: (step, channel) rows
    dense = np.zeros((6, 3, 2, 2))  # implementation 2's [in step, channel, out step, filter]
    for o in range(2):
        dense[2 * o:2 * o + 3, :, o, :] = k1[o].reshape(3, 3, 2)
    layers[1].set_weights([dense, b1])
    # implementation 3: one weight per connected (output index, input index) pair
    rows, cols = layers[2].kernel_idxs.T
    flat = dense.reshape(18, 4).T  # [outputs, inputs]
    layers[2].set_weights([flat[rows, cols], b1])
    assert len(rows) == 2 * 3 * 3 * 2
    y1, y2, y3 = sess.run(outs)
    np.testing.assert_allclose(y2, y1, rtol=1e-10)
    np.testing.assert_allclose(y3, y1, rtol=1e-10)
    # (against the input: a resource variable fed as compute_gradient feeds it feeds only the
    # read its creation made, not the layer's own read, so TF 1.15's numeric Jacobian is 0)
    with sess.as_default():
        for out in outs[1:]:
            theory, numeric = tf.test.compute_gradient(
                inp, inp.get_shape().as_list(), out, out.get_shape().as_list())
            assert np.abs(numeric).sum() > 1
            np.testing.assert_allclose(theory, numeric, atol=1e-6)


def test_locally_connected_padding_same_needs_implementation_2_or_3():
    with pytest.raises(ValueError, match='only "valid" is supported if implementation is 1'):
        keras.layers.LocallyConnected2D(2, 3, padding="same")
    layer = keras.layers.LocallyConnected1D(2, 3, implementation=4)
    with pytest.raises(ValueError, match="Unrecognized implementation mode: 4"):
        layer(keras.Input((5, 2)))


class _PlainCell:
    """A cell that is no Keras layer: two states, the second one the first one doubled."""

    def __init__(self, units, input_dim):
        self.units, self.state_size = units, (units, units)
        self.kernel = K.variable(np.ones((input_dim, units)))

    def call(self, inputs, states):
        out = K.dot(inputs, self.kernel) + states[0]
        return out, [out, 2 * out]


def test_rnn_over_cells_that_are_no_layers():
    x = keras.Input((None, 2))
    layer = keras.layers.RNN([_PlainCell(3, 2), _PlainCell(1, 3)])
    assert layer.cell.state_size == ((3, 3), (1, 1))
    y = layer(x)
    assert layer.trainable_weights == [] and layer.losses == []
    got = keras.models.Model(x, y).predict(np.ones((2, 2, 2)))
    # step 1: h1 = 2, h2 = 3 * 2; step 2: h1 = 2 + 2 = 4, h2 = 3 * 4 + 6
    np.testing.assert_allclose(got, np.full((2, 1), 18.0))


def test_rnn_losses_for_inputs_include_the_cells():
    cells = [keras.layers.SimpleRNNCell(1), keras.layers.SimpleRNNCell(1)]
    layer = keras.layers.RNN(cells)
    layer.build((None, None, 1))
    x = keras.Input((None, 1))
    tied, free = tf.reduce_sum(x), tf.reduce_sum(cells[0].kernel)
    cells[0].add_loss(tied, inputs=x)
    cells[0].add_loss(free)
    assert layer.get_losses_for(x) == [tied]
    assert layer.get_losses_for(None) == [free]


def test_rnn_over_stacked_tf_nn_cells_trains_their_weights():
    x = keras.Input((4, 3))
    layer = keras.layers.RNN([tf.nn.rnn_cell.LSTMCell(3), tf.nn.rnn_cell.GRUCell(2)],
                             return_state=True)
    outs = layer(x)
    # the output, the LSTM's (c, h) and the GRU's state
    assert len(outs) == 3 and len(outs[1]) == 2
    assert len(layer.trainable_weights) == 6
    model = keras.models.Model(x, outs)
    model.compile("sgd", "mse")
    assert [a.shape for a in model.predict(np.ones((2, 4, 3)))] == [(2, 2), (2, 3), (2, 3),
                                                                     (2, 2)]


def test_time_major_sequences_keep_the_inputs_static_order():
    x = keras.Input((5, 4))  # [batch, time, features]
    major = keras.layers.Lambda(lambda t: tf.transpose(t, [1, 0, 2]))(x)  # [time, batch, ...]
    layer = keras.layers.SimpleRNN(3, time_major=True, return_sequences=True)
    y = layer(major)
    assert y.get_shape().as_list() == [5, None, 3]
    assert layer.output_shape == (5, None, 3)
    last = keras.layers.SimpleRNN(3, time_major=True)(major)
    assert last.get_shape().as_list() == [None, 3]


def test_rnn_get_initial_state_input_length_and_unbuilt_reset():
    x = keras.Input((None, 6))
    layer = keras.layers.RNN(keras.layers.LSTMCell(4))
    states = layer.get_initial_state(x)
    assert isinstance(states, list) and [s.get_shape().as_list() for s in states] == \
        [[None, 4], [None, 4]]
    assert keras.layers.GRU(2, input_length=7, input_dim=3)._batch_input_shape == (None, 7, 3)
    assert keras.layers.GRU(2, input_length=7)._batch_input_shape == (None, 7, None)
    with pytest.raises(ValueError, match="it needs to know its batch size"):
        keras.layers.SimpleRNN(1, stateful=True).reset_states()
