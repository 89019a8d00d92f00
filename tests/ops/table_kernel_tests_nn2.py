"""Op-table rows for the nn ops added while auditing tf.nn and tf.losses against TF 1.15's
tests: the first batch norm, ``BatchNormWithGlobalNormalization`` (parameters along the last
axis, optional scaling by gamma), and its gradient op."""

import numpy as np

from tests.ops.optable import Case
from tideflow.framework import ops

_T = np.cos(np.arange(2 * 3 * 2 * 4) * 0.9).reshape(2, 3, 2, 4) * 2 + 0.3
_DY = np.sin(np.arange(2 * 3 * 2 * 4) * 1.7).reshape(2, 3, 2, 4)
_M = np.array([0.2, -0.4, 0.1, 0.5])
_V = np.array([1.3, 0.6, 2.2, 0.9])
_BETA = np.array([0.1, 0.0, -0.3, 0.2])
_GAMMA = np.array([1.5, -0.5, 0.8, 2.0])
_EPS = 0.01


def _norm(op_type, scale):
    def build(*tensors):
        out = ops.apply_op(op_type, list(tensors), {"variance_epsilon": _EPS,
                                                     "scale_after_normalization": scale})
        return out._outputs[0] if len(out._outputs) == 1 else list(out._outputs)
    return build


def _ref(t, m, v, beta, gamma, scale):
    return (t - m) / np.sqrt(v + _EPS) * (gamma if scale else 1.0) + beta


def _ref_grad(t, m, v, gamma, dy, scale):
    inv = 1.0 / np.sqrt(v + _EPS)
    g = gamma if scale else 1.0
    axes = (0, 1, 2)
    return [dy * inv * g, -dy.sum(axes) * inv * g,
            (dy * (t - m)).sum(axes) * g * -0.5 * inv ** 3, dy.sum(axes),
            (dy * (t - m) * inv).sum(axes) if scale else np.zeros_like(m)]


CASES = []
for _scale in (True, False):
    CASES.append(Case(
        "BatchNormWithGlobalNormalization", _norm("BatchNormWithGlobalNormalization", _scale),
        [_T, _M, _V, _BETA, _GAMMA],
        lambda *a, s=_scale: _ref(*a, s), rtol=1e-5, atol=1e-5,
        name=f"BatchNormWithGlobalNormalization_scale{_scale}"))
    CASES.append(Case(
        "BatchNormWithGlobalNormalizationGrad",
        _norm("BatchNormWithGlobalNormalizationGrad", _scale), [_T, _M, _V, _GAMMA, _DY],
        lambda *a, s=_scale: _ref_grad(*a, s), grad=False, rtol=1e-5, atol=1e-5,
        name=f"BatchNormWithGlobalNormalizationGrad_scale{_scale}"))
