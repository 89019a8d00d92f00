"""The public heads of TF 1.15's ``tf.estimator`` (``BinaryClassHead``, ``MultiClassHead``,
``RegressionHead``): the canned heads with the v2 defaults (loss averaged over the batch) and a
custom ``loss_fn``, for ``DNNEstimator``/``LinearEstimator(head=...)`` and custom model_fns."""

from tideflow.estimator.canned import head as head_lib
from tideflow.ops import losses_impl

_MEAN = losses_impl.Reduction.SUM_OVER_BATCH_SIZE
# TF 1.15's public heads take tf.keras.losses.Reduction values ('sum', 'sum_over_batch_size')
_KERAS_REDUCTIONS = {"sum": losses_impl.Reduction.SUM, "sum_over_batch_size": _MEAN}


def _reduction(loss_reduction):
    if loss_reduction in ("none", "auto"):
        raise ValueError(f"Invalid loss_reduction: {loss_reduction}. See "
                         "`tf.losses.Reduction` for valid options.")
    return _KERAS_REDUCTIONS.get(loss_reduction, loss_reduction)


class BinaryClassHead(head_lib.BinaryClassHead):
    """Sigmoid cross-entropy on one logit per example."""

    def __init__(self, weight_column=None, thresholds=None, label_vocabulary=None,
                 loss_reduction=_MEAN, loss_fn=None, name=None):
        thresholds = tuple(thresholds) if thresholds else ()
        if label_vocabulary is not None and not isinstance(label_vocabulary, (list, tuple)):
            raise TypeError("label_vocabulary should be a list or tuple. Given type: "
                            f"{type(label_vocabulary)}")
        for threshold in thresholds:
            if threshold <= 0.0 or threshold >= 1.0:
                raise ValueError(f"thresholds not in (0, 1): {(thresholds,)}.")
        super().__init__(weight_column, label_vocabulary, _reduction(loss_reduction), name)
        self._thresholds = thresholds
        self._loss_fn = loss_fn


class MultiClassHead(head_lib.MultiClassHead):
    """Softmax cross-entropy over ``n_classes`` logits."""

    def __init__(self, n_classes, weight_column=None, label_vocabulary=None,
                 loss_reduction=_MEAN, loss_fn=None, name=None):
        if n_classes is None or n_classes < 2:
            raise ValueError(f"n_classes must be > 2: {n_classes}.")
        super().__init__(n_classes, weight_column, label_vocabulary,
                         _reduction(loss_reduction), name)
        self._loss_fn = loss_fn


class RegressionHead(head_lib.RegressionHead):
    """Squared error on ``label_dimension`` outputs (``inverse_link_fn`` maps the logits to
    the predictions)."""

    def __init__(self, label_dimension=1, weight_column=None, loss_reduction=_MEAN,
                 loss_fn=None, inverse_link_fn=None, name=None):
        super().__init__(label_dimension, weight_column, _reduction(loss_reduction), name)
        self._loss_fn = loss_fn
        self._inverse_link_fn = inverse_link_fn

    def _predictions(self, logits):
        predictions = super()._predictions(logits)
        if self._inverse_link_fn is not None:
            predictions = {"predictions": self._inverse_link_fn(logits), "logits": logits}
        return predictions


class LogisticRegressionHead(RegressionHead):
    """Regression of values in [0, 1]: sigmoid cross-entropy on the logits, the sigmoid of
    the logits as the predictions."""

    def __init__(self, weight_column=None, loss_reduction=_MEAN, name=None):
        from tideflow.ops import nn_impl, unary_ops

        def loss_fn(labels, logits):
            return nn_impl.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)

        super().__init__(label_dimension=1, weight_column=weight_column,
                         loss_reduction=loss_reduction, loss_fn=loss_fn,
                         inverse_link_fn=unary_ops.sigmoid, name=name)


class PoissonRegressionHead(RegressionHead):
    """Regression of counts: the Poisson log loss on log-rate logits, ``exp(logits)`` as the
    predictions."""

    def __init__(self, label_dimension=1, weight_column=None, loss_reduction=_MEAN,
                 compute_full_loss=True, name=None):
        from tideflow.ops import nn_impl, unary_ops

        def loss_fn(labels, logits):
            return nn_impl.log_poisson_loss(targets=labels, log_input=logits,
                                            compute_full_loss=compute_full_loss)

        super().__init__(label_dimension=label_dimension, weight_column=weight_column,
                         loss_reduction=loss_reduction, loss_fn=loss_fn,
                         inverse_link_fn=unary_ops.exp, name=name)


__all__ = ["BinaryClassHead", "LogisticRegressionHead", "MultiClassHead",
           "PoissonRegressionHead", "RegressionHead"]
