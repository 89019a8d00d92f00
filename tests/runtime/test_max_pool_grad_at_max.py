"""MaxPoolGrad given its maxima: when the plan knows a MaxPoolGrad's orig_output is the MaxPool
of its orig_input (every gradient of max_pool), the gradient goes where the input equals its
window's max (first such tap on ties, TF's rule), instead of the maxima being found again."""
import numpy as np
import pytest

import tideflow as tf
from tideflow.kernels import conv as kconv
from tideflow.runtime import graph_passes


def _reference(x, dy, k):
    """The NumPy reference: each window's gradient on its first maximal element (NHWC,
    windows that tile x)."""
    dx = np.zeros_like(x)
    for n, i, j, c in np.ndindex(*dy.shape):
        win = x[n, k * i:k * i + k, k * j:k * j + k, c]
        a, b = np.unravel_index(np.argmax(win), win.shape)
        dx[n, k * i + a, k * j + b, c] += dy[n, i, j, c]
    return dx


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("k,size,ties", [(2, 8, False), (2, 8, True), (3, 9, True),
                                         (2, 28, True)])
def test_kernel_matches_the_reference_and_the_recurrence(dtype, k, size, ties):
    rng = np.random.RandomState(k + size)
    x = rng.randn(3, size, size, 5).astype(dtype)
    if ties:
        x = np.round(x)  # many windows with several equal maxima
        x[0] = 1.0  # every tap of every window tied
    p = kconv.max_pool(x, [k, k], [k, k], "VALID")
    dy = rng.randn(*p.shape).astype(dtype)
    got = kconv.max_pool_grad_at(x, p, dy, [k, k], [k, k], "VALID")
    assert got.dtype == dtype and got.shape == x.shape
    np.testing.assert_array_equal(got, kconv.max_pool_grad(x, dy, [k, k], [k, k], "VALID"))
    np.testing.assert_array_equal(got, _reference(x, dy, k))


def test_relu_maxima_with_a_masked_gradient():
    # the plan's ReLU rewrite passes p = relu(max_pool(x)) and dy zero wherever p <= 0
    rng = np.random.RandomState(1)
    x = np.round(rng.randn(2, 6, 6, 3)).astype(np.float32)
    x[1] = -np.abs(x[1])  # windows with no positive value
    p = np.maximum(kconv.max_pool(x, [2, 2], [2, 2], "VALID"), 0)
    dy = rng.randn(*p.shape).astype(np.float32) * (p > 0)
    got = kconv.max_pool_grad_at(x, p, dy, [2, 2], [2, 2], "VALID")
    np.testing.assert_array_equal(got, _reference(x, dy, 2))


def test_nan_and_other_geometries_take_the_recurrence():
    rng = np.random.RandomState(2)
    x = rng.randn(2, 8, 8, 3).astype(np.float32)
    x[0, 1, 1, 0] = np.nan
    p = kconv.max_pool(x, [2, 2], [2, 2], "VALID")
    dy = rng.randn(*p.shape).astype(np.float32)
    np.testing.assert_array_equal(kconv.max_pool_grad_at(x, p, dy, [2, 2], [2, 2], "VALID"),
                                  kconv.max_pool_grad(x, dy, [2, 2], [2, 2], "VALID"))
    for shape, k, s, pad in [((2, 7, 7, 3), 2, 2, "VALID"), ((2, 7, 7, 3), 2, 2, "SAME"),
                             ((2, 8, 8, 3), 3, 2, "SAME"), ((2, 8, 8, 3), 2, 1, "VALID")]:
        x = rng.randn(*shape).astype(np.float32)
        p = kconv.max_pool(x, [k, k], [s, s], pad)
        dy = rng.randn(*p.shape).astype(np.float32)
        np.testing.assert_array_equal(kconv.max_pool_grad_at(x, p, dy, [k, k], [s, s], pad),
                                      kconv.max_pool_grad(x, dy, [k, k], [s, s], pad))


def _counting(monkeypatch):
    calls = []
    real = kconv.max_pool_grad_at

    def counted(*a, **kw):
        calls.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(kconv, "max_pool_grad_at", counted)
    return calls


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
def test_the_plan_runs_it_for_a_gradient_of_max_pool(monkeypatch, fmt):
    calls = _counting(monkeypatch)
    rng = np.random.RandomState(3)
    shape = [2, 8, 8, 3] if fmt == "NHWC" else [2, 3, 8, 8]
    window = [1, 2, 2, 1] if fmt == "NHWC" else [1, 1, 2, 2]
    xv = np.round(rng.randn(*shape)).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, shape)
        y = tf.nn.max_pool(x, window, window, "VALID", data_format=fmt)
        wv = rng.randn(*y.shape.as_list()).astype(np.float32)
        gx, = tf.gradients(tf.reduce_sum(y * wv), x)
        with tf.Session() as sess:
            got = sess.run(gx, {x: xv})
        assert calls
        with monkeypatch.context() as m:
            m.setattr(graph_passes, "_max_pool_grad_at_max_rewrites", lambda *a: None)
            with tf.Session() as sess:
                n = len(calls)
                np.testing.assert_array_equal(got, sess.run(gx, {x: xv}))
                assert len(calls) == n
    ref = _reference(xv if fmt == "NHWC" else xv.transpose(0, 2, 3, 1),
                     wv if fmt == "NHWC" else wv.transpose(0, 2, 3, 1), 2)
    np.testing.assert_array_equal(got, ref if fmt == "NHWC" else ref.transpose(0, 3, 1, 2))


def test_a_fed_or_foreign_maximum_keeps_the_plain_kernel(monkeypatch):
    calls = _counting(monkeypatch)
    rng = np.random.RandomState(4)
    xv = rng.randn(1, 4, 4, 2).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [1, 4, 4, 2])
        y = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        gx, = tf.gradients(tf.reduce_sum(y), x)
        # a MaxPoolGrad whose orig_output is not its input's MaxPool (TF's kernel ignores the
        # values of orig_output: so must this one)
        other = tf.raw_ops.MaxPoolGrad(orig_input=x, orig_output=y * 0.0 + 5.0,
                                       grad=tf.ones_like(y), ksize=[1, 2, 2, 1],
                                       strides=[1, 2, 2, 1], padding="VALID")
        with tf.Session() as sess:
            fed = sess.run(gx, {x: xv, y: np.full((1, 2, 2, 2), 9.0, np.float32)})
            o = sess.run(other, {x: xv})
        assert not calls
        ones = np.ones((1, 2, 2, 2), np.float32)
        np.testing.assert_array_equal(fed, _reference(xv, ones, 2))
        np.testing.assert_array_equal(o, _reference(xv, ones, 2))


@pytest.mark.parametrize("where", [0, -1])
def test_a_single_tie_in_one_image_still_takes_the_first_maximum(where):
    # the tie pass is skipped when each window holds its maximum once: one tie anywhere
    # (first or last image, so first or last block of the pool's pieces) brings it back
    rng = np.random.RandomState(3)
    x = rng.randn(40, 28, 28, 8).astype(np.float32)
    x[where, 4, 6, 3] = x[where, 5, 7, 3] = 9.0  # one window, two equal maxima
    p = kconv.max_pool(x, [2, 2], [2, 2], "VALID")
    dy = rng.randn(*p.shape).astype(np.float32)
    got = kconv.max_pool_grad_at(x, p, dy, [2, 2], [2, 2], "VALID")
    np.testing.assert_array_equal(got, _reference(x, dy, 2))
    assert got[where, 4, 6, 3] == dy[where, 2, 3, 3] and got[where, 5, 7, 3] == 0
