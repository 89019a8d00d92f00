"""Op-table rows for tf.bitwise (BitwiseAnd/Or/Xor, Invert, LeftShift, RightShift: TF clamps
shift amounts to [0, bits - 1]) and tf.sets (SetSize and the three set-operation ops)."""

import numpy as np
import pytest

import tideflow as tf
from tests.ops.optable import Case

INTS = (tf.int8, tf.int16, tf.int32, tf.int64, tf.uint8, tf.uint16, tf.uint32, tf.uint64)
_a = np.array([[0, 1, 5, 127], [6, 3, 96, 17]])
_b = np.array([[3, 1, 4, 100], [2, 7, 1, 33]])


def _shift_ref(left):
    def ref(x, y):
        bits = x.dtype.itemsize * 8
        out = []
        for u, v in zip(x.reshape(-1).tolist(), y.reshape(-1).tolist()):
            v = min(max(v, 0), bits - 1)
            r = u << v if left else u >> v
            r &= (1 << bits) - 1  # wrap into the width
            if x.dtype.kind == "i" and r >= 1 << (bits - 1):
                r -= 1 << bits
            out.append(r)
        return np.array(out, x.dtype).reshape(x.shape)

    return ref


def _sp(indices, values, shape):
    return tf.SparseTensor(indices, values, shape)


def _sets_rows(kind, a_sparse, b_sparse):
    a = np.array([[1, 2, 2, 9], [3, 3, 3, 3]])
    b = np.array([[2, 5, 1, 1], [4, 6, 7, 8]])

    def as_sets(m, sparse):
        if not sparse:
            return [set(r) for r in m.tolist()]
        return [set(r[:2]) for r in m.tolist()]  # the sparse version keeps two columns

    def ref():
        sa, sb = as_sets(a, a_sparse), as_sets(b, b_sparse)
        res = [{"intersection": x & y, "union": x | y, "a-b": x - y}[kind]
               for x, y in zip(sa, sb)]
        idx, vals = [], []
        for i, s in enumerate(res):
            for j, v in enumerate(sorted(s)):
                idx.append([i, j])
                vals.append(v)
        width = max((len(s) for s in res), default=0)
        return np.array(idx, np.int64).reshape(-1, 2), np.array(vals), [2, width]

    def tensor(m, sparse, dt):
        if not sparse:
            return tf.constant(m.astype(dt.as_numpy_dtype))
        return _sp([[i, j] for i in range(2) for j in range(2)],
                   m[:, :2].reshape(-1).astype(dt.as_numpy_dtype), [2, 4])

    def check():
        fn = {"intersection": tf.sets.set_intersection, "union": tf.sets.union,
              "a-b": tf.sets.set_difference}[kind]
        op_type = ("SparseToSparse" if a_sparse and b_sparse else
                   "DenseToDense" if not (a_sparse or b_sparse) else "DenseToSparse")
        for dt in (tf.int32, tf.int64, tf.uint8, tf.int16):
            with tf.Graph().as_default():
                out = fn(tensor(a, a_sparse, dt), tensor(b, b_sparse, dt))
                assert out.indices.op.type == f"{op_type}SetOperation"
                assert out.indices.get_shape().as_list() == [None, 2]
                assert out.dense_shape.get_shape().as_list() == [2]
                with tf.Session() as s:
                    got = s.run(out)
                idx, vals, shape = ref()
                np.testing.assert_array_equal(got.indices, idx)
                np.testing.assert_array_equal(got.values, vals.astype(dt.as_numpy_dtype))
                assert got.values.dtype == dt.as_numpy_dtype
                np.testing.assert_array_equal(got.dense_shape, shape)

    return check


def _check_set_size():
    with tf.Graph().as_default():
        sp3 = _sp([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 2], [1, 0, 3]], [5, 1, 7, 7, 7],
                  [2, 2, 4])
        n = tf.sets.size(sp3)
        strs = tf.sets.set_size(_sp([[0, 0], [0, 1], [2, 0]], ["x", "y", "x"], [3, 2]))
        with tf.Session() as s:
            np.testing.assert_array_equal(s.run(n), [[2, 1], [1, 0]])
            np.testing.assert_array_equal(s.run(strs), [2, 0, 1])
            assert s.run(n).dtype == np.int32
        with pytest.raises(TypeError, match="SparseTensor"):
            tf.sets.set_size(tf.constant([[1, 2]]))
        with pytest.raises(TypeError, match="dtype"):
            tf.sets.set_union(tf.constant([[1.0]]), tf.constant([[2.0]]))


def _check_set_errors_and_strings():
    with tf.Graph().as_default():
        s = tf.sets.set_union(tf.constant([["a", "b"], ["c", "c"]]),
                              tf.constant([["b", ""], ["", ""]]))
        with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal"):
            tf.sets.set_union(tf.constant([[1, 2]]), tf.constant([[1], [2]]))
        # group shapes unknown until run time: the kernel's check
        bad = tf.sets.set_union(tf.placeholder_with_default([[1, 2]], [None, None]),
                                tf.constant([[1], [2]]))
        with tf.Session() as sess:
            got = sess.run(s)
            assert got.values.tolist() == [b"", b"a", b"b", b"", b"c"]
            np.testing.assert_array_equal(got.dense_shape, [2, 3])
            with pytest.raises(tf.errors.InvalidArgumentError, match="Mismatched shapes"):
                sess.run(bad)
        with pytest.raises(ValueError, match="rank 2"):
            tf.sets.set_union(tf.constant([1]), tf.constant([1]))
        # Sparse, Dense is flipped to Dense, Sparse (and a - b becomes b - a)
        d = tf.sets.set_difference(_sp([[0, 0]], [5], [1, 2]), tf.constant([[1, 2]]))
        assert d.indices.op.type == "DenseToSparseSetOperation"
        assert d.indices.op.get_attr("set_operation") == b"b-a"


CASES = [
    Case("BitwiseAnd", tf.bitwise.bitwise_and, [_a, _b], np.bitwise_and, dtypes=INTS,
         grad=False),
    Case("BitwiseOr", tf.bitwise.bitwise_or, [_a, _b[0]], np.bitwise_or, dtypes=INTS,
         grad=False),
    Case("BitwiseXor", tf.bitwise.bitwise_xor, [_a, _b], np.bitwise_xor, dtypes=INTS,
         grad=False),
    Case("Invert", tf.bitwise.invert, [_a], np.invert, dtypes=INTS, grad=False),
    Case("LeftShift", tf.bitwise.left_shift, [_a, np.array([[0, 3, 7, 9], [1, 70, 2, 15]])],
         _shift_ref(True), dtypes=INTS, grad=False),
    Case("RightShift", tf.bitwise.right_shift, [_a, np.array([[0, 3, 7, 9], [1, 70, 2, 15]])],
         _shift_ref(False), dtypes=INTS, grad=False),
    Case("LeftShift", tf.bitwise.left_shift,
         [np.array([1, -8, 5, -1, 7]), np.array([-1, 0, 7, 9, 100])], _shift_ref(True),
         dtypes=(tf.int8, tf.int32, tf.int64), grad=False, name="LeftShift_signed_clamped"),
    Case("RightShift", tf.bitwise.right_shift,
         [np.array([1, -8, 5, -1, -128]), np.array([-1, 2, 7, 9, 100])], _shift_ref(False),
         dtypes=(tf.int8, tf.int16), grad=False, name="RightShift_arithmetic_clamped"),
    Case("SetSize", check=_check_set_size),
    Case("DenseToDenseSetOperation", check=_sets_rows("intersection", False, False)),
    Case("DenseToDenseSetOperation", check=_sets_rows("a-b", False, False),
         name="DenseToDenseSetOperation_difference"),
    Case("DenseToDenseSetOperation", check=_check_set_errors_and_strings,
         name="DenseToDenseSetOperation_strings_errors"),
    Case("DenseToSparseSetOperation", check=_sets_rows("union", False, True)),
    Case("SparseToSparseSetOperation", check=_sets_rows("a-b", True, True)),
    Case("SparseToSparseSetOperation", check=_sets_rows("intersection", True, True),
         name="SparseToSparseSetOperation_intersection"),
]
