"""The tensor wire codec: arrays <-> raw little-endian bytes with (dtype, shape) beside them,
optional bfloat16 truncation of float32, and the chunked stream format of our own RPCs.

Fixed-size dtypes travel as their raw bytes; strings as a u32 little-endian length before each
element's bytes. Nothing ever goes into repeated proto fields. A declared size that does not
match the bytes, or a shape needing more memory than the machine has, is InvalidArgument /
ResourceExhausted before anything is allocated.
"""

import os
import struct
import sys
import threading
import time

import numpy as np

from tideflow.framework import dtypes, errors
from tideflow.framework.wire_format import decode_varint, encode_varint
from tideflow.protos import tensor_pb2, tensor_shape_pb2, tideflow_transfer_pb2, types_pb2

CHUNK_BYTES = 4 << 20  # tensors bigger than this stream in chunks of this size
_LITTLE = sys.byteorder == "little"
_BF16 = types_pb2.DT_BFLOAT16
_FLOAT = types_pb2.DT_FLOAT
_STRING = types_pb2.DT_STRING
_MAX_DIMS = 64
_U32 = struct.Struct("<I")


def _bfloat16():
    import ml_dtypes

    return np.dtype(ml_dtypes.bfloat16)


def np_dtype(enum):
    """The NumPy dtype of a DataType enum; InvalidArgument for one that cannot travel."""
    try:
        dt = dtypes.as_dtype(int(enum))
    except (TypeError, ValueError, KeyError):
        raise errors.InvalidArgumentError(None, None, f"Unknown tensor dtype {enum}") from None
    if dt._is_ref_dtype:
        dt = dt.base_dtype
    npd = dt._np
    if npd is None or dt in (dtypes.resource, dtypes.variant):
        raise errors.InvalidArgumentError(
            None, None, f"Tensors of dtype {dt.name} cannot be sent between processes")
    return np.dtype(npd)


def dtype_enum(arr):
    """The DataType enum of a NumPy array."""
    if arr.dtype == object or arr.dtype.kind in "SU":
        return _STRING
    return dtypes.as_dtype(arr.dtype).as_datatype_enum


def available_memory():
    """Bytes of memory this process could still get (MemAvailable; physical memory as fallback)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 1 << 62


def shape_of(shape_proto):
    """The dims of a TensorShapeProto, checked: no unknown or negative dims, no absurd rank."""
    dims = shape_proto.dim
    if len(dims) > _MAX_DIMS:
        raise errors.InvalidArgumentError(None, None, f"Tensor rank {len(dims)} is too large")
    out = []
    for d in dims:
        if d.size < 0:
            raise errors.InvalidArgumentError(
                None, None, f"Tensor shape has a negative or unknown dimension: {d.size}")
        out.append(int(d.size))
    return tuple(out)


def num_elements(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def check_allocation(nbytes, what="tensor"):
    """ResourceExhausted when ``nbytes`` exceeds the memory this machine has left."""
    avail = available_memory()
    if nbytes > avail:
        raise errors.ResourceExhaustedError(
            None, None, f"OOM when allocating {what} of {nbytes} bytes: only {avail} bytes of "
            "memory are available on this machine")


def shape_proto(shape):
    return tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=int(d)) for d in shape])


# ------------------------------------------------------------------------------------------
# raw bytes
# ------------------------------------------------------------------------------------------


def _as_array(value):
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (bytes, str)):
        return np.asarray(value.encode() if isinstance(value, str) else value, dtype=object)
    from tideflow.kernels.device import to_host

    value = to_host(value)
    if isinstance(value, np.ndarray):
        return value
    fetch = getattr(value, "_tf_fetch_value", None)
    if fetch is not None:
        return _as_array(fetch())
    return np.asarray(value)


def prepare(value, bfloat16=False):
    """``(array, dtype enum, wire dtype enum, payload)``: payload is a buffer of the raw bytes
    (a view of the array when it is contiguous little-endian; strings are packed)."""
    arr = _as_array(value)
    enum = dtype_enum(arr)
    if enum == _STRING:
        return arr, enum, enum, pack_strings(arr)
    wire = enum
    if bfloat16 and enum == _FLOAT:
        arr = arr.astype(_bfloat16())  # round to nearest even (ml_dtypes)
        wire = _BF16
    if not _LITTLE and arr.dtype.byteorder != "<" and arr.dtype.itemsize > 1:
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    if not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr)  # (never for 0-d: it would make them 1-d)
    return arr, enum, wire, memoryview(arr.reshape(-1).view(np.uint8)) if arr.size else b""


def pack_strings(arr):
    parts = []
    for v in arr.reshape(-1):
        b = v if isinstance(v, bytes) else (v.encode() if isinstance(v, str) else bytes(v))
        parts.append(_U32.pack(len(b)))
        parts.append(b)
    return b"".join(parts)


def unpack_strings(buf, shape):
    n = num_elements(shape)
    if n > len(buf) // 4 + 1 and n > 0 and len(buf) < 4 * n:
        raise errors.InvalidArgumentError(
            None, None, f"String tensor of shape {list(shape)} declares {n} elements but has "
            f"only {len(buf)} bytes")
    out = np.empty(n, dtype=object)
    mv = memoryview(buf)
    pos = 0
    total = len(mv)
    for i in range(n):
        if pos + 4 > total:
            raise errors.InvalidArgumentError(
                None, None, "String tensor bytes end before its declared elements")
        (k,) = _U32.unpack_from(mv, pos)
        pos += 4
        if pos + k > total:
            raise errors.InvalidArgumentError(
                None, None, f"String element {i} declares {k} bytes past the end of the tensor")
        out[i] = bytes(mv[pos:pos + k])
        pos += k
    if pos != total:
        raise errors.InvalidArgumentError(
            None, None, f"String tensor has {total - pos} bytes beyond its declared elements")
    return out.reshape(shape)


def from_bytes(buf, enum, wire, shape):
    """The array of raw bytes ``buf`` (zero-copy where possible), checked against the shape."""
    if enum == _STRING:
        return unpack_strings(buf, shape)
    dt = np_dtype(enum)
    wdt = _bfloat16() if wire == _BF16 else (dt if wire in (0, enum) else np_dtype(wire))
    need = num_elements(shape) * wdt.itemsize
    if len(buf) != need:
        raise errors.InvalidArgumentError(
            None, None, f"Tensor of dtype {dtypes.as_dtype(int(enum)).name} and shape "
            f"{list(shape)} needs {need} bytes but {len(buf)} were sent")
    arr = np.frombuffer(buf, dtype=wdt.newbyteorder("<")).reshape(shape)
    if wdt != dt or not _LITTLE:
        arr = arr.astype(dt)
    return arr


# ------------------------------------------------------------------------------------------
# TensorProto (unary RPCs)
# ------------------------------------------------------------------------------------------


def encode(value, proto=None, bfloat16=False):
    """``value`` as a TensorProto whose ``tensor_content`` holds the raw bytes.

    A float32 tensor truncated to bfloat16 travels with dtype DT_BFLOAT16 (the receiver widens
    it back when it expects float32)."""
    arr, _, wire, payload = prepare(value, bfloat16)
    if proto is None:
        proto = tensor_pb2.TensorProto()
    proto.dtype = wire
    proto.tensor_shape.CopyFrom(shape_proto(arr.shape))
    if len(payload):
        proto.tensor_content = bytes(payload) if not isinstance(payload, bytes) else payload
    return proto


def decode(proto, expect=None):
    """The array a TensorProto holds; ``expect`` (a DataType enum) widens a bfloat16 wire value.

    Raises InvalidArgument for a malformed proto and ResourceExhausted for a shape bigger than
    the memory left, before allocating anything."""
    shape = shape_of(proto.tensor_shape)
    enum = int(proto.dtype)
    if enum == _STRING and not proto.tensor_content and proto.string_val:
        vals = np.empty(len(proto.string_val), dtype=object)
        vals[:] = list(proto.string_val)
        n = num_elements(shape)
        if len(vals) == n:
            return vals.reshape(shape)
        if len(vals) == 1:
            out = np.empty(n, dtype=object)
            out[:] = vals[0]
            return out.reshape(shape)
        raise errors.InvalidArgumentError(
            None, None, f"String tensor of shape {list(shape)} has {len(vals)} values")
    if enum != _STRING:
        itemsize = np_dtype(enum).itemsize
        need = num_elements(shape) * itemsize
        content = proto.tensor_content
        if not content and need and _has_typed_values(proto):
            from tideflow.framework import tensor_util

            check_allocation(need)
            try:
                return tensor_util.make_ndarray(proto)
            except (ValueError, TypeError) as e:
                raise errors.InvalidArgumentError(None, None, str(e)) from None
        if len(content) != need:
            raise errors.InvalidArgumentError(
                None, None, f"Tensor of dtype {dtypes.as_dtype(enum).name} and shape "
                f"{list(shape)} needs {need} bytes but {len(content)} were sent")
        arr = from_bytes(content, enum, enum, shape)
    else:
        arr = from_bytes(proto.tensor_content, enum, enum, shape)
    if expect is not None and enum == _BF16 and int(expect) == _FLOAT:
        arr = arr.astype(np.float32)
    return arr


def _has_typed_values(proto):
    return bool(proto.float_val or proto.double_val or proto.int_val or proto.int64_val
                or proto.bool_val or proto.half_val or proto.scomplex_val or proto.dcomplex_val
                or proto.uint32_val or proto.uint64_val)


# ------------------------------------------------------------------------------------------
# chunked streams (tideflow_transfer.proto)
# ------------------------------------------------------------------------------------------


_varint = encode_varint


_DATA_TAG = b"\x12"  # TensorChunk.data: field 2, length-delimited


def data_message(piece):
    """A serialized ``TensorChunk`` holding only ``data`` (built without copying twice)."""
    return b"".join((_DATA_TAG, _varint(len(piece)), piece))


def tensor_messages(value, bfloat16=False, index=0, is_dead=False, chunk_bytes=CHUNK_BYTES):
    """Yields the serialized messages of one tensor: its header, then its bytes in chunks."""
    arr, enum, wire, payload = prepare(value, bfloat16)
    meta = tideflow_transfer_pb2.TensorMeta(
        dtype=enum, shape=shape_proto(arr.shape), wire_dtype=wire, total_bytes=len(payload),
        is_dead=is_dead, send_start_micros=int(time.time() * 1e6), index=index)
    yield tideflow_transfer_pb2.TensorChunk(meta=meta).SerializeToString()
    mv = payload if isinstance(payload, memoryview) else memoryview(payload)
    for start in range(0, len(mv), chunk_bytes):
        yield data_message(mv[start:start + chunk_bytes])


_PART_TAG = b"\x0a"  # TensorChunks.part: field 1, length-delimited


def tensors_messages(items, chunk_bytes=CHUNK_BYTES):
    """Yields the serialized ``TensorChunks`` messages of ``items``, ``(index, value,
    bfloat16)`` each: a tensor is a part holding its header and the first of its bytes, then
    parts with the rest. Messages are filled up to about ``chunk_bytes`` (a few small tensors
    travel as one message); each byte is copied once, into its message."""
    pieces = []
    size = 0
    for index, value, bfloat16 in items:
        arr, enum, wire, payload = prepare(value, bfloat16)
        meta = tideflow_transfer_pb2.TensorMeta(
            dtype=enum, shape=shape_proto(arr.shape), wire_dtype=wire,
            total_bytes=len(payload), send_start_micros=int(time.time() * 1e6), index=index)
        head = tideflow_transfer_pb2.TensorChunk(meta=meta).SerializeToString()
        mv = payload if isinstance(payload, memoryview) else memoryview(payload)
        start = 0
        while head is not None or start < len(mv):
            room = chunk_bytes - size - (0 if head is None else len(head)) - 16
            if size and room < min(len(mv) - start, 1024):
                yield b"".join(pieces)  # too little room left for this part
                pieces = []
                size = 0
                room = chunk_bytes - (0 if head is None else len(head)) - 16
            piece = mv[start:start + max(room, 1024)]
            n = len(piece)
            part = 0 if head is None else len(head)
            data_len = _varint(n) if n else b""
            if n:
                part += 1 + len(data_len) + n
            pieces.append(_PART_TAG)
            pieces.append(_varint(part))
            if head is not None:
                pieces.append(head)
                head = None
            if n:
                pieces.append(_DATA_TAG)
                pieces.append(data_len)
                pieces.append(piece)
            size += part
            start += n
    if pieces:
        yield b"".join(pieces)


def tail_message(response):
    return tideflow_transfer_pb2.TensorChunk(tail=response.SerializeToString()).SerializeToString()


SMALL_BYTES = 1 << 20  # a value statically known to be at most this big goes by unary calls


def known_small(tensor, limit=SMALL_BYTES):
    """True when graph tensor ``tensor`` has a fully defined static shape and a numeric dtype
    of at most ``limit`` bytes: its value may travel in a unary call rather than a stream."""
    shape = tensor.get_shape()
    if not shape.is_fully_defined():
        return False
    try:
        itemsize = np.dtype(tensor.dtype.base_dtype.as_numpy_dtype).itemsize
    except (TypeError, AttributeError):
        return False
    if tensor.dtype.base_dtype.name == "string":
        return False
    n = 1
    for d in shape.as_list():
        n *= d
    return n * itemsize <= limit


def is_big(value, limit=CHUNK_BYTES):
    """True for a numeric array that should travel out of band (streamed in chunks)."""
    return type(value) is np.ndarray and value.dtype != object and value.nbytes > limit


def response_messages(response, field, arrays=None, inline_bytes=CHUNK_BYTES):
    """Yields a response whose big tensors (list ``field`` of NamedTensorProto) are streamed:
    ``arrays`` {index: array} straight from memory, and any big inline content, each as header
    + chunks; then the response itself (those contents emptied) as the tail."""
    for i, v in (arrays or {}).items():
        yield from tensor_messages(v, index=i, chunk_bytes=inline_bytes)
    named = getattr(response, field)
    for i, nt in enumerate(named):
        if nt.tensor.ByteSize() > inline_bytes and len(nt.tensor.tensor_content) > inline_bytes:
            content = nt.tensor.tensor_content
            meta = tideflow_transfer_pb2.TensorMeta(
                dtype=nt.tensor.dtype, shape=nt.tensor.tensor_shape, wire_dtype=nt.tensor.dtype,
                total_bytes=len(content), index=i)
            yield tideflow_transfer_pb2.TensorChunk(meta=meta).SerializeToString()
            mv = memoryview(content)
            for start in range(0, len(mv), inline_bytes):
                yield data_message(mv[start:start + inline_bytes])
            nt.tensor.ClearField("tensor_content")
    yield tail_message(response)


def _parse_data(msg):
    """The ``data`` bytes of a serialized data-only TensorChunk (a view, no copy)."""
    mv = memoryview(msg)
    if not mv or mv[0] != 0x12:
        return None
    n = 0
    shift = 0
    pos = 1
    while True:
        if pos >= len(mv) or shift > 63:
            raise errors.DataLossError(None, None, "Corrupt tensor chunk")
        b = mv[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            break
    if pos + n != len(mv):
        raise errors.DataLossError(None, None, "Corrupt tensor chunk: length mismatch")
    return mv[pos:]


def _append(buf, pos, data):
    """Copies a chunk's ``data`` into a tensor's ``buf`` at ``pos``; the new position. A chunk
    past the tensor's declared size is refused."""
    end = pos + len(data)
    if end > len(buf):
        raise errors.InvalidArgumentError(
            None, None, f"Tensor stream sent more than its declared {len(buf)} bytes")
    buf[pos:end] = data
    return end


class StreamReader:
    """Reassembles the messages of a chunked stream: tensors into preallocated buffers."""

    def __init__(self):
        self.tensors = []  # (meta, buffer)
        self.tail = None
        self._meta = None
        self._buf = None
        self._pos = 0

    def feed(self, msg):
        data = _parse_data(msg)
        if data is not None:
            if self._buf is None:
                raise errors.DataLossError(None, None, "Tensor chunk without a header")
            self._pos = _append(self._buf, self._pos, data)
            return
        chunk = tideflow_transfer_pb2.TensorChunk.FromString(bytes(msg))
        self._finish()
        if chunk.HasField("meta"):
            meta = chunk.meta
            total = int(meta.total_bytes)
            if total < 0:
                raise errors.InvalidArgumentError(None, None, "Negative tensor size")
            self._meta = meta
            self._buf = RECV_BUFFERS.take(total)
            self._pos = 0
        else:
            self.tail = chunk.tail

    def _finish(self):
        if self._buf is not None:
            if self._pos != len(self._buf):
                raise errors.InvalidArgumentError(
                    None, None, f"Tensor stream ended after {self._pos} of its declared "
                    f"{len(self._buf)} bytes")
            self.tensors.append((self._meta, self._buf))
            self._buf = None
            self._meta = None

    def close(self):
        self._finish()
        return self


def _varint_at(mv, pos, what):
    """``(value, next position)`` of the varint at ``pos`` of memoryview ``mv``; DataLossError
    naming ``what`` when it is cut off or longer than 64 bits."""
    try:
        n, end = decode_varint(mv, pos)
    except ValueError:
        raise errors.DataLossError(None, None, f"Corrupt {what}") from None
    if end - pos > 10:
        raise errors.DataLossError(None, None, f"Corrupt {what}")
    return n, end


def _parts(msg):
    """The parts of a serialized ``TensorChunks`` (views into ``msg``)."""
    mv = memoryview(msg)
    pos = 0
    while pos < len(mv):
        if mv[pos] != 0x0A:
            raise errors.DataLossError(None, None, "Corrupt tensor message: unexpected field")
        n, pos = _varint_at(mv, pos + 1, "tensor message")
        if pos + n > len(mv):
            raise errors.DataLossError(None, None, "Corrupt tensor message: length mismatch")
        yield mv[pos:pos + n]
        pos += n


def _split_head(part):
    """``(meta, first data or None)`` of a part starting with a header (``meta``, maybe then
    ``data``), or None when it is not one. The data is a view into ``part``."""
    if not part or part[0] != 0x0A:
        return None
    n, pos = _varint_at(part, 1, "tensor header")
    end = pos + n
    if end > len(part):
        raise errors.DataLossError(None, None, "Corrupt tensor header: length mismatch")
    try:
        meta = tideflow_transfer_pb2.TensorMeta.FromString(bytes(part[pos:end]))
    except Exception as e:  # noqa: BLE001 - any parse failure is data loss
        raise errors.DataLossError(None, None, f"Corrupt tensor header: {e}") from None
    if end == len(part):
        return meta, None
    data = _parse_data(part[end:])
    if data is None:
        raise errors.DataLossError(None, None, "Corrupt tensor header: unexpected field")
    return meta, data


class TensorsReader:
    """Reassembles the tensors of ``tensors_messages``: ``feed`` returns the ``(meta,
    buffer)`` of each tensor a message completes (a list, often empty); ``close`` checks that
    the stream did not stop inside a tensor."""

    def __init__(self):
        self._meta = None
        self._buf = None
        self._pos = 0

    def feed(self, msg):
        out = []
        for part in _parts(msg):
            got = self._feed_part(part)
            if got is not None:
                out.append(got)
        return out

    def _feed_part(self, part):
        if self._buf is None:
            head = _split_head(part)
            if head is None:
                raise errors.DataLossError(None, None, "Tensor chunk without a header")
            meta, data = head
            total = int(meta.total_bytes)
            if total < 0:
                raise errors.InvalidArgumentError(None, None, "Negative tensor size")
            self._meta = meta
            self._buf = RECV_BUFFERS.take(total)
            self._pos = 0
        else:
            data = _parse_data(part)
            if data is None:
                raise errors.InvalidArgumentError(
                    None, None, f"Tensor stream ended after {self._pos} of its declared "
                    f"{len(self._buf)} bytes")
        if data is not None:
            self._pos = _append(self._buf, self._pos, data)
        if self._pos == len(self._buf):
            out = (self._meta, self._buf)
            self._meta = None
            self._buf = None
            return out
        return None

    def close(self):
        if self._buf is not None:
            raise errors.InvalidArgumentError(
                None, None, f"Tensor stream ended after {self._pos} of its declared "
                f"{len(self._buf)} bytes")


class BufferPool:
    """Recycles the buffers that big received tensors are assembled in.

    A fresh buffer of many MiB costs a page fault per page when it is first written, often
    more than the copy itself; received values mostly live for one step. A buffer handed out
    is reused only once nothing refers to it any more (the array of the value and every view
    of it hold a reference), so a value still in use is never overwritten. Buffers smaller than
    ``min_bytes`` are not pooled; at most ``max_bytes`` in ``max_buffers`` are kept."""

    def __init__(self, max_bytes=256 << 20, min_bytes=1 << 20, max_buffers=8):
        self.max_bytes = max_bytes
        self.min_bytes = min_bytes
        self.max_buffers = max_buffers
        self._bufs = []
        self._total = 0
        self._lock = threading.Lock()

    def take(self, nbytes):
        """A writable uint8 array of ``nbytes`` that nobody else refers to (ResourceExhausted
        when the machine lacks the memory for a new one)."""
        if nbytes < self.min_bytes:
            return np.empty(nbytes, dtype=np.uint8)
        bufs = self._bufs
        with self._lock:
            i = self._free_index(nbytes)
            if i is not None:
                b = bufs.pop(i)
                bufs.append(b)
                return b
        check_allocation(nbytes)
        buf = np.empty(nbytes, dtype=np.uint8)
        if nbytes <= self.max_bytes:
            with self._lock:
                bufs.append(buf)
                self._total += nbytes
                while self._total > self.max_bytes or len(bufs) > self.max_buffers:
                    self._total -= bufs.pop(0).nbytes
        return buf

    def _free_index(self, nbytes):
        bufs = self._bufs
        for i in range(len(bufs)):
            # a free buffer's only referents: the list and getrefcount's argument
            if bufs[i].nbytes == nbytes and sys.getrefcount(bufs[i]) <= 2:
                return i
        return None

    def clear(self):
        with self._lock:
            self._bufs.clear()
            self._total = 0


RECV_BUFFERS = BufferPool()

def array_of(meta, buf):
    """The array of one streamed tensor (widened back from bfloat16 to its dtype)."""
    return from_bytes(buf, int(meta.dtype), int(meta.wire_dtype), shape_of(meta.shape))


def placeholder(nt, value):
    """Fills NamedTensorProto ``nt`` with the dtype and shape of an out-of-band ``value``."""
    nt.tensor.dtype = dtype_enum(value)
    nt.tensor.tensor_shape.CopyFrom(shape_proto(value.shape))


def read_tensor(messages):
    """The (array, meta) of a stream carrying one tensor."""
    reader = StreamReader()
    for m in messages:
        reader.feed(m)
    reader.close()
    if len(reader.tensors) != 1:
        raise errors.DataLossError(None, None, "Tensor stream carried no tensor")
    meta, buf = reader.tensors[0]
    return array_of(meta, buf), meta


def read_response(messages, response_cls, field, arrays=None):
    """The response of a stream from ``response_messages``, streamed tensors filled back in
    (or, when ``arrays`` is a dict, decoded into it by index without another copy)."""
    reader = StreamReader()
    for m in messages:
        reader.feed(m)
    reader.close()
    if reader.tail is None:
        raise errors.DataLossError(None, None, "Response stream ended without its response")
    resp = response_cls.FromString(reader.tail)
    named = getattr(resp, field)
    for meta, buf in reader.tensors:
        i = int(meta.index)
        if not 0 <= i < len(named):
            raise errors.DataLossError(None, None, f"Streamed tensor index {i} out of range")
        if arrays is not None:
            arrays[i] = array_of(meta, buf)
        else:
            named[i].tensor.tensor_content = buf.tobytes()
    return resp
