"""Strings, parsing, images and sparse ops against TF 1.15: values, error classes and words
(every reference below was measured in TF 1.15)."""

import struct
import zlib

import numpy as np
import pytest

import tideflow as tf
from tideflow.framework import errors


def _run(t, feed=None):
    with tf.Session() as s:
        return s.run(t, feed)


def _example(**feats):
    f = {}
    for k, v in feats.items():
        if isinstance(v[0], float):
            f[k] = tf.train.Feature(float_list=tf.train.FloatList(value=v))
        elif isinstance(v[0], int):
            f[k] = tf.train.Feature(int64_list=tf.train.Int64List(value=v))
        else:
            f[k] = tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
    return tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString()


def _sequence_example(ctx, seq):
    def feature(v):
        if isinstance(v[0], float):
            return tf.train.Feature(float_list=tf.train.FloatList(value=v))
        if isinstance(v[0], int):
            return tf.train.Feature(int64_list=tf.train.Int64List(value=v))
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=v))

    c = tf.train.Features(feature={k: feature(v) for k, v in ctx.items()})
    lists = tf.train.FeatureLists(feature_list={
        k: tf.train.FeatureList(feature=[feature(x) for x in v]) for k, v in seq.items()})
    return tf.train.SequenceExample(context=c, feature_lists=lists).SerializeToString()


# ------------------------------------------------------------------------------------------
# strings and CSV
# ------------------------------------------------------------------------------------------


def test_float32_parsing_flushes_denormals_to_zero():
    # TF's kernels run with flush-to-zero: "1e-40" reads as 0 in float32, but stays a
    # denormal in float64
    out = _run(tf.strings.to_number(["1e-50", "3.4e39", "1e-40", "-1e-40", "1.5"]))
    assert out.dtype == np.float32
    assert out.tolist() == [0.0, np.inf, 0.0, 0.0, 1.5]
    assert np.signbit(out[3])
    d = _run(tf.strings.to_number(["1e-320"], out_type=tf.float64))
    assert d[0] == 1e-320
    cols = _run(tf.decode_csv(["1e-40,1e-320,2.5"], [[1.0], tf.constant([0], tf.float64),
                                                     [0.0]]))
    assert cols[0].tolist() == [0.0]
    assert cols[1].tolist() == [1e-320]
    assert cols[2].tolist() == [2.5]


# ------------------------------------------------------------------------------------------
# SerializeTensor / ParseTensor
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value, dtype, expected", [
    # scalars, bools and halves go in tensor_content too (TF's AsProtoTensorContent)
    (7, tf.int64, [8, 9, 18, 0, 34, 8, 7, 0, 0, 0, 0, 0, 0, 0]),
    ([True, False], tf.bool, [8, 10, 18, 4, 18, 2, 8, 2, 34, 2, 1, 0]),
    ([1.5], tf.float16, [8, 19, 18, 4, 18, 2, 8, 1, 34, 2, 0, 62]),
    ([[1.5, 2.0], [3.0, -1.0]], tf.float32,
     [8, 1, 18, 8, 18, 2, 8, 2, 18, 2, 8, 2, 34, 16, 0, 0, 192, 63, 0, 0, 0, 64, 0, 0, 64, 64,
      0, 0, 128, 191]),
    (np.zeros([0, 2], np.float32), tf.float32, [8, 1, 18, 6, 18, 0, 18, 2, 8, 2]),
])
def test_serialize_tensor_bytes_are_tfs(value, dtype, expected):
    t = tf.constant(value, dtype)
    data = _run(tf.io.serialize_tensor(t))
    assert list(bytearray(data)) == expected
    back = _run(tf.io.parse_tensor(data, dtype))
    np.testing.assert_array_equal(back, np.asarray(value, dtype.as_numpy_dtype))


def test_serialize_tensor_of_strings_and_bad_protos():
    data = _run(tf.serialize_tensor(tf.constant(["a", "bc"])))
    assert list(bytearray(data)) == [8, 7, 18, 4, 18, 2, 8, 2, 66, 1, 97, 66, 2, 98, 99]
    with pytest.raises(errors.InvalidArgumentError) as e:
        _run(tf.io.parse_tensor(tf.constant(b"\x01\x02garbage"), tf.float32))
    # the bytes themselves, not a Python bytes repr
    assert "Could not parse `serialized` as TensorProto: '\x01\x02garbage'" in str(e.value)


# ------------------------------------------------------------------------------------------
# parse ops
# ------------------------------------------------------------------------------------------


def test_sequence_parsers_name_the_c_type_on_a_mismatch():
    s1 = _sequence_example({"len": [3], "name": [b"abc"]},
                           {"tok": [[1, 2], [3, 4]], "s": [[b"a"], [b"b"]]})
    with pytest.raises(errors.InvalidArgumentError) as e:
        _run(tf.parse_single_sequence_example(
            s1, {}, {"tok": tf.FixedLenSequenceFeature([2], tf.float32)}))
    assert ("Name: , Feature list: tok, Index: 0.  Data types don't match. Expected type: "
            "float  Feature is: int64_list {") in str(e.value)
    with pytest.raises(errors.InvalidArgumentError) as e:
        _run(tf.parse_single_sequence_example(s1, {"len": tf.FixedLenFeature([], tf.float32)},
                                              {}))
    assert ("Name: , Context feature: len.  Data types don't match. Expected type: float  "
            "Feature is: int64_list {") in str(e.value)


def test_sequence_parsers_refuse_a_feature_list_default():
    s1 = _sequence_example({}, {"w": [[0.5], [1.5]]})
    feature = tf.FixedLenSequenceFeature([], tf.float32, allow_missing=True, default_value=-1.0)
    with pytest.raises(ValueError, match=r"^Value feature_list_dense_defaults\[w\] must be "
                                         r"None$"):
        tf.io.parse_sequence_example([s1], {}, {"w": feature})
    with pytest.raises(ValueError, match=r"feature_list_dense_defaults\[w\] must be None"):
        tf.parse_single_sequence_example(s1, {}, {"w": feature})
    # (an Example's FixedLenSequenceFeature takes the default)
    out = _run(tf.parse_example([_example(w=[1.0, 2.0]), _example(v=[1.0])], {"w": feature}))
    assert out["w"].tolist() == [[1.0, 2.0], [-1.0, -1.0]]


# ------------------------------------------------------------------------------------------
# images
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fn, first", [
    ("rgb_to_yuv", "0.299"), ("yuv_to_rgb", "-0.394642334"), ("rgb_to_yiq", "0.299"),
    ("yiq_to_rgb", "0.95598634")])
def test_color_maps_refuse_integer_images_at_the_kernels_first_float(fn, first):
    with pytest.raises(TypeError) as e:
        getattr(tf.image, fn)(np.zeros([2, 2, 3], np.uint8))
    assert str(e.value) == f"Expected uint8, got {first} of type 'float' instead."


def test_color_maps_of_other_channel_counts_fail_in_the_matmul():
    with pytest.raises(ValueError) as e:
        tf.image.rgb_to_yuv(np.zeros([2, 2, 4], np.float32))
    assert str(e.value).startswith(
        "Dimensions must be equal, but are 4 and 3 for 'Tensordot/MatMul' (op: 'MatMul') with "
        "input shapes: [4,4], [3,3].")


def _png_rgb():
    rng = np.random.RandomState(3)
    return _run(tf.image.encode_png(rng.randint(0, 256, [7, 9, 3]).astype(np.uint8)))


@pytest.mark.parametrize("dtype", [tf.uint8, tf.uint16])
def test_png_damage_is_a_header_or_data_error_as_libpng_finds_it(dtype):
    rng = np.random.RandomState(3)
    img = rng.randint(0, 256, [7, 9, 3]).astype(np.uint8)
    if dtype == tf.uint16:
        img = img.astype(np.uint16) * 257
    png = _run(tf.image.encode_png(img))
    n = len(png)
    cases = {10: "header", 33: "header", 40: "header", 60: "data", n - 20: "data",
             n - 5: "data"}
    p = tf.placeholder(tf.string, [])
    decode = tf.image.decode_png(p, dtype=dtype)
    with tf.Session() as s:
        for cut, kind in cases.items():
            with pytest.raises(errors.InvalidArgumentError) as e:
                s.run(decode, {p: png[:cut]})
            want = (f"Invalid PNG header, data size {cut}" if kind == "header"
                    else f"Invalid PNG data, size {cut}")
            assert str(e.value).split("\n")[0] == want
        # a critical chunk's CRC: IHDR's before the image data, IDAT's in it
        for at, want in [(20, f"Invalid PNG header, data size {n}"),
                         (45, f"Invalid PNG data, size {n}")]:
            bad = bytearray(png)
            bad[at] ^= 0xFF
            with pytest.raises(errors.InvalidArgumentError) as e:
                s.run(decode, {p: bytes(bad)})
            assert str(e.value).split("\n")[0] == want
        np.testing.assert_array_equal(s.run(decode, {p: png}), img)


def test_png_ancillary_chunk_crc_only_warns():
    png = _png_rgb()
    # a tEXt chunk with a wrong CRC after IHDR: libpng skips it
    body = b"tEXtkey\x00value"
    chunk = struct.pack(">I", len(body) - 4) + body + struct.pack(
        ">I", (zlib.crc32(body) + 1) & 0xFFFFFFFF)
    damaged = png[:33] + chunk + png[33:]
    np.testing.assert_array_equal(_run(tf.image.decode_png(damaged)),
                                  _run(tf.image.decode_png(png)))


def test_decoders_name_an_empty_file():
    for decode in (tf.image.decode_png, tf.image.decode_jpeg, tf.image.decode_gif):
        with pytest.raises(errors.InvalidArgumentError,
                           match=r"^Expected image \(JPEG, PNG, or GIF\), got empty file"):
            _run(decode(b""))


# ------------------------------------------------------------------------------------------
# sparse
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("indices, values, shape, bits", [
    ([[0, 0], [0, 2], [1, 1], [2, 3]], [1.0, 2.0, 3.0, 4.0], [3, 4],
     [1049211569, 1060841128, 1065353216, 1065353216]),
    # unsorted: TF sorts its copy and writes the values out in index order
    ([[1, 1], [0, 2], [0, 0], [2, 3]], [3.0, 2.0, 1.0, 4.0], [3, 4],
     [1049211569, 1060841128, 1065353216, 1065353216]),
    ([[0, 2], [0, 0], [0, 1]], [2.0, 1.0, 0.5], [1, 4], [1047315957, 1041210425, 1059121012]),
    ([[0, 0], [0, 1], [0, 2], [0, 3]], [0.1, 0.7, -2.0, 3.3], [1, 4],
     [1024790989, 1032310701, 999426370, 1063555290]),
    ([[0, 0, 1], [0, 0, 2], [1, 0, 0]], [0.1, 0.7, -2.0], [2, 1, 4],
     [1052077194, 1059408315, 1065353216]),
])
def test_sparse_softmax_float32_bits_are_tfs(indices, values, shape, bits):
    out = _run(tf.sparse_softmax(tf.SparseTensor(indices, values, shape)))
    assert out.values.view(np.uint32).tolist() == bits


def test_sparse_softmax_float32_long_groups_are_tfs():
    # groups longer than a packet: Eigen's exp on whole packets, expf on the tail, the sum
    # in lane order (sums of the output bits measured in TF 1.15)
    rng = np.random.RandomState(7)
    got = []
    for rows, cols, density in [(5, 30, 0.7), (3, 200, 0.9), (50, 17, 0.5)]:
        m = rng.uniform(-5, 5, [rows, cols]).astype(np.float32) * (
            rng.uniform(size=[rows, cols]) < density)
        out = _run(tf.sparse_softmax(tf.SparseTensor(np.argwhere(m != 0), m[m != 0],
                                                     [rows, cols])))
        got.append(int(out.values.view(np.uint32).astype(np.int64).sum()))
    assert got == [105545096845, 528171695940, 429725118531]
    out = _run(tf.sparse_softmax(tf.SparseTensor([[0, 0], [0, 1], [1, 0]],
                                                 [-np.inf, 1.0, np.inf], [2, 2])))
    assert out.values[:2].tolist() == [0.0, 1.0] and np.isnan(out.values[2])


@pytest.mark.parametrize("kwargs, message", [
    ({"area_range": (0.0, 1.5)}, "Area range must be non-negative: [0, 1.5]"),
    ({"aspect_ratio_range": (0.0, 1.3)}, "Aspect ratio range must be non-negative: [0, 1.3]"),
    ({"area_range": (0.1, 1.1)}, "Area range must be less then or equal to 1.0: [0.1, 1.1]"),
    ({"area_range": (-0.3333333, 0.5)}, "Area range must be non-negative: [-0.333333313, 0.5]"),
])
def test_sample_distorted_bounding_box_prints_its_ranges_as_tf(kwargs, message):
    # the float attrs in C's shortest round-trip form, not Python's
    with pytest.raises(errors.InvalidArgumentError) as e:
        _run(tf.image.sample_distorted_bounding_box(
            [100, 80, 3], [[[0.1, 0.2, 0.5, 0.6]]], seed=1, **kwargs))
    assert str(e.value).split("\n")[0] == message


def test_unicode_encode_of_dense_tensors_goes_through_tfs_ragged_steps():
    g = tf.Graph()
    with g.as_default():
        vec = tf.strings.unicode_encode(tf.constant([72, 105]), "UTF-8")
        mat = tf.strings.unicode_encode(tf.constant([[65, 66], [67, 68]]), "UTF-8")
        cube = tf.strings.unicode_encode(tf.fill([2, 2, 3], 65), "UTF-8")
        # (names as TF 1.15 gives them)
        assert vec.name == "UnicodeEncode/Reshape:0"
        assert vec.op.inputs[0].op.name == "UnicodeEncode/UnicodeEncode/UnicodeEncode"
        assert mat.name == "UnicodeEncode_1/UnicodeEncode/UnicodeEncode:0"
        assert cube.name == "UnicodeEncode_2/Reshape_1:0"
        assert cube.op.inputs[0].op.name == (
            "UnicodeEncode_2/UnicodeEncode/UnicodeEncode/UnicodeEncode")
        assert mat.get_shape().as_list() == [2] and cube.get_shape().as_list() == [2, 2]
        with tf.Session() as s:
            out = s.run([vec, mat, cube])
    assert out[0] == b"Hi" and out[1].tolist() == [b"AB", b"CD"]
    assert out[2].tolist() == [[b"AAA", b"AAA"], [b"AAA", b"AAA"]]


@pytest.mark.parametrize("pattern, texts, matches, replaced", [
    # RE2 matches code points: a byte of invalid UTF-8 is taken by no class, "." or negated
    # class, so searches step over it and full matches fail (measured in TF 1.15)
    (".", [b"a\xffc", b"\xff", b"\xe6\x97\xa5"], [False, False, True],
     [b"<a>\xff<c>", b"\xff", b"<\xe6\x97\xa5>"]),
    ("[^a]", [b"a\xffc", b"ab\xe6\x97"], [False, False], [b"a\xff<c>", b"a<b>\xe6\x97"]),
    (r"\W", [b"a\xffc", b"\xff"], [False, False], [b"a\xffc", b"\xff"]),
    (r"\PL", [b"a\xc0\x80c"], [False], [b"a\xc0\x80c"]),
    ("a.*c", [b"a\xffc", b"abc"], [False, True], [b"a\xffc", b"<abc>"]),
    ("x*", [b"\xff"], [False], [b"<>\xff<>"]),
    ("[[:^alpha:]]", [b"\xe6\x97\xa5", b"a\xffc", b"1"], [True, False, True],
     [b"<\xe6\x97\xa5>", b"a\xffc", b"<1>"]),
])
def test_regex_ops_leave_invalid_utf8_alone_as_re2(pattern, texts, matches, replaced):
    x = tf.constant(texts)
    full, sub = _run([tf.strings.regex_full_match(x, pattern),
                      tf.strings.regex_replace(x, pattern, r"<\0>")])
    assert full.tolist() == matches
    assert sub.tolist() == replaced


def _sparse_case():
    rng = np.random.RandomState(8)
    m = rng.normal(size=[6, 40]).astype(np.float32) * (rng.uniform(size=[6, 40]) < 0.7)
    sp = tf.SparseTensor(np.argwhere(m != 0), m[m != 0], [6, 40])
    d = rng.normal(size=[30, 3]).astype(np.float32)
    return sp, d


def test_sparse_reduce_sum_float32_adds_each_group_as_eigen():
    # each group's values in index order, summed in Eigen's lanes (bits measured in TF 1.15)
    sp, _ = _sparse_case()
    total, cols, rows, sparse_rows = _run([
        tf.sparse_reduce_sum(sp), tf.sparse_reduce_sum(sp, 0), tf.sparse_reduce_sum(sp, 1),
        tf.sparse_reduce_sum_sparse(sp, 1)])
    assert np.atleast_1d(total).view(np.uint32).tolist() == [3208592830]
    assert int(cols.view(np.uint32).astype(np.int64).sum()) == 83368110725
    want = [1086309460, 1072812132, 1084564904, 3243907405, 1086406575, 3234222818]
    assert rows.view(np.uint32).tolist() == want
    assert sparse_rows.values.view(np.uint32).tolist() == want


def test_sparse_segment_reductions_add_rows_in_tfs_unrolled_order():
    # segments of 1, 2, 9, 10, 17 and 24 rows: the first count % 8 (8 or 9) rows in turn,
    # then sums of eight; means and sqrt-n scaled after the first part under 10 rows
    _, d = _sparse_case()
    segs = np.repeat(np.arange(6), [1, 2, 9, 10, 17, 24]).astype(np.int32)
    ind = (np.arange(segs.size) * 7 % 30).astype(np.int32)
    out = _run([f(d, ind, segs) for f in (tf.sparse_segment_sum, tf.sparse_segment_mean,
                                          tf.sparse_segment_sqrt_n)])
    got = [o.view(np.uint32).astype(np.int64).sum(axis=1).tolist() for o in out]
    assert got == [
        [5321200714, 7500840571, 7477404537, 5398441580, 7503644938, 5392807319],
        [5321200714, 7475674747, 7397233646, 5313642173, 7400759064, 5277823394],
        [5321200714, 7489020358, 7437459187, 5356181382, 7452185161, 5334974891]]


@pytest.mark.parametrize("method, antialias, down, up", [
    # sums of the output bits (downscale to 4x13, upscale to 11x20 of a 7x9 image)
    ("bilinear", True, 116765244319, 493602848777),
    ("bicubic", True, 116749256861, 504027035025),
    ("lanczos3", False, 118747821614, 516852286328),
    ("lanczos3", True, 116735543272, 516852286328),
    ("lanczos5", False, 120901578190, 518916258632),
    ("lanczos5", True, 116727020760, 518916258632),
    ("gaussian", False, 116754800826, 493856786582),
    ("gaussian", True, 116782438268, 493856786582),
    ("mitchellcubic", True, 116768701281, 497901462864),
])
def test_scale_and_translate_is_tfs_float_kernel(method, antialias, down, up):
    # spans in float (kernels in float, sinf for Lanczos), rows then columns, each output
    # a float sum of rounded products
    rng = np.random.RandomState(9)
    img = tf.constant(rng.uniform(0, 255, [1, 7, 9, 2]).astype(np.float32))
    v2 = tf.compat.v2.image
    small, big = _run([v2.resize(img, [4, 13], method=method, antialias=antialias),
                       v2.resize(img, [11, 20], method=method, antialias=antialias)])
    assert int(small.view(np.uint32).astype(np.int64).sum()) == down
    assert int(big.view(np.uint32).astype(np.int64).sum()) == up


def test_compat_v2_image_has_resize_with_pad():
    rng = np.random.RandomState(9)
    img = tf.constant(rng.uniform(0, 255, [1, 7, 9, 2]).astype(np.float32))
    out = tf.compat.v2.image.resize_with_pad(img, 10, 10)
    assert out.name == "resize_image_with_pad/pad_to_bounding_box/Pad:0"
    assert int(_run(out).view(np.uint32).astype(np.int64).sum()) == 156945768541


def test_scale_and_translate_gradient_is_tfs():
    # the forward spans turned into spans over the gradient's pixels, gathered in float
    rng = np.random.RandomState(9)
    img = tf.constant(rng.uniform(0, 255, [1, 7, 9, 2]).astype(np.float32))
    wr = np.random.RandomState(10)
    outs = []
    for method, antialias in [("lanczos3", True), ("gaussian", False),
                              ("mitchellcubic", True), ("bilinear", True)]:
        for size in [[4, 13], [11, 20]]:
            w = tf.constant(wr.uniform(-1, 1, [1] + size + [2]).astype(np.float32))
            out = tf.compat.v2.image.resize(img, size, method=method, antialias=antialias)
            outs.append(tf.gradients(tf.reduce_sum(out * w), img)[0])
    got = [int(r.view(np.uint32).astype(np.int64).sum()) for r in _run(outs)]
    assert got == [269148882611, 270680121553, 288244020721, 263691300709, 275419270692,
                   251153465978, 288584171244, 261663588539]


def test_resize_gradients_add_each_share_in_tfs_order():
    # ResizeBicubicGrad: each gradient pixel's 16 shares computed in T and added in turn;
    # ResizeNearestNeighborGrad: gradient pixels added row by row in T (sums of the bits,
    # measured in TF 1.15)
    rng = np.random.RandomState(11)
    outs = []
    for dt in [tf.float32, tf.float64]:
        img = tf.constant(rng.uniform(0, 255, [2, 7, 9, 2]), dt)
        for fn, kw in [(tf.image.resize_bicubic, {}),
                       (tf.image.resize_bicubic, {"half_pixel_centers": True}),
                       (tf.image.resize_bicubic, {"align_corners": True}),
                       (tf.image.resize_nearest_neighbor, {}),
                       (tf.image.resize_nearest_neighbor, {"half_pixel_centers": True})]:
            for size in [[4, 13], [30, 31]]:
                w = tf.constant(rng.uniform(-1, 1, [2] + size + [2]), tf.float32)
                out = tf.cast(fn(img, size, **kw), tf.float32)
                outs.append(tf.gradients(tf.reduce_sum(out * w), img)[0])
    got = [int(r.view(np.uint32 if r.dtype == np.float32 else np.uint64).astype(np.int64).sum()
               % (1 << 62)) for r in _run(outs)]
    assert got == [
        540564152586, 526272425562, 537913764464, 579749964863, 312882694590, 560467159293,
        300103826762, 532854359021, 304271494282, 552136781804, 805600102974955206,
        3491104231352807793, 1016009393064270297, 3289653085877434265, 2873469551111954596,
        3238996096809015046, 3047539220290732032, 3696162607583985664, 3087120253537222656,
        3809378543179137024]
    half = tf.constant(np.ones([1, 3, 3, 1]), tf.float16)
    assert tf.gradients(tf.reduce_sum(tf.image.resize_bicubic(half, [5, 5])), half) == [None]


def test_string_format_summarize_zero_of_a_scalar_is_an_ellipsis():
    out = _run([tf.strings.format("<{}>", [tf.constant(3.0)], summarize=0),
                tf.strings.format("<{}>", [tf.constant(2 ** 40, tf.int64)], summarize=0),
                tf.strings.format("<{}>", [tf.constant([1.0, 2.0])], summarize=0),
                tf.strings.format("<{}>", [tf.constant(3.0)], summarize=1)])
    assert out == [b"<...>", b"<...>", b"<[ ...]>", b"<3>"]  # (TF 1.15's words)


def test_ragged_string_ops_dispatch_after_the_op_takes_its_name():
    # TF's op converts its input in its own scope, so a ragged input fails there after the
    # scope took the op's name, and the element-wise dispatch makes the "_1" op
    g = tf.Graph()
    with g.as_default():
        rt = tf.ragged.constant([["a", "Bc"], ["d"]])
        ri = tf.ragged.constant([[65, 0x3b1], [0x65e5]])
        names = [tf.strings.to_hash_bucket_fast(rt, 10).flat_values.name,
                 tf.strings.to_hash_bucket_strong(rt, 10, [1, 2]).flat_values.name,
                 tf.strings.regex_full_match(rt, "a").flat_values.name,
                 tf.strings.unicode_script(ri).flat_values.name]
        assert names == ["StringToHashBucketFast_1:0", "StringToHashBucketStrong_1:0",
                         "StaticRegexFullMatch_1:0", "UnicodeScript_1:0"]
        with tf.Session() as s:
            assert s.run(tf.strings.unicode_script(ri)).flat_values.tolist() == [25, 14, 17]
        # the legacy hash and the transcoder take no ragged tensors (TF 1.15's words)
        with pytest.raises(TypeError, match="Expected string passed to parameter "
                                            "'string_tensor' of op 'StringToHashBucket'"):
            tf.strings.to_hash_bucket(rt, 10)
        with pytest.raises(TypeError, match="Expected string passed to parameter 'input' of "
                                            "op 'UnicodeTranscode'"):
            tf.strings.unicode_transcode(rt, "UTF-8", "UTF-8")
        # a Python list is converted in the op's scope
        t = tf.strings.to_hash_bucket_fast(["x"], 5)
        assert t.op.inputs[0].name == "StringToHashBucketFast_2/input:0"
        sp = tf.strings.unicode_split(tf.constant([["ab"]]), "UTF-8")
        assert sp.flat_values.name == (
            "UnicodeSplit/UnicodeEncode/UnicodeEncode/UnicodeEncode/UnicodeEncode:0")
