"""Special functions of ``tf.distributions`` (TF 1.x ``special_math``): the standard normal
CDF ``ndtr``, its inverse ``ndtri``, its logarithm ``log_ndtr`` (accurate far into both
tails) and ``log_cdf_laplace``. Built from graph ops, so gradients flow through them and stay
finite in the tails."""


import numpy as np

import tideflow as tf

# Beyond these points log_ndtr switches from log(ndtr(x)) to its asymptotic series (below)
# or to -ndtr(-x) = log1p(-ndtr(-x)) to first order (above); per dtype, as TF 1.x.
LOGNDTR_FLOAT64_LOWER = -20.0
LOGNDTR_FLOAT32_LOWER = -10.0
LOGNDTR_FLOAT64_UPPER = 8.0
LOGNDTR_FLOAT32_UPPER = 5.0

def _float_arg(x, name):
    x = tf.convert_to_tensor(x, name=name)
    if x.dtype.base_dtype not in (tf.float32, tf.float64):
        raise TypeError(f"{name}.dtype={x.dtype} is not handled, see docstring for supported "
                        f"types.")
    return x


def ndtr(x, name="ndtr"):
    """The standard normal CDF, ``0.5 * erfc(-x / sqrt(2))``, for float32/float64 ``x``."""
    with tf.name_scope(name, values=[x]):
        return _ndtr(_float_arg(x, "x"))


def _ndtr(x):
    half_sqrt_2 = tf.constant(0.5 * np.sqrt(2.0), dtype=x.dtype, name="half_sqrt_2")
    w = x * half_sqrt_2
    z = tf.abs(w)
    # erf near 0 (no cancellation), erfc in the tails
    y = tf.where_v2(tf.less(z, half_sqrt_2), 1.0 + tf.erf(w),
                    tf.where_v2(tf.greater(w, 0.0), 2.0 - tf.erfc(z), tf.erfc(z)))
    return 0.5 * y


# Cephes' rational approximations of ndtri, constant term first: p0/q0 for the central
# region, p1/q1 for sqrt(-2 log p) in [2, 8], p2/q2 beyond 8
_NDTRI_P0 = [-1.23916583867381258016e0, 1.39312609387279679503e1, -5.66762857469070293439e1,
             9.80010754185999661536e1, -5.99633501014107895267e1]
_NDTRI_Q0 = [-1.18331621121330003142e0, 1.59056225126211695515e1, -8.20372256168333339912e1,
             2.00260212380060660359e2, -2.25462687854119370527e2, 8.63602421390890590575e1,
             4.67627912898881538453e0, 1.95448858338141759834e0, 1.0]
_NDTRI_P1 = [-8.57456785154685413611e-4, -3.50424626827848203418e-2,
             -1.40256079171354495875e-1, 2.18663306850790267539e0, 1.46849561928858024014e1,
             4.40805073893200834700e1, 5.71628192246421288162e1, 3.15251094599893866154e1,
             4.05544892305962419923e0]
_NDTRI_Q1 = [-9.33259480895457427372e-4, -3.80806407691578277194e-2,
             -1.42182922854787788574e-1, 2.50464946208309415979e0, 1.50425385692907503408e1,
             4.13172038254672030440e1, 4.53907635128879210584e1, 1.57799883256466749731e1, 1.0]
_NDTRI_P2 = [6.23974539184983293730e-9, 2.65806974686737550832e-6, 3.01581553508235416007e-4,
             1.23716634817820021358e-2, 2.01485389549179081538e-1, 1.33303460815807542389e0,
             3.93881025292474443415e0, 6.91522889068984211695e0, 3.23774891776946035970e0]
_NDTRI_Q2 = [6.79019408009981274425e-9, 2.89247864745380683936e-6, 3.28014464682127739104e-4,
             1.34204006088543189037e-2, 2.16236993594496635890e-1, 1.37702099489081330271e0,
             3.67983563856160859403e0, 6.02427039364742014255e0, 1.0]


def _polynomial(var, coeffs):
    """``sum_i coeffs[i] var**i`` by Horner's rule from a zero tensor, highest power first
    (the ops TF 1.x builds)."""
    acc = tf.zeros_like(var)
    for c in np.asarray(coeffs, var.dtype.as_numpy_dtype)[::-1]:
        acc = c + acc * var
    return acc


def ndtri(p, name="ndtri"):
    """The inverse of ``ndtr``: ``x`` with ``ndtr(x) = p`` (-inf at p <= 0, inf at p >= 1),
    from Cephes' rational approximations in graph ops, as TF 1.x."""
    with tf.name_scope(name, values=[p]):
        return _ndtri(_float_arg(p, "p"))


def _ndtri(p):
    np_dtype = p.dtype.as_numpy_dtype
    # the approximations are for p <= 1/2: q = min(p, 1 - p) above exp(-2)'s complement
    q = tf.where_v2(p > -np.expm1(-2.0), 1.0 - p, p)
    q = tf.where_v2(q <= 0.0, tf.fill(tf.shape(p), np.array(0.5, np_dtype)), q)
    w = q - 0.5
    ww = w ** 2
    central = w + w * ww * (_polynomial(ww, _NDTRI_P0) / _polynomial(ww, _NDTRI_Q0))
    central *= -np.sqrt(2.0 * np.pi)
    z = tf.sqrt(-2.0 * tf.log(q))
    first = z - tf.log(z) / z
    far = _polynomial(1.0 / z, _NDTRI_P2) / _polynomial(1.0 / z, _NDTRI_Q2) / z
    near = _polynomial(1.0 / z, _NDTRI_P1) / _polynomial(1.0 / z, _NDTRI_Q1) / z
    tail_far = first - far
    tail_near = first - near
    x = tf.where_v2(q > np.exp(-2.0), central, tf.where_v2(z >= 8.0, tail_far, tail_near))
    x = tf.where_v2(p > 1.0 - np.exp(-2.0), x, -x)
    inf = tf.constant(np.inf, dtype=p.dtype)
    inf = tf.fill(tf.shape(p), inf)
    return tf.where_v2(p <= 0.0, -inf, tf.where_v2(p >= 1.0, inf, x))


def log_ndtr(x, series_order=3, name="log_ndtr"):
    """``log(ndtr(x))``, accurate for very negative ``x`` (an asymptotic series of
    ``series_order`` terms) and for large ``x`` (``-ndtr(-x)``)."""
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    with tf.name_scope(name, values=[x]):
        x = tf.convert_to_tensor(x, name="x")
        if x.dtype.base_dtype == tf.float64:
            lower, upper = LOGNDTR_FLOAT64_LOWER, LOGNDTR_FLOAT64_UPPER
        elif x.dtype.base_dtype == tf.float32:
            lower, upper = LOGNDTR_FLOAT32_LOWER, LOGNDTR_FLOAT32_UPPER
        else:
            raise TypeError(f"x.dtype={x.dtype} is not supported.")
        # the middle and lower branches see x clipped to their range, so no branch makes
        # inf/NaN values or gradients where it is not selected
        return tf.where_v2(tf.greater(x, upper), -_ndtr(-x),
                           tf.where_v2(tf.greater(x, lower),
                                       tf.log(_ndtr(tf.maximum(x, lower))),
                                       _log_ndtr_lower(tf.minimum(x, lower), series_order)))


def _log_ndtr_lower(x, series_order):
    log_scale = -0.5 * tf.square(x) - tf.log(-x) - 0.5 * np.log(2.0 * np.pi)
    return log_scale + tf.log(_asymptotic_series(x, series_order))


def _asymptotic_series(x, order):
    """``1 + sum_n (-1)^n (2n-1)!! / x^(2n)`` for n = 1..order (even and odd terms summed
    apart, as TF 1.x)."""
    np_dtype = x.dtype.as_numpy_dtype
    if order <= 0:
        return np.array(1, np_dtype)
    x2 = tf.square(x)
    even = tf.zeros_like(x)
    odd = tf.zeros_like(x)
    power = x2
    for n in range(1, order + 1):
        term = np.array(np.prod(np.arange(2 * n - 1, 1, -2)), np_dtype) / power
        if n % 2:
            odd += term
        else:
            even += term
        power *= x2
    return 1.0 + even - odd


def log_cdf_laplace(x, name="log_cdf_laplace"):
    """The log CDF of the standard Laplace distribution."""
    with tf.name_scope(name, values=[x]):
        x = tf.convert_to_tensor(x, name="x")
        lower = -np.log(2.0) + x
        # exp(-|x|) stays at most 1 (no overflow for x << 0, where ``lower`` is taken)
        upper = tf.log1p(-0.5 * tf.exp(-tf.abs(x)))
        return tf.where_v2(x < 0.0, lower, upper)


def erfinv(x, name="erfinv"):
    """The inverse error function."""
    with tf.name_scope(name, values=[x]):
        x = _float_arg(x, "x")
        return ndtri((x + 1.0) / 2.0) / np.sqrt(2)
