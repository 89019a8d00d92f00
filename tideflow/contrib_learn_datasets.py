"""``tf.contrib.learn.datasets``' loaders: ``load_iris`` (Fisher's iris measurements, the
public-domain table TF bundled), ``load_dataset``, and ``mnist.read_data_sets`` over the MNIST
IDX files in a directory (downloaded there when missing), with TF's ``DataSet.next_batch``."""

import gzip
import types

import numpy as np

from tideflow.contrib_learn import Dataset, Datasets, maybe_download

# 150 rows of sepal length, sepal width, petal length, petal width (cm), class
# (0 setosa, 1 versicolor, 2 virginica); four rows a line, separated by ';'. Rows 35 and 38 are
# the table TF 1.15 bundles (Fisher's as first printed), not the corrected ones later copies have
_IRIS = """
5.1,3.5,1.4,0.2,0;4.9,3.0,1.4,0.2,0;4.7,3.2,1.3,0.2,0;4.6,3.1,1.5,0.2,0
5.0,3.6,1.4,0.2,0;5.4,3.9,1.7,0.4,0;4.6,3.4,1.4,0.3,0;5.0,3.4,1.5,0.2,0
4.4,2.9,1.4,0.2,0;4.9,3.1,1.5,0.1,0;5.4,3.7,1.5,0.2,0;4.8,3.4,1.6,0.2,0
4.8,3.0,1.4,0.1,0;4.3,3.0,1.1,0.1,0;5.8,4.0,1.2,0.2,0;5.7,4.4,1.5,0.4,0
5.4,3.9,1.3,0.4,0;5.1,3.5,1.4,0.3,0;5.7,3.8,1.7,0.3,0;5.1,3.8,1.5,0.3,0
5.4,3.4,1.7,0.2,0;5.1,3.7,1.5,0.4,0;4.6,3.6,1.0,0.2,0;5.1,3.3,1.7,0.5,0
4.8,3.4,1.9,0.2,0;5.0,3.0,1.6,0.2,0;5.0,3.4,1.6,0.4,0;5.2,3.5,1.5,0.2,0
5.2,3.4,1.4,0.2,0;4.7,3.2,1.6,0.2,0;4.8,3.1,1.6,0.2,0;5.4,3.4,1.5,0.4,0
5.2,4.1,1.5,0.1,0;5.5,4.2,1.4,0.2,0;4.9,3.1,1.5,0.1,0;5.0,3.2,1.2,0.2,0
5.5,3.5,1.3,0.2,0;4.9,3.1,1.5,0.1,0;4.4,3.0,1.3,0.2,0;5.1,3.4,1.5,0.2,0
5.0,3.5,1.3,0.3,0;4.5,2.3,1.3,0.3,0;4.4,3.2,1.3,0.2,0;5.0,3.5,1.6,0.6,0
5.1,3.8,1.9,0.4,0;4.8,3.0,1.4,0.3,0;5.1,3.8,1.6,0.2,0;4.6,3.2,1.4,0.2,0
5.3,3.7,1.5,0.2,0;5.0,3.3,1.4,0.2,0;7.0,3.2,4.7,1.4,1;6.4,3.2,4.5,1.5,1
6.9,3.1,4.9,1.5,1;5.5,2.3,4.0,1.3,1;6.5,2.8,4.6,1.5,1;5.7,2.8,4.5,1.3,1
6.3,3.3,4.7,1.6,1;4.9,2.4,3.3,1.0,1;6.6,2.9,4.6,1.3,1;5.2,2.7,3.9,1.4,1
5.0,2.0,3.5,1.0,1;5.9,3.0,4.2,1.5,1;6.0,2.2,4.0,1.0,1;6.1,2.9,4.7,1.4,1
5.6,2.9,3.6,1.3,1;6.7,3.1,4.4,1.4,1;5.6,3.0,4.5,1.5,1;5.8,2.7,4.1,1.0,1
6.2,2.2,4.5,1.5,1;5.6,2.5,3.9,1.1,1;5.9,3.2,4.8,1.8,1;6.1,2.8,4.0,1.3,1
6.3,2.5,4.9,1.5,1;6.1,2.8,4.7,1.2,1;6.4,2.9,4.3,1.3,1;6.6,3.0,4.4,1.4,1
6.8,2.8,4.8,1.4,1;6.7,3.0,5.0,1.7,1;6.0,2.9,4.5,1.5,1;5.7,2.6,3.5,1.0,1
5.5,2.4,3.8,1.1,1;5.5,2.4,3.7,1.0,1;5.8,2.7,3.9,1.2,1;6.0,2.7,5.1,1.6,1
5.4,3.0,4.5,1.5,1;6.0,3.4,4.5,1.6,1;6.7,3.1,4.7,1.5,1;6.3,2.3,4.4,1.3,1
5.6,3.0,4.1,1.3,1;5.5,2.5,4.0,1.3,1;5.5,2.6,4.4,1.2,1;6.1,3.0,4.6,1.4,1
5.8,2.6,4.0,1.2,1;5.0,2.3,3.3,1.0,1;5.6,2.7,4.2,1.3,1;5.7,3.0,4.2,1.2,1
5.7,2.9,4.2,1.3,1;6.2,2.9,4.3,1.3,1;5.1,2.5,3.0,1.1,1;5.7,2.8,4.1,1.3,1
6.3,3.3,6.0,2.5,2;5.8,2.7,5.1,1.9,2;7.1,3.0,5.9,2.1,2;6.3,2.9,5.6,1.8,2
6.5,3.0,5.8,2.2,2;7.6,3.0,6.6,2.1,2;4.9,2.5,4.5,1.7,2;7.3,2.9,6.3,1.8,2
6.7,2.5,5.8,1.8,2;7.2,3.6,6.1,2.5,2;6.5,3.2,5.1,2.0,2;6.4,2.7,5.3,1.9,2
6.8,3.0,5.5,2.1,2;5.7,2.5,5.0,2.0,2;5.8,2.8,5.1,2.4,2;6.4,3.2,5.3,2.3,2
6.5,3.0,5.5,1.8,2;7.7,3.8,6.7,2.2,2;7.7,2.6,6.9,2.3,2;6.0,2.2,5.0,1.5,2
6.9,3.2,5.7,2.3,2;5.6,2.8,4.9,2.0,2;7.7,2.8,6.7,2.0,2;6.3,2.7,4.9,1.8,2
6.7,3.3,5.7,2.1,2;7.2,3.2,6.0,1.8,2;6.2,2.8,4.8,1.8,2;6.1,3.0,4.9,1.8,2
6.4,2.8,5.6,2.1,2;7.2,3.0,5.8,1.6,2;7.4,2.8,6.1,1.9,2;7.9,3.8,6.4,2.0,2
6.4,2.8,5.6,2.2,2;6.3,2.8,5.1,1.5,2;6.1,2.6,5.6,1.4,2;7.7,3.0,6.1,2.3,2
6.3,3.4,5.6,2.4,2;6.4,3.1,5.5,1.8,2;6.0,3.0,4.8,1.8,2;6.9,3.1,5.4,2.1,2
6.7,3.1,5.6,2.4,2;6.9,3.1,5.1,2.3,2;5.8,2.7,5.1,1.9,2;6.8,3.2,5.9,2.3,2
6.7,3.3,5.7,2.5,2;6.7,3.0,5.2,2.3,2;6.3,2.5,5.0,1.9,2;6.5,3.0,5.2,2.0,2
6.2,3.4,5.4,2.3,2;5.9,3.0,5.1,1.8,2
"""


def load_iris(data_path=None):
    """The iris data set: ``data`` float64 [150, 4], ``target`` int [150]."""
    if data_path is not None:
        from tideflow.contrib_learn import load_csv_with_header

        return load_csv_with_header(data_path, target_dtype=np.int64,
                                    features_dtype=np.float64)
    rows = [r.split(",") for line in _IRIS.split() for r in line.split(";")]
    table = np.array(rows, dtype=np.float64)
    return Dataset(data=table[:, :4], target=table[:, 4].astype(np.int64))


def load_boston(data_path=None):
    """Only from ``data_path`` (a CSV with TF's header row): tideflow bundles no copy."""
    if data_path is None:
        raise ValueError("load_boston: tideflow does not bundle the Boston housing data; pass "
                         "data_path= (a CSV whose first row is 'n_samples,n_features,...')")
    from tideflow.contrib_learn import load_csv_with_header

    return load_csv_with_header(data_path, target_dtype=np.float64,
                                features_dtype=np.float64)


# ------------------------------------------------------------------------------------------
# MNIST
# ------------------------------------------------------------------------------------------

SOURCE_URL = "https://storage.googleapis.com/cvdf-datasets/mnist/"
_FILES = ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
          "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")


def _read32(f):
    return int(np.frombuffer(f.read(4), dtype=">u4")[0])


def extract_images(f):
    """The images of an IDX3 stream as uint8 ``[n, rows, cols, 1]`` (printing ``Extracting
    <file>``, as TF's loader did)."""
    print("Extracting", getattr(f, "name", f))
    with gzip.GzipFile(fileobj=f) as stream:
        magic = _read32(stream)
        if magic != 2051:
            raise ValueError(f"Invalid magic number {magic} in MNIST image file: "
                             f"{getattr(f, 'name', f)}")
        n, rows, cols = _read32(stream), _read32(stream), _read32(stream)
        data = np.frombuffer(stream.read(n * rows * cols), dtype=np.uint8)
        return data.reshape(n, rows, cols, 1)


def dense_to_one_hot(labels_dense, num_classes):
    out = np.zeros((labels_dense.shape[0], num_classes))
    out[np.arange(labels_dense.shape[0]), labels_dense] = 1
    return out


def extract_labels(f, one_hot=False, num_classes=10):
    """The labels of an IDX1 stream as uint8 ``[n]`` (or one-hot ``[n, num_classes]``)."""
    print("Extracting", getattr(f, "name", f))
    with gzip.GzipFile(fileobj=f) as stream:
        magic = _read32(stream)
        if magic != 2049:
            raise ValueError(f"Invalid magic number {magic} in MNIST label file: "
                             f"{getattr(f, 'name', f)}")
        n = _read32(stream)
        labels = np.frombuffer(stream.read(n), dtype=np.uint8)
        return dense_to_one_hot(labels, num_classes) if one_hot else labels


class DataSet:
    """Images and labels served in shuffled mini-batches by ``next_batch``."""

    def __init__(self, images, labels, fake_data=False, one_hot=False, dtype=None,
                 reshape=True, seed=None):
        from tideflow.framework import dtypes
        from tideflow.framework.random_seed import get_seed

        dtype = dtypes.as_dtype(dtype or dtypes.float32).base_dtype
        if dtype not in (dtypes.uint8, dtypes.float32):
            raise TypeError(f"Invalid image dtype {dtype!r}, expected uint8 or float32")
        graph_seed, op_seed = get_seed(seed)
        np.random.seed(graph_seed if seed is None else op_seed)
        if fake_data:
            self._num_examples = 10000
            self.one_hot = one_hot
        else:
            if images.shape[0] != labels.shape[0]:
                raise ValueError(f"images.shape: {images.shape} labels.shape: {labels.shape}")
            self._num_examples = images.shape[0]
            if reshape:
                if images.shape[3] != 1:
                    raise ValueError(f"reshape needs one channel, got {images.shape}")
                images = images.reshape(images.shape[0], images.shape[1] * images.shape[2])
            if dtype == dtypes.float32:
                images = images.astype(np.float32) * np.float32(1.0 / 255.0)
        self._images = images
        self._labels = labels
        self._epochs_completed = 0
        self._index_in_epoch = 0

    images = property(lambda self: self._images)
    labels = property(lambda self: self._labels)
    num_examples = property(lambda self: self._num_examples)
    epochs_completed = property(lambda self: self._epochs_completed)

    def _shuffled(self):
        perm = np.arange(self._num_examples)
        np.random.shuffle(perm)
        self._images = self._images[perm]
        self._labels = self._labels[perm]

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        """The next ``batch_size`` examples; an epoch's end is completed from the next
        (reshuffled) epoch, as TF's DataSet did."""
        if fake_data:
            image = [1] * 784
            label = [1] + [0] * 9 if self.one_hot else 0
            return [image] * batch_size, [label] * batch_size
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            self._shuffled()
        if start + batch_size <= self._num_examples:
            self._index_in_epoch = start + batch_size
            return (self._images[start:self._index_in_epoch],
                    self._labels[start:self._index_in_epoch])
        self._epochs_completed += 1
        rest_images = self._images[start:]
        rest_labels = self._labels[start:]
        if shuffle:
            self._shuffled()
        self._index_in_epoch = batch_size - rest_images.shape[0]
        end = self._index_in_epoch
        return (np.concatenate((rest_images, self._images[:end]), axis=0),
                np.concatenate((rest_labels, self._labels[:end]), axis=0))


def _fetch(name, train_dir, source_url):
    """The path of MNIST file ``name`` in ``train_dir``, downloaded when missing; a failed
    download names the URL and where the file can be put by hand."""
    import os

    try:
        return maybe_download(name, train_dir, source_url + name)
    except OSError as e:  # urllib's URLError / HTTPError, socket errors
        raise OSError(f"read_data_sets: MNIST file {name!r} is not in "
                      f"{os.path.abspath(train_dir)!r} and downloading it from "
                      f"{source_url + name!r} failed ({e}); place the four files "
                      f"{', '.join(_FILES)} in that directory") from e


def read_data_sets(train_dir, fake_data=False, one_hot=False, dtype=None, reshape=True,
                   validation_size=5000, seed=None, source_url=SOURCE_URL):
    """MNIST's train (less the first ``validation_size`` images), validation and test sets
    from the gzipped IDX files in ``train_dir`` (fetched from ``source_url`` if missing)."""
    if fake_data:
        def fake():
            return DataSet([], [], fake_data=True, one_hot=one_hot, dtype=dtype, seed=seed)

        return Datasets(train=fake(), validation=fake(), test=fake())
    paths = [_fetch(name, train_dir, source_url) for name in _FILES]
    with open(paths[0], "rb") as f:
        train_images = extract_images(f)
    with open(paths[1], "rb") as f:
        train_labels = extract_labels(f, one_hot=one_hot)
    with open(paths[2], "rb") as f:
        test_images = extract_images(f)
    with open(paths[3], "rb") as f:
        test_labels = extract_labels(f, one_hot=one_hot)
    if not 0 <= validation_size <= len(train_images):
        raise ValueError(f"Validation size should be between 0 and {len(train_images)}. "
                         f"Received: {validation_size}.")
    kw = {"dtype": dtype, "reshape": reshape, "seed": seed}
    validation = DataSet(train_images[:validation_size], train_labels[:validation_size], **kw)
    train = DataSet(train_images[validation_size:], train_labels[validation_size:], **kw)
    test = DataSet(test_images, test_labels, **kw)
    return Datasets(train=train, validation=validation, test=test)


def load_mnist(train_dir="MNIST-data"):
    return read_data_sets(train_dir)


mnist = types.ModuleType(__name__ + ".mnist", "``tf.contrib.learn.datasets.mnist``.")
for _name in ("DataSet", "SOURCE_URL", "dense_to_one_hot", "extract_images", "extract_labels",
              "load_mnist", "read_data_sets"):
    setattr(mnist, _name, globals()[_name])

# -- synthetic two-class sets (``datasets.synthetic``, ``make_dataset``) ------------------
# Both draw from NumPy's global generator in TF 1.15's order (seed, extra points, the shuffle,
# then the noise), so a seeded program gets TF's points.


def _labelled_rings(points, n_samples, n_classes, extra_xy):
    """``(data [n, 2] float64, target int32)``: ring ``k`` of ``points`` (a list of (x, y)
    arrays) labelled ``k``, then the ``extra_xy`` points labelled 0, shuffled; no noise yet."""
    per_class = n_samples // n_classes
    xs = np.concatenate([p[0] for p in points] + [extra_xy[0]])
    ys = np.concatenate([p[1] for p in points] + [extra_xy[1]])
    labels = np.concatenate([np.full(per_class, k, np.int32) for k in range(n_classes)]
                            + [np.zeros(len(extra_xy[0]), np.int32)])
    order = np.random.permutation(n_samples)
    return np.stack([xs, ys], 1).astype(np.float64), labels, order


def _finish(data, labels, order, noise):
    if noise is not None:
        data += np.random.normal(scale=noise, size=data.shape)
    return Dataset(data=data[order], target=labels[order])


def circles(n_samples=100, noise=None, seed=None, factor=0.8, n_classes=2, *args, **kwargs):
    """``n_classes`` concentric circles (each ``factor`` times the one before) of
    ``n_samples // n_classes`` points, the remainder on the unit circle as class 0."""
    if seed is not None:
        np.random.seed(seed)
    angles = np.linspace(0, 2 * np.pi, n_samples // n_classes)
    rings = [(np.cos(angles) * factor ** k, np.sin(angles) * factor ** k)
             for k in range(n_classes)]
    extras = n_samples % n_classes
    # (x and y of an extra point come from two different random angles, as in TF)
    extra = (np.cos(np.random.rand(extras) * 2 * np.pi),
             np.sin(np.random.rand(extras) * 2 * np.pi))
    return _finish(*_labelled_rings(rings, n_samples, n_classes, extra), noise)


def _normalized(x, y):
    return x / np.max(np.abs(x)), y / np.max(np.abs(y))


def _archimedes(theta, theta_offset=0.0, *args, **kwargs):
    return _normalized(theta * np.cos(theta + theta_offset), theta * np.sin(theta + theta_offset))


def _bernoulli(theta, theta_offset=0.0, *args, **kwargs):
    r = np.exp(kwargs.pop("exp_scale", 0.1) * theta)
    return _normalized(r * np.cos(theta + theta_offset), r * np.sin(theta + theta_offset))


def _fermat(theta, theta_offset=0.0, *args, **kwargs):
    r = np.sqrt(theta)
    return _normalized(r * np.cos(theta + theta_offset), r * np.sin(theta + theta_offset))


_SPIRALS = {"archimedes": _archimedes, "bernoulli": _bernoulli, "fermat": _fermat}


def spirals(n_samples=100, noise=None, seed=None, mode="archimedes", n_loops=2, *args,
            **kwargs):
    """Two interleaved spirals (``mode``: 'archimedes', 'bernoulli' or 'fermat') of
    ``n_loops`` turns, each normalized to [-1, 1]; an odd point is class 0."""
    if mode is None or mode not in _SPIRALS:
        raise ValueError(f"Cannot generate spiral with mode {mode}")
    if seed is not None:
        np.random.seed(seed)
    spiral = _SPIRALS[mode]
    theta = np.linspace(0, 2 * n_loops * np.pi, n_samples // 2)
    arms = [spiral(theta, k * np.pi, *args, **dict(kwargs)) for k in range(2)]
    extras = n_samples % 2
    extra = (spiral(np.random.rand(extras) * 2 * np.pi, *args, **dict(kwargs)) if extras
             else (np.empty(0), np.empty(0)))
    return _finish(*_labelled_rings(arms, n_samples, 2, extra), noise)


synthetic = types.ModuleType(__name__ + ".synthetic",
                             "``tf.contrib.learn.datasets.synthetic``.")
synthetic.circles = circles
synthetic.spirals = spirals
synthetic.Dataset = Dataset
SYNTHETIC = {"circles": circles, "spirals": spirals}


def make_dataset(name, n_samples=100, noise=None, seed=42, *args, **kwargs):
    """The synthetic set called ``name`` ('circles' or 'spirals')."""
    if name not in SYNTHETIC:
        raise ValueError(f"Synthetic dataset not found or not implemeted: {name}")
    return SYNTHETIC[name](*args, n_samples=n_samples, noise=noise, seed=seed, **kwargs)


_LOADERS = {"iris": load_iris, "boston": load_boston, "mnist": load_mnist}
DATASETS = _LOADERS  # TF's public name for the loader table


def load_dataset(name, size="small", test_with_fake_data=False):
    """The data set called ``name`` ('iris', 'mnist'; 'boston' needs its CSV)."""
    if name not in _LOADERS:
        raise ValueError(f"Name of dataset is not found: {name}")
    if name == "mnist" and test_with_fake_data:
        return read_data_sets("MNIST-data", fake_data=True)
    return _LOADERS[name]()


__all__ = ["DATASETS", "SYNTHETIC", "DataSet", "load_boston", "load_dataset", "load_iris",
           "load_mnist", "make_dataset", "mnist", "read_data_sets", "synthetic"]


