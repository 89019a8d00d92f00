"""Readers over real temporary files (TFRecord plain/GZIP/ZLIB, text lines, fixed-length
records, whole files, identity), their counters and reset, and ReadFile/WriteFile/MatchingFiles."""

import gzip
import os

import numpy as np
import pytest

import tideflow as tf
from tideflow.framework import record_io
from tideflow.ops import data_flow_ops as dfo
from tideflow.ops import io_ops


def _filename_queue(files, close=True):
    q = dfo.FIFOQueue(99, [tf.string], shapes=())
    ops_ = [q.enqueue_many([[str(f) for f in files]])]
    if close:
        ops_.append(q.close())
    return q, ops_


def _read_all(sess, key, value):
    out = []
    while True:
        try:
            out.append(tuple(sess.run([key, value])))
        except tf.errors.OutOfRangeError:
            return out


def _write_tfrecords(path, records, options=None):
    with record_io.TFRecordWriter(str(path), options) as w:
        for r in records:
            w.write(r)


@pytest.mark.parametrize("compression", [None, "GZIP", "ZLIB"])
def test_tf_record_reader(tmp_path, compression):
    files = [tmp_path / f"data{i}.tfrecord" for i in range(2)]
    for i, f in enumerate(files):
        _write_tfrecords(f, [f"rec{i}{j}".encode() * (j + 1) for j in range(3)],
                         record_io.TFRecordOptions(compression) if compression else None)
    with tf.Graph().as_default():
        q, init = _filename_queue(files)
        reader = io_ops.TFRecordReader(
            options=record_io.TFRecordOptions(compression) if compression else None)
        key, value = reader.read(q)
        assert key.get_shape().as_list() == [] and value.dtype == tf.string
        with tf.Session() as s:
            s.run(init)
            got = _read_all(s, key, value)
            assert [v for _, v in got] == [f"rec{i}{j}".encode() * (j + 1)
                                           for i in range(2) for j in range(3)]
            # keys are "file:offset" of each record
            assert got[0][0] == f"{files[0]}:0".encode()
            assert got[1][0] == f"{files[0]}:{16 + 5}".encode()
            assert s.run(reader.num_records_produced()) == 6
            assert s.run(reader.num_work_units_completed()) == 2


def test_text_line_reader_skip_header(tmp_path):
    f1, f2 = tmp_path / "a.csv", tmp_path / "b.csv"
    f1.write_bytes(b"header\n1,2\n3,4\r\n5,6")
    f2.write_bytes(b"header\n7,8\n")
    with tf.Graph().as_default():
        q, init = _filename_queue([f1, f2])
        reader = io_ops.TextLineReader(skip_header_lines=1)
        key, value = reader.read(q)
        with tf.Session() as s:
            s.run(init)
            got = _read_all(s, key, value)
            assert [v for _, v in got] == [b"1,2", b"3,4", b"5,6", b"7,8"]
            assert [k for k, _ in got] == [f"{f1}:2".encode(), f"{f1}:3".encode(),
                                           f"{f1}:4".encode(), f"{f2}:2".encode()]


def test_fixed_length_record_reader(tmp_path):
    f = tmp_path / "fixed.bin"
    f.write_bytes(b"HH" + b"aaa" + b"bbb" + b"ccc" + b"x" + b"FFFF")
    g = tmp_path / "hop.bin"
    g.write_bytes(b"abcdef")
    z = tmp_path / "fixed.gz"
    z.write_bytes(gzip.compress(b"HH" + b"123" + b"456" + b"FFFF"))
    with tf.Graph().as_default():
        q, init = _filename_queue([f])
        reader = io_ops.FixedLengthRecordReader(3, header_bytes=2, footer_bytes=4)
        key, value = reader.read(q)
        q2, init2 = _filename_queue([g])
        hop = io_ops.FixedLengthRecordReader(3, hop_bytes=1)
        k2, v2 = hop.read(q2)
        q3, init3 = _filename_queue([z])
        gz = io_ops.FixedLengthRecordReader(3, header_bytes=2, footer_bytes=4, encoding="GZIP")
        k3, v3 = gz.read(q3)
        with tf.Session() as s:
            s.run(init + init2 + init3)
            got = _read_all(s, key, value)
            assert [v for _, v in got] == [b"aaa", b"bbb", b"ccc"]
            assert [k for k, _ in got] == [f"{f}:{i}".encode() for i in range(3)]
            assert [v for _, v in _read_all(s, k2, v2)] == [b"abc", b"bcd", b"cde", b"def"]
            assert [v for _, v in _read_all(s, k3, v3)] == [b"123", b"456"]


def test_whole_file_and_identity_readers(tmp_path):
    files = [tmp_path / f"w{i}" for i in range(3)]
    for i, f in enumerate(files):
        f.write_bytes(bytes([i]) * (i + 1))
    with tf.Graph().as_default():
        q, init = _filename_queue(files)
        reader = io_ops.WholeFileReader()
        key, value = reader.read(q)
        iq = dfo.FIFOQueue(99, [tf.string], shapes=())
        ident = io_ops.IdentityReader()
        ik, iv = ident.read(iq)
        with tf.Session() as s:
            s.run(init)
            got = _read_all(s, key, value)
            assert got == [(str(f).encode(), bytes([i]) * (i + 1)) for i, f in enumerate(files)]
            assert s.run(reader.num_work_units_completed()) == 3
            s.run(iq.enqueue_many([["A", "B"]]))
            assert s.run([ik, iv]) == [b"A", b"A"]
            assert s.run(ident.num_records_produced()) == 1
            assert s.run(ident.num_work_units_completed()) == 1
            s.run(iq.close())
            assert s.run(iv) == b"B"
            with pytest.raises(tf.errors.OutOfRangeError,
                               match=r"is closed and has insufficient elements "
                                     r"\(requested 1, current size 0\)"):
                s.run([ik, iv])
            s.run(ident.reset())
            assert s.run(ident.num_records_produced()) == 0
            # an IdentityReader's state is TF's ReaderBaseState proto (all zeros: no fields)
            assert s.run(ident.serialize_state()) == b""
            # so is a WholeFileReader's (TF 1.15): the counts and the last file read
            last = str(files[-1]).encode()
            assert s.run(reader.serialize_state()) == (
                b"\x08\x03\x10\x03\x18\x03\x22" + bytes([len(last)]) + last)


def test_read_up_to_stays_within_a_file(tmp_path):
    files = [tmp_path / f"t{i}.txt" for i in range(2)]
    files[0].write_text("a\nb\nc\n")
    files[1].write_text("d\ne\n")
    with tf.Graph().as_default():
        q, init = _filename_queue(files)
        reader = io_ops.TextLineReader()
        _, values = reader.read_up_to(q, 2)
        assert values.get_shape().as_list() == [None]
        with tf.Session() as s:
            s.run(init)
            batches = []
            while True:
                try:
                    batches.append(s.run(values).tolist())
                except tf.errors.OutOfRangeError:
                    break
            assert batches == [[b"a", b"b"], [b"c"], [b"d", b"e"]]


def test_reader_reads_when_filenames_arrive_later(tmp_path):
    f = tmp_path / "late.txt"
    f.write_text("x\n")
    with tf.Graph().as_default():
        q = dfo.FIFOQueue(9, [tf.string], shapes=())
        _, value = io_ops.TextLineReader().read(q)
        with tf.Session() as s:
            with pytest.raises(tf.errors.DeadlineExceededError):
                s.run(value, options=tf.RunOptions(timeout_in_ms=100))
            s.run(q.enqueue(str(f)))
            assert s.run(value) == b"x"


def test_missing_file_is_not_found(tmp_path):
    with tf.Graph().as_default():
        q, init = _filename_queue([tmp_path / "nope.tfrecord"])
        _, value = io_ops.TFRecordReader().read(q)
        with tf.Session() as s:
            s.run(init)
            with pytest.raises(tf.errors.NotFoundError):
                s.run(value)


def test_read_write_matching_files(tmp_path):
    with tf.Graph().as_default():
        path = tf.placeholder(tf.string, [])
        write = io_ops.write_file(path, tf.constant(b"hello\x00world"))
        read = io_ops.read_file(path)
        match = io_ops.matching_files(str(tmp_path / "sub" / "*.bin"))
        assert match.get_shape().as_list() == [None]
        with tf.Session() as s:
            for name in ("b.bin", "a.bin", "c.txt"):
                s.run(write, {path: str(tmp_path / "sub" / name)})
            assert s.run(read, {path: str(tmp_path / "sub" / "a.bin")}) == b"hello\x00world"
            assert s.run(match).tolist() == [str(tmp_path / "sub" / n).encode()
                                             for n in ("a.bin", "b.bin")]
            with pytest.raises(tf.errors.NotFoundError):
                s.run(read, {path: str(tmp_path / "missing")})
    assert os.path.exists(tmp_path / "sub" / "c.txt")
    assert np.fromfile(tmp_path / "sub" / "c.txt", np.uint8).size == 11
