"""Monitored training, hooks and their log lines against TF 1.15, eighteenth session.

Each expected log line, error class and message below was printed by the same program under
real TensorFlow 1.15 (tensorflow-cpu 1.15.0); the tests need only tideflow.
"""

import logging

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


@pytest.fixture()
def info_lines():
    """The messages the "tensorflow" logger emits at INFO and above, in order."""
    lines = []

    class _Keep(logging.Handler):
        def emit(self, record):
            lines.append((record.levelname, record.getMessage()))

    logger = logging.getLogger("tensorflow")
    handler, old_level = _Keep(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield lines
    logger.removeHandler(handler)
    logger.setLevel(old_level)


# -- SessionManager.wait_for_session -----------------------------------------------------------


def test_waiting_worker_logs_nothing_when_its_deadline_is_shorter_than_one_wait(info_lines):
    # TF gives up at the first miss without a "Waiting for model" line when max_wait_secs
    # leaves no room for one recovery_wait_secs (30 s by default)
    tf.Variable(1.0, name="x")
    sm = tf.train.SessionManager(ready_op=tf.report_uninitialized_variables())
    with pytest.raises(tf.errors.DeadlineExceededError,
                       match=r"^Session was not ready after waiting 1 secs\.$"):
        sm.wait_for_session("", max_wait_secs=1)
    assert not [m for _, m in info_lines if m.startswith("Waiting for model")]


def test_waiting_worker_logs_once_per_recovery_wait(info_lines):
    tf.Variable(1.0, name="x")
    sm = tf.train.SessionManager(ready_op=tf.report_uninitialized_variables(),
                                 recovery_wait_secs=0.5)
    with pytest.raises(tf.errors.DeadlineExceededError,
                       match=r"^Session was not ready after waiting 0 secs\.$"):
        sm.wait_for_session("", max_wait_secs=0.8)
    waiting = [m for _, m in info_lines if m.startswith("Waiting for model")]
    assert waiting == [("Waiting for model to be ready.  Ready_for_local_init_op:  None, "
                        "ready: Variables not initialized: x")]


# -- NanTensorHook -----------------------------------------------------------------------------


def test_nan_tensor_hook_tests_the_truth_of_the_loss_as_is():
    tf.train.get_or_create_global_step()
    hook = tf.train.NanTensorHook(tf.constant([1.0, np.nan]))
    with (pytest.raises(ValueError, match="truth value of an array with more than one element"),
          tf.train.MonitoredSession(hooks=[hook]) as sess):
        sess.run(tf.train.get_global_step())


# -- replica_device_setter: device strings as programs print them -----------------------------


def test_moving_average_arithmetic_sits_by_the_variable():
    # a deliberate departure (docs/design.md): TF 1.15 puts the arithmetic on the worker, where
    # its read of a ps variable races with that variable's update in the same step (stale in
    # practice over gRPC); by the variable, ema.apply under control_dependencies([train]) reads
    # the updated weights (tests/distributed/test_programs_dist7.py runs it on a cluster)
    from tideflow.train import moving_averages

    with tf.device(tf.train.replica_device_setter(ps_tasks=2, worker_device="/job:worker/task:0")):
        v = tf.Variable([1.0, 2.0], name="v")
        tf.train.ExponentialMovingAverage(0.9).apply([v])
        mv = tf.Variable(0.0, name="mv", trainable=False)
        moving_averages.assign_moving_average(mv, tf.reduce_sum(v), 0.99, zero_debias=False)
        moving_averages.assign_moving_average(mv, tf.reduce_sum(v), 0.99, name="zd")
    g = tf.get_default_graph()
    got = {n: (g.get_operation_by_name(n).device, g.get_operation_by_name(n).colocation_groups())
           for n in ["ExponentialMovingAverage/AssignMovingAvg/sub",
                     "ExponentialMovingAverage/AssignMovingAvg",
                     "AssignMovingAvg/mul", "AssignMovingAvg", "zd/truediv", "zd"]}
    assert got == {
        "ExponentialMovingAverage/AssignMovingAvg/sub": ("/job:ps/task:0", [b"loc:@v"]),
        "ExponentialMovingAverage/AssignMovingAvg": ("/job:ps/task:0", [b"loc:@v"]),
        "AssignMovingAvg/mul": ("/job:ps/task:0", [b"loc:@mv"]),
        "AssignMovingAvg": ("/job:ps/task:0", [b"loc:@mv"]),
        "zd/truediv": ("/job:ps/task:0", [b"loc:@mv"]),
        "zd": ("/job:ps/task:0", [b"loc:@mv"]),
    }
    # the shadow variable took a turn in the round robin before its colocation won
    assert [(x.op.name, x.device) for x in tf.global_variables()] == [
        ("v", "/job:ps/task:0"), ("v/ExponentialMovingAverage", "/job:ps/task:0"),
        ("mv", "/job:ps/task:0"), ("mv/biased", "/job:ps/task:0"),
        ("mv/local_step", "/job:ps/task:0")]


def _setter_calls(ps_tasks=3):
    calls = []
    setter = tf.train.replica_device_setter(ps_tasks=ps_tasks)

    def record(op):
        d = setter(op)
        calls.append((op.name, d))
        return d

    return calls, record


def test_variable_under_colocate_with_still_calls_the_device_function_of_its_graph():
    # the fixture entered the graph with as_default(): TF's init_scope brings back the device
    # functions pushed since, so the colocated variable counts in the round robin
    calls, record = _setter_calls()
    with tf.device(record):
        a = tf.Variable(1.0, name="a")
        with tf.colocate_with(a):
            q = tf.Variable(1.0, name="q")
            tf.constant(1.0, name="c")
        z = tf.Variable(1.0, name="z")
    assert calls == [("a/initial_value", "/job:worker"), ("a", "/job:ps/task:0"),
                     ("q/initial_value", "/job:worker"), ("q", "/job:ps/task:1"),
                     ("z/initial_value", "/job:worker"), ("z", "/job:ps/task:2")]
    assert (q.device, z.device) == ("/job:ps/task:0", "/job:ps/task:2")


def test_optimizer_slots_take_turns_in_the_round_robin():
    calls, record = _setter_calls()
    with tf.device(record):
        a = tf.get_variable("a", [10])
        b = tf.get_variable("b", [10])
        tf.train.AdamOptimizer().minimize(tf.reduce_sum(a * b))
        z = tf.Variable(1.0, name="z")
        tf.train.MomentumOptimizer(0.1, 0.9).minimize(tf.reduce_sum(a * z))
        z2 = tf.Variable(1.0, name="z2")
    var_calls = [c for c in calls if tf.get_default_graph().get_operation_by_name(c[0]).type
                 == "VariableV2"]
    assert var_calls == [
        ("a", "/job:ps/task:0"), ("b", "/job:ps/task:1"), ("beta1_power", "/job:ps/task:2"),
        ("beta2_power", "/job:ps/task:0"), ("a/Adam", "/job:ps/task:1"),
        ("a/Adam_1", "/job:ps/task:2"), ("b/Adam", "/job:ps/task:0"),
        ("b/Adam_1", "/job:ps/task:1"), ("z", "/job:ps/task:2"), ("a/Momentum", "/job:ps/task:0"),
        ("z/Momentum", "/job:ps/task:1"), ("z2", "/job:ps/task:2")]
    assert z2.device == "/job:ps/task:2"


def test_colocated_variable_in_the_global_graph_takes_no_turn():
    # TF's global default graph was never entered with as_default(): nothing to bring back
    from tideflow.framework import ops as ops_lib

    saved = ops_lib._default_graph_stack.stack, ops_lib._default_graph_stack.device_stacks
    ops_lib._default_graph_stack.stack, ops_lib._default_graph_stack.device_stacks = [], []
    old_global = ops_lib._default_graph_stack._global_default_graph
    ops_lib._default_graph_stack._global_default_graph = tf.Graph()
    try:
        calls, record = _setter_calls()
        with tf.device(record):
            a = tf.Variable(1.0, name="a")
            with tf.colocate_with(a):
                tf.Variable(1.0, name="q")
            z = tf.Variable(1.0, name="z")
        assert [c for c in calls if not c[0].endswith("initial_value")] == [
            ("a", "/job:ps/task:0"), ("z", "/job:ps/task:1")]
        assert z.device == "/job:ps/task:1"
    finally:
        ops_lib._default_graph_stack._global_default_graph = old_global
        ops_lib._default_graph_stack.stack, ops_lib._default_graph_stack.device_stacks = saved


# -- a closed MonitoredSession ----------------------------------------------------------------


def test_closed_monitored_session_fails_as_tf_with_its_wrapped_session_gone():
    gs = tf.train.get_or_create_global_step()
    with tf.train.MonitoredSession() as sess:
        sess.run(gs)
    assert sess.should_stop()
    with pytest.raises(AttributeError, match=r"^'NoneType' object has no attribute 'run'$"):
        sess.run(gs)
    with pytest.raises(AttributeError,
                       match=r"^'NoneType' object has no attribute 'run_step_fn'$"):
        sess.run_step_fn(lambda step_context: None)


def test_graph_stays_finalized_when_the_monitored_session_is_never_made():
    p = tf.placeholder(tf.int64, [], name="p")
    it = tf.data.Dataset.range(p).make_initializable_iterator()
    tf.train.get_or_create_global_step()
    scaffold = tf.train.Scaffold(local_init_op=it.initializer)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="You must feed a value for placeholder tensor 'p' with dtype int64"):
        tf.train.MonitoredTrainingSession(scaffold=scaffold)
    assert tf.get_default_graph().finalized
    with pytest.raises(RuntimeError, match=r"^Graph is finalized and cannot be modified\.$"):
        tf.constant(1)
