"""Sigmoid and the piecewise activations (Elu, Selu, LeakyRelu, their gradients) combine their
pieces without np.where: checked against the np.where forms, including NumPy scalars, 0-d
arrays, signed zeros, infinities and NaN."""

import numpy as np
import pytest

from tideflow.ops import nn_ops, unary_ops

_SPECIAL = np.float32([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 80, -80, 100, -100])
_S, _A = nn_ops._SELU_SCALE, nn_ops._SELU_ALPHA


def _inputs():
    rng = np.random.RandomState(0)
    x = np.concatenate([rng.standard_normal(500).astype(np.float32) * 5, _SPECIAL])
    return x, rng.standard_normal(x.size).astype(np.float32)


def _same(got, want, rtol=0.0, atol=0.0):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=rtol, atol=atol)


def test_sigmoid_matches_the_branching_form():
    x, _ = _inputs()
    e = np.exp(-np.abs(x.astype(np.float64)))
    # (float64 denormals keep a few bits: hence the tiny atol)
    _same(unary_ops._sigmoid(x.astype(np.float64)), np.where(x >= 0, 1 / (1 + e), e / (1 + e)),
          rtol=2e-7, atol=1e-300)
    # float32 is TF 1.15's rational approximation: close in absolute terms, 0 below ~-15.9
    _same(unary_ops._sigmoid(x), np.where(x >= 0, 1 / (1 + e), e / (1 + e)), rtol=0,
          atol=2e-7)
    for v in (np.float32(2.5), np.float64(-3.0), np.array(0.5, np.float32)):
        got = unary_ops._sigmoid(v)
        assert np.asarray(got).dtype == np.asarray(v).dtype
        np.testing.assert_allclose(got, 1 / (1 + np.exp(-np.float64(v))), rtol=2e-7)


@pytest.mark.parametrize("scalar", [False, True])
def test_piecewise_activations_match_the_branching_forms(scalar):
    x, g = _inputs()
    if scalar:
        x, g = x[:20], g[:20]
    pick = (lambda a: [np.float32(v) for v in a]) if scalar else (lambda a: [a])
    for xs, gs in zip(pick(x), pick(g)):
        y = np.where(xs < 0, np.expm1(np.minimum(xs, 0)), xs)
        _same(nn_ops._elu(xs), y)
        _same(nn_ops._elu_grad(gs, y), np.where(y < 0, gs * (y + 1), gs))
        ys = np.where(xs < 0, _S * _A * np.expm1(np.minimum(xs, 0)), _S * xs)
        _same(nn_ops._selu(xs), ys, rtol=1e-7)
        _same(nn_ops._selu_grad(gs, ys), np.where(ys < 0, gs * (ys + _S * _A), gs * _S),
              rtol=1e-7)
        for alpha in (0.2, 0.0, 1.0, 3.0):
            a = np.float32(alpha)
            with np.errstate(invalid="ignore"):
                _same(nn_ops._leaky_relu(xs, alpha=alpha), np.where(xs > 0, xs, xs * a))
            _same(nn_ops._leaky_relu_grad(gs, xs, alpha=alpha), np.where(xs > 0, gs, gs * a))
