"""Estimator behaviours found by running TF 1.15's ``estimator_test.py`` against tideflow:
subclasses may add members but not redefine Estimator's own; an empty ``model_dir`` means
"none given"; ``EstimatorSpec`` takes any mode value (a model_fn without a ``mode`` argument
passes ``None``); hook and configuration errors in TF's words; ``function_utils.fn_args``;
warm starting from a SavedModel directory and, without a checkpoint, in evaluate and predict;
evaluation summaries (summary-proto metrics tagged ``<key>/<i>``, array metrics as tensor
summaries, the evaluated checkpoint path); predict's warning for an input that never ends."""

import glob
import os
import tempfile
from unittest import mock

import numpy as np
import pytest

import tideflow as tf

Estimator = tf.estimator.Estimator
Spec = tf.estimator.EstimatorSpec


def _step_model_fn(features, labels, mode):
    del features, labels
    return Spec(mode, loss=tf.constant(2.0), predictions=tf.constant([[5.0]]),
                train_op=tf.assign_add(tf.train.get_global_step(), 1))


def _input_fn():
    return {"a": tf.constant([[3.0], [4.0]])}, tf.constant([[0.0], [1.0]])


def test_subclass_cannot_redefine_estimator_members():
    class Mine(Estimator):
        def __init__(self):
            super().__init__(model_fn=_step_model_fn)

        def evaluate(self, input_fn, steps=None):  # redefines a member
            return {}

    with pytest.raises(ValueError, match="cannot override members of Estimator.*evaluate"):
        Mine()


def test_subclass_may_add_members_and_tideflow_canned_ones_are_trusted():
    class Mine(Estimator):
        def __init__(self):
            super().__init__(model_fn=_step_model_fn)

        def score(self):
            return 1

        def latest_checkpoint(self):  # allowed, as in TF
            return None

    assert Mine().score() == 1
    fc = [tf.feature_column.numeric_column("a")]
    tf.estimator.LinearRegressor(fc)


def test_empty_model_dir_means_a_temporary_one():
    with mock.patch.object(tempfile, "mkdtemp", return_value="/tmp/h13_empty_dir"):
        est = Estimator(model_fn=_step_model_fn, model_dir="")
    assert est.model_dir == "/tmp/h13_empty_dir"
    assert est.config.model_dir == "/tmp/h13_empty_dir"


def test_spec_with_mode_none_from_model_fn_without_mode():
    def model_fn(features):
        del features
        return Spec(mode=None, loss=tf.constant(1.0),
                    train_op=tf.assign_add(tf.train.get_global_step(), 1))

    est = Estimator(model_fn=model_fn)
    est.train(lambda: {"a": tf.constant([1.0])}, steps=3)
    assert tf.train.load_variable(est.model_dir, "global_step") == 3


def test_hook_type_errors_in_tf_words():
    est = Estimator(model_fn=_step_model_fn)
    with pytest.raises(TypeError, match="Hooks must be a SessionRunHook, given: nope"):
        est.train(_input_fn, steps=1, hooks=["nope"])
    est.train(_input_fn, steps=1)
    with pytest.raises(TypeError, match="must be a SessionRunHook"):
        est.evaluate(_input_fn, steps=1, hooks=[3])
    with pytest.raises(TypeError, match="must be a SessionRunHook"):
        next(est.predict(_input_fn, hooks=[3]))


@pytest.mark.parametrize("task", ["evaluator", "ps"])
def test_train_refuses_evaluator_and_ps_configs(task):
    class Cfg(tf.estimator.RunConfig):
        @property
        def task_type(self):
            return task

    est = Estimator(model_fn=_step_model_fn, config=Cfg())
    with pytest.raises(ValueError, match="tf.estimator.train_and_evaluate"):
        est.train(_input_fn, steps=1)


def test_function_utils_fn_args():
    from tideflow.python.util import function_utils

    def f(a, b, c=1):
        return a

    class K:
        def __call__(self, x, y):
            return x

        def meth(self, p):
            return p

    import functools

    assert function_utils.fn_args(f) == ("a", "b", "c")
    assert function_utils.fn_args(functools.partial(f, c=2)) == ("a", "b")
    assert function_utils.fn_args(K()) == ("x", "y")
    assert function_utils.fn_args(K().meth) == ("p",)
    est = Estimator(model_fn=lambda features, labels, params: None)
    assert set(function_utils.fn_args(est.model_fn)) == {"features", "labels", "mode",
                                                         "config"}


def _var_model_fn(init):
    def model_fn(features, labels, mode):
        del features, labels
        w = tf.get_variable("w", initializer=init)
        return Spec(mode, loss=tf.constant(0.5), predictions=tf.reshape(w * 2.0, [1, 1]),
                    eval_metric_ops={"w_mean": tf.metrics.mean(w)},
                    train_op=tf.assign_add(tf.train.get_global_step(), 1),
                    export_outputs={"out": tf.estimator.export.PredictOutput(
                        {"w": tf.reshape(w, [1])})})
    return model_fn


def test_warm_start_from_saved_model_and_without_checkpoint():
    first = Estimator(model_fn=_var_model_fn(7.0))
    first.train(_input_fn, steps=2)
    receiver = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"a": tf.placeholder(tf.float32, [None, 1])})
    export_dir = first.export_saved_model(os.path.join(tempfile.mkdtemp(), "ex"), receiver)
    # evaluate and predict with nothing in model_dir read the warm-start source
    for source in (export_dir, first.model_dir):
        est = Estimator(model_fn=_var_model_fn(-1.0), warm_start_from=source)
        res = est.evaluate(_input_fn, steps=1)
        assert res["w_mean"] == pytest.approx(7.0)
        assert res["global_step"] == 0
        assert next(est.predict(_input_fn)) == pytest.approx([14.0])
    # training from a SavedModel directory: variables, not the global step
    est = Estimator(model_fn=_var_model_fn(-1.0),
                    warm_start_from=tf.estimator.WarmStartSettings(export_dir))
    est.train(_input_fn, steps=3)
    assert est.get_variable_value("w") == pytest.approx(7.0)
    assert est.get_variable_value("global_step") == 3
    # once the model has its own checkpoint, that one is read
    est2 = Estimator(model_fn=_var_model_fn(-1.0), warm_start_from=first.model_dir)
    est2.train(_input_fn, steps=1)
    assert est2.evaluate(_input_fn, steps=1)["global_step"] == 1


def _eval_tags(est):
    tf.summary.FileWriterCache.clear()
    tags = {}
    for path in sorted(glob.glob(os.path.join(est.eval_dir(), "events*"))):
        for event in tf.train.summary_iterator(path):
            for v in event.summary.value:
                tags[v.tag] = v
    return tags


def test_eval_summaries_of_protos_arrays_and_checkpoint_path():
    def model_fn(features, labels, mode):
        del features, labels
        imgs = tf.summary.image("pic", tf.ones([4, 2, 2, 1]), max_outputs=2)
        return Spec(mode, loss=tf.constant(1.0),
                    train_op=tf.assign_add(tf.train.get_global_step(), 1),
                    eval_metric_ops={"pics": (imgs, tf.no_op()),
                                     "vec": tf.metrics.mean_tensor(tf.constant([1.0, 3.0]))})

    est = Estimator(model_fn=model_fn)
    est.train(_input_fn, steps=2)
    res = est.evaluate(_input_fn, steps=2)
    np.testing.assert_allclose(res["vec"], [1.0, 3.0])
    tags = _eval_tags(est)
    assert {"pics/0", "pics/1", "vec", "loss", "checkpoint_path"} <= set(tags)
    assert "pics" not in tags
    np.testing.assert_allclose(tf.make_ndarray(tags["vec"].tensor), [1.0, 3.0])
    assert tf.make_ndarray(tags["checkpoint_path"].tensor) == tf.compat.as_bytes(
        est.latest_checkpoint())


def test_eval_without_checkpoint_writes_no_checkpoint_path():
    est = Estimator(model_fn=_step_model_fn)
    assert est.evaluate(_input_fn, steps=1)["loss"] == pytest.approx(2.0)
    assert "checkpoint_path" not in _eval_tags(est)


def test_predict_warns_when_input_never_ends():
    est = Estimator(model_fn=_step_model_fn)
    est.train(_input_fn, steps=1)
    with mock.patch.object(tf.logging, "warning") as warn:
        next(est.predict(_input_fn))
    assert any("does not use tf.data.Dataset or contain a QueueRunner" in str(c)
               for c in warn.call_args_list)

    def dataset_input():
        return tf.data.Dataset.from_tensors({"a": tf.constant([[1.0]])})

    def echo_model_fn(features, mode):  # predictions read the input, so predict ends
        return Spec(mode, predictions=features["a"] * 2.0)

    est = Estimator(model_fn=echo_model_fn, model_dir=est.model_dir)
    with mock.patch.object(tf.logging, "warning") as warn:
        assert list(est.predict(dataset_input)) == [pytest.approx([2.0])]
    assert not any("QueueRunner" in str(c) for c in warn.call_args_list)


def test_export_before_training_uses_the_warm_start_checkpoint():
    first = Estimator(model_fn=_var_model_fn(3.5))
    first.train(_input_fn, steps=1)
    est = Estimator(model_fn=_var_model_fn(-1.0), warm_start_from=first.model_dir)
    receiver = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"a": tf.placeholder(tf.float32, [None, 1])})
    export_dir = est.export_saved_model(tempfile.mkdtemp(), receiver)
    variables_path = os.path.join(tf.compat.as_text(export_dir), "variables", "variables")
    assert tf.train.load_variable(variables_path, "w") == pytest.approx(3.5)
    with pytest.raises(ValueError, match="Couldn't find trained model"):
        Estimator(model_fn=_var_model_fn(1.0)).export_saved_model(tempfile.mkdtemp(), receiver)


def test_contrib_heads_report_their_name():
    assert tf.contrib.estimator.binary_classification_head(name="bin").name == "bin"
    assert tf.contrib.estimator.regression_head().name is None
    head = tf.contrib.estimator.multi_class_head(4, name="mc")
    assert (head.name, head.logits_dimension) == ("mc", 4)


def _supervised_input():
    return {"a": tf.constant([[1.0], [2.0]], name="feat_a")}, tf.constant([[1.0], [0.0]])


def _sup_model_fn(features, labels, mode):
    w = tf.get_variable("w", initializer=2.0)
    pred = tf.multiply(features["a"], w, name=f"{mode}_pred")
    if mode == ModeKeys.PREDICT:
        return Spec(mode, predictions={"p": pred})
    loss = tf.reduce_mean(tf.square(pred - labels))
    return Spec(mode, loss=loss, predictions={"p": pred},
                train_op=tf.assign_add(tf.train.get_global_step(), 1),
                eval_metric_ops={"err": tf.metrics.mean_absolute_error(labels, pred)})


ModeKeys = tf.estimator.ModeKeys


def _load(export_dir, tags):
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        meta = tf.saved_model.loader.load(sess, tags, export_dir)
        return meta, {op.name for op in g.get_operations()}, sess.run("w:0")


def test_export_for_training_and_evaluation_modes():
    est = Estimator(model_fn=_sup_model_fn)
    est.train(_supervised_input, steps=1)
    sup = tf.estimator.export.build_supervised_input_receiver_fn_from_input_fn(
        _supervised_input)
    serve = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"a": tf.placeholder(tf.float32, [None, 1])})
    d = est.experimental_export_all_saved_models(
        tempfile.mkdtemp(), {ModeKeys.TRAIN: sup, ModeKeys.EVAL: sup, ModeKeys.PREDICT: serve})
    meta, names, w = _load(d, ["train"])
    assert "train_pred" in names and "eval_pred" not in names and w == 2.0
    sig = meta.signature_def["train"]
    assert sig.method_name == "tensorflow/supervised/training"
    assert {"loss", "predictions/p"} <= set(sig.outputs)
    meta, names, _ = _load(d, ["eval"])
    assert "eval_pred" in names and "train_pred" not in names
    sig = meta.signature_def["eval"]
    assert sig.method_name == "tensorflow/supervised/eval"
    assert {"loss", "metrics/err/value", "metrics/err/update_op"} <= set(sig.outputs)
    meta, names, _ = _load(d, ["serve"])
    assert "infer_pred" in names and "feat_a" not in names
    # one mode through export_saved_model
    d2 = est.export_saved_model(tempfile.mkdtemp(), sup, experimental_mode=ModeKeys.EVAL)
    assert "eval" in _load(d2, ["eval"])[0].signature_def


def test_default_session_config_runs_the_meta_optimizer_once():
    est = Estimator(model_fn=_step_model_fn)
    assert est._session_config.allow_soft_placement
    from tideflow.core.protobuf import rewriter_config_pb2

    rewrite = est._session_config.graph_options.rewrite_options
    assert rewrite.meta_optimizer_iterations == rewriter_config_pb2.RewriterConfig.ONE
