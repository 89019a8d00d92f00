"""TF 1.15's float32 tanh and sigmoid as its CPU kernels compute them, bit for bit: Eigen's
fast-math rational approximations, evaluated in float32 with each product and sum rounded
(TF's pip build has AVX but no FMA).

The sigmoid kernel uses the approximation over whole 8-float packets only; the last
``size % 8`` elements take Eigen's scalar path, ``1 / (1 + exp(-x))`` clamped to 0 below -18
and 1 above 18. The approximation itself reaches exactly 0 below about -15.9 (where TF's
sigmoid is 0 and ``log(sigmoid(x))`` is -inf), and tanh is exactly +-1 from +-9.

Which elements take the scalar path depends on how Eigen walks the expression: a plain
element-wise op on whole 8-float packets of the flat tensor (the tail scalar); an op inside
an inner-dimension reduction on each row's packets (each row's tail scalar); an expression
holding a broadcast in blocks of whole rows (TF's tiled executor; see ``eigen_softmax``). The
scalar ``expf`` and ``logf`` are glibc's (2.28 on), reproduced here bit for bit: not the
correctly rounded values."""

import functools

import numpy as np

from tideflow.ops import glibc_float32

_F = np.float32
_PACKET = 8  # floats in an AVX register


@functools.cache
def _k(value):
    """A float32 constant as a read-only 0-d array: NumPy's ufuncs take one at half the cost
    of an ``np.float32`` scalar (no scalar conversion per call), with the same bits."""
    c = np.array(value, _F)
    c.flags.writeable = False
    return c


def _d(value):
    """A float64 constant as a read-only 0-d array (as ``_k``)."""
    c = np.array(value, np.float64)
    c.flags.writeable = False
    return c


# numerator (odd powers) and denominator (even powers) coefficients, highest power first
_TANH_P = tuple(_k(c) for c in (-2.76076847742355e-16, 2.00018790482477e-13,
                                -8.60467152213735e-11, 5.12229709037114e-08,
                                1.48572235717979e-05, 6.37261928875436e-04,
                                4.89352455891786e-03))
_TANH_Q = tuple(_k(c) for c in (1.19825839466702e-06, 1.18534705686654e-04,
                                2.26843463243900e-03, 4.89352518554385e-03))
_SIGMOID_P = tuple(_k(c) for c in (4.37031012579801e-11, 1.15627324459942e-07,
                                   6.08574864600143e-05, 8.51377133304701e-03,
                                   2.48287947061529e-01))
_SIGMOID_Q = tuple(_k(c) for c in (6.10247389755681e-13, 5.76102136993427e-09,
                                   6.29106785017040e-06, 1.70198817374094e-03,
                                   1.16817656904453e-01, 9.93151921023180e-01))


def _split(x):
    """The flat values and how many of them, at the end, Eigen computes by its scalar path."""
    flat = np.asarray(x, dtype=_F).reshape(-1)
    return flat, flat.size % _PACKET


# glibc's expf: e^x = 2^(k/32) 2^(r/32) in double, 2^(i/32) from a 32-entry table (each
# entry's bits less i << 47, so adding k << 47 scales it), a cubic in r
_EXPF_TABLE = (np.exp2(np.arange(32) / 32).view(np.int64) - (np.arange(32, dtype=np.int64) << 47))
_EXPF_POLY = (_d(float.fromhex("0x1.c6af84b912394p-5") / 32 ** 3),
              _d(float.fromhex("0x1.ebfce50fac4f3p-3") / 32 ** 2),
              _d(float.fromhex("0x1.62e42ff0c52d6p-1") / 32))
_EXPF_SCALE = _d(float.fromhex("0x1.71547652b82fep+0") * 32)  # 32 / ln 2
_ROUND_SHIFT = _d(float.fromhex("0x1.8p+52"))
_ONE = _d(1)
_INDEX_MASK = np.array(31, np.int64)
_INDEX_SHIFT = np.array(47, np.int64)


def _expf(x, nonpositive=False):
    """glibc's float ``expf`` on each element (what Eigen's scalar path calls): overflow to inf
    above 88.72, 0 below -103.97. ``nonpositive``: no element is above 0 (shifted logits)."""
    x = np.asarray(x, dtype=_F)
    if not x.size:
        return x.copy()
    if not (_k(-103.9) < x.min() if nonpositive else
            _k(-103.9) < x.min() <= x.max() < _k(88.7)):  # (NaN too): the edges by mask
        with np.errstate(all="ignore"):
            out = _expf(np.clip(np.nan_to_num(x), _k(-100), _k(88)))
        out[x > _F(float.fromhex("0x1.62e42ep6"))] = np.inf
        out[x < _F(float.fromhex("-0x1.9fe368p6"))] = 0
        big = (x >= _k(88)) & (x <= _F(float.fromhex("0x1.62e42ep6")))
        out[big] = _expf_core(x[big]).astype(_F) if big.any() else out[big]
        small = (x <= _k(-100)) & (x >= _F(float.fromhex("-0x1.9fe368p6")))
        out[small] = _expf_core(x[small]).astype(_F) if small.any() else out[small]
        out[np.isnan(x)] = np.nan
        return out
    if x.size > 32:  # (some element is likely near a halfway point: all by its arithmetic)
        return _expf_core(x).astype(_F)
    # expf's double result is within 2^-33 (relative) of e^x, so it rounds as e^x does but
    # where e^x lies that near a halfway point: only those take its arithmetic
    y = x.astype(np.float64)
    np.exp(y, out=y)
    out = (y * _NEAR_ABOVE).astype(_F)
    y *= _NEAR_BELOW
    near = out != y.astype(_F)
    if near.any():
        out[near] = _expf_core(x[near]).astype(_F)
    return out


_NEAR_ABOVE = 1 + 2.0 ** -31
_NEAR_BELOW = 1 - 2.0 ** -31


def _expf_core(x):
    """``expf`` before its rounding to float, in double, for finite x in its range."""
    z = x.astype(np.float64)
    z *= _EXPF_SCALE
    kd = z + _ROUND_SHIFT  # z rounded to an integer, in the low bits
    ki = kd.view(np.int64)
    scale = _EXPF_TABLE[ki & _INDEX_MASK]
    scale += ki << _INDEX_SHIFT
    kd -= _ROUND_SHIFT
    z -= kd  # r
    c0, c1, c2 = _EXPF_POLY
    y = z * c2
    y += _ONE
    r2 = z * z
    z *= c0
    z += c1
    z *= r2
    y += z
    y *= scale.view(np.float64)
    return y


# glibc's logf: x = 2^k z, log(z) = log(c) + log1p(z/c - 1) with 1/c and log(c) from a
# 16-entry table by z's leading mantissa bits, a cubic for log1p
_LOGF_TABLE = np.array([float.fromhex(h) for h in (
    "0x1.661ec79f8f3bep+0", "-0x1.57bf7808caadep-2", "0x1.571ed4aaf883dp+0", "-0x1.2bef0a7c06ddbp-2",
    "0x1.49539f0f010bp+0", "-0x1.01eae7f513a67p-2", "0x1.3c995b0b80385p+0", "-0x1.b31d8a68224e9p-3",
    "0x1.30d190c8864a5p+0", "-0x1.6574f0ac07758p-3", "0x1.25e227b0b8eap+0", "-0x1.1aa2bc79c81p-3",
    "0x1.1bb4a4a1a343fp+0", "-0x1.a4e76ce8c0e5ep-4", "0x1.12358f08ae5bap+0", "-0x1.1973c5a611cccp-4",
    "0x1.0953f419900a7p+0", "-0x1.252f438e10c1ep-5", "0x1p+0", "0x0p+0",
    "0x1.e608cfd9a47acp-1", "0x1.aa5aa5df25984p-5", "0x1.ca4b31f026aap-1", "0x1.c5e53aa362eb4p-4",
    "0x1.b2036576afce6p-1", "0x1.526e57720db08p-3", "0x1.9c2d163a1aa2dp-1", "0x1.bc2860d22477p-3",
    "0x1.886e6037841edp-1", "0x1.1058bc8a07ee1p-2", "0x1.767dcf5534862p-1", "0x1.4043057b6ee09p-2",
)]).reshape(16, 2)
_LOGF_POLY = tuple(_d(float.fromhex(h)) for h in (
    "-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2", "-0x1.ffffef20a4123p-2"))
_LN2 = _d(float.fromhex("0x1.62e42fefa39efp-1"))
_LOGF_OFFSET = np.array(0x3f330000, np.int32)
_EXPONENT_BITS = np.array(-0x800000, np.int32)  # and the sign's
_I15, _I19, _I23 = (np.array(v, np.int32) for v in (15, 19, 23))


def _logf(x):
    """glibc's float ``logf`` on each element (what Eigen's scalar path calls); 0 gives -inf,
    inf itself, negatives and NaN NaN, subnormals normalized first."""
    x = np.asarray(x, dtype=_F)
    ix = x.view(np.int32)
    if not x.size or 0x00800000 <= ix.min() <= ix.max() < 0x7f800000:  # all normal, > 0
        return _logf_core(ix)
    sub = (ix > 0) & (ix < 0x00800000)
    ix = ix.copy()
    ix[sub] = (x[sub] * _F(2.0 ** 23)).view(np.int32) - (23 << 23)
    with np.errstate(invalid="ignore"):
        out = _logf_core(ix)
    out[x == 0] = -np.inf
    out[x == np.inf] = np.inf
    out[~(x >= 0)] = np.nan
    return out


def _logf_core(ix):
    """``logf`` of the float bits ``ix`` (normal, positive)."""
    tmp = ix - _LOGF_OFFSET
    row = _LOGF_TABLE[(tmp >> _I19) & _I15]
    z = (ix - (tmp & _EXPONENT_BITS)).view(_F).astype(np.float64)
    z *= row[:, 0]
    z -= _ONE  # r
    y0 = (tmp >> _I23).astype(np.float64)
    y0 *= _LN2
    y0 += row[:, 1]
    y0 += z
    a0, a1, a2 = _LOGF_POLY
    r2 = z * z
    z *= a1
    z += a2
    z += r2 * a0
    z *= r2
    z += y0
    return z.astype(_F)


# glibc's powf: 2^(y log2 x) in double, log2 from a table of 16 (1/c, log2 c) by z's leading
# mantissa bits (the 1/c of logf's table) and a quintic, exp2 from expf's table and a cubic
_POWF_LOG2C = np.array([float.fromhex(h) for h in (
    "-0x1.efec65b963019p-2", "-0x1.b0b6832d4fca4p-2", "-0x1.7418b0a1fb77bp-2",
    "-0x1.39de91a6dcf7bp-2", "-0x1.01d9bf3f2b631p-2", "-0x1.97c1d1b3b7afp-3",
    "-0x1.2f9e393af3c9fp-3", "-0x1.960cbbf788d5cp-4", "-0x1.a6f9db6475fcep-5", "0x0p+0",
    "0x1.338ca9f24f53dp-4", "0x1.476a9543891bap-3", "0x1.e840b4ac4e4d2p-3",
    "0x1.40645f0c6651cp-2", "0x1.88e9c2c1b9ff8p-2", "0x1.ce0a44eb17bccp-2")])
_POWF_LOG2_POLY = tuple(float.fromhex(h) for h in (
    "0x1.27616c9496e0bp-2", "-0x1.71969a075c67ap-2", "0x1.ec70a6ca7baddp-2",
    "-0x1.7154748bef6c8p-1", "0x1.71547652ab82bp0"))
_EXP2F_POLY = tuple(float.fromhex(h) for h in (
    "0x1.c6af84b912394p-5", "0x1.ebfce50fac4f3p-3", "0x1.62e42ff0c52d6p-1"))


def _powf_core(ix, y, negative):
    """powf's double arithmetic for x of float bits ``ix`` (positive, normal) and finite
    float ``y``; ``negative`` flips the result's sign (an odd power of a negative x)."""
    tmp = ix - _LOGF_OFFSET
    i = (tmp >> 19) & 15
    top = tmp & np.int32(-0x800000)
    z = (ix - top).view(_F).astype(np.float64)
    z *= _LOGF_TABLE[i, 0]
    z -= 1  # r
    a0, a1, a2, a3, a4 = _POWF_LOG2_POLY
    y0 = (top >> 23).astype(np.float64)
    y0 += _POWF_LOG2C[i]
    r2 = z * z
    p = z * a2
    p += a3
    q = z * a4
    q += y0
    p *= r2
    q += p
    z *= a0
    z += a1
    r2 *= r2
    z *= r2
    z += q  # log2(x)
    z *= y  # (y widens to double)
    ylogx = z
    kd = ylogx + _ROUND_SHIFT / 32
    ki = kd.view(np.int64).copy()
    kd -= _ROUND_SHIFT / 32
    r = ylogx - kd
    scale = _EXPF_TABLE[ki & 31]
    scale += (ki + (negative.astype(np.int64) << 16)) << 47
    c0, c1, c2 = _EXP2F_POLY
    out = r * c0
    out += c1
    out *= r * r
    r *= c2
    r += 1
    out += r
    out *= scale.view(np.float64)
    with np.errstate(over="ignore"):
        res = out.astype(_F)
    res[ylogx > float.fromhex("0x1.fffffffd1d571p+6")] = np.inf
    res[ylogx <= -150.0] = 0
    res[negative & (res == 0)] = -_k(0)
    res[negative & np.isinf(res)] = -np.inf
    return res


def powf(x, y):
    """glibc's float ``powf`` of each pair (what TF 1.15's Pow kernel calls per element),
    denormal results flushed; zeros, infinities, NaNs and negative bases with a fractional
    exponent by C's rules (as double pow gives them)."""
    x, y = np.broadcast_arrays(np.asarray(x, dtype=_F), np.asarray(y, dtype=_F))
    shape = x.shape
    x, y = x.reshape(-1), y.reshape(-1)
    xd = x.astype(np.float64)
    yd = y.astype(np.float64)
    with np.errstate(all="ignore"):
        exact = np.power(xd, yd)
        out = exact.astype(_F)
        # powf's double result is within (|y log2 x| ln 2 * 1.83 + 1) 2^-33 (relative) of
        # x^y: it rounds as x^y does but near a halfway point, where it takes its arithmetic
        np.abs(xd, out=xd)
        np.log2(xd, out=xd)
        xd *= yd
        np.abs(xd, out=xd)
        xd *= 2.6 * 2.0 ** -32
        xd += 2.0 ** -32
        xd *= exact
        near = (exact + xd).astype(_F) != (exact - xd).astype(_F)
    ix = x.view(np.int32) & np.int32(0x7fffffff)
    near &= (ix >= 0x00800000) & (ix < 0x7f800000) & np.isfinite(y) & (y != 0)
    near &= (x > 0) | (np.floor(y) == y)  # (a negative base's fractional power is NaN)
    if near.any():
        ym = y[near]
        odd = (x[near] < 0) & (np.abs(ym) < 2 ** 24) & (np.fmod(ym, _k(2)) != 0)
        out[near] = _powf_core(ix[near], ym, odd)
    return _flush_denormals(out).reshape(shape)


def _horner(v, coeffs):
    """The polynomial of ``coeffs`` (highest power first) at ``v`` by Horner's rule in float32:
    a rounded product, then a rounded sum, at each step (no FMA)."""
    y = v * coeffs[0]
    y += coeffs[1]
    for c in coeffs[2:]:
        y *= v
        y += c
    return y


def _rational(x, bound, p_coeffs, q_coeffs):
    """x * P(x^2) / Q(x^2) for x clamped to [-bound, bound]."""
    x = np.clip(x, -bound, bound, dtype=_F)
    x2 = x * x
    p = _horner(x2, p_coeffs)
    p *= x
    p /= _horner(x2, q_coeffs)
    return p


def tanh(x):
    """float32 tanh as TF 1.15's kernel."""
    flat_x, _ = _split(x)  # (tanh's scalar path is the same approximation)
    return _rational(flat_x, _k(9), _TANH_P, _TANH_Q).reshape(np.shape(x))


def sigmoid(x):
    """float32 sigmoid as TF 1.15's kernel (packets, then the scalar tail)."""
    flat_x, tail = _split(x)
    out = _rational(flat_x, _k(18), _SIGMOID_P, _SIGMOID_Q)
    out += _k(0.5)
    np.maximum(out, _k(0), out=out)
    if tail:
        rest = flat_x[-tail:]
        scalar = _k(1) / (_k(1) + _expf(-rest))
        scalar[rest < -18] = 0
        scalar[rest > 18] = 1
        out[-tail:] = scalar
    return out.reshape(np.shape(x))


_TINY = _k(float(np.finfo(_F).tiny))
_EXP_P = tuple(_k(c) for c in (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3,
                               4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1))


def _flush_denormals(y):
    """TF's CPU threads flush denormal results to zero (of the result's sign)."""
    tiny = np.abs(y) < _TINY
    y[tiny] *= _k(0)
    return y


def exp(x):
    """float32 exp as TF 1.15's kernel: Cephes' polynomial on 8-float packets (x = m ln 2 + r,
    ln 2 subtracted in two parts), the last ``size % 8`` elements by the C library's expf;
    denormal results flushed to zero."""
    flat_x, tail = _split(x)
    y = _packet_exp(flat_x)
    if tail:
        y[-tail:] = _expf(flat_x[-tail:])
    return _flush_denormals(y).reshape(np.shape(x))


def exp_by_rows(x):
    """float32 exp of a matrix as an Eigen expression over each row apart computes it (TF's
    fused contraction output kernels): each row's packets by the packet exp, its last
    ``n % 8`` values by expf; denormal results flushed to zero."""
    x = np.asarray(x, dtype=_F)
    n = x.shape[-1]
    y = _packet_exp(x.reshape(-1)).reshape(x.shape)
    tail = n % _PACKET
    if tail and x.size:
        y[:, n - tail:] = _expf(np.ascontiguousarray(x[:, n - tail:]).reshape(-1)).reshape(
            -1, tail)
    return _flush_denormals(y)


def _packet_exp(flat_x, shifted=False):
    """Eigen's packet exp of each element (no scalar tail, denormals not flushed); for
    ``shifted`` values (none positive) the clamp from above and the final max with x, which
    change nothing there, are skipped."""
    with np.errstate(over="ignore", invalid="ignore"):
        if shifted:
            c = np.maximum(flat_x, _EXP_LO)
        else:
            c = np.clip(flat_x, _EXP_LO, _EXP_HI)
        m = c * _LOG2E
        m += _HALF
        np.floor(m, out=m)
        r = m * _LN2_HI
        np.subtract(c, r, out=r)
        np.multiply(m, _LN2_LO, out=c)  # (c's buffer from here on: a scratch)
        r -= c
        y = _horner(r, _EXP_P)
        np.multiply(r, r, out=c)
        y *= c
        y += r
        y += _ONE_F
        m += _k(127)
        scale = m.astype(np.int32)
        scale <<= _I23
        y *= scale.view(_F)
        if not shifted:
            np.maximum(y, flat_x, out=y)
    return y


_EXP_LO, _EXP_HI = _k(-88.3762626647949), _k(88.3762626647950)
_LOG2E, _HALF, _ONE_F = _k(1.44269504088896341), _k(0.5), _k(1)
_LN2_HI, _LN2_LO = _k(0.693359375), _k(-2.12194440e-4)  # ln 2 in two parts


_LOG_P = tuple(_k(c) for c in (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1,
                               -1.2420140846e-1, 1.4249322787e-1, -1.6668057665e-1,
                               2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1))
_MANTISSA_AND_SIGN = np.int32(-0x7f800001)  # 0x807fffff: all but the exponent bits
_HALF_EXPONENT = np.int32(0x3f000000)


def _packet_log(x):
    """Cephes' log on float32 values (Eigen's packet log): the mantissa in [sqrt(1/2), sqrt(2))
    minus 1 through a degree-8 polynomial evaluated in three parts, plus e * ln 2 in two
    parts; 0 gives -inf, +inf itself, negatives and NaN give NaN."""
    bits = np.maximum(x, _TINY).view(np.int32)
    e = (bits >> 23).astype(_F)
    e -= _k(126)
    m = ((bits & _MANTISSA_AND_SIGN) | _HALF_EXPONENT).view(_F)
    small = m < _k(0.707106781186547524)
    m -= _k(1)
    e -= small
    m += np.where(small, m + _k(1), _k(0))
    m2 = m * m
    m3 = m2 * m
    p = _LOG_P
    y, y1, y2 = m * p[0], m * p[3], m * p[6]
    y += p[1]
    y1 += p[4]
    y2 += p[7]
    y *= m
    y += p[2]
    y1 *= m
    y1 += p[5]
    y2 *= m
    y2 += p[8]
    y *= m3
    y += y1
    y *= m3
    y += y2
    y *= m3
    y += e * _k(-2.12194440e-4)
    m -= m2 * _k(0.5)
    m += y
    m += e * _k(0.693359375)
    m[x == 0] = -np.inf
    m[x == np.inf] = np.inf
    m[~(x >= 0)] = np.nan
    return m


def log(x):
    """float32 log as TF 1.15's kernel (Cephes on packets, logf on the tail)."""
    flat, tail = _split(x)
    with np.errstate(invalid="ignore", divide="ignore"):
        y = _packet_log(flat)
    if tail:
        y[-tail:] = _logf(flat[-tail:])
    return y.reshape(np.shape(x))


def log1p(x):
    """float32 log1p as TF 1.15's kernel: on packets x * log(u) / (u - 1) with u = 1 + x (x
    itself where u rounds to 1 or to inf), log1pf on the tail."""
    flat, tail = _split(x)
    with np.errstate(invalid="ignore", divide="ignore"):
        u = flat + _k(1)
        log_u = _packet_log(u)
        y = log_u / (u - _k(1))
        y *= flat
        keep = (u == _k(1)) | (u == log_u)
        y[keep] = flat[keep]
    if tail:
        y[-tail:] = glibc_float32.log1pf(flat[-tail:])
    return y.reshape(np.shape(x))


def expm1(x):
    """float32 expm1 as TF 1.15's kernel: on packets Kahan's (u - 1) * (x / log(u)) with
    u = exp(x) by Eigen's packet exp and log (x itself where u is 1, -1 where u - 1 is),
    glibc's expm1f on the tail."""
    flat, tail = _split(x)
    u = _flush_denormals(_packet_exp(flat))
    with np.errstate(invalid="ignore", divide="ignore"):
        um1 = u - _k(1)
        log_u = _packet_log(u)
        y = flat / log_u
        y *= um1
        _flush_denormals(y)
        y[log_u == u] = u[log_u == u]
        y[um1 == _k(-1)] = _k(-1)
        one = u == _k(1)
        y[one] = flat[one]  # (a select: x as it came, denormal or not)
    if tail:
        y[-tail:] = _flush_denormals(glibc_float32.expm1f(flat[-tail:]))
    return y.reshape(np.shape(x))


_SIN_POLY = tuple(_k(c) for c in (-0.0001959234114083702898469196984621021329076029360294342041015625,
                                   0.0083326873655616851693794799871284340042620897293090820312500000,
                                   -0.1666666203982298255503735617821803316473960876464843750000000000))
_COS_POLY = tuple(_k(c) for c in (2.4372266125283204019069671630859375e-05,
                                  -0.00138865201734006404876708984375,
                                  0.041666619479656219482421875, -0.5, 1.0))
# pi/2 in four parts, for the reduction without FMA
_HALF_PI_PARTS = tuple(_k(c) for c in (-1.5703125, -0.000483989715576171875,
                                       1.62865035235881805419921875e-07,
                                       5.5644315544167710640977020375430583953857421875e-11))
_ROUNDING_MAGIC = _k(12582912)  # 1.5 * 2^23


# pi / 2 to 100 digits: a float32 up to 2^128 less its nearest multiple of pi/2 keeps ~60
# digits of them (Eigen's Payne-Hanek reduction by 2/pi's bits)
_HALF_PI_DIGITS = ("1.57079632679489661923132169163975144209858469968755291048747229615390820314"
                   "3106480585386512716931")


def _split_half_pi():
    """pi/2 as three doubles, the first two of 26 bits: n times either is exact for n < 2^27."""
    import decimal

    rest, parts = decimal.Decimal(_HALF_PI_DIGITS), []
    for _ in range(2):
        m, e = np.frexp(float(rest))
        part = float(np.ldexp(np.round(np.ldexp(m, 26)), int(e) - 26))
        parts.append(part)
        rest -= decimal.Decimal(part)
    return (*parts, float(rest))


_HALF_PI_3 = _split_half_pi()


def _reduce_exactly(a):
    """(r, quadrant) for |x| values too big for the four-part reduction: x less n * pi/2
    for the nearest integer n, by pi/2 in three doubles below 2^26 (exact products), else
    worked in 100-digit decimals (rare, so per element)."""
    wide = a.astype(np.float64)
    turns = np.rint(wide * (2 / np.pi))
    p1, p2, p3 = _HALF_PI_3
    r = (((wide - turns * p1) - turns * p2) - turns * p3).astype(_F)
    quadrant = turns.astype(np.int64).astype(np.int32) if wide.size else turns.astype(np.int32)
    far = np.flatnonzero(wide >= 2.0 ** 26)
    if far.size:
        r[far], quadrant[far] = _reduce_in_decimals(a[far])
    return r, quadrant


def _reduce_in_decimals(a):
    import decimal

    ctx = decimal.Context(prec=100)
    half_pi = decimal.Decimal(_HALF_PI_DIGITS)
    r = np.empty(a.shape, _F)
    quadrant = np.empty(a.shape, np.int32)
    for i, v in enumerate(a.tolist()):
        d = decimal.Decimal(v)
        n = ctx.divide(d, half_pi).to_integral_value(rounding=decimal.ROUND_HALF_EVEN)
        r[i] = float(ctx.subtract(d, ctx.multiply(n, half_pi)))
        quadrant[i] = int(n) & 3
    return r, quadrant


def _sincos(x, sine):
    """Eigen's packet sin or cos (float32, no FMA): x less its nearest multiple of pi/2 (pi/2
    subtracted in four parts), then the sine or cosine polynomial by the quadrant, the sign
    put in by bits; glibc's sinf/cosf on the tail (glibc_float32.sincosf). Eigen reduces
    |x| from 25966 (sin) or 18838 (cos) with 2/pi's bits: here exactly (_reduce_exactly)."""
    flat, tail = _split(x)
    with np.errstate(invalid="ignore", over="ignore"):
        a = np.abs(flat)
        q = a * _k(0.636619746685028076171875)
        q += _ROUNDING_MAGIC
        quadrant = q.view(np.int32).copy()
        q -= _ROUNDING_MAGIC
        r = a
        for part in _HALF_PI_PARTS:
            r = r + q * part
        huge = (a >= _F(25966 if sine else 18838)) & np.isfinite(a)
        if huge.any():
            r[huge], quadrant[huge] = _reduce_exactly(a[huge])
        if sine:
            sign = flat.view(np.int32) ^ (quadrant << 30)
        else:
            sign = (quadrant + 1) << 30
        sign &= np.int32(-0x80000000)
        x2 = r * r
        c = _horner(x2, _COS_POLY)
        s = _horner(x2, _SIN_POLY)
        s *= x2
        s *= r
        s += r
        even = (quadrant & 1) == 0
        y = np.where(even, s, c) if sine else np.where(even, c, s)
        y = (y.view(np.int32) ^ sign).view(_F)
    if tail:
        y[-tail:] = glibc_float32.sincosf(flat[-tail:])[0 if sine else 1]
    return y.reshape(np.shape(x))


def sin(x):
    """float32 sin as TF 1.15's kernel (Eigen's packet sin, sinf on the tail)."""
    return _sincos(x, True)


def cos(x):
    """float32 cos as TF 1.15's kernel (Eigen's packet cos, cosf on the tail)."""
    return _sincos(x, False)


def expm1_select(x):
    """exp(x) - 1 as TF 1.15's elu and selu kernels compute it (not an expm1)."""
    y = exp(x)
    y -= _k(1)
    return y


def softplus(x):
    """float32 softplus as TF 1.15's kernel: x above -log(eps) - 2, exp(x) below log(eps) + 2,
    else log(1 + exp(x)) (a rounded 1 + e: not an accurate log1p), by Eigen's packet or
    scalar path."""
    flat, tail = _split(x)
    e = exp(flat)
    with np.errstate(invalid="ignore", divide="ignore"):
        mid = _packet_log(e + _k(1))
        if tail:  # (the scalar path: logf(1 + expf(x)))
            mid[-tail:] = _logf(e[-tail:] + _k(1))
    threshold = _F(np.log(np.finfo(_F).eps)) + _k(2)
    y = np.where(flat > -threshold, flat, np.where(flat < threshold, e, mid))
    return y.reshape(np.shape(x))
