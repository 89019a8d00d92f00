"""The intra-op pool (tideflow/kernels/threads.py): work split over threads gives the results of
one call, errors reach the caller, BLAS gets its threads back after a step, and the kernels
that split (convolutions, pooling, optimizer updates, MatMul) agree with the unsplit ones."""

import threading

import numpy as np
import pytest

import tideflow as tf
from tideflow.framework import errors
from tideflow.kernels import threads


@pytest.fixture
def two_threads():
    """The pool at two threads, BLAS held to one as in a step (restored afterwards)."""
    threads.set_thread_count(2)
    threads.enter_step()
    try:
        yield
    finally:
        threads.leave_step()
        threads.set_thread_count(None)


def test_parallel_for_covers_every_item_once(two_threads):
    seen = np.zeros(1000, np.int64)
    threads.parallel_for(1000, lambda i, j: np.add.at(seen, np.arange(i, j), 1), k=7)
    assert (seen == 1).all()


def test_parallel_for_runs_pieces_on_another_thread(two_threads):
    names = set()
    barrier = threading.Barrier(2, timeout=10)

    def piece(i, j):
        names.add(threading.current_thread().name)
        barrier.wait()  # both pieces must run at once, or this times out

    threads.parallel_for(2, piece, k=2)
    assert len(names) == 2


def test_parallel_for_reraises_the_error_of_a_piece(two_threads):
    def piece(i, j):
        if i > 0:
            raise ValueError(f"bad piece {i}")

    with pytest.raises(ValueError, match="bad piece"):
        threads.parallel_for(100, piece, k=4)
    # the pool is usable afterwards
    out = np.zeros(10)
    threads.parallel_for(10, lambda i, j: out.__setitem__(slice(i, j), 1.0), k=2)
    assert out.sum() == 10


def test_a_nested_call_runs_inline(two_threads):
    total = []

    def outer(i, j):
        threads.parallel_for(j - i, lambda a, b: total.append(b - a), k=2)

    threads.parallel_for(8, outer, k=2)
    assert sum(total) == 8


def test_one_thread_means_no_split():
    threads.set_thread_count(1)
    try:
        threads.enter_step()
        try:
            assert not threads.active()
            assert threads.pieces(10**6, 1 << 20) == 1
        finally:
            threads.leave_step()
    finally:
        threads.set_thread_count(None)


@pytest.mark.skipif(threads._blas.get is None, reason="NumPy's BLAS is not OpenBLAS")
def test_a_step_gives_blas_its_threads_back():
    threads.set_thread_count(None)  # the default pool (a session's config may have set one)
    before = threads._blas.get()
    x = tf.placeholder(tf.float32, [None, None, None, None])
    w = tf.placeholder(tf.float32, [None, None, None, None])
    seen = []

    def blas_threads(v):
        seen.append(threads._blas.get())
        return v

    y = tf.py_func(blas_threads, [tf.nn.conv2d(x, w, [1, 1, 1, 1], "VALID")], tf.float32)
    with tf.Session() as sess:
        sess.run(y, {x: np.ones((2, 8, 8, 3), np.float32), w: np.ones((3, 3, 3, 4), np.float32)})
        with pytest.raises(errors.InvalidArgumentError):  # a failed step restores them too
            sess.run(y, {x: np.ones((2, 8, 8, 3), np.float32),
                         w: np.ones((3, 3, 2, 4), np.float32)})
    assert threads._blas.get() == before
    assert threads._steps == [0]
    if before > 1:
        assert seen == [1]  # held to one thread while the plan with a convolution ran


def test_plans_without_convolutions_leave_blas_alone():
    x = tf.placeholder(tf.float32, [None, None])
    seen = []

    def blas_threads(v):
        seen.append(threads._blas.get() if threads._blas.get is not None else None)
        return v

    y = tf.py_func(blas_threads, [tf.matmul(x, x)], tf.float32)
    with tf.Session() as sess:
        sess.run(y, {x: np.ones((4, 4), np.float32)})
    assert seen == [threads._blas_threads_at_start]


@pytest.mark.skipif(threads._blas.get is None or threads._blas_threads_at_start in (None, 1),
                    reason="NumPy's BLAS is not OpenBLAS, or runs one thread anyway")
def test_a_small_product_outside_the_pool_runs_on_one_blas_thread(monkeypatch):
    monkeypatch.setattr(threads, "_contention", lambda: False)  # as on a machine with free cores
    seen = []
    real = np.matmul

    def recording(*args, **kwargs):
        seen.append(threads._blas.get())
        return real(*args, **kwargs)

    monkeypatch.setattr(threads.np, "matmul", recording)
    before = threads._blas.get()
    small = np.ones((128, 64), np.float32), np.ones((64, 128), np.float32)
    big = np.ones((256, 512), np.float32), np.ones((512, 512), np.float32)
    np.testing.assert_array_equal(threads.matmul(*small), np.full((128, 128), 64, np.float32))
    np.testing.assert_array_equal(threads.matmul(*big), np.full((256, 512), 512, np.float32))
    assert seen == [1, before]  # the small one held to one thread, the big one left alone
    assert threads._blas.get() == before and threads._steps == [0]
    assert threads._saved == [None]


def _conv_net_values(seed=0):
    rng = np.random.RandomState(seed)
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(rng.standard_normal((48, 14, 14, 8)))  # relu: 150k elements, split
        w = tf.Variable(rng.standard_normal((5, 5, 8, 16)))
        w1 = tf.Variable(rng.standard_normal((3, 3, 1, 4)))
        x1 = tf.constant(rng.standard_normal((16, 10, 10, 1)))
        h = tf.nn.relu(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"))
        p = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        c1 = tf.nn.conv2d(x1, w1, [1, 2, 2, 1], "SAME")
        fc = tf.matmul(tf.reshape(p, [48, -1]), tf.constant(rng.standard_normal((784, 300))))
        loss = tf.reduce_sum(fc * fc) + tf.reduce_sum(c1 * c1)
        grads = tf.gradients(loss, [x, w, w1, x1])
        v = tf.Variable(rng.standard_normal((600, 700)))
        acc_grad = tf.constant(rng.standard_normal((600, 700)))
        upd = tf.train.MomentumOptimizer(0.1, 0.9).apply_gradients([(acc_grad, v)])
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            out = sess.run([fc] + grads)
            for _ in range(3):
                sess.run([upd, fc])  # with a convolution: the pool's plan
            out.append(sess.run(v))
    return out


def test_split_kernels_agree_with_unsplit_ones():
    threads.set_thread_count(1)
    try:
        one = _conv_net_values()
    finally:
        threads.set_thread_count(None)
    threads.set_thread_count(3)  # pieces of odd sizes
    try:
        split = _conv_net_values()
    finally:
        threads.set_thread_count(None)
    for a, b in zip(one, split):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-9)


@pytest.mark.skipif(threads._blas.get is None, reason="NumPy's BLAS is not OpenBLAS")
def test_intra_op_parallelism_threads_caps_blas_for_the_session():
    before = threads._blas.get()
    try:
        config = tf.ConfigProto(intra_op_parallelism_threads=1)
        sess = tf.Session(config=config)
        assert threads._blas.get() == 1
        assert threads.thread_count() == 1
        x = tf.constant(np.ones((2, 6, 6, 1), np.float32))
        sess.run(tf.nn.conv2d(x, tf.ones([3, 3, 1, 1]), [1, 1, 1, 1], "SAME"))
        assert threads._blas.get() == 1  # the step left the cap as it was
        sess.close()
        assert threads._blas.get() == before
    finally:
        threads.set_thread_count(None)


def test_big_elementwise_ops_in_place_split_as_one_call():
    rng = np.random.RandomState(5)
    a = rng.standard_normal((40, 60, 60)).astype(np.float32)  # 144k elements: split
    b = rng.standard_normal((60,)).astype(np.float32)
    c = rng.standard_normal((40, 60, 60)).astype(np.float32)

    def run():
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(tf.float32, a.shape)
            w = tf.ones([1, 1, 1, 1])
            y = tf.nn.conv2d(tf.ones([1, 2, 2, 1]), w, [1, 1, 1, 1], "VALID")  # a pool plan
            z = tf.exp(tf.square(x + tf.constant(b)) * tf.constant(c))  # dying inputs: in place
            with tf.Session(graph=g) as sess:
                return sess.run([z, y], {x: a})[0]

    threads.set_thread_count(1)
    try:
        one = run()
    finally:
        threads.set_thread_count(None)
    np.testing.assert_array_equal(run(), one)
    np.testing.assert_allclose(one, np.exp(np.square(a + b) * c), rtol=1e-6)
