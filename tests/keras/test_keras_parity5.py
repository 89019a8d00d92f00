"""tf.keras parity with TF 1.15's graph-mode Keras, checked program by program against
tf_keras 2.x run under ``tf.compat.v1`` with v2 behaviour off (the closest live reference).
Expected texts quoted here were observed there (or are TF 1.15's, where tf_keras's changed)."""

import glob
import hashlib
import json
import os
import tarfile
import zipfile

import numpy as np
import pytest

import tideflow as tf

keras = tf.keras
K = keras.backend
L = keras.layers


# -- Dense refuses integer inputs ---------------------------------------------------------------

@pytest.mark.parametrize("make", ["layers", "keras"])
def test_dense_on_int32_input_is_tf_type_error(make):
    x = tf.placeholder(tf.int32, [None, 3])
    with pytest.raises(TypeError, match=r"Unable to build `Dense` layer with non-floating "
                                        r"point dtype <dtype: 'int32'>"):
        if make == "layers":
            tf.layers.dense(x, 2)
        else:
            L.Dense(2)(x)


def test_dense_with_float_dtype_given_takes_int_input_cast_by_user():
    # a float64 layer on float64 input builds a float64 kernel
    x = tf.placeholder(tf.float64, [None, 3])
    y = L.Dense(2)(x)
    assert y.dtype == tf.float64


# -- tf.keras.utils.get_file: file:// origins, the cache, archives, hashes ---------------------

@pytest.fixture
def archive(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.txt").write_text("hello")
    tar_path = tmp_path / "data.tar.gz"
    with tarfile.open(tar_path, "w:gz") as t:
        t.add(src / "a.txt", arcname="data/a.txt")
    zip_path = tmp_path / "z.zip"
    with zipfile.ZipFile(zip_path, "w") as z:
        z.write(src / "a.txt", arcname="zz/a.txt")
    cache = tmp_path / "cache"
    cache.mkdir()
    return tar_path, zip_path, str(cache)


def test_get_file_fetches_file_url_into_cache_and_checks_md5(archive, capsys):
    tar_path, _, cache = archive
    md5 = hashlib.md5(tar_path.read_bytes()).hexdigest()
    p = keras.utils.get_file("data.tar.gz", "file://" + str(tar_path), cache_dir=cache,
                             md5_hash=md5)
    assert p == os.path.join(cache, "datasets", "data.tar.gz")
    with open(p, "rb") as f:
        assert f.read() == tar_path.read_bytes()
    assert "Downloading data from file://" in capsys.readouterr().out
    # cached now: an unreachable origin is not asked again
    p2 = keras.utils.get_file("data.tar.gz", "http://127.0.0.1:9/x", cache_dir=cache,
                              md5_hash=md5)
    assert p2 == p
    assert "Downloading" not in capsys.readouterr().out


def test_get_file_untar_and_extract(archive):
    tar_path, zip_path, cache = archive
    p = keras.utils.get_file("data", "file://" + str(tar_path), untar=True, cache_dir=cache)
    assert p == os.path.join(cache, "datasets", "data")  # the folder, next to data.tar.gz
    assert sorted(os.listdir(os.path.join(cache, "datasets"))) == ["data", "data.tar.gz"]
    with open(os.path.join(p, "a.txt")) as f:
        assert f.read() == "hello"
    sha = hashlib.sha256(zip_path.read_bytes()).hexdigest()
    p = keras.utils.get_file("z.zip", "file://" + str(zip_path), extract=True,
                             cache_subdir="sub", cache_dir=cache, file_hash=sha)
    assert p == os.path.join(cache, "sub", "z.zip")
    assert sorted(os.listdir(os.path.join(cache, "sub"))) == ["z.zip", "zz"]
    assert keras.utils.validate_file(p, sha)
    assert not keras.utils.validate_file(p, "0" * 32)


def test_get_file_failures_name_the_url_and_leave_nothing(archive, tmp_path):
    tar_path, _, cache = archive
    with pytest.raises(Exception, match=r"URL fetch failure on http://127\.0\.0\.1:9/nope\.bin"):
        keras.utils.get_file("nope.bin", "http://127.0.0.1:9/nope.bin", cache_dir=cache)
    missing = "file://" + str(tmp_path / "missing.bin")
    with pytest.raises(Exception, match="URL fetch failure on " + missing):
        keras.utils.get_file("nope2.bin", missing, cache_dir=cache)
    assert not os.path.exists(os.path.join(cache, "datasets", "nope.bin"))
    assert not os.path.exists(os.path.join(cache, "datasets", "nope2.bin"))
    with pytest.raises(ValueError, match="Incomplete or corrupted file detected"):
        keras.utils.get_file("bad.tar.gz", "file://" + str(tar_path), cache_dir=cache,
                             file_hash="0" * 64)


def test_get_file_redownloads_a_cached_file_whose_hash_differs(archive, capsys):
    tar_path, _, cache = archive
    os.makedirs(os.path.join(cache, "datasets"))
    stale = os.path.join(cache, "datasets", "data.tar.gz")
    with open(stale, "wb") as f:
        f.write(b"stale")
    sha = hashlib.sha256(tar_path.read_bytes()).hexdigest()
    p = keras.utils.get_file("data.tar.gz", "file://" + str(tar_path), cache_dir=cache,
                             file_hash=sha)
    assert "so we will re-download the data" in capsys.readouterr().out
    with open(p, "rb") as f:
        assert f.read() == tar_path.read_bytes()


# -- Keras optimizers keep OptimizerV2's variables ------------------------------------------------

def _two_dense(w0, w1):
    return keras.Sequential([
        L.Dense(3, input_shape=(4,), activation="tanh",
                kernel_initializer=keras.initializers.Constant(w0)),
        L.Dense(1, kernel_initializer=keras.initializers.Constant(w1))])


def _opt_data():
    rng = np.random.RandomState(0)
    x = rng.randn(32, 4).astype("float32")
    y = (x @ rng.randn(4, 1)).astype("float32")
    w0 = rng.randn(4, 3).astype("float32") * 0.5
    w1 = rng.randn(3, 1).astype("float32") * 0.5
    return x, y, w0, w1


def test_adam_variables_are_named_as_tf_1x_keras():
    # TF 1.15 graph-mode Keras (and tf_keras's legacy Adam under compat.v1) lists exactly
    # these global variables after fit, in this order
    x, y, w0, w1 = _opt_data()
    m = _two_dense(w0, w1)
    m.compile(keras.optimizers.Adam(0.01), "mse")
    m.fit(x, y, epochs=1, verbose=0)
    names = [v.name for v in tf.global_variables()]
    params = ["dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias"]
    assert names == [p + ":0" for p in params] + [
        f"training/Adam/{n}:0" for n in ("iter", "beta_1", "beta_2", "decay", "learning_rate")
    ] + [f"training/Adam/{p}/m:0" for p in params] + [f"training/Adam/{p}/v:0" for p in params]
    assert [w.name for w in m.optimizer.weights] == ["training/Adam/iter:0"] + names[9:]
    assert K.get_value(m.optimizer.iterations) == 1  # 32 samples, one batch of 32


@pytest.mark.parametrize("make, slots", [
    (lambda: keras.optimizers.SGD(0.05, momentum=0.9), ["momentum"]),
    (lambda: keras.optimizers.SGD(0.05), []),
    (lambda: keras.optimizers.RMSprop(0.01, momentum=0.5, centered=True),
     ["rms", "momentum", "mg"]),
    (lambda: keras.optimizers.RMSprop(0.01), ["rms"]),
    (lambda: keras.optimizers.Adagrad(0.1), ["accumulator"]),
    (lambda: keras.optimizers.Adadelta(1.0), ["accum_grad", "accum_var"]),
    (lambda: keras.optimizers.Adam(0.01, amsgrad=True), ["m", "v", "vhat"]),
    (lambda: keras.optimizers.Adamax(0.01), ["m", "v"]),
    (lambda: keras.optimizers.Nadam(0.01), ["m", "v"]),
])
def test_optimizer_slot_names_and_order_as_keras(make, slots):
    # the slot names tf_keras's legacy (OptimizerV2) optimizers give, each slot for every
    # weight before the next slot; Nadam's momentum_cache comes after iter
    x, y, w0, w1 = _opt_data()
    m = _two_dense(w0, w1)
    opt = make()
    m.compile(opt, "mse")
    m.fit(x, y, epochs=1, batch_size=16, verbose=0)
    scope = f"training/{opt._name}"
    params = ["dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias"]
    extra = [f"{scope}/momentum_cache:0"] if opt._name == "Nadam" else []
    assert [w.name for w in opt.weights] == [f"{scope}/iter:0"] + extra + [
        f"{scope}/{p}/{s}:0" for s in slots for p in params]


# epoch losses of 5 epochs (batch 8, no shuffling) printed by tf_keras 2.21's legacy
# optimizers under tf.compat.v1 with the same data and initial weights (rounded to 5 places)
TF_LOSSES = [
    ("Adam", {"lr": 0.01}, [1.46514, 1.20078, 0.97751, 0.7873, 0.62798]),
    ("Adam", {"lr": 0.01, "amsgrad": True}, [1.46514, 1.20079, 0.97751, 0.7873, 0.62799]),
    ("SGD", {"lr": 0.05, "momentum": 0.9}, [1.04092, 0.19201, 0.1377, 0.0969, 0.10435]),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True},
     [0.96379, 0.14735, 0.07095, 0.06717, 0.06419]),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "decay": 0.1},
     [1.05001, 0.22416, 0.17184, 0.12987, 0.09872]),
    ("RMSprop", {"lr": 0.01}, [1.38315, 0.98533, 0.75417, 0.58196, 0.44798]),
    ("RMSprop", {"lr": 0.01, "momentum": 0.5, "centered": True},
     [1.32869, 0.67231, 0.33475, 0.15089, 0.0617]),
    ("Adagrad", {"lr": 0.1}, [1.15194, 0.42068, 0.19027, 0.09492, 0.05226]),
    ("Adadelta", {"lr": 1.0}, [1.52569, 1.49108, 1.45741, 1.42454, 1.39246]),
    ("Adamax", {"lr": 0.01}, [1.47613, 1.27972, 1.12731, 0.99545, 0.87951]),
    ("Nadam", {"lr": 0.01}, [1.4774, 1.28291, 1.1015, 0.92642, 0.76534]),
]


@pytest.mark.parametrize("name, kwargs, want", TF_LOSSES)
def test_optimizer_training_matches_tf_keras(name, kwargs, want):
    x, y, w0, w1 = _opt_data()
    m = _two_dense(w0, w1)
    m.compile(getattr(keras.optimizers, name)(**kwargs), "mse")
    h = m.fit(x, y, epochs=5, batch_size=8, shuffle=False, verbose=0)
    np.testing.assert_allclose(h.history["loss"], want, rtol=2e-4, atol=2e-5)


def test_saver_checkpoint_of_keras_model_has_tf_names(tmp_path):
    x, y, w0, w1 = _opt_data()
    m = _two_dense(w0, w1)
    m.compile(keras.optimizers.SGD(0.05, momentum=0.9), "mse")
    m.fit(x, y, epochs=1, batch_size=16, verbose=0)
    path = tf.train.Saver().save(K.get_session(), str(tmp_path / "s"))
    keys = dict(tf.train.list_variables(path))
    assert keys["training/SGD/iter"] == []
    assert keys["training/SGD/dense/kernel/momentum"] == [4, 3]
    assert "training/SGD/learning_rate" in keys and "training/SGD/momentum" in keys


def test_save_weights_tf_format_holds_optimizer_state_as_tf(tmp_path):
    # the keys tf_keras's save_weights writes for this model under compat.v1 (with its
    # _CHECKPOINTABLE_OBJECT_GRAPH proto), and TF's deferred restore of the optimizer state
    x, y, w0, w1 = _opt_data()

    def make():
        m = _two_dense(w0, w1)
        m.compile(keras.optimizers.Adam(0.01), "mse")
        return m

    m = make()
    m.fit(x, y, epochs=2, batch_size=8, shuffle=False, verbose=0)
    path = str(tmp_path / "w")
    m.save_weights(path)
    keys = sorted(k for k, _ in tf.train.list_variables(path))
    attr = "/.ATTRIBUTES/VARIABLE_VALUE"
    want = [f"optimizer/{n}{attr}" for n in ("beta_1", "beta_2", "decay", "iter",
                                             "learning_rate")]
    for layer in ("layer_with_weights-0", "layer_with_weights-1"):
        for w in ("bias", "kernel"):
            want += [f"{layer}/{w}{attr}"] + [
                f"{layer}/{w}/.OPTIMIZER_SLOT/optimizer/{s}{attr}" for s in ("m", "v")]
    assert keys == sorted(want + ["_CHECKPOINTABLE_OBJECT_GRAPH"])
    cont = [m.train_on_batch(x, y) for _ in range(3)]
    K.clear_session()
    m2 = make()
    m2.load_weights(path)  # the slots are made by the first step, then restored
    np.testing.assert_allclose([m2.train_on_batch(x, y) for _ in range(3)], cont, rtol=1e-6)
    assert K.get_value(m2.optimizer.iterations) == 8 + 3
    # an uncompiled model takes the weights only
    K.clear_session()
    m3 = _two_dense(w0 * 0, w1 * 0)
    m3.load_weights(path)
    K.clear_session()
    # a checkpoint of another architecture is refused, naming the key
    m4 = keras.Sequential([L.Dense(3, input_shape=(4,)), L.Dense(3), L.Dense(1)])
    with pytest.raises(tf.errors.NotFoundError, match="layer_with_weights-2"):
        m4.load_weights(path)
    K.clear_session()
    m5 = keras.Sequential([L.Dense(2, input_shape=(4,)), L.Dense(1)])
    # Keras weights are resource variables, as TF 1.15's: one takes the checkpoint's value
    # whatever its shape (TF's AssignVariableOp), and no error is raised
    m5.load_weights(path)
    assert K.get_value(m5.weights[0]).shape == (4, 3)


# -- callbacks -------------------------------------------------------------------------------------

def _events(path):
    tags = {}
    for f in sorted(glob.glob(os.path.join(path, "**", "events.out.tfevents.*"),
                              recursive=True)):
        for e in tf.train.summary_iterator(f):
            for v in e.summary.value:
                tags.setdefault(v.tag, []).append(e.step)
            if e.HasField("graph_def"):
                tags.setdefault("<graph>", []).append(e.step)
    return tags


def _binary_model():
    m = keras.Sequential([L.Dense(4, activation="relu", input_shape=(4,)),
                          L.Dense(1, activation="sigmoid")])
    m.compile(keras.optimizers.SGD(0.01), "binary_crossentropy", metrics=["accuracy"])
    return m


def test_tensorboard_tags_and_steps_as_tf_1_15(tmp_path):
    # observed with tf_keras's callbacks_v1.TensorBoard (TF 1.15's graph-mode callback)
    rng = np.random.RandomState(0)
    x = rng.randn(64, 4).astype("float32")
    y = (x[:, :1] > 0).astype("float32")
    m = _binary_model()
    tb = keras.callbacks.TensorBoard(log_dir=str(tmp_path / "a"), histogram_freq=1)
    m.fit(x, y, epochs=2, batch_size=16, validation_data=(x, y), verbose=0, callbacks=[tb])
    tags = _events(str(tmp_path / "a"))
    per_val_batch = list(range(8))  # 4 validation batches of 16, two epochs
    assert tags == {
        "<graph>": [0], "epoch_acc": [0, 1], "epoch_loss": [0, 1], "epoch_val_acc": [0, 1],
        "epoch_val_loss": [0, 1], "dense/kernel_0": per_val_batch,
        "dense/bias_0": per_val_batch, "dense_1/kernel_0": per_val_batch,
        "dense_1/bias_0": per_val_batch, "dense_out": per_val_batch,
        "dense_1_out": per_val_batch}
    tb = keras.callbacks.TensorBoard(log_dir=str(tmp_path / "b"), update_freq="batch",
                                     write_graph=False)
    m.fit(x, y, epochs=1, batch_size=16, verbose=0, callbacks=[tb])
    assert _events(str(tmp_path / "b")) == {
        "batch_acc": [0, 1, 2, 3], "batch_loss": [0, 1, 2, 3],  # at the batches seen
        "epoch_acc": [64], "epoch_loss": [64]}  # at the samples seen
    tb = keras.callbacks.TensorBoard(log_dir=str(tmp_path / "c"), update_freq=32,
                                     write_graph=False)
    m.fit(x, y, epochs=1, batch_size=16, verbose=0, callbacks=[tb])
    assert _events(str(tmp_path / "c"))["batch_loss"] == [1, 3]


def test_learning_rate_in_history_is_float32_as_tf(capsys):
    rng = np.random.RandomState(0)
    x = rng.randn(32, 4).astype("float32")
    m = _binary_model()
    lrs = keras.callbacks.LearningRateScheduler(lambda e: 0.1 / (e + 1), verbose=1)
    h = m.fit(x, x[:, :1] > 0, epochs=3, verbose=0, callbacks=[lrs])
    assert all(type(v) is np.float32 for v in h.history["lr"])
    assert h.history["lr"] == [np.float32(0.1), np.float32(0.05), np.float32(0.1 / 3)]
    out = capsys.readouterr().out
    # TF 1.15's text (later Keras says "setting learning rate to", with "Epoch 1:")
    assert "\nEpoch 00002: LearningRateScheduler reducing learning rate to 0.05.\n" in out


def test_early_stopping_as_tf_1_15():
    rng = np.random.RandomState(0)
    x = rng.randn(64, 4).astype("float32")
    y = x[:, :1] * 2
    m = keras.Sequential([L.Dense(1, input_shape=(4,), kernel_initializer="zeros")])
    m.compile(keras.optimizers.SGD(0.0), "mse")  # the loss never improves
    es = keras.callbacks.EarlyStopping(monitor="loss", patience=2)
    h = m.fit(x, y, epochs=10, batch_size=64, shuffle=False, verbose=0, callbacks=[es])
    assert (len(h.epoch), es.stopped_epoch, es.wait) == (3, 2, 2)
    # a baseline not reached stops after `patience` epochs (TF 1.15 has no epoch > 0 rule)
    es = keras.callbacks.EarlyStopping(monitor="loss", patience=1, baseline=0.1)
    h = m.fit(x, y, epochs=10, batch_size=64, verbose=0, callbacks=[es])
    assert (len(h.epoch), es.stopped_epoch) == (1, 0)


# -- fit / evaluate / predict inputs ----------------------------------------------------------------

def _sigmoid_model():
    m = keras.Sequential([L.Dense(1, activation="sigmoid", input_shape=(4,),
                                  kernel_initializer="ones")])
    m.compile(keras.optimizers.SGD(0.1), "binary_crossentropy", metrics=["acc"])
    return m


def _sig_data():
    rng = np.random.RandomState(0)
    x = rng.randn(40, 4).astype("float32")
    return x, (x.sum(1, keepdims=True) > 0).astype("float32")


# epoch values tf_keras printed for these programs (same data, ones kernel, no shuffling)
def test_fit_validation_split_class_and_sample_weights_match_tf():
    x, y = _sig_data()
    r = lambda h: {k: np.round(np.asarray(v, np.float64), 5).tolist()
                   for k, v in h.history.items()}
    h = _sigmoid_model().fit(x, y, epochs=2, batch_size=10, shuffle=False,
                             validation_split=0.2, verbose=0)
    assert r(h) == {"acc": [0.96875, 1.0], "loss": [0.23038, 0.22159],
                    "val_acc": [1.0, 0.875], "val_loss": [0.36642, 0.37514]}
    K.clear_session()
    h = _sigmoid_model().fit(x, y, epochs=2, batch_size=10, shuffle=False,
                             class_weight={0: 1.0, 1: 3.0}, verbose=0)
    assert r(h) == {"acc": [0.975, 0.975], "loss": [0.4872, 0.45213]}
    K.clear_session()
    h = _sigmoid_model().fit(x, y, epochs=2, batch_size=10, shuffle=False, verbose=0,
                             sample_weight=np.linspace(0.1, 2, 40).astype("float32"))
    assert r(h) == {"acc": [0.975, 0.975], "loss": [0.30161, 0.29468]}
    K.clear_session()
    h = _sigmoid_model().fit(x, y, epochs=4, initial_epoch=2, batch_size=10, shuffle=False,
                             verbose=0)
    assert h.epoch == [2, 3] and r(h)["loss"] == [0.25504, 0.24922]


def test_fit_on_datasets_params_as_tf_1_15():
    x, y = _sig_data()
    m = _sigmoid_model()
    seen = []

    class Params(keras.callbacks.Callback):
        def on_train_begin(self, logs=None):
            seen.append(dict(self.params))

    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(10).repeat()
    vds = tf.data.Dataset.from_tensor_slices((x, y)).batch(20).repeat()
    h = m.fit(ds, epochs=2, steps_per_epoch=4, validation_data=vds, validation_steps=2,
              verbose=0, callbacks=[Params()])
    assert np.round(h.history["val_loss"], 5).tolist() == [0.24969, 0.24434]
    # fed by steps: TF 1.15 reports no batch size and the steps as "samples"
    assert seen == [{"batch_size": None, "epochs": 2, "steps": 4, "samples": 4, "verbose": 0,
                     "do_validation": True,
                     "metrics": ["loss", "acc", "val_loss", "val_acc"]}]


def test_fit_evaluate_predict_take_sequences_and_generators():
    x, y = _sig_data()

    class Seq(keras.utils.Sequence):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return x[i * 10:(i + 1) * 10], y[i * 10:(i + 1) * 10]

    def gen():
        while True:
            yield from Seq()

    m = _sigmoid_model()
    h = m.fit(Seq(), epochs=1, verbose=0, shuffle=False)
    assert np.round(h.history["loss"], 5).tolist() == [0.25504]  # as fit(x, y, batch 10)
    h = m.fit(gen(), steps_per_epoch=4, epochs=1, verbose=0)
    assert np.round(h.history["loss"], 5).tolist() == [0.24922]
    np.testing.assert_allclose(m.evaluate(Seq(), verbose=0),
                               m.evaluate(x, y, batch_size=10, verbose=0), rtol=1e-6)
    assert m.predict(gen(), steps=3).shape == (30, 1)
    assert m.predict(Seq()).shape == (40, 1)
    # a dict of inputs is not a Sequence
    assert m.predict({m.input_names[0]: x}).shape == (40, 1)


# -- configs and cloning ------------------------------------------------------------------------------

def _named_functional():
    inp = keras.Input((5,), name="x")
    h = L.Dense(4, activation="relu", name="h", kernel_regularizer=keras.regularizers.l2(0.01))(inp)
    h = L.Dropout(0.3)(h)
    out = L.Dense(2, activation="softmax", name="out")(h)
    return keras.Model(inp, out, name="net")


def test_functional_config_as_tf_1_15():
    m = _named_functional()
    cfg = m.get_config()
    # TF 1.15's Network config (later Keras adds "trainable" and calls the class Functional)
    assert sorted(cfg) == ["input_layers", "layers", "name", "output_layers"]
    assert [(la["class_name"], la["name"], la["inbound_nodes"]) for la in cfg["layers"]] == [
        ("InputLayer", "x", []), ("Dense", "h", [[["x", 0, 0, {}]]]),
        ("Dropout", "dropout", [[["h", 0, 0, {}]]]), ("Dense", "out", [[["dropout", 0, 0, {}]]])]
    # l2(0.01) is an L1L2 whose factors are float32 (K.cast_to_floatx)
    assert cfg["layers"][1]["config"]["kernel_regularizer"] == {
        "class_name": "L1L2", "config": {"l1": 0.0, "l2": 0.009999999776482582}}
    assert json.loads(m.to_json())["class_name"] == "Model"


def test_clone_model_keeps_layer_and_model_names():
    # TF 1.15's clone_model rebuilds each layer from its config, names included, and names
    # the clone after the model (tf_keras printed the same names, and h_3/kernel:0)
    m = _named_functional()
    c = keras.models.clone_model(m)
    assert [la.name for la in c.layers] == ["x", "h", "dropout", "out"]
    assert c.name == "net"
    assert c.weights[0].name != m.weights[0].name  # new variables
    c.set_weights(m.get_weights())
    x = np.ones((2, 5), "float32")
    np.testing.assert_allclose(c.predict(x), m.predict(x), rtol=1e-6)
    s = keras.Sequential([L.Dense(3, input_shape=(2,), name="a"), L.Dense(1, name="b")],
                         name="seq")
    cs = keras.models.clone_model(s)
    assert cs.name == "seq" and [la.name for la in cs.layers] == ["a", "b"]


# -- summary ------------------------------------------------------------------------------------------

def _summary(model):
    lines = []
    model.summary(print_fn=lines.append)
    return lines


def test_summary_of_subclassed_model_says_multiple_and_input_layer_is_a_list():
    class MyModel(keras.Model):
        def __init__(self):
            super().__init__(name="my_model")
            self.d1 = L.Dense(4, activation="relu")
            self.drop = L.Dropout(0.5)
            self.d2 = L.Dense(1)

        def call(self, inputs, training=None):
            return self.d2(self.drop(self.d1(inputs), training=training))

    m = MyModel()
    m.compile(keras.optimizers.SGD(0.01), "mse")
    m.fit(np.ones((8, 3), "float32"), np.ones((8, 1), "float32"), epochs=1, verbose=0)
    assert [w.name for w in m.weights] == ["my_model/dense/kernel:0", "my_model/dense/bias:0",
                                           "my_model/dense_1/kernel:0", "my_model/dense_1/bias:0"]
    lines = _summary(m)
    # TF 1.x's layout (65 columns, rules between rows), "multiple" for subclassed models
    assert lines[3] == "=" * 65
    assert lines[4] == "dense (Dense)                multiple                  16        "
    assert lines[-4:-1] == ["Total params: 21", "Trainable params: 21", "Non-trainable params: 0"]
    # the subclassed model's inputs took no layer-name number: the next Input is input_1
    inp = keras.Input((3,))
    fm = keras.Model(inp, L.Dense(2, name="d")(inp))
    assert _summary(fm)[4] == "input_1 (InputLayer)         [(None, 3)]               0         "


def test_lambda_infers_its_output_shape():
    lam = L.Lambda(lambda t, a, b: t[:, :2] * a + b, arguments={"a": 2.0, "b": 1.0})
    assert lam.compute_output_shape((None, 3)).as_list() == [None, 2]
    x = tf.constant([[1.0, 2.0, 3.0]])
    assert K.get_session().run(lam(x)).tolist() == [[3.0, 5.0]]
    td = L.TimeDistributed(L.Lambda(lambda t: tf.concat([t, t], -1)))
    assert K.int_shape(td(keras.Input((5, 3)))) == (None, 5, 6)


# -- recurrent layers -------------------------------------------------------------------------------

def _rnn_program(rng):
    """Embedding(mask_zero) into LSTMs, GRUs and a SimpleRNN with NumPy-given weights; the
    first row has 2 padded steps, the second 4."""
    x = rng.randint(1, 10, size=(3, 5))
    x[0, 3:] = 0
    x[1, 1:] = 0

    def c(*shape, scale=0.5):
        return keras.initializers.Constant(rng.uniform(-scale, scale, shape).astype("float32"))

    def lstm_w(i, u):
        return {"unit_forget_bias": False, "kernel_initializer": c(i, 4 * u),
                "recurrent_initializer": c(u, 4 * u), "bias_initializer": c(4 * u, scale=0.1)}

    def gru_w(i, u, reset_after):
        return {"kernel_initializer": c(i, 3 * u), "recurrent_initializer": c(u, 3 * u),
                "bias_initializer": c(*((2, 3 * u) if reset_after else (3 * u,)), scale=0.1)}

    emb = c(10, 3)
    inp = keras.Input((5,), dtype="int32")
    e = L.Embedding(10, 3, mask_zero=True, embeddings_initializer=emb)(inp)
    outs = [
        L.LSTM(2, return_sequences=True, recurrent_activation="hard_sigmoid", **lstm_w(3, 2))(e),
        L.LSTM(2, recurrent_activation="sigmoid", go_backwards=True, **lstm_w(3, 2))(e),
        L.GRU(2, reset_after=True, recurrent_activation="sigmoid", **gru_w(3, 2, True))(e),
        L.GRU(2, reset_after=False, recurrent_activation="hard_sigmoid", return_sequences=True,
              **gru_w(3, 2, False))(e),
        L.SimpleRNN(2, kernel_initializer=c(3, 2), recurrent_initializer=c(2, 2))(e)]
    return x, keras.Model(inp, outs)


def test_recurrent_layers_with_masks_match_tf_keras():
    # values tf_keras printed for the same program (rounded to 5 places); a plain RNN with
    # return_sequences repeats its last output over masked steps
    x, m = _rnn_program(np.random.RandomState(0))
    got = m.predict(x)
    np.testing.assert_allclose(got[0][1], [[0.03266, 0.01695]] * 5, atol=2e-5)
    np.testing.assert_allclose(got[0][0][2:], [[0.03862, 0.00918]] * 3, atol=2e-5)
    np.testing.assert_allclose(got[1], [[-0.06452, -0.06493], [0.00541, 0.00041],
                                        [-0.06382, -0.03671]], atol=2e-5)
    np.testing.assert_allclose(got[2], [[-0.01507, -0.06145], [-0.01544, -0.06251],
                                        [0.01228, 0.03216]], atol=2e-5)
    np.testing.assert_allclose(got[3][2], [[0.00652, -0.06637], [0.12938, -0.09889],
                                           [0.20015, -0.10303], [0.25685, -0.16708],
                                           [0.16849, -0.13367]], atol=2e-5)
    np.testing.assert_allclose(got[4], [[0.1462, 0.09026], [0.02811, 0.03822],
                                        [-0.23143, -0.00746]], atol=2e-5)


def test_bidirectional_return_sequences_outputs_zeros_at_masked_steps():
    # TF 1.15's Bidirectional sets zero_output_for_mask = return_sequences on both layers
    x = np.array([[3, 4, 0, 0], [5, 0, 0, 0]])
    inp = keras.Input((4,), dtype="int32")
    e = L.Embedding(10, 3, mask_zero=True)(inp)
    b = L.Bidirectional(L.LSTM(2, return_sequences=True))(e)
    seq = L.LSTM(2, return_sequences=True)(e)
    out_b, out_seq = keras.Model(inp, [b, seq]).predict(x)
    assert (out_b[0, 2:] == 0).all() and (out_b[1, 1:] == 0).all()
    assert (out_b[0, :2] != 0).all()
    np.testing.assert_array_equal(out_seq[1, 1:], np.repeat(out_seq[1, :1], 3, 0))


def test_time_distributed_weights_are_the_wrappers():
    td = L.TimeDistributed(L.Dense(2))
    td(keras.Input((6, 4)))
    assert [w.name for w in td.weights] == ["time_distributed/kernel:0",
                                            "time_distributed/bias:0"]


# -- backend ------------------------------------------------------------------------------------------

def test_backend_function_updates_gradients_and_learning_phase():
    x = K.placeholder(shape=(None, 3))
    w = K.variable(np.ones((3, 2)), name="w")
    y = K.dot(x, w)
    f = K.function([x], [y], updates=[K.update_add(w, K.ones_like(w))])
    assert f([np.ones((2, 3))])[0].tolist() == [[3.0, 3.0]] * 2
    assert K.get_value(w).tolist() == [[2.0, 2.0]] * 3
    g = K.function([x], K.gradients(K.sum(y), [w]))([np.ones((2, 3))])[0]
    assert g.tolist() == [[2.0, 2.0]] * 3
    inp = keras.Input((1000,))
    fp = K.function([inp, K.learning_phase()], [L.Dropout(0.5, seed=1)(inp)])
    assert fp([np.ones((1, 1000)), 0])[0].sum() == 1000.0
    assert set(fp([np.ones((1, 1000)), 1])[0].ravel().tolist()) == {0.0, 2.0}
    K.set_learning_phase(1)
    assert K.learning_phase() == 1
    K.clear_session()
    assert K.learning_phase().name == "keras_learning_phase:0"
    assert K.backend() == "tensorflow"


def test_backend_ctc_decode_and_folds_as_tf_keras():
    yp = np.array([[[0.1, 0.8, 0.1], [0.1, 0.1, 0.8], [0.8, 0.1, 0.1], [0.1, 0.8, 0.1]]],
                  "float32")
    paths, lp = K.ctc_decode(K.constant(yp), K.constant([4], dtype="int32"))
    assert K.eval(paths[0]).tolist() == [[1, 0, 1]]  # as long as the longest path (TF 1.15)
    np.testing.assert_allclose(K.eval(lp), [[0.8926]], atol=1e-4)
    paths, lp = K.ctc_decode(K.constant(yp), K.constant([4], dtype="int32"), greedy=False,
                             beam_width=4, top_paths=2)
    assert [K.eval(p).tolist() for p in paths] == [[[1, 0, 1]], [[1, 0]]]
    np.testing.assert_allclose(K.eval(lp), [[-0.6447, -1.9704]], atol=1e-4)
    st = K.ctc_label_dense_to_sparse(K.constant([[1, 2, 0], [3, 0, 0]], dtype="int32"),
                                     K.constant([2, 1], dtype="int32"))
    assert K.eval(st.indices).tolist() == [[0, 0], [0, 1], [1, 0]]
    assert K.eval(K.foldr(lambda a, b: a * 2 + b, K.constant([1.0, 2.0, 3.0]))) == 17.0
    assert K.eval(K.cumprod(K.constant([1.0, 2.0, 3.0]))).tolist() == [1.0, 2.0, 6.0]
    assert K.int_shape(K.pool3d(K.zeros((1, 4, 4, 4, 2)), (2, 2, 2), (2, 2, 2))) == \
        (1, 2, 2, 2, 2)


# -- BatchNormalization in fit --------------------------------------------------------------------

def test_batch_norm_updates_run_in_fit_but_not_when_frozen():
    # moving statistics printed by tf_keras for this program (momentum 0.5, batches of 16)
    rng = np.random.RandomState(0)
    x = (rng.randn(32, 3) * 3 + 5).astype("float32")
    y = rng.randn(32, 1).astype("float32")
    m = keras.Sequential([L.BatchNormalization(input_shape=(3,), momentum=0.5),
                          L.Dense(1, kernel_initializer="ones")])
    m.compile(keras.optimizers.SGD(0.0), "mse")
    m.fit(x, y, epochs=1, batch_size=16, shuffle=False, verbose=0)
    bn = m.layers[0]
    np.testing.assert_allclose(K.get_value(bn.moving_mean), [3.8653, 4.0616, 3.2508], atol=1e-4)
    np.testing.assert_allclose(K.get_value(bn.moving_variance), [7.4365, 5.85, 5.5068],
                               atol=1e-4)
    m.evaluate(x, y, verbose=0)  # no updates in evaluate
    np.testing.assert_allclose(K.get_value(bn.moving_mean), [3.8653, 4.0616, 3.2508], atol=1e-4)
    m.train_on_batch(x, y)
    after = K.get_value(bn.moving_mean)
    np.testing.assert_allclose(after, [4.6419, 4.8002, 3.8181], atol=1e-4)
    # TF 1.x: a layer with trainable=False has no updates (compile again to take effect)
    bn.trainable = False
    m.compile(keras.optimizers.SGD(0.0), "mse")
    m.train_on_batch(x, y)
    np.testing.assert_array_equal(K.get_value(bn.moving_mean), after)
    # ... and neither has a frozen model inside another
    inner = keras.Sequential([L.BatchNormalization(input_shape=(3,))])
    inp = keras.Input((3,))
    outer = keras.Model(inp, L.Dense(1)(inner(inp)))
    inner.trainable = False
    outer.compile(keras.optimizers.SGD(0.0), "mse")
    before = K.get_value(inner.layers[0].moving_mean)
    outer.train_on_batch(x, y)
    np.testing.assert_array_equal(K.get_value(inner.layers[0].moving_mean), before)
    inner.trainable = True
    outer.compile(keras.optimizers.SGD(0.0), "mse")
    outer.train_on_batch(x, y)
    assert not np.array_equal(K.get_value(inner.layers[0].moving_mean), before)


def test_remote_monitor_posts_epoch_logs_to_a_real_server():
    import http.server
    import threading
    import urllib.parse

    got = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            got.append((self.path, self.headers.get("Content-Type"), body.decode()))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        root = f"http://127.0.0.1:{server.server_address[1]}"
        x, y = _sig_data()
        m = _sigmoid_model()
        m.fit(x, y, epochs=2, verbose=0,
              callbacks=[keras.callbacks.RemoteMonitor(root=root)])
        assert [p for p, _, _ in got] == ["/publish/epoch/end/"] * 2
        data = json.loads(urllib.parse.parse_qs(got[1][2])["data"][0])
        assert data["epoch"] == 1 and sorted(data) == ["acc", "epoch", "loss"]
        m.fit(x, y, epochs=1, verbose=0, callbacks=[keras.callbacks.RemoteMonitor(
            root=root, path="/j", send_as_json=True)])
        assert got[2][:2] == ("/j", "application/json")
        assert json.loads(got[2][2])["epoch"] == 0
    finally:
        server.shutdown()
        server.server_close()
    # no server: TF warns and training goes on
    h = _sigmoid_model().fit(x, y, epochs=1, verbose=0, callbacks=[
        keras.callbacks.RemoteMonitor(root="http://127.0.0.1:9")])
    assert len(h.epoch) == 1


def test_progress_output_as_tf_1_15(capsys):
    x, y = _sig_data()
    m = _sigmoid_model()
    m.fit(x, y, epochs=1, batch_size=40, verbose=1)
    out = capsys.readouterr().out
    assert out.startswith("Train on 40 samples\n") and "Epoch 1/1" not in out
    m.fit(x, y, epochs=2, batch_size=10, validation_split=0.25, verbose=2)
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["Train on 30 samples, validate on 10 samples", "Epoch 1/2"]
    assert lines[2].startswith("30/30 - ") and " - val_acc: " in lines[2]


# -- metrics and sample weights -------------------------------------------------------------------

def test_weighted_metrics_and_unweighted_metric_objects_as_tf_1_15(tmp_path):
    # values tf_keras printed for this program: `metrics` ignore sample weights (AUC too),
    # `weighted_metrics` are named weighted_<name> and weigh by them
    rng = np.random.RandomState(0)
    x = rng.randn(20, 4).astype("float32")
    y = (rng.rand(20, 1) > 0.5).astype("float32")
    init = keras.initializers.Constant(rng.randn(4, 1).astype("float32"))
    m = keras.Sequential([L.Dense(1, activation="sigmoid", input_shape=(4,),
                                  kernel_initializer=init)])
    m.compile(keras.optimizers.SGD(0.0), "binary_crossentropy",
              metrics=["acc", "mae", keras.metrics.AUC()],
              weighted_metrics=["acc", keras.metrics.BinaryAccuracy(name="bacc")])
    assert m.metrics_names == ["loss", "acc", "mean_absolute_error", "auc", "weighted_acc",
                               "weighted_bacc"]
    sw = np.linspace(0, 1, 20)
    np.testing.assert_allclose(m.evaluate(x, y, sample_weight=sw, verbose=0, batch_size=7),
                               [0.44672, 0.55, 0.48085, 0.50549, 0.50526, 0.50526],
                               atol=2e-5)
    h = m.fit(x, y, sample_weight=sw, epochs=1, batch_size=7, verbose=0, shuffle=False)
    np.testing.assert_allclose(h.history["weighted_acc"], [0.50526], atol=2e-5)
    np.testing.assert_allclose(h.history["auc"], [0.50549], atol=2e-5)
    path = str(tmp_path / "m.h5")
    m.save(path)
    K.clear_session()
    # TF 1.15 renames a weighted metric object (weighted_bacc) and saves it so: loaded and
    # compiled again, it is weighted_weighted_bacc
    assert keras.models.load_model(path).metrics_names[-2:] == ["weighted_acc",
                                                                "weighted_weighted_bacc"]


def test_auc_on_several_outputs_per_sample_with_sample_weights():
    # AUC flattens [batch, classes] predictions; per-sample weights cover each sample's row
    x = np.random.RandomState(1).randn(12, 4).astype("float32")
    y = keras.utils.to_categorical(np.arange(12) % 3, 3)
    m = keras.Sequential([L.Dense(3, activation="softmax", input_shape=(4,))])
    m.compile(keras.optimizers.SGD(0.0), "categorical_crossentropy",
              weighted_metrics=[keras.metrics.AUC(num_thresholds=50)])
    sw = np.linspace(0.5, 1.5, 12)
    got = m.evaluate(x, y, sample_weight=sw, verbose=0)[1]
    p = m.predict(x).ravel()
    w = np.repeat(sw, 3)
    t = y.ravel().astype(bool)
    eps = 1e-7
    ths = np.array([-eps] + [(i + 1) / 49 for i in range(48)] + [1 + eps])
    tp = np.array([(w * t * (p > th)).sum() for th in ths])
    fp = np.array([(w * ~t * (p > th)).sum() for th in ths])
    tpr, fpr = tp / tp[0], fp / fp[0]
    want = ((fpr[:-1] - fpr[1:]) * (tpr[:-1] + tpr[1:]) / 2).sum()
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_model_checkpoint_save_freq_in_samples_and_format_errors(tmp_path):
    rng = np.random.RandomState(0)
    x = rng.randn(64, 4).astype("float32")
    m = keras.Sequential([L.Dense(1, input_shape=(4,))])
    m.compile(keras.optimizers.SGD(0.01), "mse")
    # TF 1.15: an integer save_freq counts samples (here every 2 batches of 16)
    cb = keras.callbacks.ModelCheckpoint(str(tmp_path / "s-{epoch:02d}.h5"), save_freq=32,
                                         save_weights_only=True)
    m.fit(x, x[:, :1], epochs=2, batch_size=16, verbose=0, callbacks=[cb])
    assert sorted(os.listdir(tmp_path)) == ["s-01.h5", "s-02.h5"]
    cb = keras.callbacks.ModelCheckpoint(str(tmp_path / "k-{val_loss:.2f}.h5"))
    # (TF 1.15: str.format's own KeyError, 'val_loss')
    with pytest.raises(KeyError, match=r"^'val_loss'$"):
        m.fit(x, x[:, :1], epochs=1, verbose=0, callbacks=[cb])


def test_sequential_pop_reuses_the_graph():
    m = keras.Sequential([L.Dense(4, input_shape=(3,), name="a"), L.Dense(2, name="b"),
                          L.Dense(1, name="c")])
    assert m.count_params() == 29
    m.pop()
    # as TF 1.15: b's existing output is the model's (b is not called a second time)
    assert m.outputs[0].name == "b/BiasAdd:0" and m.output_shape == (None, 2)
    assert m.layers[1].input.name == "a/BiasAdd:0"
    m.compile(keras.optimizers.SGD(0.1), "mse")
    m.fit(np.ones((4, 3)), np.ones((4, 2)), verbose=0)
    assert m.outputs[0].name == "b/BiasAdd:0"


def test_initializer_dicts_with_factory_names_take_their_config():
    # {'class_name': 'he_normal', 'config': {'seed': 3}} draws as he_normal(seed=3); the
    # values are TF 1.15's (tf_keras's v1 initializers printed the same)
    tf.set_random_seed(5)
    want = {"glorot_uniform": [-0.4226, 0.3778, 0.3799, -0.8062],
            "he_normal": [-1.3568, -0.5478, 0.4575, 0.656],
            "lecun_uniform": [-0.4226, 0.3778, 0.3799, -0.8062]}
    for name, values in want.items():
        init = keras.initializers.get({"class_name": name, "config": {"seed": 3}})
        np.testing.assert_allclose(K.eval(init((3, 3))).ravel()[:4], values, atol=1e-4)


def test_hinge_losses_take_0_1_labels_as_minus_one_one():
    yt = K.constant([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    yp = K.constant([[0.2, 0.7, 0.1], [0.5, 0.3, 0.2]])
    # tf_keras printed these (labels 0/1 are read as -1/1, as in TF 1.14+)
    np.testing.assert_allclose(K.eval(keras.losses.hinge(yt, yp)), [0.86667, 1.0], atol=1e-5)
    np.testing.assert_allclose(K.eval(keras.losses.squared_hinge(yt, yp)), [0.91333, 1.12667],
                               atol=1e-5)
    # -1/1 labels are taken as they are
    np.testing.assert_allclose(K.eval(keras.losses.hinge(2 * yt - 1, yp)), [0.86667, 1.0],
                               atol=1e-5)


# -- layers TF 1.15 had ---------------------------------------------------------------------------

def test_separable_conv1d_and_3d_layers_match_tf_keras():
    # values and shapes tf_keras printed for the same NumPy-given weights
    rng = np.random.RandomState(0)

    def c(*shape):
        return keras.initializers.Constant(rng.uniform(-1, 1, shape).astype("float32"))

    x1 = rng.randn(2, 7, 3).astype("float32")
    sep = L.SeparableConv1D(4, 3, strides=2, depth_multiplier=2, depthwise_initializer=c(3, 3, 2),
                            pointwise_initializer=c(1, 6, 4), bias_initializer=c(4))
    out = K.eval(sep(K.constant(x1)))
    assert [tuple(w.shape.as_list()) for w in sep.weights] == [(3, 3, 2), (1, 6, 4), (4,)]
    assert out.shape == (2, 3, 4)
    np.testing.assert_allclose(out.ravel()[:6], [-1.4952, -0.901, 0.6551, 0.4308, -1.4369,
                                                 -0.8946], atol=1e-4)
    assert sep.get_config()["kernel_size"] == (3,) and sep.get_config()["strides"] == (2,)
    causal = L.SeparableConv1D(2, 2, padding="causal", dilation_rate=2,
                               depthwise_initializer=c(2, 3, 1), pointwise_initializer=c(1, 3, 2))
    out = K.eval(causal(K.constant(x1)))
    assert out.shape == (2, 7, 2)
    np.testing.assert_allclose(out[0, :3], [[-0.9764, -1.6587], [-1.2952, -1.8859],
                                            [0.0482, -0.5546]], atol=1e-4)
    x3 = rng.randn(1, 3, 3, 3, 2).astype("float32")
    tr = L.Conv3DTranspose(2, 2, strides=2, kernel_initializer=c(2, 2, 2, 2, 2))
    out = K.eval(tr(K.constant(x3)))
    assert out.shape == (1, 6, 6, 6, 2)
    np.testing.assert_allclose(out.ravel()[:4], [0.2764, 0.9827, 0.0517, 0.6102], atol=1e-4)
    up = K.eval(L.UpSampling3D((1, 2, 1))(K.constant(x3)))
    np.testing.assert_array_equal(up, x3.repeat(2, axis=2))
    crop = K.eval(L.Cropping3D(((1, 0), (0, 1), (1, 1)))(K.constant(x3)))
    np.testing.assert_array_equal(crop, x3[:, 1:, :2, 1:2])
    pad = L.ZeroPadding3D(((1, 0), (0, 2), 1))
    assert K.int_shape(pad(K.constant(x3))) == (1, 4, 5, 5, 2)
    drop = L.SpatialDropout3D(0.5)
    f = K.function([K.learning_phase()], [drop(K.constant(np.ones((2, 2, 2, 2, 6))))])
    kept = f([1])[0]
    assert set(np.unique(kept)) <= {0.0, 2.0}
    assert all(len(np.unique(kept[b, ..., ch])) == 1 for b in range(2) for ch in range(6))
    assert (f([0])[0] == 1).all()


def test_dot_output_shape_and_fixed_batch_size_inputs():
    assert L.Dot(1).compute_output_shape([(None, 3), (None, 3)]).as_list() == [None, 1]
    assert L.Dot((2, 1)).compute_output_shape([(None, 4, 3), (None, 3, 5)]).as_list() == \
        [None, 4, 5]
    m = keras.Sequential([L.LSTM(2, stateful=True, batch_input_shape=(2, 3, 1))])
    x = np.zeros((4, 3, 1), "float32")
    assert m.predict(x).shape == (4, 2)  # in batches of the input's 2
    with pytest.raises(ValueError, match="The `batch_size` argument value 3 is incompatible "
                                         "with the specified batch size of your Input Layer: 2"):
        m.predict(x, batch_size=3)


def test_validation_freq_int_or_container_and_stop_training():
    rng = np.random.RandomState(0)
    x = rng.randn(32, 3).astype("float32")
    m = keras.Sequential([L.Dense(1, input_shape=(3,))])
    m.compile(keras.optimizers.SGD(0.1), "mse", metrics=["mae"])
    h = m.fit(x, x[:, :1], epochs=4, validation_data=(x, x[:, :1]), validation_freq=2,
              verbose=0)
    assert {k: len(v) for k, v in h.history.items()} == {
        "loss": 4, "mean_absolute_error": 4, "val_loss": 2, "val_mean_absolute_error": 2}
    h = m.fit(x, x[:, :1], epochs=3, validation_data=(x, x[:, :1]), validation_freq=[1, 3],
              verbose=0)
    assert len(h.history["val_loss"]) == 2

    class Stop(keras.callbacks.Callback):
        def on_batch_end(self, batch, logs=None):
            if batch == 1:
                self.model.stop_training = True

    # TF 1.15 stops right after the batch that set stop_training
    before = K.get_value(m.optimizer.iterations)
    h = m.fit(x, x[:, :1], epochs=3, batch_size=8, verbose=0, callbacks=[Stop()])
    assert h.epoch == [0]
    assert K.get_value(m.optimizer.iterations) - before == 2


def test_deferred_sequential_weights_take_the_model_scope_when_built_by_fit():
    # names tf_keras printed: built by fit/predict (or a call) the layers run in the model's
    # name scope; build(input_shape) does not add it
    m = keras.Sequential([L.Dense(2)])
    m.build((None, 5))
    assert [w.name for w in m.weights] == ["dense/kernel:0", "dense/bias:0"]
    m = keras.Sequential([L.Dense(2)])
    m.compile(keras.optimizers.SGD(0.1), "mse")
    m.fit(np.ones((2, 5)), np.ones((2, 2)), verbose=0)
    assert [w.name for w in m.weights] == ["sequential_1/dense_1/kernel:0",
                                           "sequential_1/dense_1/bias:0"]
    m = keras.Sequential([L.Dense(2)])
    m(keras.Input((5,)))
    assert m.weights[0].name == "sequential_2/dense_2/kernel:0"
    m = keras.Sequential([L.Dense(2)])
    assert m.predict(np.ones((2, 5))).shape == (2, 2)
    assert m.weights[0].name == "sequential_3/dense_3/kernel:0"


def test_backend_convolutions_take_channels_first_causal_and_dilation():
    rng = np.random.RandomState(0)
    xv = rng.randn(1, 3, 5, 5).astype("float32")
    kv = rng.randn(2, 2, 3, 4).astype("float32")
    out = K.eval(K.conv2d(K.constant(xv), K.constant(kv), data_format="channels_first"))
    want = K.eval(K.conv2d(K.constant(xv.transpose(0, 2, 3, 1)), K.constant(kv)))
    np.testing.assert_allclose(out, want.transpose(0, 3, 1, 2), rtol=1e-5)
    # the first values tf_keras printed
    np.testing.assert_allclose(out.ravel()[:4], [1.006, -1.503, -2.675, 0.076], atol=1e-3)
    assert K.int_shape(K.pool2d(K.constant(xv), (2, 2), data_format="channels_first")) == \
        (1, 3, 4, 4)
    x1 = rng.randn(1, 6, 2).astype("float32")
    k1 = rng.randn(2, 2, 3).astype("float32")
    out = K.eval(K.conv1d(K.constant(x1), K.constant(k1), padding="causal", dilation_rate=2))
    np.testing.assert_allclose(out.ravel()[:6], [-1.072, -0.435, 1.476, -1.103, -0.436, 0.302],
                               atol=1e-3)
    # causal: step t sees steps t and t - 2 only
    manual = np.stack([x1[0, t] @ k1[1] + (x1[0, t - 2] @ k1[0] if t >= 2 else 0)
                       for t in range(6)])
    np.testing.assert_allclose(out[0], manual, rtol=1e-5)
    up = K.conv2d_transpose(K.constant(rng.randn(1, 3, 4, 4).astype("float32")),
                            K.constant(rng.randn(2, 2, 5, 3).astype("float32")), (1, 5, 8, 8),
                            strides=(2, 2), padding="same", data_format="channels_first")
    assert K.int_shape(up) == (1, 5, 8, 8)
    with pytest.raises(ValueError, match="Invalid pooling mode"):
        K.pool2d(K.constant(xv), (2, 2), pool_mode="min")


def test_locally_connected_layers_match_tf_keras():
    # shapes and first values tf_keras printed for NumPy-given weights
    rng = np.random.RandomState(0)

    def c(*shape):
        return keras.initializers.Constant(rng.uniform(-1, 1, shape).astype("float32"))

    x2 = rng.randn(2, 5, 4, 3).astype("float32")
    lc = L.LocallyConnected2D(2, (2, 3), kernel_initializer=c(8, 18, 2),
                              bias_initializer=c(4, 2, 2))
    out = K.eval(lc(K.constant(x2)))
    assert out.shape == (2, 4, 2, 2)
    assert [tuple(w.shape.as_list()) for w in lc.weights] == [(8, 18, 2), (4, 2, 2)]
    np.testing.assert_allclose(out.ravel()[:4], [-4.6187, 2.2911, -1.7248, -1.5808], atol=1e-4)
    # position (i, j)'s own kernel on its patch, flattened as (kh, kw, channels)
    kernel, bias = (K.get_value(w) for w in lc.weights)
    patch = x2[:, 1:3, 1:4, :].reshape(2, -1)
    np.testing.assert_allclose(out[:, 1, 1], patch @ kernel[1 * 2 + 1] + bias[1, 1], rtol=1e-5)
    xcf = rng.randn(2, 3, 5, 4).astype("float32")
    cf = L.LocallyConnected2D(2, 2, strides=2, data_format="channels_first",
                              kernel_initializer=c(4, 12, 2), bias_initializer=c(2, 2, 2))
    out = K.eval(cf(K.constant(xcf)))
    assert out.shape == (2, 2, 2, 2)
    np.testing.assert_allclose(out.ravel()[:4], [0.9872, -1.8397, -1.3831, -1.5265], atol=1e-4)
    x1 = rng.randn(2, 7, 3).astype("float32")
    l1 = L.LocallyConnected1D(4, 3, strides=2, activation="relu", kernel_initializer=c(3, 9, 4),
                              bias_initializer=c(3, 4))
    out = K.eval(l1(K.constant(x1)))
    assert out.shape == (2, 3, 4) and l1.count_params() == 120
    np.testing.assert_allclose(out.ravel()[:2], [0.0, 0.1439], atol=1e-4)
    with pytest.raises(ValueError, match="only \"valid\""):
        L.LocallyConnected2D(2, 3, padding="same")


def test_optimizer_configs_as_tf_1_15():
    # keys and defaults tf_keras's legacy (TF 1.15 OptimizerV2) optimizers return
    got = {name: keras.optimizers.get(name).get_config()
           for name in ("adam", "sgd", "rmsprop", "adagrad", "adadelta", "adamax", "nadam")}
    assert sorted(got["adam"]) == ["amsgrad", "beta_1", "beta_2", "decay", "epsilon",
                                   "learning_rate", "name"]
    assert sorted(got["adamax"]) == ["beta_1", "beta_2", "decay", "epsilon", "learning_rate",
                                     "name"]
    assert got["nadam"]["decay"] == pytest.approx(0.004)  # the momentum schedule's decay
    assert got["sgd"] == {"name": "SGD", "decay": 0.0, "learning_rate": 0.01, "momentum": 0.0,
                          "nesterov": False}
    assert got["adadelta"]["rho"] == 0.95 and got["rmsprop"]["rho"] == 0.9
    o = keras.optimizers.Adam(lr=0.5, decay=0.1, clipnorm=1.0)
    assert keras.optimizers.Adam.from_config(o.get_config()).get_config() == o.get_config()


def test_abstract_rnn_cell_subclass_runs_in_rnn():
    class MinimalRNNCell(L.AbstractRNNCell):
        def __init__(self, units, **kwargs):
            self.units = units
            super().__init__(**kwargs)

        @property
        def state_size(self):
            return self.units

        def build(self, input_shape):
            self.kernel = self.add_weight(shape=(input_shape[-1], self.units),
                                          initializer="ones", name="kernel")
            self.recurrent_kernel = self.add_weight(shape=(self.units, self.units),
                                                    initializer="identity",
                                                    name="recurrent_kernel")
            self.built = True

        def call(self, inputs, states):
            out = K.dot(inputs, self.kernel) + K.dot(states[0], self.recurrent_kernel) * 0.5
            return out, out

    layer = L.RNN(MinimalRNNCell(2), return_sequences=True)
    x = K.constant(np.arange(12, dtype="float32").reshape(2, 3, 2))
    # tf_keras printed these values
    assert K.eval(layer(x)).tolist() == [[[1.0, 1.0], [5.5, 5.5], [11.75, 11.75]],
                                         [[13.0, 13.0], [23.5, 23.5], [32.75, 32.75]]]
    with pytest.raises(NotImplementedError):
        MinimalRNNCell(3).output_size  # noqa: B018
    init = MinimalRNNCell(3).get_initial_state(batch_size=2, dtype=tf.float32)
    assert K.int_shape(init) == (2, 3)


def test_epoch_aggregation_of_losses_as_tf_1_15():
    # tf_keras printed these for 25 samples in batches of 10: the loss is sample-weighted
    # over arrays but a mean over the steps of a dataset; per-output losses are means over
    # the batches either way; metrics are sample-weighted
    rng = np.random.RandomState(0)
    x = rng.randn(25, 4).astype("float32")
    y1 = (x[:, :1] > 0).astype("float32")
    y2 = x[:, 1:2]
    inp = keras.Input((4,))
    o1 = L.Dense(1, activation="sigmoid", kernel_initializer="ones", name="a")(inp)
    o2 = L.Dense(1, kernel_initializer="ones", name="b")(inp)
    m = keras.Model(inp, [o1, o2])
    m.compile(keras.optimizers.SGD(0.0), ["binary_crossentropy", "mse"], metrics={"a": "acc"})
    np.testing.assert_allclose(m.evaluate(x, [y1, y2], batch_size=10, verbose=0),
                               [3.89541, 0.39741, 3.34101, 0.76], atol=2e-5)
    h = m.fit(x, [y1, y2], batch_size=10, epochs=1, verbose=0, shuffle=False)
    np.testing.assert_allclose([h.history[k][0] for k in ("loss", "a_loss", "b_loss", "a_acc")],
                               [3.89541, 0.39741, 3.34101, 0.76], atol=2e-5)
    ds = tf.data.Dataset.from_tensor_slices((x, (y1, y2))).batch(10)
    np.testing.assert_allclose(m.evaluate(ds, verbose=0), [3.73841, 0.39741, 3.34101, 0.76],
                               atol=2e-5)


# epoch losses and predictions tf_keras printed when training Embedding + RNN + Dense from
# NumPy-given weights (the embedding's gradients are sparse: the sparse update paths)
EMB_CASES = [
    ("lstm", "adam", [0.6894, 0.6229, 0.5038], [0.1266, 0.4704, 0.1272]),
    ("gru", "sgd", [0.6832, 0.6559, 0.6105], [0.2837, 0.4954, 0.2952]),
    ("gru", "rmsprop", [0.6656, 0.4169, 0.2328], [0.0444, 0.8075, 0.0449]),
]


@pytest.mark.parametrize("rnn, opt, losses, preds", EMB_CASES)
def test_embedding_rnn_training_matches_tf_keras(rnn, opt, losses, preds):
    rng = np.random.RandomState(0)
    x = rng.randint(1, 20, size=(16, 6))
    x[::2, 4:] = 0
    y = (x.sum(1) > 50).astype("float32")[:, None]

    def c(*shape):
        return keras.initializers.Constant(rng.uniform(-0.3, 0.3, shape).astype("float32"))

    emb = L.Embedding(20, 4, input_length=6, embeddings_initializer=c(20, 4))
    if rnn == "lstm":
        cell = L.LSTM(3, unit_forget_bias=False, recurrent_activation="hard_sigmoid",
                      kernel_initializer=c(4, 12), recurrent_initializer=c(3, 12),
                      bias_initializer=c(12))
    else:
        cell = L.GRU(3, recurrent_activation="hard_sigmoid", kernel_initializer=c(4, 9),
                     recurrent_initializer=c(3, 9), bias_initializer=c(9), reset_after=False)
    m = keras.Sequential([emb, cell, L.Dense(1, activation="sigmoid",
                                             kernel_initializer=c(3, 1))])
    optimizer = {"adam": keras.optimizers.Adam(0.05),
                 "sgd": keras.optimizers.SGD(0.5, momentum=0.9),
                 "rmsprop": keras.optimizers.RMSprop(0.05)}[opt]
    m.compile(optimizer, "binary_crossentropy", metrics=["acc"])
    h = m.fit(x, y, epochs=3, batch_size=4, shuffle=False, verbose=0)
    np.testing.assert_allclose(h.history["loss"], losses, atol=2e-4)
    np.testing.assert_allclose(m.predict(x[:3]).ravel(), preds, atol=2e-4)
