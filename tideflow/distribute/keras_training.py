"""Keras ``fit`` for a model compiled in a strategy's scope: each replica runs the model on
its slice of the batch on its device, its loss weighted by its share of the batch, and the
optimizer's update (gradients summed over the replicas) reaches every copy of each weight."""

from tideflow.framework import ops


def uses_replicas(model):
    """Whether ``model`` was compiled in the scope of a strategy of several replicas."""
    strategy = getattr(model, "_distribution_strategy", None)
    return strategy is not None and strategy.num_replicas_in_sync > 1


def train_op(model, params):
    """(the op of one training step of ``model`` on the strategy's replicas, the loss the step
    reports: the batch's, before the update)."""
    import tideflow as tf
    from tideflow.distribute.input_lib import _split
    from tideflow.keras.engine import base_layer
    from tideflow.keras.engine import training as training_lib

    strategy = model._distribution_strategy
    n = strategy.num_replicas_in_sync
    # metrics and layer updates (batch norm's averages) come from the model's whole-batch
    # graph, which then runs first (it reads the weights before the step changes them); the
    # loss reported is the sum of the replicas' (as TF's, also with batch norm)
    whole_batch = list(model._metric_tensors) + list(model._model_updates())
    with ops.control_dependencies([model.total_loss] + whole_batch if whole_batch else []):
        batch = tf.cast(tf.shape(model.inputs[0])[0], model.total_loss.dtype)
        inputs = [tf.identity(x) for x in model.inputs]
    targets = model.targets
    weights = model.sample_weights
    # the losses computed from the model's inputs (add_loss in a call, activity
    # regularization) each replica's own call makes again on its slice; the others (the
    # weights' regularization) are added once
    input_ids = {id(x) for x in model.inputs}
    weight_losses = [r for r in model.losses if not base_layer._depends_on(r, input_ids)]

    def replica_fn(i):
        xs = [_split(x, i, n) for x in inputs]
        nested = getattr(model, "_nested_inputs", None)
        if isinstance(nested, (list, tuple, dict)):  # (a model called on a dict gets one)
            xs_in = tf.nest.pack_sequence_as(nested, xs)
        else:
            xs_in = xs if len(xs) > 1 else xs[0]
        before = {id(r) for r in model.losses}
        outs = tf.nest.flatten(model(xs_in))
        call_losses = [r for r in model.losses if id(r) not in before]
        total = tf.add_n([tf.cast(r, tf.keras.backend.floatx()) for r in call_losses]) \
            if call_losses else None
        loss_weights = model.loss_weights
        if isinstance(loss_weights, dict):
            loss_weights = [loss_weights.get(name, 1.0) for name in model.output_names]
        for o, (out, fn) in enumerate(zip(outs, model._loss_fns)):
            if fn is None:
                continue
            target = _split(targets[o], i, n)
            # (a model fed no sample weights has no placeholders for them, as TF 1.15's)
            sw = None if weights[o] is None else _split(weights[o], i, n)
            mask = model._output_mask(out)
            if isinstance(fn, training_lib.losses_mod.Loss):
                w = sw if mask is None else mask if sw is None else \
                    training_lib._times_mask(sw, mask)
                value = fn(target, out, sample_weight=w)
            else:
                per_sample = fn(target, out)
                w = None if sw is None else training_lib._expand_to(sw, per_sample)
                if mask is not None:
                    w = mask if w is None else training_lib._times_mask(w, mask)
                weighted = per_sample if w is None else per_sample * w
                value = tf.reduce_sum(weighted) / tf.cast(tf.size(per_sample), weighted.dtype)
            if loss_weights is not None and loss_weights[o] != 1.0:
                value = value * loss_weights[o]
            total = value if total is None else total + value
        # the replica's share of the batch's mean: the summed gradients are the batch's
        share = tf.cast(tf.shape(xs[0])[0], total.dtype) / batch
        total = total * share
        if i == 0 and weight_losses:  # the weights' regularization, once (read from copy 0)
            total = total + tf.add_n([tf.cast(r, total.dtype) for r in weight_losses])
        grads = tf.gradients(total, params)
        if any(g is None for g in grads):
            missing = [p.name for p, g in zip(params, grads) if g is None]
            raise ValueError("An operation has `None` for gradient. Please make sure that all "
                             "of your ops have a gradient defined (i.e. are differentiable). "
                             f"Variables without a gradient: {missing}")
        ctx = tf.distribute.get_replica_context()
        return ctx.merge_call(_apply, args=(model.optimizer, grads, params)), total

    def per_replica():
        from tideflow.distribute import replica

        return replica_fn(replica._current_index())  # this replica's index

    from tideflow.distribute.replica import ReduceOp

    step, totals = strategy.extended.call_for_each_replica(per_replica)
    loss = strategy.reduce(ReduceOp.SUM, totals, axis=None)
    return strategy.group(step), loss


def _apply(strategy, optimizer, grads, params):
    """Once, in cross-replica context: the replicas' gradients summed onto each weight's
    devices (then clipped as the optimizer says), and the Keras optimizer's update from them.
    An update through a tf.train optimizer runs per device on that device's copies; one
    written with assign ops assigns every copy the same value."""
    import tideflow as tf
    from tideflow.distribute.replica import ReduceOp

    reduced = strategy.extended.batch_reduce_to(ReduceOp.SUM, list(zip(grads, params)))
    if optimizer.clipnorm is not None and optimizer.clipnorm > 0:
        reduced = [_map(g, lambda t: tf.clip_by_norm(t, optimizer.clipnorm)) for g in reduced]
    if optimizer.clipvalue is not None and optimizer.clipvalue > 0:
        c = optimizer.clipvalue
        reduced = [_map(g, lambda t: tf.clip_by_value(t, -c, c)) for g in reduced]
    # the optimizer's own gradient step is replaced by the reduced gradients for this call
    # (a wrapped tf.train optimizer computes them with compute_gradients)
    target = getattr(optimizer, "optimizer", None)
    if target is not None and hasattr(target, "compute_gradients"):
        target.compute_gradients = lambda loss, var_list=None, **kw: list(zip(reduced, params))
    else:
        target = optimizer
        target.get_gradients = lambda loss, var_list: list(reduced)
    try:
        with ops.name_scope("training"):
            updates = optimizer.get_updates(None, params)
    finally:
        target.__dict__.pop("compute_gradients", None)
        target.__dict__.pop("get_gradients", None)
    return tf.group(*updates)


def _map(value, fn):
    from tideflow.distribute.values import DistributedValues, Mirrored

    if isinstance(value, DistributedValues):
        out = []
        for v in value.values:
            with ops.device(v.device):
                out.append(fn(v))
        return Mirrored(out)
    return fn(value)
