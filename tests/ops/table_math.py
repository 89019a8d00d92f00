"""Op-table rows for the math ops: elementwise arithmetic, comparisons, logic, complex numbers,
reductions, cumulative and segment ops."""

import math

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.framework import ops as _ops
from tideflow.ops import unary_ops as _unary_ops

try:
    from scipy import special as _special
except ImportError:  # pragma: no cover - scipy is only a test convenience
    _special = None

F = (tf.float16, tf.bfloat16, tf.float32, tf.float64)
F_TF = (tf.float32, tf.float64)
I = (tf.int32, tf.int64)
SMALL_I = (tf.int8, tf.uint8, tf.int16)
C = (tf.complex64, tf.complex128)


def _vals(values, imag=0.25):
    """Inputs from ``values``; complex dtypes get a non-zero imaginary part too."""
    base = np.asarray(values, dtype=np.float64)

    def make(dt):
        if np.dtype(dt).kind == "c":
            return (base + 1j * imag * base[..., ::-1]).astype(dt)
        return base.astype(dt)

    return make


def _f64(fn):
    """A reference computing in float64 (complex128 for complex inputs)."""

    def ref(*xs):
        xs = [x.astype(np.complex128 if x.dtype.kind == "c" else np.float64) for x in xs]
        return fn(*xs)

    return ref


def _special_ref(name, scalar_fn):
    if _special is not None:
        return _f64(getattr(_special, name))
    return _f64(np.vectorize(scalar_fn, otypes=[np.float64]))


POS = [[0.5, 1.2, 2.0], [0.3, 1.7, 0.9]]
SIGNED = [[-1.5, 0.7, 2.2], [0.4, -0.9, 1.3]]
UNIT = [[-0.6, 0.2, 0.45], [0.8, -0.3, 0.1]]
X23 = [[1.5, -2.0, 3.25], [0.5, 4.0, -1.25]]
MOD_X = [[1.6, -1.9, 3.35], [0.6, 4.1, -1.15]]
Y3 = [2.0, -0.5, 1.5]


def _tf_unary(fn):
    return lambda x: fn(x)


CASES = []

# -- unary, float (and complex) ---------------------------------------------------------------
for _op, _fn, _ref, _x, _types in [
    ("Sqrt", tf.sqrt, np.sqrt, POS, F + C),
    ("Rsqrt", tf.rsqrt, lambda x: 1 / np.sqrt(x), POS, F + C),
    ("Exp", tf.exp, np.exp, SIGNED, F + C),
    ("Expm1", tf.expm1, np.expm1, SIGNED, F + C),
    ("Log", tf.log, np.log, POS, F + C),
    ("Log1p", tf.log1p, np.log1p, POS, F + C),
    ("Sin", tf.sin, np.sin, SIGNED, F + C),
    ("Cos", tf.cos, np.cos, SIGNED, F + C),
    ("Tan", tf.tan, np.tan, UNIT, F + C),
    ("Asin", tf.asin, np.arcsin, UNIT, F),
    ("Acos", tf.acos, np.arccos, UNIT, F),
    ("Atan", tf.atan, np.arctan, SIGNED, F),
    ("Sinh", tf.sinh, np.sinh, SIGNED, F + C),
    ("Cosh", tf.cosh, np.cosh, SIGNED, F + C),
    ("Tanh", tf.tanh, np.tanh, SIGNED, F + C),
    ("Sigmoid", tf.sigmoid, lambda x: 1 / (1 + np.exp(-x)), SIGNED, F + C),
    ("Erf", tf.erf, _special_ref("erf", math.erf), SIGNED, F),
    ("Erfc", tf.erfc, _special_ref("erfc", math.erfc), SIGNED, F),
    ("Lgamma", tf.lgamma, _special_ref("gammaln", math.lgamma), SIGNED, F),
    ("Digamma", tf.digamma, _special_ref("digamma", lambda v: float("nan")), SIGNED, F),
    ("Reciprocal", tf.reciprocal, lambda x: 1 / x, SIGNED, F + C),
    ("Inv", tf.inv, lambda x: 1 / x, SIGNED, F + C),
    ("Square", tf.square, np.square, SIGNED, F + C),
    ("Neg", tf.negative, np.negative, SIGNED, F + C),
    ("Sign", tf.sign, np.sign, SIGNED, F + C),
]:
    _ref_fn = _ref if _op in ("Erf", "Erfc", "Lgamma", "Digamma") else _f64(_ref)
    CASES.append(Case(_op, _tf_unary(_fn), [_vals(_x)], _ref_fn, dtypes=_types))

CASES += [
    Case("Abs", tf.abs, [np.array(SIGNED)], np.abs, dtypes=F),
    Case("Abs", tf.abs, [np.array([[-3, 2, 0], [7, -8, 1]])], np.abs,
         dtypes=I + (tf.int8, tf.int16), grad=False, name="Abs_int"),
    # (integer Reciprocal and Tan run only on TF 1.15's XLA_CPU device, whose compilation
    # fails: test_op_sweep_parity26's test_xla_only_kernels_that_fail_to_compile)
    Case(("Neg", "Square", "Sign"),
         lambda x: [tf.negative(x), tf.square(x), tf.sign(x)],
         [np.array([[-3, 2, 1], [7, -1, 1]])],
         lambda x: [-x, x * x, np.sign(x)],
         dtypes=I, grad=False, name="unary_int"),
    Case("Floor", tf.floor, [np.array([[-1.5, 0.5, 2.7], [-0.2, 3.0, 1.49]])], np.floor,
         dtypes=F, grad=False),
    Case("Ceil", tf.ceil, [np.array([[-1.5, 0.5, 2.7], [-0.2, 3.0, 1.49]])], np.ceil,
         dtypes=F, grad=False),
    Case("Rint", tf.rint, [np.array([[-1.5, 0.5, 2.5], [-2.5, 3.0, 1.49]])], np.rint,
         dtypes=F, grad=False),
    Case("Round", tf.round, [np.array([[-1.5, 0.5, 2.5], [-2.5, 3.5, 1.49]])],
         np.round, dtypes=F, grad=False),
    Case("Round", lambda x: _ops.apply_op("Round", [x])._outputs[0],
         [np.array([[-1, 2], [3, 4]])], lambda x: x, dtypes=I, grad=False, name="Round_int"),
    Case(("IsNan", "IsInf", "IsFinite"),
         lambda x: [tf.is_nan(x), tf.is_inf(x), tf.is_finite(x)],
         [np.array([[1.0, np.nan, np.inf], [-np.inf, 0.0, -2.0]])],
         lambda x: [np.isnan(x), np.isinf(x), np.isfinite(x)],
         dtypes=[d for d in F if d != tf.bfloat16], grad=False),
    # TF 1.15's bfloat16 IsFinite lets a NaN through (measured)
    Case(("IsNan", "IsInf", "IsFinite"),
         lambda x: [tf.is_nan(x), tf.is_inf(x), tf.is_finite(x)],
         [np.array([[1.0, np.nan, np.inf], [-np.inf, 0.0, -2.0]])],
         lambda x: [np.isnan(x), np.isinf(x), ~np.isinf(x)], dtypes=[tf.bfloat16], grad=False,
         name="IsNan_bfloat16"),
]


# -- Polygamma, Zeta ----------------------------------------------------------------------------
CASES += [
    Case("Polygamma", _unary_ops.polygamma,
         [np.array([[0.0, 1.0, 2.0], [3.0, 1.0, 0.0]]), _vals(POS)],
         _special_ref("polygamma", lambda n, x: float("nan")), dtypes=F_TF, grad_inputs=[1]),
    Case("Zeta", _unary_ops.zeta, [np.array([[1.5, 2.0, 3.5], [2.5, 4.0, 1.25]]), _vals(POS)],
         _special_ref("zeta", lambda x, q: float("nan")), dtypes=F_TF, grad_inputs=[1]),
]

# -- binary arithmetic ------------------------------------------------------------------------
def _trunc_div(x, y):
    q = np.trunc(x.astype(np.float64) / y.astype(np.float64))
    return q.astype(x.dtype)


INT_X = np.array([[7, -7, 5], [-5, 3, -9]])
INT_Y = np.array([2, -3, 4])
POS_INT_X = np.array([[7, 2, 5], [1, 3, 9]])
POS_INT_Y = np.array([2, 3, 4])

for _op, _fn, _ref, _types in [
    ("Add", tf.add, np.add, F + I + C + SMALL_I),
    ("AddV2", lambda x, y: _ops.apply_op("AddV2", [x, y])._outputs[0], np.add,
     F + I + C + SMALL_I),
    ("Sub", tf.subtract, np.subtract, F + I + C + SMALL_I[:1] + SMALL_I[2:]),
    ("Mul", tf.multiply, np.multiply, F + I + C + SMALL_I),
    ("Maximum", tf.maximum, np.maximum, F + I),  # TF 1.15: no int8/uint8/int16
    ("Minimum", tf.minimum, np.minimum, F + I),
    ("SquaredDifference", tf.squared_difference,
     lambda x, y: np.abs(x - y) ** 2 if x.dtype.kind == "c" else (x - y) ** 2, F + I + C),
]:
    CASES.append(Case(_op, _fn, [_vals(X23), _vals(Y3)], _f64(_ref),
                      dtypes=[d for d in _types if d.is_floating or d.is_complex]))
    _ints = [d for d in _types if d.is_integer]
    _signed = [d for d in _ints if not d.is_unsigned]
    _a, _b = (POS_INT_X, POS_INT_Y) if len(_signed) < len(_ints) else (INT_X, INT_Y)
    CASES.append(Case(_op, _fn, [_a, _b], lambda x, y, _r=_ref: _r(x, y).astype(x.dtype),
                      dtypes=_ints, grad=False, name=f"{_op}_int"))

CASES += [
    Case("Sub", tf.subtract, [np.array([[9, 8, 7], [6, 5, 4]]), np.array([1, 2, 3])],
         lambda x, y: x - y, dtypes=(tf.uint8,), grad=False, name="Sub_uint8"),
    Case("Add", tf.add, [np.array([b"a", b"bc"], dtype=object), np.array(b"!", dtype=object)],
         lambda x, y: np.array([b"a!", b"bc!"], dtype=object), dtypes=(tf.string,),
         fixed=(0, 1), grad=False, name="Add_string"),
    Case(("Div", "RealDiv"),
         lambda x, y: [_ops.apply_op("Div", [x, y])._outputs[0], tf.realdiv(x, y)],
         [_vals(X23), _vals(Y3)], lambda x, y: [x / y, x / y], dtypes=F + C),
    Case(("Div", "TruncateDiv"),
         lambda x, y: [_ops.apply_op("Div", [x, y])._outputs[0], tf.truncatediv(x, y)],
         [INT_X, INT_Y], lambda x, y: [_trunc_div(x, y)] * 2,
         dtypes=I + (tf.int8, tf.int16), grad=False, name="Div_int"),
    Case("FloorDiv", tf.floordiv, [np.array(X23), np.array(Y3)],
         lambda x, y: np.floor(x.astype(np.float64) / y), dtypes=F, grad=False),
    Case("FloorDiv", tf.floordiv, [INT_X, INT_Y], np.floor_divide,
         dtypes=I + (tf.int8, tf.int16), grad=False, name="FloorDiv_int"),
    # TF 1.15 has no CPU TruncateDiv for floats: it runs on XLA_CPU, which does not truncate
    Case("TruncateDiv", tf.truncatediv, [np.array(X23), np.array(Y3)],
         lambda x, y: x.astype(np.float64) / y, dtypes=F_TF, grad=False,
         name="TruncateDiv_float"),
    # MOD_X / Y3 is nowhere an integer, so both inputs sit off the jumps of the remainder
    Case("FloorMod", tf.floormod, [np.array(MOD_X), np.array(Y3)],
         lambda x, y: np.mod(x.astype(np.float64), y), dtypes=F),
    Case("FloorMod", tf.mod, [INT_X, INT_Y], np.mod, dtypes=I, grad=False,
         name="FloorMod_int"),
    Case("TruncateMod", tf.truncatemod, [np.array(MOD_X), np.array(Y3)],
         lambda x, y: np.fmod(x.astype(np.float64), y), dtypes=F, grad=False),
    Case("TruncateMod", tf.truncatemod, [INT_X, INT_Y], np.fmod, dtypes=I, grad=False,
         name="TruncateMod_int"),
    Case("Pow", tf.pow, [_vals(POS), _vals([1.5, -0.5, 2.0])],
         _f64(np.power), dtypes=F + C),
    Case("Pow", tf.pow, [np.array([[2, -3, 5], [0, 1, 4]]), np.array([3, 2, 0])],
         lambda x, y: np.power(x, y), dtypes=I, grad=False, name="Pow_int"),
    # (same shapes: TF 1.15's atan2 gradient reduces no broadcast dimension)
    Case("Atan2", tf.atan2, [np.array(X23), np.array(X23)[::-1] - 0.75], _f64(np.arctan2),
         dtypes=F),
]

# -- comparisons and logic --------------------------------------------------------------------
_CMP_X = np.array([[1, 2, 3], [4, 2, 0]])
_CMP_Y = np.array([2, 2, 1])
for _op, _fn, _ref in [("Less", tf.less, np.less), ("LessEqual", tf.less_equal, np.less_equal),
                       ("Greater", tf.greater, np.greater),
                       ("GreaterEqual", tf.greater_equal, np.greater_equal),
                       ("Equal", tf.equal, np.equal), ("NotEqual", tf.not_equal, np.not_equal)]:
    _types = F + I + SMALL_I + ((C + (tf.bool,)) if _op in ("Equal", "NotEqual") else ())
    CASES.append(Case(_op, _fn, [_CMP_X, _CMP_Y], _ref, dtypes=_types, grad=False))
CASES += [
    Case(("Equal", "NotEqual"), lambda x, y: [tf.equal(x, y), tf.not_equal(x, y)],
         [np.array([b"a", b"b", b"c"], dtype=object), np.array(b"b", dtype=object)],
         lambda x, y: [np.array([False, True, False]), np.array([True, False, True])],
         dtypes=(tf.string,), fixed=(0, 1), grad=False, name="Equal_string"),
    Case("LogicalNot", tf.logical_not, [np.array([[True, False], [False, True]])],
         np.logical_not, dtypes=(tf.bool,), grad=False),
    Case(("LogicalAnd", "LogicalOr"),
         lambda x, y: [tf.logical_and(x, y), tf.logical_or(x, y), tf.logical_xor(x, y)],
         [np.array([[True, False], [False, True]]), np.array([True, False])],
         lambda x, y: [x & y, x | y, x ^ y], dtypes=(tf.bool,), grad=False),
]

# -- AddN, ClipByValue, complex ---------------------------------------------------------------


def _clip_op(t, lo, hi):
    return _ops.apply_op("ClipByValue", [t, lo, hi])._outputs[0]


CASES += [
    Case("AddN", lambda a, b, c: tf.add_n([a, b, c]),
         [_vals(X23), _vals(POS), _vals(SIGNED)], lambda a, b, c: a + b + c,
         dtypes=F + C),
    Case("AddN", lambda a, b: tf.add_n([a, b]), [INT_X, INT_X], lambda a, b: a + b,
         dtypes=I + SMALL_I[:1], grad=False, name="AddN_int"),
    Case("ClipByValue", _clip_op, [np.array(X23), np.array(-1.0), np.array(2.0)],
         lambda t, lo, hi: np.clip(t, lo, hi), dtypes=F, grad_inputs=[0]),
    Case("ClipByValue", _clip_op, [INT_X, np.array(-2), np.array(4)],
         lambda t, lo, hi: np.clip(t, lo, hi), dtypes=I + SMALL_I[:1], grad=False,
         name="ClipByValue_int"),
    Case("ClipByValue", lambda t: tf.clip_by_value(t, -1.0, 2.0), [np.array(X23)],
         lambda t: np.clip(t, -1, 2), dtypes=F_TF, name="clip_by_value"),
    Case("Complex", tf.complex, [np.array(X23), np.array(Y3)],
         lambda x, y: x + 1j * y, dtypes=F_TF, grad=False),
    # complex inputs: the harness checks gradients of real inputs only
    # gradients through complex intermediates, from and to real tensors
    Case(("Complex", "Real", "Imag", "Angle", "ComplexAbs", "Conj"),
         lambda x, y: [tf.real(tf.complex(x, y) * tf.conj(tf.complex(y, x))),
                       tf.imag(tf.square(tf.complex(x, y))), tf.angle(tf.complex(x, y)),
                       tf.abs(tf.complex(x, y) * tf.complex(y, x))],
         [np.array(X23), np.array(Y3)],
         lambda x, y: [np.real((x + 1j * y) * np.conj(y + 1j * x)),
                       np.imag((x + 1j * y) ** 2), np.angle(x + 1j * y),
                       np.abs((x + 1j * y) * (y + 1j * x))],
         dtypes=F_TF, name="complex_grad"),
    Case(("Real", "Imag", "Angle", "ComplexAbs", "Conj"),
         lambda z: [tf.real(z), tf.imag(z), tf.angle(z), tf.abs(z), tf.conj(z)],
         [_vals(X23)], lambda z: [z.real, z.imag, np.angle(z), np.abs(z), np.conj(z)],
         dtypes=C, grad=False),
]

# -- reductions -------------------------------------------------------------------------------
R234 = np.array([[[1.5, -2.0, 3.0, 0.5], [2.0, 1.0, -1.0, 4.0], [0.5, 0.25, 2.0, -3.0]],
                 [[-1.0, 2.5, 1.0, 2.0], [3.0, -0.5, 0.75, 1.0], [1.0, 2.0, -2.0, 0.5]]])
R234_INT = np.array([[[1, -2, 3, 5], [2, 1, -1, 4], [5, 7, 2, -3]],
                     [[-1, 2, 1, 2], [3, -5, 7, 1], [1, 2, -2, 6]]])
R234_POS = np.array([[[1.5, 0.5, 1.25, 0.5], [2.0, 1.0, 0.75, 1.5], [0.5, 1.25, 2.0, 1.0]],
                     [[1.0, 1.5, 1.0, 2.0], [0.5, 0.5, 0.75, 1.0], [1.0, 2.0, 1.5, 0.5]]])


def _int_mean(x, axis, keepdims=False):
    s = np.sum(x.astype(np.int64), axis=axis, keepdims=keepdims)
    n = x.size // s.size
    return np.trunc(s / n).astype(x.dtype)


for _op, _fn, _ref, _x in [
    ("Sum", tf.reduce_sum, np.sum, R234),
    ("Mean", tf.reduce_mean, np.mean, R234),
    ("Prod", tf.reduce_prod, np.prod, R234_POS),
    ("Max", tf.reduce_max, np.max, R234),
    ("Min", tf.reduce_min, np.min, R234),
]:
    CASES.append(Case(
        _op,
        lambda x, _f=_fn: [_f(x, axis=1), _f(x, [0, 2], keepdims=True), _f(x, -1),
                           _f(x, reduction_indices=[0, 1, 2])],
        [_vals(_x, imag=0.1)],
        _f64(lambda x, _r=_ref: [_r(x, axis=1), _r(x, axis=(0, 2), keepdims=True),
                                 _r(x, axis=-1), _r(x)]),
        dtypes=F + (C if _op in ("Sum", "Mean", "Prod") else ())))
    _int_ref = _int_mean if _op == "Mean" else (
        lambda x, axis, keepdims=False, _r=_ref: _r(x, axis=axis, keepdims=keepdims).astype(
            x.dtype))
    CASES.append(Case(
        _op, lambda x, _f=_fn: [_f(x, axis=1), _f(x, [0, 2], keep_dims=True)],
        [R234_INT], lambda x, _r=_int_ref: [_r(x, 1), _r(x, (0, 2), True)],
        dtypes=I + (tf.int8,), grad=False, name=f"{_op}_int"))

CASES += [
    Case("Sum", lambda x: tf.reduce_sum(x, axis=[]), [R234], lambda x: x, dtypes=F_TF,
         name="Sum_no_axes"),
    Case(("All", "Any"),
         lambda x: [tf.reduce_all(x, 1), tf.reduce_any(x, 1), tf.reduce_all(x, [0, 1],
                                                                               keepdims=True)],
         [np.array([[True, False, True], [True, True, True]])],
         lambda x: [x.all(1), x.any(1), x.all((0, 1), keepdims=True)], dtypes=(tf.bool,),
         grad=False),
    Case(("ArgMax", "ArgMin"),
         lambda x: [tf.argmax(x, 1), tf.argmin(x, axis=0, output_type=tf.int32),
                    tf.arg_max(x, 0), tf.argmax(x)],
         [np.array([[3, 1, 4, 0], [5, 9, 2, 6], [8, 7, -1, 2]])],
         lambda x: [np.argmax(x, 1), np.argmin(x, 0).astype(np.int32), np.argmax(x, 0),
                    np.argmax(x, 0)],
         dtypes=F + I + SMALL_I[:1], grad=False),
]


def _cum_ref(fn, identity):
    def ref(x, axis, exclusive=False, reverse=False):
        x = x.astype(np.float64) if x.dtype.kind == "f" or x.dtype.itemsize == 2 else x
        if reverse:
            x = np.flip(x, axis)
        out = fn(x, axis=axis)
        if exclusive:
            out = np.concatenate([np.full_like(np.take(out, [0], axis), identity),
                                  np.delete(out, -1, axis)], axis)
        if reverse:
            out = np.flip(out, axis)
        return out

    return ref


for _op, _fn, _nfn, _id in [("Cumsum", tf.cumsum, np.cumsum, 0),
                            ("Cumprod", tf.cumprod, np.cumprod, 1)]:
    _cref = _cum_ref(_nfn, _id)
    CASES.append(Case(
        _op,
        lambda x, _f=_fn: [_f(x, 1), _f(x, axis=1, exclusive=True), _f(x, 0, reverse=True),
                           _f(x, -1, exclusive=True, reverse=True)],
        [np.array([[1.5, 0.5, 2.0], [0.75, 1.25, 3.0]])],
        lambda x, _r=_cref: [_r(x, 1), _r(x, 1, True), _r(x, 0, False, True),
                                           _r(x, 1, True, True)],
        dtypes=F))
    CASES.append(Case(
        _op, lambda x, _f=_fn: [_f(x, 1), _f(x, 0, exclusive=True, reverse=True)],
        [np.array([[1, -2, 3], [4, 2, -1]])],
        lambda x, _r=_cref: [_r(x, 1).astype(x.dtype),
                                           _r(x, 0, True, True).astype(x.dtype)],
        dtypes=I, grad=False, name=f"{_op}_int"))

# -- segment reductions -----------------------------------------------------------------------
SEG_DATA = np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0], [2.0, 1.0, 0.25],
                     [-3.0, 0.5, 1.0], [1.0, 2.5, -0.5]])
SEG_IDS = np.array([0, 0, 1, 3, 3], dtype=np.int32)


def _segment_ref(kind, empty=0.0):
    def ref(data, ids, *rest):
        num = int(rest[0]) if rest else int(ids.max()) + 1
        data64 = data.astype(np.float64)
        out = np.zeros((num,) + data.shape[1:])
        for s in range(num):
            rows = data64[ids == s]
            if len(rows) == 0:
                out[s] = {"Prod": 1.0}.get(kind, empty)
            else:
                out[s] = {"Sum": np.sum, "Mean": np.mean, "Prod": np.prod, "Max": np.max,
                          "Min": np.min}[kind](rows, axis=0)
        if data.dtype.kind in "iu":
            out = np.trunc(out).astype(data.dtype)
        return out

    return ref


for _kind in ("Sum", "Mean", "Prod", "Max", "Min"):
    _fn = getattr(tf, f"segment_{_kind.lower()}")
    # (TF 1.15 defines no gradient for the sorted SegmentProd)
    CASES.append(Case(f"Segment{_kind}", _fn, [SEG_DATA, SEG_IDS], _segment_ref(_kind),
                      dtypes=F + I, fixed=(1,), grad_inputs=[0], grad=_kind != "Prod"))
    if _kind == "Mean":
        continue
    # a dropped (negative) id and an empty segment for sum/prod; every segment filled for
    # max/min (whose empty segments hold the type's limits: see test_math_ops)
    _ids = [3, 0, -1, 3, 1] if _kind in ("Sum", "Prod") else [3, 0, 2, 3, 1]
    CASES.append(Case(f"UnsortedSegment{_kind}", getattr(tf, f"unsorted_segment_{_kind.lower()}"),
                      [SEG_DATA, np.array(_ids, np.int32),
                       np.array(max(_ids) + (2 if _kind in ("Sum", "Prod") else 1), np.int32)],
                      _segment_ref(_kind), dtypes=F + I, fixed=(1, 2), grad_inputs=[0]))
