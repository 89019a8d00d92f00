"""Float sums as BLAS products with a vector of ones (shared by the reduction kernels)."""

import numpy as np

# sums over the leading axes of at least this many float values run as a BLAS product
GEMV_MIN = 4096
_ONES = {}
_ONES_KEPT = 1 << 22  # longer vectors of ones are made for the call and not kept


def _ones(n, dtype):
    if n > _ONES_KEPT:
        return np.ones(n, dtype)
    ones = _ONES.get(dtype)
    if ones is None or ones.size < n:
        ones = np.ones(min(_ONES_KEPT, max(n, 2 * (0 if ones is None else ones.size))), dtype)
        ones.flags.writeable = False
        _ONES[dtype] = ones
    return ones[:n]


# up to this many rows, a leading sum adds them one after another, as TF's Eigen kernels
# do (bit for bit: a batch's bias or broadcast gradient); more (a convolution's activations)
# take the BLAS product
SEQUENTIAL_ROWS = 1024


def leading_sum(x, k, keep_dims):
    """The sum of float ``x`` over its first ``k`` axes (a bias or broadcast gradient): the
    rows added in sequence, TF's order, for up to ``SEQUENTIAL_ROWS`` rows, else as a vector
    of ones times ``x`` seen as a matrix: one pass at memory speed with BLAS's blocked float
    accumulators. NumPy adds the rows in sequence: 2-20x slower on a convolution's
    activations (many short rows) and less exact (relative error ~1e-6 against ~1e-5 over
    50k rows), but a few us more at most for up to 1024 rows."""
    rows = 1
    for d in x.shape[:k]:
        rows *= d
    if rows <= SEQUENTIAL_ROWS:
        out = np.add.reduce(x.reshape(rows, -1), axis=0)
    else:
        out = _ones(rows, x.dtype) @ x.reshape(rows, -1)
    return out.reshape((1,) * k + x.shape[k:] if keep_dims else x.shape[k:])
