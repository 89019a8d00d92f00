"""Op-table rows for tf.contrib.periodic_resample (PeriodicResample and its gradient op).

The reference is an element loop over the output written from the op's documented formula."""

import itertools

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.ops.periodic_resample_ops import periodic_resample, periodic_resample_op_grad

_DT = (tf.float32, tf.float64, tf.int32, tf.int64)


def _data(shape):
    return lambda np_dt: (np.arange(int(np.prod(shape))) * 3 % 17 + 1).reshape(shape).astype(np_dt)


def _sources(in_shape, desired):
    """(output index, input index) pairs: P[s] = T[h]."""
    q = desired.index(None)
    rank = len(in_shape)
    out = list(desired)
    out[q] = int(np.prod(in_shape)) // int(np.prod([d for d in desired if d is not None]))
    g = [-(-out[i] // in_shape[i]) for i in range(rank)]
    big_g = [int(np.prod(g[:j])) for j in range(rank)]
    for s in itertools.product(*[range(n) for n in out]):
        h = [s[i] // g[i] for i in range(rank)]
        h[q] = out[q] * sum(big_g[j] * (s[j] % g[j]) for j in range(rank) if j != q) + s[q]
        yield s, tuple(h), out


def _ref(desired):
    def ref(x):
        pairs = list(_sources(x.shape, desired))
        res = np.zeros(pairs[0][2], x.dtype)
        for s, h, _ in pairs:
            res[s] = x[h]
        return res

    return ref


def _grad_ref(in_shape, desired):
    def ref(g):
        res = np.zeros(in_shape, g.dtype)
        for s, h, _ in _sources(in_shape, desired):
            res[h] = g[s]
        return res

    return ref


CASES = [
    Case("PeriodicResample", lambda x: periodic_resample(x, [6, None]), [_data((3, 4))],
         _ref([6, None]), dtypes=_DT, name="PeriodicResample_2d"),
    Case("PeriodicResample", lambda x: periodic_resample(x, [5, None]), [_data((3, 4))],
         _ref([5, None]), dtypes=_DT, name="PeriodicResample_truncated"),
    Case("PeriodicResample", lambda x: periodic_resample(x, [2, 4, 6, None]),
         [_data((2, 2, 3, 8))], _ref([2, 4, 6, None]), dtypes=_DT,
         name="PeriodicResample_subpixel"),
    Case("PeriodicResample", lambda x: periodic_resample(x, [None, 4, 4]), [_data((4, 2, 2))],
         _ref([None, 4, 4]), dtypes=_DT, name="PeriodicResample_leading"),
    Case("PeriodicResampleOpGrad",
         lambda g: periodic_resample_op_grad(g, [1, 4, 6, 8], [1, 8, 12, None]),
         [_data((1, 8, 12, 2))], _grad_ref((1, 4, 6, 8), [1, 8, 12, None]), dtypes=_DT,
         grad=False),
]
