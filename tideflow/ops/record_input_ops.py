"""``data_flow_ops.RecordInput``: TF 1.x's buffered, shuffled reader of TFRecord files (the
input path of tf_cnn_benchmarks' ``--use_datasets=false`` and of its 2017 versions).

Each run of the ``RecordInput`` op yields ``batch_size`` serialized records. The op keeps, per
node, a stream over every record of the files matching ``file_pattern``: epoch after epoch,
the sorted file list is shuffled (seeded by ``file_random_seed`` and the epoch), rotated by
``file_shuffle_shift_ratio`` of its length (so workers given different ratios start on
different files), and read into a buffer of ``file_buffer_size`` records, from which each
yielded record is drawn at random. Every record of an epoch is yielded once before the next
epoch's are; which one comes when is random, as in TF (whose reader threads add their own
nondeterminism)."""

import glob as _glob
import threading

import numpy as np

from tideflow.framework import errors, op_registry, ops, record_io
from tideflow.framework.tensor_shape import TensorShape

__all__ = ["RecordInput"]


class _RecordYielder:
    """The record stream and shuffle buffer of one RecordInput node."""

    def __init__(self, pattern, seed, shift_ratio, buffer_size, compression):
        self.pattern = pattern
        self.seed = seed
        self.shift_ratio = shift_ratio
        self.buffer_size = max(1, buffer_size)
        self.compression = compression
        self.epoch = 0
        self.buffer = []
        self.lock = threading.Lock()
        # seed 0 draws from fresh entropy, as a TF op seed of 0 does
        self.rng = np.random.RandomState(seed if seed else None)
        self._records = None

    def _epoch_files(self):
        files = sorted(_glob.glob(self.pattern))
        if not files:
            raise errors.NotFoundError(None, None, f"Found no files at {self.pattern}")
        order = (np.random.RandomState((self.seed + self.epoch) % 2**32) if self.seed
                 else self.rng).permutation(len(files))
        files = [files[i] for i in order]
        shift = int(self.shift_ratio * len(files)) % len(files)
        return files[shift:] + files[:shift]

    def _stream(self):
        """The records of epoch after epoch, with ``None`` after each epoch's last."""
        while True:
            found = False
            for path in self._epoch_files():
                for _, record in record_io.read_records(path, self.compression):
                    found = True
                    yield record
            if not found:
                raise errors.OutOfRangeError(
                    None, None, f"The files at {self.pattern} hold no records")
            self.epoch += 1
            yield None

    def take(self, n):
        with self.lock:
            if self._records is None:
                self._records = self._stream()
                self._epoch_done = False
            out = []
            for _ in range(n):
                # the buffer only takes the next epoch's records once this epoch's are out
                if self._epoch_done and not self.buffer:
                    self._epoch_done = False
                while not self._epoch_done and len(self.buffer) < self.buffer_size:
                    record = next(self._records)
                    if record is None:
                        self._epoch_done = True
                    else:
                        self.buffer.append(record)
                if not self.buffer:  # an epoch ended just as the buffer emptied
                    self._epoch_done = False
                    self.buffer.append(next(self._records))
                i = self.rng.randint(len(self.buffer))
                self.buffer[i], self.buffer[-1] = self.buffer[-1], self.buffer[i]
                out.append(self.buffer.pop())
            return out


def _record_input_kernel(*, ctx, file_pattern, file_random_seed, file_shuffle_shift_ratio,
                         file_buffer_size, batch_size, compression_type):
    op = ctx.op
    yielder = ctx.resource_mgr.lookup_or_create(
        "", f"{op.name}/record_yielder",
        lambda: _RecordYielder(file_pattern, file_random_seed, file_shuffle_shift_ratio,
                               file_buffer_size, compression_type or None))
    records = yielder.take(batch_size)
    out = np.empty(batch_size, dtype=object)
    out[:] = records
    return out


def _check_record_input(attrs):
    if attrs["batch_size"] < 1:
        raise errors.InvalidArgumentError(
            None, None, f"batch_size must be >= 1, got {attrs['batch_size']}")
    if attrs["compression_type"] not in ("", "ZLIB", "GZIP"):
        raise errors.InvalidArgumentError(
            None, None, f"Unsupported compression_type: {attrs['compression_type']!r}")


op_registry.declare(
    "RecordInput", outputs=["records: string"],
    attrs=["file_pattern: string", "file_random_seed: int = 301",
           "file_shuffle_shift_ratio: float = 0", "file_buffer_size: int = 10000",
           "file_parallelism: int = 16", "batch_size: int = 32",
           "compression_type: string = ''"],
    shape=lambda op: [TensorShape([op._attrs["batch_size"]])],
    kernel=_record_input_kernel, differentiable=False, stateful=True,
    check_attrs=_check_record_input)


class RecordInput:
    """Asynchronously read, randomly yielded TFRecords, as TF's ``data_flow_ops.RecordInput``.

    ``get_yield_op()`` is a string vector of ``batch_size`` records; with ``batches`` it is a
    list of ``batches`` lists of ``batch_size`` scalar records (record ``i`` in list
    ``i % batches``)."""

    def __init__(self, file_pattern, batch_size=1, buffer_size=1, parallelism=1,
                 shift_ratio=0, seed=0, name=None, batches=None, compression_type=None):
        self._batch_size = batch_size
        if batches is not None:
            self._batch_size *= batches
        self._batches = batches
        self._file_pattern = file_pattern
        self._buffer_size = buffer_size
        self._parallelism = parallelism
        self._shift_ratio = shift_ratio
        self._seed = seed
        self._name = name
        self._compression_type = (record_io.TFRecordCompressionType.NONE
                                  if compression_type is None else compression_type)

    def get_yield_op(self):
        """The records op (or, with ``batches``, the per-batch lists of scalar records)."""
        from tideflow.ops import array_ops

        compression = record_io.TFRecordOptions.get_compression_type_string(
            record_io.TFRecordOptions(self._compression_type))
        attrs = {"file_pattern": self._file_pattern, "file_buffer_size": self._buffer_size,
                 "file_parallelism": self._parallelism,
                 "file_shuffle_shift_ratio": float(self._shift_ratio),
                 "batch_size": self._batch_size, "file_random_seed": self._seed,
                 "compression_type": compression}
        records = ops.apply_op("RecordInput", [], attrs,
                               name=self._name or "RecordInput").outputs[0]
        if self._batches is None:
            return records
        with ops.name_scope(self._name):
            batch_list = [[] for _ in range(self._batches)]
            pieces = array_ops.split(records, self._batch_size, 0)
            for index, piece in enumerate(pieces):
                batch_list[index % self._batches].append(array_ops.reshape(piece, []))
            return batch_list
