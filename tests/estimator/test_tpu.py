"""``tf.estimator.tpu.TPUEstimator`` on the CPU, as BERT-style programs run it with
``use_tpu=False``: batch sizes through params, eval_metrics as (metric_fn, tensors),
scaffold_fn."""

import numpy as np
import pytest

import tideflow as tf

tpu = tf.estimator.tpu


def test_tpu_estimator_on_cpu(tmp_path, digits):
    x, y, xt, yt = digits
    seen_batch_sizes = {}
    init_calls = []

    def input_fn_builder(features, labels, is_training):
        def input_fn(params):
            batch_size = params["batch_size"]
            seen_batch_sizes.setdefault("input", []).append(batch_size)
            ds = tf.data.Dataset.from_tensor_slices(({"x": features}, labels))
            if is_training:
                ds = ds.repeat().shuffle(500)
            return ds.batch(batch_size, drop_remainder=is_training)
        return input_fn

    def model_fn(features, labels, mode, params):
        seen_batch_sizes.setdefault(mode, params["batch_size"])
        logits = tf.layers.dense(features["x"], 10, name="out")
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tpu.TPUEstimatorSpec(mode, predictions={"probabilities":
                                                           tf.nn.softmax(logits)})
        per_example = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                                      logits=logits)
        loss = tf.reduce_mean(per_example)

        def scaffold_fn():
            init_calls.append(mode)
            return tf.train.Scaffold()

        if mode == tf.estimator.ModeKeys.TRAIN:
            train_op = tf.train.GradientDescentOptimizer(0.5).minimize(
                loss, global_step=tf.train.get_global_step())
            return tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op,
                                        scaffold_fn=scaffold_fn)

        def metric_fn(per_example_loss, label_ids, logits):
            return {"eval_accuracy": tf.metrics.accuracy(label_ids, tf.argmax(logits, 1)),
                    "eval_loss": tf.metrics.mean(per_example_loss)}

        return tpu.TPUEstimatorSpec(mode, loss=loss,
                                    eval_metrics=(metric_fn, [per_example, labels, logits]),
                                    scaffold_fn=scaffold_fn)

    config = tpu.RunConfig(model_dir=str(tmp_path), save_checkpoints_steps=100,
                           tpu_config=tpu.TPUConfig(
                               iterations_per_loop=100, num_shards=8,
                               per_host_input_for_training=tpu.InputPipelineConfig.PER_HOST_V2))
    est = tpu.TPUEstimator(use_tpu=False, model_fn=model_fn, config=config,
                           train_batch_size=32, eval_batch_size=64, predict_batch_size=16)
    est.train(input_fn_builder(x, y, True), max_steps=200)
    results = est.evaluate(input_fn_builder(xt, yt, False))
    assert results["global_step"] == 200 and results["eval_accuracy"] > 0.85
    np.testing.assert_allclose(results["eval_loss"], results["loss"], rtol=0.05)
    preds = list(est.predict(input_fn_builder(xt[:20], yt[:20], False)))
    assert len(preds) == 20 and preds[0]["probabilities"].shape == (10,)
    assert seen_batch_sizes["train"] == 32 and seen_batch_sizes["eval"] == 64
    assert seen_batch_sizes["infer"] == 16 and seen_batch_sizes["input"] == [32, 64, 16]
    assert init_calls == ["train", "eval"]


def test_tpu_argument_errors():
    with pytest.raises(ValueError, match="must be provided with type"):
        tpu.TPUEstimator(model_fn=lambda features, labels, mode, params: None,
                         config=tf.estimator.RunConfig())
    with pytest.raises(ValueError, match="reserved keys"):
        tpu.TPUEstimator(model_fn=lambda features, labels, mode, params: None,
                         config=tpu.RunConfig(), params={"batch_size": 3})
    with pytest.raises(ValueError, match="eval_metrics should be tuple of 2 elements"):
        tpu.TPUEstimatorSpec("eval", eval_metrics=(lambda: None,))
    with pytest.raises(ValueError, match="iterations_per_loop must be positive"):
        tpu.TPUConfig(iterations_per_loop=0)
