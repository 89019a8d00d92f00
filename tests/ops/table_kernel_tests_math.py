"""Op-table rows for math ops added while auditing against TF 1.15's kernel tests
(``EuclideanNorm``, the op behind ``tf.math.reduce_euclidean_norm``; ``ApproximateEqual``, ``Bucketize``, ``AccumulateNV2``)."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.ops.math_ops import _bucketize, approximate_equal

_X = np.array([[[1.5, -2.0, 3.0, 0.5], [2.0, 1.0, -1.0, 4.0], [0.5, 0.25, 2.0, -3.0]],
               [[-1.0, 2.5, 0.75, 1.0], [3.0, -0.5, 1.25, 2.0], [1.0, 1.5, -2.5, 0.5]]])


def _norm(x, axis, keepdims=False):
    return np.sqrt(np.sum(np.abs(x) ** 2, axis=axis, keepdims=keepdims))


CASES = [
    Case("EuclideanNorm",
         lambda x: [tf.math.reduce_euclidean_norm(x, 1),
                    tf.math.reduce_euclidean_norm(x, [0, 2], keepdims=True),
                    tf.math.reduce_euclidean_norm(x)],
         [_X],
         lambda x: [_norm(x, 1), _norm(x, (0, 2), True), _norm(x, None)],
         dtypes=(tf.float32, tf.float64), grad=False),  # TF 1.15: not differentiable
    Case("EuclideanNorm",
         lambda x: [tf.math.reduce_euclidean_norm(x, 1)],
         [np.array([[3, 4, 0], [1, 1, 1]])],
         lambda x: [np.floor(_norm(x.astype(np.float64), 1)).astype(x.dtype)],
         dtypes=(tf.int32, tf.int64), grad=False, name="EuclideanNorm_int"),
]

CASES.append(Case(
    "ApproximateEqual",
    lambda x, y: [approximate_equal(x, y, tolerance=0.0001)],
    [np.array([[-1.0, 2.00009999], [-3.0, 4.01]]), np.array([[-1.001, 2.0], [-3.00009, 4.0]])],
    lambda x, y: [np.abs(x - y) < 0.0001], grad=False))

CASES.append(Case(
    "Bucketize",
    lambda x: [_bucketize(x, [0.0, 3.0, 8.0, 11.0])],
    [np.array([[-5.0, 0.0, 2.0], [3.0, 8.5, 12.0]])],
    lambda x: [np.searchsorted([0.0, 3.0, 8.0, 11.0], x, side="right").astype(np.int32)],
    dtypes=(tf.float32, tf.float64, tf.int32, tf.int64), grad=False))

CASES.append(Case(
    "AccumulateNV2",
    lambda x, y: [tf.accumulate_n([x, y, x])],
    [np.array([[1.5, -2.0], [0.25, 3.0]]), np.array([[0.5, 1.0], [-1.0, 2.0]])],
    lambda x, y: [2 * x + y]))
