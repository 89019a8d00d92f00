"""Differences found by running DeepChem's TF 1.x graph-mode models (TensorGraph layers and
KerasModel, the 2.3.0 line) against tideflow, each reduced to the plain TF 1.x / tf.keras
calls the library makes."""

import numpy as np
import pytest

import tideflow as tf

K = tf.keras.backend


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield
    K.clear_session()


# ----------------------------------------------------------------------------------------
# tf.keras layers: a Variable assigned to an attribute in build is one of the layer's weights
# ----------------------------------------------------------------------------------------


class _Lookup(tf.keras.layers.Layer):
    """Makes its table with tf.Variable directly (no add_weight), as DeepChem's layers do."""

    def build(self, input_shape):
        self.table = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3), name="table")
        self.scale = tf.Variable(2.0, name="scale", trainable=False)
        self.pair = [tf.Variable(1.0, name="p0"), tf.Variable(-1.0, name="p1")]
        self.built = True

    def call(self, inputs):
        return tf.nn.embedding_lookup(self.table, inputs) * self.scale


def test_variable_attributes_are_layer_weights():
    layer = _Lookup()
    out = layer(tf.constant([3, 0], dtype=tf.int32))
    assert [v.op.name.split("/")[-1] for v in layer.trainable_variables] == ["table", "p0", "p1"]
    assert [v.op.name.split("/")[-1] for v in layer.non_trainable_variables] == ["scale"]
    assert len(layer.weights) == 4
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        table = sess.run(layer.trainable_variables[0])
        np.testing.assert_allclose(sess.run(out), table[[3, 0]] * 2.0)


def test_variable_attributes_follow_trainable_flag_and_are_not_duplicated():
    layer = _Lookup(trainable=False)
    layer(tf.constant([1], dtype=tf.int32))
    assert layer.trainable_variables == []
    assert len(layer.non_trainable_variables) == 4
    dense = tf.keras.layers.Dense(2)
    dense(tf.zeros([1, 3]))
    dense.kernel_again = dense.kernel  # already a weight: not listed twice
    assert len(dense.weights) == 2


def test_gradients_reach_attribute_variables_through_a_model():
    inp = tf.keras.Input(shape=(), dtype=tf.int32)
    model = tf.keras.Model(inp, _Lookup()(inp))
    assert len(model.trainable_variables) == 3
    loss = tf.reduce_sum(model(tf.constant([2], dtype=tf.int32)))
    grads = tf.gradients(loss, model.trainable_variables[:1])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        g = sess.run(tf.convert_to_tensor(grads[0]))
    expected = np.zeros((4, 3), np.float32)
    expected[2] = 2.0
    np.testing.assert_allclose(g, expected)


# ----------------------------------------------------------------------------------------
# tf.train.Checkpoint: attributes set after construction (an empty list, a plain value)
# ----------------------------------------------------------------------------------------


def test_checkpoint_attribute_may_be_an_empty_list_or_a_plain_value(tmp_path):
    ckpt = tf.train.Checkpoint()
    ckpt.listed = []  # TensorGraph's checkpoint before any layer has variables
    ckpt.note = "plain"
    assert ckpt.listed == [] and ckpt.note == "plain"
    w = tf.Variable([1.5, 2.5], name="w")
    ckpt.listed = [w]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = ckpt.save(str(tmp_path / "ck"), session=sess)
        sess.run(w.assign([0.0, 0.0]))
        ckpt.restore(path).run_restore_ops(sess)
        np.testing.assert_allclose(sess.run(w), [1.5, 2.5])


def test_checkpoint_constructor_still_wants_trackables():
    with pytest.raises(ValueError, match="expecting a trackable object"):
        tf.train.Checkpoint(step=3)


def test_checkpoint_reader_under_the_swig_module_path(tmp_path):
    from tideflow.python.pywrap_tensorflow_internal import NewCheckpointReader

    v = tf.Variable([[1.0, 2.0]], name="kept")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver([v]).save(sess, str(tmp_path / "m"))
    reader = NewCheckpointReader(path)
    np.testing.assert_allclose(reader.get_tensor("kept"), [[1.0, 2.0]])
