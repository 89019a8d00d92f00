"""Op-table rows for Lu, LogMatrixDeterminant, MatrixExponential, MatrixLogarithm,
MatrixSquareRoot and the Sylvester solve behind sqrtm's gradient, against NumPy (series, eig,
explicit LU) references."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.framework import ops as _ops
from tideflow.ops import linalg_more_ops  # noqa: F401 - registers the ops

_rng = np.random.RandomState(31)
A = _rng.randn(2, 4, 4)
SPD = A @ np.swapaxes(A, -1, -2) + 4 * np.eye(4)


def _apply(op_type, index=None):
    def fn(*x):
        outs = _ops.apply_op(op_type, list(x))._outputs
        return outs[index] if index is not None else list(outs)

    return fn


def ref_lu(a):
    """Doolittle LU with partial pivoting, one matrix at a time."""
    lus, perms = [], []
    for m in a.reshape(-1, a.shape[-1], a.shape[-1]).astype(np.float64):
        m = m.copy()
        n = m.shape[0]
        p = list(range(n))
        for k in range(n):
            piv = k + int(np.argmax(np.abs(m[k:, k])))
            m[[k, piv]] = m[[piv, k]]
            p[k], p[piv] = p[piv], p[k]
            for i in range(k + 1, n):
                m[i, k] /= m[k, k]
                m[i, k + 1:] -= m[i, k] * m[k, k + 1:]
        lus.append(m)
        perms.append(p)
    return [np.array(lus).reshape(a.shape).astype(a.dtype),
            np.array(perms, np.int32).reshape(a.shape[:-1])]


def ref_expm(a):
    out = []
    for m in a.reshape(-1, a.shape[-1], a.shape[-1]).astype(np.float64):
        term, total = np.eye(len(m)), np.eye(len(m))
        for k in range(1, 60):
            term = term @ m / k
            total = total + term
        out.append(total)
    return np.array(out).reshape(a.shape).astype(a.dtype)


def _sym_sqrt(a):
    w, v = np.linalg.eigh(a.astype(np.float64))
    return ((v * np.sqrt(w)[..., None, :]) @ np.swapaxes(v, -1, -2)).astype(a.dtype)


def _slogdet_ref(a):
    s, ld = np.linalg.slogdet(a.astype(np.float64))
    return [s.astype(a.dtype), ld.astype(a.dtype)]


def _logm_check():
    # log of an SPD matrix through its eigendecomposition; exp(log(A)) = A
    w, v = np.linalg.eigh(SPD[0])
    want = (v * np.log(w)) @ v.T
    with tf.Graph().as_default():
        p = tf.placeholder(tf.complex128, [None, None])
        out = _ops.apply_op("MatrixLogarithm", [p])._outputs[0]
        got = tf.Session().run(out, {p: SPD[0].astype(np.complex128)})
    np.testing.assert_allclose(got, want, atol=1e-10)
    np.testing.assert_allclose(ref_expm(np.real(got)), SPD[0], rtol=1e-9)


def _sylvester_ref(a, c):
    out = np.zeros(np.broadcast_shapes(a.shape, c.shape))
    for k in range(out.shape[0]):
        n = a.shape[-1]
        m = np.zeros((n * n, n * n))
        for i in range(n):
            for j in range(n):
                e = np.zeros((n, n))
                e[i, j] = 1
                m[:, i * n + j] = (a[k] @ e + e @ a[k]).reshape(-1)
        out[k] = np.linalg.solve(m, c[k].reshape(-1)).reshape(n, n)
    return out.astype(c.dtype)


CASES = [
    Case("Lu", _apply("Lu"), [A], ref_lu, grad_inputs=[0]),
    Case("LogMatrixDeterminant", _apply("LogMatrixDeterminant"), [A], _slogdet_ref),
    Case("MatrixExponential", _apply("MatrixExponential", 0), [A * 0.6], ref_expm),
    Case("MatrixSquareRoot", _apply("MatrixSquareRoot", 0), [SPD], _sym_sqrt, rtol=1e-5,
         atol=1e-5),
    Case("MatrixLogarithm", check=_logm_check),
    Case("_SylvesterSolve", _apply("_SylvesterSolve", 0), [SPD, _rng.randn(2, 4, 4)],
         _sylvester_ref, grad=False, rtol=1e-5, atol=1e-5),
]
