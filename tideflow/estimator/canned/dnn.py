"""``DNNClassifier``, ``DNNRegressor`` and ``DNNEstimator``: feed-forward networks over
feature columns (variables under ``dnn/``, as in TF)."""

from tideflow.estimator.canned import head as head_lib
from tideflow.estimator.estimator import Estimator
from tideflow.estimator.model_fn import ModeKeys
from tideflow.feature_column import feature_column as fc
from tideflow.framework import ops
from tideflow.ops import (
    init_ops,
    layers_core,
    layers_norm,
    losses_impl,
    nn_impl,
    partitioned_variables,
    variable_scope,
)
from tideflow.summary import summary as summary_lib

_LEARNING_RATE = 0.05


def _check_columns(feature_columns):
    # as TF 1.15, no columns is an error only when the model is built (the input layer's
    # "feature_columns must not be empty.")
    return tuple(feature_columns or [])


def default_partitioners(config, input_layer_partitioner=None):
    """TF's partitioners for a canned model: the network's variables split across the ps
    tasks, the input layer's only when over 64MB (one part, ``<name>/part_0``, without ps)."""
    num_ps = config.num_ps_replicas if config else 0
    network = partitioned_variables.min_max_variable_partitioner(max_partitions=num_ps)
    inputs = input_layer_partitioner or partitioned_variables.min_max_variable_partitioner(
        max_partitions=num_ps, min_slice_size=64 << 20)
    return network, inputs


def _layer_summaries(tag, value):
    """TF's summaries of a layer's output: the fraction of zeros and a histogram."""
    summary_lib.scalar(f"{tag}/fraction_of_zero_values", nn_impl.zero_fraction(value))
    summary_lib.histogram(f"{tag}/activation", value)


def dnn_logits(features, mode, hidden_units, logits_dimension, feature_columns,
               activation_fn, dropout, batch_norm=False, scope="dnn", return_name_scope=False,
               partitioner=None, input_layer_partitioner=None, head_fn=None):
    """The network's logits, built under variable scope ``scope`` (variables split by
    ``partitioner``, the input layer's by ``input_layer_partitioner``); with
    ``return_name_scope`` also the name scope that opened (``"dnn/"``), where TF 1.x builds
    the head. With ``head_fn``, what ``head_fn(logits)`` returns, called in that scope (as
    TF 1.x's DNN model builds its head and the optimizer's slots there)."""
    with variable_scope.variable_scope(scope, values=list(features.values()),
                                       partitioner=partitioner) as vs:
        use_resource = vs.use_resource
        # resource variables, as TF 1.15's Keras-built network (its ops and op count)
        vs.set_use_resource(True)
        name_scope = ops.get_default_graph().get_name_scope() + "/"
        with variable_scope.variable_scope("input_from_feature_columns",
                                           partitioner=input_layer_partitioner):
            net = fc.dense_input(features, list(feature_columns), state_first=True)
        # the layers are named as their scopes: dnn/hiddenlayer_0/kernel, dnn/logits/bias
        for i, units in enumerate(hidden_units):
            net = layers_core.dense(
                net, units=units, activation=activation_fn,
                kernel_initializer=init_ops.glorot_uniform_initializer(),
                name=f"hiddenlayer_{i}")
            if dropout is not None and mode == ModeKeys.TRAIN:
                net = layers_core.dropout(net, rate=dropout, training=True)
            if batch_norm:
                net = layers_norm.batch_normalization(
                    net, momentum=0.999, training=(mode == ModeKeys.TRAIN),
                    name=f"hiddenlayer_{i}/batchnorm_{i}")
            _layer_summaries(f"{scope}/hiddenlayer_{i}", net)
        logits = layers_core.dense(net, units=logits_dimension, activation=None,
                                   kernel_initializer=init_ops.glorot_uniform_initializer(),
                                   name="logits")
        _layer_summaries(f"{scope}/logits", logits)
        vs.set_use_resource(use_resource)
        if head_fn is not None:
            return head_fn(logits)
    return (logits, name_scope) if return_name_scope else logits


def minimize_op(optimizer, loss, var_list, global_step=None):
    update_ops = ops.get_collection(ops.GraphKeys.UPDATE_OPS)
    with ops.control_dependencies(update_ops):
        return optimizer.minimize(loss, var_list=var_list, global_step=global_step)


def _dnn_model_fn(features, labels, mode, head, hidden_units, feature_columns,
                  optimizer="Adagrad", activation_fn=nn_impl.relu, dropout=None,
                  batch_norm=False, config=None, input_layer_partitioner=None):
    if not isinstance(features, dict):
        raise ValueError(f"features should be a dictionary of `Tensor`s. Given type: "  # noqa: TRY004 - as TF
                         f"{type(features)}")
    partitioner, input_layer_partitioner = default_partitioners(config,
                                                                input_layer_partitioner)
    opt = None
    if mode == ModeKeys.TRAIN:
        opt = head_lib.get_optimizer_instance(optimizer, learning_rate=_LEARNING_RATE)

    def train_op_fn(loss):
        from tideflow.train import training_util

        return minimize_op(opt, loss, None, training_util.get_global_step())

    def head_fn(logits):  # TF 1.x: the head's ops are dnn/head/...
        return head.create_estimator_spec(features=features, mode=mode, logits=logits,
                                          labels=labels,
                                          train_op_fn=train_op_fn if opt is not None else None)

    return dnn_logits(features, mode, hidden_units, head.logits_dimension, feature_columns,
                      activation_fn, dropout, batch_norm, partitioner=partitioner,
                      input_layer_partitioner=input_layer_partitioner, head_fn=head_fn)


def _check_dropout(dropout):
    if dropout is not None and not 0 <= dropout < 1:
        raise ValueError(f"dropout must be in [0, 1), given: {dropout}")


class DNNEstimator(Estimator):
    """A DNN with a given head."""

    def __init__(self, head, hidden_units, feature_columns, model_dir=None,
                 optimizer="Adagrad", activation_fn=nn_impl.relu, dropout=None,
                 input_layer_partitioner=None, config=None, warm_start_from=None,
                 batch_norm=False):
        columns = _check_columns(feature_columns)
        _check_dropout(dropout)

        def model_fn(features, labels, mode, config):
            return _dnn_model_fn(features, labels, mode, head, hidden_units, columns,
                                 optimizer, activation_fn, dropout, batch_norm, config,
                                 input_layer_partitioner)

        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class DNNClassifier(DNNEstimator):
    """A DNN classifier of ``n_classes`` (sigmoid for 2, softmax above)."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, n_classes=2,
                 weight_column=None, label_vocabulary=None, optimizer="Adagrad",
                 activation_fn=nn_impl.relu, dropout=None, input_layer_partitioner=None,
                 config=None, warm_start_from=None,
                 loss_reduction=losses_impl.Reduction.SUM, batch_norm=False):
        head = head_lib.classification_head(n_classes, weight_column, label_vocabulary,
                                            loss_reduction)
        super().__init__(head, hidden_units, feature_columns, model_dir, optimizer,
                         activation_fn, dropout, input_layer_partitioner, config,
                         warm_start_from, batch_norm)


class DNNRegressor(DNNEstimator):
    """A DNN regressor of ``label_dimension`` outputs (squared loss)."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, label_dimension=1,
                 weight_column=None, optimizer="Adagrad", activation_fn=nn_impl.relu,
                 dropout=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction=losses_impl.Reduction.SUM,
                 batch_norm=False):
        head = head_lib.RegressionHead(label_dimension, weight_column, loss_reduction)
        super().__init__(head, hidden_units, feature_columns, model_dir, optimizer,
                         activation_fn, dropout, input_layer_partitioner, config,
                         warm_start_from, batch_norm)


__all__ = ["DNNClassifier", "DNNEstimator", "DNNRegressor"]
