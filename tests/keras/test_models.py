"""tf.keras models: Sequential, functional and subclassed; compile/fit/evaluate/predict,
the on-batch methods, multiple outputs, metrics naming, optimizers and bad input errors."""

import numpy as np
import pytest

import tideflow as tf

K = tf.keras.backend
L = tf.keras.layers


def mlp(num_classes=10, input_dim=64, hidden=32):
    return tf.keras.Sequential([
        L.Dense(hidden, activation="relu", input_shape=(input_dim,)),
        L.Dropout(0.1),
        L.Dense(num_classes, activation="softmax"),
    ])


def test_sequential_digits_sparse_labels(digits):
    x, y, xt, yt = digits
    model = mlp()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    assert model.metrics_names == ["loss", "acc"]
    hist = model.fit(x, y, batch_size=32, epochs=10, verbose=0)
    assert list(hist.history) == ["loss", "acc"]
    assert len(hist.history["loss"]) == 10 and hist.epoch == list(range(10))
    assert hist.history["loss"][-1] < hist.history["loss"][0]
    _, acc = model.evaluate(xt, yt, verbose=0)
    assert acc > 0.9, acc
    probs = model.predict(xt)
    assert probs.shape == (len(xt), 10)
    np.testing.assert_allclose(probs.sum(1), 1, rtol=1e-5)
    assert np.mean(probs.argmax(1) == yt) == pytest.approx(acc, abs=1e-6)
    np.testing.assert_array_equal(model.predict_classes(xt[:5]), probs[:5].argmax(1))


def test_functional_digits_one_hot_with_validation(digits):
    x, y, xt, yt = digits
    inp = tf.keras.Input(shape=(64,), name="pixels")
    h = L.Dense(32, activation="tanh")(inp)
    out = L.Dense(10, activation="softmax")(h)
    model = tf.keras.Model(inputs=inp, outputs=out)
    model.compile(tf.keras.optimizers.SGD(lr=0.1, momentum=0.9), "categorical_crossentropy",
                  metrics=["acc", "mae"])
    y1 = tf.keras.utils.to_categorical(y, 10)
    hist = model.fit(x, y1, epochs=5, validation_data=(xt, tf.keras.utils.to_categorical(yt)),
                     verbose=0)
    assert list(hist.history) == ["loss", "acc", "mean_absolute_error", "val_loss", "val_acc",
                                  "val_mean_absolute_error"]
    assert hist.history["val_acc"][-1] > 0.9
    assert [la.name for la in model.layers] == ["pixels", "dense", "dense_1"]
    assert model.inputs[0].name == "pixels:0"


def test_binary_accuracy_picked_for_one_unit_output():
    rng = np.random.RandomState(0)
    x = rng.randn(400, 2).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.float32)
    model = tf.keras.Sequential([L.Dense(1, activation="sigmoid", input_dim=2)])
    model.compile(tf.keras.optimizers.Adam(0.05), "binary_crossentropy", metrics=["accuracy"])
    model.fit(x, y, epochs=10, verbose=0, batch_size=50)
    _, acc = model.evaluate(x, y, verbose=0)
    assert acc > 0.95
    pred = model.predict(x)
    assert pred.shape == (400, 1)
    assert acc == pytest.approx(np.mean((pred[:, 0] > 0.5) == y), abs=1e-6)


def test_regression_mse_train_on_batch_and_test_on_batch():
    rng = np.random.RandomState(1)
    x = rng.randn(256, 3).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3
    model = tf.keras.Sequential([L.Dense(1, input_shape=(3,))])
    model.compile("sgd", "mse")
    first = model.train_on_batch(x, y)
    assert isinstance(first, np.float32)  # the fetched numpy scalar, as TF returns
    for _ in range(300):
        model.train_on_batch(x, y)
    assert model.test_on_batch(x, y) < 1e-3 < first
    kernel, bias = model.get_weights()
    np.testing.assert_allclose(kernel[:, 0], [1, -2, 0.5], atol=0.02)
    np.testing.assert_allclose(bias, [0.3], atol=0.02)
    assert model.evaluate(x, y, verbose=0) == pytest.approx(model.test_on_batch(x, y),
                                                            rel=1e-4)
    np.testing.assert_allclose(model.predict_on_batch(x[:4]), model.predict(x[:4]), rtol=1e-6)


def test_subclassed_model_builds_on_fit_and_tracks_layers(digits):
    x, y, xt, yt = digits

    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = L.Dense(32, activation="relu")
            self.drop = L.Dropout(0.2)
            self.out = L.Dense(10, activation="softmax")

        def call(self, inputs, training=None):
            return self.out(self.drop(self.hidden(inputs), training=training))

    model = Net()
    model.compile(tf.train.AdamOptimizer(0.01), "sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    model.fit(x, y, epochs=3, verbose=0)
    assert model.evaluate(xt, yt, verbose=0)[1] > 0.9
    assert model.name == "net"
    assert [v.name for v in model.trainable_variables] == [
        "net/dense/kernel:0", "net/dense/bias:0", "net/dense_1/kernel:0", "net/dense_1/bias:0"]
    assert len(model.layers) == 3


def test_model_called_on_new_tensor_reuses_weights():
    inner = mlp(num_classes=3, input_dim=4, hidden=5)
    x = tf.placeholder(tf.float32, [None, 4])
    y = inner(x)
    assert y.get_shape().as_list() == [None, 3]
    data = np.random.RandomState(0).randn(6, 4).astype(np.float32)
    np.testing.assert_allclose(K.get_session().run(y, {x: data}), inner.predict(data),
                               rtol=1e-5)
    n_vars = len(tf.global_variables())
    outer_in = tf.keras.Input(shape=(4,))
    outer = tf.keras.Model(outer_in, L.Activation("relu")(inner(outer_in)))
    assert len(tf.global_variables()) == n_vars
    assert len(outer.weights) == 4


def test_multi_output_losses_weights_and_names():
    rng = np.random.RandomState(0)
    x = rng.randn(128, 5).astype(np.float32)
    inp = tf.keras.Input(shape=(5,))
    h = L.Dense(8, activation="relu")(inp)
    reg = L.Dense(1, name="reg")(h)
    cls = L.Dense(3, activation="softmax", name="cls")(h)
    model = tf.keras.Model(inp, [reg, cls])
    model.compile("adam", loss={"reg": "mse", "cls": "sparse_categorical_crossentropy"},
                  loss_weights={"reg": 0.5, "cls": 2.0}, metrics={"cls": "accuracy"})
    assert model.metrics_names == ["loss", "reg_loss", "cls_loss", "cls_acc"]
    y_reg, y_cls = x[:, :1], rng.randint(0, 3, 128)
    loss, reg_loss, cls_loss, _ = model.evaluate(x, [y_reg, y_cls], verbose=0)
    assert loss == pytest.approx(0.5 * reg_loss + 2.0 * cls_loss, rel=1e-5)
    hist = model.fit(x, {"reg": y_reg, "cls": y_cls}, epochs=2, verbose=0)
    assert set(hist.history) == {"loss", "reg_loss", "cls_loss", "cls_acc"}
    outs = model.predict(x)
    assert [o.shape for o in outs] == [(128, 1), (128, 3)]


def test_batchnorm_moving_statistics_move_during_fit():
    rng = np.random.RandomState(0)
    x = (rng.randn(64, 3) * 2 + 5).astype(np.float32)
    model = tf.keras.Sequential([L.BatchNormalization(input_shape=(3,)), L.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(x, np.zeros((64, 1)), epochs=20, batch_size=64, verbose=0)
    bn = model.layers[0]
    mean = K.get_value(bn.moving_mean)
    np.testing.assert_allclose(mean, (1 - 0.99 ** 20) * x.mean(0), rtol=1e-3)


def test_regularization_losses_join_the_total_loss():
    x = np.ones((4, 2), np.float32)
    model = tf.keras.Sequential([
        L.Dense(1, input_shape=(2,), kernel_initializer="ones", bias_initializer="zeros",
                kernel_regularizer=tf.keras.regularizers.l2(0.5))])
    model.compile("sgd", "mse")
    assert len(model.losses) == 1
    # prediction 2, target 2 => mse 0; l2: 0.5 * (1 + 1)
    assert model.evaluate(x, np.full((4, 1), 2.0), verbose=0) == pytest.approx(1.0)


@pytest.mark.parametrize("opt", ["sgd", "adam", "rmsprop", "adagrad", "adadelta", "adamax",
                                 "nadam"])
def test_optimizers_by_name_reduce_the_loss(opt):
    rng = np.random.RandomState(0)
    x = rng.randn(64, 4).astype(np.float32)
    y = x.sum(1, keepdims=True)
    model = tf.keras.Sequential([L.Dense(1, input_shape=(4,))])
    model.compile(opt, "mse")
    before = model.evaluate(x, y, verbose=0)
    model.fit(x, y, epochs=3, batch_size=8, verbose=0)
    assert model.evaluate(x, y, verbose=0) < before
    assert K.get_value(model.optimizer.iterations) == 24


def test_sgd_update_rule_and_decay():
    model = tf.keras.Sequential([L.Dense(1, use_bias=False, kernel_initializer="zeros",
                                         input_shape=(1,))])
    opt = tf.keras.optimizers.SGD(learning_rate=0.1, decay=1.0)
    model.compile(opt, "mse")
    x, y = np.ones((1, 1)), np.ones((1, 1))
    model.train_on_batch(x, y)  # grad = 2 * (0 - 1) = -2; lr 0.1 -> w = 0.2
    np.testing.assert_allclose(model.get_weights()[0], [[0.2]], rtol=1e-6)
    model.train_on_batch(x, y)  # grad = -1.6; lr 0.1 / (1 + 1) -> w = 0.28
    np.testing.assert_allclose(model.get_weights()[0], [[0.28]], rtol=1e-5)
    assert opt.get_config()["learning_rate"] == pytest.approx(0.1)
    K.set_value(opt.lr, 0.5)
    assert K.get_value(model.optimizer.lr) == pytest.approx(0.5)


def test_get_set_weights_round_trip_between_models():
    a, b = mlp(input_dim=4, num_classes=2), mlp(input_dim=4, num_classes=2)
    b.set_weights(a.get_weights())
    x = np.random.RandomState(0).randn(3, 4)
    np.testing.assert_allclose(a.predict(x), b.predict(x), rtol=1e-6)
    with pytest.raises(ValueError, match="expecting 4 weights"):
        b.set_weights(a.get_weights()[:2])


def test_deferred_sequential_builds_from_data():
    model = tf.keras.Sequential()
    model.add(L.Dense(4, activation="relu"))
    model.add(L.Dense(2))
    model.compile("adam", "mse")
    assert not model.inputs
    model.fit(np.zeros((8, 3)), np.zeros((8, 2)), verbose=0)
    assert model.inputs[0].get_shape().as_list() == [None, 3]
    assert model.predict(np.zeros((2, 3))).shape == (2, 2)
    model.pop()
    assert len(model.layers) == 1


def test_bad_input_shapes_name_what_was_expected():
    model = mlp(input_dim=4, num_classes=3)
    model.compile("sgd", "categorical_crossentropy")
    # The shapes in these messages are the ones TF 2.21 (tf_keras, graph mode) shows: the
    # sample shape (3,) for inputs, the loss's check for targets.
    with pytest.raises(ValueError, match=r"expected dense_input to have shape \(4,\) but got "
                                         r"array with shape \(3,\)"):
        model.predict(np.zeros((5, 3)))
    with pytest.raises(ValueError, match="expected dense_input to have 2 dimensions"):
        model.predict(np.zeros((5, 4, 1)))
    with pytest.raises(ValueError, match=r"A target array with shape \(5, 2\) was passed for an "
                                         r"output of shape \(None, 3\) while using as loss "
                                         r"`categorical_crossentropy`"):
        model.fit(np.zeros((5, 4)), np.zeros((5, 2)), verbose=0)
    with pytest.raises(ValueError, match="same number of samples"):
        model.fit(np.zeros((5, 4)), np.zeros((6, 3)), verbose=0)
    layer = L.Dense(2)
    layer(L.Dense(3)(tf.keras.Input(shape=(2,))))
    with pytest.raises(ValueError, match=r"dense_2 is incompatible with the layer: expected "
                                         r"axis -1 of input shape to have value 3"):
        layer(tf.keras.Input(shape=(7,)))


def test_graph_disconnected_and_uncompiled_errors():
    a, b = tf.keras.Input(shape=(2,)), tf.keras.Input(shape=(2,))
    out = L.add([a, b])
    with pytest.raises(ValueError, match="Graph disconnected"):
        tf.keras.Model(a, out)
    model = tf.keras.Model([a, b], out)
    with pytest.raises(RuntimeError, match="must compile"):
        model.fit([np.zeros((2, 2))] * 2, np.zeros((2, 2)), verbose=0)
    with pytest.raises(ValueError, match="Unknown loss function"):
        model.compile("sgd", "nope")
        model.fit([np.zeros((2, 2))] * 2, np.zeros((2, 2)), verbose=0)


def test_summary_table(capsys):
    model = mlp(input_dim=4, num_classes=3, hidden=5)
    model.summary()
    text = capsys.readouterr().out
    assert 'Model: "sequential"' in text
    assert "dense (Dense)" in text and "(None, 5)" in text and "25" in text
    assert "dropout (Dropout)" in text
    assert "Total params: 43" in text and "Trainable params: 43" in text
    assert "Non-trainable params: 0" in text


def test_fit_verbose_prints_keras_progress(capsys):
    model = mlp(input_dim=4, num_classes=3, hidden=5)
    model.compile("sgd", "sparse_categorical_crossentropy", metrics=["acc"])
    model.fit(np.zeros((10, 4)), np.zeros(10), epochs=2, verbose=2, validation_split=0.2)
    text = capsys.readouterr().out
    assert "Train on 8 samples, validate on 2 samples" in text
    assert "Epoch 2/2" in text and "val_acc:" in text


def test_sample_weight_and_class_weight():
    x = np.ones((4, 1), np.float32)
    y = np.array([[0.0], [1.0], [2.0], [3.0]], np.float32)
    model = tf.keras.Sequential([L.Dense(1, use_bias=False, kernel_initializer="zeros",
                                         input_shape=(1,))])
    model.compile("sgd", "mse")
    w = np.array([1.0, 0.0, 0.0, 2.0], np.float32)
    # per-sample losses 0, 1, 4, 9 -> sum(w * l) / 4
    assert model.evaluate(x, y, sample_weight=w, verbose=0) == pytest.approx(18 / 4)
    assert model.test_on_batch(x, y, sample_weight=w) == pytest.approx(18 / 4)
    # weight only on the sample with target 3: training drives the prediction to 3
    model.compile(tf.keras.optimizers.SGD(0.5), "mse")
    for _ in range(100):
        model.train_on_batch(x, y, sample_weight=np.array([0, 0, 0, 1.0], np.float32))
    np.testing.assert_allclose(model.predict(x[:1]), [[3.0]], atol=1e-3)

    clf = tf.keras.Sequential([L.Dense(2, activation="softmax", input_shape=(1,))])
    clf.compile(tf.keras.optimizers.SGD(0.5), "sparse_categorical_crossentropy")
    xs = np.zeros((10, 1), np.float32)  # no signal: the prior follows the class weights
    ys = np.array([0] * 5 + [1] * 5)
    clf.fit(xs, ys, class_weight={0: 1.0, 1: 3.0}, epochs=60, batch_size=10, verbose=0)
    np.testing.assert_allclose(clf.predict(xs[:1])[0], [0.25, 0.75], atol=0.02)


def test_fit_evaluate_predict_on_tf_data(digits):
    x, y, xt, yt = digits
    train = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(500).batch(50).repeat()
    model = mlp()
    model.compile(tf.keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    hist = model.fit(train, epochs=4, steps_per_epoch=28, verbose=0,
                     validation_data=tf.data.Dataset.from_tensor_slices((xt, yt)).batch(100))
    assert len(hist.history["val_acc"]) == 4
    assert hist.history["val_acc"][-1] > 0.9
    test = tf.data.Dataset.from_tensor_slices((xt, yt)).batch(64)
    _, acc = model.evaluate(test, verbose=0)
    assert acc == pytest.approx(hist.history["val_acc"][-1], abs=1e-6)
    probs = model.predict(tf.data.Dataset.from_tensor_slices(xt).batch(64))
    assert probs.shape == (len(xt), 10)
    assert np.mean(probs.argmax(1) == yt) == pytest.approx(acc, abs=1e-6)


def test_metric_objects_standalone_and_in_compile():
    from sklearn.metrics import roc_auc_score

    rng = np.random.RandomState(0)
    y = (rng.rand(300) > 0.5).astype(np.float32)
    p = np.clip(y * 0.3 + rng.rand(300) * 0.7, 0, 1).astype(np.float32)
    auc = tf.keras.metrics.AUC(num_thresholds=1000)
    K.get_session().run(auc.update_state(y[:150], p[:150]))
    K.get_session().run(auc.update_state(y[150:], p[150:]))
    assert K.eval(auc.result()) == pytest.approx(roc_auc_score(y, p), abs=2e-3)
    auc.reset_states()
    assert K.eval(auc.result()) == 0.0
    mean = tf.keras.metrics.Mean()
    K.get_session().run(mean.update_state([1.0, 2.0, 6.0]))
    assert K.eval(mean.result()) == pytest.approx(3.0)
    prec, rec = tf.keras.metrics.Precision(), tf.keras.metrics.Recall()
    K.get_session().run([prec.update_state([1, 0, 1, 1], [0.9, 0.8, 0.2, 0.7]),
                         rec.update_state([1, 0, 1, 1], [0.9, 0.8, 0.2, 0.7])])
    assert K.eval(prec.result()) == pytest.approx(2 / 3)
    assert K.eval(rec.result()) == pytest.approx(2 / 3)

    x = p[:, None]
    model = tf.keras.Sequential([L.Dense(1, activation="sigmoid", input_shape=(1,))])
    model.compile("sgd", "binary_crossentropy",
                  metrics=[tf.keras.metrics.AUC(num_thresholds=1000), "accuracy"])
    # (as TF 1.15: the second AUC made in this graph is auc_1)
    assert model.metrics_names == ["loss", "auc_1", "acc"]
    model.set_weights([np.array([[5.0]], np.float32), np.array([-2.5], np.float32)])
    _, got_auc, _ = model.evaluate(x, y, batch_size=64, verbose=0)  # state spans batches
    assert got_auc == pytest.approx(roc_auc_score(y, p), abs=2e-3)
    hist = model.fit(x, y, batch_size=50, epochs=2, verbose=0)
    assert 0.5 < hist.history["auc_1"][-1] <= 1.0


def test_trainable_flag_is_read_at_compile_time_gan_style():
    disc = tf.keras.Sequential([L.Dense(1, activation="sigmoid", input_shape=(2,))])
    disc.compile("sgd", "binary_crossentropy")
    disc.trainable = False
    gen_in = tf.keras.Input(shape=(3,))
    gen = L.Dense(2, name="gen")(gen_in)
    combined = tf.keras.Model(gen_in, disc(gen))
    combined.compile("sgd", "binary_crossentropy")
    assert [v.name for v in combined._collected_trainable_weights] == ["gen/kernel:0",
                                                                       "gen/bias:0"]
    d_before = disc.get_weights()
    combined.train_on_batch(np.ones((4, 3)), np.ones((4, 1)))
    for a, b in zip(d_before, disc.get_weights()):
        np.testing.assert_array_equal(a, b)  # frozen in the combined model
    disc.train_on_batch(np.ones((4, 2)), np.zeros((4, 1)))
    assert not np.array_equal(d_before[0], disc.get_weights()[0])  # trains on its own


def test_rmsprop_and_adam_first_steps_follow_keras_rules():
    def one_step(opt):
        K.clear_session()
        model = tf.keras.Sequential([L.Dense(1, use_bias=False, kernel_initializer="zeros",
                                             input_shape=(1,))])
        model.compile(opt, "mse")
        model.train_on_batch(np.ones((1, 1)), np.ones((1, 1)))  # gradient -2
        return float(model.get_weights()[0][0, 0])

    # RMSprop: ms = 0.1 * 4 (ms starts at 0) -> step lr * 2 / sqrt(0.4 + eps)
    assert one_step(tf.keras.optimizers.RMSprop(0.01)) == pytest.approx(
        0.01 * 2 / np.sqrt(0.4 + 1e-7), rel=1e-5)
    # Adam: the first step is lr * sign(g)
    assert one_step(tf.keras.optimizers.Adam(0.01)) == pytest.approx(0.01, rel=1e-4)


def _all_layer_kinds():
    return [
        L.Dense(3, activation="relu", kernel_regularizer="l2"), L.Activation("tanh"),
        L.Dropout(0.3), L.Flatten(), L.Reshape((2, 3)), L.Permute((2, 1)), L.RepeatVector(2),
        L.LeakyReLU(0.2), L.ReLU(max_value=6.0), L.ELU(0.5), L.Softmax(), L.PReLU(),
        L.ThresholdedReLU(0.5), L.Conv1D(2, 3, padding="causal"), L.Conv2D(2, (3, 2)),
        L.Conv2DTranspose(2, 3, strides=2), L.DepthwiseConv2D(3, depth_multiplier=2),
        L.SeparableConv2D(2, 3), L.MaxPooling2D(3), L.AveragePooling1D(2),
        L.GlobalMaxPooling2D(), L.ZeroPadding2D(2), L.UpSampling2D(3), L.Cropping2D(1),
        L.BatchNormalization(momentum=0.9), L.LayerNormalization(), L.Embedding(5, 2),
        L.LSTM(3, return_sequences=True), L.GRU(2, reset_after=True), L.SimpleRNN(4),
        L.Bidirectional(L.LSTM(2), merge_mode="sum"), L.TimeDistributed(L.Dense(2)),
        L.Concatenate(axis=1), L.Dot(axes=1), L.Add(), L.Masking(0.5), L.GaussianNoise(0.1),
        L.CuDNNLSTM(3, return_sequences=True), L.CuDNNGRU(2), L.Conv3D(2, 2),
        L.MaxPooling3D(), L.GaussianDropout(0.2), L.AlphaDropout(0.1),
    ]


def test_layer_configs_round_trip():
    for layer in _all_layer_kinds():
        config = layer.get_config()
        clone = L.deserialize({"class_name": type(layer).__name__, "config": config})
        assert type(clone) is type(layer)
        assert clone.get_config() == config, type(layer).__name__


def test_functional_model_config_json_and_clone():
    inp = tf.keras.Input(shape=(4,))
    shared = L.Dense(3, name="shared")
    a = shared(inp)
    b = shared(L.Dense(4, name="pre")(inp))
    out = L.Dense(2, activation="softmax", name="out")(L.concatenate([a, b]))
    model = tf.keras.Model(inp, out, name="net")
    x = np.random.RandomState(0).randn(5, 4).astype(np.float32)
    want = model.predict(x)
    again = tf.keras.models.model_from_json(model.to_json())
    assert [la.name for la in again.layers] == [la.name for la in model.layers]
    again.set_weights(model.get_weights())
    np.testing.assert_allclose(again.predict(x), want, rtol=1e-6)
    clone = tf.keras.models.clone_model(model)
    assert len(clone.weights) == len(model.weights) == 6
    assert not any(a is b for a, b in zip(clone.weights, model.weights))
    clone.set_weights(model.get_weights())
    np.testing.assert_allclose(clone.predict(x), want, rtol=1e-6)
    seq = mlp(input_dim=4, num_classes=2)
    seq_clone = tf.keras.models.clone_model(seq)
    seq_clone.set_weights(seq.get_weights())
    np.testing.assert_allclose(seq_clone.predict(x), seq.predict(x), rtol=1e-6)


def test_add_loss_model_trains_without_targets():
    inp = tf.keras.Input(shape=(6,))
    code = L.Dense(2, activation="tanh", name="code")(inp)
    out = L.Dense(6, name="recon")(code)
    model = tf.keras.Model(inp, out)
    model.add_loss(K.mean(K.sum(K.square(out - inp), axis=-1)))
    model.compile(tf.keras.optimizers.Adam(0.02))
    assert model.metrics_names == ["loss"]
    x = np.random.RandomState(0).randn(128, 6).astype(np.float32)
    x[:, 3:] = x[:, :3]  # rank-3 data: a 2-unit code cannot rebuild it all, but can improve
    hist = model.fit(x, epochs=5, batch_size=32, verbose=0, validation_data=(x, None))
    assert hist.history["loss"][-1] < hist.history["loss"][0]
    assert set(hist.history) == {"loss", "val_loss"}
    want = np.mean(np.sum((model.predict(x) - x) ** 2, axis=-1))
    assert model.evaluate(x, verbose=0) == pytest.approx(want, rel=1e-4)
    with pytest.raises(ValueError, match="takes no targets"):
        model.fit(x, x, verbose=0)


def test_subclass_forgetting_super_init_is_reported():
    class Bad(tf.keras.Model):
        def __init__(self):
            self.units = 3  # plain values before super().__init__ are fine (Keras allows it)
            self.dense = L.Dense(self.units)
            super().__init__()

    with pytest.raises(RuntimeError, match=r"forgot to call `super\(Bad, self\).__init__\(\)`"):
        Bad()


def test_fit_generator_with_sequence_and_python_generator(digits):
    x, y, xt, yt = digits

    class Batches(tf.keras.utils.Sequence):
        def __init__(self):
            self.epochs_seen = 0

        def __len__(self):
            return 28

        def __getitem__(self, i):
            return x[i * 50:(i + 1) * 50], y[i * 50:(i + 1) * 50]

        def on_epoch_end(self):
            self.epochs_seen += 1

    model = mlp()
    model.compile(tf.keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    seq = Batches()
    hist = model.fit_generator(seq, epochs=3, validation_data=(xt, yt), verbose=0)
    assert seq.epochs_seen == 3
    assert list(hist.history) == ["loss", "acc", "val_loss", "val_acc"]
    assert hist.history["val_acc"][-1] > 0.9

    def forever():
        while True:
            for i in range(0, len(x), 100):
                yield x[i:i + 100], y[i:i + 100]

    model.fit_generator(forever(), steps_per_epoch=5, epochs=1, verbose=0)
    _, acc = model.evaluate_generator(Batches())
    assert acc == pytest.approx(model.evaluate(x, y, verbose=0)[1], abs=1e-6)
    assert model.predict_generator(Batches(), steps=2).shape == (100, 10)


def test_nested_and_shared_models(capsys):
    inner = tf.keras.Sequential([L.Dense(8, activation="relu"), L.Dense(4)])
    outer = tf.keras.Sequential([L.Dense(6, input_shape=(3,)), inner, L.Dense(1)])
    assert inner.output_shape == (None, 4)  # built by its first call
    assert len(outer.weights) == 8
    outer.compile("adam", "mse")
    outer.fit(np.ones((8, 3)), np.ones(8), verbose=0)
    base = tf.keras.Sequential([L.Dense(4, activation="relu", input_shape=(5,))])
    a, b = L.Input((5,), name="left"), L.Input((5,), name="right")
    diff = L.Lambda(lambda t: K.abs(t[0] - t[1]))([base(a), base(b)])
    model = tf.keras.Model([a, b], L.Dense(1, activation="sigmoid")(diff))
    assert len(model.weights) == 4  # the shared tower once
    model.summary()
    text = capsys.readouterr().out
    assert "left[0][0]" in text and "right[0][0]" in text
    # as TF 1.15: node 0 of a model built with its input shape is its own (inputs to outputs),
    # so the two calls are nodes 1 and 2
    assert f"{base.name}[1][0]" in text and f"{base.name}[2][0]" in text
    model.compile("adam", "binary_crossentropy")
    before = base.get_weights()[0].copy()
    model.fit([np.random.randn(16, 5), np.random.randn(16, 5)], np.ones(16), verbose=0)
    assert not np.array_equal(before, base.get_weights()[0])


def test_subclassed_call_gets_the_learning_phase():
    class Noisy(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.drop = L.Dropout(0.5)
            self.out = L.Dense(1, kernel_initializer="ones", use_bias=False)

        def call(self, inputs, training=False):  # a default that fit must override
            return self.out(self.drop(inputs, training=training))

    model = Noisy()
    model.compile("sgd", "mse")
    x = np.ones((200, 10), np.float32)
    model.build((None, 10))
    pred = model.predict(x)
    np.testing.assert_allclose(pred, 10.0)  # inference: no dropout
    train_out = K.get_session().run(model.outputs[0], {model.inputs[0]: x,
                                                       K.learning_phase(): True})
    assert train_out.std() > 1.0  # training: dropout is on


def test_learning_rate_schedules():
    S = tf.keras.optimizers.schedules
    steps = K.placeholder(shape=(), dtype="int64")
    sched = {
        "exp": S.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5),
        "stair": S.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5, staircase=True),
        "inv": S.InverseTimeDecay(0.1, decay_steps=10, decay_rate=1.0),
        "pw": S.PiecewiseConstantDecay([5, 10], [1.0, 0.5, 0.1]),
        "poly": S.PolynomialDecay(1.0, decay_steps=10, end_learning_rate=0.0, power=2.0),
    }
    tensors = {k: v(steps) for k, v in sched.items()}
    got = K.get_session().run(tensors, {steps: 15})
    assert got["exp"] == pytest.approx(0.1 * 0.5 ** 1.5)
    assert got["stair"] == pytest.approx(0.05)
    assert got["inv"] == pytest.approx(0.1 / 2.5)
    assert got["pw"] == pytest.approx(0.1)
    assert got["poly"] == pytest.approx(0.0)
    assert K.get_session().run(tensors["pw"], {steps: 5}) == pytest.approx(1.0)

    model = tf.keras.Sequential([L.Dense(1, use_bias=False, kernel_initializer="zeros",
                                         input_shape=(1,))])
    model.compile(tf.keras.optimizers.SGD(S.PiecewiseConstantDecay([0], [0.1, 0.01])), "mse")
    x, y = np.ones((1, 1)), np.ones((1, 1))
    model.train_on_batch(x, y)  # step 0: lr 0.1, grad -2 -> 0.2
    model.train_on_batch(x, y)  # step 1: lr 0.01, grad -1.6 -> 0.216
    np.testing.assert_allclose(model.get_weights()[0], [[0.216]], rtol=1e-5)


def test_get_updates_for_and_get_losses_for():
    inp = tf.keras.Input(shape=(3,))
    bn = L.BatchNormalization()
    dense = L.Dense(2, kernel_regularizer="l2", activity_regularizer="l1")
    model = tf.keras.Model(inp, dense(bn(inp)))
    other = tf.keras.Input(shape=(3,))
    bn(other)
    assert len(model.get_updates_for(model.inputs)) == 2
    assert len(bn.get_updates_for(other)) == 2 and bn.get_updates_for(None) == []
    assert not any(u is v for u in bn.get_updates_for(other)
                   for v in model.get_updates_for(model.inputs))
    assert len(dense.get_losses_for(None)) == 1  # the kernel regularizer
    assert len(dense.get_losses_for(bn.get_output_at(0))) == 1  # its activity regularizer


def test_fit_on_symbolic_tensors_and_iterators(digits):
    x, y, xt, yt = digits
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(50).repeat()
    bx, by = ds.make_one_shot_iterator().get_next()
    model = mlp()
    model.compile(tf.keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    model.fit(bx, by, steps_per_epoch=28, epochs=3, verbose=0)
    it = tf.data.Dataset.from_tensor_slices((xt, yt)).batch(397).repeat() \
        .make_one_shot_iterator()
    _, acc = model.evaluate(it, steps=1, verbose=0)
    assert acc > 0.9
    assert acc == pytest.approx(model.evaluate(xt, yt, verbose=0)[1], abs=1e-6)
    with pytest.raises(ValueError, match="specify the `steps_per_epoch`"):
        model.fit(bx, by, verbose=0)


def test_model_on_input_tensors_and_target_tensors(digits):
    x, y, _, _ = digits
    ds = tf.data.Dataset.from_tensor_slices((x, y.astype(np.float32))).batch(50).repeat()
    bx, by = ds.make_one_shot_iterator().get_next()
    bx.set_shape([None, 64])
    inp = tf.keras.Input(tensor=bx)
    hidden = L.Dense(32, activation="relu")(inp)
    out = L.Dense(10, activation="softmax")(hidden)
    model = tf.keras.Model(inp, out)
    model.compile(tf.keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy",
                  metrics=["accuracy"], target_tensors=[by])
    hist = model.fit(epochs=3, steps_per_epoch=28, verbose=0)
    assert hist.history["acc"][-1] > 0.9
    _, acc = model.evaluate(steps=5, verbose=0)
    assert acc > 0.9
