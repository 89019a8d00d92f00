"""tf.image behaviours compared with TF 1.x: extract_glimpse places each glimpse as TF 1.x's
ExtractGlimpse op does (the offset is the glimpse's centre; a centered offset is half-scaled
about the image centre; the corner truncated toward zero), while ExtractGlimpseV2 keeps its own
rules."""

import numpy as np
import pytest

import tideflow as tf

H, W, GH, GW = 20, 30, 3, 4


def _v1_corner(off, dim, size, centered, normalized):
    v = np.float32(off)
    if normalized:
        v = v * dim
    if centered:
        v = v / 2 + dim / 2
    return int(np.trunc(v - size / 2))


def _expected(img, y0, x0):
    out = np.zeros((GH, GW), np.float32)
    for i in range(GH):
        for j in range(GW):
            if 0 <= y0 + i < H and 0 <= x0 + j < W:
                out[i, j] = img[y0 + i, x0 + j]
    return out


@pytest.mark.parametrize("centered", [False, True])
@pytest.mark.parametrize("normalized", [False, True])
@pytest.mark.parametrize("off", [(1.0, 2.0), (3.0, 4.0), (2.5, 3.5), (-0.3, 0.45), (6.0, 8.0)])
def test_extract_glimpse_v1_placement(off, centered, normalized):
    img = np.arange(H * W, dtype=np.float32).reshape(H, W)
    o = np.array([off], np.float32) / (10 if normalized else 1)
    g = tf.image.extract_glimpse(img[None, :, :, None], [GH, GW], o, centered=centered,
                                 normalized=normalized, noise="zero")
    assert g.op.type == "ExtractGlimpse"
    with tf.Session() as sess:
        got = sess.run(g)[0, :, :, 0]
    y0 = _v1_corner(o[0, 0], H, GH, centered, normalized)
    x0 = _v1_corner(o[0, 1], W, GW, centered, normalized)
    np.testing.assert_array_equal(got, _expected(img, y0, x0))


def test_extract_glimpse_v2_keeps_its_corner_rule():
    # V2 without centering or normalization takes the offset as the glimpse's corner
    img = np.arange(H * W, dtype=np.float32).reshape(1, H, W, 1)
    g = tf.raw_ops.ExtractGlimpseV2(input=img, size=[GH, GW], offsets=[[3.0, 4.0]],
                                    centered=False, normalized=False, noise="zero")
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(g)[0, :, :, 0], _expected(img[0, :, :, 0], 3, 4))

