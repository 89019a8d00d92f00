"""The rest of ``tf.image``: YUV/YIQ colour spaces, Sobel edges and image gradients, PSNR and
(multi-scale) SSIM, CropAndResize with its two gradient ops, the NonMaxSuppression V4/V5,
WithOverlaps and Combined ops, and JPEG-quality helpers."""

import heapq

import numpy as np

from tideflow.framework import dtypes, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import (
    array_ops,
    cast_ops,
    conv_ops,
    linalg_ops,
    math_ops,
    pad_ops,
    pooling_ops,
    reduction_ops,
    unary_ops,
)
from tideflow.ops.array_ops import _invalid, _np, _shape_str
from tideflow.ops.concat_ops import concat, stack
from tideflow.ops.image_color_ops import convert_image_dtype

# ------------------------------------------------------------------------------------------
# colour spaces (linear maps of the channel axis)
# ------------------------------------------------------------------------------------------

_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
               [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]
_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
               [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021],
               [0.6208248, -0.64720424, 1.70423049]]


def _channel_map(images, kernel, what):
    images = ops.convert_to_tensor(images, name="images")
    s = images.get_shape()
    if s.ndims is not None and (s.ndims < 1 or s.dims[-1].value not in (None, 3)):
        raise ValueError(f"{what}: the last dimension of images must be 3 (channels), got shape "
                         f"{s}")
    k = ops.convert_to_tensor(np.asarray(kernel, images.dtype.as_numpy_dtype), name="kernel")
    ndims = s.ndims
    if ndims is None:
        ndims = array_ops.rank(images)
    return linalg_ops.tensordot(images, k, axes=[[ndims - 1], [0]])


def rgb_to_yuv(images):
    """RGB (floats in [0, 1]) to YUV: Y in [0, 1], U in [-0.436, 0.436], V in [-0.615, 0.615]."""
    return _channel_map(images, _RGB_TO_YUV, "rgb_to_yuv")


def yuv_to_rgb(images):
    """YUV to RGB (the inverse of :func:`rgb_to_yuv`)."""
    return _channel_map(images, _YUV_TO_RGB, "yuv_to_rgb")


def rgb_to_yiq(images):
    """RGB (floats in [0, 1]) to YIQ."""
    return _channel_map(images, _RGB_TO_YIQ, "rgb_to_yiq")


def yiq_to_rgb(images):
    """YIQ to RGB (the inverse of :func:`rgb_to_yiq`)."""
    return _channel_map(images, _YIQ_TO_RGB, "yiq_to_rgb")


# ------------------------------------------------------------------------------------------
# gradients and edges
# ------------------------------------------------------------------------------------------


def image_gradients(image):
    """Forward differences ``(dy, dx)`` of a 4-D ``[batch, h, w, d]`` image, zero in the last
    row (dy) and column (dx)."""
    image = ops.convert_to_tensor(image, name="image")
    if image.get_shape().ndims != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not "
                         f"{image.get_shape()}.")
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    dy = pad_ops.pad(dy, [[0, 0], [0, 1], [0, 0], [0, 0]])
    dx = pad_ops.pad(dx, [[0, 0], [0, 0], [0, 1], [0, 0]])
    dy.set_shape(image.get_shape())
    dx.set_shape(image.get_shape())
    return dy, dx


def sobel_edges(image):
    """Sobel filter responses ``[batch, h, w, d, 2]`` (dy, dx) of a 4-D image, with the image
    reflected at its borders."""
    image = ops.convert_to_tensor(image, name="image")
    s = image.get_shape()
    if s.ndims is not None and s.ndims != 4:
        raise ValueError(f"sobel_edges: image must be 4-D [batch, h, w, d], got shape {s}")
    ky = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], np.float64)
    kernels = np.stack([ky, ky.T], -1)  # [3, 3, 2]
    kernels = kernels[:, :, None, :].astype(image.dtype.as_numpy_dtype)  # [3, 3, 1, 2]
    depth = array_ops.shape(image)[3]
    k = pad_ops.tile(ops.convert_to_tensor(kernels), stack([1, 1, depth, 1]))
    padded = pad_ops.pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    out = conv_ops.depthwise_conv2d_native(padded, k, [1, 1, 1, 1], "VALID")
    shape = concat([array_ops.shape(image), [2]], 0)
    out = array_ops.reshape(out, shape)
    out.set_shape(s.concatenate([2]) if s.ndims is not None else TensorShape([None] * 5))
    return out


# ------------------------------------------------------------------------------------------
# PSNR and SSIM
# ------------------------------------------------------------------------------------------


def _check_pair(a, b, what):
    a = ops.convert_to_tensor(a, name="a")
    b = ops.convert_to_tensor(b, name="b")
    sa, sb = a.get_shape(), b.get_shape()
    if sa.ndims is not None and sa.ndims < 3:
        raise ValueError(f"{what}: images must have rank >= 3 [..., h, w, c], got shape {sa}")
    if sa.ndims is not None and sb.ndims is not None:
        if sa.ndims != sb.ndims:
            raise ValueError(f"{what}: shapes {sa} and {sb} have different ranks")
        if not sa[-3:].is_compatible_with(sb[-3:]):
            raise ValueError(f"{what}: image shapes {sa} and {sb} are incompatible")
    return a, b


def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio (dB) between images, per image: ``10 log10(max_val^2 / MSE)``
    over the last three dimensions."""
    with ops.name_scope(name, "PSNR", [a, b]):
        a, b = _check_pair(a, b, "psnr")
        max_val = cast_ops.cast(ops.convert_to_tensor(max_val), a.dtype)
        max_val = convert_image_dtype(max_val, dtypes.float32)
        a = convert_image_dtype(a, dtypes.float32)
        b = convert_image_dtype(b, dtypes.float32)
        mse = reduction_ops.reduce_mean(math_ops.squared_difference(a, b), [-3, -2, -1])
        return math_ops.subtract(20 * unary_ops.log(max_val) / np.log(10.0).astype(np.float32),
                                 np.float32(10 / np.log(10)) * unary_ops.log(mse), name="psnr")


_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def _gauss_kernel(size, sigma, dtype):
    coords = np.arange(size, dtype=np.float64) - (size - 1) / 2.0
    g = -0.5 * coords ** 2 / sigma ** 2
    g = (g[None, :] + g[:, None]).reshape(-1)
    g = np.exp(g - g.max())
    g /= g.sum()
    return g.reshape(size, size, 1, 1).astype(dtype)


def _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2,
                      return_index_map=False):
    s = img1.get_shape()
    hw = [d.value for d in s[-3:-1].dims] if s.ndims is not None else [None, None]
    for d in hw:
        if d is not None and d < filter_size:
            raise ValueError(f"ssim: image dims {hw} are smaller than filter_size {filter_size}")
    kernel = _gauss_kernel(filter_size, filter_sigma, img1.dtype.as_numpy_dtype)
    depth = array_ops.shape(img1)[-1]
    kernel = pad_ops.tile(ops.convert_to_tensor(kernel), stack([1, 1, depth, 1]))

    def reducer(x):
        shape = array_ops.shape(x)
        x = array_ops.reshape(x, concat([[-1], shape[-3:]], 0))
        y = conv_ops.depthwise_conv2d_native(x, kernel, [1, 1, 1, 1], "VALID")
        return array_ops.reshape(y, concat([shape[:-3], array_ops.shape(y)[1:]], 0))

    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2
    mean0, mean1 = reducer(img1), reducer(img2)
    num0 = mean0 * mean1 * 2.0
    den0 = math_ops.square(mean0) + math_ops.square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(img1 * img2) * 2.0
    den1 = reducer(math_ops.square(img1) + math_ops.square(img2))
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    if return_index_map:
        return luminance * cs, cs
    return (reduction_ops.reduce_mean(luminance * cs, [-3, -2]),
            reduction_ops.reduce_mean(cs, [-3, -2]))


def _ssim_inputs(img1, img2, max_val, what):
    img1, img2 = _check_pair(img1, img2, what)
    max_val = cast_ops.cast(ops.convert_to_tensor(max_val), img1.dtype)
    max_val = convert_image_dtype(max_val, dtypes.float32)
    return (convert_image_dtype(img1, dtypes.float32), convert_image_dtype(img2, dtypes.float32),
            max_val)


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         return_index_map=False):
    """Structural similarity per image (mean over channels) with an 11x11 Gaussian window;
    ``[..., h', w']`` maps with ``return_index_map``."""
    with ops.name_scope(None, "SSIM", [img1, img2]):
        img1, img2, max_val = _ssim_inputs(img1, img2, max_val, "ssim")
        val, _ = _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2,
                                   return_index_map)
        return reduction_ops.reduce_mean(val, [-1])


def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11,
                    filter_sigma=1.5, k1=0.01, k2=0.03):
    """Multi-scale SSIM: contrast-structure terms at successively 2x-downsampled scales and
    SSIM at the last, combined by a weighted geometric mean (``power_factors``)."""
    with ops.name_scope(None, "MS-SSIM", [img1, img2]):
        img1, img2, max_val = _ssim_inputs(img1, img2, max_val, "ssim_multiscale")
        imgs = [img1, img2]
        head = array_ops.shape(img1)[:-3]
        mcs = []
        per_channel = None
        for k in range(len(power_factors)):
            with ops.name_scope(None, f"Scale{k}", imgs):
                if k > 0:
                    tail = array_ops.shape(imgs[0])[-3:]
                    flat = [array_ops.reshape(x, concat([[-1], tail], 0)) for x in imgs]
                    rem = tail[:2] % 2
                    pads = concat([[[0, 0]], stack([[0, 0], rem], 1), [[0, 0]]], 0)
                    flat = [pad_ops.pad(x, pads, mode="SYMMETRIC") for x in flat]
                    down = [pooling_ops.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
                            for x in flat]
                    imgs = [array_ops.reshape(x, concat([head, array_ops.shape(x)[1:]], 0))
                            for x in down]
                    shape = img1.get_shape()
                    if shape.ndims is not None:
                        for x in imgs:
                            x.set_shape(TensorShape([None] * shape.ndims))
                per_channel, cs = _ssim_per_channel(imgs[0], imgs[1], max_val, filter_size,
                                                    filter_sigma, k1, k2)
                mcs.append(math_ops.maximum(cs, 0.0))
        mcs.pop()
        stacked = stack(mcs + [math_ops.maximum(per_channel, 0.0)], axis=-1)
        weights = ops.convert_to_tensor(np.asarray(power_factors, np.float32))
        ms = reduction_ops.reduce_prod(math_ops.pow(stacked, weights), [-1])
        return reduction_ops.reduce_mean(ms, [-1])


# ------------------------------------------------------------------------------------------
# CropAndResize and its gradients
# ------------------------------------------------------------------------------------------


def _crop_geometry(box, n_out, n_in):
    """Sample positions along one axis for one box: ``in = v1 * (n - 1) + i * scale``."""
    v1, v2 = box
    if n_out > 1:
        scale = (v2 - v1) * (n_in - 1) / (n_out - 1)
        pos = v1 * (n_in - 1) + np.arange(n_out) * scale
    else:
        pos = np.array([0.5 * (v1 + v2) * (n_in - 1)])
    return pos


def _check_crop(image, boxes, box_ind, crop_size, op_type):
    if image.ndim != 4:
        raise _invalid(f"{op_type}: input image must be 4-D, got shape {_shape_str(image.shape)}")
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise _invalid(f"{op_type}: boxes must be 2-D [num_boxes, 4], got shape "
                       f"{_shape_str(boxes.shape)}")
    if box_ind.shape != (boxes.shape[0],):
        raise _invalid(f"{op_type}: box_index has incompatible shape {_shape_str(box_ind.shape)}"
                       f" (expected [{boxes.shape[0]}])")
    if len(box_ind) and (box_ind.min() < 0 or box_ind.max() >= image.shape[0]):
        raise _invalid(f"{op_type}: box_index has values outside [0, batch_size={image.shape[0]})"
                       f": {box_ind.tolist()}")
    cs = _np(crop_size)
    if cs.shape != (2,):
        raise _invalid(f"{op_type}: crop_size must be a vector of 2 elements, got shape "
                       f"{_shape_str(cs.shape)}")
    ch, cw = int(cs[0]), int(cs[1])
    if ch <= 0 or cw <= 0:
        raise _invalid(f"{op_type}: crop dimensions must be positive, got {ch}x{cw}")
    return ch, cw


def _bilinear_weights(pos, n):
    lo = np.floor(pos)
    hi = np.ceil(pos)
    frac = pos - lo
    return lo.astype(np.int64).clip(0, n - 1), hi.astype(np.int64).clip(0, n - 1), frac


def _crop_kernel(image, boxes, box_ind, crop_size, *, method, extrapolation_value):
    img = _np(image)
    bx = _np(boxes).astype(np.float32)
    bi = _np(box_ind).astype(np.int64)
    ch, cw = _check_crop(img, bx, bi, crop_size, "CropAndResize")
    _, h, w, d = img.shape
    out = np.full((len(bx), ch, cw, d), extrapolation_value, np.float32)
    method = method.decode() if isinstance(method, bytes) else method
    for b in range(len(bx)):
        ys = _crop_geometry(bx[b, [0, 2]].astype(np.float32), ch, h).astype(np.float32)
        xs = _crop_geometry(bx[b, [1, 3]].astype(np.float32), cw, w).astype(np.float32)
        vy = (ys >= 0) & (ys <= h - 1)
        vx = (xs >= 0) & (xs <= w - 1)
        src = img[bi[b]].astype(np.float32)
        if method == "bilinear":
            t, bo, fy = _bilinear_weights(ys, h)
            le, ri, fx = _bilinear_weights(xs, w)
            top = src[t][:, le] + (src[t][:, ri] - src[t][:, le]) * fx[None, :, None]
            bot = src[bo][:, le] + (src[bo][:, ri] - src[bo][:, le]) * fx[None, :, None]
            val = top + (bot - top) * fy[:, None, None]
        else:
            ry = np.clip(_round_half_away(ys), 0, h - 1)
            rx = np.clip(_round_half_away(xs), 0, w - 1)
            val = src[ry][:, rx]
        mask = vy[:, None] & vx[None, :]
        out[b] = np.where(mask[..., None], val, np.float32(extrapolation_value))
    return out


def _round_half_away(v):
    return (np.sign(v) * np.floor(np.abs(v) + 0.5)).astype(np.int64)


def _crop_grad_image_kernel(grads, boxes, box_ind, image_size, *, T, method):
    g = _np(grads).astype(np.float64)
    bx = _np(boxes).astype(np.float32)
    bi = _np(box_ind).astype(np.int64)
    size = [int(v) for v in _np(image_size)]
    if len(size) != 4 or min(size) <= 0:
        raise _invalid(f"CropAndResizeGradImage: image_size must be 4 positive values, got "
                       f"{size}")
    b_, h, w, d = size
    if g.ndim != 4 or g.shape[0] != len(bx) or g.shape[3] != d:
        raise _invalid(f"CropAndResizeGradImage: grads has shape {_shape_str(g.shape)}, "
                       f"incompatible with {len(bx)} boxes and depth {d}")
    if len(bi) and (bi.min() < 0 or bi.max() >= b_):
        raise _invalid("CropAndResizeGradImage: box_index has values outside [0, batch_size)")
    _, ch, cw, _ = g.shape
    out = np.zeros(size)
    method = method.decode() if isinstance(method, bytes) else method
    for b in range(len(bx)):
        ys = _crop_geometry(bx[b, [0, 2]], ch, h).astype(np.float32)
        xs = _crop_geometry(bx[b, [1, 3]], cw, w).astype(np.float32)
        iy = np.nonzero((ys >= 0) & (ys <= h - 1))[0]
        ix = np.nonzero((xs >= 0) & (xs <= w - 1))[0]
        if not len(iy) or not len(ix):
            continue
        gb = g[b][np.ix_(iy, ix)]  # [ny, nx, d]
        if method == "bilinear":
            t, bo, fy = _bilinear_weights(ys[iy], h)
            le, ri, fx = _bilinear_weights(xs[ix], w)
            fy, fx = fy[:, None, None], fx[None, :, None]
            tt, bb = t[:, None] + 0 * le[None, :], bo[:, None] + 0 * le[None, :]
            ll, rr = le[None, :] + 0 * t[:, None], ri[None, :] + 0 * t[:, None]
            for yy, xx, wgt in ((tt, ll, (1 - fy) * (1 - fx)), (tt, rr, (1 - fy) * fx),
                                (bb, ll, fy * (1 - fx)), (bb, rr, fy * fx)):
                np.add.at(out[bi[b]], (yy, xx), gb * wgt)
        else:
            ry = np.clip(_round_half_away(ys[iy]), 0, h - 1)
            rx = np.clip(_round_half_away(xs[ix]), 0, w - 1)
            np.add.at(out[bi[b]], (ry[:, None] + 0 * rx[None, :], rx[None, :] + 0 * ry[:, None]),
                      gb)
    return out.astype(T.as_numpy_dtype)


def _crop_grad_boxes_kernel(grads, image, boxes, box_ind, *, method):
    g = _np(grads).astype(np.float64)
    img = _np(image).astype(np.float64)
    bx = _np(boxes).astype(np.float32)
    bi = _np(box_ind).astype(np.int64)
    if g.ndim != 4 or g.shape[0] != len(bx):
        raise _invalid(f"CropAndResizeGradBoxes: grads has shape {_shape_str(g.shape)}, "
                       f"incompatible with {len(bx)} boxes")
    ch, cw = _check_crop(img, bx, bi, np.array(g.shape[1:3]), "CropAndResizeGradBoxes")
    _, h, w, _ = img.shape
    out = np.zeros((len(bx), 4))
    hr = (h - 1) / (ch - 1) if ch > 1 else 0.0
    wr = (w - 1) / (cw - 1) if cw > 1 else 0.0
    for b in range(len(bx)):
        ys = _crop_geometry(bx[b, [0, 2]], ch, h).astype(np.float32)
        xs = _crop_geometry(bx[b, [1, 3]], cw, w).astype(np.float32)
        iy = np.nonzero((ys >= 0) & (ys <= h - 1))[0]
        ix = np.nonzero((xs >= 0) & (xs <= w - 1))[0]
        if not len(iy) or not len(ix):
            continue
        src = img[bi[b]]
        t, bo, fy = _bilinear_weights(ys[iy], h)
        le, ri, fx = _bilinear_weights(xs[ix], w)
        tl, tr = src[t][:, le], src[t][:, ri]
        bl, br = src[bo][:, le], src[bo][:, ri]
        fy3, fx3 = fy[:, None, None], fx[None, :, None]
        gy = ((1 - fx3) * (bl - tl) + fx3 * (br - tr)) * g[b][np.ix_(iy, ix)]
        gx = ((1 - fy3) * (tr - tl) + fy3 * (br - bl)) * g[b][np.ix_(iy, ix)]
        gy_rows = gy.sum(axis=(1, 2))  # per sampled row
        gx_cols = gx.sum(axis=(0, 2))
        if ch > 1:
            out[b, 0] += (gy_rows * ((h - 1) - iy * hr)).sum()
            out[b, 2] += (gy_rows * (iy * hr)).sum()
        else:
            out[b, 0] += gy_rows.sum() * 0.5 * (h - 1)
            out[b, 2] += gy_rows.sum() * 0.5 * (h - 1)
        if cw > 1:
            out[b, 1] += (gx_cols * ((w - 1) - ix * wr)).sum()
            out[b, 3] += (gx_cols * (ix * wr)).sum()
        else:
            out[b, 1] += gx_cols.sum() * 0.5 * (w - 1)
            out[b, 3] += gx_cols.sum() * 0.5 * (w - 1)
    return out.astype(np.float32)


def _crop_shape(op):
    img, boxes, ind, _size = (t._shape for t in op._inputs)
    if img.ndims is not None and img.ndims != 4:
        raise ValueError(f"CropAndResize: image must be 4-D, got shape {_shape_str(img)}")
    if boxes.ndims is not None and (boxes.ndims != 2 or boxes.dims[1].value not in (None, 4)):
        raise ValueError(f"CropAndResize: boxes must be [num_boxes, 4], got shape "
                         f"{_shape_str(boxes)}")
    if ind.ndims is not None and ind.ndims != 1:
        raise ValueError(f"CropAndResize: box_ind must be 1-D, got shape {_shape_str(ind)}")
    n = boxes.dims[0].value if boxes.ndims else (ind.dims[0].value if ind.ndims else None)
    cs = ops.constant_value(op._inputs[3])
    ch = cw = None
    if cs is not None:
        cs = np.reshape(cs, -1)
        if cs.shape != (2,):
            raise ValueError(f"CropAndResize: crop_size must have 2 elements, got {cs.tolist()}")
        ch, cw = int(cs[0]), int(cs[1])
    depth = img.dims[3].value if img.ndims else None
    return [TensorShape([n, ch, cw, depth])]


def _crop_grad(op, grad):
    from tideflow.ops.gradients import dense

    g = dense(grad)
    image, boxes, box_ind, _ = op._inputs
    method = op._attrs["method"]
    grad_image = None
    if image.dtype.base_dtype in (dtypes.float16, dtypes.float32, dtypes.float64):
        grad_image = ops.apply_op("CropAndResizeGradImage",
                                  [g, boxes, box_ind, array_ops.shape(image)],
                                  {"T": image.dtype.base_dtype, "method": method})._outputs[0]
    # nearest sampling has no well-defined box gradient; TF uses the bilinear one
    grad_boxes = ops.apply_op("CropAndResizeGradBoxes", [g, image, boxes, box_ind])._outputs[0]
    return [grad_image, grad_boxes, None, None]


op_registry.declare(
    "CropAndResize",
    inputs=["image: T", "boxes: float", "box_ind: int32", "crop_size: int32"],
    outputs=["crops: float"],
    attrs=["T: {uint8, uint16, int8, int16, int32, int64, half, float, double}",
           "method: {'bilinear', 'nearest'} = 'bilinear'", "extrapolation_value: float = 0"],
    shape=_crop_shape,
    kernel=_crop_kernel,
    grad=_crop_grad,
)
op_registry.declare(
    "CropAndResizeGradImage",
    inputs=["grads: float", "boxes: float", "box_ind: int32", "image_size: int32"],
    outputs=["output: T"],
    attrs=["T: {float, half, double}", "method: {'bilinear', 'nearest'} = 'bilinear'"],
    shape=lambda op: [_size_shape(op._inputs[3], 4)],
    kernel=_crop_grad_image_kernel,
    differentiable=False,
)
op_registry.declare(
    "CropAndResizeGradBoxes",
    inputs=["grads: float", "image: T", "boxes: float", "box_ind: int32"],
    outputs=["output: float"],
    attrs=["T: {uint8, uint16, int8, int16, int32, int64, half, float, double}",
           "method: {'bilinear'} = 'bilinear'"],
    shape=lambda op: [op._inputs[2]._shape if op._inputs[2]._shape.ndims is not None
                      else TensorShape([None, 4])],
    kernel=_crop_grad_boxes_kernel,
    differentiable=False,
)


def _size_shape(t, rank):
    v = ops.constant_value(t)
    if v is None:
        return TensorShape([None] * rank)
    return TensorShape([int(x) for x in np.reshape(v, -1)])


def crop_and_resize(image, boxes, box_ind=None, crop_size=None, method="bilinear",
                    extrapolation_value=0, name=None, box_indices=None):
    """Crops ``boxes`` (normalized ``[y1, x1, y2, x2]``) of images ``box_ind`` and resizes each
    to ``crop_size``, bilinearly or nearest; samples outside the image get
    ``extrapolation_value``. Returns float32 ``[num_boxes, crop_h, crop_w, depth]``."""
    box_ind = conv_ops._alias(box_ind, box_indices, "box_ind", "box_indices")
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"method must be 'bilinear' or 'nearest', got {method!r}")
    with ops.name_scope(name, "CropAndResize", [image, boxes, box_ind]):
        boxes = ops.convert_to_tensor(boxes, dtypes.float32, name="boxes")
        box_ind = ops.convert_to_tensor(box_ind, dtypes.int32, name="box_ind")
        crop_size = ops.convert_to_tensor(crop_size, dtypes.int32, name="crop_size")
        return ops.apply_op("CropAndResize", [image, boxes, box_ind, crop_size], {
            "method": method, "extrapolation_value": float(extrapolation_value)})._outputs[0]


# ------------------------------------------------------------------------------------------
# non-max suppression: V4 (padded), V5 (scores, soft-NMS), with overlaps, combined
# ------------------------------------------------------------------------------------------


def _iou_matrix(boxes):
    b = boxes.astype(np.float64)
    y0, y1 = np.minimum(b[:, 0], b[:, 2]), np.maximum(b[:, 0], b[:, 2])
    x0, x1 = np.minimum(b[:, 1], b[:, 3]), np.maximum(b[:, 1], b[:, 3])
    area = (y1 - y0) * (x1 - x0)
    ih = np.maximum(np.minimum(y1[:, None], y1[None]) - np.maximum(y0[:, None], y0[None]), 0)
    iw = np.maximum(np.minimum(x1[:, None], x1[None]) - np.maximum(x0[:, None], x0[None]), 0)
    inter = ih * iw
    with np.errstate(invalid="ignore", divide="ignore"):
        iou = inter / (area[:, None] + area[None] - inter)
    return np.where((area[:, None] <= 0) | (area[None] <= 0), 0.0, iou)


def _greedy_nms(sim, scores, max_out, threshold, score_threshold, soft_sigma=0.0):
    """TF's candidate-queue NMS over a similarity matrix; returns (indices, scores)."""
    is_soft = soft_sigma > 0
    scale = -0.5 / soft_sigma if is_soft else 0.0
    heap = [(-float(s), i, float(s), 0) for i, s in enumerate(scores) if s > score_threshold]
    heapq.heapify(heap)
    selected, sel_scores = [], []
    while len(selected) < max_out and heap:
        _, i, score, begin = heapq.heappop(heap)
        original = score
        hard = False
        for j in range(len(selected) - 1, begin - 1, -1):
            s = sim[i, selected[j]]
            if not is_soft and s > threshold:
                hard = True
                break
            score *= float(np.exp(scale * s * s)) if (is_soft or s <= threshold) else 0.0
            if score <= score_threshold:
                break
        begin = len(selected)
        if hard:
            continue
        if score == original:
            selected.append(i)
            sel_scores.append(score)
        elif score > score_threshold:
            heapq.heappush(heap, (-score, i, score, begin))
    return selected, sel_scores


def _nms_inputs(boxes, scores, max_output_size, op_type):
    b = _np(boxes)
    s = _np(scores)
    if b.ndim != 2 or b.shape[1] != 4:
        raise _invalid(f"{op_type}: boxes must be a rank 2 tensor of shape [num_boxes, 4], got "
                       f"{_shape_str(b.shape)}")
    if s.shape != (b.shape[0],):
        raise _invalid(f"{op_type}: scores has incompatible shape {_shape_str(s.shape)}")
    m = _np(max_output_size)
    if m.ndim:
        raise _invalid(f"{op_type}: max_output_size must be 0-D, got shape "
                       f"{_shape_str(m.shape)}")
    if int(m) < 0:
        raise _invalid(f"{op_type}: max_output_size must be non-negative")
    return b, s, int(m)


def _check_iou(t, op_type):
    t = float(_np(t))
    if not 0 <= t <= 1:
        raise _invalid(f"{op_type}: iou_threshold must be in [0, 1]")
    return t


def _pad_to(values, n, dtype):
    out = np.zeros(n, dtype)
    out[:len(values)] = values
    return out


def _nms_v4_kernel(boxes, scores, max_output_size, iou_threshold, score_threshold, *,
                   pad_to_max_output_size):
    b, s, m = _nms_inputs(boxes, scores, max_output_size, "NonMaxSuppressionV4")
    t = _check_iou(iou_threshold, "NonMaxSuppressionV4")
    st = float(np.float32(_np(score_threshold)))
    sel, _ = _greedy_nms(_iou_matrix(b), s.astype(np.float32), m, t, st)
    n = len(sel)
    idx = _pad_to(sel, m, np.int32) if pad_to_max_output_size else np.array(sel, np.int32)
    return idx, np.int32(n)


def _nms_v5_kernel(boxes, scores, max_output_size, iou_threshold, score_threshold,
                   soft_nms_sigma, *, pad_to_max_output_size):
    b, s, m = _nms_inputs(boxes, scores, max_output_size, "NonMaxSuppressionV5")
    t = _check_iou(iou_threshold, "NonMaxSuppressionV5")
    sigma = float(_np(soft_nms_sigma))
    if sigma < 0:
        raise _invalid("NonMaxSuppressionV5: soft_nms_sigma must be non-negative")
    st = float(np.asarray(_np(score_threshold), s.dtype))
    sel, sc = _greedy_nms(_iou_matrix(b), s.astype(np.float64), m, t, st, sigma)
    n = len(sel)
    if pad_to_max_output_size:
        return _pad_to(sel, m, np.int32), _pad_to(sc, m, s.dtype), np.int32(n)
    return np.array(sel, np.int32), np.array(sc, s.dtype), np.int32(n)


def _nms_overlaps_kernel(overlaps, scores, max_output_size, overlap_threshold,
                         score_threshold):
    o = _np(overlaps)
    s = _np(scores)
    if o.ndim != 2 or o.shape[0] != o.shape[1]:
        raise _invalid(f"NonMaxSuppressionWithOverlaps: overlaps must be a square matrix, got "
                       f"{_shape_str(o.shape)}")
    if s.shape != (o.shape[0],):
        raise _invalid(f"NonMaxSuppressionWithOverlaps: scores has incompatible shape "
                       f"{_shape_str(s.shape)}")
    m = int(_np(max_output_size))
    if m < 0:
        raise _invalid("NonMaxSuppressionWithOverlaps: max_output_size must be non-negative")
    sel, _ = _greedy_nms(o.astype(np.float32), s.astype(np.float32), m,
                         float(np.float32(_np(overlap_threshold))),
                         float(np.float32(_np(score_threshold))))
    return np.array(sel, np.int32)


def _nms_shape(n_outputs, padded_scores=False):
    def shape(op):
        for i, r in ((0, 2), (1, 1), (2, 0)):
            s = op._inputs[i]._shape
            if s.ndims is not None and s.ndims != r:
                raise ValueError(f"{op.type}: input {i} must be rank {r}, got shape "
                                 f"{_shape_str(s)}")
        n = None
        if op._attrs.get("pad_to_max_output_size"):
            v = ops.constant_value(op._inputs[2])
            n = None if v is None else int(v)
        outs = [TensorShape([n])]
        if padded_scores:
            outs.append(TensorShape([n]))
        if n_outputs > len(outs):
            outs.append(TensorShape([]))
        return outs

    return shape


op_registry.declare(
    "NonMaxSuppressionV4",
    inputs=["boxes: T", "scores: T", "max_output_size: int32", "iou_threshold: T_threshold",
            "score_threshold: T_threshold"],
    outputs=["selected_indices: int32", "valid_outputs: int32"],
    attrs=["T: {half, float} = DT_FLOAT", "T_threshold: {half, float} = DT_FLOAT",
           "pad_to_max_output_size: bool = false"],
    shape=_nms_shape(2), kernel=_nms_v4_kernel, differentiable=False)
op_registry.declare(
    "NonMaxSuppressionV5",
    inputs=["boxes: T", "scores: T", "max_output_size: int32", "iou_threshold: T",
            "score_threshold: T", "soft_nms_sigma: T"],
    outputs=["selected_indices: int32", "selected_scores: T", "valid_outputs: int32"],
    attrs=["T: {half, float} = DT_FLOAT", "pad_to_max_output_size: bool = false"],
    shape=_nms_shape(3, True), kernel=_nms_v5_kernel, differentiable=False)
op_registry.declare(
    "NonMaxSuppressionWithOverlaps",
    inputs=["overlaps: float", "scores: float", "max_output_size: int32",
            "overlap_threshold: float", "score_threshold: float"],
    outputs=["selected_indices: int32"],
    shape=_nms_shape(1), kernel=_nms_overlaps_kernel, differentiable=False)


def _combined_kernel(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold,
                     score_threshold, *, pad_per_class, clip_boxes):
    bx = _np(boxes).astype(np.float32)
    sc = _np(scores).astype(np.float32)
    if bx.ndim != 4 or bx.shape[3] != 4:
        raise _invalid(f"CombinedNonMaxSuppression: boxes must be 4-D [batch, num_boxes, q, 4],"
                       f" got {_shape_str(bx.shape)}")
    if sc.ndim != 3 or sc.shape[:2] != bx.shape[:2]:
        raise _invalid(f"CombinedNonMaxSuppression: scores must be [batch, num_boxes, "
                       f"num_classes] matching boxes, got {_shape_str(sc.shape)}")
    batch, _, q, _ = bx.shape
    num_classes = sc.shape[2]
    if q not in (1, num_classes):
        raise _invalid(f"CombinedNonMaxSuppression: third dimension of boxes must be either 1 "
                       f"or num_classes ({num_classes}), got {q}")
    per_class = int(_np(max_output_size_per_class))
    total = int(_np(max_total_size))
    if per_class <= 0 or total <= 0:
        raise _invalid("CombinedNonMaxSuppression: max_output_size_per_class and "
                       "max_total_size must be positive")
    iou_t = _check_iou(iou_threshold, "CombinedNonMaxSuppression")
    st = float(np.float32(_np(score_threshold)))
    size = min(total, per_class * num_classes) if pad_per_class else total
    out_boxes = np.zeros((batch, size, 4), np.float32)
    out_scores = np.zeros((batch, size), np.float32)
    out_classes = np.zeros((batch, size), np.float32)
    valid = np.zeros(batch, np.int32)
    for b in range(batch):
        found = []
        for c in range(num_classes):
            cb = bx[b, :, 0 if q == 1 else c]
            sel, ss = _greedy_nms(_iou_matrix(cb), sc[b, :, c], per_class, iou_t, st)
            found += [(s, c, cb[i]) for i, s in zip(sel, ss)]
        found.sort(key=lambda r: -r[0])
        found = found[:size]
        valid[b] = len(found)
        for k, (s, c, box) in enumerate(found):
            out_boxes[b, k] = np.clip(box, 0, 1) if clip_boxes else box
            out_scores[b, k] = s
            out_classes[b, k] = c
    return out_boxes, out_scores, out_classes, valid


def _combined_shape(op):
    b = op._inputs[0]._shape
    batch = b.dims[0].value if b.ndims else None
    size = None
    total = ops.constant_value(op._inputs[3])
    per = ops.constant_value(op._inputs[2])
    s = op._inputs[1]._shape
    if total is not None:
        size = int(total)
        if op._attrs["pad_per_class"]:
            nc = s.dims[2].value if s.ndims == 3 else None
            size = None if per is None or nc is None else min(size, int(per) * nc)
    return [TensorShape([batch, size, 4]), TensorShape([batch, size]),
            TensorShape([batch, size]), TensorShape([batch])]


op_registry.declare(
    "CombinedNonMaxSuppression",
    inputs=["boxes: float", "scores: float", "max_output_size_per_class: int32",
            "max_total_size: int32", "iou_threshold: float", "score_threshold: float"],
    outputs=["nmsed_boxes: float", "nmsed_scores: float", "nmsed_classes: float",
             "valid_detections: int32"],
    attrs=["pad_per_class: bool = false", "clip_boxes: bool = true"],
    shape=_combined_shape, kernel=_combined_kernel, differentiable=False)


def _f32(x, name):
    return ops.convert_to_tensor(x, dtypes.float32, name=name)


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0,
                                    name=None):
    """Greedy (or, with ``soft_nms_sigma > 0``, Gaussian soft) NMS; returns the kept indices
    and their (possibly decayed) scores."""
    with ops.name_scope(name, "non_max_suppression_with_scores"):
        scores = ops.convert_to_tensor(scores, name="scores")
        dt = scores.dtype.base_dtype
        idx, sc, _ = ops.apply_op("NonMaxSuppressionV5", [
            ops.convert_to_tensor(boxes, dt, name="boxes"), scores, max_output_size,
            ops.convert_to_tensor(iou_threshold, dt, name="iou_threshold"),
            ops.convert_to_tensor(score_threshold, dt, name="score_threshold"),
            ops.convert_to_tensor(soft_nms_sigma, dt, name="soft_nms_sigma")],
            {"pad_to_max_output_size": False})._outputs
        return idx, sc


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5,
                               score_threshold=float("-inf"), pad_to_max_output_size=False,
                               name=None, sorted_input=False, canonicalized_coordinates=False,
                               tile_size=512):
    """Greedy NMS returning ``(selected_indices, valid_outputs)``; with
    ``pad_to_max_output_size`` the indices are zero-padded to ``max_output_size``."""
    del sorted_input, canonicalized_coordinates, tile_size
    with ops.name_scope(name, "non_max_suppression_padded"):
        b = ops.convert_to_tensor(boxes, name="boxes")
        if b.get_shape().ndims not in (None, 2):
            raise ValueError(f"non_max_suppression_padded: only unbatched boxes [num_boxes, 4] "
                             f"are supported, got shape {b.get_shape()}")
        idx, n = ops.apply_op("NonMaxSuppressionV4", [
            b, scores, max_output_size, _f32(iou_threshold, "iou_threshold"),
            _f32(score_threshold, "score_threshold")],
            {"pad_to_max_output_size": pad_to_max_output_size})._outputs
        return idx, n


def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None):
    """Greedy NMS driven by a precomputed ``[n, n]`` overlap matrix."""
    with ops.name_scope(name, "non_max_suppression_overlaps"):
        return ops.apply_op("NonMaxSuppressionWithOverlaps", [
            overlaps, scores, max_output_size, _f32(overlap_threshold, "overlap_threshold"),
            _f32(score_threshold, "score_threshold")])._outputs[0]


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size,
                                 iou_threshold=0.5, score_threshold=float("-inf"),
                                 pad_per_class=False, clip_boxes=True, name=None):
    """Per-class greedy NMS over a batch, merged across classes by score; returns
    ``(nmsed_boxes, nmsed_scores, nmsed_classes, valid_detections)``."""
    with ops.name_scope(name, "combined_non_max_suppression"):
        return tuple(ops.apply_op("CombinedNonMaxSuppression", [
            boxes, scores, max_output_size_per_class, max_total_size,
            _f32(iou_threshold, "iou_threshold"), _f32(score_threshold, "score_threshold")],
            {"pad_per_class": pad_per_class, "clip_boxes": clip_boxes})._outputs)


# ------------------------------------------------------------------------------------------
# JPEG quality
# ------------------------------------------------------------------------------------------


def _encode_jpeg_vq_kernel(images, quality):
    from tideflow.ops.image_codec_ops import _encode_jpeg_kernel

    q = _np(quality)
    if q.ndim:
        raise _invalid(f"EncodeJpegVariableQuality: quality must be a scalar, got shape "
                       f"{_shape_str(q.shape)}")
    return _encode_jpeg_kernel(images, format="", quality=int(q), progressive=False,
                               optimize_size=False, chroma_downsampling=True, density_unit="in",
                               x_density=300, y_density=300, xmp_metadata="")


op_registry.declare(
    "EncodeJpegVariableQuality",
    inputs=["images: uint8", "quality: int32"],
    outputs=["contents: string"],
    shape=lambda op: [TensorShape([])],
    kernel=_encode_jpeg_vq_kernel,
    differentiable=False,
)


def adjust_jpeg_quality(image, jpeg_quality, dct_method="", name=None):
    """The image after a JPEG round trip at ``jpeg_quality`` (0-100), in its own dtype."""
    from tideflow.ops import image_codec_ops

    with ops.name_scope(name, "adjust_jpeg_quality", [image]):
        image = ops.convert_to_tensor(image, name="image")
        orig = image.dtype.base_dtype
        q = ops.convert_to_tensor(jpeg_quality, dtypes.int32, name="jpeg_quality")
        u8 = convert_image_dtype(image, dtypes.uint8, saturate=True)
        encoded = ops.apply_op("EncodeJpegVariableQuality", [u8, q])._outputs[0]
        decoded = image_codec_ops.decode_jpeg(encoded, channels=0, dct_method=dct_method)
        decoded.set_shape(image.get_shape())
        return convert_image_dtype(decoded, orig, saturate=True)


def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None):
    """:func:`adjust_jpeg_quality` at a quality drawn uniformly from [min, max)."""
    from tideflow.ops import random_ops

    if not (0 <= min_jpeg_quality <= 100 and 0 <= max_jpeg_quality <= 100):
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if min_jpeg_quality >= max_jpeg_quality:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")
    with ops.name_scope(None, "random_jpeg_quality", [image]):
        q = random_ops.random_uniform([], min_jpeg_quality, max_jpeg_quality, dtypes.int32,
                                      seed=seed)
        return adjust_jpeg_quality(image, q)


def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="",
                         name=None):
    """Decodes a JPEG and crops it to ``crop_window = [y, x, height, width]``."""
    from tideflow.ops import image_codec_ops, slicing_ops

    with ops.name_scope(name, "decode_and_crop_jpeg", [contents, crop_window]):
        image = image_codec_ops.decode_jpeg(
            contents, channels, ratio, fancy_upscaling, try_recover_truncated,
            acceptable_fraction, dct_method)
        w = ops.convert_to_tensor(crop_window, dtypes.int32, name="crop_window")
        begin = concat([w[:2], [0]], 0)
        size = concat([w[2:], [-1]], 0)
        out = slicing_ops.slice(image, begin, size)
        out.set_shape([None, None, channels or None])
        return out


def extract_patches(images, sizes, strides, rates, padding, name=None):
    """Patches of ``sizes`` from 4-D ``images`` (TF 2's name and argument names for
    ``extract_image_patches``)."""
    from tideflow.ops.patches_ops import extract_image_patches

    return extract_image_patches(images, sizes, strides, rates, padding, name=name)


# ------------------------------------------------------------------------------------------
# extract_glimpse
# ------------------------------------------------------------------------------------------


def _glimpse_start(off, dim, size, centered, normalized):
    # TF's placement rules: only a normalized, centered offset names the glimpse's centre
    if normalized and centered:
        v = off * dim / 2.0 + dim / 2.0 - size / 2.0
    elif normalized:
        v = off * dim
    elif centered:
        v = off + dim / 2.0
    else:
        v = off
    return int(np.trunc(np.float32(v)))


def _glimpse_kernel(input, size, offsets, *, centered, normalized, uniform_noise, noise):
    x = _np(input)
    sz = _np(size)
    off = _np(offsets)
    if x.ndim != 4:
        raise _invalid(f"ExtractGlimpse: input must be 4-dimensional, got shape "
                       f"{_shape_str(x.shape)}")
    if sz.shape != (2,):
        raise _invalid(f"ExtractGlimpse: size must be a vector of 2 elements, got shape "
                       f"{_shape_str(sz.shape)}")
    if off.shape != (x.shape[0], 2):
        raise _invalid(f"ExtractGlimpse: offsets must be [batch_size, 2] = [{x.shape[0]}, 2], "
                       f"got {_shape_str(off.shape)}")
    gh, gw = int(sz[0]), int(sz[1])
    if gh <= 0 or gw <= 0:
        raise _invalid(f"ExtractGlimpse: glimpse size must be positive, got {gh}x{gw}")
    noise = noise.decode() if isinstance(noise, bytes) else noise
    if noise == "":
        noise = "uniform" if uniform_noise else "gaussian"
    if noise not in ("uniform", "gaussian", "zero"):
        raise _invalid(f"ExtractGlimpse: noise must be 'uniform', 'gaussian' or 'zero', got "
                       f"{noise!r}")
    b, h, w, d = x.shape
    rng = np.random.default_rng()
    out = np.zeros((b, gh, gw, d), np.float32)
    for i in range(b):
        img = x[i].astype(np.float32)
        if noise == "uniform":
            fill = rng.uniform(img.min((0, 1)), img.max((0, 1)), (gh, gw, d))
        elif noise == "gaussian":
            fill = rng.normal(img.mean((0, 1)), img.std((0, 1)), (gh, gw, d))
        else:
            fill = np.zeros((gh, gw, d))
        y0 = _glimpse_start(float(off[i, 0]), h, gh, centered, normalized)
        x0 = _glimpse_start(float(off[i, 1]), w, gw, centered, normalized)
        ys, xs = np.arange(y0, y0 + gh), np.arange(x0, x0 + gw)
        inside = ((ys >= 0) & (ys < h))[:, None] & ((xs >= 0) & (xs < w))[None, :]
        vals = img[np.clip(ys, 0, h - 1)][:, np.clip(xs, 0, w - 1)]
        out[i] = np.where(inside[..., None], vals, fill)
    return out


def _glimpse_shape(op):
    x = op._inputs[0]._shape
    if x.ndims is not None and x.ndims != 4:
        raise ValueError(f"{op.type}: input must be 4-D, got shape {_shape_str(x)}")
    s = ops.constant_value(op._inputs[1])
    gh = gw = None
    if s is not None:
        s = np.reshape(s, -1)
        if s.shape != (2,):
            raise ValueError(f"{op.type}: size must have 2 elements, got {s.tolist()}")
        gh, gw = int(s[0]), int(s[1])
    dims = x.as_list() if x.ndims is not None else [None] * 4
    return [TensorShape([dims[0], gh, gw, dims[3]])]


_GLIMPSE_ATTRS = ["centered: bool = true", "normalized: bool = true",
                  "uniform_noise: bool = true"]
op_registry.declare(
    "ExtractGlimpse", inputs=["input: float", "size: int32", "offsets: float"],
    outputs=["glimpse: float"], attrs=_GLIMPSE_ATTRS + ["noise: string = 'uniform'"],
    shape=_glimpse_shape, kernel=_glimpse_kernel, differentiable=False, stateful=True)
op_registry.declare(
    "ExtractGlimpseV2", inputs=["input: float", "size: int32", "offsets: float"],
    outputs=["glimpse: float"], attrs=_GLIMPSE_ATTRS + ["noise: string = 'uniform'"],
    shape=_glimpse_shape, kernel=_glimpse_kernel, differentiable=False, stateful=True)


def extract_glimpse(input, size, offsets, centered=True, normalized=True, uniform_noise=True,
                    name=None, noise=None):
    """Glimpses of ``size`` from each image at ``offsets [batch, 2]`` (y, x); pixels outside
    the image are filled with uniform (or Gaussian) noise from the image's range, or zeros
    with ``noise="zero"``."""
    if noise is None:
        noise = "uniform" if uniform_noise else "gaussian"
    if noise not in ("uniform", "gaussian", "zero"):
        raise ValueError(f"noise must be 'uniform', 'gaussian' or 'zero', got {noise!r}")
    with ops.name_scope(name, "extract_glimpse"):
        return ops.apply_op("ExtractGlimpseV2", [
            ops.convert_to_tensor(input, dtypes.float32, name="input"),
            ops.convert_to_tensor(size, dtypes.int32, name="size"),
            ops.convert_to_tensor(offsets, dtypes.float32, name="offsets")], {
            "centered": centered, "normalized": normalized,
            "uniform_noise": noise == "uniform", "noise": noise})._outputs[0]


# ------------------------------------------------------------------------------------------
# WebP decoding (through Pillow, as the other codecs)
# ------------------------------------------------------------------------------------------


def _decode_webp_kernel(contents, *, channels, dtype):
    import io

    from tideflow.ops.image_codec_ops import _contents, _pil

    data = _contents(contents)
    image_mod = _pil()
    if data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        raise _invalid("DecodeWebP: contents are not a WebP image")
    try:
        im = image_mod.open(io.BytesIO(data))
        frames = []
        n = getattr(im, "n_frames", 1)
        has_alpha = n > 1 or im.mode in ("RGBA", "LA") or "transparency" in im.info
        mode = "RGBA" if has_alpha else "RGB"
        for k in range(n):
            im.seek(k)
            frames.append(np.asarray(im.convert(mode), np.uint8))
    except (OSError, ValueError) as e:
        raise _invalid(f"DecodeWebP: cannot decode the WebP image: {e}") from None
    have = 4 if has_alpha else 3
    if channels not in (0, have):
        raise _invalid(f"DecodeWebP: Number of channels requested does not match input "
                       f"(requested {channels}, the image has {have})")
    return np.stack(frames).astype(np.uint8)


op_registry.declare(
    "DecodeWebP",
    inputs=["contents: string"],
    outputs=["image: dtype"],
    attrs=["channels: int = 0", "dtype: {uint8} = DT_UINT8"],
    shape=lambda op: [TensorShape([None, None, None, op._attrs["channels"] or None])],
    kernel=_decode_webp_kernel,
    differentiable=False,
)


def decode_webp(contents, channels=0, dtype=dtypes.uint8, name=None):
    """Decodes a WebP image (or animation) into uint8 ``[frames, height, width, channels]``;
    ``channels`` 0 keeps the file's (3, or 4 with alpha and for animations)."""
    if channels not in (0, 3, 4):
        raise ValueError(f"channels must be 0, 3 or 4, got {channels}")
    return ops.apply_op("DecodeWebP", [contents], {"channels": channels,
                                                   "dtype": dtypes.as_dtype(dtype)},
                        name=name)._outputs[0]


def transpose(image, name=None):
    """Swaps the height and width of an image or a batch of images."""
    from tideflow.ops.image_ops import transpose_image

    with ops.name_scope(name, "transpose", [image]):
        return transpose_image(image)
