"""The public heads of TF 1.15's ``tf.estimator`` (``BinaryClassHead``, ``MultiClassHead``,
``RegressionHead``): the canned heads with the v2 defaults (loss averaged over the batch) and a
custom ``loss_fn``, for ``DNNEstimator``/``LinearEstimator(head=...)`` and custom model_fns."""

from tideflow import metrics as metrics_lib
from tideflow.estimator.canned import head as head_lib
from tideflow.framework import dtypes, ops, sparse_tensor
from tideflow.ops import (
    array_ops,
    cast_ops,
    check_ops,
    fill_ops,
    losses_impl,
    reduction_ops,
    sparse_ops,
    unary_ops,
)

_MEAN = losses_impl.Reduction.SUM_OVER_BATCH_SIZE
# TF 1.15's public heads take tf.keras.losses.Reduction values ('sum', 'sum_over_batch_size')
_KERAS_REDUCTIONS = {"sum": losses_impl.Reduction.SUM, "sum_over_batch_size": _MEAN}


def _reduction(loss_reduction):
    if loss_reduction in ("none", "auto"):
        raise ValueError(f"Invalid loss_reduction: {loss_reduction}. See "
                         "`tf.losses.Reduction` for valid options.")
    return _KERAS_REDUCTIONS.get(loss_reduction, loss_reduction)


class _PublicHead:
    """What TF 1.15's public heads (its v2 ``head`` package) do beyond contrib's (its v1
    heads, which the ``tf.contrib.estimator`` functions return with ``_v1`` set): the AUCs
    are Keras metrics (whose PR curve interpolates as Davis & Goadrich)."""

    _v1 = False

    def _auc(self, labels, probabilities, weights, curve, name):
        if self._v1:
            return super()._auc(labels, probabilities, weights, curve, name)
        from tideflow.keras import metrics as keras_metrics

        metric = keras_metrics.AUC(curve=curve, name=name)
        metric.update_state(labels, probabilities, sample_weight=weights)
        return metric


class BinaryClassHead(_PublicHead, head_lib.BinaryClassHead):
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


class MultiClassHead(_PublicHead, head_lib.MultiClassHead):
    """Softmax cross-entropy over ``n_classes`` logits."""

    def __init__(self, n_classes, weight_column=None, label_vocabulary=None,
                 loss_reduction=_MEAN, loss_fn=None, name=None):
        if n_classes is None or n_classes < 2:
            raise ValueError(f"n_classes must be > 2: {n_classes}.")
        super().__init__(n_classes, weight_column, label_vocabulary,
                         _reduction(loss_reduction), name)
        self._loss_fn = loss_fn


class RegressionHead(_PublicHead, head_lib.RegressionHead):
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


class MultiLabelHead(_PublicHead, head_lib._ClassificationHead):
    """TF 1.15's contrib ``multi_label_head``: one sigmoid cross-entropy per class (the mean
    over the classes per example), labels an indicator tensor or a SparseTensor of class ids
    (or of vocabulary strings)."""

    def __init__(self, n_classes, weight_column=None, thresholds=None, label_vocabulary=None,
                 loss_reduction=_MEAN, loss_fn=None, classes_for_class_based_metrics=None,
                 name=None):
        thresholds = tuple(thresholds) if thresholds else ()
        if n_classes is None or n_classes < 2:
            raise ValueError("n_classes must be > 1 for multi-class classification. "
                             f"Given: {n_classes}")
        for threshold in thresholds:
            if threshold <= 0.0 or threshold >= 1.0:
                raise ValueError(f"thresholds must be in (0, 1) range. Given: {threshold}")
        if label_vocabulary is not None:
            if not isinstance(label_vocabulary, (list, tuple)):
                raise ValueError("label_vocabulary must be a list or tuple. Given type: "
                                 f"{type(label_vocabulary)}")
            if len(label_vocabulary) != n_classes:
                raise ValueError(f"Length of label_vocabulary must be n_classes ({n_classes})."
                                 f" Given: {len(label_vocabulary)}")
        loss_reduction = _reduction(loss_reduction)
        if (loss_reduction not in losses_impl.Reduction.all()
                or loss_reduction == losses_impl.Reduction.NONE):
            raise ValueError(f"Invalid loss_reduction: {loss_reduction}")
        classes = tuple(classes_for_class_based_metrics or ())
        if classes and isinstance(classes[0], str):
            if not label_vocabulary:
                raise ValueError("label_vocabulary must be provided when "
                                 "classes_for_class_based_metrics are sting.")
            classes = tuple(label_vocabulary.index(c) for c in classes)
        else:
            for class_id in classes:
                if class_id < 0 or class_id >= n_classes:
                    raise ValueError("All classes_for_class_based_metrics must be in range "
                                     f"[0, {n_classes - 1}]. Given: {class_id}")
        head_lib._Head.__init__(self, weight_column, loss_reduction, name)
        self._n_classes = n_classes
        self._label_vocabulary = label_vocabulary
        self._thresholds = thresholds
        self._classes = classes
        self._loss_fn = loss_fn

    @property
    def logits_dimension(self):
        return self._n_classes

    def _predictions(self, logits):
        with ops.name_scope(None, "predictions", (logits,)):
            return {head_lib.PredictionKeys.LOGITS: logits,
                    head_lib.PredictionKeys.PROBABILITIES: unary_ops.sigmoid(
                        logits, name=head_lib.PredictionKeys.PROBABILITIES)}

    def _labels(self, labels, logits):
        if labels is None:
            return head_lib._check_dense_labels(labels, logits, self._n_classes)
        if isinstance(labels, sparse_tensor.SparseTensor):
            if labels.dtype == dtypes.string:
                ids = self._label_id_lookup(labels.values)
                labels = sparse_tensor.SparseTensor(labels.indices, ids, labels.dense_shape)
                labels = cast_ops.to_int64(sparse_ops.sparse_to_indicator(labels,
                                                                          self._n_classes))
            else:
                msg = ("labels must be an integer SparseTensor with values in "
                       f"[0, {self._n_classes})")
                checks = [check_ops.assert_integer(labels.values, message=msg),
                          check_ops.assert_less(labels.values, ops.convert_to_tensor(
                              self._n_classes, dtype=labels.dtype), message=msg),
                          check_ops.assert_non_negative(labels.values, message=msg)]
                with ops.control_dependencies(checks):
                    labels = cast_ops.to_int64(sparse_ops.sparse_to_indicator(
                        labels, self._n_classes))
        else:
            labels = head_lib._assert_range(
                labels, 2, message="labels must be an integer indicator Tensor with values in "
                "[0, 1]")
        labels = head_lib._check_dense_labels(labels, logits, self._n_classes)
        return labels, labels  # (a loss_fn gets the indicator labels, as TF's)

    def _unreduced_loss(self, logits, label_ids, float_labels):
        loss = losses_impl.sigmoid_cross_entropy(multi_class_labels=label_ids, logits=logits,
                                                 reduction=losses_impl.Reduction.NONE)
        return reduction_ops.reduce_mean(loss, axis=-1, keepdims=True)

    def _metrics(self, predictions, label_ids, float_labels, unreduced, weights,
                 regularization_loss=None):
        keys = head_lib.MetricKeys
        probabilities = predictions[head_lib.PredictionKeys.PROBABILITIES]
        labels = label_ids
        w = None if isinstance(weights, float) else weights
        with ops.name_scope(None, "metrics"):
            metrics = {
                keys.LOSS_MEAN: metrics_lib.mean(unreduced, weights=w, name=keys.LOSS_MEAN),
                keys.AUC: self._auc(labels, probabilities, w, "ROC", keys.AUC),
                keys.AUC_PR: self._auc(labels, probabilities, w, "PR", keys.AUC_PR),
            }
            head_lib._regularization_metric(metrics, regularization_loss)
            self._threshold_metrics(metrics, labels, probabilities, w)
            for class_id in self._classes:
                batch_rank = array_ops.rank(probabilities) - 1
                begin = array_ops.concat(
                    [fill_ops.zeros([batch_rank], dtype=dtypes.int32), [class_id]], axis=0)
                size = array_ops.concat(
                    [-1 * fill_ops.ones([batch_rank], dtype=dtypes.int32), [1]], axis=0)
                class_probabilities = array_ops.slice(probabilities, begin=begin, size=size)
                class_labels = array_ops.slice(labels, begin=begin, size=size)
                tag = (f"class{class_id}" if self._label_vocabulary is None
                       else self._label_vocabulary[class_id])
                with ops.name_scope(f"probability_mean/{tag}") as scope:
                    metrics[f"probability_mean/{tag}"] = metrics_lib.mean(
                        cast_ops.to_float(class_probabilities, name="predictions"),
                        weights=w, name=scope)
                for key, curve in ((f"auc/{tag}", "ROC"),
                                   (f"auc_precision_recall/{tag}", "PR")):
                    with ops.name_scope(key) as scope:
                        metrics[key] = self._auc(
                            cast_ops.to_float(class_labels),
                            cast_ops.to_float(class_probabilities, name="predictions"),
                            w, curve, scope if self._v1 else key)
        return metrics

    def _export_outputs(self, predictions):
        from tideflow.estimator import export as export_lib

        scores = predictions[head_lib.PredictionKeys.PROBABILITIES]
        cls = export_lib.ClassificationOutput(
            scores=scores,
            classes=head_lib._tiled_classes(scores, self._n_classes, self._label_vocabulary))
        return {head_lib._DEFAULT_SERVING_KEY: cls, head_lib._CLASSIFY_SERVING_KEY: cls,
                head_lib._PREDICT_SERVING_KEY: export_lib.PredictOutput(predictions)}


__all__ = ["BinaryClassHead", "LogisticRegressionHead", "MultiClassHead", "MultiLabelHead",
           "PoissonRegressionHead", "RegressionHead"]
