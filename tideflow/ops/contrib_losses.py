"""``tf.contrib.losses`` (also ``slim.losses``): the pre-``tf.losses`` loss functions, which
take predictions or logits first (``softmax_cross_entropy(logits, onehot_labels)``); each
computes what its ``tf.losses`` counterpart does and adds itself to ``LOSSES``."""

from tideflow.ops import losses_impl as _li

add_loss = _li.add_loss
get_losses = _li.get_losses
get_regularization_losses = _li.get_regularization_losses
get_total_loss = _li.get_total_loss


def compute_weighted_loss(losses, weights=1.0, scope=None):
    """The sum of ``losses * weights`` over the count of non-zero weights."""
    return _li.compute_weighted_loss(losses, weights, scope)


def absolute_difference(predictions, labels=None, weights=1.0, scope=None):
    """Weighted mean of ``|predictions - labels|``."""
    return _li.absolute_difference(labels, predictions, weights, scope)


def mean_squared_error(predictions, labels=None, weights=1.0, scope=None):
    """Weighted mean of ``(predictions - labels)^2``."""
    return _li.mean_squared_error(labels, predictions, weights, scope)


def mean_pairwise_squared_error(predictions, labels=None, weights=1.0, scope=None):
    """Weighted mean of the squared differences of every pair within each example."""
    return _li.mean_pairwise_squared_error(labels, predictions, weights, scope)


def log_loss(predictions, labels=None, weights=1.0, epsilon=1e-7, scope=None):
    """Weighted mean of the negative log-likelihood of binary ``labels``."""
    return _li.log_loss(labels, predictions, weights, epsilon, scope)


def hinge_loss(logits, labels=None, scope=None):
    """Weighted mean of ``max(0, 1 - (2 * labels - 1) * logits)``."""
    return _li.hinge_loss(labels, logits, scope=scope)


def cosine_distance(predictions, labels=None, axis=None, weights=1.0, scope=None, dim=None):
    """Weighted mean of ``1 - sum(predictions * labels, axis)`` (unit-norm inputs)."""
    return _li.cosine_distance(labels, predictions, axis=axis, weights=weights, scope=scope,
                               dim=dim)


def sigmoid_cross_entropy(logits, multi_class_labels, weights=1.0, label_smoothing=0,
                          scope=None):
    """Weighted mean of the element-wise sigmoid cross-entropy."""
    return _li.sigmoid_cross_entropy(multi_class_labels, logits, weights, label_smoothing, scope)


def softmax_cross_entropy(logits, onehot_labels, weights=1.0, label_smoothing=0, scope=None):
    """Weighted mean of the softmax cross-entropy against one-hot labels."""
    return _li.softmax_cross_entropy(onehot_labels, logits, weights, label_smoothing, scope)


def sparse_softmax_cross_entropy(logits, labels, weights=1.0, scope=None):
    """Weighted mean of the softmax cross-entropy against integer labels."""
    return _li.sparse_softmax_cross_entropy(labels, logits, weights, scope)


__all__ = ["absolute_difference", "add_loss", "compute_weighted_loss", "cosine_distance",
           "get_losses", "get_regularization_losses", "get_total_loss", "hinge_loss",
           "log_loss", "mean_pairwise_squared_error", "mean_squared_error",
           "sigmoid_cross_entropy", "softmax_cross_entropy", "sparse_softmax_cross_entropy"]
