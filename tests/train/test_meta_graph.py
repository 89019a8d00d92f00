"""Meta graphs: export, import into a fresh process with no model code, collections, scopes."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tideflow as tf
from tideflow.framework import meta_graph
from tideflow.train.saver import Saver, export_meta_graph, import_meta_graph

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _model():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    w = tf.Variable(tf.zeros([2, 1]), name="w")
    b = tf.Variable(0.0, name="b")
    gs = tf.train.get_or_create_global_step()
    pred = tf.add(tf.matmul(x, w), b, name="pred")
    loss = tf.reduce_mean(tf.square(pred - y), name="loss")
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
    tf.add_to_collection("train_op", train)
    return x, y, w, b, gs, train


FEED = {"x:0": [[1.0, 2.0]], "y:0": [[3.0]]}


def test_train_in_a_fresh_process(tmp_path):
    with tf.Graph().as_default():
        _, _, w, b, gs, train = _model()
        saver = Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train, FEED)
            path = saver.save(sess, str(tmp_path / "model"), global_step=gs)
            sess.run(train, FEED)  # the reference for the fresh process's step
            want = sess.run([w, b])
    assert path.endswith("model-1") and os.path.exists(path + ".meta")
    code = textwrap.dedent(f"""
        import json
        import tideflow as tf
        from tideflow.train.saver import import_meta_graph
        saver = import_meta_graph({path!r} + ".meta")
        train_op = tf.get_collection("train_op")[0]
        with tf.Session() as sess:
            saver.restore(sess, {path!r})
            sess.run(train_op, {FEED!r})
            w, b, step = sess.run(["w:0", "b:0", "global_step:0"])
            names = [v.op.name for v in tf.trainable_variables()]
            print(json.dumps({{"w": w.tolist(), "b": float(b), "step": int(step),
                              "names": names}}))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                         check=True).stdout
    got = json.loads(out.strip().splitlines()[-1])
    np.testing.assert_allclose(got["w"], want[0], rtol=1e-6)
    np.testing.assert_allclose(got["b"], want[1], rtol=1e-6)
    assert got["step"] == 2
    assert got["names"] == ["w", "b"]


def test_collections_round_trip(tmp_path):
    with tf.Graph().as_default():
        x = _model()[0]
        tf.add_to_collection("ints", 3)
        tf.add_to_collection("ints", 4)
        tf.add_to_collection("floats", 0.5)
        tf.add_to_collection("strings", "hello")
        tf.add_to_collection("tensors", x)
        tf.add_to_collection("unserializable", object())
        saver = Saver()
        mgd = saver.export_meta_graph(str(tmp_path / "m.meta"))
        kinds = {k: v.WhichOneof("kind") for k, v in mgd.collection_def.items()}
        assert kinds["ints"] == "int64_list" and kinds["floats"] == "float_list"
        assert kinds["strings"] == "bytes_list" and kinds["tensors"] == "node_list"
        assert kinds["variables"] == "bytes_list" and kinds["train_op"] == "node_list"
        assert "unserializable" not in kinds
        assert mgd.saver_def.restore_op_name == "save/restore_all"
        assert {op.name for op in mgd.meta_info_def.stripped_op_list.op} >= {"SaveV2", "MatMul"}
    with tf.Graph().as_default() as g:
        import_meta_graph(str(tmp_path / "m.meta"))
        assert g.get_collection("ints") == [3, 4]
        assert g.get_collection("floats") == [0.5]
        assert g.get_collection("strings") == [b"hello"]
        assert g.get_collection("tensors")[0].name == "x:0"
        gv = tf.global_variables()
        assert [v.name for v in gv] == ["w:0", "b:0", "global_step:0"]
        assert tf.trainable_variables()[0] is gv[0]  # one Variable object per variable
        assert tf.train.get_global_step().name == "global_step:0"


def test_import_scope_and_text_format(tmp_path):
    with tf.Graph().as_default():
        _model()
        Saver().export_meta_graph(str(tmp_path / "m.pbtxt"), as_text=True)
    assert "graph_def" in (tmp_path / "m.pbtxt").read_text()
    with tf.Graph().as_default() as g:
        saver = import_meta_graph(str(tmp_path / "m.pbtxt"), import_scope="imp")
        assert saver.as_saver_def().restore_op_name == "imp/save/restore_all"
        assert g.get_tensor_by_name("imp/pred:0") is not None
        assert [v.name for v in tf.global_variables()] == ["imp/w:0", "imp/b:0",
                                                           "imp/global_step:0"]


def test_clear_devices_and_export_scope(tmp_path):
    with tf.Graph().as_default():
        with tf.device("/cpu:0"), tf.name_scope("net"):
            v = tf.Variable(1.0, name="v")
            tf.identity(v, name="out")
        tf.Variable(2.0, name="outside")
        mgd = export_meta_graph(export_scope="net", clear_devices=True)
    names = {n.name for n in mgd.graph_def.node}
    assert "out" in names and "v" in names and not any(n.startswith("outside") for n in names)
    assert all(not n.device for n in mgd.graph_def.node)
    with tf.Graph().as_default():
        import_meta_graph(mgd, import_scope="copy")
        assert [v.name for v in tf.global_variables()] == ["copy/v:0"]


def test_missing_meta_graph_file(tmp_path):
    with tf.Graph().as_default(), pytest.raises(IOError, match="does not exist"):
        import_meta_graph(str(tmp_path / "nope.meta"))


def test_name_scope_helpers():
    assert meta_graph.prepend_name_scope("^a/b", "s") == "^s/a/b"
    assert meta_graph.prepend_name_scope("loc:@a", "s") == "loc:@s/a"
    assert meta_graph.strip_name_scope("s/a:0", "s") == "a:0"
    assert meta_graph.strip_name_scope("^s/a", "s") == "^a"
