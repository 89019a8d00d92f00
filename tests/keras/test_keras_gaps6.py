"""tf.keras names of TF 1.15 that tideflow lacked (metrics, utils, layers, preprocessing,
backend, optimizers), checked against NumPy references or values observed from tf_keras 2.x
under ``tf.compat.v1`` (said where)."""

import inspect

import numpy as np
import pytest

import tideflow as tf

keras = tf.keras
K = keras.backend
M = keras.metrics


def _run(*ts):
    sess = K.get_session()
    return sess.run(list(ts))


# -- metrics ----------------------------------------------------------------------------------

def _data():
    rng = np.random.RandomState(0)
    yt = (rng.rand(8, 3) > 0.5).astype("float32")
    yp = rng.rand(8, 3).astype("float32")
    sw = rng.rand(8).astype("float32")
    return yt, yp, sw


def test_confusion_count_metrics_match_numpy():
    yt, yp, sw = _data()
    w = np.repeat(sw[:, None], 3, 1)
    ms = [M.TruePositives(), M.TrueNegatives(thresholds=[0.2, 0.7]), M.FalsePositives(0.3),
          M.FalseNegatives()]
    outs = _run(*[m(yt, yp, sample_weight=sw) for m in ms])
    pos = yt > 0
    tp = np.sum(w * ((yp > 0.5) & pos))
    tn = [np.sum(w * ((yp <= t) & ~pos)) for t in (0.2, 0.7)]
    fp = np.sum(w * ((yp > 0.3) & ~pos))
    fn = np.sum(w * ((yp <= 0.5) & pos))
    np.testing.assert_allclose(outs[0], tp, rtol=1e-5)
    np.testing.assert_allclose(outs[1], tn, rtol=1e-5)
    np.testing.assert_allclose(outs[2], fp, rtol=1e-5)
    np.testing.assert_allclose(outs[3], fn, rtol=1e-5)
    assert np.shape(outs[0]) == () and np.shape(outs[1]) == (2,)
    assert ms[0].name == "true_positives"
    assert ms[1].get_config()["thresholds"] == [0.2, 0.7]
    with pytest.raises(ValueError, match="Threshold values must be in"):
        M.TruePositives(1.5)


def test_mean_wrapper_metrics_match_tf_keras_values():
    # values observed from tf_keras 2.x (tf.compat.v1 graph mode) on the same data
    yt, yp, sw = _data()
    ms = [M.Hinge(), M.SquaredHinge(), M.CategoricalHinge(), M.KLDivergence(), M.Poisson(),
          M.LogCoshError(), M.CosineSimilarity(), M.MeanSquaredLogarithmicError(),
          # (a [1, 3] normalizer: TF 1.15 squeezes [8, 3] predictions toward a [3] one)
          M.MeanRelativeError(normalizer=[[1.0, 2.0, 3.0]])]
    outs = _run(*[m(yt, yp, sample_weight=sw) for m in ms])
    expected = [0.8113, 0.9847, 0.45041, 2.06584, 1.22943, 0.15677, 0.74275, 0.15531, 0.2903]
    np.testing.assert_allclose(outs, expected, atol=2e-5)
    assert [m.name for m in ms] == [
        "hinge", "squared_hinge", "categorical_hinge", "kullback_leibler_divergence",
        "poisson", "logcosh", "cosine_similarity", "mean_squared_logarithmic_error",
        "mean_relative_error"]
    # the NumPy forms of two of them
    cos = np.sum(yt * yp, 1) / np.maximum(np.linalg.norm(yt, axis=1), 1e-6) \
        / np.linalg.norm(yp, axis=1)
    np.testing.assert_allclose(outs[6], np.sum(sw * cos) / np.sum(sw), rtol=1e-4)
    rel = np.abs(yt - yp) / np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(outs[8], np.sum(sw[:, None] * rel) / (3 * np.sum(sw)), rtol=1e-5)


def test_metric_classes_have_explicit_signatures():
    assert list(inspect.signature(M.CosineSimilarity).parameters) == ["name", "dtype", "axis"]
    assert inspect.signature(M.Hinge).parameters["name"].default == "hinge"
    assert list(inspect.signature(M.TopKCategoricalAccuracy).parameters) == [
        "k", "name", "dtype"]
    m = M.BinaryAccuracy("acc", None, 0.3)
    assert m.name == "acc" and m.get_config()["threshold"] == 0.3


def test_mean_tensor_weighted_elementwise_mean():
    m = M.MeanTensor()
    with pytest.raises(ValueError, match="does not have any result yet"):
        m.result()
    a = np.array([[1.0, 2.0], [3.0, 4.0]], "float32")
    b = np.array([[5.0, 0.0], [1.0, 2.0]], "float32")
    u1 = m.update_state(a)
    u2 = m.update_state(b, sample_weight=np.array([[2.0], [0.0]], "float32"))
    r = m.result()
    _run(u1)
    _run(u2)
    (got,) = _run(r)
    np.testing.assert_allclose(got, [[(1 + 10) / 3, 2 / 3], [3.0, 4.0]], rtol=1e-6)
    with pytest.raises(ValueError, match="same shape"):
        m.update_state(np.zeros((3, 2), "float32"))


def _rates_at(yt, yp, sw, thresholds):
    w = np.repeat(sw[:, None], yt.shape[1], 1).ravel()
    yt, yp = yt.ravel() > 0, yp.ravel()
    out = []
    for t in thresholds:
        above = yp > t
        out.append([np.sum(w * (above & yt)), np.sum(w * (~above & ~yt)),
                    np.sum(w * (above & ~yt)), np.sum(w * (~above & yt))])
    return np.array(out).T


def test_sensitivity_specificity_at_nearest_rate_tf115_rule():
    yt, yp, sw = _data()
    m1 = M.SensitivityAtSpecificity(0.5, num_thresholds=7)
    m2 = M.SpecificityAtSensitivity(0.6, num_thresholds=11)
    o1, o2 = _run(m1(yt, yp, sample_weight=sw), m2(yt, yp, sample_weight=sw))

    def ths(n):
        return [0.0] + [(i + 1) / (n - 1) for i in range(n - 2)] + [1.0]  # (TF 1.15's)

    tp, tn, fp, fn = _rates_at(yt, yp, sw, ths(7))
    i = np.argmin(np.abs(tn / (tn + fp) - 0.5))
    np.testing.assert_allclose(o1, tp[i] / (tp[i] + fn[i]), rtol=1e-5)
    tp, tn, fp, fn = _rates_at(yt, yp, sw, ths(11))
    i = np.argmin(np.abs(tp / (tp + fn) - 0.6))
    np.testing.assert_allclose(o2, tn[i] / (tn[i] + fp[i]), rtol=1e-5)
    assert m1.get_config()["specificity"] == 0.5
    with pytest.raises(ValueError, match="range"):
        M.SensitivityAtSpecificity(1.5)


def test_mean_iou_weighted():
    m = M.MeanIoU(3)
    yt, yp = np.array([0, 1, 2, 2, 1]), np.array([0, 2, 2, 1, 1])
    w = np.array([1, 2, 1, 1, 0.5])
    # (a tensor: TF 1.15's MeanIoU reads the weights' ``shape.ndims``, which NumPy lacks)
    (got,) = _run(m(yt, yp, sample_weight=tf.constant(w)))
    cm = np.zeros((3, 3))
    np.add.at(cm, (yt, yp), w)
    tp = np.diag(cm)
    den = cm.sum(0) + cm.sum(1) - tp
    np.testing.assert_allclose(got, np.mean(tp / den), rtol=1e-6)
    assert m.total_cm.dtype.base_dtype == tf.float64
    assert m.get_config()["num_classes"] == 3


def test_loss_classes_have_explicit_signatures():
    sig = inspect.signature(keras.losses.BinaryCrossentropy)
    assert list(sig.parameters) == ["from_logits", "label_smoothing", "reduction", "name"]
    assert sig.parameters["name"].default == "binary_crossentropy"
    assert list(inspect.signature(keras.losses.Huber).parameters) == [
        "delta", "reduction", "name"]
    loss = keras.losses.BinaryCrossentropy(True, 0.0, "sum")
    assert loss.reduction == "sum" and loss.get_config()["from_logits"] is True


# -- recurrent layers: TF 1.15's keyword order ------------------------------------------------

def test_recurrent_layers_and_cells_take_tf115_positional_arguments():
    L = keras.layers
    assert L.LSTM(32, "relu").activation is keras.activations.relu
    cell = L.LSTMCell(4, "tanh", "sigmoid", False)  # 4th positional is use_bias
    assert cell.use_bias is False and cell.unit_forget_bias is True
    g = L.GRUCell(3, "tanh", "sigmoid", True, "ones")
    assert g.kernel_initializer.__class__.__name__ == "Ones"
    s = L.SimpleRNNCell(2, "relu", False)
    assert s.use_bias is False
    params = list(inspect.signature(L.LSTM).parameters)
    assert params[:4] == ["units", "activation", "recurrent_activation", "use_bias"]
    assert params[-2:] == ["unroll", "kwargs"]
    assert list(inspect.signature(L.GRU).parameters)[-2] == "reset_after"
    assert inspect.signature(L.LSTMCell).parameters["implementation"].default == 1
    # the positional layer still builds and runs: ones kernel, zero recurrent kernel, no bias
    layer = L.SimpleRNN(2, None, False, "ones", "zeros")
    out = layer(tf.constant(np.ones((1, 3, 4), "float32")))
    K.get_session().run(tf.global_variables_initializer())
    np.testing.assert_allclose(K.eval(out), [[4.0, 4.0]])


# -- utils: enqueuers, source inputs, object (de)serialization --------------------------------

class _Batches(keras.utils.Sequence):
    """Batch i of a linear target; records its epoch ends."""

    def __init__(self, n=4, with_pid=True):
        self.n, self.ends, self.with_pid = n, 0, with_pid

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        import os

        x = np.random.RandomState(i).rand(8, 3).astype("float32")
        if not self.with_pid:
            return x, x.sum(1, keepdims=True)
        return x, x.sum(1, keepdims=True), np.full((8,), os.getpid(), "float32")

    def on_epoch_end(self):
        self.ends += 1


@pytest.mark.parametrize("use_mp", [False, True])
def test_ordered_enqueuer_yields_batches_in_order_epoch_after_epoch(use_mp):
    import os

    seq = _Batches(3)
    enq = keras.utils.OrderedEnqueuer(seq, use_multiprocessing=use_mp)
    enq.start(workers=2, max_queue_size=2)
    assert enq.is_running()
    gen = enq.get()
    got = [next(gen) for _ in range(7)]
    enq.stop()
    assert not enq.is_running()
    for k, (x, _, _) in enumerate(got):
        np.testing.assert_array_equal(x, np.random.RandomState(k % 3).rand(8, 3)
                                      .astype("float32"))
    pids = {int(b[2][0]) for b in got}
    assert (os.getpid() not in pids) if use_mp else (pids == {os.getpid()})
    if not use_mp:
        assert seq.ends >= 2  # the enqueuer ends each epoch of the Sequence


def test_ordered_enqueuer_shuffles_each_epoch_and_generator_enqueuer_ends():
    enq = keras.utils.OrderedEnqueuer(_Batches(6), shuffle=True)
    enq.start(workers=1)
    gen = enq.get()
    firsts = [next(gen)[0][0, 0] for _ in range(6)]
    enq.stop()
    expected = sorted(np.random.RandomState(i).rand(8, 3)[0, 0] for i in range(6))
    np.testing.assert_allclose(sorted(firsts), expected, rtol=1e-6)

    def finite():
        yield from range(7)

    for use_mp in (False, True):
        genq = keras.utils.GeneratorEnqueuer(finite(), use_multiprocessing=use_mp)
        genq.start(workers=1, max_queue_size=3)
        assert list(genq.get()) == list(range(7))  # a finite generator's end ends get()
        assert not genq.is_running()
    assert issubclass(keras.utils.GeneratorEnqueuer, keras.utils.SequenceEnqueuer)


def test_enqueuer_passes_on_generator_errors():
    def broken():
        yield 1
        raise KeyError("bad batch")

    enq = keras.utils.GeneratorEnqueuer(broken())
    enq.start(workers=1)
    gen = enq.get()
    assert next(gen) == 1
    with pytest.raises(KeyError, match="bad batch"):
        next(gen)
    assert not enq.is_running()


@pytest.mark.parametrize("use_mp", [False, True])
def test_fit_generator_with_worker_pool_matches_in_thread_run(use_mp):
    def train(**kw):
        K.clear_session()
        tf.set_random_seed(1)
        m = keras.Sequential([keras.layers.Dense(1, input_shape=(3,))])
        m.compile("sgd", "mse")
        seq = _Batches(4, with_pid=False)
        h = m.fit_generator(seq, epochs=2, verbose=0, shuffle=False, **kw)
        return h.history["loss"], m.evaluate(seq, verbose=0, **kw), m.predict(seq, **kw)

    ref = train(workers=1)
    got = train(workers=3, use_multiprocessing=use_mp)
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-5)
    np.testing.assert_allclose(got[1], ref[1], rtol=1e-5)
    np.testing.assert_allclose(got[2], ref[2], rtol=1e-5)


def test_get_source_inputs_and_keras_object_serialization():
    L = keras.layers
    U = keras.utils
    a, b = L.Input((3,)), L.Input((2,))
    c = L.Concatenate()([L.Dense(2)(a), b, L.Dense(2)(a)])
    assert U.get_source_inputs(c) == [a, b]
    assert U.get_source_inputs(a) == [a]
    t = tf.constant(1.0)
    assert U.get_source_inputs(t) is t
    model = keras.Model([a, b], c)
    assert U.get_source_inputs(model(model.inputs)) == [a, b]

    cfg = U.serialize_keras_object(L.Dense(3, activation="relu", name="d"))
    assert cfg["class_name"] == "Dense" and cfg["config"]["units"] == 3
    layer = U.deserialize_keras_object(cfg, module_objects=vars(L))
    assert isinstance(layer, L.Dense) and layer.units == 3 and layer.name == "d"
    assert U.serialize_keras_object(keras.activations.relu) == "relu"
    assert U.serialize_keras_object(None) is None
    assert U.deserialize_keras_object("relu", vars(keras.activations)) is keras.activations.relu
    assert isinstance(U.deserialize_keras_object("Zeros", vars(keras.initializers)),
                      keras.initializers.Zeros)
    with pytest.raises(ValueError, match="Unknown layer: Nope"):
        U.deserialize_keras_object({"class_name": "Nope", "config": {}}, vars(L),
                                   printable_module_name="layer")
    with pytest.raises(ValueError, match="Improper config format"):
        U.deserialize_keras_object({"config": {}})

    class Twice(L.Layer):
        def call(self, x):
            return 2 * x

    got = U.deserialize_keras_object({"class_name": "Twice", "config": {"name": "t"}},
                                     custom_objects={"Twice": Twice})
    assert isinstance(got, Twice) and got.name == "t"


def test_model_to_dot_without_pydot_is_import_error():
    try:
        import pydot  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("pydot is installed here")
    m = keras.Sequential([keras.layers.Dense(1, input_shape=(2,))])
    with pytest.raises(ImportError, match="Failed to import pydot"):
        keras.utils.model_to_dot(m)
    with pytest.raises(ImportError, match="Failed to import pydot"):
        keras.utils.plot_model(m)


# -- preprocessing.image: the random_* transforms, save_img -----------------------------------

IMG = keras.preprocessing.image


def test_affine_transform_rotation_and_keras_shift_axes():
    x = np.arange(25.0).reshape(1, 5, 5)
    rot = IMG.apply_affine_transform(x, theta=90, row_axis=1, col_axis=2, channel_axis=0)
    # keras_preprocessing 1.1.2 (TF 1.15's) turns about size / 2 + 0.5, off the centre
    # pixel (its printed result)
    np.testing.assert_allclose(rot[0], [[20, 20, 20, 15, 10], [21, 21, 21, 16, 11],
                                        [22, 22, 22, 17, 12], [23, 23, 23, 18, 13],
                                        [24, 24, 24, 19, 14]], atol=1e-9)
    # there ``tx`` moves rows and ``ty`` columns (tf_keras 2.x later swaps them)
    s = IMG.apply_affine_transform(x, tx=2, row_axis=1, col_axis=2, channel_axis=0,
                                   fill_mode="constant", cval=-1)
    np.testing.assert_array_equal(s[0, :3], x[0, 2:])
    assert (s[0, 3:] == -1).all()
    s = IMG.apply_affine_transform(x, ty=1, row_axis=1, col_axis=2, channel_axis=0,
                                   fill_mode="constant", cval=-1)
    np.testing.assert_array_equal(s[0, :, :4], x[0, :, 1:])


def test_random_transforms_draw_like_keras_and_match_tf_keras_values():
    x = np.random.RandomState(0).rand(3, 8, 10).astype("float32") * 255
    np.random.seed(3)
    rot = IMG.random_rotation(x, 30)
    zoom = IMG.random_zoom(x, (0.7, 1.3))
    shear = IMG.random_shear(x, 20)
    # keras_preprocessing 1.1.2's (TF 1.15's) functions draw so from the seed, and pass the
    # transform the channel axis alone (the row and column axes left at 0 and 1)
    np.random.seed(3)
    theta = np.random.uniform(-30, 30)
    zx, zy = np.random.uniform(0.7, 1.3, 2)
    sh = np.random.uniform(-20, 20)
    kw = {"channel_axis": 0}
    np.testing.assert_allclose(rot, IMG.apply_affine_transform(x, theta=theta, **kw))
    np.testing.assert_allclose(zoom, IMG.apply_affine_transform(x, zx=zx, zy=zy, **kw))
    np.testing.assert_allclose(shear, IMG.apply_affine_transform(x, shear=sh, **kw))
    # TF 1.15's keras_preprocessing 1.1.2 (np.random.seed(3), random_shift(x, .2, .3),
    # random_channel_shift(x, 40), random_brightness(channels-last x, (.5, 1.5)),
    # np.random.rand(3), random_rotation(x, 30)) gave:
    np.random.seed(3)
    IMG.random_shift(x, 0.2, 0.3)
    IMG.random_channel_shift(x, 40.0)
    IMG.random_brightness(np.moveaxis(x, 0, 2), (0.5, 1.5))
    np.random.rand(3)
    rot2 = IMG.random_rotation(x, 30)
    np.testing.assert_allclose(rot2[0, :2, :3], [[174.45709, 160.39062, 143.07555],
                                                 [161.6532, 169.04266, 157.89091]],
                               rtol=1e-5)
    with pytest.raises(ValueError, match="zoom_range"):
        IMG.random_zoom(x, (0.5,))
    with pytest.raises(ValueError, match="brightness_range"):
        IMG.random_brightness(x, (0.5,))


def test_channel_and_brightness_shifts():
    x = np.random.RandomState(1).rand(2, 4, 5).astype("float32") * 100
    got = IMG.apply_channel_shift(x, 30.0, channel_axis=0)
    np.testing.assert_allclose(got, np.clip(x + 30.0, x.min(), x.max()))
    np.random.seed(0)
    got = IMG.random_channel_shift(x, 10.0)
    np.random.seed(0)
    np.testing.assert_allclose(got, np.clip(x + np.random.uniform(-10, 10), x.min(), x.max()))
    img = np.random.RandomState(2).rand(4, 5, 3).astype("float32") * 255
    scaled = (img - img.min()) / (img.max() - img.min()) * 255
    same = IMG.apply_brightness_shift(img, 1.0)
    np.testing.assert_allclose(same, np.floor(scaled), atol=1.0)
    half = IMG.apply_brightness_shift(img, 0.5)
    np.testing.assert_allclose(half, np.floor(scaled).astype("uint8") * 0.5, atol=1.0)


def test_image_data_generator_parameters_follow_keras_draws():
    gen = IMG.ImageDataGenerator(rotation_range=20, width_shift_range=0.2,
                                 height_shift_range=0.1, shear_range=10, zoom_range=0.2,
                                 channel_shift_range=20, horizontal_flip=True,
                                 vertical_flip=True, brightness_range=(0.6, 1.4))
    p = gen.get_random_transform((8, 10, 3), seed=0)
    got = [float(v) for _, v in sorted(p.items())]
    # TF 1.15's (keras_preprocessing 1.1.2) get_random_transform((8, 10, 3), seed=0)
    np.testing.assert_allclose(got, [0.90675322, 18.54651042, 1.0, 0.0, 0.89766366,
                                     1.95254016, 0.34430299, 0.4110535, 0.96946192,
                                     1.05835765], rtol=1e-6)
    x = np.random.RandomState(0).rand(8, 10, 3).astype("float32") * 255
    out = gen.random_transform(x, seed=0)
    np.testing.assert_allclose(out[:2, :2, 0], [[191.0, 81.0], [29.0, 47.0]])  # TF 1.15's
    # integer shift ranges pick one of the values, either sign
    g2 = IMG.ImageDataGenerator(width_shift_range=[2, 3])
    assert abs(g2.get_random_transform((8, 10, 3), seed=1)["ty"]) in (2, 3)


def test_save_img_round_trip(tmp_path):
    x = np.random.RandomState(0).randint(0, 256, (6, 7, 3)).astype("float32")
    path = str(tmp_path / "a.png")
    IMG.save_img(path, x, scale=False)
    back = IMG.img_to_array(IMG.load_img(path))
    np.testing.assert_array_equal(back, x)
    with pytest.warns(UserWarning, match="converting to RGB"):
        IMG.save_img(str(tmp_path / "b.jpg"), np.concatenate([x, x[..., :1]], -1),
                     scale=False, file_format="jpeg")
    assert IMG.load_img(str(tmp_path / "b.jpg")).size == (7, 6)


def test_tokenizer_to_json_round_trip():
    T = keras.preprocessing.text
    t = T.Tokenizer(num_words=5, oov_token="<unk>")
    t.fit_on_texts(["the cat sat", "the dog sat down", "a cat!"])
    js = t.to_json()
    import json

    cfg = json.loads(js)
    assert cfg["class_name"] == "Tokenizer" and cfg["config"]["num_words"] == 5
    # as Keras: the tables are JSON strings inside the config, integer keys as strings
    assert json.loads(cfg["config"]["index_word"])["2"] == "the"
    t2 = T.tokenizer_from_json(js)
    assert t2.word_index == t.word_index and t2.index_word == dict(t.index_word)
    assert t2.index_docs == dict(t.index_docs) and t2.document_count == 3
    # tf_keras gives [[2, 3, 1, 1]] for this text (observed)
    assert t2.texts_to_sequences(["the cat ran down"]) == [[2, 3, 1, 1]]
    assert t2.oov_token == "<unk>" and t2.num_words == 5


# -- backend: local convolutions, resize_volumes ----------------------------------------------

def _np_local_conv(x, kernel, ksize, strides, out_shape, channels_first):
    """NumPy reference: patch of each output position, flattened in the input's axis order,
    times that position's kernel."""
    import itertools

    outs = []
    for pos in itertools.product(*[range(n) for n in out_shape]):
        sl = [slice(p * s, p * s + k) for p, s, k in zip(pos, strides, ksize)]
        patch = x[(slice(None), slice(None), *sl)] if channels_first else \
            x[(slice(None), *sl, slice(None))]
        outs.append(patch.reshape(len(x), -1) @ kernel[len(outs)])
    out = np.stack(outs, 1).reshape((len(x),) + tuple(out_shape) + (-1,))
    return np.moveaxis(out, -1, 1) if channels_first else out


def test_local_conv1d_and_2d_match_numpy():
    r = np.random.RandomState(0)
    x1, k1 = r.rand(2, 7, 3).astype("f"), r.rand(3, 6, 4).astype("f")
    x2, k2 = r.rand(2, 5, 6, 3).astype("f"), r.rand(4, 18, 5).astype("f")
    x2f = np.transpose(x2, (0, 3, 1, 2))
    o1, o2, o3 = _run(
        K.local_conv1d(K.constant(x1), K.constant(k1), (2,), (2,)),
        K.local_conv2d(K.constant(x2), K.constant(k2), (3, 2), (2, 3), (2, 2),
                       "channels_last"),
        K.local_conv2d(K.constant(x2f), K.constant(k2), (3, 2), (2, 3), (2, 2),
                       "channels_first"))
    np.testing.assert_allclose(o1, _np_local_conv(x1, k1, (2,), (2,), (3,), False), rtol=1e-5)
    np.testing.assert_allclose(o2, _np_local_conv(x2, k2, (3, 2), (2, 3), (2, 2), False),
                               rtol=1e-5)
    np.testing.assert_allclose(o3, _np_local_conv(x2f, k2, (3, 2), (2, 3), (2, 2), True),
                               rtol=1e-5)
    with pytest.raises(ValueError, match="Unknown data_format"):
        K.local_conv2d(K.constant(x2), K.constant(k2), (3, 2), (2, 3), (2, 2), "nhwc")


def test_resize_volumes_repeats_entries():
    v = np.random.RandomState(0).rand(2, 2, 3, 2, 4).astype("f")
    a, b = _run(K.resize_volumes(K.constant(v), 2, 1, 3, "channels_last"),
                K.resize_volumes(K.constant(v), 1, 2, 2, "channels_first"))
    np.testing.assert_array_equal(a, v.repeat(2, 1).repeat(3, 3))
    np.testing.assert_array_equal(b, v.repeat(2, 3).repeat(2, 4))
    with pytest.raises(ValueError, match="Invalid data_format"):
        K.resize_volumes(K.constant(v), 1, 1, 1, None)


# -- optimizers.Ftrl, models.model_from_yaml --------------------------------------------------

def test_ftrl_matches_tf_keras_training_and_slot_order():
    r = np.random.RandomState(0)
    x, y = r.rand(16, 3).astype("f"), r.rand(16, 2).astype("f")
    m = keras.Sequential([
        keras.layers.Dense(4, activation="tanh", input_shape=(3,),
                           kernel_initializer=keras.initializers.Constant(r.rand(3, 4) - .5)),
        keras.layers.Dense(2, kernel_initializer="ones")])
    opt = keras.optimizers.Ftrl(0.1, l1_regularization_strength=0.01,
                                l2_regularization_strength=0.02, initial_accumulator_value=0.2)
    m.compile(opt, "mse")
    h = m.fit(x, y, batch_size=4, epochs=3, verbose=0, shuffle=False)
    # tf_keras 2.x (tf.compat.v1 graph mode), same program: losses and first kernel row
    np.testing.assert_allclose(h.history["loss"], [0.24476, 0.08841, 0.06479], atol=2e-5)
    np.testing.assert_allclose(m.get_weights()[0][0], [0.01511, 0.06514, -0.0673, 0.17447],
                               atol=2e-5)
    assert [w.name for w in opt.weights][:3] == [
        "training/Ftrl/iter:0", "training/Ftrl/dense/kernel/accumulator:0",
        "training/Ftrl/dense/kernel/linear:0"]
    cfg = opt.get_config()
    assert cfg["learning_rate_power"] == -0.5 and cfg["initial_accumulator_value"] == 0.2
    assert isinstance(keras.optimizers.get("ftrl"), keras.optimizers.Ftrl)
    with pytest.raises(ValueError, match="learning_rate_power"):
        keras.optimizers.Ftrl(learning_rate_power=0.5)
    with pytest.raises(ValueError, match="l1_regularization_strength"):
        keras.optimizers.Ftrl(l1_regularization_strength=-1.0)


def test_ftrl_l2_shrinkage_matches_tf_keras():
    r = np.random.RandomState(0)
    x, y = r.rand(16, 3).astype("f"), r.rand(16, 2).astype("f")
    m = keras.Sequential([keras.layers.Dense(2, input_shape=(3,), kernel_initializer="ones")])
    m.compile(keras.optimizers.Ftrl(0.5, l2_shrinkage_regularization_strength=0.1), "mse")
    m.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    # observed from tf_keras 2.x, same program
    np.testing.assert_allclose(m.get_weights()[0], [[0.36477, 0.23154], [0.31411, 0.23355],
                                                    [0.37173, 0.26938]], atol=2e-5)


def test_model_yaml_without_pyyaml_is_import_error():
    try:
        import yaml  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("PyYAML is installed here")
    m = keras.Sequential([keras.layers.Dense(1, input_shape=(2,))])
    with pytest.raises(ImportError, match="pip install pyyaml"):
        keras.models.model_from_yaml("class_name: Sequential")
    with pytest.raises(ImportError, match="pip install pyyaml"):
        m.to_yaml()


# -- layers.ConvLSTM2D ------------------------------------------------------------------------

def _np_conv(x, w, pad_same):
    """NumPy 2-D convolution, stride 1 ([b, h, w, c] * [kh, kw, c, o]); 'same' pads as TF."""
    kh, kw = w.shape[:2]
    if pad_same:
        ph, pw = kh - 1, kw - 1
        x = np.pad(x, ((0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)))
    oh, ow = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]))
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("bhwc,co->bhwo", x[:, i:i + oh, j:j + ow], w[i, j])
    return out


def _np_conv_lstm(x, kernel, rec, bias, same, backwards=False):
    hard_sigmoid = lambda z: np.clip(0.2 * z + 0.5, 0, 1)
    f = rec.shape[2]
    xs = x[:, ::-1] if backwards else x
    h = c = np.zeros(_np_conv(xs[:, 0], kernel, same).shape[:3] + (f,))
    seq = []
    for t in range(xs.shape[1]):
        z = _np_conv(xs[:, t], kernel, same) + bias + _np_conv(h, rec, True)
        i, fg = hard_sigmoid(z[..., :f]), hard_sigmoid(z[..., f:2 * f])
        c = fg * c + i * np.tanh(z[..., 2 * f:3 * f])
        h = hard_sigmoid(z[..., 3 * f:]) * np.tanh(c)
        seq.append(h)
    return np.stack(seq, 1), h, c


@pytest.mark.parametrize("same,backwards", [(False, False), (True, True)])
def test_conv_lstm2d_matches_numpy(same, backwards):
    L = keras.layers
    r = np.random.RandomState(0)
    x = r.rand(2, 3, 6, 5, 2).astype("f")
    layer = L.ConvLSTM2D(3, (3, 2), padding="same" if same else "valid",
                         return_sequences=True, return_state=True, go_backwards=backwards)
    inp = L.Input(x.shape[1:])
    seq, h, c = layer(inp)
    kernel, rec, bias = layer.get_weights()
    assert kernel.shape == (3, 2, 2, 12) and rec.shape == (3, 2, 3, 12) and bias.shape == (12,)
    np.testing.assert_array_equal(bias, [0] * 3 + [1] * 3 + [0] * 6)  # unit_forget_bias
    ws = [r.rand(*w.shape).astype("f") - 0.5 for w in (kernel, rec, bias)]
    layer.set_weights(ws)
    got = K.function([inp], [seq, h, c])([x])
    want = _np_conv_lstm(x, *ws, same, backwards)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
    assert seq.get_shape().as_list() == [None, 3, 6 if same else 4, 5 if same else 4, 3]
    assert [w.name for w in layer.weights] == [
        f"{layer.name}/kernel:0", f"{layer.name}/recurrent_kernel:0", f"{layer.name}/bias:0"]


def test_conv_lstm2d_channels_first_and_training_match_tf_keras():
    L = keras.layers
    r = np.random.RandomState(0)
    x = r.rand(2, 3, 6, 5, 2).astype("f")
    last = L.ConvLSTM2D(3, 3, data_format="channels_first")
    ref = L.ConvLSTM2D(3, 3)
    xf = np.transpose(x, (0, 1, 4, 2, 3))
    a, b = last(tf.constant(xf)), ref(tf.constant(x))
    ref.set_weights(last.get_weights())
    va, vb = _run(a, b)
    np.testing.assert_allclose(va, np.transpose(vb, (0, 3, 1, 2)), rtol=1e-5)
    assert last.compute_output_shape((None, 3, 2, 6, 5)).as_list() == [None, 3, 4, 3]
    assert last.name.startswith("conv_lst_m2d")  # TF 1.15's snake case of the class name

    # a two-layer model trained with SGD: the losses tf_keras 2.x gives for the same program
    K.clear_session()
    r = np.random.RandomState(0)
    x, y = r.rand(4, 3, 5, 5, 2).astype("f"), r.rand(4, 1).astype("f")
    m = keras.Sequential([
        L.ConvLSTM2D(3, 3, padding="same", input_shape=(3, 5, 5, 2), return_sequences=True,
                     go_backwards=True),
        L.ConvLSTM2D(2, 2, strides=2), L.Flatten(), L.Dense(1)])
    m.set_weights([r.rand(*w.shape).astype("f") * 0.4 - 0.2 for w in m.get_weights()])
    m.compile(keras.optimizers.SGD(0.1), "mse")
    h = m.fit(x, y, epochs=3, batch_size=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(h.history["loss"], [0.068404, 0.059744, 0.056494], atol=2e-6)
    m2 = keras.Sequential.from_config(m.get_config())
    assert [w.shape for w in m2.get_weights()] == [w.shape for w in m.get_weights()]


def test_conv_lstm2d_stateful_dropout_and_errors():
    L = keras.layers
    x = np.random.RandomState(0).rand(2, 4, 6, 6, 1).astype("f")
    s = keras.Sequential([L.ConvLSTM2D(2, 3, stateful=True, batch_input_shape=(2, 4, 6, 6, 1))])
    a = s.predict(x)
    b = s.predict(x)  # starts from the states the first call left
    s.reset_states()
    c = s.predict(x)
    assert np.abs(a - b).max() > 1e-4
    np.testing.assert_allclose(a, c, rtol=1e-6)
    d = keras.Sequential([L.ConvLSTM2D(2, 3, dropout=0.5, recurrent_dropout=0.5,
                                       input_shape=(4, 6, 6, 1))])
    np.testing.assert_allclose(d.predict(x), d.predict(x))  # no dropout at inference
    with pytest.raises(TypeError, match="Unrolling"):
        L.ConvLSTM2D(2, 3, unroll=True)
    with pytest.raises(ValueError, match="ndim=5"):
        L.ConvLSTM2D(2, 3)(tf.zeros([2, 4, 6, 1]))


# -- layers.DenseFeatures ---------------------------------------------------------------------

def _columns():
    fc = tf.feature_column
    price = fc.numeric_column("price", shape=(2,))
    ab = fc.bucketized_column(fc.numeric_column("age"), [18, 30, 50])
    color = fc.categorical_column_with_vocabulary_list("color", ["r", "g", "b"])
    table = np.arange(9).reshape(3, 3) / 10.0
    emb = fc.embedding_column(color, 3, initializer=tf.constant_initializer(table))
    return price, ab, emb, fc.indicator_column(color), table


def test_dense_features_concatenates_columns_by_name_and_reuses_variables():
    price, ab, emb, ind, table = _columns()
    layer = keras.layers.DenseFeatures([price, ab, emb, ind])
    feats = {"price": tf.constant([[1.0, 2.0], [3.0, 4.0]]), "age": tf.constant([[20.0], [60.0]]),
             "color": tf.constant([["g"], ["b"]])}
    cols_out = {}
    out = layer(feats, cols_to_output_tensors=cols_out)
    out2 = layer(feats)
    sess = K.get_session()
    sess.run(tf.tables_initializer())
    got, got2 = sess.run([out, out2])
    # by column name: age_bucketized (4), color_embedding (3), color_indicator (3), price (2)
    want = np.concatenate([np.eye(4)[[1, 3]], table[[1, 2]], np.eye(3)[[1, 2]],
                           [[1.0, 2.0], [3.0, 4.0]]], 1)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(got2, want, rtol=1e-6)
    assert out.get_shape().as_list() == [2, 12]
    assert [w.name for w in layer.trainable_weights] == [
        "dense_features/color_embedding/embedding_weights:0"]
    assert len(tf.global_variables()) == 1  # the second call reused the embedding
    assert cols_out[price].get_shape().as_list() == [2, 2]
    assert layer.compute_output_shape({"price": (None, 2)}).as_list() == [None, 12]
    with pytest.raises(ValueError, match="must be a DenseColumn"):
        keras.layers.DenseFeatures([tf.feature_column.categorical_column_with_identity("c", 3)])
    with pytest.raises(ValueError, match="expected a dictionary"):
        layer(tf.constant([[1.0]]))


def test_dense_features_in_a_functional_model_trains_its_embedding():
    price, ab, emb, _, _ = _columns()
    inputs = {"price": keras.Input((2,), name="price"), "age": keras.Input((1,), name="age"),
              "color": keras.Input((1,), name="color", dtype=tf.string)}
    x = keras.layers.DenseFeatures([price, ab, emb])(inputs)
    y = keras.layers.Dense(1, kernel_initializer="ones")(x)
    m = keras.Model(inputs=inputs, outputs=y)
    m.compile(keras.optimizers.SGD(0.05), "mse")
    K.get_session().run(tf.tables_initializer())  # as TF's Keras: tables are the user's
    d = {"price": np.array([[1.0, 2.0], [3.0, 4.0]], "f"),
         "age": np.array([[20.0], [60.0]], "f"), "color": np.array([["g"], ["b"]])}
    # kernel of ones: the sum of the features (bucket one-hot, embedding row, price)
    np.testing.assert_allclose(m.predict(d).ravel(), [1 + 1.2 + 3, 1 + 2.1 + 7], rtol=1e-6)
    before = K.get_value(m.trainable_weights[0])
    m.fit(d, np.array([[1.0], [2.0]], "f"), epochs=1, verbose=0)
    after = K.get_value(m.trainable_weights[0])
    assert m.trainable_weights[0].name.endswith("color_embedding/embedding_weights:0")
    np.testing.assert_array_equal(after[0], before[0])  # "r" unused
    assert np.abs(after[1:] - before[1:]).min() > 0


def test_metric_objects_deserialize_by_class_name_and_config():
    m = M.deserialize({"class_name": "TruePositives", "config": {"thresholds": [0.3, 0.6]}})
    assert isinstance(m, M.TruePositives) and m.thresholds == [0.3, 0.6]
    again = M.deserialize({"class_name": "MeanIoU", "config": M.MeanIoU(4).get_config()})
    assert again.num_classes == 4
    assert isinstance(M.get("Hinge"), M.Hinge)
    assert M.get("mse") is M.mean_squared_error
    with pytest.raises(ValueError, match="Unknown metric function:Nope"):
        M.deserialize("Nope")


def test_fit_generator_default_worker_shuffles_sequence_batches_per_epoch():
    class Seen(keras.utils.Sequence):
        def __init__(self):
            self.seen, self.ends = [], 0

        def __len__(self):
            return 6

        def __getitem__(self, i):
            self.seen.append(i)
            x = np.full((2, 1), i, "f")
            return x, x

        def on_epoch_end(self):
            self.ends += 1

    m = keras.Sequential([keras.layers.Dense(1, input_shape=(1,))])
    m.compile("sgd", "mse")
    import random

    random.seed(0)
    # as TF 1.15: workers=1 (the default) draws through an OrderedEnqueuer that shuffles
    # the batch order each epoch (shuffle=True, the default); workers=0 or shuffle=False
    # keeps the order; every batch once per epoch. (The enqueuer's thread, as TF's, may have
    # fetched a batch or an epoch's end ahead when fit stops it: only the 18 used are checked)
    orders = {}
    for kw in ({}, {"shuffle": False}, {"workers": 0}):
        s = Seen()
        m.fit_generator(s, epochs=3, verbose=0, **kw)
        assert [sorted(s.seen[k * 6:(k + 1) * 6]) for k in range(3)] == [list(range(6))] * 3
        assert len(s.seen) >= 18 and s.ends >= 3
        if kw:
            assert len(s.seen) == 18 or kw == {"shuffle": False}
        orders[str(kw)] = s.seen[:18]
    assert orders["{}"] != list(range(6)) * 3
    assert orders["{'shuffle': False}"] == orders["{'workers': 0}"] == list(range(6)) * 3
    s = Seen()
    m.evaluate_generator(s)
    assert s.seen == list(range(6))  # evaluation in order


def test_conv_lstm2d_masked_steps_keep_previous_output():
    L = keras.layers
    r = np.random.RandomState(1)
    x = r.rand(2, 4, 5, 5, 2).astype("f")
    x[0, 2:] = 0.0  # sample 0: the last two steps masked everywhere
    x[1, 1, 2:, 3:] = 0.0  # sample 1, step 1: a corner masked
    inp = L.Input((4, 5, 5, 2))
    layer = L.ConvLSTM2D(3, 3, padding="same", return_sequences=True)
    seq = layer(L.Masking(0.0)(inp))
    nxt = L.ConvLSTM2D(2, 3, padding="same")(seq)  # the mask passes on with the sequence
    ws = [r.rand(*w.shape).astype("f") - 0.5 for w in layer.get_weights()]
    layer.set_weights(ws)
    got, _ = K.function([inp], [seq, nxt])([x])
    np.testing.assert_allclose(got[0, 2], got[0, 1])
    np.testing.assert_allclose(got[0, 3], got[0, 1])
    want, _, _ = _np_conv_lstm(x[:1, :2], *ws, True)
    np.testing.assert_allclose(got[:1, :2], want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[1, 1, 2:, 3:], got[1, 0, 2:, 3:])  # corner kept
    assert np.abs(got[1, 1, :2] - got[1, 0, :2]).max() > 1e-3
    with pytest.raises(ValueError, match="cannot apply"):
        L.ConvLSTM2D(2, 3)(L.Masking(0.0)(inp))  # 'valid': 3x3 outputs, 5x5 mask


def test_sequential_starting_with_dense_features_fits_a_dict_of_columns():
    fc = tf.feature_column
    layer = keras.layers.DenseFeatures([fc.numeric_column("age"),
                                        fc.numeric_column("income", shape=(2,))])
    m = keras.Sequential([layer, keras.layers.Dense(1, kernel_initializer="ones")])
    m.compile(keras.optimizers.SGD(0.01), "mse")
    r = np.random.RandomState(0)
    d = {"age": r.rand(12).astype("f"), "income": r.rand(12, 2).astype("f")}
    y = (d["age"] + d["income"].sum(1))[:, None]
    # built by the first call on the dict: one Input per feature, named after it
    np.testing.assert_allclose(m.predict(d), y, rtol=1e-5)  # kernel of ones, zero bias
    assert sorted(t.op.name for t in m.inputs) == ["age", "income"]
    h = m.fit(d, 2 * y, epochs=2, batch_size=4, verbose=0)
    assert h.history["loss"][1] < h.history["loss"][0]
    assert np.isfinite(m.evaluate(d, 2 * y, verbose=0))


def test_fit_on_a_dataset_that_runs_out_warns_and_stops_as_tf(caplog):
    r = np.random.RandomState(0)
    x, y = r.rand(20, 3).astype("f"), r.rand(20, 1).astype("f")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(5)  # 4 batches, no repeat
    m = keras.Sequential([keras.layers.Dense(1, input_shape=(3,))])
    m.compile("sgd", "mse")
    import logging

    with caplog.at_level(logging.WARNING):
        h = m.fit(ds, epochs=3, steps_per_epoch=4, verbose=0)
    # as TF 1.15 (and tf_keras's v1 loop): a warning, then training stops after the epoch
    # that found the dataset empty
    assert len(h.history["loss"]) == 2
    assert "Your dataset ran out of data; interrupting training" in caplog.text
    assert "(in this case, 12 batches)" in caplog.text


def test_convert_all_kernels_in_model_flips_spatial_axes():
    m = keras.Sequential([keras.layers.Conv2D(2, (2, 3), input_shape=(5, 5, 1)),
                          keras.layers.Flatten(), keras.layers.Dense(1)])
    before = K.get_value(m.layers[0].kernel)
    dense = K.get_value(m.layers[2].kernel)
    keras.utils.convert_all_kernels_in_model(m)
    np.testing.assert_array_equal(K.get_value(m.layers[0].kernel), before[::-1, ::-1])
    np.testing.assert_array_equal(K.get_value(m.layers[2].kernel), dense)  # not a conv


def test_initializers_normal_and_uniform_aliases():
    # TF 1.15's v1 names keras.initializers.normal / uniform
    assert keras.initializers.normal is keras.initializers.RandomNormal
    assert keras.initializers.uniform is keras.initializers.RandomUniform


def test_experimental_cosine_schedules_match_tf_values():
    E = keras.experimental
    steps = tf.placeholder(tf.int64, [])
    scheds = [E.CosineDecay(0.1, 100, alpha=0.1),
              E.CosineDecayRestarts(0.1, 30, t_mul=2.0, m_mul=0.5, alpha=0.05),
              E.CosineDecayRestarts(0.1, 30, t_mul=1.0),
              E.LinearCosineDecay(0.1, 100, num_periods=2.0, alpha=0.1, beta=0.01)]
    outs = [s(steps) for s in scheds]
    sess = tf.Session()
    got = [sess.run(outs, {steps: k}) for k in (0, 7, 29, 30, 45, 90, 100, 150)]
    # observed from TF 2.21 (tf_keras's schedules; tf.train.linear_cosine_decay for the last)
    want = [[0.1, 0.1, 0.1, 0.111], [0.098916, 0.087799, 0.087157, 0.085327],
            [0.082581, 0.00526, 0.000274, 0.00601], [0.08145, 0.0525, 0.1, 0.008639],
            [0.06204, 0.045544, 0.05, 0.059793], [0.012202, 0.02875, 0.1, 0.01409],
            [0.01, 0.028345, 0.075, 0.011], [0.01, 0.016875, 0.1, 0.011]]
    np.testing.assert_allclose(got, want, atol=2e-6)
    # CosineDecay by NumPy
    np.testing.assert_allclose(got[1][0], 0.1 * (0.9 * 0.5 * (1 + np.cos(np.pi * 0.07)) + 0.1),
                               rtol=1e-5)
    noisy = E.NoisyLinearCosineDecay(0.1, 100)(tf.constant(10))
    assert 0 < abs(sess.run(noisy)) < 1
    assert scheds[1].get_config()["t_mul"] == 2.0


def test_peephole_lstm_cell_matches_tf_keras():
    r = np.random.RandomState(0)
    x = r.rand(2, 5, 3).astype("f")
    layer = keras.layers.RNN(keras.experimental.PeepholeLSTMCell(4), return_sequences=True)
    inp = keras.Input((5, 3))
    out = layer(inp)
    assert [w.name for w in layer.weights][3:] == [
        "rnn/input_gate_peephole_weights:0", "rnn/forget_gate_peephole_weights:0",
        "rnn/output_gate_peephole_weights:0"]
    layer.set_weights([r.rand(*w.shape).astype("f") - 0.5 for w in layer.get_weights()])
    got = K.function([inp], [out])([x])[0][:, -1]
    # observed from tf_keras 2.x's PeepholeLSTMCell with the same weights
    np.testing.assert_allclose(got, [[-0.06336, 0.09577, -0.05913, -0.03884],
                                     [0.01108, 0.14007, -0.08592, 0.00014]], atol=2e-5)


def test_sequence_features_matches_tf_keras():
    sfc = tf.feature_column
    cat = sfc.sequence_categorical_column_with_identity("tok", 5)
    table = np.arange(10).reshape(5, 2) / 10.0
    emb = sfc.embedding_column(cat, 2, initializer=tf.constant_initializer(table))
    layer = keras.experimental.SequenceFeatures(
        [emb, sfc.indicator_column(cat), sfc.sequence_numeric_column("val")])
    tok = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], np.array([1, 3, 4], "int64"), [2, 2])
    val = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], np.array([0.5, 1.5, 2.5], "f"), [2, 2])
    seq, length = layer({"tok": tok, "val": val})
    got, lengths = _run(seq, length)
    # by column name: tok_embedding (2), tok_indicator (5), val (1); padded steps are zeros
    # (the same values tf_keras's SequenceFeatures gives)
    want = np.zeros((2, 2, 8))
    for (b, t), i, v in zip([(0, 0), (0, 1), (1, 0)], [1, 3, 4], [0.5, 1.5, 2.5]):
        want[b, t] = np.concatenate([table[i], np.eye(5)[i], [v]])
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert lengths.tolist() == [2, 1]
    assert [w.name for w in layer.weights] == [
        "sequence_features/tok_embedding/embedding_weights:0"]
    with pytest.raises(ValueError, match="must be a SequenceDenseColumn"):
        keras.experimental.SequenceFeatures([sfc.numeric_column("x")])


def test_fit_generator_with_fractional_steps_per_epoch():
    # ``steps_per_epoch=len(x_train) / 100`` in Keras programs: TF's loop runs ceil(steps)
    counted = []

    def batches():
        r = np.random.RandomState(0)
        while True:
            counted.append(1)
            x = r.rand(4, 3).astype("f")
            yield x, x.sum(1, keepdims=True)

    m = keras.Sequential([keras.layers.Dense(1, input_shape=(3,))])
    m.compile("sgd", "mse")
    m.fit_generator(batches(), steps_per_epoch=2.3, epochs=1, verbose=0, workers=0)
    assert len(counted) == 3


# -- experimental.LinearModel / WideDeepModel -------------------------------------------------

def test_linear_model_matches_tf_keras_training():
    E = keras.experimental
    r = np.random.RandomState(0)
    x = r.rand(32, 3).astype("f")
    y = (x @ np.array([[1.0], [2.0], [-1.0]]) + 0.5).astype("f")
    lm = E.LinearModel(kernel_initializer="zeros")
    lm.compile("sgd", "mse")
    h = lm.fit(x, y, epochs=3, batch_size=8, verbose=0, shuffle=False)
    # the losses tf_keras's LinearModel gives for the same program
    np.testing.assert_allclose(h.history["loss"], [2.14206, 1.72065, 1.40078], atol=2e-5)
    two = E.LinearModel(units=2, use_bias=False, kernel_initializer="ones")
    out = two([tf.constant(x[:2]), tf.constant(x[:2, :2])])
    K.get_session().run(tf.global_variables_initializer())
    np.testing.assert_allclose(K.eval(out), np.repeat(
        (x[:2].sum(1) + x[:2, :2].sum(1))[:, None], 2, 1), rtol=1e-6)


def test_wide_deep_model_averages_and_trains_each_part_with_its_optimizer():
    E = keras.experimental
    r = np.random.RandomState(0)
    x = r.rand(16, 3).astype("f")
    y = (x.sum(1, keepdims=True) + 0.5).astype("f")

    def build(opts):
        lin = E.LinearModel(kernel_initializer="ones")
        dnn = keras.Sequential([keras.layers.Dense(2, activation="relu",
                                                   kernel_initializer="ones"),
                                keras.layers.Dense(1, kernel_initializer="ones")])
        wd = E.WideDeepModel(lin, dnn)
        wd.compile(optimizer=opts, loss="mse")
        return wd, lin, dnn

    wd, lin, dnn = build([keras.optimizers.SGD(0.0), keras.optimizers.SGD(0.01)])
    # TF 1.15's WideDeepModel: 0.5 * (linear + dnn); kernels of ones, zero biases
    np.testing.assert_allclose(wd.predict([x, x]), 0.5 * (x.sum(1) + 2 * x.sum(1))[:, None],
                               rtol=1e-5)
    lin_before, dnn_before = lin.get_weights(), dnn.get_weights()
    wd.fit([x, x], y, epochs=1, batch_size=8, verbose=0)
    for a, b in zip(lin.get_weights(), lin_before):
        np.testing.assert_array_equal(a, b)  # lr 0 for the linear part
    assert any(np.abs(a - b).max() > 0 for a, b in zip(dnn.get_weights(), dnn_before))
    wd2, lin2, dnn2 = build([keras.optimizers.SGD(0.01), keras.optimizers.SGD(0.0)])
    # (as TF 1.15, measured: the parts have no weights before a first call builds them)
    with pytest.raises(ValueError, match="have not yet been created"):
        dnn2.get_weights()
    wd2.predict([x, x])
    dnn_before, lin_before = dnn2.get_weights(), lin2.get_weights()
    wd2.fit([x, x], y, epochs=1, batch_size=8, verbose=0)
    for a, b in zip(dnn2.get_weights(), dnn_before):
        np.testing.assert_array_equal(a, b)
    assert all(np.abs(a - b).max() > 0 for a, b in zip(lin2.get_weights(), lin_before))
    with pytest.raises(ValueError, match="two"):
        build(["sgd", "sgd", "sgd"])


def test_terminate_keras_multiprocessing_pools_stops_enqueuer_processes():
    enq = keras.utils.OrderedEnqueuer(_Batches(3, with_pid=False), use_multiprocessing=True)
    enq.start(workers=2, max_queue_size=2)
    next(enq.get())
    assert keras.experimental.terminate_keras_multiprocessing_pools() == []
    enq.stop()
    from tideflow.keras import data_utils

    assert len(data_utils._DATA_POOLS) == 0


def test_precision_recall_top_k_and_class_id_match_tf_keras():
    r = np.random.RandomState(0)
    yt = (r.rand(6, 4) > 0.6).astype("f")
    yp = r.rand(6, 4).astype("f")
    ms = [M.Precision(top_k=2), M.Recall(top_k=1), M.Precision(class_id=2),
          M.Recall(class_id=1, thresholds=[0.3, 0.7]), M.Precision(top_k=2, class_id=3),
          M.Recall(thresholds=0.4)]
    outs = []
    for m in ms:
        w = r.rand(6).astype("f")
        if m.class_id is None:
            outs.append(m(yt, yp, sample_weight=w))
            continue
        # TF 1.15 expands [n] weights to [n, 1] before taking the class's column, then
        # cannot broadcast them to it
        with pytest.raises(ValueError, match="values.rank=1. weights.rank=2"):
            m(yt, yp, sample_weight=w)
    # TF 1.15 gave these for the same data
    want = [0.51468855, 0.19675727, 0.6696865]
    for got, w in zip(_run(*outs), want):
        np.testing.assert_allclose(got, w, atol=2e-5)
    # class_id by NumPy: precision of column 2 at 0.5 (unweighted)
    m = M.Precision(class_id=2)
    (got,) = _run(m(yt, yp))
    pred = yp[:, 2] > 0.5
    np.testing.assert_allclose(got, (pred & (yt[:, 2] > 0)).sum() / pred.sum(), rtol=1e-6)
    assert ms[0].get_config()["top_k"] == 2


def test_auc_pr_curve_and_summation_methods_match_tf_keras():
    r = np.random.RandomState(0)
    yt = (r.rand(40) > 0.6).astype("f")
    yp = np.clip(yt * 0.3 + r.rand(40) * 0.7, 0, 1).astype("f")
    ms = [M.AUC(), M.AUC(curve="PR"),
          M.AUC(curve="PR", summation_method="minoring", num_thresholds=20),
          M.AUC(summation_method="majoring", num_thresholds=11),
          M.AUC(thresholds=[0.2, 0.5, 0.8]), M.AUC(curve="pr", thresholds=[0.25, 0.5, 0.75])]
    outs = _run(*[m(yt, yp, sample_weight=r.rand(40).astype("f")) for m in ms])
    # tf_keras 2.x's AUC on the same data (same rules as TF 1.15's)
    np.testing.assert_allclose(outs, [0.66237, 0.82921, 0.52762, 0.70309, 0.65185, 0.6779],
                               atol=2e-5)
    assert ms[4].num_thresholds == 5 and ms[4].get_config()["thresholds"] == [0.2, 0.5, 0.8]
    assert list(inspect.signature(M.AUC).parameters) == [
        "num_thresholds", "curve", "summation_method", "name", "dtype", "thresholds"]
    with pytest.raises(ValueError, match="Invalid AUC curve"):
        M.AUC(curve="XY")


def test_crossentropy_metrics_take_from_logits_positionally():
    assert list(inspect.signature(M.BinaryCrossentropy).parameters) == [
        "name", "dtype", "from_logits", "label_smoothing"]
    assert list(inspect.signature(M.SparseCategoricalCrossentropy).parameters) == [
        "name", "dtype", "from_logits", "axis"]
    logits = np.array([[2.0, -1.0]], "f")
    m = M.BinaryCrossentropy("bce", None, True)  # from_logits, positionally as TF 1.15
    (got,) = _run(m(np.array([[1.0, 0.0]], "f"), logits))
    p = 1 / (1 + np.exp(-logits))
    np.testing.assert_allclose(got, -np.mean([np.log(p[0, 0]), np.log(1 - p[0, 1])]),
                               rtol=1e-5)


def test_tensorboard_takes_tf115_positional_arguments(tmp_path):
    cb = keras.callbacks.TensorBoard(str(tmp_path), 0, 32, True, False, False, 0, None, None,
                                     None, "batch")
    assert cb.update_freq == 1 and cb.embeddings_freq == 0 and cb.profile_batch == 2


def _halve(x):
    return x / 2.0


def test_dense_features_config_round_trips_its_columns_through_json():
    fc = tf.feature_column
    cols = [fc.numeric_column("age", normalizer_fn=_halve),
            fc.bucketized_column(fc.numeric_column("inc"), [1.0, 2.0]),
            fc.embedding_column(fc.categorical_column_with_vocabulary_list("c", ["a", "b"]), 2),
            fc.indicator_column(fc.crossed_column(
                ["c", fc.categorical_column_with_identity("i", 3)], 5))]
    m = keras.Sequential([keras.layers.DenseFeatures(cols), keras.layers.Dense(1)])
    import json

    js = m.to_json()
    names = [c["class_name"] for c in
             json.loads(js)["config"]["layers"][0]["config"]["feature_columns"]]
    # TF's class names, the columns in name order
    assert names == ["NumericColumn", "IndicatorColumn", "EmbeddingColumn", "BucketizedColumn"]
    m2 = keras.models.model_from_json(js, custom_objects={"_halve": _halve})
    before, after = m.layers[0]._feature_columns, m2.layers[0]._feature_columns
    for a, b in zip(before, after):
        if type(a).__name__ == "EmbeddingColumn":  # a new initializer of the same config
            assert a._replace(initializer=None) == b._replace(initializer=None)
            assert b.initializer.get_config() == a.initializer.get_config()
        else:
            assert a == b
    with pytest.raises(ValueError, match="normalizer_fn"):
        keras.models.model_from_json(js)


# -- datasets.cifar100 / reuters (from Keras's cache; files written here) ---------------------

def test_cifar100_and_reuters_load_from_the_cache(tmp_path, monkeypatch):
    import pickle

    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    cache = tmp_path / "datasets"
    (cache / "cifar-100-python").mkdir(parents=True)
    r = np.random.RandomState(0)
    raw = {}
    for name, n in (("train", 6), ("test", 4)):
        d = {b"data": r.randint(0, 255, (n, 3072)).astype("uint8"),
             b"fine_labels": list(r.randint(0, 100, n)),
             b"coarse_labels": list(r.randint(0, 20, n))}
        raw[name] = d
        with open(cache / "cifar-100-python" / name, "wb") as f:
            pickle.dump(d, f)
    (xa, ya), (xb, yb) = keras.datasets.cifar100.load_data("coarse")
    np.testing.assert_array_equal(
        xa, raw["train"][b"data"].reshape(6, 3, 32, 32).transpose(0, 2, 3, 1))
    assert ya.shape == (6, 1) and ya.ravel().tolist() == raw["train"][b"coarse_labels"]
    assert xb.shape == (4, 32, 32, 3) and yb.ravel().tolist() == raw["test"][b"coarse_labels"]
    with pytest.raises(ValueError, match="label_mode"):
        keras.datasets.cifar100.load_data("medium")

    seqs = [list(r.randint(1, 50, r.randint(3, 12))) for _ in range(30)]
    xs = np.empty(30, dtype=object)
    xs[:] = seqs
    ys = r.randint(0, 46, 30)
    np.savez(cache / "reuters.npz", x=xs, y=ys)
    (x1, y1), (x2, y2) = keras.datasets.reuters.load_data(num_words=30, maxlen=10,
                                                          test_split=0.25)
    # Keras's rules by NumPy: shuffled by seed 113, start char 1, ids + 3, sequences shorter
    # than maxlen, ids from num_words on become the oov char 2, then split
    order = np.random.RandomState(113).permutation(30)
    want = [[1] + [w + 3 for w in seqs[i]] for i in order]
    keep = [k for k, s in enumerate(want) if len(s) < 10]
    want = [[w if w < 30 else 2 for w in want[k]] for k in keep]
    labels = ys[order][keep]
    split = int(len(want) * 0.75)
    assert [list(map(int, s)) for s in x1] == want[:split]
    assert [list(map(int, s)) for s in x2] == want[split:]
    np.testing.assert_array_equal(y1, labels[:split])
    np.testing.assert_array_equal(y2, labels[split:])
