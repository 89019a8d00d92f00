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


def _rational(x, bound, p_coeffs, q_coeffs):
    """x * P(x^2) / Q(x^2) for x clamped to [-bound, bound], by Horner's rule in float32 (a
    rounded product, then a rounded sum, at each step)."""
    x = np.clip(x, -bound, bound, dtype=_F)
    x2 = x * x
    p = x2 * p_coeffs[0]
    p += p_coeffs[1]
    for c in p_coeffs[2:]:
        p *= x2
        p += c
    p *= x
    q = x2 * q_coeffs[0]
    q += q_coeffs[1]
    for c in q_coeffs[2:]:
        q *= x2
        q += c
    p /= q
    return p


def tanh(x):
    """float32 tanh as TF 1.15's kernel."""
    x = np.asarray(x, dtype=_F)
    return _rational(x.reshape(-1), _F(9), _TANH_P, _TANH_Q).reshape(x.shape)


def sigmoid(x):
    """float32 sigmoid as TF 1.15's kernel (packets, then the scalar tail)."""
    x = np.asarray(x, dtype=_F)
    flat_x = x.reshape(-1)
    out = _rational(flat_x, _F(18), _SIGMOID_P, _SIGMOID_Q)
    out += _F(0.5)
    np.maximum(out, _F(0), out=out)
    tail = flat_x.size % _PACKET
    if tail:
        rest = flat_x[-tail:]
        # glibc's expf is correctly rounded: the float64 exp rounded once gives its value
        with np.errstate(over="ignore"):
            e = np.exp(-rest.astype(np.float64)).astype(_F)
        scalar = _F(1) / (_F(1) + e)
        scalar[rest < -18] = 0
        scalar[rest > 18] = 1
        out[-tail:] = scalar
    return out.reshape(x.shape)
