"""The rest of ``tf.image``: JPEG-quality helpers (EncodeJpegVariableQuality),
decode_and_crop_jpeg, DecodeWebP, ExtractGlimpse/V2, extract_patches and transpose."""

import numpy as np

from tideflow.framework import dtypes, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops.array_ops import _check_rank, _invalid, _np, _shape_str
from tideflow.ops.image_color_ops import convert_image_dtype

# ------------------------------------------------------------------------------------------
# JPEG quality
# ------------------------------------------------------------------------------------------


def _encode_jpeg_vq_kernel(images, quality):
    from tideflow.ops.image_codec_ops import _encode_jpeg_kernel

    q = _np(quality)
    if q.ndim:
        raise _invalid(f"EncodeJpegVariableQuality: quality must be a scalar, got shape "
                       f"{_shape_str(q.shape)}")
    # unlike EncodeJpeg's attr, TF passes this quality to libjpeg unchecked (which clamps it)
    return _encode_jpeg_kernel(images, format="", quality=min(max(int(q), 1), 100),
                               progressive=False,
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


def adjust_jpeg_quality(image, jpeg_quality, name=None, dct_method=""):
    """The image after a JPEG round trip at ``jpeg_quality`` (0-100), in its own dtype.
    (TF 1.15's third parameter is ``name``; ``dct_method``, from later TFs, comes after it.)"""
    from tideflow.ops import image_codec_ops

    with ops.name_scope(name, "adjust_jpeg_quality", [image]):
        image = ops.convert_to_tensor(image, name="image")
        orig = image.dtype.base_dtype
        # TF 1.15's ops and order (its conversions do not saturate)
        u8 = convert_image_dtype(image, dtypes.uint8)
        q = jpeg_quality
        if not isinstance(q, ops.Tensor):
            q = ops.convert_to_tensor(q, dtypes.int32)
        encoded = ops.apply_op("EncodeJpegVariableQuality", [u8, q])._outputs[0]
        # as TF's, the result's static shape is the decoder's ([?, ?, ?])
        decoded = image_codec_ops.decode_jpeg(encoded, channels=0, dct_method=dct_method)
        return convert_image_dtype(decoded, orig)


def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None):
    """:func:`adjust_jpeg_quality` at a quality drawn uniformly from [min, max)."""
    from tideflow.ops import random_ops

    if not (0 <= min_jpeg_quality <= 100 and 0 <= max_jpeg_quality <= 100):
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if min_jpeg_quality >= max_jpeg_quality:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")
    q = random_ops.random_uniform([], min_jpeg_quality, max_jpeg_quality, dtypes.int32,
                                  seed=seed)
    return adjust_jpeg_quality(image, q)


def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="",
                         name=None):
    """Decodes a JPEG and crops it to ``crop_window = [y, x, height, width]`` (one op, as TF's;
    a window not inside the image fails the step with InvalidArgumentError)."""
    from tideflow.ops import image_codec_ops  # noqa: F401 - declares DecodeAndCropJpeg

    return ops.apply_op("DecodeAndCropJpeg", [contents, crop_window], {
        "channels": channels, "ratio": ratio, "fancy_upscaling": fancy_upscaling,
        "try_recover_truncated": try_recover_truncated,
        "acceptable_fraction": float(acceptable_fraction), "dct_method": dct_method},
        name=name)._outputs[0]


def extract_patches(images, sizes, strides, rates, padding, name=None):
    """Patches of ``sizes`` from 4-D ``images`` (TF 2's name and argument names for
    ``extract_image_patches``)."""
    from tideflow.ops.patches_ops import extract_image_patches

    return extract_image_patches(images, sizes, strides, rates, padding, name=name)


# ------------------------------------------------------------------------------------------
# extract_glimpse
# ------------------------------------------------------------------------------------------


def _glimpse_start(off, dim, size, centered, normalized, v1=False):
    if v1:
        # ExtractGlimpse (TF 1.x's tf.image.extract_glimpse): the offset is always the
        # glimpse's centre; a centered one is half-scaled about the image's centre
        v = np.float32(off)
        if normalized:
            v = v * np.float32(dim)
        if centered:
            v = v / np.float32(2.0) + np.float32(dim / 2.0)
        return int(np.trunc(v - np.float32(size / 2.0)))
    # ExtractGlimpseV2's rules: only a normalized, centered offset names the glimpse's centre
    if normalized and centered:
        v = off * dim / 2.0 + dim / 2.0 - size / 2.0
    elif normalized:
        v = off * dim
    elif centered:
        v = off + dim / 2.0
    else:
        v = off
    return int(np.trunc(np.float32(v)))


def _glimpse_v1_kernel(input, size, offsets, *, centered, normalized, uniform_noise, noise):
    return _glimpse(input, size, offsets, centered, normalized, uniform_noise, noise, True)


def _glimpse_kernel(input, size, offsets, *, centered, normalized, uniform_noise, noise):
    return _glimpse(input, size, offsets, centered, normalized, uniform_noise, noise, False)


def _glimpse(input, size, offsets, centered, normalized, uniform_noise, noise, v1):
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
        y0 = _glimpse_start(float(off[i, 0]), h, gh, centered, normalized, v1)
        x0 = _glimpse_start(float(off[i, 1]), w, gw, centered, normalized, v1)
        ys, xs = np.arange(y0, y0 + gh), np.arange(x0, x0 + gw)
        inside = ((ys >= 0) & (ys < h))[:, None] & ((xs >= 0) & (xs < w))[None, :]
        vals = img[np.clip(ys, 0, h - 1)][:, np.clip(xs, 0, w - 1)]
        out[i] = np.where(inside[..., None], vals, fill)
    return out


def _glimpse_shape(op):
    # TF 1.15's shape function: the batch is the image's merged with the offsets'
    x, offsets = op._inputs[0]._shape, op._inputs[2]._shape
    _check_rank(x, 4)
    _check_rank(offsets, 2)
    b = x.dims[0].value if x.ndims else None
    ob = offsets.dims[0].value if offsets.ndims else None
    if b is not None and ob is not None and b != ob:
        raise ValueError(f"Dimensions must be equal, but are {b} and {ob}")
    if offsets.ndims and offsets.dims[1].value not in (None, 2):
        raise ValueError(f"Dimension must be 2 but is {offsets.dims[1].value}")
    size = op._inputs[1]._shape
    _check_rank(size, 1)
    if size.ndims and size.dims[0].value not in (None, 2):
        raise ValueError(f"Dimension must be 2 but is {size.dims[0].value}")
    s = ops.constant_value(op._inputs[1])
    gh = gw = None
    if s is not None:
        gh, gw = (int(v) if v >= 0 else None for v in np.reshape(s, -1))
    return [TensorShape([b if b is not None else ob, gh, gw,
                         x.dims[3].value if x.ndims else None])]


_GLIMPSE_ATTRS = ["centered: bool = true", "normalized: bool = true",
                  "uniform_noise: bool = true"]
op_registry.declare(
    "ExtractGlimpse", inputs=["input: float", "size: int32", "offsets: float"],
    outputs=["glimpse: float"], attrs=_GLIMPSE_ATTRS + ["noise: string = 'uniform'"],
    shape=_glimpse_shape, kernel=_glimpse_v1_kernel,
    differentiable=False, stateful=True)
op_registry.declare(
    "ExtractGlimpseV2", inputs=["input: float", "size: int32", "offsets: float"],
    outputs=["glimpse: float"], attrs=_GLIMPSE_ATTRS + ["noise: string = 'uniform'"],
    shape=_glimpse_shape, kernel=_glimpse_kernel, differentiable=False, stateful=True)


def extract_glimpse(input, size, offsets, centered=True, normalized=True, uniform_noise=True,
                    name=None, noise=None):
    """Glimpses of ``size`` from each image centred at ``offsets [batch, 2]`` (y, x; TF 1.x's
    ExtractGlimpse placement); pixels outside the image are filled with uniform (or Gaussian)
    noise from the image's range, or zeros with ``noise="zero"``."""
    if noise is None:
        noise = "uniform" if uniform_noise else "gaussian"
    if noise not in ("uniform", "gaussian", "zero"):
        raise ValueError(f"noise must be 'uniform', 'gaussian' or 'zero', got {noise!r}")
    # one op, as TF's (its Python inputs become ExtractGlimpse/size, ...)
    return ops.apply_op("ExtractGlimpse", [input, size, offsets], {
        "centered": centered, "normalized": normalized,
        "uniform_noise": noise == "uniform", "noise": noise}, name=name)._outputs[0]


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

    return transpose_image(image, name)
