"""Gradients of the array ops beyond the op table: sparse gathers, slicing with every kind of
index, unknown shapes, stop_gradient, casts, boolean_mask and where.
"""

import numpy as np
import pytest

import tideflow as tf
from tideflow.framework.indexed_slices import IndexedSlices
from tideflow.ops.gradients import dense, gradients


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def _numeric(sess, loss, ph, feed, delta=1e-6):
    x = feed[ph]
    out = np.zeros_like(x)
    flat = x.reshape(-1)
    for j in range(flat.size):
        orig = flat[j]
        flat[j] = orig + delta
        fp = sess.run(loss, feed)
        flat[j] = orig - delta
        fm = sess.run(loss, feed)
        flat[j] = orig
        out.reshape(-1)[j] = (fp - fm) / (2 * delta)
    return out


def _check(fn, *arrays, shapes=None, dtypes=None):
    """Checks d sum(fn(*xs) * w) / dx for every float64 input against central differences.

    ``shapes`` gives each placeholder's static shape (None: unknown rank), default the
    arrays' own shapes; non-float arrays are fed as they are and not differentiated.
    """
    arrays = [np.asarray(a) for a in arrays]
    shapes = shapes if shapes is not None else [a.shape for a in arrays]
    phs = [tf.placeholder(tf.as_dtype(a.dtype), shape=s) for a, s in zip(arrays, shapes)]
    feed = dict(zip(phs, arrays))
    y = fn(*phs)
    with tf.Session() as sess:
        y_value = sess.run(y, feed)
    w = tf.constant(np.random.RandomState(1).uniform(-1, 1, size=np.shape(y_value)))
    loss = tf.reduce_sum(y * w)
    which = [p for p, a in zip(phs, arrays) if a.dtype == np.float64]
    grads = gradients(loss, which)
    assert all(g is not None for g in grads)
    with tf.Session() as sess:
        got = sess.run([dense(g) for g in grads], feed)
        for p, g in zip(which, got):
            assert g.shape == feed[p].shape
            np.testing.assert_allclose(g, _numeric(sess, loss, p, feed), rtol=1e-6, atol=1e-6)
    return grads


def _x(*shape, start=0.5):
    return (np.arange(int(np.prod(shape)), dtype=np.float64) * 0.37 + start).reshape(shape)


# -- gather: sparse gradients ---------------------------------------------------------------


def test_gather_gradient_is_indexed_slices_with_the_params_shape():
    params = tf.placeholder(tf.float64, [4, 3])
    ids = tf.constant([3, 1])
    (g,) = gradients(tf.reduce_sum(tf.gather(params, ids) * 2.0), [params])
    assert isinstance(g, IndexedSlices)
    assert g.get_shape().as_list() == [4, 3]
    with tf.Session() as sess:
        v = sess.run(g, {params: _x(4, 3)})
        d = sess.run(dense(g), {params: _x(4, 3)})
    assert v.dense_shape.tolist() == [4, 3] and v.indices.tolist() == [3, 1]
    assert v.values.shape == (2, 3)
    want = np.zeros((4, 3))
    want[[3, 1]] = 2.0
    np.testing.assert_array_equal(d, want)


def test_gather_gradient_matches_finite_differences():
    ids = np.array([[2, 0], [2, 2]], np.int32)
    grads = _check(lambda p, i: tf.gather(p, i), _x(3, 4), ids)
    assert isinstance(grads[0], IndexedSlices)
    _check(lambda p, i: tf.gather(p, i, axis=1), _x(3, 4), ids)
    _check(lambda p: tf.gather(p, 1), _x(3, 4))  # a scalar index


def test_embedding_lookup_with_duplicate_ids_sums_rows():
    table = tf.placeholder(tf.float64, [5, 2])
    ids = tf.constant([1, 3, 1, 1])
    (g,) = gradients(tf.reduce_sum(tf.gather(table, ids)), [table])
    with tf.Session() as sess:
        d = sess.run(dense(g), {table: _x(5, 2)})
    np.testing.assert_array_equal(d[:, 0], [0, 3, 0, 1, 0])
    np.testing.assert_array_equal(d[:, 1], [0, 3, 0, 1, 0])


def test_gather_from_a_variable_gives_indexed_slices():
    v = tf.Variable(_x(4, 2))
    (g,) = gradients(tf.reduce_sum(tf.gather(v, [0, 0, 3])), [v])
    assert isinstance(g, IndexedSlices)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        d = sess.run(dense(g))
    np.testing.assert_array_equal(d, [[2, 2], [0, 0], [0, 0], [1, 1]])


def test_two_gathers_of_one_param_concatenate_their_slices():
    params = tf.placeholder(tf.float64, [3, 2])
    loss = tf.reduce_sum(tf.gather(params, [0])) + tf.reduce_sum(tf.gather(params, [0, 2]))
    (g,) = gradients(loss, [params])
    assert isinstance(g, IndexedSlices)
    with tf.Session() as sess:
        d = sess.run(dense(g), {params: _x(3, 2)})
    np.testing.assert_array_equal(d, [[2, 2], [0, 0], [1, 1]])


def test_sparse_gradients_with_int32_and_int64_ids_aggregate():
    params = tf.placeholder(tf.float64, [3, 2])
    ids64 = tf.constant([0], tf.int64)
    loss = tf.reduce_sum(tf.gather(params, ids64)) + tf.reduce_sum(tf.gather(params, [2, 0]))
    loss += tf.reduce_sum(tf.gather_nd(params, np.array([[1]], np.int64)))
    (g,) = gradients(loss, [params])
    assert isinstance(g, IndexedSlices) and g.indices.dtype == tf.int64
    with tf.Session() as sess:
        d = sess.run(dense(g), {params: _x(3, 2)})
    np.testing.assert_array_equal(d, [[2, 2], [1, 1], [1, 1]])


def test_gather_nd_and_scatter_nd():
    _check(lambda p: tf.gather_nd(p, [[0, 1], [2, 3], [0, 1]]), _x(3, 4))
    _check(lambda p: tf.gather_nd(p, [[[1], [0]]]), _x(3, 4, 2))
    _check(lambda u: tf.scatter_nd([[1], [3], [1]], u, [5, 2]), _x(3, 2))


# -- concat / split / stack -------------------------------------------------------------------


def test_concat_split_round_trips():
    x, y = tf.placeholder(tf.float64, [2, 3]), tf.placeholder(tf.float64, [2, 2])
    parts = tf.split(tf.concat([x, y], 1), [3, 2], 1)
    gx, gy = gradients([parts[0] * 2.0, parts[1] * 3.0], [x, y])
    with tf.Session() as sess:
        vx, vy = sess.run([gx, gy], {x: _x(2, 3), y: _x(2, 2)})
    np.testing.assert_array_equal(vx, np.full((2, 3), 2.0))
    np.testing.assert_array_equal(vy, np.full((2, 2), 3.0))
    # split then concat (pieces in a new order): each piece's gradient lands back in place
    _check(lambda z: tf.concat(tf.split(z, 3, axis=0)[::-1], 0), _x(6, 2))
    _check(lambda z: tf.stack(tf.unstack(z, axis=1)[1:], axis=0), _x(2, 3))


def test_unused_outputs_of_split_get_zero_gradients():
    x = tf.placeholder(tf.float64, [4, 2])
    a, _ = tf.split(x, 2)
    (g,) = gradients(tf.reduce_sum(a), [x])
    with tf.Session() as sess:
        v = sess.run(g, {x: _x(4, 2)})
    np.testing.assert_array_equal(v, [[1, 1], [1, 1], [0, 0], [0, 0]])


def test_concat_along_a_fed_axis_and_negative_axis():
    _check(lambda a, b, k: tf.concat([a, b], k), _x(2, 3), _x(2, 3), np.array(1, np.int32))
    _check(lambda a, b: tf.concat([a, b], -2), _x(2, 3), _x(1, 3))


def test_concat_of_gathered_rows_gives_indexed_slices_per_input():
    # as TF's _ConcatGradHelper: the gather's IndexedSlices split by rows among the inputs
    a, b = tf.placeholder(tf.float64, [2, 2]), tf.placeholder(tf.float64, [1, 2])
    both = tf.concat([a, b], 0)
    ga, gb = gradients(tf.reduce_sum(tf.gather(both, [2, 0, 2])), [a, b])
    assert type(ga).__name__ == type(gb).__name__ == "IndexedSlices"
    with tf.Session() as sess:
        va, vb = sess.run([tf.convert_to_tensor(ga), tf.convert_to_tensor(gb)],
                          {a: _x(2, 2), b: _x(1, 2)})
    np.testing.assert_array_equal(va, [[1, 1], [0, 0]])
    np.testing.assert_array_equal(vb, [[2, 2]])


# -- __getitem__ ------------------------------------------------------------------------------


@pytest.mark.parametrize("index", [
    np.s_[1:, ::2],
    np.s_[::-1, -2],
    np.s_[-3:-1, ::-2, 1],
    np.s_[..., 1:3],
    np.s_[:, tf.newaxis, 0],
    np.s_[1, ..., tf.newaxis, -1],
    np.s_[0, 1, 2],
    np.s_[5:],
    np.s_[:, -10:10:3],
], ids=str)
def test_getitem_gradients(index):
    _check(lambda x: x[index], _x(3, 4, 5))


def test_getitem_with_tensor_bounds_and_unknown_shape():
    _check(lambda x, i: x[i:i + 2, i], _x(3, 4), np.array(1, np.int32))
    _check(lambda x: x[1:, ::-1], _x(3, 4), shapes=[None])


# -- unknown shapes (placeholders of shape None), 0-d tensors ---------------------------------


@pytest.mark.parametrize("fn", [
    lambda x: tf.reshape(x, [-1, 2]),
    lambda x: tf.transpose(x),
    lambda x: tf.transpose(x, [1, 0, 2]),
    lambda x: tf.concat([x, x * 2.0], 1),
    lambda x: tf.tile(x, [2, 1, 3]),
    lambda x: tf.squeeze(tf.expand_dims(x, 1), [1]),
    lambda x: tf.pad(x, [[1, 0], [0, 2], [1, 1]]),
    lambda x: tf.pad(x, [[1, 0], [0, 2], [1, 1]], "REFLECT"),
    lambda x: tf.slice(x, [0, 1, 1], [2, -1, 1]),
    lambda x: tf.gather(x, [1, 0, 1], axis=2),
    lambda x: tf.broadcast_to(x, [3, 2, 3, 2]),
    lambda x: tf.reverse(x, [1]),
    lambda x: tf.stack([x, x], axis=1),
    lambda x: tf.split(x, 3, axis=1)[2],
    lambda x: tf.where_v2(x > 1.0, x, 1.0),
], ids=["reshape", "transpose", "transpose_perm", "concat", "tile", "squeeze_expand", "pad",
        "mirror_pad", "slice", "gather_axis2", "broadcast_to", "reverse", "stack", "split",
        "where_v2"])
def test_gradients_with_unknown_shapes(fn):
    _check(fn, _x(2, 3, 2), shapes=[None])
    _check(fn, _x(2, 3, 2), shapes=[[None, 3, None]])


def test_gradients_of_scalars():
    _check(lambda x: tf.reshape(x, [1, 1]), np.float64(1.5))
    _check(lambda x: tf.tile(x, []), np.float64(1.5))
    _check(lambda x: tf.expand_dims(x, 0), np.float64(1.5), shapes=[None])
    _check(lambda x: tf.fill([2, 3], x), np.float64(1.5), shapes=[None])
    _check(lambda x: tf.stack([x, 2.0 * x]), np.float64(1.5))
    _check(lambda x: tf.reshape(x, []), _x(1, 1), shapes=[None])


# -- stop_gradient, identity, placeholder_with_default, cast ---------------------------------


def test_stop_gradient_blocks_the_gradient():
    x = tf.placeholder(tf.float64, [3])
    (g,) = gradients(tf.reduce_sum(tf.stop_gradient(x) * x), [x])
    assert gradients(tf.reduce_sum(tf.stop_gradient(x)), [x]) == [None]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(g, {x: _x(3)}), _x(3))


def test_identity_and_placeholder_with_default_pass_the_gradient():
    x = tf.placeholder(tf.float64, [2])
    y = tf.placeholder_with_default(x * 3.0, shape=[None])
    a, b = tf.identity_n([y, x])
    (g,) = gradients(tf.reduce_sum(tf.identity(a) + b), [x])
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(g, {x: _x(2)}), [4.0, 4.0])


def test_cast_gradients():
    x = tf.placeholder(tf.float32, [3])
    y = tf.cast(x, tf.float64)
    (g,) = gradients(tf.reduce_sum(y * y), [x])
    assert g.dtype == tf.float32
    with tf.Session() as sess:
        v = sess.run(g, {x: np.array([1.0, -2.0, 0.5], np.float32)})
    assert v.dtype == np.float32
    np.testing.assert_allclose(v, [2.0, -4.0, 1.0])
    # through an integer type nothing flows
    z = tf.placeholder(tf.float64, [3])
    assert gradients(tf.cast(tf.cast(z, tf.int32), tf.float64), [z]) == [None]
    _check(lambda t: tf.cast(tf.cast(t, tf.complex128), tf.float64), _x(3))


# -- boolean_mask, where, select ----------------------------------------------------------


def test_gradients_through_boolean_mask():
    mask = np.array([[True, False, True], [False, False, True]])
    grads = _check(lambda x, m: tf.boolean_mask(x, m), _x(2, 3, 2), mask)
    assert not isinstance(grads[0], IndexedSlices)  # the reshape back densified it
    _check(lambda x, m: tf.boolean_mask(x, m, axis=1), _x(3, 2, 3), mask)
    _check(lambda x: tf.boolean_mask(x, x > 2.0), _x(2, 3), shapes=[[None, 3]])


def test_gradients_through_where():
    c = np.array([[True, False, True], [False, False, True]])
    _check(lambda x, y, k: tf.where(k, x, y), _x(2, 3), _x(2, 3, start=9.0), c)
    _check(lambda x, y, k: tf.where(k, x, y), _x(2, 3), _x(2, 3, start=9.0), c[:, 0])
    _check(lambda x, y, k: tf.where_v2(k, x, y), _x(3), _x(2, 1), c)
    # where(cond) on a float tensor gives coordinates: no gradient through them
    x = tf.placeholder(tf.float64, [4])
    idx = tf.where(x > 1.0)
    assert gradients(tf.reduce_sum(tf.cast(idx, tf.float64)), [x]) == [None]


# -- not differentiable ---------------------------------------------------------------------


def test_not_differentiable_array_ops_give_none():
    x = tf.placeholder(tf.float64, [2, 3])
    on = tf.placeholder(tf.float64, [])
    loss = tf.reduce_sum(tf.one_hot([0, 2], 3, on_value=on, off_value=tf.constant(0.0, tf.float64)))
    assert gradients(loss, [on]) == [None]
    shape_sum = tf.reduce_sum(tf.cast(tf.shape(x), tf.float64)) + tf.reduce_sum(
        tf.zeros_like(x) + tf.ones_like(x))
    assert gradients(shape_sum, [x]) == [None]
