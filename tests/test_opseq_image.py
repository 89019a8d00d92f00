"""tf.image builds the ops TF 1.15 builds, in its order (names as TF's), at top level and in
Dataset.map functions.

TF 1.x seeds a random op without an op seed with the number of ops the graph (or the tf.data
function) holds when it is made; ours are TF's Philox kernels, so a seeded augmentation
pipeline prints TF's pixels only if each image op made as many ops before. Where TF builds a
Switch/Merge cond, tideflow builds its functional cond (a random flip of one image), the one
rotation of a constant k (rot90's case) or one DecodeImage op (decode_image's nested conds), and
skips the ids of TF's other ops. The expected lists and values below are what real TF 1.15
printed for the same programs.
"""

import numpy as np
import pytest

import tideflow as tf
from tests.opseq_util import op_names as _names


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        yield


def _seeds():
    return [op.get_attr("seed2") for op in tf.get_default_graph().get_operations()
            if "seed2" in op.node_def.attr]


def _uniform(scope, shape_op="shape"):
    base = f"{scope}/random_uniform"
    return [f"{base}/{shape_op}", f"{base}/min", f"{base}/max", f"{base}/RandomUniform",
            f"{base}/sub", f"{base}/mul", base]


_NORMAL = ["random_normal/shape", "random_normal/mean", "random_normal/stddev",
           "random_normal/RandomStandardNormal", "random_normal/mul", "random_normal"]


def _at_least_3d_asserts(scope, rank_op="Rank"):
    pos = f"{scope}/assert_positive"
    ge = f"{scope}/assert_greater_equal"
    return ([f"{scope}/Shape", f"{pos}/Const", f"{pos}/assert_less/Less",
             f"{pos}/assert_less/Const", f"{pos}/assert_less/All",
             f"{pos}/assert_less/Assert/Const", f"{pos}/assert_less/Assert/Assert/data_0",
             f"{pos}/assert_less/Assert/Assert", f"{scope}/{rank_op}", f"{ge}/y",
             f"{ge}/GreaterEqual", f"{ge}/Const", f"{ge}/All"]
            + [f"{ge}/Assert/Const" + s for s in ("", "_1", "_2", "_3")]
            + [f"{ge}/Assert/Assert/data_{i}" for i in (0, 1, 2, 4)] + [f"{ge}/Assert/Assert"])


# ------------------------------------------------------------------------------------------
# op lists and op seeds
# ------------------------------------------------------------------------------------------


def test_random_flip_of_one_image_counts_tf_cond():
    x = tf.placeholder(tf.float32, [8, 8, 3])
    y = tf.image.random_flip_left_right(x)
    tf.random_normal([2])
    s = "random_flip_left_right"
    # TF: control_dependency, the uniform, Less, then a cond of 9 ops ending in Merge
    assert _names()[:11] == ["Placeholder", f"{s}/control_dependency", *_uniform(s),
                             f"{s}/Less/y", f"{s}/Less"]
    assert y.name == f"{s}/Merge:0" and y.get_shape().as_list() == [8, 8, 3]
    assert _seeds() == [5, 23]


def test_random_flip_of_a_batch_builds_tf_ops():
    x = tf.placeholder(tf.float32, [4, 8, 8, 3])
    tf.image.random_flip_up_down(x)
    tf.random_normal([2])
    s = "random_flip_up_down"
    assert _names() == (
        ["Placeholder", f"{s}/control_dependency", f"{s}/Shape", f"{s}/strided_slice/stack",
         f"{s}/strided_slice/stack_1", f"{s}/strided_slice/stack_2", f"{s}/strided_slice"]
        + _uniform(s) + [f"{s}/Reshape/shape/1", f"{s}/Reshape/shape/2",
                         f"{s}/Reshape/shape/3", f"{s}/Reshape/shape", f"{s}/Reshape",
                         f"{s}/Round", f"{s}/ReverseV2/axis", f"{s}/ReverseV2", f"{s}/mul",
                         f"{s}/sub/x", f"{s}/sub", f"{s}/mul_1", f"{s}/add"] + _NORMAL)
    assert _seeds() == [10, 30]


def test_random_flip_of_unknown_rank_checks_the_image_as_tf():
    x = tf.placeholder(tf.float32)
    y = tf.image.random_flip_left_right(x)
    tf.random_normal([2])
    s = "random_flip_left_right"
    assert _names()[:33] == (["Placeholder"] + _at_least_3d_asserts(s)
                             + [f"{s}/control_dependency", *_uniform(s), f"{s}/Less/y",
                                f"{s}/Less"])
    assert y.get_shape().as_list() == [None, None, None]
    assert _seeds() == [27, 45]


def test_flip_then_crop_or_pad_of_unknown_sizes_counts_tf_ops():
    x = tf.placeholder(tf.float32, [None, None, 3])
    y = tf.image.random_flip_left_right(x)
    tf.image.resize_image_with_crop_or_pad(y, 5, 5)
    tf.random_normal([2])
    assert _seeds() == [27, 221]
    names = _names()
    s = "resize_image_with_crop_or_pad"
    i = names.index(f"{s}/ExpandDims/dim")
    assert names[i:i + 25] == ([f"{s}/ExpandDims/dim", f"{s}/ExpandDims"]
                               + _at_least_3d_asserts(s, "Rank") + [f"{s}/control_dependency"])
    assert names[-9:-6] == [f"{s}/pad_to_bounding_box/Pad", f"{s}/control_dependency_1",
                            f"{s}/Squeeze"]


def test_random_crop_and_standardization_build_tf_ops():
    x = tf.placeholder(tf.float32, [8, 8, 3])
    c = tf.image.random_crop(x, [5, 5, 3])
    y = tf.image.per_image_standardization(c)
    tf.random_normal([2])
    names = _names()
    assert names[:4] == ["Placeholder", "random_crop/size", "random_crop/Shape",
                         "random_crop/GreaterEqual"]
    assert names[names.index("random_crop/mod") + 1] == "random_crop"
    p = "per_image_standardization"
    r = f"{p}/reduce_std/reduce_variance"
    assert names[names.index("random_crop") + 1:-6] == [
        f"{p}/control_dependency", f"{p}/Shape", f"{p}/strided_slice/stack",
        f"{p}/strided_slice/stack_1", f"{p}/strided_slice/stack_2", f"{p}/strided_slice",
        f"{p}/Const", f"{p}/Prod", f"{p}/Mean/reduction_indices", f"{p}/Mean",
        f"{r}/Mean/reduction_indices", f"{r}/Mean", f"{r}/sub", f"{r}/Square",
        f"{r}/Mean_1/reduction_indices", f"{r}/Mean_1", f"{p}/reduce_std/Sqrt", f"{p}/Cast",
        f"{p}/Rsqrt", f"{p}/Maximum", f"{p}/sub", p, f"{p}/Identity"]
    assert y.name == f"{p}/Identity:0"
    assert _seeds() == [16, 45]


def test_per_image_standardization_keeps_the_dtype_as_tf_1_15():
    y = tf.image.per_image_standardization(tf.placeholder(tf.uint8, [4, 4, 3]))
    assert y.dtype == tf.uint8 and y.name == "per_image_standardization/convert_image_1:0"
    z = tf.image.per_image_standardization(tf.placeholder(tf.float64, [4, 4, 3]))
    assert z.dtype == tf.float64


def test_convert_resize_and_central_crop_build_tf_ops():
    x = tf.placeholder(tf.uint8, [8, 8, 3])
    y = tf.image.convert_image_dtype(x, tf.float32)
    z = tf.image.resize_images(y, [6, 6])
    tf.image.central_crop(z, 0.5)
    tf.random_normal([2])
    assert _names() == ["Placeholder", "convert_image/Cast", "convert_image/y", "convert_image",
                        "resize/ExpandDims/dim", "resize/ExpandDims", "resize/size",
                        "resize/ResizeBilinear", "resize/Squeeze",
                        "central_crop/control_dependency", "central_crop/stack",
                        "central_crop/stack_1", "central_crop/Slice"] + _NORMAL
    assert _seeds() == [16]


@pytest.mark.parametrize("src,dst,sat,want", [
    (tf.uint8, tf.int32, False, ["convert_image/Cast", "convert_image/y", "convert_image"]),
    (tf.int32, tf.uint8, False, ["convert_image/div/y", "convert_image/div", "convert_image"]),
    (tf.float32, tf.uint8, True, ["convert_image/Mul/y", "convert_image/Mul",
                                  "convert_image/min", "convert_image/Maximum",
                                  "convert_image/max", "convert_image/Minimum",
                                  "convert_image"]),
    (tf.float64, tf.float32, False, ["convert_image"]),
])
def test_convert_image_dtype_names_as_tf(src, dst, sat, want):
    tf.image.convert_image_dtype(tf.placeholder(src, [2, 2, 3]), dst, saturate=sat)
    assert _names()[1:] == want


def test_flips_transpose_and_rot90_count_tf_ops():
    x = tf.placeholder(tf.float32, [8, 8, 3])
    tf.image.flip_left_right(x)
    tf.image.flip_up_down(x)
    t = tf.image.transpose_image(x)
    r = tf.image.rot90(x)
    tf.image.rot90(x, 2)
    tf.random_normal([2])
    names = _names()
    assert names[:10] == ["Placeholder", "flip_left_right/control_dependency",
                          "flip_left_right/ReverseV2/axis", "flip_left_right/ReverseV2",
                          "flip_up_down/control_dependency", "flip_up_down/ReverseV2/axis",
                          "flip_up_down/ReverseV2", "transpose/control_dependency",
                          "transpose/transpose/perm", "transpose/transpose"]
    assert t.name == "transpose/transpose:0" and r.name == "rot90/cond/Merge:0"
    assert names[10:20] == ["rot90/control_dependency", "rot90/k", "rot90/FloorMod/y",
                            "rot90/FloorMod", "rot90/Equal/y", "rot90/Equal", "rot90/Equal_1/y",
                            "rot90/Equal_1", "rot90/Equal_2/y", "rot90/Equal_2"]
    assert _seeds() == [139]


def test_rot90_with_a_tensor_k_and_a_batch_counts_tf_ops():
    x = tf.placeholder(tf.float32, [2, 8, 6, 3])
    k = tf.placeholder(tf.int32, [])
    r = tf.image.rot90(x, k)
    tf.random_normal([2])
    assert r.get_shape().as_list() == [2, None, None, 3]
    assert _seeds() == [67]


def test_crop_pad_and_resize_with_pad_count_tf_ops():
    x = tf.placeholder(tf.float32, [None, 8, 6, 3])
    o = tf.placeholder(tf.int32, [])
    tf.image.crop_to_bounding_box(x, o, 1, 4, 4)
    tf.image.pad_to_bounding_box(x, o, 2, 12, 12)
    tf.random_normal([2])
    assert _seeds() == [97]


def test_resize_image_with_pad_counts_tf_ops():
    x = tf.placeholder(tf.float32, [None, None, 3])
    tf.image.resize_image_with_pad(x, 10, 10)
    tf.random_normal([2])
    assert len(_names()) == 125 and _seeds() == [122]


def test_resize_images_names_a_packed_size_as_tf():
    x = tf.placeholder(tf.float32, [None, None, 3])
    h = tf.placeholder(tf.int32, [])
    y = tf.image.resize_images(x, [h, 2 * h])
    assert y.op.inputs[0].op.inputs[1].name == "resize/size:0"


def test_adjust_hue_and_saturation_constants_named_as_tf():
    x = tf.placeholder(tf.float32, [8, 8, 3])
    tf.image.adjust_hue(x, 0.1)
    tf.image.adjust_saturation(x, 1.5)
    assert _names()[1:] == ["adjust_hue/AdjustHue/delta", "adjust_hue/AdjustHue",
                            "adjust_hue/Identity", "adjust_saturation/AdjustSaturation/scale",
                            "adjust_saturation/AdjustSaturation", "adjust_saturation/Identity"]


def test_gamma_grayscale_and_colour_maps_build_tf_ops():
    x = tf.placeholder(tf.float32, [2, 8, 8, 3])
    tf.image.adjust_gamma(x, 2.0)
    g = tf.image.rgb_to_grayscale(x)
    tf.image.grayscale_to_rgb(g)
    names = _names()
    assert names[1:5] == ["adjust_gamma/pow/y", "adjust_gamma/pow", "adjust_gamma/mul/x",
                          "adjust_gamma/mul"]
    t = "rgb_to_grayscale/Tensordot"
    assert names[6:20] == [
        "rgb_to_grayscale/Identity", f"{t}/b", f"{t}/transpose/perm", f"{t}/transpose",
        f"{t}/Reshape/shape", f"{t}/Reshape", f"{t}/transpose_1/perm", f"{t}/transpose_1",
        f"{t}/Reshape_1/shape", f"{t}/Reshape_1", f"{t}/MatMul", f"{t}/shape", t,
        "rgb_to_grayscale/ExpandDims/dim"]
    assert names[22:] == [
        "grayscale_to_rgb/control_dependency", "grayscale_to_rgb/Rank",
        "grayscale_to_rgb/sub/y", "grayscale_to_rgb/sub", "grayscale_to_rgb/ExpandDims/dim",
        "grayscale_to_rgb/ExpandDims", "grayscale_to_rgb/ones/Const", "grayscale_to_rgb/ones",
        "grayscale_to_rgb/ExpandDims_1/input", "grayscale_to_rgb/ExpandDims_1/dim",
        "grayscale_to_rgb/ExpandDims_1", "grayscale_to_rgb/concat/axis",
        "grayscale_to_rgb/concat", "grayscale_to_rgb"]


def test_grayscale_to_rgb_of_unknown_shape_checks_as_tf():
    tf.image.grayscale_to_rgb(tf.placeholder(tf.float32))
    tf.random_normal([2])
    assert len(_names()) == 53 and _seeds() == [50]


def test_gradients_sobel_and_glimpse_build_tf_ops():
    x = tf.placeholder(tf.float32, [None, None, None, 3])
    tf.image.image_gradients(x)
    tf.image.sobel_edges(x)
    tf.image.extract_glimpse(x, [3, 3], tf.zeros([2, 2]))
    tf.random_normal([2])
    names = _names()
    assert names[1:3] == ["Shape", "unstack"]
    assert "sobel_filters" in names and "ExtractGlimpse/size" in names
    assert _seeds() == [61]


def test_ssim_psnr_and_multiscale_count_tf_ops():
    x = tf.placeholder(tf.float32, [2, 32, 32, 3])
    y = tf.placeholder(tf.float32, [2, 32, 32, 3])
    tf.image.ssim(x, y, 1.0)
    tf.random_normal([2])
    assert _names()[2:6] == ["ShapeN", "Size", "GreaterEqual/y", "GreaterEqual"]
    assert len(_names()) == 218 and _seeds() == [215]
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.uint8, [2, 16, 16, 3])
        y = tf.placeholder(tf.uint8, [2, 16, 16, 3])
        p = tf.image.psnr(x, y, 255)
        tf.random_normal([2])
        assert p.name == "PSNR/Identity:0" and _seeds() == [47]
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [2, 16, 16, 3])
        tf.image.ssim_multiscale(x, x * 0.5, 1.0, power_factors=(0.3, 0.3, 0.4), filter_size=3)
        tf.random_normal([2])
        assert _seeds() == [708]  # TF makes 711 ops (its padding conds: Switch/Merge)


def test_decode_image_counts_tf_nested_conds():
    for kw, seed in (({}, 80), ({"dtype": tf.float32}, 88), ({"expand_animations": False}, 83),
                     ({"channels": 3, "dtype": tf.uint16}, 86)):
        with tf.Graph().as_default():
            tf.set_random_seed(1)
            im = tf.image.decode_image(tf.placeholder(tf.string, []), **kw)
            tf.random_normal([2])
            assert im.name == "decode_image/cond_jpeg/Merge:0"
            assert _seeds() == [seed], kw


def test_codec_ops_and_bounding_box_sampling_name_as_tf():
    s = tf.placeholder(tf.string, [])
    tf.image.decode_and_crop_jpeg(s, [0, 0, 4, 4], channels=3)
    tf.image.is_jpeg(s)
    im = tf.placeholder(tf.uint8, [None, None, 3])
    tf.image.sample_distorted_bounding_box(tf.shape(im), tf.zeros([1, 1, 4]),
                                           min_object_covered=0.1)
    tf.image.random_jpeg_quality(im, 50, 90)
    names = _names()
    assert names[1:3] == ["DecodeAndCropJpeg/crop_window", "DecodeAndCropJpeg"]
    assert names[3:8] == ["is_jpeg/Substr/pos", "is_jpeg/Substr/len", "is_jpeg/Substr",
                          "is_jpeg/Equal/y", "is_jpeg/Equal"]
    box = "sample_distorted_bounding_box/SampleDistortedBoundingBoxV2"
    assert f"{box}/min_object_covered" in names
    i = names.index("random_uniform/shape")
    assert names[i + 4:] == ["adjust_jpeg_quality/Identity",
                             "adjust_jpeg_quality/EncodeJpegVariableQuality",
                             "adjust_jpeg_quality/DecodeJpeg", "adjust_jpeg_quality/Identity_1"]


def test_jpeg_quality_in_a_map_function_leaves_the_shape_unknown_as_tf():
    def aug(im):
        im = tf.image.convert_image_dtype(im, tf.uint8, saturate=True)
        im = tf.image.random_jpeg_quality(im, 40, 90)
        return tf.image.random_flip_up_down(im)

    fg = _map_graph(aug)
    assert [op.get_attr("seed2") for op in fg.get_operations()
            if "seed2" in op.node_def.attr] == [11, 42]


def test_decode_image_in_a_map_function_counts_tf_functional_ops():
    def aug(s):
        return tf.image.random_flip_left_right(tf.image.decode_image(s, channels=3))

    ds = tf.data.Dataset.from_tensor_slices(tf.constant(["a", "b"])).map(aug)
    fg = ds._fn.fg
    assert [op.get_attr("seed2") for op in fg.get_operations()
            if "seed2" in op.node_def.attr] == [37]


def test_nms_with_overlaps_names_its_constants_as_tf():
    s = tf.placeholder(tf.float32, [10])
    tf.image.non_max_suppression_overlaps(tf.zeros([10, 10]), s, 5)
    op = "non_max_suppression_overlaps/NonMaxSuppressionWithOverlaps"
    assert _names()[2:] == ["non_max_suppression_overlaps/overlap_threshold",
                            f"{op}/max_output_size", f"{op}/score_threshold", op]


def test_crop_or_pad_gradient_builds_tf_pad_gradient():
    v = tf.Variable(tf.zeros([8, 8, 3]))
    y = tf.image.resize_image_with_crop_or_pad(v, 6, 10)
    tf.gradients(tf.reduce_sum(y), v)
    tf.random_normal([2])
    g = "gradients/resize_image_with_crop_or_pad/pad_to_bounding_box/Pad_grad"
    names = _names()
    i = names.index(f"{g}/Rank")
    assert names[i:i + 9] == [f"{g}/Rank", f"{g}/stack/1", f"{g}/stack", f"{g}/Slice/begin",
                              f"{g}/Slice", f"{g}/Reshape/shape", f"{g}/Reshape", f"{g}/Shape",
                              f"{g}/Slice_1"]
    assert len(names) == 58 and _seeds() == [55]


def _map_graph(fn):
    ds = tf.data.Dataset.from_tensor_slices(np.zeros([2, 4, 4, 3], np.float32)).map(fn)
    return ds._fn.fg


def test_flips_and_rot90_in_a_map_function_count_tf_functional_ops():
    def aug(im):
        im = tf.image.random_flip_up_down(im)
        im = tf.image.resize_image_with_crop_or_pad(im, 5, 3)
        im = tf.image.random_flip_left_right(im)
        return tf.image.rot90(im, 1)

    fg = _map_graph(aug)
    seeds = [op.get_attr("seed2") for op in fg.get_operations() if "seed2" in op.node_def.attr]
    assert seeds == [5, 31]
    # TF 1.15: 60 ops before the output Identity of the function
    assert len(fg.get_operations()) == 60


# ------------------------------------------------------------------------------------------
# seeded pipelines print TF 1.15's numbers
# ------------------------------------------------------------------------------------------

_IMG = np.arange(4 * 4 * 3, dtype=np.float32).reshape(4, 4, 3) / 48.0


def _run(build):
    with tf.Graph().as_default():
        tf.set_random_seed(7)
        out = build()
        with tf.Session() as sess:
            return sess.run(out)


def _close(got, want):
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, np.array(w, np.float32), atol=2e-5)


def test_seeded_flips_of_one_image_print_tf_values():
    def build():
        x = tf.constant(_IMG)
        ys = [tf.image.random_flip_left_right(x) for _ in range(4)]
        ud = tf.image.random_flip_up_down(x)
        return [tf.stack([y[0, :, 0] for y in ys]), ud[:, 0, 0], tf.random_normal([3])]

    row, rev = [0, 0.0625, 0.125, 0.1875], [0.1875, 0.125, 0.0625, 0]
    _close(_run(build), [[row, row, row, rev], [0, 0.25, 0.5, 0.75],
                         [0.49462, 0.89737, -0.10226]])


def test_seeded_flips_of_a_batch_print_tf_values():
    batch = np.stack([_IMG, _IMG[::-1], _IMG * 0.5])

    def build():
        y = tf.image.random_flip_left_right(tf.constant(batch))
        z = tf.image.random_flip_up_down(y)
        return [z[:, 0, :, 0], tf.random_normal([3])]

    _close(_run(build), [[[0.75, 0.8125, 0.875, 0.9375], [0, 0.0625, 0.125, 0.1875],
                          [0.09375, 0.0625, 0.03125, 0]], [-0.55116, -1.65139, -0.18895]])


def test_seeded_crop_or_pad_random_crop_and_standardization_print_tf_values():
    def build():
        y = tf.image.random_flip_left_right(tf.placeholder_with_default(_IMG, None))
        z = tf.image.resize_image_with_crop_or_pad(y, 3, 5)
        c = tf.image.random_crop(tf.constant(_IMG), [2, 2, 3])
        s = tf.image.per_image_standardization(c)
        return [z[:, :, 0], s[:, :, 0], tf.random_normal([3])]

    _close(_run(build), [[[0, 0.0625, 0.125, 0.1875, 0], [0.25, 0.3125, 0.375, 0.4375, 0],
                          [0.5, 0.5625, 0.625, 0.6875, 0]],
                         [[-0.61343, -0.39693], [0.25259, 0.4691]],
                         [0.96745, -1.40589, -1.25038]])


def test_seeded_colour_and_geometry_pipeline_prints_tf_values():
    def build():
        f = tf.image.convert_image_dtype(tf.constant((_IMG * 255).astype(np.uint8)), tf.float32)
        f = tf.image.random_brightness(f, 0.2)
        f = tf.image.random_contrast(f, 0.5, 1.5)
        f = tf.image.random_saturation(f, 0.5, 1.5)
        f = tf.image.random_hue(f, 0.1)
        f = tf.image.rot90(f)
        f = tf.image.random_flip_up_down(f)
        f = tf.image.resize_images(f, [3, 3])
        f = tf.image.central_crop(f, 0.7)
        return [f[:, :, 1], tf.random_normal([3])]

    _close(_run(build), [[[-0.09245, 0.25681, 0.62158], [-0.00628, 0.34793, 0.71347],
                          [0.07419, 0.43813, 0.8052]], [-0.30107, -1.42985, -1.7747]])


def _png():
    img = (np.arange(16 * 12 * 3).reshape(16, 12, 3) * 5 % 256).astype(np.uint8)
    with tf.Graph().as_default(), tf.Session() as sess:
        return sess.run(tf.image.encode_png(img))


def test_seeded_inception_style_preprocessing_prints_tf_values():
    png = _png()

    def pre(s):
        im = tf.image.decode_image(s, channels=3)
        im.set_shape([None, None, 3])
        begin, size, _ = tf.image.sample_distorted_bounding_box(
            tf.shape(im), tf.constant([[[0.0, 0.0, 1.0, 1.0]]]), min_object_covered=0.3, seed=4)
        f = tf.image.convert_image_dtype(tf.slice(im, begin, size), tf.float32)
        f = tf.image.resize_images(f, [6, 6])
        f = tf.image.random_flip_left_right(f)
        f = tf.image.random_brightness(f, 0.2)
        f = tf.image.random_saturation(f, 0.6, 1.4)
        return tf.clip_by_value(f, 0.0, 1.0)

    def top():
        with tf.Graph().as_default():
            tf.set_random_seed(11)
            out = [pre(tf.constant(png))[:, :, 0], tf.random_normal([3])]
            with tf.Session() as sess:
                return sess.run(out)

    def mapped():
        with tf.Graph().as_default():
            tf.set_random_seed(11)
            ds = tf.data.Dataset.from_tensor_slices(tf.constant([png] * 4)).map(pre).batch(4)
            out = [ds.make_one_shot_iterator().get_next()[:, 0, :, 0], tf.random_normal([3])]
            with tf.Session() as sess:
                return sess.run(out)

    _close(top(), [[[0.09773, 0.21538, 0.33303, 0.45067, 0.56832, 0.68597],
                    [0.60492, 0.72257, 0.50558, 0.62322, 0.72661, 0.18924],
                    [0.44283, 0.22584, 0.34348, 0.46113, 0.57878, 0.69643],
                    [0.61538, 0.73303, 0.85067, 0.96119, 0.08205, 0.19969],
                    [0.11865, 0.23629, 0.35394, 0.47159, 0.58924, 0.70688],
                    [0.62584, 0.74348, 0.854, 0.3095, 0.42714, 0.21015]],
                   [0.68455, -1.64474, 1.91101]])
    _close(mapped(), [[[0.77181, 0.65416, 0.53651, 0.41887, 0.30122, 0.18357],
                       [0.22346, 0.34111, 0.45875, 0.5764, 0.69405, 0.80285],
                       [0.52324, 0.40559, 0.28794, 0.17029, 0.05265, 0.0],
                       [0.11824, 0.00059, 0.0, 0.76922, 0.65157, 0.53392]],
                      [0.18126, 1.65289, 0.36408]])


def test_seeded_map_augmentations_print_tf_values():
    def build(aug, pick):
        ds = tf.data.Dataset.from_tensor_slices(np.stack([_IMG] * 6)).map(aug).batch(6)
        return [pick(ds.make_one_shot_iterator().get_next()), tf.random_normal([3])]

    def aug1(im):
        im = tf.image.random_flip_left_right(im)
        im = tf.image.random_crop(im, [3, 3, 3])
        im = tf.image.random_brightness(im, 0.3)
        return tf.image.per_image_standardization(im)

    def aug2(im):
        im = tf.image.random_flip_up_down(im)
        im = tf.image.resize_image_with_crop_or_pad(im, 5, 3)
        im = tf.image.random_flip_left_right(im)
        return tf.image.rot90(im, 1)

    a, b = [-1.57908, -1.28301, -0.98693], [-0.98693, -1.28301, -1.57908]
    normal = [-0.83336, -0.57687, 0.2389]
    _close(_run(lambda: build(aug1, lambda t: t[:, 0, :, 0])), [[a, b, a, a, b, b], normal])
    c, d = [0, 0.0625, 0.125], [0.875, 0.8125, 0.75]
    _close(_run(lambda: build(aug2, lambda t: t[:, :, 0, 0])),
           [[c, d, c, c[::-1], d[::-1], d], normal])


def test_seeded_map_fn_augmentations_print_tf_values():
    img = np.arange(6 * 4 * 4 * 3, dtype=np.float32).reshape(6, 4, 4, 3) / 288.0

    def build():
        x = tf.constant(img)
        y = tf.map_fn(lambda im: tf.image.random_flip_left_right(im), x)
        z = tf.map_fn(lambda im: tf.image.random_crop(tf.image.rot90(im, 1), [2, 2, 3]), x)
        n = tf.random_normal([3])
        return [y[:, 0, :, 0], z[:, :, 0, 0], n]

    with tf.Graph().as_default():
        tf.set_random_seed(5)
        out = build()
        with tf.Session() as sess:
            got = sess.run(out)
    flip = [[0.0312, 0.0208, 0.0104, 0.0], [0.1667, 0.1771, 0.1875, 0.1979],
            [0.3646, 0.3542, 0.3438, 0.3333], [0.5, 0.5104, 0.5208, 0.5312],
            [0.6979, 0.6875, 0.6771, 0.6667], [0.8333, 0.8438, 0.8542, 0.8646]]
    crop = [[0.0729, 0.0625], [0.1771, 0.1667], [0.4479, 0.4375], [0.5104, 0.5],
            [0.7396, 0.7292], [0.8646, 0.8542]]
    for g, w in zip(got, [flip, crop, [-0.9477, -0.0369, -0.5546]], strict=True):
        np.testing.assert_allclose(g, w, atol=1e-4)


def test_seeded_augmented_cnn_training_prints_tf_losses():
    # a tf.data augmentation map (crop_or_pad, random crop and flip, brightness, contrast,
    # standardization), a batch flip, then a CNN with dropout trained by Adam
    rng = np.random.RandomState(0)
    images = rng.randint(0, 256, (64, 16, 16, 3)).astype(np.uint8)
    labels = rng.randint(0, 10, 64).astype(np.int64)

    def aug(im, lab):
        im = tf.image.convert_image_dtype(im, tf.float32)
        im = tf.image.resize_image_with_crop_or_pad(im, 20, 20)
        im = tf.image.random_crop(im, [16, 16, 3])
        im = tf.image.random_flip_left_right(im)
        im = tf.image.random_brightness(im, 0.2)
        im = tf.image.random_contrast(im, 0.8, 1.2)
        return tf.image.per_image_standardization(im), lab

    with tf.Graph().as_default():
        tf.set_random_seed(42)
        ds = tf.data.Dataset.from_tensor_slices((images, labels)).map(aug).batch(16).repeat()
        x, y = ds.make_one_shot_iterator().get_next()
        x = tf.image.random_flip_up_down(x)
        h = tf.layers.conv2d(x, 8, 3, activation=tf.nn.relu)
        h = tf.layers.flatten(tf.layers.max_pooling2d(h, 2, 2))
        h = tf.layers.dropout(h, 0.3, training=True)
        loss = tf.losses.sparse_softmax_cross_entropy(y, tf.layers.dense(h, 10))
        train = tf.train.AdamOptimizer(1e-3).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = [sess.run([loss, train])[0] for _ in range(5)]
    np.testing.assert_allclose(got, [3.212360, 2.987655, 3.035731, 3.539066, 2.664989],
                               atol=2e-5)
