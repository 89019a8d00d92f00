"""SparseTensor and string op corners found by differential programs against TF 1.15 (op
names, static shapes of sparse results, malformed sparse inputs, printf corners, byte order);
expected values are TF 1.15's printed outputs."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _run(t, feed=None):
    with tf.Session() as s:
        return s.run(t, feed)


def _names(sp):
    return [sp.indices.name, sp.values.name, sp.dense_shape.name]


def _sp(indices, values, shape, dtype=np.float32):
    return tf.SparseTensor(indices, np.array(values, dtype), shape)


def test_sparse_concat_names_its_op_and_makes_a_constant_shape():
    a = _sp([[0, 0], [1, 1]], [1, 2], [2, 2])
    b = _sp([[0, 1]], [3], [2, 3])
    c = tf.sparse_concat(1, [a, b])
    assert _names(c) == ["SparseConcat:0", "SparseConcat:1", "Const:0"]
    assert c.get_shape().as_list() == [2, 5]
    c = tf.sparse_concat(-1, [a, b], name="cat")
    assert _names(c) == ["cat:0", "cat:1", "Const_1:0"]
    # expanded shapes come from slices: TF leaves the result's shape to the op
    c = tf.sparse_concat(0, [a, b], expand_nonconcat_dim=True)
    assert c.dense_shape.name == "SparseConcat_1:2"
    assert c.get_shape().as_list() == [None, None]
    v = _run(c)
    _same(v.indices, [[0, 0], [1, 1], [2, 1]])
    _same(v.dense_shape, [4, 3])


def test_sparse_slice_and_split_pieces_have_unknown_static_shapes():
    s = _sp([[0, 0], [1, 2], [3, 3]], [1, 2, 3], [4, 5], np.int32)
    piece = tf.sparse_slice(s, [0, 0], [2, 3])
    assert _names(piece) == ["SparseSlice:0", "SparseSlice:1", "SparseSlice:2"]
    assert piece.get_shape().as_list() == [None, None]
    assert tf.sparse_slice(s, [0, 0], [2, 2], name="sl").values.name == "sl:1"
    # ... while to_dense of one still has its static shape (TF's shape inference sees it)
    assert tf.sparse_tensor_to_dense(piece).get_shape().as_list() == [2, 3]
    parts = tf.sparse_split(sp_input=s, num_split=2, axis=1)
    assert [p.get_shape().as_list() for p in parts] == [[None, None]] * 2
    assert tf.sparse_tensor_to_dense(parts[1]).get_shape().as_list() == [4, 2]
    _same(_run(parts[1]).dense_shape, [4, 2])


def test_sparse_maximum_and_minimum_name_their_op():
    a = _sp([[0, 0], [1, 1]], [1, -2], [2, 2])
    b = _sp([[0, 0], [0, 1]], [-1, 3], [2, 2])
    assert tf.sparse_maximum(a, b).values.name == "SparseSparseMaximum:1"
    assert tf.sparse_minimum(a, b).indices.name == "SparseSparseMinimum:0"
    assert tf.sparse_maximum(a, b, name="mx").values.name == "mx:1"


def test_sparse_transpose_default_perm_is_computed_when_run():
    s = _sp([[0, 1], [1, 0]], [1, 2], [2, 3])
    t = tf.sparse_transpose(s)
    assert t.values.name == "SparseTranspose/SparseReorder:1"
    v = _run(t)
    _same(v.indices, [[0, 1], [1, 0]])
    _same(v.values, [2, 1])
    _same(v.dense_shape, [3, 2])
    assert tf.sparse_transpose(s, [1, 0]).get_shape().as_list() == [3, 2]


def test_parse_single_example_var_len_shape_is_unknown():
    ex = tf.train.Example(features=tf.train.Features(feature={
        "c": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"x"]))}))
    r = tf.parse_single_example(ex.SerializeToString(), {"c": tf.VarLenFeature(tf.string)})
    assert r["c"].get_shape().as_list() == [None]
    assert _run(r["c"]).values.tolist() == [b"x"]


def test_malformed_sparse_inputs_fail_with_tf_words():
    p = tf.sparse_placeholder(tf.float32)
    nnz = ([[0, 0], [1, 2]], [1.0], [2, 3])
    rank = ([[0, 0], [1, 2]], [1.0, 2.0], [2, 3, 1])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"indices and values rows \(indexing dimension\) must match\. "
                             r"\(indices = 2, values = 1\)"):
        _run(tf.sparse_reorder(p), {p: nnz})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Order length must be SparseTensor rank."):
        _run(tf.sparse_reduce_sum(p, 1), {p: rank})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="output_shape has incorrect number of elements: 3 should be: 2"):
        _run(tf.sparse_tensor_to_dense(p), {p: rank})
    mm = tf.sparse_tensor_dense_matmul(p, tf.ones([3, 1]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Number of rows of a_indices does not match number of entries "
                             "in a_values"):
        _run(mm, {p: nnz})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Tensor 'a_shape' must have 2 elements"):
        _run(mm, {p: rank})
    add = tf.sparse_add(p, tf.ones([2, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Two operands have different ranks; received: 3 and 2"):
        _run(add, {p: rank})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Dimension 0 does not equal \(no broadcasting is supported\): "
                             r"sparse side 0 vs dense side 2"):
        _run(add, {p: (np.zeros((0, 2), np.int64), np.zeros(0, np.float32), [0, 3])})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"some invalid index on dimension 0; dense tensor shape: \[2,3\]"):
        _run(add, {p: ([[0, 0], [5, 2]], [1.0, 2.0], [2, 3])})
    filled, _ = tf.sparse_fill_empty_rows(p, 0.0)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"indices\(1, 0\) is invalid: 5 >= 2"):
        _run(filled, {p: ([[0, 0], [5, 2]], [1.0, 2.0], [2, 3])})


def test_sparse_softmax_takes_float_and_double_only():
    s = tf.SparseTensor([[0, 0]], tf.constant([1.0], tf.float16), [1, 1])
    with pytest.raises(TypeError, match="not in list of allowed values: float32, float64"):
        tf.sparse_softmax(s)


def test_embedding_lookup_sparse_combiner_error_words():
    ids = _sp([[0, 0]], [1], [1, 1], np.int64)
    with pytest.raises(ValueError) as e:
        tf.nn.embedding_lookup_sparse(tf.ones([3, 2]), ids, None, combiner="max")
    assert str(e.value) == "combiner must be one of 'mean', 'sqrtn' or 'sum'"


def test_as_string_zero_fill_pads_nan_and_inf_with_spaces():
    f = tf.constant([1.5, float("nan"), float("inf"), -float("inf")])
    got = _run(tf.as_string(f, width=8, fill="0"))
    assert got.tolist() == [b"1.500000", b"     nan", b"     inf", b"    -inf"]
    got = _run(tf.as_string(tf.constant([-2.0]), width=6, fill="0", precision=1))
    assert got.tolist() == [b"-002.0"]


def test_hash_bucket_strong_checks_its_key_when_run():
    t = tf.string_to_hash_bucket_strong(["a"], 10, key=[1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Key must have 2 elements"):
        _run(t)


def test_string_format_placeholder_count_error_words():
    with pytest.raises(ValueError) as e:
        tf.strings.format("{} {}", [tf.constant(1)])
    assert str(e.value) == ("2 placeholder(s) in template does not match 1 tensor(s) provided "
                            "as input")


def test_unicode_decode_scope_names():
    r = tf.strings.unicode_decode(tf.constant("h\u00e9"), "UTF-8")
    assert r.name.startswith("UnicodeDecode/")
    cps, _ = tf.strings.unicode_decode_with_offsets(tf.constant("ab"), "UTF-8")
    assert cps.name.startswith("UnicodeDecodeWithOffsets/")
    _same(_run(r), [104, 233])


def test_string_join_and_substr_shape_errors_use_tf_words():
    with pytest.raises(ValueError, match="Shapes must be equal rank, but are 2 and 1"):
        tf.string_join([tf.constant([["a"], ["b"]]), tf.constant(["x", "y"])])
    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are 2 "
                                         "and 3"):
        tf.string_join([tf.constant(["a", "b"]), tf.constant(["x", "y", "z"])])
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 2"):
        tf.substr(tf.constant([["ab", "cd"], ["ef", "gh"]]), [[0], [1]], 1)


def test_decode_raw_big_endian_complex_swaps_the_whole_element():
    raw = np.arange(8, dtype=np.uint8).tobytes()
    got = _run(tf.decode_raw([raw], tf.complex64, little_endian=False))
    want = np.frombuffer(raw[::-1], np.complex64)
    _same(got, want.reshape(1, 1))
    got = _run(tf.decode_raw([raw], tf.float32, little_endian=False))
    _same(got, np.frombuffer(raw, ">f4").astype(np.float32).reshape(1, 2))


def _same(got, want):
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_sparse_to_indicator_keeps_vocab_size_static():
    p = tf.sparse_placeholder(tf.int64, shape=[None, 5])
    ind = tf.sparse_to_indicator(p, 7)
    assert ind.get_shape().as_list() == [None, 7]
    got = _run(ind, {p: ([[0, 0], [0, 1], [1, 0]], [0, 3, 2], [2, 5])})
    _same(got, [[True, False, False, True, False, False, False],
                [False, False, True, False, False, False, False]])


def test_sparse_tensor_indices_must_be_a_matrix():
    with pytest.raises(ValueError, match=r"Shape \(2,\) must have rank 2"):
        tf.SparseTensor([0, 0], [1.0], [2, 2])


def test_no_gradient_through_split_and_sparse_reductions():
    v = tf.constant([1.0, 2.0])
    s = tf.SparseTensor([[0, 0], [1, 2]], v * 1.0, [2, 3])
    for out, op_type in [
            (tf.sparse_reduce_sum_sparse(s, 1).values, "SparseReduceSumSparse"),
            (tf.sparse_reduce_max_sparse(s, 1).values, "SparseReduceMaxSparse"),
            (tf.sparse_split(sp_input=s, num_split=2, axis=1)[0].values, "SparseSplit")]:
        with pytest.raises(LookupError, match=f"No gradient defined for operation '.*' "
                                              rf"\(op type: {op_type}\)"):
            tf.gradients(tf.reduce_sum(out), v)


def test_regex_replace_follows_re2():
    s = tf.constant(["aaa", "abab", "abxd", "h\u00e9llo"])
    # an empty match right after a match is not replaced
    assert _run(tf.regex_replace(s[:3], "a*", "X")).tolist() == [b"X", b"XbXbX", b"XbXxXdX"]
    assert _run(tf.regex_replace(["abxd", "ba"], "x*", "-")).tolist() == [b"-a-b-d-", b"-b-a-"]
    # '.' is one UTF-8 character; \w is ASCII
    assert _run(tf.regex_replace(s[3], ".", "x")) == b"xxxxx"
    assert _run(tf.regex_replace(s[3], r"\w", "_")) == "_\u00e9___".encode()
    # POSIX classes inside brackets
    got = _run(tf.strings.regex_full_match(["aaa", "Hello World", ""], "[[:alpha:]]+"))
    assert got.tolist() == [True, False, False]
    assert _run(tf.regex_replace("a1 b2", "[[:digit:][:space:]]", "")) == b"ab"
    # RE2 has no back-references
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Invalid pattern: \(a\)\\1, error: invalid escape sequence: \\1"):
        _run(tf.strings.regex_full_match(["aa"], r"(a)\1"))


def test_utf8_char_unit_counts_lead_bytes():
    x = tf.constant([b"\x80abc", b"\xc3", b"\xffabc"])
    _same(_run(tf.strings.length(x, unit="UTF8_CHAR")), [3, 1, 4])
    got = _run(tf.strings.substr(x, 0, 2, unit="UTF8_CHAR"))
    assert got.tolist() == [b"\x80a", b"\xc3", b"\xffa"]
    assert _run(tf.strings.substr(["h\u00e9llo"], -3, 2, unit="UTF8_CHAR")).tolist() == [b"ll"]


def test_reduce_join_repeated_axis_fails_when_run():
    s = tf.constant([["a", "b", "c"], ["d", "e", "f"]])
    r = tf.reduce_join(s, [0, -2])
    assert r.get_shape().as_list() == [3]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Duplicate reduction dimension"):
        _run(r)


def test_parse_ops_feature_errors_use_tf_words_and_scopes():
    ex = tf.train.Example().SerializeToString()
    bad = {"a": tf.FixedLenFeature([1], tf.int32)}
    good = {"a": tf.FixedLenFeature([1], tf.int64, default_value=[1])}
    for parse, scope in [(tf.parse_single_example, "ParseSingleExample"),
                         (lambda s, f: tf.parse_example([s], f), "ParseExample")]:
        with pytest.raises(TypeError, match="parameter 'dense_defaults' has DataType int32"):
            parse(ex, bad)
        # the failed op still took its scope's name, as in TF
        assert parse(ex, good)["a"].name == f"{scope}_1/{scope}:0"
    with pytest.raises(ValueError) as e:
        tf.parse_single_sequence_example(
            ex, sequence_features={"f": tf.FixedLenFeature([2], tf.float32)})
    assert str(e.value) == ("Unsupported FixedLenFeature FixedLenFeature(shape=[2], "
                            "dtype=tf.float32, default_value=None).")
    with pytest.raises(ValueError, match="^Unsupported FixedLenSequenceFeature "):
        tf.parse_single_sequence_example(ex, context_features={
            "c": tf.FixedLenSequenceFeature([], tf.int64, allow_missing=True)})
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 0"):
        tf.io.parse_sequence_example(
            ex, sequence_features={"f": tf.FixedLenSequenceFeature([2], tf.float32)})


def test_sparse_split_axis_and_count_checks():
    sp = _sp([[0, 0], [1, 2]], [1, 2], [2, 3])
    for axis, n, words in [
            (-1, 2, r"num_dim must be in the interval \[0, 2\)"),
            (2, 1, r"Input split_dim should be between 0 and rank \(2\), got 2"),
            (1, 4, (r"Input num_split should be between 1 and the splitting dimension size "
                    r"\(3\), got 4"))]:
        parts = tf.sparse_split(sp_input=sp, num_split=n, axis=axis)
        with pytest.raises(tf.errors.InvalidArgumentError, match=words):
            _run(parts[0])


def test_as_string_fill_needs_a_width():
    i, f = tf.constant([7, -7]), tf.constant([1.5, -1.5])
    assert _run(tf.as_string(i, fill="+")).tolist() == [b"7", b"-7"]
    assert _run(tf.as_string(f, fill=" ", precision=1)).tolist() == [b"1.5", b"-1.5"]
    assert _run(tf.as_string(i, fill="+", width=4)).tolist() == [b"  +7", b"  -7"]
    assert _run(tf.as_string(f, fill="+", width=0)).tolist() == [b"+1.500000", b"-1.500000"]


def test_sparse_static_shapes_are_what_tf_python_constant_value_finds():
    s = _sp([[0, 0], [1, 2], [3, 3]], [1, 2, 3], [4, 5], np.int32)
    # an Identity (retain), a computed perm (transpose) and Slice ops (expand_dims) hide it
    assert tf.sparse_retain(s, [True, False, True]).get_shape().as_list() == [None, None]
    t = tf.sparse_transpose(s)
    assert t.dense_shape.name == "SparseTranspose/Identity:0"
    assert t.get_shape().as_list() == [None, None]
    assert tf.sparse.expand_dims(s, -1).get_shape().as_list() == [None, None, 1]
    _same(_run(tf.sparse.expand_dims(s, 1)).dense_shape, [4, 1, 5])
    # a Pack of constants, a Cast of a constant and a Concat of them are seen
    assert tf.sparse.eye(3).get_shape().as_list() == [3, 3]
    assert tf.sparse.eye(3, name="e").dense_shape.name == "e/SparseTensor/dense_shape:0"
    assert tf.sparse_reset_shape(s, [6, 7]).get_shape().as_list() == [6, 7]


def test_sparse_reset_shape_follows_tf():
    s = _sp([[0, 1], [2, 0]], [1, 2], [5, 6])
    r = tf.sparse_reset_shape(s)
    assert [r.indices.name, r.values.name, r.dense_shape.name] == [
        "Identity:0", "Identity_1:0", "Maximum:0"]
    _same(_run(r).dense_shape, [3, 2])
    p = tf.sparse_placeholder(tf.float32)
    empty = (np.zeros((0, 2), np.int64), np.zeros(0, np.float32), [3, 3])
    _same(_run(tf.sparse_reset_shape(p), {p: empty}).dense_shape, [0, 0])
    with pytest.raises(ValueError) as e:
        tf.sparse_reset_shape(s, [4, 7])
    # (TF's words name the shapes the other way round)
    assert str(e.value) == ("Requested new_shape should have dimension sizes >= sp_input.shape."
                            "  Found new_shape ([5 6]), sp_input.shape ([4 7]).")


def test_sparse_tensor_leaves_its_parts_static_shapes_alone():
    s = _sp([[0, 0]], [1], [2, 3])
    r = tf.sparse_reduce_sum_sparse(s, 1)
    assert r.indices.get_shape().ndims is None and r.values.get_shape().ndims is None
    assert str(r.values) == ('Tensor("SparseReduceSumSparse:1", dtype=float32)')
    i = tf.placeholder(tf.int64)
    sp = tf.SparseTensor(i, tf.placeholder(tf.float32), tf.placeholder(tf.int64))
    assert i.get_shape().ndims is None
    assert sp.get_shape().ndims is None


def test_sparse_and_string_ops_take_tf_op_names():
    s = _sp([[0, 0]], [1], [2, 3])
    assert tf.sparse_reduce_max(s).op.inputs[3].name == "Const:0"
    assert tf.sparse_reduce_sum_sparse(s).values.op.inputs[3].name == "Const_1:0"
    assert tf.sparse_reduce_sum(s, 1).op.inputs[3].name == "SparseReduceSum/reduction_axes:0"
    parts = tf.sparse_split(sp_input=s, num_split=2, axis=0)
    assert parts[0].indices.op.inputs[0].name == "SparseSplit/split_dim:0"
    ind = tf.sparse.to_indicator(tf.SparseTensor([[0, 0]], tf.constant([1], tf.int64), [2, 3]), 5)
    assert ind.name == "SparseToIndicator:0"
    assert ind.op.inputs[0].op.type == "SparseReorder"
    assert ind.op.inputs[1].name == "SparseToIndicator/concat_1:0"
    tf.sparse.eye(2)
    g = tf.get_default_graph()
    assert g.get_operation_by_name("eye/num_rows").type == "Const"
    assert g.get_operation_by_name("eye/ones/Reshape").type == "Reshape"
    x = tf.sparse.expand_dims(s, 0)
    assert x.dense_shape.op.inputs[1].name == "expand_dims/new_shape:0"
    assert tf.strings.format("{}", [1]).op.inputs[0].name == "StringFormat/inputs_0:0"
    cps = tf.strings.unicode_decode(["a"], "UTF-8")
    assert cps.values.op.inputs[0].op.inputs[0].name == "UnicodeDecode/input:0"
    assert tf.sparse.from_dense(tf.ones([2, 2])).indices.op.inputs[0].op.inputs[1].name == (
        "dense_to_sparse/Const:0")


def test_sparse_expand_dims_takes_a_tensor_axis():
    s = _sp([[0, 1], [1, 2]], [1, 2], [2, 3])
    got = _run(tf.sparse.expand_dims(s, tf.constant(-1)))
    _same(got.indices, [[0, 1, 0], [1, 2, 0]])
    _same(got.dense_shape, [2, 3, 1])
    got = _run(tf.sparse.expand_dims(s, 1))
    _same(got.indices, [[0, 0, 1], [1, 0, 2]])
    with pytest.raises(TypeError, match="axis must be an integer value"):
        tf.sparse.expand_dims(s, 1.5)


def test_sparse_times_dense_is_tf_op():
    s = _sp([[0, 1], [1, 2]], [2, 4], [2, 3])
    r = s * tf.constant([1.0, 2.0, 3.0])
    assert r.values.name == "mul:0" and r.values.op.type == "SparseDenseCwiseMul"
    _same(_run(r.values), [4.0, 12.0])
    r = tf.constant([[1.0], [2.0]]) * s
    assert r.values.name == "mul_1:0"
    _same(_run(r.values), [2.0, 8.0])
    r = s / tf.constant(2.0)
    assert r.values.name == "truediv:0" and r.values.op.type == "SparseDenseCwiseDiv"
    si = tf.SparseTensor([[0, 1], [1, 2]], tf.constant([7, -7]), [2, 3])
    q = si / 2
    assert q.values.dtype == tf.float64
    _same(_run(q.values), [3.5, -3.5])
    with pytest.raises(TypeError, match="Expected float32, got .* of type 'SparseTensor'"):
        s * s
    p = tf.placeholder(tf.float32, [None])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"broadcasts dense to sparse only; got incompatible shapes: "
                             r"\[2,3\] vs\. \[2\]"):
        _run((s * p).values, {p: [1.0, 2.0]})
    # the gradient is TF's: a scalar dense side cannot be gathered from
    v = tf.constant([2.0, 4.0])
    d = tf.constant([[1.0, 2.0, 3.0]])
    gv, gd = tf.gradients(tf.reduce_sum((tf.SparseTensor([[0, 1], [1, 2]], v, [2, 3]) * d).values),
                          [v, d])
    _same(_run(gv), [2.0, 3.0])
    _same(_run(gd), [[0.0, 2.0, 4.0]])
    c = tf.constant(2.0)
    g = tf.gradients(tf.reduce_sum((tf.SparseTensor([[0, 1]], v[:1], [2, 3]) * c).values), v)[0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="params must be at least a vector"):
        _run(g)


def test_sparse_matmul_is_tf_op_with_its_gradient():
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    b = tf.constant([[1.0, 0.0], [2.0, 1.0]])
    w = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    want = {(False, False): ([[5, 2], [11, 4]], [[1, 4], [3, 10]], [[10, 14], [14, 20]]),
            (False, True): ([[1, 4], [3, 10]], [[5, 2], [11, 4]], [[10, 14], [14, 20]]),
            (True, False): ([[7, 3], [10, 4]], [[1, 3], [4, 10]], [[7, 10], [15, 22]]),
            (True, True): ([[1, 5], [2, 8]], [[5, 11], [2, 4]], [[7, 15], [10, 22]])}
    for (ta, tb), (prod, ga, gb) in want.items():
        r = tf.sparse_matmul(a, b, transpose_a=ta, transpose_b=tb, a_is_sparse=True)
        assert r.op.type == "SparseMatMul" and r.dtype == tf.float32
        g = tf.gradients(tf.reduce_sum(r * w), [a, b])
        got = _run([r] + g)
        for x, y in zip(got, (prod, ga, gb)):
            _same(x, y)
    assert tf.sparse_matmul([[1.0, 2.0]], [[1.0], [2.0]], name="sm").name == "sm:0"
    with pytest.raises(TypeError, match="DataType float64 not in list of allowed values: "
                                        "float32, bfloat16"):
        tf.sparse_matmul(tf.constant([[1.0]], tf.float64), [[1.0]])
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
        tf.sparse_matmul([1.0], [[1.0]])


def test_embedding_lookup_sparse_argument_checks():
    params = tf.ones([4, 3])
    ids = tf.SparseTensor([[0, 0], [1, 1]], tf.constant([1, 3], tf.int64), [2, 2])
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(1,\) are incompatible"):
        tf.nn.embedding_lookup_sparse(params, ids, tf.SparseTensor([[0, 0]], [1.0], [2, 2]))
    with pytest.raises(TypeError) as e:
        tf.nn.embedding_lookup_sparse(params, [1, 2], None)
    assert str(e.value) == "sp_ids must be SparseTensor"
    with pytest.raises(TypeError) as e:
        tf.nn.embedding_lookup_sparse(params, ids, [1.0, 2.0])
    assert str(e.value) == "sp_weights must be either None or SparseTensor"
    # the failed calls opened no name scope, as in TF
    assert tf.nn.embedding_lookup_sparse(params, ids, None).name == "embedding_lookup_sparse:0"


def test_unicode_error_words_and_surrogates():
    bad = tf.constant([b"\xff abc"])
    for t in (tf.strings.unicode_transcode(bad, "UTF-8", "UTF-16-BE", errors="strict"),
              tf.strings.unicode_decode(bad, "UTF-8", errors="strict").flat_values):
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            _run(t)
        assert str(e.value).split("\n")[0] == "Invalid formatting on input string"
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Code point value out of valid Unicode range\."):
        _run(tf.strings.unicode_encode([[-5]], "UTF-8", errors="strict"))
    got = _run(tf.strings.unicode_encode([[0xDFFF], [0x10FFFF]], "UTF-8", errors="strict"))
    assert got.tolist() == ["\ufffd".encode(), b"\xf4\x8f\xbf\xbf"]


def test_gradient_through_sparse_maximum_fails_as_in_tf():
    v = tf.constant([1.0, 2.0])
    s = tf.SparseTensor([[0, 0], [1, 2]], v * 1.0, [2, 3])
    for fn, name in ((tf.sparse_maximum, "SparseSparseMaximum"),
                     (tf.sparse_minimum, "SparseSparseMinimum")):
        with pytest.raises(TypeError, match=rf"_{name}Grad\(\) takes 2 positional arguments"):
            tf.gradients(tf.reduce_sum(fn(s, s).values), v)


def test_sparse_argument_errors_use_tf_words():
    s = _sp([[0, 0]], [1], [2, 2])
    with pytest.raises(ValueError, match="List argument 'inputs' to 'StringJoin' Op with "
                                         "length 0 shorter than minimum length 1"):
        tf.string_join([])
    with pytest.raises(TypeError) as e:
        tf.sparse_tensor_to_dense([[1, 2]])
    assert str(e.value) == "Input must be a SparseTensor."
    with pytest.raises(ValueError, match=r"Shape \(1, 1\) must have rank 1"):
        tf.sparse_retain(s, [[True]])
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        tf.sparse_concat(0, [s, _sp([[0, 0, 0]], [1], [2, 2, 1])])
    with pytest.raises(TypeError, match="Input 'b' of 'SparseTensorDenseMatMul' Op has type "
                                        "float64 that does not match type float32"):
        tf.sparse_tensor_dense_matmul(s, tf.ones([2, 2], tf.float64))
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
        tf.sparse_tensor_dense_matmul(s, tf.ones([2]))
    for t, words in [
            (tf.sparse_slice(s, [0], [2]),
             r"Expected start to be a vector of length 2 but got length 1"),
            (tf.sparse_reshape(_sp(np.zeros((0, 2), np.int64), [], [0, 3]), [0, -1]),
             ("reshape cannot infer the missing input size for an empty tensor unless all "
              "specified input sizes are non-zero")),
            (tf.sparse_tensor_to_dense(s, default_value=tf.constant([1.0])),
             r"^default_value should be a scalar\."),
            (tf.sparse_softmax(_sp([[0]], [1], [2])),
             "Input should have rank >= 2, but received shape: 2")]:
        with pytest.raises(tf.errors.InvalidArgumentError, match=words):
            _run(t)


def test_sparse_dense_matmul_adjoint_a_does_not_conjugate():
    a = tf.SparseTensor([[0, 0]], tf.constant([1 + 1j], tf.complex64), [2, 2])
    got = _run(tf.sparse_tensor_dense_matmul(a, tf.ones([2, 1], tf.complex64), adjoint_a=True))
    _same(got, [[1 + 1j], [0]])
