"""tf.contrib.lookup / tf.lookup: hash tables, their initializers, index tables, errors."""

import numpy as np
import pytest

import tideflow as tf


def _vocab(tmp_path, text, name="vocab.txt"):
    p = tmp_path / name
    p.write_bytes(text.encode())
    return str(p)


def test_hash_table_string_to_int_and_tables_initializer():
    with tf.Graph().as_default():
        init = tf.contrib.lookup.KeyValueTensorInitializer(
            ["emerson", "lake", "palmer"], [0, 1, 2], value_dtype=tf.int64)
        table = tf.contrib.lookup.HashTable(init, -1)
        assert table.key_dtype == tf.string and table.value_dtype == tf.int64
        assert table.init in tf.get_collection(tf.GraphKeys.TABLE_INITIALIZERS)
        assert table.initializer is table.init
        out = table.lookup(tf.constant(["emerson", "lake", "tarkus"]))
        assert out.get_shape().as_list() == [3]
        with tf.Session() as s:
            with pytest.raises(tf.errors.FailedPreconditionError, match="not initialized"):
                s.run(out)
            s.run(tf.tables_initializer())
            assert s.run(out).tolist() == [0, 1, -1]
            assert s.run(table.size()) == 3
            s.run(table.init)  # the same entries again: a no-op, as in TF 1.14+
            assert s.run(out).tolist() == [0, 1, -1]


def test_lookup_of_sparse_keys_and_dtype_mismatch():
    with tf.Graph().as_default():
        table = tf.contrib.lookup.HashTable(
            tf.contrib.lookup.KeyValueTensorInitializer([1, 2], [10.0, 20.0], tf.int64,
                                                        tf.float32), 0.0)
        sp = tf.SparseTensor([[0, 0], [1, 2]], tf.constant([2, 5], tf.int64), [2, 3])
        got = table.lookup(sp)
        assert isinstance(got, tf.SparseTensor)
        with pytest.raises(TypeError, match="Signature mismatch"):
            table.lookup(tf.constant(["a"]))
        with tf.Session() as s:
            s.run(table.init)
            assert s.run(got.values).tolist() == [20.0, 0.0]


def test_duplicate_keys_with_different_values_fail():
    with tf.Graph().as_default():
        table = tf.contrib.lookup.HashTable(
            tf.contrib.lookup.KeyValueTensorInitializer(["a", "a"], [1, 2], value_dtype=tf.int64),
            -1)
        with tf.Session() as s, pytest.raises(tf.errors.FailedPreconditionError,
                                              match="different value for same key"):
            s.run(table.init)


def test_reinitializing_a_shared_table_with_other_data_fails():
    with tf.Graph().as_default():
        a = tf.contrib.lookup.HashTable(
            tf.contrib.lookup.KeyValueTensorInitializer(["x"], [1], value_dtype=tf.int64), -1,
            shared_name="t")
        b = tf.contrib.lookup.HashTable(
            tf.contrib.lookup.KeyValueTensorInitializer(["x", "y"], [2, 3],
                                                        value_dtype=tf.int64), -1,
            shared_name="t")
        # TF 1.15 compares only the number of entries: as many is a no-op that keeps the first
        c = tf.contrib.lookup.HashTable(
            tf.contrib.lookup.KeyValueTensorInitializer(["z"], [4], value_dtype=tf.int64), -1,
            shared_name="t")
        with tf.Session() as s:
            s.run(a.init)
            with pytest.raises(tf.errors.FailedPreconditionError, match="different data"):
                s.run(b.init)
            s.run(c.init)
            assert s.run(b.lookup(tf.constant(["x"]))).tolist() == [1]


def test_shared_name_shares_the_table_across_handles():
    with tf.Graph().as_default():
        a = tf.contrib.lookup.HashTable(
            tf.contrib.lookup.KeyValueTensorInitializer(["x"], [7], value_dtype=tf.int64), -1,
            shared_name="shared_vocab")
        b = tf.contrib.lookup.HashTable(
            tf.contrib.lookup.KeyValueTensorInitializer(["x"], [7], value_dtype=tf.int64), -1,
            shared_name="shared_vocab")
        with tf.Session() as s:
            s.run(a.init)
            assert s.run(b.lookup(tf.constant(["x", "y"]))).tolist() == [7, -1]


def test_index_tables_from_tensor():
    with tf.Graph().as_default():
        ids = tf.contrib.lookup.index_table_from_tensor(
            tf.constant(["emerson", "lake", "palmer"]), default_value=-5)
        int_ids = tf.contrib.lookup.index_table_from_tensor([30, 10, 20], dtype=tf.int32)
        names = tf.contrib.lookup.index_to_string_table_from_tensor(["a", "b"])
        out = [ids.lookup(tf.constant([["palmer", "x"], ["emerson", "lake"]])),
               int_ids.lookup(tf.constant([10, 11], tf.int64)),  # TF 1.15: int64 keys only
               names.lookup(tf.constant([1, 0, 9], tf.int64))]
        with tf.Session() as s:
            s.run(tf.tables_initializer())
            a, b, c = s.run(out)
        assert a.tolist() == [[2, -5], [0, 1]]
        assert b.tolist() == [1, -1]
        assert c.tolist() == [b"b", b"a", b"UNK"]


def test_index_tables_from_file(tmp_path):
    path = _vocab(tmp_path, "brain\nsalad\nsurgery\n")
    with tf.Graph().as_default():
        ids = tf.contrib.lookup.index_table_from_file(path)
        small = tf.contrib.lookup.index_table_from_file(path, vocab_size=2)
        words = tf.contrib.lookup.index_to_string_table_from_file(path, default_value="?")
        out = [ids.lookup(tf.constant(["salad", "surgery", "tofu"])),
               small.lookup(tf.constant(["salad", "surgery"])),
               words.lookup(tf.constant([2, 3], tf.int64)), ids.size()]
        with tf.Session() as s:
            s.run(tf.tables_initializer())
            a, b, c, n = s.run(out)
        assert a.tolist() == [1, 2, -1] and b.tolist() == [1, -1]
        assert c.tolist() == [b"surgery", b"?"] and n == 3


def test_text_file_columns_and_errors(tmp_path):
    path = _vocab(tmp_path, "a,1\nb,2\n")
    bad = _vocab(tmp_path, "a,1\nb\n", "bad.txt")
    with tf.Graph().as_default():
        good = tf.contrib.lookup.HashTable(tf.contrib.lookup.TextFileInitializer(
            path, tf.string, 0, tf.int64, 1, delimiter=","), -1)
        broken = tf.contrib.lookup.HashTable(tf.contrib.lookup.TextFileInitializer(
            bad, tf.string, 0, tf.int64, 1, delimiter=","), -1)
        too_big = tf.contrib.lookup.index_table_from_file(path, vocab_size=5)
        missing = tf.contrib.lookup.index_table_from_file(str(tmp_path / "nope.txt"))
        with tf.Session() as s:
            s.run(good.init)
            assert s.run(good.lookup(tf.constant(["b", "a"]))).tolist() == [2, 1]
            with pytest.raises(tf.errors.InvalidArgumentError, match="columns"):
                s.run(broken.init)
            with pytest.raises(tf.errors.InvalidArgumentError, match="vocab_size"):
                s.run(too_big.init)
            with pytest.raises(tf.errors.NotFoundError):
                s.run(missing.init)
    with pytest.raises(ValueError, match="Values must be dtype"):
        tf.contrib.lookup.TextFileInitializer(path, tf.string, 0, tf.float32, -1)


# FarmHash Fingerprint64 values from Google's C++ library (through the pyfarmhash bindings), one
# per code path: empty, 1-3, 4-7, 8-16, 17-32, 33-64 and > 64 bytes (one and several blocks)
_FINGERPRINTS = [
    (b"", 11160318154034397263), (b"a", 12917804110809363939), (b"abc", 2640714258260161385),
    (b"Hello", 15404698994557526151), (b"tideflow", 14903951981406183108),
    (b"0123456789abcdef", 6105018409752412263),
    (b"the quick brown fox jumps", 15224020086425394706), (b"x" * 40, 17003596230054984852),
    (bytes(range(100)), 4395248839964844437),
    (bytes(range(256)) + bytes(range(44)), 12278728342531856931),
]


@pytest.mark.parametrize(("data", "want"), _FINGERPRINTS)
def test_fingerprint64_matches_farmhash(data, want):
    from tideflow.ops.string_hash_ops import fingerprint64

    assert fingerprint64(data) == want


def test_string_to_hash_bucket_fast():
    with tf.Graph().as_default():
        # the example of TF's documentation of tf.strings.to_hash_bucket_fast
        out = tf.string_to_hash_bucket_fast(["Hello", "TensorFlow", "2.x"], 3)
        also = tf.strings.to_hash_bucket_fast(tf.constant([["Hello"]]), 1000)
        assert out.dtype == tf.int64 and also.get_shape().as_list() == [1, 1]
        with tf.Session() as s:
            assert s.run(out).tolist() == [0, 2, 2]
            assert s.run(also).tolist() == [[15404698994557526151 % 1000]]


def test_oov_buckets():
    from tideflow.ops.string_hash_ops import fingerprint64

    def bucket(word, n, vocab):
        return vocab + fingerprint64(word.encode()) % n

    with tf.Graph().as_default():
        words = tf.contrib.lookup.index_table_from_tensor(["a", "b", "c"], num_oov_buckets=5)
        ints = tf.contrib.lookup.index_table_from_tensor(
            tf.constant([7, 8], tf.int64), num_oov_buckets=3, dtype=tf.int64)
        only_hash = tf.contrib.lookup.IdTableWithHashBuckets(None, 4)
        keys = ["c", "zebra", "a", "Hello"]
        out = [words.lookup(tf.constant(keys)), words.size(),
               ints.lookup(tf.constant([8, 42], tf.int64)), only_hash.lookup(["Hello"])]
        with tf.Session() as s:
            s.run(tf.tables_initializer())
            got, size, got_ints, hashed = s.run(out)
        assert got.tolist() == [2, bucket("zebra", 5, 3), 0, bucket("Hello", 5, 3)]
        assert size == 8
        assert got_ints.tolist() == [1, bucket("42", 3, 2)]  # integers hash as decimal text
        assert hashed.tolist() == [bucket("Hello", 4, 0)]
        # a StrongHashSpec buckets unknown keys by keyed SipHash, after the vocabulary
        strong = tf.contrib.lookup.index_table_from_tensor(
            ["a"], num_oov_buckets=3, hasher_spec=tf.contrib.lookup.StrongHashSpec([1, 2]))
        want = tf.strings.to_hash_bucket_strong(["zebra"], 3, [1, 2]) + 1
        with tf.Session() as s:
            s.run(tf.tables_initializer())
            assert s.run(strong.lookup(tf.constant(["a", "zebra"]))).tolist() == [
                0, s.run(want)[0]]


def test_oov_buckets_from_file(tmp_path):
    from tideflow.ops.string_hash_ops import fingerprint64

    path = _vocab(tmp_path, "brain\nsalad\n")
    with tf.Graph().as_default():
        table = tf.contrib.lookup.index_table_from_file(path, num_oov_buckets=2)
        out = table.lookup(tf.constant(["salad", "tofu"]))
        with tf.Session() as s:
            s.run(tf.tables_initializer())
            assert s.run(out).tolist() == [1, 2 + fingerprint64(b"tofu") % 2]


def test_tf_lookup_static_hash_table():
    with tf.Graph().as_default():
        table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(np.array([1, 2], np.int64), ["one", "two"]),
            default_value="none")
        out = table.lookup(tf.constant([2, 3], tf.int64))
        with tf.Session() as s:
            s.run(tf.tables_initializer())
            assert s.run(out).tolist() == [b"two", b"none"]


def test_table_graph_survives_graph_def_round_trip(tmp_path):
    path = _vocab(tmp_path, "foo\nbar\n")
    with tf.Graph().as_default() as g:
        table = tf.contrib.lookup.index_table_from_file(path)
        table.lookup(tf.constant(["bar", "x"]), name="out")
        tf.tables_initializer()
        graph_def = g.as_graph_def()
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as s:
            s.run("init_all_tables")
            # as TF 1.15: the lookup op is named by its type in the scope ``name`` gives
            assert s.run("out/LookupTableFindV2:0").tolist() == [1, -1]


def test_vocabulary_file_travels_with_a_saved_model(tmp_path):
    path = _vocab(tmp_path, "foo\nbar\n")
    export = str(tmp_path / "export")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.string, [None], name="x")
        table = tf.contrib.lookup.index_table_from_file(path)
        assert len(tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS)) == 1
        y = table.lookup(x)
        with tf.Session() as s:
            s.run(tf.tables_initializer())
            tf.saved_model.simple_save(s, export, {"x": x}, {"y": y},
                                       legacy_init_op=tf.tables_initializer())
    (tmp_path / "vocab.txt").unlink()  # the loaded model must read its own asset copy
    with tf.Graph().as_default(), tf.Session() as s:
        meta = tf.saved_model.loader.load(s, ["serve"], export)
        sig = meta.signature_def["serving_default"]
        got = s.run(sig.outputs["y"].name, {sig.inputs["x"].name: ["bar", "q", "foo"]})
        assert got.tolist() == [1, -1, 0]


def test_tf_lookup_static_vocabulary_table(tmp_path):
    from tideflow.ops.string_hash_ops import fingerprint64

    path = _vocab(tmp_path, "emerson\nlake\npalmer\n")
    with tf.Graph().as_default():
        init = tf.lookup.TextFileInitializer(path, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE,
                                             tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER)
        table = tf.lookup.StaticVocabularyTable(init, num_oov_buckets=4)
        out = table.lookup(tf.constant(["palmer", "crimson"]))
        with tf.Session() as s:
            s.run(tf.tables_initializer())
            assert s.run(out).tolist() == [2, 3 + fingerprint64(b"crimson") % 4]
            assert s.run(table.size()) == 7
        with pytest.raises(ValueError, match="oov_buckets must be > 0"):
            tf.lookup.StaticVocabularyTable(init, 0)
