"""tf.linalg.LinearOperator and its family against NumPy: each operator's dense matrix from
its defining formula, then matmul (and adjoint), solve, determinants, diagonal and trace;
shapes, hints, composition through ``@`` and constructor errors."""

import numpy as np
import pytest

import tideflow as tf
from tideflow import linalg

_rng = np.random.RandomState(6)
A = _rng.randn(2, 3, 3) + 3 * np.eye(3)
B = _rng.randn(3, 3) + 2 * np.eye(3)
D = _rng.uniform(1, 2, (2, 3))


def _cases():
    u = _rng.randn(3, 2)
    tri = _rng.randn(3, 4) + np.array([[0], [4], [0]])
    kb = np.array([[1.0, 2, 0], [0, 1, 3], [1, 0, 1]])
    spec = np.array([6.0, 1 + 1j, 2, 1 - 1j])
    return [
        ("full", lambda: linalg.LinearOperatorFullMatrix(A), A),
        ("diag", lambda: linalg.LinearOperatorDiag(D), np.stack([np.diag(d) for d in D])),
        ("identity", lambda: linalg.LinearOperatorIdentity(3, batch_shape=[2],
                                                           dtype=tf.float64),
         np.stack([np.eye(3)] * 2)),
        ("scaled", lambda: linalg.LinearOperatorScaledIdentity(3, np.array([2.0, -3.0])),
         np.stack([2 * np.eye(3), -3 * np.eye(3)])),
        ("tril", lambda: linalg.LinearOperatorLowerTriangular(A), np.tril(A)),
        ("composition", lambda: linalg.LinearOperatorComposition(
            [linalg.LinearOperatorFullMatrix(A), linalg.LinearOperatorFullMatrix(B)]), A @ B),
        ("adjoint", lambda: linalg.LinearOperatorAdjoint(linalg.LinearOperatorFullMatrix(A)),
         np.swapaxes(A, -1, -2)),
        ("inversion", lambda: linalg.LinearOperatorInversion(
            linalg.LinearOperatorFullMatrix(A)), np.linalg.inv(A)),
        ("kronecker", lambda: linalg.LinearOperatorKronecker(
            [linalg.LinearOperatorFullMatrix(B[:2, :2]), linalg.LinearOperatorFullMatrix(kb)]),
         np.kron(B[:2, :2], kb)),
        ("block_diag", lambda: linalg.LinearOperatorBlockDiag(
            [linalg.LinearOperatorFullMatrix(B[:2, :2]), linalg.LinearOperatorDiag(np.array([1.0, 4]))]),
         np.block([[B[:2, :2], np.zeros((2, 2))], [np.zeros((2, 2)), np.diag([1.0, 4])]])),
        ("block_lower", lambda: linalg.LinearOperatorBlockLowerTriangular(
            [[linalg.LinearOperatorFullMatrix(B[:2, :2])],
             [linalg.LinearOperatorFullMatrix(np.ones((1, 2))), linalg.LinearOperatorDiag(np.array([3.0]))]]),
         np.block([[B[:2, :2], np.zeros((2, 1))], [np.ones((1, 2)), np.full((1, 1), 3.0)]])),
        ("low_rank", lambda: linalg.LinearOperatorLowRankUpdate(
            linalg.LinearOperatorDiag(np.array([1.0, 2, 3])), u, diag_update=[0.5, 2.0]),
         np.diag([1.0, 2, 3]) + u @ np.diag([0.5, 2.0]) @ u.T),
        ("householder", lambda: linalg.LinearOperatorHouseholder(np.array([1.0, 2, 2])),
         np.eye(3) - 2 * np.outer([1, 2, 2], [1, 2, 2]) / 9.0),
        ("permutation", lambda: linalg.LinearOperatorPermutation(
            np.array([2, 0, 1], np.int32), dtype=tf.float64), np.eye(3)[[2, 0, 1]]),
        ("tridiag", lambda: linalg.LinearOperatorTridiag(tri),
         np.diag(tri[1]) + np.diag(tri[0, :-1], 1) + np.diag(tri[2, 1:], -1)),
        ("toeplitz", lambda: linalg.LinearOperatorToeplitz(np.array([1.0, 2, 3]), np.array([9.0, 5, 6])),
         np.array([[1.0, 5, 6], [2, 1, 5], [3, 2, 1]])),
        ("circulant", lambda: linalg.LinearOperatorCirculant(
            spec, input_output_dtype=tf.complex128),
         np.stack([np.roll(np.fft.ifft(spec), k) for k in range(4)], 1)),
    ]


@pytest.mark.parametrize("name,build,dense", _cases(), ids=[c[0] for c in _cases()])
def test_operator_against_its_dense_matrix(name, build, dense):
    with tf.Graph().as_default():
        op = build()
        n = dense.shape[-1]
        x = _rng.randn(*dense.shape[:-2], n, 2).astype(dense.dtype)
        assert op.shape.as_list() == list(dense.shape)
        assert op.is_square
        got = tf.Session().run({
            "dense": op.to_dense(), "mm": op.matmul(x), "mma": op.matmul(x, adjoint=True),
            "mv": op.matvec(x[..., 0]), "solve": op.solve(x), "det": op.determinant(),
            "lad": op.log_abs_determinant(), "diag": op.diag_part(), "trace": op.trace(),
            "shape": op.shape_tensor(), "adjoint": op.adjoint().to_dense()})
    ct = np.conj(np.swapaxes(dense, -1, -2))
    np.testing.assert_allclose(got["dense"], dense, atol=1e-10)
    np.testing.assert_allclose(got["mm"], dense @ x, atol=1e-10)
    np.testing.assert_allclose(got["mma"], ct @ x, atol=1e-10)
    np.testing.assert_allclose(got["mv"], (dense @ x)[..., 0], atol=1e-10)
    np.testing.assert_allclose(got["solve"], np.linalg.solve(dense, x), atol=1e-9)
    np.testing.assert_allclose(got["det"], np.linalg.det(dense), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(np.real(got["lad"]), np.linalg.slogdet(dense)[1], atol=1e-9)
    np.testing.assert_allclose(got["diag"], np.diagonal(dense, axis1=-2, axis2=-1), atol=1e-10)
    np.testing.assert_allclose(got["trace"], np.trace(dense, axis1=-2, axis2=-1), atol=1e-10)
    assert got["shape"].tolist() == list(dense.shape)
    np.testing.assert_allclose(got["adjoint"], ct, atol=1e-10)


def test_zeros_operator_and_operator_algebra():
    with tf.Graph().as_default():
        z = linalg.LinearOperatorZeros(2, 3, dtype=tf.float64, is_square=False)
        full = linalg.LinearOperatorFullMatrix(A)
        diag = linalg.LinearOperatorDiag(D)
        prod = full @ diag
        inv = full.inverse()
        assert isinstance(prod, linalg.LinearOperatorComposition)
        assert isinstance(inv, linalg.LinearOperatorInversion)
        assert diag.adjoint() is diag  # real diagonal: self-adjoint
        assert z.shape.as_list() == [2, 3] and not z.is_square
        zd, zm, pd, idn = tf.Session().run([z.to_dense(), z.matmul(np.ones((3, 4))),
                                            prod.to_dense(), inv.matmul(A)])
    assert (zd == 0).all() and zm.shape == (2, 4) and (zm == 0).all()
    np.testing.assert_allclose(pd, A * D[:, None, :], atol=1e-12)
    np.testing.assert_allclose(idn, np.stack([np.eye(3)] * 2), atol=1e-10)


def test_constructor_errors_and_hints():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="always non-singular"):
            linalg.LinearOperatorIdentity(3, is_non_singular=False)
        with pytest.raises(ValueError, match="positive definite matrix is always non-singular"):
            linalg.LinearOperatorFullMatrix(B, is_positive_definite=True, is_non_singular=False)
        with pytest.raises(TypeError, match="same dtype"):
            linalg.LinearOperatorComposition([linalg.LinearOperatorFullMatrix(B),
                                              linalg.LinearOperatorFullMatrix(
                                                  B.astype(np.float32))])
        # TF 1.15 checks the factors' dimensions when the shape is asked for
        bad = linalg.LinearOperatorComposition([linalg.LinearOperatorFullMatrix(np.ones((2, 3))),
                                                linalg.LinearOperatorFullMatrix(np.ones((2, 2)))])
        with pytest.raises(ValueError, match="^Dimensions 3 and 2 are not compatible$"):
            bad.shape  # noqa: B018
        with pytest.raises(TypeError, match="dtype"):
            linalg.LinearOperatorFullMatrix(B).matmul(np.ones((3, 1), np.float32))
        with pytest.raises(NotImplementedError, match="singular"):
            linalg.LinearOperatorZeros(3, dtype=tf.float64).solve(np.ones((3, 1)))
        pd = linalg.LinearOperatorFullMatrix(B @ B.T + np.eye(3), is_self_adjoint=True,
                                             is_positive_definite=True)
        assert pd.is_non_singular and pd.is_square
        chol = tf.Session().run(pd.cholesky().to_dense())
    np.testing.assert_allclose(chol, np.linalg.cholesky(B @ B.T + np.eye(3)), atol=1e-12)


def test_conjugate_gradient_solves_spd_systems():
    m = _rng.randn(2, 5, 5)
    spd = m @ np.swapaxes(m, -1, -2) + 5 * np.eye(5)
    b = _rng.randn(2, 5)
    with tf.Graph().as_default():
        op = linalg.LinearOperatorFullMatrix(spd, is_self_adjoint=True,
                                             is_positive_definite=True)
        pre = linalg.LinearOperatorDiag(1 / np.diagonal(spd, axis1=1, axis2=2),
                                        is_self_adjoint=True, is_positive_definite=True)
        plain = linalg.experimental.conjugate_gradient(op, b, tol=1e-10, max_iter=50)
        warm = linalg.experimental.conjugate_gradient(op, b, preconditioner=pre,
                                                      x=np.ones((2, 5)), tol=1e-10, max_iter=50)
        capped = linalg.experimental.conjugate_gradient(op, b, max_iter=2)
        with pytest.raises(ValueError, match="self-adjoint, positive definite"):
            linalg.experimental.conjugate_gradient(linalg.LinearOperatorFullMatrix(spd), b)
        (i, x), (_, xw), ic = tf.Session().run([(plain.i, plain.x), (warm.i, warm.x), capped.i])
    want = np.linalg.solve(spd, b[..., None])[..., 0]
    np.testing.assert_allclose(x, want, atol=1e-8)
    np.testing.assert_allclose(xw, want, atol=1e-8)
    assert 1 <= i <= 5 and ic == 2  # exact in at most n steps
