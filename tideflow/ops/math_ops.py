"""Math ops: elementwise arithmetic, comparisons, logic, complex numbers; Tensor operators.

Reductions live in ``reduction_ops.py``, matrix products and linear algebra in ``linalg_ops.py``.
"""

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.ops import special_functions
from tideflow.ops.elementwise import _binary_shape, _unary_shape, declare_binary, declare_unary

# TF's type lists (math_ops.cc)
_UNARY = "T: {bfloat16, half, float, double, int32, int64, complex64, complex128}"
_UNARY_SIGNED = ("T: {bfloat16, half, float, double, int8, int16, int32, int64, complex64, "
                 "complex128}")
_UNARY_REAL = "T: {bfloat16, half, float, double}"
_UNARY_COMPLEX = "T: {bfloat16, half, float, double, complex64, complex128}"
_BINARY_MORE = ("T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, int64, "
                "complex64, complex128}")
_BINARY_FEWER = "T: {bfloat16, half, float, double, int32, int64, complex64, complex128}"
_MINMAX = "T: {bfloat16, half, float, double, uint8, int8, int16, int32, int64}"
_MOD = "T: {int32, int64, bfloat16, half, float, double}"
_EQUALITY = ("T: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, "
             "quint8, qint8, qint32, string, bool, complex128}")


# ------------------------------------------------------------------------------------------
# kernels
# ------------------------------------------------------------------------------------------


def _keeping_dtype(fn):
    """A kernel computing ``fn(x)`` and returning it in x's dtype (NumPy may promote ints)."""

    def kernel(x):
        return fn(x).astype(x.dtype, copy=False)

    kernel.__name__ = f"_{fn.__name__}_kernel"
    return kernel


def _in_float64(fn):
    """A kernel computing the float64 function ``fn`` and casting back to x's dtype."""

    def kernel(x):
        return fn(np.asarray(x, dtype=np.float64)).astype(x.dtype, copy=False)

    kernel.__name__ = f"_{fn.__name__}_kernel"
    return kernel


def _rsqrt(x):
    return np.reciprocal(np.sqrt(x))


def _sigmoid(x):
    if x.dtype.kind == "c":
        return np.reciprocal(1 + np.exp(-x))
    # exp of -|x| never overflows; 1/(1+e) and e/(1+e) are the two halves of the logistic
    e = np.exp(-np.abs(x))
    r = np.reciprocal(1 + e)
    return np.where(x >= 0, r, e * r)


def _check_divisor(y):
    if not np.all(y):
        raise errors.InvalidArgumentError(None, None, "Integer division by zero")


def _trunc_div_int(x, y):
    _check_divisor(y)
    q = np.floor_divide(x, y)
    if q.dtype.kind == "u":
        return q
    # floor -> truncation: one more where the quotient is negative and inexact
    return q + ((np.remainder(x, y) != 0) & ((x < 0) != (y < 0)))


def _div(x, y):
    """Div/RealDiv: true division for floats, C (truncating) division for integers."""
    if x.dtype.kind in "iu":
        return _trunc_div_int(x, y)
    return np.true_divide(x, y)


def _floor_div(x, y):
    if x.dtype.kind in "iu":
        _check_divisor(y)
        return np.floor_divide(x, y)
    return np.floor(np.true_divide(x, y))


def _truncate_div(x, y):
    if x.dtype.kind in "iu":
        return _trunc_div_int(x, y)
    return np.trunc(np.true_divide(x, y))


def _floor_mod(x, y):
    if x.dtype.kind in "iu":
        _check_divisor(y)
    return np.remainder(x, y)


def _truncate_mod(x, y):
    if x.dtype.kind in "iu":
        _check_divisor(y)
    return np.fmod(x, y)


def _squared_difference(x, y):
    d = np.subtract(x, y)
    if d.dtype.kind == "c":
        return d * np.conj(d)
    return d * d


def _reciprocal(x):
    if x.dtype.kind in "iu":
        _check_divisor(x)
    return np.reciprocal(x)


def _equality(fn, mismatch_value):
    def kernel(x, y, *, incompatible_shape_error):
        if not incompatible_shape_error:
            try:
                np.broadcast_shapes(np.shape(x), np.shape(y))
            except ValueError:
                return np.array(mismatch_value)
        out = fn(x, y)
        if getattr(out, "dtype", None) != np.bool_:  # strings compare as objects
            out = np.asarray(out, dtype=np.bool_)
        return out

    return kernel


def _add_n(inputs):
    first = inputs[0]
    if len(inputs) == 1:
        return first
    shape = np.shape(first)
    for i, x in enumerate(inputs[1:], 1):
        if np.shape(x) != shape:
            raise errors.InvalidArgumentError(
                None, None,
                f"Inputs to operation AddN must have the same size and shape.  Input 0: "
                f"{_dims(shape)} != input {i}: {_dims(np.shape(x))}",
            )
    out = np.add(first, inputs[1])
    for x in inputs[2:]:
        np.add(out, x, out=out)
    return out


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _clip_by_value(t, lo, hi):
    shape = np.shape(t)
    for what, v in (("clip_value_min", lo), ("clip_value_max", hi)):
        if np.ndim(v) != 0 and np.shape(v) != shape:
            raise errors.InvalidArgumentError(
                None, None,
                f"{what} and clip_value_max must be either scalars or have the same shape as "
                f"the input: {what}.shape = {_dims(np.shape(v))} but t.shape = {_dims(shape)}",
            )
    out = np.maximum(np.minimum(t, hi), lo)
    if np.shape(out) != shape:
        out = np.broadcast_to(out, shape).copy()
    return out


def _complex(re, im, *, Tout):
    out = np.empty(np.broadcast_shapes(np.shape(re), np.shape(im)), Tout.as_numpy_dtype)
    out.real = re
    out.imag = im
    return out


# ------------------------------------------------------------------------------------------
# declarations
# ------------------------------------------------------------------------------------------

declare_unary("Neg", "negative", _UNARY_SIGNED)
declare_unary("Abs", "absolute", "T: {bfloat16, half, float, double, int8, int16, int32, int64}")
declare_unary("Sign", "sign", _UNARY)
declare_unary("Square", "square", _UNARY)
declare_unary("Sqrt", "sqrt", _UNARY_COMPLEX)
declare_unary("Rsqrt", _rsqrt, _UNARY_COMPLEX)
declare_unary("Reciprocal", _reciprocal, _UNARY)
declare_unary("Inv", _reciprocal, _UNARY)
declare_unary("Exp", "exp", _UNARY_COMPLEX)
declare_unary("Expm1", "expm1", _UNARY_COMPLEX)
declare_unary("Log", "log", _UNARY_COMPLEX)
declare_unary("Log1p", "log1p", _UNARY_COMPLEX)
declare_unary("Sin", "sin", _UNARY_COMPLEX)
declare_unary("Cos", "cos", _UNARY_COMPLEX)
declare_unary("Tan", _keeping_dtype(np.tan), _UNARY)
declare_unary("Asin", _keeping_dtype(np.arcsin), _UNARY)
declare_unary("Acos", _keeping_dtype(np.arccos), _UNARY)
declare_unary("Atan", _keeping_dtype(np.arctan), _UNARY)
declare_unary("Sinh", "sinh", _UNARY_COMPLEX)
declare_unary("Cosh", "cosh", _UNARY_COMPLEX)
declare_unary("Tanh", "tanh", _UNARY_COMPLEX)
declare_unary("Sigmoid", _sigmoid, _UNARY_COMPLEX)
declare_unary("Erf", _in_float64(special_functions.erf), _UNARY_REAL)
declare_unary("Erfc", _in_float64(special_functions.erfc), _UNARY_REAL)
declare_unary("Lgamma", _in_float64(special_functions.lgamma), _UNARY_REAL)
declare_unary("Digamma", _in_float64(special_functions.digamma), _UNARY_REAL)
declare_unary("Floor", "floor", _UNARY_REAL, differentiable=False)
declare_unary("Ceil", "ceil", _UNARY_REAL, differentiable=False)
declare_unary("Rint", "rint", _UNARY_REAL, differentiable=False)
declare_unary("Round", "round", _UNARY, differentiable=False)
declare_unary("IsNan", "isnan", _UNARY_REAL, out="bool", differentiable=False)
declare_unary("IsInf", "isinf", _UNARY_REAL, out="bool", differentiable=False)
declare_unary("IsFinite", "isfinite", _UNARY_REAL, out="bool", differentiable=False)

declare_binary("Add", "add", _BINARY_MORE[:-1] + ", string}")
declare_binary("AddV2", "add", _BINARY_MORE)
declare_binary("Sub", "subtract", _BINARY_MORE)
declare_binary("Mul", "multiply", _BINARY_MORE)
declare_binary("Div", _div, _BINARY_MORE)
declare_binary("RealDiv", _div, _BINARY_MORE)
declare_binary("FloorDiv", _floor_div, _BINARY_MORE, differentiable=False)
declare_binary("TruncateDiv", _truncate_div, _BINARY_MORE, differentiable=False)
declare_binary("FloorMod", _floor_mod, _MOD)
declare_binary("TruncateMod", _truncate_mod, _MOD)
declare_binary("Pow", "power", _BINARY_FEWER)
declare_binary("Maximum", "maximum", _MINMAX)
declare_binary("Minimum", "minimum", _MINMAX)
declare_binary("SquaredDifference", _squared_difference, _BINARY_FEWER)
op_registry.declare(
    "Atan2", inputs=["y: T", "x: T"], outputs=["z: T"], attrs=[_UNARY_REAL],
    shape=_binary_shape, kernel="arctan2",
)

for _name, _fn in (("Less", "less"), ("LessEqual", "less_equal"), ("Greater", "greater"),
                   ("GreaterEqual", "greater_equal")):
    declare_binary(_name, _fn, "T: realnumbertype", out="bool", differentiable=False)


def _equality_shape(op):
    try:
        return _binary_shape(op)
    except ValueError:
        if op._attrs["incompatible_shape_error"]:
            raise
        return [None]


for _name, _fn, _mismatch in (("Equal", np.equal, False), ("NotEqual", np.not_equal, True)):
    op_registry.declare(
        _name, inputs=["x: T", "y: T"], outputs=["z: bool"],
        attrs=[_EQUALITY, "incompatible_shape_error: bool = true"],
        shape=_equality_shape, kernel=_equality(_fn, _mismatch), differentiable=False,
    )

op_registry.declare("LogicalNot", inputs=["x: bool"], outputs=["y: bool"], shape=_unary_shape,
                    kernel="logical_not", differentiable=False)
for _name, _fn in (("LogicalAnd", "logical_and"), ("LogicalOr", "logical_or")):
    op_registry.declare(_name, inputs=["x: bool", "y: bool"], outputs=["z: bool"],
                        shape=_binary_shape, kernel=_fn, differentiable=False)


def _add_n_shape(op):
    shape = op._inputs[-1]._shape
    for i in range(len(op._inputs) - 2, -1, -1):
        try:
            shape = op._inputs[i]._shape.merge_with(shape)
        except ValueError as e:
            raise ValueError(f"{e}. From merging shape {i} with other shapes.") from None
    return [shape]


op_registry.declare(
    "AddN", inputs=["inputs: N * T"], outputs=["sum: T"], attrs=["N: int >= 1", "T: numbertype"],
    shape=_add_n_shape, kernel=_add_n,
)


def _clip_shape(op):
    t = op._inputs[0]._shape
    for s in (op._inputs[1]._shape, op._inputs[2]._shape):
        if s.ndims not in (None, 0) and not s.is_compatible_with(t):
            raise ValueError(f"Shapes {s} and {t} are incompatible")
    return [t]


op_registry.declare(
    "ClipByValue", inputs=["t: T", "clip_value_min: T", "clip_value_max: T"],
    outputs=["output: T"], attrs=["T: numbertype"], shape=_clip_shape, kernel=_clip_by_value,
)

# complex numbers
_TO_REAL = ["T: {complex64, complex128} = DT_COMPLEX64", "Tout: {float, double} = DT_FLOAT"]
op_registry.declare("Complex", inputs=["real: T", "imag: T"], outputs=["out: Tout"],
                    attrs=["T: {float, double} = DT_FLOAT",
                           "Tout: {complex64, complex128} = DT_COMPLEX64"],
                    shape=_binary_shape, kernel=_complex)
for _name, _fn in (("Real", "real"), ("Imag", "imag"), ("Angle", "angle")):
    op_registry.declare(_name, inputs=["input: T"], outputs=["output: Tout"], attrs=_TO_REAL,
                        shape=_unary_shape, kernel=_fn)
op_registry.declare("ComplexAbs", inputs=["x: T"], outputs=["y: Tout"], attrs=_TO_REAL,
                    shape=_unary_shape, kernel="absolute")
op_registry.declare("Conj", inputs=["input: T"], outputs=["output: T"],
                    attrs=["T: {complex64, complex128, variant} = DT_COMPLEX64"],
                    shape=_unary_shape, kernel="conjugate")


# ------------------------------------------------------------------------------------------
# public API
# ------------------------------------------------------------------------------------------


def _apply(op_type, inputs, name, attrs=None):
    return ops.apply_op(op_type, inputs, attrs, name=name)._outputs[0]


def _unary_fn(op_type, py_name, doc):
    def fn(x, name=None):
        return ops.apply_op(op_type, [x], name=name)._outputs[0]

    fn.__name__ = fn.__qualname__ = py_name
    fn.__doc__ = doc
    return fn


def _binary_fn(op_type, py_name, doc):
    def fn(x, y, name=None):
        return ops.apply_op(op_type, [x, y], name=name)._outputs[0]

    fn.__name__ = fn.__qualname__ = py_name
    fn.__doc__ = doc
    return fn


def _cast(x, dtype):
    # by op type: the array family owns Cast and its wrapper
    if x.dtype.base_dtype == dtype:
        return x
    return ops.apply_op("Cast", [x], {"DstT": dtype})._outputs[0]


negative = _unary_fn("Neg", "negative", "-x elementwise.")
neg = negative
sign = _unary_fn("Sign", "sign", "-1, 0 or 1 by the sign of x (x/|x| for complex x).")
square = _unary_fn("Square", "square", "x * x elementwise.")
sqrt = _unary_fn("Sqrt", "sqrt", "The square root of x elementwise.")
rsqrt = _unary_fn("Rsqrt", "rsqrt", "1 / sqrt(x) elementwise.")
reciprocal = _unary_fn("Reciprocal", "reciprocal", "1 / x elementwise.")
inv = _unary_fn("Inv", "inv", "1 / x elementwise (the 0.x name of reciprocal).")
exp = _unary_fn("Exp", "exp", "e ** x elementwise.")
expm1 = _unary_fn("Expm1", "expm1", "exp(x) - 1 elementwise, accurate near 0.")
log = _unary_fn("Log", "log", "The natural logarithm of x elementwise.")
log1p = _unary_fn("Log1p", "log1p", "log(1 + x) elementwise, accurate near 0.")
sin = _unary_fn("Sin", "sin", "The sine of x elementwise.")
cos = _unary_fn("Cos", "cos", "The cosine of x elementwise.")
tan = _unary_fn("Tan", "tan", "The tangent of x elementwise.")
asin = _unary_fn("Asin", "asin", "The inverse sine of x elementwise.")
acos = _unary_fn("Acos", "acos", "The inverse cosine of x elementwise.")
atan = _unary_fn("Atan", "atan", "The inverse tangent of x elementwise.")
sinh = _unary_fn("Sinh", "sinh", "The hyperbolic sine of x elementwise.")
cosh = _unary_fn("Cosh", "cosh", "The hyperbolic cosine of x elementwise.")
erf = _unary_fn("Erf", "erf", "The Gauss error function of x elementwise.")
erfc = _unary_fn("Erfc", "erfc", "The complementary error function of x elementwise.")
lgamma = _unary_fn("Lgamma", "lgamma", "log(|Gamma(x)|) elementwise.")
digamma = _unary_fn("Digamma", "digamma", "The derivative of lgamma elementwise.")
floor = _unary_fn("Floor", "floor", "The largest integer not greater than x, elementwise.")
ceil = _unary_fn("Ceil", "ceil", "The smallest integer not less than x, elementwise.")
rint = _unary_fn("Rint", "rint", "x rounded to the nearest integer, halves to even.")
is_nan = _unary_fn("IsNan", "is_nan", "Whether each element of x is NaN.")
is_inf = _unary_fn("IsInf", "is_inf", "Whether each element of x is +-inf.")
is_finite = _unary_fn("IsFinite", "is_finite", "Whether each element of x is finite.")
logical_not = _unary_fn("LogicalNot", "logical_not", "NOT x elementwise (bool).")

add = _binary_fn("Add", "add", "x + y elementwise, with broadcasting.")
subtract = _binary_fn("Sub", "subtract", "x - y elementwise, with broadcasting.")
sub = subtract
multiply = _binary_fn("Mul", "multiply", "x * y elementwise, with broadcasting.")
mul = multiply
realdiv = _binary_fn("RealDiv", "realdiv", "x / y for real types (C division for integers).")
truncatediv = _binary_fn("TruncateDiv", "truncatediv", "x / y rounded towards zero.")
floormod = _binary_fn("FloorMod", "floormod", "x mod y with the sign of y (Python's %).")
mod = floormod
truncatemod = _binary_fn("TruncateMod", "truncatemod", "x mod y with the sign of x (C's %).")
maximum = _binary_fn("Maximum", "maximum", "max(x, y) elementwise, with broadcasting.")
minimum = _binary_fn("Minimum", "minimum", "min(x, y) elementwise, with broadcasting.")
squared_difference = _binary_fn("SquaredDifference", "squared_difference",
                                "(x - y) * conj(x - y) elementwise.")
less = _binary_fn("Less", "less", "x < y elementwise.")
less_equal = _binary_fn("LessEqual", "less_equal", "x <= y elementwise.")
greater = _binary_fn("Greater", "greater", "x > y elementwise.")
greater_equal = _binary_fn("GreaterEqual", "greater_equal", "x >= y elementwise.")
logical_and = _binary_fn("LogicalAnd", "logical_and", "x AND y elementwise (bool).")
logical_or = _binary_fn("LogicalOr", "logical_or", "x OR y elementwise (bool).")


def atan2(y, x, name=None):
    """The angle of the point (x, y) elementwise: atan(y / x) in the right quadrant."""
    return _apply("Atan2", [y, x], name)


def equal(x, y, name=None):
    """x == y elementwise, with broadcasting (numbers, bools or strings)."""
    return _apply("Equal", [x, y], name)


def not_equal(x, y, name=None):
    """x != y elementwise, with broadcasting (numbers, bools or strings)."""
    return _apply("NotEqual", [x, y], name)


def logical_xor(x, y, name="LogicalXor"):
    """x XOR y elementwise: (x | y) & ~(x & y)."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


def abs(x, name=None):
    """|x| elementwise; for complex x, the magnitude as a real tensor (ComplexAbs)."""
    with ops.name_scope(name, "Abs", [x]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            return _apply("ComplexAbs", [x], scope, {"Tout": x.dtype.real_dtype})
        return _apply("Abs", [x], scope)


def sigmoid(x, name=None):
    """1 / (1 + exp(-x)) elementwise."""
    with ops.name_scope(name, "Sigmoid", [x]) as scope:
        return _apply("Sigmoid", [x], scope)


def tanh(x, name=None):
    """The hyperbolic tangent of x elementwise."""
    with ops.name_scope(name, "Tanh", [x]) as scope:
        return _apply("Tanh", [x], scope)


def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x), computed without overflow."""
    with ops.name_scope(name, "LogSigmoid", [x]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        # -(log1p(exp(-|x|)) + max(-x, 0))
        soft = add(log1p(exp(negative(abs(x)))), maximum(negative(x), 0))
        return negative(soft, name=scope)


def round(x, name=None):
    """x rounded to the nearest integer, halves to even (integers pass through)."""
    x = ops.convert_to_tensor(x, name="x")
    if x.dtype.is_integer:
        return x
    return _apply("Round", [x], name)


def pow(x, y, name=None):
    """x ** y elementwise, with broadcasting."""
    with ops.name_scope(name, "Pow", [x]) as scope:
        return _apply("Pow", [x, y], scope)


def _same_dtype_pair(x, y):
    x = ops.convert_to_tensor(x, name="x")
    y = ops.convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
    if x.dtype.base_dtype != y.dtype.base_dtype:
        raise TypeError(f"x and y must have the same dtype, got {x.dtype.base_dtype!r} != "
                        f"{y.dtype.base_dtype!r}")
    return x, y


_TRUEDIV_TYPES = {
    dtypes.uint8: dtypes.float32, dtypes.int8: dtypes.float32, dtypes.uint16: dtypes.float32,
    dtypes.int16: dtypes.float32, dtypes.int32: dtypes.float64, dtypes.int64: dtypes.float64,
    dtypes.bfloat16: None, dtypes.float16: None, dtypes.float32: None, dtypes.float64: None,
    dtypes.complex64: None, dtypes.complex128: None,
}


def truediv(x, y, name=None):
    """x / y with Python 3 semantics: integers are cast to floats first (int32 -> float64)."""
    with ops.name_scope(name, "truediv", [x, y]) as scope:
        x, y = _same_dtype_pair(x, y)
        dt = x.dtype.base_dtype
        try:
            target = _TRUEDIV_TYPES[dt]
        except KeyError:
            raise TypeError(f"Invalid dtype {dt!r} in __truediv__") from None
        if target is not None:
            x, y = _cast(x, target), _cast(y, target)
        return _apply("RealDiv", [x, y], scope)


def divide(x, y, name=None):
    """x / y with Python 3 semantics (``truediv``)."""
    return truediv(x, y, name=name)


def div(x, y, name=None):
    """x / y with Python 2 semantics: floor division for integers, true division otherwise."""
    with ops.name_scope(name, "div", [x, y]) as scope:
        x, y = _same_dtype_pair(x, y)
        if x.dtype.is_floating or x.dtype.is_complex:
            return _apply("RealDiv", [x, y], scope)
        return _apply("FloorDiv", [x, y], scope)


def floordiv(x, y, name=None):
    """x // y, rounding towards negative infinity (FloorDiv)."""
    with ops.name_scope(name, "floordiv", [x, y]) as scope:
        return _apply("FloorDiv", [x, y], scope)


def scalar_mul(scalar, x, name=None):
    """scalar * x, where scalar is a 0-d value."""
    scalar = ops.convert_to_tensor(scalar, dtype=ops.convert_to_tensor(x).dtype.base_dtype,
                                   name="scalar")
    shape = scalar.get_shape()
    if shape.ndims == 0:
        return multiply(scalar, x, name=name)
    raise ValueError(f"Only scalar multiply works, got shape {shape}")


def add_n(inputs, name=None):
    """The elementwise sum of a list of tensors of the same shape and dtype."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype and "
                         "shape")
    inputs = ops.convert_n_to_tensor(inputs)
    if len(inputs) == 1:
        if name:
            from tideflow.ops.array_ops import identity

            return identity(inputs[0], name=name)
        return inputs[0]
    return _apply("AddN", [list(inputs)], name)


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clips t elementwise to [clip_value_min, clip_value_max]."""
    values = [t, clip_value_min, clip_value_max]
    with ops.name_scope(name, "clip_by_value", values) as scope:
        t = ops.convert_to_tensor(t, name="t")
        lo = ops.convert_to_tensor(clip_value_min, dtype=t.dtype.base_dtype, name="clip_value_min")
        hi = ops.convert_to_tensor(clip_value_max, dtype=t.dtype.base_dtype, name="clip_value_max")
        ts = t.get_shape()

        def fits(s):
            return s.ndims == 0 or (ts.is_fully_defined() and s.is_fully_defined() and s == ts)

        if fits(lo.get_shape()) and fits(hi.get_shape()):
            return _apply("ClipByValue", [t, lo, hi], scope)
        # bounds that broadcast: min/max composition, as TF's Python implementation
        out = maximum(minimum(t, hi), lo, name=scope)
        out.get_shape().merge_with(ts)
        return out


def complex(real, imag, name=None):
    """real + imag * 1j: float32 parts give complex64, float64 parts complex128."""
    real = ops.convert_to_tensor(real, name="real")
    imag = ops.convert_to_tensor(imag, name="imag")
    in_type = real.dtype.base_dtype
    if in_type != imag.dtype.base_dtype:
        raise TypeError(f"real and imag must have the same dtype, got {in_type.name} and "
                        f"{imag.dtype.base_dtype.name}")
    if in_type == dtypes.float32:
        tout = dtypes.complex64
    elif in_type == dtypes.float64:
        tout = dtypes.complex128
    else:
        raise TypeError(f"Types of real and imag don't match: {in_type.name} "
                        f"{imag.dtype.base_dtype.name}")
    return _apply("Complex", [real, imag], name, {"Tout": tout})


def real(input, name=None):
    """The real part of a complex tensor (a real tensor passes through)."""
    with ops.name_scope(name, "Real", [input]) as scope:
        input = ops.convert_to_tensor(input, name="input")
        if input.dtype.is_complex:
            return _apply("Real", [input], scope, {"Tout": input.dtype.real_dtype})
        return input


def imag(input, name=None):
    """The imaginary part of a complex tensor."""
    with ops.name_scope(name, "Imag", [input]) as scope:
        input = ops.convert_to_tensor(input, name="input")
        return _apply("Imag", [input], scope, {"Tout": input.dtype.real_dtype})


def angle(input, name=None):
    """The argument of each complex element (0 or pi for real tensors)."""
    with ops.name_scope(name, "Angle", [input]) as scope:
        input = ops.convert_to_tensor(input, name="input")
        if input.dtype.is_complex:
            return _apply("Angle", [input], scope, {"Tout": input.dtype.real_dtype})
        return atan2(ops.convert_to_tensor(0, dtype=input.dtype.base_dtype), input, name=scope)


def conj(x, name=None):
    """The complex conjugate of x (real tensors pass through)."""
    with ops.name_scope(name, "Conj", [x]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        if x.dtype.is_complex or x.dtype.base_dtype == dtypes.variant:
            return _apply("Conj", [x], scope)
        if x.dtype.is_floating or x.dtype.is_integer:
            return x
        raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype!r}")


# ------------------------------------------------------------------------------------------
# Python operators on Tensors
# ------------------------------------------------------------------------------------------


def _binary_operator(fn, name):
    def op(x, y):
        with ops.name_scope(None, name, [x, y]) as scope:
            if not isinstance(y, ops.Tensor):
                y = ops.convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
            return fn(x, y, name=scope)

    def rop(y, x):
        with ops.name_scope(None, name, [x, y]) as scope:
            x = ops.convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
            return fn(x, y, name=scope)

    return op, rop


def _override_binary(op_name, fn, name):
    op, rop = _binary_operator(fn, name)
    ops.Tensor._override_operator(f"__{op_name}__", op)
    ops.Tensor._override_operator(f"__r{op_name}__", rop)


_override_binary("add", add, "add")
_override_binary("sub", subtract, "sub")
_override_binary("mul", multiply, "mul")
_override_binary("truediv", truediv, "truediv")
_override_binary("floordiv", floordiv, "floordiv")
_override_binary("mod", floormod, "mod")
_override_binary("pow", pow, "pow")
_override_binary("and", logical_and, "and")
_override_binary("or", logical_or, "or")
_override_binary("xor", logical_xor, "xor")
ops.Tensor._override_operator("__lt__", less)
ops.Tensor._override_operator("__le__", less_equal)
ops.Tensor._override_operator("__gt__", greater)
ops.Tensor._override_operator("__ge__", greater_equal)
ops.Tensor._override_operator("__neg__", negative)
ops.Tensor._override_operator("__abs__", abs)
ops.Tensor._override_operator("__invert__", logical_not)


# TF keeps reductions and matrix products in math_ops; here they have their own modules
from tideflow.ops.linalg_ops import batch_matmul, matmul, tensordot  # noqa: F401
from tideflow.ops.reduction_ops import (  # noqa: F401
    arg_max,
    arg_min,
    argmax,
    argmin,
    count_nonzero,
    cumprod,
    cumsum,
    reduce_all,
    reduce_any,
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
    segment_max,
    segment_mean,
    segment_min,
    segment_prod,
    segment_sum,
    unsorted_segment_max,
    unsorted_segment_min,
    unsorted_segment_prod,
    unsorted_segment_sum,
)
