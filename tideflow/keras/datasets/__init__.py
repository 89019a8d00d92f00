"""``tf.keras.datasets``: the Keras data sets, read from Keras's cache directory
(``~/.keras/datasets``) only — tideflow never downloads. A data set absent from the cache
raises an error saying which file to put where."""

import gzip
import os

import numpy as np


def _cached(fname, origin):
    base = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")
    path = fname if os.path.isabs(fname) else os.path.join(base, "datasets", fname)
    if not os.path.exists(path):
        raise OSError(f"tf.keras.datasets: {path} is not there, and tideflow does not download "
                      f"data sets. Fetch {origin} on a machine with network access and copy it "
                      f"to {path}.")
    return path


def _load_npz(fname, origin, keys):
    with np.load(_cached(fname, origin), allow_pickle=True) as f:
        return tuple(f[k] for k in keys)


class _Module:
    def __init__(self, load_data):
        self.load_data = load_data


def _mnist(path="mnist.npz"):
    x_train, y_train, x_test, y_test = _load_npz(
        path, "https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz",
        ["x_train", "y_train", "x_test", "y_test"])
    return (x_train, y_train), (x_test, y_test)


def _boston_housing(path="boston_housing.npz", test_split=0.2, seed=113):
    x, y = _load_npz(path, "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
                     "boston_housing.npz", ["x", "y"])
    order = np.random.RandomState(seed).permutation(len(x))
    x, y = x[order], y[order]
    split = int(len(x) * (1 - test_split))
    return (x[:split], y[:split]), (x[split:], y[split:])


def _fashion_mnist():
    files = ["train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz",
             "t10k-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz"]
    origin = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
    paths = [_cached(os.path.join("fashion-mnist", f), origin + f) for f in files]
    with gzip.open(paths[0], "rb") as f:
        y_train = np.frombuffer(f.read(), np.uint8, offset=8)
    with gzip.open(paths[1], "rb") as f:
        x_train = np.frombuffer(f.read(), np.uint8, offset=16).reshape(len(y_train), 28, 28)
    with gzip.open(paths[2], "rb") as f:
        y_test = np.frombuffer(f.read(), np.uint8, offset=8)
    with gzip.open(paths[3], "rb") as f:
        x_test = np.frombuffer(f.read(), np.uint8, offset=16).reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)


mnist = _Module(_mnist)
boston_housing = _Module(_boston_housing)
fashion_mnist = _Module(_fashion_mnist)

__all__ = ["boston_housing", "fashion_mnist", "mnist"]
