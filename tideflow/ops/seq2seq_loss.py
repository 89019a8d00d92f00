"""Sequence losses of ``tf.contrib.seq2seq`` and ``tf.contrib.legacy_seq2seq``: weighted
per-step cross-entropy averaged or summed over time steps and batch as TF's."""

import inspect

from tideflow.framework import ops
from tideflow.ops import array_ops, cast_ops, math_ops, reduction_ops
from tideflow.ops.special_math_ops import div_no_nan


def _xent(labels, logits, softmax_loss_function):
    if softmax_loss_function is None:
        from tideflow import nn

        return nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    if _takes_keywords(softmax_loss_function):
        return softmax_loss_function(labels=labels, logits=logits)
    # TF 1.0 called the function positionally as ``(logits, labels)``; programs written for
    # it name the two parameters otherwise (e.g. ``(y_pre, y_target)``).
    return softmax_loss_function(logits, labels)


def _takes_keywords(fn):
    """True unless ``fn`` has a signature that accepts neither ``labels=`` nor ``logits=``."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return True
    if any(p.kind == inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return True
    return "labels" in params or "logits" in params


def _count_nonzero(weights, dtype, axis=None):
    """The count of non-zero weights (along ``axis``) as ``dtype``, TF 1.15's ops."""
    return cast_ops.cast(reduction_ops.count_nonzero(weights, axis=axis), dtype)


def sequence_loss(logits, targets, weights, average_across_timesteps=True,
                  average_across_batch=True, sum_over_timesteps=False, sum_over_batch=False,
                  softmax_loss_function=None, name=None):
    """Weighted cross-entropy of ``logits [batch, steps, classes]`` against integer
    ``targets [batch, steps]``: a scalar when averaged (or summed and divided by the count of
    non-zero weights) over both axes, ``[batch]`` or ``[steps]`` over one, ``[batch, steps]``
    over none."""
    # TF 1.15's checks, on the arguments as given: a list or an array has no get_shape
    # (AttributeError), a tensor of unknown rank no len() (ValueError)
    if len(logits.get_shape()) != 3:
        raise ValueError("Logits must be a [batch_size x sequence_length x logits] tensor")
    if len(targets.get_shape()) != 2:
        raise ValueError("Targets must be a [batch_size x sequence_length] tensor")
    if len(weights.get_shape()) != 2:
        raise ValueError("Weights must be a [batch_size x sequence_length] tensor")
    logits = ops.convert_to_tensor(logits)
    targets = ops.convert_to_tensor(targets)
    weights = ops.convert_to_tensor(weights)
    if average_across_timesteps and sum_over_timesteps:
        raise ValueError("average_across_timesteps and sum_over_timesteps cannot be set to "
                         "True at same time.")
    if average_across_batch and sum_over_batch:
        raise ValueError("average_across_batch and sum_over_batch cannot be set to True at "
                         "same time.")
    with ops.name_scope(name, "sequence_loss", [logits, targets, weights]):
        num_classes = array_ops.shape(logits)[2]
        flat_logits = array_ops.reshape(logits, [-1, num_classes])
        flat_targets = array_ops.reshape(targets, [-1])
        crossent = _xent(flat_targets, flat_logits, softmax_loss_function)
        crossent = crossent * array_ops.reshape(weights, [-1])
        # (TF 1.15's: one reduction, the first of these that applies)
        if average_across_timesteps and average_across_batch:
            return div_no_nan(reduction_ops.reduce_sum(crossent),
                              reduction_ops.reduce_sum(weights))
        if sum_over_timesteps and sum_over_batch:
            return div_no_nan(reduction_ops.reduce_sum(crossent),
                              _count_nonzero(weights, crossent.dtype))
        crossent = array_ops.reshape(crossent, array_ops.shape(logits)[0:2])
        if average_across_timesteps or average_across_batch:
            axis = [0] if average_across_batch else [1]
            crossent = div_no_nan(reduction_ops.reduce_sum(crossent, axis=axis),
                                  reduction_ops.reduce_sum(weights, axis=axis))
        elif sum_over_timesteps or sum_over_batch:
            axis = [0] if sum_over_batch else [1]
            crossent = div_no_nan(reduction_ops.reduce_sum(crossent, axis=axis),
                                  _count_nonzero(weights, crossent.dtype, axis=axis))
        return crossent


class SequenceLoss:
    """``sequence_loss`` as a Keras-style loss object (TF 1.15's ``contrib.seq2seq`` loss
    module): called as ``loss(y_true=targets, y_pred=logits, sample_weight=weights)``. Its
    defaults sum over time steps and batch (divided by the count of non-zero weights)."""

    def __init__(self, average_across_timesteps=False, average_across_batch=False,
                 sum_over_timesteps=True, sum_over_batch=True, softmax_loss_function=None,
                 name=None):
        self.name = name
        self.average_across_timesteps = average_across_timesteps
        self.average_across_batch = average_across_batch
        self.sum_over_timesteps = sum_over_timesteps
        self.sum_over_batch = sum_over_batch
        self.softmax_loss_function = softmax_loss_function

    def __call__(self, y_true, y_pred, sample_weight=None):
        return sequence_loss(y_pred, y_true, sample_weight,
                             average_across_timesteps=self.average_across_timesteps,
                             average_across_batch=self.average_across_batch,
                             sum_over_timesteps=self.sum_over_timesteps,
                             sum_over_batch=self.sum_over_batch,
                             softmax_loss_function=self.softmax_loss_function, name=self.name)

    def call(self, y_true, y_pred):
        raise NotImplementedError("SequenceLoss is applied through __call__")


def sequence_loss_by_example(logits, targets, weights, average_across_timesteps=True,
                             softmax_loss_function=None, name=None):
    """``legacy_seq2seq``: per-example weighted log-perplexity over lists of per-step
    ``logits [batch, classes]``, ``targets [batch]`` and ``weights [batch]``."""
    if not len(logits) == len(targets) == len(weights):
        raise ValueError("Lengths of logits, weights, and targets must be the same "
                         f"{len(logits)}, {len(weights)}, {len(targets)}.")
    with ops.name_scope(name, "sequence_loss_by_example", [*logits, *targets, *weights]):
        # (a given softmax_loss_function takes the targets as they are, not flattened)
        terms = [_xent(t if softmax_loss_function else array_ops.reshape(t, [-1]), lg,
                       softmax_loss_function) * w
                 for lg, t, w in zip(logits, targets, weights, strict=True)]
        log_perps = math_ops.add_n(terms)
        if average_across_timesteps:
            log_perps = log_perps / (math_ops.add_n(list(weights)) + 1e-12)
        return log_perps


def legacy_sequence_loss(logits, targets, weights, average_across_timesteps=True,
                         average_across_batch=True, softmax_loss_function=None, name=None):
    """``legacy_seq2seq.sequence_loss``: the summed per-example losses, divided by the batch
    size when ``average_across_batch``."""
    with ops.name_scope(name, "sequence_loss", [*logits, *targets, *weights]):
        cost = reduction_ops.reduce_sum(sequence_loss_by_example(
            logits, targets, weights, average_across_timesteps=average_across_timesteps,
            softmax_loss_function=softmax_loss_function))
        if average_across_batch:
            batch = array_ops.shape(targets[0])[0]
            return cost / cast_ops.cast(batch, cost.dtype)
        return cost
