"""``DNNLinearCombinedClassifier`` / ``Regressor``: the sum of a linear model's and a DNN's
logits, each part trained by its own optimizer ("wide and deep")."""

from tideflow.estimator.canned import dnn as dnn_lib
from tideflow.estimator.canned import head as head_lib
from tideflow.estimator.canned import linear as linear_lib
from tideflow.estimator.estimator import Estimator
from tideflow.estimator.model_fn import ModeKeys
from tideflow.framework import ops
from tideflow.ops import control_flow_ops, losses_impl, nn_impl, state_ops
from tideflow.train import training_util

_DNN_LEARNING_RATE = 0.001
_LINEAR_LEARNING_RATE = 0.005


def _combined_model_fn(features, labels, mode, head, linear_feature_columns,
                       linear_optimizer, dnn_feature_columns, dnn_optimizer,
                       dnn_hidden_units, dnn_activation_fn, dnn_dropout, linear_sparse_combiner,
                       batch_norm, config=None, input_layer_partitioner=None):
    if not isinstance(features, dict):
        raise ValueError(f"features should be a dictionary of `Tensor`s. Given type: "  # noqa: TRY004 - as TF
                         f"{type(features)}")
    parts = []
    # as TF: the DNN's variables split across the ps tasks, the input layer's and the linear
    # model's only when over 64MB (a single part, "<name>/part_0", without ps tasks)
    partitioner, input_layer_partitioner = dnn_lib.default_partitioners(
        config, input_layer_partitioner)
    if dnn_feature_columns:
        if not dnn_hidden_units:
            # (TF 1.15 asks only when the model is built)
            raise ValueError("dnn_hidden_units must be defined when dnn_feature_columns is "
                             "specified.")
        parts.append(dnn_lib.dnn_logits(features, mode, dnn_hidden_units,
                                        head.logits_dimension, dnn_feature_columns,
                                        dnn_activation_fn, dnn_dropout, batch_norm,
                                        partitioner=partitioner,
                                        input_layer_partitioner=input_layer_partitioner))
    if linear_feature_columns:
        parts.append(linear_lib.linear_logits(features, linear_feature_columns,
                                              head.logits_dimension, linear_sparse_combiner,
                                              partitioner=input_layer_partitioner))
    logits = parts[0] if len(parts) == 1 else parts[0] + parts[1]

    def train_op_fn(loss):
        train_ops = []
        gvars = ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES)
        if dnn_feature_columns:
            opt = head_lib.get_optimizer_instance(dnn_optimizer, _DNN_LEARNING_RATE)
            train_ops.append(dnn_lib.minimize_op(
                opt, loss, [v for v in gvars if v.op.name.startswith("dnn/")]))
        if linear_feature_columns:
            opt = head_lib.get_optimizer_instance(
                linear_optimizer,
                linear_lib.linear_learning_rate(len(linear_feature_columns),
                                                _LINEAR_LEARNING_RATE))
            train_ops.append(opt.minimize(
                loss, var_list=[v for v in gvars if v.op.name.startswith("linear/")]))
        train_op = control_flow_ops.group(*train_ops)
        with ops.control_dependencies([train_op]):
            return state_ops.assign_add(training_util.get_global_step(), 1).op

    return head.create_estimator_spec(
        features=features, mode=mode, logits=logits, labels=labels,
        train_op_fn=train_op_fn if mode == ModeKeys.TRAIN else None)


class _Combined(Estimator):
    def __init__(self, head, model_dir, linear_feature_columns, linear_optimizer,
                 dnn_feature_columns, dnn_optimizer, dnn_hidden_units, dnn_activation_fn,
                 dnn_dropout, config, warm_start_from, linear_sparse_combiner, batch_norm,
                 input_layer_partitioner=None):
        linear_feature_columns = tuple(linear_feature_columns or [])
        dnn_feature_columns = tuple(dnn_feature_columns or [])
        if not linear_feature_columns and not dnn_feature_columns:
            raise ValueError("Either linear_feature_columns or dnn_feature_columns must be "
                             "defined.")

        def model_fn(features, labels, mode, config):
            return _combined_model_fn(features, labels, mode, head, linear_feature_columns,
                                      linear_optimizer, dnn_feature_columns, dnn_optimizer,
                                      dnn_hidden_units, dnn_activation_fn, dnn_dropout,
                                      linear_sparse_combiner, batch_norm, config,
                                      input_layer_partitioner)

        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class DNNLinearCombinedClassifier(_Combined):
    """A wide-and-deep classifier."""

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
                 dnn_activation_fn=nn_impl.relu, dnn_dropout=None, n_classes=2,
                 weight_column=None, label_vocabulary=None, input_layer_partitioner=None,
                 config=None, warm_start_from=None, loss_reduction=losses_impl.Reduction.SUM,
                 batch_norm=False, linear_sparse_combiner="sum"):
        head = head_lib.classification_head(n_classes, weight_column, label_vocabulary,
                                            loss_reduction)
        super().__init__(head, model_dir, linear_feature_columns, linear_optimizer,
                         dnn_feature_columns, dnn_optimizer, dnn_hidden_units,
                         dnn_activation_fn, dnn_dropout, config, warm_start_from,
                         linear_sparse_combiner, batch_norm, input_layer_partitioner)


class DNNLinearCombinedRegressor(_Combined):
    """A wide-and-deep regressor."""

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
                 dnn_activation_fn=nn_impl.relu, dnn_dropout=None, label_dimension=1,
                 weight_column=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction=losses_impl.Reduction.SUM,
                 batch_norm=False, linear_sparse_combiner="sum"):
        head = head_lib.RegressionHead(label_dimension, weight_column, loss_reduction)
        super().__init__(head, model_dir, linear_feature_columns, linear_optimizer,
                         dnn_feature_columns, dnn_optimizer, dnn_hidden_units,
                         dnn_activation_fn, dnn_dropout, config, warm_start_from,
                         linear_sparse_combiner, batch_norm, input_layer_partitioner)


class DNNLinearCombinedEstimator(_Combined):
    """A wide-and-deep model with a given head (``tf.estimator.DNNLinearCombinedEstimator``,
    ``tf.contrib.estimator.DNNLinearCombinedEstimator``)."""

    def __init__(self, head, model_dir=None, linear_feature_columns=None,
                 linear_optimizer="Ftrl", dnn_feature_columns=None, dnn_optimizer="Adagrad",
                 dnn_hidden_units=None, dnn_activation_fn=nn_impl.relu, dnn_dropout=None,
                 input_layer_partitioner=None, config=None, linear_sparse_combiner="sum",
                 warm_start_from=None, batch_norm=False):
        super().__init__(head, model_dir, linear_feature_columns, linear_optimizer,
                         dnn_feature_columns, dnn_optimizer, dnn_hidden_units,
                         dnn_activation_fn, dnn_dropout, config, warm_start_from,
                         linear_sparse_combiner, batch_norm, input_layer_partitioner)


__all__ = ["DNNLinearCombinedClassifier", "DNNLinearCombinedEstimator",
           "DNNLinearCombinedRegressor"]
