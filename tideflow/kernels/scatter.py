"""Row-wise ``ufunc.at``: the same updates, in the same order, several times faster.

``np.add.at(out, idx, rows)`` with ``out`` of rank 2 or more applies each row separately
through NumPy's generic indexed loop (about 1 us per row plus the row's elements, however few
duplicates there are). Here the rows go through fancy-indexed read-modify-writes in rounds:
round k applies the k-th occurrence of every index (no index twice in a round), so every
element of ``out`` sees exactly the operations, in exactly the order, that ``ufunc.at`` would
apply, and results are bitwise equal. A few indices repeated many times (more rounds than
rows to fill them) still go through ``ufunc.at``.
"""

import math

import numpy as np

# below this many indices (or elements per row) the sort costs more than it saves
_MIN_INDICES = 16
_MIN_ROW = 32
# rounds of distinct indices pay when each round has at least this many rows on average
_ROUND_ROWS = 8


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
    if ordered[0] < 0:  # -1 and n-1 name one row: leave negative indices to ufunc.at
        ufunc.at(out, flat, rows)
        return
    same = ordered[1:] == ordered[:-1]
    if not same.any():
        out[flat] = ufunc(out[flat], rows)
        return
    # the k-th occurrence of every index in round k: no index twice within a round, and each
    # index's rows still applied in their original order
    starts = np.flatnonzero(np.concatenate(([True], ~same)))
    sizes = np.diff(np.append(starts, flat.size))
    rank = np.arange(flat.size) - np.repeat(starts, sizes)
    rounds = int(sizes.max())
    if rounds * _ROUND_ROWS > flat.size:  # a few indices repeated many times: ufunc.at
        ufunc.at(out, flat, rows)
        return
    by_round = order[np.argsort(rank, kind="stable")]
    bounds = np.cumsum(np.bincount(rank, minlength=rounds))
    lo = 0
    for hi in bounds.tolist():
        sel = by_round[lo:hi]
        at = flat[sel]
        out[at] = ufunc(out[at], rows[sel])
        lo = hi


def nd_at(ufunc, out, indices, updates):
    """``ufunc.at(out, tuple(np.moveaxis(indices, -1, 0)), updates)`` for in-bounds,
    non-negative ``indices`` (ScatterNd's, last axis a position in ``out``'s leading axes):
    the positions become rows of ``out`` seen as a matrix, for ``rows_at``."""
    k = indices.shape[-1]
    if not out.flags.c_contiguous or k == 0 or out.dtype == object:
        ufunc.at(out, tuple(np.moveaxis(indices, -1, 0)), updates)
        return
    lead = out.shape[:k]
    flat = np.ravel_multi_index(tuple(indices.reshape(-1, k).T), lead)
    view = out.reshape((math.prod(lead),) + out.shape[k:])
    rows_at(ufunc, view, flat, np.reshape(updates, flat.shape + out.shape[k:]))
