"""Training-loop machinery against TF 1.15, sixteenth session: MonitoredSession and hooks,
Saver and checkpoint files, summaries and event files, tf.logging.

Each expected value, log line and message below was printed by the same program under real
TensorFlow 1.15 (tensorflow-cpu 1.15.0); the tests need only tideflow.
"""

import os
import sys
import warnings

import numpy as np
import pytest

import tideflow as tf
from tideflow import logging as tf_logging


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


@pytest.fixture
def tf_records(caplog):
    caplog.set_level(1, logger="tensorflow")
    old = tf.logging.get_verbosity()
    yield caplog
    tf.logging.set_verbosity(old)


def _lines(caplog):
    return [f"{r.levelname}:{r.getMessage()}" for r in caplog.records if r.name == "tensorflow"]


# -- tf.logging ------------------------------------------------------------------------------


def test_vlog_logs_at_its_own_numeric_level(tf_records):
    tf.logging.set_verbosity(tf.logging.DEBUG)
    tf.logging.vlog(1, "vlog1 %s", "a")  # below DEBUG: hidden
    tf.logging.vlog(10, "vlog10 %s", "a")
    tf.logging.vlog(20, "vlog20")
    tf.logging.set_verbosity(1)
    tf.logging.vlog(1, "vlog1 again")
    assert _lines(tf_records) == ["DEBUG:vlog10 a", "INFO:vlog20", "Level 1:vlog1 again"]


def _every(level, msg, n, *args):
    tf.logging.log_every_n(level, msg, n, *args)


def _first(level, msg, n, *args):
    tf.logging.log_first_n(level, msg, n, *args)


def test_log_every_n_and_first_n_count_per_call_site_outside_the_callers_file(tf_records):
    # TF keys the counters by the first frame outside the calling file: every call made from
    # this file (through the helpers above) shares one counter, whatever the message
    tf_logging._log_counts.clear()
    tf.logging.set_verbosity(tf.logging.INFO)
    for i in range(7):
        _every(tf.logging.INFO, "every3 %d", 3, i)
    for i in range(7):
        _every(tf.logging.INFO, "every3 %d", 3, i)
    for i in range(5):
        _first(tf.logging.WARN, "first2 %d", 2, i)  # the shared count is past 2 already
    assert _lines(tf_records) == ["INFO:every3 0", "INFO:every3 3", "INFO:every3 6",
                                  "INFO:every3 2", "INFO:every3 5"]
    tf_logging._log_counts.clear()
    for i in range(5):
        _first(tf.logging.WARN, "first2 %d", 2, i)
    assert _lines(tf_records)[-2:] == ["WARNING:first2 0", "WARNING:first2 1"]


# -- Coordinator -----------------------------------------------------------------------------


def test_coordinator_logs_an_exception_with_its_type_and_a_tuple_with_its_traceback(
        tf_records):
    tf.logging.set_verbosity(tf.logging.INFO)
    coord = tf.train.Coordinator()
    try:
        raise ValueError("boom")
    except ValueError as e:
        coord.request_stop(e)
    assert _lines(tf_records) == [
        "INFO:Error reported to Coordinator: <class 'ValueError'>, boom"]
    coord = tf.train.Coordinator()
    try:
        raise ValueError("tuple")
    except ValueError:
        coord.request_stop(sys.exc_info())
    rec = tf_records.records[-1]
    assert rec.getMessage() == "Error reported to Coordinator: tuple"
    assert rec.exc_info is not None and rec.exc_info[0] is ValueError
    with pytest.raises(ValueError, match="^tuple$"):
        coord.raise_requested_exception()


def test_supervisor_managed_session_reports_the_body_exception_with_its_type(
        tf_records, tmp_path):
    tf.logging.set_verbosity(tf.logging.INFO)
    tf.Variable(1.0, name="v")
    sv = tf.train.Supervisor(logdir=None)
    with pytest.raises(ValueError, match="^boom$"), sv.managed_session():
        raise ValueError("boom")
    assert "INFO:Error reported to Coordinator: <class 'ValueError'>, boom" in _lines(
        tf_records)


# -- hooks -----------------------------------------------------------------------------------


def test_checkpoint_saver_listener_gets_the_global_step_as_numpy_int64(tmp_path):
    gs = tf.train.get_or_create_global_step()
    v = tf.Variable(1.0, name="v")
    train = tf.group(tf.assign_add(v, 1.0), tf.assign_add(gs, 1))
    seen = []

    class Listener(tf.train.CheckpointSaverListener):
        def before_save(self, session, global_step_value):
            seen.append(("before", global_step_value))

        def after_save(self, session, global_step_value):
            seen.append(("after", global_step_value))
            return global_step_value >= 4

        def end(self, session, global_step_value):
            seen.append(("end", global_step_value))

    hook = tf.train.CheckpointSaverHook(str(tmp_path), save_steps=2, listeners=[Listener()])
    runs = 0
    with tf.train.MonitoredSession(hooks=[hook]) as s:
        while not s.should_stop() and runs < 10:
            s.run(train)
            runs += 1
    assert runs == 4
    assert [(k, int(x)) for k, x in seen] == [
        ("before", 0), ("after", 0), ("before", 2), ("after", 2), ("before", 4), ("after", 4),
        ("end", 4)]
    assert all(type(x) is np.int64 for _, x in seen)


def test_monitored_training_session_with_steps_and_secs_for_checkpoints_raises(tmp_path):
    tf.train.get_or_create_global_step()
    with pytest.raises(ValueError, match=r"^Can not provide both every_secs and every_steps\.$"):
        tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path), save_checkpoint_steps=2,
                                          save_checkpoint_secs=5)


# -- checkpoints -----------------------------------------------------------------------------


def test_init_from_checkpoint_builds_the_prefix_constant_first(tmp_path):
    with tf.Graph().as_default():
        tf.get_variable("a", [2])
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            tf.train.Saver().save(s, str(tmp_path / "m"))
    g = tf.get_default_graph()
    tf.get_variable("a", [2], initializer=tf.zeros_initializer())
    n0 = len(g.get_operations())
    tf.train.init_from_checkpoint(str(tmp_path), {"a": "a"})
    assert [(o.name, o.type) for o in g.get_operations()[n0:]] == [
        ("checkpoint_initializer/prefix", "Const"),
        ("checkpoint_initializer/tensor_names", "Const"),
        ("checkpoint_initializer/shape_and_slices", "Const"),
        ("checkpoint_initializer", "RestoreV2"),
        ("Assign", "Assign")]


def test_saver_ops_keep_tf_names_and_order():
    tf.Variable(1.0, name="v")
    g = tf.get_default_graph()
    n0 = len(g.get_operations())
    tf.train.Saver()
    assert [o.name for o in g.get_operations()[n0:]] == [
        "save/filename/input", "save/filename", "save/Const", "save/SaveV2/tensor_names",
        "save/SaveV2/shape_and_slices", "save/SaveV2", "save/control_dependency",
        "save/RestoreV2/tensor_names", "save/RestoreV2/shape_and_slices", "save/RestoreV2",
        "save/Assign", "save/restore_all"]


def test_checkpoint_state_proto_logs_the_path_it_adds(tf_records):
    tf.logging.set_verbosity(tf.logging.INFO)
    st = tf.train.generate_checkpoint_state_proto("/a/b", "m-3")
    assert str(st) == ('model_checkpoint_path: "m-3"\n'
                       'all_model_checkpoint_paths: "m-3"\n')
    tf.train.generate_checkpoint_state_proto("/a/b", "/a/b/m-3", ["/a/b/m-1", "/a/b/m-3"])
    assert _lines(tf_records) == [
        "INFO:m-3 is not in all_model_checkpoint_paths. Manually adding it."]


def test_unparsable_checkpoint_state_warns_with_tf_proto_name(tf_records, tmp_path):
    (tmp_path / "checkpoint").write_text("garbage here")
    assert tf.train.get_checkpoint_state(str(tmp_path)) is None
    assert _lines(tf_records) == [
        ('WARNING:ParseError: 1:1 : Message type "tensorflow.CheckpointState" has no field '
         'named "garbage".'),
        f"WARNING:{tmp_path}/checkpoint: Checkpoint ignored"]


# -- summaries -------------------------------------------------------------------------------


def test_tf_summary_has_all_v2_summary_ops_and_initialize(tmp_path):
    assert tf.summary.all_v2_summary_ops() == []
    w = tf.contrib.summary.create_file_writer(str(tmp_path))
    with w.as_default(), tf.contrib.summary.always_record_summaries():
        op = tf.contrib.summary.scalar("x", 1.0, step=3)
    # TF's recording op is a constant True behind the write
    assert op.op.type == "Const"
    assert tf.summary.all_v2_summary_ops() == [op]
    with tf.Session() as sess, w.as_default():
        tf.summary.initialize(graph=tf.get_default_graph(), session=sess)
        assert sess.run(tf.summary.all_v2_summary_ops()) == [True]
        sess.run(w.flush())
    events = [e for f in sorted(os.listdir(tmp_path))
              for e in tf.train.summary_iterator(str(tmp_path / f))]
    assert [(e.step, e.WhichOneof("what"), [v.tag for v in e.summary.value]) for e in events] == [
        (0, "file_version", []), (0, "graph_def", []), (3, "summary", ["x"])]
    with tf.Graph().as_default(), pytest.raises(
            RuntimeError, match="^No default tf.contrib.summary.SummaryWriter found$"):
        tf.summary.initialize()


def test_checkpoint_reader_in_a_missing_directory_fails_listing_it(tmp_path):
    missing = str(tmp_path / "nodir" / "x")
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.train.NewCheckpointReader(missing)
    assert str(e.value) == (
        f"Unsuccessful TensorSliceReader constructor: Failed to get matching files on {missing}: "
        f"Not found: {tmp_path / 'nodir'}; No such file or directory")
    (tmp_path / "f").write_text("")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r": Failed precondition: .*/f; "
                                                             r"Not a directory$"):
        tf.train.list_variables(str(tmp_path / "f" / "x"))
    with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files for"):
        tf.train.NewCheckpointReader(str(tmp_path / "x"))


def test_checkpoint_reader_takes_bytes_names(tmp_path):
    tf.Variable(np.float64(np.pi), name="d")
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        p = tf.train.Saver().save(s, str(tmp_path / "m"))
    r = tf.train.NewCheckpointReader(p)
    assert r.has_tensor(b"d") and r.get_tensor(b"d") == np.pi


# -- op names of the savers and the scaffold (TF 1.15's lists) --------------------------------


def test_resource_variable_restores_through_identity_and_assign_variable_op():
    a = tf.get_variable("a", [2])
    b = tf.get_variable("b", [3], use_resource=True)
    g = tf.get_default_graph()
    n0 = len(g.get_operations())
    tf.train.Saver({"x": a, "y": b})
    assert [o.name for o in g.get_operations()[n0:]
            if any(k in o.name for k in ("Restore", "Assign", "Identity", "restore_all"))] == [
        "save/RestoreV2/tensor_names", "save/RestoreV2/shape_and_slices", "save/RestoreV2",
        "save/Assign", "save/Identity", "save/AssignVariableOp", "save/restore_all"]


def test_sharded_saver_names_the_temp_suffix_and_packed_prefixes_as_tf():
    tf.get_variable("a", [2])
    g = tf.get_default_graph()
    n0 = len(g.get_operations())
    tf.train.Saver(sharded=True)
    names = [o.name for o in g.get_operations()[n0:]]
    assert names[:12] == [
        "save/filename/input", "save/filename", "save/Const", "save/StringJoin/inputs_1",
        "save/StringJoin", "save/num_shards", "save/ShardedFilename/shard",
        "save/ShardedFilename", "save/SaveV2/tensor_names", "save/SaveV2/shape_and_slices",
        "save/SaveV2", "save/control_dependency"]
    assert "save/MergeV2Checkpoints/checkpoint_prefixes" in names


def test_scaffold_default_init_op_groups_variables_and_resources_initializers():
    tf.get_variable("a", [2])
    g = tf.get_default_graph()
    n0 = len(g.get_operations())
    sc = tf.train.Scaffold()
    sc.finalize()
    assert [o.name for o in g.get_operations()[n0:]][:4] == [
        "init", "init_1", "group_deps", "report_uninitialized_variables/IsVariableInitialized"]
    assert sc.init_op.name == "group_deps"
    assert [i.name for i in sc.init_op.control_inputs] == ["init", "init_1"]


def test_closed_file_writer_warns_from_one_place(tmp_path):
    w = tf.summary.FileWriter(str(tmp_path))
    w.close()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        w.add_summary(tf.Summary(value=[tf.Summary.Value(tag="late", simple_value=1.0)]), 9)
        w.flush()
    msgs = [(str(r.message), r.filename, r.lineno) for r in rec]
    assert len(msgs) == 2 and msgs[0] == msgs[1]
    assert msgs[0][0] == ("Attempting to use a closed FileWriter. The operation will be a noop "
                          "unless the FileWriter is explicitly reopened.")


def test_contrib_summary_builds_tf_ops_in_tf_order(tmp_path):
    w = tf.contrib.summary.create_file_writer(str(tmp_path))
    g = tf.get_default_graph()
    n0 = len(g.get_operations())
    with w.as_default(), tf.contrib.summary.always_record_summaries():
        s = tf.contrib.summary.scalar("x", 1.0, step=3)
        tf.contrib.summary.image("i", tf.zeros([1, 2, 2, 3]), step=1)
    assert [(o.name, o.type) for o in g.get_operations()[n0:]] == [
        ("LogicalAnd/x", "Const"), ("LogicalAnd/y", "Const"), ("LogicalAnd", "LogicalAnd"),
        ("x/Const", "Const"), ("x/Identity/input", "Const"), ("x/Identity", "Identity"),
        ("x/tag", "Const"), ("x", "WriteScalarSummary"), ("x/Const_1", "Const"),
        ("zeros", "Const"), ("LogicalAnd_1/x", "Const"), ("LogicalAnd_1/y", "Const"),
        ("LogicalAnd_1", "LogicalAnd"), ("i/Const", "Const"), ("i/Const_1", "Const"),
        ("i/Identity", "Identity"), ("i/tag", "Const"), ("i", "WriteImageSummary"),
        ("i/Const_2", "Const"), ("FlushSummaryWriter", "FlushSummaryWriter")]
    assert s.name == "x/Const_1:0"


def test_contrib_summary_every_n_steps_keeps_tf_seeds_after_it(tmp_path):
    tf.set_random_seed(1)
    tf.train.get_or_create_global_step()
    w = tf.contrib.summary.create_file_writer(str(tmp_path))
    with w.as_default(), tf.contrib.summary.record_summaries_every_n_global_steps(2):
        s = tf.contrib.summary.scalar("x", 1.0, step=3)
    r = tf.random_normal([3])
    assert s.name == "Merge:0"
    assert r.op.inputs[0].op.inputs[0].op.get_attr("seed2") == 33


def test_monitored_session_recovery_logs_tf_message(tf_records):
    tf.logging.set_verbosity(tf.logging.INFO)
    gs = tf.train.get_or_create_global_step()
    inc = tf.assign_add(gs, 1)
    calls = []

    class Abort(tf.train.SessionRunHook):
        def before_run(self, run_context):
            calls.append(1)
            if len(calls) == 2:
                raise tf.errors.AbortedError(None, None, "simulated abort")

    with tf.train.MonitoredSession(hooks=[Abort()]) as s:
        assert [int(s.run(inc)) for _ in range(3)] == [1, 1, 2]
    assert (
        "INFO:An error was raised. This may be due to a preemption in a connected worker or "
        "parameter server. The current session will be closed and a new session will be "
        "created. This error may also occur due to a gRPC failure caused by high memory or "
        "network bandwidth usage in the parameter servers. If this error occurs repeatedly, try "
        "increasing the number of parameter servers assigned to the job. Error: simulated abort"
    ) in _lines(tf_records)


def test_final_ops_hook_reading_an_exhausted_input_warns_as_tf(tf_records):
    x = tf.data.Dataset.range(2).make_one_shot_iterator().get_next()
    hook = tf.train.FinalOpsHook(x)
    seen = []
    with pytest.raises(tf.errors.OutOfRangeError), \
            tf.train.MonitoredSession(hooks=[hook]) as s:
        while not s.should_stop():
            seen.append(int(s.run(x)))
    assert seen == [0, 1] and hook.final_ops_values is None
    warning = [line for line in _lines(tf_records) if line.startswith("WARNING:")]
    assert warning == [(
        "WARNING:An OutOfRangeError or StopIteration exception is raised by the code in "
        "FinalOpsHook. This typically means the Ops running by the FinalOpsHook have a "
        "dependency back to some input source, which should not happen. For example, for "
        "metrics in tf.estimator.Estimator, all metrics functions return two Ops: `value_op` "
        "and  `update_op`. Estimator.evaluate calls the `update_op` for each batch of the data "
        "in input source and, once it is exhausted, it call the `value_op` to get the metric "
        "values. The `value_op` here should have dependency back to variables reading only, "
        "rather than reading another batch from input. Otherwise, the `value_op`, executed by "
        "`FinalOpsHook`, triggers another data reading, which ends OutOfRangeError/"
        "StopIteration. Please fix that.")]
