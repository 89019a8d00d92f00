"""Op-table rows for MatrixTriangularSolve, Qr, SelfAdjointEigV2 and the ops composed from
them or from transpose: matrix_transpose/adjoint and matrix_solve_ls."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case

C = (tf.complex64, tf.complex128)
R = (tf.float32, tf.float64)

_rng = np.random.RandomState(7)


def _arr(shape):
    re = _rng.uniform(-1, 1, size=shape).round(2)
    im = _rng.uniform(-1, 1, size=shape).round(2)

    def make(dt):
        if np.dtype(dt).kind == "c":
            return (re + 1j * im).astype(dt)
        return re.astype(dt)

    return make


def _diag_dominant(shape):
    base = _arr(shape)

    def make(dt):
        return (base(dt) + 3 * np.eye(shape[-1])).astype(dt)

    return make


def _symmetric(shape):
    # distinct, well-separated eigenvalues keep the eigenvectors' gradient stable
    base = _arr(shape)
    n = shape[-1]

    def make(dt):
        a = base(dt).astype(np.complex128 if np.dtype(dt).kind == "c" else np.float64)
        h = (a + np.conj(np.swapaxes(a, -1, -2))) / 2 + np.diag(np.arange(n) * 3.0)
        return h.astype(dt)

    return make


def _ct(x):
    return np.conj(np.swapaxes(x, -1, -2))


def _wide(x):
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def _ref_tri(lower, adjoint):
    def ref(a, b):
        a = _wide(a)
        a = np.tril(a) if lower else np.triu(a)
        return np.linalg.solve(_ct(a) if adjoint else a, _wide(b))

    return ref


def _ref_qr(full):
    def ref(a):
        return list(np.linalg.qr(_wide(a), mode="complete" if full else "reduced"))

    return ref


def _qr_recon(full):
    # checks q @ r == a and q orthonormal instead of LAPACK's sign choices
    def fn(a):
        q, r = tf.qr(a, full_matrices=full)
        return [tf.matmul(q, r), tf.matmul(q, q, adjoint_a=True)]

    def ref(a):
        k = a.shape[-2] if full else min(a.shape[-2:])
        return [_wide(a), np.broadcast_to(np.eye(k), a.shape[:-2] + (k, k))]

    return fn, ref


def _eig_fn(a):
    e, v = tf.self_adjoint_eig(a)
    # v up to sign/phase: compare v diag(e) v^H (== a) and |v|
    return [e, tf.matmul(v * tf.cast(tf.expand_dims(e, -2), v.dtype), v, adjoint_b=True)]


def _eig_ref(a):
    e = np.linalg.eigvalsh(_wide(a))
    return [e, _wide(a)]


def _eig_vec_fn(a):
    # v with a sign fixed by its largest-magnitude entry, so finite differences stay smooth
    _, v = tf.self_adjoint_eig(a)
    return v * tf.sign(tf.reduce_sum(v, axis=-2, keepdims=True))


def _eig_vec_ref(a):
    _, v = np.linalg.eigh(a)
    return v * np.sign(np.sum(v, axis=-2, keepdims=True))


def _lstsq_ref(l2):
    def ref(a, b):
        a, b = _wide(a), _wide(b)
        m, n = a.shape[-2:]
        if m >= n:
            return np.linalg.solve(_ct(a) @ a + l2 * np.eye(n), _ct(a) @ b)
        return _ct(a) @ np.linalg.solve(a @ _ct(a) + l2 * np.eye(m), b)

    return ref


_qr_tall = _qr_recon(False)
_qr_full = _qr_recon(True)

CASES = [
    Case("Transpose", tf.matrix_transpose, [_arr((2, 3, 4))], lambda a: np.swapaxes(a, -1, -2),
         dtypes=R + C + (tf.int32,), name="matrix_transpose"),
    Case("Transpose", lambda a: tf.matrix_transpose(a, conjugate=True), [_arr((3, 2))], _ct,
         dtypes=C + (tf.float64,), name="matrix_transpose_conjugate"),
    Case("Transpose", tf.linalg.adjoint, [_arr((2, 2, 3))], _ct, dtypes=C + R,
         name="linalg_adjoint"),
    Case("MatrixTriangularSolve", tf.matrix_triangular_solve,
         [_diag_dominant((2, 3, 3)), _arr((2, 3, 2))], _ref_tri(True, False), dtypes=R + C),
    Case("MatrixTriangularSolve",
         lambda a, b: tf.matrix_triangular_solve(a, b, lower=False, adjoint=True),
         [_diag_dominant((3, 3)), _arr((3, 4))], _ref_tri(False, True), dtypes=R + C,
         name="MatrixTriangularSolve_upper_adjoint"),
    Case("MatrixTriangularSolve",
         lambda a, b: tf.linalg.triangular_solve(a, b, lower=True, adjoint=True),
         [_diag_dominant((4, 4)), _arr((4, 1))], _ref_tri(True, True), dtypes=R,
         name="linalg_triangular_solve"),
    Case("Qr", lambda a: list(tf.qr(a)), [_arr((2, 4, 3))], _ref_qr(False), dtypes=R + C,
         grad=False, name="Qr_values"),
    Case("Qr", lambda a: list(tf.linalg.qr(a, full_matrices=True)), [_arr((4, 3))],
         _ref_qr(True), dtypes=R + C, grad=False, name="Qr_full_values"),
    Case("Qr", lambda a: list(tf.qr(a)), [_arr((3, 3))], _ref_qr(False), dtypes=R,
         name="Qr_square_grad"),
    Case("Qr", _qr_tall[0], [_arr((2, 5, 3))], _qr_tall[1], dtypes=R + C,
         name="Qr_reconstruct"),
    Case("Qr", _qr_full[0], [_arr((4, 2))], _qr_full[1], dtypes=R + C, grad=False,
         name="Qr_full_reconstruct"),
    Case("SelfAdjointEigV2", _eig_fn, [_symmetric((2, 3, 3))], _eig_ref, dtypes=R + C),
    Case("SelfAdjointEigV2", _eig_vec_fn, [_symmetric((3, 3))], _eig_vec_ref, dtypes=R,
         name="SelfAdjointEigV2_vectors"),
    Case("SelfAdjointEigV2", tf.linalg.eigvalsh, [_symmetric((2, 4, 4))],
         lambda a: np.linalg.eigvalsh(_wide(a)), dtypes=R + C, name="SelfAdjointEigV2_eigvals"),
    Case("Cholesky", tf.matrix_solve_ls, [_arr((5, 3)), _arr((5, 2))], _lstsq_ref(0.0),
         dtypes=R, rtol=1e-4, atol=1e-4, name="matrix_solve_ls_tall"),
    Case("Cholesky", lambda a, b: tf.linalg.lstsq(a, b, l2_regularizer=0.5),
         [_arr((2, 2, 4)), _arr((2, 2, 3))], _lstsq_ref(0.5), dtypes=R, rtol=1e-4, atol=1e-4,
         name="matrix_solve_ls_wide_l2"),
]


def _spd(shape):
    base = _arr(shape)
    n = shape[-1]

    def make(dt):
        a = base(dt).astype(np.float64)
        return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dt)

    return make


CASES.append(
    Case("MatrixTriangularSolve", lambda a, b: tf.cholesky_solve(tf.cholesky(a), b),
         [_spd((2, 3, 3)), _arr((2, 3, 2))], lambda a, b: np.linalg.solve(_wide(a), _wide(b)),
         dtypes=R, rtol=1e-4, atol=1e-4, grad_inputs=[1], name="cholesky_solve"))


def _pinv_ref(a, b):
    return np.linalg.pinv(_wide(a)) @ _wide(b)


CASES.append(
    Case("Svd", lambda a, b: tf.matrix_solve_ls(a, b, fast=False), [_arr((2, 4, 3)),
                                                                    _arr((2, 4, 2))],
         _pinv_ref, dtypes=R + C, rtol=1e-4, atol=1e-4, grad_inputs=[1],
         name="matrix_solve_ls_slow"))
