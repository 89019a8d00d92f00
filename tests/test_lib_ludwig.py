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
