"""``tf.losses``: weighted losses with TF 1.x reduction semantics, and the loss collections.

Every loss computes per-element losses, then ``compute_weighted_loss`` weights, reduces and adds
the result to a collection (``GraphKeys.LOSSES`` by default) that ``get_total_loss`` sums.
"""

from tideflow.framework import dtypes, ops
from tideflow.ops import (
    array_ops,
    cast_ops,
    constant_op,
    fill_ops,
    gather_ops,
    math_ops,
    range_ops,
    reduction_ops,
    special_math_ops,
    weights_broadcast_ops,
)


class Reduction:
    """How ``compute_weighted_loss`` reduces weighted per-element losses.

    - ``NONE``: the weighted losses, unreduced.
    - ``SUM``: their sum.
    - ``MEAN``: their sum divided by the sum of the (broadcast) weights.
    - ``SUM_OVER_BATCH_SIZE``: their sum divided by the number of loss elements.
    - ``SUM_OVER_NONZERO_WEIGHTS`` / ``SUM_BY_NONZERO_WEIGHTS``: their sum divided by the
      number of loss elements with a non-zero weight (the default).
    """

    NONE = "none"
    SUM = "weighted_sum"
    MEAN = "weighted_mean"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE,
                cls.SUM_OVER_NONZERO_WEIGHTS, cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}.")


def _nn():
    # tf.nn is filled by the nn op modules; import late so this module loads without them
    from tideflow import nn

    return nn


# ------------------------------------------------------------------------------------------
# collections
# ------------------------------------------------------------------------------------------


def add_loss(loss, loss_collection=ops.GraphKeys.LOSSES):
    """Adds ``loss`` to ``loss_collection`` (nothing when the collection is None or empty)."""
    if loss_collection:
        ops.add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=ops.GraphKeys.LOSSES):
    """The losses in ``loss_collection`` whose names match ``scope``."""
    return ops.get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    """The tensors in ``GraphKeys.REGULARIZATION_LOSSES`` whose names match ``scope``."""
    return ops.get_collection(ops.GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The sum of the regularization losses, or a constant 0.0 when there are none."""
    losses = get_regularization_losses(scope)
    if losses:
        return math_ops.add_n(losses, name=name)
    return constant_op.constant(0.0)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """The sum of ``get_losses()`` and, by default, ``get_regularization_losses()``.

    Raises ValueError when there is no loss at all, as TF does (add_n's of an empty list).
    """
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope=scope)
    return math_ops.add_n(losses, name=name)


# ------------------------------------------------------------------------------------------
# weighting and reduction
# ------------------------------------------------------------------------------------------


def _safe_mean(losses, num_present):
    """The sum of ``losses`` over ``num_present``, 0 where that count is 0 (TF's ops: a Sum and
    a DivNoNan named ``value``)."""
    return special_math_ops.div_no_nan(reduction_ops.reduce_sum(losses), num_present,
                                       name="value")


def _num_elements(losses):
    with ops.name_scope(None, "num_elements", [losses]) as ns:
        return cast_ops.cast(array_ops.size(losses, name=ns), losses.dtype)


def _num_present(losses, weights, per_batch=False):
    """The number of elements of ``losses`` whose broadcast weight is non-zero (per example,
    kept as ``[batch, 1, ...]``, when ``per_batch``)."""
    if isinstance(weights, float) and weights != 0.0:
        return _num_elements(losses)
    with ops.name_scope(None, "num_present", [losses, weights]) as ns:
        weights = cast_ops.cast(weights, dtypes.float32)
        present = gather_ops.where(math_ops.equal(weights, 0.0),
                                   fill_ops.zeros_like(weights), fill_ops.ones_like(weights))
        present = weights_broadcast_ops.broadcast_weights(present, losses)
        if per_batch:
            axes = range_ops.range(1, array_ops.rank(present))
            return reduction_ops.reduce_sum(present, axis=axes, keepdims=True, name=ns)
        return reduction_ops.reduce_sum(present, name=ns)


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weights ``losses`` (``weights`` scalar, or of the same rank with each dim 1 or equal to
    the loss dim), reduces them by ``reduction`` and adds the result to ``loss_collection``.

    The result has the dtype of ``losses``; it is scalar unless ``reduction`` is ``NONE``.
    The ops are TF 1.15's, in its order (the broadcast check first, its shape and rank ops
    included), so that later random ops get TF's seeds.
    """
    Reduction.validate(reduction)
    with ops.name_scope(scope, "weighted_loss", [losses, weights]):
        check = weights_broadcast_ops.assert_broadcastable(weights, losses)
        with ops.control_dependencies([check]):
            losses = ops.convert_to_tensor(losses)
            input_dtype = losses.dtype
            losses = cast_ops.cast(losses, dtypes.float32)
            weights = cast_ops.cast(weights, dtypes.float32)
            weighted = math_ops.multiply(losses, weights)
            if reduction == Reduction.NONE:
                loss = weighted
            else:
                loss = reduction_ops.reduce_sum(weighted)
                if reduction == Reduction.MEAN:
                    loss = _safe_mean(loss, reduction_ops.reduce_sum(
                        fill_ops.ones_like(losses) * weights))
                elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                    loss = _safe_mean(loss, _num_present(losses, weights))
                elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                    loss = _safe_mean(loss, _num_elements(losses))
            loss = cast_ops.cast(loss, input_dtype)
            add_loss(loss, loss_collection)
            return loss


# ------------------------------------------------------------------------------------------
# losses
# ------------------------------------------------------------------------------------------


def _check_pair(a, a_name, b, b_name):
    if a is None:
        raise ValueError(f"{a_name} must not be None.")
    if b is None:
        raise ValueError(f"{b_name} must not be None.")


def _float_pair(labels, predictions):
    predictions = cast_ops.cast(predictions, dtypes.float32)
    labels = cast_ops.cast(labels, dtypes.float32)
    predictions.get_shape().assert_is_compatible_with(labels.get_shape())
    return labels, predictions


def absolute_difference(labels, predictions, weights=1.0, scope=None,
                        loss_collection=ops.GraphKeys.LOSSES,
                        reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted ``|predictions - labels|``."""
    _check_pair(labels, "labels", predictions, "predictions")
    with ops.name_scope(scope, "absolute_difference", [predictions, labels, weights]) as ns:
        labels, predictions = _float_pair(labels, predictions)
        losses = math_ops.abs(math_ops.subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, ns, loss_collection, reduction=reduction)


def mean_squared_error(labels, predictions, weights=1.0, scope=None,
                       loss_collection=ops.GraphKeys.LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted ``(predictions - labels)**2``."""
    _check_pair(labels, "labels", predictions, "predictions")
    with ops.name_scope(scope, "mean_squared_error", [predictions, labels, weights]) as ns:
        labels, predictions = _float_pair(labels, predictions)
        losses = math_ops.squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, ns, loss_collection, reduction=reduction)


def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None,
               loss_collection=ops.GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted Huber loss: ``0.5 x**2`` for ``|x| <= delta``, else
    ``0.5 delta**2 + delta (|x| - delta)``, with ``x = predictions - labels``."""
    _check_pair(labels, "labels", predictions, "predictions")
    with ops.name_scope(scope, "huber_loss", [predictions, labels, weights]) as ns:
        labels, predictions = _float_pair(labels, predictions)
        abs_error = math_ops.abs(math_ops.subtract(predictions, labels))
        quadratic = math_ops.minimum(abs_error, delta)
        # |x| - min(|x|, delta) rather than max(|x| - delta, 0): its gradient at |x| == delta
        # is 0, so the quadratic part alone carries the gradient there
        linear = math_ops.subtract(abs_error, quadratic)
        losses = math_ops.add(
            math_ops.multiply(ops.convert_to_tensor(0.5, dtype=quadratic.dtype),
                              math_ops.multiply(quadratic, quadratic)),
            math_ops.multiply(delta, linear))
        return compute_weighted_loss(losses, weights, ns, loss_collection, reduction=reduction)


def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None,
             loss_collection=ops.GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted binary log loss of probabilities ``predictions`` (``epsilon`` guards log 0)."""
    _check_pair(labels, "labels", predictions, "predictions")
    with ops.name_scope(scope, "log_loss", [predictions, labels, weights]) as ns:
        labels, predictions = _float_pair(labels, predictions)
        losses = (
            -math_ops.multiply(labels, math_ops.log(predictions + epsilon))
            - math_ops.multiply(1 - labels, math_ops.log(1 - predictions + epsilon))
        )
        return compute_weighted_loss(losses, weights, ns, loss_collection, reduction=reduction)


def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted ``max(0, 1 - y * logits)`` with labels 0/1 mapped to ``y`` = -1/1."""
    _check_pair(labels, "labels", logits, "logits")
    with ops.name_scope(scope, "hinge_loss", [logits, labels, weights]) as ns:
        labels, logits = _float_pair(labels, logits)
        all_ones = fill_ops.ones_like(labels)
        labels = math_ops.subtract(2 * labels, all_ones)
        losses = _nn().relu(math_ops.subtract(all_ones, math_ops.multiply(labels, logits)))
        return compute_weighted_loss(losses, weights, ns, loss_collection, reduction=reduction)


def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None,
                    loss_collection=ops.GraphKeys.LOSSES,
                    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS, dim=None):
    """Weighted ``1 - sum(labels * predictions, axis)`` of unit-normalized inputs (the reduced
    axis is kept with size 1). ``dim`` is the deprecated name of ``axis``."""
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'dim' and 'axis'")
        axis = dim
    if axis is None:
        raise ValueError("You must specify 'axis'.")
    _check_pair(labels, "labels", predictions, "predictions")
    with ops.name_scope(scope, "cosine_distance_loss", [predictions, labels, weights]) as ns:
        labels, predictions = _float_pair(labels, predictions)
        radial = math_ops.multiply(predictions, labels)
        losses = 1 - reduction_ops.reduce_sum(radial, axis=(axis,), keepdims=True)
        return compute_weighted_loss(losses, weights, ns, loss_collection, reduction=reduction)


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=ops.GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted ``tf.nn.sigmoid_cross_entropy_with_logits``; ``label_smoothing`` moves the labels
    towards 1/2: ``labels * (1 - s) + 0.5 * s``."""
    _check_pair(multi_class_labels, "multi_class_labels", logits, "logits")
    with ops.name_scope(scope, "sigmoid_cross_entropy_loss",
                        [logits, multi_class_labels, weights]) as ns:
        logits = ops.convert_to_tensor(logits)
        labels = cast_ops.cast(multi_class_labels, logits.dtype)
        logits.get_shape().assert_is_compatible_with(labels.get_shape())
        if label_smoothing > 0:
            labels = labels * (1 - label_smoothing) + 0.5 * label_smoothing
        losses = _nn().sigmoid_cross_entropy_with_logits(labels=labels, logits=logits,
                                                         name="xentropy")
        return compute_weighted_loss(losses, weights, ns, loss_collection, reduction=reduction)


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=ops.GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted softmax cross-entropy of ``[batch, classes]`` logits; ``label_smoothing`` moves
    the labels towards uniform: ``labels * (1 - s) + s / num_classes``. ``weights`` is scalar or
    of shape ``[batch]`` (the losses' shape)."""
    _check_pair(onehot_labels, "onehot_labels", logits, "logits")
    with ops.name_scope(scope, "softmax_cross_entropy_loss",
                        [logits, onehot_labels, weights]) as ns:
        logits = ops.convert_to_tensor(logits)
        labels = cast_ops.cast(onehot_labels, logits.dtype)
        logits.get_shape().assert_is_compatible_with(labels.get_shape())
        if label_smoothing > 0:
            num_classes = cast_ops.cast(array_ops.shape(labels)[-1], logits.dtype)
            smooth_negatives = label_smoothing / num_classes
            labels = labels * (1.0 - label_smoothing) + smooth_negatives
        labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
        losses = _nn().softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits,
                                                            name="xentropy")
        return compute_weighted_loss(losses, weights, ns, loss_collection, reduction=reduction)


def _squeeze_last(t):
    return array_ops.squeeze(t, [-1])


def _remove_squeezable_dimensions(labels, predictions, weights, expected_rank_diff):
    """Squeezes a trailing size-1 dim of labels or predictions when their rank difference is one
    off ``expected_rank_diff``, then of weights when it is one rank above the labels. Static
    ranks only (TF adds a tf.cond for unknown ranks)."""
    # under TF 1.15's confusion_matrix.remove_squeezable_dimensions scope (its Squeeze's name)
    with ops.name_scope(None, "remove_squeezable_dimensions", [labels, predictions]):
        predictions = ops.convert_to_tensor(predictions)
        labels = ops.convert_to_tensor(labels)
        l_shape, p_shape = labels.get_shape(), predictions.get_shape()
        if l_shape.ndims is not None and p_shape.ndims is not None:
            diff = p_shape.ndims - l_shape.ndims
            # (TF 1.15 squeezes whatever the size, so a size > 1 fails here)
            if diff == expected_rank_diff + 1:
                predictions = _squeeze_last(predictions)
            elif diff == expected_rank_diff - 1:
                labels = _squeeze_last(labels)
    if weights is not None:
        weights = ops.convert_to_tensor(weights)
        l_rank, w_rank = labels.get_shape().ndims, weights.get_shape().ndims
        if l_rank is not None and w_rank is not None:
            if w_rank - l_rank == 1:
                weights = _squeeze_last(weights)
        elif w_rank != 0:
            weights = _match_weights_rank(weights, labels)
    return labels, predictions, weights


def _match_weights_rank(weights, labels):
    """TF's run-time path when a rank is unknown: weights one rank above the labels lose their
    last dimension, one rank below gain one, scalars stay."""
    from tideflow.ops.cond import cond

    w_rank = array_ops.rank(weights)
    diff = w_rank - array_ops.rank(labels)
    last = weights.get_shape().dims[-1] if weights.get_shape().ndims else None

    def squeeze():
        if last is not None and not last.is_compatible_with(1):
            return weights  # a last dimension that is not 1 cannot go
        return array_ops.squeeze(weights, [-1])

    def expand():
        return cond(math_ops.equal(diff, -1), lambda: array_ops.expand_dims(weights, -1),
                    lambda: weights)

    def adjust():
        return cond(math_ops.equal(diff, 1), squeeze, expand)

    return cond(math_ops.equal(w_rank, 0), lambda: weights, adjust)


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None,
                                 loss_collection=ops.GraphKeys.LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted ``tf.nn.sparse_softmax_cross_entropy_with_logits`` of integer class ids."""
    _check_pair(labels, "labels", logits, "logits")
    with ops.name_scope(scope, "sparse_softmax_cross_entropy_loss",
                        [logits, labels, weights]) as ns:
        labels, logits, weights = _remove_squeezable_dimensions(labels, logits, weights, 1)
        losses = _nn().sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                                name="xentropy")
        return compute_weighted_loss(losses, weights, ns, loss_collection, reduction=reduction)


def mean_pairwise_squared_error(labels, predictions, weights=1.0, scope=None,
                                loss_collection=ops.GraphKeys.LOSSES):
    """Per example, the mean over pairs of elements ``(i, j)`` of
    ``((p_i - p_j) - (l_i - l_j))**2``, weighted and summed over the batch."""
    _check_pair(labels, "labels", predictions, "predictions")
    with ops.name_scope(scope, "mean_pairwise_squared_error",
                        [predictions, labels, weights]):
        weights = cast_ops.cast(weights, dtypes.float32)
        labels = cast_ops.cast(labels, dtypes.float32)
        check = weights_broadcast_ops.assert_broadcastable(weights, labels)
        with ops.control_dependencies([check]):
            predictions = cast_ops.cast(predictions, dtypes.float32)
            predictions.get_shape().assert_is_compatible_with(labels.get_shape())
            diffs = math_ops.subtract(predictions, labels)
            # every dimension after the batch one
            axes = range_ops.range(1, array_ops.rank(diffs))
            sum_sq = reduction_ops.reduce_sum(math_ops.square(diffs), axis=axes, keepdims=True)
            n = _num_present(diffs, weights, per_batch=True)
            term1 = 2.0 * special_math_ops.div_no_nan(sum_sq, math_ops.maximum(n - 1, 0),
                                                      name="value")
            sum_diff = reduction_ops.reduce_sum(diffs, axis=axes, keepdims=True)
            term2 = 2.0 * special_math_ops.div_no_nan(
                math_ops.square(sum_diff), math_ops.maximum(math_ops.multiply(n, n - 1), 0),
                name="value")
            weighted = math_ops.multiply(term1 - term2, weights)
            loss = reduction_ops.reduce_sum(weighted)
            mean_loss = gather_ops.where(reduction_ops.reduce_sum(n) > 0, loss,
                                         fill_ops.zeros_like(loss), name="value")
            add_loss(mean_loss, loss_collection)
            return mean_loss
