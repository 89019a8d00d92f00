"""float64 kernels computed as TF 1.15's Eigen computes them on whole AVX packets of 4 doubles
(the last ``size % 4`` elements by the C library), bit for bit, with TF's threads' FTZ."""

import math

import numpy as np

_PACKET = 4
_BLOCK = 1 << 14  # (a multiple of the packet)
_TINY = np.finfo(np.float64).tiny

# Eigen's pexp<Packet4d>: Cephes' rational interpolant on x - n ln 2 (ln 2 in two parts)
_EXP_HI, _EXP_LO = 709.437, -709.436139303
_LOG2E = 1.4426950408889634073599
_LN2_HI, _LN2_LO = 0.693145751953125, 1.42860682030941723212e-6
_P = (1.26177193074810590878e-4, 3.02994407707441961300e-2, 9.99999999999999999910e-1)
_Q = (3.00198505138664455042e-6, 2.52448340349684104192e-3, 2.27265548208155028766e-1,
      2.00000000000000000009e0)


def _packet_exp(x):
    with np.errstate(all="ignore"):
        c = np.clip(x, _EXP_LO, _EXP_HI)
        fx = c * _LOG2E
        fx += 0.5
        np.floor(fx, out=fx)
        c -= fx * _LN2_HI
        c -= fx * _LN2_LO
        x2 = c * c
        px = x2 * _P[0]
        px += _P[1]
        px *= x2
        px += _P[2]
        px *= c
        qx = x2 * _Q[0]
        qx += _Q[1]
        qx *= x2
        qx += _Q[2]
        qx *= x2
        qx += _Q[3]
        qx -= px
        np.divide(px, qx, out=c)
        c *= 2.0
        c += 1.0
        e = ((fx.astype(np.int64) + 1023) << 52).view(np.float64)
        c *= e
        return np.maximum(c, x, out=c)  # (a NaN x comes through: max's operand order)


def exp(x, out=None):
    """float64 exp as TF 1.15's kernel: Eigen's packet exp on groups of 4, the last
    ``size % 4`` elements by glibc's exp; denormal results flushed to zero. Computed in
    blocks (its temporaries stay small), into ``out`` if given (which may be x)."""
    flat = np.asarray(x, dtype=np.float64).reshape(-1)
    tail = flat.size % _PACKET
    rest = flat[flat.size - tail:].tolist()  # (read before ``out``, which may be x, is written)
    # (into ``out`` only where it is contiguous: reshaping a strided one, a transpose's
    # output, copies it, and the result written there would be lost)
    direct = out is not None and out.flags.c_contiguous
    y = out.reshape(-1) if direct else np.empty(flat.size)
    for start in range(0, flat.size, _BLOCK):
        y[start:start + _BLOCK] = _packet_exp(flat[start:start + _BLOCK])
    for i, v in enumerate(rest, flat.size - tail):
        try:
            y[i] = math.exp(v)
        except OverflowError:
            y[i] = math.inf
    if y.size and not y.min() >= _TINY:  # (a result below DBL_MIN, or a NaN)
        y[y < _TINY] = 0.0
    if out is None:
        return y.reshape(np.shape(x))
    if not direct:
        out[...] = y.reshape(out.shape)
    return out
