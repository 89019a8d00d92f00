"""Partitioned variables in checkpoints: saved as slices of one full tensor, restored into any
partitioning; and restores that read straight into the variables' buffers."""

import json
import os

import numpy as np
import pytest

import tideflow as tf
from tideflow.ops import checkpoint_ops
from tideflow.ops.partitioned_variables import PartitionedVariable
from tideflow.train import checkpoint_utils
from tideflow.train.saver import Saver

FULL = np.arange(10 * 4, dtype=np.float32).reshape(10, 4)


def _partitioner(kind, axis=0):
    if kind is None:
        return None
    if kind == "min_max":
        return tf.min_max_variable_partitioner(max_partitions=3, axis=axis, min_slice_size=16)
    if kind == "axis_size":
        return tf.variable_axis_size_partitioner(max_shard_bytes=48, axis=axis)
    return tf.fixed_size_partitioner(kind, axis=axis)


def _emb(kind, shape=(10, 4), value=None, axis=0, name="emb"):
    init = tf.constant(value) if value is not None else None
    return tf.get_variable(name, shape=None if value is not None else list(shape),
                           initializer=init, partitioner=_partitioner(kind, axis))


def _parts(v):
    return list(v) if isinstance(v, PartitionedVariable) else [v]


def _full_value(sess, v):
    if isinstance(v, PartitionedVariable):
        return sess.run(v.as_tensor())
    return sess.run(v)


def _save_emb(tmp_path, kind, value=FULL, axis=0, var_list=None, name="m"):
    with tf.Graph().as_default():
        v = _emb(kind, value=value, axis=axis)
        saver = Saver(var_list(v) if var_list else None)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return saver.save(sess, str(tmp_path / name), write_meta_graph=False)


def test_parts_are_saved_as_slices_of_one_tensor(tmp_path):
    path = _save_emb(tmp_path, 3)
    reader = checkpoint_utils.NewCheckpointReader(path)
    assert reader.get_variable_to_shape_map() == {"emb": [10, 4]}
    assert reader.has_tensor("emb") and not reader.has_tensor("emb/part_0")
    np.testing.assert_array_equal(reader.get_tensor("emb"), FULL)
    assert checkpoint_utils.list_variables(path) == [("emb", [10, 4])]
    np.testing.assert_array_equal(checkpoint_utils.load_variable(path, "emb"), FULL)
    np.testing.assert_array_equal(tf.train.load_variable(path, "emb:0"), FULL)
    with open(path + ".index") as f:
        entry = json.load(f)["tensors"]["emb"]
    assert [(s["offset"], s["shape"]) for s in entry["slices"]] == [
        ([0, 0], [4, 4]), ([4, 0], [3, 4]), ([7, 0], [3, 4])]
    # TF 1.15 lists a sliced tensor as its slices, each under its binary bundle key
    assert reader.debug_string() == (
        b"\x00emb\x00\x01\x01\x02\x80\x84\x80\x84 (DT_FLOAT) [4,4]\n"
        b"\x00emb\x00\x01\x01\x02\x84\x83\x80\x84 (DT_FLOAT) [3,4]\n"
        b"\x00emb\x00\x01\x01\x02\x87\x83\x80\x84 (DT_FLOAT) [3,4]\n")


def test_slice_specs_reach_save_v2(tmp_path):
    with tf.Graph().as_default() as g:
        pv = _emb(3)
        assert [v._get_save_slice_info().spec for v in pv] == [
            "10 4 0,4:0,4", "10 4 4,3:0,4", "10 4 7,3:0,4"]
        Saver()
        (save,) = [op for op in g.get_operations() if op.type == "SaveV2"]
        with tf.Session() as sess:
            names, slices = sess.run([save.inputs[1], save.inputs[2]])
    assert names.tolist() == [b"emb", b"emb", b"emb"]
    assert slices.tolist() == [b"10 4 0,4:0,4", b"10 4 4,3:0,4", b"10 4 7,3:0,4"]


@pytest.mark.parametrize("saved,restored", [
    (3, 3), (3, 2), (2, 3), (3, None), (None, 3), (1, 4), ("min_max", "axis_size"),
    ("axis_size", None),
])
def test_restore_into_any_partitioning(tmp_path, saved, restored):
    path = _save_emb(tmp_path, saved)
    with tf.Graph().as_default():
        v = _emb(restored)
        saver = Saver()
        with tf.Session() as sess:
            saver.restore(sess, path)  # uninitialized variables
            np.testing.assert_array_equal(_full_value(sess, v), FULL)
            sess.run([p.assign(tf.zeros_like(p)) for p in _parts(v)])
            saver.restore(sess, path)  # initialized ones
            np.testing.assert_array_equal(_full_value(sess, v), FULL)


def test_partitioned_along_axis_one(tmp_path):
    path = _save_emb(tmp_path, 2, axis=1)
    np.testing.assert_array_equal(checkpoint_utils.load_variable(path, "emb"), FULL)
    with tf.Graph().as_default():
        v = _emb(3, axis=0)
        with tf.Session() as sess:
            Saver().restore(sess, path)
            np.testing.assert_array_equal(_full_value(sess, v), FULL)


@pytest.mark.parametrize("form", ["list", "dict", "dict_of_parts"])
def test_var_list_forms(tmp_path, form):
    def var_list(pv):
        if form == "list":
            return [pv]
        if form == "dict":
            return {"renamed/emb": pv}
        return {"renamed/emb": list(pv)}

    path = _save_emb(tmp_path, 3, var_list=var_list)
    name = "emb" if form == "list" else "renamed/emb"
    assert checkpoint_utils.list_variables(path) == [(name, [10, 4])]
    with tf.Graph().as_default():
        v = _emb(2)
        saver = Saver(var_list(v))
        with tf.Session() as sess:
            saver.restore(sess, path)
            np.testing.assert_array_equal(_full_value(sess, v), FULL)


def test_mixing_slices_and_whole_variable_is_an_error():
    with tf.Graph().as_default():
        pv = _emb(2)
        other = _emb(2, name="other")
        with pytest.raises(ValueError, match="Slices must all be from the same tensor"):
            Saver({"x": [next(iter(pv)), next(iter(other))]})
        with pytest.raises(ValueError, match="At least two variables have the same name: emb"):
            Saver([tf.Variable(1.0, name="emb"), *pv])
        plain = tf.Variable([1.0], name="a")
        part = tf.Variable([1.0], name="b")
        part._set_save_slice_info(tf.Variable.SaveSliceInfo("a", [2], [0], [1]))
        with pytest.raises(ValueError, match="Mixing slices and non-slices with the same name: a"):
            Saver([plain, part])
        with pytest.raises(ValueError, match="Slices must all be slices"):
            Saver({"x": [tf.Variable([1.0], name="plain")]})


def test_sharded_save_with_parts_on_several_devices(tmp_path):
    config = tf.ConfigProto(device_count={"CPU": 3})
    with tf.Graph().as_default():
        devices = iter(["/cpu:0", "/cpu:1", "/cpu:2"])
        with tf.device(lambda op: next(devices) if op.type == "VariableV2" else ""):
            pv = _emb(3, value=FULL)
        # a device function's answer stays as written, as TF
        assert sorted({v.device for v in pv}) == ["/cpu:0", "/cpu:1", "/cpu:2"]
        saver = Saver(sharded=True)
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "m"), write_meta_graph=False)
            sess.run([p.assign(tf.zeros_like(p)) for p in pv])
            saver.restore(sess, path)
            np.testing.assert_array_equal(_full_value(sess, pv), FULL)
    assert sorted(f for f in os.listdir(tmp_path) if ".data-" in f) == [
        f"m.data-0000{i}-of-00003" for i in range(3)]
    np.testing.assert_array_equal(checkpoint_utils.load_variable(path, "emb"), FULL)
    # into two parts on two other devices, and into one variable
    with tf.Graph().as_default():
        devices = iter(["/cpu:2", "/cpu:1"])
        with tf.device(lambda op: next(devices) if op.type == "VariableV2" else ""):
            pv = _emb(2)
        with tf.Session(config=config) as sess:
            Saver(sharded=True).restore(sess, path)
            np.testing.assert_array_equal(_full_value(sess, pv), FULL)


def test_full_shape_mismatch_names_variable_and_shapes(tmp_path):
    path = _save_emb(tmp_path, 3)
    with tf.Graph().as_default():
        _emb(2, shape=(11, 4))
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as e:
            Saver().restore(sess, path)
    msg = str(e.value)  # TF 1.15's words
    assert ("tensor_name = emb; shape in shape_and_slice spec [11,4] does not match the shape "
            "stored in checkpoint: [10,4]") in msg
    with tf.Graph().as_default():
        _emb(None, shape=(10, 5))
        with tf.Session() as sess, pytest.raises(
                tf.errors.InvalidArgumentError,
                match=r"lhs shape= \[10,5\] rhs shape= \[10,4\]"):
            Saver().restore(sess, path)


def test_slices_not_covering_the_request_are_insufficient(tmp_path):
    # TF 1.15's class and words, with the requested slice spec ("-" for a whole read)
    path = _save_emb(tmp_path, 3, var_list=lambda pv: [next(iter(pv))])
    assert checkpoint_utils.list_variables(path) == [("emb", [10, 4])]
    with tf.Graph().as_default():
        _emb(2)
        with tf.Session() as sess, pytest.raises(
                tf.errors.InvalidArgumentError,
                match="sufficient slices for partitioned tensor emb to restore in slice_spec: "
                      "0,5:0,4"):
            Saver().restore(sess, path)
    with pytest.raises(tf.errors.InvalidArgumentError, match="slice_spec: -:-$"):
        checkpoint_utils.load_variable(path, "emb")


def test_init_from_checkpoint_with_partitioned_variables(tmp_path):
    sliced = _save_emb(tmp_path, 3, name="sliced")
    whole = _save_emb(tmp_path, None, name="whole")
    with tf.Graph().as_default():
        with tf.variable_scope("a"):
            by_name = _emb(2)
        with tf.variable_scope("b"):
            by_object = _emb(4)
        with tf.variable_scope("c"):
            by_scope = _emb(3)
        plain = tf.get_variable("plain", [10, 4])
        checkpoint_utils.init_from_checkpoint(sliced, {"emb": "a/emb"})
        checkpoint_utils.init_from_checkpoint(whole, {"emb": by_object})
        checkpoint_utils.init_from_checkpoint(sliced, {"/": "c/"})
        checkpoint_utils.init_from_checkpoint(sliced, {"emb": plain})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for v in (by_name, by_object, by_scope, plain):
                np.testing.assert_array_equal(_full_value(sess, v), FULL)
        with tf.variable_scope("d"):
            wrong = _emb(2, shape=(12, 4))
        with pytest.raises(ValueError, match=r"d/emb.*\[12, 4\].*\[10, 4\]"):
            checkpoint_utils.init_from_checkpoint(sliced, {"emb": wrong})


def test_meta_graph_round_trip_keeps_slices(tmp_path):
    with tf.Graph().as_default():
        pv = _emb(3, value=FULL)
        saver = Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "m"))
    for scope in (None, "imported"):
        with tf.Graph().as_default():
            restorer = tf.train.import_meta_graph(path + ".meta", import_scope=scope)
            parts = tf.global_variables()
            prefix = f"{scope}/" if scope else ""
            infos = [p._get_save_slice_info() for p in parts]
            assert [i.full_name for i in infos] == [prefix + "emb"] * 3
            assert [i.spec for i in infos] == ["10 4 0,4:0,4", "10 4 4,3:0,4", "10 4 7,3:0,4"]
            with tf.Session() as sess:
                restorer.restore(sess, path)
                np.testing.assert_array_equal(np.concatenate(sess.run(parts)), FULL)
    with tf.Graph().as_default():
        tf.train.import_meta_graph(path + ".meta")
        with tf.Session() as sess:  # a new Saver over the imported parts
            Saver().restore(sess, path)
            np.testing.assert_array_equal(np.concatenate(sess.run(tf.global_variables())), FULL)
    del pv


def test_string_and_complex_partitioned_variables(tmp_path):
    strings = np.array([[b"a", b""], [b"bc", b"d"], [b"\x00e", b"f"]], dtype=object)
    cplx = (np.arange(6) + 1j * np.arange(6)).astype(np.complex64).reshape(3, 2)
    with tf.Graph().as_default():
        s = tf.get_variable("s", initializer=tf.constant(strings), dtype=tf.string,
                            partitioner=tf.fixed_size_partitioner(2))
        c = tf.get_variable("c", initializer=tf.constant(cplx),
                            partitioner=tf.fixed_size_partitioner(3))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = Saver().save(sess, str(tmp_path / "m"), write_meta_graph=False)
    reader = checkpoint_utils.NewCheckpointReader(path)
    assert reader.get_tensor("s").tolist() == strings.tolist()
    np.testing.assert_array_equal(reader.get_tensor("c"), cplx)
    with tf.Graph().as_default():
        s = tf.get_variable("s", [3, 2], dtype=tf.string,
                            partitioner=tf.fixed_size_partitioner(3))
        c = tf.get_variable("c", [3, 2], dtype=tf.complex64,
                            initializer=tf.zeros_initializer())
        with tf.Session() as sess:
            Saver().restore(sess, path)
            assert sess.run(s.as_tensor()).tolist() == strings.tolist()
            np.testing.assert_array_equal(sess.run(c), cplx)


def test_restore_v2_reads_any_box_of_a_sliced_tensor(tmp_path):
    path = _save_emb(tmp_path, 3)
    with tf.Graph().as_default():
        out = checkpoint_ops.restore_v2(path, ["emb", "emb", "emb"],
                                        ["10 4 3,5:1,2", "", "10 4 -:3,1"], [tf.float32] * 3)
        assert [t.get_shape().as_list() for t in out[::2]] == [[5, 2], [10, 1]]
        with tf.Session() as sess:
            a, b, c = sess.run(out)
    np.testing.assert_array_equal(a, FULL[3:8, 1:3])
    np.testing.assert_array_equal(b, FULL)
    np.testing.assert_array_equal(c, FULL[:, 3:4])


# ------------------------------------------------------------------------------------------
# restores that read straight into the variables' buffers
# ------------------------------------------------------------------------------------------


def _buffer(sess, name):
    return sess._devices[0].resource_mgr.lookup("", name).buf


def _claimed(sess):
    return {op.name: [slot is not None for slot in t.slots]
            for (kind, op), t in ((k, v) for k, v in sess._session_state.items()
                                  if isinstance(k, tuple) and k[0] == "_write_into")}


def test_restore_reads_into_the_variable_buffers(tmp_path):
    with tf.Graph().as_default():
        w = tf.Variable(np.arange(50000, dtype=np.float32), name="w")
        s = tf.Variable(["x", "y"], name="s")
        saver = Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "m"), write_meta_graph=False)
            before = _buffer(sess, "w")
            sess.run(w.assign(tf.zeros_like(w)))
            saver.restore(sess, path)
            assert _claimed(sess) == {"save/RestoreV2": [True, True]}
            assert _buffer(sess, "w") is before
            np.testing.assert_array_equal(sess.run(w), np.arange(50000, dtype=np.float32))
            assert sess.run(s).tolist() == [b"x", b"y"]
        with tf.Session() as sess:  # uninitialized: the read buffer becomes the variable's
            saver.restore(sess, path)
            buf = _buffer(sess, "w")
            assert buf.base is not None  # a view, as every variable buffer
            fetched = sess.run(w)
            sess.run(w.assign_add(tf.ones_like(w)))
            np.testing.assert_array_equal(fetched, np.arange(50000, dtype=np.float32))
            np.testing.assert_array_equal(sess.run(w), np.arange(50000, dtype=np.float32) + 1)


def test_restored_tensor_with_other_consumers_is_not_aliased(tmp_path):
    with tf.Graph().as_default():
        w = tf.Variable(np.arange(6, dtype=np.float32), name="w")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = Saver().save(sess, str(tmp_path / "m"), write_meta_graph=False)
        (restored,) = checkpoint_ops.restore_v2(path, ["w"], [""], [tf.float32])
        assign = tf.assign(w, restored)
        doubled = restored * 2  # a second consumer: the Assign must copy
        (only,) = checkpoint_ops.restore_v2(path, ["w"], [""], [tf.float32], name="only")
        assign_only = tf.assign(w, only)
        with tf.Session() as sess:
            sess.run(w.initializer)
            sess.run(w.assign(tf.zeros_like(w)))
            _, d, r = sess.run([assign, doubled, restored])
            assert not any(_claimed(sess).get(restored.op.name, []))
            np.testing.assert_array_equal(d, np.arange(6) * 2)
            np.testing.assert_array_equal(r, np.arange(6))
            np.testing.assert_array_equal(sess.run(w), np.arange(6))
            # fetching the restored tensor alone never touches the variable
            sess.run(w.assign(tf.zeros_like(w)))
            np.testing.assert_array_equal(sess.run(only), np.arange(6))
            np.testing.assert_array_equal(sess.run(w), np.zeros(6))
            # fetched with its Assign: the fetch is a copy, not the variable's buffer
            _, got = sess.run([assign_only, only])
            assert _claimed(sess)["only"] == [True]
            sess.run(w.assign_add(tf.ones_like(w)))
            np.testing.assert_array_equal(got, np.arange(6))
            np.testing.assert_array_equal(sess.run(w), np.arange(6) + 1)


def test_corrupted_checkpoint_read_into_buffers_is_data_loss(tmp_path):
    with tf.Graph().as_default():
        w = tf.Variable(np.arange(1000, dtype=np.float32), name="w")
        saver = Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "m"), write_meta_graph=False)
            with open(path + ".data-00000-of-00001", "r+b") as f:
                f.seek(-100, os.SEEK_END)
                b = f.read(1)
                f.seek(-100, os.SEEK_END)
                f.write(bytes([b[0] ^ 1]))
            with pytest.raises(tf.errors.DataLossError, match="'w'"):
                saver.restore(sess, path)
        del w
