"""Element-wise, reduction and array ops at the edges of their dtypes and shapes, against
TF 1.15 (a differential sweep of ~7,000 calls; each expected value below was measured in
TF 1.15 with the same graph, inputs fed through placeholders)."""

import numpy as np
import pytest

import tideflow as tf


def _run(t, feed=None):
    with tf.Session() as s:
        return s.run(t, feed)


def _fed(value, dtype=None):
    value = np.asarray(value, dtype)
    return tf.placeholder_with_default(value, value.shape)


def test_cast_complex_to_bool_tests_the_real_part():
    with tf.Graph().as_default():
        x = _fed([0, 1, -1, 1j, 1 + 1j, complex(0, np.nan)], np.complex64)
        got = _run([tf.cast(x, tf.bool), tf.cast(tf.cast(x, tf.complex128), tf.bool)])
    want = [False, True, True, False, True, False]  # TF 1.15: 1j and nan*1j are False
    assert got[0].tolist() == want and got[1].tolist() == want


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_cumsum_never_gives_negative_zero(dtype):
    # TF's scan adds from 0: a leading -0.0 comes out +0.0 (NumPy copies it)
    with tf.Graph().as_default():
        x = _fed([[-0.0, -0.0], [-0.0, 1.0]], dtype)
        fwd, rev = _run([tf.cumsum(x, axis=0), tf.cumsum(x, axis=1, reverse=True)])
    assert not np.signbit(fwd).any() and not np.signbit(rev).any()
    assert fwd.tolist() == [[0.0, 0.0], [0.0, 1.0]]
    assert rev.tolist() == [[0.0, 0.0], [1.0, 1.0]]


def test_cumsum_bfloat16_and_exclusive_reverse():
    with tf.Graph().as_default():
        x = _fed([[-0.0, -0.0], [-0.0, 1.0]], np.float32)
        b = tf.cast(tf.cumsum(tf.cast(x, tf.bfloat16), axis=0), tf.float32)
        e = tf.cumsum(x, axis=0, reverse=True, exclusive=True)
        b, e = _run([tf.bitcast(b, tf.int32), tf.bitcast(e, tf.int32)])
    assert b.tolist() == [[0, 0], [0, 1065353216]]
    assert e.tolist() == [[0, 1065353216], [0, 0]]  # (TF 1.15's bits)


def test_reduce_mean_over_no_axes_is_the_input():
    with tf.Graph().as_default():
        x = _fed([[-0.0, -0.0], [-0.0, 1.0]], np.float32)
        got = _run(tf.bitcast(tf.reduce_mean(x, axis=[]), tf.int32))
    assert got.tolist() == [[-2147483648, -2147483648], [-2147483648, 1065353216]]


def test_reduce_mean_of_nothing_unsigned_wide_is_all_ones():
    # TF 1.15 runs the 32/64-bit unsigned Mean on its XLA_CPU device: 0 / 0 is all bits set;
    # the other integer types give 0
    with tf.Graph().as_default():
        u = tf.placeholder_with_default(np.zeros((0, 2), np.uint32), [None, 2])
        got = _run([tf.reduce_mean(u, axis=0), tf.reduce_mean(tf.cast(u, tf.uint64)),
                    tf.reduce_mean(tf.cast(u, tf.int32), axis=0),
                    tf.reduce_mean(tf.cast(u, tf.uint16), axis=0)])
    assert got[0].tolist() == [4294967295, 4294967295] and got[0].dtype == np.uint32
    assert int(got[1]) == 18446744073709551615
    assert got[2].tolist() == [0, 0] and got[3].tolist() == [0, 0]


def test_bfloat16_sum_and_prod_over_an_empty_axis():
    with tf.Graph().as_default():
        b = tf.cast(tf.placeholder_with_default(np.zeros((0, 3), np.float32), [None, 3]),
                    tf.bfloat16)
        outs = [tf.reduce_sum(b, axis=0), tf.reduce_prod(b, axis=1), tf.reduce_prod(b),
                tf.reduce_logsumexp(b, axis=0)]
        got = _run([tf.cast(o, tf.float32) for o in outs])
    assert got[0].tolist() == [0.0, 0.0, 0.0]
    assert got[1].shape == (0,)
    assert float(got[2]) == 1.0
    assert got[3].tolist() == [-np.inf] * 3


def test_one_hot_axis_past_the_rank_fails_when_run():
    with tf.Graph().as_default():
        i = _fed([[0, 1], [2, 0]], np.int32)
        # TF 1.15's shape function places the depth at the axis modulo the output rank
        assert tf.one_hot(i, 3, axis=3).shape.as_list() == [3, 2, 2]
        assert tf.one_hot(i, 3, axis=7).shape.as_list() == [2, 3, 2]
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Expected axis to be -1 or between \[0, 3\).  But received: 3"):
            _run(tf.one_hot(i, 3, axis=3))
        assert tf.one_hot(_fed([2], np.int32), 3, axis=3).shape.as_list() == [1, 3]


def test_transpose_refuses_a_negative_perm_entry():
    with tf.Graph().as_default():
        t = _fed(np.zeros((2, 3, 4), np.float32))
        y = tf.transpose(t, [-1, 0, 1])
        assert y.shape.as_list() == [4, 2, 3]  # (the shape function wraps it, as TF's)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"-1 is out of range \[0 \.\. 3\)"):
            _run(y)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"-3 is out of range \[0 \.\. 3\)"):
            _run(tf.transpose(t, [2, 0, -3]))
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"-1 is out of range \[0 \.\. 2\)"):
            _run(tf.transpose(tf.zeros([2, 3]), [-1, 0]))  # (a folded constant alike)


def test_reshape_to_a_zero_dimension_with_minus_one_fails_when_built():
    with tf.Graph().as_default():
        t = tf.placeholder(tf.float32, [2, 3, 4])
        with pytest.raises(ValueError, match=(
                r"^Cannot reshape a tensor with 24 elements to shape \[0,\?\] \(0 elements\) "
                r"for 'Reshape' \(op: 'Reshape'\) with input shapes: \[2,3,4\], \[2\] and with "
                r"input tensors computed as partial shapes: input\[1\] = \[0,\?\]\.$")):
            tf.reshape(t, [0, -1])
        with pytest.raises(ValueError, match=r"to shape \[\?,0,2\] \(0 elements\)"):
            tf.reshape(t, [-1, 0, 2])
        # an empty input may still take it
        e = tf.reshape(tf.placeholder(tf.float32, [0, 4]), [0, -1])
        assert e.shape.as_list() == [0, None]


def test_segment_mean_takes_complex():
    with tf.Graph().as_default():
        c = _fed([1 + 2j, 3 + 4j, 5j], np.complex64)
        a, b = _run([tf.segment_mean(c, [0, 0, 2]),
                     tf.segment_mean(tf.cast(c, tf.complex128), [0, 1, 1])])
    assert a.dtype == np.complex64 and a.tolist() == [2 + 3j, 0j, 5j]
    assert b.dtype == np.complex128 and b.tolist() == [1 + 2j, 1.5 + 4.5j]


@pytest.mark.parametrize("fn,arg", [
    (lambda img: tf.image.resize_bicubic(img, [3, 3]), "images"),
    (lambda img: tf.image.resize_area(img, [3, 3]), "images"),
    (lambda img: tf.image.resize_nearest_neighbor(img, [3, 3]), "images"),
])
def test_resize_ops_without_bfloat16(fn, arg):
    with tf.Graph().as_default():
        img = tf.cast(tf.zeros([1, 2, 2, 1]), tf.bfloat16)
        with pytest.raises(TypeError, match=(
                f"Value passed to parameter '{arg}' has DataType bfloat16 not in list of "
                "allowed values: int8, uint8, int16, uint16, int32, int64, float16, float32, "
                "float64$")):
            fn(img)
        # ResizeBilinear takes it
        assert _run(tf.cast(tf.image.resize_bilinear(img, [3, 3]), tf.float32)).shape == (
            1, 3, 3, 1)


# an op whose op def admits a dtype TF 1.15 has no CPU (nor XLA_CPU) kernel for fails when the
# step is set up, with TF's words (every case measured in TF 1.15)
_NO_KERNEL = [
    ("Greater", "[T=DT_UINT16]", lambda: tf.greater(_fed([1, 2], np.uint16), 1)),
    ("Cumsum", "T=DT_UINT32", lambda: tf.cumsum(_fed([1, 2], np.uint32))),
    ("Unique", "T=DT_COMPLEX64", lambda: tf.unique(_fed([1, 2], np.complex64))[0]),
    ("SparseSegmentSum", "Tidx=DT_INT64", lambda: tf.sparse.segment_sum(
        _fed(np.ones((3, 2), np.float32)), tf.constant([0, 1], tf.int64), [0, 0])),
    ("TopKV2", "T=DT_UINT64", lambda: tf.nn.top_k(_fed([1, 2], np.uint64), 1)[0]),
    ("MatrixDiag", "[T=DT_STRING]", lambda: tf.matrix_diag(_fed([b"a", b"b"], object))),
    ("SegmentMax", "T=DT_UINT32", lambda: tf.segment_max(_fed([1, 2], np.uint32), [0, 0])),
]


@pytest.mark.parametrize("op_type,attr,build", _NO_KERNEL, ids=[c[0] for c in _NO_KERNEL])
def test_no_cpu_kernel_for_the_dtype(op_type, attr, build):
    with tf.Graph().as_default():
        y = build()
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            _run(y)
    first = str(e.value).split("\n")[0]
    assert first.startswith(f"No OpKernel was registered to support Op '{op_type}' used by "
                            f"node {y.op.name} (defined at ")
    assert attr in first and "\nRegistered devices: [CPU, XLA_CPU]\nRegistered kernels:\n" in str(
        e.value)


def test_kernels_of_other_dtypes_run():
    # the same ops with dtypes TF 1.15 runs (uint32 comparisons on its XLA_CPU device)
    with tf.Graph().as_default():
        got = _run([tf.greater(_fed([1, 2], np.uint32), 1), tf.cumsum(_fed([1, 2], np.int8)),
                    tf.unique(_fed([3, 3, 1], np.int8))[0],
                    tf.sparse.segment_sum(_fed(np.ones((3, 2), np.float32)), [0, 1], [0, 0]),
                    tf.nn.top_k(_fed([1, 5, 2], np.uint32), 1)[0]])
    assert got[0].tolist() == [False, True] and got[1].tolist() == [1, 3]
    assert got[2].tolist() == [3, 1] and got[3].tolist() == [[2.0, 2.0]]
    assert got[4].tolist() == [5]


def test_no_kernel_fails_before_any_op_of_the_step_runs():
    with tf.Graph().as_default():
        v = tf.Variable(0)
        inc = tf.assign_add(v, 1)
        bad = tf.greater(_fed([1, 2], np.uint16), 1)
        with tf.Session() as s:
            s.run(v.initializer)
            with pytest.raises(tf.errors.InvalidArgumentError, match="No OpKernel"):
                s.run([inc, bad])
            assert s.run(v) == 0


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32, np.uint64])
def test_tile_has_no_wide_unsigned_case(dtype):
    with tf.Graph().as_default():
        x = _fed(np.ones((2, 3), dtype))
        with pytest.raises(tf.errors.UnimplementedError, match=(
                f"^TileOp : The input data type is not supported, DataType : "
                f"{np.dtype(dtype).name}, Dimension : 2\n")):
            _run(tf.tile(x, [2, 1]))
        with pytest.raises(tf.errors.UnimplementedError, match="Dimension : 1"):
            _run(tf.tile(_fed([7], dtype), [3]))
        # unchanged, or empty, it still hands on
        same, empty = _run([tf.tile(x, [1, 1]), tf.tile(x, [0, 1])])
        assert same.shape == (2, 3) and empty.shape == (0, 3)


_C = np.array([[0, 1 + 2j], [3.7 - 2.2j, -1j]], np.complex64)


def test_square_of_a_complex_difference_is_fused_as_tf_does():
    # TF 1.15's arithmetic optimizer runs square(x - y) as SquaredDifference(x, y) when the
    # Sub has no other reader and is not fetched; its complex kernel is conj(d) * d
    with tf.Graph().as_default():
        x = tf.placeholder(tf.complex64, _C.shape)
        y = tf.Variable(_C[::-1])
        d = x - y
        sq = tf.square(d)
        d2 = x - y
        sq2, twice = tf.square(d2), d2 * 2
        with tf.Session() as s:
            s.run(y.initializer)
            feed = {x: _C}
            fused = s.run(sq, feed)
            plain, _ = s.run([sq, d], feed)  # the Sub fetched: no fusion
            other = s.run([sq2, twice], feed)[0]  # the Sub read twice: no fusion
            var = s.run(tf.math.reduce_variance(x, axis=0), feed)
            std = s.run(tf.math.reduce_std(tf.cast(x, tf.complex128)), feed)
    assert fused.tolist() == [[np.complex64(18.53) + 0j, 10 + 0j]] * 2
    assert plain.tolist() == other.tolist() == [
        [np.complex64(8.85) - np.complex64(16.28) * 1j, -8 + 6j]] * 2
    assert var.tolist() == [np.complex64(4.6325) + 0j, 2.5 + 0j]
    assert std == 2.1591375837357427 + 0j


def test_complex_squared_difference_has_an_exact_zero_imaginary_part():
    with tf.Graph().as_default():
        a = _fed([[0.5 + 0.25j, 3.7 - 2.2j]], np.complex64)
        b = _fed([[-2.5 + 0.5j], [1j]], np.complex64)
        got = _run(tf.squared_difference(a, b))
    assert (got.imag == 0).all() and not np.signbit(got.imag).any()


def test_unique_of_half_tells_zeros_apart_by_their_bits():
    # TF hashes a half by its bits: -0.0 and 0.0 are two values there (not in float32)
    with tf.Graph().as_default():
        outs = []
        for dtype in (np.float16, np.float32):
            x = _fed([0.0, -0.0, 0.0, 1.0, np.nan, np.nan, -0.0], dtype)
            u, c = tf.unique(x), tf.unique_with_counts(x)
            outs.append([u.y, u.idx, c.y, c.idx, c.count])
        (hy, hi, hcy, hci, hc), (fy, fi, fcy, fci, fc) = _run(outs)
    assert np.signbit(hy).tolist() == [False, True, False, False, False]
    assert hi.tolist() == hci.tolist() == [0, 1, 0, 2, 3, 4, 1]
    assert hc.tolist() == [2, 2, 1, 1, 1] and np.signbit(hcy).tolist() == np.signbit(hy).tolist()
    assert fi.tolist() == fci.tolist() == [0, 0, 0, 1, 2, 3, 0] and fc.tolist() == [4, 1, 1, 1]
    assert fy.size == fcy.size == 4


def test_a_placeholder_with_default_is_not_folded():
    # TF's constant folding leaves a PlaceholderWithDefault alone (it may be fed), so the
    # arithmetic optimizer still sees square(x - y) over it (measured in TF 1.15)
    with tf.Graph().as_default():
        x, y = _fed(_C), _fed(_C[::-1])
        got = _run([tf.square(x - y), tf.math.reduce_variance(x, axis=0)])
    assert got[0].tolist() == [[np.complex64(18.53) + 0j, 10 + 0j]] * 2
    assert got[1].tolist() == [np.complex64(4.6325) + 0j, 2.5 + 0j]


def test_square_of_a_bfloat16_difference_finds_no_kernel():
    # the fused SquaredDifference has no bfloat16 CPU kernel in TF 1.15: the step fails to start
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 3])
        b = tf.cast(x, tf.bfloat16)
        feed = {x: np.full((2, 3), 3.0, np.float32)}
        for y, sub in ((tf.math.reduce_variance(b), "reduce_variance/sub"),
                       (tf.square(b - 1.0), "sub")):
            with pytest.raises(tf.errors.NotFoundError, match=(
                    f"(?s)^No registered 'SquaredDifference' OpKernel for 'CPU' devices compatible "
                    f"with node node {sub} \\(defined at .*\\(OpKernel was found, but attributes "
                    "didn't match\\) Requested Attributes: T=DT_BFLOAT16")):
                _run(y, feed)
        d = b - 1.0  # fetched, the Sub is not fused
        sq, _ = _run([tf.square(d), d], feed)
        assert sq.astype(np.float32).tolist() == [[4.0] * 3] * 2
        half = _run(tf.square(tf.cast(x, tf.float16) - 1.0), feed)
        assert half.tolist() == [[4.0] * 3] * 2


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32])
def test_nth_element_of_small_and_unsigned_integers(dtype):
    info = np.iinfo(dtype)
    a = np.array([[3, 1, 2, info.min, info.max], [5, 5, 0, 1, 2]], dtype)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.as_dtype(dtype), a.shape)
        outs = [tf.contrib.nn.nth_element(x, n, reverse=rv) for n in (0, 2, 4)
                for rv in (False, True)]
        assert outs[0].shape.as_list() == [2]
        got = _run(outs, {x: a})
    # measured in TF 1.15
    assert [g.tolist() for g in got] == [[info.min, 0], [info.max, 5], [2, 2], [2, 2],
                                         [info.max, 5], [info.min, 0]]
    assert all(g.dtype == dtype for g in got)
