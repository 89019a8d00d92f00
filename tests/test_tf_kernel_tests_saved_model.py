"""SavedModel behaviour found by running TF 1.15's own saved_model tests against tideflow:
the ``tensorflow.python.saved_model.*_impl`` import paths, TensorFlow Serving's signature
validity rules and the signature builders' dtype checks, supervised and op signatures, the
builder's reserved signature keys and single-init-op rule, asset files whose basenames collide,
``main_op`` (global + local variables + tables) and ``main_op_with_restore`` ordering, and the
internal ``_SavedModelBuilder`` (assets in ``asset_file_def``, init / train op signatures).
"""

import importlib
import os

import numpy as np
import pytest

import tideflow as tf
from tideflow.protos import meta_graph_pb2, types_pb2

sm = tf.saved_model
sdu = sm.signature_def_utils
loader_impl = importlib.import_module("tideflow.python.saved_model.loader_impl")


def _info(dtype, name="t"):
    return meta_graph_pb2.TensorInfo(name=name, dtype=dtype)


STR, FLT = _info(types_pb2.DT_STRING), _info(types_pb2.DT_FLOAT)


@pytest.mark.parametrize("mod", ["signature_def_utils_impl", "utils_impl", "loader_impl",
                                 "main_op_impl", "constants"])
def test_internal_saved_model_module_paths_import(mod):
    m = importlib.import_module("tideflow.python.saved_model." + mod)
    assert m is not None
    impl = importlib.import_module("tideflow.python.saved_model.signature_def_utils_impl")
    assert impl.build_signature_def is sdu.build_signature_def
    assert importlib.import_module("tideflow.python.saved_model.constants").ASSETS_KEY == (
        "saved_model_assets")


def _valid(inputs, outputs, method):
    return sdu.is_valid_signature(sdu.build_signature_def(inputs, outputs, method))


def test_is_valid_signature_follows_serving_rules_per_method():
    C, R, P = (sm.signature_constants.CLASSIFY_METHOD_NAME,
               sm.signature_constants.REGRESS_METHOD_NAME,
               sm.signature_constants.PREDICT_METHOD_NAME)
    assert _valid({"inputs": STR}, {"classes": STR, "scores": FLT}, C)
    assert _valid({"inputs": STR}, {"scores": FLT}, C)
    assert _valid({"inputs": STR}, {"outputs": FLT}, R)
    assert _valid({"a": STR, "b": FLT}, {"c": FLT}, P)
    # unknown method, wrong dtypes, wrong / missing / extra keys
    assert not _valid({"inputs": STR}, {"classes": STR}, "some/other/method")
    assert not _valid({"inputs": FLT}, {"classes": STR}, C)
    assert not _valid({"inputs": STR}, {"classes": FLT}, C)
    assert not _valid({"inputs": STR}, {"scores": STR}, C)
    assert not _valid({"inputs": STR}, {}, C)
    assert not _valid({"inputs": STR}, {"classes": STR, "extra": STR}, C)
    assert not _valid({"x": STR}, {"classes": STR}, C)
    assert not _valid({"inputs": FLT}, {"outputs": FLT}, R)
    assert not _valid({"inputs": STR}, {"outputs": STR}, R)
    assert not _valid({"inputs": STR}, {"outputs": FLT, "extra": FLT}, R)
    assert not _valid({}, {"c": FLT}, P)
    assert not _valid({"a": STR}, {}, P)
    assert not sdu.is_valid_signature(None)


def test_regression_and_classification_check_dtypes():
    with tf.Graph().as_default():
        s, f = tf.constant("a"), tf.constant(1.5)
        with pytest.raises(ValueError, match="Regression examples must be a string"):
            sdu.regression_signature_def(f, f)
        with pytest.raises(ValueError, match="Classification examples must be a string"):
            sdu.classification_signature_def(f, s, f)
        with pytest.raises(ValueError, match="classes must be a string"):
            sdu.classification_signature_def(s, f, None)
        with pytest.raises(ValueError, match="scores must be a float"):
            sdu.classification_signature_def(s, None, s)
        sig = sdu.classification_signature_def(s, s, f)
        assert sorted(sig.outputs) == ["classes", "scores"]
        assert sdu.is_valid_signature(sig)


def test_supervised_signatures_merge_loss_predictions_metrics():
    with tf.Graph().as_default():
        inputs = {"x": tf.constant("a", name="x"), "y": tf.constant("b", name="y")}
        loss = {"loss": tf.constant(0.5, name="loss")}
        preds = {"classes": tf.constant([7], name="classes")}
        metrics = {"m/value": tf.constant(1.0, name="mv")}
        sig = sdu.supervised_train_signature_def(inputs, loss, preds, metrics)
        assert sig.method_name == sm.signature_constants.SUPERVISED_TRAIN_METHOD_NAME
        assert sorted(sig.outputs) == ["classes", "loss", "m/value"]
        assert sig.outputs["classes"].tensor_shape.dim[0].size == 1
        ev = sdu.supervised_eval_signature_def(inputs, loss=loss)
        assert ev.method_name == "tensorflow/supervised/eval"
        assert list(ev.outputs) == ["loss"]
        with pytest.raises(ValueError):
            sdu.supervised_train_signature_def({}, loss=loss)


def test_op_signature_round_trip():
    with tf.Graph().as_default():
        op = tf.add(1, 2, name="adding")
        sig = sdu.op_signature_def(op, "k")
        assert sig.outputs["k"].name == op.name
        assert sdu.load_op_from_signature_def(sig, "k") is op
        grp = tf.group(name="g")
        assert sdu.load_op_from_signature_def(sdu.op_signature_def(grp, "k"), "k") is grp


def _session_with_var(value=42):
    sess = tf.Session(graph=tf.Graph())
    with sess.graph.as_default():
        v = tf.Variable(value, name="v")
        sess.run(v.initializer)
    return sess


@pytest.mark.parametrize("key", ["__saved_model_init_op", "__saved_model_train_op"])
def test_reserved_signature_keys_are_rejected(tmp_path, key):
    b = sm.builder.SavedModelBuilder(str(tmp_path / "e"))
    sig = sdu.build_signature_def({}, {"o": FLT}, "m")
    with _session_with_var() as sess, pytest.raises(KeyError, match="reserved"):
        b.add_meta_graph_and_variables(sess, ["foo"], signature_def_map={key: sig})


@pytest.mark.parametrize("key", ["legacy_init_op", "saved_model_main_op"])
def test_second_init_op_in_a_graph_is_rejected(tmp_path, key):
    b = sm.builder.SavedModelBuilder(str(tmp_path / "e"))
    with _session_with_var() as sess, sess.graph.as_default():
        tf.add_to_collection(key, tf.no_op())
        init = tf.no_op(name="init_op")
        for kw in ("legacy_init_op", "main_op"):
            with pytest.raises(ValueError, match="Graph already contains one or more main ops"):
                b.add_meta_graph_and_variables(sess, ["foo"], **{kw: init})


def _asset(tmp_path, sub, name, text, tensor_name):
    d = tmp_path / sub
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_text(text)
    c = tf.constant(str(d / name), name=tensor_name)
    tf.add_to_collection(tf.GraphKeys.ASSET_FILEPATHS, c)
    return tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS)


def _load_assets(export_dir, tags, field):
    with tf.Session(graph=tf.Graph()) as sess:
        mgd = sm.loader.load(sess, tags, export_dir)
    if field == "asset_file_def":
        protos = list(mgd.asset_file_def)
    else:
        protos = []
        for packed in mgd.collection_def[sm.constants.ASSETS_KEY].any_list.value:
            p = meta_graph_pb2.AssetFileDef()
            p.ParseFromString(packed.value)
            protos.append(p)
    return [(p.filename, p.tensor_info.name,
             open(os.path.join(export_dir, "assets", p.filename)).read()) for p in protos]


def test_colliding_asset_basenames_get_suffixes(tmp_path):
    export_dir = str(tmp_path / "e")
    b = sm.builder.SavedModelBuilder(export_dir)
    with _session_with_var() as sess, sess.graph.as_default():
        _asset(tmp_path, "a", "vocab.txt", "one", "a0")
        _asset(tmp_path, "b", "vocab.txt", "two", "a1")
        _asset(tmp_path, "c", "vocab.txt", "one", "a2")  # same contents as a0: shares its file
        assets = _asset(tmp_path, "d", "vocab.txt", "three", "a3")
        b.add_meta_graph_and_variables(sess, ["foo"], assets_collection=assets)
    b.save()
    assert _load_assets(export_dir, ["foo"], "collection") == [
        ("vocab.txt", "a0:0", "one"), ("vocab.txt_1", "a1:0", "two"),
        ("vocab.txt", "a2:0", "one"), ("vocab.txt_2", "a3:0", "three")]
    assert sorted(os.listdir(os.path.join(export_dir, "assets"))) == [
        "vocab.txt", "vocab.txt_1", "vocab.txt_2"]


def test_asset_of_a_later_meta_graph_keeps_the_first_file(tmp_path):
    export_dir = str(tmp_path / "e")
    b = sm.builder._SavedModelBuilder(export_dir)
    with _session_with_var() as sess, sess.graph.as_default():
        b.add_meta_graph_and_variables(
            sess, ["foo"], assets_list=_asset(tmp_path, "x", "f.txt", "first", "t"))
    with _session_with_var() as sess, sess.graph.as_default():
        b.add_meta_graph(["bar"], assets_list=_asset(tmp_path, "y", "f.txt", "second", "t"))
    b.save()
    assert _load_assets(export_dir, ["foo"], "asset_file_def") == [("f.txt", "t:0", "first")]
    assert _load_assets(export_dir, ["bar"], "asset_file_def") == [("f.txt", "t:0", "first")]


def test_loaded_asset_tensor_is_fed_its_exported_path(tmp_path):
    export_dir = str(tmp_path / "e")
    b = sm.builder._SavedModelBuilder(export_dir)
    with _session_with_var() as sess, sess.graph.as_default():
        assets = _asset(tmp_path, "x", "f.txt", "hello", "asset_path")
        b.add_meta_graph_and_variables(sess, ["foo"], assets_list=assets,
                                       init_op=tf.no_op(name="my_init"))
    b.save()
    with tf.Session(graph=tf.Graph()) as sess:
        mgd = sm.loader.load(sess, ["foo"], export_dir, import_scope="s")
        assert mgd.signature_def["__saved_model_init_op"].outputs[
            "__saved_model_init_op"].name == "my_init"
        assert loader_impl.get_init_op(mgd, import_scope="s").name == "s/my_init"
        t = sess.graph.get_tensor_by_name("s/asset_path:0")
        path = os.path.join(export_dir, "assets", "f.txt")
        # a fetched fed tensor is the fed value itself (TF: a 0-d object array holding the str)
        assert sess.run(t, {t: path}).item() == path


def test_main_op_initializes_global_variables_and_restore_wins(tmp_path):
    with tf.Graph().as_default():
        g = tf.Variable(3.0, name="g")
        loc = tf.Variable(5.0, name="loc", collections=[tf.GraphKeys.LOCAL_VARIABLES])
        with tf.Session() as sess:
            sess.run(sm.main_op.main_op())
            np.testing.assert_allclose(sess.run([g, loc]), [3.0, 5.0])
            sess.run(g.assign(7.0))
            saver = tf.train.Saver([g])
            path = saver.save(sess, str(tmp_path / "ckpt"))
            sess.run(g.assign(-1.0))
            # the restore runs after the initializers: the checkpointed 7.0 is what remains
            op = sm.main_op_with_restore(saver.saver_def.restore_op_name)
            sess.run(op, {saver.saver_def.filename_tensor_name: path})
            np.testing.assert_allclose(sess.run([g, loc]), [7.0, 5.0])


def test_internal_builder_init_and_train_op_signatures(tmp_path):
    export_dir = str(tmp_path / "e")
    b = sm.builder._SavedModelBuilder(export_dir)
    with tf.Session(graph=tf.Graph()) as sess:
        v1 = tf.Variable(1, name="v1")
        v2 = tf.Variable(2, name="v2")
        v3 = tf.Variable(0, name="v3", collections=[])  # not saved: set by the init op
        sess.run(tf.global_variables_initializer())
        train = tf.assign_add(v1, v2)
        sess.run(train)  # v1 = 3 is what the checkpoint holds
        init = tf.group(tf.assign(v3, 10), name="my_init")
        b.add_meta_graph_and_variables(sess, ["foo"], init_op=init, train_op=train)
        b.add_meta_graph(["grp"], train_op=tf.group(name="noop_train"))
        b.add_meta_graph(["plain"])
    b.save()
    with tf.Session(graph=tf.Graph()) as sess:
        mgd = sm.loader.load(sess, ["foo"], export_dir)
        assert sess.run(sess.graph.get_tensor_by_name("v1:0")) == 3
        assert sess.run(sess.graph.get_tensor_by_name("v3:0")) == 10  # init op ran on load
        assert isinstance(loader_impl.get_train_op(mgd), tf.Tensor)
    with tf.Session(graph=tf.Graph()) as sess:
        mgd = sm.loader.load(sess, ["grp"], export_dir)
        assert isinstance(loader_impl.get_train_op(mgd), tf.Operation)
    with tf.Session(graph=tf.Graph()) as sess:
        assert loader_impl.get_train_op(sm.loader.load(sess, ["plain"], export_dir)) is None


def _export_xy(builder_cls, path, with_init):
    """x = 5, y = 11 saved; the init op (when asked) sets y to 7 on load."""
    g = tf.Graph()
    with g.as_default(), tf.Session(graph=g) as sess:
        x = tf.Variable(5, name="x")
        y = tf.Variable(11, name="y")
        z = tf.add(x, y, name="z")
        sig = sdu.build_signature_def({"x": sm.utils.build_tensor_info(x)},
                                      {"z": sm.utils.build_tensor_info(z)})
        sess.run(tf.global_variables_initializer())
        b = builder_cls(path)
        kw = {}
        if with_init:
            op = tf.group(tf.assign(y, 7))
            kw = {"init_op" if builder_cls is sm.builder._SavedModelBuilder else "main_op": op}
        b.add_meta_graph_and_variables(sess, ["g"], {"sig": sig}, **kw)
        b.save()


@pytest.mark.parametrize("internal", [False, True])
def test_saved_model_loader_steps(tmp_path, internal):
    cls = sm.builder._SavedModelBuilder if internal else sm.builder.SavedModelBuilder
    path = str(tmp_path / "e")
    _export_xy(cls, path, with_init=True)
    loader = loader_impl.SavedModelLoader(path)
    assert "sig" in loader.get_meta_graph_def_from_tags(["g"]).signature_def
    for tags in ([], [""], ["other"]):
        with pytest.raises(RuntimeError, match="could not be found in SavedModel"):
            loader.get_meta_graph_def_from_tags(tags)
    g = tf.Graph()
    saver, elems = loader.load_graph(g, ["g"], import_scope="s", return_elements=["z:0"])
    assert elems[0] is g.get_tensor_by_name("s/z:0")  # named as in the saved graph_def
    with tf.Session(graph=g) as sess:
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run("s/x:0")  # imported, not yet restored
        with g.as_default(), pytest.raises(ValueError, match="saver is required"):
            loader.restore_variables(sess, None)
        loader.restore_variables(sess, saver)
        assert sess.run(["s/x:0", "s/y:0"]) == [5, 11]
        if internal:  # the init op signature names the unscoped op
            with pytest.raises(tf.errors.NotFoundError):
                loader.run_init_ops(sess, ["g"])
        loader.run_init_ops(sess, ["g"], import_scope="s")
        assert sess.run(["s/x:0", "s/y:0", "s/z:0"]) == [5, 7, 12]
    with tf.Session(graph=tf.Graph()) as sess:
        loader.load(sess, ["g"])
        assert sess.run(["x:0", "y:0"]) == [5, 7]


def test_loader_load_graph_return_elements(tmp_path):
    path = str(tmp_path / "e")
    _export_xy(sm.builder.SavedModelBuilder, path, with_init=False)
    loader = sm.loader.SavedModelLoader(path)
    g = tf.Graph()
    saver, elems = loader.load_graph(g, ["g"], return_elements=["y:0", "z"])
    assert saver is not None
    assert elems[0] is g.get_tensor_by_name("y:0")
    assert elems[1] is g.get_operation_by_name("z")
    with pytest.raises(ValueError, match="not found in graph"):
        loader.load_graph(tf.Graph(), ["g"], return_elements=["nope:0"])


def test_simple_save_module_path_and_ref_dtypes_in_signature(tmp_path):
    from tideflow.python.saved_model import simple_save  # the module, as TF's path is

    export_dir = str(tmp_path / "e")
    with tf.Session(graph=tf.Graph()) as sess:
        x = tf.Variable(1, name="var_x")
        y = tf.Variable([2.0, 3.0], name="var_y")
        sess.run(tf.global_variables_initializer())
        # a TF 1.x (ref) variable's TensorInfo carries its ref dtype
        assert sm.utils.build_tensor_info(x).dtype == types_pb2.DT_INT32_REF
        assert sm.utils.build_tensor_info(x.value()).dtype == types_pb2.DT_INT32
        simple_save.simple_save(sess, export_dir, {"x": x}, {"y": y})
    with tf.Session(graph=tf.Graph()) as sess:
        mgd = sm.loader.load(sess, [sm.tag_constants.SERVING], export_dir)
        assert [v.name for v in tf.global_variables()] == ["var_x:0", "var_y:0"]
        np.testing.assert_allclose(sess.run("var_y:0"), [2.0, 3.0])
        sig = mgd.signature_def["serving_default"]
        assert sig.method_name == "tensorflow/serving/predict"
        assert sig.outputs["y"].dtype == types_pb2.DT_FLOAT_REF
        assert [d.size for d in sig.outputs["y"].tensor_shape.dim] == [2]


def test_constants_namespace_names():
    c = sm.constants
    assert (c.INIT_OP_SIGNATURE_KEY, c.TRAIN_OP_SIGNATURE_KEY, c.TRAIN_OP_KEY) == (
        "__saved_model_init_op", "__saved_model_train_op", "saved_model_train_op")
    assert (c.DEBUG_DIRECTORY, c.DEBUG_INFO_FILENAME_PB, c.EXTRA_ASSETS_DIRECTORY) == (
        "debug", "saved_model_debug_info.pb", "assets.extra")
    sc = sm.signature_constants
    assert (sc.SUPERVISED_TRAIN_METHOD_NAME, sc.SUPERVISED_EVAL_METHOD_NAME) == (
        "tensorflow/supervised/training", "tensorflow/supervised/eval")


def _node(op, name, inputs):
    from tideflow.protos import node_def_pb2

    n = node_def_pb2.NodeDef(op=op, name=name)
    n.input.extend(inputs)
    return n


def test_remove_training_nodes_output_equals_the_expected_graph_def():
    from tideflow.protos import graph_pb2

    gd = graph_pb2.GraphDef()
    gd.node.extend([_node("Aop", "A", ["B"]), _node("Identity", "B", ["C"]),
                    _node("Identity", "C", ["D"]), _node("Dop", "D", [])])
    want = graph_pb2.GraphDef()
    want.node.extend([_node("Aop", "A", ["D"]), _node("Dop", "D", [])])
    assert tf.graph_util.remove_training_nodes(gd) == want  # no library / versions added
    # an Identity feeding a control edge stays: the graph comes back unchanged
    kept = graph_pb2.GraphDef()
    kept.node.extend([_node("Const", "C", ["^I"]), _node("Identity", "I", ["Base"]),
                      _node("BaseOp", "Base", [])])
    assert tf.graph_util.remove_training_nodes(kept) == kept
    # TF 1.15 returns the nodes only: the input's versions are not kept
    with tf.Graph().as_default() as g:
        tf.identity(tf.constant(1.0), name="out")
    assert not tf.graph_util.remove_training_nodes(g.as_graph_def()).HasField("versions")


def test_stripped_op_list_follows_library_functions():
    from tideflow.framework import meta_graph
    from tideflow.protos import graph_pb2

    g = graph_pb2.GraphDef()
    a, b = g.library.function.add(), g.library.function.add()
    a.signature.name, b.signature.name = "A", "B"
    a.node_def.add().op = "B"  # A calls B, B calls A (a cycle) and uses Const and Square
    b.node_def.add().op = "Const"
    b.node_def.add().op = "A"
    b.node_def.add().op = "Square"
    g.node.add().op = "A"
    assert meta_graph.ops_used_by_graph_def(g) == ["Const", "Square"]
    assert [o.name for o in meta_graph.stripped_op_list_for_graph(g).op] == ["Const", "Square"]


def test_meta_graph_import_without_a_saver_rebuilds_variables():
    from tideflow.python.framework import meta_graph

    with tf.Graph().as_default() as g1:
        v = tf.Variable([1.0, 2.0, 3.0], dtype=tf.float64, name="v")
    mgd, _ = meta_graph.export_scoped_meta_graph(graph=g1)
    # the same VariableDef bytes under the metric-variables key come back as a Variable too
    mgd.collection_def[tf.GraphKeys.METRIC_VARIABLES].CopyFrom(mgd.collection_def["variables"])
    with tf.Graph().as_default() as g2:
        meta_graph.import_scoped_meta_graph(mgd)
        (metric,) = g2.get_collection(tf.GraphKeys.METRIC_VARIABLES)
        assert isinstance(metric, tf.Variable)
        assert (metric.name, metric.dtype, metric.shape.as_list()) == (v.name, v.dtype, [3])
        assert g2.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)[0] is g2.get_collection(
            tf.GraphKeys.TRAINABLE_VARIABLES)[0]
