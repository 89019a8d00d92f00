"""Op-table rows for the bit counting and packing ops (PopulationCount, CompareAndBitpack)."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.ops import bitwise_ops


def _popcount_ref(x):
    # count through the bytes: each element's two's-complement bits
    x = np.ascontiguousarray(x)
    bits = np.unpackbits(x.view(np.uint8).reshape(x.shape + (x.dtype.itemsize,)), axis=-1)
    return bits.sum(axis=-1).astype(np.uint8)


def _bitpack_ref(x, threshold):
    bits = (x > threshold).reshape(x.shape[:-1] + (x.shape[-1] // 8, 8))
    weights = np.array([128, 64, 32, 16, 8, 4, 2, 1])
    return (bits * weights).sum(axis=-1).astype(np.uint8)


CASES = [
    Case("PopulationCount", bitwise_ops.population_count,
         [np.array([[0, 1, 7, 127], [-1, -128, 85, 3]])], _popcount_ref,
         dtypes=(tf.int8, tf.int16, tf.int32, tf.int64), grad=False),
    Case("PopulationCount", bitwise_ops.population_count, [np.array([0, 255, 170, 3])],
         _popcount_ref, dtypes=(tf.uint8, tf.uint16, tf.uint32, tf.uint64), grad=False,
         name="PopulationCount_unsigned"),
    Case("CompareAndBitpack", bitwise_ops.compare_and_bitpack,
         [np.array([[3, -1, 0, 2, 5, 1, 0, 7, 1, 1, 2, 2, 0, 0, 9, -4]]), np.array(1)],
         _bitpack_ref, dtypes=(tf.float16, tf.float32, tf.float64, tf.int8, tf.int32, tf.int64),
         grad=False),
    Case("CompareAndBitpack", bitwise_ops.compare_and_bitpack,
         [np.array([[True, False, True, True, False, False, False, True]] * 2),
          np.array(False)], _bitpack_ref, dtypes=(tf.bool,), grad=False,
         name="CompareAndBitpack_bool"),
]
