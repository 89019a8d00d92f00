"""Op-table rows for ListDiff, UniqueWithCounts, UniqueV2, UniqueWithCountsV2, Bincount,
HistogramFixedWidth and UnravelIndex, and for confusion_matrix, batch_gather and lbeta (composed
from other ops)."""

import math

import numpy as np

import tideflow as tf
from tests.ops.optable import Case

I = (tf.int32, tf.int64)
R = (tf.float32, tf.float64)


def _ref_setdiff(x, y):
    ys = set(y.tolist())
    idx = [i for i, v in enumerate(x.tolist()) if v not in ys]
    return [x[idx], np.array(idx, np.int32)]


def _ref_unique_counts(out_dt):
    def ref(x):
        order, idx = [], []
        for v in x.tolist():
            if v not in order:
                order.append(v)
            idx.append(order.index(v))
        counts = [idx.count(j) for j in range(len(order))]
        return [np.array(order, x.dtype), np.array(idx, out_dt), np.array(counts, out_dt)]

    return ref


def _ref_bincount(arr, weights=None, minlength=0, maxlength=None, dtype=np.int32):
    size = max(int(arr.max()) + 1 if arr.size else 0, minlength)
    if maxlength is not None:
        size = min(size, maxlength)
    out = np.zeros(size, dtype if weights is None else weights.dtype)
    for k, v in enumerate(arr.reshape(-1).tolist()):
        if v < size:
            out[v] += 1 if weights is None else weights.reshape(-1)[k]
    return out


def _ref_histogram(nbins, dtype=np.int32):
    def ref(values, value_range):
        lo, hi = float(value_range[0]), float(value_range[1])
        out = np.zeros(nbins, dtype)
        for v in values.reshape(-1).tolist():
            if v < lo:
                b = 0
            elif v >= hi:
                b = nbins - 1
            else:
                b = min(math.floor((v - lo) * nbins / (hi - lo)), nbins - 1)
            out[b] += 1
        return out

    return ref


def _ref_unravel(indices, dims):
    out = []
    for flat in np.atleast_1d(indices).tolist():
        coords = []
        for d in reversed(dims.tolist()):
            coords.append(flat % d)
            flat //= d
        out.append(coords[::-1])
    res = np.array(out, indices.dtype).T
    return res[:, 0] if indices.ndim == 0 else res


def _ref_confusion(n=None, weighted=False):
    def ref(labels, predictions, *weights):
        size = n or int(max(labels.max(), predictions.max())) + 1
        out = np.zeros((size, size), weights[0].dtype if weighted else np.int32)
        for k, (a, b) in enumerate(zip(labels.tolist(), predictions.tolist())):
            out[a, b] += weights[0][k] if weighted else 1
        return out

    return ref


def _ref_batch_gather(params, indices):
    out = np.empty(indices.shape + params.shape[indices.ndim:], params.dtype)
    for pos in np.ndindex(*indices.shape):
        out[pos] = params[pos[:-1] + (indices[pos],)]
    return out


def _ref_lbeta(x):
    out = np.zeros(x.shape[:-1], np.float64)
    for pos in np.ndindex(*x.shape[:-1]):
        row = x[pos].astype(np.float64).tolist()
        out[pos] = sum(math.lgamma(v) for v in row) - math.lgamma(sum(row))
    return out.astype(x.dtype)


_x = np.array([4, 1, 7, 1, 3, 9, 4])
_rows = np.array([[1, 2, 2, 1], [5, 0, 0, 5], [3, 3, 3, 3]])  # columns 0 = 3 and 1 = 2
_y = np.array([1, 9, 5])
_arr = np.array([[3, 1, 0], [3, 6, 3]], np.int32)
_vals = np.array([-2.0, 0.0, 0.5, 1.0, 2.49, 2.5, 4.99, 5.0, 7.0, 3.3])
_params = np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 7.0
_idx = np.array([[[3, 0], [1, 1], [2, 3]], [[0, 0], [3, 2], [1, 0]]], np.int32)

CASES = [
    Case("ListDiff", lambda x, y: list(tf.setdiff1d(x, y)), [_x, _y], _ref_setdiff,
         dtypes=I + R, grad=False),
    Case("ListDiff", lambda x, y: list(tf.setdiff1d(x, y, index_dtype=tf.int64)),
         [np.array([b"a", b"b", b"c", b"a"], object), np.array([b"a"], object)],
         lambda x, y: [x[[1, 2]], np.array([1, 2], np.int64)], dtypes=(tf.string,),
         grad=False, name="ListDiff_strings_int64"),
    Case("UniqueWithCounts", lambda x: list(tf.unique_with_counts(x)), [_x],
         _ref_unique_counts(np.int32), dtypes=I + R, grad=False),
    Case("UniqueWithCounts", lambda x: list(tf.unique_with_counts(x, out_idx=tf.int64)),
         [np.array([2.5, -1.0, 2.5, 2.5])], _ref_unique_counts(np.int64), dtypes=R, grad=False,
         name="UniqueWithCounts_int64"),
    Case("UniqueV2", lambda x: list(tf.raw_ops.UniqueV2(x=x, axis=[1])), [_rows],
         lambda x: [x[:, [0, 1]], np.array([0, 1, 1, 0], np.int32)], dtypes=I + R,
         grad=False),
    Case("UniqueV2", lambda x: list(tf.raw_ops.UniqueV2(x=x, axis=np.zeros([0], np.int64))),
         [_x], lambda x: _ref_unique_counts(np.int32)(x)[:2], dtypes=I, grad=False,
         name="UniqueV2_no_axis"),
    Case("UniqueWithCountsV2",
         lambda x: list(tf.raw_ops.UniqueWithCountsV2(x=x, axis=[0], out_idx=tf.int64)),
         [_rows.T], lambda x: [x[[0, 1]], np.array([0, 1, 1, 0], np.int64),
                               np.array([2, 2], np.int64)], dtypes=I + R, grad=False),
    Case("Bincount", tf.bincount, [_arr], _ref_bincount, dtypes=(tf.int32,), grad=False),
    Case("Bincount", lambda a: tf.bincount(a, minlength=9, dtype=tf.float64), [_arr],
         lambda a: _ref_bincount(a, minlength=9, dtype=np.float64), dtypes=(tf.int32,),
         grad=False, name="Bincount_minlength_float64"),
    Case("Bincount", lambda a: tf.math.bincount(a, maxlength=4, dtype=tf.int64), [_arr],
         lambda a: _ref_bincount(a, maxlength=4, dtype=np.int64), dtypes=(tf.int32,),
         grad=False, name="Bincount_maxlength"),
    Case("Bincount", lambda a: tf.bincount(a), [np.zeros([0], np.int32)],
         lambda a: np.zeros([0], np.int32), dtypes=(tf.int32,), grad=False,
         name="Bincount_empty"),
    Case("UnsortedSegmentSum", lambda a, w: tf.bincount(a, weights=w, minlength=8),
         [_arr, np.array([[0.5, 1.5, 2.0], [1.0, -1.0, 0.25]])],
         lambda a, w: _ref_bincount(a, weights=w, minlength=8), dtypes=R, fixed=(0,),
         grad_inputs=[1], name="bincount_weights"),
    Case("HistogramFixedWidth", lambda v, r: tf.histogram_fixed_width(v, r, nbins=5),
         [_vals, np.array([0.0, 5.0])], _ref_histogram(5), dtypes=R, grad=False),
    Case("HistogramFixedWidth",
         lambda v, r: tf.histogram_fixed_width(v, r, nbins=3, dtype=tf.int64),
         [np.array([[-5, 0, 1], [2, 3, 9]]), np.array([0, 3])], _ref_histogram(3, np.int64),
         dtypes=I, grad=False, name="HistogramFixedWidth_ints_int64"),
    Case("UnravelIndex", tf.unravel_index, [np.array([22, 41, 37, 0]), np.array([7, 6])],
         _ref_unravel, dtypes=I, grad=False),
    Case("UnravelIndex", tf.unravel_index, [np.array(1621), np.array([6, 7, 8, 9])],
         _ref_unravel, dtypes=I, grad=False, name="UnravelIndex_scalar"),
    Case("ScatterNd", tf.confusion_matrix, [np.array([1, 2, 4, 2]), np.array([2, 2, 4, 0])],
         _ref_confusion(), dtypes=I, grad=False, name="confusion_matrix"),
    Case("ScatterNd",
         lambda a, b, w: tf.math.confusion_matrix(a, b, num_classes=4, weights=w,
                                                  dtype=w.dtype),
         [np.array([0, 3, 3, 1]), np.array([1, 3, 3, 0]), np.array([0.5, 2.0, 1.0, -1.0])],
         _ref_confusion(4, weighted=True), dtypes=R, fixed=(0, 1), grad_inputs=[2],
         name="confusion_matrix_weights"),
    Case("GatherV2", tf.batch_gather, [_params, _idx], _ref_batch_gather, dtypes=R,
         fixed=(1,), grad_inputs=[0], unknown_shape=False, name="batch_gather"),
    Case("Lgamma", tf.lbeta, [np.array([[0.5, 1.5, 2.0], [3.0, 0.25, 4.0]])], _ref_lbeta,
         dtypes=R, name="lbeta"),
    Case("Lgamma", tf.math.lbeta, [np.array([1.0, 2.0, 3.5])], _ref_lbeta, dtypes=R,
         name="math_lbeta_vector"),
]
