"""Loading what real TensorFlow writes: frozen GraphDefs, MetaGraphs with checkpoints,
SavedModels and checkpoints made by TF 2.21 through its 1.x API (tensorflow.compat.v1).

The artifacts under tests/data/tf_artifacts come from tests/data/make_tf_artifacts.py (see its
docstring); expected.json holds the outputs TF itself computed on them. Where a value can be
derived with NumPy from the checkpointed weights the test derives it; TF is not needed here.
Also covered: the importer's leniency for attrs a newer producer adds with their empty default
(TF's RemoveNewDefaultAttrsFromGraphDef), StaticRegexFullMatch (TF 2.x's Saver emits it),
LookupTableImportV2 initializing a HashTable (TF 2.x's KeyValueTensorInitializer), and imported
"_" string attrs read back as bytes.
"""

import gzip
import json
import os

import numpy as np
import pytest

import tideflow as tf
from tideflow.framework import ops
from tideflow.protos import meta_graph_pb2

ART = os.path.join(os.path.dirname(__file__), "data", "tf_artifacts")
with open(os.path.join(ART, "expected.json")) as _f:
    EXPECTED = json.load(_f)  # outputs of TF's own run of these artifacts


CNN_X = np.linspace(-1, 1, 2 * 36, dtype=np.float32).reshape(2, 6, 6, 1)
RNN_X = np.linspace(-1, 1, 2 * 4 * 3, dtype=np.float32).reshape(2, 4, 3)


def _graph_def(name):
    gd = tf.GraphDef()
    with open(os.path.join(ART, name), "rb") as f:
        gd.ParseFromString(f.read())
    return gd


def _meta(name):
    """A MetaGraphDef TF wrote, stored gzipped (``<name>.gz``) to keep the test data small."""
    with open(os.path.join(ART, name + ".gz"), "rb") as f:
        return meta_graph_pb2.MetaGraphDef.FromString(gzip.decompress(f.read()))


def _mlp_numpy(x, v):
    h = np.maximum(np.asarray(x) @ np.asarray(v["w1"]) + np.asarray(v["b1"]), 0.0)
    return h @ np.asarray(v["w2"])


# ------------------------------------------------------------------------------------------
# checkpoints
# ------------------------------------------------------------------------------------------


def test_checkpoint_reader_reads_tf_checkpoint_with_adam_slots():
    reader = tf.train.NewCheckpointReader(os.path.join(ART, "mlp.ckpt"))
    shapes = reader.get_variable_to_shape_map()
    assert sorted(shapes) == ["b1", "b1/Adam", "b1/Adam_1", "beta1_power", "beta2_power",
                              "global_step", "w1", "w1/Adam", "w1/Adam_1", "w2", "w2/Adam",
                              "w2/Adam_1"]
    assert shapes["w1"] == [4, 5] and shapes["w2/Adam_1"] == [5, 1] and shapes["global_step"] == []
    dtypes = reader.get_variable_to_dtype_map()
    assert dtypes["w1"] == tf.float32 and dtypes["global_step"] == tf.int64
    values = EXPECTED["mlp"]["variables"]
    for name in shapes:
        np.testing.assert_allclose(reader.get_tensor(name), values[name], rtol=1e-6)
    # 3 Adam steps: the beta powers are beta ** (steps + 1), as TF's Adam keeps them
    np.testing.assert_allclose(reader.get_tensor("beta1_power"), 0.9 ** 4, rtol=1e-6)
    np.testing.assert_allclose(reader.get_tensor("beta2_power"), 0.999 ** 4, rtol=1e-6)
    assert reader.get_tensor("global_step") == 3


def test_saver_restores_tf_checkpoint_into_tideflow_built_graph():
    m = EXPECTED["mlp"]
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        w1 = tf.get_variable("w1", [4, 5])
        b1 = tf.get_variable("b1", [5])
        w2 = tf.get_variable("w2", [5, 1])
        y = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2)
        saver = tf.train.Saver([w1, b1, w2])
        with tf.Session() as s:
            saver.restore(s, os.path.join(ART, "mlp.ckpt"))
            out = s.run(y, {x: m["x"]})
    np.testing.assert_allclose(out, _mlp_numpy(m["x"], m["variables"]), rtol=1e-5)
    np.testing.assert_allclose(out, m["y"], rtol=1e-5)


def test_init_from_checkpoint_reads_tf_checkpoint():
    values = EXPECTED["mlp"]["variables"]
    with tf.Graph().as_default():
        with tf.variable_scope("net"):
            w1 = tf.get_variable("weights", [4, 5])
            m1 = tf.get_variable("moment", [4, 5])
        tf.train.init_from_checkpoint(os.path.join(ART, "mlp.ckpt"),
                                      {"w1": "net/weights", "w1/Adam": "net/moment"})
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            a, b = s.run([w1, m1])
    np.testing.assert_allclose(a, values["w1"], rtol=1e-6)
    np.testing.assert_allclose(b, values["w1/Adam"], rtol=1e-6)


# ------------------------------------------------------------------------------------------
# MetaGraphs, frozen graphs, SavedModels
# ------------------------------------------------------------------------------------------


def test_import_meta_graph_restores_and_trains_tf_mlp():
    m = EXPECTED["mlp"]
    written = {nd.op for nd in _meta("mlp.meta").graph_def.node}
    # b1 and w2 are resource variables: they run as ref variables here
    assert {"VariableV2", "VarHandleOp", "ReadVariableOp", "ResourceApplyAdam"} <= written
    with tf.Graph().as_default(), tf.Session() as s:
        saver = tf.train.import_meta_graph(_meta("mlp.meta"))
        saver.restore(s, os.path.join(ART, "mlp.ckpt"))
        y = s.run("y:0", {"x:0": m["x"]})
        np.testing.assert_allclose(y, _mlp_numpy(m["x"], m["variables"]), rtol=1e-5)
        # one more Adam step from the imported train_op gives what TF's next step gave
        s.run(tf.get_collection("train_op")[0], {"x:0": m["x"], "t:0": m["t"]})
        np.testing.assert_allclose(s.run("y:0", {"x:0": m["x"]}), m["y_after_step"], rtol=1e-5)
        assert s.run("global_step:0") == 4
        assert {v.op.name for v in tf.trainable_variables()} == {"w1", "b1", "w2"}
        # (w2:0 is its handle: its value is read by a ReadVariableOp, as TF's)
        w2 = next(v for v in tf.trainable_variables() if v.op.name == "w2")
        np.testing.assert_allclose(s.run("w2/Read/ReadVariableOp:0"), s.run(w2))
        # TF 2.x marks its gradient MatMuls with grad_a/grad_b hints: dropped on import
        op = tf.get_default_graph().get_operation_by_name("MatMul")
        assert "grad_a" not in op.node_def.attr and not op.get_attr("transpose_a")


def test_import_frozen_graph_def():
    m = EXPECTED["mlp"]
    gd = _graph_def("mlp_frozen.pb")
    assert {nd.op for nd in gd.node} >= {"Const", "MatMul", "Relu"}
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        (y,) = tf.import_graph_def(gd, input_map={"x:0": x}, return_elements=["y:0"])
        assert y.name == "import/y:0"
        with tf.Session() as s:
            out = s.run(y, {x: m["x"]})
    np.testing.assert_allclose(out, _mlp_numpy(m["x"], m["variables"]), rtol=1e-5)


def test_saved_model_with_lookup_table_and_signature():
    e = EXPECTED["embed"]
    with tf.Graph().as_default(), tf.Session() as s:
        meta = tf.saved_model.loader.load(s, [tf.saved_model.tag_constants.SERVING],
                                          os.path.join(ART, "embed_savedmodel"))
        sig = meta.signature_def["serving_default"]
        assert sig.method_name == "tensorflow/serving/predict"
        assert sorted(sig.inputs) == ["words"] and sorted(sig.outputs) == ["ids", "score"]
        ids, score = s.run([sig.outputs["ids"].name, sig.outputs["score"].name],
                           {sig.inputs["words"].name: ["cat", "dog", "the", "mat"]})
        emb = s.run("emb/Read/ReadVariableOp:0")  # (emb:0 is a resource handle, as TF's)
    np.testing.assert_allclose(emb, e["emb"], rtol=1e-6)
    np.testing.assert_array_equal(ids, [1, 4, 0, 3])  # "dog" is out of vocabulary: default 4
    np.testing.assert_allclose(score, np.asarray(e["emb"])[[1, 4, 0, 3]].sum(axis=1), rtol=1e-6)


def test_image_graph_decode_jpeg_and_image_ops():
    e = EXPECTED["image"]
    gd = _graph_def("image.pb")
    with open(os.path.join(ART, "image.jpg"), "rb") as f:
        jpeg = f.read()
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session() as s:
            decoded, gray = s.run(["decoded:0", "gray:0"], {"jpeg:0": jpeg})
    assert decoded.dtype == np.uint8 and decoded.shape == (4, 6, 3) and gray.shape == (8, 12, 1)
    # TF's default decode of subsampled chroma (fast IDCT with fancy upsampling) is a mode
    # Pillow lacks: tideflow uses the accurate IDCT there, a few levels off
    assert np.abs(decoded.astype(int) - np.asarray(e["decoded"])).max() <= 8
    # on TF's decoded pixels the tf.image ops give TF's values
    with tf.Graph().as_default():
        pixels = tf.constant(np.asarray(e["decoded"], np.uint8))
        outs = tf.import_graph_def(gd, input_map={"decoded:0": pixels},
                                   return_elements=["gray:0", "std:0", "crop:0"], name="")
        with tf.Session() as s:
            gray, std, crop = s.run(outs)
    np.testing.assert_allclose(gray, e["gray"], atol=1e-6)
    np.testing.assert_allclose(std, e["std"], atol=1e-5)
    np.testing.assert_allclose(crop, e["crop"], atol=1e-6)
    # per_image_standardization: zero mean, unit variance (NumPy check of the same output)
    assert abs(std.mean()) < 1e-5 and abs(std.std() - 1.0) < 1e-4


def test_decode_jpeg_modes_give_tfs_pixels():
    e = EXPECTED["image"]
    with open(os.path.join(ART, "image.jpg"), "rb") as f:
        jpeg = f.read()
    with open(os.path.join(ART, "image444.jpg"), "rb") as f:
        jpeg444 = f.read()
    with tf.Graph().as_default(), tf.Session() as s:
        got = s.run({
            "decoded_nofancy": tf.io.decode_jpeg(jpeg, 3, fancy_upscaling=False),
            "decoded_accurate": tf.io.decode_jpeg(jpeg, 3, dct_method="INTEGER_ACCURATE"),
            "decoded_gray": tf.io.decode_jpeg(jpeg, 1),
            "decoded_444": tf.image.decode_jpeg(jpeg444, channels=3)})
    for key, value in got.items():  # bit for bit what TF decoded
        np.testing.assert_array_equal(value, e[key], err_msg=key)


# ------------------------------------------------------------------------------------------
# importer leniency and the ops TF 2.x-written graphs use
# ------------------------------------------------------------------------------------------


def _max_pool_graph_def(extra_attr, value):
    gd = tf.GraphDef()
    x = gd.node.add(name="x", op="Placeholder")
    x.attr["dtype"].type = tf.float32.as_datatype_enum
    p = gd.node.add(name="pool", op="MaxPool", input=["x"])
    p.attr["T"].type = tf.float32.as_datatype_enum
    p.attr["ksize"].list.i.extend([1, 2, 2, 1])
    p.attr["strides"].list.i.extend([1, 2, 2, 1])
    p.attr["padding"].s = b"VALID"
    p.attr[extra_attr].CopyFrom(value)
    return gd


def test_unknown_attr_holding_empty_default_is_dropped():
    gd = _max_pool_graph_def("explicit_paddings", tf.AttrValue(list=tf.AttrValue.ListValue()))
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        pool = tf.get_default_graph().get_tensor_by_name("pool:0")
        with tf.Session() as s:
            out = s.run(pool, {"x:0": np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)})
    np.testing.assert_array_equal(out.reshape(2, 2), [[5, 7], [13, 15]])
    assert "explicit_paddings" not in pool.op.node_def.attr


def test_unknown_attr_with_a_value_is_still_rejected():
    gd = _max_pool_graph_def("explicit_paddings", tf.AttrValue(list=tf.AttrValue.ListValue(
        i=[0, 0, 1, 1, 1, 1, 0, 0])))
    message = "NodeDef mentions attr 'explicit_paddings' not in Op<name=MaxPool"
    with tf.Graph().as_default(), pytest.raises(ValueError, match=message):
        tf.import_graph_def(gd, name="")


def test_imported_underscore_string_attrs_are_bytes():
    gd = tf.GraphDef()
    c = gd.node.add(name="c", op="Const")
    c.attr["dtype"].type = tf.float32.as_datatype_enum
    c.attr["value"].tensor.dtype = tf.float32.as_datatype_enum
    c.attr["value"].tensor.float_val.append(1.0)
    c.attr["_note"].s = b"made elsewhere"
    c.attr["_notes"].list.s.extend([b"a", b"b"])
    c.attr["_flag"].b = True
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        op = tf.get_default_graph().get_operation_by_name("c")
        assert op.get_attr("_note") == b"made elsewhere"
        assert op.get_attr("_notes") == [b"a", b"b"]
        assert op.get_attr("_flag") is True


def test_static_regex_full_match():
    with tf.Graph().as_default():
        x = tf.constant([["s3://bucket/a", "/tmp/s3://x"], ["s3://", "gs://b"]])
        y = ops.apply_op("StaticRegexFullMatch", [x], {"pattern": "^s3://.*"}).outputs[0]
        assert y.dtype == tf.bool and y.shape.as_list() == [2, 2]
        with tf.Session() as s:
            np.testing.assert_array_equal(s.run(y), [[True, False], [True, False]])


def test_lookup_table_import_initializes_hash_table():
    with tf.Graph().as_default():
        table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(["a", "b"], [7, 8], value_dtype=tf.int64), -1)
        # as TF 2.x's KeyValueTensorInitializer initializes it
        imp = ops.apply_op("LookupTableImportV2", [table.resource_handle,
                                                   tf.constant(["a", "b"]),
                                                   tf.constant([7, 8], tf.int64)])
        found = table.lookup(tf.constant(["b", "z", "a"]))
        with tf.Session() as s:
            s.run(imp)
            np.testing.assert_array_equal(s.run(found), [8, -1, 7])
            s.run(table.initializer)  # the same entries again: a no-op, as TF
            np.testing.assert_array_equal(s.run(found), [8, -1, 7])


# ------------------------------------------------------------------------------------------
# TF 1.x control flow (Switch/Merge, Enter/Exit/NextIteration) imported as If/While
# ------------------------------------------------------------------------------------------


def _loop_numpy(x, n):
    acc = 1.0
    for _ in range(n):
        acc = acc * 1.5 + x
    return acc


def test_v1_cond_and_while_loop_run_as_if_and_while():
    gd = _graph_def("control_flow.pb")
    assert {"Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond"} <= {
        nd.op for nd in gd.node}
    with tf.Graph().as_default() as g:
        tf.import_graph_def(gd, name="")
        types = {op.type for op in g.get_operations()}
        assert {"If", "While"} <= types and not types & {"Switch", "Merge", "Enter", "Exit"}
        # the joins keep their names: cond/Merge and loop/Exit_1 still name the results
        assert g.get_tensor_by_name("cond/Merge:0").dtype == tf.float32
        with tf.Session() as s:
            for x, n in [(3.0, 4), (-2.0, 0), (0.5, 2), (-1.5, 3)]:
                c, acc, i = s.run(["cond_out:0", "loop_out:0", "loop/Exit:0"],
                                  {"x:0": x, "n:0": n})
                assert c == pytest.approx(x * 2.0 if x > 0 else -x + 1.0)
                assert acc == pytest.approx(_loop_numpy(x, n)) and i == n
    for key, (c, acc, i) in EXPECTED["control_flow"].items():  # TF's own run agrees
        x, n = float(key.split(",")[0]), int(key.split(",")[1])
        assert c == pytest.approx(x * 2.0 if x > 0 else -x + 1.0)
        assert acc == pytest.approx(_loop_numpy(x, n)) and i == n


def _nested_numpy(x, n):
    nested = x * 10 if x > 5 else (x * 2 if x > 0 else -x)
    a = 1.0
    for _ in range(5):
        a = a - 1.0 if a > x else a * 2.0
    w = x
    if x > 0:
        while w < 100.0:
            w = w * x + 1.0
    total = sum(j for i in range(n) for j in range(i))
    return [nested, a, w, total]


def test_v1_nested_conds_and_loops():
    # a cond in a cond, a cond in a loop body, a loop in a cond branch, a loop in a loop
    names = ["nested_cond:0", "cond_in_while:0", "while_in_cond:0", "nested_while:0"]
    with tf.Graph().as_default() as g:
        tf.import_graph_def(_graph_def("control_flow_nested.pb"), name="")
        assert not {op.type for op in g.get_operations()} & {"Switch", "Merge", "Enter"}
        with tf.Session() as s:
            for x, n in [(7.0, 4), (3.0, 0), (-1.0, 1), (10.0, 6), (0.0, 3), (1.5, 5)]:
                got = s.run(names, {"x:0": x, "n:0": n})
                assert got == pytest.approx(_nested_numpy(x, n))
                # a dynamic_size TensorArray grows as the loop writes it
                grown = s.run("dynamic_array:0", {"x:0": x, "n:0": n})
                np.testing.assert_allclose(grown, np.arange(n) ** 2 + x)
                if f"{x},{n}" in EXPECTED["control_flow_nested"]:  # TF's own run agrees
                    assert got == pytest.approx(EXPECTED["control_flow_nested"][f"{x},{n}"])


def test_v1_loop_gradient_with_stacks():
    # TF 1.x differentiates a loop with a second loop fed through a stack (StackPushV2 in the
    # forward body, StackPopV2 in the gradient body): imported as a TensorList loop variable
    gd = _graph_def("while_grad.pb")
    assert {"StackV2", "StackPushV2", "StackPopV2", "ControlTrigger"} <= {nd.op for nd in gd.node}
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session() as s:
            for x in (2.0, -1.5, 0.5):
                # r = x ** 3 after three iterations of a * x: dr/dx = 3 x ** 2
                assert s.run("grad:0", {"x:0": x}) == pytest.approx(3 * x ** 2)


def test_merge_value_index_becomes_an_if_output():
    # pred ? -x : x, and Merge:1 (the index of the input that fired) read too
    gd = tf.GraphDef()
    for name, dtype in (("x", tf.float32), ("p", tf.bool)):
        gd.node.add(name=name, op="Placeholder").attr["dtype"].type = dtype.as_datatype_enum
    gd.node.add(name="c/pred_id", op="Identity", input=["p"]).attr["T"].type = 10
    sw = gd.node.add(name="c/Switch", op="Switch", input=["x", "c/pred_id"])
    sw.attr["T"].type = 1
    gd.node.add(name="c/f", op="Identity", input=["c/Switch"]).attr["T"].type = 1
    gd.node.add(name="c/t", op="Neg", input=["c/Switch:1"]).attr["T"].type = 1
    m = gd.node.add(name="c/Merge", op="Merge", input=["c/f", "c/t"])
    m.attr["T"].type = 1
    m.attr["N"].i = 2
    gd.node.add(name="which", op="Identity", input=["c/Merge:1"]).attr["T"].type = 3
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session() as s:
            assert s.run(["c/Merge:0", "which:0"], {"x:0": 2.0, "p:0": True}) == [-2.0, 1]
            assert s.run(["c/Merge:0", "which:0"], {"x:0": 2.0, "p:0": False}) == [2.0, 0]


def test_tf_layers_cnn_with_batch_norm_and_dropout_conds():
    e = EXPECTED["cnn"]
    with tf.Graph().as_default() as g, tf.Session() as s:
        saver = tf.train.import_meta_graph(os.path.join(ART, "cnn.meta"))
        saver.restore(s, os.path.join(ART, "cnn.ckpt"))
        assert "If" in {op.type for op in g.get_operations()}
        y = s.run("y:0", {"x:0": CNN_X})  # training defaults to False: no dropout
        np.testing.assert_allclose(y, e["y"], rtol=1e-5, atol=1e-6)
        # training: dropout keeps half the pooled units at random, scaled by 2
        pooled, dropped = s.run(["pool/MaxPool:0", "drop/cond/Merge:0"],
                                {"x:0": CNN_X, "training:0": True})
        kept = dropped != 0
        np.testing.assert_allclose(dropped[kept], 2 * pooled[kept], rtol=1e-6)


def test_tf_batch_norm_training_step_from_meta_graph():
    e = EXPECTED["bn_train"]
    with tf.Graph().as_default(), tf.Session() as s:
        saver = tf.train.import_meta_graph(_meta("bn_train.meta"))
        saver.restore(s, os.path.join(ART, "bn_train.ckpt"))
        train = tf.get_collection("train_op")[0]
        for _ in range(2):
            s.run(train, {"x:0": e["x"]})
        for v in tf.global_variables():
            name = v.op.name
            # values TF's own two steps gave; every variable moved (moving stats too)
            np.testing.assert_allclose(s.run(v), e["after"][name], rtol=1e-5, atol=1e-7)
            assert not np.allclose(e["after"][name], e["before"][name])
        y = s.run("y:0", {"x:0": e["x"], "training:0": False})
    np.testing.assert_allclose(y, e["y_inference"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,ref", [
    ("TanhGrad", lambda y, dy: dy * (1 - y * y)),
    ("SigmoidGrad", lambda y, dy: dy * y * (1 - y)),
    ("SqrtGrad", lambda y, dy: dy * 0.5 / y),
    ("RsqrtGrad", lambda y, dy: -0.5 * dy * y ** 3),
    ("ReciprocalGrad", lambda y, dy: -dy * y * y),
    ("InvGrad", lambda y, dy: -dy * y * y),
])
def test_fused_derivative_ops(name, ref):
    y = np.array([[0.3, 0.6], [0.9, 1.2]])
    dy = np.array([[1.5, -2.0], [0.7, 0.25]])
    with tf.Graph().as_default():
        a, b = tf.constant(y), tf.constant(dy)
        z = ops.apply_op(name, [a, b]).outputs[0]
        assert z.shape.as_list() == [2, 2] and z.dtype == tf.float64
        with tf.Session() as s:
            np.testing.assert_allclose(s.run(z), ref(y, dy), rtol=1e-12)
            for x, value in ((a, y), (b, dy)):
                theoretical, numerical = tf.test.compute_gradient(x, [2, 2], z, [2, 2],
                                                                  x_init_value=value, delta=1e-6)
                np.testing.assert_allclose(theoretical, numerical, atol=1e-6)


def test_frozen_dynamic_rnn_and_map_fn_tensor_arrays():
    e = EXPECTED["rnn"]
    gd = _graph_def("rnn_frozen.pb")
    assert {"TensorArrayV3", "TensorArrayScatterV3", "TensorArrayReadV3", "TensorArrayWriteV3",
            "TensorArrayGatherV3", "Enter", "Exit"} <= {nd.op for nd in gd.node}
    consts = {nd.name: nd for nd in gd.node if nd.op == "Const"}
    with tf.Graph().as_default() as g:
        tf.import_graph_def(gd, name="")
        assert not any(op.type.startswith("TensorArray") for op in g.get_operations())
        with tf.Session() as s:
            outs, state, squares = s.run(["outs:0", "state:0", "squares:0"], {"x:0": RNN_X})
            kernel, bias = s.run([g.get_tensor_by_name(n + ":0") for n in (
                "rnn/basic_rnn_cell/kernel", "rnn/basic_rnn_cell/bias")])
    assert "rnn/basic_rnn_cell/kernel" in consts
    h = np.zeros((2, 5), np.float32)
    want = []
    for t in range(4):  # BasicRNNCell: h = tanh([x_t, h] @ kernel + bias)
        h = np.tanh(np.concatenate([RNN_X[:, t], h], axis=1) @ kernel + bias)
        want.append(h)
    np.testing.assert_allclose(outs, np.stack(want, axis=1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(state, h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outs, e["outs"], rtol=1e-5, atol=1e-6)  # and TF's own run
    np.testing.assert_allclose(state, e["state"], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(squares, np.arange(5.0) ** 2 + 1)


def test_gradients_through_imported_v1_cond_and_loop():
    # tf.gradients on the If/While an imported TF 1.x cond/loop became
    gd = _graph_def("control_flow.pb")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        c, acc = tf.import_graph_def(gd, input_map={"x:0": x},
                                     return_elements=["cond_out:0", "loop_out:0"], name="")
        dc, dacc = tf.gradients(c, x)[0], tf.gradients(acc, x)[0]
        with tf.Session() as s:
            for xv, n in [(3.0, 4), (-2.0, 2), (0.5, 0)]:
                got = s.run([dc, dacc], {x: xv, "n:0": n})
                # d(2x)/dx = 2, d(1 - x)/dx = -1; acc_n = 1.5 acc + x: d/dx = sum 1.5^k, k < n
                assert got == pytest.approx([2.0 if xv > 0 else -1.0,
                                             sum(1.5 ** k for k in range(n))])


def test_meta_graph_with_v1_control_flow_imports_twice_under_scopes():
    e = EXPECTED["cnn"]
    with tf.Graph().as_default() as g, tf.Session() as s:
        for scope in ("m1", "m2"):
            saver = tf.train.import_meta_graph(os.path.join(ART, "cnn.meta"), import_scope=scope)
            saver.restore(s, os.path.join(ART, "cnn.ckpt"))
        a, b = s.run(["m1/y:0", "m2/y:0"], {"m1/x:0": CNN_X, "m2/x:0": CNN_X})
        # the v1 control-flow contexts are not carried over: their ops became If/While
        assert not g.get_collection("cond_context")
    np.testing.assert_allclose(a, e["y"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b, e["y"], rtol=1e-5, atol=1e-6)


def test_training_a_v1_loop_from_meta_graph():
    # the train_op TF built for a tf.while_loop: its gradient loop, stacks and accumulators
    e = EXPECTED["loop_train"]
    xs = np.asarray(e["x"], np.float32)

    def loss_numpy(w):
        h = xs.astype(np.float64)
        for _ in range(3):
            h = np.tanh(h @ w) + h * 0.5
        return np.square(h - 1.0).sum()

    with tf.Graph().as_default(), tf.Session() as s:
        saver = tf.train.import_meta_graph(_meta("loop_train.meta"))
        saver.restore(s, os.path.join(ART, "loop_train.ckpt"))
        w0 = s.run("w:0").astype(np.float64)
        losses, weights = [], []
        for _ in range(2):
            losses.append(s.run("loss:0", {"x:0": xs}))
            s.run(tf.get_collection("train_op")[0], {"x:0": xs})
            weights.append(s.run("w:0"))
    assert losses[0] == pytest.approx(loss_numpy(w0), rel=1e-5)
    assert losses == pytest.approx(e["losses"], rel=1e-5)  # TF's own run
    np.testing.assert_allclose(weights[1], e["w"], rtol=1e-5, atol=1e-6)
    # the first step is w - 0.1 * dloss/dw, the gradient by central differences in NumPy
    grad = np.zeros_like(w0)
    for idx in np.ndindex(*w0.shape):
        d = np.zeros_like(w0)
        d[idx] = 1e-6
        grad[idx] = (loss_numpy(w0 + d) - loss_numpy(w0 - d)) / 2e-6
    np.testing.assert_allclose(weights[0], w0 - 0.1 * grad, rtol=1e-4, atol=1e-5)
