"""TF 1.15's float32 inner reductions and the softmax kernels built on them, bit for bit: row
sums in Eigen's lane and tree order (``row_sum``), softmax and log-softmax, and the fused
softmax cross-entropies (dense and sparse), with Eigen's packet exp (``eigen_float32``) on
whole packets and glibc's expf on the elements Eigen's scalar path takes: each row's tail
inside a reduction, the tiled executor's block tails in an element-wise expression."""

import functools

import numpy as np

from tideflow.ops.eigen_float32 import _F, _PACKET, _TINY, _expf, _k, _logf, _packet_exp, log


def _lane_sum(a):
    """Each row's sum as one Eigen inner reduction leaf adds it: eight lane sums over the
    row's whole packets, a scalar sum of the rest, then the rest plus the lanes added
    pairwise ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7))."""
    rows, n = a.shape
    whole = n - n % _PACKET
    if n < 64 and rows > 1:
        # short rows: the same sums down the columns of the transpose, whose rows NumPy adds
        # in long runs (a short row's slices are loops of a few floats each)
        t = np.ascontiguousarray(a.T)
        if whole == _PACKET:
            lanes = t[:_PACKET]
        elif whole:
            lanes = t[:whole].reshape(-1, _PACKET, rows).sum(axis=0)
        else:
            lanes = np.zeros((_PACKET, rows), _F)
        half = lanes[:4] + lanes[4:]
        pairs = half[:2] + half[2:]
        total = pairs[0] + pairs[1]
        columns = t[whole:]
    else:
        # NumPy adds the packets of a [rows, k, 8] view one after another (its contiguous
        # axis is the lanes', so no pairwise summation)
        if whole == _PACKET:  # (one packet: its lanes as they are)
            lanes = a[:, :_PACKET]
        elif whole:
            lanes = a[:, :whole].reshape(rows, -1, _PACKET).sum(axis=1)
        else:
            lanes = np.zeros((rows, _PACKET), _F)
        half = lanes[:, :4] + lanes[:, 4:]  # (a zero lane start changes no sum of two lanes)
        pairs = half[:, :2] + half[:, 2:]
        total = pairs[:, 0] + pairs[:, 1]
        columns = a.T[whole:]
    if whole < n:  # the scalar rest, from zero, then plus the lanes
        rest = columns[0] + _k(0)
        for column in columns[1:]:
            rest += column
        rest += total
        return rest
    return total + _k(0)


# an inner reduction of more than this many floats splits in two (at a packet boundary of
# the flat tensor), each half reduced so in turn, and adds the halves
_TREE_LEAF = 8 * 1024


def _leaves(first, count):
    """The (start, count) runs, flat indices, an inner reduction of ``count`` floats from
    ``first`` adds as leaves, in order, and how it nests them (None for a leaf)."""
    if count <= _TREE_LEAF:
        return None
    split = -(-(first + -(-count // 2)) // _PACKET) * _PACKET
    left = min(split - first, count)
    return (first, left), (split, count - left)


def _tree_sum(flat, first, count):
    """The sum of ``flat[first:first + count]`` as Eigen's inner reduction adds it: a tree of
    halves down to leaves of at most 8192 floats, each leaf's lanes as ``_lane_sum``."""
    leaves = []

    def walk(start, n):
        halves = _leaves(start, n)
        if halves is None:
            leaves.append((start, n))
            return len(leaves) - 1
        left = walk(*halves[0])
        return (left, walk(*halves[1])) if halves[1][1] else (left,)

    shape = walk(first, count)
    # each leaf's whole packets, zero-padded to one length (adding +0 changes no lane sum),
    # packet-major: NumPy then adds the packets of all leaves one after another, as Eigen
    packets = max(n // _PACKET for _, n in leaves)
    grid = np.zeros((len(leaves), packets * _PACKET), _F)
    rest = np.zeros(len(leaves), _F)
    for i, (start, n) in enumerate(leaves):
        cut = n - n % _PACKET
        grid[i, :cut] = flat[start:start + cut]
        for v in flat[start + cut:start + n]:
            rest[i] += v
    grid = np.ascontiguousarray(grid.reshape(len(leaves), packets, _PACKET).transpose(1, 0, 2))
    lanes = np.add.reduce(grid.reshape(packets, -1), axis=0).reshape(-1, _PACKET)
    lanes += _k(0)  # (Eigen's accumulators start at +0)
    half = lanes[:, :4] + lanes[:, 4:]
    rest += (half[:, 0] + half[:, 2]) + (half[:, 1] + half[:, 3])
    sums = rest

    def combine(node):
        if not isinstance(node, tuple):
            return sums[node]
        total = _k(0) + combine(node[0])
        for part in node[1:]:
            total += combine(part)
        return total

    return combine(shape)


def row_sum(a):
    """Each row's sum as Eigen reduces a tensor's inner-most dimension: ``_lane_sum``, or for
    rows of more than 8192 floats a tree of such sums (TF 1.15 adds a whole tensor so too, on
    one thread whatever the machine's cores)."""
    rows, n = a.shape
    if n <= _TREE_LEAF:
        return _lane_sum(a)
    flat = a.reshape(-1)
    return np.array([_tree_sum(flat, i * n, n) for i in range(rows)], _F)


@functools.lru_cache(maxsize=64)
def _reduction_scalars(rows, n):
    """Flat indices of a [rows, n] tensor that an op inside an inner reduction computes by
    the scalar path: the last ``size % 8`` of each leaf the reduction adds."""
    if n <= _TREE_LEAF:
        tail = n % _PACKET
        if not tail:
            return None
        return _frozen((np.arange(rows)[:, None] * n + np.arange(n - tail, n)).reshape(-1))
    ends = []

    def walk(first, count):
        halves = _leaves(first, count)
        if halves is None:
            ends.extend(range(first + count - count % _PACKET, first + count))
            return
        walk(*halves[0])
        if halves[1][1]:
            walk(*halves[1])

    for i in range(rows):
        walk(i * n, n)
    return _frozen(np.array(ends, np.intp)) if ends else None


def _frozen(a):
    a.flags.writeable = False  # (cached: shared by every call for the shape)
    return a


# TF's tiled executor: the target size of a block of an expression, from its cost per
# element; blocks take whole rows (as many as reach the target) or a row's first ``target``
# elements, then the next (measured: softmax's exp, and the fused cross-entropy's backprop)
SOFTMAX_BLOCK = 4076
XENT_BLOCK = 2560


@functools.lru_cache(maxsize=64)
def _block_scalars(rows, n, target, in_place):
    """Flat indices of a [rows, n] element-wise expression that TF's tiled executor computes
    by the scalar path. Each block is evaluated on its own: into the output (``in_place``),
    whole packets at the tensor's 8-float boundaries inside the block, else from the block's
    start in a scratch buffer; the elements left over are scalar."""
    if not rows or not n:
        return None
    cols = min(target, n)
    if cols < n:  # blocks are [1, cols] runs of each row
        starts = (np.arange(rows)[:, None] * n + np.arange(0, n, cols)).reshape(-1)
        ends = np.minimum(starts + cols, (starts // n + 1) * n)
    else:
        per = min(-(-target // n), rows)
        starts = np.arange(0, rows, per) * n
        ends = np.minimum(starts + per * n, rows * n)
    if in_place:
        head_end = np.minimum(-(-starts // _PACKET) * _PACKET, ends)
        tail_start = np.maximum(ends // _PACKET * _PACKET, head_end)
        runs = ((starts, head_end), (tail_start, ends))
    else:
        runs = ((ends - (ends - starts) % _PACKET, ends),)
    picks = []
    lane = np.arange(_PACKET)
    for lo, hi in runs:
        keep = hi > lo
        if keep.any():
            idx = lo[keep][:, None] + lane
            picks.append(idx[idx < hi[keep][:, None]])
    if not picks:
        return None
    return _frozen(np.concatenate(picks))


def _flushed_exp(shifted_flat):
    """The packet exp of every (shifted, so not positive) element, denormals flushed."""
    return _flush_nonnegative(_packet_exp(shifted_flat, shifted=True))


def _exp_scalars_at(shifted_flat, packets, where, reuse=False):
    """``packets`` (``_flushed_exp``; written into when ``reuse``) with the elements at
    ``where`` by expf, denormals flushed."""
    if where is None or not where.size:
        return packets
    y = packets if reuse else packets.copy()
    y[where] = _flush_nonnegative(_expf(shifted_flat[where]))
    return y


def _flush_nonnegative(y):
    """``_flush_denormals`` for values that are not negative (exps, their quotients)."""
    y[y < _TINY] = 0
    return y


def _shifted(logits):
    """The logits as a [rows, classes] matrix less each row's max."""
    x = np.asarray(logits, dtype=_F)
    flat = x.reshape(-1, x.shape[-1])
    n = flat.shape[1]
    if 1 < n <= 64 and flat.size >= 256:
        # (short rows: the max down the columns of the transpose, which NumPy vectorizes)
        top = np.maximum.reduce(np.ascontiguousarray(flat.T), axis=0)[:, None]
    else:
        top = flat.max(axis=1, keepdims=True)
    return flat - top


def softmax(logits, log_softmax=False):
    """float32 (log-)softmax over the last axis as TF 1.15's kernel: exp of the logits less
    each row's max (in the executor's blocks), times the inverse of the row's sum; log: the
    shifted logits less the log of the sum of their exps (those taken inside the sum)."""
    shape = np.shape(logits)
    shifted = _shifted(logits)
    rows, n = shifted.shape
    flat = shifted.reshape(-1)
    packets = _flushed_exp(flat)
    if log_softmax:
        e = _exp_scalars_at(flat, packets, _reduction_scalars(rows, n), reuse=True)
        out = shifted
        out -= log(row_sum(e.reshape(rows, n)))[:, None]
    else:
        where = _block_scalars(rows, n, SOFTMAX_BLOCK, in_place=True)
        out = _exp_scalars_at(flat, packets, where, reuse=True).reshape(rows, n)
        out *= (_k(1) / row_sum(out))[:, None]
        _flush_nonnegative(out)
    return out.reshape(shape)


def _row_exp_sums(shifted, flat, packets):
    """Each row's sum of exp(shifted), the exps taken inside the reduction."""
    rows, n = shifted.shape
    tail = n % _PACKET
    if not tail or n > _TREE_LEAF:
        e = _exp_scalars_at(flat, packets, _reduction_scalars(rows, n))
        return row_sum(e.reshape(rows, n))
    # each row's last n % 8 by expf: a column slice, cheaper than gathering them by index
    e = packets.reshape(rows, n).copy()
    e[:, n - tail:] = _flush_nonnegative(_expf(shifted[:, n - tail:], nonpositive=True))
    return row_sum(e)


def softmax_xent(logits, labels, loss=True):
    """float32 SoftmaxCrossEntropyWithLogits as TF 1.15's kernel: the loss is the row sum
    of labels * (log(sum exp) - shifted), the backprop exp(shifted) / sum - labels (its exp
    in the executor's blocks). ``logits`` and ``labels`` are [batch, classes]. Without
    ``loss`` the loss is not computed (None in its place)."""
    shifted = _shifted(logits)
    rows, n = shifted.shape
    flat = shifted.reshape(-1)
    packets = _flushed_exp(flat)
    sums = _row_exp_sums(shifted, flat, packets)
    loss = row_sum(labels * (log(sums)[:, None] - shifted)) if loss else None
    e = _exp_scalars_at(flat, packets, _block_scalars(rows, n, XENT_BLOCK, in_place=False),
                        reuse=True)
    backprop = e.reshape(rows, n)
    backprop /= sums[:, None]
    _flush_nonnegative(backprop)
    backprop -= labels
    return loss, backprop


def sparse_softmax_xent(logits, labels, loss=True):
    """float32 SparseSoftmaxCrossEntropyWithLogits as TF 1.15's kernel: the loss is
    logf(sum exp) - the label's shifted logit, the backprop exp(shifted) (a plain element-wise
    exp) / sum, less 1 at the label. ``labels`` are valid class indices. Without ``loss``
    the loss is not computed (None in its place): nothing reads it."""
    shifted = _shifted(logits)
    rows, n = shifted.shape
    flat = shifted.reshape(-1)
    packets = _flushed_exp(flat)
    sums = _row_exp_sums(shifted, flat, packets)
    at = np.arange(0, flat.size, n)
    at += labels
    if loss:
        loss = _logf(sums)
        loss -= flat[at]
    else:
        loss = None
    tail = flat.size % _PACKET
    e = _exp_scalars_at(flat, packets, np.arange(flat.size - tail, flat.size) if tail else None,
                        reuse=True)
    e = e.reshape(rows, n)
    e /= sums[:, None]
    _flush_nonnegative(e)
    e.reshape(-1)[at] -= _k(1)
    return loss, e
