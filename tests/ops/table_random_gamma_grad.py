"""RandomGammaGrad: the implicit derivative of Gamma(alpha, 1) draws, against a NumPy reference
built from the regularized lower incomplete gamma function's power series (its alpha
derivative by central differences in float64) and the Gamma density."""

import math

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.framework import ops


def _lower_gamma_p(a, x):
    """P(a, x) = sum_k e^-x x^(a+k) / Gamma(a+k+1), summed until the terms vanish."""
    term = math.exp(-x + a * math.log(x) - math.lgamma(a + 1.0))
    total, k = term, 0
    while term > 1e-18 * total or k < x:
        k += 1
        term *= x / (a + k)
        total += term
    return total


def _ref(alpha, sample):
    out = np.empty(np.broadcast(alpha, sample).shape)
    for i, (a, x) in enumerate(np.broadcast(alpha, sample)):
        a, x = float(a), float(x)  # the reference works in float64 whatever the row dtype
        h = 1e-6 * a
        dp_da = (_lower_gamma_p(a + h, x) - _lower_gamma_p(a - h, x)) / (2 * h)
        pdf = math.exp((a - 1.0) * math.log(x) - x - math.lgamma(a))
        out.flat[i] = -dp_da / pdf
    return out.astype(np.result_type(alpha, sample))


CASES = [
    Case("RandomGammaGrad",
         lambda a, x: ops.apply_op("RandomGammaGrad", [a, x])._outputs[0],
         [np.array([[0.5], [1.0], [2.5], [7.0]]), np.array([0.05, 0.8, 2.0, 6.5])], _ref,
         dtypes=(tf.float32, tf.float64), rtol=1e-5, atol=1e-6, grad=False),
]
