"""Neural-network ops: activations and their gradient ops, softmax, bias add, cross-entropy
losses, L2 loss and top-k; each declared with its kernel, shape function and gradient.

LRN and batch normalization live in ``normalization_ops.py``; composites in ``nn_impl.py``.
"""

import functools
import math

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import Dimension, TensorShape, unknown_shape
from tideflow.kernels import stl_order, sums, threads
from tideflow.ops import eigen_float32, eigen_softmax
from tideflow.ops.elementwise import keep_x_on_tie
from tideflow.ops.unary_ops import logistic

_FLOAT = "T: {half, bfloat16, float, double}"
_REAL = "T: realnumbertype"
# (TF 1.15's Relu also takes qint8, the last in its list)
_REAL_QINT8 = ("T: {float32, float64, int32, uint8, int16, int8, int64, bfloat16, uint16, "
               "float16, uint32, uint64, qint8}")
_LOW_PRECISION = (np.dtype(np.float16), np.dtype(dtypes.bfloat16.as_numpy_dtype))

_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_ALPHA = 1.6732632423543772848170429916717


def _apply(op_type, inputs, attrs=None, name=None):
    return list(ops.apply_op(op_type, inputs, attrs, name=name)._outputs)


def _in(op, i):
    return op._inputs[i]._shape


def _widened(fn):
    """A kernel computing half/bfloat16 inputs in float32 and casting float outputs back."""

    @functools.wraps(fn)  # keeps the signature, whose keyword-only names are the bound attrs
    def kernel(*args, **kw):
        dt = args[0].dtype
        if dt not in _LOW_PRECISION:
            return fn(*args, **kw)
        out = fn(*[a.astype(np.float32) if a.dtype == dt else a for a in args], **kw)
        if isinstance(out, tuple):
            return tuple(o.astype(dt) if o.dtype == np.float32 else o for o in out)
        return out.astype(dt)

    return kernel


def _attr_str(op, name):
    v = op.get_attr(name)
    return v.decode() if isinstance(v, bytes) else v


_ZEROS = {}


def _zero(x):
    """A read-only 0-d zero of ``x``'s dtype (made once per dtype)."""
    z = _ZEROS.get(x.dtype)
    if z is None:
        z = np.zeros((), x.dtype)
        z.flags.writeable = False
        _ZEROS[x.dtype] = z
    return z


# ------------------------------------------------------------------------------------------
# activations
# ------------------------------------------------------------------------------------------


def _merge_both(op):
    return [_in(op, 0).merge_with(_in(op, 1))]


def _unchanged(op):
    return [_in(op, 0)]


def _split(arrays, out):
    """Whether an element-wise kernel over same-shaped ``arrays`` splits over the intra-op
    threads (big, contiguous, and a step holds the pool); makes ``out`` when so."""
    a = arrays[0]
    if a.size < threads.MIN_SPLIT_SIZE or not threads.active() or any(
            type(b) is not np.ndarray or not b.flags.c_contiguous or b.shape != a.shape
            for b in arrays):
        return None
    return np.empty_like(a) if out is None else out


def _relu(x, *, out=None):
    # max(x, 0) with x first: NumPy's vectorised loop (TF keeps x on a tie, so relu(-0.) is
    # -0. there and 0. here; taking x on ties costs NumPy's scalar-first loop, 2x slower on a
    # training step's activations, for the sign of a zero)
    split = _split((x,), out)
    if split is not None:
        threads.split_flat([x, split], lambda a, o: np.maximum(a, _zero(a), out=o))
        return split
    return np.maximum(x, _zero(x), out=out)


def _relu_grad(g, f, *, out=None):
    # a multiply by the mask, as TF's kernel: np.where on a random mask is ~10x slower
    split = _split((g, f), out)
    if split is not None:
        threads.split_flat([g, f, split], lambda a, b, o: np.multiply(a, b > 0, out=o))
        return split
    return np.multiply(g, f > 0, out=out)


def _relu6(x):
    return keep_x_on_tie(np.minimum, keep_x_on_tie(np.maximum, x, _zero(x)),
                         np.asarray(6, x.dtype))


def _relu6_grad(g, f):
    return g * ((f > 0) & (f < 6))


# The piecewise activations below combine their two pieces with max/min and multiplies by a
# 0/1 mask rather than np.where, which branches on every element (4-10x slower on a random
# mask); each piece is exactly what the np.where form computed.


@_widened
def _elu(x):
    # x for x >= 0 (expm1(0) adds zero), expm1(x) below (max(x, 0) adds zero); -0. gives
    # -0. + -0., as TF's x < 0 ? expm1(x) : x
    out = np.expm1(keep_x_on_tie(np.minimum, x, _zero(x)))
    out += keep_x_on_tie(np.maximum, x, _zero(x))
    return out


@_widened
def _elu_grad(g, y):
    return g * (np.fmin(y, 0) + 1)  # y + 1 below zero, 1 from zero up (and for NaN)


@_widened
def _selu(x):
    out = np.expm1(keep_x_on_tie(np.minimum, x, _zero(x)))
    out *= _SELU_SCALE * _SELU_ALPHA
    out += _SELU_SCALE * keep_x_on_tie(np.maximum, x, _zero(x))
    return out.astype(x.dtype, copy=False)


@_widened
def _selu_grad(g, y):
    below = y < 0  # y + scale * alpha below zero, scale from zero up (and for NaN)
    factor = below * (np.fmin(y, 0) + _SELU_SCALE * _SELU_ALPHA)
    factor += ~below * np.asarray(_SELU_SCALE, factor.dtype)
    return (g * factor).astype(g.dtype, copy=False)


# Eigen's epsilon for half is 2**-13, not float16's 2**-10
_SOFTPLUS_EPS = {np.dtype(np.float16): 2.0 ** -13}


def _softplus(x):
    # TF 1.15's kernel: x above -t, e^x below t (t = log(eps) + 2), else log(e^x + 1) in x's
    # precision (not log1p: softplus(-10.) is 4.541771e-05 there); a subnormal e^x is 0, as
    # TF's CPU kernels flush denormals
    dt = x.dtype
    if dt != np.float16 and dt in _LOW_PRECISION:
        return _softplus(x.astype(np.float32)).astype(dt)
    t = np.log(_SOFTPLUS_EPS.get(dt) or np.finfo(dt).eps) + 2
    with np.errstate(over="ignore"):
        e = np.exp(x)
        out = np.where(x > -t, x, np.where(x < t, e, np.log(e + dt.type(1))))
    # (half is computed in float, so its own subnormals stay)
    out[np.abs(out) < np.finfo(np.float32 if dt == np.float16 else dt).tiny] = 0
    return out.astype(dt, copy=False)


@_widened
def _softplus_grad(g, f):
    return (g * logistic(f)).astype(g.dtype, copy=False)


@_widened
def _softsign(x):
    return x / (1 + np.abs(x))


@_widened
def _softsign_grad(g, f):
    d = 1 + np.abs(f)
    return g / (d * d)


def _leaky_relu(x, *, alpha):
    # alpha in x's own dtype, each product rounded to it (as TF's half kernel), so not widened
    a = np.asarray(alpha, x.dtype)
    if 0 < alpha <= 1:  # x above zero, alpha * x below: the larger of the two
        return np.maximum(x, x * a)
    return np.where(x > 0, x, x * a)


def _leaky_relu_grad(g, f, *, alpha):
    a = np.asarray(alpha, g.dtype)
    if 0 <= alpha <= 1:  # a factor of 1 above zero, alpha below
        return g * np.maximum(f > 0, a, dtype=g.dtype)
    return np.where(f > 0, g, g * a)


def _relu_grad_fn(op, grad):
    return _apply("ReluGrad", [grad, op.outputs[0]])[0]


def _relu6_grad_fn(op, grad):
    return _apply("Relu6Grad", [grad, op.outputs[0]])[0]


def _elu_grad_fn(op, grad):
    return _apply("EluGrad", [grad, op.outputs[0]])[0]


def _selu_grad_fn(op, grad):
    return _apply("SeluGrad", [grad, op.outputs[0]])[0]


def _softplus_grad_fn(op, grad):
    # TF 1.15's: grad * sigmoid(x) (two ops, not a SoftplusGrad)
    from tideflow.ops import math_ops

    return grad * math_ops.sigmoid(op.inputs[0])


def _softsign_grad_fn(op, grad):
    return _apply("SoftsignGrad", [grad, op.inputs[0]])[0]


def _leaky_relu_grad_fn(op, grad):
    return _apply("LeakyReluGrad", [grad, op.inputs[0]], {"alpha": op.get_attr("alpha")})[0]


def _piecewise_linear_grad_grad(op_type, attrs=()):
    """Second derivative of ReLU-like ops: linear in the incoming gradient, flat in x."""

    def grad_fn(op, grad):
        from tideflow.ops import array_ops

        x = op.inputs[1]
        a = {k: op.get_attr(k) for k in attrs}
        # TF 1.15's zeros(shape(x)): Shape, zeros/Const and zeros (Fill), three op ids
        return [_apply(op_type, [grad, x], a)[0],
                array_ops.zeros(array_ops.shape(x), dtype=x.dtype)]

    grad_fn.__name__ = f"_{op_type.lower()}_grad_grad"
    return grad_fn


def _elu_grad_grad(op, grad):
    from tideflow.ops import fill_ops, gather_ops, math_ops

    y = op.inputs[1]
    ddy = _apply("EluGrad", [grad, y])[0]  # first, as TF 1.15 builds the pair
    return [ddy, gather_ops.where(math_ops.less(y, 0), grad * op.inputs[0],
                                  fill_ops.zeros_like(y))]


def _selu_grad_grad(op, grad):
    from tideflow.ops import fill_ops, gather_ops, math_ops

    y = op.inputs[1]
    ddy = _apply("SeluGrad", [grad, y])[0]  # first, as TF 1.15 builds the pair
    return [ddy, gather_ops.where(math_ops.less(y, 0), grad * op.inputs[0],
                                  fill_ops.zeros_like(y))]


def _softplus_grad_grad(op, grad):
    from tideflow.ops import math_ops

    dy, x = op.inputs
    # d/dx [dy * sigmoid(x)] = dy * sigmoid(x) * (1 - sigmoid(x)) = dy / (e^-x + 2 + e^x),
    # under a control dependency on grad as TF 1.15's
    with ops.control_dependencies([grad]):
        ddy = _apply("SoftplusGrad", [grad, x])[0]
        return [ddy, grad * dy / (math_ops.exp(-x) + 2.0 + math_ops.exp(x))]


def _in_16_bits(op_type, x):
    """TF 1.15's half and bfloat16 kernels of these activations, each step rounded to x's
    type: Eigen's half has no expm1 (exp(x) - 1 instead); bfloat16's Softplus has no
    thresholds. None for the other types and ops."""
    F = np.float32
    if x.dtype == np.float16:
        if op_type == "Elu":
            return np.where(x < 0, np.exp(x) - x.dtype.type(1), x)
        below = np.exp(x) - x.dtype.type(1)
    elif x.dtype == _LOW_PRECISION[1]:
        if op_type == "Softplus":
            e = np.exp(x.astype(F)).astype(x.dtype)
            return np.log((e.astype(F) + 1).astype(x.dtype).astype(F)).astype(x.dtype)
        below = np.expm1(x.astype(F)).astype(x.dtype)
    else:
        return None
    if op_type == "Selu":
        scale = x.dtype.type(_SELU_SCALE)
        scale_alpha = x.dtype.type(_SELU_SCALE * _SELU_ALPHA)
        return np.where(x < 0, scale_alpha * below, scale * x)
    if op_type == "Softsign":
        return x / (x.dtype.type(1) + np.abs(x))
    return None


def _in_float32(op_type, x):
    """TF 1.15's float32 kernels of these activations, bit for bit (Eigen's exp and log:
    exp(x) - 1, not expm1, below zero; log(1 + exp(x)) for softplus). None for Softsign."""
    F = np.float32
    if op_type == "Softplus":
        return eigen_float32.softplus(x)
    if op_type == "Elu":
        return np.where(x < 0, eigen_float32.expm1_select(x), x)
    if op_type == "Selu":
        below = eigen_float32.expm1_select(x)
        below *= F(_SELU_SCALE * _SELU_ALPHA)
        return np.where(x < 0, below, F(_SELU_SCALE) * x)
    return None


def elu_by_rows(features):
    """Elu as TF 1.15's ``_FusedMatMul`` and ``_FusedConv2D`` output kernels compute it (the
    remapper's MatMul or Conv2D + BiasAdd + Elu): exp(x) - 1 below zero, each row's packets by Eigen's packet exp and its
    last ``n % 8`` values by glibc's expf."""
    if features.dtype != np.float32 or features.ndim < 2:
        return _activation_kernel("Elu", _elu)(features)
    below = eigen_float32.exp_by_rows(features.reshape(-1, features.shape[-1]))
    below -= np.float32(1)
    return np.where(features < 0, below.reshape(features.shape), features)


def _activation_kernel(op_type, kernel):
    if op_type not in ("Elu", "Selu", "Softplus", "Softsign"):
        return kernel

    def run(features):
        if features.dtype == np.float32:
            out = _in_float32(op_type, features)
            if out is not None:
                return out
        if features.dtype in _LOW_PRECISION:
            with np.errstate(over="ignore"):
                out = _in_16_bits(op_type, features)
            if out is not None:
                return out
        return kernel(features)

    run.__name__ = kernel.__name__ + "_16"
    return run


for _name, _kernel, _types, _grad in (
    ("Relu", _relu, _REAL_QINT8, _relu_grad_fn),
    ("Relu6", _relu6, _REAL, _relu6_grad_fn),
    ("Elu", _elu, _FLOAT, _elu_grad_fn),
    ("Selu", _selu, _FLOAT, _selu_grad_fn),
    ("Softplus", _softplus, _FLOAT, _softplus_grad_fn),
    ("Softsign", _softsign, _FLOAT, _softsign_grad_fn),
):
    _kernel = _activation_kernel(_name, _kernel)
    op_registry.declare(_name, inputs=["features: T"], outputs=["activations: T"],
                        attrs=[_types], shape=_unchanged, kernel=_kernel, grad=_grad,
                        inplace=0 if _name == "Relu" else None)

def _grad_in_16_bits(op_type, kernel):
    """TF 1.15's half and bfloat16 EluGrad/SeluGrad/SoftsignGrad, each step rounded."""

    def run(g, x):
        if g.dtype not in _LOW_PRECISION or x.dtype != g.dtype:
            return kernel(g, x)
        one = x.dtype.type(1)
        if op_type == "EluGrad":  # x: the Elu's outputs
            return np.where(x < 0, (x + one) * g, g)
        if op_type == "SeluGrad":
            scale_alpha = x.dtype.type(_SELU_SCALE * _SELU_ALPHA)
            return np.where(x < 0, g * (x + scale_alpha), g * x.dtype.type(_SELU_SCALE))
        d = np.abs(x) + one  # SoftsignGrad: x the features
        with np.errstate(over="ignore"):
            return g / (d * d)

    run.__name__ = kernel.__name__ + "_16"
    return run


for _name, _kernel, _types, _second, _arg in (
    ("ReluGrad", _relu_grad, _REAL, _piecewise_linear_grad_grad("ReluGrad"), "features"),
    ("Relu6Grad", _relu6_grad, _REAL, _piecewise_linear_grad_grad("Relu6Grad"), "features"),
    ("EluGrad", _elu_grad, _FLOAT, _elu_grad_grad, "outputs"),
    ("SeluGrad", _selu_grad, _FLOAT, _selu_grad_grad, "outputs"),
    ("SoftplusGrad", _softplus_grad, _FLOAT, _softplus_grad_grad, "features"),
    ("SoftsignGrad", _softsign_grad, _FLOAT, None, "features"),
):
    if _name in ("EluGrad", "SeluGrad", "SoftsignGrad"):
        _kernel = _grad_in_16_bits(_name, _kernel)
    op_registry.declare(_name, inputs=["gradients: T", f"{_arg}: T"], outputs=["backprops: T"],
                        attrs=[_types], shape=_merge_both, kernel=_kernel, grad=_second,
                        inplace=0 if _name == "ReluGrad" else None)

_LEAKY_ATTRS = ["alpha: float = 0.2", "T: {half, bfloat16, float, double} = DT_FLOAT"]
op_registry.declare("LeakyRelu", inputs=["features: T"], outputs=["activations: T"],
                    attrs=_LEAKY_ATTRS, shape=_unchanged, kernel=_leaky_relu,
                    grad=_leaky_relu_grad_fn)
op_registry.declare("LeakyReluGrad", inputs=["gradients: T", "features: T"],
                    outputs=["backprops: T"], attrs=_LEAKY_ATTRS, shape=_merge_both,
                    kernel=_leaky_relu_grad,
                    grad=_piecewise_linear_grad_grad("LeakyReluGrad", ("alpha",)))


# ------------------------------------------------------------------------------------------
# softmax
# ------------------------------------------------------------------------------------------


def _rank_at_least_1(op):
    x = _in(op, 0)
    if x.ndims == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    return [x.with_rank_at_least(1)]


def _check_softmax_rank(x):
    if x.ndim < 1:
        raise errors.InvalidArgumentError(
            None, None, f"logits must have >= 1 dimension, got {_dims(x.shape)}"
        )


def _row_max(x):
    """``np.max(x, axis=-1, keepdims=True)``: for many short rows (a classifier's logits) the
    max down the columns of a transposed copy, which NumPy vectorizes (128 x 10: 20 -> 3 us,
    per step of every classifier); the same values (a max is exact in any order, NaN too)."""
    n = x.shape[-1]
    if x.ndim >= 2 and 1 < n <= 64 and x.size >= 256:
        cols = np.ascontiguousarray(x.reshape(-1, n).T)
        return np.maximum.reduce(cols, axis=0).reshape(x.shape[:-1] + (1,))
    return np.max(x, axis=-1, keepdims=True)


def _half_softmax(x, log):
    """TF 1.15's half kernels, each step rounded to half: exp(x - max) times the inverse of
    its row sum (Eigen's 8-lane inner reduction), or (x - max) - log of that sum (added one
    after another)."""
    from tideflow.ops.reduction_ops import _half_lane_sum, _running_half_sum

    shifted = x - _row_max(x)
    e = np.exp(shifted)
    if log:
        return shifted - np.log(_running_half_sum(e, e.ndim - 1)[..., None])
    return e * (np.float16(1) / _half_lane_sum(e)[..., None])


@_widened
def _softmax(x):
    _check_softmax_rank(x)
    if not x.size:
        return x.copy()
    e = np.exp(x - _row_max(x))
    out = e / np.sum(e, axis=-1, keepdims=True)
    # TF's CPU kernels run with denormals flushed to zero: a probability below the smallest
    # normal number is 0 there (softmax([0., -100.]) prints [1. 0.], not 3.7835059e-44)
    tiny = np.finfo(out.dtype).tiny
    if out.min() < tiny:
        out[out < tiny] = 0
    return out


@_widened
def _log_softmax(x):
    _check_softmax_rank(x)
    if not x.size:
        return x.copy()
    shifted = x - _row_max(x)
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


def _softmax_grad(op, grad):
    from tideflow.ops import reduction_ops

    sm = op.outputs[0]
    return (grad - reduction_ops.reduce_sum(grad * sm, -1, keepdims=True)) * sm


def _log_softmax_grad(op, grad):
    from tideflow.ops import math_ops, reduction_ops

    sm = math_ops.exp(op.outputs[0])
    return grad - reduction_ops.reduce_sum(grad, -1, keepdims=True) * sm


def _softmax_kernel(log):
    widened = _log_softmax if log else _softmax

    def kernel(logits):
        if logits.dtype in (np.float16, np.float32) and logits.size:
            _check_softmax_rank(logits)
            if logits.dtype == np.float16:
                return _half_softmax(logits, log)
            return eigen_softmax.softmax(logits, log)
        return widened(logits)

    kernel.__name__ = widened.__name__ + "_kernel"
    return kernel


op_registry.declare("Softmax", inputs=["logits: T"], outputs=["softmax: T"], attrs=[_FLOAT],
                    shape=_rank_at_least_1, kernel=_softmax_kernel(False), grad=_softmax_grad)
op_registry.declare("LogSoftmax", inputs=["logits: T"], outputs=["logsoftmax: T"],
                    attrs=[_FLOAT], shape=_rank_at_least_1, kernel=_softmax_kernel(True),
                    grad=_log_softmax_grad)


# ------------------------------------------------------------------------------------------
# bias add
# ------------------------------------------------------------------------------------------


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _channel_axis(ndim, data_format):
    return 1 if data_format.startswith("NC") and ndim > 2 else ndim - 1


def _bias_add(value, bias, *, data_format="NHWC", out=None):
    if value.ndim < 2:
        raise errors.InvalidArgumentError(
            None, None, f"Input tensor must be at least 2D: {_dims(value.shape)}")
    if bias.ndim != 1:
        raise errors.InvalidArgumentError(None, None, f"Biases must be 1D: {_dims(bias.shape)}")
    axis = _channel_axis(value.ndim, data_format)
    if value.shape[axis] != bias.shape[0]:
        raise errors.InvalidArgumentError(  # ("last" for NCHW too: TF 1.15's words)
            None, None,
            f"Must provide as many biases as the last dimension of the input tensor: "
            f"{_dims(bias.shape)} vs. {_dims(value.shape)}",
        )
    shape = [1] * value.ndim
    shape[axis] = -1
    return np.add(value, bias.reshape(shape), out=out).astype(value.dtype, copy=False)


def _bias_add_v1(value, bias):
    return _bias_add(value, bias)


def _bias_add_shape(op):
    value = _in(op, 0)
    bias = _in(op, 1)
    data_format = op._attrs.get("data_format", "NHWC")
    least = 3 if data_format == "NCHW" else 2  # TF: channels-first needs a spatial dimension
    if value.ndims is not None and value.ndims < least:  # (as TF, checked before the bias)
        raise ValueError(f"Shape must be at least rank {least} but is rank {value.ndims}")
    if bias.ndims is not None and bias.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {bias.ndims}")
    bias = bias.with_rank(1)
    if value.ndims is None:
        return [unknown_shape()]
    axis = _channel_axis(value.ndims, data_format)
    dims = list(value.dims)
    try:
        dims[axis] = dims[axis].merge_with(bias[0])
    except ValueError:
        raise ValueError(
            f"Dimensions must be equal, but are {dims[axis].value} and {bias[0].value}"
        ) from None
    return [TensorShape(dims)]


_GEMV_TYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _bias_add_grad_kernel(out_backprop, *, data_format="NHWC"):
    if out_backprop.ndim < 2:
        raise errors.InvalidArgumentError(
            None, None, f"Input tensor must be at least 2D: {_dims(out_backprop.shape)}")
    axis = _channel_axis(out_backprop.ndim, data_format)
    axes = tuple(i for i in range(out_backprop.ndim) if i != axis)
    if (axis == out_backprop.ndim - 1 and out_backprop.dtype == np.float32
            and type(out_backprop) is np.ndarray and out_backprop.size):
        # TF 1.15's BiasGrad: its ReduceOuterDimensions functor, rows in order within blocks
        # split by its intra-op pool (as batch norm's gradient sums)
        from tideflow.ops.normalization_ops import _outer_sums

        return _outer_sums(np.ascontiguousarray(out_backprop).reshape(
            -1, out_backprop.shape[-1]))
    if (axis == out_backprop.ndim - 1 and out_backprop.dtype in _GEMV_TYPES
            and out_backprop.size >= sums.GEMV_MIN and out_backprop.flags.c_contiguous):
        return sums.leading_sum(out_backprop, axis, False)
    acc = np.float32 if out_backprop.dtype in _LOW_PRECISION else None
    return np.sum(out_backprop, axis=axes, dtype=acc).astype(out_backprop.dtype, copy=False)


def _bias_add_grad_shape(op):
    s = _in(op, 0)
    if s.ndims is None:
        return [TensorShape([None])]
    s = s.with_rank_at_least(2)
    return [TensorShape([s[_channel_axis(s.ndims, op._attrs["data_format"])]])]


def _bias_add_grad(op, grad):
    fmt = op.get_attr("data_format")
    return [grad, _apply("BiasAddGrad", [grad], {"data_format": fmt})[0]]


def _bias_add_v1_grad(op, grad):
    return [grad, _apply("BiasAddGrad", [grad])[0]]


def _bias_add_grad_grad(op, grad):
    """BiasAddGrad sums over all but the channel axis, so its gradient broadcasts back."""
    from tideflow.ops import array_ops, concat_ops, fill_ops

    x = op.inputs[0]
    rank = x.get_shape().ndims
    if _attr_str(op, "data_format").startswith("NC") and rank != 2:
        if rank is not None:
            grad = array_ops.reshape(grad, [-1] + [1] * (rank - 2))
        else:
            ones = fill_ops.ones_like(array_ops.shape(x))[2:]
            grad = array_ops.reshape(grad, concat_ops.concat([[-1], ones], 0))
    return fill_ops.broadcast_to(grad, array_ops.shape(x))


_FORMAT = "data_format: {'NHWC', 'NCHW'} = 'NHWC'"
op_registry.declare("BiasAdd", inputs=["value: T", "bias: T"], outputs=["output: T"],
                    attrs=["T: numbertype", _FORMAT], shape=_bias_add_shape, kernel=_bias_add,
                    grad=_bias_add_grad, inplace=0)
op_registry.declare("BiasAddV1", inputs=["value: T", "bias: T"], outputs=["output: T"],
                    attrs=["T: numbertype"], shape=_bias_add_shape, kernel=_bias_add_v1,
                    grad=_bias_add_v1_grad)
op_registry.declare("BiasAddGrad", inputs=["out_backprop: T"], outputs=["output: T"],
                    attrs=["T: numbertype", _FORMAT], shape=_bias_add_grad_shape,
                    kernel=_bias_add_grad_kernel, grad=_bias_add_grad_grad)


# ------------------------------------------------------------------------------------------
# cross-entropy losses
# ------------------------------------------------------------------------------------------


@_widened
def _softmax_xent(features, labels):
    return _dense_xent(features, labels, True)


@_widened
def _softmax_xent_unread_loss(features, labels):
    """The kernel a plan runs where nothing reads the loss's values (``_unread_loss``)."""
    return _dense_xent(features, labels, False)


def _dense_xent(features, labels, with_loss):
    if features.ndim != 2 or labels.ndim != 2:
        try:
            bshape = np.broadcast_shapes(features.shape, labels.shape)
        except ValueError:
            bshape = ()
        if len(bshape) != 2:
            raise errors.InvalidArgumentError(
                None, None,
                "logits and labels must be either 2-dimensional, or broadcasted to be "
                f"2-dimensional: logits_size={_dims(features.shape)} "
                f"labels_size={_dims(labels.shape)}",
            )
    try:
        features, labels = np.broadcast_arrays(features, labels)
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None,
            f"logits and labels must be broadcastable: logits_size={_dims(features.shape)} "
            f"labels_size={_dims(labels.shape)}",
        ) from None
    if features.shape[1] == 0:  # no classes: TF 1.15's loss is 0 per row
        return np.zeros(features.shape[:1], features.dtype), features - labels
    if features.dtype == np.float32:  # TF's kernel bit for bit
        return _unread_loss(eigen_softmax.softmax_xent(features, labels, with_loss), features)
    shifted = features - _row_max(features)
    log_sm = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    loss = -np.sum(labels * log_sm, axis=1)
    return loss, np.exp(log_sm) - labels


def _softmax_xent_shape(op):
    try:
        s = _in(op, 0).with_rank(2).merge_with(_in(op, 1))
    except ValueError:
        from tideflow.ops.elementwise import broadcast_shape

        s = broadcast_shape(_in(op, 0), _in(op, 1))
        if s.ndims is None:
            return [TensorShape([None]), TensorShape([None, None])]
        if s.ndims != 2:
            raise ValueError(f"Shape must be broadcasted with rank 2, but is rank {s.ndims}")
    return [TensorShape([s[0]]), s]


def _is_zero(t):
    return t is None or (isinstance(t, ops.Tensor) and t.op.type in ("ZerosLike", "Zeros"))


def _xent_backprop_grad(logits, grad_grad):
    """The part of the logits gradient that flows in through the ``backprop`` output, as TF
    1.15 builds it: each row's <grad_grad, softmax> by a batched MatMul, squeezed."""
    from tideflow.ops import array_ops, linalg_ops

    sm = _apply("Softmax", [logits])[0]
    dot = linalg_ops.matmul(array_ops.expand_dims(grad_grad, 1), array_ops.expand_dims(sm, 2))
    return (grad_grad - array_ops.squeeze(dot, axis=1)) * sm


def _softmax_xent_grad(op, grad_loss, grad_grad):
    # TF 1.15's ops in its order: each partial is grad_loss (as a column) times a matrix
    from tideflow.ops import array_ops

    d_logits = array_ops.expand_dims(grad_loss, -1) * op.outputs[1]
    logits = op.inputs[0]
    if not _is_zero(grad_grad):
        d_logits = d_logits + _xent_backprop_grad(logits, grad_grad)
    # (TF 1.15's labels gradient takes no part of grad_grad, though backprop reads labels)
    neg_log_softmax = -_apply("LogSoftmax", [logits])[0]
    d_labels = array_ops.expand_dims(grad_loss, -1) * neg_log_softmax
    # as TF 1.15, nothing reduces a broadcast back (the public wrappers' reshapes then fail,
    # as TF's do), so shapes not known equal build no ops more than TF's
    return [d_logits, d_labels]


def _unread_loss(outputs, features):
    """(loss, backprop) with a loss left out (None) standing as an unset float32 vector:
    only its shape may be read (a Mean's gradient takes it)."""
    loss, backprop = outputs
    if loss is None:
        loss = np.empty(features.shape[:1], np.float32)
    return loss, backprop


@_widened
def _sparse_softmax_xent(features, labels):
    return _sparse_xent(features, labels, True)


@_widened
def _sparse_softmax_xent_unread_loss(features, labels):
    """The kernel a plan runs where nothing reads the loss's values (``_unread_loss``)."""
    return _sparse_xent(features, labels, False)


def _sparse_xent(features, labels, with_loss):
    if features.ndim != 2:
        raise errors.InvalidArgumentError(
            None, None, f"logits must be 2-D, but got shape {_dims(features.shape)}")
    if labels.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"labels must be 1-D, but got shape {_dims(labels.shape)}")
    if features.shape[0] != labels.shape[0]:
        raise errors.InvalidArgumentError(
            None, None,
            "logits and labels must have the same first dimension, got logits shape "
            f"{_dims(features.shape)} and labels shape {_dims(labels.shape)}",
        )
    n = features.shape[1]
    if n == 0:
        raise errors.InvalidArgumentError(
            None, None, f"Must have at least one class, but got logits shape "
            f"{_dims(features.shape)}")
    # one pass over the labels: seen as unsigned, a negative label is larger than any n
    u = _UNSIGNED.get(labels.dtype)
    if labels.size and (labels.view(u).max() >= n if u is not None else
                        bool(((labels < 0) | (labels >= n)).any())):
        bad = (labels < 0) | (labels >= n)
        first = labels[np.argmax(bad)]
        raise errors.InvalidArgumentError(
            None, None,
            f"Received a label value of {first} which is outside the valid range of [0, {n}).  "
            f"Label values: {' '.join(str(v) for v in labels.tolist())}",
        )
    if features.dtype == np.float32:  # TF's kernel bit for bit
        return _unread_loss(eigen_softmax.sparse_softmax_xent(features, labels, with_loss),
                            features)
    # C order whatever the input's layout (an einsum or transpose result may be strided): the
    # label entries below are written through a flat view of this array
    shifted = np.subtract(features, _row_max(features), order="C")
    # each row's label entry in the flattened (C-contiguous) array: 1-D takes are cheaper
    # than a (rows, labels) pair of fancy indices
    at = np.arange(0, shifted.size, n)
    at += labels
    flat = shifted.reshape(-1)
    picked = flat.take(at)
    backprop = np.exp(shifted, out=shifted)
    total = np.add.reduce(backprop, axis=1, keepdims=True)
    # loss = log(sum(exp(shifted))) - shifted[label]; backprop = softmax - onehot
    loss = np.log(total.reshape(-1))
    loss -= picked
    backprop /= total
    flat[at] -= 1
    return loss, backprop


_UNSIGNED = {np.dtype(np.int32): np.uint32, np.dtype(np.int64): np.uint64}


def _sparse_softmax_xent_shape(op):
    features = _in(op, 0).with_rank(2)
    labels = _in(op, 1).with_rank(1)
    try:
        batch = features[0].merge_with(labels[0])
    except ValueError:
        raise ValueError(
            f"Dimensions must be equal, but are {features[0].value} and {labels[0].value}"
        ) from None
    return [TensorShape([batch]), TensorShape([batch, features[1]])]


def _sparse_softmax_xent_grad(op, grad_loss, grad_grad):
    from tideflow.ops import array_ops

    # as TF 1.15: a second derivative through the fused backprop output is refused
    backprop = array_ops.prevent_gradient(
        op.outputs[1],
        message="Currently there is no way to take the second derivative of "
        "sparse_softmax_cross_entropy_with_logits due to the fused implementation's "
        "interaction with tf.gradients()")
    d_logits = array_ops.expand_dims(grad_loss, -1) * backprop
    if not _is_zero(grad_grad):
        d_logits = d_logits + _xent_backprop_grad(op.inputs[0], grad_grad)
    return [d_logits, None]


# the kernels without the loss, for a plan in which no op reads the loss's values
UNREAD_LOSS_KERNELS = {"SoftmaxCrossEntropyWithLogits": _softmax_xent_unread_loss,
                       "SparseSoftmaxCrossEntropyWithLogits": _sparse_softmax_xent_unread_loss}
op_registry.declare("SoftmaxCrossEntropyWithLogits", inputs=["features: T", "labels: T"],
                    outputs=["loss: T", "backprop: T"], attrs=[_FLOAT],
                    shape=_softmax_xent_shape, kernel=_softmax_xent, grad=_softmax_xent_grad)
op_registry.declare("SparseSoftmaxCrossEntropyWithLogits",
                    inputs=["features: T", "labels: Tlabels"],
                    outputs=["loss: T", "backprop: T"],
                    attrs=[_FLOAT, "Tlabels: {int32, int64} = DT_INT64"],
                    shape=_sparse_softmax_xent_shape, kernel=_sparse_softmax_xent,
                    grad=_sparse_softmax_xent_grad)


@_widened
def _l2_loss(t):
    if t.dtype == np.float32 and t.size:
        # TF 1.15's kernel: the sum of t * t * 0.5 (each product rounded) in Eigen's order
        half_squares = np.multiply(t, t, dtype=np.float32).reshape(1, -1)
        half_squares *= np.float32(0.5)
        return np.asarray(eigen_softmax.row_sum(half_squares)[0])
    return np.asarray(np.sum(t * t) / 2, t.dtype)


def _l2_loss_grad(op, grad):
    return op.inputs[0] * grad


op_registry.declare("L2Loss", inputs=["t: T"], outputs=["output: T"], attrs=[_FLOAT],
                    shape=lambda op: [TensorShape([])], kernel=_l2_loss, grad=_l2_loss_grad)


# ------------------------------------------------------------------------------------------
# top k
# ------------------------------------------------------------------------------------------


def _top_k(x, k, *, sorted=True):
    k = int(k)
    if k < 0:
        raise errors.InvalidArgumentError(None, None, f"Need k >= 0, got {k}")
    if x.ndim < 1:
        raise errors.InvalidArgumentError(
            None, None, f"input must be >= 1-D, got shape {_dims(x.shape)}")
    n = x.shape[-1]
    if n < k:
        raise errors.InvalidArgumentError(
            None, None, f"input must have at least k columns. Had {n}, needed {k}")
    # a stable ascending sort of an order-reversing key: larger values first, ties by index
    key = ~x if x.dtype.kind in "iu" else -x
    idx = None
    if 0 < k and k * 8 <= n and n >= 256 and x.dtype.kind in "fiu":
        idx = _top_k_partitioned(key, k)
    if idx is None:
        idx = np.argsort(key, axis=-1, kind="stable")[..., :k]
    # TF's own orders where a stable sort does not give them: the heap order of an unsorted
    # top k, and rows holding NaNs (k == 1 is a max, which passes NaNs over as the sort does)
    rows = None
    if not sorted and k < n:
        rows = np.arange(math.prod(x.shape[:-1]))
    elif k > 1 and x.dtype.kind not in "iub" and x.size:
        rows = np.flatnonzero(np.isnan(x.reshape(-1, n)).any(axis=-1))
    if rows is not None and rows.size:
        flat, idx = x.reshape(-1, n), idx.reshape(-1, k).copy()
        for r in rows.tolist():
            idx[r] = stl_order.top_k_row(flat[r], k, sorted)
        idx = idx.reshape(x.shape[:-1] + (k,))
    return np.take_along_axis(x, idx, axis=-1), idx.astype(np.int32)


def _top_k_partitioned(key, k):
    """The first k of a stable ascending argsort of ``key`` along its last axis, found by a
    partition (linear, where the sort is not: a sampler's top 40 of a 50k vocabulary); None
    when a NaN is among them or the k-th key ties with keys left out (the sort decides)."""
    part = np.argpartition(key, k - 1, axis=-1)[..., :k]
    picked = np.take_along_axis(key, part, axis=-1)
    kth = picked.max(axis=-1, keepdims=True)
    if key.dtype.kind == "f" and np.isnan(kth).any():
        return None
    if ((key == kth).sum(axis=-1) != (picked == kth).sum(axis=-1)).any():
        return None
    part.sort(axis=-1)  # index order, so the stable sort below breaks ties by index
    order = np.argsort(np.take_along_axis(key, part, axis=-1), axis=-1, kind="stable")
    return np.take_along_axis(part, order, axis=-1)


def _top_k_v1(x, *, k, sorted=True):
    return _top_k(x, k, sorted=sorted)


def _top_k_shape(op):
    # TF 1.15's words: WithRankAtLeast's, then MakeDimForScalarInput's
    x = _in(op, 0)
    if x.ndims is not None and x.ndims < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {x.ndims}")
    if len(op._inputs) > 1:
        if _in(op, 1).ndims not in (None, 0):
            raise ValueError(f"Input must be scalar but has rank {_in(op, 1).ndims}")
        kv = ops.constant_value(op._inputs[1])
        k = None if kv is None else int(kv)
    else:
        k = op._attrs["k"]
    if k is not None and k < 0:  # (TopK's attr has a minimum: only TopKV2 gets here)
        raise ValueError("Dimension size, given by scalar input 1, must be non-negative but is "
                         f"{k}")
    if x.ndims is None:
        return [unknown_shape(), unknown_shape()]
    last = x[-1].value
    if last is not None and k is not None and last < k:
        raise ValueError(f"input must have last dimension >= k = {k} but is {last}")
    s = TensorShape(x.dims[:-1] + [Dimension(k)])
    return [s, s]


def _top_k_grad(op, grad_values, grad_indices):
    """Scatters the values' gradient back to the positions top_k picked them from, with TF
    1.15's ops (int64 sizes, a ScatterNd into the flattened input; a zeros for k)."""
    from tideflow.ops import (
        array_ops,
        cast_ops,
        concat_ops,
        constant_op,
        gather_ops,
        range_ops,
        reduction_ops,
    )

    in_shape = array_ops.shape(op.inputs[0])
    ind_shape = array_ops.shape(op.outputs[1])
    ind_lastdim = gather_ops.gather(cast_ops.cast(ind_shape, dtypes.int64),
                                    array_ops.size(ind_shape) - 1)
    ind_2d = array_ops.reshape(op.outputs[1], concat_ops.stack([-1, ind_lastdim]))
    in_lastdim = gather_ops.gather(cast_ops.cast(in_shape, dtypes.int64),
                                   array_ops.size(in_shape) - 1)
    outerdim = array_ops.shape(ind_2d)[0]
    offsets = range_ops.range(0, cast_ops.cast(outerdim, dtypes.int64) * in_lastdim,
                              in_lastdim)
    ind = array_ops.reshape(
        ind_2d + cast_ops.cast(array_ops.expand_dims(offsets, -1), dtypes.int32), [-1])
    dx = array_ops.reshape(
        gather_ops.scatter_nd(array_ops.expand_dims(ind, -1),
                              array_ops.reshape(grad_values, [-1]),
                              [reduction_ops.reduce_prod(in_shape)]), in_shape)
    if len(op.inputs) == 1:  # TopK (k an attr)
        return [dx]
    return [dx, constant_op.constant(0, dtype=dtypes.int32, shape=[], name="zeros")]


op_registry.declare("TopKV2", inputs=["input: T", "k: int32"],
                    outputs=["values: T", "indices: int32"],
                    attrs=["sorted: bool = true", "T: realnumbertype"],
                    shape=_top_k_shape, kernel=_top_k, grad=_top_k_grad)
op_registry.declare("TopK", inputs=["input: T"], outputs=["values: T", "indices: int32"],
                    attrs=["k: int >= 0", "sorted: bool = true", "T: realnumbertype"],
                    shape=_top_k_shape, kernel=_top_k_v1, grad=_top_k_grad)


def _in_top_k(predictions, targets, k):
    k = int(k)
    if predictions.ndim != 2:
        raise errors.InvalidArgumentError(
            None, None, f"predictions must be 2-dimensional: {_dims(predictions.shape)}")
    if targets.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"targets must be 1-dimensional: {_dims(targets.shape)}")
    if predictions.shape[0] != targets.shape[0]:
        raise errors.InvalidArgumentError(
            None, None,
            "First dimension of predictions "
            f"{predictions.shape[0]} must match length of targets {targets.shape[0]}",
        )
    batch, classes = predictions.shape
    valid = (targets >= 0) & (targets < classes)
    safe = np.where(valid, targets, 0)
    target_pred = predictions[np.arange(batch), safe]
    # TF's kernel cannot say for a row holding any non-finite prediction: false
    valid &= np.isfinite(predictions).all(axis=1)
    more = np.sum(predictions > target_pred[:, None], axis=1)
    return valid & (more < k)


def _in_top_k_v1(predictions, targets, *, k):
    return _in_top_k(predictions, targets, k)


def _in_top_k_shape(op):
    p = _in(op, 0)
    if p.ndims is not None and p.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {p.ndims}")
    p = p.with_rank(2)
    t = _in(op, 1).with_rank(1)
    try:
        batch = p[0].merge_with(t[0])
    except ValueError:
        raise ValueError(f"Dimensions must be equal, but are {p[0].value} and {t[0].value}") from None
    if len(op._inputs) > 2:
        _in(op, 2).with_rank(0)
    return [TensorShape([batch])]


op_registry.declare("InTopK", inputs=["predictions: float", "targets: T"],
                    outputs=["precision: bool"], attrs=["k: int", "T: {int32, int64} = DT_INT32"],
                    shape=_in_top_k_shape, kernel=_in_top_k_v1, differentiable=False)
op_registry.declare("InTopKV2", inputs=["predictions: float", "targets: T", "k: T"],
                    outputs=["precision: bool"], attrs=["T: {int32, int64} = DT_INT32"],
                    shape=_in_top_k_shape, kernel=_in_top_k, differentiable=False)
