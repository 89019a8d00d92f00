"""tf.image edge behaviours that TF 1.15's own image tests pin down, checked here with
values computed by NumPy or by hand: adjust_gamma's checks of a negative gamma (a Python
number fails at graph build, a tensor fails when the step runs), grayscale_to_rgb's rank and
channel messages, and the static shape of flips, transposes and rotations of an image of
unknown rank (treated as one 3-D image)."""

import numpy as np
import pytest

import tideflow as tf


def _run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed_dict=feed)


def test_adjust_gamma_negative_python_gamma_fails_at_build():
    x = tf.constant(np.full((4, 4), 0.5, np.float32))
    with pytest.raises(ValueError, match="Gamma should be a non-negative real number"):
        tf.image.adjust_gamma(x, gamma=-1)


def test_adjust_gamma_negative_tensor_gamma_fails_at_run():
    x = tf.constant(np.full((4, 4), 0.5, np.float32))
    g = tf.placeholder(tf.float32, [])
    y = tf.image.adjust_gamma(x, gamma=g)
    np.testing.assert_allclose(_run(y, {g: 2.0}), np.full((4, 4), 0.25), rtol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Gamma should be a non-negative real number"):
        _run(y, {g: -1.0})


def test_adjust_gamma_uint8_values():
    x = np.array([[0, 64, 128, 255]], np.uint8)
    y = _run(tf.image.adjust_gamma(tf.constant(x), gamma=0.5))
    assert y.dtype == np.uint8
    # uint8 -> [0, 1] float, power, back to uint8 with rounding (TF scales by 255.5)
    expected = np.trunc(np.clip(np.sqrt(x / 255.0) * 255.5, 0, 255))
    np.testing.assert_array_equal(y, expected)


def test_grayscale_to_rgb_messages():
    with pytest.raises(ValueError, match="A grayscale image must be at least two-dimensional"):
        tf.image.grayscale_to_rgb(tf.constant(np.zeros([2], np.uint8)))
    with pytest.raises(ValueError, match="Last dimension of a grayscale image should be size 1"):
        tf.image.grayscale_to_rgb(tf.constant(np.zeros([1, 1, 2], np.uint8)))


@pytest.mark.parametrize("fn", ["flip_left_right", "flip_up_down", "random_flip_left_right",
                                "random_flip_up_down", "transpose", "rot90"])
def test_unknown_rank_image_ops_give_rank_3(fn):
    op = getattr(tf.image, fn)
    p = tf.placeholder(tf.uint8)
    y = op(p)
    assert y.get_shape().ndims == 3
    img = np.arange(6, dtype=np.uint8).reshape(2, 3, 1)
    out = _run(y, {p: img})
    ref = {"flip_left_right": img[:, ::-1], "flip_up_down": img[::-1],
           "transpose": img.transpose(1, 0, 2), "rot90": np.rot90(img)}.get(fn)
    if ref is not None:
        np.testing.assert_array_equal(out, ref)
    with pytest.raises(ValueError, match="must be at least three-dimensional"):
        op(tf.placeholder(tf.uint8, [None, None]))
    with pytest.raises(ValueError, match="must be > 0"):
        op(tf.placeholder(tf.uint8, [64, 0, 3]))


@pytest.mark.parametrize("batched", [False, True])
def test_rot90_with_fed_k_matches_numpy(batched):
    img = np.arange(48, dtype=np.uint8).reshape(2, 2, 4, 3)
    if not batched:
        img = img[0]
    k = tf.placeholder(tf.int32, [])
    y = tf.image.rot90(img, k)
    axes = (1, 2) if batched else (0, 1)
    with tf.Session() as sess:
        for kk in range(-1, 6):
            np.testing.assert_array_equal(sess.run(y, {k: kk}), np.rot90(img, kk, axes=axes))


@pytest.mark.parametrize("fn", ["crop_to_bounding_box", "pad_to_bounding_box"])
@pytest.mark.parametrize("shape", [[0, 2, 2], [2, 0, 2], [2, 2, 0]])
def test_crop_pad_zero_sized_fed_image_fails_at_run(fn, shape):
    p = tf.placeholder(tf.float32, [None, None, None])
    args = (0, 0, 1, 1) if fn == "crop_to_bounding_box" else (0, 0, 2, 2)
    y = getattr(tf.image, fn)(p, *[tf.constant(a) for a in args])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"all dims of \\'image.shape\\' must be > 0"):
        _run(y, {p: np.zeros(shape, np.float32)})
    # the same ops are fine on a non-empty image
    out = _run(y, {p: np.ones([1, 1, 1], np.float32)})
    expected = np.ones([1, 1, 1]) if fn == "crop_to_bounding_box" else \
        np.array([[1, 0], [0, 0]], np.float32)[:, :, None]
    np.testing.assert_array_equal(out, expected)
