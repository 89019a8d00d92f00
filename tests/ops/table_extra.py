"""Op-table rows for reverse_sequence, the matrix diagonal ops, sort/search and scatter_nd ops."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case

_NUM = (tf.float16, tf.float32, tf.float64, tf.int32, tf.int64, tf.uint8, tf.complex64)
_ALL = _NUM + (tf.bool,)


def _data(shape, start=0):
    def make(np_dt):
        a = (np.arange(int(np.prod(shape))) + start).reshape(shape)
        if np.dtype(np_dt) == np.bool_:
            return a % 3 != 0
        return a.astype(np_dt)

    return make


def _rev_seq_ref(x, lens, s, b):
    out = x.copy()
    for i, n in enumerate(lens.tolist()):
        src = np.take(x, i, axis=b)
        dst_idx = [slice(None)] * x.ndim
        dst_idx[b] = i
        ss = s if s < b else s - 1
        part = np.flip(np.take(src, np.arange(n), axis=ss), axis=ss)
        view = out[tuple(dst_idx)]
        idx = [slice(None)] * view.ndim
        idx[ss] = slice(0, n)
        view[tuple(idx)] = part
    return out


CASES = [
    Case("ReverseSequence",
         lambda x, n: [tf.reverse_sequence(x, n, seq_axis=1, batch_axis=0),
                       tf.reverse_sequence(x, n, seq_dim=1)],
         [_data((3, 4, 2)), np.array([4, 0, 2], np.int64)],
         lambda x, n: [_rev_seq_ref(x, n, 1, 0)] * 2, dtypes=_ALL, fixed=(1,)),
    Case("ReverseSequence",
         lambda x, n: tf.reverse_sequence(x, n, seq_axis=0, batch_axis=2),
         [_data((5, 2, 3)), np.array([1, 5, 3], np.int32)],
         lambda x, n: _rev_seq_ref(x, n, 0, 2), fixed=(1,), name="ReverseSequence_batch2"),
]
