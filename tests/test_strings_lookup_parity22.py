"""Text preprocessing programs (tf.strings, lookup tables, CSV and raw decoding) checked against
what TF 1.15 prints for the same program; expected values come from running TF 1.15."""

import pytest

import tideflow as tf

L = tf.contrib.lookup


def test_oov_table_size_is_an_add_named_as_tf():
    # TF 1.15: size() of a table with oov buckets is `table.size() + n` under "<name>_Size",
    # and without a table a Const 0 plus n
    with tf.Graph().as_default() as g:
        t = L.index_table_from_tensor(["a", "b"], num_oov_buckets=3)
        buckets = L.IdTableWithHashBuckets(None, num_oov_buckets=5)
        n, m = t.size(), buckets.size()
        assert n.name == "hash_table_Size/add:0" and n.op.type == "AddV2"
        assert m.name == "hash_bucket_Size/add:0"
        assert [op.name for op in g.get_operations() if op.name.startswith("hash_bucket_Size")] \
            == ["hash_bucket_Size/Const", "hash_bucket_Size/add/y", "hash_bucket_Size/add"]
        with tf.Session() as s:
            s.run(tf.tables_initializer())
            assert s.run([n, m]) == [5, 5]


def test_index_tables_are_static_hash_tables_with_strict_key_dtypes():
    # TF 1.15: index tables are StaticHashTableV1 (no cast of int32 keys: a TypeError); the
    # oov-bucket table takes keys of its key_dtype only and casts them to the table's int64
    with tf.Graph().as_default():
        t32 = L.index_table_from_tensor(tf.constant([5, 9], tf.int32), dtype=tf.int32)
        assert type(t32).__name__ == "StaticHashTableV1"
        assert type(L.index_to_string_table_from_tensor(["x"])).__name__ == "StaticHashTableV1"
        assert type(tf.lookup.StaticVocabularyTable(L.KeyValueTensorInitializer(
            ["x"], [0], value_dtype=tf.int64), 2)).__name__ == "StaticVocabularyTableV1"
        assert tf.lookup.StaticHashTable.__name__ == "StaticHashTableV1"
        with pytest.raises(TypeError, match=r"^Signature mismatch. Keys must be dtype "
                           r"<dtype: 'int64'>, got <dtype: 'int32'>.$"):
            t32.lookup(tf.constant([9, 1], tf.int32))
        oov = L.index_table_from_tensor(tf.constant([5, 9], tf.int32), dtype=tf.int32,
                                        num_oov_buckets=3)
        with pytest.raises(TypeError, match=r"^Signature mismatch. Keys must be dtype "
                           r"<dtype: 'int32'>, got <dtype: 'int64'>.$"):
            oov.lookup(tf.constant([9, 1], tf.int64))
        ids = oov.lookup(tf.constant([9, 1], tf.int32))
        with tf.Session() as s:
            s.run(tf.tables_initializer())
            assert s.run(ids).tolist() == [1, 2]


def test_index_table_argument_errors():
    # TF 1.15's exception classes and words, in its order of checks
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match=r"^Only integer and string keys are supported.$"):
            L.index_table_from_tensor([1.0, 2.0], dtype=tf.float32)
        with pytest.raises(TypeError, match=r"^Only integer and string keys are supported.$"):
            L.index_table_from_file("v.txt", key_dtype=tf.float32)
        with pytest.raises(ValueError, match=r"^num_oov_buckets must be greater or equal than "
                           r"0, got -2.$"):
            L.index_table_from_file("v.txt", num_oov_buckets=-2, vocab_size=0)
        with pytest.raises(ValueError, match=r"^oov_buckets must be > 0 if no table is "
                           r"supplied.$"):
            L.IdTableWithHashBuckets(None, 0)
        with pytest.raises(TypeError, match=r"^Invalid key_dtype, expected integer or string, "
                           r"got <dtype: 'float32'>.$"):
            L.IdTableWithHashBuckets(None, 2, key_dtype=tf.float32)
        with pytest.raises(TypeError, match=r"^hasher_spec must be of type HasherSpec, got "
                           r"fast$"):
            L.IdTableWithHashBuckets(None, 2, hasher_spec="fast")
        floats = L.HashTable(L.KeyValueTensorInitializer(["a"], [1.0]), -1.0)
        with pytest.raises(TypeError, match=r"^Invalid value dtype, expected <dtype: 'int64'> "
                           r"but got <dtype: 'float32'>.$"):
            L.IdTableWithHashBuckets(floats, 2)
        with pytest.raises(TypeError, match=r"^Invalid value dtype, expected <dtype: 'int64'> "
                           r"but got <dtype: 'int32'>.$"):
            tf.lookup.StaticVocabularyTable(L.KeyValueTensorInitializer(["a"], [0]), 2)


def test_dense_table_is_one_class_and_exports_tf_static_shapes():
    # TF 1.15: tf.contrib.lookup.MutableDenseHashTable is tf.lookup.experimental.DenseHashTable
    # and export() infers keys [?] and values [?] + value_shape, as MutableHashTable's
    assert L.MutableDenseHashTable is tf.lookup.experimental.DenseHashTable
    with tf.Graph().as_default():
        vec = L.MutableDenseHashTable(tf.int64, tf.float32, default_value=[0.0, 0.0],
                                      empty_key=0, deleted_key=-1)
        assert type(vec).__name__ == "DenseHashTable"
        keys, values = vec.export()
        assert keys.get_shape().as_list() == [None]
        assert values.get_shape().as_list() == [None, 2]
        pairs = L.MutableDenseHashTable(tf.int64, tf.int64, default_value=-1,
                                        empty_key=[0, 0], deleted_key=[-1, -1])
        keys, values = pairs.export()
        assert keys.get_shape().as_list() == [None] and values.get_shape().as_list() == [None]
