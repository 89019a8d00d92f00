"""The plan's max-pool/ReLU gradient rewrite: ReluGrad(MaxPoolGrad(r, p, g), r), the backward
pass of max_pool(relu(x)), runs as one MaxPoolGrad whose pooled gradient is masked by p > 0,
without the full-size ReluGrad pass; the values are those of the plain ops, bit for bit."""
import numpy as np
import pytest

import tideflow as tf
from tideflow.runtime import graph_passes


def _traced_ops(sess, fetches, feed=None):
    md = tf.RunMetadata()
    out = sess.run(fetches, feed, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                   run_metadata=md)
    names = {ns.node_name for d in md.step_stats.dev_stats for ns in d.node_stats}
    return out, names


def _plain(monkeypatch, fetches, feed=None):
    """The same fetches in a new session with the rewrites turned off (this one and the
    MaxPoolGrad given its maxima, which it composes with)."""
    with monkeypatch.context() as m:
        m.setattr(graph_passes, "_max_pool_relu_grad_rewrites", lambda *a: None)
        m.setattr(graph_passes, "_max_pool_grad_at_max_rewrites", lambda *a: None)
        with tf.Session() as s:
            return s.run(fetches, feed)


@pytest.mark.parametrize("ksize,stride,padding,fmt", [
    (2, 2, "SAME", "NHWC"), (3, 2, "VALID", "NHWC"), (3, 1, "SAME", "NHWC"),
    (2, 2, "VALID", "NCHW"), (2, 2, "VALID", "NHWC")])
def test_gradient_equals_the_plain_ops(monkeypatch, ksize, stride, padding, fmt):
    rng = np.random.RandomState(ksize * 10 + stride)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 7, 7, 4] if fmt == "NHWC" else [2, 4, 7, 7])
        xv = rng.randn(*x.shape.as_list()).astype(np.float32)
        xv[..., 0] = 0.0 if fmt == "NHWC" else xv[..., 0]  # windows of ties at zero
        xv[:, 0] = -np.abs(xv[:, 0])  # windows with no positive value
        window = [1, ksize, ksize, 1] if fmt == "NHWC" else [1, 1, ksize, ksize]
        steps = [1, stride, stride, 1] if fmt == "NHWC" else [1, 1, stride, stride]
        y = tf.nn.max_pool(tf.nn.relu(x), window, steps, padding, data_format=fmt)
        wv = rng.randn(*y.shape.as_list()).astype(np.float32)
        gx, = tf.gradients(tf.reduce_sum(y * wv), x)
        with tf.Session() as sess:
            got, ran = _traced_ops(sess, gx, {x: xv})
        assert not any(n.endswith("Relu_grad/ReluGrad") for n in ran)  # rewritten
        assert any(n.endswith("MaxPool_grad/MaxPoolGrad") for n in ran)
        assert "Relu" not in ran  # read by nothing else: the pool applies the ReLU itself
        want = _plain(monkeypatch, gx, {x: xv})
        np.testing.assert_array_equal(got, want)
        # the NumPy reference: the pooled gradient lands on each window's first maximum of
        # relu(x) when that maximum is positive
        if fmt == "NHWC" and padding == "VALID" and ksize == stride == 2:
            r = np.maximum(xv, 0)
            ref = np.zeros_like(xv)
            for n, i, j, c in np.ndindex(*y.shape.as_list()):
                win = r[n, 2 * i:2 * i + 2, 2 * j:2 * j + 2, c]
                a, b = np.unravel_index(np.argmax(win), win.shape)
                if win[a, b] > 0:
                    ref[n, 2 * i + a, 2 * j + b, c] += wv[n, i, j, c]
            np.testing.assert_allclose(got, ref, rtol=1e-6)


def test_a_fetched_or_shared_max_pool_gradient_keeps_the_plain_ops(monkeypatch):
    rng = np.random.RandomState(3)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [1, 4, 4, 2])
        feed = {x: rng.randn(1, 4, 4, 2).astype(np.float32)}
        r = tf.nn.relu(x)
        y = tf.nn.max_pool(r, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        gx, = tf.gradients(tf.reduce_sum(y * y), x)
        mpg = tf.get_default_graph().get_operation_by_name(
            "gradients/MaxPool_grad/MaxPoolGrad").outputs[0]
        with tf.Session() as sess:
            (g1, m1), ran = _traced_ops(sess, [gx, mpg], feed)
        assert any(n.endswith("Relu_grad/ReluGrad") for n in ran)
        # the max-pool gradient of relu(x) routes to zeros too: it must keep them
        np.testing.assert_array_equal(m1, _plain(monkeypatch, mpg, feed))
        np.testing.assert_array_equal(g1, _plain(monkeypatch, gx, feed))
        # a second reader of the MaxPoolGrad: plain ops as well
        other = tf.reduce_sum(mpg)
        with tf.Session() as sess:
            (g2, _), ran = _traced_ops(sess, [gx, other], feed)
        assert any(n.endswith("Relu_grad/ReluGrad") for n in ran)
        np.testing.assert_array_equal(g2, g1)
        # the ReLU's output fetched too: the backward rewrite holds, the Relu still runs
        with tf.Session() as sess:
            (g3, rv, yv), ran = _traced_ops(sess, [gx, r, y], feed)
        assert not any(n.endswith("Relu_grad/ReluGrad") for n in ran) and "Relu" in ran
        np.testing.assert_array_equal(g3, g1)
        np.testing.assert_array_equal(rv, np.maximum(feed[x], 0))
        np.testing.assert_array_equal(yv, _plain(monkeypatch, y, feed))
        # the pooled output fetched beside the gradient: the pool applies the ReLU itself
        with tf.Session() as sess:
            (g4, yv4), ran = _traced_ops(sess, [gx, y], feed)
        assert "Relu" not in ran
        np.testing.assert_array_equal(g4, g1)
        np.testing.assert_array_equal(yv4, yv)


def test_a_training_step_through_the_rewrite_matches_the_plain_ops(monkeypatch):
    rng = np.random.RandomState(5)
    xv = rng.randn(4, 8, 8, 1).astype(np.float32)
    results = []
    for rewrite in (True, False):
        with tf.Graph().as_default(), monkeypatch.context() as m:
            if not rewrite:
                m.setattr(graph_passes, "_max_pool_relu_grad_rewrites", lambda *a: None)
            tf.set_random_seed(1)
            x = tf.placeholder_with_default(xv, [4, 8, 8, 1])
            h = tf.layers.conv2d(x, 4, 3, padding="same", activation=tf.nn.relu)
            h = tf.layers.max_pooling2d(h, 2, 2)
            loss = tf.reduce_mean(tf.square(tf.layers.dense(tf.layers.flatten(h), 1)))
            train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                results.append([sess.run([loss, train])[0] for _ in range(5)])
                _, ran = _traced_ops(sess, train)
                assert any(n.endswith("Relu_grad/ReluGrad") for n in ran) is not rewrite
                assert ("conv2d/Relu" in ran) is not rewrite
    np.testing.assert_array_equal(results[0], results[1])
