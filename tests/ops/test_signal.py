"""tf.signal / tf.spectral: framing, overlap-add, windows, STFT round trips, mel matrices, DCTs
and FFT shifts against NumPy references, plus their errors."""

import math

import numpy as np
import pytest

import tideflow as tf
from tideflow import signal, spectral

_rng = np.random.RandomState(3)


def _run(t, feed=None):
    with tf.Session() as s:
        return s.run(t, feed)


def test_frame_matches_strided_slices():
    x = _rng.randn(2, 11).astype(np.float32)
    with tf.Graph().as_default():
        f = signal.frame(x, 4, 3)
        fp = signal.frame(x, 4, 3, pad_end=True, pad_value=-1.0)
        f0 = signal.frame(x.T, 5, 2, axis=0)
        assert f.get_shape().as_list() == [2, 3, 4]
        assert fp.get_shape().as_list() == [2, 4, 4]
        got, gotp, got0 = _run([f, fp, f0])
    want = np.stack([x[:, i * 3:i * 3 + 4] for i in range(3)], axis=1)
    np.testing.assert_array_equal(got, want)
    xp = np.concatenate([x, -np.ones((2, 2), np.float32)], 1)
    np.testing.assert_array_equal(gotp, np.stack([xp[:, i * 3:i * 3 + 4] for i in range(4)], 1))
    np.testing.assert_array_equal(got0, np.stack([x.T[i * 2:i * 2 + 5] for i in range(4)], 0))


def test_frame_shorter_signal_gives_no_frames_and_unknown_length_works():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None])
        f = signal.frame(p, 4, 2)
        assert f.get_shape().as_list() == [None, 4]
        assert _run(f, {p: np.ones(3)}).shape == (0, 4)
        assert _run(f, {p: np.arange(8.0)}).shape == (3, 4)


def test_overlap_and_add_inverts_frame_counts():
    x = _rng.randn(3, 5, 4)
    with tf.Graph().as_default():
        got = _run(signal.overlap_and_add(x, 2))
    want = np.zeros((3, 4 * 2 + 4))
    for i in range(5):
        want[:, i * 2:i * 2 + 4] += x[:, i]
    np.testing.assert_allclose(got, want, atol=1e-12)


@pytest.mark.parametrize("n", [1, 6, 7])
def test_windows(n):
    with tf.Graph().as_default():
        hs, hp, ms = _run([signal.hann_window(n, periodic=False), signal.hann_window(n),
                           signal.hamming_window(n, periodic=False, dtype=tf.float64)])
    np.testing.assert_allclose(hs, np.hanning(n), atol=1e-6)
    np.testing.assert_allclose(ms, np.hamming(n), atol=1e-12)
    # TF's periodic window is the truncated symmetric window of length n + 1 for even n only
    want = np.hanning(n + 1)[:n] if n % 2 == 0 else np.hanning(n)
    np.testing.assert_allclose(hp, want if n > 1 else [1.0], atol=1e-6)


def test_stft_matches_framed_windowed_rfft_and_inverts():
    x = _rng.randn(2, 64)
    with tf.Graph().as_default():
        s = signal.stft(x, 16, 4)
        back = signal.inverse_stft(s, 16, 4, window_fn=signal.inverse_stft_window_fn(4))
        assert s.get_shape().as_list() == [2, 13, 9]
        got, rec = _run([s, back])
    w = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(16) / 16)
    frames = np.stack([x[:, i * 4:i * 4 + 16] for i in range(13)], 1)
    np.testing.assert_allclose(got, np.fft.rfft(frames * w, 16), atol=1e-10)
    # perfect reconstruction away from the edges
    np.testing.assert_allclose(rec[:, 16:-16], x[:, 16:-16], atol=1e-10)


def test_linear_to_mel_weight_matrix_htk_triangles():
    with tf.Graph().as_default():
        m = _run(signal.linear_to_mel_weight_matrix(4, 9, 1000, 50.0, 450.0, dtype=tf.float64))
    mel = lambda f: 1127.0 * np.log1p(f / 700.0)
    edges = np.linspace(mel(50.0), mel(450.0), 6)
    freqs = mel(np.linspace(0, 500, 9))
    want = np.zeros((9, 4))
    for b in range(1, 9):
        for j in range(4):
            lo, c, hi = edges[j:j + 3]
            want[b, j] = max(0.0, min((freqs[b] - lo) / (c - lo), (hi - freqs[b]) / (hi - c)))
    np.testing.assert_allclose(m, want, atol=1e-12)
    with pytest.raises(ValueError, match="lower_edge_hertz"):
        signal.linear_to_mel_weight_matrix(lower_edge_hertz=4000.0, upper_edge_hertz=100.0)
    with pytest.raises(ValueError, match="Nyquist"):
        signal.linear_to_mel_weight_matrix(upper_edge_hertz=9000.0)


def _dct_ref(x, typ, norm):
    n = x.shape[-1]
    k = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    if typ == 2:
        y = 2 * (x[..., None, :] * np.cos(np.pi * k * (2 * j + 1) / (2 * n))).sum(-1)
        if norm == "ortho":
            y[..., 0] *= math.sqrt(1 / (4 * n))
            y[..., 1:] *= math.sqrt(1 / (2 * n))
        return y
    if typ == 3:
        xs = x.copy()
        if norm == "ortho":
            xs[..., 0] *= math.sqrt(1 / n) / 1.0
            xs[..., 1:] *= math.sqrt(2 / n) / 2
            return xs[..., :1] + 2 * (xs[..., None, 1:] * np.cos(
                np.pi * j[:, 1:] * (2 * k + 1) / (2 * n))).sum(-1)
        return x[..., :1] + 2 * (x[..., None, 1:] * np.cos(
            np.pi * j[:, 1:] * (2 * k + 1) / (2 * n))).sum(-1)
    y = 2 * (x[..., None, :] * np.cos(np.pi * (2 * j + 1) * (2 * k + 1) / (4 * n))).sum(-1)
    return y * math.sqrt(1 / (2 * n)) if norm == "ortho" else y


@pytest.mark.parametrize("typ,norm", [(2, None), (2, "ortho"), (3, None), (3, "ortho"),
                                      (4, None), (4, "ortho")])
def test_dct_against_sums(typ, norm):
    x = _rng.randn(3, 6)
    with tf.Graph().as_default():
        got, inv = _run([signal.dct(x, type=typ, norm=norm),
                         spectral.idct(signal.dct(x, type=typ, norm="ortho"), type=typ,
                                       norm="ortho")])
    np.testing.assert_allclose(got, _dct_ref(x, typ, norm), atol=1e-10)
    np.testing.assert_allclose(inv, x, atol=1e-10)


def test_dct_errors_and_mfcc_scale():
    x = _rng.randn(2, 8)
    with tf.Graph().as_default():
        with pytest.raises(NotImplementedError, match="axis must be -1"):
            signal.dct(x, axis=0)
        with pytest.raises(ValueError, match="Type-I"):
            signal.dct(x, type=1, norm="ortho")
        with pytest.raises(ValueError, match="normalization"):
            signal.dct(x, norm="bad")
        got = _run(signal.mfccs_from_log_mel_spectrograms(x))
    np.testing.assert_allclose(got, _dct_ref(x, 2, None) / math.sqrt(16), atol=1e-10)


def test_fftshift_and_fft_errors():
    x = _rng.randn(3, 5)
    with tf.Graph().as_default():
        a, b = _run([signal.fftshift(x), signal.ifftshift(x, axes=1)])
        np.testing.assert_array_equal(a, np.fft.fftshift(x))
        np.testing.assert_array_equal(b, np.fft.ifftshift(x, axes=1))
        # TF 1.15 converts a NumPy float array to complex64, but a float tensor is refused
        with pytest.raises(TypeError, match="not in list of allowed values: complex64, "
                           "complex128"):
            signal.fft(tf.constant(x))
        with pytest.raises(ValueError, match="at least rank 2 but is rank 1"):
            signal.fft2d(tf.constant([1j, 2j]))
        p = tf.placeholder(tf.int32, [None])
        with pytest.raises(tf.errors.InvalidArgumentError, match="paddings must be the rank"):
            _run(signal.rfft(x, p), {p: [3, 4]})


def test_against_tensorflow_if_present():
    import os
    import subprocess

    tfpy = "/tmp/tfvenv/bin/python"
    if not os.path.exists(tfpy):
        pytest.skip("no reference TensorFlow")
    code = ("import numpy as np, tensorflow.compat.v1 as tf; tf.disable_v2_behavior();"
            "x = np.arange(40, dtype=np.float32).reshape(2, 20) ** 1.5 % 7;"
            "s = tf.Session();"
            "print(repr(s.run(tf.signal.stft(x, 8, 3, pad_end=True)).tolist()))")
    out = subprocess.run([tfpy, "-c", code], check=False, capture_output=True, text=True,
                         timeout=120)
    if out.returncode:
        pytest.skip("reference TensorFlow failed to run")
    want = np.array(eval(out.stdout.strip().splitlines()[-1]))
    x = np.arange(40, dtype=np.float32).reshape(2, 20) ** 1.5 % 7
    with tf.Graph().as_default():
        got = _run(signal.stft(x, 8, 3, pad_end=True))
    np.testing.assert_allclose(got, want, atol=1e-4)


def test_nd_transforms_over_axes_with_lengths_and_norms():
    x = _rng.randn(2, 3, 4)
    c = x + 1j * x[::-1]
    with tf.Graph().as_default():
        got = _run([signal.fftnd(c, axes=[0, 2]), signal.fftnd(c, fft_length=[5, 2]),
                    signal.ifftnd(c, axes=[1], norm="ortho"), signal.rfftnd(x),
                    signal.rfftnd(x, fft_length=[6], axes=[1]),
                    signal.irfftnd(c, fft_length=[3, 6], norm="forward")])
        with pytest.raises(ValueError, match="norm"):
            signal.fftnd(c, norm="unitary")
        with pytest.raises(ValueError, match="axes"):
            signal.fftnd(c, axes=[0, 0])
    want = [np.fft.fftn(c, axes=[0, 2]), np.fft.fftn(c, s=[5, 2], axes=[-2, -1]),
            np.fft.ifftn(c, axes=[1], norm="ortho"), np.fft.rfftn(x),
            np.fft.rfftn(x, s=[6], axes=[1]),
            np.fft.irfftn(c, s=[3, 6], axes=[-2, -1], norm="forward")]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, atol=1e-12)


def test_vorbis_kaiser_and_kbd_windows():
    with tf.Graph().as_default():
        vb, ks, kbd, k1 = _run([signal.vorbis_window(6, dtype=tf.float64),
                                signal.kaiser_window(5, 3.0, dtype=tf.float64),
                                signal.kaiser_bessel_derived_window(6, 3.0, dtype=tf.float64),
                                signal.kaiser_window(1)])
    n = np.arange(6)
    np.testing.assert_allclose(vb, np.sin(np.pi / 2 * np.sin(np.pi * (n + 0.5) / 6) ** 2))
    np.testing.assert_allclose(ks, np.kaiser(5, 3.0))
    c = np.cumsum(np.kaiser(4, 3.0))
    half = np.sqrt(c[:3] / c[-1])
    np.testing.assert_allclose(kbd, np.concatenate([half, half[::-1]]))
    np.testing.assert_allclose(kbd[:3] ** 2 + kbd[3:] ** 2, 1.0)  # power complementary
    assert k1.tolist() == [1.0]


def test_mdct_matches_its_sum_and_reconstructs():
    x = _rng.randn(2, 24)
    with tf.Graph().as_default():
        m, mo = _run([signal.mdct(x, 8), signal.mdct(x, 8, norm="ortho")])
        back = _run(signal.inverse_mdct(signal.mdct(x, 8, norm="ortho"), norm="ortho"))
        back_plain = _run(signal.inverse_mdct(signal.mdct(x, 8)))
        with pytest.raises(ValueError, match="multiple of 4"):
            signal.mdct(x, 6)
    n, k = np.arange(8)[:, None], np.arange(4)[None, :]
    w = np.sin(np.pi / 2 * np.sin(np.pi * (np.arange(8) + 0.5) / 8) ** 2)
    frames = np.stack([x[:, i * 4:i * 4 + 8] for i in range(5)], 1) * w
    basis = np.cos(np.pi / 4 * (n + 0.5 + 2) * (k + 0.5))
    np.testing.assert_allclose(m, 2 * frames @ basis, atol=1e-10)
    np.testing.assert_allclose(mo, np.sqrt(2 / 4) * frames @ basis, atol=1e-10)
    # time-domain aliasing cancels away from the two half-frames at the ends
    np.testing.assert_allclose(back[:, 4:-4], x[:, 4:20], atol=1e-10)
    np.testing.assert_allclose(back_plain[:, 4:-4], x[:, 4:20], atol=1e-10)
