"""TF 1.15 parity found by the nineteenth session's lead: each expected value is what TF 1.15
printed for the same program."""

import numpy as np
import pytest

import tideflow as tf


def test_load_iris_is_the_table_tf_bundles():
    # TF 1.15's iris.csv keeps rows 35 and 38 as Fisher first printed them (later copies, such
    # as scikit-learn's, carry the corrected 4.9,3.1,1.5,0.2 and 4.9,3.6,1.4,0.1): a program's
    # first loss on the whole set moved in its fourth digit
    iris = tf.contrib.learn.datasets.load_iris()
    assert iris.data.shape == (150, 4) and iris.data.dtype == np.float64
    assert iris.target.dtype == np.int64 and np.bincount(iris.target).tolist() == [50, 50, 50]
    assert iris.data[34].tolist() == [4.9, 3.1, 1.5, 0.1]
    assert iris.data[37].tolist() == [4.9, 3.1, 1.5, 0.1]
    np.testing.assert_allclose(iris.data.sum(axis=0), [876.5, 458.1, 563.8, 179.8], rtol=1e-12)


def _iris_inputs(y):
    x = tf.contrib.learn.datasets.load_iris().data.astype(np.float32)
    return lambda: (tf.constant(x), tf.constant(y))


def test_contrib_learn_evaluate_dict_is_in_tf_order(tmp_path):
    # TF 1.15 prints evaluate()'s dict as loss, the head's metrics, the caller's metrics and
    # global_step last (tideflow had global_step second and the binary metrics sorted)
    tf.logging.set_verbosity(tf.logging.ERROR)
    target = tf.contrib.learn.datasets.load_iris().target
    cols = [tf.contrib.layers.real_valued_column("", dimension=4)]
    cfg = tf.contrib.learn.RunConfig(tf_random_seed=1)
    mine = {"my_acc": tf.contrib.learn.MetricSpec(
        metric_fn=tf.contrib.metrics.streaming_accuracy, prediction_key="classes")}
    binary = tf.contrib.learn.DNNClassifier(hidden_units=[5], feature_columns=cols,
                                            model_dir=str(tmp_path / "b"), config=cfg)
    y = (target > 0).astype(np.int64)
    binary.fit(input_fn=_iris_inputs(y), steps=3)
    got = binary.evaluate(input_fn=_iris_inputs(y), steps=1, metrics=mine)
    assert list(got) == [
        "loss", "accuracy", "labels/prediction_mean", "labels/actual_label_mean",
        "accuracy/baseline_label_mean", "auc", "auc_precision_recall",
        "accuracy/threshold_0.500000_mean", "precision/positive_threshold_0.500000_mean",
        "recall/positive_threshold_0.500000_mean", "my_acc", "global_step"]
    # TF 1.15: loss 0.368, prediction mean 0.508, actual label mean 0.667
    np.testing.assert_allclose([got["loss"], got["labels/prediction_mean"]], [0.368, 0.508],
                               atol=1e-3)
    linear = tf.contrib.learn.LinearClassifier(feature_columns=cols, n_classes=3,
                                               model_dir=str(tmp_path / "l"), config=cfg)
    linear.fit(input_fn=_iris_inputs(target), steps=3)
    got = linear.evaluate(input_fn=_iris_inputs(target), steps=1, metrics=mine)
    assert list(got) == ["loss", "accuracy", "my_acc", "global_step"]
    np.testing.assert_allclose([got["loss"], got["accuracy"]], [1.108, 0.48], atol=1e-3)


def _branch_tensor_program():
    k = tf.placeholder(tf.bool, [])
    made = []

    def true_fn():
        a = tf.constant(3.0) * 2
        made.append(a)
        return a + 1

    r = tf.cond(k, true_fn, lambda: tf.constant(0.0))
    return k, r, made[0]


def test_a_branch_tensor_used_after_the_cond_is_dead_when_the_other_branch_ran():
    # TF 1.15: the op is built in the graph ('mul', not inside the branch), gives its value on
    # a step that ran the branch, and fails "Retval[0] does not have value" on the others
    with tf.Graph().as_default():
        k, r, inner = _branch_tensor_program()
        out = inner * 10
        assert out.name == "mul:0"
        with tf.Session() as s:
            assert s.run(r, {k: True}) == 7.0
            assert s.run(out, {k: True}) == 60.0
            with pytest.raises(tf.errors.InvalidArgumentError, match="Retval.0. does not have"):
                s.run(out, {k: False})
            assert s.run(r, {k: False}) == 0.0  # the session goes on


def test_an_assign_of_a_dead_branch_value_does_not_run():
    # TF 1.15: the branch's returned tensor itself (not the cond's output) is dead when the
    # other branch ran: the Assign reading it does not run and the variable keeps 5.0; a
    # later cond whose taken branch does not read it runs
    with tf.Graph().as_default():
        k = tf.placeholder(tf.bool, [])
        made = []

        def true_fn():
            a = tf.constant(5.0)
            made.append(a)
            return a

        tf.cond(k, true_fn, lambda: tf.constant(1.0))
        v = tf.Variable(0.0)
        assign = tf.assign(v, made[0])
        later = tf.cond(tf.logical_not(k), lambda: tf.constant(-1.0), lambda: made[0] * 2)
        with tf.Session() as s:
            s.run(v.initializer)
            assert s.run(assign, {k: True}) == 5.0
            assert s.run(later, {k: True}) == 10.0
            with pytest.raises(tf.errors.InvalidArgumentError, match="Retval.0. does not have"):
                s.run(assign, {k: False})
            assert s.run(later, {k: False}) == -1.0
            assert s.run(v) == 5.0


def test_merged_summary_with_a_branch_summary_is_dead_when_the_branch_did_not_run():
    # TF 1.15: merge_all's MergeSummary reads the branch's summary; on a step that took the
    # other branch the merged summary has no value
    with tf.Graph().as_default():
        k = tf.placeholder(tf.bool, [])
        tf.summary.scalar("outside", tf.constant(2.0))

        def true_fn():
            tf.summary.scalar("inside", tf.constant(1.5))
            return tf.constant(1)

        tf.cond(k, true_fn, lambda: tf.constant(0))
        merged = tf.summary.merge_all()
        with tf.Session() as s:
            got = tf.Summary.FromString(s.run(merged, {k: True}))
            assert [(v.tag, v.simple_value) for v in got.value] == [
                ("outside", 2.0), ("cond/inside", 1.5)]
            with pytest.raises(tf.errors.InvalidArgumentError, match="Retval.0. does not have"):
                s.run(merged, {k: False})


def test_iter_of_a_graph_tensor_is_a_generator_whose_first_step_raises():
    # TF 1.15: iter(x) returns a generator; next() raises OperatorNotAllowedInGraphError with
    # exactly these words (no more), as does unpacking and ``in``
    x = tf.constant([1, 2])
    it = iter(x)
    assert type(it).__name__ == "generator"
    words = ("iterating over `tf.Tensor` is not allowed in Graph execution. Use Eager "
             "execution or decorate this function with @tf.function.")
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError) as e:
        next(it)
    assert str(e.value) == words
    with pytest.raises(TypeError, match="^iterating over"):
        _a, _b = x
    with pytest.raises(TypeError, match="^iterating over"):
        _ = 1 in x
