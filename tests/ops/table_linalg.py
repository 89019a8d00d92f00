"""Op-table rows for matrix products and linear algebra: MatMul, BatchMatMul(V2), Einsum,
MatrixInverse, MatrixDeterminant, Cholesky, MatrixSolve."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case

F = (tf.float16, tf.bfloat16, tf.float32, tf.float64)
I = (tf.int32, tf.int64)
C = (tf.complex64, tf.complex128)
LINALG = (tf.float16, tf.float32, tf.float64) + C

_rng = np.random.RandomState(42)


def _einsum_op(equation, *xs):
    """The Einsum op (TF 2's kernel, which tf.raw_ops and gen_linalg_ops build)."""
    from tideflow.python.ops import gen_linalg_ops

    return gen_linalg_ops.einsum(list(xs), equation)


def _arr(shape, lo=-1.0, hi=1.0):
    """A fixed random input; complex dtypes get an imaginary part as well."""
    re = _rng.uniform(lo, hi, size=shape).round(2)
    im = _rng.uniform(lo, hi, size=shape).round(2)

    def make(dt):
        if np.dtype(dt).kind == "c":
            return (re + 1j * im).astype(dt)
        if np.dtype(dt).kind in "iu":
            return (re * 4).round().astype(dt)
        return re.astype(dt)

    return make


def _wide(*xs):
    return [x.astype(np.complex128 if x.dtype.kind == "c" else np.float64) for x in xs]


def _conj_t(x):
    return np.conj(np.swapaxes(x, -1, -2))


def _well_conditioned(shape):
    """Batches of diagonally dominant matrices (invertible, far from singular)."""
    base = _arr(shape)
    n = shape[-1]

    def make(dt):
        return (base(dt) + np.eye(n) * 3).astype(dt)

    return make


def _hermitian_pd(shape):
    base = _arr(shape)
    n = shape[-1]

    def make(dt):
        a = base(dt).astype(np.complex128 if np.dtype(dt).kind == "c" else np.float64)
        return (a @ _conj_t(a) + n * np.eye(n)).astype(dt)

    return make


def _ref_matmul(a, b):
    a, b = _wide(a, b)
    return a @ b


CASES = [
    Case("MatMul", tf.matmul, [_arr((2, 3)), _arr((3, 4))], _ref_matmul, dtypes=F + I + C),
    Case("MatMul", lambda a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True),
         [_arr((3, 2)), _arr((4, 3))], lambda a, b: _ref_matmul(a.T, b.T),
         dtypes=(tf.float32, tf.float64, tf.int32, tf.complex64), name="MatMul_transposed"),
    Case("MatMul", lambda a, b: tf.matmul(a, b, adjoint_a=True, adjoint_b=True),
         [_arr((3, 2)), _arr((4, 3))], lambda a, b: _ref_matmul(_conj_t(a), _conj_t(b)),
         dtypes=C + (tf.float64,), name="MatMul_adjoint"),
    Case("BatchMatMul", tf.batch_matmul, [_arr((2, 2, 3)), _arr((2, 3, 4))], _ref_matmul,
         dtypes=F + I + C),
    Case("BatchMatMul", lambda a, b: tf.batch_matmul(a, b, adj_x=True, adj_y=True),
         [_arr((2, 3, 2)), _arr((2, 4, 3))], lambda a, b: _ref_matmul(_conj_t(a), _conj_t(b)),
         dtypes=(tf.float64,) + C, name="BatchMatMul_adjoint"),
    Case("BatchMatMulV2", tf.matmul, [_arr((2, 1, 2, 3)), _arr((3, 3, 4))], _ref_matmul,
         dtypes=F + I + C),
    Case("BatchMatMulV2", lambda a, b: tf.matmul(a, b, transpose_a=True, adjoint_b=True),
         [_arr((2, 3, 2)), _arr((4, 3))],
         lambda a, b: _ref_matmul(np.swapaxes(a, -1, -2), _conj_t(b)),
         dtypes=(tf.float64,) + C, name="BatchMatMulV2_adjoint"),
    # the Einsum op itself (tf.einsum builds TF 1.15's MatMul/transpose composition instead)
    Case("Einsum",
         lambda a, b: [_einsum_op("ij,jk->ik", a, b), _einsum_op("ij,kj", a, a),
                       _einsum_op("...j->...", a), _einsum_op("ij->ji", b),
                       _einsum_op("ii", _einsum_op("ij,kj->ik", b, b))],
         [_arr((2, 3)), _arr((3, 4))],
         lambda a, b: [_ref_matmul(a, b), _ref_matmul(a, a.T), _wide(a)[0].sum(-1),
                       _wide(b)[0].T, np.trace(_ref_matmul(b, b.T))],
         dtypes=(tf.float32, tf.float64) + C),  # (TF's Einsum kernels)
    Case("Einsum", lambda a, b: _einsum_op("bij,bjk->bik", a, b),
         [_arr((2, 2, 3)), _arr((2, 3, 4))], _ref_matmul, dtypes=(tf.float32, tf.float64),
         name="Einsum_batch"),
    Case("Einsum", lambda a, b: [tf.tensordot(a, b, 1), tf.tensordot(a, b, [[0, 1], [1, 0]]),
                                 tf.tensordot(a, b, [1, 0]), tf.tensordot(a, b, 0)],
         [_arr((2, 3)), _arr((3, 2))],
         lambda a, b: [np.tensordot(*_wide(a, b), 1),
                       np.tensordot(*_wide(a, b), [[0, 1], [1, 0]]),
                       np.tensordot(*_wide(a, b), [1, 0]), np.tensordot(*_wide(a, b), 0)],
         dtypes=(tf.float32, tf.float64, tf.int32), unknown_shape=False, name="tensordot"),
    Case("MatrixInverse", tf.matrix_inverse, [_well_conditioned((2, 3, 3))],
         lambda x: np.linalg.inv(_wide(x)[0]), dtypes=LINALG),
    # TF 1.15's gradient ignores adjoint=True (it is the true gradient's adjoint), as ours
    Case("MatrixInverse", lambda x: tf.matrix_inverse(x, adjoint=True),
         [_well_conditioned((2, 3, 3))], lambda x: _conj_t(np.linalg.inv(_wide(x)[0])),
         dtypes=LINALG, grad=False, name="matrix_inverse_adjoint"),
    Case("MatrixDeterminant", tf.matrix_determinant, [_well_conditioned((2, 3, 3))],
         lambda x: np.linalg.det(_wide(x)[0]), dtypes=LINALG[1:]),  # (TF 1.15: no half)
    # symmetrized first: the kernel reads one triangle, the gradient is TF's symmetric one
    Case("Cholesky", lambda x: tf.cholesky(0.5 * (x + tf.conj(tf.einsum("bij->bji", x)))),
         [_hermitian_pd((2, 3, 3))],
         lambda x: np.linalg.cholesky(_wide(x)[0]), dtypes=LINALG),
    Case("MatrixSolve",
         lambda m, r: [tf.matrix_solve(m, r), tf.matrix_solve(m, r, adjoint=True)],
         [_well_conditioned((2, 3, 3)), _arr((2, 3, 2))],
         lambda m, r: [np.linalg.solve(*_wide(m, r)), np.linalg.solve(_conj_t(_wide(m)[0]),
                                                                      _wide(r)[0])],
         dtypes=LINALG[1:]),  # (TF 1.15: no half kernel)
]
