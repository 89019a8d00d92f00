"""tf.linalg additions against NumPy: LU solve/inverse/reconstruct, logdet/slogdet, pinv,
matrix_rank, matvec, normalize, tridiagonal solve/matmul (all formats), eigh_tridiagonal,
expm/sqrtm gradients, and their errors."""

import numpy as np
import pytest

import tideflow as tf

_rng = np.random.RandomState(12)
A = _rng.randn(2, 4, 4)


def _run(t, feed=None):
    with tf.Session() as s:
        return s.run(t, feed)


def test_lu_family():
    b = _rng.randn(2, 4, 3)
    with tf.Graph().as_default():
        lu, p = tf.linalg.lu(A)
        rec, x, inv, p64 = _run([tf.linalg.lu_reconstruct(lu, p), tf.linalg.lu_solve(lu, p, b),
                                 tf.linalg.lu_matrix_inverse(lu, p),
                                 tf.linalg.lu(A, output_idx_type=tf.int64)[1]])
        with pytest.raises(tf.errors.InvalidArgumentError, match="not invertible"):
            _run(tf.linalg.lu(np.zeros((3, 3))))
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
            tf.linalg.lu(np.zeros((3, 4)))
    np.testing.assert_allclose(rec, A, atol=1e-12)
    np.testing.assert_allclose(x, np.linalg.solve(A, b), atol=1e-10)
    np.testing.assert_allclose(inv, np.linalg.inv(A), atol=1e-10)
    assert p64.dtype == np.int64


def test_determinants():
    spd = A @ np.swapaxes(A, -1, -2) + np.eye(4)
    big = np.eye(3) * 1e200
    with tf.Graph().as_default():
        (sign, ld), logdet, (bs, bld) = _run([tf.linalg.slogdet(A), tf.linalg.logdet(spd),
                                               tf.linalg.slogdet(big)])
    s_ref, ld_ref = np.linalg.slogdet(A)
    np.testing.assert_allclose(sign, s_ref)
    np.testing.assert_allclose(ld, ld_ref, rtol=1e-12)
    np.testing.assert_allclose(logdet, np.linalg.slogdet(spd)[1], rtol=1e-12)
    assert bs == 1 and bld == pytest.approx(600 * np.log(10))  # det itself overflows


def test_pinv_rank_matvec_normalize():
    low = np.outer([1.0, 2, 3], [1.0, 1, 0, 2])
    r = _rng.randn(3, 5)
    v = _rng.randn(2, 4)
    with tf.Graph().as_default():
        pi, pl, rank, ranks, mv, (n, nrm) = _run([
            tf.linalg.pinv(r), tf.linalg.pinv(low), tf.linalg.matrix_rank(low),
            tf.linalg.matrix_rank(A), tf.linalg.matvec(A, v), tf.linalg.normalize(r, axis=1)])
        mvt = _run(tf.linalg.matvec(A, v, adjoint_a=True))
    np.testing.assert_allclose(pi, np.linalg.pinv(r), atol=1e-12)
    np.testing.assert_allclose(pl, np.linalg.pinv(low), atol=1e-12)
    assert rank == 1 and ranks.tolist() == [4, 4]
    np.testing.assert_allclose(mv, np.einsum("bij,bj->bi", A, v))
    np.testing.assert_allclose(mvt, np.einsum("bji,bj->bi", A, v))
    np.testing.assert_allclose(nrm, np.linalg.norm(r, axis=1, keepdims=True))
    np.testing.assert_allclose(n, r / np.linalg.norm(r, axis=1, keepdims=True))


def _dense(sup, main, sub):
    return np.diag(main) + np.diag(sup[:-1], 1) + np.diag(sub[1:], -1)


def test_tridiagonal_solve_and_matmul_formats():
    d = _rng.randn(3, 5)
    d[1] += 4  # well conditioned
    rhs = _rng.randn(5, 2)
    m = _dense(*d)
    with tf.Graph().as_default():
        x, xs, xm, xv, xt, y = _run([
            tf.linalg.tridiagonal_solve(d, rhs),
            tf.linalg.tridiagonal_solve([d[0], d[1], d[2]], rhs, diagonals_format="sequence"),
            tf.linalg.tridiagonal_solve(m, rhs, diagonals_format="matrix"),
            tf.linalg.tridiagonal_solve(d, rhs[:, 0]),
            tf.linalg.tridiagonal_solve(d, rhs.T, transpose_rhs=True),
            tf.linalg.tridiagonal_matmul(d, rhs)])
        with pytest.raises(ValueError, match="diagonals_format"):
            tf.linalg.tridiagonal_solve(d, rhs, diagonals_format="banded")
        with pytest.raises(ValueError, match="^Expected 3 diagonals got 2$"):  # TF 1.15's
            tf.linalg.tridiagonal_solve(d[:2], rhs)
    want = np.linalg.solve(m, rhs)
    for got in (x, xs, xm):
        np.testing.assert_allclose(got, want, atol=1e-12)
    # TF 1.15 returns a transposed right-hand side's solution transposed back ([K, M])
    np.testing.assert_allclose(xt, want.T, atol=1e-12)
    np.testing.assert_allclose(xv, want[:, 0], atol=1e-12)
    np.testing.assert_allclose(y, m @ rhs, atol=1e-12)


def test_eigh_tridiagonal_selections():
    alpha, beta = np.array([1.0, 2, 3, 4]), np.array([0.5, 0.3, 0.2])
    m = _dense(np.append(beta, 0), alpha, np.insert(beta, 0, 0))
    w_ref, v_ref = np.linalg.eigh(m)
    with tf.Graph().as_default():
        w, (w2, v), wv, wi = _run([
            tf.linalg.eigh_tridiagonal(alpha, beta),
            tf.linalg.eigh_tridiagonal(alpha, beta, eigvals_only=False),
            tf.linalg.eigh_tridiagonal(alpha, beta, select="v", select_range=(1.5, 3.5)),
            tf.linalg.eigh_tridiagonal(alpha, beta, select="i", select_range=(1, 2))])
    np.testing.assert_allclose(w, w_ref, atol=1e-12)
    np.testing.assert_allclose(w2, w_ref, atol=1e-12)
    np.testing.assert_allclose(np.abs((v * v_ref).sum(0)), 1, atol=1e-10)
    np.testing.assert_allclose(wv, w_ref[(w_ref > 1.5) & (w_ref <= 3.5)], atol=1e-12)
    np.testing.assert_allclose(wi, w_ref[1:3], atol=1e-12)


def test_matrix_functions_and_their_gradients():
    spd = A[0] @ A[0].T + 4 * np.eye(4)
    with tf.Graph().as_default():
        x = tf.constant(A[0] * 0.5)
        s = tf.constant(spd)
        e = tf.linalg.expm(x)
        r = tf.linalg.sqrtm(s)
        ge, gr = _run(tf.gradients(tf.reduce_sum(tf.sin(e)), x) +
                      tf.gradients(tf.reduce_sum(tf.sin(r)), s))
        ev, rv, lv = _run([e, r, tf.linalg.logm(tf.cast(s, tf.complex128))])
        with pytest.raises(TypeError, match="complex"):
            tf.linalg.logm(s)
    np.testing.assert_allclose(rv @ rv, spd, atol=1e-10)
    w, v = np.linalg.eigh(spd)
    np.testing.assert_allclose(lv, (v * np.log(w)) @ v.T, atol=1e-10)

    def num_grad(f, a):
        g = np.zeros_like(a)
        for k in range(a.size):
            d = np.zeros_like(a)
            d.flat[k] = 1e-6
            g.flat[k] = (f(a + d) - f(a - d)) / 2e-6
        return g

    def expm_np(a):
        term, total = np.eye(4), np.eye(4)
        for k in range(1, 40):
            term = term @ a / k
            total = total + term
        return total

    np.testing.assert_allclose(ev, expm_np(A[0] * 0.5), rtol=1e-10)
    np.testing.assert_allclose(ge, num_grad(lambda a: np.sin(expm_np(a)).sum(), A[0] * 0.5),
                               atol=1e-6)

    def sqrtm_np(a):
        ww, vv = np.linalg.eig(a)
        return np.real((vv * np.sqrt(ww.astype(complex))) @ np.linalg.inv(vv))

    np.testing.assert_allclose(gr, num_grad(lambda a: np.sin(sqrtm_np(a)).sum(), spd),
                               atol=1e-6)
