"""Op-table rows for CropAndResize and its gradient ops (against per-sample loops and finite
differences of the loop reference), the NonMaxSuppression V4/V5/WithOverlaps/Combined ops
(against a plain greedy loop) and EncodeJpegVariableQuality."""

import math

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.framework import ops as _ops
from tideflow.ops import (  # noqa: F401 - registers the ops
    crop_and_resize_ops,
    image_extra_ops,
    nms_ops,
)

_rng = np.random.RandomState(17)
IMG = _rng.uniform(0, 10, (2, 6, 7, 2))
# in-range, partly outside, single-point and flipped boxes; samples avoid integer positions
BOXES = np.array([[0.11, 0.21, 0.73, 0.91], [-0.21, 0.33, 1.31, 0.61], [0.52, 0.47, 0.55, 0.515],
                  [0.83, 0.92, 0.21, 0.13]], np.float32)
IND = np.array([0, 1, 1, 0], np.int32)
SIZE = np.array([4, 5], np.int32)
_G = _rng.randn(4, 4, 5, 2)


def _positions(v1, v2, n_out, n_in):
    if n_out > 1:
        return [v1 * (n_in - 1) + i * (v2 - v1) * (n_in - 1) / (n_out - 1) for i in range(n_out)]
    return [0.5 * (v1 + v2) * (n_in - 1)]


def ref_crop(img, boxes, ind, size, method="bilinear", extrapolation=0.0):
    _, h, w, d = img.shape
    ch, cw = (int(v) for v in size)
    out = np.zeros((len(boxes), ch, cw, d))
    for b, (y1, x1, y2, x2) in enumerate(boxes.astype(np.float64)):
        src = img[ind[b]].astype(np.float64)
        for i, y in enumerate(_positions(y1, y2, ch, h)):
            for j, x in enumerate(_positions(x1, x2, cw, w)):
                if not (0 <= y <= h - 1 and 0 <= x <= w - 1):
                    out[b, i, j] = extrapolation
                elif method == "nearest":
                    out[b, i, j] = src[math.floor(y + 0.5), math.floor(x + 0.5)]
                else:
                    t, le = math.floor(y), math.floor(x)
                    bo, ri = math.ceil(y), math.ceil(x)
                    fy, fx = y - t, x - le
                    top = src[t, le] * (1 - fx) + src[t, ri] * fx
                    bot = src[bo, le] * (1 - fx) + src[bo, ri] * fx
                    out[b, i, j] = top * (1 - fy) + bot * fy
    return out.astype(np.float32)


def ref_grad_image(g, boxes, ind, shape, method):
    # the crop is linear in the image: its adjoint by unit images
    out = np.zeros(shape)
    for k in range(int(np.prod(shape))):
        e = np.zeros(shape)
        e.flat[k] = 1.0
        out.flat[k] = (ref_crop(e, boxes, ind, g.shape[1:3], method).astype(np.float64) * g).sum()
    return out


def ref_grad_boxes(g, img, boxes, ind):
    out = np.zeros(boxes.shape)
    b64 = boxes.astype(np.float64)
    for k in range(b64.size):
        d = np.zeros_like(b64)
        d.flat[k] = 1e-7

        def f(bb):
            return _crop64(img, bb, ind, g.shape[1:3])

        out.flat[k] = ((f(b64 + d) - f(b64 - d)) * g).sum() / 2e-7
    return out.astype(np.float32)


def _crop64(img, boxes, ind, size):
    _, h, w, d = img.shape
    ch, cw = size
    out = np.zeros((len(boxes), ch, cw, d))
    for b, (y1, x1, y2, x2) in enumerate(boxes):
        for i, y in enumerate(_positions(y1, y2, ch, h)):
            for j, x in enumerate(_positions(x1, x2, cw, w)):
                if 0 <= y <= h - 1 and 0 <= x <= w - 1:
                    t, le = math.floor(y), math.floor(x)
                    fy, fx = y - t, x - le
                    bo, ri = min(t + 1, h - 1), min(le + 1, w - 1)
                    s = img[ind[b]]
                    out[b, i, j] = ((s[t, le] * (1 - fx) + s[t, ri] * fx) * (1 - fy) +
                                    (s[bo, le] * (1 - fx) + s[bo, ri] * fx) * fy)
    return out


def _crop(method, extrapolation=0.0):
    def fn(img, boxes, ind, size):
        return _ops.apply_op("CropAndResize", [img, boxes, ind, size], {
            "method": method, "extrapolation_value": extrapolation})._outputs[0]

    return fn


def _grad_image(method):
    def fn(g, boxes, ind, size):
        return _ops.apply_op("CropAndResizeGradImage", [g, boxes, ind, size],
                             {"T": tf.float64, "method": method})._outputs[0]

    return fn


def _grad_boxes(g, img, boxes, ind):
    return _ops.apply_op("CropAndResizeGradBoxes", [g, img, boxes, ind])._outputs[0]


CASES = []
for _m in ("bilinear", "nearest"):
    CASES += [
        Case("CropAndResize", _crop(_m, -1.5), [IMG, BOXES, IND, SIZE],
             lambda i, b, n, s, m=_m: ref_crop(i, b, n, s, m, -1.5), dtypes=(tf.float32,
                                                                              tf.float64),
             fixed=(1, 2, 3), grad=False, rtol=1e-5, atol=1e-5, name=f"CropAndResize_{_m}"),
        Case("CropAndResize", _crop(_m), [IMG.astype(np.uint8), BOXES, IND, np.array([1, 3], np.int32)],
             lambda i, b, n, s, m=_m: ref_crop(i, b, n, s, m), dtypes=(tf.uint8, tf.int32),
             fixed=(1, 2, 3), grad=False, rtol=1e-5, atol=1e-5,
             name=f"CropAndResize_{_m}_1x3_int"),
        Case("CropAndResizeGradImage", _grad_image(_m),
             [_G.astype(np.float32), BOXES, IND, np.array(IMG.shape, np.int32)],
             lambda g, b, n, s, m=_m: ref_grad_image(g, b, n, tuple(s), m),
             dtypes=(tf.float32,), fixed=(0, 1, 2, 3), grad=False, rtol=1e-5, atol=1e-5,
             name=f"CropAndResizeGradImage_{_m}"),
    ]
CASES.append(Case("CropAndResizeGradBoxes", _grad_boxes,
                  [_G.astype(np.float32), IMG, BOXES, IND],
                  lambda g, i, b, n: ref_grad_boxes(g, i, b, n), dtypes=(tf.float32, tf.float64),
                  fixed=(0, 2, 3), grad=False, rtol=2e-3, atol=2e-3))


# -- non-max suppression ----------------------------------------------------------------------

NBOX = _rng.uniform(0, 1, (10, 4)).astype(np.float32)
NSC = _rng.uniform(0, 1, 10).astype(np.float32)


def _iou(a, b):
    ay0, ay1 = sorted((a[0], a[2]))
    ax0, ax1 = sorted((a[1], a[3]))
    by0, by1 = sorted((b[0], b[2]))
    bx0, bx1 = sorted((b[1], b[3]))
    inter = max(min(ay1, by1) - max(ay0, by0), 0) * max(min(ax1, bx1) - max(ax0, bx0), 0)
    ua = (ay1 - ay0) * (ax1 - ax0) + (by1 - by0) * (bx1 - bx0) - inter
    return 0.0 if ua <= 0 else inter / ua


def ref_greedy(sim, scores, max_out, thr, score_thr):
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    keep = []
    for i in order:
        if scores[i] <= score_thr or len(keep) >= max_out:
            continue
        if all(sim(i, j) <= thr for j in keep):
            keep.append(i)
    return keep


def _v4(boxes, scores, m, thr, sthr):
    return list(_ops.apply_op("NonMaxSuppressionV4", [boxes, scores, m, thr, sthr],
                              {"pad_to_max_output_size": True})._outputs)


def _v4_ref(boxes, scores, m, thr, sthr):
    keep = ref_greedy(lambda i, j: _iou(boxes[i], boxes[j]), scores, int(m), float(thr),
                      float(sthr))
    out = np.zeros(int(m), np.int32)
    out[:len(keep)] = keep
    return [out, np.int32(len(keep))]


def _v5(boxes, scores, m, thr, sthr, sigma):
    return list(_ops.apply_op("NonMaxSuppressionV5", [boxes, scores, m, thr, sthr, sigma])
                ._outputs)


def _v5_ref(boxes, scores, m, thr, sthr, sigma):
    keep = ref_greedy(lambda i, j: _iou(boxes[i], boxes[j]), scores, int(m), float(thr),
                      float(sthr))
    return [np.array(keep, np.int32), scores[keep], np.int32(len(keep))]


def _v5_soft_check():
    # soft-NMS: one box overlapping the best one decays by exp(-iou^2 / (2 sigma)) and is kept
    boxes = np.array([[0, 0, 1, 1], [0, 0.5, 1, 1.5], [0, 3, 1, 4]], np.float32)
    scores = np.array([0.9, 0.8, 0.5], np.float32)
    with tf.Graph().as_default():
        idx, sc, n = _v5(tf.constant(boxes), tf.constant(scores), 3, tf.constant(1.0),
                         tf.constant(0.0), tf.constant(0.5))
        with tf.Session() as s:
            idx, sc, n = s.run([idx, sc, n])
    decayed = 0.8 * math.exp(-(1 / 3) ** 2 / (2 * 0.5))
    assert idx.tolist() == [0, 1, 2] and n == 3
    np.testing.assert_allclose(sc, [0.9, decayed, 0.5], rtol=1e-6)


OVL = _rng.uniform(0, 1, (8, 8)).astype(np.float32)
# a box overlaps itself fully (TF 1.15 pushes a selected candidate back into its queue, so a
# self-overlap under the threshold would select it again)
np.fill_diagonal(OVL, 1.0)


def _ovl(o, s, m, t, st):
    return _ops.apply_op("NonMaxSuppressionWithOverlaps", [o, s, m, t, st])._outputs[0]


def _ovl_ref(o, s, m, t, st):
    return np.array(ref_greedy(lambda i, j: o[i, j], s, int(m), float(t), float(st)), np.int32)


CB = _rng.uniform(-0.1, 1.1, (2, 8, 1, 4)).astype(np.float32)
CS = _rng.uniform(0, 1, (2, 8, 3)).astype(np.float32)


def _combined(b, s, per, total, t, st):
    return list(_ops.apply_op("CombinedNonMaxSuppression", [b, s, per, total, t, st])._outputs)


def _combined_ref(b, s, per, total, t, st):
    batch = b.shape[0]
    outb, outs, outc = np.zeros((batch, total, 4)), np.zeros((batch, total)), np.zeros(
        (batch, total))
    valid = np.zeros(batch, np.int32)
    for n in range(batch):
        found = []
        for c in range(s.shape[2]):
            keep = ref_greedy(lambda i, j, n=n: _iou(b[n, i, 0], b[n, j, 0]), s[n, :, c],
                              int(per), float(t), float(st))
            found += [(s[n, i, c], c, b[n, i, 0]) for i in keep]
        found.sort(key=lambda r: -r[0])
        found = found[:int(total)]
        valid[n] = len(found)
        for k, (sc, c, box) in enumerate(found):
            outb[n, k], outs[n, k], outc[n, k] = np.clip(box, 0, 1), sc, c
    return [outb.astype(np.float32), outs.astype(np.float32), outc.astype(np.float32), valid]


def _jpeg_check():
    img = (np.arange(16 * 16 * 3) % 251).reshape(16, 16, 3).astype(np.uint8)
    with tf.Graph().as_default():
        q = tf.placeholder(tf.int32, [])
        enc = _ops.apply_op("EncodeJpegVariableQuality", [tf.constant(img), q])._outputs[0]
        assert enc.get_shape().as_list() == []
        dec = tf.image.decode_jpeg(enc)
        with tf.Session() as s:
            lo, lo_img = s.run([enc, dec], {q: 5})
            hi, hi_img = s.run([enc, dec], {q: 95})
    assert lo[:2] == b"\xff\xd8" and len(lo) < len(hi)
    err_lo = np.abs(lo_img.astype(float) - img).mean()
    err_hi = np.abs(hi_img.astype(float) - img).mean()
    assert err_hi < err_lo


F32 = (tf.float32,)
CASES += [
    Case("NonMaxSuppressionV4", _v4, [NBOX, NSC, np.int32(7), np.float32(0.3), np.float32(0.2)],
         _v4_ref, dtypes=F32, fixed=(2,), grad=False),
    Case("NonMaxSuppressionV5", _v5,
         [NBOX, NSC, np.int32(6), np.float32(0.4), np.float32(-np.inf), np.float32(0.0)],
         _v5_ref, dtypes=F32, fixed=(2,), grad=False),
    Case("NonMaxSuppressionV5", check=_v5_soft_check, name="NonMaxSuppressionV5_soft"),
    Case("NonMaxSuppressionWithOverlaps", _ovl,
         [OVL, NSC[:8], np.int32(5), np.float32(0.6), np.float32(0.1)], _ovl_ref, dtypes=F32,
         fixed=(2,), grad=False),
    Case("CombinedNonMaxSuppression", _combined,
         [CB, CS, np.int32(3), np.int32(6), np.float32(0.5), np.float32(0.2)], _combined_ref,
         dtypes=F32, fixed=(2, 3), grad=False),
    Case("EncodeJpegVariableQuality", check=_jpeg_check),
]


# -- glimpses -----------------------------------------------------------------------------------

GIMG = _rng.uniform(1, 5, (2, 6, 7, 2)).astype(np.float32)
GOFF = np.array([[0.3, -0.4], [-0.9, 0.95]], np.float32)


def ref_glimpse(img, size, offsets, centered, normalized, v1=False):
    """Zero-filled glimpses; the start of each is placed as TF places it."""
    b, h, w, d = img.shape
    gh, gw = size
    out = np.zeros((b, gh, gw, d), np.float32)
    for i in range(b):
        starts = []
        for off, dim, sz in ((offsets[i, 0], h, gh), (offsets[i, 1], w, gw)):
            if v1:  # ExtractGlimpse: the offset is the centre; centered ones half-scaled
                v = np.float32(off) * (dim if normalized else 1)
                v = (v / 2 + dim / 2 if centered else v) - sz / 2
            elif normalized and centered:
                v = off * dim / 2 + dim / 2 - sz / 2
            elif normalized:
                v = off * dim
            elif centered:
                v = off + dim / 2
            else:
                v = off
            starts.append(int(np.trunc(np.float32(v))))
        for y in range(gh):
            for x in range(gw):
                yy, xx = starts[0] + y, starts[1] + x
                if 0 <= yy < h and 0 <= xx < w:
                    out[i, y, x] = img[i, yy, xx]
    return out


def _glimpse_check(op_type):
    def check():
        for centered in (True, False):
            for normalized in (True, False):
                offsets = GOFF if normalized else GOFF * 4
                with tf.Graph().as_default():
                    p = tf.placeholder(tf.float32, [None, None, None, 2])
                    out = _ops.apply_op(op_type, [p, np.array([3, 4], np.int32), offsets], {
                        "centered": centered, "normalized": normalized,
                        "noise": "zero"})._outputs[0]
                    # the batch is the offsets' (TF 1.15's shape function merges them)
                    assert out.get_shape().as_list() == [len(offsets), 3, 4, 2]
                    got = tf.Session().run(out, {p: GIMG})
                np.testing.assert_array_equal(
                    got, ref_glimpse(GIMG, (3, 4), offsets, centered, normalized,
                                     op_type == "ExtractGlimpse"))
        # uniform noise outside the image stays within the image's range
        with tf.Graph().as_default():
            out = _ops.apply_op(op_type, [GIMG, np.array([5, 5], np.int32),
                                          np.array([[1.0, 1.0], [1.0, 1.0]], np.float32)],
                                {"noise": "uniform"})._outputs[0]
            got = tf.Session().run(out)
        zero_filled = ref_glimpse(GIMG, (5, 5), np.ones((2, 2), np.float32), True, True)
        outside = zero_filled == 0
        assert outside.any()
        np.testing.assert_array_equal(got[~outside], zero_filled[~outside])
        assert (got[outside] >= 1).all() and (got[outside] <= 5).all()

    return check


CASES += [
    Case("ExtractGlimpse", check=_glimpse_check("ExtractGlimpse")),
    Case("ExtractGlimpseV2", check=_glimpse_check("ExtractGlimpseV2")),
]


def _webp_check():
    import io

    import pytest

    pil = pytest.importorskip("PIL", reason="WebP decoding uses Pillow (optional)")
    from PIL import Image, features

    if not features.check("webp"):
        pytest.skip(f"this Pillow ({pil.__version__}) has no WebP support")

    rgb = (np.arange(5 * 6 * 3) % 251).reshape(5, 6, 3).astype(np.uint8)
    rgba = np.dstack([rgb, np.full((5, 6, 1), 200, np.uint8)])

    def encode(frames, **kw):
        buf = io.BytesIO()
        ims = [Image.fromarray(f) for f in frames]
        ims[0].save(buf, "WEBP", lossless=True, save_all=len(ims) > 1, append_images=ims[1:],
                    **kw)
        return buf.getvalue()

    with tf.Graph().as_default():
        p = tf.placeholder(tf.string, [])
        auto = _ops.apply_op("DecodeWebP", [p])._outputs[0]
        four = _ops.apply_op("DecodeWebP", [p], {"channels": 4})._outputs[0]
        assert four.get_shape().as_list() == [None, None, None, 4]
        with tf.Session() as s:
            np.testing.assert_array_equal(s.run(auto, {p: encode([rgb])}), rgb[None])
            np.testing.assert_array_equal(s.run(four, {p: encode([rgba])}), rgba[None])
            anim = s.run(auto, {p: encode([rgba, rgba // 2, rgba // 3], duration=50)})
            np.testing.assert_array_equal(anim, np.stack([rgba, rgba // 2, rgba // 3]))
            try:
                s.run(four, {p: encode([rgb])})
            except tf.errors.InvalidArgumentError as e:
                assert "does not match" in str(e)
            else:
                raise AssertionError("requesting 4 channels of an RGB WebP must fail")


CASES.append(Case("DecodeWebP", check=_webp_check))
