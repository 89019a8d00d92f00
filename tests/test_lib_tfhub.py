"""Differences found by running TensorFlow Hub 0.7.0 (``hub.Module``: modules built by a
module_fn, exported as a SavedModel plus tfhub_module.pb, imported with
``import_meta_graph(input_map=..., import_scope=...)``) against tideflow, each reduced to the
plain TF 1.x calls the library makes."""

import importlib

import numpy as np
import pytest

import tideflow as tf
from tideflow.protos import attr_value_pb2


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ----------------------------------------------------------------------------------------
# imports the library makes
# ----------------------------------------------------------------------------------------


def test_star_import_of_compat_v1_binds_lazily_loaded_namespaces():
    # tf_v1.py does ``from tensorflow.compat.v1 import *`` and then uses tf_v1.estimator
    ns = {}
    exec("from tideflow.compat.v1 import *", ns)  # noqa: S102 (the star import itself)
    for name in ("estimator", "feature_column", "saved_model", "train", "lookup", "placeholder",
                 "GraphKeys", "Session"):
        assert name in ns, name
    assert ns["estimator"] is tf.estimator
    assert not any(k.startswith(("_", "contrib_")) for k in ns if k != "__builtins__")


def test_feature_column_v2_module_path():
    fc2 = importlib.import_module("tideflow.python.feature_column.feature_column_v2")
    assert fc2.numeric_column is tf.feature_column.numeric_column
    # the resource-holding column API of TF 2 is absent, so libraries fall back to v1 columns
    assert not hasattr(fc2, "_StateManagerImpl")
    assert fc2.is_feature_column_v2([tf.feature_column.numeric_column("n")])


# ----------------------------------------------------------------------------------------
# graph internals hub.Module touches
# ----------------------------------------------------------------------------------------


def test_graph_has_no_control_flow_context_at_top_level():
    assert tf.get_default_graph()._get_control_flow_context() is None


def test_set_attr_takes_an_attr_value_proto():
    # hub rewrites colocation after import with op._set_attr("_class", AttrValue(list=...))
    p = tf.constant(4.0, name="p")
    q = tf.constant(5.0, name="q")
    r = tf.multiply(p, q, name="r")
    r.op._set_attr("_class", attr_value_pb2.AttrValue(
        list=attr_value_pb2.AttrValue.ListValue(s=[b"loc:@p", b"loc:@q"])))
    assert r.op.colocation_groups() == [b"loc:@p", b"loc:@q"]
    assert r.op.get_attr("_class") == [b"loc:@p", b"loc:@q"]
    node = next(n for n in tf.get_default_graph().as_graph_def().node if n.name == "r")
    assert list(node.attr["_class"].list.s) == [b"loc:@p", b"loc:@q"]
    with tf.Session() as sess:
        assert sess.run(r) == 20.0
    # a declared attr is converted to its Python value
    s = tf.reduce_sum(tf.placeholder(tf.float32, [2, 3]), 1)
    s.op._set_attr("keep_dims", attr_value_pb2.AttrValue(b=True))
    assert s.op.get_attr("keep_dims") is True


def test_convert_to_tensor_or_indexed_slices_keeps_a_sparse_tensor():
    sp = tf.SparseTensor([[1, 0]], tf.constant([7], tf.int64), [3, 2])
    assert tf.convert_to_tensor_or_indexed_slices(sp) is sp
    assert tf.convert_to_tensor_or_indexed_slices(sp, tf.int64) is sp
    with pytest.raises(ValueError, match="requested dtype int32 for Tensor with dtype int64"):
        tf.convert_to_tensor_or_indexed_slices(sp, tf.int32)
    dense = tf.convert_to_tensor_or_indexed_slices([1.5, 2.5])
    assert isinstance(dense, tf.Tensor)


# ----------------------------------------------------------------------------------------
# importing under a control-dependency context
# ----------------------------------------------------------------------------------------


def _small_graph_def():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.int64, name="x")
        k = tf.constant(6, tf.int64, name="k")
        tf.identity(tf.multiply(x, k, name="y"), name="z")
    return g.as_graph_def()


def test_import_graph_def_inside_control_dependencies_waits_on_them():
    gd = _small_graph_def()
    v = tf.placeholder(tf.int64, name="v")
    with tf.control_dependencies([v]):
        tf.import_graph_def(gd, input_map={"x": v}, name="imp")
    g = tf.get_default_graph()
    for name in ("imp/x", "imp/k", "imp/y", "imp/z"):
        assert [c.name for c in g.get_operation_by_name(name).control_inputs] == ["v"], name
    # outside the context nothing is added
    tf.import_graph_def(gd, input_map={"x": v}, name="free")
    assert g.get_operation_by_name("free/z").control_inputs == []
    with tf.Session() as sess:
        assert sess.run("imp/z:0", {v: 2}) == 12


def test_import_meta_graph_inside_control_dependencies_waits_on_them():
    meta = tf.train.export_meta_graph(graph_def=_small_graph_def())
    v = tf.placeholder(tf.int64, name="v")
    w = tf.placeholder(tf.int64, name="w")
    with tf.control_dependencies([v]), tf.control_dependencies([w]):
        tf.train.import_meta_graph(meta, input_map={"x": v}, import_scope="mg")
    z = tf.get_default_graph().get_operation_by_name("mg/z")
    assert sorted(c.name for c in z.control_inputs) == ["v", "w"]
    with tf.Session() as sess:
        assert sess.run("mg/z:0", {v: 3, w: 0}) == 18


def test_module_like_import_differs_only_when_applied_under_control_dependencies():
    # hub.Module clears the context for its state graph but keeps it for the apply graph:
    # the two GraphDefs must differ exactly when the call sits under control_dependencies
    meta = tf.train.export_meta_graph(graph_def=_small_graph_def())

    def build(under_deps):
        with tf.Graph().as_default() as g:
            v = tf.placeholder(tf.int64, name="v")
            if under_deps:
                with tf.control_dependencies([v]):
                    tf.train.import_meta_graph(meta, input_map={"x": v}, import_scope="m")
            else:
                tf.train.import_meta_graph(meta, input_map={"x": v}, import_scope="m")
        return g.as_graph_def()

    assert build(False) == build(False)
    assert build(False) != build(True)


def test_table_from_asset_file_through_meta_graph_round_trip(tmp_path):
    vocab = tmp_path / "words.txt"
    vocab.write_text("oak\nelm\nash\n")
    with tf.Graph().as_default() as g:
        ids = tf.placeholder(tf.int64, name="ids")
        table = tf.contrib.lookup.index_to_string_table_from_file(str(vocab),
                                                                  default_value="?")
        tf.identity(table.lookup(ids), name="words")
    meta = tf.train.export_meta_graph(graph=g)
    ids = tf.constant([2, 0, 7], tf.int64)
    tf.train.import_meta_graph(meta, input_map={"ids": ids}, import_scope="lex")
    out = tf.get_default_graph().get_tensor_by_name("lex/words:0")
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        assert list(sess.run(out)) == [b"ash", b"oak", b"?"]
    np.testing.assert_array_equal(
        len(tf.get_collection(tf.GraphKeys.TABLE_INITIALIZERS)), 1)


# ----------------------------------------------------------------------------------------
# op wrappers take an int attr as int(v), as TF's generated wrappers do
# ----------------------------------------------------------------------------------------


def test_hash_bucket_count_may_be_a_dimension():
    # a module_fn hashes into a table's rows: num_buckets=weights.get_shape()[0]
    table = tf.get_variable("rows", shape=[11, 2])
    words = tf.constant(["kite", "lark", "wren"])
    fast = tf.string_to_hash_bucket_fast(words, table.get_shape()[0])
    strong = tf.string_to_hash_bucket_strong(words, table.get_shape()[0], [3, 4])
    legacy = tf.string_to_hash_bucket(words, np.int64(11))
    assert fast.op.get_attr("num_buckets") == 11
    assert strong.op.get_attr("num_buckets") == 11
    assert legacy.op.get_attr("num_buckets") == 11
    with tf.Session() as sess:
        f, ref = sess.run([fast, tf.string_to_hash_bucket_fast(words, 11)])
    np.testing.assert_array_equal(f, ref)
    assert tf.string_to_hash_bucket_fast(words, 6.9).op.get_attr("num_buckets") == 6


def test_hash_bucket_count_errors():
    words = tf.constant(["kite"])
    with pytest.raises(TypeError, match="Expected int for argument 'num_buckets' not '4'"):
        tf.string_to_hash_bucket_fast(words, "4")
    with pytest.raises(ValueError, match="'StringToHashBucketFast' Op passed 0 less than minimum"):
        tf.string_to_hash_bucket_fast(words, 0)
    with pytest.raises(ValueError, match="'StringToHashBucketStrong' Op passed -2 less than"):
        tf.string_to_hash_bucket_strong(words, -2, [1, 2])


# ----------------------------------------------------------------------------------------
# gfile
# ----------------------------------------------------------------------------------------


def test_mkdir_of_an_existing_directory_is_no_error(tmp_path):
    # hub's resolver tests MkDir a fixed directory on every run
    d = str(tmp_path / "modules")
    tf.gfile.MkDir(d)
    tf.gfile.MkDir(d)
    tf.io.gfile.mkdir(d)
    assert tf.gfile.IsDirectory(d)
    with pytest.raises(tf.errors.NotFoundError):
        tf.gfile.MkDir(str(tmp_path / "absent" / "child"))
