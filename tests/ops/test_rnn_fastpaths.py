"""The fast paths that recurrent training steps take through Sum, Reshape, Shape,
BroadcastGradientArgs and the TensorList push/pop kernels: each gives what the general path
gives, and the cases the fast path must leave alone still get the general answer or error."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.ops import list_ops


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


# ------------------------------------------------------------------------------------------
# Sum
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int8, np.int32])
@pytest.mark.parametrize("keep", [False, True])
def test_sum_over_no_axes_is_the_input(dtype, keep):
    x = np.arange(-6, 6).reshape(3, 4).astype(dtype)
    with tf.Graph().as_default():
        p = tf.placeholder(dtype, [None, 4])
        axes = tf.placeholder(tf.int32, [None])
        out = _run(tf.reduce_sum(p, axes, keepdims=keep), {p: x, axes: np.zeros(0, np.int32)})
    assert out.dtype == dtype and out.shape == (3, 4)
    np.testing.assert_array_equal(out, x)


@pytest.mark.parametrize("axes", [[0], [1], [-1], [0, 1], [1, 0], [-2, 1]])
@pytest.mark.parametrize("keep", [False, True])
def test_float_sums_match_numpy(axes, keep):
    x = np.random.RandomState(1).randn(5, 7).astype(np.float32)
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None, 7])
        a = tf.placeholder(tf.int32, [None])
        out = _run(tf.reduce_sum(p, a, keepdims=keep), {p: x, a: np.array(axes, np.int32)})
    want = np.sum(x, axis=tuple(a % 2 for a in axes), keepdims=keep)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_half_sum_still_accumulates_in_float32():
    # 4096 ones: a float16 accumulator stops at 2048 (2048 + 1 rounds back to 2048)
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float16, [None])
        out = _run(tf.reduce_sum(p, [0]), {p: np.ones(4096, np.float16)})
    assert out.dtype == np.float16 and float(out) == 4096.0


def test_small_int_sum_wraps_in_its_own_type():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.int8, [None])
        out = _run(tf.reduce_sum(p, [0]), {p: np.full(3, 100, np.int8)})
    assert out.dtype == np.int8 and int(out) == np.int8(300 - 256)


def test_sum_bad_axis_still_fails():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None, 3])
        a = tf.placeholder(tf.int32, [None])
        s = tf.reduce_sum(p, a)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid reduction dimension"):
            _run(s, {p: np.ones((2, 3), np.float32), a: np.array([2], np.int32)})


# ------------------------------------------------------------------------------------------
# Reshape and Shape
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape,want", [([6, 2], (6, 2)), ([-1, 3], (4, 3)),
                                        ([2, -1, 2], (2, 3, 2)), ([12], (12,))])
def test_reshape_by_a_runtime_shape(shape, want):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None, 4])
        s = tf.placeholder(tf.int32, [None])
        out = _run(tf.reshape(p, s), {p: x, s: np.array(shape, np.int32)})
    np.testing.assert_array_equal(out, x.reshape(want))


@pytest.mark.parametrize("shape,match", [([-1, -1], "Only one input size may be -1"),
                                         ([5, 2], "has 10"), ([5, -1], "multiple of 5"),
                                         # NumPy would take -2 as -1 (TF's message)
                                         ([-2, 6], "Size 0 must be non-negative")])
def test_reshape_errors_keep_tf_messages(shape, match):
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None, 4])
        s = tf.placeholder(tf.int32, [None])
        r = tf.reshape(p, s)
        with pytest.raises(tf.errors.InvalidArgumentError, match=match):
            _run(r, {p: np.zeros((3, 4), np.float32), s: np.array(shape, np.int32)})


@pytest.mark.parametrize("out_type", [tf.int32, tf.int64])
def test_shape_of_a_runtime_tensor(out_type):
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None, None])
        out = _run(tf.shape(p, out_type=out_type), {p: np.zeros((3, 5), np.float32)})
    assert out.dtype == out_type.as_numpy_dtype
    np.testing.assert_array_equal(out, [3, 5])


# ------------------------------------------------------------------------------------------
# BroadcastGradientArgs
# ------------------------------------------------------------------------------------------


def _bga(s0, s1, dtype=np.int32):
    with tf.Graph().as_default():
        a = tf.placeholder(dtype, [None])
        b = tf.placeholder(dtype, [None])
        r0, r1 = tf.raw_ops.BroadcastGradientArgs(s0=a, s1=b)
        with tf.Session() as sess:
            feed = {a: np.array(s0, dtype), b: np.array(s1, dtype)}
            return sess.run([r0, r1], feed), sess.run([r0, r1], feed)


@pytest.mark.parametrize("s0,s1,w0,w1", [([16, 32], [16, 32], [], []),
                                         ([16, 32], [32], [], [0]),
                                         ([1, 32], [16, 32], [0], []),
                                         ([16, 1], [1, 32], [1], [0]),
                                         ([1, 1], [1], [0, 1], [0, 1]),
                                         ([], [4, 3], [0, 1], []),
                                         ([2, 3, 4], [3, 1], [], [0, 2])])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_broadcast_gradient_args_repeated(s0, s1, w0, w1, dtype):
    first, again = _bga(s0, s1, dtype)
    for r0, r1 in (first, again):  # the second run asks the same question (a cached answer)
        assert r0.dtype == dtype and r1.dtype == dtype
        np.testing.assert_array_equal(r0, w0)
        np.testing.assert_array_equal(r1, w1)
        assert r0.flags.writeable and r1.flags.writeable
    for r in first[0]:
        r += 7  # a fetched answer is the caller's own: changing it changes no later one
    again = _bga(s0, s1, dtype)[0]
    np.testing.assert_array_equal(again[0], w0)
    np.testing.assert_array_equal(again[1], w1)


def test_same_bytes_different_rank_are_different_questions():
    # [1, 1] vs [1] and [1] vs [1, 1] (or [2, 1] vs [3] and [2] vs [1, 3]) are the same bytes
    # end to end: each pair gets its own answer
    assert [list(r) for r in _bga([1, 1], [1])[0]] == [[0, 1], [0, 1]]
    assert [list(r) for r in _bga([1], [1, 1])[0]] == [[0, 1], [0, 1]]
    assert [list(r) for r in _bga([3, 1], [3])[0]] == [[1], [0]]
    assert [list(r) for r in _bga([3], [1, 3])[0]] == [[0], [0]]


def test_broadcast_gradient_args_incompatible_fails_every_time():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.int32, [None])
        b = tf.placeholder(tf.int32, [None])
        r = tf.raw_ops.BroadcastGradientArgs(s0=a, s1=b)
        with tf.Session() as sess:
            for _ in range(2):
                with pytest.raises(Exception, match=r"Incompatible shapes: \[2,3\] vs. \[4\]"):
                    sess.run(r, {a: [2, 3], b: [4]})


def test_broadcast_gradient_of_partially_known_shapes():
    # [?, 3] * [?, 3] and [?, 3] * [1, 3] fed at run time: the gradient sums only where needed
    x = np.random.RandomState(0).randn(4, 3).astype(np.float32)
    for yv in (np.random.RandomState(1).randn(4, 3), np.random.RandomState(2).randn(1, 3)):
        yv = yv.astype(np.float32)
        with tf.Graph().as_default():
            a = tf.placeholder(tf.float32, [None, 3])
            b = tf.placeholder(tf.float32, [None, 3])
            ga, gb = tf.gradients(tf.reduce_sum(a * b), [a, b])
            va, vb = _run([ga, gb], {a: x, b: yv})
        np.testing.assert_allclose(va, np.broadcast_to(yv, x.shape), rtol=1e-6)
        np.testing.assert_allclose(vb, np.sum(x, 0, keepdims=True) if len(yv) == 1 else x,
                                   rtol=1e-6)


# ------------------------------------------------------------------------------------------
# TensorList push / pop
# ------------------------------------------------------------------------------------------


def test_push_pop_lists_are_immutable_values():
    a = np.float32(1)
    empty = list_ops.TensorList((), (2,))
    one = list_ops._push_kernel(empty, a)
    two = list_ops._push_kernel(one, np.float32(2))
    other = list_ops._push_kernel(one, np.float32(3))  # a second branch from the same list
    rest, top = list_ops._pop_kernel(two, -1)
    assert (len(empty), len(one), len(two), len(other), len(rest)) == (0, 1, 2, 2, 1)
    assert top == 2 and other.items() == (1, 3) and two.items() == (1, 2)
    assert rest.items() == (1,) and rest.element_shape == (2,) == two.element_shape
    rest2, first = list_ops._pop_kernel(rest, -1)
    assert first == 1 and len(rest2) == 0
    with pytest.raises(tf.errors.InvalidArgumentError, match="pop from an empty list"):
        list_ops._pop_kernel(rest2, -1)


def test_pop_below_the_pushed_items_reaches_the_base():
    base = list_ops._from_tensor_kernel(np.arange(3, dtype=np.float32), -1)
    lst = list_ops._push_kernel(base, np.float32(9))
    got = []
    for _ in range(4):
        lst, v = list_ops._pop_kernel(lst, -1)
        got.append(float(v))
    assert got == [9, 2, 1, 0] and len(lst) == 0 and len(base) == 3


def test_list_ops_in_a_graph():
    with tf.Graph().as_default():
        lst = list_ops.empty_tensor_list([2], tf.float32)
        for i in range(3):
            lst = list_ops.push_back(lst, tf.fill([2], float(i)))
        rest, last = list_ops.pop_back(lst, tf.float32, [2])
        out = _run([last, list_ops.stack(rest, tf.float32, [2]), list_ops.length(lst)])
    np.testing.assert_array_equal(out[0], [2, 2])
    np.testing.assert_array_equal(out[1], [[0, 0], [1, 1]])
    assert out[2] == 3


# ------------------------------------------------------------------------------------------
# end to end: a loop gradient (accumulators pushed and popped, broadcast gradients of
# partially known shapes) equals the unrolled one
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cell", ["gru", "lstm"])
def test_dynamic_rnn_gradients_equal_static_rnn_gradients(cell):
    rng = np.random.RandomState(0)
    xv = rng.randn(3, 5, 4).astype(np.float32)
    grads = []
    for driver in ("dynamic", "static"):
        with tf.Graph().as_default():
            tf.set_random_seed(1)
            x = tf.placeholder(tf.float32, [None, 5, 4])
            c = (tf.nn.rnn_cell.GRUCell(6, kernel_initializer=tf.constant_initializer(0.1))
                 if cell == "gru" else
                 tf.nn.rnn_cell.LSTMCell(6, initializer=tf.constant_initializer(0.1)))
            if driver == "dynamic":
                out, _ = tf.nn.dynamic_rnn(c, x, dtype=tf.float32)
            else:
                out = tf.stack(tf.nn.static_rnn(c, tf.unstack(x, axis=1), dtype=tf.float32)[0],
                               1)
            loss = tf.reduce_sum(out * out)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                grads.append(sess.run(tf.gradients(loss, [x] + tf.trainable_variables()),
                                      {x: xv}))
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------------------
# loop gradients copy the body's constants instead of accumulating them
# ------------------------------------------------------------------------------------------


def _body_pushes(graph):
    from tideflow.framework import func_graph

    (loop,) = [op for op in graph.get_operations() if op.type == "While"
               and "gradients" not in op.name]
    body = func_graph.lookup_function(graph, loop._attrs["body"])
    return [op.inputs[1].op.type for op in body.get_operations()
            if op.type == "TensorListPushBack"]


def test_loop_gradient_copies_body_constants():
    xv = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 2])

        def body(i, h):
            scale = tf.constant([2.0, -3.0])  # needed by the gradient of the product
            return i + 1, tf.tanh(h * scale)

        _, h = tf.while_loop(lambda i, h: i < 3, body, [0, x])
        (gx,) = tf.gradients(tf.reduce_sum(h), [x])
        got = _run(gx, {x: xv})
        pushed = _body_pushes(g)
    # NumPy: forward and backward through three steps of tanh(h * s)
    s, hs = np.array([2.0, -3.0], np.float32), [xv]
    for _ in range(3):
        hs.append(np.tanh(hs[-1] * s))
    g_ = np.ones_like(xv)
    for k in range(3, 0, -1):
        g_ = g_ * (1 - hs[k] ** 2) * s
    # (float32 tanh is TF's approximation, so 1 - h^2 near saturation moves in the 4th digit)
    np.testing.assert_allclose(got, g_, rtol=1e-5, atol=1e-7)
    assert "Const" not in pushed and pushed  # the loop variable h is still accumulated


def test_loop_gradient_still_accumulates_computed_values():
    # the same multiplier computed from the loop counter changes every iteration: it must be
    # accumulated, not copied
    xv = np.array([1.5, -0.5], np.float32)
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [2])

        def body(i, h):
            scale = tf.cast(i + 1, tf.float32) * tf.constant([1.0, 2.0])
            return i + 1, h * scale * h

        _, h = tf.while_loop(lambda i, h: i < 2, body, [0, x])
        (gx,) = tf.gradients(tf.reduce_sum(h), [x])
        got = _run(gx, {x: xv})
        pushed = _body_pushes(g)
    c = np.array([1.0, 2.0], np.float32)
    h1 = 1 * c * xv * xv
    # h2 = 2c * h1^2, dh2/dx = 2c * 2 h1 * (1c * 2x)
    np.testing.assert_allclose(got, 2 * c * 2 * h1 * (1 * c * 2 * xv), rtol=1e-5)
    assert "Mul" in pushed and "Const" not in pushed


# ------------------------------------------------------------------------------------------
# StridedSliceGrad (the gradient of the gate slices of a recurrent cell)
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("index", ["cols", "shrink", "strided"])
def test_strided_slice_gradient_by_a_runtime_shape(index):
    xv = np.arange(24, dtype=np.float32).reshape(4, 6)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 6])
        y = {"cols": lambda: x[:, 2:4], "shrink": lambda: x[1],
             "strided": lambda: x[::2, ::-3]}[index]()
        (g,) = tf.gradients(tf.reduce_sum(y * y), [x])
        got = _run(g, {x: xv})
    want = np.zeros_like(xv)
    sl = {"cols": np.s_[:, 2:4], "shrink": np.s_[1], "strided": np.s_[::2, ::-3]}[index]
    want[sl] = 2 * xv[sl]
    np.testing.assert_array_equal(got, want)


def test_strided_slice_grad_wrong_dy_shape_fails():
    with tf.Graph().as_default():
        dy = tf.placeholder(tf.float32, [None, None])
        g = tf.raw_ops.StridedSliceGrad(shape=tf.constant([4, 6]), begin=[0, 2], end=[0, 4],
                                        strides=[1, 1], dy=dy, begin_mask=1, end_mask=1)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape of dy was \[4, 3\]"):
            _run(g, {dy: np.zeros((4, 3), np.float32)})
        np.testing.assert_array_equal(_run(g, {dy: np.ones((4, 2), np.float32)}).sum(0),
                                      [0, 0, 4, 4, 0, 0])
