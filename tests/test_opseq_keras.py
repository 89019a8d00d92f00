"""Op-sequence parity of tf.keras (graph mode) with TF 1.15.

A random op without an op seed takes the graph's op count as its seed (tf.set_random_seed's
rule), so a seeded Keras program gets TF 1.15's initial weights and dropout masks only when
the same number of ops comes before each random op. The expected names, counts and values
below are what TF 1.15 (tf.keras 2.2.4-tf) built and printed for the same calls.
"""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        tf.set_random_seed(1)
        yield g
    tf.keras.backend.clear_session()


def _names(g):
    return [op.name for op in g.get_operations()]


# -- tf.cond: the Switch/Merge frame TF 1.x builds is counted -------------------------------


def test_cond_counts_tf1_switch_and_merge_ops(_fresh_graph):
    p = tf.placeholder(tf.bool, [])
    x = tf.placeholder(tf.float32, [4])
    y = tf.cond(p, lambda: tf.nn.dropout(x, rate=0.5), lambda: x)
    r = tf.random_uniform([2])
    # TF 1.15: 32 ops (4 before the branches, a Switch per captured tensor, one Merge)
    assert _fresh_graph._last_id == 32
    with tf.Session() as s:
        yv, rv = s.run([y, r], {p: True, x: np.ones(4)})
    np.testing.assert_array_equal(yv, [2.0, 2.0, 2.0, 0.0])
    np.testing.assert_allclose(rv, [0.03881812, 0.5522677], rtol=1e-6)


def test_cond_counts_captures_of_one_branch_only(_fresh_graph):
    p = tf.placeholder(tf.bool, [])
    x = tf.placeholder(tf.float32, [3])
    z = tf.placeholder(tf.float32, [3])
    tf.cond(p, lambda: x * 2 + tf.random_normal([3]), lambda: z - 1.0)
    assert _fresh_graph._last_id == 21  # TF 1.15's count
    tf.cond(p, lambda: (x, x + 1), lambda: (x * 3, tf.ones([3])))
    assert _fresh_graph._last_id == 34


def test_keras_dropout_learning_phase_cond_seeds(_fresh_graph):
    x = tf.keras.Input(shape=(6,))
    d = tf.keras.layers.Dropout(0.5)(x)
    r = tf.random_uniform([2])
    assert _fresh_graph._last_id == 34
    s = tf.keras.backend.get_session()
    dv, rv = s.run([d, r], {x: np.ones((2, 6)), tf.keras.backend.learning_phase(): 1})
    np.testing.assert_array_equal(dv, [[2, 2, 2, 2, 0, 2], [2, 0, 0, 2, 2, 0]])
    np.testing.assert_allclose(rv, [0.04386163, 0.07983994], rtol=1e-6)
