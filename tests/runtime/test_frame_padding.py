"""A large plan's function is padded to a frame no 16 KiB data-stack chunk holds
(executor._frame_padding): its kernels' frames then always fit after it, whatever the caller's
stack depth, instead of each call mapping and unmapping a chunk of its own."""

import sys

import numpy as np
import pytest

import tideflow as tf
from tideflow.runtime import executor

needs_311 = pytest.mark.skipif(sys.version_info < (3, 11), reason="CPython 3.11's data stack")


def _chain(n):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3])
        y = x
        for i in range(n):
            y = tf.abs(y) if i % 2 else tf.negative(y)
    return g, x, y


def _run_code(sess):
    plan = next(iter(sess._plans.values()))
    return plan._run.__code__


@needs_311
@pytest.mark.parametrize("n", [700, 1500])
def test_a_plan_with_hundreds_of_values_gets_a_frame_no_chunk_holds(n):
    g, x, y = _chain(n)
    with tf.Session(graph=g) as sess:
        out = sess.run(y, {x: np.array([1.0, -2.0, 3.0], np.float32)})
        code = _run_code(sess)
    np.testing.assert_array_equal(out, [1.0, 2.0, 3.0])
    assert code.co_nlocals >= executor._PAD_TO


def test_small_and_very_large_plans_are_left_as_they_are():
    for n, padded in ((40, False), (2300, False)):
        g, x, y = _chain(n)
        with tf.Session(graph=g) as sess:
            sess.run(y, {x: np.ones(3, np.float32)})
            names = _run_code(sess).co_varnames
        assert any(v.startswith("_p") for v in names) == padded


def test_a_padded_plan_still_runs_the_rest_of_a_failed_step():
    with tf.Graph().as_default():
        data = tf.data.Dataset.from_tensor_slices(np.arange(2, dtype=np.float32))
        v = data.make_one_shot_iterator().get_next()
        y = v
        for i in range(700):
            y = tf.abs(y) if i % 2 else tf.negative(y)
        counter = tf.Variable(0)
        # (y fetched: TF's dependency optimizer drops a pure chain that only a group waits for)
        step = [y, tf.assign_add(counter, 1).op]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(step)
            sess.run(step)
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(step)
            # (TF's executor runs the independent update in the failed step too)
            assert sess.run(counter) == 3
            assert any(v.startswith("_p") for v in
                       next(p for p in sess._plans.values() if len(p.ops) > 700)
                       ._run.__code__.co_varnames)
