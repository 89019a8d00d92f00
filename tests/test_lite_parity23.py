"""tf.lite: the converter writes real TFLite flatbuffers and the interpreter runs them.

tests/data/tflite/*.tflite were written by TF 1.15's TFLiteConverter (make_tflite.py there, whose
graph builders this file reuses with tideflow); the details dicts and tensor lists embedded
below were measured in TF 1.15 on the same models. (TF 1.15's own tf.lite.Interpreter was also
checked, outside the test suite, to load and run the files tideflow's converter writes for
these models, with the same outputs.)
"""

import importlib.util
import os

import numpy as np
import pytest

import tideflow as tf
from tideflow.lite import flatbuffer as fb
from tideflow.lite.model import read_model

DATA = os.path.join(os.path.dirname(__file__), "data", "tflite")


def _builders():
    spec = importlib.util.spec_from_file_location("make_tflite",
                                                  os.path.join(DATA, "make_tflite.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_MAKE = _builders()
MODELS = _MAKE.MODELS


def _details(name, index, shape):
    return {"name": name, "index": index, "shape": np.array(shape, np.int32),
            "dtype": np.float32, "quantization": (0.0, 0)}


# measured in TF 1.15: get_input_details() / get_output_details() of the converted models
TF_DETAILS = {
    "mlp": ([_details("x", 6, [1, 4])], [_details("y", 7, [1, 3])]),
    "cnn": ([_details("img", 11, [1, 8, 8, 3])], [_details("probs", 12, [1, 5])]),
    "misc": ([_details("inp", 18, [2, 3, 4])], [_details("out", 21, [2, 2, 6])]),
    "one_channel": ([_details("gray", 2, [1, 8, 8, 1])], [_details("feat", 1, [1, 4, 4, 6])]),
    "hybrid": ([_details("img", 7, [2, 6, 6, 3])], [_details("y", 10, [2, 10])]),
}
# measured in TF 1.15: (name, shape) of get_tensor_details()
TF_TENSORS = {
    "mlp": [("BiasAdd", [1, 3]), ("MatMul_1_bias", [3]), ("MatMul_bias", [8]),
            ("Relu", [1, 8]), ("w1/transpose", [8, 4]), ("w2/transpose", [3, 8]),
            ("x", [1, 4]), ("y", [1, 3])],
    "cnn": [("AvgPool", [1, 2, 2, 8]), ("Const", [4, 3, 3, 3]), ("Const_2", [1, 3, 3, 8]),
            ("Const_4/transpose", [5, 32]), ("Conv2D_bias", [4]), ("MatMul", [1, 5]),
            ("MatMul_bias", [5]), ("MaxPool", [1, 4, 4, 4]), ("Relu", [1, 4, 4, 8]),
            ("Relu6", [1, 8, 8, 4]), ("depthwise_bias", [8]), ("img", [1, 8, 8, 3]),
            ("probs", [1, 5])],
    "one_channel": [("Conv2D_bias", [6]), ("feat", [1, 4, 4, 6]), ("gray", [1, 8, 8, 1]),
                    ("k", [1, 3, 3, 6])],
    "hybrid": [("Conv2D_bias", [64]), ("Mean", [2, 128]), ("Mean/reduction_indices", [2]),
               ("Relu", [2, 6, 6, 64]), ("depthwise", [2, 4, 4, 128]),
               ("depthwise_bias", [128]), ("dk", [1, 3, 3, 128]), ("img", [2, 6, 6, 3]),
               ("k", [64, 3, 3, 3]), ("w/transpose", [10, 128]), ("y", [2, 10]),
               ("y_bias", [10]), ("dk_dequantize", [1, 3, 3, 128])],
    "keras": [("conv2d/Conv2D_bias", [4]), ("conv2d/Relu", [1, 4, 4, 4]),
              ("conv2d/kernel", [4, 3, 3, 2]), ("conv2d_input", [1, 6, 6, 2]),
              ("dense/MatMul_bias", [5]), ("dense/Relu", [1, 5]),
              ("dense/kernel/transpose", [5, 16]), ("dense_1/BiasAdd", [1, 3]),
              ("dense_1/MatMul_bias", [3]), ("dense_1/Softmax", [1, 3]),
              ("dense_1/kernel/transpose", [3, 5]), ("max_pooling2d/MaxPool", [1, 2, 2, 4])],
    "keras_bn": [("activation/Relu", [1, 6, 6, 4]), ("conv2d/Conv2D_bias", [4]),
                 ("conv2d/kernel", [4, 3, 3, 2]), ("conv2d_input", [1, 6, 6, 2]),
                 ("dense/BiasAdd", [1, 3]), ("dense/MatMul_bias", [3]),
                 ("dense/kernel/transpose", [3, 4]), ("depthwise_conv2d/depthwise_bias", [4]),
                 ("depthwise_conv2d/depthwise_kernel", [1, 3, 3, 4]),
                 ("global_average_pooling2d/Mean", [1, 4]),
                 ("global_average_pooling2d/Mean/reduction_indices", [2]),
                 ("re_lu/Relu6", [1, 6, 6, 4]), ("softmax/Softmax", [1, 3])],
    "saved_model": [("MatMul", [1, 2]), ("MatMul_bias", [2]), ("feat", [1, 3]),
                    ("pred", [1, 2]), ("w/transpose", [2, 3])],
}


def _assert_details(got, want, index=True):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert sorted(g) == sorted(w)
        assert (g["name"], g["dtype"], g["quantization"]) == \
            (w["name"], w["dtype"], w["quantization"])
        if index:
            assert g["index"] == w["index"]
        assert g["shape"].dtype == np.int32
        np.testing.assert_array_equal(g["shape"], w["shape"])


def _run(interp, x):
    interp.allocate_tensors()
    interp.set_tensor(interp.get_input_details()[0]["index"], x)
    interp.invoke()
    return interp.get_tensor(interp.get_output_details()[0]["index"])


def _convert(name):
    data, xi, ref = _MAKE.convert(tf, name)
    if name == "hybrid":  # TF's interpreter's numbers (its hybrid kernels), not sess.run's
        ref = np.load(os.path.join(DATA, "hybrid_y.npy"))
    return data, xi, ref


ALL = ["mlp", "cnn", "misc", "one_channel", "hybrid"]


@pytest.mark.parametrize("name", ALL)
def test_interpreter_runs_tf_made_files(name):
    interp = tf.lite.Interpreter(model_path=os.path.join(DATA, name + ".tflite"))
    interp.allocate_tensors()
    _assert_details(interp.get_input_details(), TF_DETAILS[name][0])
    _assert_details(interp.get_output_details(), TF_DETAILS[name][1])
    out = _run(interp, np.load(os.path.join(DATA, name + "_x.npy")))
    np.testing.assert_allclose(out, np.load(os.path.join(DATA, name + "_y.npy")),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ALL)
def test_converter_writes_what_tf_writes(name):
    data, xi, ref = _convert(name)
    assert data[4:8] == b"TFL3"
    ours = read_model(data)
    with open(os.path.join(DATA, name + ".tflite"), "rb") as f:
        theirs = read_model(f.read())
    mine = [(t.name, tuple(t.shape), t.type, tuple(t.scale), t.buffer == 0)
            for t in ours.tensors]
    tocos = [(t.name, tuple(t.shape), t.type, tuple(t.scale), t.buffer == 0)
             for t in theirs.tensors]
    if name == "misc":
        # TOCO writes a Tile as a CONCATENATION of copies and gives ExpandDims a [1, 4] shape
        # operand; tideflow keeps TILE and a [4] shape. Everything else agrees.
        assert set(mine) - set(tocos) == {("ExpandDims/dim", (4,), 2, (), False),
                                          ("Tile/multiples", (3,), 2, (), False)}
        assert set(tocos) - set(mine) == {("ExpandDims/dim_0", (1, 4), 2, (), False)}
    else:
        assert mine == tocos
        assert (ours.inputs, ours.outputs) == (theirs.inputs, theirs.outputs)
        assert [(o.op, o.inputs, o.outputs, o.options_name, o.options, o.version)
                for o in ours.operators] == \
            [(o.op, o.inputs, o.outputs, o.options_name, o.options, o.version)
             for o in theirs.operators]
        for a, b in zip(ours.tensors, theirs.tensors):
            da, db = ours.buffers[a.buffer], theirs.buffers[b.buffer]
            assert bool(da) == bool(db), a.name
            if da:
                kind = {0: np.float32, 2: np.int32, 9: np.int8}[a.type]
                np.testing.assert_allclose(np.frombuffer(da, kind), np.frombuffer(db, kind),
                                           rtol=1e-6, err_msg=a.name)
    assert ours.description == "TOCO Converted."
    assert ours.buffers[0] == b""
    interp = tf.lite.Interpreter(model_content=data)
    interp.allocate_tensors()
    # (misc's indices shift by the one tensor more than TOCO's file has)
    _assert_details(interp.get_input_details(), TF_DETAILS[name][0], name != "misc")
    _assert_details(interp.get_output_details(), TF_DETAILS[name][1], name != "misc")
    if name in TF_TENSORS:
        assert [(d["name"], d["shape"].tolist()) for d in interp.get_tensor_details()] == \
            TF_TENSORS[name]
    np.testing.assert_allclose(_run(interp, xi), ref, rtol=1e-5, atol=1e-6)


def test_mlp_operators_fuse_bias_and_activation():
    model = read_model(_convert("mlp")[0])
    ops = [(o.op, o.options.get("fused_activation_function")) for o in model.operators]
    assert ops == [("FULLY_CONNECTED", 1), ("FULLY_CONNECTED", 0), ("SOFTMAX", None)]
    names = [t.name for t in model.tensors]
    fc = model.operators[0]
    assert [names[i] for i in fc.inputs] == ["x", "w1/transpose", "MatMul_bias"]


def test_keras_h5_model(tmp_path):
    path = str(tmp_path / "k.h5")
    with tf.Graph().as_default():
        rng = np.random.RandomState(1)
        model = tf.keras.Sequential([
            tf.keras.layers.Conv2D(4, 3, activation="relu", input_shape=(6, 6, 2)),
            tf.keras.layers.MaxPooling2D(2), tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(5, activation="relu"),
            tf.keras.layers.Dense(3, activation="softmax")])
        xi = rng.randn(2, 6, 6, 2).astype(np.float32)
        ref = model.predict(xi)
        model.save(path)
    data = tf.lite.TFLiteConverter.from_keras_model_file(path).convert()
    interp = tf.lite.Interpreter(model_content=data)
    interp.allocate_tensors()
    _assert_details(interp.get_input_details(), [_details("conv2d_input", 3, [1, 6, 6, 2])])
    _assert_details(interp.get_output_details(), [_details("dense_1/Softmax", 9, [1, 3])])
    assert [(d["name"], d["shape"].tolist()) for d in interp.get_tensor_details()] == \
        TF_TENSORS["keras"]
    # batch 2 through resize_tensor_input
    interp.resize_tensor_input(3, [2, 6, 6, 2])
    interp.allocate_tensors()
    out = _run(interp, xi)
    assert out.shape == (2, 3)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    tf.keras.backend.clear_session()


def test_keras_batch_norm_and_dropout_fold_away(tmp_path):
    path = str(tmp_path / "bn.h5")
    layers = tf.keras.layers
    rng = np.random.RandomState(2)
    with tf.Graph().as_default():
        model = tf.keras.Sequential([
            layers.Conv2D(4, 3, padding="same", input_shape=(6, 6, 2)),
            layers.BatchNormalization(), layers.Activation("relu"),
            layers.DepthwiseConv2D(3, padding="same"), layers.ReLU(6.0),
            layers.GlobalAveragePooling2D(), layers.Dropout(0.5), layers.Dense(3),
            layers.Softmax()])
        bn = model.layers[1]
        bn.set_weights([rng.uniform(0.5, 2, 4).astype(np.float32),
                        rng.randn(4).astype(np.float32), rng.randn(4).astype(np.float32),
                        rng.uniform(0.5, 2, 4).astype(np.float32)])
        xi = rng.randn(1, 6, 6, 2).astype(np.float32)
        ref = model.predict(xi)
        model.save(path)
    data = tf.lite.TFLiteConverter.from_keras_model_file(path).convert()
    interp = tf.lite.Interpreter(model_content=data)
    assert [(d["name"], d["shape"].tolist()) for d in interp.get_tensor_details()] == \
        TF_TENSORS["keras_bn"]
    assert [o.op for o in read_model(data).operators] == [
        "CONV_2D", "DEPTHWISE_CONV_2D", "MEAN", "FULLY_CONNECTED", "SOFTMAX"]
    np.testing.assert_allclose(_run(interp, xi), ref, rtol=1e-5, atol=1e-6)
    tf.keras.backend.clear_session()


def test_saved_model_and_frozen_graph(tmp_path):
    export = str(tmp_path / "sm")
    rng = np.random.RandomState(1)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="feat")
        w = tf.Variable(rng.randn(3, 2).astype(np.float32), name="w")
        y = tf.nn.tanh(tf.matmul(x, w), name="pred")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            xi = rng.randn(1, 3).astype(np.float32)
            ref = sess.run(y, {x: xi})
            tf.saved_model.simple_save(sess, export, inputs={"feat": x}, outputs={"pred": y})
            frozen = tf.graph_util.convert_variables_to_constants(
                sess, sess.graph.as_graph_def(), ["pred"])
    pb = str(tmp_path / "frozen.pb")
    with open(pb, "wb") as f:
        f.write(frozen.SerializeToString())
    for converter in (tf.lite.TFLiteConverter.from_saved_model(export),
                      tf.lite.TFLiteConverter.from_frozen_graph(pb, ["feat"], ["pred"])):
        assert converter.get_input_arrays() == ["feat"]
        interp = tf.lite.Interpreter(model_content=converter.convert())
        interp.allocate_tensors()
        _assert_details(interp.get_input_details(), [_details("feat", 2, [1, 3])])
        _assert_details(interp.get_output_details(), [_details("pred", 3, [1, 2])])
        assert [(d["name"], d["shape"].tolist()) for d in interp.get_tensor_details()] == \
            TF_TENSORS["saved_model"]
        np.testing.assert_allclose(_run(interp, xi), ref, rtol=1e-5, atol=1e-6)


def test_written_model_file_loads_by_path(tmp_path):
    data, xi, ref = _convert("cnn")
    path = tmp_path / "cnn.tflite"
    path.write_bytes(data)
    np.testing.assert_allclose(_run(tf.lite.Interpreter(model_path=str(path)), xi), ref,
                               rtol=1e-5, atol=1e-6)


def test_unsupported_op_is_a_converter_error():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        y = tf.cumsum(tf.nn.relu(x), axis=1)
        with tf.Session() as sess:
            converter = tf.lite.TFLiteConverter.from_session(sess, [x], [y])
            with pytest.raises(Exception) as info:
                converter.convert()
            # TF 1.15: tensorflow.lite.python.convert.ConverterError
            assert type(info.value).__name__ == "ConverterError"
            assert type(info.value).__module__ == "tideflow.lite.python.convert"
            msg = str(info.value)
            assert msg.startswith("See console for info.\n")
            assert "Here is a list of builtin operators you are using: RELU. Here is a list " \
                "of operators for which you will need custom implementations: Cumsum." in msg
            converter.allow_custom_ops = True
            model = read_model(converter.convert())
            assert [(o.op, o.custom_code) for o in model.operators] == \
                [("RELU", None), ("CUSTOM", "Cumsum")]


def test_input_shape_errors():
    # messages measured in TF 1.15
    with tf.Graph().as_default():
        x2 = tf.placeholder(tf.float32, [1, None], name="x2")
        x3 = tf.placeholder(tf.float32, name="x3")
        with tf.Session() as sess:
            with pytest.raises(ValueError, match=r"^None is only supported in the 1st "
                               r"dimension\. Tensor 'x2' has invalid shape '\[1, None\]'\.$"):
                tf.lite.TFLiteConverter.from_session(sess, [x2], [x2 * 2]).convert()
            with pytest.raises(ValueError,
                               match=r"^Provide an input shape for input array 'x3'\.$"):
                tf.lite.TFLiteConverter.from_session(sess, [x3], [x3 * 2]).convert()
    with pytest.raises(OSError, match=r"^File 'nofile\.pb' does not exist\.$"):
        tf.lite.TFLiteConverter.from_frozen_graph("nofile.pb", ["x"], ["y"])
    with pytest.raises(OSError, match=r"^SavedModel file does not exist at: nodir/"):
        tf.lite.TFLiteConverter.from_saved_model("nodir")


def test_interpreter_errors():
    # messages measured in TF 1.15
    mlp = os.path.join(DATA, "mlp.tflite")
    with pytest.raises(ValueError, match=r"^`model_path` or `model_content` must be "):
        tf.lite.Interpreter()
    with pytest.raises(ValueError, match=r"^Can't both provide `model_path` and "):
        tf.lite.Interpreter(model_path=mlp, model_content=b"x")
    with pytest.raises(ValueError, match=r"^Could not open 'nonexist\.tflite'\.$"):
        tf.lite.Interpreter(model_path="nonexist.tflite")
    with pytest.raises(ValueError, match=r"^Model provided has model identifier 'ageg', "
                       r"should be 'TFL3'\n$"):
        tf.lite.Interpreter(model_content=b"garbagegarbagegarbage")
    interp = tf.lite.Interpreter(model_path=mlp)
    with pytest.raises(RuntimeError, match=r"^Invoke called on model that is not ready\.$"):
        interp.invoke()
    with pytest.raises(ValueError, match=r"^Tensor data is null\.$"):
        interp.get_tensor(6)
    interp.allocate_tensors()
    with pytest.raises(ValueError, match=r"^Cannot set tensor: Got tensor of type NOTYPE but "
                       r"expected type FLOAT32 for input 6, name: x $"):
        interp.set_tensor(6, np.zeros((1, 4), np.float64))
    with pytest.raises(ValueError, match=r"^Cannot set tensor: Got tensor of type INT64 "):
        interp.set_tensor(6, [[1, 2, 3, 4]])
    with pytest.raises(ValueError, match=r"^Cannot set tensor: Dimension mismatch\. Got 2 but "
                       r"expected 1 for dimension 0 of input 6\.$"):
        interp.set_tensor(6, np.zeros((2, 4), np.float32))
    with pytest.raises(ValueError, match=r"^Cannot set tensor: Dimension mismatch\. Got 1 but "
                       r"expected 2 for input 6\.$"):
        interp.set_tensor(6, np.zeros((4,), np.float32))
    with pytest.raises(ValueError, match=r"^Invalid tensor index 99 exceeds max tensor index"):
        interp.get_tensor(99)
    # the weights are readable once allocated; tensor() gives a live view
    np.testing.assert_allclose(interp.get_tensor(4).shape, [8, 4])
    interp.set_tensor(6, np.ones((1, 4), np.float32))
    interp.invoke()
    view = interp.tensor(7)
    np.testing.assert_allclose(view(), interp.get_tensor(7))
    assert interp.get_tensor(7).shape == (1, 3)


def test_api_surface():
    lite = tf.lite
    for name in ("Interpreter", "OpsSet", "Optimize", "RepresentativeDataset",
                 "TFLiteConverter", "TargetSpec", "TocoConverter", "constants",
                 "toco_convert"):
        assert hasattr(lite, name), name
    c = lite.constants
    assert (c.FLOAT, c.INT32, c.INT64, c.STRING, c.QUANTIZED_UINT8, c.INT8, c.FLOAT16) == \
        (tf.float32, tf.int32, tf.int64, tf.string, tf.uint8, tf.int8, tf.float16)
    assert (c.TFLITE, c.GRAPHVIZ_DOT) == (2, 3)
    assert lite.OpsSet.get_options() == ["TFLITE_BUILTINS", "SELECT_TF_OPS",
                                         "TFLITE_BUILTINS_INT8"]
    assert str(lite.Optimize.DEFAULT) == "DEFAULT"
    spec = lite.TargetSpec()
    assert spec.supported_ops == {lite.OpsSet.TFLITE_BUILTINS}
    assert spec.supported_types == []
    gen = object()
    assert lite.RepresentativeDataset(gen).input_gen is gen
    import tensorflow.lite as tl  # the alias serves tensorflow.lite too

    assert tl is tf.lite
    assert tf.compat.v1.lite is tf.lite
    assert not hasattr(tf.contrib, "lite")  # (TF 1.15 has no tf.contrib.lite)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        with tf.Session() as sess:
            conv = lite.TocoConverter.from_session(sess, [x], [tf.nn.relu(x)])
    assert isinstance(conv, lite.TFLiteConverter)
    assert conv.inference_type == tf.float32
    assert (conv.inference_input_type, conv.allow_custom_ops, conv.optimizations,
            conv.representative_dataset, conv.post_training_quantize) == \
        (None, False, [], None, False)
    conv.optimizations = [lite.Optimize.DEFAULT]
    assert conv.post_training_quantize
    model = read_model(conv.convert())
    assert [o.op for o in model.operators] == ["RELU"]
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [1, 2], name="x")
        y = tf.nn.relu(x)
        data = lite.toco_convert(g.as_graph_def(), [x], [y])
    assert [o.op for o in read_model(data).operators] == ["RELU"]
    # (TF 1.15's OSError for a missing delegate library)
    with pytest.raises(OSError, match=r"^nolib\.so: cannot open shared object file: No such "
                       r"file or directory$"):
        lite.experimental.load_delegate("nolib.so")
    supported = lite.experimental.get_potentially_supported_ops()
    assert {"Conv2D", "MatMul", "Softmax"} <= {s.op for s in supported}


def test_flatbuffer_round_trip():
    root = fb.Table([
        (0, "I", 7),
        (1, "o", "name"),
        (2, "o", fb.Vector("B", b"\x01\x02\x03", align=16)),
        (3, "o", fb.Vector("o", [fb.Table([(0, "f", 1.5)]), fb.Table([])])),
        (5, "o", fb.Vector("i", np.array([-1, 2], np.int32))),
    ])
    data = fb.build(root, "TEST")
    r = fb.root(data, "TEST")
    assert r.scalar(0, "I") == 7
    assert r.string(1) == "name"
    assert r.raw_bytes(2) == b"\x01\x02\x03"
    subs = r.tables(3)
    assert [s.scalar(0, "f", 9.0) for s in subs] == [1.5, 9.0]
    assert r.vector(5, "i").tolist() == [-1, 2]
    assert not r.has(4) and r.vector(4, "i") is None
    # buffer data is 16-byte aligned (TFLite's force_align)
    at = data.index(b"\x01\x02\x03")
    assert at % 16 == 0
    with pytest.raises(ValueError):
        fb.root(data, "TFL3")


def test_shapes_the_graph_leaves_open_are_resolved():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 6], name="x")
        h = tf.reshape(x, [tf.shape(x)[0], 2, 3])
        h = tf.reduce_sum(h * tf.cast(tf.shape(h)[1], tf.float32), axis=1)
        y = tf.nn.relu(tf.reshape(h, tf.stack([-1, 3])), name="y")
        assert y.shape.as_list() == [None, 3]
        xi = np.random.RandomState(0).randn(1, 6).astype(np.float32)
        with tf.Session() as sess:
            data = tf.lite.TFLiteConverter.from_session(sess, [x], [y]).convert()
            ref = sess.run(y, {x: xi})
    interp = tf.lite.Interpreter(model_content=data)
    interp.allocate_tensors()
    assert interp.get_output_details()[0]["shape"].tolist() == [1, 3]
    np.testing.assert_allclose(_run(interp, xi), ref, rtol=1e-6)


def _const(rng, *shape):
    return tf.constant(rng.randn(*shape).astype(np.float32))


# graphs of the ops the converter lowers; each was also converted by TF 1.15 and the files
# run in its interpreter and tideflow's with the same outputs (TF's converter aborts on a
# strided slice with a new axis: tideflow writes STRIDED_SLICE + RESHAPE, which TF's
# interpreter runs)
OP_CASES = {
    "pack_unpack": ([2, 3], lambda x, r: tf.stack(tf.unstack(x, axis=1)[::-1], axis=0)),
    "gather": ([4, 3], lambda x, r: tf.gather(x, tf.constant([2, 0]), axis=1)),
    "argmax": ([3, 5], lambda x, r: tf.cast(tf.argmax(x, axis=1), tf.float32)
               + tf.reduce_max(x, axis=1)),
    "strided": ([3, 4, 5], lambda x, r: x[::-1, 1:-1, -3:] + x[1, 1:3, ::2][None]),
    "new_axis": ([3, 4, 5], lambda x, r: x[tf.newaxis, 1, :, tf.newaxis, ::2]),
    "split": ([2, 6], lambda x, r: tf.concat(tf.split(x, 3, axis=1)[::-1], axis=0)),
    "arith": ([2, 3], lambda x, r: tf.minimum(tf.maximum(tf.nn.relu((x - 0.5) / (tf.abs(x) + 1.0)),
                                                         -0.3), 0.4)),
    "unary": ([2, 3], lambda x, r: -tf.square(x) + tf.exp(x) * tf.tanh(x) + tf.sigmoid(x)
              + tf.sqrt(tf.abs(x)) + tf.math.rsqrt(tf.abs(x) + 1.0)),
    "log_softmax": ([2, 5], lambda x, r: tf.nn.log_softmax(x) + tf.nn.leaky_relu(x, 0.1)),
    "reduce": ([2, 3, 4], lambda x, r: tf.reduce_sum(x, axis=[0, 2], keepdims=True)
               + tf.reduce_mean(x)),
    "cast": ([2, 3], lambda x, r: tf.cast(tf.cast(x * 3.0, tf.int32), tf.float32)),
    "pads": ([2, 3], lambda x, r: tf.pad(x, [[1, 1], [2, 2]], mode="REFLECT")
             + tf.pad(x, [[1, 1], [0, 4]], constant_values=1.5)),
    "transpose_tile": ([2, 3], lambda x, r: tf.transpose(tf.tile(x, [2, 1]), [1, 0])),
    "resize": ([1, 3, 3, 2], lambda x, r: tf.image.resize_nearest_neighbor(x, [6, 6])),
    "select": ([2, 3], lambda x, r: tf.where(x < 0.0, x * 2.0, x) + tf.add_n([x, x])),
    "conv_strided_dilated": ([1, 9, 9, 2], lambda x, r: tf.nn.conv2d(
        x, _const(r, 3, 3, 2, 3), [1, 2, 2, 1], "VALID") + tf.nn.conv2d(
        x, _const(r, 3, 3, 2, 3), [1, 1, 1, 1], "SAME", dilations=[1, 2, 2, 1])[:, 1::2, 1::2]),
    "pools": ([1, 5, 5, 2], lambda x, r: tf.nn.max_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
              + tf.nn.avg_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")),
    "resize_bilinear": ([1, 3, 4, 2], lambda x, r: tf.image.resize_bilinear(x, [5, 7])
                        + tf.image.resize_bilinear(x, [5, 7], align_corners=True)),
    "conv2d_transpose": ([1, 3, 3, 4], lambda x, r: tf.nn.conv2d_transpose(
        x, _const(r, 3, 3, 2, 4), [1, 6, 6, 2], [1, 2, 2, 1], "SAME")),
    "atrous": ([1, 8, 8, 2], lambda x, r: tf.nn.atrous_conv2d(x, _const(r, 3, 3, 2, 3), 2,
                                                              "SAME")),
    "space_to_batch": ([1, 3, 3, 2], lambda x, r: tf.space_to_batch_nd(
        x, [2, 2], [[1, 0], [0, 1]])),
    "lrn": ([1, 3, 3, 6], lambda x, r: tf.nn.local_response_normalization(x, 2, 1.0, 0.5, 0.75)),
    "concat_relu6": ([2, 3], lambda x, r: tf.nn.relu6(tf.concat([x, x * 7.0], axis=0))),
    "batch_norm": ([1, 2, 2, 3], lambda x, r: tf.nn.fused_batch_norm(
        x * 2.0, tf.constant([1., 2., 3.]), tf.constant([0.1, 0.2, 0.3]),
        tf.constant([0.5, 0., -0.5]), tf.constant([1., 2., 0.5]), is_training=False)[0]),
}


@pytest.mark.parametrize("name", sorted(OP_CASES))
def test_op_graphs_convert_and_run(name):
    shape, fn = OP_CASES[name]
    xi = np.random.RandomState(len(name)).randn(*shape).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, shape, name="x")
        y = tf.identity(fn(x, np.random.RandomState(7)), name="y")
        with tf.Session() as sess:
            ref = sess.run(y, {x: xi})
            data = tf.lite.TFLiteConverter.from_session(sess, [x], [y]).convert()
    model = read_model(data)
    if name == "new_axis":
        assert [o.op for o in model.operators] == ["STRIDED_SLICE", "RESHAPE"]
        assert model.operators[0].options["new_axis_mask"] == 0
    if name == "conv2d_transpose":  # (the tensors TF 1.15's converter writes)
        assert [(t.name, t.shape) for t in model.tensors] == [
            ("Const_transposed", [2, 3, 3, 4]), ("conv2d_transpose/input_sizes", [4]),
            ("x", [1, 3, 3, 4]), ("y", [1, 6, 6, 2])]
        assert [o.op for o in model.operators] == ["TRANSPOSE_CONV"]
    if name == "concat_relu6":  # (TF 1.15's CONCATENATION refuses a fused activation)
        assert [o.op for o in model.operators] == ["MUL", "CONCATENATION", "RELU6"]
    out = _run(tf.lite.Interpreter(model_content=data), xi)
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_quantized_model_is_refused_clearly():
    # uint8.tflite: TF 1.15's converter with inference_type=QUANTIZED_UINT8
    with open(os.path.join(DATA, "uint8.tflite"), "rb") as f:
        model = read_model(f.read())
    assert model.tensors[model.inputs[0]].type == 3  # UINT8
    assert model.tensors[model.inputs[0]].scale
    with pytest.raises(ValueError, match=r"input 'x' of FULLY_CONNECTED is a quantized UINT8 "):
        tf.lite.Interpreter(model_path=os.path.join(DATA, "uint8.tflite"))


def test_every_unsupported_op_is_listed():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [1, 4], name="x")
        n = tf.cast(tf.reduce_sum(tf.cumsum(x)), tf.int32)
        # the reshape's shape comes from an unsupported op: it cannot be folded
        y = tf.matrix_determinant(tf.reshape(tf.nn.relu(x), tf.stack([n * 0 + 2, 2])))
        with tf.Session() as sess, pytest.raises(
                Exception, match=r"custom implementations: Cumsum, MatrixDeterminant\.\n$") as info:
            tf.lite.TFLiteConverter.from_session(sess, [x], [y]).convert()
    assert type(info.value).__name__ == "ConverterError"


def test_keras_two_inputs_two_outputs(tmp_path):
    path = str(tmp_path / "k5.h5")
    layers = tf.keras.layers
    rng = np.random.RandomState(4)
    with tf.Graph().as_default():
        a = layers.Input((6,), name="tokens", dtype="int32")
        b = layers.Input((3,), name="extra")
        h = layers.concatenate([layers.GlobalAveragePooling1D()(layers.Embedding(20, 4)(a)), b])
        model = tf.keras.Model([a, b], [layers.Dense(2, activation="softmax", name="cls")(h),
                                        layers.Dense(1, name="reg")(h)])
        ti = rng.randint(0, 20, (1, 6)).astype(np.int32)
        ei = rng.randn(1, 3).astype(np.float32)
        ref = model.predict([ti, ei])
        model.save(path)
    interp = tf.lite.Interpreter(
        model_content=tf.lite.TFLiteConverter.from_keras_model_file(path).convert())
    interp.allocate_tensors()
    # measured in TF 1.15
    ins = interp.get_input_details()
    assert [(d["name"], d["index"], d["shape"].tolist(), d["dtype"]) for d in ins] == [
        ("tokens", 13, [1, 6], np.int32), ("extra", 7, [1, 3], np.float32)]
    outs = interp.get_output_details()
    assert [(d["name"], d["index"], d["shape"].tolist()) for d in outs] == [
        ("cls/Softmax", 2, [1, 2]), ("reg/BiasAdd", 10, [1, 1])]
    assert [(d["name"], d["shape"].tolist()) for d in interp.get_tensor_details()] == [
        ("cls/BiasAdd", [1, 2]), ("cls/MatMul_bias", [2]), ("cls/Softmax", [1, 2]),
        ("cls/kernel/transpose", [2, 7]), ("concatenate/concat", [1, 7]),
        ("embedding/embedding_lookup", [1, 6, 4]), ("embedding/embeddings", [20, 4]),
        ("extra", [1, 3]), ("global_average_pooling1d/Mean", [1, 4]),
        ("global_average_pooling1d/Mean/reduction_indices", []), ("reg/BiasAdd", [1, 1]),
        ("reg/MatMul_bias", [1]), ("reg/kernel/transpose", [1, 7]), ("tokens", [1, 6])]
    interp.set_tensor(13, ti)
    interp.set_tensor(7, ei)
    interp.invoke()
    for d, r in zip(outs, ref):
        np.testing.assert_allclose(interp.get_tensor(d["index"]), r, rtol=1e-5, atol=1e-6)
    tf.keras.backend.clear_session()
