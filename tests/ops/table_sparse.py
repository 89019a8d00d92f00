"""Op-table rows for the sparse ops, each against a dense NumPy computation."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.framework import ops
from tideflow.ops import sparse_ops as so
from tideflow.ops import sparse_rows_ops as sr

# a 3x4 sparse matrix in canonical order, and a second one overlapping it
_IDX = np.array([[0, 1], [1, 0], [1, 3], [2, 2]], np.int64)
_VAL = np.array([1.5, -2.0, 3.0, 0.5])
_SHAPE = np.array([3, 4], np.int64)
_IDX_B = np.array([[0, 0], [1, 0], [2, 2], [2, 3]], np.int64)
_VAL_B = np.array([4.0, 2.5, -1.0, 7.0])
_DENSE = np.arange(12, dtype=np.float64).reshape(3, 4) / 4.0
_RHS = np.linspace(-1, 1, 20).reshape(4, 5)


def _sp(i, v, s):
    return tf.SparseTensor(i, v, s)


def _parts(sp):
    return [sp.indices, sp.values, sp.dense_shape]


def _dense(idx, val, shape, default=0):
    out = np.full(tuple(shape), default, dtype=np.asarray(val).dtype)
    out[tuple(np.asarray(idx).reshape(len(val), -1).T)] = val
    return out


def _canonical(entries, shape, dtype):
    """(indices, values, shape) of a {index tuple: value} dict in row-major order."""
    keys = sorted(entries)
    idx = np.array(keys, np.int64).reshape(-1, len(shape))
    return [idx, np.array([entries[k] for k in keys], dtype=dtype), np.asarray(shape, np.int64)]


def _sparse_add_ref(ai, av, ash, bi, bv, bsh, thresh):
    out = {tuple(r): v for r, v in zip(ai.tolist(), av)}
    both = set(out) & {tuple(r) for r in bi.tolist()}
    for r, v in zip(bi.tolist(), bv):
        out[tuple(r)] = out.get(tuple(r), 0) + v
    out = {k: v for k, v in out.items() if k not in both or abs(v) >= thresh}
    return _canonical(out, ash, av.dtype)


def _add_grad_ref(grad, ai, bi, si):
    pos = {tuple(r): k for k, r in enumerate(si.tolist())}
    pick = lambda idx: np.array([grad[pos[tuple(r)]] if tuple(r) in pos else 0
                                 for r in idx.tolist()], dtype=grad.dtype)
    return [pick(ai), pick(bi)]


def _reduce_ref(axes, keep, kind="sum"):
    def ref(i, v, s):
        if kind == "sum":
            d = _dense(i, v, s)
            return np.sum(d, axis=axes, keepdims=keep)
        d = np.full(tuple(s), -np.inf, dtype=v.dtype)
        d[tuple(i.T)] = v
        return np.max(d, axis=axes, keepdims=keep)

    return ref


def _matmul_ref(adj_a, adj_b):
    def ref(i, v, s, b):
        a = _dense(i, v, s)
        return (a.T if adj_a else a) @ (b.T if adj_b else b)

    return ref


def _concat_ref(axis):
    def ref(i1, v1, s1, i2, v2, s2):
        d = np.concatenate([_dense(i1, v1, s1), _dense(i2, v2, s2)], axis)
        present = np.concatenate([_dense(i1, np.ones(len(v1)), s1),
                                  _dense(i2, np.ones(len(v2)), s2)], axis)
        idx = np.argwhere(present > 0)
        return [idx.astype(np.int64), d[tuple(idx.T)], np.array(d.shape, np.int64)]

    return ref


_SHUFFLE = [2, 0, 3, 1]


def _reshape_ref(i, s, new):
    shape = list(new)
    if -1 in shape:
        shape[shape.index(-1)] = int(np.prod(s)) // -int(np.prod(shape))
    flat = np.ravel_multi_index(tuple(i.T), tuple(s))
    return [np.stack(np.unravel_index(flat, shape), 1).astype(np.int64),
            np.array(shape, np.int64)]


def _slice_ref(i, v, s, start, size):
    end = np.minimum(start + size, s)
    keep = np.all((i >= start) & (i < end), axis=1)
    return [i[keep] - start, v[keep], np.maximum(end - start, 0)]


def _segment_ref(kind):
    def ref(data, indices, seg):
        n = int(seg[-1]) + 1
        out = np.zeros((n,) + data.shape[1:], data.dtype)
        for k, s in zip(indices, seg):
            out[s] += data[k]
        counts = np.bincount(seg, minlength=n).astype(data.dtype)
        if kind == "mean":
            out /= np.maximum(counts, 1)[:, None]
        elif kind == "sqrtn":
            out /= np.sqrt(np.maximum(counts, 1))[:, None]
        return out

    return ref


def _segment_grad_ref(kind):
    def ref(grad, indices, seg, dim0):
        counts = np.bincount(seg, minlength=grad.shape[0]).astype(grad.dtype)
        scale = counts if kind == "mean" else np.sqrt(counts)
        out = np.zeros((int(dim0),) + grad.shape[1:], grad.dtype)
        for k, s in zip(indices, seg):
            out[k] += grad[s] / scale[s]
        return out

    return ref


def _fill_ref(i, v, s, default):
    rows = {}
    for k, r in enumerate(i.tolist()):
        rows.setdefault(r[0], []).append(k)
    out_i, out_v, rev = [], [], np.zeros(len(v), np.int64)
    for row in range(s[0]):
        if row not in rows:
            out_i.append([row] + [0] * (len(s) - 1))
            out_v.append(default)
        for k in rows.get(row, []):
            rev[k] = len(out_i)
            out_i.append(i[k].tolist())
            out_v.append(v[k])
    empty = np.array([row not in rows for row in range(s[0])])
    return [np.array(out_i, np.int64), np.array(out_v, v.dtype), empty, rev]


_SEG_DATA = np.linspace(-2, 3, 12).reshape(4, 3)
_SEG_IDX = np.array([0, 2, 1, 3, 3], np.int32)
_SEG_IDS = np.array([0, 0, 1, 3, 3], np.int32)

CASES = [
    Case("SparseToDense",
         so.sparse_to_dense,
         [_IDX, _SHAPE, _VAL, np.array(-0.25)],
         lambda i, s, v, d: _dense(i, v, s, d), fixed=(0, 1)),
    Case("SparseToDense", lambda i, s, v: so.sparse_to_dense(i, s, v),
         [np.array([0, 3], np.int32), np.array(5, np.int32), np.array(2.0)],
         lambda i, s, v: _dense(i, np.full(len(i), v), [s]), fixed=(0, 1),
         name="SparseToDense_vector_scalar"),
    Case("SparseAdd", lambda *a: _parts(so.sparse_add(_sp(*a[:3]), _sp(*a[3:6]), a[6])),
         [_IDX, _VAL, _SHAPE, _IDX_B, _VAL_B, _SHAPE, np.array(0.0)], _sparse_add_ref,
         fixed=(0, 2, 3, 5), grad_inputs=[1, 4]),
    Case("SparseAdd", lambda *a: _parts(so.sparse_add(_sp(*a[:3]), _sp(*a[3:6]), a[6])),
         [_IDX, _VAL, _SHAPE, _IDX_B, -_VAL_B, _SHAPE, np.array(3.0)], _sparse_add_ref,
         fixed=(0, 2, 3, 5), grad=False, name="SparseAdd_thresh"),
    Case("SparseAddGrad",
         lambda g, a, b, s: list(ops.apply_op("SparseAddGrad", [g, a, b, s])._outputs),
         [np.array([1.0, 2.0, 3.0, 4.0, 5.0]), _IDX, _IDX_B,
          np.array([[0, 0], [0, 1], [1, 0], [2, 2], [2, 3]], np.int64)], _add_grad_ref,
         fixed=(1, 2, 3), grad=False),
    Case("SparseTensorDenseAdd", lambda i, v, s, d: so.sparse_add(d, _sp(i, v, s)),
         [_IDX, _VAL, _SHAPE, _DENSE], lambda i, v, s, d: d + _dense(i, v, s), fixed=(0, 2)),
    Case("SparseReduceSum", lambda i, v, s: so.sparse_reduce_sum(_sp(i, v, s), 1),
         [_IDX, _VAL, _SHAPE], _reduce_ref(1, False), fixed=(0, 2)),
    Case("SparseReduceSum",
         lambda i, v, s: so.sparse_reduce_sum(_sp(i, v, s), [-2], keepdims=True),
         [_IDX, _VAL, _SHAPE], _reduce_ref(0, True), fixed=(0, 2),
         name="SparseReduceSum_keepdims"),
    Case("SparseReduceSum", lambda i, v, s: so.sparse_reduce_sum(_sp(i, v, s)),
         [_IDX, _VAL, _SHAPE], _reduce_ref(None, False), fixed=(0, 2), name="SparseReduceSum_all"),
    Case("SparseReduceMax", lambda i, v, s: so.sparse_reduce_max(_sp(i, v, s), 1),
         [_IDX, _VAL, _SHAPE], _reduce_ref(1, False, "max"), fixed=(0, 2), grad=False),
    Case("SparseTensorDenseMatMul",
         lambda i, v, s, b: so.sparse_tensor_dense_matmul(_sp(i, v, s), b),
         [_IDX, _VAL, _SHAPE, _RHS], _matmul_ref(False, False), fixed=(0, 2)),
    Case("SparseTensorDenseMatMul",
         lambda i, v, s, b: so.sparse_tensor_dense_matmul(_sp(i, v, s), b, adjoint_a=True,
                                                          adjoint_b=True),
         [_IDX, _VAL, _SHAPE, np.linspace(-1, 1, 15).reshape(5, 3)], _matmul_ref(True, True),
         fixed=(0, 2), name="SparseTensorDenseMatMul_adjoint"),
    Case("SparseConcat",
         lambda *a: _parts(so.sparse_concat(1, [_sp(*a[:3]), _sp(*a[3:])])),
         [_IDX, _VAL, _SHAPE, _IDX_B, _VAL_B, _SHAPE], _concat_ref(1), fixed=(0, 2, 3, 5),
         grad=False),
    Case("SparseConcat",
         lambda *a: _parts(so.sparse_concat(-2, [_sp(*a[:3]), _sp(*a[3:])])),
         [_IDX, _VAL, _SHAPE, _IDX_B, _VAL_B, _SHAPE], _concat_ref(0), fixed=(0, 2, 3, 5),
         grad=False, name="SparseConcat_axis0"),
    Case("SparseReorder", lambda i, v, s: _parts(so.sparse_reorder(_sp(i, v, s)))[:2],
         [_IDX[_SHUFFLE], _VAL[_SHUFFLE], _SHAPE], lambda i, v, s: [_IDX, _VAL[_SHUFFLE][
             np.argsort(_SHUFFLE)]], fixed=(0, 2)),
    Case("SparseReshape",
         lambda i, s, n: list(ops.apply_op("SparseReshape", [i, s, n])._outputs),
         [_IDX, _SHAPE, np.array([2, -1, 3], np.int64)], _reshape_ref, fixed=(0, 1, 2),
         grad=False),
    Case("SparseSlice",
         lambda i, v, s, a, b: _parts(so.sparse_slice(_sp(i, v, s), a, b)),
         [_IDX, _VAL, _SHAPE, np.array([1, 0], np.int64), np.array([5, 3], np.int64)],
         _slice_ref, fixed=(0, 2, 3, 4), grad=False),
    Case("SparseSliceGrad",
         lambda g: ops.apply_op("SparseSliceGrad", [
             g, np.array([[0, 1], [1, 0], [2, 2]], np.int64), np.array([1, 0], np.int64),
             np.array([[0, 0], [1, 2]], np.int64)])._outputs[0],
         [np.array([3.0, 5.0])], lambda g: np.array([0.0, g[0], g[1]]), grad=False),
    Case("SparseSegmentSum", sr.sparse_segment_sum, [_SEG_DATA, _SEG_IDX, _SEG_IDS],
         _segment_ref("sum"), fixed=(1, 2)),
    Case("SparseSegmentMean", sr.sparse_segment_mean, [_SEG_DATA, _SEG_IDX, _SEG_IDS],
         _segment_ref("mean"), fixed=(1, 2)),
    Case("SparseSegmentSqrtN", sr.sparse_segment_sqrt_n, [_SEG_DATA, _SEG_IDX, _SEG_IDS],
         _segment_ref("sqrtn"), fixed=(1, 2)),
    Case("SparseSegmentMeanGrad",
         lambda g, i, s, n: ops.apply_op("SparseSegmentMeanGrad", [g, i, s, n])._outputs[0],
         [np.linspace(0, 1, 12).reshape(4, 3), _SEG_IDX, _SEG_IDS, np.array(5, np.int32)],
         _segment_grad_ref("mean"), fixed=(1, 2, 3), grad=False),
    Case("SparseSegmentSqrtNGrad",
         lambda g, i, s, n: ops.apply_op("SparseSegmentSqrtNGrad", [g, i, s, n])._outputs[0],
         [np.linspace(0, 1, 12).reshape(4, 3), _SEG_IDX, _SEG_IDS, np.array(5, np.int32)],
         _segment_grad_ref("sqrtn"), fixed=(1, 2, 3), grad=False),
    Case("SparseFillEmptyRows",
         lambda i, v, s, d: list(ops.apply_op("SparseFillEmptyRows", [i, v, s, d])._outputs),
         [np.array([[1, 0], [1, 2], [3, 1]], np.int64), np.array([1.0, 2.0, 3.0]),
          np.array([5, 3], np.int64), np.array(-1.0)], _fill_ref, fixed=(0, 2)),
]


def _cwise_ref(fn, dense_of):
    def ref(i, v, s, d):
        full = np.broadcast_to(dense_of(d), tuple(s))
        return fn(v, full[tuple(i.T)])
    return ref


# SparseDenseCwiseMul/Div/Add: the dense side broadcasts to the sparse shape (a row here)
_ROW = np.array([1.0, 2.0, -0.5, 4.0])
CASES += [
    Case("SparseDenseCwiseMul", lambda i, v, s, d: (_sp(i, v, s) * d).values,
         [_IDX, _VAL, _SHAPE, _ROW], _cwise_ref(np.multiply, lambda d: d), fixed=(0, 2),
         grad_inputs=[1, 3]),
    Case("SparseDenseCwiseMul", lambda i, v, s, d: (d * _sp(i, v, s)).values,
         [_IDX, _VAL, _SHAPE, _DENSE], _cwise_ref(np.multiply, lambda d: d), fixed=(0, 2),
         grad_inputs=[1, 3], name="SparseDenseCwiseMul_dense_left"),
    Case("SparseDenseCwiseDiv", lambda i, v, s, d: (_sp(i, v, s) / d).values,
         [_IDX, _VAL, _SHAPE, _ROW], _cwise_ref(np.divide, lambda d: d), fixed=(0, 2),
         grad_inputs=[1, 3]),
    Case("SparseDenseCwiseAdd",
         lambda i, v, s, d: ops.apply_op("SparseDenseCwiseAdd", [i, v, s, d])._outputs[0],
         [_IDX, _VAL, _SHAPE, _ROW], _cwise_ref(np.add, lambda d: d), fixed=(0, 2),
         grad=False),
]
