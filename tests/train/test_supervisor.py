"""tf.train.Supervisor: managed sessions that checkpoint and write summaries to logdir from
background threads, resume from logdir, and stop every thread cleanly."""

import glob
import os
import threading
import time

import numpy as np
import pytest

import tideflow as tf
from tideflow.train.basic_loops import basic_train_loop
from tideflow.train.coordinator import LooperThread
from tideflow.train.supervisor import Supervisor

pytestmark = pytest.mark.usefixtures("bounded_threads")


def _model():
    xs = np.linspace(0, 1, 32, dtype=np.float32).reshape(-1, 1)
    w = tf.Variable(tf.zeros([1, 1]), name="w")
    loss = tf.reduce_mean(tf.square(tf.matmul(tf.constant(xs), w) - 2 * xs))
    tf.summary.scalar("loss", loss)
    gs = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=gs)
    return w, gs, train


def _events(logdir):
    out = []
    for path in sorted(glob.glob(os.path.join(logdir, "events.out.tfevents.*"))):
        out.extend(tf.train.summary_iterator(path))
    return out


def test_managed_session_checkpoints_and_summaries(tmp_path):
    logdir = str(tmp_path)
    with tf.Graph().as_default() as g:
        _w, gs, train = _model()
        sv = Supervisor(logdir=logdir, save_model_secs=0.1, save_summaries_secs=0.1)
        assert g.finalized and sv.is_chief and sv.global_step is gs
        assert sv.save_path == os.path.join(logdir, "model.ckpt")
        with sv.managed_session() as sess:
            loopers = [t for t in threading.enumerate() if isinstance(t, LooperThread)]
            assert len(loopers) == 3  # summaries, steps/sec, checkpoints
            t_end = time.time() + 0.35
            while not sv.should_stop() and time.time() < t_end:
                sess.run(train)
                time.sleep(0.002)
            final_step = sess.run(gs)
        assert not any(t.is_alive() for t in loopers)
        assert sv.coord.joined
    ckpt = tf.train.latest_checkpoint(logdir)
    assert ckpt is not None and os.path.exists(os.path.join(logdir, "graph.pbtxt"))
    assert 0 <= int(ckpt.rsplit("-", 1)[1]) <= final_step
    events = _events(logdir)
    statuses = [e.session_log.status for e in events if e.HasField("session_log")]
    log = tf.summary.SessionLog
    assert statuses[0] == log.START and statuses[-1] == log.STOP
    assert statuses.count(log.CHECKPOINT) >= 2
    tags = {v.tag for e in events if e.HasField("summary") for v in e.summary.value}
    assert {"loss", "global_step/sec"} <= tags
    assert any(e.HasField("graph_def") for e in events)
    assert any(e.HasField("meta_graph_def") for e in events)


def test_second_supervisor_resumes_from_logdir(tmp_path):
    logdir = str(tmp_path)
    with tf.Graph().as_default():
        w, gs, train = _model()
        sv = Supervisor(logdir=logdir, save_model_secs=0, save_summaries_secs=0)
        with sv.managed_session() as sess:
            for _ in range(12):
                sess.run(train)
            sv.saver.save(sess, sv.save_path, global_step=gs)
            w1 = sess.run(w)
    with tf.Graph().as_default():
        w, gs, train = _model()
        sv = Supervisor(logdir=logdir, save_model_secs=0, save_summaries_secs=0)
        with sv.managed_session() as sess:
            assert sess.run(gs) == 12
            np.testing.assert_array_equal(sess.run(w), w1)


def test_managed_session_errors(tmp_path):
    with tf.Graph().as_default():
        _w, _gs, train = _model()
        sv = Supervisor(logdir=str(tmp_path), save_model_secs=100, save_summaries_secs=100)
        with pytest.raises(ValueError, match="in the loop"), sv.managed_session() as sess:
            sess.run(train)
            raise ValueError("in the loop")
        assert not any(isinstance(t, LooperThread) and t.is_alive()
                       for t in threading.enumerate())
        # running out of input is a normal end; the supervisor can start again
        with sv.managed_session() as sess:
            raise tf.errors.OutOfRangeError(None, None, "End of sequence")
        assert sv.should_stop()
        # an error in a service thread surfaces when the supervisor stops
        with pytest.raises(ZeroDivisionError), sv.managed_session():
            sv.loop(0.01, lambda: 1 / 0)
            sv.coord.wait_for_stop(5)


def test_no_logdir_summary_computed_and_loop():
    with tf.Graph().as_default():
        _w, gs, _train = _model()
        summary = tf.summary.merge_all()
        sv = Supervisor(logdir=None)
        with sv.managed_session() as sess:
            assert sess.run(gs) == 0
            with pytest.raises(RuntimeError, match="requires a summary writer"):
                sv.summary_computed(sess, sess.run(summary))
            ticks = []
            looper = sv.loop(0.01, ticks.append, args=(1,))
            time.sleep(0.1)
            sv.request_stop()
            looper.join(5)
            assert len(ticks) >= 2 and not looper.is_alive()


def test_summary_computed_writes(tmp_path):
    with tf.Graph().as_default():
        _w, _gs, train = _model()
        summary = tf.summary.merge_all()
        sv = Supervisor(logdir=str(tmp_path), save_model_secs=0, save_summaries_secs=0)
        with sv.managed_session() as sess:
            sess.run(train)
            sv.summary_computed(sess, sess.run(summary))
    steps = [e.step for e in _events(str(tmp_path)) if e.HasField("summary")]
    assert steps == [1]


def test_non_chief():
    with tf.Graph().as_default():
        tf.Variable(1.0)
        with pytest.raises(ValueError, match="all Variables must have their device set"):
            Supervisor(is_chief=False)
    with tf.Graph().as_default():
        # a device the local session has (soft placement keeps the job and task, as TF's)
        with tf.device("/job:localhost/task:0"):
            tf.Variable(1.0)
        sv = Supervisor(is_chief=False, logdir="/nonexistent", recovery_wait_secs=0.01)
        assert sv.summary_writer is None and sv.save_path is None
        with pytest.raises(RuntimeError, match="Only chief supervisor"):
            sv.start_standard_services(None)
        with pytest.raises(tf.errors.DeadlineExceededError):
            sv.prepare_or_wait_for_session(
                max_wait_secs=0.05, config=tf.ConfigProto(allow_soft_placement=True))


def test_basic_train_loop(tmp_path):
    with tf.Graph().as_default():
        _w, _gs, train = _model()
        sv = Supervisor(logdir=str(tmp_path), save_model_secs=0, save_summaries_secs=0)
        calls = []

        def step(sess, limit):
            calls.append(sess.run(train))
            if len(calls) == 1:
                raise tf.errors.AbortedError(None, None, "a server restarted")
            if len(calls) >= limit:
                sv.request_stop()

        basic_train_loop(sv, step, args=(5,))
        assert len(calls) == 5
