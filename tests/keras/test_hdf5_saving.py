"""Keras HDF5 whole-model saving (model.save / tf.keras.models.load_model), HDF5 weights and
ModelCheckpoint's full-model files: real .h5 files written, inspected with h5py, loaded into a
fresh graph and session."""

import glob
import json
import os

import h5py
import numpy as np
import pytest

import tideflow as tf

K = tf.keras.backend
L = tf.keras.layers
RNG = np.random.RandomState(0)


def fresh():
    """A new graph and Keras session (what a new process would have)."""
    K.clear_session()
    tf.set_random_seed(1)


def sequential():
    model = tf.keras.Sequential([
        L.Conv2D(4, 3, activation="relu", input_shape=(6, 6, 2)),
        L.BatchNormalization(),
        L.Flatten(),
        L.Dropout(0.3),
        L.Dense(3, activation="softmax")])
    model.compile(tf.keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    return model


def image_data(n=16):
    x = RNG.randn(n, 6, 6, 2).astype(np.float32)
    y = (x[:, :, :, 0].sum((1, 2)) > 0).astype(np.int32) + (x[:, 0, 0, 1] > 1)
    return x, y


def functional(drop=0.2):
    ids = tf.keras.Input(shape=(5,), name="ids")
    dense_in = tf.keras.Input(shape=(3,), name="feats")
    seq = L.LSTM(4)(L.Embedding(12, 3)(ids))
    h = L.concatenate([seq, L.Dense(4, activation="tanh")(dense_in)])
    h = L.BatchNormalization()(h)
    out = L.Dense(1, name="score")(L.Dropout(drop)(h))
    model = tf.keras.Model([ids, dense_in], out)
    model.compile(tf.keras.optimizers.SGD(0.05, momentum=0.9), "mse", metrics=["mae"])
    return model


def seq_data(n=16):
    ids = RNG.randint(0, 12, (n, 5))
    feats = RNG.randn(n, 3).astype(np.float32)
    return [ids, feats], (ids.mean(1, keepdims=True) / 6 + feats[:, :1]).astype(np.float32)


def test_sequential_round_trip_predicts_the_same(tmp_path):
    path = str(tmp_path / "seq.h5")
    x, y = image_data()
    model = sequential()
    model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    model.save(path)
    want = model.predict(x)
    names = list(model.metrics_names)
    fresh()
    loaded = tf.keras.models.load_model(path)
    assert [type(la).__name__ for la in loaded.layers] == \
        ["Conv2D", "BatchNormalization", "Flatten", "Dropout", "Dense"]
    np.testing.assert_allclose(loaded.predict(x), want, rtol=1e-5, atol=1e-6)
    assert loaded.optimizer.get_config()["learning_rate"] == pytest.approx(0.01)
    assert loaded.metrics_names == names
    assert loaded.layers[3].rate == 0.3


def test_compiled_model_continues_training_with_the_same_losses(tmp_path):
    path = str(tmp_path / "f.h5")
    x, y = seq_data()
    model = functional(drop=0.0)  # Dropout off: the losses below are deterministic
    model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    model.save(path)
    # the original model, continued (its metric states zeroed first: as TF 1.15's, fit leaves
    # them holding its last epoch, which a loaded model does not have)
    model.reset_metrics()
    cont = [model.train_on_batch(x, y) for _ in range(3)]
    fresh()
    loaded = tf.keras.models.load_model(path)
    assert loaded.layers[-2].rate == 0.0
    got = [loaded.train_on_batch(x, y) for _ in range(3)]
    np.testing.assert_allclose(got, cont, rtol=1e-5)
    # momentum state was restored: a freshly compiled optimizer gives other losses
    fresh()
    other = tf.keras.models.load_model(path, compile=False)
    other.compile(tf.keras.optimizers.SGD(0.05, momentum=0.9), "mse", metrics=["mae"])
    restarted = [other.train_on_batch(x, y) for _ in range(3)]
    assert not np.allclose(restarted, cont, rtol=1e-5)


def test_functional_predictions_equal_and_uncompiled_load(tmp_path):
    path = str(tmp_path / "f.h5")
    x, _ = seq_data()
    model = functional()
    want = model.predict(x)
    model.save(path, include_optimizer=False)
    fresh()
    with pytest.warns(UserWarning, match="No training configuration"):
        loaded = tf.keras.models.load_model(path)
    assert loaded.optimizer is None
    assert [t.name.split(":")[0] for t in loaded.inputs] == ["ids", "feats"]
    np.testing.assert_allclose(loaded.predict(x), want, rtol=1e-5, atol=1e-6)
    with h5py.File(path, "r") as f:
        assert "training_config" not in f.attrs and "optimizer_weights" not in f


def test_file_layout(tmp_path):
    path = str(tmp_path / "seq.h5")
    x, y = image_data()
    model = sequential()
    model.fit(x, y, epochs=1, batch_size=16, verbose=0)
    tf.keras.models.save_model(model, path)
    with h5py.File(path, "r") as f:
        attrs = {k: f.attrs[k] for k in f.attrs}
        assert set(attrs) == {"keras_version", "backend", "model_config", "training_config"}
        assert attrs["backend"] in (b"tensorflow", "tensorflow")
        config = json.loads(attrs["model_config"])
        assert config["class_name"] == "Sequential"
        assert [c["class_name"] for c in config["config"]["layers"]] == \
            ["Conv2D", "BatchNormalization", "Flatten", "Dropout", "Dense"]
        training = json.loads(attrs["training_config"])
        assert training["optimizer_config"]["class_name"] == "Adam"
        assert training["optimizer_config"]["config"]["learning_rate"] == pytest.approx(0.01)
        assert training["loss"] == "sparse_categorical_crossentropy"
        assert training["metrics"] == ["accuracy"]
        assert set(training) == {"optimizer_config", "loss", "metrics", "weighted_metrics",
                                 "sample_weight_mode", "loss_weights"}
        mw = f["model_weights"]
        names = [n.decode() for n in mw.attrs["layer_names"]]
        assert names == [la.name for la in model.layers]
        assert mw.attrs["backend"] in (b"tensorflow", "tensorflow") and "keras_version" in mw.attrs
        conv, bn = model.layers[0], model.layers[1]
        wn = [n.decode() for n in mw[conv.name].attrs["weight_names"]]
        assert wn == [f"{conv.name}/kernel:0", f"{conv.name}/bias:0"]
        np.testing.assert_array_equal(mw[conv.name][f"{conv.name}/kernel:0"][()],
                                      K.get_value(conv.kernel))
        # the slash in the weight name nests a group (dense/dense/kernel:0)
        assert isinstance(mw[conv.name][conv.name], h5py.Group)
        assert [n.decode() for n in mw[bn.name].attrs["weight_names"]] == \
            [f"{bn.name}/{w}:0" for w in ("gamma", "beta", "moving_mean", "moving_variance")]
        assert len(mw[model.layers[2].name].attrs["weight_names"]) == 0  # Flatten
        # the optimizer state in Keras's (OptimizerV2) layout: iter, every m, every v
        ow = f["optimizer_weights"]
        onames = [n.decode() for n in ow.attrs["weight_names"]]
        params = [w.name[:-2] for w in model.trainable_weights]
        assert onames == ["training/Adam/iter:0"] + \
            [f"training/Adam/{p}/m:0" for p in params] + \
            [f"training/Adam/{p}/v:0" for p in params]
        assert ow["training/Adam/iter:0"][()] == 1  # one step
    # save_weights(.h5): the model_weights layout at the root
    wpath = str(tmp_path / "w.h5")
    model.save_weights(wpath)
    with h5py.File(wpath, "r") as f:
        assert [n.decode() for n in f.attrs["layer_names"]] == [la.name for la in model.layers]
        assert "model_config" not in f.attrs
        np.testing.assert_array_equal(f[conv.name][f"{conv.name}/bias:0"][()],
                                      K.get_value(conv.bias))


def test_load_weights_reads_weight_and_model_files(tmp_path):
    x, y = image_data()
    model = sequential()
    model.fit(x, y, epochs=1, batch_size=16, verbose=0)
    want = model.predict(x)
    model.save(str(tmp_path / "m.h5"))
    model.save_weights(str(tmp_path / "w.h5"))
    fresh()
    for name in ("m.h5", "w.h5"):
        other = sequential()
        assert not np.allclose(other.predict(x), want, atol=1e-4)
        other.load_weights(str(tmp_path / name))
        np.testing.assert_allclose(other.predict(x), want, rtol=1e-5, atol=1e-6)
    # by_name: only the layers of the same name (a new model's layers are renamed)
    other = tf.keras.Sequential([L.Dense(3, input_shape=(2,), name=model.layers[-1].name)])
    with pytest.raises(ValueError, match="weight"):
        other.load_weights(str(tmp_path / "w.h5"), by_name=True)
    small = tf.keras.Sequential([L.Dense(3, input_shape=(4,))])
    with pytest.raises(ValueError, match="containing 3 layers into a model with 1 layers"):
        small.load_weights(str(tmp_path / "w.h5"))


def test_model_checkpoint_saves_loadable_models(tmp_path):
    x, y = image_data()
    model = sequential()
    pattern = str(tmp_path / "ck-{epoch:02d}-{loss:.3f}.h5")
    best = str(tmp_path / "best.h5")
    hist = model.fit(x, y, epochs=3, batch_size=8, verbose=0, validation_data=(x, y),
                     callbacks=[tf.keras.callbacks.ModelCheckpoint(pattern),
                                tf.keras.callbacks.ModelCheckpoint(best, save_best_only=True)])
    files = sorted(glob.glob(str(tmp_path / "ck-*.h5")))
    assert [os.path.basename(p) for p in files] == \
        [f"ck-{e + 1:02d}-{v:.3f}.h5" for e, v in enumerate(hist.history["loss"])]
    want = model.predict(x)
    assert os.path.exists(best)
    fresh()
    last = tf.keras.models.load_model(files[-1])
    np.testing.assert_allclose(last.predict(x), want, rtol=1e-5, atol=1e-6)
    assert last.optimizer.get_weights()[0] == 6  # iterations: 3 epochs of 2 steps
    loaded_best = tf.keras.models.load_model(best)
    epoch = int(np.argmin(hist.history["val_loss"]))
    from_epoch = tf.keras.models.load_model(files[epoch])
    np.testing.assert_allclose(loaded_best.predict(x), from_epoch.predict(x), rtol=1e-6)


def test_custom_layer_and_loss_need_custom_objects(tmp_path):
    class Scale(L.Layer):
        def __init__(self, init=2.0, **kwargs):
            super().__init__(**kwargs)
            self.init = init

        def build(self, input_shape):
            self.scale = self.add_weight("scale", shape=(int(input_shape[-1]),),
                                         initializer=tf.keras.initializers.Constant(self.init))
            super().build(input_shape)

        def call(self, inputs):
            return inputs * self.scale

        def get_config(self):
            return dict(super().get_config(), init=self.init)

    def half_mse(y_true, y_pred):
        return 0.5 * K.mean(K.square(y_true - y_pred), axis=-1)

    path = str(tmp_path / "custom.h5")
    x = RNG.randn(8, 3).astype(np.float32)
    y = x.sum(1, keepdims=True)
    model = tf.keras.Sequential([Scale(3.0, input_shape=(3,)), L.Dense(1)])
    model.compile("sgd", loss=half_mse)
    model.fit(x, y, epochs=1, verbose=0)
    want = model.predict(x)
    model.save(path)
    with h5py.File(path, "r") as f:
        assert json.loads(f.attrs["training_config"])["loss"] == "half_mse"
    fresh()
    with pytest.raises(ValueError, match="Unknown layer: Scale"):
        tf.keras.models.load_model(path)
    fresh()
    loaded = tf.keras.models.load_model(path, custom_objects={"Scale": Scale,
                                                              "half_mse": half_mse})
    assert loaded.layers[0].init == 3.0
    np.testing.assert_allclose(loaded.predict(x), want, rtol=1e-5, atol=1e-6)
    assert loaded.loss is half_mse
    np.testing.assert_allclose(loaded.evaluate(x, y, verbose=0),
                               0.5 * np.mean((want - y) ** 2), rtol=1e-5)


def test_errors_name_the_problem(tmp_path):
    missing = str(tmp_path / "nope.h5")
    with pytest.raises(OSError, match="nope.h5"):
        tf.keras.models.load_model(missing)
    not_h5 = tmp_path / "text.h5"
    not_h5.write_text("hello")
    # TF 1.15 reads a file that is not HDF5 as a SavedModel folder
    with pytest.raises(OSError, match=r"^SavedModel file does not exist at: .*text\.h5/"):
        tf.keras.models.load_model(str(not_h5))
    with pytest.raises(OSError, match=r"^Unable to open file \(file signature not found\)$"):
        tf.keras.Sequential([L.Dense(2, input_shape=(3,))]).load_weights(str(not_h5))
    model = tf.keras.Sequential([L.Dense(2, input_shape=(3,))])
    weights = str(tmp_path / "w.h5")
    model.save_weights(weights)
    with pytest.raises(ValueError, match="No model found in config file"):
        tf.keras.models.load_model(weights)

    class Sub(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.d = L.Dense(1)

        def call(self, inputs):
            return self.d(inputs)

    sub = Sub()
    sub.predict(np.zeros((2, 3), np.float32))
    with pytest.raises(NotImplementedError, match="subclassed models"):
        sub.save(str(tmp_path / "sub.h5"))
    assert not os.path.exists(str(tmp_path / "sub.h5"))


def test_large_layer_name_lists_are_split_into_chunks(tmp_path):
    # more layer names than one HDF5 attribute holds: Keras splits them into layer_names0...
    inp = tf.keras.Input(shape=(2,))
    h = inp
    for i in range(60):
        h = L.Lambda(lambda t: t + 0.0, name="identity_layer_with_a_long_name_" + "x" * 1100 + str(i))(h)
    out = L.Dense(1)(h)
    model = tf.keras.Model(inp, out)
    path = str(tmp_path / "big.h5")
    model.save_weights(path)
    with h5py.File(path, "r") as f:
        assert "layer_names" not in f.attrs and "layer_names0" in f.attrs
    want = model.predict(np.ones((1, 2), np.float32))
    model.layers[-1].set_weights([np.zeros((2, 1), np.float32), np.zeros(1, np.float32)])
    model.load_weights(path)
    np.testing.assert_allclose(model.predict(np.ones((1, 2), np.float32)), want)


def test_loads_the_layout_newer_keras_writes(tmp_path):
    # tf_keras (TF 2.21, observed) writes str attributes, lists the InputLayer (with
    # ragged/optional) first in a Sequential config, adds optimizer config keys TF 1.x lacks
    # and a top_level_model_weights group; such a file loads here
    x = RNG.randn(4, 3).astype(np.float32)
    model = tf.keras.Sequential([L.Dense(2, input_shape=(3,)), L.Dense(1)])
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    want = model.predict(x)
    path = str(tmp_path / "new.h5")
    with h5py.File(path, "w") as f:  # an open h5py.File can be written into too
        tf.keras.models.save_model(model, f)
    with h5py.File(path, "r+") as f:
        config = json.loads(f.attrs["model_config"])
        first = config["config"]["layers"][0]["config"]
        config["config"]["layers"].insert(0, {"class_name": "InputLayer", "config": {
            "batch_input_shape": first["batch_input_shape"], "dtype": "float32",
            "sparse": False, "ragged": False, "name": "dense_input", "optional": False}})
        training = json.loads(f.attrs["training_config"])
        training["optimizer_config"]["config"].update(
            weight_decay=None, use_ema=False, ema_momentum=0.99, jit_compile=False,
            is_legacy_optimizer=False)
        for key, value in (("model_config", config), ("training_config", training)):
            del f.attrs[key]
            f.attrs[key] = json.dumps(value)  # a str attribute, as h5py writes str
        for key in ("keras_version", "backend"):
            value = f.attrs[key]
            del f.attrs[key]
            f.attrs[key] = value.decode() if isinstance(value, bytes) else value
        f["model_weights"].create_group("top_level_model_weights").attrs["weight_names"] = []
    fresh()
    loaded = tf.keras.models.load_model(path)
    assert [type(la).__name__ for la in loaded.layers] == ["Dense", "Dense"]
    np.testing.assert_allclose(loaded.predict(x), want, rtol=1e-6)
    assert loaded.optimizer.get_config()["learning_rate"] == pytest.approx(0.1)


def test_save_format_tf_writes_a_saved_model_that_load_model_reads(tmp_path):
    x, _ = seq_data(4)
    model = functional()
    want = model.predict(x)
    export = str(tmp_path / "sm")
    model.save(export, save_format="tf")
    assert os.path.isfile(os.path.join(export, "saved_model.pb"))
    fresh()
    loaded = tf.keras.models.load_model(export)
    np.testing.assert_allclose(loaded.predict(x), want, rtol=1e-5, atol=1e-6)
    with pytest.raises(OSError, match="SavedModel file does not exist"):
        tf.keras.models.load_model(str(tmp_path))


@pytest.mark.parametrize("kind", ["adam", "momentum"])
def test_optimizer_state_is_written_in_keras_layout_and_restores(tmp_path, kind):
    # TF 1.14+ Keras (OptimizerV2) keeps Adam's state as [iter, m of each weight..., v of
    # each weight...] and SGD's momentum accumulator as the step (``a = m * a - lr * g``);
    # ours are the same variables, written under their names, so files are TF's and
    # training continues as it would have
    x = RNG.randn(16, 4).astype(np.float32)
    y = x[:, :1] * 2 - x[:, 1:2]
    model = tf.keras.Sequential([L.Dense(6, activation="relu", input_shape=(4,)),
                                 L.BatchNormalization(), L.Dense(1)])
    opt = tf.keras.optimizers.Adam(0.01) if kind == "adam" else \
        tf.keras.optimizers.SGD(0.05, momentum=0.9, decay=0.01)
    model.compile(opt, "mse")
    model.fit(x, y, epochs=3, batch_size=8, verbose=0)
    path = str(tmp_path / "opt.h5")
    model.save(path)
    params = [w.name[:-2] for w in model.trainable_weights]
    state = model.optimizer.get_weights()
    cont = [model.train_on_batch(x, y) for _ in range(3)]
    with h5py.File(path, "r") as f:
        g = f["optimizer_weights"]
        names = [n.decode() for n in g.attrs["weight_names"]]
        assert g[names[0]][()] == state[0] == 6
        assert names[0] == f"training/{opt._name}/iter:0"
        if kind == "adam":
            assert len(state) == 1 + 2 * len(params)
            assert names[1:] == [f"training/Adam/{p}/m:0" for p in params] + \
                [f"training/Adam/{p}/v:0" for p in params]
        else:
            assert names[1:] == [f"training/SGD/{p}/momentum:0" for p in params]
        for name, value in zip(names, state):
            np.testing.assert_array_equal(g[name][()], value)
    fresh()
    loaded = tf.keras.models.load_model(path)
    for got, want in zip(loaded.optimizer.get_weights(), state):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose([loaded.train_on_batch(x, y) for _ in range(3)], cont,
                               rtol=1e-5)
