"""Sparse ops against dense NumPy computations, their errors, gradients and namespaces."""

import numpy as np
import pytest

import tideflow as tf
from tideflow import sparse
from tideflow.ops import sparse_ops as so
from tideflow.ops import sparse_rows_ops as sr
from tideflow.ops.gradients import gradients


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def _random_sparse(rng, shape, density=0.4, dtype=np.float64):
    dense = rng.uniform(-2, 2, shape).astype(dtype)
    dense[rng.uniform(size=shape) > density] = 0
    idx = np.argwhere(dense != 0).astype(np.int64)
    return tf.SparseTensorValue(idx, dense[tuple(idx.T)], np.array(shape, np.int64)), dense


def test_to_dense_and_validation():
    sp = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [2, 3])
    assert _run(so.sparse_tensor_to_dense(sp, default_value=-1.0)).tolist() == [
        [1, -1, -1], [-1, -1, 2]]
    assert so.sparse_tensor_to_dense(sp).get_shape().as_list() == [2, 3]
    p = sr.sparse_placeholder(tf.float32)
    dense = so.sparse_tensor_to_dense(p)
    bad = {"out of order": [[1, 0], [0, 1]], "is repeated": [[0, 1], [0, 1]],
           "out of bounds": [[0, 1], [2, 0]]}
    for msg, idx in bad.items():
        with pytest.raises(tf.errors.InvalidArgumentError, match=msg):
            _run(dense, {p: tf.SparseTensorValue(idx, [1.0, 2.0], [2, 2])})
    unordered = so.sparse_tensor_to_dense(p, validate_indices=False)
    got = _run(unordered, {p: tf.SparseTensorValue([[1, 0], [0, 1]], [1.0, 2.0], [2, 2])})
    assert got.tolist() == [[0, 2], [1, 0]]


def test_sparse_to_dense_forms():
    assert _run(so.sparse_to_dense(3, [5], 1.0)).tolist() == [0, 0, 0, 1, 0]
    assert _run(so.sparse_to_dense([1, 3], 5, [7, 8], default_value=-1)).tolist() == [
        -1, 7, -1, 8, -1]
    with pytest.raises(tf.errors.InvalidArgumentError, match="incorrect shape"):
        _run(so.sparse_to_dense([[0], [1]], [3], [1.0, 2.0, 3.0]))


def test_sparse_placeholder_feeds():
    p = sr.sparse_placeholder(tf.float64, shape=[None, 4], name="sp")
    assert p.indices.get_shape().as_list() == [None, 2]
    assert p.values.op.name == "sp/values"
    value = tf.SparseTensorValue(np.array([[0, 1], [2, 3]]), np.array([1.0, 2.0]),
                                 np.array([3, 4]))
    got = _run(p, {p: value})
    assert isinstance(got, tf.SparseTensorValue)
    assert got.indices.tolist() == [[0, 1], [2, 3]]
    fixed = sr.sparse_placeholder(tf.float32, shape=[2, 2])
    assert fixed.get_shape().as_list() == [2, 2]
    # as TF 1.15: the constant shape get_shape read may no longer be fed, the rest may
    assert _run(so.sparse_reduce_sum(fixed), {fixed: ([[1, 1]], [5.0])}) == 5.0
    with pytest.raises(ValueError, match="may not be fed"):
        _run(so.sparse_reduce_sum(fixed), {fixed: ([[1, 1]], [5.0], [2, 2])})


def test_sparse_add_random():
    rng = np.random.RandomState(1)
    a, da = _random_sparse(rng, (4, 5))
    b, db = _random_sparse(rng, (4, 5))
    out = _run(so.sparse_add(a, b))
    dense = np.zeros((4, 5))
    dense[tuple(out.indices.T)] = out.values
    np.testing.assert_allclose(dense, da + db)
    order = np.lexsort(out.indices.T[::-1])
    assert (order == np.arange(len(order))).all()  # canonical order
    np.testing.assert_allclose(_run(so.sparse_add(da, b)), da + db)
    with pytest.raises(TypeError):
        so.sparse_add(da, db)
    c, _ = _random_sparse(rng, (4, 6))
    with pytest.raises(ValueError, match="are incompatible"):  # known shapes: when built
        so.sparse_add(a, c)
    fed = tf.sparse_placeholder(tf.float64)
    with pytest.raises(tf.errors.InvalidArgumentError, match="shapes"):
        _run(so.sparse_add(a, fed), {fed: c})


def test_sparse_add_gradient_values():
    a = tf.SparseTensor([[0, 0], [1, 1]], tf.constant([1.0, 2.0], tf.float64), [2, 2])
    b = tf.SparseTensor([[0, 0], [0, 1]], tf.constant([3.0, 4.0], tf.float64), [2, 2])
    s = so.sparse_add(a, b)
    w = tf.constant([10.0, 20.0, 30.0], tf.float64)
    ga, gb = gradients(tf.reduce_sum(s.values * w), [a.values, b.values])
    assert _run([ga, gb]) == [pytest.approx([10.0, 30.0]), pytest.approx([10.0, 20.0])]


@pytest.mark.parametrize("axis,keep", [(None, False), (0, False), (1, True), ([0, 2], False),
                                       (-1, True)])
def test_sparse_reduce_sum_random(axis, keep):
    rng = np.random.RandomState(2)
    sp, dense = _random_sparse(rng, (3, 4, 2))
    got = _run(so.sparse_reduce_sum(sp, axis, keepdims=keep))
    np.testing.assert_allclose(got, np.sum(dense, axis=None if axis is None else tuple(
        np.atleast_1d(axis)), keepdims=keep))
    got = _run(so.sparse_reduce_sum(sp, reduction_axes=axis, keep_dims=keep))
    assert np.shape(got) == np.shape(np.sum(dense, axis=None if axis is None else tuple(
        np.atleast_1d(axis)), keepdims=keep))


@pytest.mark.parametrize("adj_a", [False, True])
@pytest.mark.parametrize("adj_b", [False, True])
def test_sparse_dense_matmul_random_and_gradient(adj_a, adj_b):
    rng = np.random.RandomState(3)
    sp, da = _random_sparse(rng, (4, 3) if adj_a else (3, 4))
    bm = rng.uniform(-1, 1, (5, 4) if adj_b else (4, 5))
    values = tf.placeholder(tf.float64, [len(sp.values)])
    b = tf.placeholder(tf.float64, bm.shape)
    a = tf.SparseTensor(sp.indices, values, sp.dense_shape)
    prod = so.sparse_tensor_dense_matmul(a, b, adjoint_a=adj_a, adjoint_b=adj_b)
    want = (da.T if adj_a else da) @ (bm.T if adj_b else bm)
    assert prod.get_shape().as_list() == list(want.shape)
    w = rng.uniform(-1, 1, want.shape)
    loss = tf.reduce_sum(prod * w)
    gv, gb = gradients(loss, [values, b])
    with tf.Session() as sess:
        feed = {values: sp.values, b: bm}
        got, gv_got, gb_got = sess.run([prod, gv, gb], feed)
        np.testing.assert_allclose(got, want, rtol=1e-12)
        eps = 1e-6
        for arr, analytic in ((sp.values, gv_got), (bm, gb_got)):
            numeric = np.zeros_like(arr)
            flat = arr.reshape(-1)
            for k in range(flat.size):
                orig = flat[k]
                flat[k] = orig + eps
                up = sess.run(loss, feed)
                flat[k] = orig - eps
                down = sess.run(loss, feed)
                flat[k] = orig
                numeric.reshape(-1)[k] = (up - down) / (2 * eps)
            np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-8)


def test_matmul_shape_error():
    a = tf.SparseTensor([[0, 0]], [1.0], [2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="inner dimension does not match"):
        _run(so.sparse_tensor_dense_matmul(a, tf.placeholder_with_default(
            np.ones((4, 2), np.float32), [None, None])))


def test_concat_and_expand():
    a = tf.SparseTensor([[0, 2], [1, 0]], ["a", "b"], [2, 3])
    b = tf.SparseTensor([[0, 1], [2, 0]], ["d", "e"], [3, 4])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Input shapes must match"):
        _run(so.sparse_concat(1, [a, b]))
    out = _run(so.sparse_concat(1, [a, b], expand_nonconcat_dim=True))
    assert out.dense_shape.tolist() == [3, 7]
    assert out.indices.tolist() == [[0, 2], [0, 4], [1, 0], [2, 3]]
    assert out.values.tolist() == [b"a", b"d", b"b", b"e"]
    out0 = _run(so.sparse_concat(0, [a, b], expand_nonconcat_dim=True))
    assert out0.dense_shape.tolist() == [5, 4]


def test_reorder_reshape_slice_retain_transpose():
    rng = np.random.RandomState(4)
    sp, dense = _random_sparse(rng, (3, 4, 2), density=0.6)
    perm = rng.permutation(len(sp.values))
    shuffled = tf.SparseTensorValue(sp.indices[perm], sp.values[perm], sp.dense_shape)
    ordered = _run(so.sparse_reorder(shuffled))
    assert ordered.indices.tolist() == sp.indices.tolist()
    np.testing.assert_array_equal(ordered.values, sp.values)
    reshaped = so.sparse_reshape(sp, [-1, 6])
    np.testing.assert_allclose(_run(so.sparse_tensor_to_dense(reshaped)), dense.reshape(4, 6))
    # a known input shape and a constant new shape are checked when the graph is built
    with pytest.raises(ValueError, match="At most one dimension can be inferred"):
        so.sparse_reshape(sp, [-1, -1])
    with pytest.raises(ValueError, match="Cannot reshape a tensor with 24 elements"):
        so.sparse_reshape(sp, [5, 5])
    fed = tf.sparse_placeholder(tf.float64)
    with pytest.raises(tf.errors.InvalidArgumentError, match="only one output dimension"):
        _run(so.sparse_reshape(fed, [-1, -1]), {fed: sp})
    with pytest.raises(tf.errors.InvalidArgumentError, match="requested shape"):
        _run(so.sparse_reshape(fed, [5, 5]), {fed: sp})
    sliced = so.sparse_slice(sp, [1, 1, 0], [5, 2, 1])
    np.testing.assert_allclose(_run(so.sparse_tensor_to_dense(sliced)), dense[1:, 1:3, :1])
    keep = np.arange(len(sp.values)) % 2 == 0
    kept = _run(sr.sparse_retain(sp, keep))
    np.testing.assert_array_equal(kept.values, sp.values[keep])
    assert kept.dense_shape.tolist() == [3, 4, 2]
    tr = sr.sparse_transpose(sp, [2, 0, 1])
    np.testing.assert_allclose(_run(so.sparse_tensor_to_dense(tr)), dense.transpose(2, 0, 1))
    np.testing.assert_allclose(_run(so.sparse_tensor_to_dense(sr.sparse_transpose(sp))),
                               dense.T)


def test_fill_empty_rows_and_gradient():
    values = tf.constant([1.0, 2.0], tf.float64)
    sp = tf.SparseTensor([[1, 0], [3, 2]], values, [5, 3])
    default = tf.constant(-1.0, tf.float64)
    out, empty = sr.sparse_fill_empty_rows(sp, default)
    got, got_empty = _run([out, empty])
    assert got.indices.tolist() == [[0, 0], [1, 0], [2, 0], [3, 2], [4, 0]]
    assert got.values.tolist() == [-1, 1, -1, 2, -1]
    assert got_empty.tolist() == [True, False, True, False, True]
    w = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0], tf.float64)
    gv, gd = gradients(tf.reduce_sum(out.values * w), [values, default])
    assert _run(gv).tolist() == [2.0, 4.0] and _run(gd) == 9.0


def test_segment_ops():
    data = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert _run(sr.sparse_segment_sum(data, [0, 1, 2], [0, 0, 1])).tolist() == [
        [4, 6], [5, 6]]
    assert _run(sr.sparse_segment_mean(data, [0, 2], [0, 0])).tolist() == [[3, 4]]
    np.testing.assert_allclose(_run(sr.sparse_segment_sqrt_n(data, [1, 1], [0, 0])),
                               [[6 / np.sqrt(2), 8 / np.sqrt(2)]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
        _run(sr.sparse_segment_sum(data, [0, 3], [0, 1]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="not increasing"):
        _run(sr.sparse_segment_sum(data, [0, 1], [1, 0]))


def test_string_split_feeds_sparse_ops():
    sp = tf.string_split(["a b c", "d"])
    assert isinstance(sp, tf.SparseTensor)
    assert _run(so.sparse_tensor_to_dense(sp, default_value="")).tolist() == [
        [b"a", b"b", b"c"], [b"d", b"", b""]]


def test_sparse_namespace():
    assert sparse.to_dense is so.sparse_tensor_to_dense
    assert sparse.matmul is so.sparse_tensor_dense_matmul
    assert sparse.placeholder is sr.sparse_placeholder
    assert sparse.SparseTensor is tf.SparseTensor
    ind = _run(sparse.to_indicator(tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [2, 0, 1], [2, 2]),
                                   3))
    assert ind.tolist() == [[True, False, True], [False, True, False]]
    with pytest.raises(TypeError):
        sparse.reorder(tf.constant([1.0]))
