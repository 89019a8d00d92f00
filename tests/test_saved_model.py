"""tf.saved_model (TF 1.x): build, load and serve a signature; simple_save; layout and errors."""

import os

import numpy as np
import pytest

import tideflow as tf
from tideflow import saved_model


def _train_model():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable([[1.0], [2.0]], name="w")
    b = tf.Variable(0.5, name="b")
    y = tf.add(tf.matmul(x, w), b, name="y")
    return x, y, w


def test_build_load_and_serve(tmp_path):
    export_dir = str(tmp_path / "export")
    with tf.Graph().as_default():
        x, y, w = _train_model()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(w.assign([[3.0], [4.0]]))
            builder = saved_model.builder.SavedModelBuilder(export_dir)
            sig = saved_model.signature_def_utils.predict_signature_def(
                inputs={"x": x}, outputs={"y": y})
            assert saved_model.signature_def_utils.is_valid_signature(sig)
            builder.add_meta_graph_and_variables(
                sess, [saved_model.tag_constants.SERVING],
                signature_def_map={
                    saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY: sig})
            builder.add_meta_graph([saved_model.tag_constants.TRAINING])
            with pytest.raises(AssertionError, match="already been saved"):
                builder.add_meta_graph_and_variables(sess, ["x"])
            path = builder.save()
    assert path == os.fsencode(os.path.join(export_dir, "saved_model.pb"))  # bytes, as TF
    assert sorted(os.listdir(export_dir)) == ["saved_model.pb", "variables"]
    assert sorted(os.listdir(os.path.join(export_dir, "variables"))) == [
        "variables.data-00000-of-00001", "variables.index"]
    assert saved_model.loader.maybe_saved_model_directory(export_dir)

    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        mgd = saved_model.loader.load(sess, [saved_model.tag_constants.SERVING], export_dir)
        sig = mgd.signature_def["serving_default"]
        assert sig.method_name == "tensorflow/serving/predict"
        xin = saved_model.utils.get_tensor_from_tensor_info(sig.inputs["x"])
        yout = saved_model.utils.get_tensor_from_tensor_info(sig.outputs["y"])
        got = sess.run(yout, {xin: [[1.0, 1.0], [0.0, 2.0]]})
        np.testing.assert_allclose(got, [[7.5], [8.5]])
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        with pytest.raises(RuntimeError, match="could not be found in SavedModel"):
            saved_model.loader.load(sess, ["gpu"], export_dir)
        saved_model.loader.load(sess, ["train"], export_dir, import_scope="m")
        np.testing.assert_allclose(sess.run("m/w:0"), [[3.0], [4.0]])


def test_simple_save_and_main_op(tmp_path):
    export_dir = str(tmp_path / "simple")
    with tf.Graph().as_default():
        x, y, _ = _train_model()
        counter = tf.Variable(0, name="counter", collections=[tf.GraphKeys.LOCAL_VARIABLES])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            init = saved_model.main_op.main_op()
            saved_model.simple_save(sess, export_dir, {"x": x}, {"y": y}, legacy_init_op=init)
        del counter
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        saved_model.load(sess, [saved_model.tag_constants.SERVING], export_dir)
        assert sess.run("counter:0") == 0  # the main op ran
        np.testing.assert_allclose(sess.run("y:0", {"x:0": [[1.0, 1.0]]}), [[3.5]])
    with pytest.raises(AssertionError, match="isn't empty"):
        saved_model.builder.SavedModelBuilder(export_dir)


def test_tensor_info_and_errors(tmp_path):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        info = saved_model.utils.build_tensor_info(x)
        assert info.name == "x:0" and info.dtype == tf.float32.as_datatype_enum
        assert [d.size for d in info.tensor_shape.dim] == [-1, 3]
        with pytest.raises(ValueError, match="inputs cannot be None or empty"):
            saved_model.signature_def_utils.predict_signature_def({}, {"y": x})
        sig = saved_model.signature_def_utils.build_signature_def({"a": info}, {"b": info}, "m")
        assert sig.method_name == "m" and sig.inputs["a"].name == "x:0"
    with pytest.raises(IOError, match="SavedModel file does not exist"), tf.Session() as s:
        saved_model.loader.load(s, ["serve"], str(tmp_path))
    assert saved_model.tag_constants.SERVING == "serve"
    assert saved_model.signature_constants.PREDICT_METHOD_NAME == "tensorflow/serving/predict"
