"""An Estimator under ``RunConfig(train_distribute=..., eval_distribute=...)``: the model_fn
runs once per replica, each replica taking its own element of the input_fn's dataset (or its
slice of the tensors returned); in training the gradients are averaged over the replicas and
the reported loss is their sum (as TF 1.x); in evaluation the metrics cover every replica."""


def train_distributed(estimator, input_fn, hooks, saving_listeners):
    """``Estimator.train``'s graph and loop with ``config.train_distribute``."""
    from tideflow.estimator.model_fn import ModeKeys
    from tideflow.framework import ops
    from tideflow.train import training_util

    strategy = estimator.config.train_distribute
    mode = ModeKeys.TRAIN
    with ops.Graph().as_default() as g, strategy.scope():
        estimator._new_graph_setup(g)
        features, labels, input_hooks = _replica_inputs(estimator, strategy, input_fn, mode)
        specs = []

        def replica_fn(f, lab):
            spec = estimator._call_model_fn(f, lab, mode, estimator.config)
            specs.append(spec)
            return spec.loss, spec.train_op

        strategy._scale_loss_for_estimator = True
        try:
            losses, train_ops = strategy.extended.call_for_each_replica(
                replica_fn, args=(features, labels))
        finally:
            strategy._scale_loss_for_estimator = False
        from tideflow.distribute.replica import ReduceOp

        loss = strategy.reduce(ReduceOp.SUM, losses, axis=None)
        spec = specs[0]._replace(loss=loss, train_op=strategy.group(train_ops))
        global_step = training_util.get_global_step(g)
        _session_config(estimator, strategy)
        return estimator._train_with_estimator_spec(spec, input_hooks + list(hooks),
                                                    global_step, saving_listeners)


def evaluate_build_graph(estimator, input_fn, hooks):
    """``Estimator._evaluate_build_graph`` with ``config.eval_distribute``: the model_fn and
    its metrics per replica; each replica updates its copy of the metric variables and the
    values read the sum of the copies (plus ``loss``, the mean over replicas and batches)."""
    from tideflow import metrics as metrics_lib
    from tideflow.estimator import estimator as estimator_lib
    from tideflow.estimator.model_fn import ModeKeys
    from tideflow.framework import ops

    strategy = estimator.config.eval_distribute
    mode = ModeKeys.EVAL
    g = ops.get_default_graph()
    with strategy.scope():
        global_step = estimator._new_graph_setup(g)
        features, labels, input_hooks = _replica_inputs(estimator, strategy, input_fn, mode)
        specs = []

        def replica_fn(f, lab):
            spec = estimator._call_model_fn(f, lab, mode, estimator.config)
            if estimator_lib.LOSS_METRIC_KEY in spec.eval_metric_ops:
                raise ValueError(f'Metric with name "{estimator_lib.LOSS_METRIC_KEY}" is not '
                                 "allowed, because Estimator already defines a default metric "
                                 "with the same name.")
            if estimator_lib.GLOBAL_STEP in spec.eval_metric_ops:
                raise ValueError("Metric with name `global_step` is not allowed, because "
                                 "Estimator already defines a default metric with the same "
                                 "name.")
            specs.append(spec)
            metric_ops = dict(spec.eval_metric_ops)
            metric_ops[estimator_lib.LOSS_METRIC_KEY] = metrics_lib.mean(spec.loss)
            return ({k: v[1] for k, v in metric_ops.items()},
                    {k: v[0] for k, v in metric_ops.items()})

        updates, values = strategy.extended.call_for_each_replica(replica_fn,
                                                                  args=(features, labels))
    update_op = strategy.group(updates)
    # as TF, the metrics in name order (the dict evaluate returns), then the global step
    eval_dict = {k: strategy.experimental_local_results(values[k])[0] for k in sorted(values)}
    eval_dict[estimator_lib.GLOBAL_STEP] = global_step
    _session_config(estimator, strategy)
    all_hooks = list(input_hooks) + list(hooks) + list(specs[0].evaluation_hooks)
    return specs[0].scaffold, update_op, eval_dict, all_hooks


def _session_config(estimator, strategy):
    """The estimator's sessions get the strategy's devices (e.g. ``device_count`` CPUs)."""
    from tideflow.protos import config_pb2

    config = estimator._session_config
    estimator._session_config = strategy.update_config_proto(
        config if config is not None else config_pb2.ConfigProto(allow_soft_placement=True))


def _replica_inputs(estimator, strategy, input_fn, mode):
    """(features, labels, input hooks): each replica's element of the input_fn's dataset, or
    its slice of the tensors the input_fn returned."""
    from tideflow.estimator import estimator as estimator_lib
    from tideflow.ops import dataset_ops

    result = estimator._call_input_fn(input_fn, mode)
    if isinstance(result, dataset_ops.Dataset):
        iterator = strategy.make_input_fn_iterator(lambda ctx: result)
        element = iterator.get_next()
        features, labels = (element if isinstance(element, tuple) and len(element) == 2
                            else (element, None))
        return features, labels, [estimator_lib._DatasetInitializerHook(iterator)]
    from tideflow.distribute.input_lib import _split

    features, labels, input_hooks = estimator_lib.parse_input_fn_result(result)
    n = strategy.num_replicas_in_sync
    features, labels = _split_structure((features, labels), n, _split)
    return features, labels, list(input_hooks)


def _split_structure(structure, n, split):
    from tideflow.distribute.values import PerReplica
    from tideflow.framework import nest

    if n == 1:
        return structure
    flat = nest.flatten(structure)
    parts = [PerReplica([split(t, i, n) for i in range(n)]) if t is not None else None
             for t in flat]
    return nest.pack_sequence_as(structure, parts)
