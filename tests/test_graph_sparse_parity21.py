"""Graph-network and sparse programs of TF 1.x (Kipf's GCN, GAT, GraphSAGE sampling, skip-gram
with NCE and the candidate samplers, the sparse API around them) compared with TF 1.15;
expected values are TF 1.15's printed outputs unless a comment says NumPy."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _fed_error(fetch, feed):
    with tf.Session() as s, pytest.raises(ValueError) as e:
        s.run(fetch, feed)
    return str(e.value)


def test_a_constant_shape_read_by_get_shape_may_not_be_fed():
    # Kipf's GCN: sparse_placeholder(shape=tf.constant(...)) fed an (indices, values, shape)
    # tuple. TF 1.15: once get_shape() has read the constant (its Python constant_value),
    # feeding it fails: 'Tensor Tensor("Const:0", shape=(2,), dtype=int64) may not be fed.'
    x = tf.sparse_placeholder(tf.float32, shape=tf.constant([3, 4], dtype=tf.int64))
    y = tf.sparse_reduce_sum(x)
    feed = {x: (np.array([[0, 1]], np.int64), np.array([2.0], np.float32), [3, 4])}
    with tf.Session() as s:
        assert s.run(y, feed) == 2.0  # not read yet: TF feeds it
    assert x.get_shape().as_list() == [3, 4]
    assert _fed_error(y, feed) == ('Tensor Tensor("Const:0", shape=(2,), dtype=int64) '
                                   'may not be fed.')


def test_get_static_value_makes_its_tensor_unfeedable():
    # TF 1.15: tf.get_static_value (tensor_util.constant_value) prevents feeding what it read;
    # a tensor it cannot read stays feedable
    a = tf.constant(3)
    b = tf.constant(4)
    assert tf.get_static_value(a) == 3
    assert _fed_error(a + 1, {a: 5}) == ('Tensor Tensor("Const:0", shape=(), dtype=int32) '
                                         'may not be fed.')
    p = tf.placeholder(tf.int32, [])
    assert tf.get_static_value(p) is None
    with tf.Session() as s:
        assert s.run(b + p, {b: 1, p: 2}) == 3


def test_compute_accidental_hits_is_a_namedtuple_with_one_hit_per_true_class():
    # TF 1.15: a ComputeAccidentalHits namedtuple; a candidate sampled twice (unique=False)
    # is one hit, at the last position it was sampled at
    labels = tf.constant([[1, 2], [3, 9], [0, 4]], tf.int64)
    hits = tf.nn.compute_accidental_hits(labels, tf.constant([2, 3, 2, 9, 2, 1], tf.int64), 2)
    assert type(hits).__name__ == "ComputeAccidentalHits"
    assert hits._fields == ("indices", "ids", "weights")
    with tf.Session() as s:
        r = s.run(hits)
    assert type(r).__name__ == "ComputeAccidentalHits"
    np.testing.assert_array_equal(r.indices, [0, 0, 1, 1])
    np.testing.assert_array_equal(r.ids, [5, 4, 1, 3])
    np.testing.assert_array_equal(r.weights, [-np.finfo(np.float32).max] * 4)


def test_compute_accidental_hits_run_time_checks_say_tfs_words():
    t, c = tf.placeholder(tf.int64), tf.placeholder(tf.int64)
    hits = tf.nn.compute_accidental_hits(t, c, num_true=2)
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"true_candidates must be a batch_size \* num_true matrix"):
            s.run(hits, {t: [[1, 2, 3]], c: [1]})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="sampled_candidates must be a vector, which is typically an "
                                 "output from CandidateSampler"):
            s.run(hits, {t: [[1, 2]], c: [[1]]})
        r = s.run(hits, {t: [[1, 2]], c: []})
    assert r.indices.shape == (0,) and r.ids.dtype == np.int64


@pytest.mark.parametrize("make", [
    lambda t: tf.nn.uniform_candidate_sampler(t, 3, 3, True, 10, seed=1),
    lambda t: tf.nn.log_uniform_candidate_sampler(t, 3, 3, False, 10, seed=1),
    lambda t: tf.nn.fixed_unigram_candidate_sampler(t, 3, 3, True, 10, unigrams=[1.] * 10),
    lambda t: tf.nn.learned_unigram_candidate_sampler(t, 3, 3, True, 10, seed=1),
    lambda t: tf.nn.all_candidate_sampler(t, 3, 10, True),
])
def test_samplers_check_num_true_at_run_time_only(make):
    # TF 1.15's CandidateSamplerShapeFn takes the true_expected_count shape [batch, num_true]
    # whatever true_classes' width; the kernel then fails, swapping its two numbers
    s = make(tf.constant([[1, 2], [3, 9]], tf.int64))
    assert s.true_expected_count.get_shape().as_list() == [2, 3]
    p = tf.placeholder(tf.int64)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="true_classes must have num_true columns, expected: 2 was: 3"):
            sess.run(s)
        with pytest.raises(tf.errors.InvalidArgumentError, match="true_classes must be a matrix\n"):
            sess.run(make(p), {p: [1, 2, 3]})


def _fill(indices, values, shape, default):
    return tf.raw_ops.SparseFillEmptyRows(
        indices=tf.constant(indices, tf.int64), values=values,
        dense_shape=tf.constant(shape, tf.int64), default_value=default)


def test_sparse_fill_empty_rows_shape_function_checks_as_tf():
    # TF 1.15: ranks (2, 1, 1, 0) in input order, then the rows and the rank merged
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1 for "
                                         "'SparseFillEmptyRows/SparseFillEmptyRows'"):
        tf.sparse_fill_empty_rows(tf.SparseTensor([[0, 1]], [1.0], [3, 4]), [1.0])
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 1 and 2"):
        _fill([[0, 0]], [1.0, 2.0], [2, 2], 1.0)
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        _fill([[0, 0]], [1.0], [2, 2, 2], 1.0)
    out = _fill([[0, 0]], [1.0], [2, 2], 1.0)
    assert [t.get_shape().as_list() for t in out] == [[None, 2], [None], [2], [1]]


def test_sparse_reshape_names_two_inferred_dims_as_numpy_prints_them():
    a = tf.SparseTensor([[0, 1]], [1.0], [3, 4])
    with pytest.raises(ValueError) as e:
        tf.sparse_reshape(a, [-1, -1])
    assert str(e.value) == "At most one dimension can be inferred (-1). Found: [-1 -1]"


def test_sparse_reshape_kernel_does_not_check_bounds():
    # TF 1.15's kernel linearizes with the input's strides and splits with the output's: an
    # index past the input shape is carried over, not rejected
    bad = tf.SparseTensor([[0, 1], [5, 0]], [1.0, 2.0], [3, 4])
    with tf.Session() as s:
        r = s.run(tf.sparse_reshape(bad, [4, 3]))
    np.testing.assert_array_equal(r.indices, [[0, 1], [6, 2]])
    np.testing.assert_array_equal(r.dense_shape, [4, 3])


def test_sparse_maximum_walks_unsorted_indices_as_tf():
    # TF 1.15 merges the two index lists in one walk (no sort): unsorted input comes out in
    # the walk's order
    a = tf.SparseTensor([[2, 1], [0, 0]], [1.0, 2.0], [3, 4])
    b = tf.SparseTensor([[0, 1], [1, 0], [2, 3]], [1.0, -2.0, 3.0], [3, 4])
    with tf.Session() as s:
        r = s.run(tf.sparse_maximum(a, b))
    np.testing.assert_array_equal(r.indices, [[0, 1], [1, 0], [2, 1], [0, 0], [2, 3]])
    np.testing.assert_array_equal(r.values, [1.0, 0.0, 1.0, 2.0, 3.0])


def test_feeding_a_sparse_placeholder_something_not_a_sequence():
    # TF 1.15 zips the three parts with the value: 'zip argument #2 must support iteration'
    p = tf.sparse_placeholder(tf.float32)
    a = tf.SparseTensor([[0, 1]], [1.0], [3, 4])
    with tf.Session() as s:
        for value in (a, 3):
            with pytest.raises(TypeError, match="zip argument #2 must support iteration"):
                s.run(p.values, {p: value})


def test_sparse_placeholder_shape_given_as_a_tensor_shape():
    # TF 1.15 converts a TensorShape to a constant: a partly known one fails, one of unknown
    # rank fails taking its length, a fully known one is a constant dense shape
    with pytest.raises(ValueError, match=r"Cannot convert a partially known TensorShape to a "
                                         r"Tensor: \(2, \?\)"):
        tf.sparse_placeholder(tf.float32, shape=tf.TensorShape([2, None]))
    with pytest.raises(ValueError, match="Cannot take the length of shape with unknown rank."):
        tf.sparse_placeholder(tf.float32, shape=tf.TensorShape(None))
    p = tf.sparse_placeholder(tf.float32, shape=tf.TensorShape([2, 3]), name="p")
    assert p.dense_shape.op.type == "Const" and p.dense_shape.name == "p/shape:0"
    assert [op.name for op in tf.get_default_graph().get_operations()] == [
        "p/shape", "p/values", "p/indices"]


def test_rank_of_a_sparse_tensor_is_a_size_op_shape_inference_does_not_fold():
    # TF 1.15: tf.rank(sparse) is a Size op of dense_shape; its shape inference folds a Size or
    # Rank op only when the input's value is known (not from a known input shape), so the
    # default perm of sparse.transpose over a placeholder shape leaves the result unknown
    p = tf.sparse_placeholder(tf.float32, shape=[None, None, 4])
    r = tf.rank(p)
    assert r.op.type == "Size" and r.op.name == "Rank"
    assert tf.range(r).get_shape().as_list() == [None]
    t = tf.sparse.transpose(p)
    assert t.get_shape().ndims is None
    assert t.indices.get_shape().as_list() == [None, None]
    assert t.dense_shape.get_shape().as_list() == [None]
    x = tf.placeholder(tf.float32, [3, 2])
    assert tf.range(tf.raw_ops.Size(input=x)).get_shape().as_list() == [None]
    assert tf.range(tf.raw_ops.Rank(input=x)).get_shape().as_list() == [None]
    assert tf.range(tf.raw_ops.Shape(input=x)[0]).get_shape().as_list() == [3]
    # a Size of a constant folds (TF evaluates the constant subgraph)
    a = tf.SparseTensor([[0, 1, 2]], [1.0], [2, 3, 4])
    assert tf.sparse.transpose(a).indices.get_shape().as_list() == [1, 3]
    with tf.Session() as s:
        r = s.run(tf.sparse.transpose(p), {p: ([[0, 1, 2]], [3.0], [1, 2, 4])})
    np.testing.assert_array_equal(r.indices, [[2, 1, 0]])
    np.testing.assert_array_equal(r.dense_shape, [4, 2, 1])


def test_partitioned_variable_has_the_default_repr():
    # TF 1.15 prints '<tensorflow.python.ops.variables.PartitionedVariable object at 0x...>'
    v = tf.get_variable("emb", [30, 6], partitioner=tf.fixed_size_partitioner(3))
    assert repr(v).startswith("<") and "PartitionedVariable object at 0x" in repr(v)


def test_sparse_dense_matmul_mismatch_shows_the_shapes_as_given():
    # TF 1.15: 'Dimensions of A: [2, 3).  Dimensions of B: [5,4]' whatever the adjoint flags
    p, d = tf.sparse_placeholder(tf.float32), tf.placeholder(tf.float32)
    feed = {p: ([[0, 1]], [1.0], [2, 3]), d: np.ones([5, 4])}
    with tf.Session() as s:
        for aa, ab, k, n in ((False, True, 3, 4), (True, False, 2, 5), (True, True, 2, 4)):
            m = tf.sparse_tensor_dense_matmul(p, d, adjoint_a=aa, adjoint_b=ab)
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                s.run(m, feed)
            assert e.value.message.split("\n")[0] == (
                f"Cannot multiply A and B because inner dimension does not match: {k} vs. {n}.  "
                "Did you forget a transpose?  Dimensions of A: [2, 3).  Dimensions of B: [5,4]")


def test_sparse_softmax_writes_its_values_in_sorted_index_order():
    # TF 1.15's kernel reorders a copy of the input and writes the softmax out in row-major
    # order, so unsorted indices (GAT's sparse heads feed (col, row) pairs) are paired with
    # the sorted entries' values; values from TF 1.15
    a = tf.SparseTensor([[1, 0], [0, 1], [1, 1], [0, 0]], [1.0, 2.0, 3.0, 0.5], [2, 2])
    with tf.Session() as s:
        r = s.run(tf.sparse_softmax(a))
    np.testing.assert_allclose(r.values, [0.18242552, 0.81757448, 0.11920292, 0.88079708],
                               rtol=1e-6)
    np.testing.assert_array_equal(r.indices, [[1, 0], [0, 1], [1, 1], [0, 0]])


def test_embedding_lookup_checks_the_partition_strategy_only_for_shards():
    # TF 1.15: one table ignores the strategy (sampled_softmax_loss(..., 'foo') builds); two
    # shards fail after the ids are flattened and numbered
    w, b = tf.ones([20, 4]), tf.zeros([20])
    labels, x = tf.constant([[1], [2], [3]], tf.int64), tf.ones([3, 4])
    loss = tf.nn.sampled_softmax_loss(w, b, labels, x, 4, 20, partition_strategy="foo")
    assert loss.get_shape().as_list() == [3]
    with pytest.raises(ValueError, match="Unrecognized partition strategy: zig"):
        tf.nn.embedding_lookup([np.zeros([2, 2])] * 2, [0], partition_strategy="zig")
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names[-3:] == ["embedding_lookup/range/start", "embedding_lookup/range/delta",
                          "embedding_lookup/range"]


def test_slice_checks_begin_against_size_then_the_rank():
    # TF 1.15's SliceShapeFn: begin's length merged with size's, then the input's rank
    x = tf.ones([7, 1])
    with pytest.raises(ValueError, match=r"^Shape must be rank 1 but is rank 2 for 'Slice' "):
        tf.slice(x, [0], [1])
    with pytest.raises(ValueError, match=r"^Dimension 0 in both shapes must be equal, but are 2 "
                                         r"and 1\. Shapes are \[2\] and \[1\]\. for 'Slice_1'"):
        tf.slice(x, [0, 0], [1])
    with pytest.raises(ValueError, match=r"^Shape must be rank 3 but is rank 2 for 'Slice_2'"):
        tf.slice(x, tf.placeholder(tf.int32, [None]), [1, 1, 1])


def test_unsorted_segment_shape_function_in_tfs_order_and_words():
    # TF 1.15's UnsortedSegmentReductionShapeFn messages (graph-network aggregations)
    def fails(match, *args):
        with pytest.raises(ValueError, match=match):
            tf.unsorted_segment_sum(*args)

    fails("^Dimensions must be equal, but are 5 and 2 for 'UnsortedSegmentSum'",
          tf.ones([5, 3]), [0, 1], 2)
    fails("^Shape must be rank 0 but is rank 1 for 'UnsortedSegmentSum_1'",
          tf.ones([5, 3]), [0, 1, 1, 1, 1], [2])
    fails("^Shape must be at least rank 2 but is rank 1 for 'UnsortedSegmentSum_2'",
          tf.ones([5]), tf.zeros([5, 2], tf.int32), 2)
    # num_segments is checked even when data's rank is unknown
    fails("must be non-negative but is -2", tf.placeholder(tf.float32),
          tf.zeros([5, 2], tf.int32), -2)


def test_sparse_to_dense_default_value_of_another_type_fails_in_the_ops_words():
    # TF 1.15: the generated wrapper converts default_value to the values' type
    w = tf.SparseTensor([[0, 0], [1, 1]], [1, 2], [2, 2])
    with pytest.raises(TypeError) as e:
        tf.sparse_tensor_to_dense(w, default_value=7.5)
    assert str(e.value) == ("Expected int32 passed to parameter 'default_value' of op "
                            "'SparseToDense', got 7.5 of type 'float' instead. Error: Expected "
                            "int32, got 7.5 of type 'float' instead.")
    d = tf.sparse_tensor_to_dense(w, default_value=-1)
    assert d.op.inputs[3].name == "SparseToDense_1/default_value:0"


def test_fixed_unigram_sampler_needs_exactly_one_distribution(tmp_path):
    # TF 1.15's FixedUnigramCandidateSampler kernel constructor checks
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a,5\nb,1\nc,3\nd,0\ne,7\nf,2\n")
    labels = tf.constant([[0, 1]], tf.int64)
    both = tf.nn.fixed_unigram_candidate_sampler(labels, 2, 3, True, 6, vocab_file=str(vocab),
                                                 unigrams=[1.0] * 6)
    neither = tf.nn.fixed_unigram_candidate_sampler(labels, 2, 3, True, 6)
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Must only provide one of vocab_file and unigrams."):
            s.run(both)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Must provide either vocab_file or unigrams."):
            s.run(neither)


def test_unary_ops_on_a_sparse_tensor_name_their_values_op_as_tf():
    # TF 1.15: the dense call takes its scope and fails on the SparseTensor, then the sparse
    # dispatcher calls it again on the values: 'Abs_1', 'Neg_1', ..., 'myabs_1'
    a = tf.SparseTensor([[0, 0]], [1.0], [2, 2])
    names = [f(a).values.name for f in (tf.abs, tf.negative, tf.sign, tf.square, tf.sqrt,
                                        tf.erf, tf.tanh, tf.math.abs)]
    assert names == ["Abs_1:0", "Neg_1:0", "Sign_1:0", "Square_1:0", "Sqrt_1:0", "Erf_1:0",
                     "Tanh_1:0", "Abs_3:0"]
    assert tf.abs(a, name="myabs").values.name == "myabs_1:0"


def test_stack_converts_its_first_value_on_its_own():
    # TF 1.15's stack (when the list does not pack into one constant): values[0] converted
    # alone, a Python value becoming an unused Const named after the stack
    p = tf.placeholder(tf.float32, [2])
    assert tf.stack([[1.0, 2.0], p], axis=1).name == "stack_1:0"
    assert tf.stack([p, [1.0, 2.0]], axis=1).name == "stack_2:0"
    ops_ = [(op.name, op.type) for op in tf.get_default_graph().get_operations()]
    assert ops_[1:4] == [("stack", "Const"), ("stack_1/values_0", "Const"), ("stack_1", "Pack")]
    a = tf.SparseTensor([[0, 0]], [1.0], [2, 2])
    with pytest.raises(TypeError, match="^Failed to convert object of type"):
        tf.stack([a, a])


def test_converting_an_unconvertible_object_to_a_given_dtype():
    # TF 1.15: 'Expected float32, got <...SparseTensor object at 0x...> of type 'SparseTensor'
    # instead.' (a + dense, dense's __radd__ converting a to its dtype)
    a = tf.SparseTensor([[0, 0]], [1.0], [2, 2])
    with pytest.raises(TypeError, match=r"^Expected float32, got <.*SparseTensor object at "
                                        r"0x[0-9a-f]+> of type 'SparseTensor' instead\.$"):
        a + tf.ones([2, 2])
    with pytest.raises(TypeError, match="^Failed to convert object of type"):
        tf.convert_to_tensor(a)
    with pytest.raises(TypeError, match=r"^__init__\(\) missing 1 required positional "
                                        r"argument: 'dense_shape'$"):
        tf.SparseTensor([[0, 0]], [1.0])


def test_size_of_a_sparse_tensor_and_a_failed_reduction_build_tfs_ops():
    # TF 1.15: size(sparse) is Prod(Cast(dense_shape), 0) named as the size; reduce_sum of
    # a SparseTensor of known rank makes its axes Const before failing to convert it
    a = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
    n0 = len(tf.get_default_graph().get_operations())
    s = tf.size(a, out_type=tf.int64)
    assert [(op.name, op.type) for op in tf.get_default_graph().get_operations()[n0:]] == [
        ("Size/Cast", "Cast"), ("Size/reduction_indices", "Const"), ("Size", "Prod")]
    assert s.dtype == tf.int64
    with tf.Session() as sess:
        assert sess.run(s) == 12
    with pytest.raises(TypeError, match="^Failed to convert object of type"):
        tf.reduce_sum(a)
    assert [op.name for op in tf.get_default_graph().get_operations()][-1] == "Const"
    assert tf.rank(a).name == "Rank:0"


def test_sparse_split_refuses_both_axis_and_split_dim():
    # TF 1.15: deprecated_argument_lookup's "Cannot specify both 'split_dim' and 'axis'"
    a = tf.SparseTensor([[0, 1], [1, 0], [2, 4]], [1.0, 2.0, 3.0], [3, 5])
    with pytest.raises(ValueError, match="^Cannot specify both 'split_dim' and 'axis'$"):
        tf.sparse_split(sp_input=a, num_split=2, axis=1, split_dim=1)


def test_sparse_segment_shape_function_and_num_segments_error_as_tf():
    data = tf.ones([4, 3])
    with pytest.raises(ValueError, match=r"^Shape must be rank 1 but is rank 2 for "
                                         r"'SparseSegmentSum'"):
        tf.sparse_segment_sum(data, [[0]], [0])
    with pytest.raises(ValueError, match=r"^Dimension 0 in both shapes must be equal, but are "
                                         r"2 and 1\. Shapes are \[2\] and \[1\]\."):
        tf.sparse_segment_mean(data, [0, 1], [0])
    with pytest.raises(ValueError, match=r"^Shape must be rank 0 but is rank 1"):
        tf.sparse.segment_sum(data, [0, 1], [0, 0], num_segments=[2])
    total = tf.sparse.segment_sum(data, [0, 2, 3, 1], [0, 0, 1, 3], num_segments=2)
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError,
                                          match="^segment ids must be < num_segments\n"):
        s.run(total)
