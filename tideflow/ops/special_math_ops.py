"""Math ops of TF 1.x's later releases: inverse hyperbolics, the "no NaN" divisions and
``xlogy`` family, NextAfter, the scaled Bessel functions, erfinv/ndtri, the regularized
incomplete gamma and beta functions, CumulativeLogsumexp; and the composed ``reduce_std``,
``reduce_variance``, ``reduce_euclidean_norm``, ``polyval``, ``unsorted_segment_mean`` /
``sqrt_n``, ``histogram_fixed_width_bins``, ``to_complex64/128``.

The special functions are computed in float64 with NumPy (series, continued fractions and
Newton steps on ``erf``/``erfc``); scipy is not needed.
"""

import numpy as np

from tideflow.framework import dtypes, op_registry, ops
from tideflow.framework.dispatch import add_dispatch_support
from tideflow.ops import cephes_float32, eigen_float32, glibc_float32, unary_ops
from tideflow.ops import special_functions as sf
from tideflow.ops.elementwise import (
    _binary_shape,
    _complex_div,
    _complex_mul,
    declare_binary,
    declare_unary,
)

_FLOAT = "T: {bfloat16, half, float, double}"
_FLOAT_COMPLEX = "T: {half, float, double, complex64, complex128}"
_BF_FLOAT_COMPLEX = "T: {bfloat16, half, float, double, complex64, complex128}"
_SQRT2 = np.sqrt(2.0)
_SQRT_2PI = np.sqrt(2.0 * np.pi)
_TWO_OVER_SQRT_PI = 2.0 / np.sqrt(np.pi)


def _f64(fn):
    """A kernel computing ``fn`` in float64 and casting back to the input's dtype."""

    def kernel(*xs):
        with np.errstate(all="ignore"):
            out = fn(*[np.asarray(x, dtype=np.float64) for x in xs])
        return np.asarray(out).astype(xs[0].dtype, copy=False)

    kernel.__name__ = f"_{fn.__name__}_kernel"
    return kernel


def _m():
    from tideflow.ops import math_ops

    return math_ops


def _t(op, i):
    return op._inputs[i]


# ------------------------------------------------------------------------------------------
# Acosh, Asinh, Atanh
# ------------------------------------------------------------------------------------------


def _keep(fn):
    def kernel(x):
        with np.errstate(all="ignore"):
            return fn(x).astype(x.dtype, copy=False)

    kernel.__name__ = f"_{fn.__name__}_kernel"
    return kernel


def _asinh_grad(op, grad):
    with unary_ops._after(grad):
        return grad / _m().cosh(_m().conj(op._outputs[0]))


def _acosh_grad(op, grad):
    with unary_ops._after(grad):
        return grad / _m().sinh(_m().conj(op._outputs[0]))


declare_unary("Asinh", unary_ops._glibc_float32(glibc_float32.asinhf, _keep(np.arcsinh)),
              _BF_FLOAT_COMPLEX, grad=_asinh_grad)
declare_unary("Acosh", unary_ops._glibc_float32(glibc_float32.acoshf, _keep(np.arccosh)),
              _BF_FLOAT_COMPLEX, grad=_acosh_grad)
declare_unary("Atanh", unary_ops._glibc_float32(glibc_float32.atanhf, _keep(np.arctanh)),
              _BF_FLOAT_COMPLEX, grad=unary_ops._atanh_grad)


@add_dispatch_support(elementwise=1)
def asinh(x, name=None):
    return ops.apply_op("Asinh", [x], name=name)._outputs[0]


@add_dispatch_support(elementwise=1)
def acosh(x, name=None):
    return ops.apply_op("Acosh", [x], name=name)._outputs[0]


@add_dispatch_support(elementwise=1)
def atanh(x, name=None):
    return ops.apply_op("Atanh", [x], name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# DivNoNan, MulNoNan, Xlogy, Xdivy, Xlog1py, NextAfter
# ------------------------------------------------------------------------------------------


def _zero_where_zero(out, cond, dtype):
    """``out`` with 0 wherever ``cond`` is 0. These ops sit in gradients (Div's, Pow's, Log's):
    a fresh result of the full shape is patched in place, and only when ``cond`` has a zero."""
    if type(out) is np.ndarray and type(cond) is np.ndarray and out.dtype == dtype \
            and out.shape == cond.shape:
        if not cond.all():
            np.copyto(out, 0, where=(cond == 0))
        return out
    return np.where(cond == 0, np.zeros((), dtype), out).astype(dtype, copy=False)


# Eigen's packet (AVX) in elements, per type: TF's Xdivy selects x itself (a signed zero)
# where x is 0 on whole packets, and +0 on the last size % packet elements (its scalar path)
_XDIVY_PACKET = {np.dtype(np.float16): 8, np.dtype(np.float32): 8, np.dtype(np.float64): 4,
                 np.dtype(np.complex64): 4, np.dtype(np.complex128): 2}


def _keep_x_on_packets(res, x, mask):
    """Xdivy's zeros as TF 1.15 gives them (measured flat, broadcast or not): x where x is 0
    on the whole packets of the flat result, +0 on its tail."""
    flat = res.reshape(-1)
    m = np.broadcast_to(mask, res.shape).reshape(-1)
    xs = np.broadcast_to(x, res.shape).reshape(-1)
    head = flat.size - flat.size % _XDIVY_PACKET.get(res.dtype, flat.size or 1)
    np.copyto(flat[:head], xs[:head], where=m[:head])
    np.copyto(flat[head:], 0, where=m[head:])


def _ufunc_no_nan(ufunc, zero_arg, complex_fn=None, keep_x=False):
    """``ufunc(x, y)`` with 0 where argument ``zero_arg`` (0: x, 1: y) is 0; ``out=`` may be
    x's dying buffer (the plan's in-place call), so the zeros are found before it is written.
    Complex operands go through ``complex_fn(x, y)`` (TF's rounding); ``keep_x``: Xdivy's
    signed zeros (_keep_x_on_packets)."""
    def kernel(x, y, out=None):
        cond = y if zero_arg else x
        if complex_fn is not None and np.result_type(x, y).kind == "c":
            res = complex_fn(x, y)
            if out is not None:
                np.copyto(out, res)
                res = out
            return _zero_where_zero(res, np.broadcast_to(cond, np.shape(res)), res.dtype)
        if type(cond) is np.ndarray and type(x) is np.ndarray and type(y) is np.ndarray \
                and x.dtype == y.dtype:
            mask = None if cond.all() else (cond == 0)
            if keep_x and mask is not None and x.ndim and x.dtype.kind in "fc":
                with np.errstate(all="ignore"):
                    res = ufunc(x, y)  # (not in place: x is read again)
                _keep_x_on_packets(res, x, mask)
                if out is None:
                    return res
                np.copyto(out, res)
                return out
            with np.errstate(all="ignore"):
                res = ufunc(x, y) if out is None else ufunc(x, y, out=out)
            if mask is not None:
                if type(res) is not np.ndarray:  # 0-d operands give a NumPy scalar
                    return np.where(mask, np.zeros((), res.dtype), res)
                np.copyto(res, 0, where=mask)
            return res
        with np.errstate(all="ignore"):
            res = ufunc(x, y)
        return np.where(np.equal(cond, 0), np.zeros((), res.dtype), res).astype(
            np.result_type(x, y), copy=False)

    kernel.__name__ = f"_{ufunc.__name__}_no_nan_kernel"
    return kernel


_div_no_nan_kernel = _ufunc_no_nan(np.divide, 1, _complex_div)
_mul_no_nan_kernel = _ufunc_no_nan(np.multiply, 1, _complex_mul)
def _divide(x, y, out=None):
    from tideflow.ops.math_ops import _true_divide  # (a complex x / 0 is NaN, as TF's)

    if out is None:
        return _true_divide(x, y)
    # (the plan's in-place call, into x's dying buffer: _ufunc_no_nan passes out= as to a ufunc)
    np.copyto(out, _true_divide(x, y))
    return out


_xdivy_kernel = _ufunc_no_nan(_divide, 0, keep_x=True)


def _x_zero(fn):
    def kernel(x, y):
        with np.errstate(all="ignore"):
            out = fn(x, y)
        return _zero_where_zero(out, x, x.dtype)

    kernel.__name__ = f"_{fn.__name__}_kernel"
    return kernel


def _xlogy(x, y):
    return x * np.log(y)


def _xlogy_kernel(x, y):
    """float32 as TF 1.15's kernel where it runs flat (equal shapes, or a scalar side):
    x * log(y) by Eigen's packet log on whole 8-float packets (x itself, a signed zero, where
    x is 0) and glibc's logf on the last ``size % 8`` (+0 where x is 0); a general broadcast
    (TF's tiled blocks), and other types, as x * log(y) with 0 where x is 0."""
    if not (type(x) is np.ndarray and type(y) is np.ndarray and x.dtype == np.float32
            and y.dtype == np.float32 and (x.shape == y.shape or x.size == 1 or y.size == 1)):
        return _xlogy_others(x, y)
    shape = np.broadcast_shapes(x.shape, y.shape)
    xf = np.broadcast_to(x, shape).reshape(-1)
    with np.errstate(all="ignore"):
        out = xf * eigen_float32.log(np.broadcast_to(y, shape).reshape(-1))
    zero = xf == 0
    if zero.any():
        tail = xf.size % 8
        np.copyto(out, xf, where=zero)  # (-0 stays -0 on the packets)
        if tail:
            out[-tail:][zero[-tail:]] = 0
    return eigen_float32._flush_denormals(out).reshape(shape)


def _xdivy(x, y):
    return x / y


def _xlog1py(x, y):
    return x * np.log1p(y)


def _nonzero(x, dtype):
    from tideflow.ops.cast_ops import cast

    return cast(_m().not_equal(x, 0), dtype)


def _div_no_nan_grad(op, grad):
    # TF 1.15's ops in its order: the shapes and BroadcastGradientArgs, then each partial
    # summed back to its input's shape
    from tideflow.ops import array_ops
    from tideflow.ops.elementwise import sum_to
    from tideflow.ops.gradients import dense

    x, y = op._inputs
    sx, sy = array_ops.shape(x), array_ops.shape(y)
    rx, ry = ops.apply_op("BroadcastGradientArgs", [sx, sy])._outputs
    grad = dense(grad)
    gx = sum_to(div_no_nan(grad, y), rx, sx)
    gy = sum_to(grad * div_no_nan(div_no_nan(-x, y), y), ry, sy)
    return gx, gy


def _mul_no_nan_grad(op, grad):
    x, y = op._inputs
    return mul_no_nan(grad, y), mul_no_nan(x, grad)


def _x_partials_grad(partials):
    """TF 1.15's Xlogy/Xdivy gradients, op for op: the inputs' shapes and their
    BroadcastGradientArgs first, then where x is nonzero, the partials, and each product with
    the gradient summed and reshaped back to its input's shape."""

    def grad_fn(op, grad):
        from tideflow.ops import array_ops, reduction_ops
        from tideflow.ops.cast_ops import cast

        x, y = op._inputs
        sx, sy = array_ops.shape(x), array_ops.shape(y)
        rx, ry = ops.apply_op("BroadcastGradientArgs", [sx, sy])._outputs
        with ops.control_dependencies([grad]):
            nonzero = cast(_m().not_equal(x, cast(0.0, x.dtype.base_dtype)), x.dtype.base_dtype)
            px, py = partials(nonzero, x, y)
            return (array_ops.reshape(reduction_ops.reduce_sum(px * grad, rx), sx),
                    array_ops.reshape(reduction_ops.reduce_sum(py * grad, ry), sy))

    return grad_fn


_xlogy_grad = _x_partials_grad(lambda nz, x, y: (xlogy(nz, y), xdivy(x, y)))
_xdivy_grad = _x_partials_grad(
    lambda nz, x, y: (xdivy(nz, y), xdivy(_m().negative(x), y ** 2)))


def _xlog1py_grad(op, grad):
    x, y = op._inputs
    return xlog1py(_nonzero(x, grad.dtype), y) * grad, xdivy(x, y + 1) * grad


_NO_NAN = "T: {half, float, double, complex64, complex128}"
declare_binary("DivNoNan", _div_no_nan_kernel, _NO_NAN, grad=_div_no_nan_grad, inplace=0,
               reduces=True)
declare_binary("MulNoNan", _mul_no_nan_kernel, _NO_NAN, grad=_mul_no_nan_grad, inplace=0)
_xlogy_others = _x_zero(_xlogy)
declare_binary("Xlogy", _xlogy_kernel, _NO_NAN, grad=_xlogy_grad, reduces=True)
declare_binary("Xdivy", _xdivy_kernel, _NO_NAN, grad=_xdivy_grad, inplace=0, reduces=True)
declare_binary("Xlog1py", _x_zero(_xlog1py), _NO_NAN, grad=_xlog1py_grad)
op_registry.declare(
    "NextAfter", inputs=["x1: T", "x2: T"], outputs=["output: T"],
    attrs=["T: {float64, float32} = DT_FLOAT"], shape=_binary_shape,
    kernel=lambda x1, x2: np.nextafter(x1, x2), differentiable=False,
)


def _binary(op_type, x, y, name):
    # as TF's generated wrappers: a tensor of another dtype is the op's TypeError
    return ops.apply_op(op_type, [x, y], name=name)._outputs[0]


@add_dispatch_support(elementwise=2)
def div_no_nan(x, y, name=None):
    """x / y, and 0 where y is 0 (even when x is 0, inf or NaN); TF 1.15 takes floats and
    complex only (integers are DivNoNan's TypeError)."""
    from tideflow.ops.math_ops import _same_dtype_pair

    with ops.name_scope(name, "div_no_nan", [x, y]) as scope:
        x, y = _same_dtype_pair(x, y)
        return ops.apply_op("DivNoNan", [x, y], name=scope)._outputs[0]


def mul_no_nan(x, y, name=None):
    """x * y, and 0 where y is 0 (even when x is inf or NaN)."""
    from tideflow.ops.math_ops import _same_dtype_pair

    with ops.name_scope(name, "multiply_no_nan", [x, y]) as scope:
        x, y = _same_dtype_pair(x, y)
        return _binary("MulNoNan", x, y, scope)


def reciprocal_no_nan(x, name=None):
    """1 / x, and 0 where x is 0."""
    with ops.name_scope(name, "reciprocal_no_nan", [x]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        one = ops.convert_to_tensor(1, dtype=x.dtype.base_dtype, name="one")
        return ops.apply_op("DivNoNan", [one, x], name=scope)._outputs[0]


def xlogy(x, y, name=None):
    """x * log(y), and 0 where x is 0."""
    return _binary("Xlogy", x, y, name)


def xdivy(x, y, name=None):
    """x / y, and 0 where x is 0."""
    return _binary("Xdivy", x, y, name)


def xlog1py(x, y, name=None):
    """x * log1p(y), and 0 where x is 0."""
    return _binary("Xlog1py", x, y, name)


def nextafter(x1, x2, name=None):
    """The next representable value after x1 in the direction of x2."""
    return _binary("NextAfter", x1, x2, name)


# ------------------------------------------------------------------------------------------
# Bessel I0e, I1e (exponentially scaled modified Bessel functions of the first kind)
# ------------------------------------------------------------------------------------------

_BESSEL_SPLIT = 30.0  # |x| below: power series; above: the asymptotic expansion


def _bessel_ie(x, nu):
    """exp(-|x|) I_nu(x) for nu in {0, 1}, elementwise (float64)."""
    a = np.abs(x)
    out = np.zeros_like(a)
    small = a <= _BESSEL_SPLIT
    if small.any():
        s = a[small]
        q = s * s / 4.0
        term = np.ones_like(s) if nu == 0 else s / 2.0
        total = term.copy()
        for k in range(1, 200):
            term = term * q / (k * (k + nu))
            total += term
            if np.all(term <= 1e-17 * total):
                break
        out[small] = total * np.exp(-s)
    big = ~small & np.isfinite(a)
    if big.any():
        b = a[big]
        mu = 4.0 * nu * nu
        term = np.ones_like(b)
        total = term.copy()
        for k in range(1, 40):
            term = term * -(mu - (2 * k - 1) ** 2) / (k * 8.0 * b)
            total += term
        out[big] = total / np.sqrt(2.0 * np.pi * b)
    out[np.isinf(a)] = 0.0
    out[np.isnan(a)] = np.nan
    return out if nu == 0 else np.where(x < 0, -out, out)


def _bessel_i0e(x):
    return _bessel_ie(x, 0)


def _bessel_i1e(x):
    return _bessel_ie(x, 1)


def _i0e_grad(op, grad):
    x, y = op._inputs[0], op._outputs[0]
    with unary_ops._after(grad):
        return grad * (bessel_i1e(x) - _m().sign(x) * y)


def _i1e_grad(op, grad):
    # TF 1.15's: below machine epsilon in magnitude x is taken as eps and the slope as 1/2
    from tideflow.ops.fill_ops import zeros_like
    from tideflow.ops.gather_ops import where

    x, y = op._inputs[0], op._outputs[0]
    with unary_ops._after(grad):
        eps = np.finfo(x.dtype.as_numpy_dtype).eps
        zeros = zeros_like(x)
        not_tiny = _m().greater(_m().abs(x), eps)
        safe_x = where(not_tiny, x, eps + zeros)
        dy_dx = bessel_i0e(safe_x) - y * (_m().sign(safe_x) + _m().reciprocal(safe_x))
        return grad * where(not_tiny, dy_dx, 0.5 + zeros)


def _plus_zero(x):
    return np.zeros(x.shape, np.float32)  # (DAZ: the product and the sign test see a zero)


declare_unary("BesselI0e", unary_ops._glibc_float32(cephes_float32.bessel_i0e, _f64(_bessel_i0e)),
              _FLOAT, grad=_i0e_grad)
declare_unary("BesselI1e", unary_ops._glibc_float32(cephes_float32.bessel_i1e, _f64(_bessel_i1e),
                                                    _plus_zero), _FLOAT, grad=_i1e_grad)


def bessel_i0e(x, name=None):
    """exp(-|x|) * I0(x), the exponentially scaled modified Bessel function of order 0."""
    return ops.apply_op("BesselI0e", [x], name=name)._outputs[0]


def bessel_i1e(x, name=None):
    """exp(-|x|) * I1(x), the exponentially scaled modified Bessel function of order 1."""
    return ops.apply_op("BesselI1e", [x], name=name)._outputs[0]


def bessel_i0(x, name=None):
    """I0(x), the modified Bessel function of order 0 (exp(|x|) * bessel_i0e(x))."""
    with ops.name_scope(name, "bessel_i0", [x]):
        x = ops.convert_to_tensor(x, name="x")
        return _m().exp(_m().abs(x)) * bessel_i0e(x)


def bessel_i1(x, name=None):
    """I1(x), the modified Bessel function of order 1 (exp(|x|) * bessel_i1e(x))."""
    with ops.name_scope(name, "bessel_i1", [x]):
        x = ops.convert_to_tensor(x, name="x")
        return _m().exp(_m().abs(x)) * bessel_i1e(x)


# ------------------------------------------------------------------------------------------
# Ndtri, Erfinv
# ------------------------------------------------------------------------------------------

# rational approximation of the normal quantile (relative error < 1.2e-9), refined below
_NA = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
       1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
_NB = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
       6.680131188771972e+01, -1.328068155288572e+01)
_NC = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
       -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
_ND = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
       3.754408661907416e+00)


def _poly(coeffs, x):
    out = np.full_like(x, coeffs[0])
    for c in coeffs[1:]:
        out = out * x + c
    return out


def _ndtri_guess(p):
    q = np.minimum(p, 1.0 - p)
    out = np.empty_like(p)
    central = q > 0.02425
    r = p[central] - 0.5
    r2 = r * r
    out[central] = r * _poly(_NA, r2) / (_poly(_NB, r2) * r2 + 1.0)
    tail = ~central
    t = np.sqrt(-2.0 * np.log(q[tail]))
    v = _poly(_NC, t) / (_poly(_ND, t) * t + 1.0)
    out[tail] = np.where(p[tail] < 0.5, v, -v)
    return out


def _ndtri(p):
    p = np.asarray(p, dtype=np.float64)
    out = np.full_like(p, np.nan)
    inside = (p > 0) & (p < 1)
    if inside.any():
        pi = p[inside]
        upper = pi > 0.5
        q = np.where(upper, 1.0 - pi, pi)  # exact for p > 0.5; Phi(-x) = 1 - Phi(x)
        x = _ndtri_guess(q)
        for _ in range(2):  # Halley steps on Phi(x) - q (x <= 0: erfc is accurate there)
            e = 0.5 * sf.erfc(-x / _SQRT2) - q
            u = e * _SQRT_2PI * np.exp(0.5 * x * x)
            x = x - u / (1.0 + 0.5 * x * u)
        out[inside] = np.where(upper, -x, x)
    out[p == 0] = -np.inf
    out[p == 1] = np.inf
    return out


def _erfinv(y):
    y = np.asarray(y, dtype=np.float64)
    out = np.full_like(y, np.nan)
    inside = (y > -1) & (y < 1)
    if inside.any():
        yi = y[inside]
        x = _ndtri((yi + 1.0) / 2.0) / _SQRT2
        small = np.abs(yi) <= 0.5
        for _ in range(3):  # Newton on erf(x) - y near 0, on erfc(|x|) - (1 - |y|) outside
            ex = np.exp(-x * x) * _TWO_OVER_SQRT_PI
            f_small = sf.erf(x) - yi
            f_big = -(sf.erfc(np.abs(x)) - (1.0 - np.abs(yi))) * np.sign(yi)
            f = np.where(small, f_small, f_big)
            x = x - np.where(ex > 0, f / np.where(ex > 0, ex, 1.0), 0.0)
        out[inside] = x
    out[y == 1] = np.inf
    out[y == -1] = -np.inf
    return out


def _ndtri_grad(op, grad):
    y = op._outputs[0]
    return grad * _SQRT_2PI * _m().exp(0.5 * _m().square(y))


def _erfinv_grad(op, grad):
    y = op._outputs[0]
    return grad * (np.sqrt(np.pi) / 2.0) * _m().exp(_m().square(y))


declare_unary("Ndtri", _f64(_ndtri), _FLOAT, grad=_ndtri_grad)
declare_unary("Erfinv", _f64(_erfinv), _FLOAT, grad=_erfinv_grad)


def ndtri(x, name=None):
    """The quantile of the standard normal distribution: Phi^-1(x)."""
    return ops.apply_op("Ndtri", [x], name=name)._outputs[0]


def erfinv(x, name=None):
    """The inverse of erf on (-1, 1)."""
    return ops.apply_op("Erfinv", [x], name=name)._outputs[0]


def erfcinv(x, name=None):
    """The inverse of erfc on (0, 2): -ndtri(x / 2) / sqrt(2)."""
    with ops.name_scope(name, "erfcinv", [x]):
        x = ops.convert_to_tensor(x, name="start")
        return -ndtri(0.5 * x) * np.sqrt(0.5)


# ------------------------------------------------------------------------------------------
# Igamma, Igammac, Betainc
# ------------------------------------------------------------------------------------------

_EPS = np.finfo(np.float64).eps
_TINY = 1e-300


def _gamma_p_series(a, x):
    term = 1.0 / a
    total = term.copy()
    ap = a.copy()
    for _ in range(2000):
        ap = ap + 1.0
        term = term * x / ap
        total += term
        if np.all(np.abs(term) <= np.abs(total) * _EPS):
            break
    return total * np.exp(-x + a * np.log(x) - sf.lgamma(a))


def _gamma_q_fraction(a, x):
    """Q(a, x) by its continued fraction (modified Lentz), for x >= a + 1."""
    b = x + 1.0 - a
    c = np.full_like(x, 1.0 / _TINY)
    d = 1.0 / b
    h = d.copy()
    for i in range(1, 2000):
        an = -i * (i - a)
        b = b + 2.0
        d = an * d + b
        d = np.where(np.abs(d) < _TINY, _TINY, d)
        c = b + an / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        d = 1.0 / d
        delta = d * c
        h = h * delta
        if np.all(np.abs(delta - 1.0) <= _EPS):
            break
    return np.exp(-x + a * np.log(x) - sf.lgamma(a)) * h


def _igamma_pq(a, x):
    """(P(a, x), Q(a, x)), the regularized lower and upper incomplete gamma functions."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    p = np.full(a.shape, np.nan)
    q = np.full(a.shape, np.nan)
    ok = (a > 0) & (x >= 0) & ~np.isnan(a) & ~np.isnan(x)
    zero = ok & (x == 0)
    p[zero], q[zero] = 0.0, 1.0
    inf = ok & np.isinf(x)
    p[inf], q[inf] = 1.0, 0.0
    rest = ok & ~zero & ~inf
    ser = rest & (x < a + 1.0)
    if ser.any():
        v = _gamma_p_series(a[ser], x[ser])
        p[ser], q[ser] = v, 1.0 - v
    cf = rest & ~ser
    if cf.any():
        v = _gamma_q_fraction(a[cf], x[cf])
        p[cf], q[cf] = 1.0 - v, v
    return p, q


def _igamma(a, x):
    p = _igamma_pq(a, x)[0]
    # TF 1.15 (Eigen) answers 0 for x = 0 before it looks at a: igamma(0, 0) is 0; and its
    # series of an infinite a at an infinite x is NaN
    p[np.broadcast_to(np.asarray(x) == 0, p.shape)] = 0.0
    p[np.broadcast_to(np.isinf(a) & np.isinf(x), p.shape)] = np.nan
    return p


def _igammac(a, x):
    return _igamma_pq(a, x)[1]


def _betacf(a, b, x):
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = np.ones_like(x)
    d = 1.0 - qab * x / qap
    d = np.where(np.abs(d) < _TINY, _TINY, d)
    d = 1.0 / d
    h = d.copy()
    for m in range(1, 3000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = np.where(np.abs(d) < _TINY, _TINY, d)
        c = 1.0 + aa / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        d = 1.0 / d
        h = h * d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = np.where(np.abs(d) < _TINY, _TINY, d)
        c = 1.0 + aa / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        d = 1.0 / d
        delta = d * c
        h = h * delta
        if np.all(np.abs(delta - 1.0) <= _EPS):
            break
    return h


def _lbeta(a, b):
    return sf.lgamma(a) + sf.lgamma(b) - sf.lgamma(a + b)


def _betainc(a, b, x):
    _betainc_shapes(a, b, x)
    a, b, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64),
                                  np.asarray(x, np.float64))
    return _betainc64_values(a, b, x)


def _betainc_shapes(a, b, x):
    # as TF's kernel: no broadcasting, only scalars stretch to the others' common shape
    shapes = [("a", np.shape(a)), ("b", np.shape(b)), ("x", np.shape(x))]
    for i, (n1, s1) in enumerate(shapes):
        for n2, s2 in shapes[i + 1:]:
            if s1 and s2 and s1 != s2:
                from tideflow.framework import errors

                raise errors.InvalidArgumentError(
                    None, None, f"Shapes of {n1} and {n2} are inconsistent: "
                    f"[{','.join(map(str, s1))}] vs. [{','.join(map(str, s2))}]")


def _betainc64_values(a, b, x):
    out = np.full(a.shape, np.nan)
    ok = (a > 0) & (b > 0) & (x >= 0) & (x <= 1)
    out[ok & (x == 0)] = 0.0
    out[ok & (x == 1)] = 1.0
    rest = ok & (x > 0) & (x < 1)
    if rest.any():
        ar, br, xr = a[rest], b[rest], x[rest]
        front = np.exp(ar * np.log(xr) + br * np.log1p(-xr) - _lbeta(ar, br))
        direct = xr < (ar + 1.0) / (ar + br + 2.0)
        v = np.empty_like(xr)
        if direct.any():
            v[direct] = front[direct] * _betacf(ar[direct], br[direct], xr[direct]) / ar[direct]
        sw = ~direct
        if sw.any():
            v[sw] = 1.0 - front[sw] * _betacf(br[sw], ar[sw], 1.0 - xr[sw]) / br[sw]
        out[rest] = v
    return out


def _betainc_shape(op):
    """As TF: no broadcasting; the non-scalar inputs' shapes merge (an input of unknown rank
    may be a scalar), and one non-scalar among scalars is the output's shape."""
    from tideflow.framework.tensor_shape import unknown_shape
    from tideflow.ops.state_ops import _merge_shapes

    out, scalars, other = unknown_shape(), 0, None
    for t in op._inputs:
        s = t._shape
        if s.ndims is None:
            other = s
        elif s.ndims == 0:
            scalars += 1
        else:
            out = _merge_shapes(out, s)  # TF's C++ Merge and its words
            other = out
    if scalars == len(op._inputs) - 1:
        out = other
    elif scalars == len(op._inputs):
        out = op._inputs[0]._shape
    return [out]


def _igamma_grad_a(a, x):
    """dP(a, x)/da by differentiating P's series term by term:
    P = sum_k exp(-x) x^(a+k) / Gamma(a+k+1), each term times (log x - digamma(a+k+1))."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    out = np.full(a.shape, np.nan)
    ok = (a > 0) & (x > 0) & np.isfinite(x)
    out[(a > 0) & ((x == 0) | np.isposinf(x))] = 0.0
    if ok.any():
        av, xv = a[ok], x[ok]
        logx = np.log(xv)
        log_term = -xv + av * logx - sf.lgamma(av + 1.0)  # log of term k = 0
        total = np.exp(log_term) * (logx - sf.digamma(av + 1.0))
        peak = np.abs(total)
        k = 0
        while True:
            k += 1
            log_term = log_term + logx - np.log(av + k)
            t = np.exp(log_term) * (logx - sf.digamma(av + k + 1.0))
            total += t
            peak = np.maximum(peak, np.abs(t))
            # past the terms' peak (k > x) and negligible against the largest term
            if k > 20 and np.all((k > xv) & (np.abs(t) <= _EPS * 1e-2 * peak)):
                break
            if k > 100000:
                break
        out[ok] = total
    return out


def _float32_by(fn32, other):
    """A binary kernel: float32 by ``fn32`` (Eigen's float algorithm, as TF 1.15's kernel),
    denormal results flushed; other types by ``other``."""

    def kernel(a, x):
        if a.dtype == np.float32 and x.dtype == np.float32:
            return eigen_float32._flush_denormals(np.asarray(fn32(a, x)))
        return other(a, x)

    kernel.__name__ = f"_{fn32.__name__}_kernel"
    return kernel


op_registry.declare(
    "IgammaGradA", inputs=["a: T", "x: T"], outputs=["z: T"], attrs=["T: {float, double}"],
    shape=_binary_shape, kernel=_float32_by(cephes_float32.igamma_der_a, _f64(_igamma_grad_a)),
    differentiable=False,
)


def _igamma_grad(op, grad):
    # TF 1.15's ops: shapes and BroadcastGradientArgs first, the partials under a control
    # dependency on grad, each product summed and reshaped to its input's shape; Igammac's
    # are the two negated afterwards
    from tideflow.ops import array_ops, reduction_ops
    from tideflow.ops.unary_ops import lgamma

    a, x = op._inputs
    m = _m()
    sa, sx = array_ops.shape(a), array_ops.shape(x)
    ra, rx = ops.apply_op("BroadcastGradientArgs", [sa, sx])._outputs
    with unary_ops._after(grad):
        partial_a = ops.apply_op("IgammaGradA", [a, x])._outputs[0]
        partial_x = m.exp(-x + (a - 1) * m.log(x) - lgamma(a))
        da = array_ops.reshape(reduction_ops.reduce_sum(partial_a * grad, ra), sa)
        dx = array_ops.reshape(reduction_ops.reduce_sum(partial_x * grad, rx), sx)
    if op._type == "Igammac":
        return [-da, -dx]
    return [da, dx]


def _betainc_grad(op, grad):
    # TF 1.15's: (b - 1) log(1 - x) + (a - 1) log(x) - log B(a, b) (NaN where a factor is 0
    # and its log infinite, as there), summed to x's shape; no gradient for a and b
    from tideflow.ops import array_ops, reduction_ops
    from tideflow.ops.unary_ops import lgamma

    a, b, x = op._inputs
    m = _m()
    sa, sx = array_ops.shape(a), array_ops.shape(x)
    rx = ops.apply_op("BroadcastGradientArgs", [sa, sx])._outputs[1]
    log_beta = lgamma(a) + lgamma(b) - lgamma(a + b)
    partial_x = m.exp((b - 1) * m.log(1 - x) + (a - 1) * m.log(x) - log_beta)
    return [None, None, array_ops.reshape(reduction_ops.reduce_sum(partial_x * grad, rx), sx)]


_betainc64 = _f64(_betainc)


def _betainc_kernel(a, b, x):
    if a.dtype == b.dtype == x.dtype == np.float32:
        _betainc_shapes(a, b, x)
        return eigen_float32._flush_denormals(cephes_float32.betainc(a, b, x))
    return _betainc64(a, b, x)


for _name, _fn, _fn32 in (("Igamma", _igamma, cephes_float32.igamma),
                          ("Igammac", _igammac, cephes_float32.igammac)):
    op_registry.declare(
        _name, inputs=["a: T", "x: T"], outputs=["z: T"], attrs=["T: {float, double}"],
        shape=_binary_shape, kernel=_float32_by(_fn32, _f64(_fn)), grad=_igamma_grad,
    )
op_registry.declare(
    "Betainc", inputs=["a: T", "b: T", "x: T"], outputs=["z: T"], attrs=["T: {float, double}"],
    shape=_betainc_shape, kernel=_betainc_kernel, grad=_betainc_grad,
)


def igamma(a, x, name=None):
    """P(a, x), the regularized lower incomplete gamma function."""
    return _binary("Igamma", a, x, name)


def igammac(a, x, name=None):
    """Q(a, x) = 1 - P(a, x), the regularized upper incomplete gamma function."""
    return _binary("Igammac", a, x, name)


def betainc(a, b, x, name=None):
    """I_x(a, b), the regularized incomplete beta function (Python numbers become constants
    ``Betainc/b``... of ``a``'s dtype, as TF's op wrappers convert them)."""
    return ops.apply_op("Betainc", [a, b, x], name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# CumulativeLogsumexp
# ------------------------------------------------------------------------------------------


def _double_step(lo_less_hi):
    return np.log1p(np.exp(lo_less_hi))


def _typed_step(lo_less_hi):
    """log1p(exp(d)) in float32 or half as TF 1.15's scalar scan: glibc's expf and log1pf,
    a half's each rounded to half."""
    from tideflow.ops import eigen_float32, glibc_float32

    dt = lo_less_hi.dtype
    e = eigen_float32._expf(np.asarray(lo_less_hi, np.float32)).astype(dt)
    return glibc_float32.log1pf(np.asarray(e, np.float32)).astype(dt)


def _cumlse_scan(a, axis, exclusive, lowest, step=_double_step):
    """TF's scan step by step (values not all finite, or float32/half, whose every step is in
    its type: ``_typed_step``): the sum starts at the dtype's lowest value and takes each x as
    ``max + step(min - max)`` with C++'s std::max/min of (sum, x), so a NaN x leaves the sum
    alone and inf + inf is NaN."""
    moved = np.moveaxis(a, axis, 0)
    a = moved.reshape(moved.shape[0], -1)  # (rows of at least one element for the kernels)
    out = np.empty_like(a)
    acc = np.full(a.shape[1:], lowest, a.dtype)
    with np.errstate(all="ignore"):
        for i in range(a.shape[0]):
            if exclusive:
                out[i] = acc
            t = a[i]
            lo = np.where(t < acc, t, acc)
            hi = np.where(acc < t, t, acc)
            acc = hi + step(lo - hi)
            if not exclusive:
                out[i] = acc
    return np.moveaxis(out.reshape(moved.shape), 0, axis)


def _cumlse_kernel(x, axis, *, exclusive, reverse):
    axis = int(axis)
    if not -x.ndim <= axis < x.ndim:  # TF's ScanOp check, the axis named after the wrap
        from tideflow.framework import errors

        raise errors.InvalidArgumentError(
            None, None, f"ScanOp: Expected scan axis in the range [{-x.ndim}, {x.ndim}), but "
            f"got {axis + x.ndim if axis < 0 else axis}")
    if x.dtype in (np.float32, np.float16) and x.size:
        a = np.flip(x, axis) if reverse else x
        out = _cumlse_scan(a, axis % a.ndim, exclusive, np.finfo(x.dtype).min, _typed_step)
        return np.flip(out, axis) if reverse else out
    a = np.asarray(x, np.float64)
    if reverse:
        a = np.flip(a, axis)
    if a.size and not np.isfinite(a).all():
        out = _cumlse_scan(a, axis % a.ndim, exclusive, np.finfo(x.dtype).min)
        return (np.flip(out, axis) if reverse else out).astype(x.dtype, copy=False)
    if exclusive:
        pad = np.full_like(np.take(a, [0], axis=axis), -np.inf)
        a = np.concatenate([pad, np.take(a, range(a.shape[axis] - 1), axis=axis)], axis)
    with np.errstate(all="ignore"):
        out = np.logaddexp.accumulate(a, axis=axis) if a.size else a
    if exclusive and out.size:
        # TF starts an exclusive scan at the dtype's lowest value, not at -inf
        first = [slice(None)] * out.ndim
        first[axis] = 0
        out[tuple(first)] = np.finfo(x.dtype).min
    if reverse:
        out = np.flip(out, axis)
    return out.astype(x.dtype, copy=False)


def _cumlse_grad(op, grad):
    from tideflow.ops.gather_ops import where_v2

    x, axis = op._inputs
    out = op._outputs[0]
    ex, rev = op._attrs["exclusive"], op._attrs["reverse"]
    m = _m()
    low = ops.convert_to_tensor(grad.dtype.base_dtype.min, dtype=grad.dtype.base_dtype)
    pos = m.greater(grad, 0)
    neg = m.less(grad, 0)
    one = ops.convert_to_tensor(1, dtype=grad.dtype.base_dtype)
    log_pos = where_v2(pos, m.log(where_v2(pos, grad, one)), low)
    log_neg = where_v2(neg, m.log(where_v2(neg, -grad, one)), low)
    # d out_j / d x_i = exp(x_i - out_j) for the j whose sum holds x_i: sums run the other way
    g_pos = m.exp(cumulative_logsumexp(log_pos - out, axis, exclusive=ex, reverse=not rev) + x)
    g_neg = m.exp(cumulative_logsumexp(log_neg - out, axis, exclusive=ex, reverse=not rev) + x)
    return [g_pos - g_neg, None]


op_registry.declare(
    "CumulativeLogsumexp",
    inputs=["x: T", "axis: Tidx"],
    outputs=["out: T"],
    attrs=["exclusive: bool = false", "reverse: bool = false", "T: {float16, float32, float64}",
           "Tidx: {int32, int64} = DT_INT32"],
    shape=lambda op: [op._inputs[0]._shape],
    kernel=_cumlse_kernel,
    grad=_cumlse_grad,
)


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """log(cumsum(exp(x))) along ``axis``, computed without overflow."""
    with ops.name_scope(name, "CumulativeLogsumexp", [x]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        return ops.apply_op("CumulativeLogsumexp", [x, axis],
                            {"exclusive": exclusive, "reverse": reverse},
                            name=scope)._outputs[0]


# ------------------------------------------------------------------------------------------
# composed
# ------------------------------------------------------------------------------------------


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The variance of the elements across ``axis``: TF 1.15's mean(square(x - mean(x))),
    in the input's dtype (integers divide as integers; complex stays complex)."""
    from tideflow.ops import reduction_ops

    with ops.name_scope(name or "reduce_variance"):
        mean = reduction_ops.reduce_mean(input_tensor, axis=axis, keepdims=True)
        sq = _m().square(input_tensor - mean)
        return reduction_ops.reduce_mean(sq, axis=axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """The standard deviation of the elements across ``axis``."""
    with ops.name_scope(name or "reduce_std"):
        return _m().sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(sum(x * conj(x))) across ``axis``: TF's ``EuclideanNorm`` op."""
    from tideflow.ops import reduction_ops

    return reduction_ops.reduce_euclidean_norm(input_tensor, axis, keepdims, name)


def polyval(coeffs, x, name=None):
    """sum_i coeffs[i] * x^(n-1-i), by Horner's rule; ``coeffs`` a list of tensors."""
    from tideflow.ops.fill_ops import zeros_like

    if not isinstance(coeffs, (list, tuple)):
        raise ValueError(f"Argument coeffs must be list type found {type(coeffs)}.")  # noqa: TRY004 - as TF
    with ops.name_scope(name, "polyval", list(coeffs) + [x]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        if not coeffs:
            return zeros_like(x, name=scope)  # as TF: the op is named by the scope
        coeffs = [ops.convert_to_tensor(c, dtype=x.dtype.base_dtype, name=f"coeff_{i}")
                  for i, c in enumerate(coeffs)]
        p = coeffs[0]
        for c in coeffs[1:]:
            p = c + p * x
        return p


def _unsorted_segment_n(data, segment_ids, num_segments):
    from tideflow.ops import array_ops, reduction_ops
    from tideflow.ops.concat_ops import concat
    from tideflow.ops.fill_ops import ones

    ones_t = ones(array_ops.shape(segment_ids), dtype=data.dtype.base_dtype)
    n = reduction_ops.unsorted_segment_sum(ones_t, segment_ids, num_segments)
    nd, ns = data.get_shape().ndims, segment_ids.get_shape().ndims
    if nd is not None and ns is not None:  # TF 1.15's: one static broadcast shape
        return _m().maximum(array_ops.reshape(n, [num_segments] + [1] * (nd - ns)), 1)
    num = ops.convert_to_tensor(num_segments)  # (unknown ranks, which TF cannot take)
    extra = array_ops.rank(data) - array_ops.rank(segment_ids)
    shape = concat([array_ops.reshape(num, [1]),
                    ones(array_ops.reshape(extra, [1]), dtype=num.dtype.base_dtype)], 0)
    return _m().maximum(array_ops.reshape(n, shape), 1)


@add_dispatch_support  # RaggedTensor data: tf.ragged's segment reductions
def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """The mean of the rows of ``data`` in each segment (0 for empty segments)."""
    from tideflow.ops import reduction_ops

    with ops.name_scope(name, "UnsortedSegmentMean"):
        data = ops.convert_to_tensor(data)
        segment_ids = ops.convert_to_tensor(segment_ids)
        n = _unsorted_segment_n(data, segment_ids, num_segments)
        total = reduction_ops.unsorted_segment_sum(data, segment_ids, num_segments)
        out = total / n
        out.set_shape(total.get_shape())
        return out


@add_dispatch_support  # RaggedTensor data: tf.ragged's segment reductions
def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """The sum of the rows of ``data`` in each segment divided by sqrt(segment size)."""
    from tideflow.ops import reduction_ops

    with ops.name_scope(name, "UnsortedSegmentSqrtN"):
        data = ops.convert_to_tensor(data)
        segment_ids = ops.convert_to_tensor(segment_ids)
        n = _unsorted_segment_n(data, segment_ids, num_segments)
        total = reduction_ops.unsorted_segment_sum(data, segment_ids, num_segments)
        out = total / _m().sqrt(n)
        out.set_shape(total.get_shape())
        return out


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """The bin index of each value for ``nbins`` equal bins over ``value_range`` (values
    outside go to the first or last bin), shaped like ``values``."""
    from tideflow.ops import array_ops
    from tideflow.ops.cast_ops import cast

    with ops.name_scope(name, "histogram_fixed_width_bins", [values, value_range, nbins]):
        values = ops.convert_to_tensor(values, name="values")
        shape = array_ops.shape(values)
        flat = array_ops.reshape(values, [-1])
        value_range = ops.convert_to_tensor(value_range, name="value_range")
        nbins_t = ops.convert_to_tensor(nbins, dtype=dtypes.int32, name="nbins")
        nbins_value = ops.constant_value(nbins_t)
        if nbins_value is not None and nbins_value.ndim == 0 and int(nbins_value) <= 0:
            # TF checks nbins > 0 with an assertion; a known bad value fails at once
            raise ValueError(f"histogram_fixed_width_bins: nbins {int(nbins_value)} must > 0")
        nb = cast(nbins_t, flat.dtype.base_dtype)
        scaled = _m().truediv(flat - value_range[0], value_range[1] - value_range[0],
                              name="scaled_values")
        idx = _m().floor(nb * scaled, name="indices")
        idx = cast(_m().clip_by_value(idx, 0, nb - 1), dtypes.as_dtype(dtype))
        out = array_ops.reshape(idx, shape)
        out.set_shape(values.get_shape())
        return out


def to_complex64(x, name="ToComplex64"):
    from tideflow.ops.cast_ops import cast

    return cast(x, dtypes.complex64, name=name)


def to_complex128(x, name="ToComplex128"):
    from tideflow.ops.cast_ops import cast

    return cast(x, dtypes.complex128, name=name)

