"""Row-wise ``ufunc.at``: the same updates, in the same order, several times faster.

``np.add.at(out, idx, rows)`` with ``out`` of rank 2 or more applies each row separately
through NumPy's generic indexed loop (about 1 us per row plus the row's elements, however few
duplicates there are). Here the rows whose index occurs once go through one fancy-indexed
read-modify-write, and only the rows with a repeated index through ``ufunc.at``, in their
original order: every element of ``out`` sees exactly the operations, in exactly the order,
that ``ufunc.at`` would apply, so results are bitwise equal.
"""

import math

import numpy as np

# below this many indices (or elements per row) the sort costs more than it saves
_MIN_INDICES = 16
_MIN_ROW = 32


def rows_at(ufunc, out, indices, rows):
    """``ufunc.at(out, indices, rows)`` for integer ``indices`` into ``out``'s first axis,
    with ``rows`` of shape ``indices.shape + out.shape[1:]`` (or broadcastable to it)."""
    flat = np.asarray(indices).reshape(-1)
    row = math.prod(out.shape[1:]) if out.ndim > 1 else 1
    if out.ndim < 2 or flat.size < _MIN_INDICES or row < _MIN_ROW:
        ufunc.at(out, indices, rows)
        return
    rows = np.broadcast_to(rows, np.shape(indices) + out.shape[1:]).reshape(
        (flat.size,) + out.shape[1:])
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    same = ordered[1:] == ordered[:-1]
    if not same.any():
        out[flat] = ufunc(out[flat], rows)
        return
    repeated = np.zeros(flat.size, bool)
    repeated[1:] = same
    repeated[:-1] |= same
    if 2 * np.count_nonzero(repeated) > flat.size:  # mostly repeated: nothing to split off
        ufunc.at(out, flat, rows)
        return
    once = order[~repeated]
    if once.size:
        at = flat[once]
        out[at] = ufunc(out[at], rows[once])
    many = order[repeated]  # sorted by index, each index's rows in their original order
    ufunc.at(out, flat[many], rows[many])
