"""Checkpoint evaluation loops: ``tf.contrib.training``'s ``evaluate_once`` and
``evaluate_repeatedly`` with their hooks, and ``tf.contrib.slim.evaluation``'s
``evaluate_once`` and ``evaluation_loop`` built on them.

An evaluation restores a checkpoint into a MonitoredSession, runs ``eval_ops`` (each run
also counts the graph's ``eval_step``) until a hook stops it -- ``StopAfterNEvalsHook``
after ``num_evals`` runs, or the input running out -- and returns ``final_ops`` evaluated
once at the end.
"""

import time

from tideflow import logging
from tideflow.framework import dtypes, ops
from tideflow.ops import init_ops, state_ops, variable_scope
from tideflow.summary import summary as summary_lib
from tideflow.summary.writer import FileWriterCache
from tideflow.train import monitored_session, training_util
from tideflow.train import saver as saver_lib
from tideflow.train.basic_hooks import FinalOpsHook
from tideflow.train.session_run_hook import SessionRunArgs, SessionRunHook
from tideflow.train.train_extras import checkpoints_iterator, wait_for_new_checkpoint

__all__ = ["StopAfterNEvalsHook", "SummaryAtEndHook", "checkpoints_iterator", "evaluate_once",
           "evaluate_repeatedly", "get_or_create_eval_step", "wait_for_new_checkpoint"]

_USE_DEFAULT = object()


def get_or_create_eval_step():
    """The graph's evaluation counter: a local int64 variable in ``GraphKeys.EVAL_STEP``."""
    graph = ops.get_default_graph()
    steps = graph.get_collection(ops.GraphKeys.EVAL_STEP)
    if len(steps) == 1:
        return steps[0]
    if len(steps) > 1:
        raise ValueError("Multiple tensors added to tf.GraphKeys.EVAL_STEP")
    return variable_scope.get_variable(
        "eval_step", shape=[], dtype=dtypes.int64, initializer=init_ops.zeros_initializer(),
        trainable=False, collections=[ops.GraphKeys.LOCAL_VARIABLES, ops.GraphKeys.EVAL_STEP])


class StopAfterNEvalsHook(SessionRunHook):
    """Requests a stop once the eval step reaches ``num_evals``."""

    def __init__(self, num_evals, log_progress=True):
        self._num_evals = num_evals
        self._log_progress = log_progress
        self._evals_completed = None

    def _set_evals_completed_tensor(self, updated_eval_step):
        self._evals_completed = updated_eval_step

    def begin(self):
        if self._evals_completed is None:
            self._evals_completed = get_or_create_eval_step()

    def before_run(self, run_context):
        return SessionRunArgs({"evals_completed": self._evals_completed})

    def after_run(self, run_context, run_values):
        evals_completed = run_values.results["evals_completed"]
        if self._log_progress:
            if self._num_evals is None:
                logging.info("Evaluation [%d]", evals_completed)
            else:
                logging.info("Evaluation [%d/%d]", evals_completed, self._num_evals)
        if self._num_evals is not None and evals_completed >= self._num_evals:
            run_context.request_stop()


class SummaryAtEndHook(SessionRunHook):
    """Writes ``summary_op`` (default: every merged summary) once, when the session ends."""

    def __init__(self, log_dir=None, summary_writer=None, summary_op=None, feed_dict=None):
        self._summary_op = summary_op
        self._replace_summary_op = summary_op is None
        self._feed_dict = feed_dict
        self._summary_writer = summary_writer
        self._log_dir = log_dir
        self._global_step = None
        if self._log_dir is None and self._summary_writer is None:
            raise ValueError("One of log_dir or summary_writer should be used.")

    def begin(self):
        if self._replace_summary_op:
            self._summary_op = summary_lib.merge_all()
        self._global_step = training_util.get_or_create_global_step()

    def after_create_session(self, session, coord):
        if self._summary_writer is None and self._log_dir:
            self._summary_writer = FileWriterCache.get(self._log_dir)

    def end(self, session):
        if self._summary_op is None:
            return
        step = training_util.global_step(session, self._global_step)
        summary = session.run(self._summary_op, self._feed_dict)
        if self._summary_writer:
            self._summary_writer.add_summary(summary, step)
            self._summary_writer.flush()


def _counted_eval_ops(eval_ops, hooks):
    """``eval_ops`` plus the eval-step increment the stop hooks watch."""
    update_eval_step = state_ops.assign_add(get_or_create_eval_step(), 1)
    for hook in hooks:
        if isinstance(hook, StopAfterNEvalsHook):
            hook._set_evals_completed_tensor(update_eval_step)
    if isinstance(eval_ops, dict):
        return {**eval_ops, "update_eval_step": update_eval_step}
    if isinstance(eval_ops, (tuple, list)):
        return [*eval_ops, update_eval_step]
    return [eval_ops, update_eval_step]


def _run_evaluation(checkpoint_path, master, scaffold, eval_ops, feed_dict, final_ops,
                    final_ops_feed_dict, hooks, config):
    hooks = list(hooks or [])
    if eval_ops is not None:
        eval_ops = _counted_eval_ops(eval_ops, hooks)
    final_hook = FinalOpsHook(final_ops, final_ops_feed_dict)
    hooks.append(final_hook)
    creator = monitored_session.ChiefSessionCreator(
        scaffold=scaffold, checkpoint_filename_with_path=checkpoint_path, master=master,
        config=config)
    logging.info("Starting evaluation at " + time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    with monitored_session.MonitoredSession(session_creator=creator, hooks=hooks) as session:
        if eval_ops is not None:
            while not session.should_stop():
                session.run(eval_ops, feed_dict)
    logging.info("Finished evaluation at " + time.strftime("%Y-%m-%d-%H:%M:%S", time.gmtime()))
    return final_hook.final_ops_values


def evaluate_once(checkpoint_path, master="", scaffold=None, eval_ops=None, feed_dict=None,
                  final_ops=None, final_ops_feed_dict=None, hooks=None, config=None):
    """Restores ``checkpoint_path``, runs ``eval_ops`` until a hook (or the input) stops the
    session, and returns the value of ``final_ops``."""
    return _run_evaluation(checkpoint_path, master, scaffold, eval_ops, feed_dict, final_ops,
                           final_ops_feed_dict, hooks, config)


def evaluate_repeatedly(checkpoint_dir, master="", scaffold=None, eval_ops=None,
                        feed_dict=None, final_ops=None, final_ops_feed_dict=None,
                        eval_interval_secs=60, hooks=None, config=None,
                        max_number_of_evaluations=None, timeout=None, timeout_fn=None):
    """Evaluates each new checkpoint of ``checkpoint_dir`` (see ``evaluate_once``) until
    ``max_number_of_evaluations`` or a ``timeout`` without one; returns the last
    ``final_ops`` value."""
    final_ops_values = None
    checkpoints = checkpoints_iterator(checkpoint_dir, eval_interval_secs, timeout, timeout_fn)
    for evaluations, checkpoint_path in enumerate(checkpoints, 1):
        final_ops_values = _run_evaluation(checkpoint_path, master, scaffold, eval_ops,
                                           feed_dict, final_ops, final_ops_feed_dict, hooks,
                                           config)
        if max_number_of_evaluations is not None and evaluations >= max_number_of_evaluations:
            break
    return final_ops_values


# ------------------------------------------------------------------------------------------
# tf.contrib.slim.evaluation
# ------------------------------------------------------------------------------------------


def _slim_setup(logdir, num_evals, initial_op, initial_op_feed_dict, summary_op,
                summary_op_feed_dict, variables_to_restore, hooks, init_fn=None):
    if summary_op is _USE_DEFAULT:
        summary_op = summary_lib.merge_all()
    all_hooks = [StopAfterNEvalsHook(num_evals)]
    if summary_op is not None:
        all_hooks.append(SummaryAtEndHook(log_dir=logdir, summary_op=summary_op,
                                          feed_dict=summary_op_feed_dict))
    all_hooks.extend(hooks or [])
    saver = None
    if variables_to_restore is not None:
        saver = saver_lib.Saver(variables_to_restore)
    scaffold = monitored_session.Scaffold(
        init_op=initial_op, init_feed_dict=initial_op_feed_dict, saver=saver,
        init_fn=None if init_fn is None else (lambda _scaffold, sess: init_fn(sess)))
    return scaffold, all_hooks


def slim_evaluate_once(master, checkpoint_path, logdir, num_evals=1, initial_op=None,
                       initial_op_feed_dict=None, eval_op=None, eval_op_feed_dict=None,
                       final_op=None, final_op_feed_dict=None, summary_op=_USE_DEFAULT,
                       summary_op_feed_dict=None, variables_to_restore=None,
                       session_config=None, hooks=None):
    """``slim.evaluation.evaluate_once``: ``num_evals`` runs of ``eval_op`` on one
    checkpoint, the summaries written to ``logdir``; returns ``final_op``'s value."""
    scaffold, all_hooks = _slim_setup(logdir, num_evals, initial_op, initial_op_feed_dict,
                                      summary_op, summary_op_feed_dict, variables_to_restore,
                                      hooks)
    return evaluate_once(checkpoint_path, master=master, scaffold=scaffold, eval_ops=eval_op,
                         feed_dict=eval_op_feed_dict, final_ops=final_op,
                         final_ops_feed_dict=final_op_feed_dict, hooks=all_hooks,
                         config=session_config)


def slim_evaluation_loop(master, checkpoint_dir, logdir, num_evals=1, initial_op=None,
                         initial_op_feed_dict=None, init_fn=None, eval_op=None,
                         eval_op_feed_dict=None, final_op=None, final_op_feed_dict=None,
                         summary_op=_USE_DEFAULT, summary_op_feed_dict=None,
                         variables_to_restore=None, eval_interval_secs=60,
                         max_number_of_evaluations=None, session_config=None, timeout=None,
                         timeout_fn=None, hooks=None):
    """``slim.evaluation.evaluation_loop``: ``evaluate_once`` on every new checkpoint of
    ``checkpoint_dir``; returns the last ``final_op`` value."""
    scaffold, all_hooks = _slim_setup(logdir, num_evals, initial_op, initial_op_feed_dict,
                                      summary_op, summary_op_feed_dict, variables_to_restore,
                                      hooks, init_fn)
    return evaluate_repeatedly(checkpoint_dir, master=master, scaffold=scaffold,
                               eval_ops=eval_op, feed_dict=eval_op_feed_dict,
                               final_ops=final_op, final_ops_feed_dict=final_op_feed_dict,
                               eval_interval_secs=eval_interval_secs, hooks=all_hooks,
                               config=session_config,
                               max_number_of_evaluations=max_number_of_evaluations,
                               timeout=timeout, timeout_fn=timeout_fn)
