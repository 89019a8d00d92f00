"""``tf.summary`` ops' Python side: ``scalar``, ``histogram``, ``image``, ``audio``, ``text``,
``tensor_summary``, ``merge``, ``merge_all``, and the 0.8 names (``tf.scalar_summary``, ...).

Since TF 1.0 the first argument names the op and its name scope is the tag; the 0.8 functions
take the tag itself (any string, or a string tensor).
"""

import json
import logging
import re

from tideflow.framework import dtypes, ops
from tideflow.protos import summary_pb2
from tideflow.summary import summary_ops  # noqa: F401 - declares the ops

_logger = logging.getLogger("tensorflow")

_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w\.]")


def _clean_tag(name):
    """Replaces characters not allowed in op names with ``_`` and drops leading slashes."""
    if name is None:
        return None
    cleaned = _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")
    if cleaned != name:
        _logger.info("Summary name %s is illegal; using %s instead.", name, cleaned)
    return cleaned


class _SummaryScope:
    """Opens the summary's name scope and yields ``(tag, scope)``; with ``family`` the scope is
    ``family/name`` under the current one and the tag is ``family/<that scope>``."""

    def __init__(self, name, family=None, default_name=None, values=None):
        name = _clean_tag(name)
        self._family = _clean_tag(family)
        base = name if self._family is None else f"{self._family}/{name}"
        self._scope = ops.name_scope(base, default_name, values)

    def __enter__(self):
        scope = self._scope.__enter__()
        tag = scope.rstrip("/")
        if self._family is not None:
            tag = f"{self._family}/{tag}"
        return tag, scope

    def __exit__(self, *exc):
        return self._scope.__exit__(*exc)


def _collect(value, collections, default):
    for key in default if collections is None else collections:
        ops.add_to_collection(key, value)


def _summary(op_type, inputs, attrs, scope):
    return ops.apply_op(op_type, inputs, attrs, name=scope)._outputs[0]


# ------------------------------------------------------------------------------------------
# TF 1.x tf.summary
# ------------------------------------------------------------------------------------------


def scalar(name, tensor, collections=None, family=None):
    """A ``Summary`` with one scalar value, tagged with the op's name scope."""
    with _SummaryScope(name, family, values=[tensor]) as (tag, scope):
        val = _summary("ScalarSummary", [tag, tensor], {}, scope)
        _collect(val, collections, [ops.GraphKeys.SUMMARIES])
    return val


def histogram(name, values, collections=None, family=None):
    """A ``Summary`` with a histogram of ``values`` (TF's default buckets)."""
    with _SummaryScope(name, family, default_name="HistogramSummary",
                       values=[values]) as (tag, scope):
        val = _summary("HistogramSummary", [tag, values], {}, scope)
        _collect(val, collections, [ops.GraphKeys.SUMMARIES])
    return val


def image(name, tensor, max_outputs=3, collections=None, family=None):
    """A ``Summary`` with up to ``max_outputs`` PNG images of a 4-D ``[batch, h, w, c]`` tensor
    (c = 1, 3 or 4); float images are rescaled to ``[0, 255]`` one image at a time."""
    with _SummaryScope(name, family, values=[tensor]) as (tag, scope):
        val = _summary("ImageSummary", [tag, tensor], {"max_images": max_outputs}, scope)
        _collect(val, collections, [ops.GraphKeys.SUMMARIES])
    return val


def audio(name, tensor, sample_rate, max_outputs=3, collections=None, family=None):
    """A ``Summary`` with up to ``max_outputs`` WAV clips of a ``[batch, frames(, channels)]``
    float tensor in ``[-1, 1]``."""
    with _SummaryScope(name, family, values=[tensor]) as (tag, scope):
        sample_rate = ops.convert_to_tensor(sample_rate, dtype=dtypes.float32,
                                            name="sample_rate")
        val = _summary("AudioSummaryV2", [tag, tensor, sample_rate],
                       {"max_outputs": max_outputs}, scope)
        _collect(val, collections, [ops.GraphKeys.SUMMARIES])
    return val


def tensor_summary(name, tensor, summary_description=None, collections=None,
                   summary_metadata=None, family=None, display_name=None):
    """A ``Summary`` holding ``tensor`` itself, with ``summary_metadata`` for its plugin."""
    if summary_metadata is None:
        summary_metadata = summary_pb2.SummaryMetadata()
    if summary_description is not None:
        summary_metadata.summary_description = summary_description
    if display_name is not None:
        summary_metadata.display_name = display_name
    serialized = summary_metadata.SerializeToString()
    with _SummaryScope(name, family, values=[tensor]) as (tag, scope):
        val = _summary("TensorSummaryV2", [tag, tensor, serialized], {}, scope)
        _collect(val, collections, [ops.GraphKeys.SUMMARIES])
    return val


def text(name, tensor, collections=None):
    """A ``Summary`` of a string tensor for TensorBoard's text dashboard (Markdown)."""
    tensor = ops.convert_to_tensor(tensor)
    if tensor.dtype.base_dtype != dtypes.string:
        raise ValueError(f"Expected tensor {tensor.name} to have dtype string, got "
                         f"{tensor.dtype}")
    metadata = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text"))
    return tensor_summary(name, tensor, summary_metadata=metadata, collections=collections)


def merge(inputs, collections=None, name=None):
    """One ``Summary`` with the values of all ``inputs`` (duplicate tags fail at run time)."""
    from tideflow.framework.func_graph import reach

    name = _clean_tag(name)
    # (a summary made in a cond branch: the cond's output carrying it, as TF 1.x merges it;
    # dead, and so the merged summary, on a step the other branch ran)
    graph = ops.get_default_graph()
    inputs = [reach(x, graph, dead_elsewhere=True) if isinstance(x, ops.Tensor) else x
              for x in inputs]
    with ops.name_scope(name, "Merge", inputs):
        val = ops.apply_op("MergeSummary", [inputs], name=name)._outputs[0]
        _collect(val, collections, [])
    return val


def merge_all(key=ops.GraphKeys.SUMMARIES, scope=None, name=None):
    """Merges the summaries in collection ``key`` (optionally only those matching ``scope``);
    None when there are none."""
    summary_ops_ = ops.get_collection(key, scope=scope)
    if not summary_ops_:
        return None
    return merge(summary_ops_, name=name)


def all_v2_summary_ops():
    """The ops of ``tf.contrib.summary`` (the "v2" summaries) in the default graph."""
    from tideflow import contrib_summary_v2

    return contrib_summary_v2.all_summary_ops()


def initialize(graph=None, session=None):
    """Runs the ``tf.contrib.summary`` writers' initializers (``tf.summary.initialize``)."""
    from tideflow import contrib_summary_v2

    contrib_summary_v2.initialize(graph=graph, session=session)


def get_summary_description(node_def):
    """The ``SummaryDescription`` in a ``TensorSummary`` NodeDef's ``description`` attr."""
    if node_def.op != "TensorSummary":
        raise ValueError(f"Can't get_summary_description on {node_def.op}")
    from google.protobuf import json_format

    text_ = node_def.attr["description"].s
    if isinstance(text_, bytes):
        text_ = text_.decode()
    description = summary_pb2.SummaryDescription()
    json_format.Parse(text_ or json.dumps({}), description)
    return description


# ------------------------------------------------------------------------------------------
# 0.8 names: the first argument is the tag
# ------------------------------------------------------------------------------------------


def scalar_summary(tags, values, collections=None, name=None):
    """``tf.scalar_summary``: one value per tag (``tags`` and ``values`` of the same shape)."""
    with ops.name_scope(name, "ScalarSummary", [tags, values]) as scope:
        val = _summary("ScalarSummary", [tags, values], {}, scope)
        _collect(val, collections, [ops.GraphKeys.SUMMARIES])
    return val


def histogram_summary(tag, values, collections=None, name=None):
    """``tf.histogram_summary``: a histogram of ``values`` under ``tag``."""
    with ops.name_scope(name, "HistogramSummary", [tag, values]) as scope:
        val = _summary("HistogramSummary", [tag, values], {}, scope)
        _collect(val, collections, [ops.GraphKeys.SUMMARIES])
    return val


def image_summary(tag, tensor, max_images=3, collections=None, name=None):
    """``tf.image_summary``: images tagged ``tag/image`` or ``tag/image/<i>``."""
    with ops.name_scope(name, "ImageSummary", [tag, tensor]) as scope:
        val = _summary("ImageSummary", [tag, tensor], {"max_images": max_images}, scope)
        _collect(val, collections, [ops.GraphKeys.SUMMARIES])
    return val


def audio_summary(tag, tensor, sample_rate, max_outputs=3, collections=None, name=None):
    """``tf.audio_summary``: WAV clips tagged ``tag/audio`` or ``tag/audio/<i>``."""
    with ops.name_scope(name, "AudioSummary", [tag, tensor]) as scope:
        sample_rate = ops.convert_to_tensor(sample_rate, dtype=dtypes.float32,
                                            name="sample_rate")
        val = _summary("AudioSummaryV2", [tag, tensor, sample_rate],
                       {"max_outputs": max_outputs}, scope)
        _collect(val, collections, [ops.GraphKeys.SUMMARIES])
    return val


def merge_summary(inputs, collections=None, name=None):
    """``tf.merge_summary``: merges serialized summaries."""
    inputs = list(inputs)
    # as TF 1.x: the op is named inside its own scope ("MergeSummary/MergeSummary")
    with ops.name_scope(name, "MergeSummary", inputs):
        val = _summary("MergeSummary", [inputs], {}, name or "MergeSummary")
        _collect(val, collections, [])
    return val


def merge_all_summaries(key=ops.GraphKeys.SUMMARIES):
    """``tf.merge_all_summaries``: merges collection ``key``; None when it is empty."""
    summary_ops_ = ops.get_collection(key)
    if not summary_ops_:
        return None
    return merge_summary(summary_ops_)
