"""TF 1.15's float32 tanh and sigmoid as its CPU kernels compute them, bit for bit: Eigen's
fast-math rational approximations, evaluated in float32 with each product and sum rounded
(TF's pip build has AVX but no FMA).

The sigmoid kernel uses the approximation over whole 8-float packets only; the last
``size % 8`` elements take Eigen's scalar path, ``1 / (1 + exp(-x))`` clamped to 0 below -18
and 1 above 18. The approximation itself reaches exactly 0 below about -15.9 (where TF's
sigmoid is 0 and ``log(sigmoid(x))`` is -inf), and tanh is exactly +-1 from +-9."""

import numpy as np

_F = np.float32
_PACKET = 8  # floats in an AVX register

# numerator (odd powers) and denominator (even powers) coefficients, highest power first
_TANH_P = tuple(_F(c) for c in (-2.76076847742355e-16, 2.00018790482477e-13,
                                -8.60467152213735e-11, 5.12229709037114e-08,
                                1.48572235717979e-05, 6.37261928875436e-04,
                                4.89352455891786e-03))
_TANH_Q = tuple(_F(c) for c in (1.19825839466702e-06, 1.18534705686654e-04,
                                2.26843463243900e-03, 4.89352518554385e-03))
_SIGMOID_P = tuple(_F(c) for c in (4.37031012579801e-11, 1.15627324459942e-07,
                                   6.08574864600143e-05, 8.51377133304701e-03,
                                   2.48287947061529e-01))
_SIGMOID_Q = tuple(_F(c) for c in (6.10247389755681e-13, 5.76102136993427e-09,
                                   6.29106785017040e-06, 1.70198817374094e-03,
                                   1.16817656904453e-01, 9.93151921023180e-01))


def _split(x):
    """The flat values and how many of them, at the end, Eigen computes by its scalar path."""
    flat = np.asarray(x, dtype=_F).reshape(-1)
    return flat, flat.size % _PACKET


def _libm(fn, values):
    """A glibc float function, correctly rounded: the float64 result rounded once."""
    with np.errstate(all="ignore"):
        return fn(values.astype(np.float64)).astype(_F)


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
    return _rational(flat_x, _F(9), _TANH_P, _TANH_Q).reshape(np.shape(x))


def sigmoid(x):
    """float32 sigmoid as TF 1.15's kernel (packets, then the scalar tail)."""
    flat_x, tail = _split(x)
    out = _rational(flat_x, _F(18), _SIGMOID_P, _SIGMOID_Q)
    out += _F(0.5)
    np.maximum(out, _F(0), out=out)
    if tail:
        rest = flat_x[-tail:]
        scalar = _F(1) / (_F(1) + _libm(np.exp, -rest))
        scalar[rest < -18] = 0
        scalar[rest > 18] = 1
        out[-tail:] = scalar
    return out.reshape(np.shape(x))


_TINY = np.finfo(_F).tiny
_EXP_P = tuple(_F(c) for c in (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3,
                               4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1))


def _flush_denormals(y):
    """TF's CPU threads flush denormal results to zero."""
    y[np.abs(y) < _TINY] = 0
    return y


def exp(x):
    """float32 exp as TF 1.15's kernel: Cephes' polynomial on 8-float packets (x = m ln 2 + r,
    ln 2 subtracted in two parts), the last ``size % 8`` elements by the C library's expf;
    denormal results flushed to zero."""
    flat_x, tail = _split(x)
    with np.errstate(over="ignore", invalid="ignore"):
        c = np.clip(flat_x, _F(-88.3762626647949), _F(88.3762626647950))
        m = c * _F(1.44269504088896341)
        m += _F(0.5)
        np.floor(m, out=m)
        r = c - m * _F(0.693359375)
        r -= m * _F(-2.12194440e-4)
        y = _horner(r, _EXP_P)
        y *= r * r
        y += r
        y += _F(1)
        m += _F(127)
        scale = (m.astype(np.int32) << 23).view(_F)
        y *= scale
        np.maximum(y, flat_x, out=y)
    if tail:
        y[-tail:] = _libm(np.exp, flat_x[-tail:])
    return _flush_denormals(y).reshape(np.shape(x))


_LOG_P = tuple(_F(c) for c in (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1,
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
    e -= _F(126)
    m = ((bits & _MANTISSA_AND_SIGN) | _HALF_EXPONENT).view(_F)
    small = m < _F(0.707106781186547524)
    m -= _F(1)
    e -= small
    m += np.where(small, m + _F(1), _F(0))
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
    y += e * _F(-2.12194440e-4)
    m -= m2 * _F(0.5)
    m += y
    m += e * _F(0.693359375)
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
        y[-tail:] = _libm(np.log, flat[-tail:])
    return y.reshape(np.shape(x))


def log1p(x):
    """float32 log1p as TF 1.15's kernel: on packets x * log(u) / (u - 1) with u = 1 + x (x
    itself where u rounds to 1 or to inf), log1pf on the tail."""
    flat, tail = _split(x)
    with np.errstate(invalid="ignore", divide="ignore"):
        u = flat + _F(1)
        log_u = _packet_log(u)
        y = log_u / (u - _F(1))
        y *= flat
        keep = (u == _F(1)) | (u == log_u)
        y[keep] = flat[keep]
    if tail:
        y[-tail:] = _libm(np.log1p, flat[-tail:])
    return y.reshape(np.shape(x))


def expm1_select(x):
    """exp(x) - 1 as TF 1.15's elu and selu kernels compute it (not an expm1)."""
    y = exp(x)
    y -= _F(1)
    return y


def softplus(x):
    """float32 softplus as TF 1.15's kernel: x above -log(eps) - 2, exp(x) below log(eps) + 2,
    else log(1 + exp(x)) (a rounded 1 + e: not an accurate log1p), by Eigen's packet or
    scalar path."""
    flat, tail = _split(x)
    e = exp(flat)
    with np.errstate(invalid="ignore", divide="ignore"):
        mid = _packet_log(e + _F(1))
        if tail:  # (the scalar path: logf(1 + expf(x)))
            mid[-tail:] = _libm(np.log, e[-tail:] + _F(1))
    threshold = _F(np.log(np.finfo(_F).eps)) + _F(2)
    y = np.where(flat > -threshold, flat, np.where(flat < threshold, e, mid))
    return y.reshape(np.shape(x))


def row_sum(a):
    """Each row's sum as Eigen reduces a tensor's inner-most dimension: eight lane sums over
    the row's whole packets, a scalar sum of the rest, then the rest plus the lanes added
    pairwise ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7))."""
    rows, n = a.shape
    whole = n - n % _PACKET
    # NumPy adds the packets of a [rows, k, 8] view one after another (its contiguous axis is
    # the lanes', so no pairwise summation); + 0 as Eigen's accumulators start at zero
    lanes = a[:, :whole].reshape(rows, -1, _PACKET).sum(axis=1) if whole else np.zeros(
        (rows, _PACKET), _F)
    lanes += _F(0)
    rest = np.zeros(rows, _F)
    for j in range(whole, n):
        rest += a[:, j]
    half = lanes[:, :4] + lanes[:, 4:]
    rest += (half[:, 0] + half[:, 2]) + (half[:, 1] + half[:, 3])
    return rest


# a full reduction of up to this many floats runs on one thread in TF (the rest split by
# TF's cost model across the machine's cores, which no port can follow)
FULL_REDUCTION_ONE_THREAD = 8192


def softmax(logits, log_softmax=False):
    """float32 (log-)softmax over the last axis as TF 1.15's kernel: exp of the logits less
    each row's max, times the inverse of the row's sum (log: less the log of that sum)."""
    x = np.asarray(logits, dtype=_F)
    flat = x.reshape(-1, x.shape[-1])
    shifted = flat - flat.max(axis=1, keepdims=True)
    e = exp(shifted)
    if log_softmax:
        out = shifted - log(row_sum(e))[:, None]
    else:
        out = e * (_F(1) / row_sum(e))[:, None]
        _flush_denormals(out)
    return out.reshape(x.shape)

