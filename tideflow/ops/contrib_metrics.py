"""``tf.contrib.metrics`` (also ``slim.metrics``): the ``streaming_*`` metrics, which take
``(predictions, labels)`` where ``tf.metrics`` takes ``(labels, predictions)``, and the
``aggregate_metrics``/``aggregate_metric_map`` helpers. Each returns ``(value, update_op)``
over the same local variables as its ``tf.metrics`` counterpart."""

import inspect

import numpy as np


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


def _at_k_name(name, k=None, class_id=None):
    name = f"{name}_at_{k}" if k is not None else f"{name}_at_k"
    return name if class_id is None else f"{name}_class{class_id}"


def streaming_recall_at_k(predictions, labels, k, weights=None, metrics_collections=None,
                          updates_collections=None, name=None):
    """The fraction of examples whose label is among the top ``k`` predictions: a
    ``streaming_mean`` of ``in_top_k`` named ``recall_at_<k>`` (variables
    ``recall_at_<k>/total`` and ``recall_at_<k>/count``), as TF 1.x's."""
    from tideflow import nn
    from tideflow.ops import cast_ops

    hits = cast_ops.cast(nn.in_top_k(predictions, labels, k), "float32")
    return _metrics().mean(hits, weights, metrics_collections, updates_collections,
                           name or _at_k_name("recall", k))


def _swap_extra(metric_name, extra, doc, with_num_thresholds=False):
    """A ``streaming_*`` metric over ``tf.metrics.<metric_name>`` taking TF 1.x contrib's
    positional order ``(predictions, labels, <extra>, weights[, num_thresholds],
    metrics_collections, updates_collections, name)``."""
    order = ["weights", *(["num_thresholds"] if with_num_thresholds else []),
             "metrics_collections", "updates_collections", "name"]

    def streaming(predictions, labels, *args, **kwargs):
        if args:
            kwargs[extra] = args[0]
        if len(args) > 1 + len(order):
            raise TypeError(f"streaming_{metric_name} takes at most {3 + len(order)} "
                            f"positional arguments ({2 + len(args)} given)")
        for key, value in zip(order, args[1:], strict=False):
            if key in kwargs:
                raise TypeError(f"streaming_{metric_name} got multiple values for argument "
                                f"'{key}'")
            kwargs[key] = value
        if extra not in kwargs:
            raise TypeError(f"streaming_{metric_name}() missing 1 required positional "
                            f"argument: '{extra}'")
        return getattr(_metrics(), metric_name)(labels, predictions, kwargs.pop(extra),
                                                **kwargs)

    streaming.__name__ = "streaming_" + metric_name
    streaming.__doc__ = doc
    # what inspect shows (TF 1.15 spells these parameters out)
    pos = inspect.Parameter.POSITIONAL_OR_KEYWORD
    streaming.__signature__ = inspect.Signature(
        [inspect.Parameter(n, pos) for n in ("predictions", "labels", extra)]
        + [inspect.Parameter(n, pos, default=200 if n == "num_thresholds" else None)
           for n in order])
    return streaming


streaming_precision_at_thresholds = _swap_extra(
    "precision_at_thresholds", "thresholds", "Precision at each of ``thresholds``.")
streaming_recall_at_thresholds = _swap_extra(
    "recall_at_thresholds", "thresholds", "Recall at each of ``thresholds``.")
streaming_sensitivity_at_specificity = _swap_extra(
    "sensitivity_at_specificity", "specificity", "Sensitivity where specificity is reached.",
    with_num_thresholds=True)
streaming_specificity_at_sensitivity = _swap_extra(
    "specificity_at_sensitivity", "sensitivity", "Specificity where sensitivity is reached.",
    with_num_thresholds=True)
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
    """The unbiased (frequency-weighted) covariance of ``predictions`` and ``labels`` over
    every batch seen, kept as TF 1.x keeps it: local variables ``count``,
    ``mean_prediction``, ``mean_label`` and ``comoment`` under ``covariance/``, merged batch
    by batch (Chan et al.'s pairwise update), the value ``comoment / (count - 1)`` and NaN
    while ``count <= 1``."""
    from tideflow.framework import ops
    from tideflow.ops import array_ops, state_ops
    from tideflow.ops import variable_scope as vs

    m = _metrics()
    with vs.variable_scope(name, "covariance", (predictions, labels, weights)):
        predictions = m._to_float(predictions)
        labels = m._to_float(labels)
        predictions, labels, weights = m._remove_squeezable_dimensions(
            predictions, labels, weights)
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
        count = m._metric_variable([], "float32", "count")
        mean_prediction = m._metric_variable([], "float32", "mean_prediction")
        mean_label = m._metric_variable([], "float32", "mean_label")
        comoment = m._metric_variable([], "float32", "comoment")
        if weights is None:
            batch_count = m._to_float(array_ops.size(labels))
            weighted_predictions, weighted_labels = predictions, labels
        else:
            weights = m._broadcast_weights("streaming_covariance", weights, labels)
            batch_count = m.reduction_ops.reduce_sum(weights)
            weighted_predictions = predictions * weights
            weighted_labels = labels * weights
        div = m._div_no_nan
        update_count = state_ops.assign_add(count, batch_count)
        prev_count = update_count - batch_count

        def merge_mean(var, weighted):
            batch_mean = div(m.reduction_ops.reduce_sum(weighted), batch_count)
            delta = div((batch_mean - var) * batch_count, update_count)
            updated = state_ops.assign_add(var, delta)
            return batch_mean, updated - delta

        batch_mean_prediction, prev_mean_prediction = merge_mean(mean_prediction,
                                                                 weighted_predictions)
        batch_mean_label, prev_mean_label = merge_mean(mean_label, weighted_labels)
        coresiduals = (predictions - batch_mean_prediction) * (labels - batch_mean_label)
        if weights is not None:
            coresiduals = coresiduals * weights
        batch_comoment = m.reduction_ops.reduce_sum(coresiduals)
        delta_comoment = batch_comoment + (
            (prev_mean_prediction - batch_mean_prediction)
            * (prev_mean_label - batch_mean_label)
            * div(prev_count * batch_count, update_count))
        update_comoment = state_ops.assign_add(comoment, delta_comoment)

        def covariance(n, c, op_name):
            nan = array_ops.fill(array_ops.shape(c), float("nan"))
            return array_ops.where(m.math_ops.less_equal(n, 1.0), nan,
                                   m.math_ops.truediv(c, n - 1.0), name=op_name)

        value = covariance(count.value(), comoment.value(), "covariance")
        with ops.control_dependencies([update_comoment]):
            update_op = covariance(count.read_value(), comoment.read_value(), "update_op")
        m._add_collections(value, update_op, metrics_collections, updates_collections)
        return value, update_op


def streaming_pearson_correlation(predictions, labels, weights=None, metrics_collections=None,
                                  updates_collections=None, name=None):
    """Pearson's correlation of ``predictions`` and ``labels`` over every batch seen, from
    three ``streaming_covariance``s under ``pearson_r/`` (``covariance``,
    ``variance_predictions``, ``variance_labels``)."""
    from tideflow.ops import math_ops
    from tideflow.ops import variable_scope as vs

    m = _metrics()
    with vs.variable_scope(name, "pearson_r", (predictions, labels, weights)):
        predictions = m._to_float(predictions)
        labels = m._to_float(labels)
        predictions, labels, weights = m._remove_squeezable_dimensions(
            predictions, labels, weights)
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
        if weights is not None:
            weights = m._broadcast_weights("streaming_pearson_correlation", weights, labels)
        cov, up_cov = streaming_covariance(predictions, labels, weights, name="covariance")
        var_x, up_x = streaming_covariance(predictions, predictions, weights,
                                           name="variance_predictions")
        var_y, up_y = streaming_covariance(labels, labels, weights, name="variance_labels")
        value = math_ops.truediv(cov, math_ops.sqrt(var_x) * math_ops.sqrt(var_y),
                                 name="pearson_r")
        update_op = math_ops.truediv(up_cov, math_ops.sqrt(up_x) * math_ops.sqrt(up_y),
                                     name="update_op")
        m._add_collections(value, update_op, metrics_collections, updates_collections)
        return value, update_op


def streaming_concat(values, axis=0, max_size=None, metrics_collections=None,
                     updates_collections=None, name=None):
    """Every batch of ``values`` concatenated along ``axis`` (at most ``max_size`` entries
    kept along it): ``(concatenated, update_op)`` over the local variables
    ``streaming_concat/array`` (batches stacked along a leading axis) and
    ``streaming_concat/size``. ``values`` needs a static rank and static sizes off ``axis``;
    the update op returns the new size."""
    from tideflow.framework import ops
    from tideflow.ops import array_ops, concat_ops, state_ops
    from tideflow.ops import variable_scope as vs

    m = _metrics()
    with vs.variable_scope(name, "streaming_concat", (values,)):
        values = ops.convert_to_tensor(values)
        shape = values.get_shape()
        if shape.ndims is None:
            raise ValueError("`values` must have known statically known rank")
        ndim = shape.ndims
        if axis < 0:
            axis += ndim
        if not 0 <= axis < ndim:
            raise ValueError(f"axis = {axis!r} not in [0, {ndim!r})")
        fixed_shape = [d for n, d in enumerate(shape.as_list()) if n != axis]
        if any(d is None for d in fixed_shape):
            raise ValueError("all dimensions of `values` other than the dimension to "
                             "concatenate along must have statically known size")
        array = _metrics().variables.Variable(
            np.zeros([0, *fixed_shape], values.dtype.as_numpy_dtype), trainable=False,
            validate_shape=False, name="array", dtype=values.dtype,
            collections=[ops.GraphKeys.LOCAL_VARIABLES, ops.GraphKeys.METRIC_VARIABLES])
        size = m._metric_variable([], "int32", "size")
        to_front = [axis] + [n for n in range(ndim) if n != axis]
        from_front = [to_front.index(n) for n in range(ndim)]

        def as_value(arr):
            arr = array_ops.reshape(arr, [-1, *fixed_shape])
            return array_ops.transpose(arr, from_front)

        value = array_ops.identity(as_value(array.value()), name="concat")
        batch = array_ops.transpose(values, to_front)
        grown = concat_ops.concat([array.read_value(), batch], 0)
        if max_size is not None:
            grown = grown[:max_size]
        # the size's assign is the update op, TF 1.15's streaming_concat/Assign
        append = state_ops.assign(array, grown, validate_shape=False, name="append_values")
        with ops.control_dependencies([append]):
            update_op = state_ops.assign(size, array_ops.shape(grown, out_type="int32")[0])
        m._add_collections(value, update_op, metrics_collections, updates_collections)
        return value, update_op


def _dynamic_auc(labels, predictions, weights, curve):
    """The trapezoidal area under the ROC or PR curve with every distinct prediction as a
    threshold (float64); 0 when every label is the same."""
    import tideflow as tf

    f64 = "float64"
    if weights is None:
        weights = tf.ones_like(predictions, dtype=f64)
    positive_w = tf.where(tf.greater(labels, 0), weights, tf.zeros_like(weights))
    total = tf.reduce_sum(weights)
    total_positive = tf.reduce_sum(positive_w)

    def area():
        ordered, order = tf.nn.top_k(predictions, k=tf.size(predictions))
        _, _, counts = tf.unique_with_counts(ordered)
        splits = tf.pad(tf.cumsum(counts), [[1, 0]])

        def cumulative(w):  # weight above each split point
            return tf.gather(tf.pad(tf.cumsum(tf.gather(w, order)), [[1, 0]]), splits)

        tp = cumulative(positive_w)
        if curve == "ROC":
            x = cumulative(weights - positive_w) / (total - total_positive)
            y = tp / total_positive
        else:
            x = tp / total_positive
            called = cumulative(weights)
            y = tf.where(tf.greater(splits, 0), tp / tf.maximum(called, 1e-300),
                         tf.ones_like(tp))
        return tf.reduce_sum((y[1:] + y[:-1]) / 2.0 * tf.abs(x[1:] - x[:-1]))

    degenerate = tf.logical_or(tf.equal(total_positive, 0.0),
                               tf.equal(total_positive, total))
    return tf.cond(degenerate, lambda: tf.constant(0.0, f64), area)


def _binary_label_checks(labels):
    """TF's asserts that every label is 0 or 1 (they guard the updates only)."""
    import tideflow as tf

    return [tf.assert_greater_equal(labels, tf.zeros_like(labels),
                                    message="labels must be 0 or 1, at least one is <0"),
            tf.assert_less_equal(labels, tf.ones_like(labels),
                                 message="labels must be 0 or 1, at least one is >1")]


def streaming_dynamic_auc(labels, predictions, curve="ROC", metrics_collections=(),
                          updates_collections=(), name=None, weights=None):
    """The AUC (ROC or PR) with every prediction seen as a threshold: every batch's labels
    (0 or 1), predictions and weights are kept (``streaming_concat`` under
    ``dynamic_auc/concat_*``) and the trapezoidal area computed over all of them in float64.
    Unlike the other streaming metrics, ``labels`` come first; the update op is a group."""
    import tideflow as tf

    if curve not in ("PR", "ROC"):
        raise ValueError(f"curve must be either ROC or PR, {curve} unknown")
    with tf.variable_scope(name, default_name="dynamic_auc"):
        labels = tf.convert_to_tensor(labels)
        predictions = tf.convert_to_tensor(predictions)
        labels.get_shape().assert_is_compatible_with(predictions.get_shape())
        predictions = tf.reshape(tf.cast(predictions, "float64"), [-1])
        labels = tf.reshape(tf.cast(labels, "int64"), [-1])
        checks = _binary_label_checks(labels)
        with tf.control_dependencies(checks):  # the checks guard the updates only
            predictions = tf.identity(predictions)
            labels = tf.identity(labels)
        preds_all, update_preds = streaming_concat(predictions, name="concat_preds")
        labels_all, update_labels = streaming_concat(labels, name="concat_labels")
        updates = [update_labels, update_preds]
        weights_all = None
        if weights is not None:
            weights = tf.reshape(tf.cast(weights, "float64"), [-1])
            weights_all, update_weights = streaming_concat(weights, name="concat_weights")
            updates.append(update_weights)
        update_op = tf.group(*updates)
        auc = _dynamic_auc(labels_all, preds_all, weights_all, curve)
        _metrics()._add_collections(auc, update_op, metrics_collections, updates_collections)
        return auc, update_op


def _placement_auc(labels, predictions, weights, alpha, logit_transformation, is_valid):
    """ROC AUC from placement values (each positive's weighted share of negatives scored
    below it, ties counting half, and the reverse for negatives) with its asymptotic normal
    confidence interval: ``AucData(auc, lower, upper)``."""
    import collections
    import statistics

    import tideflow as tf

    eps = 1e-7
    data = collections.namedtuple("AucData", ["auc", "lower", "upper"])
    dtype = weights.dtype
    positive = tf.cast(labels, dtype)
    negative = 1.0 - positive
    total_0 = tf.reduce_sum(negative * weights)
    total_1 = tf.reduce_sum(positive * weights)
    ascending, order = tf.nn.top_k(-predictions, k=tf.size(predictions))
    _, segment = tf.unique(-ascending)
    pos_w = tf.gather(positive * weights, order)
    neg_w = tf.gather(negative * weights, order)
    pos_sorted = tf.gather(positive, order)
    neg_sorted = 1.0 - pos_sorted
    w_sorted = tf.gather(weights, order)
    # per distinct score: the weight of the opposite class there and strictly below it
    neg_at = tf.segment_sum(neg_w, segment)
    pos_at = tf.segment_sum(pos_w, segment)
    place_pos = tf.gather((tf.cumsum(neg_at, exclusive=True) + neg_at / 2.0)
                          / (tf.reduce_sum(neg_at) + eps), segment)
    place_neg = tf.gather((tf.cumsum(pos_at, exclusive=True) + pos_at / 2.0)
                          / (tf.reduce_sum(pos_at) + eps), segment)
    w0 = w_sorted * neg_sorted
    w1 = w_sorted * pos_sorted
    auc_0 = tf.reduce_sum(w0 * (1.0 - place_neg * neg_sorted)) / (total_0 + eps)
    auc_1 = tf.reduce_sum(w1 * place_pos * pos_sorted) / (total_1 + eps)
    auc = tf.where(tf.less(total_0, total_1), auc_1, auc_0)
    var_0 = tf.reduce_sum(w0 * tf.square(1.0 - place_neg * neg_sorted - auc_0)) / (
        total_0 - 1.0 + eps)
    var_1 = tf.reduce_sum(w1 * tf.square(place_pos * pos_sorted - auc_1)) / (
        total_1 - 1.0 + eps)
    std_err = tf.sqrt(var_0 / (total_0 + eps) + var_1 / (total_1 + eps))
    z = statistics.NormalDist().inv_cdf((1.0 - alpha) / 2.0)  # negative
    if logit_transformation:
        estimate = tf.log(auc / (1.0 - auc + eps))
        logit_err = std_err / (auc * (1.0 - auc + eps))

        def inverse(x):
            return 1.0 / (1.0 + tf.exp(-x) + eps)

        lower, upper = inverse(estimate + z * logit_err), inverse(estimate - z * logit_err)
    else:
        lower, upper = auc + z * std_err, auc - z * std_err
    certain = tf.logical_or(tf.equal(auc, 1.0), tf.equal(auc, 0.0))
    lower = tf.where(certain, auc, lower)
    upper = tf.where(certain, auc, upper)
    zero = tf.constant(0.0, dtype)
    return data(*tf.cond(is_valid, lambda: [auc, lower, upper], lambda: [zero] * 3))


def auc_with_confidence_intervals(labels, predictions, weights=None, alpha=0.95,
                                  logit_transformation=True, metrics_collections=(),
                                  updates_collections=(), name=None):
    """The ROC AUC of every labels/predictions/weights batch seen (kept with
    ``streaming_concat``) and its ``alpha`` asymptotic normal confidence interval from
    placement values (logit-transformed by default, keeping it inside [0, 1]):
    ``(AucData(auc, lower, upper), update_op)``. A batch whose weights sum below 1 is not
    added; the value is 0s unless the batch fed holds both labels 0 and 1."""
    import tideflow as tf

    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1; currently {alpha:.02f}")
    predictions = tf.convert_to_tensor(predictions)
    if weights is None:
        weights = tf.ones_like(predictions)
    with tf.variable_scope(name, default_name="auc_with_confidence_intervals",
                           values=[labels, predictions, weights]):
        predictions, labels, weights = _metrics()._remove_squeezable_dimensions(
            predictions, tf.convert_to_tensor(labels), tf.convert_to_tensor(weights))
        total_weight = tf.reduce_sum(weights)
        weights = tf.reshape(weights, [-1])
        predictions = tf.reshape(tf.cast(predictions, "float64"), [-1])
        labels = tf.reshape(tf.cast(labels, "int64"), [-1])
        checks = _binary_label_checks(labels)
        with tf.control_dependencies(checks):  # the checks guard the updates only
            labels_checked = tf.identity(labels)
        preds_all, update_preds = streaming_concat(predictions, name="concat_preds")
        labels_all, update_labels = streaming_concat(labels_checked, name="concat_labels")
        weights_all, update_weights = streaming_concat(weights, name="concat_weights")
        enough_weight = tf.greater_equal(total_weight, 1.0)
        update_op = tf.cond(enough_weight,
                            lambda: tf.group(update_labels, update_preds, update_weights),
                            tf.no_op)
        both_labels = tf.logical_and(tf.equal(tf.reduce_min(labels), 0),
                                     tf.equal(tf.reduce_max(labels), 1))
        auc = _placement_auc(labels_all, preds_all, weights_all, alpha, logit_transformation,
                             tf.logical_and(both_labels, enough_weight))
        _metrics()._add_collections(auc, update_op, metrics_collections, updates_collections)
        return auc, update_op


def count(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The number of ``values`` seen, or the sum of their broadcast ``weights``: a float32
    local variable ``count/count``; ``(count, update_op)``."""
    from tideflow.framework import ops
    from tideflow.ops import array_ops, state_ops
    from tideflow.ops import variable_scope as vs

    m = _metrics()
    with vs.variable_scope(name, "count", (values, weights)):
        values = ops.convert_to_tensor(values)
        total = m._metric_variable([], "float32", "count")
        if weights is None:
            num_values = m._to_float(array_ops.size(values))
        else:
            values = m._to_float(values)
            values, _, weights = m._remove_squeezable_dimensions(values, None, weights)
            weights = m._broadcast_weights("count", weights, values)
            num_values = m.reduction_ops.reduce_sum(weights)
        with ops.control_dependencies([values]):
            update_op = state_ops.assign_add(total, num_values)
        value = array_ops.identity(total)  # TF 1.15's count/Identity (a replica-context read)
        m._add_collections(value, update_op, metrics_collections, updates_collections)
        return value, update_op


def streaming_sparse_average_precision_at_k(predictions, labels, k, weights=None,
                                            metrics_collections=None,
                                            updates_collections=None, name=None):
    """Average precision@k of ``predictions`` (logits) against sparse ``labels``."""
    return _metrics().average_precision_at_k(
        labels, predictions, k, weights=weights, metrics_collections=metrics_collections,
        updates_collections=updates_collections, name=name)


def streaming_sparse_average_precision_at_top_k(top_k_predictions, labels, weights=None,
                                                metrics_collections=None,
                                                updates_collections=None, name=None):
    """Average precision@k of already-ranked class ids ``top_k_predictions`` ([D1, ... DN,
    k], k static) against ``labels``, in float64."""
    return _metrics()._streaming_sparse_average_precision_at_top_k(
        labels, top_k_predictions, weights=weights, metrics_collections=metrics_collections,
        updates_collections=updates_collections, name=name)


def streaming_sparse_precision_at_top_k(top_k_predictions, labels, class_id=None,
                                        weights=None, metrics_collections=None,
                                        updates_collections=None, name=None):
    """Precision of already-ranked ``top_k_predictions`` (class ids) against ``labels``."""
    return _metrics().precision_at_top_k(
        labels, top_k_predictions, class_id=class_id, weights=weights,
        metrics_collections=metrics_collections, updates_collections=updates_collections,
        name=name)


def sparse_recall_at_top_k(labels, top_k_predictions, class_id=None, weights=None,
                           metrics_collections=None, updates_collections=None, name=None):
    """Recall of already-ranked ``top_k_predictions``; note ``labels`` come first."""
    return _metrics().recall_at_top_k(
        labels, top_k_predictions, class_id=class_id, weights=weights,
        metrics_collections=metrics_collections, updates_collections=updates_collections,
        name=name)


def _confusion_at_thresholds(predictions, labels, thresholds, weights=None,
                             includes=("tp", "fn", "tn", "fp")):
    """contrib's per-threshold counts: local variables ``true_positives`` ...
    ``false_positives`` (shape ``[len(thresholds)]``) in the current variable scope, a
    prediction counting as positive when ``> threshold``; unlike ``tf.metrics`` no [0, 1]
    range check."""
    from tideflow.framework import dtypes

    m = _metrics()
    for key in includes:
        if key not in m._COUNT_NAMES:
            raise ValueError(f"Invalid key: {key}.")
    predictions, labels, weights = m._remove_squeezable_dimensions(predictions, labels, weights)
    predictions.get_shape().assert_is_compatible_with(labels.get_shape())
    if predictions.dtype.base_dtype != dtypes.float32:  # (TF takes float32 ones only)
        predictions = m._to_float(predictions)
    # TF 1.15's ops, as tf.metrics' counts after their range checks
    return m._tiled_threshold_counts(predictions, labels, weights, thresholds, includes)


def _at_thresholds(key, long_name):
    def streaming(predictions, labels, thresholds, weights=None):
        values, updates = _confusion_at_thresholds(predictions, labels, thresholds, weights,
                                                   (key,))
        return values[key], updates[key]

    streaming.__name__ = f"streaming_{long_name}_at_thresholds"
    streaming.__doc__ = (f"Per-threshold {long_name.replace('_', ' ')} (local variable "
                         f"``{long_name}`` in the current scope): ``(variable, update_op)``.")
    return streaming


streaming_true_positives_at_thresholds = _at_thresholds("tp", "true_positives")
streaming_false_positives_at_thresholds = _at_thresholds("fp", "false_positives")
streaming_true_negatives_at_thresholds = _at_thresholds("tn", "true_negatives")
streaming_false_negatives_at_thresholds = _at_thresholds("fn", "false_negatives")


def _error_rate(kind, predictions, labels, weights, metrics_collections, updates_collections,
                name):
    """``errors / (errors + correct)`` (0 when both are 0) for kind ``fpr`` (false positives
    against true negatives) or ``fnr`` (false negatives against true positives), with
    ``predictions`` and ``labels`` cast to bool."""
    from tideflow.ops import array_ops, cast_ops, math_ops
    from tideflow.ops import variable_scope as vs

    m = _metrics()
    scope = "false_positive_rate" if kind == "fpr" else "false_negative_rate"
    with vs.variable_scope(name, scope, (predictions, labels, weights)):
        predictions, labels, weights = m._remove_squeezable_dimensions(
            cast_ops.cast(predictions, "bool"), cast_ops.cast(labels, "bool"), weights)
        if kind == "fpr":
            err, err_up = m.false_positives(labels, predictions, weights)
            ok, ok_up = m.true_negatives(labels, predictions, weights)
        else:
            err, err_up = m.false_negatives(labels, predictions, weights)
            ok, ok_up = m.true_positives(labels, predictions, weights)

        def rate(e, c, op_name):
            total = e + c
            return array_ops.where(math_ops.greater(total, 0.0),
                                   math_ops.truediv(e, math_ops.maximum(total, 1e-30)),
                                   array_ops.zeros_like(total), name=op_name)

        value = rate(err, ok, "value")
        update_op = rate(err_up, ok_up, "update_op")
        m._add_collections(value, update_op, metrics_collections, updates_collections)
        return value, update_op


def streaming_false_positive_rate(predictions, labels, weights=None, metrics_collections=None,
                                  updates_collections=None, name=None):
    """false positives / (false positives + true negatives), 0 before any negative label."""
    return _error_rate("fpr", predictions, labels, weights, metrics_collections,
                       updates_collections, name)


def streaming_false_negative_rate(predictions, labels, weights=None, metrics_collections=None,
                                  updates_collections=None, name=None):
    """false negatives / (false negatives + true positives), 0 before any positive label."""
    return _error_rate("fnr", predictions, labels, weights, metrics_collections,
                       updates_collections, name)


def _error_rate_at_thresholds(kind, predictions, labels, thresholds, weights,
                              metrics_collections, updates_collections, name):
    from tideflow.ops import math_ops
    from tideflow.ops import variable_scope as vs

    m = _metrics()
    err_key, ok_key = ("fp", "tn") if kind == "fpr" else ("fn", "tp")
    scope = ("false_positive_rate_at_thresholds" if kind == "fpr"
             else "false_negative_rate_at_thresholds")
    with vs.variable_scope(name, scope, (predictions, labels, weights)):
        values, updates = _confusion_at_thresholds(predictions, labels, thresholds, weights,
                                                   (err_key, ok_key))

        def rate(c, op_name):
            return math_ops.truediv(c[err_key], m._KEPSILON + c[err_key] + c[ok_key],
                                    name=f"{kind}_{op_name}")

        value = rate({k: v.value() for k, v in values.items()}, "value")
        update_op = rate(updates, "update_op")
        m._add_collections(value, update_op, metrics_collections, updates_collections)
        return value, update_op


def streaming_false_positive_rate_at_thresholds(predictions, labels, thresholds, weights=None,
                                                metrics_collections=None,
                                                updates_collections=None, name=None):
    """Per-threshold false positive rate ``fp / (1e-7 + fp + tn)``."""
    return _error_rate_at_thresholds("fpr", predictions, labels, thresholds, weights,
                                     metrics_collections, updates_collections, name)


def streaming_false_negative_rate_at_thresholds(predictions, labels, thresholds, weights=None,
                                                metrics_collections=None,
                                                updates_collections=None, name=None):
    """Per-threshold false negative rate ``fn / (1e-7 + fn + tp)``."""
    return _error_rate_at_thresholds("fnr", predictions, labels, thresholds, weights,
                                     metrics_collections, updates_collections, name)


def streaming_curve_points(labels=None, predictions=None, weights=None, num_thresholds=200,
                           metrics_collections=None, updates_collections=None, curve="ROC",
                           name=None):
    """``num_thresholds`` points of the ROC (``[fpr, recall]``) or PR (``[recall,
    precision]``) curve over TF's threshold grid: ``(points [num_thresholds, 2],
    update_op)``; recall and precision add 1e-6 to numerator and denominator, the false
    positive rate to its denominator. ``labels`` come first."""
    from tideflow.ops import array_ops, control_flow_ops, math_ops
    from tideflow.ops import variable_scope as vs

    m = _metrics()
    with vs.variable_scope(name, "curve_points", (labels, predictions, weights)):
        if curve not in ("ROC", "PR"):
            raise ValueError(f"curve must be either ROC or PR, {curve} unknown")
        values, updates = _confusion_at_thresholds(
            predictions, labels, m._default_thresholds(num_thresholds), weights)
        eps = 1.0e-6
        tp, fn, tn, fp = (values[k].value() for k in ("tp", "fn", "tn", "fp"))
        recall = math_ops.div(tp + eps, tp + fn + eps)
        if curve == "ROC":
            xs, ys = math_ops.div(fp, fp + tn + eps), recall
        else:
            xs, ys = recall, math_ops.div(tp + eps, tp + fp + eps)
        points = array_ops.stack([xs, ys], axis=1)
        update_op = control_flow_ops.group(*updates.values())
        m._add_collections(points, update_op, metrics_collections, updates_collections)
        return points, update_op


def precision_recall_at_equal_thresholds(labels, predictions, weights=None,
                                         num_thresholds=None, use_locking=None, name=None):
    """Per-threshold tp/fp/tn/fn, precision and recall at ``num_thresholds`` (default 201)
    evenly spaced thresholds in [0, 1] (``prediction >= threshold`` positive), accumulated in
    float64 buckets (``variables/tp_buckets``, ``variables/fp_buckets``): ``(data,
    update_op)`` where ``data`` is a ``PrecisionRecallData(tp, fp, tn, fn, precision, recall,
    thresholds)`` in the predictions' dtype. ``labels`` must be bool, predictions in [0, 1]."""
    import collections

    import tideflow as tf

    m = _metrics()
    data_type = collections.namedtuple(
        "PrecisionRecallData", ["tp", "fp", "tn", "fn", "precision", "recall", "thresholds"])
    num_thresholds = 201 if num_thresholds is None else num_thresholds
    weights = 1.0 if weights is None else weights
    use_locking = True if use_locking is None else use_locking
    labels = tf.convert_to_tensor(labels)
    predictions = tf.convert_to_tensor(predictions)
    if labels.dtype != tf.bool:
        raise TypeError(f"{labels.name} must be of type {tf.bool}; got {labels.dtype}")
    with tf.variable_scope(name, "precision_recall_at_equal_thresholds",
                           (labels, predictions, weights)):
        checks = [tf.assert_greater_equal(predictions, tf.cast(0.0, predictions.dtype),
                                          message="predictions must be in [0, 1]"),
                  tf.assert_less_equal(predictions, tf.cast(1.0, predictions.dtype),
                                       message="predictions must be in [0, 1]")]
        with tf.control_dependencies(checks):
            predictions, labels, weights = m._remove_squeezable_dimensions(
                tf.identity(predictions), labels, weights)
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
        positive = tf.cast(labels, "float64")
        weights = tf.cast(weights, "float64")
        true_w = tf.reshape(positive * weights, [-1])
        false_w = tf.reshape((1.0 - positive) * weights, [-1])
        flat = tf.reshape(predictions, [-1])
        true_w = true_w + tf.zeros_like(flat, "float64")  # scalar weights to full size
        false_w = false_w + tf.zeros_like(flat, "float64")
        bucket = tf.cast(tf.floor(flat * (num_thresholds - 1)), "int32")
        with tf.name_scope("variables"):
            tp_buckets = m._metric_variable([num_thresholds], "float64", "tp_buckets")
            fp_buckets = m._metric_variable([num_thresholds], "float64", "fp_buckets")
        with tf.name_scope("update_op"):
            update_tp = tf.scatter_add(tp_buckets, bucket, true_w, use_locking=use_locking)
            update_fp = tf.scatter_add(fp_buckets, bucket, false_w, use_locking=use_locking)
        tp = tf.cumsum(tp_buckets, reverse=True, name="tp")
        fp = tf.cumsum(fp_buckets, reverse=True, name="fp")
        tn = fp[0] - fp
        fn = tp[0] - tp
        floor = tf.constant(1e-7, "float64")
        precision = tp / tf.maximum(floor, tp + fp)
        recall = tp / tf.maximum(floor, tp + fn)

        def out(t):
            return tf.cast(t, predictions.dtype)

        data = data_type(tp=out(tp), fp=out(fp), tn=out(tn), fn=out(fn),
                         precision=out(precision), recall=out(recall),
                         thresholds=out(tf.lin_space(0.0, 1.0, num_thresholds)))
        return data, tf.group(update_tp, update_fp)


def auc_using_histogram(boolean_labels, scores, score_range, nbins=100, collections=None,
                        check_shape=True, name=None):
    """The ROC AUC from running ``nbins``-bin histograms (over ``score_range``, scores
    outside it clipped) of the scores of ``True`` and ``False`` records, integrated with
    the trapezoidal rule from the highest bin down: ``(auc float32, update_op)``. The
    histograms are int64 variables ``hist_accumulate/hist_true_acc`` and
    ``hist_false_acc`` in ``collections`` (default ``[LOCAL_VARIABLES]``);
    ``boolean_labels`` and ``scores`` are 1-D (checked at run time when
    ``check_shape``)."""
    import tideflow as tf

    if collections is None:
        collections = [tf.GraphKeys.LOCAL_VARIABLES]
    with tf.variable_scope(name, "auc_using_histogram",
                           [boolean_labels, scores, score_range]):
        score_range = tf.convert_to_tensor(score_range, name="score_range")
        boolean_labels = tf.convert_to_tensor(boolean_labels, name="boolean_labels")
        scores = tf.convert_to_tensor(scores, name="scores")
        if boolean_labels.dtype != tf.bool:
            raise ValueError(f"Argument boolean_labels should have dtype bool.  Found: "
                             f"{boolean_labels.dtype}")
        if check_shape:
            checks = [
                tf.Assert(tf.equal(1, tf.rank(boolean_labels)),
                          ["Argument boolean_labels should have rank 1.  Found: ",
                           boolean_labels.name, tf.shape(boolean_labels)]),
                tf.Assert(tf.equal(1, tf.rank(scores)),
                          ["Argument scores should have rank 1.  Found: ", scores.name,
                           tf.shape(scores)])]
            with tf.control_dependencies(checks):
                boolean_labels = tf.identity(boolean_labels)
                scores = tf.identity(scores)
        with tf.variable_scope(None, "make_auc_histograms"):
            hist_true = tf.histogram_fixed_width(
                tf.boolean_mask(scores, boolean_labels), score_range, nbins=nbins,
                dtype=tf.int64, name="hist_true")
            hist_false = tf.histogram_fixed_width(
                tf.boolean_mask(scores, tf.logical_not(boolean_labels)), score_range,
                nbins=nbins, dtype=tf.int64, name="hist_false")
        with tf.variable_scope(None, "hist_accumulate"):
            true_acc = tf.get_variable("hist_true_acc", [nbins], tf.int64,
                                       initializer=tf.zeros_initializer(),
                                       collections=collections, trainable=False)
            false_acc = tf.get_variable("hist_false_acc", [nbins], tf.int64,
                                        initializer=tf.zeros_initializer(),
                                        collections=collections, trainable=False)
            update_op = tf.group(true_acc.assign_add(hist_true),
                                 false_acc.assign_add(hist_false), name="update_op")
        # fractions per bin, highest scores first: the steps in y (true) and x (false)
        dy = tf.cast(tf.reverse(tf.truediv(true_acc, tf.reduce_sum(true_acc)), [0]),
                     tf.float32)
        dx = tf.cast(tf.reverse(tf.truediv(false_acc, tf.reduce_sum(false_acc)), [0]),
                     tf.float32)
        y = tf.cumsum(dy)
        y_before = tf.concat([tf.zeros([1], tf.float32), y[:-1]], 0)
        auc = tf.reduce_sum(dx * (y + y_before) / 2.0, name="auc")
        return auc, update_op


def _at_target(kind, labels, predictions, target, weights, num_thresholds,
               metrics_collections, updates_collections, name, strict_mode=False):
    """Recall at the threshold whose precision is nearest ``target`` (``kind='recall'``), or
    precision at the threshold whose recall is nearest it (``kind='precision'``), over
    contrib's per-threshold counts; the first such threshold on ties."""
    from tideflow.ops import array_ops, gather_ops, math_ops, reduction_ops, unary_ops
    from tideflow.ops import variable_scope as vs

    m = _metrics()
    what = "precision" if kind == "recall" else "recall"
    if not 0 <= target <= 1:
        raise ValueError(f"`{'precision' if kind == 'recall' else 'target_recall'}` must be in "
                         f"the range [0, 1].")
    with vs.variable_scope(name, f"{kind}_at_{what}", (predictions, labels, weights)):
        values, updates = _confusion_at_thresholds(
            predictions, labels, m._default_thresholds(num_thresholds), weights,
            ("tp", "fp", "fn"))
        eps = m._KEPSILON

        def compute(c, op_name):
            tp, fp, fn = c["tp"], c["fp"], c["fn"]
            recall = math_ops.truediv(tp, tp + fn + eps)
            precision = math_ops.truediv(tp, tp + fp + eps)
            searched, result = (precision, recall) if kind == "recall" else (recall, precision)
            if not strict_mode:
                index = reduction_ops.argmin(unary_ops.abs(searched - target), 0,
                                        output_type="int32")
                return gather_ops.gather(result, index, name=op_name)
            # strict: the lowest ``searched`` value still >= target; 0 when none reaches it
            reached = math_ops.greater_equal(searched, target)
            masked = array_ops.where(reached, searched, array_ops.ones_like(searched) * 2.0)
            index = reduction_ops.argmin(masked, 0, output_type="int32")
            found = reduction_ops.reduce_any(reached)
            return array_ops.where(found, gather_ops.gather(result, index), 0.0 * tp[0],
                                   name=op_name)

        value = compute({k: v.value() for k, v in values.items()}, "value")
        update_op = compute(updates, "update_op")
        m._add_collections(value, update_op, metrics_collections, updates_collections)
        return value, update_op


def recall_at_precision(labels, predictions, precision, weights=None, num_thresholds=200,
                        metrics_collections=None, updates_collections=None, name=None,
                        strict_mode=False):
    """The recall at the threshold (of ``num_thresholds``) whose precision is closest to
    ``precision``; with ``strict_mode`` the threshold of lowest precision still >=
    ``precision``, and 0 when no threshold reaches it. ``labels`` come first."""
    return _at_target("recall", labels, predictions, precision, weights, num_thresholds,
                      metrics_collections, updates_collections, name, strict_mode)


def precision_at_recall(labels, predictions, target_recall, weights=None, num_thresholds=200,
                        metrics_collections=None, updates_collections=None, name=None):
    """The precision at the threshold (of ``num_thresholds``) whose recall is closest to
    ``target_recall``. ``labels`` come first."""
    return _at_target("precision", labels, predictions, target_recall, weights,
                      num_thresholds, metrics_collections, updates_collections, name)


def cohen_kappa(labels, predictions_idx, num_classes, weights=None, metrics_collections=None,
                updates_collections=None, name=None):
    """Cohen's kappa ``(p_o - p_e) / (N - p_e)`` of the class ids ``labels`` and
    ``predictions_idx`` (``[N]`` or ``[N, 1]``) over every batch seen, in float64 (0 when
    undefined). Local variables ``po`` (agreements per class), ``pe_row`` (predicted
    counts), ``pe_col`` (label counts), int64 unless float weights are given."""
    from tideflow import diag_part as tf_diag_part
    from tideflow.framework import ops
    from tideflow.ops import array_ops, cast_ops, reduction_ops, state_ops
    from tideflow.ops import variable_scope as vs

    m = _metrics()
    if num_classes < 2:
        raise ValueError(f"`num_classes` must be >= 2.Found: {num_classes}")
    with vs.variable_scope(name, "cohen_kappa", (labels, predictions_idx, weights)):
        labels = ops.convert_to_tensor(labels)
        predictions_idx = ops.convert_to_tensor(predictions_idx)
        labels.get_shape().with_rank_at_most(2)
        if labels.get_shape().ndims == 2:
            labels = array_ops.squeeze(labels, axis=[-1])
        if weights is not None:
            weights = ops.convert_to_tensor(weights)
        predictions_idx, labels, weights = m._remove_squeezable_dimensions(
            predictions_idx, labels, weights)
        predictions_idx.get_shape().assert_is_compatible_with(labels.get_shape())
        stat_dtype = "int64" if weights is None or weights.dtype.is_integer else "float32"
        po = m._metric_variable((num_classes,), stat_dtype, "po")
        pe_row = m._metric_variable((num_classes,), stat_dtype, "pe_row")
        pe_col = m._metric_variable((num_classes,), stat_dtype, "pe_col")
        table = confusion_matrix(labels, predictions_idx, num_classes=num_classes,
                                 weights=weights, dtype=stat_dtype, name="counts_in_table")
        update_po = state_ops.assign_add(po, tf_diag_part(table))
        update_row = state_ops.assign_add(pe_row, reduction_ops.reduce_sum(table, axis=0))
        update_col = state_ops.assign_add(pe_col, reduction_ops.reduce_sum(table, axis=1))

        def kappa(agree, row, col, op_name):
            total = cast_ops.cast(reduction_ops.reduce_sum(row), "float64")
            expected = reduction_ops.reduce_sum(m._div_no_nan(
                cast_ops.cast(row * col, "float64"), total + array_ops.zeros(
                    [num_classes], "float64")))
            observed = cast_ops.cast(reduction_ops.reduce_sum(agree), "float64")
            return m._div_no_nan(observed - expected, total - expected, name=op_name)

        value = kappa(po.value(), pe_row.value(), pe_col.value(), "value")
        update_op = kappa(update_po, update_row, update_col, "update_op")
        m._add_collections(value, update_op, metrics_collections, updates_collections)
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
        return reduction_ops.reduce_max(f1)  # unnamed: TF 1.15's f1/Max and f1/Max_1

    with vs.variable_scope(name, "f1", (labels, predictions, weights)):
        values, updates = m._thresholded_counts(
            "f1_score", labels, predictions, weights, m._default_thresholds(num_thresholds),
            ("tp", "fp", "fn"))
        value = best_f1(values, "value")
        update_op = best_f1(updates, "update")
        m._add_collections(value, update_op, metrics_collections, updates_collections)
        return value, update_op


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
    "auc_using_histogram",
    "auc_with_confidence_intervals",
    "cohen_kappa",
    "confusion_matrix",
    "count",
    "f1_score",
    "precision_at_recall",
    "precision_recall_at_equal_thresholds",
    "recall_at_precision",
    "sparse_recall_at_top_k",
    "streaming_accuracy",
    "streaming_auc",
    "streaming_concat",
    "streaming_covariance",
    "streaming_curve_points",
    "streaming_dynamic_auc",
    "streaming_false_negative_rate",
    "streaming_false_negative_rate_at_thresholds",
    "streaming_false_negatives",
    "streaming_false_negatives_at_thresholds",
    "streaming_false_positive_rate",
    "streaming_false_positive_rate_at_thresholds",
    "streaming_false_positives",
    "streaming_false_positives_at_thresholds",
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
    "streaming_sparse_average_precision_at_k",
    "streaming_sparse_average_precision_at_top_k",
    "streaming_sparse_precision_at_k",
    "streaming_sparse_precision_at_top_k",
    "streaming_sparse_recall_at_k",
    "streaming_specificity_at_sensitivity",
    "streaming_true_negatives",
    "streaming_true_negatives_at_thresholds",
    "streaming_true_positives",
    "streaming_true_positives_at_thresholds",
]
