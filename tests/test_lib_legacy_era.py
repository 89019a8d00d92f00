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
