"""TFRecord framing, byte-compatible with TensorFlow's: length, masked CRC32C of the length,
data, masked CRC32C of the data; optionally GZIP or ZLIB compressed as a whole stream.

Event files (summaries) and TFRecord datasets both use it.
"""

import gzip
import os
import struct
import types
import zlib

import google_crc32c

from tideflow.framework import errors

_MASK_DELTA = 0xA282EAD8
_U64 = struct.Struct("<Q")
_U32 = struct.Struct("<I")


def masked_crc32c(data):
    """TF's masked CRC32C: rotate right by 15 bits and add a constant."""
    crc = google_crc32c.value(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def encode_record(data):
    """One framed record."""
    header = _U64.pack(len(data))
    return b"".join((header, _U32.pack(masked_crc32c(header)), data,
                     _U32.pack(masked_crc32c(data))))


class TFRecordCompressionType:
    NONE = 0
    ZLIB = 1
    GZIP = 2


class TFRecordOptions:
    """``tf.python_io.TFRecordOptions(compression_type)``: NONE, ZLIB or GZIP."""

    compression_type_map = types.MappingProxyType({
        TFRecordCompressionType.ZLIB: "ZLIB",
        TFRecordCompressionType.GZIP: "GZIP",
        TFRecordCompressionType.NONE: "",
    })

    def __init__(self, compression_type=None):
        if isinstance(compression_type, str) or compression_type is None:
            compression_type = {"": 0, None: 0, "NONE": 0, "ZLIB": 1, "GZIP": 2}.get(
                compression_type if compression_type is None else compression_type.upper()
            )
            if compression_type is None:
                raise ValueError("compression_type must be '', 'NONE', 'ZLIB' or 'GZIP'")
        self.compression_type = compression_type

    @classmethod
    def get_compression_type_string(cls, options):
        if options is None:
            return ""
        if isinstance(options, TFRecordOptions):
            return cls.compression_type_map[options.compression_type]
        return cls.compression_type_map[TFRecordOptions(options).compression_type]


def _compression(options):
    if options is None:
        return TFRecordCompressionType.NONE
    if isinstance(options, TFRecordOptions):
        return options.compression_type
    return TFRecordOptions(options).compression_type


class TFRecordWriter:
    """``tf.python_io.TFRecordWriter(path, options=None)``: appends framed records to a file."""

    def __init__(self, path, options=None):
        self._path = path
        kind = _compression(options)
        raw = open(path, "wb")  # noqa: SIM115 - closed in close()
        self._raw = raw
        if kind == TFRecordCompressionType.GZIP:
            self._f = gzip.GzipFile(fileobj=raw, mode="wb")
            self._z = None
        elif kind == TFRecordCompressionType.ZLIB:
            self._f = raw
            self._z = zlib.compressobj()
        else:
            self._f = raw
            self._z = None
        self._closed = False

    def write(self, record):
        if self._closed:
            raise errors.FailedPreconditionError(None, None, f"{self._path} is closed")
        if isinstance(record, str):
            record = record.encode()
        data = encode_record(bytes(record))
        self._f.write(self._z.compress(data) if self._z is not None else data)

    def flush(self):
        if self._z is not None:
            self._f.write(self._z.flush(zlib.Z_SYNC_FLUSH))
        self._f.flush()
        if self._f is not self._raw:
            self._raw.flush()

    def close(self):
        if self._closed:
            return
        if self._z is not None:
            self._f.write(self._z.flush())
        if self._f is not self._raw:
            self._f.close()
        self._raw.flush()
        os.fsync(self._raw.fileno())
        self._raw.close()
        self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def _open_stream(path, kind):
    if kind == TFRecordCompressionType.GZIP:
        return gzip.open(path, "rb")
    f = open(path, "rb")  # noqa: SIM115 - the caller closes it
    if kind == TFRecordCompressionType.ZLIB:
        data = zlib.decompress(f.read())
        f.close()
        import io

        return io.BytesIO(data)
    return f


def _data_loss(path, offset, what):
    return errors.DataLossError(None, None, f"{what} in file {path!r} at offset {offset}")


def read_records(path, options=None, offset=0):
    """Yields (offset, record) for each record in ``path``; DataLossError on corruption."""
    f = _open_stream(path, _compression(options))
    try:
        if offset:
            f.seek(offset)
        while True:
            header = f.read(12)
            if not header:
                return
            if len(header) < 12:
                raise _data_loss(path, offset, "truncated record header")
            (length,) = _U64.unpack_from(header)
            (crc,) = _U32.unpack_from(header, 8)
            if masked_crc32c(header[:8]) != crc:
                raise _data_loss(path, offset, "corrupted record (length CRC mismatch)")
            data = f.read(length)
            footer = f.read(4)
            if len(data) < length or len(footer) < 4:
                raise _data_loss(path, offset, "truncated record")
            if masked_crc32c(data) != _U32.unpack(footer)[0]:
                raise _data_loss(path, offset, "corrupted record (data CRC mismatch)")
            yield offset, data
            offset += 16 + length
    finally:
        f.close()


def tf_record_iterator(path, options=None):
    """``tf.python_io.tf_record_iterator``: the records of a TFRecord file."""
    for _, data in read_records(path, options):
        yield data
