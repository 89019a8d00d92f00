"""Session-run hooks: call order, fetch/feed merging, and each standard hook's behaviour, with
real event files and checkpoints read back."""

import glob
import io
import json
import logging as py_logging
import os
import threading
import time

import numpy as np
import pytest

import tideflow as tf
from tideflow import logging as tf_logging
from tideflow.protos import config_pb2
from tideflow.summary.writer import FileWriterCache
from tideflow.train import basic_hooks as bh
from tideflow.train.monitored_session import (
    ChiefSessionCreator,
    MonitoredSession,
    Scaffold,
    SingularMonitoredSession,
)
from tideflow.train.profiler_hook import ProfilerHook
from tideflow.train.progress_hook import ProgressHook
from tideflow.train.session_run_hook import (
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
)

pytestmark = pytest.mark.usefixtures("bounded_threads")


class _Logs(py_logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


@pytest.fixture
def logs():
    logger = tf_logging.get_logger()
    handler = _Logs()
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(py_logging.INFO)
    yield handler.lines
    logger.removeHandler(handler)
    logger.setLevel(level)


def _counter_model():
    gs = tf.train.get_or_create_global_step()
    return gs, tf.assign_add(gs, 1)


def _events(logdir):
    FileWriterCache.clear()  # flushes and closes the cached writers
    out = []
    for path in sorted(glob.glob(os.path.join(logdir, "events.out.tfevents.*"))):
        out.extend(tf.train.summary_iterator(path))
    return out


def _scalars(events, tag):
    return [(e.step, v.simple_value) for e in events if e.HasField("summary")
            for v in e.summary.value if v.tag == tag]


# ------------------------------------------------------------------------------------------
# the protocol
# ------------------------------------------------------------------------------------------


class _Recorder(SessionRunHook):
    def __init__(self, fetches=None, feed_dict=None, options=None):
        self.calls = []
        self.args = SessionRunArgs(fetches, feed_dict, options) if (
            fetches is not None or feed_dict or options) else None
        self.values = []

    def begin(self):
        self.calls.append("begin")

    def after_create_session(self, session, coord):
        self.calls.append("after_create_session")
        assert isinstance(coord, tf.train.Coordinator)
        assert session.graph.finalized

    def before_run(self, run_context):
        self.calls.append("before_run")
        self.original = run_context.original_args
        return self.args

    def after_run(self, run_context, run_values):
        self.calls.append("after_run")
        self.values.append(run_values)

    def end(self, session):
        self.calls.append("end")


def test_records():
    args = SessionRunArgs("x")
    assert args == ("x", None, None) and args.fetches == "x"
    assert SessionRunArgs([1], {2: 3}).feed_dict == {2: 3}
    ctx = SessionRunContext(original_args=args, session="s")
    assert ctx.session == "s" and ctx.original_args is args and not ctx.stop_requested
    ctx.request_stop()
    assert ctx.stop_requested
    values = SessionRunValues(results=1, options=None, run_metadata=None)
    assert values.results == 1
    # the base hook does nothing
    hook = SessionRunHook()
    hook.begin()
    assert hook.before_run(ctx) is None


def test_call_order_fetches_and_feeds():
    with tf.Graph().as_default():
        a = tf.constant(2.0)
        p = tf.placeholder(tf.float32, [])
        q = tf.placeholder(tf.float32, [])
        doubled = p * 2.0
        q1 = q + 1.0
        opts = config_pb2.RunOptions(timeout_in_ms=5000)
        h1 = _Recorder(fetches={"a": a}, feed_dict={p: 5.0}, options=opts)
        h2 = _Recorder(fetches=doubled)
        h3 = _Recorder()
        with MonitoredSession(hooks=[h1, h2, h3]) as sess:
            assert sess.run(q1, feed_dict={q: 1.0}) == 2.0
        assert h1.calls == ["begin", "after_create_session", "before_run", "after_run", "end"]
        assert h1.values[0].results == {"a": 2.0}
        assert h2.values[0].results == 10.0  # h1's feed reaches h2's fetch
        assert h3.values[0].results is None
        assert h1.values[0].options.timeout_in_ms == 5000  # merged into the run's options
        assert isinstance(h1.values[0].run_metadata, config_pb2.RunMetadata)
        assert h1.original.feed_dict == {q: 1.0}


def test_feed_conflicts():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [])
        with MonitoredSession(hooks=[_Recorder(feed_dict={p: 1.0}),
                                     _Recorder(feed_dict={p: 2.0})]) as sess, \
                pytest.raises(RuntimeError, match="Same tensor is fed by two hooks"):
            sess.run(p)
        with MonitoredSession(hooks=[_Recorder(feed_dict={p: 1.0})]) as sess:
            with pytest.raises(RuntimeError, match="fed by a SessionRunHook and user"):
                sess.run(p, feed_dict={p: 3.0})
            assert sess.run(p) == 1.0


def test_end_not_called_on_error():
    with tf.Graph().as_default():
        hook = _Recorder()
        with pytest.raises(ValueError, match="boom"), MonitoredSession(hooks=[hook]):
            raise ValueError("boom")
        assert "end" not in hook.calls


# ------------------------------------------------------------------------------------------
# timers and stopping
# ------------------------------------------------------------------------------------------


def test_second_or_step_timer():
    with pytest.raises(ValueError, match="Either every_secs or every_steps"):
        bh.SecondOrStepTimer()
    with pytest.raises(ValueError, match="Can not provide both"):
        bh.SecondOrStepTimer(every_secs=1, every_steps=1)
    t = bh.SecondOrStepTimer(every_steps=3)
    assert t.should_trigger_for_step(0) and t.last_triggered_step() is None
    assert t.update_last_triggered_step(0) == (None, None)
    assert not t.should_trigger_for_step(0)
    assert not t.should_trigger_for_step(2) and t.should_trigger_for_step(3)
    secs, steps = t.update_last_triggered_step(3)
    assert steps == 3 and secs >= 0
    t = bh.SecondOrStepTimer(every_secs=0.05)
    t.update_last_triggered_step(1)
    assert not t.should_trigger_for_step(2)
    time.sleep(0.06)
    assert t.should_trigger_for_step(2)
    never = bh.NeverTriggerTimer()
    assert not never.should_trigger_for_step(0)
    assert never.update_last_triggered_step(5) == (None, None)


def test_stop_at_step_hook():
    with pytest.raises(ValueError, match="One of num_steps or last_step"):
        bh.StopAtStepHook()
    with pytest.raises(ValueError, match="Only one of"):
        bh.StopAtStepHook(num_steps=1, last_step=1)
    with tf.Graph().as_default():
        with pytest.raises(RuntimeError, match="Global step should be created"):
            MonitoredSession(hooks=[bh.StopAtStepHook(num_steps=2)])
        gs, inc = _counter_model()
        set10 = gs.assign(10)
        with SingularMonitoredSession(hooks=[bh.StopAtStepHook(last_step=5)]) as sess:
            n = 0
            while not sess.should_stop():
                sess.run(inc)
                n += 1
            assert n == 5 and sess.raw_session().run(gs) == 5
        # num_steps counts from the step the session starts at
        scaffold = Scaffold(init_fn=lambda scaffold, sess: sess.run(set10))
        with SingularMonitoredSession(hooks=[bh.StopAtStepHook(num_steps=3)],
                                      scaffold=scaffold) as sess:
            while not sess.should_stop():
                sess.run(inc)
            assert sess.raw_session().run(gs) == 13
        with pytest.raises(RuntimeError, match="after should_stop"), \
                SingularMonitoredSession(hooks=[bh.StopAtStepHook(last_step=1)]) as sess:
            sess.run(inc)
            sess.run(inc)


def test_nan_tensor_hook():
    with tf.Graph().as_default():
        _gs, inc = _counter_model()
        loss = tf.placeholder(tf.float32, [])
        with pytest.raises(bh.NanLossDuringTrainingError, match="NaN loss during training"), \
                MonitoredSession(hooks=[bh.NanTensorHook(loss)]) as sess:
            sess.run(inc, feed_dict={loss: 1.0})
            sess.run(inc, feed_dict={loss: np.nan})
        with MonitoredSession(hooks=[bh.NanTensorHook(loss, fail_on_nan_loss=False)]) as sess:
            sess.run(inc, feed_dict={loss: 1.0})
            assert not sess.should_stop()
            sess.run(inc, feed_dict={loss: np.nan})
            assert sess.should_stop()


def test_logging_tensor_hook(logs):
    with pytest.raises(ValueError, match="exactly one of every_n_iter and every_n_secs"):
        bh.LoggingTensorHook(["x"])
    with pytest.raises(ValueError, match="invalid every_n_iter"):
        bh.LoggingTensorHook(["x"], every_n_iter=0)
    with tf.Graph().as_default():
        gs, inc = _counter_model()
        v = tf.constant([1.5, 2.0], name="vec")
        hooks = [bh.LoggingTensorHook({"step": gs, "vec": "vec"}, every_n_iter=2),
                 bh.LoggingTensorHook(["vec:0"], at_end=True),
                 bh.LoggingTensorHook([v], every_n_iter=100,
                                      formatter=lambda d: f"custom {d[v][0]}")]
        with MonitoredSession(hooks=hooks) as sess:
            for _ in range(5):
                sess.run(inc)
        periodic = [line for line in logs if line.startswith("step = ")]
        assert len(periodic) == 3  # local iterations 0, 2, 4
        assert "vec = [1.5 2. ]" in periodic[0]
        assert "sec)" in periodic[1]
        assert sum(line.startswith("vec:0 = ") for line in logs) == 1  # at the end only
        assert "custom 1.5" in logs
        with pytest.raises(ValueError, match="ambiguous"):
            tf.split(tf.constant([1, 2]), 2, name="two")
            bh.LoggingTensorHook(["two"], every_n_iter=1).begin()


def test_final_ops_and_feed_fn_hooks():
    with tf.Graph().as_default():
        _gs, _ = _counter_model()
        p = tf.placeholder(tf.int64, [])
        acc = tf.Variable(0, dtype=tf.int64)
        add = tf.assign_add(acc, p)
        feeds = iter(range(1, 100))
        final = bh.FinalOpsHook({"acc": acc.value(), "twice": acc * 2})
        with MonitoredSession(hooks=[bh.FeedFnHook(lambda: {p: next(feeds)}), final]) as sess:
            for _ in range(4):
                sess.run(add)
        assert final.final_ops_values == {"acc": 10, "twice": 20}


def test_global_step_waiter_hook():
    with tf.Graph().as_default():
        gs, inc = _counter_model()
        hook = bh.GlobalStepWaiterHook(wait_until_step=3)
        hook._poll_secs = 0.01
        with SingularMonitoredSession(hooks=[hook]) as sess:
            raw = sess.raw_session()

            def others():
                for _ in range(3):
                    time.sleep(0.02)
                    raw.run(inc)

            t = threading.Thread(target=others)
            t.start()
            start = time.time()
            step = sess.run(gs)  # waits for the other "workers"
            t.join()
            assert step >= 3 and time.time() - start < 5
        with SingularMonitoredSession(hooks=[bh.GlobalStepWaiterHook(0)]) as sess:
            assert sess.run(gs) == 0


# ------------------------------------------------------------------------------------------
# checkpoints, summaries, step counts
# ------------------------------------------------------------------------------------------


class _Listener(bh.CheckpointSaverListener):
    def __init__(self, stop_at=None):
        self.calls = []
        self.stop_at = stop_at

    def begin(self):
        self.calls.append(("begin",))

    def before_save(self, session, global_step_value):
        self.calls.append(("before_save", global_step_value))

    def after_save(self, session, global_step_value):
        self.calls.append(("after_save", global_step_value))
        return self.stop_at is not None and global_step_value >= self.stop_at

    def end(self, session, global_step_value):
        self.calls.append(("end", global_step_value))


def test_checkpoint_saver_hook_steps_and_listeners(tmp_path):
    ckpt = str(tmp_path)
    with tf.Graph().as_default():
        _gs, inc = _counter_model()
        with pytest.raises(ValueError, match="both saver and scaffold"):
            bh.CheckpointSaverHook(ckpt, save_steps=1, saver=object(), scaffold=Scaffold())
        listener = _Listener()
        hook = bh.CheckpointSaverHook(ckpt, save_steps=3, listeners=[listener])
        with SingularMonitoredSession(hooks=[hook]) as sess:
            for _ in range(7):
                sess.run(inc)
        assert listener.calls == [
            ("begin",), ("before_save", 0), ("after_save", 0), ("before_save", 3),
            ("after_save", 3), ("before_save", 6), ("after_save", 6), ("before_save", 7),
            ("after_save", 7), ("end", 7)]
        state = tf.train.get_checkpoint_state(ckpt)
        assert state.model_checkpoint_path.endswith("model.ckpt-7")
        assert os.path.exists(os.path.join(ckpt, "graph.pbtxt"))
        assert tf.train.load_variable(ckpt, "global_step") == 7
        events = _events(ckpt)
        logs = [e.session_log for e in events if e.HasField("session_log")]
        assert [s.status for s in logs] == [tf.summary.SessionLog.CHECKPOINT] * 4
        assert any(e.HasField("meta_graph_def") for e in events)


def test_checkpoint_listener_stops_training(tmp_path):
    with tf.Graph().as_default():
        gs, inc = _counter_model()
        hook = bh.CheckpointSaverHook(str(tmp_path), save_steps=2, listeners=[_Listener(4)])
        with SingularMonitoredSession(hooks=[hook]) as sess:
            while not sess.should_stop():
                sess.run(inc)
            assert sess.raw_session().run(gs) == 4


def test_checkpoint_saver_hook_secs_and_explicit_saver(tmp_path):
    with tf.Graph().as_default():
        _gs, inc = _counter_model()
        saver = tf.train.Saver(max_to_keep=100)
        hook = bh.CheckpointSaverHook(str(tmp_path), save_secs=0.05, saver=saver,
                                      checkpoint_basename="m")
        with SingularMonitoredSession(hooks=[hook]) as sess:
            for _ in range(3):
                sess.run(inc)
            time.sleep(0.08)
            sess.run(inc)
        steps = sorted(int(p.rsplit("-", 1)[1]) for p in saver.last_checkpoints)
        assert steps == [0, 4]


def test_summary_saver_hook(tmp_path):
    out = str(tmp_path)
    with pytest.raises(ValueError, match="Exactly one of scaffold or summary_op"):
        bh.SummarySaverHook(save_steps=1)
    with tf.Graph().as_default():
        gs, inc = _counter_model()
        x = tf.cast(gs, tf.float32) * 10.0
        summ = tf.summary.scalar("x", x)
        hook = bh.SummarySaverHook(save_steps=2, output_dir=out, summary_op=summ)
        with SingularMonitoredSession(hooks=[hook]) as sess:
            for _ in range(6):
                sess.run(inc)
        events = _events(out)
        # the summary runs with the step that takes the global step from s to s + 1
        assert _scalars(events, "x") in ([(1, 0.0), (3, 20.0), (5, 40.0)],
                                         [(1, 10.0), (3, 30.0), (5, 50.0)])
        starts = [e for e in events if e.HasField("session_log")]
        assert starts[0].session_log.status == tf.summary.SessionLog.START


def test_summary_saver_hook_with_scaffold_and_writer(tmp_path):
    with tf.Graph().as_default():
        _gs, inc = _counter_model()
        tf.summary.scalar("one", tf.constant(1.0))
        writer = tf.summary.FileWriter(str(tmp_path))
        scaffold = Scaffold()
        hook = bh.SummarySaverHook(save_secs=100, summary_writer=writer, scaffold=scaffold)
        creator = ChiefSessionCreator(scaffold=scaffold)
        with MonitoredSession(session_creator=creator, hooks=[hook]) as sess:
            for _ in range(3):
                sess.run(inc)
        writer.close()
        assert [s for s, _ in _scalars(_events(str(tmp_path)), "one")] == [1]


def test_step_counter_hook(tmp_path, logs):
    with pytest.raises(ValueError, match="exactly one of every_n_steps"):
        bh.StepCounterHook(every_n_steps=None)
    out = str(tmp_path)
    with tf.Graph().as_default():
        _gs, inc = _counter_model()
        with SingularMonitoredSession(hooks=[bh.StepCounterHook(every_n_steps=5,
                                                                output_dir=out)]) as sess:
            for _ in range(16):
                sess.run(inc)
        rates = _scalars(_events(out), "global_step/sec")
        # the first trigger (step 1) only starts the clock
        assert [s for s, _ in rates] == [6, 11, 16]
        assert all(r > 0 for _, r in rates)
        assert any(line.startswith("global_step/sec: ") for line in logs)
        # a global step that does not move is reported (the first 5 times in a process: forget
        # any earlier test's reports)
        from tideflow import logging as tf_logging

        for key in [k for k in tf_logging._log_counts if "has not been increased" in k[0]]:
            del tf_logging._log_counts[key]
        noop = tf.no_op()
        with SingularMonitoredSession(hooks=[bh.StepCounterHook(every_n_steps=5)]) as sess:
            sess.run(noop)
            sess.run(noop)
        assert any("has not been increased" in line for line in logs)


def test_profiler_hook_writes_chrome_trace(tmp_path):
    out = str(tmp_path)
    with tf.Graph().as_default():
        _gs, inc = _counter_model()
        w = tf.Variable(tf.ones([4, 4]))
        work = tf.matmul(w, w)
        with SingularMonitoredSession(hooks=[ProfilerHook(save_steps=2, output_dir=out)]) as s:
            for _ in range(5):
                s.run([inc, work])
        files = sorted(glob.glob(os.path.join(out, "timeline-*.json")))
        assert [os.path.basename(f) for f in files] == ["timeline-2.json", "timeline-4.json"]
        for f in files:
            with open(f) as fh:
                trace = json.load(fh)
            complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
            assert complete and all(e["dur"] >= 0 and "ts" in e for e in complete)
        tags = [e.tagged_run_metadata.tag for e in _events(out)
                if e.HasField("tagged_run_metadata")]
        assert tags == ["step_2", "step_4"]


# ------------------------------------------------------------------------------------------
# progress
# ------------------------------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_hook_plain_lines():
    with tf.Graph().as_default():
        _gs, inc = _counter_model()
        loss = tf.constant(0.25, name="loss")
        out = io.StringIO()
        hook = ProgressHook(num_steps=10, tensors={"loss": loss}, stream=out)
        with SingularMonitoredSession(hooks=[hook, bh.StopAtStepHook(last_step=10)]) as sess:
            while not sess.should_stop():
                sess.run(inc)
        lines = out.getvalue().splitlines()
        assert lines[0].startswith("step 1/10, global_step 1")
        assert len(lines) == 10 and lines[-1].startswith("step 10/10")
        assert "loss=0.25" in lines[-1] and "steps/s" in lines[-1]


def test_progress_hook_terminal_bar(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_tqdm(name, *args, **kwargs):  # the built-in bar, even where tqdm is installed
        if name == "tqdm":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    with tf.Graph().as_default():
        _gs, inc = _counter_model()
        out = _Terminal()
        hook = ProgressHook(num_steps=4, tensors=[tf.constant(3, name="k")], stream=out)
        with SingularMonitoredSession(hooks=[hook]) as sess:
            for _ in range(4):
                sess.run(inc)
        text = out.getvalue()
        assert text.startswith("\r") and text.endswith("\n")
        last = text.rstrip("\n").split("\r")[-1]
        assert "100.0%" in last and "4/4" in last and "k:0=3" in last
    with pytest.raises(ValueError, match="num_steps"):
        ProgressHook(num_steps=0)


def test_progress_hook_tqdm():
    pytest.importorskip("tqdm")
    with tf.Graph().as_default():
        _gs, inc = _counter_model()
        out = _Terminal()
        with SingularMonitoredSession(hooks=[ProgressHook(num_steps=3, stream=out)]) as sess:
            for _ in range(3):
                sess.run(inc)
        assert "3/3" in out.getvalue()
