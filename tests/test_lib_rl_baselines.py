"""What running OpenAI Baselines (0.1.5: A2C, ACER, ACKTR, PPO1/PPO2, DQN, DDPG, HER, TRPO, GAIL)
and RLgraph (0.5.5, its component tests) on tideflow needed, pinned with plain TF 1.x calls: the
result types Session.run gives back for list and tuple subclasses used as fetch structures."""

import collections

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


class _Ops(tuple):
    """A tuple subclass whose constructor takes its items as separate arguments (RLgraph's
    DataOpTuple does this), so it cannot be rebuilt from one iterable."""

    def __new__(cls, *items):
        return tuple.__new__(cls, items)


class _Batch(list):
    pass


def test_tuple_subclass_fetch_is_rebuilt_from_its_items():
    a = tf.constant(0.5)
    b = tf.constant([4, 5])
    with tf.Session() as sess:
        got = sess.run(_Ops(a, b))
        nested = sess.run([_Ops(a, _Ops(b))])
    assert type(got) is _Ops and len(got) == 2
    assert got[0] == np.float32(0.5)
    np.testing.assert_array_equal(got[1], [4, 5])
    assert type(nested) is list and type(nested[0]) is _Ops and type(nested[0][1]) is _Ops
    np.testing.assert_array_equal(nested[0][1][0], [4, 5])


def test_list_subclass_fetch_comes_back_as_a_plain_list():
    a = tf.constant(1.0)
    b = tf.constant(2.0)
    with tf.Session() as sess:
        got = sess.run(_Batch([a, b]))
        fn = sess.make_callable(_Batch([b, _Batch([a])]))
        called = fn()
    assert type(got) is list and got == [1.0, 2.0]
    assert type(called) is list and type(called[1]) is list and called == [2.0, [1.0]]


def test_plain_tuple_and_namedtuple_fetches_keep_their_types():
    pair = collections.namedtuple("pair", ["loss", "step"])
    x = tf.placeholder(tf.float32, [2])
    loss = tf.reduce_sum(x * x)
    with tf.Session() as sess:
        got = sess.run((loss, pair(loss, tf.constant(3))), {x: [1.0, 2.0]})
        empty = sess.run(_Ops())
    assert type(got) is tuple and got[0] == 5.0
    assert type(got[1]) is pair and got[1].loss == 5.0 and got[1].step == 3
    assert type(empty) is _Ops and empty == ()
