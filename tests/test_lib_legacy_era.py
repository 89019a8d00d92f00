"""What running libraries of the TF 0.8-1.0 era (PrettyTensor 0.7.4, skflow 0.1.0, keras-rl
0.4.2 on Keras 2.2.4) on tideflow needed, pinned with the plain TF calls they make."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.python.ops import variable_scope as vs_mod


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ------------------------------------------------------------------------------------------
# TF 1.0's variable-scope collection: [0] is the current scope, and assigning it swaps scopes
# ------------------------------------------------------------------------------------------

def test_varscope_collection_holds_current_scope():
    outer = tf.get_variable_scope()
    slot = tf.get_collection_ref(vs_mod._VARSCOPE_KEY)
    assert slot[0] is outer
    with tf.variable_scope("tower"):
        assert slot[0] is tf.get_variable_scope()
        assert slot[0].name == "tower"
    assert slot[0] is outer
    assert tf.get_collection(vs_mod._VARSCOPE_KEY) == [outer]


def test_assigning_varscope_collection_enters_that_scope():
    old = tf.get_variable_scope()
    slot = tf.get_collection_ref(vs_mod._VARSCOPE_KEY)
    slot[0] = tf.VariableScope(old.reuse, name="net/layer1",
                               initializer=tf.constant_initializer(0.5))
    try:
        w = tf.get_variable("w", [2])
        with tf.variable_scope("inner"):
            b = tf.get_variable("b", [1])
    finally:
        slot[0] = old
    assert w.op.name == "net/layer1/w"
    assert b.op.name == "net/layer1/inner/b"
    assert tf.get_variable_scope() is old
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(w), [0.5, 0.5])
    v = tf.get_variable("v", [])
    assert v.op.name == "v"


def test_varscope_collection_asked_before_the_scope():
    # the collection is asked for first: it still ends up holding the root scope
    slot = tf.get_collection_ref(vs_mod._VARSCOPE_KEY)
    root = tf.get_variable_scope()
    assert slot == [root]
    assert root.name == ""


# ------------------------------------------------------------------------------------------
# tf.merge_summary / tf.merge_all_summaries name the op inside its own scope, as TF 1.x
# (skflow finds its merged summary again by the name 'MergeSummary/MergeSummary')
# ------------------------------------------------------------------------------------------

def test_legacy_merge_summary_op_names():
    loss = tf.constant(2.5)
    tf.scalar_summary("loss", loss)
    tf.histogram_summary("loss_hist", tf.reshape(loss, [1]))
    merged = tf.merge_all_summaries()
    assert merged.op.name == "MergeSummary/MergeSummary"
    g = tf.get_default_graph()
    assert g.get_operation_by_name("MergeSummary/MergeSummary") is merged.op
    again = tf.merge_summary(tf.get_collection(tf.GraphKeys.SUMMARIES))
    assert again.op.name == "MergeSummary_1/MergeSummary"
    named = tf.merge_summary([merged], name="all")
    assert named.op.name == "all/all"
    assert tf.summary.merge_all().op.name == "Merge/MergeSummary"
    with tf.Session() as sess:
        summ = tf.Summary.FromString(sess.run(merged))
    assert [v.tag for v in summ.value] == ["loss", "loss_hist"]
    assert summ.value[0].simple_value == 2.5


# ------------------------------------------------------------------------------------------
# tf.nn.rnn_cell.linear: the 0.8 public name of the Linear/Matrix + Linear/Bias projection
# ------------------------------------------------------------------------------------------

def test_rnn_cell_linear_public_name():
    x = tf.constant([[1.0, 2.0, 3.0]])
    with tf.variable_scope("dnn", initializer=tf.constant_initializer(0.5)):
        y = tf.nn.rnn_cell.linear(x, 2, True, bias_start=0.25)
        z = tf.nn.rnn_cell.linear([x, x], 4, False, scope="twice")
    assert y.get_shape().as_list() == [1, 2]
    assert z.get_shape().as_list() == [1, 4]
    names = sorted(v.op.name for v in tf.global_variables())
    assert names == ["dnn/Linear/Bias", "dnn/Linear/Matrix", "dnn/twice/Matrix"]
    assert tf.nn.rnn_cell.linear is tf.nn.rnn_cell._linear
    with tf.Session() as sess:
        sess.run(tf.initialize_all_variables())
        np.testing.assert_allclose(sess.run(y), [[3.25, 3.25]])
        np.testing.assert_allclose(sess.run(z), [[6.0] * 4])
