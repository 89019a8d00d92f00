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
    if path == "saved_model":  # as TF 1.x: tensorflow.python's attribute is the module of
        module = module.saved_model  # convenience functions, saved_model.saved_model
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
    from tideflow.python.ops.distributions import distribution, normal

    assert distribution.Distribution is tf.distributions.Distribution
    assert normal.Normal is tf.distributions.Normal


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
        # TF's Python argument names where its api_defs rename the op's (axis for
        # reduction_indices / squeeze_dims), positionally and by keyword
        summed = gen_math_ops._sum(a, [0], True)
        squeezed = gen_array_ops.squeeze(a[None], axis=[0])
        with tf.Session() as sess:
            got = sess.run([mm, mm_hidden, relu_grad, reshaped, pool_grad, raw, summed,
                            squeezed])
    np.testing.assert_allclose(got[0], a @ b.T)
    np.testing.assert_allclose(got[1], a @ b.T)
    np.testing.assert_allclose(got[2], b * (a > 0))
    np.testing.assert_array_equal(got[3], a.reshape(4))
    expected = np.zeros((4, 4), np.float32)
    expected[1::2, 1::2] = 1.0  # the max of each 2x2 window is its bottom-right element
    np.testing.assert_array_equal(got[4].reshape(4, 4), expected)
    np.testing.assert_allclose(got[5], a @ b)
    np.testing.assert_allclose(got[6], a.sum(0, keepdims=True))
    np.testing.assert_array_equal(got[7], a)
    assert "'axis'" in gen_math_ops.mean.__doc__
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


def _train_small_model(tmp_path):
    """A conv + inference batch norm + dense graph with variables, saved to a checkpoint and a
    text GraphDef; returns (paths, the weights as NumPy, an input batch)."""
    rng = np.random.RandomState(0)
    values = {"conv_w": rng.randn(3, 3, 2, 4).astype(np.float32),
              "dense_w": rng.randn(16, 3).astype(np.float32),
              "dense_b": rng.randn(3).astype(np.float32)}
    bn = {"gamma": np.array([1.0, 2.0, 0.5, 1.5], np.float32),
          "beta": np.array([0.1, -0.2, 0.3, 0.0], np.float32),
          "mean": np.array([0.2, -0.1, 0.0, 0.4], np.float32),
          "var": np.array([1.0, 0.5, 2.0, 0.25], np.float32)}
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 4, 4, 2], name="input")
        conv_w = tf.Variable(values["conv_w"], name="conv_w")
        dense_w = tf.Variable(values["dense_w"], name="dense_w")
        dense_b = tf.Variable(values["dense_b"], name="dense_b")
        conv = tf.nn.conv2d(x, conv_w, [1, 2, 2, 1], "SAME")
        normed, _, _ = tf.nn.fused_batch_norm(conv, bn["gamma"], bn["beta"], bn["mean"],
                                              bn["var"], epsilon=1e-3, is_training=False)
        checked = tf.check_numerics(tf.identity(normed), "bad")
        flat = tf.reshape(tf.nn.relu(checked), [-1, 16])
        tf.add(tf.matmul(flat, dense_w), dense_b, name="output")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            ckpt = tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"))
        tf.train.write_graph(g.as_graph_def(), str(tmp_path), "graph.pbtxt", as_text=True)
    batch = rng.randn(2, 4, 4, 2).astype(np.float32)
    return ckpt, str(tmp_path / "graph.pbtxt"), values, bn, batch


def _numpy_model(values, bn, batch):
    n = batch.shape[0]
    padded = np.pad(batch, ((0, 0), (0, 1), (0, 1), (0, 0)))  # SAME, stride 2, kernel 3
    conv = np.zeros((n, 2, 2, 4))
    for i in range(2):
        for j in range(2):
            patch = padded[:, 2 * i:2 * i + 3, 2 * j:2 * j + 3, :]
            conv[:, i, j, :] = np.tensordot(patch, values["conv_w"], axes=3)
    normed = (conv - bn["mean"]) / np.sqrt(bn["var"] + 1e-3) * bn["gamma"] + bn["beta"]
    return np.maximum(normed, 0).reshape(n, 16) @ values["dense_w"] + values["dense_b"]


def _run_graph_def(graph_def, batch):
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess:
            return sess.run("output:0", {"input:0": batch})


def test_freeze_graph_from_checkpoint_and_pbtxt(tmp_path):
    from tideflow.python.tools import freeze_graph

    ckpt, pbtxt, values, bn, batch = _train_small_model(tmp_path)
    out_path = str(tmp_path / "frozen.pb")
    frozen = freeze_graph.freeze_graph(pbtxt, "", False, ckpt, "output", "save/restore_all",
                                       "save/Const:0", out_path, True, "")
    ops_in = {n.op for n in frozen.node}
    assert not ops_in & {"VariableV2", "Variable", "Assign", "SaveV2", "RestoreV2"}
    with open(out_path, "rb") as f:
        from tideflow.protos import graph_pb2

        on_disk = graph_pb2.GraphDef.FromString(f.read())
    assert on_disk == frozen
    np.testing.assert_allclose(_run_graph_def(on_disk, batch), _numpy_model(values, bn, batch),
                               rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="Input checkpoint '.*missing' doesn't exist!"):
        freeze_graph.freeze_graph(pbtxt, "", False, str(tmp_path / "missing"), "output", "",
                                  "", "", True, "")
    with pytest.raises(OSError, match="Input graph file '.*nope.pbtxt' does not exist!"):
        freeze_graph.freeze_graph(str(tmp_path / "nope.pbtxt"), "", False, ckpt, "output", "",
                                  "", "", True, "")


def test_print_tensors_in_checkpoint_file(tmp_path, capsys):
    from tideflow.python.tools import inspect_checkpoint

    ckpt, _, values, _, _ = _train_small_model(tmp_path)
    inspect_checkpoint.print_tensors_in_checkpoint_file(ckpt, "dense_b", False)
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "tensor_name:  dense_b"  # TF 1.15's line
    assert str(values["dense_b"]) in out
    assert out.splitlines()[-1] == "# Total number of params: 123"  # 72 + 48 + 3
    inspect_checkpoint.print_tensors_in_checkpoint_file(ckpt, "", False, all_tensor_names=True)
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["tensor_name:  conv_w", "tensor_name:  dense_b", "tensor_name:  dense_w",
                     "# Total number of params: 123"]
    inspect_checkpoint.print_tensors_in_checkpoint_file(ckpt, "nope", False)
    assert capsys.readouterr().out == (
        "tensor_name:  nope\nKey nope not found in checkpoint\n")


def test_optimize_for_inference_strips_and_folds(tmp_path):
    from tideflow.python.framework import dtypes
    from tideflow.python.tools import freeze_graph, optimize_for_inference_lib, strip_unused_lib

    ckpt, pbtxt, values, bn, batch = _train_small_model(tmp_path)
    frozen = freeze_graph.freeze_graph(pbtxt, "", False, ckpt, "output", "", "", "", True, "")
    optimized = optimize_for_inference_lib.optimize_for_inference(
        frozen, ["input"], ["output"], dtypes.float32.as_datatype_enum)
    ops_in = [n.op for n in optimized.node]
    assert "CheckNumerics" not in ops_in and "Identity" not in ops_in
    assert not any(op.startswith("FusedBatchNorm") for op in ops_in)
    assert "BiasAdd" in ops_in
    expected = _numpy_model(values, bn, batch)
    np.testing.assert_allclose(_run_graph_def(optimized, batch), expected, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(_run_graph_def(frozen, batch), expected, rtol=1e-4, atol=1e-4)
    stripped = strip_unused_lib.strip_unused(frozen, ["input"], ["output"],
                                             dtypes.float32.as_datatype_enum)
    assert [n.op for n in stripped.node if n.name == "input"] == ["Placeholder"]
    with pytest.raises(KeyError, match="input nodes were not found.*'absent'"):
        strip_unused_lib.strip_unused(frozen, ["absent"], ["output"], 1)
    broken = type(frozen)()
    broken.CopyFrom(frozen)
    broken.node[-1].input.append("ghost")
    with pytest.raises(ValueError, match="not found"):
        optimize_for_inference_lib.ensure_graph_is_valid(broken)


def test_saved_model_utils_get_meta_graph_def(tmp_path):
    from tideflow.python.saved_model import tag_constants

    from tideflow.python.tools import saved_model_utils

    export_dir = str(tmp_path / "sm")
    with tf.Graph().as_default():
        tf.Variable(1.0, name="v")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            builder = tf.saved_model.builder.SavedModelBuilder(export_dir)
            builder.add_meta_graph_and_variables(sess, [tag_constants.SERVING])
            builder.save()
    assert saved_model_utils.get_saved_model_tag_sets(export_dir) == [["serve"]]
    meta = saved_model_utils.get_meta_graph_def(export_dir, "serve")
    assert "v" in [n.name for n in meta.graph_def.node]
    with pytest.raises(RuntimeError, match="tag-set train could not be found"):
        saved_model_utils.get_meta_graph_def(export_dir, "train")


def test_defun_builds_the_function_and_its_custom_gradient():
    from tideflow.python.framework import function

    @function.Defun(tf.float32, tf.float32)
    def scaled_sum(x, y):
        return 2.0 * x + y * y

    def clipped_grad(op, grad):
        _, y = op.inputs
        return tf.clip_by_value(grad, -0.5, 0.5), grad * y  # not the true dy (2y)

    @function.Defun(tf.float32, tf.float32, python_grad_func=clipped_grad)
    def custom(x, y):
        return 2.0 * x + y * y

    assert scaled_sum.name == "scaled_sum"
    assert scaled_sum.declared_input_types == (tf.float32, tf.float32)
    with tf.Graph().as_default():
        x = tf.constant([1.0, -3.0])
        y = tf.constant([2.0, 0.5])
        z = scaled_sum(x, y)
        c = custom(x, y)
        gz = tf.gradients(z, [x, y])
        gc = tf.gradients(c, [x, y])
        with tf.Session() as sess:
            zv, cv, gzv, gcv = sess.run([z, c, gz, gc])
    np.testing.assert_allclose(zv, [6.0, -5.75])
    np.testing.assert_allclose(cv, zv)
    np.testing.assert_allclose(gzv[0], [2.0, 2.0])
    np.testing.assert_allclose(gzv[1], [4.0, 1.0])
    np.testing.assert_allclose(gcv[0], [0.5, 0.5])  # ones clipped to 0.5
    np.testing.assert_allclose(gcv[1], [2.0, 0.5])  # grad * y
    with pytest.raises(ValueError, match="Expected number of arguments: 2, received: 1"):
        scaled_sum(x)


def test_tf_inspect_getargspec_sees_through_decorators():
    from tideflow.python.util import deprecation, tf_inspect

    @deprecation.deprecated(None, "old")
    def f(a, b=2, *rest, **kw):
        return a

    spec = tf_inspect.getargspec(f)
    assert spec == tf_inspect.ArgSpec(["a", "b"], "rest", "kw", (2,))
    assert spec.keywords == "kw"
    assert tf_inspect.isfunction(f)


def test_layer_aliases_and_np_utils_and_session():
    from tideflow.python.keras.utils import np_utils

    from tideflow.python.client import session
    from tideflow.python.layers import convolutional, normalization, pooling

    assert convolutional.convolution2d is tf.layers.conv2d
    assert convolutional.Deconv2D is tf.layers.Conv2DTranspose
    assert convolutional.deconv2d is tf.layers.conv2d_transpose
    assert pooling.max_pool2d is tf.layers.max_pooling2d
    assert normalization.BatchNormalization is tf.layers.BatchNormalization
    assert np_utils.to_categorical is tf.keras.utils.to_categorical
    np.testing.assert_array_equal(np_utils.to_categorical([0, 2], 3), [[1, 0, 0], [0, 0, 1]])
    assert issubclass(tf.Session, session.BaseSession)
    assert issubclass(tf.Session, session.SessionInterface)


def test_nest_up_to_functions():
    from tideflow.python.data.util import nest as data_nest

    from tideflow.python.util import nest

    shallow = {"a": None, "b": (None, None)}
    tree = {"a": [1, 2], "b": ((3, 4), 5)}
    # tf.data's nest: the same up-to walk, but a list is a leaf even as the shallow tree
    assert data_nest.flatten_up_to(shallow, tree) == [[1, 2], (3, 4), 5]
    assert data_nest.flatten_up_to([None], (1,)) == [(1,)]
    assert nest.flatten_up_to(shallow, tree) == [[1, 2], (3, 4), 5]
    doubled = nest.map_structure_up_to(shallow, lambda x, y: (x, y), tree, tree)
    assert doubled == {"a": ([1, 2], [1, 2]), "b": (((3, 4), (3, 4)), (5, 5))}
    with pytest.raises(ValueError, match="same sequence length"):
        nest.assert_shallow_structure((None, None), (1, 2, 3))
    with pytest.raises(TypeError, match="input must also be a sequence"):
        nest.assert_shallow_structure([None], 1)
    with pytest.raises(TypeError, match="same sequence type"):
        nest.assert_shallow_structure([None], (1,))
    with pytest.raises(ValueError, match="keys are not a subset of the input_tree"):
        nest.assert_shallow_structure({"a": None}, {"b": 1})


def test_freeze_graph_from_meta_graph_and_saved_model(tmp_path):
    from tideflow.python.tools import freeze_graph

    w0 = np.array([[1.5, -2.0], [0.5, 3.0]], np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="input")
        w = tf.Variable(w0, name="w")
        tf.matmul(x, w, name="output")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saver = tf.train.Saver()
            ckpt = saver.save(sess, str(tmp_path / "m.ckpt"))
            builder = tf.saved_model.builder.SavedModelBuilder(str(tmp_path / "sm"))
            builder.add_meta_graph_and_variables(sess, ["serve"])
            builder.save()
    batch = np.array([[1.0, 2.0], [-1.0, 0.5]], np.float32)
    from_meta = freeze_graph.freeze_graph(None, "", True, ckpt, "output", "", "", "", True, "",
                                          input_meta_graph=ckpt + ".meta")
    from_sm = freeze_graph.freeze_graph(None, "", True, None, "output", "", "", "", True, "",
                                        input_saved_model_dir=str(tmp_path / "sm"))
    for frozen in (from_meta, from_sm):
        assert "VariableV2" not in {n.op for n in frozen.node}
        np.testing.assert_allclose(_run_graph_def(frozen, batch), batch @ w0, rtol=1e-6)
