"""Image colour: dtype conversion with TF's scaling rules, brightness/contrast/saturation/hue
(ops AdjustContrastv2, AdjustSaturation, AdjustHue with TF's HSV arithmetic), RGBToHSV and
HSVToRGB, grayscale, gamma, per-image standardization, and the random colour distortions.
"""

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.ops import (
    array_ops,
    cast_ops,
    math_ops,
    pad_ops,
    random_ops,
    reduction_ops,
    unary_ops,
)
from tideflow.ops.array_ops import _check_rank, _in, _np
from tideflow.ops.gradients import dense


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


# ------------------------------------------------------------------------------------------
# convert_image_dtype
# ------------------------------------------------------------------------------------------


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Converts ``image`` to ``dtype``, rescaling values: floats are in [0, 1), integers span
    [0, dtype.max]. ``saturate`` clips before casting where the cast could overflow."""
    image = ops.convert_to_tensor(image, name="image")
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    src = image.dtype.base_dtype
    if src == dtype:
        return array_ops.identity(image, name=name)
    with ops.name_scope(name, "convert_image", [image]) as scope:
        if src.is_integer and dtype.is_integer:
            scale_in, scale_out = src.max, dtype.max
            if scale_in > scale_out:
                scale = (scale_in + 1) // (scale_out + 1)
                scaled = math_ops.div(image, scale)
                if saturate:
                    return cast_ops.saturate_cast(scaled, dtype, name=scope)
                return cast_ops.cast(scaled, dtype, name=scope)
            cast = (cast_ops.saturate_cast(image, dtype) if saturate else
                    cast_ops.cast(image, dtype))
            scale = (scale_out + 1) // (scale_in + 1)
            return math_ops.multiply(cast, scale, name=scope)
        if src.is_floating and dtype.is_floating:
            return cast_ops.cast(image, dtype, name=scope)
        if src.is_integer:  # int -> float
            cast = cast_ops.cast(image, dtype)
            return math_ops.multiply(cast, 1.0 / src.max, name=scope)
        # float -> int
        scaled = math_ops.multiply(image, dtype.max + 0.5)
        if saturate:
            return cast_ops.saturate_cast(scaled, dtype, name=scope)
        return cast_ops.cast(scaled, dtype, name=scope)


def _to_float(image, arg="image"):
    """(float image to work on, original dtype): half and float32 images stay as they are."""
    image = ops.convert_to_tensor(image, name=arg)
    orig = image.dtype.base_dtype
    if orig in (dtypes.float16, dtypes.float32):
        return image, orig
    return convert_image_dtype(image, dtypes.float32), orig


# ------------------------------------------------------------------------------------------
# HSV arithmetic (vectorized forms of TF's per-pixel code)
# ------------------------------------------------------------------------------------------


def _split_rgb(x, dtype=None):
    """The three channels in ``dtype`` (default: x's float type), in which TF's kernels
    compute: RGBToHSV/HSVToRGB in T, the adjust kernels in float."""
    dtype = dtype or (x.dtype if x.dtype.kind == "f" else np.float32)
    x = x.astype(dtype, copy=False)
    return x[..., 0], x[..., 1], x[..., 2]


def _rgb_to_hsv(x):
    # TF's Eigen expression in T: norm is 1 / range times T(1) / T(6)
    r, g, b = _split_rgb(x)
    t = r.dtype.type
    v = np.maximum(np.maximum(r, g), b)
    rng = v - np.minimum(np.minimum(r, g), b)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(v > 0, rng / v, t(0))
        norm = (t(1) / rng) * (t(1) / t(6))
        h = np.where(r == v, norm * (g - b),
                     np.where(g == v, norm * (b - r) + t(2) / t(6), norm * (r - g) + t(4) / t(6)))
    h = np.where(rng > 0, h, t(0))
    h = np.where(h < 0, h + t(1), h)
    return h, s, v


def _hsv_to_rgb(h, s, v):
    t = h.dtype.type
    dh = h * t(6)
    dr = np.clip(np.abs(dh - t(3)) - t(1), t(0), t(1))
    dg = np.clip(t(2) - np.abs(dh - t(2)), t(0), t(1))
    db = np.clip(t(2) - np.abs(dh - t(4)), t(0), t(1))
    one_s = t(1) - s
    return np.stack([(one_s + s * dr) * v, (one_s + s * dg) * v, (one_s + s * db) * v], -1)


def _check_rgb(x):
    if x.ndim < 1 or x.shape[-1] != 3:
        c = x.shape[-1] if x.ndim else 0
        raise _invalid(f"input must have 3 channels but input only has {c} channels.")


def _rgb_to_hsv_kernel(images):
    x = _np(images)
    _check_rgb(x)
    return np.stack(_rgb_to_hsv(x), -1).astype(x.dtype)


def _hsv_to_rgb_kernel(images):
    x = _np(images)
    _check_rgb(x)
    # (half in float: TF 1.15's half results are those of float rounded once)
    h, s, v = _split_rgb(x, np.float32 if x.dtype == np.float16 else None)
    return _hsv_to_rgb(h, s, v).astype(x.dtype)


def _saturation_hsv(x):
    """AdjustSaturation's per-pixel rgb_to_hsv in float (its 2.0 / 6.0 and 4.0 / 6.0 are
    doubles: the sum is rounded back to float)."""
    r, g, b = _split_rgb(x, np.float32)
    f = np.float32
    v = np.maximum(r, np.maximum(g, b))
    rng = v - np.minimum(r, np.minimum(g, b))
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(v > 0, rng / v, f(0))
        norm = f(1) / (f(6) * rng)
        h = np.where(r == v, norm * (g - b), np.where(
            g == v, (norm * (b - r)).astype(np.float64) + 2.0 / 6.0,
            (norm * (r - g)).astype(np.float64) + 4.0 / 6.0)).astype(np.float32)
    h = np.where(rng <= 0, f(0), h)
    h = np.where(h < 0, h + f(1), h)
    return h, s, v


def _wiki_hsv_to_rgb(h, s, v):
    """AdjustSaturation's way back from HSV (the sector formula, sector 6 gives black + m)."""
    f = np.float32
    c = s * v
    m = v - c
    dh = h * f(6)
    cat = np.trunc(dh).astype(np.int64)
    x = c * (f(1) - np.abs(np.mod(dh, f(2)) - f(1)))
    z = np.zeros_like(c)
    rgb = [np.select([cat == k for k in range(6)], ch, z) for ch in (
        [c, x, z, z, x, c], [x, c, c, x, z, z], [z, z, x, c, c, x])]
    return np.stack(rgb, -1) + m[..., None]


def _adjust_saturation_kernel(images, scale):
    x = _np(images)
    _check_rgb(x)
    k = np.float32(_np(scale))
    h, s, v = _saturation_hsv(x)
    s = np.minimum(np.float32(1), np.maximum(np.float32(0), s * k))
    return _wiki_hsv_to_rgb(h, s, v).astype(x.dtype)


def _adjust_hue_kernel(images, delta):
    # TF's per-pixel float code: hue in [0, 6) from the max/mid/min channels
    x = _np(images)
    _check_rgb(x)
    f = np.float32
    d = f(_np(delta))
    r, g, b = _split_rgb(x, np.float32)
    cat = np.where(r < g, np.where(b < r, 1, np.where(b > g, 3, 2)),
                   np.where(b < g, 0, np.where(b > r, 4, 5)))
    chans = (r, g, b)
    # (max, mid, min) channel per sector
    order = {0: (0, 1, 2), 1: (1, 0, 2), 2: (1, 2, 0), 3: (2, 1, 0), 4: (2, 0, 1), 5: (0, 2, 1)}
    pick = [np.select([cat == k for k in range(6)], [chans[order[k][j]] for k in range(6)])
            for j in range(3)]
    vmax, vmid, vmin = pick
    span = vmax - vmin
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (vmid - vmin) / span
    h = np.where(cat % 2 == 0, cat + ratio, cat + (f(1) - ratio)).astype(np.float32)
    h = np.where(span == 0, f(0), h)
    h = h + d * f(6)
    # TF's loops add or take 6 until h is in [0, 6)
    while (h < 0).any():
        h = np.where(h < 0, h + f(6), h)
    while (h >= 6).any():
        h = np.where(h >= 6, h - f(6), h)
    hc = np.trunc(h).astype(np.int64)
    ratio = (h - hc).astype(np.float32)
    ratio = np.where(hc % 2 == 0, ratio, f(1) - ratio)
    vmid = vmin + ratio * span
    outs = {0: (vmax, vmid, vmin), 1: (vmid, vmax, vmin), 2: (vmin, vmax, vmid),
            3: (vmin, vmid, vmax), 4: (vmid, vmin, vmax), 5: (vmax, vmin, vmid)}
    hc = np.minimum(hc, 5)
    rgb = [np.select([hc == k for k in range(6)], [outs[k][j] for k in range(6)])
           for j in range(3)]
    return np.stack(rgb, -1).astype(x.dtype)


def _fold_mean(x):
    """TF's AdjustContrastv2 mean of each image's channels: the pixels folded in half (the
    upper half added onto the lower) until one is left, in float, then times 1 / pixels."""
    n = x.shape[-3] * x.shape[-2]
    acc = x.reshape(x.shape[:-3] + (n, x.shape[-1]))
    size = n
    while size > 1:
        right = size // 2
        left = size - right
        head = acc[..., :right, :] + acc[..., left:left + right, :]
        acc = np.concatenate([head, acc[..., right:left, :]], -2) if left > right else head
        size = left
    return (acc[..., :1, :] * (np.float32(1) / np.float32(n)))[..., None, :, :]


def _adjust_contrast_kernel(images, contrast_factor):
    x = _np(images)
    if x.ndim < 3:
        raise _invalid(f"input must be at least 3-D, got shape{list(x.shape)}")
    f = _np(contrast_factor)
    if f.ndim:
        raise _invalid(f"contrast_factor must be scalar: {list(f.shape)}")
    xf = x.astype(np.float32, copy=False)
    if not xf.size:
        return x.copy()
    mean = _fold_mean(xf)
    return ((xf - mean) * np.float32(f) + mean).astype(x.dtype)


def _adjust_contrast_grad(op, grad):
    x, f = op.inputs
    g = dense(grad)
    axes = [-3, -2]
    mean_x = reduction_ops.reduce_mean(x, axis=axes, keepdims=True)
    mean_g = reduction_ops.reduce_mean(g, axis=axes, keepdims=True)
    ff = cast_ops.cast(f, x.dtype)
    dx = g * ff + mean_g * (1 - ff)
    df = cast_ops.cast(reduction_ops.reduce_sum((x - mean_x) * g), dtypes.float32)
    return [dx, df]


def _same_as_input(op):
    return [_in(op, 0)]


def _rgb_shape(op):
    s = _in(op, 0)
    if s.ndims is not None:
        s = s.with_rank_at_least(1)
        if s[-1].value not in (None, 3):
            raise ValueError(f"Dimension must be 3 but is {s[-1].value}")
    for t in op._inputs[1:]:
        _check_rank(t._shape, 0)
    return [s]


def _contrast_shape(op):
    s = _in(op, 0)
    if s.ndims is not None:
        s.with_rank_at_least(3)
    _check_rank(_in(op, 1), 0)
    return [s]


_FLOAT_T = "T: {half, float} = DT_FLOAT"  # TF 1.15 takes no double

op_registry.declare(
    "AdjustContrastv2",
    inputs=["images: T", "contrast_factor: float"],
    outputs=["output: T"],
    attrs=[_FLOAT_T],
    shape=_contrast_shape,
    kernel=_adjust_contrast_kernel,
    grad=_adjust_contrast_grad,
)
op_registry.declare(
    "AdjustSaturation",
    inputs=["images: T", "scale: float"],
    outputs=["output: T"],
    attrs=[_FLOAT_T],
    shape=_rgb_shape,
    kernel=_adjust_saturation_kernel,
)
op_registry.declare(
    "AdjustHue",
    inputs=["images: T", "delta: float"],
    outputs=["output: T"],
    attrs=[_FLOAT_T],
    shape=_rgb_shape,
    kernel=_adjust_hue_kernel,
)
def _rgb_to_hsv_grad(op, grad):
    """d(h, s, v)/d(r, g, b) of the kernel's formulas, with TF's tie rules: the max channel
    is the first of r, g, b equal to v (that branch also names hue's two channels p, q in
    h = (p - q) / 6c + k), the min the first of b, g, r equal to min. v = max,
    c = v - min, s = c / v (0 at v == 0), h constant at c == 0."""
    from tideflow.ops import gather_ops, range_ops

    x = op.inputs[0]
    g = dense(grad)
    dt = x.dtype.base_dtype
    r, gr, b = x[..., 0], x[..., 1], x[..., 2]
    v = reduction_ops.reduce_max(x, axis=-1)
    mn = reduction_ops.reduce_min(x, axis=-1)
    c = v - mn
    gh, gs, gv = g[..., 0], g[..., 1], g[..., 2]
    is_r = math_ops.equal(r, v)
    is_g = math_ops.logical_and(math_ops.logical_not(is_r), math_ops.equal(gr, v))

    def pick(a, bb, cc):
        return gather_ops.where(is_r, a, gather_ops.where(is_g, bb, cc))

    p, q = pick(gr, b, r), pick(b, r, gr)
    zeros = array_ops.zeros_like(v)
    c_pos = math_ops.greater(c, zeros)
    v_pos = math_ops.greater(v, zeros)
    safe_c = gather_ops.where(c_pos, c, array_ops.ones_like(c))
    safe_v = gather_ops.where(v_pos, v, array_ops.ones_like(v))
    dh_dp = gather_ops.where(c_pos, 1.0 / (6.0 * safe_c), zeros)
    dh_dc = gather_ops.where(c_pos, -(p - q) / (6.0 * safe_c * safe_c), zeros)
    ds_dv = gather_ops.where(v_pos, mn / (safe_v * safe_v), zeros)
    ds_dmn = gather_ops.where(v_pos, -1.0 / safe_v, zeros)
    d_v = gv + gs * ds_dv + gh * dh_dc
    d_mn = gs * ds_dmn - gh * dh_dc
    d_p = gh * dh_dp

    def onehot(idx):
        return range_ops.one_hot(idx, 3, dtype=dt)

    ints = [ops.convert_to_tensor(i, dtypes.int32) for i in (0, 1, 2)]
    i_max = gather_ops.where(is_r, array_ops.zeros_like(v, dtypes.int32) + ints[0],
                             gather_ops.where(is_g, array_ops.zeros_like(v, dtypes.int32)
                                              + ints[1],
                                              array_ops.zeros_like(v, dtypes.int32) + ints[2]))
    i_p = math_ops.floormod(i_max + 1, 3)
    i_q = math_ops.floormod(i_max + 2, 3)
    zi = array_ops.zeros_like(v, dtypes.int32)
    i_min = gather_ops.where(math_ops.equal(b, mn), zi + 2,
                             gather_ops.where(math_ops.equal(gr, mn), zi + 1, zi))
    out = (onehot(i_max) * d_v[..., None] + onehot(i_min) * d_mn[..., None]
           + (onehot(i_p) - onehot(i_q)) * d_p[..., None])
    return [out]


op_registry.declare(
    "RGBToHSV",
    inputs=["images: T"],
    outputs=["output: T"],
    attrs=["T: {half, bfloat16, float, double} = DT_FLOAT"],
    shape=_rgb_shape,
    kernel=_rgb_to_hsv_kernel,
    grad=_rgb_to_hsv_grad,
)
op_registry.declare(
    "HSVToRGB",
    inputs=["images: T"],
    outputs=["output: T"],
    attrs=["T: {half, bfloat16, float, double} = DT_FLOAT"],
    shape=_rgb_shape,
    kernel=_hsv_to_rgb_kernel,
)


# ------------------------------------------------------------------------------------------
# public wrappers
# ------------------------------------------------------------------------------------------


def adjust_brightness(image, delta):
    """Adds ``delta`` to every pixel (in [0, 1) float scale), saturating back to the dtype."""
    with ops.name_scope(None, "adjust_brightness", [image, delta]) as name:
        flt, orig = _to_float(image)
        adjusted = math_ops.add(flt, cast_ops.cast(delta, flt.dtype), name=name)
        return convert_image_dtype(adjusted, orig, saturate=True)


def adjust_contrast(images, contrast_factor):
    """Scales each channel's distance from its spatial mean by ``contrast_factor``."""
    with ops.name_scope(None, "adjust_contrast", [images, contrast_factor]) as name:
        flt, orig = _to_float(images, "images")
        factor = ops.convert_to_tensor(contrast_factor, dtypes.float32, name="contrast_factor")
        adjusted = ops.apply_op("AdjustContrastv2", [flt, factor], name=name)._outputs[0]
        return convert_image_dtype(adjusted, orig, saturate=True)


def adjust_saturation(image, saturation_factor, name=None):
    """Multiplies the HSV saturation of an RGB image by ``saturation_factor`` (clipped)."""
    with ops.name_scope(name, "adjust_saturation", [image]):
        flt, orig = _to_float(image)
        # a Python factor becomes the op's own constant (AdjustSaturation/scale), as in TF
        adjusted = ops.apply_op("AdjustSaturation", [flt, saturation_factor])._outputs[0]
        return convert_image_dtype(adjusted, orig)


def adjust_hue(image, delta, name=None):
    """Rotates the hue of an RGB image by ``delta`` (in [-1, 1], a fraction of a turn)."""
    with ops.name_scope(name, "adjust_hue", [image]):
        flt, orig = _to_float(image)
        adjusted = ops.apply_op("AdjustHue", [flt, delta])._outputs[0]
        return convert_image_dtype(adjusted, orig)


def adjust_gamma(image, gamma=1, gain=1):
    """Gamma correction: ``gain * image ** gamma`` on the [0, 1] float scale."""
    from tideflow.ops import control_flow_ops, image_ops

    with ops.name_scope(None, "adjust_gamma", [image, gamma, gain]):
        flt, orig = _to_float(image)
        # a tensor gamma is checked when the step runs (InvalidArgumentError), as in TF
        check = image_ops.assert_or_raise(gamma >= 0,
                                          "Gamma should be a non-negative real number.")
        if check:
            gamma = control_flow_ops.with_dependencies(check, gamma)
        adjusted = gain * flt ** gamma
        return convert_image_dtype(adjusted, orig, saturate=True)


def random_brightness(image, max_delta, seed=None):
    """Adjusts brightness by a delta drawn uniformly from [-max_delta, max_delta)."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


def _check_lower_upper(lower, upper):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


def random_contrast(image, lower, upper, seed=None):
    """Adjusts contrast by a factor drawn uniformly from [lower, upper)."""
    _check_lower_upper(lower, upper)
    factor = random_ops.random_uniform([], lower, upper, seed=seed)
    return adjust_contrast(image, factor)


def random_saturation(image, lower, upper, seed=None):
    """Adjusts saturation by a factor drawn uniformly from [lower, upper)."""
    _check_lower_upper(lower, upper)
    factor = random_ops.random_uniform([], lower, upper, seed=seed)
    return adjust_saturation(image, factor)


def random_hue(image, max_delta, seed=None):
    """Rotates hue by a delta drawn uniformly from [-max_delta, max_delta), max_delta <= 0.5."""
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_hue(image, delta)


def per_image_standardization(image):
    """``(x - mean) / max(stddev, 1/sqrt(N))`` per image, N its number of elements; as TF
    1.15, the result has the image's dtype (an integer one saturates)."""
    from tideflow.ops import image_ops, special_math_ops

    with ops.name_scope(None, "per_image_standardization", [image]) as scope:
        image = image_ops.assert_at_least_3d(ops.convert_to_tensor(image, name="image"))
        orig = image.dtype.base_dtype
        if orig not in (dtypes.float16, dtypes.float32):
            image = convert_image_dtype(image, dtypes.float32)
        num_pixels = reduction_ops.reduce_prod(array_ops.shape(image)[-3:])
        axes = [-1, -2, -3]
        mean = reduction_ops.reduce_mean(image, axis=axes, keepdims=True)
        stddev = special_math_ops.reduce_std(image, axis=axes, keepdims=True)
        min_stddev = unary_ops.rsqrt(cast_ops.cast(num_pixels, image.dtype))
        scale = math_ops.maximum(stddev, min_stddev)
        image = image - mean
        image = math_ops.truediv(image, scale, name=scope)
        return convert_image_dtype(image, orig, saturate=True)


def rgb_to_grayscale(images, name=None):
    """Luma of RGB ``images`` (weights 0.2989, 0.5870, 0.1140), keeping a last dim of 1."""
    from tideflow.ops import linalg_ops

    with ops.name_scope(name, "rgb_to_grayscale", [images]) as scope:
        images = ops.convert_to_tensor(images, name="images")
        orig = images.dtype.base_dtype
        flt = convert_image_dtype(images, dtypes.float32)
        gray = linalg_ops.tensordot(flt, [0.2989, 0.5870, 0.1140], [-1, -1])
        gray = array_ops.expand_dims(gray, -1)
        return convert_image_dtype(gray, orig, name=scope)


def _grayscale_checks(images):
    """TF 1.x's _CheckGrayscaleImage(require_static=False): static errors, or for a shape
    not fully known its two Assert ops (last dim 1, rank >= 3 as TF checks it)."""
    from tideflow.ops import check_ops

    shape = images.get_shape()
    try:
        shape = shape.with_rank(2) if shape.ndims is None else shape.with_rank_at_least(2)
    except ValueError:
        raise ValueError("A grayscale image must be at least two-dimensional.") from None
    if shape.is_fully_defined():
        if shape[-1].value != 1:
            raise ValueError("Last dimension of a grayscale image should be size 1.")
        return []
    return [check_ops.assert_equal(array_ops.shape(images)[-1], 1,
                                   message="Last dimension of a grayscale image should be "
                                   "size 1."),
            check_ops.assert_greater_equal(array_ops.rank(images), 3,
                                           message="A grayscale image must be at least "
                                           "two-dimensional.")]


def grayscale_to_rgb(images, name=None):
    """Repeats the single channel of grayscale ``images`` three times."""
    from tideflow.ops import concat_ops, control_flow_ops, fill_ops

    with ops.name_scope(name, "grayscale_to_rgb", [images]) as scope:
        images = ops.convert_to_tensor(images, name="images")
        images = control_flow_ops.with_dependencies(_grayscale_checks(images), images)
        rank1 = array_ops.expand_dims(array_ops.rank(images) - 1, 0)
        multiples = concat_ops.concat(
            [fill_ops.ones(rank1, dtype=dtypes.int32), array_ops.expand_dims(3, 0)], 0)
        rgb = pad_ops.tile(images, multiples, name=scope)
        rgb.set_shape(images.get_shape()[:-1].concatenate([3]))
        return rgb


def rgb_to_hsv(images, name=None):
    """RGB in [0, 1] to HSV (hue in [0, 1))."""
    return ops.apply_op("RGBToHSV", [images], name=name)._outputs[0]


def hsv_to_rgb(images, name=None):
    """HSV (hue in [0, 1)) to RGB in [0, 1]."""
    return ops.apply_op("HSVToRGB", [images], name=name)._outputs[0]
