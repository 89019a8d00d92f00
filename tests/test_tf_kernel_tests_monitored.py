"""Training-loop machinery (MonitoredSession, SessionManager, Supervisor, Coordinator,
QueueRunner, warm starting, checkpoint utilities, device setters, SyncReplicasOptimizer,
Server) where TF 1.15's own tests found tideflow differing: each test pins one fix."""

import os
import threading
import time

import numpy as np
import pytest

import tideflow as tf
from tideflow.python.training import session_manager


# -- SessionManager ---------------------------------------------------------------------------
def test_prepare_session_not_ready_error_accepts_a_list_of_init_ops():
    with tf.Graph().as_default():
        a = tf.Variable(4.0, name="a")
        b = tf.Variable(a, trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES],
                        name="b")
        sm = session_manager.SessionManager(ready_op=tf.report_uninitialized_variables())
        # the model is still not ready (b): the message names the missing variable even
        # though init_op, a list, has no name of its own
        with pytest.raises(RuntimeError, match="did not make model ready.*b"):
            sm.prepare_session("", init_op=[a.initializer])
        del b


def test_variable_initialized_from_another_variable_survives_graph_def_round_trip():
    # its initial value is a cond whose body keeps a colocation with the new variable, an op
    # of the outer graph; importing the body must not reject that
    with tf.Graph().as_default() as g:
        a = tf.Variable(3, name="a")
        tf.Variable(a * 2, name="b")
        graph_def = g.as_graph_def()
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess:
            sess.run("a/Assign")
            sess.run("b/Assign")
            assert sess.run("b:0") == 6


def test_wait_for_session_runs_local_init_on_a_grpc_master():
    server = tf.train.Server.create_local_server()
    with tf.Graph().as_default() as g:
        a = tf.Variable(7, name="a")
        b = tf.Variable(a, trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES],
                        name="b")
        sm = session_manager.SessionManager(
            graph=g, ready_op=tf.report_uninitialized_variables(),
            ready_for_local_init_op=tf.report_uninitialized_variables(tf.global_variables()),
            local_init_op=b.initializer)
        chief = tf.Session(server.target, graph=g)
        chief.run(a.initializer)
        sess = sm.wait_for_session(server.target, max_wait_secs=5)
        assert sess.run([a, b]) == [7, 7]
        np.testing.assert_array_equal(sess.run(tf.report_uninitialized_variables()), [])
        sess.close()
        chief.close()


# -- Supervisor / training_util -----------------------------------------------------------------
def test_supervisor_services_with_a_one_element_global_step(tmp_path):
    # a global step of shape [1] (as some 0.x programs made it) reads as a Python int
    with tf.Graph().as_default():
        tf.Variable([41], name="global_step")
        # the standard services start with the session and read the step at once
        sv = tf.train.Supervisor(logdir=str(tmp_path))
        sess = sv.prepare_or_wait_for_session("")
        assert tf.train.global_step(sess, sv.global_step) == 41
        sv.stop()
        sess.close()
    assert list(tmp_path.glob("model.ckpt-41*"))



# -- warm starting ------------------------------------------------------------------------------
def _checkpoint_two_vars(tmp_path):
    with tf.Graph().as_default():
        tf.get_variable("emb", initializer=[[1.0], [2.0], [3.0]])
        tf.get_variable("dense", initializer=[[5.0, 6.0]])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().save(sess, str(tmp_path / "model"))
    old_vocab = tmp_path / "old.txt"
    old_vocab.write_text("a\nb\nc")
    new_vocab = tmp_path / "new.txt"
    new_vocab.write_text("c\nz\na\nb")
    return str(old_vocab), str(new_vocab)


def test_warm_start_with_none_selects_only_the_vocabulary_variables(tmp_path):
    old_vocab, new_vocab = _checkpoint_two_vars(tmp_path)
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", shape=[4, 1], initializer=tf.zeros_initializer())
        dense = tf.get_variable("dense", shape=[1, 2], initializer=tf.zeros_initializer())
        info = tf.train.VocabInfo(new_vocab, 4, 0, old_vocab)
        # the rename of 'dense' counts as used (it names a selectable variable) but None
        # warm-starts only what has a vocabulary
        tf.train.warm_start(str(tmp_path), vars_to_warm_start=None,
                            var_name_to_vocab_info={"emb": info},
                            var_name_to_prev_var_name={"dense": "dense"})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run(emb), [[3.0], [0.0], [1.0], [2.0]])
            np.testing.assert_allclose(sess.run(dense), [[0.0, 0.0]])


def test_warm_start_argument_errors(tmp_path):
    _checkpoint_two_vars(tmp_path)
    with tf.Graph().as_default():
        tf.get_variable("emb", shape=[3, 1])
        with pytest.raises(ValueError, match="must be a `list` or `str`.  Given type is"):
            tf.train.warm_start(str(tmp_path), vars_to_warm_start=("emb",))
        with pytest.raises(ValueError, match="must be all `Variable` or all `str`"):
            tf.train.warm_start(str(tmp_path), vars_to_warm_start=["emb", 3])
        with pytest.raises(ValueError, match="var_name_to_prev_var_name that were not used: "
                                             r"\{'nope'\}.  Perhaps you misspelled them"):
            tf.train.warm_start(str(tmp_path), var_name_to_prev_var_name={"nope": "emb"})


def test_linear_model_cols_to_vars_lists_partitions():
    with tf.Graph().as_default():
        col = tf.feature_column.categorical_column_with_identity("ids", num_buckets=6)
        cols_to_vars = {}
        with tf.variable_scope("", partitioner=tf.fixed_size_partitioner(2)):
            tf.feature_column.linear_model({"ids": tf.sparse_placeholder(tf.int64)}, [col],
                                           cols_to_vars=cols_to_vars)
        assert [v.shape.as_list() for v in cols_to_vars[col]] == [[3, 1], [3, 1]]
        assert all(isinstance(v, tf.Variable) for v in cols_to_vars["bias"])


# -- checkpoint utilities -----------------------------------------------------------------------
def test_save_and_restore_name_lists_live_in_their_ops_scopes():
    with tf.Graph().as_default() as g:
        tf.Variable(1.0, name="v")
        tf.train.Saver()
        names = {op.name for op in g.get_operations()}
    assert {"save/SaveV2/tensor_names", "save/SaveV2/shape_and_slices",
            "save/RestoreV2/tensor_names", "save/RestoreV2/shape_and_slices"} <= names


def test_checkpoint_utils_module_has_the_checkpoint_waiters(tmp_path):
    from tideflow.python.training import checkpoint_utils

    assert list(checkpoint_utils.checkpoints_iterator(str(tmp_path), timeout=0)) == []
    assert checkpoint_utils.wait_for_new_checkpoint(str(tmp_path), timeout=0) is None
    with tf.Graph().as_default():
        v = tf.Variable([2.0, 3.0], name="w")
        with tf.Session() as sess:
            sess.run(v.initializer)
            tf.train.Saver().save(sess, str(tmp_path / "m"), global_step=4)
    found = list(checkpoint_utils.checkpoints_iterator(str(tmp_path), timeout=0))
    assert found == [str(tmp_path / "m-4")]


# -- Server / grpc sessions ---------------------------------------------------------------------
def test_isolated_sessions_keep_their_own_variables():
    server = tf.train.Server.create_local_server()
    with tf.Graph().as_default():
        fill = tf.placeholder(tf.int32)
        v = tf.Variable(fill, validate_shape=False, name="v")
        shared = [tf.Session(server.target, config=tf.ConfigProto(isolate_session_state=False))
                  for _ in range(2)]
        isolated = [tf.Session(server.target, config=tf.ConfigProto(isolate_session_state=True))
                    for _ in range(2)]
        shared[0].run(v.initializer, {fill: 5})
        assert shared[1].run(v) == 5
        with pytest.raises(tf.errors.FailedPreconditionError):
            isolated[0].run(v)
        isolated[0].run(v.initializer, {fill: [7, 8]})
        isolated[1].run(v.initializer, {fill: 9})
        np.testing.assert_array_equal(isolated[0].run(v), [7, 8])
        assert isolated[1].run(v) == 9
        assert shared[0].run(v) == 5
        for s in shared + isolated:
            s.close()


def test_closing_a_grpc_session_cancels_its_blocked_step_with_tfs_message():
    server = tf.train.Server.create_local_server()
    with tf.Graph().as_default():
        q = tf.FIFOQueue(2, tf.float32)
        take = q.dequeue()
        sess = tf.Session(server.target)
        errs = []

        def blocked():
            try:
                sess.run(take)
            except tf.errors.OpError as e:
                errs.append(e)

        t = threading.Thread(target=blocked)
        t.start()
        time.sleep(0.3)
        sess.close()
        t.join(10)
    assert len(errs) == 1 and isinstance(errs[0], tf.errors.CancelledError)
    assert "explicit call to `Session::Close()`" in errs[0].message


def test_server_address_without_port_and_reset_of_unknown_targets():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse port"):
        tf.train.Server({"local": ["localhost"]}, job_name="local", task_index=0)
    with pytest.raises(tf.errors.NotFoundError, match="No session factory"):
        tf.Session.reset("nowhere", ["c"])
    with pytest.raises(tf.errors.DeadlineExceededError):
        tf.Session.reset("grpc://localhost:0", ["c"],
                         config=tf.ConfigProto(operation_timeout_in_ms=20))


# -- module paths -------------------------------------------------------------------------------
def test_internal_training_module_paths(tmp_path):
    from tideflow.python.training import basic_loops, evaluation, saver

    assert callable(basic_loops.basic_train_loop)
    with tf.Graph().as_default():
        v = tf.Variable(2.0, name="v")
        with tf.Session() as sess:
            sess.run(v.initializer)
            path = tf.train.Saver().save(sess, str(tmp_path / "ck"))
        # TF 1.x's saver module answers the checkpoint-state functions too
        assert saver.latest_checkpoint(str(tmp_path)) == path
        assert saver.checkpoint_exists(path)
    with tf.Graph().as_default():
        w = tf.Variable(0.0, name="v")
        counter = tf.get_variable("n", initializer=0.0, trainable=False,
                                  collections=[tf.GraphKeys.LOCAL_VARIABLES])
        bump = tf.assign_add(counter, 1.0)
        out = evaluation._evaluate_once(
            checkpoint_path=path, eval_ops=bump, final_ops={"w": w, "n": counter},
            hooks=[evaluation._StopAfterNEvalsHook(3)])
        assert out == {"w": 2.0, "n": 3.0}


def test_wait_for_session_deadline_message_counts_whole_seconds():
    with tf.Graph().as_default():
        tf.Variable(1.0, name="u")
        sm = session_manager.SessionManager(ready_op=tf.report_uninitialized_variables(),
                                            recovery_wait_secs=0.1)
        with pytest.raises(tf.errors.DeadlineExceededError,
                           match=r"^Session was not ready after waiting 0 secs\.$"):
            sm.wait_for_session("", max_wait_secs=0.3)


# -- timeline -----------------------------------------------------------------------------------
def test_timeline_step_analysis_reports_each_allocators_peak():
    import json

    from tideflow.python.client import timeline

    meta = tf.RunMetadata()
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [4, 4])
        b = tf.matmul(a, a)
        c = tf.reduce_sum(b)
        with tf.Session() as sess:
            sess.run(c, {a: np.ones([4, 4])},
                     options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                     run_metadata=meta)
    analysis = timeline.Timeline(meta.step_stats).analyze_step_stats()
    assert isinstance(analysis, timeline.StepStatsAnalysis)
    assert "traceEvents" in json.loads(analysis.chrome_trace.format_to_string(pretty=True))
    peak = analysis.allocator_maximums["cpu"]
    assert isinstance(peak, timeline.AllocationMaximum)
    # the matmul's output (64 bytes) is alive until the sum that reads it ends; TF 1.15 names
    # the tensors alive at the peak in a set, an op's first output by the op's name
    assert peak.num_bytes >= 64 and peak.timestamp > 0
    assert "MatMul" in peak.tensors and isinstance(peak.tensors, set)


def test_process_with_a_step_blocked_on_a_cluster_exits(tmp_path):
    # a session never closed, its step waiting on a parameter server's queue: the interpreter
    # must still exit (the servers cancel the step before the thread pools are joined)
    import subprocess
    import sys

    script = tmp_path / "blocked.py"
    script.write_text(
        "import threading, time\n"
        "import tideflow as tf\n"
        "from tideflow.python.framework.test_util import create_local_cluster\n"
        "workers, _ = create_local_cluster(1, 1)\n"
        "with tf.device('/job:ps/task:0'):\n"
        "    take = tf.FIFOQueue(2, tf.float32).dequeue()\n"
        "with tf.device('/job:worker/task:0'):\n"
        "    out = take + 1.0\n"
        "sess = tf.Session(workers[0].target)\n"
        "threading.Thread(target=lambda: sess.run(out), daemon=True).start()\n"
        "time.sleep(0.5)\n"
        "print('main done', flush=True)\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, str(script)], check=True, capture_output=True,
                          text=True, timeout=120, cwd=root)
    assert "main done" in done.stdout
