"""What converting tideflow graphs to ONNX with tf2onnx 1.5.6 needed, pinned with plain TF 1.x
calls: ``tensorflow.tools.graph_transforms.TransformGraph`` (the fold_constants /
remove_attribute / fold_batch_norms / fold_old_batch_norms pass tf2onnx runs on every graph),
and GraphDefs named as TF 1.15 names them (``tf.image.crop_and_resize`` is the op itself,
``tf.stack`` auto-packs a list holding tensors, ``fused_batch_norm``'s empty statistics)."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.python.framework import graph_util
from tideflow.tools.graph_transforms import TransformGraph

_TF2ONNX_STEPS = ["fold_constants(ignore_errors=true)", "remove_attribute(attribute_name=_class)",
                  "fold_batch_norms", "fold_old_batch_norms"]


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _nodes(graph_def):
    return {n.name: n for n in graph_def.node}


def _run(graph_def, fetch, feed):
    with tf.Graph().as_default() as g:
        tf.import_graph_def(graph_def, name="")
        with tf.Session(graph=g) as sess:
            return sess.run(fetch, feed)


# ------------------------------------------------------------------------------------------
# TransformGraph
# ------------------------------------------------------------------------------------------

def test_transform_graph_folds_constant_subgraphs():
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    scale = tf.constant([1.0, 2.0, 3.0]) * 2.0 + 1.0          # 3, 5, 7
    top, bottom = tf.split(tf.reshape(tf.range(6.0), [2, 3]), 2, axis=0)
    y = tf.identity(x * scale + top - bottom, name="y")
    gd = tf.get_default_graph().as_graph_def()
    out = TransformGraph(gd, ["x"], ["y:0"], _TF2ONNX_STEPS)
    nodes = _nodes(out)
    # only the placeholder's consumers stay; what they read from constants became Consts
    assert sorted(n.op for n in out.node) == ["AddV2", "Const", "Const", "Const", "Identity",
                                              "Mul", "Placeholder", "Sub"]
    assert {"add", "split", "range", "Reshape"}.isdisjoint(nodes)
    folded = [n for n in out.node if n.op == "Const"]
    assert all("__cf__" in n.name for n in folded)
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(_run(out, "y:0", {"x:0": xv}), xv * [3, 5, 7] - 3.0)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(y, {x: xv}), xv * [3, 5, 7] - 3.0)


def test_transform_graph_keeps_inputs_stateful_and_random_ops():
    x = tf.placeholder(tf.float32, [3], name="x")
    noise = tf.random_uniform([3], seed=1)
    v = tf.Variable([1.0, 2.0, 3.0], name="v")
    y = tf.identity(x + noise + v, name="y")
    gd = tf.get_default_graph().as_graph_def()
    out = TransformGraph(gd, ["x"], ["y"], ["fold_constants"])
    ops_left = {n.op for n in out.node}
    assert {"Placeholder", "RandomUniform", "VariableV2"} <= ops_left
    assert "v/Assign" not in _nodes(out)          # unused by the output: pruned
    assert y.op.name in _nodes(out)


def test_transform_graph_input_ends_the_walk_back():
    # a fed PlaceholderWithDefault is an input: its default (and what made it) are not needed
    base = tf.constant([1.0, 2.0], name="base")
    inp = tf.placeholder_with_default(base * 2.0, [2], name="inp")
    tf.identity(inp + 1.0, name="out")
    gd = tf.get_default_graph().as_graph_def()
    out = TransformGraph(gd, ["inp"], ["out"], ["strip_unused_nodes"])
    assert set(_nodes(out)) == {"inp", "out", "add", "add/y"}


def test_transform_graph_fold_batch_norms_scales_conv_weights():
    x = tf.placeholder(tf.float32, [1, 5, 5, 2], name="x")
    w = np.random.RandomState(0).randn(3, 3, 2, 4).astype(np.float32)
    scale = np.array([0.5, 2.0, -1.0, 3.0], np.float32)
    conv = tf.nn.conv2d(x, tf.constant(w, name="w"), [1, 1, 1, 1], "SAME")
    y = tf.multiply(conv, tf.constant(scale, name="scale"), name="scaled")
    tf.identity(y, name="out")
    gd = tf.get_default_graph().as_graph_def()
    out = TransformGraph(gd, ["x"], ["out"], ["fold_batch_norms"])
    nodes = _nodes(out)
    assert nodes["scaled"].op == "Conv2D" and "Conv2D" not in nodes and "Mul" not in {
        n.op for n in out.node}
    xv = np.random.RandomState(1).randn(1, 5, 5, 2).astype(np.float32)
    with tf.Session() as sess:
        want = sess.run(y, {x: xv})
    np.testing.assert_allclose(_run(out, "out:0", {"x:0": xv}), want, rtol=1e-5, atol=1e-5)


def test_transform_graph_fold_old_batch_norms_into_conv_and_bias():
    x = tf.placeholder(tf.float32, [1, 4, 4, 3], name="x")
    rs = np.random.RandomState(2)
    w = rs.randn(2, 2, 3, 2).astype(np.float32)
    conv = tf.nn.conv2d(x, tf.constant(w), [1, 1, 1, 1], "VALID")
    mean, var = np.array([0.1, -0.2], np.float32), np.array([1.5, 0.5], np.float32)
    gamma, beta = np.array([2.0, 0.5], np.float32), np.array([0.3, -0.1], np.float32)
    y, _, _ = tf.nn.fused_batch_norm(conv, gamma, beta, mean, var, epsilon=0.01,
                                     is_training=False)
    tf.identity(y, name="out")
    gd = tf.get_default_graph().as_graph_def()
    out = TransformGraph(gd, ["x"], ["out"], _TF2ONNX_STEPS)
    assert "FusedBatchNormV3" not in {n.op for n in out.node}
    assert _nodes(out)[y.op.name].op == "BiasAdd"
    xv = rs.randn(1, 4, 4, 3).astype(np.float32)
    with tf.Session() as sess:
        want = sess.run(y, {x: xv})
    expect = (sess_free_conv(xv, w) - mean) / np.sqrt(var + 0.01) * gamma + beta
    np.testing.assert_allclose(want, expect, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(_run(out, "out:0", {"x:0": xv}), want, rtol=1e-4, atol=1e-4)


def sess_free_conv(x, w):
    """A VALID, stride-1 NHWC convolution in NumPy."""
    kh, kw = w.shape[:2]
    oh, ow = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]), np.float64)
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nhwc,co->nhwo", x[:, i:i + oh, j:j + ow, :], w[i, j])
    return out


def test_transform_graph_remove_attribute_and_parameters():
    a = tf.constant([1.0], name="a")
    with tf.colocate_with(a):
        tf.identity(a, name="b")
    gd = tf.get_default_graph().as_graph_def()
    assert "_class" in _nodes(gd)["b"].attr
    out = TransformGraph(gd, [], ["b"], ['remove_attribute(attribute_name="_class", op_name=b)'])
    assert "_class" not in _nodes(out)["b"].attr
    out = TransformGraph(gd, [], ["b"], ["remove_nodes(op=Identity) remove_device"])
    assert set(_nodes(out)) == {"a", "b"}              # the output itself stays


def test_transform_graph_errors():
    tf.constant(1.0, name="c")
    gd = tf.get_default_graph().as_graph_def()
    with pytest.raises(tf.errors.InvalidArgumentError, match="Transform 'no_such' not recognized"):
        TransformGraph(gd, [], ["c"], ["no_such"])
    with pytest.raises(tf.errors.InvalidArgumentError, match="boolean"):
        TransformGraph(gd, [], ["c"], ["fold_constants(ignore_errors=maybe)"])


def test_frozen_model_through_transform_graph():
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    w = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2) / 10.0)
    b = tf.Variable([0.5, -0.5])
    tf.nn.softmax(tf.matmul(x, w) + b, name="probs")
    xv = np.ones([3, 4], np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        want = sess.run("probs:0", {x: xv})
        frozen = graph_util.convert_variables_to_constants(
            sess, sess.graph.as_graph_def(), ["probs"])
    out = TransformGraph(frozen, ["x:0"], ["probs:0"], _TF2ONNX_STEPS)
    assert not {"VariableV2", "Assign"} & {n.op for n in out.node}
    np.testing.assert_allclose(_run(out, "probs:0", {"x:0": xv}), want, rtol=1e-6)


# ------------------------------------------------------------------------------------------
# GraphDef names as TF 1.15's
# ------------------------------------------------------------------------------------------

def test_crop_and_resize_op_takes_the_name():
    img = tf.placeholder(tf.float32, [2, 8, 8, 3])
    boxes = tf.constant([[0.0, 0.0, 1.0, 1.0]])
    out = tf.image.crop_and_resize(img, boxes, [1], [4, 4], name="output")
    assert out.op.name == "output" and out.op.type == "CropAndResize"
    assert out.name == "output:0"
    # list arguments become Consts inside that scope, as TF's generated wrapper makes them
    assert out.op.inputs[2].op.name == "output/box_ind"
    unnamed = tf.image.crop_and_resize(img, boxes, [0], [4, 4])
    assert unnamed.op.name == "CropAndResize"
    v = np.arange(2 * 8 * 8 * 3, dtype=np.float32).reshape(2, 8, 8, 3)
    with tf.Session() as sess:
        got = sess.run(out, {img: v})
    np.testing.assert_allclose(got[0, 0, 0], v[1, 0, 0])
    np.testing.assert_allclose(got[0, -1, -1], v[1, -1, -1])


def test_stack_with_tensors_autopacks_numbers_by_index():
    y = tf.placeholder(tf.int32, [], name="y")
    s = tf.stack([0, 0, y])
    assert s.op.type == "Pack" and s.op.name == "stack"
    assert [t.op.name for t in s.op.inputs] == ["stack/0", "stack/1", "y"]
    nested = tf.stack([[y, 1], [2, 3]], name="nested")
    assert nested.op.type == "Pack" and nested.get_shape().as_list() == [2, 2]
    x = tf.placeholder(tf.float32, [1, 4, 6, 1])
    sliced = x[:, :, y::-1]                      # the slice helper stacks its bounds the same way
    assert sliced.op.inputs[1].op.inputs[0].op.name.endswith("stack/0")
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(s, {y: 7}), [0, 0, 7])
        np.testing.assert_array_equal(sess.run(nested, {y: 9}), [[9, 1], [2, 3]])
    with pytest.raises((TypeError, ValueError)):
        tf.stack([y, tf.constant(1.5)])


def test_fused_batch_norm_training_statistics_consts():
    x = tf.placeholder(tf.float32, [1, 3, 3, 2])
    y, m, _ = tf.nn.fused_batch_norm(x, tf.constant([1.0, 2.0]), tf.constant([0.0, 0.5]))
    names = [t.op.name for t in y.op.inputs]
    assert names[3:] == ["Const_2", "Const_3"]
    assert y.op.inputs[3].get_shape().as_list() == [0]
    xv = np.random.RandomState(3).rand(1, 3, 3, 2).astype(np.float32)
    with tf.Session() as sess:
        got, mean = sess.run([y, m], {x: xv})
    np.testing.assert_allclose(mean, xv.reshape(-1, 2).mean(0), rtol=1e-5)
    norm = (xv - xv.reshape(-1, 2).mean(0)) / np.sqrt(xv.reshape(-1, 2).var(0) + 1e-3)
    np.testing.assert_allclose(got, norm * [1.0, 2.0] + [0.0, 0.5], rtol=1e-4, atol=1e-5)


def test_fold_old_batch_norms_leaves_other_batch_norms_silently(caplog):
    # a batch norm after Conv2D + BiasAdd (tf.layers' conv with a bias) is not folded, and the
    # transform says nothing about it (TF's Graph Transform Tool is silent there)
    x = tf.placeholder(tf.float32, [1, 4, 4, 1], name="x")
    conv = tf.nn.bias_add(tf.nn.conv2d(x, np.ones([2, 2, 1, 2], np.float32), [1] * 4, "SAME"),
                          [0.5, 1.0])
    y, _, _ = tf.nn.fused_batch_norm(conv, [1.0, 1.0], [0.0, 0.0], [0.0, 0.0], [1.0, 1.0],
                                     is_training=False)
    tf.identity(y, name="out")
    gd = tf.get_default_graph().as_graph_def()
    with caplog.at_level("WARNING"):
        out = TransformGraph(gd, ["x"], ["out"], ["fold_old_batch_norms"])
    assert "FusedBatchNormV3" in {n.op for n in out.node}
    assert not [r for r in caplog.records if "Conv2D" in r.getMessage()]


# ------------------------------------------------------------------------------------------
# Operation.get_attr on function attrs
# ------------------------------------------------------------------------------------------

def test_get_attr_of_function_attrs_is_a_name_attr_list():
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.cond(p, lambda: x * 2.0, lambda: x * 3.0)
    op = y.op if y.op.type == "If" else y.op.inputs[0].op
    assert op.type == "If"
    branch = op.get_attr("then_branch")
    assert type(branch).__name__ == "NameAttrList" and branch.name
    branch.name = "changed"                      # a fresh proto: the op keeps its function
    assert op.get_attr("then_branch").name != "changed"
    gd = tf.get_default_graph().as_graph_def()
    with tf.Graph().as_default() as g:
        tf.import_graph_def(gd, name="")
        imported = g.get_operation_by_name(op.name)
        assert imported.get_attr("else_branch").name == op.get_attr("else_branch").name
        with tf.Session(graph=g) as sess:
            np.testing.assert_allclose(
                sess.run(y.name, {"p:0": False, "x:0": [1.0, 2.0]}), [3.0, 6.0])


# ------------------------------------------------------------------------------------------
# NodeDefs without the attrs TF 1.15's ops lack
# ------------------------------------------------------------------------------------------

def test_real_fft_node_defs_have_tf1_attrs():
    x = tf.placeholder(tf.float32, [8], name="x")
    spec = tf.signal.rfft(x)
    back = tf.signal.irfft(spec)
    gd = tf.get_default_graph().as_graph_def()
    nodes = _nodes(gd)
    # TF 1.15's RFFT is float -> complex64 with no type attrs; a float64 one (TF 2's) keeps them
    # TF 1.15's wrapper names: the op takes the function's scope, its length a Const inside it
    assert spec.op.name == "rfft" and back.op.name == "irfft"
    assert [t.op.name for t in spec.op.inputs] == ["x", "rfft/Const"]
    named = tf.signal.rfft([1.0, 2.0, 3.0, 4.0], name="mine")
    assert [t.op.name for t in named.op.inputs] == ["mine/Const", "mine/Const_1"]
    assert set(nodes[spec.op.name].attr) == set()
    assert set(nodes[back.op.name].attr) == set()
    assert spec.op.get_attr("Tcomplex") == tf.complex64
    wide = tf.signal.rfft(tf.placeholder(tf.float64, [8]))
    assert set(wide.op.node_def.attr) == {"Treal", "Tcomplex"}
    xv = np.arange(8, dtype=np.float32)
    got = _run(gd, [spec.name, back.name], {"x:0": xv})
    np.testing.assert_allclose(got[0], np.fft.rfft(xv), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[1], xv, rtol=1e-5, atol=1e-5)
    assert got[0].dtype == np.complex64 and got[1].dtype == np.float32


def test_fused_batch_norm_v3_node_def_without_exponential_avg_factor():
    x = tf.placeholder(tf.float32, [1, 2, 2, 2], name="x")
    y, _, _ = tf.nn.fused_batch_norm(x, [1.0, 1.0], [0.0, 0.0], [0.0, 0.0], [1.0, 1.0],
                                     is_training=False)
    nd = y.op.node_def
    assert y.op.type == "FusedBatchNormV3"
    assert set(nd.attr) == {"T", "U", "epsilon", "data_format", "is_training"}
    assert y.op.get_attr("exponential_avg_factor") == 1.0
    gd = tf.get_default_graph().as_graph_def()
    xv = np.ones([1, 2, 2, 2], np.float32)
    np.testing.assert_allclose(_run(gd, y.name, {"x:0": xv}), xv / np.sqrt(1.0 + 1e-3),
                               rtol=1e-6)
