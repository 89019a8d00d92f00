"""Op-table rows for the checkpoint ops (stateful: each row checks real files)."""

import os
import tempfile

import numpy as np
import pytest

import tideflow as tf
from tests.ops.optable import Case
from tideflow.ops import checkpoint_ops as co


def _values():
    return [np.arange(6, dtype=np.float32).reshape(2, 3), np.array([b"a", b"bc"], dtype=object),
            np.array(7, np.int64)]


def _check_save_restore_v2():
    with tempfile.TemporaryDirectory() as d, tf.Graph().as_default():
        prefix = os.path.join(d, "ckpt")
        vals = _values()
        save = co.save_v2(prefix, ["f", "s", "i"], ["", "", ""], [tf.constant(v) for v in vals])
        assert save.type == "SaveV2" and not save.outputs
        restored = co.restore_v2(prefix, ["s", "f", "f", "i"], ["", "", "2 3 1,1:0,2", ""],
                                 [tf.string, tf.float32, tf.float32, tf.int64])
        assert restored[2].get_shape().as_list() == [1, 2]
        assert restored[0].get_shape().ndims is None
        bad = co.restore_v2(prefix, ["f"], [""], [tf.int32])
        missing = co.restore_v2(prefix, ["nope"], [""], [tf.int32])
        with tf.Session() as sess:
            sess.run(save)
            s, f, sl, i = sess.run(restored)
            assert s.tolist() == [b"a", b"bc"] and f.tolist() == vals[0].tolist()
            assert sl.tolist() == [[3.0, 4.0]] and i == 7
            for t, v in zip(restored, (s, f, sl, i)):
                assert t.get_shape().is_compatible_with(np.shape(v))
            with pytest.raises(tf.errors.InvalidArgumentError, match="expected dtype int32"):
                sess.run(bad)
            with pytest.raises(tf.errors.NotFoundError, match="Key nope not found"):
                sess.run(missing)


def _check_slices():
    with tempfile.TemporaryDirectory() as d, tf.Graph().as_default():
        prefix = os.path.join(d, "ckpt")
        full = np.arange(12, dtype=np.float32).reshape(4, 3)
        save = co.save_v2(prefix, ["t", "t"], ["4 3 0,1:-", "4 3 1,3:-"],
                          [tf.constant(full[:1]), tf.constant(full[1:])])
        restored = co.restore_v2(prefix, ["t", "t"], ["", "4 3 0,2:1,2"], [tf.float32] * 2)
        assert restored[1].get_shape().as_list() == [2, 2]
        wrong = co.restore_v2(prefix, ["t"], ["5 3 0,2:-"], [tf.float32])
        bad_slice = co.save_v2(prefix, ["u"], ["4 3 0,2:-"], [tf.constant(full)])
        with tf.Session() as sess:
            sess.run(save)
            whole, box = sess.run(restored)
            np.testing.assert_array_equal(whole, full)
            np.testing.assert_array_equal(box, full[0:2, 1:3])
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[5,3\].*\[4,3\]"):
                sess.run(wrong)
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"'u'.*\[2, 3\].*\[4, 3\]"):
                sess.run(bad_slice)


def _check_merge():
    with tempfile.TemporaryDirectory() as d, tf.Graph().as_default():
        a, b, dest = (os.path.join(d, "tmp", "a"), os.path.join(d, "tmp", "b"),
                      os.path.join(d, "m"))
        s1 = co.save_v2(a, ["x"], [""], [tf.constant([1.0])])
        s2 = co.save_v2(b, ["y"], [""], [tf.constant([2])])
        merge = co.merge_v2_checkpoints([a, b], dest)
        assert merge.type == "MergeV2Checkpoints" and merge.get_attr("delete_old_dirs")
        restore = co.restore_v2(dest, ["x", "y"], ["", ""], [tf.float32, tf.int32])
        with tf.Session() as sess:
            sess.run([s1, s2])
            sess.run(merge)
            x, y = sess.run(restore)
        assert x.tolist() == [1.0] and y.tolist() == [2]
        assert sorted(os.listdir(d)) == ["m.data-00000-of-00002", "m.data-00001-of-00002",
                                         "m.index"]


def _check_sharded_names():
    with tf.Graph().as_default():
        name = co.sharded_filename("p", 1, 3)
        spec = co.sharded_filespec("p", 3)
        assert name.get_shape().ndims == 0
        with tf.Session() as sess:
            assert sess.run(name) == b"p-00001-of-00003"
            assert sess.run(spec) == b"p-?????-of-00003"


def _check_legacy():
    with tempfile.TemporaryDirectory() as d, tf.Graph().as_default():
        f1, f2 = os.path.join(d, "v1"), os.path.join(d, "v1s")
        save = co.save(f1, ["a", "b"], [tf.constant([1.0, 2.0]), tf.constant(3)])
        slices = co.save_slices(f2, ["c"], [""], [tf.constant([[1, 2], [3, 4]])])
        r = co.restore(f1, "a", tf.float32)
        rs = co.restore_slice(f2, "c", "2 2 1,1:-", tf.int32)
        with tf.Session() as sess:
            sess.run([save, slices])
            assert sess.run(r).tolist() == [1.0, 2.0]
            assert sess.run(rs).tolist() == [[3, 4]]


CASES = [
    Case(("SaveV2", "RestoreV2"), check=_check_save_restore_v2, grad=False),
    Case(("SaveV2", "RestoreV2"), check=_check_slices, grad=False),
    Case("MergeV2Checkpoints", check=_check_merge, grad=False),
    Case(("ShardedFilename", "ShardedFilespec"), check=_check_sharded_names, grad=False),
    Case(("Save", "SaveSlices", "Restore", "RestoreSlice"), check=_check_legacy, grad=False),
]
