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


__all__ = ["aggregate_metric_map", "aggregate_metrics", "streaming_accuracy", "streaming_auc",
           "streaming_false_negatives", "streaming_false_positives",
           "streaming_mean", "streaming_mean_absolute_error", "streaming_mean_iou",
           "streaming_mean_squared_error", "streaming_mean_tensor", "streaming_precision",
           "streaming_recall", "streaming_recall_at_k", "streaming_root_mean_squared_error",
           "streaming_sparse_precision_at_k", "streaming_sparse_recall_at_k",
           "streaming_true_negatives", "streaming_true_positives"]
