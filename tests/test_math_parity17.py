"""Math and array op corners found by generated differential programs against TF 1.15
(unusual dtypes, empty tensors, NaN/inf, overflow, casts, literal inference); expected values
are TF 1.15's printed outputs."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _run(t, feed=None):
    with tf.Session() as s:
        return s.run(t, feed)


def _same(got, want):
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_maximum_and_minimum_keep_x_unless_y_wins_strictly():
    x = tf.placeholder(tf.float32, [None])
    feed = {x: [np.nan, -1.0, 2.0]}
    got = _run([tf.maximum(x, 0.0), tf.maximum(0.0, x), tf.minimum(x, 1.0), tf.minimum(1.0, x)],
               feed)
    _same(got[0], [np.nan, 0, 2])
    _same(got[1], [0, 0, 2])  # a NaN in y gives way to x
    _same(got[2], [np.nan, -1, 1])
    _same(got[3], [1, -1, 1])
    h = tf.constant([3.0, np.nan], tf.bfloat16)
    _same(_run(tf.maximum(h, tf.constant([np.nan, 1.0], tf.bfloat16))).astype(np.float32),
          [3, np.nan])


def test_truncating_integer_division_by_zero_is_an_internal_error():
    a = tf.constant([7, -7])
    z = tf.placeholder(tf.int32, [2])
    for t in (tf.truncatediv(a, z), tf.truncatemod(a, z)):
        with pytest.raises(tf.errors.InternalError, match="only integer div and mod should"):
            _run(t, {z: [2, 0]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
        _run(tf.floormod(a, z), {z: [2, 0]})


def test_igamma_of_zero_x_is_zero_whatever_a():
    a = tf.constant([0.0, -0.0, 2.0, np.nan, -1.0])
    x = tf.constant([0.0, 0.0, 0.0, 0.0, 0.0])
    _same(_run(tf.math.igamma(a, x)), [0, 0, 0, 0, 0])
    _same(_run(tf.math.igammac(a, x)), [np.nan, np.nan, 1, np.nan, np.nan])
    inf = np.inf
    _same(_run(tf.math.igamma(tf.constant([inf, 2.0, 0.5]), tf.constant([inf, inf, 2.0])))[:2],
          [np.nan, 1])


def test_complex_of_parts_that_are_not_float_pairs():
    for re, im in ((tf.int32, tf.int32), (tf.float32, tf.float64)):
        with pytest.raises(TypeError, match=f"real and imag have incorrect types: {re.name} "
                                            f"{im.name}"):
            tf.complex(tf.constant(1, re), tf.constant(1, im))


def test_pow_lists_float_before_half():
    with pytest.raises(TypeError, match="allowed values: bfloat16, float32, float16, float64, "
                                        "int32, int64, complex64, complex128"):
        tf.pow(tf.constant([1], tf.int8), tf.constant([1], tf.int8))


def test_euclidean_norm_of_integers_wraps_and_of_one_element_keeps_signs():
    _same(_run(tf.math.reduce_euclidean_norm(tf.constant([0, 1, -1, 5, -7, 100], tf.int8))), 9)
    _same(_run(tf.math.reduce_euclidean_norm(tf.constant([[120, 60, 0], [60, 120, 120]], tf.uint8),
                                        1)), [8, 12])
    x = tf.constant([[[-2.0, -1.0, 0.0]], [[1.0, 2.0, -2.0]]])
    _same(_run(tf.math.reduce_euclidean_norm(x, 1)), [[-2, -1, 0], [1, 2, -2]])
    _same(_run(tf.math.reduce_euclidean_norm(tf.constant([-3]), 0, keepdims=True)), [-3])


def test_mean_of_nothing_is_nan_for_half_float_double_only():
    assert np.isnan(_run(tf.reduce_mean(tf.zeros([0, 3], tf.float16))))
    _same(_run(tf.reduce_mean(tf.zeros([0, 3], tf.bfloat16), 0)).astype(np.float32), [0, 0, 0])
    _same(_run(tf.reduce_mean(tf.zeros([2, 0], tf.complex64), -1)), [0, 0])
    _same(_run(tf.math.reduce_variance(tf.zeros([0], tf.complex128))), 0)


def test_reduction_dimension_messages():
    with pytest.raises(ValueError, match=r"Invalid reduction dimension 3 for input with 2 "
                                         r"dimensions\. for 'Sum'"):
        tf.reduce_sum(tf.zeros([2, 3]), 3)
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1 for 'ArgMax'"):
        tf.argmax(tf.zeros([2, 3]), [])


def test_float_to_uint32_goes_through_int64():
    x = tf.constant([-1.0, -3e9, 3e9, 1e20, np.nan, np.inf, -1.7])
    _same(_run(tf.cast(x, tf.uint32)),
          [4294967295, 1294967296, 3000000000, 0, 0, 0, 4294967295])
    d = tf.constant([-2147483649.0, 2147483648.0, 9.3e18], tf.float64)
    _same(_run(tf.cast(d, tf.uint32)), [2147483647, 2147483648, 0])
    _same(_run(tf.saturate_cast(x, tf.uint32)), [0, 0, 3000000000, 0, 0, 0, 0])


def test_saturate_cast_to_or_from_bool_or_complex_has_no_range():
    for src, dst in ((tf.float32, tf.bool), (tf.int32, tf.complex64), (tf.bool, tf.int32)):
        name = (dst if src.is_floating or src.is_integer else src).name
        with pytest.raises(TypeError, match=f"Cannot find minimum value of <dtype: '{name}'>"):
            tf.saturate_cast(tf.zeros([2], src), dst)


def test_python_and_numpy_values_that_do_not_fit_the_dtype():
    for dt in (tf.int8, tf.uint8, tf.int32, tf.int64):
        with pytest.raises(OverflowError, match="Python int too large to convert to C long"):
            tf.constant(2 ** 63, dt)
    assert _run(tf.constant(2 ** 63, tf.uint32)) == 0  # C's unsigned long: it wraps
    with pytest.raises(OverflowError):
        tf.constant(2 ** 64, tf.uint32)
    assert tf.constant(2 ** 63).dtype == tf.uint64
    for v, shown in ((np.int8(3), "3"), (np.array([1, 2], np.uint32), "1"),
                     (np.float64(2.5), "2.5")):
        with pytest.raises(TypeError, match=f"^Expected binary or unicode string, got {shown}$"):
            tf.constant(v, tf.string)
    for dt in (tf.float16, tf.float32, tf.complex64, tf.int32):
        with pytest.raises(TypeError, match=f"Expected {dt.name}, got None of type 'NoneType'"):
            tf.convert_to_tensor([1, None], dt)
    with pytest.raises(TypeError, match=r"Failed to convert object of type <class 'list'> to "
                                        r"Tensor. Contents: \[1, None\]"):
        tf.constant([1.0, 2.0]) + [1, None]


def test_tile_by_minus_one_is_unknown_until_run():
    t = tf.tile(tf.ones([2, 3]), [-1, 1])
    assert t.get_shape().as_list() == [None, 3]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected multiples\[0\] >= 0, "
                                                             r"but got -1"):
        _run(t)
    with pytest.raises(ValueError, match="Invalid value in tensor used for shape: -2"):
        tf.tile(tf.ones([2, 3]), [-2, 1])


def test_searchsorted_places_nan_as_tfs_bounds():
    nan = float("nan")
    _same(_run(tf.searchsorted([[1.0, 3.0]], [[nan, 2.0]])), [[0, 1]])
    _same(_run(tf.searchsorted([[1.0, 3.0]], [[nan, 2.0]], side="right")), [[2, 1]])


def test_both_spellings_of_an_argument_name_the_old_one_first():
    x = tf.ones([2, 3])
    for fn, words in (
            (lambda: tf.reduce_sum(x, axis=0, reduction_indices=0), "'reduction_indices' and 'axis'"),
            (lambda: tf.reduce_mean(x, 0, keepdims=True, keep_dims=True), "'keep_dims' and 'keepdims'"),
            (lambda: tf.argmax(x, 0, dimension=0), "'dimension' and 'axis'"),
            (lambda: tf.count_nonzero(input_tensor=x, input=x), "'input_tensor' and 'input'"),
            (lambda: tf.expand_dims(x, axis=0, dim=0), "'dim' and 'axis'"),
            (lambda: tf.nn.l2_normalize(x, axis=0, dim=0), "'dim' and 'axis'"),
            (lambda: tf.nn.softmax(x, axis=0, dim=0), "'dim' and 'axis'"),
            (lambda: tf.norm(x, axis=0, keepdims=True, keep_dims=True), "'keep_dims' and 'keepdims'"),
            (lambda: tf.reverse_sequence(x, [1, 1], seq_axis=1, seq_dim=1), "'seq_dim' and 'seq_axis'"),
            (lambda: tf.reduce_join(["a"], axis=0, reduction_indices=0), "'reduction_indices' and 'axis'"),
            (lambda: tf.string_split(["a b"], sep=" ", delimiter=" "), "'delimiter' and 'sep'"),
            (lambda: tf.losses.cosine_distance(x, x, axis=0, dim=0), "'dim' and 'axis'")):
        with pytest.raises(ValueError, match=f"^Cannot specify both {words}$"):
            fn()
    sp = tf.SparseTensor([[0, 0]], [1.0], [2, 3])
    with pytest.raises(ValueError, match="^Can't specify both axis' and 'reduction_indices'.$"):
        tf.sparse_reduce_sum(sp, axis=0, reduction_axes=0)
    with pytest.raises(ValueError, match="^Cannot specify both 'concat_dim' and 'axis'$"):
        tf.sparse_concat(axis=0, sp_inputs=[sp], concat_dim=0)


def test_nd_index_errors_are_tf_1_15s():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^indices\[0,1\] = \[1, 0\] does not index into param shape \[1,3\]\n"):
        _run(tf.gather_nd(tf.constant([[0, 1, 2]]), tf.constant([[[0, 1], [1, 0]]])))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^indices = \[7\] does not index into param shape \[3\]\n"):
        _run(tf.gather_nd(tf.constant([0, 1, 2]), tf.constant([7])))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^indices\[0\] = \[5\] does not index into shape \[4\]\n"):
        _run(tf.scatter_nd([[5]], [1], [4]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^indices\[0\] = \[3\] does not index into shape \[2,3\]\n"):
        _run(tf.tensor_scatter_update(tf.zeros([2, 3]), [[3]], [[1.0, 1.0, 1.0]]))


def test_shape_function_and_kernel_messages_are_tf_1_15s():
    a = tf.constant([[1, 2, 3], [4, 5, 6]])
    for fn, pattern in (
            (lambda: tf.squeeze(tf.zeros([1, 2]), [2]), r"^squeeze_dims\[0\] not in \[-2,2\)\. for"),
            (lambda: tf.expand_dims(a, 3), r"^dim 3 not in the interval \[-3, 2\]\. for"),
            (lambda: tf.expand_dims(a, [1, 2]), r"^'dim' input must be a tensor with a single value for"),
            (lambda: tf.pad(a, [[-1, 0], [0, 0]]), r"^Paddings must be non-negative for 'Pad'"),
            (lambda: tf.range(0, 3, 0), r"^Requires delta != 0 for 'range'"),
            (lambda: tf.histogram_fixed_width([1.0], [0.0, 3.0], nbins=0), r"^Requires nbins > 0: 0 for"),
            (lambda: tf.cross([1.0, 0.0], [0.0, 1.0]), r"^Dimension must be 3 but is 2 for 'Cross'"),
            (lambda: tf.add_n([]), r"^inputs must be a list of at least one Tensor/IndexedSlices with")):
        with pytest.raises(ValueError, match=pattern):
            fn()
    for t, pattern in (
            (tf.pad(a, [[2, 2], [0, 0]], "REFLECT"),
             r"^paddings must be less than the dimension size: 2, 2 not less than 2\n"),
            (tf.pad(a, [[3, 0], [0, 0]], "SYMMETRIC"),
             r"^paddings must be no greater than the dimension size: 3, 0 greater than 2\n"),
            (tf.reverse_sequence(a, [2, 4], seq_axis=1, batch_axis=0),
             r"^seq_lens\(1\) > input.dims\(1\)\n"),
            (tf.histogram_fixed_width([1.0, 2.0], [3.0, 0.0], nbins=3),
             r"^value_range should satisfy value_range\[0\] < value_range\[1\], but got '\[3, 0\]'")):
        with pytest.raises(tf.errors.InvalidArgumentError, match=pattern):
            _run(t)


def test_unsorted_segment_mean_builds_tf_1_15s_ops_for_known_ranks():
    x = tf.placeholder(tf.float32, [None, 3])
    i = tf.placeholder(tf.int32, [None])
    g = tf.get_default_graph()
    n0 = len(g.get_operations())
    m = tf.unsorted_segment_mean(x, i, 4)
    assert m.name == "UnsortedSegmentMean/truediv:0"
    assert [o.type for o in g.get_operations()[n0:]] == [
        "Shape", "Const", "Fill", "Const", "UnsortedSegmentSum", "Const", "Reshape", "Const",
        "Maximum", "Const", "UnsortedSegmentSum", "RealDiv"]
    got = _run([m, tf.unsorted_segment_sqrt_n(x, i, 4)],
               {x: [[1, 2, 3], [3, 4, 5], [1, 1, 1]], i: [0, 0, 2]})
    _same(got[0], [[2, 3, 4], [0, 0, 0], [1, 1, 1], [0, 0, 0]])
    np.testing.assert_allclose(got[1][0], np.array([4, 6, 8]) / np.sqrt(2))


def test_string_ops_given_other_tensors_raise_the_ops_type_errors():
    x = tf.constant([1, 2])
    with pytest.raises(TypeError, match=r"^Input 'inputs' of 'ReduceJoin' Op has type int32 that "
                                        r"does not match expected type of string\.$"):
        tf.reduce_join(x)
    with pytest.raises(TypeError, match=r"^Input 'input' of 'StringUpper' Op has type int32"):
        tf.strings.upper(x)
    with pytest.raises(TypeError, match=r"^Tensors in list passed to 'inputs' of 'StringJoin' Op "
                                        r"have types \[int32, int32\] that do not match expected "
                                        r"type string\.$"):
        tf.strings.join([x, x])
    with pytest.raises(TypeError, match="DataType uint8 not in list of allowed values: int8, "
                                        "int16, int32, int64, complex64, complex128, float32, "
                                        "float64, bool$"):
        tf.as_string(tf.constant([1], tf.uint8))
    assert _run(tf.reduce_join(["a", "b"])) == b"ab"
    assert _run(tf.strings.upper(["a"])).tolist() == [b"A"]


def test_lgamma_and_digamma_at_exact_and_tiny_negative_points():
    x = tf.constant([1.0, 2.0, -1e-40, -1e-10], tf.float64)
    got = _run([tf.lgamma(x), tf.digamma(x)])
    _same(got[0][:2], [0, 0])  # libm's lgamma is exactly 0 there
    np.testing.assert_allclose(got[0][2:], [92.10340371976183, 23.025850929998178])
    np.testing.assert_allclose(got[1][2:], [1e40, 1e10], rtol=1e-9)


def test_pow_by_a_half_of_minus_inf_and_minus_zero_is_cs_pow():
    for dt in (tf.float32, tf.float64):
        x = tf.constant([-np.inf, -0.0, 4.0, -4.0], dt)
        got = _run([tf.pow(x, 0.5), tf.pow(x, -0.5)])
        _same(got[0], [np.inf, 0, 2, np.nan])
        assert not np.signbit(got[0][1])
        _same(got[1], [0, np.inf, 0.5, np.nan])


def test_cumulative_logsumexp_of_non_finite_values_scans_as_tf():
    inf, nan = np.inf, np.nan
    x = tf.constant([[-inf, -inf, -inf], [nan, 1.0, 2.0], [inf, inf, 1.0], [1.0, 2.0, 3.0]])
    got = _run(tf.math.cumulative_logsumexp(x, 1))
    low = np.finfo(np.float32).min
    np.testing.assert_allclose(got, [[low, low, low], [low, 1, 2.3132617], [inf, nan, nan],
                                     [1, 2.3132617, 3.407606]], rtol=1e-6)
    ex = _run([tf.math.cumulative_logsumexp(x[2:3], 1, exclusive=True, reverse=True),
               tf.math.cumulative_logsumexp(x[2:3], 1, reverse=True)])
    _same(ex[0], [[inf, 1, low]])
    _same(ex[1], [[nan, inf, 1]])


def test_verify_tensor_all_finite_and_sparse_concat_take_tf_1_15s_newer_names():
    assert tf.verify_tensor_all_finite(x=tf.ones([2]), message="m").name == (
        "VerifyFinite/control_dependency:0")
    with pytest.raises(ValueError, match="^Cannot specify both 't' and 'x'$"):
        tf.verify_tensor_all_finite(tf.ones([2]), "m", x=tf.ones([2]))
    with pytest.raises(TypeError, match="Expected string for argument 'message' not None"):
        tf.verify_tensor_all_finite(tf.ones([2]))
    sp = tf.SparseTensor([[0, 0]], [1.0], [2, 3])
    with pytest.raises(ValueError, match="^Cannot specify both 'expand_nonconcat_dim' and "
                                         "'expand_nonconcat_dims'$"):
        tf.sparse_concat(0, [sp, sp], expand_nonconcat_dims=True)


def test_membership_in_a_tensor_is_tf_1_15s_iteration_error():
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError,
                       match="^iterating over `tf.Tensor` is not allowed in Graph execution"):
        1 in tf.constant([1, 2])  # noqa: B015


def test_integer_pow_by_a_negative_exponent_in_tf_1_15s_words():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="^Integers to negative integer powers are not allowed\n"):
        _run(tf.constant([2, 3]) ** tf.constant([1, -1]))
    _same(_run(tf.pow(tf.zeros([0], tf.int32), -1)), np.zeros([0]))


def test_complex_division_by_zero_is_nan():
    x = tf.constant([1 + 1j, 0j, 2 - 3j, 1j], tf.complex64)
    y = tf.constant([0j, 0j, 0j, 2j], tf.complex64)
    for t in (x / y, tf.div(x, y), tf.math.xdivy(x, y)):
        got = _run(t).tolist()
        assert all(np.isnan(v.real) and np.isnan(v.imag) for v in got[:3] if v != 0), got
        assert got[3] == 0.5
    assert _run(tf.math.xdivy(x, y)).tolist()[1] == 0
    assert np.isnan(_run(tf.cast(x, tf.complex128) / tf.cast(y, tf.complex128))[0].imag)


def test_complex_pow_is_cs_cpow():
    x = tf.constant([0j, 0j, 1 + 1j, 3 + 0j], tf.complex64)
    y = tf.constant([0j, 1 + 1j, 0j, 3 + 0j], tf.complex64)
    got = _run(tf.pow(x, y))
    assert np.isnan(got[0].real) and np.isnan(got[0].imag)  # 0 ** 0 (NumPy says 1)
    assert got[1] == 0 and got[2] == 1
    np.testing.assert_allclose(got[3], 27, rtol=1e-6)


def test_no_element_of_a_partly_known_shape_is_a_constant():
    # TF 1.15's shape inference: tf.shape(x)[i] of an x with an unknown dimension is not
    # evaluated (TF 2.x evaluates it where x's dimension i is known); slices that stay
    # vectors are partial shapes
    x = tf.placeholder(tf.float32, [None, 3])
    n = tf.shape(x)[1]
    for t, want in ((tf.range(n), [None]), (tf.one_hot([0], n), [1, None]),
                    (tf.reshape(x, [n, -1]), [None, None]), (tf.fill([n, 2], 1.0), [None, 2]),
                    (tf.nn.top_k(x, n)[0], [None, None]), (tf.sort(x), [None, None]),
                    (tf.tile(x, [1, n]), [None, None]), (tf.eye(n), [None, None]),
                    (tf.sequence_mask([1], n), [1, None]), (tf.linspace(0.0, 1.0, n), [None]),
                    (tf.fill(tf.cast(tf.shape(x), tf.int64), 1.0), [None, None]),
                    (tf.zeros(tf.shape(x)[1:]), [3]), (tf.fill(tf.shape(x), 1.0), [None, 3]),
                    (tf.reshape(x, tf.concat([tf.shape(x)[:1], [3, 1]], 0)), [None, 3, 1]),
                    (tf.image.resize_bilinear(tf.zeros([1, 4, 4, 3]), tf.stack([n, 3])),
                     [1, None, None, 3])):
        assert t.get_shape().as_list() == want, t.name
    assert tf.get_static_value(n) is None
    z = tf.zeros([2, 3])
    assert tf.range(tf.shape(z)[1]).get_shape().as_list() == [3]


def test_zeta_stops_as_tfs_kernel_does():
    inf, nan = np.inf, np.nan
    q = tf.constant([0.5, 1.0, 10.0, 0.0, -1.0])
    got = _run(tf.zeta(tf.fill([5], inf), q))
    _same(got, [inf, 1, nan, inf, inf])  # TF 1.15's printed values
    _same(_run(tf.zeta(tf.constant([nan, 100.0]), tf.constant([0.0, 10.0]))), [inf, nan])
    _same(_run(tf.polygamma(tf.constant([inf, inf]), tf.constant([0.5, 2.0]))), [inf, nan])
    np.testing.assert_allclose(_run(tf.zeta(tf.constant([2.0, 4.5], tf.float64),
                                            tf.constant([1.0, 0.5], tf.float64))),
                               [np.pi ** 2 / 6, 22.81059915], rtol=1e-8)


def test_space_and_reverse_shape_function_words():
    for fn, pattern in (
            (lambda: tf.space_to_depth(tf.zeros([1, 4, 5, 3]), 2), "by 2 but is 5"),
            (lambda: tf.depth_to_space(tf.zeros([1, 2, 2, 3]), 2), "by 4 but is 3"),
            (lambda: tf.space_to_batch_nd(tf.zeros([2, 5, 4, 3]), [2, 2], [[0, 0], [0, 0]]),
             "by 2 but is 5"),
            (lambda: tf.batch_to_space_nd(tf.zeros([6, 2, 2, 1]), [2, 2], [[0, 0], [0, 0]]),
             "by 2 but is 3")):
        with pytest.raises(ValueError, match=f"^Dimension size must be evenly divisible {pattern} "):
            fn()
    with pytest.raises(ValueError, match=r"^'axis'\[0\] = 2 is out of valid range \[0, 1 for"):
        tf.reverse(tf.zeros([2, 3]), [2])


def test_diagonal_shape_function_words():
    with pytest.raises(ValueError, match="^Dimensions must be equal, but are 2 and 3 for 'DiagPart"):
        tf.diag_part(tf.zeros([2, 3]))
    with pytest.raises(ValueError, match="^Dimensions must be equal, but are 2 and 3 for 'set_diag"):
        tf.matrix_set_diag(tf.zeros([2, 3]), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="^Shape must be rank 1 but is rank 2 for 'set_diag"):
        tf.matrix_set_diag(tf.zeros([2, 3]), [[1.0, 2.0]])
