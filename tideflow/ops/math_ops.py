"""Math ops: elementwise binary arithmetic, comparisons, logic, complex numbers, each with its
gradient; the public math API and the Tensor operators.

Unary functions live in ``unary_ops.py``, reductions in ``reduction_ops.py``, matrix products and
linear algebra in ``linalg_ops.py``; this module re-exports their public functions.
"""

import builtins

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.dispatch import add_dispatch_support
from tideflow.ops.array_ops import _fold, _register_fold
from tideflow.ops.counting_ops import _bucketize  # noqa: F401 - TF's hidden op wrapper
from tideflow.ops.elementwise import (
    _binary_shape,
    _complex_div,
    _complex_mul,
    _unary_shape,
    declare_binary,
    keep_x_on_tie,
    reduce_to_inputs,
)
from tideflow.ops.reduction_ops import reduced_shape  # noqa: F401 - TF keeps it in math_ops
from tideflow.ops.unary_ops import (  # noqa: F401
    _after,
    abs,
    acos,
    asin,
    atan,
    ceil,
    check_divisor,
    cos,
    cosh,
    digamma,
    erf,
    erfc,
    exp,
    expm1,
    floor,
    inv,
    is_finite,
    is_inf,
    is_nan,
    lgamma,
    log,
    log1p,
    neg,
    negative,
    polygamma,
    reciprocal,
    rint,
    round,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sinh,
    sqrt,
    square,
    tan,
    tanh,
    unary_fn,
    zeta,
)

# TF's type lists (math_ops.cc)
_UNARY_REAL = "T: {bfloat16, half, float, double}"
_BINARY_MORE = ("T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, int64, "
                "complex64, complex128}")
_BINARY_FEWER = "T: {bfloat16, half, float, double, int32, int64, complex64, complex128}"
_MINMAX = "T: {bfloat16, half, float, double, int32, int64}"
_MOD = "T: {int32, int64, bfloat16, half, float, double}"
_EQUALITY = ("T: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, "
             "quint8, qint8, qint32, string, bool, complex128}")


# ------------------------------------------------------------------------------------------
# kernels
# ------------------------------------------------------------------------------------------


def _trunc_div_int(x, y):
    check_divisor(y, x)
    q = np.floor_divide(x, y)
    if q.dtype.kind == "u":
        return q
    # floor -> truncation: one more where the quotient is negative and inexact
    return q + ((np.remainder(x, y) != 0) & ((x < 0) != (y < 0)))


def _true_divide(x, y):
    """x / y (complex as TF's kernel: ``_complex_div``)."""
    if np.result_type(x, y).kind == "c":
        return _complex_div(x, y)
    return np.true_divide(x, y)


def _mul_kernel(ctx):
    # complex on the host as TF's kernel rounds (``_complex_mul``); other types NumPy's
    return _complex_mul if ctx.op._attrs["T"].is_complex else np.multiply


def _div(x, y):
    """Div/RealDiv: true division for floats, C (truncating) division for integers."""
    if x.dtype.kind in "iu":
        return _trunc_div_int(x, y)
    return _true_divide(x, y)


# integer types of TF 1.15's XLA_CPU kernels: an op with no CPU kernel for one of them runs on
# the XLA_CPU device that TF 1.15 registers beside the CPU
_XLA_INTS = (np.dtype(np.int8), np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.uint8))


def _xla_int_div(x, y):
    """Integer division as XLA does it: truncating, with ``x / 0`` all bits set (-1, or the
    largest unsigned value) and ``MIN / -1`` MIN; no error."""
    zero = y == 0
    with np.errstate(over="ignore"):
        q = _trunc_div_int(x, np.where(zero, y.dtype.type(1), y))
    if zero.any():
        q = np.where(zero, np.array(-1).astype(q.dtype), q)
    return q


def _real_div(x, y):
    """RealDiv: TF's CPU kernels take float, half, bfloat16, double and complex types only;
    an int8, int32, int64 or uint8 one runs on TF 1.15's XLA_CPU device (XLA's division), an
    int16 or uint16 one builds (the op def allows it) but fails when run."""
    if x.dtype.kind in "iu":
        if x.dtype in _XLA_INTS:
            return _xla_int_div(x, y)
        raise errors.InvalidArgumentError(
            None, None, "No OpKernel was registered to support Op 'RealDiv' with these attrs: "
            f"[T=DT_{dtypes.as_dtype(x.dtype).name.upper()}]")
    return _true_divide(x, y)


# half the largest value of each signed integer type: operands beyond it may overflow TF's
# cross-sign floor division (see _wrapping_floor_div)
_HALF_MAX = {np.dtype(t): np.iinfo(t).max // 2 for t in (np.int8, np.int16, np.int32, np.int64)}


def _floor_div(x, y):
    if x.dtype.kind in "iu":
        if x.size == 1 == y.size and x.dtype == y.dtype:
            # one value each (the shape arithmetic of a gradient, every step): Python's ints
            a, b = int(x.item()), int(y.item())
            h = _HALF_MAX.get(x.dtype)
            if b and (h is None or (-h <= a <= h and -h <= b <= h)):
                rank = max(x.ndim, y.ndim)
                return np.full((1,) * rank, a // b, x.dtype) if rank else x.dtype.type(a // b)
        check_divisor(y, x)
        q = np.floor_divide(x, y)
        if q.dtype.kind == "i":
            h = _HALF_MAX[q.dtype]
            near = (x > h) | (x < -h) | (y > h) | (y < -h)
            if np.any(near):
                q = np.where(near, _wrapping_floor_div(x, y, q.dtype), q)
        return q
    q = np.true_divide(x, y)
    if q.dtype in (np.float32, np.float64) and q.size:
        # TF's threads flush a denormal quotient to zero (FTZ): floor(-1 / FLT_MAX) is -0
        neg_tiny = q > -np.finfo(q.dtype).tiny
        neg_tiny &= q < 0
        if neg_tiny.any():
            q = np.where(neg_tiny, -0.0, q).astype(q.dtype, copy=False)
    return np.floor(q, out=q if isinstance(q, np.ndarray) else None)


def _wrapping_floor_div(x, y, dt):
    """TF's integer FloorDiv where it overflows: across signs -(|x| + |y| - 1) / |y|, with
    |x| taken in x's type (|min| stays min) and the sum wrapping as C's int (or int64)."""
    wide = np.int64 if dt.itemsize == 8 else np.int32
    ax, ay = np.abs(x).astype(wide), np.abs(y).astype(wide)
    with np.errstate(over="ignore"):
        n = -(ax + ay - wide(1))
        m, d = np.where((x < 0) != (y < 0), n, np.asarray(x, wide)), np.where(
            (x < 0) != (y < 0), ay, np.asarray(y, wide))
        d = np.where(d == 0, wide(1), d)
        q = np.floor_divide(m, d)
        q += (q * d != m) & ((m < 0) != (d < 0))  # floor -> C truncation
    return q.astype(dt)


def _truncate_div(x, y):
    """TruncateDiv. TF's CPU kernels take the integer types but int8; the others run on its
    XLA_CPU device, whose TruncateDiv is XLA's division: int8 as ``_xla_int_div``, and floats
    and complex numbers not truncated at all (``tf.truncatediv(7., 2.)`` is 3.5)."""
    if x.dtype.kind in "iu":
        if x.dtype == np.int8:
            return _xla_int_div(x, y)
        check_divisor(y, x, truncating=True)
        return _trunc_div_int(x, y)
    return _true_divide(x, y)


def _floor_mod(x, y):
    if x.dtype.kind in "iu":
        check_divisor(y, x)
    r = np.remainder(x, y)
    if r.dtype.kind == "f":
        # a zero remainder keeps the sign of x, as TF's fmod-based kernel gives it (-3 % 1.5
        # is -0.0 there; NumPy gives y's sign)
        zero = r == 0
        if zero.any():
            r = np.where(zero, np.copysign(r, x), r)
    return r


def _truncate_mod(x, y):
    if x.dtype.kind in "iu":
        check_divisor(y, x, truncating=True)
    return np.fmod(x, y)


def _extreme_of_two(ufunc):
    """Maximum/Minimum as TF's CPU kernels (std::max / std::min): x unless y is strictly
    greater (smaller), so a NaN in x is kept and a NaN in y is not (``tf.maximum(0., nan)`` is
    0, ``tf.maximum(nan, 0.)`` NaN); NumPy's ufunc gives NaN for both. A tie keeps x too
    (``tf.maximum(-0., 0.)`` is -0.)."""

    def kernel(x, y, out=None):
        if x.dtype.kind in "fV":
            nan = np.isnan(y)  # (cheap for the usual scalar y: tf.maximum(x, 0.))
            if nan.any():  # a NaN in y gives way to x (a NaN x stays)
                return np.where(nan, x, keep_x_on_tie(ufunc, x, y)).astype(x.dtype, copy=False)
        return keep_x_on_tie(ufunc, x, y, out)

    return kernel


# a float32 Pow of up to this many elements (a learning rate's decay, a scalar schedule) runs
# glibc's powf arithmetic; larger ones the double power, checked near halfway points (~4x
# cheaper)
_POWF_EXACT_MAX = 64


def _pow(x, y, out=None):
    """Pow. A half or single precision base under one whole-number exponent (GELU's
    ``x ** 3``) is raised in double as |x| ** y, the sign put back for an odd y: that rounds
    as libm's powf (which TF's CPU kernel calls per element), where NumPy's vectorised pow is
    a unit off in the last place one time in ten, and it skips libm's slow path for a
    negative base (~10x)."""
    if x.dtype.kind == "c":
        # C's cpow, which TF's kernel calls: exp(y log x), so 0 ** 0 is NaN (NumPy's is 1)
        with np.errstate(all="ignore"):
            return np.exp(y * np.log(x)).astype(x.dtype, copy=False)
    if x.dtype.kind == "i" and np.any(np.less(y, 0)) and np.broadcast(x, y).size:
        raise errors.InvalidArgumentError(  # TF 1.15's words (NumPy's add a period)
            None, None, "Integers to negative integer powers are not allowed")
    if x.dtype == np.float32 and np.broadcast(x, y).size <= _POWF_EXACT_MAX:
        from tideflow.ops import eigen_float32

        return _into(out, eigen_float32.powf(x, y))  # glibc's powf, bit for bit
    if x.dtype.kind == "f" and np.size(y) == 1 and np.ndim(y) <= np.ndim(x) > 0:
        e = float(np.reshape(y, -1)[0])
        if e.is_integer() and x.dtype.itemsize < 8:
            r = np.abs(x, dtype=np.float64)
            np.power(r, e, out=r)
            if e % 2:
                np.negative(r, out=r, where=np.signbit(x))
            return r.astype(x.dtype)
        if x.dtype == np.float32:
            return _into(out, _pow_in_double(x, y))
        if e in (0.5, -0.5):
            # NumPy takes these as a square root, NaN for -inf (and -0 for -0); TF's kernel
            # calls C's pow, whose answer there is that of |x|
            bad = np.isneginf(x) | ((x == 0) & np.signbit(x))
            if bad.any():
                fix = np.power(np.abs(x[bad]), e)
                r = np.power(x, y, out=out)
                r[bad] = fix
                return r
    if x.dtype == np.float32:
        return _into(out, _pow_in_double(x, y))
    return np.power(x, y, out=out)


def _pow_in_double(x, y):
    """float32 x^y as glibc's powf, denormals flushed as TF's: the double power (C's rules at
    zeros, infinities and NaNs) rounded to float, but where that power lies within 2^-31
    (relative) of a halfway point between floats, glibc's powf arithmetic (both doubles are
    far nearer the true power than that, so elsewhere they round alike: ~1.5% of elements)."""
    from tideflow.ops import eigen_float32

    with np.errstate(all="ignore"):
        r = np.power(np.asarray(x, np.float64), np.asarray(y, np.float64))
        out = np.asarray((r * _NEAR_ABOVE).astype(np.float32))
        r *= _NEAR_BELOW
        near = out != r.astype(np.float32)
    if near.any():
        xb, yb = np.broadcast_arrays(np.asarray(x, np.float32), np.asarray(y, np.float32))
        out[near] = eigen_float32.powf(xb[near], yb[near])
    return eigen_float32._flush_denormals(out)


_NEAR_ABOVE = 1 + 2.0 ** -31
_NEAR_BELOW = 1 - 2.0 ** -31


def _into(out, r):
    if out is None:
        return r
    out[...] = r
    return out


def _squared_difference(x, y):
    d = np.subtract(x, y)
    if d.dtype.kind == "c":
        # conj(d) * d as C++'s complex product, each part from real products (NumPy's complex
        # product may fuse them: a -6e-8 imaginary part where TF's is 0)
        a, b = d.real, d.imag
        out = np.empty_like(d)
        with np.errstate(invalid="ignore", over="ignore"):
            out.real = a * a + b * b
            out.imag = a * b - b * a
        return out
    return d * d


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
    # TF's kernel sums the first n % 8 inputs (8 or 9 for 0 or 1), then adds each further
    # block of 8, summed on its own, to them: that order rounds as TF's for 10+ inputs
    n = len(inputs)
    head = n
    if n > 9:
        head = {0: 8, 1: 9}.get(n % 8, n % 8)
    out = np.asarray(np.add(first, inputs[1]))  # 0-d inputs give a NumPy scalar
    for x in inputs[2:head]:
        np.add(out, x, out=out)
    for start in range(head, n, 8):
        block = np.asarray(np.add(inputs[start], inputs[start + 1]))
        for x in inputs[start + 2:start + 8]:
            np.add(block, x, out=block)
        np.add(out, block, out=out)
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


def _complex_abs(x):
    # TF's kernel is std::abs, libm's hypot of the parts (NumPy's complex absolute rounds
    # differently in the last bit)
    x = np.asarray(x)
    return np.hypot(x.real, x.imag)


def _complex(re, im, *, Tout):
    out = np.empty(np.broadcast_shapes(np.shape(re), np.shape(im)), Tout.as_numpy_dtype)
    out.real = re
    out.imag = im
    return out


# ------------------------------------------------------------------------------------------
# gradients (binary ones get gradients on the broadcast shape; the family reduces them)
# ------------------------------------------------------------------------------------------


def _dense(grad):
    # an IndexedSlices gradient (of a gather) becomes a dense tensor once, here
    from tideflow.ops.gradients import dense

    return dense(grad)


def _zeros_like(x):
    from tideflow.ops.fill_ops import zeros_like

    return zeros_like(x)


def _select(cond, x, y):
    from tideflow.ops.gather_ops import select

    return select(cond, x, y)


# Add, Sub, Mul and SquaredDifference build TF 1.15's gradient ops in its order (the shapes
# and BroadcastGradientArgs first, then each input's partial, Sum and Reshape), so that
# programs seeding random ops from the op count after minimize() draw TF's numbers


def _add_grad(op, grad):
    from tideflow.ops.elementwise import (
        shapes_equal_and_known,
        smart_broadcast_gradient_args,
        sum_to,
    )

    x, y = op.inputs
    if isinstance(grad, ops.Tensor) and shapes_equal_and_known(x, y, grad):
        return grad, grad
    (sx, rx, must_x), (sy, ry, must_y) = smart_broadcast_gradient_args(x, y, grad)
    # (an IndexedSlices grad, of a gather, becomes dense in each Sum, as TF's conversions)
    gx = sum_to(grad, rx, sx) if must_x else grad
    gy = sum_to(grad, ry, sy) if must_y else grad
    return gx, gy


def _sub_grad(op, grad):
    from tideflow.ops.elementwise import (
        shapes_equal_and_known,
        smart_broadcast_gradient_args,
        sum_to,
    )

    x, y = op.inputs
    if isinstance(grad, ops.Tensor) and shapes_equal_and_known(x, y, grad):
        return grad, -grad
    (sx, rx, must_x), (sy, ry, must_y) = smart_broadcast_gradient_args(x, y, grad)
    gx = sum_to(grad, rx, sx) if must_x else grad
    gy = sum_to(-grad, ry, sy) if must_y else -grad
    return gx, gy


def _mul_grad(op, grad):
    from tideflow.ops.elementwise import (
        shapes_equal_and_known,
        smart_broadcast_gradient_args,
        sum_to,
    )

    x, y = op.inputs
    if (isinstance(grad, ops.Tensor) and shapes_equal_and_known(x, y, grad)
            and grad.dtype.base_dtype in (dtypes.int32, dtypes.float32)):
        return multiply(grad, y, name="Mul"), multiply(grad, x, name="Mul")
    (sx, rx, must_x), (sy, ry, must_y) = smart_broadcast_gradient_args(x, y, grad)
    grad = _dense(grad)
    x, y = conj(x), conj(y)
    gx = multiply(grad, y, name="Mul")
    if must_x:
        gx = sum_to(gx, rx, sx)
    gy = multiply(x, grad, name="Mul")
    if must_y:
        gy = sum_to(gy, ry, sy)
    return gx, gy


def _squared_difference_grad(op, grad):
    from tideflow.ops.elementwise import (
        shapes_equal_and_known,
        smart_broadcast_gradient_args,
        sum_to,
    )

    x, y = op.inputs
    grad = _dense(grad)
    with ops.control_dependencies([grad]):
        two = ops.convert_to_tensor(2.0, dtype=grad.dtype.base_dtype, name="scalar")
        x_grad = multiply(two, grad, name="Mul") * (x - y)
    if shapes_equal_and_known(x, y, grad):
        return x_grad, -x_grad
    (sx, rx, must_x), (sy, ry, must_y) = smart_broadcast_gradient_args(x, y, grad)
    gx = sum_to(x_grad, rx, sx) if must_x else x_grad
    gy = -sum_to(x_grad, ry, sy) if must_y else -x_grad
    return gx, gy


def _real_div_grad(op, grad):
    """TF 1.15's RealDiv gradient: ``grad / y`` and ``grad * (-x / y / y)`` (0 * inf is NaN
    at y = 0, as there), each summed back to its input's shape."""
    from tideflow.ops import array_ops
    from tideflow.ops.elementwise import sum_to

    x, y = op.inputs
    if not x.dtype.is_floating and not x.dtype.is_complex:
        return reduce_to_inputs(x, y, *_div_grad(op, grad))
    sx, sy = array_ops.shape(x), array_ops.shape(y)
    rx, ry = ops.apply_op("BroadcastGradientArgs", [sx, sy])._outputs
    x, y = conj(x), conj(y)
    grad = _dense(grad)
    gx = sum_to(realdiv(grad, y), rx, sx)
    gy = sum_to(grad * realdiv(realdiv(-x, y), y), ry, sy)
    return gx, gy


def _xdivy(x, y):
    return ops.apply_op("Xdivy", [x, y])._outputs[0]


def _mul_no_nan(x, y):
    return ops.apply_op("MulNoNan", [x, y])._outputs[0]


def _div_grad(op, grad):
    # TF's Xdivy and MulNoNan: a zero upstream gradient gives 0 where y is 0 (not NaN)
    x, y = (conj(t) for t in op.inputs)
    if not x.dtype.is_floating and not x.dtype.is_complex:
        return grad / y, grad * (-x / y / y)
    grad = _dense(grad)
    return _xdivy(grad, y), _mul_no_nan(-x / y / y, grad)


def _floor_mod_grad(op, grad):
    # TF 1.15's ops in its order: the shapes and BroadcastGradientArgs, FloorDiv, then each
    # partial summed and reshaped back to its input's shape
    from tideflow.ops import array_ops, reduction_ops

    x, y = op.inputs
    sx, sy = array_ops.shape(x), array_ops.shape(y)
    rx, ry = ops.apply_op("BroadcastGradientArgs", [sx, sy])._outputs
    floor_xy = ops.apply_op("FloorDiv", [x, y])._outputs[0]
    gx = array_ops.reshape(reduction_ops.reduce_sum(grad, rx), sx)
    gy = array_ops.reshape(reduction_ops.reduce_sum(grad * negative(floor_xy), ry), sy)
    return gx, gy


def _pow_grad(op, grad):
    # TF 1.15's ops in its order (its products, no MulNoNan: that came after its
    # forward-compatibility horizon), each partial summed back by SmartBroadcastGradientArgs
    from tideflow.ops.elementwise import smart_broadcast_gradient_args, sum_to
    from tideflow.ops.fill_ops import ones_like

    x, y = op.inputs
    (sx, rx, must_x), (sy, ry, must_y) = smart_broadcast_gradient_args(x, y, grad)
    grad = _dense(grad)
    x, y = conj(x), conj(y)
    gx = grad * y * pow(x, y - 1)
    if must_x:
        gx = sum_to(gx, rx, sx)
    if not x.dtype.is_floating and not x.dtype.is_complex:
        return gx, None
    z = conj(op.outputs[0])
    # log(x) only where it is real and finite: TF's convention for x <= 0 (x != 0 if complex)
    mask = not_equal(x, 0) if x.dtype.is_complex else x > 0
    log_x = _select(mask, log(_select(mask, x, ones_like(x))), _zeros_like(x))
    gy = grad * z * log_x
    if must_y:
        gy = sum_to(gy, ry, sy)
    return gx, gy


def _maximum_minimum_grad(select_x):
    # TF 1.15's ops in its order: the shapes, zeros of the gradient's shape, the mask (ties
    # go to x), BroadcastGradientArgs, then each input's Select, Sum and Reshape
    def grad_fn(op, grad):
        from tideflow.ops import array_ops, fill_ops
        from tideflow.ops.elementwise import sum_to

        x, y = op.inputs
        grad = _dense(grad)
        sx, sy = array_ops.shape(x), array_ops.shape(y)
        zeros = fill_ops.zeros(array_ops.shape(grad), grad.dtype)
        xmask = select_x(x, y)
        rx, ry = ops.apply_op("BroadcastGradientArgs", [sx, sy])._outputs
        gx = sum_to(_select(xmask, grad, zeros), rx, sx)
        gy = sum_to(_select(xmask, zeros, grad), ry, sy)
        return gx, gy

    return grad_fn


def _atan2_grad(op, grad):
    y, x = op.inputs
    # (TF 1.15 divides: at x = y = 0 the gradient is NaN there; and it sums no broadcast
    # dimension back, so the gradient of a broadcasting atan2 is tf.gradients' ValueError)
    grad = _dense(grad)
    with _after(grad):
        scaled = grad / (square(x) + square(y))
        return x * scaled, -y * scaled


def _add_n_grad(op, grad):
    return [grad] * len(op.inputs)


def _clip_by_value_grad(op, grad):
    t, lo, hi = op.inputs
    grad = _dense(grad)
    zeros = _zeros_like(grad)
    below, above = less(t, lo), greater(t, hi)
    gt = _select(logical_or(below, above), zeros, grad)
    _, glo = reduce_to_inputs(t, lo, None, _select(below, grad, zeros))
    _, ghi = reduce_to_inputs(t, hi, None, _select(above, grad, zeros))
    return gt, glo, ghi


def _complex_grad(op, grad):
    # TF 1.15's: summed through BroadcastGradientArgs and reshaped, whatever the shapes
    from tideflow.ops import array_ops, reduction_ops

    re, im = op.inputs
    sx, sy = array_ops.shape(re), array_ops.shape(im)
    rx, ry = ops.apply_op("BroadcastGradientArgs", [sx, sy])._outputs
    return (array_ops.reshape(reduction_ops.reduce_sum(real(grad), rx), sx),
            array_ops.reshape(reduction_ops.reduce_sum(imag(grad), ry), sy))


def _zero_of(grad):
    from tideflow.ops import constant_op

    return constant_op.constant(0, dtype=grad.dtype)


def _real_grad(op, grad):
    grad = _dense(grad)
    return complex(grad, _zero_of(grad))


def _imag_grad(op, grad):
    grad = _dense(grad)
    return complex(_zero_of(grad), grad)


def _angle_grad(op, grad):
    x = op.inputs[0]
    grad = _dense(grad)
    with _after(grad):
        re = real(x)  # (TF makes Real before Imag)
        z = reciprocal(complex(imag(x), re))
        return -complex(grad, _zero_of(grad)) * z


def _complex_abs_grad(op, grad):
    # TF 1.15's: (grad + 0j) * x / (|x| + 0j), 0 where |x| is 0
    from tideflow.ops.special_math_ops import div_no_nan

    grad = _dense(grad)
    y = op.outputs[0]
    return div_no_nan(complex(grad, _zeros_like(grad)) * op.inputs[0],
                      complex(y, _zeros_like(y)))


def _conj_grad(op, grad):
    return conj(grad)


# ------------------------------------------------------------------------------------------
# declarations
# ------------------------------------------------------------------------------------------

# TF 1.15's Add and AddV2 take no uint16 (Sub, Mul and the divisions do)
_ADD = _BINARY_MORE.replace(" uint16,", "")
declare_binary("Add", "add", _ADD[:-1] + ", string}", grad=_add_grad, reduces=True)
declare_binary("AddV2", "add", _ADD, grad=_add_grad, reduces=True)
declare_binary("Sub", "subtract", _BINARY_MORE, grad=_sub_grad, reduces=True)
declare_binary("Mul", "multiply", _BINARY_MORE, grad=_mul_grad, reduces=True)
op_registry.register_kernel("Mul", "CPU", kernel_factory=_mul_kernel)
declare_binary("Div", _div, _BINARY_MORE, grad=_div_grad)
declare_binary("RealDiv", _real_div, _BINARY_MORE, grad=_real_div_grad, reduces=True)
declare_binary("FloorDiv", _floor_div, _BINARY_MORE, differentiable=False)
declare_binary("TruncateDiv", _truncate_div, _BINARY_MORE, differentiable=False)
declare_binary("FloorMod", _floor_mod, _MOD, grad=_floor_mod_grad, reduces=True)
# TF 1.15 registers no gradient for TruncateMod (tf.gradients raises LookupError)
declare_binary("TruncateMod", _truncate_mod, _MOD)
# (Pow's op def lists float before half)
declare_binary("Pow", _pow, _BINARY_FEWER.replace("half, float", "float, half"), grad=_pow_grad, inplace=0, reduces=True)
declare_binary("Maximum", _extreme_of_two(np.maximum), _MINMAX, inplace=0,
               grad=_maximum_minimum_grad(lambda x, y: greater_equal(x, y)), reduces=True)
declare_binary("Minimum", _extreme_of_two(np.minimum), _MINMAX, inplace=0,
               grad=_maximum_minimum_grad(lambda x, y: less_equal(x, y)), reduces=True)
declare_binary("SquaredDifference", _squared_difference, _BINARY_FEWER,
               grad=_squared_difference_grad, reduces=True)


def _atan2(y, x):
    # float32 by glibc's atan2f, as TF 1.15's kernel calls it per element
    if y.dtype == np.float32 and x.dtype == np.float32:
        from tideflow.ops import glibc_float32, unary_ops

        y, x = np.broadcast_arrays(y, x)
        flat = y.reshape(-1)
        out = glibc_float32.atan2f(flat, x.reshape(-1))
        return unary_ops._flush_computed(out, flat).reshape(y.shape)  # (y itself kept)
    return np.arctan2(y, x)


op_registry.declare(
    "Atan2", inputs=["y: T", "x: T"], outputs=["z: T"], attrs=[_UNARY_REAL],
    shape=_binary_shape, kernel=_atan2, grad=_atan2_grad,
)
# (the GPU's is CuPy's arctan2, as the string kernel ran before)
op_registry.register_kernel("Atan2", "GPU", kernel_factory=lambda ctx: ctx.device.xp.arctan2)

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
    from tideflow.ops.concat_ops import _merge_error

    shape = op._inputs[-1]._shape
    for i in range(len(op._inputs) - 2, -1, -1):
        err = _merge_error(op._inputs[i]._shape, shape)  # (TF's words)
        if err is not None:
            raise ValueError(f"{err}\n\tFrom merging shape {i} with other shapes.")
        shape = op._inputs[i]._shape.merge_with(shape)
    return [shape]


op_registry.declare(
    "AddN", inputs=["inputs: N * T"], outputs=["sum: T"],
    attrs=["N: int >= 1", "T: {numbertype, variant}"],
    shape=_add_n_shape, kernel=_add_n, grad=_add_n_grad,
)


def _accumulate_nv2_shape(op):
    from tideflow.framework.tensor_shape import as_shape

    return [_add_n_shape(op)[0].merge_with(as_shape(op._attrs["shape"]))]


def _accumulate_nv2(inputs, *, shape):
    # TF 1.15 runs an AccumulateNV2 as a temporary variable filled with zeros and an AssignAdd
    # of each input, which its executor runs from the last input to the first (so with up to
    # 6 inputs, measured; with more, in whatever order its thread pool runs them): a -0. sum
    # is 0. there
    del shape
    if any(np.shape(x) != np.shape(inputs[0]) for x in inputs[1:]):
        _add_n(inputs)  # (raises TF's error for the first that differs)
    out = np.asarray(np.add(np.zeros_like(inputs[-1]), inputs[-1]))
    for x in reversed(inputs[:-1]):
        np.add(out, x, out=out)
    return out


# what tf.accumulate_n builds in TF 1.15 (summed as AddN here; TF rewrites it the same way)
op_registry.declare(
    "AccumulateNV2", inputs=["inputs: N * T"], outputs=["sum: T"],
    attrs=["N: int >= 1", "T: numbertype", "shape: shape"],
    shape=_accumulate_nv2_shape, kernel=_accumulate_nv2, grad=_add_n_grad,
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
    grad=_clip_by_value_grad,
)

# complex numbers
_TO_REAL = ["T: {complex64, complex128} = DT_COMPLEX64", "Tout: {float, double} = DT_FLOAT"]
def _approximate_equal_shape(op):
    # TF's shape function: the inputs have one shape (no broadcasting)
    x, y = op._inputs[0]._shape, op._inputs[1]._shape
    if x.ndims is not None and y.ndims is not None and x.ndims != y.ndims:
        raise ValueError(f"Shapes must be equal rank, but are {x.ndims} and {y.ndims} for "
                         f"'{op.name}' (op: 'ApproximateEqual')")
    try:
        return [x.merge_with(y)]
    except ValueError:
        raise ValueError(f"Dimensions must be equal, but shapes are {x} and {y} for "
                         f"'{op.name}' (op: 'ApproximateEqual')") from None


def _approximate_equal(x, y, *, tolerance):
    return np.abs(np.subtract(x, y)) < tolerance


op_registry.declare("ApproximateEqual", inputs=["x: T", "y: T"], outputs=["z: bool"],
                    attrs=["T: numbertype", "tolerance: float = 1e-05"],
                    shape=_approximate_equal_shape, kernel=_approximate_equal,
                    differentiable=False)


def approximate_equal(x, y, tolerance=0.00001, name=None):
    """Whether |x - y| < tolerance elementwise (x and y of one shape)."""
    with ops.name_scope(name, "ApproximateEqual", [x, y]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        y = ops.convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        return ops.apply_op("ApproximateEqual", [x, y], {"tolerance": float(tolerance)},
                            name=scope)._outputs[0]


op_registry.declare("Complex", inputs=["real: T", "imag: T"], outputs=["out: Tout"],
                    attrs=["T: {float, double} = DT_FLOAT",
                           "Tout: {complex64, complex128} = DT_COMPLEX64"],
                    shape=_binary_shape, kernel=_complex, grad=_complex_grad)
for _name, _fn, _grad in (("Real", "real", _real_grad), ("Imag", "imag", _imag_grad),
                          ("Angle", "angle", _angle_grad)):
    op_registry.declare(_name, inputs=["input: T"], outputs=["output: Tout"], attrs=_TO_REAL,
                        shape=_unary_shape, kernel=_fn, grad=_grad)
op_registry.declare("ComplexAbs", inputs=["x: T"], outputs=["y: Tout"], attrs=_TO_REAL,
                    shape=_unary_shape, kernel=_complex_abs, grad=_complex_abs_grad)
op_registry.register_kernel("ComplexAbs", "GPU", kernel_factory=lambda ctx: ctx.device.xp.absolute)
op_registry.declare("Conj", inputs=["input: T"], outputs=["output: T"],
                    attrs=["T: {complex64, complex128, variant} = DT_COMPLEX64"],
                    shape=_unary_shape, kernel="conjugate", grad=_conj_grad)


# ------------------------------------------------------------------------------------------
# public API
# ------------------------------------------------------------------------------------------


def _apply(op_type, inputs, name, attrs=None):
    return ops.apply_op(op_type, inputs, attrs, name=name)._outputs[0]


def _binary_fn(op_type, py_name, doc):
    def fn(x, y, name=None):
        return ops.apply_op(op_type, [x, y], name=name)._outputs[0]

    fn.__name__ = fn.__qualname__ = py_name
    fn.__doc__ = doc
    return add_dispatch_support(fn, elementwise=2)  # RaggedTensors map their flat values


def _cast(x, dtype):
    # by op type: the array family owns Cast and its wrapper
    if x.dtype.base_dtype == dtype:
        return x
    return ops.apply_op("Cast", [x], {"DstT": dtype})._outputs[0]


logical_not = unary_fn("LogicalNot", "logical_not", "NOT x elementwise (bool).")

add = _binary_fn("Add", "add", "x + y elementwise, with broadcasting.")
add_v2 = _binary_fn("AddV2", "add_v2", "x + y elementwise, with broadcasting (no strings).")


def _add_operator(x, y, name=None):
    # TF 1.15's ``+``: AddV2, except for strings (only Add concatenates them)
    return (add if x.dtype.base_dtype == dtypes.string else add_v2)(x, y, name=name)


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


@add_dispatch_support(elementwise=2)
def atan2(y, x, name=None):
    """The angle of the point (x, y) elementwise: atan(y / x) in the right quadrant."""
    return _apply("Atan2", [y, x], name)


@add_dispatch_support(elementwise=2)
def equal(x, y, name=None):
    """x == y elementwise, with broadcasting (numbers, bools or strings)."""
    return _apply("Equal", [x, y], name)


@add_dispatch_support(elementwise=2)
def not_equal(x, y, name=None):
    """x != y elementwise, with broadcasting (numbers, bools or strings)."""
    return _apply("NotEqual", [x, y], name)


@add_dispatch_support(elementwise=2)
def logical_xor(x, y, name="LogicalXor"):
    """x XOR y elementwise: (x | y) & ~(x & y)."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


@add_dispatch_support(elementwise=1)
def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x), computed without overflow."""
    with ops.name_scope(name, "LogSigmoid", [x]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        # TF's ops, Neg(Softplus(Neg(x))): the gradient at 0 is sigmoid(0) = 0.5
        soft = ops.apply_op("Softplus", [negative(x)])._outputs[0]
        return negative(soft, name=scope)


@add_dispatch_support(elementwise=2)
def pow(x, y, name=None):
    """x ** y elementwise, with broadcasting."""
    with ops.name_scope(name, "Pow", [x]) as scope:
        return _apply("Pow", [x, y], scope)


def _same_dtype_pair(x, y, hint=False):
    x = ops.convert_to_tensor(x, name="x")
    if hint:  # TF's truediv: x's dtype is only a hint, a mismatch is the TypeError below
        y = ops.convert_to_tensor(y, name="y", preferred_dtype=x.dtype.base_dtype)
    else:
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


@add_dispatch_support(elementwise=2)
def truediv(x, y, name=None):
    """x / y with Python 3 semantics: integers are cast to floats first (int32 -> float64)."""
    with ops.name_scope(name, "truediv", [x, y]) as scope:
        x, y = _same_dtype_pair(x, y, hint=True)
        dt = x.dtype.base_dtype
        try:
            target = _TRUEDIV_TYPES[dt]
        except KeyError:
            raise TypeError(f"Invalid dtype {dt!r} in __truediv__") from None
        if target is not None:
            x, y = _cast(x, target), _cast(y, target)
        return _apply("RealDiv", [x, y], scope)


@add_dispatch_support(elementwise=2)
def divide(x, y, name=None):
    """x / y with Python 3 semantics (``truediv``)."""
    return truediv(x, y, name=name)


@add_dispatch_support(elementwise=2)
def div(x, y, name=None):
    """x / y with Python 2 semantics: floor division for integers, true division otherwise."""
    with ops.name_scope(name, "div", [x, y]) as scope:
        x, y = _same_dtype_pair(x, y)
        if x.dtype.is_floating or x.dtype.is_complex:
            return _apply("RealDiv", [x, y], scope)
        return _apply("FloorDiv", [x, y], scope)


@add_dispatch_support(elementwise=2)
def floordiv(x, y, name=None):
    """x // y, rounding towards negative infinity (FloorDiv)."""
    with ops.name_scope(name, "floordiv", [x, y]) as scope:
        return _apply("FloorDiv", [x, y], scope)


def scalar_mul(scalar, x, name=None):
    """scalar * x, where scalar is a 0-d value (x an IndexedSlices: its values scaled)."""
    sliced = isinstance(x, ops.IndexedSlicesBase)
    dtype = (x.values if sliced else ops.convert_to_tensor(x)).dtype.base_dtype
    scalar = ops.convert_to_tensor(scalar, dtype=dtype, name="scalar")
    shape = scalar.get_shape()
    if shape.ndims == 0:
        if sliced:
            return ops.IndexedSlices(multiply(scalar, x.values, name=name), x.indices,
                                     x.dense_shape)
        return multiply(scalar, x, name=name)
    raise ValueError(f"Only scalar multiply works, got shape {shape}")


@add_dispatch_support
def add_n(inputs, name=None):
    """The elementwise sum of a list of tensors of the same shape and dtype."""
    # (TF passes a None through its conversion, then refuses the list in these words)
    if not inputs or not isinstance(inputs, (list, tuple)) or any(x is None for x in inputs):
        raise ValueError("inputs must be a list of at least one Tensor/IndexedSlices with the "
                         "same dtype and shape")
    # (as TF: an IndexedSlices stays one until AddN's own conversion densifies it, inside
    # the op's name scope: "AddN/inputs_1")
    inputs = [x if isinstance(x, ops.IndexedSlices) else ops.convert_to_tensor(x)
              for x in inputs]
    if len(inputs) == 1:
        inputs = ops.convert_n_to_tensor(inputs)
        if name:
            from tideflow.ops.array_ops import identity

            return identity(inputs[0], name=name)
        return inputs[0]
    return _apply("AddN", [list(inputs)], name)


@add_dispatch_support(elementwise=1)
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clips t elementwise to [clip_value_min, clip_value_max] (an IndexedSlices: its
    values, as TF).

    Built as TF 1.x builds it, ``Maximum(Minimum(t, max), min)``: programs find the ops by
    name (``clip_by_value/Minimum``; the result is ``clip_by_value``), and bounds that would
    broadcast t to a bigger shape are refused.
    """
    sliced = isinstance(t, ops.IndexedSlices)
    with ops.name_scope(name, "clip_by_value", [t, clip_value_min, clip_value_max]) as scope:
        values = ops.convert_to_tensor(t.values if sliced else t, name="t")
        t_min = minimum(values, clip_value_max)
        values.get_shape().merge_with(t_min.get_shape())
        out = maximum(t_min, clip_value_min, name=scope)
        values.get_shape().merge_with(out.get_shape())
    if sliced:
        return ops.IndexedSlices(out, t.indices, t.dense_shape)
    return out


def complex(real, imag, name=None):
    """real + imag * 1j: float32 parts give complex64, float64 parts complex128."""
    real = ops.convert_to_tensor(real, name="real")
    imag = ops.convert_to_tensor(imag, name="imag")
    in_type = real.dtype.base_dtype
    if in_type == dtypes.float32 == imag.dtype.base_dtype:
        tout = dtypes.complex64
    elif in_type == dtypes.float64 == imag.dtype.base_dtype:
        tout = dtypes.complex128
    else:  # TF 1.15's words for mismatched parts too
        raise TypeError(f"real and imag have incorrect types: {in_type.name} "
                        f"{imag.dtype.base_dtype.name}")
    return _apply("Complex", [real, imag], name, {"Tout": tout})


@add_dispatch_support(elementwise=1)
def real(input, name=None):
    """The real part of a complex tensor (a real tensor passes through)."""
    with ops.name_scope(name, "Real", [input]) as scope:
        input = ops.convert_to_tensor(input, name="input")
        if input.dtype.is_complex:
            return _apply("Real", [input], scope, {"Tout": input.dtype.real_dtype})
        return input


@add_dispatch_support(elementwise=1)
def imag(input, name=None):
    """The imaginary part of a complex tensor (zeros of the same type for a real one)."""
    with ops.name_scope(name, "Imag", [input]) as scope:
        input = ops.convert_to_tensor(input, name="input")
        if input.dtype.is_complex:
            return _apply("Imag", [input], scope, {"Tout": input.dtype.real_dtype})
        from tideflow.ops.fill_ops import zeros_like

        return zeros_like(input)


@add_dispatch_support(elementwise=1)
def angle(input, name=None):
    """The argument of each complex element; TF 1.15 gives zeros for a real tensor (even
    for its negative elements)."""
    with ops.name_scope(name, "Angle", [input]) as scope:
        input = ops.convert_to_tensor(input, name="input")
        if input.dtype.is_complex:
            return _apply("Angle", [input], scope, {"Tout": input.dtype.real_dtype})
        from tideflow.ops.fill_ops import zeros_like

        return zeros_like(input)


@add_dispatch_support(elementwise=1)
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


_COMPLEX_REFUSES = {"floordiv": "can't take floor of complex number.",
                    "mod": "can't mod complex numbers."}


def _binary_operator(fn, name):
    def op(x, y):
        if hasattr(type(y), f"__r{name}__") and hasattr(type(y), "_tf_fetch_components"):
            return NotImplemented  # as TF: a RaggedTensor applies the reflected operator
        with ops.name_scope(None, name, [x, y]) as scope:
            if type(y).__name__ == "SparseTensor":
                if name == "mul":
                    return NotImplemented  # as TF: dense * sparse is SparseTensor.__rmul__
                # as TF: passed to the op as it is, whose conversion of it fails ("Expected
                # float32 passed to parameter 'y' of op 'AddV2', got <...SparseTensor...>")
            elif not isinstance(y, ops.Tensor):
                # x's dtype is a hint, as TF's dtype_hint: ``int_tensor + 1.0`` fails in the op
                # ("Input 'y' of 'AddV2' Op has type float32 that does not match ...");
                # NumPy values are cast to it, and kept as they are where the cast fails
                # (``string_tensor + np.int32(1)`` fails in the op too)
                y = ops.convert_to_tensor(y, preferred_dtype=x.dtype.base_dtype, name="y")
            return fn(x, y, name=scope)

    def rop(y, x):
        if hasattr(type(x), f"__{name}__") and hasattr(type(x), "_tf_fetch_components"):
            return NotImplemented
        if type(x) is builtins.complex and name in _COMPLEX_REFUSES:
            # TF 1.15's Python (3.7): complex's // and % raise before the reflected operator
            raise TypeError(_COMPLEX_REFUSES[name])
        with ops.name_scope(None, name, [x, y]) as scope:
            x = ops.convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
            return fn(x, y, name=scope)

    return op, rop


def _override_binary(op_name, fn, name):
    op, rop = _binary_operator(fn, name)
    ops.Tensor._override_operator(f"__{op_name}__", op)
    ops.Tensor._override_operator(f"__r{op_name}__", rop)


_override_binary("add", _add_operator, "add")
_override_binary("sub", subtract, "sub")
_override_binary("mul", multiply, "mul")
_override_binary("truediv", truediv, "truediv")
_override_binary("div", div, "div")  # Python 2's operator names, still on TF 1.15's Tensor
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

# Static shapes from constant arithmetic, as TF's shape inference evaluates a constant
# subgraph (``tf.shape(x)[1:3] * 2`` of a fully known ``x``, resize's aspect-ratio sizes).
# Comparisons and logical ops stay unfolded: their constant values would turn graph
# conditionals into Python ones, which TF 1.x's constant_value never does.
_register_fold("Add", "AddV2", "Sub", "Mul", "Div", "RealDiv", "FloorDiv", "TruncateDiv",
               "FloorMod", "TruncateMod", "Maximum", "Minimum", "Neg", "Abs", "Round", "Rint",
               "Floor", "Ceil", "Square", "Sum", "Prod", "Max", "Min")
# ... which shape functions still see through, as TF's shape inference does (a slice bound
# chosen by tf.where on static sizes: TF Probability's batch slicing of distributions)
for _t in ("Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual", "LogicalAnd",
           "LogicalOr", "LogicalNot", "SelectV2", "All", "Any"):
    ops.register_constant_value(_t, _fold, shape_inference_only=True)


def _select_value(op, index):
    vals = [ops.constant_value(t) for t in op._inputs]
    if any(v is None for v in vals):
        return None
    c, t, e = (np.asarray(v) for v in vals)
    if c.ndim == 1 and t.ndim > 1:  # Select's vector condition picks rows
        c = c.reshape(c.shape + (1,) * (t.ndim - 1))
    return np.where(c, t, e).astype(t.dtype)


ops.register_constant_value("Select", _select_value, shape_inference_only=True)
