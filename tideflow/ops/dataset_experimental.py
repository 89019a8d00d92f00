"""``tf.data.experimental``: transformation functions for ``Dataset.apply`` and helpers."""

from tideflow.framework import dtypes
from tideflow.ops.dataset_ops import AUTOTUNE, Dataset
from tideflow.ops.iterator_ops import get_single_element

__all__ = ["AUTOTUNE", "Counter", "enumerate_dataset", "get_single_element", "ignore_errors",
           "map_and_batch", "parallel_interleave", "prefetch_to_device", "shuffle_and_repeat",
           "unbatch"]


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """``dataset.shuffle(buffer_size, seed).repeat(count)`` as one transformation."""
    return lambda dataset: dataset.shuffle(buffer_size, seed).repeat(count)


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False,
                  num_parallel_calls=None):
    """``dataset.map(map_func).batch(batch_size, drop_remainder)`` as one transformation."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("`num_parallel_batches` and `num_parallel_calls` are mutually "
                         "exclusive.")
    if num_parallel_batches is not None:
        num_parallel_calls = num_parallel_batches * batch_size if isinstance(
            batch_size, int) else None
    return lambda dataset: dataset.map(map_func, num_parallel_calls).batch(batch_size,
                                                                           drop_remainder)


def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False,
                        buffer_output_elements=None, prefetch_input_elements=None):
    """``dataset.interleave`` reading ``cycle_length`` inputs concurrently (in order)."""
    del sloppy, buffer_output_elements, prefetch_input_elements
    return lambda dataset: dataset.interleave(map_func, cycle_length, block_length,
                                              num_parallel_calls=cycle_length)


def unbatch():
    return lambda dataset: dataset.unbatch()


def ignore_errors():
    """Drops the elements whose computation raised an error."""
    return lambda dataset: dataset.ignore_errors()


def enumerate_dataset(start=0):
    return lambda dataset: dataset.enumerate(start)


def prefetch_to_device(device, buffer_size=None):
    del device  # every device of this process shares the host's memory
    return lambda dataset: dataset.prefetch(AUTOTUNE if buffer_size is None else buffer_size)


def Counter(start=0, step=1, dtype=dtypes.int64):
    """An infinite dataset counting from ``start`` by ``step``."""
    import numpy as np

    d = Dataset.range(start, np.iinfo(np.int64).max if step > 0 else np.iinfo(np.int64).min,
                      step)
    if dtypes.as_dtype(dtype) != dtypes.int64:
        from tideflow.ops.cast_ops import cast

        d = d.map(lambda x: cast(x, dtype))
    return d
