"""TFRecord framing, byte-compatible with TensorFlow's: length, masked CRC32C of the length,
data, masked CRC32C of the data; optionally GZIP or ZLIB compressed as a whole stream.

Event files (summaries) and TFRecord datasets both use it.
"""

import gzip
import io
import operator
import os
import re
import struct
import types
import zlib

from crc32c import crc32c as _crc32c

from tideflow.framework import errors

_MASK_DELTA = 0xA282EAD8
_U64 = struct.Struct("<Q")
_U32 = struct.Struct("<I")


def masked_crc32c(data):
    """TF's masked CRC32C: rotate right by 15 bits and add a constant."""
    crc = _crc32c(data)
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

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None):
        # the zlib settings (None: TF's defaults, taken by the writer)
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy
        if isinstance(compression_type, str) or compression_type is None:
            original = compression_type
            compression_type = {"": 0, None: 0, "NONE": 0, "ZLIB": 1, "GZIP": 2}.get(
                compression_type if compression_type is None else compression_type.upper()
            )
            if compression_type is None:
                raise ValueError(f'Not a valid compression_type: "{original}"')
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
        try:
            raw = open(path, "wb")  # noqa: SIM115 - closed in close()
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
        self._raw = raw
        self._f = raw
        self._z = None
        if kind != TFRecordCompressionType.NONE:
            # TF's zlib stream: its defaults (memLevel 9), the gzip wrapper zlib writes for GZIP
            o = options if isinstance(options, TFRecordOptions) else TFRecordOptions()
            bits = 15 if o.window_bits is None else o.window_bits
            self._z = zlib.compressobj(
                -1 if o.compression_level is None else o.compression_level,
                zlib.DEFLATED if o.compression_method is None else o.compression_method,
                bits + 16 if kind == TFRecordCompressionType.GZIP else bits,
                9 if o.mem_level is None else o.mem_level,
                zlib.Z_DEFAULT_STRATEGY if o.compression_strategy is None
                else o.compression_strategy)
            self._flush_mode = zlib.Z_NO_FLUSH if o.flush_mode is None else o.flush_mode
        self._closed = False

    def _check_open(self):
        if self._closed:
            raise errors.FailedPreconditionError(
                None, None, "Writer not initialized or previously closed")

    def write(self, record):
        if not isinstance(record, (bytes, bytearray, memoryview)):  # TF's binding's words
            raise TypeError(f"expected bytes, {type(record).__name__} found")
        self._check_open()
        data = encode_record(bytes(record))
        self._f.write(self._z.compress(data) if self._z is not None else data)

    def flush(self):
        self._check_open()
        if self._z is not None and self._flush_mode != zlib.Z_NO_FLUSH:
            self._f.write(self._z.flush(self._flush_mode))
        self._f.flush()

    def close(self):
        if self._closed:
            return
        if self._z is not None:
            self._f.write(self._z.flush())
        self._raw.flush()
        os.fsync(self._raw.fileno())
        self._raw.close()
        self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


_HEADER = struct.Struct("<QI")
_DEFAULT_BUFFER = 256 * 1024
_LARGE = 16 * 1024  # records this big are read straight from the stream


class _ZlibReader(io.RawIOBase):
    """A streaming reader of a zlib-compressed file."""

    def __init__(self, raw):
        self._raw = raw
        self._z = zlib.decompressobj()
        self._buf = b""

    def readable(self):
        return True

    def read(self, n=-1):
        while n < 0 or len(self._buf) < n:
            chunk = self._raw.read(_DEFAULT_BUFFER)
            if not chunk:
                self._buf += self._z.flush()
                break
            self._buf += self._z.decompress(chunk)
        if n < 0:
            out, self._buf = self._buf, b""
        else:
            out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def close(self):
        self._raw.close()
        super().close()


def open_record_file(path, options=None):
    """The (decompressing) byte stream of a record file; NotFoundError if it is missing."""
    kind = _compression(options)
    try:
        raw = open(path, "rb")  # noqa: SIM115 - closed by the caller
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    except IsADirectoryError:
        raise errors.FailedPreconditionError(None, None, f"{path}; Is a directory") from None
    if kind == TFRecordCompressionType.GZIP:
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if kind == TFRecordCompressionType.ZLIB:
        return _ZlibReader(raw)
    return raw


def _data_loss(path, offset, what):
    # TF's words: the record's offset (a data CRC's: its data's, 12 bytes further)
    return errors.DataLossError(None, None, f"{what} at {offset}")


def read_records(path, options=None, offset=0, buffer_size=0):
    """Yields (offset, record) for each record in ``path``, checking both CRCs.

    Small records are sliced out of large chunks (one read per chunk, a few slices and two
    CRC32C checks a record); from the first record of at least 16 KiB on, records are read
    straight from the stream, until a small one comes back. A corrupt or truncated record
    raises DataLossError with TF's words and offset.
    """
    f = open_record_file(path, options)
    chunk = max(int(buffer_size or 0), _DEFAULT_BUFFER)
    raw_crc = _crc32c
    unpack64, unpack32, unpack_header = _U64.unpack_from, _U32.unpack_from, _HEADER.unpack_from
    delta, mask = _MASK_DELTA, 0xFFFFFFFF
    # the header CRC is a function of the length alone: a length seen with a valid CRC need
    # not be checksummed again (records of one size are the common case)
    header_ok = {}
    try:
        if offset:
            f.read(offset) if not hasattr(f, "seek") or isinstance(f, _ZlibReader) else (
                f.seek(offset))
        buf = f.read(chunk)
        pos = 0
        base = offset  # file offset of buf[0]
        while True:
            # -- chunk mode: slice records out of buf (the hot loop: CRCs masked inline)
            size = len(buf)
            if size - pos < 12:
                more = f.read(chunk)
                if not more:
                    return  # (as TF, a partial header at the end reads as the end of file)
                base += pos
                buf = buf[pos:] + more
                pos = 0
                continue
            length, length_crc = unpack_header(buf, pos)
            if header_ok.get(length) != length_crc:
                c = raw_crc(buf[pos:pos + 8])
                if (((c >> 15) | (c << 17)) + delta) & mask != length_crc:
                    raise _data_loss(path, base + pos, "corrupted record")
                header_ok[length] = length_crc
            end = pos + 16 + length
            if end <= size:
                data = buf[pos + 12:end - 4]
                c = raw_crc(data)
                if (((c >> 15) | (c << 17)) + delta) & mask != unpack32(buf, end - 4)[0]:
                    raise _data_loss(path, base + pos + 12, "corrupted record")
                yield base + pos, data
                pos = end
                continue
            if length < _LARGE:
                more = f.read(max(chunk, end - len(buf)))
                if len(more) < end - len(buf):
                    raise _data_loss(path, base + pos, "truncated record")
                base += pos
                buf = buf[pos:] + more
                pos = 0
                continue
            # -- direct mode: large records read from the stream one by one
            start = base + pos
            head = buf[pos + 12:]
            tail = f.read(length + 4 - len(head))
            if len(head) + len(tail) < length + 4:
                raise _data_loss(path, start, "truncated record")
            blob = head + tail  # the one extra copy, on entering this mode
            data, footer = blob[:length], blob[length:]
            while True:
                if masked_crc32c(data) != unpack32(footer)[0]:
                    raise _data_loss(path, start + 12, "corrupted record")
                yield start, data
                start += 16 + length
                header = f.read(12)
                if len(header) < 12:
                    return
                (length,) = unpack64(header)
                if masked_crc32c(header[:8]) != unpack32(header, 8)[0]:
                    raise _data_loss(path, start, "corrupted record")
                if length < _LARGE:
                    buf = header + f.read(chunk)
                    pos, base = 0, start
                    break
                data = f.read(length)
                footer = f.read(4)
                if len(data) < length or len(footer) < 4:
                    raise _data_loss(path, start, "truncated record")
    except (zlib.error, gzip.BadGzipFile, EOFError) as e:
        # a stream of the wrong compression (or a damaged one), in TF's words
        m = re.match(r"Error (-?\d+) while decompressing data: (.*)", str(e))
        code, what = (m.group(1), m.group(2)) if m else ("-3", "incorrect header check")
        raise errors.DataLossError(
            None, None, f"inflate() failed with error {code}: {what}") from None
    finally:
        f.close()


def tf_record_iterator(path, options=None):
    """``tf.python_io.tf_record_iterator``: the records of a TFRecord file."""
    return map(operator.itemgetter(1), read_records(path, options))
