"""Image colour spaces (YUV, YIQ), Sobel edges and image gradients, PSNR and (multi-scale)
SSIM, composed from existing ops."""


import numpy as np

from tideflow.framework import dtypes, ops
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
    if not images.dtype.is_floating:
        # TF converts the float kernel to the images' dtype, which fails for integers
        raise TypeError(f"Expected {images.dtype.base_dtype.name}, but got "
                        f"{np.asarray(kernel).flat[0]} of type 'float'.")
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


