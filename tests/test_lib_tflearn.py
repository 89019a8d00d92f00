"""What running TFLearn (0.5.0 and 0.3.2) on tideflow needed, pinned with plain TF 1.x calls:
the ``tensorflow.python`` modules a TF 1.x library imports (``tf_contextlib``,
``pywrap_tensorflow``'s checkpoint reader, ``standard_ops``, ``rnn.rnn_cell_impl``, 0.x's
``ops.seq2seq``), contrib's implementation modules (``factorization.python.ops``,
``tensor_forest.python.ops.data_ops``), regression forests, and the summary tags and moving
averages its Trainer looks up by name."""

import os

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ------------------------------------------------------------------------------------------
# tensorflow.python modules libraries import
# ------------------------------------------------------------------------------------------

def test_tf_contextlib_contextmanager():
    from tideflow.python.util import tf_contextlib

    @tf_contextlib.contextmanager
    def scope(values):
        values.append("in")
        yield len(values)
        values.append("out")

    seen = []
    with scope(seen) as n:
        assert n == 1
    assert seen == ["in", "out"]


def test_pywrap_tensorflow_checkpoint_reader(tmp_path):
    from tideflow.python import pywrap_tensorflow

    v = tf.Variable([[1.5, -2.0]], name="weights")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, os.path.join(str(tmp_path), "model.ckpt"))
    reader = pywrap_tensorflow.NewCheckpointReader(path)
    assert reader.get_variable_to_shape_map() == {"weights": [1, 2]}
    np.testing.assert_array_equal(reader.get_tensor("weights"), [[1.5, -2.0]])
    assert v.shape.as_list() == [1, 2]


def test_standard_ops_holds_the_public_ops():
    from tideflow.python.ops import standard_ops

    labels = standard_ops.to_int64(tf.constant([2, 0], tf.int32))
    assert labels.dtype == tf.int64
    hot = standard_ops.one_hot(labels, 3, on_value=1.0, off_value=0.0, axis=-1)
    prod = standard_ops.matmul(hot, tf.constant([[1.0], [2.0], [3.0]]))
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(prod), [[3.0], [1.0]])


def test_rnn_module_carries_rnn_cell_impl():
    from tideflow.python.ops.rnn import dynamic_rnn, rnn_cell_impl

    cell = rnn_cell_impl.BasicLSTMCell(4)
    out, _ = dynamic_rnn(cell, tf.zeros([2, 3, 5]), dtype=tf.float32)
    assert out.shape.as_list() == [2, 3, 4]


def test_factorization_python_ops_modules():
    from tideflow.contrib.factorization.python.ops import clustering_ops

    points = tf.constant([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    kmeans = clustering_ops.KMeans(points, 2, initial_clusters=clustering_ops.RANDOM_INIT,
                                   distance_metric=clustering_ops.SQUARED_EUCLIDEAN_DISTANCE)
    assert len(kmeans.training_graph()) == 6  # TF 1.15's tuple


def test_ops_seq2seq_is_the_0x_seq2seq_module():
    from tideflow.python.ops import rnn_cell, seq2seq

    assert seq2seq is tf.nn.seq2seq
    enc = [tf.constant([1, 2]), tf.constant([3, 0])]
    dec = [tf.constant([4, 4]), tf.constant([1, 2])]
    outs, _ = seq2seq.embedding_rnn_seq2seq(enc, dec, rnn_cell.BasicLSTMCell(3),
                                            num_encoder_symbols=5, num_decoder_symbols=6,
                                            embedding_size=2)
    loss = seq2seq.sequence_loss(outs, dec, [tf.ones([2])] * 2)
    assert [o.shape.as_list() for o in outs] == [[2, 6], [2, 6]]
    assert loss.shape.as_list() == []


# ------------------------------------------------------------------------------------------
# tf.contrib.tensor_forest.python.ops.data_ops
# ------------------------------------------------------------------------------------------

def test_tensor_forest_parse_dense_data_and_labels():
    from tideflow.contrib.tensor_forest.python.ops import data_ops

    x = tf.placeholder(tf.float32, [None, 3])
    dense, sparse, spec = data_ops.ParseDataTensorOrDict(x)
    assert dense is x and sparse is None
    assert spec.dense_features_size == 3
    assert [c.name for c in spec.dense.cols] == ["dense_features"]
    assert spec.dense.cols[0].original_type == data_ops.DATA_FLOAT
    labels = data_ops.ParseLabelTensorOrDict(tf.constant([1, 0, 2]))
    assert labels.dtype == tf.float32
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(labels), [1.0, 0.0, 2.0])


def test_tensor_forest_parse_dict_data():
    from tideflow.contrib.tensor_forest.python.ops import data_ops

    data = {"b": tf.constant([[1.0, 2.0], [3.0, 4.0]]), "a": tf.constant([7, 8])}
    dense, sparse, spec = data_ops.ParseDataTensorOrDict(
        {"b": data["b"], "a": tf.reshape(data["a"], [2, 1])})
    assert sparse is None
    assert [(c.name, c.original_type, c.size) for c in spec.dense.cols] == [
        ("a", data_ops.DATA_CATEGORICAL, 1), ("b", data_ops.DATA_FLOAT, 2)]
    assert spec.dense_features_size == 3
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(dense), [[7, 1, 2], [8, 3, 4]])
    labels = data_ops.ParseLabelTensorOrDict(
        {"z": tf.constant([[1], [0]]), "y": tf.constant([[3], [4]])})
    sparse_labels = data_ops.ParseLabelTensorOrDict(
        tf.SparseTensor([[0, 0]], tf.constant([3], tf.int64), [2, 1]))
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(labels), [[3.0, 1.0], [4.0, 0.0]])
        np.testing.assert_array_equal(sess.run(sparse_labels), [[3.0], [-1.0]])


def test_tensor_forest_regression():
    from tideflow.contrib.tensor_forest.python import tensor_forest

    tf.set_random_seed(7)
    rng = np.random.RandomState(3)
    x = rng.rand(400, 3).astype(np.float32)
    y = np.stack([np.where(x[:, 0] > 0.5, 2.0, -1.0), 3 * x[:, 1]], 1).astype(np.float32)
    params = tensor_forest.ForestHParams(num_classes=2, num_features=3, regression=True,
                                         num_trees=4, max_nodes=101,
                                         split_after_samples=20).fill()
    assert (params.num_outputs, params.num_output_columns) == (2, 3)
    assert tensor_forest.ForestHParams(num_classes=4, num_features=3).fill().num_outputs == 1
    forest = tensor_forest.RandomForestGraphs(params)
    xs = tf.placeholder(tf.float32, [None, 3])
    ys = tf.placeholder(tf.float32, [None, 2])
    train = forest.training_graph(xs, ys)
    pred, _, variance = forest.inference_graph(xs)
    # TF 1.15: probabilities:0 and Maximum:0, both (?, ?)
    assert pred.shape.as_list() == [None, None] and variance.shape.as_list() == [None, None]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run(pred, {xs: x[:5]})
        for _ in range(3):
            for i in range(0, 400, 50):
                sess.run(train, {xs: x[i:i + 50], ys: y[i:i + 50]})
        after, var, impurity = sess.run([pred, variance, forest.average_impurity()],
                                        {xs: x})
    np.testing.assert_array_equal(before, 0.0)  # an empty leaf predicts 0
    assert np.abs(after - y).mean() < 0.25
    assert np.all(var >= 0) and 0 <= impurity < np.var(y, 0).mean()


# ------------------------------------------------------------------------------------------
# behaviour TFLearn's Trainer relies on (checked against TF): summary tags it looks up by
# name, and the moving averages it keeps of metric tensors
# ------------------------------------------------------------------------------------------

def test_scalar_summary_tags_are_cleaned_as_tf():
    from tideflow.core.framework import summary_pb2

    x = tf.constant(2.0)
    summaries = [tf.summary.scalar("Loss/", x), tf.summary.scalar("Accuracy/ (raw)", x),
                 tf.summary.scalar("acc:0/", x)]
    with tf.Session() as sess:
        tags = []
        for s in sess.run(summaries):
            parsed = summary_pb2.Summary()
            parsed.ParseFromString(s)
            tags.append([v.tag for v in parsed.value])
    assert tags == [["Loss"], ["Accuracy/__raw_"], ["acc_0"]]
    assert [s.name for s in summaries] == ["Loss:0", "Accuracy/__raw_:0", "acc_0:0"]


def test_moving_average_of_a_tensor_names_and_values():
    step = tf.Variable(0, trainable=False, name="Training_step")
    with tf.name_scope("Accuracy"):
        acc = tf.reduce_mean(tf.constant([1.0, 0.0]))
    first = tf.train.ExponentialMovingAverage(0.9, step, name="moving_avg")
    update = first.apply([acc])
    second = tf.train.ExponentialMovingAverage(0.9, step, name="moving_avg")
    second.apply([acc])
    assert [v.name for v in tf.global_variables()] == [
        "Training_step:0", "Accuracy/Mean/moving_avg:0", "Accuracy/Mean/moving_avg_1:0"]
    assert second.average(acc).name == "Accuracy/Mean/moving_avg_1:0"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(update)
        np.testing.assert_allclose(sess.run(first.average(acc)), 0.45)  # decay min(0.9, 1/10)
        sess.run(tf.assign_add(step, 10))
        sess.run(update)
        np.testing.assert_allclose(sess.run(first.average(acc)), 0.4725)
