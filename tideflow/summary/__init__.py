"""``tf.summary``: summary ops, ``FileWriter`` and the summary protos (explicit re-exports)."""

from tideflow.protos.event_pb2 import Event, SessionLog, TaggedRunMetadata
from tideflow.protos.summary_pb2 import Summary, SummaryDescription, SummaryMetadata
from tideflow.summary.summary import (
    all_v2_summary_ops,
    audio,
    get_summary_description,
    histogram,
    image,
    initialize,
    merge,
    merge_all,
    scalar,
    tensor_summary,
    text,
)
from tideflow.summary.summary_iterator import summary_iterator
from tideflow.summary.writer import FileWriter, FileWriterCache

__all__ = [
    "Event",
    "FileWriter",
    "FileWriterCache",
    "SessionLog",
    "Summary",
    "SummaryDescription",
    "SummaryMetadata",
    "TaggedRunMetadata",
    "all_v2_summary_ops",
    "audio",
    "get_summary_description",
    "histogram",
    "image",
    "initialize",
    "merge",
    "merge_all",
    "scalar",
    "summary_iterator",
    "tensor_summary",
    "text",
]
