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


def _mdiag(d):
    out = np.zeros(d.shape + d.shape[-1:], d.dtype)
    i = np.arange(d.shape[-1])
    out[..., i, i] = d
    return out


def _set_diag(x, d):
    out = x.copy()
    i = np.arange(min(x.shape[-2:]))
    out[..., i, i] = d
    return out


def _diag_part(x):
    r = x.ndim // 2
    n = int(np.prod(x.shape[:r]))
    return np.diagonal(x.reshape(n, n)).reshape(x.shape[:r])


_DIAG_DT = (tf.float16, tf.float32, tf.float64, tf.int32, tf.int64, tf.complex64)

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
    Case("MatrixDiag", lambda d: [tf.matrix_diag(d), tf.linalg.diag(d)], [_data((2, 3), 1)],
         lambda d: [_mdiag(d)] * 2, dtypes=_ALL),
    Case("MatrixDiagPart", lambda x: [tf.matrix_diag_part(x), tf.linalg.diag_part(x)],
         [_data((2, 3, 3))], lambda x: [np.diagonal(x, axis1=-2, axis2=-1)] * 2, dtypes=_ALL),
    Case("MatrixDiagPart", lambda x: tf.matrix_diag_part(x), [_data((2, 3, 4))],
         lambda x: np.diagonal(x, axis1=-2, axis2=-1), name="MatrixDiagPart_rectangular"),
    Case("MatrixDiagPart", lambda x: [tf.trace(x), tf.linalg.trace(x)], [_data((2, 4, 3))],
         lambda x: [np.trace(x, axis1=-2, axis2=-1)] * 2, dtypes=_NUM, name="Trace"),
    Case("MatrixSetDiag", lambda x, d: [tf.matrix_set_diag(x, d), tf.linalg.set_diag(x, d)],
         [_data((2, 3, 4)), _data((2, 3), 50)], lambda x, d: [_set_diag(x, d)] * 2, dtypes=_ALL),
    Case("MatrixSetDiag", lambda x, d: tf.matrix_set_diag(x, d),
         [_data((4, 2)), _data((2,), 50)], _set_diag, name="MatrixSetDiag_tall"),
    Case("Diag", lambda d: [tf.diag(d), tf.diag(d[0])], [_data((2, 3), 1)],
         lambda d: [np.diag(d.ravel()).reshape(2, 3, 2, 3), np.diag(d[0])], dtypes=_DIAG_DT),
    Case("DiagPart", lambda x: tf.diag_part(x), [_data((2, 3, 2, 3))], _diag_part,
         dtypes=_DIAG_DT),
    Case("DiagPart", lambda x: tf.diag_part(x), [_data((4, 4))], _diag_part,
         name="DiagPart_matrix"),
]
