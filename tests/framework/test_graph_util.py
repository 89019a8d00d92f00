"""tf.graph_util: freezing a trained model, subgraph extraction, removing training nodes."""

import numpy as np
import pytest

import tideflow as tf
from tideflow import graph_util
from tideflow.train.saver import Saver


def test_freeze_trained_model_and_run_frozen_graph():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        w = tf.Variable(tf.zeros([2, 1]), name="w")
        b = tf.Variable(0.0, name="b")
        pred = tf.identity(tf.matmul(x, w) + b, name="pred")
        loss = tf.reduce_mean(tf.square(pred - y))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        Saver()
        data = {x: [[1.0, 2.0], [2.0, 1.0]], y: [[3.0], [3.0]]}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(20):
                sess.run(train, data)
            want = sess.run(pred, {x: [[0.5, 0.5]]})
            frozen = graph_util.convert_variables_to_constants(sess, g.as_graph_def(), ["pred"])
    types = {n.op for n in frozen.node}
    assert "VariableV2" not in types and "SaveV2" not in types and "ApplyGradientDescent" not in types
    assert {n.name for n in frozen.node if n.op == "Const"} >= {"w", "b"}
    with tf.Graph().as_default():
        (out,) = tf.import_graph_def(frozen, return_elements=["pred:0"], name="")
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(out, {"x:0": [[0.5, 0.5]]}), want, rtol=1e-6)
    # whitelist: only b is frozen
    with tf.Graph().as_default() as g:
        w = tf.Variable(1.0, name="w")
        b = tf.Variable(2.0, name="b")
        tf.add(w, b, name="out")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            part = graph_util.convert_variables_to_constants(
                sess, g.as_graph_def(), ["out"], variable_names_whitelist=["b"])
    ops_ = {n.name: n.op for n in part.node}
    assert ops_["w"] == "VariableV2" and ops_["b"] == "Const"


def test_extract_sub_graph():
    with tf.Graph().as_default() as g:
        a = tf.constant(1.0, name="a")
        b = tf.constant(2.0, name="b")
        c = tf.add(a, b, name="c")
        tf.multiply(c, 3.0, name="d")
        with tf.control_dependencies([b]):
            tf.identity(a, name="e")
    sub = graph_util.extract_sub_graph(g.as_graph_def(), ["c"])
    assert [n.name for n in sub.node] == ["a", "b", "c"]
    assert [n.name for n in graph_util.extract_sub_graph(g.as_graph_def(), ["e"]).node] == [
        "a", "b", "e"]
    with pytest.raises(TypeError, match="must be a list"):
        graph_util.extract_sub_graph(g.as_graph_def(), "c")
    with pytest.raises(AssertionError, match="zz is not in graph"):
        graph_util.extract_sub_graph(g.as_graph_def(), ["zz"])


def test_remove_training_nodes():
    with tf.Graph().as_default() as g:
        a = tf.constant([1.0], name="a")
        i = tf.identity(a, name="i")
        c = tf.check_numerics(i, "msg", name="chk")
        tf.multiply(c, 2.0, name="out")
        tf.identity(a, name="kept")
    out = graph_util.remove_training_nodes(g.as_graph_def(), protected_nodes=["kept"])
    names = {n.name: n for n in out.node}
    assert "i" not in names and "chk" not in names and "kept" in names
    assert names["out"].input[0] == "a"
    with tf.Graph().as_default():
        (r,) = tf.import_graph_def(out, return_elements=["out:0"], name="")
        with tf.Session() as sess:
            assert sess.run(r).tolist() == [2.0]


def test_shape_and_cpu_helpers():
    with tf.Graph().as_default() as g:
        tf.placeholder(tf.float32, [None, 4], name="p")
        s = tf.constant("s", name="s")
        f = tf.constant(1.0, name="f")
    assert graph_util.tensor_shape_from_node_def_name(g, "p").as_list() == [None, 4]
    assert graph_util.must_run_on_cpu(s.op) and not graph_util.must_run_on_cpu(f.op)
    assert graph_util.must_run_on_cpu(g.get_operation_by_name("p").node_def) is False
