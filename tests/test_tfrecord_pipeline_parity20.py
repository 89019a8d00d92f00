"""TF 1.15 parity of the TFRecord input pipelines TF 1.x training scripts build: each expected
value below is what the same program printed under real TF 1.15."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _drain(ds):
    n = ds.make_one_shot_iterator().get_next()
    out = []
    with tf.Session() as s:
        try:
            while True:
                out.append(s.run(n).tolist())
        except tf.errors.OutOfRangeError:
            pass
    return out


def test_noop_stages_are_eliminated_before_shuffle_and_repeat_fusion():
    # TF 1.15's default noop_elimination drops repeat(1), skip(0), take(-n) and prefetch(0)
    # before shuffle_and_repeat_fusion: a shuffle's repeat(1) is the plain shuffle, and a
    # shuffle followed by such a stage and a repeat is fused
    tf.set_random_seed(3)

    def shuffled():
        return tf.data.Dataset.range(6).shuffle(100, seed=5)

    plain = [0, 2, 3, 1, 5, 4]  # TF 1.15
    fused = [3, 4, 2, 1, 0, 5, 3, 4, 1, 2, 5, 0]  # TF 1.15: shuffle(...).repeat(2)
    assert _drain(shuffled()) == plain
    assert _drain(shuffled().repeat(2)) == fused
    assert _drain(shuffled().repeat(1)) == plain
    for ds in (shuffled().skip(0).repeat(2), shuffled().take(-1).repeat(2),
               shuffled().take(-2).repeat(2), shuffled().prefetch(0).repeat(2),
               shuffled().repeat(1).repeat(2)):
        assert _drain(ds) == fused
    # not noops to TF 1.15: shard(1, 0) and an identity map keep the shuffle unfused
    unfused = [0, 2, 3, 1, 5, 4, 5, 0, 3, 1, 4, 2]
    assert _drain(shuffled().shard(1, 0).repeat(2)) == unfused
    assert _drain(shuffled().map(lambda x: x).repeat(2)) == unfused
    # with noop_elimination off, repeat(1) stays and is fused with its shuffle, and skip(0)
    # stands between a shuffle and its repeat
    o = tf.data.Options()
    o.experimental_optimization.noop_elimination = False
    assert _drain(shuffled().repeat(1).with_options(o)) == fused[:6]
    assert _drain(shuffled().skip(0).repeat(2).with_options(o)) == unfused


def test_noop_stage_with_a_fed_count_is_eliminated_too():
    # TF 1.15 optimizes the pipeline as the iterator's initializer serializes it, where a fed
    # count is a constant: a skip fed 0 is dropped and the shuffle and repeat fuse
    tf.set_random_seed(3)
    k = tf.placeholder(tf.int64, [])
    ds = tf.data.Dataset.range(6).shuffle(100, seed=5).skip(k).repeat(2)
    it = ds.make_initializable_iterator()
    n = it.get_next()
    with tf.Session() as s:
        s.run(it.initializer, {k: 0})
        out = [s.run(n).tolist() for _ in range(12)]
    assert out == [3, 4, 2, 1, 0, 5, 3, 4, 1, 2, 5, 0]


def test_make_batched_features_dataset_one_epoch_shuffle(tmp_path):
    # num_epochs=1: TF 1.15 shuffles the records without a repeat (a plain ShuffleDataset)
    def _int(v):
        return tf.train.Feature(int64_list=tf.train.Int64List(value=v))

    for f in range(2):
        with tf.io.TFRecordWriter(str(tmp_path / f"f{f}.tfr")) as w:
            for i in range(5):
                w.write(tf.train.Example(features=tf.train.Features(feature={
                    "id": _int([f * 5 + i])})).SerializeToString())
    tf.set_random_seed(3)
    d = tf.data.experimental.make_batched_features_dataset(
        str(tmp_path / "f*.tfr"), batch_size=3, features={"id": tf.FixedLenFeature([], tf.int64)},
        label_key="id", num_epochs=1, shuffle=True, shuffle_seed=5)
    assert _drain(d.map(lambda x, y: y)) == [[0, 2, 7], [9, 1, 6], [4, 3, 8], [5]]  # TF 1.15


def _write_ids(path, files=3, rows=7):
    def _feature(**kw):
        return tf.train.Feature(**kw)

    names = []
    for f in range(files):
        names.append(str(path / f"f{f}.tfr"))
        with tf.io.TFRecordWriter(names[-1]) as w:
            for i in range(rows):
                w.write(tf.train.Example(features=tf.train.Features(feature={
                    "id": _feature(int64_list=tf.train.Int64List(value=[f * 10 + i])),
                    "x": _feature(float_list=tf.train.FloatList(value=[i / 2., f]))}))
                    .SerializeToString())
    return names


def test_make_batched_features_dataset_graph_seeded_shuffle(tmp_path):
    # no shuffle_seed: the op seeds come from the op count, so the ops TF 1.15 makes (a
    # parallel_interleave, one shuffle_and_repeat, a ParseExampleDataset and its defaults)
    # decide the order; these are TF 1.15's first batches
    names = _write_ids(tmp_path)
    tf.set_random_seed(11)
    spec = {"id": tf.io.FixedLenFeature([], tf.int64),
            "x": tf.io.FixedLenFeature([2], tf.float32)}
    d = tf.data.experimental.make_batched_features_dataset(
        names, batch_size=4, features=spec, label_key="id", num_epochs=None,
        reader_num_threads=2, shuffle_buffer_size=5)
    _, y = d.make_one_shot_iterator().get_next()
    with tf.Session() as s:
        got = [s.run(y).tolist() for _ in range(4)]
    assert got == [[2, 12, 1, 13], [3, 11, 4, 15], [14, 5, 20, 0], [16, 22, 6, 25]]


def test_parse_example_dataset_builds_tf_ops():
    # TF 1.15 builds the dense defaults beside one ParseExampleDataset op (its
    # num_parallel_calls in its scope), and a parallel_interleave's constants in its order
    spec = {"id": tf.io.FixedLenFeature([], tf.int64),
            "x": tf.io.FixedLenFeature([2], tf.float32, default_value=[1., 2.]),
            "v": tf.io.VarLenFeature(tf.string)}
    d = tf.data.Dataset.from_tensors([b""]).apply(
        tf.data.experimental.parse_example_dataset(spec, num_parallel_calls=3))
    d = d.apply(tf.data.experimental.parallel_interleave(
        lambda x: tf.data.Dataset.from_tensors(x), cycle_length=2))
    d.make_initializable_iterator()
    g = tf.get_default_graph()
    names = [op.name for op in g.get_operations() if not op.type.endswith("Dataset")]
    # TF 1.15 (less its 'optimizations' Const, whose id tideflow skips)
    assert names == [
        "normalize_element/component_0", "Const", "key_x", "Reshape/shape", "Reshape",
        "ParseExampleDataset/num_parallel_calls", "cycle_length", "block_length", "sloppy",
        "buffer_output_elements", "prefetch_input_elements", "IteratorV2", "MakeIterator",
        "IteratorToStringHandle"]
    assert g.get_operation_by_name("ParseExampleDataset").type == "ParseExampleDataset"
    # TF 1.15: {'id': [1], 'x': [1, 2], 'v': [None, None]}
    assert {k: s.as_list() for k, s in d.output_shapes.items()} == {
        "id": [1], "x": [1, 2], "v": [None, None]}
    assert list(d.output_shapes) == ["id", "x", "v"]


def test_sparse_component_through_a_map_has_an_unknown_shape():
    # TF 1.15: a map function's SparseTensor argument has only its rank statically, so an
    # identity map's output shape is (?, ?) where the dataset's was (2, 3)
    d = tf.data.Dataset.from_tensors(tf.SparseTensor([[0, 0]], [1.], [2, 3]))
    assert d.output_shapes.as_list() == [2, 3]
    assert d.map(lambda x: x).output_shapes.as_list() == [None, None]
    assert d.map(lambda x: {"a": x}).output_shapes["a"].as_list() == [None, None]
    d2 = tf.data.Dataset.from_tensors([b"", b""]).apply(
        tf.data.experimental.parse_example_dataset({"v": tf.io.VarLenFeature(tf.float32)}))
    assert d2.output_shapes["v"].as_list() == [2, None]
    assert d2.map(lambda x: x).output_shapes["v"].as_list() == [None, None]


def test_assert_element_shape_with_unknown_dimensions():
    # TF 1.15: a partly known expected shape checks the known dimensions at run time
    # (unknown ones as -1); a shape of another rank fails when merged, before the map
    d = tf.data.Dataset.range(1, 4).map(lambda x: tf.range(x))
    loose = d.apply(tf.contrib.data.assert_element_shape(tf.TensorShape([None])))
    assert loose.output_shapes.as_list() == [None]
    assert _drain(loose) == [[0], [0, 1], [0, 1, 2]]
    strict = d.apply(tf.contrib.data.assert_element_shape(tf.TensorShape([2])))
    n = strict.make_one_shot_iterator().get_next()
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Wrong shape for args_0:0 \[expected\] \[actual\].\] \[2\] \[1\]"):
            s.run(n)
        assert s.run(n).tolist() == [0, 1]
    with pytest.raises(ValueError, match=r"^Shapes \(\?,\) and \(\?, \?\) are not compatible"):
        d.apply(tf.contrib.data.assert_element_shape(tf.TensorShape([None, None])))


def test_cache_file_names_and_errors(tmp_path, monkeypatch):
    # TF 1.15 writes a finished cache as <prefix>.data-00000-of-00001 and <prefix>.index; the
    # lockfile holds "Created at: <seconds>"; a prefix in a missing folder is a NotFoundError
    monkeypatch.chdir(tmp_path)
    assert _drain(tf.data.Dataset.range(3).cache("c2").repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c2.data-00000-of-00001", "c2.index"]
    assert _drain(tf.data.Dataset.range(5).cache("c2")) == [0, 1, 2]  # read from the files
    d = tf.data.Dataset.range(3).cache("c3")
    i1, i2 = d.make_initializable_iterator(), d.make_initializable_iterator()
    with tf.Session() as s:
        s.run([i1.initializer, i2.initializer])
        s.run(i1.get_next())
        with pytest.raises(tf.errors.AlreadyExistsError,
                           match=r"Lockfile contents: Created at: \d+\n"):
            s.run(i2.get_next())
    n = tf.data.Dataset.range(3).cache("nodir/zz").make_one_shot_iterator().get_next()
    with tf.Session() as s, pytest.raises(
            tf.errors.NotFoundError, match="^nodir/zz_0.lockfile; No such file or directory"):
        s.run(n)


def test_one_shot_iterator_leaves_the_graph_names_free():
    # TF 1.15's one-shot factory function copies the dataset's constants under names of its
    # own: the graph's next constant is still "Const_1" (tideflow took "Const_1" for the copy)
    d = tf.data.Dataset.from_tensor_slices(tf.constant([1, 2, 3])).batch(2)
    d.make_one_shot_iterator().get_next()
    assert tf.constant(0).op.name == "Const_1"
    d.map(lambda x: x + 1).make_one_shot_iterator().get_next()
    assert tf.constant(0).op.name == "Const_2"


def test_dataset_ops_take_their_names_when_the_datasets_are_made():
    # TF 1.15 makes (and names) a dataset's op with the Dataset, in the name scope of then;
    # tideflow makes it when an iterator needs it, with the name reserved then
    d1 = tf.data.Dataset.range(3).batch(2)
    d1.make_one_shot_iterator()  # (its ops are the one-shot function's here)
    with tf.name_scope("input"):
        d2 = tf.data.Dataset.range(4).map(lambda x: x + 1).batch(2)
    d3 = tf.data.Dataset.range(3).batch(2)
    d2.make_initializable_iterator()
    with tf.name_scope("later"):
        d3.make_initializable_iterator()
        tf.data.Dataset.range(2).batch(1).make_initializable_iterator()
    names = sorted(o.name for o in tf.get_default_graph().get_operations()
                   if o.type in ("RangeDataset", "MapDataset", "BatchDatasetV2"))
    # TF 1.15, less the one-shot dataset's "BatchDatasetV2" and "RangeDataset"
    assert names == ["BatchDatasetV2_1", "RangeDataset_1", "input/BatchDatasetV2",
                     "input/MapDataset", "input/RangeDataset", "later/BatchDatasetV2",
                     "later/RangeDataset"]


def test_directed_interleave_type_errors():
    # TF 1.15's words
    with pytest.raises(TypeError, match=r"^`choice_dataset` must be a dataset of scalar "
                                        r"`tf.int64` tensors.$"):
        tf.data.experimental.choose_from_datasets(
            [tf.data.Dataset.range(3)], tf.data.Dataset.range(2).map(lambda x: tf.cast(x, tf.int32)))
    with pytest.raises(TypeError, match=r"^All datasets must have the same type and class.$"):
        tf.data.experimental.sample_from_datasets(
            [tf.data.Dataset.range(3), tf.data.Dataset.from_tensors(1.0)])


def test_transformation_argument_errors_use_tf1_words():
    # TF 1.15's messages (tideflow had TF 2.x's)
    d = tf.data.Dataset.range(3)
    x = tf.data.experimental
    with pytest.raises(ValueError, match=r"^len\(bucket_batch_sizes\) must equal "
                                         r"len\(bucket_boundaries\) \+ 1$"):
        d.apply(x.bucket_by_sequence_length(lambda v: v, [2], [1]))
    # unsorted boundaries are taken as given, as TF 1.15
    d.apply(x.bucket_by_sequence_length(lambda v: tf.cast(v, tf.int32), [2, 1], [1, 1, 1]))
    with pytest.raises(ValueError, match="^Must pass either window_size or window_size_func.$"):
        d.apply(x.group_by_window(lambda v: v, lambda k, w: w.batch(2)))
    with pytest.raises(TypeError, match=r"^The element types for the new state must match the "
                                        r"initial state. Expected <dtype: 'int64'>; got "
                                        r"<dtype: 'float32'>.$"):
        d.apply(x.scan(np.int64(0), lambda s, v: (1.0, v)))
    with pytest.raises(ValueError, match="^The `num_parallel_batches` and `num_parallel_calls` "
                                         "arguments are mutually exclusive.$"):
        x.map_and_batch(lambda v: v, 2, num_parallel_batches=1, num_parallel_calls=1)
    with pytest.raises(TypeError, match="^`transformation_func` must return a Dataset. Got 5.$"):
        d.apply(lambda _: 5)
    with pytest.raises(TypeError, match=r"^If shallow structure is a sequence, input must also "
                                        r"be a sequence. Input has type: <class 'list'>.$"):
        d.map(lambda v: (v, v)).padded_batch(2, padded_shapes=[[], []])
    with pytest.raises(ValueError, match=r"^The two structures don't have the same sequence "
                                         r"length. Input structure has length 1, while shallow "
                                         r"structure has length 2.$"):
        d.map(lambda v: (v, v)).padded_batch(2, padded_shapes=([], []),
                                             padding_values=(np.int64(0),))


def test_one_shot_factory_error_is_derived_first():
    # TF 1.15: a dataset that fails to build in a one-shot iterator's factory fails its first
    # get_next with the error marked "[_Derived_]", every later one with the plain error
    n = tf.data.Dataset.range(3).batch(0).make_one_shot_iterator().get_next()
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^\[_Derived_\]Batch size must be greater than zero.\n"):
            s.run(n)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="^Batch size must be greater than zero.\n"):
            s.run(n)
