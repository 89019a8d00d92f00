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
