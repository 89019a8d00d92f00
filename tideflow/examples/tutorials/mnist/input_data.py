"""``tensorflow.examples.tutorials.mnist.input_data``: TF 1.x's MNIST loader.

``read_data_sets(train_dir, ...)`` reads the four gzipped IDX files from ``train_dir``
(downloading them from ``source_url`` when missing) into ``train``/``validation``/``test``
``DataSet``s; the implementation is ``tf.contrib.learn.datasets.mnist``'s."""

from tideflow.contrib_learn import maybe_download
from tideflow.contrib_learn_datasets import (
    SOURCE_URL,
    DataSet,
    dense_to_one_hot,
    extract_images,
    extract_labels,
    read_data_sets,
)

__all__ = ["SOURCE_URL", "DataSet", "dense_to_one_hot", "extract_images", "extract_labels",
           "maybe_download", "read_data_sets"]
