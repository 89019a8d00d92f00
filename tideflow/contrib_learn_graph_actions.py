"""``tf.contrib.learn.graph_actions`` (TF 0.9-1.4): train, evaluate and run a graph's tensors
outside an Estimator, restoring from (and saving to) checkpoints."""

import itertools
import logging as _pylog

import numpy as np

_log = _pylog.getLogger("tideflow")


def _tf():
    import tideflow

    return tideflow


def clear_summary_writers():
    """Closes and forgets the cached summary writers."""
    return _tf().summary.FileWriterCache.clear()


def get_summary_writer(logdir):
    """The cached summary writer for ``logdir``."""
    return _tf().summary.FileWriterCache.get(logdir)


def _first(collection):
    elems = _tf().get_collection(collection)
    return elems[0] if elems else None


def _saver():
    tf = _tf()
    saver = _first(tf.GraphKeys.SAVERS)
    if saver is None and tf.global_variables():
        saver = tf.train.Saver()
        tf.add_to_collection(tf.GraphKeys.SAVERS, saver)
    return saver


def _local_init_op():
    tf = _tf()
    op = _first(tf.GraphKeys.LOCAL_INIT_OP)
    if op is None:
        op = tf.group(tf.local_variables_initializer(), tf.tables_initializer())
        tf.add_to_collection(tf.GraphKeys.LOCAL_INIT_OP, op)
    return op


def _ready_op():
    tf = _tf()
    op = _first(tf.GraphKeys.READY_OP)
    if op is None:
        op = tf.report_uninitialized_variables()
        tf.add_to_collection(tf.GraphKeys.READY_OP, op)
    return op


def _restore(session, graph, checkpoint_path, saver=None):
    tf = _tf()
    saver = saver or _saver() or tf.train.Saver()
    if tf.gfile.IsDirectory(checkpoint_path):
        checkpoint_path = tf.train.latest_checkpoint(checkpoint_path)
    saver.restore(session, checkpoint_path)


def _results_str(results):
    return ", ".join(f"{k} = {v}" for k, v in sorted(results.items()))


def _write_summary(output_dir, results, step):
    tf = _tf()
    writer = get_summary_writer(output_dir)
    summary = tf.Summary()
    for key, value in results.items():
        if isinstance(value, (float, np.float32)):
            summary.value.add(tag=key, simple_value=float(value))
    writer.add_summary(summary, step)
    writer.flush()


def _run_with_monitors(session, step, tensors, feed_dict, monitors):
    for m in monitors:
        tensors += m.step_begin(step)
    tensors = list(set(tensors))
    values = session.run(tensors, feed_dict=feed_dict)
    outputs = dict(zip([t.name if hasattr(t, "name") else t for t in tensors], values))
    stop = False
    for m in monitors:
        stop = bool(m.step_end(step, outputs)) or stop
    return outputs, stop


def train(graph, output_dir, train_op, loss_op, global_step_tensor=None, init_op=None,
          init_feed_dict=None, init_fn=None, log_every_steps=10, supervisor_is_chief=True,
          supervisor_master="", supervisor_save_model_secs=600, keep_checkpoint_max=5,
          supervisor_save_summaries_steps=100, feed_fn=None, steps=None, fail_on_nan_loss=True,
          monitors=None, max_steps=None):
    """Runs ``train_op`` (fetching ``loss_op``) for ``steps`` more steps or up to
    ``max_steps``, resuming from the latest checkpoint in ``output_dir`` and saving one at
    the end; returns the last loss."""
    tf = _tf()
    from tideflow import contrib_learn_monitors as monitors_lib

    if steps is not None and max_steps is not None:
        raise ValueError("Can not provide both steps and max_steps.")
    if not output_dir:
        raise ValueError(f"Output directory should be non-empty {output_dir}.")
    if train_op is None:
        raise ValueError("Missing train_op.")
    if loss_op is None:
        raise ValueError("Missing loss_op.")
    with graph.as_default():
        gs = tf.contrib.framework.assert_or_get_global_step(graph, global_step_tensor)
        if gs is None:
            raise ValueError('No "global_step" was provided or found in the graph.')
        monitors = list(monitors or [])
        if not supervisor_is_chief:
            monitors = [m for m in monitors if m.run_on_all_workers]
        saver = tf.train.Saver(max_to_keep=keep_checkpoint_max)
        init = init_op if init_op is not None else tf.global_variables_initializer()
        local_init = _local_init_op()
        session = tf.Session(supervisor_master, graph=graph)
        latest = tf.train.latest_checkpoint(output_dir)
        if latest:
            saver.restore(session, latest)
        else:
            session.run(init, feed_dict=init_feed_dict)
            if init_fn is not None:
                init_fn(session)
        session.run(local_init)
        start_step = int(session.run(gs))
        if max_steps is None and steps:
            max_steps = start_step + steps
        for m in monitors:
            m.begin(max_steps=max_steps)
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(session, coord=coord)
    last_step = start_step
    loss_value = None
    try:
        while max_steps is None or last_step < max_steps:
            feed_dict = feed_fn() if feed_fn is not None else None
            outputs, stop = _run_with_monitors(session, last_step + 1, [train_op, loss_op],
                                               feed_dict, monitors)
            loss_value = outputs[loss_op.name]
            if np.isnan(loss_value):
                if fail_on_nan_loss:
                    _log.error("Model diverged with loss = NaN.")
                    raise monitors_lib.NanLossDuringTrainingError
                _log.warning("Model diverged with loss = NaN.")
            if stop:
                break
            this_step = int(session.run(gs))
            if this_step <= last_step:
                _log.error("Global step was not incremented by train op at step %s: new step "
                           "%d", last_step, this_step)
            last_step = this_step
    except tf.errors.OutOfRangeError as e:
        _log.warning("Got exception during tf.learn training loop possibly due to exhausted "
                     "input queue %s.", e)
    except StopIteration:
        _log.info("Exhausted input iterarator.")
    finally:
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=120)
        if supervisor_is_chief:
            last_step = int(session.run(gs))
            import os

            saver.save(session, os.path.join(output_dir, "model.ckpt"), global_step=last_step)
            for m in monitors:
                m.end()
        session.close()
    return loss_value


def evaluate(graph, output_dir, checkpoint_path, eval_dict, update_op=None,
             global_step_tensor=None, supervisor_master="", log_every_steps=10, feed_fn=None,
             max_steps=None):
    """Restores ``checkpoint_path`` (a file or a directory), runs ``update_op`` for up to
    ``max_steps`` steps (or until the input ends), then reads ``eval_dict``; writes the
    float results as a summary in ``output_dir``. Returns ``(results, global_step)``."""
    tf = _tf()
    if not output_dir:
        raise ValueError(f"Output directory should be non-empty {output_dir}.")
    with graph.as_default():
        gs = tf.contrib.framework.assert_or_get_global_step(graph, global_step_tensor)
        saver = _saver()
        manager = tf.train.SessionManager(local_init_op=_local_init_op(),
                                          ready_op=_ready_op())
        session, initialized = manager.recover_session(
            supervisor_master, saver=saver,
            checkpoint_dir=checkpoint_path if checkpoint_path and
            tf.gfile.IsDirectory(checkpoint_path) else None)
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(session, coord=coord)
    results = None
    step = 0
    try:
        with session:
            if not initialized:
                session.run(tf.global_variables_initializer())
                if checkpoint_path:
                    _restore(session, graph, checkpoint_path, saver)
            current_step = int(session.run(gs))
            feed_dict = None
            eval_step = None
            try:
                while max_steps is None or step < max_steps:
                    step += 1
                    feed_dict = feed_fn() if feed_fn is not None else None
                    if update_op is not None:
                        session.run(update_op, feed_dict=feed_dict)
                    else:
                        results = session.run(eval_dict, feed_dict=feed_dict)
                        eval_step = step
                    if step % log_every_steps == 0 and eval_step != step:
                        results = session.run(eval_dict, feed_dict=feed_dict)
                        eval_step = step
                        _log.info("Results after %d steps: %s.", step, _results_str(results))
            finally:
                if results is None or step != eval_step:
                    results = session.run(eval_dict, feed_dict=feed_dict)
                coord.request_stop()
                coord.join(threads, stop_grace_period_secs=120)
    except (tf.errors.OutOfRangeError, StopIteration):
        pass
    _write_summary(output_dir, results, current_step)
    return results, current_step


def run_feeds_iter(output_dict, feed_dicts, restore_checkpoint_path=None):
    """Runs ``output_dict`` once per feed of ``feed_dicts``, yielding each result dict;
    restores ``restore_checkpoint_path`` or else initializes the variables."""
    tf = _tf()
    if not output_dict:
        raise ValueError(f"output_dict is invalid: {output_dict}.")
    if not feed_dicts:
        raise ValueError(f"feed_dicts is invalid: {feed_dicts}.")
    graph = tf.contrib.framework.get_graph_from_inputs(list(output_dict.values()))
    with graph.as_default() as g, tf.Session("") as session:
        if restore_checkpoint_path:
            _restore(session, g, restore_checkpoint_path)
        else:
            session.run(tf.global_variables_initializer())
        session.run(tf.local_variables_initializer())
        session.run(tf.tables_initializer())
        coord = tf.train.Coordinator()
        threads = None
        try:
            threads = tf.train.start_queue_runners(session, coord=coord)
            for feed in feed_dicts:
                yield session.run(output_dict, feed)
        finally:
            coord.request_stop()
            if threads:
                coord.join(threads, stop_grace_period_secs=120)


def run_feeds(*args, **kwargs):
    """:func:`run_feeds_iter`'s results as a list."""
    return list(run_feeds_iter(*args, **kwargs))


def run_n(output_dict, feed_dict=None, restore_checkpoint_path=None, n=1):
    """Runs ``output_dict`` ``n`` times with ``feed_dict``; a list of the result dicts."""
    return run_feeds(output_dict=output_dict, feed_dicts=itertools.repeat(feed_dict, n),
                     restore_checkpoint_path=restore_checkpoint_path)


def infer(restore_checkpoint_path, output_dict, feed_dict=None):
    """Runs ``output_dict`` once (after restoring ``restore_checkpoint_path``, if given)."""
    return run_feeds(output_dict=output_dict, feed_dicts=[feed_dict],
                     restore_checkpoint_path=restore_checkpoint_path)[0]


__all__ = ["clear_summary_writers", "evaluate", "get_summary_writer", "infer", "run_feeds",
           "run_feeds_iter", "run_n", "train"]
