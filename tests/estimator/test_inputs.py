"""``tf.estimator.inputs.numpy_input_fn``: batches, epochs, shuffling and argument checks."""

import numpy as np
import pytest

import tideflow as tf


def drain(fetch):
    out = []
    with tf.Session() as sess:
        while True:
            try:
                out.append(sess.run(fetch))
            except tf.errors.OutOfRangeError:
                return out


def test_batches_run_across_epochs_in_order_without_shuffle():
    x = np.arange(10, dtype=np.float32)
    with tf.Graph().as_default():
        features, labels = tf.estimator.inputs.numpy_input_fn(
            {"a": x}, x * 10, batch_size=4, num_epochs=2, shuffle=False)()
        assert set(features) == {"a"}
        batches = drain((features["a"], labels))
    got = [list(b[0]) for b in batches]
    assert got == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 0, 1], [2, 3, 4, 5], [6, 7, 8, 9]]
    for a, y in batches:
        np.testing.assert_array_equal(y, a * 10)


def test_shuffle_permutes_and_keeps_each_example_num_epochs_times():
    x = np.arange(50)
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        features = tf.estimator.inputs.numpy_input_fn(
            {"a": x}, batch_size=7, num_epochs=3, shuffle=True)()
        batches = drain(features["a"])
    seen = np.concatenate(batches)
    assert len(seen) == 150
    np.testing.assert_array_equal(np.bincount(seen), np.full(50, 3))
    assert not np.array_equal(seen, np.tile(x, 3))
    assert [len(b) for b in batches][:-1] == [7] * 21 and len(batches[-1]) == 3


def test_array_x_dict_y_dtypes_and_infinite_epochs():
    x = np.arange(12, dtype=np.float64).reshape(6, 2)
    y = {"t1": np.arange(6), "t2": np.ones(6, np.float32)}
    with tf.Graph().as_default():
        features, labels = tf.estimator.inputs.numpy_input_fn(
            x, y, batch_size=4, num_epochs=None, shuffle=False)()
        assert isinstance(features, tf.Tensor) and features.dtype == tf.float64
        assert set(labels) == {"t1", "t2"} and labels["t1"].dtype == tf.int64
        with tf.Session() as sess:
            rows = [sess.run(features) for _ in range(5)]  # 20 rows of 6: never runs out
    np.testing.assert_array_equal(np.concatenate(rows)[:, 0], np.tile(x[:, 0], 4)[:20])


def test_argument_errors():
    x = {"a": np.arange(4)}
    with pytest.raises(ValueError, match="shuffle must be provided and explicitly set"):
        tf.estimator.inputs.numpy_input_fn(x, np.arange(4))
    with pytest.raises(ValueError, match="shuffle must be provided"):
        tf.estimator.inputs.numpy_input_fn(x, shuffle=1)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Length of tensors in x and y is mismatched"):
            tf.estimator.inputs.numpy_input_fn(x, np.arange(5), shuffle=False)()
        with pytest.raises(ValueError, match="duplicate keys"):
            tf.estimator.inputs.numpy_input_fn(x, {"a": np.arange(4)}, shuffle=False)()
        with pytest.raises(TypeError, match="x must be a dict or array"):
            tf.estimator.inputs.numpy_input_fn([1, 2], shuffle=False)()
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(TypeError, match="without pandas installed"):
            tf.estimator.inputs.pandas_input_fn(None, shuffle=False)
    # the tf.compat.v1 spelling
    assert tf.compat.v1.estimator.inputs.numpy_input_fn is tf.estimator.inputs.numpy_input_fn


def test_arrays_stay_out_of_the_saved_graph(tmp_path):
    """The arrays are fed from Python, as TF's feeding queues do: the graph.pbtxt and the
    checkpoints' meta graphs an Estimator writes do not copy them."""
    x = np.random.RandomState(0).rand(4000, 64).astype(np.float32)  # 1 MB
    y = (x[:, 0] > 0.5).astype(np.int32)

    def model_fn(features, labels, mode):
        logits = tf.layers.dense(features["x"], 2)
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    est.train(tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=100, shuffle=True),
              steps=5)
    assert est.get_variable_value("global_step") == 5
    # (a copy of the 1 MB array would take several MB of text; the graph is ~100 KB)
    assert (tmp_path / "graph.pbtxt").stat().st_size < x.nbytes / 5
    for meta in tmp_path.glob("model.ckpt-*.meta"):
        assert meta.stat().st_size < x.nbytes / 5
