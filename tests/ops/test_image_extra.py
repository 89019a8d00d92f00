"""tf.image additions against NumPy: YUV/YIQ, Sobel edges, image gradients, PSNR, SSIM and
MS-SSIM, crop_and_resize's gradients, the NMS wrappers and JPEG quality; their errors."""

import os
import subprocess

import numpy as np
import pytest

import tideflow as tf
from tests.ops.table_image_extra import BOXES, IMG, IND, ref_crop

_rng = np.random.RandomState(8)


def _run(t, feed=None):
    with tf.Session() as s:
        return s.run(t, feed)


def test_yuv_yiq_round_trips_and_luma():
    rgb = _rng.uniform(0, 1, (2, 3, 4, 3))
    with tf.Graph().as_default():
        yuv, back, yiq, back2 = _run([tf.image.rgb_to_yuv(rgb),
                                      tf.image.yuv_to_rgb(tf.image.rgb_to_yuv(rgb)),
                                      tf.image.rgb_to_yiq(rgb),
                                      tf.image.yiq_to_rgb(tf.image.rgb_to_yiq(rgb))])
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 4 and 3"):
            tf.image.rgb_to_yuv(np.zeros((2, 2, 4)))
    luma = rgb @ np.array([0.299, 0.587, 0.114])
    np.testing.assert_allclose(yuv[..., 0], luma, rtol=1e-12)
    np.testing.assert_allclose(yiq[..., 0], luma, rtol=1e-12)
    # TF's published matrices are inverses to about 1e-4
    np.testing.assert_allclose(back, rgb, atol=1e-4)
    np.testing.assert_allclose(back2, rgb, atol=1e-4)


def test_sobel_edges_and_image_gradients():
    img = _rng.randn(2, 5, 6, 3)
    with tf.Graph().as_default():
        sob, (dy, dx) = _run([tf.image.sobel_edges(img), tf.image.image_gradients(img)])
        with pytest.raises(ValueError, match="4D tensor"):
            tf.image.image_gradients(img[0])
    p = np.pad(img, [(0, 0), (1, 1), (1, 1), (0, 0)], mode="reflect")
    ky = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]])
    want = np.zeros(img.shape + (2,))
    for i in range(5):
        for j in range(6):
            win = p[:, i:i + 3, j:j + 3]
            want[:, i, j, :, 0] = (win * ky[None, :, :, None]).sum((1, 2))
            want[:, i, j, :, 1] = (win * ky.T[None, :, :, None]).sum((1, 2))
    np.testing.assert_allclose(sob, want, atol=1e-12)
    np.testing.assert_allclose(dy[:, :-1], img[:, 1:] - img[:, :-1])
    assert (dy[:, -1] == 0).all() and (dx[:, :, -1] == 0).all()
    np.testing.assert_allclose(dx[:, :, :-1], img[:, :, 1:] - img[:, :, :-1])


def _gauss(size, sigma):
    c = np.arange(size) - (size - 1) / 2
    g = np.exp(-0.5 * (c[:, None] ** 2 + c[None] ** 2) / sigma ** 2)
    return g / g.sum()


def _ssim_ref(a, b, max_val, size=11, sigma=1.5, k1=0.01, k2=0.03):
    g = _gauss(size, sigma)
    h, w = a.shape[-3] - size + 1, a.shape[-2] - size + 1

    def filt(x):
        out = np.zeros(x.shape[:-3] + (h, w, x.shape[-1]))
        for i in range(h):
            for j in range(w):
                out[..., i, j, :] = (x[..., i:i + size, j:j + size, :] *
                                     g[:, :, None]).sum((-3, -2))
        return out

    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    ma, mb = filt(a), filt(b)
    va, vb, cov = filt(a * a) - ma ** 2, filt(b * b) - mb ** 2, filt(a * b) - ma * mb
    s = ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma ** 2 + mb ** 2 + c1) * (va + vb + c2))
    return s.mean((-3, -2)).mean(-1)


def test_psnr_and_ssim_against_formulas():
    a = _rng.uniform(0, 1, (2, 16, 18, 3)).astype(np.float32)
    b = np.clip(a + _rng.normal(0, 0.1, a.shape), 0, 1).astype(np.float32)
    with tf.Graph().as_default():
        p, s, same, s_u8 = _run([tf.image.psnr(a, b, 1.0), tf.image.ssim(a, b, 1.0),
                                 tf.image.ssim(a, a, 1.0),
                                 tf.image.ssim(tf.constant((a * 255).astype(np.uint8)),
                                               tf.constant((b * 255).astype(np.uint8)), 255)])
        # TF 1.15's error: the depthwise convolution's shape function
        with pytest.raises(ValueError, match="Negative dimension size"):
            tf.image.ssim(a[:, :8], b[:, :8], 1.0)
    mse = ((a.astype(np.float64) - b) ** 2).mean((1, 2, 3))
    np.testing.assert_allclose(p, 10 * np.log10(1 / mse), rtol=1e-5)
    np.testing.assert_allclose(s, _ssim_ref(a.astype(np.float64), b.astype(np.float64), 1.0),
                               atol=1e-5)
    np.testing.assert_allclose(same, [1.0, 1.0], atol=1e-6)
    au, bu = (a * 255).astype(np.uint8) / 255.0, (b * 255).astype(np.uint8) / 255.0
    np.testing.assert_allclose(s_u8, _ssim_ref(au, bu, 1.0), atol=1e-5)


def test_ssim_multiscale_identity_and_single_scale():
    a = _rng.uniform(0, 1, (1, 80, 84, 3)).astype(np.float32)
    b = np.clip(a + _rng.normal(0, 0.05, a.shape), 0, 1).astype(np.float32)
    with tf.Graph().as_default():
        same, one, ssim, two = _run([
            tf.image.ssim_multiscale(a, a, 1.0, filter_size=5),
            tf.image.ssim_multiscale(a, b, 1.0, power_factors=(1.0,), filter_size=5),
            tf.image.ssim(a, b, 1.0, filter_size=5),
            tf.image.ssim_multiscale(a, b, 1.0, power_factors=(0.5, 0.5), filter_size=5)])
    # (float32 sums in TF's order: an image against itself scores ~2e-6 below 1, as in TF)
    np.testing.assert_allclose(same, [1.0], atol=1e-5)
    np.testing.assert_allclose(one, ssim, atol=1e-6)  # one scale: plain SSIM
    assert 0 < two[0] < 1


def _tf_reference(code):
    tfpy = "/tmp/tfvenv/bin/python"
    if not os.path.exists(tfpy):
        pytest.skip("no reference TensorFlow")
    out = subprocess.run([tfpy, "-c", "import numpy as np, tensorflow.compat.v1 as tf;"
                          "tf.disable_v2_behavior(); s = tf.Session();" + code],
                         check=False, capture_output=True, text=True, timeout=120)
    if out.returncode:
        pytest.skip("reference TensorFlow failed to run")
    return np.array(eval(out.stdout.strip().splitlines()[-1]))


def test_ms_ssim_against_tensorflow_if_present():
    setup = ("r = np.random.RandomState(1); a = r.uniform(0, 1, (1, 180, 170, 3))"
             ".astype(np.float32); b = np.clip(a + r.normal(0, .05, a.shape), 0, 1)"
             ".astype(np.float32);")
    want = _tf_reference(setup + "print(s.run(tf.image.ssim_multiscale(a, b, 1.0)).tolist())")
    r = np.random.RandomState(1)
    a = r.uniform(0, 1, (1, 180, 170, 3)).astype(np.float32)
    b = np.clip(a + r.normal(0, .05, a.shape), 0, 1).astype(np.float32)
    with tf.Graph().as_default():
        got = _run(tf.image.ssim_multiscale(a, b, 1.0))
    np.testing.assert_allclose(got, want, atol=1e-5)


def test_crop_and_resize_gradients_by_finite_differences():
    with tf.Graph().as_default():
        img = tf.constant(IMG.astype(np.float32))
        boxes = tf.constant(BOXES)
        crops = tf.image.crop_and_resize(img, boxes, IND, [4, 5])
        w = _rng.randn(4, 4, 5, 2)
        loss = tf.reduce_sum(crops * w)
        gi, gb = _run(tf.gradients(loss, [img, boxes]))
        with pytest.raises(ValueError, match="method"):
            tf.image.crop_and_resize(img, boxes, IND, [2, 2], method="bicubic")
        bad = tf.image.crop_and_resize(img, boxes, [0, 1, 2, 0], [2, 2])  # TF: OutOfRange
        with pytest.raises(tf.errors.OutOfRangeError, match="box_index"):
            _run(bad)

    def loss_np(im, bx):
        return (ref_crop(im, bx, IND, (4, 5)).astype(np.float64) * w).sum()

    # linear in the image: unit steps are exact
    for k in _rng.choice(IMG.size, 12, replace=False):
        e = np.zeros(IMG.shape)
        e.flat[k] = 1.0
        np.testing.assert_allclose(gi.flat[k], loss_np(IMG + e, BOXES) - loss_np(IMG, BOXES),
                                   atol=1e-4)
    for k in range(BOXES.size):
        d = np.zeros(BOXES.shape)
        d.flat[k] = 1e-3
        num = (loss_np(IMG, BOXES.astype(np.float64) + d) -
               loss_np(IMG, BOXES.astype(np.float64) - d)) / 2e-3
        np.testing.assert_allclose(gb.flat[k], num, rtol=2e-2, atol=2e-2)


def test_nms_wrappers():
    boxes = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3], [0, 2.05, 1, 3]], np.float32)
    scores = np.array([0.9, 0.8, 0.7, 0.95], np.float32)
    with tf.Graph().as_default():
        (idx, sc), (pidx, n), ov, comb = _run([
            tf.image.non_max_suppression_with_scores(boxes, scores, 4, 0.5),
            tf.image.non_max_suppression_padded(boxes, scores, 4, 0.5,
                                                pad_to_max_output_size=True),
            tf.image.non_max_suppression_overlaps(np.eye(4, dtype=np.float32), scores, 2),
            tf.image.combined_non_max_suppression(boxes[None, :, None] / 3,
                                                  scores[None, :, None], 2, 3)])
    assert idx.tolist() == [3, 0] and sc.tolist() == pytest.approx([0.95, 0.9])
    assert pidx.tolist() == [3, 0, 0, 0] and n == 2
    assert ov.tolist() == [3, 0]
    nb, ns, nc, valid = comb
    assert valid.tolist() == [2] and ns[0].tolist() == pytest.approx([0.95, 0.9, 0.0])
    np.testing.assert_allclose(nb[0, :2], boxes[[3, 0]] / 3, rtol=1e-6)
    assert nc.tolist() == [[0, 0, 0]]


def test_jpeg_quality_helpers():
    img = np.tile(np.linspace(0, 1, 32, dtype=np.float32)[None, :, None], (32, 1, 3))
    with tf.Graph().as_default():
        hi, lo, rnd = _run([tf.image.adjust_jpeg_quality(img, 95),
                            tf.image.adjust_jpeg_quality(img, 5),
                            tf.image.random_jpeg_quality(img, 40, 60, seed=1)])
        with pytest.raises(ValueError, match="less than"):
            tf.image.random_jpeg_quality(img, 60, 40)
    assert hi.dtype == np.float32 and hi.shape == img.shape
    assert np.abs(hi - img).mean() < np.abs(lo - img).mean()
    assert np.abs(rnd - img).mean() < 0.05


def test_extract_glimpse_wrapper():
    img = np.arange(42, dtype=np.float32).reshape(1, 6, 7, 1)
    with tf.Graph().as_default():
        g = _run(tf.image.extract_glimpse(img, [3, 3], [[0.0, 0.0]], noise="zero"))
        with pytest.raises(ValueError, match="noise"):
            tf.image.extract_glimpse(img, [3, 3], [[0.0, 0.0]], noise="pink")
        # TF 1.15's shape function merges the image's batch with the offsets'
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 1 and 2"):
            tf.image.extract_glimpse(img, [3, 3], [[0.0, 0.0], [1.0, 1.0]])
    # centred at the image centre (3, 3.5): rows 1..3, columns 2..4
    np.testing.assert_array_equal(g[0, ..., 0], img[0, 1:4, 2:5, 0])
