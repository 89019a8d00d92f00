"""TF 1.15 behaviours pinned by the lead in the twenty-sixth session (each measured in TF 1.15)."""

import copy
import pickle

import tideflow as tf


def test_feature_columns_are_tf_feature_columns_v2_classes_by_name():
    # TF 1.15: tf.feature_column's constructors return feature_column_v2's classes (no
    # underscore); shared embeddings keep the v1 class
    fc = tf.feature_column
    ident = fc.categorical_column_with_identity("a", 5)
    num = fc.numeric_column("x")
    columns = [ident, num, fc.bucketized_column(num, [1.0]),
               fc.categorical_column_with_vocabulary_list("v", ["a"]),
               fc.categorical_column_with_hash_bucket("h", 5),
               fc.weighted_categorical_column(ident, "w"), fc.crossed_column(["a", "b"], 5),
               fc.indicator_column(ident), fc.embedding_column(ident, 3)]
    columns += fc.shared_embedding_columns([ident, fc.categorical_column_with_identity("b", 5)], 3)
    assert [type(c).__name__ for c in columns] == [
        "IdentityCategoricalColumn", "NumericColumn", "BucketizedColumn",
        "VocabularyListCategoricalColumn", "HashedCategoricalColumn", "WeightedCategoricalColumn",
        "CrossedColumn", "IndicatorColumn", "EmbeddingColumn", "_SharedEmbeddingColumn",
        "_SharedEmbeddingColumn"]
    # still pickled and copied as before
    assert pickle.loads(pickle.dumps(num)) == num
    assert copy.deepcopy(columns[8]).dimension == 3
