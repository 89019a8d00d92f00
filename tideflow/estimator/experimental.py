"""``tf.estimator.experimental``: early-stopping hooks that read the evaluation results an
Estimator wrote to its eval directory."""

import collections
import glob
import operator
import os

from tideflow import logging
from tideflow.train import basic_hooks, session_run_hook, training_util


def read_eval_metrics(eval_dir):
    """{global step: {tag: value}} of the scalar summaries in ``eval_dir``'s event files,
    sorted by step."""
    from tideflow.summary.summary_iterator import summary_iterator

    results = collections.defaultdict(dict)
    for path in sorted(glob.glob(os.path.join(eval_dir, "events.out.tfevents.*"))):
        for event in summary_iterator(path):
            if not event.HasField("summary"):
                continue
            for value in event.summary.value:
                if value.HasField("simple_value"):
                    results[event.step][value.tag] = value.simple_value
    return collections.OrderedDict(sorted(results.items()))


class _StopOnPredicateHook(session_run_hook.SessionRunHook):
    """Requests a stop when ``should_stop_fn()`` says so, checked every N seconds or steps."""

    def __init__(self, should_stop_fn, run_every_secs=60, run_every_steps=None):
        if not callable(should_stop_fn):
            raise TypeError(f"`should_stop_fn` must be callable. Given: {should_stop_fn}")
        self._fn = should_stop_fn
        self._timer = basic_hooks.SecondOrStepTimer(every_secs=run_every_secs,
                                                    every_steps=run_every_steps)

    def begin(self):
        self._global_step = training_util.get_global_step()
        if self._global_step is None:
            raise RuntimeError("Global step should be created to use early stopping hooks.")

    def before_run(self, run_context):
        return session_run_hook.SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values):
        step = int(run_values.results)
        # checked at the first step, then every N seconds or steps
        if self._timer.should_trigger_for_step(step):
            self._timer.update_last_triggered_step(step)
            if self._fn():
                logging.info("Requesting early stopping at global step %d", step)
                run_context.request_stop()


def make_early_stopping_hook(estimator, should_stop_fn, run_every_secs=60,
                             run_every_steps=None):
    """A hook stopping training when ``should_stop_fn()`` returns True."""
    from tideflow.estimator.estimator import Estimator

    if not isinstance(estimator, Estimator):
        raise TypeError(f"`estimator` must have type `tf.estimator.Estimator`. Got: "
                        f"{type(estimator)}")
    if run_every_secs is not None and run_every_steps is not None:
        raise ValueError("Only one of `run_every_secs` and `run_every_steps` must be set.")
    return _StopOnPredicateHook(should_stop_fn, run_every_secs, run_every_steps)


def _threshold_hook(estimator, metric_name, threshold, better, eval_dir, min_steps,
                    run_every_secs, run_every_steps):
    eval_dir = eval_dir or estimator.eval_dir()

    def should_stop():
        for step, metrics in read_eval_metrics(eval_dir).items():
            if step < min_steps:
                continue
            if metric_name not in metrics:
                raise ValueError(f"Metric {metric_name} not found in eval metrics at step "
                                 f"{step}.")
            if better(metrics[metric_name], threshold):
                logging.info("At step %s, metric %r has value %s which crosses the threshold "
                             "%s. Stopping training.", step, metric_name, metrics[metric_name],
                             threshold)
                return True
        return False

    return make_early_stopping_hook(estimator, should_stop, run_every_secs, run_every_steps)


def _no_improvement_hook(estimator, metric_name, max_steps, better, eval_dir, min_steps,
                         run_every_secs, run_every_steps):
    eval_dir = eval_dir or estimator.eval_dir()

    def should_stop():
        best, best_step = None, None
        for step, metrics in read_eval_metrics(eval_dir).items():
            if step < min_steps:
                continue
            if metric_name not in metrics:
                raise ValueError(f"Metric {metric_name} not found in eval metrics at step "
                                 f"{step}.")
            value = metrics[metric_name]
            if best is None or better(value, best):
                best, best_step = value, step
            if step - best_step >= max_steps:
                logging.info("No improvement of metric %r in the last %s steps, which is "
                             "greater than or equal to max steps (%s) configured for early "
                             "stopping.", metric_name, step - best_step, max_steps)
                return True
        return False

    return make_early_stopping_hook(estimator, should_stop, run_every_secs, run_every_steps)


def stop_if_higher_hook(estimator, metric_name, threshold, eval_dir=None, min_steps=0,
                        run_every_secs=60, run_every_steps=None):
    """Stops training once an evaluation's ``metric_name`` is above ``threshold``."""
    return _threshold_hook(estimator, metric_name, threshold, operator.gt, eval_dir,
                           min_steps, run_every_secs, run_every_steps)


def stop_if_lower_hook(estimator, metric_name, threshold, eval_dir=None, min_steps=0,
                       run_every_secs=60, run_every_steps=None):
    """Stops training once an evaluation's ``metric_name`` is below ``threshold``."""
    return _threshold_hook(estimator, metric_name, threshold, operator.lt, eval_dir,
                           min_steps, run_every_secs, run_every_steps)


def stop_if_no_increase_hook(estimator, metric_name, max_steps_without_increase,
                             eval_dir=None, min_steps=0, run_every_secs=60,
                             run_every_steps=None):
    """Stops training when ``metric_name`` has not increased for that many steps."""
    return _no_improvement_hook(estimator, metric_name, max_steps_without_increase,
                                operator.gt, eval_dir, min_steps, run_every_secs,
                                run_every_steps)


def stop_if_no_decrease_hook(estimator, metric_name, max_steps_without_decrease,
                             eval_dir=None, min_steps=0, run_every_secs=60,
                             run_every_steps=None):
    """Stops training when ``metric_name`` has not decreased for that many steps."""
    return _no_improvement_hook(estimator, metric_name, max_steps_without_decrease,
                                operator.lt, eval_dir, min_steps, run_every_secs,
                                run_every_steps)


__all__ = ["make_early_stopping_hook", "stop_if_higher_hook", "stop_if_lower_hook",
           "stop_if_no_decrease_hook", "stop_if_no_increase_hook"]
