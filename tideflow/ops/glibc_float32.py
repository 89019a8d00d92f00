"""The C library's float functions on NumPy arrays, bit for bit as glibc 2.36 computes them,
and Eigen's float special functions built on them: what TF 1.15's CPU kernels call per
element.

``logf`` and ``sincosf`` (2.28 and later, from ARM's optimized routines) are table lookups and
short polynomials in double, rounded once to float; TF's normal samplers call them
(``BoxMullerFloat``), and they are not correctly rounded: about 1 in 100 results is the other
neighbour of the exact value. The fdlibm-derived functions (``erff``, ``tanf``, ``atanf``,
``lgammaf``, ...) evaluate in float, each operation rounded (no FMA), as NumPy's float32 ops
do. Eigen's Cephes ports built on them (``digamma``, ``igamma``, ``betainc``, ...) are in
``cephes_float32``. Branches select by bit masks (``_where``) and flat indices (``_on``)."""

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


# ------------------------------------------------------------------------------------------
# glibc 2.36's fdlibm-derived float functions (sysdeps/ieee754/flt-32): TF 1.15's Erf, Erfc,
# Lgamma, Tan, Atan, Atan2, Asinh, Acosh and Atanh kernels call them per element (Eigen has no
# packet form of these), and Log1p and Expm1 on the last size % 8 elements. Each float
# operation is rounded to float (x86-64 SSE, no FMA contraction), as NumPy's float32 ops are.
# ------------------------------------------------------------------------------------------


def _where(mask, a, b):
    """np.where for 4- and 8-byte numbers by bit masks: NumPy's where (and its boolean
    indexing) branches per element, ten times slower on a random mask."""
    dt = np.result_type(a, b)
    if dt.kind not in "fiu" or dt.itemsize not in (4, 8):
        return np.where(mask, a, b)
    it = np.int32 if dt.itemsize == 4 else np.int64
    k = np.asarray(mask, dtype=bool).astype(it)
    np.negative(k, out=k)
    ai = np.asarray(a).astype(dt, copy=False).view(it)
    bi = np.asarray(b).astype(dt, copy=False).view(it)
    out = ai & k
    out |= bi & ~k
    return out.view(dt)


def _select(conds, choices, default):
    """np.select by ``_where``: the first true condition's choice."""
    out = default
    for c, v in zip(conds[::-1], choices[::-1]):
        out = _where(c, v, out)
    return out


def _consts(*hexes):
    return tuple(np.int32(np.uint32(h)).view(_F) for h in hexes)


def _nest(z, coeffs):
    """c0 + z * (c1 + z * (c2 + ...)) in float32, innermost first (``coeffs`` lowest first)."""
    acc = coeffs[-1] * np.ones_like(z)
    for c in coeffs[-2::-1]:
        acc = c + z * acc
    return acc


def _bits(x):
    return x.view(np.int32)


def _from_bits(i):
    return np.asarray(i, dtype=np.int32).view(_F)


def _on(out, mask, fn, *args):
    """out[mask] = fn(*(a[mask] for a in args)) where anything is masked (by flat indices:
    NumPy's boolean indexing costs ten times as much on a random mask)."""
    at = np.flatnonzero(mask)
    if at.size == out.size:
        out[...] = fn(*args)
    elif at.size:
        out.put(at, fn(*(np.take(a, at) for a in args)))


_ONE = _F(1)
_HALF = _F(0.5)
_TWO = _F(2)

# erf's coefficients: [0, 0.84375), [0.84375, 1.25), [1.25, 1/0.35), [1/0.35, 28)
_ERX = _consts(0x3f58560b)[0]
_EFX = _consts(0x3e0375d4)[0]
_ERF_PP = _consts(0x3e0375d4, 0xbea66beb, 0xbce9528f, 0xbbbd1489, 0xb7c756b1)
_ERF_QQ = (_ONE,) + _consts(0x3ecbbbce, 0x3d852a63, 0x3ba68116, 0x390aee49, 0xb684e21a)
_ERF_PA = _consts(0xbb1acdc6, 0x3ed46805, 0xbebe9208, 0x3ea2fe54, 0xbde31cc2, 0x3d1151b3,
                  0xbb0df9c0)
_ERF_QA = (_ONE,) + _consts(0x3dd9f331, 0x3f0a5785, 0x3d931ae7, 0x3e013307, 0x3c5f6e13,
                            0x3c445aa3)
_ERF_RA = _consts(0xbc21a093, 0xbf31a0b7, 0xc128f022, 0xc2798057, 0xc322658c, 0xc3389ae7,
                  0xc2a2932b, 0xc11d077e)
_ERF_SA = (_ONE,) + _consts(0x419d35ce, 0x4309a863, 0x43d9486f, 0x442158c9, 0x43d6810b,
                            0x42d9451f, 0x40d23f7c, 0xbd777f97)
_ERF_RB = _consts(0xbc21a092, 0xbf4c9dd4, 0xc18e104b, 0xc320a2ea, 0xc41f6441, 0xc480230b,
                  0xc3f1c275)
_ERF_SB = (_ONE,) + _consts(0x41f2b459, 0x43a2e571, 0x44c01759, 0x4547fdbb, 0x451f90ce,
                            0x43ed43a7, 0xc1b38712)


def _erf_small(x):
    """x * P(x^2) / Q(x^2) less x: erf(x) - x for |x| < 0.84375."""
    z = x * x
    return x * (_nest(z, _ERF_PP) / _nest(z, _ERF_QQ))


def _erf_mid(ax):
    """P/Q about |x| = 1 (erf(|x|) - erx) for 0.84375 <= |x| < 1.25."""
    s = ax - _ONE
    return _nest(s, _ERF_PA) / _nest(s, _ERF_QA)


def _erfc_tail(ax, ix, mask_bits, edge):
    """erfc(|x|) * |x| for 1.25 <= |x| < 28: exp(-z^2 - 0.5625) exp((z - x)(z + x) + R/S)
    with z |x| cut to its leading mantissa bits (``mask_bits``)."""
    s = _ONE / (ax * ax)
    near = ix < edge
    r = np.empty_like(ax)
    _on(r, near, lambda v: _nest(v, _ERF_RA) / _nest(v, _ERF_SA), s)
    _on(r, ~near, lambda v: _nest(v, _ERF_RB) / _nest(v, _ERF_SB), s)
    z = _from_bits(ix & mask_bits)
    ef = _ef()
    return ef._expf(-z * z - _F(0.5625)) * ef._expf((z - ax) * (z + ax) + r)


def erff(x):
    """glibc's ``erff`` of float32 ``x``."""
    x = np.asarray(x, dtype=_F)
    hx = _bits(x)
    ix = hx & 0x7fffffff
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        small = ix < 0x3f580000
        _on(out, small & (ix >= 0x31800000), lambda v: v + _erf_small(v), x)
        _on(out, small & (ix < 0x31800000), lambda v: v + _EFX * v, x)
        _on(out, small & (ix < 0x04000000),
            lambda v: _F(0.0625) * (_F(16) * v + (_F(16) * _EFX) * v), x)
        mid = ~small & (ix < 0x3fa00000)
        _on(out, mid, lambda v: np.copysign(_ERX + _erf_mid(np.abs(v)), v), x)
        tail = (ix >= 0x3fa00000) & (ix < 0x40c00000)
        _on(out, tail, lambda v, i: np.copysign(
            _ONE - _erfc_tail(np.abs(v), i, np.int32(-0x1000), 0x4036DB6E) / np.abs(v), v), x, ix)
        big = (ix >= 0x40c00000) & (ix < 0x7f800000)
        out[big] = np.copysign(_ONE, x[big])
        special = ix >= 0x7f800000
        _on(out, special, lambda v: _where(v < 0, -_ONE, _ONE) + _ONE / v, x)
    return out


def erfcf(x):
    """glibc's ``erfcf`` of float32 ``x`` (denormal results as the C library gives them)."""
    x = np.asarray(x, dtype=_F)
    hx = _bits(x)
    ix = hx & 0x7fffffff
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        out[...] = _ONE - x  # |x| < 2^-26
        small = (ix < 0x3f580000) & (ix >= 0x32800000)
        _on(out, small & (hx < 0x3e800000), lambda v: _ONE - (v + _erf_small(v)), x)
        _on(out, small & (hx >= 0x3e800000),
            lambda v: _HALF - (_erf_small(v) + (v - _HALF)), x)
        mid = (ix >= 0x3f580000) & (ix < 0x3fa00000)
        _on(out, mid & (hx >= 0), lambda v: (_ONE - _ERX) - _erf_mid(v), x)
        _on(out, mid & (hx < 0), lambda v: _ONE + (_ERX + _erf_mid(-v)), x)
        tail = (ix >= 0x3fa00000) & (ix < 0x41e00000) & ~((hx < 0) & (ix >= 0x40c00000))
        _on(out, tail & (hx > 0),
            lambda v, i: _erfc_tail(v, i, np.int32(-0x2000), 0x4036DB6D) / v, x, ix)
        _on(out, tail & (hx < 0), lambda v, i: _TWO - _erfc_tail(-v, i, np.int32(-0x2000),
                                                                 0x4036DB6D) / -v, x, ix)
        out[(ix >= 0x41e00000) & (hx > 0)] = 0
        out[(hx < 0) & (ix >= 0x40c00000)] = _TWO
        special = ix >= 0x7f800000
        _on(out, special, lambda v: _where(v < 0, _TWO, _F(0)) + _ONE / v, x)
    return out


# atanf: |x| reduced about 0, 0.5, 1, 1.5 or infinity, an odd polynomial of degree 23
_ATAN_HI = np.array(_consts(0x3eed6338, 0x3f490fda, 0x3f7b985e, 0x3fc90fda))
_ATAN_LO = np.array(_consts(0x31ac3769, 0x33222168, 0x33140fb4, 0x33a22168))
# (the first is the float nearest its decimal 3.3333334327e-01 in the C source, 0x3eaaaaab, not
# the 0x3eaaaaaa of its comment)
_ATAN_T = _consts(0x3eaaaaab, 0xbe4ccccd, 0x3e124925, 0xbde38e38, 0x3dba2e6e, 0xbd9d8795,
                  0x3d886b35, 0xbd6ef16b, 0x3d4bda59, 0xbd15a221, 0x3c8569d7)


def _atan_sum(x):
    """x * (s1 + s2): atan's polynomial less its linear term (times x)."""
    z = x * x
    w = z * z
    s1 = z * _nest(w, _ATAN_T[0::2])
    s2 = w * _nest(w, _ATAN_T[1::2])
    return x * (s1 + s2)


def atanf(x):
    """glibc's ``atanf`` of float32 ``x``."""
    x = np.asarray(x, dtype=_F)
    hx = _bits(x)
    ix = hx & 0x7fffffff
    a = np.abs(x)
    with np.errstate(all="ignore"):
        # every element by the reduced form, its interval's (2|x| - 1) / (2 + |x|),
        # (|x| - 1) / (1 + |x|), (|x| - 1.5) / (1 + 1.5|x|) or -1 / |x| as p|x| - q over
        # r + s|x| (the same roundings: 2|x| and 1 |x| are exact), below 0.4375 x itself
        small = ix < 0x3ee00000
        idx = ((ix >= 0x3f300000).astype(np.int32) + (ix >= 0x3f980000)
               + (ix >= 0x401c0000))
        p, q, r, s = (row.take(idx) for row in _ATAN_RED)
        t = _where(small, x, (p * a - q) / (r + s * a))
        poly = _atan_sum(t)
        z = _ATAN_HI.take(idx) - ((poly - _ATAN_LO.take(idx)) - t)
        out = _where(small, t - poly, _where(hx < 0, -z, z))
        if (ix < 0x31000000).any() or (ix >= 0x4c000000).any():
            out = _where(ix < 0x31000000, x, out)
            big = _where(hx < 0, -_ATAN_HI[3] - _ATAN_LO[3], _ATAN_HI[3] + _ATAN_LO[3])
            out = _where(ix >= 0x4c000000, big, out)
            out = _where(ix > 0x7f800000, x, out)
    return out


_ATAN_RED = np.array([[2, 1, 1, 0], [1, 1, 1.5, 1], [2, 1, 1, 0], [1, 1, 1.5, 1]], dtype=_F)


_PI, _PI_O_2, _PI_O_4, _PI_LO = _consts(0x40490fdb, 0x3fc90fdb, 0x3f490fdb, 0xb3bbbd2e)


def atan2f(y, x):
    """glibc's ``atan2f`` of float32 ``y`` and ``x`` (same shape)."""
    y, x = np.broadcast_arrays(np.asarray(y, dtype=_F), np.asarray(x, dtype=_F))
    hx, hy = _bits(x), _bits(y)
    ix, iy = hx & 0x7fffffff, hy & 0x7fffffff
    with np.errstate(all="ignore"):
        k = (iy - ix) >> 23
        z = atanf(np.abs(y / x))
        z[k > 60] = _PI_O_2 + _HALF * _PI_LO
        z[(hx < 0) & (k < -60)] = 0
        neg_y = hy < 0
        out = _where(hx < 0, _where(neg_y, (z - _PI_LO) - _PI, _PI - (z - _PI_LO)),
                       _where(neg_y, -z, z)).astype(_F)
        # the special cases: y or x zero or infinite (NumPy's atan2 gives C99's values),
        # x == 1, NaN
        special = (iy == 0) | (ix == 0) | (ix == 0x7f800000) | (iy == 0x7f800000)
        out[special] = np.arctan2(y[special], x[special])
        one = hx == 0x3f800000
        out[one] = atanf(y[one])
        nan = (ix > 0x7f800000) | (iy > 0x7f800000)
        out[nan] = (x + y)[nan]
    return out


# log1pf: 1 + x = 2^k (1 + f), log(1 + f) by s = f / (2 + f) and a polynomial in s^2, a
# correction c for the rounding of 1 + x
_LN2_HI, _LN2_LO = _consts(0x3f317180, 0x3717f7d1)
_LP = _consts(0x3F2AAAAB, 0x3ECCCCCD, 0x3E924925, 0x3E638E29, 0x3E3A3325, 0x3E1CD04F,
              0x3E178897)


def log1pf(x):
    """glibc's ``log1pf`` of float32 ``x``."""
    x = np.asarray(x, dtype=_F)
    hx = _bits(x)
    ax = hx & 0x7fffffff
    with np.errstate(all="ignore"):
        out = np.log1p(x)  # the special values: -1, below, inf, NaN
        tiny = (ax < 0x31000000)
        out[tiny] = (x - x * x * _HALF)[tiny]
        out[ax < 0x24800000] = x[ax < 0x24800000]
        plain = (hx < 0x3ed413d7) & ((hx > 0) | (hx <= np.int32(np.uint32(0xbe95f61f))))
        plain &= ~tiny
        reduced = ~plain & ~tiny & (x > -_ONE) & (hx < 0x7f800000)
        _on(out, plain, _log1pf_plain, x)
        _on(out, reduced, _log1pf_reduced, x)
    return out


def _log1pf_poly(f):
    hfsq = _HALF * f * f
    s = f / (_TWO + f)
    z = s * s
    r = z * _nest(z, _LP)
    return hfsq, s, r


def _log1pf_plain(f):
    hfsq, s, r = _log1pf_poly(f)
    return f - (hfsq - s * (hfsq + r))


def _log1pf_reduced(x):
    u = _ONE + x
    hu = _bits(u)
    k = (hu >> 23) - 127
    c = _where(k > 0, _ONE - (u - x), x - (u - _ONE)) / u
    huge = _bits(x) >= 0x5a000000
    if huge.any():
        hu = _where(huge, _bits(x), hu)
        k = _where(huge, (hu >> 23) - 127, k)
        c = _where(huge, _F(0), c)
    hu = hu & 0x007fffff
    up = hu >= 0x3504f7
    f = _from_bits(_where(up, hu | 0x3f000000, hu | 0x3f800000)) - _ONE
    k = k + up
    hu = _where(up, (0x00800000 - hu) >> 2, hu)
    kf = k.astype(_F)
    hfsq, s, r = _log1pf_poly(f)
    out = kf * _LN2_HI - ((hfsq - (s * (hfsq + r) + (kf * _LN2_LO + c))) - f)
    exact = hu == 0  # 1 + x a power of two times (1 + f), |f| < 2^-20
    if exact.any():
        fe, ke, ce = f[exact], kf[exact], c[exact]
        r = (_HALF * fe * fe) * (_ONE - _F(0.66666666666666666) * fe)
        e = ke * _LN2_HI - ((r - (ke * _LN2_LO + ce)) - fe)
        zero = fe == 0
        e[zero] = (ke * _LN2_HI + (ce + ke * _LN2_LO))[zero]
        out[exact] = e
    return out


_LN2F = _consts(0x3f317218)[0]


def asinhf(x):
    """glibc's ``asinhf`` of float32 ``x``."""
    x = np.asarray(x, dtype=_F)
    ix = _bits(x) & 0x7fffffff
    xa = np.abs(x)
    out = x.copy()  # |x| < 2^-14, inf, NaN
    with np.errstate(all="ignore"):
        huge = (ix > 0x47000000) & (ix < 0x7f800000)
        _on(out, huge, lambda v: _ef()._logf(v) + _LN2F, xa)
        mid = (ix > 0x40000000) & (ix <= 0x47000000)
        _on(out, mid, lambda v: _ef()._logf(_TWO * v + _ONE / (np.sqrt(v * v + _ONE) + v)),
            xa)
        low = (ix >= 0x38000000) & (ix <= 0x40000000)

        def near_zero(v):
            t = v * v
            return log1pf(v + t / (_ONE + np.sqrt(_ONE + t)))

        _on(out, low, near_zero, xa)
        done = huge | mid | low
        out[done] = np.copysign(out[done], x[done])
    return out


def acoshf(x):
    """glibc's ``acoshf`` of float32 ``x``."""
    x = np.asarray(x, dtype=_F)
    hx = _bits(x)
    with np.errstate(all="ignore"):
        out = np.arccosh(x)  # below 1, 1, inf, NaN
        huge = (hx >= 0x4d800000) & (hx < 0x7f800000)
        _on(out, huge, lambda v: _ef()._logf(v) + _LN2F, x)
        mid = (hx > 0x40000000) & (hx < 0x4d800000)
        _on(out, mid, lambda v: _ef()._logf(_TWO * v - _ONE / (v + np.sqrt(v * v - _ONE))), x)
        low = (hx > 0x3f800000) & (hx <= 0x40000000)

        def near_one(v):
            t = v - _ONE
            return log1pf(t + np.sqrt(_TWO * t + t * t))

        _on(out, low, near_one, x)
    return out


def atanhf(x):
    """glibc's ``atanhf`` of float32 ``x``."""
    x = np.asarray(x, dtype=_F)
    xa = np.abs(x)
    with np.errstate(all="ignore"):
        out = np.arctanh(x)  # |x| >= 1, NaN
        small = (xa < _HALF) & (xa >= _F(2.0 ** -28))

        def below_half(v):
            t = v + v
            return _HALF * log1pf(t + t * v / (_ONE - v))

        _on(out, small, below_half, xa)
        mid = (xa >= _HALF) & (xa < _ONE)
        _on(out, mid, lambda v: _HALF * log1pf((v + v) / (_ONE - v)), xa)
        tiny = xa < _F(2.0 ** -28)
        out[tiny] = x[tiny]
        done = small | mid
        out[done] = np.copysign(out[done], x[done])
    return out


# expm1f: x = k ln2 + r (ln2 in two parts, c the rounding of r), a rational form in r,
# 2^k applied by adding k to the exponent bits
_EXPM1_Q = _consts(0xbd088889, 0x3ad00d01, 0xb8a670cd, 0x36867e54, 0xb457edbb)
_INVLN2, _O_THRESHOLD = _consts(0x3fb8aa3b, 0x42b17180)


def expm1f(x):
    """glibc's ``expm1f`` of float32 ``x``."""
    x = np.asarray(x, dtype=_F)
    hx = _bits(x) & 0x7fffffff
    neg = x < 0
    with np.errstate(all="ignore"):
        out = np.expm1(x)  # inf, NaN; overflow
        out[neg & (hx >= 0x4195b844) & (hx <= 0x7f800000)] = -_ONE
        tiny = hx < 0x33000000
        out[tiny] = x[tiny]
        core = (hx >= 0x33000000) & (hx < 0x7f800000) & ~(x > _O_THRESHOLD)
        core &= ~(neg & (hx >= 0x4195b844))
        _on(out, core, _expm1f_core, x, hx)
    return out


def _expm1f_core(x, hx):
    neg = x < 0
    # k = round(x / ln2) above 0.5 ln2 (+-1 below 1.5 ln2), else 0, which leaves x and c 0
    k = np.trunc(_INVLN2 * x + _where(neg, -_HALF, _HALF)).astype(np.int32)
    k = _where(hx < 0x3F851592, _where(neg, np.int32(-1), np.int32(1)), k)
    k = _where(hx > 0x3eb17218, k, np.int32(0))
    t = k.astype(_F)
    hi = x - t * _LN2_HI
    lo = t * _LN2_LO
    x = hi - lo
    c = (hi - x) - lo
    hfx = _HALF * x
    hxs = x * hfx
    r1 = _ONE + hxs * _nest(hxs, _EXPM1_Q)
    t = _F(3) - r1 * hfx
    e = hxs * ((r1 - t) / (_F(6) - x * t))
    out = x - (x * e - hxs)  # k == 0
    e = x * (e - c) - c
    e -= hxs
    out = _where(k == -1, _HALF * (x - e) - _HALF, out)
    out = _where((k == 1) & (x < _F(-0.25)), -_TWO * (e - (x + _HALF)), out)
    out = _where((k == 1) & ~(x < _F(-0.25)), _ONE + _TWO * (x - e), out)
    scale = np.left_shift(k, 23)
    far = (k <= -2) | (k > 56)
    y = _from_bits(_bits(_ONE - (e - x)) + scale) - _ONE
    out = _where(far, y, out)
    mid = (k >= 2) & (k < 23)
    kk = np.clip(k, 0, 31)
    t = _from_bits(0x3f800000 - (0x1000000 >> kk))
    y = _from_bits(_bits(t - (e - x)) + scale)
    out = _where(mid, y, out)
    high = (k >= 23) & (k <= 56)
    t = _from_bits(np.left_shift(0x7f - k, 23))
    y = (x - (e + t)) + _ONE
    out = _where(high, _from_bits(_bits(y) + scale), out)
    return out.astype(_F)


# tanf: x reduced by sincosf's fast reduction (the remainder in double, split into two
# floats), then a polynomial of degree 27 about 0 or about pi/4
_PIO4, _PIO4LO = _consts(0x3f490fda, 0x33222168)
_TAN_T = _consts(0x3eaaaaab, 0x3e088889, 0x3d5d0dd1, 0x3cb327a4, 0x3c11371f, 0x3b6b6916,
                 0x3abede48, 0x3a1a26c8, 0x398137b9, 0x38a3f445, 0x3895c07a, 0xb79bae5f,
                 0x37d95384)


def tanf(x):
    """glibc's ``tanf`` of float32 ``x`` (from |x| >= 120, where glibc reduces by its 2/pi
    table, the remainder is the double one of NumPy's tan: the exact tangent rounded)."""
    x = np.asarray(x, dtype=_F)
    ix = _bits(x) & 0x7fffffff
    with np.errstate(all="ignore"):
        out = x - x  # inf, NaN

        def below120(v):
            # (up to pi/4 the quadrant is 0 and the remainder x itself, as glibc's own path)
            v = v.astype(np.float64)
            n = ((v * _HPI_INV).astype(np.int32).astype(np.int64) + 0x800000) >> 24
            r = v - n * _HPI
            y0 = r.astype(_F)
            y1 = (r - y0).astype(_F)
            return _kernel_tanf(y0, y1, (1 - ((n & 1) << 1)).astype(np.int32))

        _on(out, ix < 0x42f00000, below120, x)
        large = (ix >= 0x42f00000) & (ix < 0x7f800000)
        if large.any():
            r, n = _reduce_large(x[large])
            y0 = r.astype(_F)
            y1 = (r - y0).astype(_F)
            out[large] = _kernel_tanf(y0, y1, (1 - ((n & 1) << 1)).astype(np.int32))
    return out


# 2/pi's first 192 bits; entry i of the table is its bits 8i + 1 to 8i + 32
_TWO_OVER_PI = int("a2f9836e4e441529fc2757d1f534ddc0db6295993c439041", 16)
_INV_PIO4 = np.array([(_TWO_OVER_PI >> (192 - 8 * (i + 1))) & 0xffffffff for i in range(24)],
                     dtype=np.uint64)
_PI63 = float.fromhex("0x1.921FB54442D18p-62")


def _reduce_large(x):
    """glibc's ``reduce_large`` for float32 |x| >= 120: the remainder of x by pi/2 (a double
    in [-pi/4, pi/4]) and the quadrant, by a 32 x 96 bit product with 2/pi in integers."""
    xi = x.view(np.uint32).astype(np.uint64)
    base = (xi >> np.uint64(26)) & np.uint64(15)
    shift = (xi >> np.uint64(23)) & np.uint64(7)
    m = ((xi & np.uint64(0xffffff)) | np.uint64(0x800000)) << shift
    low32 = np.uint64(0xffffffff)
    res0 = (m * _INV_PIO4[base]) & low32
    res1 = m * _INV_PIO4[base + np.uint64(4)]
    res2 = m * _INV_PIO4[base + np.uint64(8)]
    res0 = (res2 >> np.uint64(32)) | (res0 << np.uint64(32))
    res0 += res1
    n = (res0 + np.uint64(1 << 61)) >> np.uint64(62)
    res0 -= n << np.uint64(62)
    r = res0.view(np.int64).astype(np.float64) * _PI63
    return _where(x < 0, -r, r), n.astype(np.int64)


def _kernel_tanf(x, y, iy):
    """glibc's ``__kernel_tanf``: tan(x + y) for iy 1, -1/tan(x + y) for iy -1."""
    hx = _bits(x)
    ix = hx & 0x7fffffff
    sign = (1 - ((hx >> 30) & 2)).astype(_F)
    far = ix >= 0x3f2ca140
    x = _where(far, _PIO4 - np.abs(x), x)
    x = _where(far, x + (_PIO4LO - _where(hx < 0, -y, y)), x)
    y = _where(far, _F(0), y)
    z = x * x
    w = z * z
    r = _nest(w, _TAN_T[1::2])
    v = z * _nest(w, _TAN_T[2::2])
    s = z * x
    r = y + z * (s * (r + v) + y)
    r += _TAN_T[0] * s
    w = x + r
    fiy = iy.astype(_F)
    out = _where(iy == 1, w, _F(0))
    if (iy != 1).any():
        zz = _from_bits(_bits(w) & np.int32(-0x1000))
        vv = r - (zz - x)
        a = -_ONE / w
        t = _from_bits(_bits(a) & np.int32(-0x1000))
        ss = _ONE + t * zz
        out = _where(iy == 1, out, t + a * (ss + t * vv))
    out = _where(far, sign * (fiy - _TWO * (x - (w * w / (w + fiy) - r))), out)
    tiny_far = far & (np.abs(x) < _F(2.0 ** -13))
    out = _where(tiny_far, (sign * fiy) * (_ONE - (_TWO * fiy) * x), out)
    tiny = ix < 0x39000000
    out = _where(tiny & (iy == 1), x, out)
    out = _where(tiny & (iy != 1), -_ONE / x, out)
    return out.astype(_F)


# lgammaf: below 2 polynomials about 1, the minimum 1.4616 and 2 (less log x below 0.9), up to
# 8 a rational function of the fraction times the product of x's integer steps, above
# Stirling's series; negative x by the reflection log(pi / |x sin(pi x)|) - lgamma(-x)
_LG_A = _consts(0x3d9e233f, 0x3ea51a66, 0x3d89f001, 0x3ca89915, 0x3bf2027e, 0x3b3d6ec6,
                0x3a9c54a1, 0x3a05b634, 0x39679767, 0x38e28445, 0x37d383a2, 0x383c2c75)
_LG_TC, _LG_TF, _LG_TT = _consts(0x3fbb16c3, 0xbdf8cdcd, 0x31e61c52)
_LG_T = _consts(0x3ef7b95e, 0xbe17213c, 0x3d845a15, 0xbd064d47, 0x3c93373d, 0xbc28fcfe,
                0x3bc7e707, 0xbb7177fe, 0x3b141699, 0xbab7f476, 0x3a66f867, 0xba0d3085,
                0x39a57b6b, 0xb9a3f927, 0x39afe9f7)
_LG_U = _consts(0xbd9e233f, 0x3f2200f4, 0x3fba3ae7, 0x3f7a4bb2, 0x3e6a7578, 0x3c5b3c5e)
_LG_V = (_ONE,) + _consts(0x401d2ebe, 0x4008392d, 0x3f44efdf, 0x3dd572af, 0x3b52d5db)
_LG_S = _consts(0xbd9e233f, 0x3e5c245a, 0x3ea6cc7a, 0x3e15dce6, 0x3cda40e4, 0x3af135b4,
                0x3805ff67)
_LG_R = (_ONE,) + _consts(0x3fb22d3b, 0x3f38d0c5, 0x3e300f6e, 0x3c98bf54, 0x3a4beed6,
                          0x36f5d7bd)
_LG_W = _consts(0x3ed67f1d, 0x3daaaaab, 0xbb360b61, 0x3a500cfd, 0xba1c065c, 0x3a5b3dd2,
                0xbad5c4e8)


def lgammaf(x):
    """glibc's ``lgammaf`` of float32 ``x``."""
    x = np.asarray(x, dtype=_F)
    hx = _bits(x)
    ix = hx & 0x7fffffff
    ax = np.abs(x)
    logf = _ef()._logf
    with np.errstate(all="ignore"):
        out = _lgamma_positive(ax, ix)
        neg = (hx < 0) & (ix < 0x4b000000)
        if neg.any():
            xn = x[neg]
            t = _sin_pif(xn)
            adj = logf(_PI / np.abs(t * xn)) - out[neg]
            adj[t == 0] = np.inf
            out[neg] = adj
        negf = (hx < 0) & (ix > 0x40000000) & (ix < 0x41700000)
        _on(out, negf, _lgamma_negf, x)
        out[(hx < 0) & (ix >= 0x4b000000)] = np.inf
        tiny = ix < 0x30800000
        out[tiny] = -logf(ax[tiny])
        out[ix == 0] = np.inf
        special = ix >= 0x7f800000
        out[special] = (x * x)[special]
    return out


def _lgamma_positive(x, ix):
    """lgammaf's value for |x| (``ix`` its bits), finite."""
    logf = _ef()._logf
    out = np.zeros_like(x)

    def below2(v, iv):
        low = iv <= 0x3f666666
        r = _where(low, -logf(v), _F(0))
        case = _where(low, _select([iv >= 0x3f3b4a20, iv >= 0x3e6d3308], [0, 1], 2),
                      _select([iv >= 0x3fdda618, iv >= 0x3F9da620], [0, 1], 2))
        y = _where(low, _select([case == 0, case == 1], [_ONE - v, v - (_LG_TC - _ONE)], v),
                   _select([case == 0, case == 1], [_TWO - v, v - _LG_TC], v - _ONE))
        z = y * y
        p1 = _nest(z, _LG_A[0::2])
        p2 = z * _nest(z, _LG_A[1::2])
        r0 = r + ((y * p1 + p2) - _HALF * y)
        w = z * y
        q1 = _nest(w, _LG_T[0::3])
        q2 = _nest(w, _LG_T[1::3])
        q3 = _nest(w, _LG_T[2::3])
        r1 = r + (_LG_TF + (z * q1 - (_LG_TT - w * (q2 + y * q3))))
        r2 = r + (-_HALF * y + (y * _nest(y, _LG_U)) / _nest(y, _LG_V))
        return _select([case == 0, case == 1], [r0, r1], r2)

    def below8(v):
        i = v.astype(np.int32)
        y = v - i.astype(_F)
        p = y * _nest(y, _LG_S)
        q = _nest(y, _LG_R)
        r = _HALF * y + p / q
        z = np.ones_like(y)
        for step in (6, 5, 4, 3, 2):  # (i - 1) ... 2 times, highest first
            z = _where(i > step, z * (y + _F(step)), z)
        return _where(i >= 3, r + logf(z), r)

    def stirling(v):
        t = logf(v)
        z = _ONE / v
        y = z * z
        w = _LG_W[0] + z * _nest(y, _LG_W[1:])
        return (v - _HALF) * (t - _ONE) + w

    _on(out, (ix < 0x40000000) & (ix != 0x3f800000), below2, x, ix)
    _on(out, (ix > 0x40000000) & (ix < 0x41000000), below8, x)
    _on(out, (ix >= 0x41000000) & (ix < 0x4c800000), stirling, x)
    huge = (ix >= 0x4c800000) & (ix < 0x7f800000)
    out[huge] = x[huge] * (logf(x[huge]) - _ONE)
    return out


# lgamma_negf (-15 < x < -2): expansions about the zeros x0 of lgamma, one in each half-integer
# interval (hi and lo parts); between -3 and -2 polynomials in x - (interval midpoint)
_LGN_ZEROS = np.array([[float.fromhex(h) for h in pair.split()] for pair in (
    "-0x2.74ff94p+0 0x1.3fe0f2p-24", "-0x2.bf682p+0 -0x1.437b2p-24", "-0x3.24c1b8p+0 0x6.c34cap-28",
    "-0x3.f48e2cp+0 0x1.707a04p-24", "-0x4.0a13ap+0 0x1.e99aap-24", "-0x4.fdd5ep+0 0x1.64454p-24",
    "-0x5.021a98p+0 0x2.03d248p-24", "-0x5.ffa4cp+0 0x2.9b82fcp-24",
    "-0x6.005ac8p+0 -0x1.625f24p-24", "-0x6.fff3p+0 0x2.251e44p-24", "-0x7.000dp+0 0x8.48078p-28",
    "-0x7.fffe6p+0 0x1.fa98c4p-28", "-0x8.0001ap+0 -0x1.459fcap-28",
    "-0x8.ffffdp+0 -0x1.c425e8p-24", "-0x9.00003p+0 0x1.c44b82p-24", "-0xap+0 0x4.9f942p-24",
    "-0xap+0 -0x4.9f93b8p-24", "-0xbp+0 0x6.b9916p-28", "-0xbp+0 -0x6.b9915p-28",
    "-0xcp+0 0x8.f76c8p-32", "-0xcp+0 -0x8.f76c7p-32", "-0xdp+0 0xb.09231p-36",
    "-0xdp+0 -0xb.09231p-36", "-0xep+0 0xc.9cba5p-40", "-0xep+0 -0xc.9cba5p-40",
    "-0xfp+0 0xd.73f9fp-44")], dtype=_F)
_LGN_E_HI, _LGN_E_LO = _F(float.fromhex("0x2.b7e15p+0")), _F(float.fromhex("0x1.628aeep-24"))
_LGN_STIRLING = tuple(_F(float.fromhex(h)) for h in ("0x1.555556p-4", "-0xb.60b61p-12",
                                                     "0x3.403404p-12"))
# by interval of [-3, -2] (eighths, from -2 down), constant term first
_LGN_POLY = tuple(tuple(_F(float.fromhex(h)) for h in c.split()) for c in (
    "-0x1.0b71c6p+0 -0xc.73a1ep-4 -0x1.ec8462p-4 -0xe.37b93p-4 -0x1.02ed36p-4 -0xe.cbe26p-4",
    "-0xf.29309p-4 -0xc.a5cfep-4 0x3.9c93fcp-4 -0x1.02a2fp+0 0x9.896bep-4 -0x1.519704p+0",
    "-0xd.7d28dp-4 -0xe.6964cp-4 0xb.0d4f1p-4 -0x1.9240aep+0 0x1.dadabap+0 -0x3.1778c4p+0",
    ("-0xb.74ea2p-4 -0x1.2a82cp+0 0x1.880234p+0 -0x3.320c4p+0 0x5.572a38p+0 -0x9.f92bap+0 "
     "0x1.1c347ep+4"),
    ("-0x3.d10108p-4 0x1.cd5584p+0 0x3.819c24p+0 0x6.84cbb8p+0 0xb.bf269p+0 0x1.57fb12p+4 "
     "0x2.7b9854p+4"),
    ("-0x6.b5d25p-4 0x1.28d604p+0 0x1.db6526p+0 0x2.e20b38p+0 0x4.44c378p+0 0x6.62a08p+0 "
     "0x9.6db3ap+0"),
    "-0x8.a41b2p-4 0xc.da87fp-4 0x1.147312p+0 0x1.7617dap+0 0x1.d6c13p+0 0x2.57a358p+0",
    "-0xa.046d6p-4 0x9.70b89p-4 0xa.a89a6p-4 0xd.2f2d8p-4 0xd.e32b4p-4 0xf.fb741p-4"))


def _lg_sinpi(v):
    return _where(v <= _F(0.25), sincosf(_PI * v)[0], sincosf(_PI * (_HALF - v))[1])


def _lg_cospi(v):
    return _where(v <= _F(0.25), sincosf(_PI * v)[1], sincosf(_PI * (_HALF - v))[0])


def _lgamma_negf(x):
    """glibc's ``lgamma_negf``: lgammaf for -15 < x < -2 (+inf at the integers)."""
    i = np.floor(_F(-2) * x).astype(np.int32)
    even = (i & 1) == 0
    pole = even & (i.astype(_F) == _F(-2) * x)
    xn = _where(even, -i // 2, (-i - 1) // 2).astype(_F)
    i = np.clip(i - 4, 0, 25)
    x0_hi, x0_lo = _LGN_ZEROS[i, 0], _LGN_ZEROS[i, 1]
    xdiff = x - x0_hi - x0_lo
    # log(sinpi(x0) / sinpi(x)), by log or (x0 nearer its integer) log1p
    x_idiff = np.abs(xn - x)
    x0_idiff = np.abs(xn - x0_hi - x0_lo)
    by_log = _ef()._logf(_lg_sinpi(x0_idiff) / _lg_sinpi(x_idiff))
    x0diff2 = _where((i & 1) == 0, xdiff, -xdiff) * _HALF
    sx0d2 = _lg_sinpi(x0diff2)
    cx0d2 = _lg_cospi(x0diff2)
    cot = _lg_cospi(x_idiff) / _lg_sinpi(x_idiff)
    by_log1p = log1pf(_TWO * sx0d2 * (-sx0d2 + cx0d2 * cot))
    log_sinpi_ratio = _where(x0_idiff < x_idiff * _HALF, by_log, by_log1p)
    # log(gamma(1 - x0) / gamma(1 - x)) by Stirling's approximation
    y0 = _ONE - x0_hi
    y0_eps = -x0_hi + (_ONE - y0) - x0_lo
    y = _ONE - x
    y_eps = -x + (_ONE - y)
    high = (xdiff * log1pf((y0 - _LGN_E_HI - _LGN_E_LO + y0_eps) / _LGN_E_HI)
            + (y - _HALF + y_eps) * log1pf(xdiff / y))
    y0r, yr = _ONE / y0, _ONE / y
    y0r2, yr2 = y0r * y0r, yr * yr
    rdiff = -xdiff / (y * y0)
    dlast, elast = rdiff, rdiff * yr * (yr + y0r)
    terms = [dlast * _LGN_STIRLING[0]]
    for c in _LGN_STIRLING[1:]:
        dnext = dlast * y0r2 + elast
        elast = elast * yr2
        terms.append(dnext * c)
        dlast = dnext
    low = np.zeros_like(x)
    for t in terms[::-1]:
        low = low + t
    out = log_sinpi_ratio + (high + low)
    # -3 < x < -2: log1p(g (x - x0) / (x - xn)), g a polynomial by eighth of the interval
    near = i < 2
    if near.any():
        xs = x[near]
        j = np.clip(np.floor(_F(-8) * xs).astype(np.int32) - 16, 0, 7)
        x_adj = xs - (-33 - 2 * j).astype(_F) * _F(0.0625)
        g = np.zeros_like(xs)
        for k, coeffs in enumerate(_LGN_POLY):
            at = j == k
            if at.any():
                v = x_adj[at]
                acc = np.full_like(v, coeffs[-1])
                for c in coeffs[-2::-1]:
                    acc = acc * v + c
                g[at] = acc
        out[near] = log1pf(g * xdiff[near] / (xs - xn[near]))
    out[pole] = np.inf
    return out


def _sin_pif(x):
    """sin(pi x) for negative non-integer float32 ``x`` as lgammaf computes it (by its
    octant of |x| mod 2, glibc's sinf and cosf), negated; 0 at integers."""
    ix = _bits(x) & 0x7fffffff
    y = -x
    z = np.floor(y)
    frac = _TWO * (y * _HALF - np.floor(y * _HALF))
    n = (frac * _F(4)).astype(np.int32)
    arg = _select([n == 0, n <= 2, n <= 4, n <= 6],
                    [_PI * frac, _PI * (_HALF - frac), _PI * (_ONE - frac),
                     _PI * (frac - _F(1.5))], _PI * (frac - _TWO))
    sin, cos = sincosf(arg)
    val = _select([n == 0, n <= 2, n <= 4, n <= 6], [sin, cos, sin, -cos], sin)
    small = ix < 0x3e800000
    if small.any():
        val[small] = sincosf(_PI * x[small])[0]
    out = _where(small, val, -val)
    out[(z == y) & ~small] = 0
    return out.astype(_F)


def _decimal(*literals):
    return tuple(_F(float(v)) for v in literals)


# asinf: x + x^3 p(x^2) below 0.5, above from sqrt((1 - |x|) / 2) (its leading bits split off
# below 0.975); Moshier's polynomial
_ASIN_P = _decimal("1.666675248e-1", "7.495297643e-2", "4.547037598e-2", "2.417951451e-2",
                   "4.216630880e-2")
_ASIN_PIO2_HI, _ASIN_PIO2_LO, _ASIN_PIO4_HI = _decimal(
    "1.57079637050628662109375", "-4.37113900018624283e-8", "0.785398185253143310546875")


def asinf(x):
    """glibc's ``asinf`` of float32 ``x``."""
    x = np.asarray(x, dtype=_F)
    hx = _bits(x)
    ix = hx & 0x7fffffff
    with np.errstate(all="ignore"):
        out = (x - x) / (x - x)  # |x| > 1, NaN
        small = (ix < 0x3f000000) & (ix >= 0x32000000)

        def below_half(v):
            t = v * v
            return v + v * (t * _nest(t, _ASIN_P))

        _on(out, small, below_half, x)
        tiny = ix < 0x32000000
        out[tiny] = x[tiny]
        big = (ix >= 0x3f000000) & (ix < 0x3f800000)
        _on(out, big, _asinf_big, x, ix)
        one = ix == 0x3f800000
        out[one] = (x * _ASIN_PIO2_HI + x * _ASIN_PIO2_LO)[one]
    return out


def _asinf_big(x, ix):
    w = _ONE - np.abs(x)
    t = w * _HALF
    p = t * _nest(t, _ASIN_P)
    s = np.sqrt(t)
    near_one = _ASIN_PIO2_HI - (_TWO * (s + s * p) - _ASIN_PIO2_LO)
    w = _from_bits(_bits(s) & np.int32(-0x1000))
    c = (t - w * w) / (s + w)
    p2 = _TWO * s * p - (_ASIN_PIO2_LO - _TWO * c)
    q = _ASIN_PIO4_HI - _TWO * w
    other = _ASIN_PIO4_HI - (p2 - q)
    t = _where(ix >= 0x3F79999A, near_one, other)
    return _where(x > 0, t, -t)


# acosf: fdlibm's rational function of x^2 (or of (1 -+ x) / 2, with its square root)
_ACOS_PI, _ACOS_PIO2_HI, _ACOS_PIO2_LO = _consts(0x40490fda, 0x3fc90fda, 0x33a22168)
_ACOS_PS = _consts(0x3e2aaaab, 0xbea6b090, 0x3e4e0aa8, 0xbd241146, 0x3a4f7f04, 0x3811ef08)
_ACOS_QS = (_ONE,) + _consts(0xc019d139, 0x4001572d, 0xbf303361, 0x3d9dc62e)


def _acos_r(z):
    return (z * _nest(z, _ACOS_PS)) / _nest(z, _ACOS_QS)


def acosf(x):
    """glibc's ``acosf`` of float32 ``x``."""
    x = np.asarray(x, dtype=_F)
    hx = _bits(x)
    ix = hx & 0x7fffffff
    with np.errstate(all="ignore"):
        out = (x - x) / (x - x)  # |x| > 1, NaN
        small = ix < 0x3f000000
        _on(out, small, lambda v: _ACOS_PIO2_HI - (v - (_ACOS_PIO2_LO - v * _acos_r(v * v))),
            x)
        out[ix <= 0x32800000] = _ACOS_PIO2_HI + _ACOS_PIO2_LO

        def below(v):
            z = (_ONE + v) * _HALF
            s = np.sqrt(z)
            return _ACOS_PI - _TWO * (s + (_acos_r(z) * s - _ACOS_PIO2_LO))

        def above(v):
            z = (_ONE - v) * _HALF
            s = np.sqrt(z)
            df = _from_bits(_bits(s) & np.int32(-0x1000))
            c = (z - df * df) / (s + df)
            return _TWO * (df + (_acos_r(z) * s + c))

        mid = (ix >= 0x3f000000) & (ix < 0x3f800000)
        _on(out, mid & (hx < 0), below, x)
        _on(out, mid & (hx >= 0), above, x)
        out[hx == 0x3f800000] = 0
        out[hx == np.int32(np.uint32(0xbf800000))] = _ACOS_PI + _TWO * _ACOS_PIO2_LO
    return out


_SINH_BIG = 0x42b17180  # (log of float's largest, as cosh)


def sinhf(x):
    """glibc's ``sinhf`` of float32 ``x``."""
    x = np.asarray(x, dtype=_F)
    ix = _bits(x) & 0x7fffffff
    a = np.abs(x)
    h = _where(x < 0, -_HALF, _HALF).astype(_F)
    expf = _ef()._expf
    with np.errstate(all="ignore"):
        out = x * _F(1e37)  # overflow, inf, NaN
        low = (ix < 0x41b00000) & (ix >= 0x31800000)

        def below22(v, hv, iv):
            t = expm1f(v)
            return _where(iv < 0x3f800000, hv * (_TWO * t - t * t / (t + _ONE)),
                          hv * (t + t / (t + _ONE)))

        _on(out, low, below22, a, h, ix)
        tiny = ix < 0x31800000
        out[tiny] = x[tiny]
        mid = (ix >= 0x41b00000) & (ix < _SINH_BIG)
        _on(out, mid, lambda v, hv: hv * expf(v), a, h)
        top = (ix >= _SINH_BIG) & (ix <= 0x42b2d4fc)
        if top.any():
            w = expf(_HALF * a[top])
            out[top] = (h[top] * w) * w
    return out


def coshf(x):
    """glibc's ``coshf`` of float32 ``x``."""
    x = np.asarray(x, dtype=_F)
    ix = _bits(x) & 0x7fffffff
    a = np.abs(x)
    expf = _ef()._expf
    with np.errstate(all="ignore"):
        out = _where(ix >= 0x7f800000, x * x, _F(np.inf))  # inf, NaN; overflow
        low = (ix < 0x3eb17218) & (ix >= 0x24000000)

        def near_zero(v):
            t = expm1f(v)
            w = _ONE + t
            return _ONE + (t * t) / (w + w)

        def below22(v):
            t = expf(v)
            return _HALF * t + _HALF / t

        _on(out, low, near_zero, a)
        out = _where(ix < 0x24000000, _ONE, out)
        _on(out, (ix >= 0x3eb17218) & (ix < 0x41b00000), below22, a)
        big = (ix >= 0x41b00000) & (ix < _SINH_BIG)
        _on(out, big, lambda v: _HALF * expf(v), a)
        top = (ix >= _SINH_BIG) & (ix <= 0x42b2d4fc)
        if top.any():
            w = expf(_HALF * a[top])
            out[top] = (_HALF * w) * w
    return out


def _ef():
    return eigen_float32


from tideflow.ops import eigen_float32  # (last: it imports this module)
