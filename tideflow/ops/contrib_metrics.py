"""``tf.contrib.metrics`` (also ``slim.metrics``): the ``streaming_*`` metrics, which take
``(predictions, labels)`` where ``tf.metrics`` takes ``(labels, predictions)``, and the
``aggregate_metrics``/``aggregate_metric_map`` helpers. Each returns ``(value, update_op)``
over the same local variables as its ``tf.metrics`` counterpart."""


def _metrics():
    from tideflow import metrics

    return metrics


def _swap(metric_name, doc):
    def streaming(predictions, labels, weights=None, metrics_collections=None,
                  updates_collections=None, name=None):
        return getattr(_metrics(), metric_name)(
            labels, predictions, weights=weights, metrics_collections=metrics_collections,
            updates_collections=updates_collections, name=name)

    streaming.__name__ = "streaming_" + metric_name
    streaming.__doc__ = doc
    return streaming


streaming_accuracy = _swap("accuracy", "The fraction of ``predictions`` equal to ``labels``.")
streaming_precision = _swap("precision", "true positives / (true + false positives).")
streaming_recall = _swap("recall", "true positives / (true positives + false negatives).")
streaming_mean_absolute_error = _swap("mean_absolute_error", "Mean of |predictions - labels|.")
streaming_mean_squared_error = _swap("mean_squared_error", "Mean of (predictions - labels)^2.")
streaming_root_mean_squared_error = _swap("root_mean_squared_error",
                                          "Square root of the streaming mean squared error.")
streaming_true_positives = _swap("true_positives", "Count of true positives.")
streaming_false_positives = _swap("false_positives", "Count of false positives.")
streaming_true_negatives = _swap("true_negatives", "Count of true negatives.")
streaming_false_negatives = _swap("false_negatives", "Count of false negatives.")


def streaming_mean(values, weights=None, metrics_collections=None, updates_collections=None,
                   name=None):
    """The (weighted) mean of every value seen."""
    return _metrics().mean(values, weights, metrics_collections, updates_collections, name)


def streaming_mean_tensor(values, weights=None, metrics_collections=None,
                          updates_collections=None, name=None):
    """The element-wise (weighted) mean of every tensor seen."""
    return _metrics().mean_tensor(values, weights, metrics_collections, updates_collections,
                                  name)


def streaming_auc(predictions, labels, weights=None, num_thresholds=200,
                  metrics_collections=None, updates_collections=None, curve="ROC", name=None,
                  summation_method="trapezoidal"):
    """The area under the ROC or PR curve over ``num_thresholds`` thresholds."""
    return _metrics().auc(labels, predictions, weights=weights, num_thresholds=num_thresholds,
                          metrics_collections=metrics_collections,
                          updates_collections=updates_collections, curve=curve, name=name,
                          summation_method=summation_method)


def streaming_mean_iou(predictions, labels, num_classes, weights=None, metrics_collections=None,
                       updates_collections=None, name=None):
    """The mean intersection-over-union over ``num_classes`` classes."""
    return _metrics().mean_iou(labels, predictions, num_classes, weights=weights,
                               metrics_collections=metrics_collections,
                               updates_collections=updates_collections, name=name)


def streaming_sparse_precision_at_k(predictions, labels, k, class_id=None, weights=None,
                                    metrics_collections=None, updates_collections=None,
                                    name=None):
    """Precision of the top ``k`` predictions against sparse ``labels``."""
    return _metrics().precision_at_k(labels, predictions, k, class_id=class_id, weights=weights,
                                     metrics_collections=metrics_collections,
                                     updates_collections=updates_collections, name=name)


def streaming_sparse_recall_at_k(predictions, labels, k, class_id=None, weights=None,
                                 metrics_collections=None, updates_collections=None, name=None):
    """Recall of the top ``k`` predictions against sparse ``labels``."""
    return _metrics().recall_at_k(labels, predictions, k, class_id=class_id, weights=weights,
                                  metrics_collections=metrics_collections,
                                  updates_collections=updates_collections, name=name)


def streaming_recall_at_k(predictions, labels, k, weights=None, metrics_collections=None,
                          updates_collections=None, name=None):
    """The fraction of examples whose label is among the top ``k`` predictions."""
    from tideflow import nn
    from tideflow.framework import ops
    from tideflow.ops import cast_ops

    with ops.name_scope(name, "recall_at_k", [predictions, labels]) as scope:
        hits = cast_ops.cast(nn.in_top_k(predictions, labels, k), "float32")
        return _metrics().mean(hits, weights, metrics_collections, updates_collections,
                               scope.rstrip("/"))


def _swap_extra(metric_name, extra, doc):
    """A ``streaming_*`` metric over ``tf.metrics.<metric_name>`` with one more required
    argument ``extra`` after ``(predictions, labels)``."""

    def streaming(predictions, labels, *args, weights=None, metrics_collections=None,
                  updates_collections=None, name=None, **kwargs):
        if args:
            kwargs[extra] = args[0]
            if len(args) > 1:
                weights = args[1]
        return getattr(_metrics(), metric_name)(
            labels, predictions, kwargs.pop(extra), weights=weights,
            metrics_collections=metrics_collections, updates_collections=updates_collections,
            name=name, **kwargs)

    streaming.__name__ = "streaming_" + metric_name
    streaming.__doc__ = doc
    return streaming


streaming_precision_at_thresholds = _swap_extra(
    "precision_at_thresholds", "thresholds", "Precision at each of ``thresholds``.")
streaming_recall_at_thresholds = _swap_extra(
    "recall_at_thresholds", "thresholds", "Recall at each of ``thresholds``.")
streaming_sensitivity_at_specificity = _swap_extra(
    "sensitivity_at_specificity", "specificity", "Sensitivity where specificity is reached.")
streaming_specificity_at_sensitivity = _swap_extra(
    "specificity_at_sensitivity", "sensitivity", "Specificity where sensitivity is reached.")
streaming_mean_cosine_distance = _swap_extra(
    "mean_cosine_distance", "dim", "Mean cosine distance of unit vectors along ``dim``.")
streaming_mean_relative_error = _swap_extra(
    "mean_relative_error", "normalizer", "Mean of |predictions - labels| / normalizer.")


def streaming_percentage_less(values, threshold, weights=None, metrics_collections=None,
                              updates_collections=None, name=None):
    """The fraction of ``values`` below ``threshold``."""
    return _metrics().percentage_below(values, threshold, weights=weights,
                                       metrics_collections=metrics_collections,
                                       updates_collections=updates_collections, name=name)


def streaming_covariance(predictions, labels, weights=None, metrics_collections=None,
                         updates_collections=None, name=None):
    """The unbiased (weighted) covariance of ``predictions`` and ``labels`` over every
    batch seen: the co-moment over ``count - 1``."""
    from tideflow.framework import ops
    from tideflow.ops import array_ops, cast_ops, math_ops, reduction_ops, state_ops

    metrics = _metrics()
    with ops.name_scope(name, "covariance", [predictions, labels, weights]):
        x = array_ops.reshape(cast_ops.cast(predictions, "float32"), [-1])
        y = array_ops.reshape(cast_ops.cast(labels, "float32"), [-1])
        w = array_ops.ones_like(x)
        if weights is not None:  # broadcast to the predictions' shape
            ones = array_ops.ones_like(cast_ops.cast(predictions, "float32"))
            w = array_ops.reshape(cast_ops.cast(weights, "float32") * ones, [-1])
        sums = [metrics._metric_variable([], "float32", n)
                for n in ("count", "sum_x", "sum_y", "sum_xy")]
        batch = [reduction_ops.reduce_sum(w), reduction_ops.reduce_sum(w * x),
                 reduction_ops.reduce_sum(w * y), reduction_ops.reduce_sum(w * x * y)]

        def cov(n, sx, sy, sxy):
            comoment = sxy - sx * sy / math_ops.maximum(n, 1.0)
            return math_ops.truediv(comoment, n - 1.0)

        value = cov(*[v.value() for v in sums])
        updates = [state_ops.assign_add(v, b) for v, b in zip(sums, batch, strict=True)]
        update_op = cov(*updates)
        metrics._add_collections(value, update_op, metrics_collections, updates_collections)
        return value, update_op


def streaming_pearson_correlation(predictions, labels, weights=None, metrics_collections=None,
                                  updates_collections=None, name=None):
    """Pearson's correlation of ``predictions`` and ``labels`` over every batch seen."""
    from tideflow.framework import ops
    from tideflow.ops import math_ops

    with ops.name_scope(name, "pearson_r", [predictions, labels, weights]):
        cov, up_cov = streaming_covariance(predictions, labels, weights, name="covariance")
        var_x, up_x = streaming_covariance(predictions, predictions, weights,
                                           name="variance_predictions")
        var_y, up_y = streaming_covariance(labels, labels, weights, name="variance_labels")
        value = math_ops.truediv(cov, math_ops.sqrt(var_x) * math_ops.sqrt(var_y),
                                 name="pearson_r")
        update_op = math_ops.truediv(up_cov, math_ops.sqrt(up_x) * math_ops.sqrt(up_y),
                                     name="update_op")
        _metrics()._add_collections(value, update_op, metrics_collections,
                                    updates_collections)
        return value, update_op


def accuracy(predictions, labels, weights=None, name=None):
    """The (weighted) fraction of ``predictions`` equal to ``labels`` in this batch (not
    streaming)."""
    from tideflow.framework import ops
    from tideflow.ops import cast_ops, math_ops, reduction_ops

    with ops.name_scope(name, "accuracy", values=[predictions, labels]):
        predictions = ops.convert_to_tensor(predictions)
        labels = ops.convert_to_tensor(labels)
        if predictions.dtype != labels.dtype:
            raise ValueError(f"Dtypes of predictions and labels should match. Given: "
                             f"predictions ({predictions.dtype.name}) and labels "
                             f"({labels.dtype.name})")
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
        correct = cast_ops.cast(math_ops.equal(predictions, labels), "float32")
        if weights is None:
            return reduction_ops.reduce_mean(correct)
        weights = cast_ops.cast(weights, "float32") + correct * 0
        return math_ops.truediv(reduction_ops.reduce_sum(correct * weights),
                                reduction_ops.reduce_sum(weights))


def confusion_matrix(labels, predictions, num_classes=None, dtype="int32", name=None,
                     weights=None):
    """``tf.confusion_matrix`` under its 1.0 contrib name."""
    from tideflow import confusion_matrix as core

    return core(labels, predictions, num_classes=num_classes, dtype=dtype, name=name,
                weights=weights)


def f1_score(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None,
             updates_collections=None, name=None):
    """The best F1 score over ``num_thresholds`` thresholds in [0, 1] (TF's grid, with
    ``prediction > threshold`` positive): ``(best_f1, update_op)``; ``predictions`` must lie in
    [0, 1]. Precision, recall and F1 each add 1e-7 to their denominators, as TF's."""
    from tideflow.ops import reduction_ops
    from tideflow.ops import variable_scope as vs

    m = _metrics()
    eps = m._KEPSILON

    def best_f1(c, name):
        precision = m._rate(c["tp"], c["fp"], name="precision_" + name)
        recall = m._rate(c["tp"], c["fn"], name="recall_" + name)
        f1 = 2.0 * precision * recall / (precision + recall + eps)
        return reduction_ops.reduce_max(f1, name=name)

    with vs.variable_scope(name, "f1", (labels, predictions, weights)):
        values, updates = m._thresholded_counts(
            "f1_score", labels, predictions, weights, m._default_thresholds(num_thresholds),
            ("tp", "fp", "fn"))
        return m._value_and_update(best_f1, values, updates, metrics_collections,
                                   updates_collections)


def aggregate_metrics(*value_update_tuples):
    """``(values, update_ops)`` from ``(value, update_op)`` pairs."""
    if not value_update_tuples:
        raise ValueError("Expected at least one value_tensor/update_op pair")
    values, updates = zip(*value_update_tuples, strict=True)
    return list(values), list(updates)


def aggregate_metric_map(names_to_tuples):
    """``({name: value}, {name: update_op})`` from ``{name: (value, update_op)}``."""
    names_to_values = {}
    names_to_updates = {}
    for name, (value, update) in names_to_tuples.items():
        names_to_values[name] = value
        names_to_updates[name] = update
    return names_to_values, names_to_updates


__all__ = [
    "accuracy",
    "aggregate_metric_map",
    "aggregate_metrics",
    "confusion_matrix",
    "f1_score",
    "streaming_accuracy",
    "streaming_auc",
    "streaming_covariance",
    "streaming_false_negatives",
    "streaming_false_positives",
    "streaming_mean",
    "streaming_mean_absolute_error",
    "streaming_mean_cosine_distance",
    "streaming_mean_iou",
    "streaming_mean_relative_error",
    "streaming_mean_squared_error",
    "streaming_mean_tensor",
    "streaming_pearson_correlation",
    "streaming_percentage_less",
    "streaming_precision",
    "streaming_precision_at_thresholds",
    "streaming_recall",
    "streaming_recall_at_k",
    "streaming_recall_at_thresholds",
    "streaming_root_mean_squared_error",
    "streaming_sensitivity_at_specificity",
    "streaming_sparse_precision_at_k",
    "streaming_sparse_recall_at_k",
    "streaming_specificity_at_sensitivity",
    "streaming_true_negatives",
    "streaming_true_positives",
]
