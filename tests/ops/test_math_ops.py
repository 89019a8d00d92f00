"""Math, reduction and linear-algebra wrappers: TF 1.x semantics, operators, errors, shapes."""

import math

import numpy as np
import pytest

import tideflow as tf


def run(fetches, feed=None):
    with tf.Session() as s:
        return s.run(fetches, feed)


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()


# -- operators --------------------------------------------------------------------------------


def test_arithmetic_operators_and_python_scalars():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    got = run([x + 1, 1 + x, x - 1, 10 - x, x * 2, 2 * x, x / 2, 2 / x, x // 3, 7 // x, x % 3,
               7 % x, x ** 2, 2 ** x, -x, abs(-x), x @ x, np.eye(2, dtype=np.float32) @ x])
    v = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    want = [v + 1, 1 + v, v - 1, 10 - v, v * 2, 2 * v, v / 2, 2 / v, v // 3, 7 // v, v % 3,
            7 % v, v ** 2, 2 ** v, -v, v, v @ v, v]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)
        assert g.dtype == np.float32


def test_python_scalars_adopt_the_tensor_dtype():
    h = tf.constant([1.0, 2.0], tf.float16)
    assert (h * 2).dtype == tf.float16
    assert (3 - h).dtype == tf.float16
    i = tf.constant([1, 2], tf.int64)
    assert (i + 1).dtype == tf.int64
    with pytest.raises(TypeError):
        tf.constant([1, 2]) + 1.5


def test_mixed_tensor_dtypes_raise_type_error():
    with pytest.raises(TypeError, match="does not match"):
        tf.constant([1, 2]) + tf.constant([1.0, 2.0])


def test_truediv_casts_integers_like_tf():
    a = tf.constant([7, -7], tf.int32)
    b = tf.constant([2, 2], tf.int32)
    q = a / b
    assert q.dtype == tf.float64
    assert run(q).tolist() == [3.5, -3.5]
    assert (tf.constant([1], tf.int8) / tf.constant([4], tf.int8)).dtype == tf.float32
    assert tf.divide(a, b).dtype == tf.float64
    assert tf.truediv(tf.constant(1, tf.int16), 2).dtype == tf.float32


def test_integer_division_flavours():
    a = tf.constant([7, -7, 7, -7])
    b = tf.constant([2, 2, -2, -2])
    got = run([a // b, a % b, tf.div(a, b), tf.floordiv(a, b), tf.truncatediv(a, b),
               tf.truncatemod(a, b), tf.floormod(a, b), tf.mod(a, b)])
    assert got[0].tolist() == [3, -4, -4, 3]
    assert got[1].tolist() == [1, 1, -1, -1]
    assert got[2].tolist() == [3, -4, -4, 3]
    assert got[3].tolist() == [3, -4, -4, 3]
    assert got[4].tolist() == [3, -3, -3, 3]
    assert got[5].tolist() == [1, -1, 1, -1]
    assert got[6].tolist() == got[7].tolist() == [1, 1, -1, -1]
    # TF 1.15 has CPU RealDiv kernels for float/complex types only; an int32 one runs on its
    # XLA_CPU device, truncating
    assert run(tf.realdiv(a, b)).tolist() == [3, -3, -3, 3]
    assert all(g.dtype == np.int32 for g in got)
    assert tf.div(tf.constant(7.0), 2.0).op.type == "RealDiv"


def test_integer_division_by_zero_is_an_invalid_argument():
    a = tf.constant([1, 2])
    z = tf.placeholder(tf.int32, [2])
    for t in (a // z, a % z):
        with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
            run(t, {z: [1, 0]})
    for t in (tf.truncatediv(a, z), tf.truncatemod(a, z)):  # TF 1.15's InternalError for these
        with pytest.raises(tf.errors.InternalError, match="Unexpected error in binary operator"):
            run(t, {z: [1, 0]})
    # floats divide by zero to inf, as in TF
    with np.errstate(divide="ignore"):
        assert run(tf.constant(1.0) / tf.constant(0.0)) == np.inf


def test_logical_and_comparison_operators():
    p = tf.constant([True, True, False, False])
    q = tf.constant([True, False, True, False])
    got = run([p & q, p | q, p ^ q, ~p, True & q, False | q])
    assert got[0].tolist() == [True, False, False, False]
    assert got[1].tolist() == [True, True, True, False]
    assert got[2].tolist() == [False, True, True, False]
    assert got[3].tolist() == [False, False, True, True]
    assert got[4].tolist() == got[5].tolist() == [True, False, True, False]
    x = tf.constant([1, 2, 3])
    got = run([x < 2, x <= 2, x > 2, x >= 2])
    assert [g.tolist() for g in got] == [[True, False, False], [True, True, False],
                                         [False, False, True], [False, True, True]]
    assert all(g.dtype == np.bool_ for g in got)


def test_equality_operators_stay_identity():
    x = tf.constant(1)
    y = tf.constant(1)
    same = x
    assert x == same
    assert (x == y) is False and (x != y) is True
    assert len({x, y}) == 2


def test_operator_op_names():
    x = tf.constant(1.0, name="x")
    assert (x + x).op.name == "add"
    assert (x * x).op.name == "mul"
    assert (x - x).op.name == "sub"
    assert (x / x).op.name == "truediv"
    assert (x < 2.0).op.type == "Less"
    assert (-x).op.type == "Neg"


# -- elementwise semantics --------------------------------------------------------------------


def test_round_is_bankers_rounding_and_integers_pass_through():
    x = tf.constant([0.5, 1.5, 2.5, -0.5, -1.5, 2.6])
    assert run(tf.round(x)).tolist() == [0.0, 2.0, 2.0, -0.0, -2.0, 3.0]
    i = tf.constant([1, 2])
    assert tf.round(i) is i


def test_pow_of_integers():
    assert run(tf.pow(tf.constant([2, 3]), tf.constant([10, 3]))).tolist() == [1024, 27]
    with pytest.raises(tf.errors.InvalidArgumentError, match="negative integer powers"):
        run(tf.pow(tf.constant([2]), tf.placeholder_with_default([-1], [1])))


def test_sigmoid_is_stable_and_log_sigmoid():
    x = tf.constant([-1000.0, -20.0, 0.0, 20.0, 1000.0], tf.float64)
    s, ls = run([tf.sigmoid(x), tf.log_sigmoid(x)])
    ref = np.array([0.0, 1 / (1 + math.exp(20)), 0.5, 1 / (1 + math.exp(-20)), 1.0])
    np.testing.assert_allclose(s, ref, rtol=1e-14)
    # TF 1.15's softplus is log(exp(x) + 1) between its thresholds (printed by TF 1.15:
    # log_sigmoid(20.) = -2.0611536900435727e-09, where log1p gives -2.061153620314381e-09)
    np.testing.assert_allclose(ls[1:4], [-20.000000002061153, -0.6931471805599453,
                                         -2.0611536900435727e-09], rtol=1e-15)
    assert ls[0] == -1000.0 and ls[-1] == 0.0


def test_special_functions_against_math():
    xs = np.concatenate([np.linspace(-7.3, 9.1, 301), [1e-8, 0.5, 1.0, 2.0, 30.0, 150.0]])
    x = tf.constant(xs, tf.float64)
    erf, erfc, lgamma = run([tf.erf(x), tf.erfc(x), tf.lgamma(x)])
    np.testing.assert_allclose(erf, [math.erf(v) for v in xs], rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(erfc, [math.erfc(v) for v in xs], rtol=1e-11, atol=1e-300)
    np.testing.assert_allclose(lgamma, [math.lgamma(v) for v in xs], rtol=1e-12, atol=1e-13)
    # digamma: psi(1) = -euler_gamma, psi(x + 1) = psi(x) + 1/x, and the reflection formula
    d = run(tf.digamma(tf.constant([1.0, 0.5, 3.7, 4.7, -2.3, 3.3], tf.float64)))
    np.testing.assert_allclose(d[0], -0.5772156649015329, rtol=1e-13)
    np.testing.assert_allclose(d[1], -0.5772156649015329 - 2 * math.log(2), rtol=1e-13)
    np.testing.assert_allclose(d[3], d[2] + 1 / 3.7, rtol=1e-13)
    np.testing.assert_allclose(d[4], d[5] - math.pi / math.tan(math.pi * -2.3), rtol=1e-12)
    poles = run(tf.lgamma(tf.constant([0.0, -1.0, -2.0])))
    assert np.all(np.isposinf(poles))


def test_complex_helpers():
    re = tf.constant([3.0, -1.0])
    im = tf.constant([4.0, 0.0])
    z = tf.complex(re, im)
    assert z.dtype == tf.complex64
    assert tf.complex(tf.constant(1.0, tf.float64), tf.constant(2.0, tf.float64)).dtype == \
        tf.complex128
    a = tf.abs(z)
    assert a.dtype == tf.float32 and a.op.type == "ComplexAbs"
    got = run([z, a, tf.real(z), tf.imag(z), tf.conj(z), tf.angle(z), tf.angle(re)])
    assert got[0].tolist() == [3 + 4j, -1 + 0j]
    assert got[1].tolist() == [5.0, 1.0]
    assert got[4].tolist() == [3 - 4j, -1 - 0j]
    np.testing.assert_allclose(got[5], [math.atan2(4, 3), math.pi], rtol=1e-6)
    assert got[6].tolist() == [0.0, 0.0]  # TF 1.15: zeros for a real tensor
    assert tf.real(re) is re and tf.conj(re) is re
    with pytest.raises(TypeError):
        tf.complex(re, tf.constant([1.0], tf.float64))


def test_equal_on_strings_and_incompatible_shapes():
    s = tf.constant(["a", "b"])
    assert run(tf.equal(s, "a")).tolist() == [True, False]
    assert run(tf.not_equal(s, tf.constant(["a", "c"]))).tolist() == [False, True]
    from tideflow.framework import ops

    e = ops.apply_op("Equal", [tf.constant([1, 2]), tf.constant([1, 2, 3])],
                     {"incompatible_shape_error": False})._outputs[0]
    assert run(e) is not None and not run(e)
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tf.equal(tf.constant([1, 2]), tf.constant([1, 2, 3]))


def test_broadcast_shape_errors_at_graph_construction():
    with pytest.raises(ValueError, match=r"Dimensions must be equal, but are 2 and 3"):
        tf.add(tf.constant(np.zeros((4, 2))), tf.constant(np.zeros(3)))


def test_add_n_and_clip_by_value():
    a = tf.constant([1.0, 2.0])
    assert tf.add_n([a]) is a
    assert run(tf.add_n([a, a, a])).tolist() == [3.0, 6.0]
    with pytest.raises(ValueError):
        tf.add_n([a, tf.constant([1.0, 2.0, 3.0])])
    with pytest.raises(ValueError):
        tf.add_n([])
    t = tf.constant([[-3.0, 0.5, 4.0], [1.0, -0.5, 9.0]])
    assert run(tf.clip_by_value(t, -1.0, 2.0)).tolist() == [[-1.0, 0.5, 2.0], [1.0, -0.5, 2.0]]
    lo = tf.constant([0.0, 0.0, 5.0])  # broadcasting bounds take TF's min/max composition
    assert run(tf.clip_by_value(t, lo, 6.0)).tolist() == [[0.0, 0.5, 5.0], [1.0, 0.0, 6.0]]
    assert tf.clip_by_value(t, lo, 6.0).get_shape().as_list() == [2, 3]


def test_scalar_mul():
    x = tf.constant([1.0, 2.0])
    assert run(tf.scalar_mul(3, x)).tolist() == [3.0, 6.0]
    with pytest.raises(ValueError, match="Only scalar multiply works"):
        tf.scalar_mul([1.0, 2.0], x)


def test_zero_point_eight_names():
    x = tf.constant([4.0, 9.0])
    y = tf.constant([2.0, 3.0])
    got = run([tf.mul(x, y), tf.sub(x, y), tf.neg(x), tf.div(x, y), tf.inv(y)])
    want = [[8.0, 27.0], [2.0, 6.0], [-4.0, -9.0], [2.0, 3.0], [0.5, 1 / 3.0]]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


# -- reductions -------------------------------------------------------------------------------


def test_reduction_arguments():
    x = tf.constant([[1, 2, 3], [4, 5, 6]])
    assert run(tf.reduce_sum(x)) == 21
    assert tf.reduce_sum(x).get_shape().as_list() == []
    assert run(tf.reduce_sum(x, 0)).tolist() == [5, 7, 9]
    assert run(tf.reduce_sum(x, reduction_indices=[1])).tolist() == [6, 15]
    k = tf.reduce_sum(x, 1, keep_dims=True)
    assert k.get_shape().as_list() == [2, 1] and run(k).tolist() == [[6], [15]]
    assert tf.reduce_max(x, [0, 1], keepdims=True).get_shape().as_list() == [1, 1]
    with pytest.raises(ValueError, match="Cannot specify both 'reduction_indices' and 'axis'"):
        tf.reduce_sum(x, 0, reduction_indices=0)
    with pytest.raises(ValueError, match="Cannot specify both 'keep_dims' and 'keepdims'"):
        tf.reduce_sum(x, 0, keepdims=True, keep_dims=True)
    with pytest.raises(ValueError, match="Invalid reduction dimension 2"):
        tf.reduce_sum(x, 2)
    with pytest.raises(TypeError):
        tf.reduce_sum(tf.constant([True]))


def test_reductions_with_unknown_shapes():
    p = tf.placeholder(tf.float32, [None, 3])
    assert tf.reduce_sum(p, 1).get_shape().as_list() == [None]
    assert tf.reduce_sum(p).get_shape().as_list() == []
    axis = tf.placeholder(tf.int32)
    assert tf.reduce_sum(p, axis, keepdims=True).get_shape().as_list() == [None, None]
    assert tf.reduce_sum(p, axis).get_shape().ndims is None
    u = tf.placeholder(tf.float32)
    total = tf.reduce_sum(u)
    assert total.get_shape().as_list() == []  # TF: a full reduction is a scalar at any rank
    assert tf.reduce_sum(u, keepdims=True).get_shape().ndims is None
    assert run(total, {u: np.ones((2, 3, 4))}) == 24.0
    assert run(tf.reduce_mean(p, axis), {p: np.ones((2, 3)), axis: [0, 1]}) == 1.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid reduction dimension"):
        run(tf.reduce_sum(p, axis), {p: np.ones((2, 3)), axis: 5})


def test_integer_mean_truncates_and_small_int_sums_keep_their_type():
    assert run(tf.reduce_mean(tf.constant([1, 2]))) == 1
    assert run(tf.reduce_mean(tf.constant([-1, -2]))) == -1
    s = run(tf.reduce_sum(tf.constant([100, 100], tf.int8)))
    assert s.dtype == np.int8 and s == np.int8(-56)  # wraps like TF's int8 accumulator
    # TF 1.15 adds halves in half (eight lanes of 512 additions each): 0.09600830078125
    h = run(tf.reduce_mean(tf.constant(np.full(4096, 0.1), tf.float16)))
    assert h.dtype == np.float16 and float(h) == 0.09600830078125


def test_empty_max_is_the_lowest_value():
    e = tf.placeholder(tf.float32, [None])
    assert run(tf.reduce_max(e), {e: np.zeros(0)}) == -np.inf
    assert run(tf.reduce_min(tf.placeholder_with_default(np.zeros((0,), np.int32), [None]))) \
        == np.iinfo(np.int32).max


def test_reduce_logsumexp_and_count_nonzero():
    x = tf.constant([[0.0, 1000.0, 1000.0], [-np.inf, -np.inf, -np.inf]], tf.float64)
    got = run([tf.reduce_logsumexp(x, 1), tf.reduce_logsumexp(x, 1, keepdims=True)])
    np.testing.assert_allclose(got[0], [1000.0 + math.log(2.0), -np.inf])
    assert got[1].shape == (2, 1)
    y = tf.constant([[0, 1, 2], [0, 0, 3]])
    c = tf.count_nonzero(y, axis=1)
    assert c.dtype == tf.int64 and run(c).tolist() == [2, 1]
    assert run(tf.count_nonzero(y)) == 3


def test_argmax_argmin():
    x = tf.constant([[3, 1, 4], [1, 5, 9]])
    a = tf.argmax(x, 1)
    assert a.dtype == tf.int64 and a.get_shape().as_list() == [2]
    assert run(a).tolist() == [2, 2]
    assert run(tf.argmax(x)).tolist() == [0, 1, 1]
    assert run(tf.argmin(x, dimension=1)).tolist() == [1, 0]
    assert tf.argmin(x, 0, output_type=tf.int32).dtype == tf.int32
    assert run(tf.arg_max(x, 1)).tolist() == [2, 2]
    with pytest.raises(ValueError, match="Cannot specify both 'dimension' and 'axis'"):
        tf.argmax(x, 0, dimension=0)
    with pytest.raises(ValueError, match="must be in the range"):
        tf.argmax(x, 2)


def test_cumsum_cumprod():
    x = tf.constant([1, 2, 3, 4])
    got = run([tf.cumsum(x), tf.cumsum(x, exclusive=True), tf.cumsum(x, reverse=True),
               tf.cumsum(x, exclusive=True, reverse=True), tf.cumprod(x),
               tf.cumprod(x, exclusive=True)])
    assert [g.tolist() for g in got] == [[1, 3, 6, 10], [0, 1, 3, 6], [10, 9, 7, 4],
                                         [9, 7, 4, 0], [1, 2, 6, 24], [1, 1, 2, 6]]


def test_segment_ops():
    data = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    s = tf.segment_sum(data, tf.constant([0, 0, 2]))
    assert s.get_shape().as_list() == [None, 2]
    assert run(s).tolist() == [[4.0, 6.0], [0.0, 0.0], [5.0, 6.0]]
    assert run(tf.segment_max(data, [0, 0, 2])).tolist() == [[3.0, 4.0], [0.0, 0.0],
                                                              [5.0, 6.0]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="not increasing"):
        run(tf.segment_sum(data, [1, 0, 0]))
    u = tf.unsorted_segment_sum(data, [2, -1, 2], 3)
    assert u.get_shape().as_list() == [3, 2]
    assert run(u).tolist() == [[0.0, 0.0], [0.0, 0.0], [6.0, 8.0]]
    m = run(tf.unsorted_segment_max(data, [1, 1, 1], 2))
    assert m[0].tolist() == [np.finfo(np.float32).min] * 2 and m[1].tolist() == [5.0, 6.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
        run(tf.unsorted_segment_sum(data, [0, 3, 1], 3))
    # ids of rank 2 select rows of rank-3 data
    d3 = tf.constant(np.arange(12.0).reshape(2, 2, 3))
    u2 = tf.unsorted_segment_sum(d3, [[0, 1], [1, 1]], 2)
    assert u2.get_shape().as_list() == [2, 3]
    assert run(u2).tolist() == [[0.0, 1.0, 2.0], [3.0 + 6 + 9, 4.0 + 7 + 10, 5.0 + 8 + 11]]


# -- matrix products and linear algebra -------------------------------------------------------


def test_matmul_shapes_and_errors():
    a = tf.placeholder(tf.float32, [2, 3])
    b = tf.placeholder(tf.float32, [3, 4])
    assert tf.matmul(a, b).get_shape().as_list() == [2, 4]
    assert tf.matmul(a, b).op.type == "MatMul"
    assert tf.matmul(b, a, transpose_a=True, transpose_b=True).get_shape().as_list() == [4, 2]
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
        tf.matmul(a, a)
    with pytest.raises(ValueError, match="Only one of transpose_a and adjoint_a"):
        tf.matmul(a, b, transpose_a=True, adjoint_a=True)
    p = tf.placeholder(tf.float32, [None, None])
    q = tf.placeholder(tf.float32, [None, None])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Matrix size-incompatible: In\[0\]: \[2,3\], In\[1\]: \[4,5\]"):
        run(tf.matmul(p, q), {p: np.ones((2, 3)), q: np.ones((4, 5))})


def test_batch_matmul_broadcasts_and_static_shapes():
    x = tf.placeholder(tf.float32, [5, 1, 2, 3])
    y = tf.placeholder(tf.float32, [4, 3, 7])
    z = tf.matmul(x, y)
    assert z.op.type == "BatchMatMulV2"
    assert z.get_shape().as_list() == [5, 4, 2, 7]
    u = tf.matmul(tf.placeholder(tf.float32), tf.placeholder(tf.float32))
    assert u.op.type == "BatchMatMulV2" and u.get_shape().ndims is None
    v = tf.batch_matmul(tf.placeholder(tf.float32, [None, 2, 3]),
                        tf.placeholder(tf.float32, [6, 3, 4]))
    assert v.op.type == "BatchMatMul" and v.get_shape().as_list() == [6, 2, 4]
    with pytest.raises(ValueError):
        tf.batch_matmul(tf.placeholder(tf.float32, [5, 2, 3]),
                        tf.placeholder(tf.float32, [6, 3, 4]))


def test_einsum_and_tensordot():
    a = tf.placeholder(tf.float32, [2, 3, 4])
    b = tf.placeholder(tf.float32, [4, 5])
    assert tf.einsum("bij,jk->bik", a, b).get_shape().as_list() == [2, 3, 5]
    assert tf.einsum("...j,jk->...k", a, b).get_shape().as_list() == [2, 3, 5]
    assert tf.einsum("bij->", a).get_shape().as_list() == []
    assert tf.einsum("ij,jk", tf.placeholder(tf.float32, [None, 4]), b).get_shape().as_list() \
        == [None, 5]
    with pytest.raises(ValueError):
        tf.einsum("ij,jk->ik", a, b)
    with pytest.raises(TypeError, match="invalid keyword"):
        tf.einsum("ij->ji", b, foo=1)
    t = tf.tensordot(a, b, axes=1)
    assert t.get_shape().as_list() == [2, 3, 5]
    av = np.random.RandomState(0).rand(2, 3, 4).astype(np.float32)
    bv = np.random.RandomState(1).rand(4, 5).astype(np.float32)
    got = run([t, tf.tensordot(a, b, [[2], [0]]), tf.linalg.einsum("bij,jk->bik", a, b)],
              {a: av, b: bv})
    for g in got:
        np.testing.assert_allclose(g, np.tensordot(av, bv, 1), rtol=1e-5)


def test_linalg_ops_and_namespace():
    m = np.array([[4.0, 1.0], [1.0, 3.0]])
    x = tf.constant(m)
    inv, det, chol, sol = run([tf.linalg.inv(x), tf.linalg.det(x), tf.linalg.cholesky(x),
                               tf.linalg.solve(x, tf.constant([[1.0], [2.0]], tf.float64))])
    np.testing.assert_allclose(inv, np.linalg.inv(m))
    np.testing.assert_allclose(det, 11.0)
    np.testing.assert_allclose(chol, np.linalg.cholesky(m))
    np.testing.assert_allclose(sol, np.linalg.solve(m, [[1.0], [2.0]]))
    assert tf.matrix_determinant(tf.placeholder(tf.float32, [7, 3, 3])).get_shape().as_list() \
        == [7]
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tf.matrix_inverse(tf.placeholder(tf.float32, [2, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="not invertible"):
        run(tf.matrix_inverse(tf.constant([[1.0, 2.0], [2.0, 4.0]])))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cholesky decomposition"):
        run(tf.cholesky(tf.constant([[1.0, 2.0], [2.0, 1.0]])))
    assert run(tf.linalg.matmul(x, x)).tolist() == (m @ m).tolist()


def test_floor_div_of_single_values_matches_numpy():
    # the size-1 fast path (a gradient's shape arithmetic) against NumPy's floor division
    from tideflow.ops import math_ops

    for dt in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32):
        info = np.iinfo(dt)
        vals = [v for v in (0, 1, 2, 3, 7, -1, -2, -7, info.max // 2, info.min // 2 + 1)
                if info.min <= v <= info.max]
        for a in vals:
            for b in vals:
                if b == 0:
                    continue
                for sa, sb in (((), ()), ((1,), ()), ((1, 1), (1,))):
                    x, y = np.full(sa, a, dt), np.full(sb, b, dt)
                    got = math_ops._floor_div(x, y)
                    want = np.floor_divide(x, y)
                    assert type(got) is type(want) and got.dtype == want.dtype
                    assert np.shape(got) == np.shape(want) and np.array_equal(got, want)
    with pytest.raises(tf.errors.InvalidArgumentError, match="division by zero"):
        math_ops._floor_div(np.array(3, np.int32), np.array(0, np.int32))
    # beyond half the type's range: TF's wrapping cross-sign rule, as for larger arrays
    big = np.array(-2 ** 31, np.int32)
    assert math_ops._floor_div(big, np.array(3, np.int32)) == \
        math_ops._floor_div(np.full(4, -2 ** 31, np.int32), np.full(4, 3, np.int32))[0]
