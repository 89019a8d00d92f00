"""tf.train.Checkpoint / CheckpointManager in graph mode: TF's object-path keys, save/restore
round trips, restore status checks, the manager's numbering and deletion, and (where a real
TensorFlow is installed) a checkpoint written by TF restored here."""

import os
import subprocess

import numpy as np
import pytest

import tideflow as tf


def _model():
    v = tf.Variable([1.0, 2.0], name="v")
    w = tf.Variable(3.0, name="w")
    opt = tf.train.AdamOptimizer(0.1)
    train = opt.minimize(tf.reduce_sum(v * v) + w * w)
    ck = tf.train.Checkpoint(optimizer=opt, v=v, nested=tf.train.Checkpoint(w=w))
    return v, w, opt, train, ck


def test_keys_roundtrip_and_status(tmp_path):
    with tf.Graph().as_default():
        v, w, opt, train, ck = _model()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            path = ck.save(str(tmp_path / "ck"), session=sess)
            assert path == str(tmp_path / "ck-1")
            assert tf.train.latest_checkpoint(str(tmp_path)) == path
            saved = sess.run([v, w])
            names = sorted(n for n, _ in tf.train.list_variables(path))
            # TF 1.15 writes the object graph beside the variables
            assert names == sorted([
                "_CHECKPOINTABLE_OBJECT_GRAPH", "nested/w/.ATTRIBUTES/VARIABLE_VALUE",
                "nested/w/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE",
                "nested/w/.OPTIMIZER_SLOT/optimizer/v/.ATTRIBUTES/VARIABLE_VALUE",
                "optimizer/beta1_power/.ATTRIBUTES/VARIABLE_VALUE",
                "optimizer/beta2_power/.ATTRIBUTES/VARIABLE_VALUE",
                "save_counter/.ATTRIBUTES/VARIABLE_VALUE", "v/.ATTRIBUTES/VARIABLE_VALUE",
                "v/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE",
                "v/.OPTIMIZER_SLOT/optimizer/v/.ATTRIBUTES/VARIABLE_VALUE"])
            assert ck.save(str(tmp_path / "ck"), session=sess).endswith("ck-2")
    # a fresh graph of the same structure restores everything, slots included
    with tf.Graph().as_default():
        v, w, opt, train, ck = _model()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            status = ck.restore(path)
            status.assert_consumed()
            status.run_restore_ops(sess)
            vv, wv = sess.run([v, w])
            np.testing.assert_allclose(vv, saved[0])
            assert wv == saved[1]
            m = opt.get_slot(v, "m")
            assert np.abs(sess.run(m)).sum() > 0  # the Adam moment came back
            assert sess.run(ck.save_counter) == 1
    # a structure with an extra variable: existing objects do not all match
    with tf.Graph().as_default():
        v, w, opt, train, ck = _model()
        ck.extra = tf.Variable(7.0, name="extra")
        status = ck.restore(path)
        with pytest.raises(AssertionError, match="extra"):
            status.assert_existing_objects_matched()
        with tf.Session() as sess:
            status.initialize_or_restore(sess)
            assert sess.run(ck.extra) == 7.0
            np.testing.assert_allclose(sess.run(v), saved[0])


def test_restore_partial_and_errors(tmp_path):
    with tf.Graph().as_default():
        ck = _model()[-1]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = ck.write(str(tmp_path / "plain"), session=sess)
            assert path == str(tmp_path / "plain")
    with tf.Graph().as_default():
        v2 = tf.Variable([0.0, 0.0], name="other_name")
        part = tf.train.Checkpoint(v=v2)
        status = part.restore(path)
        with pytest.raises(AssertionError, match="Unresolved"):
            status.assert_consumed()
        status.expect_partial()
        with tf.Session() as sess:
            status.run_restore_ops(sess)
            assert sess.run(v2).tolist() == [1.0, 2.0]
        wrong = tf.train.Checkpoint(v=tf.Variable([0.0, 0.0, 0.0]))
        with pytest.raises(ValueError, match="shape"):
            wrong.restore(path)
        with pytest.raises(tf.errors.NotFoundError):
            part.restore(str(tmp_path / "missing"))
        with pytest.raises(ValueError, match="trackable"):
            tf.train.Checkpoint(x=3)
        with pytest.raises(AssertionError, match="No checkpoint"):
            part.restore(None).assert_consumed()
        with pytest.raises(ValueError, match="session"):
            part.save(str(tmp_path / "x"))


def test_checkpoint_manager_keeps_max_to_keep(tmp_path):
    d = str(tmp_path / "run")
    os.makedirs(d)
    with tf.Graph().as_default():
        v = tf.Variable(0.0)
        ck = tf.train.Checkpoint(v=v)
        mgr = tf.train.CheckpointManager(ck, d, max_to_keep=2)
        assert mgr.latest_checkpoint is None
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            paths = []
            for i in range(4):
                sess.run(v.assign(float(i)))
                paths.append(mgr.save())
            assert [os.path.basename(p) for p in paths] == ["ckpt-1", "ckpt-2", "ckpt-3",
                                                            "ckpt-4"]
            assert mgr.checkpoints == paths[2:]
            assert not tf.train.checkpoint_exists(paths[0])
            assert tf.train.checkpoint_exists(paths[3])
            assert mgr.save(checkpoint_number=100).endswith("ckpt-100")
    with tf.Graph().as_default():
        v = tf.Variable(-1.0)
        ck = tf.train.Checkpoint(v=v)
        mgr = tf.train.CheckpointManager(ck, d, max_to_keep=2)  # picks up the directory state
        assert mgr.latest_checkpoint.endswith("ckpt-100")
        assert [os.path.basename(p) for p in mgr.checkpoints] == ["ckpt-4", "ckpt-100"]
        with tf.Session() as sess:
            assert mgr.restore_or_initialize(sess).endswith("ckpt-100")
            assert sess.run(v) == 3.0
    with pytest.raises(ValueError, match="max_to_keep"):
        tf.train.CheckpointManager(ck, d, max_to_keep=0)
    assert tf.train.CheckpointOptions(experimental_io_device="/cpu:0").experimental_io_device


_TF = "/tmp/tfvenv/bin/python"
_PROGRAM = r"""
import sys, tempfile
if sys.argv[1] == "tf":
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
else:
    import tideflow as tf
v = tf.Variable([1.5, 2.5], name="v")
u = tf.Variable(1.0, name="u")
opt = tf.train.MomentumOptimizer(0.1, 0.9)
train = opt.minimize(tf.reduce_sum(v * v) * u)
ck = tf.train.Checkpoint(model=tf.train.Checkpoint(v=v, more=[u, {"again": v}]),
                         optimizer=opt)
with tf.Session() as s:
    s.run(tf.global_variables_initializer())
    p = ck.save(tempfile.mkdtemp() + "/ck", session=s)
    names = [n for n, _ in tf.train.list_variables(p) if n != "_CHECKPOINTABLE_OBJECT_GRAPH"]
    print(sorted(names))
"""


@pytest.mark.skipif(not os.path.exists(_TF), reason="no real TensorFlow to compare with")
def test_same_keys_as_tensorflow():
    # (tideflow's checkpoint files are its own format; the keys inside are TF's)
    import sys

    def run(which, exe):
        return subprocess.run([exe, "-c", _PROGRAM, which], capture_output=True, text=True,
                              check=True, timeout=120).stdout.strip().splitlines()[-1]

    assert run("tideflow", sys.executable) == run("tf", _TF)


def test_keras_model_keys_as_tf_1x(tmp_path):
    # tf.keras (TF 1.x/2.x Keras 2) names a Sequential's layers layer_with_weights-N
    with tf.Graph().as_default():
        m = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(2,)),
                                 tf.keras.layers.Dropout(0.1), tf.keras.layers.Dense(1)])
        ck = tf.train.Checkpoint(model=m)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = ck.save(str(tmp_path / "k"), session=sess)
            kernel = sess.run(m.layers[2].kernel)
    names = sorted(n for n, _ in tf.train.list_variables(path))
    assert names == ["_CHECKPOINTABLE_OBJECT_GRAPH",
                     "model/layer_with_weights-0/bias/.ATTRIBUTES/VARIABLE_VALUE",
                     "model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE",
                     "model/layer_with_weights-1/bias/.ATTRIBUTES/VARIABLE_VALUE",
                     "model/layer_with_weights-1/kernel/.ATTRIBUTES/VARIABLE_VALUE",
                     "save_counter/.ATTRIBUTES/VARIABLE_VALUE"]
    np.testing.assert_array_equal(
        tf.train.load_variable(path, "model/layer_with_weights-1/kernel/.ATTRIBUTES/"
                                     "VARIABLE_VALUE"), kernel)
