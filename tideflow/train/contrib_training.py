"""``tf.contrib.training``'s training loop: ``create_train_op`` (update ops first, gradients
optionally transformed, loss checked for NaN/Inf), ``train`` (a MonitoredTrainingSession
loop until a hook stops it), ``add_gradients_summaries``, ``clip_gradient_norms`` and
``multiply_gradients``."""

from tideflow import logging
from tideflow.framework import ops
from tideflow.train import monitored_session, training_util
from tideflow.train.slim_learning import _clip_by_norm, gradients_summaries, multiply_gradients

_USE_GLOBAL_STEP = object()


def add_gradients_summaries(grads_and_vars):
    """A histogram of each gradient (``<var>_gradient``) and a scalar of its global norm
    (``<var>_gradient_norm``); returns the summary ops."""
    return gradients_summaries(grads_and_vars, "_")


def clip_gradient_norms(gradients_to_variables, max_norm):
    """Each gradient clipped to norm ``max_norm``."""
    return _clip_by_norm(gradients_to_variables, max_norm)


def clip_gradient_norms_fn(max_norm):
    """A ``transform_grads_fn`` for ``create_train_op`` that clips each gradient to norm
    ``max_norm``."""
    def clip_norms(gradients_to_variables):
        return clip_gradient_norms(gradients_to_variables, max_norm)
    return clip_norms


def create_train_op(total_loss, optimizer, global_step=_USE_GLOBAL_STEP, update_ops=None,
                    variables_to_train=None, transform_grads_fn=None,
                    summarize_gradients=False, gate_gradients=1, aggregation_method=None,
                    colocate_gradients_with_ops=False, check_numerics=True):
    """A tensor that, when run, runs ``update_ops`` (default: UPDATE_OPS), applies one
    optimizer step to ``variables_to_train`` and returns ``total_loss``."""
    from tideflow.ops import control_flow_ops, numerics

    if global_step is _USE_GLOBAL_STEP:
        global_step = training_util.get_or_create_global_step()
    graph_updates = set(ops.get_collection(ops.GraphKeys.UPDATE_OPS))
    update_ops = graph_updates if update_ops is None else set(update_ops)
    if not graph_updates.issubset(update_ops):
        logging.warning("update_ops in create_train_op does not contain all the update_ops "
                        "in GraphKeys.UPDATE_OPS")
    if update_ops:
        with ops.control_dependencies(sorted(update_ops, key=lambda o: o.name)):
            barrier = control_flow_ops.no_op(name="update_barrier")
        total_loss = control_flow_ops.with_dependencies([barrier], total_loss)
    if variables_to_train is None:
        variables_to_train = ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES)
    else:
        trainable = ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES)
        for v in variables_to_train:
            # TF 1.15 checks these with bare asserts, so a program sees AssertionError
            if not (v.trainable or v in trainable):
                raise AssertionError()
    if not variables_to_train:
        raise AssertionError()
    grads = optimizer.compute_gradients(
        total_loss, variables_to_train, gate_gradients=gate_gradients,
        aggregation_method=aggregation_method,
        colocate_gradients_with_ops=colocate_gradients_with_ops)
    if transform_grads_fn:
        grads = transform_grads_fn(grads)
    if summarize_gradients:
        with ops.name_scope("summarize_grads"):
            add_gradients_summaries(grads)
    grad_updates = optimizer.apply_gradients(grads, global_step=global_step)
    with ops.name_scope("train_op"):
        if check_numerics:
            total_loss = numerics.check_numerics(total_loss, "LossTensor is inf or nan")
        train_op = control_flow_ops.with_dependencies([grad_updates], total_loss)
    train_ops = ops.get_collection_ref(ops.GraphKeys.TRAIN_OP)
    if train_op not in train_ops:
        train_ops.append(train_op)
    return train_op


def train(train_op, logdir, master="", is_chief=True, scaffold=None, hooks=None,
          chief_only_hooks=None, save_checkpoint_secs=600, save_summaries_steps=100,
          config=None, max_wait_secs=7200, run_metadata=None):
    """Runs ``train_op`` in a MonitoredTrainingSession (checkpoints and summaries in
    ``logdir``) until a hook asks to stop; returns the last value of ``train_op``."""
    if logdir is None and is_chief:
        if save_summaries_steps:
            raise ValueError("logdir cannot be None when save_summaries_steps is not None")
        if save_checkpoint_secs:
            raise ValueError("logdir cannot be None when save_checkpoint_secs is not None")
    with monitored_session.MonitoredTrainingSession(
            master=master, is_chief=is_chief, checkpoint_dir=logdir, scaffold=scaffold,
            hooks=hooks, chief_only_hooks=chief_only_hooks,
            save_checkpoint_secs=save_checkpoint_secs,
            save_summaries_steps=save_summaries_steps, config=config,
            max_wait_secs=max_wait_secs) as session:
        loss = None
        while not session.should_stop():
            loss = session.run(train_op, run_metadata=run_metadata)
    return loss


__all__ = ["add_gradients_summaries", "clip_gradient_norms", "clip_gradient_norms_fn",
           "create_train_op",
           "multiply_gradients", "train"]
