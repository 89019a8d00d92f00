"""tf.data behaviours that TF 1.15's own tf.data kernel tests (python/data/kernel_tests) rely
on: the ``dataset_ops`` module's legacy names, tf.data's nest (lists are leaves), iterator
string handles and their checks, one-shot iterators whose initialization fails, the
``get_next()`` call warning, and structure errors of ``Iterator.from_structure``."""

import os
import warnings

import numpy as np
import pytest
from tideflow.python.data.ops import dataset_ops, iterator_ops

import tideflow as tf


def _drain(sess, t):
    out = []
    while True:
        try:
            out.append(sess.run(t))
        except tf.errors.OutOfRangeError:
            return out


# -- dataset_ops module names ---------------------------------------------------------------


def test_legacy_output_helpers_follow_batch_static_shapes():
    with tf.Graph().as_default():
        comps = (np.arange(6), np.ones((6, 3), np.float32))
        d = dataset_ops.Dataset.from_tensor_slices(comps)
        kept = d.batch(4, drop_remainder=True)
        loose = d.batch(4)
        assert [s.as_list() for s in dataset_ops.get_legacy_output_shapes(kept)] == [
            [4], [4, 3]]
        assert [s.as_list() for s in dataset_ops.get_legacy_output_shapes(loose)] == [
            [None], [None, 3]]
        assert dataset_ops.get_legacy_output_types(kept) == (tf.int64, tf.float32)
        assert dataset_ops.get_legacy_output_classes(kept) == (tf.Tensor, tf.Tensor)
        spec = dataset_ops.get_structure(kept)
        assert spec[1].shape.as_list() == [4, 3] and spec[1].dtype == tf.float32
        assert dataset_ops.DatasetV1 is dataset_ops.Dataset
        assert dataset_ops.DatasetV2 is dataset_ops.Dataset


def test_variant_tensor_attribute_and_bad_batch_size_error():
    with tf.Graph().as_default():
        v = dataset_ops.Dataset.range(3)._variant_tensor
        assert v.dtype == tf.variant and v.op.type == "RangeDataset"
        bad = dataset_ops.Dataset.range(10).batch(0)._variant_tensor
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(bad)


# -- tf.data's nest -------------------------------------------------------------------------


def test_data_nest_treats_lists_as_leaves():
    from tideflow.python.data.util import nest

    assert nest.flatten([1, 2]) == [[1, 2]]
    assert nest.flatten((1, [2, 3], {"b": 4, "a": 5})) == [1, [2, 3], 5, 4]
    assert not nest.is_sequence([1, 2])
    assert nest.is_sequence((1,)) and nest.is_sequence({"a": 1})
    # a list and an array are the same structure (both one leaf)
    nest.assert_same_structure(([1, 2], 3), (np.array([1, 2]), 4))
    sv = tf.SparseTensorValue(indices=[[0]], values=[1], dense_shape=[1])
    arr = tf.SparseTensorValue(indices=np.array([[0]]), values=np.array([1]),
                               dense_shape=np.array([1]))
    nest.assert_same_structure(sv, arr)
    with pytest.raises(ValueError):
        nest.assert_same_structure((1, 2), (1, 2, 3))
    with pytest.raises(TypeError):
        nest.assert_same_structure((1, (2,)), (1, 2))
    assert nest.map_structure(lambda x, y: x + y, (1, {"a": 2}), (10, {"a": 20})) == (
        11, {"a": 22})
    assert nest.pack_sequence_as((0, {"a": 0, "b": 0}), [7, 8, 9]) == (7, {"a": 8, "b": 9})
    assert nest.flatten_up_to((0, 0), ([1, 2], (3, 4))) == [[1, 2], (3, 4)]


# -- iterators ------------------------------------------------------------------------------


def test_one_shot_iterator_failed_initialization_fails_every_time():
    with tf.Graph().as_default():
        d = dataset_ops.Dataset.from_tensors(tf.gather([0], [4]))  # index 4 out of range
        nxt = dataset_ops.make_one_shot_iterator(d).get_next()
        with tf.Session() as sess:
            for _ in range(3):
                with pytest.raises(tf.errors.InvalidArgumentError):
                    sess.run(nxt)


def test_string_handle_is_one_tensor_unless_named():
    with tf.Graph().as_default() as g:
        it = dataset_ops.make_one_shot_iterator(dataset_ops.Dataset.range(3))
        n_ops = len(g.get_operations())
        assert it.string_handle() is it.string_handle()
        assert len(g.get_operations()) == n_ops
        a = it.string_handle(name="foo")
        b = it.string_handle(name="foo")
        assert (a.op.name, b.op.name) == ("foo", "foo_1")
        structure_it = iterator_ops.Iterator.from_structure(tf.int64)
        assert structure_it.string_handle() is structure_it.string_handle()


def test_feedable_iterator_checks_shape_and_type_of_the_fed_handle():
    with tf.Graph().as_default():
        scalars = dataset_ops.Dataset.from_tensor_slices([1, 2, 3]).repeat()
        vectors = dataset_ops.Dataset.from_tensors([1.0, 2.0])
        h = tf.placeholder(tf.string, [])
        as_scalar = iterator_ops.Iterator.from_string_handle(h, tf.int32, []).get_next()
        as_any = iterator_ops.Iterator.from_string_handle(h, tf.int32).get_next()
        as_vector = iterator_ops.Iterator.from_string_handle(h, tf.int32, [None]).get_next()
        with tf.Session() as sess:
            hs = sess.run(dataset_ops.make_one_shot_iterator(scalars).string_handle())
            hv = sess.run(dataset_ops.make_one_shot_iterator(vectors).string_handle())
            assert sess.run(as_scalar, {h: hs}) == 1
            assert sess.run(as_any, {h: hs}) == 2
            with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes at component 0"):
                sess.run(as_vector, {h: hs})  # rank 0 elements, rank 1 expected
            with pytest.raises(tf.errors.InvalidArgumentError, match="Data type mismatch at component 0"):
                sess.run(as_vector, {h: hv})  # float32 elements, int32 expected
            assert sess.run(as_scalar, {h: hs}) == 3


def test_feedable_iterator_switches_between_two_iterators():
    with tf.Graph().as_default():
        a = dataset_ops.make_one_shot_iterator(dataset_ops.Dataset.from_tensor_slices([1, 2]))
        b = dataset_ops.make_one_shot_iterator(
            dataset_ops.Dataset.from_tensor_slices([10, 20, 30]))
        h = tf.placeholder(tf.string, [])
        nxt = iterator_ops.Iterator.from_string_handle(h, tf.int32, []).get_next()
        with tf.Session() as sess:
            ha, hb = sess.run([a.string_handle(), b.string_handle()])
            got = [sess.run(nxt, {h: x}) for x in (hb, ha, hb, ha, hb)]
            assert got == [10, 1, 20, 2, 30]
            for x in (ha, hb):
                with pytest.raises(tf.errors.OutOfRangeError):
                    sess.run(nxt, {h: x})


def test_from_structure_shape_structure_errors():
    with tf.Graph().as_default():
        # a list is one leaf in tf.data's structures: TypeError against two types
        with pytest.raises(TypeError):
            iterator_ops.Iterator.from_structure((tf.int64, tf.float64), [None])
        with pytest.raises(ValueError):
            iterator_ops.Iterator.from_structure((tf.int64, tf.float64), ([], [], []))
        it = iterator_ops.Iterator.from_structure((tf.int64, tf.float64), ([None], []))
        assert [s.as_list() for s in it.output_shapes] == [[None], []]


def test_get_next_warns_after_many_calls():
    with tf.Graph().as_default():
        it = dataset_ops.make_one_shot_iterator(dataset_ops.Dataset.range(3))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for _ in range(40):
                it.get_next()
        msgs = [str(x.message) for x in w if "get_next()" in str(x.message)]
        assert len(msgs) == 40 - iterator_ops.GET_NEXT_CALL_WARNING_THRESHOLD
        assert iterator_ops.GET_NEXT_CALL_WARNING_THRESHOLD == 32


# -- from_generator -------------------------------------------------------------------------


def test_from_generator_bad_element_raises_in_its_turn_and_iteration_goes_on():
    def gen():
        yield np.array([1, 2], np.int64)
        yield "not a number"  # type error
        yield np.array([3, 4, 5], np.int64)  # shape error
        yield (np.array([6, 7]), np.array([8, 9]))  # one (2, 2) value: a shape error, as TF
        yield [10, 11]

    with tf.Graph().as_default():
        d = dataset_ops.Dataset.from_generator(gen, tf.int64, output_shapes=[2])
        nxt = dataset_ops.make_one_shot_iterator(d).get_next()
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(nxt), [1, 2])
            with pytest.raises(tf.errors.InvalidArgumentError, match="expected type was int64"):
                sess.run(nxt)
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"element of shape \(2,\) was expected"):
                sess.run(nxt)
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"element of shape \(2, 2\) where"):
                sess.run(nxt)
            np.testing.assert_array_equal(sess.run(nxt), [10, 11])
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(nxt)


# -- datasets as elements -------------------------------------------------------------------


def test_map_returning_datasets_batch_unbatch_flat_map():
    with tf.Graph().as_default():
        d = dataset_ops.Dataset.range(6).map(lambda i: dataset_ops.Dataset.from_tensors(i * 3))
        b = d.batch(4)
        flat = b.map(lambda x: x).unbatch().flat_map(lambda x: x)
        nxt = dataset_ops.make_one_shot_iterator(flat).get_next()
        with tf.Session() as sess:
            assert _drain(sess, nxt) == [0, 3, 6, 9, 12, 15]
        whole = dataset_ops.Dataset.from_tensors(dataset_ops.Dataset.range(4)).flat_map(
            lambda x: x.map(lambda v: v + 1))
        nxt = dataset_ops.make_one_shot_iterator(whole).get_next()
        with tf.Session() as sess:
            assert _drain(sess, nxt) == [1, 2, 3, 4]


# -- map and prefetch -----------------------------------------------------------------------


@pytest.mark.parametrize("parallel", [None, 2])
def test_failed_map_element_then_prefetch_goes_on(parallel):
    vals = np.array([1.0, 2.0, np.nan, 4.0], np.float32)
    with tf.Graph().as_default():
        d = dataset_ops.Dataset.from_tensor_slices(vals).map(
            lambda x: tf.check_numerics(x, "bad value"), num_parallel_calls=parallel).prefetch(2)
        nxt = dataset_ops.make_one_shot_iterator(d).get_next()
        with tf.Session() as sess:
            assert [sess.run(nxt), sess.run(nxt)] == [1.0, 2.0]
            with pytest.raises(tf.errors.InvalidArgumentError, match="bad value"):
                sess.run(nxt)
            assert sess.run(nxt) == 4.0
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(nxt)


def test_map_function_returning_none_message():
    with tf.Graph().as_default():
        d = dataset_ops.Dataset.range(3)
        with pytest.raises(TypeError, match=r"Unsupported return value from function passed "
                                            r"to Dataset\.map\(\): None\."):
            d.map(lambda x: None)


def test_map_function_creating_a_table_warns():
    def make_table(x):
        tf.contrib.lookup.HashTable(
            tf.contrib.lookup.KeyValueTensorInitializer(["a"], [1.0]), 0.0)
        return x

    with tf.Graph().as_default():
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            dataset_ops.Dataset.range(3).map(make_table)
            dataset_ops.Dataset.range(3).map(lambda x: x + 1)
        msgs = [str(x.message) for x in w if "Creating resources inside" in str(x.message)]
        assert len(msgs) == 1


# -- padded_batch ---------------------------------------------------------------------------


def test_padded_batch_accepts_minus_one_and_checks_padded_shapes():
    lens = np.array([3, 1, 0, 2], np.int32)
    with tf.Graph().as_default():
        d = dataset_ops.Dataset.from_tensor_slices(lens).map(lambda n: tf.fill([n], n))
        # -1 (as a list or a tensor) is an unknown dimension: pad to the longest in the batch
        for shapes in ([-1], tf.constant([-1], tf.int64)):
            b = d.padded_batch(4, padded_shapes=shapes)
            assert b.output_shapes.as_list() == [None, None]
            nxt = dataset_ops.make_one_shot_iterator(b).get_next()
            want = np.zeros((4, 3), np.int32)
            for i, n in enumerate(lens):
                want[i, :n] = n
            with tf.Session() as sess:
                np.testing.assert_array_equal(sess.run(nxt), want)
        with pytest.raises(ValueError, match=r"The padded shape \(1,\) is not compatible with "
                                             r"the corresponding input component shape \(\)\."):
            dataset_ops.Dataset.range(10).padded_batch(5, padded_shapes=[1])
        with pytest.raises(ValueError, match=r"The padded shape \(1,\) is not compatible with "
                                             r"the corresponding input component shape \(3,\)"):
            dataset_ops.Dataset.from_tensors([1, 2, 3]).padded_batch(5, padded_shapes=[1])
        with pytest.raises(ValueError, match=r"must be a 1-D tensor of tf\.int64 values, but "
                                             r"its shape was \(2, 2\)"):
            dataset_ops.Dataset.from_tensors([1, 2, 3]).padded_batch(
                5, padded_shapes=[[1, 1], [1, 1]])
        with pytest.raises(TypeError, match=r"must be a 1-D tensor of tf\.int64 values, but its "
                                            r"element type was float32"):
            dataset_ops.Dataset.from_tensors([1, 2, 3]).padded_batch(
                5, padded_shapes=tf.constant([1.5, 2.0, 3.0]))
        with pytest.raises(ValueError, match=r"The padded shape \(\?, \?\) is not compatible"):
            dataset_ops.Dataset.range(10).padded_batch(
                5, padded_shapes=tf.placeholder(tf.int64, [2]))


# -- reduce, shuffle seeds, argument checks -------------------------------------------------


def test_dataset_reduce_folds_elements_into_the_state():
    with tf.Graph().as_default():
        total = dataset_ops.Dataset.range(10).reduce(np.int64(0), lambda s, x: s + x)
        pair = dataset_ops.Dataset.range(1, 6).reduce(
            (np.int64(0), np.int64(1)), lambda s, x: (s[0] + x, s[1] * x))
        empty = dataset_ops.Dataset.range(0).reduce(np.int64(7), lambda s, x: s + x)
        # a state whose shape grows: traced again with the shape relaxed, as TF does
        grown = dataset_ops.Dataset.range(4).reduce(
            tf.zeros([0], tf.int64), lambda s, x: tf.concat([s, [x * x]], 0))
        assert grown.shape.as_list() == [None]
        with tf.Session() as sess:
            assert sess.run(total) == sum(range(10))
            assert sess.run(pair) == (15, 120)
            assert sess.run(empty) == 7
            np.testing.assert_array_equal(sess.run(grown), [0, 1, 4, 9])
        with pytest.raises(TypeError, match="must match the initial state"):
            # an int32 state whose new value is the int64 element
            dataset_ops.Dataset.range(3).reduce(np.int32(0), lambda s, x: x)


def test_shuffle_seed_may_be_a_tensor():
    with tf.Graph().as_default():
        a = dataset_ops.make_one_shot_iterator(
            dataset_ops.Dataset.range(20).shuffle(20, seed=0)).get_next()
        ph = tf.placeholder(tf.int64, [])
        it = dataset_ops.make_initializable_iterator(
            dataset_ops.Dataset.range(20).shuffle(20, seed=ph))
        b = it.get_next()
        with tf.Session() as sess:
            first = [sess.run(a) for _ in range(20)]
            sess.run(it.initializer, {ph: 0})
            assert [sess.run(b) for _ in range(20)] == first
            assert sorted(first) == list(range(20))


def test_prefetch_interleave_and_unbatch_argument_checks():
    with tf.Graph().as_default():
        bad = [dataset_ops.Dataset.range(5).prefetch(-5),
               dataset_ops.Dataset.range(5).interleave(
                   lambda x: dataset_ops.Dataset.from_tensors(x), cycle_length=0)]
        with tf.Session() as sess:
            for d in bad:
                with pytest.raises(tf.errors.InvalidArgumentError):
                    sess.run(dataset_ops.make_one_shot_iterator(d).get_next())
            auto = dataset_ops.make_one_shot_iterator(
                dataset_ops.Dataset.range(3).prefetch(tf.data.experimental.AUTOTUNE)).get_next()
            assert [sess.run(auto) for _ in range(3)] == [0, 1, 2]
        with pytest.raises(ValueError, match="different batch sizes"):
            dataset_ops.Dataset.from_tensors((np.zeros(3), np.zeros(4))).unbatch()


def test_dataset_reduce_sparse_state_and_cancellation():
    def sp(i):
        return tf.SparseTensorValue(indices=[[0, 0]], values=tf.reshape(tf.cast(i, tf.int64), [1]),
                                    dense_shape=[1, 1])

    with tf.Graph().as_default():
        last = dataset_ops.Dataset.range(1, 4).map(sp).reduce(sp(0), lambda _, value: value)
        assert isinstance(last, tf.SparseTensor)
        import threading

        started = threading.Event()

        def mark(x):
            started.set()
            return x

        endless = dataset_ops.Dataset.from_tensors(np.int64(1)).repeat().map(
            lambda x: tf.py_func(mark, [x], tf.int64)).reduce(np.int64(0), lambda s, x: s + x)
        sess = tf.Session()
        got = sess.run(last)
        np.testing.assert_array_equal(got.values, [3])
        np.testing.assert_array_equal(got.dense_shape, [1, 1])
        errs = []

        def run():
            try:
                sess.run(endless)
            except tf.errors.CancelledError as e:
                errs.append(e)

        t = threading.Thread(target=run)
        t.start()
        assert started.wait(30)  # the reduce is running
        sess.close()
        t.join(10)
        assert not t.is_alive() and len(errs) == 1


# -- file datasets --------------------------------------------------------------------------


@pytest.mark.parametrize("compression", [None, "GZIP", "ZLIB"])
def test_text_line_dataset_compressed_crlf(tmp_path, compression):
    import gzip
    import zlib

    lines = [b"%d: line" % i for i in range(5)]
    raw = b"\r\n".join(lines)  # no newline after the last line
    path = str(tmp_path / "lines.txt")
    if compression == "GZIP":
        with gzip.GzipFile(path, "wb") as f:
            f.write(raw)
    else:
        with open(path, "wb") as f:
            f.write(zlib.compress(raw) if compression == "ZLIB" else raw)
    with tf.Graph().as_default():
        d = tf.data.TextLineDataset(path, compression_type=compression).repeat(2)
        nxt = dataset_ops.make_one_shot_iterator(d).get_next()
        with tf.Session() as sess:
            assert _drain(sess, nxt) == lines * 2


@pytest.mark.parametrize("compression", [None, "GZIP"])
def test_fixed_length_record_dataset_body_not_a_multiple(tmp_path, compression):
    import gzip

    body = b"".join(b"%d" % (i % 10) * 3 for i in range(7))  # 21 bytes
    data = b"H" * 5 + body + b"F" * 2
    path = str(tmp_path / "fixed.bin")
    if compression == "GZIP":
        with gzip.GzipFile(path, "wb") as f:
            f.write(data)
    else:
        with open(path, "wb") as f:
            f.write(data)
    msg = (r"Excluding the header \(5 bytes\) and footer \(2 bytes\), input file \".*fixed.bin\" "
           r"has body length 21 bytes, which is not an exact multiple of the record length "
           r"\(4 bytes\)\.")
    with tf.Graph().as_default():
        good = dataset_ops.make_one_shot_iterator(tf.data.FixedLengthRecordDataset(
            path, 3, 5, 2, compression_type=compression)).get_next()
        bad = dataset_ops.make_one_shot_iterator(tf.data.FixedLengthRecordDataset(
            path, 4, 5, 2, compression_type=compression)).get_next()
        with tf.Session() as sess:
            assert _drain(sess, good) == [body[i:i + 3] for i in range(0, 21, 3)]
            if compression is None:  # checked before any record is read
                with pytest.raises(tf.errors.InvalidArgumentError, match=msg):
                    sess.run(bad)
            else:  # the whole records of the stream, then the error
                assert [sess.run(bad) for _ in range(5)] == [body[i:i + 4]
                                                             for i in range(0, 20, 4)]
                with pytest.raises(tf.errors.DataLossError, match=msg):
                    sess.run(bad)


def test_optional_none_from_structure_takes_type_specs():
    X = tf.data.experimental
    with tf.Graph().as_default():
        spec = tf.TensorSpec([], tf.float32)
        opt = X.Optional.none_from_structure(spec)
        assert opt.value_structure.is_compatible_with(spec)
        assert not opt.value_structure.is_compatible_with(tf.TensorSpec([1], tf.float32))
        nested = X.Optional.none_from_structure(
            {"a": spec, "b": tf.SparseTensorSpec([2, 2], tf.int64)})
        assert isinstance(nested.get_value()["b"], tf.SparseTensor)
        old_style = X.Optional.none_from_structure(tf.int32, tf.TensorShape([3]))
        assert old_style.get_value().shape.as_list() == [3]
        with tf.Session() as sess:
            assert not sess.run(opt.has_value())
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(opt.get_value())


def test_cache_file_concurrent_writers(tmp_path):
    prefix = str(tmp_path / "cache")
    with tf.Graph().as_default():
        n1 = dataset_ops.make_one_shot_iterator(
            dataset_ops.Dataset.range(4).cache(prefix)).get_next()
        n2 = dataset_ops.make_one_shot_iterator(
            dataset_ops.Dataset.range(4).cache(prefix)).get_next()
        with tf.Session() as sess:
            assert sess.run(n1) == 0
            with pytest.raises(tf.errors.AlreadyExistsError, match="lockfile already exists"):
                sess.run(n2)
            assert [sess.run(n1) for _ in range(3)] == [1, 2, 3]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(n1)
        # the finished writer released its lock; a new pipeline replays the file even with an
        # empty input
        n3 = dataset_ops.make_one_shot_iterator(
            dataset_ops.Dataset.range(0).cache(prefix)).get_next()
        with tf.Session() as sess:
            assert _drain(sess, n3) == [0, 1, 2, 3]


def test_list_files_empty_match_and_pattern_lists(tmp_path):
    for name in ["b.py", "a.txt", "c.py", "d.pyc"]:
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "empty").mkdir()
    empty = str(tmp_path / "empty" / "*")
    with tf.Graph().as_default():
        pats = [str(tmp_path / "*.py"), str(tmp_path / "*.txt")]
        names = dataset_ops.make_one_shot_iterator(
            dataset_ops.Dataset.list_files(pats, shuffle=False)).get_next()
        # a one-shot iterator copies the pipeline without the match check: no elements
        one_shot = dataset_ops.make_one_shot_iterator(
            dataset_ops.Dataset.list_files(empty)).get_next()
        init = dataset_ops.make_initializable_iterator(dataset_ops.Dataset.list_files(empty))
        with tf.Session() as sess:
            # the matches of all the patterns sorted together, as TF's MatchingFiles
            got = [os.path.basename(x.decode()) for x in _drain(sess, names)]
            assert got == ["a.txt", "b.py", "c.py"]
            assert _drain(sess, one_shot) == []
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="No files matched pattern: .*empty"):
                sess.run(init.initializer)
        m = tf.matching_files([str(tmp_path / "c*"), str(tmp_path / "a*"), str(tmp_path / "b*")])
        with tf.Session() as sess:
            assert [os.path.basename(x.decode()) for x in sess.run(m)] == [
                "a.txt", "b.py", "c.py"]


def test_window_reports_only_errors_of_elements_in_a_window():
    vals = np.float32([1.0, np.nan, 2.0, np.nan, 3.0, 7.0, np.nan])
    with tf.Graph().as_default():
        d = dataset_ops.Dataset.from_tensor_slices(vals).map(
            lambda x: tf.check_numerics(x, "bad"))
        # stride 2: windows at 0 (1, 2), 2 (2, 3), 4 (3, NaN): only the last sees a NaN
        strided = d.window(2, shift=2, stride=2, drop_remainder=True).flat_map(
            lambda w: w.batch(2))
        # shift 2: windows of one element at 0, 2, 4, 6; the NaNs between are skipped
        shifted = d.window(1, shift=2).flat_map(lambda w: w.batch(1))
        with tf.Session() as sess:
            nxt = dataset_ops.make_one_shot_iterator(strided).get_next()
            assert sess.run(nxt).tolist() == [1.0, 2.0]
            assert sess.run(nxt).tolist() == [2.0, 3.0]
            with pytest.raises(tf.errors.InvalidArgumentError, match="bad"):
                sess.run(nxt)
            nxt = dataset_ops.make_one_shot_iterator(shifted).get_next()
            assert [sess.run(nxt).tolist() for _ in range(3)] == [[1.0], [2.0], [3.0]]
            with pytest.raises(tf.errors.InvalidArgumentError, match="bad"):
                sess.run(nxt)


# -- errors do not end a pipeline -----------------------------------------------------------


_STAGES = {
    "filter": lambda d: d.filter(lambda x: x > 0),
    "take": lambda d: d.take(10),
    "skip": lambda d: d.skip(1),
    "repeat": lambda d: d.repeat(2),
    "zip": lambda d: dataset_ops.Dataset.zip((d, dataset_ops.Dataset.range(100))).map(
        lambda a, b: a),
    "concatenate": lambda d: d.concatenate(dataset_ops.Dataset.from_tensors(9.0)),
    "flat_map": lambda d: d.flat_map(dataset_ops.Dataset.from_tensors),
    "interleave": lambda d: d.interleave(dataset_ops.Dataset.from_tensors, cycle_length=2),
    "shuffle": lambda d: d.shuffle(1),
    "shard": lambda d: d.shard(1, 0),
    "unbatch": lambda d: d.batch(1).unbatch(),
    "padded_batch": lambda d: d.map(lambda x: tf.reshape(x, [1])).padded_batch(1, [1]).map(
        lambda x: x[0, 0]),
    "cache": lambda d: d.cache(),
    "scan": lambda d: d.apply(tf.data.experimental.scan(0.0, lambda s, x: (s, x))),
    "take_while": lambda d: d.apply(tf.data.experimental.take_while(lambda x: x < 100)),
    "window": lambda d: d.window(1).flat_map(lambda w: w),
    "unique": lambda d: d.map(lambda x: tf.cast(x, tf.int64)).apply(
        tf.data.experimental.unique()).map(lambda x: tf.cast(x, tf.float32)),
    "group_by_window": lambda d: d.apply(tf.data.experimental.group_by_window(
        lambda x: tf.constant(0, tf.int64), lambda k, w: w.batch(1), 1)).map(lambda x: x[0]),
    "choose_from_datasets": lambda d: tf.data.experimental.choose_from_datasets(
        [d], dataset_ops.Dataset.range(4).map(lambda x: x * 0)),
    "dense_to_sparse_batch": lambda d: d.map(lambda x: tf.reshape(x, [1])).apply(
        tf.data.experimental.dense_to_sparse_batch(1, [1])).map(lambda s: s.values[0]),
}


@pytest.mark.parametrize("stage", sorted(_STAGES))
def test_failed_element_raises_in_its_turn_through_each_stage(stage):
    vals = np.float32([1.0, np.nan, 2.0, 3.0])
    with tf.Graph().as_default():
        d = dataset_ops.Dataset.from_tensor_slices(vals).map(
            lambda x: tf.check_numerics(x, "bad"))
        out = _STAGES[stage](d)
        nxt = dataset_ops.make_one_shot_iterator(out).get_next()
        # behind ignore_errors, the same stage loses only the failed element
        kept = dataset_ops.make_one_shot_iterator(
            out.apply(tf.data.experimental.ignore_errors())).get_next()
        got = []
        with tf.Session() as sess:
            while True:
                try:
                    got.append(float(sess.run(nxt)))
                except tf.errors.InvalidArgumentError:
                    got.append("error")
                except tf.errors.OutOfRangeError:
                    break
            clean = [float(x) for x in _drain(sess, kept)]
        want = {"skip": ["error", 2.0, 3.0], "repeat": [1.0, "error", 2.0, 3.0] * 2,
                "concatenate": [1.0, "error", 2.0, 3.0, 9.0]}.get(
                    stage, [1.0, "error", 2.0, 3.0])
        assert got == want
        assert clean == [x for x in want if x != "error"]


# -- tf.data.experimental -------------------------------------------------------------------


def test_map_and_batch_fails_whole_batches_and_preserves_cardinality():
    from tideflow.python.data.experimental.ops import batching

    def stop_at_25(i):
        if i >= 25:
            raise StopIteration()
        return i

    with tf.Graph().as_default():
        d = dataset_ops.Dataset.range(40).apply(batching.map_and_batch(
            lambda x: tf.py_func(stop_at_25, [x], tf.int64), batch_size=10))
        nxt = dataset_ops.make_one_shot_iterator(d).get_next()
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(nxt), np.arange(10))
            np.testing.assert_array_equal(sess.run(nxt), np.arange(10, 20))
            for _ in range(2):  # batches 20..29 and 30..39 each hold a failed element
                with pytest.raises(tf.errors.InvalidArgumentError):
                    sess.run(nxt)
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(nxt)

    def gen():
        yield [1]
        yield [2]
        yield [[3, 4, 5]]

    with tf.Graph().as_default():
        d = dataset_ops.Dataset.from_generator(gen, tf.int32).apply(
            tf.data.experimental.map_and_batch(lambda x: x, 3))
        nxt = dataset_ops.make_one_shot_iterator(d).get_next()
        with tf.Session() as sess, pytest.raises(
                tf.errors.InvalidArgumentError,
                match=r"number of elements does not match. Shapes are: \[tensor\]: \[1,3\], "
                      r"\[batch\]: \[1\]"):
            sess.run(nxt)


def test_experimental_and_reader_module_paths():
    from tideflow.python.data.experimental.ops import batching, interleave_ops, shuffle_ops
    from tideflow.python.data.ops import optional_ops, readers

    assert batching.map_and_batch is tf.data.experimental.map_and_batch
    assert interleave_ops.parallel_interleave is tf.data.experimental.parallel_interleave
    assert shuffle_ops.shuffle_and_repeat is tf.data.experimental.shuffle_and_repeat
    assert readers.TFRecordDataset is tf.data.TFRecordDataset
    assert optional_ops.Optional is tf.data.experimental.Optional


def test_shard_argument_errors():
    with tf.Graph().as_default():
        cases = [(dataset_ops.Dataset.range(10).shard(0, 0),
                  r"Number of shards must be greater than zero \(currently num_shards = 0\)\."),
                 (dataset_ops.Dataset.range(10).shard(5, 7),
                  r"Index must be between 0 and 4 \(currently index = 7\)\.")]
        with tf.Session() as sess:
            for d, msg in cases:
                with pytest.raises(tf.errors.InvalidArgumentError, match=msg):
                    sess.run(dataset_ops.make_one_shot_iterator(d).get_next())


def test_seeded_random_op_in_map_restarts_with_each_iterator():
    with tf.Graph().as_default():
        d = dataset_ops.Dataset.from_tensors(0).repeat(6).map(
            lambda _: tf.random_uniform([], seed=11)).batch(3)
        it = dataset_ops.make_initializable_iterator(d)
        nxt = it.get_next()
        other = dataset_ops.make_one_shot_iterator(d).get_next()
        with tf.Session() as sess:
            sess.run(it.initializer)
            first = np.concatenate(_drain(sess, nxt))
            assert len(set(first.tolist())) == 6  # a stateful op: new values per element
            sess.run(it.initializer)  # as TF: the function is instantiated anew
            np.testing.assert_array_equal(np.concatenate(_drain(sess, nxt)), first)
            np.testing.assert_array_equal(np.concatenate(_drain(sess, other)), first)
        # within one iteration (repeat after the map) the state goes on
        d2 = dataset_ops.Dataset.from_tensors(0).repeat(3).map(
            lambda _: tf.random_uniform([], seed=11)).repeat(2)
        with tf.Session() as sess:
            vals = _drain(sess, dataset_ops.make_one_shot_iterator(d2).get_next())
        assert vals[:3] != vals[3:] and vals[:3] == first[:3].tolist()


def test_make_csv_dataset_inference_compression_and_static_batch(tmp_path):
    import gzip
    import zlib

    big = 2 ** 33
    text = f"a,b,c,d,e\n,,,,\n0,0,0.0,0.0,0.0\n1,{big},2.5,3e50,rabbit\n"
    plain, gz, zl = (str(tmp_path / n) for n in ("p.csv", "g.csv", "z.csv"))
    with open(plain, "w") as f:
        f.write(text)
    with gzip.GzipFile(gz, "wb") as f:
        f.write(text.encode())
    with open(zl, "wb") as f:
        f.write(zlib.compress(text.encode()))
    X = tf.data.experimental
    with tf.Graph().as_default():
        d = X.make_csv_dataset(plain, batch_size=3, num_epochs=1, shuffle=False, label_name="a")
        feats, label = d.output_types
        # int32 < int64 < float32 < float64 < string, each value moving its column on
        assert label == tf.int32
        assert [feats[k] for k in "bcde"] == [tf.int64, tf.float32, tf.float64, tf.string]
        gzd = X.make_csv_dataset(gz, batch_size=3, num_epochs=1, shuffle=False,
                                 compression_type="GZIP")
        # ZLIB files can be read but not probed: names and defaults must be given
        with pytest.raises(ValueError, match=r"compression_type \(ZLIB\) is not supported"):
            X.make_csv_dataset(zl, batch_size=3, compression_type="ZLIB")
        zld = X.make_csv_dataset(zl, batch_size=3, num_epochs=1, shuffle=False,
                                 compression_type="ZLIB", column_names=list("abcde"),
                                 column_defaults=[0, 0, 0.0, 0.0, ""], label_name="a")
        zl_ok = X.make_csv_dataset(zl, batch_size=3, num_epochs=1, shuffle=False,
                                   compression_type="ZLIB", column_names=list("abcde"),
                                   column_defaults=[0, np.int64(0), 0.0, 0.0, ""],
                                   label_name="a")
        endless = X.make_csv_dataset(plain, batch_size=2, num_epochs=None)
        assert all(s.as_list() == [2] for s in tf.nest.flatten(endless.output_shapes))
        with pytest.raises(ValueError, match="different number of fields"):
            X.make_csv_dataset(plain, batch_size=1, column_names=list("abcdef"))
        with tf.Session() as sess:
            f, lab = sess.run(dataset_ops.make_one_shot_iterator(d).get_next())
            np.testing.assert_array_equal(lab, [0, 0, 1])
            np.testing.assert_array_equal(f["b"], [0, 0, big])
            np.testing.assert_array_equal(f["d"], [0.0, 0.0, 3e50])
            assert f["e"].tolist() == [b"", b"0.0", b"rabbit"]
            g = sess.run(dataset_ops.make_one_shot_iterator(gzd).get_next())
            np.testing.assert_array_equal(g["b"], [0, 0, big])
            # column b given an int32 default: 2**33 is not a valid int32 (as TF's CsvDataset)
            with pytest.raises(tf.errors.InvalidArgumentError, match="not a valid int32"):
                sess.run(dataset_ops.make_one_shot_iterator(zld).get_next())
            z, _ = sess.run(dataset_ops.make_one_shot_iterator(zl_ok).get_next())
            np.testing.assert_array_equal(z["b"], [0, 0, big])


def test_parallel_interleave_failed_input_takes_its_slot():
    def fail_on_5(x):
        if x == 5:
            raise ValueError("no 5")
        return x

    with tf.Graph().as_default():
        src = dataset_ops.Dataset.from_tensor_slices(np.int64([4, 5, 6])).map(
            lambda x: tf.py_func(fail_on_5, [x], tf.int64))
        par = src.apply(tf.data.experimental.parallel_interleave(
            lambda x: dataset_ops.Dataset.from_tensors(x).repeat(x), cycle_length=2))
        seq = src.interleave(lambda x: dataset_ops.Dataset.from_tensors(x).repeat(x),
                             cycle_length=2)

        def run(d):
            nxt = dataset_ops.make_one_shot_iterator(d).get_next()
            out = []
            with tf.Session() as sess:
                while True:
                    try:
                        out.append(int(sess.run(nxt)))
                    except tf.errors.InvalidArgumentError:
                        out.append("error")
                    except tf.errors.OutOfRangeError:
                        return out

        # parallel_interleave: the failed input is a one-element block of slot 1, so the
        # cycle moves on, and slot 1 opens the next input on its next turn
        assert run(par) == [4, "error", 4, 4, 6, 4, 6, 6, 6, 6, 6]
        # Dataset.interleave: the error is raised, then slot 1 opens the next input at once
        assert run(seq) == [4, "error", 6, 4, 6, 4, 6, 4, 6, 6, 6]


def test_from_generator_structure_argument_errors():
    with tf.Graph().as_default():
        with pytest.raises(TypeError):
            dataset_ops.Dataset.from_generator(lambda: iter([1]), output_types=None)
        with pytest.raises(ValueError, match="same sequence length. Input structure has "
                                             "length 1, while shallow structure has length 2"):
            dataset_ops.Dataset.from_generator(lambda: iter([1]), (tf.int64, tf.int64),
                                               output_shapes=([],))


def test_options_merge_conflicts_raise():
    D = dataset_ops.Dataset
    o1 = tf.data.Options()
    o1.experimental_optimization.autotune = True
    o2 = tf.data.Options()
    o2.experimental_deterministic = False
    o3 = tf.data.Options()
    o3.experimental_optimization.autotune = False
    with tf.Graph().as_default():
        d = D.range(0).with_options(o1).with_options(o2)
        assert d.options().experimental_optimization.autotune is True
        assert d.options().experimental_deterministic is False
        assert D.range(0).with_options(o1).with_options(o1).options() == o1
        with pytest.raises(ValueError, match="Cannot merge incompatible values"):
            D.range(0).with_options(o1).with_options(o3)
        zipped = D.zip((D.range(0).with_options(o1), D.range(0).with_options(o3)))
        with pytest.raises(ValueError, match="Cannot merge incompatible values"):
            zipped.options()


def test_options_have_fresh_default_parts():
    X = tf.data.experimental
    o1, o2 = tf.data.Options(), tf.data.Options()
    assert o1.experimental_stats is not o2.experimental_stats
    assert o1.experimental_threading is not o2.experimental_threading
    assert o1.experimental_stats == X.StatsOptions()
    assert o1.experimental_threading == X.ThreadingOptions()
    assert o1.experimental_optimization == X.OptimizationOptions()


def test_checkpoint_input_pipeline_hook_resumes_the_input(tmp_path):
    seen = []

    def input_fn():
        return dataset_ops.Dataset.range(100).map(
            lambda x: ({"x": tf.reshape(tf.cast(x, tf.float32), [1])}, tf.cast(x, tf.float32)))

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [1], initializer=tf.zeros_initializer())
        loss = tf.reduce_sum(tf.square(features["x"] * w - labels))
        record = tf.py_func(lambda v: seen.append(float(v)) or np.float32(0), [labels],
                            tf.float32)
        with tf.control_dependencies([record]):
            train_op = tf.train.GradientDescentOptimizer(0.0).minimize(
                loss, global_step=tf.train.get_or_create_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path),
                                 config=tf.estimator.RunConfig(save_checkpoints_steps=5))
    hook = tf.data.experimental.CheckpointInputPipelineHook
    est.train(input_fn, steps=7, hooks=[hook(est)])
    assert seen == [float(i) for i in range(7)]
    del seen[:]
    est.train(input_fn, steps=3, hooks=[hook(est)])
    assert seen == [7.0, 8.0, 9.0]  # the input goes on where the last training stopped
    assert (tmp_path / "checkpoint_input").exists()
    del seen[:]
    est.train(input_fn, steps=2)  # without the hook the pipeline starts over
    assert seen == [0.0, 1.0]
    with pytest.raises(ValueError, match="must have type `tf.estimator.Estimator`"):
        hook(object())


def test_padded_batch_padding_value_must_match_the_component():
    with tf.Graph().as_default():
        d = dataset_ops.Dataset.range(1, 4).map(lambda x: tf.fill([x], x))  # int64 rows
        with pytest.raises(TypeError, match="does not match output type: <dtype: 'int64'>"):
            d.padded_batch(2, [None], padding_values=-1)  # a Python int is an int32
        with pytest.raises(ValueError, match="Padding value should be a scalar"):
            d.padded_batch(2, [None], padding_values=tf.constant([1, 2], tf.int64))
        ok = d.padded_batch(3, [None], padding_values=np.int64(-1))
        strs = dataset_ops.Dataset.from_tensor_slices(["a", "bb"]).map(
            lambda s: tf.string_split([s], "").values).padded_batch(2, [None],
                                                                  padding_values="<pad>")
        with tf.Session() as sess:
            np.testing.assert_array_equal(
                sess.run(dataset_ops.make_one_shot_iterator(ok).get_next()),
                [[1, -1, -1], [2, 2, -1], [3, 3, 3]])
            got = sess.run(dataset_ops.make_one_shot_iterator(strs).get_next())
            assert got.tolist() == [[b"a", b"<pad>"], [b"b", b"b"]]
