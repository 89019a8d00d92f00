"""tf.keras (graph mode) parity with TF 1.15, second part: the numbers seeded programs print
and the op counts of compile and the training functions. The expected values are what TF 1.15
(tf.keras 2.2.4-tf) printed for the same programs."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        tf.set_random_seed(1)
        yield g
    tf.keras.backend.clear_session()


def _data():
    rs = np.random.RandomState(0)
    x = rs.rand(16, 3).astype(np.float32)
    rs.randint(0, 2, 16)
    return x, rs.rand(16, 2).astype(np.float32)


def _small_model():
    return tf.keras.Sequential([tf.keras.layers.Dense(4, input_shape=(3,), activation="relu"),
                                tf.keras.layers.Dense(2)])


def _fit(m, x, y):
    h = m.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    return h.history["loss"], m.evaluate(x[:8], y[:8], verbose=0), m.predict(x[:2])


# -- Adagrad -----------------------------------------------------------------------------------


def test_adagrad_by_name_starts_its_accumulator_at_zero(_fresh_graph):
    # TF 1.15: 'adagrad' is Adagrad.from_config({}), whose accumulator starts at 0, the
    # update lr * g / (sqrt(acc) + epsilon)
    assert tf.keras.optimizers.get("adagrad").get_config()["initial_accumulator_value"] == 0.0
    assert tf.keras.optimizers.Adagrad().get_config()["initial_accumulator_value"] == 0.1
    x, y = _data()
    m = _small_model()
    m.compile("adagrad", "mse", metrics=["mae"])
    h = m.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(h.history["loss"], [0.253572, 0.249886], atol=2e-6)
    np.testing.assert_allclose(h.history["mean_absolute_error"], [0.397795, 0.395028],
                               atol=2e-6)
    np.testing.assert_allclose(m.evaluate(x[:8], y[:8], verbose=0), [0.337625, 0.469178],
                               atol=2e-6)
    np.testing.assert_allclose(m.predict(x[:2]), [[0.466761, 0.84752], [0.370395, 0.599623]],
                               atol=2e-6)


def test_adagrad_object_and_sparse_updates(_fresh_graph):
    x, y = _data()
    m = _small_model()
    m.compile(tf.keras.optimizers.Adagrad(0.05), "mse")
    loss, ev, pred = _fit(m, x, y)
    np.testing.assert_allclose(loss, [0.243437, 0.167175], atol=2e-6)
    np.testing.assert_allclose(ev, 0.163104, atol=2e-6)
    np.testing.assert_allclose(pred, [[0.513199, 0.525623], [0.421264, 0.323284]], atol=2e-6)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        m = tf.keras.Sequential([tf.keras.layers.Embedding(10, 3, input_length=4),
                                 tf.keras.layers.Flatten(), tf.keras.layers.Dense(2)])
        m.compile(tf.keras.optimizers.Adagrad(0.1, initial_accumulator_value=0.0), "mse")
        ids = np.random.RandomState(3).randint(0, 10, (16, 4))
        h = m.fit(ids, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
        np.testing.assert_allclose(h.history["loss"], [0.196987, 0.063803], atol=2e-6)
        np.testing.assert_allclose(m.predict(ids[:2]), [[0.538651, 0.175639],
                                                        [0.568174, 0.426202]], atol=2e-6)
