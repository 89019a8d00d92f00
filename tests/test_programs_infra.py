"""Regressions found by running TF 1.x infrastructure programs (input pipelines, sessions,
saving, control flow, debugging aids, error handling) under tideflow and under real TF."""

import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def test_tensor_str_omits_unknown_shape_and_shows_device():
    # TF 1.x: Tensor("b:0", dtype=float32) for an unknown rank; ", device=..." when placed.
    with tf.device("/cpu:0"):
        a = tf.constant(1.0, name="a")
    b = tf.placeholder(tf.float32, name="b")
    c = tf.placeholder(tf.int32, [None, 2], name="c")
    assert str(a) == 'Tensor("a:0", shape=(), dtype=float32, device=/device:CPU:0)'
    assert str(b) == 'Tensor("b:0", dtype=float32)'
    assert str(c) == 'Tensor("c:0", shape=(?, 2), dtype=int32)'
    assert repr(b) == "<tf.Tensor 'b:0' shape=<unknown> dtype=float32>"


def test_while_loop_returns_the_body_structure_and_tensor_array_shapes():
    # TF's BuildLoop packs the outputs as the body returned them: loop_vars given as a list and
    # a body returning a tuple give a tuple, and a TensorArray written in the body keeps the
    # element shape it inferred (real TF 1.x: stack() -> (?, 4, 3)).
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)

    def body(k, ta):
        return k + 1, ta.write(k, tf.ones([4, 3]) * tf.cast(k, tf.float32))

    out = tf.while_loop(lambda k, ta: k < 4, body, [0, ta])
    assert isinstance(out, tuple)
    stacked = out[1].stack()
    assert stacked.get_shape().as_list() == [None, 4, 3]
    assert out[1].read(0).get_shape().as_list() == [4, 3]
    with tf.Session() as s:
        v = s.run(stacked)
    assert v.shape == (4, 4, 3)
    assert (v[:, 0, 0] == [0, 1, 2, 3]).all()
