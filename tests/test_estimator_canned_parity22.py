"""TF 1.15 parity of the canned Estimators, their heads and their training loops as TF 1.x
programs use them: each expected value below is what the same program printed under TF 1.15."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_mean_of_a_batch_size_skips_its_count_on_the_step_that_runs_out():
    # An eval loop's last step ends in OutOfRangeError; TF 1.15 adds nothing to a mean's
    # count then (its count update waits on the values), even where the batch's shape is
    # also taken by an earlier op (which tideflow's CSE merges with this one): 6.0 in TF.
    x = tf.data.Dataset.from_tensor_slices(np.ones((12, 2), np.float32)).batch(6) \
        .make_one_shot_iterator().get_next()
    other = tf.reduce_sum(tf.shape(x))
    mean, update = tf.metrics.mean(tf.cast(tf.shape(x)[0], tf.float32))
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        step = tf.group(update, other)
        for _ in range(2):
            sess.run(step)
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(step)
        assert sess.run(mean) == 6.0


def _xy_input(x, y, batch):
    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(batch)
    return input_fn


def test_wide_and_deep_without_hidden_units_fails_when_the_model_is_built(tmp_path):
    # TF 1.15 constructs the estimator and raises only in train (its model_fn), in these words
    num = tf.feature_column.numeric_column("x", shape=[2])
    est = tf.estimator.DNNLinearCombinedClassifier(model_dir=str(tmp_path),
                                                   dnn_feature_columns=[num])
    x = np.ones((4, 2), np.float32)
    with pytest.raises(ValueError) as e:
        est.train(_xy_input(x, np.zeros(4, np.int64), 2), steps=1)
    assert str(e.value) == ("dnn_hidden_units must be defined when dnn_feature_columns is "
                            "specified.")


def test_train_and_evaluate_checks_the_eval_spec_first(tmp_path):
    # TF 1.15 with the two specs swapped names the eval spec
    num = tf.feature_column.numeric_column("x", shape=[2])
    est = tf.estimator.LinearRegressor([num], model_dir=str(tmp_path))
    input_fn = _xy_input(np.ones((4, 2), np.float32), np.ones((4, 1), np.float32), 2)
    train_spec = tf.estimator.TrainSpec(input_fn, max_steps=1)
    eval_spec = tf.estimator.EvalSpec(input_fn)
    with pytest.raises(TypeError, match=r"^`eval_spec` must have type `tf.estimator.EvalSpec`. "
                       r"Got: <class '.*TrainSpec'>$"):
        tf.estimator.train_and_evaluate(est, eval_spec, train_spec)
