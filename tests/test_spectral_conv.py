"""The spectral (DFT-as-matmul) path of stride-1 2-D convolutions: each of its three kernels
against a float64 NumPy reference over many geometries (forced on), the rule that chooses it,
and graphs whose float32 convolutions take it against the same graphs in float64 (which keep
the direct path)."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.kernels import conv as K
from tideflow.kernels import spectral as S
from tideflow.kernels import threads


def _ref_forward(x, w, pads, outs):
    xp = np.pad(x.astype(np.float64), ((0, 0), pads[0], pads[1], (0, 0)))
    oh, ow = outs
    out = np.zeros((x.shape[0], oh, ow, w.shape[-1]))
    for u in range(w.shape[0]):
        for v in range(w.shape[1]):
            out += np.einsum("nijc,co->nijo", xp[:, u:u + oh, v:v + ow], w[u, v])
    return out


def _ref_input(shape, w, dy, pads):
    n, h, wd, c = shape
    oh, ow = dy.shape[1:3]
    dxp = np.zeros((n, h + sum(pads[0]), wd + sum(pads[1]), c))
    for u in range(w.shape[0]):
        for v in range(w.shape[1]):
            dxp[:, u:u + oh, v:v + ow] += np.einsum("nijo,co->nijc", dy, w[u, v])
    return dxp[:, pads[0][0]:pads[0][0] + h, pads[1][0]:pads[1][0] + wd]


def _ref_filter(x, wshape, dy, pads):
    xp = np.pad(x.astype(np.float64), ((0, 0), pads[0], pads[1], (0, 0)))
    oh, ow = dy.shape[1:3]
    dw = np.zeros(wshape)
    for u in range(wshape[0]):
        for v in range(wshape[1]):
            dw[u, v] = np.einsum("nijc,nijo->co", xp[:, u:u + oh, v:v + ow], dy)
    return dw


@pytest.fixture
def forced(monkeypatch):
    """The spectral path for every float32 stride-1 2-D convolution."""
    monkeypatch.setattr(S, "MIN_RATIO", 0)
    monkeypatch.setattr(S, "MIN_POSITIONS", 0)
    monkeypatch.setattr(S, "MIN_CHANNELS", 1)
    monkeypatch.setattr(S, "MAX_FRAME", 1000)


GEOMETRIES = [
    # batch, height, width, in, out, kh, kw, padding (or explicit pads)
    (3, 14, 14, 4, 6, 5, 5, "SAME"),
    (2, 9, 11, 3, 5, 3, 3, "VALID"),
    (2, 10, 7, 5, 2, 4, 4, "SAME"),  # even filter: uneven SAME pads, even frames
    (1, 8, 13, 2, 3, 2, 5, "SAME"),  # non-square filter
    (2, 6, 6, 1, 1, 6, 6, "VALID"),  # one output position
    (2, 7, 5, 3, 4, 3, 2, ((1, 3), (0, 2))),  # explicit, asymmetric
    (4, 5, 9, 2, 2, 5, 1, "SAME"),  # a 5x1 filter
    (2, 12, 12, 6, 7, 7, 7, "SAME"),
    (3, 1, 20, 3, 4, 1, 9, "SAME"),  # conv1d's form: one row
    (2, 9, 1, 2, 3, 4, 1, "VALID"),  # one column
]


@pytest.mark.parametrize("geom", GEOMETRIES, ids=lambda g: "x".join(map(str, g[:7])) + f"-{g[7]}")
@pytest.mark.parametrize("pool", [False, True], ids=["serial", "pool"])
def test_kernels_match_float64_reference(forced, geom, pool):
    n, h, wd, c, o, kh, kw, padding = geom
    rng = np.random.default_rng(sum(geom[:7]))
    x = rng.standard_normal((n, h, wd, c)).astype(np.float32)
    w = rng.standard_normal((kh, kw, c, o)).astype(np.float32)
    if isinstance(padding, tuple):
        explicit, padding = padding, "EXPLICIT"
    else:
        explicit = None
    outs, pads = K.geometry((h, wd), (kh, kw), (1, 1), (1, 1), padding, explicit)
    assert S.worthwhile(np.float32, (h, wd), (kh, kw), outs, pads, (1, 1), (1, 1), n, c, o)
    dy = rng.standard_normal((n,) + outs + (o,)).astype(np.float32)
    if pool:
        threads.enter_step()
    try:
        y = K.conv(x, w, (1, 1), (1, 1), padding, explicit)
        dx = K.conv_backprop_input(x.shape, w, dy, (1, 1), (1, 1), padding, explicit)
        dw = K.conv_backprop_filter(x, w.shape, dy, (1, 1), (1, 1), padding, explicit)
    finally:
        if pool:
            threads.leave_step()
    for got, want in ((y, _ref_forward(x, w, pads, outs)),
                      (dx, _ref_input(x.shape, w.astype(np.float64), dy, pads)),
                      (dw, _ref_filter(x, w.shape, dy.astype(np.float64), pads))):
        assert got.dtype == np.float32 and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-6 * np.abs(want).max() + 1e-6)


def test_the_spectral_path_is_what_ran(forced, monkeypatch):
    calls = []
    real = S.transform
    monkeypatch.setattr(S, "transform", lambda *a: calls.append(1) or real(*a))
    x = np.ones((1, 6, 6, 2), np.float32)
    K.conv(x, np.ones((3, 3, 2, 2), np.float32), (1, 1), (1, 1), "SAME")
    assert calls
    calls.clear()
    K.conv(x.astype(np.float64), np.ones((3, 3, 2, 2)), (1, 1), (1, 1), "SAME")
    assert not calls  # float64 keeps the direct path


def _chooses(n, h, w, c, o, k, padding="SAME", stride=1, dilation=1, dtype=np.float32):
    outs, pads = K.geometry((h, w), (k, k), (stride,) * 2, (dilation,) * 2, padding)
    return S.worthwhile(dtype, (h, w), (k, k), outs, pads, (stride,) * 2, (dilation,) * 2,
                        n, c, o)


def test_the_choice():
    assert _chooses(64, 14, 14, 32, 64, 5)  # the MNIST CNN's second convolution
    assert _chooses(64, 14, 14, 32, 64, 5, "VALID")
    assert _chooses(32, 20, 20, 32, 32, 7)
    assert not _chooses(32, 24, 24, 32, 32, 7)  # a 30-wide frame
    assert not _chooses(64, 28, 28, 1, 32, 5)  # one input channel (and a 32-wide frame)
    assert not _chooses(64, 14, 14, 64, 64, 3)  # 3x3: too few taps per frequency
    assert not _chooses(16, 32, 32, 32, 32, 5)  # a 36-wide frame
    assert not _chooses(4, 14, 14, 32, 64, 5)  # too few positions for the filter's transform
    assert not _chooses(64, 14, 14, 32, 64, 5, stride=2)
    assert not _chooses(64, 14, 14, 32, 64, 5, dilation=2)
    assert not _chooses(64, 14, 14, 32, 64, 5, dtype=np.float64)


def test_graph_training_step_matches_float64():
    """A conv layer's output and both gradients in float32 (spectral) against float64
    (direct), through tf.nn.conv2d and tf.gradients, in one session with the pool."""
    rng = np.random.default_rng(7)
    xv = rng.standard_normal((64, 14, 14, 32))
    wv = rng.standard_normal((5, 5, 32, 64)) * 0.1
    results = {}
    for dt in (tf.float32, tf.float64):
        g = tf.Graph()
        with g.as_default():
            x = tf.constant(xv, dt)
            w = tf.Variable(tf.constant(wv, dt))
            y = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")
            loss = tf.reduce_sum(tf.sin(y))
            dx, dw = tf.gradients(loss, [x, w])
            assert y.shape.as_list() == [64, 14, 14, 64]
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                results[dt] = sess.run([y, dx, dw])
    for got, want in zip(results[tf.float32], results[tf.float64]):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * np.abs(want).max())


def test_half_precision_computes_in_float32():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((64, 14, 14, 8)).astype(np.float16)
    w = (rng.standard_normal((5, 5, 8, 8)) * 0.2).astype(np.float16)
    y = K.conv(x, w, (1, 1), (1, 1), "SAME")
    assert y.dtype == np.float16
    want = _ref_forward(x, w.astype(np.float64), ((2, 2), (2, 2)), (14, 14))
    np.testing.assert_allclose(y.astype(np.float64), want, rtol=2e-3, atol=2e-2)
