"""Vectorized NumPy special functions (erf, erfc, lgamma, digamma, zeta, polygamma) for the math
kernels.

Each takes and returns float64 arrays; callers cast to the op's dtype.
"""

import numpy as np

_TWO_OVER_SQRT_PI = 2.0 / np.sqrt(np.pi)
_INV_SQRT_PI = 1.0 / np.sqrt(np.pi)
_EPS = np.finfo(np.float64).eps
# below this |x| the positive series for erf is used; above, the continued fraction for erfc
_ERF_SPLIT = 2.5


def _erf_series(x):
    """erf(x) = 2/sqrt(pi) exp(-x^2) sum_n 2^n x^(2n+1) / (2n+1)!!: all terms positive."""
    x2 = x * x
    term = x.copy()
    total = x.copy()
    n = 0
    while True:
        n += 1
        term *= 2.0 * x2 / (2 * n + 1)
        total += term
        if n > 200 or np.all(np.abs(term) <= _EPS * np.abs(total)):
            break
    return _TWO_OVER_SQRT_PI * np.exp(-x2) * total


def _erfc_fraction(x):
    """erfc(x) for x >= _ERF_SPLIT by its continued fraction, evaluated from the tail."""
    # erfc(x) = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...)))))
    f = x.copy()
    for k in range(60, 0, -1):
        f = x + (k / 2.0) / f
    return np.exp(-x * x) * _INV_SQRT_PI / f


def erf(x):
    """The Gauss error function, elementwise (float64)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    a = np.abs(x)
    small = a < _ERF_SPLIT
    big = ~small & ~np.isnan(x)
    if small.any():
        out[small] = _erf_series(x[small])
    if big.any():
        out[big] = np.sign(x[big]) * (1.0 - _erfc_fraction(a[big]))
    out[np.isnan(x)] = np.nan
    return out


def erfc(x):
    """The complementary error function, elementwise (float64), accurate in the far tail."""
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    small = np.abs(x) < _ERF_SPLIT
    pos = (x >= _ERF_SPLIT)
    neg = (x <= -_ERF_SPLIT)
    if small.any():
        out[small] = 1.0 - _erf_series(x[small])
    if pos.any():
        out[pos] = _erfc_fraction(x[pos])
    if neg.any():
        out[neg] = 2.0 - _erfc_fraction(-x[neg])
    out[np.isnan(x)] = np.nan
    return out


# Lanczos approximation, g = 7, n = 9 (Godfrey's coefficients)
_LANCZOS_G = 7.0
_LANCZOS = np.array([
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
    1.5056327351493116e-7,
])
_HALF_LOG_TWO_PI = 0.5 * np.log(2.0 * np.pi)


def _lgamma_positive(x):
    """log|Gamma(x)| for x >= 0.5."""
    z = x - 1.0
    a = np.full_like(z, _LANCZOS[0])
    for i in range(1, len(_LANCZOS)):
        a += _LANCZOS[i] / (z + i)
    t = z + _LANCZOS_G + 0.5
    return _HALF_LOG_TWO_PI + (z + 0.5) * np.log(t) - t + np.log(a)


def lgamma(x):
    """log|Gamma(x)|, elementwise (float64); +inf at the poles 0, -1, -2, ..."""
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        right = x >= 0.5
        out[right] = _lgamma_positive(x[right])
        out[(x == 1.0) | (x == 2.0)] = 0.0  # exactly, as libm's lgamma (TF's kernel) gives
        left = ~right & ~np.isnan(x)
        if left.any():
            xl = x[left]
            # reflection: Gamma(x) Gamma(1-x) = pi / sin(pi x); sin via the distance to the
            # nearest integer (it keeps a tiny x's digits: lgamma(-1e-40) is log(1e40))
            frac = xl - np.round(xl)
            s = np.abs(np.sin(np.pi * frac))
            vals = np.log(np.pi / s) - _lgamma_positive(1.0 - xl)
            vals[frac == 0] = np.inf
            out[left] = vals
        out[np.isnan(x)] = np.nan
        out[np.isinf(x)] = np.inf
    return out


# asymptotic series of digamma: B_2k / (2k) coefficients of x^(-2k)
_DIGAMMA_ASYM = (1.0 / 12, -1.0 / 120, 1.0 / 252, -1.0 / 240, 1.0 / 132, -691.0 / 32760,
                 1.0 / 12)


def digamma(x):
    """psi(x) = d/dx lgamma(x), elementwise (float64); +inf at the poles 0, -1, -2, ... and at
    -inf, as TF's kernel gives."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        reflect = x < 0.5
        pole = reflect & (x == np.floor(x))
        # psi(x) = psi(1 - x) - pi / tan(pi x) for x < 0.5
        frac = x - np.round(x)  # (tan has period 1; this keeps a tiny x's digits)
        correction = np.where(reflect, np.pi / np.tan(np.pi * frac), 0.0)
        z = np.where(reflect, 1.0 - x, x)
        acc = np.zeros_like(z)
        # recurrence psi(z) = psi(z + 1) - 1/z until z >= 10
        for _ in range(10):
            low = z < 10.0
            if not low.any():
                break
            acc -= np.where(low, 1.0 / z, 0.0)
            z = np.where(low, z + 1.0, z)
        inv2 = 1.0 / (z * z)
        series = np.zeros_like(z)
        for c in reversed(_DIGAMMA_ASYM):
            series = (series + c) * inv2
        out = np.array(np.log(z) - 0.5 / z - series + acc - correction)  # 0-d stays an array
        out[pole] = np.inf
    return out


# (2k)! / B_2k: the Euler-Maclaurin tail of the Hurwitz zeta function (as in Cephes)
_ZETA_TAIL = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
              7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
              -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)


def zeta(x, q):
    """The Hurwitz zeta function sum_{k>=0} (q + k)^-x, elementwise, in the inputs' own float
    type, step for step as TF's kernel (Cephes' algorithm): +inf at x == 1 and at the poles
    q = 0, -1, ...; NaN for x < 1 and for q < 0 with non-integer x; a sum that stops as soon as
    a term no longer counts (so zeta(inf, 0.5) is inf, zeta(inf, 1) is 1), the Euler-Maclaurin
    tail otherwise."""
    x, q = np.asarray(x), np.asarray(q)
    dt = np.result_type(x, q)
    if dt.kind != "f":
        dt = np.dtype(np.float64)
    x, q = (np.array(v, dt) for v in np.broadcast_arrays(x, q))
    machep = dt.type(np.finfo(dt).eps / 2)
    power = np.power
    if dt == np.float32:  # (Eigen's numext::pow: glibc's powf)
        from tideflow.ops.eigen_float32 import powf as power
    out = np.full(x.shape, np.nan, dt)
    with np.errstate(all="ignore"):
        done = x == 1
        out[done] = np.inf
        done |= x < 1  # (NaN, already there)
        neg = ~done & (q <= 0)
        pole = neg & (q == np.floor(q))
        out[pole] = np.inf
        done |= pole | (neg & (x != np.floor(x)))
        s = power(q, -x)
        a = q.copy()
        b = np.zeros_like(q)

        def finish(live, stop):
            hit = live & stop
            out[hit] = s[hit]
            return live & ~stop

        live = ~done
        i = 0
        # float: nine terms; double: at least nine, and until q + i passes 9
        while live.any() and i < 100000:
            more = live & (i < 9) if dt.itemsize < 8 else live & ((i < 9) | (a <= 9))
            if not more.any():
                break
            i += 1
            a = np.where(more, a + 1, a)
            b = np.where(more, power(a, -x), b)
            s = np.where(more, s + b, s)
            live = finish(live, more & (np.abs(b / s) < machep))
        w = a
        s = np.where(live, s + b * w / (x - 1) - dt.type(0.5) * b, s)
        fac = np.ones_like(x)
        k = dt.type(0)
        for c in _ZETA_TAIL:
            if not live.any():
                break
            fac = fac * (x + k)
            b = b / w
            t = fac * b / dt.type(c)
            s = np.where(live, s + t, s)
            live = finish(live, np.abs(t / s) < machep)
            k += 1
            fac = fac * (x + k)
            b = b / w
            k += 1
        out[live] = s[live]
    return out


def polygamma(n, x):
    """The n-th derivative of digamma at x, elementwise (float64); NaN for non-integer n < 0."""
    n, x = np.broadcast_arrays(np.asarray(n, np.float64), np.asarray(x, np.float64))
    with np.errstate(all="ignore"):
        # psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 1
        sign = np.where(np.mod(n, 2) == 0, -1.0, 1.0)
        higher = sign * np.exp(lgamma(n + 1.0)) * zeta(n + 1.0, x)
        out = np.where(n == 0, digamma(x), higher)
        out = np.where((n < 0) | (n != np.floor(n)), np.nan, out)
    return out
