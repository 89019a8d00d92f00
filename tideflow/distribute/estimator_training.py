"""An Estimator's training under ``RunConfig(train_distribute=strategy)``: the model_fn runs
once per replica, each replica taking its own element of the input_fn's dataset, the
gradients are averaged over the replicas and the reported loss is their sum (as TF 1.x)."""

def train_distributed(estimator, input_fn, hooks, saving_listeners):
    """``Estimator.train``'s graph and loop with ``config.train_distribute``."""
    from tideflow.estimator import estimator as estimator_lib
    from tideflow.estimator.model_fn import ModeKeys
    from tideflow.framework import ops
    from tideflow.ops import dataset_ops
    from tideflow.protos import config_pb2
    from tideflow.train import training_util

    strategy = estimator.config.train_distribute
    mode = ModeKeys.TRAIN
    with ops.Graph().as_default() as g, strategy.scope():
        estimator._new_graph_setup(g)
        result = estimator._call_input_fn(input_fn, mode)
        input_hooks = []
        if isinstance(result, dataset_ops.Dataset):
            iterator = strategy.make_input_fn_iterator(lambda ctx: result)
            input_hooks.append(estimator_lib._DatasetInitializerHook(iterator))
            element = iterator.get_next()
            features, labels = (element if isinstance(element, tuple) and len(element) == 2
                                else (element, None))
        else:  # tensors: the batch is split over the replicas
            from tideflow.distribute.input_lib import _split

            features, labels, input_hooks = estimator_lib.parse_input_fn_result(result)
            n = strategy.num_replicas_in_sync
            features, labels = _split_structure((features, labels), n, _split)
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
        from tideflow.distribute.strategy import ReduceOp

        loss = strategy.reduce(ReduceOp.SUM, losses, axis=None)
        spec = specs[0]._replace(loss=loss, train_op=strategy.group(train_ops))
        global_step = training_util.get_global_step(g)
        saved = estimator._session_config
        estimator._session_config = strategy.update_config_proto(
            saved if saved is not None else config_pb2.ConfigProto(allow_soft_placement=True))
        try:
            return estimator._train_with_estimator_spec(spec, input_hooks + list(hooks),
                                                        global_step, saving_listeners)
        finally:
            estimator._session_config = saved


def _split_structure(structure, n, split):
    from tideflow.distribute.values import PerReplica
    from tideflow.framework import nest

    if n == 1:
        return structure
    flat = nest.flatten(structure)
    parts = [PerReplica([split(t, i, n) for i in range(n)]) if t is not None else None
             for t in flat]
    return nest.pack_sequence_as(structure, parts)
