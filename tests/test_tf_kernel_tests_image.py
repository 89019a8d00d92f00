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


def _ramp():
    i = np.arange(200)[:, None]
    j = np.arange(256)
    img = np.empty((200, 256, 3), np.uint8)
    img[:, :, 0] = i
    img[:, :, 1] = j
    img[:, :, 2] = (i + j) >> 1
    return img


def _gif_bytes(n_frames):
    import io

    Image = pytest.importorskip("PIL.Image")
    frames = [Image.fromarray(np.full((4, 6, 3), 40 * k, np.uint8)) for k in range(n_frames)]
    buf = io.BytesIO()
    frames[0].save(buf, format="GIF", save_all=n_frames > 1, append_images=frames[1:])
    return buf.getvalue()


def test_decode_jpeg_and_decode_png_read_each_others_formats():
    img = np.random.RandomState(3).randint(0, 256, (5, 7, 3)).astype(np.uint8)
    png, jpg = _run([tf.image.encode_png(img), tf.image.encode_jpeg(img, quality=100)])
    jpg_pixels = _run(tf.image.decode_jpeg(jpg))
    # TF 1.x's DecodeJpeg/DecodePng kernel reads the format from the bytes
    np.testing.assert_array_equal(_run(tf.image.decode_jpeg(png)), img)
    np.testing.assert_array_equal(_run(tf.image.decode_png(jpg)), jpg_pixels)
    gray = _run(tf.image.decode_jpeg(png, channels=1))
    assert gray.shape == (5, 7, 1)


def test_decode_png_of_gif_frames():
    one = _run(tf.image.decode_png(_gif_bytes(1)))
    assert one.shape == (4, 6, 3)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Got 3 frames, but animated gifs can only be decoded by "
                             "tf.image.decode_gif or tf.image.decode_image"):
        _run(tf.image.decode_jpeg(_gif_bytes(3)))
    assert _run(tf.image.decode_gif(_gif_bytes(3))).shape == (3, 4, 6, 3)


@pytest.mark.parametrize("window", [[-1, 11, 11, 11], [11, -1, 11, 11], [11, 11, -1, 11],
                                    [11, 11, 11, -1], [11, 11, 0, 11], [11, 11, 11, 0],
                                    [0, 0, 201, 256], [0, 0, 200, 257]])
def test_decode_and_crop_jpeg_refuses_windows_outside_the_image(window):
    jpg = _run(tf.image.encode_jpeg(_ramp()))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid JPEG data or crop window"):
        _run(tf.image.decode_and_crop_jpeg(jpg, window))


def test_decode_and_crop_jpeg_equals_decode_then_crop():
    jpg = _run(tf.image.encode_jpeg(_ramp()))
    full = _run(tf.image.decode_jpeg(jpg))
    for y, x, h, w in ([0, 0, 5, 5], [194, 251, 6, 5], [6, 5, 15, 10], [0, 0, 200, 256]):
        out = _run(tf.image.decode_and_crop_jpeg(jpg, [y, x, h, w]))
        np.testing.assert_array_equal(out, full[y:y + h, x:x + w])


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_encode_png_filters_rows_so_smooth_images_stay_small(dtype):
    img = _ramp().astype(dtype)
    data = _run(tf.image.encode_png(tf.constant(img), compression=7))
    # libpng's adaptive row filters make this smooth ramp ~0.6 KB (8-bit) / ~1 KB (16-bit);
    # unfiltered rows would take over 100 KB
    assert len(data) < (750 if dtype == np.uint8 else 1500)
    back = _run(tf.image.decode_png(data, dtype=tf.as_dtype(dtype)))
    np.testing.assert_array_equal(back, img)
    noisy = np.random.RandomState(0).randint(0, 256, (9, 13, 4)).astype(np.uint8)
    np.testing.assert_array_equal(_run(tf.image.decode_png(tf.image.encode_png(noisy))), noisy)


@pytest.mark.parametrize("dtype", [tf.float16, tf.float32])
def test_non_max_suppression_v2_v3_take_half_and_float(dtype):
    from tideflow.python.ops import gen_image_ops

    boxes = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11],
             [0, 10.1, 1, 11.1], [0, 100, 1, 101]]
    scores = [0.9, 0.75, 0.6, 0.95, 0.5, 0.3]
    b, s = tf.constant(boxes, dtype), tf.constant(scores, dtype)
    iou, thr = tf.constant(0.5, dtype), tf.constant(float("-inf"), dtype)
    v2 = gen_image_ops.non_max_suppression_v2(b, s, tf.constant(3), iou)
    v3 = gen_image_ops.non_max_suppression_v3(b, s, tf.constant(3), iou, thr)
    for out in _run([v2, v3, tf.image.non_max_suppression(b, s, 3, 0.5)]):
        # boxes 0-2 overlap (IoU > 0.5) as do 3-4; the best of each cluster survives
        np.testing.assert_array_equal(out, [3, 0, 5])


def test_non_max_suppression_with_overlaps_name_in_image_ops():
    from tideflow.python.ops import image_ops

    overlaps = [[1.0, 0.7, 0.2], [0.7, 1.0, 0.0], [0.2, 0.0, 1.0]]
    sel = image_ops.non_max_suppression_with_overlaps(
        tf.constant(overlaps), tf.constant([0.7, 0.9, 0.1]), tf.constant(3), 0.6, 0.4)
    # box 1 (0.9) wins; box 0 overlaps it by 0.7 > 0.6; box 2 scores under 0.4
    np.testing.assert_array_equal(_run(sel), [1])


def test_rgb_to_hsv_gradient_matches_finite_differences():
    x = np.random.RandomState(0).uniform(0.05, 0.95, (2, 5, 5, 3))
    t = tf.constant(x)
    with tf.Session():
        err = tf.test.compute_gradient_error(t, list(x.shape), tf.image.rgb_to_hsv(t),
                                             list(x.shape), x_init_value=x, delta=1e-6)
    assert err < 1e-6


def test_rgb_to_hsv_gradient_closed_form_and_ties():
    # r > g > b: v = r, s = 1 - b / r, h = (g - b) / (6 (r - b))
    r, g, b = 0.9, 0.5, 0.2
    w = np.array([0.3, -0.7, 1.1])  # upstream gradient for (h, s, v)
    x = tf.constant(np.array([[r, g, b], [0.3, 0.3, 0.3], [0.0, 0.0, 0.0]]))
    out = _run(tf.gradients(tf.reduce_sum(tf.image.rgb_to_hsv(x) * w), x)[0])
    c = r - b
    dh = np.array([-(g - b) / (6 * c * c), 1 / (6 * c), (g - r) / (6 * c * c)])
    ds = np.array([b / r ** 2, 0.0, -1 / r])
    dv = np.array([1.0, 0.0, 0.0])
    np.testing.assert_allclose(out[0], w[0] * dh + w[1] * ds + w[2] * dv, rtol=1e-12)
    # a gray pixel: hue is constant; TF takes r as the max and b as the min, so s = 1 - b/r
    # gives +-1/v there
    np.testing.assert_allclose(out[1], [w[1] / 0.3 + w[2], 0.0, -w[1] / 0.3], rtol=1e-12)
    # black: s is 0 wherever v is 0
    np.testing.assert_allclose(out[2], [w[2], 0.0, 0.0])


def _kernel_ref(name, x):
    x = abs(x)
    if name == "triangle":
        return max(0.0, 1.0 - x)
    if name == "keyscubic":
        if x >= 2:
            return 0.0
        return ((-0.5 * x + 2.5) * x - 4) * x + 2 if x >= 1 else (1.5 * x - 2.5) * x * x + 1
    if name.startswith("lanczos"):
        a = int(name[-1])
        if x > a:
            return 0.0
        return 1.0 if x < 1e-3 else a * np.sin(np.pi * x) * np.sin(np.pi * x / a) / (
            np.pi * x) ** 2
    raise ValueError(name)


def _axis_matrix(n_in, n_out, scale, shift, name, antialias):
    """[n_out, n_in] weights: output x samples the input at (x + .5 - shift) / scale; every
    input pixel whose centre is within the (widened) kernel's reach takes part."""
    radius = {"triangle": 1, "keyscubic": 2}.get(name) or int(name[-1])
    k = max(1.0 / scale, 1.0) if antialias else 1.0
    m = np.zeros((n_out, n_in))
    for x in range(n_out):
        s = (x + 0.5 - shift) / scale
        if s < 0 or s > n_in:
            continue
        for i in range(n_in):
            if abs(i + 0.5 - s) <= radius * k:
                m[x, i] = _kernel_ref(name, (i + 0.5 - s) / k)
        if m[x].sum():
            m[x] /= m[x].sum()
    return m


@pytest.mark.parametrize("kernel", ["triangle", "keyscubic", "lanczos3", "lanczos5"])
@pytest.mark.parametrize("antialias", [False, True])
@pytest.mark.parametrize("scale,shift", [((0.45, 0.6), (1.3, -2.0)), ((2.2, 1.7), (0.4, 0.0))])
def test_scale_and_translate_matches_numpy(kernel, antialias, scale, shift):
    from tideflow.python.ops import gen_image_ops

    img = np.random.RandomState(1).rand(2, 11, 13, 3)
    out = _run(gen_image_ops.scale_and_translate(
        img.astype(np.float32), [8, 10], scale, shift, kernel_type=kernel, antialias=antialias))
    my = _axis_matrix(11, 8, scale[0], shift[0], kernel, antialias)
    mx = _axis_matrix(13, 10, scale[1], shift[1], kernel, antialias)
    ref = np.einsum("yi,bijc,xj->byxc", my, img, mx)
    assert out.dtype == np.float32 and out.shape == (2, 8, 10, 3)
    np.testing.assert_allclose(out, ref, atol=2e-5)


def test_scale_and_translate_gradient():
    from tideflow.python.ops import image_ops

    x = np.arange(6, dtype=np.float32).reshape(1, 2, 3, 1)
    t = tf.constant(x)
    with tf.Session():
        for kernel in ("lanczos3", "gaussian", "box", "mitchellcubic"):
            for antialias in (True, False):
                y = image_ops.scale_and_translate(t, [4, 6], tf.constant([0.37, 2.1]),
                                                  tf.constant([3.14, 1.19]),
                                                  kernel_type=kernel, antialias=antialias)
                err = tf.test.compute_gradient_error(t, [1, 2, 3, 1], y, [1, 4, 6, 1],
                                                     x_init_value=x)
                assert err < 1e-3, (kernel, antialias, err)


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.float16, np.float64])
def test_resize_images_v2_is_half_pixel_resize(dtype):
    from tideflow.python.ops import image_ops

    img = (np.random.RandomState(2).rand(1, 6, 4, 1) * 100).astype(dtype)
    up = image_ops.resize_images_v2(img, [9, 7], "bilinear")
    same = image_ops.resize_images_v2(img, [6, 4], "bicubic")
    near = image_ops.resize_images_v2(img[0], [3, 2], "nearest")
    assert up.dtype == tf.float32 and same.dtype == tf.float32 and near.dtype == tf.as_dtype(dtype)
    assert near.get_shape().as_list() == [3, 2, 1]
    ref = tf.image.resize_bilinear(img, [9, 7], half_pixel_centers=True)
    a, b, c = _run([up, ref, same])
    np.testing.assert_allclose(a, b)
    # an unchanged size still resizes (to float32) and keeps the values
    np.testing.assert_allclose(c, img.astype(np.float32), atol=1e-3)
    # nearest with half-pixel centres samples rows 1, 3, 5 and columns 1, 3
    np.testing.assert_array_equal(_run(near), img[0][1::2, 1::2])


@pytest.mark.parametrize("fed", [False, True])
def test_resize_image_with_pad_v1_and_v2(fed):
    from tideflow.python.ops import image_ops

    x = np.arange(1, 9, dtype=np.float64).reshape(2, 4, 1)
    img = tf.placeholder(tf.float64, [None] * 3) if fed else x
    feed = {img: x} if fed else None
    # to 1x4: scale by 1/2 to 1x2, then pad one column each side. v1 (corner-aligned
    # legacy sampling) takes pixels (0, 0) and (0, 2); v2 (half-pixel) averages 2x2 blocks
    v1 = image_ops.resize_image_with_pad_v1(img, 1, 4)
    v2 = image_ops.resize_image_with_pad_v2(img, 1, 4)
    np.testing.assert_allclose(_run(v1, feed).ravel(), [0, 1, 3, 0])
    np.testing.assert_allclose(_run(v2, feed).ravel(), [0, (1 + 2 + 5 + 6) / 4,
                                                        (3 + 4 + 7 + 8) / 4, 0])


def test_image_ops_impl_module():
    from tideflow.python.ops import image_ops_impl

    assert image_ops_impl.ResizeMethod.BILINEAR == "bilinear"
    assert image_ops_impl.ResizeMethodV1.AREA == 3
    assert image_ops_impl.convert_image_dtype is tf.image.convert_image_dtype
    a, b = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    _, _, checks = image_ops_impl._verify_compatible_image_shapes(a, b)
    with tf.Session() as sess:
        sess.run(checks, {a: np.ones([2, 3, 3, 1]), b: np.ones([3, 3, 1])})
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(checks, {a: np.ones([1, 2, 2, 1]), b: np.ones([1, 3, 3, 1])})
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(checks, {a: np.ones([2, 2]), b: np.ones([2, 2])})
    with pytest.raises(ValueError):
        image_ops_impl._verify_compatible_image_shapes(tf.zeros([1, 2, 2, 1]),
                                                       tf.zeros([1, 3, 3, 1]))


@pytest.mark.parametrize("method,name", [(0, "bilinear"), (1, "nearest"), (2, "bicubic"),
                                         (3, "area")])
def test_resize_images_takes_method_names(method, name):
    x = np.random.RandomState(4).rand(1, 4, 6, 1).astype(np.float32)
    a, b = _run([tf.image.resize_images(x, [7, 5], method),
                 tf.image.resize_images(x, [7, 5], name)])
    np.testing.assert_array_equal(a, b)


def test_crop_and_resize_box_index_errors():
    img = np.zeros((1, 4, 4, 1), np.float32)
    with pytest.raises(tf.errors.OutOfRangeError, match="box_index has values outside"):
        _run(tf.image.crop_and_resize(img, [[0, 0, 1, 1]], [3], [2, 2]))
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 1 and 2"):
        tf.image.crop_and_resize(img, [[0, 0, 1, 1]], [0, 0], [2, 2])


@pytest.mark.parametrize("depth", [2, 5])
def test_draw_bounding_boxes_refuses_other_channel_counts(depth):
    words = r"Channel depth should be either 1 \(GRY\), 3 \(RGB\), or 4 \(RGBA\)"
    # a known depth fails in TF 1.15's shape function, an unknown one in the kernel
    with pytest.raises(ValueError, match=words):
        tf.image.draw_bounding_boxes(np.zeros((1, 4, 4, depth), np.float32),
                                     [[[0.0, 0.0, 1.0, 1.0]]])
    images = tf.placeholder(tf.float32, [1, 4, 4, None])
    with pytest.raises(tf.errors.InvalidArgumentError, match=words), tf.Session() as sess:
        sess.run(tf.image.draw_bounding_boxes(images, [[[0.0, 0.0, 1.0, 1.0]]]),
                 {images: np.zeros((1, 4, 4, depth), np.float32)})


def test_sample_distorted_bounding_box_image_size_needs_3_elements():
    with pytest.raises(ValueError, match="Dimension must be 3 but is 2"):
        tf.image.sample_distorted_bounding_box([6, 8], [[[0.0, 0.0, 1.0, 1.0]]], seed=1)


@pytest.mark.parametrize("fn", ["rgb_to_yiq", "rgb_to_yuv", "yiq_to_rgb", "yuv_to_rgb"])
def test_yiq_yuv_refuse_integer_images(fn):
    with pytest.raises(TypeError, match="Expected int32, got "):
        getattr(tf.image, fn)(np.ones((2, 2, 3), np.int32))


@pytest.mark.parametrize("fn, message", [
    ("encode_png", "DataType float32 not in list of allowed values"),
    ("encode_jpeg", "Expected uint8 passed to parameter 'image' of op 'EncodeJpeg'")])
def test_encoders_refuse_float_lists(fn, message):
    # TF 1.15 refuses a float list but casts a float NumPy array to uint8 (astype)
    with pytest.raises(TypeError, match=message):
        getattr(tf.image, fn)([[[0.5, 1.5, 2.5]]])
    data = _run(getattr(tf.image, fn)(np.full((2, 2, 3), 3.7, np.float32)))
    assert _run(tf.image.decode_image(data)).max() <= 4
    # integer lists still convert to uint8 pixels
    data = _run(getattr(tf.image, fn)([[[10, 20, 30]]]))
    assert _run(tf.image.decode_image(data)).shape == (1, 1, 3)


@pytest.mark.parametrize("dtype,minus_one", [(np.uint8, 255), (np.int8, -1), (np.int64, -1)])
def test_sample_distorted_bounding_box_small_int_image_size(dtype, minus_one):
    begin, size, box = tf.image.sample_distorted_bounding_box(
        np.array([6, 8, 3], dtype), [[[0.0, 0.0, 1.0, 1.0]]], seed=3, seed2=4)
    b, s, bx = _run([begin, size, box])
    assert b.dtype == dtype and s.dtype == dtype
    assert s[2] == minus_one and b[2] == 0
    assert 0 < s[0] <= 6 and 0 < s[1] <= 8
    np.testing.assert_allclose(bx[0, 0], [b[0] / 6, b[1] / 8, (b[0] + s[0]) / 6,
                                          (b[1] + s[1]) / 8], rtol=1e-6)
