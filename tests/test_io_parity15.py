"""Differential parity with TF 1.15 for input pipelines, checkpoints and summaries as a TF 1.x
program sees them (queues, batching, readers, parsing, Saver, monitored sessions, events).
Expected values are what TF 1.15 prints for the same programs."""

import threading
import time

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_enqueue_pairs_values_with_dtypes_by_zip():
    # TF zips the values with the dtypes: a longer list is cut to the queue's components
    q = tf.FIFOQueue(3, tf.float32, shapes=[[2]])
    with pytest.raises(ValueError, match=r"Shapes \(\) and \(2,\) are incompatible"):
        q.enqueue([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"Shape \(\) must have rank at least 1"):
        q.enqueue_many([1.0, 2.0, 3.0])
    pq = tf.PriorityQueue(10, [tf.string], shapes=[[]])
    with pytest.raises(TypeError, match="Expected int64"):
        pq.enqueue(("x",))


def test_blocked_dequeue_many_reports_what_was_missing_at_close():
    q = tf.FIFOQueue(10, [tf.int32], shapes=[[]])
    pq = tf.PriorityQueue(10, [tf.int32], shapes=[[]])
    d, pd = q.dequeue_many(4), pq.dequeue_many(4)
    got = {}
    with tf.Session() as s:
        s.run(q.enqueue_many([[1, 2, 3]]))
        s.run(pq.enqueue_many([[1, 2, 3], [1, 2, 3]]))
        for key, t in (("fifo", d), ("prio", pd)):
            def run(key=key, t=t):
                try:
                    s.run(t)
                except tf.errors.OutOfRangeError as e:
                    got[key] = str(e)
            th = threading.Thread(target=run)
            th.start()
            time.sleep(0.2)
        s.run([q.close(), pq.close()])
        time.sleep(0.3)
        # the blocked dequeue had taken the three elements: TF reports the one still missing
        assert "insufficient elements (requested 1, current size 0)" in got["fifo"]
        assert "insufficient elements (requested 4, current size 3)" in got["prio"]
        # the elements went back: a dequeue that starts after the close sees them all
        with pytest.raises(tf.errors.OutOfRangeError, match=r"requested 4, current size 3\)"):
            s.run(d)


def test_batch_of_a_sparse_tensor_builds_tfs_ops():
    i = tf.constant(1)
    sp = tf.SparseTensor(indices=[[0]], values=tf.reshape(i, [1]), dense_shape=[4])
    out = tf.train.batch([sp, i], 2, allow_smaller_final_batch=True)
    ops = [(op.name, op.type) for op in tf.get_default_graph().get_operations()
           if op.name.startswith("batch")]
    assert ops[:4] == [("batch/Const", "Const"),
                       ("batch/AddSparseToTensorsMap", "AddSparseToTensorsMap"),
                       ("batch/ExpandDims/dim", "Const"), ("batch/ExpandDims", "ExpandDims")]
    assert ops[-7:] == [("batch", "QueueDequeueUpToV2"), ("batch/Squeeze", "Squeeze"),
                        ("batch/TakeManySparseFromTensorsMap", "TakeManySparseFromTensorsMap"),
                        ("batch/control_dependency", "Identity"),
                        ("batch/control_dependency_1", "Identity"),
                        ("batch/control_dependency_2", "Identity"),
                        ("batch/control_dependency_3", "Identity")]
    assert out[0].indices.name == "batch/control_dependency:0"
    assert out[0].dense_shape.name == "batch/control_dependency_2:0"
    assert out[1].name == "batch/control_dependency_3:0"
    assert str(tf.get_default_graph().get_tensor_by_name("batch:0").shape) == "(?, 1)"


def test_maybe_batch_functions_use_the_batch_scope_names():
    i = tf.constant(1)
    b = tf.train.maybe_batch([i], tf.constant(True), 2)
    s = tf.train.maybe_shuffle_batch([i], 2, 10, 1, tf.constant(True), seed=2)
    assert (b.name, s.name) == ("batch:0", "shuffle_batch:0")
    # a constant keep_input enqueues directly (TF's smart_cond), a vector one partitions
    assert [op.type for op in tf.get_default_graph().get_operations()
            if op.name.startswith("batch/fifo_queue_enqueue")] == ["QueueEnqueueV2"]
    m = tf.train.maybe_batch([tf.constant([1, 2, 3])], tf.constant([True, False, True]), 2,
                             enqueue_many=True)
    assert m.name == "batch_1:0"
    assert tf.get_default_graph().get_operation_by_name("batch_1/DynamicPartition").type == \
        "DynamicPartition"
    with pytest.raises(ValueError, match=r"^`keep_input` must be 0 or 1 dimensions\.$"):
        tf.train.maybe_batch([i], tf.constant([[True]]), 2, enqueue_many=True)


def test_batch_of_a_lone_tensor_is_iterated_as_tf():
    # TF lists the tensors argument: a bare Tensor cannot be iterated in a graph
    with pytest.raises(TypeError, match="iterating over `tf.Tensor` is not allowed"):
        tf.train.batch(tf.constant([1, 2]), 2)


def _record_file(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data)
    return str(p)


def test_tfrecord_damage_messages_are_tfs(tmp_path):
    p = str(tmp_path / "ok")
    with tf.python_io.TFRecordWriter(p) as w:
        w.write(b"abcdef")
        w.write(b"ghijkl")
    with open(p, "rb") as f:
        data = f.read()  # two records of 22 bytes
    cases = {
        "hdr_partial": (data[:27], None),  # a partial header reads as the end of the file
        "data_partial": (data[:36], "truncated record at 22"),
        "crc_partial": (data[:-2], "truncated record at 22"),
        "data_crc": (data[:-1] + b"\x00", "corrupted record at 34"),
        "len_crc": (data[:30] + b"\x00" * 4 + data[34:], "corrupted record at 22"),
    }
    for name, (raw, msg) in cases.items():
        path = _record_file(tmp_path, name, raw)
        if msg is None:
            assert list(tf.python_io.tf_record_iterator(path)) == [b"abcdef"]
            continue
        with pytest.raises(tf.errors.DataLossError, match=f"^{msg}$"):
            list(tf.python_io.tf_record_iterator(path))
    with pytest.raises(ValueError, match='^Not a valid compression_type: "bogus"$'):
        tf.python_io.TFRecordOptions("bogus")


def test_whole_file_and_identity_reader_states(tmp_path):
    p = _record_file(tmp_path, "f", b"xyz")
    for cls in (tf.WholeFileReader, tf.IdentityReader):
        with tf.Graph().as_default():
            q = tf.FIFOQueue(10, tf.string)
            r = cls()
            assert r.supports_serialize
            _, v = r.read(q)
            with tf.Session() as s:
                s.run(q.enqueue_many([[p, p]]))
                assert s.run(r.serialize_state()) == b""
                s.run(v)
                # the last work unit stays in the state once finished, as TF
                state = s.run(r.serialize_state())
                assert state == b'\x08\x01\x10\x01\x18\x01"' + bytes([len(p)]) + p.encode()
                s.run(r.restore_state(b""))
                assert s.run(r.num_records_produced()) == 0
                with pytest.raises(tf.errors.InvalidArgumentError,
                                   match=r"Could not parse state for \w+ '\w+': junk\\n\n"):
                    s.run(r.restore_state(b"junk\n"))
    assert not tf.TFRecordReader().supports_serialize
    state = tf.TFRecordReader().serialize_state()
    with tf.Session() as s, pytest.raises(tf.errors.UnimplementedError,
                                          match="^Reader SerializeState\n"):
        s.run(state)


def test_allowed_values_are_listed_in_the_ops_declared_order():
    with pytest.raises(TypeError, match="allowed values: float16, float32, float64, int32, "
                                        "uint16, uint8, int16, int8, int64, complex64, "
                                        "complex128, bool"):
        tf.decode_raw(tf.constant([b"ab"]), tf.string)


def _op_names(prefix=""):
    return [(op.name, op.type) for op in tf.get_default_graph().get_operations()
            if op.name.startswith(prefix)]


def test_parse_example_builds_tfs_ops_and_names():
    feats = {"a": tf.VarLenFeature(tf.int64),
             "d": tf.FixedLenFeature([2], tf.float32, default_value=[0.5, 0.25]),
             "e": tf.FixedLenFeature([], tf.int64)}
    out = tf.parse_example(tf.placeholder(tf.string, [None]), feats, name="pe")
    assert _op_names("pe") == [
        ("pe/key_d", "Const"), ("pe/Reshape/shape", "Const"), ("pe/Reshape", "Reshape"),
        ("pe/Const", "Const"), ("pe/pe/names", "Const"), ("pe/pe/sparse_keys_0", "Const"),
        ("pe/pe/dense_keys_0", "Const"), ("pe/pe/dense_keys_1", "Const"),
        ("pe/pe", "ParseExample")]
    assert out["a"].values.name == "pe/pe:1" and out["e"].name == "pe/pe:4"
    single = tf.parse_single_example(tf.placeholder(tf.string, []), feats, name="pse")
    assert single["d"].name == "pse/pse:3"
    with pytest.raises(ValueError, match="^Shape must be rank 0 but is rank 1 for "):
        tf.parse_single_example(tf.constant(["x"]), feats)


def test_parse_example_sparse_feature_is_a_sparse_merge():
    sp = tf.SparseFeature(index_key="ix", value_key="val", dtype=tf.float32, size=5)
    out = tf.parse_example(tf.placeholder(tf.string, [None]), {"sp": sp})["sp"]
    names = _op_names("SparseMerge")
    assert names[0] == ("SparseMerge/ExpandDims/dim", "Const")
    assert names[-2:] == [("SparseMerge/SparseReorder", "SparseReorder"),
                          ("SparseMerge/Identity", "Identity")]
    assert ("SparseMerge/concat_1/values_1", "Pack") in names
    assert out.indices.name == "SparseMerge/SparseReorder:0"
    assert out.dense_shape.name == "SparseMerge/concat_1:0"
    ex = tf.train.Example(features=tf.train.Features(feature={
        "ix": tf.train.Feature(int64_list=tf.train.Int64List(value=[3, 0])),
        "val": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0, 2.0]))}))
    got = tf.parse_single_example(ex.SerializeToString(), {"sp": sp})["sp"]
    with tf.Session() as s:
        v = s.run(got)
    assert v.indices.tolist() == [[0], [3]] and v.values.tolist() == [2.0, 1.0]
    assert v.dense_shape.tolist() == [5]


def test_parse_sequence_examples_build_tfs_ops():
    ctx = {"len": tf.FixedLenFeature([], tf.int64, default_value=0)}
    seq = {"tok": tf.VarLenFeature(tf.int64), "emb": tf.FixedLenSequenceFeature([2], tf.float32)}
    tf.parse_single_sequence_example(tf.placeholder(tf.string, []), context_features=ctx,
                                     sequence_features=seq, name="pss")
    assert [n for n, _ in _op_names("pss")] == [
        "pss/key_len", "pss/Reshape/shape", "pss/Reshape",
        "pss/pss/feature_list_dense_missing_assumed_empty", "pss/pss/context_dense_keys_0",
        "pss/pss/feature_list_sparse_keys_0", "pss/pss/feature_list_dense_keys_0",
        "pss/pss/debug_name", "pss/pss"]
    tf.io.parse_sequence_example(tf.placeholder(tf.string, [None]), context_features=ctx,
                                 sequence_features=seq, name="psq")
    assert [n for n, _ in _op_names("psq")] == ["psq/key_len", "psq/psq/debug_name", "psq/psq"]


def test_parse_errors_are_tfs():
    s = tf.placeholder(tf.string, [None])
    with pytest.raises(TypeError, match="^Value passed to parameter 'dense_defaults' has "
                                        "DataType int32 not in list of allowed values: "
                                        "float32, int64, string$"):
        tf.parse_example(s, {"a": tf.FixedLenFeature([1], tf.int32)})
    with pytest.raises(TypeError, match="parameter 'sparse_types' has DataType float64"):
        tf.parse_example(s, {"a": tf.VarLenFeature(tf.float64)})
    with pytest.raises(ValueError, match=r"^Unsupported: FixedLenSequenceFeature requires "
                                         r"allow_missing to be True\.$"):
        tf.parse_example(s, {"a": tf.FixedLenSequenceFeature([2], tf.int64)})
    bad = tf.parse_example(["notaproto"], {"a": tf.VarLenFeature(tf.int64)})
    with tf.Session() as sess, pytest.raises(
            tf.errors.InvalidArgumentError,
            match="^Could not parse example input, value: 'notaproto'"):
        sess.run(bad)


def test_png_gray_decode_and_encode_bytes_are_libpngs():
    px = np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255], [10, 200, 30]],
                   [[1, 2, 3], [100, 100, 100], [7, 9, 250], [255, 255, 254]]], np.uint8)
    enc = tf.image.encode_png(px)
    tiny = tf.image.encode_png(np.zeros([2, 2, 2], np.uint8))
    with tf.Session() as s:
        # libpng's rgb_to_gray (0.299, 0.587 in 1/32768ths, truncated), as TF 1.15 decodes
        gray = s.run(tf.image.decode_png(enc, channels=1))[..., 0]
        assert gray.tolist() == [[76, 149, 29, 123], [1, 100, 35, 254]]
        # the IDAT stream's header names the small window libpng declares
        assert s.run(tiny)[41:43] == b"\x08\x99"
        rng = np.random.RandomState(0)
        img = rng.randint(0, 255, size=(20, 30, 3)).astype(np.uint8)
        assert s.run(tf.image.encode_png(img))[41:43] == b"8\x8d"
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^channels must be 0, 1, 3, or 4, got 2"):
            s.run(tf.image.decode_png(enc, channels=2))
        for op in (tf.image.decode_png, tf.image.decode_jpeg, tf.image.decode_gif):
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"^Expected image \(JPEG, PNG, or GIF\), got unknown "
                                     r"format starting with 'BM\\000\\000"):
                s.run(op(tf.constant(b"BM" + b"\x00" * 20)))
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^Invalid PNG header, data size 30\n"):
            s.run(tf.image.decode_png(tf.constant(s.run(enc)[:30])))


def test_restore_errors_read_as_tfs(tmp_path):
    prefix = str(tmp_path / "m")
    tf.Variable(1.0, name="a")
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        tf.train.Saver().save(s, prefix)
    head = ("Restoring from checkpoint failed. This is most likely due to a mismatch between the "
            "current graph and the graph from the checkpoint. Please ensure that you have not "
            "altered the graph expected based on the checkpoint. Original error:\n\n")
    cases = [(lambda: tf.Variable([1.0, 2.0], name="a"),
              "Assign requires shapes of both tensors to match. lhs shape= [2] rhs shape= []"),
             (lambda: tf.Variable(1, name="a"),
              "tensor_name = a; expected dtype int32 does not equal original dtype float")]
    for make, original in cases:
        with tf.Graph().as_default():
            make()
            saver = tf.train.Saver()
            with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError) as e:
                saver.restore(s, prefix)
            assert str(e.value).startswith(head + original + "\n")
    with tf.Graph().as_default():
        tf.Variable(1.0, name="a")
        saver = tf.train.Saver()
        with tf.Session() as s, pytest.raises(ValueError) as e:
            saver.restore(s, prefix + "x")
        assert str(e.value) == f"The passed save_path is not a valid checkpoint: {prefix}x"
    with pytest.raises(TypeError, match=r"^names_to_saveables must be a dict mapping string "
                                        r"names to Tensors/Variables\. Not a variable: "
                                        r"Tensor\(\"Const:0\", shape=\(\), dtype=int32\)$"):
        tf.train.Saver({"x": 3})


def test_dataset_reprs_and_pad_error_are_tfs():
    ds = tf.data.Dataset.range(3)
    assert repr(ds.batch(2)) == "<DatasetV1Adapter shapes: (?,), types: tf.int64>"
    assert repr(tf.data.Dataset.from_tensor_slices({"a": [1, 2]})) == \
        "<DatasetV1Adapter shapes: {a: ()}, types: {a: tf.int32}>"
    assert repr(tf.data.TFRecordDataset("x")) == "<TFRecordDatasetV1 shapes: (), types: tf.string>"
    assert repr(tf.data.TextLineDataset("x")).startswith("<TextLineDatasetV1 ")
    assert repr(tf.data.FixedLengthRecordDataset("x", 2)).startswith("<FixedLengthRecordDatasetV1 ")
    rows = tf.data.Dataset.range(1, 5).map(lambda x: tf.fill([x], x))
    nxt = tf.compat.v1.data.make_one_shot_iterator(rows.padded_batch(2, padded_shapes=[2]))
    with tf.Session() as s:
        s.run(nxt.get_next())
        with pytest.raises(tf.errors.DataLossError,
                           match=r"^Attempted to pad to a smaller size than the input element\.\n"):
            s.run(nxt.get_next())


def test_queue_argument_and_timeout_errors_are_tfs():
    q = tf.FIFOQueue(1, tf.int32, shapes=[[]])
    with pytest.raises(ValueError, match=r"^Input 'n' must be >= 0, but is -1 for "
                                         r"'fifo_queue_DequeueMany' \(op: 'QueueDequeueManyV2'\)"):
        q.dequeue_many(-1)
    with pytest.raises(TypeError, match=r"^Expected list for 'shapes' argument to "
                                        r"'priority_queue_v2' Op, not None\.$"):
        tf.PriorityQueue(10, [tf.int32])
    up_to = q.dequeue_up_to(-1)
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="^DequeueUpToOp requested -1 < 0 elements"):
            s.run(up_to)
        s.run(q.enqueue(1))
        # TF 1.15: the session's own timeout, naming no node
        with pytest.raises(tf.errors.DeadlineExceededError,
                           match=r"^Timed out waiting for notification$"):
            s.run(q.enqueue(2), options=tf.RunOptions(timeout_in_ms=50))


def test_number_parsing_and_decode_csv_checks_are_tfs():
    with tf.Session() as s:
        # double-conversion's reading: hex integers, blanks alone are 0; no 'infinity'
        got = s.run(tf.string_to_number(["0x10", "-0x1F", "  ", "+inf", " 1.5 "]))
        assert got[:3].tolist() == [16.0, -31.0, 0.0] and got[3] == np.inf and got[4] == 1.5
        assert s.run(tf.decode_csv(["0x10,2"], [[0.0], [0]]))[0].tolist() == [16.0]
        for text, out_type in (("infinity", tf.float32), ("+1", tf.int32), ("", tf.float32)):
            with pytest.raises(tf.errors.InvalidArgumentError):
                s.run(tf.string_to_number(text, out_type))
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="^Field 0 in record 0 is not a valid int32: \\+1"):
            s.run(tf.decode_csv(["+1"], [[0]]))
    with pytest.raises(ValueError, match=r"^Attr 'OUT_TYPE' of 'DecodeCSV' Op passed list of "
                                         r"length 0 less than minimum 1\.$"):
        tf.decode_csv(["1"], [])
    with pytest.raises(TypeError, match=r"^Value passed to parameter 'record_defaults' has "
                                        r"DataType bool not in list of allowed values: "
                                        r"float32, float64, int32, int64, string$"):
        tf.decode_csv(["1"], [tf.constant([], tf.bool)])


def test_reader_failures_leave_the_work_as_tf(tmp_path):
    short = _record_file(tmp_path, "g.bin", bytes(range(10)))
    longer = _record_file(tmp_path, "h.bin", bytes(range(30)))
    missing = str(tmp_path / "missing")
    q = tf.FIFOQueue(10, tf.string)
    r = tf.FixedLengthRecordReader(4, header_bytes=20)
    _, v = r.read(q)
    with tf.Session() as s:
        s.run(q.enqueue_many([[short, missing, longer]]))
        s.run(q.close())
        # a header longer than the file: TF's skip fails; the unit is not counted
        with pytest.raises(tf.errors.OutOfRangeError, match="^reached end of file"):
            s.run(v)
        with pytest.raises(tf.errors.NotFoundError, match="missing; No such file or directory"):
            s.run(v)
        assert s.run(v) == b"\x14\x15\x16\x17"
        assert s.run([r.num_records_produced(), r.num_work_units_completed()]) == [1, 0]
    q2 = tf.FIFOQueue(10, tf.string)
    r2 = tf.TFRecordReader()
    _, v2 = r2.read(q2)
    with tf.Session() as s:
        s.run(q2.enqueue_many([[short, longer]]))
        s.run(q2.close())
        # a damaged record stays the work in progress: every read fails on it again
        for _ in range(3):
            with pytest.raises(tf.errors.DataLossError, match="^corrupted record at 0"):
                s.run(v2)
        assert s.run(r2.num_work_units_completed()) == 1


def test_tfrecord_writer_is_tfs(tmp_path):
    gz = str(tmp_path / "d.gz")
    with tf.io.TFRecordWriter(gz, "GZIP") as w:
        w.write(b"hello")
    with open(gz, "rb") as f:
        raw = f.read()
    # zlib's own gzip wrapper (no file name, OS byte 3) around TF's zlib settings
    assert len(raw) == 37 and raw[:4] == b"\x1f\x8b\x08\x00" and raw[8:10] == b"\x00\x03"
    with pytest.raises(tf.errors.FailedPreconditionError,
                       match="^Writer not initialized or previously closed$"):
        w.write(b"x")
    with pytest.raises(TypeError, match="^expected bytes, str found$"):
        tf.io.TFRecordWriter(str(tmp_path / "s")).write("text")
    with pytest.raises(tf.errors.NotFoundError, match="nodir/x; No such file or directory$"):
        tf.io.TFRecordWriter(str(tmp_path / "nodir" / "x"))
    opts = tf.io.TFRecordOptions(compression_type="ZLIB", compression_level=9)
    zl = str(tmp_path / "b.zl")
    with tf.io.TFRecordWriter(zl, opts) as w:
        w.write(b"x" * 100)
    assert list(tf.io.tf_record_iterator(zl, opts)) == [b"x" * 100]
    for path, wrong in ((gz, "ZLIB"), (zl, "GZIP")):
        with pytest.raises(tf.errors.DataLossError,
                           match=r"^inflate\(\) failed with error -3: incorrect header check$"):
            list(tf.io.tf_record_iterator(path, options=wrong))


def test_cond_returning_operations_counts_tfs_op_ids():
    # TF 1.x returns each branch's Operation through a control_dependency Identity: a scalar
    # keep_input's enqueue cond (maybe_*) and a plain op cond leave TF's ids for later seeds
    tf.set_random_seed(5)
    a = tf.train.range_input_producer(10, num_epochs=1, shuffle=False).dequeue()
    tf.train.maybe_shuffle_batch_join([[a], [a + 100]], 3, 20, 2, tf.equal(a % 2, 0), seed=1,
                                      allow_smaller_final_batch=True)
    v = tf.get_variable("v", [2], initializer=tf.random_normal_initializer())
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        p = tf.placeholder(tf.bool, [])
        v0 = tf.Variable(1.0)
        tf.cond(p, lambda: tf.assign(v0, 2.0).op, lambda: tf.no_op())
        r = tf.random_normal([2])
        assert r.op.inputs[0].op.graph.get_operation_by_name(
            "random_normal/RandomStandardNormal").get_attr("seed2") == 19
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(v), [-2.7718000411987305, 0.10010000318288803],
                                   atol=1e-4)
