"""``tensorflow.python.ops.metrics_impl``: ``tf.metrics`` plus the helpers libraries built on
TF 1.x metrics reach into: ``metric_variable`` (a zeroed local variable in the metric
collections) and ``_confusion_matrix_at_thresholds`` (the per-threshold tp/fn/tn/fp counters
behind ``auc`` and ``precision_at_thresholds``)."""

from tideflow import metrics as _metrics
from tideflow.framework import ops

_ALL_COUNTS = ("tp", "fn", "tn", "fp")


def metric_variable(shape, dtype, validate_shape=True, name=None):
    """A zero-initialized, non-trainable local variable of ``shape`` in the LOCAL_VARIABLES
    and METRIC_VARIABLES collections, as TF's metrics keep their running totals."""
    del validate_shape  # the zeros have the full static shape
    return _metrics._metric_variable(shape, dtype, name)


def _confusion_matrix_at_thresholds(labels, predictions, thresholds, weights=None,
                                    includes=None):
    """``(values, update_ops)``: dicts from ``"tp"``, ``"fn"``, ``"tn"``, ``"fp"`` (those in
    ``includes``, default all) to ``[len(thresholds)]`` float32 counts, a prediction above a
    threshold counting as positive; ``predictions`` must lie in [0, 1]."""
    includes = _ALL_COUNTS if includes is None else tuple(includes)
    bad = [k for k in includes if k not in _ALL_COUNTS]
    if bad:
        raise ValueError(f"Invalid key: {bad[0]}.")
    with ops.name_scope(None, "confusion_matrix", [labels, predictions]):
        return _metrics._thresholded_counts("confusion_matrix_at_thresholds", labels,
                                            predictions, weights, list(thresholds), includes)


__all__ = ["metric_variable"]
