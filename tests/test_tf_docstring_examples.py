"""Examples of the kind TF 1.x's API docs show, run in graph mode: values, dtypes and static
shapes as TF 1.15 gives them (our own values, one test per difference found and fixed)."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _run(fetches):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches)


def test_sparse_maximum_indices_static_shape_is_unknown_matrix():
    a = tf.SparseTensor([[1], [4]], [7, 2], [6])
    b = tf.SparseTensor([[1], [3]], [5, 9], [6])
    for res in (tf.sparse.maximum(a, b), tf.sparse.minimum(a, b)):
        assert res.indices.shape.as_list() == [None, None]
        assert res.values.shape.as_list() == [None]
    got = _run(tf.sparse.maximum(a, b))
    np.testing.assert_array_equal(got.indices, [[1], [3], [4]])
    np.testing.assert_array_equal(got.values, [7, 9, 2])


def test_sparse_split_pieces_have_static_dense_shapes():
    sp = tf.SparseTensor([[0, 0], [1, 3], [2, 4]], [5, 6, 7], [3, 5])
    pieces = tf.sparse.split(sp_input=sp, num_split=2, axis=1)
    dense = [tf.sparse.to_dense(p) for p in pieces]
    assert [d.shape.as_list() for d in dense] == [[3, 3], [3, 2]]
    got = _run(dense)
    np.testing.assert_array_equal(got[0], [[5, 0, 0], [0, 0, 0], [0, 0, 0]])
    np.testing.assert_array_equal(got[1], [[0, 0], [6, 0], [0, 7]])
