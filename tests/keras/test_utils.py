"""tf.keras.utils, preprocessing, activations, initializers, regularizers and datasets."""

import numpy as np
import pytest

import tideflow as tf

K = tf.keras.backend


def test_to_categorical():
    got = tf.keras.utils.to_categorical([2, 0, 1], 4)
    np.testing.assert_array_equal(got, np.eye(4)[[2, 0, 1]])
    assert got.dtype == np.float32
    assert tf.keras.utils.to_categorical(np.array([[1], [0]])).shape == (2, 2)
    with pytest.raises(ValueError, match="class ids must be in"):
        tf.keras.utils.to_categorical([3], 2)


def test_pad_sequences():
    pad = tf.keras.preprocessing.sequence.pad_sequences
    seqs = [[1, 2, 3], [4], []]
    np.testing.assert_array_equal(pad(seqs), [[1, 2, 3], [0, 0, 4], [0, 0, 0]])
    np.testing.assert_array_equal(pad(seqs, maxlen=2, padding="post", truncating="post"),
                                  [[1, 2], [4, 0], [0, 0]])
    np.testing.assert_array_equal(pad(seqs, maxlen=2), [[2, 3], [0, 4], [0, 0]])


def test_tokenizer():
    tok = tf.keras.preprocessing.text.Tokenizer(num_words=3, oov_token="<unk>")
    tok.fit_on_texts(["the cat sat", "The dog, the END."])
    assert tok.word_index["<unk>"] == 1 and tok.word_index["the"] == 2
    assert tok.texts_to_sequences(["the bird"]) == [[2, 1]]
    assert tok.texts_to_matrix(["the the"], mode="count")[0].tolist() == [0, 0, 2]


def test_activations_initializers_regularizers_get():
    A = tf.keras.activations
    assert A.get("relu") is A.relu and A.get(None) is A.linear
    x = np.array([[-1.0, 0.5]], np.float32)
    np.testing.assert_allclose(K.eval(A.get("sigmoid")(K.constant(x))), 1 / (1 + np.exp(-x)),
                               rtol=1e-6)
    with pytest.raises(ValueError, match="Unknown activation function:nope"):
        A.get("nope")
    init = tf.keras.initializers.get("he_normal")
    vals = K.eval(init((400, 100)))
    assert abs(vals.std() - np.sqrt(2 / 400)) < 0.1 * np.sqrt(2 / 400)
    assert K.eval(tf.keras.initializers.RandomNormal(seed=1)((2000,))).std() == \
        pytest.approx(0.05, rel=0.1)
    np.testing.assert_array_equal(K.eval(tf.keras.initializers.Constant(3.0)((2,))), [3, 3])
    np.testing.assert_array_equal(K.eval(tf.keras.initializers.Identity()((2, 2))), np.eye(2))
    reg = tf.keras.regularizers.l1_l2(l1=0.1, l2=0.2)
    assert K.eval(reg(K.constant([1.0, -2.0]))) == pytest.approx(0.1 * 3 + 0.2 * 5)


def test_losses_match_numpy():
    y = np.array([[1.0, 2.0], [0.0, -1.0]], np.float32)
    p = np.array([[1.5, 2.0], [1.0, 1.0]], np.float32)
    L = tf.keras.losses
    np.testing.assert_allclose(K.eval(L.mse(y, p)), ((p - y) ** 2).mean(-1), rtol=1e-6)
    np.testing.assert_allclose(K.eval(L.mae(y, p)), np.abs(p - y).mean(-1), rtol=1e-6)
    assert K.eval(L.MeanSquaredError()(y, p)) == pytest.approx(((p - y) ** 2).mean())
    logits = np.array([[2.0, 1.0, 0.1]], np.float32)
    e = np.exp(logits) / np.exp(logits).sum()
    got = K.eval(L.SparseCategoricalCrossentropy(from_logits=True)(np.array([0]), logits))
    assert got == pytest.approx(-np.log(e[0, 0]), rel=1e-5)
    assert L.get("categorical_crossentropy") is L.categorical_crossentropy


def test_datasets_never_download(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    with pytest.raises(OSError, match="does not download"):
        tf.keras.datasets.mnist.load_data()
    (tmp_path / "datasets").mkdir()
    np.savez(tmp_path / "datasets" / "mnist.npz", x_train=np.zeros((2, 28, 28)),
             y_train=np.array([1, 2]), x_test=np.zeros((1, 28, 28)), y_test=np.array([3]))
    (x, _), (_, yt) = tf.keras.datasets.mnist.load_data()
    assert x.shape == (2, 28, 28) and yt.tolist() == [3]


def test_imdb_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    (tmp_path / "datasets").mkdir()
    seqs = np.empty(3, dtype=object)
    seqs[:] = [[1, 2], [5, 1, 1], [7]]
    np.savez(tmp_path / "datasets" / "imdb.npz", x_train=seqs, y_train=np.array([0, 1, 1]),
             x_test=seqs[:1], y_test=np.array([1]))
    (x, y), (xt, _) = tf.keras.datasets.imdb.load_data(num_words=6)
    assert len(x) == 3 and len(xt) == 1 and sorted(y.tolist()) == [0, 1, 1]
    assert xt[0] == [1, 4, 5]  # start char, then ids shifted by index_from=3
    assert all(max(s) < 6 for s in x)  # 8 and 10 became the oov char 2
    assert sorted(len(s) for s in x) == [2, 3, 4]


def test_scikit_learn_wrappers(digits):
    from sklearn.model_selection import cross_val_score

    x, y, xt, yt = digits
    labels = np.array(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                       "nine"])

    def build(hidden=32):
        model = tf.keras.Sequential([
            tf.keras.layers.Dense(hidden, activation="relu", input_shape=(64,)),
            tf.keras.layers.Dense(10, activation="softmax")])
        model.compile(tf.keras.optimizers.Adam(0.01), "categorical_crossentropy",
                      metrics=["accuracy"])
        return model

    clf = tf.keras.wrappers.scikit_learn.KerasClassifier(build, hidden=24, epochs=5,
                                                         batch_size=32, verbose=0)
    clf.fit(x, labels[y])
    assert sorted(clf.classes_) == sorted(labels)
    pred = clf.predict(xt)
    assert pred.dtype == labels.dtype and np.mean(pred == labels[yt]) > 0.9
    assert clf.score(xt, labels[yt]) == pytest.approx(np.mean(pred == labels[yt]), abs=1e-6)
    assert clf.predict_proba(xt[:3]).shape == (3, 10)
    assert clf.get_params()["hidden"] == 24

    def build_reg():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
        model.compile(tf.keras.optimizers.SGD(0.1), "mse")
        return model

    rng = np.random.RandomState(0)
    xr = rng.randn(60, 3).astype(np.float32)
    yr = xr @ np.array([1.0, -1.0, 2.0], np.float32)
    reg = tf.keras.wrappers.scikit_learn.KerasRegressor(build_reg, epochs=30, verbose=0)
    scores = cross_val_score(reg, xr, yr, cv=2)
    assert scores.shape == (2,) and all(s > -0.05 for s in scores)
    with pytest.raises(ValueError, match="not a legal parameter"):
        tf.keras.wrappers.scikit_learn.KerasRegressor(build_reg, nonsense=1)


def test_image_data_generator_flow_and_directory(tmp_path):
    from PIL import Image

    image = tf.keras.preprocessing.image
    x = np.random.RandomState(0).rand(10, 6, 6, 1).astype(np.float32)
    y = np.arange(10)
    gen = image.ImageDataGenerator(rescale=2.0, horizontal_flip=True)
    it = gen.flow(x, y, batch_size=4, shuffle=False, seed=1)
    assert len(it) == 3
    bx, by = it[0]
    assert bx.shape == (4, 6, 6, 1) and by.tolist() == [0, 1, 2, 3]
    for got, src in zip(bx, x[:4]):  # each image doubled, maybe mirrored
        assert np.allclose(got, 2 * src) or np.allclose(got, 2 * src[:, ::-1])
    shifted = image.ImageDataGenerator(width_shift_range=2, fill_mode="constant").flow(
        x, batch_size=10, shuffle=False, seed=3)[0]
    assert shifted.shape == x.shape and not np.allclose(shifted, x)
    norm = image.ImageDataGenerator(featurewise_center=True,
                                    featurewise_std_normalization=True)
    norm.fit(x)
    out = norm.flow(x, batch_size=10, shuffle=False)[0]
    assert abs(out.mean()) < 1e-4 and abs(out.std() - 1) < 1e-3
    for cls, color in (("cat", 30), ("dog", 220)):
        (tmp_path / cls).mkdir()
        for i in range(3):
            Image.fromarray(np.full((8, 10, 3), color, np.uint8)).save(
                tmp_path / cls / f"{i}.png")
    it = image.ImageDataGenerator(rescale=1 / 255).flow_from_directory(
        str(tmp_path), target_size=(4, 5), batch_size=6, shuffle=False)
    assert it.class_indices == {"cat": 0, "dog": 1}
    bx, by = next(it)
    assert bx.shape == (6, 4, 5, 3)
    np.testing.assert_allclose(bx[:3].mean(), 30 / 255, rtol=1e-5)
    np.testing.assert_array_equal(by.argmax(1), [0, 0, 0, 1, 1, 1])
    model = tf.keras.Sequential([tf.keras.layers.Flatten(input_shape=(4, 5, 3)),
                                 tf.keras.layers.Dense(2, activation="softmax")])
    model.compile(tf.keras.optimizers.SGD(0.5), "categorical_crossentropy", metrics=["acc"])
    hist = model.fit_generator(it, epochs=5, verbose=0)
    assert hist.history["acc"][-1] == 1.0
