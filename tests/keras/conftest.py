"""Fixtures of the tf.keras tests: a fresh graph and Keras session per test, and digits."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_keras():
    tf.keras.backend.clear_session()
    tf.set_random_seed(0)  # the new graph's seed: initial weights and dropout repeat
    np.random.seed(0)  # fit's shuffling
    yield
    tf.keras.backend.clear_session()


@pytest.fixture(scope="session")
def digits():
    from sklearn.datasets import load_digits

    d = load_digits()
    x = (d.data / 16.0).astype(np.float32)
    y = d.target.astype(np.int32)
    order = np.random.RandomState(0).permutation(len(y))
    x, y = x[order], y[order]
    return x[:1400], y[:1400], x[1400:], y[1400:]
