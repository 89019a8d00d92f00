"""Examples of the kind TF 1.x's API docs show, run in graph mode: values, dtypes and static
shapes as TF 1.15 gives them (our own values, one test per difference found and fixed)."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _run(fetches):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches)


def test_sparse_maximum_indices_static_shape_is_unknown_matrix():
    a = tf.SparseTensor([[1], [4]], [7, 2], [6])
    b = tf.SparseTensor([[1], [3]], [5, 9], [6])
    for res in (tf.sparse.maximum(a, b), tf.sparse.minimum(a, b)):
        assert res.indices.shape.as_list() == [None, None]
        assert res.values.shape.as_list() == [None]
    got = _run(tf.sparse.maximum(a, b))
    np.testing.assert_array_equal(got.indices, [[1], [3], [4]])
    np.testing.assert_array_equal(got.values, [7, 9, 2])


def test_sparse_split_pieces_have_static_dense_shapes():
    sp = tf.SparseTensor([[0, 0], [1, 3], [2, 4]], [5, 6, 7], [3, 5])
    pieces = tf.sparse.split(sp_input=sp, num_split=2, axis=1)
    dense = [tf.sparse.to_dense(p) for p in pieces]
    assert [d.shape.as_list() for d in dense] == [[3, 3], [3, 2]]
    got = _run(dense)
    np.testing.assert_array_equal(got[0], [[5, 0, 0], [0, 0, 0], [0, 0, 0]])
    np.testing.assert_array_equal(got[1], [[0, 0], [6, 0], [0, 7]])


def test_bitcast_of_a_scalar_to_a_narrower_type_is_a_vector():
    wide = tf.constant(0x01020304, dtype=tf.uint32)
    narrow = tf.bitcast(wide, tf.uint8)
    assert narrow.shape.as_list() == [4]
    fed = tf.placeholder(tf.int32, [])
    with tf.Session() as sess:
        got, got_fed = sess.run([narrow, tf.bitcast(fed, tf.int16)], {fed: -1})
    assert got.shape == (4,) and got.dtype == np.uint8
    np.testing.assert_array_equal(got, np.array([0x01020304], np.uint32).view(np.uint8))
    np.testing.assert_array_equal(got_fed, [-1, -1])


def _lists(values):
    return [v.to_list() if hasattr(v, "to_list") else np.asarray(v).tolist() for v in values]


def test_expand_dims_dispatches_on_ragged_tensors():
    rt = tf.ragged.constant([[5, 6, 7], [], [8]])
    outs = [tf.expand_dims(rt, 0), tf.expand_dims(rt, axis=1), tf.expand_dims(rt, -1),
            tf.expand_dims(rt, dim=2)]
    assert all(isinstance(o, tf.RaggedTensor) for o in outs)
    assert outs[2].shape.as_list() == [3, None, 1]
    got = _lists(_run(outs))
    assert got[0] == [[[5, 6, 7], [], [8]]]
    assert got[1] == [[[5, 6, 7]], [[]], [[8]]]
    assert got[2] == got[3] == [[[5], [6], [7]], [], [[8]]]


def test_gather_nd_dispatches_on_ragged_tensors():
    words = tf.ragged.constant([[[b"a", b"b"], [b"c"]], [[b"d", b"e", b"f"]], [[], [b"g"]]])
    rows = tf.gather_nd(words, [[2], [0]])
    inner = tf.gather_nd(words, [[1, 0], [2, 1]])
    scalars = tf.gather_nd(words, [[0, 0, 1], [1, 0, 2]])
    nested = tf.gather_nd(words, [[[0, 1]], [[1, 0]]])
    single = tf.gather_nd(words, [0, 0, 0])
    ragged_idx = tf.gather_nd(tf.ragged.constant([[1.5, 2.5], [3.5]]),
                              tf.ragged.constant([[[1, 0]], [[0, 1], [0, 0]]], ragged_rank=1))
    assert isinstance(rows, tf.RaggedTensor) and isinstance(inner, tf.RaggedTensor)
    assert isinstance(scalars, tf.Tensor) and scalars.shape.as_list() == [2]
    assert isinstance(single, tf.Tensor) and single.shape.as_list() == []
    got = _lists(_run([rows, inner, scalars, nested, ragged_idx]))
    assert got[0] == [[[], [b"g"]], [[b"a", b"b"], [b"c"]]]
    assert got[1] == [[b"d", b"e", b"f"], [b"g"]]
    assert got[2] == [b"b", b"f"]
    assert got[3] == [[[b"c"]], [[b"d", b"e", b"f"]]]
    assert got[4] == [[3.5], [2.5, 1.5]]
    assert _run(single) == b"a"


def test_batch_gather_dispatches_on_ragged_tensors():
    params = tf.ragged.constant([[10, 11, 12], [20], [], [30, 31]])
    by_ragged = tf.batch_gather(params, tf.ragged.constant([[2, 0], [], [], [1, 1, 0]]))
    by_dense = tf.batch_gather(tf.ragged.constant([[10, 11], [20]]), [[1, 0], [0, 0]])
    dense_params = tf.batch_gather(tf.constant([[1, 2, 3], [4, 5, 6]]),
                                   tf.ragged.constant([[2], [0, 1]]))
    assert isinstance(by_ragged, tf.RaggedTensor) and isinstance(by_dense, tf.Tensor)
    got = _lists(_run([by_ragged, by_dense, dense_params]))
    assert got == [[[12, 10], [], [], [31, 31, 30]], [[11, 10], [20, 20]], [[3], [4, 5]]]


def test_ragged_stack_of_dense_tensors_along_an_outer_axis_is_ragged():
    a = tf.constant([[1, 2], [3, 4], [5, 6]])
    b = tf.constant([[7], [8]])
    outer = tf.ragged.stack([a, b], axis=0)
    inner = tf.ragged.stack([a, a], axis=2)  # the last axes stay dense, as tf.stack
    assert isinstance(outer, tf.RaggedTensor) and isinstance(inner, tf.Tensor)
    got = _lists(_run([outer, inner]))
    assert got[0] == [[[1, 2], [3, 4], [5, 6]], [[7], [8]]]
    assert got[1] == [[[1, 1], [2, 2]], [[3, 3], [4, 4]], [[5, 5], [6, 6]]]


def test_ragged_from_tensor_takes_nested_row_lengths():
    dense = tf.constant([[[1, 9], [2, 9]], [[3, 4], [9, 9]], [[5, 9], [6, 7]]])
    rt = tf.RaggedTensor.from_tensor(dense, lengths=([1, 0, 2], [1, 1, 2]))
    assert rt.ragged_rank == 2
    plain = tf.RaggedTensor.from_tensor(dense, lengths=[2, 1, 0])
    assert plain.ragged_rank == 1
    got = _lists(_run([rt, plain]))
    assert got[0] == [[[1]], [], [[5], [6, 7]]]
    assert got[1] == [[[1, 9], [2, 9]], [[3, 4]], []]


def test_unsorted_segment_reductions_dispatch_on_ragged_data():
    rt = tf.ragged.constant([[2.0, 4.0], [1.0], [8.0, 1.0, 3.0], []])
    ids = [1, 0, 1, 0]
    outs = [tf.math.unsorted_segment_sum(rt, ids, 3), tf.unsorted_segment_max(rt, ids, 3),
            tf.math.unsorted_segment_mean(rt, ids, 3),
            tf.math.unsorted_segment_sqrt_n(rt, ids, 3),
            tf.math.unsorted_segment_sum(rt, tf.ragged.constant([[0, 1], [1], [0, 0, 1], []]), 2)]
    assert all(isinstance(o, tf.RaggedTensor) for o in outs[:4])
    got = _lists(_run(outs))
    assert got[0] == [[1.0], [10.0, 5.0, 3.0], []]
    assert got[1] == [[1.0], [8.0, 4.0, 3.0], []]
    assert got[2] == [[1.0], [5.0, 2.5, 3.0], []]
    np.testing.assert_allclose(got[3][1], [10 / np.sqrt(2), 5 / np.sqrt(2), 3.0], rtol=1e-6)
    assert got[4] == [11.0, 8.0]


def test_strings_split_of_a_scalar_is_a_vector_of_tokens():
    # TF 1.15: the ragged split of a scalar is its tokens (a vector, so the SparseTensor result
    # fails on the vector's missing to_sparse)
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'to_sparse'"):
        tf.strings.split("to be or")
    assert _run(tf.strings.split("a-b", sep="-", result_type="RaggedTensor")).tolist() == [
        b"a", b"b"]


def test_unicode_encoding_names_match_loosely_as_icu():
    out = tf.strings.unicode_transcode(["Hi", "ok"], "US ASCII", "UTF-8")
    codes = tf.strings.unicode_decode(["\u00e9a"], "utf8")
    assert _run(out).tolist() == [b"Hi", b"ok"]
    assert _run(codes).to_list() == [[233, 97]]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="^Could not create converter for input encoding: no-such-code"):
        _run(tf.strings.unicode_transcode(["x"], "no-such-code", "UTF-8"))


def test_squeeze_dispatches_on_ragged_tensors():
    rt = tf.ragged.constant([[[7, 8]], [[9]]])
    rows = tf.squeeze(rt, [1])
    inner = tf.squeeze(tf.ragged.constant([[[1], [2]], [[3]]], ragged_rank=1), axis=-1)
    single = tf.squeeze(tf.ragged.constant([[[4]]]), [0, 1, 2])
    assert isinstance(rows, tf.RaggedTensor) and single.shape.as_list() == []
    got = _lists(_run([rows, inner]))
    assert got == [[[7, 8], [9]], [[1, 2], [3]]]
    assert _run(single) == 4
    with pytest.raises(ValueError, match="axis argument"):
        tf.squeeze(rt)
    with pytest.raises(tf.errors.InvalidArgumentError, match="not squeezable"):
        _run(tf.squeeze(tf.ragged.constant([[1, 2], [3]]), [1]))


def test_reduce_join_dispatches_on_ragged_tensors():
    rt = tf.ragged.constant([["x", "y"], [], ["p", "q", "r"]])
    outs = [tf.strings.reduce_join(rt, axis=1, separator="."),
            tf.strings.reduce_join(rt, axis=0, separator="|"),
            tf.reduce_join(rt), tf.strings.reduce_join(rt, axis=-1, keepdims=True)]
    got = _lists(_run(outs))
    assert got[0] == [b"x.y", b"", b"p.q.r"]
    assert got[1] == [b"x|p", b"y|q", b"r"]
    assert got[2] == b"xypqr"
    assert got[3] == [[b"xy"], [b""], [b"pqr"]]
    nested = tf.strings.reduce_join(tf.ragged.constant([[["a", "b"], ["c"]], [["d"]]]), axis=2)
    assert _run(nested).to_list() == [[b"ab", b"c"], [b"d"]]


def test_dynamic_partition_dispatches_on_ragged_tensors():
    rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
    parts = tf.dynamic_partition(rt, [1, 0, 1], 2)
    by_item = tf.dynamic_partition(rt, tf.ragged.constant([[1, 0], [0], [1, 1, 0]]), 2)
    assert len(parts) == 2 and all(isinstance(p, tf.RaggedTensor) for p in parts)
    got = _lists(_run(parts + by_item))
    assert got == [[[3]], [[1, 2], [4, 5, 6]], [2, 3, 6], [1, 4, 5]]
    stacked = tf.ragged.stack_dynamic_partitions(rt, [1, 0, 1], 3)
    assert _run(stacked).to_list() == [[[3]], [[1, 2], [4, 5, 6]], []]
    matrix = tf.ragged.stack_dynamic_partitions([[7, 8], [9, 6]], [[0, 1], [1, 1]], 2)
    assert _run(matrix).to_list() == [[7], [8, 9, 6]]


def test_tile_dispatches_on_ragged_tensors():
    rt = tf.ragged.constant([[4, 5], [], [6]])
    twice = tf.tile(rt, [2, 3])
    assert isinstance(twice, tf.RaggedTensor)
    deep = tf.tile(tf.ragged.constant([[[1], [2, 3]]]), [1, 2, 2])
    dense_inner = tf.tile(tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1),
                          [1, 1, 2])
    got = _lists(_run([twice, deep, dense_inner]))
    assert got[0] == [[4, 5, 4, 5, 4, 5], [], [6, 6, 6]] * 2
    assert got[1] == [[[1, 1], [2, 3, 2, 3], [1, 1], [2, 3, 2, 3]]]
    assert got[2] == [[[1, 2, 1, 2]], [[3, 4, 3, 4], [5, 6, 5, 6]]]


def test_where_on_ragged_tensors_gives_coordinates_or_picks_rows():
    cond = tf.ragged.constant([[False, True, True], [], [True]])
    coords = tf.where(cond)
    assert isinstance(coords, tf.Tensor) and coords.shape.as_list() == [None, 2]
    nested = tf.where(tf.ragged.constant([[[True], [False, True]], [[True]]]))
    rows = tf.where([False, True], tf.ragged.constant([[1], [2, 3]]),
                    tf.ragged.constant([[4, 5, 6], []]))
    got = _lists(_run([coords, nested, rows]))
    assert got[0] == [[0, 1], [0, 2], [2, 0]]
    assert got[1] == [[0, 0, 0], [0, 1, 1], [1, 0, 0]]
    assert got[2] == [[4, 5, 6], [2, 3]]


def test_unicode_encode_takes_ragged_code_points():
    points = tf.ragged.constant([[104, 233], [], [9731]])
    flat = tf.strings.unicode_encode(points, "UTF-8")
    assert isinstance(flat, tf.Tensor) and flat.shape.as_list() == [3]
    nested = tf.strings.unicode_encode(tf.ragged.constant([[[79, 75]], [[], [33]]]), "UTF-8")
    round_trip = tf.strings.unicode_encode(tf.strings.unicode_decode(["d\u00e9j\u00e0"], "UTF-8"),
                                           "UTF-8")
    got = _lists(_run([flat, nested, round_trip]))
    assert got[0] == ["h\u00e9".encode(), b"", "\u2603".encode()]
    assert got[1] == [[b"OK"], [b"", b"!"]]
    assert got[2] == ["d\u00e9j\u00e0".encode()]
