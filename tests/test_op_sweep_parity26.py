"""Shape-function and kernel edges found by a second differential sweep of ~7,600 op calls
(element-wise math, casts, reductions, scans, segment, array and nn ops at the edges of their
dtypes and shapes) against TF 1.15; every expected value or message below was measured in
TF 1.15 with the same graph."""

import numpy as np
import pytest

import tideflow as tf


def _run(t, feed=None):
    with tf.Session() as s:
        return s.run(t, feed)


def _fed(value, dtype=None):
    value = np.asarray(value, dtype)
    return tf.placeholder_with_default(value, value.shape)


def _x():
    return _fed(np.zeros((2, 3, 4), np.float32))


# TF 1.15's ScatterNd shape function appends shape inference's Merge error to its own words,
# and names the target "output" for ScatterNd/TensorScatter*, "input" for a variable's
_SCATTER = [
    (lambda: tf.scatter_nd([[0], [1]], tf.ones([3, 3, 4]), [2, 3, 4]),
     ("The outer 1 dimensions of indices.shape=[2,1] must match the outer 1 dimensions of "
     "updates.shape=[3,3,4]: Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes "
     "are [2] and [3]. for 'ScatterNd' (op: 'ScatterNd') with input shapes: [2,1], [3,3,4], "
     "[3].")),
    (lambda: tf.scatter_nd([[[0], [1]]], tf.ones([1]), [2, 3, 4]),
     ("The outer 2 dimensions of indices.shape=[1,2,1] must match the outer 2 dimensions of "
     "updates.shape=[1]: Shapes must be equal rank, but are 2 and 1 for 'ScatterNd'")),
    (lambda: tf.scatter_nd([[0]], tf.ones([1, 3, 5]), [2, 3, 4]),
     ("The inner 2 dimensions of output.shape=[2,3,4] must match the inner 2 dimensions of "
     "updates.shape=[1,3,5]: Dimension 1 in both shapes must be equal, but are 4 and 5. Shapes "
     "are [3,4] and [3,5]. for 'ScatterNd'")),
    (lambda: tf.tensor_scatter_update(tf.zeros([4, 3]), [[0], [1]], tf.zeros([2, 2])),
     ("The inner 1 dimensions of output.shape=[4,3] must match the inner 1 dimensions of "
     "updates.shape=[2,2]: Dimension 0 in both shapes must be equal, but are 3 and 2. Shapes "
     "are [3] and [2]. for 'TensorScatterUpdate'")),
    (lambda: tf.tensor_scatter_add(tf.zeros([4, 3]), [[0], [1]], tf.zeros([2])),
     ("The inner 1 dimensions of output.shape=[4,3] must match the inner 0 dimensions of "
     "updates.shape=[2]: Shapes must be equal rank, but are 1 and 0 for 'TensorScatterAdd'")),
    (lambda: tf.scatter_nd_update(tf.Variable(tf.zeros([4, 3])), [[0], [1]], tf.zeros([2, 2])),
     ("The inner 1 dimensions of input.shape=[4,3] must match the inner 1 dimensions of "
     "updates.shape=[2,2]: Dimension 0 in both shapes must be equal, but are 3 and 2. Shapes "
     "are [3] and [2]. for 'ScatterNdUpdate'")),
    (lambda: tf.broadcast_to(_x(), [3, 4]),
     ("Shape must be at most rank 2 but is rank 3 for 'BroadcastTo' (op: 'BroadcastTo') with "
     "input shapes: [2,3,4], [2].")),
    # (the clash nearest the end is named: TF merges from the last dimension back)
    (lambda: tf.broadcast_to(_x(), [5, 3, 5]),
     ("Dimensions must be equal, but are 4 and 5 for 'BroadcastTo' (op: 'BroadcastTo') with "
     "input shapes: [2,3,4], [3] and with input tensors computed as partial shapes: input[1] "
     "= [5,3,5].")),
    (lambda: tf.slice(_x(), [0, 0, 0], [1, -3, 1]), "Invalid value in tensor used for shape: -3"),
    (lambda: tf.add_n([tf.constant([True])] * 2),
     ("Value passed to parameter 'inputs' has DataType bool not in list of allowed values: "
     "float32, float64, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, "
     "bfloat16, uint16, complex128, float16, uint32, uint64, variant")),
]


@pytest.mark.parametrize("build,message", _SCATTER, ids=range(len(_SCATTER)))
def test_static_shape_errors_in_tfs_words(build, message):
    with tf.Graph().as_default(), pytest.raises((ValueError, TypeError)) as e:
        build()
    assert str(e.value).startswith(message)


@pytest.mark.parametrize("axis,named", [(3, 3), (-4, -1), (-5, -2)])
def test_cumulative_logsumexp_axis_out_of_range_is_the_scan_ops(axis, named):
    with tf.Graph().as_default():
        y = tf.math.cumulative_logsumexp(_x(), axis=axis)
        with pytest.raises(tf.errors.InvalidArgumentError, match=(
                rf"^ScanOp: Expected scan axis in the range \[-3, 3\), but got {named}")):
            _run(y)


@pytest.mark.parametrize("dtype,xshape,yshape,signs", [
    # TF 1.15's Xdivy keeps x (-0.) where x is 0 on whole Eigen packets (8 floats or halves,
    # 4 doubles or complex64s, 2 complex128s) of the flat result, +0. on the tail
    (np.float32, [9], [9], "nnnnnnnnp"),
    (np.float32, [12], [1], "nnnnnnnnpppp"),
    (np.float16, [3, 1], [1, 3], "nnnnnnnnp"),
    (np.float64, [7], [7], "nnnnppp"),
    (np.float64, [3, 5], [1, 5], "nnnnnnnnnnnnppp"),
    (np.complex64, [7], [7], "nnnnppp"),
    (np.complex128, [3], [3], "nnp"),
])
def test_xdivy_of_negative_zero_keeps_it_on_packets(dtype, xshape, yshape, signs):
    with tf.Graph().as_default():
        x = _fed(np.full(xshape, -0.0, dtype))
        y = _fed(np.full(yshape, 2.0, dtype))
        got = _run(tf.math.xdivy(x, y))
    got = got.real if got.dtype.kind == "c" else got
    assert "".join("n" if s else "p" for s in np.signbit(got).reshape(-1)) == signs
    assert not got.any()


def test_xdivy_of_nonzero_x_and_zero_y_is_unchanged():
    with tf.Graph().as_default():
        x = _fed(np.array([-0.0, 0.0, 1.0, -1.0, 0.0, -0.0, 2.0, np.nan, -0.0], np.float32))
        y = _fed(np.array([0.0, 0.0, 0.0, 0.0, np.nan, 1.0, 4.0, 1.0, 0.0], np.float32))
        got = _run(tf.math.xdivy(x, y))
    # measured in TF 1.15 (the last element is on the scalar tail: +0.)
    assert np.signbit(got).tolist() == [True, False, False, True, False, True, False, False,
                                        False]
    assert got[2:4].tolist() == [np.inf, -np.inf] and got[6] == 0.5 and np.isnan(got[7])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_segment_sum_and_mean_copy_a_segment_of_one_row(dtype):
    # TF 1.15 copies a one-row segment (-0. stays), sums longer ones from +0.
    with tf.Graph().as_default():
        x = _fed(np.array([-0.0, 1.0, -0.0, -0.0, -0.0], dtype))
        ids = [0, 1, 2, 2, 4]
        got = _run([tf.math.segment_sum(x, ids), tf.math.segment_mean(x, ids),
                    tf.math.unsorted_segment_sum(x, ids, 5)])
    assert np.signbit(got[0]).tolist() == [True, False, False, False, True]
    assert np.signbit(got[1]).tolist() == [True, False, False, False, True]
    assert not np.signbit(got[2]).any()  # (the unsorted kernel adds to zeros)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_segment_reductions_copy_a_segment_of_one_row(dtype):
    data = np.array([[1j, complex(0, np.inf)], [0, 0], [complex(-0.0, np.inf), complex(1, -0.0)]],
                    dtype)
    with tf.Graph().as_default():
        x = _fed(data)
        ids = [0, 0, 2]
        got = _run([tf.math.segment_sum(x, ids), tf.math.segment_prod(x, ids),
                    tf.math.segment_mean(x, ids)])
    for g in got:  # measured in TF 1.15: the last row as it is
        last = g[2]
        assert np.signbit(last.real).tolist() == [True, False]
        assert last.imag.tolist() == [np.inf, 0.0] and np.signbit(last.imag).tolist() == [
            False, True]


def test_float32_sin_and_cos_of_huge_arguments():
    # Eigen reduces |x| past 25966 (sin) / 18838 (cos) by 2/pi's bits; measured in TF 1.15
    x = np.array([3.4028235e38, 1e30, 1e20, 1e10, 1e5, -3.4e38, 1.0, 2.0, 123456789.0],
                 np.float32)
    with tf.Graph().as_default():
        p = _fed(x)
        s, c = _run([tf.sin(p), tf.cos(p)])
    assert s.view(np.int32).tolist() == [
        -1090152013, -1085634128, 1059591529, -1090938268, 1024617813, 1048179042, 1062693540,
        1063831479, -1082794596]
    assert c.view(np.int32).tolist() == [
        1062887318, -1088646623, 1061230371, 1063224516, -1082141156, 1064845770, 1057640768,
        -1093332686, -1097948628]


def test_complex_euclidean_norm_stays_complex():
    # TF 1.15: sqrt(sum(x * conj(x))) in complex, so an infinite part brings a NaN partner
    x = np.array([[complex(np.inf, 0), 1 + 2j, complex(np.nan, 0)],
                  [3 - 4j, complex(0, -np.inf), 0j]], np.complex64)
    with tf.Graph().as_default():
        p = _fed(x)
        cols, rows = _run([tf.math.reduce_euclidean_norm(p, axis=0),
                           tf.math.reduce_euclidean_norm(p, axis=1)])
    assert np.isinf(cols.real[:2]).all() and np.isnan(cols.imag).all() and np.isnan(cols[2].real)
    assert np.isnan(rows[0].real) and np.isnan(rows.imag).all() and np.isinf(rows[1].real)
    with tf.Graph().as_default():
        finite = _run(tf.math.reduce_euclidean_norm(_fed(np.array([3 - 4j, 0j], np.complex64))))
    assert finite == 5 + 0j and not np.signbit(finite.imag)


def test_cumulative_logsumexp_steps_in_its_own_type():
    # TF 1.15's scan: max + log1p(exp(min - max)) per step in float32 (glibc's expf, log1pf),
    # or in half; the bits below measured there
    x = np.array([[0.0, -1.0, 3.5, 0.5], [1.0, -2.5, 88.5, 0.9999], [-100.0, 0.001, 2.0, -3.0]],
                 np.float32)
    with tf.Graph().as_default():
        p = _fed(x)
        f, h = _run([tf.math.cumulative_logsumexp(p, 1, reverse=True),
                     tf.math.cumulative_logsumexp(tf.cast(p, tf.float16), 1)])
    assert f.view(np.int32).tolist() == [
        [1080398941, 1080281222, 1080237070, 1056964608],
        [1118896128, 1118896128, 1118896128, 1065351538],
        [1074299514, 1074299514, 1073769990, -1069547520]]
    assert h.view(np.int16).tolist() == [[0, 13571, 17173, 17197], [15360, 15390, 21896, 21896],
                                         [-10688, 5145, 16449, 16452]]


def test_zero_fraction_of_strings_counts_empty_ones():
    with tf.Graph().as_default():
        got = _run(tf.math.zero_fraction(_fed(np.array([b"", b"a", b"ab"], object))))
    assert got == np.float32(1 / 3)  # TF 1.15: zeros([]) of a string is ""


def test_complex_sign_is_each_part_times_one_over_the_modulus():
    # Eigen's complex sign (measured in TF 1.15): 0 at 0, else re * (1 / hypot), im * (...)
    x = np.array([0j, complex(0, np.inf), complex(np.inf, 0), complex(1, np.nan), -2.5 + 1j,
                  3 - 4j, complex(-0.0, 0)], np.complex128)
    with tf.Graph().as_default():
        got = _run(tf.sign(_fed(x)))
    want = [(0.0, 0.0), (0.0, np.nan), (np.nan, 0.0), (np.nan, np.nan),
            (-0.9284766908852593, 0.3713906763541037), (0.6000000000000001, -0.8), (0.0, 0.0)]
    flat = np.array([(z.real, z.imag) for z in got]).reshape(-1)
    np.testing.assert_array_equal(flat, np.array(want).reshape(-1))  # (NaNs in place, bits)
    assert not np.signbit(got[-1].real)


_XLA_ONLY = [
    (tf.math.tan, np.int32, tf.errors.InvalidArgumentError, ("Invalid argument: Expected element "
     "type in shape to be floating or complex for cosine operation; got S32.")),
    (tf.math.asin, np.int64, tf.errors.InvalidArgumentError, ("Invalid argument: Invalid cast "
     "from floating point type to S64 in ConstantR0WithType.")),
    (tf.math.reciprocal, np.int32, tf.errors.InvalidArgumentError, ("Invalid argument: Invalid "
     "cast from floating point type to S32 in ConstantR0WithType.")),
    (tf.math.atan, np.complex64, tf.errors.UnimplementedError,
     "Unimplemented: binary complex op 'atan2'"),
    (tf.math.round, np.complex128, tf.errors.InvalidArgumentError, ("Invalid argument: Operands "
     "to RoundToEven must be real-valued floating-point, but got C128")),
]


@pytest.mark.parametrize("fn,dtype,error,words", _XLA_ONLY, ids=range(len(_XLA_ONLY)))
def test_xla_only_kernels_that_fail_to_compile(fn, dtype, error, words):
    # TF 1.15 places these on its XLA_CPU device (no CPU kernel) and the compilation fails:
    # the compile error and the Recv waiting on it, two root errors
    with tf.Graph().as_default():
        y = fn(_fed(np.array([1, 2], dtype)))
        with pytest.raises(error) as e:
            _run(y)
    message, trace = str(e.value).split("\n\nOriginal stack trace for ")
    lines = message.split("\n")
    assert lines[0] == "2 root error(s) found."
    assert lines[1] == f"  (0) {words}"
    assert lines[2].startswith(f"\t [[node {y.op.name} (defined at ")
    assert lines[-2:] == ["0 successful operations.", "0 derived errors ignored."]
    assert trace.startswith(f"'{y.op.name}':\n") and e.value.op is y.op


def test_complex_sigmoid_divides_as_libgcc():
    # Eigen's scalar 1 / (1 + exp(-x)) by libgcc's complex division: a real x gives +0. j
    x = np.array([0j, 1 + 0j, complex(-np.inf, 0), 1j, -3 + 0j, 2 - 1j], np.complex128)
    with tf.Graph().as_default():
        got = _run(tf.sigmoid(_fed(x)))
    assert [(float(z.real).hex(), float(z.imag).hex()) for z in got] == [  # TF 1.15's bits
        ("0x1.0000000000000p-1", "0x0.0p+0"), ("0x1.764d4f5d5a2bdp-1", "0x0.0p+0"),
        ("0x0.0p+0", "0x0.0p+0"), ("0x1.0000000000000p-1", "0x1.17b4f5bf3474ap-2"),
        ("0x1.848343c905445p-5", "0x0.0p+0"), ("0x1.d7cca2197224dp-1", "-0x1.908ad634952c2p-4")]


def test_complex_cumprod_multiplies_from_one_as_std_complex():
    # TF 1.15's scan: 1 * (0 + inf j) is nan + inf j (the plain products), and C99's recovery
    # where both parts come out NaN (nan + inf j times -0 + 1 j is -inf + nan j)
    x = np.array([complex(0, np.inf), complex(-0.0, 1), complex(1, -0.0), complex(np.inf, 0)],
                 np.complex128)
    with tf.Graph().as_default():
        p = _fed(x)
        fwd, back = _run([tf.math.cumprod(p), tf.math.cumprod(p, exclusive=True, reverse=True)])

    def parts(v):
        return np.array([(z.real, z.imag) for z in v]).reshape(-1)

    inf, nan = np.inf, np.nan
    np.testing.assert_array_equal(parts(fwd), [nan, inf, -inf, nan, -inf, nan, -inf, nan])
    np.testing.assert_array_equal(parts(back), [nan, inf, inf, nan, inf, nan, 1.0, 0.0])


def test_complex_mul_and_div_recover_infinities_on_the_scalar_tail():
    # 5 complex64s: a packet of 4 (plain products, Eigen's division) and a scalar tail, where
    # std::complex's multiply and divide (libgcc) recover from a both-NaN result (TF 1.15)
    x = np.array([complex(np.nan, np.inf)] * 5, np.complex64)
    with tf.Graph().as_default():
        p = _fed(x)
        got = _run([tf.square(p), tf.math.reciprocal(p), p * p, 1 / p])
    nan4 = [np.nan] * 8
    for g, tail in zip(got, [(-np.inf, np.nan), (0.0, -0.0), (-np.inf, np.nan), (0.0, -0.0)]):
        parts = np.array([(z.real, z.imag) for z in g]).reshape(-1)
        np.testing.assert_array_equal(parts, nan4 + list(tail))
        if tail[1] == 0:
            assert np.signbit(parts[-1]) == np.signbit(tail[1])
