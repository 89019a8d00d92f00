"""Heads of the canned estimators (TF 1.x ``head_lib``): from logits and labels to the loss,
the predictions, the eval metrics and the export outputs of each mode."""

from tideflow import metrics as metrics_lib
from tideflow.estimator import export as export_lib
from tideflow.estimator.model_fn import EstimatorSpec, ModeKeys
from tideflow.feature_column import feature_column as fc
from tideflow.framework import dtypes, ops, sparse_tensor
from tideflow.ops import (
    array_ops,
    cast_ops,
    check_ops,
    control_flow_ops,
    fill_ops,
    lookup_ops,
    losses_impl,
    math_ops,
    nn_impl,
    range_ops,
    reduction_ops,
    string_ops,
    unary_ops,
)
from tideflow.ops import saved_model_impl as sm
from tideflow.summary import summary as summary_lib
from tideflow.train import training_util

_DEFAULT_SERVING_KEY = sm.DEFAULT_SERVING_SIGNATURE_DEF_KEY
_CLASSIFY_SERVING_KEY = "classification"
_REGRESS_SERVING_KEY = "regression"
_PREDICT_SERVING_KEY = "predict"


class PredictionKeys:
    CLASSES = "classes"
    CLASS_IDS = "class_ids"
    ALL_CLASSES = "all_classes"
    ALL_CLASS_IDS = "all_class_ids"
    LOGISTIC = "logistic"
    LOGITS = "logits"
    PREDICTIONS = "predictions"
    PROBABILITIES = "probabilities"


class MetricKeys:
    LOSS = "loss"
    LOSS_MEAN = "average_loss"
    LOSS_REGULARIZATION = "regularization_loss"
    ACCURACY = "accuracy"
    PRECISION = "precision"
    RECALL = "recall"
    ACCURACY_BASELINE = "accuracy_baseline"
    AUC = "auc"
    AUC_PR = "auc_precision_recall"
    LABEL_MEAN = "label/mean"
    PREDICTION_MEAN = "prediction/mean"
    ACCURACY_AT_THRESHOLD = "accuracy/positive_threshold_%g"
    PRECISION_AT_THRESHOLD = "precision/positive_threshold_%g"
    RECALL_AT_THRESHOLD = "recall/positive_threshold_%g"


def _check_dense_labels(labels, logits, expected_labels_dimension):
    """TF 1.x's check of the labels against the logits (``<head>/labels``), op for op: a
    wrong static last dimension is a ValueError, the rest is checked when run."""
    if labels is None:
        raise ValueError("You must provide a labels Tensor. Given: None. Suggested "
                         "troubleshooting steps: Check that your data contain your label "
                         "feature. Check that your input_fn properly parses and returns labels.")
    with ops.name_scope(None, "labels", (labels, logits)) as scope:
        labels = sparse_tensor.convert_to_tensor_or_sparse_tensor(labels)
        if isinstance(labels, sparse_tensor.SparseTensor):
            d = expected_labels_dimension
            raise ValueError(  # noqa: TRY004 - as TF
                f"SparseTensor labels are not supported. labels must be a Tensor of shape "
                f"[D0, D1, ..., DN, {d}], e.g. [batch_size, {d}]. Suggested Fix (1): Check the "
                f"label feature in your data. Each example must contain {d} value(s). If not, "
                "your choice of label was probably incorrect. Suggested Fix (2): In your "
                "input_fn, use tf.sparse_tensor_to_dense() to turn labels into a Tensor.")
        if (labels.shape.ndims is not None and logits.shape.ndims is not None
                and labels.shape.ndims == logits.shape.ndims - 1):
            labels = array_ops.expand_dims(labels, -1)
        labels_shape = array_ops.shape(labels)
        logits_shape = array_ops.shape(logits)
        err_msg = (f"labels shape must be [D0, D1, ... DN, {expected_labels_dimension}]. "
                   "Suggested Fix: check your n_classes argument to the estimator and/or the "
                   "shape of your label.")
        assert_rank = check_ops.assert_rank_at_least(labels, 2, message=err_msg)
        with ops.control_dependencies([assert_rank]):
            static_shape = labels.shape
            if static_shape.ndims is not None:
                dim1 = static_shape[-1]
                if dim1 is not None and dim1 != expected_labels_dimension:
                    # (TF's words, with its two spaces and missing ones)
                    raise ValueError(
                        f"Mismatched label shape. Expected labels dimension="
                        f"{expected_labels_dimension}.  Received {dim1}. Suggested Fix:If your "
                        "classifier expects one-hot encoding label,check your n_classes "
                        "argument to the estimator and/or the shape of your label. Otherwise, "
                        "check the shape of your label.")
            expected_labels_shape = array_ops.concat(
                [logits_shape[:-1], [expected_labels_dimension]], axis=0)
            assert_dimension = check_ops.assert_equal(
                expected_labels_shape, labels_shape, message=err_msg,
                data=["expected_labels_shape: ", expected_labels_shape, "labels_shape: ",
                      labels_shape])
            with ops.control_dependencies([assert_dimension]):
                return array_ops.identity(labels, name=scope)


def _assert_range(labels, n_classes, message=None):
    with ops.name_scope(None, "assert_range", (labels,)):
        assert_less = check_ops.assert_less_equal(
            labels, ops.convert_to_tensor(n_classes - 1, dtype=labels.dtype),
            message=message or "Labels must <= n_classes - 1")
        assert_greater = check_ops.assert_non_negative(
            labels, message=message or "Labels must >= 0")
        with ops.control_dependencies((assert_less, assert_greater)):
            return array_ops.identity(labels)


def _weights(features, weight_column):
    if weight_column is None:
        return 1.0
    if isinstance(weight_column, str):
        weight_column = fc.numeric_column(weight_column)
    if not isinstance(weight_column, fc._NumericColumn):
        raise TypeError(f"Weight column must be either a string or _NumericColumn. Given type: "
                        f"{type(weight_column)}.")
    w = weight_column._get_dense_tensor(fc._LazyBuilder(features))
    return cast_ops.cast(array_ops.reshape(w, [-1, 1]), dtypes.float32)


def _check_logits_final_dim(logits, expected_logits_dimension):
    """TF 1.x's check that ``logits`` is [D0, ..., DN, logits_dimension], op for op (the
    serving signatures name the ops that follow it)."""
    with ops.name_scope(None, "logits", (logits,)) as scope:
        logits = cast_ops.cast(logits, dtypes.float32)
        logits_shape = array_ops.shape(logits)
        message = "logits shape must be [D0, D1, ... DN, logits_dimension]"
        assert_rank = check_ops.assert_rank_at_least(logits, 2, data=[logits_shape],
                                                     message=message)
        with ops.control_dependencies([assert_rank]):
            static_shape = logits.shape
            if static_shape.ndims is not None and static_shape[-1] is not None:
                if static_shape[-1] != expected_logits_dimension:
                    raise ValueError(f"{message}, got {static_shape}.")
                return logits
            assert_dimension = check_ops.assert_equal(
                expected_logits_dimension, logits_shape[-1], data=[logits_shape],
                message=message)
            with ops.control_dependencies([assert_dimension]):
                return array_ops.identity(logits, name=scope)


def _tiled_classes(like, n_classes, label_vocabulary):
    """The class names as a [batch, n_classes] string tensor (TF's ``_all_classes`` and
    ``_classification_output``), the batch taken from ``like``."""
    batch_size = array_ops.shape(like)[0]
    if label_vocabulary:
        classes_list = list(label_vocabulary)
    else:
        classes_list = string_ops.as_string(range_ops.range(n_classes))
    return array_ops.tile(array_ops.expand_dims(classes_list, 0), [batch_size, 1])


def _summary_key(head_name, key):
    """A metric's key or summary tag: ``key/head_name`` for a named head, as TF 1.x's."""
    return f"{key}/{head_name}" if head_name else key


def _regularization_metric(metrics, regularization_loss):
    """Adds TF 1.x's mean of the regularization loss to ``metrics`` when there is one."""
    if regularization_loss is not None:
        metrics[MetricKeys.LOSS_REGULARIZATION] = metrics_lib.mean(
            regularization_loss, name=MetricKeys.LOSS_REGULARIZATION)
    return metrics


def _accuracy_baseline(labels_mean):
    """The accuracy of always predicting the majority class, as TF 1.15's ops."""
    with ops.name_scope(None, "accuracy_baseline", labels_mean):
        value, update_op = labels_mean
        return (math_ops.maximum(value, 1.0 - value, name="value"),
                math_ops.maximum(update_op, 1 - update_op, name="update_op"))


class _Head:
    """The shared machinery; subclasses define the loss, predictions and metrics."""

    def __init__(self, weight_column=None, loss_reduction=losses_impl.Reduction.SUM,
                 name=None):
        # TF 1.x checks it when the head is made (a canned estimator's constructor)
        if (loss_reduction not in losses_impl.Reduction.all()
                or loss_reduction == losses_impl.Reduction.NONE):
            raise ValueError(f"Invalid loss_reduction: {loss_reduction}")
        self._weight_column = weight_column
        self._loss_reduction = loss_reduction
        self._name = name

    @property
    def name(self):
        return self._name

    @property
    def logits_dimension(self):
        raise NotImplementedError

    _loss_fn = None

    def _checked_logits(self, logits):
        return _check_logits_final_dim(logits, self.logits_dimension)

    def _loss(self, features, logits, label_ids, float_labels):
        if self._loss_fn is None:
            return self._unreduced_loss(logits, label_ids, float_labels)
        import inspect

        args = inspect.signature(self._loss_fn).parameters
        kwargs = {"labels": float_labels, "logits": logits}
        if "features" in args:
            kwargs["features"] = features
        if "loss_reduction" in args:
            kwargs["loss_reduction"] = self._loss_reduction
        return self._loss_fn(**kwargs)

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None,
                              trainable_variables=None, train_op_fn=None, update_ops=None,
                              regularization_losses=None):
        with ops.name_scope(self._name, "head") as head_scope:
            logits = self._checked_logits(ops.convert_to_tensor(logits))
            predictions = self._predictions(logits)
            logits = predictions.get(PredictionKeys.LOGITS, logits)
            if mode == ModeKeys.PREDICT:
                return EstimatorSpec(mode=mode, predictions=predictions,
                                     export_outputs=self._export_outputs(predictions))
            label_ids, float_labels = self._labels(labels, logits)
            unreduced = self._loss(features, logits, label_ids, float_labels)
            weights = _weights(features, self._weight_column)
            # in GraphKeys.LOSSES, as TF's (beside a tf.losses unreduced loss)
            loss = losses_impl.compute_weighted_loss(unreduced, weights=weights,
                                                     reduction=self._loss_reduction)
            unregularized = loss
            regularization_loss = None
            if regularization_losses:
                regularization_loss = math_ops.add_n(list(regularization_losses))
                loss = math_ops.add_n([loss, regularization_loss])
        if mode == ModeKeys.EVAL:
            # TF 1.15 makes the metrics after the head's name scope closes (its TPU spec's
            # metric function), so their ops and variables are "<model>/metrics/..."
            metrics = self._metrics(predictions, label_ids, float_labels, unreduced, weights,
                                    regularization_loss)
            metrics = {_summary_key(self._name, k): v for k, v in metrics.items()}
            return EstimatorSpec(mode=mode, predictions=predictions, loss=loss,
                                 eval_metric_ops=metrics)
        with ops.name_scope(head_scope):
            if optimizer is not None:
                if train_op_fn is not None:
                    raise ValueError("train_op_fn and optimizer cannot both be set.")
                with ops.control_dependencies(list(update_ops or [])):
                    train_op = optimizer.minimize(loss, var_list=trainable_variables,
                                                  global_step=training_util.get_global_step())
            elif train_op_fn is not None:
                train_op = train_op_fn(loss)
            else:
                raise ValueError("train_op_fn and optimizer cannot both be None.")
            # as TF 1.x's heads, the UPDATE_OPS (batch norm's moving averages) run with it
            pending = ops.get_collection(ops.GraphKeys.UPDATE_OPS)
            if pending:
                train_op = control_flow_ops.group(train_op, *pending)
            average = None
            if self._loss_reduction == losses_impl.Reduction.SUM:
                # TF 1.x: the summed training loss over the summed example weights, as the
                # op ``<head>/truediv`` (programs log it by that name, e.g. official/ census);
                # other reductions have no average_loss summary in TF 1.15
                example_weight_sum = reduction_ops.reduce_sum(
                    weights * fill_ops.ones_like(unreduced))
                average = unregularized / example_weight_sum
            with ops.name_scope(""):  # the tags are "loss" and "average_loss", as TF's
                summary_lib.scalar(_summary_key(self._name, MetricKeys.LOSS), loss)
                if average is not None:
                    summary_lib.scalar(_summary_key(self._name, MetricKeys.LOSS_MEAN), average)
                if regularization_loss is not None:
                    summary_lib.scalar(
                        _summary_key(self._name, MetricKeys.LOSS_REGULARIZATION),
                        regularization_loss)
            return EstimatorSpec(mode=mode, predictions=predictions, loss=loss,
                                 train_op=train_op)


class _ClassificationHead(_Head):
    def __init__(self, n_classes, weight_column=None, label_vocabulary=None,
                 loss_reduction=losses_impl.Reduction.SUM, name=None):
        if label_vocabulary is not None and not isinstance(label_vocabulary, (list, tuple)):
            # (TF 1.x's binary and multi-class heads word and class it differently)
            if n_classes == 2:
                raise TypeError("label_vocabulary should be a list or tuple. Given type: "
                                f"{type(label_vocabulary)}")
            raise ValueError("label_vocabulary should be a list or a tuple. Given type: "
                             f"{type(label_vocabulary)}")
        super().__init__(weight_column, loss_reduction, name)
        if n_classes is None:
            raise ValueError("n_classes cannot be None")
        if n_classes <= 2 and not isinstance(self, BinaryClassHead):
            raise ValueError(f"n_classes must be > 2: {n_classes}.")
        self._n_classes = n_classes
        self._label_vocabulary = label_vocabulary

    _thresholds = ()  # accuracy/precision/recall at each of these probability thresholds

    @staticmethod
    def _auc(labels, probabilities, weights, curve, name):
        return metrics_lib.auc(labels, probabilities, weights=weights, curve=curve, name=name)

    def _threshold_metrics(self, metrics, labels, probabilities, weights):
        """TF 1.15's accuracy, precision and recall at each threshold, into ``metrics``."""
        for threshold in self._thresholds:
            key = MetricKeys.ACCURACY_AT_THRESHOLD % threshold
            with ops.name_scope(key) as scope:  # (TF names them by their keys)
                above = cast_ops.to_float(math_ops.greater_equal(probabilities, threshold))
                metrics[key] = metrics_lib.accuracy(labels, above, weights=weights, name=scope)
            for kind, at_thresholds in (("precision", metrics_lib.precision_at_thresholds),
                                        ("recall", metrics_lib.recall_at_thresholds)):
                key = getattr(MetricKeys, f"{kind.upper()}_AT_THRESHOLD") % threshold
                with ops.name_scope(key) as scope:
                    value, update = at_thresholds(labels, probabilities, (threshold,),
                                                  weights=weights, name=scope)
                    metrics[key] = (array_ops.squeeze(value), array_ops.squeeze(update))

    def _label_id_lookup(self, labels):
        return lookup_ops.index_table_from_tensor(
            vocabulary_list=tuple(self._label_vocabulary), name="class_id_lookup").lookup(labels)

    def _class_strings(self, class_ids):
        if self._label_vocabulary is not None:
            table = lookup_ops.index_to_string_table_from_tensor(
                list(self._label_vocabulary), name="class_string_lookup")
            return table.lookup(class_ids)
        return string_ops.as_string(class_ids, name="str_classes")

    def _all_class_predictions(self, logits):
        batch_size = array_ops.shape(logits)[0]
        all_ids = array_ops.tile(array_ops.expand_dims(range_ops.range(self._n_classes), 0),
                                 [batch_size, 1])
        return all_ids, _tiled_classes(logits, self._n_classes, self._label_vocabulary)

    def _export_outputs(self, predictions):
        # TF builds the served classes anew, beside the predictions (``<head>/Tile``)
        scores = predictions[PredictionKeys.PROBABILITIES]
        cls = export_lib.ClassificationOutput(
            scores=scores,
            classes=_tiled_classes(scores, self._n_classes, self._label_vocabulary))
        return {_DEFAULT_SERVING_KEY: cls, _CLASSIFY_SERVING_KEY: cls,
                _PREDICT_SERVING_KEY: export_lib.PredictOutput(predictions)}


class BinaryClassHead(_ClassificationHead):
    """Sigmoid cross-entropy on one logit per example."""

    def __init__(self, weight_column=None, label_vocabulary=None,
                 loss_reduction=losses_impl.Reduction.SUM, name=None):
        super().__init__(2, weight_column, label_vocabulary, loss_reduction, name)

    @property
    def logits_dimension(self):
        return 1

    def _checked_logits(self, logits):
        return logits  # (checked inside the predictions' scope, as TF)

    def _predictions(self, logits):
        with ops.name_scope(None, "predictions", (logits,)):
            logits = _check_logits_final_dim(logits, 1)
            logistic = unary_ops.sigmoid(logits, name="logistic")
            two = array_ops.concat([array_ops.zeros_like(logits), logits], -1,
                                   name="two_class_logits")
            probabilities = nn_impl.softmax(two, name="probabilities")
            class_ids = array_ops.expand_dims(
                reduction_ops.argmax(two, -1, name="class_ids"), -1)
            all_ids, all_classes = self._all_class_predictions(logits)
            return {
                PredictionKeys.LOGITS: logits,
                PredictionKeys.LOGISTIC: logistic,
                PredictionKeys.PROBABILITIES: probabilities,
                PredictionKeys.CLASS_IDS: class_ids,
                PredictionKeys.CLASSES: self._class_strings(class_ids),
                PredictionKeys.ALL_CLASS_IDS: all_ids,
                PredictionKeys.ALL_CLASSES: all_classes,
            }

    def _export_outputs(self, predictions):
        outputs = super()._export_outputs(predictions)
        outputs[_REGRESS_SERVING_KEY] = export_lib.RegressionOutput(
            value=predictions[PredictionKeys.LOGISTIC])
        return outputs

    def _labels(self, labels, logits):
        # as TF 1.x: string labels without a vocabulary fail in the Cast when run
        labels = _check_dense_labels(labels, logits, 1)
        if self._label_vocabulary is not None:
            labels = self._label_id_lookup(labels)
        floats = _assert_range(cast_ops.to_float(labels), 2)
        return floats, floats

    def _unreduced_loss(self, logits, label_ids, float_labels):
        return nn_impl.sigmoid_cross_entropy_with_logits(labels=float_labels, logits=logits)

    def _metrics(self, predictions, label_ids, float_labels, unreduced, weights,
                 regularization_loss=None):
        with ops.name_scope(None, "metrics"):
            w = None if isinstance(weights, float) else weights
            label_mean = metrics_lib.mean(float_labels, weights=w, name="label/mean")
            metrics = {
                MetricKeys.LOSS_MEAN: metrics_lib.mean(unreduced, weights=w,
                                                       name=MetricKeys.LOSS_MEAN),
                MetricKeys.ACCURACY: metrics_lib.accuracy(
                    label_ids, predictions[PredictionKeys.CLASS_IDS], weights=w,
                    name=MetricKeys.ACCURACY),
                MetricKeys.PRECISION: metrics_lib.precision(
                    label_ids, predictions[PredictionKeys.CLASS_IDS], weights=w,
                    name=MetricKeys.PRECISION),
                MetricKeys.RECALL: metrics_lib.recall(
                    label_ids, predictions[PredictionKeys.CLASS_IDS], weights=w,
                    name=MetricKeys.RECALL),
                MetricKeys.PREDICTION_MEAN: metrics_lib.mean(
                    predictions[PredictionKeys.LOGISTIC], weights=w, name="prediction/mean"),
                MetricKeys.LABEL_MEAN: label_mean,
                MetricKeys.ACCURACY_BASELINE: _accuracy_baseline(label_mean),
                MetricKeys.AUC: self._auc(float_labels, predictions[PredictionKeys.LOGISTIC],
                                          w, "ROC", MetricKeys.AUC),
                MetricKeys.AUC_PR: self._auc(
                    float_labels, predictions[PredictionKeys.LOGISTIC], w, "PR",
                    MetricKeys.AUC_PR),
            }
            _regularization_metric(metrics, regularization_loss)
            self._threshold_metrics(metrics, float_labels, predictions[PredictionKeys.LOGISTIC],
                                    w)
            return metrics


class MultiClassHead(_ClassificationHead):
    """Softmax cross-entropy over ``n_classes`` logits."""

    @property
    def logits_dimension(self):
        return self._n_classes

    def _predictions(self, logits):
        with ops.name_scope(None, "predictions", (logits,)):
            all_ids, all_classes = self._all_class_predictions(logits)
            class_ids = array_ops.expand_dims(
                reduction_ops.argmax(logits, -1, name="class_ids"), -1)
            classes = self._class_strings(class_ids)
            return {
                PredictionKeys.LOGITS: logits,
                PredictionKeys.PROBABILITIES: nn_impl.softmax(logits, name="probabilities"),
                PredictionKeys.CLASS_IDS: class_ids,
                PredictionKeys.CLASSES: classes,
                PredictionKeys.ALL_CLASS_IDS: all_ids,
                PredictionKeys.ALL_CLASSES: all_classes,
            }

    def _labels(self, labels, logits):
        labels = _check_dense_labels(labels, logits, 1)
        if self._label_vocabulary is None:
            if not labels.dtype.is_integer:
                raise ValueError(f"Labels dtype should be integer. Instead got {labels.dtype}.")
        else:
            if labels.dtype != dtypes.string:
                raise ValueError("Labels dtype should be string if there is a vocabulary. "
                                 f"Instead got {labels.dtype}")
            labels = self._label_id_lookup(labels)
        ids = _assert_range(labels, self._n_classes)
        # TF 1.15 hands a loss_fn the ids themselves
        return ids, ids

    def _unreduced_loss(self, logits, label_ids, float_labels):
        loss = losses_impl.sparse_softmax_cross_entropy(
            labels=label_ids, logits=logits, reduction=losses_impl.Reduction.NONE)
        # [batch, 1], as TF restores the labels' squeezed dim: it then matches the weights
        return loss if loss.shape.ndims == 2 else array_ops.expand_dims(loss, -1)

    def _metrics(self, predictions, label_ids, float_labels, unreduced, weights,
                 regularization_loss=None):
        with ops.name_scope(None, "metrics"):
            w = None if isinstance(weights, float) else weights
            metrics = {
                MetricKeys.LOSS_MEAN: metrics_lib.mean(unreduced, weights=w,
                                                       name=MetricKeys.LOSS_MEAN),
                MetricKeys.ACCURACY: metrics_lib.accuracy(
                    label_ids, predictions[PredictionKeys.CLASS_IDS], weights=w,
                    name=MetricKeys.ACCURACY),
            }
            return _regularization_metric(metrics, regularization_loss)


class RegressionHead(_Head):
    """Squared error on ``label_dimension`` outputs."""

    def __init__(self, label_dimension=1, weight_column=None,
                 loss_reduction=losses_impl.Reduction.SUM, name=None):
        super().__init__(weight_column, loss_reduction, name)
        if label_dimension < 1:
            raise ValueError(f"Invalid label_dimension {label_dimension}.")
        self._label_dimension = label_dimension

    @property
    def logits_dimension(self):
        return self._label_dimension

    def _predictions(self, logits):
        return {PredictionKeys.PREDICTIONS: logits}

    def _export_outputs(self, predictions):
        value = predictions[PredictionKeys.PREDICTIONS]
        # as TF 1.15, whatever the label dimension
        reg = export_lib.RegressionOutput(value=value)
        return {_DEFAULT_SERVING_KEY: reg, _REGRESS_SERVING_KEY: reg,
                _PREDICT_SERVING_KEY: export_lib.PredictOutput(predictions)}

    def _labels(self, labels, logits):
        labels = _check_dense_labels(labels, logits, self._label_dimension)
        labels = cast_ops.to_float(labels)
        return labels, labels

    def _unreduced_loss(self, logits, label_ids, float_labels):
        return losses_impl.mean_squared_error(labels=float_labels, predictions=logits,
                                              reduction=losses_impl.Reduction.NONE)

    def _metrics(self, predictions, label_ids, float_labels, unreduced, weights,
                 regularization_loss=None):
        # TF 1.15's regression head opens no "metrics" scope and leaves two means unnamed
        # (their variables "<model>/mean/total" and "<model>/mean_1/total")
        w = None if isinstance(weights, float) else weights
        return _regularization_metric({
            MetricKeys.LOSS_MEAN: metrics_lib.mean(unreduced, weights=w),
            MetricKeys.PREDICTION_MEAN: metrics_lib.mean(
                predictions[PredictionKeys.PREDICTIONS], weights=w, name="prediction/mean"),
            MetricKeys.LABEL_MEAN: metrics_lib.mean(float_labels, weights=w),
        }, regularization_loss)


def classification_head(n_classes, weight_column=None, label_vocabulary=None,
                        loss_reduction=losses_impl.Reduction.SUM):
    if n_classes == 2:
        return BinaryClassHead(weight_column, label_vocabulary, loss_reduction)
    return MultiClassHead(n_classes, weight_column, label_vocabulary, loss_reduction)


_OPTIMIZERS = {
    "Adagrad": "AdagradOptimizer",
    "Adam": "AdamOptimizer",
    "Ftrl": "FtrlOptimizer",
    "RMSProp": "RMSPropOptimizer",
    "SGD": "GradientDescentOptimizer",
}


def get_optimizer_instance(opt, learning_rate=None):
    """An optimizer from a name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'), an instance,
    or a callable returning one."""
    from tideflow import train
    from tideflow.train.optimizer import Optimizer

    if isinstance(opt, str):
        if opt in _OPTIMIZERS:
            if not learning_rate:
                raise ValueError("learning_rate must be specified when opt is string.")
            return getattr(train, _OPTIMIZERS[opt])(learning_rate=learning_rate)
        raise ValueError(f"Unsupported optimizer name: {opt}. Supported names are: "
                         f"{tuple(sorted(_OPTIMIZERS))}")
    if callable(opt) and not isinstance(opt, Optimizer):
        opt = opt()
    if not isinstance(opt, Optimizer):
        raise ValueError(f"The given object is not an Optimizer instance. Given: {opt}")  # noqa: TRY004 - as TF
    return opt


def group_train_ops(ops_list):
    return control_flow_ops.group(*ops_list)


__all__ = ["BinaryClassHead", "MultiClassHead", "RegressionHead", "classification_head",
           "get_optimizer_instance"]
