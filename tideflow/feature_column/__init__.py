"""``tf.feature_column``: feature columns of TF 1.x (explicit re-exports)."""

from tideflow.feature_column.feature_column import (
    bucketized_column,
    categorical_column_with_hash_bucket,
    categorical_column_with_identity,
    categorical_column_with_vocabulary_file,
    categorical_column_with_vocabulary_list,
    crossed_column,
    embedding_column,
    indicator_column,
    input_layer,
    linear_model,
    make_parse_example_spec,
    numeric_column,
    shared_embedding_columns,
    weighted_categorical_column,
)
from tideflow.feature_column.sequence_feature_column import (
    sequence_categorical_column_with_hash_bucket,
    sequence_categorical_column_with_identity,
    sequence_categorical_column_with_vocabulary_file,
    sequence_categorical_column_with_vocabulary_list,
    sequence_numeric_column,
)

__all__ = [
    "bucketized_column",
    "categorical_column_with_hash_bucket",
    "categorical_column_with_identity",
    "categorical_column_with_vocabulary_file",
    "categorical_column_with_vocabulary_list",
    "crossed_column",
    "embedding_column",
    "indicator_column",
    "input_layer",
    "linear_model",
    "make_parse_example_spec",
    "numeric_column",
    "sequence_categorical_column_with_hash_bucket",
    "sequence_categorical_column_with_identity",
    "sequence_categorical_column_with_vocabulary_file",
    "sequence_categorical_column_with_vocabulary_list",
    "sequence_numeric_column",
    "shared_embedding_columns",
    "weighted_categorical_column",
]
