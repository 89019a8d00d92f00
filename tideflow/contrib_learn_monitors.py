"""``tf.contrib.learn.monitors``' callback monitors (TF 0.12-1.x): ``BaseMonitor`` with its
begin/step_begin/step_end/post_step/end callbacks, ``EveryN`` and the stock monitors built on
it, run by an Estimator through one session hook (``RunHookAdapterForMonitors``)."""

import copy
import time

import numpy as np

from tideflow import logging as _logging
from tideflow.framework import ops as _ops
from tideflow.train import session_run_hook as _hook_lib


class BaseMonitor:
    """A monitor's callbacks, each of which a subclass that overrides it must call up to:
    ``begin(max_steps)``, ``step_begin(step)`` (tensors or names to run with the step),
    ``step_end(step, outputs)`` (True stops training), ``post_step(step, session)``,
    ``end(session)``; ``epoch_begin``/``epoch_end`` are kept for old callers."""

    def __init__(self):
        self._begun = False
        self._current_epoch = None
        self._current_step = None
        self._max_steps = None
        self._estimator = None

    @property
    def run_on_all_workers(self):
        return False

    def set_estimator(self, estimator):
        if estimator is None:
            raise ValueError("Missing estimator.")
        self._estimator = estimator

    def begin(self, max_steps=None):
        if self._begun:
            raise ValueError("begin called twice without end.")
        self._max_steps = max_steps
        self._begun = True

    def end(self, session=None):
        if not self._begun:
            raise ValueError("end called without begin.")
        self._max_steps = None
        self._begun = False

    def epoch_begin(self, epoch):
        if self._current_epoch is not None:
            raise ValueError("epoch_begin called twice without epoch_end.")
        if epoch < 0:
            raise ValueError(f"Invalid epoch {epoch}.")
        self._current_epoch = epoch

    def epoch_end(self, epoch):
        if self._current_epoch != epoch:
            # (TF passes the values as extra arguments of the error, unformatted)
            raise ValueError("epoch_end expected %s but got %s.", self._current_epoch, epoch)
        self._current_epoch = None

    def step_begin(self, step):
        if step < 0 or (self._max_steps is not None and step > self._max_steps):
            raise ValueError(f"Invalid step {step}.")
        self._current_step = step
        return []

    def step_end(self, step, output):
        if self._current_step != step:
            raise ValueError("step_end expected %s but got %s.", self._current_step, step)
        self._current_step = None
        return False

    def post_step(self, step, session):
        pass


def _extract_output(outputs, request):
    return outputs[request] if request in outputs else outputs[request.name]


class EveryN(BaseMonitor):
    """Calls ``every_n_step_begin``/``every_n_step_end``/``every_n_post_step`` on the first
    ``first_n_steps`` steps, then once ``every_n_steps`` steps have passed since the last
    active one (and at ``max_steps``); ``end`` runs ``every_n_post_step`` for the last step
    if that step was not an active one."""

    def __init__(self, every_n_steps=100, first_n_steps=1):
        super().__init__()
        self._every_n_steps = every_n_steps
        self._first_n_steps = first_n_steps
        self._last_successful_step = None
        self._last_active_step = 0
        self._every_n_step_begin_called = False

    def every_n_step_begin(self, step):
        return []

    def every_n_step_end(self, step, outputs):
        return False

    def every_n_post_step(self, step, session):
        pass

    def step_begin(self, step):
        super().step_begin(step)
        self._every_n_step_begin_called = (
            step <= self._first_n_steps
            or step >= self._every_n_steps + self._last_active_step
            or step == self._max_steps)
        return self.every_n_step_begin(step) if self._every_n_step_begin_called else []

    def step_end(self, step, output):
        super().step_end(step, output)
        return self.every_n_step_end(step, output) if self._every_n_step_begin_called else False

    def post_step(self, step, session):
        super().post_step(step, session)
        if self._every_n_step_begin_called:
            self.every_n_post_step(step, session)
            self._last_active_step = step
        self._last_successful_step = step

    def end(self, session=None):
        super().end(session=session)
        if self._last_successful_step != self._last_active_step:
            self.every_n_post_step(self._last_successful_step, session)


class StopAtStep(BaseMonitor):
    """Requests a stop after ``num_steps`` steps (counted from the first it sees), or at
    ``last_step``; runs on every worker."""

    def __init__(self, num_steps=None, last_step=None):
        super().__init__()
        from tideflow.train.basic_hooks import check_stop_arguments

        check_stop_arguments(num_steps, last_step)
        self._num_steps = num_steps
        self._last_step = last_step

    @property
    def run_on_all_workers(self):
        return True

    def step_begin(self, step):
        super().step_begin(step)
        if self._last_step is None:
            self._last_step = step + self._num_steps - 1
        return []

    def step_end(self, step, output):
        super().step_end(step, output)
        return step >= self._last_step


class ValidationMonitor(EveryN):
    """Evaluates the estimator's newest checkpoint, first at step ``every_n_steps`` and then
    every ``every_n_steps`` steps, when it is new and ``check_interval_secs`` have passed since
    the last look; with ``early_stopping_rounds`` it stops training once
    ``early_stopping_metric`` has not improved for that many steps."""

    def __init__(self, x=None, y=None, input_fn=None, batch_size=None, eval_steps=None,
                 every_n_steps=100, metrics=None, hooks=None, early_stopping_rounds=None,
                 early_stopping_metric="loss", early_stopping_metric_minimize=True, name=None,
                 check_interval_secs=5):
        super().__init__(every_n_steps=every_n_steps, first_n_steps=-1)
        if x is None and input_fn is None:
            raise ValueError("Either x or input_fn should be provided.")
        self.x, self.y, self.input_fn, self.batch_size = x, y, input_fn, batch_size
        self.eval_steps, self.metrics, self.hooks, self.name = eval_steps, metrics, hooks, name
        self.early_stopping_rounds = early_stopping_rounds
        self.early_stopping_metric = early_stopping_metric
        self.early_stopping_metric_minimize = early_stopping_metric_minimize
        self._best_value_step = None
        self._best_value = None
        self._best_metrics = None
        self._early_stopped = False
        self._latest_path = None
        self._latest_path_step = None
        self._last_checkpoint_check_time = None
        self._check_interval_secs = check_interval_secs

    early_stopped = property(lambda self: self._early_stopped)
    best_step = property(lambda self: self._best_value_step)
    best_value = property(lambda self: self._best_value)
    best_metrics = property(lambda self: self._best_metrics)

    def _evaluate_estimator(self):
        est = self._estimator
        if getattr(est, "_core", None) is None:  # a tf.estimator.Estimator
            if any(a is not None for a in (self.x, self.y, self.batch_size, self.metrics)):
                raise ValueError("tf.estimator.Estimator does not support following "
                                 "arguments: x, y, batch_size, metrics. Should set as `None` "
                                 "in ValidationMonitor")
            return est.evaluate(input_fn=self.input_fn, steps=self.eval_steps,
                                hooks=self.hooks, name=self.name)
        return est.evaluate(x=self.x, y=self.y, input_fn=self.input_fn,
                            batch_size=self.batch_size, steps=self.eval_steps,
                            metrics=self.metrics, hooks=self.hooks, name=self.name)

    def every_n_step_end(self, step, outputs):
        super().every_n_step_end(step, outputs)
        if self._estimator is None:
            raise ValueError("Missing call to set_estimator.")
        now = time.time()
        if (self._check_interval_secs is not None
                and self._last_checkpoint_check_time is not None
                and now - self._last_checkpoint_check_time <= self._check_interval_secs):
            return False
        self._last_checkpoint_check_time = now
        from tideflow.train import checkpoint_management

        latest = checkpoint_management.latest_checkpoint(self._estimator.model_dir)
        if latest is None or latest == self._latest_path:
            return False
        self._latest_path, self._latest_path_step = latest, step
        results = self._evaluate_estimator()
        _logging.info("Validation (step %d): %s", step,
                      ", ".join(f"{k} = {v!s}" for k, v in results.items()))
        if self.early_stopping_rounds is None:
            return False
        if self.early_stopping_metric not in results:
            raise ValueError(f"Metric {self.early_stopping_metric} missing from outputs "
                             f"{set(results.keys())}.")
        value = results[self.early_stopping_metric]
        if self._best_value is None or (value < self._best_value
                                        if self.early_stopping_metric_minimize
                                        else value > self._best_value):
            self._best_value = value
            self._best_metrics = copy.deepcopy(results)
            self._best_value_step = step
        if step - self._best_value_step >= self.early_stopping_rounds:
            _logging.info(f"Stopping. Best step: {self._best_value_step} with "
                          f"{self.early_stopping_metric} = {self._best_value}.")
            self._early_stopped = True
            return True
        return False


class PrintTensor(EveryN):
    """Logs ``tensor_names`` (a list, or a dict of tags to names) every N steps."""

    def __init__(self, tensor_names, every_n=100, first_n=1):
        super().__init__(every_n, first_n)
        if not isinstance(tensor_names, dict):
            tensor_names = {item: item for item in tensor_names}
        self._tensor_names = tensor_names

    def every_n_step_begin(self, step):
        super().every_n_step_begin(step)
        return list(self._tensor_names.values())

    def every_n_step_end(self, step, outputs):
        super().every_n_step_end(step, outputs)
        stats = [f"{tag} = {outputs[name]!s}" for tag, name in self._tensor_names.items()
                 if name in outputs]
        _logging.info("Step %d: %s", step, ", ".join(stats))


class LoggingTrainable(EveryN):
    """Logs the values of the trainable variables (names matching ``scope``) every N
    steps."""

    def __init__(self, scope=None, every_n=100, first_n=1):
        super().__init__(every_n, first_n)
        self._scope = scope
        self._names = {}

    def every_n_step_begin(self, step):
        super().every_n_step_begin(step)
        trainables = _ops.get_collection(_ops.GraphKeys.TRAINABLE_VARIABLES, scope=self._scope)
        self._names = {var.name: var.value().name for var in trainables}
        return list(self._names.values())

    def every_n_step_end(self, step, outputs):
        super().every_n_step_end(step, outputs)
        stats = [f"{tag} = {_extract_output(outputs, name)!s}"
                 for tag, name in self._names.items() if name in outputs]
        _logging.info("Logging Trainable: Step %d: %s", step, ", ".join(stats))


def _file_writer(directory):
    from tideflow.summary.writer import FileWriterCache

    return FileWriterCache.get(directory)


class SummarySaver(EveryN):
    """Writes the serialized ``summary_op`` (or the scaffold's) every ``save_steps`` steps to
    ``summary_writer``, or a writer for ``output_dir`` (else the estimator's model_dir)."""

    def __init__(self, summary_op, save_steps=100, output_dir=None, summary_writer=None,
                 scaffold=None):
        super().__init__(every_n_steps=save_steps)
        self._summary_op = summary_op
        self._summary_writer = summary_writer
        if summary_writer is None and output_dir:
            from tideflow.summary.writer import FileWriter

            self._summary_writer = FileWriter(output_dir)
        self._scaffold = scaffold

    def set_estimator(self, estimator):
        super().set_estimator(estimator)
        if self._summary_writer is None:
            from tideflow.summary.writer import FileWriter

            self._summary_writer = FileWriter(estimator.model_dir)

    def every_n_step_begin(self, step):
        super().every_n_step_begin(step)
        if self._summary_op is None and self._scaffold is not None:
            self._summary_op = self._scaffold.summary_op
        return [self._summary_op] if self._summary_op is not None else []

    def every_n_step_end(self, step, outputs):
        super().every_n_step_end(step, outputs)
        if self._summary_op is not None and self._summary_writer:
            self._summary_writer.add_summary(_extract_output(outputs, self._summary_op), step)
        return False

    def end(self, session=None):
        super().end(session=session)
        if self._summary_writer:
            self._summary_writer.flush()


class CaptureVariable(EveryN):
    """Keeps the value of the tensor named ``var_name`` (with its ``:0``) at each active step:
    ``values`` maps steps to values."""

    def __init__(self, var_name, every_n=100, first_n=1):
        super().__init__(every_n, first_n)
        self._var_name = var_name
        self._var_values = {}

    @property
    def values(self):
        return self._var_values

    def every_n_step_begin(self, step):
        super().every_n_step_begin(step)
        return [self._var_name]

    def every_n_step_end(self, step, outputs):
        super().every_n_step_end(step, outputs)
        self._var_values[step] = _extract_output(outputs, self._var_name)


class StepCounter(EveryN):
    """Writes ``global_step/sec`` every N steps (from the second active step on)."""

    def __init__(self, every_n_steps=100, output_dir=None, summary_writer=None):
        super().__init__(every_n_steps=every_n_steps)
        self._summary_tag = "global_step/sec"
        self._last_reported_step = None
        self._last_reported_time = None
        self._summary_writer = summary_writer
        if summary_writer is None and output_dir:
            self._summary_writer = _file_writer(output_dir)

    def set_estimator(self, estimator):
        super().set_estimator(estimator)
        if self._summary_writer is None:
            self._summary_writer = _file_writer(estimator.model_dir)

    def every_n_step_end(self, current_step, outputs):
        from tideflow.protos import summary_pb2

        now = time.time()
        if self._last_reported_time is not None and self._summary_writer:
            rate = (current_step - self._last_reported_step) / (now - self._last_reported_time)
            self._summary_writer.add_summary(summary_pb2.Summary(value=[
                summary_pb2.Summary.Value(tag=self._summary_tag, simple_value=rate)]),
                current_step)
        self._last_reported_step = current_step
        self._last_reported_time = now


class NanLossDuringTrainingError(RuntimeError):
    def __str__(self):
        return "NaN loss during training."


class NanLoss(EveryN):
    """Checks ``loss_tensor`` every N steps: a NaN raises ``NanLossDuringTrainingError`` (or,
    with ``fail_on_nan_loss=False``, logs a warning and stops training)."""

    def __init__(self, loss_tensor, every_n_steps=100, fail_on_nan_loss=True):
        super().__init__(every_n_steps=every_n_steps)
        self._loss_tensor = loss_tensor
        self._fail_on_nan_loss = fail_on_nan_loss

    def every_n_step_begin(self, step):
        super().every_n_step_begin(step)
        return [self._loss_tensor]

    def every_n_step_end(self, step, outputs):
        super().every_n_step_end(step, outputs)
        if np.isnan(_extract_output(outputs, self._loss_tensor)):
            if self._fail_on_nan_loss:
                _logging.error("Model diverged with loss = NaN.")
                raise NanLossDuringTrainingError
            _logging.warning("Model diverged with loss = NaN.")
            return True
        return False


def _as_graph_element(obj):
    graph = _ops.get_default_graph()
    if isinstance(obj, str):
        return graph.as_graph_element(obj)
    if getattr(obj, "graph", None) is not graph:
        raise ValueError(f"Passed {obj} should have graph attribute that is equal to current "
                         f"graph {graph}.")
    return obj


class RunHookAdapterForMonitors(_hook_lib.SessionRunHook):
    """Runs ``monitors`` from one session hook: each step is the global step after the
    previous run plus one; what their ``step_begin`` asks for is fetched with the step."""

    def __init__(self, monitors):
        self._monitors = monitors

    def begin(self):
        from tideflow.train import training_util

        self._last_step = None
        self._global_step_tensor = training_util.get_global_step()
        for m in self._monitors:
            m.begin(max_steps=None)

    def before_run(self, run_context):
        if self._last_step is None:
            self._last_step = run_context.session.run(self._global_step_tensor) + 1
        request = {self._global_step_tensor: self._global_step_tensor}
        fetches = []
        for m in self._monitors:
            wanted = m.step_begin(self._last_step)
            if wanted:
                if not isinstance(wanted, list):
                    raise ValueError("Monitor.step_begin should return a list.")
                fetches.extend(wanted)
        if fetches:
            request["monitors"] = {f: _as_graph_element(f) for f in fetches}
        return _hook_lib.SessionRunArgs(request)

    def after_run(self, run_context, run_values):
        result = run_values.results.get("monitors", {})
        for m in self._monitors:
            if m.step_end(self._last_step, result):
                run_context.request_stop()
        for m in self._monitors:
            m.post_step(self._last_step, run_context.session)
        self._last_step = run_values.results[self._global_step_tensor] + 1

    def end(self, session):
        self._last_step = None
        for m in self._monitors:
            m.end(session=session)


def get_default_monitors(loss_op=None, summary_op=None, save_summary_steps=100,
                         output_dir=None, summary_writer=None):
    """A ``PrintTensor`` of ``loss_op`` and a ``SummarySaver`` of ``summary_op`` (each when
    given)."""
    monitors = []
    if loss_op is not None:
        monitors.append(PrintTensor(tensor_names={"loss": loss_op.name}))
    if summary_op is not None:
        monitors.append(SummarySaver(summary_op, save_steps=save_summary_steps,
                                     output_dir=output_dir, summary_writer=summary_writer))
    return monitors


def wrap_monitors(monitors_or_hooks, estimator, is_chief=True):
    """The hooks of ``monitors_or_hooks``, its callback monitors (those that run on this
    worker) given ``estimator`` and run by one ``RunHookAdapterForMonitors`` at the end."""
    items = list(monitors_or_hooks or [])
    monitors = [m for m in items if isinstance(m, BaseMonitor)]
    hooks = [m for m in items if not isinstance(m, BaseMonitor)]
    if not is_chief:
        monitors = [m for m in monitors if m.run_on_all_workers]
    for m in monitors:
        m.set_estimator(estimator)
    if monitors:
        hooks.append(RunHookAdapterForMonitors(monitors))
    return hooks
