"""Normalization ops: local response normalization (LRN) and fused batch normalization, with
their gradient ops."""

import numpy as np

from tideflow.framework import errors, op_registry, ops
from tideflow.framework.tensor_shape import Dimension, TensorShape, unknown_shape
from tideflow.kernels import threads as threads_mod
from tideflow.ops import eigen_float32
from tideflow.ops.math_ops import _pow_in_double
from tideflow.ops.unary_ops import _rsqrt  # (Eigen scalar path's 1 / sqrt, shared with Rsqrt)

_F32 = np.float32


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


# ------------------------------------------------------------------------------------------
# local response normalization
# ------------------------------------------------------------------------------------------


def _window_sum(a, r):
    """Sums ``a`` over windows [d - r, d + r] of its last axis (clipped at the edges)."""
    out = a.copy()
    depth = a.shape[-1]
    for off in range(1, min(r, depth - 1) + 1):
        out[..., off:] += a[..., :-off]
        out[..., :-off] += a[..., off:]
    return out


def _check_lrn_input(x, what="input"):
    if x.ndim != 4:
        raise errors.InvalidArgumentError(None, None, f"{what} must be 4-dimensional")


def _ascending_window_sum(a, r):
    """Sums ``a`` over windows [d - r, d + r] of its last axis (clipped at the edges), each
    window's elements added in ascending order from zero: TF's products of the squares with a
    band matrix of ones (Eigen's contraction) and its gradient kernel's loop."""
    out = np.zeros_like(a)
    depth = a.shape[-1]
    r = min(r, depth - 1)
    for off in range(-r, r + 1):
        if off < 0:
            out[..., -off:] += a[..., :depth + off]
        elif off > 0:
            out[..., :depth - off] += a[..., off:]
        else:
            out += a
    return out


def _lrn(x, *, depth_radius, bias, alpha, beta):
    _check_lrn_input(x)
    xf = x.astype(_F32)
    if x.dtype != _F32:
        norm = bias + alpha * _window_sum(xf * xf, depth_radius)
        return (xf * norm ** -beta).astype(x.dtype)
    # TF 1.15's kernel: x * (s * alpha + bias)^-beta, the power as 1 / v for beta 1, as rsqrt
    # for 0.5 (whole packets take the CPU's approximation there: see _rsqrt), else as Eigen's
    # exp(log(v) * -beta) (packets, the scalar tail by the C library)
    norm = _ascending_window_sum(xf * xf, depth_radius)
    norm *= _F32(alpha)
    norm += _F32(bias)
    if beta == 1:
        return xf * (_F32(1) / norm)
    if beta == 0.5:
        return xf * _rsqrt(norm)
    with np.errstate(all="ignore"):
        return xf * eigen_float32.exp(eigen_float32.log(norm) * _F32(-beta))


def _lrn_grad(input_grads, input_image, output_image, *, depth_radius, bias, alpha, beta):
    _check_lrn_input(input_grads, "input_grads")
    _check_lrn_input(input_image, "input_image")
    if input_grads.shape != input_image.shape:
        raise errors.InvalidArgumentError(
            None, None, "input_grads, input_image, and out_image should have the same shape")
    if input_grads.dtype == _F32 and output_image.shape == input_image.shape:
        return _lrn_grad_f32(input_grads, input_image, output_image, depth_radius, bias,
                             alpha, beta)
    g = input_grads.astype(_F32)
    x = input_image.astype(_F32)
    norm = bias + alpha * _window_sum(x * x, depth_radius)
    scaled = norm ** -beta
    # d out_i / d x_j = [i == j] N_i^-b - 2 a b x_i x_j N_i^(-b-1) for j in window(i)
    inner = _window_sum(g * x * scaled / norm, depth_radius)
    return (g * scaled - 2.0 * alpha * beta * x * inner).astype(input_grads.dtype)


def _lrn_grad_f32(grads, image, out_image, depth_radius, bias, alpha, beta):
    """TF 1.15's CPU kernel, in its order: for each depth j of a pixel (none where dy_j is 0),
    its window's norm (squares added in ascending order, alpha times that, plus bias), then
    for each k of the window x_k * ((-2 * alpha * beta) * y_j) / norm_j, plus norm_j^-beta
    (powf) where k is j, times dy_j, added to k's gradient in ascending j (y: the forward
    output given). Each offset j - k runs over all depths at once."""
    depth = image.shape[-1]
    x = image.reshape(-1, depth)
    g = grads.reshape(-1, depth)
    out = np.zeros_like(x)
    with np.errstate(all="ignore"):
        norm = _ascending_window_sum(x * x, depth_radius)
        norm = _F32(alpha) * norm
        norm += _F32(bias)
        power = _pow_in_double(norm, _F32(-beta))  # (glibc's powf, bit for bit)
        scaled = (_F32(_F32(-2) * _F32(alpha)) * _F32(beta)) * out_image.reshape(-1, depth)
        # where dy_j is 0 TF adds nothing; a finite term times 0 adds a zero, which changes no
        # sum (from +0), so only non-finite terms need the mask
        skip = g == 0
        if not skip.any() or (np.isfinite(x).all() and np.isfinite(scaled).all()
                               and np.isfinite(norm).all()):
            skip = None
        r = min(depth_radius, depth - 1)
        for off in range(-r, r + 1):  # j = k + off, ascending
            k0, k1 = max(0, -off), min(depth, depth - off)
            j0, j1 = k0 + off, k1 + off
            dyi = x[:, k0:k1] * scaled[:, j0:j1]
            dyi /= norm[:, j0:j1]
            if off == 0:
                dyi += power
            dyi *= g[:, j0:j1]
            if skip is not None:
                dyi[skip[:, j0:j1]] = 0
            out[:, k0:k1] += dyi
    return out.reshape(image.shape)


def _with_rank(shape, rank):
    """``shape`` at ``rank``, else the error of TF's C++ shape functions."""
    if shape.ndims is not None and shape.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims}")
    return shape.with_rank(rank)


def _rank4(shape):
    return _with_rank(shape, 4)


def _lrn_shape(op):
    return [_rank4(op._inputs[0]._shape)]


def _lrn_grad_shape(op):
    s = unknown_shape(ndims=4)
    for t in op._inputs:
        s = s.merge_with(_rank4(t._shape))
    return [s]


def _lrn_grad_fn(op, grad):
    attrs = {k: op.get_attr(k) for k in ("depth_radius", "bias", "alpha", "beta")}
    # a one-element list, as TF's LRN gradient returns
    return [ops.apply_op("LRNGrad", [grad, op.inputs[0], op.outputs[0]], attrs)._outputs[0]]


def _check_depth_radius(attrs):
    # TF's LRN kernels check the radius fits an int when they are constructed (a negative one
    # too, through the unsigned bounds check), so the first run fails before any input is read
    r = attrs["depth_radius"]
    if not 0 <= r < 2**31 - 1:
        raise errors.InvalidArgumentError(None, None, f"depth_radius = {r} larger than int max")


_LRN_ATTRS = ["depth_radius: int = 5", "bias: float = 1.0", "alpha: float = 1.0",
              "beta: float = 0.5", "T: {half, bfloat16, float} = DT_FLOAT"]
op_registry.declare("LRN", inputs=["input: T"], outputs=["output: T"], attrs=_LRN_ATTRS,
                    shape=_lrn_shape, kernel=_lrn, grad=_lrn_grad_fn,
                    check_attrs=_check_depth_radius)
op_registry.declare("LRNGrad", inputs=["input_grads: T", "input_image: T", "output_image: T"],
                    outputs=["output: T"], attrs=_LRN_ATTRS, shape=_lrn_grad_shape,
                    kernel=_lrn_grad, check_attrs=_check_depth_radius)


# ------------------------------------------------------------------------------------------
# fused batch normalization
# ------------------------------------------------------------------------------------------


def _layout(ndim, data_format):
    """(channel axis, reduction axes) of an NHWC/NCHW (or 5-D NDHWC/NCDHW) tensor."""
    c = 1 if data_format.startswith("NC") else ndim - 1
    return c, tuple(i for i in range(ndim) if i != c)


def _expand(v, ndim, c):
    shape = [1] * ndim
    shape[c] = -1
    return v.reshape(shape)


def _check_bn_input(x, data_format):
    want = 5 if data_format in ("NDHWC", "NCDHW") else 4
    if x.ndim != want:
        raise errors.InvalidArgumentError(
            None, None, f"input must be {want}-dimensional{_dims(x.shape)}")


def _check_vec(v, what, depth):
    if v.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"{what} must be 1-dimensional{_dims(v.shape)}")
    if depth is not None and v.shape[0] != depth:
        raise errors.InvalidArgumentError(
            None, None, f"{what} must have the same number of elements as the channels of x, "
            f"got {v.shape[0]} and {depth}")


def _batch_norm(x, scale, offset, mean, variance, *, epsilon, data_format, is_training):
    return _normalize(x, scale, offset, mean, variance, epsilon, data_format, is_training, 1.0)


def _rows_by_channel(a, c):
    """``a`` as a [rest, depth] float32 matrix whose rows run over the other axes in order (for
    NCHW a transposed copy, the layout TF's CPU kernel computes in)."""
    if c != a.ndim - 1:
        a = np.moveaxis(a, c, -1)
    return np.ascontiguousarray(a, dtype=_F32).reshape(-1, a.shape[-1])


def _column_sums(a):
    """float32 sums over the rows of [rest, depth] ``a``, one row after another from the
    first (Eigen's reduction of the outer dimension in TF's kernels; NumPy's reduce along
    axis 0 adds row by row too, except for one column, which it sums pairwise, and it is
    slow over a few columns: a running sum is then the faster way in order)."""
    if a.shape[0] == 0:
        return np.zeros(a.shape[1], _F32)
    if a.shape[1] < 8:
        return np.cumsum(a, axis=0, dtype=_F32)[-1]
    return np.add.reduce(a, axis=0, dtype=_F32)


def _divup(a, b):
    return -(-a // b)


def _parallel_for_block(n, cost, threads):
    """Eigen's ThreadPoolDevice::parallelFor block size for ``n`` items of ``cost`` cycles."""
    block = min(n, max(_divup(n, 4 * threads), int(40000.0 / cost)))
    max_block = min(n, 2 * block)
    count = _divup(n, block)
    best = count / (_divup(count, threads) * threads)
    prev = count
    while best < 1.0 and prev > 1:
        coarser = _divup(n, prev - 1)
        if coarser > max_block:
            break
        prev = _divup(n, coarser)
        efficiency = prev / (_divup(prev, threads) * threads)
        if efficiency + 0.01 >= best:
            block, best = coarser, max(best, efficiency)
    return block


def _outer_sums(a):
    """float32 column sums of [rest, depth] ``a`` as TF 1.15's batch norm gradients take them
    (its ReduceOuterDimensions functor): the rows split into at most as many blocks as TF's
    intra-op pool has threads, each block summed row after row from zero, then the block sums
    added in order. How many blocks, and whether Eigen's parallelFor (its cost model: 11/64
    cycles a byte loaded, one an addition, 100000 to start a thread) runs them apart or as one,
    depends on the pool's size, so the bits are those TF gives with as many threads."""
    outer, inner = a.shape
    threads = threads_mod.intra_op_pool_size()
    if outer <= 1 or threads <= 1 or inner > 32 * threads:
        return _column_sums(a)  # one pass down the rows (or TF's split by columns)
    n = min(outer, _divup(outer * inner, _divup(2000, inner)), threads)
    rows_per_block = _divup(outer, n)
    work = rows_per_block * inner
    cost = work * 4 * (11.0 / 64) + work
    if n <= 1 or min(threads, max(1, int((n * cost - 100000) / 100000 + 0.9))) == 1:
        return _column_sums(a)  # parallelFor runs all blocks in one call: one pass
    step = _parallel_for_block(n, cost, threads)
    total = None
    for start in range(0, n, step):
        part = _column_sums(a[start * rows_per_block:min(outer, (start + step) * rows_per_block)])
        total = part if total is None else total + part
    # blocks merged into one task left zero rows behind (adding zeros changes nothing)
    return total




def _normalize(x, scale, offset, mean, variance, epsilon, data_format, is_training,
               exponential_avg_factor):
    _check_bn_input(x, data_format)
    c, _ = _layout(x.ndim, data_format)
    depth = x.shape[c]
    for v, what in ((scale, "scale"), (offset, "offset")):
        _check_vec(v, what, depth)
    if x.size == 0:  # as TF's kernels: no batch statistics (NaN), zero reserve spaces
        u = scale.dtype
        nan, zero = np.full(depth, np.nan, u), np.zeros(depth, u)
        return np.empty(x.shape, x.dtype), nan, nan.copy(), zero, zero.copy()
    # TF 1.15's CPU kernel step by step in float32 (the same bits): the mean is the column
    # sum times 1/n, the variance the column sum of the centered squares times 1/n (times
    # n/(n-1) for the batch variance), and y = (x - mean) * (rsqrt(var + eps) * scale) + offset
    a = _rows_by_channel(x, c)
    n = a.shape[0]
    inv_n = _F32(1.0) / _F32(n)
    eps = _F32(epsilon)
    if is_training:
        m = _column_sums(a) * inv_n
        centered = a - m
        y = np.multiply(centered, centered)  # the squares, in the output's buffer
        var = _column_sums(y) * inv_n
        unbiased = var * (_F32(n) / _F32(max(n - 1, 1)))
        if exponential_avg_factor != 1.0 and mean.size:
            f = _F32(exponential_avg_factor)
            batch_mean = (_F32(1) - f) * mean.astype(_F32) + f * m
            batch_var = (_F32(1) - f) * variance.astype(_F32) + f * unbiased
        else:
            batch_mean, batch_var = m, unbiased
        saved_mean, saved_var = m, var
    else:
        _check_vec(mean, "mean", depth)
        _check_vec(variance, "variance", depth)
        m = mean.astype(_F32)
        var = variance.astype(_F32)
        centered = a - m
        y = np.empty_like(centered)
        batch_mean, batch_var, saved_mean, saved_var = m, var, m, var
    np.multiply(centered, _rsqrt(var + eps) * scale.astype(_F32), out=y)
    y += offset.astype(_F32)
    u = scale.dtype
    return (_from_rows(y, x, c), batch_mean.astype(u), batch_var.astype(u),
            saved_mean.astype(u), saved_var.astype(u))


def _from_rows(r, x, c):
    """[rest, depth] rows back in ``x``'s layout and dtype."""
    if c != x.ndim - 1:
        shape = list(np.moveaxis(np.empty(x.shape, np.bool_), c, -1).shape)
        r = np.moveaxis(r.reshape(shape), -1, c)
    return np.ascontiguousarray(r.reshape(x.shape).astype(x.dtype, copy=False))


def _batch_norm_v3(x, scale, offset, mean, variance, *, epsilon, data_format, is_training,
                   exponential_avg_factor):
    out = _normalize(x, scale, offset, mean, variance, epsilon, data_format, is_training,
                     exponential_avg_factor)
    return out + (np.zeros([], scale.dtype),)  # TF 1.15's CPU kernel: a scalar 0


def _batch_norm_grad(y_backprop, x, scale, reserve_space_1, reserve_space_2, *, epsilon,
                     data_format, is_training):
    _check_bn_input(x, data_format)
    if y_backprop.shape != x.shape:
        raise errors.InvalidArgumentError(
            None, None, f"x and y_backprop must have same shape, but x has shape "
            f"{_dims(x.shape)} and y_backprop has shape {_dims(y_backprop.shape)}")
    c, _ = _layout(x.ndim, data_format)
    depth = x.shape[c]
    for v, what in ((scale, "scale"), (reserve_space_1, "reserve_space_1"),
                    (reserve_space_2, "reserve_space_2")):
        _check_vec(v, what, depth)
    # TF 1.15's CPU kernels step by step in float32
    dy = _rows_by_channel(y_backprop, c)
    centered = _rows_by_channel(x, c) - reserve_space_1.astype(_F32)
    k0 = _rsqrt(reserve_space_2.astype(_F32) + _F32(epsilon))
    scale = scale.astype(_F32)
    d_offset = _outer_sums(dy)
    if is_training:
        # dx = scale * k0 * (dy - mean(dy) - (x - mean) * k0^2 * mean(dy * (x - mean)))
        n = dy.shape[0]
        prod = np.multiply(dy, centered * k0)
        d_scale = _outer_sums(prod)
        np.multiply(dy, centered, out=prod)
        k2 = (k0 * k0) * (_outer_sums(prod) / _F32(n))
        dx = dy - d_offset * (_F32(1.0) / _F32(n))
        np.multiply(centered, k2, out=centered)
        dx -= centered
        dx *= scale * k0
    else:
        # the frozen statistics' gradient: dx = dy * (rsqrt(var + eps) * scale)
        d_scale = _outer_sums(np.multiply(dy, centered)) * k0
        dx = np.multiply(dy, k0 * scale)
    # the unused reserve-space outputs: TF 1.15's kernel gives scalars whatever its shape
    # function says ([0] in training, [C] outside it); these follow the static shapes
    empty = np.zeros([0] if is_training else [depth], _F32)
    return (_from_rows(dx, x, c), d_scale, d_offset, empty, empty)


def _batch_norm_grad_v3(y_backprop, x, scale, reserve_space_1, reserve_space_2,
                        reserve_space_3, *, epsilon, data_format, is_training):
    del reserve_space_3
    return _batch_norm_grad(y_backprop, x, scale, reserve_space_1, reserve_space_2,
                            epsilon=epsilon, data_format=data_format, is_training=is_training)


def _channel_dim(x, data_format):
    return x[1] if data_format.startswith("NC") else x[-1]


def _merge_channel(channel, vectors):
    for v in vectors:
        v = _with_rank(v, 1)
        try:
            channel = channel.merge_with(v[0])
        except ValueError:
            raise ValueError(
                f"Dimensions must be equal, but are {channel.value} and {v[0].value}"
            ) from None
    return channel


def _with_channel(x, data_format, channel):
    dims = list(x.dims)
    dims[1 if data_format.startswith("NC") else -1] = channel
    return TensorShape(dims)


def _bn_rank(data_format):
    return 5 if data_format in ("NDHWC", "NCDHW") else 4


def _batch_norm_shape(op):
    fmt = op._attrs["data_format"]
    x = _with_rank(op._inputs[0]._shape, _bn_rank(fmt))
    n_vec = 3 if op._attrs["is_training"] else 5
    channel = _merge_channel(_channel_dim(x, fmt), [t._shape for t in op._inputs[1:n_vec]])
    for t in op._inputs[n_vec:]:
        _with_rank(t._shape, 1)
    vec = TensorShape([channel])
    out = [_with_channel(x, fmt, channel), vec, vec, vec, vec]
    if len(op._outputs) > 5:
        out.append(unknown_shape())
    return out


def _batch_norm_grad_shape(op):
    fmt = op._attrs["data_format"]
    rank = _bn_rank(fmt)
    dy = _with_rank(op._inputs[0]._shape, rank)
    x = _with_rank(op._inputs[1]._shape, rank)
    channel = _merge_channel(_channel_dim(dy, fmt), [TensorShape([_channel_dim(x, fmt)])])
    channel = _merge_channel(channel, [t._shape for t in op._inputs[2:5]])
    vec = TensorShape([channel])
    # TF 1.15's shape function: the reserve-space placeholders are [0] in training, else
    # [C] (meta graphs carry these _output_shapes and TF's import checks them)
    empty = TensorShape([Dimension(0)]) if op._attrs.get("is_training", True) else vec
    return [_with_channel(dy, fmt, channel), vec, vec, empty, empty]


def _batch_norm_grad_fn(grad_type, n_reserve):
    """The gradient of FusedBatchNorm{,V2,V3}: its grad op, fed with the saved statistics
    (training) or the population statistics (inference)."""

    def grad_fn(op, grad_y, *unused):
        attrs = {k: op.get_attr(k) for k in ("epsilon", "data_format", "is_training")}
        if op.get_attr("is_training"):
            saved = list(op.outputs[3:3 + n_reserve])
        else:
            saved = [op.inputs[3], op.inputs[4]] + list(op.outputs[5:3 + n_reserve])
        outs = ops.apply_op(grad_type, [grad_y, op.inputs[0], op.inputs[1]] + saved,
                            attrs)._outputs
        if op.get_attr("is_training"):
            # as TF 1.15: all five outputs (the last two stand for the empty statistics'
            # gradients, and count among the gradients minimize() gates)
            return list(outs)
        return [outs[0], outs[1], outs[2], None, None]

    grad_fn.__name__ = f"_{grad_type.lower()}_fn"
    return grad_fn


_BN_COMMON = ["epsilon: float = 0.0001", "data_format: {'NHWC', 'NCHW'} = 'NHWC'",
              "is_training: bool = true"]
_BN_OUT = ["batch_mean: U", "batch_variance: U", "reserve_space_1: U", "reserve_space_2: U"]
op_registry.declare(
    "FusedBatchNorm",
    inputs=["x: T", "scale: T", "offset: T", "mean: T", "variance: T"],
    outputs=["y: T"] + [s.replace(": U", ": T") for s in _BN_OUT],
    attrs=["T: {float}"] + _BN_COMMON, shape=_batch_norm_shape, kernel=_batch_norm,
    grad=_batch_norm_grad_fn("FusedBatchNormGrad", 2),
)
op_registry.declare(
    "FusedBatchNormV2",
    inputs=["x: T", "scale: U", "offset: U", "mean: U", "variance: U"],
    outputs=["y: T"] + _BN_OUT,
    attrs=["T: {half, bfloat16, float}", "U: {float}"] + _BN_COMMON,
    shape=_batch_norm_shape, kernel=_batch_norm,
    grad=_batch_norm_grad_fn("FusedBatchNormGradV2", 2),
)
op_registry.declare(
    "FusedBatchNormV3",
    inputs=["x: T", "scale: U", "offset: U", "mean: U", "variance: U"],
    outputs=["y: T"] + _BN_OUT + ["reserve_space_3: U"],
    attrs=["T: {half, bfloat16, float}", "U: {float}", "epsilon: float = 0.0001",
           "exponential_avg_factor: float = 1.0",
           "data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'",
           "is_training: bool = true"],
    shape=_batch_norm_shape, kernel=_batch_norm_v3,
    grad=_batch_norm_grad_fn("FusedBatchNormGradV3", 3),
    newer_attrs=["exponential_avg_factor"],  # TF 2.2's
)
_BN_GRAD_OUT = ["x_backprop: T", "scale_backprop: U", "offset_backprop: U"]
op_registry.declare(
    "FusedBatchNormGrad",
    inputs=["y_backprop: T", "x: T", "scale: T", "reserve_space_1: T", "reserve_space_2: T"],
    outputs=["x_backprop: T", "scale_backprop: T", "offset_backprop: T", "reserve_space_3: T",
             "reserve_space_4: T"],
    attrs=["T: {float}"] + _BN_COMMON, shape=_batch_norm_grad_shape, kernel=_batch_norm_grad,
)
op_registry.declare(
    "FusedBatchNormGradV2",
    inputs=["y_backprop: T", "x: T", "scale: float", "reserve_space_1: U",
            "reserve_space_2: U"],
    outputs=_BN_GRAD_OUT + ["reserve_space_3: U", "reserve_space_4: U"],
    attrs=["T: {half, bfloat16, float}", "U: {float}"] + _BN_COMMON,
    shape=_batch_norm_grad_shape, kernel=_batch_norm_grad,
)
op_registry.declare(
    "FusedBatchNormGradV3",
    inputs=["y_backprop: T", "x: T", "scale: float", "reserve_space_1: U",
            "reserve_space_2: U", "reserve_space_3: U"],
    outputs=_BN_GRAD_OUT + ["reserve_space_4: U", "reserve_space_5: U"],
    attrs=["T: {half, bfloat16, float}", "U: {float}", "epsilon: float = 0.0001",
           "data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'",
           "is_training: bool = true"],
    shape=_batch_norm_grad_shape, kernel=_batch_norm_grad_v3,
)


# ------------------------------------------------------------------------------------------
# BatchNormWithGlobalNormalization: TF's first batch norm (GraphDef versions before 9), still
# in graphs of that time (the 2015 Inception-v3 GraphDef); parameters along the last axis
# ------------------------------------------------------------------------------------------


def _global_norm_parts(t, m, v, gamma, variance_epsilon, scale_after_normalization):
    inv = 1.0 / np.sqrt(v.astype(np.float64) + variance_epsilon)
    factor = inv * gamma if scale_after_normalization else inv
    return t - m, inv, factor


def _batch_norm_global(t, m, v, beta, gamma, *, variance_epsilon, scale_after_normalization):
    centered, _, factor = _global_norm_parts(t, m, v, gamma, variance_epsilon,
                                             scale_after_normalization)
    return (centered * factor.astype(t.dtype) + beta).astype(t.dtype, copy=False)


def _batch_norm_global_grad(t, m, v, gamma, backprop, *, variance_epsilon,
                            scale_after_normalization):
    centered, inv, factor = _global_norm_parts(t, m, v, gamma, variance_epsilon,
                                               scale_after_normalization)
    axes = tuple(range(t.ndim - 1))
    db = backprop.sum(axis=axes, dtype=np.float64)
    dot = (backprop * centered).sum(axis=axes, dtype=np.float64)  # sum(dy * (t - m))
    g = gamma.astype(np.float64) if scale_after_normalization else 1.0
    dx = backprop * factor.astype(t.dtype)
    dm = -db * inv * g
    dv = dot * g * -0.5 * inv ** 3
    dg = dot * inv if scale_after_normalization else np.zeros_like(db)
    dt = t.dtype
    return (dx.astype(dt, copy=False), dm.astype(dt), dv.astype(dt), db.astype(dt),
            dg.astype(dt))


def _global_norm_shape(op):
    """[N, H, W, depth] and vectors of depth: t (and the gradient's backprop) and the result
    merge their shapes; the parameters their length with the last dimension."""
    grad = op._type == "BatchNormWithGlobalNormalizationGrad"
    t = _with_rank(op._inputs[0]._shape, 4)
    if grad:
        t = t.merge_with(_with_rank(op._inputs[4]._shape, 4))
    params = [op._inputs[i]._shape for i in ((1, 2, 3) if grad else (1, 2, 3, 4))]
    depth = _merge_channel(t[-1], params)
    out = TensorShape(list(t.dims[:-1]) + [depth])
    if not grad:
        return [out]
    vec = TensorShape([depth])
    return [out, vec, vec, vec, vec]


def _batch_norm_global_grad_fn(op, grad):
    outs = ops.apply_op("BatchNormWithGlobalNormalizationGrad",
                        [op.inputs[0], op.inputs[1], op.inputs[2], op.inputs[4], grad],
                        {k: op._attrs[k] for k in ("variance_epsilon",
                                                   "scale_after_normalization")})._outputs
    dx, dm, dv, db, dg = outs
    return [dx, dm, dv, db, dg]


_GLOBAL_NORM_ATTRS = ["T: numbertype", "variance_epsilon: float",
                      "scale_after_normalization: bool"]
op_registry.declare(
    "BatchNormWithGlobalNormalization",
    inputs=["t: T", "m: T", "v: T", "beta: T", "gamma: T"], outputs=["result: T"],
    attrs=_GLOBAL_NORM_ATTRS, shape=_global_norm_shape, kernel=_batch_norm_global,
    grad=_batch_norm_global_grad_fn,
)
op_registry.declare(
    "BatchNormWithGlobalNormalizationGrad",
    inputs=["t: T", "m: T", "v: T", "gamma: T", "backprop: T"],
    outputs=["dx: T", "dm: T", "dv: T", "db: T", "dg: T"],
    attrs=_GLOBAL_NORM_ATTRS, shape=_global_norm_shape, kernel=_batch_norm_global_grad,
)
