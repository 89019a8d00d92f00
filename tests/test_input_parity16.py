"""Input pipelines (tf.data, queues, parsing) as TF 1.x programs write them, against values
and messages real TF 1.15 printed for the same programs."""

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
