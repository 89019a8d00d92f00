"""Reading TensorFlow's own checkpoints (the "tensor bundle": an SSTable ``.index`` of
``BundleEntryProto`` records and raw ``.data-?????-of-?????`` shards), so that checkpoints
written by TensorFlow (BERT's and GPT-2's released weights, ...) can be restored, listed and
used by ``init_from_checkpoint``. tideflow writes its own format (``docs/checkpoint_format.md``);
this module only reads. Tensors TF saved as slices (partitioned variables) are read slice by
slice, each found under TF's slice key.

The index is parsed here with a small reader of the table and protobuf wire formats; the
entries it yields have the layout of ``checkpoint_format.Reader.tensors`` entries, with
``encoding`` ``"tf_bundle"`` (raw little-endian bytes) or ``"tf_bundle_string"``.
"""

import struct

import numpy as np

from tideflow.framework import dtypes, errors
from tideflow.framework.wire_format import decode_varint as _varint

TABLE_MAGIC = 0xDB4775248B80FB57
_FOOTER = 48
_MASK_DELTA = 0xA282EAD8


def is_bundle_index(raw):
    """Whether ``raw`` (the bytes of an ``.index`` file) is a TensorFlow table."""
    return len(raw) >= _FOOTER and struct.unpack("<Q", raw[-8:])[0] == TABLE_MAGIC


def unmask_crc(masked):
    rot = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rot >> 17) | (rot << 15)) & 0xFFFFFFFF


# -- protobuf wire format ---------------------------------------------------------------------

def _fields(buf):
    """[(field number, value)]: ints for varint/fixed fields, bytes for length-delimited."""
    out = []
    pos = 0
    while pos < len(buf):
        key, pos = _varint(buf, pos)
        num, wire = key >> 3, key & 7
        if wire == 0:
            val, pos = _varint(buf, pos)
        elif wire == 1:
            (val,) = struct.unpack_from("<Q", buf, pos)
            pos += 8
        elif wire == 5:
            (val,) = struct.unpack_from("<I", buf, pos)
            pos += 4
        elif wire == 2:
            n, pos = _varint(buf, pos)
            val = bytes(buf[pos:pos + n])
            pos += n
        else:
            raise ValueError(f"unsupported wire type {wire}")
        out.append((num, val))
    if pos != len(buf):
        raise ValueError("truncated message")
    return out


def _signed64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def _shape(buf):
    dims = []
    for num, val in _fields(buf):
        if num == 2:  # TensorShapeProto.dim
            size = 0
            for dnum, dval in _fields(val):
                if dnum == 1:
                    size = _signed64(dval)
            dims.append(size)
    return dims


# -- table (SSTable) format -------------------------------------------------------------------

def _block(raw, offset, size, path):
    end = offset + size
    if end + 5 > len(raw):
        raise ValueError("block past the end of the file")
    kind = raw[end]
    if kind != 0:
        raise errors.UnimplementedError(
            None, None, f"TensorFlow checkpoint index {path} uses compressed table blocks "
            f"(compression type {kind}); only uncompressed tables are read")
    from tideflow.train import checkpoint_format

    (stored,) = struct.unpack_from("<I", raw, end + 1)
    if checkpoint_format.crc32c(raw[offset:end + 1]) != unmask_crc(stored):
        raise ValueError("block checksum mismatch")
    return raw[offset:end]


def _block_entries(block):
    (nrestarts,) = struct.unpack_from("<I", block, len(block) - 4)
    limit = len(block) - 4 - 4 * nrestarts
    pos = 0
    key = b""
    while pos < limit:
        shared, pos = _varint(block, pos)
        unshared, pos = _varint(block, pos)
        vlen, pos = _varint(block, pos)
        key = key[:shared] + bytes(block[pos:pos + unshared])
        pos += unshared
        yield key, block[pos:pos + vlen]
        pos += vlen


def _handle(buf, pos=0):
    offset, pos = _varint(buf, pos)
    size, pos = _varint(buf, pos)
    return offset, size, pos


def _table_items(raw, path):
    mv = memoryview(raw)
    footer = mv[len(raw) - _FOOTER:]
    _, _, pos = _handle(footer)  # the meta-index block: unused
    index_off, index_size, _ = _handle(footer, pos)
    for _, handle in _block_entries(_block(mv, index_off, index_size, path)):
        off, size, _ = _handle(handle)
        yield from _block_entries(_block(mv, off, size, path))


def _entry(fields):
    """A BundleEntryProto's fields as a tideflow index entry (plus its slices' extents)."""
    entry = {"dtype": None, "shape": [], "shard": 0, "tf_offset": 0, "size": 0, "crc32c": 0,
             "slices": False, "extents": []}
    for num, val in fields:
        if num == 1:
            entry["dtype"] = dtypes.as_dtype(val).name
        elif num == 2:
            entry["shape"] = _shape(val)
        elif num == 3:
            entry["shard"] = val
        elif num == 4:
            entry["tf_offset"] = val
        elif num == 5:
            entry["size"] = val
        elif num == 6:
            entry["crc32c"] = unmask_crc(val)
        elif num == 7:  # TensorSliceProto: repeated Extent {start = 1; length = 2}
            entry["slices"] = True
            extents = []
            for enum_, ext in _fields(val):
                if enum_ == 1:
                    start, length = 0, -1
                    for fnum, fval in _fields(ext):
                        if fnum == 1:
                            start = _signed64(fval)
                        elif fnum == 2:
                            length = _signed64(fval)
                    extents.append((start, length))
            entry["extents"].append(extents)
    entry["encoding"] = "tf_bundle_string" if entry["dtype"] == "string" else "tf_bundle"
    entry["nbytes"] = entry["size"]
    return entry


# the key of a stored slice: TF's EncodeTensorNameSlice, in its OrderedCode encoding
_SIGNED_HEADER = {1: (0x80, 0), 2: (0xC0, 0), 3: (0xE0, 0), 4: (0xF0, 0), 5: (0xF8, 0),
                  6: (0xFC, 0), 7: (0xFE, 0), 8: (0xFF, 0), 9: (0xFF, 0x80), 10: (0xFF, 0xC0)}


def _num_increasing(v):
    raw = v.to_bytes((v.bit_length() + 7) // 8, "big")
    return bytes([len(raw)]) + raw


def _signed_num_increasing(v):
    x = ~v if v < 0 else v
    if x < 64:
        return bytes([(0x80 ^ v) & 0xFF])
    n = x.bit_length() // 7 + 1
    out = bytearray((v & ((1 << 80) - 1)).to_bytes(10, "big")[10 - n:])
    out[0] ^= _SIGNED_HEADER[n][0]
    out[1] ^= _SIGNED_HEADER[n][1]
    return bytes(out)


def _ordered_string(s):
    out = bytearray()
    for c in s:
        out += b"\x00\xff" if c == 0 else b"\xff\x00" if c == 0xFF else bytes([c])
    return bytes(out) + b"\x00\x01"


def slice_key(name, extents):
    """The table key TF stores slice ``extents`` ([(start, length or -1)]) of ``name`` under."""
    key = b"\x00" + _ordered_string(name.encode("utf-8")) + _num_increasing(len(extents))
    for start, length in extents:
        key += _signed_num_increasing(start) + _signed_num_increasing(length)
    return key


def _slice_piece(name, entry, extents, by_key, path):
    value = by_key.get(slice_key(name, extents))
    if value is None:
        raise errors.DataLossError(
            None, None, f"TensorFlow checkpoint index {path} lists a slice {extents} of tensor "
            f"'{name}' but holds no entry for it")
    piece = _entry(_fields(value))
    full = entry["shape"]
    if len(extents) != len(full):
        raise errors.DataLossError(
            None, None, f"Slice {extents} of tensor '{name}' in {path} does not match its "
            f"shape {full}")
    piece["offset"] = [start for start, _ in extents]
    piece["shape"] = [d if length < 0 else length for (_, length), d in zip(extents, full)]
    del piece["slices"], piece["extents"]
    return piece


def read_index(raw, path):
    """``(num_shards, {name: entry})`` of a TensorFlow checkpoint index (its bytes ``raw``)."""
    try:
        items = list(_table_items(raw, path))
    except (ValueError, struct.error, IndexError) as err:
        raise errors.DataLossError(
            None, None, f"Unable to read TensorFlow checkpoint index {path}: {err}") from None
    num_shards = 1
    tensors = {}
    by_key = dict(items)
    for key, value in items:
        fields = _fields(value)
        if key == b"":  # BundleHeaderProto
            for num, val in fields:
                if num == 1:
                    num_shards = val
                elif num == 2 and val != 0:
                    raise errors.UnimplementedError(
                        None, None, f"TensorFlow checkpoint {path} is big-endian")
            continue
        if key[:1] == b"\x00":
            continue  # the stored slices of a partitioned tensor: read through its entry
        name = key.decode("utf-8")
        entry = _entry(fields)
        if entry.pop("slices"):
            entry["slices"] = [_slice_piece(name, entry, extents, by_key, path)
                               for extents in entry.pop("extents")]
            entry["encoding"] = "tf_bundle_sliced"
        else:
            del entry["extents"]
        tensors[name] = entry
    return num_shards, tensors


def read_piece(data_path, name, piece, dtype, out=None):
    """The value of tensor ``name`` from TensorFlow data shard ``data_path``, checked against
    the entry's CRC32C; read into ``out`` when given."""
    from tideflow.train import checkpoint_format

    try:
        with open(data_path, "rb") as f:
            f.seek(piece["tf_offset"])
            data = f.read(piece["size"])
    except FileNotFoundError:
        raise errors.NotFoundError(
            None, None, f"Checkpoint data file {data_path} not found (needed for tensor "
            f"'{name}')") from None
    if len(data) != piece["size"]:
        raise errors.DataLossError(
            None, None, f"Checkpoint data file {data_path} is truncated (reading tensor "
            f"'{name}')")
    if piece["encoding"] == "tf_bundle_string":
        value, crc = _decode_strings(data, tuple(piece["shape"]), name, data_path)
    else:
        value, crc = None, checkpoint_format.crc32c(data)
    if piece["crc32c"] not in (crc if isinstance(crc, list) else [crc]):
        raise errors.DataLossError(
            None, None, f"Checksum does not match for tensor '{name}' in checkpoint data file "
            f"{data_path}: stored crc32c {piece['crc32c']:#010x}, computed "
            f"{' or '.join(f'{c:#010x}' for c in (crc if isinstance(crc, list) else [crc]))}")
    shape = tuple(piece["shape"])
    if value is None:
        npdt = np.dtype(dtype.as_numpy_dtype).newbyteorder("<")
        count = int(np.prod(shape, dtype=np.int64))
        if count * npdt.itemsize != len(data):
            raise errors.DataLossError(
                None, None, f"Tensor '{name}' in {data_path} holds {len(data)} bytes, its "
                f"shape {list(shape)} and dtype {dtype.name} need {count * npdt.itemsize}")
        value = np.frombuffer(data, npdt).astype(dtype.as_numpy_dtype).reshape(shape)
    if out is not None:
        out[...] = value
        return out
    return value


def _decode_strings(data, shape, name, path):
    """(value, [candidate crc32c as TF computes it]): the data is a varint64 length per element, the
    masked checksum of the lengths, then the bytes; the checksum runs over each length as a
    little-endian uint64, then the 4 checksum bytes, then the string bytes."""
    from tideflow.train import checkpoint_format

    n = int(np.prod(shape, dtype=np.int64))
    pos = 0
    lengths = []
    try:
        for _ in range(n):
            length, pos = _varint(data, pos)
            lengths.append(length)
    except ValueError:
        raise errors.DataLossError(
            None, None, f"Corrupted string lengths of tensor '{name}' in {path}") from None
    # the lengths enter the checksum as uint32 (TF 2.x) or uint64 (older releases)
    crcs = [checkpoint_format.crc32c(data[pos:pos + 4], checkpoint_format.crc32c(
        np.asarray(lengths, width).tobytes())) for width in ("<u4", "<u8")]
    pos += 4
    flat = np.empty(n, dtype=object)
    for i, length in enumerate(lengths):
        flat[i] = data[pos:pos + length]
        pos += length
    if pos != len(data):
        raise errors.DataLossError(
            None, None, f"Corrupted string data of tensor '{name}' in {path}")
    return flat.reshape(shape), [checkpoint_format.crc32c(data[pos - sum(lengths):pos], c)
                                 for c in crcs]
