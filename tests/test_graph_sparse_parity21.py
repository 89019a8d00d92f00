"""Graph-network and sparse programs of TF 1.x (Kipf's GCN, GAT, GraphSAGE sampling, skip-gram
with NCE and the candidate samplers, the sparse API around them) compared with TF 1.15;
expected values are TF 1.15's printed outputs unless a comment says NumPy."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _fed_error(fetch, feed):
    with tf.Session() as s, pytest.raises(ValueError) as e:
        s.run(fetch, feed)
    return str(e.value)


def test_a_constant_shape_read_by_get_shape_may_not_be_fed():
    # Kipf's GCN: sparse_placeholder(shape=tf.constant(...)) fed an (indices, values, shape)
    # tuple. TF 1.15: once get_shape() has read the constant (its Python constant_value),
    # feeding it fails: 'Tensor Tensor("Const:0", shape=(2,), dtype=int64) may not be fed.'
    x = tf.sparse_placeholder(tf.float32, shape=tf.constant([3, 4], dtype=tf.int64))
    y = tf.sparse_reduce_sum(x)
    feed = {x: (np.array([[0, 1]], np.int64), np.array([2.0], np.float32), [3, 4])}
    with tf.Session() as s:
        assert s.run(y, feed) == 2.0  # not read yet: TF feeds it
    assert x.get_shape().as_list() == [3, 4]
    assert _fed_error(y, feed) == ('Tensor Tensor("Const:0", shape=(2,), dtype=int64) '
                                   'may not be fed.')


def test_get_static_value_makes_its_tensor_unfeedable():
    # TF 1.15: tf.get_static_value (tensor_util.constant_value) prevents feeding what it read;
    # a tensor it cannot read stays feedable
    a = tf.constant(3)
    b = tf.constant(4)
    assert tf.get_static_value(a) == 3
    assert _fed_error(a + 1, {a: 5}) == ('Tensor Tensor("Const:0", shape=(), dtype=int32) '
                                         'may not be fed.')
    p = tf.placeholder(tf.int32, [])
    assert tf.get_static_value(p) is None
    with tf.Session() as s:
        assert s.run(b + p, {b: 1, p: 2}) == 3
