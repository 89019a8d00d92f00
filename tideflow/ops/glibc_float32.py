"""The C library's float ``logf`` and ``sincosf`` on NumPy arrays, as glibc (2.28 and later,
from ARM's optimized routines) computes them: table lookups and short polynomials in double,
rounded once to float. TF's normal samplers call them (``BoxMullerFloat``), and they are not
correctly rounded: about 1 in 100 results is the other neighbour of the exact value."""

import numpy as np

_F = np.float32

def logf(x):
    """glibc's ``logf`` of float32 ``x`` (one implementation: eigen_float32's, which the
    kernels' scalar paths call too)."""
    from tideflow.ops import eigen_float32

    return eigen_float32._logf(x)


# sincosf: |x| < pi/4 a polynomial in x; up to 120 the quadrant n = round(x * 2/pi) (2/pi
# scaled by 2^24, truncated to int, rounded by adding 2^23 and shifting), x - n pi/2, and the
# polynomials swapped and negated by quadrant
_HPI_INV = float.fromhex("0x1.45F306DC9C883p+23")
_HPI = float.fromhex("0x1.921FB54442D18p0")
_C = tuple(float.fromhex(h) for h in (
    "0x1p0", "-0x1.ffffffd0c621cp-2", "0x1.55553e1068f19p-5", "-0x1.6c087e89a359dp-10",
    "0x1.99343027bf8c3p-16"))
_S = tuple(float.fromhex(h) for h in (
    "-0x1.555545995a603p-3", "0x1.1107605230bc4p-7", "-0x1.994eb3774cf24p-13"))
_TOP_PIO4 = 0x3F4  # top 12 bits of (float) pi/4
_TOP_TINY = 0x398  # of 0x1p-12f
_TOP_120 = 0x42F  # of 120.0f


def sincosf(x):
    """glibc's ``sincosf`` of float32 ``x``: (sin, cos) as float32 (beyond |x| >= 120 the
    exact values rounded)."""
    x = np.asarray(x, dtype=_F)
    top = (x.view(np.uint32) >> 20) & 0x7FF
    xd = x.astype(np.float64)
    sin = np.sin(xd).astype(_F)
    cos = np.cos(xd).astype(_F)
    small = (top < _TOP_PIO4) & (top >= _TOP_TINY)
    if small.any():
        s, c = _poly(xd[small], np.zeros(int(small.sum()), np.int64), 1.0)
        sin[small], cos[small] = s, c
    tiny = top < _TOP_TINY
    if tiny.any():
        sin[tiny], cos[tiny] = x[tiny], _F(1.0)
    mid = (top >= _TOP_PIO4) & (top < _TOP_120)
    if mid.any():
        v = xd[mid]
        n = ((v * _HPI_INV).astype(np.int32).astype(np.int64) + 0x800000) >> 24
        r = v - n * _HPI
        sign = np.where(((n & 3) == 1) | ((n & 3) == 2), -1.0, 1.0)
        s, c = _poly(r * sign, n, np.where(n & 2, -1.0, 1.0), r * r)
        sin[mid], cos[mid] = s, c
    return sin, cos


def _poly(x, n, cneg, x2=None):
    # the cosine polynomial is negated in quadrants 2 and 3 (TF's table's second entry)
    if x2 is None:
        x2 = x * x
    c0, c1, c2, c3, c4 = (cneg * c for c in _C)
    s1, s2, s3 = _S
    x4 = x2 * x2
    x3 = x2 * x
    cc2 = c3 + x2 * c4
    ss1 = s2 + x2 * s3
    cc1 = c0 + x2 * c1
    x5 = x3 * x2
    x6 = x4 * x2
    s = x + x3 * s1
    c = cc1 + x4 * c2
    sv = (s + x5 * ss1).astype(_F)
    cv = (c + x6 * cc2).astype(_F)
    odd = (n & 1).astype(bool)
    return np.where(odd, cv, sv), np.where(odd, sv, cv)
