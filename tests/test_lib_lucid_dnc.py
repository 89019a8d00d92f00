"""What running Lucid 0.3.8 (feature visualisation on frozen graphs) and DeepMind's DNC
(Differentiable Neural Computer on Sonnet 1) on tideflow needed, pinned with plain TF 1.x calls:
gradient overrides bind to imported ops (Lucid imports its model under
``gradient_override_map({"Relu": ...})`` and differentiates it afterwards), and the calls both
libraries lean on (frozen-graph import with ``input_map``, FFT image parameterisations, the
DNC's sort-based allocation, temporal links and cumulative products)."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _frozen_relu_net():
    """A tiny frozen model: input -> dense -> relu "act" -> sum "out"."""
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 3], name="input")
        w = tf.Variable([[1.0, -2.0], [0.5, 1.0], [-1.0, 0.25]], name="w")
        act = tf.nn.relu(tf.matmul(x, w), name="act")
        tf.reduce_sum(act, name="out")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return tf.graph_util.convert_variables_to_constants(sess, g.as_graph_def(), ["out"])


_PASS_THROUGH = "H175PassThroughRelu"


@tf.RegisterGradient(_PASS_THROUGH)
def _pass_through_relu(op, grad):
    return grad


# ------------------------------------------------------------------------------------------
# gradient_override_map binds at op creation, imported ops included
# ------------------------------------------------------------------------------------------

def test_import_under_gradient_override_map_stamps_imported_ops():
    gd = _frozen_relu_net()
    g = tf.get_default_graph()
    x = tf.constant([[-1.0, -1.0, -1.0], [2.0, 0.0, 1.0]])
    with g.gradient_override_map({"Relu": _PASS_THROUGH}):
        act, = tf.import_graph_def(gd, {"input": x}, return_elements=["act:0"], name="m")
    assert act.op.get_attr("_gradient_op_type") == _PASS_THROUGH.encode()
    assert act.op.node_def.attr["_gradient_op_type"].s == _PASS_THROUGH.encode()
    # differentiated after the block: the override still applies to the imported Relu
    grad = tf.gradients(tf.reduce_sum(act), x)[0]
    plain, = tf.import_graph_def(gd, {"input": x}, return_elements=["act:0"], name="p")
    grad_plain = tf.gradients(tf.reduce_sum(plain), x)[0]
    with tf.Session() as sess:
        a, b = sess.run([grad, grad_plain])
    w = np.array([[1.0, -2.0], [0.5, 1.0], [-1.0, 0.25]])
    np.testing.assert_allclose(a, np.ones((2, 2)) @ w.T, rtol=1e-6)
    pre = np.array([[-1.0, -1.0, -1.0], [2.0, 0.0, 1.0]]) @ w
    np.testing.assert_allclose(b, (pre > 0).astype(float) @ w.T, rtol=1e-6)


def test_import_override_replaces_recorded_gradient_and_kernel_label():
    with tf.Graph().as_default() as g0:
        x = tf.placeholder(tf.float32, [2], name="x")
        with g0.gradient_override_map({"Relu": "Identity"}):
            tf.nn.relu(x, name="r")
    gd = g0.as_graph_def()
    g = tf.get_default_graph()
    tf.import_graph_def(gd, name="keep")
    with g.gradient_override_map({"Relu": _PASS_THROUGH}):
        tf.import_graph_def(gd, name="swap")
    with g._kernel_label_map({"Relu": "my_label"}):
        tf.import_graph_def(gd, name="lab")
    assert g.get_operation_by_name("keep/r").get_attr("_gradient_op_type") == b"Identity"
    assert g.get_operation_by_name("swap/r").get_attr("_gradient_op_type") == \
        _PASS_THROUGH.encode()
    assert g.get_operation_by_name("lab/r").get_attr("_kernel") == b"my_label"
    with pytest.raises(ValueError):
        g.get_operation_by_name("keep/r").get_attr("_kernel")


def test_override_active_only_while_differentiating_changes_nothing():
    x = tf.constant([-1.0, 2.0, -3.0])
    r = tf.nn.relu(x)
    g = tf.get_default_graph()
    with g.gradient_override_map({"Relu": _PASS_THROUGH}):
        grad_outside = tf.gradients(r, x)[0]
        r2 = tf.nn.relu(x)
    grad_inside = tf.gradients(r2, x)[0]
    with tf.Session() as sess:
        a, b = sess.run([grad_outside, grad_inside])
    np.testing.assert_allclose(a, [0.0, 1.0, 0.0])
    np.testing.assert_allclose(b, [1.0, 1.0, 1.0])
