"""``tf.linalg``: linear algebra (explicit re-exports only)."""

from tideflow.ops.clip_ops import global_norm
from tideflow.ops.extra_array_ops import cross
from tideflow.ops.linalg_extra_ops import adjoint, cholesky_solve, matrix_transpose, qr
from tideflow.ops.linalg_extra_ops import matrix_solve_ls as lstsq
from tideflow.ops.linalg_extra_ops import matrix_transpose as transpose
from tideflow.ops.linalg_extra_ops import matrix_triangular_solve as triangular_solve
from tideflow.ops.linalg_extra_ops import self_adjoint_eig as eigh
from tideflow.ops.linalg_extra_ops import self_adjoint_eigvals as eigvalsh
from tideflow.ops.linalg_more_ops import (
    eigh_tridiagonal,
    expm,
    logdet,
    logm,
    lu,
    lu_matrix_inverse,
    lu_reconstruct,
    lu_solve,
    matrix_rank,
    matvec,
    normalize,
    pinv,
    slogdet,
    sqrtm,
    tridiagonal_matmul,
    tridiagonal_solve,
)
from tideflow.ops.linalg_ops import cholesky, einsum, matmul, tensordot
from tideflow.ops.linalg_ops import matrix_determinant as det
from tideflow.ops.linalg_ops import matrix_inverse as inv
from tideflow.ops.linalg_ops import matrix_solve as solve
from tideflow.ops.linear_operator import (
    LinearOperator,
    LinearOperatorAdjoint,
    LinearOperatorComposition,
    LinearOperatorDiag,
    LinearOperatorFullMatrix,
    LinearOperatorIdentity,
    LinearOperatorInversion,
    LinearOperatorLowerTriangular,
    LinearOperatorScaledIdentity,
    LinearOperatorZeros,
)
from tideflow.ops.linear_operator_structured import (
    LinearOperatorBlockDiag,
    LinearOperatorBlockLowerTriangular,
    LinearOperatorCirculant,
    LinearOperatorCirculant2D,
    LinearOperatorCirculant3D,
    LinearOperatorHouseholder,
    LinearOperatorKronecker,
    LinearOperatorLowRankUpdate,
    LinearOperatorPermutation,
    LinearOperatorToeplitz,
    LinearOperatorTridiag,
)
from tideflow.ops.matrix_diag_ops import diag as tensor_diag
from tideflow.ops.matrix_diag_ops import diag_part as tensor_diag_part
from tideflow.ops.matrix_diag_ops import matrix_diag as diag
from tideflow.ops.matrix_diag_ops import matrix_diag_part as diag_part
from tideflow.ops.matrix_diag_ops import matrix_set_diag as set_diag
from tideflow.ops.matrix_diag_ops import trace
from tideflow.ops.nn_impl import l2_normalize
from tideflow.ops.norm_ops import norm
from tideflow.ops.range_ops import eye
from tideflow.ops.range_ops import matrix_band_part as band_part
from tideflow.ops.svd_ops import svd

__all__ = ["LinearOperator", "LinearOperatorAdjoint", "LinearOperatorBlockDiag",
           "LinearOperatorBlockLowerTriangular", "LinearOperatorCirculant",
           "LinearOperatorCirculant2D", "LinearOperatorCirculant3D", "LinearOperatorComposition",
           "LinearOperatorDiag", "LinearOperatorFullMatrix", "LinearOperatorHouseholder",
           "LinearOperatorIdentity", "LinearOperatorInversion", "LinearOperatorKronecker",
           "LinearOperatorLowRankUpdate", "LinearOperatorLowerTriangular",
           "LinearOperatorPermutation", "LinearOperatorScaledIdentity", "LinearOperatorToeplitz",
           "LinearOperatorTridiag", "LinearOperatorZeros", "adjoint", "band_part", "cholesky",
           "cholesky_solve", "cross", "det", "diag", "diag_part", "eigh", "eigh_tridiagonal",
           "eigvalsh", "einsum", "expm", "eye", "global_norm", "inv", "l2_normalize", "logdet",
           "logm", "lstsq", "lu", "lu_matrix_inverse", "lu_reconstruct", "lu_solve", "matmul",
           "matrix_rank", "matrix_transpose", "matvec", "norm", "normalize", "pinv", "qr",
           "set_diag", "slogdet", "solve", "sqrtm", "svd", "tensor_diag", "tensor_diag_part",
           "tensordot", "trace", "transpose", "triangular_solve", "tridiagonal_matmul",
           "tridiagonal_solve"]

# --- tf.linalg.experimental ---
# isort: split
import sys as _sys
import types as _types

from tideflow.ops.linear_operator import conjugate_gradient as _conjugate_gradient

experimental = _types.ModuleType(__name__ + ".experimental",
                                 "``tf.linalg.experimental``: conjugate gradients.")
experimental.conjugate_gradient = _conjugate_gradient
experimental.__all__ = ["conjugate_gradient"]
_sys.modules[experimental.__name__] = experimental
