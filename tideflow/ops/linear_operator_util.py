"""``tensorflow.python.ops.linalg.linear_operator_util``'s solvers that broadcast the batch
dimensions of the matrix and the right-hand side first (TF's linear_operator_util module;
TF Probability and GPflow call them), and ``broadcast_matrix_batch_dims``."""

from tideflow.framework import ops
from tideflow.ops import array_ops, linalg_extra_ops, linalg_ops, variables
from tideflow.ops.concat_ops import concat
from tideflow.ops.fill_ops import broadcast_dynamic_shape, broadcast_static_shape, broadcast_to

__all__ = ["broadcast_matrix_batch_dims", "cholesky_solve_with_broadcast", "is_ref",
           "matrix_solve_with_broadcast", "matrix_triangular_solve_with_broadcast"]


def broadcast_matrix_batch_dims(batch_matrices, name=None):
    """The ``[..., M, N]`` tensors of ``batch_matrices`` with their batch dimensions (all but the
    last two) broadcast to a common shape; the matrices themselves are unchanged."""
    with ops.name_scope(name or "broadcast_matrix_batch_dims", values=batch_matrices):
        mats = [ops.convert_to_tensor(m, name=f"batch_matrices_{i}")
                for i, m in enumerate(batch_matrices)]
        for m in mats:
            if m.shape.ndims is not None and m.shape.ndims < 2:
                raise ValueError(f"Expected all input to have rank at least 2. Found: {m}")
        if len(mats) < 2:
            return mats
        static = [m.shape[:-2] for m in mats]
        if all(s.is_fully_defined() for s in static):
            batch = static[0]
            for s in static[1:]:
                batch = broadcast_static_shape(batch, s)  # TF's words for a clash
            return [m if m.shape[:-2] == batch else
                    broadcast_to(m, concat([batch.as_list(), array_ops.shape(m)[-2:]],
                                                     0))
                    for m in mats]
        batch = array_ops.shape(mats[0])[:-2]
        for m in mats[1:]:
            batch = broadcast_dynamic_shape(batch, array_ops.shape(m)[:-2])
        return [broadcast_to(m, concat([batch, array_ops.shape(m)[-2:]], 0))
                for m in mats]


def _with_broadcast(solve, matrix, rhs, name, default_name, **kwargs):
    with ops.name_scope(name or default_name, values=[matrix, rhs]):
        matrix = ops.convert_to_tensor(matrix, name="matrix")
        rhs = ops.convert_to_tensor(rhs, name="rhs", dtype=matrix.dtype)
        matrix, rhs = broadcast_matrix_batch_dims([matrix, rhs])
        return solve(matrix, rhs, **kwargs)


def matrix_solve_with_broadcast(matrix, rhs, adjoint=False, name=None):
    """``tf.linalg.solve`` after broadcasting the batch dimensions of both arguments."""
    return _with_broadcast(linalg_ops.matrix_solve, matrix, rhs, name,
                           "MatrixSolveWithBroadcast", adjoint=adjoint)


def matrix_triangular_solve_with_broadcast(matrix, rhs, lower=True, adjoint=False, name=None):
    """``tf.linalg.triangular_solve`` after broadcasting the batch dimensions of both."""
    return _with_broadcast(linalg_extra_ops.matrix_triangular_solve, matrix, rhs, name,
                           "MatrixTriangularSolve", lower=lower, adjoint=adjoint)


def cholesky_solve_with_broadcast(chol, rhs, name=None):
    """``tf.linalg.cholesky_solve`` after broadcasting the batch dimensions of both."""
    return _with_broadcast(linalg_extra_ops.cholesky_solve, chol, rhs, name,
                           "CholeskySolveWithBroadcast")


def is_ref(x):
    """Whether ``x`` has reference semantics (a variable), as opposed to a plain tensor."""
    return isinstance(x, variables.Variable)
