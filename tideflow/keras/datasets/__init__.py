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


def _imdb(path="imdb.npz", num_words=None, skip_top=0, maxlen=None, seed=113, start_char=1,
          oov_char=2, index_from=3, **kwargs):
    x_train, y_train, x_test, y_test = _load_npz(
        path, "https://storage.googleapis.com/tensorflow/tf-keras-datasets/imdb.npz",
        ["x_train", "y_train", "x_test", "y_test"])
    rng = np.random.RandomState(seed)
    order = rng.permutation(len(x_train))
    x_train, y_train = x_train[order], y_train[order]
    order = rng.permutation(len(x_test))
    x_test, y_test = x_test[order], y_test[order]
    x, labels, kept = _sequences(list(x_train) + list(x_test), np.concatenate([y_train, y_test]),
                                 num_words, skip_top, maxlen, start_char, oov_char, index_from)
    n = int(np.sum(kept < len(x_train)))
    return (x[:n], labels[:n]), (x[n:], labels[n:])


def _imdb_word_index(path="imdb_word_index.json"):
    import json

    with open(_cached(path, "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
                      "imdb_word_index.json")) as f:
        return json.load(f)


def _cifar10():
    import pickle

    base = _cached("cifar-10-batches-py", "https://www.cs.toronto.edu/~kriz/"
                   "cifar-10-python.tar.gz (extracted)")

    def batch(name):
        with open(os.path.join(base, name), "rb") as f:
            d = pickle.load(f, encoding="bytes")
        return d[b"data"].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1), np.array(d[b"labels"])

    parts = [batch(f"data_batch_{i}") for i in range(1, 6)]
    x_train = np.concatenate([p[0] for p in parts])
    y_train = np.concatenate([p[1] for p in parts]).reshape(-1, 1)
    x_test, y_test = batch("test_batch")
    return (x_train, y_train), (x_test, y_test.reshape(-1, 1))


def _cifar100(label_mode="fine"):
    import pickle

    from tideflow.keras import backend as K

    if label_mode not in ("fine", "coarse"):
        raise ValueError('`label_mode` must be one of `"fine"`, `"coarse"`.')
    base = _cached("cifar-100-python", "https://www.cs.toronto.edu/~kriz/"
                   "cifar-100-python.tar.gz (extracted)")

    def batch(name):
        with open(os.path.join(base, name), "rb") as f:
            d = {k.decode("utf8") if isinstance(k, bytes) else k: v
                 for k, v in pickle.load(f, encoding="bytes").items()}
        x = np.asarray(d["data"]).reshape(-1, 3, 32, 32)
        y = np.reshape(np.asarray(d[label_mode + "_labels"]), (-1, 1))
        if K.image_data_format() == "channels_last":
            x = x.transpose(0, 2, 3, 1)
        return x, y

    return batch("train"), batch("test")


def _sequences(xs, labels, num_words, skip_top, maxlen, start_char, oov_char, index_from):
    """Keras's word-index shift, length filter and vocabulary cut of the text data sets.

    Returns the sequences (an object array), their labels, and the indices into `xs` of the ones
    the length filter kept."""
    kept = np.arange(len(xs))
    if start_char is not None:
        xs = [[start_char] + [w + index_from for w in x] for x in xs]
    elif index_from:
        xs = [[w + index_from for w in x] for x in xs]
    if maxlen:
        keep = [i for i, x in enumerate(xs) if len(x) < maxlen]
        xs, labels, kept = [xs[i] for i in keep], labels[keep], kept[keep]
    if not num_words:
        num_words = max(max(x) for x in xs)
    if oov_char is not None:
        xs = [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    else:
        xs = [[w for w in x if skip_top <= w < num_words] for x in xs]
    out = np.empty(len(xs), dtype=object)
    out[:] = xs
    return out, labels, kept


def _reuters(path="reuters.npz", num_words=None, skip_top=0, maxlen=None, test_split=0.2,
             seed=113, start_char=1, oov_char=2, index_from=3, **kwargs):
    xs, labels = _load_npz(path, "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
                           "reuters.npz", ["x", "y"])
    order = np.random.RandomState(seed).permutation(len(xs))
    xs, labels = xs[order], labels[order]
    xs, labels, _ = _sequences(list(xs), labels, num_words, skip_top, maxlen, start_char,
                            oov_char, index_from)
    split = int(len(xs) * (1 - test_split))
    return (xs[:split], labels[:split]), (xs[split:], labels[split:])


def _reuters_word_index(path="reuters_word_index.json"):
    import json

    with open(_cached(path, "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
                      "reuters_word_index.json")) as f:
        return json.load(f)


mnist = _Module(_mnist)
imdb = _Module(_imdb)
imdb.get_word_index = _imdb_word_index
cifar10 = _Module(_cifar10)
cifar100 = _Module(_cifar100)
reuters = _Module(_reuters)
reuters.get_word_index = _reuters_word_index
boston_housing = _Module(_boston_housing)
fashion_mnist = _Module(_fashion_mnist)

__all__ = ["boston_housing", "cifar10", "cifar100", "fashion_mnist", "imdb", "mnist",
           "reuters"]
