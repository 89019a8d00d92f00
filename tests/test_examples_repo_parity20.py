"""Parity with TF 1.15 of the programs of the popular TF 1.x example collections (k-means,
random forest, ...), rewritten with synthetic data; expected values from TF 1.15."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_kmeans_training_graph_returns_tf_tensors_and_unknown_shapes():
    # TF 1.15 prints, for the tuple training_graph() returns:
    # (<'sub_1:0' shape=<unknown>>,) Tensor("Squeeze_1:0", dtype=int64)
    # (<'Squeeze:0' shape=<unknown>>,) <Variable 'initialized:0'> cond/Merge:0 group_deps
    x = tf.placeholder(tf.float32, shape=[None, 4])
    km = tf.contrib.factorization.KMeans(inputs=x, num_clusters=3, distance_metric="cosine",
                                         use_mini_batch=True)
    all_scores, idx, scores, initialized, init_op, train_op = km.training_graph()
    assert all_scores[0].name == "sub_1:0"
    assert idx[0].name == "Squeeze_1:0" and idx[0].get_shape().ndims is None
    assert scores[0].name == "Squeeze:0" and scores[0].get_shape().ndims is None
    # the init op is the bool output of TF's outer cond, not an Operation
    assert isinstance(init_op, tf.Tensor)
    assert (init_op.name, init_op.dtype) == ("cond/Merge:0", tf.bool)
    assert train_op.name == "group_deps"
    data = np.arange(20, dtype=np.float32).reshape(5, 4)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        # TF 1.15: True, True (the inner cond's flag: all centres chosen; then the outer
        # predicate: they already were)
        assert sess.run(init_op, {x: data}) and sess.run(initialized)
        assert sess.run(init_op, {x: data})


def test_kmeans_init_op_takes_centres_from_several_batches():
    # TF 1.15: two rows of three centres (False, False); then the third (True, True)
    x = tf.placeholder(tf.float32, shape=[None, 4])
    km = tf.contrib.factorization.KMeans(inputs=x, num_clusters=3)
    _, _, _, initialized, init_op, _ = km.training_graph()
    data = np.arange(20, dtype=np.float32).reshape(5, 4)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert not sess.run(init_op, {x: data[:2]}) and not sess.run(initialized)
        assert sess.run(init_op, {x: data[2:3]}) and sess.run(initialized)


def test_nearest_neighbors_and_kmeans_plus_plus_have_unknown_static_shapes():
    # TF 1.15 registers both ops with UnknownShape
    from tideflow.ops import clustering_ops as co

    pts = tf.constant(np.ones((5, 2), np.float32))
    idx, dist = co.nearest_neighbors(pts, tf.constant(np.ones((3, 2), np.float32)), 1)
    samples = co.kmeans_plus_plus_initialization(pts, 2, 0, 1)
    for t in (idx, dist, samples):
        assert t.get_shape().ndims is None


def test_tensor_forest_train_and_probabilities_take_tf_names():
    # TF 1.15 (aymericdamien's random_forest.py): train NoOp /device:CPU:0,
    # Tensor("probabilities:0", shape=(7, ?), device=/device:CPU:0), Tensor("Maximum:0", (7, ?))
    from tideflow.contrib.tensor_forest.python import tensor_forest

    x = tf.placeholder(tf.float32, shape=[7, 10])
    y = tf.placeholder(tf.int32, shape=[7])
    params = tensor_forest.ForestHParams(num_classes=3, num_features=10, num_trees=2,
                                         max_nodes=100).fill()
    forest = tensor_forest.RandomForestGraphs(params)
    train = forest.training_graph(x, y)
    probs, _, variance = forest.inference_graph(x)
    assert (train.name, train.type, train.device) == ("train", "NoOp", "/device:CPU:0")
    assert (probs.name, probs.device) == ("probabilities:0", "/device:CPU:0")
    assert variance.name == "Maximum:0"
    assert probs.shape.as_list() == [7, None] and variance.shape.as_list() == [7, None]


def test_gbdt_classifier_evaluates_batches_of_unknown_size(tmp_path):
    # aymericdamien's gradient_boosted_decision_tree.py evaluates with num_epochs=1 (batch
    # dimension unknown); TF 1.15 evaluates it (accuracy 1.0 on this separable set)
    from tideflow.contrib.boosted_trees.estimator_batch.estimator import (
        GradientBoostedDecisionTreeClassifier,
    )
    from tideflow.contrib.boosted_trees.proto import learner_pb2

    rs = np.random.RandomState(0)
    x = rs.rand(200, 5).astype(np.float32)
    y = (x[:, 0] > 0.5).astype(np.int32) + (x[:, 1] > 0.5).astype(np.int32)
    config = learner_pb2.LearnerConfig()
    config.learning_rate_tuner.fixed.learning_rate = 0.1
    config.constraints.max_tree_depth = 3
    config.multi_class_strategy = learner_pb2.LearnerConfig.DIAGONAL_HESSIAN
    model = GradientBoostedDecisionTreeClassifier(
        model_dir=str(tmp_path), learner_config=config, n_classes=3, examples_per_layer=200,
        num_trees=5, center_bias=False, config=tf.contrib.learn.RunConfig(tf_random_seed=1))
    model.fit(input_fn=tf.estimator.inputs.numpy_input_fn(
        x={"images": x}, y=y, batch_size=200, num_epochs=None, shuffle=False), max_steps=12)
    metrics = model.evaluate(input_fn=tf.estimator.inputs.numpy_input_fn(
        x={"images": x}, y=y, batch_size=200, shuffle=False))
    assert metrics["accuracy"] == 1.0 and metrics["global_step"] == 12


def test_contrib_learn_synthetic_circles_and_spirals():
    # TF 1.15's tf.contrib.learn.datasets.synthetic, printed with np.round(..., 4)
    syn = tf.contrib.learn.datasets.synthetic
    d = syn.circles(n_samples=7, noise=0.1, seed=4, n_classes=3)
    assert d.data.dtype == np.float64 and d.target.dtype == np.int32
    np.testing.assert_array_equal(d.target, [1, 2, 0, 1, 2, 0, 0])
    np.testing.assert_allclose(d.data[:2], [[0.6419, 0.1521], [0.6835, 0.1206]], atol=1e-4)
    s = syn.spirals(n_samples=5, seed=0, n_loops=1)
    np.testing.assert_array_equal(s.target, [0, 1, 0, 1, 0])
    np.testing.assert_allclose(s.data[:2], [[-1.0, -1.0], [0.0, 0.0]], atol=1e-4)
    m = tf.contrib.learn.datasets.make_dataset("circles", n_samples=4, seed=2)
    np.testing.assert_array_equal(m.target, [1, 1, 0, 0])
    with pytest.raises(ValueError, match="Cannot generate spiral with mode x"):
        syn.spirals(mode="x")


def test_contrib_learn_callback_monitors_run_through_fit(tmp_path):
    # TF 1.15: a BaseMonitor subclass gets begin/step_begin/step_end/post_step/end, the
    # names its step_begin returns are fetched with the step, and step_end returning True
    # stops training; CaptureVariable(every_n=2) keeps steps 1 and 3 of 4
    learn = tf.contrib.learn
    calls = []

    class Recorder(learn.monitors.BaseMonitor):
        def step_begin(self, step):
            super().step_begin(step)
            calls.append(("begin", step))
            return ["global_step:0"]

        def step_end(self, step, output):
            super().step_end(step, output)
            calls.append(("end", step, int(output["global_step:0"])))
            return step >= 4

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
        logits = tf.squeeze(tf.matmul(features, w), 1)
        loss = tf.losses.sigmoid_cross_entropy(tf.cast(labels, tf.float32), logits)
        train = tf.train.GradientDescentOptimizer(0.5).minimize(
            loss, global_step=tf.train.get_global_step())
        return learn.ModelFnOps(mode, predictions=logits, loss=loss, train_op=train)

    x = np.random.RandomState(0).rand(30, 3).astype(np.float32)
    y = (x.sum(1) > 1.5).astype(np.int32)
    cap = learn.monitors.CaptureVariable("w:0", every_n=2, first_n=1)
    est = learn.Estimator(model_fn=model_fn, model_dir=str(tmp_path))
    est.fit(x=x, y=y, steps=10, batch_size=30, monitors=[Recorder(), cap])
    assert calls == [("begin", 1), ("end", 1, 1), ("begin", 2), ("end", 2, 2),
                     ("begin", 3), ("end", 3, 3), ("begin", 4), ("end", 4, 4)]
    assert sorted(cap.values) == [1, 3]
    # TF 1.15: [[0.0573375], [0.12607265], [0.03176537]] (to float32 rounding)
    np.testing.assert_allclose(cap.values[3].ravel(), [0.0573375, 0.12607265, 0.03176537],
                               rtol=1e-5)
    assert isinstance(cap, learn.monitors.EveryN)


def test_contrib_learn_every_n_monitor_schedule():
    # TF 1.15: EveryN(every_n_steps=3, first_n_steps=2) is active at steps 1, 2, 5, 8 and at
    # max_steps 10; step_end's error passes its values unformatted
    m = tf.contrib.learn.monitors.EveryN(every_n_steps=3, first_n_steps=2)
    m.begin(max_steps=10)
    active = []
    for step in range(1, 11):
        m.step_begin(step)
        active.append(m._every_n_step_begin_called)
        m.step_end(step, {})
        m.post_step(step, None)
    assert active == [True, True, False, False, True, False, False, True, False, True]
    with pytest.raises(ValueError, match="begin called twice without end."):
        m.begin()
    m.step_begin(10)
    with pytest.raises(ValueError) as err:
        m.step_end(12, {})
    assert err.value.args == ("step_end expected %s but got %s.", 10, 12)
    assert str(tf.contrib.learn.monitors.NanLossDuringTrainingError()) == (
        "NaN loss during training.")


def test_container_names_follow_tf_rule():
    # HOML ch. 12's tf.container("my_problem_1") fails in TF 1.15: a container name is a
    # letter, digit or dot, then letters, digits, '.', '-' or '/' (no underscore)
    with tf.container("my_problem_1"):
        v = tf.Variable(1.0, name="v")
        q = tf.FIFOQueue(3, tf.float32)
    with tf.container("a.b/C-d"):
        ok = tf.Variable(2.0, name="ok")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="^container contains invalid characters: my_problem_1") as e:
            sess.run(v.initializer)
        assert e.value.op.name == "v"
        with pytest.raises(tf.errors.InvalidArgumentError, match="my_problem_1"):
            sess.run(q.size())
        sess.run(ok.initializer)
        assert sess.run(ok) == 2.0


def test_kmeans_clustering_doc_example_trains_from_one_epoch_input(tmp_path):
    # TF 1.15's KMeansClustering example: train(input_fn) with limit_epochs(num_epochs=1). The
    # init hook's run takes the epoch; the training step then runs out of input, but TF
    # still counts it (global step 1) and saves the chosen centres; TF 1.15's scores:
    # 989.93317, 540.47754, 304.09842, 114.60199
    rs = np.random.RandomState(0)
    points = np.concatenate([rs.randn(20, 2) + c
                             for c in ([0, 0], [6, 6], [0, 6])]).astype(np.float32)

    def input_fn():
        return tf.train.limit_epochs(tf.convert_to_tensor(points), num_epochs=1)

    km = tf.contrib.factorization.KMeansClustering(
        num_clusters=3, use_mini_batch=False, model_dir=str(tmp_path),
        config=tf.estimator.RunConfig(tf_random_seed=3), initial_clusters="random")
    scores = []
    for _ in range(4):
        km.train(input_fn)
        scores.append(km.score(input_fn))
    np.testing.assert_allclose(scores, [989.93317, 540.47754, 304.09842, 114.60199], rtol=1e-5)
    assert km.get_variable_value("global_step") == 7  # TF 1.15: 1, then two more a call
