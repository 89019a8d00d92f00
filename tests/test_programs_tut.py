"""Regressions found by running TF 1.x tutorial programs (CS 20SI-style, MNIST MLP/CNN/RNN,
GAN, word2vec) against tideflow."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_minimize_takes_var_list_as_dict_values_and_dict():
    # GAN tutorials keep the weights in a dict and pass var_list=weights.values()
    gen = {"w": tf.Variable(2.0), "b": tf.Variable(-1.0)}
    disc = {"w": tf.Variable(3.0)}
    loss = (gen["w"] * disc["w"] + gen["b"]) ** 2  # at start: (6 - 1)^2 = 25
    g_step = tf.train.GradientDescentOptimizer(0.01).minimize(loss, var_list=gen.values())
    d_step = tf.train.GradientDescentOptimizer(0.01).minimize(loss, var_list=disc)
    grads = tf.train.GradientDescentOptimizer(0.1).compute_gradients(loss, var_list=gen.values())
    assert [v for _, v in grads] == [gen["w"], gen["b"]]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(g_step)
        # d loss/dw = 2*5*3 = 30, d loss/db = 2*5 = 10; the discriminator's weight is untouched
        np.testing.assert_allclose(sess.run([gen["w"], gen["b"], disc["w"]]),
                                   [2.0 - 0.3, -1.0 - 0.1, 3.0], rtol=1e-6)
        sess.run(d_step)
        r = 1.7 * 3.0 - 1.1
        np.testing.assert_allclose(sess.run(disc["w"]), 3.0 - 0.01 * 2 * r * 1.7, rtol=1e-6)


def test_decode_csv_columns_reassigned_by_the_program_leave_the_op_intact(tmp_path):
    # CS20-style CSV pipeline: ``cols[1] = tf.cond(tf.equal(cols[1], 'Present'), ...)``
    # rewrote the DecodeCSV op's own output list, so running the batch failed
    path = tmp_path / "rows.csv"
    rows = [(1.5, "Present", 3), (2.5, "Absent", 4), (4.0, "Present", 5)]
    path.write_text("a,b,c\n" + "".join(f"{a},{b},{c}\n" for a, b, c in rows))
    files = tf.train.string_input_producer([str(path)], shuffle=False, num_epochs=1)
    _, line = tf.TextLineReader(skip_header_lines=1).read(files)
    cols = tf.decode_csv(line, record_defaults=[[0.0], [""], [0]])
    cols[1] = tf.cond(tf.equal(cols[1], "Present"), lambda: tf.constant(1.0),
                      lambda: tf.constant(0.0))
    feats, lab = tf.train.batch([tf.stack(cols[:2]), cols[2]], batch_size=3)
    parts = tf.split(tf.constant([[1, 2], [3, 4]]), 2)
    parts[0] = tf.constant([[9, 9]])  # a user's list, not the Split op's
    pieces = tf.unstack(tf.constant([5, 6]))
    pieces[1] = None
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        f, l_ = sess.run([feats, lab])
        coord.request_stop()
        coord.join(threads)
        np.testing.assert_allclose(f, [[a, float(b == "Present")] for a, b, _ in rows])
        assert l_.tolist() == [c for _, _, c in rows]
        assert sess.run(tf.concat(parts, 0)).tolist() == [[9, 9], [3, 4]]
        assert parts[1].op.outputs[0].name.endswith(":0")
        assert sess.run(pieces[0].op.outputs[1]) == 6


def test_raw_ops_take_tf_python_argument_names():
    # tf.raw_ops uses TF's Python names where its api_defs rename an input or attr
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    r = tf.raw_ops
    outs = [r.Sum(input=x, axis=[1], keep_dims=True), r.Mean(input=x, axis=0),
            r.Split(axis=1, value=x, num_split=2),
            r.SplitV(value=x, size_splits=[1, 1], axis=0, num_split=2),
            r.ExpandDims(input=x, axis=0), r.Squeeze(input=tf.ones([1, 2]), axis=[0]),
            r.Select(condition=[True, False], x=[1, 2], y=[3, 4]),
            r.Where(condition=[False, True, True])]
    with tf.Session() as sess:
        got = sess.run(outs)
    xn = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(got[0], xn.sum(1, keepdims=True))
    np.testing.assert_allclose(got[1], xn.mean(0))
    np.testing.assert_allclose(np.concatenate(got[2], 1), xn)
    assert [p.shape for p in got[2]] == [(2, 1), (2, 1)]
    np.testing.assert_allclose(np.concatenate(got[3], 0), xn)
    assert got[4].shape == (1, 2, 2) and got[5].shape == (2,)
    assert got[6].tolist() == [1, 4] and got[7].tolist() == [[1], [2]]


def test_keras_sequential_started_with_input_layer_saves_and_loads(tmp_path):
    # Hvass-style Keras: Sequential() + add(InputLayer(input_shape=...)) + Reshape + Dense;
    # model.save then load_model found no input shape in the config and loaded no weights
    from tideflow.keras.layers import Dense, InputLayer, Reshape
    from tideflow.keras.models import Sequential, load_model

    model = Sequential()
    model.add(InputLayer(input_shape=(6,)))
    model.add(Reshape((2, 3)))
    model.add(Dense(4, activation="relu"))
    model.compile(optimizer="sgd", loss="mse")
    x = np.random.RandomState(0).rand(5, 6).astype(np.float32)
    before = model.predict(x)
    cfg = model.get_config()
    # as TF 1.15 (measured): the InputLayer is left out, its shape goes on the first layer
    assert [la["class_name"] for la in cfg["layers"]] == ["Reshape", "Dense"]
    assert list(cfg["layers"][0]["config"]["batch_input_shape"]) == [None, 6]
    path = str(tmp_path / "m.h5")
    model.save(path)
    loaded = load_model(path)
    assert [la.name for la in loaded.layers] == [la.name for la in model.layers]
    kernel, bias = model.layers[1].get_weights()
    np.testing.assert_allclose(before, np.maximum(x.reshape(5, 2, 3) @ kernel + bias, 0),
                               rtol=1e-5)
    np.testing.assert_allclose(loaded.predict(x), before, rtol=1e-6)


def test_keras_recurrent_layers_losses_and_metrics_take_keras_positional_order():
    # LSTM(32, "relu") is an activation (it set return_sequences); BinaryCrossentropy(True) is
    # from_logits (it set the reduction); TopKCategoricalAccuracy(1) is k
    from tideflow.keras import layers, losses, metrics

    lstm = layers.LSTM(3, "relu", "sigmoid")
    gru = layers.GRU(2, "tanh", "sigmoid", False)
    rnn = layers.SimpleRNN(2, "relu")
    assert lstm.cell.activation.__name__ == "relu" and not lstm.return_sequences
    assert lstm.cell.recurrent_activation.__name__ == "sigmoid"
    assert not gru.cell.use_bias and rnn.cell.activation.__name__ == "relu"
    assert layers.LSTM(3, return_sequences=True).return_sequences
    with pytest.raises(TypeError, match="multiple values for argument 'activation'"):
        layers.LSTM(3, "relu", activation="tanh")
    x = tf.constant(np.random.RandomState(0).randn(2, 4, 5).astype(np.float32))
    assert lstm(x).shape.as_list() == [2, 3] and gru(x).shape.as_list() == [2, 2]

    bce = losses.BinaryCrossentropy(True)
    huber = losses.Huber(0.5)
    assert bce.get_config()["from_logits"] is True and bce.get_config()["reduction"] == "auto"
    top1 = metrics.TopKCategoricalAccuracy(1)
    top3 = metrics.TopKCategoricalAccuracy(3, "top3")
    binacc = metrics.BinaryAccuracy("ba", None, 0.35)
    assert top3.get_config()["k"] == 3 and binacc.get_config()["threshold"] == 0.35
    y = np.eye(4, dtype=np.float32)[[3, 3]]
    p = np.array([[0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4]], np.float32)
    outs = [bce(tf.constant([[1.0], [0.0]]), tf.constant([[0.0], [2.0]])),
            huber(tf.constant([0.0, 0.0]), tf.constant([0.2, 2.0])),
            top1(y, p), top3(y, p),
            binacc(tf.constant([[1.0, 0.0]]), tf.constant([[0.36, 0.3]]))]
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(),
                  tf.variables_initializer(top1.variables + top3.variables + binacc.variables)])
        got = sess.run(outs)
    # logits 0 and 2: log(2) and softplus(2); Huber(0.5): 0.5*0.2^2 and 0.5*(2-0.25)
    np.testing.assert_allclose(got[0], (np.log(2) + np.log1p(np.exp(2))) / 2, rtol=1e-5)
    np.testing.assert_allclose(got[1], (0.5 * 0.04 + 0.5 * (2.0 - 0.25)) / 2, rtol=1e-5)
    assert got[2:] == [0.5, 0.5, 1.0]


def test_arg_max_arg_min_take_output_type_before_name():
    # tf.arg_max(input, dimension, output_type, name): TF's generated-op order
    x = tf.constant([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    hi = tf.arg_max(x, 1, tf.int32, "hi")
    lo = tf.arg_min(x, 0, tf.int32)
    assert hi.dtype == tf.int32 and hi.op.name == "hi" and lo.dtype == tf.int32
    with tf.Session() as sess:
        got_hi, got_lo = sess.run([hi, lo])
    assert got_hi.tolist() == [1, 0] and got_lo.tolist() == [0, 1, 0]


def test_keras_conv_layers_take_activation_and_initializers_positionally():
    # Keras's Conv2D(filters, kernel_size, strides, padding, data_format, dilation_rate,
    # activation, use_bias, kernel_initializer, ...): the tail was keyword-only
    from tideflow.keras import layers

    conv = layers.Conv2D(2, 1, 1, "same", None, 1, "relu", False, "ones")
    c1 = layers.Conv1D(1, 2, 1, "valid", "channels_last", 1, None, True, "ones", "ones")
    x = np.arange(-4.0, 4.0, dtype=np.float32).reshape(1, 2, 2, 2)
    y = conv(tf.constant(x))
    z = c1(tf.constant(np.arange(6.0, dtype=np.float32).reshape(1, 3, 2)))
    assert conv.activation.__name__ == "relu" and not conv.use_bias
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got_y, got_z = sess.run([y, z])
    # all-ones 1x1 kernel: each output channel is the relu of the channel sum
    np.testing.assert_allclose(got_y, np.repeat(np.maximum(x.sum(-1, keepdims=True), 0), 2, -1))
    # kernel 2 of ones over 2 channels plus a bias of one: window sums + 1
    np.testing.assert_allclose(got_z[0, :, 0], [0 + 1 + 2 + 3 + 1, 2 + 3 + 4 + 5 + 1])


def test_nn_avg_pool2d_is_the_v1_avg_pool_taking_value():
    # TF 1.x exports avg_pool(value, ksize, strides, padding, ...) as tf.nn.avg_pool2d too
    xn = np.arange(16.0, dtype=np.float32).reshape(1, 4, 4, 1)
    a = tf.nn.avg_pool2d(value=tf.constant(xn), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                         padding="VALID")
    b = tf.nn.avg_pool2d(tf.constant(xn), [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    with tf.Session() as sess:
        got_a, got_b = sess.run([a, b])
    want = xn.reshape(2, 2, 2, 2).mean(axis=(1, 3)).reshape(1, 2, 2, 1)
    np.testing.assert_allclose(got_a, want)
    np.testing.assert_allclose(got_b, want)
