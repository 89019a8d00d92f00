"""``tf.estimator.train_and_evaluate`` (local, or as one task of a ``TF_CONFIG`` cluster),
``TrainSpec``, ``EvalSpec`` and the exporters run after evaluations."""

import collections
import os
import shutil
import time

from tideflow import logging
from tideflow.compat import as_text
from tideflow.train import basic_hooks


class TrainSpec(collections.namedtuple("TrainSpec", ["input_fn", "max_steps", "hooks"])):
    """The training half of ``train_and_evaluate``."""

    def __new__(cls, input_fn, max_steps=None, hooks=None):
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        return super().__new__(cls, input_fn=input_fn, max_steps=max_steps,
                               hooks=_check_spec_hooks(hooks))


class EvalSpec(collections.namedtuple("EvalSpec", [
        "input_fn", "steps", "name", "hooks", "exporters", "start_delay_secs",
        "throttle_secs"])):
    """The evaluation half of ``train_and_evaluate``."""

    def __new__(cls, input_fn, steps=100, name=None, hooks=None, exporters=None,
                start_delay_secs=120, throttle_secs=600):
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn}")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"`name` must be string, given: {name}")
        if start_delay_secs < 0:
            raise ValueError(f"Must specify start_delay_secs >= 0, given: {start_delay_secs}")
        if throttle_secs < 0:
            raise ValueError(f"Must specify throttle_secs >= 0, given: {throttle_secs}")
        return super().__new__(cls, input_fn=input_fn, steps=steps, name=name,
                               hooks=_check_spec_hooks(hooks),
                               exporters=_check_exporters(exporters),
                               start_delay_secs=start_delay_secs, throttle_secs=throttle_secs)


def _check_spec_hooks(hooks):
    from tideflow.estimator.estimator import _check_hooks_type

    return tuple(_check_hooks_type(
        hooks, "All hooks must be `SessionRunHook` instances, given: {}"))


def _check_exporters(exporters):
    """TF 1.15's checks of EvalSpec's exporters (each named, by a distinct string)."""
    if not exporters:
        return ()
    if isinstance(exporters, Exporter):
        exporters = [exporters]
    message = (f"`exporters` must be an Exporter, an iterable of Exporter, or `None`, "
               f"found {exporters}.")
    try:
        names = []
        for e in exporters:
            if not isinstance(e, Exporter):
                raise TypeError(message)
            if not e.name:
                raise ValueError(f"An Exporter cannot have a name that is `None` or empty. All "
                                 f"exporter names: {[x.name for x in exporters]}")
            if not isinstance(e.name, str):
                raise ValueError(  # noqa: TRY004 - as TF
                    f"An Exporter must have a string name. Given: {type(e.name)}")
            if e.name in names:
                raise ValueError(f"`exporters` must have unique names. Such a name cannot be "
                                 f"`None`. All exporter names: {[x.name for x in exporters]}")
            names.append(e.name)
    except TypeError:  # not iterable, or not an Exporter
        raise TypeError(message) from None
    return tuple(exporters)


class Exporter:
    """Exports a model after an evaluation."""

    @property
    def name(self):
        raise NotImplementedError

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        raise NotImplementedError


class _SavedModelExporter(Exporter):
    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False):
        # as TF, the name is checked by the EvalSpec the exporter joins
        self._name = name
        self._fn = serving_input_receiver_fn
        self._assets_extra = assets_extra
        self._as_text = as_text

    @property
    def name(self):
        return self._name

    def _export(self, estimator, export_path, checkpoint_path):
        return estimator.export_saved_model(export_path, self._fn,
                                            assets_extra=self._assets_extra,
                                            as_text=self._as_text,
                                            checkpoint_path=checkpoint_path)

    def _export_keeping_newest(self, estimator, export_path, checkpoint_path):
        """Exports, then deletes all but the ``self._keep`` newest exports (all are kept
        when it is None); as TF's, only 10-digit timestamp folders count as exports."""
        path = self._export(estimator, export_path, checkpoint_path)
        if self._keep:
            dirs = sorted(d for d in os.listdir(export_path) if len(d) == 10 and d.isdigit())
            for d in dirs[:-self._keep]:
                shutil.rmtree(os.path.join(export_path, d), ignore_errors=True)
        return path




class FinalExporter(_SavedModelExporter):
    """Exports once, after the final evaluation."""

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        if not is_the_final_export:
            return None
        return self._export(estimator, export_path, checkpoint_path)


class LatestExporter(_SavedModelExporter):
    """Exports after every evaluation, keeping the ``exports_to_keep`` newest."""

    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False,
                 exports_to_keep=5):
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text)
        self._keep = exports_to_keep
        if exports_to_keep is not None and exports_to_keep <= 0:
            raise ValueError("`exports_to_keep`, if provided, must be positive number")

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        return self._export_keeping_newest(estimator, export_path, checkpoint_path)


def _verify_compare_fn_args(compare_fn):
    """As TF: compare_fn is called with keyword arguments best_eval_result and
    current_eval_result, and takes no others."""
    from tideflow.estimator.estimator import fn_args

    args = set(fn_args(compare_fn))
    for required in ("best_eval_result", "current_eval_result"):
        if required not in args:
            raise ValueError(f"compare_fn ({compare_fn}) must include {required} argument.")
    extra = sorted(args - {"best_eval_result", "current_eval_result"})
    if extra:
        raise ValueError(f"compare_fn ({compare_fn}) has following not expected args: {extra}")


def _loss_smaller(best_eval_result, current_eval_result):
    key = "loss"
    if not best_eval_result or key not in best_eval_result:
        raise ValueError("best_eval_result cannot be empty or no loss is found in it.")
    if not current_eval_result or key not in current_eval_result:
        raise ValueError("current_eval_result cannot be empty or no loss is found in it.")
    return best_eval_result[key] > current_eval_result[key]


class BestExporter(_SavedModelExporter):
    """Exports when an evaluation is the best so far by ``compare_fn`` (lower loss by
    default), keeping the ``exports_to_keep`` newest exports."""

    def __init__(self, name="best_exporter", serving_input_receiver_fn=None,
                 event_file_pattern="eval/*.tfevents.*", compare_fn=_loss_smaller,
                 assets_extra=None, as_text=False, exports_to_keep=5):
        if compare_fn is None:
            raise ValueError("`compare_fn` must not be None.")
        _verify_compare_fn_args(compare_fn)
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text)
        self._compare_fn = compare_fn
        self._event_file_pattern = event_file_pattern
        self._keep = exports_to_keep
        self._best = None
        self._model_dir = None
        if exports_to_keep is not None and exports_to_keep <= 0:
            raise ValueError("`exports_to_keep`, if provided, must be a positive number. Got "
                             f"{exports_to_keep}")

    def _best_from_events(self, model_dir):
        import glob

        from tideflow.summary.summary_iterator import summary_iterator

        best = None
        for path in glob.glob(os.path.join(model_dir, self._event_file_pattern)):
            for event in summary_iterator(path):
                if not event.HasField("summary"):
                    continue
                result = {v.tag: v.simple_value for v in event.summary.value
                          if v.HasField("simple_value")}
                # TF passes these two positionally (by keyword after each evaluation)
                if result and (best is None or self._compare_fn(best, result)):
                    best = result
        return best

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        # as TF, the best result so far is first read from the eval events, which already
        # hold this evaluation's (so the very first evaluation exports nothing); again for
        # each new model_dir
        if self._model_dir != estimator.model_dir and self._event_file_pattern:
            self._model_dir = estimator.model_dir
            self._best = self._best_from_events(as_text(estimator.model_dir))
        if self._best is not None and not self._compare_fn(
                best_eval_result=self._best, current_eval_result=eval_result):
            return None
        self._best = eval_result
        return self._export_keeping_newest(estimator, export_path, checkpoint_path)


class _Evaluator:
    def __init__(self, estimator, eval_spec, max_steps):
        self._estimator = estimator
        self._spec = eval_spec
        self._max_steps = max_steps
        self.last_checkpoint = None

    def evaluate_and_export(self):
        latest = self._estimator.latest_checkpoint()
        if not latest:
            logging.info("Estimator is not trained yet. Will start an evaluation when a "
                         "checkpoint is ready.")
            return None, []
        if latest == self.last_checkpoint:
            logging.info("Skipping the current checkpoint eval due to throttle secs.")
            return None, []
        metrics = self._estimator.evaluate(input_fn=self._spec.input_fn,
                                           steps=self._spec.steps, name=self._spec.name,
                                           checkpoint_path=latest, hooks=self._spec.hooks)
        self.last_checkpoint = latest
        is_final = self._max_steps is not None and metrics["global_step"] >= self._max_steps
        exports = []
        for exporter in self._spec.exporters:
            path = os.path.join(as_text(self._estimator.model_dir), "export", exporter.name)
            exports.append(exporter.export(self._estimator, path, latest, metrics, is_final))
        return metrics, exports


class _EvaluateOnSaveListener(basic_hooks.CheckpointSaverListener):
    """As TF 1.15's: evaluates after each checkpoint but the first (the untrained model's),
    at most every ``throttle_secs``, and at the end when the last step was not evaluated."""

    def __init__(self, evaluator, throttle_secs):
        self._evaluator = evaluator
        self._throttle = throttle_secs
        self.result = None
        self.export_results = None

    def begin(self):
        self._timer = basic_hooks.SecondOrStepTimer(every_secs=self._throttle)
        self._first = True

    def after_save(self, session, global_step_value):
        del session
        if self._first:
            self._first = False
            return
        if self._timer.should_trigger_for_step(global_step_value):
            self._evaluate(global_step_value)
        else:
            logging.info(f"Skip the current checkpoint eval due to throttle secs "
                         f"({self._throttle} secs).")

    def end(self, session, global_step_value):
        del session
        if global_step_value != self._timer.last_triggered_step():
            self._evaluate(global_step_value)

    def _evaluate(self, global_step_value):
        self._timer.update_last_triggered_step(global_step_value)
        metrics, self.export_results = self._evaluator.evaluate_and_export()
        if metrics is None:
            raise RuntimeError("There was no new checkpoint after the training. Eval status: "
                               "missing checkpoint")
        self.result = metrics


def train_and_evaluate(estimator, train_spec, eval_spec):
    """Trains ``estimator`` and evaluates it after checkpoints (at most every
    ``throttle_secs``) and at the end; returns ``(eval metrics, export results)``."""
    from tideflow.estimator.estimator import Estimator

    # (TF 1.15 checks the eval spec first)
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError(f"`eval_spec` must have type `tf.estimator.EvalSpec`. Got: "
                        f"{type(eval_spec)}")
    if not isinstance(estimator, Estimator):
        raise TypeError(f"`estimator` must have type `tf.estimator.Estimator`. Got: "
                        f"{type(estimator)}")
    if not isinstance(train_spec, TrainSpec):
        raise TypeError(f"`train_spec` must have type `tf.estimator.TrainSpec`. Got: "
                        f"{type(train_spec)}")
    config = estimator.config
    logging.info("Not using Distribute Coordinator.")
    if config.task_type == "evaluator" and config.task_id > 0:
        raise ValueError(f"For distributed training, there can only be one `evaluator` task "
                         f"(with task id 0).  Given task id {config.task_id}")
    if not config.cluster_spec and config.task_type != "evaluator":
        return _run_local(estimator, train_spec, eval_spec)
    return _run_distributed(estimator, train_spec, eval_spec)


# a worker waits (task_id + 1) * 5 s, at most 60 s, before training (the chief initializes)
_DELAY_SECS_PER_WORKER = 5
_MAX_DELAY_SECS = 60


def _start_std_server(config):
    from tideflow.distributed.server import Server

    if not config.cluster_spec or not config.task_type or config.task_id is None:
        raise RuntimeError("Could not start server; be sure to specify cluster_spec, task_type, "
                           "and task in RunConfig or set the TF_CONFIG environment variable.")
    server = Server(config.cluster_spec, job_name=config.task_type,
                    task_index=config.task_id, config=config.session_config, start=False,
                    protocol=config.protocol)
    server.start()
    return server


def _run_distributed(estimator, train_spec, eval_spec):
    config = estimator.config
    task_type = config.task_type
    if task_type == "ps":
        logging.info("Start Tensorflow server.")
        _start_std_server(config).join()
        return None
    if task_type == "evaluator":
        return _run_evaluator(estimator, train_spec, eval_spec)
    if task_type not in ("chief", "worker", "master"):
        raise ValueError(f"Task type {task_type} is not supported. Supported task types are "
                         "['chief', 'worker', 'ps', 'evaluator', 'master']")
    _start_std_server(config)
    if task_type == "worker":
        max_delay = _MAX_DELAY_SECS
        if config.experimental_max_worker_delay_secs is not None:
            max_delay = int(config.experimental_max_worker_delay_secs)
        delay = min(max_delay, (config.task_id + 1) * _DELAY_SECS_PER_WORKER)
        if delay > 0:
            logging.info("Waiting %d secs before starting training.", delay)
            time.sleep(delay)
    if task_type == "master" and config.is_chief:  # the legacy master also evaluates
        _train_evaluating_checkpoints(estimator, train_spec, eval_spec)
        return None
    estimator.train(input_fn=train_spec.input_fn, max_steps=train_spec.max_steps,
                    hooks=list(train_spec.hooks))
    return None


def _run_evaluator(estimator, train_spec, eval_spec):
    """Evaluates each new checkpoint (at most every ``throttle_secs``) until one reaches
    ``train_spec.max_steps``."""
    if eval_spec.start_delay_secs:
        logging.info("Waiting %f secs before starting eval.", eval_spec.start_delay_secs)
        time.sleep(eval_spec.start_delay_secs)
    evaluator = _Evaluator(estimator, eval_spec, train_spec.max_steps)
    while True:
        start = time.time()
        metrics, exports = evaluator.evaluate_and_export()
        del exports
        if metrics is not None:
            step = metrics.get("global_step")
            if step and train_spec.max_steps and step >= train_spec.max_steps:
                logging.info("Exiting evaluation, global_step=%s >= train max_steps=%s", step,
                             train_spec.max_steps)
                return  # as TF, the distributed tasks return None
        else:
            logging.warning("No new checkpoint ready for evaluation. Skip the current "
                            "evaluation pass as evaluation results are expected to be same "
                            "for the same checkpoint.")
        wait = eval_spec.throttle_secs - (time.time() - start)
        if wait > 0:
            logging.info("Waiting %f secs before starting next eval run.", wait)
            time.sleep(wait)


def _run_local(estimator, train_spec, eval_spec):
    logging.info("Running training and evaluation locally (non-distributed).")
    config = estimator.config
    logging.info(f"Start train and evaluate loop. The evaluate will happen after every "
                 f"checkpoint. Checkpoint frequency is determined based on RunConfig "
                 f"arguments: save_checkpoints_steps {config.save_checkpoints_steps} or "
                 f"save_checkpoints_secs {config.save_checkpoints_secs}.")
    return _train_evaluating_checkpoints(estimator, train_spec, eval_spec)


def _train_evaluating_checkpoints(estimator, train_spec, eval_spec):
    """TF 1.15's local loop: the listener's last evaluation and export results (None, None
    when nothing was evaluated)."""
    evaluator = _Evaluator(estimator, eval_spec, train_spec.max_steps)
    listener = _EvaluateOnSaveListener(evaluator, eval_spec.throttle_secs)
    estimator.train(input_fn=train_spec.input_fn, max_steps=train_spec.max_steps,
                    hooks=list(train_spec.hooks), saving_listeners=[listener])
    return listener.result, listener.export_results


__all__ = ["BestExporter", "EvalSpec", "Exporter", "FinalExporter", "LatestExporter", "TrainSpec",
           "train_and_evaluate"]
