"""String, sparse, queue, parsing and lookup ops where TF 1.15's own kernel tests showed tideflow
behaving differently: each test pins the TF 1.x behaviour with values worked out by hand or
with NumPy (string splitting into ragged rows, empty constants, sparse merge / reset-shape /
reductions, queue and parsing edge cases)."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.python.framework import test_util


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


# -- string splitting ------------------------------------------------------------------------


def test_string_split_ragged_result_type():
    with tf.Graph().as_default():
        rt = tf.string_split(["a b c", "", "d"], result_type="RaggedTensor")
        assert type(rt).__name__ == "RaggedTensor"
        assert _run(rt).to_list() == [[b"a", b"b", b"c"], [], [b"d"]]


def test_string_ops_string_split_v2_is_sparse_over_a_vector():
    from tideflow.python.ops import string_ops

    with tf.Graph().as_default():
        sp = string_ops.string_split_v2(["x<>y<>", "z"], sep="<>")
        v = _run(sp)
        # exact separator: the trailing empty token is kept
        assert v.indices.tolist() == [[0, 0], [0, 1], [0, 2], [1, 0]]
        assert v.values.tolist() == [b"x", b"y", b"", b"z"]
        assert v.dense_shape.tolist() == [2, 3]
        with pytest.raises(ValueError, match="vector"):
            string_ops.string_split_v2([["a"]])


def test_ragged_string_ops_module_paths():
    from tideflow.python.ops.ragged import ragged_factory_ops, ragged_string_ops

    with tf.Graph().as_default():
        words = ragged_string_ops.string_split_v2(["p q", "r"])
        assert _run(words).to_list() == [[b"p", b"q"], [b"r"]]
        # a scalar gives the tokens themselves (one fewer ragged dimension than a vector)
        tokens = ragged_string_ops.string_split_v2("1,2", sep=",")
        assert _run(tokens).tolist() == [b"1", b"2"]
        nested = ragged_factory_ops.constant([["a b"], ["c", "d e f"]])
        split = ragged_string_ops.strings_split_v1(nested, result_type="RaggedTensor")
        assert _run(split).to_list() == [[[b"a", b"b"]], [[b"c"], [b"d", b"e", b"f"]]]


class TestRaggedEquality(tf.test.TestCase):
    def test_assert_all_equal_on_ragged(self):
        with tf.Graph().as_default():
            rt = tf.ragged.constant([[1, 2], [3]])
            self.assertAllEqual(rt, [[1, 2], [3]])
            with self.assertRaises(AssertionError):
                self.assertAllEqual(rt, [[1, 2], [4]])


# -- constants -------------------------------------------------------------------------------


def test_constant_empty_value_with_zero_element_shape():
    with tf.Graph().as_default():
        t = tf.constant([], dtype=tf.float32, shape=[0, 2, 3])
        assert t.get_shape().as_list() == [0, 2, 3]
        assert _run(t).shape == (0, 2, 3)
        q = tf.FIFOQueue(10, tf.float32)
        enq = q.enqueue_many((t,))
        with tf.Session() as sess:
            sess.run(enq)
            assert sess.run(q.size()) == 0


# -- sparse ops ------------------------------------------------------------------------------


def _ids_and_values():
    ind = np.array([[0, 0], [1, 0], [1, 2], [2, 0], [2, 1], [1, 1]], np.int64)
    shape = np.array([3, 3], np.int64)
    ids = tf.SparseTensorValue(ind, np.array([4, 9, 1, 7, 6, 2], np.int32), shape)
    ids2 = tf.SparseTensorValue(ind, np.array([0, 3, 1, 2, 0, 5], np.int64), shape)
    vals = tf.SparseTensorValue(ind, np.array([.5, 1., 2., 3., 4., 5.], np.float32), shape)
    return ind, ids, ids2, vals


def _dense_of(v):
    out = np.zeros(v.dense_shape, v.values.dtype)
    out[tuple(v.indices.T)] = v.values
    return out


def test_sparse_merge_accepts_sparse_tensor_values():
    ind, ids, _, vals = _ids_and_values()
    with tf.Graph().as_default():
        out = _run(tf.sparse_merge(ids, vals, 10))
    expected = np.zeros((3, 10), np.float32)
    for (row, _), i, v in zip(ind, ids.values, vals.values):
        expected[row, i] = v
    np.testing.assert_array_equal(_dense_of(out), expected)
    # reordered into row-major order
    assert out.indices.tolist() == sorted(out.indices.tolist())


def test_sparse_merge_several_id_lists():
    ind, ids, ids2, vals = _ids_and_values()
    with tf.Graph().as_default():
        out = _run(tf.sparse_merge([ids, ids2], vals, [10, 6]))
        with pytest.raises(ValueError, match="equal lengths"):
            tf.sparse_merge([ids, ids2], vals, [10])
        with pytest.raises(TypeError, match="vocab_size"):
            tf.sparse_merge(ids, vals, [10])
    expected = np.zeros((3, 10, 6), np.float32)
    for (row, _), i, j, v in zip(ind, ids.values, ids2.values, vals.values):
        expected[row, i, j] = v
    np.testing.assert_array_equal(_dense_of(out), expected)


def test_sparse_merge_static_shape_with_fed_dense_shape():
    with tf.Graph().as_default():
        shape = tf.placeholder_with_default(np.array([2, 2], np.int64), shape=[2])
        ids = tf.SparseTensor([[0, 0], [0, 1]], [1, 3], shape)
        vals = tf.SparseTensor([[0, 0], [0, 1]], [0.4, 0.7], shape)
        merged = tf.sparse_merge(ids, vals, 5)
        assert merged.get_shape().as_list() == [None, 5]


def test_sparse_reset_shape_checks():
    ind = np.array([[0, 0, 0], [1, 3, 2]], np.int64)
    with tf.Graph().as_default():
        sp = tf.SparseTensor(ind, np.array([1, 2], np.int32), np.array([2, 5, 6], np.int64))
        with pytest.raises(ValueError, match="should have dimension sizes >= sp_input.shape"):
            tf.sparse.reset_shape(sp, np.array([3, 7, 5], np.int64))
        # an int32 new shape fed at run time is cast to int64
        new = tf.placeholder(tf.int32)
        out = tf.sparse.reset_shape(sp, new)
        with tf.Session() as sess:
            assert sess.run(out, {new: [3, 6, 7]}).dense_shape.tolist() == [3, 6, 7]
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="x <= y did not hold element-wise"):
                sess.run(out, {new: [3, 7, 5]})
        new64 = tf.placeholder(tf.int64)
        out = tf.sparse.reset_shape(sp, new64)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                           match="x == y did not hold element-wise"):
            sess.run(out, {new64: [3, 7]})


def test_sparse_full_reduction_to_dense():
    ind = np.array([[0, 0], [0, 2], [1, 1]], np.int64)
    vals = np.array([4, 1, 7], np.int32)
    with tf.Graph().as_default():
        sp = tf.SparseTensor(ind, vals, np.array([2, 3], np.int64))
        total = tf.sparse_tensor_to_dense(tf.sparse_reduce_sum_sparse(sp))
        biggest = tf.sparse_tensor_to_dense(tf.sparse_reduce_max_sparse(sp))
        kept = tf.sparse_tensor_to_dense(tf.sparse_reduce_sum_sparse(sp, keepdims=True))
        t, b, k = _run([total, biggest, kept])
    assert t.shape == () and t == vals.sum()
    assert b == vals.max()
    np.testing.assert_array_equal(k, [[vals.sum()]])


def test_sparse_to_dense_scalar_output():
    with tf.Graph().as_default():
        d = tf.sparse_to_dense(np.zeros((1, 0), np.int64), np.zeros([0], np.int64), 5.0, 0.0)
        assert _run(d) == 5.0


def test_test_util_force_cpu_is_a_context():
    with test_util.force_cpu():
        pass


# -- parse_example ---------------------------------------------------------------------------


def _example(**feats):
    from tideflow.core.example import example_pb2

    ex = example_pb2.Example()
    for key, values in feats.items():
        f = ex.features.feature[key]
        if values is None:
            f.SetInParent()  # a Feature with no list set
        elif isinstance(values[0], bytes):
            f.bytes_list.value.extend(values)
        elif isinstance(values[0], float):
            f.float_list.value.extend(values)
        else:
            f.int64_list.value.extend(values)
    return ex.SerializeToString()


def test_parse_example_errors_name_the_example_index():
    with tf.Graph().as_default():
        s = tf.placeholder(tf.string, [None])
        out = tf.parse_example(s, {"a": tf.FixedLenFeature([3], tf.float32)},
                               example_names=["first", "second", "third"])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Name: third, Key: a, Index: 2\.  Number of float values "
                                 r"!= expected\.  Values size: 2 but output shape: \[3\]"):
            _run(out, {s: [_example(a=[1., 2., 3.]), _example(a=[4., 5., 6.]),
                           _example(a=[7., 8.])]})
        seq = tf.parse_example(s, {"b": tf.FixedLenSequenceFeature([2], tf.string,
                                                                   allow_missing=True)},
                               example_names=["x", "y"])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Name: y, Key: b, Index: 1\.  Number of bytes values is not a "
                                 r"multiple of stride length"):
            _run(seq, {s: [_example(b=[b"p", b"q"]), _example(b=[b"r"])]})


def test_parse_example_empty_feature_counts_as_missing():
    with tf.Graph().as_default():
        s = tf.placeholder(tf.string, [None])
        with_default = tf.parse_example(s, {"a": tf.FixedLenFeature([2], tf.float32,
                                                                    default_value=[7., 8.])})
        got = _run(with_default, {s: [_example(a=None), _example(a=[1., 2.])]})
        np.testing.assert_array_equal(got["a"], [[7., 8.], [1., 2.]])
        required = tf.parse_example(s, {"a": tf.FixedLenFeature([2], tf.float32)},
                                    example_names=["only"])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Name: only, Feature: a \(data type: float\) is required"):
            _run(required, {s: [_example(a=None)]})


def test_parse_example_feature_shape_errors():
    with tf.Graph().as_default():
        s = tf.placeholder(tf.string, [None])
        with pytest.raises(ValueError, match="^Missing shape for feature a.$"):
            tf.parse_example(s, {"a": tf.FixedLenFeature(None, tf.float32)})
        with pytest.raises(ValueError, match="First dimension of shape for feature a unknown. "
                                             "Consider using FixedLenSequenceFeature."):
            tf.parse_example(s, {"a": tf.FixedLenFeature([None, 2], tf.float32)})
        with pytest.raises(ValueError, match="need to be known"):
            tf.parse_example(s, {"a": tf.FixedLenFeature([2, None], tf.float32)})


def _sequence(**lists):
    from tideflow.core.example import example_pb2

    seq = example_pb2.SequenceExample()
    for key, steps in lists.items():
        fl = seq.feature_lists.feature_list[key]
        for step in steps:
            f = fl.feature.add()
            (f.float_list if isinstance(step[0], float) else f.int64_list).value.extend(step)
    return seq.SerializeToString()


def test_sequence_example_feature_list_errors():
    spec = {"a": tf.FixedLenSequenceFeature([2], tf.int64)}
    with tf.Graph().as_default():
        s = tf.placeholder(tf.string, [])
        _, wrong_type = tf.parse_single_sequence_example(s, sequence_features=spec,
                                                         example_name="seq0")
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Name: seq0, Feature list: a, Index: 1\.  Data types don't "
                                 r"match\. Expected type: int64  Feature is: float_list"):
            _run(wrong_type, {s: _sequence(a=[[1, 2], [3., 4.]])})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Name: seq0, Key: a, Index: 0\.  Number of int64 values != "
                                 r"expected\.  values size: 3 but output shape: \[2\]"):
            _run(wrong_type, {s: _sequence(a=[[1, 2, 3]])})


def test_decode_raw_fixed_length_pads_and_cuts():
    from tideflow.python.ops import parsing_ops

    data = [b"\x01\x00\x02", b"\x03\x00\x04\x00\x05\x00\x06\x00"]
    with tf.Graph().as_default():
        out = parsing_ops.decode_raw(data, tf.int16, fixed_length=4)
        assert out.get_shape().as_list() == [2, 2]
        # each string cut or zero-padded to 4 bytes, then read as little-endian int16
        want = [np.frombuffer(d[:4].ljust(4, b"\0"), "<i2") for d in data]
        np.testing.assert_array_equal(_run(out), want)
        with pytest.raises(tf.errors.InvalidArgumentError):
            _run(parsing_ops.decode_raw_v1(data, tf.int16))  # different lengths
        with pytest.raises(tf.errors.InvalidArgumentError, match="multiple"):
            _run(parsing_ops.decode_raw(data, tf.int16, fixed_length=3))


def test_decode_csv_record_defaults_must_be_a_list():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="Expected list for 'record_defaults'"):
            tf.decode_csv(tf.constant("1,2"), np.zeros(2))
        a, b = tf.decode_csv(tf.constant("1,2"), (np.float32(0), np.int32(0)))
        assert _run([a, b]) == [1.0, 2]


# -- lookup tables ---------------------------------------------------------------------------


def test_static_hash_table_export_and_v1_names():
    from tideflow.python.ops import lookup_ops

    assert lookup_ops.StaticHashTableV1 is tf.lookup.StaticHashTable
    assert lookup_ops.StaticVocabularyTableV1 is tf.lookup.StaticVocabularyTable
    with tf.Graph().as_default():
        table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(["x", "y", "z"], np.array([7, 8, 9], np.int64)),
            -1)
        keys, values = table.export()
        with tf.Session() as sess:
            sess.run(table.initializer)
            k, v = sess.run([keys, values])
    assert dict(zip(k.tolist(), v.tolist())) == {b"x": 7, b"y": 8, b"z": 9}


def test_key_value_initializer_lengths_checked_statically():
    with tf.Graph().as_default():
        init = tf.lookup.KeyValueTensorInitializer(tf.constant(["a", "b"]),
                                                   tf.constant([1, 2, 3], tf.int64))
        with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but "
                                             r"are 2 and 3\. Shapes are \[2\] and \[3\]"):
            tf.lookup.StaticHashTable(init, -1)


def test_tables_made_inside_control_flow_live_outside():
    keys = np.array([1, 2, 3], np.int32)
    vals = np.array([5, 10, 15], np.int32)
    with tf.Graph().as_default():
        def body(x):
            table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(keys, vals), -1)
            return table.lookup(x)

        elems = np.array([2, 4, 1], np.int32)
        mapped = tf.map_fn(body, elems, dtype=tf.int32)
        branch = tf.cond(tf.constant(True), lambda: body(tf.constant(3)), lambda: tf.constant(0))
        # one table and one initializer per construction, all in the outer graph
        assert len(tf.get_collection(tf.GraphKeys.TABLE_INITIALIZERS)) == 2
        with tf.Session() as sess:
            sess.run(tf.tables_initializer())
            got, b = sess.run([mapped, branch])
    lookup = dict(zip(keys.tolist(), vals.tolist()))
    assert got.tolist() == [lookup.get(int(e), -1) for e in elems]
    assert b == 15


def test_text_file_tables_share_by_file_and_columns(tmp_path):
    vocab = tmp_path / "words.txt"
    vocab.write_text("ant\nbee\ncat\n")
    whole, line = tf.lookup.TextFileIndex.WHOLE_LINE, tf.lookup.TextFileIndex.LINE_NUMBER
    with tf.Graph().as_default():
        init = tf.lookup.TextFileInitializer(str(vocab), tf.string, whole, tf.int64, line)
        assert init._shared_name == f"hash_table_{vocab}_-2_-1"
        sized = tf.lookup.TextFileInitializer(str(vocab), tf.string, whole, tf.int64, line,
                                              vocab_size=2)
        assert sized._shared_name == f"hash_table_{vocab}_2_-2_-1"
        t1 = tf.lookup.StaticHashTable(init, -1)
        t2 = tf.lookup.StaticHashTable(
            tf.lookup.TextFileInitializer(str(vocab), tf.string, whole, tf.int64, line), -1)
        assert t1.resource_handle.op.get_attr("shared_name") == init._shared_name.encode()
        words = tf.constant(["cat", "ant", "dog"])
        with tf.Session() as sess:
            sess.run(t1.initializer)  # the second table reads the same resource
            assert sess.run(t2.lookup(words)).tolist() == [2, 0, -1]
        with pytest.raises(ValueError, match="Filename required"):
            tf.lookup.TextFileInitializer("", tf.string, whole, tf.int64, line)
        with pytest.raises(ValueError, match="rank 0"):
            tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
                tf.constant([str(vocab)] * 2), tf.string, whole, tf.int64, line), -1)


def test_vocabulary_table_without_initializer_hashes_only():
    from tideflow.ops.string_hash_ops import fingerprint64

    words = [b"brain", b"salad", b"surgery"]
    with tf.Graph().as_default():
        table = tf.lookup.StaticVocabularyTable(None, 5)
        assert table.resource_handle is None
        ids, size = table.lookup(tf.constant(words)), table.size()
        with tf.Session() as sess:
            sess.run(table.initializer)  # a no-op
            got, n = sess.run([ids, size])
    # Fingerprint64 of each word, modulo the bucket count
    assert got.tolist() == [fingerprint64(w) % 5 for w in words]
    assert n == 5


# -- queues ----------------------------------------------------------------------------------


class TestQueueFromThreads(tf.test.TestCase):
    def test_blocking_dequeue_fed_by_another_thread(self):
        with tf.Graph().as_default():
            tf.get_default_graph().switch_to_thread_local()
            q = tf.FIFOQueue(2, tf.float32, shapes=[])
            enqueue = q.enqueue_many(([1.5, 2.5, 3.5],))
            dequeued = q.dequeue_up_to(3)
            assert dequeued.get_shape().as_list() == [None]
            assert dequeued._shape_as_list() == [None]
            with self.cached_session():
                # evaluate() from a thread with no default session or graph of its own uses
                # the test's cached session of the fetches' graph
                t = self.checkedThread(target=lambda: self.evaluate(enqueue))
                t.start()
                got = [self.evaluate(q.dequeue()) for _ in range(3)]
                t.join()
        assert got == [1.5, 2.5, 3.5]


def test_queue_from_list_selects_at_run_time():
    with tf.Graph().as_default():
        small = tf.FIFOQueue(4, tf.int32, shapes=[[2]])
        big = tf.FIFOQueue(4, tf.int32, shapes=[[3]])
        which = tf.placeholder(tf.int32, [])
        chosen = tf.QueueBase.from_list(which, [small, big])
        # the shapes the two queues share: a vector of unknown length
        assert chosen.shapes[0].as_list() == [None]
        with tf.Session() as sess:
            sess.run(small.enqueue([[1, 2]]))
            sess.run(big.enqueue([[3, 4, 5]]))
            assert sess.run(chosen.dequeue(), {which: 1}).tolist() == [3, 4, 5]
            assert sess.run(chosen.size(), {which: 0}) == 1
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"is not in \[0, 2\)"):
                sess.run(chosen.size(), {which: 2})
        with pytest.raises(TypeError, match="matching component dtypes"):
            tf.QueueBase.from_list(0, [small, tf.FIFOQueue(4, tf.float32)])


def test_priority_queue_priority_shape_errors():
    with tf.Graph().as_default():
        prio = tf.placeholder(tf.int64)
        other = tf.placeholder(tf.string)
        q = tf.PriorityQueue(10, (tf.string,), ((),))
        one, many = q.enqueue((prio, other)), q.enqueue_many((prio, other))
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Shape mismatch in tuple component 0\. Expected \[\], got "
                                     r"\[2\]"):
                sess.run(one, {prio: [0, 2], other: "x"})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Shape mismatch in tuple component 0\. Expected \[2\], got "
                                     r"\[2,2\]"):
                sess.run(many, {prio: [[0, 2], [3, 4]], other: ["x", "y"]})
            sess.run(many, {prio: [5, -1, 3], other: ["a", "b", "c"]})
            p, v = sess.run(q.dequeue_many(3))
    assert p.tolist() == [-1, 3, 5] and v.tolist() == [b"b", b"c", b"a"]


# -- readers ---------------------------------------------------------------------------------


def test_identity_reader_state_round_trip():
    from tideflow.framework.wire_format import encode_varint

    with tf.Graph().as_default():
        reader = tf.IdentityReader(name="ident")
        q = tf.FIFOQueue(9, tf.string, shapes=())
        key, _ = reader.read(q)
        produced = reader.num_records_produced()
        with tf.Session() as sess:
            sess.run(q.enqueue_many([["p", "q", "r"]]))
            assert sess.run(key) == b"p"
            state = sess.run(reader.serialize_state())
            # ReaderBaseState: work_started=1, work_finished=1, num_records_produced=1 and, as
            # TF 1.15 keeps it, the finished work unit as current_work
            assert state == b"".join(encode_varint(tag) + b"\x01"
                                     for tag in (0x08, 0x10, 0x18)) + b'"\x01p'
            assert [sess.run(key) for _ in range(2)] == [b"q", b"r"]
            sess.run(reader.restore_state(state))
            assert sess.run(produced) == 1
            for bad in (state[1:], state[:-1], b"\x0a\x05ab"):
                with pytest.raises(tf.errors.InvalidArgumentError,
                                   match="Could not parse state for IdentityReader 'ident'"):
                    sess.run(reader.restore_state(bad))
        with pytest.raises(ValueError, match="rank 0"):
            reader.restore_state([state, state])


def test_sparse_reshape_static_shape_and_checks():
    ind = np.array([[0, 0], [1, 3], [3, 2]], np.int64)
    vals = np.array([1., 2., 3.])
    with tf.Graph().as_default():
        sp = tf.SparseTensor(ind, vals, np.array([5, 6], np.int64))
        assert tf.sparse_reshape(sp, [3, -1]).get_shape().as_list() == [3, 10]
        assert tf.sparse_reshape(sp, (1, 5, 2, 3)).get_shape().as_list() == [1, 5, 2, 3]
        with pytest.raises(ValueError, match="At most one dimension can be inferred"):
            tf.sparse_reshape(sp, [-1, 2, -1])
        with pytest.raises(ValueError, match=r"Cannot reshape a tensor with 30 elements to "
                                             r"shape \[4, 7\] \(28 elements\)"):
            tf.sparse_reshape(sp, [4, 7])
        # tf.shape of a SparseTensor is int32: cast to the op's int64
        fed = tf.sparse_placeholder(tf.float64)
        same = tf.sparse_reshape(fed, tf.shape(fed))
        out = _run(same, {fed: tf.SparseTensorValue(ind, vals, [5, 6])})
    np.testing.assert_array_equal(out.indices, ind)
    np.testing.assert_array_equal(out.dense_shape, [5, 6])


def test_sparse_to_dense_output_shape_must_be_a_vector():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
            tf.sparse_to_dense([1, 3], [[5], [3]], 1, -1)
        np.testing.assert_array_equal(_run(tf.sparse_to_dense([1, 3], [5], 1, -1)),
                                      [-1, 1, -1, 1, -1])


def test_sparse_dense_matmul_index_and_shape_errors():
    with tf.Graph().as_default():
        sp = tf.SparseTensor(np.array([[1, 10]], np.int64), np.array([10.], np.float32), [3, 2])
        plain = tf.sparse_tensor_dense_matmul(sp, np.ones((2, 4), np.float32))
        adjoint = tf.sparse_tensor_dense_matmul(sp, np.ones((3, 4), np.float32), adjoint_a=True)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"k \(10\) from index\[0,1\] out of bounds \(>=2\)"):
                sess.run(plain)
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"m \(10\) from index\[0,1\] out of bounds \(>=2\)"):
                sess.run(adjoint)
        wide = tf.SparseTensor([[0, 0]], [1.], [10, 15])
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 15 and 10"):
            tf.sparse_tensor_dense_matmul(wide, np.zeros((10, 20), np.float32))
        ok = tf.sparse_tensor_dense_matmul(wide, np.zeros((20, 15), np.float32), adjoint_b=True)
        assert ok.get_shape().as_list() == [10, 20]


def test_reduce_join_keepdims_spelling():
    with tf.Graph().as_default():
        a = tf.reduce_join(["foo", "bar"], axis=0, keepdims=True)
        b = tf.strings.reduce_join([["x", "y"], ["z", "w"]], 1, keepdims=True, separator="-")
        assert a.get_shape().as_list() == [1] and b.get_shape().as_list() == [2, 1]
        got_a, got_b = _run([a, b])
        with pytest.raises(ValueError, match="Cannot specify both 'keep_dims' and 'keepdims'"):
            tf.reduce_join(["a"], 0, keep_dims=True, keepdims=True)
    assert got_a.tolist() == [b"foobar"] and got_b.tolist() == [[b"x-y"], [b"z-w"]]


def test_regex_replace_static_and_tensor_forms():
    values = ["a:foo", "b:bar", "ca:b"]
    with tf.Graph().as_default():
        static = tf.regex_replace(values, "^(a:|b:)", "", replace_global=False)
        dynamic = tf.regex_replace(values, tf.constant("^(a:|b:)"), tf.constant(""))
        assert static.op.type == "StaticRegexReplace" and dynamic.op.type == "RegexReplace"
        assert static.op.get_attr("pattern") == b"^(a:|b:)"
        bad = tf.regex_replace(values, "A[", "x")
        got_static, got_dynamic = _run([static, dynamic])
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid pattern"):
            _run(bad)
    want = [v.split(":", 1)[1] if v[:2] in ("a:", "b:") else v for v in values]
    assert got_static.tolist() == got_dynamic.tolist() == [w.encode() for w in want]


def test_regex_unicode_classes_match_code_points():
    import unicodedata

    words = ["AbCdE", "héLLo wörld!", "x+y=1"]
    with tf.Graph().as_default():
        lower = tf.regex_replace(words, r"\p{Ll}", ".")
        punct = tf.regex_replace(words, r"[\p{P}\p{S}]", "")
        not_letter = tf.regex_replace(words, r"\PL+", "_")
        letters_only = tf.strings.regex_full_match(words, r"\p{L}+")
        got = _run([lower, punct, not_letter, letters_only])

    def each(fn):
        return [fn(w).encode() for w in words]

    cat = unicodedata.category
    assert got[0].tolist() == each(lambda w: "".join("." if cat(c) == "Ll" else c for c in w))
    assert got[1].tolist() == each(lambda w: "".join(c for c in w if cat(c)[0] not in "PS"))
    assert got[2].tolist() == [b"AbCdE", b"h\xc3\xa9LLo_w\xc3\xb6rld_", b"x_y_"]
    assert got[3].tolist() == [True, False, False]


def test_string_ops_module_holds_tf_string_functions():
    import base64

    from tideflow.python.ops import string_ops

    with tf.Graph().as_default():
        enc = string_ops.encode_base64(["hi?>", ""], pad=True)
        static = string_ops.regex_full_match(["abba", "abc"], "a.*a")
        dynamic = string_ops.regex_full_match(["abba", "abc"], tf.constant("a.*a"))
        assert static.op.type == "StaticRegexFullMatch" and dynamic.op.type == "RegexFullMatch"
        buckets = string_ops.string_to_hash_bucket_fast(["x"], 7)
        got = _run([enc, static, dynamic, buckets])
    assert got[0].tolist() == [base64.urlsafe_b64encode(b"hi?>"), b""]
    assert got[1].tolist() == got[2].tolist() == [True, False]
    assert 0 <= got[3][0] < 7
    with pytest.raises(AttributeError):
        string_ops.no_such_string_op  # noqa: B018


def test_string_attr_not_in_allowed_values_message():
    want = "Attr 'unit' of 'StringLength' Op passed string 'XYZ' not in: \"BYTE\", \"UTF8_CHAR\"."
    with tf.Graph().as_default(), pytest.raises(ValueError, match=want):
        tf.strings.length(["ab"], unit="XYZ")


def test_index_table_from_tensor_and_file_arguments(tmp_path):
    from tideflow.python.ops import lookup_ops

    vocab = tmp_path / "v.txt"
    vocab.write_text("brain\nsalad\n")
    with tf.Graph().as_default():
        table = lookup_ops.index_table_from_tensor(vocabulary_list=("brain", "salad"),
                                                   num_oov_buckets=1)
        with pytest.raises(TypeError, match="hasher_spec must be of type HasherSpec"):
            lookup_ops.index_table_from_file(vocabulary_file=str(vocab), num_oov_buckets=1,
                                             hasher_spec=1)
        odd = lookup_ops.index_table_from_file(
            vocabulary_file=str(vocab), num_oov_buckets=1,
            hasher_spec=lookup_ops.HasherSpec("my-hash", None))
        with pytest.raises(ValueError, match="Unknown hasher my-hash"):
            odd.lookup(tf.constant(["x"]))
        with pytest.raises(ValueError, match="vocab_size must be greater than 0, got 0. "
                                             "vocabulary_file: .*v.txt"):
            lookup_ops.index_table_from_file(vocabulary_file=str(vocab), vocab_size=0)
        with tf.Session() as sess:
            sess.run(tf.tables_initializer())
            assert sess.run(table.lookup(tf.constant(["salad", "brain", "x"]))).tolist() == \
                [1, 0, 2]


def test_hash_bucket_tables_kinds_and_checks():
    from tideflow.python.framework import test_util as tu
    from tideflow.python.ops import lookup_ops

    with tf.Graph().as_default() as g:
        fast = lookup_ops.IdTableWithHashBuckets(None, 3, name="fast")
        strong = lookup_ops.IdTableWithHashBuckets(
            None, 3, hasher_spec=lookup_ops.StrongHashSpec((1, 2)), name="strong")
        words = tf.constant(["p", "q"])
        ids = [fast.lookup(words), strong.lookup(words)]
        tu.assert_ops_in_graph({"fast_Lookup/hash_bucket": "StringToHashBucketFast",
                                "strong_Lookup/hash_bucket": "StringToHashBucketStrong"}, g)
        with pytest.raises(ValueError, match="Expected op for node"):
            tu.assert_ops_in_graph({"fast_Lookup/hash_bucket": "StringToHashBucketStrong"}, g)
        with pytest.raises(TypeError, match="Invalid key_dtype"):
            lookup_ops.IdTableWithHashBuckets(None, 5, key_dtype=tf.float64)
        names = lookup_ops.index_to_string_table_from_tensor(vocabulary_list=["x", "y"])
        empty = lookup_ops.index_table_from_tensor(vocabulary_list=np.array([], np.str_))
        got = _run(ids)
        with tf.Session() as sess:
            sess.run(names.initializer)
            assert sess.run(names.lookup(tf.constant([1, 5], tf.int64))).tolist() == [b"y", b"UNK"]
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="keys and values cannot be empty"):
                sess.run(empty.init)
    want_fast = _run(tf.strings.to_hash_bucket_fast(["p", "q"], 3))
    want_strong = _run(tf.strings.to_hash_bucket_strong(["p", "q"], 3, [1, 2]))
    assert got[0].tolist() == want_fast.tolist() and got[1].tolist() == want_strong.tolist()


def test_strong_hash_spec_key_checks():
    from tideflow.python.ops import lookup_ops

    with pytest.raises(ValueError, match="key must have size 2, got 0"):
        lookup_ops.StrongHashSpec([])
    with pytest.raises(ValueError, match="key must have size 2, got 3"):
        lookup_ops.StrongHashSpec([1, 2, 3])
    with pytest.raises(TypeError, match="Invalid key"):
        lookup_ops.StrongHashSpec([None, 2])
    assert lookup_ops.StrongHashSpec((1, 2)).key == (1, 2)


def test_decode_raw_bool_and_size_message():
    flags = np.array([True, False, True])
    with tf.Graph().as_default():
        s = tf.placeholder(tf.string, [None])
        as_bool = tf.decode_raw(s, tf.bool)
        as_u8 = tf.decode_raw(s, tf.uint8)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(as_bool, {s: [flags.tobytes()]}), [flags])
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="but element 1 has size 5 != 6"):
                sess.run(as_u8, {s: ["short", "longer"]})


def test_sparse_add_static_shape_and_index_error():
    ind = np.array([[0, 1], [2, 0]], np.int64)
    with tf.Graph().as_default():
        a = tf.SparseTensor(ind, [1., 2.], np.array([3, 3], np.int64))
        total = tf.sparse_add(a, a)
        assert total.get_shape().as_list() == [3, 3]
        with pytest.raises(ValueError):
            tf.sparse_add(a, tf.SparseTensor(ind, [1., 2.], np.array([3, 4], np.int64)))
        bad = tf.sparse_add(tf.SparseTensorValue([[1, 3]], [5], [2, 2]), tf.zeros([2, 2], tf.int32))
        out = _run(total)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"some invalid index on dimension 1; dense tensor shape: "
                                 r"\[2,2\]"):  # (TF 1.15's words)
            _run(bad)
    np.testing.assert_array_equal(out.values, [2., 4.])


def test_sparse_slice_gradient_finite_differences():
    ind = np.array([[0, 1], [1, 0], [2, 2], [3, 1]], np.int64)
    vals = np.array([1.5, -2.0, 0.5, 3.0])
    with tf.Graph().as_default():
        v = tf.constant(vals, tf.float64)
        sliced = tf.sparse_slice(tf.SparseTensor(ind, v, [4, 3]), [1, 0], [2, 3])
        w = tf.constant([10.0, 20.0], tf.float64)
        loss = tf.reduce_sum(sliced.values * w)
        (g,) = tf.gradients(loss, [v])
        got = _run(g)
        # only entries 1 and 2 fall in rows [1, 3): their gradients are the weights
        np.testing.assert_allclose(got, [0.0, 10.0, 20.0, 0.0])
        with tf.Session():
            err = tf.test.compute_gradient_error(v, [4], sliced.values, [2])
    assert err < 1e-6


def test_unicode_decode_offsets_encodings_and_ragged_input():
    from tideflow.python.ops.ragged import ragged_factory_ops, ragged_string_ops

    bad = [b"\xFE", b"==\xFF=="]
    words = ["Hello", "こんにちは"]
    with tf.Graph().as_default():
        _, ignored = ragged_string_ops.unicode_decode_with_offsets(bad, "UTF-8", errors="ignore")
        sjis = ragged_string_ops.unicode_decode_with_offsets(
            [w.encode("shift_jis") for w in words], "SHIFT-JIS")
        nested = ragged_string_ops.unicode_decode(
            ragged_factory_ops.constant_value([[b"ab"], [b"c", b""]]), "UTF-8")
        too_big = ragged_string_ops.unicode_decode("x", "UTF-8", replacement_char=11141111)
        got = _run([ignored, sjis[0], sjis[1], nested])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="replacement_char out of unicode codepoint range"):
            _run(too_big)
    # an ignored byte keeps its place in the offsets of the characters after it
    assert got[0].to_list() == [[], [0, 1, 3, 4]]
    assert got[1].to_list() == [[ord(c) for c in w] for w in words]
    assert got[2].to_list() == [[0, 1, 2, 3, 4],
                                list(np.cumsum([0] + [len(c.encode("shift_jis"))
                                                      for c in words[1]])[:-1])]
    assert got[3].to_list() == [[[97, 98]], [[99], []]]
