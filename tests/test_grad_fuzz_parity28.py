"""Differential fuzzing of symbolic gradients against TF 1.15 (session 28, helper h311): the
minimal cases where tideflow differed from TF (values, names, None entries), with TF 1.15's
results as measured, and a small seeded fuzz run of random differentiable programs whose
float64 gradients are checked against central finite differences of tideflow's own forward
values (an oracle independent of the gradient functions)."""

# ruff: noqa: B023  (the generator's lambdas are called in the iteration that makes them)

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


# ---- minimal cases (names and values measured in TF 1.15) ------------------------------------

def test_cond_capturing_tensors_keeps_tf_names():
    # TF 1.15: a tensor captured into a branch passes through a Switch named under its
    # consumer ("cond/Tanh/Switch"), so neither the branch's ops nor the cond's outputs
    # ("cond_1/Merge", capturing cond/Merge) change name
    p = tf.placeholder(tf.bool, [])
    x = tf.placeholder(tf.float32, [4])
    t = tf.tanh(x)
    seen = []

    def branch():
        y = tf.tanh(t)
        seen.append(y.name)
        return y

    c = tf.cond(p, branch, lambda: t * 3.0)
    c2 = tf.cond(p, lambda: tf.sigmoid(c) * 2.0, lambda: -c + c)
    c3 = tf.cond(p, lambda: [c2, c], lambda: [c, c2])
    c4 = tf.cond(p, lambda: c3[1] * 2.0, lambda: c3[0])
    assert seen == ["cond/Tanh:0"]
    assert [c.name, c2.name, c3[0].name, c3[1].name, c4.name] == [
        "cond/Merge:0", "cond_1/Merge:0", "cond_2/Merge:0", "cond_2/Merge_1:0", "cond_3/Merge:0"]
    g = tf.gradients(c4, x)[0]
    assert g.name == "gradients/Tanh_grad/TanhGrad:0"
    with tf.Session() as s:
        v = s.run(g, {p: True, x: np.array([-1.5, -0.5, 0.5, 1.5], np.float32)})
    assert v.tolist() == [0.174683079123497, 1.2796159982681274, 1.2796159982681274,
                          0.174683079123497]


def test_unreduced_gradient_of_a_constant_operand_fails_the_shape_check():
    # TF 1.15's Atan2 gradient is not reduced over broadcast axes; tf.gradients checks the
    # gradient of every input against its shape, a constant's too (TF 1.15's message)
    x = tf.placeholder(tf.float32, [3, 4])
    c = tf.constant([1.0, 2.0, -1.0, 0.5])
    with pytest.raises(ValueError) as e:
        tf.gradients(tf.atan2(c, x), x)
    assert str(e.value) == (
        "Incompatible shapes between op input and calculated input gradient.  Forward "
        "operation: Atan2.  Input index: 0. Original input shape: (4,).  Calculated input "
        "gradient shape: (3, 4)")
    with pytest.raises(ValueError, match="Forward operation: Atan2_1.  Input index: 1. "
                                         r"Original input shape: \(\)"):
        tf.gradients(tf.atan2(x, 2.0), x)


@pytest.mark.parametrize("name", ["TanhGrad", "SigmoidGrad", "SqrtGrad", "RsqrtGrad",
                                  "ReciprocalGrad", "InvGrad"])
def test_output_gradient_ops_take_y_static_shape(name):
    # TF 1.15 (UNARY_GRADIENT_COMPLEX: UnchangedShape): y's shape, dy's not merged in
    y = tf.placeholder(tf.float32, [None, None])
    dy = tf.placeholder(tf.float32, [None, 4])
    f = getattr(tf.raw_ops, name)
    assert f(y=y, dy=dy).shape.as_list() == [None, None]
    assert f(y=dy, dy=y).shape.as_list() == [None, 4]


def test_sigmoid_gradient_of_unknown_shape_stays_unknown():
    # TF 1.15: the gradient reaching x is SigmoidGrad's (?, ?), though MatMul's is (?, 4)
    x = tf.placeholder(tf.float32, [None, None])
    y = tf.reduce_mean(tf.matmul(tf.sigmoid(x), tf.ones([4, 2])))
    g = tf.gradients(y, x)[0]
    assert g.name == "gradients/Sigmoid_grad/SigmoidGrad:0"
    assert g.shape.as_list() == [None, None]
    # (ReluGrad merges both inputs' shapes in TF 1.15)
    g = tf.gradients(tf.reduce_mean(tf.matmul(tf.nn.relu(x), tf.ones([4, 2]))), x)[0]
    assert g.shape.as_list() == [None, 4]


def test_second_order_past_a_loop_read_only_for_shapes_as_tf115():
    # TF 1.15: the gradient loop reads the invariant x0 * (|x1| + 0.5) only for its shape (and
    # sums its gradient from zeros(Shape(.))): an int path tf.gradients' walk does not follow,
    # so the second order goes around the loop; where the loop's upstream gradient depends on
    # x1, TF refuses
    x0 = tf.placeholder(tf.float32, None)
    x1 = tf.placeholder(tf.float32, None)
    t2 = x0 * (tf.abs(x1) + 0.5)
    _, t5 = tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, tf.tanh(v) * 1.5 + t2),
                          [0, x0])
    g = tf.gradients(tf.reduce_sum(t5), x1)[0]
    h = tf.gradients(g, [x0, x1])
    assert [t.name for t in h] == ["gradients_1/gradients/mul_grad/Mul_1_grad/Reshape:0",
                                   "gradients_1/gradients/Abs_grad/Sign_grad/zeros:0"]
    with tf.Session() as s:
        v = s.run(h, {x0: np.array([1.0, -2.0], np.float32), x1: 0.5})
    assert v[0].tolist() == [1.0804282426834106, 1.0060826539993286] and v[1] == 0.0
    with pytest.raises(TypeError, match="Second-order gradient for while loops not supported"):
        tf.gradients(tf.gradients(tf.reduce_sum(t5 * x1), x0)[0], x1)


def test_loop_gradient_takes_the_upstream_gradients_static_shape():
    # TF 1.15: the gradient loop's variable is Merge([grad, grad]), so the gradient leaving
    # the loop has the upstream gradient's shape (1, ?), not the loop variable's (?, ?)
    x = tf.placeholder(tf.float64, [None, None])
    _, y = tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, v * v * 0.5 + 0.1), [0, x])
    g = tf.gradients(tf.unstack(y, num=1, axis=0)[0], x)[0]
    assert g.name == "gradients/while/Enter_1_grad/Exit:0"
    assert g.shape.as_list() == [1, None]
    with tf.Session() as s:
        assert s.run(g, {x: [[1.0, -0.5]]}).tolist() == [[0.6, -0.1125]]


@pytest.mark.parametrize("ksize, stride, padding, crc", [
    (3, 1, "SAME", 3773241930), (3, 2, "VALID", 3545105515), (2, 1, "SAME", 874721573),
    (3, 2, "SAME", 64312434)])
def test_max_pool_gradient_of_overlapping_windows_bits_as_tf(ksize, stride, padding, crc):
    # TF 1.15's CPU MaxPoolGrad adds the gradients routed to one element in the order of the
    # windows' outputs (crc32 of its result, measured)
    import zlib

    x = tf.constant(np.random.RandomState(7).randn(2, 6, 7, 3).astype(np.float32))
    y = tf.nn.max_pool(x, [1, ksize, ksize, 1], [1, stride, stride, 1], padding)
    dy = tf.constant(np.random.RandomState(8).randn(*y.shape.as_list()).astype(np.float32))
    with tf.Session() as sess:
        v = sess.run(tf.gradients(y, x, grad_ys=dy)[0])
    assert zlib.crc32(v.tobytes()) == crc


def test_float64_exp_into_a_strided_dying_input_keeps_its_result():
    # (found by the fuzz run below, seed 1: the gradient of a log_softmax along axis 0 reads
    # Exp of the LogSoftmax, a transposed view whose buffer Exp reuses; the result written
    # into a reshaped copy was lost and Exp gave its input back)
    from tideflow.ops import eigen_float64

    a = (np.arange(12.0).reshape(3, 4) / 4.0 - 1.0).T
    want = eigen_float64.exp(a.copy())
    assert not a.flags.c_contiguous
    got = eigen_float64.exp(a, out=a)
    assert got is a and np.array_equal(a, want)


def test_xlogy_gradient_into_a_dying_batch_norm_output():
    # Xlogy's gradient is Xdivy(x, y): with x a batch norm's output no later op reads, the
    # plan runs it into x's buffer (out=), which the kernel's division did not take
    # (values measured in TF 1.15)
    x = tf.placeholder(tf.float32, [None, None])
    y = tf.placeholder(tf.float32, [4])
    m, v = tf.nn.moments(x, [0])
    t2 = tf.nn.batch_normalization(x, m, v, tf.ones([4]), None, 1e-3)
    g = tf.gradients(tf.reduce_sum(t2) + tf.reduce_sum(tf.math.xlogy(t2, y)), [x, y])
    with tf.Session() as s:
        gx, gy = s.run(g, {x: np.arange(1.0, 13.0).reshape(3, 4) / 4.0,
                           y: [0.5, 2.0, 3.0, 1.5]})
    assert gy.tolist() == [6.0, 1.5, 1.0, 2.0]
    assert gx.tolist() == [[-2.9802322387695312e-08, 0.0, 4.76837158203125e-07, 0.0],
                           [-2.9802322387695312e-08, 0.0, 0.0, 0.0],
                           [-2.9802322387695312e-08, 0.0, -4.76837158203125e-07, 0.0]]


# ---- the fuzz run: random float64 programs, gradients against finite differences -------------

def _program(seed):
    """A random differentiable float64 program; returns (loss, placeholders, feeds, unused)."""
    r = np.random.RandomState(seed)
    f64 = tf.float64
    xs, feeds, pool = [], {}, []
    for shape in [(3, 4), [(4,), (3, 1), (1, 4), ()][r.randint(4)], (2, 3, 4)][:2 + r.randint(2)]:
        x = tf.placeholder(f64, list(shape) if r.rand() < 0.7 else [None] * len(shape))
        xs.append(x)
        feeds[x] = np.asarray(r.randn(*shape))
        pool.append((x, tuple(shape)))
    unused = tf.placeholder(f64, [2])
    feeds[unused] = r.randn(2)
    pred = tf.placeholder(tf.bool, [])
    feeds[pred] = bool(r.rand() < 0.5)

    def const(shape):
        return tf.constant(np.asarray(r.randn(*shape)))

    def pick(ok=lambda s: True):
        idx = [i for i, (_, s) in enumerate(pool) if ok(s)]
        return pool[idx[r.randint(len(idx))]] if idx else (None, None)

    unary = [tf.tanh, tf.sigmoid, tf.square, tf.sin, tf.atan, tf.erf, tf.nn.softplus,
             tf.nn.selu, lambda t: tf.exp(tf.tanh(t)), lambda t: tf.log(tf.abs(t) + 0.5),
             lambda t: tf.rsqrt(tf.abs(t) + 0.5), lambda t: tf.pow(t, 3.0),
             lambda t: tf.math.reciprocal(tf.square(t) + 1.0)]
    binary = [tf.add, tf.subtract, tf.multiply, tf.maximum, tf.squared_difference,
              lambda a, b: a / (tf.abs(b) + 0.5), lambda a, b: tf.pow(tf.abs(a) + 0.5, b)]
    for _ in range(r.randint(3, 8)):
        t, s = pick()
        k = r.randint(13)
        nd = len(s)
        if k == 0:
            pool.append((unary[r.randint(len(unary))](t), s))
        elif k == 1:
            u, _ = pick(lambda q: len(q) <= nd and all(
                a in (1, b) for a, b in zip(q[::-1], s[::-1])))
            pool.append((binary[r.randint(len(binary))](t, u) if r.rand() < 0.5 else
                         binary[r.randint(len(binary))](u, t), s))
        elif k == 2 and nd:
            ax = [None, int(r.randint(-nd, nd)), [0, nd - 1]][r.randint(3)]
            kd = bool(r.rand() < 0.5)
            f = [tf.reduce_sum, tf.reduce_mean, tf.reduce_max, tf.reduce_prod,
                 tf.reduce_logsumexp][r.randint(5)]
            axes = range(nd) if ax is None else {a % nd for a in np.atleast_1d(ax)}
            pool.append((f(t, axis=ax, keepdims=kd),
                         tuple(1 if d in axes else n for d, n in enumerate(s)
                               if kd or d not in axes)))
        elif k == 3 and nd == 2:
            ta, tb = bool(r.rand() < 0.5), bool(r.rand() < 0.5)
            m, kk = (s[1], s[0]) if ta else s
            w = const((2, kk) if tb else (kk, 2))
            pool.append((tf.matmul(t, w, transpose_a=ta, transpose_b=tb), (m, 2)))
        elif k == 4 and nd:
            f = [tf.nn.softmax, tf.nn.log_softmax, tf.nn.l2_normalize][r.randint(3)]
            pool.append((f(t, axis=int(r.randint(-nd, nd))), s))
        elif k == 5 and nd:
            f = [tf.cumsum, tf.cumprod][r.randint(2)]
            pool.append((f(t, axis=int(r.randint(nd)), exclusive=bool(r.rand() < 0.5),
                           reverse=bool(r.rand() < 0.5)), s))
        elif k == 6 and nd:
            ids = r.randint(s[0], size=4)
            ids[3] = ids[0]  # a duplicate index: its gradient rows are summed
            pool.append((tf.gather(t, ids), (4,) + s[1:]))
        elif k == 7 and nd >= 2:
            pool.append((tf.gather_nd(t, np.array([[0, 1], [s[0] - 1, 0], [0, 1]])),
                         (3,) + s[2:]))
        elif k == 8 and nd:
            pool.append((tf.concat([t, t * 2.0], -1), s[:-1] + (2 * s[-1],)))
            pool.append((tf.pad(t[..., ::-1], [[1, 0]] * nd, mode="SYMMETRIC"),
                         tuple(n + 1 for n in s)))
        elif k == 9 and nd:
            ids = np.sort(r.randint(2, size=s[0]))
            f = [tf.math.segment_sum, tf.math.segment_mean][r.randint(2)]
            pool.append((f(t, ids), (int(ids[-1]) + 1,) + s[1:]))
            pool.append((tf.math.unsorted_segment_sum(t, r.randint(-1, 3, size=s[0]), 3),
                         (3,) + s[1:]))
        elif k == 10 and nd >= 2:
            m, v = tf.nn.moments(t, [0])
            pool.append((tf.nn.batch_normalization(t, m, v, None, const(s[-1:]), 1e-3), s))
        elif k == 11:
            u, _ = pick(lambda q: q == s)
            pool.append((tf.cond(pred, lambda: tf.tanh(t) * u, lambda: tf.square(u) - t), s))
        elif k == 12:
            _, v = tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, tf.sin(v) * 1.5 + t),
                                 [tf.constant(0), t])
            pool.append((v, s))
    loss = tf.reduce_sum(pool[-1][0] * const(pool[-1][1]))
    for i in r.randint(len(pool), size=2):
        loss += tf.reduce_mean(pool[i][0])
    return loss, xs + [unused], feeds, unused


@pytest.mark.parametrize("first", [0, 10, 20])
def test_random_programs_gradients_match_finite_differences(first):
    for seed in range(first, first + 10):
        with tf.Graph().as_default():
            loss, xs, feeds, _ = _program(seed)
            grads = tf.gradients(loss, xs)
            assert grads[-1] is None  # (the placeholder the loss does not read)
            # (a gather straight from a placeholder gives IndexedSlices: compared densified)
            dense = [(x, tf.convert_to_tensor(g) if isinstance(g, tf.IndexedSlices) else g)
                     for x, g in zip(xs, grads) if g is not None]
            for x, g in dense:
                assert g.dtype == tf.float64 and g.shape.is_compatible_with(x.shape), seed
            with tf.Session() as s:
                got = s.run([g for _, g in dense], feeds)
                for (x, _), gv in zip(dense, got):
                    base = feeds[x]
                    fd = np.zeros(base.shape)
                    for ix in np.ndindex(*base.shape):
                        v = []
                        for step in (1e-6, -1e-6):
                            feeds[x] = base.copy()
                            feeds[x][ix] += step
                            v.append(s.run(loss, feeds))
                        fd[ix] = (v[0] - v[1]) / 2e-6
                    feeds[x] = base
                    scale = max(np.abs(fd).max(), 1.0)
                    np.testing.assert_allclose(gv, fd, rtol=0, atol=1e-5 * scale,
                                               err_msg=f"seed {seed} {x.name}")
