"""tf.RaggedTensor and tf.ragged in graph mode: the factories and their run-time validation,
dense/sparse conversions, indexing, fetched RaggedTensorValues, tf.ragged.constant/range, and
the dense ops that take ragged arguments (element-wise math, reductions, concat/stack, gather,
boolean_mask), each checked against Python lists or NumPy; gradients with respect to the flat
values against float64 central differences."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.framework import errors

ROWS = [[1.0, 2.0], [], [3.0, 4.0, 5.0], [6.0]]


def _run(x, feed=None):
    with tf.Session() as sess:
        return sess.run(x, feed)


def _splits(rows):
    out = [0]
    for r in rows:
        out.append(out[-1] + len(r))
    return out


def _flat(rows):
    return [v for r in rows for v in r]


def _pad(rows, default=0.0):
    width = max([len(r) for r in rows] + [0])
    return np.array([list(r) + [default] * (width - len(r)) for r in rows])


def _invalid(build, fragment):
    """TF checks constant arguments while building and the others when run."""
    with pytest.raises(errors.InvalidArgumentError, match=fragment):
        _run(build())


# ------------------------------------------------------------------ factories


def test_factories_agree_with_the_python_lists():
    values = _flat(ROWS)
    lengths = [len(r) for r in ROWS]
    splits = _splits(ROWS)
    rowids = [i for i, r in enumerate(ROWS) for _ in r]
    R = tf.RaggedTensor
    built = [
        R.from_row_splits(values, splits),
        R.from_row_lengths(values, lengths),
        R.from_value_rowids(values, rowids, nrows=len(ROWS)),
        R.from_row_starts(values, splits[:-1]),
        R.from_row_limits(values, splits[1:]),
    ]
    for rt in built:
        assert rt.shape.as_list()[1] is None and rt.ragged_rank == 1
        assert rt.row_splits.dtype == tf.int64 and rt.dtype == tf.float32
        v = _run(rt)
        assert isinstance(v, tf.ragged.RaggedTensorValue)
        assert v.to_list() == ROWS
        np.testing.assert_array_equal(v.row_splits, splits)
    assert built[0].shape.as_list() == [4, None]


def test_value_rowids_trailing_empty_rows_and_default_nrows():
    v = _run(tf.RaggedTensor.from_value_rowids([1, 2, 3], [0, 2, 2], nrows=5))
    assert v.to_list() == [[1], [], [2, 3], [], []]
    v = _run(tf.RaggedTensor.from_value_rowids([1, 2, 3], [0, 2, 2]))
    assert v.to_list() == [[1], [], [2, 3]]
    with pytest.raises(ValueError, match=r"Expected nrows >= value_rowids\[-1\] \+ 1"):
        tf.RaggedTensor.from_value_rowids([1, 2, 3], [0, 2, 2], nrows=2)


def test_nested_factories_and_accessors():
    rows = [[[1, 2], [3]], [], [[4, 5, 6]]]
    outer, inner = [0, 2, 2, 3], [0, 2, 3, 6]
    rt = tf.RaggedTensor.from_nested_row_splits([1, 2, 3, 4, 5, 6], [outer, inner])
    rt2 = tf.RaggedTensor.from_nested_row_lengths([1, 2, 3, 4, 5, 6], [[2, 0, 1], [2, 1, 3]])
    assert rt.ragged_rank == 2 and rt.shape.as_list() == [3, None, None]
    assert len(rt.nested_row_splits) == 2
    v, v2 = _run([rt, rt2])
    assert v.to_list() == rows and v2.to_list() == rows
    assert v.ragged_rank == 2 and v.shape == (3, None, None) and v.dtype == np.int32
    np.testing.assert_array_equal(v.flat_values, [1, 2, 3, 4, 5, 6])
    np.testing.assert_array_equal(v.nested_row_splits[1], inner)
    got = _run([rt.row_lengths(), rt.nrows(), rt.value_rowids(), rt.row_starts(),
                rt.row_limits(), rt.values.value_rowids(), rt.row_lengths(axis=2).values])
    np.testing.assert_array_equal(got[0], [2, 0, 1])
    assert got[1] == 3
    np.testing.assert_array_equal(got[2], [0, 0, 2])
    np.testing.assert_array_equal(got[3], [0, 2, 2])
    np.testing.assert_array_equal(got[4], [2, 2, 3])
    np.testing.assert_array_equal(got[5], [0, 0, 1, 2, 2, 2])
    np.testing.assert_array_equal(got[6], [2, 1, 3])


def test_int32_row_splits_and_dtype_errors():
    rt = tf.RaggedTensor.from_row_splits([1, 2, 3], np.array([0, 1, 3], np.int32))
    assert rt.row_splits.dtype == tf.int32
    assert _run(rt.nrows()).dtype == np.int32
    with pytest.raises(ValueError, match="row_splits must have dtype int32 or int64"):
        tf.RaggedTensor.from_row_splits([1, 2, 3], [0.0, 3.0])
    with pytest.raises(ValueError, match=r"must have rank 1"):
        tf.RaggedTensor.from_row_splits([1, 2, 3], [[0, 3]])
    with pytest.raises(ValueError, match="dtype mismatch"):
        tf.RaggedTensor.from_row_splits(rt, tf.constant([0, 2], tf.int64))
    with pytest.raises(TypeError, match="validate must have type bool"):
        tf.RaggedTensor.from_row_splits([1], [0, 1], validate=1)
    with pytest.raises(ValueError, match="constructor is private"):
        tf.RaggedTensor(tf.constant([1]), tf.constant([0, 1], tf.int64))


@pytest.mark.parametrize("build,fragment", [
    (lambda v: tf.RaggedTensor.from_row_splits(v, [0, 2, 2, 5]), "from_row_splits"),
    (lambda v: tf.RaggedTensor.from_row_splits(v, [1, 2, 3]), "from_row_splits"),
    (lambda v: tf.RaggedTensor.from_row_splits(v, [0, 3, 2, 3]), "from_row_splits"),
    (lambda v: tf.RaggedTensor.from_row_lengths(v, [1, 1]), "from_row_lengths"),
    (lambda v: tf.RaggedTensor.from_row_lengths(v, [4, -1]), "from_row_lengths"),
    (lambda v: tf.RaggedTensor.from_value_rowids(v, [0, 2, 1]), "from_value_rowids"),
    (lambda v: tf.RaggedTensor.from_row_starts(v, [1, 2]), "from_row_starts"),
    (lambda v: tf.RaggedTensor.from_row_limits(v, [1, 2]), "from_row_limits"),
])
def test_invalid_partitions_fail_as_tf(build, fragment):
    msg = f"Arguments to {fragment} do not form a valid RaggedTensor"
    _invalid(lambda: build([1, 2, 3]), msg)
    # and at run time when the values' size is only known then
    fed = tf.placeholder_with_default([1, 2, 3], [None])
    _invalid(lambda: build(fed), msg)


def test_validate_false_skips_the_checks():
    with tf.Graph().as_default() as g:
        rt = tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 1, 3], validate=False)
        assert not [op for op in g.get_operations() if op.type == "Assert"]
        assert _run(rt).to_list() == [[1], [2, 3]]


# ------------------------------------------------------------------ conversions


def test_from_tensor_lengths_padding_and_ragged_rank():
    dense = [[1, 0, 0], [2, 3, 0], [0, 0, 0]]
    R = tf.RaggedTensor
    assert _run(R.from_tensor(dense)).to_list() == dense
    assert _run(R.from_tensor(dense, padding=0)).to_list() == [[1], [2, 3], []]
    # lengths past the width are cut to it, as TF
    assert _run(R.from_tensor(dense, lengths=[1, 2, 4])).to_list() == [[1], [2, 3],
                                                                        [0, 0, 0]]
    cube = [[[1, 0], [0, 0]], [[2, 3], [4, 0]]]
    rt2 = R.from_tensor(cube, padding=0, ragged_rank=2)
    assert rt2.ragged_rank == 2
    assert _run(rt2).to_list() == [[[1], []], [[2, 3], [4]]]
    rt1 = R.from_tensor(cube, padding=[0, 0])
    assert rt1.shape.as_list() == [2, None, 2]
    assert _run(rt1).to_list() == [[[1, 0]], [[2, 3], [4, 0]]]
    assert R.from_tensor(cube, ragged_rank=2).shape.as_list() == [2, None, None]
    with pytest.raises(ValueError, match="Specify lengths or padding, but not both"):
        R.from_tensor(dense, lengths=[1, 1, 1], padding=0)
    with pytest.raises(ValueError, match="must have rank at least 2"):
        R.from_tensor([1, 2])
    with pytest.raises(ValueError, match="are incompatible"):
        R.from_tensor(cube, padding=0)


def test_to_tensor_to_sparse_bounding_shape():
    rt = tf.ragged.constant(ROWS)
    got = _run([rt.to_tensor(), rt.to_tensor(default_value=-1.0), rt.bounding_shape()])
    np.testing.assert_array_equal(got[0], _pad(ROWS))
    np.testing.assert_array_equal(got[1], _pad(ROWS, -1.0))
    np.testing.assert_array_equal(got[2], [4, 3])
    st = _run(rt.to_sparse())
    expect_idx = [[i, j] for i, r in enumerate(ROWS) for j in range(len(r))]
    np.testing.assert_array_equal(st.indices, expect_idx)
    np.testing.assert_array_equal(st.values, _flat(ROWS))
    np.testing.assert_array_equal(st.dense_shape, [4, 3])
    rows3 = [[[1, 2], [3]], [], [[4, 5, 6]]]
    rt3 = tf.ragged.constant(rows3)
    dense3, st3 = _run([rt3.to_tensor(-1), rt3.to_sparse()])
    expect = -np.ones((3, 2, 3), np.int32)
    for i, r in enumerate(rows3):
        for j, c in enumerate(r):
            expect[i, j, :len(c)] = c
    np.testing.assert_array_equal(dense3, expect)
    np.testing.assert_array_equal(
        st3.indices, [[i, j, k] for i, r in enumerate(rows3) for j, c in enumerate(r)
                      for k in range(len(c))])
    empty = tf.RaggedTensor.from_row_splits(tf.zeros([0]), tf.constant([0], tf.int64))
    np.testing.assert_array_equal(_run(empty.bounding_shape()), [0, 0])
    words = tf.ragged.constant([["a"], ["b", "c"]])
    np.testing.assert_array_equal(_run(words.to_tensor()), [[b"a", b""], [b"b", b"c"]])


def test_uniform_inner_dims_to_sparse_and_tensor():
    rt = tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    assert rt.shape.as_list() == [2, None, 2]
    dense, st = _run([rt.to_tensor(), rt.to_sparse()])
    np.testing.assert_array_equal(dense, [[[1, 2], [3, 4]], [[5, 6], [0, 0]]])
    np.testing.assert_array_equal(st.indices, [[0, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 1],
                                               [1, 0, 0], [1, 0, 1]])
    np.testing.assert_array_equal(st.values, [1, 2, 3, 4, 5, 6])


def test_from_sparse():
    st = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], [1, 2, 3], [4, 3])
    assert _run(tf.RaggedTensor.from_sparse(st)).to_list() == [[1, 2], [], [3], []]
    bad = tf.SparseTensor([[0, 0], [0, 2], [2, 0]], [1, 2, 3], [4, 3])
    _invalid(lambda: tf.RaggedTensor.from_sparse(bad), "SparseTensor is not right-ragged")
    with pytest.raises(ValueError, match=r"rank\(st_input\) must be 2"):
        tf.RaggedTensor.from_sparse(tf.SparseTensor([[0, 0, 0]], [1], [1, 1, 1]))
    with pytest.raises(TypeError, match="st_input must be a SparseTensor"):
        tf.RaggedTensor.from_sparse([[1]])


def test_ragged_tensor_does_not_convert_to_a_tensor():
    rt = tf.ragged.constant([[1], [2, 3]])
    with pytest.raises(TypeError, match="Failed to convert object of type"):
        tf.convert_to_tensor(rt)
    with pytest.raises(TypeError):
        tf.shape(rt)


# ------------------------------------------------------------------ indexing


def test_getitem():
    rt = tf.ragged.constant([[1, 2], [], [3, 4, 5]])
    rows = [[1, 2], [], [3, 4, 5]]
    got = _run([rt[1], rt[-1], rt[2, 1], rt[1:], rt[::2], rt[:, 1:], rt[:, -2:], rt[:, :1]])
    np.testing.assert_array_equal(got[0], [])
    np.testing.assert_array_equal(got[1], [3, 4, 5])
    assert got[2] == 4
    assert got[3].to_list() == rows[1:]
    assert got[4].to_list() == rows[::2]
    assert got[5].to_list() == [r[1:] for r in rows]
    assert got[6].to_list() == [r[-2:] for r in rows]
    assert got[7].to_list() == [r[:1] for r in rows]
    with pytest.raises(ValueError, match="Cannot index into an inner ragged dimension."):
        rt[:, 1]
    with pytest.raises(ValueError, match="out of bounds"):
        rt[5]
    with pytest.raises(ValueError, match="Too many indices"):
        rt[0, 0, 0]
    rt3 = tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6]]])
    got = _run([rt3[0], rt3[2, 0], rt3[:, :, 1:], rt3[1:]])
    assert got[0].to_list() == [[1, 2], [3]]
    np.testing.assert_array_equal(got[1], [4, 5, 6])
    assert got[2].to_list() == [[[2], []], [], [[5, 6]]]
    assert got[3].to_list() == [[], [[4, 5, 6]]]
    inner = tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    col = inner[:, :, 1]
    assert col.shape.as_list() == [2, None]
    assert _run(col).to_list() == [[2, 4], [6]]


# ------------------------------------------------------------------ tf.ragged functions


def test_constant_and_constant_value():
    assert tf.ragged.constant([[], []]).shape.as_list() == [2, None]
    assert tf.ragged.constant([[], []]).dtype == tf.float32
    assert isinstance(tf.ragged.constant([1, 2]), tf.Tensor)
    words = tf.ragged.constant([["a"], ["b", "c"]])
    assert words.dtype == tf.string
    assert _run(words).to_list() == [[b"a"], [b"b", b"c"]]
    rt = tf.ragged.constant([[1, 2], [3]], dtype=tf.float64, row_splits_dtype=tf.int32)
    assert rt.dtype == tf.float64 and rt.row_splits.dtype == tf.int32
    assert tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]],
                              inner_shape=(2,)).shape.as_list() == [2, None, 2]
    assert tf.ragged.constant([[[], []], [[]]]).ragged_rank == 2
    with pytest.raises(ValueError, match="all scalar values must have the same nesting depth"):
        tf.ragged.constant([[1, [2]], [3]])
    with pytest.raises(ValueError, match="requires scalar value depth greater than 2"):
        tf.ragged.constant([[1, 2], [3]], ragged_rank=2)
    with pytest.raises(ValueError, match="inner values have inconsistent shape"):
        tf.ragged.constant([[[1], [2, 3]], [[3]]], ragged_rank=1)
    with pytest.raises(TypeError, match="Expected Tensor's shape"):
        tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], inner_shape=(3,))
    v = tf.ragged.constant_value([[1, 2], [3]])
    assert isinstance(v, tf.ragged.RaggedTensorValue)
    assert v.to_list() == [[1, 2], [3]] and v.row_splits.dtype == np.int64
    v = tf.ragged.constant_value([[[1], [2]], [[3]]], ragged_rank=1)
    assert v.values.shape == (3, 1)


def test_range_and_segment_ids():
    def ref(starts, limits, deltas):
        return [list(np.arange(s, l, d)) for s, l, d in zip(starts, limits, deltas)]

    got = _run([tf.ragged.range([3, 5], [6, 4], [1, -1]), tf.ragged.range([3, 0]),
                tf.ragged.range(0.5, [2.0, 3.0], 0.5), tf.ragged.range([0, 10], 3, [4, -3])])
    assert got[0].to_list() == ref([3, 5], [6, 4], [1, -1])
    assert got[1].to_list() == [[0, 1, 2], []]
    np.testing.assert_allclose(got[2].flat_values, np.r_[np.arange(0.5, 2.0, 0.5),
                                                         np.arange(0.5, 3.0, 0.5)])
    assert got[3].to_list() == ref([0, 10], [3, 3], [4, -3])
    assert tf.ragged.range([3, 5], [6, 4]).shape.as_list() == [2, None]
    _invalid(lambda: tf.ragged.range([1], [3], [0]), "Requires delta != 0")
    got = _run([tf.ragged.row_splits_to_segment_ids([0, 2, 2, 5]),
                tf.ragged.segment_ids_to_row_splits([0, 0, 2, 2, 2]),
                tf.ragged.segment_ids_to_row_splits([0, 0, 2], num_segments=5)])
    np.testing.assert_array_equal(got[0], [0, 0, 2, 2, 2])
    np.testing.assert_array_equal(got[1], [0, 2, 2, 5])
    np.testing.assert_array_equal(got[2], [0, 2, 2, 3, 3, 3])


def test_map_flat_values_and_mismatched_splits():
    rt = tf.ragged.constant(ROWS)
    out = tf.ragged.map_flat_values(tf.multiply, rt, 2.0)
    assert _run(out).to_list() == [[2 * v for v in r] for r in ROWS]
    other = tf.ragged.constant([[1.0], [2.0, 3.0], [4.0, 5.0, 6.0], []])
    with pytest.raises(errors.InvalidArgumentError,
                       match="Inputs must have identical ragged splits"):
        _run(tf.ragged.map_flat_values(tf.add, rt, other))


def test_placeholder_fed_with_a_value():
    ph = tf.ragged.placeholder(tf.float32, 1, [])
    assert ph.shape.as_list() == [None, None]
    out = tf.reduce_sum(ph, axis=1)
    got = _run(out, {ph: tf.ragged.constant_value(ROWS, dtype=np.float32)})
    np.testing.assert_allclose(got, [sum(r) for r in ROWS])


def test_boolean_mask_and_stack_dynamic_partitions():
    rt = tf.ragged.constant(ROWS)
    got = _run([tf.ragged.boolean_mask(rt, rt > 1.5),
                tf.ragged.boolean_mask(rt, [True, False, True, False]),
                tf.boolean_mask(rt, [True, False, True, False]),
                tf.ragged.boolean_mask([[1, 2], [3, 4]], [[True, False], [True, True]])])
    assert got[0].to_list() == [[v for v in r if v > 1.5] for r in ROWS]
    assert got[1].to_list() == [ROWS[0], ROWS[2]]
    assert got[2].to_list() == [ROWS[0], ROWS[2]]
    assert got[3].to_list() == [[1], [3, 4]]
    parts = _run(tf.ragged.stack_dynamic_partitions([1, 2, 3, 4, 5], [2, 0, 2, 1, 0], 4))
    assert parts.to_list() == [[2, 5], [4], [1, 3], []]


# ------------------------------------------------------------------ dispatched dense ops


def test_elementwise_ops_and_operators():
    rt = tf.ragged.constant(ROWS)
    flat = np.array(_flat(ROWS), np.float32)
    splits = _splits(ROWS)
    cases = [
        (rt + 1, flat + 1), (rt * rt, flat * flat), (2.0 * rt, 2 * flat),
        (tf.constant(2.0) - rt, 2 - flat), (tf.exp(rt), np.exp(flat)), (-rt, -flat),
        (abs(-rt), flat), (tf.square(rt), flat ** 2), (tf.sqrt(rt), np.sqrt(flat)),
        (tf.math.log(rt), np.log(flat)), (tf.cast(rt, tf.int32), flat.astype(np.int32)),
        (rt > 2.0, flat > 2), (tf.equal(rt, 3.0), flat == 3), (rt / 2.0, flat / 2),
        (tf.maximum(rt, 3.0), np.maximum(flat, 3)),
        (rt + tf.constant([[1.0], [2.0], [3.0], [4.0]]),
         flat + np.repeat([1.0, 2.0, 3.0, 4.0], np.diff(splits))),
        (rt + tf.ragged.constant([[1.0, 1.0], [], [2.0, 2.0, 2.0], [3.0]]),
         flat + np.array([1, 1, 2, 2, 2, 3])),
    ]
    results = _run([c[0] for c in cases])
    for (_, expect), got in zip(cases, results):
        np.testing.assert_allclose(got.flat_values, expect, rtol=1e-6)
        np.testing.assert_array_equal(got.row_splits, splits)
        assert got.flat_values.dtype == np.asarray(expect).dtype or expect.dtype == np.float64
    with pytest.raises(ValueError, match="Unable to broadcast"):
        rt + tf.constant([1.0, 2.0, 3.0, 4.0])


def test_reductions_match_numpy():
    rt = tf.ragged.constant(ROWS)
    rows = [np.array(r, np.float32) for r in ROWS]
    lowest = np.finfo(np.float32).min
    cols = [np.array([r[j] for r in ROWS if len(r) > j], np.float32) for j in range(3)]
    cases = [
        (tf.reduce_sum(rt, axis=1), [r.sum() for r in rows]),
        (tf.reduce_prod(rt, axis=1), [r.prod() for r in rows]),
        (tf.reduce_max(rt, axis=1), [r.max() if r.size else lowest for r in rows]),
        (tf.reduce_min(rt, axis=-1), [r.min() if r.size else np.finfo(np.float32).max
                                      for r in rows]),
        (tf.reduce_sum(rt, axis=0), [c.sum() for c in cols]),
        (tf.reduce_mean(rt, axis=0), [c.mean() for c in cols]),
        (tf.reduce_max(rt, axis=0), [c.max() for c in cols]),
        (tf.reduce_sum(rt), np.sum(_flat(ROWS))),
        (tf.reduce_mean(rt), np.mean(_flat(ROWS))),
        (tf.reduce_sum(rt, axis=[0, 1]), np.sum(_flat(ROWS))),
        (tf.reduce_sum(rt, axis=1, keepdims=True), [[r.sum()] for r in rows]),
        (tf.reduce_sum(rt, keepdims=True), [[np.sum(_flat(ROWS))]]),
    ]
    got = _run([c[0] for c in cases])
    for (t, expect), g in zip(cases, got):
        np.testing.assert_allclose(g, expect, rtol=1e-6)
        assert t.shape.is_compatible_with(np.shape(g))
    means = _run(tf.reduce_mean(rt, axis=1))
    assert np.isnan(means[1])
    np.testing.assert_allclose(means[[0, 2, 3]], [1.5, 4.0, 6.0])
    flags = tf.ragged.constant([[True, False], [], [True]])
    np.testing.assert_array_equal(_run(tf.reduce_all(flags, axis=1)), [False, True, True])
    np.testing.assert_array_equal(_run(tf.reduce_any(flags, axis=1)), [True, False, True])
    imax = _run(tf.reduce_max(tf.ragged.constant([[1, 2], []]), axis=1))
    np.testing.assert_array_equal(imax, [2, np.iinfo(np.int32).min])


def test_reductions_of_two_ragged_dimensions():
    rows = [[[1, 2], [3]], [], [[4, 5, 6]]]
    rt = tf.ragged.constant(rows)
    a2, a1, a0 = _run([tf.reduce_sum(rt, axis=2), tf.reduce_sum(rt, axis=1),
                       tf.reduce_sum(rt, axis=0)])

    def add_padded(lists):
        width = max([len(x) for x in lists] + [0])
        return [sum(x[k] for x in lists if len(x) > k) for k in range(width)]

    assert a2.to_list() == [[sum(c) for c in r] for r in rows]
    assert a1.to_list() == [add_padded(r) for r in rows]
    width = max(len(r) for r in rows)
    assert a0.to_list() == [add_padded([r[j] for r in rows if len(r) > j])
                            for j in range(width)]


def test_concat_stack_gather_size_rank():
    a = tf.ragged.constant([[1.0, 2.0], [], [3.0, 4.0, 5.0]])
    b = tf.ragged.constant([[6.0], [7.0, 8.0], []])
    la = [[1.0, 2.0], [], [3.0, 4.0, 5.0]]
    lb = [[6.0], [7.0, 8.0], []]
    ops_ = [tf.concat([a, b], axis=0), tf.concat([a, b], axis=1), tf.stack([a, b], axis=0),
            tf.stack([a, b], axis=1),
            tf.concat([a, tf.constant([[9.0], [10.0], [11.0]])], axis=1),
            tf.gather(a, [2, 0]), tf.gather(a, [[2, 0], [1, 1]]),
            tf.gather(a, tf.ragged.constant([[2, 0], [1]])), tf.size(a), tf.rank(a)]
    got = _run(ops_)
    assert got[0].to_list() == la + lb
    assert got[1].to_list() == [x + y for x, y in zip(la, lb)]
    assert got[2].to_list() == [la, lb]
    assert got[3].to_list() == [[x, y] for x, y in zip(la, lb)]
    assert got[4].to_list() == [x + [z] for x, z in zip(la, [9.0, 10.0, 11.0])]
    assert got[5].to_list() == [la[2], la[0]]
    assert got[6].to_list() == [[la[2], la[0]], [la[1], la[1]]]
    assert got[7].to_list() == [[la[2], la[0]], [la[1]]]
    assert got[8] == 5 and got[9] == 2
    assert ops_[2].shape.as_list() == [2, None, None]
    assert ops_[3].shape.as_list() == [3, None, None]
    assert ops_[1].shape.as_list() == [3, None]
    short = tf.ragged.constant([[1.0]])
    with pytest.raises(errors.InvalidArgumentError, match="incompatible shapes"):
        _run(tf.concat([a, short], axis=1))


# ------------------------------------------------------------------ gradients


def _numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        d = np.zeros_like(x)
        d.flat[i] = eps
        g.flat[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


@pytest.mark.parametrize("loss_fn", [
    lambda rt: tf.reduce_sum(tf.reduce_sum(tf.ragged.map_flat_values(tf.square, rt),
                                           axis=1) * tf.constant([1.0, 2.0, 3.0, 4.0],
                                                                 tf.float64)),
    lambda rt: tf.reduce_sum(tf.sin(rt.to_tensor(default_value=0.5)) ** 2),
    lambda rt: tf.reduce_sum(tf.reduce_max(rt * rt, axis=1)[0::2]),
    lambda rt: tf.reduce_sum(tf.reduce_mean(tf.exp(rt), axis=0)),
    lambda rt: tf.reduce_sum(tf.concat([rt, rt[:, 1:]], axis=1).values * 3.0),
    lambda rt: tf.reduce_sum(tf.gather(rt, [2, 0, 2]).values ** 3),
    lambda rt: tf.reduce_sum(tf.ragged.boolean_mask(rt, rt > 0.0).values * 5.0),
    lambda rt: tf.reduce_sum(rt.to_sparse().values * tf.range(6, dtype=tf.float64)),
    lambda rt: tf.reduce_sum(tf.reduce_max(tf.RaggedTensor.from_row_splits(rt, [0, 2, 4]),
                                           axis=1).values ** 2),
    lambda rt: tf.reduce_sum(tf.where(rt > 0.5, rt * rt, -rt).values),
])
def test_gradients_wrt_flat_values(loss_fn):
    """(the fourth to last case nests the rows: a ragged_rank 2 reduction)"""
    x0 = np.array([0.3, -1.2, 0.7, 1.1, -0.4, 0.9])
    splits = _splits(ROWS)
    x = tf.placeholder(tf.float64, [6])
    rt = tf.RaggedTensor.from_row_splits(x, splits)
    loss = loss_fn(rt)
    (grad,) = tf.gradients(loss, [x])
    if isinstance(grad, tf.IndexedSlices):  # a gather of the values, as TF
        grad = tf.unsorted_segment_sum(grad.values, grad.indices, 6)
    with tf.Session() as sess:
        g = sess.run(grad, {x: x0})
        numeric = _numeric_grad(lambda v: sess.run(loss, {x: v}), x0)
    np.testing.assert_allclose(g, numeric, rtol=1e-6, atol=1e-8)


def test_ragged_stack_merge_dims_consumers_and_int_mean():
    rt = tf.ragged.constant([[1, 2], [], [3, 4, 5]])
    r2 = tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6]]])
    dense = tf.ragged.stack([[1, 2], [3, 4]], axis=1)
    assert isinstance(dense, tf.Tensor)
    got = _run([tf.ragged.stack([rt, rt]), tf.ragged.stack([rt], axis=1), dense,
                r2.merge_dims(0, 1), r2.merge_dims(1, 2), r2.merge_dims(0, 2),
                tf.reduce_mean(rt, axis=1), tf.reduce_mean(rt)])
    rows = [[1, 2], [], [3, 4, 5]]
    assert got[0].to_list() == [rows, rows]
    assert got[1].to_list() == [[r] for r in rows]
    np.testing.assert_array_equal(got[2], [[1, 3], [2, 4]])
    assert got[3].to_list() == [[1, 2], [3], [4, 5, 6]]
    assert got[4].to_list() == [[1, 2, 3], [], [4, 5, 6]]
    np.testing.assert_array_equal(got[5], [1, 2, 3, 4, 5, 6])
    # as TF: the mean of int rows is sum / count in float64
    assert got[6].dtype == np.float64 and got[7].dtype == np.float64
    np.testing.assert_allclose(got[6][[0, 2]], [1.5, 4.0])
    assert got[7] == 3.0
    with tf.Graph().as_default():
        rt = tf.ragged.constant([[1, 2], [3]])
        out = rt + 1
        assert out.flat_values.op in rt.consumers()
    inner = tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    assert _run(inner.merge_dims(1, 2)).to_list() == [[1, 2, 3, 4], [5, 6]]


def test_empty_ragged_tensors():
    e = tf.RaggedTensor.from_row_splits(tf.zeros([0]), tf.constant([0], tf.int64))
    got = _run([e.to_tensor(), tf.reduce_sum(e, axis=1), tf.reduce_sum(e, axis=0),
                e.to_sparse(), tf.concat([e, e], axis=1), e[1:], e + 1.0,
                tf.gather(tf.ragged.constant([[1]]), tf.zeros([0], tf.int32)),
                tf.RaggedTensor.from_value_rowids(tf.zeros([0]), tf.zeros([0], tf.int64),
                                                  nrows=2),
                tf.ragged.segment_ids_to_row_splits(tf.zeros([0], tf.int64), num_segments=2)])
    assert got[0].shape == (0, 0)
    assert got[1].shape == (0,) and got[2].shape == (0,)
    assert got[3].indices.shape == (0, 2)
    for v in got[4:8]:
        assert v.to_list() == []
    assert got[8].to_list() == [[], []]
    np.testing.assert_array_equal(got[9], [0, 0, 0])


def test_more_elementwise_functions_keep_the_partition():
    rt = tf.ragged.constant([[0.5, 0.2], [], [0.3]])
    words = tf.ragged.constant([[" ab ", "Cd"], []])
    flat = np.array([0.5, 0.2, 0.3], np.float32)
    cases = [
        (tf.tanh(rt), np.tanh(flat)), (tf.sigmoid(rt), 1 / (1 + np.exp(-flat))),
        (tf.math.asinh(rt), np.arcsinh(flat)), (tf.round(rt * 4), np.round(flat * 4)),
        (tf.clip_by_value(rt, 0.25, 0.45), np.clip(flat, 0.25, 0.45)),
        (tf.zeros_like(rt), np.zeros(3)), (tf.ones_like(rt), np.ones(3)),
        (tf.identity(rt), flat), (tf.math.log_sigmoid(rt), -np.log1p(np.exp(-flat))),
        (tf.div_no_nan(rt, rt * 0), np.zeros(3)),
        (tf.where(rt > 0.25, rt, -rt), np.where(flat > 0.25, flat, -flat)),
        (tf.saturate_cast(rt * 10, tf.int32), (flat * 10).astype(np.int32)),
    ]
    got = _run([c[0] for c in cases])
    for (_, expect), g in zip(cases, got):
        np.testing.assert_allclose(g.flat_values, expect, rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(g.row_splits, [0, 2, 2, 3])
    with pytest.raises(TypeError):  # TF 1.15 dispatches no StringUpper for a RaggedTensor
        tf.strings.upper(words)
    got = _run([tf.strings.strip(words), tf.strings.regex_replace(words, " ", ""),
                tf.strings.length(words),
                tf.strings.substr(words, 0, 2), tf.strings.regex_replace(words, "[a-d]", "x"),
                tf.strings.regex_full_match(words, ".*d.*"), tf.as_string(tf.ragged.constant(
                    [[1], [2, 3]]))])
    assert got[0].to_list() == [[b"ab", b"Cd"], []]
    assert got[1].to_list() == [[b"ab", b"Cd"], []]
    assert got[2].to_list() == [[4, 2], []]
    assert got[3].to_list() == [[b" a", b"Cd"], []]
    assert got[4].to_list() == [[b" xx ", b"Cx"], []]
    assert got[5].to_list() == [[False, True], []]
    assert got[6].to_list() == [[b"1"], [b"2", b"3"]]
    with pytest.raises(errors.InvalidArgumentError, match="bad"):
        _run(tf.debugging.check_numerics(rt / 0.0, "bad") if hasattr(tf, "debugging")
             else tf.check_numerics(rt / 0.0, "bad"))


def test_cross_and_cross_hashed():
    a = tf.ragged.constant([["a", "b"], ["c"]])
    b = tf.ragged.constant([["x"], ["y", "z"]])
    d = tf.constant([["d"], ["e"]])
    sp = tf.SparseTensor([[0, 0], [1, 0]], ["p", "q"], [2, 1])
    crossed = tf.ragged.cross([a, b])
    assert crossed.shape.as_list() == [2, None]
    got = _run([crossed, tf.ragged.cross([a, d]), tf.ragged.cross([a, sp]),
                tf.ragged.cross_hashed([a, b], num_buckets=10)])
    # every combination of one value per input, the first input's value varying slowest
    assert got[0].to_list() == [[b"a_X_x", b"b_X_x"], [b"c_X_y", b"c_X_z"]]
    assert got[1].to_list() == [[b"a_X_d", b"b_X_d"], [b"c_X_e"]]
    assert got[2].to_list() == [[b"a_X_p", b"b_X_p"], [b"c_X_q"]]
    np.testing.assert_array_equal(got[3].row_splits, [0, 2, 4])
    # FingerprintCat64 buckets as real TF computes them for these crosses
    np.testing.assert_array_equal(got[3].flat_values, [2, 4, 0, 0])


def test_two_ragged_dimensions_through_dispatched_ops():
    rows = [[[1, 2], [3]], [], [[4, 5, 6]]]
    rt = tf.ragged.constant(rows)
    flat_rt = tf.ragged.constant([[1, 2], [], [3, 4, 5]])
    got = _run([tf.reduce_sum(rt, axis=2, keepdims=True), tf.reduce_mean(rt, axis=0),
                tf.reduce_max(rt, axis=1), tf.ragged.boolean_mask(rt, rt > 2),
                tf.stack([rt, rt], axis=2), tf.concat([rt, rt], axis=2),
                flat_rt[:, :tf.constant(1)], flat_rt[tf.constant(-1)], tf.gather(rt, [2, 0])])
    assert got[0].to_list() == [[[sum(c)] for c in r] for r in rows]
    assert got[1].to_list() == [[2.5, 3.5, 6.0], [3.0]]  # element-wise over rows, gaps skipped
    assert got[2].to_list() == [[3, 2], [], [4, 5, 6]]
    assert got[3].to_list() == [[[v for v in c if v > 2] for c in r] for r in rows]
    assert got[4].to_list() == [[[c, c] for c in r] for r in rows]
    assert got[5].to_list() == [[c + c for c in r] for r in rows]
    assert got[6].to_list() == [[1], [], [3]]
    np.testing.assert_array_equal(got[7], [3, 4, 5])
    assert got[8].to_list() == [rows[2], rows[0]]


def test_gradient_of_from_tensor_wrt_the_dense_input():
    x0 = np.array([[0.3, -1.2, 0.0], [0.7, 0.0, 0.0]])
    x = tf.placeholder(tf.float64, [2, 3])
    rt = tf.RaggedTensor.from_tensor(x, lengths=[2, 1])
    loss = tf.reduce_sum(tf.reduce_sum(tf.exp(rt), axis=1) * tf.constant([1.0, 2.0], tf.float64))
    (grad,) = tf.gradients(loss, [x])
    with tf.Session() as sess:
        g = sess.run(grad, {x: x0})
        numeric = _numeric_grad(lambda v: sess.run(loss, {x: v}), x0)
    np.testing.assert_allclose(g, numeric, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, [[np.exp(0.3), np.exp(-1.2), 0], [2 * np.exp(0.7), 0, 0]],
                               rtol=1e-9)


def test_ragged_tensor_spec_and_row_lengths_of_uniform_dims():
    rt = tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    spec = rt._type_spec
    assert spec == tf.RaggedTensorSpec([2, None, 2], tf.int32, 1)
    assert spec.is_compatible_with(rt) and spec.value_type is tf.RaggedTensor
    assert tf.RaggedTensorSpec([None, None], tf.float32).ragged_rank == 1
    assert "RaggedTensorSpec(TensorShape([Dimension(2), Dimension(None), Dimension(2)])" in repr(
        spec)
    with pytest.raises(ValueError, match="Must specify ragged_rank or a shape with a known rank"):
        tf.RaggedTensorSpec(None, tf.float32)
    assert _run(rt.row_lengths(axis=2)).to_list() == [[2, 2], [2]]


def test_getitem_with_an_ellipsis():
    rt = tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    got = _run([rt[..., 1], rt[0, ...], rt[...]])
    assert got[0].to_list() == [[2, 4], [6]]
    np.testing.assert_array_equal(got[1], [[1, 2], [3, 4]])
    assert got[2].to_list() == [[[1, 2], [3, 4]], [[5, 6]]]
    with pytest.raises(ValueError, match="Cannot index into an inner ragged dimension."):
        tf.ragged.constant([[1, 2], [3]])[..., 0]
    with pytest.raises(ValueError, match="more than one ellipsis"):
        rt[..., ...]
