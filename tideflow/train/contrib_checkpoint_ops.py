"""``tf.contrib.framework``'s checkpoint-remapping initializers: a 2-D variable initialized
from a checkpointed matrix whose rows (and optionally columns) follow an old vocabulary file,
re-ordered to a new vocabulary (``load_and_remap_matrix_initializer``), with the embedding,
linear multi-class bias and optimizer-slot variants built on it.

Rows of new words found in the old vocabulary copy the old rows; cells of new words (and the
out-of-vocabulary bucket rows/columns appended after the vocabulary) take values from
``initializer``, drawn when the variable is initialized (the missing cells in row-major order).
The checkpoint and vocabulary files are read when the initializer is called (when the variable
is made), as tideflow's ``warm_start`` does; a partitioned variable reads only its rows."""

import math

import numpy as np

from tideflow.framework import dtypes, ops


def _tf():
    import tideflow

    return tideflow


def _ckpt_file(ckpt_path):
    if isinstance(ckpt_path, list | tuple):
        if len(ckpt_path) != 1:
            raise ValueError(f"ckpt_path must name one checkpoint, got {ckpt_path}")
        ckpt_path = ckpt_path[0]
    if isinstance(ckpt_path, bytes):
        ckpt_path = ckpt_path.decode()
    if not isinstance(ckpt_path, str):
        raise TypeError(f"ckpt_path must be a checkpoint path string, got {ckpt_path!r}")
    return ckpt_path


def _vocab_lines(path, limit=-1):
    from tideflow import gfile

    with gfile.GFile(path, "r") as f:
        words = [line.rstrip("\r\n") for line in f]
    return words if limit is None or limit < 0 else words[:limit]


def _remapping(new_vocab_file, old_vocab_file, offset, count, old_vocab_size=-1):
    """For new vocabulary lines ``[offset, offset + count)``: each word's line in the old
    vocabulary (its first ``old_vocab_size`` lines), or -1."""
    new_words = _vocab_lines(new_vocab_file)
    if offset + count > len(new_words):
        raise ValueError(f"new_vocab_file {new_vocab_file} has {len(new_words)} entries, fewer "
                         f"than new_vocab_offset + num_new_vocab = {offset + count}")
    old_index = {}
    for i, word in enumerate(_vocab_lines(old_vocab_file, old_vocab_size)):
        old_index.setdefault(word, i)
    return np.array([old_index.get(w, -1) for w in new_words[offset:offset + count]], np.int64)


def _load_and_remap_matrix(ckpt_path, old_tensor_name, new_row_vocab_offset, num_rows_to_load,
                           new_col_vocab_size, initializer, old_row_vocab_size=-1,
                           old_row_vocab_file=None, new_row_vocab_file=None,
                           old_col_vocab_file=None, new_col_vocab_file=None,
                           num_row_oov_buckets=0, num_col_oov_buckets=0,
                           max_rows_in_memory=-1):
    """The remapped ``[num_rows_to_load + num_row_oov_buckets, new_col_vocab_size +
    num_col_oov_buckets]`` float32 matrix."""
    del max_rows_in_memory  # the old matrix is read whole
    tf = _tf()
    if num_row_oov_buckets < 0:
        raise ValueError(f"num_row_oov_buckets must be non-negative, got {num_row_oov_buckets}")
    if num_col_oov_buckets < 0:
        raise ValueError(f"num_col_oov_buckets must be non-negative, got {num_col_oov_buckets}")
    if bool(old_row_vocab_file) != bool(new_row_vocab_file):
        raise ValueError("old_row_vocab_file and new_row_vocab_file must both be specified or "
                         "left unspecified.")
    if bool(old_col_vocab_file) != bool(new_col_vocab_file):
        raise ValueError("old_col_vocab_file and new_col_vocab_file must both be specified or "
                         "left unspecified.")
    if num_row_oov_buckets and not new_row_vocab_file:
        raise ValueError("num_row_oov_buckets must be 0 when no row vocabularies are given.")
    if num_col_oov_buckets and not new_col_vocab_file:
        raise ValueError("num_col_oov_buckets must be 0 when no column vocabularies are given.")
    old = np.asarray(tf.train.load_variable(_ckpt_file(ckpt_path), old_tensor_name))
    if old.ndim == 1:
        old = old.reshape(-1, 1)
    if old.ndim != 2:
        raise ValueError(f"The checkpointed tensor {old_tensor_name} must be 2-D, got shape "
                         f"{old.shape}")
    if new_row_vocab_file:
        rows = _remapping(new_row_vocab_file, old_row_vocab_file, new_row_vocab_offset,
                          num_rows_to_load, old_row_vocab_size)
    else:
        rows = np.arange(new_row_vocab_offset, new_row_vocab_offset + num_rows_to_load)
    if new_col_vocab_file:
        cols = _remapping(new_col_vocab_file, old_col_vocab_file, 0, new_col_vocab_size)
    else:
        cols = np.arange(new_col_vocab_size)
    if rows.size and rows.max() >= old.shape[0]:
        raise tf.errors.InvalidArgumentError(
            None, None, f"Row remapping index {rows.max()} is out of range for the checkpointed "
            f"tensor {old_tensor_name} of shape {old.shape}")
    if cols.size and cols.max() >= old.shape[1]:
        raise tf.errors.InvalidArgumentError(
            None, None, f"Column remapping index {cols.max()} is out of range for the "
            f"checkpointed tensor {old_tensor_name} of shape {old.shape}")
    present = (rows >= 0)[:, None] & (cols >= 0)[None, :]
    loaded = np.zeros(present.shape, np.float32)
    loaded[present] = old[np.ix_(np.maximum(rows, 0), np.maximum(cols, 0))][present]
    result = tf.constant(loaded)
    missing = np.flatnonzero(~present)
    if missing.size:
        fill = tf.reshape(initializer([missing.size, 1]), [-1])
        result += tf.reshape(tf.scatter_nd(tf.constant(missing[:, None]), fill,
                                           [present.size]), present.shape)
    if num_row_oov_buckets > 0:
        extra = ops.convert_to_tensor(initializer([num_row_oov_buckets, new_col_vocab_size]))
        result = tf.concat([result, extra], 0)
    if num_col_oov_buckets > 0:
        extra = ops.convert_to_tensor(
            initializer([num_rows_to_load + num_row_oov_buckets, num_col_oov_buckets]))
        result = tf.concat([result, extra], 1)
    return result


def load_and_remap_matrix_initializer(ckpt_path, old_tensor_name, new_row_vocab_size,
                                      new_col_vocab_size, old_row_vocab_size=-1,
                                      old_row_vocab_file=None, new_row_vocab_file=None,
                                      old_col_vocab_file=None, new_col_vocab_file=None,
                                      num_row_oov_buckets=0, num_col_oov_buckets=0,
                                      initializer=None, max_rows_in_memory=-1):
    """An initializer for a ``[new_row_vocab_size + num_row_oov_buckets, new_col_vocab_size +
    num_col_oov_buckets]`` float32 variable (or a row partition of it) loaded from the
    checkpointed ``old_tensor_name`` re-ordered to the new vocabularies."""
    tf = _tf()
    if initializer is None:
        initializer = tf.zeros_initializer()
    if not callable(initializer):
        raise TypeError(f"initializer must be callable, got {initializer!r}")

    def _initializer(shape, dtype=dtypes.float32, partition_info=None):
        if dtypes.as_dtype(dtype) != dtypes.float32:
            raise TypeError(f"Currently, only float32 is supported. Received dtype: {dtype}")
        shape = list(shape)
        if len(shape) != 2:
            raise ValueError(f"Expected 2-dim shape, but received: {shape}")
        if shape[0] <= 0:
            raise ValueError(f"Expected 1st dim of shape to be > 0, but received shape: {shape}")
        if shape[1] != new_col_vocab_size + num_col_oov_buckets:
            raise ValueError(f"Expected 2nd dim of shape to be new_col_vocab_size + "
                             f"num_col_oov_buckets = {new_col_vocab_size} + "
                             f"{num_col_oov_buckets}, but received shape: {shape}")
        offset = 0 if partition_info is None else partition_info.single_offset(shape)
        if offset + shape[0] > new_row_vocab_size + num_row_oov_buckets:
            raise ValueError(f"Trying to initialize {shape[0]} additional rows after {offset} "
                             f"rows have already been initialized, which would exceed the "
                             f"expected total row count of new_row_vocab_size + "
                             f"num_row_oov_buckets = {new_row_vocab_size} + "
                             f"{num_row_oov_buckets}.")
        oov_rows = min(shape[0], max(0, offset + shape[0] - new_row_vocab_size))
        rows_to_load = shape[0] - oov_rows
        if offset > new_row_vocab_size:  # a partition of OOV bucket rows only
            if shape[0] != oov_rows:
                raise ValueError(f"Partitioned variable offset is greater than new vocab size "
                                 f"and not operating on OOV-only partition: {shape}")
            return initializer(shape)
        return _load_and_remap_matrix(
            ckpt_path, old_tensor_name, offset, rows_to_load, new_col_vocab_size, initializer,
            old_row_vocab_size=old_row_vocab_size, old_row_vocab_file=old_row_vocab_file,
            new_row_vocab_file=new_row_vocab_file, old_col_vocab_file=old_col_vocab_file,
            new_col_vocab_file=new_col_vocab_file, num_row_oov_buckets=oov_rows,
            num_col_oov_buckets=num_col_oov_buckets, max_rows_in_memory=max_rows_in_memory)

    return _initializer


def load_embedding_initializer(ckpt_path, embedding_tensor_name, new_vocab_size, embedding_dim,
                               old_vocab_file, new_vocab_file, old_vocab_size=-1,
                               num_oov_buckets=0, initializer=None, max_rows_in_memory=-1):
    """An embedding's initializer remapped by row vocabulary (new rows: truncated normal with
    stddev 1/sqrt(embedding_dim) unless ``initializer`` is given)."""
    if initializer is None:
        initializer = _tf().truncated_normal_initializer(stddev=1.0 / math.sqrt(embedding_dim))
    return load_and_remap_matrix_initializer(
        ckpt_path=ckpt_path, old_tensor_name=embedding_tensor_name,
        new_row_vocab_size=new_vocab_size, new_col_vocab_size=embedding_dim,
        old_row_vocab_size=old_vocab_size, old_row_vocab_file=old_vocab_file,
        new_row_vocab_file=new_vocab_file, num_row_oov_buckets=num_oov_buckets,
        initializer=initializer, max_rows_in_memory=max_rows_in_memory)


def load_linear_multiclass_bias_initializer(ckpt_path, bias_tensor_name, new_class_vocab_size,
                                            old_class_vocab_file, new_class_vocab_file,
                                            num_class_oov_buckets=0, initializer=None,
                                            max_rows_in_memory=-1):
    """A ``[classes, 1]`` bias's initializer remapped by class vocabulary (new classes: 0 unless
    ``initializer`` is given)."""
    if initializer is None:
        initializer = _tf().zeros_initializer()
    return load_and_remap_matrix_initializer(
        ckpt_path=ckpt_path, old_tensor_name=bias_tensor_name,
        new_row_vocab_size=new_class_vocab_size, new_col_vocab_size=1,
        old_row_vocab_file=old_class_vocab_file, new_row_vocab_file=new_class_vocab_file,
        num_row_oov_buckets=num_class_oov_buckets, initializer=initializer,
        max_rows_in_memory=max_rows_in_memory)


def load_variable_slot_initializer(ckpt_path, old_tensor_name, primary_partition_info,
                                   new_row_vocab_size, new_col_vocab_size,
                                   old_row_vocab_file=None, new_row_vocab_file=None,
                                   old_col_vocab_file=None, new_col_vocab_file=None,
                                   num_row_oov_buckets=0, num_col_oov_buckets=0,
                                   initializer=None, max_rows_in_memory=-1):
    """``load_and_remap_matrix_initializer`` for an optimizer slot: the rows follow
    ``primary_partition_info`` (the partition of the primary variable), not the slot's own."""
    initializer_fn = load_and_remap_matrix_initializer(
        ckpt_path=ckpt_path, old_tensor_name=old_tensor_name,
        new_row_vocab_size=new_row_vocab_size, new_col_vocab_size=new_col_vocab_size,
        old_row_vocab_file=old_row_vocab_file, new_row_vocab_file=new_row_vocab_file,
        old_col_vocab_file=old_col_vocab_file, new_col_vocab_file=new_col_vocab_file,
        num_row_oov_buckets=num_row_oov_buckets, num_col_oov_buckets=num_col_oov_buckets,
        initializer=initializer, max_rows_in_memory=max_rows_in_memory)

    def _initializer(shape, dtype=dtypes.float32, partition_info=None):
        del partition_info  # the primary variable's partition decides the rows
        return initializer_fn(shape, dtype, partition_info=primary_partition_info)

    return _initializer


__all__ = ["load_and_remap_matrix_initializer", "load_embedding_initializer",
           "load_linear_multiclass_bias_initializer", "load_variable_slot_initializer"]
