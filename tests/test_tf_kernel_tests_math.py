"""Math ops checked against what TF 1.15's own kernel tests expect of them (reductions,
element-wise arithmetic, scans, segment sums, matrix products, linear algebra): values,
dtypes, static shapes, gradients and the errors a program sees, each expected result
computed here with NumPy or by hand."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.python.ops import math_ops


@pytest.fixture
def sess():
    with tf.Graph().as_default(), tf.Session() as s:
        yield s


def _grad_error(x, x_shape, y, y_shape, x_init):
    return tf.test.compute_gradient_error(x, x_shape, y, y_shape, x_init_value=x_init)


# -- reductions ----------------------------------------------------------------------------
def test_reduce_all_any_convert_python_lists_as_bool(sess):
    # an empty list is a bool tensor for All/Any: the empty AND is true, the empty OR false
    assert sess.run(tf.reduce_all([], axis=0)) is np.True_
    assert sess.run(tf.reduce_any([], axis=0)) is np.False_
    assert sess.run(tf.reduce_all([True, False], 0, keepdims=True)).tolist() == [False]


def test_reduction_indices_of_rank_two_are_a_shape_error(sess):
    with pytest.raises(ValueError, match="must be at most rank 1"):
        tf.reduce_sum(tf.placeholder(tf.float32), [[1], [2]])


def test_count_nonzero_counts_non_empty_strings(sess):
    x = np.array([["", "a", "bc"], ["", "", "d"]])
    out = tf.count_nonzero(tf.constant(x), axis=1)
    assert out.dtype == tf.int64
    np.testing.assert_array_equal(sess.run(out), (x != "").sum(axis=1))
    assert sess.run(tf.count_nonzero(tf.constant(["test"]))) == 1


def test_reduced_shape_static_and_fed(sess):
    assert sess.run(math_ops.reduced_shape([5, 3], [0])).tolist() == [1, 3]
    assert sess.run(math_ops.reduced_shape([10, 10, 10], [-1, 0])).tolist() == [1, 10, 1]
    assert sess.run(math_ops.reduced_shape([0, 3], [])).tolist() == [0, 3]
    shape = tf.placeholder(tf.int32, [None])
    axes = tf.placeholder(tf.int32, [None])
    out = math_ops.reduced_shape(shape, axes)
    got = sess.run(out, {shape: [4, 5, 6], axes: [-1, 1]})
    assert got.tolist() == [4, 1, 1]
    assert sess.run(out, {shape: [4, 5], axes: []}).tolist() == [4, 5]


def test_reduce_euclidean_norm_is_one_op_without_a_gradient(sess):
    x = np.array([[3.0, -4.0, 1.0], [0.5, 2.0, -2.0]])
    t = tf.constant(x)
    y = tf.math.reduce_euclidean_norm(t, 1)
    assert y.op.type == "EuclideanNorm"
    assert y.get_shape().as_list() == [2]
    np.testing.assert_allclose(sess.run(y), np.sqrt((x * x).sum(1)))
    kept = tf.math.reduce_euclidean_norm(t, [1], keepdims=True)
    assert kept.get_shape().as_list() == [2, 1]
    # TF 1.15 declares EuclideanNorm not differentiable: tf.gradients gives None
    assert tf.gradients(y, t) == [None]
    assert tf.gradients(kept + t, t)[0] is not None


def test_reduce_euclidean_norm_complex_and_integer(sess):
    z = np.array([1 - 2j, 3j, 2 + 0j], dtype=np.complex64)
    out = sess.run(tf.math.reduce_euclidean_norm(tf.constant(z), 0))
    assert out.dtype == np.complex64
    np.testing.assert_allclose(out, np.sqrt(1 + 4 + 9 + 4), rtol=1e-6)
    # integers take the floor of the root, in their own dtype
    ints = sess.run(tf.math.reduce_euclidean_norm(tf.constant([[3, 4], [2, 2]]), 1))
    assert ints.dtype == np.int32 and ints.tolist() == [5, 2]
    # nothing reduced: TF's reduction kernels hand the input on unchanged
    np.testing.assert_array_equal(
        sess.run(tf.math.reduce_euclidean_norm(tf.constant(z), [])), z)


# -- element-wise binary -------------------------------------------------------------------
def test_pow_gradient_keeps_zero_upstream_zero_in_float16(sess):
    # z * log(x) overflows float16 for the first entry; its upstream gradient is 0, and TF
    # multiplies the gradient in first, so the result is 0 rather than 0 * inf = nan
    x = tf.constant(np.array([6.0, 2.0], np.float16))
    y = tf.constant(np.array([6.0, 3.0], np.float16))
    gx, gy = sess.run(tf.gradients(tf.pow(x, y)[1], [x, y]))
    assert np.isfinite(gx).all() and np.isfinite(gy).all()
    np.testing.assert_allclose(gx, [0.0, 3 * 2.0 ** 2], rtol=1e-3)
    np.testing.assert_allclose(gy, [0.0, 8 * np.log(2.0)], rtol=1e-3)


# -- element-wise unary --------------------------------------------------------------------
def test_log_sigmoid_is_neg_softplus_neg_with_half_slope_at_zero(sess):
    x = tf.constant(np.array([-30.0, -1.0, 0.0, 2.0, 30.0]))
    y = tf.log_sigmoid(x)
    assert y.op.type == "Neg" and y.op.inputs[0].op.type == "Softplus"
    xs = np.array([-30.0, -1.0, 0.0, 2.0, 30.0])
    out, grad = sess.run([y, tf.gradients(y, x)[0]])
    # TF 1.15's Softplus takes log(exp(x) + 1) above exp's threshold, not log1p
    np.testing.assert_allclose(out, [-30.000000000000092, -1.3132616875182228, -0.6931471805599453,
                                     -0.1269280110429726, -9.348077867343381e-14], rtol=1e-12)
    np.testing.assert_allclose(grad, 1.0 / (1.0 + np.exp(xs)), rtol=1e-12)


@pytest.mark.parametrize("fn,ref", [
    (tf.abs, np.abs), (tf.negative, np.negative), (tf.sign, np.sign), (tf.square, np.square),
    (tf.sqrt, np.sqrt), (tf.tanh, np.tanh), (tf.erf, None)])
def test_unary_ops_take_sparse_tensors(sess, fn, ref):
    import math

    values = np.array([0.25, -1.5, 2.0]) if fn is not tf.sqrt else np.array([0.25, 1.5, 2.0])
    sp = tf.SparseTensor(indices=[[0, 1], [1, 0], [2, 2]], values=values, dense_shape=[3, 4])
    out = fn(sp)
    assert isinstance(out, tf.SparseTensor)
    got = sess.run(out)
    expected = ref(values) if ref is not None else np.vectorize(math.erf)(values)
    np.testing.assert_allclose(got.values, expected, rtol=1e-12)
    np.testing.assert_array_equal(got.indices, [[0, 1], [1, 0], [2, 2]])
    np.testing.assert_array_equal(got.dense_shape, [3, 4])


def test_complex_abs_of_sparse_tensor_is_real(sess):
    sp = tf.SparseTensor([[0], [2]], np.array([3 + 4j, -1j], np.complex64), [3])
    got = sess.run(tf.abs(sp))
    assert got.values.dtype == np.float32
    np.testing.assert_allclose(got.values, [5.0, 1.0])


def _complex_jacobians(op, y, dy):
    a, b = tf.constant(y), tf.constant(dy)
    z = op(a, b)
    return tf.test.compute_gradient([a, b], [y.shape, dy.shape], z, y.shape,
                                    x_init_value=[y, dy], delta=1e-6)


@pytest.mark.parametrize("name", ["tanh_grad", "sigmoid_grad", "sqrt_grad", "rsqrt_grad",
                                  "reciprocal_grad"])
def test_second_order_gradients_of_fused_grads_for_complex(sess, name):
    # the analytic Jacobians of <Op>Grad(y, dy) match finite differences for complex inputs
    from tideflow.python.ops import gen_math_ops

    rng = np.random.RandomState(3)
    y = (rng.uniform(0.2, 2.0, 4) + 1j * rng.uniform(-1.0, 1.0, 4)).astype(np.complex128)
    dy = (rng.uniform(-2.0, 2.0, 4) + 1j * rng.uniform(-1.0, 1.0, 4)).astype(np.complex128)
    for analytic, numeric in _complex_jacobians(getattr(gen_math_ops, name), y, dy):
        np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-6)


def test_tanh_and_sigmoid_grad_kernels_do_not_conjugate(sess):
    # TF's TanhGrad(y, dy) is dy * (1 - y * y) and SigmoidGrad dy * y * (1 - y), y as given
    from tideflow.python.ops import gen_math_ops

    y = np.array([0.5 + 0.25j, -1.0 + 2.0j])
    dy = np.array([1.0 - 1.0j, 0.5 + 0.0j])
    t, s = sess.run([gen_math_ops.tanh_grad(y, dy), gen_math_ops.sigmoid_grad(y, dy)])
    np.testing.assert_allclose(t, dy * (1 - y * y))
    np.testing.assert_allclose(s, dy * y * (1 - y))


# -- gradients at singularities ------------------------------------------------------------
_SINGULAR = [
    (tf.reciprocal, (0.0,)), (tf.rsqrt, (0.0,)), (tf.sqrt, (0.0,)), (tf.tan, (np.pi / 2,)),
]
# RealDiv (tf.div, tf.realdiv, tf.truediv on floats), Log, Log1p, Pow and Atan2 are not among
# them: TF 1.15's gradients are grad / y and grad * (-x / y / y), grad * reciprocal(x),
# grad * y * x ** (y - 1), grad / (x * x + y * y): NaN at the singularity
# (tests/test_opseq_train.py, tests/test_grad_parity15.py)


@pytest.mark.parametrize("fn,point", _SINGULAR, ids=[f.__name__ for f, _ in _SINGULAR])
@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64, tf.complex64])
def test_zero_upstream_gradient_stays_zero_at_singularities(sess, fn, point, dtype):
    # TF 1.15's fused <Op>Grad kernels give exactly 0 for a zero upstream gradient where the
    # derivative is infinite (tan's sec^2 at float pi/2 is finite, but inf in float16)
    if dtype == tf.float16 and fn is tf.tan:
        pytest.skip("0 * inf: NaN in TF 1.15")
    args = [tf.constant(v, dtype=dtype) for v in point]
    grads = tf.gradients(fn(*args), args, grad_ys=tf.constant(0, dtype=dtype))
    for g in sess.run(grads):
        assert np.all(np.asarray(g) == 0), g


@pytest.mark.parametrize("fn,point", [(tf.acosh, 0.0), (tf.asin, 1.0), (tf.acos, 1.0)])
def test_zero_upstream_gradient_is_nan_at_inverse_trig_singularities(sess, fn, point):
    # TF 1.15 (forward-compatibility horizon 2019-08-21) multiplies by the reciprocal or
    # divides, where later TF uses Xdivy: 0 * inf is NaN (TF 1.15 printed [nan])
    a = tf.constant(point)
    g = sess.run(tf.gradients(fn(a), a, grad_ys=tf.constant(0.0)))
    assert np.isnan(g[0])


def test_second_order_sqrt_grad_divides_as_tf_115(sess):
    # TF 1.15's SqrtGrad gradient is g / y (its Xdivy form came later): TF printed [nan, nan]
    from tideflow.python.ops import gen_math_ops

    a, b = tf.constant(0.0), tf.constant(0.0)
    grads = tf.gradients(gen_math_ops.sqrt_grad(a, b), [a, b], grad_ys=tf.constant(0.0))
    assert np.isnan(sess.run(grads)).all()


def test_singular_safe_gradients_keep_their_values_elsewhere(sess):
    x = np.array([0.5, 2.0, 3.0])
    y = np.array([4.0, -1.0, 0.25])
    tx, ty = tf.constant(x), tf.constant(y)
    gx, gy = sess.run(tf.gradients(tx / ty, [tx, ty]))
    np.testing.assert_allclose(gx, 1 / y)
    np.testing.assert_allclose(gy, -x / y ** 2)
    assert sess.run(tf.gradients(tf.sqrt(tx), tx)[0]).tolist() == (0.5 / np.sqrt(x)).tolist()
    np.testing.assert_allclose(sess.run(tf.gradients(tf.log(tx), tx)[0]), 1 / x)
    px, py = sess.run(tf.gradients(tf.pow(tx, ty), [tx, ty]))
    np.testing.assert_allclose(px, y * x ** (y - 1))
    np.testing.assert_allclose(py, x ** y * np.log(x))
    ex = tf.test.compute_gradient_error(tx, [3], tf.atan2(tx, ty), [3], x_init_value=x)
    assert ex < 1e-6


# -- complex helpers -----------------------------------------------------------------------
def test_imag_of_a_real_tensor_is_zeros_and_real_conj_pass_through(sess):
    x = tf.placeholder(tf.float32, [2])
    assert tf.real(x) is x and tf.conj(x) is x
    out = tf.imag(x)
    assert out.dtype == tf.float32
    assert sess.run(out, {x: [1.5, -2.0]}).tolist() == [0.0, 0.0]
    assert sess.run(tf.imag(3.0)) == 0.0 and sess.run(tf.imag(2 + 5j)) == 5.0
    with pytest.raises(TypeError, match="Expected numeric or variant tensor"):
        tf.conj(tf.placeholder(tf.string))


# -- scans ---------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [tf.cumsum, tf.cumprod])
def test_scan_axis_errors_are_run_time_invalid_argument(sess, fn):
    x = tf.constant(np.arange(10.0).reshape(2, 5))
    for axis, words in ((-3, r"Expected scan axis in the range \[-2, 2\), but got -1"),
                        (2, r"Expected scan axis in the range \[-2, 2\), but got 2"),
                        ([0], "axis must be a scalar")):
        out = fn(x, axis)  # TF's shape function leaves the axis to the kernel
        with pytest.raises(tf.errors.InvalidArgumentError, match=words):
            sess.run(out)


@pytest.mark.parametrize("fn", [tf.cumsum, tf.cumprod])
def test_exclusive_scan_of_an_empty_axis_is_empty(sess, fn):
    for reverse in (False, True):
        out = sess.run(fn(np.zeros([0], np.float32), 0, exclusive=True, reverse=reverse))
        assert out.shape == (0,) and out.dtype == np.float32
    out = sess.run(fn(np.zeros([3, 0]), 1, exclusive=True))
    assert out.shape == (3, 0)


# -- segment reductions --------------------------------------------------------------------
def _run_error(sess, t, words):
    with pytest.raises(tf.errors.InvalidArgumentError, match=words):
        sess.run(t)


def test_sorted_segment_id_errors_follow_tf_order(sess):
    x = np.arange(16.0).reshape(4, 4)
    not_sorted = "possibly because 'segment_ids' input is not sorted"
    # only the last id decides "must be >= 0"; an earlier negative id is out of range
    _run_error(sess, tf.segment_sum(x, [-1, -1, 0, 0]), r"Segment id -1 out of range \[0, 1\)")
    _run_error(sess, tf.segment_sum(x, [0, 1, 2, 0]),
               r"Segment id 1 out of range \[0, 1\), " + not_sorted)
    _run_error(sess, tf.segment_sum(x, [0, 1, 0, 1]), "segment ids are not increasing")
    _run_error(sess, tf.segment_max(x, [0, 0, 0, -2]), "segment ids must be >= 0")
    _run_error(sess, tf.segment_sum(x, [0, 1]), "segment_ids should be the same size")
    # a hole is an empty segment (0; 1 for a product)
    got = sess.run(tf.segment_prod(x, [1, 1, 3, 3]))
    np.testing.assert_array_equal(got[[0, 2]], np.ones((2, 4)))
    np.testing.assert_array_equal(got[1], x[0] * x[1])


def test_unsorted_segment_out_of_range_names_the_multi_index(sess):
    _run_error(sess, tf.unsorted_segment_sum([[17]], [[2]], num_segments=2),
               r"segment_ids\[0,0\] = 2 is out of range \[0, 2\)")
    _run_error(sess, tf.unsorted_segment_sum([5, 6, 7], [0, 3, 1], num_segments=2),
               r"segment_ids\[1\] = 3 is out of range \[0, 2\)")


def test_sparse_segment_checks_segment_ids_like_tf(sess):
    data = tf.constant(np.arange(40.0).reshape(10, 4))
    for fn in (tf.sparse.segment_sum, tf.sparse.segment_mean, tf.sparse.segment_sqrt_n):
        _run_error(sess, fn(data, [8, 3, 0, 9], [-1, 0, 1, 1]),
                   r"Segment id -1 out of range \[0, 2\), possibly because")
        _run_error(sess, fn(data, [8, 3, 0, 9], [0, 1, 2, 0]), r"Segment id 1 out of range")
        _run_error(sess, fn(data, [8, 3, 0, 9], [0, 1, 0, 1]), "segment ids are not increasing")
        _run_error(sess, fn(data, [8, 3, 0, 9], [0, 0, 0, -1]), "segment ids must be >= 0")
        _run_error(sess, fn(data, [8, 3, 0, 9], [0, 1, 3, 5], num_segments=5),
                   "segment ids must be < num_segments")
        _run_error(sess, fn(data, [8, -1, 0, 9], [0, 1, 2, 2]),
                   r"indices\[1\] == -1 out of range \[0, 10\)")
        with pytest.raises(ValueError, match="Cannot specify a negative value for num_segments"):
            fn(data, [8, 3, 0, 9], [0, 1, 3, 3], num_segments=-2)
    got = sess.run(tf.sparse.segment_sum(data, [8, 3, 0, 9], [0, 2, 2, 2], num_segments=4))
    x = np.arange(40.0).reshape(10, 4)
    np.testing.assert_array_equal(got, [x[8], np.zeros(4), x[3] + x[0] + x[9], np.zeros(4)])


# -- math_ops odds and ends ----------------------------------------------------------------
def test_operator_converts_the_other_operand_with_a_dtype_hint(sess):
    # TF's binary operators use x's dtype as a hint: a float literal added to an int tensor
    # reaches the op, which names the mismatch
    with pytest.raises(TypeError, match="Input 'y' of 'Add(V2)?' Op has type float32 that does "
                                        "not match type int32 of argument 'x'"):
        tf.ones([1], dtype=tf.int32) + 1.0
    half = tf.ones([2], tf.float16) + 1.0
    assert half.dtype == tf.float16
    assert sess.run(half).tolist() == [2.0, 2.0]
    assert (tf.ones([2], tf.float32) * np.float64(3.0)).dtype == tf.float32


def test_scalar_mul_scales_indexed_slices_values(sess):
    values = tf.constant([2, 3, 5, 7, 0, -1], shape=[3, 2])
    out = tf.scalar_mul(-3, tf.IndexedSlices(values, tf.constant([0, 2, 5])))
    assert isinstance(out, tf.IndexedSlices)
    assert sess.run(out.values).tolist() == [[-6, -9], [-15, -21], [0, 3]]
    assert sess.run(out.indices).tolist() == [0, 2, 5]
    with pytest.raises(ValueError, match="Only scalar multiply works"):
        tf.scalar_mul(tf.constant([1, 2]), tf.constant(3))


def test_approximate_equal_op(sess):
    x = np.array([[-1.0, 2.00009999], [-3.0, 4.01]])
    y = np.array([[-1.001, 2.0], [-3.00009, 4.0]])
    out = math_ops.approximate_equal(x, y, tolerance=0.0001)
    assert out.op.type == "ApproximateEqual" and out.dtype == tf.bool
    np.testing.assert_array_equal(sess.run(out), np.abs(x - y) < 0.0001)
    assert not sess.run(math_ops.approximate_equal(np.float32(1), np.float32(1.00009)))
    assert sess.run(math_ops.approximate_equal(np.float32(1), np.float32(1.000009)))
    with pytest.raises(ValueError, match="Shapes must be equal rank, but are 1 and 2"):
        math_ops.approximate_equal(np.array([1.0, 2.0]), np.array([[1.0, 2.0]]))


# -- linear algebra ------------------------------------------------------------------------
def test_tensordot_with_unknown_ranks_and_fed_axes(sess):
    rng = np.random.RandomState(7)
    a, b = rng.randn(2, 3, 4), rng.randn(4, 3, 5)
    pa, pb = tf.placeholder(tf.float64), tf.placeholder(tf.float64)  # rank unknown
    for axes, np_axes in ((1, 1), ([[2], [0]], ([2], [0])), ([[1, 2], [1, 0]], ([1, 2], [1, 0])),
                          (0, 0)):
        out = sess.run(tf.tensordot(pa, pb, axes), {pa: a, pb: b})
        np.testing.assert_allclose(out, np.tensordot(a, b, np_axes))
    axes = tf.placeholder(tf.int32)  # a [2, k] tensor: a's axes, then b's
    out = tf.tensordot(a, b, axes)
    np.testing.assert_allclose(sess.run(out, {axes: [[1, 2], [1, 0]]}),
                               np.tensordot(a, b, ([1, 2], [1, 0])))
    with pytest.raises(ValueError, match="Different number of contraction axes 'a' and 'b', "
                                         "1 != 2"):
        tf.tensordot(a, b, [[1], [0, 1]])
    with pytest.raises(ValueError, match="'axes' must be an integer or have length 2"):
        tf.tensordot(a, b, [[0, 1]])


def test_triangular_solve_singular_and_empty_matrix_functions(sess):
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Input matrix is not invertible\."):
        sess.run(tf.matrix_triangular_solve(np.array([[0.0, 0.0], [1.0, 1.0]]), np.ones((2, 1))))
    assert sess.run(tf.linalg.expm(np.zeros((0, 0)))).shape == (0, 0)
    assert sess.run(tf.linalg.expm(np.zeros((3, 0, 0)))).shape == (3, 0, 0)
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        tf.linalg.expm(np.ones((2, 3)))
    with pytest.raises(ValueError, match="Shape must be at least rank 2 but is rank 1"):
        tf.linalg.logm(np.ones(3, np.complex64))


# -- counting and clipping -----------------------------------------------------------------
def test_bucketize_op(sess):
    from tideflow.python.ops import gen_math_ops

    x = np.array([-5, 0, 2, 3, 5, 8, 10, 11, 12])
    out = math_ops._bucketize(x, boundaries=[0, 3, 8, 11])
    assert out.op.type == "Bucketize" and out.dtype == tf.int32
    assert sess.run(out).tolist() == np.searchsorted([0, 3, 8, 11], x, side="right").tolist()
    assert sess.run(gen_math_ops.bucketize([[-1.0, 4.0]], boundaries=[])).tolist() == [[0, 0]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected sorted boundaries"):
        sess.run(math_ops._bucketize([1], boundaries=[0, 3, 2]))


def test_bincount_negative_input_error_uses_tf_words(sess):
    with pytest.raises(tf.errors.InvalidArgumentError, match="^Input arr must be non-negative!"):
        sess.run(tf.bincount([1, -1]))


def test_clip_by_value_keeps_indexed_slices(sess):
    grad = tf.IndexedSlices(tf.constant([[5.0, -5.0, 0.5]]), tf.constant([1]),
                            tf.constant([3, 3]))
    out = tf.clip_by_value(grad, -1.0, 1.0)
    assert isinstance(out, tf.IndexedSlices)
    assert sess.run(out.values).tolist() == [[1.0, -1.0, 0.5]]
    assert sess.run(out.indices).tolist() == [1]


def test_truediv_of_two_dtypes_is_a_type_error_and_count_nonzero_takes_input(sess):
    with pytest.raises(TypeError, match="x and y must have the same dtype"):
        tf.truediv(tf.constant([1]), tf.constant([1.0]))
    # a Python number still takes x's dtype, ints divide as float64 (int32) like TF
    out = tf.truediv(tf.constant([7, -7]), 2)
    assert out.dtype == tf.float64 and sess.run(out).tolist() == [3.5, -3.5]
    assert sess.run(tf.truediv(tf.constant([1.0], tf.float16), 4)).dtype == np.float16
    x = tf.constant([0.0, 1.0, 2.0, 0.0])
    assert sess.run(tf.count_nonzero(input=x)) == 2
    assert sess.run(tf.count_nonzero(x, dtype=tf.int32)) == 2


def test_sparse_segment_grad_ops_check_like_tf(sess):
    x = tf.constant(np.arange(12.0).reshape(3, 4))
    for fn in (math_ops.sparse_segment_mean_grad, math_ops.sparse_segment_sqrt_n_grad):
        out = sess.run(fn(x, [8, 3, 0, 9], [0, 1, 2, 2], 10))
        scale = np.array([1.0, 1.0, 2.0 if fn is math_ops.sparse_segment_mean_grad
                          else np.sqrt(2.0)])
        expected = np.zeros((10, 4))
        for i, s in zip([8, 3, 0, 9], [0, 1, 2, 2]):
            expected[i] += np.arange(12.0).reshape(3, 4)[s] / scale[s]
        np.testing.assert_allclose(out, expected)
        _run_error(sess, fn(x, [8, 3, -1, 9], [0, 1, 2, 2], 10),
                   r"Index -1 out of range \[0, 10\)")
        _run_error(sess, fn(x, [8, 3, 0, 9], [0, 1, 1, 4], 10), "Invalid number of segments")
        _run_error(sess, fn(x[:2], [8, 3, 0, 9], [-1, 0, 1, 1], 10),
                   r"Segment id -1 out of range \[0, 2\)")


def test_gradients_of_a_complex_tensor_need_grad_ys(sess):
    c = tf.constant([3 + 4j])
    with pytest.raises(TypeError, match=r"Gradients of complex tensors must set grad_ys "
                                        r"\(y.dtype = tf.complex128\)"):
        tf.gradients(c * 2, c)
    g = tf.gradients(c * 2, c, grad_ys=tf.constant([1 + 0j]))[0]
    assert sess.run(g).tolist() == [2 + 0j]
    # a real y of complex inputs needs none (|c| is real)
    assert np.allclose(sess.run(tf.gradients(tf.abs(c), c)[0]), [0.6 + 0.8j])


def test_einsum_equation_errors_at_graph_construction(sess):
    a = tf.constant(np.ones((2, 3)))  # (TF 1.15's einsum of an array: AttributeError first)
    with pytest.raises(ValueError, match='Got 1 arguments for equation "ij,jk->ik", expecting 2'):
        tf.einsum("ij,jk->ik", a)
    # TF 1.15's words (its einsum checks the labels it ends with against the output's)
    with pytest.raises(ValueError, match="Invalid equation: ij->k"):
        tf.einsum("ij->k", a)
    with pytest.raises(ValueError, match="Invalid equation: ij->iij"):
        tf.einsum("ij->iij", a)
    assert sess.run(tf.einsum("ij->", a)) == 6.0


def test_accumulate_n_builds_accumulate_nv2_with_the_merged_shape(sess):
    x = tf.placeholder(tf.float32, [None, 3])
    acc = tf.accumulate_n([x, x, x], shape=[None, 3])
    assert acc.op.type == "AccumulateNV2"
    assert acc.get_shape().as_list() == [None, 3]
    assert sess.run(acc, {x: np.ones((2, 3))}).tolist() == [[3.0] * 3] * 2
    one = tf.constant([1.0])
    assert tf.accumulate_n([one]) is one
    with pytest.raises(ValueError):
        tf.accumulate_n([tf.ones([2]), tf.ones([2, 1])])
    xs = [tf.constant(2.0), tf.constant(3.0)]
    assert sess.run(tf.gradients(tf.accumulate_n(xs) * 4.0, xs)) == [4.0, 4.0]


def test_operator_casts_numpy_operands_to_the_tensor_dtype(sess):
    # NumPy values convert with x's dtype (TF's NumPy conversion casts), Python floats do not
    out = tf.constant([1, 2]) * np.array([2.5, 1.0])
    assert out.dtype == tf.int32 and sess.run(out).tolist() == [2, 2]
    assert (tf.constant([1.0, 2.0]) * np.array([2.5, 1.0])).dtype == tf.float32
