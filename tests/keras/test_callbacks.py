"""tf.keras.callbacks and weight saving: real files written and read back."""

import csv
import glob
import os

import numpy as np
import pytest

import tideflow as tf

K = tf.keras.backend
L = tf.keras.layers


def small_model(lr=0.05):
    model = tf.keras.Sequential([L.Dense(8, activation="relu", input_shape=(4,)),
                                 L.Dense(1)])
    model.compile(tf.keras.optimizers.SGD(lr), "mse", metrics=["mae"])
    return model


def data(n=64, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.randn(n, 4).astype(np.float32)
    return x, x[:, :1] * 2 - x[:, 1:2]


def test_callback_hooks_order_and_logs():
    events = []

    class Recorder(tf.keras.callbacks.Callback):
        def on_train_begin(self, logs=None):
            events.append(("train_begin", self.params["epochs"]))

        def on_epoch_begin(self, epoch, logs=None):
            events.append(("epoch_begin", epoch))

        def on_batch_end(self, batch, logs=None):
            events.append(("batch_end", batch, logs["size"], "loss" in logs))

        def on_epoch_end(self, epoch, logs=None):
            events.append(("epoch_end", epoch, sorted(logs)))

        def on_train_end(self, logs=None):
            events.append(("train_end",))

    x, y = data(10)
    model = small_model()
    model.fit(x, y, batch_size=4, epochs=2, verbose=0, callbacks=[Recorder()],
              validation_data=(x, y))
    assert events[0] == ("train_begin", 2)
    assert events[1] == ("epoch_begin", 0)
    assert events[2:5] == [("batch_end", 0, 4, True), ("batch_end", 1, 4, True),
                           ("batch_end", 2, 2, True)]
    assert events[5] == ("epoch_end", 0, ["loss", "mean_absolute_error", "val_loss",
                                          "val_mean_absolute_error"])
    assert events[-1] == ("train_end",)


def test_epoch_loss_is_the_sample_weighted_mean_of_batches():
    x, y = data(10)
    model = small_model(lr=0.0)  # no learning: every batch sees the same weights
    losses = []
    cb = tf.keras.callbacks.LambdaCallback(
        on_batch_end=lambda b, logs: losses.append((logs["loss"], logs["size"])))
    hist = model.fit(x, y, batch_size=4, epochs=1, verbose=0, callbacks=[cb], shuffle=False)
    want = sum(v * n for v, n in losses) / 10
    assert hist.history["loss"][0] == pytest.approx(want, rel=1e-5)
    assert hist.history["loss"][0] == pytest.approx(model.evaluate(x, y, verbose=0)[0],
                                                    rel=1e-5)


def test_early_stopping_stops_and_restores_best_weights():
    x, y = data()
    model = small_model(lr=0.0)  # the loss never improves after the first epoch
    stop = tf.keras.callbacks.EarlyStopping(monitor="loss", patience=2, min_delta=1e-4)
    hist = model.fit(x, y, epochs=20, verbose=0, callbacks=[stop])
    assert len(hist.history["loss"]) == 3
    assert stop.stopped_epoch == 2

    model = small_model(lr=0.5)  # diverges: the best epoch is the first
    stop = tf.keras.callbacks.EarlyStopping(monitor="loss", patience=1,
                                            restore_best_weights=True)
    model.fit(x * 100, y, epochs=10, verbose=0, callbacks=[stop])
    assert stop.best_weights is not None
    for got, want in zip(model.get_weights(), stop.best_weights):
        np.testing.assert_array_equal(got, want)


def test_model_checkpoint_writes_weight_files(tmp_path):
    x, y = data()
    model = small_model()
    pattern = str(tmp_path / "w.{epoch:02d}-{val_loss:.2f}.ckpt")
    ckpt = tf.keras.callbacks.ModelCheckpoint(pattern, save_weights_only=True)
    model.fit(x, y, epochs=3, verbose=0, callbacks=[ckpt], validation_split=0.25)
    written = sorted(glob.glob(str(tmp_path / "w.*.ckpt.index")))
    assert [os.path.basename(p)[:5] for p in written] == ["w.01-", "w.02-", "w.03-"]
    final = model.get_weights()
    model.load_weights(written[0][:-len(".index")])
    assert not all(np.array_equal(a, b) for a, b in zip(model.get_weights(), final))
    model.load_weights(written[-1][:-len(".index")])
    for a, b in zip(model.get_weights(), final):
        np.testing.assert_array_equal(a, b)


def test_model_checkpoint_save_best_only(tmp_path):
    x, y = data()
    model = small_model(lr=0.0)
    path = str(tmp_path / "best.ckpt")
    ckpt = tf.keras.callbacks.ModelCheckpoint(path, monitor="loss", save_best_only=True,
                                              save_weights_only=True, verbose=1)
    model.fit(x, y, epochs=3, verbose=0, callbacks=[ckpt])
    assert os.path.exists(path + ".index")
    assert ckpt.best == pytest.approx(model.evaluate(x, y, verbose=0)[0], rel=1e-5)


def test_learning_rate_scheduler_and_reduce_on_plateau():
    x, y = data()
    model = small_model()
    seen = []
    sched = tf.keras.callbacks.LearningRateScheduler(lambda epoch: 0.1 / (epoch + 1))
    probe = tf.keras.callbacks.LambdaCallback(
        on_epoch_begin=lambda e, logs: seen.append(float(K.get_value(model.optimizer.lr))))
    hist = model.fit(x, y, epochs=3, verbose=0, callbacks=[sched, probe])
    np.testing.assert_allclose(seen, [0.1, 0.05, 0.1 / 3], rtol=1e-6)
    np.testing.assert_allclose(hist.history["lr"], [0.1, 0.05, 0.1 / 3], rtol=1e-6)

    model = small_model(lr=0.0)
    plateau = tf.keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1)
    model.fit(x, y, epochs=3, verbose=0, callbacks=[plateau])
    model2 = small_model(lr=0.08)
    plateau = tf.keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1,
                                                   min_delta=1e9)
    model2.fit(x, y, epochs=3, verbose=0, callbacks=[plateau])
    assert float(K.get_value(model2.optimizer.lr)) == pytest.approx(0.02)


def test_terminate_on_nan():
    x, y = data()
    model = small_model(lr=1e30)
    hist = model.fit(x * 1e10, y, epochs=5, verbose=0,
                     callbacks=[tf.keras.callbacks.TerminateOnNaN()])
    assert len(hist.history["loss"]) == 1


def test_csv_logger(tmp_path):
    x, y = data()
    path = str(tmp_path / "log.csv")
    small_model().fit(x, y, epochs=2, verbose=0, validation_split=0.5,
                      callbacks=[tf.keras.callbacks.CSVLogger(path)])
    with open(path) as f:
        rows = list(csv.DictReader(f))
    assert [r["epoch"] for r in rows] == ["0", "1"]
    assert set(rows[0]) == {"epoch", "loss", "mean_absolute_error", "val_loss",
                            "val_mean_absolute_error"}


def test_tensorboard_writes_scalar_events(tmp_path):
    x, y = data()
    model = small_model()
    model.fit(x, y, epochs=2, verbose=0,
              callbacks=[tf.keras.callbacks.TensorBoard(log_dir=str(tmp_path))])
    # (and, as TF 1.15, the profiled batch's empty "*.profile-empty" event file)
    files = sorted(glob.glob(str(tmp_path / "events.out.tfevents.*")))
    assert len(files) == 2 and files[1].endswith(".profile-empty")
    tags = {}
    for event in tf.train.summary_iterator(files[0]):
        for v in event.summary.value:
            tags.setdefault(v.tag, []).append((event.step, v.simple_value))
    # TF 1.15's graph-mode TensorBoard prefixes the epoch logs with epoch_
    assert [s for s, _ in tags["epoch_loss"]] == [0, 1]
    assert "epoch_mean_absolute_error" in tags


def test_save_and_load_weights_checkpoint_round_trip(tmp_path):
    x, _ = data()
    model = small_model()
    want = model.predict(x)
    path = str(tmp_path / "sub" / "weights")
    model.save_weights(path)
    assert os.path.exists(path + ".index")
    names = dict(tf.train.list_variables(path))
    assert names["layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE"] == [4, 8]
    assert names["layer_with_weights-1/bias/.ATTRIBUTES/VARIABLE_VALUE"] == [1]

    tf.keras.backend.clear_session()
    fresh = small_model()
    assert not np.allclose(fresh.predict(x), want)
    fresh.load_weights(path)
    np.testing.assert_allclose(fresh.predict(x), want, rtol=1e-6)
    # the same architecture under other variable names (a second model in the graph)
    other = small_model()
    assert other.weights[0].name != fresh.weights[0].name
    other.load_weights(path)
    np.testing.assert_allclose(other.predict(x), want, rtol=1e-6)


def test_hdf5_weights_and_model_round_trip(tmp_path):
    # h5py is a dependency: .h5 weights and whole models write and read back
    x, y = data()
    model = small_model()
    model.fit(x, y, epochs=1, verbose=0)
    want = model.predict(x)
    model.save_weights(str(tmp_path / "w.h5"))
    model.save(str(tmp_path / "m.h5"))
    tf.keras.backend.clear_session()
    fresh = small_model()
    fresh.load_weights(str(tmp_path / "w.h5"))
    np.testing.assert_allclose(fresh.predict(x), want, rtol=1e-6)
    loaded = tf.keras.models.load_model(str(tmp_path / "m.h5"))
    np.testing.assert_allclose(loaded.predict(x), want, rtol=1e-6)


def test_callbacks_see_the_validation_arrays():
    x, y = data(20)
    seen = {}

    class ValAuc(tf.keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            vx, vy = self.validation_data[0], self.validation_data[1]
            seen["pred"] = self.model.predict(vx)
            seen["y"] = vy

    small_model().fit(x, y, epochs=1, verbose=0, validation_split=0.25, callbacks=[ValAuc()])
    assert seen["pred"].shape == (5, 1)
    np.testing.assert_array_equal(seen["y"], y[15:])
