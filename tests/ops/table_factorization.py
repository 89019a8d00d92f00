"""Op-table rows for contrib.factorization's WALS kernels (WALSComputePartialLhsAndRhs,
MaskedMatmul) against NumPy loops over the entries."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.ops import factorization_ops as fo

_RNG = np.random.RandomState(4)
_F = _RNG.randn(4, 3).astype(np.float32)  # factors of the 4 columns present
_FW = _RNG.rand(4).astype(np.float32) + 0.5
_IW = _RNG.rand(3).astype(np.float32) + 0.5
_IDX = np.array([[0, 1], [0, 3], [1, 0], [2, 2], [2, 1], [2, 0]], np.int64)
_VAL = _RNG.randn(6).astype(np.float32)
_EW = _RNG.rand(6).astype(np.float32)


def _lhs_rhs_ref(f, fw, w0, iw, idx, vals, ew, block, transpose):
    rows, cols = (idx[:, 1], idx[:, 0]) if transpose else (idx[:, 0], idx[:, 1])
    lhs = np.zeros((int(block), f.shape[1], f.shape[1]))
    rhs = np.zeros((int(block), f.shape[1]))
    for n, (i, j) in enumerate(zip(rows, cols)):
        wij = ew[n] if ew.size else iw[i] * fw[j]
        lhs[i] += wij * np.outer(f[j], f[j])
        rhs[i] += (w0 + wij) * vals[n] * f[j]
    return [lhs.astype(np.float32), rhs.astype(np.float32)]


def _lhs_rhs(*args):
    f, fw, w0, iw, idx, vals, ew, block, tr = args
    return list(fo.wals_compute_partial_lhs_and_rhs(f, fw, w0, iw, idx, vals, block, tr,
                                                    entry_weights=ew))


def _mm_ref(a, b, idx, ta, tb):
    a = a.T if ta else a
    b = b.T if tb else b
    return np.array([a[i] @ b[:, j] for i, j in idx], np.float32)


_FIX = (4, 7, 8)
CASES = [
    Case("WALSComputePartialLhsAndRhs", _lhs_rhs,
         [_F, _FW, np.float32(0.3), _IW, _IDX, _VAL, np.zeros([0], np.float32), np.int64(3),
          np.bool_(False)], _lhs_rhs_ref, dtypes=(tf.float32,), fixed=_FIX, grad=False,
         rtol=1e-5, atol=1e-5),
    Case("WALSComputePartialLhsAndRhs", _lhs_rhs,
         [_F[:3], _FW[:3], np.float32(0.1), _RNG.rand(4).astype(np.float32),
          _IDX, _VAL, _EW, np.int64(4), np.bool_(True)], _lhs_rhs_ref, dtypes=(tf.float32,),
         fixed=_FIX, grad=False, rtol=1e-5, atol=1e-5,
         name="WALSComputePartialLhsAndRhs_transposed_entry_weights"),
    Case("MaskedMatmul", lambda a, b, i, ta, tb: fo.masked_matmul(a, b, i, ta, tb),
         [_RNG.randn(3, 2).astype(np.float32), _RNG.randn(4, 2).astype(np.float32), _IDX,
          np.bool_(False), np.bool_(True)], _mm_ref, dtypes=(tf.float32,), fixed=(2, 3, 4),
         grad=False, rtol=1e-5, atol=1e-5),
    Case("MaskedMatmul", lambda a, b, i, ta, tb: fo.masked_matmul(a, b, i, ta, tb),
         [_RNG.randn(2, 3).astype(np.float32), _RNG.randn(2, 4).astype(np.float32), _IDX,
          np.bool_(True), np.bool_(False)], _mm_ref, dtypes=(tf.float32,), fixed=(2, 3, 4),
         grad=False, rtol=1e-5, atol=1e-5, name="MaskedMatmul_transpose_a"),
]
