"""tf.image compared with TF 1.15 by differential programs (eighteenth session): the JPEG
decode of TF's defaults (fast IDCT, fancy chroma upsampling), EncodeJpegVariableQuality's
clamped quality, the input names and order of CropAndResize and adjust_contrast. Expected
values are TF 1.15's printed outputs."""

import hashlib

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _image():
    return (np.arange(6 * 10 * 3).reshape(6, 10, 3) * 37 % 256).astype(np.uint8)


# TF 1.15: decode_jpeg(encode_jpeg(_image(), quality=80)) (a 4:2:0 JPEG)
TF_DECODED = [[[2, 38, 12], [129, 150, 141], [67, 57, 81], [117, 107, 132], [175, 191, 188], [54, 77, 61], [190, 193, 186], [43, 38, 34], [158, 148, 149], [84, 74, 75]], [[94, 122, 108], [184, 199, 196], [102, 89, 109], [198, 184, 201], [48, 62, 49], [148, 165, 146], [81, 80, 76], [131, 120, 128], [207, 195, 205], [98, 86, 96]], [[192, 206, 217], [53, 55, 67], [177, 155, 168], [101, 80, 79], [129, 136, 103], [222, 233, 203], [106, 95, 103], [223, 205, 231], [78, 62, 91], [187, 172, 201]], [[26, 40, 51], [142, 144, 156], [84, 62, 75], [136, 116, 115], [179, 189, 155], [62, 76, 43], [194, 188, 190], [43, 30, 48], [143, 138, 158], [78, 76, 97]], [[85, 116, 100], [183, 199, 196], [101, 92, 113], [191, 182, 199], [31, 52, 37], [149, 175, 146], [92, 104, 84], [111, 122, 105], [212, 235, 219], [73, 101, 86]], [[184, 223, 192], [47, 71, 58], [160, 156, 181], [112, 108, 135], [115, 140, 134], [198, 232, 205], [86, 105, 75], [183, 205, 169], [35, 70, 38], [154, 198, 165]]]
# TF 1.15: adjust_jpeg_quality(_image()[:2, :4], q) for q = 150 and 100 (libjpeg clamps), -3 (to 1)
TF_Q100 = [[[4, 43, 14], [109, 148, 119], [89, 65, 99], [115, 91, 125]], [[89, 128, 99], [166, 205, 176], [94, 70, 104], [200, 176, 210]]]
TF_Q1 = [[[44, 101, 144], [144, 201, 244], [10, 67, 110], [167, 224, 255]], [[44, 101, 144], [144, 201, 244], [10, 67, 110], [167, 224, 255]]]


def test_decode_jpeg_default_is_tfs_fast_idct_with_fancy_upsampling():
    enc = tf.image.encode_jpeg(_image(), quality=80)
    with tf.Session() as sess:
        data = sess.run(enc)
        dec, img = sess.run([tf.image.decode_jpeg(data), tf.image.decode_image(data)])
    np.testing.assert_array_equal(dec, TF_DECODED)
    np.testing.assert_array_equal(img, TF_DECODED)


def test_fancy_upsampling_is_libjpegs_triangle_filter():
    from tideflow.ops.image_codec_ops import _fancy_upsample

    c = np.array([[10, 20, 40]], np.uint8)
    # h2v1: (3 * near + far + 1 or 2) >> 2, edges repeated
    np.testing.assert_array_equal(_fancy_upsample(c, False), [[10, 13, 17, 25, 35, 40]])
    # h2v2: (3 * (3 * near + far) + ... + 8 or 7) >> 4 over one row
    np.testing.assert_array_equal(_fancy_upsample(c, True), [[10, 12, 18, 25, 35, 40]] * 2)
    small = tf.image.encode_jpeg(_image()[:3, :3])
    with tf.Session() as sess:
        out = sess.run(tf.image.decode_jpeg(small))
    assert out.shape == (3, 3, 3)


def test_adjust_jpeg_quality_clamps_the_quality_as_libjpeg():
    img = _image()[:2, :4]
    with tf.Session() as sess:
        hi, full, lo = sess.run([tf.image.adjust_jpeg_quality(img, 150),
                                 tf.image.adjust_jpeg_quality(img, 100),
                                 tf.image.adjust_jpeg_quality(img, -3)])
    np.testing.assert_array_equal(hi, TF_Q100)
    np.testing.assert_array_equal(full, TF_Q100)
    np.testing.assert_array_equal(lo, TF_Q1)


def test_crop_and_resize_makes_its_inputs_in_argument_order():
    img = np.zeros((1, 4, 4, 1), np.float32)
    tf.image.crop_and_resize(img, [[0.0, 0.0, 1.0, 1.0]], [0], [2, 2])
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names == ["CropAndResize/image", "CropAndResize/boxes", "CropAndResize/box_ind",
                     "CropAndResize/crop_size", "CropAndResize"]
    with pytest.raises(ValueError, match="Attr 'method' of 'CropAndResize' Op passed string "
                                         "'bicubic' not in"):
        tf.image.crop_and_resize(img, [[0.0, 0.0, 1.0, 1.0]], [0], [2, 2], method="bicubic")
    # TF made the four inputs before checking the attr
    assert tf.get_default_graph()._last_id == 9


def test_adjust_contrast_names_its_input_images():
    tf.image.adjust_contrast(np.zeros((2, 2, 3), np.float32), 1.5)
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names == ["adjust_contrast/images", "adjust_contrast/contrast_factor", "adjust_contrast",
                     "adjust_contrast/Identity"]


# boxes 0 and 2 coincide (IoU 1), 3 overlaps 0 with IoU exactly 1/3 in float32, 1 is apart
_NMS_BOXES = np.array([[0, 0, 1, 1], [2, 2, 3, 3], [0, 0, 1, 1], [0, 0.5, 1, 1.5]], np.float32)
_NMS_SCORES = np.array([0.9, 0.8, 0.7, 0.6], np.float32)
_OVERLAPS = np.array([[1, 0, 1, 0.3], [0, 1, 0, 0], [1, 0, 1, 0.3], [0.3, 0, 0.3, 1]],
                     np.float32)


@pytest.mark.parametrize("threshold, kept, kept_overlaps", [
    (0.0, [0], [0]), (1 / 3, [0, 1], [0, 1, 3]), (1.0, [0, 1, 3], [0, 1, 3])])
def test_nms_suppresses_at_a_similarity_equal_to_the_threshold(threshold, kept,
                                                               kept_overlaps):
    # TF 1.15's kernels suppress when the IoU (or overlap) is >= the threshold
    b, s = _NMS_BOXES, _NMS_SCORES
    outs = [tf.image.non_max_suppression(b, s, 4, threshold),
            tf.image.non_max_suppression_padded(b, s, 4, threshold)[0],
            tf.image.non_max_suppression_with_scores(b, s, 4, threshold, soft_nms_sigma=0.5)[0],
            tf.image.non_max_suppression_overlaps(_OVERLAPS, s, 4, threshold)]
    with tf.Session() as sess:
        got = sess.run(outs)
    assert [g.tolist() for g in got] == [kept, kept, kept, kept_overlaps]


def test_nms_padded_makes_its_thresholds_first():
    tf.image.non_max_suppression_padded(_NMS_BOXES, _NMS_SCORES, 4)
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names == ["non_max_suppression_padded/iou_threshold",
                     "non_max_suppression_padded/score_threshold",
                     "non_max_suppression_padded/NonMaxSuppressionV4/boxes",
                     "non_max_suppression_padded/NonMaxSuppressionV4/scores",
                     "non_max_suppression_padded/NonMaxSuppressionV4/max_output_size",
                     "non_max_suppression_padded/NonMaxSuppressionV4"]


def test_decode_static_shapes_as_tf():
    p = tf.placeholder(tf.string, [])
    assert tf.image.decode_and_crop_jpeg(p, [1, 2, 5, 4]).get_shape().as_list() == [5, 4, None]
    assert tf.image.decode_and_crop_jpeg(p, [1, 2, -1, 4], channels=1).get_shape().as_list() == [
        None, 4, 1]
    with pytest.raises(ValueError, match="Dimension must be 4 but is 3"):
        tf.image.decode_and_crop_jpeg(p, [1, 2, 4])
    # TF 1.15's BMP branch has no channels, so the merged shape has none either
    img = tf.image.decode_image(p, channels=3, expand_animations=False)
    assert img.get_shape().as_list() == [None, None, None]


@pytest.mark.parametrize("encode, channels, message", [
    (tf.image.encode_jpeg, 2, "image must have 1 or 3 channels, got [2,2,2]"),
    (tf.image.encode_jpeg, 5, "image must have 1 or 3 channels, got [2,2,5]"),
    (tf.image.encode_png, 5, "image must have 1, 2, 3, or 4 channels, got 5")])
def test_encode_channel_errors_in_tfs_words(encode, channels, message):
    t = encode(np.zeros((2, 2, channels), np.uint8))
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(t)
    assert info.value.message.startswith(message)


def test_numpy_arrays_take_the_type_attrs_default_as_tf_1_15():
    # TF 1.15's op_def_library prefers the attr's default and make_tensor_proto casts a NumPy
    # array to it: a uint16 (or float) image array becomes an 8-bit PNG (values wrapped or
    # truncated), int32 one_hot indices int64, an int64 reshape shape int32
    img = np.array([[[300, 2, 4464]]], np.uint16)
    png = tf.image.encode_png(img)
    assert png.op.get_attr("T") == tf.uint8
    assert tf.one_hot(np.array([1, 2], np.int32), 3).op.get_attr("TI") == tf.int64
    assert tf.reshape(tf.zeros([6]), np.array([2, 3], np.int64)).op.get_attr("Tshape") == tf.int32
    assert tf.image.encode_png(np.zeros((1, 1, 1), np.float32)).op.get_attr("T") == tf.uint8
    with pytest.raises(TypeError, match="has DataType float32 not in list of allowed values"):
        tf.image.encode_png([[[1.5]]])
    with tf.Session() as sess:
        assert sess.run(tf.image.decode_png(png)).ravel().tolist() == [44, 2, 112]


def _ramp():
    yy, xx = np.mgrid[0:8, 0:40]
    return np.stack([xx * 6, yy * 30, (xx * 7 + yy * 11) % 256], -1).astype(np.uint8)


# TF 1.15 (this JPEG is byte for byte TF's encode_jpeg(_ramp(), quality=90), md5 66c90a93601ca1e17220106d63a3e57c)
TF_CROP_16_4 = [[[94, 61, 130], [99, 63, 135], [106, 63, 145], [111, 62, 151]], [[94, 90, 141], [99, 91, 148], [106, 91, 158], [109, 92, 163]]]
TF_CROP_16_1 = [[[85, 67, 125]], [[103, 85, 143]]]
TF_RATIO2_ROWS = [[[2, 15, 8], [13, 16, 21], [27, 15, 35], [39, 15, 51], [49, 16, 63], [62, 16, 78], [73, 15, 92], [85, 16, 105], [94, 18, 118], [109, 14, 140], [125, 14, 142], [137, 15, 152], [147, 16, 184], [155, 17, 188], [166, 17, 197], [180, 14, 238], [197, 17, 228], [206, 16, 178], [217, 14, 78], [229, 16, 10]], [[2, 75, 30], [13, 77, 43], [25, 76, 59], [37, 76, 73], [49, 76, 85], [62, 76, 102], [73, 75, 114], [85, 77, 128], [96, 78, 136], [109, 77, 152], [124, 73, 178], [136, 72, 195], [146, 76, 200], [157, 77, 202], [173, 75, 220], [187, 75, 239], [191, 76, 117], [195, 76, 42], [215, 78, 24], [232, 74, 47]]]


def test_decode_and_crop_jpeg_upsamples_the_crop_as_libjpeg():
    # libjpeg's cropped decode upsamples chroma over the columns from the 16-aligned one to
    # the crop's right end (their edges repeat); a crop one chroma sample wide is not
    # upsampled by the filter at all
    with tf.Session() as sess:
        data = sess.run(tf.image.encode_jpeg(_ramp(), quality=90))
        assert hashlib.md5(data).hexdigest() == "66c90a93601ca1e17220106d63a3e57c"
        a, b, r = sess.run([tf.image.decode_and_crop_jpeg(data, [2, 16, 2, 4]),
                            tf.image.decode_and_crop_jpeg(data, [2, 16, 2, 1]),
                            tf.image.decode_jpeg(data, ratio=2)])
    np.testing.assert_array_equal(a, TF_CROP_16_4)
    np.testing.assert_array_equal(b, TF_CROP_16_1)
    np.testing.assert_array_equal(r[:2], TF_RATIO2_ROWS)


def test_encode_jpeg_grayscale_sampling_and_cm_density_are_tfs_bytes():
    with tf.Session() as sess:
        gray, cm = sess.run([tf.image.encode_jpeg(_ramp()[..., :1]),
                             tf.image.encode_jpeg(_ramp(), density_unit="cm", x_density=100,
                                                  y_density=50)])
    assert hashlib.md5(gray).hexdigest() == "9c7e44b9482ca5638b70f75623a7657d"
    assert cm[:20].hex() == "ffd8ffe000104a46494600010102006400320000"
    assert hashlib.md5(cm).hexdigest() == "fad57ac2c11935859d7a039f0456ebae"


# TF 1.15: tf.gradients(reduce_sum(t * t), img) for t = tf.contrib.image.rotate(img, 0.4, interp)
TF_ROTATE_GRAD = {"BILINEAR": [[0.05285000056028366, 0.12342999875545502, 0.1904599964618683, 0.21094000339508057, 0.23675000667572021, 0.11076000332832336], [0.35106998682022095, 0.4666700065135956, 0.5333300232887268, 0.6003900170326233, 0.666670024394989, 0.5398499965667725], [0.69309002161026, 0.8666700124740601, 0.9333299994468689, 1.0, 1.0666699409484863, 0.9500799775123596], [0.9617099761962891, 1.2666699886322021, 1.3294099569320679, 1.399999976158142, 1.466670036315918, 1.195180058479309], [0.24067999422550201, 0.8725000023841858, 1.5950599908828735, 1.3363900184631348, 1.4690200090408325, 0.7562699913978577]],
                  "NEAREST": [[0.0, 0.0666700005531311, 0.13333000242710114, 0.20000000298023224, 0.26666998863220215, 0.0], [0.4000000059604645, 0.4666700065135956, 0.5333300232887268, 0.6000000238418579, 0.26666998863220215, 0.7333300113677979], [0.800000011920929, 0.8666700124740601, 0.9333299994468689, 1.0, 1.0666699409484863, 1.13332998752594], [1.2000000476837158, 1.6666699647903442, 1.3333300352096558, 1.399999976158142, 1.466670036315918, 1.533329963684082], [0.0, 1.6666699647903442, 1.7333300113677979, 1.7999999523162842, 1.86667001247406, 0.0]]}


@pytest.mark.parametrize("interp", ["BILINEAR", "NEAREST"])
def test_projective_transform_gradient_is_tfs_inverse_transform(interp):
    # TF 1.15 moves the gradient back by the inverse transform (not the exact adjoint)
    img = tf.constant(np.arange(30, dtype=np.float32).reshape(1, 5, 6, 1) / 30.)
    t = tf.contrib.image.rotate(img, 0.4, interpolation=interp)
    g = tf.gradients(tf.reduce_sum(t * t), img)[0]
    assert g.op.type == "ImageProjectiveTransformV2"
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(g)[0, :, :, 0], TF_ROTATE_GRAD[interp], atol=2e-5)


def test_connected_components_are_int32():
    cc = tf.contrib.image.connected_components(tf.constant([[1, 1, 0], [0, 0, 2]]))
    assert cc.dtype == tf.int32
    with tf.Session() as sess:
        assert sess.run(cc).tolist() == [[1, 1, 0], [0, 0, 2]]
    with pytest.raises(TypeError, match="rank 2"):
        tf.contrib.image.connected_components(tf.zeros([2]))


# TF 1.15: the ops tf.contrib.image.rotate(img, 0.5) makes for a constant [2, 5, 6, 1] image
TF_ROTATE_OPS = [
    'rotate/Shape',
    'rotate/strided_slice/stack',
    'rotate/strided_slice/stack_1',
    'rotate/strided_slice/stack_2',
    'rotate/strided_slice',
    'rotate/Cast',
    'rotate/strided_slice_1/stack',
    'rotate/strided_slice_1/stack_1',
    'rotate/strided_slice_1/stack_2',
    'rotate/strided_slice_1',
    'rotate/Shape_1',
    'rotate/strided_slice_2/stack',
    'rotate/strided_slice_2/stack_1',
    'rotate/strided_slice_2/stack_2',
    'rotate/strided_slice_2',
    'rotate/Cast_1',
    'rotate/strided_slice_3/stack',
    'rotate/strided_slice_3/stack_1',
    'rotate/strided_slice_3/stack_2',
    'rotate/strided_slice_3',
    'rotate/angles_to_projective_transforms/angles',
    'rotate/angles_to_projective_transforms/strided_slice/stack',
    'rotate/angles_to_projective_transforms/strided_slice/stack_1',
    'rotate/angles_to_projective_transforms/strided_slice/stack_2',
    'rotate/angles_to_projective_transforms/strided_slice',
    'rotate/angles_to_projective_transforms/sub/y',
    'rotate/angles_to_projective_transforms/sub',
    'rotate/angles_to_projective_transforms/Cos',
    'rotate/angles_to_projective_transforms/sub_1/y',
    'rotate/angles_to_projective_transforms/sub_1',
    'rotate/angles_to_projective_transforms/mul',
    'rotate/angles_to_projective_transforms/Sin',
    'rotate/angles_to_projective_transforms/sub_2/y',
    'rotate/angles_to_projective_transforms/sub_2',
    'rotate/angles_to_projective_transforms/mul_1',
    'rotate/angles_to_projective_transforms/sub_3',
    'rotate/angles_to_projective_transforms/sub_4',
    'rotate/angles_to_projective_transforms/truediv/y',
    'rotate/angles_to_projective_transforms/truediv',
    'rotate/angles_to_projective_transforms/sub_5/y',
    'rotate/angles_to_projective_transforms/sub_5',
    'rotate/angles_to_projective_transforms/Sin_1',
    'rotate/angles_to_projective_transforms/sub_6/y',
    'rotate/angles_to_projective_transforms/sub_6',
    'rotate/angles_to_projective_transforms/mul_2',
    'rotate/angles_to_projective_transforms/Cos_1',
    'rotate/angles_to_projective_transforms/sub_7/y',
    'rotate/angles_to_projective_transforms/sub_7',
    'rotate/angles_to_projective_transforms/mul_3',
    'rotate/angles_to_projective_transforms/add',
    'rotate/angles_to_projective_transforms/sub_8',
    'rotate/angles_to_projective_transforms/truediv_1/y',
    'rotate/angles_to_projective_transforms/truediv_1',
    'rotate/angles_to_projective_transforms/Shape',
    'rotate/angles_to_projective_transforms/strided_slice_1/stack',
    'rotate/angles_to_projective_transforms/strided_slice_1/stack_1',
    'rotate/angles_to_projective_transforms/strided_slice_1/stack_2',
    'rotate/angles_to_projective_transforms/strided_slice_1',
    'rotate/angles_to_projective_transforms/Cos_2',
    'rotate/angles_to_projective_transforms/strided_slice_2/stack',
    'rotate/angles_to_projective_transforms/strided_slice_2/stack_1',
    'rotate/angles_to_projective_transforms/strided_slice_2/stack_2',
    'rotate/angles_to_projective_transforms/strided_slice_2',
    'rotate/angles_to_projective_transforms/Sin_2',
    'rotate/angles_to_projective_transforms/strided_slice_3/stack',
    'rotate/angles_to_projective_transforms/strided_slice_3/stack_1',
    'rotate/angles_to_projective_transforms/strided_slice_3/stack_2',
    'rotate/angles_to_projective_transforms/strided_slice_3',
    'rotate/angles_to_projective_transforms/Neg',
    'rotate/angles_to_projective_transforms/strided_slice_4/stack',
    'rotate/angles_to_projective_transforms/strided_slice_4/stack_1',
    'rotate/angles_to_projective_transforms/strided_slice_4/stack_2',
    'rotate/angles_to_projective_transforms/strided_slice_4',
    'rotate/angles_to_projective_transforms/Sin_3',
    'rotate/angles_to_projective_transforms/strided_slice_5/stack',
    'rotate/angles_to_projective_transforms/strided_slice_5/stack_1',
    'rotate/angles_to_projective_transforms/strided_slice_5/stack_2',
    'rotate/angles_to_projective_transforms/strided_slice_5',
    'rotate/angles_to_projective_transforms/Cos_3',
    'rotate/angles_to_projective_transforms/strided_slice_6/stack',
    'rotate/angles_to_projective_transforms/strided_slice_6/stack_1',
    'rotate/angles_to_projective_transforms/strided_slice_6/stack_2',
    'rotate/angles_to_projective_transforms/strided_slice_6',
    'rotate/angles_to_projective_transforms/strided_slice_7/stack',
    'rotate/angles_to_projective_transforms/strided_slice_7/stack_1',
    'rotate/angles_to_projective_transforms/strided_slice_7/stack_2',
    'rotate/angles_to_projective_transforms/strided_slice_7',
    'rotate/angles_to_projective_transforms/zeros/mul/y',
    'rotate/angles_to_projective_transforms/zeros/mul',
    'rotate/angles_to_projective_transforms/zeros/Less/y',
    'rotate/angles_to_projective_transforms/zeros/Less',
    'rotate/angles_to_projective_transforms/zeros/packed/1',
    'rotate/angles_to_projective_transforms/zeros/packed',
    'rotate/angles_to_projective_transforms/zeros/Const',
    'rotate/angles_to_projective_transforms/zeros',
    'rotate/angles_to_projective_transforms/concat/axis',
    'rotate/angles_to_projective_transforms/concat',
    'rotate/transform/Shape',
    'rotate/transform/strided_slice/stack',
    'rotate/transform/strided_slice/stack_1',
    'rotate/transform/strided_slice/stack_2',
    'rotate/transform/strided_slice',
    'rotate/transform/ImageProjectiveTransformV2',
]


def test_contrib_image_rotate_translate_transform_make_tfs_ops():
    img = tf.constant(np.zeros((2, 5, 6, 1), np.float32))
    r = tf.contrib.image.rotate(img, 0.5)
    graph = tf.get_default_graph()
    assert [op.name for op in graph.get_operations()][1:] == TF_ROTATE_OPS
    assert r.get_shape().as_list() == [2, 5, 6, 1] and graph._last_id == 104
    t = tf.contrib.image.translate(img, [1.5, -0.5])
    assert graph._last_id == 172 and t.name == "translate/transform/ImageProjectiveTransformV2:0"
    u = tf.contrib.image.transform(img[0], [1, 0.1, 0, 0.2, 1, 0, 0.01, 0])
    assert graph._last_id == 195 and u.name == "transform/strided_slice_3:0"
    assert u.get_shape().as_list() == [5, 6, 1]
    # only a fully known size is static (TF's shape function)
    p = tf.placeholder(tf.float32, [None, 5, None, 1])
    assert tf.contrib.image.rotate(p, 0.1).get_shape().as_list() == [None, None, None, 1]


# small PNGs written by Pillow: a 4-bit palette image and a 1-bit gray one
_PNG_PALETTE4 = bytes.fromhex(
    "89504e470d0a1a0a0000000d494844520000000900000007040300000028b57a5300000018504c5445bad085"
    "bb989747e47726a36ab55f9e3c5d86b01699311f81e2e0c11a0000003349444154789c6314e163bdabc3f4cf"
    "5e3ef1034b220be3a64816c63b9f2517302a28b0f0ff65fa22708eef01235be2cf4bf700145a0f07e572bfb6"
    "0000000049454e44ae426082")
_PNG_GRAY1 = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000009000000070100000000f2e05acd0000001d49444154789c63"
    "38cdc0f49981818b81c5d998a18681e13603e39b29003069051d0efae1710000000049454e44ae426082")


def test_decode_png_alpha_filler_and_16bit_gray_as_tf():
    # TF's libpng fills an added alpha with the file's largest sample value, and grays an
    # 8-bit image before widening it to 16 bits (TF 1.15's outputs)
    with tf.Session() as sess:
        p4, p1, g1 = sess.run([tf.image.decode_png(_PNG_PALETTE4, channels=4),
                               tf.image.decode_png(_PNG_GRAY1, channels=4),
                               tf.image.decode_png(_PNG_PALETTE4, channels=1, dtype=tf.uint16)])
    assert p4[0, :2].tolist() == [[187, 152, 151, 15], [181, 95, 158, 15]]
    assert p1[0, :2].tolist() == [[255, 255, 255, 1], [255, 255, 255, 1]]
    assert g1[0, :3].tolist() == [[41634], [32639], [43176]]


def test_compat_v2_sample_distorted_bounding_box_takes_the_graph_seed():
    # TF 2's form passes a non-zero seed through get_seed (TF 1's passes it as it is)
    tf.set_random_seed(1)
    b, s, d = tf.compat.v2.image.sample_distorted_bounding_box(
        tf.constant([40, 50, 3]), tf.zeros([1, 0, 4]), seed=3,
        use_image_if_no_bounding_boxes=True)
    assert (b.op.get_attr("seed"), b.op.get_attr("seed2")) == (1, 3)
    with tf.Session() as sess:
        got = sess.run([b, s, d])
    assert got[0].tolist() == [4, 18, 0] and got[1].tolist() == [15, 18, -1]
    np.testing.assert_allclose(got[2].ravel(), [0.1, 0.36, 0.475, 0.72], rtol=1e-6)


def test_decode_gif_decodes_a_png_or_jpeg_as_one_frame():
    # TF 1.15's DecodeGif picks the decoder by the first bytes
    png = tf.image.encode_png(np.full((2, 3, 1), 7, np.uint8))
    with tf.Session() as sess:
        out = sess.run(tf.image.decode_gif(png))
    assert out.shape == (1, 2, 3, 3) and (out == 7).all()


def test_nms_orders_tied_scores_as_tfs_priority_queue():
    # TF keeps candidates in a std::priority_queue (libstdc++'s heap): equal scores come out
    # in its order, not by index; a selected candidate goes back in the queue, as TF's does
    boxes = np.array([[2 * i, 0, 2 * i + 1, 1] for i in range(13)], np.float32)
    rs = np.random.RandomState(0)
    for n in (3, 5, 8):  # (the draws before, as the program that printed TF's order)
        rs.rand(n)
    scores = np.round(rs.rand(13), 1).astype(np.float32)
    outs = [tf.image.non_max_suppression(boxes, np.full(13, 0.5, np.float32), 13),
            tf.image.non_max_suppression_padded(boxes, scores, 13)[0],
            tf.image.non_max_suppression_with_scores(boxes, scores, 13, soft_nms_sigma=0.5)[0],
            tf.image.non_max_suppression_overlaps(
                [[0.2, 0.1, 0.0], [0.1, 0.0, 0.9], [0.0, 0.9, 0.3]], [0.9, 0.8, 0.7], 6, 0.15)]
    with tf.Session() as sess:
        tied, padded, soft, dup = sess.run(outs)
    assert tied.tolist() == [0, 2, 6, 12, 11, 10, 9, 8, 5, 7, 4, 1, 3]
    assert padded.tolist() == soft.tolist() == [4, 11, 3, 2, 5, 1, 7, 9, 6, 12, 10, 8, 0]
    assert dup.tolist() == [0, 1, 1, 1, 1, 1]  # (TF's: a self-overlap under the threshold)


def _bmp32(pixels_bgra):
    """An uncompressed 32-bit bottom-up BMP of [h, w, 4] BGRA bytes."""
    h, w = pixels_bgra.shape[:2]
    body = pixels_bgra[::-1].tobytes()
    head = (b"BM" + (54 + len(body)).to_bytes(4, "little") + bytes(4) + (54).to_bytes(4, "little")
            + (40).to_bytes(4, "little") + w.to_bytes(4, "little") + h.to_bytes(4, "little")
            + (1).to_bytes(2, "little") + (32).to_bytes(2, "little") + bytes(24))
    return head + body


def test_decode_bmp_as_tf_1_15():
    # TF's reader keeps the 4th byte, refuses a channels attr other than the file's, and
    # decode_image decodes a BMP with the file's channels (refusing only channels=1)
    bgra = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    data = _bmp32(bgra)
    with tf.Session() as sess:
        out, img = sess.run([tf.image.decode_bmp(data), tf.image.decode_image(data, channels=3)])
        np.testing.assert_array_equal(out, bgra[..., [2, 1, 0, 3]])
        np.testing.assert_array_equal(img, out)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="channels attribute 3 does not match bits per pixel from file 4"):
            sess.run(tf.image.decode_bmp(data, channels=3))
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Channels must be in \(None, 0, 3\) when decoding BMP images"):
            sess.run(tf.image.decode_image(data, channels=1))


# a 7x9 Adobe CMYK JPEG written by Pillow
_JPEG_CMYK = bytes.fromhex(
    "ffd8ffee000e41646f626500640000000000ffdb004300080606070605080707070909080a0c140d0c0b0b0c"
    "1912130f141d1a1f1e1d1a1c1c20242e2720222c231c1c2837292c30313434341f27393d38323c2e333432ff"
    "c000140800070009044311004d11005911004b1100ffc4001f00000105010101010101000000000000000001"
    "02030405060708090a0bffc400b5100002010303020403050504040000017d01020300041105122131410613"
    "516107227114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a"
    "434445464748494a535455565758595a636465666768696a737475767778797a838485868788898a92939495"
    "969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3"
    "e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9faffda000e0443004d0059004b00003f008ed6eed755b9b1b786c585"
    "a482e218952667174f094915191d80ce154b6e3820b10fbf6e24bc75d334a5d45b48b4d3edeeed52486e8017"
    "00ae1a658e5c8decbf2c782a15815419017155ac6c5ee6c3fb564d3124d25e549a52eeaab2a8485158c5f361"
    "8f9ec43020850461582111dadddaeab73636f0d8b0b4905c4312a4cce2e9e12922a323b019c2a96dc7041621"
    "f7edc75bfda36dff004348ff00c07b8ffe2eb2bc8d03fe81971ff7fee3ff0092ab57fe1635dffcfe59ff00e0"
    "3b7f8575bfda36dff4348ffc07b8ff00e2ebffd9")


def test_decode_cmyk_jpeg_and_uint16_refusal_as_tf():
    # TF converts libjpeg's CMYK itself (channel * K / 255, truncated, fast IDCT)
    with tf.Session() as sess:
        out = sess.run(tf.image.decode_jpeg(_JPEG_CMYK))
        assert out[0, :2].tolist() == [[53, 32, 42], [43, 63, 47]]
        assert hashlib.md5(out.tobytes()).hexdigest() == "f1e535f433618eeb7694e2e1c80a46d4"
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid JPEG data"):
            sess.run(tf.image.decode_jpeg(_JPEG_CMYK, channels=1))
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="JPEG does not support uint16 output"):
            sess.run(tf.image.decode_png(_JPEG_CMYK, dtype=tf.uint16))


@pytest.mark.parametrize("size, boxes, message", [
    ([40, 50], [[0.0, 0.0, 1.0]], "Shape must be rank 3 but is rank 2"),
    ([40, 50], [[[0.0, 0.0, 1.0, 1.0]]], "Dimension must be 3 but is 2"),
    ([40, 50, 3], [[[0.0, 0.0, 1.0]]], "Dimension must be 4 but is 3")])
def test_sample_distorted_bounding_box_checks_shapes_in_tfs_order(size, boxes, message):
    with pytest.raises(ValueError, match=message):
        tf.image.sample_distorted_bounding_box(size, boxes, seed=1)


def test_resize_v2_preserve_aspect_ratio_makes_tfs_ops():
    img = tf.constant(np.zeros((1, 5, 6, 2), np.float32))
    r = tf.compat.v2.image.resize(img, [10, 10], preserve_aspect_ratio=True)
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names[1:4] == ["resize/size", "resize/Cast/x", "resize/Cast"]
    assert names[-2:] == ["resize/size_1", "resize/ResizeBilinear"]
    assert tf.get_default_graph()._last_id == 25
    assert r.get_shape().as_list() == [1, 8, 10, 2]
