"""MonitoredSession, MonitoredTrainingSession, Scaffold and SessionManager: initialization,
resuming from checkpoints, recovery from aborted steps, workers waiting for readiness."""

import os
import threading
import time

import numpy as np
import pytest

import tideflow as tf
from tideflow.train import basic_hooks as bh
from tideflow.train.monitored_session import (
    ChiefSessionCreator,
    MonitoredSession,
    MonitoredTrainingSession,
    Scaffold,
    SessionCreator,
    SingularMonitoredSession,
    WorkerSessionCreator,
)
from tideflow.train.session_manager import SessionManager
from tideflow.train.session_run_hook import SessionRunHook

pytestmark = pytest.mark.usefixtures("bounded_threads")


def _regression():
    """A linear model y = 3x + 1 trained by SGD with a global step; returns its pieces."""
    rng = np.random.RandomState(0)
    xs = rng.rand(64, 1).astype(np.float32)
    ys = 3 * xs + 1
    x = tf.constant(xs)
    w = tf.Variable(tf.zeros([1, 1]), name="w")
    b = tf.Variable(tf.zeros([1]), name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - ys))
    tf.summary.scalar("loss", loss)
    gs = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.2).minimize(loss, global_step=gs)
    return {"w": w, "b": b, "loss": loss, "gs": gs, "train": train}


def _train(sess, m):
    while not sess.should_stop():
        sess.run(m["train"])


# ------------------------------------------------------------------------------------------
# Scaffold
# ------------------------------------------------------------------------------------------


def test_scaffold_defaults_and_finalize():
    with tf.Graph().as_default() as g:
        tf.Variable(1.0)
        tf.Variable(2.0, collections=[tf.GraphKeys.LOCAL_VARIABLES])
        scaffold = Scaffold().finalize()
        assert g.finalized
        for key, value in [(tf.GraphKeys.INIT_OP, scaffold.init_op),
                           (tf.GraphKeys.READY_OP, scaffold.ready_op),
                           (tf.GraphKeys.LOCAL_INIT_OP, scaffold.local_init_op),
                           (tf.GraphKeys.READY_FOR_LOCAL_INIT_OP,
                            scaffold.ready_for_local_init_op),
                           (tf.GraphKeys.SAVERS, scaffold.saver)]:
            assert tf.get_collection(key) == [value]
        assert scaffold.summary_op is None  # no summaries in this graph
        with tf.Session() as sess:
            assert list(sess.run(scaffold.ready_op)) == [b"Variable", b"Variable_1"]
            sess.run(scaffold.init_op)
            assert list(sess.run(scaffold.ready_op)) == [b"Variable_1"]
            assert sess.run(scaffold.ready_for_local_init_op).size == 0
            sess.run(scaffold.local_init_op)
            assert sess.run(scaffold.ready_op).size == 0
        # a second scaffold reuses the collections' items
        g._unsafe_unfinalize()
        again = Scaffold().finalize()
        assert again.init_op is scaffold.init_op and again.saver is scaffold.saver
        g._unsafe_unfinalize()


def test_scaffold_copy_and_errors():
    with tf.Graph().as_default() as g:
        tf.Variable(1.0)
        fn_calls = []
        base = Scaffold(init_fn=lambda scaffold, sess: fn_calls.append(scaffold),
                        init_feed_dict={"a": 1})
        copy = Scaffold(copy_from_scaffold=base, summary_op=tf.constant(b""))
        assert copy.init_feed_dict == {"a": 1}
        copy.init_fn("sess")
        assert fn_calls == [copy]  # init_fn is called with the new scaffold
        with pytest.raises(TypeError, match="copy_from_scaffold"):
            Scaffold(copy_from_scaffold=object())
        tf.add_to_collection(tf.GraphKeys.INIT_OP, tf.no_op())
        tf.add_to_collection(tf.GraphKeys.INIT_OP, tf.no_op())
        with pytest.raises(RuntimeError, match='More than one item in the collection "init_op"'):
            Scaffold().finalize()
        assert not g.finalized


# ------------------------------------------------------------------------------------------
# MonitoredSession
# ------------------------------------------------------------------------------------------


def test_monitored_session_initializes_and_unfinalizes():
    with tf.Graph().as_default() as g:
        v = tf.Variable(4.0)
        with MonitoredSession() as sess:
            assert g.finalized
            assert sess.run(v) == 4.0
            assert sess.graph is g and not sess.should_stop()
        assert not g.finalized and sess.should_stop()
        assert sess._is_closed()
        # as TF 1.15: the wrapped session is None once closed
        with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'run'"):
            sess.run(v)
        with pytest.raises(RuntimeError, match="already closed"):
            sess.close()


def test_context_swallows_out_of_range_only():
    with tf.Graph().as_default():
        tf.Variable(0.0)
        with MonitoredSession() as sess:
            raise tf.errors.OutOfRangeError(None, None, "End of sequence")
        assert sess.should_stop()
        with pytest.raises(tf.errors.InvalidArgumentError), MonitoredSession():
            raise tf.errors.InvalidArgumentError(None, None, "bad")


def test_run_step_fn():
    with tf.Graph().as_default():
        c = tf.placeholder(tf.float32, [])
        v = c + 4.0
        w = c + 0.5
        results = []

        def step_fn(step_context):
            a = step_context.session.run(v, feed_dict={c: 0.5})
            if a <= 4.5:
                step_context.request_stop()
            return step_context.run_with_hooks(fetches=w, feed_dict={c: 0.1})

        class Stepper:
            def step(self, step_context):
                return step_context.run_with_hooks(w, feed_dict={c: 1.0})

        with MonitoredSession() as sess:
            results.append(sess.run_step_fn(Stepper().step))
            while not sess.should_stop():
                results.append(sess.run_step_fn(step_fn))
        assert results == [1.5]
        with MonitoredSession() as sess, pytest.raises(ValueError, match="step_context"):
            sess.run_step_fn(lambda ctx: None)


def test_monitored_training_session_default_hooks(tmp_path):
    with tf.Graph().as_default():
        _regression()
        d = str(tmp_path)
        with MonitoredTrainingSession(checkpoint_dir=d) as sess:
            kinds = [type(h) for h in sess._hooks]
            assert kinds == [bh.StepCounterHook, bh.SummarySaverHook, bh.CheckpointSaverHook]
            ckpt_hook = sess._hooks[2]
            assert ckpt_hook._timer._every_secs == 600
            assert sess._hooks[1]._timer._every_steps == 100
        with MonitoredTrainingSession(checkpoint_dir=d, save_checkpoint_steps=5,
                                      save_summaries_secs=30, log_step_count_steps=None) as s:
            assert [type(h) for h in s._hooks] == [bh.SummarySaverHook, bh.CheckpointSaverHook]
            assert s._hooks[0]._timer._every_secs == 30
            assert s._hooks[1]._timer._every_steps == 5
        with MonitoredTrainingSession() as sess:
            assert sess._hooks == []


def test_training_interrupted_and_resumed(tmp_path):
    d = str(tmp_path)
    with tf.Graph().as_default():
        m = _regression()
        final = bh.FinalOpsHook([m["w"], m["b"], m["gs"]])
        with MonitoredTrainingSession(checkpoint_dir=d, save_checkpoint_steps=10,
                                      hooks=[bh.StopAtStepHook(last_step=25), final]) as sess:
            _train(sess, m)
        w1, b1, step1 = final.final_ops_values
        assert step1 == 25
        assert tf.train.latest_checkpoint(d).endswith("model.ckpt-25")
        losses = []
    # a new process: a new graph, the same checkpoint directory
    with tf.Graph().as_default():
        m = _regression()
        with MonitoredTrainingSession(checkpoint_dir=d, save_checkpoint_steps=10,
                                      hooks=[bh.StopAtStepHook(last_step=60)]) as sess:
            w2, b2, step2 = sess.run([m["w"], m["b"], m["gs"]])
            assert step2 == 25
            np.testing.assert_array_equal(w1, w2)
            np.testing.assert_array_equal(b1, b2)
            while not sess.should_stop():
                losses.append(sess.run([m["train"], m["loss"]])[1])
        assert len(losses) == 35
        assert losses[-1] < losses[0] < 1.0
        assert tf.train.latest_checkpoint(d).endswith("model.ckpt-60")


class _AbortOnce(SessionRunHook):
    """Raises AbortedError in the before_run of step ``at`` (a lost parameter server)."""

    def __init__(self, at):
        self.at = at
        self.steps = 0
        self.sessions = 0

    def after_create_session(self, session, coord):
        self.sessions += 1

    def before_run(self, run_context):
        self.steps += 1
        if self.steps == self.at:
            raise tf.errors.AbortedError(None, None, "the parameter server restarted")


def test_recovery_from_aborted_step(tmp_path):
    d = str(tmp_path)
    with tf.Graph().as_default():
        m = _regression()
        abort = _AbortOnce(at=14)
        seen = []
        with MonitoredTrainingSession(checkpoint_dir=d, save_checkpoint_steps=5,
                                      hooks=[abort, bh.StopAtStepHook(last_step=30)]) as sess:
            while not sess.should_stop():
                seen.append(int(sess.run([m["train"], m["gs"]])[1]))
            assert abort.sessions == 2
        # steps 1..13, then the aborted step 14 recovers from checkpoint 10 and goes on
        assert seen[:13] == list(range(1, 14))
        assert seen[13] == 11
        assert seen[-1] == 30
        assert tf.train.latest_checkpoint(d).endswith("model.ckpt-30")


class _FlakySessionCreator(SessionCreator):
    """Creates real sessions whose first ``run`` raises UnavailableError (a lost worker)."""

    def __init__(self, checkpoint_dir):
        self.inner = ChiefSessionCreator(checkpoint_dir=checkpoint_dir)
        self.created = 0

    def create_session(self):
        sess = self.inner.create_session()
        self.created += 1
        if self.created == 2:
            real_run = sess.run
            state = {"failed": False}

            def run(*args, **kwargs):
                if not state["failed"]:
                    state["failed"] = True
                    raise tf.errors.UnavailableError(None, None, "worker lost")
                return real_run(*args, **kwargs)

            sess.run = run
        return sess


def test_recovery_through_session_creator(tmp_path):
    d = str(tmp_path)
    with tf.Graph().as_default():
        m = _regression()
        # a first run leaves a checkpoint at step 7
        with MonitoredTrainingSession(checkpoint_dir=d, save_checkpoint_steps=100,
                                      hooks=[bh.StopAtStepHook(last_step=7)]) as sess:
            _train(sess, m)
        creator = _FlakySessionCreator(d)
        sess = MonitoredSession(session_creator=creator)
        try:
            assert creator.created == 1
            sess._sess._sess.close()  # simulate the session dying: the next run recreates
            sess._sess._sess = None
            assert sess.run(m["gs"]) == 7  # a new session, restored from the checkpoint
            assert creator.created == 3  # the second one failed its first run
        finally:
            sess.close()


def test_singular_session_does_not_recover():
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        with pytest.raises(tf.errors.AbortedError), \
                SingularMonitoredSession(hooks=[_AbortOnce(at=1)]) as sess:
            sess.run(gs)


def test_queue_runners_started_and_stopped():
    with tf.Graph().as_default():
        q = tf.FIFOQueue(10, tf.float32)
        counter = tf.Variable(0.0)
        enqueue = q.enqueue(tf.assign_add(counter, 1.0))
        tf.train.add_queue_runner(tf.train.QueueRunner(q, [enqueue]))
        dequeue = q.dequeue()
        with MonitoredSession() as sess:
            values = [sess.run(dequeue) for _ in range(5)]
        assert values == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_input_exhaustion_ends_the_loop():
    with tf.Graph().as_default():
        q = tf.FIFOQueue(10, tf.float32)
        fill = q.enqueue_many([[1.0, 2.0, 3.0]])
        close = q.close()
        dequeue = q.dequeue()
        got = []
        scaffold = Scaffold(init_fn=lambda scaffold, sess: (sess.run(fill), sess.run(close)))
        with MonitoredSession(ChiefSessionCreator(scaffold=scaffold)) as sess:
            while not sess.should_stop():
                got.append(sess.run(dequeue))
        assert got == [1.0, 2.0, 3.0]


# ------------------------------------------------------------------------------------------
# SessionManager and workers
# ------------------------------------------------------------------------------------------


def test_prepare_session_errors():
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        u = tf.Variable(2.0, name="u")
        ready = tf.report_uninitialized_variables()
        with pytest.raises(RuntimeError, match="no init_op or init_fn or local_init_op"):
            SessionManager(ready_op=ready).prepare_session("")
        with pytest.raises(RuntimeError, match="Init operations did not make model ready.  "
                                               r"Init op: init.*Variables not initialized: u"):
            SessionManager(ready_op=ready).prepare_session(
                "", init_op=tf.variables_initializer([v], name="init"))
        with pytest.raises(ValueError, match="you must also pass a local_init_op"):
            SessionManager(ready_for_local_init_op=ready)
        calls = []
        sess = SessionManager(ready_op=ready).prepare_session(
            "", init_op=tf.variables_initializer([v]),
            init_fn=lambda s: calls.append(s.run(u.initializer)))
        assert sess.run([v, u]) == [1.0, 2.0] and len(calls) == 1
        sess.close()
        # local init waits for the global variables
        local = tf.Variable(5.0, collections=[tf.GraphKeys.LOCAL_VARIABLES], name="local")
        sm = SessionManager(ready_op=ready,
                            ready_for_local_init_op=tf.report_uninitialized_variables([v, u]),
                            local_init_op=local.initializer)
        with pytest.raises(RuntimeError, match="did not make model ready for local_init"):
            sm.prepare_session("", init_op=v.initializer)


def test_prepare_and_recover_from_checkpoint(tmp_path):
    d = str(tmp_path)
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        set_v = v.assign(7.0)
        saver = tf.train.Saver()
        sm = SessionManager(ready_op=tf.report_uninitialized_variables(), recovery_wait_secs=0.01)
        sess, ok = sm.recover_session("", saver=saver, checkpoint_dir=d)
        assert not ok
        sess.close()
        t0 = time.time()
        sess = sm.prepare_session("", init_op=v.initializer, saver=saver, checkpoint_dir=d,
                                  wait_for_checkpoint=True, max_wait_secs=0.05)
        assert time.time() - t0 < 5 and sess.run(v) == 1.0
        sess.run(set_v)
        path = saver.save(sess, os.path.join(d, "model"), global_step=3)
        sess.close()
        sess, ok = sm.recover_session("", saver=saver, checkpoint_dir=d)
        assert ok and sess.run(v) == 7.0
        sess.close()
        # an explicit checkpoint file wins over init_op
        sess = sm.prepare_session("", init_op=v.initializer, saver=saver,
                                  checkpoint_filename_with_path=path)
        assert sess.run(v) == 7.0
        sess.close()
        with pytest.raises(ValueError, match="Can not provide both"):
            sm.prepare_session("", saver=saver, checkpoint_dir=d,
                               checkpoint_filename_with_path=path)


def test_wait_for_session_times_out():
    with tf.Graph().as_default():
        tf.Variable(1.0, name="v")
        sm = SessionManager(ready_op=tf.report_uninitialized_variables(),
                            recovery_wait_secs=0.02)
        t0 = time.time()
        with pytest.raises(tf.errors.DeadlineExceededError, match="not ready after waiting"):
            sm.wait_for_session("", max_wait_secs=0.1)
        assert 0.05 < time.time() - t0 < 5


def test_worker_waits_until_chief_made_model_ready(tmp_path):
    """Sessions share no variables here (that needs the distributed runtime), so readiness
    is a file the chief writes once it has checkpointed: the worker polls until it appears."""
    marker = str(tmp_path / "ready")
    with tf.Graph().as_default():
        found = tf.io.matching_files(marker)
        ready = tf.boolean_mask(tf.constant(["chief has not checkpointed"]),
                                tf.reshape(tf.equal(tf.size(found), 0), [1]))
        sm = SessionManager(ready_op=ready, recovery_wait_secs=0.02)

        def chief():
            time.sleep(0.15)
            with open(marker, "w") as f:
                f.write("ok")

        t = threading.Thread(target=chief)
        t.start()
        t0 = time.time()
        sess = sm.wait_for_session("", max_wait_secs=10)
        waited = time.time() - t0
        t.join()
        assert 0.1 < waited < 5
        sess.close()


def test_worker_session_creator():
    with tf.Graph().as_default():
        tf.Variable(1.0)
        # a worker's own session never sees the chief's variables locally: it gives up
        creator = WorkerSessionCreator(max_wait_secs=0)
        with pytest.raises(tf.errors.DeadlineExceededError):
            MonitoredSession(session_creator=creator)
    with tf.Graph().as_default():
        c = tf.constant(3.0)  # nothing to initialize: ready at once
        with MonitoredTrainingSession(is_chief=False, max_wait_secs=0) as sess:
            assert sess.run(c) == 3.0
