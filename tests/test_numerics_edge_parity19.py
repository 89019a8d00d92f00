"""Numerical corners of single ops against TF 1.15 (signed zeros, NaN and -inf in pooling and
segment reductions, integer division on TF's XLA_CPU device, grappler skipping tiny graphs);
expected values are what TF 1.15 printed for the same programs."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _fed(fn, *values):
    """fn(*placeholders) run with ``values`` fed, so no constant folding is involved."""
    phs = [tf.placeholder(tf.as_dtype(np.asarray(v).dtype), np.shape(v)) for v in values]
    out = fn(*phs)
    with tf.Session() as s:
        return s.run(out, dict(zip(phs, values)))


def _signs(a):
    return "".join("-" if b else "+" for b in np.signbit(np.asarray(a, np.float64)).ravel())


def _same(got, want):
    np.testing.assert_array_equal(np.asarray(got, np.float64), np.asarray(want, np.float64))


NAN, INF = np.nan, np.inf


# ------------------------------------------------------------------------------------------
# grappler leaves a graph of fewer than 4 nodes alone
# ------------------------------------------------------------------------------------------


def test_division_by_a_constant_in_a_three_node_graph_divides():
    # TF 1.15: x / 3. alone (Placeholder, Const, RealDiv) is not rewritten to x * (1 / 3.);
    # one more op anywhere in the graph and it is
    v = np.arange(1, 200, dtype=np.float32) * np.float32(0.37)
    x = tf.placeholder(tf.float32)
    y = x / 3.0
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(y, {x: v}), v / np.float32(3))
    tf.constant(1.0)
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(y, {x: v}), v * (np.float32(1) / np.float32(3)))


def test_log_of_softmax_alone_underflows_as_in_tf():
    # TF 1.15, a fresh graph holding only x, Softmax and Log: [[-5.0067153, -inf, -0.00671532]]
    x = tf.placeholder(tf.float32, [1, 3])
    lg = tf.log(tf.nn.softmax(x))
    with tf.Session() as s:
        got = s.run(lg, {x: [[0.0, -200.0, 5.0]]})
    assert got[0, 1] == -INF
    np.testing.assert_allclose(got[0, [0, 2]], [-5.0067153, -0.00671532], rtol=1e-6)


# ------------------------------------------------------------------------------------------
# signed zeros
# ------------------------------------------------------------------------------------------


def test_neg_gives_positive_zeros_over_whole_packets():
    # TF 1.15 negates whole 32-byte packets as 0 - x; the tail element by element as -x
    v = np.zeros((3, 5), np.float32)
    v[:, ::2] = -0.0
    assert _signs(_fed(tf.negative, v)) == "++++++++-++-+-+"
    v = np.zeros(31)
    v[::2] = -0.0
    assert _signs(_fed(lambda x: -x, v)) == "+" * 29 + "-+"
    assert _signs(_fed(tf.negative, np.float32(0.0))) == "-"
    assert _signs(_fed(tf.negative, np.zeros(8, np.float16))) == "-" * 8
    c = np.zeros(6, np.complex64)
    c.real[::2] = -0.0
    assert _signs(_fed(tf.negative, c).real) == "+++++-"
    _same(_fed(tf.negative, np.array([0, -3, 2**31 - 1, -2**31] * 3, np.int32)),
          [0, 3, -(2**31 - 1), -2**31] * 3)
    _same(_fed(tf.negative, np.array([1.5, -2.0, np.inf] * 3, np.float32)),
          [-1.5, 2.0, -np.inf] * 3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_relu_and_friends_keep_negative_zero(dtype):
    # TF 1.15: max(x, 0) keeps x on a tie, and elu/selu take x itself from zero up (tf.nn.relu
    # is left NumPy's fast max: relu(-0.) is 0. here, a deliberate difference)
    v = np.zeros(9, dtype)
    v[::2] = -0.0
    want = _signs(v)
    for fn in (tf.nn.relu6, tf.nn.elu, tf.nn.selu,
               lambda x: tf.maximum(x, 0.0), lambda x: tf.minimum(x, 0.0)):
        assert _signs(_fed(fn, v)) == want
    _same(_fed(tf.nn.relu, np.array([NAN, -1, 2], dtype)), [NAN, 0, 2])


# ------------------------------------------------------------------------------------------
# NaN and -inf in max pooling and segment reductions
# ------------------------------------------------------------------------------------------


def test_max_pool_passes_nans_over_and_floors_at_the_lowest_value():
    # TF 1.15's MaxPool starts each window at the type's lowest finite value
    lo = np.finfo(np.float32).min
    x = np.zeros((1, 2, 2, 9), np.float32)
    x[0, :, :, 0] = [[NAN, 1], [2, 3]]
    x[0, :, :, 1] = [[1, NAN], [2, 3]]
    x[0, :, :, 3] = NAN
    x[0, :, :, 4] = -INF
    x[0, :, :, 5] = [[NAN, -INF], [-INF, -INF]]
    x[0, :, :, 6] = [[5, NAN], [-INF, -INF]]
    x[0, :, :, 8] = [[1, NAN], [2, 3]]
    got = _fed(lambda p: tf.nn.max_pool(p, [1, 2, 2, 1], [1, 1, 1, 1], "VALID"), x)
    _same(got.ravel(), [3, 3, 0, lo, lo, lo, 5, 0, 3])
    same = _fed(lambda p: tf.nn.max_pool(p, [1, 2, 2, 1], [1, 1, 1, 1], "SAME"), x)
    _same(same[0, 1, 1], [3, 3, 0, lo, lo, lo, lo, 0, 3])
    row = np.array([NAN, 1.0, -INF, -INF]).reshape(1, 1, 4, 1)
    for dtype in (np.float64, np.float16):
        got = _fed(lambda p: tf.nn.max_pool(p, [1, 1, 2, 1], [1, 1, 2, 1], "VALID"),
                   row.astype(dtype))
        _same(got.ravel(), [1, np.finfo(dtype).min])
    got = _fed(lambda p: tf.layers.max_pooling1d(p, 2, 2), row.reshape(1, 4, 1).astype(np.float32))
    _same(got.ravel(), [1, lo])
    # MaxPool3D is an Eigen reduction: NaNs passed over, -inf kept
    got = _fed(lambda p: tf.nn.max_pool3d(p, [1, 1, 1, 2, 1], [1, 1, 1, 2, 1], "VALID"),
               row.reshape(1, 1, 1, 4, 1).astype(np.float32))
    _same(got.ravel(), [1, -INF])


def test_sorted_segment_max_min_pass_nans_over():
    # TF 1.15: a one-row segment is that row, longer ones pass NaNs over, gaps are 0
    v = np.array([-INF, -INF, NAN, NAN, 1.0, NAN, INF, INF], np.float32)
    ids = [0, 0, 1, 1, 2, 2, 3, 3]
    _same(_fed(lambda x: tf.segment_max(x, ids), v), [-INF, -INF, 1, INF])
    _same(_fed(lambda x: tf.segment_min(x, ids), v), [-INF, INF, 1, INF])
    _same(_fed(lambda x: tf.segment_max(x, [0, 0, 2, 2, 3, 3, 5, 5]), v),
          [-INF, 0, -INF, 1, 0, INF])
    _same(_fed(lambda x: tf.segment_max(x, [0, 1, 1, 2]),
               np.array([NAN, 1, NAN, -INF], np.float32)), [NAN, 1, -INF])
    rows = np.array([NAN, 1, INF, -INF, 2, 3, 4, 5, 6, 7, 8, NAN,
                     1, NAN, 5, 5, 5, 5, 5, 5, 5, 5, NAN, 1], np.float32).reshape(2, 12)
    _same(_fed(lambda x: tf.segment_max(x, [0, 0]), rows),
          [[1, 1, INF, 5, 5, 5, 5, 5, 6, 7, 8, 1]])


def test_unsorted_segment_max_min_start_at_the_type_limits_and_take_nans_in_turn():
    # TF 1.15: each segment starts at the lowest (highest) finite value; a row replaces it
    # unless smaller (larger), so a NaN row sets NaN and a later row replaces the NaN
    lo, hi = np.finfo(np.float32).min, np.finfo(np.float32).max
    v = np.array([-INF, -INF, NAN, NAN, 1.0, NAN, INF, INF], np.float32)
    ids = [0, 0, 1, 1, 2, 2, 3, 3]
    _same(_fed(lambda x: tf.unsorted_segment_max(x, ids, 5), v), [lo, NAN, NAN, INF, lo])
    _same(_fed(lambda x: tf.unsorted_segment_min(x, ids, 5), v), [-INF, NAN, NAN, hi, hi])
    rows = np.array([NAN, 1, INF, -INF, 2, 3, 4, 5, 6, 7, 8, NAN,
                     1, NAN, 5, 5, 5, 5, 5, 5, 5, 5, NAN, 1], np.float32).reshape(2, 12)
    _same(_fed(lambda x: tf.unsorted_segment_max(x, [0, 0], 1), rows),
          [[1, NAN, INF, 5, 5, 5, 5, 5, 6, 7, NAN, 1]])
    _same(_fed(lambda x: tf.unsorted_segment_min(x, [0, 0], 1), rows),
          [[1, NAN, 5, -INF, 2, 3, 4, 5, 5, 5, NAN, 1]])
    _same(_fed(lambda x: tf.unsorted_segment_max(x, [1, 0, 1, 1], 2),
               np.array([[NAN, 1], [0, -INF], [2, NAN], [NAN, 3]], np.float32)),
          [[0, lo], [NAN, 3]])
    h = _fed(lambda x: tf.unsorted_segment_max(x, [0, 1, 1], 3),
             np.array([-INF, 2, NAN], np.float16))
    assert h.dtype == np.float16
    _same(h, [-65504, NAN, -65504])
    _same(_fed(lambda x: tf.unsorted_segment_min(x, [0, 1, 1], 3),
               np.array([INF, NAN, 2], np.float16)), [65504, 2, 65504])


# ------------------------------------------------------------------------------------------
# divisions TF 1.15 runs on its XLA_CPU device
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8])
def test_integer_realdiv_runs_as_xla_division(dtype):
    # TF 1.15 has no CPU RealDiv kernel for these; XLA_CPU truncates and gives -1 for x / 0
    a = np.array([7, 0, 100, 9, 5], dtype)
    b = np.array([2, 0, 0, 2, 0], dtype)
    want = np.array([3, -1, -1, 4, -1]).astype(dtype)
    got = _fed(tf.realdiv, a, b)
    assert got.dtype == dtype
    _same(got, want)
    if dtype != np.uint8:
        _same(_fed(tf.realdiv, np.array([-7, 7], dtype), np.array([2, -2], dtype)), [-3, -3])
    # no XLA kernel for int16 either: TF's error
    with pytest.raises(tf.errors.InvalidArgumentError, match="No OpKernel was registered"):
        _fed(tf.realdiv, np.array([1], np.int16), np.array([1], np.int16))


def test_truncatediv_of_floats_and_int8_is_xla_division():
    # TF 1.15: tf.truncatediv(7., 2.) is 3.5 (XLA's division, no truncation); int8 x / 0 is -1
    a = np.array([7, -7, 1, 10, 100], np.float64)
    b = np.array([2, 2, 3, 3, 7], np.float64)
    np.testing.assert_allclose(_fed(tf.truncatediv, a, b), a / b)
    np.testing.assert_allclose(_fed(tf.truncatediv, a.astype(np.float32), b.astype(np.float32)),
                               a / b, rtol=1e-6)
    _same(_fed(tf.truncatediv, np.array([5, 0, 7, -7], np.int8), np.array([0, 0, 1, 2], np.int8)),
          [-1, -1, 7, -3])
    with pytest.raises(tf.errors.InternalError):
        _fed(tf.truncatediv, np.array([5], np.int32), np.array([0], np.int32))


def test_softmax_flushes_subnormal_probabilities_to_zero():
    # TF 1.15 computes with denormals flushed: [[9.999546e-01, 0., 0., 0., 4.539787e-05]]
    got = _fed(tf.nn.softmax, np.array([[0.0, -100.0, -90.0, -104.0, -10.0]], np.float32))
    _same(got[0, 1:4], [0, 0, 0])
    np.testing.assert_allclose(got[0, [0, 4]], [9.999546e-01, 4.539787e-05], rtol=1e-6)
    _same(_fed(tf.nn.softmax, np.array([[0.0, -720.0, -740.0]])), [[1, 0, 0]])


# ------------------------------------------------------------------------------------------
# top_k orders: TF's heap for sorted=False, NaNs (which compare neither way)
# ------------------------------------------------------------------------------------------


def test_unsorted_top_k_is_in_tf_heap_order():
    # TF 1.15's TopN heap, as it leaves it
    t = np.random.RandomState(3).randint(0, 4, (5, 12)).astype(np.float32)
    _same(_fed(lambda x: tf.nn.top_k(x, 4, sorted=False).indices, t),
          [[0, 11, 9, 3], [5, 10, 2, 4], [3, 10, 1, 7], [2, 9, 11, 7], [6, 9, 2, 1]])
    row = np.array([[4, 1, 3, 3, 4, 1, 0, 1, 2, 2, 0, 4]], np.float32)
    got = _fed(lambda x: tf.nn.top_k(x, 4, sorted=False), row)
    _same(got.indices, [[2, 4, 11, 0]])
    _same(got.values, [[3, 4, 4, 4]])
    _same(_fed(lambda x: tf.nn.top_k(x, 4, sorted=False).indices, row.astype(np.int32)),
          [[2, 4, 11, 0]])


def test_top_k_and_sort_of_rows_holding_nans():
    a = np.array([[1.0, NAN, 3.0, -INF], [INF, 2.0, NAN, 0.0], [5.0, 5.0, -1.0, -1.0]],
                 np.float32)
    got = _fed(lambda x: tf.nn.top_k(x, 3), a)
    _same(got.values, [[NAN, 3, 1], [INF, 2, NAN], [5, 5, -1]])
    _same(got.indices, [[1, 2, 0], [0, 1, 2], [0, 1, 2]])
    _same(_fed(tf.sort, a), [[-INF, 1, NAN, 3], [0, 2, INF, NAN], [-1, -1, 5, 5]])
    _same(_fed(lambda x: tf.sort(x, direction="DESCENDING"), a),
          [[3, 1, NAN, -INF], [INF, 2, NAN, 0], [5, 5, -1, -1]])
    _same(_fed(tf.argsort, a), [[3, 0, 1, 2], [3, 1, 0, 2], [2, 3, 0, 1]])
    # longer than std::sort's insertion-sort threshold
    x = np.array([3, NAN, 1, 7, 2, NAN, 5, 0, 9, 4, NAN, 6, 8, 1, 3, NAN, 2, 7, 5, 0, NAN, 4],
                 np.float32)
    _same(_fed(tf.argsort, x), [19, 2, 21, 11, 20, 7, 4, 16, 0, 9, 6, 18, 15, 13, 14, 12, 10,
                                17, 8, 5, 3, 1])
    _same(_fed(lambda p: tf.nn.top_k(p, 22).indices, x),
          [8, 12, 3, 18, 21, 20, 17, 15, 11, 6, 10, 9, 14, 13, 7, 5, 4, 16, 2, 19, 1, 0])
    _same(_fed(lambda p: tf.nn.top_k(p, 5).indices, x), [1, 8, 12, 3, 17])
    _same(_fed(lambda p: tf.nn.top_k(p, 5, sorted=False).indices, x), [17, 3, 8, 12, 1])


def test_truncatemod_has_no_gradient():
    # TF 1.15: LookupError: No gradient defined for operation 'TruncateMod' (op type: TruncateMod)
    x = tf.placeholder(tf.float32)
    with pytest.raises(LookupError, match="No gradient defined for operation 'TruncateMod'"):
        tf.gradients(tf.truncatemod(x, 2.0), x)


# ------------------------------------------------------------------------------------------
# float16 reductions add in half, in Eigen's order
# ------------------------------------------------------------------------------------------


def test_half_sums_and_means_accumulate_in_half_as_tf():
    rs = np.random.RandomState(42)
    a = rs.uniform(-1, 1, (3, 300)).astype(np.float16)
    b = rs.uniform(-1, 1, (300, 3)).astype(np.float16)
    c = rs.uniform(-1, 1, (2, 40, 3)).astype(np.float16)

    def check(got, want):
        assert got.dtype == np.float16
        _same(got, np.array(want, np.float16))

    # TF 1.15's values: the last axis in eight half lanes, other axes row after row
    check(_fed(lambda x: tf.reduce_sum(x, 1), a), [-2.875, 6.492, -17.34])
    check(_fed(lambda x: tf.reduce_sum(x, 0), b), [6.734, -18.16, 16.34])
    check(_fed(lambda x: tf.reduce_mean(x, 1, keepdims=True), c),
          [[[0.0538, 0.0715, 0.03607]], [[-0.04395, -0.04413, -0.0774]]])
    check(_fed(tf.reduce_sum, a), -13.74)
    check(_fed(tf.reduce_mean, b), 0.005363)
    check(_fed(lambda x: tf.reduce_sum(x, [1, 2]), c), [6.453, -6.617])
    # the half sum overflows before the division
    check(_fed(tf.reduce_mean, np.full(100, 1000, np.float16)), np.inf)


def test_half_cumsum_and_cumprod_round_each_partial_result():
    # TF 1.15's scan adds (multiplies) in half: cumprod's last three and the exclusive
    # reversed cumsum's first three as TF printed them
    x = np.random.RandomState(1).uniform(0.5, 1.5, (4, 40)).astype(np.float16)
    c = _fed(lambda p: tf.cumprod(p, 1), x)
    _same(c[0, -3:], [0.034820556640625, 0.018035888671875, 0.022552490234375])
    e = _fed(lambda p: tf.cumsum(p, 1, exclusive=True, reverse=True), x)
    _same(e[0, :3], [37.5, 36.28125, 35.78125])
    assert c.dtype == e.dtype == np.float16
