"""tf.contrib.image: rotations, translations and composed transforms against NumPy."""

import numpy as np
import pytest

import tideflow as tf

ci = tf.contrib.image


def _run(t):
    with tf.Session() as sess:
        return sess.run(t)


def test_rotate_quarter_turns_are_rot90():
    img = np.arange(5 * 5 * 2, dtype=np.float32).reshape(5, 5, 2)
    with tf.Graph().as_default():
        r90 = ci.rotate(img, np.pi / 2)
        r180 = ci.rotate(img[None], [np.pi])
        gray = ci.rotate(img[..., 0], -np.pi / 2, interpolation="BILINEAR")
        got90, got180, got_gray = _run([r90, r180, gray])
    np.testing.assert_array_equal(got90, np.rot90(img, 1))
    np.testing.assert_array_equal(got180[0], np.rot90(img, 2))
    np.testing.assert_allclose(got_gray, np.rot90(img[..., 0], -1), atol=1e-4)
    assert r90.get_shape().as_list() == [5, 5, 2]


def test_translate_shifts_with_zero_fill_and_compose():
    img = np.random.default_rng(0).uniform(1, 2, (2, 4, 6, 1)).astype(np.float32)
    with tf.Graph().as_default():
        moved = ci.translate(img, [2, -1])  # 2 right, 1 up
        both = ci.transform(img, ci.compose_transforms(
            ci.translations_to_projective_transforms([1, 0]),
            ci.translations_to_projective_transforms([1, -1])))
        got, got_both = _run([moved, both])
    expect = np.zeros_like(img)
    expect[:, :3, 2:] = img[:, 1:, :4]
    np.testing.assert_array_equal(got, expect)
    np.testing.assert_array_equal(got_both, expect)


def test_output_shape_gradient_and_errors():
    img = np.random.default_rng(1).uniform(0, 1, (1, 4, 4, 1))
    with tf.Graph().as_default():
        x = tf.constant(img)
        out = ci.transform(x, [1, 0, 0.5, 0, 1, 0, 0, 0], "BILINEAR", output_shape=[3, 5])
        (g,) = tf.gradients(tf.reduce_sum(out), [x])
        got, got_g = _run([out, g])
        assert out.get_shape().as_list() == [1, 3, 5, 1]
        # each output pixel spreads weights 1/2, 1/2 over two columns: the gradient counts them
        assert got_g.sum() == pytest.approx(3 * 3.5)
        with pytest.raises(ValueError, match="NEAREST or BILINEAR"):
            ci.transform(x, [1, 0, 0, 0, 1, 0, 0, 0], "BICUBIC")
        with pytest.raises(TypeError, match="rank"):
            ci.rotate(tf.zeros([2]), 0.3)
    np.testing.assert_allclose(got[0, :, :3, 0], (img[0, :3, :3, 0] + img[0, :3, 1:4, 0]) / 2)
    np.testing.assert_allclose(got[0, :, 3, 0], img[0, :3, 3, 0] / 2)
