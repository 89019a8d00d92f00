"""The public heads of TF 1.15's ``tf.estimator`` (``BinaryClassHead``, ``MultiClassHead``,
``RegressionHead``): the canned heads with the v2 defaults (loss averaged over the batch) and a
custom ``loss_fn``, for ``DNNEstimator``/``LinearEstimator(head=...)`` and custom model_fns."""

import abc

from tideflow import metrics as metrics_lib
from tideflow.estimator.canned import head as head_lib
from tideflow.framework import dtypes, ops, sparse_tensor
from tideflow.ops import (
    array_ops,
    cast_ops,
    check_ops,
    control_flow_ops,
    fill_ops,
    losses_impl,
    reduction_ops,
    sparse_ops,
    unary_ops,
)

_MEAN = "sum_over_batch_size"  # tf.keras.losses.Reduction.SUM_OVER_BATCH_SIZE, TF's default
# TF 1.15's public heads take tf.keras.losses.Reduction values ('sum', 'sum_over_batch_size')
_KERAS_REDUCTIONS = {"sum": losses_impl.Reduction.SUM,
                     "sum_over_batch_size": losses_impl.Reduction.SUM_OVER_BATCH_SIZE}


def _reduction(loss_reduction):
    if loss_reduction in ("none", "auto"):
        raise ValueError(f"Invalid loss_reduction: {loss_reduction}. See "
                         "`tf.losses.Reduction` for valid options.")
    return _KERAS_REDUCTIONS.get(loss_reduction, loss_reduction)


class Head(metaclass=abc.ABCMeta):
    """``tf.estimator.Head`` (TF 1.15): the interface of a model_fn's head, from its logits
    to the loss, predictions, metrics and an ``EstimatorSpec``. Subclass it to write one; the
    public heads (``BinaryClassHead``, ``RegressionHead``, ...) are its subclasses."""

    @property
    @abc.abstractmethod
    def name(self):
        """The head's name (a prefix of its summary and metric keys), or None."""

    @property
    @abc.abstractmethod
    def logits_dimension(self):
        """The size of the logits' last dimension."""

    @property
    @abc.abstractmethod
    def loss_reduction(self):
        """How the per-example losses reduce to the training loss (a
        ``tf.keras.losses.Reduction`` value)."""

    @abc.abstractmethod
    def loss(self, labels, logits, features=None, mode=None, regularization_losses=None):
        """The training loss (reduced, with the regularization losses added)."""

    @abc.abstractmethod
    def predictions(self, logits, keys=None):
        """The dict of prediction tensors (only ``keys`` when given)."""

    @abc.abstractmethod
    def metrics(self, regularization_losses=None):
        """A dict of the head's (Keras) metric objects, by metric key."""

    @abc.abstractmethod
    def update_metrics(self, eval_metrics, features, logits, labels, mode=None,
                       regularization_losses=None):
        """Updates ``eval_metrics`` (from ``metrics()``) with a batch; returns them."""

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None,
                              trainable_variables=None, train_op_fn=None, update_ops=None,
                              regularization_losses=None):
        """An ``EstimatorSpec`` for ``mode``."""
        raise NotImplementedError("Subclasses of Head must implement `create_estimator_spec()` "
                                  "or _create_tpu_estimator_spec().")


def _keras_metrics():
    from tideflow.keras import metrics as keras_metrics

    return keras_metrics


def _accuracy_baseline_metric(name):
    """The accuracy of always predicting the majority class: max(m, 1 - m) of the label
    mean metric (set as ``_label_mean``), as TF 1.15's binary head reports it."""
    from tideflow.ops import math_ops

    class Mean(_keras_metrics().Mean):
        _label_mean = None

        def update_state(self, *args, **kwargs):
            return control_flow_ops.no_op()

        def result(self):
            mean = self._label_mean.result()
            return math_ops.maximum(mean, 1.0 - mean)

    return Mean(name=name)


class _PublicHead:
    """What TF 1.15's public heads (its v2 ``head`` package) do beyond contrib's (its v1
    heads, which the ``tf.contrib.estimator`` functions return with ``_v1`` set): the AUCs
    are Keras metrics (whose PR curve interpolates as Davis & Goadrich), and the ``Head``
    methods that build the loss, predictions and metrics apart."""

    _v1 = False

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None,
                              trainable_variables=None, train_op_fn=None, update_ops=None,
                              regularization_losses=None):
        """An ``EstimatorSpec`` for ``mode``; TF 1.15's public heads train with a
        ``tf.keras.optimizers`` optimizer over ``trainable_variables`` (its
        ``get_updates``), then run ``update_ops``."""
        if optimizer is not None and not self._v1:
            from tideflow.keras import optimizers as keras_optimizers

            if train_op_fn is not None:
                raise ValueError("train_op_fn and optimizer cannot both be set.")
            if not isinstance(optimizer, keras_optimizers.Optimizer):
                raise ValueError("The given optimizer is not a tf.keras.optimizers.Optimizer "
                                 f"instance. Given: {optimizer}")
            if trainable_variables is None:
                raise ValueError(f"trainable_variables cannot be None. Given {None}")
            if not isinstance(trainable_variables, (list, tuple)):
                raise ValueError("trainable_variables should be a list or a tuple. Given "
                                 f"type: {type(trainable_variables)}.")
            keras_optimizer = optimizer

            def train_op_fn(loss):
                return keras_optimizer.get_updates(loss, list(trainable_variables))[0]

            optimizer = None
        if update_ops is not None and train_op_fn is not None and not self._v1:
            inner, ops_after = train_op_fn, list(update_ops)

            def train_op_fn(loss):
                return control_flow_ops.group(inner(loss), *ops_after)

            update_ops = None
        return super().create_estimator_spec(
            features, mode, logits, labels=labels, optimizer=optimizer,
            trainable_variables=trainable_variables, train_op_fn=train_op_fn,
            update_ops=update_ops, regularization_losses=regularization_losses)

    @property
    def loss_reduction(self):
        public = {v: k for k, v in _KERAS_REDUCTIONS.items()}
        return public.get(self._loss_reduction, self._loss_reduction)

    def _batch(self, features, logits, labels):
        """(predictions, label ids, float labels, unreduced loss, weights) of a batch."""
        logits = self._checked_logits(ops.convert_to_tensor(logits))
        predictions = self._predictions(logits)
        logits = predictions.get(head_lib.PredictionKeys.LOGITS, logits)
        label_ids, float_labels = self._labels(labels, logits)
        unreduced = self._loss(features, logits, label_ids, float_labels)
        weights = head_lib._weights(features or {}, self._weight_column)
        return predictions, label_ids, float_labels, unreduced, weights

    def loss(self, labels, logits, features=None, mode=None, regularization_losses=None):
        """The training loss: the weighted per-example losses reduced by the head's
        reduction, plus the sum of ``regularization_losses``."""
        del mode
        with ops.name_scope(None, "losses", (logits, labels)):
            _, _, _, unreduced, weights = self._batch(features, logits, labels)
            loss = losses_impl.compute_weighted_loss(
                unreduced, weights=weights, reduction=self._loss_reduction,
                loss_collection=None)
            if regularization_losses:
                from tideflow.ops import math_ops

                loss = loss + math_ops.add_n(list(regularization_losses))
            return loss

    def predictions(self, logits, keys=None):
        """The head's prediction tensors; only ``keys`` (a key or list of keys) if given."""
        with ops.name_scope(self._name, "head"):
            logits = self._checked_logits(ops.convert_to_tensor(logits))
            predictions = self._predictions(logits)
        if keys is None:
            return predictions
        keys = [keys] if isinstance(keys, str) else list(keys)
        for key in keys:
            if key not in predictions:
                raise ValueError(f"Prediction key must be in PredictionKeys, given: {key}")
        return {k: predictions[k] for k in keys}

    def _metric_kinds(self):
        """(key, kind) of the head's metrics, in TF 1.15's order: kind names what
        ``update_metrics`` feeds."""
        return [(head_lib.MetricKeys.LOSS_MEAN, "loss"), _REGULARIZATION]

    def metrics(self, regularization_losses=None):
        """The head's metrics as Keras metric objects, keyed as TF 1.15's."""
        km = _keras_metrics()
        out = {}
        with ops.name_scope("metrics"):
            for key, kind in self._metric_kinds():
                if kind == "regularization":  # (TF 1.15's place for it, when given)
                    if regularization_losses is not None:
                        out[key] = km.Mean(name=key)
                elif kind in ("accuracy", "class_accuracy"):
                    out[key] = km.Accuracy(name=key)
                elif kind == "precision":
                    out[key] = km.Precision(name=key)
                elif kind == "recall":
                    out[key] = km.Recall(name=key)
                elif kind in ("auc", "auc_pr"):
                    out[key] = km.AUC(curve="ROC" if kind == "auc" else "PR", name=key)
                elif isinstance(kind, tuple) and kind[0] == "class_mean":
                    out[key] = km.Mean(name=key)
                elif isinstance(kind, tuple) and kind[0] == "class_auc":
                    out[key] = km.AUC(curve=kind[2], name=key)
                elif isinstance(kind, tuple):  # (measure, threshold)
                    measure, t = kind
                    cls = {"accuracy": km.BinaryAccuracy, "precision": km.Precision,
                           "recall": km.Recall}[measure]
                    out[key] = (cls(name=key, threshold=t) if measure == "accuracy"
                                else cls(name=key, thresholds=t))
                elif kind == "accuracy_baseline":
                    out[key] = _accuracy_baseline_metric(key)
                else:
                    out[key] = km.Mean(name=key)
            if head_lib.MetricKeys.ACCURACY_BASELINE in out:
                out[head_lib.MetricKeys.ACCURACY_BASELINE]._label_mean = out[
                    head_lib.MetricKeys.LABEL_MEAN]
        return out

    def update_metrics(self, eval_metrics, features, logits, labels,
                       regularization_losses=None):
        """Updates the metrics of ``metrics()`` with one batch; returns ``eval_metrics``."""
        keys = head_lib.PredictionKeys
        predictions, label_ids, float_labels, unreduced, weights = self._batch(
            features, logits, labels)
        w = None if isinstance(weights, float) else weights
        probabilities = predictions.get(keys.LOGISTIC, predictions.get(keys.PROBABILITIES))
        for key, kind in self._metric_kinds():
            if kind == "regularization":
                continue
            metric = eval_metrics[key]
            if kind == "loss":
                metric.update_state(unreduced, sample_weight=w)
            elif kind in ("accuracy", "precision", "recall", "class_accuracy"):
                metric.update_state(label_ids, predictions[keys.CLASS_IDS], sample_weight=w)
            elif kind in ("auc", "auc_pr"):
                metric.update_state(float_labels, probabilities, sample_weight=w)
            elif kind == "prediction_mean":
                metric.update_state(probabilities if probabilities is not None
                                    else predictions[keys.PREDICTIONS], sample_weight=w)
            elif kind == "label_mean":
                metric.update_state(float_labels, sample_weight=w)
            elif kind == "accuracy_baseline":
                metric._label_mean = eval_metrics[head_lib.MetricKeys.LABEL_MEAN]
            elif isinstance(kind, tuple) and kind[0] in ("class_mean", "class_auc"):
                column = slice(kind[1], kind[1] + 1)
                p = cast_ops.to_float(probabilities[..., column])
                if kind[0] == "class_mean":
                    metric.update_state(p, sample_weight=w)
                else:
                    metric.update_state(cast_ops.to_float(label_ids[..., column]), p,
                                        sample_weight=w)
            elif isinstance(kind, tuple):
                metric.update_state(float_labels, probabilities, sample_weight=w)
        key = head_lib.MetricKeys.LOSS_REGULARIZATION
        if regularization_losses is not None and key in eval_metrics:
            from tideflow.ops import math_ops

            eval_metrics[key].update_state(math_ops.add_n(list(regularization_losses)))
        return eval_metrics

    def _auc(self, labels, probabilities, weights, curve, name):
        if self._v1:
            return super()._auc(labels, probabilities, weights, curve, name)
        from tideflow.keras import metrics as keras_metrics

        metric = keras_metrics.AUC(curve=curve, name=name)
        metric.update_state(labels, probabilities, sample_weight=weights)
        return metric


class BinaryClassHead(_PublicHead, head_lib.BinaryClassHead, Head):
    """Sigmoid cross-entropy on one logit per example."""

    def _metric_kinds(self):
        keys = head_lib.MetricKeys
        return [(keys.LOSS_MEAN, "loss"), (keys.ACCURACY, "accuracy"),
                (keys.PRECISION, "precision"), (keys.RECALL, "recall"),
                (keys.PREDICTION_MEAN, "prediction_mean"), (keys.LABEL_MEAN, "label_mean"),
                (keys.ACCURACY_BASELINE, "accuracy_baseline"), (keys.AUC, "auc"),
                (keys.AUC_PR, "auc_pr"), _REGULARIZATION] + _threshold_kinds(self._thresholds)

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


_REGULARIZATION = (head_lib.MetricKeys.LOSS_REGULARIZATION, "regularization")


def _threshold_kinds(thresholds):
    keys = head_lib.MetricKeys
    out = []
    for t in thresholds:
        for measure, key in (("accuracy", keys.ACCURACY_AT_THRESHOLD),
                             ("precision", keys.PRECISION_AT_THRESHOLD),
                             ("recall", keys.RECALL_AT_THRESHOLD)):
            out.append((key % t, (measure, t)))
    return out


class MultiClassHead(_PublicHead, head_lib.MultiClassHead, Head):
    """Softmax cross-entropy over ``n_classes`` logits."""

    def _metric_kinds(self):
        keys = head_lib.MetricKeys
        return [(keys.LOSS_MEAN, "loss"), _REGULARIZATION, (keys.ACCURACY, "class_accuracy")]

    def __init__(self, n_classes, weight_column=None, label_vocabulary=None,
                 loss_reduction=_MEAN, loss_fn=None, name=None):
        if n_classes is None or n_classes < 2:
            raise ValueError(f"n_classes must be > 2: {n_classes}.")
        super().__init__(n_classes, weight_column, label_vocabulary,
                         _reduction(loss_reduction), name)
        self._loss_fn = loss_fn


class RegressionHead(_PublicHead, head_lib.RegressionHead, Head):
    """Squared error on ``label_dimension`` outputs (``inverse_link_fn`` maps the logits to
    the predictions)."""

    def _metric_kinds(self):
        keys = head_lib.MetricKeys
        return [(keys.LOSS_MEAN, "loss"), (keys.PREDICTION_MEAN, "prediction_mean"),
                (keys.LABEL_MEAN, "label_mean"), _REGULARIZATION]

    def predictions(self, logits):
        """The head's prediction tensors."""
        return super().predictions(logits)

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


class MultiLabelHead(_PublicHead, head_lib._ClassificationHead, Head):
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

    def _metric_kinds(self):
        keys = head_lib.MetricKeys
        kinds = [(keys.LOSS_MEAN, "loss"), (keys.AUC, "auc"), (keys.AUC_PR, "auc_pr"),
                 _REGULARIZATION]
        kinds += _threshold_kinds(self._thresholds)
        for class_id in self._classes:
            tag = (f"class{class_id}" if self._label_vocabulary is None
                   else self._label_vocabulary[class_id])
            kinds += [(f"probability_mean/{tag}", ("class_mean", class_id)),
                      (f"auc/{tag}", ("class_auc", class_id, "ROC")),
                      (f"auc_precision_recall/{tag}", ("class_auc", class_id, "PR"))]
        return kinds

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


__all__ = ["BinaryClassHead", "Head", "LogisticRegressionHead", "MultiClassHead", "MultiLabelHead",
           "PoissonRegressionHead", "RegressionHead"]
