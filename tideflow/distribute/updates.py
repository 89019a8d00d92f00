"""The optimizer in a tf.distribute replica: ``apply_gradients`` merges the replicas'
gradients (summed onto each variable's devices) and updates each device's copies with them;
an Estimator's loss is scaled so that the sum is a mean; assignments to mirrored variables in
a replica are aggregated."""

from tideflow.distribute.replica import (
    ReduceOp,
    _broadcast,
    _Ctx,
    _devices_of,
    _Push,
    _top,
    get_loss_reduction,
    get_replica_context,
)
from tideflow.distribute.values import DistributedValues, Mirrored, MirroredVariable, PerReplica
from tideflow.framework import ops


def optimizer_apply(optimizer, grads_and_vars, global_step, name):
    """``Optimizer.apply_gradients`` called in a replica: None when not in one (the plain
    path runs); else the train op, after the gradients are summed over the replicas and each
    device's copy of each variable is updated with the sum."""
    top = _top()
    if top is None or top.kind != "replica":
        mirrored = [v for g, v in grads_and_vars
                    if g is not None and isinstance(v, MirroredVariable)]
        if not mirrored:
            return None
        # gradients computed once (from the primary copies, e.g. Keras' fit outside a replica
        # function): every copy gets the same update, so the copies stay equal
        strategy = mirrored[0].distribute_strategy
        with _Push(_Ctx("cross", strategy), strategy.extended._creator):
            return _merge_apply(strategy, optimizer, list(grads_and_vars), global_step, name,
                                reduce=False)
    ctx = top.replica_ctx
    return ctx.merge_call(_merge_apply, args=(optimizer, list(grads_and_vars), global_step,
                                                name))


def scale_loss(loss):
    """The loss an optimizer differentiates in a replica: divided by the number of replicas
    when the gradients are to be averaged (an Estimator's model_fn)."""
    top = _top()
    if top is None or top.kind != "replica" or get_loss_reduction() is not ReduceOp.MEAN:
        return loss
    n = top.strategy.num_replicas_in_sync
    return loss if n == 1 else loss * (1.0 / n)


def _merge_apply(strategy, optimizer, grads_and_vars, global_step, name, reduce=True):
    from tideflow.ops import control_flow_ops
    from tideflow.train import optimizer as optimizer_lib

    ext = strategy.extended
    # each replica may have made its own optimizer (an Estimator's model_fn): the first's
    # slots and hyper-parameters serve them all, as in TF
    optimizer, name, global_step = (x.values[0] if isinstance(x, PerReplica) else x
                                    for x in (optimizer, name, global_step))
    pairs = [(g, v) for g, v in grads_and_vars if g is not None]
    if not pairs:
        raise ValueError(f"No gradients provided for any variable: "
                         f"{[str(v) for _, v in grads_and_vars]}.")
    if reduce:
        reduced = ext.batch_reduce_to(ReduceOp.SUM, [(g, v) for g, v in pairs])
    else:
        reduced = [g if isinstance(g, DistributedValues) else _broadcast(g, _devices_of(v))
                   for g, v in pairs]
    var_list = [v for _, v in pairs]
    with ops.control_dependencies(None):
        optimizer._create_slots(var_list)
    n = max(len(v.values) if isinstance(v, MirroredVariable) else 1 for v in var_list)
    device_updates = []
    with ops.name_scope(name, optimizer._name) as scope:
        for i in range(n):
            with _Push(_Ctx("update", strategy, i)):
                optimizer._prepare()
                updates = []
                for g, v in zip(reduced, var_list):
                    if not isinstance(v, MirroredVariable) and i > 0:
                        continue
                    g = g._component(i) if isinstance(g, DistributedValues) else g
                    with ops.name_scope("update_" + v.op.name), ops.colocate_with(v):
                        updates.append(optimizer_lib._get_processor(v).update_op(optimizer, g))
                device_updates.append(optimizer._finish(
                    updates, "update" if i == 0 else f"update_{i}"))
        steps = None
        if global_step is None:
            train_op = control_flow_ops.group(*device_updates, name=scope)
        else:
            with ops.control_dependencies(device_updates):
                if isinstance(global_step, MirroredVariable):
                    # as TF: each replica gets its device's step after the increment
                    from tideflow.ops import array_ops

                    steps = []
                    for c in global_step.values:
                        with ops.colocate_with(None, ignore_existing=True), ops.device(c.device):
                            steps.append(array_ops.identity(c.assign_add(1)))
                    train_op = control_flow_ops.group(*steps)
                else:
                    from tideflow.ops import state_ops

                    with ops.colocate_with(global_step):
                        train_op = state_ops.assign_add(global_step, 1, name=scope).op
    if isinstance(train_op, ops.Tensor):
        train_op = train_op.op
    coll = ops.get_collection_ref(ops.GraphKeys.TRAIN_OP)
    if train_op not in coll:
        coll.append(train_op)
    if steps is not None and reduce:  # called by the replicas (merge_call)
        return Mirrored(steps)
    return train_op


def _replica_variable_update(var, method, value, read_value, kwargs):
    """An assignment to a MirroredVariable in a replica: with an aggregation, the replicas'
    values are combined and every copy gets the result; without one it is TF's error."""
    from tideflow.ops.tf1_misc_ops import VariableAggregation

    agg = var._mirrored_aggregation
    if agg is None or agg == VariableAggregation.NONE:
        raise ValueError(
            "You must specify an aggregation method to update a MirroredVariable in Replica "
            "Context. You can do so by passing an explicit value for argument `aggregation` to "
            "tf.Variable(..).e.g. `tf.Variable(..., aggregation=tf.VariableAggregation.SUM)`."
            "`tf.VariableAggregation` lists the possible aggregation methods.This is required "
            "because MirroredVariable should always be kept in sync. When updating them or "
            "assigning to them in a replica context, we automatically try to aggregate the "
            "values before updating the variable. For this aggregation, we need to know the "
            "aggregation method. Another alternative is to not try to update such "
            "MirroredVariable in replica context. You can do this by using "
            "`tf.distribute.get_replica_context().merge_call` or by using "
            "`tf.distribute.get_strategy().extended.update` instead.")

    def merge(strategy, v, val):
        if agg == VariableAggregation.ONLY_FIRST_REPLICA:
            first = val._component(0) if isinstance(val, DistributedValues) else val
            reduced = _broadcast(first, v.devices)
        else:
            reduced = strategy.extended.reduce_to(ReduceOp[agg.name], val, v)
        return v._update(method, reduced, read_value, **kwargs)

    return get_replica_context().merge_call(merge, args=(var, value))
