"""scikit-learn's digits (1797 8x8 images, shipped inside the package): a fixed 1500/297 split."""

import numpy as np
from sklearn.datasets import load_digits


def load(seed=0, flat=True):
    """((train_images, train_labels), (test_images, test_labels)), pixels scaled to [0, 1]."""
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    order = np.random.RandomState(seed).permutation(len(x))
    x, y = x[order], y[order]
    if not flat:
        x = x.reshape(-1, 8, 8, 1)
    return (x[:1500], y[:1500]), (x[1500:], y[1500:])


def batches(x, y, batch_size, rng):
    """One epoch of shuffled minibatches."""
    order = rng.permutation(len(x))
    for i in range(0, len(x), batch_size):
        idx = order[i:i + batch_size]
        yield x[idx], y[idx]
