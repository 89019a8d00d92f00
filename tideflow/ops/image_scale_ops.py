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
    _size_dims,
)

_F = np.float32


_PI = _F(3.14159265359)


def _lanczos(radius):
    # TF 1.15's kernel in float throughout: pi as a float constant, glibc's sinf
    from tideflow.ops.glibc_float32 import sincosf

    r = _F(radius)

    def k(x):
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            px = _PI * x
            v = r * sincosf(px)[0] * sincosf(px / r)[0] / (_PI * _PI * x * x)
        return np.where(x > r, _F(0), np.where(x <= 1e-3, _F(1), v))

    return k, float(radius)


def _gaussian(x):
    radius, sigma = 1.5, 0.5
    # (-x * x in float, then the double division and exp)
    v = np.exp((-x * x).astype(np.float64) / (2.0 * sigma * sigma))
    return np.where(x >= _F(radius), 0.0, v).astype(_F)


def _box(x):
    return np.where(x < _F(0.5), _F(1), np.where(x == _F(0.5), _F(0.5), _F(0)))


def _triangle(x):
    return np.where(x < _F(1), _F(1) - x, _F(0))


def _keys_cubic(x):
    far = ((_F(-0.5) * x + _F(2.5)) * x - _F(4)) * x + _F(2)
    near = ((_F(1.5) * x - _F(2.5)) * x) * x + _F(1)
    return np.where(x >= _F(2), _F(0), np.where(x >= _F(1), far, near))


def _mitchell_cubic(x):
    far = (((_F(-7) / _F(18)) * x + _F(2)) * x - _F(10) / _F(3)) * x + _F(16) / _F(9)
    near = (((_F(7) / _F(6)) * x - _F(2)) * x) * x + _F(8) / _F(9)
    return np.where(x >= _F(2), _F(0), np.where(x >= _F(1), far, near))


_KERNELS = {
    "lanczos1": _lanczos(1), "lanczos3": _lanczos(3), "lanczos5": _lanczos(5),
    "gaussian": (_gaussian, 1.5), "box": (_box, 1.0), "triangle": (_triangle, 1.0),
    "keyscubic": (_keys_cubic, 2.0), "mitchellcubic": (_mitchell_cubic, 2.0),
}


def _spans(in_size, out_size, scale, translate, kernel_type, antialias):
    """(indices [out, K], float32 weights [out, K]) of one axis, as TF's ComputeSpans: every
    step in float (the inverse scale from a double division), each tap's kernel position
    times the inverse kernel scale, the weights summed in turn and scaled by the inverse of
    their sum."""
    fn, radius = _KERNELS[kernel_type]
    inv_scale = _F(1.0 / float(scale))
    inv_translate = -inv_scale * _F(translate)
    kscale = max(inv_scale, _F(1)) if antialias else _F(1)
    reach = _F(radius) * kscale
    span = min(2 * int(np.ceil(reach)) + 1, in_size)
    one_over_kscale = _F(1) / kscale
    with np.errstate(over="ignore", invalid="ignore"):
        sample = (np.arange(out_size).astype(_F) + _F(0.5)) * inv_scale + inv_translate
        inside = (sample >= 0) & (sample <= in_size)
        first = np.nan_to_num(np.ceil(sample - reach - _F(0.5)), posinf=in_size, neginf=0)
        last = np.nan_to_num(np.floor(sample + reach - _F(0.5)), posinf=in_size, neginf=0)
    start = np.clip(first.astype(np.int64), 0, in_size - 1)
    end = np.clip(last.astype(np.int64), 0, in_size - 1) + 1
    src = start[:, None] + np.arange(span)
    pos = (src.astype(_F) + _F(0.5)) - sample[:, None]
    w = fn(np.abs(pos * one_over_kscale))
    w = np.where(src < end[:, None], w, _F(0))
    total = np.zeros(out_size, _F)
    for k in range(span):
        total += w[:, k]
    ok = (np.abs(total) >= _F(1000) * np.finfo(_F).tiny) & inside
    inverse = _F(1) / np.where(ok, total, _F(1))
    w = np.where(ok[:, None], w * inverse[:, None], _F(0))
    return np.clip(src, 0, in_size - 1), w


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
    # rows first into a float buffer, then columns, as TF's GatherSpans
    y = _gather_taps(x.astype(np.float32), ty, 1, from_zero=True)
    return _gather_taps(y, tx, 2, from_zero=True)


def _scale_and_translate_grad_kernel(grads, original_image, scale, translation, *, T,
                                     kernel_type, antialias):
    g = _np(grads)
    orig = _np(original_image)
    if g.ndim != 4 or orig.ndim != 4:
        raise _invalid("grads and original_image must be 4-dimensional")
    _, oh, ow, _ = g.shape
    _, h, w, _ = orig.shape
    ty, tx = _axis_spans(h, w, oh, ow, scale, translation, kernel_type, antialias)
    # as TF: the forward spans turned into spans over the gradient's pixels, then gathered
    # as the forward pass gathers (rows, then columns, float sums in turn)
    out = _gather_taps(g.astype(np.float32), _grad_taps(ty, oh, h), 1, from_zero=True)
    out = _gather_taps(out, _grad_taps(tx, ow, w), 2, from_zero=True)
    return out.astype(T.as_numpy_dtype)


def _grad_taps(taps, out_size, in_size):
    """TF's ComputeGradSpans: for each input pixel, the outputs that took it with a nonzero
    weight, as a span from the first of them (gaps hold zeros; taps past the gradient's edge
    are left out, here as zero weights)."""
    src, w = taps
    o = np.repeat(np.arange(src.shape[0]), src.shape[1])
    i, ww = src.reshape(-1), w.reshape(-1)
    keep = ww != 0
    o, i, ww = o[keep], i[keep], ww[keep]
    starts = np.zeros(in_size, np.int64)
    span = 1
    if o.size:
        first = np.full(in_size, o.max() + 1, np.int64)
        last = np.full(in_size, -1, np.int64)
        np.minimum.at(first, i, o)
        np.maximum.at(last, i, o)
        has = last >= 0
        span = int((last - first + 1)[has].max())
        starts[has] = first[has]
    gw = np.zeros((in_size, span), np.float32)
    np.add.at(gw, (i, o - starts[i]), ww)
    gsrc = starts[:, None] + np.arange(span)
    gw[gsrc >= out_size] = 0
    return np.minimum(gsrc, out_size - 1), gw


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
