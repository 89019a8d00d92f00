"""tf.keras models from a differential fuzzer (random Sequential and functional models run in
TF 1.15 and tideflow, compared on weight names, initial values, summary(), predict(), fit
histories, evaluate(), get_config/from_config, to_json and save_weights): each case below is a
shrunk difference, its expected values measured by running the same program under TF 1.15.
The last tests run a small seeded fuzz checked without TF: predict() equals a NumPy forward
pass of the model's own get_weights(), and summary()'s counts equal the weights' sizes."""

import json

import numpy as np
import pytest

import tideflow as tf

K = tf.keras
L = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()
    K.backend.clear_session()
    yield
    K.backend.clear_session()
    tf.reset_default_graph()


def test_sequential_from_input_layer_config_puts_input_shape_on_first_layer():
    # TF 1.15 (measured): Sequential.get_config leaves an explicit InputLayer out and writes
    # its batch_input_shape, last, into the first layer's config; from_config then rebuilds
    # the model on an Input named after that layer
    model = K.Sequential()
    model.add(L.InputLayer(input_shape=(6,)))
    model.add(L.Reshape((2, 3)))
    model.add(L.Dense(4, activation="relu"))
    cfg = model.get_config()
    assert [la["class_name"] for la in cfg["layers"]] == ["Reshape", "Dense"]
    assert list(cfg["layers"][0]["config"]) == ["name", "trainable", "dtype", "target_shape",
                                                "batch_input_shape"]
    assert json.loads(model.to_json())["config"]["layers"][0]["config"][
        "batch_input_shape"] == [None, 6]
    m2 = K.Sequential.from_config(cfg)
    assert [la.name for la in m2.layers] == ["reshape", "dense"]
    assert m2.inputs[0].name == "reshape_input:0"
    assert list(m2.get_config()["layers"][0]["config"]) == [
        "name", "trainable", "batch_input_shape", "dtype", "target_shape"]


# ---------------------------------------------------------------------------------------------
# A small seeded fuzz checked without TF: random Sequential models of the common layers, whose
# predict() must equal a float64 NumPy forward pass of their own get_weights(), and whose
# summary() must count exactly the weights' sizes.

_ACTS = {
    "linear": lambda v: v,
    "relu": lambda v: np.maximum(v, 0),
    "tanh": np.tanh,
    "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
    "softplus": lambda v: np.log1p(np.exp(v)),
    "softsign": lambda v: v / (1 + np.abs(v)),
    "elu": lambda v: np.where(v > 0, v, np.expm1(np.minimum(v, 0))),
    "hard_sigmoid": lambda v: np.clip(0.2 * v + 0.5, 0, 1),
    "softmax": lambda v: np.exp(v - v.max(-1, keepdims=True)) / np.exp(
        v - v.max(-1, keepdims=True)).sum(-1, keepdims=True),
}


def _conv2d(x, k, stride, pad):
    kh, kw = k.shape[:2]
    if pad == "same":
        oh, ow = -(-x.shape[1] // stride), -(-x.shape[2] // stride)
        ph = max((oh - 1) * stride + kh - x.shape[1], 0)
        pw = max((ow - 1) * stride + kw - x.shape[2], 0)
        x = np.pad(x, [(0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)])
    oh, ow = (x.shape[1] - kh) // stride + 1, (x.shape[2] - kw) // stride + 1
    out = np.zeros((x.shape[0], oh, ow, k.shape[3]))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, i:i + stride * (oh - 1) + 1:stride, j:j + stride * (ow - 1) + 1:stride]
            out += patch @ k[i, j]
    return out


def _pool2d(x, size, reduce):
    oh, ow = x.shape[1] // size, x.shape[2] // size
    x = x[:, :oh * size, :ow * size].reshape(x.shape[0], oh, size, ow, size, x.shape[3])
    return reduce(x, axis=(2, 4))


def _random_model(r):
    """(layers, numpy forward functions taking (x, weights)), input shape and dtype."""
    kind = r.choice(["vec", "img", "tok"])
    shape = {"vec": (int(r.randint(3, 8)),), "img": (int(r.randint(5, 8)),) * 2 + (2,),
             "tok": (int(r.randint(3, 6)),)}[kind]
    layers, fwd, cur = [], [], list(shape)
    if kind == "tok":
        layers.append(L.Embedding(10, 3, input_length=shape[0]))
        fwd.append(lambda x, w: w[0][x.astype(int)])
        cur = [shape[0], 3]
    for _ in range(int(r.randint(1, 5))):
        c = r.choice(["Dense", "Act", "Dropout", "BN", "LN", "adv"] + (
            ["Conv", "Pool", "GPool"] if len(cur) == 3 else []) + (
            ["Flatten"] if len(cur) > 1 else ["Repeat"]))
        if c == "Dense":
            u, act, bias = int(r.randint(2, 6)), str(r.choice(list(_ACTS))), bool(r.rand() < .7)
            layers.append(L.Dense(u, activation=act, use_bias=bias))
            fwd.append(lambda x, w, a=act, b=bias: _ACTS[a](x @ w[0] + (w[1] if b else 0)))
            cur[-1] = u
        elif c == "Act":
            act = str(r.choice(list(_ACTS)))
            layers.append(L.Activation(act))
            fwd.append(lambda x, w, a=act: _ACTS[a](x))
        elif c == "Dropout":
            layers.append(L.Dropout(0.5))
            fwd.append(lambda x, w: x)
        elif c == "BN":
            layers.append(L.BatchNormalization(center=bool(r.rand() < .7)))
            if layers[-1].center:
                fwd.append(lambda x, w: (x - w[2]) / np.sqrt(w[3] + 1e-3) * w[0] + w[1])
            else:
                fwd.append(lambda x, w: (x - w[1]) / np.sqrt(w[2] + 1e-3) * w[0])
        elif c == "LN":
            layers.append(L.LayerNormalization())
            fwd.append(lambda x, w: (x - x.mean(-1, keepdims=True)) / np.sqrt(
                x.var(-1, keepdims=True) + 1e-3) * w[0] + w[1])
        elif c == "adv":
            which = str(r.choice(["LeakyReLU", "ELU", "ReLU", "PReLU"]))
            layers.append(getattr(L, which)())
            fwd.append({"LeakyReLU": lambda x, w: np.where(x > 0, x, 0.3 * x),
                        "ELU": lambda x, w: _ACTS["elu"](x),
                        "ReLU": lambda x, w: np.maximum(x, 0),
                        "PReLU": lambda x, w: np.maximum(x, 0) + w[0] * np.minimum(x, 0)}[which])
        elif c == "Conv":
            f, k, s = int(r.randint(1, 4)), int(r.randint(1, 4)), int(r.choice([1, 2]))
            pad = str(r.choice(["valid", "same"])) if min(cur[:2]) >= k else "same"
            layers.append(L.Conv2D(f, k, strides=s, padding=pad))
            fwd.append(lambda x, w, s=s, p=pad: _conv2d(x, w[0], s, p) + w[1])
            cur = ([-(-d // s) for d in cur[:2]] if pad == "same" else
                   [(d - k) // s + 1 for d in cur[:2]]) + [f]
        elif c == "Pool":
            which = str(r.choice(["Max", "Average"]))
            if min(cur[:2]) < 2:
                continue
            layers.append(getattr(L, which + "Pooling2D")(2))
            fwd.append(lambda x, w, m=which: _pool2d(x, 2, np.max if m == "Max" else np.mean))
            cur = [d // 2 for d in cur[:2]] + cur[2:]
        elif c == "GPool":
            which = str(r.choice(["Max", "Average"]))
            layers.append(getattr(L, "Global" + which + "Pooling2D")())
            fwd.append(lambda x, w, m=which: (np.max if m == "Max" else np.mean)(x, (1, 2)))
            cur = cur[2:]
        elif c == "Flatten":
            layers.append(L.Flatten())
            fwd.append(lambda x, w: x.reshape(len(x), -1))
            cur = [int(np.prod(cur))]
        elif c == "Repeat":
            layers.append(L.RepeatVector(2))
            fwd.append(lambda x, w: np.repeat(x[:, None], 2, 1))
            cur = [2] + cur
    if kind != "tok":
        layers.insert(0, L.InputLayer(input_shape=shape))
        fwd.insert(0, None)
    return layers, fwd, shape, "int" if kind == "tok" else "float"


@pytest.mark.parametrize("seed", range(40))
def test_seeded_fuzz_predict_equals_numpy_forward_pass(seed):
    r = np.random.RandomState(seed)
    tf.set_random_seed(seed)
    layers, fwd, shape, dtype = _random_model(r)
    model = K.Sequential(layers)
    if dtype == "int":
        x = r.randint(0, 10, (6,) + shape).astype(np.int32)
    else:
        x = r.randn(6, *shape).astype(np.float32)
    # a moved BatchNormalization statistic, so inference's normalization is exercised
    for la in model.layers:
        if isinstance(la, L.BatchNormalization):
            ws = la.get_weights()
            la.set_weights(ws[:-2] + [r.randn(*ws[-2].shape).astype(np.float32),
                                      r.rand(*ws[-1].shape).astype(np.float32) + 0.5])
    got = model.predict(x, batch_size=4)
    want = x.astype(np.float64)
    for la, f in zip(layers, fwd):
        if f is not None:
            want = f(want, [w.astype(np.float64) for w in la.get_weights()])
    assert got.shape == want.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-5)
    lines = []
    model.summary(print_fn=lines.append)
    total = sum(int(np.prod(w.shape)) for w in model.get_weights())
    trainable = sum(int(np.prod(w.shape.as_list())) for w in model.trainable_weights)
    assert f"Total params: {total:,}" in lines
    assert f"Trainable params: {trainable:,}" in lines
    assert f"Non-trainable params: {total - trainable:,}" in lines
    assert model.count_params() == total


def test_nadam_moves_only_the_embedding_rows_of_the_step():
    # TF 1.15 (measured): Nadam's sparse rule decays every row's moments but moves only the
    # rows the step looked up (duplicates summed); a row seen in the first step stays put in
    # the second (tideflow ran the dense rule on the densified gradient and moved it)
    tf.set_random_seed(1)
    m = K.Sequential([L.Embedding(6, 2, input_length=2), L.Flatten(), L.Dense(2)])
    m.compile("nadam", "mse")
    y = np.ones((1, 2), np.float32)
    e0 = m.get_weights()[0]
    m.train_on_batch(np.array([[1, 2]], np.int32), y)
    e1 = m.get_weights()[0]
    m.train_on_batch(np.array([[3, 3]], np.int32), y)
    e2 = m.get_weights()[0]
    np.testing.assert_array_equal(e0[[0, 3, 4, 5]], e1[[0, 3, 4, 5]])
    # (values from the same program after the fixture's reset_default_graph + clear_session)
    np.testing.assert_allclose(e1[1:3] - e0[1:3], [[0.0010564513504505157, -0.0010564513504505157],
                                                   [0.0010564513504505157, 0.0010564513504505157]],
                               rtol=1e-5)
    np.testing.assert_array_equal(e2[[0, 1, 2, 4, 5]], e1[[0, 1, 2, 4, 5]])
    np.testing.assert_allclose(e2[3] - e1[3], [0.001044977456331253, -0.001044977456331253],
                               rtol=1e-5)
    # the embedding's first moment, every row decayed: its sum as TF's
    np.testing.assert_allclose(float(m.optimizer.get_weights()[2].sum(dtype=np.float64)),
                               0.028285913169384003, rtol=1e-6)


def test_fit_verbose_2_prints_float64_averages(capsys):
    # TF 1.15 (measured, NumPy 1.x): the progress bar's running sums are float32 loss values
    # times the step count, which NumPy 1.x makes float64; the printed epoch loss is the
    # float64 average (4663.7359), not its float32 rounding (4663.7358)
    tf.set_random_seed(3)
    np.random.seed(0)
    r = np.random.RandomState(0)
    x = (r.randn(16, 5) * 30).astype(np.float32)
    y = r.randn(16, 2).astype(np.float32)
    m = K.Sequential([L.Dense(2, input_shape=(5,))])
    m.compile(tf.train.GradientDescentOptimizer(0.001), "mse", metrics=["mae"])
    capsys.readouterr()
    h = m.fit(x, y, epochs=2, batch_size=3, verbose=2)
    lines = capsys.readouterr().out.splitlines()
    assert h.history["loss"] == [871.8764886856079, 4663.7358639240265]
    assert [ln.split(" - ", 2)[2] for ln in lines if ln.startswith("16/16")] == [
        "loss: 871.8765 - mean_absolute_error: 22.8191",
        "loss: 4663.7359 - mean_absolute_error: 52.7895"]


def test_sparse_categorical_accuracy_casts_the_prediction_to_the_labels_dtype():
    # TF 1.15 (measured): argmax takes the labels' dtype, float labels are not truncated
    # (0.4 is not class 0), so the regression head's sparse accuracy is 0.2, not 0.6
    tf.set_random_seed(1)
    inp = L.Input((3,))
    m = K.Model(inp, [L.Dense(3, activation="softmax")(inp), L.Dense(1, name="aux")(inp)])
    m.compile("sgd", ["sparse_categorical_crossentropy", "mse"],
              metrics=["sparse_categorical_accuracy"])
    x = np.arange(15, dtype=np.float32).reshape(5, 3) / 10
    y = [np.array([[0], [1], [2], [1], [0]], np.float32),
         np.array([[0.4], [-0.3], [0.0], [2.0], [1.0]], np.float32)]
    assert m.metrics_names == ["loss", "dense_loss", "aux_loss",
                               "dense_sparse_categorical_accuracy",
                               "aux_sparse_categorical_accuracy"]
    got = m.evaluate(x, y, verbose=0)
    np.testing.assert_allclose(got, [2.0295796394348145, 1.4683516, 0.561228, 0.4, 0.2],
                               rtol=1e-6)
    with tf.Session() as s:
        acc = s.run(K.metrics.sparse_categorical_accuracy(
            tf.constant([[0.4], [0.0], [1.0], [1.5]]),
            tf.constant([[0.3, 0.7], [0.6, 0.4], [0.1, 0.9], [0.2, 0.8]])))
    assert acc.tolist() == [0.0, 1.0, 1.0, 0.0]


def test_nested_sequential_called_on_a_tensor_records_no_build_input_shape():
    # TF 1.15 (measured): a Sequential of no input shape, called inside another model, has
    # no build_input_shape in its config (only build() and fit/predict of arrays record
    # one); from_config then makes its weights at its call, in its own name scope
    inner = K.Sequential([L.Dense(3, activation="relu"), L.Dense(2)])
    outer = K.Sequential([L.InputLayer(input_shape=(4,)), L.Dense(5), inner, L.Dense(1)])
    assert [w.name for w in outer.weights] == [
        "dense_2/kernel:0", "dense_2/bias:0", "sequential/dense/kernel:0",
        "sequential/dense/bias:0", "sequential/dense_1/kernel:0", "sequential/dense_1/bias:0",
        "dense_3/kernel:0", "dense_3/bias:0"]
    assert "build_input_shape" not in inner.get_config()
    m2 = K.Sequential.from_config(outer.get_config())
    assert [w.name for w in m2.weights] == [
        "dense_2_1/kernel:0", "dense_2_1/bias:0", "sequential_1/dense/kernel:0",
        "sequential_1/dense/bias:0", "sequential_1/dense_1/kernel:0",
        "sequential_1/dense_1/bias:0", "dense_3_1/kernel:0", "dense_3_1/bias:0"]
    inp = L.Input((4,))
    inner2 = K.Sequential([L.Dense(3), L.Dense(2)])
    f = K.Model(inp, L.Dense(1)(inner2(L.Dense(5)(inp))))
    f2 = K.Model.from_config(f.get_config())
    assert [w.name for w in f2.weights] == [
        "dense_7_1/kernel:0", "dense_7_1/bias:0", "sequential_2_1/dense_4/kernel:0",
        "sequential_2_1/dense_4/bias:0", "sequential_2_1/dense_5/kernel:0",
        "sequential_2_1/dense_5/bias:0", "dense_6_1/kernel:0", "dense_6_1/bias:0"]


def test_output_losses_of_evaluate_are_float32_means_over_batches():
    # TF 1.15 (measured): with several outputs, each output's loss is a Mean metric of the
    # batches' losses, summed and divided in float32 (tideflow's float64 mean was an ulp off)
    want = {5: [1.4496995210647583, 2.268404960632324],
            6: [0.9824145436286926, 3.1255176067352295],
            7: [0.995490312576294, 2.1060497760772705]}
    for seed, expected in want.items():
        tf.reset_default_graph()
        K.backend.clear_session()
        tf.set_random_seed(seed)
        inp = L.Input((3,))
        m = K.Model(inp, [L.Dense(3, activation="softmax")(inp), L.Dense(1, name="aux")(inp)])
        m.compile("sgd", ["sparse_categorical_crossentropy", "mse"])
        r = np.random.RandomState(seed)
        x = r.randn(7, 3).astype(np.float32)
        y = [r.randint(0, 3, (7, 1)).astype(np.float32), r.randn(7, 1).astype(np.float32)]
        got = m.evaluate(x, y, verbose=0, batch_size=2)[1:]
        assert [type(v) for v in got] == [np.float32, np.float32]
        assert [float(v) for v in got] == expected


def test_unbuilt_sequential_has_no_weights_to_list():
    # TF 1.15 (measured): a Sequential of no input shape (and one rebuilt by from_config whose
    # first layer is a Sequential) raises on weights/get_weights until a call builds it
    outer = K.Sequential([L.InputLayer(input_shape=(4,)), K.Sequential([L.Dense(3), L.Dense(2)]),
                          L.Dense(1)])
    m2 = K.Sequential.from_config(outer.get_config())
    assert not m2.built and not m2.inputs
    for attr in ("weights", "trainable_weights", "non_trainable_weights", "get_weights"):
        with pytest.raises(ValueError, match="Weights for model sequential_1 have not yet been "
                                             r"created. Weights are created when the Model is "
                                             r"first called on inputs or `build\(\)` is called "
                                             r"with an `input_shape`."):
            v = getattr(m2, attr)
            v() if callable(v) else None
    m2.predict(np.ones((2, 4), np.float32))
    assert [w.name for w in m2.weights] == [
        "sequential_1/sequential/dense/kernel:0", "sequential_1/sequential/dense/bias:0",
        "sequential_1/sequential/dense_1/kernel:0", "sequential_1/sequential/dense_1/bias:0",
        "sequential_1/dense_2/kernel:0", "sequential_1/dense_2/bias:0"]


def test_a_metric_named_twice_is_listed_once():
    # TF 1.15 (measured): compile keeps each output's metrics in an ordered dict by name, so
    # a repeated metric ('mse' twice, 'acc' and 'accuracy') is one entry where it first came
    x, y = np.ones((4, 3), np.float32), np.zeros((4, 2), np.float32)
    for mets, names in [(["acc", "mse", "mse"], ["loss", "acc", "mean_squared_error"]),
                        (["mae", "acc", "mae", "accuracy"],
                         ["loss", "mean_absolute_error", "acc"])]:
        m = K.Sequential([L.Dense(2, input_shape=(3,))])
        m.compile("sgd", "mse", metrics=mets)
        assert m.metrics_names == names
        assert len(m.evaluate(x, y, verbose=0)) == len(names)
        assert list(m.fit(x, y, verbose=0).history) == names
    inp = L.Input((3,))
    m = K.Model(inp, [L.Dense(2)(inp), L.Dense(1)(inp)])
    m.compile("sgd", "mse", metrics=["mse", "mse"])
    assert m.metrics_names == ["loss", "dense_2_loss", "dense_3_loss",
                               "dense_2_mean_squared_error", "dense_3_mean_squared_error"]


def test_unbuilt_model_input_and_output_errors_are_tf_layer_messages():
    # TF 1.15 (measured): a model never called raises its Layer's AttributeErrors
    m = K.Sequential([L.Dense(3), L.Dense(2)])
    never = "The layer has never been called and thus has no defined "
    for attr, msg in [("input", "Layer sequential is not connected, no input to return."),
                      ("output", "Layer sequential has no inbound nodes."),
                      ("input_shape", never + "input shape."),
                      ("output_shape", never + "output shape.")]:
        with pytest.raises(AttributeError) as info:
            getattr(m, attr)
        assert str(info.value) == msg
