"""Op-table rows for the image ops: resizing (and its gradient ops), colour, bounding boxes,
non-max suppression and codecs, against NumPy references written here with explicit loops."""

import colorsys
import io
import math

import numpy as np
import pytest

import tideflow as tf
from tests.ops.optable import Case
from tideflow import image  # noqa: F401 - registers the image ops
from tideflow.framework import ops as _ops

F = (tf.float32, tf.float64)
RNG = np.random.RandomState(7)
IMG = RNG.uniform(0, 10, size=(2, 3, 4, 2))
GRAD_54 = RNG.uniform(-1, 1, size=(2, 5, 7, 2))
RGB = RNG.uniform(0, 1, size=(2, 3, 4, 3))


def _apply(op_type, attrs=None):
    def fn(*inputs):
        outs = _ops.apply_op(op_type, list(inputs), attrs)._outputs
        return outs[0] if len(outs) == 1 else list(outs)

    return fn


def _f32(v):
    return float(np.float32(v))


def _scale(i, o, align):
    if align and o > 1:
        return np.float32(i - 1) / np.float32(o - 1)
    return np.float32(i) / np.float32(o)


def _src(o, scale, half, nearest=False):
    if not half:
        return _f32(np.float32(o) * scale)
    v = (np.float32(o) + np.float32(0.5)) * scale
    return _f32(v if nearest else v - np.float32(0.5))


# -- references (loops over pixels) ----------------------------------------------------------


def ref_bilinear(x, size, align=False, half=False):
    b, h, w, c = x.shape
    oh, ow = (int(v) for v in size)
    sy, sx = _scale(h, oh, align), _scale(w, ow, align)
    out = np.zeros((b, oh, ow, c))
    for y in range(oh):
        fy = _src(y, sy, half)
        y0 = math.floor(fy)
        ly = fy - y0
        t, btm = min(max(y0, 0), h - 1), min(max(y0 + 1, 0), h - 1)
        for xx in range(ow):
            fx = _src(xx, sx, half)
            x0 = math.floor(fx)
            lx = fx - x0
            le, ri = min(max(x0, 0), w - 1), min(max(x0 + 1, 0), w - 1)
            top = x[:, t, le] * (1 - lx) + x[:, t, ri] * lx
            bot = x[:, btm, le] * (1 - lx) + x[:, btm, ri] * lx
            out[:, y, xx] = top * (1 - ly) + bot * ly
    return out.astype(np.float32)


def ref_bilinear_grad(g, orig, align=False, half=False):
    _, h, w, _ = orig.shape
    _, oh, ow, _ = g.shape
    sy, sx = _scale(h, oh, align), _scale(w, ow, align)
    out = np.zeros(orig.shape)
    for y in range(oh):
        fy = _src(y, sy, half)
        y0 = math.floor(fy)
        ly = fy - y0
        t, btm = min(max(y0, 0), h - 1), min(max(y0 + 1, 0), h - 1)
        for xx in range(ow):
            fx = _src(xx, sx, half)
            x0 = math.floor(fx)
            lx = fx - x0
            le, ri = min(max(x0, 0), w - 1), min(max(x0 + 1, 0), w - 1)
            v = g[:, y, xx]
            out[:, t, le] += v * (1 - ly) * (1 - lx)
            out[:, t, ri] += v * (1 - ly) * lx
            out[:, btm, le] += v * ly * (1 - lx)
            out[:, btm, ri] += v * ly * lx
    return out.astype(orig.dtype)


def _nn_index(o, i, n, align, half):
    f = _src(o, _scale(i, n, align), half, nearest=True)
    k = math.floor(f + 0.5) if align else math.floor(f)
    return max(min(k, i - 1), 0)


def ref_nearest(x, size, align=False, half=False):
    b, h, w, c = x.shape
    oh, ow = (int(v) for v in size)
    out = np.zeros((b, oh, ow, c), x.dtype)
    for y in range(oh):
        for xx in range(ow):
            out[:, y, xx] = x[:, _nn_index(y, h, oh, align, half), _nn_index(xx, w, ow, align,
                                                                              half)]
    return out


def ref_nearest_grad(g, size, align=False, half=False):
    b, gh, gw, c = g.shape
    h, w = (int(v) for v in size)
    out = np.zeros((b, h, w, c), g.dtype)
    for y in range(gh):
        for xx in range(gw):
            out[:, _nn_index(y, h, gh, align, half), _nn_index(xx, w, gw, align, half)] += \
                g[:, y, xx]
    return out


def _keys(d, a=-0.75):
    d = abs(d)
    if d <= 1:
        return ((a + 2) * d - (a + 3)) * d * d + 1
    if d < 2:
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return 0.0


def _cubic_weights(f):
    base = math.floor(f)
    delta = math.floor((f - base) * 1024 + 0.5) / 1024  # TF samples the kernel on a 1/1024 grid
    return base, [_keys(delta + 1), _keys(delta), _keys(1 - delta), _keys(2 - delta)]


def ref_bicubic(x, size, align=False):
    b, h, w, c = x.shape
    oh, ow = (int(v) for v in size)
    sy, sx = _scale(h, oh, align), _scale(w, ow, align)
    out = np.zeros((b, oh, ow, c))
    for y in range(oh):
        by, wy = _cubic_weights(_src(y, sy, False))
        for xx in range(ow):
            bx, wx = _cubic_weights(_src(xx, sx, False))
            for i in range(4):
                for j in range(4):
                    yi = min(max(by - 1 + i, 0), h - 1)
                    xj = min(max(bx - 1 + j, 0), w - 1)
                    out[:, y, xx] += wy[i] * wx[j] * x[:, yi, xj]
    return out.astype(np.float32)


def ref_area(x, size, align=False):
    b, h, w, c = x.shape
    oh, ow = (int(v) for v in size)
    sy, sx = float(_scale(h, oh, align)), float(_scale(w, ow, align))
    out = np.zeros((b, oh, ow, c))
    for y in range(oh):
        y_lo, y_hi = _f32(np.float32(y) * np.float32(sy)), _f32(np.float32(y + 1) *
                                                               np.float32(sy))
        for xx in range(ow):
            x_lo, x_hi = _f32(np.float32(xx) * np.float32(sx)), _f32(np.float32(xx + 1) *
                                                                    np.float32(sx))
            for i in range(math.floor(y_lo), math.ceil(y_hi)):
                wy = min(i + 1, y_hi) - max(i, y_lo)
                for j in range(math.floor(x_lo), math.ceil(x_hi)):
                    wx = min(j + 1, x_hi) - max(j, x_lo)
                    out[:, y, xx] += wy * wx * x[:, min(i, h - 1), min(j, w - 1)]
    return (out / (sy * sx)).astype(np.float32)


def _per_pixel(fn):
    def ref(x, k):
        flat = x.reshape(-1, 3).astype(np.float64)
        out = np.array([fn(p, float(k)) for p in flat]).reshape(x.shape)
        return out.astype(x.dtype)

    return ref


def _saturation_px(p, k):
    h, s, v = colorsys.rgb_to_hsv(*p)
    return colorsys.hsv_to_rgb(h, min(max(s * k, 0.0), 1.0), v)


def _hue_px(p, d):
    h, s, v = colorsys.rgb_to_hsv(*p)
    return colorsys.hsv_to_rgb((h + d) % 1.0, s, v)


def ref_contrast(x, f):
    mean = x.astype(np.float64).mean(axis=(-3, -2), keepdims=True)
    return ((x - mean) * float(f) + mean).astype(x.dtype)


def _size(v):
    return np.array(v, np.int32)


CASES = []

for _align in (False, True):
    for _sz in ((5, 7), (2, 3), (3, 4), (1, 1)):
        CASES.append(Case(
            "ResizeBilinear", _apply("ResizeBilinear", {"align_corners": _align}),
            [IMG, _size(_sz)], lambda x, s, a=_align: ref_bilinear(x, s, a), dtypes=F,
            fixed=(1,), grad=False, atol=1e-5, rtol=1e-5,
            name=f"ResizeBilinear_{_sz[0]}x{_sz[1]}_align{_align}"))
        CASES.append(Case(
            "ResizeNearestNeighbor",
            _apply("ResizeNearestNeighbor", {"align_corners": _align}), [IMG, _size(_sz)],
            lambda x, s, a=_align: ref_nearest(x, s, a),
            dtypes=(tf.float32, tf.float64, tf.int32, tf.uint8), fixed=(1,),
            name=f"ResizeNearestNeighbor_{_sz[0]}x{_sz[1]}_align{_align}"))
        CASES.append(Case(
            "ResizeBicubic", _apply("ResizeBicubic", {"align_corners": _align}),
            [IMG, _size(_sz)], lambda x, s, a=_align: ref_bicubic(x, s, a), dtypes=F,
            fixed=(1,), grad=False, atol=1e-4, rtol=1e-5,
            name=f"ResizeBicubic_{_sz[0]}x{_sz[1]}_align{_align}"))
    CASES.append(Case(
        "ResizeArea", _apply("ResizeArea", {"align_corners": _align}), [IMG, _size((2, 3))],
        lambda x, s, a=_align: ref_area(x, s, a), dtypes=(tf.float32, tf.float64, tf.uint8),
        fixed=(1,), grad=False, atol=1e-4, rtol=1e-5, name=f"ResizeArea_align{_align}"))
    CASES.append(Case(
        "ResizeBilinearGrad", _apply("ResizeBilinearGrad", {"align_corners": _align}),
        [GRAD_54.astype(np.float32), IMG], lambda g, x, a=_align: ref_bilinear_grad(g, x, a),
        dtypes=F, fixed=(0,), grad=False, atol=1e-5, name=f"ResizeBilinearGrad_align{_align}"))
    CASES.append(Case(
        "ResizeNearestNeighborGrad",
        _apply("ResizeNearestNeighborGrad", {"align_corners": _align}),
        [GRAD_54, _size((3, 4))], lambda g, s, a=_align: ref_nearest_grad(g, s, a),
        dtypes=(tf.float32, tf.float64, tf.int32), fixed=(1,), grad=False,
        name=f"ResizeNearestNeighborGrad_align{_align}"))

# downscaling by a non-integer factor, and half-pixel centres
CASES += [
    Case("ResizeArea", _apply("ResizeArea"), [RNG.uniform(0, 1, (1, 7, 5, 1)), _size((3, 2))],
         ref_area, dtypes=F, fixed=(1,), grad=False, atol=1e-5, name="ResizeArea_7x5_to_3x2"),
    Case("ResizeBilinear", _apply("ResizeBilinear", {"half_pixel_centers": True}),
         [IMG, _size((5, 7))], lambda x, s: ref_bilinear(x, s, half=True), dtypes=F,
         fixed=(1,), grad=False, atol=1e-5, name="ResizeBilinear_half_pixel"),
    Case("ResizeNearestNeighbor", _apply("ResizeNearestNeighbor", {"half_pixel_centers": True}),
         [IMG, _size((5, 3))], lambda x, s: ref_nearest(x, s, half=True), dtypes=F,
         fixed=(1,), name="ResizeNearestNeighbor_half_pixel"),
    Case("ResizeBilinearGrad", _apply("ResizeBilinearGrad", {"half_pixel_centers": True}),
         [GRAD_54.astype(np.float32), IMG], lambda g, x: ref_bilinear_grad(g, x, half=True),
         dtypes=F, fixed=(0,), grad=False, atol=1e-5, name="ResizeBilinearGrad_half_pixel"),
]


def _bicubic_grad_ref(g, x):
    """The transpose of the bicubic resize, column by column of its matrix."""
    size = g.shape[1:3]
    out = np.zeros(x.shape)
    for idx in np.ndindex(*x.shape[1:3]):
        e = np.zeros((1,) + x.shape[1:3] + (1,))
        e[0][idx] = 1
        col = ref_bicubic(e, size).astype(np.float64)
        out[:, idx[0], idx[1]] = np.einsum("bhwc,hw->bc", g, col[0, ..., 0])
    return out.astype(x.dtype)


CASES.append(Case("ResizeBicubicGrad", _apply("ResizeBicubicGrad"),
                  [GRAD_54.astype(np.float32), IMG], _bicubic_grad_ref, dtypes=F, fixed=(0,),
                  grad=False, atol=1e-4))

# -- colour --------------------------------------------------------------------------------------
F32 = (tf.float32,)  # TF 1.15's Adjust* ops take half and float, no double
CASES += [
    Case("AdjustContrastv2", _apply("AdjustContrastv2"), [IMG, np.float32(1.7)], ref_contrast,
         dtypes=F32, fixed=(1,), grad=False),  # (the float64 gradient check cannot run)
    Case("AdjustSaturation", _apply("AdjustSaturation"), [RGB, np.float32(0.6)],
         _per_pixel(_saturation_px), dtypes=F32, fixed=(1,), grad=False),
    Case("AdjustSaturation", _apply("AdjustSaturation"), [RGB, np.float32(3.0)],
         _per_pixel(_saturation_px), dtypes=F32, fixed=(1,), grad=False,
         name="AdjustSaturation_clipped"),
    Case("AdjustHue", _apply("AdjustHue"), [RGB, np.float32(0.3)], _per_pixel(_hue_px),
         dtypes=F32, fixed=(1,), grad=False, atol=1e-5),
    Case("AdjustHue", _apply("AdjustHue"), [RGB, np.float32(-0.85)], _per_pixel(_hue_px),
         dtypes=F32, fixed=(1,), grad=False, atol=1e-5, name="AdjustHue_negative"),
    Case("RGBToHSV", _apply("RGBToHSV"), [RGB],
         lambda x: np.array([colorsys.rgb_to_hsv(*p) for p in x.reshape(-1, 3).astype(float)]
                            ).reshape(x.shape).astype(x.dtype), dtypes=F, grad=False),
    Case("HSVToRGB", _apply("HSVToRGB"), [RGB],
         lambda x: np.array([colorsys.hsv_to_rgb(*p) for p in x.reshape(-1, 3).astype(float)]
                            ).reshape(x.shape).astype(x.dtype), dtypes=F, grad=False),
]


# -- bounding boxes ------------------------------------------------------------------------------


def _check_scale_and_translate():
    """ScaleAndTranslate with the triangle kernel, no antialiasing and scale = out / in is
    the half-pixel bilinear resize; its gradient op is that resize's transpose."""
    x = IMG.astype(np.float32)
    scale = np.array([5 / 3, 7 / 4], np.float32)
    y = _ops.apply_op("ScaleAndTranslate", [x, _size((5, 7)), scale, np.zeros(2, np.float32)],
                      {"kernel_type": "triangle", "antialias": False})._outputs[0]
    g = GRAD_54.astype(np.float32)
    dx = _ops.apply_op("ScaleAndTranslateGrad", [g, x, scale, np.zeros(2, np.float32)],
                       {"kernel_type": "triangle", "antialias": False})._outputs[0]
    with tf.Session() as sess:
        y, dx = sess.run([y, dx])
    np.testing.assert_allclose(y, ref_bilinear(IMG, (5, 7), half=True), atol=1e-4)
    np.testing.assert_allclose(dx, ref_bilinear_grad(GRAD_54, IMG, half=True), atol=1e-4)


CASES.append(Case(("ScaleAndTranslate", "ScaleAndTranslateGrad"),
                  check=_check_scale_and_translate, name="ScaleAndTranslate_triangle"))


def ref_draw(images, boxes, colors=((1, 1, 0, 1), (0, 0, 1, 1), (1, 0, 0, 1))):
    out = images.copy()
    _, h, w, _ = images.shape
    for b in range(images.shape[0]):
        for k, (y0, x0, y1, x1) in enumerate(boxes[b]):
            r0, c0 = int(y0 * (h - 1)), int(x0 * (w - 1))
            r1, c1 = int(y1 * (h - 1)), int(x1 * (w - 1))
            for i in range(h):
                for j in range(w):
                    on_row = i in (r0, r1) and c0 <= j <= c1
                    on_col = j in (c0, c1) and r0 <= i <= r1
                    if on_row or on_col:
                        out[b, i, j] = colors[k % len(colors)][:images.shape[-1]]
    return out


_BOXES = np.array([[[0.0, 0.0, 1.0, 1.0], [0.25, 0.2, 0.75, 0.6]],
                   [[0.5, 0.5, 0.5, 0.75], [0.1, 0.3, 0.9, 0.9]]], np.float32)
CASES.append(Case("DrawBoundingBoxes", _apply("DrawBoundingBoxes"),
                  [RNG.uniform(0, 1, (2, 6, 9, 3)), _BOXES], ref_draw,
                  dtypes=(tf.float32, tf.float16), fixed=(1,), grad=False))


def ref_draw_colors(images, boxes, colors):
    return ref_draw(images, boxes, colors)


CASES.append(Case("DrawBoundingBoxesV2", _apply("DrawBoundingBoxesV2"),
                  [RNG.uniform(0, 1, (2, 6, 9, 3)), _BOXES,
                   np.array([[0.5, 0.25, 0.75, 1.0]], np.float32)], ref_draw_colors,
                  dtypes=(tf.float32, tf.float16), fixed=(1, 2), grad=False))


def ref_nms(boxes, scores, max_out, iou_t=0.5, score_t=-np.inf):
    def iou(a, b):
        ya0, xa0, ya1, xa1 = min(a[0], a[2]), min(a[1], a[3]), max(a[0], a[2]), max(a[1], a[3])
        yb0, xb0, yb1, xb1 = min(b[0], b[2]), min(b[1], b[3]), max(b[0], b[2]), max(b[1], b[3])
        aa, ab = (ya1 - ya0) * (xa1 - xa0), (yb1 - yb0) * (xb1 - xb0)
        if aa <= 0 or ab <= 0:
            return 0.0
        inter = max(min(ya1, yb1) - max(ya0, yb0), 0) * max(min(xa1, xb1) - max(xa0, xb0), 0)
        return inter / (aa + ab - inter)

    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    keep = []
    for i in order:
        if scores[i] <= score_t or len(keep) == int(max_out):
            continue
        if all(iou(boxes[i], boxes[j]) <= iou_t for j in keep):
            keep.append(i)
    return np.array(keep, np.int32)


_NMS_BOXES = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11],
                       [1, 10.1, 0, 11.1], [0, 100, 1, 101]], np.float32)
_NMS_SCORES = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3], np.float32)
CASES += [
    Case("NonMaxSuppression", _apply("NonMaxSuppression", {"iou_threshold": 0.5}),
         [_NMS_BOXES, _NMS_SCORES, np.int32(3)], ref_nms, dtypes=(tf.float32,), fixed=(2,),
         grad=False),
    Case("NonMaxSuppressionV2", _apply("NonMaxSuppressionV2"),
         [_NMS_BOXES, _NMS_SCORES, np.int32(10), np.float32(0.5)], ref_nms,
         dtypes=(tf.float32,), fixed=(2,), grad=False),
    Case("NonMaxSuppressionV3", _apply("NonMaxSuppressionV3"),
         [_NMS_BOXES, _NMS_SCORES, np.int32(10), np.float32(0.5), np.float32(0.4)], ref_nms,
         dtypes=(tf.float32,), fixed=(2,), grad=False),
]


def _check_sample_box(op_type):
    def check():
        boxes = np.array([[[0.1, 0.2, 0.6, 0.7], [0.5, 0.5, 0.9, 0.95]]], np.float32)
        results = []
        for _ in range(2):
            with tf.Graph().as_default():
                inputs = [tf.constant([40, 60, 3]), tf.constant(boxes)]
                attrs = {"seed": 3, "seed2": 5, "area_range": [0.1, 0.8],
                         "aspect_ratio_range": [0.5, 2.0]}
                if op_type.endswith("V2"):
                    inputs.append(tf.constant(0.3))
                else:
                    attrs["min_object_covered"] = 0.3
                begin, size, bbox = _apply(op_type, attrs)(*inputs)
                assert [t.get_shape().as_list() for t in (begin, size, bbox)] == [
                    [3], [3], [1, 1, 4]]
                assert begin.dtype == tf.int32 and bbox.dtype == tf.float32
                with tf.Session() as s:
                    results.append([s.run([begin, size, bbox]) for _ in range(20)])
        for (b1, s1, x1), (b2, s2, x2) in zip(*results):  # seeded: same sequence per session
            np.testing.assert_array_equal(b1, b2)
            np.testing.assert_array_equal(s1, s2)
        assert len({tuple(b) for b, _, _ in results[0]}) > 1  # and it moves between runs
        for b, s, x in results[0]:
            y0, x0 = b[:2]
            h, w = s[:2]
            assert b[2] == 0 and s[2] == -1
            assert 0 <= y0 and y0 + h <= 40 and 0 <= x0 and x0 + w <= 60
            np.testing.assert_allclose(x[0, 0], [y0 / 40, x0 / 60, (y0 + h) / 40,
                                                 (x0 + w) / 60], rtol=1e-6)

    return check


CASES += [
    Case("SampleDistortedBoundingBox", check=_check_sample_box("SampleDistortedBoundingBox")),
    Case("SampleDistortedBoundingBoxV2",
         check=_check_sample_box("SampleDistortedBoundingBoxV2")),
]


# -- codecs --------------------------------------------------------------------------------------


def _pil():
    return pytest.importorskip("PIL.Image", reason="Pillow (the 'image' extra) is not installed")


def _run(fn, *args):
    with tf.Graph().as_default():
        out = fn(*args)
        with tf.Session() as s:
            return out, s.run(out)


def _check_png():
    for dt, top in ((tf.uint8, 255), (tf.uint16, 65535)):
        for c in (1, 2, 3, 4):
            img = RNG.randint(0, top + 1, size=(5, 7, c)).astype(dt.as_numpy_dtype)
            enc, data = _run(lambda img=img: _apply("EncodePng")(tf.constant(img)))
            assert enc.dtype == tf.string and enc.get_shape().as_list() == []
            dec, back = _run(lambda d=data, dt=dt: _apply("DecodePng", {"dtype": dt})(
                tf.constant(d)))
            assert dec.get_shape().as_list() == [None, None, None]
            assert back.dtype == dt.as_numpy_dtype
            np.testing.assert_array_equal(back, img)


def _check_jpeg():
    pil = _pil()
    img = np.zeros((16, 24, 3), np.uint8)
    img[:8] = [200, 40, 40]
    img[8:] = [30, 160, 220]
    _, data = _run(lambda: _apply("EncodeJpeg", {"quality": 95})(tf.constant(img)))
    assert data[:3] == b"\xff\xd8\xff"
    assert pil.open(io.BytesIO(data)).size == (24, 16)
    dec, back = _run(lambda: _apply("DecodeJpeg", {"channels": 3})(tf.constant(data)))
    assert dec.get_shape().as_list() == [None, None, 3]
    assert back.shape == img.shape
    away = np.r_[0:5, 11:16]  # rows away from the colour edge that chroma subsampling blurs
    assert np.abs(back[away].astype(int) - img[away]).max() <= 4
    _, gray = _run(lambda: _apply("DecodeJpeg", {"channels": 1})(tf.constant(data)))
    assert gray.shape == (16, 24, 1)
    _, half = _run(lambda: _apply("DecodeJpeg", {"ratio": 2})(tf.constant(data)))
    assert half.shape == (8, 12, 3)


def _check_decode_and_crop_jpeg():
    img = RNG.randint(0, 256, size=(12, 10, 3)).astype(np.uint8)
    _, data = _run(lambda: _apply("EncodeJpeg")(tf.constant(img)))
    _, full = _run(lambda: _apply("DecodeJpeg", {"channels": 3})(tf.constant(data)))
    t, crop = _run(lambda: _apply("DecodeAndCropJpeg", {"channels": 3})(
        tf.constant(data), tf.constant([2, 3, 5, 4])))
    assert t.get_shape().as_list() == [5, 4, 3]  # TF 1.15 reads a constant window
    np.testing.assert_array_equal(crop, full[2:7, 3:7])
    with pytest.raises(tf.errors.InvalidArgumentError, match="crop window"):
        _run(lambda: _apply("DecodeAndCropJpeg")(tf.constant(data), tf.constant([8, 0, 5, 4])))


def _check_extract_jpeg_shape():
    pil = _pil()
    buf = io.BytesIO()
    pil.fromarray(np.zeros((9, 13, 3), np.uint8)).save(buf, "JPEG")
    t, v = _run(lambda: _apply("ExtractJpegShape", {"output_type": tf.int64})(
        tf.constant(buf.getvalue())))
    assert t.dtype == tf.int64 and t.get_shape().as_list() == [3]
    np.testing.assert_array_equal(v, [9, 13, 3])


def _check_bmp():
    pil = _pil()
    img = RNG.randint(0, 256, size=(4, 5, 3)).astype(np.uint8)
    buf = io.BytesIO()
    pil.fromarray(img).save(buf, "BMP")
    _, back = _run(lambda: _apply("DecodeBmp")(tf.constant(buf.getvalue())))
    np.testing.assert_array_equal(back, img)
    # TF 1.15: a set channels attr must be the file's (3 bytes a pixel here)
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not match bits per pixel"):
        _run(lambda: _apply("DecodeBmp", {"channels": 4})(tf.constant(buf.getvalue())))


def _gif_bytes(pil, frames):
    buf = io.BytesIO()
    ims = [pil.fromarray(f) for f in frames]
    ims[0].save(buf, "GIF", save_all=True, append_images=ims[1:])
    return buf.getvalue()


def _check_gif():
    pil = _pil()
    frames = [np.full((4, 6, 3), v, np.uint8) for v in ((255, 0, 0), (0, 0, 255))]
    data = _gif_bytes(pil, frames)
    t, back = _run(lambda: _apply("DecodeGif")(tf.constant(data)))
    assert t.get_shape().as_list() == [None, None, None, 3]
    np.testing.assert_array_equal(back, np.stack(frames))


def _check_decode_image():
    img = RNG.randint(0, 256, size=(3, 4, 3)).astype(np.uint8)
    _, png = _run(lambda: _apply("EncodePng")(tf.constant(img)))
    t, back = _run(lambda: _apply("DecodeImage")(tf.constant(png)))
    assert t.get_shape().ndims is None
    np.testing.assert_array_equal(back, img)
    _, f = _run(lambda: _apply("DecodeImage", {"dtype": tf.float32, "channels": 3,
                                               "expand_animations": False})(tf.constant(png)))
    np.testing.assert_allclose(f, img.astype(np.uint16) * 257 / 65535.0, rtol=1e-6)
    _, u16 = _run(lambda: _apply("DecodeImage", {"dtype": tf.uint16})(tf.constant(png)))
    np.testing.assert_array_equal(u16, img.astype(np.uint16) * 257)


CASES += [
    Case(("EncodePng", "DecodePng"), check=_check_png, name="png_round_trip"),
    Case(("EncodeJpeg", "DecodeJpeg"), check=_check_jpeg, name="jpeg_round_trip"),
    Case("ExtractJpegShape", check=_check_extract_jpeg_shape),
    Case("DecodeAndCropJpeg", check=_check_decode_and_crop_jpeg),
    Case("DecodeBmp", check=_check_bmp),
    Case("DecodeGif", check=_check_gif),
    Case("DecodeImage", check=_check_decode_image),
]
