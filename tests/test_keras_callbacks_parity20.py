"""tf.keras parity with TF 1.15 (twentieth session): callbacks, the loss rebuilt for fed sample
weights, weight regularization losses. Expected values are TF 1.15's printed outputs."""

import numpy as np
import pytest

import tideflow as tf

L = tf.keras.layers


@pytest.fixture(autouse=True)
def _graph(request):
    if getattr(request.function, "outside_graph", False):  # (it resets the default graph)
        yield
        tf.keras.backend.clear_session()
        return
    with tf.Graph().as_default():
        yield


def _small_model():
    m = tf.keras.Sequential([L.Dense(1, input_shape=(3,))])
    m.compile("sgd", "mse")
    return m


def test_begin_and_end_hooks_get_the_logs_fit_gives_none():
    # TF 1.15's CallbackList hands on_train_begin/end (and evaluate's on_test_begin/end)
    # the logs it was given: fit and evaluate give None; the epoch hooks get {}
    seen = []

    class Probe(tf.keras.callbacks.Callback):
        def on_test_begin(self, logs=None):
            seen.append(("test_begin", logs))

        def on_test_end(self, logs=None):
            seen.append(("test_end", logs))

    lam = tf.keras.callbacks.LambdaCallback(
        on_train_begin=lambda logs: seen.append(("train_begin", logs)),
        on_train_end=lambda logs: seen.append(("train_end", logs)),
        on_epoch_begin=lambda epoch, logs: seen.append(("epoch_begin", logs)))
    m = _small_model()
    x, y = np.ones((4, 3), "float32"), np.ones((4, 1), "float32")
    m.fit(x, y, epochs=1, verbose=0, callbacks=[lam])
    m.evaluate(x, y, verbose=0, callbacks=[Probe()])
    assert seen == [("train_begin", None), ("epoch_begin", {}), ("train_end", None),
                    ("test_begin", None), ("test_end", None)]


def _two_output_model():
    a = L.Input((4,), name="a")
    h = L.Dense(5, activation="relu")(a)
    m = tf.keras.Model(a, [L.Dense(1, name="reg")(h),
                           L.Dense(3, activation="softmax", name="cls")(h)])
    m.compile("sgd", loss=["mse", "sparse_categorical_crossentropy"])
    return m


def test_loss_remade_for_fed_weights_updates_the_same_loss_metrics():
    # TF 1.15 remakes the loss under loss_1 when weights are fed; each output's loss Mean
    # metric is updated again (12 ops) but not made again; then a call without weights
    # makes the loss once more, without them (TF 1.15's op ids, printed by _last_id)
    np.random.seed(0)
    tf.set_random_seed(4)
    m = _two_output_model()
    graph = tf.get_default_graph()
    x = np.random.rand(12, 4).astype("float32")
    ys = [np.random.rand(12, 1).astype("float32"), np.random.randint(0, 3, (12, 1))]
    w = np.linspace(0.5, 1.5, 12).astype("float32")
    assert graph._last_id == 166
    m.fit(x, ys, sample_weight=[w, w], batch_size=4, epochs=1, verbose=0, shuffle=False)
    assert graph._last_id == 550
    np.testing.assert_allclose(m.train_on_batch(x, ys), [1.40094, 0.152202, 1.257251],
                               rtol=1e-5)
    assert graph._last_id == 767
    assert [t.name for t in m._feed_sample_weights] == []


def test_class_weights_with_unweighted_validation_as_tf_remakes_the_loss():
    # fit with class weights validating on unweighted data: TF 1.15 remakes the loss for
    # the validation pass without weights (loss_2) while the train function keeps feeding
    # them; a later weighted fit remakes the train function but validates with the old,
    # unweighted test function; each switch makes the functions TF makes (TF 1.15's
    # printed values and op ids)
    np.random.seed(0)
    tf.set_random_seed(4)
    graph = tf.get_default_graph()
    x = np.random.rand(30, 4).astype("float32")
    y = (x[:, 0] > 0.7).astype("int32")
    xv = np.random.rand(10, 4).astype("float32")
    yv = (xv[:, 0] > 0.7).astype("int32")
    m = tf.keras.Sequential([L.Dense(6, activation="relu", input_shape=(4,)),
                             L.Dense(2, activation="softmax")])
    m.compile(tf.keras.optimizers.Adam(0.05), "sparse_categorical_crossentropy",
              metrics=["accuracy"])
    h = m.fit(x, y, class_weight={0: 1., 1: 4.}, validation_data=(xv, yv), epochs=3,
              batch_size=10, verbose=0)
    np.testing.assert_allclose(h.history["loss"], [1.294607, 1.114441, 1.109785], rtol=1e-5)
    np.testing.assert_allclose(h.history["val_loss"], [0.708169, 0.663818, 0.656866],
                               rtol=1e-5)
    assert graph._last_id == 404
    h = m.fit(x, y, class_weight={0: 1., 1: 4.}, validation_split=0.3, epochs=2,
              batch_size=10, verbose=0)
    np.testing.assert_allclose(h.history["val_loss"], [0.930094, 1.082115], rtol=1e-5)
    assert graph._last_id == 576
    m.fit(x, y, epochs=1, batch_size=10, verbose=0, validation_data=(xv, yv, np.ones(10)))
    assert graph._last_id == 782
    # (the train function made for unweighted data goes on ignoring weights, as TF's)
    np.testing.assert_allclose(m.train_on_batch(x, y, class_weight={0: 1., 1: 4.}),
                               [0.95754, 0.275], rtol=1e-5)
    np.testing.assert_allclose(m.test_on_batch(xv, yv), [0.664939, 0.5], rtol=1e-5)
    assert graph._last_id == 816
    assert [o.name for o in graph.get_operations() if o.name.endswith("group_deps")] == [
        "training_1/group_deps", "evaluation/group_deps", "training_3/group_deps",
        "training_5/group_deps", "evaluation_1/group_deps", "evaluation_2/group_deps"]
    m2 = tf.keras.Sequential([L.Dense(2, input_shape=(4,))])
    np.testing.assert_allclose(tf.keras.backend.get_session().run(m2.weights[0]),
                               [[0.60922, 0.02418], [-0.44035, -0.10729],
                                [0.26872, 0.08836], [-0.402, -0.23924]], atol=1e-5)


def test_summary_of_a_subclassed_model_with_a_layer_never_called_raises():
    # TF 1.15's print_summary counts each layer's params: a layer the model never called
    # is not built, and count_params raises
    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.d1 = L.Dense(4)
            self.unused = L.Dropout(0.5)

        def call(self, x):
            return self.d1(x)

    net = Net()
    net(tf.placeholder(tf.float32, [None, 3]))
    with pytest.raises(ValueError, match="You tried to call `count_params` on dropout, but "
                       "the layer isn't built"):
        net.summary()


@pytest.mark.parametrize("profile_batch,profiled", [(2, True), (1, True), (0, False)])
def test_tensorboard_profiles_a_batch_into_the_plugins_folder(tmp_path, profile_batch,
                                                              profiled):
    # TF 1.15's TensorBoard callback profiles batch `profile_batch`: an empty
    # "*.profile-empty" event file beside the events and plugins/profile/<time>/local.trace
    import os

    m = _small_model()
    tb = tf.keras.callbacks.TensorBoard(log_dir=str(tmp_path), profile_batch=profile_batch)
    m.fit(np.ones((6, 3), "float32"), np.ones((6, 1), "float32"), batch_size=2, epochs=1,
          verbose=0, callbacks=[tb])
    names = sorted(os.listdir(tmp_path))
    assert [n.split(".")[-1] == "profile-empty" for n in names if n.startswith("events")] == (
        [False, True] if profiled else [False])
    assert ("plugins" in names) == profiled
    if profiled:
        (stamp,) = os.listdir(tmp_path / "plugins" / "profile")
        assert os.listdir(tmp_path / "plugins" / "profile" / stamp) == ["local.trace"]
        empty = next(n for n in names if n.endswith(".profile-empty"))
        events = list(tf.train.summary_iterator(str(tmp_path / empty)))
        assert [e.file_version for e in events] == ["brain.Event:2"]


def test_custom_layer_with_init_arguments_must_override_get_config():
    # TF 1.15's Layer.get_config raises when __init__ takes arguments the base config does
    # not hold and the class does not override it (so model.save/get_config fail); one that
    # overrides it and calls super(), or takes only **kwargs, is fine
    class Scale(L.Layer):
        def __init__(self, factor, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return x * self.factor

    class Scale2(Scale):
        def get_config(self):
            config = super().get_config()
            config["factor"] = self.factor
            return config

    class Plain(L.Layer):
        def call(self, x):
            return x

    inp = L.Input((2,))
    m = tf.keras.Model(inp, Scale(2.0, name="s")(inp))
    for get in (m.layers[1].get_config, m.get_config):
        with pytest.raises(NotImplementedError,
                           match="Layers with arguments in `__init__` must override"):
            get()
    assert Scale2(3.0, name="s2").get_config() == {"name": "s2", "trainable": True,
                                                   "dtype": None, "factor": 3.0}
    assert Plain(name="p").get_config() == {"name": "p", "trainable": True, "dtype": None}


def test_callbacks_missing_their_metric_warn_through_tf_logging(caplog):
    # TF 1.15's EarlyStopping, ModelCheckpoint(save_best_only) and ReduceLROnPlateau warn
    # with tf.logging (WARNING:tensorflow:...), which the verbosity silences
    m = _small_model()
    x, y = np.ones((4, 3), "float32"), np.ones((4, 1), "float32")
    cbs = [tf.keras.callbacks.EarlyStopping(monitor="val_loss"),
           tf.keras.callbacks.ReduceLROnPlateau(monitor="val_loss")]
    with caplog.at_level("WARNING", logger="tensorflow"):
        m.fit(x, y, epochs=1, verbose=0, callbacks=cbs)
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records] == [
        ("tensorflow", "WARNING", ("Early stopping conditioned on metric `val_loss` which is "
                                   "not available. Available metrics are: loss")),
        ("tensorflow", "WARNING", ("Reduce LR on plateau conditioned on metric `val_loss` "
                                   "which is not available. Available metrics are: loss,lr"))]
    caplog.clear()
    verbosity = tf.logging.get_verbosity()
    tf.logging.set_verbosity(tf.logging.ERROR)
    try:
        m.fit(x, y, epochs=1, verbose=0, callbacks=cbs)
    finally:
        tf.logging.set_verbosity(verbosity)
    assert caplog.records == []


def test_model_checkpoint_saves_a_subclassed_models_weights(tmp_path, caplog):
    # TF 1.15's ModelCheckpoint.set_model: a subclassed model (no HDF5 model file) gets its
    # weights saved; `period` and `load_weights_on_restart` still work, with a deprecation
    # warning each, and an unknown mode falls back to auto with one
    import h5py

    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.d = L.Dense(1)

        def call(self, x):
            return self.d(x)

    net = Net()
    net.compile("sgd", "mse")
    path = str(tmp_path / "sub_{epoch}.h5")
    with caplog.at_level("WARNING", logger="tensorflow"):
        ck = tf.keras.callbacks.ModelCheckpoint(path, period=2, mode="bogus",
                                                load_weights_on_restart=False)
    assert [r.getMessage() for r in caplog.records] == [
        ("`load_weights_on_restart` argument is deprecated. Please use "
         "`model.load_weights()` for loading weights before the start of `model.fit()`."),
        ("`period` argument is deprecated. Please use `save_freq` to specify the frequency "
         "in number of samples seen."),
        "ModelCheckpoint mode bogus is unknown, fallback to auto mode."]
    net.fit(np.ones((4, 3), "float32"), np.ones((4, 1), "float32"), epochs=2, verbose=0,
            callbacks=[ck])
    assert ck.save_weights_only
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sub_2.h5"]
    with h5py.File(str(tmp_path / "sub_2.h5"), "r") as f:
        assert sorted(f.keys()) == ["dense"]
        assert sorted(f.attrs.keys()) == ["backend", "keras_version", "layer_names"]


@pytest.mark.parametrize("axes", [1, [1, 1], (-1, 1)])
def test_dot_keeps_its_axes_as_given(axes):
    # TF 1.15's Dot keeps `axes` as given: its config says 1 for 1 (the json too)
    import json

    a, b = L.Input((3,)), L.Input((3,))
    m = tf.keras.Model([a, b], L.Dot(axes=axes, normalize=True, name="cos")([a, b]))
    assert m.layers[-1].axes == axes
    assert json.loads(m.to_json())["config"]["layers"][-1]["config"]["axes"] == (
        list(axes) if isinstance(axes, tuple) else axes)
    assert m.output.get_shape().as_list() == [None, 1]
    with pytest.raises(ValueError, match="should contain two elements"):
        L.Dot(axes=[1])


def test_fit_on_arrays_with_steps_per_epoch_feeds_the_whole_arrays_each_step():
    # TF 1.15: arrays with steps_per_epoch train that many steps on all the samples (no
    # batches); the callbacks count steps (size 1, samples = steps); TF 1.15's printed values
    np.random.seed(10)
    tf.set_random_seed(17)
    x = np.random.rand(20, 3).astype("float32")
    y = np.random.rand(20, 1).astype("float32")
    m = tf.keras.Sequential([L.Dense(2, activation="relu", input_shape=(3,)), L.Dense(1)])
    m.compile("adam", "mse", metrics=["mae"])
    seen = []
    cb = tf.keras.callbacks.LambdaCallback(
        on_batch_end=lambda batch, logs: seen.append((batch, logs["size"],
                                                      round(float(logs["loss"]), 5))))
    h = m.fit(x, y, steps_per_epoch=3, epochs=2, verbose=0, callbacks=[cb],
              sample_weight=np.linspace(0, 1, 20))
    assert h.params["samples"] == h.params["steps"] == 3 and h.params["batch_size"] is None
    assert seen == [(0, 1, 0.23867), (1, 1, 0.23726), (2, 1, 0.23586),
                    (0, 1, 0.23447), (1, 1, 0.23309), (2, 1, 0.23171)]
    np.testing.assert_allclose(h.history["loss"], [0.23726, 0.23309], atol=1e-5)
    np.testing.assert_allclose(m.evaluate(x, y, verbose=0), [0.465861, 0.618877], rtol=1e-5)


def test_evaluate_and_predict_on_arrays_with_steps_use_all_the_samples_each_step():
    # TF 1.15: `steps` with arrays runs that many steps on all the samples: evaluate's
    # callbacks see size 1 per step, predict concatenates each step's outputs
    x = np.random.RandomState(0).rand(40, 3).astype("float32")
    m = _small_model()
    sizes = []
    cb = tf.keras.callbacks.LambdaCallback()
    cb.on_test_batch_end = lambda batch, logs: sizes.append(("test", batch, logs["size"]))
    cb.on_predict_batch_end = lambda batch, logs: sizes.append(
        ("predict", batch, logs["size"], logs["outputs"][0].shape))
    full = m.evaluate(x, x[:, :1], verbose=0)
    np.testing.assert_allclose(m.evaluate(x, x[:, :1], steps=2, verbose=0, callbacks=[cb]),
                               full, rtol=1e-6)
    assert m.predict(x, steps=2, callbacks=[cb]).shape == (80, 1)
    assert sizes == [("test", 0, 1), ("test", 1, 1), ("predict", 0, 1, (40, 1)),
                     ("predict", 1, 1, (40, 1))]


def test_clear_session_starts_the_new_graph_with_the_learning_phase():
    # TF 1.15's clear_session makes keras_learning_phase first in the new graph, so a model
    # built after it numbers its ops (and seeds its initializers) as TF's
    tf.keras.backend.clear_session()
    graph = tf.get_default_graph()
    assert [o.name for o in graph.get_operations()] == ["keras_learning_phase/input",
                                                        "keras_learning_phase"]
    assert tf.keras.backend.learning_phase() is graph.get_tensor_by_name("keras_learning_phase:0")
    tf.set_random_seed(1)
    m = tf.keras.Sequential([L.Dense(3, input_shape=(2,))])
    # (TF 1.15's printed kernel)
    np.testing.assert_allclose(tf.keras.backend.get_value(m.weights[0]),
                               [[0.04626, 0.97049, -0.33341], [-0.4465, -0.45563, -0.4751]],
                               atol=1e-5)


test_clear_session_starts_the_new_graph_with_the_learning_phase.outside_graph = True


def test_fit_shuffle_batch_shuffles_whole_batches():
    # TF 1.15's shuffle='batch' permutes whole batches (np.random.shuffle of the index
    # blocks), the ragged last batch last; TF 1.15's printed history
    np.random.seed(13)
    tf.set_random_seed(20)
    x = np.random.rand(50, 4).astype("float32")
    y = np.random.randint(0, 2, 50).astype("float32")
    m = tf.keras.Sequential([L.Dense(3, activation="relu", input_shape=(4,)),
                             L.Dense(1, activation="sigmoid")])
    m.compile("adam", "binary_crossentropy", metrics=["acc"])
    h = m.fit(x, y, epochs=4, batch_size=16, validation_split=0.2, validation_freq=[2, 4],
              verbose=0, shuffle="batch")
    np.testing.assert_allclose(h.history["loss"], [0.69548, 0.69497, 0.69457, 0.69433],
                               atol=1e-5)
    np.testing.assert_allclose(h.history["acc"], [0.45, 0.475, 0.475, 0.475], atol=1e-6)
    np.testing.assert_allclose(h.history["val_loss"], [0.68869, 0.68913], atol=1e-5)


def test_image_flow_reseeds_numpy_per_batch_and_augments_as_keras_preprocessing_112():
    # TF 1.15's keras_preprocessing 1.1.2: a seeded flow seeds NumPy's generator with
    # seed + batches seen before each batch (the shuffle and the images' transforms draw
    # from it); shifts turn about size / 2 + 0.5; TF 1.15's printed sums
    np.random.seed(14)
    x = np.random.rand(12, 8, 8, 1).astype("float32")
    gen = tf.keras.preprocessing.image.ImageDataGenerator(horizontal_flip=True,
                                                          width_shift_range=0.1)
    it = gen.flow(x, np.arange(12), batch_size=4, seed=3)
    got = [next(it) for _ in range(4)]
    assert [b[1].tolist() for b in got] == [[5, 4, 1, 2], [11, 6, 7, 0], [3, 9, 8, 10],
                                            [8, 11, 1, 6]]
    np.testing.assert_allclose([b[0].sum() for b in got],
                               [132.5089, 127.5151, 121.3719, 125.1296], atol=2e-4)
    it2 = gen.flow(x, np.arange(12), batch_size=4, seed=3)
    np.testing.assert_allclose([it2[i][0].sum() for i in range(3)],
                               [132.5089, 127.5151, 121.3719], atol=2e-4)
    # (brightness: Pillow's on the image scaled to [0, 255], left so)
    bright = tf.keras.preprocessing.image.ImageDataGenerator(brightness_range=(0.8, 1.2))
    np.random.seed(5)
    params = bright.get_random_transform((8, 8, 1))
    assert bright.apply_transform(x[0], params).max() > 100


def test_learning_rate_schedule_must_return_a_float():
    # TF 1.15 takes a Python or NumPy float from the schedule; an int is refused
    m = _small_model()
    x, y = np.ones((4, 3), "float32"), np.ones((4, 1), "float32")
    with pytest.raises(ValueError, match='The output of the "schedule" function should be '
                       "float."):
        m.fit(x, y, epochs=1, verbose=0,
              callbacks=[tf.keras.callbacks.LearningRateScheduler(lambda epoch: 1)])
    h = m.fit(x, y, epochs=2, verbose=0, callbacks=[
        tf.keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * np.float32(0.5))])
    np.testing.assert_allclose(h.history["lr"], [0.005, 0.0025])


def test_a_wrapped_tf_train_optimizer_has_no_learning_rate():
    # TF 1.15's TFOptimizer exposes no lr or decay (reading them made variables here), so
    # LearningRateScheduler refuses it
    m = tf.keras.Sequential([L.Dense(1, input_shape=(2,))])
    m.compile(tf.train.AdamOptimizer(0.1), "mse")
    x, y = np.ones((4, 2), "float32"), np.ones((4, 1), "float32")
    m.fit(x, y, epochs=1, verbose=0)
    assert (hasattr(m.optimizer, "lr"), hasattr(m.optimizer, "decay"),
            hasattr(m.optimizer, "iterations")) == (False, False, True)
    assert tf.get_default_graph()._last_id == 208  # (TF 1.15's)
    with pytest.raises(ValueError, match='Optimizer must have a "lr" attribute.'):
        m.fit(x, y, epochs=1, verbose=0,
              callbacks=[tf.keras.callbacks.LearningRateScheduler(lambda epoch: 0.1)])
