"""ScaleAndTranslate (and its gradient op) with TF's sampling kernels (lanczos1/3/5,
gaussian, box, triangle, keyscubic, mitchellcubic, optionally antialiased), and
``resize_images_v2``: TF 1.15's ``image_ops`` resize with half-pixel centers (what TF 2 calls
``tf.image.resize``).

Along each axis an output pixel x samples the input at ``(x + 0.5 - translate) / scale`` and
takes a weighted, normalized sum over the input pixels within the kernel's radius (widened
by 1/scale when antialiasing a downscale); a sample outside the image gives 0. Weights and
positions are computed in float32 as TF's spans are."""

import numpy as np

from tideflow.framework import dtypes, op_registry, ops
from tideflow.ops import array_ops, cast_ops, unary_ops
from tideflow.ops.array_ops import _check_rank, _in, _np
from tideflow.ops.gradients import dense
from tideflow.ops.image_resize_ops import (
    _IMAGE_T,
    _gather_taps,
    _invalid,
    _out_size,
    _scatter_taps,
    _size_dims,
)


def _lanczos(radius):
    def k(x):
        with np.errstate(invalid="ignore", divide="ignore"):
            v = (radius * np.sin(np.pi * x) * np.sin(np.pi * x / radius)
                 / (np.pi * np.pi * x * x))
        return np.where(x > radius, 0.0, np.where(x <= 1e-3, 1.0, v))

    return k, float(radius)


def _gaussian(x):
    radius, sigma = 1.5, 0.5
    return np.where(x >= radius, 0.0, np.exp(-x * x / (2.0 * sigma * sigma)))


def _box(x):
    return np.where(x < 0.5, 1.0, np.where(x == 0.5, 0.5, 0.0))


def _triangle(x):
    return np.where(x < 1.0, 1.0 - x, 0.0)


def _keys_cubic(x):
    return np.where(x >= 2.0, 0.0, np.where(
        x >= 1.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0, ((1.5 * x - 2.5) * x) * x + 1.0))


def _mitchell_cubic(x):
    return np.where(x >= 2.0, 0.0, np.where(
        x >= 1.0, (((-7.0 / 18.0) * x + 2.0) * x - 10.0 / 3.0) * x + 16.0 / 9.0,
        (((7.0 / 6.0) * x - 2.0) * x) * x + 8.0 / 9.0))


_KERNELS = {
    "lanczos1": _lanczos(1), "lanczos3": _lanczos(3), "lanczos5": _lanczos(5),
    "gaussian": (_gaussian, 1.5), "box": (_box, 1.0), "triangle": (_triangle, 1.0),
    "keyscubic": (_keys_cubic, 2.0), "mitchellcubic": (_mitchell_cubic, 2.0),
}


def _spans(in_size, out_size, scale, translate, kernel_type, antialias):
    """(indices [out, K], weights [out, K]) of one axis, as TF's ComputeSpans."""
    fn, radius = _KERNELS[kernel_type]
    f32 = np.float32
    inv_scale = f32(1.0) / f32(scale)
    inv_translate = -inv_scale * f32(translate)
    kscale = max(inv_scale, f32(1.0)) if antialias else f32(1.0)
    span = min(2 * int(np.ceil(f32(radius) * kscale)) + 1, in_size)
    sample = (np.arange(out_size, dtype=f32) + f32(0.5)) * inv_scale + inv_translate
    inside = (sample >= 0) & (sample <= in_size)
    reach = f32(radius) * kscale
    start = np.clip(np.ceil(sample - reach - f32(0.5)).astype(np.int64), 0, in_size - 1)
    end = np.clip(np.floor(sample + reach - f32(0.5)).astype(np.int64), 0, in_size - 1) + 1
    src = start[:, None] + np.arange(span)
    pos = (src.astype(f32) + f32(0.5) - sample[:, None]) / kscale
    w = fn(np.abs(pos.astype(np.float64))).astype(f32)
    w = np.where(src < end[:, None], w, f32(0))
    total = w.sum(1, dtype=f32, keepdims=True)
    ok = (np.abs(total) >= 1000.0 * np.finfo(np.float32).tiny) & inside[:, None]
    w = np.where(ok, w / np.where(ok, total, f32(1)), f32(0))
    return np.clip(src, 0, in_size - 1), w.astype(np.float64)


def _vec2(t, what):
    v = _np(t).astype(np.float32)
    if v.shape != (2,):
        raise _invalid(f"{what} must be a vector of 2 elements, got shape {list(v.shape)}")
    return v


def _axis_spans(h, w, oh, ow, scale, translation, kernel_type, antialias):
    if kernel_type not in _KERNELS:
        raise _invalid(f"Unrecognized kernel type: {kernel_type}")
    s = _vec2(scale, "scale")
    t = _vec2(translation, "translation")
    if (s <= 0).any():
        raise _invalid(f"Scale must be greater than zero, got {s.tolist()}")
    return (_spans(h, oh, s[0], t[0], kernel_type, antialias),
            _spans(w, ow, s[1], t[1], kernel_type, antialias))


def _scale_and_translate_kernel(images, size, scale, translation, *, kernel_type, antialias):
    x = _np(images)
    if x.ndim != 4:
        raise _invalid(f"input must be 4-dimensional{list(x.shape)}")
    oh, ow = _out_size(size)
    _, h, w, _ = x.shape
    if h == 0 or w == 0:
        raise _invalid("input image must be of non-zero size")
    ty, tx = _axis_spans(h, w, oh, ow, scale, translation, kernel_type, antialias)
    y = _gather_taps(x.astype(np.float64), ty, 1)
    return _gather_taps(y, tx, 2).astype(np.float32)


def _scale_and_translate_grad_kernel(grads, original_image, scale, translation, *, T,
                                     kernel_type, antialias):
    g = _np(grads)
    orig = _np(original_image)
    if g.ndim != 4 or orig.ndim != 4:
        raise _invalid("grads and original_image must be 4-dimensional")
    _, oh, ow, _ = g.shape
    _, h, w, _ = orig.shape
    ty, tx = _axis_spans(h, w, oh, ow, scale, translation, kernel_type, antialias)
    out = _scatter_taps(g.astype(np.float64), ty, 1, h)
    return _scatter_taps(out, tx, 2, w).astype(T.as_numpy_dtype)


def _scale_shape(op):
    s = _in(op, 0)
    _check_rank(s, 4)
    for i in (2, 3):
        _check_rank(_in(op, i), 1)
    hh, ww = _size_dims(op._inputs[1])
    if s.ndims is None:
        return [[None, hh, ww, None]]
    return [[s[0].value, hh, ww, s[3].value]]


def _scale_grad(op, g):
    image = op.inputs[0]
    if image.dtype.base_dtype != dtypes.float32:
        return [None, None, None, None]
    return [ops.apply_op("ScaleAndTranslateGrad", [dense(g), image, op.inputs[2], op.inputs[3]],
                         {"kernel_type": op.get_attr("kernel_type"),
                          "antialias": op.get_attr("antialias")})._outputs[0],
            None, None, None]


_SCALE_ATTRS = ["kernel_type: string = 'lanczos3'", "antialias: bool = true"]
op_registry.declare(
    "ScaleAndTranslate",
    inputs=["images: T", "size: int32", "scale: float", "translation: float"],
    outputs=["resized_images: float"],
    attrs=[_IMAGE_T] + _SCALE_ATTRS,
    shape=_scale_shape,
    kernel=_scale_and_translate_kernel,
    grad=_scale_grad,
)
op_registry.declare(
    "ScaleAndTranslateGrad",
    inputs=["grads: T", "original_image: T", "scale: float", "translation: float"],
    outputs=["output: T"],
    attrs=["T: {float}"] + _SCALE_ATTRS,
    shape=lambda op: [_in(op, 1)],
    kernel=_scale_and_translate_grad_kernel,
    differentiable=False,
)


def scale_and_translate(images, size, scale, translation, kernel_type="lanczos3",
                        antialias=True, name=None):
    """Resamples 4-D ``images`` to ``size`` with the output pixel x sampling the input at
    ``(x + 0.5 - translation) / scale`` (per axis) through ``kernel_type``."""
    return ops.apply_op("ScaleAndTranslate", [images, size, scale, translation],
                        {"kernel_type": kernel_type, "antialias": antialias},
                        name=name)._outputs[0]


class ResizeMethodV2:
    """The ``method`` values of :func:`resize_images_v2` (TF 1.15's ``image_ops.ResizeMethod``)."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


_V1_NAMES = {0: "bilinear", 1: "nearest", 2: "bicubic", 3: "area"}


def resize_images_v2(images, size, method=ResizeMethodV2.BILINEAR, preserve_aspect_ratio=False,
                     antialias=False, name=None):
    """Resizes 3-D or 4-D ``images`` with half-pixel centers (TF 2's ``tf.image.resize``):
    float32 results except for ``nearest``, which keeps the dtype; never skipped when the
    size is unchanged."""
    from tideflow.ops import image_resize_ops as r
    from tideflow.ops import math_ops

    method = _V1_NAMES.get(method, method) if isinstance(method, int) else method

    def resize_fn(images_t, new_size):
        def via_scale(kernel):
            scale = (cast_ops.cast(new_size, dtypes.float32)
                     / cast_ops.cast(array_ops.shape(images_t)[1:3], dtypes.float32))
            return scale_and_translate(images_t, new_size, scale,
                                       array_ops.zeros([2], dtypes.float32),
                                       kernel_type=kernel, antialias=antialias)

        if method == "bilinear":
            return via_scale("triangle") if antialias else r.resize_bilinear(
                images_t, new_size, half_pixel_centers=True)
        if method == "nearest":
            return r.resize_nearest_neighbor(images_t, new_size, half_pixel_centers=True)
        if method == "bicubic":
            return via_scale("keyscubic") if antialias else r.resize_bicubic(
                images_t, new_size, half_pixel_centers=True)
        if method == "area":
            return r.resize_area(images_t, new_size)
        if method in ("lanczos3", "lanczos5", "gaussian", "mitchellcubic"):
            return via_scale(method)
        raise ValueError("Resize method is not implemented.")

    with ops.name_scope(name, "resize", [images, size]):
        images, is_batch = r._batched(images)
        size = r._size_tensor(size)
        if preserve_aspect_ratio:
            # as TF: from the size's static values, the new size packed as "size" (the ops
            # of the v1 path, which TF shares)
            const = array_ops.constant_value_as_shape(size)
            _, cur_h, cur_w, _ = r.image_dimensions(images, 4)
            f = dtypes.float32
            ratio = math_ops.minimum(cast_ops.cast(const[0].value, f) / cast_ops.cast(cur_h, f),
                                     cast_ops.cast(const[1].value, f) / cast_ops.cast(cur_w, f))
            size = ops.convert_to_tensor([
                cast_ops.cast(unary_ops.round(ratio * cast_ops.cast(cur_h, f)), dtypes.int32),
                cast_ops.cast(unary_ops.round(ratio * cast_ops.cast(cur_w, f)), dtypes.int32)],
                dtypes.int32, name="size")
        const = array_ops.constant_value_as_shape(size)
        new_h, new_w = (const[0].value, const[1].value) if const.ndims == 2 else (None, None)
        out = resize_fn(images, size)
        out.set_shape([None, new_h, new_w, None])
        return out if is_batch else array_ops.squeeze(out, axis=[0])


def resize_image_with_pad_v1(image, target_height, target_width, method=0, align_corners=False):
    """TF 1.15's ``image_ops`` name of ``tf.image.resize_image_with_pad``."""
    from tideflow.ops.image_resize_ops import resize_image_with_pad

    return resize_image_with_pad(image, target_height, target_width, method, align_corners)


def resize_image_with_pad_v2(image, target_height, target_width,
                             method=ResizeMethodV2.BILINEAR, antialias=False):
    """``resize_image_with_pad`` resizing with :func:`resize_images_v2` (half-pixel centers;
    TF 2's ``tf.image.resize_with_pad``)."""
    from tideflow.ops.image_resize_ops import resize_and_pad

    def resize(images, size, m):
        return resize_images_v2(images, size, m, antialias=antialias)

    return resize_and_pad(image, target_height, target_width, method, resize)
