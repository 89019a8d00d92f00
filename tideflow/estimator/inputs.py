"""``tf.estimator.inputs``: input functions over in-memory NumPy arrays (and pandas frames,
when pandas is installed)."""

import collections

import numpy as np

from tideflow.framework import dtypes, ops, random_seed, tensor_shape
from tideflow.ops import dataset_ops, iterator_ops

_TARGET_KEY = "__target_key__"
_DIRECT_INPUT_KEY = "__direct_np_input__"


def _validate_and_convert_features(x):
    if isinstance(x, dict):
        if not x:
            raise ValueError("x cannot be an empty dict")
        return collections.OrderedDict((k, np.asarray(x[k])) for k in sorted(x))
    if isinstance(x, np.ndarray):
        if not x.size:
            raise ValueError("x cannot be an empty array")
        return collections.OrderedDict([(_DIRECT_INPUT_KEY, x)])
    raise TypeError(f"x must be a dict or array; got {type(x).__name__}")


def _dtype_of(array):
    if array.dtype.kind in "USO":
        return dtypes.string
    return dtypes.as_dtype(array.dtype)


def _dataset_input_fn(data, batch_size, num_epochs, shuffle, queue_capacity, num_threads=1,
                      as_queue=True):
    """The next batch of a generator-fed dataset: the arrays stay in Python (as with TF's
    feeding queues) instead of becoming graph constants that every checkpoint's meta graph
    would copy. Batches run across epoch boundaries, as TF's feeding queue fills them; only
    the very last one may be short. Shuffling permutes each epoch, from the graph's seed.
    ``as_queue``: the batch takes the op ids and static shape of TF's feeding queue (else
    those of a placeholder-fed batch, for contrib.learn's data feeders)."""
    del queue_capacity  # whole-epoch permutations need no buffer
    graph = ops.get_default_graph()
    first_id = graph._next_id
    graph_seed, op_seed = random_seed.get_seed(None)
    seed = None if graph_seed is None else (graph_seed * 1000003 + op_seed) % (2 ** 32)
    n = len(next(iter(data.values())))

    def batches():
        rng = np.random.RandomState(seed)
        epoch = 0
        pending = np.empty(0, np.int64)
        while True:
            while len(pending) < batch_size and (num_epochs is None or epoch < num_epochs):
                order = rng.permutation(n) if shuffle else np.arange(n)
                pending = np.concatenate([pending, order])
                epoch += 1
            if not len(pending):
                return
            idx, pending = pending[:batch_size], pending[batch_size:]
            yield {k: v[idx] for k, v in data.items()}

    if n == 0:
        raise ValueError("numpy_input_fn: the arrays are empty.")
    types = {k: _dtype_of(v) for k, v in data.items()}
    # endless input gives whole batches only: their size is static, as TF's dequeue_many's
    rows = batch_size if num_epochs is None and as_queue else None
    shapes = {k: tensor_shape.TensorShape([rows] + list(v.shape[1:])) for k, v in data.items()}
    ds = dataset_ops.Dataset.from_generator(batches, types, shapes)
    batch = iterator_ops.make_one_shot_iterator(ds).get_next()
    # TF 1.15 builds a feeding queue here: the queue, per thread an index placeholder, one per
    # array and an enqueue op, two closes, its size, the fill fraction (7 ops) and its
    # summary (2), and the dequeue with its batch size. The ids ours does not use are skipped,
    # so the model's random initializers after it get TF's op seeds
    if as_queue:
        graph._skip_op_ids(to=first_id + 15 + num_threads * (2 + len(data)))
    return batch


def numpy_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None,
                   queue_capacity=1000, num_threads=1):
    """An ``input_fn`` giving batches of ``x`` (dict of arrays, or one array) and ``y``.

    ``num_epochs=None`` repeats forever; ``shuffle`` must be given explicitly, as in TF.
    """
    return _numpy_input_fn(x, y, batch_size, num_epochs, shuffle, queue_capacity, num_threads)


def _numpy_input_fn(x, y, batch_size, num_epochs, shuffle, queue_capacity, num_threads,
                    as_queue=True):
    if not isinstance(shuffle, bool):
        raise ValueError("shuffle must be provided and explicitly set as boolean (it is "  # noqa: TRY004 - as TF
                         f"recommended to set it as True for training); got {shuffle}")
    if batch_size is None or int(batch_size) <= 0:
        raise ValueError(f"batch_size must be a positive integer; got {batch_size}")
    if num_epochs is not None and int(num_epochs) < 0:  # 0 epochs: empty, as TF
        raise ValueError(f"num_epochs must be a non-negative integer or None; got {num_epochs}")
    num_threads = max(int(num_threads), 1)  # one reader here; the order is the same

    def input_fn():
        data = _validate_and_convert_features(x)
        feature_keys = list(data)
        target_keys = []
        if y is not None:
            if isinstance(y, dict):
                if not y:
                    raise ValueError("y cannot be empty dict, use None instead.")
                dup = set(y) & set(data)
                if dup:
                    # (TF prints the set)
                    raise ValueError(f"{len(dup)} duplicate keys are found in both x and y: "
                                     f"{dup}")
                for k in sorted(y):
                    data[k] = np.asarray(y[k])
                target_keys = sorted(y)
            else:
                data[_TARGET_KEY] = np.asarray(y)
                target_keys = [_TARGET_KEY]
        if len({v.shape[0] if v.ndim else None for v in data.values()}) != 1:
            x_shapes = {k: data[k].shape for k in feature_keys}
            y_shapes = (None if y is None
                        else {k: data[k].shape for k in target_keys} if isinstance(y, dict)
                        else data[_TARGET_KEY].shape)  # TF 1.15 shows an array's shape
            raise ValueError("Length of tensors in x and y is mismatched. All elements in x "
                             "and y must have the same length.\n"
                             f"Shapes in x: {x_shapes}\nShapes in y: {y_shapes}\n")
        batch = _dataset_input_fn(data, batch_size, num_epochs, shuffle, queue_capacity,
                                  num_threads, as_queue)
        features = {k: batch[k] for k in feature_keys}
        if list(features) == [_DIRECT_INPUT_KEY]:
            features = features[_DIRECT_INPUT_KEY]
        if not target_keys:
            return features
        if target_keys == [_TARGET_KEY]:
            return features, batch[_TARGET_KEY]
        return features, {k: batch[k] for k in target_keys}

    input_fn.__qualname__ = "numpy_input_fn.<locals>.input_fn"  # as TF's (a spec's repr)
    return input_fn


def pandas_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None,
                    queue_capacity=1000, num_threads=1, target_column="target"):
    """An ``input_fn`` over a pandas DataFrame ``x`` and Series ``y``."""
    try:
        import pandas as pd
    except ImportError:
        raise TypeError("pandas_input_fn should not be called without pandas installed") \
            from None
    if not isinstance(shuffle, bool):
        raise ValueError("shuffle must be provided and explicitly set as boolean (it is "  # noqa: TRY004 - as TF
                         f"recommended to set it as True for training); got {shuffle}")
    if not isinstance(x, pd.DataFrame):
        raise TypeError(f"x must be a pandas DataFrame; got {type(x).__name__}")
    features = {str(c): x[c].to_numpy() for c in x.columns}
    if y is not None:
        if target_column in features:
            raise ValueError(f"Cannot use name {target_column} for target column: DataFrame "
                             "already has a column with that name: " + str(list(x.columns)))
        if not np.array_equal(np.asarray(x.index), np.asarray(y.index)):
            raise ValueError("Index for x and y are mismatched.")
        y = y.to_numpy() if isinstance(y, pd.Series) else {
            str(c): y[c].to_numpy() for c in y.columns}
    return numpy_input_fn(features, y, batch_size=batch_size, num_epochs=num_epochs,
                          shuffle=shuffle, queue_capacity=queue_capacity,
                          num_threads=num_threads)


__all__ = ["numpy_input_fn", "pandas_input_fn"]
