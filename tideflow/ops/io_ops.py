"""Readers (``tf.TFRecordReader``, ``tf.TextLineReader``, ``tf.FixedLengthRecordReader``,
``tf.WholeFileReader``, ``tf.IdentityReader``) and the file ops ``ReadFile``, ``WriteFile``
and ``MatchingFiles``.

A reader is a resource that produces (key, value) records from a sequence of *work units*
(file names) that it dequeues from a queue whenever it finishes the previous one; an
OutOfRangeError from a closed, empty queue ends the reading.
"""

import gzip
import io
import os
import threading
import time
import zlib

import numpy as np

from tideflow.framework import dtypes, errors, file_io, op_registry, ops, record_io, wire_format
from tideflow.framework.tensor_shape import TensorShape, scalar
from tideflow.ops.queue_ops import QueueResource, resource_name

_LOCK_SLICE = 0.05

# ------------------------------------------------------------------------------------------
# reader resources
# ------------------------------------------------------------------------------------------


def _not_found(path, e):
    return errors.NotFoundError(None, None, f"{path}; {e.strerror or e}")


def _open(path):
    try:
        return open(path, "rb")
    except FileNotFoundError as e:
        raise _not_found(path, e) from None
    except IsADirectoryError as e:
        raise errors.FailedPreconditionError(None, None, f"{path}; Is a directory") from e


class ReaderResource:
    """The work-unit bookkeeping of every reader (TF's ReaderBase)."""

    def __init__(self, name):
        self.name = name
        self._lock = threading.Lock()
        self.work = None  # the current file name (str), None between work units
        self.last_work = None  # the last work unit (TF keeps it in the serialized state)
        self.num_records_produced = 0
        self.work_started = 0
        self.work_finished = 0

    # -- hooks of the reader kinds --------------------------------------------------------
    def on_work_started(self):
        pass

    def on_work_finished(self):
        pass

    def read_locked(self):
        """One record of the current work: (key, value, at_end); key None if none produced."""
        raise NotImplementedError

    def reset_locked(self):
        self.on_work_finished()

    # -- the locking protocol -------------------------------------------------------------
    def _acquire(self, step):
        while not self._lock.acquire(timeout=_LOCK_SLICE):
            if step is not None:
                if step.cancelled.is_set():
                    raise errors.CancelledError(None, None, "Read operation was cancelled")
                if step.deadline is not None and time.monotonic() >= step.deadline:
                    raise errors.DeadlineExceededError(
                        None, None, "Timed out waiting for notification")

    def _next_work(self, queue, step):
        if not isinstance(queue, QueueResource):
            raise errors.InvalidArgumentError(
                None, None, f"Expected a queue handle for the reader, got {queue!r}")
        comps = queue.dequeue(step)
        problem = ("Expected single component queue" if len(comps) != 1 else
                   "Expected queue with single string component"
                   if queue.dtypes[0] != dtypes.string else
                   "Expected to dequeue a one-element string tensor"
                   if np.asarray(comps[0]).size != 1 else None)
        if problem is not None:
            raise errors.InvalidArgumentError(None, None, problem)
        w = np.asarray(comps[0]).reshape(())[()]
        self.work = w.decode() if isinstance(w, bytes) else str(w)
        try:
            self.on_work_started()
        except Exception:
            # as TF: the failed unit is not counted and the next read takes the next one
            self.last_work, self.work = self.work, None
            raise
        self.work_started += 1

    def _finish_work(self):
        self.on_work_finished()
        self.work_finished = self.work_started
        self.last_work, self.work = self.work, None

    def read(self, queue, step):
        self._acquire(step)
        try:
            while True:
                if self.work is None:
                    self._next_work(queue, step)
                key, value, at_end = self.read_locked()
                if key is None and not at_end:
                    raise errors.InternalError(
                        None, None, f"ReadLocked() for {self.name} must set *at_end=true, "
                        "*produced=true, or return an error.")
                if at_end:
                    self._finish_work()
                if key is not None:
                    self.num_records_produced += 1
                    return key, value
        finally:
            self._lock.release()

    def read_up_to(self, queue, n, step):
        if n <= 0:
            raise errors.InvalidArgumentError(
                None, None, f"num_records ({n}) must be greater than 0")
        keys, values = [], []
        self._acquire(step)
        try:
            while len(keys) < n:
                if self.work is None:
                    self._next_work(queue, step)
                key, value, at_end = self.read_locked()
                if key is not None:
                    keys.append(key)
                    values.append(value)
                    self.num_records_produced += 1
                elif not at_end:
                    raise errors.InternalError(None, None, f"{self.name} produced nothing")
                if at_end:
                    self._finish_work()
                    if keys:  # records never span work units within one call
                        break
        finally:
            self._lock.release()
        return keys, values

    def reset(self, step):
        self._acquire(step)
        try:
            self.reset_locked()
            self.work = self.last_work = None
            self.num_records_produced = 0
            self.work_started = 0
            self.work_finished = 0
        finally:
            self._lock.release()

    def close_resource(self):
        with self._lock:
            self.on_work_finished()

    def _key(self, suffix):
        return f"{self.work}:{suffix}".encode()


class IdentityReaderResource(ReaderResource):
    """Each work unit is one record whose key and value are the work itself. Its state (TF's
    ReaderBaseState proto: work_started, work_finished, num_records_produced, current_work)
    can be saved and restored."""

    def read_locked(self):
        w = self.work.encode()
        return w, w, True

    def serialize_state(self):
        with self._lock:
            fields = ((1, self.work_started), (2, self.work_finished),
                      (3, self.num_records_produced))
            out = b"".join(wire_format.encode_varint(f << 3) + wire_format.encode_varint(v)
                           for f, v in fields if v)
            current = self.work or self.last_work
            if current:
                work = current.encode()
                out += b"\x22" + wire_format.encode_varint(len(work)) + work
            return out

    def restore_state(self, state, step):
        try:
            values = _parse_base_state(state)
        except ValueError:
            raise errors.InvalidArgumentError(
                None, None, f"Could not parse state for {self.name}: {_c_escape(state)}") from None
        started, finished, produced, work = values
        if min(started, finished, produced) < 0:
            raise errors.InvalidArgumentError(
                None, None, f"Unexpected negative value when restoring in {self.name}")
        if finished > started:
            raise errors.InvalidArgumentError(
                None, None, f"Inconsistent work started vs. finished when restoring in "
                f"{self.name}")
        self._acquire(step)
        try:
            self.work_started, self.work_finished = started, finished
            self.num_records_produced = produced
            self.last_work = work.decode() if work else None
            self.work = self.last_work if started > finished else None
        finally:
            self._lock.release()


def _c_escape(data):
    """``data`` as TF quotes bytes in messages (absl's CEscape)."""
    named = {9: "\\t", 10: "\\n", 13: "\\r", 34: '\\"', 39: "\\'", 92: "\\\\"}
    return "".join(named.get(b) or (chr(b) if 32 <= b < 127 else f"\\{b:03o}")
                   for b in bytes(data))


def _parse_base_state(buf):
    """(work_started, work_finished, num_records_produced, current_work) of a serialized
    ReaderBaseState; ValueError for bytes a protobuf parser rejects (unknown fields are
    skipped, as protobuf does)."""
    out = [0, 0, 0, b""]
    pos = 0
    while pos < len(buf):
        tag, pos = wire_format.decode_varint(buf, pos)
        field, kind = tag >> 3, tag & 7
        if field == 0:
            raise ValueError("field number 0")
        if kind == 0:
            value, pos = wire_format.decode_varint(buf, pos)
            if field in (1, 2, 3):
                out[field - 1] = value - (1 << 64) if value >= 1 << 63 else value
        elif kind == 2:
            n, pos = wire_format.decode_varint(buf, pos)
            if pos + n > len(buf):
                raise ValueError("truncated field")
            if field == 4:
                out[3] = bytes(buf[pos:pos + n])
            pos += n
        elif kind in (1, 5):
            pos += 8 if kind == 1 else 4
            if pos > len(buf):
                raise ValueError("truncated field")
        else:  # groups and the unused wire types
            raise ValueError(f"wire type {kind}")
    return out


class WholeFileReaderResource(ReaderResource):
    """Each file is one record: key the file name, value its contents."""

    def read_locked(self):
        with _open(self.work) as f:
            data = f.read()
        return self.work.encode(), data, True

    # as TF, its state is the base state alone (an IdentityReader's)
    serialize_state = IdentityReaderResource.serialize_state
    restore_state = IdentityReaderResource.restore_state


class TextLineReaderResource(ReaderResource):
    """One record per line (without its newline); key ``file:line_number`` (from 1)."""

    def __init__(self, name, skip_header_lines=0):
        super().__init__(name)
        self.skip_header_lines = skip_header_lines
        self._file = None
        self._line = 0

    def on_work_started(self):
        self._file = _open(self.work)
        self._line = 0
        for _ in range(self.skip_header_lines):
            if not self._file.readline():
                break
            self._line += 1

    def on_work_finished(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def read_locked(self):
        line = self._file.readline()
        if not line:
            return None, None, True
        self._line += 1
        if line.endswith(b"\n"):
            line = line[:-1]
        if line.endswith(b"\r"):
            line = line[:-1]
        return self._key(self._line), line, False


def _decompressed(path, encoding):
    if encoding == "GZIP":
        try:
            with gzip.open(path, "rb") as f:
                return io.BytesIO(f.read())
        except FileNotFoundError as e:
            raise _not_found(path, e) from None
    with _open(path) as f:
        return io.BytesIO(zlib.decompress(f.read()))


class FixedLengthRecordReaderResource(ReaderResource):
    """Records of ``record_bytes`` after ``header_bytes`` and before ``footer_bytes``; with
    ``hop_bytes`` the records start every hop_bytes bytes. Key ``file:record_number`` (from 0)."""

    def __init__(self, name, record_bytes, header_bytes=0, footer_bytes=0, hop_bytes=0,
                 encoding=""):
        super().__init__(name)
        self.record_bytes = record_bytes
        self.header_bytes = header_bytes
        self.footer_bytes = footer_bytes
        self.hop_bytes = hop_bytes
        self.encoding = encoding
        self._file = None
        self._record = 0
        self._limit = 0

    def on_work_started(self):
        if self.encoding:
            self._file = _decompressed(self.work, self.encoding)
            size = len(self._file.getbuffer())
        else:
            self._file = _open(self.work)
            size = os.fstat(self._file.fileno()).st_size
        self._limit = size - self.footer_bytes
        self._record = 0
        if size < self.header_bytes:  # TF's skip of the header fails
            self.on_work_finished()
            raise errors.OutOfRangeError(None, None, "reached end of file")

    def on_work_finished(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def read_locked(self):
        step = self.hop_bytes or self.record_bytes
        start = self.header_bytes + self._record * step
        if start + self.record_bytes > self._limit:
            return None, None, True
        self._file.seek(start)
        data = self._file.read(self.record_bytes)
        if len(data) < self.record_bytes:
            return None, None, True
        key = self._key(self._record)
        self._record += 1
        return key, data, False


class TFRecordReaderResource(ReaderResource):
    """The records of TFRecord files (optionally GZIP/ZLIB); key ``file:offset``."""

    def __init__(self, name, compression_type=""):
        super().__init__(name)
        self.options = record_io.TFRecordOptions(compression_type or None)
        self._records = None

    def on_work_started(self):
        if not os.path.exists(self.work):
            raise _not_found(self.work, FileNotFoundError(2, "No such file or directory"))
        self._records = record_io.read_records(self.work, self.options)
        self._next = 0  # the offset of the next record

    def on_work_finished(self):
        if self._records is not None:
            self._records.close()
            self._records = None

    def read_locked(self):
        if self._records is None:  # a damaged record failed: as TF, each read tries it again
            self._records = record_io.read_records(self.work, self.options, offset=self._next)
        try:
            offset, data = next(self._records)
        except StopIteration:
            return None, None, True
        except errors.DataLossError:
            self._records = None
            raise
        self._next = offset + 16 + len(data)
        return self._key(offset), data, False


# ------------------------------------------------------------------------------------------
# reader op declarations
# ------------------------------------------------------------------------------------------


def _reader_factory(make):
    def factory(ctx):
        op = ctx.op
        container = op._attrs.get("container") or ""
        name = resource_name(ctx)
        # TF names a reader in its messages by kind and node: "TextLineReader 'reader'"
        shown = f"{op.type.removesuffix('V2')} '{op.name}'"

        def run():
            return ctx.resource_mgr.lookup_or_create(container, name,
                                                     lambda: make(shown, op._attrs))

        return run

    return factory


_SHARED = ["container: string = ''", "shared_name: string = ''"]

for _type, _attrs, _make in (
    ("IdentityReaderV2", [], lambda n, a: IdentityReaderResource(n)),
    ("WholeFileReaderV2", [], lambda n, a: WholeFileReaderResource(n)),
    ("TextLineReaderV2", ["skip_header_lines: int = 0"],
     lambda n, a: TextLineReaderResource(n, a["skip_header_lines"])),
    ("FixedLengthRecordReaderV2",
     ["header_bytes: int = 0", "record_bytes: int", "footer_bytes: int = 0",
      "hop_bytes: int = 0", "encoding: string = ''"],
     lambda n, a: FixedLengthRecordReaderResource(
         n, a["record_bytes"], a["header_bytes"], a["footer_bytes"], a["hop_bytes"],
         a["encoding"])),
    ("TFRecordReaderV2", ["compression_type: string = ''"],
     lambda n, a: TFRecordReaderResource(n, a["compression_type"])),
):
    op_registry.declare(
        _type,
        outputs=["reader_handle: resource"],
        attrs=[*_attrs, *_SHARED],
        shape=lambda op: [scalar()],
        kernel_factory=_reader_factory(_make),
        differentiable=False,
        stateful=True,
    )


def _reader(handle):
    if not isinstance(handle, ReaderResource):
        raise errors.InvalidArgumentError(None, None, f"Expected a reader handle, got {handle!r}")
    return handle


def _read_kernel(reader_handle, queue_handle, *, step):
    key, value = _reader(reader_handle).read(queue_handle, step)
    return [np.asarray(key, dtype=object), np.asarray(value, dtype=object)]


def _read_up_to_kernel(reader_handle, queue_handle, num_records, *, step):
    keys, values = _reader(reader_handle).read_up_to(queue_handle, int(num_records), step)
    k = np.empty(len(keys), dtype=object)
    v = np.empty(len(values), dtype=object)
    k[:] = keys
    v[:] = values
    return [k, v]


def _num_records_kernel(reader_handle):
    return np.int64(_reader(reader_handle).num_records_produced)


def _num_work_units_kernel(reader_handle):
    return np.int64(_reader(reader_handle).work_finished)


def _reset_kernel(reader_handle, *, step):
    _reader(reader_handle).reset(step)


def _serialize_kernel(reader_handle):
    reader = _reader(reader_handle)
    if not hasattr(reader, "serialize_state"):
        raise errors.UnimplementedError(
            None, None, "Reader SerializeState")  # TF's words
    return np.asarray(reader.serialize_state(), dtype=object)


def _restore_kernel(reader_handle, state, *, step):
    reader = _reader(reader_handle)
    if not hasattr(reader, "restore_state"):
        raise errors.UnimplementedError(
            None, None, "Reader RestoreState")
    reader.restore_state(np.asarray(state, dtype=object).reshape(())[()], step)


def _restore_state_shape(op):
    state = op._inputs[1]._shape
    if state.ndims is not None and state.ndims != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {state.ndims}")
    return []


_READER_OPS = (
    ("ReaderReadV2", ["reader_handle: resource", "queue_handle: resource"],
     ["key: string", "value: string"], lambda op: [scalar(), scalar()], _read_kernel),
    ("ReaderReadUpToV2",
     ["reader_handle: resource", "queue_handle: resource", "num_records: int64"],
     ["keys: string", "values: string"],
     lambda op: [TensorShape([None]), TensorShape([None])], _read_up_to_kernel),
    ("ReaderNumRecordsProducedV2", ["reader_handle: resource"], ["records_produced: int64"],
     lambda op: [scalar()], _num_records_kernel),
    ("ReaderNumWorkUnitsCompletedV2", ["reader_handle: resource"], ["units_completed: int64"],
     lambda op: [scalar()], _num_work_units_kernel),
    ("ReaderResetV2", ["reader_handle: resource"], [], None, _reset_kernel),
    ("ReaderSerializeStateV2", ["reader_handle: resource"], ["state: string"],
     lambda op: [scalar()], _serialize_kernel),
    ("ReaderRestoreStateV2", ["reader_handle: resource", "state: string"], [],
     _restore_state_shape, _restore_kernel),
)

for _type, _inputs, _outputs, _shape, _kernel in _READER_OPS:
    op_registry.declare(
        _type,
        inputs=_inputs,
        outputs=_outputs,
        shape=_shape,
        kernel=_kernel,
        differentiable=False,
        stateful=True,
    )

# ------------------------------------------------------------------------------------------
# reader classes
# ------------------------------------------------------------------------------------------


class ReaderBase:
    """Base class of the readers: ``read``, ``read_up_to``, counters, ``reset``."""

    def __init__(self, reader_ref, supports_serialize=False):
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    @property
    def reader_ref(self):
        return self._reader_ref

    @property
    def supports_serialize(self):
        return self._supports_serialize

    @staticmethod
    def _queue_ref(queue):
        # as TF: a Tensor is the queue's handle, anything else must be a queue
        return queue if isinstance(queue, ops.Tensor) else queue.queue_ref

    def read(self, queue, name=None):
        """Returns (key, value), the next record; dequeues a new file from ``queue`` as needed."""
        op = ops.apply_op("ReaderReadV2", [self._reader_ref, self._queue_ref(queue)], name=name)
        return op.outputs[0], op.outputs[1]

    def read_up_to(self, queue, num_records, name=None):
        """Returns up to ``num_records`` (keys, values) from one file (at least one)."""
        # (converted by the op, as TF's: a number is "ReaderReadUpToV2/num_records")
        op = ops.apply_op("ReaderReadUpToV2",
                          [self._reader_ref, self._queue_ref(queue), num_records], name=name)
        return op.outputs[0], op.outputs[1]

    def num_records_produced(self, name=None):
        return ops.apply_op("ReaderNumRecordsProducedV2", [self._reader_ref],
                            name=name).outputs[0]

    def num_work_units_completed(self, name=None):
        return ops.apply_op("ReaderNumWorkUnitsCompletedV2", [self._reader_ref],
                            name=name).outputs[0]

    def serialize_state(self, name=None):
        return ops.apply_op("ReaderSerializeStateV2", [self._reader_ref], name=name).outputs[0]

    def restore_state(self, state, name=None):
        return ops.apply_op("ReaderRestoreStateV2", [self._reader_ref, state], name=name)

    def reset(self, name=None):
        """Restores the reader to its initial clean state."""
        return ops.apply_op("ReaderResetV2", [self._reader_ref], name=name)


def _reader_op(op_type, attrs, name):
    attrs = dict(attrs)
    attrs["container"] = ops.get_default_graph()._container
    return ops.apply_op(op_type, [], attrs, name=name).outputs[0]


class IdentityReader(ReaderBase):
    """Outputs each queued work string as both key and value."""

    def __init__(self, name=None):
        super().__init__(_reader_op("IdentityReaderV2", {}, name), supports_serialize=True)


class WholeFileReader(ReaderBase):
    """Outputs each file's name and entire contents."""

    def __init__(self, name=None):
        super().__init__(_reader_op("WholeFileReaderV2", {}, name), supports_serialize=True)


class TextLineReader(ReaderBase):
    """Outputs the lines of files, ``skip_header_lines`` skipped at the start of each."""

    def __init__(self, skip_header_lines=None, name=None):
        super().__init__(_reader_op("TextLineReaderV2",
                                    {"skip_header_lines": int(skip_header_lines or 0)}, name))


class FixedLengthRecordReader(ReaderBase):
    """Outputs fixed-length records of files."""

    def __init__(self, record_bytes, header_bytes=None, footer_bytes=None, hop_bytes=None,
                 name=None, encoding=None):
        super().__init__(_reader_op("FixedLengthRecordReaderV2", {
            "record_bytes": int(record_bytes), "header_bytes": int(header_bytes or 0),
            "footer_bytes": int(footer_bytes or 0), "hop_bytes": int(hop_bytes or 0),
            "encoding": encoding or ""}, name))


class TFRecordReader(ReaderBase):
    """Outputs the records of TFRecord files."""

    def __init__(self, name=None, options=None):
        compression = record_io.TFRecordOptions.get_compression_type_string(options)
        super().__init__(_reader_op("TFRecordReaderV2", {"compression_type": compression},
                                    name))


# ------------------------------------------------------------------------------------------
# ReadFile, WriteFile, MatchingFiles
# ------------------------------------------------------------------------------------------


def _path(value):
    v = np.asarray(value).reshape(-1)
    if v.size != 1:
        raise errors.InvalidArgumentError(
            None, None, f"Input filename tensor must be scalar, but had shape: {list(np.shape(value))}")
    v = v[0]
    return v.decode() if isinstance(v, bytes) else str(v)


def _read_file_kernel(filename):
    path = _path(filename)
    with _open(path) as f:
        return np.asarray(f.read(), dtype=object)


def _write_file_kernel(filename, contents):
    path = _path(filename)
    data = np.asarray(contents).reshape(-1)
    if data.size != 1:
        raise errors.InvalidArgumentError(
            None, None, f"Contents tensor must be scalar, but had shape: {list(np.shape(contents))}")
    data = data[0]
    if isinstance(data, str):
        data = data.encode()
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    with open(path, "wb") as f:
        f.write(bytes(data))


def _matching_files_kernel(pattern):
    pats = np.asarray(pattern).reshape(-1)
    found = []
    for p in pats:
        found.extend(file_io.matching_paths(p.decode() if isinstance(p, bytes) else str(p)))
    found.sort()  # as TF: the matches of all patterns sorted together
    out = np.empty(len(found), dtype=object)
    out[:] = [f.encode() for f in found]
    return out


def _scalar_input(op):
    s = op._inputs[0]._shape
    if s.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {s.ndims}")


op_registry.declare(
    "ReadFile",
    inputs=["filename: string"],
    outputs=["contents: string"],
    shape=lambda op: (_scalar_input(op), [scalar()])[1],
    kernel=_read_file_kernel,
    differentiable=False,
    stateful=True,  # reads the file system: never folded or merged
)

op_registry.declare(
    "WriteFile",
    inputs=["filename: string", "contents: string"],
    kernel=_write_file_kernel,
    differentiable=False,
    stateful=True,
)


def _matching_shape(op):
    s = op._inputs[0]._shape
    if s.ndims is not None and s.ndims > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {s.ndims}")
    return [TensorShape([None])]


op_registry.declare(
    "MatchingFiles",
    inputs=["pattern: string"],
    outputs=["filenames: string"],
    shape=_matching_shape,
    kernel=_matching_files_kernel,
    differentiable=False,
    stateful=True,
)


def read_file(filename, name=None):
    """The entire contents of the file ``filename`` (a scalar string)."""
    return ops.apply_op("ReadFile", [filename], name=name).outputs[0]


def write_file(filename, contents, name=None):
    """Writes ``contents`` to the file ``filename`` (creating its directory); returns the op."""
    return ops.apply_op("WriteFile", [filename, contents], name=name)


def matching_files(pattern, name=None):
    """The sorted names of the files matching the glob ``pattern`` (scalar or vector)."""
    return ops.apply_op("MatchingFiles", [pattern], name=name).outputs[0]
