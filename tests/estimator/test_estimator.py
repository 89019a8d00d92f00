"""``tf.estimator.Estimator`` with a custom model_fn: training on the digits, resuming from the
model_dir's checkpoints, evaluation metrics against NumPy, prediction, SavedModel export, and
the errors TF raises."""

import glob
import os

import numpy as np
import pytest

import tideflow as tf
from tideflow.summary.summary_iterator import summary_iterator


def softmax_model_fn(features, labels, mode, params):
    """Softmax regression on features['x'] (64 pixels) into 10 classes."""
    logits = tf.layers.dense(features["x"], 10, name="logits")
    predictions = {"class_ids": tf.argmax(logits, 1),
                   "probabilities": tf.nn.softmax(logits),
                   "logits": logits}
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    opt = tf.train.GradientDescentOptimizer(params["learning_rate"])
    train_op = opt.minimize(loss, global_step=tf.train.get_global_step())
    metrics = {"accuracy": tf.metrics.accuracy(labels, predictions["class_ids"]),
               "mean_label": tf.metrics.mean(tf.cast(labels, tf.float32))}
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      eval_metric_ops=metrics, predictions=predictions)


def train_input(x, y, batch_size=64):
    return tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=batch_size,
                                              num_epochs=None, shuffle=True)


def eval_input(x, y=None, batch_size=256):
    return tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=batch_size,
                                              num_epochs=1, shuffle=False)


def make_estimator(model_dir, **config):
    cfg = tf.estimator.RunConfig(tf_random_seed=1, **config)
    return tf.estimator.Estimator(softmax_model_fn, model_dir=str(model_dir), config=cfg,
                                  params={"learning_rate": 0.5})


def test_mode_keys_and_run_config_defaults():
    assert (tf.estimator.ModeKeys.TRAIN, tf.estimator.ModeKeys.EVAL,
            tf.estimator.ModeKeys.PREDICT) == ("train", "eval", "infer")
    cfg = tf.estimator.RunConfig()
    assert cfg.save_summary_steps == 100
    assert cfg.save_checkpoints_secs == 600 and cfg.save_checkpoints_steps is None
    assert cfg.keep_checkpoint_max == 5 and cfg.log_step_count_steps == 100
    steps = cfg.replace(save_checkpoints_steps=10)
    assert steps.save_checkpoints_steps == 10 and steps.save_checkpoints_secs is None
    assert cfg.save_checkpoints_secs == 600  # replace makes a copy
    with pytest.raises(ValueError, match="cannot be both set"):
        tf.estimator.RunConfig(save_checkpoints_steps=1, save_checkpoints_secs=1)
    with pytest.raises(ValueError, match="Replacing is_chief is not supported"):
        cfg.replace(is_chief=False)
    assert tf.estimator.SessionRunHook is tf.train.SessionRunHook
    assert tf.estimator.LoggingTensorHook is tf.train.LoggingTensorHook


def test_train_reaches_accuracy_and_resumes(tmp_path, digits):
    x, y, xt, yt = digits
    est = make_estimator(tmp_path)
    assert est.model_dir == str(tmp_path) and est.params == {"learning_rate": 0.5}
    est.train(train_input(x, y), steps=150)
    assert est.latest_checkpoint().endswith("model.ckpt-150")
    assert glob.glob(str(tmp_path / "model.ckpt-150.index"))
    assert glob.glob(str(tmp_path / "events.out.tfevents.*"))
    assert est.get_variable_value("global_step") == 150
    w150 = est.get_variable_value("logits/kernel")
    assert w150.shape == (64, 10)
    assert {"global_step", "logits/kernel", "logits/bias"} <= set(est.get_variable_names())

    # a second call resumes from the checkpoint: the step continues, the weights move on
    est.train(train_input(x, y), steps=150)
    assert est.get_variable_value("global_step") == 300
    assert not np.allclose(est.get_variable_value("logits/kernel"), w150)
    # max_steps already reached: returns at once, nothing changes
    est.train(train_input(x, y), max_steps=200)
    assert est.get_variable_value("global_step") == 300
    # max_steps beyond: trains up to it
    est.train(train_input(x, y), max_steps=320)
    assert est.get_variable_value("global_step") == 320

    results = est.evaluate(eval_input(xt, yt))
    assert results["global_step"] == 320
    assert results["accuracy"] > 0.9, results

    # the training events have the loss scalar at the summary steps
    tags = set()
    for path in glob.glob(str(tmp_path / "events.out.tfevents.*")):
        for ev in summary_iterator(path):
            tags.update(v.tag for v in ev.summary.value)
    assert "loss" in tags and "global_step/sec" in tags


def test_evaluate_metrics_match_numpy(tmp_path, digits):
    x, y, xt, yt = digits
    est = make_estimator(tmp_path)
    est.train(train_input(x, y), steps=40)
    w = est.get_variable_value("logits/kernel")
    b = est.get_variable_value("logits/bias")
    logits = xt @ w + b
    z = logits - logits.max(1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(1, keepdims=True))
    batch_losses = [-logp[i:i + 100][np.arange(len(yt[i:i + 100])), yt[i:i + 100]].mean()
                    for i in range(0, len(yt), 100)]

    results = est.evaluate(eval_input(xt, yt, batch_size=100), name="holdout")
    assert set(results) == {"accuracy", "mean_label", "loss", "global_step"}
    assert results["global_step"] == 40
    np.testing.assert_allclose(results["accuracy"], np.mean(logits.argmax(1) == yt),
                               rtol=1e-6)
    np.testing.assert_allclose(results["mean_label"], yt.mean(), rtol=1e-5)
    # "loss" is the mean over batches of the model_fn's loss
    np.testing.assert_allclose(results["loss"], np.mean(batch_losses), rtol=1e-4)

    # steps limits the number of batches
    two = est.evaluate(eval_input(xt, yt, batch_size=100), steps=2)
    np.testing.assert_allclose(two["accuracy"],
                               np.mean(logits[:200].argmax(1) == yt[:200]), rtol=1e-6)

    # the values are written as summaries into model_dir/eval_<name>, at the global step
    events = glob.glob(str(tmp_path / "eval_holdout" / "events.out.tfevents.*"))
    assert events
    found = {}
    for ev in summary_iterator(events[0]):
        for v in ev.summary.value:
            found[v.tag] = (ev.step, v.simple_value)
    assert found["accuracy"][0] == 40
    np.testing.assert_allclose(found["accuracy"][1], results["accuracy"], rtol=1e-6)
    assert os.path.isdir(est.eval_dir()) and est.eval_dir().endswith("eval")


def test_predict_yields_examples_and_batches(tmp_path, digits):
    x, y, xt, _ = digits
    est = make_estimator(tmp_path)
    est.train(train_input(x, y), steps=30)
    w = est.get_variable_value("logits/kernel")
    b = est.get_variable_value("logits/bias")
    expected = (xt[:50] @ w + b).argmax(1)

    preds = list(est.predict(eval_input(xt[:50], batch_size=16)))
    assert len(preds) == 50
    assert set(preds[0]) == {"class_ids", "probabilities", "logits"}
    assert preds[0]["probabilities"].shape == (10,)
    np.testing.assert_array_equal([p["class_ids"] for p in preds], expected)

    only = list(est.predict(eval_input(xt[:5]), predict_keys=["class_ids"]))
    assert all(set(p) == {"class_ids"} for p in only)
    batches = list(est.predict(eval_input(xt[:50], batch_size=16),
                               yield_single_examples=False))
    assert [len(bt["class_ids"]) for bt in batches] == [16, 16, 16, 2]
    with pytest.raises(ValueError, match="Expected to run at least one output"):
        list(est.predict(eval_input(xt[:5]), predict_keys=["nope"]))


def test_input_fn_may_return_a_dataset_and_take_params(tmp_path, digits):
    x, y, _, _ = digits
    seen = {}

    def input_fn(params, mode):
        seen["mode"], seen["params"] = mode, params
        ds = tf.data.Dataset.from_tensor_slices(({"x": x[:256]}, y[:256]))
        return ds.batch(32)

    est = make_estimator(tmp_path)
    est.train(input_fn)  # runs to the end of the dataset: 8 batches
    assert est.get_variable_value("global_step") == 8
    assert seen == {"mode": "train", "params": {"learning_rate": 0.5}}


def test_export_saved_model_gives_same_predictions(tmp_path, digits):
    x, y, xt, _ = digits
    est = make_estimator(tmp_path / "model")
    est.train(train_input(x, y), steps=30)
    expected = np.stack([p["probabilities"] for p in est.predict(eval_input(xt[:20]))])

    def serving_input_receiver_fn():
        images = tf.placeholder(tf.float32, [None, 64], name="images")
        return tf.estimator.export.ServingInputReceiver({"x": images}, {"images": images})

    export_dir = est.export_saved_model(str(tmp_path / "export"), serving_input_receiver_fn)
    assert isinstance(export_dir, bytes)
    export_dir = export_dir.decode()
    assert os.path.exists(os.path.join(export_dir, "saved_model.pb"))
    assert os.path.dirname(export_dir) == str(tmp_path / "export")

    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING],
                                          export_dir)
        sig = meta.signature_def["serving_default"]
        assert sig.method_name == tf.saved_model.signature_constants.PREDICT_METHOD_NAME
        assert set(sig.outputs) == {"class_ids", "probabilities", "logits"}
        feed = sess.graph.get_tensor_by_name(sig.inputs["images"].name)
        out = sess.graph.get_tensor_by_name(sig.outputs["probabilities"].name)
        got = sess.run(out, {feed: xt[:20]})
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)

    # raw placeholders shaped like given tensors (their names kept), under the old name
    raw_fn = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.placeholder(tf.float32, [7, 64], name="pixels")})
    raw_dir = est.export_savedmodel(str(tmp_path / "raw"), raw_fn).decode()
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], raw_dir)
        sig = meta.signature_def["serving_default"]
        assert sig.inputs["x"].name == "pixels:0"
        got = sess.run(sig.outputs["probabilities"].name, {"pixels:0": xt[:20]})
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    # assets_extra files are copied under assets.extra/
    extra = tmp_path / "notes.txt"
    extra.write_text("hello")
    with_assets = est.export_saved_model(str(tmp_path / "assets"), serving_input_receiver_fn,
                                         assets_extra={"doc/notes.txt": str(extra)}).decode()
    with open(os.path.join(with_assets, "assets.extra", "doc", "notes.txt")) as f:
        assert f.read() == "hello"
    with pytest.raises(ValueError, match="Couldn't find trained model"):
        make_estimator(tmp_path / "empty").export_saved_model(str(tmp_path / "e2"),
                                                              serving_input_receiver_fn)


def test_parsing_serving_input_and_classification_output(tmp_path):
    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [2, 3], initializer=tf.constant_initializer(
            [[1.0, 0.0, -1.0], [0.0, 2.0, 1.0]]))
        logits = tf.matmul(features["v"], w)
        probs = tf.nn.softmax(logits)
        classes = tf.tile(tf.constant([["a", "b", "c"]]), [tf.shape(logits)[0], 1])
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(
                mode, predictions={"probs": probs},
                export_outputs={"serving_default": tf.estimator.export.ClassificationOutput(
                    scores=probs, classes=classes),
                    "pred": tf.estimator.export.PredictOutput({"logits": logits})})
        loss = tf.reduce_sum(logits) * 0.0
        return tf.estimator.EstimatorSpec(
            mode, loss=loss, train_op=tf.assign_add(tf.train.get_global_step(), 1))

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "m"))
    est.train(lambda: ({"v": tf.zeros([1, 2])}, tf.zeros([1])), steps=1)
    spec = {"v": tf.FixedLenFeature([2], tf.float32)}
    fn = tf.estimator.export.build_parsing_serving_input_receiver_fn(spec)
    export_dir = est.export_saved_model(str(tmp_path / "exp"), fn).decode()

    example = tf.train.Example(features=tf.train.Features(feature={
        "v": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5, 1.0]))}))
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], export_dir)
        sig = meta.signature_def["serving_default"]
        assert sig.method_name == tf.saved_model.signature_constants.CLASSIFY_METHOD_NAME
        inp = sess.graph.get_tensor_by_name(sig.inputs["inputs"].name)
        scores = sess.graph.get_tensor_by_name(sig.outputs["scores"].name)
        got = sess.run(scores, {inp: [example.SerializeToString()]})
        assert "pred" in meta.signature_def
    logits = np.array([0.5, 2.0, 0.5])
    np.testing.assert_allclose(got[0], np.exp(logits) / np.exp(logits).sum(), rtol=1e-5)


def test_model_fn_signature_introspection(tmp_path):
    calls = []

    def features_only(features):
        calls.append("f")
        v = tf.get_variable("v", [], initializer=tf.zeros_initializer())
        return tf.estimator.EstimatorSpec(
            "infer", predictions={"y": features["a"] + v})

    est = tf.estimator.Estimator(features_only, model_dir=str(tmp_path))
    preds = list(est.predict(
        lambda: tf.data.Dataset.from_tensor_slices({"a": [1.0, 2.0]}).batch(2)))
    assert [p["y"] for p in preds] == [1.0, 2.0] and calls == ["f"]

    with pytest.raises(ValueError, match="must include features argument"):
        tf.estimator.Estimator(lambda x, labels: None)
    with pytest.raises(ValueError, match="does not include params argument"):
        tf.estimator.Estimator(features_only, params={"a": 1})
    with pytest.raises(ValueError, match="model_fn does not take labels"):
        est.train(lambda: ({"a": tf.constant([1.0])}, tf.constant([1.0])), steps=1)
    with pytest.raises(ValueError, match="different values"):
        tf.estimator.Estimator(features_only, model_dir=str(tmp_path),
                               config=tf.estimator.RunConfig(model_dir=str(tmp_path / "x")))
    # no model_dir: a temporary one
    tmp_est = tf.estimator.Estimator(features_only)
    assert os.path.isdir(tmp_est.model_dir)


def test_estimator_spec_validation():
    with tf.Graph().as_default():
        loss = tf.constant(1.0)
        train_op = tf.no_op()
        with pytest.raises(ValueError, match="Missing loss"):
            tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.TRAIN, train_op=train_op)
        with pytest.raises(ValueError, match="Missing train_op"):
            tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.TRAIN, loss=loss)
        with pytest.raises(ValueError, match="Missing loss"):
            tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL)
        with pytest.raises(ValueError, match="Missing predictions"):
            tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.PREDICT)
        with pytest.raises(ValueError, match="Loss must be scalar"):
            tf.estimator.EstimatorSpec("eval", loss=tf.constant([1.0, 2.0]))
        with pytest.raises(TypeError, match="eval_metric_ops"):
            tf.estimator.EstimatorSpec("eval", loss=loss, eval_metric_ops={"m": loss})
        with pytest.raises(TypeError, match="SessionRunHook"):
            tf.estimator.EstimatorSpec("train", loss=loss, train_op=train_op,
                                       training_hooks=[object()])
        spec = tf.estimator.EstimatorSpec("eval", loss=tf.constant([2.0]))
        assert spec.loss.shape.ndims == 0 and spec.predictions == {}
        pred = tf.estimator.EstimatorSpec("infer", predictions={"p": loss})
        out = pred.export_outputs["serving_default"]
        assert isinstance(out, tf.estimator.export.PredictOutput)
        assert out.outputs == {"p": loss}
    with tf.Graph().as_default(), pytest.raises(ValueError, match="default graph"):
        tf.estimator.EstimatorSpec("eval", loss=loss)


def test_train_argument_errors_and_hooks(tmp_path, digits):
    x, y, _, _ = digits
    est = make_estimator(tmp_path)
    with pytest.raises(ValueError, match="Can not provide both steps and max_steps"):
        est.train(train_input(x, y), steps=1, max_steps=2)
    with pytest.raises(ValueError, match="Must specify steps > 0"):
        est.train(train_input(x, y), steps=0)
    with pytest.raises(TypeError, match="SessionRunHook"):
        est.train(train_input(x, y), steps=1, hooks=[object()])

    class Counter(tf.train.SessionRunHook):
        def __init__(self):
            self.steps = 0

        def after_run(self, run_context, run_values):
            self.steps += 1

    class Listener(tf.train.CheckpointSaverListener):
        def __init__(self):
            self.saved = []

        def after_save(self, session, global_step_value):
            self.saved.append(global_step_value)

    counter, listener = Counter(), Listener()
    est = make_estimator(tmp_path / "h", save_checkpoints_steps=5)
    est.train(train_input(x, y), steps=12, hooks=[counter], saving_listeners=[listener])
    assert counter.steps == 12
    assert listener.saved == [0, 5, 10, 12]
    # keep_checkpoint_max=5 by default: the oldest checkpoints are gone
    state = tf.train.get_checkpoint_state(str(tmp_path / "h"))
    assert state.model_checkpoint_path.endswith("model.ckpt-12")


def test_train_and_evaluate(tmp_path, digits):
    x, y, xt, yt = digits
    est = make_estimator(tmp_path, save_checkpoints_steps=50)
    train_spec = tf.estimator.TrainSpec(train_input(x, y), max_steps=120)

    def serving_input_receiver_fn():
        images = tf.placeholder(tf.float32, [None, 64])
        return tf.estimator.export.ServingInputReceiver({"x": images}, images)

    eval_spec = tf.estimator.EvalSpec(
        eval_input(xt, yt), steps=None, throttle_secs=1,
        exporters=tf.estimator.FinalExporter("final", serving_input_receiver_fn))
    metrics, exports = tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
    assert metrics["global_step"] == 120 and metrics["accuracy"] > 0.8
    assert len(exports) == 1 and os.path.exists(os.path.join(exports[0], b"saved_model.pb"))
    with pytest.raises(ValueError, match="max_steps > 0"):
        tf.estimator.TrainSpec(train_input(x, y), max_steps=0)
    with pytest.raises(TypeError, match="must be callable"):
        tf.estimator.EvalSpec(input_fn=None)


def test_warm_start_copies_trained_variables(tmp_path, digits):
    x, y, _xt, _ = digits
    first = make_estimator(tmp_path / "a")
    first.train(train_input(x, y), steps=20)
    warm = tf.estimator.Estimator(softmax_model_fn, model_dir=str(tmp_path / "b"),
                                  params={"learning_rate": 0.0},
                                  warm_start_from=str(tmp_path / "a"))
    warm.train(train_input(x, y), steps=1)
    np.testing.assert_allclose(warm.get_variable_value("logits/kernel"),
                               first.get_variable_value("logits/kernel"))
    assert warm.get_variable_value("global_step") == 1


def test_early_stopping_hook_reads_the_eval_results(tmp_path, digits):
    x, y, xt, yt = digits
    est = make_estimator(tmp_path, save_checkpoints_steps=20)
    # (the hooks' stop flag, signal_early_stopping/STOP, is a variable of the checkpoints
    # from the start: TF 1.15 cannot resume a checkpoint without it under such a hook)
    keep = tf.estimator.experimental.stop_if_higher_hook(est, "accuracy", 1.5,
                                                         run_every_secs=None,
                                                         run_every_steps=100)
    # the evaluations at steps 20 and 40 are written to model_dir/eval, as evaluate does
    est.train(train_input(x, y), steps=20, hooks=[keep])
    first = est.evaluate(eval_input(xt, yt))
    est.train(train_input(x, y), steps=20, hooks=[keep])
    second = est.evaluate(eval_input(xt, yt))
    from tideflow.estimator.experimental import read_eval_metrics

    seen = read_eval_metrics(est.eval_dir())
    assert list(seen) == [20, 40]
    np.testing.assert_allclose(seen[40]["loss"], second["loss"], rtol=1e-6)

    # accuracy already above the threshold: training stops at the first check (first step)
    hook = tf.estimator.experimental.stop_if_higher_hook(
        est, "accuracy", min(first["accuracy"], second["accuracy"]) - 0.01,
        run_every_secs=None, run_every_steps=5)
    est.train(train_input(x, y), steps=100, hooks=[hook])
    assert est.get_variable_value("global_step") == 41
    # a threshold never crossed: all the steps run
    never = tf.estimator.experimental.stop_if_higher_hook(
        est, "accuracy", 1.5, run_every_secs=None, run_every_steps=2)
    est.train(train_input(x, y), steps=4, hooks=[never])
    assert est.get_variable_value("global_step") == 45
    # the loss never went up since step 20: no stop for 100 steps without decrease
    patient = tf.estimator.experimental.stop_if_no_decrease_hook(
        est, "loss", 100, run_every_secs=None, run_every_steps=1)
    est.train(train_input(x, y), steps=3, hooks=[patient])
    assert est.get_variable_value("global_step") == 48


def test_in_memory_evaluator_hook_evaluates_during_training(tmp_path, digits):
    x, y, xt, yt = digits
    est = make_estimator(tmp_path)
    hook = tf.estimator.experimental.InMemoryEvaluatorHook(
        est, eval_input(xt, yt), name="mem", every_n_iter=10)
    est.train(train_input(x, y), steps=25, hooks=[hook])
    from tideflow.estimator.experimental import read_eval_metrics

    seen = read_eval_metrics(est.eval_dir("mem"))
    # as TF 1.15's: at the start, then every 10 steps from there, and at the end
    assert list(seen) == [0, 10, 20, 25]
    # the last one is the trained model's evaluation, without any checkpoint of it
    final = est.evaluate(eval_input(xt, yt))
    np.testing.assert_allclose(seen[25]["accuracy"], final["accuracy"], rtol=1e-6)
    np.testing.assert_allclose(seen[25]["loss"], final["loss"], rtol=1e-5)
    assert seen[0]["accuracy"] < seen[25]["accuracy"]
    with pytest.raises(ValueError, match="invalid every_n_iter"):
        tf.estimator.experimental.InMemoryEvaluatorHook(est, eval_input(xt, yt),
                                                        every_n_iter=0)


def test_best_exporter_exports_only_improvements(tmp_path, digits):
    x, y, xt, yt = digits
    est = make_estimator(tmp_path / "m")

    def serving_input_receiver_fn():
        images = tf.placeholder(tf.float32, [None, 64])
        return tf.estimator.export.ServingInputReceiver({"x": images}, images)

    exporter = tf.estimator.BestExporter(serving_input_receiver_fn=serving_input_receiver_fn,
                                         exports_to_keep=1)
    out = str(tmp_path / "best")
    est.train(train_input(x, y), steps=10)
    first = est.evaluate(eval_input(xt, yt))
    # as TF: the events already hold this evaluation, which is not better than itself
    assert exporter.export(est, out, est.latest_checkpoint(), first, False) is None
    est.train(train_input(x, y), steps=30)
    better = est.evaluate(eval_input(xt, yt))
    assert better["loss"] < first["loss"]
    path = exporter.export(est, out, est.latest_checkpoint(), better, False)
    assert path is not None and os.path.exists(os.path.join(path, b"saved_model.pb"))
    worse = dict(better, loss=better["loss"] + 1.0)
    assert exporter.export(est, out, est.latest_checkpoint(), worse, False) is None
    assert len(os.listdir(out)) == 1
