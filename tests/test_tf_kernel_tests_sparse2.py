"""Sparse ops and v1 summary ops checked against what TF 1.15's own kernel tests expect:
static shapes of the results, values, gradients and the error a program sees, each with its
expected result worked out here by hand or with NumPy."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture
def sess():
    with tf.Graph().as_default(), tf.Session() as s:
        yield s


def _sp(indices, values, shape, dtype=tf.float32):
    return tf.SparseTensor(tf.constant(indices, tf.int64), tf.constant(values, dtype),
                           tf.constant(shape, tf.int64))


# -- SparseConcat --------------------------------------------------------------------------
def test_sparse_concat_static_entry_count_is_the_sum_of_the_inputs(sess):
    left = _sp([[0, 1], [2, 2]], [5.0, 6.0], [3, 3])
    right = _sp([[0, 0], [1, 3], [2, 1]], [7.0, 8.0, 9.0], [3, 4])
    out = tf.sparse_concat(1, [left, right])
    assert out.indices.get_shape().as_list() == [5, 2]
    assert out.values.get_shape().as_list() == [5]
    assert out.dense_shape.get_shape().as_list() == [2]
    assert out.get_shape().as_list() == [3, 7]
    got = sess.run(out)
    assert got.indices.tolist() == [[0, 1], [0, 3], [1, 6], [2, 2], [2, 4]]
    assert got.values.tolist() == [5.0, 7.0, 8.0, 6.0, 9.0]


def test_sparse_concat_shape_merges_partially_known_inputs():
    def unknown(ind=None, val=None, shp=None):
        return tf.SparseTensor(tf.placeholder(tf.int64, ind), tf.placeholder(tf.float32, val),
                               tf.placeholder(tf.int64, shp))

    with tf.Graph().as_default():
        out = tf.sparse_concat(0, [unknown(ind=[2, None]), unknown(val=[4]), unknown(ind=[3, 3])])
        assert out.indices.get_shape().as_list() == [9, 3]
        assert out.values.get_shape().as_list() == [9]
        out = tf.sparse_concat(0, [unknown(ind=[2, None]), unknown(shp=[4])])
        assert out.indices.get_shape().as_list() == [None, None]
        assert out.dense_shape.get_shape().as_list() == [4]
        with pytest.raises(ValueError, match="input shapes"):
            tf.sparse_concat(0, [unknown(ind=[2, 2]), unknown(ind=[1, 3])])


# -- SparseTensorsMap ----------------------------------------------------------------------
def test_tensors_map_private_wrappers_handles_start_at_zero_and_rank_error_counts_batch(sess):
    from tideflow.python.ops import sparse_ops

    feed = tf.SparseTensor(tf.placeholder(tf.int64), tf.placeholder(tf.float32),
                           tf.placeholder(tf.int64))
    handle = sparse_ops._add_sparse_to_tensors_map(feed)
    assert handle.get_shape().as_list() == [] and handle.dtype == tf.int64
    flat = tf.SparseTensorValue([[1], [4]], [2.0, 3.0], [6])
    cube = tf.SparseTensorValue([[0, 1, 1]], [7.0], [2, 2, 2])
    first = sess.run(handle, {feed: flat})
    second = sess.run(handle, {feed: cube})
    assert (first, second) == (0, 1)
    taken = sparse_ops._take_many_sparse_from_tensors_map(
        sparse_map_op=handle.op, sparse_handles=tf.constant([first, second], tf.int64))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"rank prior to SparseTensor\[1\] was: 2 but rank of "
                             r"SparseTensor\[1\] is: 4"):
        sess.run(taken)
    many = sparse_ops._add_many_sparse_to_tensors_map(
        tf.SparseTensorValue([[0, 2], [2, 1]], [b"x", b"y"], [3, 4]))
    back = sess.run(sparse_ops._take_many_sparse_from_tensors_map(
        sparse_map_op=many.op, sparse_handles=many))
    assert back.indices.tolist() == [[0, 2], [2, 1]]
    assert back.values.tolist() == [b"x", b"y"] and back.dense_shape.tolist() == [3, 4]


# -- v1 summaries --------------------------------------------------------------------------
def test_logging_ops_keeps_the_tag_first_summary_functions(sess):
    from tideflow.core.framework import summary_pb2

    from tideflow.python.ops import logging_ops

    pair = logging_ops.scalar_summary(["left", "right"], tf.constant([1.5, -2.0]))
    assert pair.get_shape().as_list() == [] and pair.op.name == "ScalarSummary"
    merged = logging_ops.merge_summary(
        [pair, logging_ops.histogram_summary("spread", tf.constant([3.0]))])
    proto = summary_pb2.Summary.FromString(sess.run(merged))
    assert [v.tag for v in proto.value] == ["left", "right", "spread"]
    assert [v.simple_value for v in proto.value[:2]] == [1.5, -2.0]
    assert proto.value[2].histo.num == 1
    with pytest.raises(AttributeError):
        logging_ops.no_such_summary  # noqa: B018


# -- SerializeSparse / DeserializeManySparse ------------------------------------------------
def _fed_sparse(dtype=tf.int32):
    return tf.SparseTensor(tf.placeholder(tf.int64), tf.placeholder(dtype),
                           tf.placeholder(tf.int64))


def test_serialize_sparse_takes_a_sparse_tensor_of_unknown_rank(sess):
    first, second = _fed_sparse(), _fed_sparse()
    one = tf.serialize_sparse(first)
    assert one.op.type == "SerializeSparse" and one.get_shape().as_list() == [3]
    both = tf.deserialize_many_sparse(tf.stack([one, tf.serialize_sparse(second)]),
                                      dtype=tf.int32)
    got = sess.run(both, {first: tf.SparseTensorValue([[0, 1], [2, 0]], [4, 5], [3, 2]),
                          second: tf.SparseTensorValue([[1, 3]], [6], [2, 4])})
    assert got.indices.tolist() == [[0, 0, 1], [0, 2, 0], [1, 1, 3]]
    assert got.values.tolist() == [4, 5, 6] and got.dense_shape.tolist() == [2, 3, 4]


def test_deserialize_many_sparse_errors_use_tf_words(sess):
    first, second = _fed_sparse(), _fed_sparse()
    rows = tf.stack([tf.serialize_sparse(first), tf.serialize_sparse(second)])
    feed = {first: tf.SparseTensorValue([[1]], [2], [4]),
            second: tf.SparseTensorValue([[0, 0]], [3], [1, 1])}
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"rank prior to SparseTensor\[1\] was: 2 but rank of "
                             r"SparseTensor\[1\] is: 3"):
        sess.run(tf.deserialize_many_sparse(rows, dtype=tf.int32), feed)
    garbage = tf.stack([tf.serialize_sparse(first), tf.constant(["x", "y", "z"])])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Could not parse serialized_sparse\[1, 0\]"):
        sess.run(tf.deserialize_many_sparse(garbage, dtype=tf.int32), feed)


# -- SparseCross ---------------------------------------------------------------------------
def test_sparse_cross_mirror_names_and_int32_features(sess):
    from tideflow.python.ops import sparse_ops

    assert sparse_ops._DEFAULT_HASH_KEY == 0xDECAFCAFFE
    words = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], ["p", "q", "r"], [2, 2])
    ids = tf.constant([[7], [8]], tf.int32)
    got = sess.run(sparse_ops.sparse_cross([words, ids]))
    assert got.indices.tolist() == [[0, 0], [1, 0], [1, 1]]
    assert got.values.tolist() == [b"p_X_7", b"q_X_8", b"r_X_8"]
    # int32 and int64 spellings of the same ids hash alike
    narrow = sparse_ops.sparse_cross_hashed([words, ids], num_buckets=50)
    wide = sparse_ops.sparse_cross_hashed([words, tf.constant([[7], [8]], tf.int64)],
                                          num_buckets=50)
    a, b = sess.run([narrow.values, wide.values])
    assert a.tolist() == b.tolist() and ((0 <= a) & (a < 50)).all()


# -- SparseMatMul (mixed float32 / bfloat16 products) --------------------------------------
def test_matmul_of_float32_and_bfloat16_is_float32_with_gradients_in_each_dtype(sess):
    lhs_np = np.array([[0.0, 2.0, 0.0], [1.5, 0.0, -1.0]], np.float32)
    rhs_np = np.array([[1.0, 0.5], [-2.0, 0.0], [0.25, 3.0]], np.float32)
    lhs = tf.constant(lhs_np, tf.bfloat16)
    rhs = tf.constant(rhs_np)
    prod = tf.matmul(lhs, rhs, a_is_sparse=True)
    flipped = tf.matmul(rhs, lhs, transpose_a=True, transpose_b=True)
    assert prod.dtype == tf.float32 and prod.get_shape().as_list() == [2, 2]
    assert flipped.dtype == tf.float32
    grads = tf.gradients(prod, [lhs, rhs])
    assert [g.dtype for g in grads] == [tf.bfloat16, tf.float32]
    got, got_t, (g_lhs, g_rhs) = sess.run([prod, flipped, grads])
    np.testing.assert_allclose(got, lhs_np @ rhs_np)
    np.testing.assert_allclose(got_t, (lhs_np @ rhs_np).T)
    np.testing.assert_allclose(g_lhs.astype(np.float32), np.ones((2, 2)) @ rhs_np.T, rtol=1e-2)
    np.testing.assert_allclose(g_rhs, lhs_np.T @ np.ones((2, 2)))


# -- SparseAdd static shape ----------------------------------------------------------------
def test_sparse_add_static_shape_is_the_broadcast_static_shape():
    def fed(shape=None):
        return tf.SparseTensor(tf.placeholder(tf.int64), tf.placeholder(tf.float32),
                               tf.placeholder(tf.int64, shape))

    with tf.Graph().as_default():
        known = _sp([[0, 1]], [1.0], [2, 3])
        assert tf.sparse_add(known, known).get_shape().as_list() == [2, 3]
        # an operand of unknown rank leaves the sizes unknown
        assert tf.sparse_add(known, fed()).get_shape().as_list() == [None, None]
        # a known rank with unknown sizes: the other operand's sizes > 1 fill them in
        assert tf.sparse_add(known, fed([2])).get_shape().as_list() == [2, 3]
        single = _sp([[0, 0]], [1.0], [1, 3])
        assert tf.sparse_add(single, fed([2])).get_shape().as_list() == [None, None]
        with pytest.raises(ValueError):
            tf.sparse_add(known, _sp([[0, 0]], [1.0], [3, 3]))
