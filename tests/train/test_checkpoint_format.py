"""The checkpoint format: dtype encodings, safetensors compatibility, checksums, atomic writes."""

import json
import os
import threading

import ml_dtypes
import numpy as np
import pytest

import tideflow as tf
from tideflow.train import checkpoint_format as cf

VALUES = {
    "f32": np.arange(6, dtype=np.float32).reshape(2, 3),
    "f64": np.array([1.5, -2.25]),
    "f16": np.array([0.5, 3], np.float16),
    "bf16": np.array([[1.5, -2], [3, 0.125]], ml_dtypes.bfloat16),
    "c64": np.array([1 + 2j, 3 - 4j], np.complex64),
    "c128": np.array([[1e300 + 1j]], np.complex128),
    "str": np.array([[b"x", b""], [b"yz", b"\x00q\xff"]], dtype=object),
    "bool": np.array([True, False, True]),
    "i8": np.array([-128, 127], np.int8),
    "u8": np.array([0, 255], np.uint8),
    "i16": np.array([-3], np.int16),
    "u16": np.array([65535], np.uint16),
    "i32": np.array([1, 2], np.int32),
    "u32": np.array([2**32 - 1], np.uint32),
    "i64": np.array([-(2**62)], np.int64),
    "u64": np.array([2**64 - 1], np.uint64),
    "scalar": np.float64(3.5),
    "empty": np.zeros((0, 3), np.int8),
    "empty_str": np.zeros((0,), dtype=object),
}


def _save(tmp_path, values=VALUES):
    prefix = str(tmp_path / "ckpt")
    cf.save(prefix, list(values), list(values.values()))
    return prefix


def test_round_trip_every_dtype(tmp_path):
    r = cf.Reader(_save(tmp_path))
    for name, v in VALUES.items():
        got = r.read(name)
        v = np.asarray(v)
        assert got.shape == v.shape, name
        assert got.dtype == v.dtype, name
        assert got.tolist() == v.tolist(), name
    assert r.dtype("bf16") == tf.bfloat16 and r.dtype("str") == tf.string
    assert r.shape("scalar") == []


def test_data_shard_is_safetensors(tmp_path):
    from safetensors import safe_open

    prefix = _save(tmp_path)
    with safe_open(cf.data_filename(prefix, 0, 1), framework="np") as f:
        keys = set(f.keys())
        np.testing.assert_array_equal(f.get_tensor("f32"), VALUES["f32"])
        pairs = f.get_tensor("c64:complex")
    assert {"c64:complex", "str:bytes", "str:offsets", "bf16"} <= keys
    np.testing.assert_array_equal(pairs[..., 0] + 1j * pairs[..., 1], VALUES["c64"])
    with open(cf.index_filename(prefix)) as f:
        index = json.load(f)
    assert index["tensors"]["c64"]["dtype"] == "complex64"
    assert index["tensors"]["c64"]["encoding"] == "complex"


def test_missing_checkpoint_names_the_path(tmp_path):
    with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files for .*nope"):
        cf.Reader(str(tmp_path / "nope"))


def _flip(path, offset):
    with open(path, "r+b") as f:
        f.seek(offset)
        b = f.read(1)
        f.seek(offset)
        f.write(bytes([b[0] ^ 0x01]))


def test_flipped_byte_is_data_loss(tmp_path):
    prefix = _save(tmp_path, {"w": np.arange(1000, dtype=np.float32)})
    data = cf.data_filename(prefix, 0, 1)
    _flip(data, os.path.getsize(data) - 100)
    r = cf.Reader(prefix)
    with pytest.raises(tf.errors.DataLossError, match=r"(?s)'w'.*data-00000-of-00001"):
        r.read("w")


def test_truncated_file_is_data_loss(tmp_path):
    prefix = _save(tmp_path, {"w": np.arange(1000, dtype=np.float32)})
    data = cf.data_filename(prefix, 0, 1)
    with open(data, "r+b") as f:
        f.truncate(os.path.getsize(data) - 10)
    with pytest.raises(tf.errors.DataLossError, match=r"(?s)truncated.*'w'|'w'.*truncated"):
        cf.Reader(prefix).read("w")


def test_corrupted_index_is_data_loss(tmp_path):
    prefix = _save(tmp_path, {"w": np.arange(10, dtype=np.float32)})
    path = cf.index_filename(prefix)
    with open(path) as f:
        text = f.read().replace('"shape": [\n    10', '"shape": [\n    11')
    with open(path, "w") as f:
        f.write(text)
    with pytest.raises(tf.errors.DataLossError, match="ckpt.index"):
        cf.Reader(prefix)


def test_missing_key(tmp_path):
    r = cf.Reader(_save(tmp_path, {"a": np.zeros(2)}))
    with pytest.raises(tf.errors.NotFoundError, match="Key w not found in checkpoint"):
        r.read("w")


def test_failed_write_leaves_no_file(tmp_path):
    path = tmp_path / "x"
    path.write_bytes(b"old")
    with pytest.raises(RuntimeError), cf.atomic_file(str(path)) as f:
        f.write(b"new")
        raise RuntimeError("boom")
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["x"]


def test_merge(tmp_path):
    a, b = str(tmp_path / "t" / "a"), str(tmp_path / "t" / "b")
    cf.save(a, ["x"], [np.ones(3)])
    cf.save(b, ["y"], [np.array([b"s"], dtype=object)])
    dest = str(tmp_path / "m")
    cf.merge([a, b], dest)
    r = cf.Reader(dest)
    assert r.num_shards == 2
    assert r.read("x").tolist() == [1, 1, 1] and r.read("y").tolist() == [b"s"]
    assert not os.path.exists(tmp_path / "t")
    assert sorted(os.listdir(tmp_path)) == ["m.data-00000-of-00002", "m.data-00001-of-00002",
                                            "m.index"]


def _crc32c_reference(data, crc=0):
    # bit by bit, the Castagnoli polynomial reflected
    crc ^= 0xFFFFFFFF
    for byte in bytes(data):
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def test_crc32c_known_values_and_extension():
    assert cf.crc32c(b"123456789") == 0xE3069283  # the standard check value
    assert cf.crc32c(b"") == 0
    data = np.random.RandomState(0).bytes(4099)
    assert cf.crc32c(data) == _crc32c_reference(data)
    assert cf.crc32c(data[50:], cf.crc32c(data[:50])) == _crc32c_reference(data)


def test_crc32c_of_arrays_and_views():
    a = np.random.RandomState(1).rand(300).astype(np.float32)
    assert cf.crc32c(a) == _crc32c_reference(a.tobytes())
    assert cf.crc32c(memoryview(a)[7:]) == _crc32c_reference(a[7:].tobytes())
    assert cf.crc32c(np.empty(0, np.uint8), 5) == 5


# ------------------------------------------------------------------------------------------
# slices
# ------------------------------------------------------------------------------------------

FULL = np.arange(6 * 5, dtype=np.int32).reshape(6, 5)


def _save_slices(prefix, boxes, full=FULL, name="t"):
    specs = [cf.slice_spec_string(full.shape, box) for box in boxes]
    values = [full[tuple(slice(s, s + n) for s, n in box)] for box in boxes]
    cf.save(prefix, [name] * len(boxes), values, specs=specs)


def test_parse_slice_spec():
    assert cf.parse_slice_spec("") == (None, None)
    assert cf.parse_slice_spec("10 4 0,5:-") == ([10, 4], [(0, 5), (0, 4)])
    assert cf.slice_spec_string([10, 4], [(0, 5), (1, 3)]) == "10 4 0,5:1,3"
    for bad in ("10 4 0,5", "10 x 0,5:-", "10 4 0,11:-", "10 4 -1,2:-", "4 0;1"):
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid shape_and_slice"):
            cf.parse_slice_spec(bad)


def test_slices_read_back_whole_and_in_any_box(tmp_path):
    prefix = str(tmp_path / "c")
    boxes = [[(0, 2), (0, 5)], [(2, 3), (0, 2)], [(2, 3), (2, 3)], [(5, 1), (0, 5)]]
    _save_slices(prefix, boxes[::-1])  # any order
    r = cf.Reader(prefix)
    assert r.shape("t") == [6, 5] and r.dtype("t") == tf.int32
    assert [b for b, _ in r.pieces("t")] == boxes
    np.testing.assert_array_equal(r.read("t"), FULL)
    want = [[(1, 4), (1, 3)], [(2, 3), (0, 2)], [(0, 6), (4, 1)], [(3, 0), (0, 5)]]
    out = np.full((3, 2), -1, np.int32)
    got = r.read_many([("t", want[0], None), ("t", want[1], out), ("t", want[2], None),
                       ("t", want[3], None)])
    for box, value in zip(want, got):
        np.testing.assert_array_equal(value, FULL[tuple(slice(s, s + n) for s, n in box)])
    assert got[1] is out
    # a region the slices do not cover
    _save_slices(str(tmp_path / "part"), boxes[:2])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="sufficient slices for partitioned tensor t to restore in slice_spec: "
                             "2,2:0,5"):
        cf.Reader(str(tmp_path / "part")).read_many([("t", [(2, 2), (0, 5)], None)])


def test_slices_are_checksummed(tmp_path):
    prefix = str(tmp_path / "c")
    _save_slices(prefix, [[(0, 3), (0, 5)], [(3, 3), (0, 5)]])
    data = cf.data_filename(prefix, 0, 1)
    _flip(data, os.path.getsize(data) - 4)
    r = cf.Reader(prefix)
    np.testing.assert_array_equal(r.read_many([("t", [(0, 3), (0, 5)], None)])[0], FULL[:3])
    with pytest.raises(tf.errors.DataLossError, match="'t'"):
        r.read("t")


def test_bad_slices_are_invalid_argument(tmp_path):
    prefix = str(tmp_path / "c")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Slices \[0:4, 0:5\] and "
                                                              r"\[3:6, 0:5\] of tensor 't'"):
        _save_slices(prefix, [[(0, 4), (0, 5)], [(3, 3), (0, 5)]])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"'t'.*\[2, 5\].*\[3, 5\]"):
        cf.save(prefix, ["t"], [FULL[:3]], specs=["6 5 0,2:-"])
    with pytest.raises(tf.errors.InvalidArgumentError, match="both whole and as slices"):
        cf.save(prefix, ["t", "t"], [FULL, FULL[:3]], specs=["", "6 5 0,3:-"])
    with pytest.raises(tf.errors.InvalidArgumentError, match="disagree on its full shape"):
        cf.save(prefix, ["t", "t"], [FULL[:3], FULL[3:]], specs=["6 5 0,3:-", "7 5 3,3:-"])
    with pytest.raises(tf.errors.InvalidArgumentError, match="different dtypes"):
        cf.save(prefix, ["t", "t"], [FULL[:3], FULL[3:].astype(np.int64)],
                specs=["6 5 0,3:-", "6 5 3,3:-"])
    assert not os.path.exists(cf.index_filename(prefix))


def test_merge_lists_slices_of_every_shard(tmp_path):
    a, b, c = (str(tmp_path / "t" / x) for x in "abc")
    _save_slices(a, [[(0, 2), (0, 5)]])
    _save_slices(b, [[(2, 4), (0, 5)]])
    cf.save(c, ["x"], [np.ones(2)])
    dest = str(tmp_path / "m")
    cf.merge([a, b, c], dest)
    r = cf.Reader(dest)
    assert [p["shard"] for _, p in r.pieces("t")] == [0, 1]
    np.testing.assert_array_equal(r.read("t"), FULL)
    # overlapping slices from two shards, and one tensor saved whole twice
    _save_slices(a, [[(0, 3), (0, 5)]])
    _save_slices(b, [[(2, 4), (0, 5)]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="overlap"):
        cf.merge([a, b], dest)
    cf.save(a, ["x"], [np.ones(2)])
    cf.save(b, ["x"], [np.ones(2)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="more than one checkpoint"):
        cf.merge([a, b], dest)


def test_newer_index_version_is_refused(tmp_path):
    prefix = _save(tmp_path, {"w": np.zeros(2)})
    path = cf.index_filename(prefix)
    with open(path) as f:
        doc = json.load(f)
    doc["version"] = cf.VERSION + 1
    doc["checksum"] = cf._index_checksum(doc)
    with open(path, "w") as f:
        json.dump(doc, f)
    with pytest.raises(tf.errors.UnimplementedError, match="version"):
        cf.Reader(prefix)


def test_large_tensors_are_checksummed_during_the_io(tmp_path):
    import threading

    big = np.random.RandomState(2).rand(cf._PIPE_MIN // 8 + 12345)  # float64, > _PIPE_MIN
    prefix = _save(tmp_path, {"big": big, "small": np.arange(3)})
    with open(cf.index_filename(prefix)) as f:
        entry = json.load(f)["tensors"]["big"]
    assert entry["crc32c"] == cf.crc32c(big)
    r = cf.Reader(prefix)
    np.testing.assert_array_equal(r.read("big"), big)
    out = np.zeros_like(big)
    assert r.read_many([("big", None, out)])[0] is out
    np.testing.assert_array_equal(out, big)
    data = cf.data_filename(prefix, 0, 1)
    _flip(data, os.path.getsize(data) - 8 * 1000)
    with pytest.raises(tf.errors.DataLossError, match="'big'"):
        cf.Reader(prefix).read("big")
    assert not [t for t in threading.enumerate() if t.name == "tideflow-crc32c"]


def test_whole_tensors_are_read_side_by_side(tmp_path, monkeypatch):
    monkeypatch.setattr(cf, "_SIDE_BY_SIDE_MIN", 0)
    monkeypatch.setattr(cf, "READERS", 3)
    rng = np.random.RandomState(0)
    values = {f"v{i}": rng.standard_normal((50, 7 + i)).astype(np.float32) for i in range(9)}
    values["str"] = VALUES["str"]
    prefix = _save(tmp_path, values)
    reader = cf.Reader(prefix)
    threads_seen = set()
    read_piece = cf.Reader._read_piece

    other_started = threading.Event()

    def recording(self, *args, **kwargs):
        name = threading.current_thread().name
        threads_seen.add(name)
        if name == "tideflow-restore":
            other_started.set()
        else:  # the caller reads too, but leaves pieces to the other readers
            other_started.wait(10)
        return read_piece(self, *args, **kwargs)

    monkeypatch.setattr(cf.Reader, "_read_piece", recording)
    outs = {n: np.empty_like(v) for n, v in values.items() if n != "str"}
    got = reader.read_many([(n, None, outs.get(n)) for n in values])
    for (n, v), g in zip(values.items(), got):
        np.testing.assert_array_equal(g, v)
        if n in outs:
            assert g is outs[n]  # read straight into the buffer given
    assert "tideflow-restore" in threads_seen


def test_a_corrupted_tensor_read_side_by_side_is_data_loss(tmp_path, monkeypatch):
    monkeypatch.setattr(cf, "_SIDE_BY_SIDE_MIN", 0)
    rng = np.random.RandomState(1)
    values = {f"v{i}": rng.standard_normal((40, 5)).astype(np.float32) for i in range(6)}
    prefix = _save(tmp_path, values)
    path = cf.data_files(prefix)[0]
    with open(path, "rb") as f:
        header_len = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(header_len))
    start = 8 + header_len + header["v4"]["data_offsets"][0]
    with open(path, "r+b") as f:
        f.seek(start + 3)
        b = f.read(1)
        f.seek(start + 3)
        f.write(bytes([b[0] ^ 0x40]))
    with pytest.raises(tf.errors.DataLossError, match="'v4'"):
        cf.Reader(prefix).read_many([(n, None, None) for n in values])
