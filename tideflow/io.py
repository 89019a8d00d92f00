"""``tf.io``: record files, Example parsing, decoding and file access (re-exports only).

``read_file``, ``write_file`` and ``matching_files`` come from ``tideflow.ops.io_ops`` on
first use.
"""

from tideflow import gfile
from tideflow.framework.record_io import (
    TFRecordCompressionType,
    TFRecordOptions,
    TFRecordWriter,
    tf_record_iterator,
)
from tideflow.ops.decode_ops import decode_csv, decode_raw, parse_tensor, serialize_tensor
from tideflow.ops.parsing_ops import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    SparseFeature,
    VarLenFeature,
    parse_example,
    parse_single_example,
    parse_single_sequence_example,
)

_FROM_IO_OPS = ("read_file", "write_file", "matching_files")


def __getattr__(name):
    if name in _FROM_IO_OPS:
        import importlib

        try:
            module = importlib.import_module("tideflow.ops.io_ops")
        except ImportError:
            module = None
        if module is not None and hasattr(module, name):
            value = getattr(module, name)
            globals()[name] = value
            return value
    raise AttributeError(f"module 'tideflow.io' has no attribute {name!r}")


__all__ = [
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "SparseFeature",
    "TFRecordCompressionType",
    "TFRecordOptions",
    "TFRecordWriter",
    "VarLenFeature",
    "decode_csv",
    "decode_raw",
    "gfile",
    "parse_example",
    "parse_single_example",
    "parse_single_sequence_example",
    "parse_tensor",
    "serialize_tensor",
    "tf_record_iterator",
]
