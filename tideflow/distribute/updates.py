"""The optimizer in a tf.distribute replica: ``apply_gradients`` merges the replicas'
gradients (summed onto each variable's devices) and updates each device's copies with them;
an Estimator's loss is scaled so that the sum is a mean; assignments to mirrored variables in
a replica are aggregated."""

import contextlib

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
    """TF 1.15's ``Optimizer._distributed_apply``: the gradients summed, then, under the
    optimizer's name scope, ``_prepare`` once, each variable's copies updated in turn (a
    mirroring strategy's ``update_<i>`` scope for copy i: "Adam/update_0/update_w/...",
    "Adam/update_0_1/update_b/..."), ``_finish`` once per non-slot device after all of them
    ("Adam/update_0_2/update"), then the global step's increment or the group named after
    the scope."""
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
        # (one device: the gradient itself, as TF's batch_reduce of a lone replica's value)
        reduced = [g if isinstance(g, DistributedValues) or len(_devices_of(v)) == 1
                   else _broadcast(g, _devices_of(v)) for g, v in pairs]
    var_list = [v for _, v in pairs]
    with ops.control_dependencies(None):
        optimizer._create_slots(var_list)
    # (TF's MirroredStrategy opens "update_<i>" for copy i; its one-device and central
    # storage strategies open no scope)
    mirrors = getattr(ext, "_mirrors", False)
    # a Keras optimizer (OptimizerV2 in TF 1.15) opens each variable's scope first, the copy's
    # inside it ("SGD/update_dense/kernel/update_0/..."), and has no _finish per device
    keras = getattr(optimizer, "_STEP_READ", False)
    with ops.name_scope(name, optimizer._name) as scope:
        optimizer._prepare()
        update_ops = []
        for g, v in zip(reduced, var_list):
            copies = len(v.values) if isinstance(v, MirroredVariable) else 1
            with ops.name_scope("update_" + v.op.name) if keras else contextlib.nullcontext():
                for i in range(copies):
                    gi = g._component(i) if isinstance(g, DistributedValues) else g
                    with _Push(_Ctx("update", strategy, i)), _update_scope(mirrors, i), \
                            (contextlib.nullcontext() if keras
                             else ops.name_scope("update_" + v.op.name)), ops.colocate_with(v):
                        update_ops.append(
                            optimizer_lib._get_processor(v).update_op(optimizer, gi))
        if keras:
            finishes = update_ops  # (OptimizerV2: the step waits on the updates themselves)
        else:
            finishes = []
            for i, d in enumerate(ext.non_slot_devices(var_list)):
                with _Push(_Ctx("update", strategy, i)), ops.device(d), \
                        _update_scope(mirrors, i):
                    finishes.append(optimizer._finish(update_ops, "update"))
        result = None
        if global_step is None:
            train_op = control_flow_ops.group(*finishes, name=scope)
        else:
            with ops.control_dependencies(finishes):
                if isinstance(global_step, MirroredVariable):
                    from tideflow.ops import state_ops

                    # as TF: each copy's increment in its "update_<i>" scope, read after it
                    # (one copy: the read, as TF's unread variable; several: a Mirrored of
                    # reads after the group of all of them)
                    result = ext.update(global_step, state_ops.assign_add, args=(1,),
                                        kwargs={"name": scope})
                    first = result.values[0] if isinstance(result, Mirrored) else result
                    train_op = getattr(first, "_update_op", None) or first.op
                else:
                    from tideflow.ops import state_ops

                    with ops.colocate_with(global_step), \
                            _update_scope(mirrors and keras, 0):
                        # (Keras' iterations: made outside the strategy here, a mirrored
                        # variable in TF, whose increment is "update_0/AssignAddVariableOp")
                        step = state_ops.assign_add(global_step, 1, name=scope)
                        train_op = getattr(step, "_update_op", None) if keras else None
                        train_op = train_op or step.op
    if isinstance(train_op, ops.Tensor):
        train_op = train_op.op
    coll = ops.get_collection_ref(ops.GraphKeys.TRAIN_OP)
    if train_op not in coll:
        coll.append(train_op)
    if result is not None and reduce:  # called by the replicas (merge_call)
        return result
    return train_op


def _update_scope(mirrors, i):
    return ops.name_scope(f"update_{i}") if mirrors else contextlib.nullcontext()


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
