"""tf.keras as TF 1.15 ships it, against TF 1.15's printed outputs: fit/evaluate/predict
progress bars (verbose=1 and 2), the History's params, callback logs, datasets without
steps. Expected strings and values are what TF 1.15 printed for the same programs."""

import re

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g
    tf.keras.backend.clear_session()


X = np.arange(20, dtype=np.float32).reshape(10, 2) / 10.0
Y = np.array([1, 1, 1, 1, 0, 0, 0, 0, 1, 1], np.float32)


def _model():
    m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,), activation="sigmoid",
                                                   kernel_initializer="ones")])
    m.compile("sgd", "binary_crossentropy", metrics=["acc"])
    return m


class _Log(tf.keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.lines = []

    def on_batch_end(self, batch, logs=None):
        self.lines.append(f"b {batch} {logs['size']} {round(float(logs['acc']), 4)}")

    def on_epoch_end(self, epoch, logs=None):
        p = self.params
        self.lines.append(f"e {epoch} {p['verbose']} {p['steps']} {p['samples']}")


def _untimed(text):
    text = re.sub(r"\d+(us|ms|s)/(sample|step)", "T", text)
    return re.sub(r" - \d+s", " - Ts", text)


def test_dataset_fit_without_steps_counts_its_batches_and_restarts_validation(capsys):
    m = _model()
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).batch(4)
    log = _Log()
    h = m.fit(ds, epochs=2, verbose=2, validation_data=ds, callbacks=[log])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Train on 3 steps, validate on 3 steps"
    assert out[1] == "Epoch 1/2"
    assert _untimed(out[2]) == ("3/3 - Ts - loss: 0.9552 - acc: 0.6000 - val_loss: 0.9468 - "
                                "val_acc: 0.6000")
    # the validation pass starts again from the dataset's first batch each epoch
    assert _untimed(out[4]) == ("3/3 - Ts - loss: 0.9490 - acc: 0.6000 - val_loss: 0.9406 - "
                                "val_acc: 0.6000")
    # batch logs: size 1 per step, the accuracy so far in the epoch; the validation pass
    # sets the shared params' verbose to 0
    assert log.lines == ["b 0 1 1.0", "b 1 1 0.5", "b 2 1 0.6", "e 0 0 3 3",
                         "b 0 1 1.0", "b 1 1 0.5", "b 2 1 0.6", "e 1 0 3 3"]
    assert h.params == {"batch_size": None, "epochs": 2, "steps": 3, "samples": 3,
                        "verbose": 0, "do_validation": True,
                        "metrics": ["loss", "acc", "val_loss", "val_acc"]}
    np.testing.assert_allclose(h.history["val_loss"], [0.9468, 0.9406], atol=1e-4)


def test_array_fit_batch_logs_and_evaluate_predict_lines(capsys):
    m = _model()
    log = _Log()
    m.fit(X, Y, epochs=1, batch_size=4, verbose=0, callbacks=[log], shuffle=False)
    assert log.lines == ["b 0 4 1.0", "b 1 4 0.5", "b 2 2 0.6", "e 0 0 None 10"]
    capsys.readouterr()
    np.testing.assert_allclose(m.evaluate(X, Y, batch_size=4, verbose=2),
                               [1.1299327738583087, 0.6], rtol=1e-5)
    assert m.predict(X, batch_size=4, verbose=2).shape == (10, 1)
    out = capsys.readouterr().out.splitlines()
    assert [_untimed(s) for s in out] == ["10/10 - Ts - loss: 1.1299 - acc: 0.6000",
                                          "10/10 - Ts"]


def test_verbose_one_redraws_the_bar_as_tf_does_on_posix(capsys):
    m = _model()
    m.fit(X, Y, epochs=1, batch_size=4, verbose=1, shuffle=False)
    m.evaluate(X, Y, batch_size=4)
    m.predict(X, batch_size=4, verbose=1)
    out = _untimed(capsys.readouterr().out)
    back = "\b" * 77
    # (a middle redraw appears only when 50 ms passed since the last one)
    out = re.sub(r"\r 8/10 \[[^\b]*" + back, "", out)
    assert out == (
        "Train on 10 samples\n"
        "\r 4/10 [===========>..................] - ETA: 0s - loss: 0.4252 - acc: 1.0000"
        + back + "\r10/10 [==============================] - Ts T - loss: 1.1400 - acc: 0.6000\n"
        "\r 4/10 [===========>..................] - ETA: 0s - loss: 0.4287 - acc: 1.0000"
        + back + "\r10/10 [==============================] - Ts T - loss: 1.1299 - acc: 0.6000\n"
        "\r 4/10 [===========>..................] - ETA: 0s" + "\b" * 48
        + "\r10/10 [==============================] - Ts T\n")


def test_progbar_formats_small_values_in_e_notation(capsys):
    pb = tf.keras.utils.Progbar(3, interval=0)
    for i in range(3):
        pb.update(i + 1, [("a", 1e-5 * (i + 1)), ("b", -2.0)])
    pb = tf.keras.utils.Progbar(4, verbose=2, stateful_metrics=["s"])
    pb.update(2, [("s", 3.0), ("t", 1.0)])
    pb.update(4, [("s", 5.0), ("t", -3.0)])
    out = _untimed(capsys.readouterr().out)
    assert out == (
        "\r1/3 [=========>....................] - ETA: 0s - a: 1.0000e-05 - b: -2.0000"
        + "\b" * 75
        + "\r2/3 [===================>..........] - ETA: 0s - a: 1.5000e-05 - b: -2.0000"
        + "\b" * 75
        + "\r3/3 [==============================] - Ts T - a: 2.0000e-05 - b: -2.0000\n"
        # verbose=2 tests the value itself (no abs): a negative mean is in e notation
        "4/4 - Ts - s: 5.0000 - t: -1.0000e+00\n")


def test_fit_generator_validation_draws_a_bar_on_the_fits_params(capsys):
    m = _model()

    def gen():
        while True:
            yield X[:4], Y[:4]

    m.fit_generator(gen(), steps_per_epoch=2, epochs=2, verbose=2, validation_data=gen(),
                    validation_steps=3)
    out = [_untimed(s) for s in capsys.readouterr().out.splitlines()]
    assert out == [
        "Epoch 1/2", "Epoch 1/2", "3/2 - Ts - loss: 0.4225 - acc: 1.0000",
        "2/2 - Ts - loss: 0.4245 - acc: 1.0000 - val_loss: 0.4225 - val_acc: 1.0000",
        "Epoch 2/2", "Epoch 1/2", "3/2 - Ts - loss: 0.4198 - acc: 1.0000",
        "2/2 - Ts - loss: 0.4218 - acc: 1.0000 - val_loss: 0.4198 - val_acc: 1.0000"]


def test_generator_evaluate_and_predict_draw_bars(capsys):
    m = _model()

    def gen():
        while True:
            yield X[:4], Y[:4]

    m.evaluate_generator(gen(), steps=2, verbose=2)
    m.predict_generator((a for a, _ in gen()), steps=3, verbose=2)
    out = [_untimed(s) for s in capsys.readouterr().out.splitlines()]
    assert out == ["2/2 - Ts - loss: 0.4252 - acc: 1.0000", "3/3 - Ts"]


def test_infinite_dataset_without_steps_is_refused():
    m = _model()
    ds = tf.data.Dataset.from_tensor_slices((X, Y)).batch(4).repeat()
    with pytest.raises(ValueError, match="infinitely repeating dataset, you must specify the "
                                         "`steps_per_epoch` argument"):
        m.fit(ds, epochs=1, verbose=0)


def test_sequential_without_input_shape_runs_its_layers_on_the_tensor_it_is_called_on():
    tf.set_random_seed(1)
    m = tf.keras.Sequential([tf.keras.layers.Dense(2), tf.keras.layers.Dense(3)])
    x = tf.placeholder(tf.float32, [None, 4])
    y = m(x)
    # as TF 1.15: no Input of its own and one pass of its layers, in its name scope
    assert y.name == "sequential/dense_1/BiasAdd:0"
    assert len(tf.get_default_graph().get_operations()) == 41
    assert m.inputs == [x] and m.outputs == [y]
    w = tf.Variable(tf.random_normal([3]))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(w), [-1.711882, 0.12859929, -0.34886026], rtol=1e-5)
        np.testing.assert_allclose(s.run(y, {x: np.ones((1, 4))}),
                                   [[0.8141929, -0.28918105, 0.09258594]], rtol=1e-5)


def test_nested_sequential_without_input_shape_shows_its_shapes(capsys):
    inner = tf.keras.Sequential([tf.keras.layers.Dense(8), tf.keras.layers.Dense(4)])
    outer = tf.keras.Sequential([tf.keras.layers.Dense(6, input_shape=(3,)), inner,
                                 tf.keras.layers.Dense(1)])
    assert inner.output_shape == (None, 4)
    assert inner.outputs[0].name == "sequential/dense_1/BiasAdd:0"
    assert outer.layers[1] is inner
    inner.summary()
    rows = [r for r in capsys.readouterr().out.splitlines() if "(Dense)" in r]
    assert [r.split()[2:4] for r in rows] == [["(None,", "8)"], ["(None,", "4)"]]


def test_layer_configs_keep_tf_keys_order_and_dtype():
    L = tf.keras.layers
    assert list(L.LSTM(3).get_config())[:11] == [
        "name", "trainable", "dtype", "return_sequences", "return_state", "go_backwards",
        "stateful", "unroll", "time_major", "units", "activation"]
    assert list(L.GRU(2).get_config())[-3:] == ["recurrent_dropout", "implementation",
                                                "reset_after"]
    assert list(L.SimpleRNN(2).get_config())[9:12] == ["units", "activation", "use_bias"]
    # a layer given no dtype has none until its first call
    assert L.Dropout(0.3).get_config() == {"name": "dropout", "trainable": True, "dtype": None,
                                           "rate": 0.3, "noise_shape": None, "seed": None}
    assert list(L.MaxPooling2D().get_config()) == ["name", "trainable", "dtype", "pool_size",
                                                   "padding", "strides", "data_format"]
    assert list(L.MaxPooling1D().get_config())[3:] == ["strides", "pool_size", "padding",
                                                       "data_format"]
    emb = L.Embedding(5, 2).get_config()
    assert list(emb)[:4] == ["name", "trainable", "batch_input_shape", "dtype"]
    assert emb["batch_input_shape"] == (None, None) and emb["dtype"] == "float32"
    assert list(L.Lambda(lambda t: t).get_config())[3:] == [
        "function", "function_type", "module", "output_shape", "output_shape_type",
        "output_shape_module", "arguments"]
    bn = L.BatchNormalization()
    assert bn.get_config()["axis"] == -1
    d = L.Dense(2)
    d(tf.keras.Input((3,)))
    bn(tf.keras.Input((4,)))
    assert bn.get_config()["axis"] == [1] and d.get_config()["dtype"] == "float32"


def test_one_batch_epoch_is_fed_in_order_after_the_shuffle_draw():
    # TF 1.15 shuffles the index (drawing from NumPy's generator) but feeds a single batch
    # as given: the seeded dropout masks meet the same rows
    tf.set_random_seed(3)
    np.random.seed(3)
    x = np.random.rand(6, 3).astype("float32")
    y = np.random.rand(6, 1).astype("float32")
    m = tf.keras.Sequential([tf.keras.layers.Dropout(0.5, input_shape=(3,)),
                             tf.keras.layers.Dense(1, kernel_initializer="ones")])
    m.compile("sgd", "mse")
    h = m.fit(x, y, epochs=2, verbose=0)
    np.testing.assert_allclose(h.history["loss"], [4.114698886871338, 1.9193586111068726],
                               rtol=1e-5)
    np.testing.assert_allclose(m.get_weights()[0].ravel(), [0.9672604, 0.94600576, 0.9456261],
                               rtol=1e-5)


@pytest.mark.parametrize("layer, seed2", [("GRU", 328), ("LSTM", 337), ("SimpleRNN", 182)])
def test_backward_rnn_over_a_mask_takes_tf_op_count(layer, seed2):
    # TF 1.15's backend.rnn reverses the mask as well as the inputs: the next random op's
    # seed (its op count) is TF's
    tf.set_random_seed(1)
    inp = tf.keras.Input(shape=(6,), dtype="int32")
    e = tf.keras.layers.Embedding(20, 5, mask_zero=True)(inp)
    getattr(tf.keras.layers, layer)(3, go_backwards=True)(e)
    tf.random_normal([3])
    op = tf.get_default_graph().get_operation_by_name("random_normal/RandomStandardNormal")
    assert op.get_attr("seed2") == seed2


def test_array_validation_draws_a_shuffle_each_pass():
    # TF 1.15's validation loop shuffles (its default) even when the fit does not: what
    # NumPy's generator gives afterwards is TF's
    np.random.seed(1)
    x = np.arange(12, dtype=np.float32).reshape(6, 2) / 10
    y = np.ones((6, 1), np.float32)
    m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,),
                                                   kernel_initializer="ones")])
    m.compile("sgd", "mse")
    m.fit(x, y, epochs=2, batch_size=2, verbose=0, shuffle=False, validation_data=(x, y))
    assert np.random.rand() == pytest.approx(0.3965807272960261, abs=1e-15)
    m.fit(x, y, epochs=1, batch_size=2, verbose=0, shuffle=False, validation_split=0.5)
    assert np.random.rand() == pytest.approx(0.39676747423066994, abs=1e-15)


def test_on_batch_metrics_carry_the_state_left_by_the_last_loop():
    # TF 1.15's metric states (per-output losses and metrics by name) are means since their
    # last reset: evaluate leaves its state, train/test_on_batch reset after their batch
    # unless reset_metrics=False
    x = np.arange(16, dtype=np.float32).reshape(8, 2) / 10
    y = np.array([0, 1, 1, 0, 1, 1, 1, 0], np.float32)
    inp = tf.keras.Input((2,))
    o1 = tf.keras.layers.Dense(1, activation="sigmoid", kernel_initializer="ones", name="a")(inp)
    o2 = tf.keras.layers.Dense(1, kernel_initializer="ones", name="b")(inp)
    m = tf.keras.Model(inp, [o1, o2])
    m.compile("sgd", ["binary_crossentropy", "mse"], metrics=["acc"])
    got = [m.evaluate(x, [y, y], batch_size=4, verbose=0),
           m.train_on_batch(x[:3], [y[:3], y[:3]]),
           m.train_on_batch(x[:3], [y[:3], y[:3]], reset_metrics=False),
           m.train_on_batch(x[3:], [y[3:], y[3:]], reset_metrics=False),
           m.test_on_batch(x[:2], [y[:2], y[:2]]),
           m.test_on_batch(x[:2], [y[:2], y[:2]])]
    expected = [[2.592049241065979, 0.8020493, 1.7900001, 0.625, 0.625],
                [0.6098758, 0.7079914, 1.2233334, 0.6363636, 0.6363636],
                [0.6084229, 0.5197662, 0.08865667, 0.6666667, 1.0],
                [3.8175504, 0.7461001, 1.4668865, 0.625, 0.75],
                [0.75775635, 0.7004738, 1.0274361, 0.6, 0.7],
                [0.75775635, 0.60922116, 0.14853519, 0.5, 0.5]]
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-5)


def test_concatenate_refuses_a_known_batch_beside_an_unknown_one():
    a = tf.keras.Input((4,), batch_size=4)
    b = tf.keras.Input((10,))
    with pytest.raises(ValueError, match="A `Concatenate` layer requires inputs with matching "
                                         "shapes except for the concat axis"):
        tf.keras.layers.concatenate([a, b])
    assert tf.keras.layers.concatenate([tf.keras.Input((4,)), b]).shape.as_list() == [None, 14]


@pytest.mark.parametrize("call", ["predict", "evaluate"])
def test_refused_inputs_make_no_function_ops(call):
    # TF 1.15 checks the arrays before it makes the predict/test function: a refused call
    # leaves the op count (the next random op's seed) as it was
    tf.set_random_seed(1)
    m = tf.keras.Sequential([tf.keras.layers.Dense(1, activation="sigmoid", input_shape=(3,))])
    m.compile("adam", "binary_crossentropy")
    args = [np.ones((12, 2), np.float32)] + ([np.ones((12, 1), np.float32)]
                                             if call == "evaluate" else [])
    with pytest.raises(ValueError, match="expected dense_input to have shape"):
        getattr(m, call)(*args)
    tf.random_normal([3])
    op = tf.get_default_graph().get_operation_by_name("random_normal/RandomStandardNormal")
    assert op.get_attr("seed2") == 59


def test_tf_optimizer_wrapper_has_no_variables_method():
    m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    m.compile(optimizer=tf.train.AdamOptimizer(0.01), loss="mse")
    assert type(m.optimizer).__name__ == "TFOptimizer"
    assert not hasattr(m.optimizer, "variables")


def test_resource_global_step_increment_is_one_op_as_tf():
    # tf.train optimizers wrapped by Keras step its resource ``iterations``: TF 1.15 makes
    # the increment a Const and the update op named after the scope, and no read
    tf.set_random_seed(1)
    m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    m.compile(optimizer=tf.train.AdamOptimizer(0.01), loss="mse", metrics=["mse", "mae"])
    m.fit(np.ones((12, 3), np.float32), np.ones((12, 1), np.float32), verbose=0,
          batch_size=12)
    g = tf.get_default_graph()
    assert g.get_operation_by_name("training/Adam").inputs[1].op.name == "training/Adam/Const"
    tf.random_normal([3])
    assert g.get_operation_by_name("random_normal/RandomStandardNormal").get_attr(
        "seed2") == 278


def test_predict_resets_the_metric_states_as_tf_loops_do():
    tf.set_random_seed(1)
    m = tf.keras.Sequential([tf.keras.layers.Dense(1, activation="sigmoid", input_shape=(3,))])
    m.compile("adam", "binary_crossentropy", metrics=["acc"])
    m.predict(np.ones((12, 3), np.float32))
    tf.random_normal([3])
    op = tf.get_default_graph().get_operation_by_name("random_normal/RandomStandardNormal")
    assert op.get_attr("seed2") == 100  # (TF 1.15's metric reset ops made by predict)
    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    y = np.array([[1], [0], [0], [0]], np.float32)
    m.evaluate(x, np.ones((4, 1), np.float32), verbose=0)
    m.predict(x)
    # the evaluation's accuracy state is gone: the batch's own accuracy
    assert m.test_on_batch(x, y)[1] == pytest.approx(
        np.mean((m.predict(x) > 0.5) == (y > 0.5)))
