"""``tf.estimator.experimental``: early-stopping hooks that read the evaluation results an
Estimator wrote to its eval directory."""

import collections
import glob
import operator
import os

from tideflow import logging
from tideflow.estimator.export import build_raw_supervised_input_receiver_fn
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


def _get_or_create_stop_var():
    # the flag a chief's hook sets for the other workers' hooks to read (TF 1.x's variable,
    # so it is in the checkpoints too)
    from tideflow.framework import dtypes, ops
    from tideflow.ops import init_ops, variable_scope

    with variable_scope.variable_scope("signal_early_stopping", values=[],
                                       reuse=variable_scope.AUTO_REUSE):
        return variable_scope.get_variable(
            "STOP", shape=[], dtype=dtypes.bool,
            initializer=init_ops.constant_initializer(False),
            collections=[ops.GraphKeys.GLOBAL_VARIABLES], trainable=False)


class _StopOnPredicateHook(session_run_hook.SessionRunHook):
    """Requests a stop when ``should_stop_fn()`` says so, checked every N seconds or steps,
    and sets the stop flag the other workers read."""

    def __init__(self, should_stop_fn, run_every_secs=60, run_every_steps=None):
        if not callable(should_stop_fn):
            raise TypeError("`should_stop_fn` must be callable.")
        self._fn = should_stop_fn
        self._timer = basic_hooks.SecondOrStepTimer(every_secs=run_every_secs,
                                                    every_steps=run_every_steps)

    def begin(self):
        from tideflow.ops import state_ops

        self._global_step = training_util.get_global_step()
        if self._global_step is None:
            raise RuntimeError("Global step should be created to use early stopping hooks.")
        self._stop_var = _get_or_create_stop_var()
        self._stop_op = state_ops.assign(self._stop_var, True)

    def before_run(self, run_context):
        return session_run_hook.SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values):
        step = int(run_values.results)
        # checked at the first step, then every N seconds or steps
        if self._timer.should_trigger_for_step(step):
            self._timer.update_last_triggered_step(step)
            if self._fn():
                logging.info("Requesting early stopping at global step %d", step)
                run_context.session.run(self._stop_op)
                run_context.request_stop()


class _CheckForStoppingHook(session_run_hook.SessionRunHook):
    """A non-chief worker's hook: stops once the chief has set the stop flag."""

    def begin(self):
        self._stop_var = _get_or_create_stop_var()

    def before_run(self, run_context):
        return session_run_hook.SessionRunArgs(self._stop_var)

    def after_run(self, run_context, run_values):
        if run_values.results:
            logging.info("Early stopping requested, suspending run.")
            run_context.request_stop()


def make_early_stopping_hook(estimator, should_stop_fn, run_every_secs=60,
                             run_every_steps=None):
    """A hook that stops training when ``should_stop_fn()`` returns True (on the chief; the
    other workers stop when it has)."""
    from tideflow.estimator.estimator import Estimator

    if not isinstance(estimator, Estimator):
        raise TypeError(f"`estimator` must have type `tf.estimator.Estimator`. Got: "
                        f"{type(estimator)}")
    if run_every_secs is not None and run_every_steps is not None:
        raise ValueError("Only one of `run_every_secs` and `run_every_steps` must be set.")
    if not estimator.config.is_chief:
        return _CheckForStoppingHook()
    return _StopOnPredicateHook(should_stop_fn, run_every_secs, run_every_steps)


def _threshold_hook(estimator, metric_name, threshold, higher_is_better, eval_dir, min_steps,
                    run_every_secs, run_every_steps):
    eval_dir = eval_dir or estimator.eval_dir()
    better = operator.gt if higher_is_better else operator.lt
    greater_or_lesser = "greater than" if higher_is_better else "less than"

    def should_stop():
        for step, metrics in read_eval_metrics(eval_dir).items():
            if step < min_steps:
                continue
            value = metrics[metric_name]
            if better(value, threshold):
                logging.info('At step %s, metric "%s" has value %s which is %s the configured '
                             "threshold (%s) for early stopping.", step, metric_name, value,
                             greater_or_lesser, threshold)
                return True
        return False

    return make_early_stopping_hook(estimator, should_stop, run_every_secs, run_every_steps)


def _no_improvement_hook(estimator, metric_name, max_steps, higher_is_better, eval_dir,
                         min_steps, run_every_secs, run_every_steps):
    eval_dir = eval_dir or estimator.eval_dir()
    better = operator.gt if higher_is_better else operator.lt
    increase_or_decrease = "increase" if higher_is_better else "decrease"

    def should_stop():
        best, best_step = None, None
        for step, metrics in read_eval_metrics(eval_dir).items():
            if step < min_steps:
                continue
            value = metrics[metric_name]
            if best is None or better(value, best):
                best, best_step = value, step
            if step - best_step >= max_steps:
                logging.info('No %s in metric "%s" for %s steps, which is greater than or '
                             "equal to max steps (%s) configured for early stopping.",
                             increase_or_decrease, metric_name, step - best_step, max_steps)
                return True
        return False

    return make_early_stopping_hook(estimator, should_stop, run_every_secs, run_every_steps)


def stop_if_higher_hook(estimator, metric_name, threshold, eval_dir=None, min_steps=0,
                        run_every_secs=60, run_every_steps=None):
    """Stops training once an evaluation's ``metric_name`` is above ``threshold``."""
    return _threshold_hook(estimator, metric_name, threshold, True, eval_dir,
                           min_steps, run_every_secs, run_every_steps)


def stop_if_lower_hook(estimator, metric_name, threshold, eval_dir=None, min_steps=0,
                       run_every_secs=60, run_every_steps=None):
    """Stops training once an evaluation's ``metric_name`` is below ``threshold``."""
    return _threshold_hook(estimator, metric_name, threshold, False, eval_dir,
                           min_steps, run_every_secs, run_every_steps)


def stop_if_no_increase_hook(estimator, metric_name, max_steps_without_increase,
                             eval_dir=None, min_steps=0, run_every_secs=60,
                             run_every_steps=None):
    """Stops training when ``metric_name`` has not increased for that many steps."""
    return _no_improvement_hook(estimator, metric_name, max_steps_without_increase,
                                True, eval_dir, min_steps, run_every_secs,
                                run_every_steps)


def stop_if_no_decrease_hook(estimator, metric_name, max_steps_without_decrease,
                             eval_dir=None, min_steps=0, run_every_secs=60,
                             run_every_steps=None):
    """Stops training when ``metric_name`` has not decreased for that many steps."""
    return _no_improvement_hook(estimator, metric_name, max_steps_without_decrease,
                                False, eval_dir, min_steps, run_every_secs,
                                run_every_steps)


class InMemoryEvaluatorHook(session_run_hook.SessionRunHook):
    """Evaluates the model being trained every ``every_n_iter`` steps (and at the start and
    end), in a separate graph fed with the training session's variable values: no checkpoint
    is needed. Results go to the estimator's eval directory, as ``evaluate`` writes them."""

    def __init__(self, estimator, input_fn, steps=None, hooks=None, name=None,
                 every_n_iter=100):
        from tideflow.estimator import estimator as estimator_lib

        if every_n_iter is None or every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if not isinstance(estimator, estimator_lib.Estimator):
            raise TypeError(f"`estimator` must have type `tf.estimator.Estimator`. Got: "
                            f"{type(estimator)}")
        self._estimator = estimator
        self._input_fn = input_fn
        self._hooks = estimator_lib._check_hooks_type(hooks)
        if steps is not None:
            if steps <= 0:
                raise ValueError(f"Must specify steps > 0, given: {steps}")
            self._hooks.append(estimator_lib._StopAfterNEvalsHook(num_evals=steps))
        self._eval_dir = estimator.eval_dir(name)
        self._every_n_iter = every_n_iter

    def begin(self):
        from tideflow.framework import ops
        from tideflow.ops import constant_op

        self._timer = basic_hooks.SecondOrStepTimer(every_steps=self._every_n_iter)
        self._iter_count = 0
        self._graph = ops.Graph()
        with self._graph.as_default():
            (self._scaffold, self._update_op, self._eval_dict,
             self._all_hooks) = self._estimator._evaluate_build_graph(self._input_fn,
                                                                      self._hooks)
            if self._scaffold.saver is not None:
                raise ValueError("InMemoryEvaluator does not support custom saver")
            if self._scaffold.init_fn is not None:
                raise ValueError("InMemoryEvaluator does not support custom init_fn")
            eval_vars = ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)
            self._eval_vars = {v.name: v for v in eval_vars}
            self._placeholders = {v.name: constant_op.placeholder(v.dtype.base_dtype,
                                                                  v.get_shape())
                                  for v in eval_vars}

    def after_create_session(self, session, coord):
        from tideflow.framework import ops
        from tideflow.ops import control_flow_ops, state_ops

        train_vars = {v.name: v for v in ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)}
        names = sorted(set(self._eval_vars) & set(train_vars))
        self._train_vars = {n: train_vars[n] for n in names}
        with self._graph.as_default():
            self._feed_op = control_flow_ops.group(*[
                state_ops.assign(self._eval_vars[n], self._placeholders[n]) for n in names])
        self._evaluate(session)

    def _evaluate(self, train_session):
        from tideflow.train import monitored_session

        values = train_session.run(self._train_vars)
        feed = {self._placeholders[n]: v for n, v in values.items()}

        def feed_variables(scaffold, session):
            del scaffold
            session.run(self._feed_op, feed_dict=feed)

        scaffold = monitored_session.Scaffold(init_fn=feed_variables,
                                              copy_from_scaffold=self._scaffold)
        with self._graph.as_default():
            self._estimator._evaluate_run(None, scaffold, self._update_op, self._eval_dict,
                                          self._all_hooks, self._eval_dir)
        # (the evaluation before training counts too: the next comes every_n_iter steps on)
        self._timer.update_last_triggered_step(self._iter_count)

    def after_run(self, run_context, run_values):
        self._iter_count += 1
        if self._timer.should_trigger_for_step(self._iter_count):
            self._evaluate(run_context.session)

    def end(self, session):
        self._evaluate(session)


def dnn_logit_fn_builder(units, hidden_units, feature_columns, activation_fn, dropout,
                         input_layer_partitioner=None, batch_norm=False):
    """A ``logit_fn(features, mode)`` building DNNClassifier's network (under ``dnn/``)."""
    from tideflow.estimator.canned import dnn

    if not isinstance(units, int):
        raise ValueError(f"units must be an int.  Given type: {type(units)}")  # noqa: TRY004 - as TF

    def dnn_logit_fn(features, mode):
        return dnn.dnn_logits(features, mode, hidden_units, units, feature_columns,
                              activation_fn, dropout, batch_norm, scope="dnn")

    return dnn_logit_fn


def linear_logit_fn_builder(units, feature_columns, sparse_combiner="sum"):
    """A ``logit_fn(features)`` building LinearClassifier's model: ``linear_model`` (its
    variables under ``linear_model/``; LinearClassifier opens ``linear/`` around it)."""
    from tideflow.estimator.canned import linear

    return linear.linear_logit_fn_builder(units, feature_columns, sparse_combiner)


def call_logit_fn(logit_fn, features, mode, params, config):
    """Calls ``logit_fn`` with the arguments it accepts; the logits must be a Tensor or a
    dict of Tensors."""
    from tideflow.estimator.estimator import fn_args
    from tideflow.framework import ops

    args = fn_args(logit_fn)
    kwargs = {}
    if "mode" in args:
        kwargs["mode"] = mode
    if "params" in args:
        kwargs["params"] = params
    if "config" in args:
        kwargs["config"] = config
    logits = logit_fn(features=features, **kwargs)
    values = logits.values() if isinstance(logits, dict) else [logits]
    if not all(isinstance(v, ops.Tensor) for v in values):
        raise ValueError(f"logit_fn should return a Tensor or a dictionary mapping strings to "
                         f"Tensors.  logit_fn returned: {logits}")
    return logits


class _StopAtCheckpointStepHook(session_run_hook.SessionRunHook):
    """A non-chief worker's stop: once its step reaches ``last_step``, it stops when the
    model_dir's latest checkpoint holds that step, else waits ``wait_after_file_check_secs``
    before it looks again."""

    def __init__(self, model_dir, last_step, wait_after_file_check_secs=30):
        if last_step is None:
            raise ValueError("last_step must be specified.")
        if model_dir is None:
            raise ValueError("model_dir must be specified.")
        self._model_dir = model_dir
        self._last_step = last_step
        self._wait_after_file_check_secs = wait_after_file_check_secs

    def begin(self):
        self._global_step_tensor = training_util._get_or_create_global_step_read()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use StopAtCheckpointStepHook.")

    def before_run(self, run_context):
        return session_run_hook.SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        import time

        from tideflow.estimator.estimator import _load_global_step_from_checkpoint_dir

        if run_values.results + 1 >= self._last_step:
            if _load_global_step_from_checkpoint_dir(self._model_dir) >= self._last_step:
                run_context.request_stop()
            else:
                time.sleep(self._wait_after_file_check_secs)


def make_stop_at_checkpoint_step_hook(estimator, last_step, wait_after_file_check_secs=30):
    """``tf.estimator.experimental.make_stop_at_checkpoint_step_hook``: a StopAtStepHook on
    the chief, elsewhere a hook that stops once a checkpoint of ``last_step`` is written."""
    if estimator.config.is_chief:
        return basic_hooks.StopAtStepHook(last_step=last_step)
    return _StopAtCheckpointStepHook(model_dir=estimator.model_dir, last_step=last_step,
                                     wait_after_file_check_secs=wait_after_file_check_secs)


def __getattr__(name):
    # TF 1.15's k-means Estimator, imported when first asked for (it imports tideflow)
    if name == "KMeans":
        from tideflow.ops.kmeans_estimator import CannedKMeans

        return CannedKMeans
    if name == "LinearSDCA":  # (loaded on first use)
        from tideflow.contrib_linear_optimizer import LinearSDCA

        return LinearSDCA
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["InMemoryEvaluatorHook", "build_raw_supervised_input_receiver_fn",
           "call_logit_fn", "dnn_logit_fn_builder", "linear_logit_fn_builder",
           "make_early_stopping_hook", "make_stop_at_checkpoint_step_hook",
           "stop_if_higher_hook", "stop_if_lower_hook", "stop_if_no_decrease_hook",
           "stop_if_no_increase_hook"]


def __dir__():
    # TF 1.15's module lists its API, not the modules this one imports
    # (and the two names __getattr__ loads on first use)
    return sorted(__all__ + ["KMeans", "LinearSDCA"]
                  + [n for n in globals() if n.startswith("__")])
