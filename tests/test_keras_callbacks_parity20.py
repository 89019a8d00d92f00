"""tf.keras parity with TF 1.15 (twentieth session): callbacks, the loss rebuilt for fed sample
weights, weight regularization losses. Expected values are TF 1.15's printed outputs."""

import numpy as np
import pytest

import tideflow as tf

L = tf.keras.layers


@pytest.fixture(autouse=True)
def _graph():
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
