"""Elementwise unary math ops (Neg, Abs, Exp, Log, trigonometric, special functions, ...), each
declared with its gradient, and their public wrappers; ``math_ops`` re-exports the wrappers.
"""

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.dispatch import add_dispatch_support
from tideflow.ops import (
    cephes_float32,
    eigen_float32,
    eigen_float64,
    glibc_float32,
    special_functions,
)
from tideflow.ops.elementwise import _binary_shape, _complex_div, _complex_mul, declare_unary

# TF's type lists (math_ops.cc)
_UNARY = "T: {bfloat16, half, float, double, int32, int64, complex64, complex128}"
_UNARY_SIGNED = "T: {bfloat16, half, float, double, int32, int64, complex64, complex128}"
_UNARY_REAL = "T: {bfloat16, half, float, double}"
_UNARY_COMPLEX = "T: {bfloat16, half, float, double, complex64, complex128}"
_BFLOAT16 = np.dtype(dtypes.bfloat16.as_numpy_dtype)
_TWO_OVER_SQRT_PI = 2.0 / np.sqrt(np.pi)


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
    """A kernel computing the float64 function ``fn`` and casting back to x's dtype (float32
    denormal results flushed to zero, as TF's CPU threads do: erfc(10) is 0)."""

    def kernel(x):
        out = fn(np.asarray(x, dtype=np.float64)).astype(x.dtype, copy=False)
        if x.dtype == np.float32 and out.ndim:
            return eigen_float32._flush_denormals(out)
        return out

    kernel.__name__ = f"_{fn.__name__}_kernel"
    return kernel


def _rsqrt(x):
    """1 / sqrt(x), each step rounded in x's type: Eigen's scalar rsqrt, which the Rsqrt kernel
    and the training and batch-norm kernels use on the last ``size % 8`` elements. On whole
    8-float packets TF 1.15's float32 kernels take the CPU's approximate reciprocal square
    root (``rsqrtps``) refined by one Newton step, so their bits depend on the CPU maker's
    table, which no IEEE arithmetic reproduces: those elements keep this correctly rounded
    form (docs/design.md)."""
    return np.reciprocal(np.sqrt(x))


_F32_MIN = np.float32(np.finfo(np.float32).tiny)


def _rsqrt_kernel(x):
    """The Rsqrt kernel: ``_rsqrt``, with what TF 1.15's float32 packet code (Eigen's prsqrt,
    whole 8-float packets) gives where no approximation of the CPU's decides it: +inf for
    |x| < FLT_MIN (-0 included; a denormal is +-inf in the scalar tail too, read as +-0), NaN for
    +inf (its Newton step multiplies inf by 0), and 1.5 times the root where a factor of that
    step is denormal and flushed (x < 2 * FLT_MIN, or x > ~8.5e37 where y * y is)."""
    out = _rsqrt(x)
    if x.dtype != np.float32 or out.size == 0:
        return out
    lo, hi = out.min(), out.max()
    if lo >= 1.1e-19 and hi <= 6.0e18:  # (all finite, normal and unflushed: the common case)
        return out
    out = np.array(out, copy=True).reshape(-1)
    flat = x.reshape(-1)
    with np.errstate(all="ignore"):
        tiny = (flat > -_F32_MIN) & (flat < _F32_MIN)
        out[tiny & (flat != 0)] = np.copysign(np.inf, flat[tiny & (flat != 0)])  # DAZ: +-0
        head = flat.size - flat.size % 8
        fx, fo = flat[:head], out[:head]
        fo[tiny[:head]] = np.inf
        fo[fx == np.inf] = np.nan
        flushed = ((fx >= _F32_MIN) & (fx < 2 * _F32_MIN)) | ((fo * fo < _F32_MIN) & (fo > 0))
        fo[flushed] *= np.float32(1.5)
    return out.reshape(x.shape)


def _sqrt_kernel(x, out=None):
    """The Sqrt kernel: NumPy's correctly rounded root, with what TF 1.15's float32 code gives
    where no approximation of the CPU's decides it. Whole 8-float packets (Eigen's psqrt,
    ``x * r * (1.5 - 0.5 x r^2)`` with ``r = rsqrtps(x)``) give +0 for -0 and every
    |x| < FLT_MIN (a denormal reads as 0), NaN for +inf (inf * 0), and 1.5 times the root where
    a factor of the Newton step is denormal and flushed (x < 2 * FLT_MIN, or x > ~8.5e37 where
    r * r is); the last ``size % 8`` elements (``std::sqrt``) read a denormal as a signed 0."""
    if x.dtype != np.float32 or x.size == 0:
        return np.sqrt(x, out=out)
    lo, hi = x.min(), x.max()
    if lo >= 2 * _F32_MIN and hi <= 8.5e37:  # (all normal and unflushed: the common case)
        return np.sqrt(x, out=out)
    flat = x.reshape(-1)
    with np.errstate(all="ignore"):
        res = np.sqrt(flat)
        sub = (flat > -_F32_MIN) & (flat < _F32_MIN)
        res[sub] = np.copysign(np.float32(0), flat[sub])  # DAZ: sqrt(+-0)
        head = flat.size - flat.size % 8
        fx, fo = flat[:head], res[:head]
        fo[sub[:head]] = 0  # (the packet's mask: +0 for -0 and every denormal)
        fo[fx == np.inf] = -np.nan
        big = fx > 8.5e37
        r = np.float32(1) / fo[big]
        fo[big] = np.where(r * r < _F32_MIN, fo[big] * np.float32(1.5), fo[big])
        fo[(fx >= _F32_MIN) & (fx < 2 * _F32_MIN)] *= np.float32(1.5)
    res = res.reshape(x.shape)
    if out is not None:
        out[...] = res
        return out
    return res


def _glibc_float32(fn32, other, denormal=None):
    """A kernel computing float32 ``x`` by ``fn32`` (glibc's float function, which TF 1.15's
    kernel calls per element; ``glibc_float32``); other types by ``other``.

    TF's CPU threads run with denormals flushed to zero, as results (FTZ) and as operands
    (DAZ): a denormal result of arithmetic is zero, but one the function returns untouched
    (``tan(x)`` is x for tiny x) stays; ``denormal(x)`` gives the value for denormal inputs
    where DAZ changes it."""

    def kernel(x):
        if x.dtype != np.float32:
            return other(x)
        flat = x.reshape(-1)
        out = np.asarray(fn32(flat), dtype=np.float32)
        out = _flush_computed(out, flat)
        if denormal is not None:
            sub = (np.abs(flat) < _TINY32) & (flat != 0)
            if sub.any():
                out[sub] = denormal(flat[sub])
        return out.reshape(x.shape)

    kernel.__name__ = f"_{fn32.__name__}_kernel"
    return kernel


_TINY32 = np.finfo(np.float32).tiny


def _flush_computed(out, source):
    """``out`` with its denormals zeroed (keeping the sign) but where it is ``source``'s value,
    bit for bit (a function returning its argument does no arithmetic to flush)."""
    sub = np.abs(out) < _TINY32
    if sub.any():
        sub &= out.view(np.int32) != source.view(np.int32)
        out[sub] *= np.float32(0)
    return out


def _erf_denormal(x):
    return np.copysign(np.float32(0), x)  # (erf's tiny path scales x, read as a zero)


def _lgamma_denormal(x):
    # -logf(x): glibc's logf scales a subnormal by 2^23 first, which DAZ reads as a zero,
    # leaving the bits -(23 << 23): 103.97208 (0x42cff1b4), measured in TF 1.15
    return np.full(x.shape, np.uint32(0x42cff1b4).view(np.float32))


def _digamma_denormal(x):
    return np.full(x.shape, np.float32(np.inf))  # (x <= 0 holds for it under DAZ: a pole)


def _sigmoid(x):
    if x.dtype.kind == "c":  # (Eigen's scalar 1 / (1 + exp(-x)): libgcc's division)
        from tideflow.ops.elementwise import _complex_div

        with np.errstate(all="ignore"):
            return _complex_div(np.ones((), x.dtype), 1 + np.exp(-x), packets=False)
    if x.dtype == np.float16:
        # TF 1.15's half kernel: 1 / (1 + exp(-x)), each step rounded to half
        one = x.dtype.type(1)
        with np.errstate(over="ignore"):
            return one / (one + np.exp(-x))
    if x.dtype == _BFLOAT16:
        # TF 1.15's bfloat16 kernel: 0.5 + 0.5 * tanh(0.5 * x), each step rounded
        half = x.dtype.type(0.5)
        return half + half * np.tanh((half * x).astype(np.float32)).astype(x.dtype)
    if x.dtype == np.float32:
        return eigen_float32.sigmoid(x)
    if x.dtype == np.float64:  # (Eigen's 1 / (1 + exp(-x)), its packet exp on groups of 4)
        with np.errstate(over="ignore"):
            return 1.0 / (1.0 + eigen_float64.exp(-x))
    return logistic(x)


def _float32_as_tf(eigen_fn, ufunc):
    """A kernel taking ``out=`` as a ufunc does (it may write into a dying input): float32 by
    TF's own arithmetic (``eigen_fn``), other types by ``ufunc``."""

    def kernel(x, out=None):
        if x.dtype != np.float32:
            return ufunc(x, out=out)
        y = eigen_fn(x)
        if out is None:
            return y
        out[...] = y
        return out

    kernel.__name__ = f"_{ufunc.__name__}_kernel"
    return kernel


_tanh = _float32_as_tf(eigen_float32.tanh, np.tanh)


def _exp_ufunc(x, out=None):
    if x.dtype == np.float64:
        return eigen_float64.exp(x, out=out)
    return np.exp(x, out=out)


_exp_ufunc.__name__ = "exp"
_exp = _float32_as_tf(eigen_float32.exp, _exp_ufunc)
_log = _float32_as_tf(eigen_float32.log, np.log)


def _complex_log1p(x, out=None):
    """Complex log1p as TF 1.15's kernel (Eigen's scalar ``log1p_impl``): x where 1 + x
    rounds to 1 or its log to itself, else x * (log(1 + x) / ((1 + x) - 1)), with std::complex's
    products and quotients; log1p(-1) is -inf + NaN j."""
    with np.errstate(all="ignore"):
        x1p = x + 1
        log_1p = np.log(x1p)
        r = _complex_mul(x, _complex_div(log_1p, x1p - 1, packets=False), packets=False)
        r = np.where((x1p == 1) | (x1p == log_1p), x, r).astype(x.dtype, copy=False)
    return _into(out, r)


def _complex_expm1(x, out=None):
    """Complex expm1 as TF 1.15's kernel (Eigen's scalar ``expm1_impl``): with u = exp(x),
    x where u is 1, -1 where u - 1 is, u where log(u) is, else (u - 1) * x / log(u), so a point
    whose imaginary part lies outside (-pi, pi] is scaled by x / log(exp(x)) (TF's value, not
    exp(x) - 1)."""
    with np.errstate(all="ignore"):
        u = np.exp(x)
        um1 = u - 1
        logu = np.log(u)
        r = _complex_div(_complex_mul(um1, x, packets=False), logu, packets=False)
        r = np.where(u == logu, u, r)
        r = np.where(um1 == -1, -1, np.where(u == 1, x, r)).astype(x.dtype, copy=False)
    return _into(out, r)


def _into(out, r):
    if out is None:
        return r
    out[...] = r
    return out


def _log1p_ufunc(x, out=None):
    return _complex_log1p(x, out) if x.dtype.kind == "c" else np.log1p(x, out=out)


def _expm1_ufunc(x, out=None):
    return _complex_expm1(x, out) if x.dtype.kind == "c" else np.expm1(x, out=out)


_log1p_ufunc.__name__, _expm1_ufunc.__name__ = "log1p", "expm1"
_log1p = _float32_as_tf(eigen_float32.log1p, _log1p_ufunc)
_expm1 = _float32_as_tf(eigen_float32.expm1, _expm1_ufunc)
_sin = _float32_as_tf(eigen_float32.sin, np.sin)
_cos = _float32_as_tf(eigen_float32.cos, np.cos)


def logistic(x):
    """1 / (1 + e^-x) for real ``x`` without overflow: with e = e^-|x|, 1/(1+e) for x >= 0 and
    e/(1+e) below. The numerator is max(e, [x >= 0]) (1 or e, exactly), so no branch on the
    sign: np.where on a random mask costs 4x the whole computation."""
    x = np.asarray(x)  # a NumPy scalar has no buffer to work in
    e = np.abs(x)
    if e.ndim == 0:
        e = np.exp(-e)
    else:
        np.negative(e, out=e)
        np.exp(e, out=e)
    if x.dtype not in (np.float32, np.float64):  # half, bfloat16
        return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)
    num = np.maximum(e, x >= 0, dtype=x.dtype)
    return np.divide(num, e + 1, out=num) if num.ndim else num / (e + 1)


def check_divisor(y, x=None, truncating=False):
    """Raises InvalidArgumentError when an integer divisor holds a zero.

    With the dividend ``x`` given, an empty broadcast result divides nothing and never raises
    (TF's binary kernels return before computing an empty output). TF 1.15 names the zero
    for Div, Mod, FloorDiv and FloorMod only: TruncateDiv and TruncateMod (``truncating``)
    fail with its InternalError for an error it did not expect."""
    if isinstance(y, np.generic) and (x is None or isinstance(x, np.generic)):
        if not y:  # two scalars (shape arithmetic): no broadcast to look at
            _divided_by_zero(truncating)
        return
    if x is not None and np.broadcast(x, y).size == 0:
        return
    if not np.all(y):
        _divided_by_zero(truncating)


def _divided_by_zero(truncating):
    if truncating:
        raise errors.InternalError(None, None, "Unexpected error in binary operator (only "
                                   "integer div and mod should have errors)")
    raise errors.InvalidArgumentError(None, None, "Integer division by zero")


def _reciprocal(x):
    if x.dtype.kind in "iu":
        check_divisor(x)
    if x.dtype.kind == "c":  # 1 / x as TF's complex division rounds
        return _complex_div(np.ones((), x.dtype), x)
    return np.reciprocal(x)


def _square_kernel(ctx):
    # complex on the host as TF's kernel rounds x * x (NumPy's complex square fuses)
    return (lambda x, out=None: _complex_mul(x, x, out=out)) if ctx.op._attrs[
        "T"].is_complex else np.square


# ------------------------------------------------------------------------------------------
# gradients (TF's math_grad.py conventions: complex inputs get conjugated derivatives)
# ------------------------------------------------------------------------------------------


def _conj(x):
    return ops.apply_op("Conj", [x])._outputs[0] if x.dtype.is_complex else x


def _neg_grad(op, grad):
    return -grad


def _abs_grad(op, grad):
    return grad * sign(op.inputs[0])


def _sign(x):
    if x.dtype.kind == "c":
        return _complex_sign(x)
    out = np.sign(x)
    if out.dtype.kind == "f" or out.dtype.name == "bfloat16":
        nan = np.isnan(out)
        if nan.any():  # TF's sign of NaN is 0; bfloat16's is +-1 by the NaN's sign bit
            fill = (np.copysign(np.ones((), out.dtype), x) if out.dtype == _BFLOAT16
                    else out.dtype.type(0))
            out = np.where(nan, fill, out)
    return out


def _complex_sign(x):
    """Eigen's complex sign: 0 where |x| is 0, else each part times 1 / |x| (|x| by hypot),
    so an infinite part gives a NaN partner (inf * 0) and a NaN |x| NaN parts."""
    x = np.asarray(x)
    a = np.hypot(x.real, x.imag)  # (libm's hypot, as std::abs; NumPy's complex abs differs)
    with np.errstate(all="ignore"):
        inv = np.reciprocal(a)
        out = np.empty_like(x)
        np.multiply(x.real, inv, out=out.real)
        np.multiply(x.imag, inv, out=out.imag)
    zero = a == 0
    if zero.any():
        out[zero] = 0
    return out


def _sign_grad(op, grad):
    # TF 1.15's ops: Sign_grad/Shape, Sign_grad/zeros/Const, Sign_grad/zeros
    from tideflow.ops import array_ops

    x = op.inputs[0]
    return array_ops.zeros(array_ops.shape(x), dtype=x.dtype)


def _after(grad):
    """TF 1.15's math gradients build their ops under a control dependency on ``grad``: the ops
    none of whose inputs is made under it (a Const, an op on the forward input) wait for it."""
    if isinstance(grad, ops.IndexedSlices):  # (TF's control_dependencies takes its op)
        return ops.control_dependencies([grad.op])
    return ops.control_dependencies([grad] if isinstance(grad, ops.Tensor) else [])


def _one(dtype):
    from tideflow.ops import constant_op

    return constant_op.constant(1, dtype=dtype)


def _square_grad(op, grad):
    # TF's op names: Square_grad/Const, Square_grad/Mul, Square_grad/Mul_1
    from tideflow.ops import constant_op

    # under a control dependency on grad, as TF's (only ops with no input made under it take
    # it: the Const, a complex x's Conj)
    with ops.control_dependencies([grad]):
        x = _conj(op.inputs[0])
        two = constant_op.constant(2.0, dtype=x.dtype.base_dtype)
        mul = ops.apply_op("Mul", [x, two], name="Mul")._outputs[0]
        return ops.apply_op("Mul", [grad, mul], name="Mul")._outputs[0]


def _output_grad_op(op_type, fallback):
    # TF's gradient: one fused <Op>Grad(y, dy) op, which is 0 where dy is 0 (so a zero
    # upstream gradient stays 0 at the singularity, e.g. sqrt at 0)
    def grad_fn(op, grad):
        if isinstance(grad, ops.Tensor):
            return ops.apply_op(op_type, [op.outputs[0], grad])._outputs[0]
        return fallback(op, grad)

    return grad_fn


def _sqrt_grad_composed(op, grad):
    return grad * (0.5 / _conj(op.outputs[0]))


def _rsqrt_grad_composed(op, grad):
    y = _conj(op.outputs[0])
    return grad * (-0.5 * y * square(y))


def _reciprocal_grad_composed(op, grad):
    return grad * -square(_conj(op.outputs[0]))


_sqrt_grad = _output_grad_op("SqrtGrad", _sqrt_grad_composed)
_rsqrt_grad = _output_grad_op("RsqrtGrad", _rsqrt_grad_composed)
_reciprocal_grad = _output_grad_op("ReciprocalGrad", _reciprocal_grad_composed)
_inv_grad = _output_grad_op("InvGrad", _reciprocal_grad_composed)


def _exp_grad(op, grad):
    return grad * _conj(op.outputs[0])


def _expm1_grad(op, grad):
    with _after(grad):
        return grad * exp(_conj(op.inputs[0]))


def _log_grad(op, grad):
    # grad * reciprocal(x), as TF 1.15 builds it (its Xdivy form came after 1.15's
    # forward-compatibility horizon): 0 * inf is NaN at x = 0 there too
    with ops.control_dependencies([grad]):
        return grad * reciprocal(_conj(op.inputs[0]))


def _log1p_grad(op, grad):
    with ops.control_dependencies([grad]):
        return grad * reciprocal(1 + _conj(op.inputs[0]))


def _sin_grad(op, grad):
    with _after(grad):
        return grad * cos(_conj(op.inputs[0]))


def _cos_grad(op, grad):
    with _after(grad):
        return -grad * sin(_conj(op.inputs[0]))


# tan, asin, acos (and acosh) take TF 1.15's products and quotients: their MulNoNan/Xdivy forms
# came after 1.15's forward-compatibility horizon, so 0 * inf is NaN as there


def _tan_grad(op, grad):
    with _after(grad):
        return square(reciprocal(cos(_conj(op.inputs[0])))) * grad


def _inverse_sqrt_one_minus_square(op, grad):
    x2 = square(_conj(op.inputs[0]))
    den = sqrt(ops.apply_op("Sub", [_one(grad.dtype), x2])._outputs[0])
    return reciprocal(den)


def _asin_grad(op, grad):
    with _after(grad):
        return grad * _inverse_sqrt_one_minus_square(op, grad)


def _acos_grad(op, grad):
    with _after(grad):
        inv = _inverse_sqrt_one_minus_square(op, grad)
        return -grad * inv


def _atan_grad(op, grad):
    with _after(grad):
        x2 = square(_conj(op.inputs[0]))
        return grad * reciprocal(ops.apply_op("Add", [_one(grad.dtype), x2])._outputs[0])


def _atanh_grad(op, grad):
    with _after(grad):
        x2 = square(_conj(op.inputs[0]))
        return grad * reciprocal(ops.apply_op("Sub", [_one(grad.dtype), x2])._outputs[0])


def _sinh_grad(op, grad):
    with _after(grad):
        return grad * cosh(_conj(op.inputs[0]))


def _cosh_grad(op, grad):
    with _after(grad):
        return grad * sinh(_conj(op.inputs[0]))


def _tanh_grad(op, grad):
    y = op.outputs[0]
    if not y.dtype.is_complex:
        # (an IndexedSlices too: the op's conversion densifies it, "TanhGrad/dy", as TF's)
        # TF's gradient: one fused TanhGrad(y, dy) op, dy * (1 - y * y) (the same values)
        with _after(grad):
            return ops.apply_op("TanhGrad", [y, grad])._outputs[0]
    return grad * (1 - square(_conj(y)))


def _sigmoid_grad(op, grad):
    y = op.outputs[0]
    if not y.dtype.is_complex:
        # (an IndexedSlices too: the op's conversion densifies it, "SigmoidGrad/dy", as TF's)
        # TF's gradient: one fused SigmoidGrad(y, dy) op, dy * (y * (1 - y))
        with _after(grad):
            return ops.apply_op("SigmoidGrad", [y, grad])._outputs[0]
    y = _conj(y)
    return grad * (y * (1 - y))


def _erf_grad(op, grad, factor=_TWO_OVER_SQRT_PI):
    # (grad * 2/sqrt(pi)) * exp(-x^2), in TF 1.15's order and rounding
    from tideflow.ops import constant_op

    c = constant_op.constant(factor, dtype=grad.dtype)
    with _after(grad):
        return grad * c * exp(-square(_conj(op.inputs[0])))


def _erfc_grad(op, grad):
    return _erf_grad(op, grad, -_TWO_OVER_SQRT_PI)


def _lgamma_grad(op, grad):
    with _after(grad):
        return grad * digamma(_conj(op.inputs[0]))


def _digamma_grad(op, grad):
    x = op.inputs[0]
    with _after(grad):
        return grad * polygamma(_one(x.dtype.base_dtype), _conj(x))


def _second_arg_grad(op, grad, partial):
    """TF 1.15's gradient of Polygamma(n, x) and Zeta(x, q) in their second argument (none in
    the first): ``partial(a, b) * grad`` summed to b's shape through BroadcastGradientArgs."""
    from tideflow.ops import array_ops, reduction_ops

    a, b = op.inputs
    sb = array_ops.shape(b)
    rb = ops.apply_op("BroadcastGradientArgs", [array_ops.shape(a), sb])._outputs[1]
    with _after(grad):
        d = partial(_conj(a), _conj(b)) * grad
        return None, array_ops.reshape(reduction_ops.reduce_sum(d, rb), sb)


def _polygamma_grad(op, grad):
    return _second_arg_grad(op, grad, lambda n, x: polygamma(n + 1, x))


def _zeta_grad(op, grad):
    # d/dq zeta(x, q) = -x zeta(x + 1, q)
    return _second_arg_grad(op, grad, lambda x, q: -x * zeta(x + 1, q))


# elements per 32-byte packet of TF's vectorised (AVX) Neg, by type; half and bfloat16 and the
# integers are negated one by one
_NEG_PACKET = {np.dtype(t): 32 // np.dtype(t).itemsize
               for t in (np.float32, np.float64, np.complex64, np.complex128)}


def _negate(x, out=None):
    """Neg as TF's CPU kernel: Eigen negates whole packets as ``0 - x``, so a zero of either
    sign comes out +0 there (``-tf.zeros([8])`` prints 0., not NumPy's -0.), and the tail
    past the last whole packet (in flat, row-major order) element by element as ``-x``."""
    width = _NEG_PACKET.get(x.dtype)
    if width is None or x.size < width:
        return np.negative(x, out=out)
    tail = x.size % width
    if not tail:
        return np.subtract(x.dtype.type(0), x, out=out)
    if x.flags.c_contiguous and (out is None or out.flags.c_contiguous):
        # the tail is the flat arrays' last elements
        last = np.negative(x.reshape(-1)[-tail:])  # before ``out``, which may be x itself
        y = np.subtract(x.dtype.type(0), x, out=out)
        y.reshape(-1)[-tail:] = last
        return y
    at = np.unravel_index(np.arange(x.size - tail, x.size), x.shape)
    last = np.negative(x[at])
    y = np.subtract(x.dtype.type(0), x, out=out)
    y[at] = last
    return y


# ------------------------------------------------------------------------------------------
# declarations
# ------------------------------------------------------------------------------------------

declare_unary("Neg", _negate, _UNARY_SIGNED, grad=_neg_grad, inplace=0)
declare_unary("Abs", "absolute", "T: {bfloat16, half, float, double, int8, int16, int32, int64}",
              grad=_abs_grad)
declare_unary("Sign", _sign, _UNARY, grad=_sign_grad)
declare_unary("Square", "square", _UNARY, grad=_square_grad)
op_registry.register_kernel("Square", "CPU", kernel_factory=_square_kernel)
declare_unary("Sqrt", _sqrt_kernel, _UNARY_COMPLEX, grad=_sqrt_grad, inplace=0)
declare_unary("Rsqrt", _rsqrt_kernel, _UNARY_COMPLEX, grad=_rsqrt_grad)
declare_unary("Reciprocal", _reciprocal, _UNARY, grad=_reciprocal_grad)
declare_unary("Inv", _reciprocal, _UNARY, grad=_inv_grad)
declare_unary("Exp", _exp, _UNARY_COMPLEX, grad=_exp_grad, inplace=0)
declare_unary("Expm1", _expm1, _UNARY_COMPLEX, grad=_expm1_grad)
declare_unary("Log", _log, _UNARY_COMPLEX, grad=_log_grad, inplace=0)
declare_unary("Log1p", _log1p, _UNARY_COMPLEX, grad=_log1p_grad, inplace=0)
declare_unary("Sin", _sin, _UNARY_COMPLEX, grad=_sin_grad)
declare_unary("Cos", _cos, _UNARY_COMPLEX, grad=_cos_grad)
declare_unary("Tan", _glibc_float32(glibc_float32.tanf, _keeping_dtype(np.tan)), _UNARY,
              grad=_tan_grad)
declare_unary("Asin", _glibc_float32(glibc_float32.asinf, _keeping_dtype(np.arcsin)), _UNARY,
              grad=_asin_grad)
declare_unary("Acos", _glibc_float32(glibc_float32.acosf, _keeping_dtype(np.arccos)), _UNARY,
              grad=_acos_grad)
declare_unary("Atan", _glibc_float32(glibc_float32.atanf, _keeping_dtype(np.arctan)), _UNARY,
              grad=_atan_grad)
declare_unary("Sinh", _glibc_float32(glibc_float32.sinhf, np.sinh), _UNARY_COMPLEX,
              grad=_sinh_grad)
declare_unary("Cosh", _glibc_float32(glibc_float32.coshf, np.cosh), _UNARY_COMPLEX,
              grad=_cosh_grad)
# (on the GPU CuPy's functions, as the string kernels ran before)
op_registry.register_kernel("Sinh", "GPU", kernel_factory=lambda ctx: ctx.device.xp.sinh)
op_registry.register_kernel("Cosh", "GPU", kernel_factory=lambda ctx: ctx.device.xp.cosh)
declare_unary("Tanh", _tanh, _UNARY_COMPLEX, grad=_tanh_grad, inplace=0)
declare_unary("Sigmoid", _sigmoid, _UNARY_COMPLEX, grad=_sigmoid_grad)
declare_unary("Erf", _glibc_float32(glibc_float32.erff, _in_float64(special_functions.erf),
                                     _erf_denormal),
              _UNARY_REAL, grad=_erf_grad)
declare_unary("Erfc", _glibc_float32(glibc_float32.erfcf, _in_float64(special_functions.erfc)),
              _UNARY_REAL, grad=_erfc_grad)
declare_unary("Lgamma",
              _glibc_float32(glibc_float32.lgammaf, _in_float64(special_functions.lgamma),
                             _lgamma_denormal),
              _UNARY_REAL, grad=_lgamma_grad)
declare_unary("Digamma",
              _glibc_float32(cephes_float32.digamma, _in_float64(special_functions.digamma),
                             _digamma_denormal),
              _UNARY_REAL,
              grad=_digamma_grad)
declare_unary("Floor", "floor", _UNARY_REAL, differentiable=False)
declare_unary("Ceil", "ceil", _UNARY_REAL, differentiable=False)
declare_unary("Rint", "rint", _UNARY_REAL, differentiable=False)
def _round(x):
    """Halves to even, as NumPy, but a negative value that rounds to zero gives +0 (TF's
    kernel rounds from the floor up; NumPy keeps the sign: -0.4 -> -0.0)."""
    r = np.round(x)
    if r.dtype.kind == "f":
        if np.ndim(r) == 0:
            return r.dtype.type(0.0) if r == 0 and x < 0 else r
        np.copyto(r, 0.0, where=(r == 0) & (x < 0))
    return r


declare_unary("Round", _round, _UNARY, differentiable=False)
declare_unary("IsNan", "isnan", _UNARY_REAL, out="bool", differentiable=False)
declare_unary("IsInf", "isinf", _UNARY_REAL, out="bool", differentiable=False)


def _is_finite(x):
    if x.dtype == _BFLOAT16:  # TF 1.15's bfloat16 isfinite is "not infinite": NaN passes
        return ~np.isinf(x)
    return np.isfinite(x)


declare_unary("IsFinite", _is_finite, _UNARY_REAL, out="bool", differentiable=False)


def _in_float64_2(fn):
    """A binary kernel computing the float64 function ``fn`` in the dtype of its inputs."""

    def kernel(a, x):
        out = fn(np.asarray(a, np.float64), np.asarray(x, np.float64))
        return np.asarray(out).astype(x.dtype, copy=False)

    kernel.__name__ = f"_{fn.__name__}_kernel"
    return kernel


_polygamma64 = _in_float64_2(special_functions.polygamma)


def _polygamma(a, x):
    """float32 as Eigen's ``polygamma_impl<float>``: digamma for n = 0, else
    powf(-1, n + 1) * expf(lgammaf(n + 1)) * zeta(n + 1, x) in float; NaN for fractional n."""
    if a.dtype != np.float32 or x.dtype != np.float32:
        return _polygamma64(a, x)
    a, x = np.broadcast_arrays(a, x)
    shape = a.shape
    n, x = a.reshape(-1), x.reshape(-1)
    with np.errstate(all="ignore"):
        nplus = n + np.float32(1)
        out = eigen_float32.powf(np.float32(-1), nplus) * eigen_float32._expf(
            glibc_float32.lgammaf(nplus))
        out = out * special_functions.zeta(nplus, x)
        zero = n == 0
        if zero.any():
            out[zero] = op_registry.get("Digamma").kernel(x[zero])  # (denormals as TF's)
        out[np.floor(n) != n] = np.nan
    return eigen_float32._flush_denormals(out).reshape(shape)


op_registry.declare("Polygamma", inputs=["a: T", "x: T"], outputs=["z: T"],
                    attrs=["T: {float, double}"], shape=_binary_shape,
                    kernel=_polygamma, grad=_polygamma_grad)
op_registry.declare("Zeta", inputs=["x: T", "q: T"], outputs=["z: T"],
                    attrs=["T: {float, double}"], shape=_binary_shape,
                    kernel=special_functions.zeta, grad=_zeta_grad)  # (in its own dtype)


# ------------------------------------------------------------------------------------------
# public API
# ------------------------------------------------------------------------------------------


def _apply(op_type, inputs, name, attrs=None):
    return ops.apply_op(op_type, inputs, attrs, name=name)._outputs[0]


def _on_sparse_values(fn, x, name, default_name):
    """``fn`` applied to a SparseTensor's values: a SparseTensor of the same indices and shape
    (TF's abs, negative, sign, square, sqrt, erf and tanh take sparse inputs so). As TF 1.15,
    whose dense call first takes its scope (``name`` or the op type) and fails on the sparse
    input before its dispatcher calls it again on the values, the values' op is ``Abs_1``."""
    from tideflow.framework.sparse_tensor import SparseTensor

    with ops.name_scope(name, default_name, [x]):
        pass
    return SparseTensor(x.indices, fn(x.values, name=name), x.dense_shape)


def _is_sparse(x):
    from tideflow.framework.sparse_tensor import SparseTensor

    return isinstance(x, SparseTensor)


def unary_fn(op_type, py_name, doc, sparse=False):
    """A public wrapper ``fn(x, name=None)`` applying the unary op ``op_type`` (with
    ``sparse``, to a SparseTensor's values too)."""

    def fn(x, name=None):
        if sparse and _is_sparse(x):
            return _on_sparse_values(fn, x, name, op_type)
        return ops.apply_op(op_type, [x], name=name)._outputs[0]

    fn.__name__ = fn.__qualname__ = py_name
    fn.__doc__ = doc
    return add_dispatch_support(fn, elementwise=1)  # a RaggedTensor maps its flat values


negative = unary_fn("Neg", "negative", "-x elementwise.", sparse=True)
neg = negative
sign = unary_fn("Sign", "sign", "-1, 0 or 1 by the sign of x (x/|x| for complex x).",
                sparse=True)
square = unary_fn("Square", "square", "x * x elementwise.", sparse=True)
sqrt = unary_fn("Sqrt", "sqrt", "The square root of x elementwise.", sparse=True)
rsqrt = unary_fn("Rsqrt", "rsqrt", "1 / sqrt(x) elementwise.")
reciprocal = unary_fn("Reciprocal", "reciprocal", "1 / x elementwise.")
inv = unary_fn("Inv", "inv", "1 / x elementwise (the 0.x name of reciprocal).")
exp = unary_fn("Exp", "exp", "e ** x elementwise.")
expm1 = unary_fn("Expm1", "expm1", "exp(x) - 1 elementwise, accurate near 0.")
log = unary_fn("Log", "log", "The natural logarithm of x elementwise.")
log1p = unary_fn("Log1p", "log1p", "log(1 + x) elementwise, accurate near 0.")
sin = unary_fn("Sin", "sin", "The sine of x elementwise.")
cos = unary_fn("Cos", "cos", "The cosine of x elementwise.")
tan = unary_fn("Tan", "tan", "The tangent of x elementwise.")
asin = unary_fn("Asin", "asin", "The inverse sine of x elementwise.")
acos = unary_fn("Acos", "acos", "The inverse cosine of x elementwise.")
atan = unary_fn("Atan", "atan", "The inverse tangent of x elementwise.")
sinh = unary_fn("Sinh", "sinh", "The hyperbolic sine of x elementwise.")
cosh = unary_fn("Cosh", "cosh", "The hyperbolic cosine of x elementwise.")
erf = unary_fn("Erf", "erf", "The Gauss error function of x elementwise.", sparse=True)
erfc = unary_fn("Erfc", "erfc", "The complementary error function of x elementwise.")
lgamma = unary_fn("Lgamma", "lgamma", "log(|Gamma(x)|) elementwise.")
digamma = unary_fn("Digamma", "digamma", "The derivative of lgamma elementwise.")
floor = unary_fn("Floor", "floor", "The largest integer not greater than x, elementwise.")
ceil = unary_fn("Ceil", "ceil", "The smallest integer not less than x, elementwise.")
rint = unary_fn("Rint", "rint", "x rounded to the nearest integer, halves to even.")
is_nan = unary_fn("IsNan", "is_nan", "Whether each element of x is NaN.")
is_inf = unary_fn("IsInf", "is_inf", "Whether each element of x is +-inf.")
is_finite = unary_fn("IsFinite", "is_finite", "Whether each element of x is finite.")


def polygamma(a, x, name=None):
    """The a-th derivative of digamma at x (a a non-negative integer-valued float tensor)."""
    return _apply("Polygamma", [a, x], name)


def zeta(x, q, name=None):
    """The Hurwitz zeta function: sum over n >= 0 of (q + n) ** -x."""
    return _apply("Zeta", [x, q], name)


@add_dispatch_support(elementwise=1)
def abs(x, name=None):
    """|x| elementwise; for complex x, the magnitude as a real tensor (ComplexAbs)."""
    if _is_sparse(x):
        return _on_sparse_values(abs, x, name, "Abs")
    with ops.name_scope(name, "Abs", [x]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            return _apply("ComplexAbs", [x], scope, {"Tout": x.dtype.real_dtype})
        return _apply("Abs", [x], scope)


@add_dispatch_support(elementwise=1)
def sigmoid(x, name=None):
    """1 / (1 + exp(-x)) elementwise."""
    with ops.name_scope(name, "Sigmoid", [x]) as scope:
        return _apply("Sigmoid", [x], scope)


@add_dispatch_support(elementwise=1)
def tanh(x, name=None):
    """The hyperbolic tangent of x elementwise."""
    if _is_sparse(x):
        return _on_sparse_values(tanh, x, name, "Tanh")
    with ops.name_scope(name, "Tanh", [x]) as scope:
        return _apply("Tanh", [x], scope)


@add_dispatch_support(elementwise=1)
def round(x, name=None):
    """x rounded to the nearest integer, halves to even (integers pass through)."""
    x = ops.convert_to_tensor(x, name="x")
    if x.dtype.is_integer:
        return x
    return _apply("Round", [x], name)


# ------------------------------------------------------------------------------------------
# TF's fused derivative ops ``<Op>Grad(y, dy)`` (y the op's output): TF's own gradient
# functions emit them, so a graph TF wrote for a training step holds them.
# ------------------------------------------------------------------------------------------


def _fused_grad_shape(op):
    # TF 1.15's UnchangedShape: y's static shape, not merged with dy's (a gradient of
    # tanh(x) of an x of unknown shape stays unknown where dy's shape is known)
    return [op.inputs[0].get_shape()]


# The fused gradient ops' own gradients, built as TF 1.15's math_grad builds them (under a
# control dependency on g; the second input's gradient is the fused op again where TF's is)


def _fused(op_type, y, dy):
    return ops.apply_op(op_type, [y, dy])._outputs[0]


def _tanh_grad_grad(op, g):
    with _after(g):
        y, dy = _conj(op.inputs[0]), _conj(op.inputs[1])
        return [g * -2.0 * dy * y, _fused("TanhGrad", y, g)]


def _sigmoid_grad_grad(op, g):
    with _after(g):
        y, dy = _conj(op.inputs[0]), _conj(op.inputs[1])
        gb = g * dy
        return [gb - 2.0 * gb * y, _fused("SigmoidGrad", y, g)]


def _sqrt_grad_grad(op, g):
    # TF 1.15's division (its Xdivy/MulNoNan form came after the 1.15 horizon): with y = 0, a
    # zero g gives NaN there
    y, z = op.inputs[0], op.outputs[0]
    with _after(g):
        ga = g / y
        return [-_conj(ga) * z, 0.5 * ga]


def _rsqrt_grad_grad(op, g):
    with _after(g):
        y, cg = _conj(op.inputs[0]), _conj(g)
        return [-1.5 * cg * op.inputs[1] * square(y), _fused("RsqrtGrad", y, g)]


def _reciprocal_grad_grad(op, g):
    with _after(g):
        y, cg = _conj(op.inputs[0]), _conj(g)
        return [cg * -2.0 * op.inputs[1] * y, _fused("ReciprocalGrad", y, g)]


def _declare_output_grad(name, kernel, grad_fn):
    op_registry.declare(name, inputs=["y: T", "dy: T"], outputs=["z: T"], attrs=[_UNARY_COMPLEX],
                        shape=_fused_grad_shape, kernel=kernel, grad=grad_fn)


def _cj(y):
    return np.conj(y) if np.iscomplexobj(y) else y


def _same_float_arrays(y, dy):
    return (type(y) is np.ndarray and type(dy) is np.ndarray and y.dtype.kind == "f"
            and dy.dtype == y.dtype and dy.shape == y.shape and y.ndim > 0)


def _tanh_grad_kernel(y, dy):
    if _same_float_arrays(y, dy):  # dy * (1 - y * y) in one buffer (the gradient of every
        t = np.multiply(y, y)  # RNN step's tanh, so its temporaries are worth saving)
        np.subtract(1, t, out=t)
        return np.multiply(dy, t, out=t)
    return dy * (1 - y * y)  # complex too: TF's Tanh gradient conjugates y before this op


# elements per AVX packet of TF 1.15's Eigen kernels; the last ``size % lanes`` take the
# scalar code
_PACKET_LANES = {np.dtype(np.float16): 8, np.dtype(np.float32): 8, np.dtype(np.float64): 4}


def _sigmoid_grad_kernel(y, dy):
    # TF 1.15's packets compute dy * (y * (1 - y)); its scalar code rounds (dy * y) * (1 - y):
    # bfloat16's always, the other floats' for the elements past the last whole packet (the
    # last 4 of an LSTM's [4, 3] gate: a gradient a last bit off from the first step)
    if y.dtype == _BFLOAT16:
        return (dy * y) * (y.dtype.type(1) - y)
    if _same_float_arrays(y, dy):  # dy * (y * (1 - y)) in one buffer
        t = np.subtract(1, y)
        np.multiply(y, t, out=t)
        out = np.multiply(dy, t, out=t)
        rest = y.size % _PACKET_LANES.get(y.dtype, 1)
        if rest:
            flat = out.reshape(-1)
            yt, dyt = y.reshape(-1)[-rest:], dy.reshape(-1)[-rest:]
            flat[-rest:] = (dyt * yt) * (y.dtype.type(1) - yt)
        return out
    if np.ndim(y) == 0 and np.ndim(dy) == 0 and np.asarray(y).dtype.kind == "f":
        return (dy * y) * (1 - y)  # a scalar is all tail: TF's scalar code
    return dy * (y * (1 - y))


_declare_output_grad("TanhGrad", _tanh_grad_kernel, _tanh_grad_grad)
_declare_output_grad("SigmoidGrad", _sigmoid_grad_kernel, _sigmoid_grad_grad)
def _zero_where_dy_zero(fn):
    # TF's SqrtGrad, RsqrtGrad and ReciprocalGrad kernels answer 0 where dy is 0
    def kernel(y, dy):
        with np.errstate(all="ignore"):
            out = fn(y, dy)
        if type(out) is np.ndarray and type(dy) is np.ndarray and out.shape == dy.shape:
            if not dy.all():  # patched in place, only when dy has a zero
                np.copyto(out, 0, where=(dy == 0))
            return out
        return np.where(dy == 0, np.zeros((), out.dtype), out)

    return kernel


def _sqrt_grad_kernel(y, dy):
    if _same_float_arrays(y, dy):  # in one buffer (steps run with errstate off):
        # TF 1.15's packets round (0.5 / y) * dy, its scalar code (the elements past the last
        # whole packet) (0.5 * dy) / y; they differ in the last bit for ~1 in 5 elements
        out = np.divide(y.dtype.type(0.5), y)
        np.multiply(out, dy, out=out)
        rest = y.size % _PACKET_LANES.get(y.dtype, y.size)
        if rest:
            yt, dyt = y.reshape(-1)[-rest:], dy.reshape(-1)[-rest:]
            out.reshape(-1)[-rest:] = (dyt * y.dtype.type(0.5)) / yt
        if not dy.all():
            np.copyto(out, 0, where=(dy == 0))
        return out
    return _sqrt_grad_generic(y, dy)


# (constants in y's type: a Python float times a bfloat16 array is float32 under ml_dtypes)
_sqrt_grad_generic = _zero_where_dy_zero(lambda y, dy: dy * y.dtype.type(0.5) / _cj(y))
_declare_output_grad("SqrtGrad", _sqrt_grad_kernel, _sqrt_grad_grad)


def _packet_zeros(out, y, dy, zero_sign, dtypes=_PACKET_LANES):
    """TF 1.15's packet code for RsqrtGrad and ReciprocalGrad signs some zero results other
    than its scalar code (the elements past the last whole packet) does: ``zero_sign(y, dy)``
    gives, for the zero elements only (of ``dtypes``), where the packets' zero differs and the
    signed zeros there. Patched in place, only when ``out`` holds a zero."""
    if not _same_float_arrays(y, dy) or y.dtype not in dtypes or out.all():
        return out
    flat, fy, fdy = out.reshape(-1), y.reshape(-1), dy.reshape(-1)
    head = flat.size - flat.size % _PACKET_LANES[y.dtype]
    zero = np.flatnonzero(flat[:head] == 0)
    if zero.size:
        with np.errstate(all="ignore"):
            where, signed = zero_sign(fy[zero], fdy[zero])
        flat[zero[where]] = signed[where]
    return out


# TF's order, -0.5 * (dy * y) * (y * y): y ** 3 alone overflows float16 where the result does
# not (the gradient of a batch norm's rsqrt(variance + eps) in a float16 model)
_rsqrt_grad_scalar = _zero_where_dy_zero(
    lambda y, dy: y.dtype.type(-0.5) * (dy * _cj(y)) * (_cj(y) * _cj(y)))


def _rsqrt_grad_kernel(y, dy):
    # the packets' mul_no_nan(-0.5 * (y * y), mul_no_nan(y, dy)): +0 where y * dy is 0
    return _packet_zeros(_rsqrt_grad_scalar(y, dy), y, dy,
                         lambda y, dy: (y * dy == 0, np.zeros_like(y)))


_reciprocal_grad_scalar = _zero_where_dy_zero(lambda y, dy: -dy * (_cj(y) * _cj(y)))


def _reciprocal_grad_kernel(y, dy):
    # the packets' mul_no_nan(0 - y * y, dy): a zero y * y negates to +0, so the zero takes
    # dy's sign (float16's packets negate by the sign bit: -0, as the scalar code)
    return _packet_zeros(_reciprocal_grad_scalar(y, dy), y, dy,
                         lambda y, dy: ((y * y == 0) & (dy != 0), np.zeros_like(y) * dy),
                         _PACKET_FLOATS)


_PACKET_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_declare_output_grad("RsqrtGrad", _rsqrt_grad_kernel, _rsqrt_grad_grad)
for _name in ("ReciprocalGrad", "InvGrad"):
    _declare_output_grad(_name, _reciprocal_grad_kernel, _reciprocal_grad_grad)
