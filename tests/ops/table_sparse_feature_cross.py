"""Op-table rows for tf.contrib.layers' SparseFeatureCross (V1: TF's HashCombine chain) and
SparseFeatureCrossV2 (FingerprintCat64 from a hash key); answers measured in TF 1.15."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case


def _check_crosses():
    from tideflow.ops.sparse_feature_cross_ops import sparse_feature_cross

    with tf.Graph().as_default(), tf.Session() as s:
        strings = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0]], ["x", "y", "z", "x"], [3, 2])
        ints = tf.SparseTensor([[0, 0], [1, 0], [2, 0], [2, 1]],
                               tf.constant([3, -5, 7, 1], tf.int64), [3, 2])
        dense = tf.constant([[1], [2], [4]], tf.int64)
        v1 = sparse_feature_cross([strings, ints], hashed_output=True, num_buckets=37)
        v2 = sparse_feature_cross([strings, ints], hashed_output=True, num_buckets=37,
                                  hash_key=123)
        assert v1.values.op.type == "SparseFeatureCross"
        assert v2.values.op.type == "SparseFeatureCrossV2"
        text = sparse_feature_cross([strings, dense])
        a, b, t = s.run([v1, v2, text])
        np.testing.assert_array_equal(a.indices, [[0, 0], [0, 1], [1, 0], [2, 0], [2, 1]])
        np.testing.assert_array_equal(a.values, [14, 10, 10, 10, 16])
        np.testing.assert_array_equal(b.values, [24, 18, 4, 0, 20])
        np.testing.assert_array_equal(a.dense_shape, [3, 2])
        assert t.values.tolist() == [b"x_X_1", b"y_X_1", b"z_X_2", b"x_X_4"]


CASES = [
    Case(("SparseFeatureCross", "SparseFeatureCrossV2"), check=_check_crosses),
]
