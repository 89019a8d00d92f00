"""The on-disk checkpoint format: safetensors data shards plus a JSON index with CRC32C checksums
(the user's description, with the reasons for its choices, is docs/checkpoint_format.md).

A checkpoint with prefix ``P`` is the files ``P.data-00000-of-0000N`` ... (one per shard) and
``P.index``; the index is written last, so a checkpoint exists exactly when its index does.

Data shards are valid safetensors files (an 8-byte little-endian header length, a JSON header
``{key: {"dtype", "shape", "data_offsets"}}`` padded to 8 bytes, then the tensors back to back).
Dtypes safetensors has are stored as they are (bfloat16 is ``BF16``). The others are encoded:

* complex64/complex128: the interleaved (real, imag) pairs as F32/F64 of shape ``shape + [2]``,
  under the key ``<name>:complex``;
* string: the concatenated bytes as a U8 blob under ``<name>:bytes`` plus the ``n + 1`` element
  offsets (I64, element ``i`` is ``blob[off[i]:off[i + 1]]``) under ``<name>:offsets``;
* any other fixed-size dtype (quantized types): its raw bytes as U8 under ``<name>:raw``.

The index (``P.index``) is one JSON object: ``{"format": "tideflow.checkpoint", "version": 2,
"num_shards": N, "tensors": {name: {"dtype": "float32", "shape": [...], "shard": i, "encoding":
"raw" | "complex" | "string" | "bytes", "keys": [...], "nbytes": n, "crc32c": c}}, "checksum":
c}``, where a tensor's ``crc32c`` covers the bytes of its keys in file order and ``checksum``
covers the canonical JSON (sorted keys, no spaces) of everything else.

A tensor saved as slices (the parts of a partitioned variable, TF's ``shape_and_slices``) has one
entry under its full name, ``{"dtype", "shape": <full shape>, "slices": [{"offset": [...],
"shape": [...], "shard", "encoding", "keys", "nbytes", "crc32c"}, ...]}`` (sorted by offset,
never overlapping), each slice stored like a whole tensor under the key
``<name>@<start>,<length>:...`` (plus the encoding suffixes above). Slices may sit in different
shards (each device saves its own parts); readers assemble any box of the full tensor.

Every file is written atomically: to a temporary file in the same directory, flushed and fsynced,
then renamed over the target (and the directory fsynced). Tensors are written straight from their
buffers (a variable's own buffer, no copy; strings excepted), each 1 MiB chunk checksummed just
before it is written. As in TF, a training step that updates a variable during its save can make
the saved bytes inconsistent (and then their checksum): save between steps.
"""

import contextlib
import glob
import json
import os
import queue
import struct
import threading
import uuid

import numpy as np
from crc32c import crc32c as _crc32c_ext

from tideflow.framework import dtypes, errors

FORMAT = "tideflow.checkpoint"
VERSION = 2  # 2: tensors saved as slices (partitioned variables)
INDEX_SUFFIX = ".index"
_CHUNK = 1 << 20  # bytes per checksummed write (checksummed while in cache)
_READ_CHUNK = 8 << 20  # bytes per verified read (large reads keep a cold disk streaming)
_PIPE_MIN = 16 << 20  # tensors this large are checksummed on a helper thread during the I/O
# whole tensors are restored by this many readers at once when they hold this many bytes
READERS = min(2, os.cpu_count() or 1)
_SIDE_BY_SIDE_MIN = 64 << 20

# dtype name -> safetensors dtype, for the dtypes stored as they are
_ST_DTYPES = {
    "bool": "BOOL", "uint8": "U8", "int8": "I8", "int16": "I16", "uint16": "U16",
    "float16": "F16", "bfloat16": "BF16", "int32": "I32", "uint32": "U32", "float32": "F32",
    "float64": "F64", "int64": "I64", "uint64": "U64",
}
_COMPLEX_PART = {"complex64": (np.float32, "F32"), "complex128": (np.float64, "F64")}


def data_filename(prefix, shard, num_shards):
    """``<prefix>.data-<shard>-of-<num_shards>`` (both five digits)."""
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def index_filename(prefix):
    return prefix + INDEX_SUFFIX


# ------------------------------------------------------------------------------------------
# CRC32C over any buffer, without copying it
# ------------------------------------------------------------------------------------------


def crc32c(buf, crc=0):
    """CRC32C of a buffer (bytes, memoryview or contiguous ndarray), extending ``crc``: the
    hardware instruction (SSE 4.2 / ARMv8) through the ``crc32c`` package, ~15 GB/s, no copy."""
    return _crc32c_ext(buf, crc)


class _CrcPipe:
    """The CRC32C of buffers handed over one by one, computed on a helper thread while the
    caller reads or writes the next one (the checksum extension releases the GIL). The thread
    ends in ``result``/``close``: none outlives the tensor it checksums."""

    def __init__(self, crc=0):
        self._crc = crc
        self._error = None
        self._q = queue.SimpleQueue()
        self._t = threading.Thread(target=self._run, name="tideflow-crc32c", daemon=True)
        self._t.start()

    def _run(self):
        crc = self._crc
        try:
            while (buf := self._q.get()) is not None:
                crc = crc32c(buf, crc)
        except BaseException as e:  # noqa: BLE001 - re-raised by result()
            self._error = e
            while self._q.get() is not None:
                pass
        self._crc = crc

    def add(self, buf):
        self._q.put(buf)

    def close(self):
        if self._t.is_alive():
            self._q.put(None)
            self._t.join()

    def result(self):
        self.close()
        if self._error is not None:
            raise self._error
        return self._crc


# ------------------------------------------------------------------------------------------
# atomic files
# ------------------------------------------------------------------------------------------


def fsync_dir(path):
    """fsyncs the directory ``path`` so renames into it are durable (best effort)."""
    with contextlib.suppress(OSError):
        fd = os.open(path or ".", os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def atomic_file(path):
    """Yields a binary file that replaces ``path`` on success (tmp + flush + fsync + rename)."""
    tmp = f"{path}.tmp{uuid.uuid4().hex}"  # TF's atomic writes' name
    f = open(tmp, "wb")  # noqa: SIM115 - closed below on every path
    try:
        yield f
        f.flush()
        os.fsync(f.fileno())
        f.close()
        os.replace(tmp, path)
    except BaseException:
        f.close()
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise


def _drop_cached(path):
    """Drops the page cache of ``path``, a file about to be replaced: its memory then holds the
    new file (on a VM, pages never written before cost a host fault each on first write; the
    old file's pages are already backed). The file itself stays intact until the rename."""
    if not hasattr(os, "posix_fadvise"):
        return
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path, data, sync_dir=True):
    """Writes ``data`` (bytes or str) to ``path`` atomically."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    with atomic_file(path) as f:
        f.write(data)
    if sync_dir:
        fsync_dir(os.path.dirname(path))


# ------------------------------------------------------------------------------------------
# encoding tensors
# ------------------------------------------------------------------------------------------


def _dtype_of(value, dtype=None):
    if dtype is not None:
        return dtypes.as_dtype(dtype).base_dtype
    return dtypes.dtype_of_numpy(value) if isinstance(value, np.ndarray) else dtypes.as_dtype(
        np.asarray(value).dtype
    )


def _encode(name, value, dtype):
    """The pieces (key, st_dtype, shape, contiguous ndarray) storing one tensor, and its encoding."""
    dt = dtype.name
    if dt == "string":
        arr = np.asarray(value, dtype=object)
        flat = [v.encode() if isinstance(v, str) else bytes(v) for v in arr.reshape(-1)]
        offsets = np.zeros(len(flat) + 1, np.int64)
        if flat:
            np.cumsum([len(b) for b in flat], out=offsets[1:])
        blob = np.frombuffer(b"".join(flat), np.uint8)
        return "string", list(arr.shape), [
            (f"{name}:bytes", "U8", [blob.size], blob),
            (f"{name}:offsets", "I64", [offsets.size], offsets),
        ]
    np_dtype = dtype.as_numpy_dtype
    arr = np.asarray(value)
    if arr.dtype != np_dtype:
        arr = arr.astype(np_dtype)
    if not arr.flags.c_contiguous:  # variable buffers are: no copy
        arr = arr.copy(order="C")
    if arr.dtype.byteorder == ">":
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    shape = list(arr.shape)
    if dt in _ST_DTYPES:
        return "raw", shape, [(name, _ST_DTYPES[dt], shape, arr)]
    if dt in _COMPLEX_PART:
        part, st = _COMPLEX_PART[dt]
        return "complex", shape, [(f"{name}:complex", st, shape + [2], arr.view(part).reshape(
            shape + [2]))]
    if arr.dtype.kind in "OV" and arr.dtype.itemsize == 0:
        raise errors.UnimplementedError(None, None, f"Cannot save tensor {name} of type {dt}")
    flat = arr.reshape(-1).view(np.uint8)
    return "bytes", shape, [(f"{name}:raw", "U8", [flat.size], flat)]


def _header_bytes(header):
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    return h + b" " * (-len(h) % 8)


def _write_array(f, arr, crc):
    """Writes ``arr``'s bytes chunk by chunk, each checksummed just before it is written (while
    it is in cache); returns the CRC32C extended over them."""
    flat = arr.reshape(-1).view(np.uint8) if arr.size else np.empty(0, np.uint8)
    n = flat.size
    if n < _PIPE_MIN:
        for start in range(0, n, _CHUNK):
            chunk = flat[start:start + _CHUNK]
            crc = crc32c(chunk, crc)
            f.write(memoryview(chunk))
        return crc
    pipe = _CrcPipe(crc)  # checksums chunk i while chunk i + 1 is written
    try:
        for start in range(0, n, _CHUNK):
            chunk = flat[start:start + _CHUNK]
            pipe.add(chunk)
            f.write(memoryview(chunk))
    finally:
        pipe.close()
    return pipe.result()


# ------------------------------------------------------------------------------------------
# slices: a box is one (start, length) pair per dimension
# ------------------------------------------------------------------------------------------


def parse_slice_spec(spec):
    """TF's ``shape_and_slice`` string -> (full shape, box), or (None, None) for ``""`` (the
    whole tensor). ``"10 4 0,5:-"`` -> ([10, 4], [(0, 5), (0, 4)]); ``-`` is a whole dimension.
    """
    parts = spec.split()
    if not parts:
        return None, None
    try:
        full = [int(p) for p in parts[:-1]]
        pieces = parts[-1].split(":")
        if len(pieces) != len(full):
            raise ValueError
        box = []
        for d, piece in zip(full, pieces):
            if piece == "-":
                box.append((0, d))
            else:
                start, length = (int(v) for v in piece.split(","))
                box.append((start, length))
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"Invalid shape_and_slice spec {spec!r}: expected the full shape then "
            "one 'start,length' or '-' per dimension, e.g. '10 4 0,5:-'",
        ) from None
    for d, (start, length) in zip(full, box):
        if d < 0 or start < 0 or length < 0 or start + length > d:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid shape_and_slice spec {spec!r}: slice {start},{length} "
                f"exceeds the dimension {d}",
            )
    return full, box


def slice_spec_string(full_shape, box):
    """The inverse of ``parse_slice_spec``."""
    return " ".join(str(d) for d in full_shape) + " " + ":".join(f"{s},{n}" for s, n in box)


def _box_str(box):
    return "[" + ", ".join(f"{s}:{s + n}" for s, n in box) + "]"


def _intersect(a, b):
    out = []
    for (sa, na), (sb, nb) in zip(a, b):
        lo, hi = max(sa, sb), min(sa + na, sb + nb)
        if hi <= lo:
            return None
        out.append((lo, hi - lo))
    return out


def _volume(box):
    v = 1
    for _, n in box:
        v *= n
    return v


def _check_disjoint(name, boxes):
    """InvalidArgumentError when two of the (sorted) slices of tensor ``name`` overlap."""
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            if _intersect(boxes[i], boxes[j]) is not None:
                raise errors.InvalidArgumentError(
                    None, None, f"Slices {_box_str(boxes[i])} and {_box_str(boxes[j])} of "
                    f"tensor '{name}' overlap",
                )


# ------------------------------------------------------------------------------------------
# writing
# ------------------------------------------------------------------------------------------


def write_shard(path, names, values, value_dtypes=None, shard=0, specs=None):
    """Writes one safetensors data shard at ``path`` (atomically); returns the index entries.

    names: checkpoint keys; values: arrays (or nested lists); value_dtypes: their tf dtypes
    (default: inferred from the arrays); specs: TF slice specs (``""`` = the whole tensor),
    several slices of one tensor sharing its name.
    """
    if specs is None:
        specs = [""] * len(names)
    whole = {}   # name -> index of its value
    sliced = {}  # name -> [(box, index)]
    full_of = {}
    for i, (name, spec) in enumerate(zip(names, specs)):
        full, box = parse_slice_spec(spec)
        if full is None:
            if name in whole:
                dup = sorted({n for n in names if names.count(n) > 1})
                raise errors.InvalidArgumentError(
                    None, None, f"Duplicate tensor names in save: {dup}")
            whole[name] = i
        else:
            if name in full_of and full_of[name] != full:
                raise errors.InvalidArgumentError(
                    None, None, f"Slices of tensor '{name}' disagree on its full shape: "
                    f"{full_of[name]} and {full}",
                )
            full_of[name] = full
            sliced.setdefault(name, []).append((box, i))
        if name in whole and name in sliced:
            raise errors.InvalidArgumentError(
                None, None, f"Tensor '{name}' is saved both whole and as slices")
    pieces = []
    entries = {}
    header = {"__metadata__": {"format": FORMAT}}
    offset = 0

    def add(key_name, value, dtype, target):
        nonlocal offset
        encoding, shape, parts = _encode(key_name, value, dtype)
        keys = []
        nbytes = 0
        for key, st, st_shape, arr in parts:
            if key in header:
                raise errors.InvalidArgumentError(
                    None, None, f"Checkpoint key {key!r} of tensor {key_name!r} collides with "
                    "another tensor's key",
                )
            header[key] = {"dtype": st, "shape": st_shape,
                           "data_offsets": [offset, offset + arr.nbytes]}
            offset += arr.nbytes
            nbytes += arr.nbytes
            keys.append(key)
            pieces.append((target, arr))
        target.update({"shard": shard, "encoding": encoding, "keys": keys, "nbytes": nbytes,
                       "crc32c": 0})
        return shape

    def dtype_at(i):
        return _dtype_of(values[i], value_dtypes[i] if value_dtypes is not None else None)

    for i, (name, value) in enumerate(zip(names, values)):
        if whole.get(name) != i:
            continue
        dtype = dtype_at(i)
        e = {"dtype": dtype.name}
        e["shape"] = add(name, value, dtype, e)
        entries[name] = e
    for name, items in sliced.items():
        items.sort()
        _check_disjoint(name, [box for box, _ in items])
        dtype = dtype_at(items[0][1])
        slices = []
        for box, i in items:
            if dtype_at(i) != dtype:
                raise errors.InvalidArgumentError(
                    None, None, f"Slices of tensor '{name}' have different dtypes: "
                    f"{dtype.name} and {dtype_at(i).name}",
                )
            want = [n for _, n in box]
            got = list(np.shape(values[i]))
            if got != want:
                raise errors.InvalidArgumentError(
                    None, None, f"Slice {_box_str(box)} of tensor '{name}' (full shape "
                    f"{full_of[name]}) has shape {want}, but the value saved for it has shape "
                    f"{got}",
                )
            piece = {"offset": [s for s, _ in box], "shape": want}
            add(name + "@" + ":".join(f"{s},{n}" for s, n in box), values[i], dtype, piece)
            slices.append(piece)
        entries[name] = {"dtype": dtype.name, "shape": full_of[name], "slices": slices}
    head = _header_bytes(header)
    _drop_cached(path)
    with atomic_file(path) as f:
        f.write(struct.pack("<Q", len(head)))
        f.write(head)
        for target, arr in pieces:
            target["crc32c"] = _write_array(f, arr, target["crc32c"])
    return entries


def _index_checksum(doc):
    body = {k: v for k, v in doc.items() if k != "checksum"}
    return crc32c(json.dumps(body, sort_keys=True, separators=(",", ":")).encode("utf-8"))


def write_index(prefix, entries, num_shards):
    """Writes ``<prefix>.index`` atomically (the step that makes the checkpoint exist)."""
    doc = {"format": FORMAT, "version": VERSION, "num_shards": num_shards,
           "tensors": dict(sorted(entries.items()))}
    doc["checksum"] = _index_checksum(doc)
    atomic_write(index_filename(prefix), json.dumps(doc, indent=1, sort_keys=True))


def _ensure_dir(prefix):
    scheme, sep, _ = prefix.partition("://")
    if sep and "/" not in scheme:
        # tideflow's file system is local paths only (gfile.get_registered_schemes)
        raise errors.UnimplementedError(
            None, None, f"File system scheme '{scheme}' not implemented (file: '{prefix}')")
    d = os.path.dirname(prefix)
    if d and not os.path.isdir(d):
        # as TF, one missing level is created; a deeper one (or a file in the way) makes the
        # saver report the missing parent directory
        try:
            os.mkdir(d)
        except FileExistsError:
            if not os.path.isdir(d):
                raise errors.NotFoundError(
                    None, None, f"Failed to create a directory: {d}; Not a directory") from None
        except OSError as e:
            raise errors.NotFoundError(
                None, None, f"Failed to create a directory: {d}; {e.strerror}"
            ) from None


def save(prefix, names, values, value_dtypes=None, specs=None):
    """Writes a one-shard checkpoint: the data file, then the index."""
    _ensure_dir(prefix)
    entries = write_shard(data_filename(prefix, 0, 1), names, values, value_dtypes, specs=specs)
    write_index(prefix, entries, 1)


# ------------------------------------------------------------------------------------------
# reading
# ------------------------------------------------------------------------------------------


def not_found(prefix):
    # TF lists the prefix's directory first: a missing one (or a file in its place) fails
    # that listing, an InvalidArgumentError quoting the file system's words
    d = os.path.dirname(prefix)
    if d and not os.path.isdir(d):
        why = ("Failed precondition: {}; Not a directory" if os.path.exists(d)
               else "Not found: {}; No such file or directory").format(d)
        return errors.InvalidArgumentError(
            None, None, "Unsuccessful TensorSliceReader constructor: Failed to get matching "
            f"files on {prefix}: {why}")
    return errors.NotFoundError(
        None, None,
        f"Unsuccessful TensorSliceReader constructor: Failed to find any matching files for "
        f"{prefix}",
    )


class Reader:
    """Reads the tensors of one checkpoint (whole, or any box of them), verifying every
    checksum."""

    def __init__(self, prefix):
        self.prefix = prefix
        path = index_filename(prefix)
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            raise not_found(prefix) from None
        from tideflow.train import tf_bundle

        if tf_bundle.is_bundle_index(raw):  # written by TensorFlow: read-only support
            self.num_shards, self.tensors = tf_bundle.read_index(raw, path)
            self._headers = {}
            return
        try:
            doc = json.loads(raw)
            ok = doc.get("format") == FORMAT and doc.get("checksum") == _index_checksum(doc)
        except (ValueError, AttributeError):
            ok = False
        if not ok:
            raise errors.DataLossError(
                None, None, f"Unable to read checkpoint index {path}: corrupted or not a "
                "tideflow checkpoint index (checksum mismatch)",
            )
        if doc.get("version", 1) > VERSION:
            raise errors.UnimplementedError(
                None, None, f"Checkpoint index {path} has format version {doc['version']}; this "
                f"tideflow reads versions up to {VERSION}",
            )
        self.num_shards = doc["num_shards"]
        self.tensors = doc["tensors"]
        self._headers = {}

    def _shard_header(self, shard, name):
        h = self._headers.get(shard)
        if h is not None:
            return h
        path = data_filename(self.prefix, shard, self.num_shards)
        try:
            with open(path, "rb") as f:
                n = f.read(8)
                if len(n) < 8:
                    raise errors.DataLossError(
                        None, None, f"Checkpoint data file {path} is truncated (reading tensor "
                        f"'{name}')",
                    )
                (hlen,) = struct.unpack("<Q", n)
                head = f.read(hlen) if hlen < (1 << 30) else b""
                try:
                    header = json.loads(head)
                except ValueError:
                    raise errors.DataLossError(
                        None, None, f"Checkpoint data file {path} has a corrupted header "
                        f"(reading tensor '{name}')",
                    ) from None
                size = os.fstat(f.fileno()).st_size
        except FileNotFoundError:
            raise errors.NotFoundError(
                None, None, f"Checkpoint data file {path} not found (needed for tensor "
                f"'{name}' of checkpoint {self.prefix})",
            ) from None
        h = (path, 8 + hlen, header, size)
        self._headers[shard] = h
        return h

    def has(self, name):
        return name in self.tensors

    def entry(self, name):
        e = self.tensors.get(name)
        if e is None:
            raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint")
        return e

    def dtype(self, name):
        return dtypes.as_dtype(self.entry(name)["dtype"])

    def shape(self, name):
        """The shape of the whole tensor (of the full variable, for a sliced one)."""
        return list(self.entry(name)["shape"])

    def pieces(self, name):
        """[(box, piece)]: where the stored pieces of ``name`` sit in the whole tensor."""
        e = self.entry(name)
        if "slices" not in e:
            return [([(0, d) for d in e["shape"]], e)]
        return [(list(zip(p["offset"], p["shape"])), p) for p in e["slices"]]

    # -- one stored piece -------------------------------------------------------------------
    def _read_key(self, f, path, base, header, size, name, key, out, crc):
        info = header.get(key)
        if info is None:
            raise errors.DataLossError(
                None, None, f"Checkpoint data file {path} lacks the entry {key!r} of tensor "
                f"'{name}' (the data file does not match the index)",
            )
        begin, end = info["data_offsets"]
        if end - begin != out.nbytes:
            raise errors.DataLossError(
                None, None, f"Checkpoint data file {path}: entry of tensor '{name}' holds "
                f"{end - begin} bytes, the index expects {out.nbytes}",
            )
        if base + end > size:
            raise errors.DataLossError(
                None, None, f"Checkpoint data file {path} is truncated: tensor '{name}' needs "
                f"bytes up to {base + end}, the file has {size}",
            )
        view = memoryview(out.reshape(-1).view(np.uint8)) if out.nbytes else memoryview(b"")
        if out.nbytes > _READ_CHUNK and hasattr(os, "posix_fadvise"):
            # start reading the whole tensor ahead while the chunks are checksummed
            with contextlib.suppress(OSError):
                os.posix_fadvise(f.fileno(), base + begin, out.nbytes, os.POSIX_FADV_WILLNEED)
        f.seek(base + begin)
        pos = 0
        # large tensors: chunk i is checksummed on a helper thread while chunk i + 1 is read
        pipe = _CrcPipe(crc) if out.nbytes >= _PIPE_MIN else None
        try:
            while pos < out.nbytes:
                k = min(_READ_CHUNK, out.nbytes - pos)
                got = f.readinto(view[pos:pos + k])
                if not got:
                    raise errors.DataLossError(
                        None, None, f"Checkpoint data file {path} is truncated (reading tensor "
                        f"'{name}')",
                    )
                if pipe is not None:
                    pipe.add(view[pos:pos + got])
                else:
                    crc = crc32c(view[pos:pos + got], crc)
                pos += got
        finally:
            if pipe is not None:
                pipe.close()
        return pipe.result() if pipe is not None else crc

    def _read_piece(self, name, piece, dtype, out=None, files=None):
        """The value of one stored piece (a whole tensor or one slice), verified against its
        checksum; read straight into ``out`` (a C-contiguous array of its shape and dtype)
        when given."""
        if piece["encoding"].startswith("tf_bundle"):
            from tideflow.train import tf_bundle

            return tf_bundle.read_piece(
                data_filename(self.prefix, piece["shard"], self.num_shards), name, piece, dtype,
                out)
        path, base, header, size = self._shard_header(piece["shard"], name)
        shape = tuple(piece["shape"])
        enc = piece["encoding"]
        crc = 0
        f = files.get(path) if files is not None else None
        own = f is None
        if own:
            try:
                f = open(path, "rb", buffering=0)  # noqa: SIM115 - closed below
            except FileNotFoundError:
                raise errors.NotFoundError(
                    None, None, f"Checkpoint data file {path} not found (needed for tensor "
                    f"'{name}' of checkpoint {self.prefix})",
                ) from None
            if files is not None:
                files[path] = f
                own = False
        try:
            if enc == "string":
                kb, ko = piece["keys"]
                blob = np.empty(header.get(kb, {}).get("shape", [0])[0], np.uint8)
                n = int(np.prod(shape, dtype=np.int64))
                offsets = np.empty(n + 1, np.int64)
                crc = self._read_key(f, path, base, header, size, name, kb, blob, crc)
                crc = self._read_key(f, path, base, header, size, name, ko, offsets, crc)
                result = None
            else:
                result = out if out is not None else np.empty(shape, dtype.as_numpy_dtype)
                target = result
                if enc == "complex":
                    target = result.view(_COMPLEX_PART[dtype.name][0])
                crc = self._read_key(f, path, base, header, size, name, piece["keys"][0],
                                     target, crc)
        finally:
            if own:
                f.close()
        if crc != piece["crc32c"]:
            raise errors.DataLossError(
                None, None, f"Checksum does not match for tensor '{name}' in checkpoint data "
                f"file {path}: stored crc32c {piece['crc32c']:#010x}, computed {crc:#010x} on "
                "the bytes read (the file is corrupted)",
            )
        if enc == "string":
            data = blob.tobytes()
            if (n and (offsets[0] != 0 or offsets[-1] != len(data)
                       or np.any(np.diff(offsets) < 0))):
                raise errors.DataLossError(
                    None, None, f"Corrupted string offsets for tensor '{name}' in {path}"
                )
            flat = np.empty(n, dtype=object)
            o = offsets.tolist()
            for i in range(n):
                flat[i] = data[o[i]:o[i + 1]]
            result = flat.reshape(shape)
            if out is not None:
                out[...] = result
                result = out
        return result

    # -- whole tensors and boxes ------------------------------------------------------------
    def read(self, name):
        """The value of tensor ``name`` (a fresh array, assembled from its slices if it was
        saved as slices), verified against its checksums."""
        return self.read_many([(name, None, None)])[0]

    def read_many(self, requests):
        """The values of ``requests``, a list of ``(name, box, out[, lock])``: ``box`` the part
        of the tensor wanted (None: all of it); ``out`` None, an array to read it into
        (C-contiguous, of the box's shape and the stored dtype), or a callable returning such an
        array or None, called just before the read; ``lock`` held while ``out`` is written.
        Each stored piece is read once per call however many requests need it."""
        plans = []
        uses = {}
        for name, box, out, *lock in requests:
            e = self.entry(name)
            # TF's TensorSlice text of the request: "-" for each dimension of a whole read
            spec = ":".join(f"{a},{n}" for a, n in box) if box is not None else ":".join(
                "-" for _ in e["shape"])
            if box is None:
                box = [(0, d) for d in e["shape"]]
            hits = []
            covered = 0
            for k, (pbox, piece) in enumerate(self.pieces(name)):
                inter = _intersect(pbox, box)
                if inter is not None:
                    hits.append((k, pbox, piece, inter))
                    covered += _volume(inter)
            if covered != _volume(box):
                raise errors.InvalidArgumentError(  # TF 1.15's class and words
                    None, None, f"Does not have sufficient slices for partitioned tensor {name} "
                    f"to restore in slice_spec: {spec}")
            direct = len(hits) == 1 and hits[0][1] == box
            for k, *_ in hits:
                uses[(name, k)] = uses.get((name, k), 0) + 1
            plans.append((name, e, box, out, lock[0] if lock else None, hits, direct))
        cache = {}
        files = {}
        results = []
        early = self._read_side_by_side(plans, uses)
        try:
            for i, (name, e, box, out, lock, hits, direct) in enumerate(plans):
                if i in early:
                    results.append(early[i])
                    continue
                dtype = dtypes.as_dtype(e["dtype"])
                with lock if lock is not None else contextlib.nullcontext():
                    if callable(out):
                        out = out()
                    if direct:
                        k, _, piece, _ = hits[0]
                        value = cache.get((name, k))
                        if value is None:
                            value = self._read_piece(name, piece, dtype, out, files)
                        elif out is not None:
                            out[...] = value
                            value = out
                        self._keep(cache, uses, (name, k), value)
                        results.append(value)
                        continue
                    if out is None:
                        out = np.empty(tuple(n for _, n in box), object
                                       if dtype == dtypes.string else dtype.as_numpy_dtype)
                    for k, pbox, piece, inter in hits:
                        value = cache.get((name, k))
                        if value is None:
                            value = self._read_piece(name, piece, dtype, None, files)
                        self._keep(cache, uses, (name, k), value)
                        src = tuple(slice(s - p, s - p + n) for (s, n), (p, _) in zip(inter, pbox))
                        dst = tuple(slice(s - b, s - b + n) for (s, n), (b, _) in zip(inter, box))
                        out[dst] = value[src]
                    results.append(out)
        finally:
            for f in files.values():
                f.close()
        return results

    def _read_side_by_side(self, plans, uses):
        """{plan index: value} of the whole tensors no other request shares, read READERS at a
        time, each reader with its own file handles, when there are enough bytes: from a warm
        page cache one thread copies at one core's speed (2 readers: 1.7x here)."""
        picked = [i for i, (name, e, _, _, _, hits, direct) in enumerate(plans)
                  if direct and uses[(name, hits[0][0])] == 1 and e["dtype"] != "string"]
        total = sum(plans[i][5][0][2].get("nbytes", 0) for i in picked)
        if READERS < 2 or len(picked) < 2 or total < _SIDE_BY_SIDE_MIN:
            return {}
        done, errs = {}, []
        todo = iter(picked)
        take = threading.Lock()

        def reader():
            files = {}
            try:
                while not errs:
                    with take:
                        i = next(todo, None)
                    if i is None:
                        return
                    name, e, _, out, lock, hits, _ = plans[i]
                    with lock if lock is not None else contextlib.nullcontext():
                        if callable(out):
                            out = out()
                        done[i] = self._read_piece(name, hits[0][2], dtypes.as_dtype(e["dtype"]),
                                                   out, files)
            except BaseException as err:  # noqa: BLE001 - re-raised by the caller
                errs.append((i, err))
            finally:
                for f in files.values():
                    f.close()

        others = [threading.Thread(target=reader, name="tideflow-restore", daemon=True)
                  for _ in range(READERS - 1)]
        for t in others:
            t.start()
        reader()
        for t in others:
            t.join()
        if errs:
            raise min(errs, key=lambda ie: ie[0])[1]  # the first failing request's error
        return done

    @staticmethod
    def _keep(cache, uses, key, value):
        left = uses[key] - 1
        uses[key] = left
        if left > 0:
            cache[key] = value
        else:
            cache.pop(key, None)


def checkpoint_exists(prefix):
    return os.path.isfile(index_filename(prefix))


def data_files(prefix):
    return sorted(glob.glob(glob.escape(prefix) + ".data-?????-of-?????"))


def remove(prefix):
    """Deletes a checkpoint: the index first, so a partial deletion leaves no checkpoint."""
    for path in [index_filename(prefix), *data_files(prefix)]:
        with contextlib.suppress(FileNotFoundError):
            os.remove(path)


def _merge_entry(name, have, new):
    """Adds the slices of ``new`` to those of ``have`` (both entries of tensor ``name``)."""
    if "slices" not in have or "slices" not in new:
        raise errors.InvalidArgumentError(
            None, None, f"Tensor {name} appears in more than one checkpoint to merge")
    if have["dtype"] != new["dtype"] or have["shape"] != new["shape"]:
        raise errors.InvalidArgumentError(
            None, None, f"Slices of tensor '{name}' disagree: {have['dtype']} {have['shape']} "
            f"and {new['dtype']} {new['shape']}",
        )
    slices = sorted(have["slices"] + new["slices"], key=lambda p: p["offset"])
    _check_disjoint(name, [list(zip(p["offset"], p["shape"])) for p in slices])
    have["slices"] = slices


def merge(prefixes, destination, delete_old_dirs=True):
    """Merges one-or-more-shard checkpoints into one checkpoint at ``destination``.

    The data files are renamed (not copied) to ``destination.data-i-of-n``; the merged index
    is written last; the sources' indexes are removed and, with ``delete_old_dirs``, their
    directories when empty. The slices of one tensor saved by several shards are listed
    together under its name.
    """
    readers = [Reader(p) for p in prefixes]
    total = sum(r.num_shards for r in readers)
    entries = {}
    moves = []
    k = 0
    for r in readers:
        for s in range(r.num_shards):
            moves.append((data_filename(r.prefix, s, r.num_shards),
                          data_filename(destination, k + s, total)))
        for name, e in r.tensors.items():
            e = json.loads(json.dumps(e))  # a deep copy
            for piece in e.get("slices", [e]):
                piece["shard"] = k + piece["shard"]
            if name in entries:
                _merge_entry(name, entries[name], e)
            else:
                entries[name] = e
        k += r.num_shards
    d = os.path.dirname(destination)
    if d:
        os.makedirs(d, exist_ok=True)
    for src, dst in moves:
        os.replace(src, dst)
    write_index(destination, entries, total)
    for r in readers:
        with contextlib.suppress(FileNotFoundError):
            os.remove(index_filename(r.prefix))
        if delete_old_dirs:
            with contextlib.suppress(OSError):
                os.rmdir(os.path.dirname(r.prefix))
