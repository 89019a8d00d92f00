"""``tf.data``: input pipelines (``Dataset``, ``Iterator``, file datasets, ``experimental``)."""

from tideflow.ops import dataset_experimental as experimental
from tideflow.ops.dataset_ops import Dataset
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

__all__ = ["Dataset", "FixedLengthRecordDataset", "Iterator", "TFRecordDataset",
           "TextLineDataset", "experimental", "get_output_classes", "get_output_shapes",
           "get_output_types", "make_initializable_iterator", "make_one_shot_iterator"]
