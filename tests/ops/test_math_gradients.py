"""Gradients of the math, reduction and linear-algebra ops through ``gradients()``: broadcasting,
unknown shapes, second derivatives, aggregation, ties, sparse gradients and error cases."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.framework import op_registry, ops
from tideflow.framework.indexed_slices import IndexedSlices
from tideflow.ops.gradients import gradients, hessians


def run(fetches, feed=None):
    with tf.Session() as s:
        return s.run(fetches, feed)


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()


@pytest.fixture
def throwaway_op():
    """Declares test-only op types and removes them (and their gradients) afterwards."""
    declared = []

    def declare(name, grad=None):
        op_registry.declare(name, inputs=["x: T"], outputs=["y: T"], attrs=["T: type"],
                            shape=lambda op: [op._inputs[0]._shape], kernel=lambda x: x,
                            grad=grad)
        declared.append(name)
        return lambda x: ops.apply_op(name, [x])._outputs[0]

    yield declare
    for name in declared:
        op_registry._REGISTRY.pop(name, None)
        op_registry._GRADIENTS.pop(name, None)


# -- broadcasting -----------------------------------------------------------------------------


@pytest.mark.parametrize("sx, sy", [((2, 3), (3,)), ((2, 1), (1, 4)), ((3,), (2, 3)), ((), (2,))])
@pytest.mark.parametrize("known", [True, False])
def test_binary_gradients_are_reduced_to_input_shapes(sx, sy, known):
    rng = np.random.RandomState(1)
    xv, yv = rng.uniform(1, 2, sx), rng.uniform(1, 2, sy)
    x = tf.placeholder(tf.float64, sx if known else None)
    y = tf.placeholder(tf.float64, sy if known else None)
    # (not atan2: TF 1.15's _Atan2Grad sums no broadcast dimension back; tests of 7bb0c41e)
    outs = [x + y, x - y, x * y, x / y, tf.maximum(x, y), tf.squared_difference(x, y),
            tf.pow(x, y)]
    grads = [gradients(o, [x, y]) for o in outs]
    if known:
        for gx, gy in grads:
            assert gx.get_shape().as_list() == list(sx)
            assert gy.get_shape().as_list() == list(sy)
    got = run(grads, {x: xv, y: yv})
    bx, by = np.broadcast_arrays(xv, yv)
    ones = np.ones_like(bx)
    want = [(ones, ones), (ones, -ones), (by, bx), (1 / by, -bx / by ** 2),
            (bx >= by, bx < by), (2 * (bx - by), -2 * (bx - by)),
            (by * bx ** (by - 1), bx ** by * np.log(bx))]

    def reduce(g, shape):
        g = np.sum(g, axis=tuple(range(g.ndim - len(shape))))
        return np.sum(g, axis=tuple(i for i, d in enumerate(shape) if d == 1), keepdims=True)

    for (gx, gy), (wx, wy) in zip(got, want):
        np.testing.assert_allclose(gx, reduce(wx * 1.0, sx), rtol=1e-12)
        np.testing.assert_allclose(gy, reduce(wy * 1.0, sy), rtol=1e-12)
        assert np.shape(gx) == sx and np.shape(gy) == sy


@pytest.mark.parametrize("known", [True, False])
def test_reduction_gradients_with_unknown_shapes(known):
    v = np.array([[1.0, 3.0, 2.0], [4.0, 0.5, 4.0]])
    x = tf.placeholder(tf.float64, v.shape if known else None)
    outs = [tf.reduce_sum(x, 1), tf.reduce_mean(x, 0), tf.reduce_prod(x, 1),
            tf.reduce_max(x, 1), tf.reduce_min(x), tf.reduce_mean(x, 1, keepdims=True),
            tf.reduce_prod(x, [0, 1])]
    got = run([gradients(o, x)[0] for o in outs], {x: v})
    want = [np.ones_like(v), np.full_like(v, 0.5), np.prod(v, 1, keepdims=True) / v,
            [[0, 1, 0], [0.5, 0, 0.5]], [[0, 0, 0], [0, 1, 0]], np.full_like(v, 1 / 3),
            np.prod(v) / v]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)


# -- second derivatives -----------------------------------------------------------------------


def test_second_derivatives_through_tanh_sigmoid_and_mul():
    v = np.array([-1.2, 0.3, 2.0])
    x = tf.constant(v)
    t, s = np.tanh(v), 1 / (1 + np.exp(-v))
    cases = [(tf.tanh(x), -2 * t * (1 - t ** 2)), (tf.sigmoid(x), s * (1 - s) * (1 - 2 * s)),
             (x * x * x, 6 * v), (tf.exp(x) * tf.sin(x), 2 * np.exp(v) * np.cos(v)),
             (tf.sqrt(x * x + 1.0), (v * v + 1) ** -1.5)]
    for y, want in cases:
        g = gradients(y, x)[0]
        np.testing.assert_allclose(run(gradients(g, x)[0]), want, rtol=1e-12)


def test_hessians_of_a_quadratic_form():
    a = np.array([[2.0, 1.0, 0.0], [0.5, 3.0, -1.0], [0.0, 2.0, 1.0]])
    x = tf.constant([1.0, -2.0, 0.5], tf.float64)
    y = tf.reduce_sum(x * tf.einsum("ij,j->i", tf.constant(a), x))
    h = hessians(y, x)[0]
    assert h.get_shape().as_list() == [3, 3]
    np.testing.assert_allclose(run(h), a + a.T, rtol=1e-12)


# -- aggregation, ties, grad_ys, integers, sparse gradients -----------------------------------


def test_partial_gradients_of_a_tensor_used_three_times_are_added():
    x = tf.constant([0.5, 1.5])
    y = x * 3.0 + tf.sin(x) + tf.square(x)
    g = gradients(y, x)[0]
    assert any(op.type == "AddN" for op in tf.get_default_graph().get_operations())
    np.testing.assert_allclose(run(g), 3 + np.cos([0.5, 1.5]) + 2 * np.array([0.5, 1.5]),
                               rtol=1e-6)
    xs = [tf.constant(1.0), tf.constant(2.0), tf.constant(3.0)]
    np.testing.assert_allclose(run(gradients(tf.add_n(xs) * 2.0, xs)), [2.0, 2.0, 2.0])


def test_max_min_ties_share_the_gradient():
    x = tf.constant([[1.0, 3.0, 3.0, 2.0], [5.0, 5.0, 5.0, 5.0]])
    np.testing.assert_allclose(run(gradients(tf.reduce_max(x, 1), x)[0]),
                               [[0, 0.5, 0.5, 0], [0.25] * 4])
    np.testing.assert_allclose(run(gradients(tf.reduce_min(x), x)[0]),
                               [[1, 0, 0, 0], [0] * 4])
    # elementwise ties go to x (Maximum: x >= y; Minimum: x <= y)
    a, b = tf.constant([1.0, 2.0]), tf.constant([1.0, 3.0])
    assert run(gradients(tf.maximum(a, b), [a, b]))[0].tolist() == [1.0, 0.0]
    assert run(gradients(tf.minimum(a, b), [a, b]))[1].tolist() == [0.0, 0.0]


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_matmul_gradients_for_every_transpose_combination(ta, tb):
    rng = np.random.RandomState(2)
    av, bv = rng.randn(2, 3), rng.randn(3, 4)
    av, bv = (av.T if ta else av), (bv.T if tb else bv)
    a, b = tf.constant(av), tf.constant(bv)
    w = rng.randn(2, 4)
    y = tf.matmul(a, b, transpose_a=ta, transpose_b=tb)
    ga, gb = run(gradients(y, [a, b], grad_ys=tf.constant(w)))
    ma, mb = (av.T if ta else av), (bv.T if tb else bv)
    want_a, want_b = w @ mb.T, ma.T @ w
    np.testing.assert_allclose(ga, want_a.T if ta else want_a, rtol=1e-12)
    np.testing.assert_allclose(gb, want_b.T if tb else want_b, rtol=1e-12)


def test_grad_ys_scale_the_gradients():
    x = tf.constant([1.0, 2.0], tf.float64)
    y = tf.exp(x)
    g = gradients(y, x, grad_ys=tf.constant([3.0, -0.5], tf.float64))[0]
    np.testing.assert_allclose(run(g), [3 * np.e, -0.5 * np.e ** 2], rtol=1e-12)


def test_integer_inputs_get_none():
    i = tf.constant([1, 2])
    f = tf.constant([0.5, 0.25])
    y = tf.cast(i, tf.float32) * f + tf.cast(tf.reduce_sum(i * i), tf.float32)
    gi, gf = gradients(y, [i, f])
    assert gi is None
    np.testing.assert_allclose(run(gf), [1.0, 2.0])
    n = tf.constant(2)
    assert gradients(tf.square(f) * tf.cast(n, tf.float32), n) == [None]


def test_stop_gradient_blocks_the_gradient():
    x = tf.constant([2.0, 3.0])
    g = gradients(x * tf.stop_gradient(x), x)[0]
    np.testing.assert_allclose(run(g), [2.0, 3.0])


def test_an_op_without_a_gradient_entry_raises(throwaway_op):
    opaque = throwaway_op("TideflowTestNoGradient")
    x = tf.constant([1.0, 2.0])
    with pytest.raises(LookupError, match="No gradient defined for operation"):
        gradients(tf.exp(opaque(x)), x)
    assert "TideflowTestNoGradient" in op_registry._REGISTRY


def _to_slices(op, grad):
    from tideflow.ops import range_ops

    rows = tf.shape(grad)[0]
    return IndexedSlices(grad, range_ops.range(rows), tf.shape(grad))


def test_indexed_slices_gradients_flow_into_math_ops(throwaway_op):
    sparse = throwaway_op("TideflowTestSparseGrad", grad=_to_slices)
    v = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
    x = tf.constant(v)
    outs = [tf.reduce_sum(x, 1, keepdims=True), x + x, x * 2.0, tf.tanh(x), -x, tf.square(x),
            tf.reduce_mean(x, 0, keepdims=True), tf.maximum(x, 1.0),
            tf.matmul(x, tf.constant(np.ones((3, 3))))]
    grads = [gradients(sparse(o), x)[0] for o in outs]
    got = run([g if not isinstance(g, IndexedSlices) else tf.convert_to_tensor(g)
               for g in grads])
    t = np.tanh(v)
    want = [np.ones_like(v), 2 * np.ones_like(v), 2 * np.ones_like(v), 1 - t * t,
            -np.ones_like(v), 2 * v, np.full_like(v, 0.5), (v >= 1) * 1.0,
            np.full_like(v, 3.0)]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)


# -- particular gradients ---------------------------------------------------------------------


def test_prod_gradient_with_zeros():
    x = tf.constant([[0.0, 2.0, 3.0], [0.0, 0.0, 4.0], [1.0, 2.0, 3.0]], tf.float64)
    g = gradients(tf.reduce_prod(x, 1), x)[0]
    np.testing.assert_allclose(run(g), [[6, 0, 0], [0, 0, 0], [6, 3, 2]])


def test_pow_gradient_at_zero_base():
    x = tf.constant([0.0, 2.0, -1.0], tf.float64)
    y = tf.constant([2.0, 3.0, 2.0], tf.float64)
    gx, gy = run(gradients(tf.pow(x, y), [x, y]))
    np.testing.assert_allclose(gx, [0.0, 12.0, -2.0])
    np.testing.assert_allclose(gy, [0.0, 8 * np.log(2.0), 0.0])


def test_einsum_gradients_for_diagonals_sums_and_broadcast_batches():
    # the Einsum op's gradient (tf.einsum builds TF 1.15's MatMul/transpose composition)
    from tideflow.python.ops import gen_linalg_ops

    def einsum(eq, *xs):
        return gen_linalg_ops.einsum(list(xs), eq)

    rng = np.random.RandomState(3)
    m, a, b = rng.randn(3, 3), rng.randn(1, 2, 3), rng.randn(4, 3, 2)
    tm, ta, tb = tf.constant(m), tf.constant(a), tf.constant(b)
    assert np.allclose(run(gradients(tf.einsum("ii", tm), tm)[0]), np.eye(3))
    assert np.allclose(run(gradients(einsum("ii->i", tm), tm)[0]), np.eye(3))
    assert np.allclose(run(gradients(tf.einsum("ij->", tm), tm)[0]), np.ones((3, 3)))
    ga, gb = run(gradients(einsum("...ij,...jk->...ik", ta, tb), [ta, tb]))
    assert ga.shape == a.shape and gb.shape == b.shape
    np.testing.assert_allclose(ga, (np.ones((4, 2, 2)) @ np.swapaxes(b, -1, -2))
                               .sum(0, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(gb, np.swapaxes(np.broadcast_to(a, (4, 2, 3)), -1, -2)
                               @ np.ones((4, 2, 2)), rtol=1e-12)


def test_segment_gradients_drop_negative_ids():
    data = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], tf.float64)
    ids = tf.constant([1, -1, 1])
    g = gradients(tf.unsorted_segment_sum(data, ids, 2) * tf.constant([[1.0], [2.0]],
                                                                      tf.float64), data)[0]
    np.testing.assert_allclose(run(g), [[2, 2], [0, 0], [2, 2]])
    g = gradients(tf.unsorted_segment_max(data, ids, 2), data)[0]
    np.testing.assert_allclose(run(g), [[0, 0], [0, 0], [1, 1]])


def test_linalg_gradients_match_closed_forms():
    rng = np.random.RandomState(4)
    av = rng.randn(3, 3) + 3 * np.eye(3)
    a = tf.constant(av)
    inv = np.linalg.inv(av)
    g_det, g_inv = run([gradients(tf.matrix_determinant(a), a)[0],
                        gradients(tf.matrix_inverse(a), a)[0]])
    np.testing.assert_allclose(g_det, np.linalg.det(av) * inv.T, rtol=1e-10)
    ones = np.ones((3, 3))
    np.testing.assert_allclose(g_inv, -inv.T @ ones @ inv.T, rtol=1e-10)


@pytest.mark.parametrize("known", [True, False])
def test_batch_matmul_gradients_sum_over_broadcast_batch_dims(known):
    rng = np.random.RandomState(5)
    av, bv = rng.randn(2, 1, 2, 3), rng.randn(3, 3, 4)
    a = tf.placeholder(tf.float64, av.shape if known else None)
    b = tf.placeholder(tf.float64, bv.shape if known else None)
    ga, gb = run(gradients(tf.matmul(a, b), [a, b]), {a: av, b: bv})
    ones = np.ones((2, 3, 2, 4))
    np.testing.assert_allclose(ga, (ones @ np.swapaxes(bv, -1, -2)).sum(1, keepdims=True),
                               rtol=1e-12)
    np.testing.assert_allclose(gb, (np.swapaxes(av, -1, -2) @ ones).sum(0), rtol=1e-12)
