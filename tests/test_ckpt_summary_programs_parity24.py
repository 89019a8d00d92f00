"""Checkpoint, summary, monitored-training and SavedModel programs as TF 1.x users write them,
pinned to what TF 1.15 prints and writes (every expected value here was measured in TF 1.15)."""

import logging
import os

import numpy as np
import pytest

import tideflow as tf
from tideflow.python.tools import inspect_checkpoint


def _save_partitioned(path):
    with tf.Graph().as_default():
        tf.get_variable("a", [3], initializer=tf.zeros_initializer())
        tf.get_variable("p", [10, 3], initializer=tf.ones_initializer(),
                        partitioner=tf.fixed_size_partitioner(3))
        tf.get_variable("big", [70000, 1], initializer=tf.zeros_initializer(),
                        partitioner=tf.fixed_size_partitioner(2))
        tf.get_variable("c", [9, 130], initializer=tf.zeros_initializer(),
                        partitioner=tf.fixed_size_partitioner(2, axis=1))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            return tf.train.Saver().save(s, path)


def test_debug_string_lists_the_slices_of_partitioned_variables_under_their_keys(tmp_path):
    reader = tf.train.NewCheckpointReader(_save_partitioned(str(tmp_path / "m")))
    # measured in TF 1.15: the bundle index's keys in order, a sliced tensor as its slices
    # (OrderedCode: name, rank, then signed start/length per dimension), the full entry skipped
    assert reader.debug_string() == (
        b"\x00big\x00\x01\x01\x02\x80\xe0\x88\xb8\x80\x81 (DT_FLOAT) [35000,1]\n"
        b"\x00big\x00\x01\x01\x02\xe0\x88\xb8\xe0\x88\xb8\x80\x81 (DT_FLOAT) [35000,1]\n"
        b"\x00c\x00\x01\x01\x02\x80\x89\x80\xc0A (DT_FLOAT) [9,65]\n"
        b"\x00c\x00\x01\x01\x02\x80\x89\xc0A\xc0A (DT_FLOAT) [9,65]\n"
        b"\x00p\x00\x01\x01\x02\x80\x84\x80\x83 (DT_FLOAT) [4,3]\n"
        b"\x00p\x00\x01\x01\x02\x84\x83\x80\x83 (DT_FLOAT) [3,3]\n"
        b"\x00p\x00\x01\x01\x02\x87\x83\x80\x83 (DT_FLOAT) [3,3]\n"
        b"a (DT_FLOAT) [3]\n")
    assert sorted(reader.get_variable_to_shape_map().items()) == [
        ("a", [3]), ("big", [70000, 1]), ("c", [9, 130]), ("p", [10, 3])]


def test_inspect_checkpoint_listing_of_a_partitioned_checkpoint_fails_as_tf(tmp_path, capsys):
    path = _save_partitioned(str(tmp_path / "m"))
    inspect_checkpoint.print_tensors_in_checkpoint_file(path, tensor_name="", all_tensors=False)
    # TF 1.15 decodes the listing as UTF-8 and prints the decode error instead
    assert capsys.readouterr().out == (
        "'utf-8' codec can't decode byte 0x80 in position 8: invalid start byte\n")
    inspect_checkpoint.print_tensors_in_checkpoint_file(path, tensor_name="p", all_tensors=False)
    assert capsys.readouterr().out == (
        "tensor_name:  p\n" + str(np.ones([10, 3], np.float32)) + "\n"
        "# Total number of params: 71203\n")


def test_image_summary_bad_color_default_is_spelled_as_tf_in_node_and_op_defs():
    with tf.Graph().as_default() as g:
        tf.summary.image("img", tf.zeros([1, 2, 2, 3]))
        meta = tf.train.export_meta_graph()
    node = next(n for n in g.as_graph_def().node if n.op == "ImageSummary")
    op = next(o for o in meta.meta_info_def.stripped_op_list.op if o.name == "ImageSummary")
    default = next(a for a in op.attr if a.name == "bad_color").default_value.tensor
    # TF 1.15 writes the opaque red default element by element, never as tensor_content
    for t in (node.attr["bad_color"].tensor, default):
        assert list(t.int_val) == [255, 0, 0, 255] and t.tensor_content == b""
        assert t.dtype == tf.uint8.as_datatype_enum and t.tensor_shape.dim[0].size == 4
    # TF 1.15: 580 bytes with its 23-character git version; the GraphDef 223 bytes
    assert len(meta.SerializeToString()) - len(tf.__git_version__) == 580 - 23
    assert len(g.as_graph_def().SerializeToString()) == 223


def test_list_attr_minimums_are_tf_s_in_exported_op_defs():
    with tf.Graph().as_default():
        v = tf.Variable([1.0], name="v")
        tf.squeeze(tf.identity_n([v.value()])[0])
        tf.Print(v, [])
        tf.train.Saver()
        meta = tf.train.export_meta_graph()
        # measured in TF 1.15: empty lists fail where the OpDef has minimum 1
        for make, op in ((lambda: tf.Assert(True, []), "Assert"),
                         (lambda: tf.identity_n([]), "IdentityN")):
            with pytest.raises(ValueError, match=f"Attr 'T' of '{op}' Op passed list of length 0 "
                                                 "less than minimum 1."):
                make()
    attrs = {(o.name, a.name): (a.has_minimum, a.minimum)
             for o in meta.meta_info_def.stripped_op_list.op for a in o.attr if "list" in a.type}
    # TF 1.15's registrations: SaveV2/RestoreV2 dtypes >= 1, IdentityN T >= 1, Squeeze
    # squeeze_dims >= 0, Print U >= 0
    assert attrs == {("IdentityN", "T"): (True, 1), ("Print", "U"): (True, 0),
                     ("RestoreV2", "dtypes"): (True, 1), ("SaveV2", "dtypes"): (True, 1),
                     ("Squeeze", "squeeze_dims"): (True, 0)}


def test_meta_graph_with_cleared_devices_keeps_control_inputs_in_the_order_added():
    with tf.Graph().as_default() as g:
        tf.group(tf.no_op(name="c"), tf.no_op(name="a"), tf.no_op(name="b"), name="init")

        def inputs(gd):
            return next(list(n.input) for n in gd.node if n.name == "init")

        # measured in TF 1.15: the C++ GraphDef writer sorts control inputs; the Python exporter
        # (clear_devices, export_scope, clear_extraneous_savers) copies each op's own NodeDef
        assert inputs(g.as_graph_def()) == ["^a", "^b", "^c"]
        assert inputs(tf.train.export_meta_graph().graph_def) == ["^a", "^b", "^c"]
        assert inputs(tf.train.export_meta_graph(clear_devices=True).graph_def) == [
            "^c", "^a", "^b"]


def test_checkpoint_state_into_a_missing_directory_is_a_not_found_error(tmp_path):
    missing = str(tmp_path / "upd")
    # measured in TF 1.15: NotFoundError naming the temporary file beside the state file
    with pytest.raises(tf.errors.NotFoundError) as info:
        tf.train.update_checkpoint_state(missing, missing + "/m-3", latest_filename="ck2")
    assert info.value.message.startswith(missing + "/ck2.tmp")
    assert info.value.message.endswith("; No such file or directory")
    assert len(info.value.message) == len(missing) + len("/ck2.tmp") + 32 + 27


# measured in TF 1.15: the order of get_variable_to_shape_map() for these 20 names (the
# iteration order of the C++ unordered_map TF's reader builds)
_TF_MAP_ORDER = [
    "z0/ha33bh/yf3cy", "x3bc22", "cge31y/azzc0e/z", "g0zbb11f", "z0ehg3e",
    "xehbx12_/yyzbf1/dz_hc_xb", "g1gfa1", "a", "c10dxc2f13/zca", "ax_ybceehygf", "d", "d/b1x3",
    "fbexz/ffb2yfh", "dzexf2a/ydb", "e2/cyxyb", "bze0dy/ha2h0c10azx", "exebyceefaab",
    "cxgbc1_/h22cydxhb/dg", "d2hay/hc", "hfcgbyxc/xhfe1yg2fa"]


def test_variable_maps_iterate_in_tf_s_order(tmp_path):
    with tf.Graph().as_default():
        for name in sorted(_TF_MAP_ORDER):
            tf.Variable(0.0, name=name)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            path = tf.train.Saver().save(s, str(tmp_path / "m"), write_meta_graph=False)
    reader = tf.train.NewCheckpointReader(path)
    assert list(reader.get_variable_to_shape_map()) == _TF_MAP_ORDER
    assert list(reader.get_variable_to_dtype_map()) == _TF_MAP_ORDER


def test_init_from_checkpoint_missing_tensor_prints_the_map_in_tf_s_order(tmp_path):
    with tf.Graph().as_default():
        with tf.variable_scope("enc"):
            tf.get_variable("w", [2, 3])
            tf.get_variable("b", [3])
        with tf.variable_scope("dec"):
            tf.get_variable("v", [3])
            tf.get_variable("p", [6, 2], partitioner=tf.fixed_size_partitioner(2))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            path = tf.train.Saver().save(s, str(tmp_path / "model.ckpt"))
    with tf.Graph().as_default():
        tf.get_variable("q", [2, 3])
        with pytest.raises(ValueError) as info:
            tf.train.init_from_checkpoint(path, {"enc/zz": "q"})
    # measured in TF 1.15
    assert str(info.value) == (
        f"Tensor enc/zz is not found in {path} checkpoint "
        "{'enc/b': [3], 'dec/p': [6, 2], 'enc/w': [2, 3], 'dec/v': [3]}")


_NOT_A_TABLE = ("perhaps your file is in a different file format and you need to use a different "
                "restore operator?")


def test_restore_and_reader_given_the_wrong_file_fail_as_tf(tmp_path):
    with tf.Graph().as_default():
        tf.Variable(1.0, name="a")
        saver = tf.train.Saver()
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            path = saver.save(s, str(tmp_path / "m"), global_step=4)
            # measured in TF 1.15: the index given as the prefix is read as a V1 table
            with pytest.raises(tf.errors.NotFoundError,
                               match=f'Tensor name "a" not found in checkpoint files '
                                     f"{path}.index"):
                saver.restore(s, path + ".index")
            with pytest.raises(tf.errors.DataLossError) as info:
                saver.restore(s, path + ".meta")
            assert info.value.message == (
                f"Unable to open table file {path}.meta: Data loss: not an sstable (bad magic "
                f"number): {_NOT_A_TABLE}")
    for bad, why in ((str(tmp_path), f"Failed precondition: {tmp_path}; Is a directory"),
                     (str(tmp_path / "checkpoint"), "Data loss: not an sstable (bad magic number)"),
                     (path + ".meta", "Data loss: not an sstable (bad magic number)")):
        with pytest.raises(tf.errors.DataLossError) as info:
            tf.train.NewCheckpointReader(bad)
        assert info.value.message == f"Unable to open table file {bad}: {why}: {_NOT_A_TABLE}"


def _two_graph_saved_model(export):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        k = tf.placeholder(tf.string, None, name="k")
        w = tf.Variable([[1.0], [2.0]], name="w")
        y = tf.matmul(x, w, name="y")
        rf = tf.read_file(k)
        builder = tf.saved_model.builder.SavedModelBuilder(export)
        sig = tf.saved_model.signature_def_utils.predict_signature_def(
            {"x": x, "k": k}, {"y": y, "rf": rf})
        cls = tf.saved_model.signature_def_utils.classification_signature_def(
            tf.constant(["e"]), tf.constant([["a"]]), tf.constant([[0.5]]))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            builder.add_meta_graph_and_variables(
                s, ["serve", "gpu"], signature_def_map={"serving_default": sig, "cls": cls})
        builder.save()


def test_saved_model_cli_show_and_scan_print_tf_s_lines(tmp_path, capsys):
    from tideflow.python.tools import saved_model_cli

    export = str(tmp_path / "sm")
    _two_graph_saved_model(export)

    def cli(*argv):
        saved_model_cli.main(list(argv))
        return capsys.readouterr().out

    # measured in TF 1.15's saved_model_cli
    assert cli("show", "--dir", export) == (
        "The given SavedModel contains the following tag-sets:\ngpu, serve\n")
    assert cli("show", "--dir", export, "--tag_set", "gpu,serve") == (
        "The given SavedModel MetaGraphDef contains SignatureDefs with the following keys:\n"
        'SignatureDef key: "cls"\nSignatureDef key: "serving_default"\n')
    assert cli("show", "--dir", export, "--tag_set", "serve,gpu", "--signature_def", "cls") == (
        "The given SavedModel SignatureDef contains the following input(s):\n"
        "  inputs['inputs'] tensor_info:\n      dtype: DT_STRING\n      shape: (1)\n"
        "      name: Const:0\n"
        "The given SavedModel SignatureDef contains the following output(s):\n"
        "  outputs['classes'] tensor_info:\n      dtype: DT_STRING\n      shape: (1, 1)\n"
        "      name: Const_1:0\n"
        "  outputs['scores'] tensor_info:\n      dtype: DT_FLOAT\n      shape: (1, 1)\n"
        "      name: Const_2:0\n"
        "Method name is: tensorflow/serving/classify\n")
    out = cli("show", "--dir", export, "--all")
    assert out.startswith(
        "\nMetaGraphDef with tag-set: 'serve, gpu' contains the following SignatureDefs:\n"
        "\nsignature_def['cls']:\n"
        "  The given SavedModel SignatureDef contains the following input(s):\n"
        "    inputs['inputs'] tensor_info:\n        dtype: DT_STRING\n")
    assert "    inputs['k'] tensor_info:\n        dtype: DT_STRING\n        shape: unknown_rank\n" \
           "        name: k:0\n" in out
    assert "    outputs['rf'] tensor_info:\n        dtype: DT_STRING\n        shape: ()\n" in out
    assert cli("scan", "--dir", export) == (
        "MetaGraph with tag set ['serve', 'gpu'] contains the following blacklisted ops: "
        "{'ReadFile'}\n")
    with pytest.raises(RuntimeError, match="MetaGraphDef associated with tag-set nope could "
                                           "not be found in SavedModel"):
        cli("show", "--dir", export, "--tag_set", "nope")
    assert capsys.readouterr().out == ""


def test_object_based_checkpoint_save_creates_its_directory(tmp_path):
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="vv")
        ckpt = tf.train.Checkpoint(v=v)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            prefix = str(tmp_path / "obj" / "ckpt")
            assert ckpt.save(prefix, session=s) == prefix + "-1"
    # measured in TF 1.15: the directory is made; two shards (the object graph sits apart)
    assert sorted(os.listdir(tmp_path / "obj")) == [
        "checkpoint", "ckpt-1.data-00000-of-00002", "ckpt-1.data-00001-of-00002", "ckpt-1.index"]
    assert list(tf.train.NewCheckpointReader(prefix + "-1").get_variable_to_shape_map()) == [
        "_CHECKPOINTABLE_OBJECT_GRAPH", "v/.ATTRIBUTES/VARIABLE_VALUE",
        "save_counter/.ATTRIBUTES/VARIABLE_VALUE"]


def test_freezing_logs_both_of_tf_s_counts(caplog):
    caplog.set_level(logging.INFO, logger="tensorflow")
    from tideflow.python.framework import graph_util

    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 3], name="input")
        w = tf.get_variable("w", [3, 2])
        b = tf.get_variable("b", [2])
        tf.identity(tf.matmul(x, w) + b, name="output")
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            graph_util.convert_variables_to_constants(s, g.as_graph_def(), ["output"],
                                                      variable_names_whitelist=["w"])
    # measured in TF 1.15
    info_lines = [r.getMessage() for r in caplog.records if r.name == "tensorflow"]
    assert info_lines == ["Froze 1 variables.", "Converted 1 variables to const ops."]


def test_small_histogram_sums_have_tf_s_last_digits():
    data = np.random.RandomState(0).randn(1000).astype(np.float32)
    with tf.Graph().as_default(), tf.Session() as s:
        h = tf.Summary.FromString(
            s.run(tf.summary.histogram("h", tf.constant(data)))).value[0].histo
    # measured in TF 1.15 (each value widened to double and added in order)
    assert (h.min, h.max, h.num) == (-3.046143054962158, 2.759355068206787, 1000.0)
    assert h.sum == -45.256706968531944
    assert h.sum_squares == 976.2826257321408
