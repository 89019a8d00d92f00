"""TF 0.12-1.x contrib summary helpers: ``tf.contrib.layers.summarize_*`` (a scalar summary
for a scalar, a histogram otherwise; activations also get their fraction of zeros) and
``tf.contrib.deprecated``'s 0.x summary ops."""

import re

from tideflow.framework import ops
from tideflow.summary import summary as _summary


def summarize_tensor(tensor, tag=None):
    """A scalar summary of a rank-0 ``tensor``, else a histogram (tag: ``<op name>_summary``
    unless given)."""
    tag = tag or f"{tensor.op.name}_summary"  # TF's default tag (and summary op name)
    if tensor.get_shape().ndims == 0:
        return _summary.scalar(tag, tensor)
    return _summary.histogram(tag, tensor)


def _fraction(condition):
    from tideflow.ops import cast_ops, reduction_ops

    return reduction_ops.reduce_mean(cast_ops.cast(condition, "float32"))


def summarize_activation(op):
    """A histogram of an activation; for Relu/Relu6/Softplus also the fraction of its inputs
    below zero (``<name>/zeros``), and for Relu6 of those above six (``<name>/sixes``)."""
    from tideflow.ops import math_ops

    kind = op.op.type
    if kind in ("Relu", "Softplus", "Relu6"):
        x = op.op.inputs[0]
        _summary.scalar(f"{op.op.name}/zeros", _fraction(math_ops.less(x, 0)))
    if kind == "Relu6":
        x = op.op.inputs[0]
        _summary.scalar(f"{op.op.name}/sixes", _fraction(math_ops.greater(x, 6)))
    return _summary.histogram(f"{op.op.name}/activation", op)


def summarize_tensors(tensors, summarizer=summarize_tensor):
    return [summarizer(t) for t in tensors]


def summarize_collection(collection, name_filter=None, summarizer=summarize_tensor):
    """Summaries of the tensors of ``collection`` whose op names match ``name_filter``."""
    chosen = [t for t in ops.get_collection(collection)
              if name_filter is None or re.match(name_filter, t.op.name)]
    return summarize_tensors(chosen, summarizer)


def summarize_activations(name_filter=None, summarizer=summarize_activation):
    return summarize_collection(ops.GraphKeys.ACTIVATIONS, name_filter, summarizer)


def summarize_variables(name_filter=None, summarizer=summarize_tensor):
    return summarize_collection(ops.GraphKeys.GLOBAL_VARIABLES, name_filter, summarizer)


def summarize_weights(name_filter=None, summarizer=summarize_tensor):
    return summarize_collection(ops.GraphKeys.WEIGHTS, name_filter, summarizer)


def summarize_biases(name_filter=None, summarizer=summarize_tensor):
    return summarize_collection(ops.GraphKeys.BIASES, name_filter, summarizer)


SUMMARIZE_NAMES = ["summarize_activation", "summarize_activations", "summarize_biases",
                   "summarize_collection", "summarize_tensor", "summarize_tensors",
                   "summarize_variables", "summarize_weights"]
DEPRECATED_NAMES = ["audio_summary", "histogram_summary", "image_summary",
                    "merge_all_summaries", "merge_summary", "scalar_summary"]

scalar_summary = _summary.scalar_summary
histogram_summary = _summary.histogram_summary
image_summary = _summary.image_summary
audio_summary = _summary.audio_summary
merge_summary = _summary.merge_summary
merge_all_summaries = _summary.merge_all_summaries

__all__ = ["audio_summary", "histogram_summary", "image_summary", "merge_all_summaries",
           "merge_summary", "scalar_summary", "summarize_activation", "summarize_activations",
           "summarize_biases", "summarize_collection", "summarize_tensor", "summarize_tensors",
           "summarize_variables", "summarize_weights"]
