"""``slim.learning``: ``create_train_op`` (the loss after one update, with UPDATE_OPS first and
optional clipping) and ``train``, the Supervisor-driven training loop slim programs call."""

import os
import sys
import time

from tideflow import logging
from tideflow.framework import ops
from tideflow.train import training_util
from tideflow.train.supervisor import Supervisor

_USE_DEFAULT = 0
_USE_GLOBAL_STEP = 0


def _clip_by_norm(grads_and_vars, max_norm):
    from tideflow.framework.indexed_slices import IndexedSlices
    from tideflow.ops import clip_ops

    clipped = []
    for grad, var in grads_and_vars:
        if grad is None:
            clipped.append((grad, var))
        elif isinstance(grad, IndexedSlices):
            values = clip_ops.clip_by_norm(grad.values, max_norm)
            clipped.append((IndexedSlices(values, grad.indices, grad.dense_shape), var))
        else:
            clipped.append((clip_ops.clip_by_norm(grad, max_norm), var))
    return clipped


def gradients_summaries(grads_and_vars, separator):
    """A histogram of each gradient and a scalar of its global norm, named
    ``<var><separator>gradient`` and ``<var><separator>gradient_norm``: TF 1.15's slim
    names them ``w/gradient``, its ``tf.contrib.training`` ``w_gradient``."""
    from tideflow.ops import clip_ops
    from tideflow.summary import summary

    out = []
    for grad, var in grads_and_vars:
        if grad is None:
            logging.info("Var %s has no gradient", var.op.name)
            continue
        values = grad.values if isinstance(grad, ops.IndexedSlices) else grad
        out.append(summary.histogram(f"{var.op.name}{separator}gradient", values))
        out.append(summary.scalar(f"{var.op.name}{separator}gradient_norm",
                                  clip_ops.global_norm([values])))
    return out


def add_gradients_summaries(grads_and_vars):
    """slim's gradient summaries: ``<var>/gradient`` (histogram) and ``<var>/gradient_norm``
    (scalar); returns the summary ops."""
    return gradients_summaries(grads_and_vars, "/")


def multiply_gradients(grads_and_vars, gradient_multipliers):
    """Each gradient times its variable's multiplier (keyed by variable or op name; an
    IndexedSlices gradient has its values scaled). ValueError, as TF, when
    ``grads_and_vars`` is not a list, the multipliers are empty or not a dict, or a
    multiplier applies to a None gradient."""
    from tideflow.ops import constant_op

    if not isinstance(grads_and_vars, list):
        raise ValueError("`grads_and_vars` must be a list.")  # noqa: TRY004 - as TF
    if not gradient_multipliers:
        raise ValueError("`gradient_multipliers` is empty.")
    if not isinstance(gradient_multipliers, dict):
        raise ValueError("`gradient_multipliers` must be a dict.")  # noqa: TRY004 - as TF
    out = []
    for grad, var in grads_and_vars:
        key = var if var in gradient_multipliers else var.op.name
        if key in gradient_multipliers:
            if grad is None:
                raise ValueError("Requested multiple of `None` gradient.")
            multiplier = gradient_multipliers[key]
            if not isinstance(multiplier, ops.Tensor):
                multiplier = constant_op.constant(multiplier, dtype=grad.dtype)
            if isinstance(grad, ops.IndexedSlices):
                grad = ops.IndexedSlices(grad.values * multiplier, grad.indices,
                                         grad.dense_shape)
            else:
                grad = grad * multiplier
        out.append((grad, var))
    return out


def create_train_op(total_loss, optimizer, global_step=_USE_GLOBAL_STEP, update_ops=None,
                    variables_to_train=None, clip_gradient_norm=0, summarize_gradients=False,
                    gate_gradients=1, aggregation_method=None,
                    colocate_gradients_with_ops=False, gradient_multipliers=None,
                    check_numerics=True):
    """A tensor that, when run, applies one update and returns ``total_loss``: UPDATE_OPS run
    first, each gradient clipped to ``clip_gradient_norm`` (when > 0) and scaled by
    ``gradient_multipliers``; the loss checked for NaN/Inf when ``check_numerics``."""
    from tideflow import train
    from tideflow.train import contrib_training

    if global_step is _USE_GLOBAL_STEP:
        global_step = train.get_or_create_global_step()

    def transform_grads_fn(grads):
        if gradient_multipliers:
            with ops.name_scope("multiply_grads"):
                grads = multiply_gradients(list(grads), gradient_multipliers)
        if clip_gradient_norm > 0:
            with ops.name_scope("clip_grads"):
                grads = _clip_by_norm(grads, clip_gradient_norm)
        return grads

    # as TF 1.15's slim, the rest is tf.contrib.training's create_train_op
    return contrib_training.create_train_op(
        total_loss, optimizer, global_step=global_step, update_ops=update_ops,
        variables_to_train=variables_to_train, transform_grads_fn=transform_grads_fn,
        summarize_gradients=summarize_gradients, gate_gradients=gate_gradients,
        aggregation_method=aggregation_method,
        colocate_gradients_with_ops=colocate_gradients_with_ops, check_numerics=check_numerics)


def train_step(sess, train_op, global_step, train_step_kwargs):
    """Runs ``train_op`` once; returns ``(loss, should_stop)``. As TF's, it reads the
    ``should_trace`` (with ``logdir``), ``should_log`` and ``should_stop`` tensors that
    ``train`` puts in ``train_step_kwargs``; a traced step writes
    ``<logdir>/tf_trace-<step>.json`` and its RunMetadata to ``summary_writer``."""
    run_options = run_metadata = None
    if "should_trace" in train_step_kwargs:
        if "logdir" not in train_step_kwargs:
            raise ValueError("logdir must be present in train_step_kwargs when should_trace "
                             "is present")
        if sess.run(train_step_kwargs["should_trace"]):
            from tideflow.core.protobuf import config_pb2

            run_options = config_pb2.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE)
            run_metadata = config_pb2.RunMetadata()
    start = time.time()
    total_loss, np_global_step = sess.run([train_op, global_step], options=run_options,
                                          run_metadata=run_metadata)
    elapsed = time.time() - start
    if run_metadata is not None:
        from tideflow.python.client import timeline

        trace = timeline.Timeline(run_metadata.step_stats).generate_chrome_trace_format()
        path = os.path.join(train_step_kwargs["logdir"], f"tf_trace-{np_global_step}.json")
        logging.info("Writing trace to %s", path)
        with open(path, "w") as f:
            f.write(trace)
        if "summary_writer" in train_step_kwargs:
            train_step_kwargs["summary_writer"].add_run_metadata(
                run_metadata, f"run_metadata-{np_global_step}")
    if "should_log" in train_step_kwargs and sess.run(train_step_kwargs["should_log"]):
        logging.info("global step %d: loss = %.4f (%.3f sec/step)", np_global_step, total_loss,
                     elapsed)
    should_stop = False
    if "should_stop" in train_step_kwargs:
        should_stop = sess.run(train_step_kwargs["should_stop"])
    return total_loss, should_stop


def _wait_for_step(sess, global_step, step):
    while training_util.global_step(sess, global_step) < step:
        time.sleep(1.0)


def _default_train_step_kwargs(global_step, number_of_steps, log_every_n_steps, is_chief,
                               trace_every_n_steps, logdir):
    # TF 1.15 builds these flag tensors under "train_step" once, before the Supervisor
    # finalizes the graph; train_step runs them after each step
    from tideflow.ops import constant_op, math_ops

    with ops.name_scope("train_step"):
        kwargs = {}
        if number_of_steps:
            kwargs["should_stop"] = math_ops.greater_equal(global_step, number_of_steps)
        else:
            kwargs["should_stop"] = constant_op.constant(False)
        if log_every_n_steps > 0:
            kwargs["should_log"] = math_ops.equal(
                math_ops.mod(global_step, log_every_n_steps), 0)
        if is_chief and trace_every_n_steps is not None:
            kwargs["should_trace"] = math_ops.equal(
                math_ops.mod(global_step, trace_every_n_steps), 0)
            kwargs["logdir"] = logdir
    return kwargs


def train(train_op, logdir, train_step_fn=train_step, train_step_kwargs=_USE_DEFAULT,
          log_every_n_steps=1, graph=None, master="", is_chief=True, global_step=None,
          number_of_steps=None, init_op=_USE_DEFAULT, init_feed_dict=None,
          local_init_op=_USE_DEFAULT, init_fn=None, ready_op=_USE_DEFAULT,
          summary_op=_USE_DEFAULT, save_summaries_secs=600, summary_writer=_USE_DEFAULT,
          startup_delay_steps=0, saver=None, save_interval_secs=600, sync_optimizer=None,
          session_config=None, session_wrapper=None, trace_every_n_steps=None,
          ignore_live_threads=False):
    """Runs ``train_op`` under a Supervisor until ``number_of_steps`` (or the input's end),
    restoring from and checkpointing to ``logdir``; returns the last loss. As TF 1.15's, it
    adds a Saver, the init ops (under "init_ops") and the step flags (under "train_step")
    to the graph, and retries the session on AbortedError."""
    from tideflow import train as train_module
    from tideflow.framework import errors
    from tideflow.ops import control_flow_ops, variables
    from tideflow.summary import summary

    if train_op is None:
        raise ValueError("train_op cannot be None.")
    if logdir is None:
        if summary_op is not _USE_DEFAULT:
            raise ValueError("Cannot provide summary_op because logdir=None")
        if saver is not None:
            raise ValueError("Cannot provide saver because logdir=None")
        if trace_every_n_steps is not None:
            raise ValueError("Cannot provide trace_every_n_steps because logdir=None")
    if sync_optimizer is not None and startup_delay_steps > 0:
        raise ValueError("startup_delay_steps must be zero when sync_optimizer is supplied.")
    if number_of_steps is not None and number_of_steps <= 0:
        raise ValueError("`number_of_steps` must be either None or a positive number.")
    if sync_optimizer is not None:
        raise NotImplementedError("slim.learning.train: sync_optimizer is not supported; use "
                                  "tf.train.SyncReplicasOptimizer with MonitoredTrainingSession")
    graph = graph or ops.get_default_graph()
    with graph.as_default():
        if global_step is None:
            global_step = train_module.get_or_create_global_step()
        saver = saver or train_module.Saver()
        with ops.name_scope("init_ops"):
            if init_op is _USE_DEFAULT:
                init_op = variables.global_variables_initializer()
            if ready_op is _USE_DEFAULT:
                ready_op = variables.report_uninitialized_variables()
            if local_init_op is _USE_DEFAULT:
                local_init_op = control_flow_ops.group(
                    variables.local_variables_initializer(), variables.tables_initializer())
        if summary_op is _USE_DEFAULT:
            summary_op = summary.merge_all()
        if train_step_kwargs is _USE_DEFAULT:
            train_step_kwargs = _default_train_step_kwargs(
                global_step, number_of_steps, log_every_n_steps, is_chief,
                trace_every_n_steps, logdir)
    sv = Supervisor(graph=graph, is_chief=is_chief, logdir=logdir, init_op=init_op,
                    init_feed_dict=init_feed_dict, local_init_op=local_init_op,
                    ready_for_local_init_op=None, ready_op=ready_op, summary_op=summary_op,
                    summary_writer=summary_writer, global_step=global_step, saver=saver,
                    save_summaries_secs=save_summaries_secs,
                    save_model_secs=save_interval_secs, init_fn=init_fn)
    if summary_writer is not None:
        train_step_kwargs["summary_writer"] = sv.summary_writer
    total_loss = None
    should_retry = True
    while should_retry:
        should_retry = False
        try:
            with sv.managed_session(master, start_standard_services=False,
                                    config=session_config) as sess:
                logging.info("Starting Session.")
                if session_wrapper is not None:
                    sess = session_wrapper(sess)
                if is_chief:
                    if logdir:
                        sv.start_standard_services(sess)
                elif startup_delay_steps > 0:
                    _wait_for_step(sess, global_step,
                                   min(startup_delay_steps, number_of_steps or sys.maxsize))
                # managed_session(start_standard_services=False) leaves the input queues to us
                threads = sv.start_queue_runners(sess)
                logging.info("Starting Queues.")
                sv._announce_services()  # (the step counter's first line follows this)
                try:
                    while not sv.should_stop():
                        total_loss, should_stop = train_step_fn(sess, train_op, global_step,
                                                                train_step_kwargs)
                        if should_stop:
                            logging.info("Stopping Training.")
                            sv.request_stop()
                            break
                except errors.OutOfRangeError as e:
                    logging.info("Caught OutOfRangeError. Stopping Training. %s", e)
                if logdir and sv.is_chief:
                    logging.info("Finished training! Saving model to disk.")
                    sv.saver.save(sess, sv.save_path, global_step=sv.global_step)
                    sv.stop(threads, close_summary_writer=True,
                            ignore_live_threads=ignore_live_threads)
        except errors.AbortedError:
            # a restarted server of the cluster: TF 1.15 starts the session again
            logging.info("Retrying training!")
            should_retry = True
    return total_loss
