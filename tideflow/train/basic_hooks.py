"""The standard session-run hooks of TF 1.x (``tf.train.StopAtStepHook``,
``CheckpointSaverHook``, ``SummarySaverHook``, ``StepCounterHook``, ``LoggingTensorHook``,
``NanTensorHook``, ...) and the ``SecondOrStepTimer`` that paces them."""

import os
import time

import numpy as np

from tideflow import logging
from tideflow.framework import errors, ops
from tideflow.framework.graph_io import write_graph
from tideflow.protos.event_pb2 import SessionLog
from tideflow.protos.summary_pb2 import Summary
from tideflow.summary.writer import FileWriterCache
from tideflow.train import saver as saver_lib
from tideflow.train import training_util
from tideflow.train.session_run_hook import SessionRunArgs, SessionRunHook

SummaryWriterCache = FileWriterCache

# the tensor that reads the global step for hooks lives with the global step (as in TF)
GLOBAL_STEP_READ_KEY = training_util.GLOBAL_STEP_READ_KEY
_get_or_create_global_step_read = training_util._get_or_create_global_step_read


def _as_graph_element(obj):
    """The tensor ``obj`` names in the default graph (a name without ``:N`` means ``:0``)."""
    graph = ops.get_default_graph()
    if not isinstance(obj, str):
        if not hasattr(obj, "graph") or obj.graph is not graph:
            raise ValueError(f"Passed {obj} should have graph attribute that is equal to "
                             f"current graph {graph}.")
        return obj
    if ":" in obj:
        return graph.as_graph_element(obj)
    element = graph.as_graph_element(obj + ":0")
    try:
        graph.as_graph_element(obj + ":1")
    except (KeyError, ValueError):
        pass
    else:
        raise ValueError(f"Name {obj} is ambiguous, as this `Operation` has multiple outputs "
                         "(at least 2).")
    return element


# ------------------------------------------------------------------------------------------
# timers
# ------------------------------------------------------------------------------------------


class _HookTimer:
    """Decides when a periodic hook fires."""

    def reset(self):
        """Forgets the last trigger."""

    def should_trigger_for_step(self, step):
        """True when the hook should fire at ``step``."""
        raise NotImplementedError

    def update_last_triggered_step(self, step):
        """Records a trigger at ``step``; returns (elapsed secs, elapsed steps) or Nones."""
        raise NotImplementedError

    def last_triggered_step(self):
        """The step of the last trigger (None before the first)."""
        raise NotImplementedError


class SecondOrStepTimer(_HookTimer):
    """Fires every ``every_secs`` seconds or every ``every_steps`` steps (exactly one)."""

    def __init__(self, every_secs=None, every_steps=None):
        self.reset()
        self._every_secs = every_secs
        self._every_steps = every_steps
        if every_secs is None and every_steps is None:
            raise ValueError("Either every_secs or every_steps should be provided.")
        if every_secs is not None and every_steps is not None:
            raise ValueError("Can not provide both every_secs and every_steps.")

    def reset(self):
        self._last_triggered_step = None
        self._last_triggered_time = None

    def should_trigger_for_step(self, step):
        if self._last_triggered_step is None:
            return True
        if self._last_triggered_step == step:
            return False
        if self._every_secs is not None and (
                time.time() >= self._last_triggered_time + self._every_secs):
            return True
        return self._every_steps is not None and (
            step >= self._last_triggered_step + self._every_steps)

    def update_last_triggered_step(self, step):
        now = time.time()
        if self._last_triggered_time is None:
            elapsed_secs = elapsed_steps = None
        else:
            elapsed_secs = now - self._last_triggered_time
            elapsed_steps = step - self._last_triggered_step
        self._last_triggered_time = now
        self._last_triggered_step = step
        return elapsed_secs, elapsed_steps

    def last_triggered_step(self):
        return self._last_triggered_step


class NeverTriggerTimer(_HookTimer):
    """A timer that never fires."""

    def should_trigger_for_step(self, step):
        return False

    def update_last_triggered_step(self, step):
        return None, None

    def last_triggered_step(self):
        return None


def _require_global_step(hook_name):
    step = _get_or_create_global_step_read()
    if step is None:
        raise RuntimeError(f"Global step should be created to use {hook_name}.")
    return step


# ------------------------------------------------------------------------------------------
# logging and stopping
# ------------------------------------------------------------------------------------------


class LoggingTensorHook(SessionRunHook):
    """Logs the values of ``tensors`` every N local steps, every N seconds, and/or at the end.

    ``tensors`` is a dict tag -> tensor (or name), or a list of tensors (or names);
    ``formatter`` maps the dict of values to the logged string.
    """

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False,
                 formatter=None):
        only_log_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_log_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and every_n_secs "
                             "must be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if not isinstance(tensors, dict):
            self._tag_order = list(tensors)
            tensors = {item: item for item in tensors}
        else:
            self._tag_order = sorted(tensors.keys())
        self._tensors = tensors
        self._formatter = formatter
        self._timer = (NeverTriggerTimer() if only_log_at_end else
                       SecondOrStepTimer(every_secs=every_n_secs, every_steps=every_n_iter))
        self._log_at_end = at_end

    def begin(self):
        self._timer.reset()
        self._iter_count = 0
        self._current_tensors = {tag: _as_graph_element(t) for tag, t in self._tensors.items()}

    def before_run(self, run_context):
        self._should_trigger = self._timer.should_trigger_for_step(self._iter_count)
        if self._should_trigger:
            return SessionRunArgs(self._current_tensors)
        return None

    def _log_tensors(self, tensor_values):
        original = np.get_printoptions()
        np.set_printoptions(suppress=True)
        try:
            elapsed_secs, _ = self._timer.update_last_triggered_step(self._iter_count)
            if self._formatter:
                logging.info(self._formatter(tensor_values))
            else:
                stats = ", ".join(f"{tag} = {tensor_values[tag]!s}" for tag in self._tag_order)
                if elapsed_secs is not None:
                    logging.info("%s (%.3f sec)", stats, elapsed_secs)
                else:
                    logging.info("%s", stats)
        finally:
            np.set_printoptions(**original)

    def after_run(self, run_context, run_values):
        if self._should_trigger:
            self._log_tensors(run_values.results)
        self._iter_count += 1

    def end(self, session):
        if self._log_at_end:
            self._log_tensors(session.run(self._current_tensors))


def check_stop_arguments(num_steps, last_step):
    """TF's check that exactly one of ``num_steps`` and ``last_step`` is given (its hook's
    and its contrib.learn monitor's)."""
    if num_steps is None and last_step is None:
        raise ValueError("One of num_steps or last_step must be specified.")
    if num_steps is not None and last_step is not None:
        raise ValueError("Only one of num_steps or last_step can be specified.")


class StopAtStepHook(SessionRunHook):
    """Requests a stop when the global step reaches ``last_step`` (or start + ``num_steps``)."""

    def __init__(self, num_steps=None, last_step=None):
        check_stop_arguments(num_steps, last_step)
        self._num_steps = num_steps
        self._last_step = last_step

    def begin(self):
        self._global_step_tensor = _require_global_step("StopAtStepHook")

    def after_create_session(self, session, coord):
        if self._last_step is None:
            self._last_step = int(session.run(self._global_step_tensor)) + self._num_steps

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        if run_values.results + 1 >= self._last_step:
            # the read may precede the train op's increment: look again before stopping
            step = run_context.session.run(self._global_step_tensor)
            if step >= self._last_step:
                run_context.request_stop()


class NanLossDuringTrainingError(RuntimeError):
    """Raised by ``NanTensorHook`` when the loss becomes NaN."""

    def __str__(self):
        return "NaN loss during training."


class NanTensorHook(SessionRunHook):
    """Raises ``NanLossDuringTrainingError`` (or just stops) when ``loss_tensor`` is NaN."""

    def __init__(self, loss_tensor, fail_on_nan_loss=True):
        self._loss_tensor = loss_tensor
        self._fail_on_nan_loss = fail_on_nan_loss

    def before_run(self, run_context):
        return SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context, run_values):
        # TF tests the value's truth as is: a loss of more than one element is a ValueError
        if np.isnan(run_values.results):
            message = "Model diverged with loss = NaN."
            if self._fail_on_nan_loss:
                logging.error(message)
                raise NanLossDuringTrainingError
            logging.warning(message)
            run_context.request_stop()


class GlobalStepWaiterHook(SessionRunHook):
    """Delays this worker's first step until the global step reaches ``wait_until_step``."""

    _poll_secs = 0.5

    def __init__(self, wait_until_step):
        self._wait_until_step = wait_until_step

    def begin(self):
        self._worker_is_started = False
        self._global_step_tensor = _require_global_step("_GlobalStepWaiterHook")

    def before_run(self, run_context):
        if self._worker_is_started:
            return
        if self._wait_until_step <= 0:
            self._worker_is_started = True
            return
        logging.info("Waiting for global step %d before starting training.",
                     self._wait_until_step)
        last_logged_step = 0
        while True:
            current_step = run_context.session.run(self._global_step_tensor)
            if current_step >= self._wait_until_step:
                self._worker_is_started = True
                return
            if current_step - last_logged_step > 1000:
                logging.info("Waiting for global step %d before starting training. Current "
                             "step is %d.", self._wait_until_step, current_step)
                last_logged_step = current_step
            time.sleep(self._poll_secs)


class FinalOpsHook(SessionRunHook):
    """Runs ``final_ops`` when the session ends; their values are in ``final_ops_values``."""

    def __init__(self, final_ops, final_ops_feed_dict=None):
        self._final_ops = final_ops
        self._final_ops_feed_dict = final_ops_feed_dict
        self._final_ops_values = None

    @property
    def final_ops_values(self):
        return self._final_ops_values

    def end(self, session):
        if self._final_ops is None:
            return
        try:
            self._final_ops_values = session.run(self._final_ops,
                                                 feed_dict=self._final_ops_feed_dict)
        except (errors.OutOfRangeError, StopIteration):
            # TF 1.15's warning, word for word (double space included)
            logging.warning(
                "An OutOfRangeError or StopIteration exception is raised by the code in "
                "FinalOpsHook. This typically means the Ops running by the FinalOpsHook have a "
                "dependency back to some input source, which should not happen. For example, "
                "for metrics in tf.estimator.Estimator, all metrics functions return two Ops: "
                "`value_op` and  `update_op`. Estimator.evaluate calls the `update_op` for each "
                "batch of the data in input source and, once it is exhausted, it call the "
                "`value_op` to get the metric values. The `value_op` here should have "
                "dependency back to variables reading only, rather than reading another batch "
                "from input. Otherwise, the `value_op`, executed by `FinalOpsHook`, triggers "
                "another data reading, which ends OutOfRangeError/StopIteration. Please fix "
                "that.")
            raise


class FeedFnHook(SessionRunHook):
    """Feeds ``feed_fn()`` (a dict) into every step."""

    def __init__(self, feed_fn):
        self.feed_fn = feed_fn

    def before_run(self, run_context):
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


# ------------------------------------------------------------------------------------------
# checkpoints
# ------------------------------------------------------------------------------------------


class CheckpointSaverListener:
    """Called around each checkpoint a ``CheckpointSaverHook`` writes.

    ``after_save`` may return True to request that training stop.
    """

    def begin(self):
        pass

    def before_save(self, session, global_step_value):
        pass

    def after_save(self, session, global_step_value):
        pass

    def end(self, session, global_step_value):
        pass


class CheckpointSaverHook(SessionRunHook):
    """Saves a checkpoint when the session starts, every N seconds or steps, and at the end."""

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None,
                 checkpoint_basename="model.ckpt", scaffold=None, listeners=None,
                 save_graph_def=True):
        logging.info("Create CheckpointSaverHook.")
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._saver = saver
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = listeners or []
        self._steps_per_run = 1
        self._save_graph_def = save_graph_def

    def _set_steps_per_run(self, steps_per_run):
        self._steps_per_run = steps_per_run

    def begin(self):
        self._summary_writer = SummaryWriterCache.get(self._checkpoint_dir)
        self._global_step_tensor = _require_global_step("CheckpointSaverHook")
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session, coord):
        global_step = session.run(self._global_step_tensor)
        if self._save_graph_def:
            # written here, not in begin: other hooks may still add ops in their begin
            graph = ops.get_default_graph()
            write_graph(graph.as_graph_def(add_shapes=True), self._checkpoint_dir, "graph.pbtxt")
            saver = self._get_saver()
            meta_graph_def = saver_lib.export_meta_graph(
                graph_def=graph.as_graph_def(add_shapes=True),
                saver_def=saver.saver_def if saver is not None else None, graph=graph)
            self._summary_writer.add_graph(graph)
            self._summary_writer.add_meta_graph(meta_graph_def)
        # the checkpoint holds the state at step ``global_step``
        self._save(session, global_step)
        self._timer.update_last_triggered_step(global_step)

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        stale_global_step = run_values.results
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = run_context.session.run(self._global_step_tensor)
            if self._timer.should_trigger_for_step(global_step):
                self._timer.update_last_triggered_step(global_step)
                if self._save(run_context.session, global_step):
                    run_context.request_stop()

    def end(self, session):
        last_step = session.run(self._global_step_tensor)
        if last_step != self._timer.last_triggered_step():
            self._save(session, last_step)
        for listener in self._listeners:
            listener.end(session, last_step)

    def _save(self, session, step):
        """Saves; True when a listener asks training to stop."""
        logging.info("Saving checkpoints for %d into %s.", step, self._save_path)
        for listener in self._listeners:
            listener.before_save(session, step)
        self._get_saver().save(session, self._save_path, global_step=step,
                               write_meta_graph=self._save_graph_def)
        self._summary_writer.add_session_log(
            SessionLog(status=SessionLog.CHECKPOINT, checkpoint_path=self._save_path), step)
        should_stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                logging.info("A CheckpointSaverListener requested that training be stopped. "
                             "listener: %s", listener)
                should_stop = True
        return should_stop

    def _get_saver(self):
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            return self._scaffold.saver
        key = ops.GraphKeys.SAVERS
        savers = ops.get_collection(key)
        if not savers:
            raise RuntimeError(f"No items in collection {key}. Please add a saver to the "
                               "collection or provide a saver or scaffold.")
        if len(savers) > 1:
            raise RuntimeError(f"More than one item in collection {key}. Please indicate which "
                               "one to use by passing it to the constructor.")
        self._saver = savers[0]
        return self._saver


# ------------------------------------------------------------------------------------------
# summaries
# ------------------------------------------------------------------------------------------


class StepCounterHook(SessionRunHook):
    """Logs and writes the "<global step>/sec" summary every N steps or seconds."""

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None,
                 summary_writer=None):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._last_global_step = None
        self._steps_per_run = 1

    def _set_steps_per_run(self, steps_per_run):
        self._steps_per_run = steps_per_run

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = SummaryWriterCache.get(self._output_dir)
        self._global_step_tensor = _require_global_step("StepCounterHook")
        self._summary_tag = training_util.get_global_step().op.name + "/sec"

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def _log_and_record(self, elapsed_steps, elapsed_time, global_step):
        steps_per_sec = elapsed_steps / elapsed_time if elapsed_time > 0 else float("inf")
        if self._summary_writer is not None:
            summary = Summary(value=[Summary.Value(tag=self._summary_tag,
                                                   simple_value=steps_per_sec)])
            self._summary_writer.add_summary(summary, global_step)
        logging.info("%s: %g", self._summary_tag, steps_per_sec)

    def after_run(self, run_context, run_values):
        stale_global_step = run_values.results
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = int(run_context.session.run(self._global_step_tensor))
            if self._timer.should_trigger_for_step(global_step):
                elapsed_time, elapsed_steps = self._timer.update_last_triggered_step(global_step)
                if elapsed_time is not None:
                    self._log_and_record(elapsed_steps, elapsed_time, global_step)
        if stale_global_step == self._last_global_step:
            # some optimizers (e.g. SyncReplicasOptimizer on workers) do not step every run
            logging.log_first_n(
                logging.WARN,
                "It seems that global step (tf.train.get_global_step) has not been increased. "
                "Current value (could be stable): %s vs previous value: %s. You could increase "
                "the global step by passing tf.train.get_global_step() to "
                "Optimizer.apply_gradients or Optimizer.minimize.",
                5, stale_global_step, self._last_global_step)
        self._last_global_step = stale_global_step


class SummarySaverHook(SessionRunHook):
    """Runs the summary op every N steps or seconds and writes its result to ``output_dir``."""

    def __init__(self, save_steps=None, save_secs=None, output_dir=None, summary_writer=None,
                 scaffold=None, summary_op=None):
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op = summary_op
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = SummaryWriterCache.get(self._output_dir)
        self._next_step = None
        self._global_step_tensor = _require_global_step("SummarySaverHook")

    def before_run(self, run_context):
        self._request_summary = (self._next_step is None
                                 or self._timer.should_trigger_for_step(self._next_step))
        requests = {"global_step": self._global_step_tensor}
        if self._request_summary:
            summary_op = self._get_summary_op()
            if summary_op is not None:
                requests["summary"] = summary_op
        return SessionRunArgs(requests)

    def after_run(self, run_context, run_values):
        if not self._summary_writer:
            return
        global_step = run_values.results["global_step"] + 1
        if self._next_step is None or self._request_summary:
            global_step = int(run_context.session.run(self._global_step_tensor))
        if self._next_step is None:
            self._summary_writer.add_session_log(SessionLog(status=SessionLog.START),
                                                 global_step)
        if self._request_summary:
            self._timer.update_last_triggered_step(global_step)
            for summary in run_values.results.get("summary", ()):
                self._summary_writer.add_summary(summary, global_step)
        self._next_step = global_step + 1

    def end(self, session=None):
        if self._summary_writer:
            self._summary_writer.flush()

    def _get_summary_op(self):
        summary_op = self._summary_op
        if summary_op is None:
            summary_op = self._scaffold.summary_op
        if summary_op is None:
            return None
        if not isinstance(summary_op, list):
            return [summary_op]
        return summary_op


def __getattr__(name):
    # TF's basic_session_run_hooks module also holds ProfilerHook, which tideflow keeps in its
    # own module (that module imports this one)
    if name == "ProfilerHook":
        from tideflow.train import profiler_hook

        return profiler_hook.ProfilerHook
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
