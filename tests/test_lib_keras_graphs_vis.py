"""What running keras-vis 0.4.1 and Spektral 0.1.2 (standalone Keras 2.2.4, TF backend) on
tideflow showed, pinned with the plain TF 1.x calls those libraries make: sparse adjacency
reductions, guided/rectified backprop through gradient_override_map, and the segment and
sparse ops of graph pooling."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ------------------------------------------------------------------------------------------
# SparseReduceSum / Max: static shape known only for a constant dense shape and constant axes
# ------------------------------------------------------------------------------------------

def _adjacency():
    dense = np.array([[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 0], [1, 0, 0, 0]], np.float32)
    return dense, np.argwhere(dense).astype(np.int64), dense[dense > 0]


def test_sparse_reduce_sum_shape_of_sparse_placeholder_is_unknown():
    dense, idx, vals = _adjacency()
    ph = tf.sparse_placeholder(tf.float32, shape=(None, None))
    degrees = tf.sparse.reduce_sum(ph, axis=-1)
    kept = tf.sparse.reduce_sum(ph, axis=1, keepdims=True)
    peak = tf.sparse.reduce_max(ph, axis=0)
    assert degrees.shape.ndims is None
    assert kept.shape.ndims is None
    assert peak.shape.ndims is None
    with tf.Session() as sess:
        d, k, p = sess.run([degrees, kept, peak],
                           {ph: tf.SparseTensorValue(idx, vals, dense.shape)})
    np.testing.assert_allclose(d, [2, 2, 1, 1])
    np.testing.assert_allclose(k, [[2], [2], [1], [1]])
    np.testing.assert_allclose(p, [1, 1, 1, 1])


def test_sparse_reduce_sum_shape_of_constant_dense_shape_is_known():
    dense, idx, vals = _adjacency()
    sp = tf.SparseTensor(idx, vals, (4, 4))
    assert tf.sparse.reduce_sum(sp, axis=-1).shape.as_list() == [4]
    assert tf.sparse.reduce_sum(sp, axis=0, keepdims=True).shape.as_list() == [1, 4]
    assert tf.sparse.reduce_sum(sp).shape.as_list() == []
    # axes not known while building: unknown, as TF
    axis = tf.placeholder(tf.int32, ())
    assert tf.sparse.reduce_sum(sp, axis=axis).shape.ndims is None
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(tf.sparse.reduce_sum(sp, axis=axis), {axis: 0}),
                                   dense.sum(0))


# ------------------------------------------------------------------------------------------
# guided / rectified backprop: a gradient registered by name, swapped in for Relu
# ------------------------------------------------------------------------------------------

def test_gradient_override_map_guided_relu():
    name = "H169GatedRelu"

    @tf.RegisterGradient(name)
    def _gated(op, grad):
        out = op.outputs[0]
        return tf.cast(grad > 0.0, out.dtype) * tf.cast(out > 0.0, out.dtype) * grad

    from tideflow.python.framework import ops as tf_ops
    assert name in tf_ops._gradient_registry._registry
    x = tf.placeholder(tf.float32, (None, 2))
    w = tf.constant([[2.0], [-1.0]])
    graph = tf.get_default_graph()
    with graph.gradient_override_map({"Relu": name}):
        gated = tf.nn.relu(tf.matmul(x, w))
    plain = tf.nn.relu(tf.matmul(x, w))
    assert gated.op.get_attr("_gradient_op_type") == name.encode()
    with pytest.raises(ValueError):
        plain.op.get_attr("_gradient_op_type")
    g_gated = tf.gradients(-gated, x)[0]
    g_plain = tf.gradients(-plain, x)[0]
    with tf.Session() as sess:
        a, b = sess.run([g_gated, g_plain], {x: [[1.0, 0.5], [0.2, 3.0]]})
    np.testing.assert_allclose(a, [[0.0, 0.0], [0.0, 0.0]])
    np.testing.assert_allclose(b, [[-2.0, 1.0], [0.0, 0.0]])


@pytest.mark.parametrize("mapping", [{"Relu": 3}, {5: "Relu"}, [("Relu", "Identity")]])
def test_gradient_override_map_wants_strings(mapping):
    graph = tf.get_default_graph()
    with pytest.raises(TypeError, match="op_type_map must be a dictionary mapping strings"), \
            graph.gradient_override_map(mapping):
        pass
    with pytest.raises(TypeError, match="op_to_kernel_label_map must be a dictionary"), \
            graph._kernel_label_map(mapping):
        pass
    # a rejected map leaves nothing behind
    x = tf.constant([1.0, -1.0])
    y = tf.nn.relu(x)
    with pytest.raises(ValueError):
        y.op.get_attr("_gradient_op_type")


# ------------------------------------------------------------------------------------------
# disjoint-mode top-k pooling: a shape-free variable reassigned each step, then scattered into
# ------------------------------------------------------------------------------------------

def test_segment_top_k_through_shape_free_variable():
    scores = tf.placeholder(tf.float32, (None,))
    seg = tf.placeholder(tf.int32, (None,))
    buf = tf.Variable(0.0, validate_shape=False)
    counts = tf.segment_sum(tf.ones_like(seg), seg)
    starts = tf.cumsum(counts) - counts
    widest = tf.reduce_max(counts)
    n_seg = tf.shape(counts)[0]
    slot = tf.range(tf.shape(seg)[0]) - tf.gather(starts, seg) + seg * widest
    filler = tf.ones((n_seg * widest,)) * (tf.reduce_min(scores) - 1.0)
    filled = tf.assign(buf, filler, validate_shape=False)
    assert filled.shape.ndims == 1
    table = tf.reshape(tf.scatter_update(filled, slot, scores), (n_seg, widest))
    order = tf.argsort(table, direction="DESCENDING") + starts[:, None]
    keep = tf.cast(tf.ceil(0.5 * tf.cast(counts, tf.float32)), tf.int32)
    first = tf.less(tf.range(widest)[None, :], keep[:, None])
    picked = tf.boolean_mask(order, first)
    assert picked.shape.as_list() == [None]
    x = np.array([0.3, 0.9, 0.1, 0.5, 0.7, 0.2, 0.8, 0.4, 0.6], np.float32)
    ids = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2], np.int32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(picked, {scores: x, seg: ids})
        # a second, larger batch reshapes the variable again
        got2 = sess.run(picked, {scores: np.arange(6, dtype=np.float32), seg: [0] * 6})
    assert got.tolist() == [1, 0, 4, 6, 8]
    assert got2.tolist() == [5, 4, 3]


# ------------------------------------------------------------------------------------------
# SparseReduceSum / Max kernels: values go to their output cell, nothing input-sized is built
# ------------------------------------------------------------------------------------------

def test_sparse_reduce_of_a_huge_sparse_adjacency():
    n = 10 ** 7
    sp = tf.SparseTensor([[0, 5], [0, n - 1], [3, 2], [n - 1, 0]], [1.5, 2.0, -1.0, 4.0], (n, n))
    deg = tf.sparse.reduce_sum(sp, axis=-1)
    col_max = tf.sparse.reduce_max(sp, axis=0, keepdims=True)
    total = tf.sparse.reduce_sum(sp)
    with tf.Session() as sess:
        d, m, t = sess.run([deg, col_max, total])
    assert d.shape == (n,) and m.shape == (1, n)
    assert d[0] == 3.5 and d[3] == -1.0 and d[n - 1] == 4.0 and np.count_nonzero(d) == 3
    # a column with only a negative value keeps it; columns with no values read 0
    assert m[0, 5] == 1.5 and m[0, 2] == -1.0 and m[0, 0] == 4.0 and m[0, 1] == 0.0
    assert t == 6.5


def test_sparse_reduce_kernel_values_and_index_checks():
    idx = tf.placeholder(tf.int64, (None, 3))
    vals = tf.placeholder(tf.int32, (None,))
    sp = tf.SparseTensor(idx, vals, tf.constant([2, 3, 4], tf.int64))
    i = np.array([[0, 0, 1], [0, 2, 3], [1, 1, 1], [1, 1, 1], [1, 2, 0]], np.int64)
    v = np.array([3, -4, 5, 6, -7], np.int32)
    dense = np.zeros((2, 3, 4), np.int32)
    np.add.at(dense, tuple(i.T), v)
    sums = [tf.sparse.reduce_sum(sp, axis=ax, keepdims=kd)
            for ax in (0, [1, 2], -1, None) for kd in (False, True)]
    big = tf.sparse.reduce_max(sp, axis=[0, 2])
    with tf.Session() as sess:
        got = sess.run(sums + [big], {idx: i, vals: v})
        k = 0
        for ax in (0, (1, 2), -1, None):
            for kd in (False, True):
                np.testing.assert_array_equal(got[k], dense.sum(axis=ax, keepdims=kd))
                assert got[k].dtype == np.int32
                k += 1
        np.testing.assert_array_equal(got[-1], [3, 6, -4])
        # a reduced axis' index is never looked at (as TF); a kept one out of range is an error
        r = sess.run(tf.sparse.reduce_sum(sp, axis=2), {idx: [[1, 0, 9]], vals: [2]})
        np.testing.assert_array_equal(r, [[0, 0, 0], [2, 0, 0]])
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0\] = \[0,7,1\]"):
            sess.run(tf.sparse.reduce_sum(sp, axis=2), {idx: [[0, 7, 1]], vals: [2]})
