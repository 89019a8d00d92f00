"""``tf.lookup`` (TF 1.13+): static hash tables and their initializers; explicit re-exports."""

import types as _types

from tideflow.ops.dense_hash_table_ops import DenseHashTable as _DenseHashTable
from tideflow.ops.lookup_ops import (
    KeyValueTensorInitializer,
    TextFileIndex,
    TextFileInitializer,
)
from tideflow.ops.lookup_ops import MutableHashTable as _MutableHashTable
from tideflow.ops.lookup_ops import StaticHashTableV1 as StaticHashTable  # TF 1.15's v1 classes
from tideflow.ops.lookup_ops import StaticVocabularyTableV1 as StaticVocabularyTable

experimental = _types.ModuleType(__name__ + ".experimental",
                                 "``tf.lookup.experimental``: the mutable tables.")
experimental.DenseHashTable = _DenseHashTable
experimental.MutableHashTable = _MutableHashTable
experimental.__all__ = ["DenseHashTable", "MutableHashTable"]

__all__ = ["KeyValueTensorInitializer", "StaticHashTable", "StaticVocabularyTable",
           "TextFileIndex", "TextFileInitializer", "experimental"]
