"""Op-table rows for the bit counting and packing ops (PopulationCount, CompareAndBitpack) and
the step-scoped temporary variables (TemporaryVariable, DestroyTemporaryVariable)."""

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


def _check_temporary_variable():
    from tideflow.python.ops import gen_state_ops

    with tf.Graph().as_default():
        tmp = gen_state_ops.temporary_variable([2, 2], tf.float64, var_name="acc")
        assert tmp.dtype == tf.float64_ref and tmp.shape.as_list() == [2, 2]
        acc = tf.assign(tmp, [[1.0, 2.0], [3.0, 4.0]])
        acc = tf.assign_add(acc, [[0.5, 0.5], [0.5, 0.5]])
        final = gen_state_ops.destroy_temporary_variable(acc, var_name="acc")
        assert final.dtype == tf.float64 and final.shape.as_list() == [2, 2]
        with tf.Session() as s:
            for _ in range(2):  # a fresh variable every step
                np.testing.assert_array_equal(s.run(final), [[1.5, 2.5], [3.5, 4.5]])


CASES = [
    Case(("TemporaryVariable", "DestroyTemporaryVariable"), check=_check_temporary_variable,
         grad=False),
    Case("PopulationCount", bitwise_ops.population_count,
         [np.array([[0, 1, 7, 127], [-1, -128, 85, 3]])], _popcount_ref,
         dtypes=(tf.int8, tf.int16, tf.int32, tf.int64), grad=False),
    Case("PopulationCount", bitwise_ops.population_count, [np.array([0, 255, 170, 3])],
         _popcount_ref, dtypes=(tf.uint8, tf.uint16), grad=False,  # (TF 1.15's kernels)
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
