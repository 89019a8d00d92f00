"""Differences found by running Uber's Ludwig 0.2 (declarative models on TF 1.x graph mode)
against tideflow, each reduced to the plain TF 1.x calls the library makes."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ----------------------------------------------------------------------------------------
# a variable scope's regularizer, for variables first made inside a loop body
# ----------------------------------------------------------------------------------------


def _half_sq(w):
    return 0.5 * tf.reduce_sum(tf.square(w))


def test_scope_regularizer_loss_made_in_while_body_is_usable_outside():
    def body(i, acc):
        with tf.variable_scope("blk", regularizer=_half_sq, reuse=tf.AUTO_REUSE):
            w = tf.get_variable("w", [3], initializer=tf.constant_initializer(2.0))
        return i + 1, acc + tf.reduce_sum(w)

    _, acc = tf.while_loop(lambda i, a: i < 4, body, [tf.constant(0), tf.constant(0.0)])
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert [t.name for t in losses] == ["blk/w/Regularizer/mul:0"]
    assert losses[0].op.control_inputs == []
    total = tf.add_n(losses)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run([total, acc]) == pytest.approx([6.0, 24.0])


def test_scope_regularizer_loss_made_in_cond_branch_runs_on_either_branch():
    pred = tf.placeholder(tf.bool, [])

    def taken():
        with tf.variable_scope("br", regularizer=lambda w: 2.0 * tf.reduce_sum(w)):
            return 3.0 * tf.get_variable("w", [2], initializer=tf.ones_initializer())

    out = tf.cond(pred, taken, lambda: tf.zeros([2]))
    (loss,) = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert loss.name == "br/w/Regularizer/mul:0"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got_loss, got_out = sess.run([loss, out], {pred: False})
    assert got_loss == pytest.approx(4.0)
    np.testing.assert_array_equal(got_out, [0.0, 0.0])


def test_scope_regularizer_on_dynamic_rnn_multi_cell():
    x = tf.placeholder(tf.float32, [None, 4, 2])
    with tf.variable_scope("enc", regularizer=_half_sq):
        cells = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicRNNCell(3) for _ in range(2)])
        out, _ = tf.nn.dynamic_rnn(cells, x, dtype=tf.float32)
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert len(losses) == 4  # kernel and bias of both cells
    loss = tf.reduce_mean(out) + tf.add_n(losses)
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    weights = tf.trainable_variables()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        ws = sess.run(weights)
        want = sum(0.5 * np.sum(np.square(w)) for w in ws)
        assert sess.run(tf.add_n(losses)) == pytest.approx(want, rel=1e-5)
        sess.run(step, {x: np.ones((2, 4, 2), np.float32)})


# ----------------------------------------------------------------------------------------
# Kashgari 1.1 (tf.keras models on TF 1.x): names it reaches at import and export
# ----------------------------------------------------------------------------------------


def test_tpu_strategy_name_exists_and_fails_without_a_tpu():
    # used in annotations (def build_tpu_model(self, strategy: tf.contrib.distribute.TPUStrategy))
    assert tf.contrib.distribute.TPUStrategy is tf.distribute.experimental.TPUStrategy
    assert issubclass(tf.contrib.distribute.TPUStrategy, tf.distribute.Strategy)
    with pytest.raises(ValueError, match="Please provide a TPU Name"):
        tf.contrib.distribute.TPUStrategy()


def test_python_saved_model_attribute_has_simple_save_function(tmp_path):
    from tideflow.python.saved_model import simple_save as simple_save_module

    from tideflow.python import saved_model

    assert callable(saved_model.simple_save)
    assert simple_save_module.simple_save is saved_model.simple_save
    assert saved_model.tag_constants.SERVING == "serve"

    x = tf.placeholder(tf.float32, [None, 2], name="inp")
    w = tf.Variable([[1.0], [3.0]], name="w")
    y = tf.matmul(x, w, name="out")
    export_dir = str(tmp_path / "1")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saved_model.simple_save(session=sess, export_dir=export_dir, inputs={"inp": x},
                                outputs={"out": y})
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], export_dir)
        sig = meta.signature_def["serving_default"]
        got = sess.run(sig.outputs["out"].name, {sig.inputs["inp"].name: [[2.0, 1.0]]})
    np.testing.assert_allclose(got, [[5.0]])


class _EveryEpochCheckpoint(tf.keras.callbacks.ModelCheckpoint):
    """A subclass written against TF 1.15's ModelCheckpoint internals (Kashgari's)."""

    def _save_model(self, epoch, logs):
        logs = logs or {}
        if isinstance(self.save_freq, int) or self.epochs_since_last_save >= self.period:
            self.epochs_since_last_save = 0
            file_handle, filepath = self._get_file_handle_and_path(epoch, logs)
            if self.save_weights_only:
                if tf.keras.backend.in_multi_worker_mode():
                    self.model._ckpt_saved_epoch = epoch
                self.model.save_weights(filepath, overwrite=True)
            self.saved = getattr(self, "saved", []) + [filepath]
            self._maybe_remove_file(file_handle, filepath)


def test_model_checkpoint_subclass_uses_tf_helpers(tmp_path, monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    assert not tf.keras.backend.in_multi_worker_mode()
    monkeypatch.setenv("TF_CONFIG", '{"cluster": {"worker": ["a:1", "b:2"]}, '
                                    '"task": {"type": "worker", "index": 0}}')
    assert tf.keras.backend.in_multi_worker_mode()
    monkeypatch.setenv("TF_CONFIG", '{"cluster": {"master": ["a:1"]}}')
    assert not tf.keras.backend.in_multi_worker_mode()
    monkeypatch.delenv("TF_CONFIG")

    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    model.compile("sgd", "mse")
    ck = _EveryEpochCheckpoint(str(tmp_path / "w{epoch:02d}-{loss:.1f}.h5"),
                               save_weights_only=True, monitor="loss")
    handle, path = ck._get_file_handle_and_path(4, {"loss": 0.25})
    assert handle is None and path == str(tmp_path / "w05-0.2.h5")
    x = np.ones((8, 3), np.float32)
    model.fit(x, np.zeros((8, 1), np.float32), epochs=2, verbose=0, callbacks=[ck])
    assert [p.rsplit("/", 1)[1][:4] for p in ck.saved] == ["w01-", "w02-"]
    assert all((tmp_path / p.rsplit("/", 1)[1]).exists() for p in ck.saved)
    with pytest.raises(KeyError, match="'loss'"):  # (TF 1.15: str.format's own)
        ck._get_file_handle_and_path(0, {})
