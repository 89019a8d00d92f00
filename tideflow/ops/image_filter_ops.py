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
    if s.ndims == 0:
        raise ValueError(f"{what}: the last dimension of images must be 3 (channels), got shape "
                         f"{s}")
    if not images.dtype.is_floating:
        # TF converts the float kernel to the images' dtype, which fails for integers at the
        # kernel's first float entry (its ints convert)
        first = next(v for row in kernel for v in row if isinstance(v, float))
        raise TypeError(f"Expected {images.dtype.base_dtype.name}, got {first!r} of type "
                        "'float' instead.")
    # (a last dimension other than 3 fails in the tensordot's MatMul, as in TF)
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
    from tideflow.ops import fill_ops

    image = ops.convert_to_tensor(image, name="image")
    if image.get_shape().ndims != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not "
                         f"{image.get_shape()}.")
    # TF 1.x's ops, in its order (so later ops number as in TF)
    image_shape = array_ops.shape(image)
    batch, height, width, depth = array_ops.unstack(image_shape)
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    dy = concat([dy, fill_ops.zeros(stack([batch, 1, width, depth]), image.dtype)], 1)
    dy = array_ops.reshape(dy, image_shape)
    dx = concat([dx, fill_ops.zeros(stack([batch, height, 1, depth]), image.dtype)], 2)
    dx = array_ops.reshape(dx, image_shape)
    return dy, dx


def sobel_edges(image):
    """Sobel filter responses ``[batch, h, w, d, 2]`` (dy, dx) of a 4-D image, with the image
    reflected at its borders."""
    image = ops.convert_to_tensor(image, name="image")
    s = image.get_shape()
    if s.ndims is not None and s.ndims != 4:
        raise ValueError(f"sobel_edges: image must be 4-D [batch, h, w, d], got shape {s}")
    image_shape = array_ops.shape(image)
    ky = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], np.float64)
    kernels = np.stack([ky, ky.T], -1)  # [3, 3, 2]
    kernels = kernels[:, :, None, :].astype(image.dtype.as_numpy_dtype)  # [3, 3, 1, 2]
    k = pad_ops.tile(ops.convert_to_tensor(kernels), [1, 1, image_shape[-1], 1],
                     name="sobel_filters")
    padded = pad_ops.pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    out = conv_ops.depthwise_conv2d(padded, k, [1, 1, 1, 1], "VALID")
    shape = concat([image_shape, [2]], 0)
    out = array_ops.reshape(out, shape)
    out.set_shape(s.concatenate([2]) if s.ndims is not None else TensorShape([None] * 5))
    return out


# ------------------------------------------------------------------------------------------
# PSNR and SSIM
# ------------------------------------------------------------------------------------------


def _compatible_shapes(img1, img2):
    """TF 1.x's _verify_compatible_image_shapes: static checks, then the dynamic shapes and
    the two Assert ops that check them when the step runs."""
    from tideflow.ops import logging_ops

    shape1 = img1.get_shape().with_rank_at_least(3)
    shape2 = img2.get_shape().with_rank_at_least(3)
    shape1[-3:].assert_is_compatible_with(shape2[-3:])
    if shape1.ndims is not None and shape2.ndims is not None:
        for d1, d2 in zip(reversed(shape1.dims[:-3]), reversed(shape2.dims[:-3])):
            if not (d1 == 1 or d2 == 1 or d1.is_compatible_with(d2)):
                raise ValueError(f"Two images are not compatible: {shape1} and {shape2}")
    shape1, shape2 = array_ops.shape_n([img1, img2])
    checks = [
        logging_ops.Assert(math_ops.greater_equal(array_ops.size(shape1), 3),
                           [shape1, shape2], summarize=10),
        logging_ops.Assert(
            reduction_ops.reduce_all(math_ops.equal(shape1[-3:], shape2[-3:])),
            [shape1, shape2], summarize=10)]
    return shape1, shape2, checks


def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio (dB) between images, per image: ``10 log10(max_val^2 / MSE)``
    over the last three dimensions."""

    with ops.name_scope(name, "PSNR", [a, b]):
        a = ops.convert_to_tensor(a, name="a")
        b = ops.convert_to_tensor(b, name="b")
        max_val = cast_ops.cast(max_val, a.dtype)
        max_val = convert_image_dtype(max_val, dtypes.float32)
        a = convert_image_dtype(a, dtypes.float32)
        b = convert_image_dtype(b, dtypes.float32)
        mse = reduction_ops.reduce_mean(math_ops.squared_difference(a, b), [-3, -2, -1])
        val = math_ops.subtract(20 * unary_ops.log(max_val) / unary_ops.log(10.0),
                                np.float32(10 / np.log(10)) * unary_ops.log(mse), name="psnr")
        _, _, checks = _compatible_shapes(a, b)
        with ops.control_dependencies(checks):
            return array_ops.identity(val)


_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def _gauss_kernel(size, sigma):
    """The [size, size, 1, 1] Gaussian window, computed by ops as TF 1.x does (a softmax of
    the squared distances), so its values and op count are TF's."""
    from tideflow.ops import nn_impl, range_ops

    size = ops.convert_to_tensor(size, dtypes.int32)
    sigma = ops.convert_to_tensor(sigma)
    coords = cast_ops.cast(range_ops.range(size), sigma.dtype)
    coords -= cast_ops.cast(size - 1, sigma.dtype) / 2.0
    g = math_ops.square(coords)
    g *= -0.5 / math_ops.square(sigma)
    g = array_ops.reshape(g, shape=[1, -1]) + array_ops.reshape(g, shape=[-1, 1])
    g = array_ops.reshape(g, shape=[1, -1])
    g = nn_impl.softmax(g)
    return array_ops.reshape(g, shape=[size, size, 1, 1])


def _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2,
                      return_index_map=False):
    from tideflow.ops import constant_op, logging_ops

    filter_size = constant_op.constant(filter_size, dtype=dtypes.int32)
    filter_sigma = constant_op.constant(filter_sigma, dtype=img1.dtype)
    shape1, shape2 = array_ops.shape_n([img1, img2])
    checks = [
        logging_ops.Assert(reduction_ops.reduce_all(
            math_ops.greater_equal(shape1[-3:-1], filter_size)), [shape1, filter_size],
            summarize=8),
        logging_ops.Assert(reduction_ops.reduce_all(
            math_ops.greater_equal(shape2[-3:-1], filter_size)), [shape2, filter_size],
            summarize=8)]
    with ops.control_dependencies(checks):
        img1 = array_ops.identity(img1)
    kernel = _gauss_kernel(filter_size, filter_sigma)
    kernel = pad_ops.tile(kernel, multiples=[1, 1, shape1[-1], 1])

    def reducer(x):
        shape = array_ops.shape(x)
        x = array_ops.reshape(x, shape=concat([[-1], shape[-3:]], 0))
        y = conv_ops.depthwise_conv2d(x, kernel, strides=[1, 1, 1, 1], padding="VALID")
        return array_ops.reshape(y, concat([shape[:-3], array_ops.shape(y)[1:]], 0))

    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2
    mean0, mean1 = reducer(img1), reducer(img2)
    num0 = mean0 * mean1 * 2.0
    den0 = math_ops.square(mean0) + math_ops.square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(img1 * img2) * 2.0
    den1 = reducer(math_ops.square(img1) + math_ops.square(img2))
    c2 *= 1.0
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    if return_index_map:
        return luminance * cs, cs
    axes = constant_op.constant([-3, -2], dtype=dtypes.int32)
    return reduction_ops.reduce_mean(luminance * cs, axes), reduction_ops.reduce_mean(cs, axes)


def _ssim_inputs(img1, img2, max_val):
    """TF 1.x's start of ssim: the shape checks gate img1, then both images and max_val go to
    float32."""
    _, _, checks = _compatible_shapes(img1, img2)
    with ops.control_dependencies(checks):
        img1 = array_ops.identity(img1)
    max_val = cast_ops.cast(max_val, img1.dtype)
    max_val = convert_image_dtype(max_val, dtypes.float32)
    return (convert_image_dtype(img1, dtypes.float32), convert_image_dtype(img2, dtypes.float32),
            max_val)


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         return_index_map=False):
    """Structural similarity per image (mean over channels) with an 11x11 Gaussian window;
    ``[..., h', w']`` maps with ``return_index_map``."""
    # as TF 1.15's, no name scope of its own
    img1 = ops.convert_to_tensor(img1, name="img1")
    img2 = ops.convert_to_tensor(img2, name="img2")
    img1, img2, max_val = _ssim_inputs(img1, img2, max_val)
    val, _ = _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2,
                               return_index_map)
    return reduction_ops.reduce_mean(val, [-1])


def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11,
                    filter_sigma=1.5, k1=0.01, k2=0.03):
    """Multi-scale SSIM: contrast-structure terms at successively 2x-downsampled scales and
    SSIM at the last, combined by a weighted geometric mean (``power_factors``)."""
    from tideflow.ops import cond, constant_op, nn_impl

    with ops.name_scope(None, "MS-SSIM", [img1, img2]):
        img1 = ops.convert_to_tensor(img1, name="img1")
        img2 = ops.convert_to_tensor(img2, name="img2")
        shape1, shape2, checks = _compatible_shapes(img1, img2)
        with ops.control_dependencies(checks):
            img1 = array_ops.identity(img1)
        max_val = cast_ops.cast(max_val, img1.dtype)
        max_val = convert_image_dtype(max_val, dtypes.float32)
        img1 = convert_image_dtype(img1, dtypes.float32)
        img2 = convert_image_dtype(img2, dtypes.float32)
        imgs = [img1, img2]
        heads = [sh[:-3] for sh in (shape1, shape2)]
        tails = [sh[-3:] for sh in (shape1, shape2)]
        divisor = [1, 2, 2, 1]
        divisor_tensor = constant_op.constant(divisor[1:], dtype=dtypes.int32)

        def do_pad(images, remainder):
            padding = array_ops.expand_dims(remainder, -1)
            padding = pad_ops.pad(padding, [[1, 0], [1, 0]])
            return [pad_ops.pad(x, padding, mode="SYMMETRIC") for x in images]

        mcs = []
        per_channel = None
        for k in range(len(power_factors)):
            with ops.name_scope(None, f"Scale{k}", imgs):
                if k > 0:
                    flat = [array_ops.reshape(x, concat([[-1], t], 0))
                            for x, t in zip(imgs, tails)]
                    remainder = tails[0] % divisor_tensor
                    need_padding = reduction_ops.reduce_any(math_ops.not_equal(remainder, 0))
                    padded = cond.cond(need_padding,
                                       lambda flat=flat, r=remainder: do_pad(flat, r),
                                       lambda flat=flat: flat)
                    down = [pooling_ops.avg_pool(x, ksize=divisor, strides=divisor,
                                                 padding="VALID") for x in padded]
                    tails = [x[1:] for x in array_ops.shape_n(down)]
                    imgs = [array_ops.reshape(x, concat([h, t], 0))
                            for x, h, t in zip(down, heads, tails)]
                per_channel, cs = _ssim_per_channel(imgs[0], imgs[1], max_val, filter_size,
                                                    filter_sigma, k1, k2)
                mcs.append(nn_impl.relu(cs))
        mcs.pop()  # the last scale contributes its SSIM, not its cs
        stacked = stack(mcs + [nn_impl.relu(per_channel)], axis=-1)
        ms = reduction_ops.reduce_prod(math_ops.pow(stacked, power_factors), [-1])
        return reduction_ops.reduce_mean(ms, [-1])
