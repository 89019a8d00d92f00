"""tf.keras.estimator.model_to_estimator: the Keras model's weights, loss and metrics in an
Estimator."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.summary.writer import FileWriterCache


@pytest.fixture(autouse=True)
def _close_writers():
    yield
    FileWriterCache.clear()


def test_model_to_estimator_starts_from_keras_weights_and_trains(digits, tmp_path):
    x, y, xt, yt = digits
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(32, activation="relu", input_shape=(64,)),
        tf.keras.layers.Dropout(0.1),
        tf.keras.layers.Dense(10, activation="softmax"),
    ])
    model.compile(tf.keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    model.fit(x, y, epochs=1, verbose=0)
    keras_loss, keras_acc = model.evaluate(xt, yt, verbose=0)
    estimator = tf.keras.estimator.model_to_estimator(keras_model=model,
                                                      model_dir=str(tmp_path))
    name = model.input_names[0]
    test_fn = tf.estimator.inputs.numpy_input_fn({name: xt}, yt, batch_size=100, shuffle=False)
    before = estimator.evaluate(test_fn)
    assert before["acc"] == pytest.approx(keras_acc, abs=1e-5)
    assert before["global_step"] == 0
    train_fn = tf.estimator.inputs.numpy_input_fn({name: x}, y, batch_size=50, num_epochs=3,
                                                  shuffle=True)
    estimator.train(train_fn)
    after = estimator.evaluate(test_fn)
    assert after["global_step"] == 84
    assert after["loss"] < keras_loss
    preds = list(estimator.predict(tf.estimator.inputs.numpy_input_fn(
        {name: xt[:3]}, shuffle=False)))
    assert len(preds) == 3 and preds[0][model.output_names[0]].shape == (10,)
    np.testing.assert_allclose(preds[0][model.output_names[0]].sum(), 1.0, rtol=1e-5)


def test_model_to_estimator_needs_a_compiled_model():
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    with pytest.raises(ValueError, match="has not been compiled yet"):
        tf.keras.estimator.model_to_estimator(keras_model=model)


def test_model_to_estimator_from_an_hdf5_model_file(tmp_path):
    rng = np.random.RandomState(0)
    x = rng.randn(40, 3).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    model.fit(x, y, epochs=2, verbose=0)
    keras_loss = model.evaluate(x, y, verbose=0)
    path = str(tmp_path / "m.h5")
    model.save(path)
    with pytest.raises(ValueError, match="does not exist"):
        tf.keras.estimator.model_to_estimator(keras_model_path=str(tmp_path / "no.h5"))
    estimator = tf.keras.estimator.model_to_estimator(keras_model_path=path,
                                                      model_dir=str(tmp_path / "est"))
    name = model.input_names[0]  # the loaded model's input layer has the saved name
    fn = tf.estimator.inputs.numpy_input_fn({name: x}, y, batch_size=40, shuffle=False)
    assert estimator.evaluate(fn)["loss"] == pytest.approx(keras_loss, rel=1e-5)
