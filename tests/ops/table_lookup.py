"""Op-table rows for the lookup-table ops (stateful: each row runs its own check; the full
semantics are in tests/test_lookup.py)."""

import os
import tempfile

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.ops import lookup_ops


def _check_static(t, value):
    assert t.get_shape().is_compatible_with(np.shape(value)), (t, np.shape(value))
    v = np.asarray(value)
    if v.dtype != object:
        assert tf.as_dtype(v.dtype) == t.dtype.base_dtype, (t, v.dtype)


def _check_hash_table():
    with tf.Graph().as_default():
        init = lookup_ops.KeyValueTensorInitializer(
            np.array([3, 7, 9], np.int64), np.array([0.5, 1.5, 2.5], np.float32))
        table = lookup_ops.HashTable(init, -1.0)
        assert table.table_ref.op.type == "HashTableV2"
        assert table.init.type == "InitializeTableV2"
        keys = tf.placeholder(tf.int64, [2, 2])
        found, size = table.lookup(keys), table.size()
        assert found.op.type == "LookupTableFindV2" and size.op.type == "LookupTableSizeV2"
        with tf.Session() as s:
            assert s.run(size) == 0
            s.run(table.init)
            got = s.run([found, size], {keys: [[3, 4], [9, 7]]})
            _check_static(found, got[0])
            _check_static(size, got[1])
            np.testing.assert_array_equal(got[0], [[0.5, -1.0], [2.5, 1.5]])
            assert got[1] == 3


def _check_text_file_table():
    with tempfile.TemporaryDirectory() as d, tf.Graph().as_default():
        path = os.path.join(d, "vocab.txt")
        with open(path, "w") as f:
            f.write("a\t10\nb\t20\n")
        init = lookup_ops.TextFileInitializer(path, tf.string, 0, tf.int64, 1, delimiter="\t")
        table = lookup_ops.HashTable(init, -1)
        assert table.init.type == "InitializeTableFromTextFileV2"
        found = table.lookup(tf.constant(["b", "z", "a"]))
        with tf.Session() as s:
            s.run(table.init)
            got = s.run(found)
            _check_static(found, got)
            assert got.tolist() == [20, -1, 10]


CASES = [
    Case(("HashTableV2", "InitializeTableV2", "LookupTableFindV2", "LookupTableSizeV2"),
         name="HashTable", check=_check_hash_table),
    Case("InitializeTableFromTextFileV2", check=_check_text_file_table),
]


def _check_hash_bucket():
    from tideflow.ops.string_hash_ops import fingerprint64, string_to_hash_bucket_fast

    words = np.array([[b"a", b"Hello"], [b"", b"x" * 70]], dtype=object)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.string, [2, None])
        out = string_to_hash_bucket_fast(x, 7)
        assert out.op.type == "StringToHashBucketFast"
        with tf.Session() as s:
            got = s.run(out, {x: words})
    _check_static(out, got)
    assert got.tolist() == [[fingerprint64(w) % 7 for w in row] for row in words.tolist()]


CASES.append(Case("StringToHashBucketFast", check=_check_hash_bucket))
