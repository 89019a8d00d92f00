"""tf.image wrappers: resize gradients, crops/pads/flips, dtype conversion, colour, random
distortions with seeds, sample_distorted_bounding_box invariants, codecs and error cases."""

import io
import struct
import zlib

import numpy as np
import pytest

import tideflow as tf
from tideflow import image as tfi
from tideflow.framework import errors
from tideflow.ops.gradients import gradients

RNG = np.random.RandomState(3)


def run(fetches, feed=None):
    with tf.Session() as s:
        return s.run(fetches, feed)


# -- resize ------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", [tfi.ResizeMethod.BILINEAR, tfi.ResizeMethod.BICUBIC,
                                    tfi.ResizeMethod.NEAREST_NEIGHBOR])
@pytest.mark.parametrize("size,align", [((5, 7), False), ((2, 3), False), ((5, 7), True)])
def test_resize_gradient_matches_finite_differences(method, size, align):
    x0 = RNG.uniform(0, 1, (2, 3, 4, 2))
    w = RNG.uniform(-1, 1, (2,) + size + (2,))
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, x0.shape)
        y = tfi.resize_images(x, size, method=method, align_corners=align)
        loss = tf.reduce_sum(tf.cast(y, tf.float64) * w)
        (g,) = gradients(loss, [x])
        with tf.Session() as s:
            analytic = s.run(g, {x: x0})
            # the resizes are linear, so a large step is exact up to float32 rounding
            num = np.zeros_like(x0)
            for idx in np.ndindex(*x0.shape):
                xp, xm = x0.copy(), x0.copy()
                xp[idx] += 1.0
                xm[idx] -= 1.0
                num[idx] = (s.run(loss, {x: xp}) - s.run(loss, {x: xm})) / 2.0
    np.testing.assert_allclose(analytic, num, rtol=1e-4, atol=1e-4)


def test_resize_images_3d_4d_and_shortcuts():
    img = RNG.uniform(0, 1, (4, 6, 3)).astype(np.float32)
    with tf.Graph().as_default():
        r3 = tfi.resize_images(img, [8, 12])
        r4 = tfi.resize_images(img[None], [2, 3], method=tfi.ResizeMethod.AREA)
        same = tfi.resize_images(tf.constant(img), [4, 6])
        keep = tfi.resize_images(img, [8, 8], preserve_aspect_ratio=True)
        nn = tfi.resize_nearest_neighbor(img[None].astype(np.uint8), [8, 12])
        assert r3.get_shape().as_list() == [8, 12, 3]
        assert r4.get_shape().as_list() == [1, 2, 3, 3]
        assert same.op.type == "Const" or same.get_shape().as_list() == [4, 6, 3]
        assert nn.dtype == tf.uint8
        a, b, c, d = run([r3, r4, same, keep])
    assert a.dtype == np.float32 and a.shape == (8, 12, 3)
    np.testing.assert_allclose(b[0], img.reshape(2, 2, 3, 2, 3).mean(axis=(1, 3)), rtol=1e-5)
    np.testing.assert_array_equal(c, img)
    assert d.shape == (5, 8, 3)  # 4x6 scaled by 8/6 -> 5.33 rounds to 5, 8


def test_resize_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError):
            tfi.resize_images(np.zeros((2, 2), np.float32), [3, 3])
        with pytest.raises(ValueError):
            tfi.resize_images(np.zeros((2, 2, 1), np.float32), [3, 3, 3])
        with pytest.raises(ValueError):
            tfi.resize_images(np.zeros((2, 2, 1), np.float32), [3, 3], method=9)
        p = tf.placeholder(tf.float32)
        y = tfi.resize_bilinear(p, [3, 3])
        with pytest.raises(errors.InvalidArgumentError):
            run(y, {p: np.zeros((2, 2, 1))})
        z = tfi.resize_bilinear(tf.zeros([1, 2, 2, 1]), [3, 3], align_corners=True,
                                half_pixel_centers=True)
        with pytest.raises(errors.InvalidArgumentError):
            run(z)


def test_resize_with_crop_or_pad_static_and_dynamic():
    img = np.arange(4 * 6 * 1, dtype=np.float32).reshape(4, 6, 1)
    want = np.zeros((6, 4, 1), np.float32)
    want[1:5] = img[:, 1:5]
    with tf.Graph().as_default():
        a = tfi.resize_image_with_crop_or_pad(img, 6, 4)
        p = tf.placeholder(tf.float32, [None, None, 1])
        b = tfi.resize_image_with_crop_or_pad(p, 6, 4)
        assert a.get_shape().as_list() == [6, 4, 1]
        assert b.get_shape().as_list() == [6, 4, 1]
        va, vb = run([a, b], {p: img})
    np.testing.assert_array_equal(va, want)
    np.testing.assert_array_equal(vb, want)


def test_resize_image_with_pad():
    img = np.ones((4, 8, 1), np.float32)
    with tf.Graph().as_default():
        out = run(tfi.resize_image_with_pad(img, 6, 6))
    assert out.shape == (6, 6, 1)
    np.testing.assert_array_equal(out[:, :, 0].sum(1) > 0, [0, 1, 1, 1, 0, 0])


# -- crops, pads, flips --------------------------------------------------------------------------


def test_crop_pad_central_crop():
    img = RNG.randint(0, 255, (2, 6, 8, 3)).astype(np.uint8)
    with tf.Graph().as_default():
        c = tfi.crop_to_bounding_box(img, 1, 2, 3, 4)
        p = tfi.pad_to_bounding_box(img[0], 1, 2, 9, 11)
        cc = tfi.central_crop(img[0], 0.5)
        assert c.get_shape().as_list() == [2, 3, 4, 3]
        assert p.get_shape().as_list() == [9, 11, 3]
        vc, vp, vcc = run([c, p, cc])
        with pytest.raises(ValueError):
            tfi.crop_to_bounding_box(img, 4, 0, 3, 4)
        with pytest.raises(ValueError):
            tfi.pad_to_bounding_box(img, 0, 0, 5, 8)
        with pytest.raises(ValueError):
            tfi.central_crop(img, 0.0)
        with pytest.raises(ValueError):
            tfi.flip_left_right(np.zeros((2, 2), np.float32))
    np.testing.assert_array_equal(vc, img[:, 1:4, 2:6])
    want = np.zeros((9, 11, 3), np.uint8)
    want[1:7, 2:10] = img[0]
    np.testing.assert_array_equal(vp, want)
    np.testing.assert_array_equal(vcc, img[0, 1:5, 2:6])


def test_flips_transpose_rot90():
    img = RNG.uniform(size=(3, 4, 2)).astype(np.float32)
    batch = np.stack([img, img + 1])
    with tf.Graph().as_default():
        outs = run([tfi.flip_left_right(img), tfi.flip_up_down(img), tfi.transpose_image(img),
                    tfi.flip_left_right(batch), tfi.transpose_image(batch)]
                   + [tfi.rot90(img, k) for k in range(-1, 5)]
                   + [tfi.rot90(batch, 1)])
    np.testing.assert_array_equal(outs[0], img[:, ::-1])
    np.testing.assert_array_equal(outs[1], img[::-1])
    np.testing.assert_array_equal(outs[2], img.transpose(1, 0, 2))
    np.testing.assert_array_equal(outs[3], batch[:, :, ::-1])
    np.testing.assert_array_equal(outs[4], batch.transpose(0, 2, 1, 3))
    for k, got in zip(range(-1, 5), outs[5:11]):
        np.testing.assert_array_equal(got, np.rot90(img, k, axes=(0, 1)))
    np.testing.assert_array_equal(outs[11], np.rot90(batch, 1, axes=(1, 2)))


def _seeded(build, runs=8, seed=11):
    out = []
    for _ in range(2):
        with tf.Graph().as_default():
            tf.set_random_seed(seed)
            t = build()
            with tf.Session() as s:
                out.append([s.run(t) for _ in range(runs)])
    return out


def test_random_flips_and_crop_are_seeded():
    img = RNG.uniform(size=(3, 4, 2)).astype(np.float32)
    for fn, flipped in ((tfi.random_flip_left_right, img[:, ::-1]),
                        (tfi.random_flip_up_down, img[::-1])):
        a, b = _seeded(lambda fn=fn: fn(img), runs=16)
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
        kinds = {0 if np.array_equal(x, img) else 1 for x in a}
        assert kinds == {0, 1}
        assert all(np.array_equal(x, img) or np.array_equal(x, flipped) for x in a)
    batch = np.stack([img] * 32)
    a, _ = _seeded(lambda: tfi.random_flip_left_right(batch), runs=1)
    assert len({np.array_equal(x, img) for x in a[0]}) == 2  # per-image decisions
    a, b = _seeded(lambda: tfi.random_crop(img, [2, 2, 2]))
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
        assert x.shape == (2, 2, 2)
        assert any(np.array_equal(x, img[i:i + 2, j:j + 2]) for i in range(2) for j in range(3))
    with tf.Graph().as_default(), pytest.raises(errors.InvalidArgumentError):
        run(tfi.random_crop(img, [4, 2, 2]))


# -- dtype conversion and colour -----------------------------------------------------------------


def test_convert_image_dtype_rules():
    u8 = np.array([0, 1, 127, 128, 255], np.uint8)
    f = np.array([0.0, 0.5, 0.999, 1.0, 1.5, -0.1], np.float32)
    i16 = np.array([0, 255, 256, 32767], np.int16)
    with tf.Graph().as_default():
        c = tfi.convert_image_dtype
        outs = run([c(u8, tf.float32), c(f, tf.uint8, saturate=True), c(u8, tf.uint16),
                    c(i16, tf.uint8), c(u8, tf.int16), c(f, tf.float64), c(u8, tf.uint8),
                    c(f[:4], tf.uint8)])
    np.testing.assert_allclose(outs[0], u8 / np.float32(255), rtol=1e-6)
    np.testing.assert_array_equal(outs[1], [0, 127, 255, 255, 255, 0])
    np.testing.assert_array_equal(outs[2], u8.astype(np.uint16) * 256)
    np.testing.assert_array_equal(outs[3], [0, 1, 2, 255])
    np.testing.assert_array_equal(outs[4], u8.astype(np.int16) * 128)
    assert outs[5].dtype == np.float64
    np.testing.assert_array_equal(outs[6], u8)
    np.testing.assert_array_equal(outs[7], [0, 127, 255, 255])
    with pytest.raises(AttributeError):
        tfi.convert_image_dtype(u8, tf.string)


def test_colour_wrappers():
    img = RNG.randint(0, 256, (4, 5, 3)).astype(np.uint8)
    flt = img / np.float32(255)
    gray = np.full((2, 3, 1), 7.0, np.float32)
    with tf.Graph().as_default():
        outs = run([
            tfi.adjust_brightness(img, 0.2), tfi.adjust_contrast(img, 2.0),
            tfi.per_image_standardization(flt), tfi.per_image_standardization(gray),
            tfi.rgb_to_grayscale(flt), tfi.grayscale_to_rgb(gray), tfi.adjust_gamma(flt, 2.0),
            tfi.adjust_saturation(img, 0.0), tfi.adjust_hue(flt, 1.0),
            tfi.hsv_to_rgb(tfi.rgb_to_hsv(flt)), tfi.total_variation(flt),
        ])
    bright, contrast, std, std_flat, g, rgb, gamma, desat, hue, back, tv = outs
    want = np.clip(img / np.float32(255) + np.float32(0.2), 0, 1) * np.float32(255.5)
    np.testing.assert_array_equal(bright, want.astype(np.uint8))
    mean = (img / 255.0).mean(axis=(0, 1))
    want = np.clip(((img / 255.0) - mean) * 2 + mean, 0, 1) * 255.5
    assert np.abs(contrast.astype(int) - want.astype(int)).max() <= 1
    np.testing.assert_allclose(std, (flt - flt.mean()) / flt.std(), rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(std_flat, np.zeros_like(gray))
    np.testing.assert_allclose(g[..., 0], flt @ np.array([0.2989, 0.587, 0.114]), rtol=1e-5)
    np.testing.assert_array_equal(rgb, np.repeat(gray, 3, -1))
    np.testing.assert_allclose(gamma, flt ** 2, rtol=1e-5)
    assert (desat.max(-1) - desat.min(-1)).max() <= 1
    np.testing.assert_allclose(hue, flt, atol=1e-5)
    np.testing.assert_allclose(back, flt, atol=1e-5)
    np.testing.assert_allclose(tv, np.abs(np.diff(flt, axis=0)).sum()
                               + np.abs(np.diff(flt, axis=1)).sum(), rtol=1e-5)


def test_random_colour_ops_seeded_and_checked():
    img = RNG.uniform(size=(4, 5, 3)).astype(np.float32)
    for build in (lambda: tfi.random_brightness(img, 0.3),
                  lambda: tfi.random_contrast(img, 0.5, 1.5),
                  lambda: tfi.random_saturation(img, 0.5, 1.5),
                  lambda: tfi.random_hue(img, 0.2)):
        a, b = _seeded(build, runs=3)
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
        assert not np.array_equal(a[0], a[1])
    with tf.Graph().as_default():
        for bad in (lambda: tfi.random_brightness(img, -1),
                    lambda: tfi.random_contrast(img, 1.0, 0.5),
                    lambda: tfi.random_saturation(img, -1.0, 0.5),
                    lambda: tfi.random_hue(img, 0.6)):
            with pytest.raises(ValueError):
                bad()


# -- bounding boxes ------------------------------------------------------------------------------


def _area_ratio_aspect(box, obj, h, w):
    y0, x0, y1, x1 = box
    oy0, ox0, oy1, ox1 = (int(obj[0] * h), int(obj[1] * w), int(obj[2] * h), int(obj[3] * w))
    inter = max(0, min(y1, oy1) - max(y0, oy0)) * max(0, min(x1, ox1) - max(x0, ox0))
    return inter / ((oy1 - oy0) * (ox1 - ox0)), (y1 - y0) * (x1 - x0) / (h * w), \
        (x1 - x0) / (y1 - y0)


def test_sample_distorted_bounding_box_invariants():
    h, w = 120, 90
    obj = [0.2, 0.3, 0.7, 0.9]
    with tf.Graph().as_default():
        begin, size, bbox = tfi.sample_distorted_bounding_box(
            [h, w, 3], [[obj]], seed=7, seed2=9, min_object_covered=0.5,
            aspect_ratio_range=[0.75, 1.33], area_range=[0.2, 0.9], max_attempts=200)
        crop = tf.slice(tf.zeros([h, w, 3]), begin, size)
        with tf.Session() as s:
            samples = [s.run([begin, size, bbox, tf.shape(crop)]) for _ in range(40)]
    full = 0
    for b, sz, box, cshape in samples:
        y0, x0, hh, ww = b[0], b[1], sz[0], sz[1]
        assert list(cshape) == [hh, ww, 3]
        assert y0 >= 0 and x0 >= 0 and y0 + hh <= h and x0 + ww <= w
        if (hh, ww) == (h, w):  # the fallback when no attempt succeeds
            full += 1
            continue
        cov, area, aspect = _area_ratio_aspect((y0, x0, y0 + hh, x0 + ww), obj, h, w)
        assert cov >= 0.5
        assert 0.2 - 0.02 <= area <= 0.9 + 0.02
        assert 0.75 - 0.02 <= aspect <= 1.33 + 0.02
        np.testing.assert_allclose(box[0, 0], [y0 / h, x0 / w, (y0 + hh) / h, (x0 + ww) / w],
                                   rtol=1e-6)
    assert full < 10


def test_sample_distorted_bounding_box_no_boxes():
    with tf.Graph().as_default():
        empty = np.zeros((1, 0, 4), np.float32)
        ok = tfi.sample_distorted_bounding_box([10, 10, 1], empty, seed=1,
                                               use_image_if_no_bounding_boxes=True)
        bad = tfi.sample_distorted_bounding_box([10, 10, 1], empty, seed=1)
        out_of_range = tfi.sample_distorted_bounding_box([10, 10, 1], [[[0, 0, 2, 1]]], seed=1)
        b, s, _ = run(ok)
        assert b[0] + s[0] <= 10 and b[1] + s[1] <= 10
        for t in (bad, out_of_range):
            with pytest.raises(errors.InvalidArgumentError):
                run(t)


def test_nms_and_draw_wrappers():
    boxes = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 5, 1, 6]], np.float32)
    scores = np.array([0.9, 0.8, 0.1], np.float32)
    with tf.Graph().as_default():
        keep = tfi.non_max_suppression(boxes, scores, 3, iou_threshold=0.5)
        keep2 = tfi.non_max_suppression(boxes, scores, 3, score_threshold=0.5)
        drawn = tfi.draw_bounding_boxes(np.zeros((1, 5, 5, 1), np.float32),
                                        [[[0, 0, 1, 1]]])
        k, k2, d = run([keep, keep2, drawn])
    np.testing.assert_array_equal(k, [0, 2])
    np.testing.assert_array_equal(k2, [0])
    assert d[0, 0, :, 0].tolist() == [1] * 5 and d[0, 2, 2, 0] == 0


# -- codecs --------------------------------------------------------------------------------------


def _png16_filtered(img, filters):
    """A 16-bit PNG whose rows use the given filter types (an encoder independent of ours)."""
    h, w, c = img.shape
    raw = img.astype(">u2").reshape(h, -1).view(np.uint8).astype(np.int64)
    bpp = 2 * c
    out, prev = [], np.zeros(raw.shape[1], np.int64)
    for y in range(h):
        cur, ft = raw[y], filters[y % len(filters)]
        left = np.concatenate([np.zeros(bpp, np.int64), cur[:-bpp]])
        upleft = np.concatenate([np.zeros(bpp, np.int64), prev[:-bpp]])
        if ft == 0:
            pred = np.zeros_like(cur)
        elif ft == 1:
            pred = left
        elif ft == 2:
            pred = prev
        elif ft == 3:
            pred = (left + prev) // 2
        else:
            p = left + prev - upleft
            pa, pb, pc = abs(p - left), abs(p - prev), abs(p - upleft)
            pred = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, prev, upleft))
        out.append(bytes([ft]) + ((cur - pred) & 0xFF).astype(np.uint8).tobytes())
        prev = cur

    def chunk(k, d):
        return struct.pack(">I", len(d)) + k + d + struct.pack(">I", zlib.crc32(k + d))

    ct = {1: 0, 2: 4, 3: 2, 4: 6}[c]
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, ct, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"".join(out))) + chunk(b"IEND", b""))


def test_png16_decoder_handles_every_filter():
    img = RNG.randint(0, 65536, (6, 5, 3)).astype(np.uint16)
    data = _png16_filtered(img, [0, 1, 2, 3, 4])
    with tf.Graph().as_default():
        d16, d8, g = run([tfi.decode_png(data, dtype=tf.uint16), tfi.decode_png(data),
                          tfi.decode_png(data, channels=4, dtype=tf.uint16)])
    np.testing.assert_array_equal(d16, img)
    np.testing.assert_array_equal(d8, (img >> 8).astype(np.uint8))
    assert g.shape == (6, 5, 4) and (g[..., 3] == 65535).all()


def test_codec_wrappers_and_invalid_data():
    pil = pytest.importorskip("PIL.Image", reason="Pillow (the 'image' extra) is not installed")
    img = RNG.randint(0, 256, (8, 8, 3)).astype(np.uint8)
    buf = io.BytesIO()
    pil.fromarray(img).save(buf, "PNG")
    png = buf.getvalue()
    with tf.Graph().as_default():
        jpg = tfi.encode_jpeg(img, quality=100, chroma_downsampling=False)
        dec = tfi.decode_image(jpg, channels=3)
        dec_png = tfi.decode_image(png, dtype=tf.float32)
        one = tfi.decode_png(png, channels=1)
        shape = tfi.extract_jpeg_shape(jpg)
        isj = [tfi.is_jpeg(jpg), tfi.is_jpeg(png)]
        # TF's default IDCT (INTEGER_FAST) is coarse on noise at quality 100 (tens of levels,
        # as TF's own decode): the accurate one gives the pixels back within a few
        accurate = tfi.decode_jpeg(jpg, channels=3, dct_method="INTEGER_ACCURATE")
        d, dp, o, sh, flags, di, dj = run([accurate, dec_png, one, shape, isj, dec,
                                           tfi.decode_jpeg(jpg, channels=3)])
        for bad in (tfi.decode_png(b"not a png"), tfi.decode_jpeg(b"\xff\xd8\xffjunk"),
                    tfi.decode_image(b"nothing"), tfi.decode_png(png[:40])):
            with pytest.raises(errors.InvalidArgumentError):
                run(bad)
    assert np.abs(d.astype(int) - img).max() <= 8
    np.testing.assert_array_equal(di, dj)  # decode_image decodes a JPEG as decode_jpeg
    np.testing.assert_allclose(dp, img / 255.0, rtol=1e-6)
    assert o.shape == (8, 8, 1)
    want = np.floor(img @ np.array([0.299, 0.587, 0.114]) + 0.5)
    assert np.abs(o[..., 0].astype(int) - want).max() <= 1
    np.testing.assert_array_equal(sh, [8, 8, 3])
    assert flags == [True, False]


def test_resize_images_of_unknown_static_size_resizes():
    x = tf.placeholder(tf.float32, [None, None, 3])
    y = tf.image.resize_images(x, [4, 5])
    with tf.Session() as s:
        assert s.run(y, {x: np.ones((2, 3, 3), np.float32)}).shape == (4, 5, 3)
