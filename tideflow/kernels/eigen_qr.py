"""The float32 and float64 QR TF 1.15's CPU Qr kernel computes (Eigen's HouseholderQR on
row-major matrices, Q formed by householderQ()), step by step in NumPy, so Q and R come out with
TF's bits; LAPACK's float64 result rounded to float32 is an ulp off in most entries (every Keras
RNN's orthogonal recurrent kernel differed from its first weights), and float64 as often.

Measured against TF 1.15 (tensorflow-cpu 1.15.0 pip build: AVX, no FMA, packets of 32 bytes:
8 floats or 4 doubles):
- R: Householder vectors column by column (unblocked while at most 48 columns). The tail's
  squared norm and each reflector's dot products run sequentially (the matrix is row-major, so
  Eigen's column-major GEMV accumulates one row at a time; from 128 rows on it sums blocks of 16
  rows and adds each block's sum to the result).
- thin Q (``householderQ() * Identity(m, n)``, a column-major temporary): reflectors applied in
  reverse to all columns; each dot product is Eigen's row-major GEMV: one lane per packet
  element over packets of rows, reduced by halves (((l0+l4)+(l2+l6))+((l1+l5)+(l3+l7)) for
  floats), then the rest one by one; the GEMV takes columns 8, 4, 2 at a time and the odd last
  column alone, which also uses one half packet before the scalar rest. From 48 reflectors on
  Eigen applies them as blocks (triangular factor and GEMM kernels: not modelled).
- full Q (``householderQ()`` into the row-major output): reflectors on the bottom-right
  corners, dot products as R's. Exact up to 48 reflectors.

``qr`` returns None where this model is not TF's (wide matrices, whose trailing columns get the
block reflector, and 48 or more reflectors for thin Q / over 48 for R): the caller keeps its
LAPACK path there.
"""

import numpy as np

# Eigen's HouseholderQR panel width and householderQ()'s block size
_BLOCK = 48


def _dot_seq(e, b):
    """e @ b summed row by row from zero, each product rounded (column-major GEMV)."""
    if b.shape[0] < 128:
        return np.add.accumulate(e[:, None] * b, axis=0)[-1]
    n = b.shape[0]
    full = n // 16 * 16
    p = (e[:full, None] * b[:full]).reshape(full // 16, 16, b.shape[1])
    res = np.add.accumulate(np.add.accumulate(p, axis=1)[:, -1], axis=0)[-1]
    if full < n:
        res = res + np.add.accumulate(e[full:, None] * b[full:], axis=0)[-1]
    return res


def _fold(lanes):
    """Eigen's predux: add the upper half of the packet to the lower until one lane is left."""
    while len(lanes) > 1:
        h = len(lanes) // 2
        lanes = lanes[:h] + lanes[h:]
    return lanes[0]


def _dot_packets(e, b):
    """e @ b as Eigen's row-major GEMV (AVX packets of 32 bytes) sums it, per column of b."""
    n, cols = b.shape
    size = 32 // b.dtype.itemsize
    full = n // size * size
    if full:
        p = (e[:full, None] * b[:full]).reshape(full // size, size, cols)
        acc = _fold(np.add.accumulate(p, axis=0)[-1])
    else:
        acc = np.zeros(cols, b.dtype)
    half = size // 2
    if cols % 2 and n - full >= half:
        # the odd last column: one half packet, then the scalars
        last = acc[-1] + _fold(e[full:full + half] * b[full:full + half, -1])
        for i in range(full + half, n):
            last = last + e[i] * b[i, -1]
        for i in range(full, n):
            acc = acc + e[i] * b[i]
        acc[-1] = last
        return acc
    for i in range(full, n):
        acc = acc + e[i] * b[i]
    return acc


def _apply_left(blk, ess, tau, dot):
    """Eigen's applyHouseholderOnTheLeft, in place on the view blk."""
    if blk.shape[0] == 1:
        blk *= blk.dtype.type(1) - tau
        return
    if tau == 0:
        return
    tmp = dot(ess, blk[1:]) + blk[0]
    blk[0] -= tau * tmp
    blk[1:] -= (tau * ess)[:, None] * tmp[None, :]


def _factor(a):
    """Eigen's unblocked householder_qr_inplace: R in the upper triangle, the reflectors."""
    f = a.dtype.type
    m, n = a.shape
    tiny = np.finfo(a.dtype).tiny
    taus, vecs = [], []
    for k in range(min(m, n)):
        c0 = a[k, k]
        tail = a[k + 1:, k].copy()
        sq = np.add.accumulate(tail * tail)[-1] if len(tail) else f(0)
        if sq <= tiny:
            tau, beta, ess = f(0), c0, np.zeros_like(tail)
        else:
            beta = np.sqrt(f(c0 * c0 + sq))
            if c0 >= 0:
                beta = -beta
            ess = tail / f(c0 - beta)
            tau = f((beta - c0) / beta)
        a[k, k] = beta
        a[k + 1:, k] = 0
        taus.append(tau)
        vecs.append(ess)
        _apply_left(a[k:, k + 1:], ess, tau, _dot_seq)
    return taus, vecs


def qr(x, full_matrices):
    """TF's (q, r) of one float32 or float64 matrix x, or None where the model is not TF's."""
    m, n = x.shape
    size = min(m, n)
    if m < n or size == 0 or size > _BLOCK or (size == _BLOCK and not full_matrices):
        return None
    a = np.array(x)
    with np.errstate(all="ignore"):
        taus, vecs = _factor(a)
        if full_matrices:
            q = np.eye(m, dtype=a.dtype)
            for k in range(size - 1, -1, -1):
                _apply_left(q[k:, k:], vecs[k], taus[k], _dot_seq)
            return q, a
        q = np.eye(m, size, dtype=a.dtype)
        for k in range(size - 1, -1, -1):
            _apply_left(q[k:], vecs[k], taus[k], _dot_packets)
    return q, a[:size]
