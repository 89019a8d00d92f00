"""``slim.learning``: ``create_train_op`` (the loss after one update, with UPDATE_OPS first and
optional clipping) and ``train``, the Supervisor-driven training loop slim programs call."""

import time

from tideflow import logging
from tideflow.framework import ops
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


def _flag(sess, kwargs, key):
    value = kwargs.get(key)
    if value is None:
        return None
    return bool(sess.run(value)) if isinstance(value, (ops.Tensor, ops.Operation)) else bool(
        value)


def train_step(sess, train_op, global_step, train_step_kwargs):
    """Runs ``train_op`` once; returns ``(loss, should_stop)``, logging every
    ``log_every_n_steps`` and stopping at ``number_of_steps`` (or, as TF's kwargs, by the
    ``should_log``/``should_stop`` tensors); with ``trace_every_n_steps`` (or TF's
    ``should_trace``) and ``logdir``, the step runs with a full trace written to
    ``<logdir>/tf_trace-<step>.json``."""
    run_options = run_metadata = None
    trace_every = train_step_kwargs.get("trace_every_n_steps")
    should_trace = _flag(sess, train_step_kwargs, "should_trace")
    if should_trace is None and trace_every:
        should_trace = sess.run(global_step) % trace_every == 0
    if should_trace:
        if "logdir" not in train_step_kwargs:
            raise ValueError("logdir must be present in train_step_kwargs when should_trace "
                             "is present")
        from tideflow.core.protobuf import config_pb2

        run_options = config_pb2.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE)
        run_metadata = config_pb2.RunMetadata()
    start = time.time()
    total_loss, np_global_step = sess.run([train_op, global_step], options=run_options,
                                          run_metadata=run_metadata)
    elapsed = time.time() - start
    if run_metadata is not None:
        import os

        from tideflow.python.client import timeline

        trace = timeline.Timeline(run_metadata.step_stats).generate_chrome_trace_format()
        path = os.path.join(train_step_kwargs["logdir"], f"tf_trace-{np_global_step}.json")
        logging.info("Writing trace to %s", path)
        with open(path, "w") as f:
            f.write(trace)
        if "summary_writer" in train_step_kwargs:
            train_step_kwargs["summary_writer"].add_run_metadata(
                run_metadata, f"run_metadata-{np_global_step}")
    should_log = _flag(sess, train_step_kwargs, "should_log")
    if should_log is None:
        log_every = train_step_kwargs.get("log_every_n_steps")
        should_log = bool(log_every) and np_global_step % log_every == 0
    if should_log:
        logging.info("global step %d: loss = %.4f (%.3f sec/step)", np_global_step, total_loss,
                     elapsed)
    should_stop = _flag(sess, train_step_kwargs, "should_stop")
    if should_stop is None:
        limit = train_step_kwargs.get("number_of_steps")
        should_stop = limit is not None and np_global_step >= limit
    return total_loss, should_stop


def train(train_op, logdir, train_step_fn=train_step, train_step_kwargs=_USE_DEFAULT,
          log_every_n_steps=1, graph=None, master="", is_chief=True, global_step=None,
          number_of_steps=None, init_op=_USE_DEFAULT, init_feed_dict=None,
          local_init_op=_USE_DEFAULT, init_fn=None, ready_op=_USE_DEFAULT,
          summary_op=_USE_DEFAULT, save_summaries_secs=600, summary_writer=_USE_DEFAULT,
          startup_delay_steps=0, saver=None, save_interval_secs=600, sync_optimizer=None,
          session_config=None, session_wrapper=None, trace_every_n_steps=None,
          ignore_live_threads=False):
    """Runs ``train_op`` under a Supervisor until ``number_of_steps`` (or the supervisor stops),
    restoring from and checkpointing to ``logdir``; returns the last loss."""
    from tideflow import train as train_module
    from tideflow.train import supervisor as sv_module

    if train_op is None:
        raise ValueError("train_op cannot be None.")
    if logdir is None:
        if summary_op != _USE_DEFAULT:
            raise ValueError("Cannot provide summary_op because logdir=None")
        if saver is not None:
            raise ValueError("Cannot provide saver because logdir=None")
        if trace_every_n_steps is not None:
            raise ValueError("Cannot provide trace_every_n_steps because logdir=None")
    if sync_optimizer is not None:
        raise NotImplementedError("slim.learning.train: sync_optimizer is not supported; use "
                                  "tf.train.SyncReplicasOptimizer with MonitoredTrainingSession")
    if session_wrapper is not None:
        raise NotImplementedError("slim.learning.train: session_wrapper is not supported")
    graph = graph or ops.get_default_graph()
    with graph.as_default():
        if global_step is None:
            global_step = train_module.get_or_create_global_step()
        default = sv_module.Supervisor.USE_DEFAULT
        kw = {
            "init_op": default if init_op is _USE_DEFAULT else init_op,
            "local_init_op": default if local_init_op is _USE_DEFAULT else local_init_op,
            "ready_op": default if ready_op is _USE_DEFAULT else ready_op,
            "summary_op": default if summary_op is _USE_DEFAULT else summary_op,
            "summary_writer": default if summary_writer is _USE_DEFAULT else summary_writer,
        }
        if saver is None and logdir:
            saver = train_module.Saver()
        if train_step_kwargs is _USE_DEFAULT:
            train_step_kwargs = {"log_every_n_steps": log_every_n_steps}
            if number_of_steps:
                train_step_kwargs["number_of_steps"] = number_of_steps
            if is_chief and trace_every_n_steps is not None:
                train_step_kwargs["trace_every_n_steps"] = trace_every_n_steps
                train_step_kwargs["logdir"] = logdir
    sv = Supervisor(graph=graph, is_chief=is_chief, logdir=logdir, init_feed_dict=init_feed_dict,
                    global_step=global_step, saver=saver,
                    save_summaries_secs=save_summaries_secs,
                    save_model_secs=save_interval_secs, init_fn=init_fn, **kw)
    total_loss = None
    with sv.managed_session(master, start_standard_services=False,
                            config=session_config) as sess:
        logging.info("Starting Session.")
        if logdir and is_chief:
            sv.start_standard_services(sess)
        elif startup_delay_steps > 0:
            limit = startup_delay_steps
            while sess.run(global_step) < limit and not sv.should_stop():
                time.sleep(0.5)
        # managed_session(start_standard_services=False) leaves the input queues to us
        sv.start_queue_runners(sess)
        logging.info("Starting Queues.")
        try:
            while not sv.should_stop():
                total_loss, should_stop = train_step_fn(sess, train_op, global_step,
                                                        train_step_kwargs)
                if should_stop:
                    logging.info("Stopping Training.")
                    sv.request_stop()
                    break
        finally:
            if logdir and sv.is_chief:
                logging.info("Finished training! Saving model to disk.")
                sv.saver.save(sess, sv.save_path, global_step=sv.global_step)
    return total_loss
