"""Patterns from the TF 1.x cookbook sweep (nfmcclure/tensorflow_cookbook run under tideflow).

Each test pins one behaviour a cookbook program relied on and that tideflow got wrong before:
values are checked against NumPy or hand-derived numbers.
"""

import os

import numpy as np

import tideflow as tf


def test_saved_model_builder_accepts_bytes_export_dir(tmp_path):
    # The production chapter exports with
    #   builder = tf.saved_model.builder.SavedModelBuilder(tf.compat.as_bytes(path))
    # and TF's builder.save() returns the path of saved_model.pb as bytes.
    export_dir = os.path.join(str(tmp_path), "1")
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.Variable([[1.0], [2.0]], name="w")
        y = tf.matmul(x, w, name="y")
        sess.run(tf.global_variables_initializer())
        sess.run(w.assign([[3.0], [-1.0]]))
        builder = tf.saved_model.builder.SavedModelBuilder(tf.compat.as_bytes(export_dir))
        sig = tf.saved_model.signature_def_utils.build_signature_def(
            inputs={"x": tf.saved_model.utils.build_tensor_info(x)},
            outputs={"y": tf.saved_model.utils.build_tensor_info(y)},
            method_name=tf.saved_model.signature_constants.PREDICT_METHOD_NAME)
        builder.add_meta_graph_and_variables(
            sess, [tf.saved_model.tag_constants.SERVING], signature_def_map={"p": sig},
            legacy_init_op=tf.group(tf.tables_initializer(), name="legacy_init_op"))
        path = builder.save()
    assert path == os.fsencode(os.path.join(export_dir, "saved_model.pb"))
    assert sorted(os.listdir(export_dir)) == ["saved_model.pb", "variables"]

    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        mg = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING],
                                        tf.compat.as_bytes(export_dir))
        s = mg.signature_def["p"]
        feed = np.array([[1.0, 2.0], [0.5, -4.0]], np.float32)
        out = sess.run(s.outputs["y"].name, {s.inputs["x"].name: feed})
    np.testing.assert_allclose(out, feed @ np.array([[3.0], [-1.0]], np.float32))
