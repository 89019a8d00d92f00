"""Image resizing: ResizeBilinear/NearestNeighbor/Bicubic/Area with their gradient ops, and the
``tf.image.resize_*`` wrappers, computed as TF 1.x does (align_corners, legacy pixel centers).

Each resize is separable: per axis, every output row (column) is a weighted sum of a few input
rows (columns), the "taps". A kernel gathers taps along height then width; a gradient kernel
applies the transposed taps as a small dense matrix. Positions are computed in float32, as TF
computes them, so the nearest-neighbour choices and the bicubic table offsets match TF's.
"""

import numbers

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import array_ops, cast_ops, concat_ops, control_flow_ops, math_ops, unary_ops
from tideflow.ops.array_ops import _check_rank, _in, _np
from tideflow.ops.gradients import dense


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


# ------------------------------------------------------------------------------------------
# taps: (indices [out, K], weights [out, K]) along one axis
# ------------------------------------------------------------------------------------------


def _scale(in_size, out_size, align_corners):
    if align_corners and out_size > 1:
        return np.float32(in_size - 1) / np.float32(out_size - 1)
    return np.float32(in_size) / np.float32(out_size)


def _positions(out_size, scale, half_pixel, nearest=False):
    x = np.arange(out_size, dtype=np.float32)
    if not half_pixel:
        return x * scale
    p = (x + np.float32(0.5)) * scale
    return p if nearest else p - np.float32(0.5)


def _round_half_away(p):
    f = np.floor(p)
    return np.where(p - f >= 0.5, f + 1, f)


def _nearest_index(in_size, out_size, align_corners, half_pixel):
    p = _positions(out_size, _scale(in_size, out_size, align_corners), half_pixel, True)
    idx = _round_half_away(p) if align_corners else np.floor(p)
    idx = np.minimum(idx.astype(np.int64), in_size - 1)
    return np.maximum(idx, 0)


def _linear_taps(in_size, out_size, align_corners, half_pixel):
    p = _positions(out_size, _scale(in_size, out_size, align_corners), half_pixel)
    f = np.floor(p)
    lo = np.maximum(f.astype(np.int64), 0)
    hi = np.minimum(np.ceil(p).astype(np.int64), in_size - 1)
    lerp = (p - f).astype(np.float64)
    return np.stack([lo, hi], 1), np.stack([1.0 - lerp, lerp], 1)


_TABLE_SIZE = 1024
_CUBIC_TABLES = {}


def _cubic_table(a):
    """TF's 1025-entry table of cubic-convolution weights (float32), for |d| and 1 + |d|:
    computed in double from a float x, and x + 1 rounded to float first, as TF's C++."""
    t = _CUBIC_TABLES.get(a)
    if t is None:
        x = (np.arange(_TABLE_SIZE + 1) / _TABLE_SIZE).astype(np.float32).astype(np.float64)
        near = (((a + 2) * x - (a + 3)) * x * x + 1).astype(np.float32)
        x1 = (x + 1.0).astype(np.float32).astype(np.float64)
        far = (((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a).astype(np.float32)
        t = _CUBIC_TABLES[a] = (near, far)
    return t


def _cubic_taps(in_size, out_size, align_corners, half_pixel):
    # TF's GetWeightsAndIndices: the table offset by lrintf (half to even), float32 weights;
    # with half-pixel centres, samples outside the image get no weight and the rest are
    # scaled by 1 / their float sum
    p = _positions(out_size, _scale(in_size, out_size, align_corners), half_pixel)
    f = np.floor(p)
    base = f.astype(np.int64)
    off = np.rint((p - f) * np.float32(_TABLE_SIZE)).astype(np.int64)
    near, far = _cubic_table(-0.5 if half_pixel else -0.75)
    w = np.stack([far[off], near[off], near[_TABLE_SIZE - off], far[_TABLE_SIZE - off]], 1)
    raw = base[:, None] + np.arange(-1, 3)
    idx = np.clip(raw, 0, in_size - 1)
    if half_pixel:  # Keys' kernel: samples outside the image get no weight, then renormalize
        w = np.where(idx == raw, w, np.float32(0))
        total = ((w[:, 0] + w[:, 1]) + w[:, 2]) + w[:, 3]
        big = np.abs(total) >= np.float32(1000) * np.finfo(np.float32).tiny
        with np.errstate(divide="ignore"):
            w = np.where(big[:, None], w * (np.float32(1) / total)[:, None], w)
    return idx, w


def _bicubic_kernel(images, size, *, align_corners, half_pixel_centers=False):
    # TF's float order: each of a sample's four columns interpolated along y, then those
    # four along x, each as ((v0 w0 + v1 w1) + v2 w2) + v3 w3
    x, oh, ow = _prepare(images, size, align_corners, half_pixel_centers)
    _, h, w, _ = x.shape
    x = x.astype(np.float32, copy=False)
    yi, wy = _cubic_taps(h, oh, align_corners, half_pixel_centers)
    xi, wx = _cubic_taps(w, ow, align_corners, half_pixel_centers)
    cols = None
    for k in range(4):
        term = x[:, yi[:, k]] * wy[None, :, k, None, None]
        cols = term if cols is None else cols + term
    out = None
    for k in range(4):
        term = cols[:, :, xi[:, k]] * wx[None, None, :, k, None]
        out = term if out is None else out + term
    return out


def _area_taps(in_size, out_size, align_corners, half_pixel=False):
    s = _scale(in_size, out_size, align_corners)
    o = np.arange(out_size, dtype=np.float32)
    lo = o * s
    hi = (o + np.float32(1)) * s
    start = np.floor(lo).astype(np.int64)
    end = np.ceil(hi).astype(np.int64)
    k = int((end - start).max()) if out_size else 1
    i = start[:, None] + np.arange(k)
    fi = i.astype(np.float64)
    lo64, hi64 = lo.astype(np.float64)[:, None], hi.astype(np.float64)[:, None]
    w = np.where(
        fi < lo64,
        np.where(fi + 1 > hi64, float(s), fi + 1 - lo64),
        np.where(fi + 1 > hi64, hi64 - fi, 1.0),
    )
    w = np.where(i < end[:, None], w, 0.0) / float(s)
    return np.clip(i, 0, in_size - 1), w


def _gather_taps(x, taps, axis, from_zero=False):
    """Each output the sum of weight times input over its span's taps in turn (each product
    rounded); ``from_zero``: the sum starts at +0 (TF's float GatherRows/GatherColumns, where a
    lone -0 product gives +0)."""
    idx, w = taps
    shape = [1] * x.ndim
    shape[axis] = -1
    out = None
    for k in range(idx.shape[1]):
        term = np.take(x, idx[:, k], axis=axis) * w[:, k].reshape(shape)
        if out is None:
            out = term + x.dtype.type(0) if from_zero else term
        else:
            out = out + term
    return out


def _scatter_taps(g, taps, axis, in_size):
    """The transpose of :func:`_gather_taps`: [.., out, ..] -> [.., in, ..]."""
    idx, w = taps
    m = np.zeros((in_size, idx.shape[0]))
    rows = np.arange(idx.shape[0])
    for k in range(idx.shape[1]):
        np.add.at(m, (idx[:, k], rows), w[:, k])
    return np.moveaxis(np.tensordot(g, m, axes=([axis], [1])), -1, axis)


# ------------------------------------------------------------------------------------------
# kernels
# ------------------------------------------------------------------------------------------


def _check_images(x, what="input"):
    if x.ndim != 4:
        raise _invalid(f"{what} must be 4-dimensional{list(x.shape)}")


def _out_size(size):
    s = _np(size)
    if s.ndim != 1:
        raise _invalid(f"shape_t must be 1-dimensional{list(s.shape)}")
    if s.shape[0] != 2:
        raise _invalid(f"shape_t must have two elements{list(s.shape)}")
    h, w = int(s[0]), int(s[1])
    if h <= 0 or w <= 0:
        raise _invalid("output dimensions must be positive")
    return h, w


def _check_centers(align_corners, half_pixel_centers):
    if align_corners and half_pixel_centers:
        raise _invalid("If half_pixel_centers is True, align_corners must be False.")


def _prepare(images, size, align_corners, half_pixel_centers):
    x = _np(images)
    _check_images(x)
    _check_centers(align_corners, half_pixel_centers)
    oh, ow = _out_size(size)
    if x.shape[1] == 0 or x.shape[2] == 0:
        raise _invalid("input image must be of non-zero size")
    return x, oh, ow


def _interp_kernel(taps_fn):
    def kernel(images, size, *, align_corners, half_pixel_centers=False):
        x, oh, ow = _prepare(images, size, align_corners, half_pixel_centers)
        _, h, w, _ = x.shape
        y = _gather_taps(x.astype(np.float64), taps_fn(h, oh, align_corners, half_pixel_centers),
                         1)
        y = _gather_taps(y, taps_fn(w, ow, align_corners, half_pixel_centers), 2)
        return y.astype(np.float32)

    return kernel


def _bilinear_kernel(images, size, *, align_corners, half_pixel_centers=False):
    # TF's float32 lerps in TF's order (along x within the two rows, then along y), so the
    # values are TF's to the bit
    x, oh, ow = _prepare(images, size, align_corners, half_pixel_centers)
    _, h, w, _ = x.shape
    x = x.astype(np.float32, copy=False)
    (ys, wy), (xs, wx) = (_linear_taps(n, o, align_corners, half_pixel_centers)
                          for n, o in ((h, oh), (w, ow)))
    yl = wy[:, 1].astype(np.float32)[None, :, None, None]
    xl = wx[:, 1].astype(np.float32)[None, None, :, None]
    lo, hi = x[:, ys[:, 0]], x[:, ys[:, 1]]
    tl, tr = lo[:, :, xs[:, 0]], lo[:, :, xs[:, 1]]
    bl, br = hi[:, :, xs[:, 0]], hi[:, :, xs[:, 1]]
    top = tl + (tr - tl) * xl
    return top + (bl + (br - bl) * xl - top) * yl


def _grad_inputs(grads, original_image, align_corners, half_pixel_centers):
    """A resize gradient's checked inputs: ``(grads array, its shape, the image's shape)``."""
    g = _np(grads)
    orig = _np(original_image)
    _check_images(g, "input_grad")
    _check_images(orig, "original_image")
    _check_centers(align_corners, half_pixel_centers)
    _, oh, ow, _ = g.shape
    _, h, w, _ = orig.shape
    if h == 0 or w == 0 or oh == 0 or ow == 0:
        raise _invalid("input and output image sizes must be non-zero")
    if g.shape[0] != orig.shape[0] or g.shape[3] != orig.shape[3]:
        raise _invalid("grads and original_image must agree in batch and channels")
    return g, g.shape, orig.shape


def _bilinear_grad_kernel(grads, original_image, *, T, align_corners, half_pixel_centers):
    """TF's ResizeBilinearGrad to the bit: each output pixel adds its four float32 shares
    (grad * y weight * x weight) into the image in T, pixel by pixel. A cell's shares are
    added in that order: round r adds every cell's r-th share at once."""
    g, (b, oh, ow, c), (_, h, w, _) = _grad_inputs(grads, original_image, align_corners,
                                                    half_pixel_centers)
    (ys, wy), (xs, wx) = (_linear_taps(n, o, align_corners, half_pixel_centers)
                          for n, o in ((h, oh), (w, ow)))
    ly, lx = wy[:, 1].astype(np.float32), wx[:, 1].astype(np.float32)
    one = np.float32(1)
    fy = np.stack([one - ly, one - ly, ly, ly], 1)  # corners: TL, TR, BL, BR
    fx = np.stack([one - lx, lx, one - lx, lx], 1)
    rows = np.stack([ys[:, 0], ys[:, 0], ys[:, 1], ys[:, 1]], 1)
    cols = np.stack([xs[:, 0], xs[:, 1], xs[:, 0], xs[:, 1]], 1)
    g = g.astype(np.float32, copy=False)
    shares = (g[:, :, :, None, :] * fy[None, :, None, :, None]) * fx[None, None, :, :, None]
    shares = shares.reshape(b, oh * ow * 4, c).astype(T.as_numpy_dtype, copy=False)
    target = (rows[:, None, :] * w + cols[None, :, :]).reshape(-1)
    return _add_in_order(shares, target, h * w, T.as_numpy_dtype).reshape(b, h, w, c)


def _add_in_order(shares, target, cells, dtype):
    """``out[:, target[i]] += shares[:, i]`` for each i in turn, in ``dtype`` (TF's gradient
    kernels add each share into the image as they go): round r adds every cell's r-th share
    at once."""
    b, _, c = shares.shape
    order = np.argsort(target, kind="stable")
    sorted_t = target[order]
    starts = np.r_[0, np.flatnonzero(sorted_t[1:] != sorted_t[:-1]) + 1]
    rank = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    out = np.zeros((b, cells, c), dtype)
    for r in range(int(rank.max()) + 1 if rank.size else 0):
        pick = order[rank == r]
        out[:, target[pick]] += shares[:, pick]
    return out


def _bicubic_grad_kernel(grads, original_image, *, T, align_corners, half_pixel_centers):
    """TF's ResizeBicubicGrad: each gradient pixel, in order, adds its 16 shares
    ((grad * y weight) * x weight in T, y tap major) into the image in T."""
    g, (b, oh, ow, c), (_, h, w, _) = _grad_inputs(grads, original_image, align_corners,
                                                    half_pixel_centers)
    yi, wy = _cubic_taps(h, oh, align_corners, half_pixel_centers)
    xi, wx = _cubic_taps(w, ow, align_corners, half_pixel_centers)
    # (in T: the kernel reads each gradient value as a T)
    t = T.as_numpy_dtype
    g, wy, wx = g.astype(t, copy=False), wy.astype(t), wx.astype(t)
    shares = ((g[:, :, :, None, None, :] * wy[None, :, None, :, None, None])
              * wx[None, None, :, None, :, None]).reshape(b, oh * ow * 16, c)
    target = (yi[:, None, :, None] * w + xi[None, :, None, :]).reshape(-1)
    return _add_in_order(shares, target, h * w, T.as_numpy_dtype).reshape(b, h, w, c)


def _nearest_kernel(images, size, *, align_corners, half_pixel_centers):
    x, oh, ow = _prepare(images, size, align_corners, half_pixel_centers)
    _, h, w, _ = x.shape
    iy = _nearest_index(h, oh, align_corners, half_pixel_centers)
    ix = _nearest_index(w, ow, align_corners, half_pixel_centers)
    return x[:, iy][:, :, ix]


def _nearest_grad_kernel(grads, size, *, align_corners, half_pixel_centers):
    g = _np(grads)
    _check_images(g, "input")
    _check_centers(align_corners, half_pixel_centers)
    h, w = _out_size(size)
    b, gh, gw, c = g.shape
    iy = _nearest_index(h, gh, align_corners, half_pixel_centers)
    ix = _nearest_index(w, gw, align_corners, half_pixel_centers)
    # as TF's kernel: each gradient pixel, row by row, added into its source pixel in T
    target = (iy[:, None] * w + ix[None, :]).reshape(-1)
    return _add_in_order(g.reshape(b, gh * gw, c), target, h * w, g.dtype).reshape(b, h, w, c)


# ------------------------------------------------------------------------------------------
# shapes and gradients
# ------------------------------------------------------------------------------------------


def _size_dims(t):
    _check_rank(t._shape, 1)
    if t._shape.ndims == 1 and t._shape[0].value not in (None, 2):
        raise ValueError(f"Dimension must be 2 but is {t._shape[0].value}")
    # as TF 1.15's shape function: the size's value only when it is wholly constant (not a
    # partial shape: [tf.shape(x)[1], 3] says nothing of either dimension)
    v = ops.constant_value(t)
    if v is None or np.ndim(v) != 1:
        return [None, None]
    return [None if d < 0 else int(d) for d in np.asarray(v).tolist()]


def _resize_shape(op):
    s = _in(op, 0)
    _check_rank(s, 4)
    h, w = _size_dims(op._inputs[1])
    if s.ndims is None:
        return [[None, h, w, None]]
    return [[s[0].value, h, w, s[3].value]]


def _like_second_input(op):
    s = _in(op, 1)
    _check_rank(s, 4)
    _check_rank(_in(op, 0), 4)
    return [s if s.ndims is not None else TensorShape([None] * 4)]


def _resize_attrs(op):
    return {"align_corners": op.get_attr("align_corners"),
            "half_pixel_centers": op.get_attr("half_pixel_centers")}


def _interp_grad(grad_op):
    # (TF 1.15's bicubic gradient is None for an image that is not float or double)
    types = ((dtypes.float32, dtypes.float64) if grad_op == "ResizeBicubicGrad"
             else (dtypes.float16, dtypes.float32, dtypes.float64))

    def grad(op, g):
        image = op.inputs[0]
        if image.dtype.base_dtype not in types:
            return [None, None]
        return [ops.apply_op(grad_op, [dense(g), image], _resize_attrs(op))._outputs[0], None]

    return grad


def _nearest_grad(op, g):
    image = op.inputs[0]
    hw = image.get_shape()[1:3]
    if hw.is_fully_defined():
        # converted by the op, as TF's: ResizeNearestNeighbor_grad/ResizeNearestNeighborGrad/size
        size = np.array(hw.as_list(), np.int32)
    else:
        size = array_ops.shape(image)[1:3]
    return [ops.apply_op("ResizeNearestNeighborGrad", [dense(g), size],
                         _resize_attrs(op))._outputs[0], None]


_IMAGE_T = ("T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, double}")
# TF 1.15's ResizeBicubic, ResizeArea and ResizeNearestNeighbor take no bfloat16 (Bilinear does)
_IMAGE_T_NO_BF16 = "T: {int8, uint8, int16, uint16, int32, int64, half, float, double}"
_CENTERS = ["align_corners: bool = false", "half_pixel_centers: bool = false"]

# (op, gradient op, its taps, the gradient op's types)
for _name, _taps, _grad_types in (
        ("ResizeBilinear", _linear_taps, "{float, bfloat16, half, double}"),
        ("ResizeBicubic", _cubic_taps, "{float, double}")):
    op_registry.declare(
        _name,
        inputs=["images: T", "size: int32"],
        outputs=["resized_images: float"],
        attrs=[_IMAGE_T if _name == "ResizeBilinear" else _IMAGE_T_NO_BF16] + _CENTERS,
        shape=_resize_shape,
        kernel=_bilinear_kernel if _name == "ResizeBilinear" else _bicubic_kernel,
        grad=_interp_grad(_name + "Grad"),
    )
    op_registry.declare(
        _name + "Grad",
        inputs=["grads: float", "original_image: T"],
        outputs=["output: T"],
        attrs=[f"T: {_grad_types}"] + _CENTERS,
        shape=_like_second_input,
        kernel=(_bilinear_grad_kernel if _name == "ResizeBilinear"
                else _bicubic_grad_kernel),
        # no gradient, as TF 1.15 (a second derivative through a resize is a LookupError)
    )


def _area_cells(in_size, out_size, align_corners):
    """Per output index: the first input cell, the cell count, and each cell's float32 share
    ([out, K], 0 past the count), as TF's ResizeArea caches them."""
    s = _scale(in_size, out_size, align_corners)
    o = np.arange(out_size, dtype=np.float32)
    lo, hi = o * s, (o + np.float32(1)) * s
    start = np.floor(lo).astype(np.int64)
    count = np.ceil(hi).astype(np.int64) - start
    k = max(int(count.max()), 1) if out_size else 1
    i = start[:, None] + np.arange(k)
    fi = i.astype(np.float32)
    one = np.float32(1)
    share = np.where(fi < lo[:, None], np.where(fi + one > hi[:, None], s, fi + one - lo[:, None]),
                     np.where(fi + one > hi[:, None], hi[:, None] - fi, one))
    return np.clip(i, 0, in_size - 1), count, share.astype(np.float32)


def _area_kernel(images, size, *, align_corners):
    # TF's per-cell float sums in its order: along x within each input row (the first and
    # last cells scaled, the middle ones not), then the rows times their shares, then the
    # whole times 1 / (height scale * width scale)
    x, oh, ow = _prepare(images, size, align_corners, False)
    _, h, w, _ = x.shape
    x = x.astype(np.float32, copy=False)
    xi, xn, xs = _area_cells(w, ow, align_corners)
    cols = x[:, :, xi]  # [b, h, ow, K, c]
    row_sum = cols[:, :, :, 0] * xs[None, None, :, 0, None]
    last = (xn - 1)[None, None, :, None]
    for k in range(1, xi.shape[1]):
        term = np.where(k == last, cols[:, :, :, k] * xs[None, None, :, k, None],
                        cols[:, :, :, k])
        row_sum = np.where(k < xn[None, None, :, None], row_sum + term, row_sum)
    yi, yn, ys = _area_cells(h, oh, align_corners)
    total = np.zeros((x.shape[0], oh, ow, x.shape[3]), np.float32)
    for k in range(yi.shape[1]):
        term = row_sum[:, yi[:, k]] * ys[None, :, k, None, None]
        total = np.where((k < yn)[None, :, None, None], total + term, total)
    with np.errstate(divide="ignore", invalid="ignore"):  # (a zero scale: C's inf, as TF)
        scale = np.float32(np.float64(1.0) / np.float64(
            _scale(h, oh, align_corners) * _scale(w, ow, align_corners)))
        return total * scale


op_registry.declare(
    "ResizeArea",
    inputs=["images: T", "size: int32"],
    outputs=["resized_images: float"],
    attrs=[_IMAGE_T_NO_BF16, "align_corners: bool = false"],
    shape=_resize_shape,
    kernel=_area_kernel,
)
op_registry.declare(
    "ResizeNearestNeighbor",
    inputs=["images: T", "size: int32"],
    outputs=["resized_images: T"],
    attrs=[_IMAGE_T_NO_BF16] + _CENTERS,
    shape=_resize_shape,
    kernel=_nearest_kernel,
    grad=_nearest_grad,
)


def _nearest_grad_shape(op):
    s = _in(op, 0)
    _check_rank(s, 4)
    h, w = _size_dims(op._inputs[1])
    if s.ndims is None:
        return [[None, h, w, None]]
    return [[s[0].value, h, w, s[3].value]]


op_registry.declare(
    "ResizeNearestNeighborGrad",
    inputs=["grads: T", "size: int32"],
    outputs=["output: T"],
    attrs=["T: {uint8, int8, int32, half, float, double}"] + _CENTERS,
    shape=_nearest_grad_shape,
    kernel=_nearest_grad_kernel,  # (no gradient, as TF 1.15)
)


# ------------------------------------------------------------------------------------------
# public wrappers
# ------------------------------------------------------------------------------------------


class ResizeMethod:
    """The ``method`` values of :func:`resize_images`."""

    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


def _resize_op(op_type, images, size, name, **attrs):
    return ops.apply_op(op_type, [images, size], attrs, name=name)._outputs[0]


def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """Resizes 4-D ``images`` to ``size`` by bilinear interpolation (float32 result)."""
    return _resize_op("ResizeBilinear", images, size, name, align_corners=align_corners,
                      half_pixel_centers=half_pixel_centers)


def resize_nearest_neighbor(images, size, align_corners=False, name=None,
                            half_pixel_centers=False):
    """Resizes 4-D ``images`` to ``size`` by nearest-neighbour sampling (same dtype)."""
    return _resize_op("ResizeNearestNeighbor", images, size, name, align_corners=align_corners,
                      half_pixel_centers=half_pixel_centers)


def resize_bicubic(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """Resizes 4-D ``images`` to ``size`` by bicubic interpolation (float32 result)."""
    return _resize_op("ResizeBicubic", images, size, name, align_corners=align_corners,
                      half_pixel_centers=half_pixel_centers)


def resize_area(images, size, align_corners=False, name=None):
    """Resizes 4-D ``images`` to ``size`` by area averaging (float32 result)."""
    return _resize_op("ResizeArea", images, size, name, align_corners=align_corners)


_METHODS = {
    ResizeMethod.BILINEAR: resize_bilinear,
    ResizeMethod.NEAREST_NEIGHBOR: resize_nearest_neighbor,
    ResizeMethod.BICUBIC: resize_bicubic,
    ResizeMethod.AREA: resize_area,
}


# TF 1.15's resize_images also takes the four methods by their TF 2 names
_V2_METHOD_NAMES = {"bilinear": ResizeMethod.BILINEAR, "nearest": ResizeMethod.NEAREST_NEIGHBOR,
                    "bicubic": ResizeMethod.BICUBIC, "area": ResizeMethod.AREA}


def _batched(images):
    """(4-D images, whether the input was a batch); ValueError unless rank 3 or 4."""
    images = ops.convert_to_tensor(images, name="images")
    ndims = images.get_shape().ndims
    if ndims is None:
        raise ValueError("'images' contains no shape.")
    if ndims == 3:
        return array_ops.expand_dims(images, 0), False
    if ndims != 4:
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    return images, True


def _is_tensor(x):
    return isinstance(x, ops.Tensor)


def _size_tensor(size):
    if isinstance(size, (list, tuple)) and any(_is_tensor(s) for s in size):
        size = concat_ops.stack([cast_ops.cast(s, dtypes.int32) if _is_tensor(s) else s
                                 for s in size], name="size")
    try:
        size = ops.convert_to_tensor(size, dtypes.int32, name="size")
    except (TypeError, ValueError):
        raise ValueError("'size' must be a 1-D int32 Tensor") from None
    if not size.get_shape().is_compatible_with([2]):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    return size


def _is_scalar_size(v):
    if _is_tensor(v):
        return v.get_shape().ndims == 0
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def resize_images(images, size=None, method=ResizeMethod.BILINEAR, align_corners=False,
                  preserve_aspect_ratio=False, name=None, new_height=None, new_width=None):
    """Resizes 3-D ``[h, w, c]`` or 4-D ``[n, h, w, c]`` images to ``size`` = [new_h, new_w].

    Also takes 0.x's ``resize_images(images, new_height, new_width, method=0,
    align_corners=False)`` (a scalar ``size`` is that form)."""
    if new_height is not None or new_width is not None:
        size = [new_height, new_width]
    elif _is_scalar_size(size) and _is_scalar_size(method):
        size, method, align_corners, preserve_aspect_ratio = (
            [size, method], int(align_corners), bool(preserve_aspect_ratio), False)
    if size is None:
        raise TypeError("resize_images() needs 'size'")
    with ops.name_scope(name, "resize", [images, size]):
        images, is_batch = _batched(images)
        _, height, width, _ = images.get_shape().as_list()
        size = _size_tensor(size)
        if preserve_aspect_ratio:
            # as TF 1.x: the new size must be static here
            const = array_ops.constant_value_as_shape(size)
            _, cur_h, cur_w, _ = image_dimensions(images, 4)
            f32 = dtypes.float32
            scale_h = cast_ops.cast(const[0].value, f32) / cast_ops.cast(cur_h, f32)
            scale_w = cast_ops.cast(const[1].value, f32) / cast_ops.cast(cur_w, f32)
            scale = math_ops.minimum(scale_h, scale_w)
            new_h = cast_ops.cast(unary_ops.round(scale * cast_ops.cast(cur_h, f32)),
                                  dtypes.int32)
            new_w = cast_ops.cast(unary_ops.round(scale * cast_ops.cast(cur_w, f32)),
                                  dtypes.int32)
            size = ops.convert_to_tensor([new_h, new_w], dtypes.int32, name="size")
        const = array_ops.constant_value_as_shape(size)
        new_h, new_w = (const[0].value, const[1].value) if const.ndims == 2 else (None, None)
        if new_w is not None and new_h is not None and width == new_w and height == new_h:
            return images if is_batch else array_ops.squeeze(images, axis=[0])
        fn = _METHODS.get(_V2_METHOD_NAMES.get(method, method)
                          if isinstance(method, str) else method)
        if fn is None:
            raise ValueError("Resize method is not implemented.")
        out = fn(images, size, align_corners=align_corners)
        out.set_shape([None, new_h, new_w, None])
        return out if is_batch else array_ops.squeeze(out, axis=[0])


def image_dimensions(image, rank):
    """The dimensions of ``image``: Python ints where static, scalar tensors where not."""
    static = image.get_shape().with_rank(rank).as_list()
    if all(d is not None for d in static):
        return static
    dynamic = concat_ops.unstack(array_ops.shape(image), rank)
    return [s if s is not None else d for s, d in zip(static, dynamic)]


def resize_image_with_pad(image, target_height, target_width,
                          method=ResizeMethod.BILINEAR, align_corners=False):
    """Resizes ``image`` to fit in the target keeping its aspect ratio, then pads with zeros."""
    def resize(images, size, m):
        return resize_images(images, size, m, align_corners=align_corners)

    return resize_and_pad(image, target_height, target_width, method, resize)


def resize_and_pad(image, target_height, target_width, method, resize):
    """``resize_image_with_pad`` resizing with ``resize(images, size, method)``."""
    from tideflow.ops import image_ops

    with ops.name_scope(None, "resize_image_with_pad", [image]):
        image = ops.convert_to_tensor(image, name="image")
        ndims = image.get_shape().ndims
        is_batch = ndims == 4
        if ndims is None:
            image = array_ops.expand_dims(image, 0)
            image.set_shape([None] * 4)
        elif ndims == 3:
            image = array_ops.expand_dims(image, 0)
        elif ndims != 4:
            raise ValueError("'image' must have either 3 or 4 dimensions.")
        deps = image_ops.at_least_3d_checks(image)
        deps += image_ops.assert_or_raise(target_width > 0, "target_width must be > 0.")
        deps += image_ops.assert_or_raise(target_height > 0, "target_height must be > 0.")
        image = control_flow_ops.with_dependencies(deps, image)
        _, height, width, _ = image_dimensions(image, 4)
        f64 = dtypes.float64
        f_h, f_w = cast_ops.cast(height, f64), cast_ops.cast(width, f64)
        f_th, f_tw = cast_ops.cast(target_height, f64), cast_ops.cast(target_width, f64)
        ratio = math_ops.maximum(f_w / f_tw, f_h / f_th)
        rh, rw = f_h / ratio, f_w / ratio
        resized_h = cast_ops.cast(unary_ops.floor(rh), dtypes.int32)
        resized_w = cast_ops.cast(unary_ops.floor(rw), dtypes.int32)
        half_h, half_w = (f_th - rh) / 2, (f_tw - rw) / 2
        floor_h, floor_w = unary_ops.floor(half_h), unary_ops.floor(half_w)
        pad_h = math_ops.maximum(0, cast_ops.cast(floor_h, dtypes.int32))
        pad_w = math_ops.maximum(0, cast_ops.cast(floor_w, dtypes.int32))
        resized = resize(image, [resized_h, resized_w], method)
        padded = image_ops.pad_to_bounding_box(resized, pad_h, pad_w, target_height,
                                               target_width)
        image_dimensions(padded, 4)  # TF 1.x's check of the padded shape (its ops)
        return padded if is_batch else array_ops.squeeze(padded, axis=[0])
