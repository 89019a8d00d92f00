"""Unseen TF 1.x programs from course and book repositories (udacity/deep-learning, the GCP
training-data-analyst ML courses, ...), each reduced to a small standalone program with
synthetic data and checked against what TF 1.15 printed and computed for the same program
(the values below were measured by running it under TF 1.15.0, tensorflow-cpu, NumPy 1.18)."""

import os

import numpy as np

import tideflow as tf


# --- GoogleCloudPlatform/training-data-analyst
#     courses/machine_learning/deepdive/05_artandscience/simplernn/trainer/model.py:
# the model_fn exports a RegressionOutput over a float placeholder; no signature is valid
# (Regress wants one string input), and TF 1.15 writes the SavedModel anyway, with only a
# warning, so train_and_evaluate's LatestExporter succeeds.
def test_gcp_simplernn_export_without_valid_signature(tmp_path):
    def model_fn(features, labels, mode):
        pred = tf.matmul(features["rawdata"], tf.Variable(tf.ones([3, 1])))
        loss = train_op = None
        if mode != tf.estimator.ModeKeys.PREDICT:
            loss = tf.losses.mean_squared_error(labels, pred)
            train_op = tf.contrib.layers.optimize_loss(
                loss=loss, global_step=tf.contrib.framework.get_global_step(),
                learning_rate=0.01, optimizer="SGD")
        return tf.estimator.EstimatorSpec(
            mode=mode, predictions={"predicted": pred}, loss=loss, train_op=train_op,
            export_outputs={"regression_export_outputs":
                            tf.estimator.export.RegressionOutput(value=pred)})

    def input_fn():
        x = np.array([[1., 2., 3.], [0., 1., -1.]], np.float32)
        y = np.array([[1.], [2.]], np.float32)
        return tf.data.Dataset.from_tensor_slices(({"rawdata": x}, y)).repeat().batch(2)

    def serving_input_fn():
        ph = {"rawdata": tf.placeholder(tf.float32, [None, 3])}
        return tf.estimator.export.ServingInputReceiver(ph, ph)

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "m"))
    est.train(input_fn, steps=3)
    assert est.evaluate(input_fn, steps=1) == {"loss": np.float32(6.442289), "global_step": 3}
    path = est.export_savedmodel(str(tmp_path / "export"), serving_input_fn)
    assert sorted(os.listdir(path)) == [b"saved_model.pb", b"variables"]
    with tf.Session(graph=tf.Graph()) as sess:
        mg = tf.saved_model.loader.load(sess, ["serve"], path)
        assert dict(mg.signature_def) == {}


# --- chiphuyen/stanford-tensorflow-tutorials assignments/exercises/e01_sol.py (1f): the
# determinant of a 10x10 tf.random_normal(mean=10) matrix. TF 1.15 computes it in float (Eigen's
# unblocked partial-pivot LU, then sign * exp(sum of log|diagonal|)), which on such an
# ill-conditioned matrix is ~200 ulps from the exact value; tideflow gave the exact one.
def test_cs20_e01_float_determinant_takes_tfs_lu_bits():
    tf.set_random_seed(5)
    m = tf.random_normal([10, 10], mean=10, stddev=1, seed=3)
    b = tf.constant((np.arange(2 * 9 * 9).reshape(2, 9, 9) % 11
                     + np.eye(9) * 0.25).astype(np.float32))
    with tf.Session() as sess:
        d, (s, la), db, (sb, lab) = sess.run([tf.matrix_determinant(m), tf.linalg.slogdet(m),
                                              tf.matrix_determinant(b), tf.linalg.slogdet(b)])
    # TF 1.15's bits (measured): 10855.913, log 9.292465; [-20078742., -442892.94]
    assert np.asarray(d).view(np.uint32) == 1177132967
    assert np.asarray(la).view(np.uint32) == 1091874288 and s == 1.0
    assert db.view(np.uint32).tolist() == [3415814219, 3369615774]
    assert lab.view(np.uint32).tolist() == [1099335033, 1095763056]
    assert sb.tolist() == [-1.0, -1.0]
    # edge cases as TF 1.15 (measured): singular -> 0 (sign 0, log -inf); NaN inside -> 0 too
    with tf.Session() as sess:
        z, (zs, zl) = sess.run([tf.matrix_determinant(tf.ones([4, 4])),
                                tf.linalg.slogdet(tf.ones([4, 4]))])
        nan = sess.run(tf.matrix_determinant(tf.constant([[np.nan, 1.], [1., 1.]])))
    assert z == 0.0 and zs == 0.0 and zl == -np.inf and nan == 0.0


# --- ageron/handson-ml 15_autoencoders.ipynb (the variational autoencoder's
# partial(tf.layers.dense, activation=tf.nn.elu)): TF 1.15's remapper fuses MatMul + BiasAdd +
# Elu, whose output kernel takes each row's last n % 8 values through expf, not the packet exp.
def test_ageron_vae_dense_elu_fused_by_rows():
    tf.keras.backend.clear_session()
    with tf.Graph().as_default():
        np.random.seed(0)
        xi = np.random.randn(64, 16).astype(np.float32)
        tf.set_random_seed(1)
        m = tf.keras.Sequential([tf.keras.layers.Dense(10, activation="elu", input_shape=(16,))])
        p = m.predict(xi)  # predict's target waits on the Elu: not fused
        x = tf.placeholder(tf.float32, [None, 16])
        d = tf.layers.dense(x, 10, activation=tf.nn.elu)
        with tf.control_dependencies([d]):
            z = tf.identity(x)
        sess = tf.keras.backend.get_session()
        sess.run(tf.global_variables_initializer())
        # sums of the float32 bit patterns, measured in TF 1.15
        assert p.view(np.uint32).sum() == 1382347797174
        assert sess.run(d, {x: xi}).view(np.uint32).sum() == 1381935896811  # fused
        assert sess.run([d, z], {x: xi})[0].view(np.uint32).sum() == 1381935896813  # not fused


def test_conv2d_bias_elu_fused_by_rows():
    # the same fusion for Conv2D + BiasAdd + Elu (_FusedConv2D): each pixel's channels are a row
    with tf.Graph().as_default():
        np.random.seed(0)
        xi = np.random.randn(2, 6, 6, 3).astype(np.float32)
        w = tf.Variable(np.random.randn(3, 3, 3, 10).astype(np.float32))
        b = tf.Variable(np.random.randn(10).astype(np.float32))
        x = tf.placeholder(tf.float32, [None, 6, 6, 3])
        act = tf.nn.elu(tf.nn.bias_add(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), b))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(act, {x: xi}).view(np.uint32).sum() == 1471895799023  # TF 1.15
