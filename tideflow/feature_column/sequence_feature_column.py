"""Sequence feature columns (TF 1.15's ``tf.feature_column.sequence_*`` and
``tf.contrib.feature_column.sequence_input_layer``): per-timestep features of variable-length
examples, given as ``[batch, max_steps]`` SparseTensors, become a ``[batch, max_steps, depth]``
dense input and the ``[batch]`` sequence lengths an RNN needs."""

import collections

import numpy as np

from tideflow.feature_column import feature_column as fc
from tideflow.framework import dtypes, ops, sparse_tensor, tensor_shape
from tideflow.ops import (
    array_ops,
    cast_ops,
    check_ops,
    fill_ops,
    reduction_ops,
    sparse_ops,
    unary_ops,
    variable_scope,
)

_SparseTensor = sparse_tensor.SparseTensor

TensorSequenceLengthPair = collections.namedtuple("TensorSequenceLengthPair",
                                                  ["dense_tensor", "sequence_length"])


def sequence_length_from_sparse_tensor(sp, num_elements=1):
    """Per row of ``sp``: 1 + the last column holding a value, in steps of ``num_elements``
    values (0 for an empty row). TF 1.15's ops: a SegmentMax over the rows, padded with zeros
    up to the batch."""
    with ops.name_scope(None, "sequence_length") as scope:
        rows = sp.indices[:, 0]
        cols = sp.indices[:, 1]
        cols += fill_ops.ones_like(cols)
        length = reduction_ops.segment_max(cols, segment_ids=rows)
        length = cast_ops.cast(unary_ops.ceil(length / num_elements), dtypes.int64)
        n_pad = array_ops.shape(sp)[:1] - array_ops.shape(length)[:1]
        padding = fill_ops.zeros(n_pad, dtype=length.dtype)
        return array_ops.concat([length, padding], axis=0, name=scope)


def _flatten_steps(sp):
    """A ``[batch, steps, k]`` SparseTensor as ``[batch * steps, k]`` (one row per step)."""
    steps = sp.dense_shape[1]
    rows = sp.indices[:, 0] * steps + sp.indices[:, 1]
    indices = array_ops.stack([rows, sp.indices[:, 2]], axis=1)
    shape = array_ops.stack([sp.dense_shape[0] * steps, sp.dense_shape[2]])
    return _SparseTensor(indices, sp.values, shape)


def _unflatten(dense, sp, depth):
    """``[batch * steps, depth]`` back to ``[batch, steps, depth]``."""
    shape = array_ops.stack([cast_ops.cast(sp.dense_shape[0], dtypes.int32),
                             cast_ops.cast(sp.dense_shape[1], dtypes.int32), depth])
    return array_ops.reshape(dense, shape)


class _SequenceDenseColumn(fc._FeatureColumn):
    """A column with a ``[batch, steps, ...]`` representation and sequence lengths."""

    def _get_sequence_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        raise NotImplementedError


class _SequenceNumericColumn(fc._VarLenKeyColumn, _SequenceDenseColumn, collections.namedtuple(
        "_SequenceNumericColumn", ["key", "shape", "default_value", "dtype",
                                   "normalizer_fn"])):
    """Real values per step, ``shape`` values per step."""

    @property
    def _variable_shape(self):
        return tensor_shape.TensorShape(self.shape)

    def _transform_feature(self, inputs):
        t = inputs.get(self.key)
        if not isinstance(t, _SparseTensor):
            raise ValueError(f"The corresponding Tensor of sequence numeric column must be a "  # noqa: TRY004 - as TF
                             f"SparseTensor. key: {self.key}, given: {t}")
        if self.normalizer_fn is not None:
            t = _SparseTensor(t.indices, self.normalizer_fn(t.values), t.dense_shape)
        return t

    def _get_sequence_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        sp = inputs.get(self)
        dense = sparse_ops.sparse_tensor_to_dense(
            _SparseTensor(sp.indices, cast_ops.cast(sp.values, dtypes.float32),
                          sp.dense_shape),
            default_value=float(self.default_value))
        shape = array_ops.concat([array_ops.shape(dense)[:1], [-1],
                                  np.array(self.shape, np.int32)], 0)
        dense = array_ops.reshape(dense, shape)
        # values grouped into steps of the column's size for 2-D input; 3-D input has them
        # in its last dimension already
        rank = sp.dense_shape.get_shape()
        rank = rank.dims[0].value if rank.ndims == 1 else None
        n = int(np.prod(self.shape)) if rank == 2 else 1
        return TensorSequenceLengthPair(dense, sequence_length_from_sparse_tensor(sp, n))


def sequence_numeric_column(key, shape=(1,), default_value=0.0, dtype=dtypes.float32,
                            normalizer_fn=None):
    """Real-valued sequence features (a VarLenFeature), ``shape`` values per step."""
    shape = fc._check_shape(shape, key)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    fc._assert_key_is_string(key)
    return _SequenceNumericColumn(key, shape, default_value, dtype, normalizer_fn)


class _SequenceCategoricalColumn(fc._CategoricalColumn, collections.namedtuple(
        "_SequenceCategoricalColumn", ["categorical_column"])):
    """A categorical column whose ids are per step: ``[batch, steps, 1]`` sparse ids."""

    @property
    def name(self):
        return self.categorical_column.name

    @property
    def _parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs):
        return self.categorical_column._transform_feature(inputs)

    @property
    def _num_buckets(self):
        return self.categorical_column._num_buckets

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        # TF 1.15's ops: the ids (and weights) reshaped to [batch, steps, the rest's size]
        pair = self.categorical_column._get_sparse_tensors(inputs)
        ids, weights = pair.id_tensor, pair.weight_tensor
        shape = array_ops.shape(ids)
        target = [shape[0], shape[1], reduction_ops.reduce_prod(shape[2:])]
        ids = sparse_ops.sparse_reshape(ids, target)
        if weights is not None:
            weights = sparse_ops.sparse_reshape(weights, target)
        return fc._CategoricalColumn.IdWeightPair(ids, weights)


def sequence_categorical_column_with_identity(key, num_buckets, default_value=None):
    return _SequenceCategoricalColumn(fc.categorical_column_with_identity(
        key, num_buckets, default_value))


def sequence_categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    return _SequenceCategoricalColumn(fc.categorical_column_with_hash_bucket(
        key, hash_bucket_size, dtype))


def sequence_categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None,
                                                     default_value=-1, num_oov_buckets=0):
    return _SequenceCategoricalColumn(fc.categorical_column_with_vocabulary_list(
        key, vocabulary_list, dtype, default_value, num_oov_buckets))


def sequence_categorical_column_with_vocabulary_file(key, vocabulary_file,
                                                     vocabulary_size=None, num_oov_buckets=0,
                                                     default_value=None,
                                                     dtype=dtypes.string):
    return _SequenceCategoricalColumn(fc.categorical_column_with_vocabulary_file(
        key, vocabulary_file, vocabulary_size, num_oov_buckets, default_value, dtype))


def _sequence_dense_of(column, inputs, weight_collections, trainable):
    """The ``[batch, steps, depth]`` tensor and lengths of an embedding, indicator or
    sequence numeric column (TF 1.15's ops: an embedding looks its 3-D ids up at once; an
    indicator's transform and its lengths each reshape the ids)."""
    if isinstance(column, _SequenceDenseColumn):
        return column._get_sequence_dense_tensor(inputs, weight_collections, trainable)
    cat = getattr(column, "categorical_column", None)
    if not isinstance(cat, _SequenceCategoricalColumn):
        raise ValueError(f"In {column.name}: categorical_column must be of type "  # noqa: TRY004 - as TF
                         "_SequenceCategoricalColumn to use sequence_input_layer. Suggested "
                         "fix: Use one of sequence_categorical_column_with_*. Given (type "
                         f"{type(cat)}): {cat}")
    if isinstance(column, fc._EmbeddingColumn):
        pair = cat._get_sparse_tensors(inputs, weight_collections, trainable)
        table = column._create_weights(weight_collections, trainable)
        dense = column._lookup(table, pair)
    elif isinstance(column, fc._SharedEmbeddingColumn):
        dense = column._get_dense_tensor(inputs, weight_collections, trainable)
        pair = cat._get_sparse_tensors(inputs)
    elif isinstance(column, fc._IndicatorColumn):
        dense = inputs.get(column)
        pair = cat._get_sparse_tensors(inputs)
    else:
        raise ValueError(f"Unsupported sequence column: {column}")  # noqa: TRY004 - as TF
    return TensorSequenceLengthPair(dense, sequence_length_from_sparse_tensor(pair.id_tensor))


def sequence_input_layer(features, feature_columns, weight_collections=None, trainable=True):
    """``(input, sequence_length)``: the columns' ``[batch, steps, depth]`` tensors, in the
    order of their names, concatenated on the last axis, and the examples' lengths (which
    must agree between the columns)."""
    columns = fc._normalize_feature_columns(feature_columns)
    weight_collections = fc._weight_collections(weight_collections)
    with variable_scope.variable_scope(None, default_name="sequence_input_layer",
                                       values=list(features.values())):
        builder = fc._LazyBuilder(features)
        outputs, lengths = [], []
        for column in columns:
            with variable_scope.variable_scope(None, default_name=column._var_scope_name):
                dense, length = _sequence_dense_of(column, builder, weight_collections,
                                                   trainable)
                outputs.append(_sequence_3d(column, dense))
                lengths.append(length)
        return _joined(outputs, lengths)


def _sequence_3d(column, dense):
    """A sequence column's dense tensor as ``[batch, steps, depth]``."""
    shape = array_ops.shape(dense)
    return array_ops.reshape(dense, [shape[0], shape[1],
                                     column._variable_shape.num_elements()])


def _joined(outputs, lengths):
    """``(the columns' tensors concatenated on the last axis, the sequence length)``, the
    columns' lengths checked to agree (as TF 1.15, one column's length is returned as is)."""
    with ops.name_scope(None, "assert_all_equal", lengths):
        if len(lengths) == 1:
            length = lengths[0]
        else:
            checks = [check_ops.assert_equal(lengths[0], other) for other in lengths[1:]]
            with ops.control_dependencies(checks):
                length = array_ops.identity(lengths[0])
    return array_ops.concat(outputs, -1), length


__all__ = ["sequence_categorical_column_with_hash_bucket",
           "sequence_categorical_column_with_identity",
           "sequence_categorical_column_with_vocabulary_file",
           "sequence_categorical_column_with_vocabulary_list", "sequence_input_layer",
           "sequence_numeric_column"]
