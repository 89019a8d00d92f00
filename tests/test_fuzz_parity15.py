"""Element-wise, reduction and array op corners found by differential fuzzing against TF 1.15
(random dtypes, empty and rank-0 tensors, overflow, NaN/inf); expected values are TF 1.15's."""

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


def test_angle_and_imag_of_a_real_tensor_are_zeros_like():
    x = tf.constant([3.0, -1.0])
    a, i = tf.math.angle(x), tf.math.imag(x)
    assert a.name == "Angle/zeros_like:0" and i.name == "Imag/zeros_like:0"
    assert _run(a).tolist() == [0.0, 0.0]  # even for the negative element
    assert tf.math.angle(tf.constant([-2], tf.int64)).dtype == tf.int64


def test_softmax_of_an_empty_tensor_is_empty():
    for fn in (tf.nn.softmax, tf.nn.log_softmax):
        out = _run(fn(tf.zeros([0, 3])))
        assert out.shape == (0, 3)
        assert _run(fn(tf.zeros([2, 0]))).shape == (2, 0)


def test_reduce_variance_of_integers_stays_integer():
    v = tf.math.reduce_variance(tf.constant([1, 2, 4]))
    assert v.dtype == tf.int32 and v.name == "reduce_variance/Mean_1:0"
    assert _run(v) == 1
    assert _run(tf.math.reduce_variance(tf.constant([[1, 2], [5, 9]]), axis=0)).tolist() == [4, 12]


def test_count_nonzero_of_bfloat16():
    assert _run(tf.math.count_nonzero(tf.constant([0.0, 1.5, -2.0], tf.bfloat16))) == 2


def test_integer_mean_wraps_and_truncates_and_is_zero_when_empty():
    assert _run(tf.reduce_mean(tf.constant([32767, 3, -2], tf.int16))) == -10922
    assert _run(tf.reduce_mean(tf.constant([-7, 1]))) == -3
    assert _run(tf.reduce_mean(tf.zeros([2, 0], tf.int32), 1)).tolist() == [0, 0]
    assert _run(tf.reduce_mean(tf.zeros([0], tf.int64))) == 0


def test_integer_floordiv_overflows_as_tf():
    x = tf.constant([-128, 100, -7], tf.int8)
    assert _run(tf.floordiv(x, tf.constant([5, -100, 2], tf.int8))).tolist() == [24, -1, -4]
    assert _run(tf.floordiv(tf.constant(1), tf.constant(-2147483648))) == 1
    assert _run(tf.constant([7, -7]) // tf.constant([-2, -2])).tolist() == [-4, 3]


def test_generated_binary_wrappers_raise_type_error_on_mismatched_dtypes():
    u8 = tf.constant([1], tf.uint8)
    with pytest.raises(TypeError, match="Input 'y' of 'BitwiseOr' Op has type int32"):
        tf.bitwise.bitwise_or(u8, tf.constant([1]))
    with pytest.raises(TypeError, match="Input 'x' of 'Igammac' Op has type int16"):
        tf.math.igammac(tf.constant([1.0]), tf.constant([1], tf.int16))
    with pytest.raises(TypeError, match="Input 'y' of 'Xlogy' Op has type float64"):
        tf.math.xlogy(tf.constant([1.0]), tf.constant([1.0], tf.float64))
    assert tf.bitwise.bitwise_and(tf.constant([3], tf.int64), 1).name == "BitwiseAnd:0"


def test_no_nan_ops_take_floats_only_and_are_named_as_tf():
    with pytest.raises(TypeError, match="DataType int32 not in list of allowed values"):
        tf.div_no_nan(tf.constant([1, 3]), tf.constant([2, 0]))
    assert tf.math.multiply_no_nan(tf.constant([1.0]), 2.0).name == "multiply_no_nan:0"
    r = tf.math.reciprocal_no_nan(tf.constant([0.0, 4.0]))
    assert r.name == "reciprocal_no_nan:0"
    assert _run(r).tolist() == [0.0, 0.25]


def test_op_dtype_lists_are_tf_1_15s():
    for fn, dt in ((tf.maximum, tf.int8), (tf.minimum, tf.uint8), (tf.add, tf.uint16)):
        with pytest.raises(TypeError, match="not in list of allowed values"):
            fn(tf.constant([1], dt), tf.constant([2], dt))
    with pytest.raises(TypeError, match="not in list of allowed values"):
        tf.negative(tf.constant([1], tf.int16))
    with pytest.raises(TypeError, match="not in list of allowed values"):
        tf.math.xdivy(tf.constant([1.0], tf.bfloat16), tf.constant([1.0], tf.bfloat16))
    x = tf.constant([1.5, 2.0], tf.bfloat16)
    assert [t.dtype for t in (tf.asinh(x), tf.acosh(x), tf.atanh(x * 0.25))] == [tf.bfloat16] * 3
    assert tf.subtract(tf.constant([3], tf.uint16), tf.constant([1], tf.uint16)).dtype == tf.uint16


def test_ascending_sort_negates_as_tf():
    with pytest.raises(TypeError, match="not in list of allowed values"):
        tf.sort(tf.constant([3, 1], tf.uint8))
    s = tf.sort(tf.constant([3, -2147483648, 1]))
    assert _run(s).tolist() == [1, 3, -2147483648]  # Neg wraps the most negative int
    assert "Neg" in [op.type for op in tf.get_default_graph().get_operations()]
    assert _run(tf.sort(tf.constant([3, 1], tf.uint8), direction="DESCENDING")).tolist() == [3, 1]


def test_where_of_a_scalar_fails_at_run():
    w = tf.where(tf.constant(True))
    assert w.shape.as_list() == [None, 0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Unhandled input dimensions: 0"):
        _run(w)


def test_betainc_does_not_broadcast():
    a = tf.placeholder(tf.float32)
    t = tf.math.betainc(a, 1.0, tf.constant([0.5, 0.2]))
    assert t.shape.as_list() == [2]
    np.testing.assert_allclose(_run(t, {a: [1.0, 2.0]}), [0.5, 0.04], rtol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"a and x are inconsistent: \[3\]"):
        _run(t, {a: [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError):
        tf.math.betainc(tf.constant([1.0, 2.0]), tf.constant([[1.0, 2.0]]), 0.5)


def test_unique_with_counts_checks_rank_only_when_run():
    u = tf.unique_with_counts(tf.placeholder(tf.int32))
    assert u.idx.shape.ndims is None and u.y.shape.as_list() == [None]
    m = tf.unique_with_counts(tf.zeros([2, 2], tf.int32))
    assert m.idx.shape.as_list() == [2, 2]
    with pytest.raises(tf.errors.InvalidArgumentError, match="unique expects a 1D vector"):
        _run(m.count)


def test_exclusive_cumulative_logsumexp_starts_at_lowest():
    out = _run(tf.math.cumulative_logsumexp(tf.constant([1.0, 2.0]), exclusive=True))
    assert out[0] == np.finfo(np.float32).min and abs(out[1] - 1.0) < 1e-6
    out = _run(tf.math.cumulative_logsumexp(tf.constant([1.0, 2.0], tf.float64), exclusive=True,
                                            reverse=True))
    assert out[1] == np.finfo(np.float64).min


def test_special_values_of_digamma_lgamma_sign():
    d = _run(tf.math.digamma(tf.constant([0.0, -1.0, -np.inf, 1.0])))
    assert d[:3].tolist() == [np.inf] * 3 and abs(d[3] + 0.5772157) < 1e-6
    assert _run(tf.math.lgamma(tf.constant([-np.inf, 0.0]))).tolist() == [np.inf, np.inf]
    assert _run(tf.sign(tf.constant([np.nan, -2.0, 0.0]))).tolist() == [0.0, -1.0, 0.0]
    assert _run(tf.sign(tf.constant(np.nan, tf.float16))) == 0


def test_full_reductions_of_unknown_rank_are_scalars():
    p = tf.placeholder(tf.float32)
    assert tf.reduce_logsumexp(p).shape.as_list() == []
    assert tf.reduce_logsumexp(p, keepdims=True).shape.ndims is None


def test_dynamic_stitch_of_empty_indices_says_one_row_statically():
    t = tf.dynamic_stitch([tf.constant([], tf.int32)], [tf.zeros([0, 2])])
    assert t.shape.as_list() == [1, 2]  # TF's shape function; the value has 0 rows
    assert _run(t).shape == (0, 2)


def test_tile_by_zero_or_one_keeps_what_tf_infers():
    p = tf.placeholder(tf.float32)
    assert tf.tile(p, [0, 0]).shape.as_list() == [0, 0]
    assert tf.tile(p, [1, 2]).shape.as_list() == [None, None]
    q = tf.placeholder(tf.float32, [None, 3])
    assert tf.tile(q, [0, 1]).shape.as_list() == [0, 3]


def test_where_v2_broadcasts_then_and_else_before_the_condition():
    e = tf.placeholder(tf.int32)
    t = tf.where_v2(tf.zeros([0], tf.bool), tf.zeros([0, 2], tf.int32), e)
    assert t.shape.ndims is None
    with pytest.raises(tf.errors.InvalidArgumentError):
        _run(t, {e: np.zeros([0, 2], np.int32)})


def test_max_and_min_skip_nan_as_tf_cpu_reducer():
    n = np.nan
    x = tf.constant([[n, 1.0], [n, n]])
    assert _run(tf.reduce_max(x)) == 1.0
    assert _run(tf.reduce_max(x, 0)).tolist() == [-np.inf, 1.0]  # all NaN: the identity
    assert _run(tf.reduce_min(x, 1)).tolist() == [1.0, np.inf]
    assert np.isnan(_run(tf.reduce_max(tf.constant([n]))))  # one element is copied
    assert _run(tf.argmax(tf.constant([1.0, n, 2.0]))) == 2


def test_constant_with_a_shape_of_no_elements_or_from_no_values():
    assert _run(tf.constant([1, 2], tf.float64, shape=[0, 3])).shape == (0, 3)
    assert _run(tf.constant([], tf.int64, shape=[1, 3])).tolist() == [[0, 0, 0]]
    assert _run(tf.constant([], shape=[2])).tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="Too many elements provided"):
        tf.constant([1, 2, 3], shape=[2])


def test_unconvertible_python_inputs_are_value_errors():
    x = tf.constant([1.0, 2.0])
    with pytest.raises(ValueError, match="Tried to convert 'y' to a tensor and failed"):
        tf.add(x, None)
    with pytest.raises(ValueError, match="Tried to convert 'y' to a tensor and failed"):
        tf.maximum(x, [[1.0], [2.0, 3.0]])
    with pytest.raises(TypeError, match="Expected float32 passed to parameter 'y'"):
        tf.add(x, "a")


def test_embedding_lookup_max_norm_of_unknown_ranks():
    p, i = tf.placeholder(tf.float32), tf.placeholder(tf.int32)
    e = tf.nn.embedding_lookup(p, i, max_norm=1.0)
    got = _run(e, {p: [[3.0, 4.0], [0.3, 0.4]], i: [[0, 1]]})
    np.testing.assert_allclose(got, [[[0.6, 0.8], [0.3, 0.4]]], rtol=1e-6)


def test_shapes_with_an_axis_known_only_when_run():
    ax = tf.placeholder_with_default(0, [])
    assert tf.expand_dims(tf.zeros([2, 1]), ax).shape.ndims is None
    with pytest.raises(ValueError, match="at least rank 1 but is rank 0"):
        tf.gather(tf.constant(1.5), [0], axis=ax)


def test_strided_slice_shrinks_only_with_a_positive_stride():
    x = np.arange(12.0).reshape(3, 4)
    t = tf.strided_slice(x, [1, 0], [2, 4], [2, 1], shrink_axis_mask=1)
    assert _run(t).tolist() == [4.0, 5.0, 6.0, 7.0]
    with pytest.raises(ValueError, match="only stride 1 allowed on non-range indexing"):
        tf.strided_slice(x, [1, 0], [2, 4], [-1, 1], shrink_axis_mask=1)
    p = tf.placeholder(tf.float64)
    t = tf.strided_slice(p, [1, 0], [2, 4], [-1, 1], shrink_axis_mask=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="only stride 1 allowed"):
        _run(t, {p: x})


def test_weighted_moments_builds_tf_ops():
    x = tf.constant([[1.0, 2.0], [3.0, 5.0]])
    m, v = tf.nn.weighted_moments(x, [0], tf.constant([[1.0], [2.0]]))
    names = [op.name for op in tf.get_default_graph().get_operations()]
    for n in ("weighted_moments/weighted_input_sum", "weighted_moments/sum_of_weights",
              "weighted_moments/inv_weight_sum", "weighted_moments/Mul_1",
              "weighted_moments/weighted_distsq", "weighted_moments/Mul_3"):
        assert n in names
    assert "StopGradient" not in [op.type for op in tf.get_default_graph().get_operations()]
    got = _run([m, v, tf.gradients(v, x)[0]])
    np.testing.assert_allclose(got[0], [7 / 3, 4.0], rtol=1e-6)
    np.testing.assert_allclose(got[1], [8 / 9, 2.0], rtol=1e-6)


def _ops():
    return [op.name + ":" + op.type for op in tf.get_default_graph().get_operations()]


def test_sort_along_a_middle_axis_builds_tf_ops():
    x = tf.constant(np.arange(24.0).reshape(2, 3, 4))
    s = tf.argsort(x, axis=1)
    assert _ops()[1:] == [
        "argsort/axis:Const", "argsort/Neg:Neg", "argsort/Shape:Const",
        "argsort/strided_slice/stack:Const", "argsort/strided_slice/stack_1:Const",
        "argsort/strided_slice/stack_2:Const", "argsort/strided_slice:StridedSlice",
        "argsort/Rank:Const", "argsort/transposition:Const", "argsort/transpose:Transpose",
        "argsort/TopKV2:TopKV2", "argsort/transpose_1:Transpose"]
    assert _run(s)[0, :, 0].tolist() == [0, 1, 2]


def test_transpose_of_unknown_rank_or_scalar_builds_tf_ops():
    tf.transpose(tf.constant(1.0))
    assert _ops()[1:] == [
        "transpose/Rank:Rank", "transpose/sub/y:Const", "transpose/sub:Sub",
        "transpose/Range/start:Const", "transpose/Range/delta:Const", "transpose/Range:Range",
        "transpose/sub_1:Sub", "transpose:Transpose"]
    tf.linalg.matrix_transpose(tf.placeholder(tf.float32))
    assert "matrix_transpose/Range:Range" in _ops()


def test_crelu_histogram_count_nonzero_names():
    x = tf.constant([[1.0, -2.0]])
    assert tf.nn.crelu(x).name == "CRelu/Relu:0"
    assert "CRelu:ConcatV2" in _ops()
    h = tf.histogram_fixed_width(x, [0.0, 5.0], nbins=3)
    assert h.name == "histogram_fixed_width:0"
    tf.count_nonzero(x)
    assert "count_nonzero/zeros:Const" in _ops()
    c = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0], logits=tf.cast(x, tf.float16))
    assert c.name == "SparseSoftmaxCrossEntropyWithLogits/Cast_1:0"


def test_bincount_builds_tf_ops():
    b = tf.math.bincount(tf.constant([1, 3, 3, 0]), minlength=7)
    names = [n.split(":")[0] for n in _ops()]
    for n in ("bincount/Prod", "bincount/Greater", "bincount/Cast", "bincount/Max",
              "bincount/mul", "bincount/minlength", "bincount/Maximum", "bincount/Bincount"):
        assert n in names
    assert b.shape.as_list() == [7] and _run(b).tolist() == [1, 1, 0, 2, 0, 0, 0]
    assert _run(tf.math.bincount(tf.zeros([0], tf.int32))).tolist() == []


def test_div_partitioned_embedding_lookup_counts_rows_as_tf():
    p0 = tf.placeholder(tf.float32, [None, 2])
    e = tf.nn.embedding_lookup([p0, tf.constant([[5.0, 6.0]])], tf.constant([0, 2]),
                               partition_strategy="div")
    assert "embedding_lookup/stack:Pack" in _ops() and "embedding_lookup/Sum:Sum" in _ops()
    assert _run(e, {p0: [[1.0, 2.0], [3.0, 4.0]]}).tolist() == [[1.0, 2.0], [5.0, 6.0]]


def test_parallel_stack_is_one_parallel_concat_as_tf():
    t = tf.parallel_stack([[1, 2], [3, 4]])
    assert t.op.type == "ParallelConcat" and t.name == "parallel_stack/ParallelConcat:0"
    assert _run(t).tolist() == [[1, 2], [3, 4]]
    with pytest.raises(ValueError, match="shape attr must be fully defined"):
        tf.parallel_stack([tf.placeholder(tf.float32, [None]), tf.constant([1.0])])
    with pytest.raises(ValueError, match="All input shapes must be fully defined"):
        tf.parallel_stack([tf.constant([1.0]), tf.placeholder(tf.float32)])
    with pytest.raises(LookupError, match="No gradient defined"):
        x = tf.constant([1.0])
        tf.gradients(tf.parallel_stack([x, x]), x)


def test_log_poisson_loss_and_batch_gather_build_tf_ops():
    loss = tf.nn.log_poisson_loss(tf.constant([0.5, 2.0]), tf.constant([0.1, -1.0]),
                                  compute_full_loss=True)
    assert loss.name == "log_poisson_loss/add_1:0"
    assert "log_poisson_loss/Const_1:Const" in _ops()
    np.testing.assert_allclose(_run(loss), [1.055171, 3.0196857], rtol=1e-5)
    b = tf.batch_gather(tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), tf.constant([[2], [0]]))
    for n in ("BatchGather/ones:Const", "BatchGather/Cast:Cast", "BatchGather/Range:Range",
              "BatchGather/Prod:Prod", "BatchGather/GatherV2:GatherV2"):
        assert n in _ops()
    assert b.shape.as_list() == [2, 1] and _run(b).tolist() == [[3.0], [4.0]]
    assert tf.math.polyval([], tf.constant([1.0])).name == "polyval:0"
    tf.sequence_mask(tf.placeholder(tf.int32))
    assert "SequenceMask/Range:Range" in _ops()


def test_swish_is_tf_1_15s_custom_gradient_function():
    x = tf.constant([1.0, -2.0])
    s = tf.nn.swish(x)
    assert s.name == "IdentityN:0"
    assert _ops() == ["Const:Const", "Sigmoid:Sigmoid", "mul:Mul", "Identity:Identity",
                      "IdentityN:IdentityN"]
    got = _run([s, tf.gradients(s, x)[0]])
    np.testing.assert_allclose(got[0], [0.7310586, -0.23840584], rtol=1e-6)
    np.testing.assert_allclose(got[1], [0.92767054, -0.09078425], rtol=1e-5)


def test_embedding_lookup_max_norm_clips_as_tf():
    params = tf.constant([[3.0, 4.0], [0.3, 0.4]])
    e = tf.nn.embedding_lookup(params, tf.constant(0), max_norm=1.0)  # scalar id: dynamic ranks
    assert "embedding_lookup/range:Range" in _ops()
    np.testing.assert_allclose(_run(e), [0.6, 0.8], rtol=1e-6)
    v = tf.nn.embedding_lookup(tf.constant([3.0, -0.5]), tf.constant([0, 1]), max_norm=1.0)
    np.testing.assert_allclose(_run(v), [1.0, -0.5], rtol=1e-6)


def test_gather_negative_batch_dims_defaults_axis_to_it_unnormalised():
    p = tf.constant(np.arange(12).reshape(2, 3, 2))
    t = tf.gather(p, tf.constant([[1, 0], [0, 1]]), batch_dims=-1)  # axis -1: params' last
    assert t.shape.as_list() == [2, 3, 2]
    assert _run(t).tolist() == [[[1, 0], [3, 2], [5, 4]], [[6, 7], [8, 9], [10, 11]]]
