"""``tf.linalg``: linear algebra (explicit re-exports only)."""

from tideflow.ops.linalg_ops import cholesky, einsum, matmul, tensordot
from tideflow.ops.linalg_ops import matrix_determinant as det
from tideflow.ops.linalg_ops import matrix_inverse as inv
from tideflow.ops.linalg_ops import matrix_solve as solve

__all__ = ["cholesky", "det", "einsum", "inv", "matmul", "solve", "tensordot"]
