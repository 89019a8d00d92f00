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
    parse_sequence_example,
    parse_single_example,
    parse_single_sequence_example,
)
from tideflow.ops.proto_ops import decode_proto, encode_proto

_FROM_IO_OPS = ("read_file", "write_file", "matching_files")

# names tf.io shares with other namespaces: name -> dotted path under ``tideflow``
_ALIASES = {
    "decode_jpeg": "image.decode_jpeg", "decode_png": "image.decode_png",
    "decode_gif": "image.decode_gif", "decode_bmp": "image.decode_bmp",
    "decode_image": "image.decode_image", "encode_jpeg": "image.encode_jpeg",
    "encode_png": "image.encode_png", "extract_jpeg_shape": "image.extract_jpeg_shape",
    "is_jpeg": "image.is_jpeg", "decode_and_crop_jpeg": "image.decode_and_crop_jpeg",
    "decode_webp": "image.decode_webp",
    "PaddingFIFOQueue": "queue.PaddingFIFOQueue", "PriorityQueue": "queue.PriorityQueue",
    "QueueBase": "queue.QueueBase", "RandomShuffleQueue": "queue.RandomShuffleQueue",
    "FIFOQueue": "queue.FIFOQueue",
    "decode_base64": "decode_base64", "encode_base64": "encode_base64",
    "decode_compressed": "decode_compressed", "decode_json_example": "decode_json_example",
    "serialize_sparse": "serialize_sparse", "serialize_many_sparse": "serialize_many_sparse",
    "deserialize_many_sparse": "deserialize_many_sparse",
    "match_filenames_once": "train.match_filenames_once", "write_graph": "train.write_graph",
}


def __getattr__(name):
    if name in _ALIASES:
        import tideflow

        value = tideflow
        for part in _ALIASES[name].split("."):
            value = getattr(value, part)
        globals()[name] = value
        return value
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
    "decode_proto",
    "decode_raw",
    "encode_proto",
    "gfile",
    "parse_example",
    "parse_sequence_example",
    "parse_single_example",
    "parse_single_sequence_example",
    "parse_tensor",
    "serialize_tensor",
    "tf_record_iterator",
]


def __dir__():
    # the lazily bound names too (TF's dir(tf.io) lists them)
    return sorted(set(globals()) | set(_ALIASES) | set(_FROM_IO_OPS))
