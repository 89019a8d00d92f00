"""TF 1.x calls Tensorpack 0.10 makes, reduced to plain programs: each pins a difference its
trainers and layers found in tideflow."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_tensor_takes_attributes_of_the_program():
    # tensorpack's layers hang a holder of their variables on the output tensor
    x = tf.placeholder(tf.float32, [None, 3])
    w = tf.get_variable("w", [3, 2])
    out = tf.identity(tf.matmul(x, w), name="output")
    out.variables = {"W": w}
    assert out.variables["W"] is w
    assert tf.get_default_graph().get_tensor_by_name("output:0").variables["W"] is w


def test_prefetch_stage_and_unstage_in_one_step_with_capacity_one():
    # StagingInput: one element staged ahead; each step takes it and stages the next
    x = tf.placeholder(tf.float32, [2])
    area = tf.contrib.staging.StagingArea([tf.float32], shapes=[[2]], capacity=1)
    stage = area.put([x])
    got = area.get()
    got = got[0] if isinstance(got, (list, tuple)) else got
    train = tf.reduce_sum(got) * 2.0
    with tf.Session() as sess:
        sess.run(stage, {x: [1.0, 2.0]})
        seen = []
        for i in range(3):
            total, _ = sess.run([train, stage], {x: [i + 10.0, 0.5]})
            seen.append(total)
        assert seen == [6.0, 21.0, 23.0]
        assert sess.run(area.size()) == 1
        np.testing.assert_allclose(sess.run(got), [12.0, 0.5])


def test_stage_waits_for_room_until_the_deadline():
    x = tf.placeholder(tf.float32, [])
    area = tf.contrib.staging.StagingArea([tf.float32], capacity=1)
    stage = area.put([x])
    with tf.Session() as sess:
        sess.run(stage, {x: 1.0})
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(stage, {x: 2.0}, options=tf.RunOptions(timeout_in_ms=100))
        assert sess.run(area.size()) == 1


def test_stage_before_unstage_in_one_step_on_an_empty_area():
    x = tf.placeholder(tf.float32, [])
    area = tf.contrib.staging.StagingArea([tf.float32], capacity=1)
    stage = area.put([x])
    got = area.get()
    got = got[0] if isinstance(got, (list, tuple)) else got
    with tf.Session() as sess:
        assert sess.run([got, stage], {x: 3.0})[0] == 3.0
        assert sess.run(area.size()) == 0
