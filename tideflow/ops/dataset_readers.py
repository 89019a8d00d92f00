"""File-reading datasets: ``TFRecordDataset``, ``TextLineDataset``, ``FixedLengthRecordDataset``.

Records are read from large buffered chunks and sliced out of them, so a record costs a few
slices and (for TFRecords) two CRC32C checks rather than several small file reads.
"""

import operator

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops, record_io
from tideflow.framework.tensor_shape import scalar
from tideflow.ops import dataset_values as dv
from tideflow.ops.dataset_ops import Dataset, DatasetSource, _tf_class_name
from tideflow.ops.dataset_structure import Spec

_DEFAULT_BUFFER = 256 * 1024


def _paths(filenames):
    out = []
    for f in np.asarray(filenames, dtype=object).reshape(-1):
        out.append(f.decode() if isinstance(f, bytes) else str(f))
    return out


def _compression(value, unknown="error"):
    """TF 1.15's compression names (exactly "GZIP" or "ZLIB"). Another one is, as each TF
    kernel has it: an error ("error": the text and fixed-length readers; "named": the CSV
    reader's words), or no compression ("none": the TFRecord reader and writer)."""
    c = np.asarray(value, dtype=object).reshape(())[()]
    c = c.decode() if isinstance(c, bytes) else str(c)
    if c not in ("", "GZIP", "ZLIB"):
        if unknown == "none":
            return ""
        # (the text and fixed-length readers read in a dataset function: TF's error then
        # starts with the space its dropped function tag leaves)
        raise errors.InvalidArgumentError(None, None, f"Unsupported compression_type: {c}."
                                          if unknown == "named"
                                          else "Unsupported compression_type.")
    return c


def _open(path, compression):
    return record_io.open_record_file(path, compression)


def tfrecords(path, compression="", buffer_size=0):
    """The records of one TFRecord file (both CRCs checked; DataLossError on corruption)."""
    return map(operator.itemgetter(1), record_io.read_records(path, compression,
                                                              buffer_size=buffer_size))


def _loss(path, offset, what):
    return errors.DataLossError(None, None, f"{what} in file {path!r} at offset {offset}")


def _split_lines(f, chunk):
    """The lines (each with its newline, the last maybe without) of a stream read in chunks
    (a zlib stream cannot be wrapped in a BufferedReader)."""
    rest = b""
    while True:
        data = f.read(chunk)
        if not data:
            break
        parts = (rest + data).split(b"\n")
        rest = parts.pop()
        for line in parts:
            yield line + b"\n"
    if rest:
        yield rest


def text_lines(path, compression="", buffer_size=0):
    f = _open(path, compression)
    try:
        stream = f if compression == "" else _split_lines(f, max(int(buffer_size or 0),
                                                                 _DEFAULT_BUFFER))
        for line in stream:
            if line.endswith(b"\n"):
                line = line[:-2] if line.endswith(b"\r\n") else line[:-1]
            yield line
    finally:
        f.close()


def fixed_length_records(path, header, record, footer, compression="", buffer_size=0):
    f = _open(path, compression)
    try:
        data = f.read()
    finally:
        f.close()
    body = data[header:len(data) - footer if footer else len(data)]
    n = len(body) // record
    bad = None
    if len(body) % record:
        bad = (f"Excluding the header ({header} bytes) and footer ({footer} bytes), input file "
               f"\"{path}\" has body length {len(body)} bytes, which is not an exact multiple "
               f"of the record length ({record} bytes).")
        if compression == "":  # TF checks the file size before reading an uncompressed file
            raise errors.InvalidArgumentError(None, None, bad)
    for i in range(n):
        yield body[i * record:(i + 1) * record]
    if bad is not None:  # a compressed file: the whole records, then the error at the end
        raise errors.DataLossError(None, None, bad)


class _Records(dv.DatasetValue):
    """Scalar string elements: the records of each file in turn."""

    def __init__(self, reader, paths, *args):
        self.reader, self.paths, self.args = reader, paths, args

    def iterate(self, rt):
        if len(self.paths) > 1:
            return self._files(rt)
        # one file: an error ends the data anyway, so no error-carrying stage is needed
        return self._records(rt)

    def _records(self, rt):
        for p in self.paths:
            # a scalar string element is its bytes (as Session.run returns it); zip makes the
            # one-component elements at C speed
            yield from zip(self.reader(p, *self.args))

    @dv.resumable
    def _files(self, rt):
        for p in self.paths:
            try:
                yield from zip(self.reader(p, *self.args))
            except errors.OpError as e:
                # as TF's readers: a file's error (a corrupt record) is raised in its turn and
                # the next file is read after it
                yield dv._Fail(e.with_traceback(None))


def _declare(name, inputs, make):
    def factory(ctx):
        return make

    op_registry.declare(
        name,
        inputs=inputs,
        outputs=["handle: variant"],
        shape=lambda op: [scalar()],
        kernel_factory=factory,
        differentiable=False,
    )


_declare("TFRecordDataset", ["filenames: string", "compression_type: string",
                             "buffer_size: int64"],
         lambda f, c, b: _Records(tfrecords, _paths(f), _compression(c, "none"), int(b)))
_declare("TextLineDataset", ["filenames: string", "compression_type: string",
                             "buffer_size: int64"],
         lambda f, c, b: _Records(text_lines, _paths(f), _compression(c), int(b)))
_declare("FixedLengthRecordDatasetV2",
         ["filenames: string", "header_bytes: int64", "record_bytes: int64",
          "footer_bytes: int64", "buffer_size: int64", "compression_type: string"],
         lambda f, h, r, ft, b, c: _Records(fixed_length_records, _paths(f), int(h), int(r),
                                            int(ft), _compression(c), int(b)))


# ------------------------------------------------------------------------------------------
# Python classes
# ------------------------------------------------------------------------------------------


def _filenames(filenames):
    """TF 1.15's dataset of file names: a dataset of strings as given, else the slices of the
    names as one flat vector (a Const, flat_filenames, a TensorSliceDataset)."""
    if isinstance(filenames, Dataset):
        if filenames.output_types != dtypes.string:
            raise TypeError("`filenames` must be a `tf.data.Dataset` of `tf.string` elements.")
        if not filenames.output_shapes.is_compatible_with(scalar()):
            raise TypeError("`filenames` must be a `tf.data.Dataset` of scalar `tf.string` "
                            "elements.")
        return filenames
    from tideflow.ops.array_ops import reshape

    t = ops.convert_to_tensor(filenames, dtype=dtypes.string)
    return Dataset.from_tensor_slices(reshape(t, [-1], name="flat_filenames"))


def _str_tensor(x, name):
    return ops.convert_to_tensor("" if x is None else x, dtype=dtypes.string, name=name)


def _i64(x, name):
    return ops.convert_to_tensor(x, dtype=dtypes.int64, name=name)


class _FileDataset(DatasetSource):
    """A reader of each file named by a dataset of file names, as TF 1.15 builds it: a
    flat_map of a function that makes the one-file reader (its arguments' constants made in
    that function), or TF's interleaves with ``num_parallel_reads``."""

    def __init__(self, filenames, num_parallel_reads, one_file):
        from tideflow.ops.dataset_experimental import parallel_interleave
        from tideflow.ops.dataset_ops import AUTOTUNE

        self._specs = Spec(dtypes.string, [])
        filenames = _filenames(filenames)
        if num_parallel_reads is None:
            self._impl = filenames.flat_map(one_file)
        elif isinstance(num_parallel_reads, int) and num_parallel_reads == AUTOTUNE:
            self._impl = filenames.interleave(one_file, num_parallel_calls=AUTOTUNE)
        else:
            self._impl = filenames.apply(parallel_interleave(
                one_file, cycle_length=num_parallel_reads, block_length=1, sloppy=False))

    def _input_datasets(self):
        return [self._impl]

    def _inputs(self):
        return []  # TF's: a reader is a source

    def _as_variant_tensor(self):
        return self._impl._as_variant_tensor()


class _OneFile(DatasetSource):
    def __init__(self, op_type, inputs):
        super().__init__(op_type, inputs, Spec(dtypes.string, []))

    def _as_variant_tensor(self):
        return self._apply_reserved(self._op_type, self._op_inputs)._outputs[0]


class TFRecordDataset(_FileDataset):
    """``tf.data.TFRecordDataset``: the records of one or more TFRecord files."""

    _repr_name = "TFRecordDatasetV1"

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None):
        def one_file(f):
            comp = _str_tensor(compression_type, "compression_type")
            size = _i64(_DEFAULT_BUFFER if buffer_size is None else buffer_size, "buffer_size")
            return _OneFile("TFRecordDataset", [f, comp, size])

        super().__init__(filenames, num_parallel_reads, one_file)


class TextLineDataset(_FileDataset):
    """``tf.data.TextLineDataset``: the lines of text files, without their line endings."""

    _repr_name = "TextLineDatasetV1"

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None):
        def one_file(f):
            comp = _str_tensor(compression_type, "compression_type")
            size = _i64(_DEFAULT_BUFFER if buffer_size is None else buffer_size, "buffer_size")
            return _OneFile("TextLineDataset", [f, comp, size])

        super().__init__(filenames, num_parallel_reads, one_file)


class FixedLengthRecordDataset(_FileDataset):
    """``tf.data.FixedLengthRecordDataset``: fixed-size records between a header and footer."""

    _repr_name = "FixedLengthRecordDatasetV1"

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None,
                 buffer_size=None, compression_type=None, num_parallel_reads=None):
        def one_file(f):
            ins = [_i64(header_bytes or 0, "header_bytes"), _i64(record_bytes, "record_bytes"),
                   _i64(footer_bytes or 0, "footer_bytes"),
                   _i64(_DEFAULT_BUFFER if buffer_size is None else buffer_size,
                        "buffer_size"),
                   _str_tensor(compression_type, "compression_type")]
            return _OneFile("FixedLengthRecordDatasetV2", [f, *ins])

        super().__init__(filenames, num_parallel_reads, one_file)


for _cls in (TFRecordDataset, TextLineDataset, FixedLengthRecordDataset):
    _tf_class_name(_cls, _cls.__name__ + "V1")  # TF 1.15's names of its V1 readers
del _cls
