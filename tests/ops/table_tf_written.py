"""Op table rows for ops that graphs written by TF itself hold: the fused derivative ops TF's
gradient functions emit (``TanhGrad(y, dy)`` ...) and ``StaticRegexFullMatch`` (TF 2.x's
Saver)."""

import re

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tests.ops.table_strings import _map, _s
from tideflow.framework import ops as _ops


def _fused(name):
    return lambda y, dy: _ops.apply_op(name, [y, dy]).outputs[0]


_Y = np.array([[0.3, 0.6, 0.9], [1.2, 0.45, 0.7]])
_DY = np.array([[1.5, -2.0, 0.7], [0.25, -0.5, 1.0]])

CASES = [
    Case("TanhGrad", _fused("TanhGrad"), [_Y, _DY], lambda y, dy: dy * (1 - y * y)),
    Case("SigmoidGrad", _fused("SigmoidGrad"), [_Y, _DY], lambda y, dy: dy * y * (1 - y)),
    Case("SqrtGrad", _fused("SqrtGrad"), [_Y, _DY], lambda y, dy: dy * 0.5 / y),
    Case("RsqrtGrad", _fused("RsqrtGrad"), [_Y, _DY], lambda y, dy: -0.5 * dy * y ** 3),
    Case("ReciprocalGrad", _fused("ReciprocalGrad"), [_Y, _DY], lambda y, dy: -dy * y * y),
    Case("InvGrad", _fused("InvGrad"), [_Y, _DY], lambda y, dy: -dy * y * y),
    Case("StaticRegexFullMatch",
         lambda s: _ops.apply_op("StaticRegexFullMatch", [s], {"pattern": "^s3://.*"}).outputs[0],
         [_s("s3://bucket/a", "/tmp/s3://x", "s3://", "gs://b", shape=(2, 2))],
         lambda s: _map(lambda v: re.fullmatch(rb"^s3://.*", v) is not None, s, bool),
         dtypes=(tf.string,), grad=False),
]
