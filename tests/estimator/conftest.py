"""Fixtures of the Estimator tests: the digits data set, and closing the event writers."""

import faulthandler

import numpy as np
import pytest

from tideflow.summary.writer import FileWriterCache


@pytest.fixture(autouse=True)
def _bounded_and_closed():
    """Each test ends within a minute (a stuck loop dumps the stacks and exits), and closes
    the event writers it opened."""
    faulthandler.dump_traceback_later(60, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()
    FileWriterCache.clear()


@pytest.fixture(scope="session")
def digits():
    from sklearn.datasets import load_digits

    d = load_digits()
    x = (d.data / 16.0).astype(np.float32)
    y = d.target.astype(np.int32)
    rng = np.random.RandomState(0)
    order = rng.permutation(len(y))
    x, y = x[order], y[order]
    return x[:1400], y[:1400], x[1400:], y[1400:]
