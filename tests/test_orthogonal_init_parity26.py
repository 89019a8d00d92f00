"""tf.linalg.qr in float32 and the orthogonal initializers built on it give TF 1.15's bits
(Eigen's Householder QR, modelled in tideflow/kernels/eigen_qr.py). Every expected value here
was measured in TF 1.15 (tensorflow-cpu 1.15.0): the floats printed there, the others as the
first 16 hex digits of the sha256 of the result's bytes."""

import hashlib

import numpy as np
import pytest

import tideflow as tf


def _h(x):
    return hashlib.sha256(np.ascontiguousarray(x).tobytes()).hexdigest()[:16]


def _run(t):
    with tf.Session() as s:
        return s.run(t)


# tf.orthogonal_initializer(seed=3)((6, 6)), a small RNN's recurrent kernel, in TF 1.15
_ORTH_6x6 = [
    0.42353224754333496, 0.012587830424308777, 0.2164028137922287, 0.28943437337875366,
    0.2766897976398468, -0.7831361889839172, 0.11973986029624939, 0.5490683317184448,
    -0.13987308740615845, -0.7582252621650696, -0.10240624099969864, -0.2814770042896271,
    -0.817344069480896, 0.10994182527065277, 0.4349810481071472, 0.012484073638916016,
    -0.09421621263027191, -0.3487411439418793, -0.10510998219251633, -0.3634393811225891,
    0.1524541974067688, -0.44890519976615906, 0.7896485328674316, 0.09252320230007172,
    -0.35654526948928833, 0.03845943883061409, -0.8353020548820496, 0.1859176754951477,
    0.2676369547843933, -0.2597537040710449, 0.0076737236231565475, -0.7434453368186951,
    -0.15305271744728088, -0.3241683840751648, -0.45706069469451904, -0.3313840329647064]


def test_orthogonal_6x6_values():
    with tf.Graph().as_default():
        x = _run(tf.orthogonal_initializer(seed=3)((6, 6)))
    assert x.dtype == np.float32
    assert [float(v) for v in x.ravel()] == _ORTH_6x6


# LSTM (units x 4 units), GRU-like, square, 4-d conv and tall shapes, seed 5, in TF 1.15
@pytest.mark.parametrize("shape,digest", [
    ((6, 24), "a2052a633f994d36"),
    ((32, 128), "afdcd4f5f4a92a73"),
    ((40, 160), "fdbf1f30249d6dd9"),
    ((47, 188), "220de3b1f93479e5"),
    ((3, 3, 4, 8), "7331e7c1d223b82d"),
    ((9, 9), "05b5a6fc7bccfc02"),
    ((20, 10), "b921c4a47e667b8b"),
])
def test_orthogonal_initializer_bits(shape, digest):
    with tf.Graph().as_default():
        assert _h(_run(tf.orthogonal_initializer(seed=5)(shape))) == digest


# tf.linalg.qr of np.random.RandomState(11).randn(...) matrices in turn, in TF 1.15: thin Q
# (Eigen's packet sums), full Q (sequential sums), over 128 rows (blocks of 16), a batch
_QR_CASES = [
    ((9, 9), False, "8e6a5fe13792d1e5", "0246dde63e6784e2"),
    ((13, 13), True, "520cbd3c966f6d29", "81f24284f1f0dfec"),
    ((160, 40), False, "56b7884282fef4e5", "5e77db2302911edb"),
    ((160, 40), True, "cd2ad2d1859fedd4", "57711ee6e5a088e0"),
    ((48, 48), True, "e125342f96ba6695", "758360231358bb22"),
    ((200, 20), False, "a4d18ec84e6b6716", "c5ff352bb17d845d"),
    ((2, 17, 5), False, "a9f4a98de6f8bd0e", "e0a821414171f882"),
]


def test_qr_bits():
    r = np.random.RandomState(11)
    for shape, full, hq, hr in _QR_CASES:
        a = r.randn(*shape).astype(np.float32)
        with tf.Graph().as_default():
            q, rr = _run(tf.linalg.qr(a, full_matrices=full))
        assert (_h(q), _h(rr)) == (hq, hr), (shape, full)


def test_unmodelled_shapes_stay_orthogonal():
    # 48 or more reflectors (thin Q) and wide matrices keep the LAPACK path: TF's Q there is
    # not reproduced bit for bit, but it is still a QR factorization
    r = np.random.RandomState(0)
    for shape in [(64, 64), (5, 9), (60, 48)]:
        a = r.randn(*shape).astype(np.float32)
        with tf.Graph().as_default():
            q, rr = _run(tf.linalg.qr(a))
        np.testing.assert_allclose(q @ rr, a, atol=1e-4)
        np.testing.assert_allclose(q.T @ q, np.eye(q.shape[1]), atol=1e-5)


# float64: the same algorithm with packets of 4 doubles, measured in TF 1.15 (seed 5 and
# np.random.RandomState(12).randn(...) in turn)
@pytest.mark.parametrize("shape,digest", [
    ((6, 24), "dd810a64727361f4"),
    ((13, 13), "c1f216f50454d22c"),
])
def test_orthogonal_initializer_float64_bits(shape, digest):
    with tf.Graph().as_default():
        x = _run(tf.orthogonal_initializer(seed=5, dtype=tf.float64)(shape))
    assert x.dtype == np.float64 and _h(x) == digest


def test_qr_float64_bits():
    r = np.random.RandomState(12)
    for shape, full, hq, hr in [
            ((9, 9), False, "34455cac9f3755bc", "58e22edcb40e39ec"),
            ((160, 40), True, "269d9409904ba9d5", "52d47d9fb4b57ad1"),
            ((31, 7), False, "3fc99b35f1c9064d", "de125fb4172f5e3b")]:
        a = r.randn(*shape)
        with tf.Graph().as_default():
            q, rr = _run(tf.linalg.qr(a, full_matrices=full))
        assert (_h(q), _h(rr)) == (hq, hr), (shape, full)
