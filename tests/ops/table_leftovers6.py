"""Op-table rows for ops added in the sixth session's leftovers work:
SparseSegment{Sum,Mean,SqrtN}WithNumSegments (``tf.sparse.segment_*(..., num_segments=)``)."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case

_DATA = np.linspace(-2, 3, 12).reshape(4, 3)
_IDX = np.array([0, 2, 1, 3, 3], np.int32)
_IDS = np.array([0, 0, 1, 3, 3], np.int32)


def _ref(kind, num_segments):
    def ref(data, indices, seg, n):
        out = np.zeros((int(n),) + data.shape[1:], data.dtype)
        counts = np.zeros(int(n))
        for k, s in zip(indices, seg):
            out[s] += data[k]
            counts[s] += 1
        div = {"sum": np.ones_like(counts), "mean": np.maximum(counts, 1),
               "sqrtn": np.sqrt(np.maximum(counts, 1))}[kind]
        return (out / div[:, None]).astype(data.dtype)

    return ref


def _case(op, fn, kind, n=6):
    return Case(op, lambda d, i, s, k: fn(d, i, s, num_segments=k),
                [_DATA, _IDX, _IDS, np.array(n, np.int32)], _ref(kind, n), fixed=(1, 2, 3),
                grad_inputs=[0])


CASES = [
    _case("SparseSegmentSumWithNumSegments", tf.sparse.segment_sum, "sum"),
    _case("SparseSegmentMeanWithNumSegments", tf.sparse.segment_mean, "mean"),
    _case("SparseSegmentSqrtNWithNumSegments", tf.sparse.segment_sqrt_n, "sqrtn", n=4),
]
