"""What running standalone multi-backend Keras (2.2.4, TensorFlow backend) on tideflow needed,
pinned with plain TF 1.x calls: attributes set on tensors, ``ops._TensorLike``, and the graph
API differences its backend, layers and examples showed."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.python.framework import ops as tf_ops


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ------------------------------------------------------------------------------------------
# tensors take any attribute (TF 1.x tensors have a __dict__)
# ------------------------------------------------------------------------------------------

def test_tensor_takes_any_attribute():
    x = tf.placeholder(tf.float32, (None, 3))
    x._keras_shape = (None, 3)
    x._uses_learning_phase = False
    x.my_note = "anything"
    assert x._keras_shape == (None, 3)
    assert x._uses_learning_phase is False
    assert x.my_note == "anything"
    y = x + 1.0
    assert not hasattr(y, "_keras_shape")
    assert not hasattr(y, "_keras_history")


def test_tensor_keras_history_can_be_set():
    x = tf.placeholder(tf.float32, (2,))
    marker = object()
    x._keras_history = (marker, 0, 0)
    assert x._keras_history == (marker, 0, 0)
    assert hasattr(x, "_keras_history")
    assert not hasattr(tf.identity(x), "_keras_history")


def test_tensor_like_base():
    x = tf.constant([1.0, 2.0])
    sp = tf.SparseTensor([[0, 0]], [1.0], [2, 2])
    sl = tf.IndexedSlices(x, tf.constant([0, 1]))
    v = tf.Variable(1.0)
    assert isinstance(x, tf_ops._TensorLike)
    assert isinstance(sp, tf_ops._TensorLike)
    assert isinstance(sl, tf_ops._TensorLike)
    assert not isinstance(np.zeros(2), tf_ops._TensorLike)
    assert not isinstance(v, tf_ops._TensorLike)
    assert tf_ops.is_dense_tensor_like(v)
    assert not tf_ops.is_dense_tensor_like(sp)


# ------------------------------------------------------------------------------------------
# conv2d_transpose: output_shape given as a list of scalar tensors
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_conv2d_transpose_output_shape_of_scalar_tensors(data_format):
    full = [2, 5, 6, 2] if data_format == "NHWC" else [2, 2, 5, 6]
    shp = tf.stack(full)
    x_shape = (2, 5, 6, 3) if data_format == "NHWC" else (2, 3, 5, 6)
    x = tf.constant(np.ones(x_shape, np.float32))
    k = tf.constant(np.ones((3, 3, 2, 3), np.float32))
    y = tf.nn.conv2d_transpose(x, k, [shp[0], shp[1], shp[2], shp[3]], [1, 1, 1, 1],
                               padding="SAME", data_format=data_format)
    with tf.Session() as sess:
        out = sess.run(y)
    assert out.shape == tuple(full)
    # every output pixel inside the border sees 3x3 taps of 3 channels of ones
    centre = out[:, 2, 2, 0] if data_format == "NHWC" else out[:, 0, 2, 2]
    np.testing.assert_allclose(centre, 27.0)


def test_conv2d_transpose_channel_mismatch_fails_when_run():
    # TF 1.15's conv2d_transpose checks no channels when built (shape (1, 4, 4, 5)); run,
    # its kernel refuses them (TF's grappler even aborts the process on these constants)
    x = tf.ones((1, 4, 4, 3))
    k = tf.ones((3, 3, 2, 3))
    y = tf.nn.conv2d_transpose(x, k, [1, 4, 4, 5], [1, 1, 1, 1], padding="SAME")
    assert y.get_shape().as_list() == [1, 4, 4, 5]
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="depth"):
        sess.run(y)


# ------------------------------------------------------------------------------------------
# a loop body knows the static value of what it captures (Keras's ctc label scan)
# ------------------------------------------------------------------------------------------

def test_while_body_fill_from_captured_shape_vector():
    labels = tf.Variable(np.zeros((2, 5), np.int32))
    n = tf.stack([tf.shape(labels)[1]])
    seen = []

    def body(i):
        seen.append(tf.fill(n, 1).shape.as_list())
        seen.append(tf.range(tf.shape(labels)[1]).shape.as_list())
        seen.append(tf.fill(tf.shape(labels), 0).shape.as_list())
        return i + 1

    tf.while_loop(lambda i: i < 2, body, [0])
    assert seen == [[5], [5], [2, 5]]


def test_scan_dense_label_mask_keeps_static_shape():
    labels = tf.Variable(np.array([[1, 2, 3, 0, 0], [2, 3, 1, 1, 0]], np.int32))
    lengths = tf.constant([3, 4])
    lshape = tf.shape(labels)
    width = tf.stack([lshape[1]])

    def less_than(_, cur):
        return tf.expand_dims(tf.range(lshape[1]), 0) < tf.fill(width, cur)

    init = tf.cast(tf.fill([1, lshape[1]], 0), tf.bool)
    mask = tf.scan(less_than, lengths, initializer=init, parallel_iterations=1)
    assert mask.shape.as_list() == [2, 1, 5]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(mask)[:, 0]
    np.testing.assert_array_equal(got, np.arange(5)[None] < np.array([[3], [4]]))


def test_captured_partial_shape_keeps_unknown_dims():
    x = tf.placeholder(tf.float32, (None, 4))
    s = tf.shape(x)

    def body(i):
        assert tf.zeros(s).shape.as_list() == [None, 4]
        assert tf.zeros([s[1]]).shape.as_list() == [None]  # TF 1.15's: s[1] is no constant
        return i + 1

    out = tf.while_loop(lambda i: i < 1, body, [0])
    with tf.Session() as sess:
        assert sess.run(out, {x: np.zeros((3, 4))}) == 1


def test_cond_branch_knows_captured_constant():
    n = tf.constant([2, 3])
    pred = tf.placeholder(tf.bool, ())
    out = tf.cond(pred, lambda: tf.zeros(n), lambda: tf.ones(n))
    assert out.shape.as_list() == [2, 3]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(out, {pred: False}), np.ones((2, 3)))


# ------------------------------------------------------------------------------------------
# Session._make_callable_from_options with tensor connections (Keras's symbolic inputs)
# ------------------------------------------------------------------------------------------

def _callable_options(feeds=(), fetches=(), targets=(), links=()):
    from tideflow.core.protobuf import config_pb2

    opts = config_pb2.CallableOptions()
    opts.feed.extend(feeds)
    opts.fetch.extend(fetches)
    opts.target.extend(targets)
    for src, dst in links:
        c = opts.tensor_connection.add()
        c.from_tensor = src
        c.to_tensor = dst
    return opts


def test_as_graph_element_helper():
    v = tf.Variable([1.0, 2.0], name="v")
    assert tf_ops._as_graph_element(v).name == "v:0"
    assert tf_ops._as_graph_element(tf.constant(1.0)) is None
    assert tf_ops._as_graph_element(3) is None


def test_callable_tensor_connection_stands_placeholder_for_tensor():
    x = tf.placeholder(tf.float32, (None, 2), name="x")
    scale = tf.placeholder(tf.float32, (), name="scale")
    data = tf.constant([[1.0, 2.0], [3.0, 4.0]], name="data") * scale
    v = tf.Variable(0.0)
    y = tf.reduce_sum(x, axis=1) * 2.0
    bump = tf.assign_add(v, 1.0)
    with tf.Session() as sess:
        sess.run(v.initializer)
        fn = sess._make_callable_from_options(_callable_options(
            feeds=[scale.name], fetches=[y.name], targets=[bump.op.name],
            links=[(data.name, x.name)]))
        out = fn(np.float32(10.0))
        np.testing.assert_allclose(out[0], [60.0, 140.0])
        assert len(out) == 1
        assert sess.run(v) == 1.0


def test_callable_tensor_connection_errors():
    x = tf.placeholder(tf.float32, (2,), name="x")
    y = tf.identity(x * 2.0, name="y")
    z = y + 1.0
    c = tf.constant([1.0, 2.0], name="c")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="would create a cycle"):
            sess._make_callable_from_options(_callable_options(
                fetches=[z.name], links=[(y.name, x.name)]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="unknown node"):
            sess._make_callable_from_options(_callable_options(
                fetches=[z.name], links=[("nowhere:0", x.name)]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="fed more than once"):
            sess._make_callable_from_options(_callable_options(
                feeds=[x.name], fetches=[z.name], links=[(c.name, x.name)]))


# ------------------------------------------------------------------------------------------
# copy.copy of a tensor stays usable (Keras's clip_norm copies a gradient's dense_shape)
# ------------------------------------------------------------------------------------------

def test_copied_tensor_is_a_valid_op_input():
    import copy

    x = tf.placeholder(tf.float32, (None, 3))
    s = copy.copy(tf.shape(x))
    y = tf.zeros(s) + 1.0
    with tf.Session() as sess:
        out, shp = sess.run([y, s], {x: np.ones((2, 3))})
    np.testing.assert_array_equal(out, np.ones((2, 3)))
    np.testing.assert_array_equal(shp, [2, 3])


def test_clipped_sparse_gradient_through_cond_with_copied_dense_shape():
    import copy

    emb = tf.Variable([[0.25], [0.5]])
    ids = tf.placeholder(tf.int32, (None,))
    loss = tf.reduce_sum(tf.square(tf.gather(emb, ids) - 1.0))
    g, = tf.gradients(loss, [emb])
    assert isinstance(g, tf.IndexedSlices)
    norm = tf.sqrt(tf.reduce_sum(tf.square(g.values)))
    clipped = tf.scalar_mul(0.1 / norm, g)
    dense_shape = copy.copy(clipped.dense_shape)
    g2 = tf.cond(norm >= 0.1, lambda: clipped, lambda: g)
    g2._dense_shape = dense_shape
    step = tf.assign_sub(emb, tf.convert_to_tensor(g2))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = sess.run(step, {ids: [1]})
    # the gradient of row 1 is 2 * (0.5 - 1) = -1, clipped to norm 0.1
    np.testing.assert_allclose(out, [[0.25], [0.6]], rtol=1e-6)


# ------------------------------------------------------------------------------------------
# cond branches and loop bodies run only what their outputs need (TF 1.x control flow)
# ------------------------------------------------------------------------------------------

def test_unused_stateful_op_in_loop_body_does_not_run():
    hits = tf.Variable(0)
    chained = tf.Variable(0)

    def body(i):
        tf.assign_add(hits, 1)  # its result is not used: TF 1.x prunes it
        with tf.control_dependencies([tf.assign_add(chained, 1)]):
            return i + 1

    out = tf.while_loop(lambda i: i < 4, body, [0])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(out) == 4
        assert sess.run([hits, chained]) == [0, 4]


def test_unused_stateful_op_in_cond_branch_does_not_run():
    v = tf.Variable(0)
    w = tf.Variable(0)
    pred = tf.placeholder(tf.bool, ())

    def true_fn():
        tf.assign_add(v, 5)
        return tf.constant(1)

    out = tf.cond(pred, true_fn, lambda: tf.constant(2))
    op_out = tf.cond(pred, lambda: tf.assign_add(w, 3).op, tf.no_op)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(out, {pred: True}) == 1
        assert sess.run(v) == 0
        sess.run(op_out, {pred: True})  # an Operation a branch returns does run
        sess.run(op_out, {pred: False})
        assert sess.run(w) == 3


def test_map_fn_body_updates_only_what_it_returns():
    total = tf.Variable(0.0)
    x = tf.placeholder(tf.float32, (None,))

    def fn(s):
        tf.assign_add(total, s)
        return s * 2.0

    y = tf.map_fn(fn, x)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(y, {x: [1.0, 2.0]}), [2.0, 4.0])
        assert sess.run(total) == 0.0
