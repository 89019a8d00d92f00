"""Op-table rows for reverse_sequence, the matrix diagonal ops, sort/search and scatter_nd ops."""

import numpy as np
import pytest

import tideflow as tf
from tests.ops.optable import Case
from tideflow.ops import state_ops

_NUM = (tf.float16, tf.float32, tf.float64, tf.int32, tf.int64, tf.uint8, tf.complex64)
_ALL = _NUM + (tf.bool,)


def _band_part(x, k0, k1, pad):
    """Diagonals k1 down to k0 of x's matrices, each left-aligned and padded."""
    m, n = x.shape[-2:]
    width = min(m + min(k1, 0), n - max(k0, 0))
    out = np.full(x.shape[:-2] + (k1 - k0 + 1, width), pad, x.dtype)
    for r, d in enumerate(range(k1, k0 - 1, -1)):
        diag = np.diagonal(x, d, axis1=-2, axis2=-1)
        out[..., r, :diag.shape[-1]] = diag
    return out


def _band_diag(d, k0, k1, m, n, pad):
    out = np.full(d.shape[:-2] + (m, n), pad, d.dtype)
    for r, k in enumerate(range(k1, k0 - 1, -1)):
        for i in range(m):
            if 0 <= i + k < n:
                out[..., i, i + k] = d[..., r, min(i, i + k)]
    return out


def _band_set(x, d, k0, k1):
    m, n = x.shape[-2:]
    band = _band_diag(d, k0, k1, m, n, 0)
    i, j = np.indices((m, n))
    return np.where((j - i >= k0) & (j - i <= k1), band, x)


def _data(shape, start=0):
    def make(np_dt):
        a = (np.arange(int(np.prod(shape))) + start).reshape(shape)
        if np.dtype(np_dt) == np.bool_:
            return a % 3 != 0
        return a.astype(np_dt)

    return make


def _rev_seq_ref(x, lens, s, b):
    out = x.copy()
    for i, n in enumerate(lens.tolist()):
        src = np.take(x, i, axis=b)
        dst_idx = [slice(None)] * x.ndim
        dst_idx[b] = i
        ss = s if s < b else s - 1
        part = np.flip(np.take(src, np.arange(n), axis=ss), axis=ss)
        view = out[tuple(dst_idx)]
        idx = [slice(None)] * view.ndim
        idx[ss] = slice(0, n)
        view[tuple(idx)] = part
    return out


def _mdiag(d):
    out = np.zeros(d.shape + d.shape[-1:], d.dtype)
    i = np.arange(d.shape[-1])
    out[..., i, i] = d
    return out


def _set_diag(x, d):
    out = x.copy()
    i = np.arange(min(x.shape[-2:]))
    out[..., i, i] = d
    return out


def _diag_part(x):
    r = x.ndim // 2
    n = int(np.prod(x.shape[:r]))
    return np.diagonal(x.reshape(n, n)).reshape(x.shape[:r])


def _perm(shape, seed):
    """Distinct values (a permutation), so sorts and their gradients are well defined."""
    def make(np_dt):
        a = np.random.RandomState(seed).permutation(int(np.prod(shape))).reshape(shape)
        return a.astype(np_dt)

    return make


def _ties(np_dt):
    return np.array([[3, 1, 2, 1, 3], [0, 5, 5, 2, 0]]).astype(np_dt)


def _desc_argsort(x, axis):
    return np.argsort(-x.astype(np.float64), axis=axis, kind="stable").astype(np.int32)


def _np_scatter_nd(mode):
    def ref(t, ix, up):
        out = t.copy()
        where = tuple(np.moveaxis(ix, -1, 0))
        if mode == "update":
            out[where] = up
        elif mode == "add":
            np.add.at(out, where, up)
        else:
            np.subtract.at(out, where, up)
        return out

    return ref


def _check_scatter_nd_ref(op_type, fn, mode):
    def check():
        for dt in (tf.float32, tf.float64, tf.int32):
            for idt in (tf.int32, tf.int64):
                with tf.Graph().as_default():
                    v = state_ops.variable_op_v2([4, 3], dt, name="v")
                    start = np.arange(12).reshape(4, 3).astype(dt.as_numpy_dtype)
                    init = tf.assign(v, start)
                    # duplicates only where the result is order independent
                    ix = np.array([[3], [0], [3]] if mode != "update" else [[3], [0]],
                                  idt.as_numpy_dtype)
                    up = (np.arange(len(ix) * 3).reshape(-1, 3) + 7).astype(dt.as_numpy_dtype)
                    ix2 = np.array([[1, 2], [2, 0]], idt.as_numpy_dtype)
                    up2 = np.array([5, 9]).astype(dt.as_numpy_dtype)
                    out = fn(v, ix, up)
                    out2 = fn(out, ix2, up2)  # chained: the ref passes through
                    assert out.op.type == op_type and out.get_shape().as_list() == [4, 3]
                    assert out.op.get_attr("use_locking") == (mode == "update")
                    with tf.Session() as s:
                        s.run(init)
                        got = s.run(out2)
                        want = _np_scatter_nd(mode)(start, ix, up)
                        want = _np_scatter_nd(mode)(want, ix2, up2)
                        np.testing.assert_array_equal(got, want)
                        np.testing.assert_array_equal(s.run(v), want)
                    with pytest.raises(ValueError, match=op_type):
                        fn(v, ix, np.ones([2, 2], dt.as_numpy_dtype))

    return check


def _svd_ref(x):
    u, s, vh = np.linalg.svd(x.astype(np.complex128 if x.dtype.kind == "c" else np.float64),
                             full_matrices=False)
    return s.astype(x.dtype), np.abs(u).astype(np.float64), np.abs(vh).astype(np.float64)


def _svd_abs(x):
    s, u, v = tf.svd(x)
    return [s, tf.cast(tf.abs(u), tf.float64), tf.cast(tf.abs(tf.transpose(v, [0, 2, 1])),
                                                      tf.float64)]


_SORT_DT = (tf.float16, tf.float32, tf.float64, tf.int32, tf.int64)  # TF 1.15 negates: no uint8
_SEARCH_DT = _SORT_DT + (tf.uint8,)
_DIAG_DT = (tf.float16, tf.float32, tf.float64, tf.int32, tf.int64, tf.complex64)

CASES = [
    Case("ReverseSequence",
         lambda x, n: [tf.reverse_sequence(x, n, seq_axis=1, batch_axis=0),
                       tf.reverse_sequence(x, n, seq_dim=1)],
         [_data((3, 4, 2)), np.array([4, 0, 2], np.int64)],
         lambda x, n: [_rev_seq_ref(x, n, 1, 0)] * 2, dtypes=_ALL, fixed=(1,)),
    Case("ReverseSequence",
         lambda x, n: tf.reverse_sequence(x, n, seq_axis=0, batch_axis=2),
         [_data((5, 2, 3)), np.array([1, 5, 3], np.int32)],
         lambda x, n: _rev_seq_ref(x, n, 0, 2), fixed=(1,), name="ReverseSequence_batch2"),
    Case("MatrixDiag", lambda d: [tf.matrix_diag(d), tf.linalg.diag(d)], [_data((2, 3), 1)],
         lambda d: [_mdiag(d)] * 2, dtypes=_ALL),
    Case("MatrixDiagPart", lambda x: [tf.matrix_diag_part(x), tf.linalg.diag_part(x)],
         [_data((2, 3, 3))], lambda x: [np.diagonal(x, axis1=-2, axis2=-1)] * 2, dtypes=_ALL),
    Case("MatrixDiagPart", lambda x: tf.matrix_diag_part(x), [_data((2, 3, 4))],
         lambda x: np.diagonal(x, axis1=-2, axis2=-1), name="MatrixDiagPart_rectangular"),
    Case("MatrixDiagPart", lambda x: [tf.trace(x), tf.linalg.trace(x)], [_data((2, 4, 3))],
         lambda x: [np.trace(x, axis1=-2, axis2=-1)] * 2, dtypes=_NUM, name="Trace"),
    Case("MatrixSetDiag", lambda x, d: [tf.matrix_set_diag(x, d), tf.linalg.set_diag(x, d)],
         [_data((2, 3, 4)), _data((2, 3), 50)], lambda x, d: [_set_diag(x, d)] * 2, dtypes=_ALL),
    Case("MatrixSetDiag", lambda x, d: tf.matrix_set_diag(x, d),
         [_data((4, 2)), _data((2,), 50)], _set_diag, name="MatrixSetDiag_tall"),
    # (the V2 ops by their raw wrappers: TF 1.15's tf.linalg.diag* build them only past its
    # forward-compatibility horizon)
    Case("MatrixDiagPartV2", lambda x: [
        tf.raw_ops.MatrixDiagPartV2(input=x, k=(-1, 2), padding_value=tf.cast(7, x.dtype)),
        tf.raw_ops.MatrixDiagPartV2(input=x, k=1, padding_value=tf.cast(0, x.dtype))],
         [_data((2, 3, 4))], lambda x: [_band_part(x, -1, 2, 7), _band_part(x, 1, 1, 0)[..., 0, :]],
         dtypes=_ALL),
    Case("MatrixDiagV2", lambda d: tf.raw_ops.MatrixDiagV2(
        diagonal=d, k=(-1, 1), num_rows=3, num_cols=-1, padding_value=tf.cast(9, d.dtype)),
         [_data((2, 3, 3), 1)], lambda d: _band_diag(d, -1, 1, 3, 3, 9), dtypes=_ALL),
    Case("MatrixSetDiagV2", lambda x, d: tf.raw_ops.MatrixSetDiagV2(input=x, diagonal=d,
                                                                    k=(0, 1)),
         [_data((2, 4, 3)), _data((2, 2, 3), 50)], lambda x, d: _band_set(x, d, 0, 1),
         dtypes=_ALL),
    Case("Diag", lambda d: [tf.diag(d), tf.diag(d[0])], [_data((2, 3), 1)],
         lambda d: [np.diag(d.ravel()).reshape(2, 3, 2, 3), np.diag(d[0])], dtypes=_DIAG_DT),
    Case("DiagPart", lambda x: tf.diag_part(x), [_data((2, 3, 2, 3))], _diag_part,
         dtypes=_DIAG_DT),
    Case("DiagPart", lambda x: tf.diag_part(x), [_data((4, 4))], _diag_part,
         name="DiagPart_matrix"),
    Case("TopKV2",
         lambda x: [tf.sort(x), tf.sort(x, axis=0, direction="DESCENDING"), tf.sort(x, 1)],
         [_perm((4, 3, 5), 0)],
         lambda x: [np.sort(x), -np.sort(-x.astype(np.float64), axis=0).astype(x.dtype),
                    np.sort(x, axis=1)], dtypes=_SORT_DT, name="Sort"),
    Case("TopKV2",
         lambda x: [tf.argsort(x, stable=True), tf.argsort(x, direction="DESCENDING"),
                    tf.argsort(tf.transpose(x), axis=0, stable=True)],
         [_ties], lambda x: [np.argsort(x, kind="stable").astype(np.int32),
                             _desc_argsort(x, -1),
                             np.argsort(x.T, axis=0, kind="stable").astype(np.int32)],
         dtypes=_SORT_DT, grad=False, name="Argsort"),
    Case(("LowerBound", "UpperBound"),
         lambda s, v: [tf.searchsorted(s, v), tf.searchsorted(s, v, side="right"),
                       tf.searchsorted(s, v, out_type=tf.int64)],
         [lambda d: np.array([[[0, 2, 2, 4]], [[1, 1, 3, 5]]]).astype(d),
          lambda d: np.array([[[2, 0, 5]], [[1, 4, 0]]]).astype(d)],
         lambda s, v: [np.array([np.searchsorted(a[0], b[0], side) for a, b in zip(s, v)])
                       .reshape(v.shape).astype(t) for side, t in
                       (("left", np.int32), ("right", np.int32), ("left", np.int64))],
         dtypes=_SEARCH_DT, grad=False, name="SearchSorted"),
    Case("ScatterNdUpdate", check=_check_scatter_nd_ref("ScatterNdUpdate", tf.scatter_nd_update,
                                                         "update"), grad=False),
    Case("ScatterNdAdd", check=_check_scatter_nd_ref("ScatterNdAdd", tf.scatter_nd_add, "add"),
         grad=False),
    Case("ScatterNdSub", check=_check_scatter_nd_ref("ScatterNdSub", tf.scatter_nd_sub, "sub"),
         grad=False),
    Case("TensorScatterUpdate",
         lambda t, u, w: [tf.tensor_scatter_update(t, [[2], [0]], u),
                          tf.tensor_scatter_nd_update(t, [[1, 2], [3, 0]], w)],
         [_data((4, 3)), _data((2, 3), 20), _data((2,), 40)],
         lambda t, u, w: [_np_scatter_nd("update")(t, np.array([[2], [0]]), u),
                          _np_scatter_nd("update")(t, np.array([[1, 2], [3, 0]]), w)],
         dtypes=_ALL),
    Case("TensorScatterAdd",
         lambda t, u, w: [tf.tensor_scatter_add(t, [[2], [0], [2]], u),
                          tf.tensor_scatter_nd_add(t, [[1, 2], [1, 2]], w)],
         [_data((4, 3)), _data((3, 3), 20), _data((2,), 40)],
         lambda t, u, w: [_np_scatter_nd("add")(t, np.array([[2], [0], [2]]), u),
                          _np_scatter_nd("add")(t, np.array([[1, 2], [1, 2]]), w)],
         dtypes=_NUM),
    Case("ScatterNdNonAliasingAdd",
         lambda t, u: tf.raw_ops.ScatterNdNonAliasingAdd(input=t, indices=[[2], [0], [2]],
                                                         updates=u),
         [_data((4, 3)), _data((3, 3), 20)],
         lambda t, u: _np_scatter_nd("add")(t, np.array([[2], [0], [2]]), u),
         dtypes=_NUM),
    Case("TensorScatterSub",
         lambda t, u, w: [tf.tensor_scatter_sub(t, [[2], [0], [2]], u),
                          tf.tensor_scatter_nd_sub(t, np.array([[1, 2], [1, 2]], np.int64), w)],
         [_data((4, 3)), _data((3, 3), 20), _data((2,), 40)],
         lambda t, u, w: [_np_scatter_nd("sub")(t, np.array([[2], [0], [2]]), u),
                          _np_scatter_nd("sub")(t, np.array([[1, 2], [1, 2]]), w)],
         dtypes=_NUM),
    # |u| and |v| (signs are not unique); the gradient covers s only, as tf.norm needs
    Case("Svd", lambda x: tf.svd(x, compute_uv=False), [_perm((2, 3, 4), 5)],
         lambda x: np.linalg.svd(x.astype(np.float64), compute_uv=False).astype(x.dtype),
         dtypes=(tf.float32, tf.float64), rtol=1e-4, atol=1e-4, name="Svd_s"),
    Case("Svd", _svd_abs, [_perm((2, 4, 3), 6)], _svd_ref, dtypes=(tf.float32, tf.float64),
         rtol=1e-4, atol=1e-4, grad=False, name="Svd_uv"),
]
