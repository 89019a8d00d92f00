"""Input pipelines (tf.data, queues, parsing) as TF 1.x programs write them, against values
and messages real TF 1.15 printed for the same programs."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _drain(sess, t):
    out = []
    try:
        while True:
            out.append(sess.run(t))
    except tf.errors.OutOfRangeError:
        return out


def _ints(sess, dataset):
    return [int(x) for x in _drain(sess, dataset.make_one_shot_iterator().get_next())]


def test_seeded_orders_after_shuffle_and_repeat_and_sample_from_datasets():
    # shuffle_and_repeat is one op whose count is made before its seeds; sample_from_datasets
    # without weights makes no logits ops in the graph and seeds as tf.data does: the later
    # unseeded shuffle draws TF 1.15's order only if every op count before it matches
    tf.set_random_seed(7)
    with tf.Session() as sess:
        a = _ints(sess, tf.data.Dataset.range(5).apply(
            tf.data.experimental.shuffle_and_repeat(5, 2)))
        b = _ints(sess, tf.data.experimental.sample_from_datasets(
            [tf.data.Dataset.from_tensors(0).repeat(4),
             tf.data.Dataset.from_tensors(1).repeat(4)]))
        c = _ints(sess, tf.data.Dataset.range(6).shuffle(6))
    assert a == [1, 2, 4, 0, 3, 4, 1, 0, 3, 2]
    assert b == [1, 1, 1, 1, 0, 0, 0, 0]
    assert c == [0, 1, 5, 2, 4, 3]
    ops = tf.get_default_graph().get_operations()
    assert "ShuffleAndRepeatDataset" not in [op.type for op in ops]  # made in the function
    assert [op.type for op in ops][-3:] == ["OneShotIterator", "IteratorToStringHandle",
                                            "IteratorGetNext"]


def test_one_shot_iterator_captures_as_tf_does():
    # a PlaceholderWithDefault is copied into the factory function; a random op (stateful in
    # TF's OpDef) is refused; MatchingFiles (stateless in TF) is copied
    d = tf.data.Dataset.from_tensors(tf.placeholder_with_default(1, []))
    with tf.Session() as sess:
        assert sess.run(d.make_one_shot_iterator().get_next()) == 1
    r = tf.random_uniform([3])
    for d in (tf.data.Dataset.from_tensor_slices(r),
              tf.data.Dataset.range(3).map(lambda x: tf.cast(x, tf.float32) + r[0])):
        with pytest.raises(ValueError, match=r"Failed to create a one-shot iterator.*"
                                             r"Cannot capture a stateful node \(name:random"):
            d.make_one_shot_iterator()
    with pytest.raises(ValueError, match=r"Cannot capture a placeholder \(name:Placeholder, "
                                         r"type:Placeholder\) by value\."):
        tf.data.Dataset.from_tensors(tf.placeholder(tf.int32)).make_one_shot_iterator()
    tf.data.Dataset.list_files("/nonexistent/*.txt").make_one_shot_iterator()


def test_generator_conversion_error_shows_the_element_with_str():
    d = tf.data.Dataset.from_generator(lambda: iter(["a", 1]), tf.int32)
    n = d.make_one_shot_iterator().get_next()
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as e:
        sess.run(n)
    assert ("The expected type was int32, but the yielded element was a." in
            str(e.value).splitlines()[0])


def test_parse_single_sequence_example_unnamed_error_names_empty():
    se = tf.train.SequenceExample(feature_lists=tf.train.FeatureLists(feature_list={
        "tok": tf.train.FeatureList(feature=[tf.train.Feature(
            int64_list=tf.train.Int64List(value=[1, 2]))])})).SerializeToString()
    r = tf.parse_single_sequence_example(
        se, sequence_features={"tok": tf.FixedLenSequenceFeature([3], tf.int64)})
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as e:
        sess.run(r)
    assert str(e.value).startswith(
        "Name: , Key: tok, Index: 0.  Number of int64 values != expected.  values size: 2 "
        "but output shape: [3]")


def test_op_counts_of_readers_and_transformations_as_tf(tmp_path):
    # the op count after each pipeline, its one-shot iterator and an unseeded random op
    # (whose op seed is the op count before it), and that op's value, as TF 1.15 printed them
    (tmp_path / "a.txt").write_text("x\ny\n")
    d = str(tmp_path)
    cases = [
        lambda: tf.data.TextLineDataset(d + "/a.txt"),
        lambda: tf.data.TFRecordDataset([d + "/a.txt"], num_parallel_reads=2),
        lambda: tf.data.FixedLengthRecordDataset(d + "/a.txt", 2),
        lambda: tf.data.Dataset.list_files(d + "/*.txt"),
        lambda: tf.data.Dataset.from_generator(lambda: iter([1, 2]), tf.int64),
        lambda: tf.data.experimental.Counter(),
        lambda: tf.data.Dataset.range(4).batch(2).apply(tf.data.experimental.unbatch()),
        lambda: tf.data.Dataset.range(5).apply(tf.contrib.data.map_and_batch(
            lambda x: x, 2, num_parallel_batches=2)),
        lambda: tf.data.Dataset.range(5).apply(tf.data.experimental.group_by_window(
            lambda x: x % 2, lambda k, w: w.batch(2), 2)),
        lambda: tf.data.Dataset.range(1, 5).map(lambda x: tf.fill([x], x)).apply(
            tf.data.experimental.bucket_by_sequence_length(lambda x: tf.shape(x)[0], [2],
                                                           [2, 2])),
        lambda: tf.data.Dataset.range(3).map(lambda x: tf.fill([x], 1.0)).padded_batch(
            2, [None], padding_values=2.0),
    ]
    out = []
    for f in cases:
        with tf.Graph().as_default() as g:
            tf.set_random_seed(1)
            f().make_one_shot_iterator().get_next()
            w = tf.random_uniform([], seed=None)
            last = g._last_id
            with tf.Session() as sess:
                out.append((last, round(float(sess.run(w)), 6)))
    assert out == [(15, 0.086219), (20, 0.269777), (15, 0.086219), (43, 0.960112),
                   (13, 0.30954), (17, 0.771729), (19, 0.874357), (18, 0.860169),
                   (15, 0.086219), (17, 0.771729), (20, 0.269777)]


def test_names_of_reduce_join_and_dataset_constants_as_tf():
    g = tf.get_default_graph()
    tf.strings.reduce_join(["a", "b"])
    tf.strings.reduce_join(tf.constant(["a"]), name="foo")
    tf.data.Dataset.from_tensors((1, "a"))
    tf.data.Dataset.range(3).apply(tf.data.experimental.scan(0, lambda s, x: (s, x)))
    tf.data.Dataset.range(3).padded_batch(2, [])
    assert [o.name for o in g.get_operations() if not o.type.endswith("Dataset")] == [
        "ReduceJoin/Const", "ReduceJoin/Const_1", "ReduceJoin/ReduceJoin", "Const",
        "ReduceJoin_1/Const", "ReduceJoin_1/foo", "normalize_element/component_0",
        "normalize_element/component_1", "start", "stop", "step",
        "normalize_element_1/component_0", "start_1", "stop_1", "step_1", "batch_size",
        "Const_1", "padding_value", "drop_remainder"]


def test_list_files_empty_match_message(tmp_path):
    # (TF 1.15: a pattern in a missing folder fails before, in MatchingFiles, NotFoundError)
    d = tf.data.Dataset.list_files(f"{tmp_path}/*.zz", shuffle=False)
    it = d.make_initializable_iterator()
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                             match="No files matched pattern: "
                                                   f"{tmp_path}/\\*.zz"):
        sess.run(it.initializer)


def test_string_handle_structure_errors_read_as_tf():
    h = tf.placeholder(tf.string, [])
    src = tf.data.Dataset.from_tensors([[1.0, 2.0]]).repeat().make_one_shot_iterator()
    with tf.Session() as sess:
        handle = sess.run(src.string_handle())
        for types, shapes, msg in [
                (tf.float32, tf.TensorShape([None, 3]),
                 "Incompatible shapes at component 0: expected [?,3] but got [1,2]."),
                ((tf.float32, tf.float32), None,
                 "Number of components does not match: expected 2 types but got 1."),
                (tf.int32, None,
                 "Data type mismatch at component 0: expected int32 but got float.")]:
            n = tf.data.Iterator.from_string_handle(h, types, shapes).get_next()
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(n, {h: handle})
            assert str(e.value).splitlines()[0] == msg


def test_static_batch_dim_from_a_constant_drop_remainder_tensor():
    d = tf.data.Dataset.range(4).batch(2, drop_remainder=tf.constant(True))
    assert d.output_shapes.as_list() == [2]
    d = tf.data.Dataset.range(4).batch(2, drop_remainder=tf.placeholder(tf.bool, []))
    assert d.output_shapes.as_list() == [None]


def test_zip_and_slices_argument_errors_read_as_tf():
    with pytest.raises(TypeError) as e:
        tf.data.Dataset.zip([tf.data.Dataset.range(2), tf.data.Dataset.range(2)])
    assert str(e.value) == (
        "The argument to `Dataset.zip()` must be a nested structure of `Dataset` objects. "
        "Nested structures do not support Python lists; please use a tuple instead.")
    with pytest.raises(TypeError) as e:
        tf.data.Dataset.zip((tf.data.Dataset.range(2), 1))
    assert str(e.value) == ("The argument to `Dataset.zip()` must be a nested structure of "
                            "`Dataset` objects.")
    with pytest.raises(ValueError, match=r'^Value Tensor\("normalize_element/component_0:0", '
                                         r'shape=\(\), dtype=int32\) has insufficient rank '
                                         r'for batching\.$'):
        tf.data.Dataset.from_tensor_slices(1)


def test_read_up_to_count_constant_named_by_the_op():
    r = tf.FixedLengthRecordReader(4, header_bytes=1)
    q = tf.FIFOQueue(3, tf.string)
    r.read_up_to(q, 3)
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names == ["FixedLengthRecordReaderV2", "fifo_queue",
                     "ReaderReadUpToV2/num_records", "ReaderReadUpToV2"]


def test_padding_fifo_queue_dequeue_many_of_scalar_strings():
    q = tf.PaddingFIFOQueue(3, [tf.int32, tf.string], shapes=[[None, 2], []])
    with tf.Session() as sess:
        sess.run(q.enqueue(([[1, 2]], "a")))
        sess.run(q.enqueue(([[1, 2], [3, 4], [5, 6]], "b")))
        nums, strs = sess.run(q.dequeue_many(2))
    assert nums.tolist() == [[[1, 2], [0, 0], [0, 0]], [[1, 2], [3, 4], [5, 6]]]
    assert strs.dtype == object and strs.tolist() == [b"a", b"b"]


def test_csv_dataset_bad_records_raise_in_turn_with_tf_messages(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('x,1.5\n2,y\n99999999999,1\n3,4\n1,\n5,6,7\n"a,2\n')
    d = tf.data.experimental.CsvDataset(str(path), [[0], tf.constant([], tf.float32)])
    n = d.make_one_shot_iterator().get_next()
    got = []
    with tf.Session() as sess:
        while True:
            try:
                got.append([float(v) for v in sess.run(n)])
            except tf.errors.OutOfRangeError:
                break
            except tf.errors.InvalidArgumentError as e:
                got.append(str(e).splitlines()[0])
    assert got == ["Field 0 in record is not a valid int32: x",
                   "Field 1 in record is not a valid float: y",
                   "Field 0 in record is not a valid int32: 99999999999",
                   [3.0, 4.0],
                   "Field 1 is required but missing in record!",
                   "Expect 2 fields but have more in record",
                   "Reached end of file without closing quoted field in record"]


def test_parse_example_dataset_keys_dense_then_sparse():
    d = tf.data.Dataset.from_tensors([tf.train.Example().SerializeToString()]).apply(
        tf.data.experimental.parse_example_dataset(
            {"v": tf.VarLenFeature(tf.float32), "z": tf.FixedLenFeature([], tf.int64, 0),
             "a": tf.VarLenFeature(tf.int64), "i": tf.FixedLenFeature([], tf.int64, 0)}))
    assert list(d.output_types) == ["i", "z", "a", "v"]


def test_contrib_sliding_window_batch_and_assert_element_shape():
    def drain(d):
        return [x.tolist() for x in _drain(sess, d.make_one_shot_iterator().get_next())]

    with tf.Session() as sess:
        for args, want in [((3, 2), [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6, 7, 8]]),
                           ((2, None, 3), [[0, 1], [3, 4], [6, 7]]),
                           ((2, None, 1, 2), [[0, 2], [1, 3], [2, 4], [3, 5], [4, 6],
                                              [5, 7], [6, 8]]),
                           ((4, None, 5), [[0, 1, 2, 3], [5, 6, 7, 8]])]:
            d = tf.data.Dataset.range(9).apply(tf.contrib.data.sliding_window_batch(*args))
            assert d.output_shapes.as_list() == [None]
            assert drain(d) == want
        d = tf.data.Dataset.range(3).map(lambda x: tf.reshape(x, [-1])).apply(
            tf.contrib.data.assert_element_shape(tf.TensorShape([1])))
        assert d.output_shapes.as_list() == [1]
        assert drain(d) == [[0], [1], [2]]


def _feature_example(**kw):
    feats = {}
    for k, v in kw.items():
        if isinstance(v[0], bytes):
            feats[k] = tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
        elif isinstance(v[0], float):
            feats[k] = tf.train.Feature(float_list=tf.train.FloatList(value=v))
        else:
            feats[k] = tf.train.Feature(int64_list=tf.train.Int64List(value=v))
    return tf.train.Features(feature=feats)


@pytest.mark.parametrize("build, msg", [
    (lambda e, s: tf.parse_example([e], {"a": tf.VarLenFeature(tf.float32)}),
     ("Name: <unknown>, Key: a, Index: 0.  Data types don't match. Expected type: float, "
     "Actual type: string")),
    (lambda e, s: tf.parse_single_example(e, {"a": tf.FixedLenFeature([1], tf.int64)}),
     "Key: a.  Data types don't match. Data type: string but expected type: int64"),
    (lambda e, s: tf.parse_single_example(e, {"a": tf.VarLenFeature(tf.int64)}),
     "Key: a.  Data types don't match. Expected type: int64, Actual type: string"),
    (lambda e, s: tf.parse_single_example(e, {"a": tf.FixedLenFeature([3], tf.string)}),
     "Key: a.  Can't parse serialized Example."),
    (lambda e, s: tf.parse_single_example(e, {"b": tf.FixedLenFeature([2], tf.int64)}),
     "Feature: b (data type: int64) is required but could not be found."),
    (lambda e, s: tf.parse_single_sequence_example(s, {"a": tf.FixedLenFeature([1], tf.int64)}),
     ("Name: , Context feature: a.  Data types don't match. Expected type: int64  Feature is: "
     'bytes_list {\n  value: "s"\n  value: "t"\n}\n')),
    (lambda e, s: tf.parse_single_sequence_example(s, {"b": tf.FixedLenFeature([], tf.int64)}),
     "Name: , Context feature 'b' is required but could not be found."),
    (lambda e, s: tf.parse_single_sequence_example(
        s, sequence_features={"f": tf.VarLenFeature(tf.int64)}),
     ("Name: , Feature List: f, Index: 0.  Data types don't match. Expected type: int64  "
     "Feature is: float_list {\n  value: 1.5\n  value: 2\n}\n")),
])
def test_parse_errors_in_the_words_of_each_tf_parser(build, msg):
    ctx = _feature_example(a=[b"s", b"t"])
    e = tf.train.Example(features=ctx).SerializeToString()
    s = tf.train.SequenceExample(context=ctx, feature_lists=tf.train.FeatureLists(
        feature_list={"f": tf.train.FeatureList(feature=[tf.train.Feature(
            float_list=tf.train.FloatList(value=[1.5, 2.0]))])})).SerializeToString()
    out = build(e, s)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as err:
        sess.run(out)
    assert str(err.value).split("\n\t [[")[0] == msg


def test_decode_raw_parse_tensor_and_parse_example_rank_errors():
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^DecodeRaw requires input strings to all be the same size, "
                                 r"but element 1 has size 3 != 2"):
            sess.run(tf.decode_raw(["abc", "ab"], tf.int16))
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^Input to DecodeRaw has length 3 that is not a multiple of "
                                 r"4, the size of float"):
            sess.run(tf.decode_raw(["abc"], tf.float32))
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^Type mismatch between parsed tensor \(int32\) and dtype "
                                 r"\(float\)"):
            sess.run(tf.parse_tensor(tf.serialize_tensor(tf.constant([1, 2])), tf.float32))
    with pytest.raises(ValueError, match=r"^Shape must be rank 1 but is rank 2 for "
                                         r"'ParseExample/ParseExample'"):
        tf.parse_example([["x"]], {"a": tf.FixedLenFeature([2], tf.int64)})


def test_options_errors_legacy_functions_and_single_element_type():
    o = tf.data.Options()
    with pytest.raises(TypeError) as e:
        o.experimental_deterministic = 3
    assert str(e.value) == ("Property \"experimental_deterministic\" must be of type "
                            "<class 'bool'>, got: 3 (type: <class 'int'>)")
    o.experimental_deterministic = False
    o2 = tf.data.Options()
    o2.experimental_deterministic = True
    with pytest.raises(ValueError, match=r"^Cannot merge incompatible values \(False and "
                                         r"True\) of option: experimental_deterministic$"):
        tf.data.Dataset.range(3).with_options(o).with_options(o2)
    d = tf.data.Dataset.range(4).map_with_legacy_function(lambda x: x * 2)
    with tf.Session() as sess:
        assert [int(v) for v in _drain(sess, d.make_one_shot_iterator().get_next())] == [
            0, 2, 4, 6]
    with pytest.raises(TypeError, match=r"^`dataset` must be a `tf.data.Dataset` object\.$"):
        tf.data.experimental.get_single_element([1])


def test_contrib_data_read_batch_features_reduce_dataset_sloppy_interleave(tmp_path):
    path = str(tmp_path / "a.tfr")
    with tf.python_io.TFRecordWriter(path) as w:
        for i in range(5):
            w.write(tf.train.Example(features=tf.train.Features(feature={
                "i": tf.train.Feature(int64_list=tf.train.Int64List(value=[i]))}))
                .SerializeToString())
    f = tf.contrib.data.read_batch_features(path, 2, {"i": tf.FixedLenFeature([], tf.int64)},
                                            randomize_input=False, num_epochs=1)
    assert sorted(f) == ["i"] and f["i"].shape.as_list() == [None]
    r = tf.contrib.data.reduce_dataset(tf.data.Dataset.range(5), tf.contrib.data.Reducer(
        lambda k: np.int64(0), lambda st, x: st + x, lambda st: st))
    d = tf.data.Dataset.range(3).apply(tf.contrib.data.sloppy_interleave(
        lambda x: tf.data.Dataset.range(x), 2))
    with tf.Session() as sess:
        assert sess.run(f)["i"].tolist() == [0, 1]
        assert sess.run(r) == 10
        assert sorted(int(v) for v in _drain(sess, d.make_one_shot_iterator().get_next())) \
            == [0, 0, 1]
    with pytest.raises(ValueError, match=r"^1 duplicate keys are found in both x and y: "
                                         r"\{'a'\}$"):
        tf.estimator.inputs.numpy_input_fn({"a": np.arange(3)}, {"a": np.arange(3)},
                                           shuffle=False)()


def test_iterators_and_queues_share_tf_private_resource_counter():
    # TF numbers every private resource from one counter: a queue used after an iterator
    # was made names the next number
    def closed_queue_error():
        n = tf.data.Dataset.range(1).make_one_shot_iterator().get_next()
        q = tf.FIFOQueue(2, tf.int32)
        close, deq = q.close(), q.dequeue()
        with tf.Session() as sess:
            sess.run(n)
            sess.run(close)
            with pytest.raises(tf.errors.OutOfRangeError) as e:
                sess.run(deq)
        return str(e.value)

    first = int(closed_queue_error().split("'")[1].split("_")[1])
    with tf.Graph().as_default():
        again = closed_queue_error()
    assert again.startswith(f"FIFOQueue '_{first + 2}_fifo_queue' is closed")


def test_batch_of_unequal_elements_errors_as_tf():
    def first_error(d):
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(d.make_one_shot_iterator().get_next())
        return str(e.value).splitlines()[0]

    # a different number of elements, then the same number in another shape
    d = tf.data.Dataset.range(1, 4).map(lambda x: tf.fill([x, 1], x)).batch(2)
    assert first_error(d) == ("Cannot add tensor to the batch: number of elements does not "
                              "match. Shapes are: [tensor]: [2,1], [batch]: [1,1]")
    d = tf.data.Dataset.from_tensors(tf.zeros([2, 3])).concatenate(
        tf.data.Dataset.from_tensors(tf.ones([3, 2]))).batch(2)
    assert first_error(d) == ("Cannot batch tensors with different shapes in component 0. "
                              "First element had shape [2,3] and element 1 had shape [3,2].")


def test_filter_predicate_error_names_the_returned_spec():
    for f, was in [(lambda x: x, "TensorSpec(shape=(), dtype=tf.int64, name=None)"),
                   (lambda x: tf.fill([1], True),
                    "TensorSpec(shape=(1,), dtype=tf.bool, name=None)")]:
        with pytest.raises(ValueError) as e:
            tf.data.Dataset.range(3).filter(f)
        assert str(e.value) == ("`predicate` return type must be convertible to a scalar "
                                f"boolean tensor. Was {was}.")


def test_from_generator_conversions_as_tf():
    def outcomes(gen, types):
        n = tf.data.Dataset.from_generator(gen, types).make_one_shot_iterator().get_next()
        out = []
        with tf.Session() as sess:
            while True:
                try:
                    v = sess.run(n)
                    out.append(tuple(x.item() for x in v) if isinstance(v, tuple) else v)
                except tf.errors.OutOfRangeError:
                    return out
                except tf.errors.OpError as e:
                    out.append(f"{type(e).__name__}: {str(e).splitlines()[0]}")

    # a non-string yielded for a string is TF's InternalError (not bytes(3), three NULs)
    assert outcomes(lambda: iter(["a", 3]), tf.string) == [
        b"a", "InternalError: Unsupported object type int"]
    # a list where a tuple is declared does not match the structure; an int beyond int32 wraps
    assert outcomes(lambda: iter([[1, 2], (3, 4)]), (tf.int32, tf.int32)) == [
        ("InvalidArgumentError: TypeError: `generator` yielded an element that did not match "
        "the expected structure. The expected structure was (tf.int32, tf.int32), but the "
        "yielded element was [1, 2]."), (3, 4)]
    assert [int(v) for v in outcomes(lambda: iter([3, 2**40 + 5]), tf.int32)] == [3, 5]


def test_reader_compression_names_as_each_tf_kernel(tmp_path):
    d = str(tmp_path)
    with tf.io.TFRecordWriter(d + "/p.tfr") as w:
        w.write(b"p")
    with tf.io.TFRecordWriter(d + "/g.tfr", tf.io.TFRecordOptions("GZIP")) as w:
        w.write(b"g")
    (tmp_path / "t.txt").write_text("1\n")

    def first(dataset):
        n = dataset.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            try:
                return sess.run(n)
            except tf.errors.OpError as e:
                return f"{type(e).__name__}: {str(e).splitlines()[0]}"

    # TFRecord: an unknown name (names are case-sensitive) reads without compression
    assert first(tf.data.TFRecordDataset(d + "/p.tfr", "LZ4")) == b"p"
    assert first(tf.data.TFRecordDataset(d + "/g.tfr", "gzip")).startswith("DataLossError")
    assert first(tf.data.TextLineDataset(d + "/t.txt", "gzip")) == (
        "InvalidArgumentError:  Unsupported compression_type.")
    # (failing in the one-shot factory, the first error is marked derived, as TF 1.15's)
    assert first(tf.data.experimental.CsvDataset(d + "/t.txt", [[0]], compression_type="LZ4")) \
        == "InvalidArgumentError: [_Derived_]Unsupported compression_type: LZ4."


def test_make_initializer_checks_classes_first_in_tf_words():
    it = tf.data.Iterator.from_structure(tf.float32, tf.TensorShape([3]),
                                         output_classes=tf.SparseTensor)
    # (a dense dataset of another dtype and shape: the class is named first)
    with pytest.raises(TypeError, match=r"^Expected output classes .*SparseTensor'> but got "
                                        r"dataset with output class .*Tensor'>\.$"):
        it.make_initializer(tf.data.Dataset.from_tensors(tf.zeros([2], tf.int32)))


def test_rejection_resample_op_count_and_draws_as_tf():
    res = []
    for init in [None, [0.5, 0.5], [0.25, 0.75]]:
        with tf.Graph().as_default() as g:
            tf.set_random_seed(3)
            d = tf.data.Dataset.range(40).map(lambda x: tf.cast(x % 2, tf.int32)).apply(
                tf.data.experimental.rejection_resample(lambda x: x, [0.5, 0.5],
                                                        initial_dist=init, seed=7))
            n = d.make_one_shot_iterator().get_next()
            last = g._last_id
            w = tf.random_uniform([])
            with tf.Session() as sess:
                vals = [int(sess.run(n)[0]) for _ in range(12)]
                res.append((last, vals, round(float(sess.run(w)), 5)))
    assert res == [(49, [0, 1] * 6, 0.7118), (39, [0, 1] * 6, 0.69064),
                   (57, [0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1], 0.20692)]


def test_dataset_class_names_as_tf(tmp_path):
    path = str(tmp_path / "a.txt")
    (tmp_path / "a.txt").write_text("1\n")
    d = tf.data.Dataset
    names = [type(x).__name__ for x in (
        d.range(2), d.range(2).prefetch(1), d.range(2).with_options(tf.data.Options()),
        tf.data.TFRecordDataset(path), tf.data.TextLineDataset(path),
        tf.data.FixedLengthRecordDataset(path, 1), tf.data.experimental.CsvDataset(path, [[0]]),
        tf.data.experimental.RandomDataset())]
    assert names == ["DatasetV1Adapter"] * 3 + [
        "TFRecordDatasetV1", "TextLineDatasetV1", "FixedLengthRecordDatasetV1", "CsvDatasetV1",
        "RandomDatasetV1"]
    with pytest.raises(AttributeError, match="^'DatasetV1Adapter' object has no attribute "
                                             "'nope'$"):
        d.range(1).nope  # noqa: B018
