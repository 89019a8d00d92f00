"""Grayscale morphology: the Dilation2D op with its input and filter backprop ops, and
``tf.nn.dilation2d``/``erosion2d``."""

import numpy as np

from tideflow.framework import errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import (
    conv_ops,
    unary_ops,
)
from tideflow.ops.array_ops import _invalid, _np, _shape_str

# ------------------------------------------------------------------------------------------
# Dilation2D (grayscale morphological dilation) and its backprop ops
# ------------------------------------------------------------------------------------------


def _dil_geometry(in_shape, f_shape, strides, rates, padding, op_type):
    _, h, w, _ = in_shape
    fh, fw, _ = f_shape
    sh, sw = strides[1], strides[2]
    rh, rw = rates[1], rates[2]
    eh, ew = (fh - 1) * rh + 1, (fw - 1) * rw + 1
    if padding == "VALID":
        oh, ow = -(-(h - eh + 1) // sh), -(-(w - ew + 1) // sw)
        pt = pl = 0
    else:
        oh, ow = -(-h // sh), -(-w // sw)
        pt = max((oh - 1) * sh + eh - h, 0) // 2
        pl = max((ow - 1) * sw + ew - w, 0) // 2
    if oh < 0 or ow < 0:
        raise _invalid(f"{op_type}: the effective filter ({eh}x{ew}) is larger than the input "
                       f"({h}x{w})")
    return max(oh, 0), max(ow, 0), pt, pl


def _dil_argmax(x, f, strides, rates, padding, op_type):
    """The dilation's output and, per output, the (row, col) of the filter tap that won."""
    if x.ndim != 4 or f.ndim != 3 or x.shape[3] != f.shape[2]:
        raise _invalid(f"{op_type}: input must be 4-D [batch, h, w, depth] and filter 3-D "
                       f"[h, w, depth] with the same depth, got {_shape_str(x.shape)} and "
                       f"{_shape_str(f.shape)}")
    b, h, w, d = x.shape
    fh, fw, _ = f.shape
    oh, ow, pt, pl = _dil_geometry(x.shape, f.shape, strides, rates, padding, op_type)
    sh, sw, rh, rw = strides[1], strides[2], rates[1], rates[2]
    best = np.full((b, oh, ow, d), -np.inf, dtype=np.float64)
    arg = np.zeros((b, oh, ow, d, 2), np.int64)
    oy = np.arange(oh) * sh - pt
    ox = np.arange(ow) * sw - pl
    for i in range(fh):
        ys = oy + i * rh
        vy = (ys >= 0) & (ys < h)
        for j in range(fw):
            xs = ox + j * rw
            vx = (xs >= 0) & (xs < w)
            vals = x[:, np.clip(ys, 0, h - 1)][:, :, np.clip(xs, 0, w - 1)] + f[i, j]
            vals = np.where((vy[:, None] & vx[None, :])[None, :, :, None], vals, -np.inf)
            better = vals > best
            best = np.where(better, vals, best)
            arg[..., 0] = np.where(better, i, arg[..., 0])
            arg[..., 1] = np.where(better, j, arg[..., 1])
    return best, arg, (oy, ox)


def _dil_attrs(strides, rates, padding):
    return list(strides), list(rates), padding.decode() if isinstance(padding, bytes) else padding


def _dilation_kernel(input, filter, *, strides, rates, padding):
    x, f = _np(input), _np(filter)
    best, _, _ = _dil_argmax(x, f, *_dil_attrs(strides, rates, padding), "Dilation2D")
    return best.astype(x.dtype)


def _dilation_backprop(x, f, dy, strides, rates, padding, op_type, wrt_input):
    strides, rates, padding = _dil_attrs(strides, rates, padding)
    best, arg, (oy, ox) = _dil_argmax(x, f, strides, rates, padding, op_type)
    if dy.shape != best.shape:
        raise _invalid(f"{op_type}: out_backprop has shape {_shape_str(dy.shape)}, expected "
                       f"{_shape_str(best.shape)}")
    b, oh, ow, d = best.shape
    bi, yi, xi, ci = np.meshgrid(np.arange(b), np.arange(oh), np.arange(ow), np.arange(d),
                                 indexing="ij")
    ti, tj = arg[..., 0], arg[..., 1]
    ok = np.isfinite(best)
    if wrt_input:
        out = np.zeros(x.shape, np.float64)
        ys = oy[yi] + ti * rates[1]
        xs = ox[xi] + tj * rates[2]
        np.add.at(out, (bi[ok], ys[ok], xs[ok], ci[ok]), dy[ok])
        return out.astype(x.dtype)
    out = np.zeros(f.shape, np.float64)
    np.add.at(out, (ti[ok], tj[ok], ci[ok]), dy[ok])
    return out.astype(f.dtype)


def _dilation_bp_input_kernel(input, filter, out_backprop, *, strides, rates, padding):
    return _dilation_backprop(_np(input), _np(filter), _np(out_backprop), strides, rates,
                              padding, "Dilation2DBackpropInput", True)


def _dilation_bp_filter_kernel(input, filter, out_backprop, *, strides, rates, padding):
    return _dilation_backprop(_np(input), _np(filter), _np(out_backprop), strides, rates,
                              padding, "Dilation2DBackpropFilter", False)


def _dilation_shape(op):
    x = op._inputs[0]._shape
    f = op._inputs[1]._shape
    if x.ndims is not None and x.ndims != 4:
        raise ValueError(f"Dilation2D: input must be 4-D, got shape {_shape_str(x)}")
    if f.ndims is not None and f.ndims != 3:
        raise ValueError(f"Dilation2D: filter must be 3-D, got shape {_shape_str(f)}")
    xd = x.as_list() if x.ndims is not None else [None] * 4
    fd = f.as_list() if f.ndims is not None else [None] * 3
    if xd[3] is not None and fd[2] is not None and xd[3] != fd[2]:
        raise ValueError(f"Dilation2D: input depth {xd[3]} != filter depth {fd[2]}")
    depth = xd[3] if xd[3] is not None else fd[2]
    strides, rates, padding = _dil_attrs(op._attrs["strides"], op._attrs["rates"],
                                         op._attrs["padding"])
    out = [xd[0], None, None, depth]
    for k, (n, fs) in enumerate(((xd[1], fd[0]), (xd[2], fd[1]))):
        if n is None or (fs is None and padding == "VALID"):
            continue
        s = strides[k + 1]
        if padding == "SAME":
            out[k + 1] = -(-n // s)
        else:
            e = (fs - 1) * rates[k + 1] + 1
            out[k + 1] = max(-(-(n - e + 1) // s), 0)
    return [TensorShape(out)]


def _dilation_grad(op, grad):
    from tideflow.ops.gradients import dense

    attrs = {k: op._attrs[k] for k in ("strides", "rates", "padding")}
    x, f = op._inputs
    g = dense(grad)
    return [ops.apply_op("Dilation2DBackpropInput", [x, f, g], attrs)._outputs[0],
            ops.apply_op("Dilation2DBackpropFilter", [x, f, g], attrs)._outputs[0]]


_DIL_ATTRS = ["T: realnumbertype", "strides: list(int) >= 4", "rates: list(int) >= 4",
              "padding: {'SAME', 'VALID'}"]


def _check_dil_attrs(attrs):
    """TF's Dilation2D kernel constructors: windows only over rows and columns (checked when
    a plan binds the kernel, so a bad stride fails on the first run, as in TF)."""
    for name, what in (("strides", "Stride"), ("rates", "Rate")):
        v = attrs[name]
        if v[0] != 1 or v[3] != 1:
            raise errors.UnimplementedError(
                None, None, f"{what} is only supported across spatial dimensions.")


op_registry.declare(
    "Dilation2D", inputs=["input: T", "filter: T"], outputs=["output: T"], attrs=_DIL_ATTRS,
    shape=_dilation_shape, kernel=_dilation_kernel, grad=_dilation_grad,
    check_attrs=_check_dil_attrs)
op_registry.declare(
    # the backprops: no gradient defined, as TF 1.15
    "Dilation2DBackpropInput", inputs=["input: T", "filter: T", "out_backprop: T"],
    outputs=["in_backprop: T"], attrs=_DIL_ATTRS, shape=lambda op: [op._inputs[0]._shape],
    kernel=_dilation_bp_input_kernel, check_attrs=_check_dil_attrs)
op_registry.declare(
    "Dilation2DBackpropFilter", inputs=["input: T", "filter: T", "out_backprop: T"],
    outputs=["filter_backprop: T"], attrs=_DIL_ATTRS, shape=lambda op: [op._inputs[1]._shape],
    kernel=_dilation_bp_filter_kernel, check_attrs=_check_dil_attrs)


def _check4(v, what):
    # batch or depth entries other than 1 fail when the op first runs (_check_dil_attrs)
    v = list(v)
    if len(v) != 4:
        raise ValueError(f"dilation2d: {what} must be [1, r, c, 1] (length 4), got {v}")
    return v


def dilation2d(input, filter=None, strides=None, rates=None, padding=None, name=None,
               filters=None, dilations=None):
    """Grayscale morphological dilation: per output, the max over the filter window of
    ``input + filter`` (``rates`` spread the filter taps)."""
    filter = conv_ops._alias(filter, filters, "filter", "filters")
    rates = conv_ops._alias(rates, dilations, "rates", "dilations")
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding}")
    attrs = {"strides": _check4(strides, "strides"), "rates": _check4(rates, "rates"),
             "padding": padding}
    return ops.apply_op("Dilation2D", [input, filter], attrs, name=name)._outputs[0]


def erosion2d(value, kernel, strides, rates, padding, name=None):
    """Grayscale morphological erosion: ``-dilation2d(-value, reversed kernel)``."""
    from tideflow.ops import pad_ops

    with ops.name_scope(name, "erosion2d", [value, kernel]) as scope:
        value = ops.convert_to_tensor(value, name="value")
        kernel = ops.convert_to_tensor(kernel, name="kernel")
        return unary_ops.negative(
            dilation2d(unary_ops.negative(value), pad_ops.reverse_v2(kernel, [0, 1]), strides,
                       rates, padding), name=scope)


