"""TF 1.x programs in the style of the classic public example collections (MNIST loaders,
random forests, ...), run under tideflow with values checked against NumPy or by property."""

import gzip
import os
import struct

import numpy as np
import pytest

import tideflow as tf


def _digits(n, rng, protos):
    """``n`` 28x28 uint8 images of the ten class prototypes ``protos``, noisy, and their
    labels."""
    labels = rng.randint(0, 10, size=n).astype(np.uint8)
    noise = rng.randint(0, 56, size=(n, 28, 28))
    flip = rng.random_sample((n, 28, 28)) < 0.1
    images = np.where(flip, 200 - protos[labels], protos[labels]) + noise
    return images.astype(np.uint8), labels


def _write_idx(path, array, magic):
    with gzip.open(path, "wb") as f:
        f.write(struct.pack(">II", magic, array.shape[0]))
        if array.ndim == 3:
            f.write(struct.pack(">II", *array.shape[1:]))
        f.write(array.tobytes())


@pytest.fixture(scope="module")
def mnist_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("mnist")
    rng = np.random.RandomState(0)
    protos = rng.randint(0, 2, size=(10, 28, 28)) * 200
    train = _digits(700, rng, protos)
    test = _digits(200, rng, protos)
    _write_idx(os.path.join(d, "train-images-idx3-ubyte.gz"), train[0], 2051)
    _write_idx(os.path.join(d, "train-labels-idx1-ubyte.gz"), train[1], 2049)
    _write_idx(os.path.join(d, "t10k-images-idx3-ubyte.gz"), test[0], 2051)
    _write_idx(os.path.join(d, "t10k-labels-idx1-ubyte.gz"), test[1], 2049)
    return str(d), train, test


def test_input_data_read_data_sets(mnist_dir, capsys):
    from tideflow.examples.tutorials.mnist import input_data

    path, (tr_images, tr_labels), (_, te_labels) = mnist_dir
    data = input_data.read_data_sets(path, one_hot=True, validation_size=100)
    printed = capsys.readouterr().out.splitlines()
    assert printed == [f"Extracting {os.path.join(path, name)}" for name in (
        "train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
        "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")]
    assert data.train.num_examples == 600 and data.validation.num_examples == 100
    assert data.test.num_examples == 200
    assert data.train.images.shape == (600, 784) and data.train.images.dtype == np.float32
    np.testing.assert_allclose(data.validation.images,
                               tr_images[:100].reshape(100, 784) / 255.0, rtol=1e-6)
    np.testing.assert_array_equal(data.test.labels.argmax(1), te_labels)
    assert data.train.labels.shape == (600, 10)
    # next_batch: an epoch visits every example once, then epochs_completed counts it
    seen = [data.train.next_batch(100)[0] for _ in range(6)]
    assert data.train.epochs_completed == 0
    got = np.sort(np.concatenate(seen).sum(1))
    np.testing.assert_allclose(got, np.sort(tr_images[100:].reshape(600, -1).sum(1) / 255.0),
                               rtol=1e-5)
    xs, ys = data.train.next_batch(50)
    assert data.train.epochs_completed == 1 and xs.shape == (50, 784) and ys.shape == (50, 10)
    raw = input_data.read_data_sets(path, one_hot=False, dtype=tf.uint8, reshape=False,
                                    validation_size=0)
    assert raw.train.images.shape == (700, 28, 28, 1) and raw.train.images.dtype == np.uint8
    np.testing.assert_array_equal(raw.train.labels, tr_labels)


def test_input_data_missing_files_names_url_and_directory(tmp_path):
    from tideflow.examples.tutorials.mnist import input_data

    target = tmp_path / "empty"
    url = "http://127.0.0.1:9/mnist/"  # the discard port: nothing answers
    with pytest.raises(OSError, match=r"train-images-idx3-ubyte\.gz") as info:
        input_data.read_data_sets(str(target), source_url=url)
    assert url in str(info.value) and str(target) in str(info.value)


def test_tutorial_mnist_model_learns(mnist_dir):
    from tideflow.examples.tutorials.mnist import input_data, mnist

    data = input_data.read_data_sets(mnist_dir[0], validation_size=0)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        images = tf.placeholder(tf.float32, [None, mnist.IMAGE_PIXELS])
        labels = tf.placeholder(tf.int32, [None])
        logits = mnist.inference(images, 32, 16)
        loss = mnist.loss(logits, labels)
        train = mnist.training(loss, 0.1)
        correct = mnist.evaluation(logits, labels)
        names = {v.op.name for v in tf.trainable_variables()}
        assert {"hidden1/weights", "hidden2/biases", "softmax_linear/weights"} <= names
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(150):
                x, y = data.train.next_batch(50)
                sess.run(train, {images: x, labels: y})
            n = sess.run(correct, {images: data.test.images, labels: data.test.labels})
            assert sess.run(tf.train.get_global_step()) == 150
    assert n > 0.8 * data.test.num_examples


def test_tensor_forest_learns_digits(mnist_dir):
    from tideflow.contrib.tensor_forest.python import tensor_forest

    _, (tr_images, tr_labels), (te_images, te_labels) = mnist_dir
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        x = tf.placeholder(tf.float32, [None, 784])
        y = tf.placeholder(tf.int32, [None])
        hparams = tensor_forest.ForestHParams(num_classes=10, num_features=784, num_trees=5,
                                              max_nodes=200, split_after_samples=30).fill()
        assert hparams.num_splits_to_consider == 28  # max(10, ceil(sqrt(784)))
        forest = tensor_forest.RandomForestGraphs(hparams)
        train = forest.training_graph(x, y)
        loss = forest.training_loss(x, y)
        probs, _, variance = forest.inference_graph(x)
        accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(probs, 1),
                                                   tf.cast(y, tf.int64)), tf.float32))
        feed_test = {x: te_images.reshape(-1, 784) / 255.0, y: te_labels}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            before = sess.run(accuracy, feed_test)
            for i in range(10):
                batch = slice(i * 70, i * 70 + 70)
                sess.run(train, {x: tr_images[batch].reshape(-1, 784) / 255.0,
                                 y: tr_labels[batch]})
            size = -sess.run(loss)
            acc, p, var = sess.run([accuracy, probs, variance], feed_test)
    assert before < 0.3  # untrained: one leaf per tree, uniform
    assert acc > 0.7, acc
    assert 1 < size <= 200
    np.testing.assert_allclose(p.sum(1), 1.0, rtol=1e-5)
    assert p.shape == (200, 10) and (var >= 0).all()


def test_tensor_forest_rejects_bad_labels():
    from tideflow.contrib.tensor_forest.python import tensor_forest

    with tf.Graph().as_default():
        hparams = tensor_forest.ForestHParams(num_classes=3, num_features=2, num_trees=2,
                                              max_nodes=10).fill()
        forest = tensor_forest.RandomForestGraphs(hparams)
        train = forest.training_graph(tf.constant([[0.0, 1.0]]), tf.constant([5]))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"labels must be in"):
                sess.run(train)


def test_contrib_gbdt_classifier_learns_digits(mnist_dir, tmp_path):
    from tideflow.contrib.boosted_trees.estimator_batch.estimator import (
        GradientBoostedDecisionTreeClassifier,
    )
    from tideflow.contrib.boosted_trees.proto import learner_pb2

    _, (tr_images, tr_labels), (te_images, te_labels) = mnist_dir
    config = learner_pb2.LearnerConfig()
    config.learning_rate_tuner.fixed.learning_rate = 0.3
    config.regularization.l2 = 1.0 / 200
    config.constraints.max_tree_depth = 3
    config.growing_mode = learner_pb2.LearnerConfig.LAYER_BY_LAYER
    config.multi_class_strategy = learner_pb2.LearnerConfig.DIAGONAL_HESSIAN
    model = GradientBoostedDecisionTreeClassifier(
        learner_config=config, n_classes=10, examples_per_layer=200, num_trees=4,
        center_bias=False, model_dir=str(tmp_path / "gbdt"), num_quantiles=8,
        # a graph seed fixes the shuffled batches the trees are grown from (unseeded, the
        # accuracy varies around the threshold from run to run)
        config=tf.estimator.RunConfig(tf_random_seed=3))
    train_x = {"images": tr_images.reshape(-1, 784)[:, ::4] / 255.0}
    model.fit(input_fn=tf.estimator.inputs.numpy_input_fn(
        x=train_x, y=tr_labels.astype(np.int32), batch_size=200, num_epochs=None,
        shuffle=True))  # no steps: training stops once the 4 trees are grown
    assert model.get_variable_value("global_step") <= 12
    assert model.get_variable_value("ensemble/progress")[0] == 4
    test_fn = tf.estimator.inputs.numpy_input_fn(
        x={"images": te_images.reshape(-1, 784)[:, ::4] / 255.0},
        y=te_labels.astype(np.int32), batch_size=100, shuffle=False)
    result = model.evaluate(input_fn=test_fn)
    assert result["accuracy"] > 0.6, result
    preds = list(model.predict(input_fn=tf.estimator.inputs.numpy_input_fn(
        x={"images": te_images.reshape(-1, 784)[:8, ::4] / 255.0}, shuffle=False)))
    assert len(preds) == 8
    probs = np.stack([p["probabilities"] for p in preds])
    np.testing.assert_allclose(probs.sum(1), 1.0, rtol=1e-5)
    np.testing.assert_array_equal(probs.argmax(1), [p["classes"] for p in preds])


def test_contrib_learn_mnist_module_paths(mnist_dir):
    from tideflow.contrib.learn.python.learn.datasets import base
    from tideflow.contrib.learn.python.learn.datasets.mnist import read_data_sets

    from tideflow.examples.tutorials.mnist import input_data

    data = read_data_sets(mnist_dir[0], validation_size=50)
    assert isinstance(data, base.Datasets)
    assert data.validation.num_examples == 50 and data.train.num_examples == 650
    assert tf.contrib.learn.datasets.mnist.read_data_sets is input_data.read_data_sets


def test_tensor_forest_estimator_fits_and_evaluates(mnist_dir, tmp_path):
    from tideflow.contrib.tensor_forest.client import random_forest
    from tideflow.contrib.tensor_forest.python import tensor_forest

    _, (tr_images, tr_labels), (te_images, te_labels) = mnist_dir
    hparams = tensor_forest.ForestHParams(num_classes=10, num_features=196, num_trees=4,
                                          max_nodes=200, split_after_samples=25)
    est = random_forest.TensorForestEstimator(hparams, model_dir=str(tmp_path / "forest"))
    est.fit(x=(tr_images.reshape(-1, 784)[:, ::4] / 255.0).astype(np.float32),
            y=tr_labels.astype(np.int32), batch_size=100, steps=14)
    result = est.evaluate(x=(te_images.reshape(-1, 784)[:, ::4] / 255.0).astype(np.float32),
                          y=te_labels.astype(np.int32), batch_size=100)
    assert result["accuracy"] > 0.7, result
    # TF 1.15: the head's softmax cross-entropy over the forest's class frequencies (whose
    # softmax is flat, so above that of a sure answer but below log(10))
    assert 1.0 < result["loss"] < np.log(10.0)
    preds = list(est.predict(x=(te_images.reshape(-1, 784)[:5, ::4] / 255.0)
                             .astype(np.float32)))
    assert [p["classes"] for p in preds] == [int(np.argmax(p["probabilities"])) for p in preds]


def test_slim_variables_pinned_by_arg_scope_inside_a_gpu_tower():
    slim = tf.contrib.slim
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 8, 8, 1])
        with tf.device("/cpu:0"), tf.device("/gpu:0"):
            with slim.arg_scope([slim.model_variable, slim.variable], device="/cpu:0"):
                net = slim.conv2d(x, 4, 3, activation_fn=tf.nn.relu, scope="conv")
                net = slim.fully_connected(slim.flatten(net), 3, activation_fn=None, scope="fc")
            extra = slim.model_variable("extra", shape=[2], initializer=tf.ones_initializer())
            with slim.arg_scope([slim.variable], device="/cpu:0"):
                # as TF's: model_variable calls slim.variable with its own device=None,
                # which overrides slim.variable's arg scope
                pinned = slim.model_variable("pinned", shape=[2])
        assert all(v.device == "/device:CPU:0" for v in tf.trainable_variables()
                   if v.op.name.startswith(("conv/", "fc/")))
        assert extra.device == "/device:GPU:0" and pinned.device == "/device:GPU:0"
        assert {v.op.name for v in tf.model_variables()} >= {"conv/weights", "fc/biases",
                                                              "extra", "pinned"}
        with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
            sess.run(tf.global_variables_initializer())
            out = sess.run(net, {x: np.ones((2, 8, 8, 1), np.float32)})
            np.testing.assert_array_equal(sess.run(extra), [1.0, 1.0])
        assert out.shape == (2, 3)
        with pytest.raises(tf.errors.InvalidArgumentError, match="GPU:0"), tf.Session() as sess:
            sess.run(extra.initializer)


def test_contrib_gbdt_regressor_fits_a_step_function(tmp_path):
    from tideflow.contrib.boosted_trees.estimator_batch.estimator import (
        GradientBoostedDecisionTreeRegressor,
    )
    from tideflow.contrib.boosted_trees.proto import learner_pb2

    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, size=(400, 3)).astype(np.float32)
    y = np.where(x[:, 1] > 0.2, 3.0, -1.0).astype(np.float32)
    config = learner_pb2.LearnerConfig()
    config.learning_rate_tuner.fixed.learning_rate = 0.5
    config.constraints.max_tree_depth = 2
    model = GradientBoostedDecisionTreeRegressor(
        learner_config=config, examples_per_layer=400, num_trees=6,
        model_dir=str(tmp_path / "gbdt_reg"), num_quantiles=16)
    model.fit(input_fn=tf.estimator.inputs.numpy_input_fn(
        x={"x": x}, y=y, batch_size=400, num_epochs=None, shuffle=False))
    scores = np.array([p["scores"] for p in model.predict(
        input_fn=tf.estimator.inputs.numpy_input_fn(x={"x": x}, shuffle=False))])
    # six boosting rounds at rate 0.5 close all but 1/64 of the gap on each side, except in
    # the one quantile bucket (1/16 of the range) that holds the step
    assert np.mean(np.abs(scores - y) < 0.1) > 0.9
    assert np.mean((scores - y) ** 2) < np.var(y) / 4


def test_resources_initialize_and_report():
    from tideflow.python.ops import resources

    with tf.Graph().as_default():
        # the idiom of TF 1.x random-forest programs: nothing registered -> a no-op
        init = tf.group(tf.global_variables_initializer(),
                        resources.initialize_resources(resources.shared_resources()))
        handle = tf.Variable(1.0, name="handle")
        flag = tf.Variable(False, name="flag")
        resources.register_resource(handle, tf.assign(flag, True), flag)
        local_flag = tf.Variable(True, name="local_flag")
        resources.register_resource(tf.Variable(2.0, name="local"), tf.no_op(), local_flag,
                                    is_shared=False)
        assert len(resources.shared_resources()) == 1 and len(resources.local_resources()) == 1
        report = resources.report_uninitialized_resources()
        with tf.Session() as sess:
            sess.run(init)
            sess.run(tf.global_variables_initializer())
            assert list(sess.run(report)) == [b"handle:0"]
            sess.run(resources.initialize_resources(resources.shared_resources()))
            assert list(sess.run(report)) == []


def test_contrib_gbdt_small_layers_split_between_sorted_examples(tmp_path):
    # 60 examples a layer and 100 quantile buckets: every leaf holds fewer examples than
    # buckets, so its splits are searched between its sorted examples
    from tideflow.contrib.boosted_trees.estimator_batch.estimator import (
        GradientBoostedDecisionTreeClassifier,
    )
    from tideflow.contrib.boosted_trees.proto import learner_pb2

    rng = np.random.RandomState(1)
    x = rng.uniform(-1, 1, size=(60, 4)).astype(np.float32)
    y = ((x[:, 0] > 0.3).astype(np.int32) + 2 * (x[:, 2] < -0.2)).astype(np.int32)
    config = learner_pb2.LearnerConfig()
    config.learning_rate_tuner.fixed.learning_rate = 0.5
    config.regularization.l2 = 0.01
    config.constraints.max_tree_depth = 3
    model = GradientBoostedDecisionTreeClassifier(
        learner_config=config, n_classes=4, examples_per_layer=60, num_trees=5,
        model_dir=str(tmp_path / "small"))
    fn = tf.estimator.inputs.numpy_input_fn(x={"x": x}, y=y, batch_size=60, num_epochs=None,
                                            shuffle=False)
    model.fit(input_fn=fn)
    preds = np.array([p["classes"] for p in model.predict(
        input_fn=tf.estimator.inputs.numpy_input_fn(x={"x": x}, shuffle=False))])
    np.testing.assert_array_equal(preds, y)  # the training set, fitted exactly
