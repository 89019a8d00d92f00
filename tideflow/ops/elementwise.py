"""Rule families for elementwise ops: unary ops and broadcasting binary ops, declared in one line.

A binary op's gradient function receives gradients already shaped like the broadcast output;
the family reduces them back to each input's shape, once for all binary ops.
"""

import math
import weakref

import numpy as np

from tideflow.framework import dtypes, op_registry, ops
from tideflow.framework.tensor_shape import Dimension, TensorShape, unknown_shape


def broadcast_shape(a, b):
    """The static shape of broadcasting shapes ``a`` and ``b`` (ValueError if incompatible)."""
    if a.ndims is None or b.ndims is None:
        return unknown_shape()
    da, db = a.dims, b.dims
    n = max(len(da), len(db))
    da = [Dimension(1)] * (n - len(da)) + da
    db = [Dimension(1)] * (n - len(db)) + db
    out = []
    for x, y in zip(da, db):
        xv, yv = x.value, y.value
        if xv == 1:
            out.append(y)
        elif yv == 1:
            out.append(x)
        elif xv is None:
            out.append(y if yv is not None and yv > 1 else Dimension(None))
        elif yv is None:
            out.append(x if xv > 1 else Dimension(None))
        elif xv == yv:
            out.append(x)
        else:
            raise ValueError(f"Dimensions must be equal, but are {xv} and {yv}")
    return TensorShape(out)


def _binary_shape(op):
    return [broadcast_shape(op._inputs[0]._shape, op._inputs[1]._shape)]


def _unary_shape(op):
    return [op._inputs[0]._shape]


_TIE_TAKES_SECOND = {}


def keep_x_on_tie(ufunc, x, y, out=None):
    """``ufunc(x, y)`` for np.maximum or np.minimum with x kept where the two tie (-0. against
    0.), as TF's max/min kernels give it. NumPy's vectorised loops return their second
    argument on a tie and its float16 loop the first; which one is found once per type."""
    dt = x.dtype
    if dt.kind not in "fV":
        return ufunc(x, y, out=out)
    second = _TIE_TAKES_SECOND.get((ufunc, dt))
    if second is None:
        ties = ufunc(np.zeros(64, dt), np.full(64, -0.0, dt)).astype(np.float32)
        second = _TIE_TAKES_SECOND[ufunc, dt] = bool(np.signbit(ties).all())
    if not second:
        return ufunc(x, y, out=out)
    try:
        return ufunc(y, x, out=out)
    except ValueError:  # (shapes that do not broadcast: named x first, as TF's message)
        return ufunc(x, y, out=out)


def declare_unary(name, kernel, types="T: type", out=None, grad=None, differentiable=None,
                  inplace=None):
    """An op ``y = f(x)`` with y shaped like x. ``out`` fixes the output type (e.g. "bool").
    A function kernel declared ``inplace=0`` takes ``out=`` as a ufunc kernel does."""
    return op_registry.declare(
        name,
        inputs=["x: T"],
        outputs=[f"y: {out or 'T'}"],
        attrs=[types],
        shape=_unary_shape,
        kernel=kernel,
        grad=grad,
        differentiable=differentiable,
        inplace=inplace if inplace is not None else (
            0 if out is None and isinstance(kernel, str) else None),
    )


def declare_binary(name, kernel, types="T: type", out=None, grad=None, differentiable=None,
                   inplace=None, reduces=False):
    """A broadcasting op ``z = f(x, y)``; ``grad(op, grad) -> (gx, gy)`` on the output shape
    (already summed back to the inputs' shapes when ``reduces``).
    A string kernel (a ufunc) may write into a dying x; so may a function kernel declared
    ``inplace=0``, which then takes ``out=`` as a ufunc does."""
    return op_registry.declare(
        name,
        inputs=["x: T", "y: T"],
        outputs=[f"z: {out or 'T'}"],
        attrs=[types],
        shape=_binary_shape,
        kernel=kernel,
        grad=None if grad is None else (grad if reduces else _reducing(grad)),
        differentiable=differentiable,
        inplace=inplace if inplace is not None else (
            0 if out is None and isinstance(kernel, str) else None),
    )


def _reducing(grad):
    """Wraps a binary op's gradient so each partial is summed back to its input's shape."""

    def binary_grad(op, dz):
        gx, gy = grad(op, dz)
        x, y = op.inputs
        return reduce_to_inputs(x, y, gx, gy)

    binary_grad.__name__ = f"_{grad.__name__.strip('_')}"
    return binary_grad


# ------------------------------------------------------------------------------------------
# reducing broadcast gradients back to the input shapes
# ------------------------------------------------------------------------------------------


def _broadcast_gradient_args(s0, s1):
    """Axes along which each of two broadcast inputs must be summed (TF's rule)."""
    s0 = [int(d) for d in s0]
    s1 = [int(d) for d in s1]
    if s0 == s1:
        # TF's BCast takes identical shapes by a fast path that reduces nothing, size-1 dims
        # included ([1] vs [1]: a batch matmul's gradient keeps its batch axis of 1)
        return [], []
    n = max(len(s0), len(s1))
    a = [1] * (n - len(s0)) + s0
    b = [1] * (n - len(s1)) + s1
    r0, r1 = [], []
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y:
            if x == 1:
                r0.append(i)
                r1.append(i)
            continue
        if x == 1:
            r0.append(i)
        elif y == 1:
            r1.append(i)
        else:
            raise ValueError(f"Incompatible shapes: [{','.join(map(str, s0))}] vs. "
                             f"[{','.join(map(str, s1))}]")
    return r0, r1


# (s0 bytes, s1 bytes, dtype) -> (r0, r1) as read-only arrays: a loop gradient asks the same
# question every iteration; bounded, cleared when full
_BGA_CACHE = {}
_BGA_CACHE_MAX = 512


def _bga_kernel(s0, s1):
    if type(s0) is np.ndarray and type(s1) is np.ndarray and s0.dtype == s1.dtype:
        key = (s0.tobytes(), s1.tobytes(), s0.dtype.char, s0.ndim, s1.ndim)
        hit = _BGA_CACHE.get(key)
        if hit is None:
            r0, r1 = _broadcast_gradient_args(s0.reshape(-1), s1.reshape(-1))
            r0, r1 = np.asarray(r0, s0.dtype), np.asarray(r1, s0.dtype)
            r0.flags.writeable = r1.flags.writeable = False
            if len(_BGA_CACHE) >= _BGA_CACHE_MAX:
                _BGA_CACHE.clear()
            hit = _BGA_CACHE[key] = (r0, r1)
        # fresh arrays: a fetched result is the caller's to change
        return hit[0].copy(), hit[1].copy()
    r0, r1 = _broadcast_gradient_args(s0, s1)
    dt = np.asarray(s0).dtype
    return np.asarray(r0, dt), np.asarray(r1, dt)


op_registry.declare(
    "BroadcastGradientArgs",
    inputs=["s0: T", "s1: T"],
    outputs=["r0: T", "r1: T"],
    attrs=["T: {int32, int64} = DT_INT32"],
    shape=lambda op: [[None], [None]],
    kernel=_bga_kernel,
    differentiable=False,
)


def _bga_fold(op, index):
    # array_ops imports this module: its constant fold is taken on first use
    from tideflow.ops.array_ops import _fold

    return _fold(op, index)


# as TF's shape inference, which evaluates the small constant subgraph the axes come from: a
# gradient's Sum over BroadcastGradientArgs of static shapes has a known shape (TF's Python
# constant_value stops at the op)
ops.register_constant_value("BroadcastGradientArgs", _bga_fold, shape_inference_only=True)


# graph -> {(x shape, y shape): (rx, ry)}: as TF, the BroadcastGradientArgs op answering a
# question about static shapes is built once per graph and question
_SMART_BGA_CACHE = weakref.WeakKeyDictionary()


def _shape_op(x):
    return ops.apply_op("Shape", [x], {"out_type": dtypes.int32})._outputs[0]


def smart_broadcast_gradient_args(x, y, grad):
    """TF 1.15's SmartBroadcastGradientArgs: ((sx, rx, must_reduce_x), (sy, ry, ...)).

    Shapes not fully known: Shape ops and a BroadcastGradientArgs op, and both inputs reduce.
    Fully known: Python tuples (the op TF folds them from is built once per graph and pair of
    shapes), and an input reduces only when its shape differs from the gradient's."""
    if not isinstance(grad, ops.Tensor):
        from tideflow.ops import array_ops

        sx, sy = array_ops.shape(x), array_ops.shape(y)  # (Consts where static, as TF's)
        rx, ry = ops.apply_op("BroadcastGradientArgs", [sx, sy])._outputs
        return (sx, rx, True), (sy, ry, True)
    xs, ys = x.get_shape(), y.get_shape()
    if not (xs.is_fully_defined() and ys.is_fully_defined()):
        sx, sy = _shape_op(x), _shape_op(y)
        rx, ry = ops.apply_op("BroadcastGradientArgs", [sx, sy])._outputs
        return (sx, rx, True), (sy, ry, True)
    xt, yt = tuple(xs.as_list()), tuple(ys.as_list())
    gs = grad.get_shape()
    gt = tuple(gs.as_list()) if gs.ndims is not None else None
    # per graph, as TF's default graph; a v1 cond's or loop's body (and its gradient) is part
    # of its outermost graph there, so it shares that graph's answers
    graph = ops.get_default_graph()
    cache = _SMART_BGA_CACHE.setdefault(getattr(graph, "_root", None) or graph, {})
    hit = cache.get((xt, yt))
    if hit is None:
        ops.apply_op("BroadcastGradientArgs", [list(xt), list(yt)])
        rx, ry = _broadcast_gradient_args(list(xt), list(yt))
        hit = cache[(xt, yt)] = (tuple(rx), tuple(ry))
    return (xt, hit[0], xt != gt), (yt, hit[1], yt != gt)


def shapes_equal_and_known(x, y, grad):
    """TF's _ShapesFullySpecifiedAndEqual: the gradient needs no reduction for either input."""
    xs, ys, gs = x.get_shape(), y.get_shape(), grad.get_shape()
    return (xs.is_fully_defined() and ys.ndims is not None and gs.ndims is not None
            and xs.as_list() == ys.as_list() == gs.as_list())


def sum_to(g, axes, shape):
    """``reshape(reduce_sum(g, axes), shape)``: a partial gradient summed back to its input."""
    from tideflow.ops import array_ops, reduction_ops

    return array_ops.reshape(reduction_ops.reduce_sum(g, list(axes) if isinstance(
        axes, tuple) else axes), list(shape) if isinstance(shape, tuple) else shape)


def _reduce_one(x, g, axes_static, axes_dynamic):
    from tideflow.ops import array_ops, reduction_ops

    if g is None:
        return None
    if axes_static is not None:
        xs = x.get_shape()
        if axes_static:
            rank = g.get_shape().ndims
            if rank is None or xs.ndims is None:
                return array_ops.reshape(reduction_ops.reduce_sum(g, axes_static),
                                         array_ops.shape(x))
            if xs.is_fully_defined():
                # Reshape(Sum(grad)), as TF builds it: K-FAC optimizers (ACKTR) find a bias's
                # incoming gradient by walking the gradient graph from the bias's Reshape
                return array_ops.reshape(reduction_ops.reduce_sum(g, axes_static), xs.as_list())
            # the axes x has keep their (size-1) place; the leading axes x lacks go, so the
            # result has x's rank even where x's other dimensions are unknown
            lead = rank - xs.ndims
            kept = [a for a in axes_static if a >= lead]
            dropped = [a for a in axes_static if a < lead]
            if kept:
                g = reduction_ops.reduce_sum(g, kept, keepdims=True)
            if dropped:
                g = reduction_ops.reduce_sum(g, dropped)
        if xs.is_fully_defined() and g.get_shape() != xs:
            g = array_ops.reshape(g, xs.as_list())
        return g
    return array_ops.reshape(reduction_ops.reduce_sum(g, axes_dynamic), array_ops.shape(x))


def _static_axes(a, b):
    """Axes along which an input of shape ``a``, broadcast against ``b``, must be summed.

    None when unknown dimensions leave it undecided. A dimension of ``a`` needs no sum when
    ``b`` lacks it or has size 1 there, or when it is known not to be 1.
    """
    if a.ndims is None or b.ndims is None:
        return None
    da, db = a.as_list(), b.as_list()
    la, lb = len(da), len(db)
    n = max(la, lb)
    axes = list(range(n - la))  # leading axes a lacks
    for i in range(n - la, n):
        x = da[i - (n - la)]
        j = i - (n - lb)
        y = db[j] if j >= 0 else 1
        if y == 1 or (x is not None and x != 1):
            continue
        if x == 1 and y is not None:
            axes.append(i)
            continue
        return None
    return axes


def reduce_to_inputs(x, y, gx, gy):
    """Sums gradients shaped like the broadcast output back to the shapes of ``x`` and ``y``."""
    sx, sy = x.get_shape(), y.get_shape()
    if sx.is_fully_defined() and sy.is_fully_defined():
        if sx == sy:
            return gx, gy
        rx, ry = _broadcast_gradient_args(sx.as_list(), sy.as_list())
        return _reduce_one(x, gx, rx, None), _reduce_one(y, gy, ry, None)
    rx, ry = _static_axes(sx, sy), _static_axes(sy, sx)
    if rx is not None and ry is not None:
        return _reduce_one(x, gx, rx, None), _reduce_one(y, gy, ry, None)
    from tideflow.ops import array_ops

    rx, ry = ops.apply_op("BroadcastGradientArgs",
                          [array_ops.shape(x), array_ops.shape(y)])._outputs
    return _reduce_one(x, gx, None, rx), _reduce_one(y, gy, None, ry)


# ------------------------------------------------------------------------------------------
# complex arithmetic as TF 1.15's CPU kernels round it
# ------------------------------------------------------------------------------------------


# complex values in one AVX packet of TF 1.15's Eigen kernels (complex64, complex128)
_COMPLEX_PACKET = {np.dtype(np.complex64): 4, np.dtype(np.complex128): 2}


def _complex_parts(x, y):
    x, y = np.asarray(x), np.asarray(y)
    shape = np.broadcast_shapes(x.shape, y.shape)
    a = np.broadcast_to(x, shape).reshape(-1)
    b = np.broadcast_to(y, shape).reshape(-1)
    return shape, np.result_type(x, y), a.real, a.imag, b.real, b.imag


def _complex_mul(x, y, out=None, packets=True):
    """x * y of complex as TF's kernel multiplies: ``ar*br - ai*bi``, ``ar*bi + ai*br``, each
    product rounded (NumPy's complex loop fuses them); past the last whole AVX packet (all of
    it for ``packets=False``, a scalar-only kernel) std::complex's multiply, which recovers
    the infinities where both parts came out NaN (_c99_mul_recover)."""
    shape, dt, ar, ai, br, bi = _complex_parts(x, y)
    with np.errstate(all="ignore"):
        re = ar * br
        re -= ai * bi
        im = ar * bi
        im += ai * br
    n = re.size
    k = n - n % _COMPLEX_PACKET.get(dt, 1) if packets else 0
    if k < n:
        _c99_mul_recover(re, im, ar, ai, br, bi, k)
    z = np.empty(shape, dt) if out is None else out
    z.real = re.reshape(shape)
    z.imag = im.reshape(shape)
    return z


def _box(v):
    """C99's boxing of an infinite part: +-1 for an infinity, +-0 otherwise (sign kept)."""
    return math.copysign(1.0 if math.isinf(v) else 0.0, v)


def _zero_nan(v):
    return math.copysign(0.0, v) if math.isnan(v) else v


def _c99_mul_recover(re, im, ar, ai, br, bi, start):
    """libgcc's __mulsc3/__muldc3 past the plain products, from flat index ``start`` on."""
    bad = np.isnan(re[start:]) & np.isnan(im[start:])
    for i in (np.flatnonzero(bad) + start).tolist():
        a, b, c, d = float(ar[i]), float(ai[i]), float(br[i]), float(bi[i])
        recalc = False
        if math.isinf(a) or math.isinf(b):
            a, b, c, d = _box(a), _box(b), _zero_nan(c), _zero_nan(d)
            recalc = True
        if math.isinf(c) or math.isinf(d):
            c, d, a, b = _box(c), _box(d), _zero_nan(a), _zero_nan(b)
            recalc = True
        if not recalc and any(math.isinf(v) for v in (a * c, b * d, a * d, b * c)):
            a, b, c, d = _zero_nan(a), _zero_nan(b), _zero_nan(c), _zero_nan(d)
            recalc = True
        if recalc:
            re[i] = math.inf * (a * c - b * d)
            im[i] = math.inf * (a * d + b * c)


def _c99_div_recover(re, im, ar, ai, br, bi, start):
    """libgcc's __divsc3/__divdc3 past Smith's quotient, from flat index ``start`` on."""
    bad = np.isnan(re[start:]) & np.isnan(im[start:])
    for i in (np.flatnonzero(bad) + start).tolist():
        a, b, c, d = float(ar[i]), float(ai[i]), float(br[i]), float(bi[i])
        if c == 0.0 and d == 0.0 and (not math.isnan(a) or not math.isnan(b)):
            re[i] = math.copysign(math.inf, c) * a
            im[i] = math.copysign(math.inf, c) * b
        elif (math.isinf(a) or math.isinf(b)) and math.isfinite(c) and math.isfinite(d):
            a, b = _box(a), _box(b)
            re[i] = math.inf * (a * c + b * d)
            im[i] = math.inf * (b * c - a * d)
        elif (math.isinf(c) or math.isinf(d)) and math.isfinite(a) and math.isfinite(b):
            c, d = _box(c), _box(d)
            re[i] = 0.0 * (a * c + b * d)
            im[i] = 0.0 * (b * c - a * d)


def _complex_div(x, y, packets=True):
    """x / y of complex as TF 1.15's CPU kernels divide (Div, RealDiv, DivNoNan, Reciprocal):
    whole AVX packets (4 complex64, 2 complex128) as Eigen's ``x * conj(y) / (br*br + bi*bi)``
    (so by exactly zero NaN + NaN j), the elements after the last whole packet as libgcc's
    complex division (Smith's); all of them so for ``packets=False`` (a scalar-only kernel)."""
    shape, dt, ar, ai, br, bi = _complex_parts(x, y)
    n = ar.size
    k = n - n % _COMPLEX_PACKET.get(dt, 1) if packets else 0
    out = np.empty(n, dt)
    with np.errstate(all="ignore"):
        a, b, c, d = ar[:k], ai[:k], br[:k], bi[:k]
        s = c * c + d * d
        out.real[:k] = (a * c + b * d) / s
        out.imag[:k] = (b * c - a * d) / s
        a, b, c, d = ar[k:], ai[k:], br[k:], bi[k:]
        small = np.abs(c) < np.abs(d)
        ratio = np.where(small, c / d, d / c)
        denom = np.where(small, c * ratio + d, d * ratio + c)
        out.real[k:] = np.where(small, a * ratio + b, b * ratio + a) / denom
        out.imag[k:] = np.where(small, b * ratio - a, b - a * ratio) / denom
        if k < n:
            re, im = out.real.copy(), out.imag.copy()
            _c99_div_recover(re, im, ar, ai, br, bi, k)
            out.real, out.imag = re, im
    return out.reshape(shape)
