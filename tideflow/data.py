"""``tf.data``: input pipelines (``Dataset``, ``Iterator``, file datasets, ``experimental``)."""

from tideflow.ops import dataset_experimental as experimental
from tideflow.ops.dataset_more import INFINITE as INFINITE_CARDINALITY
from tideflow.ops.dataset_more import UNKNOWN as UNKNOWN_CARDINALITY
from tideflow.ops.dataset_more import DatasetSpec, NumpyIterator
from tideflow.ops.dataset_ops import AUTOTUNE, Dataset
from tideflow.ops.dataset_options import Options, ThreadingOptions
from tideflow.ops.dataset_readers import (
    FixedLengthRecordDataset,
    TextLineDataset,
    TFRecordDataset,
)
from tideflow.ops.iterator_ops import (
    Iterator,
    get_output_classes,
    get_output_shapes,
    get_output_types,
    make_initializable_iterator,
    make_one_shot_iterator,
)

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "Dataset",
    "DatasetSpec",
    "FixedLengthRecordDataset",
    "Iterator",
    "NumpyIterator",
    "Options",
    "TFRecordDataset",
    "TextLineDataset",
    "ThreadingOptions",
    "experimental",
    "get_output_classes",
    "get_output_shapes",
    "get_output_types",
    "make_initializable_iterator",
    "make_one_shot_iterator",
]
