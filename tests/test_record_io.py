"""TFRecord files: framing bytes against the format's specification, compressed round trips,
and corruption reported as DataLossError naming the file and offset."""

import gzip
import struct
import zlib

import pytest

from tideflow import python_io
from tideflow.framework import errors, record_io


def _crc32c_reference(data):
    """Bitwise CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), straight from its spec."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def _mask(crc):
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _frame(data):
    header = struct.pack("<Q", len(data))
    return (header + struct.pack("<I", _mask(_crc32c_reference(header))) + data
            + struct.pack("<I", _mask(_crc32c_reference(data))))


def test_crc32c_check_value_and_mask():
    assert _crc32c_reference(b"123456789") == 0xE3069283  # the standard check value
    assert _mask(0xE3069283) == 0xC78AB0E5
    assert record_io.masked_crc32c(b"123456789") == 0xC78AB0E5
    assert record_io.masked_crc32c(b"") == _mask(0)


def test_record_framing_bytes():
    framed = record_io.encode_record(b"123456789")
    assert framed[:8] == b"\x09\x00\x00\x00\x00\x00\x00\x00"
    assert framed[8:12] == struct.pack("<I", _mask(_crc32c_reference(framed[:8])))
    assert framed[12:21] == b"123456789"
    assert framed[21:] == b"\xe5\xb0\x8a\xc7"  # 0xC78AB0E5 little-endian
    assert framed == _frame(b"123456789")
    assert record_io.encode_record(b"") == _frame(b"")


RECORDS = [b"first", b"", b"\x00\xff" * 300, "text é".encode()]


@pytest.mark.parametrize("compression", [None, "", "GZIP", "ZLIB",
                                         python_io.TFRecordCompressionType.GZIP])
def test_write_read_round_trip(tmp_path, compression):
    path = str(tmp_path / "data.tfrecord")
    options = python_io.TFRecordOptions(compression) if compression is not None else None
    with python_io.TFRecordWriter(path, options) as w:
        for r in RECORDS:
            w.write(r)
    assert list(python_io.tf_record_iterator(path, options)) == RECORDS
    with open(path, "rb") as f:
        raw = f.read()
    kind = python_io.TFRecordOptions.get_compression_type_string(options)
    plain = {"": lambda b: b, "GZIP": gzip.decompress, "ZLIB": zlib.decompress}[kind](raw)
    assert plain == b"".join(_frame(r) for r in RECORDS)


def test_reads_hand_framed_file(tmp_path):
    path = tmp_path / "hand.tfrecord"
    path.write_bytes(_frame(b"abc") + _frame(b"defg"))
    assert list(python_io.tf_record_iterator(str(path))) == [b"abc", b"defg"]


def test_flipped_byte_is_data_loss(tmp_path):
    path = tmp_path / "bad.tfrecord"
    data = bytearray(_frame(b"good") + _frame(b"payload"))
    data[16 + 4 + 12 + 2] ^= 0x01  # inside the second record's payload
    path.write_bytes(bytes(data))
    it = python_io.tf_record_iterator(str(path))
    assert next(it) == b"good"
    # TF's words: a data CRC mismatch is reported at the data (the record's offset + 12)
    with pytest.raises(errors.DataLossError, match=r"^corrupted record at 32$"):
        next(it)


def test_flipped_length_is_data_loss(tmp_path):
    path = tmp_path / "badlen.tfrecord"
    data = bytearray(_frame(b"good"))
    data[0] ^= 0x40
    path.write_bytes(bytes(data))
    with pytest.raises(errors.DataLossError, match=r"^corrupted record at 0$"):
        list(python_io.tf_record_iterator(str(path)))


@pytest.mark.parametrize("cut", [3, 12, 18, 21])
def test_truncated_file_is_data_loss(tmp_path, cut):
    path = tmp_path / "short.tfrecord"
    path.write_bytes(_frame(b"whole") + _frame(b"second")[:cut])
    it = python_io.tf_record_iterator(str(path))
    assert next(it) == b"whole"
    if cut < 12:  # as TF, a partial header at the end reads as the end of the file
        assert list(it) == []
        return
    with pytest.raises(errors.DataLossError, match=r"^truncated record at 21$"):
        next(it)


def test_options_and_namespace():
    assert python_io.TFRecordOptions.get_compression_type_string(None) == ""
    assert python_io.TFRecordOptions.get_compression_type_string(
        python_io.TFRecordOptions(python_io.TFRecordCompressionType.ZLIB)) == "ZLIB"
    assert python_io.TFRecordOptions("gzip").compression_type == 2
    with pytest.raises(ValueError):
        python_io.TFRecordOptions("LZ4")
    import tideflow.io as tfio

    assert tfio.TFRecordWriter is python_io.TFRecordWriter
    assert tfio.tf_record_iterator is python_io.tf_record_iterator
