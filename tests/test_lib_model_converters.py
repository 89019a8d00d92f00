"""What running the model converters keras2onnx 1.6 (tf.keras / Keras graphs to ONNX) and
MMdnn 0.3.1 (TF checkpoints, frozen GraphDefs and Keras files to its IR and back to TF code)
on tideflow needed, pinned with plain TF 1.x calls: ``SeparableConv1D``'s 1-D attributes,
the TF names of the protos a generated ``*_pb2`` module imports, and constants written
with the one value that fills them (``float_val: 1`` for ``tf.ones([8])``), as TF writes them."""

import numpy as np
import pytest
from tideflow.core.framework import attr_value_pb2, tensor_shape_pb2
from tideflow.core.protobuf import config_pb2, meta_graph_pb2

import tideflow as tf
from tideflow.python.framework import graph_util, tensor_util


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _value_proto(t):
    return t.op.node_def.attr["value"].tensor


# ------------------------------------------------------------------------------------------
# SeparableConv1D: kernel_size, strides and dilation_rate are 1-tuples (keras2onnx checks
# them against the depthwise kernel's shape)
# ------------------------------------------------------------------------------------------

def _sep1d_reference(x, dk, pk, b, stride, rate, causal):
    k = dk.shape[0]
    if causal:
        x = np.pad(x, [(0, 0), (rate * (k - 1), 0), (0, 0)])
    span = rate * (k - 1) + 1
    n_out = (x.shape[1] - span) // stride + 1
    depth = np.stack([
        sum(x[:, i * stride + j * rate, :, None] * dk[j] for j in range(k))
        for i in range(n_out)], axis=1)                       # [batch, out, in, dm]
    depth = depth.reshape(depth.shape[0], n_out, -1)
    return depth @ pk[0] + b


@pytest.mark.parametrize("kwargs", [
    {"kernel_size": 3},
    {"kernel_size": 2, "strides": 2},
    {"kernel_size": 3, "padding": "causal", "dilation_rate": 2},
])
def test_separable_conv1d_attributes_and_values(kwargs):
    layer = tf.keras.layers.SeparableConv1D(4, depth_multiplier=2, bias_initializer="ones",
                                            **kwargs)
    x = tf.placeholder(tf.float32, [None, 9, 3])
    y = layer(x)
    k = kwargs["kernel_size"]
    assert layer.kernel_size == (k,)
    assert layer.strides == (kwargs.get("strides", 1),)
    assert layer.dilation_rate == (kwargs.get("dilation_rate", 1),)
    assert layer.padding == kwargs.get("padding", "valid")
    dk, pk, b = layer.depthwise_kernel, layer.pointwise_kernel, layer.bias
    assert dk.shape.as_list() == [k, 3, 2]
    assert pk.shape.as_list() == [1, 6, 4]
    assert dk.shape.as_list()[:-2] == list(layer.kernel_size)
    config = layer.get_config()
    assert config["kernel_size"] == (k,) and config["strides"] == layer.strides
    assert config["padding"] == layer.padding
    again = tf.keras.layers.SeparableConv1D.from_config(config)
    assert (again.kernel_size, again.strides, again.padding) == (
        layer.kernel_size, layer.strides, layer.padding)
    xv = np.random.RandomState(0).rand(2, 9, 3).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, dkv, pkv, bv = sess.run([y, dk, pk, b], {x: xv})
    want = _sep1d_reference(xv, dkv, pkv, bv, layer.strides[0], layer.dilation_rate[0],
                            layer.padding == "causal")
    assert y.shape.as_list() == [None, want.shape[1], 4]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_separable_conv1d_channels_first():
    layer = tf.keras.layers.SeparableConv1D(4, 3, data_format="channels_first")
    x = tf.placeholder(tf.float32, [None, 3, 8])
    y = layer(x)
    assert y.shape.as_list() == [None, 4, 6]
    assert layer.compute_output_shape([None, 3, 8]).as_list() == [None, 4, 6]
    xv = np.random.RandomState(1).rand(2, 3, 8).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, dkv, pkv, bv = sess.run([y, layer.depthwise_kernel, layer.pointwise_kernel,
                                      layer.bias], {x: xv})
    want = _sep1d_reference(xv.transpose(0, 2, 1), dkv, pkv, bv, 1, 1, False)
    np.testing.assert_allclose(got, want.transpose(0, 2, 1), rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------------------
# the protos a generated module imports, under TF's names (MMdnn's parser reads
# attr_value_pb2.tensorflow_dot_core_dot_framework_dot_tensor__shape__pb2.TensorShapeProto)
# ------------------------------------------------------------------------------------------

def test_generated_modules_name_their_dependencies_as_tf():
    assert (attr_value_pb2.tensorflow_dot_core_dot_framework_dot_tensor__shape__pb2
            is tensor_shape_pb2)
    shape = tf.placeholder(tf.float32, [None, 4]).shape.as_proto()
    assert isinstance(
        shape, attr_value_pb2.tensorflow_dot_core_dot_framework_dot_tensor__shape__pb2
        .TensorShapeProto)
    assert meta_graph_pb2.tensorflow_dot_core_dot_protobuf_dot_saver__pb2.SaverDef is (
        tf.train.SaverDef)
    assert config_pb2.tensorflow_dot_core_dot_framework_dot_graph__pb2.GraphDef is tf.GraphDef


# ------------------------------------------------------------------------------------------
# a constant filled from one value is written as that value (MMdnn asserts a slim
# batch_norm's constant gamma has one float_val)
# ------------------------------------------------------------------------------------------

def test_constant_filled_from_one_value_keeps_one_value():
    p = _value_proto(tf.constant(2.5, shape=[2, 3]))
    assert list(p.float_val) == [2.5] and not p.tensor_content
    assert [d.size for d in p.tensor_shape.dim] == [2, 3]
    for t, field, value in [(tf.zeros([4, 2]), "float_val", 0.0),
                            (tf.ones([5], tf.int32), "int_val", 1),
                            (tf.ones([3], tf.bool), "bool_val", True),
                            (tf.constant("ab", shape=[3]), "string_val", b"ab")]:
        p = _value_proto(t)
        assert list(getattr(p, field)) == [value] and not p.tensor_content, t
    # a full value stays full, as TF writes it
    assert _value_proto(tf.constant([1.0, 1.0])).tensor_content
    assert _value_proto(tf.constant(3.0)).float_val == [3.0]
    c = tf.constant(7.0, shape=[3])
    assert list(c.op.get_attr("value").float_val) == [7.0]
    assert tensor_util.MakeNdarray(c.op.get_attr("value")).tolist() == [7.0] * 3
    with tf.Session() as sess:
        out = sess.run(c)
    assert out.tolist() == [7.0] * 3
    out[0] = 1.0  # fetched values are the caller's own arrays


def test_slim_batch_norm_constant_gamma_has_one_value():
    x = tf.placeholder(tf.float32, [None, 4, 4, 3])
    y = tf.contrib.slim.batch_norm(x, is_training=False)  # scale=False: gamma is a constant
    gamma = y.op.inputs[1].op
    assert gamma.type == "Const"
    p = gamma.node_def.attr["value"].tensor
    assert list(p.float_val) == [1.0] and [d.size for d in p.tensor_shape.dim] == [3]


def test_one_value_constants_survive_import_and_freezing():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(tf.ones([3, 2]), name="w")
    tf.identity(tf.matmul(x, w) + tf.zeros([2]), name="y")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        frozen = graph_util.convert_variables_to_constants(
            sess, tf.get_default_graph().as_graph_def(), ["y"])
    nodes = {n.name: n for n in frozen.node}
    assert list(nodes["zeros"].attr["value"].tensor.float_val) == [0.0]
    with tf.Graph().as_default() as g:
        tf.import_graph_def(frozen, name="")
        again = {n.name: n for n in g.as_graph_def().node}
        assert again["zeros"].attr["value"].tensor == nodes["zeros"].attr["value"].tensor
        assert not again["zeros"].attr["value"].tensor.tensor_content
        with tf.Session(graph=g) as sess:
            out = sess.run("y:0", {"x:0": [[1.0, 2.0, 3.0]]})
    np.testing.assert_allclose(out, [[6.0, 6.0]])
    # a proto that lists one value for many elements reads back as the full array
    proto = tensor_util.make_tensor_proto(4, shape=[2, 2])
    assert list(proto.int_val) == [4]
    assert tensor_util.MakeNdarray(proto).tolist() == [[4, 4], [4, 4]]
    with tf.Graph().as_default(), tf.Session() as sess:
        c = tf.constant(proto)  # a TensorProto is the value as it stands, as in TF
        assert list(_value_proto(c).int_val) == [4] and not _value_proto(c).tensor_content
        assert sess.run(c).tolist() == [[4, 4], [4, 4]]


# ------------------------------------------------------------------------------------------
# a dilated convolution is built as TF 1.15 builds it: SpaceToBatchND, the plain
# convolution, BatchToSpaceND (MMdnn and tf2onnx read that graph; MMdnn ignores a Conv2D's
# dilations attr)
# ------------------------------------------------------------------------------------------

def _dilated_reference(x, w, rate, padding):
    kh, kw = w.shape[:2]
    eh, ew = (kh - 1) * rate[0] + 1, (kw - 1) * rate[1] + 1
    if padding == "SAME":
        ph, pw = eh - 1, ew - 1
        x = np.pad(x, [(0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)])
    oh, ow = x.shape[1] - eh + 1, x.shape[2] - ew + 1
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, i * rate[0]:i * rate[0] + oh, j * rate[1]:j * rate[1] + ow, :]
            out += patch @ w[i, j]
    return out


def _types(t):
    seen, stack, order = set(), [t.op], []
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        order.append(op.type)
        stack.extend(i.op for i in op.inputs)
    return order


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_dilated_convolution_is_space_to_batch_around_a_plain_conv(padding):
    x = tf.placeholder(tf.float64, [None, 9, 10, 3])
    wv = np.random.RandomState(2).rand(3, 2, 3, 4)
    y = tf.nn.convolution(x, tf.constant(wv), padding, dilation_rate=[2, 3])
    assert y.op.type == "BatchToSpaceND" and y.op.name == "convolution/BatchToSpaceND"
    conv = y.op.inputs[0].op
    assert conv.type == "Conv2D" and conv.name == "convolution"
    assert conv.get_attr("dilations") == [1, 1, 1, 1] and conv.get_attr("padding") == b"VALID"
    assert conv.inputs[0].op.type == "SpaceToBatchND"
    xv = np.random.RandomState(3).rand(2, 9, 10, 3)
    want = _dilated_reference(xv, wv, (2, 3), padding)
    assert y.shape.as_list() == [None, *want.shape[1:]]
    gx = tf.gradients(tf.reduce_sum(y * y), x)[0]
    direct = tf.nn.conv2d(x, tf.constant(wv), [1, 1, 1, 1], padding, dilations=[1, 2, 3, 1])
    gd = tf.gradients(tf.reduce_sum(direct * direct), x)[0]
    with tf.Session() as sess:
        got, g1, g2 = sess.run([y, gx, gd], {x: xv})
    np.testing.assert_allclose(got, want, rtol=1e-10)
    np.testing.assert_allclose(g1, g2, rtol=1e-10)


def test_dilated_layers_build_space_to_batch():
    x = tf.placeholder(tf.float32, [None, 8, 8, 3])
    y = tf.keras.layers.Conv2D(4, 3, dilation_rate=2, padding="same", name="k")(x)
    assert "SpaceToBatchND" in _types(y) and "BatchToSpaceND" in _types(y)
    assert y.shape.as_list() == [None, 8, 8, 4]
    z = tf.layers.conv1d(tf.placeholder(tf.float32, [None, 9, 3]), 2, 3, dilation_rate=2)
    assert z.shape.as_list() == [None, 5, 2]
    assert "SpaceToBatchND" in _types(z)
    c = tf.keras.layers.Conv1D(2, 3, dilation_rate=2, padding="causal")(
        tf.placeholder(tf.float32, [None, 9, 3]))
    assert c.shape.as_list() == [None, 9, 2] and "SpaceToBatchND" in _types(c)
    # no dilation: the plain op alone, as before
    p = tf.keras.layers.Conv2D(4, 3, name="plain")(x)
    assert "SpaceToBatchND" not in _types(p)


# ------------------------------------------------------------------------------------------
# slim's batch_norm without the fused kernel feeds its [channels] statistics to
# tf.nn.batch_normalization as they are for channels-last inputs (MMdnn walks from
# batchnorm/add to the moving variance); NCHW inputs reshape them to broadcast, as TF's
# ------------------------------------------------------------------------------------------

def test_unfused_slim_batch_norm_reads_its_variables_directly():
    x = tf.placeholder(tf.float32, [None, 4, 4, 3])
    y = tf.contrib.slim.batch_norm(x, fused=False, is_training=False, scale=True)
    names = {op.name: op for op in tf.get_default_graph().get_operations()}
    assert not [n for n in names if "Reshape" in n]
    # (TF 1.15 builds this through its core layer, whose ops are under batchnorm_1/)
    add = names["BatchNorm/batchnorm_1/add"]
    assert add.inputs[0].op.name == "BatchNorm/moving_variance/read"
    assert add.inputs[0].op.inputs[0].op.name == "BatchNorm/moving_variance"
    t = tf.contrib.slim.batch_norm(x, fused=False, is_training=True, updates_collections=None,
                                   scope="train")
    xf = tf.placeholder(tf.float32, [None, 3, 4, 4])
    first = tf.contrib.slim.batch_norm(xf, fused=False, is_training=False, data_format="NCHW",
                                       scope="nchw")
    assert [op.type for op in tf.get_default_graph().get_operations()
            if op.name.startswith("nchw/") and op.type == "Reshape"]
    xv = np.random.RandomState(4).rand(2, 4, 4, 3).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, trained, nchw = sess.run([y, t, first], {x: xv, xf: xv.transpose(0, 3, 1, 2)})
    np.testing.assert_allclose(got, xv / np.sqrt(1.001), rtol=1e-5)
    want = (xv - xv.mean((0, 1, 2))) / np.sqrt(xv.var((0, 1, 2)) + 0.001)
    np.testing.assert_allclose(trained, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(nchw, (xv / np.sqrt(1.001)).transpose(0, 3, 1, 2), rtol=1e-5)
