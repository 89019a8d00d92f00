"""TF 1.x calls Tensorpack 0.10 makes, reduced to plain programs: each pins a difference its
trainers and layers found in tideflow."""

import os
import subprocess
import sys
import time

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


def test_read_beside_an_update_sees_the_value_before_the_step():
    # TF runs a step's cheap reads before its variable updates: hooks read the "stale" step
    step = tf.train.get_or_create_global_step()
    inc = tf.assign_add(step, 1)
    read = step + 0
    v = tf.Variable(5.0)
    bump = tf.assign_add(v, 1.0)
    doubled = v * 2.0
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run([inc, read]) == [1, 0]
        assert sess.run([read, inc]) == [1, 2]
        assert sess.run([bump, doubled]) == [6.0, 10.0]
        # a read that depends on the update still follows it
        with tf.control_dependencies([bump]):
            after = v * 1.0
        assert sess.run(after) == 7.0


def test_step_hooks_fire_on_the_steps_tf_picks(tmp_path):
    step = tf.train.get_or_create_global_step()
    inc = tf.assign_add(step, 1)
    tf.summary.scalar("seen_step", tf.cast(step, tf.float32) * 1.0)
    out = str(tmp_path)
    hooks = [tf.train.ProfilerHook(save_steps=3, output_dir=out + "/prof"),
             tf.train.SummarySaverHook(save_steps=3, output_dir=out + "/sum",
                                       summary_op=tf.summary.merge_all())]
    with tf.train.MonitoredSession(hooks=hooks) as sess:
        for _ in range(8):
            sess.run(inc)
    assert sorted(f for f in os.listdir(out + "/prof") if f.startswith("timeline")) == [
        "timeline-3.json", "timeline-6.json"]
    seen = []
    for path in tf.gfile.Glob(out + "/sum/events*"):
        for event in tf.train.summary_iterator(path):
            seen += [(event.step, v.simple_value) for v in event.summary.value]
    assert sorted(seen) == [(1, 0.0), (4, 3.0), (7, 6.0)]


def test_event_file_has_the_first_event_at_once_and_the_rest_at_exit(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path / "now"), flush_secs=120)
    writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="a", simple_value=1.0)]), 1)
    deadline = time.time() + 5
    path = tf.gfile.Glob(str(tmp_path / "now" / "events*"))[0]
    while time.time() < deadline and len(list(tf.train.summary_iterator(path))) < 2:
        time.sleep(0.05)
    assert len(list(tf.train.summary_iterator(path))) == 2
    writer.close()
    # a program that never closes its writer (the hooks' cached writers) keeps its events
    code = ("import tideflow as tf\n"
            f"w = tf.summary.FileWriter({str(tmp_path / 'exit')!r}, flush_secs=120)\n"
            "for i in range(4):\n"
            "    w.add_summary(tf.Summary(value=[tf.Summary.Value(tag='b', simple_value=i)]), i)\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
    (path,) = tf.gfile.Glob(str(tmp_path / "exit" / "events*"))
    steps = [e.step for e in tf.train.summary_iterator(path) if e.HasField("summary")]
    assert steps == [0, 1, 2, 3]


def test_cond_predicate_reads_the_counter_before_its_increment():
    # tensorpack's AccumGradOptimizer: the predicate does not depend on the increment the
    # cond waits for, so (as in TF) it sees the count from before the step
    w = tf.Variable(1.0)
    counter = tf.Variable(0, trainable=False)
    bump = tf.assign_add(counter, 1)
    pred = tf.equal(tf.mod(counter, 2), 0)
    with tf.control_dependencies([bump]):
        step = tf.cond(pred, lambda: tf.group(tf.assign_sub(w, 0.5)), tf.no_op)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        seen = []
        for _ in range(4):
            sess.run(step)
            seen.append(sess.run(w))
        assert seen == [0.5, 0.5, 0.0, 0.0]


def test_map_staging_prefetch_in_one_step_with_capacity_one():
    from tideflow.python.ops import data_flow_ops

    x = tf.placeholder(tf.float32, [])
    k = tf.placeholder(tf.int64, [])
    area = data_flow_ops.MapStagingArea([tf.float32], capacity=1)
    put = area.put(k, [x])
    key, got = area.get()
    with tf.Session() as sess:
        sess.run(put, {k: 0, x: 1.0})
        seen = [sess.run([key, got, put], {k: i, x: i + 1.0})[:2] for i in range(1, 4)]
        assert [(int(a), float(b[0])) for a, b in seen] == [(0, 1.0), (1, 2.0), (2, 3.0)]
        assert sess.run(area.size()) == 1
