"""``tf.contrib.losses`` (also ``slim.losses``): the pre-``tf.losses`` loss functions, which
take predictions or logits first (``softmax_cross_entropy(logits, onehot_labels)``).

Their weighting is contrib's own, not ``tf.losses``': ``weights`` is a scalar or a tensor whose
shape is a prefix of the losses' shape (a trailing dimension of 1 is squeezed away), so
``[batch]`` weights scale whole examples; the result is the weighted sum divided by the number
of loss elements under a non-zero weight (0 when there are none), named ``<scope>/value``, and
is added to ``LOSSES`` through ``add_loss`` (which ``arg_scope`` can redirect:
``loss_collection=None`` adds nothing). ``hinge_loss`` returns the unreduced losses."""

from tideflow.framework import dtypes, ops
from tideflow.ops import (
    array_ops,
    cast_ops,
    fill_ops,
    gather_ops,
    math_ops,
    reduction_ops,
    slicing_ops,
)
from tideflow.ops.contrib_layers import add_arg_scope

# the same collections as tf.losses
from tideflow.ops.losses_impl import get_losses, get_regularization_losses


def _nn():
    from tideflow import nn

    return nn


@add_arg_scope
def add_loss(loss, loss_collection=ops.GraphKeys.LOSSES):
    """Adds ``loss`` to ``loss_collection`` (nothing when it is None or empty)."""
    if loss_collection:
        ops.add_to_collection(loss_collection, loss)


def get_total_loss(add_regularization_losses=True, name="total_loss"):
    """The sum of ``get_losses()`` and, by default, ``get_regularization_losses()``."""
    losses = get_losses()
    if add_regularization_losses:
        losses += get_regularization_losses()
    return math_ops.add_n(losses, name=name)


def _float_weights(weights):
    if weights is None:
        raise ValueError("None values not supported.")  # TF 1.15's words (convert_to_tensor)
    return cast_ops.cast(ops.convert_to_tensor(weights), dtypes.float32)


def _scale_losses(losses, weights):
    """``sum(reduce_sum(losses over the dims weights lacks) * weights)``."""
    start = max(0, weights.get_shape().ndims)
    axes = list(range(start, losses.get_shape().ndims))
    reduced = reduction_ops.reduce_sum(losses, axis=axes)  # (TF's op even over no axis)
    return reduction_ops.reduce_sum(math_ops.multiply(reduced, weights))


def _safe_div(numerator, denominator, name="value"):
    """``numerator / denominator``, 0 where ``denominator`` is 0 (TF 1.15's div_no_nan)."""
    from tideflow.ops.special_math_ops import div_no_nan

    return div_no_nan(numerator, denominator, name=name)


def _safe_mean(losses, num_present):
    """The summed ``losses`` over ``num_present``, 0 when none is (TF 1.15's ops: a sum
    again, of the scalar total, then div_no_nan)."""
    return _safe_div(reduction_ops.reduce_sum(losses), num_present)


def _num_present(losses, weights, per_batch=False):
    """The number of loss elements under a non-zero weight (per example if ``per_batch``)."""
    if weights.get_shape().ndims == 0:
        batch = array_ops.reshape(slicing_ops.slice(array_ops.shape(losses), [0], [1]), [])
        per = math_ops.div(cast_ops.cast(array_ops.size(losses), dtypes.float32),
                           cast_ops.cast(batch, dtypes.float32))
        per = gather_ops.where(math_ops.equal(weights, 0), 0.0, per)
        per = math_ops.multiply(fill_ops.ones(array_ops.reshape(batch, [1])), per)
        return per if per_batch else reduction_ops.reduce_sum(per)
    rank = weights.get_shape().ndims
    # (TF 1.15's ops: the sum over no axis too when the weights are a vector)
    nonzero = reduction_ops.reduce_sum(
        cast_ops.cast(math_ops.not_equal(weights, 0), dtypes.float32),
        axis=list(range(1, rank)))
    broadcast = cast_ops.cast(reduction_ops.reduce_prod(
        slicing_ops.slice(array_ops.shape(losses), [rank], [-1])), dtypes.float32)
    per = math_ops.multiply(nonzero, broadcast)
    return per if per_batch else reduction_ops.reduce_sum(per)


def compute_weighted_loss(losses, weights=1.0, scope=None):
    """The weighted sum of ``losses`` over the number of elements under a non-zero weight (0
    when none), added to ``LOSSES``."""
    with ops.name_scope(scope, "weighted_loss", [losses, weights]):
        losses = ops.convert_to_tensor(losses)
        input_dtype = losses.dtype
        losses = cast_ops.cast(losses, dtypes.float32)
        weights = _float_weights(weights)
        if losses.get_shape().ndims is None:
            raise ValueError("losses.get_shape().ndims cannot be None")
        weights_shape = weights.get_shape()
        if weights_shape.ndims is None:
            raise ValueError("weights.get_shape().ndims cannot be None")
        if weights_shape.ndims > 1 and weights_shape.dims[-1].is_compatible_with(1):
            weights = array_ops.squeeze(weights, [-1])
        total_loss = _scale_losses(losses, weights)
        mean_loss = _safe_mean(total_loss, _num_present(losses, weights))
        if input_dtype != dtypes.float32:
            mean_loss = cast_ops.cast(mean_loss, input_dtype)
        add_loss(mean_loss)
        return mean_loss


def _pair(predictions, labels):
    predictions = ops.convert_to_tensor(predictions)
    labels = ops.convert_to_tensor(labels)
    predictions.get_shape().assert_is_compatible_with(labels.get_shape())
    return cast_ops.cast(predictions, dtypes.float32), cast_ops.cast(labels, dtypes.float32)


def absolute_difference(predictions, labels=None, weights=1.0, scope=None):
    """Weighted mean of ``|predictions - labels|``."""
    with ops.name_scope(scope, "absolute_difference", [predictions, labels, weights]) as name_scope:
        predictions, labels = _pair(predictions, labels)
        losses = math_ops.abs(math_ops.subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, scope=name_scope)


def mean_squared_error(predictions, labels=None, weights=1.0, scope=None):
    """Weighted mean of ``(predictions - labels)^2``."""
    with ops.name_scope(scope, "mean_squared_error", [predictions, labels, weights]) as name_scope:
        predictions, labels = _pair(predictions, labels)
        losses = math_ops.squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, scope=name_scope)


def log_loss(predictions, labels=None, weights=1.0, epsilon=1e-7, scope=None):
    """Weighted mean of the negative log-likelihood of binary ``labels``."""
    with ops.name_scope(scope, "log_loss", [predictions, labels, weights]) as name_scope:
        predictions, labels = _pair(predictions, labels)
        losses = (-math_ops.multiply(labels, math_ops.log(predictions + epsilon))
                  - math_ops.multiply(1 - labels, math_ops.log(1 - predictions + epsilon)))
        return compute_weighted_loss(losses, weights, scope=name_scope)


def hinge_loss(logits, labels=None, scope=None):
    """The element-wise (unreduced, not collected) ``max(0, 1 - (2 * labels - 1) * logits)``."""
    with ops.name_scope(scope, "hinge_loss", [logits, labels]):
        logits = ops.convert_to_tensor(logits)
        labels = ops.convert_to_tensor(labels)
        logits.get_shape().assert_is_compatible_with(labels.get_shape())
        labels = cast_ops.cast(labels, dtypes.float32)
        ones = fill_ops.ones_like(labels)
        signs = math_ops.subtract(2 * labels, ones)
        return _nn().relu(math_ops.subtract(ones, math_ops.multiply(signs, logits)))


def mean_pairwise_squared_error(predictions, labels=None, weights=1.0, scope=None):
    """Weighted mean, per example, of the squared differences between every pair of
    ``predictions - labels`` elements (contrib's normalisation: by n and n^2)."""
    with ops.name_scope(scope, "mean_pairwise_squared_error",
                        [predictions, labels, weights]):
        predictions, labels = _pair(predictions, labels)
        weights = _float_weights(weights)
        diffs = math_ops.subtract(predictions, labels)
        if diffs.get_shape().ndims is None:
            raise ValueError("diffs.get_shape().ndims cannot be None")
        if weights.get_shape().ndims is None:
            raise ValueError("weights.get_shape().ndims cannot be None")
        axes = list(range(1, diffs.get_shape().ndims))
        sum_squares = reduction_ops.reduce_sum(math_ops.square(diffs), axis=axes)
        num_present = _num_present(diffs, weights, per_batch=True)
        term1 = 2.0 * _safe_div(sum_squares, num_present)
        term2 = 2.0 * _safe_div(math_ops.square(reduction_ops.reduce_sum(diffs, axis=axes)),
                                math_ops.square(num_present))
        loss = _scale_losses(term1 - term2, weights)
        mean_loss = gather_ops.where(reduction_ops.reduce_sum(num_present) > 0, loss,
                                     fill_ops.zeros_like(loss), name="value")
        add_loss(mean_loss)
        return mean_loss


def cosine_distance(predictions, labels=None, axis=None, weights=1.0, scope=None, dim=None):
    """Weighted mean of ``1 - sum(predictions * labels, axis)`` (unit-norm inputs)."""
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'dim' and 'axis'")
        axis = dim
    if axis is None:
        raise ValueError("You must specify 'axis'.")
    with ops.name_scope(scope, "cosine_distance_loss",
                        [predictions, labels, weights]) as name_scope:
        predictions, labels = _pair(predictions, labels)
        losses = 1 - reduction_ops.reduce_sum(math_ops.multiply(predictions, labels),
                                              axis=[axis])
        return compute_weighted_loss(losses, weights, scope=name_scope)


def sigmoid_cross_entropy(logits, multi_class_labels, weights=1.0, label_smoothing=0,
                          scope=None):
    """Weighted mean of the element-wise sigmoid cross-entropy (labels smoothed towards 1/2)."""
    with ops.name_scope(scope, "sigmoid_cross_entropy_loss",
                        [logits, multi_class_labels, weights]) as name_scope:
        logits = ops.convert_to_tensor(logits)
        multi_class_labels = ops.convert_to_tensor(multi_class_labels)
        logits.get_shape().assert_is_compatible_with(multi_class_labels.get_shape())
        labels = cast_ops.cast(multi_class_labels, logits.dtype)
        if label_smoothing > 0:
            labels = labels * (1 - label_smoothing) + 0.5 * label_smoothing
        losses = _nn().sigmoid_cross_entropy_with_logits(labels=labels, logits=logits,
                                                         name="xentropy")
        return compute_weighted_loss(losses, weights, scope=name_scope)


def softmax_cross_entropy(logits, onehot_labels, weights=1.0, label_smoothing=0, scope=None):
    """Weighted mean of the softmax cross-entropy against one-hot labels ([batch] weights)."""
    with ops.name_scope(scope, "softmax_cross_entropy_loss",
                        [logits, onehot_labels, weights]) as name_scope:
        logits = ops.convert_to_tensor(logits)
        onehot_labels = ops.convert_to_tensor(onehot_labels)
        logits.get_shape().assert_is_compatible_with(onehot_labels.get_shape())
        labels = cast_ops.cast(onehot_labels, logits.dtype)
        if label_smoothing > 0:
            num_classes = cast_ops.cast(array_ops.shape(labels)[1], logits.dtype)
            labels = labels * (1.0 - label_smoothing) + label_smoothing / num_classes
        losses = _nn().softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                         name="xentropy")
        return compute_weighted_loss(losses, weights, scope=name_scope)


def sparse_softmax_cross_entropy(logits, labels, weights=1.0, scope=None):
    """Weighted mean of the softmax cross-entropy against integer labels ([batch] or
    [batch, 1])."""
    with ops.name_scope(scope, "sparse_softmax_cross_entropy_loss",
                        [logits, labels, weights]) as name_scope:
        labels = ops.convert_to_tensor(labels)
        labels = array_ops.reshape(labels, shape=[array_ops.shape(labels)[0]])
        losses = _nn().sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                                name="xentropy")
        return compute_weighted_loss(losses, weights, scope=name_scope)


__all__ = ["absolute_difference", "add_loss", "compute_weighted_loss", "cosine_distance",
           "get_losses", "get_regularization_losses", "get_total_loss", "hinge_loss",
           "log_loss", "mean_pairwise_squared_error", "mean_squared_error",
           "sigmoid_cross_entropy", "softmax_cross_entropy", "sparse_softmax_cross_entropy"]
