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
        # as TF 1.15, the initializer imports its entries
        assert table.init.type == "LookupTableImportV2"
        raw = lookup_ops.HashTable(init, -1.0)
        raw_init = tf.raw_ops.InitializeTableV2(table_handle=raw.resource_handle,
                                                keys=init._keys, values=init._values)
        assert raw_init.type == "InitializeTableV2"
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
            s.run(raw_init)
            assert s.run(raw.lookup(tf.constant([9], tf.int64))).tolist() == [2.5]


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


def _check_mutable_tables():
    # insert/remove/export/import against a Python dict; static shapes against the results
    with tf.Graph().as_default():
        scalar = lookup_ops.MutableHashTable(tf.int64, tf.float32, -1.0)
        vector = lookup_ops.MutableHashTable(tf.string, tf.int32, [0, 0, -1], name="vec")
        assert scalar.resource_handle.op.type == "MutableHashTableV2"
        assert vector.resource_handle.op.type == "MutableHashTableOfTensorsV2"
        ins = scalar.insert(tf.constant([[4, 8], [15, 16]], tf.int64),
                            tf.constant([[0.5, 1.5], [2.5, 3.5]]))
        ins_v = vector.insert(tf.constant(["a", "b"]), tf.constant([[1, 2, 3], [4, 5, 6]]))
        rm = scalar.remove(tf.constant([8, 99], tf.int64))
        keys, values = scalar.export()
        keys_v, values_v = vector.export()
        found = scalar.lookup(tf.constant([15, 8, 4], tf.int64))
        found_v = vector.lookup(tf.constant([["b"], ["z"]]))
        imp = tf.raw_ops.LookupTableImportV2(
            table_handle=scalar.resource_handle, keys=tf.constant([1, 2], tf.int64),
            values=tf.constant([10.0, 20.0]))
        assert ins.type == "LookupTableInsertV2" and rm.type == "LookupTableRemoveV2"
        assert keys.op.type == "LookupTableExportV2"
        with tf.Session() as s:
            s.run([ins, ins_v])
            s.run(rm)
            got = s.run([keys, values, keys_v, values_v, found, found_v])
            for t, v in zip([keys, values, keys_v, values_v, found, found_v], got):
                _check_static(t, v)
            ref = {4: 0.5, 15: 2.5, 16: 3.5}
            assert dict(zip(got[0].tolist(), got[1].tolist())) == ref
            assert dict(zip(got[2].tolist(), got[3].tolist())) == {b"a": [1, 2, 3],
                                                                    b"b": [4, 5, 6]}
            assert got[4].tolist() == [2.5, -1.0, 0.5]
            assert got[5].tolist() == [[[4, 5, 6]], [[0, 0, -1]]]
            s.run(imp)  # replaces the whole content
            assert sorted(s.run(keys).tolist()) == [1, 2]
            assert s.run(scalar.size()) == 2


CASES.append(Case(("MutableHashTableV2", "MutableHashTableOfTensorsV2", "LookupTableInsertV2",
                   "LookupTableRemoveV2", "LookupTableExportV2", "LookupTableImportV2"),
                  name="MutableHashTable", check=_check_mutable_tables))


def _check_dense_hash_table():
    # insert/lookup/remove against a Python dict; ImportV2 of exported buckets; static shapes
    from tideflow.ops.dense_hash_table_ops import DenseHashTable

    with tf.Graph().as_default():
        t = DenseHashTable(tf.int64, tf.float32, [0.0, -1.0], empty_key=-1, deleted_key=-2,
                           initial_num_buckets=4)
        assert t.resource_handle.op.type == "MutableDenseHashTableV2"
        keys = np.arange(0, 40, 3, dtype=np.int64)
        ins = t.insert(tf.constant(keys), tf.constant(np.stack([keys, -keys], 1), tf.float32))
        rm = t.remove(tf.constant([3, 9, 100], tf.int64))
        found = t.lookup(tf.constant([0, 3, 6, 100], tf.int64))
        exp_k, exp_v = t.export()
        with tf.Session() as s:
            s.run(ins)
            s.run(rm)
            got = s.run(found)
            _check_static(found, got)
            ref = {int(k): [float(k), -float(k)] for k in keys if k not in (3, 9)}
            assert got.tolist() == [ref[0], [0.0, -1.0], ref[6], [0.0, -1.0]]
            k, v = s.run([exp_k, exp_v])
            # 13 keys grew 4 buckets to 32 (13 > 0.8 * 16); free and removed buckets hold the
            # empty and deleted keys
            assert k.shape == (32, 1) and v.shape == (32, 2)
            live = {int(a): b.tolist() for a, b in zip(k[:, 0], v) if a >= 0}
            assert live == ref and int((k == -2).sum()) == 2
            assert s.run(t.size()) == len(ref)
            s.run(tf.raw_ops.LookupTableImportV2(table_handle=t.resource_handle,
                                                 keys=tf.constant(k),
                                                 values=tf.constant(v)))
            assert s.run(t.size()) == len(ref)


CASES.append(Case("MutableDenseHashTableV2", name="DenseHashTable",
                  check=_check_dense_hash_table))
