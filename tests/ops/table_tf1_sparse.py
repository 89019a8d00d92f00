"""Op-table rows for the later TF 1.x sparse ops (SparseSoftmax, SparseSparseMaximum/Minimum,
SparseSplit, SparseReduceSum/MaxSparse, SerializeManySparse/DeserializeManySparse,
EditDistance), the composed tf.sparse helpers, and EncodeBase64/DecodeBase64."""

import base64

import numpy as np
import pytest

import tideflow as tf
from tests.ops.optable import Case

_idx = np.array([[0, 0], [0, 2], [1, 1], [2, 0], [2, 1]], np.int64)
_vals = np.array([1.0, 2.0, 3.0, 0.5, -1.0])
_shape = np.array([3, 3], np.int64)


def _softmax_ref(idx, vals, shape):
    out = np.empty_like(vals)
    for r in set(idx[:, 0].tolist()):
        m = idx[:, 0] == r
        e = np.exp(vals[m] - vals[m].max())
        out[m] = e / e.sum()
    return out


def _dense(idx, vals, shape):
    vals = np.asarray(vals)
    d = np.zeros(shape, vals.dtype)
    for i, v in zip(idx.tolist(), vals.tolist()):
        d[tuple(i)] = v
    return d


def _sp_value_check(got, want_dense, sorted_rows=True):
    assert got.indices.shape[0] == got.values.shape[0]
    np.testing.assert_array_equal(_dense(got.indices, got.values, got.dense_shape), want_dense)
    if not sorted_rows:
        return
    order = np.lexsort(got.indices.T[::-1]) if got.indices.size else []
    np.testing.assert_array_equal(order, np.arange(len(order)))


def _check_maximum_minimum():
    a_i = np.array([[0, 0], [1, 1], [1, 2]], np.int64)
    b_i = np.array([[0, 0], [0, 1], [1, 2]], np.int64)
    for dt in (tf.float32, tf.float64, tf.int32, tf.int64):
        with tf.Graph().as_default():
            a = tf.SparseTensor(a_i, np.array([-1, 2, 5]).astype(dt.as_numpy_dtype), [2, 3])
            b = tf.SparseTensor(b_i, np.array([-3, -4, 7]).astype(dt.as_numpy_dtype), [2, 3])
            mx, mn = tf.sparse_maximum(a, b), tf.sparse.minimum(a, b)
            assert mx.indices.op.type == "SparseSparseMaximum"
            assert mx.indices.get_shape().as_list() == [None, None]  # TF: an unknown matrix
            with tf.Session() as s:
                gx, gn = s.run([mx, mn])
            da, db = _dense(a_i, np.array([-1, 2, 5]), [2, 3]), _dense(b_i, [-3, -4, 7], [2, 3])
            present = (da != 0) | (db != 0)
            _sp_value_check(gx, np.where(present, np.maximum(da, db), 0))
            _sp_value_check(gn, np.where(present, np.minimum(da, db), 0))
            assert gx.values.dtype == dt.as_numpy_dtype
    with tf.Graph().as_default():
        bad = tf.sparse_maximum(tf.SparseTensor(a_i, [1.0, 2.0, 3.0], [2, 3]),
                                tf.SparseTensor(b_i, [1.0, 2.0, 3.0], [3, 3]))
        with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError, match="shapes"):
            s.run(bad)


def _check_split():
    idx = np.array([[0, 1], [2, 3], [4, 5], [1, 0]], np.int64)
    vals = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    d = _dense(idx, vals, [5, 6])
    with tf.Graph().as_default():
        sp = tf.SparseTensor(idx, vals, [5, 6])
        parts = tf.sparse_split(sp_input=sp, num_split=4, axis=1)
        rows = tf.sparse.split(sp_input=sp, num_split=2, axis=0)
        assert parts[0].indices.op.type == "SparseSplit"
        with tf.Session() as s:
            got, got_rows = s.run([parts, rows])
        # as TF, each piece keeps the input's order of entries
        for g, w in zip(got, np.split(d, [2, 4, 5], axis=1)):
            _sp_value_check(g, w, sorted_rows=False)
        assert got[0].indices.tolist() == [[0, 1], [1, 0]]
        for g, w in zip(got_rows, np.split(d, [3], axis=0)):
            _sp_value_check(g, w, sorted_rows=False)
        with pytest.raises(ValueError, match="Keyword"):
            tf.sparse_split(sp, 2, 1)
        with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError, match="num_split"):
            s.run(tf.sparse_split(sp_input=sp, num_split=9, axis=0)[0].indices)


def _check_reduce_sparse():
    idx = np.array([[0, 1, 0], [2, 3, 1], [2, 1, 1], [0, 1, 1]], np.int64)
    vals = np.array([1.0, -2.0, 3.0, 4.0])
    d = _dense(idx, vals, [3, 4, 2])
    present = _dense(idx, np.ones(4), [3, 4, 2]) > 0
    with tf.Graph().as_default():
        sp = tf.SparseTensor(idx, vals, [3, 4, 2])
        outs = [tf.sparse_reduce_sum_sparse(sp, axis=0),
                tf.sparse.reduce_sum_sparse(sp, axis=[0, 2], keepdims=True),
                tf.sparse_reduce_max_sparse(sp, axis=1),
                tf.sparse.reduce_max_sparse(sp, axis=-1, keepdims=True),
                tf.sparse_reduce_sum_sparse(sp)]
        assert outs[0].indices.op.type == "SparseReduceSumSparse"
        assert outs[2].indices.op.type == "SparseReduceMaxSparse"
        with tf.Session() as s:
            got = s.run(outs)
    masked = np.where(present, d, -np.inf)
    want = [d.sum(0), d.sum((0, 2), keepdims=True), masked.max(1), masked.max(-1, keepdims=True),
            d.sum()]
    for g, w in zip(got, want):
        w = np.where(np.isinf(w), 0, w)
        np.testing.assert_allclose(_dense(g.indices, g.values, g.dense_shape), w)


def _check_serialize_round_trip():
    with tf.Graph().as_default():
        # (ordered: TF 1.15's SerializeManySparse validates its indices; measured, the order
        # [1, 3, 1], [1, 3, 0] fails 'indices[2] = [1,3,0] is out of order')
        sp = tf.SparseTensor([[0, 1, 0], [1, 3, 0], [1, 3, 1]], ["ab", "", "c"], [2, 6, 2])
        ser = tf.serialize_many_sparse(sp)
        back = tf.deserialize_many_sparse(ser, tf.string)
        f1 = tf.serialize_sparse(tf.SparseTensor([[0]], [1.5], [3]))
        f2 = tf.serialize_sparse(tf.SparseTensor([[4], [1]], [2.5, -1.0], [7]))
        assert ser.get_shape().as_list() == [None, 3] and f1.get_shape().as_list() == [3]
        nums = tf.deserialize_many_sparse(tf.stack([f1, f2]), tf.float32, rank=2)
        assert nums.indices.get_shape().as_list() == [None, 2]
        wrong = tf.deserialize_many_sparse(tf.stack([f1]), tf.int32)
        with tf.Session() as s:
            raw, got, n = s.run([ser, back, nums])
            with pytest.raises(tf.errors.InvalidArgumentError, match="type int32"):
                s.run(wrong)
    assert raw.shape == (2, 3)
    # the indices of row 1 as TF writes them: int64 [2, 2] in tensor_content
    assert raw[1, 0].hex().startswith("0809120812020802120208022220")
    assert got.indices.tolist() == [[0, 1, 0], [1, 3, 0], [1, 3, 1]]
    assert got.values.tolist() == [b"ab", b"", b"c"]
    assert got.dense_shape.tolist() == [2, 6, 2]
    # as TF, serialize_sparse keeps the entries in the order given (no reordering)
    assert n.indices.tolist() == [[0, 0], [1, 4], [1, 1]]
    assert n.values.tolist() == [1.5, 2.5, -1.0] and n.dense_shape.tolist() == [2, 7]


def _check_edit_distance():
    with tf.Graph().as_default():
        h = tf.SparseTensor([[0, 0, 0], [1, 0, 0], [1, 0, 1], [2, 0, 0]], ["a", "b", "c", "d"],
                            [3, 1, 2])
        t = tf.SparseTensor([[0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 0, 2], [2, 2, 0]],
                            ["a", "b", "x", "c", "q"], [3, 3, 3])
        e, e2 = tf.edit_distance(h, t), tf.edit_distance(h, t, normalize=False)
        assert e.get_shape().as_list() == [3, 3] and e.op.type == "EditDistance"
        ints = tf.edit_distance(tf.SparseTensor([[0, 0], [0, 1], [0, 2]], [1, 2, 3], [1, 3]),
                                tf.SparseTensor([[0, 0], [0, 1]], [2, 3], [1, 2]))
        with tf.Session() as s:
            got, got2, gi = s.run([e, e2, ints])
        np.testing.assert_allclose(got, [[np.inf, 1, 0], [1 / 3, 0, 0], [np.inf, 0, 1]])
        np.testing.assert_allclose(got2, [[1, 1, 0], [1, 0, 0], [1, 0, 1]])
        np.testing.assert_allclose(gi, [0.5])
        with pytest.raises(TypeError, match="SparseTensor"):
            tf.edit_distance(tf.constant([[1]]), t)


def _check_composed():
    with tf.Graph().as_default():
        sp = tf.SparseTensor([[0, 1], [2, 3]], [1.0, 2.0], [5, 6])
        empty = tf.SparseTensor(np.zeros([0, 2], np.int64), np.zeros([0], np.float32), [3, 3])
        ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([4, 1, 2], tf.int64), [2, 2])
        wts = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [0.5, 1.5, 2.5], [2, 2])
        sl = tf.IndexedSlices(tf.constant([[1.0], [2.0], [3.0]]), tf.constant([12, 26, 37]),
                              tf.constant([50, 1]))
        masked = tf.sparse_mask(sl, [12, 37])
        with pytest.raises(ValueError, match="should have dimension sizes"):
            tf.sparse_reset_shape(sp, [4, 8])  # TF 1.x checks known shapes statically
        new_shape = tf.placeholder(tf.int64, [2])
        shrink = tf.sparse_reset_shape(sp, new_shape)
        outs = [tf.sparse_reset_shape(sp), tf.sparse.reset_shape(sp, [7, 8]),
                tf.sparse_reset_shape(empty), tf.sparse.eye(3, 4), tf.sparse.eye(2),
                tf.sparse.from_dense([[0, 1], [2, 0]]), tf.sparse.expand_dims(sp, -1),
                tf.sparse.expand_dims(sp, 0), tf.sparse_merge(ids, wts, 5),
                tf.sparse.merge(ids, wts, 5, already_sorted=True)]
        with tf.Session() as s:
            got = s.run(outs)
            mv, mi = s.run([masked.values, masked.indices])
            with pytest.raises(tf.errors.InvalidArgumentError, match="x <= y did not hold"):
                s.run(shrink.dense_shape, {new_shape: [4, 8]})
    want_shapes = [[3, 4], [7, 8], [0, 0], [3, 4], [2, 2], [2, 2], [5, 6, 1], [1, 5, 6],
                   [2, 5], [2, 5]]
    for g, w in zip(got, want_shapes):
        assert g.dense_shape.tolist() == w
    assert got[3].indices.tolist() == [[0, 0], [1, 1], [2, 2]]
    assert got[5].indices.tolist() == [[0, 1], [1, 0]] and got[5].values.tolist() == [1, 2]
    assert got[6].indices.tolist() == [[0, 1, 0], [2, 3, 0]]
    assert got[7].indices.tolist() == [[0, 0, 1], [0, 2, 3]]
    assert got[8].indices.tolist() == [[0, 1], [0, 4], [1, 2]]
    assert got[8].values.tolist() == [1.5, 0.5, 2.5]
    assert got[9].indices.tolist() == [[0, 4], [0, 1], [1, 2]]
    assert mv.tolist() == [[2.0]] and mi.tolist() == [26]


def _check_base64():
    data = [b"hello?>", b"", b"ab", b"\xff\xfe\xfd\xfc"]
    with tf.Graph().as_default():
        x = tf.placeholder(tf.string, [None])
        enc, encp = tf.encode_base64(x), tf.encode_base64(x, pad=True)
        dec = tf.decode_base64(enc)
        assert enc.get_shape().as_list() == [None]
        with tf.Session() as s:
            e, ep, d = s.run([enc, encp, dec], {x: np.array(data, object)})
            assert ep.tolist() == [base64.urlsafe_b64encode(v) for v in data]
            assert e.tolist() == [base64.urlsafe_b64encode(v).rstrip(b"=") for v in data]
            assert d.tolist() == data
            assert s.run(dec, {enc: ep}).tolist() == data  # padded input decodes too
            for bad, msg in (([b"a"], "1 modulo 4"), ([b"a+b/"], "Invalid character"),
                             ([b"abc=="], "Invalid character")):
                with pytest.raises(tf.errors.InvalidArgumentError, match=msg):
                    s.run(dec, {enc: np.array(bad, object)})


CASES = [
    Case("SparseSoftmax",
         lambda i, v, s: tf.sparse_softmax(tf.SparseTensor(i, v, s)).values,
         [_idx, _vals, _shape], _softmax_ref, fixed=(0, 2), grad_inputs=[1]),
    Case("SparseSoftmax",
         lambda i, v, s: tf.sparse.softmax(tf.SparseTensor(i, v, s)).values,
         [np.array([[0, 0, 1], [0, 0, 3], [0, 1, 0], [1, 1, 2]], np.int64),
          np.array([0.3, -2.0, 1.1, 4.0]), np.array([2, 2, 4], np.int64)],
         lambda i, v, s: np.array([1 / (1 + np.exp(-2.3)), 1 / (1 + np.exp(2.3)), 1.0, 1.0],
                                  v.dtype),
         fixed=(0, 2), grad_inputs=[1], name="SparseSoftmax_rank3"),
    Case("SparseSparseMaximum", check=_check_maximum_minimum),
    Case("SparseSparseMinimum", check=_check_maximum_minimum),
    Case("SparseSplit", check=_check_split),
    Case("SparseReduceSumSparse", check=_check_reduce_sparse),
    Case("SparseReduceMaxSparse", check=_check_reduce_sparse),
    Case(("SerializeManySparse", "DeserializeManySparse"), check=_check_serialize_round_trip),
    Case("EditDistance", check=_check_edit_distance),
    Case(("GatherNd", "ListDiff"), check=_check_composed, name="sparse_composed"),
    Case(("EncodeBase64", "DecodeBase64"), check=_check_base64),
]


def _check_bincount():
    x = np.array([[3, 1, 1, 5], [0, 3, 3, 3]])
    w = np.array([[0.5, 1.0, 2.0, 3.0], [1.0, 1.0, 2.0, 0.25]])

    def dense_counts(v, weights=None, binary=False, size=None):
        size = size or int(v.max()) + 1
        out = np.zeros(size)
        for i, a in enumerate(v.reshape(-1)):
            if a < size:
                add = 1.0 if weights is None else weights.reshape(-1)[i]
                out[a] = add if binary else out[a] + add
        return out

    with tf.Graph().as_default():
        sp = tf.SparseTensor([[0, 0], [0, 2], [1, 1], [2, 3]], tf.constant([4, 1, 4, 7]), [3, 5])
        outs = [tf.sparse.bincount(x), tf.sparse.bincount(x, axis=-1),
                tf.sparse.bincount(x, weights=w, axis=-1),
                tf.sparse.bincount(x, axis=-1, binary_output=True),
                tf.sparse.bincount(x, minlength=8), tf.sparse.bincount(x, maxlength=3, axis=-1),
                tf.sparse.bincount(sp, axis=-1), tf.sparse.bincount(sp)]
        assert outs[0].indices.op.type == "DenseCountSparseOutput"
        assert outs[6].indices.op.type == "SparseCountSparseOutput"
        with tf.Session() as s:
            got = s.run(outs)
            with pytest.raises(tf.errors.InvalidArgumentError, match="non-negative"):
                s.run(tf.sparse.bincount(tf.constant([1, -1])).values)
    dense = [_dense(g.indices, g.values, g.dense_shape) for g in got]
    np.testing.assert_array_equal(dense[0], dense_counts(x))
    np.testing.assert_array_equal(dense[1], [dense_counts(r, size=6) for r in x])
    np.testing.assert_allclose(dense[2], [dense_counts(r, q, size=6) for r, q in zip(x, w)])
    np.testing.assert_array_equal(dense[3], [dense_counts(r, binary=True, size=6) for r in x])
    np.testing.assert_array_equal(dense[4], dense_counts(x, size=8))
    np.testing.assert_array_equal(dense[5], [dense_counts(r, size=3) for r in x])
    np.testing.assert_array_equal(dense[6], [[0, 1, 0, 0, 1, 0, 0, 0], [0, 0, 0, 0, 1, 0, 0, 0],
                                             [0, 0, 0, 0, 0, 0, 0, 1]])
    np.testing.assert_array_equal(dense[7], dense_counts(np.array([4, 1, 4, 7])))
    assert got[0].values.dtype == np.int64 and got[2].values.dtype == np.float64
    assert got[6].values.dtype == np.int32  # the values dtype when there are no weights


CASES += [
    Case(("DenseCountSparseOutput", "SparseCountSparseOutput"), check=_check_bincount),
]


def _check_cross_namespace():
    with tf.Graph().as_default():
        a = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], ["a", "b", "c"], [2, 2])
        b = tf.constant([["d"], ["e"]])
        c = tf.SparseTensor([[0, 0], [1, 0]], tf.constant([3, 4], tf.int64), [2, 1])
        with tf.Session() as s:
            got = s.run(tf.sparse.cross([a, b, c]))
            hashed = s.run(tf.sparse.cross_hashed([a, b, c], num_buckets=100))
        # TF 2.21's values: sparse inputs before dense ones
        assert got.values.tolist() == [b"a_X_3_X_d", b"b_X_4_X_e", b"c_X_4_X_e"]
        assert hashed.values.tolist() == [36, 2, 41]
        with pytest.raises(NotImplementedError, match="separator"):
            tf.sparse.cross([a, b], separator="|")


CASES += [Case("SparseCross", check=_check_cross_namespace, name="sparse_cross_namespace")]


# SparseMatMul (tf.sparse_matmul): float32 or bfloat16 in, float32 out; its gradient (float32
# only, so not checked here in float64) is pinned in tests/test_sparse_strings_parity18.py
_MM_A = np.array([[0.0, 2.0, 0.0], [1.5, 0.0, -1.0]])
_MM_B = np.array([[1.0, 0.5], [-2.0, 0.0], [0.25, 3.0]])
CASES += [
    Case("SparseMatMul", lambda a, b: tf.sparse_matmul(a, b, a_is_sparse=True), [_MM_A, _MM_B],
         lambda a, b: a @ b, dtypes=(tf.float32,), grad=False),
    Case("SparseMatMul", lambda a, b: tf.sparse_matmul(a, b, transpose_a=True, transpose_b=True),
         [_MM_A.T, _MM_B.T], lambda a, b: a.T @ b.T, dtypes=(tf.float32,), grad=False,
         name="SparseMatMul_transposed"),
]
