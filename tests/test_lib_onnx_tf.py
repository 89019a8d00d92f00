"""What running onnx-tf 1.5 (ONNX models built op by op into TF 1.x graphs) needed, pinned with
plain TF 1.x calls: static shapes through a constant subgraph that passes tf.where and
tf.sparse_to_dense (TF's shape inference evaluates any small constant subgraph), and
tf.squeeze's axis, an attr, refused as a Tensor with TF's TypeError."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _filled_shape(template, dims):
    # ONNX Reshape's "0 copies the input dimension", as onnx-tf builds it: the zero
    # positions of a constant template, filled from the input's static shape
    n = len(template)
    template = tf.constant(template, tf.int64)
    zeros = tf.squeeze(tf.where(tf.equal(template, 0)), axis=[1])
    picked = tf.gather(tf.constant(dims, tf.int64), zeros)
    return template + tf.sparse_to_dense(zeros, [n], picked)


def test_reshape_shape_from_where_and_sparse_to_dense_is_static():
    x = tf.placeholder(tf.float32, [2, 3, 8])
    new_shape = _filled_shape([0, 0, 4, -1], [2, 3, 8])
    y = tf.reshape(x, new_shape)
    assert y.shape.as_list() == [2, 3, 4, 2]
    # a shape function sees the fold; the value stays a graph computation for constant_value
    assert tf.get_static_value(new_shape) is None
    xv = np.arange(48, dtype=np.float32).reshape(2, 3, 8)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {x: xv}), xv.reshape(2, 3, 4, 2))


def test_where_of_constant_folds_for_shapes_only():
    mask = tf.constant([[True, False], [True, True], [False, False]])
    idx = tf.where(mask)
    assert idx.shape.as_list() == [None, 2]  # its own shape stays data dependent
    picked = tf.gather(tf.constant([4, 5, 6], tf.int64), idx[:, 0])
    assert tf.zeros(picked).shape.as_list() == [4, 5, 5]
    assert tf.get_static_value(picked) is None
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(idx), [[0, 0], [1, 0], [1, 1]])


def test_split_sizes_from_folded_shape_are_checked_when_built():
    x = tf.placeholder(tf.float32, [2, 3, 8])
    y = tf.reshape(x, _filled_shape([0, 0, 4, -1], [2, 3, 8]))
    sizes = tf.concat([tf.shape(y, out_type=tf.int64), [5, 0, 0, 0]], 0)
    with pytest.raises(ValueError, match="split"):
        tf.split(y, sizes, axis=3, num=8)


def test_unknown_size_chain_is_not_walked_per_shape_query():
    # a long chain of unknown-size int ops feeding shapes: each query stops a few ops deep
    x = tf.placeholder(tf.int32, [None])
    v = x
    for _ in range(400):
        v = v + 1
        tf.reshape(x, v)
    assert v.shape.as_list() == [None]


def test_squeeze_axis_tensor_is_type_error():
    x = tf.placeholder(tf.float32, [1, 3, 1])
    with pytest.raises(TypeError, match="Expected list for 'axis' argument to 'squeeze' Op"):
        tf.squeeze(x, axis=tf.constant([0]))
    assert tf.squeeze(x, axis=np.array([0, 2])).shape.as_list() == [3]
    assert tf.squeeze(x, axis=(2,)).shape.as_list() == [1, 3]


def test_strided_slice_with_unknown_strides_has_unknown_shape():
    # onnx-tf's Slice feeds computed steps; TF's shape function needs every stride
    x = tf.placeholder(tf.float32, [20, 10, 5])
    step = tf.placeholder(tf.int32, [])
    steps = tf.placeholder(tf.int32, [3])
    assert tf.strided_slice(x, [0, 0, 0], [2, 3, 4], steps).shape.ndims is None
    assert tf.strided_slice(x, [0, 0, 0], [2, 3, 4], tf.stack([1, step, 1])).shape.ndims is None
    assert x[::step].shape.ndims is None
    # unknown bounds with known strides keep the rank
    assert tf.strided_slice(x, steps, steps, [1, 1, 1]).shape.as_list() == [None] * 3
    assert x[1:step].shape.as_list() == [None, 10, 5]
    assert x[:, step].shape.as_list() == [20, 5]
    with tf.Session() as sess:
        out = sess.run(x[::step], {x: np.ones([20, 10, 5], np.float32), step: 3})
    assert out.shape == (7, 10, 5)
