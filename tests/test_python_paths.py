"""The ``tensorflow.python.*`` module paths TF 1.x programs import (``from
tensorflow.python.ops import gen_nn_ops``, ``... framework import constant_op``,
``... saved_model import tag_constants``, ``... eager import context``): each imports under
``tideflow.python``, its names are tideflow's own public objects, TF's generated op wrappers
(``gen_nn_ops.relu_grad``, ``gen_math_ops.mat_mul``) build and run the registered ops, and the
graph tools (freeze_graph, inspect_checkpoint, optimize_for_inference_lib, strip_unused_lib)
work end to end."""

import importlib

import numpy as np
import pytest

import tideflow as tf
from tideflow.python import _paths

PATHS = sorted(_paths._TABLE)


@pytest.mark.parametrize("path", PATHS)
def test_path_imports(path):
    module = importlib.import_module("tideflow.python." + path)
    parent, _, child = ("tideflow.python." + path).rpartition(".")
    assert getattr(importlib.import_module(parent), child) is module


def test_names_are_tideflows_objects():
    from tideflow.python.data.ops import dataset_ops
    from tideflow.python.estimator import estimator, run_config
    from tideflow.python.ops.losses import losses
    from tideflow.python.saved_model import builder, signature_constants, tag_constants
    from tideflow.python.summary import summary
    from tideflow.python.summary.writer import writer, writer_cache

    from tideflow.python.client import session
    from tideflow.python.framework import constant_op, errors_impl, tensor_spec, test_util
    from tideflow.python.layers import convolutional, pooling
    from tideflow.python.lib.io import tf_record
    from tideflow.python.ops import image_ops, io_ops, metrics, parsing_ops, script_ops
    from tideflow.python.platform import test
    from tideflow.python.training import server_lib, training

    assert constant_op.constant is tf.constant
    assert errors_impl.NotFoundError is tf.errors.NotFoundError
    assert tensor_spec.TensorSpec is tf.TensorSpec
    assert test_util.TensorFlowTestCase is tf.test.TestCase
    assert session.Session is tf.Session
    assert training.GradientDescentOptimizer is tf.train.GradientDescentOptimizer
    assert server_lib.Server is tf.train.Server
    assert test is tf.test
    assert image_ops.resize_images is tf.image.resize_images
    assert script_ops.py_func is tf.py_func
    assert parsing_ops.parse_example is tf.parse_example
    assert io_ops.TFRecordReader is tf.TFRecordReader
    assert metrics.accuracy is tf.metrics.accuracy
    assert losses.softmax_cross_entropy is tf.losses.softmax_cross_entropy
    assert convolutional.conv2d is tf.layers.conv2d and pooling.MaxPooling2D is tf.layers.MaxPooling2D
    assert tf_record.TFRecordWriter is tf.python_io.TFRecordWriter
    assert summary.scalar is tf.summary.scalar
    assert writer.FileWriter is tf.summary.FileWriter
    assert writer_cache.FileWriterCache is tf.summary.FileWriterCache
    assert builder.SavedModelBuilder is tf.saved_model.builder.SavedModelBuilder
    assert tag_constants.SERVING == "serve"
    assert signature_constants.PREDICT_METHOD_NAME == "tensorflow/serving/predict"
    assert estimator.Estimator is tf.estimator.Estimator
    assert run_config.RunConfig is tf.estimator.RunConfig
    assert dataset_ops.Dataset is tf.data.Dataset


def test_missing_name_is_attribute_error_naming_module():
    from tideflow.python.framework import constant_op
    from tideflow.python.ops import gen_nn_ops

    with pytest.raises(AttributeError, match="tensorflow.python.framework.constant_op.*no_such"):
        _ = constant_op.no_such
    with pytest.raises(AttributeError, match="tensorflow.python.ops.gen_nn_ops.*no_such_op"):
        _ = gen_nn_ops.no_such_op


def test_gen_op_wrappers_run():
    from tideflow.python.ops import gen_array_ops, gen_math_ops, gen_nn_ops

    a = np.array([[1.0, -2.0], [3.0, 4.0]], np.float32)
    b = np.array([[0.5, 1.0], [-1.0, 2.0]], np.float32)
    with tf.Graph().as_default():
        mm = gen_math_ops.mat_mul(a, b, transpose_b=True)
        mm_hidden = gen_math_ops._mat_mul(a, b, False, True)
        relu_grad = gen_nn_ops.relu_grad(b, a)
        reshaped = gen_array_ops.reshape(a, [4])
        x = tf.constant(np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1))
        pooled = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        pool_grad = gen_nn_ops._max_pool_grad(x, pooled, tf.ones_like(pooled), [1, 2, 2, 1],
                                              [1, 2, 2, 1], "VALID")
        raw = gen_math_ops.MatMul(a=a, b=b)
        with tf.Session() as sess:
            got = sess.run([mm, mm_hidden, relu_grad, reshaped, pool_grad, raw])
    np.testing.assert_allclose(got[0], a @ b.T)
    np.testing.assert_allclose(got[1], a @ b.T)
    np.testing.assert_allclose(got[2], b * (a > 0))
    np.testing.assert_array_equal(got[3], a.reshape(4))
    expected = np.zeros((4, 4), np.float32)
    expected[1::2, 1::2] = 1.0  # the max of each 2x2 window is its bottom-right element
    np.testing.assert_array_equal(got[4].reshape(4, 4), expected)
    np.testing.assert_allclose(got[5], a @ b)
    with pytest.raises(TypeError, match="mat_mul.*multiple values.*'a'"):
        gen_math_ops.mat_mul(a, b, a=a)


def test_eager_context_is_graph_mode():
    from tideflow.python.eager import context

    assert context.executing_eagerly() is False
    assert context.in_graph_mode() is True
    with context.graph_mode():
        pass
    with pytest.raises(ValueError, match="graph mode only"):
        context.eager_mode()


def test_deprecation_decorators_keep_behaviour(caplog):
    from tideflow.python.util import deprecation

    @deprecation.deprecated(None, "Use g instead.")
    def f(x):
        return x + 1

    assert f(1) == 2 and f.__name__ == "f"
    assert deprecation.deprecated_argument_lookup("axis", None, "dim", 3) == 3
    with pytest.raises(ValueError, match="Cannot specify both 'dim' and 'axis'"):
        deprecation.deprecated_argument_lookup("axis", 1, "dim", 3)


def test_platform_and_module_aliases():
    from tideflow.python.data.util import nest
    from tideflow.python.user_ops import user_ops

    from tideflow.python.platform import resource_loader, sysconfig, test

    assert test is tf.test and resource_loader is tf.resource_loader
    assert sysconfig is tf.sysconfig and user_ops is tf.user_ops
    assert nest.flatten({"a": 1, "b": (2, 3)}) == [1, 2, 3]
