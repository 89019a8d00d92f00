"""Regressions found by running transformer-style TF 1.x programs (BERT's modeling /
optimization / run_classifier / run_pretraining / create_pretraining_data / extract_features,
GPT-2's model and sampler) against tideflow, compared with real TensorFlow where it could run."""

import importlib
import logging as py_logging

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_import_compat_v1_as_tf_is_the_same_module_tree():
    # TF 1.14+ programs (BERT's later releases) start with `import tensorflow.compat.v1 as tf`;
    # that import statement failed ("'tideflow.compat' is not a package"). Submodules reached
    # through it must be the very same module objects, not second copies.
    import tideflow.compat.v1 as tf1
    from tideflow.compat.v1 import logging
    from tideflow.compat.v1.keras import layers

    import tideflow.keras.layers

    nn = importlib.import_module("tideflow.compat.v1.nn")

    assert tf1 is tf and tf1.compat.v1 is tf
    assert logging is tf.logging and nn is tf.nn
    assert layers is tideflow.keras.layers
    assert importlib.import_module("tideflow.compat.v1.keras.layers") is tideflow.keras.layers
    with pytest.raises(ImportError):
        importlib.import_module("tideflow.compat.v1.no_such_module")


def test_tpu_estimator_passes_params_without_warning(tmp_path, caplog):
    # BERT's model_fn(features, labels, mode, params) under TPUEstimator without params=: TF
    # hands the wrapped model_fn a dict (never None), so no "params are not passed" warning;
    # params['batch_size'] is the per-mode batch size.
    seen = {}

    def input_fn(params):
        seen["input_bs"] = params["batch_size"]
        x = np.arange(8, dtype=np.float32).reshape(8, 1)
        return tf.data.Dataset.from_tensor_slices(({"x": x}, x * 2.0)).repeat().batch(
            params["batch_size"], drop_remainder=True)

    def model_fn(features, labels, mode, params):
        seen.setdefault("model_bs", []).append(params["batch_size"])
        pred = tf.layers.dense(features["x"], 1)
        loss = tf.losses.mean_squared_error(labels, pred)
        train_op = tf.train.GradientDescentOptimizer(0.01).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.contrib.tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op)

    config = tf.contrib.tpu.RunConfig(
        model_dir=str(tmp_path), tpu_config=tf.contrib.tpu.TPUConfig(
            iterations_per_loop=2, per_host_input_for_training=(
                tf.contrib.tpu.InputPipelineConfig.PER_HOST_V2)))
    with caplog.at_level(py_logging.WARNING):
        est = tf.contrib.tpu.TPUEstimator(use_tpu=False, model_fn=model_fn, config=config,
                                          train_batch_size=4, eval_batch_size=2)
        est.train(input_fn, max_steps=3)
    assert not [r for r in caplog.records if "params are not passed" in r.getMessage()]
    assert est.params == {}
    assert seen["input_bs"] == 4 and seen["model_bs"] == [4]
