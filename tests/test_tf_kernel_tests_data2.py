"""tf.data behaviours found by running TF 1.15's tf.data kernel tests (second pass): the
``DatasetTestBase`` mirror those tests build on, ``dataset_ops.PrefetchDataset``, RaggedTensor
elements (made, sliced, batched, unbatched, mapped, fetched) and the ragged conversion module."""

import numpy as np
import pytest
from tideflow.python.data.kernel_tests import test_base
from tideflow.python.data.ops import dataset_ops

import tideflow as tf
from tideflow.python.ops.ragged import ragged_conversion_ops


def _drain(sess, t):
    out = []
    while True:
        try:
            out.append(sess.run(t))
        except tf.errors.OutOfRangeError:
            return out


def _lists(values):
    return [v.to_list() if hasattr(v, "to_list") else np.asarray(v).tolist() for v in values]


# -- DatasetTestBase ------------------------------------------------------------------------


@pytest.fixture
def probe():
    # (a class made here, so pytest does not collect it as a TestCase of this module)
    probe_class = type("Probe", (test_base.DatasetTestBase,), {"runTest": lambda self: None})
    case = probe_class()
    case.setUp()
    yield case
    case.tearDown()


def test_dataset_test_base_checks_output_and_the_end_twice(probe):
    d = tf.data.Dataset.range(3, 9, 2)
    probe.assertDatasetProduces(d, expected_output=[3, 5, 7],
                                expected_shapes=tf.TensorShape([]))
    with pytest.raises(AssertionError):
        probe.assertDatasetProduces(d, expected_output=[3, 5])  # one element left over
    probe.assertDatasetProduces(d.map(lambda x: x * 10), [70, 30, 50],
                                assert_items_equal=True)


def test_dataset_test_base_expected_error_and_initializable_iterator(probe):
    bad = tf.data.Dataset.from_tensor_slices([1.0, np.inf]).map(
        lambda x: tf.debugging.check_numerics(x, "not finite"))
    probe.assertDatasetProduces(bad, expected_error=(tf.errors.InvalidArgumentError,
                                                     "not finite"), expected_error_iter=2)
    v = tf.Variable(4, dtype=tf.int64)
    probe.evaluate(v.initializer)
    d = tf.data.Dataset.range(2).map(lambda x: x + v)
    nxt = probe.getNext(d, requires_initialization=True)
    assert [probe.evaluate(nxt()) for _ in range(2)] == [4, 5]


def test_dataset_test_base_sparse_values_and_dataset_equality(probe):
    st = tf.SparseTensorValue([[0, 1]], [7], [2, 3])
    probe.assertDatasetProduces(tf.data.Dataset.from_tensors(st), expected_output=[st])
    a = tf.data.Dataset.range(4).map(lambda x: (x, tf.as_string(x)))
    b = tf.data.Dataset.from_tensor_slices((np.arange(4), [b"0", b"1", b"2", b"3"]))
    probe.assertDatasetsEqual(a, b)
    with pytest.raises(tf.errors.OutOfRangeError):  # the second one ends first
        probe.assertDatasetsEqual(a, b.take(3))
    e1 = tf.data.Dataset.from_tensors(0).shard(0, 0)
    e2 = tf.data.Dataset.from_tensors(1).shard(0, 0)
    # (the messages name their nodes: the second one's is ShardDataset_1)
    probe.assertDatasetsRaiseSameError(e1, e2, tf.errors.InvalidArgumentError,
                                       [("ShardDataset (", "ShardDataset_1 (", 1)])


def test_dataset_test_base_structured_datasets(probe):
    d = probe.structuredDataset((None, (None, None)), shape=[2], dtype=tf.float32)
    assert d.output_types == (tf.float32, (tf.float32, tf.float32))
    assert d.output_shapes[1][0].as_list() == [2]
    e = probe.structuredElement((None, None), dtype=tf.int32)
    assert isinstance(e, tuple) and e[0].dtype == tf.int32 and e[0].shape.ndims == 0


# -- PrefetchDataset ------------------------------------------------------------------------


def test_prefetch_dataset_class_takes_a_slack_period():
    with tf.Graph().as_default():
        d = dataset_ops.PrefetchDataset(tf.data.Dataset.range(6), None, slack_period=3)
        assert isinstance(d, tf.data.Dataset)
        t = d._variant_tensor
        assert t.op.type == "PrefetchDataset" and t.op.get_attr("slack_period") == 3
        nxt = tf.data.make_one_shot_iterator(d).get_next()
        with tf.Session() as sess:
            assert _drain(sess, nxt) == list(range(6))
        bad = dataset_ops.PrefetchDataset(tf.data.Dataset.range(6), -7)._variant_tensor
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(bad)


# -- ragged elements ------------------------------------------------------------------------


def test_ragged_slices_drop_one_ragged_dimension_and_batching_adds_it_back():
    with tf.Graph().as_default():
        rt = tf.ragged.constant([[5, 6, 7], [], [8], [9, 10]], dtype=tf.int64)
        d = tf.data.Dataset.from_tensor_slices(rt)
        # ragged rank 0: each element is a dense vector of its own length
        assert d.output_shapes.as_list() == [None] and d.output_types == tf.int64
        assert d.output_classes == tf.RaggedTensorSpec([None], tf.int64, 0)
        b = d.batch(3)
        assert b.output_classes == tf.RaggedTensorSpec([None, None], tf.int64, 1)
        spec = tf.data.experimental.get_structure(b)
        assert isinstance(spec, tf.RaggedTensorSpec) and spec.ragged_rank == 1
        one = tf.data.make_one_shot_iterator(d).get_next()
        many = tf.data.make_one_shot_iterator(b).get_next()
        assert isinstance(one, tf.Tensor) and isinstance(many, tf.RaggedTensor)
        with tf.Session() as sess:
            assert _lists(_drain(sess, one)) == [[5, 6, 7], [], [8], [9, 10]]
            assert _lists(_drain(sess, many)) == [[[5, 6, 7], [], [8]], [[9, 10]]]


def test_ragged_map_batch_unbatch_round_trip():
    with tf.Graph().as_default():
        d = tf.data.Dataset.range(1, 5).map(
            lambda n: tf.RaggedTensor.from_row_lengths(tf.range(n * 2), [n, n]))
        assert d.output_classes == tf.RaggedTensorSpec([2, None], tf.int64, 1)
        b = d.batch(3)
        assert b.output_shapes.as_list() == [None, 2, None]
        assert b.output_classes.ragged_rank == 2
        u = b.apply(tf.data.experimental.unbatch())
        assert u.output_classes == d.output_classes
        doubled = u.map(lambda r: r * 2)
        with tf.Session() as sess:
            got = _lists(_drain(sess, tf.data.make_one_shot_iterator(b).get_next()))
            assert got[1] == [[[0, 1, 2, 3], [4, 5, 6, 7]]]
            assert got[0][2] == [[0, 1, 2], [3, 4, 5]]
            back = _lists(_drain(sess, tf.data.make_one_shot_iterator(doubled).get_next()))
            assert back[0] == [[0], [2]] and back[3] == [[0, 2, 4, 6], [8, 10, 12, 14]]


def test_ragged_values_from_tensors_and_nested_slices():
    value = tf.ragged.RaggedTensorValue(
        tf.ragged.RaggedTensorValue(np.array([1., 2., 3., 4.], np.float32),
                                    np.array([0, 2, 3, 4])), np.array([0, 1, 3]))
    with tf.Graph().as_default():
        whole = tf.data.Dataset.from_tensors(value)
        assert whole.output_classes.ragged_rank == 2
        rows = tf.data.Dataset.from_tensor_slices(value)
        assert rows.output_classes == tf.RaggedTensorSpec([None, None], tf.float32, 1)
        with tf.Session() as sess:
            got = _drain(sess, tf.data.make_one_shot_iterator(whole).get_next())
            assert _lists(got) == [[[[1., 2.]], [[3.], [4.]]]]
            got = _drain(sess, tf.data.make_one_shot_iterator(rows).get_next())
            assert _lists(got) == [[[1., 2.]], [[3.], [4.]]]


def test_ragged_components_cannot_be_padded_or_made_unique():
    with tf.Graph().as_default():
        d = tf.data.Dataset.range(3).map(
            lambda n: tf.RaggedTensor.from_row_lengths(tf.range(n), [n]))
        with pytest.raises(TypeError):
            d.padded_batch(2, padded_shapes=[None, None])
        with pytest.raises(TypeError):
            d.apply(tf.data.experimental.unique())


def test_iterator_from_structure_takes_a_ragged_spec_as_class():
    with tf.Graph().as_default():
        d = tf.data.Dataset.range(3).map(
            lambda n: tf.RaggedTensor.from_row_lengths(tf.range(n), [n]))
        it = tf.data.Iterator.from_structure(d.output_types, d.output_shapes,
                                             output_classes=d.output_classes)
        init = it.make_initializer(d)
        nxt = it.get_next()
        assert isinstance(nxt, tf.RaggedTensor)
        with tf.Session() as sess:
            sess.run(init)
            assert _lists(_drain(sess, nxt)) == [[[]], [[0]], [[0, 1]]]


def test_ragged_conversion_module_functions():
    with tf.Graph().as_default():
        rt = ragged_conversion_ops.from_tensor([[1, 0], [2, 3]], padding=0)
        dense = ragged_conversion_ops.to_tensor(rt, default_value=-1)
        passthrough = ragged_conversion_ops.to_tensor(tf.constant([4]))
        st = ragged_conversion_ops.to_sparse(rt)
        back = ragged_conversion_ops.from_sparse(st)
        with tf.Session() as sess:
            d, p, b = sess.run([dense, passthrough, back])
        assert d.tolist() == [[1, -1], [2, 3]] and p.tolist() == [4]
        assert b.to_list() == [[1], [2, 3]]


# -- Optional as a value of an Optional or of an element; the structure module ---------------


def test_optional_of_optional_and_its_spec_round_trip():
    from tideflow.python.data.ops import optional_ops
    from tideflow.python.data.util import structure

    with tf.Graph().as_default():
        inner = optional_ops.Optional.from_value((tf.constant(2.5), tf.constant([b"x"])))
        outer = optional_ops.Optional.from_value(inner)
        spec = structure.type_spec_from_value(outer)
        assert isinstance(spec, optional_ops.OptionalSpec)
        assert isinstance(spec._value_structure, optional_ops.OptionalSpec)
        assert structure.get_flat_tensor_types(spec) == [tf.variant]
        assert structure.get_flat_tensor_shapes(spec)[0].as_list() == []
        assert spec.is_compatible_with(outer)
        assert not spec.is_compatible_with(structure.type_spec_from_value(tf.constant(1.0)))
        back = spec._from_tensor_list(spec._to_tensor_list(outer))
        got = back.get_value()
        assert isinstance(got, optional_ops.Optional)
        with tf.Session() as sess:
            has, value = sess.run([got.has_value(), got.get_value()])
        assert has and value[0] == 2.5 and value[1].tolist() == [b"x"]


def test_optional_impl_over_a_variant_and_optionals_as_dataset_elements():
    from tideflow.python.data.ops import iterator_ops, optional_ops

    with tf.Graph().as_default():
        opt = optional_ops.Optional.from_value({"k": tf.constant([1, 2], tf.int64)})
        again = optional_ops._OptionalImpl(opt._variant_tensor, opt.value_structure)
        d = tf.data.Dataset.from_tensors(opt).repeat(2)
        assert isinstance(d.output_classes, optional_ops.OptionalSpec)
        elem = tf.data.make_one_shot_iterator(d).get_next()
        assert isinstance(elem, optional_ops.Optional)
        it = tf.data.make_initializable_iterator(tf.data.Dataset.range(1))
        maybe = iterator_ops.get_next_as_optional(it)
        with tf.Session() as sess:
            assert sess.run(again.get_value())["k"].tolist() == [1, 2]
            assert [sess.run(elem.get_value())["k"].tolist() for _ in range(2)] == [[1, 2]] * 2
            sess.run(it.initializer)
            assert sess.run(maybe.get_value()) == 0 and not sess.run(maybe.has_value())


def test_structure_module_specs_of_values():
    from tideflow.python.data.util import structure

    with tf.Graph().as_default():
        value = (tf.constant([[1.0]]), tf.SparseTensor([[0]], [3], [4]),
                 tf.ragged.constant([[1], [2, 3]]), tf.data.Dataset.range(2))
        spec = structure.type_spec_from_value(value)
        assert spec[0] == tf.TensorSpec([1, 1], tf.float32)
        assert isinstance(spec[1], tf.SparseTensorSpec)
        assert spec[2].ragged_rank == 1
        assert structure.get_flat_tensor_types(spec) == [tf.float32] + [tf.variant] * 3
        assert structure.are_compatible(spec, spec)
        assert not structure.are_compatible(spec[0], spec[1])


# -- group_by_window's key and window size functions; padded shapes below -1 ---------------


def test_group_by_window_key_may_be_a_python_number_but_not_an_int32_tensor():
    with tf.Graph().as_default():
        d = tf.data.Dataset.range(5).apply(tf.data.experimental.group_by_window(
            lambda x: 7, lambda key, w: w.batch(2).map(lambda b: (key, b)),
            window_size_func=lambda key: key - 4))
        nxt = tf.data.make_one_shot_iterator(d).get_next()
        with tf.Session() as sess:
            got = [(k, b.tolist()) for k, b in _drain(sess, nxt)]
        assert got == [(7, [0, 1]), (7, [2]), (7, [3, 4])]
        with pytest.raises(ValueError, match="requested dtype int64 for Tensor with dtype int32"):
            tf.data.Dataset.range(5).apply(tf.data.experimental.group_by_window(
                lambda x: tf.constant(1), lambda key, w: w, 2))


def test_padded_batch_refuses_padded_dimensions_below_minus_one_when_run():
    with tf.Graph().as_default():
        d = tf.data.Dataset.range(3).map(lambda x: tf.fill([x + 1], x))
        bad = d.padded_batch(2, padded_shapes=tf.constant([-3], tf.int64))
        nxt = tf.data.make_one_shot_iterator(bad).get_next()
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                 match="Dimension -3 must be >= -1"):
            sess.run(nxt)


# -- scan states: sparse, TensorArray; scan keeps its cardinality; group_by_reducer checks --


def test_scan_carries_a_sparse_state():
    with tf.Graph().as_default():
        def step(state, x):
            total = state.values[0] + x
            return tf.SparseTensor([[0, 1]], tf.reshape(total, [1]), [1, 3]), total

        start = tf.SparseTensorValue([[0, 1]], np.array([100], np.int64), [1, 3])
        d = tf.data.Dataset.range(4).apply(tf.data.experimental.scan(start, step))
        nxt = tf.data.make_one_shot_iterator(d).get_next()
        with tf.Session() as sess:
            assert _drain(sess, nxt) == [100, 101, 103, 106]


def test_scan_function_ending_the_sequence_is_an_error():
    with tf.Graph().as_default():
        def step(state, x):
            def stop(_):
                raise StopIteration()

            return state, tf.py_func(stop, [x], tf.int64)

        d = tf.data.Dataset.range(3).apply(tf.data.experimental.scan(tf.constant(0), step))
        nxt = tf.data.make_one_shot_iterator(d).get_next()
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                 match="produced OutOfRangeError"):
            sess.run(nxt)


def test_tensor_array_elements_and_scan_states():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=3, element_shape=[2]).unstack(
            [[1., 2.], [3., 4.], [5., 6.]])
        d = tf.data.Dataset.from_tensors(ta)
        assert d.output_types == tf.float32 and d.output_shapes.as_list() == [2]
        assert d.output_classes.dynamic_size is False
        it = tf.data.make_initializable_iterator(d)
        got = it.get_next()
        assert isinstance(got, tf.TensorArray)
        stacked = got.stack()

        def grow(acc, x):
            acc = acc.write(acc.size(), x * 10)
            return acc, acc.stack()  # stacked on every step: TF 2 arrays keep their items

        start = tf.TensorArray(tf.int64, size=0, dynamic_size=True, element_shape=[])
        s = tf.data.Dataset.range(3).apply(tf.data.experimental.scan(start.write(0, 7), grow))
        nxt = tf.data.make_initializable_iterator(s)
        with tf.Session() as sess:
            sess.run([it.initializer, nxt.initializer])
            assert sess.run(stacked).tolist() == [[1., 2.], [3., 4.], [5., 6.]]
            out = _drain(sess, nxt.get_next())
        assert [v.tolist() for v in out] == [[7, 0], [7, 0, 10], [7, 0, 10, 20]]


def test_group_by_reducer_key_and_state_checks():
    reducer = tf.data.experimental.Reducer(lambda k: tf.constant(0, tf.int32),
                                           lambda s, x: s + 1, lambda s: s)
    with tf.Graph().as_default():
        d = tf.data.Dataset.range(4)
        with pytest.raises(ValueError, match=r"must return a single tf.int64 tensor\. Got"):
            d.apply(tf.data.experimental.group_by_reducer(lambda x: tf.stack([x, x]), reducer))
        wrong = tf.data.experimental.Reducer(lambda k: tf.constant(0, tf.int32),
                                             lambda s, x: x, lambda s: s)
        with pytest.raises(TypeError, match="element types for the new state must match"):
            d.apply(tf.data.experimental.group_by_reducer(lambda x: x % 2, wrong))
        ok = d.apply(tf.data.experimental.group_by_reducer(lambda x: x % 2, reducer))
        nxt = tf.data.make_one_shot_iterator(ok).get_next()
        with tf.Session() as sess:
            assert _drain(sess, nxt) == [2, 2]


def test_file_datasets_go_on_with_the_next_file_after_a_corrupt_one(tmp_path):
    paths = []
    for i in range(3):
        path = str(tmp_path / f"part{i}.tfrecord")
        with tf.python_io.TFRecordWriter(path) as w:
            for j in range(2):
                w.write(b"r%d%d" % (i, j))
        if i < 2:
            with open(path, "ab") as f:
                f.write(b"not a record at all")
        paths.append(path)
    with tf.Graph().as_default():
        plain = tf.data.make_one_shot_iterator(tf.data.TFRecordDataset(paths)).get_next()
        skipping = tf.data.make_one_shot_iterator(tf.data.TFRecordDataset(paths).apply(
            tf.data.experimental.ignore_errors())).get_next()
        with tf.Session() as sess:
            seen = []
            for _ in range(8):
                try:
                    seen.append(sess.run(plain))
                except tf.errors.DataLossError:
                    seen.append("loss")
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(plain)
            assert seen == [b"r00", b"r01", "loss", b"r10", b"r11", "loss", b"r20", b"r21"]
            assert _drain(sess, skipping) == [b"r00", b"r01", b"r10", b"r11", b"r20", b"r21"]


# -- sample_from_datasets / _DirectedInterleaveDataset ---------------------------------------


def test_sample_from_datasets_weights_checks_and_weights_dataset():
    from tideflow.python.data.experimental.ops import interleave_ops

    with tf.Graph().as_default():
        two = [tf.data.Dataset.from_tensors(np.int64(i)).repeat() for i in range(2)]
        with pytest.raises(TypeError, match="`tf.float32` or `tf.float64`"):
            tf.data.experimental.sample_from_datasets(two, weights=[1, 3])
        with pytest.raises(ValueError, match=r"vector of length `len\(datasets\)`"):
            tf.data.experimental.sample_from_datasets(two, weights=[0.5, 0.25, 0.25])
        only = tf.data.Dataset.range(3)
        assert tf.data.experimental.sample_from_datasets([only], [1.0]) is only
        # the weights of each draw from a dataset: all on dataset 1, then all on dataset 0
        w = tf.data.Dataset.from_tensor_slices(np.array([[0., 1.]] * 3 + [[1., 0.]] * 3))
        picked = tf.data.experimental.sample_from_datasets(two, w, seed=5)
        direct = interleave_ops._DirectedInterleaveDataset(
            tf.data.Dataset.from_tensor_slices(np.array([1, 0, 1], np.int64)), two)
        with tf.Session() as sess:
            assert _drain(sess, tf.data.make_one_shot_iterator(picked).get_next()) == [
                1, 1, 1, 0, 0, 0]
            assert _drain(sess, tf.data.make_one_shot_iterator(direct).get_next()) == [1, 0, 1]


# -- rejection_resample ----------------------------------------------------------------------


def test_rejection_resample_mixes_the_input_and_estimates_its_distribution():
    resample = tf.data.experimental.rejection_resample
    with tf.Graph().as_default():
        labels = np.array([0, 1, 1, 0, 1, 1, 1, 0], np.int32)
        d = tf.data.Dataset.from_tensor_slices(labels)
        # the target is the input's distribution: the input itself, classes keeping their dtype
        same = d.apply(resample(lambda c: c, [0.375, 0.625], [0.375, 0.625], seed=3))
        assert same.output_types == (tf.int32, tf.int32)
        only_ones = d.apply(resample(lambda c: c, [0.0, 1.0], [0.375, 0.625], seed=3))
        # a target of 3:1 from a 1:1 input, the input's distribution estimated on the way
        many = tf.data.Dataset.from_tensor_slices(np.tile([0, 1], 1000).astype(np.int64))
        estimated = many.apply(resample(lambda c: c, [0.75, 0.25], seed=11))
        with tf.Session() as sess:
            got = _drain(sess, tf.data.make_one_shot_iterator(same).get_next())
            assert [int(c) for c, _ in got] == labels.tolist()
            got = _drain(sess, tf.data.make_one_shot_iterator(only_ones).get_next())
            assert {int(c) for c, _ in got} == {1}
            got = _drain(sess, tf.data.make_one_shot_iterator(estimated).get_next())
        share = np.mean([c == 0 for c, _ in got])
        assert 0.68 < share < 0.82, share


# -- cardinality of zip and window; dense_to_sparse_batch's shape checks ----------------------


def test_cardinality_of_zip_with_an_unknown_input_and_of_windows():
    card = tf.data.experimental.cardinality
    with tf.Graph().as_default():
        d = tf.data.Dataset.range(7)
        counts = [card(tf.data.Dataset.zip((d, d.filter(lambda x: x > 2)))),
                  card(tf.data.Dataset.zip((d, d.repeat()))),
                  card(d.window(3, shift=2, drop_remainder=True)),
                  card(d.window(3, shift=2, stride=2, drop_remainder=True)),
                  card(d.window(3, shift=2))]
        with tf.Session() as sess:
            assert sess.run(counts) == [tf.data.experimental.UNKNOWN_CARDINALITY, 7, 3, 2, 4]


def test_dense_to_sparse_batch_shape_checks():
    batch = tf.data.experimental.dense_to_sparse_batch
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimension -3 must be >= 0"):
            tf.data.Dataset.from_tensors([1]).apply(batch(2, [-3]))
        rank = tf.data.Dataset.from_tensors([[1, 2]]).apply(batch(2, [4, None]))
        ok = tf.data.Dataset.from_tensors(np.arange(3)).apply(batch(2, [None]))
        wrong_rank = tf.data.Dataset.from_tensors([[1, 2]]).apply(batch(2, [4]))
        too_big = tf.data.Dataset.from_tensors(np.arange(5)).apply(batch(2, [4]))
        with tf.Session() as sess:
            assert sess.run(tf.data.make_one_shot_iterator(ok).get_next()).dense_shape.tolist() \
                == [1, 3]
            assert sess.run(tf.data.make_one_shot_iterator(rank).get_next()).dense_shape.tolist() \
                == [1, 4, 2]
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"shape \(\[1,2\]\) that is incompatible with the row "
                                     r"shape \(\[4\]\)"):
                sess.run(tf.data.make_one_shot_iterator(wrong_rank).get_next())
            with pytest.raises(tf.errors.DataLossError,
                               match=r"shape \(\[5\]\) that is larger than the row shape"):
                sess.run(tf.data.make_one_shot_iterator(too_big).get_next())


def test_from_generator_splits_a_value_only_as_deep_as_the_declared_structure():
    def gen():
        yield {"v": [4, 5], "shape": (2,)}  # a tuple where a tensor is declared: its value
        yield {"v": [6], "shape": (1,)}

    with tf.Graph().as_default():
        d = tf.data.Dataset.from_generator(gen, {"v": tf.int64, "shape": tf.int64})
        pairs = tf.data.Dataset.from_generator(lambda: iter([(1, 2), (3, 4)]), tf.int32, [2])
        with tf.Session() as sess:
            got = _drain(sess, tf.data.make_one_shot_iterator(d).get_next())
            assert [g["shape"].tolist() for g in got] == [[2], [1]]
            got = _drain(sess, tf.data.make_one_shot_iterator(pairs).get_next())
            assert [g.tolist() for g in got] == [[1, 2], [3, 4]]


def test_bucket_padding_to_boundary_refuses_elements_past_the_last_boundary():
    with tf.Graph().as_default():
        d = tf.data.Dataset.from_generator(lambda: iter([[1] * 2, [1] * 9]), tf.int64, [None])
        b = d.apply(tf.data.experimental.bucket_by_sequence_length(
            lambda x: tf.shape(x)[0], [4, 8], [1, 1, 1], pad_to_bucket_boundary=True))
        nxt = tf.data.make_one_shot_iterator(b).get_next()
        with tf.Session() as sess:
            assert sess.run(nxt).tolist() == [[1, 1, 0]]
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"elements must have length < max\(bucket_boundaries\)"):
                sess.run(nxt)


def test_dataset_components_have_a_dataset_spec_that_round_trips():
    from tideflow.python.data.util import structure

    with tf.Graph().as_default():
        d = tf.data.Dataset.range(2).map(lambda x: tf.data.Dataset.range(x + 2))
        spec = tf.data.experimental.get_structure(d)
        assert isinstance(spec, tf.data.DatasetSpec)
        assert spec.element_spec == tf.TensorSpec([], tf.int64)
        windows = tf.data.experimental.get_structure(tf.data.Dataset.range(4).window(2))
        assert isinstance(windows, tf.data.DatasetSpec)
        outer = structure.type_spec_from_value(d)
        back = outer._from_tensor_list(outer._to_tensor_list(d))
        assert structure.are_compatible(tf.data.experimental.get_structure(back), spec)
        nxt = tf.data.make_one_shot_iterator(back.flat_map(lambda x: x)).get_next()
        with tf.Session() as sess:
            assert _drain(sess, nxt) == [0, 1, 0, 1, 2]


def test_from_sparse_tensor_slices_gives_dense_triples_in_row_major_order():
    with tf.Graph().as_default():
        st = tf.sparse.placeholder(tf.float32)
        d = tf.data.Dataset.from_sparse_tensor_slices(st)
        assert d.output_classes == (tf.Tensor, tf.Tensor, tf.Tensor)
        assert d.output_types == (tf.int64, tf.float32, tf.int64)
        it = tf.data.make_initializable_iterator(d)
        ind, vals, shape = it.get_next()
        with tf.Session() as sess:
            feed = tf.SparseTensorValue([[0, 2], [0, 3], [2, 1]], [1., 2., 3.], [4, 5])
            sess.run(it.initializer, {st: feed})
            rows = [sess.run([ind, vals, shape]) for _ in range(4)]
            assert [r[0].tolist() for r in rows] == [[[2], [3]], [], [[1]], []]
            assert [r[1].tolist() for r in rows] == [[1., 2.], [], [3.], []]
            assert all(r[2].tolist() == [5] for r in rows)
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(vals)
            backwards = tf.SparseTensorValue([[2, 1], [0, 2]], [3., 1.], [4, 5])
            with pytest.raises(tf.errors.UnimplementedError, match="row-major"):
                sess.run(it.initializer, {st: backwards})


def test_parse_example_dataset_sparse_features_shapes():
    def example(values):
        return tf.train.Example(features=tf.train.Features(feature={
            "v": tf.train.Feature(float_list=tf.train.FloatList(value=values)),
            "w": tf.train.Feature(float_list=tf.train.FloatList(value=values)),
            "i": tf.train.Feature(int64_list=tf.train.Int64List(
                value=list(range(len(values)))))})).SerializeToString()

    with tf.Graph().as_default():
        batch = tf.data.Dataset.from_tensors([example([1., 2.]), example([3.])])
        parsed = batch.apply(tf.data.experimental.parse_example_dataset({
            "w": tf.io.VarLenFeature(tf.float32),
            "s": tf.io.SparseFeature("i", "v", tf.float32, 4)}))
        # TF 1.15: {'w': [None, None], 's': [None, 4]} (ParseExampleDataset's VarLen feature
        # has the batch's [2, None]; the map that merges the SparseFeature loses it)
        assert parsed.output_shapes["w"].as_list() == [None, None]
        assert parsed.output_shapes["s"].as_list() == [None, 4]
        with tf.Session() as sess:
            got = sess.run(tf.data.make_one_shot_iterator(parsed).get_next())
        assert got["w"].dense_shape.tolist() == [2, 2]
        assert got["s"].indices.tolist() == [[0, 0], [0, 1], [1, 0]]
        assert got["s"].dense_shape.tolist() == [2, 4]
        # a VarLenFeature's key that a SparseFeature also reads: TF 1.15's kernel refuses it
        parsed = batch.apply(tf.data.experimental.parse_example_dataset({
            "v": tf.io.VarLenFeature(tf.float32),
            "s": tf.io.SparseFeature("i", "v", tf.float32, 4)}))
        it = tf.data.make_initializable_iterator(parsed)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                 match="^Duplicate key not allowed: v"):
            sess.run(it.initializer)


def test_make_batched_features_dataset_endless_batches_are_static(tmp_path):
    path = str(tmp_path / "data.tfrecord")
    with tf.python_io.TFRecordWriter(path) as w:
        for i in range(5):
            w.write(tf.train.Example(features=tf.train.Features(feature={
                "x": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
                "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[i * i]))}))
                .SerializeToString())
    feats = {"x": tf.io.FixedLenFeature([], tf.int64), "y": tf.io.FixedLenFeature([], tf.int64)}
    make = tf.data.experimental.make_batched_features_dataset
    with tf.Graph().as_default():
        endless = make(path, 2, feats, label_key="y", shuffle=False)
        x_shape = endless.output_shapes[0]["x"].as_list()
        once = make(path, 2, feats, num_epochs=1, shuffle=False)
        assert x_shape == [2] and once.output_shapes["x"].as_list() == [None]
        with pytest.raises(ValueError, match=r"provided \('z'\) must be one of"):
            make(path, 2, feats, label_key="z")
        nxt = tf.data.make_one_shot_iterator(endless).get_next()
        with tf.Session() as sess:
            got = [sess.run(nxt) for _ in range(3)]
        assert [g[0]["x"].tolist() for g in got] == [[0, 1], [2, 3], [4, 0]]
        assert got[2][1].tolist() == [16, 0]


def test_dataset_inputs_functions_and_options_of_file_datasets(tmp_path):
    path = str(tmp_path / "x.tfrecord")
    with tf.python_io.TFRecordWriter(path) as w:
        w.write(b"r")
    with tf.Graph().as_default():
        a, b = tf.data.Dataset.range(3), tf.data.Dataset.range(4)
        assert a._inputs() == [] and a.map(lambda x: x)._inputs() == [a]
        assert tf.data.Dataset.zip((a, (b, a)))._inputs() == [a, b, a]
        assert len(a.map(lambda x: x * 2)._functions()) == 1 and a._functions() == []
        records = tf.data.TFRecordDataset(path)
        assert records._inputs() == []
        opts = tf.data.Options()
        opts.experimental_deterministic = False
        mixed = tf.data.Dataset.zip((records, a.with_options(opts)))
        assert mixed.options().experimental_deterministic is False  # (it raised AttributeError)


def test_filter_for_shard_keeps_every_nth_element():
    shard = tf.data.experimental.filter_for_shard
    with tf.Graph().as_default():
        for bad, msg in (((0, 0), "num_shards must be >= 1; got: 0"),
                         ((3, -1), "shard_index must be >= 0; got: -1"),
                         ((3, 3), "shard_index must be < num_shards; 3 is not < 3")):
            with pytest.raises(ValueError, match=msg):
                shard(*bad)
        d = tf.data.Dataset.range(10, 20).apply(shard(4, 1))
        with tf.Session() as sess:
            assert _drain(sess, tf.data.make_one_shot_iterator(d).get_next()) == [11, 15, 19]


def test_dataset_repr_as_tf_1x():
    with tf.Graph().as_default():
        d = tf.data.Dataset.from_tensors(({"a": 1}, [1.0])).map(lambda x, y: (x, y))
        assert repr(d).endswith("shapes: ({a: ()}, (1,)), types: ({a: tf.int32}, tf.float32)>")
        assert repr(tf.data.Dataset.range(3).batch(2)).endswith(
            "shapes: (?,), types: tf.int64>")
