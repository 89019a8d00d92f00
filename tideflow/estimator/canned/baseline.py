"""``BaselineClassifier`` / ``BaselineRegressor``: a learned bias only (the label
distribution / mean), ignoring the features."""

from tideflow.estimator.canned import head as head_lib
from tideflow.estimator.estimator import Estimator
from tideflow.estimator.model_fn import ModeKeys
from tideflow.framework import dtypes, ops
from tideflow.ops import array_ops, cast_ops, init_ops, losses_impl, variable_scope
from tideflow.train import training_util


def _batch_size(features):
    for value in (features.values() if isinstance(features, dict) else [features]):
        t = value.dense_shape if hasattr(value, "dense_shape") else None
        if t is not None:
            return t[0]
        return array_ops.shape(ops.convert_to_tensor(value))[0]
    raise ValueError("features must not be empty")


def _baseline_model_fn(features, labels, mode, head, optimizer):
    with variable_scope.variable_scope("baseline"):
        bias = variable_scope.get_variable("bias", shape=[head.logits_dimension],
                                           dtype=dtypes.float32,
                                           initializer=init_ops.zeros_initializer())
        batch = ops.convert_to_tensor(_batch_size(features))
        logits = array_ops.tile(array_ops.expand_dims(bias, 0),
                                array_ops.stack([cast_ops.cast(batch, dtypes.int32), 1]))
    opt = None
    if mode == ModeKeys.TRAIN:
        opt = head_lib.get_optimizer_instance(optimizer, learning_rate=0.3)

    def train_op_fn(loss):
        return opt.minimize(loss, global_step=training_util.get_global_step())

    return head.create_estimator_spec(features=features, mode=mode, logits=logits,
                                      labels=labels,
                                      train_op_fn=train_op_fn if opt is not None else None)


class BaselineClassifier(Estimator):
    """Predicts the training labels' class distribution."""

    def __init__(self, model_dir=None, n_classes=2, weight_column=None, label_vocabulary=None,
                 optimizer="Ftrl", config=None, loss_reduction=losses_impl.Reduction.SUM):
        head = head_lib.classification_head(n_classes, weight_column, label_vocabulary,
                                            loss_reduction)
        super().__init__(model_fn=lambda features, labels, mode: _baseline_model_fn(
            features, labels, mode, head, optimizer), model_dir=model_dir, config=config)


class BaselineRegressor(Estimator):
    """Predicts the training labels' mean."""

    def __init__(self, model_dir=None, label_dimension=1, weight_column=None,
                 optimizer="Ftrl", config=None, loss_reduction=losses_impl.Reduction.SUM):
        head = head_lib.RegressionHead(label_dimension, weight_column, loss_reduction)
        super().__init__(model_fn=lambda features, labels, mode: _baseline_model_fn(
            features, labels, mode, head, optimizer), model_dir=model_dir, config=config)


class BaselineEstimator(Estimator):
    """A learned bias only, through a given head."""

    def __init__(self, head, model_dir=None, optimizer="Ftrl", config=None):
        super().__init__(model_fn=lambda features, labels, mode: _baseline_model_fn(
            features, labels, mode, head, optimizer), model_dir=model_dir, config=config)


__all__ = ["BaselineClassifier", "BaselineEstimator", "BaselineRegressor"]
