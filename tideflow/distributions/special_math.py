"""Special functions of ``tf.distributions`` (TF 1.x ``special_math``): the standard normal
CDF ``ndtr``, its inverse ``ndtri``, its logarithm ``log_ndtr`` (accurate far into both
tails) and ``log_cdf_laplace``. Built from graph ops, so gradients flow through them and stay
finite in the tails."""

import math

import numpy as np

import tideflow as tf

# Beyond these points log_ndtr switches from log(ndtr(x)) to its asymptotic series (below)
# or to -ndtr(-x) = log1p(-ndtr(-x)) to first order (above); per dtype, as TF 1.x.
LOGNDTR_FLOAT64_LOWER = -20.0
LOGNDTR_FLOAT32_LOWER = -10.0
LOGNDTR_FLOAT64_UPPER = 8.0
LOGNDTR_FLOAT32_UPPER = 5.0

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def _float_arg(x, name):
    x = tf.convert_to_tensor(x, name=name)
    if x.dtype.base_dtype not in (tf.float32, tf.float64):
        raise TypeError(f"x.dtype={x.dtype} is not handled, see docstring for supported "
                        f"types.")
    return x


def ndtr(x, name="ndtr"):
    """The standard normal CDF, ``0.5 * erfc(-x / sqrt(2))``, for float32/float64 ``x``."""
    with tf.name_scope(name, values=[x]):
        x = _float_arg(x, "x")
        w = x * np.sqrt(0.5)
        z = tf.abs(w)
        # erf near 0 (no cancellation), erfc in the tails
        y = tf.where(tf.less(z, np.sqrt(0.5)), 1.0 + tf.erf(w),
                     tf.where(tf.greater(w, 0.0), 2.0 - tf.erfc(z), tf.erfc(z)))
        return 0.5 * y


def ndtri(p, name="ndtri"):
    """The inverse of ``ndtr``: ``x`` with ``ndtr(x) = p``."""
    with tf.name_scope(name, values=[p]):
        p = _float_arg(p, "p")
        # -inf at p <= 0 and inf at p >= 1 (as TF 1.x), with a zero rather than infinite
        # gradient there: the kernel only sees p inside (0, 1)
        edge = tf.logical_or(tf.less_equal(p, 0.0), tf.greater_equal(p, 1.0))
        inner = tf.math.ndtri(tf.where(edge, tf.fill(tf.shape(p), tf.constant(0.5, p.dtype)), p))
        inf = tf.fill(tf.shape(p), tf.constant(np.inf, p.dtype))
        return tf.where(tf.less_equal(p, 0.0), -inf, tf.where(tf.greater_equal(p, 1.0), inf,
                                                            inner))


def _series(x, order):
    """``1 + sum_n (-1)^n (2n-1)!! / x^(2n)`` for n = 1..order."""
    x2 = tf.square(x)
    total = tf.ones_like(x)
    power = x2
    coeff = 1.0
    for n in range(1, order + 1):
        coeff *= 2 * n - 1
        term = coeff / power
        total = total - term if n % 2 else total + term
        power = power * x2
    return total


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
        x = _float_arg(x, "x")
        if x.dtype.base_dtype == tf.float64:
            lower, upper = LOGNDTR_FLOAT64_LOWER, LOGNDTR_FLOAT64_UPPER
        else:
            lower, upper = LOGNDTR_FLOAT32_LOWER, LOGNDTR_FLOAT32_UPPER
        # each branch sees only inputs in its own range, so no branch makes inf/NaN
        # values or gradients where it is not selected
        mid = tf.log(ndtr(tf.maximum(x, lower)))
        high = -ndtr(-tf.maximum(x, upper))
        xl = tf.minimum(x, lower)
        low = (-0.5 * tf.square(xl) - tf.log(-xl) - _LOG_SQRT_2PI
               + tf.log(_series(xl, series_order)))
        return tf.where(tf.greater(x, upper), high, tf.where(tf.greater(x, lower), mid, low))


def log_cdf_laplace(x, name="log_cdf_laplace"):
    """The log CDF of the standard Laplace distribution."""
    with tf.name_scope(name, values=[x]):
        x = tf.convert_to_tensor(x, name="x")
        lower = -np.log(2.0) + x
        safe_pos = tf.maximum(x, 0.0)
        upper = tf.log1p(-0.5 * tf.exp(-safe_pos))
        return tf.where(tf.less(x, 0.0), lower, upper)


def erfinv(x, name="erfinv"):
    """The inverse error function."""
    with tf.name_scope(name, values=[x]):
        x = _float_arg(x, "x")
        return ndtri((x + 1.0) / 2.0) / np.sqrt(2.0)
