"""Kernel shortcuts that speed up recurrent-network training steps while giving the same values:
MatMul of a few rows by a wide transposed operand (a gradient's ``g @ W^T``) run with the
operands' roles swapped, checked against NumPy's product and for layout. The values agree to
the last few bits only: OpenBLAS 0.3.31 (NumPy 2.4.6's) blocks a product differently by its
operands' order and row count, so a swapped or row-split product rounds otherwise."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.kernels import threads


def _same_product(got, want):
    """Equal but for BLAS's summation order (float32: a few ulps of the largest terms)."""
    tight = np.finfo(want.dtype).eps
    np.testing.assert_allclose(got, want, rtol=50 * tight, atol=50 * tight * np.abs(want).max())


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
@pytest.mark.parametrize("m,k,n", [(32, 512, 192), (32, 256, 128), (8, 64, 256), (1, 300, 40)])
def test_small_times_wide_transposed_matches_numpy(dtype, m, k, n):
    rng = np.random.RandomState(m + k + n)
    x = rng.randn(m, k).astype(dtype)
    w = rng.randn(n, k).astype(dtype)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.randn(m, k).astype(dtype)
    assert threads._swapped(x, w.T, m, n)
    got = threads.matmul(x, w.T)
    want = np.matmul(x, w.T)
    assert got.dtype == want.dtype and got.shape == (m, n)
    assert got.flags.c_contiguous  # downstream reductions see the usual layout
    _same_product(got, want)


def test_not_swapped_when_rows_are_many_or_operand_contiguous():
    rng = np.random.RandomState(0)
    x = rng.randn(200, 64).astype(np.float32)
    w = rng.randn(256, 64).astype(np.float32)
    assert not threads._swapped(x, w.T, 200, 256)  # many rows
    # an MLP's batch of 128 (g @ W^T of a 512x512 layer): swapped and copied back, slower
    assert not threads._swapped(x[:128], w.T, 128, 512)
    assert not threads._swapped(x[:32], np.ascontiguousarray(w.T), 32, 256)  # not transposed
    assert not threads._swapped(x[:32].T.copy().T, w.T, 32, 256)  # left side transposed
    _same_product(threads.matmul(x, w.T), x @ w.T)


def test_matmul_op_transpose_b_and_its_gradient():
    rng = np.random.RandomState(1)
    xv = rng.randn(32, 96).astype(np.float32)
    wv = rng.randn(256, 96).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.constant(xv)
        w = tf.Variable(wv)
        y = tf.matmul(x, w, transpose_b=True)
        gx, gw = tf.gradients(tf.reduce_sum(y * y), [x, w])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            yv, gxv, gwv = sess.run([y, gx, gw])
    _same_product(yv, xv @ wv.T)
    # d/dx sum((x W^T)^2) = 2 y W; d/dW = 2 y^T x
    np.testing.assert_allclose(gxv, 2 * (xv @ wv.T) @ wv, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(gwv, 2 * (xv @ wv.T).T @ xv, rtol=1e-4, atol=1e-3)


# --- AddN of many gradients summed as its inputs are computed (runtime/accumulate.py) -------

def _plan_sources(sess):
    return "\n".join(getattr(p, "source", "") for p in sess._plans.values())


def test_add_n_of_products_summed_as_they_come_matches_numpy():
    # (six [128, 512] products: 1.5 MB held as written, enough to sum as they come)
    rng = np.random.RandomState(2)
    xs = [rng.randn(16, 128).astype(np.float32) for _ in range(6)]
    gs = [rng.randn(16, 512).astype(np.float32) for _ in range(6)]
    with tf.Graph().as_default():
        phs = [(tf.placeholder(tf.float32, [16, 128]), tf.placeholder(tf.float32, [16, 512]))
               for _ in range(6)]
        total = tf.add_n([tf.matmul(x, g, transpose_a=True) for x, g in phs])
        feed = {}
        for (px, pg), x, g in zip(phs, xs, gs):
            feed[px], feed[pg] = x, g
        with tf.Session() as sess:
            got = sess.run(total, feed)
            assert "__sum__" in _plan_sources(sess)
    want = sum(x.T.astype(np.float64) @ g for x, g in zip(xs, gs))
    assert got.dtype == np.float32 and got.shape == (128, 512)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_add_n_input_also_fetched_or_not_fresh_is_left_alone():
    rng = np.random.RandomState(3)
    a = [rng.randn(4, 5) for _ in range(4)]
    with tf.Graph().as_default():
        cs = [tf.constant(v) for v in a]
        w = tf.placeholder(tf.float64, [5, 5])
        prods = [tf.matmul(c, w) for c in cs]
        reshaped = [tf.reshape(c, [4, 5]) for c in cs]  # views: never summed in place
        s1 = tf.add_n(prods)
        s2 = tf.add_n(reshaped + [prods[0] * 1.0])
        wv = rng.randn(5, 5)
        with tf.Session() as sess:
            v1, p0, v2 = sess.run([s1, prods[0], s2], {w: wv})
            v1b = sess.run(s1, {w: wv})
    np.testing.assert_allclose(v1, sum(x @ wv for x in a), rtol=1e-12)
    np.testing.assert_array_equal(v1, v1b)
    np.testing.assert_allclose(p0, a[0] @ wv, rtol=1e-12)
    np.testing.assert_allclose(v2, sum(a) + a[0] @ wv, rtol=1e-12)
    for x in a:  # the constants' buffers were not written into
        assert np.isfinite(x).all()


def test_unrolled_rnn_weight_gradient_against_finite_differences():
    rng = np.random.RandomState(4)
    steps, batch, depth, hidden = 6, 3, 4, 5
    xv = rng.randn(steps, batch, depth)
    wv = rng.randn(depth + hidden, hidden) * 0.5

    def loss_np(w):
        h = np.zeros((batch, hidden))
        for t in range(steps):
            h = np.tanh(np.concatenate([xv[t], h], 1) @ w)
        return np.sum(h ** 2)

    with tf.Graph().as_default():
        x = tf.constant(xv)
        w = tf.Variable(wv)
        h = tf.zeros([batch, hidden], tf.float64)
        for t in range(steps):
            h = tf.tanh(tf.matmul(tf.concat([x[t], h], 1), w))
        loss = tf.reduce_sum(h ** 2)
        (gw,) = tf.gradients(loss, [w])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            lv, gv = sess.run([loss, gw])
            # (six [9, 5] products are too few bytes to sum as they come: TF's AddN order)
            assert "__sum__" not in _plan_sources(sess)
    np.testing.assert_allclose(lv, loss_np(wv), rtol=1e-12)
    eps = 1e-6
    fd = np.zeros_like(wv)
    for i in range(wv.shape[0]):
        for j in range(wv.shape[1]):
            d = np.zeros_like(wv)
            d[i, j] = eps
            fd[i, j] = (loss_np(wv + d) - loss_np(wv - d)) / (2 * eps)
    np.testing.assert_allclose(gv, fd, rtol=1e-6, atol=1e-7)


def test_static_rnn_training_step_matches_numpy_sum_order_free():
    # a GRU unrolled over 8 steps: the weight gradients (AddNs of 8 products each, in TF's
    # sorted order) agree with the same graph run with the plan's optimizations off
    # (input-order AddN) within rounding
    rng = np.random.RandomState(5)
    xv = rng.rand(4, 8, 3).astype(np.float32)
    results = []
    for optimize in (True, False):
        with tf.Graph().as_default():
            tf.set_random_seed(1)
            x = tf.constant(xv)
            out, _ = tf.nn.static_rnn(tf.nn.rnn_cell.GRUCell(6), tf.unstack(x, axis=1),
                                      dtype=tf.float32)
            loss = tf.reduce_sum(out[-1] ** 2)
            grads = tf.gradients(loss, tf.trainable_variables())
            cfg = tf.ConfigProto(graph_options=tf.GraphOptions(
                optimizer_options=tf.OptimizerOptions(
                    opt_level=tf.OptimizerOptions.L1 if optimize else tf.OptimizerOptions.L0,
                    do_common_subexpression_elimination=optimize,
                    do_constant_folding=optimize)))
            with tf.Session(config=cfg) as sess:
                sess.run(tf.global_variables_initializer())
                results.append(sess.run(grads))
                # (8 small products: summed in TF's AddN order, not as they come)
                assert "__sum__" not in _plan_sources(sess)
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# --- Split and Slice kernels (an RNN cell's gates and the concat gradient's pieces) -----------

@pytest.mark.parametrize("shape,axis,n", [((6, 8), 1, 4), ((6, 8), 0, 3), ((2, 3, 8), -1, 2),
                                          ((4, 6, 2), 1, 6)])
def test_split_pieces_match_numpy(shape, axis, n):
    v = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    with tf.Graph().as_default():
        parts = tf.split(tf.constant(v) * 1.0, n, axis=axis)
        assert [p.shape.as_list() for p in parts] == [list(a.shape)
                                                      for a in np.split(v, n, axis=axis)]
        with tf.Session() as sess:
            got = sess.run(parts)
    for g, w in zip(got, np.split(v, n, axis=axis)):
        np.testing.assert_array_equal(g, w)


def test_split_uneven_raises_tf_error():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
        parts = tf.split(x, 3, axis=1)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                 match="evenly divide"):
            sess.run(parts, {x: np.zeros((2, 4), np.float32)})


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64])
def test_slice_with_fed_begin_and_size_matches_numpy(dtype):
    v = np.arange(60, dtype=np.float64).reshape(3, 4, 5)
    with tf.Graph().as_default():
        b = tf.placeholder(dtype, [3])
        z = tf.placeholder(dtype, [3])
        y = tf.slice(tf.constant(v), b, z)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(y, {b: [1, 0, 2], z: [2, -1, 3]}),
                                          v[1:3, :, 2:5])
            np.testing.assert_array_equal(sess.run(y, {b: [0, 3, 0], z: [-1, 1, -1]}),
                                          v[:, 3:4, :])
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected size\[2\]"):
                sess.run(y, {b: [0, 0, 3], z: [1, 1, 3]})


# --- BLAS held to one thread from a step's first small product to its end -------------------

@pytest.mark.skipif(threads._blas.get is None or (threads._blas_threads_at_start or 1) < 2,
                    reason="needs NumPy's OpenBLAS with more than one thread")
def test_small_products_hold_blas_to_one_thread_until_the_step_ends():
    seen = []

    def record(x):
        seen.append(threads._blas.get())
        return x

    rng = np.random.RandomState(6)
    av = rng.randn(32, 96).astype(np.float32)
    bv = rng.randn(96, 128).astype(np.float32)  # 393k multiply-adds: a small product
    before = threads._blas.get()
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [32, 96])
        p1 = tf.matmul(a, bv)
        r1 = tf.py_func(record, [p1], tf.float32)
        with tf.control_dependencies([r1]):
            p2 = tf.matmul(a, bv) + 0.0
        with tf.Session() as sess:
            for _ in range(2):
                v1, v2 = sess.run([r1, p2], {a: av})
                assert threads._blas.get() == before  # given back when the step ends
    assert seen == [1, 1]  # still one thread after the product, inside the step
    np.testing.assert_array_equal(v1, av @ bv)
    np.testing.assert_array_equal(v2, av @ bv)


# --- Sigmoid and Tanh gradients as TF's fused SigmoidGrad / TanhGrad ops ---------------------

def test_sigmoid_tanh_gradient_ops_as_tf():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [2])
        y = tf.sigmoid(x)
        z = tf.tanh(y)
        tf.gradients(tf.reduce_sum(z), [x])
        grads = {op.name: (op.type, [t.name for t in op.inputs])
                 for op in g.get_operations() if op.name.startswith("gradients/")
                 and ("Sigmoid_grad" in op.name or "Tanh_grad" in op.name)}
    # as TF 1.x writes them (checked against TensorFlow's tf.gradients)
    assert grads == {
        "gradients/Tanh_grad/TanhGrad": ("TanhGrad", ["Tanh:0", "gradients/Sum_grad/Tile:0"]),
        "gradients/Sigmoid_grad/SigmoidGrad": (
            "SigmoidGrad", ["Sigmoid:0", "gradients/Tanh_grad/TanhGrad:0"]),
    }


def test_sigmoid_tanh_gradients_against_numpy_and_finite_differences():
    rng = np.random.RandomState(7)
    xv = rng.randn(3, 4) * 2

    def f(x):
        s = 1 / (1 + np.exp(-x))
        return np.sum(np.tanh(s * 3) * x)

    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3, 4])
        loss = tf.reduce_sum(tf.tanh(tf.sigmoid(x) * 3) * x)
        (gx,) = tf.gradients(loss, [x])
        (ggx,) = tf.gradients(tf.reduce_sum(gx), [x])  # through SigmoidGrad/TanhGrad's grads
        with tf.Session() as sess:
            gv, ggv = sess.run([gx, ggx], {x: xv})
    s = 1 / (1 + np.exp(-xv))
    t = np.tanh(3 * s)
    want = t + x_dt(xv, s, t)
    np.testing.assert_allclose(gv, want, rtol=1e-12)
    eps = 1e-6
    fd = np.zeros_like(xv)
    for i in np.ndindex(xv.shape):
        d = np.zeros_like(xv)
        d[i] = eps
        fd[i] = (f(xv + d) - f(xv - d)) / (2 * eps)
    np.testing.assert_allclose(gv, fd, rtol=1e-6, atol=1e-8)

    def g_sum(x):
        s = 1 / (1 + np.exp(-x))
        t = np.tanh(3 * s)
        return np.sum(t + x_dt(x, s, t))

    fd2 = np.zeros_like(xv)
    for i in np.ndindex(xv.shape):
        d = np.zeros_like(xv)
        d[i] = eps
        fd2[i] = (g_sum(xv + d) - g_sum(xv - d)) / (2 * eps)
    np.testing.assert_allclose(ggv, fd2, rtol=1e-5, atol=1e-7)


def x_dt(x, s, t):
    """x * d/dx tanh(3 sigmoid(x)) = x * (1 - t^2) * 3 * s (1 - s)."""
    return x * (1 - t * t) * 3 * s * (1 - s)


def test_float32_sigmoid_tanh_gradients_match_the_unfused_formula_bitwise():
    rng = np.random.RandomState(8)
    xv = rng.randn(32, 64).astype(np.float32)
    dv = rng.randn(32, 64).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [32, 64])
        d = tf.placeholder(tf.float32, [32, 64])
        (gs,) = tf.gradients(tf.sigmoid(x), [x], grad_ys=[d])
        (gt,) = tf.gradients(tf.tanh(x), [x], grad_ys=[d])
        with tf.Session() as sess:
            sv, tv, gsv, gtv = sess.run([tf.sigmoid(x), tf.tanh(x), gs, gt], {x: xv, d: dv})
    np.testing.assert_array_equal(gsv, dv * (sv * (np.float32(1) - sv)))
    np.testing.assert_array_equal(gtv, dv * (np.float32(1) - np.square(tv)))


def test_complex_sigmoid_gradient_keeps_the_conjugate():
    xv = np.array([0.3 + 0.4j, -1.0 + 0.2j], np.complex128)
    with tf.Graph().as_default():
        x = tf.constant(xv)
        s = tf.reduce_sum(tf.sigmoid(x))
        # TF requires grad_ys for a complex y
        (g,) = tf.gradients(s, [x], grad_ys=tf.ones_like(s))
        with tf.Session() as sess:
            gv = sess.run(g)
    y = 1 / (1 + np.exp(-xv))
    np.testing.assert_allclose(gv, np.conj(y * (1 - y)), rtol=1e-12)


# --- in-place element-wise ops inside loop bodies (a while loop's gradient sums) ------------

def test_loop_sum_of_products_into_the_dying_operand_matches_numpy():
    rng = np.random.RandomState(9)
    xs = rng.randn(5, 32, 128).astype(np.float32)
    gv = rng.randn(32, 256).astype(np.float32)
    xs_before = xs.copy()
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [5, 32, 128])
        g = tf.constant(gv)

        def body(i, acc):
            # acc + x_i^T g: the product dies at the add, its buffer takes the sum
            return i + 1, acc + tf.matmul(x[i], g, transpose_a=True)

        _, total = tf.while_loop(lambda i, acc: i < 5, body,
                                 [tf.constant(0), tf.zeros([128, 256], tf.float32)])
        with tf.Session() as sess:
            got = sess.run(total, {x: xs})
            got2 = sess.run(total, {x: xs})
            assert "__ip2b__" in _plan_sources(sess)
    want = np.zeros((128, 256), np.float32)
    for i in range(5):
        want = want + xs[i].T @ gv  # the same float32 operations in the same order
    _same_product(got, want)
    np.testing.assert_array_equal(got2, got)
    np.testing.assert_array_equal(xs, xs_before)  # the fed array is never written into


def test_second_operand_in_place_helper_keeps_values_and_shared_buffers():
    from tideflow.runtime.executor import _inplace_binary_second

    rng = np.random.RandomState(10)
    a = rng.randn(4, 8)
    b = rng.randn(4, 8)
    want = a - b
    got = _inplace_binary_second(np.subtract, a, b.copy())
    np.testing.assert_array_equal(got, want)
    shared = rng.randn(4, 8)
    keep = shared.copy()
    view = shared[:]  # another reference: the buffer is not the op's to reuse
    np.testing.assert_array_equal(_inplace_binary_second(np.add, a, shared), a + keep)
    np.testing.assert_array_equal(shared, keep)
    assert view is not None
    row = rng.randn(8)  # a broadcast first operand: the result still has b's shape
    np.testing.assert_array_equal(_inplace_binary_second(np.multiply, row, b.copy()), row * b)
    wide = rng.randn(4, 8).astype(np.float32)
    out = _inplace_binary_second(np.add, wide, rng.randn(8))  # would not fit: a new array
    assert out.shape == (4, 8) and out.dtype == np.float64


# --- ConcatV2's kernel: NumPy's concatenate first, TF's checks for what it rejects ----------

def test_concat_values_and_tf_errors_at_run_time():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32)
        b = tf.placeholder(tf.float32)
        ax = tf.placeholder(tf.int32, [])
        c = tf.concat([a, b], ax)
        av = np.arange(6, dtype=np.float32).reshape(2, 3)
        bv = np.arange(4, dtype=np.float32).reshape(2, 2)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(c, {a: av, b: bv, ax: 1}),
                                          np.concatenate([av, bv], 1))
            np.testing.assert_array_equal(sess.run(c, {a: av, b: bv, ax: -1}),
                                          np.concatenate([av, bv], 1))
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"ConcatOp : Dimensions of inputs should match: "
                                     r"shape\[0\] = \[2,3\] vs\. shape\[1\] = \[2,2\]"):
                sess.run(c, {a: av, b: bv, ax: 0})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"ConcatOp : Ranks of all input tensors should match: "
                                     r"shape\[0\] = \[2,3\] vs\. shape\[1\] = \[3\]"):
                sess.run(c, {a: av, b: np.zeros(3, np.float32), ax: 0})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Expected concatenating dimensions in the range \[-2, 2\)"):
                sess.run(c, {a: av, b: bv, ax: 2})
            with pytest.raises(tf.errors.InvalidArgumentError, match="Can't concatenate scalars"):
                sess.run(c, {a: 1.0, b: 2.0, ax: 0})
