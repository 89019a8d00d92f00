"""``tf.linalg``: linear algebra (explicit re-exports only)."""

from tideflow.ops.linalg_ops import cholesky, einsum, matmul, tensordot
from tideflow.ops.linalg_ops import matrix_determinant as det
from tideflow.ops.linalg_ops import matrix_inverse as inv
from tideflow.ops.linalg_ops import matrix_solve as solve
from tideflow.ops.matrix_diag_ops import matrix_diag as diag
from tideflow.ops.matrix_diag_ops import matrix_diag_part as diag_part
from tideflow.ops.matrix_diag_ops import matrix_set_diag as set_diag
from tideflow.ops.matrix_diag_ops import trace
from tideflow.ops.norm_ops import norm
from tideflow.ops.svd_ops import svd

__all__ = ["cholesky", "det", "diag", "diag_part", "einsum", "inv", "matmul", "norm", "set_diag", "solve",
           "svd", "tensordot", "trace"]
