"""TF 1.x behaviours pinned by the tenth session's lead (side-by-side checks with TF)."""
import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_as_dtype_none_is_refused():
    # np.dtype(None) is float64, but TF refuses None
    with pytest.raises(TypeError, match="Cannot convert value None to a TensorFlow DType"):
        tf.as_dtype(None)
    assert tf.as_dtype("float16") is tf.float16
    assert tf.as_dtype(np.float64) is tf.float64


def test_rnn_cell_without_dtype_takes_float_inputs_and_refuses_integer_ones():
    cell = tf.nn.rnn_cell.GRUCell(3)
    out, _ = tf.nn.dynamic_rnn(cell, tf.zeros([2, 4, 5], tf.float64), dtype=tf.float64)
    assert out.dtype == tf.float64 and cell.weights[0].dtype.base_dtype == tf.float64
    with pytest.raises(ValueError, match="but saw dtype: <dtype: 'int32'>"):
        tf.nn.rnn_cell.BasicLSTMCell(2)(tf.zeros([3, 4], tf.int32),
                                       tf.nn.rnn_cell.LSTMStateTuple(tf.zeros([3, 2]),
                                                                     tf.zeros([3, 2])))


def test_cond_and_while_bodies_resolve_names_of_the_enclosing_graph():
    # TF 1.x builds cond branches and loop bodies in the graph itself: by-name lookups of
    # outer ops work there, and the tensor found is captured like any outer tensor
    tf.constant(5.0, name="five")
    tf.Variable(2.0, name="v")
    seen = {}

    def body(i, acc):
        g = tf.get_default_graph()
        seen["op"] = g.get_operation_by_name("v").name
        five = g.get_tensor_by_name("five:0")
        return i + 1, acc + five * g.as_graph_element("v:0")

    out = tf.while_loop(lambda i, a: i < 3, body, [0, 0.0])

    def branch():
        return tf.get_default_graph().get_tensor_by_name("five:0") + 1.0

    c = tf.cond(tf.constant(True), branch, lambda: tf.constant(0.0))
    with pytest.raises(KeyError, match="'missing'"):
        tf.cond(tf.constant(True),
                lambda: tf.get_default_graph().get_tensor_by_name("missing:0"),
                lambda: tf.constant(0.0))
    assert seen["op"] == "v"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run([out[1], c]) == [30.0, 6.0]


@pytest.mark.parametrize("first_inside", [False, True])
def test_keras_learning_phase_is_shared_by_loop_bodies(first_inside):
    K = tf.keras.backend

    def body(i, acc):
        return i + 1, acc + tf.cast(K.learning_phase(), tf.float32)

    if first_inside:
        loop = tf.while_loop(lambda i, a: i < 2, body, [0, 0.0])
        lp = K.learning_phase()
    else:
        lp = K.learning_phase()
        loop = tf.while_loop(lambda i, a: i < 2, body, [0, 0.0])
    assert lp.graph is tf.get_default_graph() and lp.op.name == "keras_learning_phase"
    with tf.Session() as sess:
        assert sess.run(loop[1], {lp: True}) == 2.0
        assert sess.run(loop[1]) == 0.0


_LOG_PROGRAMS = {
    # the tensorflow logger prints its own lines while the root logger is unconfigured
    "plain": (("import tideflow as tf; tf.logging.info('hidden'); tf.logging.warn('shown'); "
              "tf.logging.set_verbosity(tf.logging.INFO); tf.logging.info('now shown')"),
              "WARNING:tensorflow:shown\nINFO:tensorflow:now shown"),
    # a configured root logger gets the records instead, in its format and at its level
    "basicConfig": (("import logging; logging.basicConfig(level=logging.INFO, "
                    "format='ROOT %(name)s %(message)s'); import tideflow as tf; "
                    "tf.logging.info('via root')"), "ROOT tensorflow via root"),
    # absl's app.run adds a root handler after the import: TF 1.15 prints each record twice,
    # by its own handler and, propagated, in absl's format naming the caller's line
    "app.run": (("import tideflow as tf\ndef main(_):\n    tf.logging.info('absl info')\n"
                "tf.app.run(main)"), "INFO:tensorflow:absl info\n", "<string>:3] absl info"),
}


@pytest.mark.parametrize("name", sorted(_LOG_PROGRAMS))
def test_tensorflow_logger_follows_tf_rule_for_its_handler(name):
    import os
    import subprocess
    import sys

    code, *expected = _LOG_PROGRAMS[name]
    first, expected = (expected[0], expected[1]) if len(expected) == 2 else ("", expected[0])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True,
                          text=True, timeout=300, env=dict(os.environ, PYTHONPATH=root))
    assert done.returncode == 0, done.stderr
    err = done.stderr.strip()
    assert err.endswith(expected) and err.startswith(first), err
    assert err.count("\n") == (first + expected).count("\n"), err
