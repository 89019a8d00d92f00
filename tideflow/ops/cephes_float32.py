"""Eigen's float special functions as TF 1.15's CPU kernels compute them, bit for bit: its
Cephes ports evaluated in float per element (digamma, i0e/i1e, igamma/igammac and their
derivatives, betainc), on glibc's float functions (``glibc_float32``) where Eigen calls them."""

import numpy as np

from tideflow.ops import eigen_float32
from tideflow.ops.glibc_float32 import (
    _F,
    _HALF,
    _ONE,
    _TWO,
    _decimal,
    _on,
    _where,
    lgammaf,
    log1pf,
    tanf,
)

# not glibc's: Eigen's scalar digamma in float (Cephes' psi), which calls tanf and logf: reflection psi(1 - x) - pi / tan(pi x) for
# x <= 0 (x less its nearest integer inside the tangent), the recurrence psi(x + 1) = psi(x)
# + 1/x up to 10, then log(s) - 1/(2s) less a cubic in 1/s^2
_DIGAMMA_A = tuple(_F(c) for c in (-4.16666666666666666667E-3, 3.96825396825396825397E-3,
                                   -8.33333333333333333333E-3, 8.33333333333333333333E-2))


def digamma(x):
    """float32 digamma as TF 1.15's kernel (Eigen's scalar ``digamma_impl<float>``, glibc's
    tanf and logf): +inf at 0, the negative integers and -inf."""
    x = np.asarray(x, dtype=_F).reshape(-1)
    one, half = _F(1), _F(0.5)
    with np.errstate(all="ignore"):
        negative = x <= 0
        s = x.copy()
        nz = None
        if negative.any():
            xn = x[negative]
            p = np.floor(xn)
            nz = xn - p
            up = nz > half
            nz[up] = xn[up] - (p[up] + one)
            nz = _where(nz != half, _F(np.pi) / tanf(_F(np.pi) * nz), _F(0))
            nz[p == xn] = np.nan  # (a pole: +inf below)
            s[negative] = one - xn
        w = np.zeros_like(s)
        at = np.flatnonzero(s < 10)
        while at.size:  # (each element's own count of steps, as Eigen's loop)
            v = s[at]
            w[at] += one / v
            v += one
            s[at] = v
            at = at[v < 10]
        z = one / (s * s)
        poly = z * _horner(z, _DIGAMMA_A)
        poly[~(s < _F(1.0e8))] = 0
        y = ((eigen_float32._logf(s) - half / s) - poly) - w
        if nz is not None:
            y[negative] -= nz
            y[negative] = _where(np.isnan(nz) & ~np.isnan(x[negative]), _F(np.inf),
                                   y[negative])
    return y


# not glibc's: Eigen's float i0e and i1e (Cephes' Chebyshev series, float arithmetic, TF 1.15
# evaluates them per element: Eigen has no packet form)
_I0E_A = _decimal(
    "-1.30002500998624804212E-8", "6.04699502254191894932E-8", "-2.67079385394061173391E-7",
    "1.11738753912010371815E-6", "-4.41673835845875056359E-6", "1.64484480707288970893E-5",
    "-5.75419501008210370398E-5", "1.88502885095841655729E-4", "-5.76375574538582365885E-4",
    "1.63947561694133579842E-3", "-4.32430999505057594430E-3", "1.05464603945949983183E-2",
    "-2.37374148058994688156E-2", "4.93052842396707084878E-2", "-9.49010970480476444210E-2",
    "1.71620901522208775349E-1", "-3.04682672343198398683E-1", "6.76795274409476084995E-1")
_I0E_B = _decimal(
    "3.39623202570838634515E-9", "2.26666899049817806459E-8", "2.04891858946906374183E-7",
    "2.89137052083475648297E-6", "6.88975834691682398426E-5", "3.36911647825569408990E-3",
    "8.04490411014108831608E-1")
_I1E_A = _decimal(
    "9.38153738649577178388E-9", "-4.44505912879632808065E-8", "2.00329475355213526229E-7",
    "-8.56872026469545474066E-7", "3.47025130813767847674E-6", "-1.32731636560394358279E-5",
    "4.78156510755005422638E-5", "-1.61760815825896745588E-4", "5.12285956168575772895E-4",
    "-1.51357245063125314899E-3", "4.15642294431288815669E-3", "-1.05640848946261981558E-2",
    "2.47264490306265168283E-2", "-5.29459812080949914269E-2", "1.02643658689847095384E-1",
    "-1.76416518357834055153E-1", "2.52587186443633654823E-1")
_I1E_B = _decimal(
    "-3.83538038596423702205E-9", "-2.63146884688951950684E-8", "-2.51223623787020892529E-7",
    "-3.88256480887769039346E-6", "-1.10588938762623716291E-4", "-9.76109749136146840777E-3",
    "7.78576235018280120474E-1")


def _chebevl(x, coef):
    """Cephes' chbevl in float32: the Clenshaw recurrence, half of b0 - b2."""
    b0 = np.full_like(x, coef[0])
    b1 = np.zeros_like(x)
    b2 = b1
    for c in coef[1:]:
        b2 = b1
        b1 = b0
        b0 = x * b1 - b2 + c
    return _HALF * (b0 - b2)


def _bessel_e(x, a, b):
    """The Chebyshev series of |x|: ``a`` in 0.5|x| - 2 up to 8, ``b`` in 32/|x| - 2 over
    sqrt(|x|) above."""
    z = np.abs(x)
    with np.errstate(all="ignore"):
        near = _chebevl(_HALF * z - _TWO, a)
        far = _chebevl(_F(32) / z - _TWO, b) / np.sqrt(z)
    return near, far, z <= _F(8)


def bessel_i0e(x):
    """float32 exp(-|x|) I0(x) as TF 1.15's kernel (Eigen's ``i0e_impl<float>``)."""
    x = np.asarray(x, dtype=_F)
    near, far, low = _bessel_e(x, _I0E_A, _I0E_B)
    return _where(low, near, far)


def bessel_i1e(x):
    """float32 exp(-|x|) I1(x) as TF 1.15's kernel (Eigen's ``i1e_impl<float>``)."""
    x = np.asarray(x, dtype=_F)
    near, far, low = _bessel_e(x, _I1E_A, _I1E_B)
    out = _where(low, near * np.abs(x), far)
    return _where(x < 0, -out, out)


# not glibc's: Eigen's float igamma / igammac (Cephes: the power series below, the continued
# fraction of the complement above, each element's own count of terms, glibc's logf, expf and
# lgammaf for the prefactor x^a e^-x / Gamma)
_MACHEP = _F(np.finfo(np.float32).eps / 2)
_BIG = _F(1) / _MACHEP


def _gamma_prefactor(a, x, ans, a_shift):
    """ans * exp(a log x - x - lgamma(a + a_shift)) (expf's denormal results flushed, as TF's
    threads do, before the product)."""
    ef = eigen_float32
    logax = a * ef._logf(x) - x - lgammaf(a + a_shift)
    ax = ef._flush_denormals(ef._expf(logax))
    return ans * ax


def _igamma_series(a, x):
    r = a.copy()
    c = np.ones_like(a)
    ans = np.ones_like(a)
    at = np.arange(a.size)
    for _ in range(2000):
        if not at.size:
            break
        rv = r[at] + _ONE
        r[at] = rv
        cv = c[at] * (x[at] / rv)
        c[at] = cv
        av = ans[at] + cv
        ans[at] = av
        at = at[~(cv <= _MACHEP * av)]
    return _gamma_prefactor(a, x, ans, _ONE)


def _igammac_cf(a, x):
    y = _ONE - a
    z = x + y + _ONE
    c = np.zeros_like(a)
    pkm2 = np.ones_like(a)
    qkm2 = x.copy()
    pkm1 = x + _ONE
    qkm1 = z * x
    ans = pkm1 / qkm1
    at = np.arange(a.size)
    for _ in range(2000):
        if not at.size:
            break
        cv = c[at] + _ONE
        yv = y[at] + _ONE
        zv = z[at] + _TWO
        c[at], y[at], z[at] = cv, yv, zv
        yc = yv * cv
        p1, p2, q1, q2 = pkm1[at], pkm2[at], qkm1[at], qkm2[at]
        pk = p1 * zv - p2 * yc
        qk = q1 * zv - q2 * yc
        nonzero = qk != 0
        prev = ans[at]
        new = _where(nonzero, pk / qk, prev)
        ans[at] = new
        done = nonzero & (np.abs(prev - new) <= _MACHEP * np.abs(new))
        scale = _where(np.abs(pk) > _BIG, _MACHEP, _ONE)
        pkm2[at], pkm1[at] = p1 * scale, pk * scale
        qkm2[at], qkm1[at] = q1 * scale, qk * scale
        at = at[~done]
    out = _gamma_prefactor(a, x, ans, _F(0))
    return _where(np.isinf(x), _F(0), out)


def _igamma_series_d(a, x, sample):
    """The power series' derivative with respect to a (``sample``: of the draw x instead, as
    Eigen's SAMPLE_DERIVATIVE), at most 200 terms, each element stopping on its own."""
    r = a.copy()
    c = np.ones_like(a)
    ans = np.ones_like(a)
    dc_da = np.zeros_like(a)
    dans_da = np.zeros_like(a)
    at = np.arange(a.size)
    for _ in range(200):
        if not at.size:
            break
        xv = x[at]
        rv = r[at] + _ONE
        r[at] = rv
        term = xv / rv
        dterm_da = -xv / (rv * rv)
        cv = c[at]
        dc = term * dc_da[at] + dterm_da * cv
        dc_da[at] = dc
        dans = dans_da[at] + dc
        dans_da[at] = dans
        c[at] = cv * term
        ans[at] += cv * term
        at = at[~(np.abs(dc) <= _MACHEP * np.abs(dans))]
    ef = eigen_float32
    logx = ef._logf(x)
    logax = a * logx - x - lgammaf(a + _ONE)
    dlogax_da = logx - digamma(a + _ONE)
    if sample:
        return -(dans_da + ans * dlogax_da) * x / a
    ftz = ef._flush_denormals  # (each product, as TF's threads flush them)
    ax = ftz(ef._expf(logax))
    return ftz(ans * ftz(ax * dlogax_da)) + ftz(dans_da * ax)


def _igammac_cf_d(a, x, sample):
    """The continued fraction's derivative with respect to a (or the draw's, ``sample``), at
    most 200 steps."""
    y = _ONE - a
    z = x + y + _ONE
    c = np.zeros_like(a)
    pkm2, qkm2, pkm1, qkm1 = np.ones_like(a), x.copy(), x + _ONE, z * x
    ans = pkm1 / qkm1
    dpkm2, dqkm2, dpkm1, dqkm1 = np.zeros_like(a), np.zeros_like(a), np.zeros_like(a), -x
    dans_da = (dpkm1 - ans * dqkm1) / qkm1
    at = np.arange(a.size)
    state = [c, y, z, pkm2, qkm2, pkm1, qkm1, dpkm2, dqkm2, dpkm1, dqkm1, ans, dans_da]
    out_ans, out_dans = ans.copy(), dans_da.copy()
    for _ in range(200):
        if not at.size:
            break
        c, y, z, pkm2, qkm2, pkm1, qkm1, dpkm2, dqkm2, dpkm1, dqkm1, ans, dans_da = state
        c = c + _ONE
        y = y + _ONE
        z = z + _TWO
        yc = y * c
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        dpk = dpkm1 * z - pkm1 - dpkm2 * yc + pkm2 * c
        dqk = dqkm1 * z - qkm1 - dqkm2 * yc + qkm2 * c
        nonzero = qk != 0
        new_ans = _where(nonzero, pk / qk, ans)
        new_dans = _where(nonzero, (dpk - new_ans * dqk) / qk, dans_da)
        done = nonzero & (np.abs(new_dans - dans_da) <= _MACHEP)
        ans, dans_da = new_ans, new_dans
        scale = _where(np.abs(pk) > _BIG, _MACHEP, _ONE)
        pkm2, pkm1, qkm2, qkm1 = pkm1 * scale, pk * scale, qkm1 * scale, qk * scale
        dpkm2, dpkm1, dqkm2, dqkm1 = dpkm1 * scale, dpk * scale, dqkm1 * scale, dqk * scale
        state = [c, y, z, pkm2, qkm2, pkm1, qkm1, dpkm2, dqkm2, dpkm1, dqkm1, ans, dans_da]
        out_ans[at], out_dans[at] = ans, dans_da
        if done.any():
            keep = ~done
            at = at[keep]
            state = [v[keep] for v in state]
    ans, dans_da = out_ans, out_dans
    ef = eigen_float32
    logx = ef._logf(x)
    logax = a * logx - x - lgammaf(a)
    dlogax_da = logx - digamma(a)
    if sample:
        out = -(dans_da + ans * dlogax_da) * x
    else:
        ftz = ef._flush_denormals
        ax = ftz(ef._expf(logax))
        out = ftz(ans * ftz(ax * dlogax_da)) + ftz(dans_da * ax)
    return _where(np.isinf(x), _F(0), out)


def _igamma_derivative(a, x, sample):
    a, x, shape = _igamma_args(a, x)
    with np.errstate(all="ignore"):
        out = np.full(a.shape, np.nan, _F)
        ok = (x >= 0) & (a > 0)
        upper = ok & (x > _ONE) & (x > a)
        _on(out, upper, lambda av, xv: -_igammac_cf_d(av, xv, sample), a, x)
        _on(out, ok & ~upper, lambda av, xv: _igamma_series_d(av, xv, sample), a, x)
        out = _where(x == 0, _F(0), out)
    return out.reshape(shape)


def igamma_der_a(a, x):
    """float32 dP(a, x)/da as TF 1.15's IgammaGradA kernel (Eigen's ``igamma_der_a``)."""
    return _igamma_derivative(a, x, False)


def gamma_sample_der_alpha(alpha, sample):
    """float32 d sample / d alpha of Gamma(alpha) draws as TF 1.15's RandomGammaGrad kernel
    (Eigen's ``gamma_sample_der_alpha``)."""
    return _igamma_derivative(alpha, sample, True)


def _igamma_args(a, x):
    """Flat float32 copies of ``a`` and ``x``, denormals read as zeros (DAZ, as TF's threads:
    igamma(a, 1e-40) is 0, igamma(1e-40, x) NaN), and their shape."""
    a, x = np.broadcast_arrays(np.asarray(a, dtype=_F), np.asarray(x, dtype=_F))
    flat = [v.reshape(-1).copy() for v in (a, x)]
    for v in flat:
        v[np.abs(v) < np.finfo(_F).tiny] *= _F(0)
    return flat[0], flat[1], a.shape


def igamma(a, x):
    """float32 regularized lower incomplete gamma P(a, x) as TF 1.15's kernel (Eigen's
    ``igamma_impl<float>``)."""
    a, x, shape = _igamma_args(a, x)
    with np.errstate(all="ignore"):
        out = np.full(a.shape, np.nan, _F)
        ok = (x >= 0) & (a > 0)  # (NaN fails too)
        upper = ok & (x > _ONE) & (x > a)
        _on(out, upper, lambda av, xv: _ONE - _igammac_cf(av, xv), a, x)
        _on(out, ok & ~upper, _igamma_series, a, x)
        out = _where(x == 0, _F(0), out)
    return out.reshape(shape)


def igammac(a, x):
    """float32 regularized upper incomplete gamma Q(a, x) as TF 1.15's kernel (Eigen's
    ``igammac_impl<float>``)."""
    a, x, shape = _igamma_args(a, x)
    with np.errstate(all="ignore"):
        out = np.full(a.shape, np.nan, _F)
        ok = (x >= 0) & (a > 0)
        lower = ok & ((x < _ONE) | (x < a))
        _on(out, lower, lambda av, xv: _ONE - _igamma_series(av, xv), a, x)
        _on(out, ok & ~lower, _igammac_cf, a, x)
    return out.reshape(shape)


# not glibc's: Eigen's float betainc (Cephes' incbet in float: a continued fraction, or the
# power series for large b and small b x / a; glibc's logf, log1pf, expf and lgammaf)
def _expf_ftz(x):
    ef = eigen_float32
    return ef._flush_denormals(ef._expf(x))


def _incbeta_cfe(a, b, x, small):
    """Cephes' incbcf (``small``) or incbd (x replaced by x / (1 - x)) for float32 vectors:
    at most 100 double steps, each element stopping on its own."""
    one, two = _ONE, _TWO
    x = _where(small, x, x / (one - x))
    k1 = a.copy()
    k2 = _where(small, a + b, b - one)
    k3 = a.copy()
    k4 = a + one
    k5 = np.ones_like(a)
    k6 = _where(small, b - one, a + b)
    k7 = a + one
    k8 = a + two
    k26 = _where(small, one, -one)
    pkm2, qkm2 = np.zeros_like(a), np.ones_like(a)
    pkm1, qkm1 = np.ones_like(a), np.ones_like(a)
    ans = np.ones_like(a)
    out = np.empty_like(a)
    at = np.arange(a.size)
    state = [x, k1, k2, k3, k4, k5, k6, k7, k8, k26, pkm2, qkm2, pkm1, qkm1, ans]
    for _ in range(100):
        if not at.size:
            break
        x, k1, k2, k3, k4, k5, k6, k7, k8, k26, pkm2, qkm2, pkm1, qkm1, ans = state
        xk = -(x * k1 * k2) / (k3 * k4)
        pk = pkm1 + pkm2 * xk
        qk = qkm1 + qkm2 * xk
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        xk = (x * k5 * k6) / (k7 * k8)
        pk = pkm1 + pkm2 * xk
        qk = qkm1 + qkm2 * xk
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        nonzero = qk != 0
        r = _where(nonzero, pk / qk, ans)
        done = nonzero & (np.abs(ans - r) < np.abs(r) * _MACHEP)
        ans = r
        k1 = k1 + one
        k2 = k2 + k26
        k3 = k3 + two
        k4 = k4 + two
        k5 = k5 + one
        k6 = k6 - k26
        k7 = k7 + two
        k8 = k8 + two
        up = (np.abs(qk) + np.abs(pk)) > _BIG
        scale = _where(up, _MACHEP, _ONE)
        pkm2, pkm1, qkm2, qkm1 = pkm2 * scale, pkm1 * scale, qkm2 * scale, qkm1 * scale
        down = (np.abs(qk) < _MACHEP) | (np.abs(pk) < _MACHEP)
        scale = _where(down, _BIG, _ONE)
        pkm2, pkm1, qkm2, qkm1 = pkm2 * scale, pkm1 * scale, qkm2 * scale, qkm1 * scale
        state = [x, k1, k2, k3, k4, k5, k6, k7, k8, k26, pkm2, qkm2, pkm1, qkm1, ans]
        if done.any():
            out[at[done]] = r[done]
            keep = ~done
            at = at[keep]
            state = [v[keep] for v in state]
    out[at] = state[-1]
    return out


def _incbps(a, b, x):
    """Cephes' power series for float32 vectors (b large, b x / a small)."""
    ef = eigen_float32
    logf = ef._logf
    y = a * logf(x) + (b - _ONE) * log1pf(-x) - logf(a)
    y -= lgammaf(a) + lgammaf(b)
    y += lgammaf(a + b)
    t = x / (_ONE - x)
    s = np.zeros_like(a)
    u = np.ones_like(a)
    a, b = a.copy(), b.copy()
    at = np.arange(a.size)
    while at.size:
        bv = b[at] - _ONE
        b[at] = bv
        at = at[bv != 0]
        if not at.size:
            break
        av = a[at] + _ONE
        a[at] = av
        uv = u[at] * (t[at] * b[at] / av)
        u[at] = uv
        s[at] += uv
        at = at[np.abs(uv) > _MACHEP]
    return _expf_ftz(y) * (_ONE + s)


def _incbsa(aa, bb, xx):
    logf = eigen_float32._logf
    onemx = _ONE - xx
    rev = xx > aa / (aa + bb)
    a, b = _where(rev, bb, aa), _where(rev, aa, bb)
    t, x = _where(rev, xx, onemx), _where(rev, onemx, xx)
    out = np.empty_like(a)
    series = (b > _F(10)) & (np.abs(b * x / a) < _F(0.3))
    _on(out, series, _incbps, a, b, x)
    rest = ~series
    if rest.any():
        at = np.flatnonzero(rest)
        av, bv, tv, xv = a[at], b[at], t[at], x[at]
        small = xv * (av + bv - _TWO) / (av - _ONE) < _ONE
        ans = _incbeta_cfe(av, bv, xv, small)
        tt = _where(small, bv, bv - _ONE) * logf(tv)
        tt += av * logf(xv) + lgammaf(av + bv) - lgammaf(av) - lgammaf(bv)
        tt += logf(ans / av)
        out[at] = _expf_ftz(tt)
    return _where(rev, _ONE - out, out)


def betainc(a, b, x):
    """float32 regularized incomplete beta I_x(a, b) as TF 1.15's kernel (Eigen's
    ``betainc_impl<float>``)."""
    a, b, x = np.broadcast_arrays(*(np.asarray(v, dtype=_F) for v in (a, b, x)))
    shape = a.shape
    a, b, x = (v.reshape(-1).copy() for v in (a, b, x))
    for v in (a, b, x):
        v[np.abs(v) < np.finfo(_F).tiny] *= _F(0)  # (DAZ)
    with np.errstate(all="ignore"):
        out = np.full(a.shape, np.nan, _F)
        out = _where(x == 0, _F(0), _where(x == 1, _ONE, out))
        ok = (a > 0) & (b > 0) & (x > 0) & (x < 1)
        out = _where((a <= 0) | (b <= 0), _F(np.nan), out)

        def low_a(av, bv, xv):
            ans = _incbsa(av + _ONE, bv, xv)
            logf = eigen_float32._logf
            t = (av * logf(xv) + bv * log1pf(-xv) + lgammaf(av + bv) - lgammaf(av + _ONE)
                 - lgammaf(bv))
            return ans + _expf_ftz(t)

        _on(out, ok & (a <= _ONE), low_a, a, b, x)
        _on(out, ok & (a > _ONE), _incbsa, a, b, x)
    return out.reshape(shape)


def _horner(v, coeffs):
    """The polynomial of ``coeffs`` (highest power first) at ``v``, Horner's rule in float32."""
    y = v * coeffs[0]
    for c in coeffs[1:-1]:
        y += c
        y *= v
    y += coeffs[-1]
    return y
