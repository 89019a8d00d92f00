"""``tf.metrics``: streaming evaluation metrics with TensorFlow 1.x semantics.

Every metric returns ``(value, update_op)``.  Its running state lives in local variables (in
``GraphKeys.LOCAL_VARIABLES`` and ``GraphKeys.METRIC_VARIABLES``) created under a variable scope
named after the metric (``accuracy/total``, ``accuracy/count``), so
``tf.local_variables_initializer()`` resets it.  ``update_op`` folds one batch into the state and
evaluates to the metric after that batch; ``value`` reads the metric from the current state.
Ratios whose denominator is zero evaluate to 0, as in TensorFlow.

Built only from existing graph ops (variables, ``assign_add``, reductions, ``where``).
"""

import numbers

import numpy as np

from tideflow import logging as tf_logging
from tideflow.framework import dtypes, ops, sparse_tensor
from tideflow.framework.sparse_tensor import SparseTensor
from tideflow.ops import (
    array_ops,
    cast_ops,
    check_extra_ops,
    check_ops,
    concat_ops,
    cond,
    counting_ops,
    embedding_ops,
    fill_ops,
    gather_ops,
    math_ops,
    matrix_diag_ops,
    nn_impl,
    pad_ops,
    range_ops,
    reduction_ops,
    set_ops,
    slicing_ops,
    sparse_ops,
    sparse_rows_ops,
    special_math_ops,
    state_ops,
    unary_ops,
    variables,
    weights_broadcast_ops,
)
from tideflow.ops import variable_scope as vs

__all__ = [
    "accuracy",
    "auc",
    "false_negatives",
    "false_negatives_at_thresholds",
    "false_positives",
    "false_positives_at_thresholds",
    "mean",
    "mean_absolute_error",
    "mean_iou",
    "mean_squared_error",
    "mean_tensor",
    "precision",
    "precision_at_k",
    "precision_at_thresholds",
    "recall",
    "recall_at_k",
    "recall_at_thresholds",
    "root_mean_squared_error",
    "sparse_precision_at_k",
    "sparse_recall_at_k",
    "true_negatives",
    "true_negatives_at_thresholds",
    "true_positives",
    "true_positives_at_thresholds",
]


# --------------------------------------------------------------------------- helpers


def _metric_variable(shape, dtype, name):
    """A zero-initialized local variable that ``local_variables_initializer`` resets."""
    # a callable initial value, as TF: its ops are <name>/Initializer/zeros
    # synchronized on read and summed across replicas, as TF 1.15's (its VariableDef says so)
    return variables.Variable(
        lambda: fill_ops.zeros(shape, dtype), trainable=False, name=name, dtype=dtype,
        collections=[ops.GraphKeys.LOCAL_VARIABLES, ops.GraphKeys.METRIC_VARIABLES],
        synchronization=variables.VariableSynchronization.ON_READ,
        aggregation=variables.VariableAggregation.SUM)


def _to_float(x):
    x = ops.convert_to_tensor(x)
    return x if x.dtype == dtypes.float32 else cast_ops.cast(x, dtypes.float32)


def _div_no_nan(num, den, name=None):
    """``num / den``, and 0 where ``den`` is 0 (TF's ``div_no_nan``)."""
    den = ops.convert_to_tensor(den)
    positive = math_ops.greater(den, fill_ops.zeros_like(den))
    safe = gather_ops.where(positive, den, fill_ops.ones_like(den))
    return gather_ops.where(positive, math_ops.truediv(num, safe), fill_ops.zeros_like(den),
                            name=name)


def _rank(t):
    return t.get_shape().ndims


def _last_dim_may_be_one(t):
    shape = t.get_shape()
    return shape.ndims is None or shape.ndims == 0 or shape.dims[-1].value in (None, 1)


def _squeeze_when(pred, t):
    """``t`` without its last dimension when the boolean tensor ``pred`` holds (ranks known only
    when the step runs)."""
    return cond.cond(pred, lambda: array_ops.squeeze(t, [-1]), lambda: t)


def _remove_squeezable_dimensions(predictions, labels, weights=None):
    """Squeeze a trailing size-1 dimension so the ranks of predictions and labels match, and
    squeeze or expand ``weights`` by one dimension toward the predictions' rank; with a rank
    unknown until the step runs, the same choices are made then (as TF 1.x does)."""
    predictions = ops.convert_to_tensor(predictions)
    if labels is not None:
        # as TF 1.15's confusion_matrix.remove_squeezable_dimensions (its scope and ops)
        with ops.name_scope(None, "remove_squeezable_dimensions", [labels, predictions]):
            labels = ops.convert_to_tensor(labels)
            pr, lr = _rank(predictions), _rank(labels)
            if pr is not None and lr is not None:
                # (static ranks: TF 1.15 squeezes whatever the size, so a size > 1 fails here)
                if pr == lr + 1:
                    predictions = array_ops.squeeze(predictions, [-1])
                elif lr == pr + 1:
                    labels = array_ops.squeeze(labels, [-1])
            else:
                diff = array_ops.rank(predictions) - array_ops.rank(labels)
                if pr is None or _last_dim_may_be_one(predictions):
                    predictions = _squeeze_when(math_ops.equal(1, diff), predictions)
                if lr is None or _last_dim_may_be_one(labels):
                    labels = _squeeze_when(math_ops.equal(-1, diff), labels)
    if weights is not None:
        weights = ops.convert_to_tensor(weights)
        pr, wr = _rank(predictions), _rank(weights)
        if wr == 0:
            pass
        elif pr is not None and wr is not None:
            if wr == pr + 1:  # (TF squeezes whatever the size: a size > 1 fails here)
                weights = array_ops.squeeze(weights, [-1])
            elif wr == pr - 1:
                weights = array_ops.expand_dims(weights, -1)
        else:
            # TF 1.15's ops: nested conds on the ranks, known when the step runs
            w = weights
            w_rank = array_ops.rank(w)
            diff = w_rank - array_ops.rank(predictions)

            def expand():
                return cond.cond(math_ops.equal(diff, -1), lambda: array_ops.expand_dims(w, [-1]),
                                 lambda: w)

            if wr is not None and not _last_dim_may_be_one(w):
                def squeeze():
                    return w
            else:
                def squeeze():
                    return array_ops.squeeze(w, [-1])

            def adjust():
                return cond.cond(math_ops.equal(diff, 1), squeeze, expand)

            weights = cond.cond(math_ops.equal(w_rank, 0), lambda: w, adjust)
    return predictions, labels, weights


def _check_shapes(op_name, predictions, labels):
    ps, ls = predictions.get_shape(), labels.get_shape()
    if not ps.is_compatible_with(ls):
        del op_name  # (TF's assert_is_compatible_with names only the shapes)
        raise ValueError(f"Shapes {ps} and {ls} are incompatible")


def _broadcast_weights(op_name, weights, values):
    """``weights`` broadcast to the shape of ``values`` (scalar, or each dim 1 or equal): a
    ValueError when the static shapes cannot broadcast, an Assert when they are unknown."""
    del op_name  # TF's message names the shapes, not the metric
    return weights_broadcast_ops.broadcast_weights(_to_float(weights), values)


def _add_collections(value, update_op, metrics_collections, updates_collections):
    if metrics_collections:
        ops.add_to_collections(metrics_collections, value)
    if updates_collections:
        ops.add_to_collections(updates_collections, update_op)


def _value_and_update(compute, values, updates, metrics_collections, updates_collections):
    """``compute(values, "value")`` and ``compute(updates, "update_op")``, the metric read
    from the state and after the batch's update, added to the collections."""
    value = compute(values, "value")
    update_op = compute(updates, "update_op")
    _add_collections(value, update_op, metrics_collections, updates_collections)
    return value, update_op


# --------------------------------------------------------------------------- means


def _weighted_values(op_name, values, weights):
    """``values * weights`` and the weights broadcast to the values' shape."""
    values, _, weights = _remove_squeezable_dimensions(values, None, weights)
    weights = _broadcast_weights(op_name, weights, values)
    return math_ops.multiply(values, weights), weights


def _running_mean(total, count, values, batch_total, batch_count, metrics_collections,
                  updates_collections):
    """Adds the batch's total and count (after ``values``) to the ``total`` and ``count``
    variables; the mean read from them and after the update."""
    update_total = state_ops.assign_add(total, batch_total)
    with ops.control_dependencies([values]):
        update_count = state_ops.assign_add(count, batch_count)
    # TF 1.15's ops: DivNoNan over max(count, 0)
    value = special_math_ops.div_no_nan(total, math_ops.maximum(count, 0), name="value")
    update_op = special_math_ops.div_no_nan(update_total, math_ops.maximum(update_count, 0),
                                            name="update_op")
    _add_collections(value, update_op, metrics_collections, updates_collections)
    return value, update_op


def mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) mean of ``values`` over all batches seen."""
    with vs.variable_scope(name, "mean", (values, weights)):
        values = _to_float(values)
        total = _metric_variable([], dtypes.float32, "total")
        count = _metric_variable([], dtypes.float32, "count")
        if weights is None:
            num_values = _to_float(array_ops.size(values))
        else:
            values, weights = _weighted_values("mean", values, weights)
            num_values = reduction_ops.reduce_sum(weights)
        return _running_mean(total, count, values, reduction_ops.reduce_sum(values), num_values,
                             metrics_collections, updates_collections)


def mean_tensor(values, weights=None, metrics_collections=None, updates_collections=None,
                name=None):
    """The element-wise (weighted) mean of ``values`` over all batches seen."""
    with vs.variable_scope(name, "mean", (values, weights)):
        values = _to_float(values)
        shape = values.get_shape()
        if not shape.is_fully_defined():
            # TF 1.15 fails converting the shape to a tensor for its variables
            raise ValueError(
                f"Cannot convert a partially known TensorShape to a Tensor: {shape}")
        total = _metric_variable(shape.as_list(), dtypes.float32, "total_tensor")
        count = _metric_variable(shape.as_list(), dtypes.float32, "count_tensor")
        num_values = fill_ops.ones_like(values)
        if weights is not None:
            values, weights = _weighted_values("mean_tensor", values, weights)
            num_values = math_ops.multiply(num_values, weights)
        return _running_mean(total, count, values, values, num_values, metrics_collections,
                             updates_collections)


def accuracy(labels, predictions, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """How often ``predictions`` equals ``labels``."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    _check_shapes("accuracy", predictions, labels)
    if labels.dtype != predictions.dtype:
        predictions = cast_ops.cast(predictions, labels.dtype)
    is_correct = _to_float(math_ops.equal(predictions, labels))
    return mean(is_correct, weights, metrics_collections, updates_collections,
                name or "accuracy")


def _error_mean(kind, labels, predictions, weights, metrics_collections, updates_collections,
                name):
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    _check_shapes(kind, predictions, labels)
    # (no casts, as TF 1.15: integer errors in integers; a mix of types is the op's TypeError)
    if kind == "mean_absolute_error":
        err = unary_ops.abs(predictions - labels)
    else:
        err = math_ops.squared_difference(labels, predictions)
    return mean(err, weights, metrics_collections, updates_collections, name or kind)


def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None,
                        updates_collections=None, name=None):
    """The mean of ``|predictions - labels|``."""
    return _error_mean("mean_absolute_error", labels, predictions, weights,
                       metrics_collections, updates_collections, name)


def mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                       updates_collections=None, name=None):
    """The mean of ``(predictions - labels) ** 2``."""
    return _error_mean("mean_squared_error", labels, predictions, weights,
                       metrics_collections, updates_collections, name)


def root_mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                            updates_collections=None, name=None):
    """The square root of the streaming mean squared error."""
    mse, update_mse = _error_mean("root_mean_squared_error", labels, predictions, weights,
                                  None, None, name or "root_mean_squared_error")
    value = unary_ops.sqrt(mse)
    update_op = unary_ops.sqrt(update_mse)
    _add_collections(value, update_op, metrics_collections, updates_collections)
    return value, update_op


# --------------------------------------------------------------------------- counts


def _to_bool_pair(op_name, labels, predictions, weights):
    # as TF: both cast to bool (predictions first), then the squeezable dimensions go
    predictions = cast_ops.cast(predictions, dtypes.bool)
    labels = cast_ops.cast(labels, dtypes.bool)
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    _check_shapes(op_name, predictions, labels)
    return labels, predictions, weights


def _count_condition(op_name, values, weights, metrics_collections, updates_collections):
    """The running (weighted) count of the true elements of the bool tensor ``values``, with
    TF 1.15's ops (``weights``: a scalar or of the rank of ``values``, broadcasting)."""
    del op_name  # TF's messages name the tensors, not the metric
    check_ops.assert_type(values, dtypes.bool)
    count = _metric_variable([], dtypes.float32, "count")
    values = cast_ops.cast(values, dtypes.float32)
    if weights is not None:
        rank_ok = check_extra_ops.assert_rank_in(weights, (0, array_ops.rank(values)))
        with ops.control_dependencies((rank_ok,)):
            values = math_ops.multiply(values, cast_ops.cast(weights, dtypes.float32))
    # TF reads the count through an Identity (false_negatives/Identity:0)
    value = array_ops.identity(count)
    update_op = state_ops.assign_add(count, reduction_ops.reduce_sum(values))
    _add_collections(value, update_op, metrics_collections, updates_collections)
    return value, update_op


def _make_count(op_name, label_true, pred_true):
    def metric(labels, predictions, weights=None, metrics_collections=None,
               updates_collections=None, name=None):
        with vs.variable_scope(name, op_name, (predictions, labels, weights)):
            labels, predictions, weights = _to_bool_pair(op_name, labels, predictions, weights)
            hit = math_ops.logical_and(math_ops.equal(labels, label_true),
                                       math_ops.equal(predictions, pred_true))
            return _count_condition(op_name, hit, weights, metrics_collections,
                                    updates_collections)

    metric.__name__ = metric.__qualname__ = op_name
    metric.__doc__ = (f"The (weighted) number of {op_name.replace('_', ' ')}; labels and "
                      f"predictions are cast to bool.")
    return metric


true_positives = _make_count("true_positives", True, True)
false_positives = _make_count("false_positives", False, True)
true_negatives = _make_count("true_negatives", False, False)
false_negatives = _make_count("false_negatives", True, False)


def _ratio(op_name, other, labels, predictions, weights, metrics_collections,
           updates_collections, name):
    with vs.variable_scope(name, op_name, (predictions, labels, weights)):
        labels, predictions, weights = _to_bool_pair(op_name, labels, predictions, weights)
        tp, tp_update = true_positives(labels, predictions, weights)
        other_v, other_update = other(labels, predictions, weights)

        def compute(tp, o, name):
            # 0 while nothing is positive, as TF
            return gather_ops.where(math_ops.greater(tp + o, 0), math_ops.div(tp, tp + o), 0,
                                    name)

        value = compute(tp, other_v, "value")
        update_op = compute(tp_update, other_update, "update_op")
        _add_collections(value, update_op, metrics_collections, updates_collections)
        return value, update_op


def precision(labels, predictions, weights=None, metrics_collections=None,
              updates_collections=None, name=None):
    """``tp / (tp + fp)`` over all batches; labels and predictions are cast to bool."""
    return _ratio("precision", false_positives, labels, predictions, weights,
                  metrics_collections, updates_collections, name)


def recall(labels, predictions, weights=None, metrics_collections=None,
           updates_collections=None, name=None):
    """``tp / (tp + fn)`` over all batches; labels and predictions are cast to bool."""
    return _ratio("recall", false_negatives, labels, predictions, weights,
                  metrics_collections, updates_collections, name)


# --------------------------------------------------------------------------- curves


_KEPSILON = 1e-7


def _default_thresholds(num_thresholds):
    """TF's threshold grid: ``0 - 1e-7``, evenly spaced interior points, ``1 + 1e-7``."""
    inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - _KEPSILON] + inner + [1.0 + _KEPSILON]


def _thresholded_counts(op_name, labels, predictions, weights, thresholds, names):
    """Per-threshold tp/fn/tn/fp counts (``prediction > threshold`` is positive), built op for
    op as TF 1.15 builds them (tiled ``[thresholds, predictions]`` comparisons), so the ops
    after a metric number as in TF."""
    del op_name  # TF's messages do not name the metric
    predictions = ops.convert_to_tensor(predictions)
    pdtype = predictions.dtype.base_dtype
    checks = [
        check_ops.assert_greater_equal(predictions, cast_ops.cast(0.0, pdtype),
                                       message="predictions must be in [0, 1]"),
        check_ops.assert_less_equal(predictions, cast_ops.cast(1.0, pdtype),
                                    message="predictions must be in [0, 1]"),
    ]
    # as TF: the checks gate only the ops made here (a cast or a squeeze); with float32
    # predictions and bool labels of equal rank there are none and nothing runs them
    with ops.control_dependencies(checks):
        predictions, labels, weights = _remove_squeezable_dimensions(
            cast_ops.cast(predictions, dtypes.float32), cast_ops.cast(labels, dtypes.bool),
            weights)
    _check_shapes("confusion_matrix_at_thresholds", predictions, labels)
    return _tiled_threshold_counts(predictions, labels, weights, thresholds, names)


def _tiled_threshold_counts(predictions, labels, weights, thresholds, names):
    """The counts' variables and updates from float ``predictions`` and ``labels`` of the same
    shape: each flattened, compared with every threshold in a tiled
    ``[thresholds, predictions]`` grid, as TF 1.15 (its ops and order)."""
    num_thresholds = len(thresholds)
    pred_col = array_ops.reshape(predictions, [-1, 1])
    label_row = array_ops.reshape(cast_ops.cast(labels, dtypes.bool), [1, -1])
    num_predictions = pred_col.get_shape().as_list()[0]
    if num_predictions is None:
        num_predictions = array_ops.shape(pred_col)[0]
    thresh_tiled = pad_ops.tile(
        array_ops.expand_dims(ops.convert_to_tensor(np.asarray(thresholds, np.float32)), [1]),
        concat_ops.stack([1, num_predictions]))
    pred_pos = math_ops.greater(
        pad_ops.tile(array_ops.transpose(pred_col), [num_thresholds, 1]), thresh_tiled)
    if "fn" in names or "tn" in names:
        pred_neg = math_ops.logical_not(pred_pos)
    label_pos = pad_ops.tile(label_row, [num_thresholds, 1])
    if "fp" in names or "tn" in names:
        label_neg = math_ops.logical_not(label_pos)
    w_tiled = None
    if weights is not None:
        weights = weights_broadcast_ops.broadcast_weights(_to_float(weights), predictions)
        w_tiled = pad_ops.tile(array_ops.reshape(weights, [1, -1]), [num_thresholds, 1])
    conditions = {
        "tp": lambda: (label_pos, pred_pos),
        "fn": lambda: (label_pos, pred_neg),
        "tn": lambda: (label_neg, pred_neg),
        "fp": lambda: (label_neg, pred_pos),
    }
    values, updates = {}, {}
    for key in ("tp", "fn", "tn", "fp"):
        if key not in names:
            continue
        var = _metric_variable([num_thresholds], dtypes.float32, _COUNT_NAMES[key])
        hits = cast_ops.cast(math_ops.logical_and(*conditions[key]()), dtypes.float32)
        if w_tiled is not None:
            hits = hits * w_tiled
        updates[key] = state_ops.assign_add(var, reduction_ops.reduce_sum(hits, 1))
        values[key] = var
    return values, updates


_COUNT_NAMES = {"tp": "true_positives", "fn": "false_negatives", "tn": "true_negatives",
                "fp": "false_positives"}


def auc(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None,
        updates_collections=None, curve="ROC", name=None, summation_method="trapezoidal",
        thresholds=None):
    """The area under the ROC or PR curve, approximated over ``num_thresholds`` thresholds.

    Like TensorFlow 1.x this is a Riemann sum over a fixed threshold grid (``0 - 1e-7``, evenly
    spaced interior points, ``1 + 1e-7``), so it approaches, but does not equal, the exact AUC.
    ``predictions`` must lie in [0, 1]; ``labels`` are cast to bool.
    """
    with vs.variable_scope(name, "auc", (labels, predictions, weights)):
        if curve not in ("ROC", "PR"):  # (TF 1.15: inside the scope, which it spends)
            raise ValueError(f"curve must be either ROC or PR, {curve} unknown")
        if thresholds is not None:
            thresholds = ([0.0 - _KEPSILON] + sorted(float(t) for t in thresholds)
                          + [1.0 + _KEPSILON])
            n = len(thresholds)
        else:
            # (as TF 1.15: no check; fewer than 2 still makes the grid's two ends, and the
            # curve's slices take num_thresholds as given)
            thresholds = _default_thresholds(num_thresholds)
            n = num_thresholds
        values, updates = _thresholded_counts(
            "auc", labels, predictions, weights, thresholds, ("tp", "fn", "tn", "fp"))

        def careful_pr(c, name):
            # Between neighbouring thresholds, tp and p = tp + fp vary linearly, so precision
            # is tp(p) / p; integrate it over recall = tp / (tp + fn) in closed form
            del name  # TF names both the value and the update "interpolate_pr_auc"
            tp, fp, fn = c["tp"], c["fp"], c["fn"]
            d_tp = tp[:n - 1] - tp[1:]
            p = tp + fp
            slope = special_math_ops.div_no_nan(
                d_tp, math_ops.maximum(p[:n - 1] - p[1:], 0), name="prec_slope")
            intercept = tp[1:] - math_ops.multiply(slope, p[1:])
            ratio = gather_ops.where(
                math_ops.logical_and(p[:n - 1] > 0, p[1:] > 0),
                special_math_ops.div_no_nan(p[:n - 1], math_ops.maximum(p[1:], 0),
                                            name="recall_relative_ratio"),
                fill_ops.ones_like(p[1:]))
            return reduction_ops.reduce_sum(
                special_math_ops.div_no_nan(
                    slope * (d_tp + intercept * unary_ops.log(ratio)),
                    math_ops.maximum(tp[1:] + fn[1:], 0), name="pr_auc_increment"),
                name="interpolate_pr_auc")

        def compute(c, name):
            # TF 1.15's ops, in its order (so the ops after the metric number as in TF)
            if curve == "PR" and summation_method == "careful_interpolation":
                return careful_pr(c, name)
            if curve == "PR" and summation_method == "trapezoidal":
                # TF 1.15's warning, logged for the value and for the update
                tf_logging.warning("Trapezoidal rule is known to produce incorrect PR-AUCs; "
                                   'please switch to "careful_interpolation" instead.')
            eps = 1.0e-6
            tp, fn, tn, fp = c["tp"], c["fn"], c["tn"], c["fp"]
            rec = math_ops.div(tp + eps, tp + fn + eps)
            if curve == "ROC":
                x, y = math_ops.div(fp, fp + tn + eps), rec
            else:
                x, y = rec, math_ops.div(tp + eps, tp + fp + eps)
            if summation_method not in ("trapezoidal", "careful_interpolation", "minoring",
                                        "majoring"):
                raise ValueError(f"Invalid summation_method: {summation_method}")
            dx = x[:n - 1] - x[1:]
            if summation_method == "minoring":
                height = math_ops.minimum(y[:n - 1], y[1:])
            elif summation_method == "majoring":
                height = math_ops.maximum(y[:n - 1], y[1:])
            else:
                height = (y[:n - 1] + y[1:]) / 2.0
            return reduction_ops.reduce_sum(math_ops.multiply(dx, height), name=name)

        return _value_and_update(compute, values, updates, metrics_collections,
                                 updates_collections)


# --------------------------------------------------------------------------- segmentation


def _streaming_confusion_matrix(labels, predictions, num_classes, weights=None):
    """The running ``[num_classes, num_classes]`` float64 confusion matrix (rows = labels,
    columns = predictions) and its update, with TF 1.15's ops."""
    total_cm = _metric_variable([num_classes, num_classes], dtypes.float64,
                                "total_confusion_matrix")
    predictions = cast_ops.cast(predictions, dtypes.int64)
    labels = cast_ops.cast(labels, dtypes.int64)
    num_classes = cast_ops.cast(num_classes, dtypes.int64)
    if predictions.get_shape().ndims > 1:
        predictions = array_ops.reshape(predictions, [-1])
    if labels.get_shape().ndims > 1:
        labels = array_ops.reshape(labels, [-1])
    if weights is not None:
        weights = ops.convert_to_tensor(weights)
        if weights.get_shape().ndims > 1:
            weights = array_ops.reshape(weights, [-1])
    current_cm = counting_ops.confusion_matrix(labels, predictions, num_classes,
                                               weights=weights, dtype=dtypes.float64)
    return total_cm, state_ops.assign_add(total_cm, current_cm)


def mean_iou(labels, predictions, num_classes, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """The mean intersection-over-union over classes that occur in labels or predictions.

    As in TensorFlow 1.x, ``update_op`` is the update of the running confusion matrix
    (``mean_iou/total_confusion_matrix``, float64, rows = labels, columns = predictions).
    """
    with vs.variable_scope(name, "mean_iou", (predictions, labels, weights)):
        predictions = ops.convert_to_tensor(predictions)
        labels = ops.convert_to_tensor(labels)
        _check_shapes("mean_iou", predictions, labels)
        total_cm, update_op = _streaming_confusion_matrix(labels, predictions, num_classes,
                                                          weights)
        # TF 1.15's ops: the classes never seen (denominator 0) do not count
        cm = total_cm.value()
        sum_over_row = cast_ops.cast(reduction_ops.reduce_sum(cm, 0), dtypes.float32)
        sum_over_col = cast_ops.cast(reduction_ops.reduce_sum(cm, 1), dtypes.float32)
        cm_diag = cast_ops.cast(matrix_diag_ops.diag_part(cm), dtypes.float32)
        denominator = sum_over_row + sum_over_col - cm_diag
        num_valid = reduction_ops.reduce_sum(
            cast_ops.cast(math_ops.not_equal(denominator, 0), dtypes.float32))
        denominator = gather_ops.where(math_ops.greater(denominator, 0), denominator,
                                       fill_ops.ones_like(denominator))
        iou = math_ops.div(cm_diag, denominator)
        value = gather_ops.where(math_ops.greater(num_valid, 0),
                                 reduction_ops.reduce_sum(iou, name="mean_iou") / num_valid, 0)
        _add_collections(value, update_op, metrics_collections, updates_collections)
        return value, update_op


# --------------------------------------------------------------------------- top-k


def _as_pct_d(v):
    # TF 1.15 formats k and class_id with %d: a float truncates, a tensor is a TypeError
    if not isinstance(v, numbers.Real):
        raise TypeError(f"%d format: a number is required, not {type(v).__name__}")
    return int(v)


def _at_k_name(name, k=None, class_id=None):
    name = f"{name}_at_{_as_pct_d(k)}" if k is not None else f"{name}_at_k"
    if class_id is not None:
        name = f"{name}_class{_as_pct_d(class_id)}"
    return name


def precision_at_k(labels, predictions, k, class_id=None, weights=None,
                   metrics_collections=None, updates_collections=None, name=None):
    """Precision of the ``k`` highest-scored classes against the labels (float64).

    ``labels``: int ``[D1, ... DN]`` or ``[D1, ... DN, num_labels]`` (values outside
    ``[0, num_classes)`` are ignored); ``predictions``: ``[D1, ... DN, num_classes]`` scores.
    With ``class_id`` only that class counts.  ``weights``: a scalar or one weight per row.
    """
    return _metric_at_k("precision", "fp", labels, predictions, k, class_id, weights,
                        metrics_collections, updates_collections, name)


def recall_at_k(labels, predictions, k, class_id=None, weights=None, metrics_collections=None,
                updates_collections=None, name=None):
    """Recall of the ``k`` highest-scored classes against the labels (float64); see
    ``precision_at_k`` for the argument shapes. Each distinct label value counts once, and
    labels outside ``[0, num_classes)`` always count as false negatives (as in TF)."""
    return _metric_at_k("recall", "fn", labels, predictions, k, class_id, weights,
                        metrics_collections, updates_collections, name)


def _metric_at_k(kind, missed, labels, predictions, k, class_id, weights, metrics_collections,
                 updates_collections, name):
    """precision_at_k / recall_at_k (``missed``: their false "fp" or "fn"): as TF, through
    the top-k indices and set operations (so labels that are no class count as missed)."""
    # as TF 1.15, k is not checked here: k=0 counts nothing, a negative or float k fails in
    # TopKV2
    with ops.name_scope(name, _at_k_name(kind, k, class_id),
                        (predictions, labels, weights)) as scope:
        _, top_idx = nn_impl.top_k(ops.convert_to_tensor(predictions), k)
        return _at_top_k_metric(kind, missed, labels, top_idx, k, class_id, weights,
                                metrics_collections, updates_collections, scope)


sparse_precision_at_k = precision_at_k
sparse_recall_at_k = recall_at_k


# --------------------------------------------------------------------------- at thresholds


def _make_count_at_thresholds(op_name, key):
    def metric(labels, predictions, thresholds, weights=None, metrics_collections=None,
               updates_collections=None, name=None):
        with vs.variable_scope(name, op_name, (predictions, labels, weights)):
            values, updates = _thresholded_counts(
                f"{op_name}_at_thresholds", labels, predictions, weights,
                [float(t) for t in thresholds], (key,))
            value = array_ops.identity(values[key])  # TF reads the variable so
            _add_collections(value, updates[key], metrics_collections, updates_collections)
            return value, updates[key]

    metric.__name__ = metric.__qualname__ = f"{op_name}_at_thresholds"
    metric.__doc__ = (f"The (weighted) {op_name.replace('_', ' ')} for each threshold "
                      f"(``prediction > threshold`` is positive), shape ``[len(thresholds)]``.")
    return metric


true_positives_at_thresholds = _make_count_at_thresholds("true_positives", "tp")
false_positives_at_thresholds = _make_count_at_thresholds("false_positives", "fp")
true_negatives_at_thresholds = _make_count_at_thresholds("true_negatives", "tn")
false_negatives_at_thresholds = _make_count_at_thresholds("false_negatives", "fn")


def _ratio_at_thresholds(kind, other, labels, predictions, thresholds, weights,
                         metrics_collections, updates_collections, name):
    with vs.variable_scope(name, f"{kind}_at_thresholds", (predictions, labels, weights)):
        values, updates = _thresholded_counts(
            f"{kind}_at_thresholds", labels, predictions, weights,
            [float(t) for t in thresholds], ("tp", other))
        def compute(c, suffix):
            return math_ops.div(c["tp"], 1e-7 + c["tp"] + c[other], name=f"{kind}_{suffix}")

        return _value_and_update(compute, values, updates, metrics_collections,
                                 updates_collections)


def precision_at_thresholds(labels, predictions, thresholds, weights=None,
                            metrics_collections=None, updates_collections=None, name=None):
    """``tp / (tp + fp + 1e-7)`` for each threshold; ``predictions`` in [0, 1]."""
    return _ratio_at_thresholds("precision", "fp", labels, predictions, thresholds, weights,
                                metrics_collections, updates_collections, name)


def recall_at_thresholds(labels, predictions, thresholds, weights=None,
                         metrics_collections=None, updates_collections=None, name=None):
    """``tp / (tp + fn + 1e-7)`` for each threshold; ``predictions`` in [0, 1]."""
    return _ratio_at_thresholds("recall", "fn", labels, predictions, thresholds, weights,
                                metrics_collections, updates_collections, name)


# --------------------------------------------------------------------------- further means


def mean_cosine_distance(labels, predictions, dim, weights=None, metrics_collections=None,
                         updates_collections=None, name=None):
    """``1 - mean(sum(labels * predictions, dim))``: the cosine distance of unit-normalized
    ``labels`` and ``predictions`` along ``dim``, averaged over all batches."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    _check_shapes("mean_cosine_distance", predictions, labels)
    radial = reduction_ops.reduce_sum(
        math_ops.multiply(_to_float(predictions), _to_float(labels)), axis=[dim],
        keepdims=True)
    dist, update = mean(radial, weights, None, None, name or "mean_cosine_distance")
    value = math_ops.subtract(np.float32(1.0), dist)
    update_op = math_ops.subtract(np.float32(1.0), update)
    _add_collections(value, update_op, metrics_collections, updates_collections)
    return value, update_op


def mean_relative_error(labels, predictions, normalizer, weights=None, metrics_collections=None,
                        updates_collections=None, name=None):
    """The mean of ``|labels - predictions| / normalizer`` (0 where ``normalizer`` is 0)."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    _check_shapes("mean_relative_error", predictions, labels)
    normalizer, predictions, _ = _remove_squeezable_dimensions(
        ops.convert_to_tensor(normalizer), predictions)
    _check_shapes("mean_relative_error", predictions, normalizer)
    # TF 1.15's ops: the quotient everywhere, 0 where the normalizer is 0
    rel = gather_ops.where(math_ops.equal(normalizer, 0.0), fill_ops.zeros_like(labels),
                           math_ops.div(unary_ops.abs(labels - predictions), normalizer))
    return mean(rel, weights, metrics_collections, updates_collections,
                name or "mean_relative_error")


def percentage_below(values, threshold, weights=None, metrics_collections=None,
                     updates_collections=None, name=None):
    """The (weighted) fraction of ``values`` below ``threshold``, over all batches."""
    # (values as given, as TF 1.15: the threshold converts to their type or fails)
    below = _to_float(math_ops.less(values, threshold))
    return mean(below, weights, metrics_collections, updates_collections,
                name or "percentage_below_threshold")


def mean_per_class_accuracy(labels, predictions, num_classes, weights=None,
                            metrics_collections=None, updates_collections=None, name=None):
    """The mean over classes of each class's accuracy (classes by ``labels``).

    As in TensorFlow 1.x, ``update_op`` evaluates to the per-class accuracies (shape
    ``[num_classes]``) after the batch; ``value`` is their mean (classes never seen count 0).
    """
    with vs.variable_scope(name, "mean_accuracy", (predictions, labels, weights)):
        # TF 1.15's ops, in its order
        labels = cast_ops.cast(labels, dtypes.int64)
        if labels.get_shape().ndims > 1:
            labels = array_ops.reshape(labels, [-1])
        predictions = ops.convert_to_tensor(predictions)
        if predictions.get_shape().ndims > 1:
            predictions = array_ops.reshape(predictions, [-1])
        _check_shapes("mean_per_class_accuracy", predictions, labels)
        total = _metric_variable([num_classes], dtypes.float32, "total")
        count = _metric_variable([num_classes], dtypes.float32, "count")
        ones = fill_ops.ones([array_ops.size(labels)], dtypes.float32)
        if labels.dtype != predictions.dtype:
            predictions = cast_ops.cast(predictions, labels.dtype)
        is_correct = cast_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
        if weights is not None:
            weights = ops.convert_to_tensor(weights)
            if weights.get_shape().ndims > 1:
                weights = array_ops.reshape(weights, [-1])
            weights = cast_ops.cast(weights, dtypes.float32)
            is_correct = is_correct * weights
            ones = ones * weights
        update_total = state_ops.scatter_add(total, labels, ones)
        update_count = state_ops.scatter_add(count, labels, is_correct)
        per_class = special_math_ops.div_no_nan(count, math_ops.maximum(total, 0))
        value = reduction_ops.reduce_mean(per_class, name="mean_accuracy")
        update_op = special_math_ops.div_no_nan(
            update_count, math_ops.maximum(update_total, 0), name="update_op")
        _add_collections(value, update_op, metrics_collections, updates_collections)
        return value, update_op


# --------------------------------------------------------------------------- at a sensitivity

def _rate(a, b, name=None):
    """``a / (a + b + 1e-7)``."""
    return math_ops.div(a, a + b + _KEPSILON, name=name)


def _at_target_rate(op_name, target_name, target, labels, predictions, weights, num_thresholds,
                    compute, metrics_collections, updates_collections, name):
    """The metric ``compute(counts, name)`` picks from the tp/fn/tn/fp counts at
    ``num_thresholds`` thresholds, given the ``target`` rate in [0, 1]."""
    if not 0 <= target <= 1:
        raise ValueError(f"`{target_name}` must be in the range [0, 1].")  # (TF's words)
    with vs.variable_scope(name, op_name, (predictions, labels, weights)):
        thresholds = _default_thresholds(num_thresholds)
        if op_name == "specificity_at_sensitivity":
            # TF 1.15's grid for this metric ends just below 1, not just above it
            thresholds[-1] = 1.0 - _KEPSILON
        values, updates = _thresholded_counts(
            op_name, labels, predictions, weights, thresholds, ("tp", "fn", "tn", "fp"))
        return _value_and_update(compute, values, updates, metrics_collections,
                                 updates_collections)


def sensitivity_at_specificity(labels, predictions, specificity, weights=None,
                               num_thresholds=200, metrics_collections=None,
                               updates_collections=None, name=None):
    """The sensitivity (recall) at the threshold whose specificity is nearest ``specificity``,
    over ``num_thresholds`` thresholds in [0, 1]; ``predictions`` must lie in [0, 1]."""

    def compute(c, name):
        spec = _rate(c["tn"], c["fp"])
        idx = cast_ops.cast(reduction_ops.argmin(unary_ops.abs(spec - specificity), 0),
                            dtypes.int32)
        tp, fn = c["tp"], c["fn"]
        return math_ops.div(tp[idx], tp[idx] + fn[idx] + _KEPSILON, name)

    return _at_target_rate("sensitivity_at_specificity", "specificity", specificity, labels,
                           predictions, weights, num_thresholds, compute, metrics_collections,
                           updates_collections, name)


def specificity_at_sensitivity(labels, predictions, sensitivity, weights=None,
                               num_thresholds=200, metrics_collections=None,
                               updates_collections=None, name=None):
    """The specificity at the threshold whose sensitivity is nearest ``sensitivity`` (the
    highest such threshold on ties), over ``num_thresholds`` thresholds in [0, 1]."""

    def compute(c, name):
        sens = _rate(c["tp"], c["fn"])
        nearest = reduction_ops.reduce_min(unary_ops.abs(sens - sensitivity))
        at_min = math_ops.equal(unary_ops.abs(sens - sensitivity), nearest)
        # the last threshold among the nearest ones, as TF picks it
        idx = cast_ops.cast(reduction_ops.argmax(
            reduction_ops.cumsum(cast_ops.cast(at_min, dtypes.int64)), 0), dtypes.int32)
        tn, fp = c["tn"], c["fp"]
        return math_ops.div(tn[idx], tn[idx] + fp[idx] + _KEPSILON, name)

    return _at_target_rate("specificity_at_sensitivity", "sensitivity", sensitivity, labels,
                           predictions, weights, num_thresholds, compute, metrics_collections,
                           updates_collections, name)


# --------------------------------------------------------------------------- top-k given indices


def _maybe_expand_labels(labels, predictions):
    """Dense ``labels`` given a last dimension of 1 when they have one dimension less than
    ``predictions`` (TF 1.15's ops: an ``expand_labels`` scope, a cond for unknown ranks)."""
    with ops.name_scope(None, "expand_labels", (labels, predictions)) as scope:
        labels = sparse_tensor.convert_to_tensor_or_sparse_tensor(labels)
        if isinstance(labels, SparseTensor):
            return cond.cond(
                math_ops.equal(array_ops.rank(predictions),
                               array_ops.size(labels.dense_shape) + 1),
                lambda: sparse_ops.sparse_reshape(
                    labels, shape=concat_ops.concat((labels.dense_shape, (1,)), 0),
                    name=scope),
                lambda: labels)
        lr, pr = _rank(labels), _rank(predictions)
        if lr is not None and pr is not None:
            if pr == lr:
                return labels
            if pr == lr + 1:
                return array_ops.expand_dims(labels, -1, name=scope)
            raise ValueError(f"Unexpected labels shape {labels.get_shape()} for predictions "
                             f"shape {predictions.get_shape()}.")
        return cond.cond(math_ops.equal(array_ops.rank(predictions), array_ops.rank(labels) + 1),
                         lambda: array_ops.expand_dims(labels, -1, name=scope), lambda: labels)


def _select_class_id(ids, selected_id):
    """The sets of int64 ``ids`` ([D1, ... DN, n]) kept to ``selected_id`` (a SparseTensor
    of ids' shape), with TF 1.15's ops: a sparse one's matching values retained; for a dense
    one the id filled into a [D1, ... DN, 1] tensor (its shape as TF's reduced_shape computes
    it) intersected with ``ids``."""
    if isinstance(ids, SparseTensor):
        return sparse_rows_ops.sparse_retain(ids, math_ops.equal(ids.values, selected_id))
    ids_shape = array_ops.shape(ids, out_type=dtypes.int64)
    last = array_ops.reshape(array_ops.size(ids_shape) - 1, [1])
    shape = cast_ops.cast(ids_shape, dtypes.int32)
    rank = array_ops.size(shape)
    axes = (last + rank) % rank
    axes_shape = array_ops.shape(axes)
    filled_shape = embedding_ops.dynamic_stitch(
        [range_ops.range(rank), axes], [shape, fill_ops.fill(axes_shape, 1)])
    filled = fill_ops.fill(filled_shape, cast_ops.cast(selected_id, dtypes.int64))
    result = set_ops.set_intersection(filled, ids)
    return SparseTensor(result.indices, result.values, ids_shape)


def _streaming_set_count(label, inner, k, weights, count, class_id=None):
    """The running float64 sum (variable ``<label>_at_<k>``) of the per-row sizes of the sets
    ``count()`` makes, weighted, with TF 1.15's ops; the variable and its update."""
    with ops.name_scope(None, _at_k_name(label, k, class_id), (weights,)) as scope:
        with ops.name_scope(None, inner, (weights,)):
            sizes = cast_ops.cast(set_ops.set_size(count()), dtypes.float64)
            if weights is not None:
                check = weights_broadcast_ops.assert_broadcastable(weights, sizes)
                with ops.control_dependencies((check,)):
                    sizes = math_ops.multiply(sizes, cast_ops.cast(weights, dtypes.float64))
        batch = cast_ops.cast(reduction_ops.reduce_sum(sizes), dtypes.float64)
        var = _metric_variable([], dtypes.float64, scope)
        return var, state_ops.assign_add(var, batch, name="update")


def _set_metric_at_k(kind, other, labels, predictions_idx, k, scope, weights,
                     metrics_collections, updates_collections, class_id=None):
    """``tp / (tp + other)`` of the top-k class ids against int labels (dense, or a
    SparseTensor), through set operations, with TF 1.15's ops (in the name scope ``scope``)."""
    labels = _maybe_expand_labels(labels, predictions_idx)
    top_k_idx = cast_ops.cast(predictions_idx, dtypes.int64)
    # labels of another type than int64 fail in the set operations ("Types don't match"),
    # as TF 1.15's

    def sets():
        if class_id is None:
            return top_k_idx, labels
        lab = _select_class_id(labels, class_id)
        return _select_class_id(top_k_idx, class_id), lab

    def count(operation):
        def make():
            pred_set, label_set = sets()
            if operation == "tp":
                return set_ops.set_intersection(pred_set, label_set)
            return set_ops.set_difference(pred_set, label_set, aminusb=operation == "fp")
        return make

    tp, tp_update = _streaming_set_count("true_positive", "true_positives", k, weights,
                                         count("tp"), class_id)
    if other == "fp":
        o, o_update = _streaming_set_count("false_positive", "false_positives", k, weights,
                                           count("fp"), class_id)
    else:
        o, o_update = _streaming_set_count("false_negative", "false_negatives", k, weights,
                                           count("fn"), class_id)
    value = math_ops.div(tp, math_ops.add(tp, o), name=scope)
    update_op = math_ops.div(tp_update, math_ops.add(tp_update, o_update), name="update")
    _add_collections(value, update_op, metrics_collections, updates_collections)
    return value, update_op


def _at_top_k_metric(kind, other, labels, predictions_idx, k, class_id, weights,
                     metrics_collections, updates_collections, name):
    with ops.name_scope(name, _at_k_name(kind, k, class_id),
                        (predictions_idx, labels, weights)) as scope:
        # as TF 1.15, ``k`` only names the metric: every index of predictions_idx counts
        return _set_metric_at_k(kind, other, labels, predictions_idx, k, scope, weights,
                                metrics_collections, updates_collections, class_id)


def precision_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None,
                       metrics_collections=None, updates_collections=None, name=None):
    """``precision_at_k`` given the top-k class indices ``predictions_idx`` ([D1, ... DN, k])
    instead of scores."""
    return _at_top_k_metric("precision", "fp", labels, predictions_idx, k, class_id, weights,
                            metrics_collections, updates_collections, name)


def recall_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None,
                    metrics_collections=None, updates_collections=None, name=None):
    """``recall_at_k`` given the top-k class indices ``predictions_idx`` ([D1, ... DN, k])."""
    return _at_top_k_metric("recall", "fn", labels, predictions_idx, k, class_id, weights,
                            metrics_collections, updates_collections, name)


def average_precision_at_k(labels, predictions, k, weights=None, metrics_collections=None,
                           updates_collections=None, name=None):
    """The mean over rows of the average precision of the ``k`` highest-scored classes (float64).

    A row's average precision is the sum, over the relevant ones among the top ``k``, of the
    precision at their rank, divided by ``min(k, number of labels >= 0)`` (NaN for a row without
    labels, as in TF). ``value`` is the running sum of those divided by the number of rows (or
    by the sum of the weights).
    """
    if k < 1:
        raise ValueError(f"Invalid k={k}.")  # (TF's words)
    with ops.name_scope(name, _at_k_name("average_precision", k),
                        (predictions, labels, weights)) as scope:
        predictions = ops.convert_to_tensor(predictions)
        _, top_idx = nn_impl.top_k(predictions, k)
        # as TF: labels >= num_classes are no labels (like -1), replaced in a cond
        labels = sparse_tensor.convert_to_tensor_or_sparse_tensor(labels)
        # (labels of another type than int64 fail in the GreaterEqual below, as TF's)
        num_classes = cast_ops.cast(array_ops.shape(predictions)[-1], dtypes.int64)
        sparse = isinstance(labels, SparseTensor)
        values = labels.values if sparse else labels

        def clean():
            cleaned = gather_ops.where_v2(math_ops.greater_equal(values, num_classes),
                                          -1 * fill_ops.ones_like(values), values)
            return SparseTensor(labels.indices, cleaned, labels.dense_shape) if sparse \
                else cleaned

        labels = cond.cond(
            math_ops.greater_equal(reduction_ops.reduce_max(values), num_classes), clean,
            lambda: labels)
        return _streaming_average_precision(labels, top_idx, weights, metrics_collections,
                                            updates_collections, scope)


def _average_precision_per_row(labels, predictions_idx):
    """Each row's average precision of the ranked class ids ``predictions_idx`` (k static),
    with TF 1.15's ops (its scope ``average_precision`` and set operations)."""
    with ops.name_scope(None, "average_precision", (predictions_idx, labels)) as scope:
        predictions_idx = cast_ops.cast(predictions_idx, dtypes.int64, name="predictions_idx")
        if predictions_idx.get_shape().ndims == 0:
            raise ValueError("The rank of predictions_idx must be at least 1.")
        k = predictions_idx.get_shape().as_list()[-1]
        if k is None:
            raise ValueError("The last dimension of predictions_idx must be set.")
        labels = _maybe_expand_labels(labels, predictions_idx)
        predictions_idx_per_k = array_ops.expand_dims(predictions_idx, -1,
                                                      name="predictions_idx_per_k")
        with ops.name_scope(None, "labels_per_k", (labels, k, -1)) as tile_scope:
            # each row's labels once per rank
            if isinstance(labels, SparseTensor):
                at = array_ops.reshape(array_ops.size(labels.dense_shape) + -1, [1])
                expanded_shape = concat_ops.concat(
                    (slicing_ops.slice(labels.dense_shape, [0], at), [1],
                     slicing_ops.slice(labels.dense_shape, at, [-1])), 0,
                    name="expanded_shape")
                labels_per_k = sparse_ops.sparse_reshape(labels, shape=expanded_shape,
                                                         name="expand")
                if k > 1:
                    labels_per_k = sparse_ops.sparse_concat(-2, [labels_per_k] * k,
                                                            name=tile_scope)
            else:
                labels_per_k = array_ops.expand_dims(labels, -2, name="expand")
                if k > 1:
                    ones = fill_ops.ones_like(array_ops.shape(labels))
                    multiples = concat_ops.concat((ones[:-1], (k,), ones[-1:]), 0,
                                                  name="multiples")
                    labels_per_k = pad_ops.tile(labels_per_k, multiples, name=tile_scope)
        with ops.name_scope(None, "relevant_per_k", (predictions_idx_per_k, labels_per_k)):
            relevant_per_k = cast_ops.cast(set_ops.set_size(set_ops.set_intersection(
                predictions_idx_per_k, cast_ops.cast(labels_per_k, dtypes.int64))),
                dtypes.float64)
        tp_per_k = reduction_ops.cumsum(relevant_per_k, axis=-1, name="tp_per_k")
        retrieved_per_k = reduction_ops.cumsum(fill_ops.ones_like(relevant_per_k), axis=-1,
                                               name="retrieved_per_k")
        precision_per_k = math_ops.div(cast_ops.cast(tp_per_k, dtypes.float64),
                                       cast_ops.cast(retrieved_per_k, dtypes.float64),
                                       name="precision_per_k")
        relevant_precision_per_k = math_ops.multiply(
            precision_per_k, cast_ops.cast(relevant_per_k, dtypes.float64),
            name="relevant_precision_per_k")
        precision_sum = reduction_ops.reduce_sum(relevant_precision_per_k, axis=(-1,),
                                                 name="precision_sum")
        with ops.name_scope(None, "num_relevant", (labels,)) as relevant_scope:
            if isinstance(labels, SparseTensor):
                num_labels = set_ops.set_size(labels)
            else:
                num_labels = reduction_ops.reduce_sum(
                    gather_ops.where_v2(math_ops.greater_equal(labels, 0),
                                        fill_ops.ones_like(labels), fill_ops.zeros_like(labels)),
                    axis=-1)
            num_relevant = math_ops.minimum(num_labels, k, name=relevant_scope)
        return math_ops.div(precision_sum, cast_ops.cast(num_relevant, dtypes.float64),
                            name=scope)


def _streaming_average_precision(labels, predictions_idx, weights, metrics_collections,
                                 updates_collections, scope):
    """The running mean of the rows' average precisions (variables ``max`` and ``total`` in
    the name scope ``scope``), with TF 1.15's ops."""
    with ops.name_scope(scope):
        average_precision = _average_precision_per_row(labels, predictions_idx)
        if weights is not None:
            weights = weights_broadcast_ops.broadcast_weights(
                cast_ops.cast(weights, dtypes.float64), average_precision)
            average_precision = math_ops.multiply(average_precision, weights)
        with ops.name_scope(None, "max", (average_precision,)) as max_scope:
            max_var = _metric_variable([], dtypes.float64, max_scope)
            if weights is None:
                batch_max = cast_ops.cast(array_ops.size(average_precision, name="batch_max"),
                                          dtypes.float64)
            else:
                batch_max = reduction_ops.reduce_sum(weights, name="batch_max")
            max_update = state_ops.assign_add(max_var, batch_max, name="update")
        with ops.name_scope(None, "total", (average_precision,)) as total_scope:
            total_var = _metric_variable([], dtypes.float64, total_scope)
            batch_total = reduction_ops.reduce_sum(average_precision, name="batch_total")
            total_update = state_ops.assign_add(total_var, batch_total, name="update")
        value = special_math_ops.div_no_nan(total_var, max_var, name="mean")
        update_op = special_math_ops.div_no_nan(total_update, max_update, name=scope)
        _add_collections(value, update_op, metrics_collections, updates_collections)
        return value, update_op


sparse_average_precision_at_k = average_precision_at_k


def _streaming_sparse_average_precision_at_top_k(labels, predictions_idx, weights=None,
                                                 metrics_collections=None,
                                                 updates_collections=None, name=None):
    """``average_precision_at_k`` given the ranked class ids ``predictions_idx``
    ([D1, ... DN, k], k static) instead of scores."""
    with ops.name_scope(name, "average_precision_at_top_k",
                        (predictions_idx, labels, weights)) as scope:
        return _streaming_average_precision(labels, predictions_idx, weights,
                                            metrics_collections, updates_collections, scope)

__all__ += ["average_precision_at_k", "mean_cosine_distance", "mean_per_class_accuracy",
            "mean_relative_error", "percentage_below", "precision_at_top_k", "recall_at_top_k",
            "sensitivity_at_specificity", "sparse_average_precision_at_k",
            "specificity_at_sensitivity"]
