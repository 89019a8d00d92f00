"""tf.keras.layers: each layer's outputs against a NumPy reference (weights set with
set_weights), its weight names and shapes, and its errors."""

import numpy as np
import pytest

import tideflow as tf

K = tf.keras.backend
L = tf.keras.layers
RNG = np.random.RandomState(42)


def run(layer, x, weights=None, training=None, **call_kwargs):
    """The layer applied to ``x`` (a NumPy array or a list of them) through a model."""
    xs = x if isinstance(x, list) else [x]
    inputs = [tf.keras.Input(batch_shape=(None,) + a.shape[1:], dtype=str(a.dtype)
                             if a.dtype.kind != "f" else "float32") for a in xs]
    out = layer(inputs if isinstance(x, list) else inputs[0], **call_kwargs)
    if weights is not None:
        layer.set_weights(weights)
    feed = dict(zip(inputs, xs))
    if training is not None:
        feed[K.learning_phase()] = training
    return K.get_session().run(out, feed)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def hard_sigmoid(x):
    return np.clip(0.2 * x + 0.5, 0, 1)


def test_dense_values_names_and_defaults():
    x = RNG.randn(4, 3).astype(np.float32)
    w, b = RNG.randn(3, 5).astype(np.float32), RNG.randn(5).astype(np.float32)
    layer = L.Dense(5, activation="relu")
    got = run(layer, x, [w, b])
    np.testing.assert_allclose(got, np.maximum(x @ w + b, 0), rtol=1e-5)
    assert [v.name for v in layer.weights] == ["dense/kernel:0", "dense/bias:0"]
    assert layer.name == "dense"
    assert L.Dense(2).name == "dense_1"
    assert layer.count_params() == 20
    assert layer.get_config()["units"] == 5
    assert layer.output_shape == (None, 5)


def test_dense_default_initializers():
    layer = L.Dense(50)
    run(layer, np.zeros((1, 40), np.float32))
    kernel, bias = layer.get_weights()
    limit = np.sqrt(6 / (40 + 50))
    assert np.abs(kernel).max() <= limit and np.abs(kernel).max() > 0.5 * limit
    np.testing.assert_array_equal(bias, 0)


def test_dense_on_rank3_and_bad_shape_error():
    x = RNG.randn(2, 3, 4).astype(np.float32)
    w, b = RNG.randn(4, 2).astype(np.float32), np.zeros(2, np.float32)
    layer = L.Dense(2)
    np.testing.assert_allclose(run(layer, x, [w, b]), x @ w, rtol=1e-5)
    with pytest.raises(ValueError, match=r"dense.*expected axis -1 of input shape to have "
                                         r"value 4"):
        layer(tf.keras.Input(shape=(3, 5)))


def test_set_weights_errors():
    layer = L.Dense(2)
    run(layer, np.zeros((1, 3), np.float32))
    with pytest.raises(ValueError, match="expecting 2 weights"):
        layer.set_weights([np.zeros((3, 2))])
    with pytest.raises(ValueError, match=r"\(3, 2\) not compatible with provided weight shape"):
        layer.set_weights([np.zeros((2, 2)), np.zeros(2)])


def test_activation_and_advanced_activations():
    x = RNG.randn(3, 4).astype(np.float32)
    np.testing.assert_allclose(run(L.Activation("tanh"), x), np.tanh(x), rtol=1e-5)
    np.testing.assert_allclose(run(L.LeakyReLU(), x), np.where(x > 0, x, 0.3 * x), rtol=1e-6)
    np.testing.assert_allclose(run(L.ReLU(max_value=0.5), x), np.clip(x, 0, 0.5))
    np.testing.assert_allclose(run(L.ELU(alpha=0.5), x),
                               np.where(x > 0, x, 0.5 * (np.exp(x) - 1)), rtol=1e-5)
    e = np.exp(x)
    np.testing.assert_allclose(run(L.Softmax(), x), e / e.sum(-1, keepdims=True), rtol=1e-5)
    alpha = RNG.rand(4).astype(np.float32)
    prelu = L.PReLU()
    np.testing.assert_allclose(run(prelu, x, [alpha]), np.where(x > 0, x, alpha * x),
                               rtol=1e-5)
    assert prelu.weights[0].name == "p_re_lu/alpha:0"


def test_dropout_only_in_training():
    x = np.ones((200, 50), np.float32)
    layer = L.Dropout(0.5)
    np.testing.assert_array_equal(run(layer, x), x)
    got = run(L.Dropout(0.5), x, training=True)
    assert set(np.unique(got)) <= {0.0, 2.0}
    assert 0.4 < (got == 0).mean() < 0.6


def test_flatten_reshape_permute_repeat():
    x = RNG.randn(2, 3, 4).astype(np.float32)
    np.testing.assert_array_equal(run(L.Flatten(), x), x.reshape(2, 12))
    np.testing.assert_array_equal(run(L.Reshape((4, -1)), x), x.reshape(2, 4, 3))
    np.testing.assert_array_equal(run(L.Permute((2, 1)), x), x.transpose(0, 2, 1))
    v = RNG.randn(2, 5).astype(np.float32)
    np.testing.assert_array_equal(run(L.RepeatVector(3), v), np.repeat(v[:, None], 3, 1))
    # TF 1.15 builds it (the Reshape op's shape function cannot check against the unknown
    # batch size): the run fails
    assert L.Reshape((5, 5))(tf.keras.Input(shape=(3, 4))).get_shape().as_list() == [None, 5, 5]


def test_lambda():
    x = RNG.randn(2, 3).astype(np.float32)
    np.testing.assert_allclose(run(L.Lambda(lambda t, k: t * k, arguments={"k": 3.0}), x),
                               3 * x, rtol=1e-6)


def conv2d_ref(x, w, stride=1, padding="valid"):
    kh, kw = w.shape[:2]
    if padding == "same":  # TF's: output ceil(in / stride), the extra padding at the end
        ph = max((-(-x.shape[1] // stride) - 1) * stride + kh - x.shape[1], 0)
        pw = max((-(-x.shape[2] // stride) - 1) * stride + kw - x.shape[2], 0)
        x = np.pad(x, [(0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)])
    n, h, wd, _ = x.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, oh, ow, w.shape[3]), np.float32)
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :]
            out[:, i, j, :] = np.tensordot(patch, w, axes=([1, 2, 3], [0, 1, 2]))
    return out


def test_conv2d_valid_and_same():
    x = RNG.randn(2, 6, 6, 3).astype(np.float32)
    w = RNG.randn(3, 3, 3, 4).astype(np.float32)
    b = RNG.randn(4).astype(np.float32)
    layer = L.Conv2D(4, 3)
    np.testing.assert_allclose(run(layer, x, [w, b]), conv2d_ref(x, w) + b, rtol=1e-4,
                               atol=1e-5)
    assert [v.name for v in layer.weights] == ["conv2d/kernel:0", "conv2d/bias:0"]
    layer = L.Conv2D(4, 3, strides=2, padding="same", use_bias=False)
    np.testing.assert_allclose(run(layer, x, [w]), conv2d_ref(x, w, 2, "same"), rtol=1e-4,
                               atol=1e-5)
    assert layer.compute_output_shape((None, 6, 6, 3)).as_list() == [None, 3, 3, 4]


def test_conv2d_channels_first():
    x = RNG.randn(1, 3, 5, 5).astype(np.float32)
    w = RNG.randn(3, 3, 3, 2).astype(np.float32)
    got = run(L.Conv2D(2, 3, data_format="channels_first", use_bias=False), x, [w])
    want = conv2d_ref(x.transpose(0, 2, 3, 1), w).transpose(0, 3, 1, 2)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_conv1d_and_causal():
    x = RNG.randn(2, 7, 3).astype(np.float32)
    w = RNG.randn(3, 3, 4).astype(np.float32)
    want = conv2d_ref(x[:, None], w[None])[:, 0]
    np.testing.assert_allclose(run(L.Conv1D(4, 3, use_bias=False), x, [w]), want, rtol=1e-4,
                               atol=1e-5)
    causal = run(L.Conv1D(4, 3, padding="causal", use_bias=False), x, [w])
    padded = np.pad(x, [(0, 0), (2, 0), (0, 0)])
    np.testing.assert_allclose(causal, conv2d_ref(padded[:, None], w[None])[:, 0], rtol=1e-4,
                               atol=1e-5)


def test_conv2d_transpose_is_adjoint_of_conv():
    x = RNG.randn(1, 3, 3, 2).astype(np.float32)
    w = RNG.randn(3, 3, 4, 2).astype(np.float32)  # [kh, kw, filters, in]
    layer = L.Conv2DTranspose(4, 3, strides=2, padding="same", use_bias=False)
    got = run(layer, x, [w])
    assert got.shape == (1, 6, 6, 4)
    # <conv_transpose(x), y> == <x, conv(y)> for the same kernel
    y = RNG.randn(1, 6, 6, 4).astype(np.float32)
    conv_y = conv2d_ref(y, w, 2, "same")
    np.testing.assert_allclose(np.sum(got * y), np.sum(x * conv_y), rtol=1e-3)


def test_depthwise_and_separable():
    x = RNG.randn(1, 5, 5, 2).astype(np.float32)
    dw = RNG.randn(3, 3, 2, 1).astype(np.float32)
    layer = L.DepthwiseConv2D(3, use_bias=False)
    got = run(layer, x, [dw])
    want = np.concatenate([conv2d_ref(x[..., c:c + 1], dw[:, :, c:c + 1]) for c in range(2)],
                          -1)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    pw = RNG.randn(1, 1, 2, 3).astype(np.float32)
    sep = L.SeparableConv2D(3, 3, use_bias=False)
    np.testing.assert_allclose(run(sep, x, [dw, pw]), want @ pw[0, 0], rtol=1e-4, atol=1e-5)
    assert [v.name.split("/")[1] for v in sep.weights] == ["depthwise_kernel:0",
                                                            "pointwise_kernel:0"]


def test_pooling():
    x = RNG.randn(2, 4, 6, 3).astype(np.float32)
    blocks = x.reshape(2, 2, 2, 3, 2, 3)
    np.testing.assert_allclose(run(L.MaxPooling2D(), x), blocks.max(axis=(2, 4)))
    np.testing.assert_allclose(run(L.AveragePooling2D(), x), blocks.mean(axis=(2, 4)),
                               rtol=1e-5)
    np.testing.assert_allclose(run(L.GlobalAveragePooling2D(), x), x.mean((1, 2)), rtol=1e-5)
    np.testing.assert_allclose(run(L.GlobalMaxPooling2D(), x), x.max((1, 2)))
    s = RNG.randn(2, 6, 3).astype(np.float32)
    np.testing.assert_allclose(run(L.MaxPooling1D(), s), s.reshape(2, 3, 2, 3).max(2))
    np.testing.assert_allclose(run(L.AveragePooling1D(3), s), s.reshape(2, 2, 3, 3).mean(2),
                               rtol=1e-5)
    np.testing.assert_allclose(run(L.GlobalAveragePooling1D(), s), s.mean(1), rtol=1e-5)
    np.testing.assert_allclose(run(L.GlobalMaxPooling1D(), s), s.max(1))


def test_padding_cropping_upsampling():
    x = RNG.randn(1, 2, 3, 2).astype(np.float32)
    np.testing.assert_array_equal(run(L.ZeroPadding2D(((1, 0), (2, 1))), x),
                                  np.pad(x, [(0, 0), (1, 0), (2, 1), (0, 0)]))
    np.testing.assert_array_equal(run(L.UpSampling2D((2, 3)), x),
                                  x.repeat(2, axis=1).repeat(3, axis=2))
    y = RNG.randn(1, 5, 6, 2).astype(np.float32)
    np.testing.assert_array_equal(run(L.Cropping2D(((1, 2), (0, 1))), y), y[:, 1:3, 0:5])
    s = RNG.randn(1, 4, 2).astype(np.float32)
    np.testing.assert_array_equal(run(L.ZeroPadding1D(2), s),
                                  np.pad(s, [(0, 0), (2, 2), (0, 0)]))
    np.testing.assert_array_equal(run(L.UpSampling1D(2), s), s.repeat(2, axis=1))
    np.testing.assert_array_equal(run(L.Cropping1D((1, 1)), s), s[:, 1:3])


def test_batch_normalization_training_inference_and_updates():
    x = (RNG.randn(32, 4) * 3 + 2).astype(np.float32)
    layer = L.BatchNormalization(momentum=0.5)
    inp = tf.keras.Input(shape=(4,))
    out = layer(inp)
    assert [v.name for v in layer.weights] == [
        "batch_normalization/gamma:0", "batch_normalization/beta:0",
        "batch_normalization/moving_mean:0", "batch_normalization/moving_variance:0"]
    assert len(layer.trainable_weights) == 2 and len(layer.non_trainable_weights) == 2
    sess = K.get_session()
    inference = sess.run(out, {inp: x})
    np.testing.assert_allclose(inference, x / np.sqrt(1 + 1e-3), rtol=1e-5)
    lp = K.learning_phase()
    train_out, _ = sess.run([out, layer.updates], {inp: x, lp: True})
    want = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3)
    np.testing.assert_allclose(train_out, want, rtol=1e-4, atol=1e-5)
    mm, mv = K.batch_get_value([layer.moving_mean, layer.moving_variance])
    np.testing.assert_allclose(mm, 0.5 * x.mean(0), rtol=1e-4)
    np.testing.assert_allclose(mv, 0.5 + 0.5 * x.var(0), rtol=1e-4)


def test_layer_normalization():
    x = RNG.randn(3, 5).astype(np.float32)
    want = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-3)
    np.testing.assert_allclose(run(L.LayerNormalization(), x), want, rtol=1e-4, atol=1e-5)


def test_embedding():
    ids = np.array([[0, 2], [1, 1]], np.int32)
    table = RNG.randn(3, 4).astype(np.float32)
    layer = L.Embedding(3, 4)
    np.testing.assert_array_equal(run(layer, ids, [table]), table[ids])
    assert layer.weights[0].name == "embedding/embeddings:0"


def test_merge_layers():
    a, b = RNG.randn(2, 3).astype(np.float32), RNG.randn(2, 3).astype(np.float32)
    np.testing.assert_allclose(run(L.Add(), [a, b]), a + b, rtol=1e-6)
    np.testing.assert_allclose(run(L.Subtract(), [a, b]), a - b, rtol=1e-6)
    np.testing.assert_allclose(run(L.Multiply(), [a, b]), a * b, rtol=1e-6)
    np.testing.assert_allclose(run(L.Average(), [a, b]), (a + b) / 2, rtol=1e-6)
    np.testing.assert_allclose(run(L.Maximum(), [a, b]), np.maximum(a, b))
    np.testing.assert_allclose(run(L.Minimum(), [a, b]), np.minimum(a, b))
    np.testing.assert_allclose(run(L.Concatenate(), [a, b]), np.concatenate([a, b], -1))
    np.testing.assert_allclose(run(L.Dot(axes=1), [a, b]), (a * b).sum(1, keepdims=True),
                               rtol=1e-5)
    an = a / np.linalg.norm(a, axis=1, keepdims=True)
    bn = b / np.linalg.norm(b, axis=1, keepdims=True)
    np.testing.assert_allclose(run(L.Dot(axes=1, normalize=True), [a, b]),
                               (an * bn).sum(1, keepdims=True), rtol=1e-5)


def test_merge_functional_forms_and_errors():
    x1, x2 = tf.keras.Input(shape=(3,)), tf.keras.Input(shape=(3,))
    assert L.add([x1, x2]).get_shape().as_list() == [None, 3]
    assert L.concatenate([x1, x2], axis=-1).get_shape().as_list() == [None, 6]
    with pytest.raises(ValueError, match="list of inputs"):
        L.Add()(x1)
    with pytest.raises(ValueError, match="matching shapes except for the concat axis"):
        L.Concatenate(axis=-1)([tf.keras.Input(shape=(2, 3)), tf.keras.Input(shape=(3, 3))])
    with pytest.raises(ValueError, match="could not be broadcast"):
        L.Add()([x1, tf.keras.Input(shape=(4,))])


def rnn_ref(x, step, states):
    outs = []
    for t in range(x.shape[1]):
        out, states = step(x[:, t], states)
        outs.append(out)
    return np.stack(outs, 1), states


def test_simple_rnn():
    x = RNG.randn(2, 4, 3).astype(np.float32)
    w, u, b = (RNG.randn(3, 5).astype(np.float32) * 0.5, RNG.randn(5, 5).astype(np.float32) * 0.5,
               RNG.randn(5).astype(np.float32))
    layer = L.SimpleRNN(5, return_sequences=True)
    got = run(layer, x, [w, u, b])

    def step(xt, states):
        h = np.tanh(xt @ w + states[0] @ u + b)
        return h, [h]

    want, _ = rnn_ref(x, step, [np.zeros((2, 5), np.float32)])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    assert [v.name for v in layer.weights] == ["simple_rnn/kernel:0",
                                                "simple_rnn/recurrent_kernel:0",
                                                "simple_rnn/bias:0"]


def test_lstm_with_states_and_go_backwards():
    units = 3
    x = RNG.randn(2, 5, 4).astype(np.float32)
    w = RNG.randn(4, 4 * units).astype(np.float32) * 0.5
    u = RNG.randn(units, 4 * units).astype(np.float32) * 0.5
    b = RNG.randn(4 * units).astype(np.float32)

    def step(xt, states):
        h, c = states
        z = xt @ w + h @ u + b
        i, f = hard_sigmoid(z[:, :units]), hard_sigmoid(z[:, units:2 * units])
        c = f * c + i * np.tanh(z[:, 2 * units:3 * units])
        o = hard_sigmoid(z[:, 3 * units:])
        h = o * np.tanh(c)
        return h, [h, c]

    zeros = [np.zeros((2, units), np.float32)] * 2
    layer = L.LSTM(units, return_state=True)
    out, h, c = run(layer, x, [w, u, b])
    want_seq, (wh, wc) = rnn_ref(x, step, zeros)
    np.testing.assert_allclose(out, want_seq[:, -1], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(h, wh, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(c, wc, rtol=1e-4, atol=1e-5)
    back = run(L.LSTM(units, go_backwards=True), x, [w, u, b])
    want_back, _ = rnn_ref(x[:, ::-1], step, zeros)
    np.testing.assert_allclose(back, want_back[:, -1], rtol=1e-4, atol=1e-5)


def test_lstm_forget_bias_initialized_to_one():
    layer = L.LSTM(2)
    run(layer, np.zeros((1, 3, 2), np.float32))
    bias = K.get_value(layer.cell.bias)
    np.testing.assert_array_equal(bias, [0, 0, 1, 1, 0, 0, 0, 0])


def test_gru_both_variants():
    units = 3
    x = RNG.randn(2, 4, 2).astype(np.float32)
    w = RNG.randn(2, 3 * units).astype(np.float32) * 0.5
    u = RNG.randn(units, 3 * units).astype(np.float32) * 0.5
    b = RNG.randn(3 * units).astype(np.float32)

    def step(xt, states):
        h = states[0]
        xw = xt @ w + b
        z = hard_sigmoid(xw[:, :units] + h @ u[:, :units])
        r = hard_sigmoid(xw[:, units:2 * units] + h @ u[:, units:2 * units])
        hh = np.tanh(xw[:, 2 * units:] + (r * h) @ u[:, 2 * units:])
        h = z * h + (1 - z) * hh
        return h, [h]

    want, _ = rnn_ref(x, step, [np.zeros((2, units), np.float32)])
    np.testing.assert_allclose(run(L.GRU(units, return_sequences=True), x, [w, u, b]), want,
                               rtol=1e-4, atol=1e-5)
    b2 = RNG.randn(2, 3 * units).astype(np.float32)

    def step2(xt, states):
        h = states[0]
        xw = xt @ w + b2[0]
        hu = h @ u + b2[1]
        z = sigmoid(xw[:, :units] + hu[:, :units])
        r = sigmoid(xw[:, units:2 * units] + hu[:, units:2 * units])
        hh = np.tanh(xw[:, 2 * units:] + r * hu[:, 2 * units:])
        h = z * h + (1 - z) * hh
        return h, [h]

    want2, _ = rnn_ref(x, step2, [np.zeros((2, units), np.float32)])
    layer = L.GRU(units, reset_after=True, recurrent_activation="sigmoid")
    np.testing.assert_allclose(run(layer, x, [w, u, b2]), want2[:, -1], rtol=1e-4, atol=1e-5)


def test_bidirectional_and_time_distributed():
    x = RNG.randn(2, 3, 2).astype(np.float32)
    layer = L.Bidirectional(L.SimpleRNN(4, return_sequences=True))
    got = run(layer, x)
    assert got.shape == (2, 3, 8)
    names = [v.name for v in layer.weights]
    assert names[0] == "bidirectional/forward_simple_rnn/kernel:0"
    assert names[3] == "bidirectional/backward_simple_rnn/kernel:0"
    fw = layer.forward_layer.get_weights()
    bw = layer.backward_layer.get_weights()

    def seq(ws, xs):
        h = np.zeros((2, 4), np.float32)
        outs = []
        for t in range(xs.shape[1]):
            h = np.tanh(xs[:, t] @ ws[0] + h @ ws[1] + ws[2])
            outs.append(h)
        return np.stack(outs, 1)

    want = np.concatenate([seq(fw, x), seq(bw, x[:, ::-1])[:, ::-1]], -1)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    w, b = RNG.randn(2, 5).astype(np.float32), RNG.randn(5).astype(np.float32)
    td = L.TimeDistributed(L.Dense(5))
    np.testing.assert_allclose(run(td, x, [w, b]), x @ w + b, rtol=1e-5)


def test_custom_layer_with_add_weight_and_regularizer():
    class Scale(L.Layer):
        def build(self, input_shape):
            self.scale = self.add_weight("scale", shape=(int(input_shape[-1]),),
                                         initializer="ones",
                                         regularizer=tf.keras.regularizers.l2(0.1))
            super().build(input_shape)

        def call(self, inputs):
            return inputs * self.scale

    layer = Scale()
    x = RNG.randn(2, 3).astype(np.float32)
    np.testing.assert_allclose(run(layer, x, [np.array([1, 2, 3], np.float32)]),
                               x * [1, 2, 3])
    assert layer.name == "scale" and layer.weights[0].name == "scale/scale:0"
    assert len(layer.losses) == 1
    np.testing.assert_allclose(K.eval(layer.losses[0]), 0.1 * 14, rtol=1e-5)


def test_mask_zero_makes_rnns_skip_padding():
    emb = L.Embedding(10, 3, mask_zero=True)
    lstm = L.LSTM(4)
    ids = tf.keras.Input(shape=(None,))
    model = tf.keras.Model(ids, lstm(emb(ids)))
    seq = np.array([[3, 5, 7]])
    want = model.predict(seq)
    pre = np.array([[0, 0, 3, 5, 7]])
    post = np.array([[3, 5, 7, 0, 0]])
    mid = np.array([[3, 0, 5, 7, 0]])
    for padded in (pre, post, mid):
        np.testing.assert_allclose(model.predict(padded), want, rtol=1e-5, atol=1e-6)
    # without the mask the padding changes the result
    plain = tf.keras.Model(ids, lstm(L.Embedding(10, 3)(ids)))
    plain.layers[1].set_weights(emb.get_weights())
    assert not np.allclose(plain.predict(pre), want, atol=1e-4)


def test_mask_through_return_sequences_and_average_pooling():
    x = RNG.randn(1, 4, 2).astype(np.float32)
    x[0, 2:] = 0.0
    inp = tf.keras.Input(shape=(4, 2))
    masked = L.Masking(0.0)(inp)
    seq = L.SimpleRNN(3, return_sequences=True)(masked)
    pooled = L.GlobalAveragePooling1D()(seq)
    model = tf.keras.Model(inp, [seq, pooled])
    seq_v, pooled_v = model.predict(x)
    np.testing.assert_allclose(seq_v[0, 2], seq_v[0, 1], rtol=1e-6)  # masked: held output
    np.testing.assert_allclose(pooled_v[0], seq_v[0, :2].mean(0), rtol=1e-5)


def test_conv3d_and_3d_pooling():
    x = RNG.randn(1, 4, 5, 6, 2).astype(np.float32)
    w = RNG.randn(2, 3, 3, 2, 3).astype(np.float32)
    got = run(L.Conv3D(3, (2, 3, 3), use_bias=False), x, [w])
    want = np.zeros((1, 3, 3, 4, 3), np.float32)
    for i in range(3):
        for j in range(3):
            for k in range(4):
                want[0, i, j, k] = np.tensordot(x[0, i:i + 2, j:j + 3, k:k + 3], w, 4)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    y = RNG.randn(1, 4, 4, 4, 2).astype(np.float32)
    blocks = y.reshape(1, 2, 2, 2, 2, 2, 2, 2)
    np.testing.assert_allclose(run(L.MaxPooling3D(), y), blocks.max(axis=(2, 4, 6)))
    np.testing.assert_allclose(run(L.AveragePooling3D(), y), blocks.mean(axis=(2, 4, 6)),
                               rtol=1e-5)
    np.testing.assert_allclose(run(L.GlobalAveragePooling3D(), y), y.mean((1, 2, 3)),
                               rtol=1e-5)


def test_batch_normalization_4d_moving_variance_is_unbiased():
    x = RNG.randn(4, 3, 3, 2).astype(np.float32)
    layer = L.BatchNormalization(momentum=0.0)
    inp = tf.keras.Input(shape=(3, 3, 2))
    out = layer(inp, training=True)
    K.get_session().run([out, layer.updates], {inp: x})
    flat = x.reshape(-1, 2)
    np.testing.assert_allclose(K.get_value(layer.moving_variance), flat.var(0, ddof=1),
                               rtol=1e-4)
    np.testing.assert_allclose(K.get_value(layer.moving_mean), flat.mean(0), rtol=1e-4,
                               atol=1e-6)


def test_cudnn_lstm_and_gru_weights_and_values():
    units = 2
    x = RNG.randn(2, 3, 3).astype(np.float32)
    layer = L.CuDNNLSTM(units)
    run(layer, x)
    assert [tuple(w.shape) for w in layer.get_weights()] == [(3, 8), (2, 8), (16,)]
    np.testing.assert_array_equal(layer.get_weights()[2][10:12], [1, 1])
    w = RNG.randn(3, 4 * units).astype(np.float32)
    u = RNG.randn(units, 4 * units).astype(np.float32)
    b = RNG.randn(8 * units).astype(np.float32)

    def step(xt, states):
        h, c = states
        z = xt @ w + h @ u + b[:8] + b[8:]
        i, f = sigmoid(z[:, :2]), sigmoid(z[:, 2:4])
        c = f * c + i * np.tanh(z[:, 4:6])
        h = sigmoid(z[:, 6:]) * np.tanh(c)
        return h, [h, c]

    want, _ = rnn_ref(x, step, [np.zeros((2, units), np.float32)] * 2)
    np.testing.assert_allclose(run(L.CuDNNLSTM(units), x, [w, u, b]), want[:, -1], rtol=1e-4,
                               atol=1e-5)
    gw = RNG.randn(3, 3 * units).astype(np.float32)
    gu = RNG.randn(units, 3 * units).astype(np.float32)
    gb = RNG.randn(6 * units).astype(np.float32)
    gru = L.CuDNNGRU(units)
    got = run(gru, x, [gw, gu, gb])
    ref = L.GRU(units, reset_after=True, recurrent_activation="sigmoid")
    want = run(ref, x, [gw, gu, gb.reshape(2, -1)])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_gaussian_and_alpha_dropout_only_in_training():
    x = RNG.randn(500, 40).astype(np.float32)
    for layer in (L.GaussianDropout(0.3), L.AlphaDropout(0.3)):
        np.testing.assert_array_equal(run(layer, x), x)
    noisy = run(L.GaussianDropout(0.3), x, training=True)
    ratio = noisy / x
    assert abs(ratio.mean() - 1) < 0.02 and abs(ratio.var() - 0.3 / 0.7) < 0.03
    alpha = run(L.AlphaDropout(0.3), x, training=True)  # SELU statistics are kept
    assert abs(alpha.mean()) < 0.05 and abs(alpha.std() - 1) < 0.05


def test_rnn_with_a_custom_cell_and_stacked_cells():
    class MinimalRNNCell(L.Layer):  # the cell of Keras's documentation
        def __init__(self, units, **kwargs):
            self.units = units
            self.state_size = units
            super().__init__(**kwargs)

        def build(self, input_shape):
            self.kernel = self.add_weight(shape=(input_shape[-1], self.units),
                                          initializer="uniform", name="kernel")
            self.recurrent_kernel = self.add_weight(shape=(self.units, self.units),
                                                    initializer="uniform",
                                                    name="recurrent_kernel")
            self.built = True

        def call(self, inputs, states):
            prev_output = states[0]
            output = K.dot(inputs, self.kernel) + K.dot(prev_output, self.recurrent_kernel)
            return output, [output]

    x = RNG.randn(2, 3, 4).astype(np.float32)
    w, u = RNG.randn(4, 5).astype(np.float32), RNG.randn(5, 5).astype(np.float32) * 0.3
    layer = L.RNN(MinimalRNNCell(5), return_sequences=True)
    got = run(layer, x, [w, u])
    h, want = np.zeros((2, 5), np.float32), []
    for t in range(3):
        h = x[:, t] @ w + h @ u
        want.append(h)
    np.testing.assert_allclose(got, np.stack(want, 1), rtol=1e-4, atol=1e-5)

    stacked = L.RNN([MinimalRNNCell(5), L.SimpleRNNCell(2)], return_state=True)
    out, s1, s2 = run(stacked, x)
    assert out.shape == (2, 2) and s1.shape == (2, 5) and s2.shape == (2, 2)
    np.testing.assert_allclose(out, s2, rtol=1e-6)
    assert len(stacked.weights) == 2 + 3
